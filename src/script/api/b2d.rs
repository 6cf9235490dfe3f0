//! FFI endpoints of Box2D's own API (`b2d`, `b2d.body`, `b2d.shape`, `b2d.joint`,
//! `b2d.world`; Defold's 2D physics extension, its Box2D 3 form). Lua side: `lua/b2d.lua`, which
//! keeps handles as small tables and reads Defold's definition tables into [`ShapeDef`] and
//! [`JointDef`]. The work is `game::physics::b2d`.
use super::types::V4;
use super::{Ctx, put, slice, world_status};
use crate::base::hash::Hash;
use crate::game::World;
use crate::game::physics::b2d::{JointType, ShapeRef};
use crate::game::physics::simulation::{Geom, Handle, JointDesc, JointKind, Material};
use crate::project::physics::CollisionType;
use crate::script::boundary::{OK, fail};
use glam::Vec3;

/// Box2D's `b2ShapeType` numbers, which Defold's `b2d.shape.SHAPE_TYPE_*` are; a chain is
/// Sinew's own (Box2D's chain segment), reported as a segment as Defold does.
pub mod shape_type {
    pub const CIRCLE: i32 = 0;
    pub const CAPSULE: i32 = 1;
    pub const SEGMENT: i32 = 2;
    pub const POLYGON: i32 = 3;
    pub const CHAIN: i32 = 4;
}

/// The Box2D version Sinew's `b2d` follows (`b2d.get_version()`).
pub const VERSION: [u32; 3] = [3, 1, 0];

/// Vertices a polygon may have (Box2D's `B2_MAX_POLYGON_VERTICES`); a chain may have more.
pub const MAX_POLYGON_VERTICES: u32 = 8;
/// Vertices of one chain, and shapes one query (or `get_shapes`) answers.
pub const MAX_CHAIN_VERTICES: u32 = 2000;
pub const MAX_RESULTS: u32 = 1000;

/// A shape definition table, read by Lua (world units; NaN: not given).
#[repr(C)]
pub struct ShapeDef {
    pub ty: i32,
    pub radius: f32,
    pub center: [f32; 2],
    pub a: [f32; 2],
    pub b: [f32; 2],
    pub half: [f32; 2],
    pub angle: f32,
    /// 1: a box of `half` extents (else a polygon of `vertices`).
    pub is_box: i32,
    pub vertices: *const f32,
    pub nvertices: u32,
    pub closed: i32,
    pub friction: f32,
    pub restitution: f32,
    pub density: f32,
    pub sensor: i32,
}

/// A joint definition table, read by Lua (world units; Box2D's defaults where not given).
#[repr(C)]
pub struct JointDef {
    pub anchor_a: [f32; 2],
    pub anchor_b: [f32; 2],
    pub axis: [f32; 2],
    pub target: [f32; 2],
    pub reference_angle: f32,
    pub lower: f32,
    pub upper: f32,
    pub max_motor: f32,
    pub motor_speed: f32,
    pub hertz: f32,
    pub damping_ratio: f32,
    pub max_force: f32,
    pub enable_limit: i32,
    pub enable_motor: i32,
    pub collide: i32,
}

crate::c_struct!(c_shape_def: ShapeDef as "sinew_b2d_shape" {
    ty: i32 = ty, radius: f32 = radius, center: [f32; 2] = center, a: [f32; 2] = a, b: [f32; 2] = b,
    half: [f32; 2] = half, angle: f32 = angle, is_box: i32 = is_box, vertices: *const f32 = vertices,
    nvertices: u32 = nvertices, closed: i32 = closed, friction: f32 = friction,
    restitution: f32 = restitution, density: f32 = density, sensor: i32 = sensor,
});
crate::c_struct!(c_joint_def: JointDef as "sinew_b2d_joint" {
    anchor_a: [f32; 2] = anchor_a, anchor_b: [f32; 2] = anchor_b, axis: [f32; 2] = axis,
    target: [f32; 2] = target, reference_angle: f32 = reference_angle, lower: f32 = lower,
    upper: f32 = upper, max_motor: f32 = max_motor, motor_speed: f32 = motor_speed, hertz: f32 = hertz,
    damping_ratio: f32 = damping_ratio, max_force: f32 = max_force, enable_limit: i32 = enable_limit,
    enable_motor: i32 = enable_motor, collide: i32 = collide,
});

/// The structs above, for `boundary::structs`.
pub fn structs() -> Vec<crate::script::boundary::CStruct> {
    vec![c_shape_def(), c_joint_def()]
}

/// The `op` of `b2d_body`: setters take `x, y, z, w`, getters write `out`.
pub mod body_op {
    pub const SET_LINEAR_VELOCITY: i32 = 0;
    pub const SET_ANGULAR_VELOCITY: i32 = 1;
    pub const SET_AWAKE: i32 = 2;
    pub const SET_ACTIVE: i32 = 3;
    pub const SET_TRANSFORM: i32 = 4;
    pub const SET_GRAVITY_SCALE: i32 = 5;
    pub const SET_LINEAR_DAMPING: i32 = 6;
    pub const SET_ANGULAR_DAMPING: i32 = 7;
    pub const SET_FIXED_ROTATION: i32 = 8;
    pub const RESET_MASS_DATA: i32 = 9;
    pub const APPLY_LINEAR_IMPULSE: i32 = 10;
    pub const APPLY_FORCE: i32 = 11;
    pub const GET_POSITION: i32 = 20;
    pub const GET_LINEAR_VELOCITY: i32 = 21;
    pub const GET_ANGULAR_VELOCITY: i32 = 22;
    pub const GET_WORLD_CENTER: i32 = 23;
    pub const GET_LOCAL_POINT: i32 = 24;
    pub const GET_WORLD_POINT: i32 = 25;
    pub const GET_ANGLE: i32 = 26;
    pub const GET_MASS: i32 = 27;
    pub const IS_AWAKE: i32 = 28;
    pub const IS_ACTIVE: i32 = 29;
    pub const GET_TYPE: i32 = 30;
    pub const GET_GRAVITY_SCALE: i32 = 31;
    pub const GET_LINEAR_DAMPING: i32 = 32;
}

/// The `op` of `b2d_joint_op`.
pub mod joint_op {
    pub const SET_MOTOR_SPEED: i32 = 0;
    pub const SET_MOUSE_TARGET: i32 = 1;
    pub const GET_TRANSLATION: i32 = 2;
    pub const WAKE_BODIES: i32 = 3;
}

/// The `op` of `b2d_world_op`.
pub mod world_op {
    pub const SET_GRAVITY: i32 = 0;
    pub const GET_GRAVITY: i32 = 1;
    pub const SET_JOINT_TUNING: i32 = 2;
}

/// The `kind` of `b2d_query`.
pub mod query {
    pub const AABB: i32 = 0;
    pub const SHAPE: i32 = 1;
    pub const RAY: i32 = 2;
}

/// Box2D's body types (`b2d.body.B2_*_BODY`).
pub mod body_type {
    pub const STATIC: i32 = 0;
    pub const KINEMATIC: i32 = 1;
    pub const DYNAMIC: i32 = 2;
}

/// The `K` constants `lua/b2d.lua` reads.
pub fn constants() -> Vec<(&'static str, f64)> {
    use body_op as b;
    let ints = [
        ("B2D_SHAPE_CIRCLE", shape_type::CIRCLE),
        ("B2D_SHAPE_CAPSULE", shape_type::CAPSULE),
        ("B2D_SHAPE_SEGMENT", shape_type::SEGMENT),
        ("B2D_SHAPE_POLYGON", shape_type::POLYGON),
        ("B2D_SHAPE_CHAIN", shape_type::CHAIN),
        // Defold's aliases: a box is a polygon, an edge a segment.
        ("B2D_SHAPE_BOX", shape_type::POLYGON),
        ("B2D_SHAPE_EDGE", shape_type::SEGMENT),
        ("B2D_TYPE_STATIC", body_type::STATIC),
        ("B2D_TYPE_KINEMATIC", body_type::KINEMATIC),
        ("B2D_TYPE_DYNAMIC", body_type::DYNAMIC),
        ("B2D_BODY_SET_LINEAR_VELOCITY", b::SET_LINEAR_VELOCITY),
        ("B2D_BODY_SET_ANGULAR_VELOCITY", b::SET_ANGULAR_VELOCITY),
        ("B2D_BODY_SET_AWAKE", b::SET_AWAKE),
        ("B2D_BODY_SET_ACTIVE", b::SET_ACTIVE),
        ("B2D_BODY_SET_TRANSFORM", b::SET_TRANSFORM),
        ("B2D_BODY_SET_GRAVITY_SCALE", b::SET_GRAVITY_SCALE),
        ("B2D_BODY_SET_LINEAR_DAMPING", b::SET_LINEAR_DAMPING),
        ("B2D_BODY_SET_ANGULAR_DAMPING", b::SET_ANGULAR_DAMPING),
        ("B2D_BODY_SET_FIXED_ROTATION", b::SET_FIXED_ROTATION),
        ("B2D_BODY_RESET_MASS_DATA", b::RESET_MASS_DATA),
        ("B2D_BODY_APPLY_LINEAR_IMPULSE", b::APPLY_LINEAR_IMPULSE),
        ("B2D_BODY_APPLY_FORCE", b::APPLY_FORCE),
        ("B2D_BODY_GET_POSITION", b::GET_POSITION),
        ("B2D_BODY_GET_LINEAR_VELOCITY", b::GET_LINEAR_VELOCITY),
        ("B2D_BODY_GET_ANGULAR_VELOCITY", b::GET_ANGULAR_VELOCITY),
        ("B2D_BODY_GET_WORLD_CENTER", b::GET_WORLD_CENTER),
        ("B2D_BODY_GET_LOCAL_POINT", b::GET_LOCAL_POINT),
        ("B2D_BODY_GET_WORLD_POINT", b::GET_WORLD_POINT),
        ("B2D_BODY_GET_ANGLE", b::GET_ANGLE),
        ("B2D_BODY_GET_MASS", b::GET_MASS),
        ("B2D_BODY_IS_AWAKE", b::IS_AWAKE),
        ("B2D_BODY_IS_ACTIVE", b::IS_ACTIVE),
        ("B2D_BODY_GET_TYPE", b::GET_TYPE),
        ("B2D_BODY_GET_GRAVITY_SCALE", b::GET_GRAVITY_SCALE),
        ("B2D_BODY_GET_LINEAR_DAMPING", b::GET_LINEAR_DAMPING),
        ("B2D_JOINT_SET_MOTOR_SPEED", joint_op::SET_MOTOR_SPEED),
        ("B2D_JOINT_SET_MOUSE_TARGET", joint_op::SET_MOUSE_TARGET),
        ("B2D_JOINT_GET_TRANSLATION", joint_op::GET_TRANSLATION),
        ("B2D_JOINT_WAKE_BODIES", joint_op::WAKE_BODIES),
        ("B2D_WORLD_SET_GRAVITY", world_op::SET_GRAVITY),
        ("B2D_WORLD_GET_GRAVITY", world_op::GET_GRAVITY),
        ("B2D_WORLD_SET_JOINT_TUNING", world_op::SET_JOINT_TUNING),
        ("B2D_QUERY_AABB", query::AABB),
        ("B2D_QUERY_SHAPE", query::SHAPE),
        ("B2D_QUERY_RAY", query::RAY),
    ];
    let mut k: Vec<(&'static str, f64)> = ints.iter().map(|&(n, v)| (n, f64::from(v))).collect();
    k.extend(JOINT_TYPES.iter().enumerate().map(|(i, (_, name))| (*name, i as f64)));
    k.extend([
        ("B2D_MAX_POLYGON_VERTICES", f64::from(MAX_POLYGON_VERTICES)),
        ("B2D_MAX_CHAIN_VERTICES", f64::from(MAX_CHAIN_VERTICES)),
        ("B2D_MAX_RESULTS", f64::from(MAX_RESULTS)),
        // A query filter without `mask_bits` meets every group.
        ("B2D_ALL_GROUPS", f64::from(u32::MAX)),
        ("B2D_VERSION_MAJOR", f64::from(VERSION[0])),
        ("B2D_VERSION_MINOR", f64::from(VERSION[1])),
        ("B2D_VERSION_REVISION", f64::from(VERSION[2])),
    ]);
    k
}

fn v2(p: [f32; 2]) -> Vec3 {
    Vec3::new(p[0], p[1], 0.0)
}

fn finite(v: &[f32]) -> Result<(), String> {
    if v.iter().all(|x| x.is_finite()) { Ok(()) } else { Err("the value must be finite".into()) }
}

fn positive(r: f32, what: &str) -> Result<f32, String> {
    if r.is_finite() && r > 0.0 { Ok(r) } else { Err(format!("{what} must be a positive number")) }
}

/// A definition's geometry.
///
/// # Safety
/// `d.vertices` is null or points at `2 * d.nvertices` floats.
unsafe fn geom(d: &ShapeDef) -> Result<Geom, String> {
    let cap = if d.ty == shape_type::CHAIN { MAX_CHAIN_VERTICES } else { MAX_POLYGON_VERTICES };
    let points = || -> Result<Vec<Vec3>, String> {
        if d.nvertices > cap {
            return Err(format!("Expected at most {cap} vertices, got {}.", d.nvertices));
        }
        // SAFETY: the caller's promise.
        let f = unsafe { slice(d.vertices, 2 * d.nvertices as usize) };
        finite(f)?;
        Ok(f.chunks_exact(2).map(|p| Vec3::new(p[0], p[1], 0.0)).collect())
    };
    finite(&[d.center[0], d.center[1], d.a[0], d.a[1], d.b[0], d.b[1], d.angle])?;
    Ok(match d.ty {
        shape_type::CIRCLE => Geom::Circle { center: v2(d.center), radius: positive(d.radius, "radius")? },
        shape_type::CAPSULE => Geom::Capsule { a: v2(d.a), b: v2(d.b), radius: positive(d.radius, "radius")? },
        shape_type::SEGMENT => Geom::Segment { a: v2(d.a), b: v2(d.b) },
        shape_type::POLYGON if d.is_box != 0 => {
            Geom::boxed(positive(d.half[0], "hx")?, positive(d.half[1], "hy")?, v2(d.center), d.angle)
        }
        shape_type::POLYGON => {
            let vertices = points()?;
            if vertices.len() < 3 {
                return Err(format!("Expected 3-{MAX_POLYGON_VERTICES} vertices, got {}.", vertices.len()));
            }
            Geom::Polygon { vertices }
        }
        shape_type::CHAIN => {
            let vertices = points()?;
            let least = if d.closed != 0 { 4 } else { 2 };
            if vertices.len() < least {
                return Err(format!("Expected at least {least} vertices, got {}.", vertices.len()));
            }
            Geom::Chain { vertices, closed: d.closed != 0 }
        }
        t => return Err(format!("Unsupported shape type {t}.")),
    })
}

/// Box2D's default where a definition leaves a number out.
fn or(x: f32, default: f32) -> f32 {
    if x.is_nan() { default } else { x }
}

fn shape_ref(space: u32, h0: u32, h1: u32) -> ShapeRef {
    ShapeRef { space, collider: Handle(h0, h1) }
}

/// Writes a shape handle as three numbers (world, collider index, generation).
///
/// # Safety
/// `out` is null or points at 3 writable u32.
unsafe fn put_shape(out: *mut u32, s: ShapeRef) -> i32 {
    if out.is_null() {
        return fail("null shape out-pointer".into());
    }
    // SAFETY: the caller's promise.
    unsafe {
        *out = s.space;
        *out.add(1) = s.collider.0;
        *out.add(2) = s.collider.1;
    }
    OK
}

/// Box2D's `B2_LINEAR_SLOP` (physics units) and angular slop (radians).
const LINEAR_SLOP: f32 = 0.005;
const ANGULAR_SLOP: f32 = 2.0 / 180.0 * std::f32::consts::PI;

/// The joint a definition describes, in physics units (`s`: `physics.scale`).
fn joint_desc(ty: JointType, d: &JointDef, s: f32) -> Result<JointDesc, String> {
    let all = [
        d.anchor_a[0], d.anchor_a[1], d.anchor_b[0], d.anchor_b[1], d.axis[0], d.axis[1], d.target[0], d.target[1],
        d.reference_angle, d.lower, d.upper, d.max_motor, d.motor_speed, d.hertz, d.damping_ratio, d.max_force,
    ];
    if all.iter().any(|x| x.is_infinite()) {
        return Err("joint values must be finite".into());
    }
    let motor = |speed_scale: f32| {
        (d.enable_motor != 0).then(|| (or(d.motor_speed, 0.0) * speed_scale, or(d.max_motor, 0.0) * s))
    };
    // Box2D's joints give a motor pushing into a limit a little room past it (its soft steps);
    // rapier stops a hair short, and Defold's examples reverse a slider once it is past its
    // limit. The limits are widened by Box2D's slops: 0.005 m, 2 degrees.
    let limits = |k: f32, slop: f32| {
        (d.enable_limit != 0).then(|| [or(d.lower, 0.0) * k - slop, or(d.upper, 0.0) * k + slop])
    };
    let kind = match ty {
        JointType::Revolute => JointKind::Revolute { limits: limits(1.0, ANGULAR_SLOP), motor: motor(1.0) },
        JointType::Prismatic => {
            let axis = Vec3::new(or(d.axis[0], 1.0), or(d.axis[1], 0.0), 0.0);
            JointKind::Prismatic { axis, limits: limits(s, LINEAR_SLOP), motor: motor(s) }
        }
        JointType::Weld => JointKind::Weld { angle: or(d.reference_angle, 0.0), spring: None },
        JointType::Mouse => JointKind::Mouse {
            hertz: or(d.hertz, 4.0).max(0.0),
            damping_ratio: or(d.damping_ratio, 1.0).max(0.0),
            max_force: or(d.max_force, 1.0).max(0.0) * s,
        },
    };
    let anchor = |a: [f32; 2]| Vec3::new(or(a[0], 0.0), or(a[1], 0.0), 0.0) * s;
    // The world's joint tuning comes with it when it is made.
    Ok(JointDesc { kind, anchors: (anchor(d.anchor_a), anchor(d.anchor_b)), collide: d.collide != 0, softness: None })
}

/// The joint types of `b2d_joint_create`'s `ty`, in this order, with their `K` names.
pub const JOINT_TYPES: [(JointType, &str); 4] = [
    (JointType::Revolute, "B2D_JOINT_REVOLUTE"),
    (JointType::Prismatic, "B2D_JOINT_PRISMATIC"),
    (JointType::Weld, "B2D_JOINT_WELD"),
    (JointType::Mouse, "B2D_JOINT_MOUSE"),
];

crate::export! {
    /// The world of the caller (URL socket `socket`): its number through `out`, -1 when it has no
    /// physics world yet.
    fn b2d_get_world(ctx: Ctx, socket: u64, out: *mut i32) -> i32 {
        world_status(ctx, |w| {
            let world: Hash = if socket == w.socket { 0 } else { socket };
            match w.physics.b2d_world(world) {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Ok(k) => unsafe { put(out, k.map_or(-1, |k| k as i32)) },
                Err(e) => fail(e),
            }
        })
    }

    /// The body of collision object `comp` of `slot`: its index and serial through `out`.
    fn b2d_get_body(ctx: Ctx, slot: u32, comp: u64, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            let i = match w.scene.component(slot, comp).map(|c| c.kind) {
                Some(crate::scene::ComponentRef::CollisionObject(i)) => i,
                _ => return fail("the collision object could not be found".into()),
            };
            match w.physics.b2d_serial(i) {
                Ok(serial) if !out.is_null() => {
                    // SAFETY: `out` is a Lua buffer of 2 u32 (checked non-null).
                    unsafe {
                        *out = i;
                        *out.add(1) = serial;
                    }
                    OK
                }
                Ok(_) => fail("null out-pointer".into()),
                Err(e) => fail(e),
            }
        })
    }

    /// One `b2d.body` operation ([`body_op`]) on body `(i, serial)`.
    fn b2d_body(ctx: Ctx, i: u32, serial: u32, op: i32, x: f32, y: f32, z: f32, ww: f32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            if let Err(e) = w.physics.b2d_body(i, serial).and_then(|_| finite(&[x, y, z, ww])) {
                return fail(e);
            }
            let s = w.physics.settings.scale;
            let Some((ty, enabled)) = w.physics.get(i).map(|b| (b.ty, b.enabled)) else {
                return fail("the collision object was deleted".into());
            };
            let dynamic = ty == CollisionType::Dynamic;
            let ty = match ty {
                CollisionType::Dynamic => body_type::DYNAMIC,
                CollisionType::Kinematic => body_type::KINEMATIC,
                _ => body_type::STATIC,
            };
            let p = Vec3::new(x, y, 0.0);
            let mut v = [0.0f32; 4];
            {
                let World { physics, scene, .. } = w;
                match op {
                    body_op::SET_ACTIVE => {
                        physics.set_enabled(i, x != 0.0, scene);
                        return OK;
                    }
                    body_op::SET_TRANSFORM => {
                        return match physics.b2d_set_transform(i, p, z, scene) {
                            Ok(()) => OK,
                            Err(e) => fail(e),
                        };
                    }
                    body_op::IS_ACTIVE => v[0] = f32::from(u8::from(enabled)),
                    body_op::GET_TYPE => v[0] = ty as f32,
                    body_op::GET_MASS => v[0] = physics.mass(i).unwrap_or(0.0),
                    _ => {}
                }
            }
            let Some((world, h)) = w.physics.world_of_mut(i) else {
                return fail("the collision object was deleted".into());
            };
            match op {
                body_op::SET_LINEAR_VELOCITY if dynamic => world.set_linear_velocity(h, p * s),
                body_op::SET_ANGULAR_VELOCITY if dynamic => world.set_angular_velocity(h, Vec3::new(0.0, 0.0, x)),
                body_op::SET_LINEAR_VELOCITY | body_op::SET_ANGULAR_VELOCITY => {}
                body_op::SET_AWAKE => world.set_awake(h, x != 0.0),
                body_op::SET_GRAVITY_SCALE => world.set_gravity_scale(h, x),
                body_op::SET_LINEAR_DAMPING | body_op::SET_ANGULAR_DAMPING if x < 0.0 => {
                    return fail("damping must not be negative".into());
                }
                body_op::SET_LINEAR_DAMPING => world.set_damping(h, Some(x), None),
                body_op::SET_ANGULAR_DAMPING => world.set_damping(h, None, Some(x)),
                body_op::SET_FIXED_ROTATION => world.lock_rotation(h, x != 0.0),
                // rapier works the mass out from the shapes again whenever they change.
                body_op::RESET_MASS_DATA => {}
                body_op::APPLY_LINEAR_IMPULSE if dynamic => world.apply_impulse(h, p * s, Vec3::new(z, ww, 0.0) * s),
                body_op::APPLY_FORCE if dynamic => world.add_force_at_point(h, p * s, Vec3::new(z, ww, 0.0) * s),
                body_op::APPLY_LINEAR_IMPULSE | body_op::APPLY_FORCE => {}
                body_op::GET_POSITION => v[..3].copy_from_slice(&(world.pose(h).map_or(Vec3::ZERO, |q| q.0) / s).to_array()),
                body_op::GET_LINEAR_VELOCITY => {
                    v[..3].copy_from_slice(&(world.velocity(h).map_or(Vec3::ZERO, |q| q.0) / s).to_array());
                }
                body_op::GET_ANGULAR_VELOCITY => v[0] = world.velocity(h).map_or(0.0, |q| q.1.z),
                body_op::GET_WORLD_CENTER => {
                    v[..3].copy_from_slice(&(world.center_of_mass(h).unwrap_or(Vec3::ZERO) / s).to_array());
                }
                body_op::GET_LOCAL_POINT => {
                    v[..3].copy_from_slice(&(world.to_local(h, p * s).unwrap_or(Vec3::ZERO) / s).to_array());
                }
                body_op::GET_WORLD_POINT => {
                    v[..3].copy_from_slice(&(world.to_world(h, p * s).unwrap_or(Vec3::ZERO) / s).to_array());
                }
                body_op::GET_ANGLE => {
                    let r = world.pose(h).map_or(glam::Quat::IDENTITY, |q| q.1);
                    v[0] = 2.0 * r.z.atan2(r.w);
                }
                body_op::IS_AWAKE => v[0] = f32::from(u8::from(world.awake_pose(h).is_some())),
                body_op::GET_GRAVITY_SCALE => v[0] = world.gravity_scale(h).unwrap_or(1.0),
                body_op::GET_LINEAR_DAMPING => v[0] = world.damping(h).map_or(0.0, |d| d.0),
                body_op::IS_ACTIVE | body_op::GET_TYPE | body_op::GET_MASS => {}
                _ => return fail(format!("no b2d.body operation {op}")),
            }
            if out.is_null() {
                return OK;
            }
            // SAFETY: the out-pointer is a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: v[0], y: v[1], z: v[2], w: v[3] }) }
        })
    }

    /// The shapes of body `(i, serial)`: up to `cap` handles (3 u32 each) at `out`; the count,
    /// -1 on error.
    fn b2d_body_shapes(ctx: Ctx, i: u32, serial: u32, out: *mut u32, cap: u32) -> i32 {
        let mut n = -1;
        let rc = world_status(ctx, |w| {
            if let Err(e) = w.physics.b2d_body(i, serial) {
                return fail(e);
            }
            let shapes = w.physics.b2d_shapes(i);
            let k = shapes.len().min(cap as usize);
            for (j, s) in shapes.into_iter().take(k).enumerate() {
                // SAFETY: `out` holds `cap` × 3 u32 (the Lua buffer beside `cap`).
                if unsafe { put_shape(out.add(j * 3), s) } != OK {
                    return fail("null out-pointer".into());
                }
            }
            n = k as i32;
            OK
        });
        if rc == OK { n } else { -1 }
    }

    /// `b2d.body.create_shape` / `create_chain`: the new shape's handle through `out` (3 u32).
    fn b2d_create_shape(ctx: Ctx, i: u32, serial: u32, def: *const ShapeDef, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            // SAFETY: `def` is null or a cdata the Lua wrapper filled for this call.
            let Some(d) = (unsafe { def.as_ref() }) else { return fail("null shape definition".into()) };
            // SAFETY: the Lua wrapper keeps `d.vertices` (2 × nvertices floats) alive for the call.
            let g = match w.physics.b2d_body(i, serial).and_then(|_| unsafe { geom(d) }) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let m = Material { friction: or(d.friction, 0.6), restitution: or(d.restitution, 0.0), density: or(d.density, 1.0) };
            if let Err(e) = finite(&[m.friction, m.restitution, m.density]) {
                return fail(e);
            }
            match w.physics.b2d_create_shape(i, &g, m, d.sensor != 0) {
                // SAFETY: `out` is null or a Lua buffer of 3 u32.
                Ok(s) => unsafe { put_shape(out, s) },
                Err(e) => fail(e),
            }
        })
    }

    fn b2d_destroy_shape(ctx: Ctx, i: u32, serial: u32, index: i32) -> i32 {
        world_status(ctx, |w| match w.physics.b2d_body(i, serial).and_then(|_| w.physics.b2d_destroy_shape(i, i64::from(index))) {
            Ok(()) => OK,
            Err(e) => fail(e),
        })
    }

    /// Shape `index` (from 1) of body `(i, serial)` as a handle through `out` (3 u32).
    fn b2d_shape_at(ctx: Ctx, i: u32, serial: u32, index: i32, out: *mut u32) -> i32 {
        world_status(ctx, |w| match w.physics.b2d_body(i, serial).and_then(|_| w.physics.b2d_shape_at(i, i64::from(index))) {
            // SAFETY: `out` is null or a Lua buffer of 3 u32.
            Ok(s) => unsafe { put_shape(out, s) },
            Err(e) => fail(e),
        })
    }

    /// What `get_shapes` tells of a shape, into `out` (8 floats): type, sensor, density,
    /// friction, restitution, index, whether a chain's, sensor events on.
    fn b2d_shape_info(ctx: Ctx, space: u32, h0: u32, h1: u32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let s = shape_ref(space, h0, h1);
            if let Err(e) = w.physics.b2d_shape(s) {
                return fail(e);
            }
            let index = w.physics.b2d_shape_index(s);
            let Some(c) = w.physics.spaces[space as usize].world.collider_info(s.collider) else {
                return fail("Invalid b2shape handle.".into());
            };
            let (ty, chain) = match c.geom {
                Some(Geom::Circle { .. }) => (shape_type::CIRCLE, false),
                Some(Geom::Capsule { .. }) => (shape_type::CAPSULE, false),
                Some(Geom::Segment { .. }) => (shape_type::SEGMENT, false),
                Some(Geom::Chain { .. }) => (shape_type::SEGMENT, true),
                Some(Geom::Polygon { .. }) | None => (shape_type::POLYGON, false),
            };
            let m = c.material;
            let v = [
                ty as f32,
                f32::from(u8::from(c.sensor)),
                m.density,
                m.friction,
                m.restitution,
                index as f32,
                f32::from(u8::from(chain)),
                f32::from(u8::from(c.sensor_events)),
            ];
            if out.is_null() {
                return fail("null out-pointer".into());
            }
            // SAFETY: `out` is a Lua buffer of 8 floats (checked non-null).
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), out, v.len()) };
            OK
        })
    }

    /// A shape's geometry (world units) into `out`, its vertices (up to `cap`) at `verts`.
    fn b2d_shape_geom(ctx: Ctx, space: u32, h0: u32, h1: u32, out: *mut ShapeDef, verts: *mut f32, cap: u32) -> i32 {
        world_status(ctx, |w| {
            let sr = shape_ref(space, h0, h1);
            if let Err(e) = w.physics.b2d_shape(sr) {
                return fail(e);
            }
            let inv = 1.0 / w.physics.settings.scale;
            let info = w.physics.spaces[space as usize].world.collider_info(sr.collider);
            let Some(g) = info.and_then(|c| c.geom).map(|g| g.scaled(inv)) else {
                return fail("Unsupported shape type for a Lua shape snapshot.".into());
            };
            // SAFETY: `out` is null or a cdata the Lua wrapper made for this call.
            let Some(d) = (unsafe { out.as_mut() }) else { return fail("null out-pointer".into()) };
            let xy = |v: Vec3| [v.x, v.y];
            let mut points: &[Vec3] = &[];
            match &g {
                Geom::Circle { center, radius } => (d.ty, d.center, d.radius) = (shape_type::CIRCLE, xy(*center), *radius),
                Geom::Capsule { a, b, radius } => (d.ty, d.a, d.b, d.radius) = (shape_type::CAPSULE, xy(*a), xy(*b), *radius),
                Geom::Segment { a, b } => (d.ty, d.a, d.b) = (shape_type::SEGMENT, xy(*a), xy(*b)),
                Geom::Polygon { vertices } => (d.ty, points) = (shape_type::POLYGON, vertices),
                Geom::Chain { vertices, closed } => (d.ty, d.closed, points) = (shape_type::CHAIN, i32::from(*closed), vertices),
            }
            let k = points.len().min(cap as usize);
            if !verts.is_null() {
                for (j, p) in points.iter().take(k).enumerate() {
                    // SAFETY: `verts` holds `cap` × 2 floats (the Lua buffer beside `cap`).
                    unsafe {
                        *verts.add(j * 2) = p.x;
                        *verts.add(j * 2 + 1) = p.y;
                    }
                }
            }
            d.nvertices = k as u32;
            OK
        })
    }

    /// `b2d.shape.set_shape`.
    fn b2d_set_shape(ctx: Ctx, space: u32, h0: u32, h1: u32, def: *const ShapeDef, update_mass: i32) -> i32 {
        world_status(ctx, |w| {
            // SAFETY: `def` is null or a cdata the Lua wrapper filled for this call.
            let Some(d) = (unsafe { def.as_ref() }) else { return fail("null shape definition".into()) };
            let s = shape_ref(space, h0, h1);
            // SAFETY: the Lua wrapper keeps `d.vertices` alive for the call.
            let g = match w.physics.b2d_shape(s).and_then(|_| unsafe { geom(d) }) {
                Ok(Geom::Chain { .. }) => return fail("Cannot set chain segment shape geometry.".into()),
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match w.physics.b2d_set_geom(s, &g, update_mass != 0) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// A shape's friction, restitution and density (NaN: unchanged).
    fn b2d_shape_material(ctx: Ctx, space: u32, h0: u32, h1: u32, friction: f32, restitution: f32, density: f32) -> i32 {
        world_status(ctx, |w| {
            let s = shape_ref(space, h0, h1);
            if let Err(e) = w.physics.b2d_shape(s) {
                return fail(e);
            }
            let given = |x: f32| (!x.is_nan()).then_some(x);
            let (f, r, d) = (given(friction), given(restitution), given(density));
            if [f, r, d].iter().flatten().any(|x| !x.is_finite() || *x < 0.0) {
                return fail("friction, restitution and density must be finite and not negative".into());
            }
            let sp = &mut w.physics.spaces[space as usize];
            sp.world.set_collider_material(s.collider, f, r, d);
            OK
        })
    }

    /// The body a shape is on, as index and serial through `out` (2 u32).
    fn b2d_shape_body(ctx: Ctx, space: u32, h0: u32, h1: u32, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            let i = match w.physics.b2d_shape(shape_ref(space, h0, h1)) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let Ok(serial) = w.physics.b2d_serial(i) else { return fail("Could not resolve shape body owner.".into()) };
            if out.is_null() {
                return fail("null out-pointer".into());
            }
            // SAFETY: `out` is a Lua buffer of 2 u32 (checked non-null).
            unsafe {
                *out = i;
                *out.add(1) = serial;
            }
            OK
        })
    }

    fn b2d_sensor_events(ctx: Ctx, space: u32, h0: u32, h1: u32, on: i32) -> i32 {
        world_status(ctx, |w| {
            let s = shape_ref(space, h0, h1);
            if let Err(e) = w.physics.b2d_shape(s) {
                return fail(e);
            }
            w.physics.spaces[space as usize].world.set_sensor_events(s.collider, on != 0);
            OK
        })
    }

    /// The shapes overlapping sensor shape `(space, h0, h1)`, up to `cap` handles at `out`; the
    /// count, -1 on error.
    fn b2d_sensor_overlaps(ctx: Ctx, space: u32, h0: u32, h1: u32, out: *mut u32, cap: u32) -> i32 {
        let mut n = -1;
        let rc = world_status(ctx, |w| {
            let s = shape_ref(space, h0, h1);
            if let Err(e) = w.physics.b2d_shape(s) {
                return fail(e);
            }
            let mut found = Vec::new();
            w.physics.spaces[space as usize].world.sensor_overlaps(s.collider, &mut found);
            let k = found.len().min(cap as usize);
            for (j, c) in found.into_iter().take(k).enumerate() {
                // SAFETY: `out` holds `cap` × 3 u32.
                if unsafe { put_shape(out.add(j * 3), ShapeRef { space, collider: c }) } != OK {
                    return fail("null out-pointer".into());
                }
            }
            n = k as i32;
            OK
        });
        if rc == OK { n } else { -1 }
    }

    /// `b2d.joint.create_*` (`ty`: index into [`JOINT_TYPES`]) between bodies `(a, sa)` and
    /// `(b, sb)`: the joint's index and serial through `out` (2 u32).
    fn b2d_joint_create(ctx: Ctx, ty: u32, a: u32, sa: u32, b: u32, sb: u32, def: *const JointDef, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            let Some(&(ty, _)) = JOINT_TYPES.get(ty as usize) else { return fail(format!("no joint type {ty}")) };
            // SAFETY: `def` is null or a cdata the Lua wrapper filled for this call.
            let Some(d) = (unsafe { def.as_ref() }) else { return fail("null joint definition".into()) };
            let s = w.physics.settings.scale;
            let r = w.physics.b2d_body(a, sa).and_then(|_| w.physics.b2d_body(b, sb)).and_then(|_| joint_desc(ty, d, s));
            let mut desc = match r {
                Ok(desc) => desc,
                Err(e) => return fail(e),
            };
            if ty == JointType::Mouse {
                // Box2D's mouse joint pulls the point of `b` under `target` towards `target`;
                // here, the anchor on `a` sits at the target and the one on `b` is that point.
                let target = Vec3::new(or(d.target[0], 0.0), or(d.target[1], 0.0), 0.0) * s;
                let (Some((wa, ha)), Some((wb, hb))) = (w.physics.world_of(a), w.physics.world_of(b)) else {
                    return fail("the collision object was deleted".into());
                };
                desc.anchors = (wa.to_local(ha, target).unwrap_or(target), wb.to_local(hb, target).unwrap_or(target));
            }
            match w.physics.b2d_create_joint(ty, a, b, &desc) {
                Ok((k, serial)) if !out.is_null() => {
                    // SAFETY: `out` is a Lua buffer of 2 u32 (checked non-null).
                    unsafe {
                        *out = k;
                        *out.add(1) = serial;
                    }
                    OK
                }
                Ok(_) => fail("null out-pointer".into()),
                Err(e) => fail(e),
            }
        })
    }

    fn b2d_joint_destroy(ctx: Ctx, k: u32, serial: u32) -> i32 {
        world_status(ctx, |w| match w.physics.b2d_destroy_joint(k, serial) {
            Ok(()) => OK,
            Err(e) => fail(e),
        })
    }

    /// One `b2d.joint` operation ([`joint_op`]); a value through `out`.
    fn b2d_joint_op(ctx: Ctx, k: u32, serial: u32, op: i32, x: f32, y: f32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let s = w.physics.settings.scale;
            let (space, handle, ty, a, b) = match w.physics.b2d_joint(k, serial) {
                Ok(j) => (j.space as usize, j.handle, j.ty, j.bodies.0, j.bodies.1),
                Err(e) => return fail(e),
            };
            if let Err(e) = finite(&[x, y]) {
                return fail(e);
            }
            let world = &mut w.physics.spaces[space].world;
            match op {
                joint_op::SET_MOTOR_SPEED if ty == JointType::Revolute => world.set_joint_motor_speed(handle, true, x),
                joint_op::SET_MOTOR_SPEED if ty == JointType::Prismatic => world.set_joint_motor_speed(handle, false, x * s),
                joint_op::SET_MOTOR_SPEED => {
                    return fail("b2d.joint.set_motor_speed can only be used with distance, prismatic, revolute, or wheel joints.".into());
                }
                joint_op::SET_MOUSE_TARGET if ty == JointType::Mouse => {
                    let Some(ha) = w.physics.get(a).map(|x| x.handle) else { return OK };
                    let hb = w.physics.get(b).map(|x| x.handle);
                    let world = &mut w.physics.spaces[space].world;
                    let target = Vec3::new(x, y, 0.0) * s;
                    let local = world.to_local(ha, target).unwrap_or(target);
                    world.set_joint_anchor1(handle, local);
                    if let Some(hb) = hb {
                        world.wake_up(hb);
                    }
                }
                joint_op::SET_MOUSE_TARGET => {
                    return fail("b2d.joint.set_mouse_target can only be used with mouse joints.".into());
                }
                joint_op::GET_TRANSLATION if ty == JointType::Prismatic => {
                    let t = world.joint_state(handle).map_or(0.0, |j| j.translation) / s;
                    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                    return unsafe { put(out, t) };
                }
                joint_op::GET_TRANSLATION => {
                    return fail("b2d.joint.get_joint_translation can only be used with prismatic joints.".into());
                }
                joint_op::WAKE_BODIES => {
                    let hs: Vec<Handle> = [a, b].iter().filter_map(|&i| w.physics.get(i).map(|x| x.handle)).collect();
                    let world = &mut w.physics.spaces[space].world;
                    for h in hs {
                        world.wake_up(h);
                    }
                }
                _ => return fail(format!("no b2d.joint operation {op}")),
            }
            OK
        })
    }

    /// One `b2d.world` operation ([`world_op`]) on world `k`; gravity through `out`.
    fn b2d_world_op(ctx: Ctx, k: u32, op: i32, x: f32, y: f32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let s = w.physics.settings.scale;
            if let Err(e) = finite(&[x, y]) {
                return fail(e);
            }
            if op == world_op::SET_JOINT_TUNING {
                return match w.physics.b2d_joint_tuning(k, x, y) {
                    Ok(()) => OK,
                    Err(e) => fail(e),
                };
            }
            let Some(sp) = w.physics.spaces.get_mut(k as usize) else { return fail("Invalid b2world handle.".into()) };
            match op {
                world_op::SET_GRAVITY => {
                    sp.world.set_gravity(Vec3::new(x, y, 0.0) * s);
                    OK
                }
                world_op::GET_GRAVITY => {
                    let g = sp.world.gravity() / s;
                    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                    unsafe { put(out, V4 { x: g.x, y: g.y, z: 0.0, w: 0.0 }) }
                }
                _ => fail(format!("no b2d.world operation {op}")),
            }
        })
    }

    /// `b2d.world.overlap_aabb` / `overlap_shape` / `cast_ray` ([`query`]) in world `k`, over
    /// groups `mask`: up to `cap` shape handles at `shapes` (3 u32 each) and, for a ray, point,
    /// normal and fraction at `floats` (5 each). The count, -1 on error.
    fn b2d_query(
        ctx: Ctx,
        k: u32,
        kind: i32,
        def: *const ShapeDef,
        mask: u32,
        shapes: *mut u32,
        floats: *mut f32,
        cap: u32,
    ) -> i32 {
        let mut n = -1;
        let rc = world_status(ctx, |w| {
            // SAFETY: `def` is null or a cdata the Lua wrapper filled for this call.
            let Some(d) = (unsafe { def.as_ref() }) else { return fail("null query definition".into()) };
            if cap > MAX_RESULTS || shapes.is_null() || floats.is_null() {
                return fail("bad query buffers".into());
            }
            let s = w.physics.settings.scale;
            let Some(sp) = w.physics.spaces.get(k as usize) else { return fail("Invalid b2world handle.".into()) };
            let mut found: Vec<(Handle, [f32; 5])> = Vec::new();
            let mut handles = Vec::new();
            match kind {
                query::AABB | query::RAY => {
                    if let Err(e) = finite(&[d.a[0], d.a[1], d.b[0], d.b[1]]) {
                        return fail(e);
                    }
                    let (a, b) = (v2(d.a) * s, v2(d.b) * s);
                    if kind == query::AABB {
                        sp.world.overlap_box(a, b, mask, sp.dirty, &mut handles);
                    } else {
                        let mut hits = Vec::new();
                        sp.world.ray_hits(a, b, mask, sp.dirty, &mut hits);
                        found.extend(hits.into_iter().map(|(h, p, nrm, f)| (h, [p.x / s, p.y / s, nrm.x, nrm.y, f])));
                    }
                }
                query::SHAPE => {
                    // SAFETY: the Lua wrapper keeps `d.vertices` alive for the call.
                    let g = match unsafe { geom(d) } {
                        Ok(g) => g.scaled(s),
                        Err(e) => return fail(e),
                    };
                    if let Err(e) = sp.world.overlap_geom(&g, mask, sp.dirty, &mut handles) {
                        return fail(e);
                    }
                }
                _ => return fail(format!("no b2d query {kind}")),
            }
            found.extend(handles.into_iter().map(|h| (h, [0.0; 5])));
            let k2 = found.len().min(cap as usize);
            for (j, (h, f)) in found.into_iter().take(k2).enumerate() {
                // SAFETY: `shapes` holds `cap` × 3 u32 and `floats` `cap` × 5 floats (checked non-null).
                unsafe {
                    put_shape(shapes.add(j * 3), ShapeRef { space: k, collider: h });
                    std::ptr::copy_nonoverlapping(f.as_ptr(), floats.add(j * 5), 5);
                }
            }
            n = k2 as i32;
            OK
        });
        if rc == OK { n } else { -1 }
    }
}
