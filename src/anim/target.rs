//! What a tween writes to. Every scalar tween owns exactly one float somewhere; [`Target`] says
//! where, so the update loop is one `match` and new animatable things (material constants, model
//! cursor and playback rate) are one more variant with its read and write.
use crate::base::hash::Hash;
use crate::scene::Scene;
use glam::{Quat, Vec3};
use std::collections::HashMap;

/// One float of one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The record of a vector/quat tween: it times the animation and carries the callback, its
    /// element tweens carry the values.
    None,
    Position {
        slot: u32,
        axis: u8,
    },
    Rotation {
        slot: u32,
        axis: u8,
    },
    Scale {
        slot: u32,
        axis: u8,
    },
    /// One angle (degrees) of an object's Euler record, turned into its rotation every frame.
    Euler {
        record: u32,
        axis: u8,
    },
    /// One element of a script `go.property`, in [`ScriptCells`]; Lua copies it into `self`.
    Script {
        cell: u32,
    },
}

/// The Euler angles of objects whose `euler` is being animated.
///
/// Defold keeps angles beyond ±360° (a tween to 720° turns twice) by animating a per-object
/// Euler vector and converting it to the rotation; the quaternion is only overwritten when the
/// Euler value changed, so a `rotation` tween on the same object still wins when the Euler
/// value stands still (test `EulerWritebackOnlyForChangedValues`).
#[derive(Default)]
pub struct EulerRecords {
    slot: Vec<u32>,
    pub(super) value: Vec<Vec3>,
    prev: Vec<Vec3>,
    /// The rotation this record last produced or was read from: when the object's rotation
    /// differs, something else rotated it and the record is re-derived before it is read.
    synced: Vec<Quat>,
    free: Vec<u32>,
}

fn same_bits3(a: Vec3, b: Vec3) -> bool {
    a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits() && a.z.to_bits() == b.z.to_bits()
}

fn same_bits4(a: Quat, b: Quat) -> bool {
    a.x.to_bits() == b.x.to_bits()
        && a.y.to_bits() == b.y.to_bits()
        && a.z.to_bits() == b.z.to_bits()
        && a.w.to_bits() == b.w.to_bits()
}

impl EulerRecords {
    /// A new record for `slot`, starting from its current rotation.
    pub fn create(&mut self, scene: &mut Scene, slot: u32) -> u32 {
        scene.settle(slot);
        let q = scene.rotation[slot as usize];
        let e = quat_to_euler(q);
        match self.free.pop() {
            Some(r) => {
                let i = r as usize;
                (self.slot[i], self.value[i], self.prev[i], self.synced[i]) = (slot, e, e, q);
                r
            }
            None => {
                self.slot.push(slot);
                self.value.push(e);
                self.prev.push(e);
                self.synced.push(q);
                (self.slot.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, record: u32) {
        self.slot[record as usize] = crate::scene::NONE;
        self.free.push(record);
    }

    /// The angles of a record, re-synced first (`go.get(".", "euler")` during a tween).
    pub fn angles(&mut self, scene: &mut Scene, record: u32) -> Vec3 {
        self.sync(scene, record);
        self.value[record as usize]
    }

    /// Sets a record to exactly these angles and the rotation they give (`go.set` of `euler`),
    /// so the next read or tween starts from the angles written, not from a re-derivation.
    pub fn set_angles(&mut self, scene: &mut Scene, record: u32, e: Vec3) {
        let i = record as usize;
        let q = euler_to_quat(e);
        scene.settle_for_write(self.slot[i]);
        scene.rotation[self.slot[i] as usize] = q;
        (self.value[i], self.prev[i], self.synced[i]) = (e, e, q);
    }

    /// Re-derives the angles from the rotation when the rotation was changed by something else.
    pub fn sync(&mut self, scene: &mut Scene, record: u32) {
        let i = record as usize;
        scene.settle(self.slot[i]);
        let q = scene.rotation[self.slot[i] as usize];
        if !same_bits4(q, self.synced[i]) {
            let e = quat_to_euler(q);
            (self.value[i], self.prev[i], self.synced[i]) = (e, e, q);
        }
    }

    /// Writes every changed record into its object's rotation.
    pub fn commit(&mut self, scene: &mut Scene) {
        for i in 0..self.slot.len() {
            let slot = self.slot[i];
            if slot == crate::scene::NONE || same_bits3(self.value[i], self.prev[i]) {
                continue;
            }
            let q = euler_to_quat(self.value[i]);
            scene.settle_for_write(slot);
            scene.rotation[slot as usize] = q;
            (self.prev[i], self.synced[i]) = (self.value[i], q);
        }
    }
}

/// Script property elements being animated, shared with Lua as a flat float array.
///
/// A cell is the storage of its property element from the first `go.animate` on it until its
/// object is deleted: the script's `self` reads and writes it in place (animate.lua's lazy
/// fields), so a tween's write is the only work per frame and per value. Cells of stand-in
/// records whose values live elsewhere (a model's material constants, a `self` with a
/// metatable of the script's own) are *mirrored*: Lua copies their current values in before the
/// tweens start ([`ScriptCells::pull`]) and the written ones back after the update
/// ([`ScriptCells::written`]).
#[derive(Default)]
pub struct ScriptCells {
    pub values: Vec<f32>,
    keys: Vec<(u32, Hash, Hash)>,
    by_key: HashMap<(u32, Hash, Hash), u32>,
    free: Vec<u32>,
    is_written: Vec<bool>,
    mirrored: Vec<bool>,
    /// Mirrored cells written during the last update, each once.
    pub written: Vec<u32>,
    /// Mirrored cells whose value Lua must provide before the next update.
    pub pull: Vec<u32>,
    /// Cells released since Lua last looked: Lua drops what it holds for them (the `self` table
    /// of a deleted instance) before they return to the free list, so a reused cell is never
    /// confused with its old owner.
    pub released: Vec<u32>,
}

impl ScriptCells {
    /// The cell of element `property` of component `component` on object `slot`, and whether it
    /// was just created (Lua then records which `self` field it stands for). `mirrored` is kept
    /// from the call that creates the cell.
    pub fn cell(&mut self, slot: u32, component: Hash, property: Hash, mirrored: bool) -> (u32, bool) {
        let key = (slot, component, property);
        if let Some(&c) = self.by_key.get(&key) {
            return (c, false);
        }
        let c = match self.free.pop() {
            Some(c) => {
                self.keys[c as usize] = key;
                self.values[c as usize] = 0.0;
                self.mirrored[c as usize] = mirrored;
                c
            }
            None => {
                self.keys.push(key);
                push_cell_value(&mut self.values, 0.0);
                self.is_written.push(false);
                self.mirrored.push(mirrored);
                (self.keys.len() - 1) as u32
            }
        };
        self.by_key.insert(key, c);
        (c, true)
    }

    pub fn release(&mut self, cell: u32) {
        let key = self.keys[cell as usize];
        if self.by_key.remove(&key).is_some() {
            self.released.push(cell);
        }
    }

    /// Lua has dropped its records of the released cells: they can be reused.
    pub fn recycle_released(&mut self) {
        self.free.append(&mut self.released);
    }

    pub fn is_mirrored(&self, cell: u32) -> bool {
        self.mirrored.get(cell as usize).copied().unwrap_or(false)
    }

    #[inline]
    pub fn write(&mut self, cell: u32, v: f32) {
        let c = cell as usize;
        self.values[c] = v;
        if self.mirrored[c] && !self.is_written[c] {
            self.is_written[c] = true;
            self.written.push(cell);
        }
    }

    pub fn clear_written(&mut self) {
        for &c in &self.written {
            self.is_written[c as usize] = false;
        }
        self.written.clear();
    }
}

/// Appends a cell to the values Lua reads and writes by pointer. In debug builds (the tests)
/// the buffer always moves when it grows, and the old one is poisoned before it is freed: Lua
/// code that kept a pointer across a call that can grow the cells then loses its writes and
/// reads NaN every time, instead of only when the allocator happens to move the buffer
/// (issue 32). Past 4,096 cells it moves only when full, so big scenes stay linear.
fn push_cell_value(values: &mut Vec<f32>, v: f32) {
    const ALWAYS_MOVE: usize = 4096;
    if cfg!(debug_assertions) && (values.len() < ALWAYS_MOVE || values.len() == values.capacity()) {
        let extra = if values.len() < ALWAYS_MOVE { 1 } else { values.len() };
        let mut moved = Vec::with_capacity(values.len() + extra);
        moved.extend_from_slice(values);
        moved.push(v);
        values.fill(f32::NAN);
        *values = moved;
    } else {
        values.push(v);
    }
}

/// The current value of a target (a tween's start value).
pub fn read(scene: &mut Scene, euler: &mut EulerRecords, cells: &ScriptCells, t: Target) -> f32 {
    match t {
        Target::None => 0.0,
        Target::Position { slot, axis } => {
            scene.settle(slot);
            scene.position[slot as usize][axis as usize]
        }
        Target::Rotation { slot, axis } => {
            scene.settle(slot);
            scene.rotation[slot as usize].to_array()[axis as usize]
        }
        Target::Scale { slot, axis } => {
            scene.settle(slot);
            scene.scale[slot as usize][axis as usize]
        }
        Target::Euler { record, axis } => {
            euler.sync(scene, record);
            euler.value[record as usize][axis as usize]
        }
        Target::Script { cell } => cells.values[cell as usize],
    }
}

#[inline(always)]
pub fn write(scene: &mut Scene, euler: &mut EulerRecords, cells: &mut ScriptCells, t: Target, v: f32) {
    match t {
        Target::None => {}
        Target::Position { slot, axis } => {
            scene.settle_for_write(slot);
            scene.position[slot as usize].as_mut()[axis as usize] = v
        }
        Target::Rotation { slot, axis } => {
            scene.settle_for_write(slot);
            let q = &mut scene.rotation[slot as usize];
            match axis {
                0 => q.x = v,
                1 => q.y = v,
                2 => q.z = v,
                _ => q.w = v,
            }
        }
        Target::Scale { slot, axis } => {
            scene.settle_for_write(slot);
            scene.scale[slot as usize].as_mut()[axis as usize] = v
        }
        Target::Euler { record, axis } => euler.value[record as usize].as_mut()[axis as usize] = v,
        Target::Script { cell } => cells.write(cell, v),
    }
}

pub use crate::base::euler::{euler_to_quat, quat_to_euler};
