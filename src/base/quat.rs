//! Rotations written in files as quaternions, made unit in one place: normalising in single
//! precision squares each component, so a component past 1.8e19 (finite, and easy to write)
//! overflows to an infinite length and the result to a zero or NaN quaternion, which then
//! spreads NaN through every transform below it. In double precision no f32 overflows.
use glam::{DQuat, Quat};

/// The shortest quaternion with a direction: the smallest length a single-precision
/// quaternion written in a file gets from rounding.
pub const MIN_LENGTH: f64 = 1e-6;

/// The longest quaternion a script may give an object as its rotation (`go.set_rotation`,
/// `factory.create`, ...): a longer one overflows the world matrix it makes. Checked in Lua
/// (runtime.lua `S.rotation_ok`), which reads both bounds from here.
pub const MAX_SCRIPT_LENGTH: f64 = 1e6;

/// `q` normalised, or None when it has no direction (zero, or a component not finite).
pub fn unit_quat(q: [f32; 4]) -> Option<Quat> {
    if !q.iter().all(|x| x.is_finite()) {
        return None;
    }
    let d = DQuat::from_xyzw(q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64);
    let len = d.length();
    if len < MIN_LENGTH {
        return None;
    }
    Some((d / len).as_quat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_components_normalise_instead_of_vanishing() {
        let q = unit_quat([1.8446744e19, 0.0, 0.0, 1.0]).expect("a direction");
        assert!((q.length() - 1.0).abs() < 1e-6 && (q.x - 1.0).abs() < 1e-6, "{q}");
        // What f32 normalising made of it: a zero quaternion.
        assert_eq!(Quat::from_xyzw(1.8446744e19, 0.0, 0.0, 1.0).normalize(), Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
        let big = unit_quat([f32::MAX, f32::MAX, -f32::MAX, f32::MAX]).expect("a direction");
        assert!((big.length() - 1.0).abs() < 1e-6, "{big}");
    }

    #[test]
    fn no_direction_is_none() {
        assert_eq!(unit_quat([0.0; 4]), None);
        assert_eq!(unit_quat([1e-30, 0.0, 0.0, 0.0]), None);
        assert_eq!(unit_quat([f32::NAN, 0.0, 0.0, 1.0]), None);
        assert_eq!(unit_quat([f32::INFINITY, 0.0, 0.0, 1.0]), None);
        assert_eq!(unit_quat([0.0, 0.0, 0.0, 2.0]), Some(Quat::IDENTITY));
    }
}
