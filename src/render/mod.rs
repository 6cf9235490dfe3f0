//! OpenGL rendering: window/context setup (`Gfx`), offscreen frame buffer, read-back into
//! [`Image`], image comparison for golden tests, and a debug cube renderer.
//!
//! Layering: this module reads plain data (matrices, colours) and knows nothing about the
//! scene or scripts.

mod context;
mod debug_draw;
mod image;

pub use context::{Gfx, InputEvent, WindowConfig, display_available};
pub use debug_draw::{DebugCube, DebugDraw};
pub use image::{Comparison, Image, compare};
