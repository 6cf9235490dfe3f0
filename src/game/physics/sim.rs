//! [`Simulation`] on one rapier crate. This file is compiled twice, in `dim3.rs` (rapier3d) and
//! `dim2.rs` (rapier2d); `super` is that module, with the conversions that differ.
use super::rapier::prelude::*;
use super::{CIRCLE_AXES, TWO_D, angular, angular_vec3, quat, rotation, vec3, vector};
use crate::base::bits;
use crate::game::physics::simulation::{
    BodyDesc, ColliderInfo, CollidersDesc, ContactPoint, DebugLines, Geom, Handle, Iso, JointDesc, JointKind,
    JointState, Material, Party, Simulation, mirrored, share_of_mass,
};
use crate::project::physics::{CollisionType, ShapeKind};

pub struct World {
    world: PhysicsWorld,
    /// [`RestitutionThreshold`]'s speed; 0: none.
    restitution_threshold: f32,
    /// One bit per rigid-body index, set for the bodies awake after the last step: what
    /// `contacts` asks of each pair (a bit set rather than each body, which misses the cache).
    awake: Vec<u64>,
    /// By rigid-body index: the pose `follow` placed a kinematic body at, its handle's
    /// generation and the step it was for. The step carries the body on to the pose it heads
    /// for; its contacts are told from this one, as Defold finds them.
    placed: Vec<Option<(u32, u64, Pose)>>,
    /// Steps taken.
    steps: u64,
}

/// How hard a joint motor drives towards its speed: Box2D's and Bullet's motors reach it as fast
/// as their maximum force or torque allows, so the gain is high and the maximum caps it (with
/// rapier's gain of 1 a motor only nudged: a slider's motor lost to gravity along its axis).
const MOTOR_GAIN: f32 = 1000.0;

/// A collider's user-data bit above its collision object's index: `b2d.shape.enable_sensor_events`.
const SENSOR_EVENTS: u128 = 1 << 64;
/// Where a collider's user data keeps its own group (bit plus one, 0: its object's group).
const GROUP_SHIFT: u32 = 80;

/// How two shapes' friction and restitution combine, as Defold's engines do: Box2D (2D) takes
/// the geometric mean of the frictions and the larger restitution (`b2MixFriction`,
/// `b2MixRestitution`), Bullet (3D) the products of both (`btManifoldResult`). rapier's own
/// average made a ball of restitution 1 lose a quarter of its speed on a wall of Defold's default
/// 0.5 in 2D, and bounce where Bullet's would not in 3D.
const FRICTION_RULE: CoefficientCombineRule =
    if TWO_D { CoefficientCombineRule::GeometricMean } else { CoefficientCombineRule::Multiply };
const RESTITUTION_RULE: CoefficientCombineRule =
    if TWO_D { CoefficientCombineRule::Max } else { CoefficientCombineRule::Multiply };
/// 2D contacts pass [`RestitutionThreshold`]; Bullet has no such threshold.
const HOOKS: ActiveHooks = if TWO_D { ActiveHooks::MODIFY_SOLVER_CONTACTS } else { ActiveHooks::empty() };

/// A collider's friction and restitution, combined with its neighbours' as Defold's engine of
/// this dimension does ([`FRICTION_RULE`], [`RESTITUTION_RULE`], [`HOOKS`]): every collider
/// Sinew makes is made through here.
fn material(b: ColliderBuilder, friction: f32, restitution: f32) -> ColliderBuilder {
    b.friction(friction)
        .restitution(restitution)
        .friction_combine_rule(FRICTION_RULE)
        .restitution_combine_rule(RESTITUTION_RULE)
        .active_hooks(HOOKS)
}

/// Box2D's restitution threshold (`b2_velocityThreshold`): a contact closing slower than this
/// (physics units a second) does not bounce, so a bouncing ball comes to rest instead of
/// hopping ever lower. rapier bounces every new contact, however slow.
struct RestitutionThreshold(f32);

impl PhysicsHooks for RestitutionThreshold {
    fn modify_solver_contacts(&self, ctx: &mut ContactModificationContext) {
        let bodies = ctx.bodies;
        let b1 = ctx.rigid_body1.and_then(|h| bodies.get(h));
        let b2 = ctx.rigid_body2.and_then(|h| bodies.get(h));
        let Some(m) = ctx.rigid_mut() else { return };
        if *m.restitution <= 0.0 {
            return;
        }
        let n = *m.normal;
        // Box2D tests each point; the manifold shares one restitution, so its fastest point.
        let closing = m
            .solver_contacts
            .iter()
            .map(|c| {
                let v1 = b1.map_or(Vector::ZERO, |b| b.velocity_at_point(c.anchor1));
                let v2 = b2.map_or(Vector::ZERO, |b| b.velocity_at_point(c.anchor2));
                (v1 - v2).dot(n)
            })
            .fold(f32::NEG_INFINITY, f32::max);
        if closing < self.0 {
            *m.restitution = 0.0;
        }
    }
}

/// The side of a contact a collider is.
fn party(c: &Collider) -> Party {
    Party { object: c.user_data as u32, group: (c.user_data >> GROUP_SHIFT) as u8 }
}

impl World {
    pub fn new(gravity: glam::Vec3) -> World {
        let mut world = PhysicsWorld::new();
        world.gravity = vector(gravity);
        World { world, restitution_threshold: 0.0, awake: Vec::new(), placed: Vec::new(), steps: 0 }
    }

    /// Where collider `c` was in the last step: placed by `follow` if its body is kinematic and
    /// was placed for that step, else where the step left it.
    fn placed_pose(&self, c: &Collider) -> Pose {
        if let Some(h) = c.parent() {
            let (i, generation) = h.into_raw_parts();
            if let Some(Some((g, step, at))) = self.placed.get(i as usize)
                && *g == generation
                && step + 1 == self.steps
            {
                return match c.position_wrt_parent() {
                    Some(local) => *at * *local,
                    None => *at,
                };
            }
        }
        *c.position()
    }

    fn body(&self, h: Handle) -> Option<&RigidBody> {
        self.world.bodies.get(RigidBodyHandle::from_raw_parts(h.0, h.1))
    }

    fn body_mut(&mut self, h: Handle) -> Option<&mut RigidBody> {
        self.world.bodies.get_mut(RigidBodyHandle::from_raw_parts(h.0, h.1))
    }

    /// A body's mass from its colliders now, not at the next step: `b2d` reads it back at once.
    fn remass(&mut self, body: Option<RigidBodyHandle>) {
        let w = &mut self.world;
        if let Some(rb) = body.and_then(|h| w.bodies.get_mut(h)) {
            rb.recompute_mass_properties_from_colliders(&w.colliders);
        }
    }

    /// The colliders passing `filter`: every one when the broad phase is stale (`exact`: bodies
    /// were made or moved since the last step), else those whose boxes meet `aabb`.
    fn candidates(&self, filter: QueryFilter, aabb: Aabb, exact: bool) -> Vec<ColliderHandle> {
        let w = &self.world;
        if exact {
            return w.colliders.iter().filter(|(h, c)| filter.test(&w.bodies, *h, c)).map(|(h, _)| h).collect();
        }
        w.query_pipeline_with_filter(filter).intersect_aabb_conservative(aabb).map(|(h, _)| h).collect()
    }
}

fn pose(iso: Iso) -> Pose {
    Pose::from_parts(vector(iso.0), rotation(iso.1))
}

fn iso(p: &Pose) -> Iso {
    (vec3(p.translation), quat(p.rotation))
}

fn groups((membership, filter): (u32, u32)) -> InteractionGroups {
    InteractionGroups::new(
        Group::from_bits_truncate(membership),
        Group::from_bits_truncate(filter),
        InteractionTestMode::And,
    )
}

fn collider(h: Handle) -> ColliderHandle {
    ColliderHandle::from_raw_parts(h.0, h.1)
}

fn raw_collider(h: ColliderHandle) -> Handle {
    let (a, b) = h.into_raw_parts();
    Handle(a, b)
}

/// The convex hull of `points`; None when they span nothing or one is not finite. parry's hull
/// panics on a NaN point (its support point search finds none), and a point from a file is
/// scaled by the object's scale and placed by its offset here, either of which can overflow.
pub fn hull(points: &[Vector]) -> Option<SharedShape> {
    if !points.iter().all(|p| p.to_array().iter().all(|x| x.is_finite())) {
        return None;
    }
    SharedShape::convex_hull(points)
}

/// A shape's collider builder, mirrored as `flip` says; None for a hull that spans nothing.
fn shape(kind: &ShapeKind, s: f32, flip: [bool; 2]) -> Option<ColliderBuilder> {
    Some(match kind {
        ShapeKind::Sphere { radius } => ColliderBuilder::ball(radius * s),
        ShapeKind::Box { half } => super::cuboid(glam::Vec3::from(*half) * s),
        ShapeKind::Capsule { radius, height } => ColliderBuilder::capsule_y(height * 0.5 * s, radius * s),
        ShapeKind::Hull { points } => {
            // Mirrored in the shape's own frame as its place is (see `mirrored`).
            let f = glam::Vec3::new(if flip[0] { -1.0 } else { 1.0 }, if flip[1] { -1.0 } else { 1.0 }, 1.0);
            let pts: Vec<Vector> = points.iter().map(|p| vector(glam::Vec3::from(*p) * s * f)).collect();
            ColliderBuilder::new(hull(&pts)?)
        }
    })
}

impl Simulation for World {
    fn gravity(&self) -> glam::Vec3 {
        vec3(self.world.gravity)
    }

    fn set_gravity(&mut self, g: glam::Vec3) {
        self.world.gravity = vector(g);
        self.world.wake_up_all(true);
    }

    fn insert_body(&mut self, b: &BodyDesc) -> Handle {
        let builder = match b.ty {
            CollisionType::Dynamic => RigidBodyBuilder::dynamic(),
            CollisionType::Kinematic | CollisionType::Trigger => RigidBodyBuilder::kinematic_position_based(),
            CollisionType::Static => RigidBodyBuilder::fixed(),
        };
        let mut builder = builder
            .pose(pose(b.pose))
            .linear_damping(b.linear_damping)
            .angular_damping(b.angular_damping)
            .ccd_enabled(b.bullet)
            .user_data(u128::from(b.user));
        if b.locked_rotation {
            builder = builder.lock_rotations();
        }
        let (i, g) = self.world.insert_body(builder).into_raw_parts();
        Handle(i, g)
    }

    fn attach(&mut self, body: Handle, c: &CollidersDesc) -> Vec<Handle> {
        let handle = RigidBodyHandle::from_raw_parts(body.0, body.1);
        let (spec, s) = (c.spec, c.scale);
        let mut out = Vec::with_capacity(spec.shapes.len());
        for (n, sh) in spec.shapes.iter().enumerate() {
            let Some(b) = shape(&sh.kind, s, c.flip) else {
                // Checked sizes cannot all be caught at load (collinear points): the shape is
                // left out, the object keeps its others.
                log::error!("collision object: a hull shape's points span no volume; the shape is left out");
                continue;
            };
            let local = mirrored(glam::Vec3::from(sh.position) * s, glam::Quat::from_array(sh.rotation), c.flip);
            let mut b = material(b, spec.friction, spec.restitution)
                .position(pose(local))
                .collision_groups(groups(c.groups))
                .user_data(u128::from(c.user))
                .active_collision_types(
                    ActiveCollisionTypes::default()
                        | ActiveCollisionTypes::KINEMATIC_KINEMATIC
                        | ActiveCollisionTypes::KINEMATIC_FIXED,
                );
            if spec.collision_type == CollisionType::Dynamic {
                b = b.mass(share_of_mass(spec, n, TWO_D));
            }
            if spec.collision_type == CollisionType::Trigger {
                b = b.sensor(true);
            }
            out.push(raw_collider(self.world.insert_collider(b, Some(handle))));
        }
        // Tile maps collide in 2D only (`Physics::create` says so in 3D).
        if let Some(tiles) = spec.tiles.as_ref().filter(|_| TWO_D) {
            // A collider per group, of all its tiles' hulls, in that group and the object's mask.
            let f = glam::Vec3::new(if c.flip[0] { -1.0 } else { 1.0 }, if c.flip[1] { -1.0 } else { 1.0 }, 1.0);
            let (at, turn) = (glam::Vec3::from(tiles.offset.0), glam::Quat::from_array(tiles.offset.1).normalize());
            for (g, &bit) in tiles.groups.iter().zip(c.tile_bits) {
                let parts: Vec<(Pose, SharedShape)> = g
                    .hulls
                    .iter()
                    .filter_map(|h| {
                        let pts: Vec<Vector> =
                            h.iter().map(|p| vector((turn * glam::Vec3::new(p[0], p[1], 0.0) + at) * s * f)).collect();
                        hull(&pts).map(|shape| (Pose::IDENTITY, shape))
                    })
                    .collect();
                if parts.is_empty() {
                    continue;
                }
                let mut b =
                    material(ColliderBuilder::new(SharedShape::compound(parts)), spec.friction, spec.restitution)
                        .collision_groups(groups((1 << bit, c.groups.1)))
                        .user_data(u128::from(c.user) | (u128::from(bit + 1) << GROUP_SHIFT))
                        .active_collision_types(
                            ActiveCollisionTypes::default()
                                | ActiveCollisionTypes::KINEMATIC_KINEMATIC
                                | ActiveCollisionTypes::KINEMATIC_FIXED,
                        );
                if spec.collision_type == CollisionType::Trigger {
                    b = b.sensor(true);
                }
                out.push(raw_collider(self.world.insert_collider(b, Some(handle))));
            }
        }
        out
    }

    fn remove_colliders(&mut self, colliders: &[Handle]) {
        for &h in colliders {
            let parent = self.world.colliders.get(collider(h)).and_then(|c| c.parent());
            self.world.remove_collider(collider(h));
            self.remass(parent);
        }
    }

    fn remove_body(&mut self, body: Handle) {
        let h = RigidBodyHandle::from_raw_parts(body.0, body.1);
        if self.world.bodies.get(h).is_some() {
            self.world.remove_body_with_colliders(h, true);
        }
    }

    fn set_enabled(&mut self, body: Handle, on: bool) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_enabled(on);
        }
    }

    fn place_at_rest(&mut self, body: Handle, at: Iso) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_position(pose(at), true);
            rb.set_linvel(Vector::ZERO, true);
            rb.set_angvel(angular(glam::Vec3::ZERO), true);
        }
    }

    fn set_groups(&mut self, colliders: &[Handle], g: (u32, u32)) {
        for &h in colliders {
            if let Some(c) = self.world.colliders.get_mut(collider(h)) {
                // A tile map's hull keeps its tile's group; the object's mask is its filter.
                let own = party(c).group;
                let member = if own > 0 { 1u32 << (own - 1) } else { g.0 };
                c.set_collision_groups(groups((member, g.1)));
            }
        }
    }

    fn step(&mut self, dt: f32) {
        self.world.integration_parameters.dt = dt;
        if TWO_D && self.restitution_threshold > 0.0 {
            self.world.step_with_events(&RestitutionThreshold(self.restitution_threshold), &());
        } else {
            self.world.step();
        }
        self.steps += 1;
        self.awake.clear();
        for h in self.world.islands.active_bodies() {
            bits::insert(&mut self.awake, h.into_raw_parts().0 as usize);
        }
    }

    fn set_restitution_threshold(&mut self, speed: f32) {
        self.restitution_threshold = speed;
    }

    fn reset_forces(&mut self, body: Handle) {
        if let Some(rb) = self.body_mut(body) {
            rb.reset_forces(false);
        }
    }

    fn follow(&mut self, body: Handle, at: Iso, kinematic: bool) {
        // A script's NaN or infinite transform is not passed on: it would poison the world.
        if !at.0.is_finite() || !at.1.is_finite() {
            return;
        }
        let at = pose(at);
        let Some(rb) = self.body_mut(body) else { return };
        if !kinematic {
            if *rb.position() != at {
                rb.set_position(at, true);
            }
            return;
        }
        // Placed before the step, as Defold sets a kinematic body's transform: the step's
        // contacts and trigger overlaps are found at the pose of this frame (a hitbox on a bone
        // enters a trigger at the frame its pose reaches it). Its target one more move on gives
        // it the velocity it moves at; the next step places it again.
        let old = *rb.position();
        let turn = at.rotation * old.rotation.inverse();
        let ahead = Pose::from_parts(at.translation * 2.0 - old.translation, (turn * at.rotation).normalize());
        rb.set_position(at, true);
        rb.set_next_kinematic_position(ahead);
        let i = body.0 as usize;
        if self.placed.len() <= i {
            self.placed.resize(i + 1, None);
        }
        self.placed[i] = Some((body.1, self.steps, at));
    }

    fn awake_pose(&self, body: Handle) -> Option<Iso> {
        self.body(body).filter(|rb| !rb.is_sleeping()).map(|rb| iso(rb.position()))
    }

    fn pose(&self, body: Handle) -> Option<Iso> {
        self.body(body).map(|rb| iso(rb.position()))
    }

    fn velocity(&self, body: Handle) -> Option<(glam::Vec3, glam::Vec3)> {
        self.body(body).map(|rb| (vec3(rb.linvel()), angular_vec3(rb.angvel())))
    }

    fn set_linear_velocity(&mut self, body: Handle, v: glam::Vec3) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_linvel(vector(v), true);
        }
    }

    fn set_angular_velocity(&mut self, body: Handle, v: glam::Vec3) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_angvel(angular(v), true);
        }
    }

    fn mass(&self, body: Handle) -> Option<f32> {
        self.body(body).map(|rb| rb.mass())
    }

    fn set_mass(&mut self, body: Handle, mass: f32) {
        let Some(rb) = self.body(body) else { return };
        let handles: Vec<ColliderHandle> = rb.colliders().to_vec();
        let cs = &mut self.world.colliders;
        let masses: Vec<f32> = handles.iter().map(|&h| cs.get(h).map_or(0.0, |c| c.mass())).collect();
        let volumes: Vec<f32> = handles.iter().map(|&h| cs.get(h).map_or(0.0, |c| c.volume())).collect();
        let shares = if masses.iter().sum::<f32>() > 0.0 { &masses } else { &volumes };
        let total = shares.iter().sum::<f32>().max(f32::MIN_POSITIVE);
        for (&h, &share) in handles.iter().zip(shares) {
            if let Some(c) = cs.get_mut(h) {
                c.set_mass(mass * share / total);
            }
        }
        self.remass(Some(RigidBodyHandle::from_raw_parts(body.0, body.1)));
    }

    fn damping(&self, body: Handle) -> Option<(f32, f32)> {
        self.body(body).map(|rb| (rb.linear_damping(), rb.angular_damping()))
    }

    fn set_damping(&mut self, body: Handle, linear: Option<f32>, angular: Option<f32>) {
        let Some(rb) = self.body_mut(body) else { return };
        if let Some(x) = linear {
            rb.set_linear_damping(x);
        }
        if let Some(x) = angular {
            rb.set_angular_damping(x);
        }
    }

    fn wake_up(&mut self, body: Handle) {
        if let Some(rb) = self.body_mut(body) {
            rb.wake_up(true);
        }
    }

    fn add_force_at_point(&mut self, body: Handle, force: glam::Vec3, at: glam::Vec3) {
        if let Some(rb) = self.body_mut(body) {
            rb.add_force_at_point(vector(force), vector(at), true);
        }
    }

    fn to_world(&self, body: Handle, local: glam::Vec3) -> Option<glam::Vec3> {
        self.body(body).map(|rb| vec3(rb.position().transform_point(vector(local))))
    }

    fn contacts(
        &self,
        max_per_pair: usize,
        min_impulse: f32,
        want: &mut dyn FnMut(Party, Party) -> bool,
        point: &mut dyn FnMut(ContactPoint),
    ) {
        let w = &self.world;
        let awake =
            |c: &Collider| c.parent().is_some_and(|h| bits::contains(&self.awake, h.into_raw_parts().0 as usize));
        for pair in w.narrow_phase.contact_pairs() {
            if !pair.has_any_active_contact() {
                continue;
            }
            let (Some(c1), Some(c2)) = (w.colliders.get(pair.collider1), w.colliders.get(pair.collider2)) else {
                continue;
            };
            // Defold reports a pair only while one of its bodies is awake: Bullet skips the
            // manifolds of two inactive objects (a static one is never active), Box2D reports
            // the contacts of the islands it solves. A pile at rest falls silent.
            if !(awake(c1) || awake(c2)) {
                continue;
            }
            let (a, b) = (party(c1), party(c2));
            if a.object == b.object {
                continue;
            }
            // Box2D's and Bullet's test in Defold: the largest impulse of any point, 0 if none.
            if min_impulse > 0.0
                && pair.manifolds().iter().flat_map(|m| m.points.iter()).fold(0.0f32, |m, c| m.max(c.data.impulse))
                    < min_impulse
            {
                continue;
            }
            if !want(a, b) {
                continue;
            }
            // Counted per pair of shapes: an object pair of several shapes reports each pair's.
            let mut n = 0;
            let (pose1, pose2) = (self.placed_pose(c1), self.placed_pose(c2));
            for m in pair.manifolds() {
                let normal = pose1.transform_vector(m.local_n1);
                for c in &m.points {
                    if n >= max_per_pair {
                        continue;
                    }
                    // The points' separation now: rapier keeps a resting pair's points from the
                    // step it found them (their `dist` with them, a speculative contact's gap
                    // before it closed) and moves them with the bodies, as its solver does.
                    // A kinematic side counts from the pose its object had this frame, where
                    // Defold measures it, not the one rapier's step carried it on to (`follow`):
                    // a platformer's sphere pushed out of the floor by its depth was told the
                    // depth plus its own move, and rose off the floor a little more each frame.
                    let p1 = pose1.transform_point(c.local_p1);
                    let p2 = pose2.transform_point(c.local_p2);
                    let dist = (p2 - p1).dot(normal);
                    if dist > 0.0 {
                        continue;
                    }
                    // Where each side is told the point is: Bullet (Defold's 3D) gives each
                    // object the point on its own surface, Box2D (2D) the point midway.
                    let (on_a, on_b) = if TWO_D { ((p1 + p2) * 0.5, (p1 + p2) * 0.5) } else { (p1, p2) };
                    point(ContactPoint {
                        a,
                        b,
                        on_a: vec3(on_a),
                        on_b: vec3(on_b),
                        normal: vec3(normal),
                        depth: -dist,
                        impulse: c.data.impulse,
                    });
                    n += 1;
                }
            }
        }
    }

    fn intersections(&self, pair: &mut dyn FnMut(u32, u32)) {
        let w = &self.world;
        for (h1, h2, hit) in w.narrow_phase.intersection_pairs() {
            if !hit {
                continue;
            }
            if let (Some(c1), Some(c2)) = (w.colliders.get(h1), w.colliders.get(h2)) {
                pair(c1.user_data as u32, c2.user_data as u32);
            }
        }
    }

    fn cast_ray(
        &self,
        from: glam::Vec3,
        dir: glam::Vec3,
        length: f32,
        mask: u32,
        all: bool,
        exact: bool,
        hit: &mut dyn FnMut(Party, f32, glam::Vec3),
    ) {
        let w = &self.world;
        let ray = Ray::new(vector(from), vector(dir));
        // Defold's rays (Box2D's) ignore the shapes their start lies in: a character casting
        // from its own centre finds the ground, not itself.
        let start = vector(from);
        let outside = |_: ColliderHandle, c: &Collider| !c.shape().contains_point(c.position(), start);
        let filter = QueryFilter::default().exclude_sensors().groups(groups((u32::MAX, mask))).predicate(&outside);
        let mut report = |h: ColliderHandle, i: RayIntersection| {
            if let Some(c) = w.colliders.get(h) {
                hit(party(c), i.time_of_impact, vec3(i.normal));
            }
        };
        if exact {
            let end = from + dir * length;
            for h in self.candidates(filter, Aabb::new(vector(from.min(end)), vector(from.max(end))), true) {
                let Some(c) = w.colliders.get(h) else { continue };
                if let Some(i) = c.shape().cast_ray_and_get_normal(c.position(), &ray, length, true) {
                    report(h, i);
                }
            }
            return;
        }
        let q = w.query_pipeline_with_filter(filter);
        if all {
            for (h, _, i) in q.intersect_ray(ray, length, true) {
                report(h, i);
            }
        } else if let Some((h, i)) = q.cast_ray_and_get_normal(&ray, length, true) {
            report(h, i);
        }
    }

    fn insert_joint(&mut self, a: Handle, b: Handle, j: &JointDesc) -> Result<Handle, String> {
        let (la, lb) = (vector(j.anchors.0), vector(j.anchors.1));
        let mut joint: GenericJoint = match j.kind {
            JointKind::Rope { max } => {
                RopeJointBuilder::new(max).local_anchor1(la).local_anchor2(lb).contacts_enabled(j.collide).into()
            }
            JointKind::Revolute { limits, motor } => {
                let mut r = super::revolute().local_anchor1(la).local_anchor2(lb).contacts_enabled(j.collide);
                if let Some(l) = limits {
                    r = r.limits(l);
                }
                if let Some((speed, max)) = motor {
                    r = r.motor_velocity(speed, MOTOR_GAIN).motor_max_force(max);
                }
                r.into()
            }
            JointKind::Rod { length } => GenericJointBuilder::new(JointAxesMask::empty())
                .coupled_axes(JointAxesMask::LIN_AXES)
                .limits(JointAxis::LinX, [length, length])
                .local_anchor1(la)
                .local_anchor2(lb)
                .contacts_enabled(j.collide)
                .into(),
            JointKind::Spring { rest, k, c } => SpringJointBuilder::new(rest, k, c)
                .local_anchor1(la)
                .local_anchor2(lb)
                .contacts_enabled(j.collide)
                .into(),
            JointKind::Prismatic { axis, limits, motor } => {
                let axis = vector(axis);
                if axis.length() < 1e-6 {
                    return Err(if TWO_D {
                        "local_axis_a must not be zero in the plane (a 2D world)".into()
                    } else {
                        "local_axis_a must not be zero".into()
                    });
                }
                let mut p = PrismaticJointBuilder::new(axis.normalize())
                    .local_anchor1(la)
                    .local_anchor2(lb)
                    .contacts_enabled(j.collide);
                if let Some(l) = limits {
                    p = p.limits(l);
                }
                if let Some((speed, max)) = motor {
                    p = p.motor_velocity(speed, MOTOR_GAIN).motor_max_force(max);
                }
                p.into()
            }
            JointKind::Weld { angle, spring: Some((hz, ratio)) } => {
                // Box2D's soft weld: the anchors held rigidly, the turn pulled towards `angle` as
                // a spring of `hz` and `ratio` whatever the inertia (rapier's acceleration-based
                // motor model, as the mouse joint below).
                let omega = std::f32::consts::TAU * hz;
                super::revolute()
                    .local_anchor1(la)
                    .local_anchor2(lb)
                    .contacts_enabled(j.collide)
                    .motor_position(angle, omega * omega, 2.0 * ratio * omega)
                    .into()
            }
            JointKind::Wheel { axis, motor, spring } => {
                if axis.length() < 1e-6 || (TWO_D && axis.truncate().length() < 1e-6) {
                    return Err("local_axis_a must not be zero".into());
                }
                let axis = axis.normalize();
                // The frame's x along the axis; an axis in the plane turns it about z only, so its
                // z stays the plane's normal (the wheel's spin axis).
                let turn = if axis.z.abs() < 1e-6 {
                    glam::Quat::from_rotation_z(axis.y.atan2(axis.x))
                } else {
                    glam::Quat::from_rotation_arc(glam::Vec3::X, axis)
                };
                let frame = rotation(turn);
                let mut m = GenericJointBuilder::new(super::WHEEL_LOCKED)
                    .local_frame1(Pose::from_parts(la, frame))
                    .local_frame2(Pose::from_parts(lb, frame))
                    .contacts_enabled(j.collide);
                if let Some((hz, ratio)) = spring {
                    let omega = std::f32::consts::TAU * hz;
                    m = m.motor_position(JointAxis::LinX, 0.0, omega * omega, 2.0 * ratio * omega);
                }
                if let Some((speed, max)) = motor {
                    m = m.motor_velocity(super::TURN_AXIS, speed, MOTOR_GAIN).motor_max_force(super::TURN_AXIS, max);
                }
                m.into()
            }
            JointKind::Weld { angle, spring: None } => FixedJointBuilder::new()
                .local_frame1(Pose::from_parts(la, rotation(glam::Quat::from_rotation_z(angle))))
                .local_frame2(Pose::from_translation(lb))
                .contacts_enabled(j.collide)
                .into(),
            JointKind::Mouse { hertz, damping_ratio, max_force } => {
                // Box2D's soft mouse constraint: a spring of `hertz` and `damping_ratio` whatever
                // the mass (rapier's acceleration-based motor model), at most `max_force`.
                let omega = std::f32::consts::TAU * hertz;
                let (k, c) = (omega * omega, 2.0 * damping_ratio * omega);
                let mut m = GenericJointBuilder::new(JointAxesMask::empty())
                    .local_anchor1(la)
                    .local_anchor2(lb)
                    .contacts_enabled(j.collide);
                for &axis in super::LIN_AXES {
                    m = m.motor_position(axis, 0.0, k, c).motor_max_force(axis, max_force);
                }
                m.into()
            }
        };
        if let Some((hz, ratio)) = j.softness {
            joint.softness = SpringCoefficients::new(hz, ratio);
        }
        let (ha, hb) = (RigidBodyHandle::from_raw_parts(a.0, a.1), RigidBodyHandle::from_raw_parts(b.0, b.1));
        let (i, g) = self.world.insert_impulse_joint(ha, hb, joint).into_raw_parts();
        Ok(Handle(i, g))
    }

    fn remove_joint(&mut self, joint: Handle) {
        self.world.remove_impulse_joint(ImpulseJointHandle::from_raw_parts(joint.0, joint.1));
    }

    fn joint_reaction(&self, joint: Handle, a: Handle) -> Option<(glam::Vec3, f32)> {
        let w = &self.world;
        let j = w.impulse_joints.get(ImpulseJointHandle::from_raw_parts(joint.0, joint.1))?;
        // The solver runs `num_solver_iterations` substeps; the impulses kept are the last one's.
        let params = &w.integration_parameters;
        let dt = (params.dt / params.num_solver_iterations.max(1) as f32).max(f32::MIN_POSITIVE);
        let frame = self.body(a).map_or(Rotation::IDENTITY, |rb| rb.position().rotation) * j.data.local_frame1.rotation;
        let (force, torque) = super::reaction(j.impulses, frame);
        Some((force / dt, torque / dt))
    }

    fn debug_lines(&self, out: &mut dyn DebugLines) {
        const SEGMENTS: usize = 16;
        let w = &self.world;
        for (_, c) in w.colliders.iter() {
            let user = c.user_data as u32;
            let at = |local: glam::Vec3| vec3(c.position().transform_point(vector(local)));
            let mut segs: Vec<(glam::Vec3, glam::Vec3)> = Vec::new();
            let circle = |segs: &mut Vec<(glam::Vec3, glam::Vec3)>, centre: glam::Vec3, r: f32| {
                for &axis in CIRCLE_AXES {
                    for k in 0..SEGMENTS {
                        let p = |k: usize| {
                            let (s, co) = (k as f32 / SEGMENTS as f32 * std::f32::consts::TAU).sin_cos();
                            let v = match axis {
                                0 => glam::Vec3::new(0.0, co, s),
                                1 => glam::Vec3::new(co, 0.0, s),
                                _ => glam::Vec3::new(co, s, 0.0),
                            };
                            centre + v * r
                        };
                        segs.push((p(k), p(k + 1)));
                    }
                }
            };
            if let Some(ball) = c.shape().as_ball() {
                circle(&mut segs, glam::Vec3::ZERO, ball.radius);
            } else if let Some(cuboid) = c.shape().as_cuboid() {
                let h = vec3(cuboid.half_extents);
                let corner = |i: usize| {
                    glam::Vec3::new(
                        if i & 1 == 0 { -h.x } else { h.x },
                        if i & 2 == 0 { -h.y } else { h.y },
                        if i & 4 == 0 { -h.z } else { h.z },
                    )
                };
                // A 2D box is its four edges in the plane.
                let (corners, bits): (usize, &[usize]) = if TWO_D { (4, &[1, 2]) } else { (8, &[1, 2, 4]) };
                for i in 0..corners {
                    for &bit in bits {
                        if i & bit == 0 {
                            segs.push((corner(i), corner(i | bit)));
                        }
                    }
                }
            } else if let Some(cap) = c.shape().as_capsule() {
                let (a, b) = (vec3(cap.segment.a), vec3(cap.segment.b));
                let r = cap.radius;
                circle(&mut segs, a, r);
                circle(&mut segs, b, r);
                let sides: &[glam::Vec3] = if TWO_D {
                    &[glam::Vec3::X, glam::Vec3::NEG_X]
                } else {
                    &[glam::Vec3::X, glam::Vec3::NEG_X, glam::Vec3::Z, glam::Vec3::NEG_Z]
                };
                for &d in sides {
                    segs.push((a + d * r, b + d * r));
                }
            } else if let Some(parts) = c.shape().as_compound() {
                // A tile map's hulls, each in its place in the collider.
                for (pose, part) in parts.shapes() {
                    let at = |v: glam::Vec3| vec3(pose.transform_point(vector(v)));
                    segs.extend(super::outline(part.as_ref()).into_iter().map(|(a, b)| (at(a), at(b))));
                }
            } else {
                segs = super::outline(c.shape());
            }
            for (s, e) in segs {
                if !out.shape(user, at(s), at(e)) {
                    return;
                }
            }
        }
        for pair in w.narrow_phase.contact_pairs() {
            if !pair.has_any_active_contact() {
                continue;
            }
            let Some(c1) = w.colliders.get(pair.collider1) else { continue };
            for m in pair.manifolds() {
                let n = vec3(m.data.normal) * 0.25;
                for c in &m.points {
                    let at = vec3(c1.position().transform_point(c.local_p1));
                    if !out.contact(at, at + n) {
                        return;
                    }
                }
            }
        }
    }

    fn collider_info(&self, c: Handle) -> Option<ColliderInfo> {
        let col = self.world.colliders.get(collider(c))?;
        let local = col.position_wrt_parent().copied().unwrap_or(Pose::IDENTITY);
        Some(ColliderInfo {
            user: col.user_data as u32,
            geom: super::geom_of(col.shape(), &local),
            sensor: col.is_sensor(),
            material: Material { friction: col.friction(), restitution: col.restitution(), density: col.density() },
            sensor_events: col.user_data & SENSOR_EVENTS != 0,
        })
    }

    fn set_collider_geom(&mut self, c: Handle, g: &Geom, update_mass: bool) -> Result<(), String> {
        let (shape, at) = super::shape_of(g)?;
        let Some(col) = self.world.colliders.get_mut(collider(c)) else { return Ok(()) };
        let (mass, density) = (col.mass(), col.density());
        col.set_shape(shape);
        col.set_position_wrt_parent(Pose::from_translation(vector(at)));
        if update_mass {
            col.set_density(density);
        } else {
            col.set_mass(mass);
        }
        let parent = col.parent();
        self.remass(parent);
        Ok(())
    }

    fn set_collider_material(
        &mut self,
        c: Handle,
        friction: Option<f32>,
        restitution: Option<f32>,
        density: Option<f32>,
    ) {
        let Some(col) = self.world.colliders.get_mut(collider(c)) else { return };
        if let Some(f) = friction {
            col.set_friction(f);
        }
        if let Some(r) = restitution {
            col.set_restitution(r);
        }
        if let Some(d) = density {
            col.set_density(d);
            let parent = col.parent();
            self.remass(parent);
        }
    }

    fn set_sensor_events(&mut self, c: Handle, on: bool) {
        if let Some(col) = self.world.colliders.get_mut(collider(c)) {
            col.user_data = if on { col.user_data | SENSOR_EVENTS } else { col.user_data & !SENSOR_EVENTS };
        }
    }

    fn add_collider(
        &mut self,
        body: Handle,
        g: &Geom,
        m: Material,
        sensor: bool,
        g2: (u32, u32),
        user: u32,
    ) -> Result<Handle, String> {
        let (shape, at) = super::shape_of(g)?;
        let handle = RigidBodyHandle::from_raw_parts(body.0, body.1);
        if self.world.bodies.get(handle).is_none() {
            return Err("the body was removed".into());
        }
        let b = material(ColliderBuilder::new(shape), m.friction, m.restitution)
            .position(Pose::from_translation(vector(at)))
            .density(m.density)
            .sensor(sensor)
            .collision_groups(groups(g2))
            .user_data(u128::from(user))
            .active_collision_types(
                ActiveCollisionTypes::default()
                    | ActiveCollisionTypes::KINEMATIC_KINEMATIC
                    | ActiveCollisionTypes::KINEMATIC_FIXED,
            );
        let c = raw_collider(self.world.insert_collider(b, Some(handle)));
        self.remass(Some(handle));
        Ok(c)
    }

    fn sensor_overlaps(&self, c: Handle, out: &mut Vec<Handle>) {
        let w = &self.world;
        let h = collider(c);
        if w.colliders.get(h).is_none_or(|col| !col.is_sensor() || col.user_data & SENSOR_EVENTS == 0) {
            return;
        }
        for (h1, h2, hit) in w.narrow_phase.intersection_pairs_with(h) {
            if hit {
                out.push(raw_collider(if h1 == h { h2 } else { h1 }));
            }
        }
    }

    fn overlap_box(&self, lo: glam::Vec3, hi: glam::Vec3, mask: u32, exact: bool, out: &mut Vec<Handle>) {
        let w = &self.world;
        let filter = QueryFilter::default().groups(groups((u32::MAX, mask)));
        let aabb = Aabb::new(vector(lo.min(hi)), vector(lo.max(hi)));
        for h in self.candidates(filter, aabb, exact) {
            // Box2D's AABB query is its broad phase's: the collider's box, not its shape.
            if w.colliders.get(h).is_some_and(|c| c.compute_aabb().intersects(&aabb)) {
                out.push(raw_collider(h));
            }
        }
    }

    fn overlap_geom(&self, g: &Geom, mask: u32, exact: bool, out: &mut Vec<Handle>) -> Result<(), String> {
        let (shape, at) = super::shape_of(g)?;
        let w = &self.world;
        let filter = QueryFilter::default().groups(groups((u32::MAX, mask)));
        let at = Pose::from_translation(vector(at));
        for h in self.candidates(filter, shape.compute_aabb(&at), exact) {
            let Some(c) = w.colliders.get(h) else { continue };
            let hit = super::rapier::parry::query::intersection_test(&at, shape.as_ref(), c.position(), c.shape());
            if hit.is_ok_and(|i| i.intersecting) {
                out.push(raw_collider(h));
            }
        }
        Ok(())
    }

    fn ray_hits(
        &self,
        from: glam::Vec3,
        translation: glam::Vec3,
        mask: u32,
        exact: bool,
        out: &mut Vec<(Handle, glam::Vec3, glam::Vec3, f32)>,
    ) {
        let w = &self.world;
        let filter = QueryFilter::default().exclude_sensors().groups(groups((u32::MAX, mask)));
        // The ray's direction is the whole segment, so a hit's time is its fraction.
        let ray = Ray::new(vector(from), vector(translation));
        let (a, b) = (from, from + translation);
        let aabb = Aabb::new(vector(a.min(b)), vector(a.max(b)));
        for h in self.candidates(filter, aabb, exact) {
            let Some(c) = w.colliders.get(h) else { continue };
            if let Some(i) = c.shape().cast_ray_and_get_normal(c.position(), &ray, 1.0, true) {
                out.push((raw_collider(h), from + translation * i.time_of_impact, vec3(i.normal), i.time_of_impact));
            }
        }
    }

    fn set_gravity_scale(&mut self, body: Handle, g: f32) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_gravity_scale(g, true);
        }
    }

    fn lock_rotation(&mut self, body: Handle, on: bool) {
        if let Some(rb) = self.body_mut(body) {
            rb.lock_rotations(on, true);
        }
    }

    fn set_pose(&mut self, body: Handle, at: Iso) {
        if let Some(rb) = self.body_mut(body) {
            rb.set_position(pose(at), true);
        }
    }

    fn set_awake(&mut self, body: Handle, on: bool) {
        if let Some(rb) = self.body_mut(body) {
            if on {
                rb.wake_up(true);
            } else {
                rb.sleep();
            }
        }
    }

    fn apply_impulse(&mut self, body: Handle, impulse: glam::Vec3, at: glam::Vec3) {
        if let Some(rb) = self.body_mut(body) {
            rb.apply_impulse_at_point(vector(impulse), vector(at), true);
        }
    }

    fn center_of_mass(&self, body: Handle) -> Option<glam::Vec3> {
        self.body(body).map(|rb| vec3(rb.center_of_mass()))
    }

    fn to_local(&self, body: Handle, world: glam::Vec3) -> Option<glam::Vec3> {
        self.body(body).map(|rb| vec3(rb.position().inverse_transform_point(vector(world))))
    }

    fn set_joint_motor_speed(&mut self, joint: Handle, angular: bool, speed: f32) {
        let h = ImpulseJointHandle::from_raw_parts(joint.0, joint.1);
        if let Some(j) = self.world.impulse_joints.get_mut(h, true) {
            let axis = if angular { super::TURN_AXIS } else { JointAxis::LinX };
            j.data.set_motor_velocity(axis, speed, MOTOR_GAIN);
        }
    }

    fn set_joint_anchor1(&mut self, joint: Handle, local: glam::Vec3) {
        let h = ImpulseJointHandle::from_raw_parts(joint.0, joint.1);
        if let Some(j) = self.world.impulse_joints.get_mut(h, true) {
            j.data.set_local_anchor1(vector(local));
        }
    }

    fn joint_state(&self, joint: Handle) -> Option<JointState> {
        let w = &self.world;
        let j = w.impulse_joints.get(ImpulseJointHandle::from_raw_parts(joint.0, joint.1))?;
        let (a, b) = (w.bodies.get(j.body1())?, w.bodies.get(j.body2())?);
        let (f1, f2) = (*a.position() * j.data.local_frame1, *b.position() * j.data.local_frame2);
        let qa = quat(a.position().rotation);
        // The shorter way round: w >= 0 puts the twist's half angle in [-pi/2, pi/2].
        let rel = qa.inverse() * quat(b.position().rotation);
        let rel = if rel.w < 0.0 { -rel } else { rel };
        let (wa, wb) = (angular_vec3(a.angvel()), angular_vec3(b.angvel()));
        let (pa, pb) = (vec3(f1.translation), vec3(f2.translation));
        let axis = vec3(f1.rotation * Vector::X);
        let d = pb - pa;
        // Box2D's prismatic speed: the anchors' relative velocity along the axis, plus the axis
        // turning with the first body.
        let at =
            |rb: &RigidBody, p: glam::Vec3, w: glam::Vec3| vec3(rb.linvel()) + w.cross(p - vec3(rb.center_of_mass()));
        Some(JointState {
            angle: 2.0 * rel.z.atan2(rel.w),
            angular_speed: (wb - wa).dot(qa * glam::Vec3::Z),
            translation: d.dot(axis),
            linear_speed: d.dot(wa.cross(axis)) + axis.dot(at(b, pb, wb) - at(a, pa, wa)),
        })
    }

    fn gravity_scale(&self, body: Handle) -> Option<f32> {
        self.body(body).map(|rb| rb.gravity_scale())
    }

    fn set_joint_softness(&mut self, joint: Handle, hertz: f32, damping_ratio: f32) {
        let h = ImpulseJointHandle::from_raw_parts(joint.0, joint.1);
        if let Some(j) = self.world.impulse_joints.get_mut(h, true) {
            j.data.softness = SpringCoefficients::new(hertz, damping_ratio);
        }
    }
}
