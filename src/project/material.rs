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
