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

/// An untextured unit cube (-0.5..0.5) of one linear base colour: boxes and, scaled flat, a
/// ground plane for the shadow tests, whose pixels are then plain to read.
pub fn plain_cube(color: [f32; 4]) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let node = b.node("cube", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    b.material("plain", color, None);
    b.mesh(node, "cube", &[cube_primitive(Some(0))], &[], &[]);
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

/// Mesh names of [`materials_showcase`], in mesh order, and each tile's centre (x, y).
pub const SHOWCASE_TILES: [(&str, [f32; 2]); 6] = [
    ("vertex_colors", [-1.2, 0.65]),
    ("emissive", [0.0, 0.65]),
    ("srgb_ramp", [1.2, 0.65]),
    ("normal_tangents", [-1.2, -0.65]),
    ("normal_generated", [0.0, -0.65]),
    ("occlusion_uv1", [1.2, -0.65]),
];

/// Grey levels of the `srgb_ramp` tile's texture, left to right (8 columns).
pub const SHOWCASE_RAMP: [u8; 8] = [0, 36, 73, 109, 146, 182, 219, 255];

/// What the built-in material reads besides a base colour, one unit quad (facing +Z, UV (0,0)
/// top-left) per feature, in two rows of three: `vertex_colors` (COLOR_0 as normalized u8
/// VEC3, a different colour per corner), `emissive` (dark base, emissiveFactor (0.5, 0.25,
/// 0.05) x KHR_materials_emissive_strength 2 times a white/black checker emissive texture),
/// `srgb_ramp` (an 8-step grey sRGB base colour texture, [`SHOWCASE_RAMP`]), `normal_tangents`
/// and `normal_generated` (the same 4x4-dome normal map, with and without a TANGENT
/// accessor), `occlusion_uv1` (an occlusion map read through TEXCOORD_1; TEXCOORD_0 pins every
/// vertex to the map's dark corner, so reading the wrong set shows a uniformly dark quad).
pub fn materials_showcase() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let quad = |material: usize| PrimitiveSpec {
        positions: vec![[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        texcoords0: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(material),
        ..Default::default()
    };
    let ramp = rgba_png(64, 8, |x, _| {
        let g = SHOWCASE_RAMP[(x / 8) as usize];
        [g, g, g, 255]
    });
    let ramp = b.texture_png(&ramp, true);
    let checker = b.texture_png(&checker_png(32, 4, [255, 255, 255, 255], [0, 0, 0, 255]), true);
    let normals = b.texture_png(&dome_normal_map(64, 4), false);
    let occlusion = b.texture_png(
        &rgba_png(32, 32, |x, y| {
            let (dx, dy) = (x as f32 - 15.5, y as f32 - 15.5);
            let ao = (1.0 - (dx * dx + dy * dy).sqrt() / 16.0).clamp(0.1, 1.0);
            let v = (ao * 255.0).round() as u8;
            [v, v, v, 255]
        }),
        false,
    );
    let white = b.material("vertex_colors", [1.0; 4], None);
    let glow = b.material_json(serde_json::json!({
        "name": "emissive",
        "pbrMetallicRoughness": { "baseColorFactor": [0.05, 0.05, 0.05, 1.0] },
        "emissiveFactor": [0.5, 0.25, 0.05],
        "emissiveTexture": { "index": checker },
        "extensions": { "KHR_materials_emissive_strength": { "emissiveStrength": 2.0 } }
    }));
    let srgb = b.material("srgb_ramp", [1.0; 4], Some(ramp));
    let bumps = b.material_json(serde_json::json!({
        "name": "bumps",
        "pbrMetallicRoughness": { "baseColorFactor": [0.8, 0.8, 0.8, 1.0] },
        "normalTexture": { "index": normals, "scale": 1.0 }
    }));
    let ao = b.material_json(serde_json::json!({
        "name": "occlusion",
        "pbrMetallicRoughness": { "baseColorFactor": [0.9, 0.9, 0.9, 1.0] },
        "occlusionTexture": { "index": occlusion, "texCoord": 1, "strength": 1.0 }
    }));
    let mut prims = Vec::new();
    let mut p = quad(white);
    let corners = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];
    let flat: Vec<u32> = corners.iter().flatten().copied().collect();
    p.attributes.push(("COLOR_0".into(), b.accessor_unorm(&flat, "VEC3", 3, false)));
    prims.push(p);
    prims.push(quad(glow));
    prims.push(quad(srgb));
    prims.push(PrimitiveSpec { tangents: vec![[1.0, 0.0, 0.0, 1.0]; 4], ..quad(bumps) });
    prims.push(quad(bumps));
    let mut p = quad(ao);
    p.texcoords1 = std::mem::replace(&mut p.texcoords0, vec![[0.0, 0.0]; 4]);
    prims.push(p);
    let root = b.node("showcase", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    for ((name, [x, y]), p) in SHOWCASE_TILES.iter().zip(prims) {
        let node = b.node(name, Some(root), [*x, *y, 0.0], NO_ROTATION, [1.0; 3]);
        b.mesh(node, name, &[p], &[], &[]);
    }
    b.to_glb()
}

/// A `w`×`h` RGBA PNG from a pixel function (rows top to bottom).
fn rgba_png(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let mut data = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            data.extend_from_slice(&px(x, y));
        }
    }
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    // Writing to a Vec cannot fail; an empty result would fail import loudly, not silently.
    if let Ok(mut wr) = enc.write_header() {
        let _ = wr.write_image_data(&data);
    }
    out
}

/// A tangent-space normal map (glTF convention: +x right, +y up the image, +z out) of
/// `cells`×`cells` hemispherical domes on a flat ground.
pub fn dome_normal_map(size: u32, cells: u32) -> Vec<u8> {
    let cell = (size / cells.max(1)).max(1) as f32;
    rgba_png(size, size, |x, y| {
        let cx = ((x as f32 + 0.5) % cell - cell / 2.0) / (cell * 0.45);
        let cy = -((y as f32 + 0.5) % cell - cell / 2.0) / (cell * 0.45);
        let r2 = cx * cx + cy * cy;
        let n = if r2 < 1.0 { [cx, cy, (1.0 - r2).sqrt()] } else { [0.0, 0.0, 1.0] };
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let e = |v: f32| ((v / len * 0.5 + 0.5) * 255.0).round() as u8;
        [e(n[0]), e(n[1]), e(n[2]), 255]
    })
}

/// The glTF sample "MetalRoughSpheres" idea: a 5×5 grid of spheres (radius 0.5, 1.2 apart, in the
/// XY plane), metallicFactor 0 → 1 from left to right and roughnessFactor 0 → 1 from bottom to
/// top, one gold-coloured material each (`m{metallic}_r{roughness}` in quarters).
pub fn metal_rough_spheres() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("spheres", None, [0.0; 3], NO_ROTATION, [1.0; 3]);
    for row in 0..5 {
        for col in 0..5 {
            let (metallic, roughness) = (col as f32 / 4.0, row as f32 / 4.0);
            let name = format!("m{col}_r{row}");
            let material = b.material_json(serde_json::json!({
                "name": name,
                "pbrMetallicRoughness": {
                    "baseColorFactor": [0.9, 0.6, 0.2, 1.0],
                    "metallicFactor": metallic,
                    "roughnessFactor": roughness
                }
            }));
            let at = [(col as f32 - 2.0) * 1.2, (row as f32 - 2.0) * 1.2, 0.0];
            let node = b.node(&name, Some(root), at, NO_ROTATION, [1.0; 3]);
            b.mesh(node, &name, &[uv_sphere(0.5, 24, 16, material)], &[], &[]);
        }
    }
    b.to_glb()
}

/// A UV sphere: `segments` around, `rings` from pole to pole, smooth normals.
fn uv_sphere(radius: f32, segments: u32, rings: u32, material: usize) -> PrimitiveSpec {
    let mut p = PrimitiveSpec { material: Some(material), ..Default::default() };
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = [theta.sin() * phi.cos(), theta.cos(), -theta.sin() * phi.sin()];
            p.positions.push(n.map(|c| c * radius));
            p.normals.push(n);
            p.texcoords0.push([s as f32 / segments as f32, r as f32 / rings as f32]);
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let i = r * row + s;
            p.indices.extend([i, i + row, i + 1, i + 1, i + row, i + row + 1]);
        }
    }
    p
}
