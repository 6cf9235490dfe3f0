//! Layers and IK (layers.md §1–2) against straightforward implementations: the layer blend
//! written per joint with glam (`Quat::slerp`, plain lerps) on poses sampled directly from the
//! clips, and IK checked by its geometric promise (end effector on the target, pole side, aim
//! axis) on generated arms.
use super::clip::{Clip, SamplingCache, TrackSelection};
use super::ik::{Aim, Chain, TwoBone};
use super::layers::{AdditiveRefs, Layer, LayerParams, add_pose, subtree_mask};
use super::player::{ModelPlayer, PoseScratch};
use super::skeleton::Skeleton;
use super::transform::Transform;
use super::tween::Playback;
use crate::project::model_data::{ChannelData, ChannelPath, ClipData, Interpolation, ModelData, NodeData};
use glam::{Mat4, Quat, Vec3, Vec3A};

const DT: f32 = 0.25;

fn node(name: &str, parent: Option<usize>, t: [f32; 3], r: Quat) -> NodeData {
    NodeData { name: name.into(), parent, translation: t, rotation: r.to_array(), scale: [1.0; 3], gltf_index: 0 }
}

/// root ─ spine ─ arm_a ─ arm_b ─ hand, and root ─ leg. Three 1 s clips keyed at quarters,
/// moving every joint's translation, rotation and scale differently per clip.
fn model() -> ModelData {
    let nodes = vec![
        node("root", None, [0.0, 1.0, 0.0], Quat::IDENTITY),
        node("spine", Some(0), [0.0, 0.5, 0.0], Quat::from_rotation_z(0.1)),
        node("arm_a", Some(1), [0.3, 0.2, 0.0], Quat::from_rotation_x(-0.2)),
        node("arm_b", Some(2), [0.0, -0.4, 0.0], Quat::IDENTITY),
        node("hand", Some(3), [0.0, -0.3, 0.0], Quat::IDENTITY),
        node("leg", Some(0), [0.1, -0.5, 0.0], Quat::IDENTITY),
    ];
    let times: Vec<f32> = (0..=4).map(|k| k as f32 * 0.25).collect();
    let animations = (0..3)
        .map(|c| {
            let mut channels = Vec::new();
            for n in 0..nodes.len() {
                let f = (c * 7 + n * 3) as f32;
                let (mut t, mut r, mut s) = (Vec::new(), Vec::new(), Vec::new());
                for &time in &times {
                    let w = (std::f32::consts::TAU * time + f).sin();
                    t.extend([0.1 * w, 0.5 + 0.05 * w * f.cos(), -0.1 * w]);
                    let axis = Vec3::new(f.sin(), 1.0, f.cos()).normalize();
                    r.extend(Quat::from_axis_angle(axis, 0.8 * w + 0.1 * f).to_array());
                    s.extend([1.0 + 0.1 * w; 3]);
                }
                for (path, values, components) in
                    [(ChannelPath::Translation, t, 3), (ChannelPath::Rotation, r, 4), (ChannelPath::Scale, s, 3)]
                {
                    let interpolation = Interpolation::Linear;
                    channels.push(ChannelData {
                        node: n,
                        path,
                        interpolation,
                        times: times.clone(),
                        values,
                        components,
                    });
                }
            }
            ClipData { name: format!("c{c}"), duration: 1.0, channels }
        })
        .collect();
    ModelData { nodes, animations, ..Default::default() }
}

struct Fixture {
    skeleton: Skeleton,
    clips: Vec<Clip>,
    first_keys: Vec<Vec<Transform>>,
    /// The first keys and the difference clips, as a rig makes them.
    refs: AdditiveRefs,
    /// The first keys alone: additive layers take the general path.
    plain: AdditiveRefs,
}

fn fixture() -> Fixture {
    let m = model();
    let skeleton = Skeleton::new(&m).unwrap();
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let first_keys: Vec<Vec<Transform>> = (0..clips.len()).map(|c| sampled(&skeleton, &clips, c, 0.0)).collect();
    let refs = AdditiveRefs::new(&skeleton, &clips).unwrap();
    assert_eq!(refs.first_keys, first_keys);
    assert!((0..clips.len()).all(|c| refs.difference(c).is_some()));
    let plain = AdditiveRefs::first_keys_only(first_keys.clone());
    Fixture { skeleton, clips, first_keys, refs, plain }
}

/// Rest pose with clip `c` sampled at `t` over it.
fn sampled(sk: &Skeleton, clips: &[Clip], c: usize, t: f32) -> Vec<Transform> {
    let mut locals = sk.rest().to_vec();
    let mut cache = SamplingCache::new(&clips[c]);
    clips[c].sample(t, &mut cache, &mut locals, &mut []).unwrap();
    locals
}

/// The straightforward override: per joint lerp / glam slerp by weight × mask.
fn reference_override(base: &[Transform], layer: &[Transform], w: f32, mask: Option<&[f32]>) -> Vec<Transform> {
    base.iter()
        .zip(layer)
        .enumerate()
        .map(|(j, (b, l))| {
            let k = w * mask.map_or(1.0, |m| m[j]);
            Transform {
                translation: b.translation.lerp(l.translation, k),
                rotation: b.rotation.slerp(l.rotation, k).normalize(),
                scale: b.scale.lerp(l.scale, k),
            }
        })
        .collect()
}

/// The straightforward additive: difference from the reference pose, scaled by weight × mask.
fn reference_additive(
    base: &[Transform],
    layer: &[Transform],
    r: &[Transform],
    w: f32,
    mask: Option<&[f32]>,
) -> Vec<Transform> {
    (0..base.len())
        .map(|j| {
            let k = w * mask.map_or(1.0, |m| m[j]);
            let delta = r[j].rotation.inverse() * layer[j].rotation;
            Transform {
                translation: base[j].translation + (layer[j].translation - r[j].translation) * k,
                rotation: (base[j].rotation * Quat::IDENTITY.slerp(delta, k)).normalize(),
                // A zero reference scale gives no ratio: that axis keeps its scale.
                scale: base[j].scale * Vec3A::ONE.lerp(finite_or_one(layer[j].scale / r[j].scale), k),
            }
        })
        .collect()
}

fn finite_or_one(v: Vec3A) -> Vec3A {
    Vec3A::select(v.is_finite_mask(), v, Vec3A::ONE)
}

fn assert_pose_eq(got: &[Transform], want: &[Transform], what: &str) {
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        let dr = (g.rotation - w.rotation).length().min((g.rotation + w.rotation).length());
        assert!(
            g.translation.abs_diff_eq(w.translation, 1e-5) && g.scale.abs_diff_eq(w.scale, 1e-5) && dr < 2e-5,
            "{what}: joint {j}: {g:?} vs {w:?}"
        );
    }
}

/// Base (layer 0) pose of clip 0 at `t`.
fn base(f: &Fixture, t: f32) -> Vec<Transform> {
    sampled(&f.skeleton, &f.clips, 0, t)
}

#[test]
fn override_and_additive_layers_match_the_straightforward_blend() {
    let f = fixture();
    let sk = &f.skeleton;
    let arm = subtree_mask(sk, &[2]);
    assert_eq!(&*arm, &[0.0, 0.0, 1.0, 1.0, 1.0, 0.0], "the mask covers arm_a and its descendants");
    let two = subtree_mask(sk, &[2, 5]);
    assert_eq!(&*two, &[0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    for (additive, refs) in [(false, &f.refs), (true, &f.refs), (true, &f.plain)] {
        for mask in [None, Some(arm.clone()), Some(two.clone())] {
            for weight in [0.0, 0.5, 1.0] {
                let mut layer = Layer::new(sk, &f.clips);
                layer.player.play(1, Playback::LoopForward, 0.0, 0.0, 1.0);
                layer.params.mask = mask.clone();
                layer.params.additive = additive;
                layer.params.set_weight(weight, 0.0);
                for _ in 0..3 {
                    layer.player.update(DT);
                }
                let mut out = base(&f, 0.4);
                layer.apply(&f.clips, refs, sk, &mut out, &mut []).unwrap();
                let lp = sampled(sk, &f.clips, 1, 0.75);
                let m = mask.as_deref();
                let want = if additive {
                    reference_additive(&base(&f, 0.4), &lp, &f.first_keys[1], weight, m)
                } else {
                    reference_override(&base(&f, 0.4), &lp, weight, m)
                };
                assert_pose_eq(&out, &want, &format!("additive {additive}, mask {mask:?}, weight {weight}"));
                if let Some(m) = &mask {
                    for (j, o) in out.iter().enumerate().filter(|(j, _)| m[*j] == 0.0) {
                        assert_eq!(*o, base(&f, 0.4)[j], "unmasked joint {j} untouched");
                    }
                }
            }
        }
    }
}

/// The layer kernels skip unmasked joints, sample only covered ones and blend four rotations
/// at a time: over random fractional masks, weights and times (cross-fades inside the layer
/// included) the result is the straightforward per-joint evaluation on fully sampled poses,
/// and a joint the mask leaves out is bit for bit the pose below.
#[test]
fn optimised_layers_match_the_straightforward_evaluation() {
    let f = fixture();
    let sk = &f.skeleton;
    let n = sk.node_count();
    let mut seed = 0x9e37_79b9u32;
    let random_mask = |seed: &mut u32| -> std::sync::Arc<[f32]> {
        (0..n).map(|_| if rnd(seed) < 0.35 { 0.0 } else { rnd(seed) }).collect()
    };
    // One layer throughout, and masks kept for a few cases, so the selection a masked layer
    // keeps is reused and rebuilt (new mask, new clip) as play_anim calls change them.
    let mut layer = Layer::new(sk, &f.clips);
    let mut masks = [random_mask(&mut seed), random_mask(&mut seed)];
    for case in 0..400 {
        if case % 12 == 11 {
            masks = [random_mask(&mut seed), random_mask(&mut seed)];
        }
        let additive = case % 2 == 1;
        let mask = match case % 3 {
            0 => None,
            k => Some(masks[k - 1].clone()),
        };
        let weight = [0.0, 1.0, rnd(&mut seed), rnd(&mut seed)][(case / 2) % 4];
        let (clip, t0, dt) = (1 + (case / 3) % 2, rnd(&mut seed), 0.05 + 0.3 * rnd(&mut seed));
        layer.player.play(clip, Playback::LoopForward, 0.0, t0, 1.0);
        layer.params.mask = mask.clone();
        layer.params.additive = additive;
        layer.params.set_weight(weight, 0.0);
        layer.player.update(dt);
        let blend = case % 5 == 0;
        if blend {
            layer.player.play(3 - clip, Playback::LoopForward, 1.0, 0.5, 1.0);
            layer.player.update(0.3);
        }
        let below = base(&f, rnd(&mut seed));
        let mut out = below.clone();
        // Additive layers through the difference clips and through the general path.
        let refs = if case % 7 < 4 { &f.refs } else { &f.plain };
        layer.apply(&f.clips, refs, sk, &mut out, &mut []).unwrap();

        let t = layer.player.time();
        let cur = layer.player.animation().unwrap();
        let mut lp = sampled(sk, &f.clips, cur, t);
        let mut r = f.first_keys[cur].clone();
        if blend {
            let mut from = ModelPlayer::new(&f.clips);
            from.play(clip, Playback::LoopForward, 0.0, t0, 1.0);
            from.update(dt + 0.3);
            let prev = sampled(sk, &f.clips, clip, from.time());
            lp = reference_override(&prev, &lp, 0.3, None);
            r = reference_override(&f.first_keys[clip], &r, 0.3, None);
        }
        let m = mask.as_deref();
        let want = if additive {
            reference_additive(&below, &lp, &r, weight, m)
        } else {
            reference_override(&below, &lp, weight, m)
        };
        assert_pose_eq(&out, &want, &format!("case {case}: additive {additive}, mask {m:?}, weight {weight}"));
        // The additive kernel composes unit rotations without renormalising: they stay unit.
        for (j, o) in out.iter().enumerate() {
            let len = o.rotation.length();
            assert!((len - 1.0).abs() < 1e-5, "case {case}: joint {j} rotation length {len}");
        }
        for j in 0..n {
            if weight * m.map_or(1.0, |m| m[j]) <= 0.0 {
                assert_eq!(out[j], below[j], "case {case}: joint {j} is not covered");
            }
        }
    }
}

#[test]
fn masked_sampling_writes_exactly_the_covered_joints() {
    let f = fixture();
    let sk = &f.skeleton;
    let mask = [0.0, 0.5, 1.0, 0.0, 0.2, 0.0];
    let mut sel = TrackSelection::default();
    for c in 0..f.clips.len() {
        for k in 0..20 {
            let t = k as f32 * 0.06;
            let full = sampled(sk, &f.clips, c, t);
            let mut got = sk.rest().to_vec();
            let mut cache = SamplingCache::new(&f.clips[c]);
            f.clips[c].sample_masked(t, &mut cache, &mask, &mut got, &mut []).unwrap();
            let mut selected = sk.rest().to_vec();
            f.clips[c].select(&mask, &mut sel);
            f.clips[c].sample_selected(t, &mut cache, &sel, &mut selected, &mut []).unwrap();
            for j in 0..sk.node_count() {
                let want = if mask[j] > 0.0 { full[j] } else { sk.rest()[j] };
                assert_eq!(got[j], want, "clip {c} at {t}: joint {j}");
                assert_eq!(selected[j], want, "clip {c} at {t}: joint {j}, through a selection");
            }
        }
    }
}

#[test]
fn each_layer_has_its_own_playback_mode() {
    let f = fixture();
    // 1.25 s into a 1 s clip, per mode: the clip time the layer must show.
    let cases = [
        (Playback::None, 0.0),
        (Playback::OnceForward, 1.0),
        (Playback::OnceBackward, 0.0),
        (Playback::OncePingpong, 0.75),
        (Playback::LoopForward, 0.25),
        (Playback::LoopBackward, 0.75),
        (Playback::LoopPingpong, 0.75),
    ];
    for (mode, t) in cases {
        let mut layer = Layer::new(&f.skeleton, &f.clips);
        layer.player.play(2, mode, 0.0, 0.0, 1.0);
        let mut l0 = ModelPlayer::new(&f.clips);
        l0.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
        for _ in 0..5 {
            layer.player.update(DT);
            l0.update(DT);
        }
        // Layer 0 runs independently: its own cursor.
        assert_eq!(l0.cursor(), 0.25);
        let mut out = base(&f, l0.time());
        layer.apply(&f.clips, &f.refs, &f.skeleton, &mut out, &mut []).unwrap();
        assert_pose_eq(&out, &sampled(&f.skeleton, &f.clips, 2, t), &format!("{mode:?}"));
    }
    // Rate per layer.
    let mut layer = Layer::new(&f.skeleton, &f.clips);
    layer.player.play(2, Playback::LoopForward, 0.0, 0.0, 0.5);
    layer.player.update(DT);
    assert_eq!(layer.player.time(), 0.125);
}

#[test]
fn cross_fade_inside_a_layer_and_fade_in_over_the_layers_below() {
    let f = fixture();
    let sk = &f.skeleton;
    let mut layer = Layer::new(sk, &f.clips);
    layer.player.play(1, Playback::LoopForward, 0.0, 0.0, 1.0);
    layer.params.set_weight(0.5, 0.0);
    layer.player.update(0.5);
    layer.player.play(2, Playback::LoopForward, 1.0, 0.0, 1.0);
    layer.player.update(DT);
    let mut out = base(&f, 0.1);
    layer.apply(&f.clips, &f.refs, sk, &mut out, &mut []).unwrap();
    // Inside the layer: 25 % of the way from clip 1 (at 0.75 s) to clip 2 (at 0.25 s).
    let inside = reference_override(&sampled(sk, &f.clips, 1, 0.75), &sampled(sk, &f.clips, 2, 0.25), 0.25, None);
    assert_pose_eq(&out, &reference_override(&base(&f, 0.1), &inside, 0.5, None), "cross-fade in a layer");

    // A first animation with blend_duration on an empty layer fades in over layer 0.
    let mut layer = Layer::new(sk, &f.clips);
    layer.player.play(1, Playback::LoopForward, 1.0, 0.0, 1.0);
    layer.player.update(DT);
    let mut out = base(&f, 0.1);
    layer.apply(&f.clips, &f.refs, sk, &mut out, &mut []).unwrap();
    let want = reference_override(&base(&f, 0.1), &sampled(sk, &f.clips, 1, 0.25), 0.25, None);
    assert_pose_eq(&out, &want, "fade-in from the layers below");
}

#[test]
fn layer_weight_fades_linearly() {
    let mut p = LayerParams::default();
    assert!(p.is_plain());
    p.set_weight(0.0, 1.0);
    p.update(0.25);
    assert_eq!(p.weight(), 0.75);
    p.update(0.5);
    assert_eq!(p.weight(), 0.25);
    p.update(10.0);
    assert_eq!(p.weight(), 0.0);
    p.set_weight(f32::NAN, 0.0);
    assert_eq!(p.weight(), 0.0);
    p.set_weight(7.0, f32::INFINITY);
    assert_eq!(p.weight(), 1.0);
}

#[test]
fn an_additive_layer_at_its_first_key_changes_nothing() {
    let f = fixture();
    let b = base(&f, 0.3);
    let mut out = b.clone();
    add_pose(&mut out, &f.first_keys[1], &f.first_keys[1], 1.0, None);
    assert_pose_eq(&out, &b, "zero delta");
}

/// `ref⁻¹ · pose`, `pose − ref`, `pose / ref` (1 where not finite) per joint: what a difference
/// clip must sample to.
fn reference_difference(pose: &[Transform], r: &[Transform]) -> Vec<Transform> {
    pose.iter()
        .zip(r)
        .map(|(l, r)| Transform {
            translation: l.translation - r.translation,
            rotation: r.rotation.conjugate() * l.rotation,
            scale: finite_or_one(l.scale / r.scale),
        })
        .collect()
}

/// A difference clip, added at weight 1 to the identity pose, is the clip's sample minus its
/// reference (within 1e-5 on translation and scale, 2e-6 on rotation components) at random
/// times: for the LINEAR key-major groups, and for STEP and CUBICSPLINE tracks and a reference
/// scale of 0 in `interpolations_model`.
#[test]
fn a_difference_clip_samples_to_the_difference_from_its_reference() {
    let mut seed = 0x51ed_2701u32;
    for m in [model(), interpolations_model()] {
        let skeleton = Skeleton::new(&m).unwrap();
        let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
        let refs = AdditiveRefs::new(&skeleton, &clips).unwrap();
        for (c, clip) in clips.iter().enumerate() {
            let diff = refs.difference(c).expect("a difference clip");
            let mut cache = SamplingCache::new(diff);
            for _ in 0..200 {
                let t = 1.2 * rnd(&mut seed) - 0.1;
                let want = reference_difference(&sampled(&skeleton, &clips, c, t), &refs.first_keys[c]);
                let mut got = vec![Transform::IDENTITY; skeleton.node_count()];
                diff.add_difference(t, &mut cache, 1.0, None, &mut got).unwrap();
                for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                    let dr = (g.rotation - w.rotation).length().min((g.rotation + w.rotation).length());
                    assert!(
                        g.translation.abs_diff_eq(w.translation, 1e-5)
                            && g.scale.abs_diff_eq(w.scale, 1e-5)
                            && dr < 2e-6,
                        "clip {c} ({}) at {t}: joint {j}: {g:?} vs {w:?}",
                        clip.name()
                    );
                }
            }
        }
        // A plain clip is refused rather than added as if it were a difference.
        let mut out = vec![Transform::IDENTITY; skeleton.node_count()];
        assert!(clips[0].add_difference(0.1, &mut SamplingCache::new(&clips[0]), 1.0, None, &mut out).is_err());
    }
    // A property keyed by two channels (the later wins) gets no difference clip.
    let mut m = model();
    let dup = m.animations[0].channels[1].clone();
    m.animations[0].channels.push(dup);
    let skeleton = Skeleton::new(&m).unwrap();
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let refs = AdditiveRefs::new(&skeleton, &clips).unwrap();
    assert!(refs.difference(0).is_none() && refs.difference(1).is_some());
}

/// Layers blended straight from the keys (masked override, additive) on a clip of STEP,
/// CUBICSPLINE and LINEAR tracks that leaves most properties unkeyed (the layer's pose holds
/// the rest value there): the straightforward evaluation on the sampled pose, at random
/// fractional masks, weights and times.
#[test]
fn per_track_layer_blends_match_the_straightforward_evaluation_on_mixed_tracks() {
    let m = interpolations_model();
    let sk = Skeleton::new(&m).unwrap();
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &sk).unwrap()).collect();
    let refs = AdditiveRefs::new(&sk, &clips).unwrap();
    let below_clip: Vec<Clip> = model().animations.iter().map(|a| Clip::new(a, &sk).unwrap()).collect();
    let mut seed = 0x7f4a_7c15u32;
    let mut layer = Layer::new(&sk, &clips);
    for case in 0..200 {
        let mask: std::sync::Arc<[f32]> =
            (0..sk.node_count()).map(|_| if rnd(&mut seed) < 0.3 { 0.0 } else { 0.2 + 0.8 * rnd(&mut seed) }).collect();
        let additive = case % 2 == 1;
        let weight = [1.0, rnd(&mut seed)][(case / 2) % 2];
        layer.player.play(0, Playback::LoopForward, 0.0, rnd(&mut seed), 1.0);
        layer.player.update(0.1);
        layer.params.mask = Some(mask.clone());
        layer.params.additive = additive;
        layer.params.set_weight(weight, 0.0);
        let below = sampled(&sk, &below_clip, 0, rnd(&mut seed));
        let mut out = below.clone();
        layer.apply(&clips, &refs, &sk, &mut out, &mut []).unwrap();
        let lp = sampled(&sk, &clips, 0, layer.player.time());
        let want = if additive {
            reference_additive(&below, &lp, &refs.first_keys[0], weight, Some(&mask))
        } else {
            reference_override(&below, &lp, weight, Some(&mask))
        };
        assert_pose_eq(&out, &want, &format!("case {case}: additive {additive}, weight {weight}"));
    }
}

/// The arm of `model` with one clip of STEP and CUBICSPLINE channels on translation, rotation
/// and scale, and a leg whose scale is 0 on x at the first key.
fn interpolations_model() -> ModelData {
    let mut m = model();
    let times: Vec<f32> = (0..=4).map(|k| k as f32 * 0.25).collect();
    let mut seed = 0x2545_f491u32;
    let mut r = move || rnd(&mut seed) - 0.5;
    let q = |a: f32, b: f32| Quat::from_euler(glam::EulerRot::YXZ, a, b, 0.5 * a).to_array();
    let cubic = |value: &mut dyn FnMut(usize) -> Vec<f32>, r: &mut dyn FnMut() -> f32| -> Vec<f32> {
        let mut v = Vec::new();
        for k in 0..times.len() {
            let c = value(k).len();
            v.extend((0..c).map(|_| r()));
            v.extend(value(k));
            v.extend((0..c).map(|_| r()));
        }
        v
    };
    let ch = |node, path, interpolation, values: Vec<f32>, components| ChannelData {
        node,
        path,
        interpolation,
        times: times.clone(),
        values,
        components,
    };
    let (lin, step, cub) = (Interpolation::Linear, Interpolation::Step, Interpolation::CubicSpline);
    let mut channels = vec![
        ch(0, ChannelPath::Rotation, step, (0..5).flat_map(|k| q(k as f32 * 0.9, 0.3)).collect(), 4),
        ch(0, ChannelPath::Translation, step, (0..15).map(|i| i as f32 * 0.1).collect(), 3),
        ch(3, ChannelPath::Scale, step, (0..15).map(|i| 1.0 + i as f32 * 0.05).collect(), 3),
        ch(5, ChannelPath::Scale, lin, (0..15).map(|i| if i == 0 { 0.0 } else { 1.0 + i as f32 * 0.1 }).collect(), 3),
    ];
    channels.push(ch(1, ChannelPath::Rotation, cub, cubic(&mut |k| q(k as f32 * 0.7, -0.2).to_vec(), &mut r), 4));
    let mut t = |k: usize| vec![k as f32 * 0.2, 0.5, -(k as f32) * 0.1];
    channels.push(ch(2, ChannelPath::Translation, cub, cubic(&mut t, &mut r), 3));
    let mut s = |k: usize| vec![1.0 + k as f32 * 0.1, 0.8, 1.2 - k as f32 * 0.05];
    channels.push(ch(4, ChannelPath::Scale, cub, cubic(&mut s, &mut r), 3));
    m.animations = vec![ClipData { name: "interpolations".into(), duration: 1.0, channels }];
    m
}

/// The full pose → model → IK → model pipeline on an arm, with a pseudo-random generator.
struct Arm {
    sk: Skeleton,
    locals: Vec<Transform>,
    model: Vec<Mat4>,
    chain: TwoBone,
    reach: f32,
}

fn rnd(seed: &mut u32) -> f32 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 17;
    *seed ^= *seed << 5;
    (*seed >> 8) as f32 / (1u32 << 24) as f32
}

/// A "shoulder" with a random rotation holding a two-segment arm of random lengths, bent a
/// little in its rest pose.
fn arm(seed: &mut u32) -> Arm {
    let axis = Vec3::new(rnd(seed) - 0.5, rnd(seed) - 0.5, rnd(seed) - 0.5 + 0.01).normalize();
    let (l1, l2) = (0.2 + rnd(seed), 0.2 + rnd(seed));
    let nodes = vec![
        node("shoulder", None, [0.1, 1.4, -0.2], Quat::from_axis_angle(axis, rnd(seed) * 3.0)),
        node("upper", Some(0), [0.2, 0.0, 0.0], Quat::from_rotation_z(0.3 * rnd(seed))),
        node("lower", Some(1), [0.0, -l1, 0.0], Quat::from_rotation_x(0.5 * rnd(seed))),
        node("hand", Some(2), [0.0, -l2, 0.0], Quat::IDENTITY),
    ];
    let m = ModelData { nodes, ..Default::default() };
    let sk = Skeleton::new(&m).unwrap();
    let locals = sk.rest().to_vec();
    let mut model = vec![Mat4::IDENTITY; 4];
    sk.local_to_model(&locals, &mut model).unwrap();
    let chain = TwoBone { root: 1, mid: 2, end: 3, pole: Vec3::new(0.0, 0.0, -1.0) };
    Arm { sk, locals, model, chain, reach: l1 + l2 }
}

impl Arm {
    fn solve(&mut self, target: Vec3) -> bool {
        let ok = Chain::TwoBone(self.chain).solve(&self.sk, &self.model, &mut self.locals, target, 1.0);
        self.sk.local_to_model(&self.locals, &mut self.model).unwrap();
        ok
    }
    fn at(&self, n: usize) -> Vec3 {
        self.model[n].w_axis.truncate()
    }
}

#[test]
fn two_bone_reaches_a_thousand_random_targets() {
    let mut seed = 0x9e37_79b9u32;
    let mut worst = 0.0f32;
    for _ in 0..1000 {
        let mut a = arm(&mut seed);
        let (pa, pb, pc) = (a.at(1), a.at(2), a.at(3));
        let (l1, l2) = ((pb - pa).length(), (pc - pb).length());
        let dir = Vec3::new(rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5).normalize();
        let min = (l1 - l2).abs();
        let d = min + (a.reach - min) * rnd(&mut seed);
        let target = pa + dir * d;
        assert!(a.solve(target));
        let err = (a.at(3) - target).length() / a.reach;
        worst = worst.max(err);
        // Segment lengths kept.
        assert!(((a.at(2) - a.at(1)).length() - l1).abs() < 1e-5 * a.reach);
        assert!(((a.at(3) - a.at(2)).length() - l2).abs() < 1e-5 * a.reach);
        assert!(a.model.iter().all(|m| m.is_finite()));
    }
    println!("two-bone: worst end-effector error {worst:.2e} × chain length over 1,000 targets");
    assert!(worst < 1e-4, "worst error {worst} × chain length");
}

#[test]
fn two_bone_points_straight_at_an_unreachable_target_and_bends_toward_the_pole() {
    let mut seed = 0x1234_5677u32;
    for _ in 0..200 {
        let mut a = arm(&mut seed);
        let pa = a.at(1);
        let dir = Vec3::new(rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5).normalize();
        // Unreachable: the chain lies straight along the root–target line, fully extended.
        let target = pa + dir * a.reach * (1.2 + rnd(&mut seed));
        assert!(a.solve(target));
        let (b, c) = (a.at(2) - pa, a.at(3) - pa);
        assert!(b.normalize().angle_between(dir) < 1e-3, "middle on the line");
        assert!(c.normalize().angle_between(dir) < 1e-3, "end on the line");
        assert!((c.length() - a.reach).abs() < 1e-4 * a.reach);
        // Reachable and clearly bent: the middle joint lies on the pole's side of the line.
        let (l1, l2) = ((a.at(2) - pa).length(), (a.at(3) - a.at(2)).length());
        let target = pa + dir * ((l1 - l2).abs() + a.reach) / 2.0;
        assert!(a.solve(target));
        let pole = a.chain.pole - dir * a.chain.pole.dot(dir);
        if pole.length() > 0.1 {
            let b = a.at(2) - pa;
            let side = b - dir * b.dot(dir);
            assert!(side.normalize().dot(pole.normalize()) > 0.999, "bent toward the pole");
        }
    }
}

#[test]
fn degenerate_targets_leave_the_pose_unchanged() {
    let mut seed = 7u32;
    let mut a = arm(&mut seed);
    let before = a.locals.clone();
    for target in [a.at(1), Vec3::NAN, Vec3::INFINITY] {
        assert!(!a.solve(target), "{target}");
        assert_eq!(a.locals, before);
    }
    // Weight 0 changes nothing either; weight NaN counts as 0.
    let target = a.at(1) + Vec3::X * 0.3;
    let c = Chain::TwoBone(a.chain);
    assert!(!c.solve(&a.sk, &a.model, &mut a.locals, target, 0.0));
    assert!(!c.solve(&a.sk, &a.model, &mut a.locals, target, f32::NAN));
    assert_eq!(a.locals, before);
    let aim = Chain::Aim(Aim { joint: 3, forward: Vec3::Z, up: Vec3::Y });
    let on_joint = a.at(3);
    assert!(!aim.solve(&a.sk, &a.model, &mut a.locals, on_joint, 1.0));
    assert_eq!(a.locals, before);
}

#[test]
fn aim_points_the_forward_axis_at_the_target() {
    let mut seed = 0xdead_beefu32;
    let mut worst = 0.0f32;
    for _ in 0..1000 {
        let mut a = arm(&mut seed);
        let forward = Vec3::new(rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5).normalize();
        let up = forward.any_orthonormal_vector();
        let aim = Chain::Aim(Aim { joint: 2, forward, up });
        let p = a.at(2);
        let dir = Vec3::new(rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5, rnd(&mut seed) - 0.5).normalize();
        let target = p + dir * (0.1 + 3.0 * rnd(&mut seed));
        assert!(aim.solve(&a.sk, &a.model, &mut a.locals, target, 1.0));
        a.sk.local_to_model(&a.locals, &mut a.model).unwrap();
        let m = a.model[2];
        let axis = m.transform_vector3(forward).normalize();
        // atan2 of sine and cosine: acos near 1 cannot resolve angles under 5e-4 rad in f32.
        let want = (target - p).normalize();
        worst = worst.max(axis.cross(want).length().atan2(axis.dot(want)));
        // Up as close to the model's +Y as the aim allows: in the plane of the aim and +Y.
        let world_up = m.transform_vector3(up).normalize();
        let want = (Vec3::Y - dir * dir.dot(Vec3::Y)).normalize();
        if dir.dot(Vec3::Y).abs() < 0.99 {
            assert!(world_up.dot(want) > 0.9999, "up {world_up} vs {want}");
        }
    }
    println!("aim: worst axis error {worst:.2e} rad over 1,000 targets");
    assert!(worst < 1e-4, "worst aim error {worst} rad");
}

/// Layers with plain parameters leave nothing to do: layer 0 stays Defold's exactly.
#[test]
fn plain_layer_zero_is_the_player_pose() {
    let f = fixture();
    let mut p = ModelPlayer::new(&f.clips);
    p.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    p.update(0.3);
    let mut scratch = PoseScratch::new(&f.skeleton, &f.clips);
    let (mut a, mut b) = (f.skeleton.rest().to_vec(), f.skeleton.rest().to_vec());
    p.pose(&f.clips, &f.skeleton, &mut scratch, &mut a, &mut []).unwrap();
    p.pose_from(&f.clips, &f.skeleton, &mut scratch, true, &mut b, &mut []).unwrap();
    assert_eq!(a, b);
    assert!(LayerParams::default().is_plain());
}

/// Events through the player (f32 `dt` as the engine steps it): every playback mode × rate ×
/// dt, 3.25 s of updates, events at 0.21 s and 0.56 s of a 1 s clip; counts written out by
/// hand from the phases (layers.md §3).
#[test]
fn event_counts_for_every_mode_rate_and_dt() {
    let f = fixture();
    let times = [0.21f32, 0.56];
    // (mode, [rate 0.5, rate 1, rate 2])
    let table = [
        (Playback::None, [0, 0, 0]),
        (Playback::OnceForward, [2, 2, 2]),
        (Playback::OnceBackward, [2, 2, 2]),
        (Playback::OncePingpong, [3, 4, 4]),
        (Playback::LoopForward, [4, 7, 13]),
        (Playback::LoopBackward, [3, 6, 13]),
        (Playback::LoopPingpong, [3, 6, 13]),
    ];
    for (mode, counts) in table {
        for (rate, want) in [0.5f32, 1.0, 2.0].into_iter().zip(counts) {
            for (dt, frames) in [(0.25f32, 13), (1.0 / 60.0, 195)] {
                let mut p = ModelPlayer::new(&f.clips);
                p.play(1, mode, 0.0, 0.0, rate);
                let mut hits = Vec::new();
                for _ in 0..frames {
                    p.update_with_events(dt, &times, |i| hits.push(i));
                }
                assert_eq!(hits.len(), want, "{mode:?} rate {rate} dt {dt}: {hits:?}");
                // Forward modes pass 0.21 first, backward ones 0.56.
                if want > 0 {
                    let first = if matches!(mode, Playback::OnceBackward | Playback::LoopBackward) { 1 } else { 0 };
                    assert_eq!(hits[0], first, "{mode:?}");
                }
            }
        }
    }
}

/// Events on the turns of LOOP_PINGPONG (0 s and the clip's end) count once per pass, and a
/// cross-fading-out animation reports none.
#[test]
fn pingpong_turn_events_count_once() {
    let f = fixture();
    let times = [0.0f32, 1.0];
    for dt in [0.25f32, 1.0 / 60.0] {
        let mut p = ModelPlayer::new(&f.clips);
        p.play(1, Playback::LoopPingpong, 0.0, 0.0, 1.0);
        let mut hits = Vec::new();
        for _ in 0..(3.25 / dt).round() as usize {
            p.update_with_events(dt, &times, |i| hits.push(i));
        }
        assert_eq!(hits, [0, 1, 0, 1], "dt {dt}");
    }
    let mut p = ModelPlayer::new(&f.clips);
    p.play(1, Playback::LoopForward, 0.0, 0.0, 1.0);
    p.play(2, Playback::LoopForward, 10.0, 0.5, 1.0);
    let mut hits = Vec::new();
    for _ in 0..4 {
        p.update_with_events(0.25, &[0.9], |i| hits.push(i));
    }
    // Only the current clip (2, from 0.5 s): 0.9 passed once; clip 1's pass is not reported.
    assert_eq!(hits, [0]);
}
