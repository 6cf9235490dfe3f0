//! Posed vertices (`sinew::game::posed`, what `sinew inspect --vertices` prints and the renderer
//! draws) against a straightforward implementation written here — per-channel key search, glam
//! lerp/slerp, world matrices by walking up the parents, morph then skin, rigid meshes by their
//! node's world matrix — and against the reference poses (three.js), including node
//! matrices of models with node animation.
mod common;

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;
use sinew::game::animation::{AnimState, Rig};
use sinew::game::posed::posed_vertices;
use sinew::project::Resources;
use sinew::project::gltf::robot_arm::{nodes, robot_arm};
use sinew::project::gltf::{import, import_bytes};
use sinew::project::model_data::{ChannelPath, ClipData, Interpolation, ModelData};
use std::sync::Arc;

fn rig_of(m: &ModelData) -> Arc<Rig> {
    Arc::new(Rig::new(&m.source, m, &[m]).expect("rig"))
}

/// Value of one channel at `t` (clamped), LINEAR or STEP, found by a linear scan.
fn sample(c: &sinew::project::model_data::ChannelData, t: f32) -> Vec<f32> {
    let n = c.components;
    let key = |i: usize| c.values[i * n..(i + 1) * n].to_vec();
    assert_ne!(c.interpolation, Interpolation::CubicSpline, "the oracle samples LINEAR and STEP only");
    if t <= c.times[0] {
        return key(0);
    }
    let last = c.times.len() - 1;
    if t >= c.times[last] {
        return key(last);
    }
    let i = (0..last).find(|&i| t < c.times[i + 1]).expect("key");
    if c.interpolation == Interpolation::Step {
        return key(i);
    }
    let u = (t - c.times[i]) / (c.times[i + 1] - c.times[i]);
    let (a, b) = (key(i), key(i + 1));
    if c.path == ChannelPath::Rotation {
        let qa = Quat::from_slice(&a).normalize();
        let qb = Quat::from_slice(&b).normalize();
        return qa.slerp(qb, u).to_array().to_vec();
    }
    a.iter().zip(&b).map(|(x, y)| x + (y - x) * u).collect()
}

/// World matrices of every node and each mesh's morph weights at `t`, written plainly.
fn oracle_nodes(m: &ModelData, clip: &ClipData, t: f32) -> (Vec<Mat4>, Vec<Vec<f32>>) {
    let mut trs: Vec<(Vec3, Quat, Vec3)> = m
        .nodes
        .iter()
        .map(|n| (Vec3::from(n.translation), Quat::from_array(n.rotation).normalize(), Vec3::from(n.scale)))
        .collect();
    let mut weights: Vec<Vec<f32>> = m.meshes.iter().map(|x| x.weights.clone()).collect();
    for c in &clip.channels {
        let v = sample(c, t);
        match c.path {
            ChannelPath::Translation => trs[c.node].0 = Vec3::from_slice(&v),
            ChannelPath::Rotation => trs[c.node].1 = Quat::from_slice(&v).normalize(),
            ChannelPath::Scale => trs[c.node].2 = Vec3::from_slice(&v),
            ChannelPath::Weights => {
                for (mi, mesh) in m.meshes.iter().enumerate() {
                    if mesh.node == c.node {
                        weights[mi] = v.clone();
                    }
                }
            }
        }
    }
    let world = (0..m.nodes.len())
        .map(|i| {
            let mut w = Mat4::IDENTITY;
            let mut at = Some(i);
            while let Some(k) = at {
                let (t, r, s) = trs[k];
                w = Mat4::from_scale_rotation_translation(s, r, t) * w;
                at = m.nodes[k].parent;
            }
            w
        })
        .collect();
    (world, weights)
}

/// Posed positions of every primitive, mesh by mesh, written plainly.
fn oracle_vertices(m: &ModelData, clip: &ClipData, t: f32) -> Vec<Vec<[f32; 3]>> {
    let (world, weights) = oracle_nodes(m, clip, t);
    let mut out = Vec::new();
    for (mi, mesh) in m.meshes.iter().enumerate() {
        for p in &mesh.primitives {
            let mut v: Vec<Vec3> = p.positions.iter().map(|&x| Vec3::from(x)).collect();
            for (ti, target) in p.targets.iter().enumerate() {
                let w = weights[mi].get(ti).copied().unwrap_or(0.0);
                for (x, d) in v.iter_mut().zip(&target.positions) {
                    *x += w * Vec3::from(*d);
                }
            }
            let posed: Vec<[f32; 3]> = match mesh.skin {
                Some(s) => {
                    let skin = &m.skins[s];
                    v.iter()
                        .enumerate()
                        .map(|(k, x)| {
                            let mut acc = Vec3::ZERO;
                            for (j, w) in p.joints[k].iter().zip(p.weights[k]) {
                                let jm = world[skin.joints[*j as usize]]
                                    * Mat4::from_cols_array(&skin.inverse_bind[*j as usize]);
                                acc += w * jm.transform_point3(*x);
                            }
                            acc.to_array()
                        })
                        .collect()
                }
                None => v.iter().map(|x| world[mesh.node].transform_point3(*x).to_array()).collect(),
            };
            out.push(posed);
        }
    }
    out
}

fn size_of(points: &[[f32; 3]]) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in points {
        lo = lo.min(Vec3::from(*p));
        hi = hi.max(Vec3::from(*p));
    }
    (hi - lo).length().max(1e-6)
}

/// Worst distance between `ours` and `theirs` over every primitive, relative to the model size.
fn worst(ours: &[Vec<[f32; 3]>], theirs: &[Vec<[f32; 3]>]) -> f32 {
    assert_eq!(ours.len(), theirs.len(), "primitive count");
    let all: Vec<[f32; 3]> = theirs.iter().flatten().copied().collect();
    let size = size_of(&all);
    let mut w = 0.0f32;
    for (a, b) in ours.iter().zip(theirs) {
        assert_eq!(a.len(), b.len(), "vertex count");
        for (p, q) in a.iter().zip(b) {
            let d = Vec3::from(*p).distance(Vec3::from(*q));
            assert!(d.is_finite(), "non-finite vertex");
            w = w.max(d / size);
        }
    }
    w
}

fn ours_at(m: &ModelData, clip: usize, t: f32) -> Vec<Vec<[f32; 3]>> {
    posed_vertices(m, Some(rig_of(m)), Some(clip), t).into_iter().map(|p| p.positions).collect()
}

#[test]
fn robot_arm_matches_the_straightforward_implementation() {
    let m = import_bytes("/arm.glb", &robot_arm(), None).expect("import");
    let clip = &m.animations[0];
    let mut w = 0.0f32;
    for t in [0.0, 0.2, 0.5, 0.77, 1.0, 3.0] {
        w = w.max(worst(&ours_at(&m, 0, t), &oracle_vertices(&m, clip, t)));
    }
    println!("robot arm: worst error {w:.2e} x model size");
    assert!(w <= 1e-5, "robot arm: worst error {w:e} x model size");
}

#[test]
fn rigid_parts_move_with_their_joints_and_nodes() {
    let m = import_bytes("/arm.glb", &robot_arm(), None).expect("import");
    let at = |t: f32| posed_vertices(&m, Some(rig_of(&m)), Some(0), t);
    let (a, b) = (at(0.0), at(0.5));
    let moved = |name: &str| {
        let mi = m.meshes.iter().position(|x| x.id == name).expect(name);
        let pa = a.iter().find(|p| p.mesh == mi).expect("prim");
        let pb = b.iter().find(|p| p.mesh == mi).expect("prim");
        pa.positions.iter().zip(&pb.positions).map(|(x, y)| Vec3::from(*x).distance(Vec3::from(*y))).fold(0.0, f32::max)
    };
    // Rigid meshes under joints, the nested animated chain and the skinned cable move...
    for name in ["upper_arm", "forearm", "blade", "cable"] {
        assert!(moved(name) > 0.1, "{name} did not move ({})", moved(name));
    }
    // ...and the static base does not.
    assert_eq!(moved("base"), 0.0);
    // The forearm box hangs off the elbow: its bottom centre is at the elbow joint's world place.
    let (world, _) = oracle_nodes(&m, &m.animations[0], 0.5);
    let elbow = world[m.nodes.iter().position(|n| n.gltf_index == nodes::ELBOW).expect("elbow")].w_axis.truncate();
    let fi = m.meshes.iter().position(|x| x.id == "forearm").expect("forearm");
    let f = b.iter().find(|p| p.mesh == fi).expect("prim");
    let lowest = f.positions.iter().map(|p| Vec3::from(*p)).fold(Vec3::ZERO, |s, p| s + p) / f.positions.len() as f32;
    assert!(lowest.distance(elbow) < 0.6, "forearm centre {lowest} far from elbow {elbow}");
}

#[test]
fn anim_state_places_rigid_meshes_for_the_draw_list() {
    let m = import_bytes("/arm.glb", &robot_arm(), None).expect("import");
    let mut s = AnimState::with_meshes(rig_of(&m), &m);
    s.player.play(0, sinew::anim::Playback::OnceForward, 0.0, 0.0, 1.0);
    s.player.set_cursor(0.5);
    let mut weights = vec![0.0; 1];
    s.pose(&mut weights);
    assert_eq!(s.mesh_world.len(), m.meshes.len());
    let (world, w) = oracle_nodes(&m, &m.animations[0], 0.5);
    for (mi, mesh) in m.meshes.iter().enumerate() {
        let expect = if mesh.skin.is_some() { Mat4::IDENTITY } else { world[mesh.node] };
        assert!(s.mesh_world[mi].abs_diff_eq(expect, 1e-5), "mesh {mi}: {:?} vs {expect:?}", s.mesh_world[mi]);
    }
    assert!((weights[0] - w[m.meshes.iter().position(|x| x.skin.is_some()).expect("cable")][0]).abs() < 1e-6);
}

/// A mesh from one file driven by a skeleton and clips from another: rigid meshes follow the
/// skeleton's nodes of the same name.
#[test]
fn rigid_meshes_follow_a_skeleton_from_another_file_by_node_name() {
    let m = import_bytes("/arm.glb", &robot_arm(), None).expect("import");
    let mut other = m.clone();
    other.source = "/mesh_only.glb".into();
    let rig = rig_of(&m);
    let mut s = AnimState::with_meshes(rig, &other);
    s.player.play(0, sinew::anim::Playback::OnceForward, 0.0, 0.0, 1.0);
    s.player.set_cursor(0.5);
    s.pose(&mut []);
    let (world, _) = oracle_nodes(&m, &m.animations[0], 0.5);
    let fi = m.meshes.iter().position(|x| x.id == "forearm").expect("forearm");
    assert!(s.mesh_world[fi].abs_diff_eq(world[m.meshes[fi].node], 1e-5));
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_f64).map(|f| f as f32).collect()).unwrap_or_default()
}

/// Every reference pose: posed vertices of every skinned or morphed primitive and every node's
/// world matrix (node animation) within 1e-4 × model size.
#[test]
fn reference_poses_vertices_and_nodes() {
    let res = Resources::open_dir(&common::data::sample_assets()).expect("assets");
    let files = ["riggedsimple.0.json", "simpleskin.0.json", "fox.survey.json", "fox.run.json"];
    let files = files.iter().chain(&["animatedmorphcube.0.json", "simplemorph.0.json"]);
    for file in files {
        let text = std::fs::read_to_string(common::data::reference_poses().join(file)).expect("reference");
        let r: Value = serde_json::from_str(&text).expect("json");
        let asset = r["asset"].as_str().expect("asset");
        let m = import(&res, &format!("/{asset}")).expect("import");
        let rig = rig_of(&m);
        let clip = r["animation"]["index"].as_u64().expect("index") as usize;
        let mut worst_v = 0.0f32;
        let mut worst_n = 0.0f32;
        let mut count = 0;
        for f in r["frames"].as_array().expect("frames") {
            let t = f["t"].as_f64().expect("t") as f32;
            let ours = posed_vertices(&m, Some(rig.clone()), Some(clip), t);
            let all: Vec<[f32; 3]> =
                f["meshes"].as_array().expect("meshes").iter().flat_map(|x| chunks(&floats(&x["positions"]))).collect();
            let size = size_of(&all);
            for rm in f["meshes"].as_array().expect("meshes") {
                let node = rm["node"].as_u64().expect("node") as usize;
                let prim = rm["primitive"].as_u64().expect("primitive") as usize;
                let theirs = chunks(&floats(&rm["positions"]));
                let p = ours
                    .iter()
                    .find(|p| m.nodes[p.node].gltf_index == node && p.primitive == prim)
                    .unwrap_or_else(|| panic!("{file}: no primitive for node {node}"));
                assert_eq!(p.positions.len(), theirs.len(), "{file}: vertex count");
                for (a, b) in p.positions.iter().zip(&theirs) {
                    worst_v = worst_v.max(Vec3::from(*a).distance(Vec3::from(*b)) / size);
                }
                count += 1;
            }
            // Node matrices through the same AnimState the runtime uses.
            let mut s = AnimState::with_meshes(rig.clone(), &m);
            let duration = m.animations[clip].duration;
            s.player.play(clip, sinew::anim::Playback::OnceForward, 0.0, 0.0, 1.0);
            s.player.set_cursor(if duration > 0.0 { (t / duration).clamp(0.0, 1.0) } else { 0.0 });
            s.pose(&mut []);
            for rn in f["nodes"].as_array().map(|a| a.as_slice()).unwrap_or(&[]) {
                let g = rn["node"].as_u64().expect("node") as usize;
                let Some(k) = m.nodes.iter().position(|n| n.gltf_index == g) else { continue };
                let theirs = Mat4::from_cols_slice(&floats(&rn["world"]));
                let d = (s.model[k].w_axis - theirs.w_axis).length()
                    + (0..3).map(|c| (s.model[k].col(c) - theirs.col(c)).length()).sum::<f32>();
                worst_n = worst_n.max(d / size);
            }
        }
        println!("{file}: {count} primitives, worst vertex {worst_v:.2e}, worst node {worst_n:.2e} x size");
        assert!(count > 0, "{file}: no primitive compared");
        assert!(worst_v <= 1e-4, "{file}: vertex error {worst_v:e} x size");
        assert!(worst_n <= 1e-4, "{file}: node error {worst_n:e} x size");
    }
}

fn chunks(v: &[f32]) -> Vec<[f32; 3]> {
    v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// BoxAnimated: node animation without any skin (no reference file: the oracle above decides).
#[test]
fn box_animated_node_animation() {
    let res = Resources::open_dir(&common::data::sample_assets()).expect("assets");
    let m = import(&res, "/BoxAnimated.gltf").expect("import");
    let clip = &m.animations[0];
    let mut w = 0.0f32;
    for t in [0.0, 0.6, 1.25, 2.0, 3.0, 3.7] {
        w = w.max(worst(&ours_at(&m, 0, t), &oracle_vertices(&m, clip, t)));
    }
    // The inner box really moves between two of those times.
    let (a, b) = (ours_at(&m, 0, 0.0), ours_at(&m, 0, 2.0));
    let inner = m.meshes.iter().position(|x| x.id == "inner_box").expect("inner_box");
    let d = Vec3::from(a[inner][0]).distance(Vec3::from(b[inner][0]));
    println!("BoxAnimated: worst error {w:.2e} x size; inner box moved {d}");
    assert!(d > 0.1, "inner box did not move");
    assert!(w <= 1e-5, "BoxAnimated: {w:e}");
}

/// `sinew inspect --vertices` prints what `posed_vertices` computes, in cli.md's JSON shape.
#[test]
fn inspect_vertices_writes_the_pose() {
    let dir = common::project("inspect_vertices", &[]);
    std::fs::write(dir.path().join("arm.glb"), robot_arm()).expect("write");
    let out = dir.path().join("pose.json");
    let model = dir.path().join("arm.glb");
    let r = common::sinew(&[
        "inspect",
        model.to_str().expect("utf-8"),
        "--anim",
        "swing",
        "--time",
        "0.25",
        "--time",
        "0.5",
        "--vertices",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("pose")).expect("json");
    let m = import_bytes("/arm.glb", &robot_arm(), None).expect("import");
    let (file, _) = sinew::project::gltf::writer::unglb(&robot_arm()).expect("the arm is a GLB");
    let frames = v["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 2);
    for (f, t) in frames.iter().zip([0.25f32, 0.5]) {
        assert_eq!(f["t"].as_f64().expect("t") as f32, t);
        let ours = posed_vertices(&m, Some(rig_of(&m)), Some(0), t);
        let meshes = f["meshes"].as_array().expect("meshes");
        assert_eq!(meshes.len(), ours.len());
        for (j, p) in meshes.iter().zip(&ours) {
            assert_eq!(j["node"].as_u64(), Some(m.nodes[p.node].gltf_index as u64));
            // The file's own mesh index (issue 31), not the order the nodes draw meshes in.
            let node = &file["nodes"][m.nodes[p.node].gltf_index];
            assert_eq!(j["mesh"].as_u64(), node["mesh"].as_u64());
            assert_eq!(chunks(&floats(&j["positions"])), p.positions);
        }
    }
    // By index, and an unknown name lists the animations.
    let r = common::sinew(&["inspect", model.to_str().expect("utf-8"), "--anim", "0", "--vertices", "-"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"frames\""));
    let r = common::sinew(&["inspect", model.to_str().expect("utf-8"), "--anim", "dance", "--vertices", "-"]);
    assert_eq!(r.status, 1);
    assert!(r.stderr.contains("no animation 'dance'") && r.stderr.contains("swing"), "{}", r.stderr);
}

/// A model whose clip moves a node that nothing drawn follows, and a clip file that targets a
/// node the skeleton lacks: `inspect` and `check` warn (and still succeed).
#[test]
fn inspect_and_check_warn_about_motion_nobody_sees() {
    use sinew::project::gltf::robot_arm::box_primitive;
    use sinew::project::gltf::writer::{ChannelSpec, GltfBuilder};
    let mut b = GltfBuilder::new();
    let body = b.node("Body", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.node("Ghost", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.mesh(body, "body", &[box_primitive([0.0; 3], [1.0; 3], None)], &[], &[]);
    let mv = |node| ChannelSpec {
        node,
        path: ChannelPath::Translation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    };
    b.animation("haunt", &[mv(0), mv(1)]);
    let ghost = b.to_glb();
    let d = common::project(
        "warn_motion",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "arm", "components": [
                    { "id": "model", "type": "model", "mesh": "/arm.glb", "animations": ["/arm.glb", "/ghost.glb"] } ] } ] }"#,
            ),
        ],
    );
    std::fs::write(d.path().join("arm.glb"), robot_arm()).expect("write");
    std::fs::write(d.path().join("ghost.glb"), &ghost).expect("write");
    let r = common::sinew(&["inspect", d.path().join("ghost.glb").to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("animation \"haunt\" moves node(s) 1 \"Ghost\" that no drawn mesh follows"),
        "{}",
        r.stderr
    );
    let r = common::sinew(&["inspect", d.path().join("arm.glb").to_str().expect("utf-8")]);
    assert!(!r.stderr.contains("warning"), "the robot arm's motion is all visible: {}", r.stderr);
    let r = common::sinew(&["check", d.path().to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(
        r.stderr.contains("animation 'haunt' targets node(s) 'Body', 'Ghost' that skeleton /arm.glb does not have"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("/ghost.glb: animation \"haunt\" moves node(s) 1 \"Ghost\""), "{}", r.stderr);
}
