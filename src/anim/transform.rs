//! The local transform every rig function reads and writes, the shortest-path slerp shared by
//! sampling and blending, and pose blending. AoS (one 48-byte record per node): a pose is touched
//! node by node (sample, blend, then compose with the parent), so one record per node keeps each
//! step on one or two cache lines; the benchmark (`benches/skeleton.rs`) measures the result.
use glam::{Mat4, Quat, Vec3A, Vec4};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub translation: Vec3A,
    pub rotation: Quat,
    pub scale: Vec3A,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Transform = Transform { translation: Vec3A::ZERO, rotation: Quat::IDENTITY, scale: Vec3A::ONE };

    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale.into(), self.rotation, self.translation.into())
    }
}

/// Taylor coefficients of sin(tθ)/sin θ in x − 1, x = cos θ (Eberly, "A Fast and Accurate
/// Algorithm for Computing SLERP", 2011): t·(1 + b₁(1 + b₂(1 + …))), bᵢ = (uᵢt² − vᵢ)(x − 1),
/// uᵢ = 1/(i(2i+1)), vᵢ = i/(2i+1). The truncation error shrinks like (1 − x)ⁿ, so close keys
/// need few terms: within 2e-7 of the exact weights with 2 terms for x ≥ 0.98 (rotations up to
/// 23° between keys, the common case at 24–60 keys/s), 4 for x ≥ 0.866 (60°), 8 for x ≥ 0.5
/// (120°; 5e-7).
const U: [f32; 8] = [1.0 / 3.0, 1.0 / 10.0, 1.0 / 21.0, 1.0 / 36.0, 1.0 / 55.0, 1.0 / 78.0, 1.0 / 105.0, 1.0 / 136.0];
const V: [f32; 8] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0, 5.0 / 11.0, 6.0 / 13.0, 7.0 / 15.0, 8.0 / 17.0];

/// Spherical interpolation of unit quaternions along the shortest arc (`b` is negated when the
/// dot product is negative). Keys of real animations are close together, where a short
/// polynomial (no acos/sin, no small-angle special case) is both faster and as exact as f32
/// allows. Arcs over 120° (cross-fades between distant poses) are halved first: the arc's
/// midpoint `m = normalize(a + b)` is exact, and the half of the arc that holds `t` (at most
/// 90°, cos ≥ 0.707) takes the 8-term polynomial, so no trigonometry runs at all. Tested
/// within 1e-6 of an f64 slerp over all angles.
#[inline]
pub fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let dot = a.dot(b);
    let (b, x) = if dot < 0.0 { (-b, -dot) } else { (b, dot) };
    if x >= 0.5 { slerp_near(a, b, t, x) } else { slerp_far(a, b, t) }
}

/// `slerp` for arcs over 120° (`a·b` in [0, 0.5)), out of line: rare between keys.
#[inline(never)]
fn slerp_far(a: Quat, b: Quat, t: f32) -> Quat {
    // |a + b|² = 2 + 2x ≥ 2: no cancellation.
    let m = (a + b).normalize();
    if t <= 0.5 { slerp_near(a, m, 2.0 * t, a.dot(m)) } else { slerp_near(m, b, 2.0 * t - 1.0, m.dot(b)) }
}

/// `slerp` for `x = a·b ≥ 0.5` (arcs up to 120°).
#[inline(always)]
fn slerp_near(a: Quat, b: Quat, t: f32, x: f32) -> Quat {
    let d = 1.0 - t;
    let (fd, ft) = if x >= 0.98 {
        series::<2>(x, t, d)
    } else if x >= 0.866 {
        series::<4>(x, t, d)
    } else {
        series::<8>(x, t, d)
    };
    a * (d * fd) + b * (t * ft)
}

/// The first `N` terms of the series above for both weights (a constant count, so the loop
/// unrolls): `(f(1 − t), f(t))`.
#[inline(always)]
fn series<const N: usize>(x: f32, t: f32, d: f32) -> (f32, f32) {
    let xm1 = x.min(1.0) - 1.0;
    let (t2, d2) = (t * t, d * d);
    let (mut ft, mut fd) = (1.0f32, 1.0f32);
    for i in (0..N).rev() {
        ft = 1.0 + (U[i] * t2 - V[i]) * xm1 * ft;
        fd = 1.0 + (U[i] * d2 - V[i]) * xm1 * fd;
    }
    (fd, ft)
}

/// `slerp` of four pairs at once, each with its own `t` (a layer's weight × mask), as SIMD
/// columns: `a` and `b` are `[x, y, z, w]` with one quaternion per lane. A lane with an arc
/// over 120° slerps to the arc's midpoint `m` instead (exact) at `2t`: that arc is at most 90°
/// and the series stays within 3e-7 over `2t` in [0, 2], so no lane needs trigonometry or a
/// branch of its own. The four lanes take the series as long as the widest of their arcs
/// needs (8 terms up to 120°, within 5e-7 of an exact slerp; 6 up to 91°, which covers every
/// halved arc; 4 up to 60°; 2 up to 23°; each within 5e-7). Not renormalised.
#[inline(always)]
pub fn slerp4(a: [Vec4; 4], b: [Vec4; 4], t: Vec4) -> [Vec4; 4] {
    let dot = |p: &[Vec4; 4], q: &[Vec4; 4]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    let d0 = dot(&a, &b);
    let sign = Vec4::select(d0.cmplt(Vec4::ZERO), Vec4::splat(-1.0), Vec4::ONE);
    let b = b.map(|c| c * sign);
    let x = d0.abs();
    let far = x.cmplt(Vec4::splat(0.5));
    let (b, t, x) = if far.any() {
        // |a + b|² = 2 + 2x ≥ 2: no cancellation. The midpoint m is on the arc, half way:
        // slerp(a, b, t) = slerp(a, m, 2t), an arc of at most 45° (4D) run up to twice its
        // length, where the series is as exact as on an arc of 120° run once.
        let (m, x) = halve(a, b);
        let b = std::array::from_fn(|k| Vec4::select(far, m[k], b[k]));
        (b, Vec4::select(far, 2.0 * t, t), Vec4::select(far, x, d0.abs()))
    } else {
        (b, t, x)
    };
    let d = Vec4::ONE - t;
    let xm1 = x.min(Vec4::ONE) - Vec4::ONE;
    // As short a series as the widest (halved) arc allows: within 5e-7 for each class.
    let lowest = x.min_element();
    let (fd, ft) = if lowest >= 0.98 {
        series_lanes::<2>(xm1, t, d)
    } else if lowest >= 0.866 {
        series_lanes::<4>(xm1, t, d)
    } else if lowest >= 0.7 {
        series_lanes::<6>(xm1, t, d)
    } else {
        series_lanes::<8>(xm1, t, d)
    };
    let (ka, kb) = (d * fd, t * ft);
    std::array::from_fn(|k| a[k] * ka + b[k] * kb)
}

/// The midpoints `normalize(a + b)` of four arcs (`a · b >= 0`) and `a · m`.
#[inline(always)]
fn halve(a: [Vec4; 4], b: [Vec4; 4]) -> ([Vec4; 4], Vec4) {
    let dot = |p: &[Vec4; 4], q: &[Vec4; 4]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    let m = [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]];
    let inv = Vec4::ONE / dot(&m, &m).sqrt();
    let m = m.map(|c| c * inv);
    let x = dot(&a, &m);
    (m, x)
}

/// `series` with a `t` per lane.
#[inline(always)]
fn series_lanes<const N: usize>(xm1: Vec4, t: Vec4, d: Vec4) -> (Vec4, Vec4) {
    let (t2, d2) = (t * t, d * d);
    let (mut ft, mut fd) = (Vec4::ONE, Vec4::ONE);
    for i in (0..N).rev() {
        ft = Vec4::ONE + (U[i] * t2 - Vec4::splat(V[i])) * xm1 * ft;
        fd = Vec4::ONE + (U[i] * d2 - Vec4::splat(V[i])) * xm1 * fd;
    }
    (fd, ft)
}

/// `slerp` of four key pairs at one `t` (four tracks of one key-time list), as SIMD columns:
/// `SlerpAt::new(t).slerp4(a, b)`.
#[inline(always)]
pub fn slerp4_keys(a: [Vec4; 4], b: [Vec4; 4], t: f32) -> [Vec4; 4] {
    SlerpAt::new(t).slerp4(a, b)
}

/// The series coefficients of a four-lane slerp at one `t`, computed once for every batch
/// that shares it (the tracks of a key-time list at one sample time, the joints of a layer at
/// one weight).
#[derive(Debug, Clone, Copy)]
pub struct SlerpAt {
    t: f32,
    /// The series as a polynomial in `x − 1`: `pt[k]` is the coefficient of `(x − 1)^(k+1)`,
    /// the product of the first `k + 1` nested factors (for weight `t`; `pd` for `1 − t`).
    pt: [Vec4; 8],
    pd: [Vec4; 8],
}

impl SlerpAt {
    #[inline(always)]
    pub fn new(t: f32) -> SlerpAt {
        let d = 1.0 - t;
        let (t2, d2) = (t * t, d * d);
        let products = |s2: f32| {
            let mut p = 1.0f32;
            std::array::from_fn(|i| {
                p *= U[i] * s2 - V[i];
                Vec4::splat(p)
            })
        };
        SlerpAt { t, pt: products(t2), pd: products(d2) }
    }

    pub fn t(&self) -> f32 {
        self.t
    }

    /// `slerp` of four pairs at this `t`. Like the scalar `slerp`, the series is as short as the
    /// widest arc of the four allows (two terms when every arc is under 23°, the common case
    /// between keys); a batch with an arc over 120° takes `slerp4`. Not renormalised.
    #[inline(always)]
    pub fn slerp4(&self, a: [Vec4; 4], b: [Vec4; 4]) -> [Vec4; 4] {
        let d0 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        let x = d0.abs();
        let lowest = x.min_element();
        let sign = Vec4::select(d0.cmplt(Vec4::ZERO), Vec4::splat(-1.0), Vec4::ONE);
        if lowest < 0.5 {
            return slerp4(a, b, Vec4::splat(self.t));
        }
        let xm1 = x.min(Vec4::ONE) - Vec4::ONE;
        let (fd, ft) = if lowest >= 0.98 {
            self.series::<2>(xm1)
        } else if lowest >= 0.866 {
            self.series::<4>(xm1)
        } else if lowest >= 0.7 {
            self.series::<6>(xm1)
        } else {
            self.series::<8>(xm1)
        };
        let (ka, kb) = (fd * (1.0 - self.t), ft * (sign * self.t));
        std::array::from_fn(|k| a[k] * ka + b[k] * kb)
    }

    /// `slerp(1, d, t)` of four quaternions (an additive layer's weighted difference): the
    /// same as `slerp4` from the identity, without its zero products (`1 · d` is `d.w`, and the
    /// result's vector part is `d`'s scaled).
    #[inline(always)]
    pub fn from_identity4(&self, d: [Vec4; 4]) -> [Vec4; 4] {
        let x = d[3].abs();
        let lowest = x.min_element();
        if lowest < 0.5 {
            return slerp4([Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE], d, Vec4::splat(self.t));
        }
        let sign = Vec4::select(d[3].cmplt(Vec4::ZERO), Vec4::splat(-1.0), Vec4::ONE);
        let xm1 = x.min(Vec4::ONE) - Vec4::ONE;
        let (fd, ft) = if lowest >= 0.98 {
            self.series::<2>(xm1)
        } else if lowest >= 0.866 {
            self.series::<4>(xm1)
        } else if lowest >= 0.7 {
            self.series::<6>(xm1)
        } else {
            self.series::<8>(xm1)
        };
        let (ka, kb) = (fd * (1.0 - self.t), ft * (sign * self.t));
        [d[0] * kb, d[1] * kb, d[2] * kb, ka + d[3] * kb]
    }

    /// The first `N` terms (2, 4, 6 or 8) for both weights, `(f(1 − t), f(t))`, by Estrin's
    /// scheme: the nested form's 2N dependent multiply-adds became a chain of about log₂ N
    /// (the powers of `x − 1` and the pairs of terms are independent), and a layer's batches
    /// waited on that chain.
    #[inline(always)]
    fn series<const N: usize>(&self, xm1: Vec4) -> (Vec4, Vec4) {
        let x = xm1;
        let x2 = x * x;
        let f = |p: &[Vec4; 8]| {
            let low = Vec4::ONE + p[0] * x;
            match N {
                2 => low + p[1] * x2,
                4 => low + (p[1] + p[2] * x) * x2 + p[3] * (x2 * x2),
                6 => {
                    let x4 = x2 * x2;
                    low + (p[1] + p[2] * x) * x2 + ((p[3] + p[4] * x) + p[5] * x2) * x4
                }
                _ => {
                    let x4 = x2 * x2;
                    low + (p[1] + p[2] * x) * x2 + ((p[3] + p[4] * x) + (p[5] + p[6] * x) * x2 + p[7] * x4) * x4
                }
            }
        };
        (f(&self.pd), f(&self.pt))
    }
}

/// The scalar [`slerp`] of four key pairs at one `t`, bit for bit, in SIMD lanes: taken when
/// every pair is within `a·b >= 0.98` (arcs up to 23°, where `slerp` runs two series terms;
/// nearly every pair of neighbouring keys), each lane doing `slerp`'s operations in its order
/// (glam's `(x + z) + (y + w)` dot product, the sign flip as a signed weight, which rounds the
/// same). A batch with a wider arc is left to the scalar `slerp`: `None`.
#[derive(Debug, Clone, Copy)]
pub struct NearSlerp4 {
    t: Vec4,
    d: Vec4,
    ct: [Vec4; 2],
    cd: [Vec4; 2],
}

impl NearSlerp4 {
    #[inline(always)]
    pub fn new(t: f32) -> NearSlerp4 {
        let d = 1.0 - t;
        let (t2, d2) = (t * t, d * d);
        NearSlerp4 {
            t: Vec4::splat(t),
            d: Vec4::splat(d),
            ct: std::array::from_fn(|i| Vec4::splat(U[i] * t2 - V[i])),
            cd: std::array::from_fn(|i| Vec4::splat(U[i] * d2 - V[i])),
        }
    }

    /// `[slerp(a[k], b[k], t); 4]` as columns (`a`, `b` and the result `[x, y, z, w]`, one
    /// quaternion per lane), or `None` when some `|a·b| < 0.98`.
    #[inline(always)]
    pub fn slerp4(&self, a: [Vec4; 4], b: [Vec4; 4]) -> Option<[Vec4; 4]> {
        let dot = (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3]);
        let x = dot.abs();
        if !x.cmpge(Vec4::splat(0.98)).all() {
            return None;
        }
        let xm1 = x.min(Vec4::ONE) - Vec4::ONE;
        let (mut ft, mut fd) = (Vec4::ONE, Vec4::ONE);
        for i in (0..2).rev() {
            ft = Vec4::ONE + self.ct[i] * xm1 * ft;
            fd = Vec4::ONE + self.cd[i] * xm1 * fd;
        }
        let ka = self.d * fd;
        let kb = self.t * ft;
        // `slerp` negates b for a negative dot; b·(−k) is (−b)·k exactly.
        let kb = Vec4::select(dot.cmplt(Vec4::ZERO), -kb, kb);
        Some(std::array::from_fn(|c| a[c] * ka + b[c] * kb))
    }
}

/// `a · b` (Hamilton product, glam's order) of four pairs of column quaternions.
#[inline(always)]
pub fn quat_mul4(a: [Vec4; 4], b: [Vec4; 4]) -> [Vec4; 4] {
    let ([ax, ay, az, aw], [bx, by, bz, bw]) = (a, b);
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// One Newton step of 1/sqrt on four column quaternions (inputs unit to float precision).
#[inline(always)]
pub fn renormalise4(q: [Vec4; 4]) -> [Vec4; 4] {
    let s = Vec4::splat(1.5) - 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q.map(|c| c * s)
}

/// Four vectors transposed: lane `k` of result `c` is `v[k][c]` (four quaternions or axes to
/// SIMD columns, one per lane, and back).
#[inline(always)]
pub fn transpose4(v: [Vec4; 4]) -> [Vec4; 4] {
    let m = Mat4::from_cols(v[0], v[1], v[2], v[3]).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// Four quaternions as SIMD columns (`[x, y, z, w]`, one quaternion per lane) and back.
#[inline(always)]
pub fn quat_columns(q: [Quat; 4]) -> [Vec4; 4] {
    transpose4(q.map(Vec4::from))
}
#[inline(always)]
pub fn column_quats(c: [Vec4; 4]) -> [Quat; 4] {
    transpose4(c).map(Quat::from_vec4)
}

/// `out[i] = blend(from[i], out[i], w)`: translation and scale lerped, rotation slerped and
/// renormalised (Defold's rig blend). `w` is the weight of `out` (the newer animation). Only the
/// common prefix of the slices is blended; callers size them from the same skeleton.
pub fn blend_locals(from: &[Transform], out: &mut [Transform], w: f32) {
    let n = out.len().min(from.len());
    let (out, from) = (&mut out[..n], &from[..n]);
    for (o, f) in out.iter_mut().zip(from) {
        o.translation = f.translation.lerp(o.translation, w);
        o.scale = f.scale.lerp(o.scale, w);
    }
    // Rotations four at a time: the weight is the same for every joint, so the series
    // coefficients of `slerp_near` are computed once and the eight-term series (its most
    // accurate) runs on four quaternions per SIMD step. Arcs over 120° take the scalar path.
    let (t, d) = (w, 1.0 - w);
    let ct: [Vec4; 8] = std::array::from_fn(|i| Vec4::splat(U[i] * t * t - V[i]));
    let cd: [Vec4; 8] = std::array::from_fn(|i| Vec4::splat(U[i] * d * d - V[i]));
    let mut chunks = out.chunks_exact_mut(4);
    let mut from_chunks = from.chunks_exact(4);
    for (o, f) in (&mut chunks).zip(&mut from_chunks) {
        let col = |q: [Quat; 4], k: usize| {
            Vec4::new(q[0].to_array()[k], q[1].to_array()[k], q[2].to_array()[k], q[3].to_array()[k])
        };
        let a = [f[0].rotation, f[1].rotation, f[2].rotation, f[3].rotation];
        let b = [o[0].rotation, o[1].rotation, o[2].rotation, o[3].rotation];
        let (ax, ay, az, aw) = (col(a, 0), col(a, 1), col(a, 2), col(a, 3));
        let (bx, by, bz, bw) = (col(b, 0), col(b, 1), col(b, 2), col(b, 3));
        let dot = ax * bx + ay * by + az * bz + aw * bw;
        let x = dot.abs();
        if x.min_element() < 0.5 {
            for (oi, fi) in o.iter_mut().zip(f) {
                let r = slerp(fi.rotation, oi.rotation, w);
                oi.rotation = r * (1.5 - 0.5 * r.length_squared());
            }
            continue;
        }
        let sign = Vec4::select(dot.cmplt(Vec4::ZERO), Vec4::splat(-1.0), Vec4::ONE);
        let xm1 = x.min(Vec4::ONE) - Vec4::ONE;
        let (mut ft, mut fd) = (Vec4::ONE, Vec4::ONE);
        for i in (0..8).rev() {
            ft = Vec4::ONE + ct[i] * xm1 * ft;
            fd = Vec4::ONE + cd[i] * xm1 * fd;
        }
        let (ka, kb) = (fd * d, ft * t * sign);
        let (rx, ry, rz, rw) = (ax * ka + bx * kb, ay * ka + by * kb, az * ka + bz * kb, aw * ka + bw * kb);
        // One Newton step of 1/sqrt renormalises (inputs are unit to float precision).
        let s = Vec4::splat(1.5) - 0.5 * (rx * rx + ry * ry + rz * rz + rw * rw);
        let (rx, ry, rz, rw) = (rx * s, ry * s, rz * s, rw * s);
        for (k, oi) in o.iter_mut().enumerate() {
            oi.rotation = Quat::from_xyzw(rx[k], ry[k], rz[k], rw[k]);
        }
    }
    for (o, f) in chunks.into_remainder().iter_mut().zip(from_chunks.remainder()) {
        let r = slerp(f.rotation, o.rotation, w);
        o.rotation = r * (1.5 - 0.5 * r.length_squared());
    }
}

/// Morph weights of two animations, lerped like `blend_locals`.
pub fn blend_weights(from: &[f32], out: &mut [f32], w: f32) {
    for (o, f) in out.iter_mut().zip(from) {
        *o = f + (*o - f) * w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact slerp in f64, for reference.
    fn slerp64(a: Quat, b: Quat, t: f64) -> [f64; 4] {
        let a: [f64; 4] = a.to_array().map(f64::from);
        let mut b: [f64; 4] = b.to_array().map(f64::from);
        let mut d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        if d < 0.0 {
            b = b.map(|v| -v);
            d = -d;
        }
        let th = d.min(1.0).acos();
        if th < 1e-12 {
            return a;
        }
        let (ka, kb) = (((1.0 - t) * th).sin() / th.sin(), (t * th).sin() / th.sin());
        std::array::from_fn(|i| ka * a[i] + kb * b[i])
    }

    /// The largest component error of four lanes `got` against the f64 slerp from `a[l]` to
    /// `b[l]` at `t[l]`, skipping lanes at 180° (`|a·b| < 1e-4`: either way round is right).
    fn lanes_error(a: [Quat; 4], b: [Quat; 4], t: [f32; 4], got: [Quat; 4]) -> f64 {
        let mut worst = 0.0f64;
        for l in 0..4 {
            if a[l].dot(b[l]).abs() < 1e-4 {
                continue;
            }
            let want = slerp64(a[l], b[l], f64::from(t[l]));
            for (g, w) in got[l].to_array().iter().zip(want) {
                worst = worst.max((f64::from(*g) - w).abs());
            }
        }
        worst
    }

    #[test]
    fn near_slerp4_is_bit_identical_to_four_scalar_slerps() {
        let mut rnd = crate::anim::test_random(0x2545_f491);
        let (mut taken, mut refused) = (0, 0);
        for batch in 0..4000 {
            let t = match batch % 5 {
                0 => 0.0,
                1 => 1.0,
                _ => rnd(),
            };
            let near = NearSlerp4::new(t);
            let mut a = [Quat::IDENTITY; 4];
            let mut b = [Quat::IDENTITY; 4];
            for l in 0..4 {
                let axis = glam::Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 + 1e-3).normalize();
                a[l] = Quat::from_xyzw(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
                // Up to 26°: most batches are near, some are refused; every other pair on the
                // far side of the sphere (a negative dot, the same rotation).
                let step = Quat::from_axis_angle(axis, rnd() * 0.45);
                b[l] = if (batch + l) % 2 == 0 { a[l] * step } else { -(a[l] * step) };
                if batch % 7 == 0 {
                    b[l] = a[l];
                }
            }
            let Some(got) = near.slerp4(quat_columns(a), quat_columns(b)) else {
                refused += 1;
                assert!((0..4).any(|l| a[l].dot(b[l]).abs() < 0.98), "batch {batch}: refused a near batch");
                continue;
            };
            taken += 1;
            for (l, g) in column_quats(got).iter().enumerate() {
                let want = slerp(a[l], b[l], t);
                assert_eq!(
                    g.to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "batch {batch}, lane {l}"
                );
            }
        }
        assert!(taken > 1000 && refused > 100, "{taken} batches taken, {refused} refused");
    }

    /// The rotation axis of test batch `ai`.
    fn batch_axis(ai: usize) -> glam::Vec3 {
        glam::Vec3::new((ai as f32 * 0.7).sin(), (ai as f32 * 1.3).cos(), 0.4).normalize()
    }

    /// Lane `l`'s arc at step `k` of 200: four arcs near the k-th angle (up to 2π) for even
    /// batches, spread over all of them for odd ones.
    fn batch_angle(ai: usize, k: usize, l: usize) -> f32 {
        match ai % 2 {
            0 => (k as f32 + 0.3 * l as f32) * std::f32::consts::TAU / 200.0,
            _ => (k + 53 * l) as f32 * std::f32::consts::TAU / 200.0,
        }
    }

    #[test]
    fn four_lane_slerp_matches_exact_slerp_with_a_weight_per_lane() {
        let mut worst = 0.0f64;
        for ai in 0..30 {
            let axis = batch_axis(ai);
            let a = Quat::from_axis_angle(glam::Vec3::new(0.2, 0.9, -0.3).normalize(), ai as f32 * 0.1);
            for k in (0..=400).step_by(4) {
                // Four arcs and four weights per step: near and far lanes mixed, t on both
                // sides of the far case's halving point.
                let b: [Quat; 4] = std::array::from_fn(|l| {
                    a * Quat::from_axis_angle(axis, (k + 97 * l) as f32 * std::f32::consts::TAU / 400.0)
                });
                let t: [f32; 4] = std::array::from_fn(|l| ((k / 4 + 3 * l + ai) % 11) as f32 / 10.0);
                let got = column_quats(slerp4(quat_columns([a; 4]), quat_columns(b), Vec4::from_array(t)));
                worst = worst.max(lanes_error([a; 4], b, t, got));
            }
        }
        assert!(worst < 1e-6, "worst component error {worst}");
    }

    /// The shared-`t` four-lane slerp picks its series length from the widest of the four arcs:
    /// batches of arcs all in one class (2, 4, 8 terms, halved) and mixed, against f64.
    #[test]
    fn key_slerp_matches_exact_slerp_for_every_series_length() {
        let mut worst = 0.0f64;
        for ai in 0..40 {
            let axis = batch_axis(ai);
            let a = Quat::from_axis_angle(glam::Vec3::new(0.2, 0.9, -0.3).normalize(), ai as f32 * 0.1);
            for k in 0..=200 {
                let b: [Quat; 4] = std::array::from_fn(|l| a * Quat::from_axis_angle(axis, batch_angle(ai, k, l)));
                let t = ((k + ai) % 11) as f32 / 10.0;
                let got = column_quats(slerp4_keys(quat_columns([a; 4]), quat_columns(b), t));
                worst = worst.max(lanes_error([a; 4], b, [t; 4], got));
            }
        }
        assert!(worst < 1e-6, "worst component error {worst}");
    }

    /// The slerp from the identity (additive layers) against f64, over all arcs and weights.
    #[test]
    fn slerp_from_identity_matches_exact_slerp() {
        let mut worst = 0.0f64;
        for ai in 0..40 {
            let axis = batch_axis(ai);
            for k in 0..=200 {
                let d: [Quat; 4] = std::array::from_fn(|l| Quat::from_axis_angle(axis, batch_angle(ai, k, l)));
                let t = ((k + ai) % 11) as f32 / 10.0;
                let got = column_quats(SlerpAt::new(t).from_identity4(quat_columns(d)));
                // identity·d = d.w: the same 180° skip.
                worst = worst.max(lanes_error([Quat::IDENTITY; 4], d, [t; 4], got));
            }
        }
        assert!(worst < 1e-6, "worst component error {worst}");
    }

    #[test]
    fn slerp_matches_exact_slerp_over_all_angles() {
        let mut worst = 0.0f64;
        for ai in 0..60 {
            let axis = glam::Vec3::new((ai as f32 * 0.7).sin(), (ai as f32 * 1.3).cos(), 0.4).normalize();
            let a = Quat::from_axis_angle(glam::Vec3::new(0.2, 0.9, -0.3).normalize(), ai as f32 * 0.05);
            // Angles between the keys up to 2π, so both the shortest-path flip and the 180° case run.
            for k in 0..=400 {
                let b = a * Quat::from_axis_angle(axis, k as f32 * std::f32::consts::TAU / 400.0);
                for ti in 0..=10 {
                    let t = ti as f32 / 10.0;
                    let got = slerp(a, b, t).to_array();
                    let want = slerp64(a, b, f64::from(t));
                    for (g, w) in got.iter().zip(want) {
                        worst = worst.max((f64::from(*g) - w).abs());
                    }
                }
            }
        }
        assert!(worst < 1e-6, "worst error {worst}");
        println!("slerp: worst error {worst:.2e} against f64");
    }

    #[test]
    fn slerp_takes_the_short_way_and_hits_the_ends() {
        let a = Quat::from_rotation_z(0.1);
        let b = -Quat::from_rotation_z(0.3); // same rotation as +, opposite hemisphere
        let mid = slerp(a, b, 0.5);
        assert!(mid.angle_between(Quat::from_rotation_z(0.2)) < 1e-5);
        assert!(slerp(a, b, 0.0).abs_diff_eq(a, 1e-6));
        assert!(slerp(a, b, 1.0).abs_diff_eq(-b, 1e-6));
    }

    /// The four-wide blend equals the scalar slerp (and stays unit) for every chunk shape,
    /// small and large arcs (the latter take the scalar path) and several weights.
    #[test]
    fn four_wide_blend_matches_scalar_slerp() {
        let q = |k: usize| {
            let f = k as f32;
            Quat::from_euler(glam::EulerRot::YXZ, f * 0.7, f * 1.3 - 2.0, f * 0.45).normalize()
        };
        for n in 1..10 {
            for (w, spread) in [(0.25, 1usize), (0.5, 3), (0.9, 7)] {
                let from: Vec<Transform> =
                    (0..n).map(|k| Transform { rotation: q(k), ..Transform::IDENTITY }).collect();
                let mut out: Vec<Transform> =
                    (0..n).map(|k| Transform { rotation: q(k * spread + 1), ..Transform::IDENTITY }).collect();
                let want: Vec<Quat> = from.iter().zip(&out).map(|(f, o)| slerp(f.rotation, o.rotation, w)).collect();
                blend_locals(&from, &mut out, w);
                for (o, w4) in out.iter().zip(&want) {
                    assert!((o.rotation.length() - 1.0).abs() < 1e-6, "unit: {:?}", o.rotation);
                    let d = (o.rotation - *w4).length().min((o.rotation + *w4).length());
                    assert!(d < 2e-6, "n {n}, w {w}: {:?} vs {:?}", o.rotation, w4);
                }
            }
        }
    }

    #[test]
    fn blend_uses_the_weight_of_the_newer_pose() {
        let from = [Transform { translation: Vec3A::ZERO, rotation: Quat::IDENTITY, scale: Vec3A::ONE }];
        let mut out = [Transform {
            translation: Vec3A::new(4.0, 0.0, 0.0),
            rotation: Quat::from_rotation_y(1.0),
            scale: Vec3A::splat(3.0),
        }];
        blend_locals(&from, &mut out, 0.25);
        assert!(out[0].translation.abs_diff_eq(Vec3A::new(1.0, 0.0, 0.0), 1e-6));
        assert!(out[0].scale.abs_diff_eq(Vec3A::splat(1.5), 1e-6));
        assert!(out[0].rotation.angle_between(Quat::from_rotation_y(0.25)) < 1e-5);
        let mut w = [2.0, 10.0];
        blend_weights(&[0.0, 0.0, 99.0], &mut w, 0.5);
        assert_eq!(w, [1.0, 5.0]);
    }
}
