//! The 3D world: `sim.rs` on `rapier3d`, with the conversions that differ from 2D.
use crate::game::physics::simulation::Geom;
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

/// What a wheel joint locks in its frame (x along the axis, z the spin axis): the second
/// anchor off the line, and in 3D the tilt out of the plane.
pub const WHEEL_LOCKED: JointAxesMask =
    JointAxesMask::LIN_Y.union(JointAxesMask::LIN_Z).union(JointAxesMask::ANG_X).union(JointAxesMask::ANG_Y);

/// The axis a hinge turns about and a revolute motor drives.
pub const TURN_AXIS: JointAxis = JointAxis::AngZ;

/// A `b2d` shape as a rapier shape, and where that sits in its body's frame. Box2D's API is
/// refused in a 3D world before it gets here; the round shapes still answer.
pub fn shape_of(g: &Geom) -> Result<(SharedShape, glam::Vec3), String> {
    match g {
        Geom::Circle { center, radius } => Ok((SharedShape::ball(*radius), *center)),
        Geom::Capsule { a, b, radius } => Ok((SharedShape::capsule(vector(*a), vector(*b), *radius), glam::Vec3::ZERO)),
        Geom::Segment { a, b } => Ok((SharedShape::segment(vector(*a), vector(*b)), glam::Vec3::ZERO)),
        Geom::Polygon { .. } | Geom::Chain { .. } => Err("polygons and chains need a 2D physics world".into()),
    }
}

/// A collider's round shapes as `b2d` describes them (`local`: the collider's place in its body).
pub fn geom_of(s: &dyn Shape, local: &Pose) -> Option<Geom> {
    let p = |v: Vector| vec3(local.transform_point(v));
    if let Some(b) = s.as_ball() {
        return Some(Geom::Circle { center: vec3(local.translation), radius: b.radius });
    }
    if let Some(c) = s.as_capsule() {
        return Some(Geom::Capsule { a: p(c.segment.a), b: p(c.segment.b), radius: c.radius });
    }
    s.as_segment().map(|sg| Geom::Segment { a: p(sg.a), b: p(sg.b) })
}

/// The edges of a shape the debug view has no other drawing for, in its own frame: a hull's.
pub fn outline(s: &dyn Shape) -> Vec<(glam::Vec3, glam::Vec3)> {
    s.as_convex_polyhedron().map_or_else(Vec::new, |h| {
        let v = h.points();
        h.edges().iter().map(|e| (vec3(v[e.vertices[0] as usize]), vec3(v[e.vertices[1] as usize]))).collect()
    })
}

/// The linear axes a mouse joint pulls along.
pub const LIN_AXES: &[JointAxis] = &[JointAxis::LinX, JointAxis::LinY, JointAxis::LinZ];
