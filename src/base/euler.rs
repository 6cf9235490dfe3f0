//! The one Euler-angle conversion (degrees, YZX order) as Defold's `vmath.euler_to_quat` and
//! `vmath.quat_to_euler` compute it: collections (`euler`), tweens of `euler` and `go.get/set`
//! of `euler` all use these, so the angles written in a file, animated and read back agree.
use glam::{Quat, Vec3};

const DEG: f64 = 180.0 / std::f64::consts::PI;
const HALF_RAD: f64 = std::f64::consts::PI / 360.0;

/// Degrees, YZX order, the formula of `vmath.euler_to_quat` in single precision as Defold
/// computes it (it runs for every animated Euler record every frame).
pub fn euler_to_quat(e: Vec3) -> Quat {
    let h = e * (HALF_RAD as f32);
    let (sx, cx) = h.x.sin_cos();
    let (sy, cy) = h.y.sin_cos();
    let (sz, cz) = h.z.sin_cos();
    Quat::from_xyzw(
        sx * cy * cz + cx * sy * sz,
        cx * sy * cz + sx * cy * sz,
        cx * cy * sz - sx * sy * cz,
        cx * cy * cz - sx * sy * sz,
    )
}

/// Inverse of [`euler_to_quat`] as `vmath.quat_to_euler` computes it (gimbal snap included).
pub fn quat_to_euler(q: Quat) -> Vec3 {
    let (x, y, z, w) = (q.x as f64, q.y as f64, q.z as f64, q.w as f64);
    let v = |a: f64, b: f64, c: f64| Vec3::new((a * DEG) as f32, (b * DEG) as f32, (c * DEG) as f32);
    if x == 0.0 && y == 0.0 && z == 0.0 {
        return Vec3::ZERO;
    } else if y == 0.0 && z == 0.0 {
        return v(x.atan2(w) * 2.0, 0.0, 0.0);
    } else if x == 0.0 && z == 0.0 {
        return v(0.0, y.atan2(w) * 2.0, 0.0);
    } else if x == 0.0 && y == 0.0 {
        return v(0.0, 0.0, z.atan2(w) * 2.0);
    }
    let test = x * y + z * w;
    if test > 0.4999 {
        v(0.0, 2.0 * x.atan2(w), std::f64::consts::FRAC_PI_2)
    } else if test < -0.4999 {
        v(0.0, -2.0 * x.atan2(w), -std::f64::consts::FRAC_PI_2)
    } else {
        let (sx, sy, sz) = (x * x, y * y, z * z);
        let ry = (2.0 * y * w - 2.0 * x * z).atan2(1.0 - 2.0 * sy - 2.0 * sz);
        let rz = (2.0 * test).asin();
        let rx = (2.0 * x * w - 2.0 * y * z).atan2(1.0 - 2.0 * sx - 2.0 * sz);
        v(rx, ry, rz)
    }
}
