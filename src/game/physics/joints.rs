//! Joints between two collision objects (`physics.create_joint`): Defold's six kinds on rapier's
//! impulse joints. A joint belongs to its first object and is addressed by that object and an
//! id; it goes with either object. Changing its properties rebuilds it.
use super::Physics;
use super::simulation::{Handle, JointDesc, JointKind};
use crate::base::hash::Hash;

/// Joints one world holds at most: past this `create_joint` is refused.
pub const MAX_JOINTS: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    /// Defold's "fixed" joint: Box2D's rope, at most `max_length` apart.
    Fixed,
    /// Turns about z through the anchors (Defold's 2D hinge).
    Hinge,
    /// Pulls the anchors towards `length` apart.
    Spring,
    /// Slides along `local_axis_a`.
    Slider,
    /// Holds the second object at the first, turned `reference_angle`; `frequency` and
    /// `damping` soften the turn (Box2D's weld).
    Weld,
    /// Keeps the second anchor on the line along `local_axis_a`, sprung back by `frequency`
    /// and `damping`, turning freely or by its motor (Box2D's wheel).
    Wheel,
}

impl JointType {
    /// Every kind by its `physics.JOINT_TYPE_*` name, in the order of its value (the index):
    /// Lua's constants are made from this list.
    pub const ALL: [(&'static str, JointType); 6] = [
        ("JOINT_TYPE_FIXED", JointType::Fixed),
        ("JOINT_TYPE_HINGE", JointType::Hinge),
        ("JOINT_TYPE_SPRING", JointType::Spring),
        ("JOINT_TYPE_SLIDER", JointType::Slider),
        ("JOINT_TYPE_WELD", JointType::Weld),
        ("JOINT_TYPE_WHEEL", JointType::Wheel),
    ];

    /// The properties Defold's `physics.get_joint_properties` returns for this kind, after
    /// `collide_connected`, separated by spaces (its API reference, one list a kind;
    /// `local_axis_a` stands for the vector of the three `local_axis_a_*` entries). The
    /// read-only ones ([`JointProps::READ_ONLY`]) are the joint's motion now.
    pub fn fields(self) -> &'static str {
        match self {
            JointType::Fixed => "max_length",
            JointType::Hinge => {
                "reference_angle lower_angle upper_angle max_motor_torque motor_speed enable_limit enable_motor \
                 joint_angle joint_speed"
            }
            JointType::Spring => "length frequency damping",
            JointType::Slider => {
                "local_axis_a reference_angle enable_limit lower_translation upper_translation enable_motor \
                 max_motor_force motor_speed joint_translation joint_speed"
            }
            JointType::Weld => "reference_angle frequency damping",
            JointType::Wheel => {
                "local_axis_a max_motor_torque motor_speed enable_motor frequency damping joint_translation joint_speed"
            }
        }
    }

    pub fn from_index(i: u32) -> Option<JointType> {
        Self::ALL.get(i as usize).map(|&(_, t)| t)
    }
}

/// The properties of every kind in one flat list (the Lua side fills and reads it by index,
/// see [`JointProps::NAMES`]); NaN means "not given" when creating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointProps(pub [f32; JointProps::COUNT]);

impl JointProps {
    pub const COUNT: usize = 21;
    /// Defold's property names, in the list's order (booleans are 0 or 1).
    pub const NAMES: [&'static str; Self::COUNT] = [
        "collide_connected",
        "max_length",
        "reference_angle",
        "lower_angle",
        "upper_angle",
        "max_motor_torque",
        "motor_speed",
        "enable_limit",
        "enable_motor",
        "length",
        "frequency",
        "damping",
        "local_axis_a_x",
        "local_axis_a_y",
        "local_axis_a_z",
        "lower_translation",
        "upper_translation",
        "max_motor_force",
        "joint_angle",
        "joint_translation",
        "joint_speed",
    ];
    /// Properties `physics.get_joint_properties` reports and creating or setting ignores, as
    /// Defold does: the joint's motion now.
    pub const READ_ONLY: [&'static str; 3] = ["joint_angle", "joint_translation", "joint_speed"];

    fn get(&self, name: &str) -> f32 {
        Self::NAMES.iter().position(|n| *n == name).map_or(f32::NAN, |i| self.0[i])
    }

    fn set(&mut self, name: &str, v: f32) {
        if let Some(i) = Self::NAMES.iter().position(|n| *n == name) {
            self.0[i] = v;
        }
    }

    /// Defold's defaults where a property was not given; `distance` is the anchors' distance.
    fn with_defaults(mut self, distance: f32) -> JointProps {
        let defaults = [
            ("collide_connected", 0.0),
            ("max_length", distance),
            ("reference_angle", 0.0),
            ("lower_angle", 0.0),
            ("upper_angle", 0.0),
            ("max_motor_torque", 0.0),
            ("motor_speed", 0.0),
            ("enable_limit", 0.0),
            ("enable_motor", 0.0),
            ("length", distance),
            ("frequency", 0.0),
            ("damping", 0.0),
            ("local_axis_a_x", 1.0),
            ("local_axis_a_y", 0.0),
            ("local_axis_a_z", 0.0),
            ("lower_translation", 0.0),
            ("upper_translation", 0.0),
            ("max_motor_force", 0.0),
            ("joint_angle", 0.0),
            ("joint_translation", 0.0),
            ("joint_speed", 0.0),
        ];
        for name in Self::READ_ONLY {
            self.set(name, f32::NAN);
        }
        for (name, v) in defaults {
            if self.get(name).is_nan() {
                self.set(name, v);
            }
        }
        self
    }
}

/// Box2D's softness of a weld or wheel: `frequency` Hz (0: none) and the `damping` ratio.
fn spring(p: &JointProps) -> Option<(f32, f32)> {
    let hz = p.get("frequency");
    (hz > 0.0).then(|| (hz, p.get("damping").max(0.0)))
}

pub struct Joint {
    /// The first object (the owner) and the joint's id there.
    pub a: u32,
    pub id: Hash,
    pub b: u32,
    pub ty: JointType,
    pub anchors: ([f32; 3], [f32; 3]),
    pub props: JointProps,
    pub handle: Handle,
}

impl Physics {
    fn find_joint(&self, a: u32, id: Hash) -> Option<usize> {
        self.joints.iter().position(|j| j.a == a && j.id == id)
    }

    /// `physics.create_joint`: anchors in each object's own space (world units).
    pub fn create_joint(
        &mut self,
        ty: JointType,
        (a, id): (u32, Hash),
        anchor_a: [f32; 3],
        b: u32,
        anchor_b: [f32; 3],
        props: JointProps,
    ) -> Result<(), String> {
        if self.get(a).is_none() || self.get(b).is_none() {
            return Err("the collision object was deleted".into());
        }
        if a == b {
            return Err("a joint needs two different collision objects".into());
        }
        if self.get(a).map(|x| x.space) != self.get(b).map(|x| x.space) {
            return Err("the collision objects are in different worlds (collections)".into());
        }
        if self.find_joint(a, id).is_some() {
            return Err(format!("the collision object already has a joint '{}'", crate::base::hash::name_of(id)));
        }
        if self.joints.len() >= MAX_JOINTS {
            return Err(format!("more than {MAX_JOINTS} joints"));
        }
        if !anchor_a.iter().chain(&anchor_b).chain(props.0.iter().filter(|v| !v.is_nan())).all(|v| v.is_finite()) {
            return Err("anchors and properties must be finite".into());
        }
        let (pa, pb) = (self.anchor_world(a, anchor_a), self.anchor_world(b, anchor_b));
        let props = props.with_defaults((pa - pb).length() / self.settings.scale);
        let handle = self.insert_joint(ty, a, b, (anchor_a, anchor_b), &props)?;
        self.joints.push(Joint { a, id, b, ty, anchors: (anchor_a, anchor_b), props, handle });
        Ok(())
    }

    fn anchor_world(&self, i: u32, local: [f32; 3]) -> glam::Vec3 {
        let Some((world, h)) = self.world_of(i) else { return glam::Vec3::ZERO };
        world.to_world(h, glam::Vec3::from(local) * self.settings.scale).unwrap_or(glam::Vec3::ZERO)
    }

    fn insert_joint(
        &mut self,
        ty: JointType,
        a: u32,
        b: u32,
        (anchor_a, anchor_b): ([f32; 3], [f32; 3]),
        p: &JointProps,
    ) -> Result<Handle, String> {
        let s = self.settings.scale;
        let (ha, hb, k) = match (self.get(a), self.get(b)) {
            (Some(x), Some(y)) if x.space == y.space => (x.handle, y.handle, x.space as usize),
            (Some(_), Some(_)) => return Err("the collision objects are in different worlds (collections)".into()),
            _ => return Err("the collision object was deleted".into()),
        };
        for (lo, hi) in [("lower_angle", "upper_angle"), ("lower_translation", "upper_translation")] {
            if p.get(lo) > p.get(hi) {
                return Err(format!("property field '{lo}' must be lower or equal to '{hi}'"));
            }
        }
        let limit = p.get("enable_limit") != 0.0;
        let motor = p.get("enable_motor") != 0.0;
        let kind = match ty {
            JointType::Fixed => JointKind::Rope { max: p.get("max_length").max(0.0) * s },
            JointType::Hinge => {
                let r = p.get("reference_angle");
                JointKind::Revolute {
                    limits: limit.then(|| [p.get("lower_angle") + r, p.get("upper_angle") + r]),
                    motor: motor.then(|| (p.get("motor_speed"), p.get("max_motor_torque").max(0.0))),
                }
            }
            // Box2D's distance joint at frequency 0 is rigid.
            JointType::Spring if p.get("frequency") <= 0.0 => JointKind::Rod { length: p.get("length").max(0.0) * s },
            JointType::Spring => {
                // Box2D's frequency and damping ratio, for the mass of the moving body.
                let m = [b, a].iter().filter_map(|&i| self.mass(i)).find(|m| *m > 0.0).unwrap_or(1.0);
                let w = 2.0 * std::f32::consts::PI * p.get("frequency").max(0.0);
                JointKind::Spring {
                    rest: p.get("length").max(0.0) * s,
                    k: m * w * w,
                    c: 2.0 * m * p.get("damping").max(0.0) * w,
                }
            }
            JointType::Weld => JointKind::Weld { angle: p.get("reference_angle"), spring: spring(p) },
            JointType::Wheel => JointKind::Wheel {
                axis: glam::Vec3::new(p.get("local_axis_a_x"), p.get("local_axis_a_y"), p.get("local_axis_a_z")),
                motor: motor.then(|| (p.get("motor_speed"), p.get("max_motor_torque").max(0.0))),
                spring: spring(p),
            },
            JointType::Slider => {
                let axis = glam::Vec3::new(p.get("local_axis_a_x"), p.get("local_axis_a_y"), p.get("local_axis_a_z"));
                if axis.length() < 1e-6 {
                    return Err("local_axis_a must not be zero".into());
                }
                JointKind::Prismatic {
                    axis: axis.normalize(),
                    limits: limit.then(|| [p.get("lower_translation") * s, p.get("upper_translation") * s]),
                    motor: motor.then(|| (p.get("motor_speed") * s, p.get("max_motor_force").max(0.0))),
                }
            }
        };
        let desc = JointDesc {
            kind,
            anchors: (glam::Vec3::from(anchor_a) * s, glam::Vec3::from(anchor_b) * s),
            collide: p.get("collide_connected") != 0.0,
            softness: None,
        };
        let sp = &mut self.spaces[k];
        sp.dirty = true;
        sp.world.insert_joint(ha, hb, &desc)
    }

    pub fn destroy_joint(&mut self, a: u32, id: Hash) -> Result<(), String> {
        let k = self.find_joint(a, id).ok_or("the collision object has no such joint")?;
        let j = self.joints.swap_remove(k);
        if let Some((world, _)) = self.world_of_mut(a) {
            world.remove_joint(j.handle);
        }
        Ok(())
    }

    /// The joint's kind and properties, the read-only ones its motion now (world units).
    pub fn joint_properties(&self, a: u32, id: Hash) -> Result<(JointType, JointProps), String> {
        let k = self.find_joint(a, id).ok_or("the collision object has no such joint")?;
        let j = &self.joints[k];
        let mut props = j.props;
        let state = self.world_of(a).and_then(|(world, _)| world.joint_state(j.handle)).unwrap_or_default();
        let s = self.settings.scale;
        let (translation, speed) = match j.ty {
            JointType::Hinge => (0.0, state.angular_speed),
            _ => (state.translation / s, state.linear_speed / s),
        };
        props.set("joint_angle", state.angle - props.get("reference_angle"));
        props.set("joint_translation", translation);
        props.set("joint_speed", speed);
        Ok((j.ty, props))
    }

    /// Changes the given properties (NaN keeps one) and rebuilds the joint with them.
    pub fn set_joint_properties(&mut self, a: u32, id: Hash, props: JointProps) -> Result<(), String> {
        let k = self.find_joint(a, id).ok_or("the collision object has no such joint")?;
        if !props.0.iter().filter(|v| !v.is_nan()).all(|v| v.is_finite()) {
            return Err("properties must be finite".into());
        }
        let mut merged = self.joints[k].props;
        for (slot, v) in merged.0.iter_mut().zip(props.0) {
            if !v.is_nan() {
                *slot = v;
            }
        }
        for name in JointProps::READ_ONLY {
            merged.set(name, f32::NAN);
        }
        let j = &self.joints[k];
        let (ty, b, anchors, old) = (j.ty, j.b, j.anchors, j.handle);
        let handle = self.insert_joint(ty, a, b, anchors, &merged)?;
        if let Some((world, _)) = self.world_of_mut(a) {
            world.remove_joint(old);
        }
        self.joints[k].handle = handle;
        self.joints[k].props = merged;
        Ok(())
    }

    /// The force (world units, newtons) and torque the joint applied on its second object in
    /// the last step: the constraint's impulses over the step.
    pub fn joint_reaction(&self, a: u32, id: Hash) -> Result<([f32; 3], f32), String> {
        let k = self.find_joint(a, id).ok_or("the collision object has no such joint")?;
        let Some((world, h)) = self.world_of(a) else { return Ok(([0.0; 3], 0.0)) };
        let Some((force, torque)) = world.joint_reaction(self.joints[k].handle, h) else { return Ok(([0.0; 3], 0.0)) };
        Ok(((force / self.settings.scale).to_array(), torque))
    }

    /// Forgets the joints of a removed object (rapier removed them with its body).
    pub(super) fn forget_joints(&mut self, i: u32) {
        self.joints.retain(|j| j.a != i && j.b != i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `get_joint_properties` lists for a kind is read from the flat property list: every
    /// name must be in it (`local_axis_a` through its three entries).
    #[test]
    fn every_kinds_fields_are_properties() {
        for (name, ty) in JointType::ALL {
            for field in ty.fields().split_whitespace() {
                let known =
                    JointProps::NAMES.contains(&field) || JointProps::NAMES.contains(&format!("{field}_x").as_str());
                assert!(known, "{name}: '{field}' is not a joint property");
            }
        }
        assert!(JointProps::READ_ONLY.iter().all(|r| JointProps::NAMES.contains(r)));
    }
}
