//! The runtime skeleton of one model: every node of the glTF default scene (joints and the
//! non-joint ancestors both, so model space is the scene's world space), parents before children,
//! with rest transforms, skins and the morph-weight layout. Built once from [`ModelData`]; the
//! per-frame functions take caller-owned slices and allocate nothing.
use super::skinning::{BoneRows, bone_row_vectors, bone_rows};
use super::transform::{Transform, transpose4};
use crate::base::prefetch::Streaming;
use crate::project::model_data::ModelData;
use glam::{Mat4, Quat, Vec3A, Vec4, Vec4Swizzles};
use std::collections::HashMap;
use std::ops::Range;

/// Why a rig could not be built or a per-frame call refused its buffers. Per-frame calls check
/// every slice before writing anything, so on error the outputs are untouched.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RigError {
    #[error("{what}: buffer holds {got} entries, {needed} needed")]
    BufferTooShort { what: &'static str, needed: usize, got: usize },
    #[error("skin {0} does not exist")]
    NoSkin(usize),
    #[error("{0}")]
    BadModel(String),
}

/// `Err(BufferTooShort)` unless `got >= needed`.
pub(crate) fn need(what: &'static str, needed: usize, got: usize) -> Result<(), RigError> {
    if got < needed { Err(RigError::BufferTooShort { what, needed, got }) } else { Ok(()) }
}

const NO_PARENT: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
struct Skin {
    joints: Vec<usize>,
    inverse_bind: Vec<Mat4>,
    /// Every inverse bind matrix has the bottom row 0 0 0 1 exactly (the usual case).
    affine: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct MeshBinding {
    node: usize,
    skin: Option<usize>,
    weights: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// Parent index or `NO_PARENT`; always smaller than the node's own index.
    parents: Vec<u32>,
    rest: Vec<Transform>,
    names: Vec<String>,
    gltf_index: Vec<usize>,
    skins: Vec<Skin>,
    meshes: Vec<MeshBinding>,
    rest_weights: Vec<f32>,
    /// Joint name → node, first joint of that name in skin order (what `model.get_go` looks up).
    joint_by_name: HashMap<String, usize>,
}

impl Skeleton {
    /// Checks what the per-frame code relies on (parents first, joints and mesh nodes in range,
    /// one inverse bind matrix per joint, finite rest transforms), so that sampling and posing
    /// never index out of bounds whatever `ModelData` held.
    pub fn new(model: &ModelData) -> Result<Skeleton, RigError> {
        let bad = |m: String| Err(RigError::BadModel(format!("{}: {m}", model.source)));
        let n = model.nodes.len();
        if n >= NO_PARENT as usize {
            return bad(format!("{n} nodes"));
        }
        let mut parents = Vec::with_capacity(n);
        let mut rest = Vec::with_capacity(n);
        for (i, node) in model.nodes.iter().enumerate() {
            match node.parent {
                Some(p) if p >= i => return bad(format!("node {i}: parent {p} does not come before it")),
                Some(p) => parents.push(p as u32),
                None => parents.push(NO_PARENT),
            }
            let r = Quat::from_array(node.rotation);
            let finite = node.translation.iter().chain(&node.scale).all(|v| v.is_finite()) && r.is_finite();
            if !finite || r.length_squared() == 0.0 {
                return bad(format!("node {i}: transform is not finite"));
            }
            let (translation, scale) = (Vec3A::from_array(node.translation), Vec3A::from_array(node.scale));
            rest.push(Transform { translation, rotation: r.normalize(), scale });
        }
        let mut skins = Vec::with_capacity(model.skins.len());
        let mut joint_by_name = HashMap::new();
        for (s, skin) in model.skins.iter().enumerate() {
            if skin.inverse_bind.len() != skin.joints.len() {
                return bad(format!(
                    "skin {s}: {} inverse bind matrices, {} joints",
                    skin.inverse_bind.len(),
                    skin.joints.len()
                ));
            }
            for (k, &j) in skin.joints.iter().enumerate() {
                let Some(node) = model.nodes.get(j) else { return bad(format!("skin {s}: joint {k} is node {j}")) };
                joint_by_name.entry(node.name.clone()).or_insert(j);
            }
            let inverse_bind: Vec<Mat4> = skin.inverse_bind.iter().map(Mat4::from_cols_array).collect();
            let affine = inverse_bind.iter().all(|m| m.row(3) == Vec4::W);
            skins.push(Skin { joints: skin.joints.clone(), inverse_bind, affine });
        }
        let mut meshes = Vec::with_capacity(model.meshes.len());
        let mut rest_weights = Vec::new();
        for (m, mesh) in model.meshes.iter().enumerate() {
            if mesh.node >= n || mesh.skin.is_some_and(|s| s >= skins.len()) {
                return bad(format!("mesh {m}: node {} or skin {:?} out of range", mesh.node, mesh.skin));
            }
            let weights = rest_weights.len()..rest_weights.len() + mesh.weights.len();
            rest_weights.extend_from_slice(&mesh.weights);
            meshes.push(MeshBinding { node: mesh.node, skin: mesh.skin, weights });
        }
        let names = model.nodes.iter().map(|n| n.name.clone()).collect();
        let gltf_index = model.nodes.iter().map(|n| n.gltf_index).collect();
        Ok(Skeleton { parents, rest, names, gltf_index, skins, meshes, rest_weights, joint_by_name })
    }

    pub fn node_count(&self) -> usize {
        self.parents.len()
    }
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.parents.get(node).filter(|&&p| p != NO_PARENT).map(|&p| p as usize)
    }
    pub fn name(&self, node: usize) -> &str {
        self.names.get(node).map_or("", |s| s.as_str())
    }
    pub fn gltf_index(&self, node: usize) -> Option<usize> {
        self.gltf_index.get(node).copied()
    }
    /// Rest (bind) local transforms; what a caller copies into its locals before sampling.
    pub fn rest(&self) -> &[Transform] {
        &self.rest
    }
    /// The node of the first joint named `name` (skins in file order, joints in skin order).
    pub fn find_joint(&self, name: &str) -> Option<usize> {
        self.joint_by_name.get(name).copied()
    }
    pub fn skin_count(&self) -> usize {
        self.skins.len()
    }
    /// Joint nodes of `skin`, in skin order (the order of the palette and of `JOINTS_0`).
    pub fn skin_joints(&self, skin: usize) -> &[usize] {
        self.skins.get(skin).map_or(&[], |s| &s.joints)
    }
    pub fn inverse_bind(&self, skin: usize) -> &[Mat4] {
        self.skins.get(skin).map_or(&[], |s| &s.inverse_bind)
    }
    /// Meshes in `ModelData::meshes` order.
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }
    pub fn mesh_node(&self, mesh: usize) -> Option<usize> {
        self.meshes.get(mesh).map(|m| m.node)
    }
    pub fn mesh_skin(&self, mesh: usize) -> Option<usize> {
        self.meshes.get(mesh).and_then(|m| m.skin)
    }
    /// Where `mesh`'s morph weights live in a weights buffer (empty range: no morph targets).
    pub fn mesh_weights(&self, mesh: usize) -> Range<usize> {
        self.meshes.get(mesh).map_or(0..0, |m| m.weights.clone())
    }
    /// The mesh instantiated on `node`, if any (a weights channel targets a node).
    pub fn mesh_on_node(&self, node: usize) -> Option<usize> {
        self.meshes.iter().position(|m| m.node == node)
    }
    /// Initial morph weights of every mesh, laid out as `mesh_weights` says.
    pub fn rest_weights(&self) -> &[f32] {
        &self.rest_weights
    }

    /// Model-space matrices from local transforms: `out[i] = out[parent(i)] · local[i]`, in one
    /// forward pass (parents come first). `locals` and `out` need `node_count()` entries.
    ///
    /// The rotation-times-scale axes of four nodes at a time are made in SIMD lanes (one node
    /// per lane, [`axes4`]) before the products with the parents, which stay node by node in
    /// order: a node's parent may be the node before it. Every lane does glam's `from_quat`
    /// arithmetic in its order, so the matrices are bit-identical to the one-node way (a test
    /// compares the two on every remainder of four).
    pub fn local_to_model(&self, locals: &[Transform], out: &mut [Mat4]) -> Result<(), RigError> {
        let n = self.parents.len();
        need("locals", n, locals.len())?;
        need("model matrices", n, out.len())?;
        let (locals, out) = (&locals[..n], &mut out[..n]);
        let batches = n / 4;
        for b in 0..batches {
            let i = 4 * b;
            self.compose4(i, &locals[i..i + 4], 4, out);
        }
        let rest = n - 4 * batches;
        if rest > 0 {
            // The last one to three nodes, their batch filled up with copies of the first.
            let i = 4 * batches;
            let batch: [Transform; 4] = std::array::from_fn(|k| locals[i + if k < rest { k } else { 0 }]);
            self.compose4(i, &batch, rest, out);
        }
        Ok(())
    }

    /// Nodes `i..i + len` (`batch` holds their locals, then fillers up to four) times their
    /// parents' model matrices, in order.
    #[inline(always)]
    fn compose4(&self, i: usize, batch: &[Transform], len: usize, out: &mut [Mat4]) {
        let axes = axes4(batch);
        self.compose::<0>(i, &axes, &batch[0], out);
        if len > 1 {
            self.compose::<1>(i + 1, &axes, &batch[1], out);
        }
        if len > 2 {
            self.compose::<2>(i + 2, &axes, &batch[2], out);
        }
        if len > 3 {
            self.compose::<3>(i + 3, &axes, &batch[3], out);
        }
    }

    /// Node `i` (lane `K` of `axes`, a batch of [`axes4`]) times its parent's model matrix. The
    /// local matrix is affine (bottom row 0 0 0 1), so the product skips the terms that bottom
    /// row zeroes: 3 multiply-adds per column instead of 4, same result.
    #[inline(always)]
    fn compose<const K: usize>(&self, i: usize, axes: &[[Vec4; 3]; 3], local: &Transform, out: &mut [Mat4]) {
        let lane = |v: Vec4| match K {
            0 => v.xxxx(),
            1 => v.yyyy(),
            2 => v.zzzz(),
            _ => v.wwww(),
        };
        let p = self.parents[i];
        if p == NO_PARENT {
            // A root (rare): its axes as columns, the lanes taken out one by one (`w` is the
            // rotation matrix's 0 times the scale, as in glam's `from_quat` times the scale).
            let s = local.scale;
            let x = Vec4::new(axes[0][0][K], axes[0][1][K], axes[0][2][K], 0.0 * s.x);
            let y = Vec4::new(axes[1][0][K], axes[1][1][K], axes[1][2][K], 0.0 * s.y);
            let z = Vec4::new(axes[2][0][K], axes[2][1][K], axes[2][2][K], 0.0 * s.z);
            out[i] = Mat4::from_cols(x, y, z, local.translation.extend(1.0));
            return;
        }
        let pm = out[p as usize];
        let col = |c: &[Vec4; 3]| pm.x_axis * lane(c[0]) + pm.y_axis * lane(c[1]) + pm.z_axis * lane(c[2]);
        let t = local.translation.extend(1.0);
        let ct = pm.x_axis * t.x + pm.y_axis * t.y + pm.z_axis * t.z;
        out[i] = Mat4::from_cols(col(&axes[0]), col(&axes[1]), col(&axes[2]), ct + pm.w_axis);
    }

    /// Skinning matrices of `skin`: `out[j] = model[joints[j]] · inverse_bind[j]`.
    ///
    /// glTF 2.0 (§3.7.3, skins) gives `jointMatrix = inverse(world(meshNode)) · world(joint) ·
    /// inverseBind` for a renderer that then applies the mesh node's world matrix; the two mesh
    /// terms cancel, which is how the spec's rule "the skinned mesh node's transform is ignored"
    /// comes out. Sinew draws a skinned mesh with the model's world transform only (never the
    /// mesh node's), so the palette is joint model matrix × inverse bind, and a vertex lands at
    /// `modelWorld · Σ wᵢ · out[jᵢ] · p` — checked against the reference poses, including
    /// RiggedSimple whose mesh node has a non-identity world matrix.
    pub fn palette(&self, skin: usize, model: &[Mat4], out: &mut [Mat4]) -> Result<(), RigError> {
        self.each_skin_matrix(skin, model, out, |o, m| *o = m)
    }

    /// [`Skeleton::palette`] as [`BoneRows`], the form the pose keeps and the renderer uploads:
    /// the same products, bit for bit, transposed in registers and stored without the bottom row.
    pub fn palette_rows(&self, skin: usize, model: &[Mat4], out: &mut [BoneRows]) -> Result<(), RigError> {
        self.each_skin_matrix(skin, model, out, |o, m| *o = bone_rows(&m))
    }

    /// [`Skeleton::palette_rows`] written with non-temporal stores through `streaming`, which do
    /// not first read the destination's cache lines: for an instance's own palette in the
    /// animation pass, cold by then (the renderer's frame has pushed it out of the caches) and
    /// read next by the draw list. The fence comes when `streaming` is dropped, once per pass
    /// and thread: a fence after each instance's palette waits for its stores to reach memory
    /// and took back most of the gain. Measured on `crowd_fox_1000` (2-core Intel Xeon, builds
    /// interleaved, 100 frames each): the animation phase 0.535-0.585 ms a frame with ordinary
    /// stores, 0.49-0.51 ms fenced per instance, 0.46-0.48 fenced per pass; the draw list built
    /// no slower (0.35 against 0.33 ms).
    ///
    /// # Safety
    /// Nothing but stores through `streaming` may read or write `out` until `streaming` is
    /// dropped (what [`Streaming::store_raw`] asks of each destination).
    pub unsafe fn palette_rows_streamed(
        &self,
        skin: usize,
        model: &[Mat4],
        out: &mut [BoneRows],
        streaming: &Streaming,
    ) -> Result<(), RigError> {
        // 48-byte elements: all 16-byte aligned when the first is (as every allocation of the
        // global allocator is); otherwise ordinary stores.
        if !(out.as_ptr() as usize).is_multiple_of(16) {
            return self.palette_rows(skin, model, out);
        }
        self.each_skin_matrix(skin, model, out, |o, m| {
            let o: *mut Vec4 = o.as_mut_ptr().cast();
            for (k, r) in bone_row_vectors(&m).iter().enumerate() {
                // SAFETY: `o` is an element of `out` (twelve floats, 16-byte aligned: checked
                // above), so `o.add(k)` for k < 3 is an aligned `Vec4` inside it; nothing else
                // touches `out` until `streaming` is dropped (this function's contract).
                unsafe { streaming.store_raw(o.add(k), r) };
            }
        })
    }

    /// `store(out[j], model[joints[j]] · inverse_bind[j])` for every joint of `skin`.
    #[inline(always)]
    fn each_skin_matrix<T>(
        &self,
        skin: usize,
        model: &[Mat4],
        out: &mut [T],
        store: impl Fn(&mut T, Mat4),
    ) -> Result<(), RigError> {
        let s = self.skins.get(skin).ok_or(RigError::NoSkin(skin))?;
        need("model matrices", self.parents.len(), model.len())?;
        need("palette", s.joints.len(), out.len())?;
        if s.affine {
            // Bottom row 0 0 0 1: skip the terms it zeroes (same result, a quarter less work).
            for ((o, &j), ib) in out.iter_mut().zip(&s.joints).zip(&s.inverse_bind) {
                let m = model[j];
                let col = |v: Vec4| m.x_axis * v.x + m.y_axis * v.y + m.z_axis * v.z;
                store(o, Mat4::from_cols(col(ib.x_axis), col(ib.y_axis), col(ib.z_axis), col(ib.w_axis) + m.w_axis));
            }
        } else {
            for ((o, &j), ib) in out.iter_mut().zip(&s.joints).zip(&s.inverse_bind) {
                store(o, model[j] * *ib);
            }
        }
        Ok(())
    }
}

/// The rotation-times-scale axes of four nodes, one node per lane: `[axis][component]`, so
/// `axes[0][1]` holds the `y` of every node's `x` axis. Each lane is glam's `Mat4::from_quat`
/// (its `quat_to_axes`) followed by `axis * scale`, the same operations in the same order.
#[inline(always)]
fn axes4(locals: &[Transform]) -> [[Vec4; 3]; 3] {
    let q = |k: usize| Vec4::from(locals[k].rotation);
    let [x, y, z, w] = transpose4([q(0), q(1), q(2), q(3)]);
    let sc = |k: usize| locals[k].scale.extend(0.0);
    let [sx, sy, sz, _] = transpose4([sc(0), sc(1), sc(2), sc(3)]);
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let one = Vec4::ONE;
    [
        [(one - (yy + zz)) * sx, (xy + wz) * sx, (xz - wy) * sx],
        [(xy - wz) * sy, (one - (xx + zz)) * sy, (yz + wx) * sy],
        [(xz + wy) * sz, (yz - wx) * sz, (one - (xx + yy)) * sz],
    ]
}

/// Node world matrices from local TRS, parents first (a bad parent index counts as a root).
/// (The renderer's rest placement of rigid meshes and the animation's `Rest` meshes share it.)
pub fn node_world_matrices(model: &ModelData) -> Vec<Mat4> {
    let mut out: Vec<Mat4> = Vec::with_capacity(model.nodes.len());
    for (i, n) in model.nodes.iter().enumerate() {
        let local = Mat4::from_scale_rotation_translation(
            glam::Vec3::from(n.scale),
            Quat::from_array(n.rotation).normalize(),
            glam::Vec3::from(n.translation),
        );
        let parent = n.parent.filter(|&p| p < i).and_then(|p| out.get(p)).copied();
        out.push(parent.map_or(local, |p| p * local));
    }
    out
}
