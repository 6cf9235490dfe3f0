//! FFI endpoints of the `sound` namespace (engine.md section 5, docs/sound.md). Lua side:
//! `lua/sound.lua`, which checks the arguments and names the function in its errors.
use super::{Ctx, put, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
use crate::game::sound::{Owner, PlayOptions};
use crate::project::sound::{MAX_GAIN, MAX_SPEED, MIN_SPEED};
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};
use std::ffi::c_char;

/// The sound instance of a component, or Defold's message naming it.
fn sound_of(w: &World, slot: u32, comp: Hash) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Sound(i)) if w.sounds.get(i).is_some() => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// Runs `f` on the sound instances a call reaches: component `comp` of object `slot`, or with
/// `comp` 0 (a URL naming only the object, as `sound.stop("main:/sound")` does) every sound
/// component of the object. Defold's sound functions post a message, and a message to an object
/// reaches all its components; one without sound components ignores it.
fn each_sound(w: &mut World, slot: u32, comp: Hash, mut f: impl FnMut(&mut World, u32)) -> Result<(), String> {
    if comp != 0 {
        let i = sound_of(w, slot, comp)?;
        f(w, i);
        return Ok(());
    }
    let count = w.scene.components.get(slot as usize).map_or(0, Vec::len);
    for k in 0..count {
        if let Some(ComponentRef::Sound(i)) = w.scene.components[slot as usize].get(k).map(|c| c.kind)
            && w.sounds.get(i).is_some()
        {
            f(w, i);
        }
    }
    Ok(())
}

fn group_of(w: &World, group: Hash) -> Result<usize, String> {
    w.sounds.group_index(group).ok_or_else(|| format!("no sound group '{}'", name_of(group)))
}

/// The `which` of `sound_prop` (Lua gets them as `K.SOUND_*`).
pub mod which {
    pub const GAIN: i32 = 0;
    pub const PAN: i32 = 1;
    pub const SPEED: i32 = 2;
}

fn in_range(name: &str, v: f32, lo: f32, hi: f32) -> Result<f32, String> {
    if v >= lo && v <= hi { Ok(v) } else { Err(format!("{name} must be from {lo} to {hi} (got {v})")) }
}

fn status(r: Result<(), String>) -> i32 {
    match r {
        Ok(()) => OK,
        Err(e) => fail(e),
    }
}

crate::export! {
    /// Starts a play of a sound component now; writes its play id. `callback` (0: none) is the
    /// id of the Lua function that `sound_done`/`sound_stopped` go to, in script `script`.
    fn sound_play(
        ctx: Ctx, slot: u32, comp: u64, delay: f32, gain: f32, pan: f32, speed: f32, script: u32, callback: u32,
        out: *mut u32,
    ) -> i32 {
        world_status(ctx, |w| {
            let played = (|| {
                let i = sound_of(w, slot, comp)?;
                let o = PlayOptions {
                    delay: in_range("delay", delay, 0.0, crate::game::sound::MAX_DELAY_SECONDS)?,
                    gain: in_range("gain", gain, 0.0, MAX_GAIN)?,
                    pan: in_range("pan", pan, -1.0, 1.0)?,
                    speed: in_range("speed", speed, MIN_SPEED, MAX_SPEED)?,
                };
                w.sounds.play(i, o, Owner { script, callback, reply: None })
            })();
            match played {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Ok(id) => unsafe { put(out, id) },
                Err(e) => fail(e),
            }
        })
    }

    /// Stops the plays of a component (only `play_id` unless it is 0); `comp` 0: of every sound
    /// component of the object.
    fn sound_stop(ctx: Ctx, slot: u32, comp: u64, play_id: u32) -> i32 {
        world_status(ctx, |w| status(each_sound(w, slot, comp, |w, i| w.sounds.stop(i, play_id))))
    }

    /// Pauses (`paused` 1) or resumes (0) every play of a component (`comp` 0: of the object).
    fn sound_pause(ctx: Ctx, slot: u32, comp: u64, paused: i32) -> i32 {
        world_status(ctx, |w| status(each_sound(w, slot, comp, |w, i| w.sounds.pause(i, paused != 0))))
    }

    /// Sets a component's gain (`comp` 0: each of the object's): its plays now (ramped over one
    /// block) and later.
    fn sound_set_gain(ctx: Ctx, slot: u32, comp: u64, gain: f32) -> i32 {
        world_status(ctx, |w| {
            status(in_range("gain", gain, 0.0, MAX_GAIN).and_then(|g| each_sound(w, slot, comp, |w, i| w.sounds.set_gain(i, g))))
        })
    }

    /// `go.get` (`set` 0) or `go.set` (1) of a component's `gain` (`which` 0), `pan` (1) or
    /// `speed` (2), with the ranges `sound.set_gain`/`set_pan` and the component fields check.
    fn sound_prop(ctx: Ctx, slot: u32, comp: u64, which: i32, set: i32, value: f32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let result = sound_of(w, slot, comp).and_then(|i| {
                if set != 0 {
                    match which {
                        which::GAIN => w.sounds.set_gain(i, in_range("gain", value, 0.0, MAX_GAIN)?),
                        which::PAN => w.sounds.set_pan(i, in_range("pan", value, -1.0, 1.0)?),
                        which::SPEED => w.sounds.set_speed(i, in_range("speed", value, MIN_SPEED, MAX_SPEED)?),
                        _ => return Err(format!("no sound property {which}")),
                    }
                }
                let inst = w.sounds.get(i).ok_or("the sound was deleted")?;
                match which {
                    which::GAIN => Ok(inst.gain),
                    which::PAN => Ok(inst.pan),
                    which::SPEED => Ok(inst.spec.speed),
                    _ => Err(format!("no sound property {which}")),
                }
            });
            match result {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Ok(v) => unsafe { put(out, v) },
                Err(e) => fail(e),
            }
        })
    }

    /// Sets a component's pan (-1..1; `comp` 0: each of the object's): its plays now and later.
    fn sound_set_pan(ctx: Ctx, slot: u32, comp: u64, pan: f32) -> i32 {
        world_status(ctx, |w| {
            status(in_range("pan", pan, -1.0, 1.0).and_then(|p| each_sound(w, slot, comp, |w, i| w.sounds.set_pan(i, p))))
        })
    }

    /// Writes up to `cap` group ids to `out`; returns how many groups there are (-1: error).
    fn sound_groups(ctx: Ctx, out: *mut u64, cap: u32) -> i32 {
        let mut n = -1;
        let rc = world_status(ctx, |w| {
            let ids = &w.sounds.group_ids;
            if !out.is_null() {
                for (k, id) in ids.iter().take(cap as usize).enumerate() {
                    // SAFETY: `out` has room for `cap` uint64 (a Lua-side buffer).
                    unsafe { *out.add(k) = *id };
                }
            }
            n = ids.len() as i32;
            OK
        });
        if rc == OK { n } else { -1 }
    }

    /// Copies up to `cap` bytes of a group's name into `buf`; returns its length (-1: error).
    fn sound_group_name(ctx: Ctx, group: u64, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        let rc = world_status(ctx, |w| match group_of(w, group) {
            Ok(g) => {
                let name = w.sounds.group_names[g].as_bytes();
                if !buf.is_null() {
                    // SAFETY: `buf` has room for `cap` bytes (a Lua-side buffer).
                    unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), buf.cast(), name.len().min(cap)) };
                }
                len = name.len() as i32;
                OK
            }
            Err(e) => fail(e),
        });
        if rc == OK { len } else { -1 }
    }

    /// Sets a group's gain (0..16); `master` scales every group.
    fn sound_set_group_gain(ctx: Ctx, group: u64, gain: f32) -> i32 {
        world_status(ctx, |w| {
            status(in_range("gain", gain, 0.0, MAX_GAIN).and_then(|g| {
                let i = group_of(w, group)?;
                w.sounds.group_gains[i] = g;
                Ok(())
            }))
        })
    }

    fn sound_get_group_gain(ctx: Ctx, group: u64, out: *mut f32) -> i32 {
        world_status(ctx, |w| match group_of(w, group) {
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            Ok(g) => unsafe { put(out, w.sounds.group_gains[g]) },
            Err(e) => fail(e),
        })
    }

    /// RMS (`peak` 0) or peak (1) level of a group's output, per channel, over the last
    /// `window` seconds; `out` holds two floats.
    fn sound_meter(ctx: Ctx, group: u64, window: f32, peak: i32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let g = match group_of(w, group) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            if !window.is_finite() || window < 0.0 {
                return fail(format!("window must be a number of seconds >= 0 (got {window})"));
            }
            let (l, r) = if peak != 0 { w.sounds.peak(g, window) } else { w.sounds.rms(g, window) };
            if out.is_null() {
                return fail("no output buffer".into());
            }
            // SAFETY: `out` is a Lua-side float[2].
            unsafe {
                *out = l;
                *out.add(1) = r;
            }
            OK
        })
    }

    /// The game object that hears positional sounds (`NONE`: the active camera again).
    fn sound_set_listener(ctx: Ctx, slot: u32) -> i32 {
        world_status(ctx, |w| {
            if slot != crate::scene::NONE && !w.scene.is_live(slot) {
                return fail("the listener object does not exist".into());
            }
            w.sounds.listener = (slot != crate::scene::NONE).then_some(slot);
            OK
        })
    }
}
