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
///
/// Every rotation has two YZX angle triples, (x, y, z) and (x + 180, y + 180, 180 − z), and
/// `quat_to_euler` returns the one with |z| ≤ 90. A bend past 90° about Z (an elbow limited to
/// [-5, 150] with X and Y fixed at 0) reads as (±180, ±180, 180 − z) there, which the X and Y
/// limits would fold back to 180 − z: the forearm would straighten as the script bends it. So
/// both triples are clamped and the one that moves `q` least is kept.
pub fn clamp_rotation(q: Quat, min: Vec3, max: Vec3) -> Quat {
    let e = yzx_angles(q);
    let clamp = |e: Vec3| {
        Vec3::new(clamp_angle(e.x, min.x, max.x), clamp_angle(e.y, min.y, max.y), clamp_angle(e.z, min.z, max.z))
    };
    let c = clamp(e);
    if c == e {
        return q;
    }
    let wrap = |a: f32| (a + 180.0).rem_euclid(360.0) - 180.0;
    let other = Vec3::new(wrap(e.x + 180.0), wrap(e.y + 180.0), wrap(180.0 - e.z));
    let c2 = clamp(other);
    if c2 == other {
        return q;
    }
    let (a, b) = (euler_to_quat(c), euler_to_quat(c2));
    if b.dot(q).abs() > a.dot(q).abs() { b } else { a }
}

/// The YZX angles of `q` (degrees, |z| ≤ 90) as `quat_to_euler` computes them, without its snap
/// to z = ±90 within about a degree of it: that snap would move an elbow asked for 89° to 90°.
fn yzx_angles(q: Quat) -> Vec3 {
    let (x, y, z, w) = (q.x as f64, q.y as f64, q.z as f64, q.w as f64);
    if x == 0.0 && y == 0.0 {
        // A turn about Z alone reads as itself, up to ±180 (as `quat_to_euler` reads it).
        return quat_to_euler(q);
    }
    let (sx, sy, sz) = (x * x, y * y, z * z);
    let ry = (2.0 * y * w - 2.0 * x * z).atan2(1.0 - 2.0 * sy - 2.0 * sz);
    let rz = (2.0 * (x * y + z * w)).clamp(-1.0, 1.0).asin();
    let rx = (2.0 * x * w - 2.0 * y * z).atan2(1.0 - 2.0 * sx - 2.0 * sz);
    Vec3::new(rx.to_degrees() as f32, ry.to_degrees() as f32, rz.to_degrees() as f32)
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

    /// An elbow bent past 90° about Z, as a composed (not exactly single-axis) quaternion: its
    /// Euler reading is (180, 180, 180 - z), yet it stays bent within its limits and stops at them.
    #[test]
    fn a_bend_past_ninety_degrees_uses_the_other_euler_triple() {
        let (min, max) = (Vec3::new(0.0, 0.0, -5.0), Vec3::new(0.0, 0.0, 150.0));
        // What torso⁻¹ × (torso × bend) gives in single precision: X and Y a rounding error off 0.
        let composed = |deg: f32| {
            let (s, c) = (deg.to_radians() * 0.5).sin_cos();
            Quat::from_xyzw(3e-8, -2e-8, s, c).normalize()
        };
        let cases = [
            (120.0f32, 120.0f32),
            (140.0, 140.0),
            (170.0, 150.0),
            (60.0, 60.0),
            (-30.0, -5.0),
            (89.3, 89.3),
            (90.6, 90.6),
        ];
        for (asked, expect) in cases {
            let c = clamp_rotation(composed(asked), min, max);
            let want = Quat::from_rotation_z(expect.to_radians());
            assert!(
                c.dot(want).abs() > 1.0 - 1e-6,
                "asked {asked}: got {c}, angle {}",
                c.angle_between(Quat::IDENTITY).to_degrees()
            );
        }
        // The mirrored elbow: [-150, 5].
        let c = clamp_rotation(composed(-170.0), Vec3::new(0.0, 0.0, -150.0), Vec3::new(0.0, 0.0, 5.0));
        assert!(c.dot(Quat::from_rotation_z(-150f32.to_radians())).abs() > 1.0 - 1e-6, "{c}");
    }
}
