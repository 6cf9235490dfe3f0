//! Imports the public Khronos sample models in `tests/data/assets` and checks facts listed in
//! their SOURCES.md.
mod common;
use common::data::{reference_poses, sample_assets};
use sinew::project::Resources;
use sinew::project::gltf::import;
use sinew::project::model_data::{ChannelPath, Interpolation, ModelData};

fn load(name: &str) -> ModelData {
    let res = Resources::open_dir(&sample_assets()).unwrap_or_else(|e| panic!("{e}"));
    import(&res, &format!("/{name}")).unwrap_or_else(|e| panic!("{e}"))
}

fn vertices(m: &ModelData) -> usize {
    m.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum()
}

fn names(m: &ModelData) -> Vec<&str> {
    m.animations.iter().map(|a| a.name.as_str()).collect()
}

fn node_named(m: &ModelData, name: &str) -> Option<usize> {
    m.nodes.iter().position(|n| n.name == name)
}

#[test]
fn every_asset_imports() {
    let res = Resources::open_dir(&sample_assets()).unwrap();
    let files = [res.list(".glb"), res.list(".gltf")].concat();
    assert!(files.len() >= 8, "{files:?}");
    for f in files {
        let m = import(&res, &f).unwrap_or_else(|e| panic!("{e}"));
        assert!(!m.meshes.is_empty(), "{f}");
        assert!(!m.aabb.is_empty(), "{f}");
        for (i, n) in m.nodes.iter().enumerate() {
            assert!(n.parent.is_none_or(|p| p < i), "{f}: node {i} comes before its parent");
        }
        for p in m.meshes.iter().flat_map(|m| &m.primitives) {
            assert_eq!(p.normals.len(), p.positions.len(), "{f}");
            assert!(p.indices.iter().all(|&i| (i as usize) < p.positions.len()), "{f}");
            for w in &p.weights {
                assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{f}: weights {w:?}");
            }
        }
    }
}

#[test]
fn fox() {
    let m = load("Fox.glb");
    assert_eq!(m.skins.len(), 1);
    assert_eq!(m.skins[0].joints.len(), 24);
    assert_eq!(m.skins[0].inverse_bind.len(), 24);
    assert_eq!(names(&m), ["Survey", "Walk", "Run"]);
    for (a, d) in m.animations.iter().zip([3.417, 0.708, 1.158]) {
        assert!((a.duration - d).abs() < 1e-3, "{} {}", a.name, a.duration);
        assert_eq!(a.channels.len(), 21, "{}", a.name);
        assert!(a.channels.iter().all(|c| c.interpolation == Interpolation::Linear));
        assert!(a.channels.iter().all(|c| matches!(c.path, ChannelPath::Rotation | ChannelPath::Translation)));
    }
    assert_eq!(m.meshes.len(), 1);
    assert_eq!(m.meshes[0].skin, Some(0));
    assert_eq!(m.meshes[0].primitives.len(), 1);
    assert_eq!(vertices(&m), 1728);
    let p = &m.meshes[0].primitives[0];
    assert_eq!((p.joints.len(), p.weights.len(), p.texcoords0.len()), (1728, 1728, 1728));
    assert_eq!(m.textures.len(), 1);
    let t = &m.textures[0];
    assert_eq!(t.rgba.len(), (t.width * t.height * 4) as usize);
    assert_eq!(m.materials[0].base_color_texture, Some(0));
    // The reference poses list the skin's joints by glTF node: 2..=25, the first `_rootJoint`.
    let root = node_named(&m, "_rootJoint").unwrap();
    assert_eq!(m.skins[0].joints[0], root);
    assert!(node_named(&m, "b_Root_00").is_some());
}

#[test]
fn rigged_simple() {
    let m = load("RiggedSimple.glb");
    assert_eq!(m.skins.len(), 1);
    let joints: Vec<&str> = m.skins[0].joints.iter().map(|&j| m.nodes[j].name.as_str()).collect();
    assert_eq!(joints, ["Bone", "Bone.001"]);
    assert_eq!(vertices(&m), 160);
    assert_eq!(m.animations.len(), 1);
    assert!((m.animations[0].duration - 2.083).abs() < 1e-3);
    assert!(m.animations[0].channels.iter().any(|c| c.path == ChannelPath::Scale));
}

#[test]
fn simple_skin() {
    let m = load("SimpleSkin.gltf");
    assert_eq!(m.skins[0].joints.len(), 2);
    assert_eq!(vertices(&m), 10);
    assert_eq!(m.meshes[0].id, "mesh_0", "no names anywhere");
    assert_eq!(names(&m), ["animation_0"]);
    assert!((m.animations[0].duration - 5.5).abs() < 1e-4);
    assert_eq!(m.animations[0].channels[0].times.len(), 12);
}

#[test]
fn morph_models() {
    let m = load("AnimatedMorphCube.glb");
    assert_eq!(vertices(&m), 24);
    let p = &m.meshes[0].primitives[0];
    assert_eq!(p.targets.len(), 2);
    assert!(p.targets.iter().all(|t| t.positions.len() == 24 && t.normals.len() == 24 && t.tangents.len() == 24));
    assert_eq!(m.meshes[0].weights, [0.0, 0.0]);
    assert_eq!(names(&m), ["Square"]);
    let c = &m.animations[0].channels[0];
    assert_eq!((c.path, c.components, c.times.len()), (ChannelPath::Weights, 2, 127));
    assert!((m.animations[0].duration - 4.2).abs() < 1e-3);

    let m = load("MorphPrimitivesTest.glb");
    assert_eq!(m.meshes.len(), 1);
    assert_eq!(m.meshes[0].primitives.len(), 2);
    assert!(m.meshes[0].primitives.iter().all(|p| p.targets.len() == 1 && !p.targets[0].positions.is_empty()));
    assert_eq!(m.meshes[0].weights, [0.5]);
    assert!(m.animations.is_empty());
    assert!(m.nodes.iter().any(|n| n.name == "ルートパート"));
    // Its one texture is a JPEG, shared by both materials and decoded once.
    assert_eq!(m.textures.len(), 1);
    assert_eq!((m.textures[0].width, m.textures[0].height), (512, 512));
    assert_eq!(m.materials.iter().map(|m| m.base_color_texture).collect::<Vec<_>>(), [Some(0), Some(0)]);

    let m = load("SimpleMorph.glb");
    assert_eq!(vertices(&m), 3);
    assert_eq!(m.meshes[0].primitives[0].targets.len(), 2);
    assert_eq!(m.meshes[0].weights, [0.5, 0.5]);
    assert_eq!(names(&m), ["animation_0"]);
    assert!((m.animations[0].duration - 4.0).abs() < 1e-4);
}

#[test]
fn animated_boxes() {
    let m = load("AnimatedTriangle.gltf");
    assert_eq!(m.nodes.len(), 1);
    assert_eq!(m.animations[0].channels[0].times.len(), 5);
    assert!((m.animations[0].duration - 1.0).abs() < 1e-5);

    let m = load("BoxAnimated.gltf");
    assert_eq!(m.nodes.len(), 4);
    assert_eq!(vertices(&m), 320);
    assert!((m.animations[0].duration - 3.708).abs() < 1e-3);
    let animated: std::collections::BTreeSet<usize> = m.animations[0].channels.iter().map(|c| c.node).collect();
    assert_eq!(animated.len(), 2);
}

/// Structure facts from the independent reference samples in `tests/data/reference` (their poses
/// are for the animation tests): node count, skin joints by name, per-primitive vertex and morph
/// target counts.
#[test]
fn matches_reference_structure() {
    let list = std::fs::read_dir(reference_poses()).unwrap();
    let mut checked = 0;
    for e in list.flatten() {
        if !e.file_name().to_string_lossy().ends_with(".json") {
            continue;
        }
        let r: serde_json::Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
        let Some(asset) = r["asset"].as_str() else { continue };
        let m = load(asset);
        let frame = &r["frames"][0];
        assert_eq!(m.nodes.len(), frame["nodes"].as_array().unwrap().len(), "{asset}");
        for (k, s) in r["skins"].as_array().unwrap().iter().enumerate() {
            let ours = &m.skins[k];
            assert_eq!(ours.name, s["name"].as_str().unwrap_or(""), "{asset}");
            assert_eq!(ours.joints.len(), s["joints"].as_array().unwrap().len(), "{asset}");
            for j in frame["joints"].as_array().unwrap() {
                let (Some(node), Some(name)) = (j["node"].as_u64(), j["name"].as_str()) else { continue };
                let pos = s["joints"].as_array().unwrap().iter().position(|x| x.as_u64() == Some(node)).unwrap();
                assert_eq!(m.nodes[ours.joints[pos]].name, name, "{asset}");
            }
        }
        for rm in frame["meshes"].as_array().unwrap() {
            let name = rm["meshName"].as_str().or(rm["nodeName"].as_str());
            let mesh = match name {
                Some(n) => m.meshes.iter().find(|x| x.id == n).unwrap(),
                None => &m.meshes[0],
            };
            let p = &mesh.primitives[rm["primitive"].as_u64().unwrap() as usize];
            assert_eq!(p.positions.len() as u64, rm["vertexCount"].as_u64().unwrap(), "{asset}");
            assert_eq!(p.targets.len() as u64, rm["morphTargets"].as_u64().unwrap(), "{asset}");
            assert_eq!(mesh.skin.is_some(), rm["skin"].is_u64(), "{asset}");
        }
        checked += 1;
    }
    assert!(checked >= 6, "{checked} reference files");
}
