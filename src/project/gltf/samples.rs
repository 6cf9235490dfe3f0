//! Generated models for tests, the demo and the import benchmark.
use super::writer::{ChannelSpec, GltfBuilder, PrimitiveSpec, TargetSpec};
use crate::project::model_data::{ChannelPath, Interpolation};

const NO_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A `size`×`size` RGBA PNG of `cells`×`cells` squares, alternating two colours.
pub fn checker_png(size: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Vec<u8> {
    let cell = (size / cells.max(1)).max(1);
    let mut px = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            px.extend_from_slice(if (x / cell + y / cell).is_multiple_of(2) { &a } else { &b });
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, size, size);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    // Writing to a Vec cannot fail; an empty result would fail import loudly, not silently.
    if let Ok(mut w) = enc.write_header() {
        let _ = w.write_image_data(&px);
    }
    out
}

/// A unit cube (-0.5..0.5) with 24 vertices (4 per face, so normals and UVs are per face),
/// 36 indices and a checker texture.
pub fn textured_cube() -> Vec<u8> {
    let p = cube_primitive(Some(0));
    let mut b = GltfBuilder::new();
    let node = b.node("cube", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    let tex = b.texture_png(&checker_png(64, 8, [230, 230, 230, 255], [40, 90, 200, 255]), true);
    b.material("checker", [1.0; 4], Some(tex));
    b.mesh(node, "cube", &[p], &[], &[]);
    b.to_glb()
}

/// Two untextured unit cubes, meshes `left` (red, at x = -1) and `right` (green, at x = +1,
/// scaled by 0.5) under a parent node at y = 1: node transforms and per-mesh ids.
pub fn two_meshes() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("root", None, [0.0, 1.0, 0.0], NO_ROTATION, [1.0; 3]);
    let left = b.node("left_node", Some(root), [-1.0, 0.0, 0.0], NO_ROTATION, [1.0; 3]);
    let right = b.node("right_node", Some(root), [1.0, 0.0, 0.0], NO_ROTATION, [0.5; 3]);
    b.material("red", [0.9, 0.2, 0.2, 1.0], None);
    b.material("green", [0.2, 0.8, 0.3, 1.0], None);
    b.mesh(left, "left", &[cube_primitive(Some(0))], &[], &[]);
    b.mesh(right, "right", &[cube_primitive(Some(1))], &[], &[]);
    b.to_glb()
}

/// A unit cube primitive with per-face normals and UVs.
fn cube_primitive(material: Option<usize>) -> PrimitiveSpec {
    let mut p = PrimitiveSpec { material, ..Default::default() };
    // (normal, u axis, v axis) per face.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, v) in faces {
        let base = p.positions.len() as u32;
        for (su, sv) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            p.positions.push(std::array::from_fn(|k| 0.5 * (n[k] + su * u[k] + sv * v[k])));
            p.normals.push(n);
            p.texcoords0.push([(su + 1.0) / 2.0, (1.0 - sv) / 2.0]);
        }
        p.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    p
}

/// A flat grid in the XZ plane, `cx`×`cz` cells (2 triangles each), textured with a checker.
/// `textured_grid(250, 100)` is the 50,000-triangle benchmark model.
pub fn textured_grid(cx: u32, cz: u32) -> Vec<u8> {
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    for z in 0..=cz {
        for x in 0..=cx {
            let (u, v) = (x as f32 / cx as f32, z as f32 / cz as f32);
            p.positions.push([u * 10.0 - 5.0, (u * 6.0).sin() * (v * 4.0).cos() * 0.2, v * 10.0 - 5.0]);
            p.normals.push([0.0, 1.0, 0.0]);
            p.texcoords0.push([u * 4.0, v * 4.0]);
        }
    }
    let row = cx + 1;
    for z in 0..cz {
        for x in 0..cx {
            let i = z * row + x;
            p.indices.extend([i, i + row, i + 1, i + 1, i + row, i + row + 1]);
        }
    }
    let mut b = GltfBuilder::new();
    let node = b.node("grid", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    let tex = b.texture_png(&checker_png(256, 16, [250, 250, 250, 255], [30, 30, 30, 255]), false);
    b.material("grid", [1.0; 4], Some(tex));
    b.mesh(node, "grid", &[p], &[], &[]);
    b.to_glb()
}

/// The models of the embedded demo, by file name (see `examples/gen_assets.rs`).
pub fn demo_assets() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("crate.glb", textured_cube()),
        ("wiggler.glb", wiggler()),
        ("face.glb", morph_face()),
        ("humanoid.glb", super::humanoid::humanoid()),
        ("ground.glb", super::humanoid::ground(120.0, 60.0)),
        ("gem.glb", super::humanoid::gem()),
    ]
}

/// A "face": a 9×9-vertex grid in the XY plane (mesh `face`) with two morph targets, `smile`
/// (the lower corners of the mouth area rise) and `blink` (the upper rows close down), and a
/// LINEAR weights clip `smile` (1.5 s) that smiles, blinks and rests.
pub fn morph_face() -> Vec<u8> {
    let n = 9;
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    let (mut smile, mut blink) = (TargetSpec::default(), TargetSpec::default());
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (i as f32 / (n - 1) as f32 - 0.5, j as f32 / (n - 1) as f32 - 0.5);
            p.positions.push([x, y, 0.0]);
            p.normals.push([0.0, 0.0, 1.0]);
            p.texcoords0.push([x + 0.5, 0.5 - y]);
            let lower = (-y).max(0.0);
            smile.positions.push([0.0, lower * 1.6 * x.abs(), 0.15 * lower]);
            let upper = y.max(0.0);
            blink.positions.push([0.0, -upper * 0.6, 0.0]);
        }
    }
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            p.indices.extend([a, a + 1, a + n as u32 + 1, a, a + n as u32 + 1, a + n as u32]);
        }
    }
    p.targets = vec![smile, blink];
    let mut b = GltfBuilder::new();
    let node = b.node("face", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    let tex = b.texture_png(&checker_png(32, 4, [250, 210, 120, 255], [230, 160, 90, 255]), false);
    b.material("skin", [1.0; 4], Some(tex));
    b.mesh(node, "face", &[p], &[0.0, 0.0], &["smile", "blink"]);
    b.animation(
        "smile",
        &[ChannelSpec {
            node,
            path: ChannelPath::Weights,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0, 1.5],
            values: vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        }],
    );
    b.to_glb()
}

/// The "wiggler" of Defold's model animation manual: a column of 4 segments (mesh `column`)
/// skinned to joints `Bone` (y = 0), `Bone_001` (y = 1) and `Bone_002` (y = 2), with a LINEAR
/// clip `wiggle` (1 s) that sways the upper joints about Z.
pub fn wiggler() -> Vec<u8> {
    wiggler_with_clip("wiggle")
}

/// The wiggler with its clip named `clip` (hot reload tests swap clips).
pub fn wiggler_with_clip(clip: &str) -> Vec<u8> {
    let (w, h, rings) = (0.25f32, 3.0f32, 13);
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    let corners = [(-w, -w), (w, -w), (w, w), (-w, w)];
    for r in 0..rings {
        let y = h * r as f32 / (rings - 1) as f32;
        for (k, &(x, z)) in corners.iter().enumerate() {
            p.positions.push([x, y, z]);
            let n = [x.signum() * std::f32::consts::FRAC_1_SQRT_2, 0.0, z.signum() * std::f32::consts::FRAC_1_SQRT_2];
            p.normals.push(n);
            p.texcoords0.push([k as f32 / 4.0, 1.0 - y / h]);
            // Weights fade linearly between the joints at y = 0, 1, 2.
            let (j0, t) = if y < 1.0 {
                (0u16, y)
            } else if y < 2.0 {
                (1, y - 1.0)
            } else {
                (2, 0.0)
            };
            if j0 == 2 {
                p.joints.push([2, 0, 0, 0]);
                p.weights.push([1.0, 0.0, 0.0, 0.0]);
            } else {
                p.joints.push([j0, j0 + 1, 0, 0]);
                p.weights.push([1.0 - t, t, 0.0, 0.0]);
            }
        }
    }
    for r in 0..rings - 1 {
        for k in 0..4u32 {
            let a = r as u32 * 4 + k;
            let b = r as u32 * 4 + (k + 1) % 4;
            p.indices.extend([a, b + 4, b, a, a + 4, b + 4]);
        }
    }
    let top = (rings as u32 - 1) * 4;
    p.indices.extend([top, top + 1, top + 2, top, top + 2, top + 3]);
    let mut b = GltfBuilder::new();
    let root = b.node("wiggler", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    let bone = b.node("Bone", Some(root), [0.0; 3], NO_ROTATION, [1.0; 3]);
    let bone1 = b.node("Bone_001", Some(bone), [0.0, 1.0, 0.0], NO_ROTATION, [1.0; 3]);
    let bone2 = b.node("Bone_002", Some(bone1), [0.0, 1.0, 0.0], NO_ROTATION, [1.0; 3]);
    let mesh_node = b.node("column", Some(root), [0.0; 3], NO_ROTATION, [1.0; 3]);
    let tex = b.texture_png(&checker_png(32, 4, [120, 200, 120, 255], [60, 140, 70, 255]), false);
    b.material("moss", [1.0; 4], Some(tex));
    b.mesh(mesh_node, "column", &[p], &[], &[]);
    let inv = |y: f32| -> [f32; 16] {
        let mut m = [0.0; 16];
        m[0] = 1.0;
        m[5] = 1.0;
        m[10] = 1.0;
        m[15] = 1.0;
        m[13] = -y;
        m
    };
    b.skin(mesh_node, &[bone, bone1, bone2], Some(&[inv(0.0), inv(1.0), inv(2.0)]));
    let z = |deg: f32| {
        let (s, c) = (deg.to_radians() / 2.0).sin_cos();
        [0.0, 0.0, s, c]
    };
    let rot = |node, degs: [f32; 3]| ChannelSpec {
        node,
        path: ChannelPath::Rotation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5, 1.0],
        values: degs.iter().flat_map(|&d| z(d)).collect(),
    };
    b.animation(clip, &[rot(bone1, [-25.0, 25.0, -25.0]), rot(bone2, [30.0, -30.0, 30.0])]);
    b.to_glb()
}
