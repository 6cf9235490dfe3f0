//! Particle effects: Defold's `.particlefx` files (`particle_ddf.proto`: emitters with their
//! properties as curves over the emitter's life and the particles' life, and modifiers), read
//! into runtime types once at load, the atlas of every emitter loaded with them. The game's
//! particle world (`game/particles`) never sees the file format.
use super::defold::read::{Problems, Reader};
use super::defold::text::{Field, Message};
use crate::base::error::LoadError;
use crate::project::sprite::{Atlas, BlendMode};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// Emitters one effect may have.
pub const MAX_EMITTERS: usize = 64;
/// Particles one emitter may hold at once (`max_particle_count`): a bound on a hostile number,
/// not a budget (particles are not allocated ahead; britzl's bunnymark asks for 15,000).
pub const MAX_PARTICLES: u32 = 100_000;
/// Points of one curve.
pub const MAX_CURVE_POINTS: usize = 64;
/// Modifiers of one emitter or effect.
pub const MAX_MODIFIERS: usize = 16;

/// Defold's `EmitterKey`s, in the proto's order: index into [`EmitterSpec::properties`].
pub const EMITTER_KEYS: [&str; 15] = [
    "EMITTER_KEY_SPAWN_RATE",
    "EMITTER_KEY_SIZE_X",
    "EMITTER_KEY_SIZE_Y",
    "EMITTER_KEY_SIZE_Z",
    "EMITTER_KEY_PARTICLE_LIFE_TIME",
    "EMITTER_KEY_PARTICLE_SPEED",
    "EMITTER_KEY_PARTICLE_SIZE",
    "EMITTER_KEY_PARTICLE_RED",
    "EMITTER_KEY_PARTICLE_GREEN",
    "EMITTER_KEY_PARTICLE_BLUE",
    "EMITTER_KEY_PARTICLE_ALPHA",
    "EMITTER_KEY_PARTICLE_ROTATION",
    "EMITTER_KEY_PARTICLE_STRETCH_FACTOR_X",
    "EMITTER_KEY_PARTICLE_STRETCH_FACTOR_Y",
    "EMITTER_KEY_PARTICLE_ANGULAR_VELOCITY",
];

/// A missing emitter property is 0, as in Defold, whose editor leaves a curve that is 0 out of
/// the file: an emitter with only `EMITTER_KEY_PARTICLE_RED` (and alpha) makes red particles.
const EMITTER_DEFAULTS: [f32; 15] = [0.0; 15];

/// Defold's `ParticleKey`s (multipliers, or additions for rotation, over a particle's life):
/// index into [`EmitterSpec::over_life`].
pub const PARTICLE_KEYS: [&str; 9] = [
    "PARTICLE_KEY_SCALE",
    "PARTICLE_KEY_RED",
    "PARTICLE_KEY_GREEN",
    "PARTICLE_KEY_BLUE",
    "PARTICLE_KEY_ALPHA",
    "PARTICLE_KEY_ROTATION",
    "PARTICLE_KEY_STRETCH_FACTOR_X",
    "PARTICLE_KEY_STRETCH_FACTOR_Y",
    "PARTICLE_KEY_ANGULAR_VELOCITY",
];

/// A missing particle property changes nothing over the particle's life: the multipliers are
/// 1 (Defold's editor writes all of them; a hand-written file may not).
const PARTICLE_DEFAULTS: [f32; 9] = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];

pub mod key {
    pub const SPAWN_RATE: usize = 0;
    pub const SIZE_X: usize = 1;
    pub const SIZE_Y: usize = 2;
    pub const SIZE_Z: usize = 3;
    pub const LIFE_TIME: usize = 4;
    pub const SPEED: usize = 5;
    pub const SIZE: usize = 6;
    pub const RED: usize = 7;
    pub const ROTATION: usize = 11;
    pub const STRETCH_X: usize = 12;
    pub const ANGULAR_VELOCITY: usize = 14;
    /// Over a particle's life.
    pub const LIFE_SCALE: usize = 0;
    pub const LIFE_RED: usize = 1;
    pub const LIFE_ROTATION: usize = 5;
    pub const LIFE_STRETCH_X: usize = 6;
    pub const LIFE_ANGULAR_VELOCITY: usize = 8;
}

/// A curve over 0..1 (Defold's spline: points with tangents, Hermite between them), and the
/// spread a value drawn from it is varied by (± uniformly).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// x, y, tangent x, tangent y; x ascending. Empty: the constant `value`.
    pub points: Vec<[f32; 4]>,
    pub value: f32,
    pub spread: f32,
}

impl Curve {
    pub fn constant(value: f32) -> Curve {
        Curve { points: Vec::new(), value, spread: 0.0 }
    }

    /// The curve at `t` (clamped to its first and last points).
    pub fn at(&self, t: f32) -> f32 {
        let p = &self.points;
        match p.len() {
            0 => self.value,
            1 => p[0][1],
            _ => {
                if t <= p[0][0] {
                    return p[0][1];
                }
                let Some(k) = p.windows(2).position(|w| t <= w[1][0]) else { return p[p.len() - 1][1] };
                let (a, b) = (p[k], p[k + 1]);
                let dx = b[0] - a[0];
                if dx <= 1e-6 {
                    return b[1];
                }
                let u = (t - a[0]) / dx;
                let slope = |q: [f32; 4]| if q[2].abs() < 1e-6 { 0.0 } else { q[3] / q[2] };
                let (m0, m1) = (slope(a) * dx, slope(b) * dx);
                let (u2, u3) = (u * u, u * u * u);
                (2.0 * u3 - 3.0 * u2 + 1.0) * a[1]
                    + (u3 - 2.0 * u2 + u) * m0
                    + (-2.0 * u3 + 3.0 * u2) * b[1]
                    + (u3 - u2) * m1
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmitterShape {
    Circle,
    Cone2d,
    Box,
    Sphere,
    Cone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    Default,
    InitialDirection,
    MovementDirection,
    AngularVelocity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModifierKind {
    Acceleration,
    Drag,
    Radial,
    Vortex,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ModifierSpec {
    pub kind: ModifierKind,
    /// Drag only along the modifier's direction (its y axis).
    pub use_direction: bool,
    pub position: Vec3,
    pub rotation: Quat,
    pub magnitude: Curve,
    pub max_distance: Curve,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EmitterSpec {
    pub id: String,
    pub looping: bool,
    pub duration: f32,
    pub duration_spread: f32,
    pub start_delay: f32,
    pub start_delay_spread: f32,
    /// Seconds the emitter is run ahead when it starts.
    pub start_offset: f32,
    /// Particles keep where they were emitted (world space) rather than follow the emitter.
    pub world_space: bool,
    pub position: Vec3,
    pub rotation: Quat,
    pub atlas: Arc<Atlas>,
    /// Index into the atlas's flipbooks.
    pub animation: u32,
    pub material: String,
    pub blend: BlendMode,
    pub orientation: Orientation,
    pub inherit_velocity: f32,
    pub max_particles: u32,
    pub shape: EmitterShape,
    /// Over the emitter's duration, by [`EMITTER_KEYS`].
    pub properties: Vec<Curve>,
    /// Over each particle's life, by [`PARTICLE_KEYS`].
    pub over_life: Vec<Curve>,
    /// The emitter's own and the effect's modifiers (the effect's apply to every emitter).
    pub modifiers: Vec<ModifierSpec>,
    /// Particles the size of their image (`SIZE_MODE_AUTO`), times the size property.
    pub auto_size: bool,
    pub stretch_with_velocity: bool,
}

/// A `particlefx` component: its effect (shared by the components naming the same file) and its
/// own place in its game object.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleFxComponent {
    pub effect: Arc<ParticleFxSpec>,
    pub transform: crate::project::ComponentTransform,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParticleFxSpec {
    pub path: String,
    pub emitters: Vec<EmitterSpec>,
}

/// Loads an emitter's atlas or tile source by path (the field naming it, for errors).
pub type AtlasLoader<'a> = dyn FnMut(&str, &Field) -> Result<Arc<Atlas>, LoadError> + 'a;

const EFFECT: &[&str] = &["emitters", "modifiers"];
const EMITTER: &[&str] = &[
    "id",
    "mode",
    "duration",
    "space",
    "position",
    "rotation",
    "tile_source",
    "animation",
    "material",
    "blend_mode",
    "particle_orientation",
    "inherit_velocity",
    "max_particle_count",
    "type",
    "start_delay",
    "properties",
    "particle_properties",
    "modifiers",
    "size_mode",
    "start_delay_spread",
    "duration_spread",
    "stretch_with_velocity",
    "start_offset",
    "pivot",
];
const PROPERTY: &[&str] = &["key", "points", "spread"];
const MODIFIER: &[&str] = &["type", "use_direction", "position", "rotation", "properties"];
const POINT: &[&str] = &["x", "y", "t_x", "t_y"];

/// Reads a `.particlefx` file's text; `atlas(path, at)` loads an emitter's image (a `.atlas` or
/// `.tilesource`, shared with sprites). Every problem is collected.
pub fn parse(path: &str, text: &str, atlas: &mut AtlasLoader) -> Result<ParticleFxSpec, Vec<LoadError>> {
    let m = super::defold::text::parse(path, text)?;
    let mut p = Problems::default();
    let r = Reader::new(&m, "a particle effect", EFFECT, EFFECT, &mut p);
    let shared: Vec<ModifierSpec> = r.all("modifiers").filter_map(|f| modifier(f, &mut p)).collect();
    let mut emitters = Vec::new();
    for f in r.all("emitters") {
        if emitters.len() == MAX_EMITTERS {
            p.at(&f.at, format!("more than {MAX_EMITTERS} emitters"));
            break;
        }
        if let Some(e) = emitter(f, &shared, atlas, &mut p) {
            emitters.push(e);
        }
    }
    if shared.len() > MAX_MODIFIERS {
        p.0.push(LoadError::new(path, format!("more than {MAX_MODIFIERS} modifiers")));
    }
    if p.0.is_empty() { Ok(ParticleFxSpec { path: path.to_string(), emitters }) } else { Err(p.0) }
}

/// An emitter's or modifier's `rotation`, unit; a zero one is a problem at the field.
fn rotation(r: &Reader, p: &mut Problems) -> Quat {
    let Some((q, f)) = r.vector::<4>("rotation", [0.0, 0.0, 0.0, 1.0], p) else { return Quat::IDENTITY };
    crate::base::quat::unit_quat(q).unwrap_or_else(|| {
        p.at(&f.at, "`rotation` must not be a zero quaternion");
        Quat::IDENTITY
    })
}

fn enum_of<T: Copy>(r: &Reader, name: &str, table: &[(&str, T)], default: T, p: &mut Problems) -> T {
    let Some((v, f)) = r.enum_name(name, p) else { return default };
    match table.iter().find(|(n, _)| *n == v) {
        Some(&(_, t)) => t,
        None => {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            p.at(&f.value_at, format!("`{name}` must be one of {}", names.join(", ")));
            default
        }
    }
}

fn finite(r: &Reader, name: &str, default: f32, min: f32, max: f32, p: &mut Problems) -> f32 {
    let Some((v, f)) = r.number(name, p) else { return default };
    let v = v as f32;
    if !(min..=max).contains(&v) {
        p.at(&f.value_at, format!("`{name}` must be between {min} and {max}"));
        return default;
    }
    v
}

/// The curves of `properties` (or `particle_properties`) entries by key name.
fn curves(r: &Reader, field: &'static str, keys: &[&str], defaults: &[f32], p: &mut Problems) -> Vec<Curve> {
    let mut out: Vec<Curve> = defaults.iter().map(|&v| Curve::constant(v)).collect();
    for f in r.all(field) {
        let Some(m) = super::defold::read::message(f, "a property", p) else { continue };
        let pr = Reader::new(m, "a property", PROPERTY, &["points"], p);
        let Some((k, kf)) = pr.enum_name("key", p) else {
            p.0.push(pr.missing("key"));
            continue;
        };
        let Some(i) = keys.iter().position(|n| *n == k) else {
            p.at(&kf.value_at, format!("unknown property key {k}"));
            continue;
        };
        out[i] = curve(&pr, p);
    }
    out
}

fn curve(r: &Reader, p: &mut Problems) -> Curve {
    const LIMIT: f32 = 1e9;
    let mut points = Vec::new();
    for f in r.all("points") {
        if points.len() == MAX_CURVE_POINTS {
            p.at(&f.at, format!("more than {MAX_CURVE_POINTS} points in a curve"));
            break;
        }
        let Some(m) = super::defold::read::message(f, "a curve point", p) else { continue };
        let pr = Reader::new(m, "a curve point", POINT, &[], p);
        let v: [f32; 4] = std::array::from_fn(|k| {
            let n = POINT[k];
            // Defold leaves fields that are 0 out, `t_x` included.
            finite(&pr, n, 0.0, -LIMIT, LIMIT, p)
        });
        points.push(v);
    }
    // Defold's editor keeps points in x order; a file that does not is read in that order too.
    points.sort_by(|a: &[f32; 4], b| a[0].total_cmp(&b[0]));
    // Drawn as `spread × [-1, 1]`, so a negative spread (Defold takes one) varies as much.
    let spread = finite(r, "spread", 0.0, -LIMIT, LIMIT, p);
    let value = points.first().map_or(0.0, |q| q[1]);
    Curve { points, value, spread }
}

fn modifier(f: &Field, p: &mut Problems) -> Option<ModifierSpec> {
    let m = super::defold::read::message(f, "a modifier", p)?;
    let r = Reader::new(m, "a modifier", MODIFIER, &["properties"], p);
    let kinds = [
        ("MODIFIER_TYPE_ACCELERATION", ModifierKind::Acceleration),
        ("MODIFIER_TYPE_DRAG", ModifierKind::Drag),
        ("MODIFIER_TYPE_RADIAL", ModifierKind::Radial),
        ("MODIFIER_TYPE_VORTEX", ModifierKind::Vortex),
    ];
    if r.field("type").is_none() {
        p.0.push(r.missing("type"));
    }
    let kind = enum_of(&r, "type", &kinds, ModifierKind::Acceleration, p);
    let position = r.vector::<3>("position", [0.0; 3], p).map_or([0.0; 3], |v| v.0);
    let rotation = rotation(&r, p);
    let mut c = curves(&r, "properties", &["MODIFIER_KEY_MAGNITUDE", "MODIFIER_KEY_MAX_DISTANCE"], &[0.0, 0.0], p);
    let use_direction = r.number("use_direction", p).is_some_and(|(v, _)| v != 0.0);
    let max_distance = c.pop().unwrap_or(Curve::constant(0.0));
    let magnitude = c.pop().unwrap_or(Curve::constant(0.0));
    Some(ModifierSpec { kind, use_direction, position: Vec3::from(position), rotation, magnitude, max_distance })
}

fn emitter(f: &Field, shared: &[ModifierSpec], atlas: &mut AtlasLoader, p: &mut Problems) -> Option<EmitterSpec> {
    let m: &Message = super::defold::read::message(f, "an emitter", p)?;
    let r = Reader::new(m, "an emitter", EMITTER, &["properties", "particle_properties", "modifiers"], p);
    let id = r.string("id", p).map_or("emitter", |(s, _)| s).to_string();
    let (tile, tf) = r.required("tile_source", p)?;
    let source = match atlas(tile, tf) {
        Ok(a) => a,
        Err(e) => {
            p.0.push(e);
            return None;
        }
    };
    let animation = match r.string("animation", p) {
        Some((name, af)) => match source.animations.iter().position(|a| a.id == name) {
            Some(i) => i as u32,
            None => {
                let ids: Vec<&str> = source.animations.iter().map(|a| a.id.as_str()).collect();
                p.at(
                    &af.value_at,
                    format!("emitter '{id}': no animation '{name}' in {tile} (it has {})", ids.join(", ")),
                );
                u32::MAX
            }
        },
        None => 0,
    };
    if source.animations.is_empty() {
        p.at(&tf.value_at, format!("emitter '{id}': {tile} has no images"));
    }
    let blend = enum_of(
        &r,
        "blend_mode",
        &[
            ("BLEND_MODE_ALPHA", BlendMode::Alpha),
            ("BLEND_MODE_ADD", BlendMode::Add),
            ("BLEND_MODE_ADD_ALPHA", BlendMode::Add),
            ("BLEND_MODE_MULT", BlendMode::Multiply),
            ("BLEND_MODE_SCREEN", BlendMode::Screen),
        ],
        BlendMode::Alpha,
        p,
    );
    let shape = enum_of(
        &r,
        "type",
        &[
            ("EMITTER_TYPE_CIRCLE", EmitterShape::Circle),
            ("EMITTER_TYPE_2DCONE", EmitterShape::Cone2d),
            ("EMITTER_TYPE_BOX", EmitterShape::Box),
            ("EMITTER_TYPE_SPHERE", EmitterShape::Sphere),
            ("EMITTER_TYPE_CONE", EmitterShape::Cone),
        ],
        EmitterShape::Circle,
        p,
    );
    let orientation = enum_of(
        &r,
        "particle_orientation",
        &[
            ("PARTICLE_ORIENTATION_DEFAULT", Orientation::Default),
            ("PARTICLE_ORIENTATION_INITIAL_DIRECTION", Orientation::InitialDirection),
            ("PARTICLE_ORIENTATION_MOVEMENT_DIRECTION", Orientation::MovementDirection),
            ("PARTICLE_ORIENTATION_ANGULAR_VELOCITY", Orientation::AngularVelocity),
        ],
        Orientation::Default,
        p,
    );
    let looping = enum_of(&r, "mode", &[("PLAY_MODE_ONCE", false), ("PLAY_MODE_LOOP", true)], false, p);
    let world_space =
        enum_of(&r, "space", &[("EMISSION_SPACE_WORLD", true), ("EMISSION_SPACE_EMITTER", false)], true, p);
    let auto_size = enum_of(&r, "size_mode", &[("SIZE_MODE_MANUAL", false), ("SIZE_MODE_AUTO", true)], false, p);
    const SECONDS: f32 = 1e6;
    let max = r.number("max_particle_count", p).map_or(0.0, |(v, _)| v);
    if !(0.0..=f64::from(MAX_PARTICLES)).contains(&max) {
        let at = r.field("max_particle_count").map(|f| f.value_at.clone());
        if let Some(at) = at {
            p.at(&at, format!("emitter '{id}': `max_particle_count` must be between 0 and {MAX_PARTICLES}"));
        }
        return None;
    }
    let mut modifiers: Vec<ModifierSpec> = r.all("modifiers").filter_map(|f| modifier(f, p)).collect();
    // The other fields were read for their problems too; an emitter without its image is none.
    if animation == u32::MAX || source.animations.is_empty() {
        return None;
    }
    modifiers.extend(shared.iter().cloned());
    if modifiers.len() > MAX_MODIFIERS {
        p.at(&f.at, format!("emitter '{id}': more than {MAX_MODIFIERS} modifiers"));
        modifiers.truncate(MAX_MODIFIERS);
    }
    Some(EmitterSpec {
        looping,
        duration: finite(&r, "duration", 0.0, 0.0, SECONDS, p),
        duration_spread: finite(&r, "duration_spread", 0.0, 0.0, SECONDS, p),
        start_delay: finite(&r, "start_delay", 0.0, 0.0, SECONDS, p),
        start_delay_spread: finite(&r, "start_delay_spread", 0.0, 0.0, SECONDS, p),
        start_offset: finite(&r, "start_offset", 0.0, 0.0, SECONDS, p),
        world_space,
        position: Vec3::from(r.vector::<3>("position", [0.0; 3], p).map_or([0.0; 3], |v| v.0)),
        rotation: rotation(&r, p),
        atlas: source,
        animation,
        material: r.string("material", p).map_or(String::new(), |(s, _)| s.to_string()),
        blend,
        orientation,
        inherit_velocity: finite(&r, "inherit_velocity", 0.0, -1e3, 1e3, p),
        max_particles: max as u32,
        shape,
        properties: curves(&r, "properties", &EMITTER_KEYS, &EMITTER_DEFAULTS, p),
        over_life: curves(&r, "particle_properties", &PARTICLE_KEYS, &PARTICLE_DEFAULTS, p),
        modifiers,
        auto_size,
        stretch_with_velocity: r.bool("stretch_with_velocity", p).is_some_and(|(b, _)| b),
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_passes_through_its_points_and_follows_its_tangents() {
        let c = Curve { points: vec![[0.0, 0.0, 1.0, 0.0], [1.0, 10.0, 1.0, 0.0]], value: 0.0, spread: 0.0 };
        assert_eq!(c.at(0.0), 0.0);
        assert_eq!(c.at(1.0), 10.0);
        // Flat tangents at both ends: the smoothstep, 5 in the middle, 1.5625 at a quarter.
        assert!((c.at(0.5) - 5.0).abs() < 1e-5);
        assert!((c.at(0.25) - 1.5625).abs() < 1e-5);
        // A line with its own slope as tangents is the line.
        let line = Curve { points: vec![[0.0, 1.0, 1.0, 2.0], [1.0, 3.0, 1.0, 2.0]], value: 0.0, spread: 0.0 };
        assert!((line.at(0.3) - 1.6).abs() < 1e-5);
        assert_eq!(line.at(-1.0), 1.0, "clamped before the first point");
        assert_eq!(line.at(2.0), 3.0, "and after the last");
        assert_eq!(Curve::constant(4.0).at(0.7), 4.0);
    }
}
