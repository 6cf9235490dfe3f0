//! The 2D world (`[physics] type = 2D`, Defold's Box2D projects): `sim.rs` on `rapier2d`. The
//! world is the plane z = 0 and bodies turn about z only: z only orders what is drawn, so
//! objects at different depths still meet.
pub use rapier2d as rapier;
use rapier2d::prelude::*;

// The same source in both dimensions, on purpose (see simulation.rs).
#[allow(clippy::duplicate_mod)]
#[path = "sim.rs"]
pub mod sim;

pub const TWO_D: bool = true;

pub fn vector(v: glam::Vec3) -> Vector {
    Vector::new(v.x, v.y)
}

pub fn vec3(v: Vector) -> glam::Vec3 {
    glam::Vec3::new(v.x, v.y, 0.0)
}

pub fn angular(v: glam::Vec3) -> AngVector {
    v.z
}

pub fn angular_vec3(v: AngVector) -> glam::Vec3 {
    glam::Vec3::new(0.0, 0.0, v)
}

/// The turn about z (the swing away from z dropped).
pub fn rotation(q: glam::Quat) -> Rotation {
    if q.z * q.z + q.w * q.w < 1e-12 {
        return Rotation::identity();
    }
    Rotation::from_angle(2.0 * q.z.atan2(q.w))
}

pub fn quat(r: Rotation) -> glam::Quat {
    glam::Quat::from_rotation_z(r.angle())
}

pub fn cuboid(half: glam::Vec3) -> ColliderBuilder {
    ColliderBuilder::cuboid(half.x, half.y)
}

pub fn revolute() -> RevoluteJointBuilder {
    RevoluteJointBuilder::new()
}

/// The circles drawn for a round shape: the one in the plane.
pub const CIRCLE_AXES: &[usize] = &[2];

/// A joint's impulses (x, y, turn) as force and torque impulses in its first frame (`frame`).
pub fn reaction(impulses: SpatialVector, frame: Rotation) -> (glam::Vec3, f32) {
    (vec3(frame * Vector::new(impulses.x, impulses.y)), impulses.z.abs())
}
