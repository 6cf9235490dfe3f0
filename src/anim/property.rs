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
    pub fn from_index(i: u32) -> Option<GoProperty> {
        [GoProperty::Position, GoProperty::Rotation, GoProperty::Euler, GoProperty::Scale].get(i as usize).copied()
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
    /// The target of element `axis` of `prop` on object `slot` (creating its Euler record).
    pub fn go_target(&mut self, scene: &Scene, slot: u32, prop: GoProperty, axis: u8) -> Target {
        match prop {
            GoProperty::Position => Target::Position { slot, axis },
            GoProperty::Rotation => Target::Rotation { slot, axis },
            GoProperty::Scale => Target::Scale { slot, axis },
            GoProperty::Euler => Target::Euler { record: self.euler_record(scene, slot), axis },
        }
    }

    /// Elements animating all of `prop` towards `to` (one value per element).
    pub fn go_elements(&mut self, scene: &Scene, slot: u32, prop: GoProperty, to: &[f32]) -> Vec<Element> {
        (0..prop.element_count().min(to.len()))
            .map(|a| Element {
                property: prop.element_id(a),
                target: self.go_target(scene, slot, prop, a as u8),
                to: to[a],
            })
            .collect()
    }
}
