//! The demo's character: a skinned humanoid (19 joints) built from capsules, with looping clips
//! `idle`, `walk`, `run`, `wave` and `jump` authored as sine curves per joint. Generated rather
//! than checked in so every joint angle is reviewable and the file is reproducible
//! (`scripts/gen-assets.sh` writes `content/models/humanoid.glb`; `tests/assets.rs` compares).
//!
//! Conventions: Y up, the character faces +Z, its left is +X. In the bind pose every joint has
//! an identity rotation (arms hang down, feet point forward), so a joint's inverse bind matrix is
//! a translation and clip angles read as "how far from standing straight".
use super::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, srgb_to_linear};
use crate::project::model_data::{ChannelPath, Interpolation};
use glam::{EulerRot, Quat, Vec3};
use std::f32::consts::TAU;

/// Joint names, parents (index into this list) and bind positions relative to the parent.
const JOINTS: [(&str, Option<usize>, [f32; 3]); 19] = [
    ("hips", None, [0.0, 0.95, 0.0]),
    ("spine", Some(0), [0.0, 0.1, 0.0]),
    ("chest", Some(1), [0.0, 0.2, 0.0]),
    ("neck", Some(2), [0.0, 0.25, 0.0]),
    ("head", Some(3), [0.0, 0.1, 0.0]),
    ("shoulder_l", Some(2), [0.08, 0.2, 0.0]),
    ("upper_arm_l", Some(5), [0.13, 0.0, 0.0]),
    ("forearm_l", Some(6), [0.0, -0.28, 0.0]),
    ("hand_l", Some(7), [0.0, -0.25, 0.0]),
    ("shoulder_r", Some(2), [-0.08, 0.2, 0.0]),
    ("upper_arm_r", Some(9), [-0.13, 0.0, 0.0]),
    ("forearm_r", Some(10), [0.0, -0.28, 0.0]),
    ("hand_r", Some(11), [0.0, -0.25, 0.0]),
    ("thigh_l", Some(0), [0.1, -0.05, 0.0]),
    ("shin_l", Some(13), [0.0, -0.42, 0.0]),
    ("foot_l", Some(14), [0.0, -0.4, 0.0]),
    ("thigh_r", Some(0), [-0.1, -0.05, 0.0]),
    ("shin_r", Some(16), [0.0, -0.42, 0.0]),
    ("foot_r", Some(17), [0.0, -0.4, 0.0]),
];

const SKIN: [f32; 4] = [0.93, 0.72, 0.56, 1.0];
const SHIRT: [f32; 4] = [0.9, 0.42, 0.16, 1.0];
const SLEEVE: [f32; 4] = [0.8, 0.34, 0.12, 1.0];
const PANTS: [f32; 4] = [0.2, 0.27, 0.5, 1.0];
const SHOES: [f32; 4] = [0.16, 0.13, 0.12, 1.0];
const HAIR: [f32; 4] = [0.28, 0.17, 0.09, 1.0];
const BELT: [f32; 4] = [0.12, 0.1, 0.1, 1.0];

fn joint(name: &str) -> usize {
    JOINTS.iter().position(|j| j.0 == name).unwrap_or(0)
}

/// Bind-pose model-space position of every joint.
fn bind_positions() -> Vec<Vec3> {
    let mut out: Vec<Vec3> = Vec::with_capacity(JOINTS.len());
    for (_, parent, t) in JOINTS {
        let base = parent.and_then(|p| out.get(p).copied()).unwrap_or(Vec3::ZERO);
        out.push(base + Vec3::from(t));
    }
    out
}

/// One body part: a capsule from `a` to `b` (model space), radii `ra`/`rb` across the axis
/// (`[along e1, along e2]`), owned by joint `owner`. Within `blend` of `a` its vertices share
/// weight with `parent`, so knees and elbows bend smoothly instead of splitting open.
struct Part {
    a: Vec3,
    b: Vec3,
    e1: Vec3,
    ra: [f32; 2],
    rb: [f32; 2],
    owner: usize,
    parent: Option<usize>,
    blend: f32,
    color: fn(Vec3) -> [f32; 4],
}

const AROUND: usize = 12;

fn add_part(p: &mut PrimitiveSpec, part: &Part) {
    let axis = part.b - part.a;
    let len = axis.length();
    let u = axis / len.max(1e-6);
    let e1 = (part.e1 - u * part.e1.dot(u)).normalize();
    let e2 = u.cross(e1);
    // Rings (distance along the axis from a, radius factor, axial part of the normal): a rounded
    // cap of three rings at each end (the pole is a ring of radius zero), four rings between.
    let mut rings: Vec<(f32, f32, f32)> = Vec::new();
    let cap = [(0.0f32, 1.0f32), (0.5, 0.866), (0.866, 0.5), (1.0, 0.0)]; // (sin, cos) of 0, 30, 60, 90 degrees
    let (ca, cb) = (part.ra[0].min(part.ra[1]) * 0.9, part.rb[0].min(part.rb[1]) * 0.9);
    for &(s, c) in &cap {
        rings.push((-c * ca, s, -c));
    }
    for k in 1..5 {
        rings.push((len * k as f32 / 5.0, 1.0, 0.0));
    }
    for &(s, c) in cap.iter().rev() {
        rings.push((len + c * cb, s, c));
    }
    let base = p.positions.len() as u32;
    for &(d, f, tilt) in &rings {
        let t = (d / len.max(1e-6)).clamp(0.0, 1.0);
        let r1 = f * (part.ra[0] + (part.rb[0] - part.ra[0]) * t);
        let r2 = f * (part.ra[1] + (part.rb[1] - part.ra[1]) * t);
        let center = part.a + u * d;
        let w_own = if part.parent.is_some() && part.blend > 0.0 {
            let x = (0.5 + d / (2.0 * part.blend)).clamp(0.0, 1.0);
            x * x * (3.0 - 2.0 * x)
        } else {
            1.0
        };
        for i in 0..=AROUND {
            let phi = TAU * (i % AROUND) as f32 / AROUND as f32;
            let (s, c) = phi.sin_cos();
            let pos = center + e1 * (c * r1) + e2 * (s * r2);
            // Ellipse normal (gradient), tilted towards the axis on the caps.
            let radial = (e1 * (c / part.ra[0].max(1e-3)) + e2 * (s / part.ra[1].max(1e-3))).normalize();
            let n = (radial * (1.0 - tilt * tilt).max(0.0).sqrt() + u * tilt).normalize();
            p.positions.push(pos.to_array());
            p.normals.push(n.to_array());
            p.texcoords0.push([i as f32 / AROUND as f32, t]);
            // The palette is written as display (sRGB) colours; glTF's COLOR_0 is linear.
            p.colors.push(srgb_to_linear((part.color)(pos)));
            match part.parent {
                Some(par) if w_own < 1.0 => {
                    p.joints.push([part.owner as u16, par as u16, 0, 0]);
                    p.weights.push([w_own, 1.0 - w_own, 0.0, 0.0]);
                }
                _ => {
                    p.joints.push([part.owner as u16, 0, 0, 0]);
                    p.weights.push([1.0, 0.0, 0.0, 0.0]);
                }
            }
        }
    }
    let row = (AROUND + 1) as u32;
    for k in 0..rings.len() as u32 - 1 {
        for i in 0..AROUND as u32 {
            let a = base + k * row + i;
            let b = a + 1;
            p.indices.extend([a, b, b + row, a, b + row, a + row]);
        }
    }
}

/// The body: torso, head, arms and legs as capsules on the bind-pose skeleton.
fn body() -> PrimitiveSpec {
    let at = bind_positions();
    let j = |n: &str| at[joint(n)];
    let x = Vec3::X;
    let flat = |c: [f32; 4]| -> fn(Vec3) -> [f32; 4] {
        match c {
            c if c == SKIN => |_| SKIN,
            c if c == SHIRT => |_| SHIRT,
            c if c == SLEEVE => |_| SLEEVE,
            c if c == PANTS => |_| PANTS,
            c if c == SHOES => |_| SHOES,
            _ => |_| BELT,
        }
    };
    let mut parts = vec![
        // Pelvis (belt line on top), belly, chest.
        Part {
            a: j("hips") + Vec3::new(0.0, -0.05, 0.0),
            b: j("hips") + Vec3::new(0.0, 0.06, 0.0),
            e1: x,
            ra: [0.15, 0.09],
            rb: [0.15, 0.1],
            owner: joint("hips"),
            parent: None,
            blend: 0.0,
            color: |p| if p.y > 0.97 { BELT } else { PANTS },
        },
        Part {
            a: j("spine") - Vec3::new(0.0, 0.02, 0.0),
            b: j("chest"),
            e1: x,
            ra: [0.14, 0.095],
            rb: [0.16, 0.1],
            owner: joint("spine"),
            parent: Some(joint("hips")),
            blend: 0.08,
            color: flat(SHIRT),
        },
        Part {
            a: j("chest"),
            b: j("neck") - Vec3::new(0.0, 0.04, 0.0),
            e1: x,
            ra: [0.17, 0.11],
            rb: [0.2, 0.11],
            owner: joint("chest"),
            parent: Some(joint("spine")),
            blend: 0.1,
            color: flat(SHIRT),
        },
        Part {
            a: j("neck") - Vec3::new(0.0, 0.03, 0.0),
            b: j("head"),
            e1: x,
            ra: [0.05, 0.05],
            rb: [0.05, 0.05],
            owner: joint("neck"),
            parent: Some(joint("chest")),
            blend: 0.04,
            color: flat(SKIN),
        },
        // Head: hair on the back and top, the face towards +Z, a nose so the facing reads.
        Part {
            a: j("head") + Vec3::new(0.0, 0.1, 0.0),
            b: j("head") + Vec3::new(0.0, 0.16, 0.0),
            e1: x,
            ra: [0.1, 0.115],
            rb: [0.1, 0.115],
            owner: joint("head"),
            parent: None,
            blend: 0.0,
            color: |p| if p.z < 0.0 || p.y > 1.8 { HAIR } else { SKIN },
        },
        Part {
            a: j("head") + Vec3::new(0.0, 0.1, 0.1),
            b: j("head") + Vec3::new(0.0, 0.1, 0.13),
            e1: x,
            ra: [0.02, 0.02],
            rb: [0.015, 0.015],
            owner: joint("head"),
            parent: None,
            blend: 0.0,
            color: flat(SKIN),
        },
    ];
    for side in ["l", "r"] {
        let n = |s: &str| format!("{s}_{side}");
        let sx = if side == "l" { 1.0 } else { -1.0 };
        let shoulder = j(&n("upper_arm")) + Vec3::new(-0.02 * sx, 0.0, 0.0);
        parts.extend([
            Part {
                a: shoulder,
                b: j(&n("forearm")),
                e1: x,
                ra: [0.055, 0.055],
                rb: [0.045, 0.045],
                owner: joint(&n("upper_arm")),
                parent: Some(joint(&n("shoulder"))),
                blend: 0.05,
                color: |p| if p.y > 1.3 { SHIRT } else { SLEEVE },
            },
            Part {
                a: j(&n("forearm")),
                b: j(&n("hand")),
                e1: x,
                ra: [0.043, 0.043],
                rb: [0.035, 0.035],
                owner: joint(&n("forearm")),
                parent: Some(joint(&n("upper_arm"))),
                blend: 0.06,
                color: flat(SKIN),
            },
            Part {
                a: j(&n("hand")) - Vec3::new(0.0, 0.02, 0.0),
                b: j(&n("hand")) - Vec3::new(0.0, 0.1, 0.0),
                e1: x,
                ra: [0.025, 0.045],
                rb: [0.022, 0.04],
                owner: joint(&n("hand")),
                parent: Some(joint(&n("forearm"))),
                blend: 0.03,
                color: flat(SKIN),
            },
            Part {
                a: j(&n("thigh")),
                b: j(&n("shin")),
                e1: x,
                ra: [0.085, 0.085],
                rb: [0.062, 0.062],
                owner: joint(&n("thigh")),
                parent: Some(joint("hips")),
                blend: 0.08,
                color: flat(PANTS),
            },
            Part {
                a: j(&n("shin")),
                b: j(&n("foot")) + Vec3::new(0.0, 0.03, 0.0),
                e1: x,
                ra: [0.06, 0.06],
                rb: [0.045, 0.045],
                owner: joint(&n("shin")),
                parent: Some(joint(&n("thigh"))),
                blend: 0.08,
                color: |p| if p.y < 0.14 { SHOES } else { PANTS },
            },
            Part {
                a: j(&n("foot")) + Vec3::new(0.0, -0.03, -0.04),
                b: j(&n("foot")) + Vec3::new(0.0, -0.03, 0.12),
                e1: x,
                ra: [0.05, 0.045],
                rb: [0.045, 0.035],
                owner: joint(&n("foot")),
                parent: Some(joint(&n("shin"))),
                blend: 0.03,
                color: flat(SHOES),
            },
        ]);
    }
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    for part in &parts {
        add_part(&mut p, part);
    }
    p
}

/// A pose: local rotation (degrees about X, Y, Z, applied Y then X then Z) per joint, plus the
/// hips' offset from their bind height.
#[derive(Clone)]
struct Pose {
    rot: [[f32; 3]; 19],
    hips: Vec3,
}

impl Pose {
    fn new() -> Pose {
        Pose { rot: [[0.0; 3]; 19], hips: Vec3::ZERO }
    }
    fn set(&mut self, name: &str, xyz: [f32; 3]) {
        self.rot[joint(name)] = xyz;
    }
}

fn quat(deg: [f32; 3]) -> Quat {
    let [x, y, z] = deg.map(f32::to_radians);
    Quat::from_euler(EulerRot::YXZ, y, x, z)
}

/// Samples `pose(phase)` (phase in 0..1) at `keys` + 1 evenly spaced times over `period` seconds;
/// the last key equals the first, so looping is seamless.
fn clip(b: &mut GltfBuilder, nodes: &[usize], name: &str, period: f32, keys: usize, pose: impl Fn(f32) -> Pose) {
    let times: Vec<f32> = (0..=keys).map(|k| period * k as f32 / keys as f32).collect();
    let poses: Vec<Pose> = (0..=keys).map(|k| pose((k % keys) as f32 / keys as f32)).collect();
    let mut channels = Vec::new();
    for (ji, &node) in nodes.iter().enumerate() {
        let values = poses.iter().flat_map(|p| quat(p.rot[ji]).to_array()).collect();
        channels.push(ChannelSpec {
            node,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values,
        });
    }
    let bind = Vec3::from(JOINTS[0].2);
    channels.push(ChannelSpec {
        node: nodes[0],
        path: ChannelPath::Translation,
        interpolation: Interpolation::Linear,
        times,
        values: poses.iter().flat_map(|p| (bind + p.hips).to_array()).collect(),
    });
    b.animation(name, &channels);
}

/// Arms slightly away from the body (Z rotation: + raises the left arm sideways, - the right).
fn arms_down(p: &mut Pose, out: f32) {
    p.set("upper_arm_l", [0.0, 0.0, out]);
    p.set("upper_arm_r", [0.0, 0.0, -out]);
}

/// A gait: `stride` thigh swing, `knee` extra bend in the swing phase, `arm` swing, `elbow`
/// bend, `lean` forward, `bob` hip height change (all degrees / units).
fn gait(ph: f32, stride: f32, knee: f32, arm: f32, elbow: f32, lean: f32, bob: f32) -> Pose {
    let a = TAU * ph;
    let mut p = Pose::new();
    for (side, off) in [("l", 0.0f32), ("r", 0.5)] {
        let s = TAU * (ph + off);
        // Thigh: negative X swings the leg forward. Knee bends most while the leg swings forward
        // (cos > 0) and a little on landing; the foot stays roughly level.
        let swing = stride * s.sin();
        let bend = 8.0 + knee * s.cos().max(0.0).powf(1.5);
        p.set(&format!("thigh_{side}"), [-swing, 0.0, 0.0]);
        p.set(&format!("shin_{side}"), [bend, 0.0, 0.0]);
        p.set(&format!("foot_{side}"), [swing * 0.3 - bend * 0.4, 0.0, 0.0]);
        // The arm swings opposite to the leg on its side.
        let sx = if side == "l" { 1.0 } else { -1.0 };
        p.set(&format!("upper_arm_{side}"), [swing / stride * arm, 0.0, 5.0 * sx]);
        p.set(&format!("forearm_{side}"), [-elbow - 0.3 * elbow * (swing / stride).max(0.0), 0.0, 0.0]);
    }
    // Hips twist with the stride, the chest counter-twists; lowest at double support.
    p.set("hips", [0.0, 6.0 * a.sin(), 0.0]);
    p.set("spine", [lean, -3.0 * a.sin(), 0.0]);
    p.set("chest", [0.0, -4.0 * a.sin(), 0.0]);
    p.set("neck", [-lean * 0.5, 1.0 * a.sin(), 0.0]);
    p.hips = Vec3::new(0.0, -bob * 0.5 + bob * 0.5 * (2.0 * a).cos() - bob * 0.3, 0.0);
    p
}

fn walk(ph: f32) -> Pose {
    gait(ph, 26.0, 45.0, 28.0, 15.0, 3.0, 0.035)
}

fn run(ph: f32) -> Pose {
    gait(ph, 45.0, 95.0, 50.0, 80.0, 12.0, 0.07)
}

fn idle(ph: f32) -> Pose {
    let a = TAU * ph;
    let mut p = Pose::new();
    arms_down(&mut p, 6.0 + 1.5 * (2.0 * a).sin());
    // Breathing twice per loop, a slow look to each side, weight on both feet.
    p.set("spine", [1.5 * (2.0 * a).sin(), 0.0, 0.0]);
    p.set("chest", [-1.5 * (2.0 * a).sin(), 0.0, 0.0]);
    p.set("head", [3.0 * (2.0 * a).cos(), 18.0 * a.sin(), 0.0]);
    p.set("hips", [0.0, 0.0, 2.0 * a.sin()]);
    p.set("forearm_l", [-8.0, 0.0, 0.0]);
    p.set("forearm_r", [-8.0, 0.0, 0.0]);
    p.set("thigh_l", [0.0, 0.0, 3.0]);
    p.set("thigh_r", [0.0, 0.0, -3.0]);
    p.hips = Vec3::new(0.0, -0.01 + 0.006 * (2.0 * a).sin(), 0.0);
    p
}

fn wave(ph: f32) -> Pose {
    let a = TAU * ph;
    let mut p = idle(ph);
    // Right arm up beside the head, forearm waving side to side three times per loop.
    p.set("shoulder_r", [0.0, 0.0, -12.0]);
    p.set("upper_arm_r", [0.0, 0.0, -140.0]);
    p.set("forearm_r", [0.0, 0.0, -10.0 + 30.0 * (3.0 * a).sin()]);
    p.set("hand_r", [0.0, 0.0, 10.0 * (3.0 * a).sin()]);
    p.set("head", [-5.0, -10.0, 4.0]);
    p.set("spine", [0.0, 0.0, 3.0]);
    p
}

fn jump(ph: f32) -> Pose {
    // 0-0.25 crouch, 0.25-0.45 push off, 0.45-0.8 in the air, 0.8-1 land back to standing.
    let smooth = |t: f32| {
        let t = t.clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    let crouch = smooth(ph / 0.25) * (1.0 - smooth((ph - 0.25) / 0.15))
        + smooth((ph - 0.78) / 0.08) * (1.0 - smooth((ph - 0.88) / 0.12));
    let air = (std::f32::consts::PI * ((ph - 0.4) / 0.42).clamp(0.0, 1.0)).sin();
    let tuck = air * air;
    let mut p = Pose::new();
    let k = crouch.max(0.0) * 50.0 + tuck * 35.0;
    for side in ["l", "r"] {
        let sx = if side == "l" { 1.0 } else { -1.0 };
        p.set(&format!("thigh_{side}"), [-k, 0.0, 4.0 * sx]);
        p.set(&format!("shin_{side}"), [2.0 * k, 0.0, 0.0]);
        p.set(&format!("foot_{side}"), [-k + 30.0 * air, 0.0, 0.0]);
        // Arms swing back in the crouch, up in the air.
        p.set(&format!("upper_arm_{side}"), [40.0 * crouch - 150.0 * air, 0.0, (10.0 + 20.0 * air) * sx]);
        p.set(&format!("forearm_{side}"), [-20.0 * air, 0.0, 0.0]);
    }
    p.set("spine", [25.0 * crouch - 5.0 * air, 0.0, 0.0]);
    p.set("head", [-10.0 * crouch, 0.0, 0.0]);
    let leg = 0.84;
    let drop = leg * (1.0 - (k.to_radians()).cos());
    p.hips = Vec3::new(0.0, -drop + 0.55 * air, 0.0);
    p
}

/// The demo's character (`content/models/humanoid.glb`): mesh `body` skinned to the 19 joints
/// of [`JOINTS`], clips `idle` (4 s), `walk` (1 s), `run` (0.66 s), `wave` (2 s), `jump` (1.1 s).
pub fn humanoid() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("humanoid", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let mut nodes: Vec<usize> = Vec::new();
    for (name, parent, t) in JOINTS {
        let parent_node = parent.and_then(|p| nodes.get(p).copied()).unwrap_or(root);
        nodes.push(b.node(name, Some(parent_node), t, [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
    }
    let mesh_node = b.node("body", Some(root), [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.material("body", [1.0; 4], None);
    b.mesh(mesh_node, "body", &[body()], &[], &[]);
    let inverse_bind: Vec<[f32; 16]> =
        bind_positions().iter().map(|p| glam::Mat4::from_translation(-*p).to_cols_array()).collect();
    b.skin(mesh_node, &nodes, Some(&inverse_bind));
    clip(&mut b, &nodes, "idle", 4.0, 32, idle);
    clip(&mut b, &nodes, "walk", 1.0, 24, walk);
    clip(&mut b, &nodes, "run", 0.66, 24, run);
    clip(&mut b, &nodes, "wave", 2.0, 48, wave);
    clip(&mut b, &nodes, "jump", 1.1, 44, jump);
    b.to_glb()
}

/// A flat square of ground, `size` units wide, centred on the origin, with a two-tone checker
/// repeated `tiles` times across (mesh `ground`).
pub fn ground(size: f32, tiles: f32) -> Vec<u8> {
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    let n = 8u32;
    for z in 0..=n {
        for x in 0..=n {
            let (u, v) = (x as f32 / n as f32, z as f32 / n as f32);
            p.positions.push([(u - 0.5) * size, 0.0, (v - 0.5) * size]);
            p.normals.push([0.0, 1.0, 0.0]);
            p.texcoords0.push([u * tiles, v * tiles]);
        }
    }
    let row = n + 1;
    for z in 0..n {
        for x in 0..n {
            let i = z * row + x;
            p.indices.extend([i, i + row, i + 1, i + 1, i + row, i + row + 1]);
        }
    }
    let mut b = GltfBuilder::new();
    let node = b.node("ground", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let tex = b.texture_png(&super::samples::checker_png(64, 2, [120, 160, 95, 255], [104, 142, 82, 255]), false);
    b.material("grass", [1.0; 4], Some(tex));
    b.mesh(node, "ground", &[p], &[], &[]);
    b.to_glb()
}

/// A pickup gem: an octahedron stretched upright (mesh `gem`), flat-shaded, white so an
/// instance's `tint` gives its colour.
pub fn gem() -> Vec<u8> {
    let tips = [Vec3::Y * 0.6, -Vec3::Y * 0.45];
    let ring: Vec<Vec3> =
        (0..6).map(|k| Vec3::new((TAU * k as f32 / 6.0).cos(), 0.0, (TAU * k as f32 / 6.0).sin()) * 0.35).collect();
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    for (ti, tip) in tips.iter().enumerate() {
        for k in 0..6 {
            let (a, b) = (ring[k], ring[(k + 1) % 6]);
            // Counter-clockwise seen from outside: the upper fan runs b -> a, the lower a -> b.
            let tri = if ti == 0 { [*tip, b, a] } else { [*tip, a, b] };
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize();
            for v in tri {
                p.indices.push(p.positions.len() as u32);
                p.positions.push(v.to_array());
                p.normals.push(n.to_array());
            }
        }
    }
    let mut b = GltfBuilder::new();
    let node = b.node("gem", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.material("gem", [1.0; 4], None);
    b.mesh(node, "gem", &[p], &[], &[]);
    b.to_glb()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::gltf::import_bytes;

    type PoseFn = fn(f32) -> Pose;

    #[test]
    fn humanoid_imports_with_its_joints_and_clips() {
        let m = import_bytes("/h.glb", &humanoid(), None).expect("imports");
        let names: Vec<&str> = m.animations.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["idle", "walk", "run", "wave", "jump"]);
        assert_eq!(m.skins.len(), 1);
        assert_eq!(m.skins[0].joints.len(), JOINTS.len());
        let prim = &m.meshes[0].primitives[0];
        for w in &prim.weights {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4, "weights sum to one: {w:?}");
        }
        // Standing on the ground, about 1.9 units tall.
        let (lo, hi) = prim.positions.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[1]), hi.max(p[1])));
        assert!(lo.abs() < 0.03 && (1.8..2.0).contains(&hi), "height {lo}..{hi}");
    }

    #[test]
    fn clips_loop_seamlessly() {
        // The clip's last key repeats the first; the curves must also be periodic so the
        // last interval does not jump.
        let clips: [(&str, PoseFn); 5] = [("idle", idle), ("walk", walk), ("run", run), ("wave", wave), ("jump", jump)];
        for (name, f) in clips {
            let (a, b) = (f(0.0), f(1.0));
            for (x, y) in a.rot.iter().zip(&b.rot) {
                for (u, v) in x.iter().zip(y) {
                    assert!((u - v).abs() < 1e-3, "{name}: {u} vs {v}");
                }
            }
            assert!((a.hips - b.hips).length() < 1e-4, "{name}");
        }
    }

    #[test]
    fn walk_alternates_legs_and_swings_arms_opposite() {
        let p = walk(0.25);
        let (tl, tr) = (p.rot[joint("thigh_l")][0], p.rot[joint("thigh_r")][0]);
        let (al, ar) = (p.rot[joint("upper_arm_l")][0], p.rot[joint("upper_arm_r")][0]);
        assert!(tl < -20.0 && tr > 20.0, "left leg forward, right back: {tl} {tr}");
        assert!(al > 20.0 && ar < -20.0, "left arm back, right forward: {al} {ar}");
        let w = wave(0.3);
        assert!(w.rot[joint("upper_arm_r")][2] < -120.0, "wave raises the right arm");
    }
}
