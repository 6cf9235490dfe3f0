//! Game-object properties as animation targets: names, element ids and the [`Target`] of each
//! element, shared by the Lua binding and the tests.
use super::target::Target;
use super::tween::{Element, TweenWorld};
use crate::base::hash::{Hash, hash_str};
use crate::scene::Scene;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoProperty {
    Position = 0,
    Rotation = 1,
    Euler = 2,
    Scale = 3,
}

impl GoProperty {
    /// The one list of game-object properties: `go.get`, `go.set` and `go.animate` build their
    /// lookups from it (handed to Lua as `S.go_properties`).
    pub const ALL: [GoProperty; 4] = [GoProperty::Position, GoProperty::Rotation, GoProperty::Euler, GoProperty::Scale];

    pub fn from_index(i: u32) -> Option<GoProperty> {
        Self::ALL.get(i as usize).copied()
    }

    /// The vmath type of the whole property.
    pub fn value_type(self) -> &'static str {
        if self == GoProperty::Rotation { "quat" } else { "vector3" }
    }

    /// The sub-property names (`position.x` …), one per element.
    pub fn element_names(self) -> &'static [&'static str] {
        if self == GoProperty::Rotation { &["x", "y", "z", "w"] } else { &["x", "y", "z"] }
    }

    /// Whether a number stands for the same number on every element: `go.set(".", "scale", 2)`
    /// (Defold's uniform scale) and `go.animate` of `scale` or `position` to a number.
    pub fn number_fills(self, animating: bool) -> bool {
        self == GoProperty::Scale || (animating && self == GoProperty::Position)
    }

    pub fn name(self) -> &'static str {
        ["position", "rotation", "euler", "scale"][self as usize]
    }

    /// Number of floats: 4 for the rotation quaternion, 3 otherwise.
    pub fn element_count(self) -> usize {
        if self == GoProperty::Rotation { 4 } else { 3 }
    }

    /// Id of element `axis` (`position.x` …).
    pub fn element_id(self, axis: usize) -> Hash {
        hash_str(&format!("{}.{}", self.name(), ["x", "y", "z", "w"][axis.min(3)]))
    }
}

impl TweenWorld {
    /// `go.get` of `euler`: the angles a running Euler tween keeps (re-synced with the rotation),
    /// else the angles derived from the rotation. One source for reads and tweens alike.
    pub fn euler_of(&mut self, scene: &mut Scene, slot: u32) -> glam::Vec3 {
        match self.objects_euler(slot) {
            Some(r) => self.euler.angles(scene, r),
            None => {
                scene.settle(slot);
                crate::base::euler::quat_to_euler(scene.rotation[slot as usize])
            }
        }
    }

    /// `go.set` of `euler`: as in Defold, the angles are kept as given (`go.get` returns 200,
    /// not the -160 a rotation would give back), until something else rotates the object.
    pub fn set_euler(&mut self, scene: &mut Scene, slot: u32, e: glam::Vec3) {
        let r = self.euler_record(scene, slot);
        self.euler.set_angles(scene, r, e);
    }

    /// The target of element `axis` of `prop` on object `slot` (creating its Euler record).
    pub fn go_target(&mut self, scene: &mut Scene, slot: u32, prop: GoProperty, axis: u8) -> Target {
        match prop {
            GoProperty::Position => Target::Position { slot, axis },
            GoProperty::Rotation => Target::Rotation { slot, axis },
            GoProperty::Scale => Target::Scale { slot, axis },
            GoProperty::Euler => Target::Euler { record: self.euler_record(scene, slot), axis },
        }
    }

    /// Elements animating all of `prop` towards `to` (one value per element).
    pub fn go_elements(&mut self, scene: &mut Scene, slot: u32, prop: GoProperty, to: &[f32]) -> Vec<Element> {
        (0..prop.element_count().min(to.len()))
            .map(|a| Element {
                property: prop.element_id(a),
                target: self.go_target(scene, slot, prop, a as u8),
                to: to[a],
            })
            .collect()
    }
}
