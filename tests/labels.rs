//! Label components (gameplay.md section 3): the `label` API and properties from Lua, a golden
//! image of labels in several pivots, colours and scales (a UTF-8 text with glyphs the font
//! lacks, one on a moving, turning cube), and `sinew check` of label fields.
mod common;
use common::*;
use sinew::project::gltf::samples;
use sinew::render::Image;

#[test]
fn lua_api_label() {
    let p = committed("api_label");
    let r = run_project(p.path(), 12, &[]);
    assert_lua_passed(&r, "api_label");
}

#[test]
fn labels_match_the_golden_image() {
    let p = committed("render_label");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/cube.glb"), samples::textured_cube()).expect("cube");
    let shot = p.path().join("shot.png");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&[
        "run",
        dir,
        "--headless",
        "--size",
        "480x270",
        "--frames",
        "4",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
    // Some pixels of each label colour are on screen (pure channels of the text colours).
    let count = |f: &dyn Fn([u8; 4]) -> bool| {
        (0..img.width)
            .flat_map(|x| (0..img.height).map(move |y| (x, y)))
            .filter(|&(x, y)| img.pixel(x, y).is_some_and(f))
            .count()
    };
    // Anti-aliased text: pixels a glyph covers wholly or nearly.
    let white = count(&|p| p[..3].iter().all(|&c| c > 215));
    let green = count(&|p| p[0] < 60 && p[1] > 215 && p[2] < 60);
    let yellow = count(&|p| p[0] > 215 && p[1] > 200 && p[2] < 60);
    assert!(white > 100 && green > 100 && yellow > 100, "white {white}, green {green}, yellow {yellow}");
    if let Err(e) = golden::check_golden("label", &img) {
        panic!("{e}");
    }
}

#[test]
fn check_reports_bad_label_fields_with_their_position() {
    let p = project(
        "label_check",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [
  { "id": "a", "components": [ { "id": "label", "type": "label", "text": "x" } ] },
  { "id": "b", "components": [ { "id": "label", "type": "label", "pivot": "middle" } ] },
  { "id": "c", "components": [ { "id": "label", "type": "label", "color": [1, 0] } ] },
  { "id": "d", "components": [ { "id": "label", "type": "label", "font": "/fonts/big.font" } ] },
  { "id": "e", "components": [ { "id": "label", "type": "label", "size": -3 } ] },
  { "id": "f", "components": [ { "id": "label", "type": "label", "mesh": "/m.glb" } ] },
  { "id": "g", "components": [ { "id": "light", "type": "light", "color": [1, 1, 1, 1] } ] },
  { "id": "i", "components": [ { "id": "label", "type": "label", "line_break": true, "width": -5 } ] }
] }"#,
            ),
            (
                "/main/typo.collection",
                r#"{ "name": "typo", "objects": [
  { "id": "a", "components": [ { "id": "label", "type": "label", "text": "x", "colour": [1, 0, 0] } ] } ] }"#,
            ),
            (
                "/main/typo2.collection",
                r#"{ "name": "typo2", "objects": [
  { "id": "h", "components": [ { "id": "label", "type": "label", "outline": "black" } ] } ] }"#,
            ),
        ],
    );
    let r = sinew(&["check", p.path().to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    let f = "/main/main.collection";
    for want in [
        "/main/typo.collection:2:".to_string(),
        "unknown field `colour`".to_string(),
        format!("{f}:3:"),
        "label 'label': unknown pivot 'middle' (expected center, n, ne, e, se, s, sw, w or nw".to_string(),
        format!("{f}:4:"),
        "label 'label': 'color' must be 3 or 4 numbers (r, g, b[, a]), each finite".to_string(),
        format!("{f}:5:"),
        "/fonts/big.font".to_string(),
        format!("{f}:6:"),
        "size must be a number of pixels above 0".to_string(),
        "field 'mesh' does not apply to label component 'label'".to_string(),
        "light 'light': 'color' must be 3 numbers (r, g, b), each finite".to_string(),
        format!("{f}:9:"),
        "label 'label': width must be a number from 0 to 100000".to_string(),
        "/main/typo2.collection:2:".to_string(),
        "invalid type: string \"black\", expected a sequence".to_string(),
    ] {
        assert!(r.stderr.contains(&want), "missing '{want}'\n{}", r.show());
    }
}

/// A label naming a font file draws in that font's size and breaks its lines at its `width`
/// (Defold's `line_break` with `size.x`); the same text without `line_break` is one line.
#[test]
fn a_label_with_a_font_breaks_its_lines_at_its_width() {
    let collection = |line_break: bool| {
        format!(
            r#"{{ "name": "main", "objects": [
  {{ "id": "eye", "position": [0, 0, 5], "components": [ {{ "id": "camera", "type": "camera" }} ] }},
  {{ "id": "text", "components": [ {{ "id": "label", "type": "label", "text": "wrap these words",
     "font": "/fonts/ui.font", "line_break": {line_break}, "width": 90, "leading": 1.2, "scale": [1, 1, 1] }} ] }}
] }}"#
        )
    };
    let font = r#"{ "font": "/builtins/fonts/DejaVuSans.ttf", "size": 24 }"#;
    let mut rows = Vec::new();
    for line_break in [false, true] {
        let text = collection(line_break);
        let p = project(
            "label_font",
            &[
                ("/project.json", r#"{ "main_collection": "/main/main.collection", "clear_color": [0, 0, 0, 1] }"#),
                ("/main/main.collection", &text),
                ("/fonts/ui.font", font),
            ],
        );
        let shot = p.path().join("shot.png");
        let dir = p.path().to_str().expect("utf-8 path");
        let args = ["run", dir, "--headless", "--size", "320x240", "--frames", "2", "--no-watch", "--screenshot"];
        let r = sinew(&[&args[..], &[shot.to_str().expect("utf-8")]].concat());
        assert_eq!(r.status, 0, "{}", r.show());
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        let img = Image::load_png(&shot).expect("screenshot");
        let lit = |x: u32, y: u32| img.pixel(x, y).is_some_and(|p| p[0] > 128);
        let (ys, xs): (Vec<u32>, Vec<u32>) =
            (0..img.height).flat_map(|y| (0..img.width).map(move |x| (y, x))).filter(|&(y, x)| lit(x, y)).unzip();
        let span = |v: &[u32]| v.iter().max().zip(v.iter().min()).map_or(0, |(a, b)| a - b);
        rows.push((span(&ys), span(&xs)));
    }
    let [(one_h, one_w), (wrapped_h, wrapped_w)] = rows[..] else { panic!("two shots") };
    // 24-pixel glyphs: one line is under 30 rows tall and wider than 90; wrapped, three lines.
    assert!(one_h < 30 && one_w > 150, "one line: {one_h} rows by {one_w} columns");
    assert!(wrapped_h > 60 && wrapped_w <= 92, "wrapped: {wrapped_h} rows by {wrapped_w} columns");
}
