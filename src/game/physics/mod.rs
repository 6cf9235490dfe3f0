//! Collision objects on rapier (engine.md section 3): one rapier world (a [`Space`]) per game
//! world — the main collection and each collection a proxy loaded, as Defold gives every
//! collection its own — stepped on the fixed-update clock at that world's time step;
//! dynamic bodies write their game object's transform, the others follow it. Collision,
//! contact and trigger messages are posted after each step (`events.rs`), ray casts answered
//! from the caller's world (`query.rs`).
mod debug;
mod events;
pub mod joints;
pub mod query;

use crate::base::hash::{Hash, hash_remembered};
use crate::project::physics::{CollisionObjectSpec, CollisionType, MAX_GROUPS, PhysicsSettings, ShapeKind};
use crate::scene::Scene;
use rapier3d::prelude::*;
use std::collections::BTreeSet;

pub use events::post_events;

/// Longest step taken when there is no fixed-update clock: a hitch must not tunnel bodies.
const MAX_VARIABLE_STEP: f32 = 1.0 / 20.0;

/// One collision object component.
pub struct Body {
    /// The game object.
    pub slot: u32,
    /// The component id.
    pub id: Hash,
    pub handle: RigidBodyHandle,
    pub colliders: Vec<ColliderHandle>,
    pub ty: CollisionType,
    /// Index into [`Physics::groups`].
    pub group: u32,
    /// One bit per group this object collides with.
    pub mask: u32,
    pub enabled: bool,
    pub alive: bool,
    /// Index into [`Physics::spaces`]: the world of its game object.
    pub space: u32,
    /// `physics.set_hflip` / `set_vflip`: the shapes mirrored across the object's y / x axis.
    pub flip: [bool; 2],
    /// Kept so a change of `physics.scale` can rebuild the body.
    spec: Box<CollisionObjectSpec>,
}

/// The simulation of one game world. Objects of different worlds never meet, a world's
/// gravity is its own (`physics.set_gravity` changes the caller's, as in Defold), and each
/// steps on its own clock, so a proxy's `set_time_step` slows or pauses its bodies too.
pub struct Space {
    /// The scene socket of its objects (0: the main world).
    pub socket: Hash,
    pub world: PhysicsWorld,
    /// Whole steps of the fixed-update frequency; without one, a step per frame.
    clock: crate::game::input::FixedClock,
    /// Object pairs overlapping a trigger after the last step (lower index first).
    pub(crate) overlaps: BTreeSet<(u32, u32)>,
    /// Bodies were added, removed or regrouped since the broad phase last ran: queries made
    /// before the next step (a ray cast in `init`) test every collider instead.
    pub(crate) dirty: bool,
    /// Live bodies in it: a world with none is not stepped.
    live: u32,
}

impl Space {
    fn new(socket: Hash, settings: &PhysicsSettings, fixed_frequency: f32) -> Space {
        let mut world = PhysicsWorld::new();
        world.gravity = gravity_of(settings);
        Space {
            socket,
            world,
            clock: crate::game::input::FixedClock::new(fixed_frequency),
            overlaps: BTreeSet::new(),
            dirty: false,
            live: 0,
        }
    }
}

fn gravity_of(settings: &PhysicsSettings) -> Vector {
    let g = settings.gravity;
    vec3(if settings.two_d { [g[0], g[1], 0.0] } else { g })
}

/// What the scripts' `physics` calls and the collision object properties change.
pub struct Physics {
    pub settings: PhysicsSettings,
    /// The worlds, in the order their first body was made (the main world's first but for a
    /// game whose main collection has no collision object).
    pub spaces: Vec<Space>,
    fixed_frequency: f32,
    pub bodies: Vec<Body>,
    free: Vec<u32>,
    /// Group names (hashed) in the order first met: a group's bit is its index.
    pub groups: Vec<Hash>,
    /// `physics.raycast_async` requests, answered after the next step.
    pub rays: Vec<query::RayRequest>,
    /// Rays cast since the last debug frame, for the debug view.
    pub debug_rays: Vec<([f32; 3], [f32; 3])>,
    /// Steps taken since the start, in every world, for `--stats` and tests.
    pub steps: u64,
    /// Bodies given an `apply_force` since the last step: rapier keeps a force until it is
    /// reset, Defold applies it for one step.
    forced: Vec<u32>,
    /// `physics.create_joint` joints.
    pub joints: Vec<joints::Joint>,
}

impl Default for Physics {
    fn default() -> Self {
        Physics {
            settings: PhysicsSettings::default(),
            spaces: Vec::new(),
            fixed_frequency: 60.0,
            bodies: Vec::new(),
            free: Vec::new(),
            groups: Vec::new(),
            rays: Vec::new(),
            debug_rays: Vec::new(),
            steps: 0,
            forced: Vec::new(),
            joints: Vec::new(),
        }
    }
}

pub(crate) fn vec3(v: [f32; 3]) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

pub(crate) fn arr3(v: Vector) -> [f32; 3] {
    [v.x, v.y, v.z]
}

fn quat(q: glam::Quat) -> Rotation {
    Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

/// A shape's local pose with the body's flips: mirroring across the y axis negates x and turns
/// the rotation the other way about y and z (`M·R·M` for the mirror `M`); across x likewise.
fn mirrored(mut t: glam::Vec3, mut r: glam::Quat, flip: [bool; 2]) -> Pose {
    if flip[0] {
        t.x = -t.x;
        r = glam::Quat::from_xyzw(r.x, -r.y, -r.z, r.w);
    }
    if flip[1] {
        t.y = -t.y;
        r = glam::Quat::from_xyzw(-r.x, r.y, -r.z, r.w);
    }
    Pose::from_parts(vec3(t.to_array()), quat(r))
}

impl Physics {
    /// The project's settings and fixed-update frequency; bodies made before (at spawn) are
    /// rebuilt when the scale or dimension changed, so every body is in the units and plane
    /// the world steps in.
    pub fn configure(&mut self, settings: PhysicsSettings, fixed_frequency: f32, scene: &mut Scene) {
        let rescale = settings.scale != self.settings.scale || settings.two_d != self.settings.two_d;
        self.settings = settings;
        self.fixed_frequency = fixed_frequency;
        for sp in &mut self.spaces {
            sp.world.gravity = gravity_of(&settings);
            sp.clock = crate::game::input::FixedClock::new(fixed_frequency);
        }
        if rescale {
            for i in 0..self.bodies.len() as u32 {
                if self.bodies[i as usize].alive {
                    let spec = self.bodies[i as usize].spec.clone();
                    self.drop_rapier(i);
                    self.build(i, &spec, scene);
                }
            }
        }
    }

    /// The bit of a group, given it one if it is new; None past [`MAX_GROUPS`].
    pub fn group_bit(&mut self, group: Hash) -> Option<u32> {
        if let Some(i) = self.groups.iter().position(|&g| g == group) {
            return Some(i as u32);
        }
        if self.groups.len() >= MAX_GROUPS {
            return None;
        }
        self.groups.push(group);
        Some(self.groups.len() as u32 - 1)
    }

    /// The space of the world whose objects have scene socket `socket`, if it has one.
    pub fn space_of_socket(&self, socket: Hash) -> Option<u32> {
        self.spaces.iter().position(|s| s.socket == socket).map(|k| k as u32)
    }

    /// The space of `socket`'s world, made on its first body.
    fn space_for(&mut self, socket: Hash) -> u32 {
        if let Some(k) = self.space_of_socket(socket) {
            return k;
        }
        self.spaces.push(Space::new(socket, &self.settings, self.fixed_frequency));
        self.spaces.len() as u32 - 1
    }

    /// The gravity of `socket`'s world, in world units.
    pub fn gravity(&self, socket: Hash) -> [f32; 3] {
        let g =
            self.space_of_socket(socket).map_or(gravity_of(&self.settings), |k| self.spaces[k as usize].world.gravity);
        arr3(g)
    }

    /// `physics.set_gravity`: the caller's world only, as in Defold.
    pub fn set_gravity(&mut self, socket: Hash, g: [f32; 3]) {
        let k = self.space_for(socket) as usize;
        let world = &mut self.spaces[k].world;
        world.gravity = vec3(g);
        world.wake_up_all(true);
    }

    /// The rapier world body `i` lives in.
    pub fn world_of(&self, i: u32) -> Option<&PhysicsWorld> {
        Some(&self.spaces.get(self.get(i)?.space as usize)?.world)
    }

    fn world_of_mut(&mut self, i: u32) -> Option<&mut PhysicsWorld> {
        let k = self.get(i)?.space as usize;
        Some(&mut self.spaces.get_mut(k)?.world)
    }

    /// A collision object for `slot`'s game object; an error names what did not fit.
    pub fn create(
        &mut self,
        slot: u32,
        id: &str,
        spec: &CollisionObjectSpec,
        scene: &mut Scene,
    ) -> Result<u32, String> {
        let group = self
            .group_bit(hash_remembered(&spec.group))
            .ok_or_else(|| format!("collision object '{id}': more than {MAX_GROUPS} collision groups"))?;
        let mut mask = 0;
        for g in &spec.mask {
            let bit = self
                .group_bit(hash_remembered(g))
                .ok_or_else(|| format!("collision object '{id}': more than {MAX_GROUPS} collision groups"))?;
            mask |= 1 << bit;
        }
        let space = self.space_for(scene.socket.get(slot as usize).copied().unwrap_or(0));
        let body = Body {
            slot,
            id: hash_remembered(id),
            handle: RigidBodyHandle::invalid(),
            colliders: Vec::new(),
            ty: spec.collision_type,
            group,
            mask,
            enabled: true,
            alive: true,
            space,
            flip: [false; 2],
            spec: Box::new(spec.clone()),
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.bodies[i as usize] = body;
                i
            }
            None => {
                self.bodies.push(body);
                self.bodies.len() as u32 - 1
            }
        };
        self.spaces[space as usize].live += 1;
        self.build(i, spec, scene);
        Ok(i)
    }

    /// The game object's world position and rotation in physics units. In 2D the world is
    /// the plane z = 0 and bodies turn about z only: z only orders what is drawn, as in Box2D
    /// projects, so objects at different depths still meet.
    fn object_pose(&self, slot: u32, scene: &mut Scene) -> Pose {
        scene.update_world_transform_of(slot);
        let (_, r, t) = scene.world_of(slot).to_scale_rotation_translation();
        let mut t = t * self.settings.scale;
        let mut r = r.normalize();
        if self.settings.two_d {
            t.z = 0.0;
            r = twist_z(r);
        }
        Pose::from_parts(vec3(t.to_array()), quat(r))
    }

    fn build(&mut self, i: u32, spec: &CollisionObjectSpec, scene: &mut Scene) {
        let slot = self.bodies[i as usize].slot;
        let pose = self.object_pose(slot, scene);
        let builder = match spec.collision_type {
            CollisionType::Dynamic => RigidBodyBuilder::dynamic(),
            CollisionType::Kinematic | CollisionType::Trigger => RigidBodyBuilder::kinematic_position_based(),
            CollisionType::Static => RigidBodyBuilder::fixed(),
        };
        let mut builder = builder
            .pose(pose)
            .linear_damping(spec.linear_damping)
            .angular_damping(spec.angular_damping)
            .ccd_enabled(spec.bullet)
            .user_data(i as u128);
        if spec.locked_rotation {
            builder = builder.lock_rotations();
        }
        if self.settings.two_d {
            builder = builder.enabled_translations(true, true, false).enabled_rotations(false, false, true);
        }
        let k = self.bodies[i as usize].space as usize;
        let handle = self.spaces[k].world.insert_body(builder);
        let colliders = self.attach_colliders(i, spec, handle);
        self.spaces[k].dirty = true;
        let body = &mut self.bodies[i as usize];
        body.handle = handle;
        body.colliders = colliders;
        if !body.enabled
            && let Some(rb) = self.spaces[k].world.bodies.get_mut(handle)
        {
            rb.set_enabled(false);
        }
    }

    /// The colliders of body `i`'s shapes, attached to `handle`, mirrored as its flips say.
    fn attach_colliders(&mut self, i: u32, spec: &CollisionObjectSpec, handle: RigidBodyHandle) -> Vec<ColliderHandle> {
        let s = self.settings.scale;
        let flip = self.bodies[i as usize].flip;
        let total: f32 = spec.shapes.iter().map(|sh| volume(&sh.kind, s)).sum::<f32>().max(f32::MIN_POSITIVE);
        let (group, mask, k) =
            (self.bodies[i as usize].group, self.bodies[i as usize].mask, self.bodies[i as usize].space);
        let groups = InteractionGroups::new(
            Group::from_bits_truncate(1 << group),
            Group::from_bits_truncate(mask),
            InteractionTestMode::And,
        );
        let mut colliders = Vec::with_capacity(spec.shapes.len());
        for sh in &spec.shapes {
            let b = match &sh.kind {
                ShapeKind::Sphere { radius } => ColliderBuilder::ball(radius * s),
                ShapeKind::Box { half } => ColliderBuilder::cuboid(half[0] * s, half[1] * s, half[2] * s),
                ShapeKind::Capsule { radius, height } => ColliderBuilder::capsule_y(height * 0.5 * s, radius * s),
                ShapeKind::Hull { points } => {
                    // Mirrored in the shape's own frame as its place is (see `mirrored`).
                    let (fx, fy) = (if flip[0] { -1.0 } else { 1.0 }, if flip[1] { -1.0 } else { 1.0 });
                    let pts: Vec<Vector> =
                        points.iter().map(|p| Vector::new(p[0] * s * fx, p[1] * s * fy, p[2] * s)).collect();
                    match ColliderBuilder::convex_hull(&pts) {
                        Some(b) => b,
                        None => {
                            // Checked sizes cannot all be caught at load (collinear points):
                            // the shape is left out, the object keeps its others.
                            log::error!(
                                "collision object: a hull shape's points span no volume; the shape is left out"
                            );
                            continue;
                        }
                    }
                }
            };
            let local = mirrored(glam::Vec3::from(sh.position) * s, glam::Quat::from_array(sh.rotation), flip);
            let mut b = b
                .position(local)
                .friction(spec.friction)
                .restitution(spec.restitution)
                .collision_groups(groups)
                .user_data(i as u128)
                .active_collision_types(
                    ActiveCollisionTypes::default()
                        | ActiveCollisionTypes::KINEMATIC_KINEMATIC
                        | ActiveCollisionTypes::KINEMATIC_FIXED,
                );
            // The object's mass is spread over its shapes by volume, as Defold's Bullet does.
            if spec.collision_type == CollisionType::Dynamic {
                b = b.mass(spec.mass * volume(&sh.kind, s) / total);
            }
            if spec.collision_type == CollisionType::Trigger {
                b = b.sensor(true);
            }
            colliders.push(self.spaces[k as usize].world.insert_collider(b, Some(handle)));
        }
        colliders
    }

    /// `physics.set_hflip` (`axis` 0) / `set_vflip` (1): the shapes are rebuilt mirrored, the
    /// body keeps its pose and velocities. Only a 2D world flips, as only Defold's Box2D does.
    pub fn set_flip(&mut self, i: u32, axis: usize, on: bool) -> Result<(), String> {
        if !self.settings.two_d {
            return Err("flipping shapes needs a 2D physics world (physics.type 2D)".into());
        }
        let Some(b) = self.bodies.get_mut(i as usize).filter(|b| b.alive) else { return Ok(()) };
        if b.flip[axis] == on {
            return Ok(());
        }
        b.flip[axis] = on;
        let (handle, spec, old, k) = (b.handle, b.spec.clone(), std::mem::take(&mut b.colliders), b.space as usize);
        let sp = &mut self.spaces[k];
        for h in old {
            sp.world.remove_collider(h);
        }
        sp.dirty = true;
        let colliders = self.attach_colliders(i, &spec, handle);
        self.bodies[i as usize].colliders = colliders;
        Ok(())
    }

    fn drop_rapier(&mut self, i: u32) {
        let (handle, k) = (self.bodies[i as usize].handle, self.bodies[i as usize].space as usize);
        let sp = &mut self.spaces[k];
        if sp.world.bodies.get(handle).is_some() {
            sp.world.remove_body_with_colliders(handle, true);
        }
        sp.dirty = true;
        self.bodies[i as usize].colliders.clear();
    }

    /// Forgets a collision object of a deleted game object (trigger pairs it was in end
    /// without an exit message, as the object is gone).
    pub fn remove(&mut self, i: u32) {
        if self.get(i).is_none() {
            return;
        }
        self.drop_rapier(i);
        self.forget_joints(i);
        let sp = &mut self.spaces[self.bodies[i as usize].space as usize];
        sp.overlaps.retain(|&(a, b)| a != i && b != i);
        sp.live -= 1;
        self.bodies[i as usize].alive = false;
        self.free.push(i);
    }

    pub fn get(&self, i: u32) -> Option<&Body> {
        self.bodies.get(i as usize).filter(|b| b.alive)
    }

    pub fn rigid_body(&self, i: u32) -> Option<&RigidBody> {
        self.world_of(i)?.bodies.get(self.get(i)?.handle)
    }

    pub fn rigid_body_mut(&mut self, i: u32) -> Option<&mut RigidBody> {
        let h = self.get(i)?.handle;
        self.world_of_mut(i)?.bodies.get_mut(h)
    }

    /// `enable` / `disable`: a disabled object leaves the simulation and its queries; enabled
    /// again, it starts where its game object is now.
    pub fn set_enabled(&mut self, i: u32, on: bool, scene: &mut Scene) {
        let Some(b) = self.get(i) else { return };
        if b.enabled == on {
            return;
        }
        let slot = b.slot;
        let pose = self.object_pose(slot, scene);
        self.bodies[i as usize].enabled = on;
        let sp = &mut self.spaces[self.bodies[i as usize].space as usize];
        sp.dirty = true;
        if !on {
            sp.overlaps.retain(|&(a, b)| a != i && b != i);
        }
        if let Some(rb) = self.rigid_body_mut(i) {
            rb.set_enabled(on);
            if on {
                rb.set_position(pose, true);
                rb.set_linvel(Vector::ZERO, true);
                rb.set_angvel(AngVector::ZERO, true);
            }
        }
    }

    /// Changes the group of an object (`physics.set_group`); false past [`MAX_GROUPS`].
    pub fn set_group(&mut self, i: u32, group: Hash) -> bool {
        let Some(bit) = self.group_bit(group) else { return false };
        if let Some(b) = self.bodies.get_mut(i as usize).filter(|b| b.alive) {
            b.group = bit;
        }
        self.apply_groups(i);
        true
    }

    /// Sets or clears one group in an object's mask (`physics.set_maskbit`).
    pub fn set_mask_bit(&mut self, i: u32, group: Hash, on: bool) -> bool {
        let Some(bit) = self.group_bit(group) else { return false };
        if let Some(b) = self.bodies.get_mut(i as usize).filter(|b| b.alive) {
            if on {
                b.mask |= 1 << bit;
            } else {
                b.mask &= !(1 << bit);
            }
        }
        self.apply_groups(i);
        true
    }

    fn apply_groups(&mut self, i: u32) {
        let Some(b) = self.get(i) else { return };
        let k = b.space as usize;
        let groups = InteractionGroups::new(
            Group::from_bits_truncate(1 << b.group),
            Group::from_bits_truncate(b.mask),
            InteractionTestMode::And,
        );
        let colliders = b.colliders.clone();
        let sp = &mut self.spaces[k];
        sp.dirty = true;
        for h in colliders {
            if let Some(c) = sp.world.colliders.get_mut(h) {
                c.set_collision_groups(groups);
            }
        }
    }

    /// A world unloaded: the next load of it starts from a new simulation (its gravity the
    /// project's again). Its bodies were removed with its objects.
    pub fn forget_world(&mut self, socket: Hash) {
        if socket == 0 {
            return;
        }
        if let Some(k) = self.space_of_socket(socket) {
            let sp = &mut self.spaces[k as usize];
            if sp.live == 0 {
                *sp = Space::new(socket, &self.settings, self.fixed_frequency);
            }
        }
    }

    /// Steps to take for a frame of `dt` seconds, and the length of each.
    fn steps_for(&mut self, k: usize, dt: f32) -> (u32, f32) {
        let clock = &mut self.spaces[k].clock;
        if clock.step > 0.0 {
            (clock.advance(dt), clock.step as f32)
        } else if dt > 0.0 {
            (1, dt.min(MAX_VARIABLE_STEP))
        } else {
            (0, 0.0)
        }
    }

    /// Advances every world by its share of the frame: `time_of(socket)` is the world's time
    /// factor (negative: the world is not running and does not step).
    pub fn advance_all(
        &mut self,
        scene: &mut Scene,
        dt: f32,
        time_of: &dyn Fn(Hash) -> f32,
        after_step: &mut dyn FnMut(&mut Physics, u32, &mut Scene),
    ) -> u32 {
        let mut steps = 0;
        for k in 0..self.spaces.len() {
            let f = time_of(self.spaces[k].socket);
            if f >= 0.0 {
                steps += self.advance(k as u32, scene, dt * f, after_step);
            }
        }
        steps
    }

    /// Moves space `k`'s kinematic, static and trigger bodies to their game objects, steps,
    /// and writes the dynamic bodies' poses back; returns the number of steps taken.
    /// `after_step` runs after each step (the contact and trigger messages of that step).
    pub fn advance(
        &mut self,
        k: u32,
        scene: &mut Scene,
        dt: f32,
        after_step: &mut dyn FnMut(&mut Physics, u32, &mut Scene),
    ) -> u32 {
        let ku = k as usize;
        if self.spaces.get(ku).is_none_or(|sp| sp.live == 0) {
            return 0;
        }
        let (steps, step) = self.steps_for(ku, dt);
        self.spaces[ku].world.integration_parameters.dt = step;
        for _ in 0..steps {
            self.follow_objects(k, scene);
            self.spaces[ku].world.step();
            self.steps += 1;
            self.spaces[ku].dirty = false;
            let forced = std::mem::take(&mut self.forced);
            for &i in &forced {
                if self.get(i).is_some_and(|b| b.space == k)
                    && let Some(rb) = self.rigid_body_mut(i)
                {
                    rb.reset_forces(false);
                }
            }
            self.forced = forced.into_iter().filter(|&i| self.get(i).is_some_and(|b| b.space != k)).collect();
            self.write_objects(k, scene);
            after_step(self, k, scene);
        }
        steps
    }

    fn follow_objects(&mut self, k: u32, scene: &mut Scene) {
        for i in 0..self.bodies.len() {
            let b = &self.bodies[i];
            if !b.alive || !b.enabled || b.space != k || b.ty == CollisionType::Dynamic || !scene.is_live(b.slot) {
                continue;
            }
            let (slot, handle, ty) = (b.slot, b.handle, b.ty);
            let pose = self.object_pose(slot, scene);
            let Some(rb) = self.spaces[k as usize].world.bodies.get_mut(handle) else { continue };
            if ty == CollisionType::Static {
                if *rb.position() != pose {
                    rb.set_position(pose, true);
                }
            } else {
                // Placed before the step, as Defold sets a kinematic body's transform: the
                // step's contacts and trigger overlaps are found at the pose of this frame
                // (a hitbox on a bone enters a trigger at the frame its pose reaches it). Its
                // target one more move on gives it the velocity it moves at, so what it pushes
                // is pushed at that speed; the next step places it again.
                let old = *rb.position();
                let turn = pose.rotation * old.rotation.inverse();
                let ahead =
                    Pose::from_parts(pose.translation * 2.0 - old.translation, (turn * pose.rotation).normalize());
                rb.set_position(pose, true);
                rb.set_next_kinematic_position(ahead);
            }
        }
    }

    fn write_objects(&mut self, k: u32, scene: &mut Scene) {
        let inv = 1.0 / self.settings.scale;
        let world = &self.spaces[k as usize].world;
        for b in &self.bodies {
            if !b.alive || !b.enabled || b.space != k || b.ty != CollisionType::Dynamic || !scene.is_live(b.slot) {
                continue;
            }
            let Some(rb) = world.bodies.get(b.handle) else { continue };
            if rb.is_sleeping() {
                continue;
            }
            let p = rb.position();
            let mut t = glam::Vec3::from(arr3(p.translation)) * inv;
            let r = glam::Quat::from_xyzw(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w);
            if self.settings.two_d {
                // The body lives at z = 0; the object keeps its own depth.
                t.z = scene.world_of(b.slot).translation.z;
            }
            if !t.is_finite() || !r.is_finite() {
                continue;
            }
            let s = b.slot as usize;
            let parent = scene.parent[s];
            let (t, r) = if parent == crate::scene::NONE {
                (t, r)
            } else {
                let (_, pr, pt) = scene.world_of(parent).to_scale_rotation_translation();
                let pinv = pr.inverse();
                (pinv * (t - pt), pinv * r)
            };
            scene.settle_for_write(b.slot);
            scene.position[s] = t;
            scene.rotation[s] = r.normalize();
            scene.update_world_transform_of(b.slot);
        }
    }

    /// The body's mass in kg (0 for bodies the simulation does not move).
    pub fn mass(&self, i: u32) -> Option<f32> {
        let b = self.get(i)?;
        Some(if b.ty == CollisionType::Dynamic { self.rigid_body(i)?.mass() } else { 0.0 })
    }
}

/// The part of a rotation about z (its swing away from z dropped).
fn twist_z(r: glam::Quat) -> glam::Quat {
    let t = glam::Quat::from_xyzw(0.0, 0.0, r.z, r.w);
    if t.length_squared() < 1e-12 { glam::Quat::IDENTITY } else { t.normalize() }
}

/// A shape's volume in physics units (for spreading an object's mass over its shapes; a hull's
/// is its bounding box's).
fn volume(k: &ShapeKind, s: f32) -> f32 {
    use std::f32::consts::PI;
    match *k {
        ShapeKind::Sphere { radius } => 4.0 / 3.0 * PI * (radius * s).powi(3),
        ShapeKind::Box { half } => 8.0 * half[0] * half[1] * half[2] * s * s * s,
        ShapeKind::Hull { ref points } => {
            let (mut lo, mut hi) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
            for p in points.iter() {
                lo = lo.min(glam::Vec3::from(*p));
                hi = hi.max(glam::Vec3::from(*p));
            }
            let e = (hi - lo).max(glam::Vec3::ZERO) * s;
            e.x * e.y * e.z
        }
        ShapeKind::Capsule { radius, height } => {
            let r = radius * s;
            PI * r * r * (height * s) + 4.0 / 3.0 * PI * r.powi(3)
        }
    }
}

/// Steps the worlds for this frame, each at its time step, and posts the messages of each step.
pub fn update(world: &std::cell::RefCell<crate::game::World>, dt: f32) {
    let w = &mut *world.borrow_mut();
    let crate::game::World { physics, scene, messages, socket, render, proxies, .. } = w;
    let socket = *socket;
    let time_of = |s: Hash| proxies.world_factor(s);
    physics.advance_all(scene, dt, &time_of, &mut |p, k, scene| post_events(p, k, scene, messages, socket));
    query::answer_async(physics, scene, messages, socket);
    if physics.settings.debug {
        debug::draw(physics, render);
    }
}

/// `enable`, `disable` and `apply_force`, hashed once: contact messages pass here by thousands.
fn message_ids() -> (Hash, Hash, Hash) {
    use crate::base::hash::hash_str;
    static IDS: std::sync::OnceLock<(Hash, Hash, Hash)> = std::sync::OnceLock::new();
    *IDS.get_or_init(|| (hash_str("enable"), hash_str("disable"), hash_str("apply_force")))
}

/// Whether a collision object acts on message `id` (dispatch runs the scripts' earlier messages
/// first when it does).
pub fn is_message(id: Hash) -> bool {
    let (enable, disable, apply_force) = message_ids();
    id == enable || id == disable || id == apply_force
}

/// Messages to a collision object component: `enable`, `disable`, `apply_force`.
pub fn component_message(w: &mut crate::game::World, i: u32, m: &crate::scene::Message) {
    use crate::scene::message::{MsgValue, decode};
    let crate::game::World { physics, scene, .. } = w;
    let (enable, disable, apply_force) = message_ids();
    if m.id == enable || m.id == disable {
        return physics.set_enabled(i, m.id == enable, scene);
    }
    if m.id != apply_force {
        return;
    }
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => return log::error!("apply_force: {e}"),
    };
    let (Some(MsgValue::Vector3(force)), Some(MsgValue::Vector3(at))) = (data.get("force"), data.get("position"))
    else {
        return log::error!("apply_force needs vector3 `force` and `position`");
    };
    if !force.iter().chain(at).all(|v| v.is_finite()) {
        return log::error!("apply_force: force and position must be finite");
    }
    let s = physics.settings.scale;
    let dynamic = physics.get(i).is_some_and(|b| b.ty == CollisionType::Dynamic && b.enabled);
    if let (true, Some(rb)) = (dynamic, physics.rigid_body_mut(i)) {
        let p = vec3((glam::Vec3::from(*at) * s).to_array());
        rb.add_force_at_point(vec3((glam::Vec3::from(*force) * s).to_array()), p, true);
        physics.forced.push(i);
    }
}
