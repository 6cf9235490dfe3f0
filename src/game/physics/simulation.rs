//! What Sinew asks of a rapier world, in neutral terms: glam vectors and quaternions in, handles
//! as plain numbers out. `sim.rs` answers it once for `rapier3d` and once for `rapier2d` (the
//! same file compiled in `dim3.rs` and `dim2.rs`), so the collision objects, their messages,
//! ray casts and joints are written once over both dimensions. In a 2D world z is dropped on the
//! way in and 0 on the way out, and rotations are their turn about z.
use crate::project::physics::{CollisionObjectSpec, CollisionType};
use glam::{Quat, Vec3};

/// A rapier arena handle (body, collider or joint) as its index and generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handle(pub u32, pub u32);

impl Handle {
    pub const INVALID: Handle = Handle(u32::MAX, u32::MAX);
}

/// A position and rotation in physics units.
pub type Iso = (Vec3, Quat);

/// A body to insert; `user` is its index in `Physics::bodies`, kept on the body and colliders.
pub struct BodyDesc {
    pub ty: CollisionType,
    pub pose: Iso,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub bullet: bool,
    pub locked_rotation: bool,
    pub user: u32,
}

/// The colliders of one collision object: its shapes at `scale`, mirrored as `flip` says, in
/// collision groups `groups` (membership bits, filter bits).
pub struct CollidersDesc<'a> {
    pub spec: &'a CollisionObjectSpec,
    pub scale: f32,
    pub flip: [bool; 2],
    pub groups: (u32, u32),
    pub user: u32,
    /// The group bit of each of `spec.tiles`' groups: a tile map's hulls are in their tiles'
    /// groups, not the object's.
    pub tile_bits: &'a [u32],
}

/// One side of a contact: its collision object (`user` number) and, for a shape in a group of
/// its own (a tile map's hulls), that group's bit plus one; 0 for the object's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Party {
    pub object: u32,
    pub group: u8,
}

impl Party {
    /// A whole object, in its own group.
    pub fn object(object: u32) -> Party {
        Party { object, group: 0 }
    }
}

/// One contact point of a step, in physics units: the objects (their `user` numbers), the world
/// position each is told (`on_a`, `on_b`: as Defold's engine of the dimension reports it), the
/// normal pointing from `a` to `b`, the penetration (positive when they overlap) and the impulse.
pub struct ContactPoint {
    pub a: Party,
    pub b: Party,
    pub on_a: Vec3,
    pub on_b: Vec3,
    pub normal: Vec3,
    pub depth: f32,
    pub impulse: f32,
}

#[derive(Debug, Clone, Copy)]
pub enum JointKind {
    /// At most `max` apart.
    Rope { max: f32 },
    /// Turns about z through the anchors; `limits` in radians, `motor` (speed, max torque).
    Revolute { limits: Option<[f32; 2]>, motor: Option<(f32, f32)> },
    /// Pulled towards `rest` apart with stiffness `k` and damping `c`.
    Spring { rest: f32, k: f32, c: f32 },
    /// Exactly `length` apart (Box2D's distance joint with no frequency: a rod on ball joints).
    Rod { length: f32 },
    /// Slides along `axis` (unit length) of the first body.
    Prismatic { axis: Vec3, limits: Option<[f32; 2]>, motor: Option<(f32, f32)> },
    /// Holds the second body at the first's anchor, turned `angle` from it (Box2D's weld);
    /// `spring` (frequency in Hz, damping ratio) makes the turn soft, the anchors stay rigid.
    Weld { angle: f32, spring: Option<(f32, f32)> },
    /// Box2D's wheel: the second anchor keeps to the line through the first along `axis` (unit,
    /// the first body's frame), pulled back to it by `spring` (Hz, damping ratio; None: free
    /// along the line); the second body turns freely or by `motor` (speed, max torque).
    Wheel { axis: Vec3, motor: Option<(f32, f32)>, spring: Option<(f32, f32)> },
    /// Pulls the second body's anchor towards the first's as a spring of `hertz` and
    /// `damping_ratio`, with at most `max_force` (Box2D's mouse joint).
    Mouse { hertz: f32, damping_ratio: f32, max_force: f32 },
}

/// A joint's motion now: the second body's turn from the first's about the first's z axis
/// (radians, in (-pi, pi]) and its rate; the second anchor's distance from the first along the
/// first frame's x axis (a slider's or wheel's axis; physics units) and its rate, as Box2D's
/// `GetJointTranslation` / `GetJointSpeed` measure them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JointState {
    pub angle: f32,
    pub angular_speed: f32,
    pub translation: f32,
    pub linear_speed: f32,
}

/// A joint to insert: anchors in each body's own frame, physics units.
#[derive(Debug, Clone)]
pub struct JointDesc {
    pub kind: JointKind,
    pub anchors: (Vec3, Vec3),
    pub collide: bool,
    /// How soft the joint's constraints are (frequency in Hz, damping ratio), as Box2D 3's
    /// joints are; None: rigid.
    pub softness: Option<(f32, f32)>,
}

/// Lines the debug view draws, in physics units.
pub trait DebugLines {
    /// A segment of shape `user`'s outline; false when no more lines fit.
    fn shape(&mut self, user: u32, from: Vec3, to: Vec3) -> bool;
    /// A contact point's normal; false when no more lines fit.
    fn contact(&mut self, from: Vec3, to: Vec3) -> bool;
}

/// One rapier world. Calls naming a handle that is gone do nothing (or answer `None`).
pub trait Simulation {
    fn gravity(&self) -> Vec3;
    /// Wakes every body, as the change reaches the resting ones too.
    fn set_gravity(&mut self, g: Vec3);
    fn insert_body(&mut self, b: &BodyDesc) -> Handle;
    /// The colliders made, in the order of the spec's shapes (a shape that spans nothing is left
    /// out with an error logged).
    fn attach(&mut self, body: Handle, c: &CollidersDesc) -> Vec<Handle>;
    fn remove_colliders(&mut self, colliders: &[Handle]);
    /// Removes the body, its colliders and joints.
    fn remove_body(&mut self, body: Handle);
    fn set_enabled(&mut self, body: Handle, on: bool);
    /// Puts the body at `pose`, at rest.
    fn place_at_rest(&mut self, body: Handle, pose: Iso);
    fn set_groups(&mut self, colliders: &[Handle], groups: (u32, u32));
    fn step(&mut self, dt: f32);
    /// Contacts closing slower than `speed` (physics units a second) do not bounce, as Box2D's;
    /// 0: every new contact bounces. A 3D world has none (Bullet's has none).
    fn set_restitution_threshold(&mut self, speed: f32);
    fn reset_forces(&mut self, body: Handle);
    /// Moves a fixed body to `pose`, or a dynamic one a script moved (woken, keeping its
    /// velocities); a kinematic one is placed there and aimed one more move on, so what it
    /// pushes is pushed at the speed it moves.
    fn follow(&mut self, body: Handle, pose: Iso, kinematic: bool);
    /// The body's pose, None while it sleeps.
    fn awake_pose(&self, body: Handle) -> Option<Iso>;
    fn pose(&self, body: Handle) -> Option<Iso>;
    /// Linear and angular velocity.
    fn velocity(&self, body: Handle) -> Option<(Vec3, Vec3)>;
    fn set_linear_velocity(&mut self, body: Handle, v: Vec3);
    fn set_angular_velocity(&mut self, body: Handle, v: Vec3);
    fn mass(&self, body: Handle) -> Option<f32>;
    /// Linear and angular damping.
    fn damping(&self, body: Handle) -> Option<(f32, f32)>;
    fn set_damping(&mut self, body: Handle, linear: Option<f32>, angular: Option<f32>);
    /// `physics.update_mass`: the body's colliders share `mass` as they shared the old one (by
    /// their own masses; by volume when those are all 0), and the body takes it at once.
    fn set_mass(&mut self, body: Handle, mass: f32);
    fn wake_up(&mut self, body: Handle);
    /// A force for the next step (until `reset_forces`).
    fn add_force_at_point(&mut self, body: Handle, force: Vec3, at: Vec3);
    /// A point of the body's frame in the world.
    fn to_world(&self, body: Handle, local: Vec3) -> Option<Vec3>;
    /// The step's contact points: `want(a, b)` for each touching pair of objects of which one
    /// body is awake after the step (false skips its points), then at most `max_per_pair`
    /// points of each pair of shapes. A pair of shapes whose largest impulse this step is below
    /// `min_impulse` is left out, pair and points (Defold's `contact_impulse_limit`: 0 leaves
    /// out none).
    fn contacts(
        &self,
        max_per_pair: usize,
        min_impulse: f32,
        want: &mut dyn FnMut(Party, Party) -> bool,
        point: &mut dyn FnMut(ContactPoint),
    );
    /// The pairs of objects a trigger overlaps.
    fn intersections(&self, pair: &mut dyn FnMut(u32, u32));
    /// Hits of a ray (triggers excluded) on objects in groups `mask`: `hit(side, distance,
    /// normal)`, the nearest only unless `all`. `exact`: bodies moved since the last step, so
    /// every collider is tested rather than the broad phase's stale boxes.
    #[allow(clippy::too_many_arguments)]
    fn cast_ray(
        &self,
        from: Vec3,
        dir: Vec3,
        length: f32,
        mask: u32,
        all: bool,
        exact: bool,
        hit: &mut dyn FnMut(Party, f32, Vec3),
    );
    fn insert_joint(&mut self, a: Handle, b: Handle, j: &JointDesc) -> Result<Handle, String>;
    fn remove_joint(&mut self, joint: Handle);
    /// The force and torque the joint applied on its second body in the last step (physics
    /// units).
    fn joint_reaction(&self, joint: Handle, a: Handle) -> Option<(Vec3, f32)>;
    fn debug_lines(&self, out: &mut dyn DebugLines);
    // ---- Box2D's own API (`b2d.*`, `b2d.rs`); a 3D world refuses it before these are called.
    fn collider_info(&self, c: Handle) -> Option<ColliderInfo>;
    /// Gives collider `c` another shape; its mass follows its density when `update_mass`, else
    /// stays as it was.
    fn set_collider_geom(&mut self, c: Handle, g: &Geom, update_mass: bool) -> Result<(), String>;
    /// Changes what is given; a new density sets the collider's mass from its area.
    fn set_collider_material(
        &mut self,
        c: Handle,
        friction: Option<f32>,
        restitution: Option<f32>,
        density: Option<f32>,
    );
    fn set_sensor_events(&mut self, c: Handle, on: bool);
    /// One more collider on `body`.
    #[allow(clippy::too_many_arguments)]
    fn add_collider(
        &mut self,
        body: Handle,
        g: &Geom,
        m: Material,
        sensor: bool,
        groups: (u32, u32),
        user: u32,
    ) -> Result<Handle, String>;
    /// The colliders overlapping sensor `c` (none while its sensor events are off).
    fn sensor_overlaps(&self, c: Handle, out: &mut Vec<Handle>);
    /// The colliders in groups `mask` whose bounding boxes meet the box `lo`..`hi`. `exact`
    /// (here and below): bodies were made or moved since the last step, so every collider is
    /// tested rather than the broad phase's stale boxes.
    fn overlap_box(&self, lo: Vec3, hi: Vec3, mask: u32, exact: bool, out: &mut Vec<Handle>);
    /// The colliders in groups `mask` that overlap `g` (world frame).
    fn overlap_geom(&self, g: &Geom, mask: u32, exact: bool, out: &mut Vec<Handle>) -> Result<(), String>;
    /// Every hit of the segment `from`..`from + translation` on the solid colliders in groups
    /// `mask`: collider, point, normal, fraction of the segment.
    fn ray_hits(&self, from: Vec3, translation: Vec3, mask: u32, exact: bool, out: &mut Vec<(Handle, Vec3, Vec3, f32)>);
    fn set_gravity_scale(&mut self, body: Handle, g: f32);
    fn lock_rotation(&mut self, body: Handle, on: bool);
    /// Moves the body to `pose`, keeping its velocities.
    fn set_pose(&mut self, body: Handle, pose: Iso);
    fn set_awake(&mut self, body: Handle, on: bool);
    fn apply_impulse(&mut self, body: Handle, impulse: Vec3, at: Vec3);
    /// The body's centre of mass in the world.
    fn center_of_mass(&self, body: Handle) -> Option<Vec3>;
    /// A world point in the body's frame.
    fn to_local(&self, body: Handle, world: Vec3) -> Option<Vec3>;
    /// The motor speed of a revolute (`angular`) or prismatic joint.
    fn set_joint_motor_speed(&mut self, joint: Handle, angular: bool, speed: f32);
    /// Moves a joint's anchor on its first body (a mouse joint's target).
    fn set_joint_anchor1(&mut self, joint: Handle, local: Vec3);
    /// Where the joint stands now: Defold's read-only joint properties, and `b2d`'s prismatic
    /// translation.
    fn joint_state(&self, joint: Handle) -> Option<JointState>;
    /// The joint's softness (see [`JointDesc::softness`]).
    fn set_joint_softness(&mut self, joint: Handle, hertz: f32, damping_ratio: f32);
    fn gravity_scale(&self, body: Handle) -> Option<f32>;
}

/// A shape as Box2D's API (`b2d.*`) describes it, in physics units, in its body's frame (in the
/// world's, for a query).
#[derive(Debug, Clone, PartialEq)]
pub enum Geom {
    Circle {
        center: Vec3,
        radius: f32,
    },
    Capsule {
        a: Vec3,
        b: Vec3,
        radius: f32,
    },
    Segment {
        a: Vec3,
        b: Vec3,
    },
    /// A convex polygon: the hull of the vertices.
    Polygon {
        vertices: Vec<Vec3>,
    },
    /// Segments through the vertices (`b2d.body.create_chain`), back to the first when `closed`.
    Chain {
        vertices: Vec<Vec3>,
        closed: bool,
    },
}

impl Geom {
    /// Box2D's offset box: half extents `hx`, `hy` turned by `angle` about `center`.
    pub fn boxed(hx: f32, hy: f32, center: Vec3, angle: f32) -> Geom {
        let r = Quat::from_rotation_z(angle);
        let corner = |x: f32, y: f32| center + r * Vec3::new(x * hx, y * hy, 0.0);
        Geom::Polygon { vertices: vec![corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)] }
    }

    /// Every point and length times `s` (world units into physics units and back).
    pub fn scaled(&self, s: f32) -> Geom {
        let all = |v: &[Vec3]| v.iter().map(|p| *p * s).collect();
        match self {
            Geom::Circle { center, radius } => Geom::Circle { center: *center * s, radius: radius * s },
            Geom::Capsule { a, b, radius } => Geom::Capsule { a: *a * s, b: *b * s, radius: radius * s },
            Geom::Segment { a, b } => Geom::Segment { a: *a * s, b: *b * s },
            Geom::Polygon { vertices } => Geom::Polygon { vertices: all(vertices) },
            Geom::Chain { vertices, closed } => Geom::Chain { vertices: all(vertices), closed: *closed },
        }
    }
}

/// A collider's surface and density (mass per area in 2D, per volume in 3D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material {
    pub friction: f32,
    pub restitution: f32,
    pub density: f32,
}

/// What `b2d` reads of a collider.
pub struct ColliderInfo {
    /// Its collision object (`Physics::bodies` index).
    pub user: u32,
    /// None for a shape `Geom` cannot say (a 3D box).
    pub geom: Option<Geom>,
    pub sensor: bool,
    pub material: Material,
    /// `b2d.shape.enable_sensor_events`: a sensor reports what overlaps it only while on.
    pub sensor_events: bool,
}

/// The world of a project's dimension.
pub fn new_world(two_d: bool, gravity: Vec3) -> Box<dyn Simulation> {
    if two_d {
        Box::new(super::dim2::sim::World::new(gravity))
    } else {
        Box::new(super::dim3::sim::World::new(gravity))
    }
}

/// Spreads a dynamic object's mass over its shapes by their volume (area in 2D), as Defold's
/// Bullet and Box2D do.
pub fn share_of_mass(spec: &CollisionObjectSpec, shape: usize, two_d: bool) -> f32 {
    let total: f32 = spec.shapes.iter().map(|sh| size(&sh.kind, two_d)).sum::<f32>().max(f32::MIN_POSITIVE);
    spec.shapes.get(shape).map_or(0.0, |sh| spec.mass * size(&sh.kind, two_d) / total)
}

/// A shape's volume (area in 2D) in its own units; a hull's is its bounding box's.
fn size(k: &crate::project::physics::ShapeKind, two_d: bool) -> f32 {
    use crate::project::physics::ShapeKind;
    use std::f32::consts::PI;
    match *k {
        ShapeKind::Sphere { radius: r } if two_d => PI * r * r,
        ShapeKind::Sphere { radius: r } => 4.0 / 3.0 * PI * r.powi(3),
        ShapeKind::Box { half } if two_d => 4.0 * half[0] * half[1],
        ShapeKind::Box { half } => 8.0 * half[0] * half[1] * half[2],
        ShapeKind::Hull { ref points } => {
            let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            for p in points.iter() {
                lo = lo.min(Vec3::from(*p));
                hi = hi.max(Vec3::from(*p));
            }
            let e = (hi - lo).max(Vec3::ZERO);
            if two_d { e.x * e.y } else { e.x * e.y * e.z }
        }
        ShapeKind::Capsule { radius: r, height: h } if two_d => PI * r * r + 2.0 * r * h,
        ShapeKind::Capsule { radius: r, height: h } => PI * r * r * h + 4.0 / 3.0 * PI * r.powi(3),
    }
}

/// A shape's local pose with the body's flips: mirroring across the y axis negates x and turns
/// the rotation the other way about y and z (`M·R·M` for the mirror `M`); across x likewise.
pub fn mirrored(mut t: Vec3, mut r: Quat, flip: [bool; 2]) -> Iso {
    if flip[0] {
        t.x = -t.x;
        r = Quat::from_xyzw(r.x, -r.y, -r.z, r.w);
    }
    if flip[1] {
        t.y = -t.y;
        r = Quat::from_xyzw(-r.x, r.y, -r.z, r.w);
    }
    (t, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::physics::{ShapeKind, ShapeSpec, TileCollision, TileGroup};

    /// The shape segments a world's debug view draws.
    #[derive(Default)]
    struct Collect(Vec<(Vec3, Vec3)>);

    impl DebugLines for Collect {
        fn shape(&mut self, _: u32, from: Vec3, to: Vec3) -> bool {
            self.0.push((from, to));
            true
        }
        fn contact(&mut self, _: Vec3, _: Vec3) -> bool {
            true
        }
    }

    fn spec(shapes: Vec<ShapeSpec>, tiles: Option<TileCollision>) -> CollisionObjectSpec {
        CollisionObjectSpec {
            tiles: tiles.map(std::sync::Arc::new),
            ..CollisionObjectSpec::with_shapes(CollisionType::Static, shapes)
        }
    }

    fn outline(two_d: bool, spec: &CollisionObjectSpec, tile_bits: &[u32]) -> Vec<(Vec3, Vec3)> {
        outline_scaled(two_d, spec, tile_bits, 1.0)
    }

    fn outline_scaled(two_d: bool, spec: &CollisionObjectSpec, tile_bits: &[u32], scale: f32) -> Vec<(Vec3, Vec3)> {
        let mut world = new_world(two_d, Vec3::ZERO);
        let body = world.insert_body(&BodyDesc {
            ty: CollisionType::Static,
            pose: (Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY),
            linear_damping: 0.0,
            angular_damping: 0.0,
            bullet: false,
            locked_rotation: false,
            user: 0,
        });
        let desc = CollidersDesc { spec, scale, flip: [false; 2], groups: (1, 1), user: 0, tile_bits };
        world.attach(body, &desc);
        let mut lines = Collect::default();
        world.debug_lines(&mut lines);
        lines.0
    }

    /// A tile map's hulls (one compound per group) and a 3D hull are outlined edge by edge, in
    /// the world, like the round shapes.
    #[test]
    fn the_debug_view_outlines_tile_hulls_and_3d_hulls() {
        let square = |x: f32| vec![[x, 0.0], [x + 1.0, 0.0], [x + 1.0, 1.0], [x, 1.0]];
        let groups = vec![
            TileGroup { group: "ground".into(), hulls: vec![square(0.0), square(1.0)] },
            TileGroup { group: "danger".into(), hulls: vec![square(3.0)] },
        ];
        let tiles = TileCollision { source: "/m.tilemap".into(), groups, offset: ([0.0; 3], [0.0, 0.0, 0.0, 1.0]) };
        let lines = outline(true, &spec(Vec::new(), Some(tiles)), &[1, 2]);
        assert_eq!(lines.len(), 12, "three squares: {lines:?}");
        let xs: Vec<f32> = lines.iter().flat_map(|(a, b)| [a.x, b.x]).collect();
        let (lo, hi) = xs.iter().fold((f32::MAX, f32::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        assert_eq!((lo, hi), (10.0, 14.0), "in the world, at the body");
        let tetra =
            ShapeKind::Hull { points: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].into() };
        let hull = ShapeSpec { kind: tetra, id: None, position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };
        assert_eq!(outline(false, &spec(vec![hull], None), &[]).len(), 6, "a tetrahedron's six edges");
    }

    /// Found by `tests/fuzz.rs`: parry's hull panicked on the NaN points of a tile map whose
    /// offset rotation had no direction (a zero quaternion, normalised). A hull whose points
    /// are not finite is left out like one that spans nothing, in both dimensions.
    #[test]
    fn hulls_whose_points_are_not_finite_are_left_out() {
        let square = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let groups = vec![TileGroup { group: "ground".into(), hulls: vec![square] }];
        let tiles = TileCollision { source: "/m.tilemap".into(), groups, offset: ([0.0; 3], [0.0; 4]) };
        assert_eq!(outline(true, &spec(Vec::new(), Some(tiles)), &[1]).len(), 0);
        let tetra =
            ShapeKind::Hull { points: vec![[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]].into() };
        let hull = ShapeSpec { kind: tetra, id: None, position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };
        for two_d in [false, true] {
            // 0 × ∞ is NaN.
            assert_eq!(outline_scaled(two_d, &spec(vec![hull.clone()], None), &[], f32::INFINITY).len(), 0);
        }
    }
}
