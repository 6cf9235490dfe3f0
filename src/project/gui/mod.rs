//! `.gui` scenes (engine.md section 4): Sinew JSON with the fields of Defold's
//! `gui_ddf.proto` SceneDesc/NodeDesc in snake_case (Defold's own text files are rewritten into
//! the same shape by `project::defold::gui`), checked and resolved by [`scene`] into a
//! [`GuiScene`] whose nodes are in draw order with parents before children.
pub mod scene;
#[cfg(test)]
mod tests;

use crate::project::json::Located;
use serde::Deserialize;

pub use scene::{
    AdjustMode, BUILTIN_GUI_MATERIAL, BlendMode, DEFAULT_LAYOUT, GuiImage, GuiLayout, GuiNode, GuiScene, NodeKind,
    PieBounds, XAnchor, YAnchor, load_gui, load_scene_font, load_scene_image,
};

/// A loaded scene shared by every instance of the component that names it. Two specs are equal
/// when they name the same file (a collection compares its specs on hot reload).
#[derive(Debug, Clone)]
pub struct GuiSpec(pub std::sync::Arc<GuiScene>);

impl GuiSpec {
    pub fn new(scene: GuiScene) -> Self {
        GuiSpec(std::sync::Arc::new(scene))
    }
}

impl PartialEq for GuiSpec {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0) || self.0.path == other.0.path
    }
}

/// A `.gui` file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuiDesc {
    #[serde(default)]
    pub script: Option<Located<String>>,
    #[serde(default)]
    pub fonts: Vec<FontEntry>,
    #[serde(default)]
    pub textures: Vec<TextureEntry>,
    #[serde(default)]
    pub layers: Vec<LayerDesc>,
    #[serde(default)]
    pub nodes: Vec<NodeDesc>,
    /// The material of every node that names none (the built-in one when absent).
    #[serde(default)]
    pub material: Option<Located<String>>,
    #[serde(default)]
    pub adjust_reference: Option<String>,
    #[serde(default)]
    pub max_nodes: Option<u32>,
    #[serde(default)]
    pub background_color: Option<Vec<f32>>,
    /// Defold's layouts: per display profile name, the node fields that differ from the
    /// default layout (the scene's `nodes`).
    #[serde(default)]
    pub layouts: Vec<LayoutDesc>,
    /// Materials nodes name (`material: "name"`); `/builtins/materials/gui.material` is the
    /// built-in drawing.
    #[serde(default)]
    pub materials: Vec<MaterialEntry>,
    #[serde(default)]
    pub resources: Option<serde_json::Value>,
    #[serde(default)]
    pub particlefxs: Vec<ParticleFxEntry>,
    #[serde(default)]
    pub max_dynamic_textures: Option<u32>,
}

/// `{ "name": "text24", "font": "/fonts/text24.font" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FontEntry {
    pub name: Located<String>,
    pub font: Located<String>,
}

/// `{ "name": "ui", "texture": "/images/ui.png" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextureEntry {
    pub name: Located<String>,
    pub texture: Located<String>,
}

/// `{ "name": "glow", "material": "/materials/glow.material" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialEntry {
    pub name: Located<String>,
    pub material: Located<String>,
}

/// `{ "name": "sparks", "particlefx": "/fx/sparks.particlefx" }`: an effect particle nodes name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParticleFxEntry {
    pub name: Located<String>,
    pub particlefx: Located<String>,
}

/// `{ "name": "Landscape", "nodes": [{ "id": "panel", "position": [80, 353, 0] }] }`: a node
/// of a layout names a node of the scene by `id` and sets only the fields it writes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutDesc {
    pub name: Located<String>,
    #[serde(default)]
    pub nodes: Vec<NodeDesc>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerDesc {
    pub name: Located<String>,
}

/// One node as written; every field optional with Defold's defaults (`scene` applies them).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NodeDesc {
    pub id: Option<Located<String>>,
    #[serde(rename = "type")]
    pub kind: Option<Located<String>>,
    pub parent: Option<Located<String>>,
    pub position: Option<Located<Vec<f32>>>,
    /// A quaternion `[x, y, z, w]`.
    pub rotation: Option<Located<Vec<f32>>>,
    /// Degrees about x, y, z (Defold's `.gui` files write these).
    pub euler: Option<Located<Vec<f32>>>,
    pub scale: Option<Located<Vec<f32>>>,
    pub size: Option<Located<Vec<f32>>>,
    pub color: Option<Located<Vec<f32>>>,
    pub alpha: Option<f32>,
    pub inherit_alpha: Option<bool>,
    pub blend_mode: Option<Located<String>>,
    pub text: Option<String>,
    pub texture: Option<Located<String>>,
    pub font: Option<Located<String>>,
    pub xanchor: Option<Located<String>>,
    pub yanchor: Option<Located<String>>,
    pub pivot: Option<Located<String>>,
    pub outline: Option<Located<Vec<f32>>>,
    pub shadow: Option<Located<Vec<f32>>>,
    pub outline_alpha: Option<f32>,
    pub shadow_alpha: Option<f32>,
    pub adjust_mode: Option<Located<String>>,
    pub line_break: Option<bool>,
    pub layer: Option<Located<String>>,
    pub slice9: Option<Located<Vec<f32>>>,
    pub outer_bounds: Option<Located<String>>,
    pub inner_radius: Option<f32>,
    pub perimeter_vertices: Option<Located<f64>>,
    pub pie_fill_angle: Option<f32>,
    pub clipping_mode: Option<Located<String>>,
    pub clipping_visible: Option<bool>,
    pub clipping_inverted: Option<bool>,
    pub template: Option<Located<String>>,
    pub template_node_child: Option<bool>,
    pub text_leading: Option<f32>,
    pub text_tracking: Option<f32>,
    pub size_mode: Option<Located<String>>,
    pub enabled: Option<bool>,
    pub visible: Option<bool>,
    /// A name in the scene's `materials`; empty or absent: the scene's material.
    pub material: Option<Located<String>>,
    pub font_size: Option<f32>,
    /// A particle node's effect: a name in the scene's `particlefxs`.
    pub particlefx: Option<Located<String>>,
    /// Defold's editor bookkeeping: read, not used.
    pub overridden_fields: Option<Vec<f64>>,
    pub custom_type: Option<f64>,
}
