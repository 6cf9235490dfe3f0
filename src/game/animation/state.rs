//! The animation state of one model instance: its players and layers, IK chains, bone objects
//! and the buffers its pose is computed in (allocated once), and the pose itself: sampled and
//! blended clips, IK and joint limits, then model matrices, skinning palettes, mesh matrices and
//! morph weights.
use super::bone_pose::BonePose;
use super::rig::{Rig, RigExtras};
use crate::anim::layers::{LAYERS, Layer, LayerParams, apply_base, subtree_mask};
use crate::anim::skinning::{BoneRows, bone_rows, rows_matrix};
use crate::anim::{Completion, ModelPlayer, PoseScratch, Transform};
use crate::base::hash::Hash;
use crate::base::prefetch::Streaming;
use crate::project::model_data::ModelData;
use crate::scene::Scene;
use glam::{Mat4, Vec3};
use std::sync::Arc;

/// What an IK chain follows (`model.set_ik_target*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IkTarget {
    None,
    /// A world position.
    Position(Vec3),
    /// A game object (slot), followed every frame.
    Object(u32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkState {
    pub target: IkTarget,
    pub weight: f32,
    /// The target in model space this frame (None: no target, or it is gone).
    pub model_target: Option<Vec3>,
}

/// A layer above 0 with who listens to it.
pub struct LayerSlot {
    pub layer: Layer,
    pub listener: Option<Listener>,
    /// The script that started the layer's animation: it gets the events.
    pub starter: Option<Listener>,
    /// The names the layer's mask was given by (`.model` masks or joints), so that a reload
    /// can resolve it again against the new rig.
    pub mask: Option<Vec<Hash>>,
}

/// An event crossing found by `advance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventHit {
    pub layer: u8,
    pub animation: Hash,
    pub event: Hash,
    pub time: f32,
    pub to: Listener,
}

/// Who hears about a ONCE animation's end: the script instance that called `play_anim` and its
/// callback id (0: no function, the script gets an `on_message`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listener {
    pub script: u32,
    pub url: crate::scene::Url,
    pub callback: u32,
}

/// Local transforms and model matrices for one instance's pose at a time (sized for the largest
/// skeleton seen; grown, never shrunk, so the pass allocates nothing once they fit).
#[derive(Default)]
pub struct PoseBuffers {
    locals: Vec<Transform>,
    model: Vec<Mat4>,
    /// The parallel pass: the instances this thread posed that have something for the serial
    /// part (completions, events, bones posed by scripts).
    pub(super) tail: Vec<u32>,
}

/// Animation state of one model instance; all buffers are allocated once.
pub struct AnimState {
    pub rig: Arc<Rig>,
    pub player: ModelPlayer,
    scratch: PoseScratch,
    locals: Vec<Transform>,
    rig_weights: Vec<f32>,
    /// Model-space matrix of every skeleton node after the last pose in the instance's own
    /// buffers (creation, a script-posed frame, a frame of the parallel pass); the serial pass
    /// poses animated instances in the shared `PoseBuffers` and leaves this as it was. The
    /// watched bone objects always have the last pose, and [`AnimState::bone_matrix`] gives it
    /// to one that becomes watched.
    pub model: Vec<Mat4>,
    /// Skinning matrices, every skin in order, joints in skin order (the renderer's layout), as
    /// rows (a quarter less to write each frame than `Mat4`s; `anim::skinning::rows_matrix`
    /// gives one back as a matrix).
    pub palette: Vec<BoneRows>,
    /// Bone game objects: (skeleton node, game object slot). Written only by
    /// [`AnimState::set_bones`], which counts the change (see [`BoneEdits`]).
    bones: Vec<(usize, u32)>,
    /// Whether some bone object is watched (`Scene::watch`): an instance with none skips its
    /// bones in the pass altogether (a crowd's usual case), instead of reading each one's flag.
    /// Set wherever a bone becomes watched: `ModelWorld::watch`, [`AnimState::set_bones`],
    /// `pose_from_bones`.
    any_watched: bool,
    pub listener: Option<Listener>,
    /// The script that started layer 0's animation (it gets the events).
    pub starter: Option<Listener>,
    /// Layer 0's weight, mask and additive flag (plain unless a script set them).
    pub layer0: LayerParams,
    /// The names of layer 0's mask (see `LayerSlot::mask`).
    pub layer0_mask: Option<Vec<Hash>>,
    /// Layers 1–7 (index 0 is layer 1); empty until a script first uses one.
    pub layers: Vec<LayerSlot>,
    pub extras: Arc<RigExtras>,
    /// One per chain of `extras`. Outside the animation module a target changes only through
    /// `ModelWorld::ik_state_mut`, which counts the change for the pass's choice of threads.
    pub(super) ik: Vec<IkState>,
    /// Layer 0's pose while it has a weight, mask or additive flag (sized on first use).
    base_pose: Vec<Transform>,
    /// How each mesh of the drawn glTF follows the pose (see [`MeshPose`]), in mesh order.
    mesh_poses: Vec<MeshPose>,
    /// Model-space transform of each drawn mesh after the last pose: its node's animated matrix
    /// for a rigid mesh, identity for a skinned one (glTF ignores a skinned mesh's node).
    pub mesh_world: Vec<Mat4>,
    /// Script posing of the bones while no animation plays (rigs.md section 4).
    bone_pose: BonePose,
    /// This frame's completions and event crossings, found while advancing (possibly on another
    /// thread) and reported in instance order afterwards.
    pub(super) done: Vec<(u8, Completion, Listener)>,
    pub(super) hits: Vec<EventHit>,
}

/// How many times any instance's bone list was given new entries. The parallel pose pass drives
/// bone objects from several threads only while no slot is the bone of two instances
/// (`ModelWorld::bones_disjoint`), which it checks again only when this count (or the scene's
/// count of removed bone objects) changed: so every write of a bone list goes through
/// [`AnimState::set_bones`], the one place this count goes up.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BoneEdits(u64);

impl BoneEdits {
    pub fn count(self) -> u64 {
        self.0
    }
}

/// How one drawn mesh follows the rig: the skeleton file may be another glTF than the mesh file,
/// so a rigid mesh is tied to the skeleton node of its node's name, else it keeps its rest place.
#[derive(Debug, Clone, Copy, PartialEq)]
enum MeshPose {
    /// Skinned: the palette moves the vertices; the mesh is drawn with the model's transform.
    Skinned,
    /// Rigid: drawn with this skeleton node's model-space matrix.
    Node(usize),
    /// No node of that name in the skeleton: its rest model-space matrix, always.
    Rest(Mat4),
}

impl AnimState {
    pub fn new(rig: Arc<Rig>) -> AnimState {
        let sk = &rig.skeleton;
        let joints: usize = (0..sk.skin_count()).map(|s| sk.skin_joints(s).len()).sum();
        let mut s = AnimState {
            player: ModelPlayer::new(&rig.clips),
            scratch: PoseScratch::new(sk, &rig.clips),
            locals: sk.rest().to_vec(),
            rig_weights: sk.rest_weights().to_vec(),
            model: vec![Mat4::IDENTITY; sk.node_count()],
            palette: vec![bone_rows(&Mat4::IDENTITY); joints],
            bones: Vec::new(),
            any_watched: false,
            listener: None,
            starter: None,
            layer0: LayerParams::default(),
            layer0_mask: None,
            layers: Vec::new(),
            extras: Arc::new(RigExtras::default()),
            ik: Vec::new(),
            base_pose: Vec::new(),
            mesh_poses: Vec::new(),
            mesh_world: Vec::new(),
            bone_pose: Default::default(),
            done: Vec::new(),
            hits: Vec::new(),
            rig,
        };
        s.pose(&mut []);
        s
    }

    /// A state that also moves the rigid meshes of `meshes` (the glTF the instance draws): each
    /// mesh follows its node in the skeleton — the same node when the skeleton is that file,
    /// else the node of the same name.
    pub fn with_meshes(rig: Arc<Rig>, meshes: &ModelData) -> AnimState {
        let mut s = AnimState::new(rig);
        s.bind_meshes(meshes);
        s
    }

    /// Bone game objects: (skeleton node, game object slot).
    pub fn bones(&self) -> &[(usize, u32)] {
        &self.bones
    }

    /// The model-space matrix of skin joint `node` in the last pose, from the palette (which
    /// every pose writes, shared buffers or not): its skinning matrix times the inverse of its
    /// inverse bind matrix. `None` for a node of no skin or a bind matrix with no inverse.
    pub fn bone_matrix(&self, node: usize) -> Option<Mat4> {
        let sk = &self.rig.skeleton;
        let mut at = 0;
        for s in 0..sk.skin_count() {
            let joints = sk.skin_joints(s);
            if let Some(j) = joints.iter().position(|&n| n == node) {
                let ib = *sk.inverse_bind(s).get(j)?;
                let det = ib.determinant();
                if !det.is_finite() || det.abs() < 1e-12 {
                    return None;
                }
                let m = rows_matrix(self.palette.get(at + j)?) * ib.inverse();
                return m.is_finite().then_some(m);
            }
            at += joints.len();
        }
        None
    }

    /// Gives the instance these bone objects, counting the change in `edits`.
    /// `any_watched`: whether one of `bones` is watched already (bones kept through a reload).
    pub fn set_bones(&mut self, bones: Vec<(usize, u32)>, any_watched: bool, edits: &mut BoneEdits) {
        self.bones = bones;
        self.any_watched = any_watched;
        edits.0 += 1;
    }

    /// Some bone object became watched.
    pub fn bone_watched(&mut self) {
        self.any_watched = true;
    }

    /// See the `any_watched` field.
    pub fn any_bone_watched(&self) -> bool {
        self.any_watched
    }

    /// Gives the instance its model's masks, chains and events (IK state reset).
    pub fn set_extras(&mut self, extras: Arc<RigExtras>) {
        let idle = IkState { target: IkTarget::None, weight: 1.0, model_target: None };
        self.ik = vec![idle; extras.chains.len()];
        self.extras = extras;
    }

    /// The slot of layer `layer` (1–7), created on first use.
    pub fn layer_mut(&mut self, layer: usize) -> Option<&mut LayerSlot> {
        if layer == 0 || layer >= LAYERS {
            return None;
        }
        if self.layers.is_empty() {
            let (sk, clips) = (&self.rig.skeleton, &self.rig.clips);
            self.layers = (1..LAYERS)
                .map(|_| LayerSlot { layer: Layer::new(sk, clips), listener: None, starter: None, mask: None })
                .collect();
        }
        self.layers.get_mut(layer - 1)
    }

    pub fn layer(&self, layer: usize) -> Option<&LayerSlot> {
        layer.checked_sub(1).and_then(|l| self.layers.get(l))
    }

    /// The weight, mask and additive flag of layer `layer` (0–7).
    pub fn params_mut(&mut self, layer: usize) -> Option<&mut LayerParams> {
        if layer == 0 {
            if self.base_pose.is_empty() {
                self.base_pose = self.rig.skeleton.rest().to_vec();
            }
            return Some(&mut self.layer0);
        }
        self.layer_mut(layer).map(|s| &mut s.layer.params)
    }

    /// A layer mask from the names a script gave: each a mask of the `.model` or a joint (with
    /// its descendants); the union of them.
    pub fn resolve_mask(&self, names: &[Hash]) -> Result<Arc<[f32]>, String> {
        let sk = &self.rig.skeleton;
        let mut roots = Vec::new();
        let mut union: Option<Vec<f32>> = None;
        for &h in names {
            if let Some(m) = self.extras.mask(h) {
                let u = union.get_or_insert_with(|| vec![0.0; sk.node_count()]);
                for (o, x) in u.iter_mut().zip(m.iter()) {
                    *o = o.max(*x);
                }
                continue;
            }
            let node = (0..sk.node_count())
                .find(|&i| crate::base::hash::hash_str(sk.name(i)) == h)
                .ok_or_else(|| format!("mask: no mask or joint named '{}'", crate::base::hash::name_of(h)))?;
            roots.push(node);
        }
        let joints = subtree_mask(sk, &roots);
        Ok(match union {
            Some(mut u) => {
                for (o, x) in u.iter_mut().zip(joints.iter()) {
                    *o = o.max(*x);
                }
                u.into()
            }
            None => joints,
        })
    }

    /// `model.cancel(url, layer)`: layer 0 stops where it is (Defold); a higher layer is
    /// emptied, so it no longer covers the layers below. No completion either way.
    pub fn cancel(&mut self, layer: usize) {
        if layer == 0 {
            self.player.cancel();
            self.listener = None;
            self.starter = None;
        } else if let Some(slot) = layer.checked_sub(1).and_then(|l| self.layers.get_mut(l)) {
            slot.layer.player = ModelPlayer::new(&self.rig.clips);
            slot.listener = None;
            slot.starter = None;
            slot.mask = None;
        }
    }

    fn bind_meshes(&mut self, data: &ModelData) {
        let sk = &self.rig.skeleton;
        let same_file = data.source == self.rig.source;
        let rest = crate::anim::skeleton::node_world_matrices(data);
        self.mesh_poses = data
            .meshes
            .iter()
            .map(|m| {
                if m.skin.is_some() {
                    return MeshPose::Skinned;
                }
                let name = data.nodes.get(m.node).map_or("", |n| n.name.as_str());
                let node = if same_file && m.node < sk.node_count() {
                    Some(m.node)
                } else {
                    (0..sk.node_count()).find(|&i| !name.is_empty() && sk.name(i) == name)
                };
                match node {
                    Some(n) => MeshPose::Node(n),
                    None => MeshPose::Rest(rest.get(m.node).copied().unwrap_or(Mat4::IDENTITY)),
                }
            })
            .collect();
        self.mesh_world = vec![Mat4::IDENTITY; self.mesh_poses.len()];
        Self::place_meshes(&mut self.mesh_world, &self.mesh_poses, &self.model);
    }

    fn place_meshes(mesh_world: &mut [Mat4], mesh_poses: &[MeshPose], model: &[Mat4]) {
        for (out, pose) in mesh_world.iter_mut().zip(mesh_poses) {
            *out = match *pose {
                MeshPose::Skinned => Mat4::IDENTITY,
                MeshPose::Node(n) => model.get(n).copied().unwrap_or(Mat4::IDENTITY),
                MeshPose::Rest(m) => m,
            };
        }
    }

    /// Samples the player's pose into model matrices, palettes and (when given) morph weights,
    /// keeping the local transforms and model matrices in the instance's own buffers.
    pub fn pose(&mut self, weights: &mut [f32]) {
        let (mut locals, mut model) = (std::mem::take(&mut self.locals), std::mem::take(&mut self.model));
        self.pose_with(&mut locals, &mut model, weights, None);
        (self.locals, self.model) = (locals, model);
    }

    /// [`AnimState::pose`] with the local transforms and model matrices in `buffers`, which the
    /// pass shares between instances (one set per thread): they stay in the cache, where the
    /// instance's own (about 3 KB for a Fox) would be written back to memory and read in again
    /// the next frame. Nothing reads an animated instance's own buffers after its pass but a
    /// script-posed instance (no animation ever played, `posed_by_bones`), which keeps using
    /// them; `drive` gets each bone object's slot and its joint's model matrix. The palette is
    /// written through `palettes` (`Skeleton::palette_rows_streamed`).
    ///
    /// # Safety
    /// Nothing may read or write this instance's palette until `palettes` is dropped.
    #[inline(always)]
    pub(super) unsafe fn pose_shared(
        &mut self,
        buffers: &mut PoseBuffers,
        weights: &mut [f32],
        palettes: &Streaming,
        mut drive: impl FnMut(u32, &Mat4),
    ) {
        let n = self.rig.skeleton.node_count();
        if buffers.locals.len() < n {
            buffers.locals = self.rig.skeleton.rest().to_vec();
            buffers.model = vec![Mat4::IDENTITY; n];
        }
        let (locals, model) = (&mut buffers.locals[..n], &mut buffers.model[..n]);
        self.pose_with(locals, model, weights, Some(palettes));
        if !self.any_watched {
            return;
        }
        for &(node, slot) in &self.bones {
            if let Some(m) = model.get(node) {
                drive(slot, m);
            }
        }
    }

    /// `palettes`: the pass's stream for the palette (see `pose_shared`), or None for ordinary
    /// stores.
    fn pose_with(
        &mut self,
        locals: &mut [Transform],
        model: &mut [Mat4],
        weights: &mut [f32],
        palettes: Option<&Streaming>,
    ) {
        let rig = &self.rig;
        let sk = &rig.skeleton;
        if let Err(e) = self.player.pose(&rig.clips, sk, &mut self.scratch, locals, &mut self.rig_weights) {
            log::error!("animation: {e}");
            return;
        }
        // Layers (layers.md §1): layer 0 as Defold poses it, then each higher layer over it.
        if !self.layer0.is_plain() && self.base_pose.len() == locals.len() {
            self.base_pose.copy_from_slice(locals);
            locals.copy_from_slice(sk.rest());
            let first = self.player.animation().and_then(|a| rig.additive.first_keys.get(a)).map(|v| v.as_slice());
            apply_base(&self.layer0, &self.base_pose, first, locals);
        }
        for slot in &mut self.layers {
            if slot.layer.is_active()
                && let Err(e) = slot.layer.apply(&rig.clips, &rig.additive, sk, locals, &mut self.rig_weights)
            {
                log::error!("animation layer: {e}");
            }
        }
        self.finish_pose_with(locals, model, weights, palettes);
    }

    /// The pose from `locals` on: IK, joint limits, model matrices, palettes, meshes, morph
    /// weights. Bones posed by scripts (bone_pose.rs) enter here too.
    fn finish_pose(&mut self, weights: &mut [f32]) {
        let (mut locals, mut model) = (std::mem::take(&mut self.locals), std::mem::take(&mut self.model));
        self.finish_pose_with(&mut locals, &mut model, weights, None);
        (self.locals, self.model) = (locals, model);
    }

    /// `palettes` as for [`AnimState::pose_with`].
    fn finish_pose_with(
        &mut self,
        locals: &mut [Transform],
        model: &mut [Mat4],
        weights: &mut [f32],
        palettes: Option<&Streaming>,
    ) {
        let rig = &self.rig;
        let sk = &rig.skeleton;
        // Joint limits (rigs.md §3) come after IK (layers.md §2); without an IK target they
        // clamp before the one local-to-model pass.
        let ik_active = self.ik.iter().any(|s| s.model_target.is_some());
        if !ik_active {
            crate::anim::limits::clamp_locals(&rig.limits, locals);
        }
        if let Err(e) = sk.local_to_model(locals, model) {
            log::error!("animation: {e}");
            return;
        }
        // Inverse kinematics (layers.md §2), chains in file order, each on the pose so far.
        for (state, (_, _, chain)) in self.ik.iter().zip(&self.extras.chains) {
            let Some(target) = state.model_target else { continue };
            if chain.solve(sk, model, locals, target, state.weight)
                && let Err(e) = sk.local_to_model(locals, model)
            {
                log::error!("animation: {e}");
                return;
            }
        }
        if ik_active && !rig.limits.is_empty() {
            crate::anim::limits::clamp_locals(&rig.limits, locals);
            if let Err(e) = sk.local_to_model(locals, model) {
                log::error!("animation: {e}");
                return;
            }
        }
        let mut at = 0;
        for s in 0..sk.skin_count() {
            let n = sk.skin_joints(s).len();
            let out = &mut self.palette[at..at + n];
            let written = match palettes {
                // SAFETY: nothing reads or writes the palette until the pass drops `p`
                // (`pose_shared`'s contract).
                Some(p) => unsafe { sk.palette_rows_streamed(s, model, out, p) },
                None => sk.palette_rows(s, model, out),
            };
            if let Err(e) = written {
                log::error!("animation: {e}");
            }
            at += n;
        }
        Self::place_meshes(&mut self.mesh_world, &self.mesh_poses, model);
        if weights.len() == self.rig_weights.len() {
            weights.copy_from_slice(&self.rig_weights);
        }
    }

    /// Advances the player; a ONCE animation that ended now is returned with its listener,
    /// which is then forgotten (Defold clears it after reporting).
    pub fn advance(&mut self, dt: f32) -> Option<(Completion, Listener)> {
        let done = self.player.update(dt)?;
        let listener = self.listener.take()?;
        Some((done, listener))
    }

    /// Advances every layer (players and weight fades): completions with their listeners (then
    /// forgotten) into `done`, event crossings for the scripts that started the animations into
    /// `events`.
    pub fn advance_layers(&mut self, dt: f32, done: &mut Vec<(u8, Completion, Listener)>, events: &mut Vec<EventHit>) {
        // Borrowed field by field, not cloned: instances advance on several threads, and
        // cloning the shared rig's `Arc` would make every core bounce one reference count.
        let AnimState { extras, rig, player, layers, layer0, listener, starter, .. } = self;
        let (extras, rig) = (&**extras, &**rig);
        let mut hits = |layer: u8, player: &mut ModelPlayer, starter: Option<Listener>| {
            let list = player.animation().and_then(|a| Some((a, extras.events.get(a)?)));
            match (list, starter) {
                (Some((a, list)), Some(to)) if !list.times.is_empty() => {
                    let animation = rig.clip_ids.get(a).copied().unwrap_or(0);
                    player.update_with_events(dt, &list.times, |i| {
                        let event = list.ids.get(i).copied().unwrap_or(0);
                        let time = list.times.get(i).copied().unwrap_or(0.0);
                        events.push(EventHit { layer, animation, event, time, to });
                    })
                }
                _ => player.update(dt),
            }
        };
        layer0.update(dt);
        if let Some(c) = hits(0, player, *starter)
            && let Some(l) = listener.take()
        {
            done.push((0, c, l));
        }
        for (i, slot) in layers.iter_mut().enumerate() {
            slot.layer.params.update(dt);
            if slot.layer.player.animation().is_none() {
                continue;
            }
            if let Some(c) = hits(i as u8 + 1, &mut slot.layer.player, slot.starter)
                && let Some(l) = slot.listener.take()
            {
                done.push((i as u8 + 1, c, l));
            }
        }
    }

    pub fn current_animation(&self) -> Option<Hash> {
        self.player.animation().and_then(|a| self.rig.clip_ids.get(a).copied())
    }

    /// Starts loading the buffers a frame's advance and pose touch (`base::prefetch`).
    pub(super) fn prefetch(&self) {
        use crate::base::prefetch::prefetch;
        self.scratch.prefetch();
        prefetch(&self.rig_weights);
        prefetch(&self.bones);
        prefetch(&self.mesh_world);
        prefetch(&self.mesh_poses);
    }

    /// Advances the layers into the instance's own report buffers (kept between frames, so the
    /// pass allocates nothing once they have grown).
    pub(super) fn advance_into_own(&mut self, dt: f32) {
        let (mut done, mut hits) = (std::mem::take(&mut self.done), std::mem::take(&mut self.hits));
        done.clear();
        hits.clear();
        self.advance_layers(dt, &mut done, &mut hits);
        self.done = done;
        self.hits = hits;
    }

    /// With no animation playing, a rig with bone objects takes its pose from them (rigs.md §4).
    pub(super) fn posed_by_bones(&self) -> bool {
        self.player.animation().is_none() && !self.bones.is_empty()
    }

    /// Whether some IK chain follows something (its target is read from the scene).
    /// The IK state of the chain named `chain` (`ModelWorld::ik_state_mut`).
    pub(in crate::game) fn ik_state_mut(&mut self, chain: Hash) -> Option<&mut IkState> {
        let c = self.extras.chain(chain)?;
        self.ik.get_mut(c)
    }

    pub(super) fn has_ik_target(&self) -> bool {
        self.ik.iter().any(|s| s.target != IkTarget::None)
    }

    /// One frame of script posing (no animation playing, rigs.md section 4): what scripts
    /// wrote to the bone objects, then the rest of the pose, then the bone objects again.
    /// `weights` as for [`AnimState::pose`].
    pub(super) fn pose_from_bones(&mut self, scene: &mut Scene, weights: &mut [f32]) {
        // Every bone object is read here: one the pass did not write (nothing had asked for it)
        // takes the last pose first, so a cancelled animation holds its pose.
        for &(node, slot) in &self.bones {
            if scene.watch(slot)
                && let Some(m) = self.bone_matrix(node)
            {
                scene.drive(slot, &m);
            }
        }
        self.any_watched = true;
        let mut bp = std::mem::take(&mut self.bone_pose);
        bp.take_writes(&self.rig.skeleton, &self.bones, &mut self.locals, &mut self.model, scene);
        self.finish_pose(weights);
        bp.write_back(&self.bones, &self.locals, &self.model, scene);
        self.bone_pose = bp;
    }
}
