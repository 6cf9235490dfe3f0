//! Sinew: a Lua-first runtime for animated 3D games with Defold's scripting API.
//!
//! Layers, each importing only from those before it (`tests/layering.rs` fails otherwise):
//! `base` (hash, paths, errors, log) → `project` (files and formats) → `scene` (game objects,
//! transforms, URLs, messages) → `anim` (skeletal animation and `go.animate` tweens) → `game`
//! (the world and one frame step; scripts are reached through the `ScriptHooks` trait) →
//! `script` (LuaJIT and the Lua API) | `render` (OpenGL, reads a flat draw list) — peers that
//! never see each other → `app` (loop, CLI).
//!
//! Every `unsafe` block says why it is sound (`// SAFETY:`), and the body of an `unsafe fn` is
//! not one unsafe block: each unsafe operation in it is marked and justified on its own.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
pub mod anim;
pub mod app;
pub mod base;
pub mod game;
pub mod project;
pub mod render;
pub mod scene;
pub mod script;

/// Every Lua table, string and boxed FFI value is allocated through mlua's allocator (which keeps
/// the memory limit), so Lua-heavy frames spend much of their time in the allocator: spawning and
/// deleting a scripted object spent 17% of its instructions in glibc's
/// malloc/free (callgrind). mimalloc cuts that part by more than half. It is declared here, in the
/// library, so the benchmarks and tests run on the allocator the `sinew` binary uses.
///
/// Its v2 line rather than the crate's default v3: fresh memory is what start-up pays for on a
/// virtual machine (about 0.7 ms per MiB touched in 4 KiB pages, 1.8 in 2 MiB transparent huge
/// pages, which mimalloc asks for), and v2 touches 10 huge pages where v3 touched 14 before the
/// first frame: peak RSS 152 MiB against 162, start-up 3 to 8 ms shorter (medians of 10 and 20
/// interleaved runs), the animation and Lua benchmarks no slower (docs/benchmarks.md).
///
/// It also replaces the C library's `malloc` for the whole process (the crate's `override`
/// feature; the executable exports `malloc` and its kin, so the GL driver and SDL bind to them):
/// Mesa compiling programs, making textures and tearing the context down is as quick in it as
/// Sinew's own code, and its large buffers come in huge pages. From the shell the demo's
/// `--frames 1` start-up is 12 to 19 ms shorter (medians of 20 and 25 interleaved runs, three
/// times in one morning), for 10 MiB more peak RSS: huge pages half used by the driver's threads.
/// It pays while a fresh huge page costs less than the 512 small pages it replaces (0.13 against
/// 0.34 ms per MiB that morning); on a virtual machine that price moves by the hour (above, and
/// `scripts/fresh-memory.py`), on bare metal huge pages are the cheaper.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
