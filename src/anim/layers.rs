//! Animation layers (layers.md §1): layers 1–7 over Defold's single animation (layer 0). Each
//! layer is a full [`ModelPlayer`] (own clip, cursor, playback, rate and cross-fade) plus how it
//! covers the pose below: a weight (with a linear fade), a per-joint mask, override or additive.
//! The pose kernels are the skeleton's (sample into the layer's buffers, then blend into the
//! result so far); every buffer is allocated when the layer is first used, none per frame.
use super::clip::Clip;
use super::player::{ModelPlayer, PoseScratch};
use super::skeleton::{RigError, Skeleton, need};
use super::transform::{Transform, blend_locals, slerp};
use glam::{Quat, Vec3A};
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
        }
    }

    /// Whether the layer changes the pose at all (an animation and a weight above 0).
    pub fn is_active(&self) -> bool {
        self.player.animation().is_some() && (self.params.weight > 0.0 || self.params.fade.is_some())
    }

    /// Samples the layer and blends it into `out_locals` / `out_weights` (the result of the
    /// layers below). `first_keys[c]` is clip `c`'s pose at its first key (the rest pose under
    /// it): the reference of an additive layer. A layer that starts with `blend_duration` on a
    /// layer that had no animation fades in over the layers below (not from the rest pose).
    pub fn apply(
        &mut self,
        clips: &[Clip],
        first_keys: &[Vec<Transform>],
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
        self.player.pose_from(
            clips,
            skeleton,
            &mut self.scratch,
            fade_in.is_none(),
            &mut self.locals,
            &mut self.weights,
        )?;
        let out = &mut out_locals[..n];
        if self.params.additive {
            let reference = |c: usize| first_keys.get(c).filter(|r| r.len() >= n);
            let Some(r) = reference(cur) else { return Ok(()) };
            self.refs[..n].copy_from_slice(&r[..n]);
            if fade_in.is_none()
                && let (Some(prev), Some(b)) = (self.player.previous_animation(), self.player.blend_weight())
            {
                let from = reference(prev).map_or(skeleton.rest(), |v| v.as_slice());
                blend_locals(&from[..n], &mut self.refs[..n], b);
            }
            add_pose(out, &self.locals[..n], &self.refs[..n], weight, self.params.mask.as_deref());
        } else {
            override_pose(out, &self.locals[..n], weight, self.params.mask.as_deref());
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

/// Override: `out[j]` moves toward `layer[j]` by `weight × mask[j]` (lerp, shortest-path slerp,
/// renormalised), skipped at 0 and copied at 1.
pub fn override_pose(out: &mut [Transform], layer: &[Transform], weight: f32, mask: Option<&[f32]>) {
    for (j, (o, l)) in out.iter_mut().zip(layer).enumerate() {
        let w = weight * mask.map_or(1.0, |m| m.get(j).copied().unwrap_or(0.0));
        if w <= 0.0 {
            continue;
        }
        if w >= 1.0 {
            *o = *l;
            continue;
        }
        o.translation = o.translation.lerp(l.translation, w);
        o.scale = o.scale.lerp(l.scale, w);
        let r = slerp(o.rotation, l.rotation, w);
        o.rotation = r * (1.5 - 0.5 * r.length_squared());
    }
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
    for (j, ((o, l), r)) in out.iter_mut().zip(layer).zip(reference).enumerate() {
        let w = weight * mask.map_or(1.0, |m| m.get(j).copied().unwrap_or(0.0));
        if w <= 0.0 {
            continue;
        }
        o.translation += (l.translation - r.translation) * w;
        // A zero reference scale gives no ratio: that axis keeps its scale.
        let s = l.scale / r.scale;
        let s = Vec3A::select(s.is_finite_mask(), s, Vec3A::ONE);
        o.scale *= Vec3A::ONE.lerp(s, w);
        let delta = r.rotation.conjugate() * l.rotation;
        let d = if w >= 1.0 { delta } else { slerp(Quat::IDENTITY, delta, w) };
        let q = o.rotation * d;
        o.rotation = q * (1.5 - 0.5 * q.length_squared());
    }
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
