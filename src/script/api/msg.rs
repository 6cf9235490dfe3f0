//! `msg.*`, `hash` and URLs: hashing and naming, URL parsing, and posting encoded messages.
use super::{Ctx, bytes, put, slice, world_status};
use crate::base::hash::{hash_transient, name_of};
use crate::scene::Message;
use crate::scene::message::{MAX_MESSAGE_BYTES, MAX_MESSAGES_PER_FRAME, QueueFull};
use crate::scene::url::{self, Url};
use crate::script::boundary::{OK, fail};
use std::ffi::c_char;

/// `post`: the queue is full and the overflow was already reported this frame.
pub const DROPPED: i32 = 2;

/// Copies up to `cap` bytes of `text` into a Lua-side buffer; returns how many.
///
/// # Safety
/// `buf` is null or points at `cap` writable bytes.
pub(super) unsafe fn write_str(text: &str, buf: *mut c_char, cap: usize) -> usize {
    if buf.is_null() {
        return 0;
    }
    let n = text.len().min(cap);
    // SAFETY: the caller's promise.
    unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast(), n) };
    n
}

crate::export! {
    /// Hashes a string, remembering it for `tostring`.
    fn hash_string(s: *const c_char, n: usize) -> u64 {
        // SAFETY: `s` is null or `n` bytes of a Lua string the wrapper holds during this call.
        hash_transient(&String::from_utf8_lossy(unsafe { bytes(s, n) }))
    }

    /// The text of a hash (or its hex digits) into `buf`; returns the length written.
    fn hash_text(h: u64, buf: *mut c_char, cap: usize) -> usize {
        // SAFETY: `buf` is null or room for `cap` bytes of a Lua-side buffer.
        unsafe { write_str(&name_of(h), buf, cap) }
    }

    /// `main:/go#script` into `buf`; returns the length written.
    fn url_text(u: *const Url, buf: *mut c_char, cap: usize) -> usize {
        // SAFETY: `u` is null or points at a url cdata.
        match unsafe { u.as_ref() } {
            // SAFETY: `buf` is null or room for `cap` bytes of a Lua-side buffer.
            Some(u) => unsafe { write_str(&url::format(u), buf, cap) },
            None => 0,
        }
    }

    /// Parses a URL string relative to the calling object.
    fn resolve_url(ctx: Ctx, caller: u32, frag: u64, s: *const c_char, n: usize, out: *mut Url) -> i32 {
        // SAFETY: `s` is null or `n` bytes of a Lua string the wrapper holds during this call.
        let text = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        world_status(ctx, |w| {
            let (path, prefix) = if w.scene.is_live(caller) {
                let c = caller as usize;
                (w.scene.ids[c], w.scene.prefixes.get(w.scene.prefix[c] as usize).cloned().unwrap_or_else(|| "/".into()))
            } else {
                (0, "/".to_string())
            };
            let socket = if w.scene.is_live(caller) { w.socket_of(caller) } else { w.socket };
            let cx = url::Context { socket, prefix: &prefix, path, fragment: frag };
            match url::parse(&text, &cx) {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Ok(u) => unsafe { put(out, u) },
                Err(e) => fail(e),
            }
        })
    }

    /// The URL socket of object `slot` (the main collection's for `NONE`).
    fn socket(ctx: Ctx, slot: u32) -> u64 {
        super::with_world(ctx, |w| if w.scene.is_live(slot) { w.socket_of(slot) } else { w.socket }).unwrap_or(0)
    }

    /// Queues a message whose table was encoded by the Lua side (see `scene::message`).
    fn post(ctx: Ctx, sender: *const Url, receiver: *const Url, id: u64, data: *const u8, n: usize) -> i32 {
        if n > MAX_MESSAGE_BYTES {
            return fail(format!("the message is too large ({n} bytes; at most {MAX_MESSAGE_BYTES})"));
        }
        // SAFETY: the pointers are null or come from url cdata.
        let (Some(&sender), Some(&receiver)) = (unsafe { sender.as_ref() }, unsafe { receiver.as_ref() }) else {
            return fail("msg.post: no sender or receiver".into());
        };
        // SAFETY: the pointer is null or `n` values of a Lua-side buffer alive during this call.
        let data = unsafe { slice(data, n) }.to_vec();
        world_status(ctx, |w| {
            let receiver = Url { socket: if receiver.socket == 0 { w.socket } else { receiver.socket }, ..receiver };
            match w.messages.post(Message::new(sender, receiver, id, data)) {
                Ok(()) => OK,
                Err(QueueFull::First) => fail(format!(
                    "msg.post: more than {MAX_MESSAGES_PER_FRAME} messages posted this frame; messages are dropped \
                     until the next frame (this one from {})",
                    url::format(&sender)
                )),
                Err(QueueFull::Again) => DROPPED,
            }
        })
    }
}
