//! CPU morphing and skinning of positions, in the order glTF prescribes (morph targets first, then
//! skinning). The reference implementation the GPU path is tested against, and what a WORLD
//! vertex-space material would use.
use super::skeleton::{RigError, need};
use crate::project::model_data::MorphTargetData;
use glam::{Mat4, Vec3, Vec4};

/// One skinning matrix as the pose keeps it and the renderer uploads it: the top three rows of
/// the 4×4 matrix, row-major. The bottom row of an affine matrix is always `0 0 0 1`, so it is
/// not stored.
pub type BoneRows = [f32; 12];

/// The rows of `m`'s affine part.
#[inline(always)]
pub fn bone_rows(m: &Mat4) -> BoneRows {
    let [r0, r1, r2] = bone_row_vectors(m);
    let mut o = [0.0; 12];
    o[..4].copy_from_slice(&r0.to_array());
    o[4..8].copy_from_slice(&r1.to_array());
    o[8..].copy_from_slice(&r2.to_array());
    o
}

/// [`bone_rows`] as three vectors, in the order they are stored (a register transpose): for a
/// writer that stores them itself (`Skeleton::palette_rows_streamed`).
#[inline(always)]
pub fn bone_row_vectors(m: &Mat4) -> [Vec4; 3] {
    let [r0, r1, r2, _] = super::transform::transpose4([m.x_axis, m.y_axis, m.z_axis, m.w_axis]);
    [r0, r1, r2]
}

/// The affine matrix whose top rows are `r` (bottom row `0 0 0 1`).
pub fn rows_matrix(r: &BoneRows) -> Mat4 {
    let row = |i: usize| Vec4::new(r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
    Mat4::from_cols(row(0), row(1), row(2), Vec4::W).transpose()
}

/// `out[v] = base[v] + Σₜ weights[t] · targets[t].positions[v]`. Targets without position deltas
/// and weights beyond the target count are skipped (Defold clamps weights per mesh).
pub fn morph_positions(
    base: &[[f32; 3]],
    targets: &[MorphTargetData],
    weights: &[f32],
    out: &mut [[f32; 3]],
) -> Result<(), RigError> {
    need("morphed positions", base.len(), out.len())?;
    for t in targets {
        if !t.positions.is_empty() {
            need("morph target positions", base.len(), t.positions.len())?;
        }
    }
    out[..base.len()].copy_from_slice(base);
    for (t, &w) in targets.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        for (o, d) in out.iter_mut().zip(&t.positions) {
            for (a, b) in o.iter_mut().zip(d) {
                *a += w * b;
            }
        }
    }
    Ok(())
}

/// `out[v] = Σᵢ weights[v][i] · palette[joints[v][i]] · positions[v]` (linear blend skinning, four
/// influences). A joint index outside the palette with a non-zero weight is an error (checked
/// for every vertex before anything is written); with weight zero it is ignored.
pub fn skin_positions(
    palette: &[Mat4],
    positions: &[[f32; 3]],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    out: &mut [[f32; 3]],
) -> Result<(), RigError> {
    let n = positions.len();
    need("skin joints", n, joints.len())?;
    need("skin weights", n, weights.len())?;
    need("skinned positions", n, out.len())?;
    for (j, w) in joints.iter().zip(weights).take(n) {
        if let Some((&bad, _)) = j.iter().zip(w).find(|(j, w)| usize::from(**j) >= palette.len() && **w != 0.0) {
            return Err(RigError::BufferTooShort { what: "palette", needed: usize::from(bad) + 1, got: palette.len() });
        }
    }
    for (((o, p), j), w) in out.iter_mut().zip(positions).zip(joints).zip(weights) {
        let p = Vec3::from_array(*p);
        let mut acc = Vec3::ZERO;
        for (&j, &w) in j.iter().zip(w) {
            if w != 0.0 {
                acc += w * palette[usize::from(j)].transform_point3(p);
            }
        }
        *o = acc.to_array();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morph_adds_weighted_deltas_and_checks_lengths() {
        let base = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
        let t = MorphTargetData { positions: vec![[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]], ..Default::default() };
        let mut out = [[9.0; 3]; 2];
        morph_positions(&base, std::slice::from_ref(&t), &[0.5, 7.0], &mut out).unwrap();
        assert_eq!(out, [[0.0, 0.5, 0.0], [1.0, 1.0, 0.0]]);
        let mut short = [[9.0; 3]; 1];
        assert!(matches!(morph_positions(&base, &[t], &[1.0], &mut short), Err(RigError::BufferTooShort { .. })));
        assert_eq!(short, [[9.0; 3]]);
        let bad = MorphTargetData { positions: vec![[0.0; 3]], ..Default::default() };
        assert!(morph_positions(&base, &[bad], &[1.0], &mut out).is_err());
    }

    #[test]
    fn bone_rows_round_trip_an_affine_matrix() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            glam::Quat::from_rotation_y(0.7),
            Vec3::new(3.0, -4.0, 5.0),
        );
        let r = bone_rows(&m);
        // Row 0 is the x of every column: the translation's x last.
        assert_eq!([r[3], r[7], r[11]], [3.0, -4.0, 5.0]);
        assert_eq!(rows_matrix(&r), m);
    }

    #[test]
    fn skin_blends_four_influences_and_rejects_bad_input() {
        let palette = [Mat4::IDENTITY, Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0))];
        let mut out = [[0.0; 3]];
        skin_positions(&palette, &[[1.0, 0.0, 0.0]], &[[0, 1, 5, 0]], &[[0.5, 0.5, 0.0, 0.0]], &mut out).unwrap();
        assert_eq!(out, [[1.0, 1.0, 0.0]]);
        // Weighted joint out of range; short joints, weights and out.
        assert!(skin_positions(&palette, &[[1.0; 3]], &[[0, 5, 0, 0]], &[[0.5; 4]], &mut out).is_err());
        assert!(skin_positions(&palette, &[[1.0; 3]], &[], &[[1.0, 0.0, 0.0, 0.0]], &mut out).is_err());
        assert!(skin_positions(&palette, &[[1.0; 3]], &[[0; 4]], &[], &mut out).is_err());
        assert!(skin_positions(&palette, &[[1.0; 3]; 2], &[[0; 4]; 2], &[[1.0, 0.0, 0.0, 0.0]; 2], &mut out).is_err());
        assert_eq!(out, [[1.0, 1.0, 0.0]]);
    }
}
