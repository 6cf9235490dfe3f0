//! Model rendering tests (GL context needed, so `harness = false` with its own `main`; SDL must
//! be initialised on the main thread). Models are built by hand here, not imported.
//!
//! Golden images: `tests/golden/models_*.png`, 160x120, tolerance 2 per channel on at most
//! 0.5% of pixels. `SINEW_UPDATE_GOLDEN=1` rewrites them and fails; a missing one fails the run.

use std::collections::HashMap;

use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Quat, Vec3};
use sinew::base::error::LoadError;
use sinew::base::hash::hash_str;
use sinew::project::model_data::*;
use sinew::render::*;
#[path = "common/checks.rs"]
mod checks;
use checks::{CLEAR, Check, Scene, ensure};

const W: u32 = 160;
const H: u32 = 120;

fn main() {
    let checks: &[(&str, Check)] = &[
        ("textured cube (built-in material) matches golden", textured_cube),
        ("meshes placed by node transforms match golden", node_transforms),
        ("custom material with uniform blocks and tint matches golden", custom_material),
        ("alpha blend and mask match golden", alpha_modes),
        ("default camera frames the scene", default_camera_frames),
        ("compile error names the resource and shows the log", compile_error),
        ("link and material file errors are reported", link_and_json_errors),
        ("program without optional uniforms still draws", minimal_program),
        ("a program naming SINEW_* features is compiled per variant a draw needs", program_variants),
        ("a variant that does not compile is reported once and its draws skipped", broken_variant),
        ("a variant's compile error lists the files its program includes", broken_variant_include),
        ("state is sorted and shared across instances", sorting_and_sharing),
        ("instances share draw calls only where nothing differs, same picture", instanced_draws),
        ("base colour texture can use texcoord1", texcoord1),
        ("glTF material showcase (vertex colours, emissive, sRGB, normal and occlusion maps) matches golden", showcase),
        ("sRGB textures round-trip and factors are linear", srgb_round_trip),
        ("normal maps light with given and generated tangents alike", normal_maps),
        ("base colour and emissive textures are filtered in linear space", srgb_filtering),
    ];
    checks::run(checks);
}

// ---------------------------------------------------------------------------------------------
// Scene building blocks

impl Scene {
    fn new() -> Result<Scene, String> {
        Scene::open("sinew model test", W, H)
    }

    fn material(&mut self, files: &[(&str, &str)], path: &str) -> Result<MaterialHandle, LoadError> {
        let files: HashMap<&str, &str> = files.iter().copied().collect();
        let mut read =
            |p: &str| files.get(p).map(|s| s.to_string()).ok_or_else(|| LoadError::new(p, "resource not found"));
        self.r.add_material(self.gfx.gl(), path, &mut read)
    }

    /// A material of just these two programs.
    fn program(&mut self, vp: &str, fp: &str) -> Result<MaterialHandle, String> {
        let material = "{\"vertex_program\": \"/m/p.vp\", \"fragment_program\": \"/m/p.fp\"}";
        let files = [("/m/p.material", material), ("/m/p.vp", vp), ("/m/p.fp", fp)];
        self.material(&files, "/m/p.material").map_err(|e| e.to_string())
    }
}

fn camera(eye: Vec3, target: Vec3) -> CameraView {
    CameraView {
        view: look_at_mat4(eye, target, Vec3::Y),
        proj: perspective(45f32.to_radians(), W as f32 / H as f32, 0.1, 100.0),
        position: eye,
    }
}

fn lit_list(cam: CameraView) -> DrawList {
    let mut list = DrawList::new(cam);
    list.lights.push(LightItem::default_key_light());
    list
}

/// A unit cube, 24 vertices; each face's UV (0,0) is its top-left seen from outside (side
/// faces upright), so a texture shows unflipped on every side face.
fn cube_primitive(material: Option<usize>) -> PrimitiveData {
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    let mut p = PrimitiveData { material, ..Default::default() };
    for (n, u, v) in faces {
        let base = p.positions.len() as u32;
        let c = n * 0.5;
        let (u, v) = (u * 0.5, v * 0.5);
        for (corner, uv) in
            [(c - u - v, [0.0, 1.0]), (c + u - v, [1.0, 1.0]), (c + u + v, [1.0, 0.0]), (c - u + v, [0.0, 0.0])]
        {
            p.positions.push(corner.to_array());
            p.normals.push(n.to_array());
            p.texcoords0.push(uv);
        }
        p.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    p
}

/// A quad in the XY plane, side 1, facing +Z, UV (0,0) at its top-left.
fn quad_primitive(material: Option<usize>) -> PrimitiveData {
    PrimitiveData {
        positions: vec![[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        texcoords0: vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
        ..Default::default()
    }
}

fn mesh(id: &str, node: usize, primitive: PrimitiveData) -> MeshData {
    let mut aabb = Aabb::default();
    primitive.positions.iter().for_each(|&p| aabb.grow(p));
    MeshData {
        id: id.into(),
        node,
        skin: None,
        primitives: vec![primitive],
        target_names: vec![],
        weights: vec![],
        aabb,
    }
}

fn node(name: &str, parent: Option<usize>, t: Vec3, r: Quat, s: Vec3) -> NodeData {
    NodeData {
        name: name.into(),
        parent,
        translation: t.to_array(),
        rotation: r.to_array(),
        scale: s.to_array(),
        gltf_index: 0,
    }
}

fn root_node() -> NodeData {
    node("root", None, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE)
}

fn texture(name: &str, w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> TextureData {
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(&px(x, y));
        }
    }
    TextureData {
        name: name.into(),
        width: w,
        height: h,
        rgba,
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        mag_linear: false,
        min_linear: true,
        mipmaps: true,
        cube: false,
    }
}

/// 4x4 white/blue checker with a red top-left cell and a yellow top-right cell, so flips and
/// mirroring are visible.
fn checker() -> TextureData {
    texture("checker", 32, 32, |x, y| {
        let (cx, cy) = (x / 8, y / 8);
        match (cx, cy) {
            (0, 0) => [230, 30, 30, 255],
            (3, 0) => [240, 220, 40, 255],
            _ if (cx + cy) % 2 == 0 => [240, 240, 240, 255],
            _ => [40, 70, 200, 255],
        }
    })
}

fn material(base_color: [f32; 4], texture: Option<usize>, alpha_mode: AlphaMode, double_sided: bool) -> MaterialData {
    MaterialData {
        name: String::new(),
        base_color,
        base_color_texture: texture,
        base_color_texcoord: 0,
        alpha_mode,
        alpha_cutoff: 0.5,
        double_sided,
        ..Default::default()
    }
}

fn single_mesh_model(
    source: &str,
    prim: PrimitiveData,
    materials: Vec<MaterialData>,
    textures: Vec<TextureData>,
) -> ModelData {
    let m = mesh("mesh", 0, prim);
    ModelData {
        source: source.into(),
        aabb: m.aabb,
        meshes: vec![m],
        materials,
        textures,
        nodes: vec![root_node()],
        ..Default::default()
    }
}

fn textured_cube_model() -> ModelData {
    single_mesh_model(
        "/test/cube.gltf",
        cube_primitive(Some(0)),
        vec![material([1.0; 4], Some(0), AlphaMode::Opaque, false)],
        vec![checker()],
    )
}

// ---------------------------------------------------------------------------------------------
// Golden images

fn background_pixels(img: &Image) -> usize {
    let bg = CLEAR.map(|c| (c * 255.0).round() as u8);
    img.rgba.chunks_exact(4).filter(|p| p[..3].iter().zip(&bg).all(|(a, b)| a.abs_diff(*b) <= 1)).count()
}

fn textured_cube() -> Result<(), String> {
    let mut s = Scene::new()?;
    let cube = s.add(&textured_cube_model())?;
    let mut list = lit_list(camera(Vec3::new(1.6, 1.3, 2.4), Vec3::ZERO));
    list.push(cube, s.builtin, Mat4::from_rotation_y(0.25));
    let (img, stats) = s.render(&list)?;
    ensure(stats.draws == 1, || format!("{stats:?}"))?;
    // The front (+Z) face is lit and its top-left texel block is red: find red in the upper-left
    // part of the cube's image, yellow right of it.
    // The pixel nearest each colour (the first one within a tolerance can be a filtered edge
    // pixel of the neighbouring cell).
    let dist = |p: [u8; 4], c: [u8; 3]| p[..3].iter().zip(c).map(|(a, b)| u32::from(a.abs_diff(b))).max().unwrap_or(0);
    let find = |c: [u8; 3]| -> Option<(u32, u32)> {
        (0..H)
            .flat_map(|y| (0..W).map(move |x| (x, y)))
            .filter_map(|(x, y)| img.pixel(x, y).map(|p| (dist(p, c), (x, y))))
            .filter(|(d, _)| *d < 90)
            .min_by_key(|(d, _)| *d)
            .map(|(_, at)| at)
    };
    let red = find([230, 30, 30]).ok_or("no red texel block visible")?;
    let yellow = find([240, 220, 40]).ok_or("no yellow texel block visible")?;
    ensure(yellow.0 > red.0, || format!("yellow {yellow:?} should be right of red {red:?} (mirrored texture?)"))?;
    check_golden("textured_cube", &img)
}

fn node_transforms() -> Result<(), String> {
    let mut s = Scene::new()?;
    let colors = [[0.9, 0.2, 0.2, 1.0], [0.2, 0.8, 0.3, 1.0], [0.2, 0.4, 0.95, 1.0], [1.0, 1.0, 0.0, 1.0]];
    let materials = colors.iter().map(|&c| material(c, None, AlphaMode::Opaque, false)).collect();
    let nodes = vec![
        node("base", None, Vec3::new(0.0, -0.25, 0.0), Quat::from_rotation_y(0.5), Vec3::new(2.5, 0.5, 1.5)),
        // Child of a scaled parent: its translation is scaled by the parent.
        node("pillar", Some(0), Vec3::new(-0.3, 2.0, 0.0), Quat::IDENTITY, Vec3::new(0.2, 3.0, 0.4)),
        node("arm", None, Vec3::new(0.8, 0.7, 0.0), Quat::from_rotation_z(0.6), Vec3::ONE),
        node("hand", Some(2), Vec3::new(0.0, 0.8, 0.0), Quat::from_rotation_x(0.7), Vec3::splat(0.5)),
    ];
    let model = ModelData {
        source: "/test/nodes.gltf".into(),
        meshes: vec![
            mesh("base", 0, cube_primitive(Some(0))),
            mesh("pillar", 1, cube_primitive(Some(1))),
            mesh("arm", 2, cube_primitive(Some(2))),
            mesh("hand", 3, cube_primitive(Some(3))),
        ],
        materials,
        nodes,
        ..Default::default()
    };
    let h = s.add(&model)?;
    let mut list = lit_list(camera(Vec3::new(2.0, 2.5, 5.0), Vec3::new(0.0, 0.6, 0.0)));
    list.push(h, s.builtin, Mat4::IDENTITY);
    // A second instance with the "hand" mesh switched off.
    list.push_with(
        h,
        s.builtin,
        Mat4::from_translation(Vec3::new(-2.2, 0.0, -1.5)),
        &[],
        &[true, true, true, false],
        &[],
    );
    let (img, stats) = s.render(&list)?;
    ensure(stats.draws == 7, || format!("expected 7 draws, {stats:?}"))?;
    ensure(stats.vao_binds == 4, || format!("instances should share VAOs: {stats:?}"))?;
    check_golden("node_transforms", &img)
}

const CUSTOM_VP: &str = "#version 140
in vec4 position;
in vec2 texcoord0;
uniform vs_uniforms
{
    mat4 mtx_worldview;
    mat4 mtx_proj;
};
out vec2 var_texcoord0;
void main()
{
    var_texcoord0 = texcoord0;
    gl_Position = mtx_proj * mtx_worldview * vec4(position.xyz, 1.0);
}
";

const CUSTOM_FP: &str = "#version 140
in vec2 var_texcoord0;
uniform fs_uniforms
{
    vec4 stripe;
    vec4 tint;
};
uniform sampler2D tex0;
out vec4 out_color;
void main()
{
    vec4 c = texture(tex0, var_texcoord0);
    float s = step(0.5, fract(var_texcoord0.x * stripe.x));
    out_color = vec4(mix(c.rgb, tint.rgb, 0.5 + 0.5 * s), 1.0);
}
";

const CUSTOM_MATERIAL: &str = r#"{
  "vertex_program": "/main/custom.vp",
  "fragment_program": "/main/custom.fp",
  "fragment_constants": { "tint": [0.1, 0.9, 0.2, 1], "stripe": [4, 0, 0, 0] },
  "samplers": { "tex0": { "wrap": "repeat", "filter": "nearest" } }
}"#;

fn custom_material() -> Result<(), String> {
    let mut s = Scene::new()?;
    let files =
        [("/main/custom.material", CUSTOM_MATERIAL), ("/main/custom.vp", CUSTOM_VP), ("/main/custom.fp", CUSTOM_FP)];
    let mat = s.material(&files, "/main/custom.material").map_err(|e| e.to_string())?;
    let program = s.r.material(mat).ok_or("material handle")?.program();
    for name in ["mtx_worldview", "mtx_proj", "tint", "stripe", "tex0"] {
        ensure(program.declares(name), || format!("program does not report '{name}'"))?;
    }
    let cube = s.add(&textured_cube_model())?;
    let mut list = DrawList::new(camera(Vec3::new(0.0, 1.2, 3.2), Vec3::ZERO));
    list.push(cube, mat, Mat4::from_translation(Vec3::new(-0.8, 0.0, 0.0)) * Mat4::from_rotation_y(0.4));
    list.push_with(
        cube,
        mat,
        Mat4::from_translation(Vec3::new(0.8, 0.0, 0.0)) * Mat4::from_rotation_y(-0.4),
        &[(hash_str("tint"), [0.9, 0.1, 0.6, 1.0])],
        &[],
        &[],
    );
    let (img, stats) = s.render(&list)?;
    ensure(stats.uniform_block_bytes > 0, || format!("no uniform block data: {stats:?}"))?;
    // Left cube green-ish stripes, right cube magenta-ish.
    let (l, r) = (img.pixel(W / 4, H / 2).ok_or("pixel")?, img.pixel(3 * W / 4, H / 2).ok_or("pixel")?);
    ensure(l[1] > l[0] && r[0] > r[1], || format!("left {l:?} should be green, right {r:?} magenta"))?;
    check_golden("custom_material", &img)
}

fn alpha_modes() -> Result<(), String> {
    let mut s = Scene::new()?;
    let stripes = texture("stripes", 8, 8, |x, _| if x % 2 == 0 { [255, 255, 255, 255] } else { [255, 255, 255, 0] });
    let model = ModelData {
        source: "/test/quads.gltf".into(),
        meshes: vec![
            mesh("red", 0, quad_primitive(Some(0))),
            mesh("green", 0, quad_primitive(Some(1))),
            mesh("blue", 0, quad_primitive(Some(2))),
            mesh("mask", 0, quad_primitive(Some(3))),
            mesh("wall", 0, quad_primitive(Some(4))),
        ],
        materials: vec![
            material([1.0, 0.1, 0.1, 0.5], None, AlphaMode::Blend, true),
            material([0.1, 1.0, 0.1, 0.5], None, AlphaMode::Blend, true),
            material([0.1, 0.1, 1.0, 0.5], None, AlphaMode::Blend, true),
            material([1.0, 0.8, 0.2, 1.0], Some(0), AlphaMode::Mask, true),
            material([0.8, 0.8, 0.8, 1.0], None, AlphaMode::Opaque, false),
        ],
        textures: vec![stripes],
        nodes: vec![root_node()],
        ..Default::default()
    };
    let h = s.add(&model)?;
    let only = |i: usize| -> Vec<bool> { (0..5).map(|m| m == i).collect() };
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO));
    list.look.ambient = [1.0; 3];
    let at =
        |x: f32, y: f32, z: f32, s: f32| Mat4::from_translation(Vec3::new(x, y, z)) * Mat4::from_scale(Vec3::splat(s));
    // Pushed front to back, so only sorting gets the blend right.
    list.push_with(h, s.builtin, at(0.3, -0.2, 0.6, 1.2), &[], &only(2), &[]);
    list.push_with(h, s.builtin, at(0.0, 0.2, 0.3, 1.2), &[], &only(1), &[]);
    list.push_with(h, s.builtin, at(-0.3, -0.2, 0.0, 1.2), &[], &only(0), &[]);
    list.push_with(h, s.builtin, at(-1.3, 0.6, 0.1, 1.0), &[], &only(3), &[]);
    list.push_with(h, s.builtin, at(0.0, 0.0, -1.0, 6.0), &[], &only(4), &[]);
    let (img, stats) = s.render(&list)?;
    ensure(stats.draws == 5, || format!("{stats:?}"))?;
    // Centre: all three layers over the grey wall; blue is nearest so it dominates.
    let c = img.pixel(W / 2 + 4, H / 2 + 4).ok_or("pixel")?;
    ensure(c[2] > c[0] && c[2] > c[1], || format!("centre {c:?} should be mostly blue"))?;
    check_golden("alpha_modes", &img)
}

fn default_camera_frames() -> Result<(), String> {
    let mut s = Scene::new()?;
    let cube = s.add(&textured_cube_model())?;
    let placements =
        [Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), Vec3::new(0.0, 2.0, -2.0), Vec3::new(0.0, -1.0, 2.0)];
    let model_aabb = Aabb { min: [-0.5; 3], max: [0.5; 3] };
    let mut bounds = Aabb::default();
    for p in placements {
        let b = transform_aabb(&model_aabb, Mat4::from_translation(p));
        bounds.grow(b.min);
        bounds.grow(b.max);
    }
    let mut list = lit_list(default_camera(&bounds, W as f32 / H as f32));
    for p in placements {
        list.push(cube, s.builtin, Mat4::from_translation(p));
    }
    let (img, _) = s.render(&list)?;
    // Everything inside the frame, and the scene is not a speck: objects reach near both sides.
    let (mut min_x, mut max_x) = (W, 0);
    for y in 0..H {
        for x in 0..W {
            let p = img.pixel(x, y).ok_or("pixel")?;
            let bg = CLEAR.map(|c| (c * 255.0).round() as u8);
            if p[..3].iter().zip(&bg).any(|(a, b)| a.abs_diff(*b) > 1) {
                min_x = min_x.min(x);
                max_x = max_x.max(x);
                ensure(x > 0 && x < W - 1 && y > 0 && y < H - 1, || format!("object touches the edge at ({x},{y})"))?;
            }
        }
    }
    ensure(max_x - min_x > W / 2, || format!("scene spans only x {min_x}..{max_x}"))?;
    check_golden("default_camera", &img)
}

const BROKEN_FP: &str = "#version 140
out vec4 out_color;
void main()
{
    out_color = vec4(1.0) + undefined_thing;
}
";

fn compile_error() -> Result<(), String> {
    let mut s = Scene::new()?;
    let files = [
        ("/main/broken.material", "{\"vertex_program\": \"/main/ok.vp\", \"fragment_program\": \"/main/broken.fp\"}"),
        ("/main/ok.vp", CUSTOM_VP),
        ("/main/broken.fp", BROKEN_FP),
    ];
    let e = match s.material(&files, "/main/broken.material") {
        Ok(_) => return Err("broken shader compiled".into()),
        Err(e) => e,
    };
    let text = e.to_string();
    println!("       {}", text.replace('\n', "\n       "));
    ensure(e.resource == "/main/broken.fp", || format!("error names {}, not /main/broken.fp", e.resource))?;
    ensure(text.contains("undefined_thing"), || "driver log missing".into())?;
    // The driver's line number is the file's own (line 5), despite the inserted preamble.
    ensure(text.contains(":5(") || text.contains("(5)") || text.contains(":5:"), || "line 5 not in log".into())?;
    // The rest still renders.
    let cube = s.add(&textured_cube_model())?;
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO));
    list.push(cube, MaterialHandle(99), Mat4::IDENTITY);
    list.push(cube, s.builtin, Mat4::IDENTITY);
    let (img, stats) = s.render(&list)?;
    ensure(stats.draws == 1 && stats.skipped_items == 1, || format!("{stats:?}"))?;
    ensure(background_pixels(&img) < (W * H) as usize, || "nothing drawn".into())?;
    // A removed material is skipped the same way.
    let builtin = s.builtin;
    s.r.remove_material(s.gfx.gl(), builtin);
    let (_, stats) = s.render(&list)?;
    ensure(stats.draws == 0 && stats.skipped_items == 2, || format!("after removal: {stats:?}"))
}

fn link_and_json_errors() -> Result<(), String> {
    let mut s = Scene::new()?;
    // Declared but never defined: compiles, fails to link.
    let fp_wants_missing = "#version 140\nvec4 helper();\nout vec4 c;\nvoid main() { c = helper(); }\n";
    let vp = "#version 140\nin vec4 position;\nvoid main() { gl_Position = position; }\n";
    let files = [
        ("/m/link.material", "{\"vertex_program\": \"/m/a.vp\", \"fragment_program\": \"/m/a.fp\"}"),
        ("/m/a.vp", vp),
        ("/m/a.fp", fp_wants_missing),
        ("/m/typo.material", "{\"vertex_program\": \"/m/a.vp\",\n  \"fragment_progam\": \"/m/a.fp\"}"),
        ("/m/missing.material", "{\"vertex_program\": \"/m/none.vp\", \"fragment_program\": \"/m/a.fp\"}"),
    ];
    let e = s.material(&files, "/m/link.material").err().ok_or("link error not reported")?;
    println!("       {}", e.to_string().replace('\n', "\n       "));
    ensure(e.message.contains("link") && e.message.contains("/m/a.fp"), || format!("{e}"))?;
    let e = s.material(&files, "/m/typo.material").err().ok_or("typo accepted")?;
    ensure(e.resource == "/m/typo.material" && e.line == Some(2) && e.column.is_some(), || format!("{e}"))?;
    let e = s.material(&files, "/m/missing.material").err().ok_or("missing shader accepted")?;
    ensure(e.to_string().contains("/m/none.vp"), || format!("{e}"))
}

fn minimal_program() -> Result<(), String> {
    let mut s = Scene::new()?;
    let fp = "#version 140\nout vec4 c;\nvoid main() { c = vec4(1.0, 0.5, 0.0, 1.0); }\n";
    let mat = s.program(PLAIN_VP, fp)?;
    let cube = s.add(&textured_cube_model())?;
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO));
    list.push_with(cube, mat, Mat4::IDENTITY, &[(hash_str("tint"), [0.0; 4])], &[], &[]);
    let (img, _) = s.render(&list)?;
    let p = img.pixel(W / 2, H / 2).ok_or("pixel")?;
    ensure(p == [255, 128, 0, 255], || format!("centre pixel {p:?}"))
}

/// Reports its variant in the pixel: red the light slots in use, green the shadow slot + 1 (in
/// eighths), blue whether the primitive is alpha-masked.
const VARIANT_FP: &str = "#version 140
out vec4 c;
void main()
{
    c = vec4(float(SINEW_LIGHTS) / 8.0, float(SINEW_SHADOW_SLOT + 1) / 8.0, float(SINEW_ALPHA_MASK), 1.0);
}
";

const PLAIN_VP: &str = "#version 140
in vec4 position;
uniform mat4 mtx_worldviewproj;
void main() { gl_Position = mtx_worldviewproj * position; }
";

fn program_variants() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mat = s.program(PLAIN_VP, VARIANT_FP)?;
    let white_cube = |mode| {
        let m = vec![material([1.0; 4], None, mode, false)];
        single_mesh_model(&format!("/test/{mode:?}.gltf"), cube_primitive(Some(0)), m, vec![])
    };
    let (opaque, masked) = (s.add(&white_cube(AlphaMode::Opaque))?, s.add(&white_cube(AlphaMode::Mask))?);
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO));
    list.push(opaque, mat, Mat4::from_translation(Vec3::new(-0.8, 0.0, 0.0)));
    list.push(masked, mat, Mat4::from_translation(Vec3::new(0.8, 0.0, 0.0)));
    let (left, right) = ((W / 2 - 26, H / 2), (W / 2 + 26, H / 2));
    let (img, stats) = s.render(&list)?;
    let px = |img: &sinew::render::Image, (x, y): (u32, u32)| img.pixel(x, y).ok_or("pixel");
    // One light, no shadows: SINEW_LIGHTS 1, SINEW_SHADOW_SLOT -1; the two primitives differ
    // in their alpha mode only, so two programs.
    ensure(px(&img, left)? == [32, 0, 0, 255], || format!("opaque cube {:?}", px(&img, left)))?;
    ensure(px(&img, right)? == [32, 0, 255, 255], || format!("masked cube {:?}", px(&img, right)))?;
    ensure(stats.program_binds == 2 && stats.draws == 2, || format!("{stats:?}"))?;
    // Three lights this frame: both draws get programs with three slots.
    list.lights.push(LightItem::default_key_light());
    list.lights.push(LightItem {
        kind: LightKind::Point,
        position: Vec3::new(0.0, 2.0, 2.0),
        ..LightItem::default_key_light()
    });
    let (img, _) = s.render(&list)?;
    ensure(px(&img, left)? == [96, 0, 0, 255], || format!("three lights {:?}", px(&img, left)))?;
    ensure(px(&img, right)? == [96, 0, 255, 255], || format!("three lights, masked {:?}", px(&img, right)))?;
    // Back to one light: the programs made first draw again, the picture with them.
    list.lights.truncate(1);
    let (again, _) = s.render(&list)?;
    ensure(px(&again, left)? == [32, 0, 0, 255], || format!("one light again {:?}", px(&again, left)))?;
    ensure(s.r.errors().is_empty(), || format!("{:?}", s.r.errors()))
}

fn broken_variant() -> Result<(), String> {
    let mut s = Scene::new()?;
    // Fine with up to one light, an error with more.
    let fp = "#version 140
out vec4 c;
void main()
{
#if SINEW_LIGHTS > 1
    c = undefined_thing;
#else
    c = vec4(1.0, 0.5, 0.0, 1.0);
#endif
}
";
    let mat = s.program(PLAIN_VP, fp)?;
    let cube = s.add(&textured_cube_model())?;
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO));
    list.push(cube, mat, Mat4::from_translation(Vec3::new(-0.8, 0.0, 0.0)));
    list.push(cube, s.builtin, Mat4::from_translation(Vec3::new(0.8, 0.0, 0.0)));
    let (img, stats) = s.render(&list)?;
    let p = img.pixel(W / 2 - 26, H / 2).ok_or("pixel")?;
    ensure(p == [255, 128, 0, 255] && stats.draws == 2, || format!("one light: {p:?} {stats:?}"))?;
    list.lights.push(LightItem::default_key_light());
    for frame in 0..2 {
        let (img, stats) = s.render(&list)?;
        ensure(stats.draws == 1 && stats.skipped_items == 1, || format!("frame {frame}: {stats:?}"))?;
        ensure(background_pixels(&img) < (W * H) as usize, || "the built-in cube is not drawn".into())?;
    }
    let errors = s.r.errors();
    println!("       {}", errors.join("\n").replace('\n', "\n       "));
    ensure(errors.len() == 1, || format!("reported once: {errors:?}"))?;
    let e = &errors[0];
    ensure(e.contains("/m/p.fp") && e.contains("undefined_thing") && e.contains("SINEW_LIGHTS 2"), || e.clone())?;
    // Removing the material removes its variants: its draws are skipped, nothing else is.
    s.r.remove_material(s.gfx.gl(), mat);
    let (_, stats) = s.render(&list)?;
    ensure(stats.draws == 1 && stats.skipped_items == 1, || format!("after removal: {stats:?}"))
}

fn broken_variant_include() -> Result<(), String> {
    let mut s = Scene::new()?;
    let fp = "#version 140\nout vec4 c;\n#include \"/m/part.glsl\"\nvoid main() { c = colour(); }\n";
    let part = "vec4 colour()\n{\n#if SINEW_LIGHTS > 1\n    return undefined_thing;\n#else\n    return vec4(1.0);\n#endif\n}\n";
    let files = [
        ("/m/i.material", "{\"vertex_program\": \"/m/i.vp\", \"fragment_program\": \"/m/i.fp\"}"),
        ("/m/i.vp", PLAIN_VP),
        ("/m/i.fp", fp),
        ("/m/part.glsl", part),
    ];
    let mat = s.material(&files, "/m/i.material").map_err(|e| e.to_string())?;
    let cube = s.add(&textured_cube_model())?;
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 4.0), Vec3::ZERO));
    list.lights.push(LightItem::default_key_light());
    list.push(cube, mat, Mat4::IDENTITY);
    let (_, stats) = s.render(&list)?;
    ensure(stats.skipped_items == 1, || format!("{stats:?}"))?;
    let e = s.r.errors().join("\n");
    println!("       {}", e.replace('\n', "\n       "));
    // The error is in file 1 (the include) at its line 4.
    ensure(e.contains("1:4(") && e.contains("1 /m/part.glsl") && e.contains("SINEW_LIGHTS 2"), || e.clone())
}

fn sorting_and_sharing() -> Result<(), String> {
    let mut s = Scene::new()?;
    let cube = s.add(&textured_cube_model())?;
    let other = s.add(&single_mesh_model("/test/plain.gltf", cube_primitive(None), vec![], vec![]))?;
    let mut list = lit_list(camera(Vec3::new(0.0, 8.0, 20.0), Vec3::ZERO));
    for i in 0..200 {
        let model = if i % 2 == 0 { cube } else { other };
        let (x, z) = ((i % 20) as f32 - 10.0, (i / 20) as f32 - 5.0);
        list.push(model, s.builtin, Mat4::from_translation(Vec3::new(x, 0.0, z)));
    }
    // Off to the side and behind the camera: culled, not drawn.
    list.push(cube, s.builtin, Mat4::from_translation(Vec3::new(500.0, 0.0, 0.0)));
    list.push(cube, s.builtin, Mat4::from_translation(Vec3::new(0.0, 8.0, 30.0)));
    let (_, stats) = s.render(&list)?;
    ensure(stats.draws == 200 && stats.culled == 2, || format!("{stats:?}"))?;
    ensure(stats.draw_calls == 2 && stats.triangles == 200 * 12, || {
        format!("one instanced draw per model: {stats:?}")
    })?;
    ensure(stats.program_binds == 1 && stats.vao_binds == 2, || format!("interleaved models not grouped: {stats:?}"))?;
    // Two base colour textures, plus the built-in shader's (zero) morph target array and its
    // `pose_matrix_cache`: its variant for these plain cubes without shadows reads no other map.
    ensure(stats.texture_binds <= 4, || format!("redundant texture binds: {stats:?}"))?;
    // Second frame through the same renderer gives the same picture (per-frame state resets).
    let (a, _) = s.render(&list)?;
    let (b, _) = s.render(&list)?;
    ensure(a == b, || "frames differ".into())
}

/// Which draws merge: built-in material instances with equal overrides do (per primitive); a
/// tint override, a texture override, a blended primitive or a custom program that reads
/// `mtx_worldview` as a uniform each keep their own draw call. Either way the frame is the one
/// that single draws give, pixel for pixel.
fn instanced_draws() -> Result<(), String> {
    let mut s = Scene::new()?;
    let files =
        [("/main/custom.material", CUSTOM_MATERIAL), ("/main/custom.vp", CUSTOM_VP), ("/main/custom.fp", CUSTOM_FP)];
    let custom = s.material(&files, "/main/custom.material").map_err(|e| e.to_string())?;
    let cube = s.add(&textured_cube_model())?;
    let glass = material([0.3, 0.5, 0.9, 0.5], None, AlphaMode::Blend, false);
    let blended = s.add(&single_mesh_model("/test/glass.gltf", cube_primitive(Some(0)), vec![glass], vec![]))?;
    let texture = s.r.add_texture(s.gfx.gl(), &checker())?;
    let mut list = lit_list(camera(Vec3::new(0.0, 4.0, 6.0), Vec3::new(0.0, 0.0, -2.4)));
    let at = |i: usize| Mat4::from_translation(Vec3::new((i % 6) as f32 * 1.6 - 4.0, 0.0, (i / 6) as f32 * -1.6));
    let tint = [(hash_str("tint"), [1.0, 0.4, 0.4, 1.0])];
    for i in 0..24 {
        match i % 6 {
            // Two tinted instances with the same tint share one call; untinted ones another.
            1 => list.push_with(cube, s.builtin, at(i), &tint, &[], &[]),
            3 => list.push_with(cube, s.builtin, at(i), &[], &[], &[(hash_str("tex0"), texture)]),
            4 => list.push(cube, custom, at(i)),
            5 => list.push(blended, s.builtin, at(i)),
            _ => list.push(cube, s.builtin, at(i)),
        }
    }
    let (a, stats) = s.render(&list)?;
    // Built-in: plain (8), tinted (4), texture-overridden (4): 3 calls; custom: 4; blended: 4.
    ensure(stats.draws == 24 && stats.draw_calls == 3 + 4 + 4, || format!("{stats:?}"))?;
    s.r.set_instancing(false);
    let (b, single) = s.render(&list)?;
    ensure(single.draw_calls == 24 && single.triangles == stats.triangles, || format!("{single:?}"))?;
    let c = compare(&a, &b, 0)?;
    ensure(c.differing_pixels == 0, || format!("instanced vs single draws: {c:?}"))?;
    ensure(background_pixels(&a) < (W * H) as usize * 3 / 4, || "the cubes are not drawn".into())
}

fn texcoord1() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mut quad = quad_primitive(Some(0));
    // texcoord0 pins every vertex to the red top-left cell; texcoord1 spans the whole image.
    quad.texcoords1 = std::mem::replace(&mut quad.texcoords0, vec![[0.01, 0.01]; 4]);
    let mut mat = material([1.0; 4], Some(0), AlphaMode::Opaque, false);
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.5), Vec3::ZERO));
    list.look.ambient = [1.0; 3];
    let mut centre = Vec::new();
    for set in [0, 1] {
        mat.base_color_texcoord = set;
        let h = s.add(&single_mesh_model("/test/uv.gltf", quad.clone(), vec![mat.clone()], vec![checker()]))?;
        list.clear();
        list.push(h, s.builtin, Mat4::IDENTITY);
        let (img, _) = s.render(&list)?;
        // Just off the centre: cell (2, 2) of the 4x4 checker is white.
        centre.push(img.pixel(W / 2 + 3, H / 2 + 3).ok_or("pixel")?);
    }
    ensure(centre[0][1] < 100 && centre[1][1] > 200, || format!("texcoord0 then 1 gave {centre:?}"))
}

// ---------------------------------------------------------------------------------------------
// glTF material features, from the generated `samples::materials_showcase`

fn showcase_model(s: &mut Scene) -> Result<(ModelHandle, ModelData), String> {
    let bytes = sinew::project::gltf::samples::materials_showcase();
    let data = sinew::project::gltf::import_bytes("/test/materials.glb", &bytes, None).map_err(|e| e.to_string())?;
    Ok((s.add(&data)?, data))
}

/// One tile of the showcase alone, moved to the origin, under `list`'s camera and lights.
fn push_tile(list: &mut DrawList, s: &Scene, model: ModelHandle, data: &ModelData, tile: usize) {
    let [x, y] = sinew::project::gltf::samples::SHOWCASE_TILES[tile].1;
    let only: Vec<bool> = (0..data.meshes.len()).map(|m| m == tile).collect();
    list.push_with(model, s.builtin, Mat4::from_translation(Vec3::new(-x, -y, 0.0)), &[], &only, &[]);
}

fn showcase() -> Result<(), String> {
    let mut s = Scene::new()?;
    let (h, _) = showcase_model(&mut s)?;
    let mut list = lit_list(camera(Vec3::new(0.0, 0.0, 3.4), Vec3::ZERO));
    list.push(h, s.builtin, Mat4::IDENTITY);
    let (img, stats) = s.render(&list)?;
    ensure(stats.draws == 6, || format!("{stats:?}"))?;
    check_golden("materials", &img)
}

/// With ambient 1 and no lights the built-in material shows its albedo: an sRGB texel comes out
/// as it went in (decoded, then encoded), a linear factor of 0.5 comes out as sRGB 188, and
/// emissive light adds without any light at all.
fn srgb_round_trip() -> Result<(), String> {
    use sinew::project::gltf::samples::SHOWCASE_RAMP;
    let mut s = Scene::new()?;
    let (h, data) = showcase_model(&mut s)?;
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.2), Vec3::ZERO));
    list.look.ambient = [1.0; 3];
    push_tile(&mut list, &s, h, &data, 2);
    let (img, _) = s.render(&list)?;
    // The quad spans more than the view at this distance; column k of the ramp is at u = (k + 0.5) / 8.
    let half_width = 1.2 * (22.5f32).to_radians().tan() * W as f32 / H as f32;
    for (k, &g) in SHOWCASE_RAMP.iter().enumerate() {
        let u = (k as f32 + 0.5) / 8.0 - 0.5;
        let x = W as f32 / 2.0 + u / half_width * W as f32 / 2.0;
        if !(0.0..W as f32).contains(&x) {
            continue;
        }
        let p = img.pixel(x as u32, H / 2).ok_or("pixel")?;
        ensure(p[..3].iter().all(|&c| c.abs_diff(g) <= 2), || format!("ramp step {k}: texel {g}, drawn {p:?}"))?;
    }
    // Factor 0.5 (linear) of the bump tile's 0.8 base: no normal map influence with ambient only.
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.2), Vec3::ZERO));
    list.look.ambient = [0.625; 3]; // 0.8 x 0.625 = 0.5 linear
    push_tile(&mut list, &s, h, &data, 4);
    let (img, _) = s.render(&list)?;
    let p = img.pixel(W / 2 + 7, H / 2 + 7).ok_or("pixel")?;
    ensure(p[..3].iter().all(|&c| c.abs_diff(188) <= 2), || format!("linear 0.5 should be sRGB 188, got {p:?}"))?;
    // Emissive with no light: (1.0, 0.5, 0.1) on the checker's white cells, black on its black cells.
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.2), Vec3::ZERO));
    list.look.ambient = [0.0; 3];
    push_tile(&mut list, &s, h, &data, 1);
    let (img, _) = s.render(&list)?;
    let (mut white, mut black) = (0, 0);
    for p in img.rgba.chunks_exact(4) {
        if p[0].abs_diff(255) <= 2 && p[1].abs_diff(188) <= 2 && p[2].abs_diff(89) <= 2 {
            white += 1;
        } else if p[..3] == [0, 0, 0] {
            black += 1;
        }
    }
    let n = (W * H) as usize;
    ensure(white > n / 3 && black > n / 3, || format!("emissive: {white} orange and {black} black of {n} pixels"))?;
    // Vertex colours (u8 VEC3) blend linearly across each triangle and are then sRGB-encoded:
    // check pixels against the blend computed here at their centres.
    let dist = 1.6;
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, dist), Vec3::ZERO));
    list.look.ambient = [1.0; 3];
    push_tile(&mut list, &s, h, &data, 0);
    let (img, _) = s.render(&list)?;
    let px_per_unit = H as f32 / 2.0 / (dist * (22.5f32).to_radians().tan());
    let corners = [(Vec3::new(-0.5, -0.5, 0.0), Vec3::X), (Vec3::new(0.5, -0.5, 0.0), Vec3::Y)];
    let (tr, tl) = ((Vec3::new(0.5, 0.5, 0.0), Vec3::Z), (Vec3::new(-0.5, 0.5, 0.0), Vec3::ONE));
    let encode = |c: f32| {
        let s = if c <= 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
        (s * 255.0).round() as u8
    };
    for (i, j) in [(50, 30), (70, 80), (110, 45), (90, 90), (60, 60), (100, 75)] {
        let q = Vec3::new(
            (i as f32 + 0.5 - W as f32 / 2.0) / px_per_unit,
            (H as f32 / 2.0 - j as f32 - 0.5) / px_per_unit,
            0.0,
        );
        // Triangles (0, 1, 2) below the diagonal y = x, (0, 2, 3) above it.
        let tri = if q.y < q.x { [corners[0], corners[1], tr] } else { [corners[0], tr, tl] };
        let area = |a: Vec3, b: Vec3, c: Vec3| (b - a).cross(c - a).z;
        let full = area(tri[0].0, tri[1].0, tri[2].0);
        let w = [area(q, tri[1].0, tri[2].0), area(tri[0].0, q, tri[2].0), area(tri[0].0, tri[1].0, q)];
        let c = (tri[0].1 * w[0] + tri[1].1 * w[1] + tri[2].1 * w[2]) / full;
        let want = [encode(c.x), encode(c.y), encode(c.z)];
        let got = img.pixel(i, j).ok_or("pixel")?;
        ensure(got[..3].iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 3), || {
            format!("vertex colour at pixel ({i}, {j}): drew {got:?}, the linear blend encoded is {want:?}")
        })?;
    }
    // Occlusion through TEXCOORD_1: bright in the middle, dark towards the corners (TEXCOORD_0
    // would read the map's darkest texel everywhere).
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO));
    list.look.ambient = [1.0; 3];
    push_tile(&mut list, &s, h, &data, 5);
    let (img, _) = s.render(&list)?;
    let (mid, corner) = (img.pixel(W / 2, H / 2).ok_or("pixel")?, img.pixel(W / 2 + 45, H / 2 + 38).ok_or("pixel")?);
    ensure(mid[0] > 200 && corner[0] + 60 < mid[0], || format!("occlusion: middle {mid:?}, corner {corner:?}"))
}

/// Halfway between a black and a white texel, bilinear filtering of an sRGB texture gives linear
/// 0.5, shown as sRGB 188; filtering the stored bytes first (decoding after) gave 128. The
/// same texture as a `.model` texture stays raw, read as the shader has always read it.
fn srgb_filtering() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mut two = texture("black_white", 2, 1, |x, _| if x == 0 { [0, 0, 0, 255] } else { [255; 4] });
    (two.wrap_s, two.wrap_t, two.mag_linear, two.mipmaps) = (Wrap::ClampToEdge, Wrap::ClampToEdge, true, false);
    for emissive in [false, true] {
        let mut m = material(if emissive { [0.0, 0.0, 0.0, 1.0] } else { [1.0; 4] }, None, AlphaMode::Opaque, true);
        if emissive {
            m.emissive = [1.0; 3];
            m.emissive_texture = Some(sinew::project::model_data::TextureRef { texture: 0, texcoord: 0 });
        } else {
            m.base_color_texture = Some(0);
        }
        let model = single_mesh_model("/test/half.gltf", quad_primitive(Some(0)), vec![m], vec![two.clone()]);
        let h = s.add(&model)?;
        let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.2), Vec3::ZERO));
        list.look.ambient = if emissive { [0.0; 3] } else { [1.0; 3] };
        list.push(h, s.builtin, Mat4::IDENTITY);
        let (img, _) = s.render(&list)?;
        let p = img.pixel(W / 2, H / 2).ok_or("pixel")?;
        let what = if emissive { "emissive" } else { "base colour" };
        ensure(p[..3].iter().all(|&c| c.abs_diff(188) <= 3), || {
            format!("{what}: halfway between black and white texels should be linear 0.5 (sRGB 188), drew {p:?}")
        })?;
    }
    Ok(())
}

/// The dome normal map drawn with TANGENT from the file and with generated tangents gives the
/// same picture, and the domes' upper halves (facing the key light above) are brighter.
fn normal_maps() -> Result<(), String> {
    let mut s = Scene::new()?;
    let (h, data) = showcase_model(&mut s)?;
    let mut images = Vec::new();
    for tile in [3, 4] {
        let mut list = DrawList::new(camera(Vec3::new(0.0, 0.0, 1.2), Vec3::ZERO));
        list.look.ambient = [0.1; 3];
        list.lights
            .push(LightItem { direction: Vec3::new(0.0, -1.0, -1.0).normalize(), ..LightItem::default_key_light() });
        push_tile(&mut list, &s, h, &data, tile);
        images.push(s.render(&list)?.0);
    }
    let c = compare(&images[0], &images[1], 2)?;
    ensure(c.differing_pixels == 0, || format!("given vs generated tangents: {c:?}"))?;
    // Dome (1, 1) of the 4x4 grid is centred at u = v = 0.375: sample just above and below it.
    let scale = H as f32 / 2.0 / (1.2 * (22.5f32).to_radians().tan());
    let (cx, cy) = (W as f32 / 2.0 - 0.125 * scale, H as f32 / 2.0 - 0.125 * scale);
    let top = images[0].pixel(cx as u32, (cy - 0.06 * scale) as u32).ok_or("pixel")?;
    let bottom = images[0].pixel(cx as u32, (cy + 0.06 * scale) as u32).ok_or("pixel")?;
    let flat = images[0].pixel(W / 2, H / 2).ok_or("pixel")?;
    ensure(top[0] > flat[0] + 10 && bottom[0] + 10 < flat[0], || {
        format!("dome top {top:?} should be brighter and bottom {bottom:?} darker than flat ground {flat:?}")
    })
}

fn check_golden(name: &str, actual: &Image) -> Result<(), String> {
    checks::check_golden(&format!("models_{name}"), actual)
}
