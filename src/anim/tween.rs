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

/// The hot part of a record: what the advance pass touches.
#[derive(Clone, Copy)]
struct Tween {
    from: f32,
    to: f32,
    cursor: f32,
    duration: f32,
    inv_duration: f32,
    delay: f32,
    target: Target,
    /// Below [`easing::BUILTIN_COUNT`]: a built-in curve; above: a custom curve index + that.
    curve: u32,
    playback: Playback,
    flags: u8,
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
    /// Each record's value this frame, by record index (the advance pass's output).
    values: Vec<f32>,
    /// Whether the advance runs on the thread pool (see `base::parallel`).
    threads: crate::base::parallel::Chooser,
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
        if !self.has_room(elements.len()) {
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
        let duration = clamp_duration(spec.duration);
        let flags = match spec.playback {
            Playback::OnceBackward | Playback::LoopBackward => PLAYING | BACKWARDS,
            _ => PLAYING,
        };
        let mut record = Tween {
            from: 0.0,
            to: 0.0,
            cursor: 0.0,
            duration,
            inv_duration: if duration > 0.0 { 1.0 / duration } else { 0.0 },
            delay: spec.delay.max(0.0),
            target: Target::None,
            curve,
            playback: spec.playback,
            flags,
            handle: 0,
        };
        if composite {
            self.push(record, key, spec.callback);
        }
        for e in elements {
            record.target = e.target;
            record.to = e.to;
            let k = Key { property: e.property, ..key };
            self.push(record, k, if composite { 0 } else { spec.callback });
        }
        Ok(())
    }

    fn push(&mut self, mut t: Tween, key: Key, callback: u32) {
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
        t.handle = h;
        self.tweens.push(t);
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
            self.stopped.push(t.handle);
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
            let Some(t) = self.tweens.get(i as usize) else { continue };
            if let Target::Script { cell } = t.target
                && self.cells.is_mirrored(cell)
                && t.handle == h
                && t.flags & (PLAYING | STARTED) == PLAYING
                && t.delay <= dt
            {
                self.cells.pull.push(cell);
            }
        }
    }

    /// One frame of animation.
    pub fn update(&mut self, scene: &mut Scene, dt: f32) {
        self.cells.clear_written();
        if !self.pending.is_empty() {
            self.start_pass(scene, dt);
        }
        self.advance_pass(scene, dt);
        self.euler.commit(scene);
        self.prune();
    }

    fn start_pass(&mut self, scene: &mut Scene, dt: f32) {
        let mut pending = std::mem::take(&mut self.pending);
        pending.retain(|&h| {
            let i = self.index[h as usize] as usize;
            let t = self.tweens.get(i).copied();
            let Some(t) = t.filter(|t| t.handle == h && t.flags & (PLAYING | STARTED) == PLAYING) else {
                return false;
            };
            if t.delay > dt {
                return true;
            }
            let from = target::read(scene, &mut self.euler, &self.cells, t.target);
            let tw = &mut self.tweens[i];
            tw.flags |= STARTED;
            tw.from = from;
            let key = self.keys[i];
            let others: Vec<usize> = self.objects[key.slot as usize]
                .handles
                .iter()
                .map(|&o| self.index[o as usize] as usize)
                .filter(|&j| {
                    let o = &self.tweens[j];
                    j != i && o.flags & STARTED != 0 && o.delay <= 0.0 && self.keys[j] == key
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

    /// Two passes, as Defold's: every record advances and computes its value (independent of
    /// the others, so on every core when there are many), then the values are written to their
    /// targets and the ended records queued, in record order on this thread, so the result and
    /// the callback order are those of one thread.
    fn advance_pass(&mut self, scene: &mut Scene, dt: f32) {
        let table = easing::table();
        let TweenWorld { tweens, values, stopped, curves, euler, cells, threads, .. } = self;
        let curves: &[Vec<f32>] = curves;
        let step = |t: &mut Tween, v: &mut f32| advance_one(t, v, dt, table, curves);
        let many = tweens.len() >= PARALLEL_MIN_TWEENS;
        let parallel = many && threads.parallel();
        let started = std::time::Instant::now();
        if parallel {
            use rayon::prelude::*;
            values.resize(tweens.len(), 0.0);
            tweens
                .par_chunks_mut(PARALLEL_CHUNK)
                .zip(values.par_chunks_mut(PARALLEL_CHUNK))
                .for_each(|(t, v)| t.iter_mut().zip(v).for_each(|(t, v)| step(t, v)));
            for (t, &v) in tweens.iter_mut().zip(values.iter()) {
                finish_one(t, v, scene, euler, cells, stopped);
            }
        } else {
            // One thread: each record's two halves run back to back, in record order as above
            // (advancing reads no target, so the writes are the same), and the value never goes
            // through `values`.
            for t in tweens.iter_mut() {
                let mut v = 0.0;
                step(t, &mut v);
                finish_one(t, v, scene, euler, cells, stopped);
            }
        }
        // Both ways timed with their writes.
        if many {
            threads.took(parallel, started.elapsed().as_secs_f64());
        }
    }

    /// Removes stopped records and queues the callbacks of those that had one.
    fn prune(&mut self) {
        let stopped = std::mem::take(&mut self.stopped);
        for &h in &stopped {
            let i = self.index[h as usize] as usize;
            let Some(&t) = self.tweens.get(i).filter(|t| t.handle == h && t.flags & PLAYING == 0) else {
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
            self.keys.swap_remove(i);
            self.callbacks.swap_remove(i);
            if let Some(moved) = self.tweens.get(i) {
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

/// Below this many records the advance stays on this thread: a hand-off to the pool costs
/// about as much as a few thousand records.
pub(crate) const PARALLEL_MIN_TWEENS: usize = 16_384;
const PARALLEL_CHUNK: usize = 4096;

/// The write half of a record's frame: its value to its target, an ended record queued.
#[inline(always)]
fn finish_one(
    t: &mut Tween,
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
        stopped.push(t.handle);
    }
    t.flags &= !(WRITE | ENDED_NOW);
}

/// Advances one record by `dt` and computes its value into `value`; flags `WRITE` when the value
/// goes to the target this frame and `ENDED_NOW` when the record completed.
#[inline(always)]
fn advance_one(t: &mut Tween, value: &mut f32, dt: f32, table: &[f32], curves: &[Vec<f32>]) {
    if t.flags & PLAYING == 0 {
        return;
    }
    if t.delay > dt {
        t.delay -= dt;
        return;
    }
    let step = dt - t.delay;
    t.delay = 0.0;
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
        *value = t.from + (t.to - t.from) * e;
        t.flags |= WRITE;
    }
    if completed {
        t.flags = (t.flags & !PLAYING) | FINISHED | ENDED_NOW;
    }
}
