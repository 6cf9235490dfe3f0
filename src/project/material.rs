//! `.material` files as written: which shaders to run, default values of user constants and
//! sampler settings. The renderer compiles them; the game reads constant defaults from them.
use serde::Deserialize;

use crate::base::error::LoadError;
use crate::project::json::{self, Located, OrderedMap};

/// The `.material` JSON, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialDesc {
    pub vertex_program: Located<String>,
    pub fragment_program: Located<String>,
    #[serde(default)]
    pub vertex_constants: Option<OrderedMap<[f32; 4]>>,
    #[serde(default)]
    pub fragment_constants: Option<OrderedMap<[f32; 4]>>,
    #[serde(default)]
    pub samplers: Option<OrderedMap<SamplerDesc>>,
    /// Engine matrices a Defold material declares under its own names (`view_proj` as
    /// CONSTANT_TYPE_VIEWPROJ in Defold's built-in sprite material): (the shader's name, the
    /// name Sinew feeds). The renderer renames them in the shader sources, so a material copied
    /// from Defold runs unchanged.
    #[serde(skip)]
    pub renamed: Vec<(String, String)>,
    /// Vertex attributes a sprite feeds with one value for all of its vertices (Defold's
    /// material `attributes` without a semantic type): name and default, settable per sprite
    /// as constants are (`go.set(url, "mycolor", v)`, `go.animate`).
    #[serde(default)]
    pub attributes: Option<OrderedMap<[f32; 4]>>,
    /// Attributes with a semantic Sinew feeds per vertex (`local_position`: Defold's
    /// SEMANTIC_TYPE_POSITION in local space), by the shader's name.
    #[serde(skip)]
    pub semantic_attributes: Vec<(String, SemanticAttribute)>,
    /// A Defold material's `tags` (the render predicates that draw it); empty in Sinew JSON.
    #[serde(skip)]
    pub tags: Vec<String>,
}

/// The predicates Defold's default render script draws, which Sinew's pipeline follows: a model
/// whose material has tags and none of these (`skybox`, `postprocess`) is drawn by a project's
/// own render script in Defold, and not at all by Sinew, rather than drawn wrongly.
pub const DEFAULT_PREDICATES: &[&str] = &["model", "tile", "particle", "gui", "text", "debug_text"];

impl MaterialDesc {
    /// Whether Sinew's pipeline draws models with this material ([`DEFAULT_PREDICATES`]).
    pub fn drawn(&self) -> bool {
        self.tags.is_empty() || self.tags.iter().any(|t| DEFAULT_PREDICATES.contains(&t.as_str()))
    }
}

/// What a semantic vertex attribute of a material carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SemanticAttribute {
    /// The vertex's position in the sprite's own pixels, about its centre (Defold's
    /// SEMANTIC_TYPE_POSITION with COORDINATE_SPACE_LOCAL).
    LocalPosition,
    /// The 3x3 matrix from a quad's own 0..1 coordinates to its image's region of the page
    /// (Defold's SEMANTIC_TYPE_TEXTURE_TRANSFORM_2D; a shader reading `texture_transform_2d`
    /// gets it without declaring it, as in Defold).
    TextureTransform2d,
}

/// `source` with every identifier `from` (a whole word: not a part of a longer name) made `to`.
pub fn rename_identifier(source: &str, from: &str, to: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(i) = rest.find(from) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + from.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplerDesc {
    #[serde(default)]
    pub wrap: Option<WrapMode>,
    #[serde(default)]
    pub filter: Option<FilterMode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WrapMode {
    Repeat,
    #[serde(alias = "clamp")]
    ClampToEdge,
    MirroredRepeat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterMode {
    Nearest,
    Linear,
    NearestMipmapNearest,
    NearestMipmapLinear,
    LinearMipmapNearest,
    LinearMipmapLinear,
}

impl FilterMode {
    /// The names project settings use (Defold's `default_texture_min_filter` values; the
    /// `.material` form in snake case too).
    pub const NAMES: [(&'static str, FilterMode); 6] = [
        ("nearest", FilterMode::Nearest),
        ("linear", FilterMode::Linear),
        ("nearest_mipmap_nearest", FilterMode::NearestMipmapNearest),
        ("nearest_mipmap_linear", FilterMode::NearestMipmapLinear),
        ("linear_mipmap_nearest", FilterMode::LinearMipmapNearest),
        ("linear_mipmap_linear", FilterMode::LinearMipmapLinear),
    ];

    pub fn from_name(name: &str) -> Option<FilterMode> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The magnifying part: mipmaps only apply to minifying.
    pub fn magnifying(self) -> FilterMode {
        match self {
            FilterMode::Linear | FilterMode::LinearMipmapNearest | FilterMode::LinearMipmapLinear => FilterMode::Linear,
            _ => FilterMode::Nearest,
        }
    }
}

/// Parses a `.material` strictly; errors carry line and column. Defold's protobuf text form
/// is read into the same description.
pub fn parse_material(resource: &str, text: &str) -> Result<MaterialDesc, LoadError> {
    if crate::project::defold::is_protobuf_text(text) {
        return crate::project::defold::material::parse(resource, text);
    }
    json::parse(resource, text)
}

impl MaterialDesc {
    /// Every user constant with its default, vertex constants first.
    /// User constants and value attributes (both are per-sprite properties), each with its
    /// default.
    pub fn constants(&self) -> Vec<(String, [f32; 4])> {
        let mut out = Vec::new();
        for map in [&self.vertex_constants, &self.fragment_constants, &self.attributes].into_iter().flatten() {
            for (name, v) in map.0.iter() {
                out.push((name.clone(), *v));
            }
        }
        out
    }
}

/// Most files one shader may include (each at most once), and its most bytes once expanded.
const MAX_INCLUDES: usize = 64;
const MAX_EXPANDED: usize = 4 << 20;

/// Expands Defold's `#include "path"` lines (absolute resource paths, or relative to the file
/// that includes): each file's text once per shader (a second include of it is dropped, so
/// guards are optional and cycles end), wrapped in `#line` directives whose source-string
/// numbers index the returned list (0 is `resource`, then the included files in order), so a
/// driver message's `N:line` names a file. Read errors and malformed lines name the including
/// file and line.
pub fn expand_includes(
    resource: &str,
    source: &str,
    read: &mut dyn FnMut(&str) -> Result<String, LoadError>,
) -> Result<(String, Vec<String>), LoadError> {
    let mut files = vec![resource.to_string()];
    let mut out = String::with_capacity(source.len());
    include_into(&mut out, &mut files, 0, source, read)?;
    Ok((out, files))
}

fn include_into(
    out: &mut String,
    files: &mut Vec<String>,
    me: usize,
    source: &str,
    read: &mut dyn FnMut(&str) -> Result<String, LoadError>,
) -> Result<(), LoadError> {
    for (index, line) in source.split_inclusive('\n').enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("#include") else {
            out.push_str(line);
            continue;
        };
        let here = files[me].clone();
        let at = |message: String| LoadError { resource: here.clone(), line: Some(index + 1), column: None, message };
        let quoted = rest.trim();
        let path = quoted
            .strip_prefix('"')
            .and_then(|q| q.split_once('"'))
            .filter(|(_, after)| after.trim().is_empty() || after.trim().starts_with("//"))
            .map(|(p, _)| p)
            .ok_or_else(|| at(format!("#include wants a quoted path, got `{}`", quoted)))?;
        let joined = if path.starts_with('/') {
            path.to_string()
        } else {
            let dir = files[me].rsplit_once('/').map_or("", |(d, _)| d);
            format!("{dir}/{path}")
        };
        let full = crate::base::path::normalize(&joined)
            .ok_or_else(|| at(format!("#include \"{path}\": not a path inside the project")))?;
        if files.contains(&full) {
            out.push('\n');
            continue;
        }
        if files.len() > MAX_INCLUDES {
            return Err(at(format!("more than {MAX_INCLUDES} files included")));
        }
        let text = read(&full).map_err(|e| at(format!("#include \"{path}\": {e}")))?;
        if out.len() + text.len() > MAX_EXPANDED {
            return Err(at(format!("included text past {} MiB", MAX_EXPANDED >> 20)));
        }
        files.push(full);
        let k = files.len() - 1;
        // Before GLSL 4.30 the line after `#line N` is line N + 1.
        out.push_str(&format!("#line 0 {k}\n"));
        include_into(out, files, k, &text, read)?;
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("#line {} {me}\n", index + 1));
    }
    Ok(())
}

#[cfg(test)]
mod rename_tests {
    use super::rename_identifier;

    #[test]
    fn only_whole_identifiers_are_renamed() {
        let src = "uniform mat4 view_proj;\nvoid main() { gl_Position = view_proj * p; float my_view_proj = 1.0; view_proj2; }";
        assert_eq!(
            rename_identifier(src, "view_proj", "mtx_viewproj"),
            "uniform mat4 mtx_viewproj;\nvoid main() { gl_Position = mtx_viewproj * p; float my_view_proj = 1.0; view_proj2; }"
        );
        assert_eq!(rename_identifier("", "a", "b"), "");
    }
}

#[cfg(test)]
mod include_tests {
    use super::*;

    fn reader(files: &'static [(&'static str, &'static str)]) -> impl FnMut(&str) -> Result<String, LoadError> {
        move |p: &str| {
            files
                .iter()
                .find(|(n, _)| *n == p)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| LoadError::new(p, "resource not found"))
        }
    }

    #[test]
    fn includes_expand_once_with_line_markers_and_relative_paths() {
        let mut read = reader(&[
            ("/m/lib.glsl", "#include \"common.glsl\"\nfloat f();\n"),
            ("/m/common.glsl", "#include \"/m/lib.glsl\"\nfloat c;"),
        ]);
        let src = "#version 140\n#include \"lib.glsl\"\n#include \"/m/common.glsl\" // again\nvoid main() {}\n";
        let (out, files) = expand_includes("/m/a.fp", src, &mut read).expect("expands");
        assert_eq!(files, vec!["/m/a.fp", "/m/lib.glsl", "/m/common.glsl"]);
        assert_eq!(
            out,
            "#version 140\n#line 0 1\n#line 0 2\n\nfloat c;\n#line 1 1\nfloat f();\n#line 2 0\n\nvoid main() {}\n"
        );
    }

    #[test]
    fn bad_includes_name_the_file_and_line() {
        let mut read = reader(&[]);
        let e = expand_includes("/m/a.fp", "\n#include \"nope.glsl\"\n", &mut read).unwrap_err().to_string();
        assert!(e.starts_with("/m/a.fp:2: #include \"nope.glsl\": /m/nope.glsl: resource not found"), "{e}");
        let e = expand_includes("/m/a.fp", "#include <x.glsl>\n", &mut read).unwrap_err().to_string();
        assert!(e.contains("/m/a.fp:1: #include wants a quoted path"), "{e}");
        let e = expand_includes("/a.fp", "#include \"../../x\"\n", &mut read).unwrap_err().to_string();
        assert!(e.contains("not a path inside the project"), "{e}");
    }
}
