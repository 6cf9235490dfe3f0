//! Joint rotation limits (rigs.md section 3): a joint's local rotation, read as the `euler`
//! property reads a rotation (degrees, YZX), clamped per axis to [min, max]. Run on the local
//! pose after sampling (and after IK), right before local-to-model, so every writer of the pose
//! (an animation, a script, a tween) is limited the same way. Allocates nothing.
use super::transform::Transform;
use crate::base::euler::{euler_to_quat, quat_to_euler};
use glam::{Quat, Vec3};

/// The limits of one skeleton node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimit {
    pub node: usize,
    /// Degrees around X, Y, Z.
    pub min: Vec3,
    pub max: Vec3,
}

impl JointLimit {
    /// True when no axis is limited (a span of 360° or more): such a limit is dropped, so the
    /// Euler round trip never touches a free joint.
    pub fn is_free(&self) -> bool {
        (self.max - self.min).cmpge(Vec3::splat(360.0)).all()
    }
}

/// Clamps the rotation of every limited node of `locals` (nodes out of range are skipped).
pub fn clamp_locals(limits: &[JointLimit], locals: &mut [Transform]) {
    for l in limits {
        if let Some(t) = locals.get_mut(l.node) {
            t.rotation = clamp_rotation(t.rotation, l.min, l.max);
        }
    }
}

/// `q` with its Euler angles clamped; `q` itself when it is within the limits.
pub fn clamp_rotation(q: Quat, min: Vec3, max: Vec3) -> Quat {
    let e = quat_to_euler(q);
    let c = Vec3::new(clamp_angle(e.x, min.x, max.x), clamp_angle(e.y, min.y, max.y), clamp_angle(e.z, min.z, max.z));
    if c == e { q } else { euler_to_quat(c) }
}

/// One angle into [lo, hi] degrees, turns counted modulo 360: an angle inside the range (in any
/// turn, so limits like [90, 270] work) is kept, one outside goes to the nearer end of the arc.
pub fn clamp_angle(a: f32, lo: f32, hi: f32) -> f32 {
    if hi - lo >= 360.0 {
        return a;
    }
    let x = lo + (a - lo).rem_euclid(360.0);
    if x <= hi {
        return if (x - a).abs() < 1e-3 { a } else { x };
    }
    if x - hi <= lo + 360.0 - x { hi } else { lo }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_clamp_to_the_nearer_end_modulo_turns() {
        assert_eq!(clamp_angle(30.0, -10.0, 10.0), 10.0);
        assert_eq!(clamp_angle(-30.0, -10.0, 10.0), -10.0);
        assert_eq!(clamp_angle(5.0, -10.0, 10.0), 5.0);
        // 350° is -10°: inside.
        assert_eq!(clamp_angle(350.0, -10.0, 10.0), -10.0);
        // 200° is nearer to -170 (=190) than to 10: the low end.
        assert_eq!(clamp_angle(170.0, -10.0, 10.0), 10.0);
        assert_eq!(clamp_angle(-170.0, -10.0, 10.0), -10.0);
        // A range across ±180.
        assert_eq!(clamp_angle(-170.0, 90.0, 270.0), 190.0);
        assert_eq!(clamp_angle(10.0, 90.0, 270.0), 90.0);
        assert_eq!(clamp_angle(-10.0, 90.0, 270.0), 270.0);
        assert_eq!(clamp_angle(123.0, -180.0, 180.0), 123.0);
    }

    #[test]
    fn rotations_clamp_per_axis_in_euler_convention() {
        let q = euler_to_quat(Vec3::new(0.0, 0.0, 80.0));
        let c = clamp_rotation(q, Vec3::splat(-180.0), Vec3::new(180.0, 180.0, 55.0));
        let e = quat_to_euler(c);
        assert!((e - Vec3::new(0.0, 0.0, 55.0)).length() < 1e-3, "{e}");
        // Within limits: the very same quaternion.
        let q = euler_to_quat(Vec3::new(10.0, 20.0, 30.0));
        assert_eq!(clamp_rotation(q, Vec3::splat(-45.0), Vec3::splat(45.0)), q);
        let mut locals = [Transform::IDENTITY; 2];
        locals[1].rotation = euler_to_quat(Vec3::new(-90.0, 0.0, 0.0));
        clamp_locals(
            &[
                JointLimit { node: 1, min: Vec3::splat(-80.0), max: Vec3::splat(130.0) },
                JointLimit { node: 9, min: Vec3::ZERO, max: Vec3::ZERO },
            ],
            &mut locals,
        );
        let e = quat_to_euler(locals[1].rotation);
        assert!((e.x + 80.0).abs() < 1e-3, "{e}");
        assert!(JointLimit { node: 0, min: Vec3::splat(-180.0), max: Vec3::splat(180.0) }.is_free());
    }
}
