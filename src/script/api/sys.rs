//! `sys.*`, `window.*` and the runtime's own channel: the last error message and the exit request.
use super::types::V3;
use super::{Ctx, put, with_world, world_status};
use crate::script::boundary::OK;
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

    /// `window.set_mouse_lock` (`set` 0 or 1) and `window.get_mouse_lock` (`set` < 0): returns the
    /// state (0/1) after the call.
    fn window_mouse_lock(ctx: Ctx, set: i32) -> i32 {
        let mut state = -1;
        let rc = world_status(ctx, |w| {
            if set >= 0 {
                w.input.mouse_lock = set != 0;
            }
            state = i32::from(w.input.mouse_lock);
            OK
        });
        if rc == OK { state } else { -1 }
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
