//! Sinew: a Lua-first runtime for animated 3D games with Defold's scripting API.
//!
//! Layers, each importing only from those before it (`tests/layering.rs` fails otherwise):
//! `base` (hash, paths, errors, log) → `project` (files and formats) → `scene` (game objects,
//! transforms, URLs, messages) → `anim` (skeletal animation and `go.animate` tweens) → `game`
//! (the world and one frame step; scripts are reached through the `ScriptHooks` trait) →
//! `script` (LuaJIT and the Lua API) | `render` (OpenGL, reads a flat draw list) — peers that
//! never see each other → `app` (loop, CLI).
pub mod anim;
pub mod app;
pub mod base;
pub mod game;
pub mod project;
pub mod render;
pub mod scene;
pub mod script;
