//! Sinew: a Lua-first runtime for animated 3D games with Defold's scripting API.
//!
//! Layers, each depending only on those above it in this list:
//! `base` (hash, paths, errors) → `project` (files and formats) → `scene` (game objects,
//! transforms, URLs, messages) → `anim` (`go.animate` tweens over the scene) → `script` (LuaJIT
//! bindings over the scene) → `game` (one frame step) → `render` (OpenGL, reads a flat draw
//! list) → `app` (loop, CLI).
pub mod anim;
pub mod app;
pub mod base;
pub mod game;
pub mod project;
pub mod render;
pub mod scene;
pub mod script;
