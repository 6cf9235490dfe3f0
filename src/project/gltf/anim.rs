//! Skins and animation clips as raw keys (sampling lives with the animation code). Key times must be
//! strictly increasing and outputs must match inputs in count, so the sampler can trust them.
use super::Errors;
use super::accessor::{Ctx, Kind};
use super::scene::Scene;
use crate::project::model_data::{ChannelData, ChannelPath, ClipData, Interpolation, SkinData};
use gltf::json;
use gltf::json::animation::{Interpolation as GInterp, Property};
use gltf::json::validation::Checked;

const IDENTITY: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// Every skin of the file, in file order (so `node.skin` indices hold). A skin that fails leaves an
/// empty placeholder behind its recorded error.
pub(crate) fn skins(ctx: &Ctx, scene: &Scene, errs: &mut Errors) -> Vec<SkinData> {
    let mut out = Vec::with_capacity(ctx.root.skins.len());
    for (i, s) in ctx.root.skins.iter().enumerate() {
        let skin = errs.take(skin(ctx, scene, i, s));
        out.push(skin.unwrap_or(SkinData { name: String::new(), joints: Vec::new(), inverse_bind: Vec::new() }));
    }
    out
}

fn skin(ctx: &Ctx, scene: &Scene, i: usize, s: &json::Skin) -> Result<SkinData, String> {
    let path = format!("skins[{i}]");
    if s.joints.is_empty() {
        return Err(format!("{path}.joints: empty"));
    }
    let mut joints = Vec::with_capacity(s.joints.len());
    for (k, j) in s.joints.iter().enumerate() {
        let g = j.value();
        match scene.map.get(g).copied().flatten() {
            Some(n) => joints.push(n),
            None => return Err(format!("{path}.joints[{k}]: node {g} is not in the scene")),
        }
    }
    let inverse_bind = match s.inverse_bind_matrices {
        None => vec![IDENTITY; joints.len()],
        Some(a) => {
            let what = format!("{path}.inverseBindMatrices");
            let acc = ctx.read::<f32>(a.value(), &what, &[16], Kind::Float)?;
            if acc.count < joints.len() {
                return Err(format!("{what}: {} matrices for {} joints", acc.count, joints.len()));
            }
            if acc.values.iter().any(|v| !v.is_finite()) {
                return Err(format!("{what}: values are not finite"));
            }
            let mut m: Vec<[f32; 16]> = acc.arrays();
            m.truncate(joints.len());
            m
        }
    };
    Ok(SkinData { name: s.name.clone().unwrap_or_default(), joints, inverse_bind })
}

/// Every animation; channels that target nodes outside the scene are dropped.
pub(crate) fn animations(ctx: &Ctx, scene: &Scene, errs: &mut Errors) -> Vec<ClipData> {
    let mut out = Vec::with_capacity(ctx.root.animations.len());
    for (i, a) in ctx.root.animations.iter().enumerate() {
        // An empty name cannot be asked for by id, so it counts as none.
        let name = a.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("animation_{i}"));
        let mut channels = Vec::with_capacity(a.channels.len());
        for (c, ch) in a.channels.iter().enumerate() {
            if let Some(Some(ch)) = errs.take(channel(ctx, scene, a, (i, c), ch)) {
                channels.push(ch);
            }
        }
        let duration = channels.iter().filter_map(|c| c.times.last()).fold(0.0f32, |a, &b| a.max(b));
        out.push(ClipData { name, duration, channels });
    }
    out
}

fn channel(
    ctx: &Ctx,
    scene: &Scene,
    a: &json::Animation,
    (ai, ci): (usize, usize),
    ch: &json::animation::Channel,
) -> Result<Option<ChannelData>, String> {
    let path = format!("animations[{ai}].channels[{ci}]");
    let g = ch.target.node.value();
    let Some(node) = scene.map.get(g).copied().flatten() else { return Ok(None) };
    let si = ch.sampler.value();
    let sampler = a.samplers.get(si).ok_or_else(|| format!("{path}.sampler: sampler {si} does not exist"))?;
    let spath = format!("animations[{ai}].samplers[{si}]");
    let interpolation = match sampler.interpolation {
        Checked::Valid(GInterp::Step) => Interpolation::Step,
        Checked::Valid(GInterp::Linear) => Interpolation::Linear,
        Checked::Valid(GInterp::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => return Err(format!("{spath}.interpolation: invalid")),
    };
    let (cpath, components, kind) = match ch.target.path {
        Checked::Valid(Property::Translation) => (ChannelPath::Translation, 3, Kind::Float),
        Checked::Valid(Property::Rotation) => (ChannelPath::Rotation, 4, Kind::FloatOrNorm),
        Checked::Valid(Property::Scale) => (ChannelPath::Scale, 3, Kind::Float),
        Checked::Valid(Property::MorphTargetWeights) => {
            let n = morph_target_count(ctx, g)
                .ok_or_else(|| format!("{path}.target: node {g} has no mesh with morph targets"))?;
            (ChannelPath::Weights, n, Kind::FloatOrNorm)
        }
        Checked::Invalid => return Err(format!("{path}.target.path: invalid")),
    };
    let input = ctx.read::<f32>(sampler.input.value(), &format!("{spath}.input"), &[1], Kind::Float)?;
    let times = input.values;
    if times.iter().any(|t| !t.is_finite()) {
        return Err(format!("{spath}.input: times are not finite"));
    }
    for (k, w) in times.windows(2).enumerate() {
        if w[1] <= w[0] {
            return Err(format!("{spath}.input[{}]: time {} does not increase (after {})", k + 1, w[1], w[0]));
        }
    }
    let dims: &[usize] = if cpath == ChannelPath::Weights { &[1] } else { &[components] };
    let output = ctx.read::<f32>(sampler.output.value(), &format!("{spath}.output"), dims, kind)?;
    let per_key = if interpolation == Interpolation::CubicSpline { 3 * components } else { components };
    if output.values.len() != times.len() * per_key {
        return Err(format!(
            "{spath}.output: {} values, expected {} ({} keys x {per_key})",
            output.values.len(),
            times.len() * per_key,
            times.len()
        ));
    }
    if output.values.iter().any(|v| !v.is_finite()) {
        return Err(format!("{spath}.output: values are not finite"));
    }
    Ok(Some(ChannelData { node, path: cpath, interpolation, times, values: output.values, components }))
}

/// How many morph targets the node's mesh has (the number of weights per key).
fn morph_target_count(ctx: &Ctx, g: usize) -> Option<usize> {
    let mesh = ctx.root.meshes.get(ctx.root.nodes.get(g)?.mesh?.value())?;
    let n = mesh.primitives.first()?.targets.as_ref()?.len();
    (n > 0).then_some(n)
}
