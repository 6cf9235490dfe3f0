//! `sys.*`, `window.*` and the runtime's own channel: the last error message and the exit request.
use super::types::V3;
use super::{Ctx, put, with_world, world_status};
use std::ffi::c_char;

crate::export! {
    /// The message of the last failed call, for the Lua wrapper to raise.
    fn last_error() -> *const c_char {
        crate::script::boundary::last_error_ptr()
    }

    /// `sys.exit(code)`: the run ends after this frame with `code`.
    fn exit(ctx: Ctx, code: i32) {
        with_world(ctx, |w| w.exit_code = Some(code));
    }

    /// `window.get_size()`: the real window's size in pixels (x, y of `out`).
    fn window_size(ctx: Ctx, out: *mut V3) -> i32 {
        world_status(ctx, |w| {
            let (width, height) = w.input.window_size();
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V3 { x: width, y: height, z: 0.0 }) }
        })
    }
}
