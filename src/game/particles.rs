//! Particle effect components (`particlefx`): each instance runs its emitters as Defold does —
//! asleep until `particlefx.play`, then a start delay, spawning for the emitter's duration (for
//! ever when looping), and after `particlefx.stop` or the duration only the living particles
//! until they die. Emitter properties are curves over the emitter's duration, drawn with their
//! spread when a particle is born; particle properties are curves over each particle's life,
//! multiplying (rotation: adding to) what it was born with. Modifiers change velocities. The
//! renderer gets quads in the sprites' list, so particles batch and sort with sprites.
//!
//! Random draws come from one generator per instance seeded by its creation order, so a run
//! with `--fixed-dt` shows the same particles every time.
use crate::base::hash::{Hash, hash_remembered, hash_str};
use crate::game::sprites::quads::SpriteQuad;
use crate::project::particlefx::{
    EmitterShape, EmitterSpec, ModifierKind, Orientation, ParticleFxComponent, ParticleFxSpec, key,
};
use crate::project::sprite::Atlas;
use crate::scene::Scene;
use glam::{Mat4, Quat, Vec3};
use std::sync::Arc;

#[derive(Debug, Clone, Copy)]
struct Particle {
    /// World space, or the emitter's space for emitters in emitter space.
    position: Vec3,
    velocity: Vec3,
    age: f32,
    life: f32,
    size: f32,
    color: [f32; 4],
    /// Radians about the quad's normal.
    rotation: f32,
    /// Degrees per second, as Defold's property.
    angular_velocity: f32,
    stretch: [f32; 2],
    /// `PARTICLE_ORIENTATION_INITIAL_DIRECTION`: the turn of the quad's up axis onto the
    /// direction it was born moving in (in world space for world-space emitters, else the
    /// emitter's); the identity otherwise.
    facing: Quat,
}

/// Defold's emitter states, numbered as `particlefx.EMITTER_STATE_*` (Lua gets the numbers from
/// here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmitterState {
    Sleeping = 0,
    /// Waiting out the start delay.
    Prespawn = 1,
    Spawning = 2,
    /// No more particles are born; the living ones finish.
    Postspawn = 3,
}

/// Who hears an instance's emitters change state.
pub use crate::game::ScriptCallback as Listener;

/// An emitter that changed state: instance, emitter index, new state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateChange {
    pub instance: u32,
    pub emitter: u32,
    pub state: EmitterState,
}

/// What an emitter's particles look like: the effect file's, until `go.set` of the emitter's
/// `image`, `animation` or `material` changes it for this component.
#[derive(Clone)]
struct Look {
    atlas: Arc<Atlas>,
    /// The atlas as an index into the sprites' atlases.
    atlas_index: u32,
    animation: u32,
    /// The material's path hash.
    material: Hash,
    /// A custom material's index in the models' materials; None: the built-in program.
    material_index: Option<u32>,
}

struct Emitter {
    state: EmitterState,
    look: Look,
    /// `particlefx.set_constant(url, emitter, "tint", v)`: multiplies its particles' colour.
    tint: [f32; 4],
    /// Seconds in the current state.
    time: f32,
    delay: f32,
    duration: f32,
    /// Particles owed by the spawn rate, carried between frames.
    owed: f32,
    particles: Vec<Particle>,
}

pub struct ParticleInstance {
    pub slot: u32,
    /// The component's own place in its object (None: at the object).
    local: Option<Mat4>,
    pub id: Hash,
    pub spec: Arc<ParticleFxSpec>,
    pub alive: bool,
    emitters: Vec<Emitter>,
    rng: u64,
    /// `particlefx.play`'s emitter state function, until the frame every emitter is asleep
    /// again has told it so.
    listener: Option<Listener>,
}

impl ParticleInstance {
    /// Particles alive in all its emitters.
    pub fn count(&self) -> usize {
        self.emitters.iter().map(|e| e.particles.len()).sum()
    }

    pub fn emitter_states(&self) -> impl Iterator<Item = EmitterState> + '_ {
        self.emitters.iter().map(|e| e.state)
    }
}

#[derive(Default)]
pub struct ParticleWorld {
    pub instances: Vec<ParticleInstance>,
    free: Vec<u32>,
    made: u64,
    /// State changes since the frame's callbacks last ran, for instances with a listener.
    pub changes: Vec<StateChange>,
}

/// SplitMix64: small, fast, and the same sequence on every machine.
fn next(state: &mut u64) -> f32 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

/// A value in -1..1.
fn signed(state: &mut u64) -> f32 {
    next(state) * 2.0 - 1.0
}

impl ParticleWorld {
    /// `atlas_index` registers an emitter's atlas with the sprites (whose renderer draws it);
    /// `material_of` finds a custom material (None: the built-in program), or says why not.
    pub fn create(
        &mut self,
        slot: u32,
        id: &str,
        fx: &ParticleFxComponent,
        atlas_index: &mut dyn FnMut(&Arc<Atlas>) -> u32,
        material_of: &mut dyn FnMut(&str) -> Result<Option<u32>, String>,
    ) -> Result<u32, String> {
        let spec = &fx.effect;
        let mut looks = Vec::with_capacity(spec.emitters.len());
        for e in &spec.emitters {
            looks.push(Look {
                atlas: e.atlas.clone(),
                atlas_index: atlas_index(&e.atlas),
                animation: e.animation,
                material: hash_remembered(if e.material.is_empty() { DEFAULT_MATERIAL } else { &e.material }),
                material_index: material_of(&e.material).map_err(|m| format!("emitter '{}': {m}", e.id))?,
            });
        }
        self.made += 1;
        let inst = ParticleInstance {
            slot,
            local: fx.transform.matrix(),
            id: hash_remembered(id),
            spec: spec.clone(),
            alive: true,
            emitters: looks
                .into_iter()
                .map(|look| Emitter {
                    state: EmitterState::Sleeping,
                    look,
                    tint: [1.0; 4],
                    time: 0.0,
                    delay: 0.0,
                    duration: 0.0,
                    owed: 0.0,
                    particles: Vec::new(),
                })
                .collect(),
            rng: self.made.wrapping_mul(0x2545_F491_4F6C_DD1D),
            listener: None,
        };
        Ok(match self.free.pop() {
            Some(i) => {
                self.instances[i as usize] = inst;
                i
            }
            None => {
                self.instances.push(inst);
                (self.instances.len() - 1) as u32
            }
        })
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(p) = self.instances.get_mut(i as usize).filter(|p| p.alive) {
            p.alive = false;
            p.listener = None;
            p.emitters.clear();
            self.free.push(i);
        }
    }

    /// `particlefx.set_constant` of `tint` (`None`: `reset_constant`, back to white) on the
    /// emitter with id `emitter`; false when the effect has no such emitter.
    pub fn set_tint(&mut self, i: u32, emitter: Hash, tint: Option<[f32; 4]>) -> bool {
        let Ok(k) = self.emitter_index(i, emitter) else { return false };
        self.instances[i as usize].emitters[k].tint = tint.unwrap_or([1.0; 4]);
        true
    }

    /// `go.get` of an emitter's `image` (the atlas's path), `animation` (the flipbook's id) or
    /// `material` (the material's path), as hashes; None: no such emitter.
    pub fn look_of(&self, i: u32, emitter: Hash) -> Option<(Hash, Hash, Hash)> {
        let k = self.emitter_index(i, emitter).ok()?;
        let look = &self.instances[i as usize].emitters[k].look;
        let animation = look.atlas.animations.get(look.animation as usize).map_or(0, |a| hash_remembered(&a.id));
        Some((hash_remembered(&look.atlas.source), animation, look.material))
    }

    /// The emitter `emitter` of instance `i`: its index, or the message naming what is missing.
    fn emitter_index(&self, i: u32, emitter: Hash) -> Result<usize, String> {
        let p = self.get(i).ok_or("the particle effect was deleted")?;
        p.spec
            .emitters
            .iter()
            .position(|e| hash_str(&e.id) == emitter)
            .ok_or_else(|| format!("no emitter '{}'", crate::base::hash::name_of(emitter)))
    }

    /// `go.set` of an emitter's `image`: its particles draw from `atlas` (index `atlas_index`
    /// among the sprites'), playing the flipbook of the same name, else its first.
    pub fn set_image(&mut self, i: u32, emitter: Hash, atlas: &Arc<Atlas>, atlas_index: u32) -> Result<(), String> {
        let k = self.emitter_index(i, emitter)?;
        if atlas.animations.is_empty() {
            return Err(format!("'{}' has no images", atlas.source));
        }
        let look = &mut self.instances[i as usize].emitters[k].look;
        let name = look.atlas.animations.get(look.animation as usize).map(|a| a.id.clone());
        look.animation = name.and_then(|n| atlas.animations.iter().position(|a| a.id == n)).unwrap_or(0) as u32;
        look.atlas = atlas.clone();
        look.atlas_index = atlas_index;
        Ok(())
    }

    /// `go.set` of an emitter's `animation`: a flipbook of its image by id hash.
    pub fn set_animation(&mut self, i: u32, emitter: Hash, animation: Hash) -> Result<(), String> {
        let k = self.emitter_index(i, emitter)?;
        let look = &mut self.instances[i as usize].emitters[k].look;
        look.animation = look.atlas.animation_index(animation)?;
        Ok(())
    }

    /// `go.set` of an emitter's `material` (its path hash; `index` a custom one's, None: the
    /// built-in program).
    pub fn set_material(&mut self, i: u32, emitter: Hash, material: Hash, index: Option<u32>) -> Result<(), String> {
        let k = self.emitter_index(i, emitter)?;
        let look = &mut self.instances[i as usize].emitters[k].look;
        look.material = material;
        look.material_index = index;
        Ok(())
    }

    /// The callback ids a listener still holds (the Lua side keeps those closures).
    pub fn extend_live_callbacks(&self, out: &mut Vec<u32>) {
        out.extend(self.instances.iter().filter(|p| p.alive).filter_map(|p| p.listener.map(|l| l.callback)));
    }

    /// Instances whose emitters all sleep stop listening (once their changes were told).
    pub fn forget_sleeping_listeners(&mut self) {
        for p in self.instances.iter_mut().filter(|p| p.listener.is_some()) {
            if p.emitters.iter().all(|e| e.state == EmitterState::Sleeping) {
                p.listener = None;
            }
        }
    }

    pub fn listener(&self, i: u32) -> Option<Listener> {
        self.get(i).and_then(|p| p.listener)
    }

    pub fn get(&self, i: u32) -> Option<&ParticleInstance> {
        self.instances.get(i as usize).filter(|p| p.alive)
    }

    /// `particlefx.play`: every emitter starts again (its living particles stay); `listener`
    /// hears their state changes (a play without one forgets an earlier one).
    pub fn play(&mut self, i: u32, listener: Option<Listener>) {
        let Some(p) = self.instances.get_mut(i as usize).filter(|p| p.alive) else { return };
        p.listener = listener;
        for (k, (e, spec)) in p.emitters.iter_mut().zip(&p.spec.emitters).enumerate() {
            if listener.is_some() {
                let state = EmitterState::Prespawn;
                self.changes.push(StateChange { instance: i, emitter: k as u32, state });
            }
            e.state = EmitterState::Prespawn;
            e.time = 0.0;
            e.owed = 0.0;
            e.delay = (spec.start_delay + spec.start_delay_spread * signed(&mut p.rng)).max(0.0);
            e.duration = (spec.duration + spec.duration_spread * signed(&mut p.rng)).max(0.0);
        }
    }

    /// `particlefx.stop`: no more particles are born; `clear` also removes the living ones.
    pub fn stop(&mut self, i: u32, clear: bool) {
        let Some(p) = self.instances.get_mut(i as usize).filter(|p| p.alive) else { return };
        for (k, e) in p.emitters.iter_mut().enumerate() {
            let was = e.state;
            if clear {
                e.particles.clear();
                e.state = EmitterState::Sleeping;
            } else if e.state != EmitterState::Sleeping {
                e.state = EmitterState::Postspawn;
            }
            if p.listener.is_some() && e.state != was {
                self.changes.push(StateChange { instance: i, emitter: k as u32, state: e.state });
            }
        }
    }

    /// Advances every playing instance of a game object by `dt` seconds.
    pub fn step(&mut self, scene: &Scene, dt: f32) {
        self.step_placed(dt, |_, p| scene.is_live(p.slot).then(|| Mat4::from(scene.world_of(p.slot))));
    }

    /// Advances every playing instance by `dt` seconds, each where `place(index, instance)`
    /// puts it now (None: not stepped): its object's world matrix, or a GUI node's.
    pub fn step_placed(&mut self, dt: f32, place: impl Fn(u32, &ParticleInstance) -> Option<Mat4>) {
        // NaN included.
        if dt.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        for (i, p) in self.instances.iter_mut().enumerate().filter(|(_, p)| p.alive) {
            if p.emitters.iter().all(|e| e.state == EmitterState::Sleeping) {
                continue;
            }
            let Some(placed) = place(i as u32, p) else { continue };
            let object = placed * p.local.unwrap_or(Mat4::IDENTITY);
            for (k, e) in p.emitters.iter_mut().enumerate() {
                let spec = &p.spec.emitters[k];
                let frame = object * Mat4::from_rotation_translation(spec.rotation, spec.position);
                let was = e.state;
                advance(e, spec, frame, dt, &mut p.rng);
                // A step can pass several states (a short delay and duration): each is told.
                if p.listener.is_some() {
                    let order = [
                        EmitterState::Prespawn,
                        EmitterState::Spawning,
                        EmitterState::Postspawn,
                        EmitterState::Sleeping,
                    ];
                    let from = order.iter().position(|&s| s == was).unwrap_or(0);
                    let to = order.iter().position(|&s| s == e.state).unwrap_or(0);
                    for &state in order.iter().take(to + 1).skip(from + 1) {
                        self.changes.push(StateChange { instance: i as u32, emitter: k as u32, state });
                    }
                }
            }
        }
    }

    /// Appends the quads of every living particle to `out` (after the sprites').
    pub fn quads(&self, scene: &Scene, out: &mut Vec<SpriteQuad>) {
        for (i, p) in self.instances.iter().enumerate().filter(|(_, p)| p.alive) {
            self.instance_quads(i as u32, Mat4::from(scene.world_of(p.slot)), out);
        }
    }

    /// Appends the quads of instance `i`'s living particles, its object at `placed`.
    pub fn instance_quads(&self, i: u32, placed: Mat4, out: &mut Vec<SpriteQuad>) {
        let Some(p) = self.get(i) else { return };
        let object = placed * p.local.unwrap_or(Mat4::IDENTITY);
        for (k, e) in p.emitters.iter().enumerate() {
            let spec = &p.spec.emitters[k];
            let frame = object * Mat4::from_rotation_translation(spec.rotation, spec.position);
            let (_, rotation, _) = frame.to_scale_rotation_translation();
            for q in &e.particles {
                if let Some(mut quad) = particle_quad(q, spec, (frame, rotation), &e.look) {
                    for (c, t) in quad.color.iter_mut().zip(e.tint) {
                        *c *= t;
                    }
                    out.push(quad);
                }
            }
        }
    }
}

/// Defold's built-in particle material: Sinew's sprite program draws it.
pub const DEFAULT_MATERIAL: &str = "/builtins/materials/particlefx.material";

/// The emitter's time as a fraction of its duration (looping emitters wrap).
fn emitter_t(e: &Emitter, spec: &EmitterSpec) -> f32 {
    if e.duration <= 0.0 {
        return 0.0;
    }
    let t = e.time / e.duration;
    if spec.looping { t.fract() } else { t.min(1.0) }
}

fn advance(e: &mut Emitter, spec: &EmitterSpec, frame: Mat4, dt: f32, rng: &mut u64) {
    let mut left = dt;
    if e.state == EmitterState::Prespawn {
        e.time += left;
        if e.time < e.delay {
            left = 0.0;
        } else {
            left = e.time - e.delay;
            e.state = EmitterState::Spawning;
            // Run ahead by the start offset, as if the emitter had been spawning already.
            e.time = spec.start_offset;
            if spec.start_offset > 0.0 {
                spawn_for(e, spec, frame, spec.start_offset, rng);
                move_particles(e, spec, frame, spec.start_offset);
            }
        }
    }
    if left <= 0.0 {
        return;
    }
    if e.state == EmitterState::Spawning {
        spawn_for(e, spec, frame, left, rng);
        e.time += left;
        if !spec.looping && e.time >= e.duration {
            e.state = EmitterState::Postspawn;
        }
    }
    move_particles(e, spec, frame, left);
    if e.state == EmitterState::Postspawn && e.particles.is_empty() {
        e.state = EmitterState::Sleeping;
    }
}

fn spawn_for(e: &mut Emitter, spec: &EmitterSpec, frame: Mat4, dt: f32, rng: &mut u64) {
    let t = emitter_t(e, spec);
    e.owed += spec.properties[key::SPAWN_RATE].at(t).max(0.0) * dt;
    let n = e.owed.floor();
    e.owed -= n;
    for _ in 0..n as u32 {
        if e.particles.len() >= spec.max_particles as usize {
            e.owed = 0.0;
            break;
        }
        if let Some(p) = born(spec, t, frame, rng) {
            e.particles.push(p);
        }
    }
}

/// A new particle: emitter properties at `t` with their spread, a place and direction from
/// the emitter's shape.
fn born(spec: &EmitterSpec, t: f32, frame: Mat4, rng: &mut u64) -> Option<Particle> {
    let mut value = |k: usize| {
        let c = &spec.properties[k];
        c.at(t) + c.spread * signed(rng)
    };
    let life = value(key::LIFE_TIME);
    if life <= 0.0 {
        return None;
    }
    let (sx, sy, sz) = (value(key::SIZE_X), value(key::SIZE_Y), value(key::SIZE_Z));
    let speed = value(key::SPEED);
    let size = value(key::SIZE).max(0.0);
    let color = [0, 1, 2, 3].map(|c| value(key::RED + c));
    let rotation = value(key::ROTATION).to_radians();
    let stretch = [value(key::STRETCH_X), value(key::STRETCH_X + 1)];
    let angular_velocity = value(key::ANGULAR_VELOCITY);
    let (local, dir) = place(spec.shape, [sx, sy, sz], rng);
    let (position, velocity) = if spec.world_space {
        (frame.transform_point3(local), frame.transform_vector3(dir).normalize_or_zero() * speed)
    } else {
        (local, dir * speed)
    };
    // As Defold: the rotation taking +Y onto the emission direction, then the emitter's.
    let mut facing = match dir.try_normalize() {
        Some(d) if spec.orientation == Orientation::InitialDirection => Quat::from_rotation_arc(Vec3::Y, d),
        _ => Quat::IDENTITY,
    };
    if spec.world_space && spec.orientation == Orientation::InitialDirection {
        facing = frame.to_scale_rotation_translation().1 * facing;
    }
    Some(Particle { position, velocity, age: 0.0, life, size, color, rotation, angular_velocity, stretch, facing })
}

/// Where in the emitter a particle starts and the direction it leaves in (emitter space).
fn place(shape: EmitterShape, size: [f32; 3], rng: &mut u64) -> (Vec3, Vec3) {
    let tau = std::f32::consts::TAU;
    match shape {
        EmitterShape::Circle => {
            let a = next(rng) * tau;
            let dir = Vec3::new(a.cos(), a.sin(), 0.0);
            (dir * size[0] * 0.5 * next(rng).sqrt(), dir)
        }
        EmitterShape::Sphere => {
            let z = signed(rng);
            let a = next(rng) * tau;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let dir = Vec3::new(r * a.cos(), r * a.sin(), z);
            (dir * size[0] * 0.5 * next(rng).cbrt(), dir)
        }
        EmitterShape::Box => {
            let p = Vec3::new(signed(rng) * size[0], signed(rng) * size[1], signed(rng) * size[2]) * 0.5;
            (p, Vec3::Y)
        }
        EmitterShape::Cone2d | EmitterShape::Cone => {
            // A cone `size x` wide at `size y` up: directions within its half angle of +Y.
            let half = (size[0] * 0.5).atan2(size[1].max(1e-6));
            let dir = if shape == EmitterShape::Cone2d {
                let a = signed(rng) * half;
                Vec3::new(-a.sin(), a.cos(), 0.0)
            } else {
                let tilt = next(rng).sqrt() * half;
                let spin = next(rng) * tau;
                Vec3::new(tilt.sin() * spin.cos(), tilt.cos(), tilt.sin() * spin.sin())
            };
            (Vec3::ZERO, dir)
        }
    }
}

fn move_particles(e: &mut Emitter, spec: &EmitterSpec, frame: Mat4, dt: f32) {
    // Modifiers sit in the emitter: in world space their place and axes are the emitter's now
    // (worked out once per emitter, not per particle).
    let (_, frame_rotation, _) = frame.to_scale_rotation_translation();
    let mut places = [(Vec3::ZERO, Quat::IDENTITY); crate::project::particlefx::MAX_MODIFIERS];
    for (place, m) in places.iter_mut().zip(&spec.modifiers) {
        *place = if spec.world_space {
            (frame.transform_point3(m.position), frame_rotation * m.rotation)
        } else {
            (m.position, m.rotation)
        };
    }
    let mut i = 0;
    while i < e.particles.len() {
        let q = &mut e.particles[i];
        q.age += dt;
        if q.age >= q.life {
            e.particles.swap_remove(i);
            continue;
        }
        let t = q.age / q.life;
        for (m, &(at, rot)) in spec.modifiers.iter().zip(&places) {
            let magnitude = m.magnitude.at(t);
            let d = q.position - at;
            let within = |d: Vec3| {
                let max = m.max_distance.at(t);
                max <= 0.0 || d.length() <= max
            };
            match m.kind {
                ModifierKind::Acceleration => q.velocity += rot * Vec3::Y * magnitude * dt,
                ModifierKind::Drag => {
                    let k = (magnitude * dt).clamp(0.0, 1.0);
                    if m.use_direction {
                        let axis = rot * Vec3::Y;
                        q.velocity -= axis * q.velocity.dot(axis) * k;
                    } else {
                        q.velocity -= q.velocity * k;
                    }
                }
                ModifierKind::Radial if within(d) => q.velocity += d.normalize_or_zero() * magnitude * dt,
                ModifierKind::Vortex if within(d) => {
                    q.velocity += (rot * Vec3::Z).cross(d).normalize_or_zero() * magnitude * dt;
                }
                ModifierKind::Radial | ModifierKind::Vortex => {}
            }
        }
        q.position += q.velocity * dt;
        let spin = q.angular_velocity + spec.over_life[key::LIFE_ANGULAR_VELOCITY].at(t);
        q.rotation += spin.to_radians() * dt;
        i += 1;
    }
}

/// The frame of a particle's flipbook at its age: the flipbook started at its birth, timed as a
/// sprite's is.
fn frame_at(look: &Look, age: f32) -> Option<u32> {
    use crate::game::sprites::flipbook::Clock;
    let book = look.atlas.animations.get(look.animation as usize)?;
    let mut clock = Clock::start(book, 0.0, 1.0);
    clock.advance(book, age);
    book.frames.get(clock.frame(book) as usize).copied()
}

/// `frame`: the emitter's world matrix and its rotation.
fn particle_quad(
    q: &Particle,
    spec: &EmitterSpec,
    (frame, emitter_rotation): (Mat4, Quat),
    look: &Look,
) -> Option<SpriteQuad> {
    let t = q.age / q.life;
    let life = &spec.over_life;
    let f = look.atlas.frames.get(frame_at(look, q.age)? as usize)?;
    let (fw, fh) = (f.width.max(1) as f32, f.height.max(1) as f32);
    let scale = life[key::LIFE_SCALE].at(t);
    let (mut w, mut h) = if spec.auto_size {
        (fw * scale, fh * scale)
    } else {
        // The size is the longer side; the image keeps its proportions.
        let s = q.size * scale;
        if fw >= fh { (s, s * fh / fw) } else { (s * fw / fh, s) }
    };
    w *= 1.0 + q.stretch[0] + life[key::LIFE_STRETCH_X].at(t);
    h *= 1.0 + q.stretch[1] + life[key::LIFE_STRETCH_X + 1].at(t);
    let (centre, axes) =
        if spec.world_space { (q.position, Mat4::IDENTITY) } else { (frame.transform_point3(q.position), frame) };
    let velocity = axes.transform_vector3(q.velocity);
    let turn = q.rotation + life[key::LIFE_ROTATION].at(t).to_radians();
    let base = match spec.orientation {
        Orientation::MovementDirection if velocity.length_squared() > 1e-12 => {
            Quat::from_rotation_z(velocity.y.atan2(velocity.x))
        }
        Orientation::InitialDirection if spec.world_space => q.facing,
        Orientation::InitialDirection => emitter_rotation * q.facing,
        _ => emitter_rotation,
    };
    let r = base * Quat::from_rotation_z(turn);
    let (rx, uy) = (r * Vec3::X * (w * 0.5), r * Vec3::Y * (h * 0.5));
    let corners = [centre - rx - uy, centre + rx - uy, centre + rx + uy, centre - rx + uy];
    if !corners.iter().all(|c| c.is_finite()) {
        return None;
    }
    let (pw, ph) = (look.atlas.width as f32, look.atlas.height as f32);
    let uv = [f.x as f32 / pw, f.y as f32 / ph, (f.x + f.width) as f32 / pw, (f.y + f.height) as f32 / ph];
    let color = [
        q.color[0] * life[key::LIFE_RED].at(t),
        q.color[1] * life[key::LIFE_RED + 1].at(t),
        q.color[2] * life[key::LIFE_RED + 2].at(t),
        q.color[3] * life[key::LIFE_RED + 3].at(t),
    ];
    Some(SpriteQuad {
        corners,
        uv,
        local: [-w * 0.5, -h * 0.5, w * 0.5, h * 0.5],
        color,
        atlas: look.atlas_index,
        blend: spec.blend,
        material: look.material,
        material_index: look.material_index,
        sprite: u32::MAX,
        constants_key: 0,
    })
}

/// Runs the frame's particles, then the emitter state functions of the changes, as
/// `(self, id, emitter, state)`: the object's id, the emitter's id and the new state.
pub fn step(world: &std::cell::RefCell<super::World>, hooks: &mut dyn super::ScriptHooks, dt: f32) {
    use crate::scene::message::{MsgValue, encode};
    let changes = {
        let w = &mut *world.borrow_mut();
        let super::World { particles, scene, .. } = w;
        particles.step(scene, dt);
        std::mem::take(&mut particles.changes)
    };
    for c in &changes {
        let (listener, msg) = {
            let w = world.borrow();
            let Some(p) = w.particles.instances.get(c.instance as usize).filter(|p| p.alive) else { continue };
            let (Some(listener), Some(spec)) = (p.listener, p.spec.emitters.get(c.emitter as usize)) else {
                continue;
            };
            let path = w.scene.ids.get(p.slot as usize).copied().unwrap_or(0);
            let sender = crate::scene::Url { socket: w.socket_of(p.slot), path, fragment: p.id };
            let s = |k: &str| MsgValue::String(k.into());
            let table = MsgValue::Table(vec![
                (s("id"), MsgValue::Hash(path)),
                (s("emitter"), MsgValue::Hash(hash_remembered(&spec.id))),
                (s("state"), MsgValue::Number(f64::from(c.state as u32))),
            ]);
            let mut data = Vec::new();
            encode(&table, &mut data);
            let id = hash_remembered("particlefx_emitter_state");
            (listener, crate::scene::Message::new(sender, sender, id, data))
        };
        hooks.callback_again(listener.script, listener.callback, &msg);
    }
    let mut changes = changes;
    changes.clear();
    let w = &mut *world.borrow_mut();
    w.particles.changes = changes;
    // The changes are told: an effect whose emitters all sleep stops listening.
    w.particles.forget_sleeping_listeners();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::particlefx::parse;
    use crate::project::sprite::Atlas;

    fn atlas() -> Arc<Atlas> {
        Arc::new(Atlas::one_frame("dot", false))
    }

    /// An effect of one emitter with `max` particles alive at most, spawning for `duration`.
    fn effect(emitter: &str, duration: f32, max: u32) -> Arc<ParticleFxSpec> {
        let text = format!(
            "emitters {{\n  mode: PLAY_MODE_ONCE\n  duration: {duration}\n  space: EMISSION_SPACE_WORLD\n  position {{ }}\n  rotation {{ }}\n  tile_source: \"/a.atlas\"\n  animation: \"dot\"\n  material: \"/builtins/materials/particlefx.material\"\n  max_particle_count: {max}\n  type: EMITTER_TYPE_BOX\n{emitter}}}\n"
        );
        let a = atlas();
        let spec = parse("/e.particlefx", &text, &mut |_, _| Ok(a.clone())).unwrap_or_else(|e| panic!("{e:?}"));
        Arc::new(spec)
    }

    fn prop(key: &str, v: f32) -> String {
        format!("  properties {{ key: {key} points {{ x: 0 y: {v} t_x: 1 t_y: 0 }} }}\n")
    }

    fn world_with(spec: &Arc<ParticleFxSpec>) -> (ParticleWorld, Scene, u32) {
        let mut scene = Scene::new();
        let prefix = scene.intern_prefix("/");
        let slot = scene.spawn("/p", prefix, Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY, Vec3::ONE).expect("spawn");
        scene.update_world_transforms();
        let mut w = ParticleWorld::default();
        let fx = ParticleFxComponent { effect: spec.clone(), transform: crate::project::ComponentTransform::IDENTITY };
        let i = w.create(slot, "p", &fx, &mut |_| 0, &mut |_| Ok(None)).expect("created");
        (w, scene, i)
    }

    #[test]
    fn an_emitter_spawns_at_its_rate_for_its_duration_and_its_particles_die_at_their_life() {
        let spec = effect(
            &[
                prop("EMITTER_KEY_SPAWN_RATE", 10.0),
                prop("EMITTER_KEY_PARTICLE_LIFE_TIME", 0.5),
                prop("EMITTER_KEY_PARTICLE_SIZE", 2.0),
            ]
            .concat(),
            1.0,
            100,
        );
        let (mut w, scene, i) = world_with(&spec);
        w.step(&scene, 0.1);
        assert_eq!(w.get(i).map(|p| p.count()), Some(0), "asleep until played");
        w.play(i, None);
        // 0.45 s at 10 per second: four born, none old enough to die.
        for _ in 0..9 {
            w.step(&scene, 0.05);
        }
        assert_eq!(w.get(i).map(|p| p.count()), Some(4));
        // After the second of spawning and half a second more every particle is gone.
        for _ in 0..22 {
            w.step(&scene, 0.05);
        }
        let states: Vec<EmitterState> = w.get(i).map(|p| p.emitter_states().collect()).unwrap_or_default();
        assert_eq!(states, vec![EmitterState::Sleeping]);
        // Quads sit where the emitter is, the size of the image's long side.
        w.play(i, None);
        w.step(&scene, 0.15);
        let mut out = Vec::new();
        w.quads(&scene, &mut out);
        assert_eq!(out.len(), 1);
        let q = out[0];
        assert!(((q.corners[1] - q.corners[0]).length() - 2.0).abs() < 1e-4, "{q:?}");
        assert!(((q.corners[0] + q.corners[2]) * 0.5 - Vec3::new(10.0, 0.0, 0.0)).length() < 1e-3, "{q:?}");
        // A component placed in its object (engine.md section 2) emits from there, turned with it.
        let transform = crate::project::ComponentTransform {
            position: [0.0, 5.0, 0.0],
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2).to_array(),
            scale: [1.0; 3],
        };
        let fx = ParticleFxComponent { effect: spec.clone(), transform };
        let j = w.create(0, "q", &fx, &mut |_| 0, &mut |_| Ok(None)).expect("created");
        w.play(j, None);
        w.step(&scene, 0.15);
        out.clear();
        w.quads(&scene, &mut out);
        let q = out.last().copied().expect("a quad");
        assert!(((q.corners[0] + q.corners[2]) * 0.5 - Vec3::new(10.0, 5.0, 0.0)).length() < 1e-3, "{q:?}");
        // Turned a quarter about z: the image's long side (2) now runs along y.
        assert!((q.corners[1] - q.corners[0] - Vec3::new(0.0, 2.0, 0.0)).length() < 1e-3, "{q:?}");
    }

    #[test]
    fn speed_and_acceleration_move_particles_and_stop_clear_removes_them() {
        let accel = "  modifiers {\n    type: MODIFIER_TYPE_ACCELERATION\n    properties { key: MODIFIER_KEY_MAGNITUDE points { x: 0 y: -10 t_x: 1 t_y: 0 } }\n  }\n";
        let spec = effect(
            &[
                prop("EMITTER_KEY_SPAWN_RATE", 1000.0),
                prop("EMITTER_KEY_PARTICLE_LIFE_TIME", 5.0),
                prop("EMITTER_KEY_PARTICLE_SPEED", 5.0),
                accel.to_string(),
            ]
            .concat(),
            0.001,
            1,
        );
        let (mut w, scene, i) = world_with(&spec);
        w.play(i, None);
        w.step(&scene, 0.001);
        // Box emitters send particles up (+Y) at their speed; the acceleration pulls down at 10.
        for _ in 0..100 {
            w.step(&scene, 0.01);
        }
        let p = w.get(i).expect("instance").emitters[0].particles[0];
        assert!((p.velocity.y - (5.0 - 10.0 * 1.0)).abs() < 0.05, "{p:?}");
        // A tint multiplies the particle's colour; reset, it is white again.
        let mut out = Vec::new();
        w.quads(&scene, &mut out);
        let before = out[0].color;
        assert!(w.set_tint(i, hash_str("emitter"), Some([0.5, 1.0, 0.0, 1.0])));
        assert!(!w.set_tint(i, hash_str("nope"), None), "no such emitter");
        out.clear();
        w.quads(&scene, &mut out);
        assert_eq!(out[0].color, [before[0] * 0.5, before[1], 0.0, before[3]]);
        assert!(w.set_tint(i, hash_str("emitter"), None));
        out.clear();
        w.quads(&scene, &mut out);
        assert_eq!(out[0].color, before);
        w.stop(i, true);
        assert_eq!(w.get(i).map(|p| p.count()), Some(0));
    }
}
