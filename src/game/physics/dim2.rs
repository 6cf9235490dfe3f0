//! The 2D world (`[physics] type = 2D`, Defold's Box2D projects): `sim.rs` on `rapier2d`. The
//! world is the plane z = 0 and bodies turn about z only: z only orders what is drawn, so
//! objects at different depths still meet.
use crate::game::physics::simulation::Geom;
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

/// What a wheel joint locks in its frame (x along the axis, z the spin axis): the second
/// anchor off the line, and in 3D the tilt out of the plane.
pub const WHEEL_LOCKED: JointAxesMask = JointAxesMask::LIN_Y;

/// The axis a hinge turns about and a revolute motor drives.
pub const TURN_AXIS: JointAxis = JointAxis::AngX;

/// A `b2d` shape as a rapier shape, and where that sits in its body's frame.
pub fn shape_of(g: &Geom) -> Result<(SharedShape, glam::Vec3), String> {
    let points = |v: &[glam::Vec3]| v.iter().map(|p| vector(*p)).collect::<Vec<_>>();
    Ok(match g {
        Geom::Circle { center, radius } => (SharedShape::ball(*radius), *center),
        Geom::Capsule { a, b, radius } => (SharedShape::capsule(vector(*a), vector(*b), *radius), glam::Vec3::ZERO),
        Geom::Segment { a, b } => (SharedShape::segment(vector(*a), vector(*b)), glam::Vec3::ZERO),
        Geom::Polygon { vertices } => {
            let hull = sim::hull(&points(vertices))
                .ok_or_else(|| format!("could not make a polygon hull from {} vertices", vertices.len()))?;
            (hull, glam::Vec3::ZERO)
        }
        Geom::Chain { vertices, closed } => {
            let n = vertices.len() as u32;
            let ends = if *closed { n } else { n.saturating_sub(1) };
            let indices = (0..ends).map(|i| [i, (i + 1) % n]).collect();
            (SharedShape::polyline(points(vertices), Some(indices)), glam::Vec3::ZERO)
        }
    })
}

/// A collider's shape as `b2d` describes it, in its body's frame (`local`: the collider's place
/// there); a box is its four corners, counter-clockwise.
pub fn geom_of(s: &dyn Shape, local: &Pose) -> Option<Geom> {
    let p = |v: Vector| vec3(local.transform_point(v));
    if let Some(b) = s.as_ball() {
        return Some(Geom::Circle { center: vec3(local.translation), radius: b.radius });
    }
    if let Some(c) = s.as_cuboid() {
        let h = c.half_extents;
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        return Some(Geom::Polygon {
            vertices: corners.iter().map(|&(x, y)| p(Vector::new(x * h.x, y * h.y))).collect(),
        });
    }
    if let Some(c) = s.as_capsule() {
        return Some(Geom::Capsule { a: p(c.segment.a), b: p(c.segment.b), radius: c.radius });
    }
    if let Some(sg) = s.as_segment() {
        return Some(Geom::Segment { a: p(sg.a), b: p(sg.b) });
    }
    if let Some(poly) = s.as_convex_polygon() {
        return Some(Geom::Polygon { vertices: poly.points().iter().map(|&v| p(v)).collect() });
    }
    s.as_polyline().map(|l| Geom::Chain { vertices: l.vertices().iter().map(|&v| p(v)).collect(), closed: false })
}

/// The edges of a shape the debug view has no other drawing for, in its own frame: a
/// polygon's (hulls, tiles) and a chain's.
pub fn outline(s: &dyn Shape) -> Vec<(glam::Vec3, glam::Vec3)> {
    if let Some(poly) = s.as_convex_polygon() {
        let v = poly.points();
        return (0..v.len()).map(|k| (vec3(v[k]), vec3(v[(k + 1) % v.len()]))).collect();
    }
    s.as_polyline().map_or_else(Vec::new, |l| l.segments().map(|sg| (vec3(sg.a), vec3(sg.b))).collect())
}

/// The linear axes a mouse joint pulls along.
pub const LIN_AXES: &[JointAxis] = &[JointAxis::LinX, JointAxis::LinY];
