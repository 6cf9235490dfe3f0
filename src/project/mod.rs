//! Loading a project folder: resources, `project.json`, collections, game-object files and the
//! component descriptions they hold. Everything here is converted into plain runtime types; no
//! later layer sees JSON.
pub mod archive;
pub mod bon;
pub mod collection;
pub mod cubemap;
pub mod defold;
pub mod display_profiles;
pub mod font;
pub mod gltf;
pub mod gui;
pub mod import;
pub mod input;
pub mod json;
pub mod library;
pub mod material;
pub mod mesh;
pub mod model_data;
pub mod obj;
pub mod particlefx;
pub mod physics;
#[cfg(test)]
mod physics_tests;
pub mod reachable;
pub mod resources;
pub mod settings;
pub mod sound;
pub mod sprite;
pub mod tilemap;
pub mod types;

pub use resources::Resources;
pub use types::*;
