//! Generated rigs (GltfBuilder) sampled by `sinew::anim` and by a straightforward implementation
//! written here (per-channel binary search, glam slerp, recursive world matrices on the glTF node
//! graph): a chain and a 300-joint tree under two roots, joints listed in shuffled order, the
//! node array stored children-first, STEP / LINEAR / CUBICSPLINE channels with 1..9 keys, a
//! skinned mesh whose own node transform must be ignored, and a morph-weight channel.
use glam::{Mat4, Quat, Vec3, Vec4};
use serde_json::{Value, json};
use sinew::anim::skinning::skin_positions;
use sinew::anim::{Clip, SamplingCache, Skeleton};
use sinew::project::gltf::import_bytes;
use sinew::project::gltf::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, TargetSpec, glb};
use sinew::project::model_data::{ChannelPath, Interpolation};

/// xorshift32: deterministic values without a dependency.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    fn quat(&mut self) -> Quat {
        let axis = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0) + 0.01).normalize();
        let q = Quat::from_axis_angle(axis, self.range(-3.0, 3.0));
        if self.next() < 0.3 { -q } else { q } // both hemispheres, to exercise the shortest path
    }
}

/// The rig as the generator knows it, in glTF node indices (before the node array is reversed).
struct Spec {
    parents: Vec<Option<usize>>,
    rest: Vec<(Vec3, Quat, Vec3)>,
    channels: Vec<ChannelSpec>,
    joints: Vec<usize>,
    inverse_bind: Vec<Mat4>,
    body: usize,
    blob: usize,
    /// The skinned mesh: one vertex per joint, four influences each.
    positions: Vec<[f32; 3]>,
    vj: Vec<[u16; 4]>,
    vw: Vec<[f32; 4]>,
}

const TREE: usize = 300;

fn build() -> (Vec<u8>, Spec) {
    let mut rng = Rng(0x9E37_79B9);
    let mut b = GltfBuilder::new();
    let mut parents = Vec::new();
    let mut rest = Vec::new();
    let mut add = |b: &mut GltfBuilder, rng: &mut Rng, name: &str, parent: Option<usize>| {
        let t = Vec3::new(rng.range(-1.0, 1.0), rng.range(0.2, 1.0), rng.range(-1.0, 1.0));
        let (r, s) = (rng.quat().normalize(), Vec3::new(rng.range(0.8, 1.2), rng.range(0.8, 1.2), 1.0));
        parents.push(parent);
        rest.push((t, r, s));
        b.node(name, parent, t.to_array(), r.to_array(), s.to_array())
    };
    // Root 1: a chain of 6. Root 2: a tree of TREE nodes (each under a random earlier one).
    let mut joints = vec![add(&mut b, &mut rng, "chain0", None)];
    for i in 1..6 {
        let p = joints[i - 1];
        joints.push(add(&mut b, &mut rng, &format!("chain{i}"), Some(p)));
    }
    let tree0 = add(&mut b, &mut rng, "tree0", None);
    joints.push(tree0);
    for i in 1..TREE {
        let p = tree0 + (rng.next() * i as f32) as usize;
        joints.push(add(&mut b, &mut rng, &format!("tree{i}"), Some(p)));
    }
    // The skinned mesh sits on a transformed node (which skinning must ignore); a morphed mesh
    // hangs under a joint.
    let body = add(&mut b, &mut rng, "body", None);
    let blob = add(&mut b, &mut rng, "blob", Some(joints[3]));
    // Shuffle the skin's joint order.
    for i in (1..joints.len()).rev() {
        joints.swap(i, (rng.next() * (i + 1) as f32) as usize);
    }
    let world = |n: usize| world_of(&parents, &|k| trs(rest[k]), n);
    let inverse_bind: Vec<Mat4> = joints.iter().map(|&j| world(j).inverse()).collect();
    let (mut positions, mut vj, mut vw) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..joints.len() {
        positions.push([rng.range(-2.0, 2.0), rng.range(0.0, 4.0), rng.range(-2.0, 2.0)]);
        let others = [(k + 1) % joints.len(), (k * 7 + 3) % joints.len(), (k * 13 + 5) % joints.len()];
        vj.push([k as u16, others[0] as u16, others[1] as u16, others[2] as u16]);
        let w = [rng.next() + 0.1, rng.next(), rng.next(), 0.0];
        let sum: f32 = w.iter().sum();
        vw.push(w.map(|x| x / sum));
    }
    let tri: Vec<u32> = (0..positions.len() as u32 / 3 * 3).collect();
    let prim = PrimitiveSpec {
        positions: positions.clone(),
        joints: vj.clone(),
        weights: vw.clone(),
        indices: tri,
        ..Default::default()
    };
    b.mesh(body, "body", &[prim], &[], &[]);
    let morph = PrimitiveSpec {
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        targets: vec![
            TargetSpec { positions: vec![[0.0, 0.0, 1.0]; 3], normals: vec![] },
            TargetSpec { positions: vec![[1.0, 0.0, 0.0]; 3], normals: vec![] },
        ],
        ..Default::default()
    };
    b.mesh(blob, "blob", &[morph], &[0.0, 0.0], &[]);
    b.skin(body, &joints, Some(&inverse_bind.iter().map(Mat4::to_cols_array).collect::<Vec<_>>()));

    // Channels: every joint gets translation and rotation, every third one scale; interpolation
    // and key count vary; the first key is sometimes after 0 (clamping before it).
    let mut channels = Vec::new();
    let modes = [Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline];
    for (n, &j) in joints.iter().enumerate() {
        for (p, path) in [ChannelPath::Translation, ChannelPath::Rotation, ChannelPath::Scale].into_iter().enumerate() {
            if path == ChannelPath::Scale && n % 3 != 0 {
                continue;
            }
            let interpolation = modes[(n + p) % 3];
            channels.push(random_channel(&mut rng, j, path, interpolation, 1 + (n * 5 + p) % 9, 2));
        }
    }
    channels.push(random_channel(&mut rng, blob, ChannelPath::Weights, Interpolation::CubicSpline, 6, 2));
    channels.push(random_channel(&mut rng, blob, ChannelPath::Rotation, Interpolation::Linear, 4, 2));
    b.animation("all", &channels);

    let spec = Spec { parents, rest, channels, joints, inverse_bind, body, blob, positions, vj, vw };
    (children_first(&b), spec)
}

fn random_channel(
    rng: &mut Rng,
    node: usize,
    path: ChannelPath,
    interpolation: Interpolation,
    keys: usize,
    weights: usize,
) -> ChannelSpec {
    let mut t = if rng.next() < 0.3 { rng.range(0.05, 0.5) } else { 0.0 };
    let mut times = Vec::new();
    for _ in 0..keys {
        times.push(t);
        t += rng.range(0.05, 0.7);
    }
    let mut values = Vec::new();
    for _ in 0..keys {
        let value: Vec<f32> = match path {
            ChannelPath::Translation => (0..3).map(|_| rng.range(-1.0, 1.0)).collect(),
            ChannelPath::Scale => (0..3).map(|_| rng.range(0.5, 1.5)).collect(),
            ChannelPath::Rotation => rng.quat().to_array().to_vec(),
            ChannelPath::Weights => (0..weights).map(|_| rng.range(0.0, 1.0)).collect(),
        };
        if interpolation == Interpolation::CubicSpline {
            let tangent = |rng: &mut Rng| value.iter().map(|_| rng.range(-2.0, 2.0)).collect::<Vec<f32>>();
            let (a, o) = (tangent(rng), tangent(rng));
            values.extend(a.into_iter().chain(value).chain(o));
        } else {
            values.extend(value);
        }
    }
    ChannelSpec { node, path, interpolation, times, values }
}

/// The builder's file with the node array reversed (every child now precedes its parent).
fn children_first(b: &GltfBuilder) -> Vec<u8> {
    let mut j = b.to_json(None);
    let n = j["nodes"].as_array().unwrap().len() as u64;
    let r = |v: &Value| json!(n - 1 - v.as_u64().unwrap());
    let mut nodes = j["nodes"].as_array().unwrap().clone();
    nodes.reverse();
    for node in &mut nodes {
        if let Some(c) = node.get_mut("children") {
            *c = Value::Array(c.as_array().unwrap().iter().map(r).collect());
        }
    }
    j["nodes"] = Value::Array(nodes);
    j["scenes"][0]["nodes"] = Value::Array(j["scenes"][0]["nodes"].as_array().unwrap().iter().map(r).collect());
    j["skins"][0]["joints"] = Value::Array(j["skins"][0]["joints"].as_array().unwrap().iter().map(r).collect());
    for c in j["animations"][0]["channels"].as_array_mut().unwrap() {
        c["target"]["node"] = r(&c["target"]["node"]);
    }
    glb(&j, b.bin())
}

fn trs((t, r, s): (Vec3, Quat, Vec3)) -> Mat4 {
    Mat4::from_scale_rotation_translation(s, r, t)
}

fn world_of(parents: &[Option<usize>], local: &dyn Fn(usize) -> Mat4, n: usize) -> Mat4 {
    match parents[n] {
        Some(p) => world_of(parents, local, p) * local(n),
        None => local(n),
    }
}

/// The straightforward sampler: binary search per call, glTF formulas verbatim.
fn reference_value(c: &ChannelSpec, t: f32) -> Vec<f32> {
    let width = c.values.len() / c.times.len() / if c.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    let cubic = c.interpolation == Interpolation::CubicSpline;
    let value = |k: usize| -> Vec<f32> {
        let at = if cubic { (3 * k + 1) * width } else { k * width };
        c.values[at..at + width].to_vec()
    };
    let n = c.times.len();
    if t <= c.times[0] {
        return value(0);
    }
    if t >= c.times[n - 1] {
        return value(n - 1);
    }
    let k = c.times.partition_point(|&x| x <= t) - 1;
    let dt = c.times[k + 1] - c.times[k];
    let s = (t - c.times[k]) / dt;
    let is_rot = c.path == ChannelPath::Rotation;
    let norm = |v: Vec<f32>| Quat::from_slice(&v).normalize();
    match c.interpolation {
        Interpolation::Step => value(k),
        Interpolation::Linear if is_rot => norm(value(k)).slerp(norm(value(k + 1)), s).to_array().to_vec(),
        Interpolation::Linear => value(k).iter().zip(value(k + 1)).map(|(a, b)| a + (b - a) * s).collect(),
        Interpolation::CubicSpline => {
            let group = |k: usize, g: usize| c.values[(3 * k + g) * width..(3 * k + g + 1) * width].to_vec();
            let (p0, m0, p1, m1) =
                (norm_if(is_rot, group(k, 1)), group(k, 2), norm_if(is_rot, group(k + 1, 1)), group(k + 1, 0));
            let (s2, s3) = (s * s, s * s * s);
            let out: Vec<f32> = (0..width)
                .map(|i| {
                    (2.0 * s3 - 3.0 * s2 + 1.0) * p0[i]
                        + (s3 - 2.0 * s2 + s) * dt * m0[i]
                        + (-2.0 * s3 + 3.0 * s2) * p1[i]
                        + (s3 - s2) * dt * m1[i]
                })
                .collect();
            if is_rot { Vec4::from_slice(&out).normalize().to_array().to_vec() } else { out }
        }
    }
}

fn norm_if(rot: bool, v: Vec<f32>) -> Vec<f32> {
    if rot { Vec4::from_slice(&v).normalize().to_array().to_vec() } else { v }
}

#[test]
fn generated_rig_matches_a_straightforward_implementation() {
    let (bytes, spec) = build();
    let (positions, vj, vw) = (&spec.positions, &spec.vj, &spec.vw);
    let model = import_bytes("/generated.glb", &bytes, None).unwrap();
    let skeleton = Skeleton::new(&model).unwrap();
    let clip = Clip::new(&model.animations[0], &skeleton).unwrap();
    let total = spec.parents.len();
    assert_eq!(skeleton.node_count(), total);
    assert!(skeleton.skin_joints(0).len() > 256);
    // Our node i ↔ generator node: the file stored node g at n - 1 - g.
    let gen_of = |i: usize| total - 1 - skeleton.gltf_index(i).unwrap();
    let ours_of = |g: usize| (0..total).find(|&i| gen_of(i) == g).unwrap();

    let mut cache = SamplingCache::new(&clip);
    let mut locals = skeleton.rest().to_vec();
    let mut weights = skeleton.rest_weights().to_vec();
    let mut model_m = vec![Mat4::IDENTITY; total];
    let mut palette = vec![Mat4::IDENTITY; spec.joints.len()];
    let mut skinned = vec![[0.0; 3]; positions.len()];
    let (mut worst_m, mut worst_p) = (0.0f32, 0.0f32);
    // Forward in small steps, then a few seeks backwards and past the end.
    let times: Vec<f32> = (0..=160).map(|i| i as f32 * 0.04 - 0.2).chain([3.0, 0.01, 1.7, 9.0, 0.0]).collect();
    for &t in &times {
        locals.copy_from_slice(skeleton.rest());
        weights.copy_from_slice(skeleton.rest_weights());
        clip.sample(t, &mut cache, &mut locals, &mut weights).unwrap();
        skeleton.local_to_model(&locals, &mut model_m).unwrap();
        skeleton.palette(0, &model_m, &mut palette).unwrap();

        let mut local: Vec<Mat4> = spec.rest.iter().map(|&r| trs(r)).collect();
        let mut animated = spec.rest.clone();
        let mut want_weights = vec![0.0f32; 2];
        for c in &spec.channels {
            let v = reference_value(c, t);
            let a = &mut animated[c.node];
            match c.path {
                ChannelPath::Translation => a.0 = Vec3::from_slice(&v),
                ChannelPath::Rotation => a.1 = Quat::from_slice(&v).normalize(),
                ChannelPath::Scale => a.2 = Vec3::from_slice(&v),
                ChannelPath::Weights => want_weights = v,
            }
        }
        for (g, a) in animated.iter().enumerate() {
            local[g] = trs(*a);
        }
        for g in 0..total {
            let want = world_of(&spec.parents, &|k| local[k], g);
            let got = model_m[ours_of(g)];
            let err = (want - got).to_cols_array().iter().fold(0.0f32, |m, v| m.max(v.abs()));
            assert!(err < 2e-4, "t={t} node {g}: error {err}\n{got}\n{want}");
            worst_m = worst_m.max(err);
        }
        let blob = skeleton.mesh_weights(skeleton.mesh_on_node(ours_of(spec.blob)).unwrap());
        for (g, w) in weights[blob].iter().zip(&want_weights) {
            assert!((g - w).abs() < 1e-5, "t={t} weights {g} vs {w}");
        }
        // Skinned positions: Σ w · world(joint) · inverseBind · p, the body node ignored.
        skin_positions(&palette, positions, vj, vw, &mut skinned).unwrap();
        for (v, got) in skinned.iter().enumerate() {
            let p = Vec3::from(positions[v]);
            let want: Vec3 = (0..4)
                .map(|i| {
                    let k = vj[v][i] as usize;
                    let joint = world_of(&spec.parents, &|k| local[k], spec.joints[k]);
                    vw[v][i] * (joint * spec.inverse_bind[k]).transform_point3(p)
                })
                .sum();
            let err = want.distance(Vec3::from(*got));
            assert!(err < 1e-3, "t={t} vertex {v}: {got:?} vs {want}");
            worst_p = worst_p.max(err);
        }
    }
    let skinned_mesh = (0..skeleton.mesh_count()).find(|&m| skeleton.mesh_skin(m) == Some(0)).unwrap();
    assert_eq!(gen_of(skeleton.mesh_node(skinned_mesh).unwrap()), spec.body);
    println!(
        "{} nodes, {} joints, {} samples: worst matrix {worst_m:.2e}, position {worst_p:.2e}",
        total,
        spec.joints.len(),
        times.len()
    );
}
