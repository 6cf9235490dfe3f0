//! Inverse kinematics on a posed skeleton (layers.md §2): the analytic two-bone solver and the
//! aim constraint. Both read the model-space matrices of the pose so far, write the chain's
//! local rotations (never translations or scales, so segment lengths are kept), and leave the
//! pose untouched for a degenerate target (on the chain's root, zero-length segments, anything
//! not finite): no NaN ever reaches a matrix. The caller recomputes model matrices afterwards.
use super::skeleton::Skeleton;
use super::transform::{Transform, slerp};
use glam::{Mat3, Mat4, Quat, Vec3};

/// Below this (relative to the chain's length) a direction is too short to normalise.
const EPS: f32 = 1e-6;

/// `two_bone`: `root` → `mid` → `end`, each the parent of the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBone {
    pub root: usize,
    pub mid: usize,
    pub end: usize,
    /// Model-space direction the middle joint bends toward.
    pub pole: Vec3,
}

/// `aim`: rotates `joint` so that its `forward` axis points at the target, with its `up` axis
/// as close to the model's up (+Y) as that allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aim {
    pub joint: usize,
    pub forward: Vec3,
    pub up: Vec3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Chain {
    TwoBone(TwoBone),
    Aim(Aim),
}

impl Chain {
    /// Checks the chain against the skeleton: nodes in range, a direct parent chain.
    pub fn validate(&self, skeleton: &Skeleton) -> Result<(), String> {
        let n = skeleton.node_count();
        match *self {
            Chain::TwoBone(c) => {
                if c.root >= n || c.mid >= n || c.end >= n {
                    return Err("joint out of range".into());
                }
                if skeleton.parent(c.mid) != Some(c.root) || skeleton.parent(c.end) != Some(c.mid) {
                    return Err(format!(
                        "'{}' must be the parent of '{}', and that of '{}'",
                        skeleton.name(c.root),
                        skeleton.name(c.mid),
                        skeleton.name(c.end)
                    ));
                }
                Ok(())
            }
            Chain::Aim(a) if a.joint >= n => Err("joint out of range".into()),
            Chain::Aim(_) => Ok(()),
        }
    }

    /// Solves toward `target` (model space) with `weight` in [0, 1]; false when the pose was
    /// left as it was (weight 0, degenerate target or chain).
    pub fn solve(
        &self,
        skeleton: &Skeleton,
        model: &[Mat4],
        locals: &mut [Transform],
        target: Vec3,
        weight: f32,
    ) -> bool {
        match self {
            Chain::TwoBone(c) => solve_two_bone(c, skeleton, model, locals, target, weight),
            Chain::Aim(a) => solve_aim(a, skeleton, model, locals, target, weight),
        }
    }
}

fn position(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// The rotation part of a model matrix (axes normalised; identity when degenerate).
fn rotation(m: &Mat4) -> Quat {
    let (x, y, z) = (m.x_axis.truncate(), m.y_axis.truncate(), m.z_axis.truncate());
    let (x, y, z) = (x.normalize_or_zero(), y.normalize_or_zero(), z.normalize_or_zero());
    if x == Vec3::ZERO || y == Vec3::ZERO || z == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let q = Quat::from_mat3(&Mat3::from_cols(x, y, z)).normalize();
    if q.is_finite() { q } else { Quat::IDENTITY }
}

fn parent_rotation(skeleton: &Skeleton, model: &[Mat4], node: usize) -> Quat {
    skeleton.parent(node).and_then(|p| model.get(p)).map_or(Quat::IDENTITY, rotation)
}

/// `local` turned so that the node's model-space rotation gains `delta` (applied on the
/// left), given its parent's model-space rotation.
fn turn(local: Quat, parent: Quat, delta: Quat) -> Quat {
    (parent.conjugate() * delta * parent * local).normalize()
}

fn blend(from: Quat, to: Quat, weight: f32) -> Quat {
    if weight >= 1.0 {
        to
    } else {
        let r = slerp(from, to, weight);
        r * (1.5 - 0.5 * r.length_squared())
    }
}

/// Two-bone IK (law of cosines): the end reaches `target` when it is within reach, else the
/// chain points straight at it; the middle joint bends toward the pole (or, with the pole
/// along the root–target line, keeps its current side).
pub fn solve_two_bone(
    c: &TwoBone,
    skeleton: &Skeleton,
    model: &[Mat4],
    locals: &mut [Transform],
    target: Vec3,
    weight: f32,
) -> bool {
    let weight = if weight.is_nan() { 0.0 } else { weight.min(1.0) };
    let n_nodes = skeleton.node_count();
    if weight <= 0.0 || c.root.max(c.mid).max(c.end) >= n_nodes.min(model.len()).min(locals.len()) {
        return false;
    }
    if !target.is_finite() {
        return false;
    }
    let (pa, pb, pc) = (position(&model[c.root]), position(&model[c.mid]), position(&model[c.end]));
    let (l1, l2) = ((pb - pa).length(), (pc - pb).length());
    let reach = l1 + l2;
    if !(l1 > EPS * reach && l2 > EPS * reach && reach.is_finite()) {
        return false;
    }
    let to = target - pa;
    let d = to.length();
    if d.is_nan() || d <= EPS * reach {
        return false;
    }
    let n = to / d;
    let dc = d.clamp((l1 - l2).abs(), reach);
    // The bend direction: the pole without its component along the root–target line.
    let side = |v: Vec3| {
        let p = v - n * v.dot(n);
        let len = p.length();
        (len > EPS * v.length().max(EPS)).then(|| p / len)
    };
    let m = side(c.pole).or_else(|| side(pb - pa)).unwrap_or_else(|| n.any_orthonormal_vector());
    let cos_a = ((l1 * l1 + dc * dc - l2 * l2) / (2.0 * l1 * dc)).clamp(-1.0, 1.0);
    let sin_a = (1.0 - cos_a * cos_a).max(0.0).sqrt();
    let pb_new = pa + (n * cos_a + m * sin_a) * l1;
    let pc_new = pa + n * dc;
    let q1 = Quat::from_rotation_arc((pb - pa) / l1, (pb_new - pa) / l1);
    let pc_turned = pa + q1 * (pc - pa);
    let (u, v) = (pc_turned - pb_new, pc_new - pb_new);
    let (lu, lv) = (u.length(), v.length());
    if !(lu > EPS * reach && lv > EPS * reach) {
        return false;
    }
    let q2 = Quat::from_rotation_arc(u / lu, v / lv);
    let (ra, rp) = (rotation(&model[c.root]), parent_rotation(skeleton, model, c.root));
    let root = turn(locals[c.root].rotation, rp, q1);
    // The middle joint's parent (the root) has turned by q1 already.
    let mid = turn(locals[c.mid].rotation, q1 * ra, q2);
    if !root.is_finite() || !mid.is_finite() {
        return false;
    }
    locals[c.root].rotation = blend(locals[c.root].rotation, root, weight);
    locals[c.mid].rotation = blend(locals[c.mid].rotation, mid, weight);
    true
}

/// Aim: the joint's `forward` axis points at `target`; its `up` axis is kept as close to the
/// model's +Y as possible (its current up when the target is straight above or below).
pub fn solve_aim(
    a: &Aim,
    skeleton: &Skeleton,
    model: &[Mat4],
    locals: &mut [Transform],
    target: Vec3,
    weight: f32,
) -> bool {
    let weight = if weight.is_nan() { 0.0 } else { weight.min(1.0) };
    if weight <= 0.0 || a.joint >= skeleton.node_count().min(model.len()).min(locals.len()) || !target.is_finite() {
        return false;
    }
    let p = position(&model[a.joint]);
    let to = target - p;
    let scale = p.length().max(1.0);
    let len = to.length();
    if len.is_nan() || len <= EPS * scale {
        return false;
    }
    let f = to / len;
    let Some(fl) = a.forward.try_normalize() else { return false };
    let ul = (a.up - fl * a.up.dot(fl)).try_normalize().unwrap_or_else(|| fl.any_orthonormal_vector());
    let rw = rotation(&model[a.joint]);
    let perp = |v: Vec3| (v - f * v.dot(f)).try_normalize();
    let up = perp(Vec3::Y).or_else(|| perp(rw * ul)).unwrap_or_else(|| f.any_orthonormal_vector());
    let from = Mat3::from_cols(fl, ul, fl.cross(ul));
    let to_frame = Mat3::from_cols(f, up, f.cross(up));
    let world = Quat::from_mat3(&(to_frame * from.transpose())).normalize();
    let local = (parent_rotation(skeleton, model, a.joint).conjugate() * world).normalize();
    if !local.is_finite() {
        return false;
    }
    locals[a.joint].rotation = blend(locals[a.joint].rotation, local, weight);
    true
}
