//! FFI endpoints of the `label` namespace and of label-component properties (`color`,
//! `outline`, `scale`, `text`) for `go.get` / `go.set` / `go.animate`. Lua side: `lua/label.lua`.
use super::types::V4;
use super::{Ctx, bytes, put, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
use crate::game::labels::{LabelProperty, MAX_LABEL_TEXT};
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};
use std::ffi::c_char;

/// The label instance of a component, or Defold's message naming it.
fn label_of(w: &World, slot: u32, comp: Hash) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Label(i)) if w.labels.get(i).is_some() => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// The `which` of `label_prop_get`/`label_prop_set`: a vector property of a label.
pub mod which {
    pub const COLOR: i32 = 0;
    pub const OUTLINE: i32 = 1;
    pub const SCALE: i32 = 2;
}

fn property(w: i32) -> Result<LabelProperty, String> {
    match w {
        which::COLOR => Ok(LabelProperty::Color),
        which::OUTLINE => Ok(LabelProperty::Outline),
        which::SCALE => Ok(LabelProperty::Scale),
        _ => Err(format!("no label property {w}")),
    }
}

crate::export! {
    /// Copies up to `cap` bytes of a label's text into `buf`; returns its whole length in bytes
    /// (call again with a larger buffer when that is above `cap`), -1 on error.
    fn label_get_text(ctx: Ctx, slot: u32, comp: u64, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        let rc = world_status(ctx, |w| match label_of(w, slot, comp) {
            Ok(i) => {
                let text = w.labels.get(i).map_or("", |l| l.text.as_str());
                if !buf.is_null() {
                    let n = text.len().min(cap);
                    // SAFETY: `buf` has room for `cap` bytes (a Lua-side buffer).
                    unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast(), n) };
                }
                len = text.len().min(i32::MAX as usize) as i32;
                OK
            }
            Err(e) => fail(e),
        });
        if rc == OK { len } else { -1 }
    }

    /// Sets a label's text at once (`go.set(url, "text", s)`; `label.set_text` posts a message).
    /// Text over [`MAX_LABEL_TEXT`] is refused: the label would show it cut, and nothing said so.
    fn label_set_text(ctx: Ctx, slot: u32, comp: u64, s: *const c_char, n: usize) -> i32 {
        if n > MAX_LABEL_TEXT {
            return fail(format!("the label text is too long: {n} bytes (at most {MAX_LABEL_TEXT})"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string the wrapper holds during this call.
        let text = String::from_utf8_lossy(unsafe { bytes(s, n) });
        world_status(ctx, |w| match label_of(w, slot, comp) {
            Ok(i) => {
                w.labels.set_text(i, &text);
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Reads `color` (0), `outline` (1) or `scale` (2, w = 0) of a label.
    fn label_prop_get(ctx: Ctx, slot: u32, comp: u64, which: i32, out: *mut V4) -> i32 {
        world_status(ctx, |w| match label_of(w, slot, comp).and_then(|i| Ok((i, property(which)?))) {
            Ok((i, p)) => match w.labels.property(i, p) {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Some([x, y, z, vw]) => unsafe { put(out, V4 { x, y, z, w: vw }) },
                None => fail("the label was deleted".into()),
            },
            Err(e) => fail(e),
        })
    }

    fn label_prop_set(ctx: Ctx, slot: u32, comp: u64, which: i32, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        world_status(ctx, |w| match label_of(w, slot, comp).and_then(|i| Ok((i, property(which)?))) {
            Ok((i, p)) => {
                w.labels.set_property(i, p, [x, y, z, vw]);
                OK
            }
            Err(e) => fail(e),
        })
    }
}
