//! `sys.*` and the runtime's own channel: the last error message and the exit request.
use super::{Ctx, with_world};
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
}
