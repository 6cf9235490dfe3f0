//! The skeleton of a `.bon` rig (rigs.md section 2.2) as glTF-style nodes and one skin, so the
//! rig animates, poses and draws through exactly the code a glTF skin uses.
//!
//! Node order: the bones in file order (joint k is node k, parents come first because a
//! `Bone`'s parent is an earlier bone), then the OBJ's mesh nodes. Microbe3D bones have no
//! "natural axis": every joint has the model's axes, identity rotation at rest.
use super::parse::BonFile;
use super::weights::VertexWeights;
use crate::project::model_data::{ModelData, NodeData, SkinData};

/// Turns the OBJ's model into the rigged one: bone nodes in front, one skin, and every vertex's
/// joints and weights from its `v` line's weights (`sources` as [`crate::project::obj::ObjImport`]
/// gives them).
pub fn rig_model(file: &BonFile, mut data: ModelData, sources: &[Vec<u32>], weights: &[VertexWeights]) -> ModelData {
    let n = file.bones.len();
    let pos = |b: usize| file.points[file.bones[b].pivot].pos.map(|v| v as f32);
    let mut nodes = Vec::with_capacity(n + data.nodes.len());
    for (i, b) in file.bones.iter().enumerate() {
        let a = pos(i);
        let translation = match b.parent {
            Some(p) => {
                let ap = pos(p);
                [a[0] - ap[0], a[1] - ap[1], a[2] - ap[2]]
            }
            None => a,
        };
        nodes.push(NodeData {
            name: b.name.clone(),
            parent: b.parent,
            translation,
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            gltf_index: i,
        });
    }
    for node in &data.nodes {
        nodes.push(NodeData { gltf_index: node.gltf_index + n, parent: node.parent.map(|p| p + n), ..node.clone() });
    }
    let inverse_bind = (0..n)
        .map(|b| {
            let a = pos(b);
            let mut m = glam::Mat4::IDENTITY.to_cols_array();
            m[12] = -a[0];
            m[13] = -a[1];
            m[14] = -a[2];
            m
        })
        .collect();
    let name = file.read.rsplit('/').next().unwrap_or(&file.read).to_string();
    data.skins = vec![SkinData { name, joints: (0..n).collect(), inverse_bind }];
    data.nodes = nodes;
    let mut src = sources.iter();
    for mesh in &mut data.meshes {
        mesh.node += n;
        mesh.skin = Some(0);
        for prim in &mut mesh.primitives {
            let Some(s) = src.next() else { continue };
            prim.joints = s.iter().map(|&v| weights.get(v as usize).map_or([0; 4], joints_of)).collect();
            prim.weights =
                s.iter().map(|&v| weights.get(v as usize).map_or([1.0, 0.0, 0.0, 0.0], weights_of)).collect();
        }
    }
    data
}

fn joints_of(w: &VertexWeights) -> [u16; 4] {
    [w.bones[0], w.bones[1], 0, 0]
}

fn weights_of(w: &VertexWeights) -> [f32; 4] {
    [w.weights[0] as f32, w.weights[1] as f32, 0.0, 0.0]
}
