//! Lighting and output settings seen through the path `sinew run` takes (project.json and
//! light components → the game's draw list → the built-in material → a headless screenshot):
//! the ambient light (issue 41 item 1: the running game once drew every face turned from the
//! light pure black while the renderer tests, which built their own list, passed), tone mapping
//! and exposure.
//!
//! The scene: a red cube (linear base colour 0.9, 0.2, 0.2) seen face on, lit from straight
//! above, so the face the camera sees gets no direct light: its colour is base colour × ambient,
//! then exposure and tone mapping, then sRGB encoding.
mod common;
use common::*;
use sinew::project::gltf::samples;
use sinew::render::Image;

/// Red channel of the base colour of `samples::two_meshes`'s left cube.
const RED: f32 = 0.9;

fn collection(extra_light: &str) -> String {
    format!(
        r#"{{ "name": "main", "objects": [
  {{ "id": "eye", "position": [-1, 1, 2.5], "components": [ {{ "id": "camera", "type": "camera" }} ] }},
  {{ "id": "sun", "euler": [-90, 0, 0], "components": [ {{ "id": "light", "type": "light", "kind": "directional" }} ] }},
  {{ "id": "cubes", "components": [ {{ "id": "model", "type": "model", "mesh": "/models/cubes.glb" }} ] }}
  {extra_light}
] }}"#
    )
}

/// Runs a project of `settings` (project.json fields besides `main_collection`), `collection`
/// and `/models/NAME.glb` models headless at `size` and returns its screenshot.
fn screenshot(tag: &str, settings: &str, collection: &str, models: &[(&str, Vec<u8>)], size: &str) -> Image {
    screenshot_with(tag, settings, collection, models, size, &[])
}

/// [`screenshot`] with more project files (scripts).
fn screenshot_with(
    tag: &str,
    settings: &str,
    collection: &str,
    models: &[(&str, Vec<u8>)],
    size: &str,
    files: &[(&str, &str)],
) -> Image {
    let project_json = format!(r#"{{ "main_collection": "/main/main.collection" {settings} }}"#);
    let mut all = vec![("/project.json", project_json.as_str()), ("/main/main.collection", collection)];
    all.extend_from_slice(files);
    let p = project(tag, &all);
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    for (name, glb) in models {
        std::fs::write(p.path().join(format!("models/{name}.glb")), glb).expect("model");
    }
    let shot = p.path().join("shot.png");
    let r = sinew(&[
        "run",
        p.path().to_str().expect("utf-8 path"),
        "--headless",
        "--size",
        size,
        "--frames",
        "2",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    Image::load_png(&shot).expect("screenshot")
}

/// The median red channel of the red cube's face, in the scene with `extra` objects appended.
fn red_face(tag: &str, settings: &str, extra: &str) -> u8 {
    red_face_with(tag, settings, extra, &[])
}

/// [`red_face`] with more project files (scripts).
fn red_face_with(tag: &str, settings: &str, extra: &str, files: &[(&str, &str)]) -> u8 {
    let img = screenshot_with(tag, settings, &collection(extra), &[("cubes", samples::two_meshes())], "96x64", files);
    // The face fills the middle of the picture; the clear colour is grey, the other cube green.
    let mut reds: Vec<u8> = img.rgba.chunks(4).filter(|p| p[0] as i32 > p[1] as i32 + 8).map(|p| p[0]).collect();
    assert!(reds.len() > 500, "{tag}: only {} red pixels: the face is black or missing", reds.len());
    reds.sort_unstable();
    reds[reds.len() / 2]
}

fn srgb8(linear: f32) -> u8 {
    let c = linear.clamp(0.0, 1.0);
    let s = if c <= 0.0031308 { c * 12.92 } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (s * 255.0).round() as u8
}

fn assert_near(tag: &str, got: u8, want: u8) {
    assert!((got as i32 - want as i32).abs() <= 2, "{tag}: red {got}, expected {want}");
}

#[test]
fn the_shaded_side_follows_the_ambient_setting_and_light() {
    // Default: a quarter grey, not black.
    let got = red_face("ambient-default", "", "");
    assert_near("default ambient", got, srgb8(RED * 0.25));
    assert!(got > 100, "the face turned from the light is nearly black: {got}");
    let got = red_face("ambient-set", r#", "ambient": [0.5, 0.5, 0.5]"#, "");
    assert_near("project ambient 0.5", got, srgb8(RED * 0.5));
    // An ambient light component replaces the project's value (colour x intensity).
    let light = r#", { "id": "sky", "components": [ { "id": "light", "type": "light", "kind": "ambient",
        "color": [1, 0.5, 0.5], "intensity": 0.7 } ] }"#;
    let got = red_face("ambient-light", r#", "ambient": [0.05, 0.05, 0.05]"#, light);
    assert_near("ambient light 0.7", got, srgb8(RED * 0.7));
    // A script's go.set of the ambient light's intensity and color reaches the picture.
    let scripted = r#", { "id": "sky", "components": [ { "id": "light", "type": "light", "kind": "ambient",
        "intensity": 0.7 }, { "id": "script", "type": "script", "script": "/main/sky.script" } ] }"#;
    let got = red_face_with(
        "ambient-scripted",
        r#", "ambient": [0.05, 0.05, 0.05]"#,
        scripted,
        &[(
            "/main/sky.script",
            "function init(self) go.set('#light', 'intensity', 0.5); go.set('#light', 'color.x', 0.8) end",
        )],
    );
    assert_near("ambient light set to 0.5 x 0.8 by a script", got, srgb8(RED * 0.4));
}

/// A spot light shines as a point light inside its inner cone and not at all outside its outer
/// one: aimed at the face (it shines along its object's -Z) it lights it as a point light in the
/// same place does; turned 70 degrees away (outer cone 45) the face has the ambient light only.
#[test]
fn a_spot_light_lights_only_inside_its_cone() {
    let lamp = |kind: &str, euler: &str| {
        format!(
            r#", {{ "id": "lamp", "position": [-1, 1, 2.5], "euler": {euler}, "components": [ {{ "id": "light", "type": "light",
            "kind": "{kind}", "intensity": 3 {} }} ] }}"#,
            if kind == "spot" { r#", "inner_cone_angle": 30, "outer_cone_angle": 45"# } else { "" }
        )
    };
    let ambient = red_face("spot-none", "", "");
    let point = red_face("spot-point", "", &lamp("point", "[0, 0, 0]"));
    let aimed = red_face("spot-aimed", "", &lamp("spot", "[0, 0, 0]"));
    let away = red_face("spot-away", "", &lamp("spot", "[0, 70, 0]"));
    assert!(point > ambient + 30, "the point light lights the face: {point} against {ambient}");
    assert_near("a spot light aimed at the face, as a point light", aimed, point);
    assert_near("a spot light turned away, ambient only", away, ambient);
}

/// The red channel of three.js's ACESFilmicToneMapping of the linear colour `v`.
fn aces_red(v: [f32; 3]) -> f32 {
    let m_in = [[0.59719, 0.07600, 0.02840], [0.35458, 0.90834, 0.13383], [0.04823, 0.01566, 0.83777]];
    let m_out = [[1.60475, -0.10208, -0.00327], [-0.53108, 1.10813, -0.07276], [-0.07367, -0.00605, 1.07602]];
    // Column-major as GLSL: out[row] = sum over columns c of m[c][row] * in[c].
    let mul = |m: [[f32; 3]; 3], x: [f32; 3]| -> [f32; 3] {
        std::array::from_fn(|row| (0..3).map(|c| m[c][row] * x[c]).sum())
    };
    let c = mul(m_in, v.map(|x| x / 0.6));
    let c = c.map(|x| (x * (x + 0.0245786) - 0.000090537) / (x * (0.983729 * x + 0.432951) + 0.238081));
    mul(m_out, c)[0].clamp(0.0, 1.0)
}

#[test]
fn exposure_and_tone_mapping_follow_the_settings() {
    // Tone mapping mixes channels, so the cube's whole colour (0.9, 0.2, 0.2) goes in.
    let got = red_face("exposure", r#", "exposure": 2"#, "");
    assert_near("exposure 2, no tone mapping", got, srgb8(RED * 0.25 * 2.0));
    let got = red_face("aces", r#", "ambient": [1, 1, 1], "tone_mapping": "aces""#, "");
    let want = aces_red([RED, 0.2, 0.2]);
    assert_near("ACES", got, srgb8(want));
    assert!(srgb8(RED) as i32 - got as i32 > 5, "ACES changed nothing: {got}");
    let none = red_face("agx-none", r#", "ambient": [1, 1, 1]"#, "");
    assert_near("no tone mapping", none, srgb8(RED));
    let agx = red_face("agx", r#", "ambient": [1, 1, 1], "tone_mapping": "agx""#, "");
    assert!(
        (agx as i32 - none as i32).abs() > 5 && (agx as i32 - got as i32).abs() > 2,
        "AgX {agx}, none {none}, ACES {got}"
    );
}

/// A grid of spheres from metallic 0 (left) to 1 (right) and roughness 0 (bottom) to 1 (top),
/// shaded with glTF's metallic-roughness model under one white directional light from the upper
/// left front and a dim ambient light.
#[test]
fn metal_rough_spheres_match_the_golden_image() {
    let collection = r#"{ "name": "main", "objects": [
  { "id": "eye", "position": [0, 0, 8.5], "components": [ { "id": "camera", "type": "camera" } ] },
  { "id": "sun", "euler": [-35, -30, 0], "components": [ { "id": "light", "type": "light", "intensity": 2 } ] },
  { "id": "spheres", "components": [ { "id": "model", "type": "model", "mesh": "/models/spheres.glb" } ] }
] }"#;
    let settings = r#", "shading": "standard", "ambient": [0.15, 0.15, 0.15]"#;
    let models = [("spheres", samples::metal_rough_spheres())];
    let img = screenshot("spheres", settings, collection, &models, "320x320");
    // Sphere centres on screen: 1.2 apart at 8.5 units with a 45° field of view.
    let step = 1.2 / (2.0 * 8.5 * (std::f32::consts::FRAC_PI_8).tan()) * 320.0;
    // A point on the lower right of each sphere, away from the highlight.
    let off_highlight = |col: i32, row: i32| {
        let (x, y) = (160.0 + (col - 2) as f32 * step + 0.2 * step, 160.0 - (row - 2) as f32 * step + 0.2 * step);
        img.pixel(x as u32, y as u32).expect("inside")
    };
    let luma = |p: [u8; 4]| p[0] as i32 + p[1] as i32 + p[2] as i32;
    // Off the highlight, dielectrics show their diffuse colour, metals (no environment to
    // reflect) are dark.
    for row in 0..5 {
        let (dielectric, metal) = (off_highlight(0, row), off_highlight(4, row));
        // Rough metals spread their highlight over the whole sphere; smooth ones keep it small.
        if row < 2 {
            assert!(luma(dielectric) > luma(metal) + 40, "row {row}: dielectric {dielectric:?}, metal {metal:?}");
        }
        assert!(dielectric[0] > dielectric[2] + 40, "row {row}: the base colour shows: {dielectric:?}");
    }
    // A smooth sphere's highlight is small and bright, a rough one's wide and dim: the brightest
    // pixel of a smooth metal's cell is brighter than the rough one's.
    let cell_max = |col: i32, row: i32| {
        let (cx, cy) = (160.0 + (col - 2) as f32 * step, 160.0 - (row - 2) as f32 * step);
        let r = (step * 0.45) as i32;
        (-r..=r)
            .flat_map(|dx| (-r..=r).map(move |dy| (dx, dy)))
            .filter_map(|(dx, dy)| img.pixel((cx as i32 + dx) as u32, (cy as i32 + dy) as u32))
            .map(luma)
            .max()
            .unwrap_or(0)
    };
    assert!(cell_max(3, 0) > cell_max(3, 4) + 60, "smooth {} vs rough {}", cell_max(3, 0), cell_max(3, 4));
    assert!(cell_max(4, 0) > cell_max(4, 4) + 60, "smooth metal {} vs rough {}", cell_max(4, 0), cell_max(4, 4));
    if let Err(e) = golden::check_golden("metal_rough_spheres", &img) {
        panic!("{e}");
    }
}
