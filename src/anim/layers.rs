//! Animation layers (layers.md §1): layers 1–7 over Defold's single animation (layer 0). Each
//! layer is a full [`ModelPlayer`] (own clip, cursor, playback, rate and cross-fade) plus how it
//! covers the pose below: a weight (with a linear fade), a per-joint mask, override or additive.
//! Without a cross-fade inside the layer, a masked override layer and an additive layer blend
//! straight from the clip's keys into the result so far (`Clip::blend_selected`, and
//! `Clip::add_difference` on the clip re-keyed as its difference from its first key, made once
//! with the rig); otherwise the pose kernels are the skeleton's (sample into the layer's
//! buffers, then blend). Every buffer is allocated when the layer is first used, none per
//! frame.
use super::clip::{Clip, SamplingCache, TrackSelection};
use super::player::{ModelPlayer, PoseScratch};
use super::skeleton::{RigError, Skeleton, need};
use super::transform::{Transform, blend_locals, column_quats, quat_columns, quat_mul4, renormalise4, slerp4};
use glam::{Quat, Vec3A, Vec4};
use std::sync::Arc;

/// Layers a model has: 0 (Defold's) and seven more.
pub const LAYERS: usize = 8;

/// A linear weight fade (`model.set_layer_weight(url, layer, weight, duration)`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fade {
    from: f32,
    to: f32,
    elapsed: f32,
    duration: f32,
}

/// How a layer covers the layers below it.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerParams {
    weight: f32,
    fade: Option<Fade>,
    /// Per-node coverage in [0, 1]; `None`: every node fully.
    pub mask: Option<Arc<[f32]>>,
    pub additive: bool,
}

impl Default for LayerParams {
    fn default() -> Self {
        LayerParams { weight: 1.0, fade: None, mask: None, additive: false }
    }
}

impl LayerParams {
    /// Weight 1, every joint, override: the layer replaces what is below (layer 0's default,
    /// where evaluation is exactly Defold's).
    pub fn is_plain(&self) -> bool {
        self.weight == 1.0 && self.fade.is_none() && self.mask.is_none() && !self.additive
    }
    pub fn weight(&self) -> f32 {
        self.weight
    }
    /// Sets the weight now (`duration` ≤ 0 or not finite) or fades to it linearly over
    /// `duration` seconds from the current weight. Clamped to [0, 1]; NaN counts as 0.
    pub fn set_weight(&mut self, weight: f32, duration: f32) {
        let to = if weight.is_nan() { 0.0 } else { weight.clamp(0.0, 1.0) };
        if duration > 0.0 && duration.is_finite() {
            self.fade = Some(Fade { from: self.weight, to, elapsed: 0.0, duration });
        } else {
            self.fade = None;
            self.weight = to;
        }
    }
    /// Advances the fade by `dt` seconds.
    pub fn update(&mut self, dt: f32) {
        let Some(f) = &mut self.fade else { return };
        f.elapsed += if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if f.elapsed >= f.duration {
            self.weight = f.to;
            self.fade = None;
        } else {
            self.weight = f.from + (f.to - f.from) * (f.elapsed / f.duration);
        }
    }
}

/// Per-node mask: 1 on each of `roots` and their descendants, 0 elsewhere (parents come before
/// children, so one forward pass finds every descendant).
pub fn subtree_mask(skeleton: &Skeleton, roots: &[usize]) -> Arc<[f32]> {
    let n = skeleton.node_count();
    let mut m = vec![0.0f32; n];
    for &r in roots {
        if let Some(v) = m.get_mut(r) {
            *v = 1.0;
        }
    }
    for i in 0..n {
        if let Some(p) = skeleton.parent(i)
            && m[p] == 1.0
        {
            m[i] = 1.0;
        }
    }
    m.into()
}

/// What an additive layer measures its clip against (layers.md §1: the difference from the
/// clip's first key): each clip's pose at its first key over the rest pose, and, made once with
/// the rig, each clip re-keyed as that difference ([`Clip::difference`]), which an additive
/// layer without a cross-fade adds straight from the keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdditiveRefs {
    pub first_keys: Vec<Vec<Transform>>,
    differences: Vec<Option<Clip>>,
}

impl AdditiveRefs {
    pub fn new(skeleton: &Skeleton, clips: &[Clip]) -> Result<AdditiveRefs, RigError> {
        let mut first_keys = Vec::with_capacity(clips.len());
        for clip in clips {
            let mut locals = skeleton.rest().to_vec();
            let mut weights = skeleton.rest_weights().to_vec();
            clip.sample(0.0, &mut SamplingCache::new(clip), &mut locals, &mut weights)?;
            first_keys.push(locals);
        }
        let differences = clips.iter().zip(&first_keys).map(|(c, r)| c.difference(r)).collect();
        Ok(AdditiveRefs { first_keys, differences })
    }

    /// First-key poses without difference clips: every additive layer takes the general path
    /// (sample, then subtract the reference), what the difference clips are tested against.
    pub fn first_keys_only(first_keys: Vec<Vec<Transform>>) -> AdditiveRefs {
        AdditiveRefs { first_keys, differences: Vec::new() }
    }

    pub fn difference(&self, clip: usize) -> Option<&Clip> {
        self.differences.get(clip).and_then(Option::as_ref)
    }
}

/// One layer above 0: its player and its working buffers.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub player: ModelPlayer,
    pub params: LayerParams,
    scratch: PoseScratch,
    locals: Vec<Transform>,
    weights: Vec<f32>,
    /// Additive layers: the reference (first-key) pose, blended like the pose during a
    /// cross-fade.
    refs: Vec<Transform>,
    /// What a masked layer samples and blends, made for `selected_for` (the mask, by pointer,
    /// and the clip) and rebuilt only when either changes.
    selection: TrackSelection,
    covered: Vec<u32>,
    selected_for: Option<(Arc<[f32]>, usize)>,
}

impl Layer {
    pub fn new(skeleton: &Skeleton, clips: &[Clip]) -> Layer {
        Layer {
            player: ModelPlayer::new(clips),
            params: LayerParams::default(),
            scratch: PoseScratch::new(skeleton, clips),
            locals: skeleton.rest().to_vec(),
            weights: skeleton.rest_weights().to_vec(),
            refs: skeleton.rest().to_vec(),
            selection: TrackSelection::default(),
            covered: Vec::new(),
            selected_for: None,
        }
    }

    /// Whether the layer changes the pose at all (an animation and a weight above 0).
    pub fn is_active(&self) -> bool {
        self.player.animation().is_some() && (self.params.weight > 0.0 || self.params.fade.is_some())
    }

    /// Samples the layer and blends it into `out_locals` / `out_weights` (the result of the
    /// layers below). `refs.first_keys[c]` is clip `c`'s pose at its first key (the rest pose
    /// under it): the reference of an additive layer. A layer that starts with
    /// `blend_duration` on a layer that had no animation fades in over the layers below (not
    /// from the rest pose).
    pub fn apply(
        &mut self,
        clips: &[Clip],
        refs: &AdditiveRefs,
        skeleton: &Skeleton,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        let Some(cur) = self.player.animation() else { return Ok(()) };
        let (n, w) = (skeleton.node_count(), skeleton.rest_weights().len());
        need("locals", n, out_locals.len())?;
        need("weights", w, out_weights.len())?;
        need("layer locals", n, self.locals.len().min(self.refs.len()))?;
        let fade_in = self.player.blend_weight().filter(|_| self.player.previous_animation().is_none());
        let k = fade_in.unwrap_or(1.0);
        let weight = self.params.weight * k;
        if weight <= 0.0 {
            return Ok(());
        }
        let mask = self.params.mask.as_deref();
        // No cross-fade to sample: a masked layer samples its selected tracks only.
        let single = self.player.blend_weight().is_none() || fade_in.is_some();
        // Additive with one clip: its difference clip, added from the keys (a cross-fade blends
        // two references, which a difference clip cannot express: the general path below).
        if self.params.additive
            && single
            && let Some(diff) = refs.difference(cur)
            && let Some((t, cache)) = self.player.current_sampling(&mut self.scratch)
        {
            return diff.add_difference(t, cache, weight, mask, &mut out_locals[..n]);
        }
        let covered = match (&self.params.mask, clips.get(cur)) {
            (Some(m), Some(clip)) if single => {
                let fresh = matches!(&self.selected_for, Some((pm, c)) if Arc::ptr_eq(pm, m) && *c == cur);
                if !fresh {
                    clip.select(m, &mut self.selection);
                    self.covered.clear();
                    self.covered.extend((0..n.min(m.len())).filter(|&j| m[j] > 0.0 || m[j].is_nan()).map(|j| j as u32));
                    self.selected_for = Some((m.clone(), cur));
                }
                // Override without morph weights: blended straight from the keys.
                if !self.params.additive
                    && clip.weight_span() == 0
                    && self.selection.blends_per_track()
                    && let Some((t, cache)) = self.player.current_sampling(&mut self.scratch)
                {
                    return clip.blend_selected(
                        t,
                        cache,
                        &self.selection,
                        weight,
                        m,
                        skeleton.rest(),
                        &mut out_locals[..n],
                    );
                }
                let (sk, sel) = (skeleton, &self.selection);
                self.player.pose_selected(clips, sk, &mut self.scratch, sel, &mut self.locals, &mut self.weights)?;
                Some(self.covered.as_slice())
            }
            _ => {
                let with_previous = fade_in.is_none();
                let (l, w) = (&mut self.locals, &mut self.weights);
                self.player.pose_masked(clips, skeleton, &mut self.scratch, with_previous, mask, l, w)?;
                None
            }
        };
        let out = &mut out_locals[..n];
        if self.params.additive {
            let reference = |c: usize| refs.first_keys.get(c).filter(|r| r.len() >= n);
            let Some(r) = reference(cur) else { return Ok(()) };
            // The first-key pose itself, unless a cross-fade blends two of them.
            let mut r = &r[..n];
            if fade_in.is_none()
                && let (Some(prev), Some(b)) = (self.player.previous_animation(), self.player.blend_weight())
            {
                self.refs[..n].copy_from_slice(r);
                let from = reference(prev).map_or(skeleton.rest(), |v| v.as_slice());
                blend_locals(&from[..n], &mut self.refs[..n], b);
                r = &self.refs[..n];
            }
            add_joints(out, &self.locals[..n], r, weight, mask, covered);
        } else {
            override_joints(out, &self.locals[..n], weight, mask, covered);
            // Morph weights: every override layer whose clip animates weights lerps them by its
            // weight, so the highest one at weight 1 wins (masks are per joint, not per target).
            if clips.get(cur).is_some_and(|c| c.weight_span() > 0) {
                for (o, l) in out_weights[..w].iter_mut().zip(&self.weights[..w]) {
                    *o += (l - *o) * weight;
                }
            }
        }
        Ok(())
    }
}

/// The joints a blend pass changes (`weight × mask[j] > 0`), four at a time with their
/// weights, so the rotations of four joints blend in one SIMD step. A short last batch is
/// padded with weight-0 lanes that the callers skip. Scanning the mask costs one compare per
/// joint; the blend itself runs only on covered joints.
#[inline(always)]
fn batches(
    n: usize,
    weight: f32,
    mask: Option<&[f32]>,
    covered: Option<&[u32]>,
    f: impl FnMut(&[usize; 4], &[f32; 4], usize),
) {
    match covered {
        Some(c) => batches_of(c.iter().map(|&j| j as usize).filter(|&j| j < n), weight, mask, f),
        None => batches_of(0..n, weight, mask, f),
    }
}

/// `batches` over the candidate joints `candidates` (all, or the precomputed covered ones).
#[inline(always)]
fn batches_of(
    candidates: impl Iterator<Item = usize>,
    weight: f32,
    mask: Option<&[f32]>,
    mut f: impl FnMut(&[usize; 4], &[f32; 4], usize),
) {
    let (mut joints, mut weights, mut len) = ([0usize; 4], [0.0f32; 4], 0);
    for j in candidates {
        let w = weight * mask.map_or(1.0, |m| m.get(j).copied().unwrap_or(0.0));
        if w <= 0.0 {
            continue;
        }
        (joints[len], weights[len]) = (j, w);
        len += 1;
        if len == 4 {
            f(&joints, &weights, 4);
            len = 0;
        }
    }
    if len > 0 {
        for k in len..4 {
            (joints[k], weights[k]) = (joints[0], 0.0);
        }
        f(&joints, &weights, len);
    }
}

/// Override: `out[j]` moves toward `layer[j]` by `weight × mask[j]` (lerp, shortest-path slerp,
/// renormalised), skipped at 0 and copied at 1.
pub fn override_pose(out: &mut [Transform], layer: &[Transform], weight: f32, mask: Option<&[f32]>) {
    override_joints(out, layer, weight, mask, None);
}

/// `override_pose` over the joints `covered` lists (the mask's non-zero entries), when known.
fn override_joints(
    out: &mut [Transform],
    layer: &[Transform],
    weight: f32,
    mask: Option<&[f32]>,
    covered: Option<&[u32]>,
) {
    let n = out.len().min(layer.len());
    batches(n, weight, mask, covered, |joints, weights, len| {
        let w = Vec4::from_array(*weights);
        // All four copied: no rotation to blend.
        let r = if w.cmpge(Vec4::ONE).all() {
            [Quat::IDENTITY; 4]
        } else {
            let a = quat_columns(joints.map(|j| out[j].rotation));
            let b = quat_columns(joints.map(|j| layer[j].rotation));
            column_quats(renormalise4(slerp4(a, b, w)))
        };
        for k in 0..len {
            let (j, w) = (joints[k], weights[k]);
            let (o, l) = (&mut out[j], &layer[j]);
            if w >= 1.0 {
                *o = *l;
                continue;
            }
            o.translation = o.translation.lerp(l.translation, w);
            o.scale = o.scale.lerp(l.scale, w);
            o.rotation = r[k];
        }
    });
}

/// Additive: `weight × mask[j]` of the layer's difference from its reference pose is applied
/// to `out[j]`: translation added, rotation multiplied (`out · slerp(1, ref⁻¹ · layer, w)`, in
/// the joint's own frame), scale multiplied (`out · lerp(1, layer / ref, w)`).
pub fn add_pose(
    out: &mut [Transform],
    layer: &[Transform],
    reference: &[Transform],
    weight: f32,
    mask: Option<&[f32]>,
) {
    add_joints(out, layer, reference, weight, mask, None);
}

/// `add_pose` over the joints `covered` lists (the mask's non-zero entries), when known.
fn add_joints(
    out: &mut [Transform],
    layer: &[Transform],
    reference: &[Transform],
    weight: f32,
    mask: Option<&[f32]>,
    covered: Option<&[u32]>,
) {
    let n = out.len().min(layer.len()).min(reference.len());
    let identity = [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE];
    batches(n, weight, mask, covered, |joints, weights, len| {
        let w = Vec4::from_array(*weights);
        let [rx, ry, rz, rw] = quat_columns(joints.map(|j| reference[j].rotation));
        let delta = quat_mul4([-rx, -ry, -rz, rw], quat_columns(joints.map(|j| layer[j].rotation)));
        let full = w.cmpge(Vec4::ONE);
        let d = if full.all() {
            delta
        } else {
            let part = slerp4(identity, delta, w);
            std::array::from_fn(|c| Vec4::select(full, delta[c], part[c]))
        };
        let q = column_quats(renormalise4(quat_mul4(quat_columns(joints.map(|j| out[j].rotation)), d)));
        for k in 0..len {
            let (j, w) = (joints[k], weights[k]);
            let (o, l, r) = (&mut out[j], &layer[j], &reference[j]);
            o.translation += (l.translation - r.translation) * w;
            // A zero reference scale gives no ratio: that axis keeps its scale.
            let s = l.scale / r.scale;
            let s = Vec3A::select(s.is_finite_mask(), s, Vec3A::ONE);
            o.scale *= Vec3A::ONE.lerp(s, w);
            o.rotation = q[k];
        }
    });
}

/// Layer 0 with a weight, mask or additive flag: its pose (in `pose`) laid over the rest pose
/// (`out` holds the rest pose on entry) like any layer.
pub fn apply_base(params: &LayerParams, pose: &[Transform], first_key: Option<&[Transform]>, out: &mut [Transform]) {
    let mask = params.mask.as_deref();
    match first_key {
        Some(r) if params.additive => add_pose(out, pose, r, params.weight, mask),
        _ => override_pose(out, pose, params.weight, mask),
    }
}
