//! Collision objects on rapier (engine.md section 3): one rapier world (a [`Space`]) per game
//! world — the main collection and each collection a proxy loaded, as Defold gives every
//! collection its own — stepped on the fixed-update clock at that world's time step;
//! dynamic bodies write their game object's transform, the others follow it. Collision,
//! contact and trigger messages are posted after each step (`events.rs`), ray casts answered
//! from the caller's world (`query.rs`).
pub mod b2d;
mod debug;
mod dim2;
mod dim3;
mod events;
pub mod joints;
pub mod query;
pub mod shapes;
pub mod simulation;

use crate::base::hash::{Hash, hash_remembered};
use crate::project::physics::{CollisionObjectSpec, CollisionType, MAX_GROUPS, PhysicsSettings};
use crate::scene::Scene;
use simulation::{BodyDesc, CollidersDesc, Handle, Iso, Simulation};
use std::collections::BTreeSet;

pub use events::post_events;

/// The range of game object scales shapes follow: beyond it (a zero or absurd scale) the shapes
/// keep a usable size rather than vanish or swallow the world.
const MIN_SHAPE_SCALE: f32 = 1e-4;
const MAX_SHAPE_SCALE: f32 = 1e4;

/// Longest step taken when there is no fixed-update clock: a hitch must not tunnel bodies.
const MAX_VARIABLE_STEP: f32 = 1.0 / 20.0;

/// One collision object component.
pub struct Body {
    /// The game object.
    pub slot: u32,
    /// The component id.
    pub id: Hash,
    pub handle: Handle,
    pub colliders: Vec<Handle>,
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
    /// The group bit of each of its tile map's collision groups (`spec.tiles`).
    tile_bits: Vec<u32>,
    /// Tells a `b2d` handle to this object from one to a later object in the same place.
    pub serial: u32,
    /// The game object's world scale its shapes are made at (Defold: the smallest axis's, as
    /// shapes scale uniformly); followed each step.
    shape_scale: f32,
    /// The game object's local scale when `shape_scale` was taken: a dynamic body looks at its
    /// world scale again only when this changes (its world transform is the body's own).
    seen_scale: glam::Vec3,
    /// A dynamic body's object's local position and rotation as the body last wrote them (or
    /// as they were when it was made): anything else there was put by a script, and moves
    /// the body (Defold's `allow_dynamic_transforms`). Comparing with these costs two reads
    /// a body a step, where reading every world transform measurably slowed large piles.
    written: (glam::Vec3, glam::Quat),
}

/// The simulation of one game world. Objects of different worlds never meet, a world's
/// gravity is its own (`physics.set_gravity` changes the caller's, as in Defold), and each
/// steps on its own clock, so a proxy's `set_time_step` slows or pauses its bodies too.
pub struct Space {
    /// The scene socket of its objects (0: the main world).
    pub socket: Hash,
    pub world: Box<dyn Simulation>,
    /// Whole steps of the fixed-update frequency; without one, a step per frame.
    clock: crate::game::input::FixedClock,
    /// Object pairs overlapping a trigger after the last step (lower index first).
    pub(crate) overlaps: BTreeSet<(u32, u32)>,
    /// Bodies were added, removed or regrouped since the broad phase last ran: queries made
    /// before the next step (a ray cast in `init`) test every collider instead.
    pub(crate) dirty: bool,
    /// Live bodies in it: a world with none is not stepped.
    live: u32,
    /// `physics.set_event_listener`: while set, the world's contacts, triggers and ray cast
    /// answers go to it as events instead of messages, as in Defold.
    pub listener: Option<crate::game::ScriptCallback>,
    /// Events for the listener since it was last called.
    pub(crate) events: Vec<crate::scene::message::MsgValue>,
    /// `b2d.world.set_joint_tuning`: the softness of its `b2d` joints (Hz, damping ratio).
    pub joint_tuning: (f32, f32),
}

impl Space {
    fn new(socket: Hash, settings: &PhysicsSettings, fixed_frequency: f32) -> Space {
        Space {
            socket,
            world: new_world(settings),
            clock: clock_for(settings, fixed_frequency),
            overlaps: BTreeSet::new(),
            dirty: false,
            live: 0,
            listener: None,
            events: Vec::new(),
            joint_tuning: b2d::JOINT_TUNING,
        }
    }
}

/// A world's step clock: whole steps of the fixed-update frequency, or none (a step a frame by
/// the frame's time) when the project does not step physics at a fixed rate.
fn clock_for(settings: &PhysicsSettings, fixed_frequency: f32) -> crate::game::input::FixedClock {
    use crate::game::input::{FixedClock, fixed::MAX_STEPS};
    let frequency = if settings.fixed_timestep { fixed_frequency } else { 0.0 };
    FixedClock::with_max_steps(frequency, settings.max_fixed_steps.unwrap_or(MAX_STEPS))
}

fn new_world(settings: &PhysicsSettings) -> Box<dyn simulation::Simulation> {
    let mut world = simulation::new_world(settings.two_d, gravity_of(settings));
    world.set_restitution_threshold(restitution_threshold(settings));
    world
}

/// The speed below which a 2D contact does not bounce, in physics units a second: Box2D 2.2's
/// fixed `b2_velocityThreshold` of 1 (Defold's default 2D engine, which ignores game.project's
/// `velocity_threshold`), or that setting times the physics scale when the project gives it
/// (Defold's Box2D 3 path; Defold's own physics/interpolation example sets 50 at scale 0.02,
/// the same 1).
fn restitution_threshold(settings: &PhysicsSettings) -> f32 {
    if !settings.two_d {
        return 0.0;
    }
    settings.velocity_threshold.map_or(1.0, |v| v * settings.scale)
}

/// The project's gravity in physics units: it is written in world units per second squared and
/// scaled like every length, as Defold's Box2D and Bullet contexts do (its 2D examples give
/// -900 at scale 0.01: 9 m/s², a fall of 900 pixels a second squared).
fn gravity_of(settings: &PhysicsSettings) -> glam::Vec3 {
    let g = settings.gravity;
    glam::Vec3::from(if settings.two_d { [g[0], g[1], 0.0] } else { g }) * settings.scale
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
    /// `b2d.joint.create_*` joints (None: destroyed, the place free).
    pub b2d_joints: Vec<Option<b2d::Joint>>,
    /// The last serial given to a body or a `b2d` joint.
    b2d_serial: u32,
    /// The project's settings are in (a collection's first objects are made before).
    configured: bool,
    /// `post_events`' buffers, kept between steps.
    scratch: events::Scratch,
}

/// Body `b`'s tile map shape, when it is the map `source` of game object `slot`.
fn map_shape<'a>(b: &'a Body, slot: u32, source: &str) -> Option<&'a crate::project::physics::TileCollision> {
    b.spec.tiles.as_deref().filter(|t| b.alive && b.slot == slot && t.source == source)
}

/// Why a tile map's collision object has no shapes in a 3D world.
fn tiles_need_2d(id: &str) -> String {
    format!("collision object '{id}': a tile map collides only in a 2D world (set [physics] type = 2D), as in Defold")
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
            b2d_joints: Vec::new(),
            b2d_serial: 0,
            configured: false,
            scratch: events::Scratch::default(),
        }
    }
}

impl Physics {
    /// `msg.post("@system:", "toggle_physics_debug")`: the debug view (`physics.debug`) on or
    /// off from this frame's step.
    pub fn toggle_debug(&mut self) {
        self.settings.debug = !self.settings.debug;
        self.debug_rays.clear();
    }

    /// The project's settings and fixed-update frequency; bodies made before (at spawn) are
    /// rebuilt when the scale or dimension changed, so every body is in the units and plane
    /// the world steps in.
    pub fn configure(&mut self, settings: PhysicsSettings, fixed_frequency: f32, scene: &mut Scene) {
        let rescale = settings.scale != self.settings.scale || settings.two_d != self.settings.two_d;
        let redim = settings.two_d != self.settings.two_d;
        self.settings = settings;
        self.fixed_frequency = fixed_frequency;
        for sp in &mut self.spaces {
            if redim {
                // A world of the other dimension: its bodies are made again below.
                sp.world = new_world(&settings);
            }
            sp.world.set_gravity(gravity_of(&settings));
            sp.world.set_restitution_threshold(restitution_threshold(&settings));
            sp.clock = clock_for(&settings, fixed_frequency);
        }
        if redim {
            for b in &mut self.bodies {
                b.handle = Handle::INVALID;
                b.colliders.clear();
            }
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
        self.configured = true;
        if !settings.two_d {
            for b in self.bodies.iter().filter(|b| b.alive && b.spec.tiles.is_some()) {
                log::error!("{}", tiles_need_2d(crate::base::hash::name_of(b.id).as_str()));
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

    /// `physics.set_event_listener` of a script in `socket`'s world (None: messages again).
    pub fn set_listener(&mut self, socket: Hash, listener: Option<crate::game::ScriptCallback>) {
        let k = self.space_for(socket) as usize;
        let sp = &mut self.spaces[k];
        sp.listener = listener;
        sp.events.clear();
    }

    /// The callback ids the worlds' listeners hold (the Lua side keeps those closures).
    pub fn extend_live_callbacks(&self, out: &mut Vec<u32>) {
        out.extend(self.spaces.iter().filter_map(|sp| sp.listener.map(|l| l.callback)));
    }

    /// The gravity of `socket`'s world, in world units.
    pub fn gravity(&self, socket: Hash) -> [f32; 3] {
        let g = self
            .space_of_socket(socket)
            .map_or(gravity_of(&self.settings), |k| self.spaces[k as usize].world.gravity());
        (g / self.settings.scale).to_array()
    }

    /// `physics.set_gravity`: the caller's world only, as in Defold.
    pub fn set_gravity(&mut self, socket: Hash, g: [f32; 3]) {
        let k = self.space_for(socket) as usize;
        self.spaces[k].world.set_gravity(glam::Vec3::from(g) * self.settings.scale);
    }

    /// The world body `i` lives in, and its body there.
    pub fn world_of(&self, i: u32) -> Option<(&dyn Simulation, Handle)> {
        let b = self.get(i)?;
        Some((&*self.spaces.get(b.space as usize)?.world, b.handle))
    }

    pub fn world_of_mut(&mut self, i: u32) -> Option<(&mut dyn Simulation, Handle)> {
        let (k, h) = self.get(i).map(|b| (b.space as usize, b.handle))?;
        Some((&mut *self.spaces.get_mut(k)?.world, h))
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
        let mut tile_bits = Vec::new();
        if let Some(tiles) = &spec.tiles {
            if self.configured && !self.settings.two_d {
                return Err(tiles_need_2d(id));
            }
            for g in &tiles.groups {
                let bit = self
                    .group_bit(hash_remembered(&g.group))
                    .ok_or_else(|| format!("collision object '{id}': more than {MAX_GROUPS} collision groups"))?;
                tile_bits.push(bit);
            }
        }
        let space = self.space_for(scene.socket.get(slot as usize).copied().unwrap_or(0));
        self.b2d_serial += 1;
        let body = Body {
            slot,
            id: hash_remembered(id),
            handle: Handle::INVALID,
            colliders: Vec::new(),
            ty: spec.collision_type,
            group,
            mask,
            enabled: true,
            alive: true,
            space,
            flip: [false; 2],
            spec: Box::new(spec.clone()),
            tile_bits,
            serial: self.b2d_serial,
            shape_scale: 1.0,
            seen_scale: glam::Vec3::ONE,
            written: (glam::Vec3::ZERO, glam::Quat::IDENTITY),
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

    /// The game object's world position and rotation in physics units (a 2D world keeps x, y
    /// and the turn about z of it).
    fn object_pose(&self, slot: u32, scene: &mut Scene) -> Iso {
        self.object_pose_and_scale(slot, scene).0
    }

    /// The uniform scale shapes take from a world scale `s`: the smallest of its axes' (x and y
    /// in a 2D world), as Defold's, within [`MIN_SHAPE_SCALE`, `MAX_SHAPE_SCALE`]; 1 when it is
    /// not a number.
    fn uniform_scale(&self, s: glam::Vec3) -> f32 {
        let s = s.abs();
        let u = if self.settings.two_d { s.x.min(s.y) } else { s.min_element() };
        if u.is_finite() { u.clamp(MIN_SHAPE_SCALE, MAX_SHAPE_SCALE) } else { 1.0 }
    }

    /// [`Physics::object_pose`] and the uniform scale of the same world transform.
    fn object_pose_and_scale(&self, slot: u32, scene: &mut Scene) -> (Iso, f32) {
        scene.update_world_transform_of(slot);
        let (s, r, t) = scene.world_of(slot).to_scale_rotation_translation();
        // A zero scale leaves the matrix no rotation to recover (glam divides by the scale).
        let r = crate::base::quat::unit_quat(scene.world_rotation(slot, r).to_array()).unwrap_or(glam::Quat::IDENTITY);
        ((t * self.settings.scale, r), self.uniform_scale(s))
    }

    fn build(&mut self, i: u32, spec: &CollisionObjectSpec, scene: &mut Scene) {
        let slot = self.bodies[i as usize].slot;
        let (mut pose, scale) = self.object_pose_and_scale(slot, scene);
        let b = &mut self.bodies[i as usize];
        // Finite parts can make an infinite whole (a huge position under a huge scale): such a
        // body would poison the world, so it starts at the origin instead.
        if !pose.0.is_finite() {
            let id = crate::base::hash::name_of(b.id);
            log::error!(
                "collision object '{id}': its object's world position is not finite; the body starts at the origin"
            );
            pose.0 = glam::Vec3::ZERO;
        }
        b.shape_scale = scale;
        b.seen_scale = scene.scale.get(slot as usize).copied().unwrap_or(glam::Vec3::ONE);
        b.written = local_place(scene, slot);
        let desc = BodyDesc {
            ty: spec.collision_type,
            pose,
            linear_damping: spec.linear_damping,
            angular_damping: spec.angular_damping,
            bullet: spec.bullet,
            locked_rotation: spec.locked_rotation,
            user: i,
        };
        let k = self.bodies[i as usize].space as usize;
        let handle = self.spaces[k].world.insert_body(&desc);
        let colliders = self.attach_colliders(i, spec, handle);
        let sp = &mut self.spaces[k];
        sp.dirty = true;
        let body = &mut self.bodies[i as usize];
        body.handle = handle;
        body.colliders = colliders;
        if !body.enabled {
            sp.world.set_enabled(handle, false);
        }
    }

    /// The colliders of body `i`'s shapes, attached to `handle`, mirrored as its flips say.
    fn attach_colliders(&mut self, i: u32, spec: &CollisionObjectSpec, handle: Handle) -> Vec<Handle> {
        let b = &self.bodies[i as usize];
        let desc = CollidersDesc {
            spec,
            scale: self.settings.scale * b.shape_scale,
            flip: b.flip,
            groups: (1 << b.group, b.mask),
            user: i,
            tile_bits: &b.tile_bits,
        };
        self.spaces[b.space as usize].world.attach(handle, &desc)
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
        self.rebuild_colliders(i);
        Ok(())
    }

    /// Body `i`'s colliders made again from its spec and flips; the body keeps its pose and
    /// velocities. One that is out of the simulation (disabled) is made from them when back.
    fn rebuild_colliders(&mut self, i: u32) {
        let Some(b) = self.bodies.get_mut(i as usize).filter(|b| b.alive) else { return };
        let (handle, spec, old, k) = (b.handle, b.spec.clone(), std::mem::take(&mut b.colliders), b.space as usize);
        if handle == Handle::INVALID {
            return;
        }
        let sp = &mut self.spaces[k];
        sp.world.remove_colliders(&old);
        sp.dirty = true;
        let colliders = self.attach_colliders(i, &spec, handle);
        let b = &mut self.bodies[i as usize];
        b.colliders = colliders;
        if !b.enabled {
            // Flipped off and on, so the new colliders leave the simulation with their body.
            self.spaces[k].world.set_enabled(handle, true);
            self.spaces[k].world.set_enabled(handle, false);
        }
    }

    /// Whether a collision object of game object `slot` takes its shape from the map `source`.
    pub fn shaped_by_map(&self, slot: u32, source: &str) -> bool {
        self.bodies.iter().any(|b| map_shape(b, slot, source).is_some())
    }

    /// `tilemap.set_tile` changed the map `source` of game object `slot`: the collision objects
    /// there whose shape is that map take its tiles' hulls now (`groups`), as in Defold.
    pub fn retile(&mut self, slot: u32, source: &str, groups: &[crate::project::physics::TileGroup]) {
        for i in 0..self.bodies.len() as u32 {
            let b = &self.bodies[i as usize];
            let Some(old) = map_shape(b, slot, source) else { continue };
            let tiles = crate::project::physics::TileCollision {
                source: old.source.clone(),
                groups: groups.to_vec(),
                offset: old.offset,
            };
            let mut bits = Vec::with_capacity(groups.len());
            for g in groups {
                let Some(bit) = self.group_bit(hash_remembered(&g.group)) else {
                    log::error!(
                        "tilemap.set_tile: more than {MAX_GROUPS} collision groups; the map's shape is unchanged"
                    );
                    return;
                };
                bits.push(bit);
            }
            let b = &mut self.bodies[i as usize];
            b.spec.tiles = Some(std::sync::Arc::new(tiles));
            b.tile_bits = bits;
            let (handle, k, colliders) = (b.handle, b.space as usize, std::mem::take(&mut b.colliders));
            if handle == Handle::INVALID {
                continue;
            }
            self.spaces[k].world.remove_colliders(&colliders);
            self.spaces[k].dirty = true;
            let spec = self.bodies[i as usize].spec.clone();
            self.bodies[i as usize].colliders = self.attach_colliders(i, &spec, handle);
        }
    }

    fn drop_rapier(&mut self, i: u32) {
        let (handle, k) = (self.bodies[i as usize].handle, self.bodies[i as usize].space as usize);
        let sp = &mut self.spaces[k];
        sp.world.remove_body(handle);
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
        self.forget_b2d_joints(i);
        let sp = &mut self.spaces[self.bodies[i as usize].space as usize];
        sp.overlaps.retain(|&(a, b)| a != i && b != i);
        sp.live -= 1;
        self.bodies[i as usize].alive = false;
        self.free.push(i);
    }

    pub fn get(&self, i: u32) -> Option<&Body> {
        self.bodies.get(i as usize).filter(|b| b.alive)
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
        if let Some((world, h)) = self.world_of_mut(i) {
            world.set_enabled(h, on);
            if on {
                world.place_at_rest(h, pose);
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
        let Some(b) = self.bodies.get(i as usize).filter(|b| b.alive) else { return };
        let sp = &mut self.spaces[b.space as usize];
        sp.dirty = true;
        sp.world.set_groups(&b.colliders, (1 << b.group, b.mask));
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
            // Its scripts are gone with it, and so is their listener.
            sp.listener = None;
            sp.events.clear();
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
        for _ in 0..steps {
            self.follow_objects(k, scene);
            self.spaces[ku].world.step(step);
            self.steps += 1;
            self.spaces[ku].dirty = false;
            let forced = std::mem::take(&mut self.forced);
            for &i in &forced {
                if let Some(b) = self.get(i).filter(|b| b.space == k) {
                    let h = b.handle;
                    self.spaces[ku].world.reset_forces(h);
                }
            }
            self.forced = forced.into_iter().filter(|&i| self.get(i).is_some_and(|b| b.space != k)).collect();
            self.write_objects(k, scene);
            after_step(self, k, scene);
        }
        steps
    }

    /// Moves the bodies that follow their game objects to them, and remakes the shapes of any
    /// object whose scale changed since they were made.
    fn follow_objects(&mut self, k: u32, scene: &mut Scene) {
        let dynamic_transforms = self.settings.dynamic_transforms;
        for i in 0..self.bodies.len() {
            let b = &self.bodies[i];
            if !b.alive || !b.enabled || b.space != k || !scene.is_live(b.slot) {
                continue;
            }
            let (slot, handle, ty, was) = (b.slot, b.handle, b.ty, b.shape_scale);
            let now = if ty != CollisionType::Dynamic {
                let (pose, scale) = self.object_pose_and_scale(slot, scene);
                self.spaces[k as usize].world.follow(handle, pose, ty != CollisionType::Static);
                scale
            } else if scene.parent.get(slot as usize).is_some_and(|&p| p != crate::scene::NONE) {
                // Under a parent, which may move or scale it without touching its local
                // transform: the object's world pose against the body's, as Defold compares.
                let (pose, scale) = self.object_pose_and_scale(slot, scene);
                let world = &mut self.spaces[k as usize].world;
                let Some(body) = world.pose(handle) else { continue };
                if moved_apart(&self.settings, pose, body) {
                    if dynamic_transforms {
                        world.follow(handle, pose, false);
                        self.bodies[i].written = local_place(scene, slot);
                    } else {
                        write_object(&self.settings, &mut self.bodies[i], body, scene);
                    }
                }
                scale
            } else if !dynamic_transforms {
                // The body keeps its place: a script's move is undone, asleep or not.
                if local_place(scene, slot) != b.written
                    && let Some(pose) = self.spaces[k as usize].world.pose(handle)
                {
                    write_object(&self.settings, &mut self.bodies[i], pose, scene);
                }
                continue;
            } else {
                // The body writes the object's place: only a script changes it, or the scale.
                let placed = local_place(scene, slot);
                let local = scene.scale.get(slot as usize).copied().unwrap_or(glam::Vec3::ONE);
                let moved = placed != b.written;
                if !moved && local == b.seen_scale {
                    continue;
                }
                self.bodies[i].seen_scale = local;
                let (pose, scale) = self.object_pose_and_scale(slot, scene);
                if moved {
                    // Put where the script put its object, at the speed it had (Box2D's
                    // SetTransform, Bullet's setWorldTransform), and woken.
                    self.bodies[i].written = placed;
                    self.spaces[k as usize].world.follow(handle, pose, false);
                }
                scale
            };
            if dynamic_transforms && (now - was).abs() > 1e-4 * was {
                self.bodies[i].shape_scale = now;
                self.rebuild_colliders(i as u32);
            }
        }
    }

    fn write_objects(&mut self, k: u32, scene: &mut Scene) {
        let world = &self.spaces[k as usize].world;
        for b in &mut self.bodies {
            if !b.alive || !b.enabled || b.space != k || b.ty != CollisionType::Dynamic || !scene.is_live(b.slot) {
                continue;
            }
            if let Some(pose) = world.awake_pose(b.handle) {
                write_object(&self.settings, b, pose, scene);
            }
        }
    }

    /// The body's mass in kg (0 for bodies the simulation does not move).
    pub fn mass(&self, i: u32) -> Option<f32> {
        let b = self.get(i)?;
        Some(if b.ty == CollisionType::Dynamic { self.world_of(i).and_then(|(w, h)| w.mass(h))? } else { 0.0 })
    }
}

/// Whether an object's world pose `object` is another place than its body's `body` (both in
/// physics units), by Defold's thresholds (a squared distance of 0.00005 × the physics scale in
/// world units, a rotation 0.00007 apart): what a body writes comes back within rounding.
fn moved_apart(settings: &PhysicsSettings, object: Iso, body: Iso) -> bool {
    let mut d = (object.0 - body.0) / settings.scale;
    if settings.two_d {
        // The body lives at z = 0; the object keeps its own depth.
        d.z = 0.0;
    }
    let (p, q) = (object.1, body.1);
    let turn = (p - q).length().min((p + q).length());
    d.length_squared() > 5e-5 * settings.scale || turn > 7e-5
}

/// Puts dynamic body `b`'s game object where the body is (`pose`, in physics units).
fn write_object(settings: &PhysicsSettings, b: &mut Body, pose: Iso, scene: &mut Scene) {
    let (t, r) = pose;
    let mut t = t * (1.0 / settings.scale);
    if settings.two_d {
        // The body lives at z = 0; the object keeps its own depth.
        t.z = scene.world_of(b.slot).translation.z;
    }
    if place_object(scene, b.slot, t, r) {
        b.written = local_place(scene, b.slot);
    }
}

/// Game object `slot`'s local position and rotation, as a script writes them.
fn local_place(scene: &Scene, slot: u32) -> (glam::Vec3, glam::Quat) {
    let s = slot as usize;
    let p = scene.position.get(s).copied().unwrap_or(glam::Vec3::ZERO);
    (p, scene.rotation.get(s).copied().unwrap_or(glam::Quat::IDENTITY))
}

/// Puts game object `slot` at world position `t` and rotation `r` (its local transform made
/// relative to its parent), as a body it follows says; false (nothing written) for a place that
/// is not finite or a parent scaled to 0, which has no local place that puts it there.
fn place_object(scene: &mut Scene, slot: u32, t: glam::Vec3, r: glam::Quat) -> bool {
    let s = slot as usize;
    let parent = scene.parent[s];
    let (t, r) = if parent == crate::scene::NONE {
        (t, r)
    } else {
        let (ps, pr, pt) = scene.world_of(parent).to_scale_rotation_translation();
        let pinv = pr.inverse();
        (pinv * (t - pt) / ps, pinv * r)
    };
    if !t.is_finite() || !r.is_finite() {
        return false;
    }
    scene.settle_for_write(slot);
    scene.position[s] = t;
    scene.rotation[s] = r.normalize();
    scene.update_world_transform_of(slot);
    true
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

/// Calls each world's event listener with the events of this frame's steps: `(self, events)`,
/// one call a frame, after the steps and the ray casts they answered.
pub fn tell_listeners(world: &std::cell::RefCell<crate::game::World>, hooks: &mut dyn crate::game::ScriptHooks) {
    let calls: Vec<(crate::game::ScriptCallback, crate::scene::Message)> = {
        let w = &mut *world.borrow_mut();
        let main = w.socket;
        w.physics
            .spaces
            .iter_mut()
            .filter(|sp| !sp.events.is_empty())
            .filter_map(|sp| {
                let events = std::mem::take(&mut sp.events);
                let listener = sp.listener?;
                let mut data = Vec::new();
                crate::scene::message::encode(
                    &crate::scene::message::MsgValue::Table(events::numbered(events)),
                    &mut data,
                );
                let socket = if sp.socket == 0 { main } else { sp.socket };
                let at = crate::scene::Url { socket, path: 0, fragment: 0 };
                Some((listener, crate::scene::Message::new(at, at, events::ids().listener, data)))
            })
            .collect()
    };
    for (listener, msg) in calls {
        hooks.callback_again(listener.script, listener.callback, &msg);
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
    use crate::scene::url;
    let crate::game::World { physics, scene, .. } = w;
    let (enable, disable, apply_force) = message_ids();
    if m.id == enable || m.id == disable {
        return physics.set_enabled(i, m.id == enable, scene);
    }
    if m.id != apply_force {
        return;
    }
    // Posted, so no Lua error can reach the sender: the error names it and the receiver.
    let what = || format!("apply_force sent from {} to {}", url::format(&m.sender), url::format(&m.receiver));
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => return log::error!("{}: {e}", what()),
    };
    let (Some(MsgValue::Vector3(force)), Some(MsgValue::Vector3(at))) = (data.get("force"), data.get("position"))
    else {
        return log::error!("{}: needs vector3 `force` and `position`", what());
    };
    if !force.iter().chain(at).all(|v| v.is_finite()) {
        let v = |v: &[f32; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
        return log::error!("{}: force and position must be finite (force {}, position {})", what(), v(force), v(at));
    }
    let s = physics.settings.scale;
    let dynamic = physics.get(i).is_some_and(|b| b.ty == CollisionType::Dynamic && b.enabled);
    if let (true, Some((world, h))) = (dynamic, physics.world_of_mut(i)) {
        world.add_force_at_point(h, glam::Vec3::from(*force) * s, glam::Vec3::from(*at) * s);
        physics.forced.push(i);
    }
}
