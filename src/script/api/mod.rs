//! The C functions Lua calls through LuaJIT's FFI, one file per Lua namespace (the Lua wrapper of
//! each is `lua/<namespace>.lua`). Each function is declared once with `export!`
//! (`script::boundary`), which also gives Lua its signature; adding a Lua function means one
//! declaration here and one wrapper in Lua.
//!
//! A Lua→Rust call through mlua costs ~50 ns and a vector userdata ~300 ns; an FFI call costs a
//! few ns and vectors are plain cdata structs, so `go.get_position`/`go.set_position` stay cheap.
//! Functions never unwind into Lua: they return a status (0 = ok) and leave a message in
//! `last_error`, and the Lua wrapper raises the error with the caller's file and line.
pub mod types;

/// Declares each namespace's module and gathers its exports: the Rust half of registering a
/// namespace is its name here (the Lua half is its line in `script::LUA_FILES`).
macro_rules! namespaces {
    ($($ns:ident),* $(,)?) => {
        $(pub mod $ns;)*

        /// Every exported function, for the Lua runtime.
        pub fn exports() -> Vec<Export> {
            let mut all = Vec::new();
            $(all.extend($ns::exports());)*
            all
        }
    };
}

namespaces!(
    sys, go, msg, animate, model, vmath, factory, label, camera, sound, physics, sprite, gui, particlefx, b2d, tilemap,
    resource, render
);

use super::boundary::{CType, Export, OK, fail};
use crate::game::World;
use std::cell::RefCell;

/// The game state as Lua holds it (`const void *` there): null (the boundary tests) or the
/// address of the `RefCell<World>` that the `ScriptHost` keeps alive (an `Rc` it owns) for as
/// long as its Lua state exists, entered only on this thread. Only LuaJIT makes one, passing
/// the address the host gave it to an exported function (whose contract is that promise): the
/// field is private and there is no constructor, so [`with_world`] may rely on it.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct Ctx(*const RefCell<World>);

impl CType for Ctx {
    fn c_type() -> String {
        "const void *".into()
    }
}

/// Runs `f` on the world; a re-entrant call (which would be a bug) fails instead of aliasing.
/// Inlined: the hot FFI paths (go.get/set_position) are a few dozen instructions, and a call
/// here measurably doubled them (callgrind, 10k scripts).
#[inline(always)]
pub(super) fn with_world<R>(ctx: Ctx, f: impl FnOnce(&mut World) -> R) -> Option<R> {
    // SAFETY: a `Ctx` is null or the live world cell, used on its thread (see the type).
    let cell = unsafe { ctx.0.as_ref()? };
    let mut w = cell.try_borrow_mut().ok()?;
    Some(f(&mut w))
}

/// `with_world` for status-returning functions.
#[inline(always)]
pub(super) fn world_status(ctx: Ctx, f: impl FnOnce(&mut World) -> i32) -> i32 {
    with_world(ctx, f).unwrap_or_else(busy)
}

#[cold]
#[inline(never)]
fn busy() -> i32 {
    fail("game state is busy".into())
}

/// Writes `v` through an out-pointer from the Lua wrapper; a null pointer is an error.
///
/// # Safety
/// `p` is null or points at a writable `T` (a cdata the Lua wrapper made for the call).
#[inline(always)]
pub(super) unsafe fn put<T>(p: *mut T, v: T) -> i32 {
    // SAFETY: the caller's promise.
    match unsafe { p.as_mut() } {
        Some(r) => {
            *r = v;
            OK
        }
        None => fail("null output pointer".into()),
    }
}

/// Copies `data` into the Lua-side buffer `buf` of `cap` bytes (as much as fits) and returns
/// its whole length: a caller whose buffer was too small calls again with one that fits.
pub(super) fn copy_out(data: impl AsRef<[u8]>, buf: *mut std::ffi::c_char, cap: usize) -> i32 {
    let data = data.as_ref();
    if !buf.is_null() {
        let k = data.len().min(cap);
        // SAFETY: `buf` has room for `cap` bytes (a Lua-side buffer alive during the call).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf.cast(), k) };
    }
    data.len().min(i32::MAX as usize) as i32
}

/// The `n` bytes of a Lua string argument (empty for a null pointer).
///
/// # Safety
/// `s` is null or points at `n` bytes that stay alive and unchanged for `'a`.
pub(super) unsafe fn bytes<'a>(s: *const std::ffi::c_char, n: usize) -> &'a [u8] {
    if s.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(s.cast(), n) }
}

/// `n` values at `p` from a Lua-side buffer (empty for a null pointer).
///
/// # Safety
/// `p` is null or points at `n` values that stay alive and unchanged for `'a`.
pub(super) unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(p, n) }
}
