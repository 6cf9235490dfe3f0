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

/// Runs a project made of `settings` (project.json fields besides `main_collection`) and the
/// scene, with `extra` objects appended; returns the median red channel of the red cube's face.
fn red_face(tag: &str, settings: &str, extra: &str) -> u8 {
    let p = project(
        tag,
        &[
            ("/project.json", &format!(r#"{{ "main_collection": "/main/main.collection" {settings} }}"#)),
            ("/main/main.collection", &collection(extra)),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/cubes.glb"), samples::two_meshes()).expect("cubes");
    let shot = p.path().join("shot.png");
    let r = sinew(&[
        "run",
        p.path().to_str().expect("utf-8 path"),
        "--headless",
        "--size",
        "96x64",
        "--frames",
        "2",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
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
}
