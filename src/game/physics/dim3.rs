//! The 3D world: `sim.rs` on `rapier3d`, with the conversions that differ from 2D.
pub use rapier3d as rapier;
use rapier3d::prelude::*;

// The same source in both dimensions, on purpose (see simulation.rs).
#[allow(clippy::duplicate_mod)]
#[path = "sim.rs"]
pub mod sim;

pub const TWO_D: bool = false;

// rapier's glam is not always Sinew's version: values cross as arrays.
pub fn vector(v: glam::Vec3) -> Vector {
    Vector::from_array(v.to_array())
}

pub fn vec3(v: Vector) -> glam::Vec3 {
    glam::Vec3::from_array(v.to_array())
}

pub fn angular(v: glam::Vec3) -> AngVector {
    vector(v)
}

pub fn angular_vec3(v: AngVector) -> glam::Vec3 {
    vec3(v)
}

pub fn rotation(q: glam::Quat) -> Rotation {
    Rotation::from_array(q.to_array())
}

pub fn quat(r: Rotation) -> glam::Quat {
    glam::Quat::from_array(r.to_array())
}

pub fn cuboid(half: glam::Vec3) -> ColliderBuilder {
    ColliderBuilder::cuboid(half.x, half.y, half.z)
}

pub fn revolute() -> RevoluteJointBuilder {
    RevoluteJointBuilder::new(Vector::Z)
}

/// The circles drawn for a round shape: one about each axis.
pub const CIRCLE_AXES: &[usize] = &[0, 1, 2];

/// A joint's impulses as force and torque impulses in its first frame (`frame`).
pub fn reaction(impulses: SpatialVector, frame: Rotation) -> (glam::Vec3, f32) {
    let i = impulses;
    (vec3(frame * Vector::new(i[0], i[1], i[2])), (frame * Vector::new(i[3], i[4], i[5])).length())
}
