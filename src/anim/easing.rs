//! Easing curves as Defold evaluates them: 64 samples per built-in curve with linear interpolation
//! between samples (api.md 3.2), so elastic and bounce match Defold to the last digit instead of
//! the analytic curves they approximate. The samples are generated here from the Penner/Tweener
//! formulas of api.md 3.3, once, at first use.
use std::f64::consts::PI;
use std::sync::OnceLock;

/// Number of built-in curves (`go.EASING_*`, values 0..=40).
pub const BUILTIN_COUNT: usize = 41;
/// Samples per built-in curve: f(i/63) for i in 0..64.
pub const SAMPLES: usize = 64;
/// Each curve is stored with its last sample duplicated so the interpolation never reads past it.
const STRIDE: usize = SAMPLES + 1;

/// The shapes built from one "in" curve.
#[derive(Clone, Copy)]
enum Family {
    Power(i32),
    Sine,
    Expo,
    Circ,
    Elastic,
    Back,
    Bounce,
}

const FAMILIES: [Family; 10] = [
    Family::Power(2),
    Family::Power(3),
    Family::Power(4),
    Family::Power(5),
    Family::Sine,
    Family::Expo,
    Family::Circ,
    Family::Elastic,
    Family::Back,
    Family::Bounce,
];

const BACK_S: f64 = 1.70158;
const ELASTIC_P: f64 = 0.3;

fn elastic_in(t: f64, c: f64, s: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    if t >= 1.0 {
        return c;
    }
    -(2f64.powf(10.0 * (t - 1.0)) * (((t - 1.0) - s) * 2.0 * PI / ELASTIC_P).sin())
}

fn elastic_out(t: f64, c: f64, s: f64) -> f64 {
    if t <= 0.0 {
        return 0.0;
    }
    if t >= 1.0 {
        return c;
    }
    2f64.powf(-10.0 * t) * ((t - s) * 2.0 * PI / ELASTIC_P).sin() + c
}

fn bounce_out(t: f64) -> f64 {
    const K: f64 = 7.5625;
    if t < 1.0 / 2.75 {
        K * t * t
    } else if t < 2.0 / 2.75 {
        let t = t - 1.5 / 2.75;
        K * t * t + 0.75
    } else if t < 2.5 / 2.75 {
        let t = t - 2.25 / 2.75;
        K * t * t + 0.9375
    } else {
        let t = t - 2.625 / 2.75;
        K * t * t + 0.984375
    }
}

fn back_in(t: f64, s: f64) -> f64 {
    t * t * ((s + 1.0) * t - s)
}

fn ease_in(f: Family, t: f64) -> f64 {
    match f {
        Family::Power(p) => t.powi(p),
        Family::Sine => 1.0 - (t * PI / 2.0).cos(),
        Family::Expo => {
            if t <= 0.0 {
                0.0
            } else {
                2f64.powf(10.0 * (t - 1.0)) - 0.001
            }
        }
        Family::Circ => 1.0 - (1.0 - t * t).max(0.0).sqrt(),
        Family::Elastic => elastic_in(t, 1.0, ELASTIC_P / 4.0),
        Family::Back => back_in(t, BACK_S),
        Family::Bounce => 1.0 - bounce_out(1.0 - t),
    }
}

fn ease_out(f: Family, t: f64) -> f64 {
    match f {
        Family::Expo => {
            if t >= 1.0 {
                1.0
            } else {
                1.001 * (1.0 - 2f64.powf(-10.0 * t))
            }
        }
        Family::Elastic => elastic_out(t, 1.0, ELASTIC_P / 4.0),
        Family::Bounce => bounce_out(t),
        _ => 1.0 - ease_in(f, 1.0 - t),
    }
}

fn ease_in_out(f: Family, t: f64) -> f64 {
    match f {
        Family::Expo => {
            if t <= 0.0 {
                0.0
            } else if t >= 1.0 {
                1.0
            } else if t < 0.5 {
                0.5 * 2f64.powf(10.0 * (2.0 * t - 1.0)) - 0.0005
            } else {
                0.5 * 1.0005 * (2.0 - 2f64.powf(-10.0 * (2.0 * t - 1.0)))
            }
        }
        Family::Back => {
            let s = BACK_S * 1.525;
            if t < 0.5 { 0.5 * back_in(2.0 * t, s) } else { 0.5 + 0.5 * (1.0 - back_in(2.0 - 2.0 * t, s)) }
        }
        _ => {
            if t < 0.5 {
                0.5 * ease_in(f, 2.0 * t)
            } else {
                0.5 + 0.5 * ease_out(f, 2.0 * t - 1.0)
            }
        }
    }
}

fn ease_out_in(f: Family, t: f64) -> f64 {
    if let Family::Elastic = f {
        // Each half is a Penner elastic of change 0.5 with amplitude 1, whose phase is then
        // p/(2π)·asin(0.5/1) = p/12 rather than p/4.
        let s = ELASTIC_P / 12.0;
        return if t < 0.5 {
            let u = 2.0 * t;
            if u <= 0.0 { 0.0 } else { 2f64.powf(-10.0 * u) * ((u - s) * 2.0 * PI / ELASTIC_P).sin() + 0.5 }
        } else {
            0.5 + elastic_in(2.0 * t - 1.0, 0.5, s)
        };
    }
    if let Family::Bounce = f {
        // Defold's table scales only the first parabola of each half-height bounce by the half
        // change; the later ones keep full height and are shifted down by 0.5 instead.
        let half = |u: f64| if u < 1.0 / 2.75 { 0.5 * bounce_out(u) } else { bounce_out(u) - 0.5 };
        return if t < 0.5 { half(2.0 * t) } else { 1.0 - half(2.0 - 2.0 * t) };
    }
    if t < 0.5 { 0.5 * ease_out(f, 2.0 * t) } else { 0.5 + 0.5 * ease_in(f, 2.0 * t - 1.0) }
}

/// The analytic value of built-in curve `curve` (0..=40) at `t` in [0, 1]: what the samples are
/// taken from.
pub fn analytic(curve: usize, t: f64) -> f64 {
    if curve == 0 || curve >= BUILTIN_COUNT {
        return t;
    }
    let f = FAMILIES[(curve - 1) / 4];
    match (curve - 1) % 4 {
        0 => ease_in(f, t),
        1 => ease_out(f, t),
        2 => ease_in_out(f, t),
        _ => ease_out_in(f, t),
    }
}

/// One row of samples per built-in curve: [`SAMPLES`] samples and a 1 past the end, so the
/// lookup's upper neighbour is always in the row.
pub type Row = [f32; STRIDE];

/// All built-in sample tables, one [`Row`] per curve.
pub fn table() -> &'static [Row] {
    static TABLE: OnceLock<Vec<Row>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..BUILTIN_COUNT)
            .map(|curve| {
                let mut row = [1.0; STRIDE];
                // Defold stores exactly 1 at t = 1 for every curve (the Expo formulas alone give
                // 0.999): the last sample stays the 1 the row starts with.
                for (i, v) in row.iter_mut().take(SAMPLES - 1).enumerate() {
                    *v = analytic(curve, i as f64 / (SAMPLES - 1) as f64) as f32;
                }
                row
            })
            .collect()
    })
}

/// The 64 samples of one built-in curve.
pub fn samples(curve: usize) -> &'static [f32] {
    &table()[curve.min(BUILTIN_COUNT - 1)][..SAMPLES]
}

/// Piecewise-linear lookup over `n` uniformly spaced samples, with Defold's exact float steps.
#[inline]
fn lookup(s: &[f32], n: usize, t: f32) -> f32 {
    let t = if t > 0.0 { t.min(1.0) } else { 0.0 };
    let last = (n - 1) as f32;
    let i0 = (t * last) as usize;
    let i1 = (i0 + 1).min(n - 1);
    let frac = (t - i0 as f32 * (1.0 / last)) * last;
    s[i0] * (1.0 - frac) + s[i1] * frac
}

/// Value of built-in curve `curve` at `t` (clamped to [0, 1]).
#[inline]
pub fn builtin(table: &[Row], curve: usize, t: f32) -> f32 {
    match table.get(curve) {
        Some(row) => builtin_row(row, t),
        None => 0.0,
    }
}

/// `lookup` over one built-in curve's row, the same float steps: the tween world's hottest
/// lines, so the index is converted without `as`'s saturation steps and needs no bounds check.
#[inline(always)]
pub fn builtin_row(row: &Row, t: f32) -> f32 {
    let t = if t > 0.0 { t.min(1.0) } else { 0.0 };
    let last = (SAMPLES - 1) as f32;
    // SAFETY: `t` is in [0, 1] here (NaN became 0), so `t × 63` is in [0, 63] and converts
    // exactly; `as usize` would add range and NaN checks the value cannot need.
    let i0 = unsafe { (t * last).to_int_unchecked::<u32>() } as usize;
    // `i0` is at most 63, so the mask changes nothing; it shows the compiler both indices are
    // inside the row.
    let i0 = i0 & (SAMPLES - 1);
    let frac = (t - i0 as f32 * (1.0 / last)) * last;
    row[i0] * (1.0 - frac) + row[i0 + 1] * frac
}

/// Value of a custom curve (`vmath.vector` easing): no samples → 0, one sample → that sample.
pub fn custom(s: &[f32], t: f32) -> f32 {
    match s.len() {
        0 => 0.0,
        1 => s[0],
        n => lookup(s, n, t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINEAR: usize = 0;
    const INQUAD: usize = 1;
    const OUTBACK: usize = 34;
    const INOUTBOUNCE: usize = 39;
    const OUTINELASTIC: usize = 32;

    fn value(curve: usize, t: f32) -> f32 {
        builtin(table(), curve, t)
    }

    #[test]
    fn builtin_lookup_is_bit_identical_to_the_general_one() {
        let mut ts: Vec<f32> = (0..=20_000).map(|i| i as f32 / 20_000.0).collect();
        ts.extend([-1.0, -0.0, 1.0 + f32::EPSILON, 2.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-30]);
        ts.extend((0..SAMPLES).map(|i| i as f32 / (SAMPLES - 1) as f32));
        for curve in 0..BUILTIN_COUNT {
            let samples = &table()[curve][..];
            for &t in &ts {
                let (fast, general) = (value(curve, t), lookup(samples, SAMPLES, t));
                assert_eq!(fast.to_bits(), general.to_bits(), "curve {curve} at {t}: {fast} vs {general}");
            }
        }
    }

    #[test]
    fn defold_test_vectors() {
        assert_eq!(value(LINEAR, -1.0), 0.0);
        assert_eq!(value(LINEAR, 1.5), 1.0);
        assert_eq!(value(INOUTBOUNCE, 0.0), 0.0);
        assert_eq!(value(INOUTBOUNCE, 1.0), 1.0);
        assert!((value(OUTBACK, 0.5) - 1.0876975).abs() < 1e-3, "{}", value(OUTBACK, 0.5));
        for i in 0..=100 {
            let t = i as f32 / 100.0;
            assert!((value(INQUAD, t) - t * t).abs() < 1e-4, "inquad({t})");
        }
    }

    #[test]
    fn samples_are_the_formulas_at_i_over_63() {
        for curve in 0..BUILTIN_COUNT {
            let s = samples(curve);
            assert_eq!(s[SAMPLES - 1], 1.0, "curve {curve} ends at exactly 1");
            for (i, &v) in s.iter().enumerate().take(SAMPLES - 1) {
                let t = i as f64 / 63.0;
                assert_eq!(v, analytic(curve, t) as f32, "curve {curve} sample {i}");
                // Between samples the lookup is the straight line joining them.
                assert!((value(curve, t as f32) - v).abs() < 1e-5, "curve {curve} at sample {i}");
            }
        }
    }

    #[test]
    fn shapes_follow_the_derivation_rules() {
        for curve in 1..BUILTIN_COUNT {
            assert!(analytic(curve, 0.0).abs() < 1e-9, "curve {curve} starts at 0");
        }
        for fam in 0..10 {
            let (in_c, out_c, inout_c) = (1 + fam * 4, 2 + fam * 4, 3 + fam * 4);
            for i in 1..63 {
                let t = i as f64 / 63.0;
                assert!((analytic(out_c, t) - (1.0 - analytic(in_c, 1.0 - t))).abs() < 2e-3, "out {fam} {t}");
                if fam != 5 && fam != 8 {
                    // InOut is two halves of In/Out (Expo and Back have their own formulas).
                    let want = if t < 0.5 {
                        0.5 * analytic(in_c, 2.0 * t)
                    } else {
                        0.5 + 0.5 * analytic(out_c, 2.0 * t - 1.0)
                    };
                    assert!((analytic(inout_c, t) - want).abs() < 1e-12, "inout {fam} {t}");
                }
            }
        }
        // OutInBounce: the first bounce of each half is scaled, the later ones shifted.
        let outin_bounce = 40;
        assert!((analytic(outin_bounce, 12.0 / 63.0) - (analytic(38, 24.0 / 63.0) - 0.5)).abs() < 1e-12);
        assert!((analytic(outin_bounce, 1.0 / 63.0) - 0.5 * analytic(38, 2.0 / 63.0)).abs() < 1e-12);
        // Samples quoted in api.md 3.3 for OutInElastic.
        let s = samples(OUTINELASTIC);
        assert!((s[1] - 0.61300457).abs() < 1e-7, "{}", s[1]);
        assert!((s[2] - 0.96472234).abs() < 1e-7, "{}", s[2]);
        assert!((s[62] - 1.244_546_4).abs() < 1e-7, "{}", s[62]);
    }

    #[test]
    fn custom_curves() {
        assert_eq!(custom(&[], 0.3), 0.0);
        assert_eq!(custom(&[0.7], 0.3), 0.7);
        let ramp: Vec<f32> = (0..11).map(|i| i as f32 / 10.0).collect();
        for i in 0..=20 {
            let t = i as f32 / 20.0;
            assert!((custom(&ramp, t) - t).abs() < 1e-6);
        }
        assert_eq!(custom(&ramp, -3.0), 0.0);
        assert_eq!(custom(&ramp, 3.0), 1.0);
        let overshoot = [0.0, 2.0, 1.0];
        assert_eq!(custom(&overshoot, 0.5), 2.0);
        assert!((custom(&overshoot, 0.25) - 1.0).abs() < 1e-6);
        let many: Vec<f32> = (0..64).map(|i| analytic(OUTBACK, i as f64 / 63.0) as f32).collect();
        for i in 0..=50 {
            let t = i as f32 / 50.0;
            assert!((custom(&many, t) - value(OUTBACK, t)).abs() < 1e-3, "64-sample custom curve at {t}");
        }
    }
}
