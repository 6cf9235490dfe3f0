//! Posed vertex positions on the CPU, from the same animation state the renderer draws: the
//! instance's [`AnimState`] gives morph weights, skinning palettes and animated mesh matrices,
//! and this module applies them as the built-in vertex shader does (morph targets, then skinning
//! for a skinned mesh, or the mesh's node matrix for a rigid one). `sinew inspect --vertices`
//! prints it; tests compare it with GPU readback and the reference poses.
//!
//! Owns nothing per frame; never touches the scene or the renderer.
use super::animation::rig::Rig;
use super::animation::state::AnimState;
use crate::anim::Playback;
use crate::anim::skinning::{morph_positions, rows_matrix, skin_positions};
use crate::project::model_data::ModelData;
use glam::{Mat4, Vec3};
use std::sync::Arc;

/// One drawn primitive's posed positions, in model space (the glTF default scene's world space).
#[derive(Debug, Clone, PartialEq)]
pub struct PosedPrimitive {
    /// Index into [`ModelData::nodes`] of the mesh's node.
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    /// Vertex order of the primitive's `POSITION` accessor.
    pub positions: Vec<[f32; 3]>,
}

/// The pose of `data`'s meshes at `time` seconds of `clip` (clamped to the clip, as a ONCE
/// animation is), or at rest with no clip.
pub fn posed_vertices(data: &ModelData, rig: Option<Arc<Rig>>, clip: Option<usize>, time: f32) -> Vec<PosedPrimitive> {
    let mut weights: Vec<f32> = data.meshes.iter().flat_map(|m| m.weights.iter().copied()).collect();
    let state = rig.map(|rig| {
        let mut s = AnimState::with_meshes(rig, data);
        if let Some(c) = clip {
            let duration = s.rig.clips.get(c).map_or(0.0, |k| k.duration());
            s.player.play(c, Playback::OnceForward, 0.0, 0.0, 1.0);
            let cursor = if duration > 0.0 { (time / duration).clamp(0.0, 1.0) } else { 0.0 };
            s.player.set_cursor(cursor);
        }
        s.pose(&mut weights);
        s
    });
    pose_with(data, state.as_ref(), &weights)
}

/// Applies an animation state's current pose to every primitive of `data`. `weights` is the
/// instance's morph weights buffer (meshes in model order); without a state, meshes sit at their
/// rest node matrices and skinned meshes at the rest palette.
pub fn pose_with(data: &ModelData, state: Option<&AnimState>, weights: &[f32]) -> Vec<PosedPrimitive> {
    let rest_nodes = crate::anim::skeleton::node_world_matrices(data);
    let mut skin_start = Vec::with_capacity(data.skins.len());
    let mut at = 0;
    for s in &data.skins {
        skin_start.push(at);
        at += s.joints.len();
    }
    let rest_palette: Vec<Mat4> = data
        .skins
        .iter()
        .flat_map(|s| {
            s.joints
                .iter()
                .zip(&s.inverse_bind)
                .map(|(&j, ib)| rest_nodes.get(j).copied().unwrap_or(Mat4::IDENTITY) * Mat4::from_cols_array(ib))
        })
        .collect();
    let mut out = Vec::new();
    let mut weight_at = 0;
    for (mi, mesh) in data.meshes.iter().enumerate() {
        let w = weights.get(weight_at..weight_at + mesh.weights.len()).unwrap_or(&[]);
        weight_at += mesh.weights.len();
        let mesh_world = match state.and_then(|s| s.mesh_world.get(mi)) {
            Some(m) => *m,
            None if mesh.skin.is_some() => Mat4::IDENTITY,
            None => rest_nodes.get(mesh.node).copied().unwrap_or(Mat4::IDENTITY),
        };
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let mut morphed = vec![[0.0; 3]; prim.positions.len()];
            if morph_positions(&prim.positions, &prim.targets, w, &mut morphed).is_err() {
                morphed.copy_from_slice(&prim.positions);
            }
            let positions = match mesh.skin {
                Some(s) => {
                    let start = skin_start.get(s).copied().unwrap_or(0);
                    let n = data.skins.get(s).map_or(0, |k| k.joints.len());
                    let posed: Vec<Mat4>;
                    let palette = match state {
                        Some(st) if st.palette.len() >= start + n => {
                            posed = st.palette[start..start + n].iter().map(rows_matrix).collect();
                            &posed
                        }
                        _ => rest_palette.get(start..start + n).unwrap_or(&[]),
                    };
                    let mut skinned = vec![[0.0; 3]; morphed.len()];
                    match skin_positions(palette, &morphed, &prim.joints, &prim.weights, &mut skinned) {
                        Ok(()) => skinned,
                        Err(_) => morphed,
                    }
                }
                None => morphed.iter().map(|p| mesh_world.transform_point3(Vec3::from_array(*p)).to_array()).collect(),
            };
            out.push(PosedPrimitive { node: mesh.node, mesh: mi, primitive: pi, positions });
        }
    }
    out
}
