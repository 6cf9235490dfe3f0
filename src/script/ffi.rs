//! The C functions Lua calls through LuaJIT's FFI for the hot and the stateful paths.
//!
//! A Lua→Rust call through mlua costs ~50 ns and a vector userdata ~300 ns; an FFI call costs a
//! few ns and vectors are plain cdata structs, so `go.get_position`/`go.set_position` stay cheap.
//! Functions here never unwind into Lua: they return a status (0 = ok) and leave a message in
//! [`last_error`], and the Lua wrapper raises the error.
use crate::base::hash::{hash_transient, name_of};
use crate::game::World;
use crate::scene::message::{MAX_MESSAGE_BYTES, MAX_MESSAGES_PER_FRAME, QueueFull};
use crate::scene::url::{self, Url};
use crate::scene::{Message, NONE};
use glam::{Mat4, Quat, Vec3};
use std::cell::RefCell;
use std::ffi::{CString, c_char};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct V4 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}

#[repr(C)]
pub struct M4 {
    pub m: [f32; 16],
}

/// Opaque to Lua: a pointer to the game's state cell.
pub type Ctx = *const RefCell<World>;

pub(super) const OK: i32 = 0;
const ERR: i32 = 1;
/// `post`: the queue is full and the overflow was already reported this frame.
const DROPPED: i32 = 2;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(super) fn fail(msg: String) -> i32 {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
    ERR
}

/// The message of the last failed call.
extern "C" fn last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Runs `f` on the world; a re-entrant call (which would be a bug) fails instead of aliasing.
pub(super) fn with_world<R>(ctx: Ctx, f: impl FnOnce(&mut World) -> R) -> Option<R> {
    // SAFETY: `ctx` is the address of the `RefCell<World>` that the `ScriptHost` keeps alive (an
    // `Rc` it owns) for as long as its Lua state exists, and Lua is only entered on this thread.
    let cell = unsafe { ctx.as_ref()? };
    let mut w = cell.try_borrow_mut().ok()?;
    Some(f(&mut w))
}

fn live(w: &World, slot: u32) -> Result<usize, i32> {
    if w.scene.is_live(slot) { Ok(slot as usize) } else { Err(fail(format!("Instance {} not found", slot))) }
}

macro_rules! world_or_err {
    ($ctx:expr, |$w:ident| $body:expr) => {
        with_world($ctx, |$w| -> i32 { $body }).unwrap_or_else(|| fail("game state is busy".into()))
    };
}

/// Getter of one local-transform array (`position`, `rotation`, `scale`) into a Lua scratch value.
macro_rules! local_getter {
    ($get:ident, $field:ident, $c:ty, $to_c:expr) => {
        extern "C" fn $get(ctx: Ctx, slot: u32, out: *mut $c) -> i32 {
            world_or_err!(ctx, |w| match live(w, slot) {
                Ok(s) => {
                    // SAFETY: `out` points at a cdata of the matching type allocated by the Lua wrapper.
                    unsafe { *out = $to_c(w.scene.$field[s]) };
                    OK
                }
                Err(e) => e,
            })
        }
    };
}

fn v3_out(p: Vec3) -> V3 {
    V3 { x: p.x, y: p.y, z: p.z }
}
fn q_out(q: Quat) -> V4 {
    V4 { x: q.x, y: q.y, z: q.z, w: q.w }
}

local_getter!(get_position, position, V3, v3_out);
local_getter!(get_rotation, rotation, V4, q_out);
local_getter!(get_scale, scale, V3, v3_out);

// Setters take components, not a pointer: the vector a script passes then does not escape into C,
// so LuaJIT can sink its allocation (`local p = go.get_position(); p.x = …; go.set_position(p)`
// allocates nothing in a compiled trace).
extern "C" fn set_position(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32) -> i32 {
    world_or_err!(ctx, |w| live(w, slot).map_or_else(
        |e| e,
        |s| {
            w.scene.position[s] = Vec3::new(x, y, z);
            OK
        }
    ))
}

extern "C" fn set_rotation(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32, qw: f32) -> i32 {
    world_or_err!(ctx, |w| live(w, slot).map_or_else(
        |e| e,
        |s| {
            w.scene.rotation[s] = Quat::from_xyzw(x, y, z, qw);
            OK
        }
    ))
}

extern "C" fn set_scale(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32) -> i32 {
    world_or_err!(ctx, |w| live(w, slot).map_or_else(
        |e| e,
        |s| {
            w.scene.scale[s] = Vec3::new(x, y, z);
            OK
        }
    ))
}

/// World transform as position, rotation, scale and matrix, from the last transform update.
extern "C" fn get_world(ctx: Ctx, slot: u32, pos: *mut V3, rot: *mut V4, scale: *mut V3, m: *mut M4) -> i32 {
    world_or_err!(ctx, |w| match live(w, slot) {
        Ok(s) => {
            let a = w.scene.world[s];
            let (sc, r, t) = a.to_scale_rotation_translation();
            // SAFETY: each pointer is either null or a cdata of the right type from the wrapper.
            unsafe {
                if let Some(p) = pos.as_mut() {
                    *p = V3 { x: t.x, y: t.y, z: t.z };
                }
                if let Some(p) = rot.as_mut() {
                    *p = V4 { x: r.x, y: r.y, z: r.z, w: r.w };
                }
                if let Some(p) = scale.as_mut() {
                    *p = V3 { x: sc.x, y: sc.y, z: sc.z };
                }
                if let Some(p) = m.as_mut() {
                    p.m = Mat4::from(a).to_cols_array();
                }
            }
            OK
        }
        Err(e) => e,
    })
}

extern "C" fn update_world_transform(ctx: Ctx, slot: u32) -> i32 {
    world_or_err!(ctx, |w| match live(w, slot) {
        Ok(_) => {
            w.scene.update_world_transform_of(slot);
            OK
        }
        Err(e) => e,
    })
}

/// Hashes a string, remembering it for `tostring`.
extern "C" fn hash_string(s: *const u8, n: usize) -> u64 {
    // SAFETY: `s` points at `n` bytes of a Lua string, alive during the call.
    let bytes = unsafe { std::slice::from_raw_parts(s, n) };
    hash_transient(&String::from_utf8_lossy(bytes))
}

fn write_str(text: &str, buf: *mut u8, cap: usize) -> usize {
    let n = text.len().min(cap);
    // SAFETY: `buf` has room for `cap` bytes (a Lua-side scratch buffer).
    unsafe { std::ptr::copy_nonoverlapping(text.as_ptr(), buf, n) };
    n
}

/// The text of a hash (or its hex digits) into `buf`; returns the length written.
extern "C" fn hash_text(h: u64, buf: *mut u8, cap: usize) -> usize {
    write_str(&name_of(h), buf, cap)
}

/// `main:/go#script` into `buf`; returns the length written.
extern "C" fn url_text(u: *const Url, buf: *mut u8, cap: usize) -> usize {
    // SAFETY: `u` points at a url cdata.
    let u = unsafe { *u };
    write_str(&url::format(&u), buf, cap)
}

/// Parses a URL string relative to the calling object.
extern "C" fn resolve_url(ctx: Ctx, caller: u32, frag: u64, s: *const u8, n: usize, out: *mut Url) -> i32 {
    // SAFETY: `s` points at `n` bytes of a Lua string.
    let text = String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(s, n) }).into_owned();
    world_or_err!(ctx, |w| {
        let (path, prefix) = if w.scene.is_live(caller) {
            let c = caller as usize;
            (w.scene.ids[c], w.scene.prefixes.get(w.scene.prefix[c] as usize).cloned().unwrap_or_else(|| "/".into()))
        } else {
            (0, "/".to_string())
        };
        let cx = url::Context { socket: w.socket, prefix: &prefix, path, fragment: frag };
        match url::parse(&text, &cx) {
            Ok(u) => {
                // SAFETY: `out` points at a url cdata.
                unsafe { *out = u };
                OK
            }
            Err(e) => fail(e),
        }
    })
}

/// Hash of a relative or absolute id path as seen from `caller` (`go.get_id`).
extern "C" fn id_of_path(ctx: Ctx, caller: u32, s: *const u8, n: usize) -> u64 {
    // SAFETY: `s` points at `n` bytes of a Lua string.
    let text = String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(s, n) }).into_owned();
    with_world(ctx, |w| {
        let prefix = w
            .scene
            .prefix
            .get(caller as usize)
            .and_then(|&p| w.scene.prefixes.get(p as usize))
            .map_or("/", |s| s.as_str())
            .to_string();
        url::resolve_path(&text, &prefix)
    })
    .unwrap_or(0)
}

/// Slot of the object with this id, or `NONE`.
extern "C" fn find(ctx: Ctx, socket: u64, id: u64) -> u32 {
    with_world(ctx, |w| if socket != 0 && socket != w.socket { NONE } else { w.scene.find(id).unwrap_or(NONE) })
        .unwrap_or(NONE)
}

/// Id hash of a slot (0 if dead).
extern "C" fn id_of(ctx: Ctx, slot: u32) -> u64 {
    with_world(ctx, |w| if w.scene.is_live(slot) { w.scene.ids[slot as usize] } else { 0 }).unwrap_or(0)
}

extern "C" fn socket(ctx: Ctx) -> u64 {
    with_world(ctx, |w| w.socket).unwrap_or(0)
}

/// Script instance index of a component, `NONE` when the object has no script with that id, and
/// `NONE - 1` when it has a component of another type with that id.
extern "C" fn script_of(ctx: Ctx, slot: u32, comp: u64) -> u32 {
    with_world(ctx, |w| match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(crate::scene::ComponentKind::Script(i)) => i,
        Some(_) => NONE - 1,
        None => NONE,
    })
    .unwrap_or(NONE)
}

extern "C" fn get_parent(ctx: Ctx, slot: u32) -> u32 {
    with_world(ctx, |w| if w.scene.is_live(slot) { w.scene.parent[slot as usize] } else { NONE }).unwrap_or(NONE)
}

extern "C" fn set_parent(ctx: Ctx, slot: u32, parent: u32, keep_world: i32) -> i32 {
    world_or_err!(ctx, |w| match w.scene.set_parent(slot, parent, keep_world != 0) {
        Ok(()) => OK,
        Err(e) => fail(e),
    })
}

/// Marks an object (and with `recursive` its descendants) for deletion at the end of the frame.
extern "C" fn delete(ctx: Ctx, slot: u32, recursive: i32) -> i32 {
    world_or_err!(ctx, |w| {
        if !w.scene.is_live(slot) {
            return fail("Instance not found".into());
        }
        if w.models.is_bone(slot) {
            return fail(format!(
                "Can not delete subinstances of spine or model components. '{}'",
                name_of(w.scene.ids[slot as usize])
            ));
        }
        let mut stack = vec![slot];
        while let Some(s) = stack.pop() {
            w.scene.doomed[s as usize] = true;
            // A model's bone objects go with it, recursive or not.
            stack.extend(w.models.bones_of(s));
            if recursive != 0 {
                stack.extend(w.scene.children(s).into_iter().filter(|c| !w.scene.doomed[*c as usize]));
            }
        }
        OK
    })
}

/// Queues a message whose table was encoded by the Lua side (see `scene::message`).
extern "C" fn post(ctx: Ctx, sender: *const Url, receiver: *const Url, id: u64, data: *const u8, n: usize) -> i32 {
    if n > MAX_MESSAGE_BYTES {
        return fail(format!("the message is too large ({n} bytes; at most {MAX_MESSAGE_BYTES})"));
    }
    // SAFETY: the pointers come from url cdata and a Lua-side byte buffer of at least `n` bytes.
    let (sender, receiver, data) =
        unsafe { (*sender, *receiver, if n == 0 { Vec::new() } else { std::slice::from_raw_parts(data, n).to_vec() }) };
    world_or_err!(ctx, |w| {
        let receiver = Url { socket: if receiver.socket == 0 { w.socket } else { receiver.socket }, ..receiver };
        match w.messages.post(Message { sender, receiver, id, data }) {
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

extern "C" fn exit(ctx: Ctx, code: i32) {
    with_world(ctx, |w| w.exit_code = Some(code));
}

/// Name → function address, handed to the Lua runtime which casts each to its declared type.
pub fn table() -> Vec<(&'static str, usize)> {
    vec![
        ("last_error", last_error as *const () as usize),
        ("get_position", get_position as *const () as usize),
        ("set_position", set_position as *const () as usize),
        ("get_rotation", get_rotation as *const () as usize),
        ("set_rotation", set_rotation as *const () as usize),
        ("get_scale", get_scale as *const () as usize),
        ("set_scale", set_scale as *const () as usize),
        ("get_world", get_world as *const () as usize),
        ("update_world_transform", update_world_transform as *const () as usize),
        ("hash_string", hash_string as *const () as usize),
        ("hash_text", hash_text as *const () as usize),
        ("url_text", url_text as *const () as usize),
        ("resolve_url", resolve_url as *const () as usize),
        ("id_of_path", id_of_path as *const () as usize),
        ("find", find as *const () as usize),
        ("id_of", id_of as *const () as usize),
        ("socket", socket as *const () as usize),
        ("script_of", script_of as *const () as usize),
        ("get_parent", get_parent as *const () as usize),
        ("set_parent", set_parent as *const () as usize),
        ("delete", delete as *const () as usize),
        ("post", post as *const () as usize),
        ("exit", exit as *const () as usize),
    ]
}
