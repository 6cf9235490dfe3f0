//! Round trips through the writer, hand-edited variants of generated files, and corrupted copies
//! (each must give an error, never a panic).
use super::samples::{checker_png, textured_cube, textured_grid};
use super::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, TargetSpec, glb, unglb};
use super::{import, import_bytes};
use crate::project::Resources;
use crate::project::model_data::{ChannelPath, Interpolation, ModelData, Wrap};
use serde_json::{Value, json};

const Q0: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const IBM: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, -2.0, -3.0, 1.0];

fn imp(bytes: &[u8]) -> Result<ModelData, String> {
    import_bytes("/m/t.glb", bytes, None).map_err(|e| e.to_string())
}

fn err(bytes: &[u8]) -> String {
    match imp(bytes) {
        Ok(_) => panic!("imported a bad file"),
        Err(e) => e,
    }
}

fn edit(bytes: &[u8], f: impl FnOnce(&mut Value, &mut Vec<u8>)) -> Vec<u8> {
    let (mut j, mut b) = unglb(bytes).unwrap();
    f(&mut j, &mut b);
    glb(&j, &b)
}

/// Where accessor `a`'s data starts in the binary buffer.
fn acc_offset(j: &Value, a: usize) -> usize {
    let acc = &j["accessors"][a];
    let v = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    (v["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0)) as usize
}

fn attr(j: &Value, name: &str) -> usize {
    j["meshes"][0]["primitives"][0]["attributes"][name].as_u64().unwrap() as usize
}

/// Appends bytes (4-aligned) as a new buffer view; returns its index.
fn add_view(j: &mut Value, b: &mut Vec<u8>, bytes: &[u8]) -> usize {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let views = j["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": b.len(), "byteLength": bytes.len() }));
    let n = views.len() - 1;
    b.extend_from_slice(bytes);
    j["buffers"][0]["byteLength"] = json!(b.len());
    n
}

fn add_accessor(j: &mut Value, a: Value) -> usize {
    let list = j["accessors"].as_array_mut().unwrap();
    list.push(a);
    list.len() - 1
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Two joints under a root, a skinned morphing quad with every attribute, a texture and a clip
/// with one channel of each interpolation.
fn rich_builder() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let root = b.node("root", None, [1.0, 2.0, 3.0], Q0, [1.0; 3]);
    let arm = b.node("arm", Some(root), [0.0, 1.0, 0.0], [0.0, 0.0, 0.70710677, 0.70710677], [2.0; 3]);
    let body = b.node("body", None, [5.0, 0.0, 0.0], Q0, [1.0; 3]);
    let tex = b.texture_png(&checker_png(4, 2, [255, 0, 0, 255], [0, 0, 255, 255]), true);
    b.material("skin", [0.5, 0.6, 0.7, 1.0], Some(tex));
    let prim = PrimitiveSpec {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        texcoords0: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        colors: vec![[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.5], [1.0; 4]],
        joints: vec![[0, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]],
        weights: vec![[0.5, 0.5, 0.0, 0.0], [0.3, 0.3, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0; 4]],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(0),
        targets: vec![
            TargetSpec { positions: vec![[0.0, 0.0, 1.0]; 4], normals: vec![] },
            TargetSpec { positions: vec![[0.0, 1.0, 0.0]; 4], normals: vec![[0.0, 0.0, 0.0]; 4] },
        ],
        ..Default::default()
    };
    b.mesh(body, "body", &[prim], &[0.25, 0.5], &["smile", "frown"]);
    b.skin(body, &[root, arm], Some(&[IBM, IBM]));
    let ch = |node, path, interpolation, times: &[f32], values: &[f32]| ChannelSpec {
        node,
        path,
        interpolation,
        times: times.to_vec(),
        values: values.to_vec(),
    };
    b.animation(
        "wave",
        &[
            ch(
                arm,
                ChannelPath::Rotation,
                Interpolation::Linear,
                &[0.0, 0.5, 1.0],
                &[0., 0., 0., 1., 0., 0., 1., 0., 0., 0., 0., 1.],
            ),
            ch(root, ChannelPath::Translation, Interpolation::Step, &[0.0, 2.0], &[0., 0., 0., 1., 1., 1.]),
            ch(
                body,
                ChannelPath::Weights,
                Interpolation::CubicSpline,
                &[0.0, 1.5],
                &[0., 0., 0., 0., 0., 0., 0., 0., 1., 1., 0., 0.],
            ),
        ],
    );
    b.animation("", &[ch(arm, ChannelPath::Scale, Interpolation::Linear, &[0.0], &[1., 1., 1.])]);
    b
}

fn rich() -> Vec<u8> {
    rich_builder().to_glb()
}

#[test]
fn round_trip_keeps_every_value() {
    let m = imp(&rich()).unwrap();
    assert_eq!(m.source, "/m/t.glb");
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["root", "arm", "body"]);
    assert_eq!(m.nodes[1].parent, Some(0));
    assert_eq!(m.nodes[1].rotation, [0.0, 0.0, 0.70710677, 0.70710677]);
    assert_eq!(m.nodes[1].scale, [2.0; 3]);
    assert_eq!(m.nodes[0].translation, [1.0, 2.0, 3.0]);

    let mesh = &m.meshes[0];
    assert_eq!((mesh.id.as_str(), mesh.node, mesh.skin), ("body", 2, Some(0)));
    assert_eq!(mesh.target_names, ["smile", "frown"]);
    assert_eq!(mesh.weights, [0.25, 0.5]);
    let p = &mesh.primitives[0];
    assert_eq!(p.positions[2], [1.0, 1.0, 0.0]);
    assert_eq!(p.normals, vec![[0.0, 0.0, 1.0]; 4]);
    assert_eq!(p.texcoords0[1], [1.0, 0.0]);
    assert!(p.texcoords1.is_empty() && p.tangents.is_empty());
    assert_eq!(p.colors[2], [0.0, 0.0, 1.0, 0.5]);
    assert_eq!(p.joints[0], [0, 1, 0, 0]);
    assert_eq!(p.weights[1], [0.5, 0.5, 0.0, 0.0], "renormalised");
    assert_eq!(p.weights[3], [1.0, 0.0, 0.0, 0.0], "all-zero weights bind to the first joint");
    assert_eq!(p.indices, [0, 1, 2, 0, 2, 3]);
    assert_eq!(p.material, Some(0));
    assert_eq!(p.targets[0].positions, vec![[0.0, 0.0, 1.0]; 4]);
    assert!(p.targets[0].normals.is_empty());
    assert_eq!(p.targets[1].normals.len(), 4);
    // Skinned: the node's translation (5, 0, 0) does not apply.
    assert_eq!((mesh.aabb.min, mesh.aabb.max), ([0.0; 3], [1.0, 1.0, 0.0]));
    assert_eq!(m.aabb, mesh.aabb);

    assert_eq!(m.skins[0].joints, [0, 1]);
    assert_eq!(m.skins[0].inverse_bind, [IBM, IBM]);

    let mat = &m.materials[0];
    assert_eq!((mat.name.as_str(), mat.base_color, mat.base_color_texture), ("skin", [0.5, 0.6, 0.7, 1.0], Some(0)));
    let t = &m.textures[0];
    assert_eq!((t.width, t.height, t.wrap_s, t.mag_linear, t.mipmaps), (4, 4, Wrap::Repeat, false, false));
    assert_eq!(&t.rgba[..8], &[255, 0, 0, 255, 255, 0, 0, 255]);
    assert_eq!(&t.rgba[8..12], &[0, 0, 255, 255]);

    assert_eq!(m.animations.len(), 2);
    let a = &m.animations[0];
    assert_eq!((a.name.as_str(), a.duration), ("wave", 2.0));
    let c = &a.channels;
    assert_eq!(
        (c[0].node, c[0].path, c[0].interpolation, c[0].components),
        (1, ChannelPath::Rotation, Interpolation::Linear, 4)
    );
    assert_eq!(c[0].times, [0.0, 0.5, 1.0]);
    assert_eq!(c[0].values[4..8], [0.0, 0.0, 1.0, 0.0]);
    assert_eq!((c[1].interpolation, c[1].values.len()), (Interpolation::Step, 6));
    assert_eq!(
        (c[2].path, c[2].interpolation, c[2].components, c[2].values.len()),
        (ChannelPath::Weights, Interpolation::CubicSpline, 2, 12)
    );
    assert_eq!(m.animations[1].name, "animation_1");
}

#[test]
fn generated_cube_and_grid() {
    let m = imp(&textured_cube()).unwrap();
    let p = &m.meshes[0].primitives[0];
    assert_eq!((p.positions.len(), p.indices.len(), p.texcoords0.len()), (24, 36, 24));
    assert_eq!((m.aabb.min, m.aabb.max), ([-0.5; 3], [0.5; 3]));
    assert_eq!((m.textures[0].width, m.textures[0].height), (64, 64));
    // Every triangle winds counter-clockwise seen from outside (its normal points away from the centre).
    for t in p.indices.chunks(3) {
        let v = |i: u32| glam::Vec3::from(p.positions[i as usize]);
        let n = (v(t[1]) - v(t[0])).cross(v(t[2]) - v(t[0]));
        assert!(n.dot(glam::Vec3::from(p.normals[t[0] as usize])) > 0.0);
    }
    let m = imp(&textured_grid(250, 100)).unwrap();
    assert_eq!(m.meshes[0].primitives[0].indices.len(), 150_000);
    assert!(m.textures[0].mipmaps && m.textures[0].min_linear);
    // More than 65,536 vertices: written (and read) as u32 indices.
    let m = imp(&textured_grid(300, 300)).unwrap();
    assert_eq!(m.meshes[0].primitives[0].positions.len(), 301 * 301);
}

#[test]
fn node_transforms_reach_bounds_and_missing_normals_are_generated() {
    let cube = edit(&textured_cube(), |j, _| {
        j["nodes"][0]["translation"] = json!([10.0, 0.0, 0.0]);
        j["nodes"][0]["children"] = json!([1]);
        j["nodes"].as_array_mut().unwrap().push(json!({ "name": "inner", "mesh": 0, "scale": [2.0, 2.0, 2.0] }));
        j["nodes"][0].as_object_mut().unwrap().remove("mesh");
        j["meshes"][0].as_object_mut().unwrap().remove("name");
        j["meshes"][0]["primitives"][0]["attributes"].as_object_mut().unwrap().remove("NORMAL");
    });
    let m = imp(&cube).unwrap();
    assert_eq!(m.meshes[0].id, "inner", "unnamed mesh takes the node's name");
    assert_eq!((m.aabb.min, m.aabb.max), ([9.0, -1.0, -1.0], [11.0, 1.0, 1.0]));
    let p = &m.meshes[0].primitives[0];
    assert!((p.normals[0][0] - 1.0).abs() < 1e-6, "{:?}", p.normals[0]);
}

#[test]
fn children_before_parents_are_sorted_and_references_remapped() {
    let original = imp(&rich()).unwrap();
    // Reverse the node list: index i becomes 2 - i everywhere.
    let reversed = edit(&rich(), |j, _| {
        let r = |v: &Value| json!(2 - v.as_u64().unwrap());
        let mut nodes = j["nodes"].as_array().unwrap().clone();
        nodes.reverse();
        for n in &mut nodes {
            if let Some(c) = n.get_mut("children") {
                *c = Value::Array(c.as_array().unwrap().iter().map(r).collect());
            }
        }
        j["nodes"] = Value::Array(nodes);
        j["scenes"][0]["nodes"] = Value::Array(j["scenes"][0]["nodes"].as_array().unwrap().iter().map(r).collect());
        j["skins"][0]["joints"] = Value::Array(j["skins"][0]["joints"].as_array().unwrap().iter().map(r).collect());
        for a in j["animations"].as_array_mut().unwrap() {
            for c in a["channels"].as_array_mut().unwrap() {
                c["target"]["node"] = r(&c["target"]["node"]);
            }
        }
    });
    let m = imp(&reversed).unwrap();
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["body", "root", "arm"]);
    assert_eq!(m.nodes[2].parent, Some(1));
    let name = |m: &ModelData, i: usize| m.nodes[i].name.clone();
    assert_eq!(name(&m, m.meshes[0].node), "body");
    let joints = |m: &ModelData| m.skins[0].joints.iter().map(|&j| name(m, j)).collect::<Vec<_>>();
    assert_eq!(joints(&m), joints(&original));
    for (a, b) in m.animations[0].channels.iter().zip(&original.animations[0].channels) {
        assert_eq!(name(&m, a.node), name(&original, b.node));
    }
}

#[test]
fn sparse_and_normalized_accessors() {
    let bytes = edit(&rich(), |j, b| {
        // POSITION: vertex 1 replaced by a sparse value.
        let iv = add_view(j, b, &1u16.to_le_bytes());
        let vv = add_view(j, b, &f32_bytes(&[9.0, 8.0, 7.0]));
        let pos = attr(j, "POSITION");
        j["accessors"][pos]["sparse"] = json!({ "count": 1, "indices": { "bufferView": iv, "componentType": 5123 }, "values": { "bufferView": vv } });
        // A morph target with no bufferView at all: zeros plus sparse values (u8 indices).
        let iv = add_view(j, b, &[0u8, 3]);
        let vv = add_view(j, b, &f32_bytes(&[1.0, 0.0, 0.0, 0.0, 0.0, 2.0]));
        let sp = json!({ "count": 2, "indices": { "bufferView": iv, "componentType": 5121 }, "values": { "bufferView": vv } });
        let t = add_accessor(j, json!({ "componentType": 5126, "count": 4, "type": "VEC3", "sparse": sp }));
        j["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = json!(t);
        // Normalized integer attributes: u8 RGB colours, u16 texcoords, u8 weights.
        let cv = add_view(j, b, &[255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 51, 51, 51, 0]);
        j["bufferViews"][cv]["byteStride"] = json!(4);
        let c = add_accessor(
            j,
            json!({ "bufferView": cv, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC3" }),
        );
        let uv: Vec<u8> = [0u16, 65535, 65535, 0, 0, 0, 65535, 65535].iter().flat_map(|v| v.to_le_bytes()).collect();
        let tv = add_view(j, b, &uv);
        let t1 = add_accessor(
            j,
            json!({ "bufferView": tv, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC2" }),
        );
        let wv = add_view(j, b, &[255, 0, 0, 0, 100, 100, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0]);
        let w = add_accessor(
            j,
            json!({ "bufferView": wv, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4" }),
        );
        let attrs = &mut j["meshes"][0]["primitives"][0]["attributes"];
        attrs["COLOR_0"] = json!(c);
        attrs["TEXCOORD_1"] = json!(t1);
        attrs["WEIGHTS_0"] = json!(w);
    });
    let m = imp(&bytes).unwrap();
    let p = &m.meshes[0].primitives[0];
    assert_eq!(p.positions[1], [9.0, 8.0, 7.0]);
    assert_eq!(p.positions[2], [1.0, 1.0, 0.0]);
    assert_eq!(p.targets[0].positions, [[1.0, 0.0, 0.0], [0.0; 3], [0.0; 3], [0.0, 0.0, 2.0]]);
    assert_eq!(p.colors[0], [1.0, 0.0, 0.0, 1.0]);
    assert!((p.colors[3][0] - 0.2).abs() < 1e-6);
    assert_eq!(p.texcoords1[0], [0.0, 1.0]);
    assert_eq!(p.weights[1], [0.5, 0.5, 0.0, 0.0]);
}

fn temp_project(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew_gltf_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    dir
}

fn jpeg(w: u16, h: u16) -> Vec<u8> {
    let px: Vec<u8> = (0..w as usize * h as usize).flat_map(|_| [200u8, 40, 40]).collect();
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 90).encode(&px, w, h, jpeg_encoder::ColorType::Rgb).unwrap();
    out
}

#[test]
fn gltf_with_sibling_files_data_uris_and_jpeg() {
    let dir = temp_project("files");
    let b = rich_builder();
    let mut j = b.to_json(Some("rich%20data.bin"));
    j["images"][0] = json!({ "uri": "tex/skin.jpg" });
    std::fs::write(dir.join("models/rich data.bin"), b.bin()).unwrap();
    std::fs::create_dir_all(dir.join("models/tex")).unwrap();
    std::fs::write(dir.join("models/tex/skin.jpg"), jpeg(8, 4)).unwrap();
    std::fs::write(dir.join("models/rich.gltf"), j.to_string()).unwrap();
    let res = Resources::open_dir(&dir).unwrap();
    let m = import(&res, "/models/rich.gltf").unwrap();
    assert_eq!(m.meshes[0].primitives[0].positions.len(), 4);
    let t = &m.textures[0];
    assert_eq!((t.width, t.height, t.rgba.len()), (8, 4, 128));
    assert!(t.rgba[0] > 150 && t.rgba[1] < 90 && t.rgba[3] == 255, "{:?}", &t.rgba[..4]);

    // Escapes and missing files.
    let mut up = j.clone();
    up["buffers"][0]["uri"] = json!("../../secret.bin");
    std::fs::write(dir.join("models/up.gltf"), up.to_string()).unwrap();
    let e = import(&res, "/models/up.gltf").unwrap_err().to_string();
    assert!(e.starts_with("/models/up.gltf: buffers[0].uri: '../../secret.bin' leaves the project root"), "{e}");
    let mut missing = j.clone();
    missing["buffers"][0]["uri"] = json!("nothing.bin");
    let e = import_bytes("/models/x.gltf", missing.to_string().as_bytes(), Some(&res)).unwrap_err().to_string();
    assert!(e.contains("buffers[0].uri") && e.contains("not found"), "{e}");
    let e = import_bytes("/models/x.gltf", j.to_string().as_bytes(), None).unwrap_err().to_string();
    assert!(e.contains("needs a project folder"), "{e}");
    // A missing image file is left out with a warning, as Defold ignores glTF images (a
    // `.model` supplies the textures); the material keeps its factors and loses the map.
    let mut no_image = j.clone();
    no_image["images"][0] = json!({ "uri": "tex/not_shipped.png" });
    std::fs::write(dir.join("models/no_image.gltf"), no_image.to_string()).unwrap();
    let m = import(&res, "/models/no_image.gltf").unwrap();
    assert!(m.textures.is_empty() && m.materials.iter().all(|x| x.base_color_texture.is_none()), "{:?}", m.materials);
    // An image that is there but broken is still an error.
    std::fs::write(dir.join("models/tex/broken.png"), b"not a png").unwrap();
    no_image["images"][0] = json!({ "uri": "tex/broken.png" });
    let e = import_bytes("/models/no_image.gltf", no_image.to_string().as_bytes(), Some(&res)).unwrap_err().to_string();
    assert!(e.contains("images[0]"), "{e}");

    // Everything embedded as data URIs needs no project.
    let mut inline = b.to_json(Some(""));
    let m = import_bytes("/x.gltf", inline.to_string().as_bytes(), None).unwrap();
    assert_eq!(m.textures[0].width, 4);
    inline["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@@");
    let e = import_bytes("/x.gltf", inline.to_string().as_bytes(), None).unwrap_err().to_string();
    assert!(e.contains("buffers[0].uri: bad base64"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn specific_corruptions_name_the_gltf_path() {
    let good = rich();
    let j = unglb(&good).unwrap().0;
    let idx = j["meshes"][0]["primitives"][0]["indices"].as_u64().unwrap() as usize;
    let pos = attr(&j, "POSITION");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            edit(&good, |j, b| b[acc_offset(j, idx) + 2] = 200),
            "/m/t.glb: meshes[0].primitives[0].indices: index 200 out of range (4 vertices)",
        ),
        (edit(&good, |j, _| j["accessors"][pos]["count"] = json!(1_000_000_000u64)), "1000000000 elements need"),
        (edit(&good, |j, _| j["accessors"][pos]["count"] = json!(u64::MAX)), "/m/t.glb: "),
        (edit(&good, |j, _| j["accessors"][pos]["byteOffset"] = json!(u64::MAX - 3)), "elements need"),
        (
            edit(&good, |j, _| {
                let v = j["accessors"][pos]["bufferView"].as_u64().unwrap() as usize;
                j["bufferViews"][v]["byteStride"] = json!(8);
            }),
            "byteStride 8 is smaller than one element (12 bytes)",
        ),
        (
            edit(&good, |j, _| {
                let v = j["accessors"][pos]["bufferView"].as_u64().unwrap() as usize;
                j["bufferViews"][v]["byteStride"] = json!(200);
            }),
            "4 elements need 612 bytes but bufferViews",
        ),
        (
            edit(&good, |j, _| {
                let v = j["accessors"][pos]["bufferView"].as_u64().unwrap() as usize;
                j["bufferViews"][v]["byteStride"] = json!(256);
            }),
            "byteStride",
        ),
        (edit(&good, |j, _| j["buffers"][0]["byteLength"] = json!(1u64 << 40)), "buffers[0]: byteLength is"),
        (glb(&j, &[]), "buffers[0]: no uri and the file has no GLB BIN chunk"),
        (
            edit(&good, |j, b| {
                let v = j["images"][0]["bufferView"].as_u64().unwrap() as usize;
                let at = j["bufferViews"][v]["byteOffset"].as_u64().unwrap() as usize;
                b[at..at + 4].copy_from_slice(b"GIF8");
            }),
            "images[0]: image is neither PNG nor JPEG",
        ),
        (
            edit(&good, |j, b| {
                let v = j["images"][0]["bufferView"].as_u64().unwrap() as usize;
                let at = j["bufferViews"][v]["byteOffset"].as_u64().unwrap() as usize;
                b[at + 20] ^= 0xFF; // inside IHDR: the CRC no longer matches
            }),
            "images[0]: bad PNG",
        ),
        (
            edit(&good, |j, b| {
                let at = acc_offset(j, pos) + 12;
                b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
            }),
            "meshes[0].primitives[0].attributes.POSITION[1]: position is not finite",
        ),
        (edit(&good, |j, _| j["meshes"][0]["primitives"][0]["mode"] = json!(1)), "mode: Lines is not supported"),
        (
            edit(&good, |j, b| {
                let input = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
                let at = acc_offset(j, input) + 8;
                b[at..at + 4].copy_from_slice(&0.5f32.to_le_bytes());
            }),
            "animations[0].samplers[0].input[2]: time 0.5 does not increase (after 0.5)",
        ),
        (
            edit(&good, |j, _| {
                let out = j["animations"][0]["samplers"][2]["output"].as_u64().unwrap() as usize;
                j["animations"][0]["samplers"][2]["output"] = json!(out - 1);
            }),
            "animations[0].samplers[2].output",
        ),
        (
            edit(&good, |j, _| j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(999)),
            "attributes.POSITION: accessor 999 does not exist",
        ),
        (
            edit(&good, |j, b| {
                let at = acc_offset(j, attr(j, "JOINTS_0"));
                b[at] = 9;
            }),
            "JOINTS_0: vertex 0: joint 9 out of range (2 joints)",
        ),
        (edit(&good, |j, _| j["nodes"][0]["children"] = json!([0])), "node 0"),
        (edit(&good, |j, _| j["nodes"][2]["children"] = json!([1])), "node 1 already has parent 0"),
        (edit(&good, |j, _| j["nodes"][0]["translation"] = json!([1e39, 0, 0])), "/m/t.glb: "),
        (edit(&good, |j, _| j["accessors"][idx]["componentType"] = json!(5126)), "indices (accessors["),
        (edit(&good, |j, _| j["accessors"][pos]["type"] = json!("VEC2")), "type VEC2 is not what"),
        (edit(&good, |j, _| j["skins"][0]["joints"] = json!([0, 7])), "skins[0].joints[1]"),
        (
            edit(&good, |j, _| j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"] = json!(5)),
            "index",
        ),
        (edit(&good, |j, _| j["meshes"][0]["weights"] = json!([1.0])), "meshes[0].weights: 2 finite weights needed"),
        (
            edit(&good, |j, b| {
                let iv = add_view(j, b, &7u16.to_le_bytes());
                let vv = add_view(j, b, &f32_bytes(&[1.0, 1.0, 1.0]));
                j["accessors"][pos]["sparse"] = json!({ "count": 1,
                    "indices": { "bufferView": iv, "componentType": 5123 }, "values": { "bufferView": vv } });
            }),
            "sparse.indices[0]: index 7 out of range (4 elements)",
        ),
        (
            edit(&good, |j, _| {
                j["accessors"][pos].as_object_mut().unwrap().remove("bufferView");
            }),
            "accessors[",
        ),
        (b"glTF\x02\0\0\0\x05\0\0\0".to_vec(), "/m/t.glb: "),
        (b"{ \"asset\": ".to_vec(), "invalid glTF JSON (line 1"),
        (b"\0\0\0".to_vec(), "invalid glTF JSON"),
    ];
    for (i, (bytes, want)) in cases.iter().enumerate() {
        let e = err(bytes);
        assert!(e.contains(want), "case {i}: {e}\n  wanted: {want}");
        assert!(e.starts_with("/m/t.glb: "), "case {i}: {e}");
    }
}

#[test]
fn several_errors_are_reported_together() {
    let bytes = edit(&rich(), |j, _| {
        j["meshes"][0]["primitives"][0]["mode"] = json!(0);
        j["animations"][0]["samplers"][0]["output"] = json!(0);
    });
    let e = err(&bytes);
    assert!(e.contains("mode: Points") && e.contains("animations[0].samplers[0].output"), "{e}");
}

#[test]
fn truncated_files_fail_cleanly() {
    for good in [rich(), textured_cube(), rich_builder().to_json(Some("")).to_string().into_bytes()] {
        for len in 0..good.len() {
            assert!(imp(&good[..len]).is_err(), "truncated to {len} bytes imported");
        }
    }
}

#[test]
fn flipped_bytes_never_panic() {
    let mut imported = 0;
    for good in [rich(), rich_builder().to_json(Some("")).to_string().into_bytes()] {
        for at in 0..good.len() {
            for v in [0x00, 0xFF, b'9', b'"'] {
                let mut bad = good.clone();
                bad[at] ^= v.max(1);
                if imp(&bad).is_ok() {
                    imported += 1;
                }
            }
        }
    }
    // Most flips land in float data and still import; the point is that none panicked.
    assert!(imported > 0);
}

#[test]
fn damaged_images_never_panic() {
    let png = checker_png(16, 4, [1, 2, 3, 255], [9, 8, 7, 255]);
    for good in [jpeg(16, 8), png] {
        assert!(super::material::decode_image(&good).is_ok());
        for at in 0..good.len() {
            for v in [0x01, 0xFF, 0x80] {
                let mut bad = good.clone();
                bad[at] ^= v;
                let _ = super::material::decode_image(&bad);
            }
            let _ = super::material::decode_image(&good[..at]);
        }
    }
}

/// One node with a non-indexed 2,046-vertex primitive (24 KB of positions) and one morph target,
/// the shape of the files that made the importer abort: every extra reference to these accessors
/// costs 24 KB of decoded data while adding a few bytes to the file.
fn big_primitive_file() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let node = b.node("n", None, [0.0; 3], Q0, [1.0; 3]);
    let positions: Vec<[f32; 3]> = (0..2046).map(|i| [i as f32, (i % 3) as f32, 0.0]).collect();
    let target = TargetSpec { positions: vec![[0.0, 0.0, 1.0]; positions.len()], normals: vec![] };
    let prim = PrimitiveSpec { positions, targets: vec![target], ..Default::default() };
    b.mesh(node, "big", &[prim], &[], &[]);
    b.to_glb()
}

/// Errors quote a few values, not the file: a whole error stays on a short line.
fn assert_short(e: &str) {
    assert!(e.len() < 800, "{} chars: {}...", e.len(), e.chars().take(800).collect::<String>());
}

#[test]
fn a_million_morph_targets_are_refused_before_any_is_read() {
    let targets = |n: usize| {
        edit(&big_primitive_file(), |j, _| {
            let t = j["meshes"][0]["primitives"][0]["targets"][0].clone();
            j["meshes"][0]["primitives"][0]["targets"] = Value::Array(vec![t; n]);
        })
    };
    // The file of the report: its million target objects do not even get parsed.
    let bytes = targets(1_000_000);
    assert!(bytes.len() > 10 << 20, "a big file, as in the report: {} bytes", bytes.len());
    let e = err(&bytes);
    assert!(e.contains("the glTF JSON: needs 512006144 bytes, which passes the import budget"), "{e}");
    assert_short(&e);
    // Fewer targets parse, and the count is checked before any target is read.
    let e = err(&targets(100_000));
    assert!(e.contains("meshes[0].primitives[0].targets: 100000 morph targets, at most 256 are supported"), "{e}");
    assert_short(&e);

    let at_limit = edit(&big_primitive_file(), |j, _| {
        let t = j["meshes"][0]["primitives"][0]["targets"][0].clone();
        j["meshes"][0]["primitives"][0]["targets"] = Value::Array(vec![t; 256]);
    });
    let m = imp(&at_limit).expect("256 targets import");
    assert_eq!(m.meshes[0].primitives[0].targets.len(), 256);
    assert_eq!(m.meshes[0].weights.len(), 256);
}

#[test]
fn nodes_sharing_a_mesh_are_held_to_the_decode_budget() {
    // 256 targets x 24 KB is 6 MB per copy of the mesh; 20,000 nodes would need 120 GB.
    let bytes = edit(&big_primitive_file(), |j, _| {
        let t = j["meshes"][0]["primitives"][0]["targets"][0].clone();
        j["meshes"][0]["primitives"][0]["targets"] = Value::Array(vec![t; 256]);
        let nodes: Vec<Value> = (0..20_000).map(|_| json!({ "mesh": 0 })).collect();
        j["nodes"] = Value::Array(nodes);
        j["scenes"] = json!([{ "nodes": (0..20_000).collect::<Vec<_>>() }]);
    });
    let e = err(&bytes);
    assert!(e.contains("].mesh (mesh 0): needs "), "{e}");
    assert!(e.contains("passes the import budget of"), "{e}");
    assert_short(&e);
}

#[test]
fn channels_sharing_a_sampler_are_held_to_the_decode_budget() {
    let mut b = GltfBuilder::new();
    let node = b.node("n", None, [0.0; 3], Q0, [1.0; 3]);
    let keys = 65_536;
    let times: Vec<f32> = (0..keys).map(|i| i as f32).collect();
    let values = vec![0.0; keys * 3];
    let spec =
        ChannelSpec { node, path: ChannelPath::Translation, interpolation: Interpolation::Linear, times, values };
    b.animation("a", &[spec]);
    // 1 MB of keys, decoded again for each of 10,000 channels: 10 GB.
    let bytes = edit(&b.to_glb(), |j, _| {
        let ch = j["animations"][0]["channels"][0].clone();
        j["animations"][0]["channels"] = Value::Array(vec![ch; 10_000]);
    });
    let e = err(&bytes);
    assert!(e.contains("animations[0].samplers[0]."), "{e}");
    assert!(e.contains("passes the import budget of"), "{e}");
    assert_short(&e);
    let one = imp(&b.to_glb()).expect("one channel imports");
    assert_eq!(one.animations[0].channels[0].times.len(), keys);
}

#[test]
fn textures_sharing_a_big_image_are_held_to_the_decode_budget() {
    // A 2048x2048 PNG of two colours is a few KB; each texture that uses it decodes to 16 MB.
    let mut b = GltfBuilder::new();
    let tex = b.texture_png(&checker_png(2048, 2, [255, 0, 0, 255], [0, 0, 255, 255]), false);
    b.material("m", [1.0; 4], Some(tex));
    let one = imp(&b.to_glb()).expect("one big texture imports");
    assert_eq!((one.textures.len(), one.textures[0].width), (1, 2048));
    let bytes = edit(&b.to_glb(), |j, _| {
        let t = j["textures"][0].clone();
        j["textures"] = Value::Array(vec![t; 1000]);
        let m: Vec<Value> =
            (0..1000).map(|i| json!({ "pbrMetallicRoughness": { "baseColorTexture": { "index": i } } })).collect();
        j["materials"] = Value::Array(m);
    });
    let e = err(&bytes);
    assert!(e.contains("a copy of images[0]: needs 16777216 bytes, which passes the import budget"), "{e}");
    assert_short(&e);
}

#[test]
fn a_bad_weights_list_is_quoted_briefly() {
    let bytes = edit(&rich(), |j, _| j["meshes"][0]["weights"] = json!(vec![0.5; 1_000_000]));
    let e = err(&bytes);
    assert!(
        e.contains("meshes[0].weights: 2 finite weights needed, found [0.5, 0.5, 0.5, 0.5, ...] (1000000 values)"),
        "{e}"
    );
    assert_short(&e);
}

#[test]
fn millions_of_tiny_objects_are_refused_before_parsing() {
    // 6 MB of `{},` parse into 840 MB of nodes: the braces are counted before the parser runs.
    let nodes = vec!["{}"; 2_000_000].join(",");
    let text = format!(r#"{{"asset":{{"version":"2.0"}},"nodes":[{nodes}]}}"#);
    let e = import_bytes("/m/t.gltf", text.as_bytes(), None).unwrap_err().to_string();
    assert!(e.starts_with("/m/t.gltf: the glTF JSON: needs 1024001024 bytes, which passes the import budget"), "{e}");
    assert_short(&e);
    assert_eq!(super::count_objects(br#"{"a": "{{\"{", "b": [{}, {"c": "}\\"}]}"#), 3);
    let many = format!(r#"{{"asset":{{"version":"2.0"}},"nodes":[{}]}}"#, vec!["{}"; 10_000].join(","));
    let imported = import_bytes("/m/t.gltf", many.as_bytes(), None).map_err(|e| e.to_string());
    assert_eq!(imported.map(|m| m.nodes.len()), Ok(10_000));
}

// ---------------------------------------------------------------------------------------------
// Materials: emissive, normal and occlusion maps, vertex colours, tangents

fn showcase() -> ModelData {
    imp(&super::samples::materials_showcase()).unwrap()
}

fn mesh_named<'a>(m: &'a ModelData, id: &str) -> &'a crate::project::model_data::PrimitiveData {
    &m.meshes.iter().find(|x| x.id == id).unwrap_or_else(|| panic!("no mesh {id}")).primitives[0]
}

#[test]
fn showcase_imports_every_map_and_set() {
    let m = showcase();
    assert_eq!(m.textures.len(), 4, "ramp, checker, normal map, occlusion map");
    let mat = |id: &str| &m.materials[mesh_named(&m, id).material.unwrap()];
    let p = mesh_named(&m, "vertex_colors");
    assert_eq!(p.colors, [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0], [1.0; 4]]);
    let e = mat("emissive");
    assert_eq!(e.emissive, [1.0, 0.5, 0.1], "emissiveFactor x emissiveStrength 2");
    assert_eq!(e.emissive_texture.map(|r| r.texcoord), Some(0));
    let s = mat("srgb_ramp");
    assert!(s.base_color_texture.is_some() && s.normal_texture.is_none() && s.emissive == [0.0; 3]);
    let n = mat("normal_tangents");
    assert_eq!((n.normal_texture.map(|r| r.texcoord), n.normal_scale), (Some(0), 1.0));
    assert_eq!(mesh_named(&m, "normal_tangents").tangents, vec![[1.0, 0.0, 0.0, 1.0]; 4]);
    // The same quad without TANGENT gets the same tangents generated.
    assert_eq!(mesh_named(&m, "normal_generated").tangents, vec![[1.0, 0.0, 0.0, 1.0]; 4]);
    // Without a normal map nothing is generated.
    assert!(mesh_named(&m, "srgb_ramp").tangents.is_empty());
    let o = mat("occlusion_uv1");
    assert_eq!((o.occlusion_texture.map(|r| r.texcoord), o.occlusion_strength), (Some(1), 1.0));
    assert_eq!(mesh_named(&m, "occlusion_uv1").texcoords1[0], [0.0, 1.0]);
}

#[test]
fn vertex_colours_in_every_encoding() {
    let bytes = edit(&rich(), |j, b| {
        let c: Vec<u8> = [65535u16, 0, 32768, 65535, 0, 65535, 0, 0, 0, 0, 65535, 13107, 65535, 65535, 65535, 65535]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let cv = add_view(j, b, &c);
        let a = add_accessor(
            j,
            json!({ "bufferView": cv, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC4" }),
        );
        j["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = json!(a);
    });
    let p = &imp(&bytes).unwrap().meshes[0].primitives[0];
    assert_eq!(p.colors[0][..2], [1.0, 0.0]);
    assert!((p.colors[0][2] - 32768.0 / 65535.0).abs() < 1e-6 && (p.colors[2][3] - 0.2).abs() < 1e-6);
    let bytes = edit(&rich(), |j, b| {
        let cv = add_view(j, b, &f32_bytes(&[0.25, 0.5, 0.75, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.5]));
        let a = add_accessor(j, json!({ "bufferView": cv, "componentType": 5126, "count": 4, "type": "VEC3" }));
        j["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = json!(a);
    });
    let p = &imp(&bytes).unwrap().meshes[0].primitives[0];
    assert_eq!(p.colors[0], [0.25, 0.5, 0.75, 1.0], "RGB colours get alpha 1");
}

#[test]
fn bad_material_inputs_name_the_gltf_path() {
    let good = super::samples::materials_showcase();
    let mesh_of = |j: &Value, id: &str| {
        j["meshes"].as_array().unwrap().iter().position(|m| m["name"] == id).unwrap_or_else(|| panic!("{id}"))
    };
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            edit(&good, |j, b| {
                let cv = add_view(j, b, &f32_bytes(&[0.0; 8]));
                let a = add_accessor(j, json!({ "bufferView": cv, "componentType": 5126, "count": 4, "type": "VEC2" }));
                j["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = json!(a);
            }),
            "meshes[0].primitives[0].attributes.COLOR_0 (accessors[".into(),
        ),
        (
            edit(&good, |j, b| {
                let cv = add_view(j, b, &[0u8; 16]);
                let a = add_accessor(j, json!({ "bufferView": cv, "componentType": 5121, "count": 4, "type": "VEC4" }));
                j["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = json!(a);
            }),
            "component type UNSIGNED_BYTE is not allowed here".into(),
        ),
        (
            edit(&good, |j, b| {
                let m = mesh_of(j, "normal_tangents");
                let cv = add_view(j, b, &f32_bytes(&[1.0, 0.0, 0.0].repeat(4)));
                let a = add_accessor(j, json!({ "bufferView": cv, "componentType": 5126, "count": 4, "type": "VEC3" }));
                j["meshes"][m]["primitives"][0]["attributes"]["TANGENT"] = json!(a);
            }),
            "meshes[3].primitives[0].attributes.TANGENT (accessors[".into(),
        ),
        (
            edit(&good, |j, b| {
                let m = mesh_of(j, "normal_tangents");
                let a = j["meshes"][m]["primitives"][0]["attributes"]["TANGENT"].as_u64().unwrap() as usize;
                let at = acc_offset(j, a) + 16;
                b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
            }),
            "meshes[3].primitives[0].attributes.TANGENT[1]: tangent is not finite".into(),
        ),
        (
            edit(&good, |j, _| {
                let m = j["materials"].as_array().unwrap().iter().position(|m| m["name"] == "bumps").unwrap();
                j["materials"][m]["normalTexture"]["texCoord"] = json!(2);
            }),
            "materials[3].normalTexture.texCoord: 2 is not supported (0 or 1)".into(),
        ),
        (
            edit(&good, |j, _| {
                let m = mesh_of(j, "occlusion_uv1");
                let attrs = j["meshes"][m]["primitives"][0]["attributes"].as_object_mut().unwrap();
                attrs.remove("TEXCOORD_1");
            }),
            "meshes[5].primitives[0].attributes: no TEXCOORD_1, which materials[4].occlusionTexture reads".into(),
        ),
        (
            edit(&good, |j, _| {
                j["materials"][1]["extensions"]["KHR_materials_emissive_strength"]["emissiveStrength"] = json!(-1.0);
            }),
            "materials[1].extensions.KHR_materials_emissive_strength.emissiveStrength: -1".into(),
        ),
        (
            edit(&good, |j, _| j["materials"][1]["emissiveTexture"]["index"] = json!(99)),
            "materials[1].emissiveTexture".into(),
        ),
    ];
    for (bytes, want) in cases {
        let e = err(&bytes);
        assert!(e.contains(&want), "{e}\n  should contain: {want}");
    }
}

#[test]
fn tangents_generated_for_hand_computed_cases() {
    use super::mesh::generate_tangents;
    let quad = [[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]];
    let up = [[0.0, 0.0, 1.0]; 4];
    let idx = [0, 1, 2, 0, 2, 3];
    // glTF UVs (v down the image): u along +X, image-up (-v) along +Y: T = +X, w = +1.
    let uv = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
    assert_eq!(generate_tangents(&quad, &up, &uv, &idx), vec![[1.0, 0.0, 0.0, 1.0]; 4]);
    // Mirrored in u: T = -X, and the bitangent still points up, so w = -1.
    let mirrored = uv.map(|[u, v]| [1.0 - u, v]);
    assert_eq!(generate_tangents(&quad, &up, &mirrored, &idx), vec![[-1.0, 0.0, 0.0, -1.0]; 4]);
    // One triangle, u along +Y and v along +X: T = +Y; -dP/dv = -X = cross(N, T), so w = +1.
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let t = generate_tangents(&tri, &up[..3], &[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]], &[0, 1, 2]);
    assert_eq!(t, vec![[0.0, 1.0, 0.0, 1.0]; 3]);
    // A tilted triangle whose dP/du = (1, 0, 1) is not perpendicular to the given normal +Z:
    // Gram-Schmidt leaves (1, 0, 0); dP/dv = (0, -1, 0), so -dP/dv = +Y = cross(Z, X): w = +1.
    let tilted = [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]];
    let t = generate_tangents(&tilted, &up[..3], &[[0.0, 0.0], [1.0, 0.0], [0.0, -1.0]], &[0, 1, 2]);
    assert_eq!(t, vec![[1.0, 0.0, 0.0, 1.0]; 3]);
    // Degenerate UVs: any unit tangent perpendicular to the normal.
    for t in generate_tangents(&quad, &up, &[[0.5, 0.5]; 4], &idx) {
        let v = glam::Vec3::new(t[0], t[1], t[2]);
        assert!((v.length() - 1.0).abs() < 1e-6 && v.z.abs() < 1e-6 && t[3] == 1.0, "{t:?}");
    }
}

/// A primitive that names no material gets glTF's own default material (white, metallic 1,
/// roughness 1: three.js draws it as a grey rough metal), not the rough dielectric other
/// formats default to; primitives with a material keep theirs.
#[test]
fn a_primitive_without_a_material_gets_gltfs_default_material() {
    let good = textured_cube();
    let m = imp(&edit(&good, |j, _| {
        j["meshes"][0]["primitives"][0].as_object_mut().unwrap().remove("material");
    }))
    .unwrap();
    let p = &m.meshes[0].primitives[0];
    let mat = &m.materials[p.material.expect("a material")];
    assert_eq!((mat.metallic, mat.roughness, mat.base_color), (1.0, 1.0, [1.0; 4]));
    assert_eq!(m.materials.len(), 2, "the file's material stays, the default is added after it");
    let plain = imp(&good).unwrap();
    assert_eq!(plain.materials.len(), 1, "nothing is added when every primitive has a material");
}
