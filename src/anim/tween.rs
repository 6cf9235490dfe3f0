//! The `go.animate` tween world, Defold's model (api.md 1.3): one record per animated float,
//! plus a value-less composite record per vector/quat animation that times it and owns the
//! callback. Each frame runs three passes so results do not depend on record order: start
//! (capture start values, stop what the new tweens replace), advance (move cursors, write
//! values), prune (drop stopped records, queue their callbacks).
use super::easing;
use super::target::{self, EulerRecords, ScriptCells, Target};
use crate::base::hash::Hash;
use crate::scene::{NONE, Scene};

/// Defold's limit per collection ("Animation could not be stored since the buffer is full").
pub const MAX_TWEENS: usize = 65_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Playback {
    None = 0,
    OnceForward = 1,
    OnceBackward = 2,
    OncePingpong = 3,
    LoopForward = 4,
    LoopBackward = 5,
    LoopPingpong = 6,
}

impl Playback {
    pub fn from_index(i: u32) -> Option<Playback> {
        use Playback::*;
        [None, OnceForward, OnceBackward, OncePingpong, LoopForward, LoopBackward, LoopPingpong]
            .get(i as usize)
            .copied()
    }

    /// Only the ONCE modes end; NONE holds and the loops run until replaced.
    pub fn completes(self) -> bool {
        matches!(self, Playback::OnceForward | Playback::OnceBackward | Playback::OncePingpong)
    }
}

/// The exact property a record animates, for replacement and cancel: component 0 is the game
/// object itself; for element records the property is the element id (`position.x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub slot: u32,
    pub component: Hash,
    pub property: Hash,
}

/// One float to animate: its element id, where it lives and where it goes.
#[derive(Debug, Clone, Copy)]
pub struct Element {
    pub property: Hash,
    pub target: Target,
    pub to: f32,
}

pub enum Easing<'a> {
    Builtin(u8),
    /// A `vmath.vector` curve; its samples are copied, so the script may change the vector.
    Custom(&'a [f32]),
}

pub struct Spec<'a> {
    pub playback: Playback,
    pub easing: Easing<'a>,
    pub duration: f32,
    pub delay: f32,
    /// Non-zero: reported in [`TweenWorld::done`] when the animation ends.
    pub callback: u32,
}

/// An ended animation that had a callback; `finished` is false when it was stopped or cancelled.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub callback: u32,
    pub finished: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnimError {
    Full,
}

/// The shortest tween duration in seconds (one millisecond, far below a frame). A positive
/// duration below it is raised to it, with one warning per run; 0 stays 0 (a ONCE tween ends on
/// its first update, a loop holds its end value). Sinew decision: Defold documents no minimum.
pub const MIN_DURATION: f32 = 1.0e-3;

static WARNED_SHORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn clamp_duration(d: f32) -> f32 {
    if d > 0.0 && d < MIN_DURATION {
        if !WARNED_SHORT.swap(true, std::sync::atomic::Ordering::Relaxed) {
            log::warn!("go.animate: duration {d} s is below the minimum of {MIN_DURATION} s and was raised to it");
        }
        return MIN_DURATION;
    }
    if d > 0.0 { d } else { 0.0 }
}

const PLAYING: u8 = 1;
const FINISHED: u8 = 2;
const BACKWARDS: u8 = 4;
const STARTED: u8 = 8;
/// Set by the advance pass for the write pass (cleared there).
const WRITE: u8 = 16;
const ENDED_NOW: u8 = 32;
/// Set at creation on records the advance pass may take through [`advance_direct`]: playback
/// ONCE_FORWARD or LOOP_FORWARD (the two differ only when the cursor reaches the duration, which
/// the short way leaves to the general), a built-in curve and a script cell Lua does not mirror
/// (its value lives only in [`ScriptCells::values`]). The common `go.animate` on a
/// `go.property`: most records of a frame take the short way, the rest (starting, ending,
/// delayed, other targets) the general.
const DIRECT: u8 = 64;
/// The record still has a delay to wait out (`delay` is not 0): kept in the flags so the short
/// way tests one byte.
const DELAYED: u8 = 128;

/// One animated float. `repr(C)` and 16-byte aligned so that the four floats the short way
/// reads and writes most (`from`, `span`, `cursor`, `duration`) are one aligned vector: the
/// batch of four ([`advance_direct4`]) loads four records' blocks and transposes them.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Tween {
    from: f32,
    /// `to - from`, taken when the record starts: the same float the value's formula would
    /// compute every frame.
    span: f32,
    cursor: f32,
    duration: f32,
    inv_duration: f32,
    target: Target,
    /// Below [`easing::BUILTIN_COUNT`]: a built-in curve; above: a custom curve index + that
    /// (at most [`MAX_TWEENS`] custom curves are alive, so it fits).
    curve: u16,
    playback: Playback,
    flags: u8,
}

/// Half a cache line a record: the pass streams every record every frame, from memory once a
/// frame's other work has pushed them out of the caches.
const _: () = assert!(std::mem::size_of::<Tween>() == 32);
// The batch of four loads `from, span, cursor, duration` as one vector.
const _: () = assert!(
    std::mem::offset_of!(Tween, from) == 0
        && std::mem::offset_of!(Tween, span) == 4
        && std::mem::offset_of!(Tween, cursor) == 8
        && std::mem::offset_of!(Tween, duration) == 12
);

/// The rest of a record, by the same index as `tweens`: what the short way never reads.
#[derive(Clone, Copy)]
struct Cold {
    to: f32,
    /// Seconds still to wait; [`DELAYED`] is set while it is not 0.
    delay: f32,
    handle: u32,
}

#[derive(Default)]
struct ObjectTweens {
    handles: Vec<u32>,
    cells: Vec<u32>,
    euler: Option<u32>,
}

#[derive(Default)]
pub struct TweenWorld {
    tweens: Vec<Tween>,
    cold: Vec<Cold>,
    keys: Vec<Key>,
    callbacks: Vec<u32>,
    /// Stable handle → index in `tweens` (records move when others are removed).
    index: Vec<u32>,
    free_handles: Vec<u32>,
    objects: Vec<ObjectTweens>,
    /// Handles of records not started yet, in creation order.
    pending: Vec<u32>,
    /// Handles stopped since the last prune.
    stopped: Vec<u32>,
    /// Some pending entries name removed records.
    stale_pending: bool,
    curves: Vec<Vec<f32>>,
    curve_refs: Vec<u32>,
    free_curves: Vec<u32>,
    pub euler: EulerRecords,
    pub cells: ScriptCells,
    pub done: Vec<Done>,
    /// Every record the general way (tests compare it with the short way).
    pub(crate) general_only: bool,
}

impl TweenWorld {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records alive (playing, or stopped and not yet pruned).
    pub fn len(&self) -> usize {
        self.tweens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tweens.is_empty()
    }

    /// The Euler record of `slot`, when one exists.
    pub(super) fn objects_euler(&self, slot: u32) -> Option<u32> {
        self.objects.get(slot as usize).and_then(|o| o.euler)
    }

    fn object(&mut self, slot: u32) -> &mut ObjectTweens {
        let s = slot as usize;
        if self.objects.len() <= s {
            self.objects.resize_with(s + 1, ObjectTweens::default);
        }
        &mut self.objects[s]
    }

    /// The Euler record of `slot`, created or re-synced from its rotation: go.animate reads the
    /// property when it is called, as Defold does.
    pub fn euler_record(&mut self, scene: &mut Scene, slot: u32) -> u32 {
        let r = match self.object(slot).euler {
            Some(r) => r,
            None => {
                let r = self.euler.create(scene, slot);
                self.object(slot).euler = Some(r);
                r
            }
        };
        self.euler.sync(scene, r);
        r
    }

    /// The value cell of a script property element (see [`ScriptCells::cell`]).
    pub fn script_cell(&mut self, slot: u32, component: Hash, property: Hash, mirrored: bool) -> (u32, bool) {
        let (c, new) = self.cells.cell(slot, component, property, mirrored);
        if new {
            self.object(slot).cells.push(c);
        }
        (c, new)
    }

    /// Whether an animation of `elements` elements fits ([`TweenWorld::animate`] refuses it
    /// otherwise): asked before anything is created for it, so a refused call leaves nothing.
    pub fn has_room(&self, elements: usize) -> bool {
        self.tweens.len() + elements + (elements > 1) as usize <= MAX_TWEENS
    }

    /// Starts an animation of `key`: one element is a scalar tween, several are a composite.
    pub fn animate(&mut self, key: Key, elements: &[Element], spec: &Spec) -> Result<(), AnimError> {
        let composite = elements.len() > 1;
        // The curve index must fit `Tween::curve`; it does, as a custom curve is alive only
        // while a record uses it, but a refusal here leaves nothing behind either way.
        let curve_room = !matches!(spec.easing, Easing::Custom(_))
            || self.free_curves.len() + (u16::MAX as usize - easing::BUILTIN_COUNT) > self.curves.len();
        if !self.has_room(elements.len()) || !curve_room {
            return Err(AnimError::Full);
        }
        let curve = match spec.easing {
            Easing::Builtin(e) => (e as u32).min(easing::BUILTIN_COUNT as u32 - 1),
            Easing::Custom(samples) => {
                let c = match self.free_curves.pop() {
                    Some(c) => {
                        self.curves[c as usize] = samples.to_vec();
                        c
                    }
                    None => {
                        self.curves.push(samples.to_vec());
                        self.curve_refs.push(0);
                        (self.curves.len() - 1) as u32
                    }
                };
                self.curve_refs[c as usize] = elements.len() as u32 + composite as u32;
                c + easing::BUILTIN_COUNT as u32
            }
        };
        let curve = curve as u16;
        let duration = clamp_duration(spec.duration);
        let flags = match spec.playback {
            Playback::OnceBackward | Playback::LoopBackward => PLAYING | BACKWARDS,
            _ => PLAYING,
        };
        let delay = spec.delay.max(0.0);
        let flags = flags | if delay != 0.0 { DELAYED } else { 0 };
        let mut record = Tween {
            from: 0.0,
            span: 0.0,
            cursor: 0.0,
            duration,
            inv_duration: if duration > 0.0 { 1.0 / duration } else { 0.0 },
            target: Target::None,
            curve,
            playback: spec.playback,
            flags,
        };
        let mut cold = Cold { to: 0.0, delay, handle: 0 };
        if composite {
            self.push(record, cold, key, spec.callback);
        }
        for e in elements {
            record.target = e.target;
            cold.to = e.to;
            record.flags = flags;
            if let Target::Script { cell } = e.target
                && matches!(spec.playback, Playback::OnceForward | Playback::LoopForward)
                && (curve as usize) < easing::BUILTIN_COUNT
                && !self.cells.is_mirrored(cell)
            {
                record.flags |= DIRECT;
            }
            let k = Key { property: e.property, ..key };
            self.push(record, cold, k, if composite { 0 } else { spec.callback });
        }
        Ok(())
    }

    fn push(&mut self, t: Tween, mut cold: Cold, key: Key, callback: u32) {
        if self.stale_pending {
            // Drop entries of removed records before their handles are reused.
            let index = &self.index;
            self.pending.retain(|&h| index[h as usize] != NONE);
            self.stale_pending = false;
        }
        let i = self.tweens.len() as u32;
        let h = match self.free_handles.pop() {
            Some(h) => {
                self.index[h as usize] = i;
                h
            }
            None => {
                self.index.push(i);
                (self.index.len() - 1) as u32
            }
        };
        cold.handle = h;
        self.tweens.push(t);
        self.cold.push(cold);
        self.keys.push(key);
        self.callbacks.push(callback);
        self.pending.push(h);
        self.object(key.slot).handles.push(h);
    }

    fn stop(&mut self, i: usize, finished: bool) {
        let t = &mut self.tweens[i];
        if t.flags & PLAYING != 0 {
            t.flags &= !PLAYING;
            if finished {
                t.flags |= FINISHED;
            }
            self.stopped.push(self.cold[i].handle);
        }
    }

    /// Stops the tweens of `slot` on `component` whose property is one of `properties`, or all
    /// of that component's tweens when `properties` is empty. Never calls callbacks.
    pub fn cancel(&mut self, slot: u32, component: Hash, properties: &[Hash]) {
        let Some(obj) = self.objects.get(slot as usize) else { return };
        let matching: Vec<usize> = obj
            .handles
            .iter()
            .map(|&h| self.index[h as usize] as usize)
            .filter(|&i| {
                let k = &self.keys[i];
                k.component == component && (properties.is_empty() || properties.contains(&k.property))
            })
            .collect();
        for i in matching {
            self.stop(i, false);
        }
    }

    /// Forgets an object being deleted: its tweens end without callback, its cells and Euler
    /// record are released.
    pub fn remove_object(&mut self, slot: u32) {
        let Some(obj) = self.objects.get_mut(slot as usize) else { return };
        let cells = std::mem::take(&mut obj.cells);
        let euler = obj.euler.take();
        let all: Vec<usize> = obj.handles.iter().map(|&h| self.index[h as usize] as usize).collect();
        for i in all {
            self.stop(i, false);
        }
        self.prune();
        for c in cells {
            self.cells.release(c);
        }
        if let Some(r) = euler {
            self.euler.release(r);
        }
    }

    /// Mirrored script cells whose tweens start in the next update of `dt`: Lua refreshes their
    /// values (the other cells hold their property's value already).
    pub fn prepare(&mut self, dt: f32) {
        self.cells.pull.clear();
        for &h in &self.pending {
            let Some(&i) = self.index.get(h as usize) else { continue };
            let (Some(t), Some(c)) = (self.tweens.get(i as usize), self.cold.get(i as usize)) else { continue };
            if let Target::Script { cell } = t.target
                && self.cells.is_mirrored(cell)
                && c.handle == h
                && t.flags & (PLAYING | STARTED) == PLAYING
                && c.delay <= dt
            {
                self.cells.pull.push(cell);
            }
        }
    }

    /// One frame of animation.
    pub fn update(&mut self, scene: &mut Scene, dt: f32) {
        self.update_scaled(scene, dt, &[]);
    }

    /// One frame of animation where objects' time runs at their own rate: `scale[slot]` times
    /// `dt` for the object in `slot` (a collection proxy's `set_time_step`; negative counts as
    /// 0, a slot past the end as 1). An empty `scale` is [`update`](Self::update), whose short
    /// way a scaled frame does not take.
    pub fn update_scaled(&mut self, scene: &mut Scene, dt: f32, scale: &[f32]) {
        self.cells.clear_written();
        if !self.pending.is_empty() {
            self.start_pass(scene, dt, scale);
        }
        if scale.is_empty() {
            self.advance_pass(scene, dt);
        } else {
            self.advance_scaled(scene, dt, scale);
        }
        self.euler.commit(scene);
        self.prune();
    }

    fn start_pass(&mut self, scene: &mut Scene, dt: f32, scale: &[f32]) {
        let mut pending = std::mem::take(&mut self.pending);
        pending.retain(|&h| {
            let i = self.index[h as usize] as usize;
            let (Some(&t), Some(&c)) = (self.tweens.get(i), self.cold.get(i)) else { return false };
            if c.handle != h || t.flags & (PLAYING | STARTED) != PLAYING {
                return false;
            }
            if c.delay > scaled_dt(scale, self.keys[i].slot, dt) {
                return true;
            }
            let from = target::read(scene, &mut self.euler, &self.cells, t.target);
            let tw = &mut self.tweens[i];
            tw.flags |= STARTED;
            tw.from = from;
            tw.span = c.to - from;
            let key = self.keys[i];
            let others: Vec<usize> = self.objects[key.slot as usize]
                .handles
                .iter()
                .map(|&o| self.index[o as usize] as usize)
                .filter(|&j| {
                    let o = &self.tweens[j];
                    j != i && o.flags & STARTED != 0 && self.cold[j].delay <= 0.0 && self.keys[j] == key
                })
                .collect();
            for j in others {
                self.stop(j, false);
            }
            false
        });
        // Nothing is created during the update, so the list taken out is the whole list.
        self.pending = pending;
    }

    /// Every record advances and writes its value, in record order, so the last record of a
    /// target wins and callbacks queue in one order. One thread: most records take the short
    /// way, four at a time (about 1.8 ns a record with the records in cache, 2-core test
    /// machine; the general way took 5.2). A split over the thread pool measured no faster
    /// even with the short way (its threads sleep through the rest of a frame, see
    /// `base::parallel`), and the pass is bound by streaming the records from memory.
    fn advance_pass(&mut self, scene: &mut Scene, dt: f32) {
        let table = easing::table();
        let TweenWorld { tweens, cold, stopped, curves, euler, cells, .. } = self;
        let direct = dt >= 0.0 && !self.general_only;
        let mut i = 0;
        while let Some(t) = tweens.get_mut(i) {
            if direct && t.flags & DIRECT != 0 {
                let values = &mut cells.values[..];
                if let Some(four) = tweens.get_mut(i..i + 4)
                    && advance_direct4(four, dt, table, values)
                {
                    i += 4;
                    continue;
                }
                if let Some(t) = tweens.get_mut(i)
                    && advance_direct(t, dt, table, values)
                {
                    i += 1;
                    continue;
                }
            }
            let (Some(t), Some(c)) = (tweens.get_mut(i), cold.get_mut(i)) else { break };
            let mut v = 0.0;
            advance_one(t, c, &mut v, dt, table, curves);
            finish_one(t, c, v, scene, euler, cells, stopped);
            i += 1;
        }
    }

    /// [`advance_pass`](Self::advance_pass) with each record's own `dt`: every record the
    /// general way, in record order.
    fn advance_scaled(&mut self, scene: &mut Scene, dt: f32, scale: &[f32]) {
        let table = easing::table();
        let TweenWorld { tweens, cold, keys, stopped, curves, euler, cells, .. } = self;
        for ((t, c), k) in tweens.iter_mut().zip(cold.iter_mut()).zip(keys.iter()) {
            let mut v = 0.0;
            advance_one(t, c, &mut v, scaled_dt(scale, k.slot, dt), table, curves);
            finish_one(t, c, v, scene, euler, cells, stopped);
        }
    }

    /// Removes stopped records and queues the callbacks of those that had one.
    fn prune(&mut self) {
        let stopped = std::mem::take(&mut self.stopped);
        for &h in &stopped {
            let i = self.index[h as usize] as usize;
            let Some(&t) = self.tweens.get(i).filter(|t| self.cold[i].handle == h && t.flags & PLAYING == 0) else {
                continue;
            };
            if t.flags & STARTED == 0 {
                self.stale_pending = true;
            }
            let cb = self.callbacks[i];
            if cb != 0 {
                self.done.push(Done { callback: cb, finished: (t.flags & FINISHED != 0) as u32 });
            }
            let c = t.curve as usize;
            if c >= easing::BUILTIN_COUNT {
                let ci = c - easing::BUILTIN_COUNT;
                self.curve_refs[ci] -= 1;
                if self.curve_refs[ci] == 0 {
                    self.curves[ci] = Vec::new();
                    self.free_curves.push(ci as u32);
                }
            }
            let slot = self.keys[i].slot as usize;
            let handles = &mut self.objects[slot].handles;
            if let Some(p) = handles.iter().position(|&x| x == h) {
                handles.swap_remove(p);
            }
            self.tweens.swap_remove(i);
            self.cold.swap_remove(i);
            self.keys.swap_remove(i);
            self.callbacks.swap_remove(i);
            if let Some(moved) = self.cold.get(i) {
                self.index[moved.handle as usize] = i as u32;
            }
            self.index[h as usize] = NONE;
            self.free_handles.push(h);
        }
        let mut stopped = stopped;
        stopped.clear();
        self.stopped = stopped;
    }
}

/// The `dt` of the object in `slot` under a per-slot time scale (see [`TweenWorld::update_scaled`]).
#[inline]
pub fn scaled_dt(scale: &[f32], slot: u32, dt: f32) -> f32 {
    match scale.get(slot as usize) {
        Some(&k) => dt * k.max(0.0),
        None => dt,
    }
}

/// The write half of a record's frame: its value to its target, an ended record queued.
#[inline(always)]
fn finish_one(
    t: &mut Tween,
    c: &Cold,
    v: f32,
    scene: &mut Scene,
    euler: &mut EulerRecords,
    cells: &mut ScriptCells,
    stopped: &mut Vec<u32>,
) {
    if t.flags & WRITE != 0 {
        target::write(scene, euler, cells, t.target, v);
    }
    if t.flags & ENDED_NOW != 0 {
        stopped.push(c.handle);
    }
    t.flags &= !(WRITE | ENDED_NOW);
}

/// The short way through a frame for a [`DIRECT`] record that has started, waits for no delay
/// and does not end this frame: the same float steps as [`advance_one`] then [`finish_one`] take
/// for it (`dt - 0` is `dt`; the cursor stays below the duration, so no clamp to 1), written
/// straight to its cell. False, with the record untouched, for every other record.
#[inline(always)]
fn advance_direct(t: &mut Tween, dt: f32, table: &[easing::Row], values: &mut [f32]) -> bool {
    let Some((cell, curve)) = short_way(t, values.len(), table.len()) else { return false };
    let cursor = t.cursor + dt;
    // Also false for a NaN cursor, which the general way handles.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(cursor < t.duration) {
        return false;
    }
    let (Some(slot), Some(row)) = (values.get_mut(cell), table.get(curve)) else { return false };
    t.cursor = cursor;
    // The general way clamps `u` to [0, 1] and the lookup clamps again: one clamp gives the
    // same `t` (the product is finite: the cursor is below the duration).
    let e = easing::builtin_row(row, cursor * t.inv_duration);
    *slot = t.from + t.span * e;
    true
}

/// The cell and curve of a record that may take the short way this frame: a started, playing
/// [`DIRECT`] record that goes forward and waits for no delay, its cell and built-in curve in
/// range (`values` cells, `rows` curves).
#[inline(always)]
fn short_way(t: &Tween, values: usize, rows: usize) -> Option<(usize, usize)> {
    const ALL: u8 = PLAYING | STARTED | DIRECT;
    match t.target {
        Target::Script { cell }
            if t.flags & (ALL | BACKWARDS | DELAYED) == ALL
                && (cell as usize) < values
                && (t.curve as usize) < rows =>
        {
            Some((cell as usize, t.curve as usize))
        }
        _ => None,
    }
}

/// [`advance_direct`] for four records at once, when all four take the short way: the same
/// float operations, four lanes wide (SSE2, which every x86-64 has; no FMA, so each lane rounds
/// as the one-record way does). False, with the records untouched, when any of them does not.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn advance_direct4(t: &mut [Tween], dt: f32, table: &[easing::Row], values: &mut [f32]) -> bool {
    use std::arch::x86_64::*;
    let [a, b, c, d] = t else { return false };
    let lane = |t: &Tween| short_way(t, values.len(), table.len());
    let (Some(la), Some(lb), Some(lc), Some(ld)) = (lane(a), lane(b), lane(c), lane(d)) else { return false };
    // SAFETY: SSE2 is part of x86-64. Each `Tween` is 16-byte aligned (`repr(align(16))`) and
    // starts with the four floats `from, span, cursor, duration` (asserted at `Tween`), so the
    // aligned load of `block` reads exactly those fields of one record. Cells and curves were
    // bounds checked by `short_way`, so the table reads stay inside rows and the writes inside
    // cells.
    unsafe {
        let block = |t: &Tween| _mm_load_ps(t as *const Tween as *const f32);
        let (mut r0, mut r1, mut r2, mut r3) = (block(a), block(b), block(c), block(d));
        _MM_TRANSPOSE4_PS(&mut r0, &mut r1, &mut r2, &mut r3);
        let (from, span, cursor, duration) = (r0, r1, r2, r3);
        let cursor = _mm_add_ps(cursor, _mm_set1_ps(dt));
        // All four stay below their durations (NaN compares false: the general way takes it).
        if _mm_movemask_ps(_mm_cmplt_ps(cursor, duration)) != 0b1111 {
            return false;
        }
        let inv = _mm_setr_ps(a.inv_duration, b.inv_duration, c.inv_duration, d.inv_duration);
        let x = _mm_mul_ps(cursor, inv);
        // `if x > 0 { x.min(1) } else { 0 }`, as in `easing::builtin_row`.
        let zero = _mm_setzero_ps();
        let x = _mm_and_ps(_mm_cmpgt_ps(x, zero), _mm_min_ps(x, _mm_set1_ps(1.0)));
        let last = (easing::SAMPLES - 1) as f32;
        let i0 = _mm_and_si128(_mm_cvttps_epi32(_mm_mul_ps(x, _mm_set1_ps(last))), _mm_set1_epi32(63));
        let frac =
            _mm_mul_ps(_mm_sub_ps(x, _mm_mul_ps(_mm_cvtepi32_ps(i0), _mm_set1_ps(1.0 / last))), _mm_set1_ps(last));
        let mut idx = [0u32; 4];
        _mm_storeu_si128(idx.as_mut_ptr() as *mut __m128i, i0);
        let at = |curve: usize, i: u32, k: usize| *table.get_unchecked(curve).get_unchecked(i as usize + k);
        let s0 = _mm_setr_ps(at(la.1, idx[0], 0), at(lb.1, idx[1], 0), at(lc.1, idx[2], 0), at(ld.1, idx[3], 0));
        let s1 = _mm_setr_ps(at(la.1, idx[0], 1), at(lb.1, idx[1], 1), at(lc.1, idx[2], 1), at(ld.1, idx[3], 1));
        let e = _mm_add_ps(_mm_mul_ps(s0, _mm_sub_ps(_mm_set1_ps(1.0), frac)), _mm_mul_ps(s1, frac));
        let value = _mm_add_ps(from, _mm_mul_ps(span, e));
        let mut out = [[0.0f32; 4]; 2];
        _mm_storeu_ps(out[0].as_mut_ptr(), cursor);
        _mm_storeu_ps(out[1].as_mut_ptr(), value);
        for (k, (t, cell)) in [(a, la.0), (b, lb.0), (c, lc.0), (d, ld.0)].into_iter().enumerate() {
            t.cursor = out[0][k];
            *values.get_unchecked_mut(cell) = out[1][k];
        }
    }
    true
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn advance_direct4(_: &mut [Tween], _: f32, _: &[easing::Row], _: &mut [f32]) -> bool {
    false
}

/// Advances one record by `dt` and computes its value into `value`; flags `WRITE` when the value
/// goes to the target this frame and `ENDED_NOW` when the record completed.
#[inline(always)]
fn advance_one(t: &mut Tween, c: &mut Cold, value: &mut f32, dt: f32, table: &[easing::Row], curves: &[Vec<f32>]) {
    if t.flags & PLAYING == 0 {
        return;
    }
    // Without a delay, `dt - delay` is `dt` (the delay is 0 or -0), and the cold part is not
    // touched.
    let mut step = dt;
    if t.flags & DELAYED != 0 {
        if c.delay > dt {
            c.delay -= dt;
            return;
        }
        step = dt - c.delay;
        c.delay = 0.0;
        t.flags &= !DELAYED;
    }
    if t.playback != Playback::None {
        t.cursor += step;
    }
    let mut completed = false;
    match t.playback {
        Playback::OnceForward | Playback::OnceBackward | Playback::OncePingpong => {
            if t.cursor >= t.duration {
                t.cursor = t.duration;
                completed = true;
            }
        }
        // One remainder, never a subtraction loop: with a step far larger than the
        // duration, `cursor - duration` rounds back to `cursor` and would never end.
        Playback::LoopForward | Playback::LoopBackward => {
            if t.duration > 0.0 && t.cursor >= t.duration {
                t.cursor %= t.duration;
            }
        }
        Playback::LoopPingpong => {
            if t.duration > 0.0 && t.cursor >= t.duration {
                let wraps = (t.cursor / t.duration).floor();
                t.cursor %= t.duration;
                if wraps % 2.0 == 1.0 {
                    t.flags ^= BACKWARDS;
                }
            }
        }
        Playback::None => {}
    }
    if t.target != Target::None {
        let mut u = if t.cursor < t.duration { (t.cursor * t.inv_duration).clamp(0.0, 1.0) } else { 1.0 };
        if t.flags & BACKWARDS != 0 {
            u = 1.0 - u;
        }
        if matches!(t.playback, Playback::OncePingpong | Playback::LoopPingpong) {
            u *= 2.0;
            if u > 1.0 {
                u = 2.0 - u;
            }
        }
        let c = t.curve as usize;
        let e = if c < easing::BUILTIN_COUNT {
            easing::builtin(table, c, u)
        } else {
            easing::custom(&curves[c - easing::BUILTIN_COUNT], u)
        };
        *value = t.from + t.span * e;
        t.flags |= WRITE;
    }
    if completed {
        t.flags = (t.flags & !PLAYING) | FINISHED | ENDED_NOW;
    }
}
