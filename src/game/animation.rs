//! Skeletal and morph animation of model components: the rig (skeleton and clip set) built once
//! per model file set, the per-instance player state, and the per-frame pass that samples,
//! blends, computes palettes, writes morph weights and moves bone game objects.
use super::model_world::{ModelInstance, ModelWorld};
use crate::anim::ik::{Aim, Chain, TwoBone};
use crate::anim::layers::{AdditiveRefs, LAYERS, Layer, LayerParams, apply_base, subtree_mask};
use crate::anim::{Clip, Completion, ModelPlayer, Playback, PoseScratch, Skeleton, Transform};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::model_data::{ClipData, ModelData};
use crate::project::{IkKindSpec, RigExtrasSpec};
use crate::scene::{BoneStream, Scene};
use glam::{Mat4, Vec3};
use std::collections::HashMap;
use std::sync::Arc;

/// A skeleton with the union of the animations of a model's `animations` files, by name.
pub struct Rig {
    /// The skeleton file's resource path.
    pub source: String,
    pub skeleton: Skeleton,
    pub clips: Vec<Clip>,
    /// Hash of each clip's name, in `clips` order.
    pub clip_ids: Vec<Hash>,
    pub clip_names: Vec<String>,
    /// Each clip's pose at its first key over the rest pose (an additive layer's reference),
    /// and each clip as its difference from it.
    pub additive: AdditiveRefs,
    /// Joint rotation limits, applied to every pose (rigs.md section 3).
    pub limits: Vec<crate::anim::limits::JointLimit>,
}

impl Rig {
    /// Builds the rig from the skeleton file's data and the animation files' clips. Clips of
    /// another file are matched to the skeleton's nodes by node name; a later file's clip of an
    /// already seen name is ignored (the first one wins).
    pub fn new(source: &str, skeleton: &ModelData, animation_files: &[&ModelData]) -> Result<Rig, LoadError> {
        let err = |e: crate::anim::RigError| LoadError::new(source, e.to_string());
        let sk = Skeleton::new(skeleton).map_err(err)?;
        let by_name: HashMap<&str, usize> =
            skeleton.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
        let (mut clips, mut clip_ids, mut clip_names) = (Vec::new(), Vec::new(), Vec::new());
        for file in animation_files {
            for data in &file.animations {
                let id = hash_remembered(&data.name);
                if clip_ids.contains(&id) {
                    continue;
                }
                let remapped;
                let data = if std::ptr::eq(*file, skeleton) {
                    data
                } else {
                    for w in unmatched_channels(source, skeleton, file) {
                        log::warn!("{w}");
                    }
                    remapped = remap(data, file, &by_name);
                    &remapped
                };
                let clip = Clip::new(data, &sk)
                    .map_err(|e| LoadError::new(source, format!("animation '{}': {e}", data.name)))?;
                clips.push(clip);
                clip_ids.push(id);
                clip_names.push(data.name.clone());
            }
        }
        let additive = AdditiveRefs::new(&sk, &clips).map_err(|e| LoadError::new(source, e.to_string()))?;
        Ok(Rig { source: source.to_string(), skeleton: sk, clips, clip_ids, clip_names, additive, limits: Vec::new() })
    }

    pub fn clip_index(&self, id: Hash) -> Option<usize> {
        self.clip_ids.iter().position(|&c| c == id)
    }
}

/// One line per clip of `file` that targets nodes the skeleton `skeleton` (from `source`) has no
/// node of the same name for: those channels are dropped when the rig is built.
pub fn unmatched_channels(source: &str, skeleton: &ModelData, file: &ModelData) -> Vec<String> {
    let names: std::collections::HashSet<&str> = skeleton.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut out = Vec::new();
    for clip in &file.animations {
        let mut missing: Vec<&str> = clip
            .channels
            .iter()
            .filter_map(|c| file.nodes.get(c.node).map(|n| n.name.as_str()))
            .filter(|n| !names.contains(n))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().take(5).map(|n| format!("'{n}'")).collect();
            let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
            out.push(format!(
                "{}: animation '{}' targets node(s) {}{more} that skeleton {source} does not have; they are ignored",
                file.source,
                clip.name,
                shown.join(", ")
            ));
        }
    }
    out
}

/// A clip of another file, with its channels pointed at the skeleton's nodes of the same name.
fn remap(data: &ClipData, file: &ModelData, by_name: &HashMap<&str, usize>) -> ClipData {
    let mut out = data.clone();
    out.channels.retain_mut(|ch| {
        let target = file.nodes.get(ch.node).and_then(|n| by_name.get(n.name.as_str()));
        match target {
            Some(&t) => {
                ch.node = t;
                true
            }
            None => false,
        }
    });
    out
}

/// A `.model`'s masks, IK chains and events resolved against its rig (joint names to nodes,
/// clip names to indices). Shared by the instances of one model file.
#[derive(Debug, Default)]
pub struct RigExtras {
    /// (name hash, per-node coverage).
    pub masks: Vec<(Hash, std::sync::Arc<[f32]>)>,
    /// (name, name hash, chain).
    pub chains: Vec<(String, Hash, Chain)>,
    /// Events of each clip, by clip index (times ascending).
    pub events: Vec<ClipEvents>,
}

#[derive(Debug, Default, Clone)]
pub struct ClipEvents {
    pub times: Vec<f32>,
    pub ids: Vec<Hash>,
}

impl RigExtras {
    /// Names the `.model` (`source`) and the bad entry: an unknown joint or clip, an event after
    /// the clip's end, a two-bone chain whose joints are not parent and child.
    pub fn resolve(rig: &Rig, spec: &RigExtrasSpec, source: &str) -> Result<RigExtras, String> {
        let sk = &rig.skeleton;
        let joint = |what: &str, name: &str| {
            sk.find_joint(name)
                .or_else(|| (0..sk.node_count()).find(|&i| sk.name(i) == name))
                .ok_or_else(|| format!("{source}: {what}: no joint named '{name}'"))
        };
        let mut out = RigExtras { events: vec![ClipEvents::default(); rig.clips.len()], ..Default::default() };
        for (name, joints) in &spec.masks {
            let roots = joints.iter().map(|j| joint(&format!("mask '{name}'"), j)).collect::<Result<Vec<_>, _>>()?;
            out.masks.push((hash_remembered(name), subtree_mask(sk, &roots)));
        }
        for c in &spec.ik {
            let what = format!("ik chain '{}'", c.name);
            let chain = match &c.kind {
                IkKindSpec::TwoBone { joints, pole } => Chain::TwoBone(TwoBone {
                    root: joint(&what, &joints[0])?,
                    mid: joint(&what, &joints[1])?,
                    end: joint(&what, &joints[2])?,
                    pole: Vec3::from(*pole),
                }),
                IkKindSpec::Aim { joint: j, forward, up } => {
                    Chain::Aim(Aim { joint: joint(&what, j)?, forward: Vec3::from(*forward), up: Vec3::from(*up) })
                }
            };
            chain.validate(sk).map_err(|e| format!("{source}: {what}: {e}"))?;
            out.chains.push((c.name.clone(), hash_remembered(&c.name), chain));
        }
        for (clip, events) in &spec.events {
            let Some(i) = rig.clip_index(hash_remembered(clip)) else {
                let names = rig.clip_names.join(", ");
                return Err(format!("{source}: events: no animation named '{clip}' (animations: {names})"));
            };
            let d = rig.clips[i].duration();
            let list = &mut out.events[i];
            for e in events {
                if e.time > d + 1e-4 {
                    return Err(format!(
                        "{source}: event '{}' of '{clip}' at {} s is after its end ({d} s)",
                        e.id, e.time
                    ));
                }
                list.times.push(e.time.min(d));
                list.ids.push(hash_remembered(&e.id));
            }
        }
        Ok(out)
    }

    pub fn mask(&self, name: Hash) -> Option<&std::sync::Arc<[f32]>> {
        self.masks.iter().find(|(h, _)| *h == name).map(|(_, m)| m)
    }
    pub fn chain(&self, name: Hash) -> Option<usize> {
        self.chains.iter().position(|(_, h, _)| *h == name)
    }
}

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
    tail: Vec<u32>,
}

/// Animation state of one model instance; all buffers are allocated once.
pub struct AnimState {
    pub rig: Arc<Rig>,
    pub player: ModelPlayer,
    scratch: PoseScratch,
    pub(super) locals: Vec<Transform>,
    rig_weights: Vec<f32>,
    /// Model-space matrix of every skeleton node after the last pose in the instance's own
    /// buffers (creation, a script-posed frame, a frame of the parallel pass); the serial pass
    /// poses animated instances in the shared `PoseBuffers` and leaves this as it was. The bone
    /// objects always have the last pose.
    pub model: Vec<Mat4>,
    /// Skinning matrices, every skin in order, joints in skin order (the renderer's layout).
    pub palette: Vec<Mat4>,
    /// Bone game objects: (skeleton node, game object slot). Written only by
    /// [`AnimState::set_bones`], which counts the change (see [`BoneEdits`]).
    bones: Vec<(usize, u32)>,
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
    /// One per chain of `extras`.
    pub ik: Vec<IkState>,
    /// Layer 0's pose while it has a weight, mask or additive flag (sized on first use).
    base_pose: Vec<Transform>,
    /// How each mesh of the drawn glTF follows the pose (see [`MeshPose`]), in mesh order.
    mesh_poses: Vec<MeshPose>,
    /// Model-space transform of each drawn mesh after the last pose: its node's animated matrix
    /// for a rigid mesh, identity for a skinned one (glTF ignores a skinned mesh's node).
    pub mesh_world: Vec<Mat4>,
    /// Script posing of the bones while no animation plays (rigs.md section 4).
    pub(super) bone_pose: super::bone_pose::BonePose,
    /// This frame's completions and event crossings, found while advancing (possibly on another
    /// thread) and reported in instance order afterwards.
    done: Vec<(u8, Completion, Listener)>,
    hits: Vec<EventHit>,
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

/// What the animation pass reports for the frame.
pub struct Finished {
    pub model: u32,
    pub layer: u8,
    pub animation: Hash,
    pub playback: Playback,
    pub listener: Listener,
}

/// An event for the frame's report.
pub struct EventReport {
    pub model: u32,
    pub hit: EventHit,
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
            palette: vec![Mat4::IDENTITY; joints],
            bones: Vec::new(),
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

    /// Gives the instance these bone objects, counting the change in `edits`.
    pub fn set_bones(&mut self, bones: Vec<(usize, u32)>, edits: &mut BoneEdits) {
        self.bones = bones;
        edits.0 += 1;
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
        self.pose_with(&mut locals, &mut model, weights);
        (self.locals, self.model) = (locals, model);
    }

    /// [`AnimState::pose`] with the local transforms and model matrices in `buffers`, which the
    /// pass shares between instances (one set per thread): they stay in the cache, where the
    /// instance's own (about 3 KB for a Fox) would be written back to memory and read in again
    /// the next frame. Nothing reads an animated instance's own buffers after its pass but a
    /// script-posed instance (no animation ever played, `posed_by_bones`), which keeps using
    /// them; `drive` gets each bone object's slot and its joint's model matrix.
    #[inline(always)]
    fn pose_shared(&mut self, buffers: &mut PoseBuffers, weights: &mut [f32], mut drive: impl FnMut(u32, &Mat4)) {
        let n = self.rig.skeleton.node_count();
        if buffers.locals.len() < n {
            buffers.locals = self.rig.skeleton.rest().to_vec();
            buffers.model = vec![Mat4::IDENTITY; n];
        }
        let (locals, model) = (&mut buffers.locals[..n], &mut buffers.model[..n]);
        self.pose_with(locals, model, weights);
        for &(node, slot) in &self.bones {
            if let Some(m) = model.get(node) {
                drive(slot, m);
            }
        }
    }

    fn pose_with(&mut self, locals: &mut [Transform], model: &mut [Mat4], weights: &mut [f32]) {
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
        self.finish_pose_with(locals, model, weights);
    }

    /// The pose from `locals` on: IK, joint limits, model matrices, palettes, meshes, morph
    /// weights. Bones posed by scripts (bone_pose.rs) enter here too.
    pub(super) fn finish_pose(&mut self, weights: &mut [f32]) {
        let (mut locals, mut model) = (std::mem::take(&mut self.locals), std::mem::take(&mut self.model));
        self.finish_pose_with(&mut locals, &mut model, weights);
        (self.locals, self.model) = (locals, model);
    }

    fn finish_pose_with(&mut self, locals: &mut [Transform], model: &mut [Mat4], weights: &mut [f32]) {
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
            if let Err(e) = sk.palette(s, model, &mut self.palette[at..at + n]) {
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
}

/// Creates one game object per joint (`create_go_bones`), children of the model's object. Their
/// ids cannot clash with user ids: they contain `#`, which ids may not.
/// `spawned`: the model belongs to a factory-made object, whose bone names are not kept for
/// the whole run (see `Scene::spawn_transient`).
pub fn create_bones(w: &mut super::World, model: u32, go_path: &str, comp: &str, spawned: bool) -> Result<(), String> {
    let Some(inst) = w.models.instances.get(model as usize) else { return Ok(()) };
    let (owner, Some(anim)) = (inst.slot, &inst.anim) else { return Ok(()) };
    let sk = &anim.rig.skeleton;
    let mut joints: Vec<usize> = (0..sk.skin_count()).flat_map(|s| sk.skin_joints(s).iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    let prefix = w.scene.prefix[owner as usize];
    let mut bones = Vec::with_capacity(joints.len());
    for node in joints {
        let path = format!("{go_path}#{comp}/{}#{node}", sk.name(node));
        let (s, r, t) = anim.model[node].to_scale_rotation_translation();
        let slot = if spawned {
            w.scene.spawn_transient(&path, prefix, t, r, s)?
        } else {
            w.scene.spawn(&path, prefix, t, r, s)?
        };
        w.scene.set_parent(slot, owner, false)?;
        w.scene.world_on_demand(slot);
        bones.push((node, slot));
    }
    w.models.set_bones(model, bones);
    Ok(())
}

/// `default_animation`: starts looping at creation. A name the animation set lacks refuses the
/// load, as the Defold editor refuses to build such a model: it is always a typo or a clip that
/// was renamed, and a model that silently stays in its bind pose is harder to track down.
/// `source` is the file the model was described in (the fallback when the name has no position).
pub fn start_default(
    w: &mut super::World,
    model: u32,
    name: &crate::project::json::Located<String>,
    source: &str,
) -> Result<(), String> {
    let Some(inst) = w.models.instances.get_mut(model as usize) else { return Ok(()) };
    let n = &name.value;
    let Some(anim) = inst.anim.as_mut() else {
        return Err(name.error(source, format!("default_animation '{n}': the model has no animations")).to_string());
    };
    match anim.rig.clip_index(hash_remembered(n)) {
        Some(i) => {
            anim.player.play(i, Playback::LoopForward, 0.0, 0.0, 1.0);
            Ok(())
        }
        None => {
            let msg = format!("default_animation '{n}' not found (animations: {})", anim.rig.clip_names.join(", "));
            Err(name.error(source, msg).to_string())
        }
    }
}

/// Below this many animated instances the pose pass stays on the calling thread: handing work
/// to the pool costs a few microseconds, about one instance's pose.
const PARALLEL_MIN_INSTANCES: usize = 32;
/// Instances per task of the pool.
const PARALLEL_CHUNK: usize = 8;

/// Asks for what the pass reads next while instance `i` is posed: the record two instances
/// ahead, and the buffers of the next one (read from the record asked for a step earlier).
#[inline(always)]
fn prefetch_ahead(instances: &[ModelInstance], i: usize) {
    if let Some(ahead) = instances.get(i + 2) {
        crate::base::prefetch::prefetch_value(ahead);
    }
    if let Some(next) = instances.get(i + 1)
        && let Some(a) = next.anim.as_ref()
    {
        a.prefetch();
        crate::base::prefetch::prefetch(&next.weights);
    }
}

/// The serial pass also asks for the scene entries the next instance's bone objects are driven
/// through: their one-byte `local` entries (the matrices are streamed, not read), a line or two
/// for a model's bones, which are made one after another: the first and the last bone's.
#[inline(always)]
fn prefetch_bones_ahead(instances: &[ModelInstance], stream: &BoneStream, i: usize) {
    if let Some(a) = instances.get(i + 1).and_then(|n| n.anim.as_ref())
        && let (Some(first), Some(last)) = (a.bones.first(), a.bones.last())
    {
        stream.prefetch(first.1);
        stream.prefetch(last.1);
    }
}

/// What the animation pass reports for the frame: the ONCE animations that ended, and the
/// events crossed, in instance order.
pub type Report = (Vec<Finished>, Vec<EventReport>);

/// Whether the pass animates this instance.
fn live(inst: &ModelInstance) -> bool {
    inst.alive && inst.enabled && inst.anim.is_some()
}

/// Advances a live instance's layers (its report is kept for later); None for one the pass
/// leaves alone.
#[inline(always)]
fn advance(inst: &mut ModelInstance, dt: f32) -> Option<(&mut AnimState, &mut Vec<f32>)> {
    if !live(inst) {
        return None;
    }
    let ModelInstance { anim, weights, .. } = inst;
    let anim = anim.as_mut()?;
    anim.advance_into_own(dt);
    Some((anim, weights))
}

/// Samples every playing model: pose, palettes, morph weights (then the script override) and
/// bone game objects. Returns the ONCE animations that ended this frame.
///
/// Instances are independent, so their advance and pose run on every core (rayon) and the
/// result is bit-identical to one thread: each instance's arithmetic is the same, and what they
/// report (completions, events) and write into the scene (bone objects) is gathered afterwards in
/// instance order. A frame where some IK chain has a target stays on one thread in the old
/// order, because a target may be another instance's bone, posed earlier in the same pass; so
/// does a pool of one thread (`RAYON_NUM_THREADS=1`), and so do frames where one thread is faster
/// (`base::parallel`: on this 2-core test machine it is, the pool sleeps through llvmpipe's
/// long frames).
pub fn animate(w: &mut super::World, dt: f32) -> Report {
    let super::World { models, scene, .. } = w;
    let mut animated = 0usize;
    let mut ik = false;
    for inst in models.instances.iter().filter(|m| live(m)) {
        animated += 1;
        ik |= inst.anim.as_ref().is_some_and(AnimState::has_ik_target);
    }
    let mut report = (Vec::new(), Vec::new());
    let parallel =
        !ik && animated >= PARALLEL_MIN_INSTANCES && models.bones_disjoint(scene) && models.pose_threads.parallel();
    let started = std::time::Instant::now();
    if parallel {
        animate_parallel(models, scene, dt, &mut report);
    } else {
        animate_serial(models, scene, dt, &mut report);
    }
    if !ik && animated >= PARALLEL_MIN_INSTANCES {
        models.pose_threads.took(parallel, started.elapsed().as_secs_f64());
    }
    for i in 0..models.instances.len() as u32 {
        models.apply_weight_override(i);
    }
    report
}

/// The pass on the calling thread, in instance order. Bone objects are driven in runs of
/// instances that need nothing else of the scene, through one stream each (one fence per run);
/// an instance that reads the scene (IK targets, which may be bones posed earlier in this pass,
/// or bones posed by scripts) is finished between runs, after the fence.
fn animate_serial(models: &mut ModelWorld, scene: &mut Scene, dt: f32, report: &mut Report) {
    let ModelWorld { instances, pose_buffers, .. } = models;
    let mut i = 0;
    while i < instances.len() {
        // The instance the run stopped at, advanced and reported, for the part that reads the
        // scene.
        let mut stopped = None;
        {
            let driver = scene.bone_driver();
            let stream = driver.stream();
            while i < instances.len() {
                prefetch_ahead(instances, i);
                prefetch_bones_ahead(instances, &stream, i);
                let at = i;
                i += 1;
                let Some((anim, weights)) = instances.get_mut(at).and_then(|inst| advance(inst, dt)) else {
                    continue;
                };
                anim.report(at as u32, report);
                if anim.has_ik_target() || anim.posed_by_bones() {
                    stopped = Some(at);
                    break;
                }
                // SAFETY: this thread is the only one driving.
                anim.pose_shared(pose_buffers, weights, |slot, m| unsafe { stream.drive(slot, m) });
            }
        }
        let Some(ModelInstance { anim: Some(anim), slot, weights, .. }) = stopped.and_then(|at| instances.get_mut(at))
        else {
            continue;
        };
        ik_targets(anim, scene, *slot);
        if anim.posed_by_bones() {
            super::bone_pose::pose_from_bones(anim, scene, weights);
        } else {
            let driver = scene.bone_driver();
            let stream = driver.stream();
            // SAFETY: this thread is the only one driving.
            anim.pose_shared(pose_buffers, weights, |slot, m| unsafe { stream.drive(slot, m) });
        }
    }
}

/// The pass on the calling thread and the pool's: see [`animate`].
fn animate_parallel(models: &mut ModelWorld, scene: &mut Scene, dt: f32, report: &mut Report) {
    let ModelWorld { instances, worker_buffers, crew, tail, .. } = models;
    // One set of buffers for the calling thread and one for each helper.
    let helpers = rayon::current_num_threads().saturating_sub(1).max(1);
    if worker_buffers.len() < helpers + 1 {
        worker_buffers.resize_with(helpers + 1, Default::default);
    }
    for b in worker_buffers.iter_mut() {
        if let Ok(b) = b.get_mut() {
            b.tail.clear();
        }
    }
    {
        let chunks = std::sync::Mutex::new(instances.chunks_mut(PARALLEL_CHUNK).enumerate());
        let driver = scene.bone_driver();
        // Each participant takes chunks until none is left, posing in its own buffers and
        // driving its instances' bone objects itself (`bones_disjoint`: no slot twice) through
        // its own stream, fenced on its thread when it is done; what needs the scene or the
        // frame's report (completions, events, script-posed bones) is listed for the serial
        // part below.
        let work = |buffers: &mut PoseBuffers| {
            let stream = driver.stream();
            while let Some((c, chunk)) = chunks.lock().ok().and_then(|mut q| q.next()) {
                for i in 0..chunk.len() {
                    prefetch_ahead(chunk, i);
                    let Some((anim, weights)) = chunk.get_mut(i).and_then(|inst| advance(inst, dt)) else {
                        continue;
                    };
                    let bones_posed = anim.posed_by_bones();
                    if !bones_posed {
                        // SAFETY: no slot is the bone object of two live instances
                        // (`bones_disjoint`), and each instance is posed by one thread.
                        anim.pose_shared(buffers, weights, |slot, m| unsafe { stream.drive(slot, m) });
                    }
                    if bones_posed || !anim.done.is_empty() || !anim.hits.is_empty() {
                        buffers.tail.push((c * PARALLEL_CHUNK + i) as u32);
                    }
                }
            }
        };
        let share = || {
            // Buffers nobody holds (a helper left over from an earlier frame finds none
            // and stays out).
            if let Some(mut b) = worker_buffers.iter().find_map(|b| b.try_lock().ok()) {
                work(&mut b);
            }
        };
        crew.run(helpers, &share);
    }
    // In instance order, as one thread reports.
    tail.clear();
    for b in worker_buffers.iter_mut() {
        if let Ok(b) = b.get_mut() {
            tail.extend_from_slice(&b.tail);
        }
    }
    tail.sort_unstable();
    for &i in tail.iter() {
        let Some(ModelInstance { anim: Some(anim), weights, .. }) = instances.get_mut(i as usize) else { continue };
        anim.report(i, report);
        if anim.posed_by_bones() {
            super::bone_pose::pose_from_bones(anim, scene, weights);
        }
    }
}

impl AnimState {
    /// Starts loading the buffers a frame's advance and pose touch (`base::prefetch`).
    fn prefetch(&self) {
        use crate::base::prefetch::prefetch;
        self.scratch.prefetch();
        prefetch(&self.palette);
        prefetch(&self.rig_weights);
        prefetch(&self.bones);
        prefetch(&self.mesh_world);
        prefetch(&self.mesh_poses);
    }

    /// Advances the layers into the instance's own report buffers (kept between frames, so the
    /// pass allocates nothing once they have grown).
    fn advance_into_own(&mut self, dt: f32) {
        let (mut done, mut hits) = (std::mem::take(&mut self.done), std::mem::take(&mut self.hits));
        done.clear();
        hits.clear();
        self.advance_layers(dt, &mut done, &mut hits);
        self.done = done;
        self.hits = hits;
    }

    /// Moves what `advance_into_own` found into the frame's report.
    fn report(&mut self, model: u32, (finished, reports): &mut Report) {
        for (layer, c, listener) in self.done.drain(..) {
            let animation = self.rig.clip_ids.get(c.animation).copied().unwrap_or(0);
            finished.push(Finished { model, layer, animation, playback: c.playback, listener });
        }
        reports.extend(self.hits.drain(..).map(|hit| EventReport { model, hit }));
    }

    /// With no animation playing, a rig with bone objects takes its pose from them (rigs.md §4).
    fn posed_by_bones(&self) -> bool {
        self.player.animation().is_none() && !self.bones.is_empty()
    }

    /// Whether some IK chain follows something (its target is read from the scene).
    fn has_ik_target(&self) -> bool {
        self.ik.iter().any(|s| s.target != IkTarget::None)
    }
}

/// Each chain's target in the model's space (the model object's current world transform).
fn ik_targets(anim: &mut AnimState, scene: &mut Scene, owner: u32) {
    if !anim.has_ik_target() {
        return;
    }
    scene.update_world_transform_of(owner);
    let to_model = scene.is_live(owner).then(|| scene.world_of(owner).inverse());
    for s in &mut anim.ik {
        let world = match s.target {
            IkTarget::None => None,
            IkTarget::Position(p) => Some(p),
            IkTarget::Object(slot) if scene.is_live(slot) => {
                scene.update_world_transform_of(slot);
                Some(Vec3::from(scene.world_of(slot).translation))
            }
            IkTarget::Object(_) => None,
        };
        s.model_target = match (world, to_model) {
            (Some(p), Some(m)) => Some(m.transform_point3(p)).filter(|p| p.is_finite()),
            _ => None,
        };
    }
}

/// After a glTF file was re-imported: rebuilds the rigs that use it and gives their instances a
/// new player that continues the same animation at the same cursor (or shows the bind pose, with
/// a warning, when the clip is gone). Bone objects whose joint name still exists are kept, so
/// objects parented to bones stay attached; the others are removed, new joints get new objects.
pub fn rebuild_rigs(w: &mut super::World, res: &crate::project::Resources, path: &str) -> Result<usize, String> {
    w.models.forget_rigs_of(path);
    let affected: Vec<u32> = (0..w.models.instances.len() as u32)
        .filter(|&i| {
            let m = &w.models.instances[i as usize];
            m.alive && (m.spec.skeleton == path || m.spec.animations.iter().any(|a| a == path))
        })
        .collect();
    for &i in &affected {
        let spec = w.models.instances[i as usize].spec.clone();
        rebuild_instance(w, res, i, &spec)?;
    }
    Ok(affected.len())
}

/// A saved `.model`: every instance made from it switches to the new mesh, material, textures
/// and rig, continuing its animation where the clip still exists. Errors leave them unchanged.
pub fn reload_model_file(w: &mut super::World, res: &crate::project::Resources, path: &str) -> Result<usize, String> {
    let spec = crate::project::collection::load_model_file(res, path).map_err(|e| e.to_string())?;
    let users: Vec<u32> = (0..w.models.instances.len() as u32)
        .filter(|&i| w.models.instances[i as usize].alive && w.models.instances[i as usize].spec.source == path)
        .collect();
    if users.is_empty() {
        return Ok(0);
    }
    let asset = w.models.asset(res, &spec.mesh).map_err(|e| e.to_string())?;
    let material = w.models.material(res, &spec.material, path).map_err(|e| e.to_string())?;
    let mut textures = Vec::new();
    for (sampler, tex) in &spec.textures {
        textures.push((hash_remembered(sampler), w.models.texture(res, tex, path).map_err(|e| e.to_string())?));
    }
    w.models.forget_rigs_of(&spec.skeleton);
    for &i in &users {
        let data = w.models.assets[asset as usize].data.clone();
        let m = &mut w.models.instances[i as usize];
        m.asset = asset;
        m.material = material;
        m.textures = textures.clone();
        if m.mesh_enabled.len() != data.meshes.len() {
            m.mesh_enabled = vec![true; data.meshes.len()];
        }
        m.weights = data.meshes.iter().flat_map(|x| x.weights.iter().copied()).collect();
        m.spec = spec.clone();
        rebuild_instance(w, res, i, &spec)?;
    }
    Ok(users.len())
}

/// Gives one instance a new rig built from `spec`, carrying playback over and rebinding bones.
fn rebuild_instance(
    w: &mut super::World,
    res: &crate::project::Resources,
    i: u32,
    spec: &crate::project::ModelSpec,
) -> Result<(), String> {
    {
        let rig = w.models.rig(res, spec)?;
        let old = w.models.instances[i as usize].anim.take();
        let Some(rig) = rig else {
            for (_, slot) in old.map(|a| a.bones).unwrap_or_default() {
                w.scene.remove(slot);
            }
            return Ok(());
        };
        let asset = w.models.instances[i as usize].asset as usize;
        let mut new = match w.models.assets.get(asset) {
            Some(a) => AnimState::with_meshes(rig, &a.data),
            None => AnimState::new(rig),
        };
        let extras = RigExtras::resolve(&new.rig, &spec.rig_extras, &spec.source)?;
        new.set_extras(Arc::new(extras));
        if let Some(old) = &old {
            carry_playback(old, &mut new, &spec.source);
        }
        w.models.instances[i as usize].anim = Some(new);
        let old_bones: Vec<(String, u32)> = old
            .map(|a| a.bones.iter().map(|&(n, s)| (a.rig.skeleton.name(n).to_string(), s)).collect())
            .unwrap_or_default();
        rebind_bones(w, i, old_bones)
    }
}

/// Continues every layer of the old state on the new rig: its clip (by name) at its cursor,
/// rate and playback mode (stopped if it had stopped), its weight and weight fade, additive
/// flag and mask (resolved again by name), its listeners. A cross-fade in progress ends at the
/// reload. A layer whose clip or mask is gone is dropped with a warning (layer 0: the bind pose).
fn carry_playback(old: &AnimState, new: &mut AnimState, source: &str) {
    for layer in 0..LAYERS {
        let (player, params, mask, listener, starter) = match layer {
            0 => (&old.player, &old.layer0, &old.layer0_mask, old.listener, old.starter),
            _ => match old.layer(layer) {
                Some(s) => (&s.layer.player, &s.layer.params, &s.mask, s.listener, s.starter),
                None => break,
            },
        };
        let Some(id) = player.animation().and_then(|a| old.rig.clip_ids.get(a).copied()) else { continue };
        let on = if layer == 0 { String::new() } else { format!(" on layer {layer}") };
        let Some(clip) = new.rig.clip_index(id) else {
            let what = if layer == 0 { "showing the bind pose" } else { "the layer is dropped" };
            log::warn!("{source}: animation '{}'{on} is gone after the reload; {what}", crate::base::hash::name_of(id));
            continue;
        };
        let resolved = match mask.as_deref().map(|names| new.resolve_mask(names)).transpose() {
            Ok(m) => m,
            Err(e) => {
                log::warn!("{source}: layer {layer} is dropped after the reload: {e}");
                continue;
            }
        };
        let plain = params.is_plain() && mask.is_none();
        let mut params = params.clone();
        params.mask = resolved;
        let (p, l, s, m) = if layer == 0 {
            if !plain && let Some(p) = new.params_mut(0) {
                *p = params;
            }
            new.layer0_mask = mask.clone();
            (&mut new.player, &mut new.listener, &mut new.starter, None)
        } else {
            let Some(slot) = new.layer_mut(layer) else { continue };
            slot.layer.params = params;
            (&mut slot.layer.player, &mut slot.listener, &mut slot.starter, Some(&mut slot.mask))
        };
        p.play(clip, player.playback(), 0.0, 0.0, player.playback_rate());
        p.set_cursor(player.cursor());
        if !player.is_playing() {
            p.cancel();
        }
        (*l, *s) = (listener, starter);
        if let Some(m) = m {
            *m = mask.clone();
        }
    }
}

/// Gives the new skeleton's joints the bone objects of the same names, creating or removing
/// the difference.
fn rebind_bones(w: &mut super::World, model: u32, mut old: Vec<(String, u32)>) -> Result<(), String> {
    let inst = &w.models.instances[model as usize];
    let (owner, create) = (inst.slot, inst.spec.create_go_bones);
    let (comp, go_path) = inst.names.clone();
    let Some(anim) = inst.anim.as_ref() else { return Ok(()) };
    let sk = &anim.rig.skeleton;
    let mut joints: Vec<usize> = (0..sk.skin_count()).flat_map(|s| sk.skin_joints(s).iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    let mut bones = Vec::new();
    let prefix = w.scene.prefix[owner as usize];
    for node in joints {
        let name = sk.name(node).to_string();
        if let Some(k) = old.iter().position(|(n, _)| *n == name) {
            bones.push((node, old.swap_remove(k).1));
        } else if create {
            let path = format!("{go_path}#{comp}/{name}#{node}");
            let (s, r, t) = anim.model[node].to_scale_rotation_translation();
            let slot = w.scene.spawn(&path, prefix, t, r, s)?;
            w.scene.set_parent(slot, owner, false)?;
            w.scene.world_on_demand(slot);
            bones.push((node, slot));
        }
    }
    for (_, slot) in old {
        w.scene.remove(slot);
    }
    w.models.set_bones(model, bones);
    Ok(())
}
