//! Collision objects (engine.md section 3) as the runtime sees them, and the checks that turn the
//! fields of a `collisionobject` component (Sinew JSON, or Defold's `CollisionObjectDesc`
//! rewritten into it) into one: every size positive and finite, shapes bounded in number while
//! they are parsed, so a hostile file is refused before anything is allocated for it.
use crate::base::error::LoadError;
use crate::project::json::Located;
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::fmt;

/// Shapes one collision object may hold: Defold's editor makes a handful; past this a file is
/// a mistake or an attack, and the list is refused while it is being read.
pub const MAX_SHAPES: usize = 256;

/// Collision groups a physics world tells apart (Defold's limit: one bit of a 16-bit mask each).
pub const MAX_GROUPS: usize = 16;

/// The largest size, position or mass accepted: beyond it f32 contact maths loses every digit.
pub const MAX_MAGNITUDE: f32 = 1.0e6;
/// The largest `linear_damping` / `angular_damping` taken (a rate, see `collision_object`).
pub const MAX_DAMPING: f32 = 1000.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollisionType {
    /// Moved by the simulation; writes its game object's transform.
    Dynamic,
    /// Follows its game object and pushes dynamic bodies.
    Kinematic,
    /// Follows its game object; never pushed.
    Static,
    /// Follows its game object; reports `trigger_response` and never collides.
    Trigger,
}

impl CollisionType {
    pub const NAMES: &'static str = "dynamic, kinematic, static or trigger";

    /// The Sinew name, or Defold's `COLLISION_OBJECT_TYPE_*` constant.
    pub fn parse(s: &str) -> Option<CollisionType> {
        let s = s.strip_prefix("COLLISION_OBJECT_TYPE_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Some(match s.as_str() {
            "dynamic" => CollisionType::Dynamic,
            "kinematic" => CollisionType::Kinematic,
            "static" => CollisionType::Static,
            "trigger" => CollisionType::Trigger,
            _ => return None,
        })
    }
}

/// Most points of one convex hull shape.
pub const MAX_HULL_POINTS: usize = 256;

/// One shape's geometry, in the collision object's units (before `physics.scale`).
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeKind {
    Sphere {
        radius: f32,
    },
    /// Half extents (in 2D the z extent is ignored).
    Box {
        half: [f32; 3],
    },
    /// `height` is the length of the cylinder between the two caps, along the shape's y.
    Capsule {
        radius: f32,
        height: f32,
    },
    /// The convex hull of these points (Defold's TYPE_HULL: `.convexshape` files or embedded
    /// data, x y z a point). A flat hull (a 2D one: every z equal) is given a thickness of one
    /// unit either side so it has a volume.
    Hull {
        points: std::sync::Arc<[[f32; 3]]>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ShapeSpec {
    pub kind: ShapeKind,
    /// Defold's shape id (`physics.get_shape` / `set_shape` address shapes by it); None when
    /// the file gives none or an empty one.
    pub id: Option<crate::base::hash::Hash>,
    /// Relative to the collision object (the component's own transform already applied).
    pub position: [f32; 3],
    /// Quaternion x, y, z, w (normalized).
    pub rotation: [f32; 4],
}

#[derive(Debug, Clone, PartialEq)]
pub struct CollisionObjectSpec {
    pub collision_type: CollisionType,
    /// kg; only dynamic bodies use it (Defold refuses 0 for them).
    pub mass: f32,
    pub friction: f32,
    pub restitution: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub locked_rotation: bool,
    /// Continuous collision detection, for fast small bodies.
    pub bullet: bool,
    pub group: String,
    pub mask: Vec<String>,
    pub shapes: Vec<ShapeSpec>,
    /// A tile map as its shape (Defold's `collision_shape` naming a `.tilemap`; 2D worlds only).
    pub tiles: Option<std::sync::Arc<TileCollision>>,
    /// Defold's "Generate Collision / Contact / Trigger Events": which messages this object's
    /// scripts get (and, for a world's event listener, whether a pair's events are made at all:
    /// when either side wants them).
    pub events: Events,
}

/// Which of the physics messages an object is sent; Defold's `event_collision`,
/// `event_contact` and `event_trigger`, all on by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Events {
    pub collision: bool,
    pub contact: bool,
    pub trigger: bool,
}

impl Default for Events {
    fn default() -> Self {
        Events { collision: true, contact: true, trigger: true }
    }
}

impl CollisionObjectSpec {
    /// These shapes with the defaults of a component that gives nothing else (mass 1,
    /// friction 0.1, restitution 0.5, no damping, group `default` meeting itself), for code that
    /// makes collision objects without a file (tests, benchmarks).
    pub fn with_shapes(collision_type: CollisionType, shapes: Vec<ShapeSpec>) -> CollisionObjectSpec {
        CollisionObjectSpec {
            collision_type,
            mass: 1.0,
            friction: 0.1,
            restitution: 0.5,
            linear_damping: 0.0,
            angular_damping: 0.0,
            locked_rotation: false,
            bullet: false,
            group: "default".into(),
            mask: vec!["default".into()],
            shapes,
            tiles: None,
            events: Events::default(),
        }
    }
}

/// The hulls of a tile map's tiles that are in a collision group, by group, in the map's frame
/// (x, y): each group is one compound shape in that group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileCollision {
    /// The `.tilemap`: `tilemap.set_tile` on a map of this file in the same game object
    /// changes the shape, as in Defold.
    pub source: String,
    pub groups: Vec<TileGroup>,
    /// The collision object's own position and rotation (x, y, z; quaternion) in its game object.
    pub offset: ([f32; 3], [f32; 4]),
}

#[derive(Debug, Clone, PartialEq)]
pub struct TileGroup {
    pub group: String,
    pub hulls: Vec<Vec<[f32; 2]>>,
}

/// One entry of `shapes`, as written.
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct ShapeDesc {
    pub shape_type: Located<String>,
    #[serde(default, deserialize_with = "crate::project::json::position")]
    pub position: Option<[f32; 3]>,
    pub rotation: Option<[f32; 4]>,
    pub data: Located<Vec<f32>>,
    /// Defold's shape id, for `physics.get_shape` / `set_shape`.
    pub id: Option<String>,
}

/// A `shapes` list refused past [`MAX_SHAPES`] entries while it is read.
#[derive(Clone, Debug)]
pub struct Shapes(pub Vec<Located<ShapeDesc>>);

impl<'de> Deserialize<'de> for Shapes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Shapes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of shapes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shapes, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<Located<ShapeDesc>>()? {
                    if out.len() == MAX_SHAPES {
                        return Err(de::Error::custom(format!(
                            "more than {MAX_SHAPES} shapes in one collision object"
                        )));
                    }
                    out.push(s);
                }
                Ok(Shapes(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The fields of a `collisionobject` component, as parsed.
pub struct CollisionFields<'a> {
    pub id: &'a str,
    /// Where the component is written: problems of no one field (no `shapes`) point here.
    pub at: Option<&'a crate::project::json::Pos>,
    pub collision_type: Option<&'a Located<String>>,
    pub mass: Option<&'a Located<f32>>,
    pub friction: Option<&'a Located<f32>>,
    pub restitution: Option<&'a Located<f32>>,
    pub linear_damping: Option<&'a Located<f32>>,
    pub angular_damping: Option<&'a Located<f32>>,
    pub locked_rotation: Option<bool>,
    pub bullet: Option<bool>,
    /// `event_collision`, `event_contact`, `event_trigger`.
    pub events: [Option<bool>; 3],
    pub group: Option<&'a Located<String>>,
    pub mask: Option<&'a Located<Vec<String>>>,
    pub shapes: Option<&'a Located<Shapes>>,
    /// The tile map named as its shape (`tilemap`), its hulls in the map's frame.
    pub tiles: Option<TileCollision>,
    /// The component's own position and rotation, applied to every shape.
    pub offset: ([f32; 3], [f32; 4]),
}

/// Checks the fields and builds the spec; every problem points at the value that caused it.
pub fn collision_object(f: &CollisionFields, file: &str) -> Result<CollisionObjectSpec, LoadError> {
    let id = f.id;
    let bad = |at: Option<&Located<String>>, msg: String| match at {
        Some(l) => l.error(file, format!("collision object '{id}': {msg}")),
        None => match f.at {
            Some(p) => LoadError::at(p.resource.clone(), p.line, p.column, format!("collision object '{id}': {msg}")),
            None => LoadError::new(file, format!("collision object '{id}': {msg}")),
        },
    };
    let collision_type = match f.collision_type {
        None => CollisionType::Dynamic,
        Some(t) => CollisionType::parse(&t.value).ok_or_else(|| {
            bad(Some(t), format!("unknown collision_type '{}' (expected {})", t.value, CollisionType::NAMES))
        })?,
    };
    let number = |v: Option<&Located<f32>>, name: &str, default: f32, min: f32, max: f32| match v {
        None => Ok(default),
        Some(l) if l.value.is_finite() && l.value >= min && l.value <= max => Ok(l.value),
        Some(l) => Err(l.error(file, format!("collision object '{id}': {name} must be between {min} and {max}"))),
    };
    let mass = number(f.mass, "mass", 1.0, 0.0, MAX_MAGNITUDE)?;
    if collision_type == CollisionType::Dynamic && mass <= 0.0 {
        let msg = "a dynamic collision object needs a mass above 0".to_string();
        return Err(match f.mass {
            Some(l) => l.error(file, format!("collision object '{id}': {msg}")),
            None => bad(None, msg),
        });
    }
    let friction = number(f.friction, "friction", 0.1, 0.0, MAX_MAGNITUDE)?;
    let restitution = number(f.restitution, "restitution", 0.5, 0.0, 1.0)?;
    // Damping is a rate (velocity lost per second, as Box2D's and rapier's), not a fraction:
    // Defold's examples use 1.5 and 2. Only absurd values are refused.
    let linear_damping = number(f.linear_damping, "linear_damping", 0.0, 0.0, MAX_DAMPING)?;
    let angular_damping = number(f.angular_damping, "angular_damping", 0.0, 0.0, MAX_DAMPING)?;
    let group = match f.group {
        Some(g) if g.value.is_empty() => return Err(bad(Some(g), "group must not be empty".into())),
        Some(g) => g.value.clone(),
        None => "default".to_string(),
    };
    let mask = match f.mask {
        Some(m) if m.value.len() > MAX_GROUPS => {
            return Err(m.error(file, format!("collision object '{id}': a mask names at most {MAX_GROUPS} groups")));
        }
        Some(m) if m.value.iter().any(String::is_empty) => {
            return Err(m.error(file, format!("collision object '{id}': a mask group must not be empty")));
        }
        Some(m) => m.value.clone(),
        None => vec![group.clone()],
    };
    let offset_p = glam::Vec3::from(f.offset.0);
    let offset_r = crate::base::quat::unit_quat(f.offset.1).unwrap_or(glam::Quat::IDENTITY);
    let tiles = f.tiles.clone().map(|t| std::sync::Arc::new(TileCollision { offset: f.offset, ..t }));
    let empty = Located { value: Shapes(Vec::new()), at: None };
    let list = match f.shapes {
        Some(l) if l.value.0.is_empty() => {
            return Err(l.error(file, format!("collision object '{id}': `shapes` is empty")));
        }
        Some(l) => l,
        None if tiles.is_some() => &empty,
        None => return Err(bad(None, "needs `shapes` (at least one sphere, box or capsule) or a `tilemap`".into())),
    };
    let mut shapes = Vec::with_capacity(list.value.0.len());
    for (i, s) in list.value.0.iter().enumerate() {
        let here = |msg: String| s.error(file, format!("collision object '{id}', shape {}: {msg}", i + 1));
        let d = &s.value;
        let data = &d.data.value;
        let sizes_ok =
            |n: usize| data.len() == n && data.iter().all(|v| v.is_finite() && *v > 0.0 && *v <= MAX_MAGNITUDE);
        let kind = match d.shape_type.value.to_ascii_lowercase().trim_start_matches("type_") {
            "sphere" if sizes_ok(1) => ShapeKind::Sphere { radius: data[0] },
            "box" if sizes_ok(3) => ShapeKind::Box { half: [data[0], data[1], data[2]] },
            "capsule" if sizes_ok(2) => ShapeKind::Capsule { radius: data[0], height: data[1] },
            t @ ("sphere" | "box" | "capsule") => {
                let want = match t {
                    "sphere" => "[radius]",
                    "box" => "[half x, half y, half z]",
                    _ => "[radius, height]",
                };
                let msg = format!("a {t} takes `data` {want}, each above 0 and at most {MAX_MAGNITUDE}");
                return Err(d.data.error(file, format!("collision object '{id}', shape {}: {msg}", i + 1)));
            }
            "hull" => {
                let n = data.len() / 3;
                if data.len() % 3 != 0 || !(3..=MAX_HULL_POINTS).contains(&n) {
                    let msg = format!(
                        "a hull takes `data` of x, y, z per point, 3 to {MAX_HULL_POINTS} points (got {} numbers)",
                        data.len()
                    );
                    return Err(d.data.error(file, format!("collision object '{id}', shape {}: {msg}", i + 1)));
                }
                if !data.iter().all(|v| v.is_finite() && v.abs() <= MAX_MAGNITUDE) {
                    return Err(d.data.error(
                        file,
                        format!(
                            "collision object '{id}', shape {}: hull points must be finite and within {MAX_MAGNITUDE}",
                            i + 1
                        ),
                    ));
                }
                let mut points: Vec<[f32; 3]> = data.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
                if points.iter().all(|q| q[2] == points[0][2]) {
                    let z = points[0][2];
                    let flat: Vec<[f32; 3]> = points.clone();
                    points = flat
                        .iter()
                        .map(|q| [q[0], q[1], z - 1.0])
                        .chain(flat.iter().map(|q| [q[0], q[1], z + 1.0]))
                        .collect();
                }
                ShapeKind::Hull { points: points.into() }
            }
            other => {
                let msg = format!("unknown shape_type '{other}' (sphere, box, capsule or hull)");
                return Err(d.shape_type.error(file, format!("collision object '{id}', shape {}: {msg}", i + 1)));
            }
        };
        let p = d.position.unwrap_or([0.0; 3]);
        let r = d.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]);
        if !p.iter().all(|v| v.is_finite() && v.abs() <= MAX_MAGNITUDE) {
            return Err(here(format!("position must be finite and within {MAX_MAGNITUDE}")));
        }
        let Some(q) = crate::base::quat::unit_quat(r) else {
            return Err(here("rotation must be a finite, non-zero quaternion".into()));
        };
        let position = offset_p + offset_r * glam::Vec3::from(p);
        let rotation = (offset_r * q).normalize();
        let id = d.id.as_deref().filter(|s| !s.is_empty()).map(crate::base::hash::hash_remembered);
        shapes.push(ShapeSpec { kind, id, position: position.to_array(), rotation: rotation.to_array() });
    }
    Ok(CollisionObjectSpec {
        collision_type,
        mass,
        friction,
        restitution,
        linear_damping,
        angular_damping,
        locked_rotation: f.locked_rotation.unwrap_or(false),
        bullet: f.bullet.unwrap_or(false),
        group,
        mask,
        shapes,
        tiles,
        events: Events {
            collision: f.events[0].unwrap_or(true),
            contact: f.events[1].unwrap_or(true),
            trigger: f.events[2].unwrap_or(true),
        },
    })
}

/// The project's physics settings: `"physics"` of project.json, `[physics]` of game.project.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhysicsSettings {
    /// Box2D-style 2D worlds (`type = 2D`): bodies move in x/y and turn about z only.
    pub two_d: bool,
    /// Physics units per second squared.
    pub gravity: [f32; 3],
    /// Physics units per world unit (Defold's `physics.scale`).
    pub scale: f32,
    /// Draw shapes, contacts and rays over the scene.
    pub debug: bool,
    /// Defold's `allow_dynamic_transforms` (on by default): a script moving, turning or scaling
    /// a body's game object moves, turns or rescales the body, dynamic ones included. Off,
    /// shapes keep the scale they were made at and a dynamic body keeps its own place.
    pub dynamic_transforms: bool,
    /// Whether the world steps at the fixed-update frequency (whole steps, at most
    /// `max_fixed_steps` a frame, or the fixed clock's own limit) or once a frame by the
    /// frame's time: Defold's `use_fixed_timestep`, off by default in game.project; Sinew's
    /// project.json steps at the fixed frequency unless it says otherwise.
    pub fixed_timestep: bool,
    pub max_fixed_steps: Option<u32>,
    /// Defold's `contact_impulse_limit`, in world units as the messages' `applied_impulse`: a
    /// pair of shapes pushing each other less than this in a step sends no collision or contact
    /// message that step (a resting crate stops reporting, its landing still does).
    pub contact_impulse_limit: f32,
    /// Defold's `velocity_threshold` (2D, world units a second): contacts closing slower do not
    /// bounce. Unset: Box2D's fixed 1 physics unit a second.
    pub velocity_threshold: Option<f32>,
    /// Defold's `max_collisions` and `max_contacts`: at most this many touching pairs send
    /// `collision_response` and this many points `contact_point_response` in a step, the rest
    /// dropped with a warning. None: all (project.json's default; game.project's are Defold's
    /// 64 and 128, and 0 there means all, as in Defold).
    pub max_collisions: Option<u32>,
    pub max_contacts: Option<u32>,
}

impl Default for PhysicsSettings {
    fn default() -> Self {
        PhysicsSettings {
            two_d: false,
            gravity: [0.0, -10.0, 0.0],
            scale: 1.0,
            debug: false,
            dynamic_transforms: true,
            fixed_timestep: true,
            max_fixed_steps: None,
            contact_impulse_limit: 0.0,
            velocity_threshold: None,
            max_collisions: None,
            max_contacts: None,
        }
    }
}

/// `"physics"` in project.json, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhysicsFile {
    #[serde(rename = "type")]
    pub ty: Option<Located<String>>,
    pub gravity: Option<Located<[f32; 3]>>,
    pub scale: Option<Located<f32>>,
    pub debug: Option<bool>,
    pub allow_dynamic_transforms: Option<bool>,
    pub use_fixed_timestep: Option<bool>,
    pub max_fixed_timesteps: Option<Located<u32>>,
    pub contact_impulse_limit: Option<Located<f32>>,
    pub velocity_threshold: Option<Located<f32>>,
    pub max_collisions: Option<u32>,
    pub max_contacts: Option<u32>,
}

/// Checks project.json's `"physics"`.
pub fn settings(f: &PhysicsFile, file: &str) -> Result<PhysicsSettings, LoadError> {
    let mut s = PhysicsSettings::default();
    if let Some(t) = &f.ty {
        s.two_d = match t.value.to_ascii_lowercase().as_str() {
            "2d" => true,
            "3d" => false,
            _ => return Err(t.error(file, "physics.type must be \"2d\" or \"3d\"")),
        };
    }
    if let Some(g) = &f.gravity {
        if !g.value.iter().all(|v| v.is_finite() && v.abs() <= MAX_MAGNITUDE) {
            return Err(g.error(file, format!("physics.gravity must be 3 finite numbers within {MAX_MAGNITUDE}")));
        }
        s.gravity = g.value;
    }
    if let Some(sc) = &f.scale {
        s.scale = check_scale(sc.value).map_err(|m| sc.error(file, m))?;
    }
    s.debug = f.debug.unwrap_or(false);
    s.dynamic_transforms = f.allow_dynamic_transforms.unwrap_or(true);
    s.fixed_timestep = f.use_fixed_timestep.unwrap_or(true);
    if let Some(m) = &f.max_fixed_timesteps {
        if m.value == 0 {
            return Err(m.error(file, "physics.max_fixed_timesteps must be at least 1"));
        }
        s.max_fixed_steps = Some(m.value);
    }
    if let Some(l) = &f.contact_impulse_limit {
        s.contact_impulse_limit = check_not_negative("contact_impulse_limit", l.value).map_err(|m| l.error(file, m))?;
    }
    if let Some(v) = &f.velocity_threshold {
        s.velocity_threshold = Some(check_not_negative("velocity_threshold", v.value).map_err(|m| v.error(file, m))?);
    }
    s.max_collisions = f.max_collisions.filter(|&n| n > 0);
    s.max_contacts = f.max_contacts.filter(|&n| n > 0);
    Ok(s)
}

/// A limit or threshold (`contact_impulse_limit`, `velocity_threshold`): a finite number, 0 or
/// more; `key` names it in the message.
pub fn check_not_negative(key: &str, v: f32) -> Result<f32, String> {
    if v.is_finite() && (0.0..=MAX_MAGNITUDE).contains(&v) {
        Ok(v)
    } else {
        Err(format!("physics.{key} must be a number from 0 to {MAX_MAGNITUDE}"))
    }
}

/// Defold's range for `physics.scale`.
pub fn check_scale(v: f32) -> Result<f32, String> {
    if v.is_finite() && (0.0001..=1000.0).contains(&v) {
        Ok(v)
    } else {
        Err("physics.scale must be between 0.0001 and 1000".into())
    }
}
