//! OpenGL rendering: window/context setup (`Gfx`), offscreen frame buffer, read-back into
//! [`Image`], image comparison for golden tests, a debug cube renderer, and the model renderer
//! (uploaded glTF models, `.material` shaders, a flat per-frame [`DrawList`]). Morph targets are
//! deformed on the GPU: deltas in a texture array per primitive, weights per draw item. So are
//! skins: every item's bones in one `pose_matrix_cache` texture per frame (Defold's layout).
//!
//! Layering: this module reads plain data (matrices, colours, imported model data) and knows
//! nothing about the scene or scripts.

mod camera;
mod classic;
mod debug_draw;
mod draw;
mod gfx;
mod gui;
mod image;
mod labels;
mod material;
mod mesh;
mod mipmap;
mod morph;
mod overlay;
mod pass_clock;
mod program;
mod render_target;
mod renderer;
mod sdl_input;
mod shader;
mod shadow;
mod skin;
pub mod sprites;
mod variant;

pub use camera::{CameraView, DEFAULT_FOV, camera_from_component, default_camera, transform_aabb};
pub use debug_draw::{DebugCube, DebugDraw};
pub use draw::{
    BoneRows, DEFAULT_AMBIENT, DrawItem, DrawList, LabelItem, LightItem, LightKind, MaterialHandle, ModelHandle, Span,
    TextureHandle, bone_rows,
};
pub use gfx::{Gfx, WindowConfig, display_available};
pub use gui::{GuiCall, GuiRenderer};
pub use image::{Comparison, Image, compare};
pub use material::{FilterMode, Material, MaterialDesc, SamplerDesc, WrapMode, parse_material};
pub use mesh::{GpuModel, node_world_matrices};
pub use morph::{MorphLimits, MorphTexture, morph_grid, pack_morph_texels};
pub use overlay::Overlay;
pub use pass_clock::{PASSES, Pass, PassClock};
pub use program::{MAX_LIGHTS, ShaderProgram};
pub use render_target::TargetFramebuffers;
pub use renderer::{ModelRenderer, SubmitStats};
pub use shader::{ATTRIBUTES, preprocess};
pub use skin::{BoneTexels, POSE_CACHE_WIDTH, PoseCache, bone_texels, texels_to_cols};
pub use sprites::SpriteRenderer;
