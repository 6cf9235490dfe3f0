//! `.material` (MaterialDesc of material_ddf.proto) into Sinew's material description: the
//! programs, user constants with their defaults, sampler settings. Matrices are bound by their
//! standard names (`mtx_view`, ...), so a matrix constant under another name is refused where
//! it is written instead of leaving the shader's uniform unset.
use super::read::{Problems, Reader, message};
use super::text;
use crate::base::error::LoadError;
use crate::project::json::{Located, OrderedMap};
use crate::project::material::{FilterMode, MaterialDesc, SamplerDesc, SemanticAttribute, WrapMode};

const MATERIAL: &[&str] = &[
    "name",
    "tags",
    "vertex_program",
    "fragment_program",
    "vertex_space",
    "vertex_constants",
    "fragment_constants",
    "textures",
    "samplers",
    "max_page_count",
    "attributes",
];
const CONSTANT: &[&str] = &["name", "type", "value"];
/// The fields of one of Defold's `attributes` entries (material and sprite alike).
pub(crate) const ATTRIBUTE: &[&str] = &[
    "name",
    "name_hash",
    "semantic_type",
    "element_count",
    "normalize",
    "data_type",
    "coordinate_space",
    "long_values",
    "double_values",
    "binary_values",
    "vector_type",
    "step_function",
];
const SAMPLER: &[&str] = &[
    "name",
    "wrap_u",
    "wrap_v",
    "filter_min",
    "filter_mag",
    "max_anisotropy",
    "name_indirections",
    "texture",
    "name_hash",
];

/// The standard name Sinew binds for each of Defold's engine-supplied constant types.
const MATRICES: &[(&str, &str)] = &[
    // x: seconds since the start (game time), y: the frame's dt.
    ("CONSTANT_TYPE_TIME", "engine_time"),
    ("CONSTANT_TYPE_VIEWPROJ", "mtx_viewproj"),
    ("CONSTANT_TYPE_WORLD", "mtx_world"),
    ("CONSTANT_TYPE_VIEW", "mtx_view"),
    ("CONSTANT_TYPE_PROJECTION", "mtx_proj"),
    ("CONSTANT_TYPE_NORMAL", "mtx_normal"),
    ("CONSTANT_TYPE_WORLDVIEW", "mtx_worldview"),
    ("CONSTANT_TYPE_WORLDVIEWPROJ", "mtx_worldviewproj"),
];

pub fn parse(resource: &str, text: &str) -> Result<MaterialDesc, LoadError> {
    let msg = text::parse(resource, text).map_err(super::joined)?;
    let mut p = Problems::default();
    let r = Reader::new(
        &msg,
        "a material",
        MATERIAL,
        &["tags", "vertex_constants", "fragment_constants", "textures", "samplers", "attributes"],
        &mut p,
    );
    let program = |name: &str, p: &mut Problems| {
        r.required(name, p).map(|(s, f)| Located { value: s.to_string(), at: Some(f.value_at.clone()) })
    };
    let vertex_program = program("vertex_program", &mut p);
    let fragment_program = program("fragment_program", &mut p);
    let mut renamed = Vec::new();
    let vertex_constants = constants(&r, "vertex_constants", &mut p, &mut renamed);
    let fragment_constants = constants(&r, "fragment_constants", &mut p, &mut renamed);
    let mut samplers = Vec::new();
    for f in r.all("samplers") {
        let Some(m) = message(f, "a sampler", &mut p) else { continue };
        let sr = Reader::new(m, "a sampler", SAMPLER, &["name_indirections"], &mut p);
        let Some((name, _)) = sr.required("name", &mut p) else { continue };
        let wrap = sr.enum_name("wrap_u", &mut p).and_then(|(w, wf)| {
            let mode = match w {
                "WRAP_MODE_REPEAT" => Some(WrapMode::Repeat),
                "WRAP_MODE_MIRRORED_REPEAT" => Some(WrapMode::MirroredRepeat),
                "WRAP_MODE_CLAMP_TO_EDGE" => Some(WrapMode::ClampToEdge),
                _ => None,
            };
            if mode.is_none() {
                p.at(&wf.at, format!("unknown wrap mode {w}"));
            }
            mode
        });
        let filter = sr.enum_name("filter_min", &mut p).and_then(|(m, mf)| {
            match m {
                "FILTER_MODE_MIN_NEAREST" => Some(FilterMode::Nearest),
                "FILTER_MODE_MIN_LINEAR" => Some(FilterMode::Linear),
                "FILTER_MODE_MIN_NEAREST_MIPMAP_NEAREST" => Some(FilterMode::NearestMipmapNearest),
                "FILTER_MODE_MIN_NEAREST_MIPMAP_LINEAR" => Some(FilterMode::NearestMipmapLinear),
                "FILTER_MODE_MIN_LINEAR_MIPMAP_NEAREST" => Some(FilterMode::LinearMipmapNearest),
                "FILTER_MODE_MIN_LINEAR_MIPMAP_LINEAR" => Some(FilterMode::LinearMipmapLinear),
                // Defold's "use the texture profile's setting": Sinew's default.
                "FILTER_MODE_MIN_DEFAULT" => None,
                _ => {
                    p.at(&mf.at, format!("unknown filter mode {m}"));
                    None
                }
            }
        });
        samplers.push((name.to_string(), SamplerDesc { wrap, filter }));
    }
    let (attributes, semantic_attributes) = attributes(&r, &mut p);
    let tags: Vec<String> = r
        .all("tags")
        .filter_map(|f| match &f.value {
            text::Value::Str(t, _) => Some(t.clone()),
            _ => None,
        })
        .collect();
    match (vertex_program, fragment_program) {
        (Some(vertex_program), Some(fragment_program)) if p.0.is_empty() => Ok(MaterialDesc {
            vertex_program,
            fragment_program,
            vertex_constants: Some(OrderedMap(vertex_constants)),
            fragment_constants: Some(OrderedMap(fragment_constants)),
            samplers: Some(OrderedMap(samplers)),
            renamed,
            attributes: Some(OrderedMap(attributes)),
            semantic_attributes,
            tags,
        }),
        _ => Err(super::joined(p.0)),
    }
}

/// Vertex attributes: value attributes (no semantic) with their defaults, and the semantic
/// ones Sinew feeds per vertex. Position, texture coordinates, colour and page index are
/// Sinew's attributes of those names already; other semantics are warned about where written.
type Attributes = (Vec<(String, [f32; 4])>, Vec<(String, SemanticAttribute)>);

/// An attribute's `double_values` (or `long_values`), zeros after the last one given: a
/// material's default, or a sprite's own value in a `.sprite` file.
pub(crate) fn attribute_values(ar: &Reader, name: &str, p: &mut Problems) -> [f32; 4] {
    let mut v = [0.0f32; 4];
    let list = ar.message("double_values", p).or_else(|| ar.message("long_values", p));
    if let Some((lm, _)) = list {
        for (k, x) in lm.all("v").enumerate() {
            match (v.get_mut(k), super::read::number(x, "an attribute value", p)) {
                (Some(slot), Some(n)) => *slot = n as f32,
                (None, _) => p.at(&x.at, format!("attribute '{name}': more than 4 values")),
                _ => {}
            }
        }
    }
    v
}

fn attributes(r: &Reader, p: &mut Problems) -> Attributes {
    let (mut values, mut semantic) = (Vec::new(), Vec::new());
    for f in r.all("attributes") {
        let Some(m) = message(f, "an attribute", p) else { continue };
        let ar = Reader::new(m, "an attribute", ATTRIBUTE, &[], p);
        let Some((name, nf)) = ar.required("name", p) else { continue };
        let kind = ar.enum_name("semantic_type", p).map_or("SEMANTIC_TYPE_NONE", |(t, _)| t);
        let space = ar.enum_name("coordinate_space", p).map_or("COORDINATE_SPACE_LOCAL", |(s, _)| s);
        match kind {
            "SEMANTIC_TYPE_NONE" => values.push((name.to_string(), attribute_values(&ar, name, p))),
            "SEMANTIC_TYPE_POSITION" if space == "COORDINATE_SPACE_LOCAL" => {
                semantic.push((name.to_string(), SemanticAttribute::LocalPosition));
            }
            "SEMANTIC_TYPE_TEXTURE_TRANSFORM_2D" => {
                semantic.push((name.to_string(), SemanticAttribute::TextureTransform2d));
            }
            // Sinew's own `position`, `texcoord0`, `color` and `page_index` carry these.
            "SEMANTIC_TYPE_POSITION"
            | "SEMANTIC_TYPE_TEXCOORD"
            | "SEMANTIC_TYPE_COLOR"
            | "SEMANTIC_TYPE_PAGE_INDEX"
                if ["position", "texcoord0", "color", "page_index"].contains(&name) => {}
            // Warned, not refused: such materials loaded before attributes were read at all.
            _ => log::warn!(
                "{}:{}:{}: attribute '{name}': {kind} ({space}) is not fed by Sinew yet (the shader reads 0)",
                nf.at.resource,
                nf.at.line,
                nf.at.column
            ),
        }
    }
    (values, semantic)
}

/// The user constants (name and default) of one list; engine matrices under other names than
/// Sinew's go into `renamed` (the renderer renames them in the shaders).
fn constants(
    r: &Reader,
    list: &'static str,
    p: &mut Problems,
    renamed: &mut Vec<(String, String)>,
) -> Vec<(String, [f32; 4])> {
    let mut out = Vec::new();
    for f in r.all(list) {
        let Some(m) = message(f, "a constant", p) else { continue };
        let cr = Reader::new(m, "a constant", CONSTANT, &["value"], p);
        let Some((name, nf)) = cr.required("name", p) else { continue };
        let ty = cr.enum_name("type", p).map_or("CONSTANT_TYPE_USER", |(t, _)| t);
        if ty == "CONSTANT_TYPE_USER" {
            let value = cr.vector("value", [0.0; 4], p).map_or([0.0; 4], |(v, _)| v);
            if cr.all("value").count() > 1 {
                p.at(&nf.at, format!("constant '{name}': arrays of constants are not supported yet"));
            }
            out.push((name.to_string(), value));
        } else if let Some((_, standard)) = MATRICES.iter().find(|(t, _)| *t == ty) {
            let valid = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && name.chars().next().is_some_and(|c| !c.is_ascii_digit());
            if !valid {
                p.at(&nf.at, format!("constant '{name}' ({ty}): not a GLSL name"));
            } else if name != *standard && !renamed.iter().any(|(n, _)| n == name) {
                renamed.push((name.to_string(), standard.to_string()));
            }
        } else {
            p.at(&nf.at, format!("constant '{name}': {ty} constants are not supported yet"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNLIT: &str = "name: \"unlit\"\ntags: \"model\"\nvertex_program: \"/m/unlit.vp\"\nfragment_program: \"/m/unlit.fp\"\nvertex_space: VERTEX_SPACE_LOCAL\nvertex_constants {\n  name: \"mtx_view\"\n  type: CONSTANT_TYPE_VIEW\n}\nfragment_constants {\n  name: \"tint\"\n  type: CONSTANT_TYPE_USER\n  value {\n    x: 1.0\n    y: 0.5\n    z: 1.0\n    w: 1.0\n  }\n}\nsamplers {\n  name: \"texture0\"\n  wrap_u: WRAP_MODE_CLAMP_TO_EDGE\n  wrap_v: WRAP_MODE_CLAMP_TO_EDGE\n  filter_min: FILTER_MODE_MIN_LINEAR\n  filter_mag: FILTER_MODE_MAG_LINEAR\n  max_anisotropy: 0.0\n}\n";

    #[test]
    fn a_defold_material() {
        let m = parse("/m/unlit.material", UNLIT).unwrap();
        assert_eq!((m.tags.as_slice(), m.drawn()), (["model".to_string()].as_slice(), true));
        // Tagged only for a project's own render script: not drawn by Sinew's pipeline.
        let sky = parse("/m/sky.material", &UNLIT.replace("tags: \"model\"", "tags: \"skybox\"")).unwrap();
        assert!(!sky.drawn(), "{:?}", sky.tags);
        let both = UNLIT.replace("tags: \"model\"", "tags: \"skybox\"\ntags: \"tile\"");
        assert!(parse("/m/both.material", &both).unwrap().drawn(), "one default predicate is enough");
        assert_eq!(m.vertex_program.value, "/m/unlit.vp");
        assert_eq!(m.vertex_program.at.as_ref().map(|p| (p.line, p.column)), Some((3, 17)));
        assert_eq!(m.constants(), vec![("tint".to_string(), [1.0, 0.5, 1.0, 1.0])]);
        let s = &m.samplers.as_ref().unwrap().0[0];
        assert_eq!(s.0, "texture0");
        assert_eq!(s.1, SamplerDesc { wrap: Some(WrapMode::ClampToEdge), filter: Some(FilterMode::Linear) });
    }

    #[test]
    fn matrices_under_defold_names_are_renamed_and_typos_are_refused() {
        let ok = "vertex_program: \"/a.vp\"\nfragment_program: \"/a.fp\"\nvertex_constants {\n  name: \"view_proj\"\n  type: CONSTANT_TYPE_VIEWPROJ\n}\n";
        let m = parse("/a.material", ok).unwrap();
        assert_eq!(m.renamed, vec![("view_proj".to_string(), "mtx_viewproj".to_string())]);
        assert!(m.constants().is_empty(), "an engine matrix is no user constant");
        let text = "vertex_program: \"/a.vp\"\nfragment_program: \"/a.fp\"\nvertex_constants {\n  name: \"view proj\"\n  type: CONSTANT_TYPE_VIEWPROJ\n}\nsamplerz {}\n";
        let e = parse("/a.material", text).unwrap_err().to_string();
        assert!(
            e.starts_with("/a.material:4:3: constant 'view proj' (CONSTANT_TYPE_VIEWPROJ): not a GLSL name"),
            "{e}"
        );
        assert!(e.contains("/a.material:7:1: unknown field `samplerz` in a material"), "{e}");
        let e = parse("/a.material", "vertex_program: \"/a.vp\"\n").unwrap_err();
        assert!(e.message.contains("needs `fragment_program`"), "{e}");
    }

    #[test]
    fn attributes_with_values_and_a_local_position() {
        let text = "vertex_program: \"/a.vp\"\nfragment_program: \"/a.fp\"\nattributes {\n  name: \"mycolor\"\n  double_values {\n    v: 1.0\n    v: 0.5\n  }\n  vector_type: VECTOR_TYPE_VEC4\n}\nattributes {\n  name: \"local\"\n  semantic_type: SEMANTIC_TYPE_POSITION\n  vector_type: VECTOR_TYPE_VEC2\n}\nattributes {\n  name: \"page_index\"\n  semantic_type: SEMANTIC_TYPE_PAGE_INDEX\n}\nattributes {\n  name: \"n\"\n  semantic_type: SEMANTIC_TYPE_NORMAL\n}\n";
        let m = parse("/a.material", text).unwrap();
        assert_eq!(
            m.attributes.as_ref().map(|a| a.0.clone()),
            Some(vec![("mycolor".to_string(), [1.0, 0.5, 0.0, 0.0])])
        );
        assert_eq!(m.semantic_attributes, vec![("local".to_string(), SemanticAttribute::LocalPosition)]);
        // Value attributes are per-sprite properties as constants are.
        assert_eq!(m.constants(), vec![("mycolor".to_string(), [1.0, 0.5, 0.0, 0.0])]);
        let e = parse("/a.material", &text.replace("v: 0.5", "v: 0.5\n    v: 1\n    v: 1\n    v: 1")).unwrap_err();
        assert!(e.to_string().contains("attribute 'mycolor': more than 4 values"), "{e}");
    }
}
