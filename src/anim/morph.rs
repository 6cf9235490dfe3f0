//! Morph targets on the CPU: the reference the GPU path is tested against, and what a CPU-side
//! consumer (picking, bounds, world-space batching) can use. Weight semantics match the renderer
//! and Defold: a weight past the end of `weights` counts as 0, extra weights are ignored, so a
//! mesh uses only as many entries as it has targets.
//!
//! Allocation-free: callers own the output buffers and reuse them frame to frame.

use thiserror::Error;

use crate::project::model_data::MorphTargetData;

/// Inconsistent input: nothing is written when one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MorphError {
    #[error("output has {out} entries for {vertices} vertices")]
    Output { out: usize, vertices: usize },
    #[error("morph target {target} has {len} {what} deltas for {vertices} vertices")]
    Target { target: usize, what: &'static str, len: usize, vertices: usize },
}

/// Which delta list of a target to read.
#[derive(Clone, Copy)]
enum Stream {
    Position,
    Normal,
    Tangent,
}

impl Stream {
    fn of(self, t: &MorphTargetData) -> &[[f32; 3]] {
        match self {
            Stream::Position => &t.positions,
            Stream::Normal => &t.normals,
            Stream::Tangent => &t.tangents,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Stream::Position => "position",
            Stream::Normal => "normal",
            Stream::Tangent => "tangent",
        }
    }
}

/// An empty delta list is a target without that attribute (a zero delta), as in glTF.
fn check(vertices: usize, targets: &[MorphTargetData], out: usize, stream: Stream) -> Result<(), MorphError> {
    if out != vertices {
        return Err(MorphError::Output { out, vertices });
    }
    for (target, t) in targets.iter().enumerate() {
        let len = stream.of(t).len();
        if len != 0 && len != vertices {
            return Err(MorphError::Target { target, what: stream.name(), len, vertices });
        }
    }
    Ok(())
}

/// `out = base + Σ weights[t] · targets[t].<stream>` without renormalising.
fn accumulate(base: &[[f32; 3]], targets: &[MorphTargetData], weights: &[f32], out: &mut [[f32; 3]], s: Stream) {
    out.copy_from_slice(base);
    for (t, &w) in targets.iter().zip(weights) {
        // Zero weights are the common case for most targets of a face rig: skip their memory.
        if w == 0.0 {
            continue;
        }
        for (o, d) in out.iter_mut().zip(s.of(t)) {
            o[0] += w * d[0];
            o[1] += w * d[1];
            o[2] += w * d[2];
        }
    }
}

/// Morphed positions: `base + Σ wₜ·Δposₜ`.
pub fn morph_positions(
    base: &[[f32; 3]],
    targets: &[MorphTargetData],
    weights: &[f32],
    out: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    check(base.len(), targets, out.len(), Stream::Position)?;
    accumulate(base, targets, weights, out, Stream::Position);
    Ok(())
}

/// Morphed normals: `normalize(base + Σ wₜ·Δnₜ)`; a sum of zero length stays zero rather than
/// becoming NaN (the shader's `normalize` is undefined there; nothing sensible exists).
pub fn morph_normals(
    base: &[[f32; 3]],
    targets: &[MorphTargetData],
    weights: &[f32],
    out: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    check(base.len(), targets, out.len(), Stream::Normal)?;
    accumulate(base, targets, weights, out, Stream::Normal);
    out.iter_mut().for_each(normalize);
    Ok(())
}

/// Morphed tangents: xyz as [`morph_normals`], w (handedness) copied from `base`.
pub fn morph_tangents(
    base: &[[f32; 4]],
    targets: &[MorphTargetData],
    weights: &[f32],
    out: &mut [[f32; 4]],
) -> Result<(), MorphError> {
    check(base.len(), targets, out.len(), Stream::Tangent)?;
    out.copy_from_slice(base);
    for (t, &w) in targets.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        for (o, d) in out.iter_mut().zip(&t.tangents) {
            o[0] += w * d[0];
            o[1] += w * d[1];
            o[2] += w * d[2];
        }
    }
    for o in out.iter_mut() {
        let mut v = [o[0], o[1], o[2]];
        normalize(&mut v);
        o[..3].copy_from_slice(&v);
    }
    Ok(())
}

fn normalize(v: &mut [f32; 3]) {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        v.iter_mut().for_each(|c| *c /= len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(p: &[[f32; 3]], n: &[[f32; 3]]) -> MorphTargetData {
        MorphTargetData { positions: p.to_vec(), normals: n.to_vec(), tangents: vec![] }
    }

    #[test]
    fn weighted_sum_of_deltas() {
        let base = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
        let targets =
            [target(&[[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]], &[]), target(&[[1.0, 0.0, 0.0], [0.0, 0.0, 4.0]], &[])];
        let mut out = [[9.0; 3]; 2];
        morph_positions(&base, &targets, &[0.5, 0.25], &mut out).unwrap();
        assert_eq!(out, [[0.25, 0.5, 0.0], [1.0, 1.0, 1.0]]);
        // Missing weights are zero, extra ones ignored.
        morph_positions(&base, &targets, &[1.0], &mut out).unwrap();
        assert_eq!(out, [[0.0, 1.0, 0.0], [1.0, 2.0, 0.0]]);
        morph_positions(&base, &targets, &[0.0, 0.0, 7.0], &mut out).unwrap();
        assert_eq!(out, base);
    }

    #[test]
    fn targets_without_a_stream_contribute_nothing() {
        let base = [[0.0, 0.0, 1.0]];
        let targets = [target(&[[5.0, 0.0, 0.0]], &[]), target(&[], &[[0.0, 3.0, -1.0]])];
        let mut out = [[0.0; 3]];
        morph_normals(&base, &targets, &[1.0, 1.0], &mut out).unwrap();
        assert_eq!(out, [[0.0, 1.0, 0.0]]);
        morph_positions(&base, &targets, &[1.0, 1.0], &mut out).unwrap();
        assert_eq!(out, [[5.0, 0.0, 1.0]]);
    }

    #[test]
    fn normals_cancelling_out_stay_zero() {
        let targets = [target(&[], &[[0.0, 0.0, -1.0]])];
        let mut out = [[1.0; 3]];
        morph_normals(&[[0.0, 0.0, 1.0]], &targets, &[1.0], &mut out).unwrap();
        assert_eq!(out, [[0.0; 3]]);
    }

    #[test]
    fn tangents_keep_handedness() {
        let targets = [MorphTargetData { tangents: vec![[-1.0, 1.0, 0.0]], ..Default::default() }];
        let mut out = [[0.0; 4]];
        morph_tangents(&[[1.0, 0.0, 0.0, -1.0]], &targets, &[1.0], &mut out).unwrap();
        assert_eq!(out, [[0.0, 1.0, 0.0, -1.0]]);
    }

    #[test]
    fn length_mismatches_are_errors_and_write_nothing() {
        let base = [[0.0; 3]; 3];
        let good = target(&[[1.0; 3]; 3], &[]);
        let mut out = [[7.0; 3]; 3];
        let short = target(&[[1.0; 3]; 2], &[]);
        assert_eq!(
            morph_positions(&base, &[good.clone(), short], &[1.0, 1.0], &mut out),
            Err(MorphError::Target { target: 1, what: "position", len: 2, vertices: 3 })
        );
        assert_eq!(out, [[7.0; 3]; 3]);
        let mut small = [[0.0; 3]; 2];
        assert_eq!(
            morph_positions(&base, std::slice::from_ref(&good), &[1.0], &mut small),
            Err(MorphError::Output { out: 2, vertices: 3 })
        );
        let long_normals = target(&[], &[[0.0; 3]; 4]);
        let e = morph_normals(&base, &[long_normals], &[1.0], &mut out).unwrap_err();
        assert_eq!(e.to_string(), "morph target 0 has 4 normal deltas for 3 vertices");
        let bad_tangents = MorphTargetData { tangents: vec![[0.0; 3]], ..Default::default() };
        assert!(morph_tangents(&[[0.0; 4]; 3], &[bad_tangents], &[1.0], &mut [[0.0; 4]; 3]).is_err());
        // No targets, no weights, no vertices: all fine.
        morph_positions(&[], &[], &[], &mut []).unwrap();
        morph_positions(&base, &[], &[1.0], &mut out).unwrap();
        assert_eq!(out, base);
    }
}
