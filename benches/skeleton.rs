//! Skeletal animation CPU cost (issue 4): sample + local-to-model + palette per joint for 24- and
//! 100-joint rigs, one clip and a two-clip cross-fade, and a frame of 1,000 animated 24-joint
//! instances on one core. Layers (issue 16): the same frame with a masked override layer and an
//! additive layer over the base clip, as a ratio to the one-clip figure of the same run, and
//! one two-bone IK solve. Baseline in the same run: the straightforward glam version (binary
//! search per channel every frame over the raw glTF keys, glam slerp, Mat4 per joint).
//!
//! Rigs are generated: a random tree of N joints (each under an earlier one), one skin over all of
//! them, clips of 2 s with LINEAR translation, rotation and scale keys at 30 per second on every
//! joint (the shape of exported character clips, e.g. Fox: T/R/S per joint at 24–30 keys/s).
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Quat, Vec3};
use sinew::anim::ik::{Chain, TwoBone};
use sinew::anim::layers::{AdditiveRefs, Layer, subtree_mask};
use sinew::anim::skinning::BoneRows;
use sinew::anim::transform::blend_locals;
use sinew::anim::{Clip, ModelPlayer, Playback, PoseScratch, SamplingCache, Skeleton, Transform};
use sinew::project::gltf::import_bytes;
use sinew::project::gltf::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec};
use sinew::project::model_data::{ChannelPath, ClipData, Interpolation, ModelData};
use std::hint::black_box;
use std::time::{Duration, Instant};

const DT: f32 = 1.0 / 60.0;
const KEYS_PER_SECOND: usize = 30;
const CLIP_SECONDS: f32 = 2.0;

fn rig(joints: usize, clips: usize) -> ModelData {
    let mut seed = 0x1234_5678u32;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut b = GltfBuilder::new();
    let mut nodes = Vec::new();
    for i in 0..joints {
        let parent = if i == 0 { None } else { Some((rnd() * i as f32) as usize) };
        nodes.push(b.node(&format!("j{i}"), parent, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
    }
    let body = b.node("body", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let prim = PrimitiveSpec {
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        joints: vec![[0, 0, 0, 0]; 3],
        weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
        ..Default::default()
    };
    b.mesh(body, "body", &[prim], &[], &[]);
    b.skin(body, &nodes, None);
    let keys = (CLIP_SECONDS * KEYS_PER_SECOND as f32) as usize + 1;
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / KEYS_PER_SECOND as f32).collect();
    for c in 0..clips {
        let mut channels = Vec::new();
        for &n in &nodes {
            // Smooth motion like exported clips: sinusoids with per-joint axis, amplitude (0.3 to
            // 1.5 rad) and phase; neighbouring keys 1° to 18° apart.
            let axis = Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5 + 0.01).normalize();
            let (amp, phase) = (0.3 + 1.2 * rnd(), rnd() * std::f32::consts::TAU);
            let (mut t, mut r, mut s) = (Vec::new(), Vec::new(), Vec::new());
            for &time in &times {
                let w = (std::f32::consts::PI * time + phase).sin();
                t.extend([0.1 * w, 1.0 + 0.05 * w, -0.1 * w]);
                r.extend(Quat::from_axis_angle(axis, amp * w).to_array());
                s.extend([1.0 + 0.05 * w; 3]);
            }
            for (path, values) in [(ChannelPath::Translation, t), (ChannelPath::Rotation, r), (ChannelPath::Scale, s)] {
                let interpolation = Interpolation::Linear;
                channels.push(ChannelSpec { node: n, path, interpolation, times: times.clone(), values });
            }
        }
        b.animation(&format!("clip{c}"), &channels);
    }
    import_bytes("/rig.glb", &b.to_glb(), None).unwrap_or_else(|e| panic!("{e}"))
}

/// One model instance's buffers.
struct Instance {
    player: ModelPlayer,
    scratch: PoseScratch,
    locals: Vec<Transform>,
    weights: Vec<f32>,
    model: Vec<Mat4>,
    /// As the pose keeps it (`AnimState::palette`).
    palette: Vec<BoneRows>,
}

impl Instance {
    fn new(skeleton: &Skeleton, clips: &[Clip]) -> Self {
        Instance {
            player: ModelPlayer::new(clips),
            scratch: PoseScratch::new(skeleton, clips),
            locals: skeleton.rest().to_vec(),
            weights: skeleton.rest_weights().to_vec(),
            model: vec![Mat4::IDENTITY; skeleton.node_count()],
            palette: vec![[0.0; 12]; skeleton.skin_joints(0).len()],
        }
    }
    /// One frame: advance, pose (sample and blend), model matrices, skin palette.
    fn frame(&mut self, skeleton: &Skeleton, clips: &[Clip]) {
        self.player.update(DT);
        let r = self.player.pose(clips, skeleton, &mut self.scratch, &mut self.locals, &mut self.weights);
        r.and_then(|_| skeleton.local_to_model(&self.locals, &mut self.model))
            .and_then(|_| skeleton.palette_rows(0, &self.model, &mut self.palette))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The straightforward implementation: raw glTF channels, binary search each frame.
struct Baseline {
    parents: Vec<Option<usize>>,
    rest: Vec<(Vec3, Quat, Vec3)>,
    joints: Vec<usize>,
    inverse_bind: Vec<Mat4>,
    locals: Vec<(Vec3, Quat, Vec3)>,
    from: Vec<(Vec3, Quat, Vec3)>,
    model: Vec<Mat4>,
    palette: Vec<Mat4>,
}

impl Baseline {
    fn new(m: &ModelData) -> Self {
        let rest: Vec<_> = m
            .nodes
            .iter()
            .map(|n| (Vec3::from(n.translation), Quat::from_array(n.rotation), Vec3::from(n.scale)))
            .collect();
        Baseline {
            parents: m.nodes.iter().map(|n| n.parent).collect(),
            joints: m.skins[0].joints.clone(),
            inverse_bind: m.skins[0].inverse_bind.iter().map(Mat4::from_cols_array).collect(),
            locals: rest.clone(),
            from: rest.clone(),
            model: vec![Mat4::IDENTITY; rest.len()],
            palette: vec![Mat4::IDENTITY; m.skins[0].joints.len()],
            rest,
        }
    }

    fn sample(clip: &ClipData, t: f32, out: &mut [(Vec3, Quat, Vec3)]) {
        for c in &clip.channels {
            let n = c.times.len();
            let k = c.times.partition_point(|&x| x <= t).saturating_sub(1).min(n.saturating_sub(2));
            let s = if n < 2 { 0.0 } else { ((t - c.times[k]) / (c.times[k + 1] - c.times[k])).clamp(0.0, 1.0) };
            let w = c.components;
            let at = |k: usize| &c.values[k * w..k * w + w];
            let k1 = (k + 1).min(n - 1);
            let o = &mut out[c.node];
            match c.path {
                ChannelPath::Translation => o.0 = Vec3::from_slice(at(k)).lerp(Vec3::from_slice(at(k1)), s),
                ChannelPath::Scale => o.2 = Vec3::from_slice(at(k)).lerp(Vec3::from_slice(at(k1)), s),
                ChannelPath::Rotation => o.1 = Quat::from_slice(at(k)).slerp(Quat::from_slice(at(k1)), s),
                ChannelPath::Weights => {}
            }
        }
    }

    fn frame(&mut self, clips: &[ClipData], t: f32, blend: Option<(usize, f32, f32)>) {
        self.locals.copy_from_slice(&self.rest);
        Self::sample(&clips[0], t, &mut self.locals);
        if let Some((c, t2, w)) = blend {
            self.from.copy_from_slice(&self.rest);
            Self::sample(&clips[c], t2, &mut self.from);
            for (o, f) in self.locals.iter_mut().zip(&self.from) {
                *o = (f.0.lerp(o.0, w), f.1.slerp(o.1, w).normalize(), f.2.lerp(o.2, w));
            }
        }
        for i in 0..self.locals.len() {
            let (t, r, s) = self.locals[i];
            let local = Mat4::from_scale_rotation_translation(s, r, t);
            self.model[i] = match self.parents[i] {
                Some(p) => self.model[p] * local,
                None => local,
            };
        }
        for (k, &j) in self.joints.iter().enumerate() {
            self.palette[k] = self.model[j] * self.inverse_bind[k];
        }
    }
}

/// Best and median ns per call over `runs` batches of `per_run` calls (the minimum is the least
/// disturbed figure on a shared machine).
fn time_ns(runs: usize, per_run: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            for _ in 0..per_run {
                f();
            }
            s.elapsed().as_secs_f64() * 1e9 / per_run as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[runs / 2])
}

fn per_joint(c: &mut Criterion) {
    let mut g = c.benchmark_group("skeleton_per_joint");
    g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for joints in [24, 100] {
        let m = rig(joints, 2);
        let skeleton = Skeleton::new(&m).unwrap_or_else(|e| panic!("{e}"));
        let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
        g.throughput(Throughput::Elements(joints as u64));
        for blend in [false, true] {
            let name = if blend { "blend2" } else { "one_clip" };
            let mut inst = Instance::new(&skeleton, &clips);
            inst.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
            if blend {
                // A cross-fade that never ends, so every frame blends two sampled clips.
                inst.player.play(1, Playback::LoopForward, 1e9, 0.3, 1.0);
                inst.player.update(1e8);
            }
            g.bench_function(format!("sinew_{joints}_{name}"), |b| b.iter(|| inst.frame(&skeleton, &clips)));
            let (best, median) = time_ns(50, 200, || inst.frame(&skeleton, &clips));
            let j = joints as f64;
            eprintln!(
                "sinew    {joints:>3} joints {name:<8}: {:6.1} ns/joint best, {:6.1} median",
                best / j,
                median / j
            );

            let mut base = Baseline::new(&m);
            let mut t = 0.0f32;
            let mut step = || {
                t = (t + DT) % CLIP_SECONDS;
                base.frame(&m.animations, black_box(t), blend.then_some((1, (t + 0.6) % CLIP_SECONDS, 0.5)));
            };
            g.bench_function(format!("baseline_{joints}_{name}"), |b| b.iter(&mut step));
            let (bb, bm) = time_ns(50, 200, &mut step);
            eprintln!(
                "baseline {joints:>3} joints {name:<8}: {:6.1} ns/joint best, {:6.1} median (sinew {:.1}x faster)",
                bb / j,
                bm / j,
                bb / best
            );
        }
        layers(&skeleton, &clips, joints);
        // Where the time goes (one clip, 24/100 joints): the three stages separately.
        let mut inst = Instance::new(&skeleton, &clips);
        let mut cache = SamplingCache::new(&clips[0]);
        let mut t = 0.0f32;
        let (s, _) = time_ns(50, 200, || {
            t = (t + DT) % CLIP_SECONDS;
            clips[0].sample(t, &mut cache, &mut inst.locals, &mut inst.weights).unwrap_or_else(|e| panic!("{e}"));
        });
        let (l, _) = time_ns(50, 200, || skeleton.local_to_model(&inst.locals, &mut inst.model).unwrap_or(()));
        let (p, _) = time_ns(50, 200, || skeleton.palette_rows(0, &inst.model, &mut inst.palette).unwrap_or(()));
        // Cross-fade blend of two sampled poses (clip 1 at a later time than clip 0).
        let mut from = inst.locals.clone();
        let mut cache1 = SamplingCache::new(&clips[1]);
        clips[1].sample(0.7, &mut cache1, &mut from, &mut inst.weights).unwrap_or_else(|e| panic!("{e}"));
        let mut out = inst.locals.clone();
        let (bl, _) = time_ns(50, 200, || {
            out.copy_from_slice(&inst.locals);
            blend_locals(black_box(&from), &mut out, 0.4);
        });
        let j = joints as f64;
        eprintln!(
            "stages   {joints:>3} joints: sample {:.1}, local_to_model {:.1}, palette {:.1}, blend {:.1} ns/joint (best)",
            s / j,
            l / j,
            p / j,
            bl / j
        );
    }
    g.finish();
}

/// Base clip + a masked override layer (half the joints: the subtree of the joint that roots
/// the larger half) + an additive layer over every joint, against one clip in the same run;
/// then one two-bone solve on the first three-joint chain of the rig.
fn layers(skeleton: &Skeleton, clips: &[Clip], joints: usize) {
    // Each clip's first key and its difference from it, made once as the rig does.
    let refs = AdditiveRefs::new(skeleton, clips).unwrap_or_else(|e| panic!("{e}"));
    let mut one = Instance::new(skeleton, clips);
    one.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    let mut inst = Instance::new(skeleton, clips);
    inst.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    // The mask: the child subtree closest to half the joints.
    let sizes: Vec<usize> =
        (0..skeleton.node_count()).map(|r| subtree_mask(skeleton, &[r]).iter().filter(|&&x| x > 0.0).count()).collect();
    let root = (1..sizes.len()).min_by_key(|&r| sizes[r].abs_diff(joints / 2)).unwrap_or(0);
    let mut over = Layer::new(skeleton, clips);
    over.player.play(1, Playback::LoopForward, 0.0, 0.4, 1.0);
    over.params.mask = Some(subtree_mask(skeleton, &[root]));
    over.params.set_weight(0.7, 0.0);
    let mut add = Layer::new(skeleton, clips);
    add.player.play(1, Playback::LoopForward, 0.0, 0.8, 1.0);
    add.params.additive = true;
    add.params.set_weight(0.5, 0.0);
    let mut frame = || {
        inst.player.update(DT);
        over.player.update(DT);
        add.player.update(DT);
        let r = inst.player.pose(clips, skeleton, &mut inst.scratch, &mut inst.locals, &mut inst.weights);
        r.and_then(|_| over.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights))
            .and_then(|_| add.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights))
            .and_then(|_| skeleton.local_to_model(&inst.locals, &mut inst.model))
            .and_then(|_| skeleton.palette_rows(0, &inst.model, &mut inst.palette))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let (lb, lm) = time_ns(50, 200, &mut frame);
    let (ob, _) = time_ns(50, 200, || one.frame(skeleton, clips));
    let j = joints as f64;
    eprintln!(
        "layers   {joints:>3} joints base+masked override ({} joints)+additive: {:6.1} ns/joint best, {:6.1} median; one clip {:6.1}: {:.2}x",
        sizes[root],
        lb / j,
        lm / j,
        ob / j,
        lb / ob
    );
    // The two layers' own cost (sample + blend), each on its own, over the same base pose each
    // time: applied to its own result thousands of times, the additive layer multiplied the
    // scales out to subnormal floats and infinities, and timed their slow arithmetic.
    let base = inst.locals.clone();
    let (ovb, _) = time_ns(50, 200, || {
        inst.locals.copy_from_slice(&base);
        over.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights).unwrap_or(())
    });
    let (adb, _) = time_ns(50, 200, || {
        inst.locals.copy_from_slice(&base);
        add.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights).unwrap_or(())
    });
    eprintln!(
        "layers   {joints:>3} joints: masked override layer {:.1}, additive layer {:.1} ns/joint (best, with a copy of the base pose)",
        ovb / j,
        adb / j
    );
    // Each layer's cost inside a frame (players advancing, the layer blending over a fresh base
    // pose): the frame with that layer alone, less the one-clip frame.
    // Only the layer measured advances: the other layer's clock is no part of its cost.
    let mut with = |use_over: bool, use_add: bool| {
        time_ns(50, 200, || {
            inst.player.update(DT);
            if use_over {
                over.player.update(DT);
            }
            if use_add {
                add.player.update(DT);
            }
            let mut r = inst.player.pose(clips, skeleton, &mut inst.scratch, &mut inst.locals, &mut inst.weights);
            for (on, layer) in [(use_over, &mut over), (use_add, &mut add)] {
                if on {
                    r = r.and_then(|_| layer.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights));
                }
            }
            r.and_then(|_| skeleton.local_to_model(&inst.locals, &mut inst.model))
                .and_then(|_| skeleton.palette_rows(0, &inst.model, &mut inst.palette))
                .unwrap_or_else(|e| panic!("{e}"));
        })
        .0
    };
    let (fo, fa) = (with(true, false), with(false, true));
    let (ob2, _) = time_ns(50, 200, || one.frame(skeleton, clips));
    // Issue 40: the target is each layer's own cost against the one-clip frame of the same run
    // (the whole-frame ratio above rose when the one-clip frame got faster, not the layers).
    eprintln!(
        "layers   {joints:>3} joints in a frame: masked override layer {:.1} ns/joint = {:.2}x one clip, additive layer {:.1} = {:.2}x (target <= 0.5x each; frame with it alone {:.1} / {:.1}, one clip {:.1})",
        (fo - ob2) / j,
        (fo - ob2) / ob2,
        (fa - ob2) / j,
        (fa - ob2) / ob2,
        fo / j,
        fa / j,
        ob2 / j
    );
    // Two-bone solve: the first node whose parent and grandparent exist.
    let end = (0..skeleton.node_count())
        .find(|&n| skeleton.parent(n).and_then(|p| skeleton.parent(p)).is_some())
        .unwrap_or_else(|| panic!("no three-joint chain"));
    let mid = skeleton.parent(end).unwrap_or(0);
    let root = skeleton.parent(mid).unwrap_or(0);
    let chain = Chain::TwoBone(TwoBone { root, mid, end, pole: Vec3::Z });
    // A fresh pose (the timing loops above applied the layers over and over).
    let r = inst.player.pose(clips, skeleton, &mut inst.scratch, &mut inst.locals, &mut inst.weights);
    r.and_then(|_| over.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights))
        .and_then(|_| add.apply(clips, &refs, skeleton, &mut inst.locals, &mut inst.weights))
        .unwrap_or_else(|e| panic!("{e}"));
    let base = inst.locals.clone();
    skeleton.local_to_model(&base, &mut inst.model).unwrap_or(());
    let solved = chain.solve(skeleton, &inst.model, &mut inst.locals.clone(), origin_probe(&inst.model, root), 1.0);
    assert!(solved, "the timed solve must not take the degenerate early exit");
    let origin = inst.model[root].w_axis.truncate();
    let mut k = 0u32;
    let (sb, sm) = time_ns(50, 2000, || {
        k = k.wrapping_add(1);
        let a = k as f32 * 0.01;
        let target = origin + Vec3::new(a.sin(), 0.5 * a.cos(), 0.8) * 1.2;
        // Undo the last solve (it wrote the root's and the middle joint's rotations only).
        for n in [root, mid] {
            inst.locals[n] = base[n];
        }
        let ok = chain.solve(skeleton, &inst.model, &mut inst.locals, black_box(target), 1.0);
        assert!(ok);
    });
    eprintln!("ik       two-bone solve ({joints}-joint rig): {sb:6.1} ns best, {sm:6.1} median (target <= 200 ns)");
}

/// A reachable target off the chain's root.
fn origin_probe(model: &[Mat4], root: usize) -> Vec3 {
    model[root].w_axis.truncate() + Vec3::new(0.3, 0.2, 0.5)
}

fn thousand_instances(c: &mut Criterion) {
    let mut g = c.benchmark_group("skeleton_frame");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    let m = rig(24, 2);
    let skeleton = Skeleton::new(&m).unwrap_or_else(|e| panic!("{e}"));
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let mut all: Vec<Instance> = (0..1000)
        .map(|i| {
            let mut inst = Instance::new(&skeleton, &clips);
            inst.player.play(0, Playback::LoopForward, 0.0, i as f32 / 1000.0, 1.0);
            inst
        })
        .collect();
    let mut frame = || all.iter_mut().for_each(|i| i.frame(&skeleton, &clips));
    g.bench_function("sinew_1000x24_joints", |b| b.iter(&mut frame));
    let (best, median) = time_ns(30, 1, &mut frame);
    eprintln!("sinew    1000 x 24 joints: {:.3} ms best, {:.3} ms median per frame", best / 1e6, median / 1e6);

    let mut bases: Vec<(Baseline, f32)> = (0..1000).map(|i| (Baseline::new(&m), i as f32 / 1000.0 * 2.0)).collect();
    let mut frame = || {
        for (b, t) in bases.iter_mut() {
            *t = (*t + DT) % CLIP_SECONDS;
            b.frame(&m.animations, *t, None);
        }
    };
    g.bench_function("baseline_1000x24_joints", |b| b.iter(&mut frame));
    let (bb, bm) = time_ns(30, 1, &mut frame);
    eprintln!("baseline 1000 x 24 joints: {:.3} ms best, {:.3} ms median per frame", bb / 1e6, bm / 1e6);
    g.finish();
}

criterion_group!(benches, per_joint, thousand_instances);
criterion_main!(benches);
