//! `sinew inspect` on generated models, through the real binary.
mod common;
use common::TempDir;
use sinew::project::gltf::samples::textured_cube;
use sinew::project::gltf::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, TargetSpec};
use sinew::project::model_data::{ChannelPath, Interpolation};
use std::process::Command;

const Q0: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A two-joint skinned triangle with two named morph targets and one clip.
fn skinned_morph() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let hips = b.node("hips", None, [0.0; 3], Q0, [1.0; 3]);
    let tail = b.node("tail", Some(hips), [0.0, 1.0, 0.0], Q0, [1.0; 3]);
    let body = b.node("body", None, [0.0; 3], Q0, [1.0; 3]);
    let prim = PrimitiveSpec {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        joints: vec![[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]],
        weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
        targets: vec![
            TargetSpec { positions: vec![[0.0, 0.0, 1.0]; 3], normals: vec![] },
            TargetSpec { positions: vec![[1.0, 0.0, 0.0]; 3], normals: vec![] },
        ],
        ..Default::default()
    };
    b.mesh(body, "blob", &[prim], &[0.0, 1.0], &["puff", "lean"]);
    b.skin(body, &[hips, tail], None);
    b.animation(
        "wag",
        &[
            ChannelSpec {
                node: tail,
                path: ChannelPath::Rotation,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 0.25, 0.5],
                values: vec![0., 0., 0., 1., 0., 0., 0.38268343, 0.9238795, 0., 0., 0., 1.],
            },
            ChannelSpec {
                node: body,
                path: ChannelPath::Weights,
                interpolation: Interpolation::Step,
                times: vec![0.0, 0.5],
                values: vec![0., 0., 1., 1.],
            },
        ],
    );
    b.to_glb()
}

fn inspect(path: &std::path::Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew")).arg("inspect").arg(path).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn prints_meshes_skins_targets_and_clips() {
    let dir = TempDir::new("inspect");
    let path = dir.path().join("blob.glb");
    std::fs::write(&path, skinned_morph()).unwrap();
    let (code, out, err) = inspect(&path);
    assert_eq!(code, 0, "{err}");
    for line in [
        "meshes: 1",
        "  mesh \"blob\": node 2 \"body\", skin 0, 1 primitive(s)",
        // No material in the file: glTF's default material, listed last.
        "    primitive 0: 3 vertices, 1 triangles, material 0, POSITION NORMAL JOINTS_0 WEIGHTS_0",
        "materials: 1",
        "    morph targets: 2",
        "      target 0 \"puff\": weight 0",
        "      target 1 \"lean\": weight 1",
        "skins: 1",
        "  skin 0 \"\": 2 joints",
        "    joint 1: node 1 \"tail\", parent 0 \"hips\"",
        "animations: 1",
        "  animation \"wag\": duration 0.500 s, 2 channels",
        "    node 1 \"tail\" rotation LINEAR, 3 keys",
        "    node 2 \"body\" weights STEP, 2 keys",
    ] {
        assert!(out.lines().any(|l| l == line), "missing line {line:?} in:\n{out}");
    }

    std::fs::write(dir.path().join("cube.glb"), textured_cube()).unwrap();
    let (code, out, _) = inspect(&dir.path().join("cube.glb"));
    assert_eq!(code, 0);
    assert!(out.contains("  material 0 \"checker\": base colour (1, 1, 1, 1), texture 64x64"), "{out}");
    assert!(out.contains("bounds: min (-0.5, -0.5, -0.5) max (0.5, 0.5, 0.5)"), "{out}");
}

#[test]
fn a_corrupted_model_exits_1_naming_the_file() {
    let dir = TempDir::new("inspect-bad");
    let path = dir.path().join("broken.glb");
    let good = skinned_morph();
    std::fs::write(&path, &good[..good.len() - 10]).unwrap();
    let (code, out, err) = inspect(&path);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains(&format!("{}: truncated GLB", path.display())), "{err}");
    let (code, _, err) = inspect(&dir.path().join("missing.glb"));
    assert_eq!(code, 1);
    assert!(err.contains("missing.glb"), "{err}");
}

/// Issue 31: `--vertices` reported `mesh` as the order the nodes draw meshes in, not the glTF
/// mesh index (RobotExpressive: node 16 draws mesh 4, reported as 3). Here node 0 draws mesh 1.
#[test]
fn vertices_name_the_gltf_mesh_index() {
    let mut b = GltfBuilder::new();
    let first = b.node("first", None, [0.0; 3], Q0, [1.0; 3]);
    let second = b.node("second", None, [5.0, 0.0, 0.0], Q0, [1.0; 3]);
    let tri = |x: f32| PrimitiveSpec {
        positions: vec![[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 1.0, 0.0]],
        ..Default::default()
    };
    assert_eq!(b.mesh(second, "drawn_second", &[tri(0.0)], &[], &[]), 0);
    assert_eq!(b.mesh(first, "drawn_first", &[tri(0.0)], &[], &[]), 1);
    let dir = TempDir::new("inspect_mesh_index");
    let path = dir.path().join("two.glb");
    std::fs::write(&path, b.to_glb()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sinew")).arg("inspect").arg(&path).args(["--vertices", "-"]).output();
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs: Vec<(u64, u64)> = v["frames"][0]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["node"].as_u64().unwrap(), m["mesh"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs, [(0, 1), (1, 0)]);
}
