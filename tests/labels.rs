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
  { "id": "g", "components": [ { "id": "light", "type": "light", "color": [1, 1, 1, 1] } ] }
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
        "custom fonts are not supported yet (font '/fonts/big.font'); leave out 'font' to use the built-in font"
            .to_string(),
        format!("{f}:6:"),
        "size must be a number of pixels above 0".to_string(),
        "field 'mesh' does not apply to label component 'label'".to_string(),
        "light 'light': 'color' must be 3 numbers (r, g, b), each finite".to_string(),
        "/main/typo2.collection:2:".to_string(),
        "invalid type: string \"black\", expected a sequence".to_string(),
    ] {
        assert!(r.stderr.contains(&want), "missing '{want}'\n{}", r.show());
    }
}
