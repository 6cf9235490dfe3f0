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
    pub fn constants(&self) -> Vec<(String, [f32; 4])> {
        let mut out = Vec::new();
        for map in [&self.vertex_constants, &self.fragment_constants].into_iter().flatten() {
            for (name, v) in map.0.iter() {
                out.push((name.clone(), *v));
            }
        }
        out
    }
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
