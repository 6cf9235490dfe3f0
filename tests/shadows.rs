//! Shadows (issue 41 item 3) seen through the path `sinew run` takes: project.json's `shadows`
//! → the game's draw list → the depth pass and the built-in material → a headless screenshot.
//!
//! Most checks look straight down through an orthographic camera (10 units tall, 200×200
//! pixels: 20 pixels a unit, +x right, +z down the picture) at a light grey ground whose top is
//! y = 0. The sun shines down and towards +z, 30° from vertical, so a box's shadow falls on its
//! +z side, 0.577 units long per unit of height.
mod common;
use common::*;
use sinew::project::gltf::samples;
use sinew::render::Image;

/// The glTF models every scene here uses.
fn models() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("ground", samples::plain_cube([0.8, 0.8, 0.8, 1.0])),
        ("box", samples::plain_cube([0.9, 0.3, 0.2, 1.0])),
        ("blue", samples::plain_cube([0.2, 0.4, 0.9, 1.0])),
        ("wiggler", samples::wiggler()),
    ]
}

/// Runs a project headless for `frames` fixed steps and returns its last frame.
fn screenshot(tag: &str, settings: &str, collection: &str, size: &str, frames: u32) -> Image {
    screenshot_with(tag, settings, collection, &[], size, frames)
}

/// [`screenshot`] with more files in the project.
fn screenshot_with(
    tag: &str,
    settings: &str,
    collection: &str,
    files: &[(&str, &str)],
    size: &str,
    frames: u32,
) -> Image {
    let project_json = format!(r#"{{ "main_collection": "/main/main.collection" {settings} }}"#);
    let mut all = vec![("/project.json", project_json.as_str()), ("/main/main.collection", collection)];
    all.extend_from_slice(files);
    let p = project(tag, &all);
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    for (name, glb) in models() {
        std::fs::write(p.path().join(format!("models/{name}.glb")), glb).expect("model");
    }
    let shot = p.path().join("shot.png");
    let frames = frames.to_string();
    let r = sinew(&[
        "run",
        p.path().to_str().expect("utf-8 path"),
        "--headless",
        "--size",
        size,
        "--frames",
        &frames,
        "--fixed-dt",
        "0.0166667",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    Image::load_png(&shot).expect("screenshot")
}

const SUN: &str = r#"{ "id": "sun", "euler": [-60, 180, 0], "components": [ { "id": "light", "type": "light", "kind": "directional" } ] }"#;

/// The top-down scene: a box resting on the ground at x = -2 (its shadow over z 0.5..1.08),
/// a blue box at (2, -2.5) whose `cast_shadows` is off, the wiggler standing at z = -1.
fn top_down(ground_extra: &str, wiggler: bool) -> String {
    let wiggler = if wiggler {
        r#", { "id": "wiggler", "position": [0, 0, -1], "components": [ { "id": "model", "type": "model",
              "mesh": "/models/wiggler.glb", "default_animation": "wiggle" } ] }"#
    } else {
        ""
    };
    format!(
        r#"{{ "name": "main", "objects": [
  {{ "id": "eye", "position": [0, 10, 0], "euler": [-90, 0, 0], "components": [
      {{ "id": "camera", "type": "camera", "orthographic": true, "ortho_height": 10 }} ] }},
  {SUN},
  {{ "id": "ground", "position": [0, -0.1, 0], "scale": [20, 0.2, 20], "components": [
      {{ "id": "model", "type": "model", "mesh": "/models/ground.glb" {ground_extra} }} ] }},
  {{ "id": "box", "position": [-2, 0.5, 0], "components": [ {{ "id": "model", "type": "model", "mesh": "/models/box.glb" }} ] }},
  {{ "id": "blue", "position": [2, 0.5, -2.5], "components": [
      {{ "id": "model", "type": "model", "mesh": "/models/blue.glb", "cast_shadows": false }} ] }}
  {wiggler}
] }}"#
    )
}

/// The pixel over ground point (x, 0, z).
fn at(img: &Image, x: f32, z: f32) -> [u8; 4] {
    let (px, py) = (100.0 + 20.0 * x, 100.0 + 20.0 * z);
    img.pixel(px as u32, py as u32).expect("inside the picture")
}

fn luma(p: [u8; 4]) -> i32 {
    p[0] as i32 + p[1] as i32 + p[2] as i32
}

const ON: &str = r#", "shadows": true"#;

#[test]
fn a_box_shadows_the_ground_beside_it_and_the_switches_work() {
    let on = screenshot("top-on", ON, &top_down("", false), "200x200", 2);
    let off = screenshot("top-off", "", &top_down("", false), "200x200", 2);
    // In the shadow: the sun is gone, the ambient light stays (a quarter of the lit value or so).
    let (lit, shade) = (luma(at(&off, -2.0, 0.8)), luma(at(&on, -2.0, 0.8)));
    assert!(shade < lit * 6 / 10, "no shadow beside the box: {shade} vs lit {lit}");
    assert!(shade > 60, "the shadow is black, the ambient light is missing: {shade}");
    // No peter-panning: the shadow reaches the box's foot (0.05 units from its face).
    let foot = luma(at(&on, -2.0, 0.55));
    assert!(foot < lit * 6 / 10, "the shadow is detached from the box: {foot} vs lit {lit}");
    // Past the shadow's end (z 1.08) and beside it the ground is lit as without shadows.
    for (x, z) in [(-2.0, 1.3), (-1.2, 0.8), (-3.0, 0.8)] {
        assert!((luma(at(&on, x, z)) - luma(at(&off, x, z))).abs() <= 6, "({x}, {z}) is shadowed");
    }
    // No acne: lit ground, away from every caster, is the same as without shadows, everywhere.
    let mut acne = 0;
    for z in [-4.5f32, -3.8, 2.5, 3.0, 4.0, 4.7] {
        for i in 0..90 {
            let x = -4.5 + i as f32 * 0.1;
            if (luma(at(&on, x, z)) - luma(at(&off, x, z))).abs() > 6 {
                acne += 1;
            }
        }
    }
    assert_eq!(acne, 0, "{acne} lit ground pixels darkened by shadows (acne)");
    // The shadow's edge is soft: between fully lit and fully shaded there are in-between values
    // along a line across its far end.
    let across: Vec<i32> = (0..40).map(|i| luma(at(&on, -2.0, 0.9 + i as f32 * 0.01))).collect();
    let between = across.iter().filter(|&&v| v > shade + 15 && v < lit - 15).count();
    assert!(between >= 1, "a hard edge: {across:?}");
    // `cast_shadows: false`: the blue box casts nothing where its shadow would fall.
    let (x, z) = (2.0, -1.7);
    assert!((luma(at(&on, x, z)) - luma(at(&off, x, z))).abs() <= 6, "the blue box casts a shadow");
    // `receive_shadows: false` on the ground: no shadow on it at all.
    let unreceived = screenshot("top-unreceived", ON, &top_down(r#", "receive_shadows": false"#, false), "200x200", 2);
    let got = luma(at(&unreceived, -2.0, 0.8));
    assert!((got - lit).abs() <= 6, "the ground receives a shadow: {got} vs lit {lit}");
}

/// A model whose Defold material is tagged only for a project's own render script (a
/// `postprocess` quad) is not drawn by Sinew's pipeline, which is Defold's default render script,
/// and so casts no shadow either; the same box with its material tagged `model` does.
#[test]
fn a_model_not_drawn_casts_no_shadow() {
    let material = |tags: &str| {
        format!(
            "name: \"box\"\ntags: \"{tags}\"\nvertex_program: \"/builtins/shaders/model.vp\"\n\
             fragment_program: \"/builtins/shaders/model.fp\"\nvertex_space: VERTEX_SPACE_LOCAL\n"
        )
    };
    let collection = top_down("", false)
        .replace(r#""mesh": "/models/box.glb" }"#, r#""mesh": "/models/box.glb", "material": "/main/box.material" }"#);
    assert!(collection.contains("/main/box.material"), "{collection}");
    let shot = |tag: &str, tags: &str| {
        let m = material(tags);
        screenshot_with(tag, ON, &collection, &[("/main/box.material", m.as_str())], "200x200", 2)
    };
    let (drawn, undrawn) = (shot("tagged-model", "model"), shot("tagged-postprocess", "postprocess"));
    let off = screenshot("tagged-off", "", &top_down("", false), "200x200", 2);
    let lit = luma(at(&off, -2.0, 0.8));
    // The control: tagged `model`, the box is drawn and its shadow falls beside it.
    assert!(luma(at(&drawn, -2.0, 0.8)) < lit * 6 / 10, "the drawn box casts no shadow");
    let (top, ground) = (at(&drawn, -2.0, 0.0), at(&off, 0.0, 3.0));
    assert!((luma(top) - luma(ground)).abs() > 30, "the box's top {top:?} is the ground's {ground:?}");
    // Tagged `postprocess`: neither the box nor its shadow, the ground there as anywhere else.
    for (x, z) in [(-2.0, 0.8), (-2.0, 0.55), (-2.0, 0.0)] {
        let (got, ground) = (luma(at(&undrawn, x, z)), luma(at(&off, 0.0, 3.0)));
        assert!((got - ground).abs() <= 6, "({x}, {z}): {got} against the lit ground's {ground}");
    }
}

/// The wiggler's shadow follows its animation: the depth pass skins with the frame's pose.
#[test]
fn a_skinned_model_casts_its_animated_pose() {
    let mask = |tag: &str, frames: u32| -> Vec<bool> {
        let on = screenshot(&format!("{tag}-on"), ON, &top_down("", true), "200x200", frames);
        let off = screenshot(&format!("{tag}-off"), "", &top_down("", true), "200x200", frames);
        // Ground that only the column's shadow reaches: z 0.3..1.5 (the column stays within
        // 0.25 of z = -1), x -1.2..1.2.
        let mut m = Vec::new();
        for zi in 0..24 {
            for xi in 0..48 {
                let (x, z) = (-1.2 + xi as f32 * 0.05, 0.3 + zi as f32 * 0.05);
                m.push(luma(at(&on, x, z)) < luma(at(&off, x, z)) - 30);
            }
        }
        m
    };
    let (a, b) = (mask("wiggle-a", 2), mask("wiggle-b", 16));
    let count = |m: &[bool]| m.iter().filter(|&&s| s).count();
    assert!(count(&a) > 20 && count(&b) > 20, "no column shadow: {} and {}", count(&a), count(&b));
    let moved = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    assert!(moved > 10, "the shadow did not move with the animation ({moved} samples changed)");
}

/// The golden image: boxes and the wiggler on the ground seen from above and in front, the
/// sun from the back left.
#[test]
fn shadows_match_the_golden_image() {
    let collection = r#"{ "name": "main", "objects": [
  { "id": "eye", "position": [0, 5, 9], "euler": [-28, 0, 0], "components": [ { "id": "camera", "type": "camera", "fov": 0.8 } ] },
  { "id": "sun", "euler": [-40, -60, 0], "components": [ { "id": "light", "type": "light", "kind": "directional", "intensity": 1.0 } ] },
  { "id": "ground", "position": [0, -0.1, 0], "scale": [14, 0.2, 14], "components": [ { "id": "model", "type": "model", "mesh": "/models/ground.glb" } ] },
  { "id": "box", "position": [-2, 0.5, 0.5], "components": [ { "id": "model", "type": "model", "mesh": "/models/box.glb" } ] },
  { "id": "high", "position": [2.0, 1.3, 2.6], "euler": [20, 30, 0], "scale": [0.8, 0.8, 0.8], "components": [ { "id": "model", "type": "model", "mesh": "/models/blue.glb" } ] },
  { "id": "wiggler", "position": [0.2, 0, -1.5], "components": [ { "id": "model", "type": "model", "mesh": "/models/wiggler.glb", "default_animation": "wiggle" } ] }
] }"#;
    let settings = r#", "shadows": true, "shadow_map_size": 2048, "clear_color": [0.56, 0.72, 0.88, 1]"#;
    let img = screenshot("golden", settings, collection, "320x240", 20);
    let off = screenshot("golden-off", r#", "clear_color": [0.56, 0.72, 0.88, 1]"#, collection, "320x240", 20);
    // Shadows only darken: nothing gets brighter, and a good part of the picture gets darker.
    let (mut darker, mut brighter) = (0, 0);
    for (a, b) in img.rgba.chunks(4).zip(off.rgba.chunks(4)) {
        let d = luma([a[0], a[1], a[2], 0]) - luma([b[0], b[1], b[2], 0]);
        darker += usize::from(d < -30);
        brighter += usize::from(d > 6);
    }
    assert!(darker > 1500, "only {darker} pixels in shadow");
    assert_eq!(brighter, 0, "{brighter} pixels brighter with shadows on");
    if let Err(e) = golden::check_golden("shadows_boxes", &img) {
        panic!("{e}");
    }
}

/// A bad setting stops the project at load with the setting's position, as `check` reports it.
#[test]
fn a_bad_shadow_map_size_is_refused_where_it_is_written() {
    let p = project(
        "bad-size",
        &[
            (
                "/project.json",
                "{ \"main_collection\": \"/main/main.collection\",\n  \"shadows\": true,\n  \"shadow_map_size\": 100 }",
            ),
            ("/main/main.collection", r#"{ "name": "main", "objects": [] }"#),
        ],
    );
    let dir = p.path().to_str().expect("utf-8");
    for args in [vec!["run", dir, "--headless", "--frames", "1", "--no-watch"], vec!["check", dir]] {
        let r = sinew(&args);
        assert_eq!(r.status, 1, "{}", r.show());
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("/project.json:3:") && all.contains("shadow_map_size must be from 256 to 8192 texels"),
            "{}",
            r.show()
        );
    }
}

/// The demo (content/, whose project.json turns shadows on), played from its title screen
/// (Enter at frame 2) and shown 140 frames later: the hero, the mannequin, crates and gems cast
/// soft shadows from the sun (the first of the demo's three directional lights) onto the field.
#[test]
fn the_demo_with_shadows_on_matches_its_golden_image() {
    let p = project("demo-shadows", &[]);
    copy_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content"), p.path());
    let text = std::fs::read_to_string(p.path().join("project.json")).expect("demo project.json");
    assert!(text.contains("\"shadows\": true"), "the demo casts shadows:\n{text}");
    let shot = p.path().join("shot.png");
    let play = p.path().join("play.jsonl");
    std::fs::write(
        &play,
        "{\"frame\": 2, \"type\": \"key\", \"input\": \"KEY_ENTER\", \"down\": true}\n\
         {\"frame\": 3, \"type\": \"key\", \"input\": \"KEY_ENTER\", \"down\": false}\n",
    )
    .expect("replay");
    let r = sinew(&[
        "run",
        p.path().to_str().expect("utf-8"),
        "--replay",
        play.to_str().expect("utf-8"),
        "--headless",
        "--frames",
        "143",
        "--fixed-dt",
        "0.0166667",
        "--size",
        "480x270",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
    if let Err(e) = golden::check_golden("demo_frame_shadows", &img) {
        panic!("{e}");
    }
}
