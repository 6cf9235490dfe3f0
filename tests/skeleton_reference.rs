//! Skeletal and morph animation against the reference poses in `tests/data/reference` (an
//! independent three.js + float64 implementation of glTF animation): joint and node world
//! matrices, morph weights and final vertex positions (morph, then skin) at the listed times.
mod common;

use glam::{Mat4, Vec3};
use serde_json::Value;
use sinew::anim::skinning::{morph_positions, skin_positions};
use sinew::anim::{Clip, SamplingCache, Skeleton};
use sinew::project::Resources;
use sinew::project::gltf::import;

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_f64).map(|f| f as f32).collect()).unwrap_or_default()
}

/// Worst errors seen in one reference file, for the report line.
#[derive(Default, Debug)]
struct Worst {
    matrix: f32,
    position: f32,
    weight: f32,
    checked: usize,
}

/// Compares one reference file; returns the worst absolute errors.
fn check(file: &str) -> Worst {
    let text = std::fs::read_to_string(common::data::reference_poses().join(file)).unwrap();
    let reference: Value = serde_json::from_str(&text).unwrap();
    let asset = reference["asset"].as_str().unwrap();
    let res = Resources::open_dir(&common::data::sample_assets()).unwrap();
    let model = import(&res, &format!("/{asset}")).unwrap_or_else(|e| panic!("{e}"));
    let skeleton = Skeleton::new(&model).unwrap();
    let clips: Vec<Clip> = model.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let clip = &clips[reference["animation"]["index"].as_u64().unwrap() as usize];
    let expected = reference["animation"]["duration"].as_f64().unwrap() as f32;
    assert!((clip.duration() - expected).abs() < 1e-5, "{file}: duration {} vs {expected}", clip.duration());
    let ours = |g: u64| (0..skeleton.node_count()).find(|&i| skeleton.gltf_index(i) == Some(g as usize)).unwrap();

    // Model size: diagonal of the reference positions' bounds (world space), else the model AABB.
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for m in reference["frames"][0]["meshes"].as_array().unwrap() {
        for p in floats(&m["positions"]).chunks_exact(3) {
            lo = lo.min(Vec3::from_slice(p));
            hi = hi.max(Vec3::from_slice(p));
        }
    }
    let size = (hi - lo).length().max(Vec3::from(model.aabb.max).distance(Vec3::from(model.aabb.min)));
    let tol = 1e-4 * size;

    let mut cache = SamplingCache::new(clip);
    let mut locals = skeleton.rest().to_vec();
    let mut weights = skeleton.rest_weights().to_vec();
    let mut world = vec![Mat4::IDENTITY; skeleton.node_count()];
    let mut worst = Worst::default();
    for frame in reference["frames"].as_array().unwrap() {
        let t = frame["clipTime"].as_f64().unwrap() as f32;
        locals.copy_from_slice(skeleton.rest());
        weights.copy_from_slice(skeleton.rest_weights());
        clip.sample(t, &mut cache, &mut locals, &mut weights).unwrap();
        skeleton.local_to_model(&locals, &mut world).unwrap();

        // Joints and every node: rotation-scale part to 1e-4 relative, translation to tol.
        let joints = frame["joints"].as_array().unwrap();
        let nodes = frame["nodes"].as_array().unwrap();
        for j in joints.iter().chain(nodes) {
            let want = floats(&j["world"]);
            let got = world[ours(j["node"].as_u64().unwrap())].to_cols_array();
            let scale = want[..12].iter().fold(1.0f32, |a, v| a.max(v.abs()));
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let (err, limit) =
                    if (12..15).contains(&k) { ((g - w).abs(), tol) } else { ((g - w).abs(), 1e-4 * scale) };
                assert!(err <= limit, "{file} t={t} node {}: world[{k}] {g} vs {w}", j["node"]);
                worst.matrix = worst.matrix.max(err);
                worst.checked += 1;
            }
        }

        for m in frame["meshes"].as_array().unwrap() {
            let node = ours(m["node"].as_u64().unwrap());
            let mi = (0..skeleton.mesh_count()).find(|&i| skeleton.mesh_node(i) == Some(node)).unwrap();
            let prim = &model.meshes[mi].primitives[m["primitive"].as_u64().unwrap() as usize];
            let w = &weights[skeleton.mesh_weights(mi)];
            for (g, want) in w.iter().zip(floats(&m["weights"])) {
                assert!((g - want).abs() < 1e-5, "{file} t={t} mesh {mi}: weights {w:?} vs {}", m["weights"]);
                worst.weight = worst.weight.max((g - want).abs());
            }
            assert_eq!(w.len(), floats(&m["weights"]).len(), "{file}: weight count");
            let mut morphed = vec![[0.0; 3]; prim.positions.len()];
            morph_positions(&prim.positions, &prim.targets, w, &mut morphed).unwrap();
            let mut out = vec![[0.0; 3]; prim.positions.len()];
            match skeleton.mesh_skin(mi) {
                Some(s) => {
                    let mut palette = vec![Mat4::IDENTITY; skeleton.skin_joints(s).len()];
                    skeleton.palette(s, &world, &mut palette).unwrap();
                    skin_positions(&palette, &morphed, &prim.joints, &prim.weights, &mut out).unwrap();
                }
                None => {
                    for (o, p) in out.iter_mut().zip(&morphed) {
                        *o = world[node].transform_point3(Vec3::from(*p)).to_array();
                    }
                }
            }
            let want = floats(&m["positions"]);
            assert_eq!(want.len(), out.len() * 3, "{file}: vertex count");
            for (v, (g, w)) in out.iter().zip(want.chunks_exact(3)).enumerate() {
                let err = Vec3::from(*g).distance(Vec3::from_slice(w));
                assert!(err <= tol, "{file} t={t} mesh {mi} vertex {v}: {g:?} vs {w:?} (tolerance {tol})");
                worst.position = worst.position.max(err);
            }
        }
    }
    println!(
        "{file}: size {size:.3}, worst matrix {:.2e}, position {:.2e}, weight {:.2e} ({} values)",
        worst.matrix, worst.position, worst.weight, worst.checked
    );
    worst
}

#[test]
fn fox_survey() {
    check("fox.survey.json");
}
#[test]
fn fox_run() {
    check("fox.run.json");
}
#[test]
fn rigged_simple() {
    check("riggedsimple.0.json");
}
#[test]
fn simple_skin() {
    check("simpleskin.0.json");
}
#[test]
fn animated_morph_cube() {
    check("animatedmorphcube.0.json");
}
#[test]
fn simple_morph() {
    check("simplemorph.0.json");
}
