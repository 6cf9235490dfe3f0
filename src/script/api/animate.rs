//! FFI endpoints of `go.animate` / `go.cancel_animations` (Lua side: `lua/animate.lua`).
//!
//! Lua checks the arguments and resolves the property; one call hands Rust a filled
//! [`AnimRequest`]. Tweened script properties are read and written in place by `self` (the
//! cells of [`crate::anim::target::ScriptCells`]); per frame, Lua copies only mirrored values in and
//! out through the buffers described by [`AnimIo`], and runs the callbacks of [`Done`] records.
use super::{Ctx, slice, with_world};
use crate::anim::{AnimError, Done, Easing, Element, GoProperty, Key, MAX_TWEENS, Playback, Spec, Target};
use crate::script::boundary::{OK, fail};

/// `sinew_anim_req` in animate.lua.
#[repr(C)]
pub struct AnimRequest {
    pub component: u64,
    pub property: u64,
    /// Element ids of a vector/quat property (`position.x` …).
    pub elems: [u64; 4],
    pub to: [f32; 4],
    /// Samples of a `vmath.vector` easing, or null for a built-in curve.
    pub curve: *const f32,
    pub curve_len: i32,
    pub slot: u32,
    /// 0..=3: game-object position, rotation, euler, scale; 4: a script property.
    pub kind: u32,
    /// A sub-property's element index, or -1 for the whole property.
    pub elem: i32,
    /// Number of elements animated when `elem` is -1 (1 for a number property).
    pub count: u32,
    pub playback: u32,
    pub easing: u32,
    pub duration: f32,
    pub delay: f32,
    pub callback: u32,
    /// 1 when the script cells this call creates are mirrored by Lua (see
    /// [`crate::anim::target::ScriptCells`]); 0 when `self` reads and writes them in place.
    pub mirror: u32,
    /// Out: bit i is set when script cell `cells[i]` was created by this call.
    pub new_cells: u32,
    /// Out: the script cells of the animated elements.
    pub cells: [u32; 4],
}

/// `sinew_anim_io` in animate.lua: views of the tween world's buffers.
///
/// `values` is the one pointer Lua keeps: every call that can grow the cells (`anim_animate`,
/// which a script can reach from anywhere, a metamethod on `self` included) stores the current
/// address here before it returns, and Lua reads the cells only through this field, never
/// through a copy held across a call. The lists are valid until the next call into a script;
/// Lua copies them (or asks again) before running one.
#[repr(C)]
pub struct AnimIo {
    pub values: *mut f32,
    pub cells: *const u32,
    pub ncells: u32,
    pub ndone: u32,
    pub done: *const Done,
    pub released: *const u32,
    pub nreleased: u32,
}

/// `AnimRequest::kind` of a script or component property (below it: a [`GoProperty`] index).
pub const SCRIPT_PROPERTY: u32 = GoProperty::ALL.len() as u32;

fn fill_io(w: &mut crate::game::World, io: Option<&mut AnimIo>, cells: &[u32]) {
    if let Some(io) = io {
        io.values = w.tweens.cells.values.as_mut_ptr();
        io.cells = cells.as_ptr();
        io.ncells = cells.len() as u32;
        io.done = w.tweens.done.as_ptr();
        io.ndone = w.tweens.done.len() as u32;
        io.released = w.tweens.cells.released.as_ptr();
        io.nreleased = w.tweens.cells.released.len() as u32;
    }
}

/// Makes the cells and records of one `go.animate` request.
fn start(w: &mut crate::game::World, req: &mut AnimRequest, easing: Easing, playback: Playback) -> i32 {
    if !w.scene.is_live(req.slot) {
        return fail(format!("Instance {} not found", req.slot));
    }
    let slot = req.slot;
    let (first, n) = if req.elem >= 0 { (req.elem as usize, 1) } else { (0, req.count.clamp(1, 4) as usize) };
    // Before any cell or Euler record is made: a refused call must leave nothing behind
    // (a cell Lua never heard of would hide its property's tweens).
    if !w.tweens.has_room(n) {
        return fail(format!("Animation could not be stored since the buffer is full ({MAX_TWEENS})."));
    }
    let mut elements = [Element { property: 0, target: Target::None, to: 0.0 }; 4];
    req.new_cells = 0;
    for (i, e) in elements.iter_mut().enumerate().take(n) {
        let axis = (first + i).min(3);
        e.to = req.to[i];
        e.property = if n == 1 { req.property } else { req.elems[axis] };
        e.target = if req.kind == SCRIPT_PROPERTY {
            let (cell, new) = w.tweens.script_cell(slot, req.component, e.property, req.mirror != 0);
            req.cells[i] = cell;
            req.new_cells |= (new as u32) << i;
            Target::Script { cell }
        } else {
            let Some(prop) = GoProperty::from_index(req.kind) else {
                return fail(format!("unknown property kind {}", req.kind));
            };
            w.tweens.go_target(&mut w.scene, slot, prop, axis as u8)
        };
    }
    let key = Key { slot, component: req.component, property: req.property };
    let spec = Spec { playback, easing, duration: req.duration, delay: req.delay, callback: req.callback };
    match w.tweens.animate(key, &elements[..n], &spec) {
        Ok(()) => OK,
        Err(AnimError::Full) => fail(format!("Animation could not be stored since the buffer is full ({MAX_TWEENS}).")),
    }
}

crate::export! {
    fn anim_animate(ctx: Ctx, req: *mut AnimRequest, io: *mut AnimIo) -> i32 {
        // SAFETY: `req` points at the request cdata animate.lua keeps for this purpose.
        let Some(req) = (unsafe { req.as_mut() }) else { return fail("no animation request".into()) };
        let Some(playback) = Playback::from_index(req.playback) else {
            return fail("invalid playback mode when starting an animation".into());
        };
        let samples: &[f32] = if req.curve.is_null() || req.curve_len <= 0 {
            &[]
        } else {
            // SAFETY: `curve` points at the `curve_len` floats of a vmath.vector that the calling
            // Lua function holds as an argument for the duration of this call.
            unsafe { slice(req.curve, req.curve_len as usize) }
        };
        let easing = if req.curve.is_null() { Easing::Builtin(req.easing.min(255) as u8) } else { Easing::Custom(samples) };
        let rc = with_world(ctx, |w| {
            let rc = start(w, req, easing, playback);
            // Even a refused call may have made cells (a custom curve refused after them).
            // SAFETY: `io` is null or the io cdata animate.lua keeps for this purpose.
            if let Some(io) = unsafe { io.as_mut() } {
                io.values = w.tweens.cells.values.as_mut_ptr();
            }
            rc
        });
        rc.unwrap_or_else(|| fail("game state is busy".into()))
    }

    /// Stops the tweens of `slot`'s `component` on the `n` given property ids (all when `n` is 0).
    fn anim_cancel(ctx: Ctx, slot: u32, component: u64, props: *const u64, n: u32) -> i32 {
        let props: &[u64] = if props.is_null() || n == 0 {
            &[]
        } else {
            // SAFETY: `props` points at `n` ids in a Lua-side array alive during the call.
            unsafe { std::slice::from_raw_parts(props, n as usize) }
        };
        with_world(ctx, |w| {
            w.tweens.cancel(slot, component, props);
            OK
        })
        .unwrap_or_else(|| fail("game state is busy".into()))
    }

    /// Before the update: lists in `io.cells` the script cells whose value Lua must write into
    /// `io.values` (tweens starting this frame read them).
    fn anim_prepare(ctx: Ctx, dt: f32, io: *mut AnimIo) -> i32 {
        with_world(ctx, |w| {
            w.tweens.prepare(dt);
            let pull = std::mem::take(&mut w.tweens.cells.pull);
            // SAFETY: `io` is null or the io cdata animate.lua keeps for this purpose.
            fill_io(w, unsafe { io.as_mut() }, &pull);
            w.tweens.cells.pull = pull;
            OK
        })
        .unwrap_or_else(|| fail("game state is busy".into()))
    }

    /// After the update: the cells written (`io.cells`) and the ended animations with callbacks.
    fn anim_results(ctx: Ctx, io: *mut AnimIo) -> i32 {
        with_world(ctx, |w| {
            let written = std::mem::take(&mut w.tweens.cells.written);
            // SAFETY: `io` is null or the io cdata animate.lua keeps for this purpose.
            fill_io(w, unsafe { io.as_mut() }, &written);
            w.tweens.cells.written = written;
            OK
        })
        .unwrap_or_else(|| fail("game state is busy".into()))
    }

    /// Lua has copied the done list (and dropped the released cells) and is about to run the
    /// callbacks.
    fn anim_clear_done(ctx: Ctx) {
        with_world(ctx, |w| {
            w.tweens.done.clear();
            w.tweens.cells.recycle_released();
        });
    }
}
