//! Sprite components (issue 38, sprites.md): loading from Sinew JSON and from Defold's files
//! (embedded, referenced, the newer `textures` and the older `tile_set` form), errors at their
//! positions, and what `sinew check` says about a Defold example that uses sprites.
mod common;
use sinew::project::collection::load_collection;
use sinew::project::gltf::samples;
use sinew::project::sprite::{Billboard, BlendMode, SizeMode, SpriteSpec};
use sinew::project::{ComponentKind, Resources};

const ATLAS: &str = r#"{ "images": [{ "image": "/main/a.png" }, { "image": "/main/b.png" }],
  "animations": [{ "id": "run", "images": [{ "image": "/main/a.png" }, { "image": "/main/b.png" }], "fps": 8, "playback": "loop_forward" }] }"#;

const SPRITE_FILE: &str = "tile_set: \"/main/hero.atlas\"\ndefault_animation: \"b\"\nmaterial: \"/builtins/materials/sprite.material\"\nblend_mode: BLEND_MODE_MULT\nsize {\n  x: 10.0\n  y: 20.0\n  z: 0.0\n  w: 0.0\n}\nsize_mode: SIZE_MODE_MANUAL\nslice9 {\n  x: 1.0\n  y: 2.0\n  z: 3.0\n  w: 4.0\n}\n";

const GO_FILE: &str = "components {\n  id: \"ref\"\n  component: \"/main/hero.sprite\"\n  position {\n    x: 1.0\n    y: 2.0\n  }\n}\nembedded_components {\n  id: \"embedded\"\n  type: \"sprite\"\n  data: \"default_animation: \\\"run\\\"\\n\"\n  \"textures {\\n\"\n  \"  sampler: \\\"texture_sampler\\\"\\n\"\n  \"  texture: \\\"/main/hero.atlas\\\"\\n\"\n  \"}\\n\"\n  \"blend_mode: BLEND_MODE_SCREEN\\n\"\n  \"\"\n}\n";

fn files(collection: &str) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("/main/a.png", samples::checker_png(8, 2, [255, 0, 0, 255], [0, 0, 255, 255])),
        ("/main/b.png", samples::checker_png(4, 2, [0, 255, 0, 255], [0, 0, 0, 0])),
        ("/main/hero.atlas", ATLAS.as_bytes().to_vec()),
        ("/main/hero.sprite", SPRITE_FILE.as_bytes().to_vec()),
        ("/main/hero.go", GO_FILE.as_bytes().to_vec()),
        ("/main/main.collection", collection.as_bytes().to_vec()),
    ]
}

fn res(collection: &str) -> Resources {
    Resources::demo().with_overlay(files(collection).into_iter().map(|(p, b)| (p.to_string(), b)).collect())
}

fn sprite(spec: &sinew::project::CollectionSpec, object: usize, c: usize) -> &SpriteSpec {
    match &spec.objects[object].components[c].kind {
        ComponentKind::Sprite(s) => s,
        other => panic!("not a sprite: {other:?}"),
    }
}

/// Runs the project `frames` frames headless at `size` (with `--fixed-dt` when given) and
/// returns its last frame; any logged error fails the test.
fn shot(p: &common::TempDir, size: &str, frames: &str, fixed_dt: Option<&str>) -> sinew::render::Image {
    let shot = p.path().join("shot.png");
    let dir = p.path().to_str().expect("utf-8 path");
    let file = shot.to_str().expect("utf-8");
    let mut args =
        vec!["run", dir, "--headless", "--size", size, "--frames", frames, "--no-watch", "--screenshot", file];
    if let Some(dt) = fixed_dt {
        args.extend(["--fixed-dt", dt]);
    }
    let r = common::sinew(&args);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    sinew::render::Image::load_png(&shot).expect("screenshot")
}

#[test]
fn sprites_load_from_json_and_from_defold_files_sharing_one_atlas() {
    let collection = r#"{ "name": "main", "objects": [
      { "id": "json", "components": [
        { "id": "s", "type": "sprite", "tile_set": "/main/hero.atlas", "default_animation": "run",
          "blend_mode": "add", "position": [0, 0, 0.5], "euler": [0, 0, 90], "billboard": "upright",
          "attributes": { "mycolor": [0.5, 1] } } ] },
      { "id": "defold", "prototype": "/main/hero.go" } ] }"#;
    let spec = load_collection(&res(collection), "/main/main.collection").unwrap();
    let s = sprite(&spec, 0, 0);
    assert_eq!(s.atlas.animations[s.default_animation as usize].id, "run");
    assert_eq!((s.blend_mode, s.size_mode, s.billboard), (BlendMode::Add, SizeMode::Auto, Billboard::Upright));
    assert_eq!(s.material, "/builtins/materials/sprite.material");
    assert_eq!(s.transform.position, [0.0, 0.0, 0.5]);
    assert_eq!(s.attributes, [(sinew::base::hash::hash_str("mycolor"), [0.5, 1.0, 0.0, 0.0])]);
    assert!((s.transform.rotation[2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6, "{:?}", s.transform);
    let r = sprite(&spec, 1, 0);
    assert_eq!(r.atlas.animations[r.default_animation as usize].id, "b");
    assert_eq!((r.blend_mode, r.size_mode, r.size), (BlendMode::Multiply, SizeMode::Manual, [10.0, 20.0]));
    // Defold's slice9 vector4 is left, top, right, bottom, as Sinew's array; none is zeros.
    assert_eq!((r.slice9, s.slice9), ([1.0, 2.0, 3.0, 4.0], [0.0; 4]));
    assert_eq!(r.transform.position, [1.0, 2.0, 0.0]);
    let e = sprite(&spec, 1, 1);
    assert_eq!((e.blend_mode, e.size_mode, e.billboard), (BlendMode::Screen, SizeMode::Auto, Billboard::Off));
    assert_eq!(e.atlas.animations[e.default_animation as usize].id, "run");
    // One atlas, loaded once for all three.
    assert!(std::sync::Arc::ptr_eq(&s.atlas, &r.atlas) && std::sync::Arc::ptr_eq(&s.atlas, &e.atlas));
}

#[test]
fn bad_sprite_fields_are_reported_where_written() {
    let cases = [
        (
            r#""tile_set": "/main/hero.atlas", "default_animation": "walk""#,
            "default_animation",
            "no animation 'walk' in '/main/hero.atlas' (it has a, b, run)",
        ),
        (r#""tile_set": "/main/hero.atlas", "blend_mode": "overlay""#, "blend_mode", "unknown blend_mode 'overlay'"),
        (r#""tile_set": "/main/nope.atlas""#, "tile_set", "no such atlas '/main/nope.atlas'"),
        (r#""default_animation": "run""#, "id", "needs 'tile_set'"),
        (r#""tile_set": "/main/hero.atlas", "size": [1, -2]"#, "size", "'size' must be [width, height]"),
        (
            r#""tile_set": "/main/hero.atlas", "slice9": [1, 2]"#,
            "slice9",
            "'slice9' must be [left, top, right, bottom]",
        ),
        (
            r#""tile_set": "/main/hero.atlas", "billboard": "sideways""#,
            "billboard",
            "'billboard' must be true, false or \"upright\"",
        ),
        (
            r#""tile_set": "/main/hero.atlas", "attributes": { "c": [1, 2, 3, 4, 5] }"#,
            "attributes",
            "attribute 'c': 'attributes' must be { \"name\": [1 to 4 numbers], ... }",
        ),
        (r#""tile_set": "/main/hero.atlas", "attributes": [1]"#, "attributes", "'attributes' must be"),
        (
            r#""tile_set": "/main/hero.atlas", "text": "hi""#,
            "id",
            "field 'text' does not apply to sprite component 's'",
        ),
    ];
    for (fields, field, needle) in cases {
        let line = format!("    {{ \"id\": \"s\", \"type\": \"sprite\", {fields} }} ] }} ] }}");
        let collection =
            format!("{{ \"name\": \"main\", \"objects\": [\n  {{ \"id\": \"a\", \"components\": [\n{line}");
        // Errors point at the value of the field they are about.
        let key = format!("\"{field}\": ");
        let at = format!("3:{}", line.find(&key).expect("field in line") + key.len() + 1);
        let e = load_collection(&res(&collection), "/main/main.collection").unwrap_err().to_string();
        assert!(e.starts_with(&format!("/main/main.collection:{at}: ")) && e.contains(needle), "{needle}: {e}");
    }
    let two = SPRITE_FILE.replace("blend_mode", "textures {\n  texture: \"/main/hero.atlas\"\n}\nblend_mode");
    let mut f = files(r#"{ "name": "main", "objects": [ { "id": "d", "prototype": "/main/hero.go" } ] }"#);
    f[3].1 = two.into_bytes();
    let r = Resources::demo().with_overlay(f.into_iter().map(|(p, b)| (p.to_string(), b)).collect());
    let e = load_collection(&r, "/main/main.collection").unwrap_err().to_string();
    assert!(e.contains("/main/hero.sprite:4:1: a sprite names its atlas in `tile_set` or in `textures`"), "{e}");
}

/// Several textures on one sprite (Defold's `textures` list, Sinew's `textures` map): the first
/// is the atlas whose frames are shown, the others go to the material's samplers of their
/// names; from both formats, with their errors where they were written.
#[test]
fn a_sprite_takes_several_textures_by_sampler() {
    let collection = r#"{ "name": "main", "objects": [
      { "id": "json", "components": [
        { "id": "s", "type": "sprite", "default_animation": "run",
          "textures": { "first": "/main/hero.atlas", "second": "/main/hero.atlas" } } ] },
      { "id": "defold", "prototype": "/main/two.go" } ] }"#;
    let two = "embedded_components {\n  id: \"e\"\n  type: \"sprite\"\n  data: \"default_animation: \\\"run\\\"\\n\"\n  \"textures {\\n  sampler: \\\"t1\\\"\\n  texture: \\\"/main/hero.atlas\\\"\\n}\\n\"\n  \"textures {\\n  sampler: \\\"t2\\\"\\n  texture: \\\"/main/hero.atlas\\\"\\n}\\n\"\n}\n";
    let mut f = files(collection);
    f.push(("/main/two.go", two.as_bytes().to_vec()));
    let r = Resources::demo().with_overlay(f.into_iter().map(|(p, b)| (p.to_string(), b)).collect());
    let spec = load_collection(&r, "/main/main.collection").unwrap();
    let hash = sinew::base::hash::hash_str;
    for (object, sampler) in [(0, "second"), (1, "t2")] {
        let s = sprite(&spec, object, 0);
        assert_eq!(s.atlas.animations[s.default_animation as usize].id, "run");
        assert_eq!(s.textures.len(), 1, "{sampler}");
        assert_eq!(s.textures[0].0, hash(sampler));
        assert!(std::sync::Arc::ptr_eq(&s.textures[0].1, &s.atlas), "the atlas is loaded once");
    }
    // A missing second atlas is reported at its path; several textures need their samplers.
    let line = r#"    { "id": "s", "type": "sprite", "textures": { "a": "/main/hero.atlas", "b": "/main/nope.atlas" } } ] } ] }"#;
    let bad = format!("{{ \"name\": \"main\", \"objects\": [\n  {{ \"id\": \"a\", \"components\": [\n{line}");
    let e = load_collection(&res(&bad), "/main/main.collection").unwrap_err().to_string();
    let at = format!("/main/main.collection:3:{}: ", line.find("\"/main/nope").expect("path") + 1);
    assert!(e.starts_with(&at) && e.contains("no such atlas '/main/nope.atlas'"), "{e}");
    let unnamed = two.replace("  sampler: \\\"t2\\\"\\n", "");
    assert_ne!(unnamed, two);
    let mut f = files(r#"{ "name": "main", "objects": [ { "id": "d", "prototype": "/main/two.go" } ] }"#);
    f.push(("/main/two.go", unnamed.into_bytes()));
    let r = Resources::demo().with_overlay(f.into_iter().map(|(p, b)| (p.to_string(), b)).collect());
    let e = load_collection(&r, "/main/main.collection").unwrap_err().to_string();
    assert!(e.contains("each of a sprite's several textures names its own `sampler`"), "{e}");
}

/// The sprite properties, `sprite.*` and `animation_done` timing from Lua (api_sprite).
#[test]
fn lua_api_sprite() {
    let p = common::committed("api_sprite");
    std::fs::write(p.path().join("main/a.png"), samples::checker_png(8, 2, [255, 0, 0, 255], [0, 0, 255, 255]))
        .expect("a.png");
    std::fs::write(p.path().join("main/b.png"), png_4x2()).expect("b.png");
    let r = common::run_project(p.path(), 12, &[]);
    common::assert_lua_passed(&r, "api_sprite");
}

/// A 4x2 image, so frames of different sizes show in `size`.
fn png_4x2() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 4, 2);
    enc.set_color(png::ColorType::Rgba);
    let mut w = enc.write_header().expect("header");
    w.write_image_data(&[200u8; 4 * 2 * 4]).expect("pixels");
    drop(w);
    out
}

/// An 8x8 image, pixel (x, y) from `f`.
fn png8(f: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let px: Vec<u8> = (0..8).flat_map(|y| (0..8).map(move |x| (x, y))).flat_map(|(x, y)| f(x, y)).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 8, 8);
    enc.set_color(png::ColorType::Rgba);
    let mut w = enc.write_header().expect("header");
    w.write_image_data(&px).expect("pixels");
    drop(w);
    out
}

/// The images of `render_sprite`: a grey, a gradient that shows every flip, four colours.
fn scene_images() -> Vec<(&'static str, Vec<u8>)> {
    let solid = |c: [u8; 4]| png8(move |_, _| c);
    vec![
        ("main/gray.png", solid([128, 128, 128, 255])),
        ("main/grad.png", png8(|x, y| [x as u8 * 32 + 16, y as u8 * 32 + 16, 64, if x == 0 { 128 } else { 255 }])),
        ("main/red.png", solid([220, 40, 40, 255])),
        ("main/green.png", solid([40, 200, 60, 255])),
        ("main/blue.png", solid([40, 80, 230, 255])),
        ("main/yellow.png", solid([240, 220, 40, 255])),
    ]
}

/// The packed page of `render_sprite`'s atlas (extrusion 1 around each image), pixel for pixel.
#[test]
fn atlas_page_matches_the_golden_image() {
    let p = common::committed("render_sprite");
    for (path, bytes) in scene_images() {
        std::fs::write(p.path().join(path), bytes).expect("image");
    }
    let res = Resources::open_dir(p.path()).expect("project");
    let a = sinew::project::sprite::load_atlas(&res, "/main/scene.atlas").expect("atlas");
    let img = sinew::render::Image { width: a.width, height: a.height, rgba: a.rgba.clone() };
    if let Err(e) = common::golden::check_golden("sprite_atlas_page", &img) {
        panic!("{e}");
    }
}

/// Blend modes over grey (alpha, add, multiply, screen), flips (none, script h, script v, the
/// atlas's own), z order (red over green over blue though listed the other way), and a
/// flipbook per playback mode after five 0.25 s frames, at one unit per pixel.
#[test]
fn sprites_match_the_golden_image() {
    let p = common::committed("render_sprite");
    for (path, bytes) in scene_images() {
        std::fs::write(p.path().join(path), bytes).expect("image");
    }
    let img = shot(&p, "160x120", "5", Some("0.25"));
    if let Err(e) = common::golden::check_golden("sprites", &img) {
        panic!("{e}");
    }
    // Screen y grows downwards; world (x, y) at one unit per pixel is pixel (x, 119 - y).
    let at = |x: u32, y: u32| img.pixel(x, 119 - y).expect("pixel");
    // z order: where all three overlap, red (z 0.3) is in front.
    assert_eq!(at(121, 65)[..3], [220, 40, 40]);
    // The first flipbook (playback none) still shows its first frame.
    assert_eq!(at(12, 24)[..3], [220, 40, 40]);
}

/// `image` switching atlases, bad images refused naming go.set and its argument, a custom
/// material's constants and `slice9` as properties (api_sprite_image).
#[test]
fn lua_sprite_image_constants_and_slice9() {
    let p = common::committed("api_sprite_image");
    let solid = |w: u32, h: u32, c: [u8; 4]| {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        let mut wr = enc.write_header().expect("header");
        wr.write_image_data(&c.repeat((w * h) as usize)).expect("pixels");
        drop(wr);
        out
    };
    for (path, bytes) in [
        ("main/a.png", solid(8, 8, [255, 0, 0, 255])),
        ("main/b.png", png_4x2()),
        ("main/c.png", solid(6, 4, [0, 0, 255, 255])),
    ] {
        std::fs::write(p.path().join(path), bytes).expect("image");
    }
    let r = common::run_project(p.path(), 12, &[]);
    common::assert_lua_passed(&r, "api_sprite_image");
}

/// The 8x8 image of the nine-slice check: a border of 2 pixels on the left and top, 3 on the
/// right and 1 at the bottom (the `slice9` of `render_sprite_material`), each corner and edge
/// its own colour, a grey centre, so a wrong order of the four numbers shows.
fn frame_png() -> Vec<u8> {
    png8(|x, y| {
        let col = if x < 2 {
            0
        } else if x < 5 {
            1
        } else {
            2
        };
        let row = if y < 2 {
            0
        } else if y < 7 {
            1
        } else {
            2
        };
        match (row, col) {
            (0, 0) => [255, 0, 0, 255],
            (0, 1) => [255, 255, 255, 255],
            (0, 2) => [0, 255, 0, 255],
            (1, 0) => [0, 255, 255, 255],
            (1, 1) => [128, 128, 128, 255],
            (1, 2) => [255, 128, 0, 255],
            (2, 0) => [0, 0, 255, 255],
            (2, 1) => [255, 0, 255, 255],
            _ => [255, 255, 0, 255],
        }
    })
}

/// A custom sprite material (invert the texel, times `tint`, plus `offset`) on two sprites,
/// one whose constants a script set; the plain image beside them; a nine-sliced sprite of
/// 40 x 16 from an 8 x 8 image (borders 2, 2, 3, 1): one unit per pixel.
#[test]
fn custom_material_and_slice9_match_the_golden_image() {
    let p = common::committed("render_sprite_material");
    let grad = png8(|x, y| [x as u8 * 32 + 16, y as u8 * 32 + 16, 64, 255]);
    for (path, bytes) in [("main/grad.png", grad), ("main/frame.png", frame_png())] {
        std::fs::write(p.path().join(path), bytes).expect("image");
    }
    let img = shot(&p, "64x48", "2", None);
    if let Err(e) = common::golden::check_golden("sprite_material_slice9", &img) {
        panic!("{e}");
    }
    // World (x, y) at one unit per pixel is pixel (x, 47 - y).
    let at = |x: u32, y: u32| img.pixel(x, 47 - y).expect("pixel");
    // grad's texel (0, 0) (top left) is (16, 16, 64): plain, inverted, and inverted x tint
    // (1, 0.5, 0) + offset (0, 0, 0.5).
    assert_eq!(at(4, 39)[..3], [16, 16, 64]);
    assert_eq!(at(16, 39)[..3], [239, 239, 191]);
    let t = at(28, 39);
    assert_eq!(t[0], 239);
    assert!((i32::from(t[1]) - 120).abs() <= 1 && (i32::from(t[2]) - 128).abs() <= 1, "{t:?}");
    // The sliced sprite spans x 12..52, y 4..20: corners keep their pixels (2 wide on the left,
    // 3 on the right; 2 high at the top, 1 at the bottom), edges stretch, the centre fills.
    assert_eq!(at(12, 19)[..3], [255, 0, 0], "top-left corner");
    assert_eq!(at(13, 18)[..3], [255, 0, 0], "top-left corner is 2 x 2");
    assert_eq!(at(14, 19)[..3], [255, 255, 255], "top edge");
    assert_eq!(at(48, 19)[..3], [255, 255, 255], "top edge stretched");
    assert_eq!(at(49, 19)[..3], [0, 255, 0], "top-right corner is 3 wide");
    assert_eq!(at(12, 4)[..3], [0, 0, 255], "bottom-left corner");
    assert_eq!(at(12, 5)[..3], [0, 255, 255], "bottom border is 1 high");
    assert_eq!(at(51, 4)[..3], [255, 255, 0], "bottom-right corner");
    assert_eq!(at(30, 12)[..3], [128, 128, 128], "centre");
    assert_eq!(at(50, 12)[..3], [255, 128, 0], "right edge");
}

/// Defold's `CONSTANT_TYPE_TIME` material constant (under the shader's own name) holds the
/// game's seconds in x and the frame's dt in y: after 60 frames of 1/60 s a shader showing
/// x / 4 in red and y x 10 in green reads (64, 42).
#[test]
fn a_time_constant_follows_the_game_clock() {
    let p = common::committed("render_sprite_time");
    std::fs::write(p.path().join("main/white.png"), png8(|_, _| [255, 255, 255, 255])).expect("image");
    let img = shot(&p, "16x16", "60", Some("0.0166667"));
    let c = img.pixel(8, 8).expect("pixel");
    assert!((i32::from(c[0]) - 64).abs() <= 1, "red = seconds / 4 after 1 s: {c:?}");
    assert!((i32::from(c[1]) - 42).abs() <= 1, "green = dt x 10: {c:?}");
}

/// `sinew check` compiles a sprite's custom material as it does a model's, and names a shader
/// that does not compile with what `run` then does.
#[test]
fn check_compiles_a_sprite_material() {
    let p = common::committed("render_sprite_material");
    let grad = png8(|x, y| [x as u8 * 32, y as u8 * 32, 64, 255]);
    for (path, bytes) in [("main/grad.png", grad), ("main/frame.png", frame_png())] {
        std::fs::write(p.path().join(path), bytes).expect("image");
    }
    let dir = p.path().to_str().expect("utf-8 path");
    let good = common::sinew(&["check", dir]);
    assert_eq!(good.status, 0, "{}", good.show());
    std::fs::write(p.path().join("main/invert.fp"), "#version 140\nout vec4 c;\nvoid main() { c = vec4(nope); }\n")
        .expect("fp");
    let bad = common::sinew(&["check", dir]);
    assert_ne!(bad.status, 0, "{}", bad.show());
    let said = format!("{}{}", bad.stdout, bad.stderr);
    assert!(
        said.contains("/main/invert.fp") && said.contains("models and sprites using /main/invert.material are skipped"),
        "{}",
        bad.show()
    );
}

/// `tilemap.*` on a 3 x 2 map of two layers from a tile source of four 4-pixel tiles (red,
/// green, blue, white); a tile outside the map or on a missing layer is an error in the log and
/// nil / false, as in Defold.
#[test]
fn lua_api_tilemap() {
    let p = common::committed("api_tilemap");
    let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]];
    std::fs::write(p.path().join("main/tiles.png"), png8(|x, y| colours[(y / 4 * 2 + x / 4) as usize]))
        .expect("tiles.png");
    let r = common::run_project(p.path(), 3, &[]);
    common::assert_lua_passed(&r, "api_tilemap");
    for logged in [
        "tilemap.set_tile: the tile (9, 9) is outside the map (x 1..3, y 1..2)",
        "tilemap.get_tile: the tile (0, 1) is outside the map",
        "tilemap.get_tile: Could not find layer nothing.",
    ] {
        assert!(r.stderr.contains(logged), "missing log line {logged:?}\n{}", r.show());
    }
}

/// A broken `.tilemap` is refused with every problem at its position in one `sinew check`, and
/// an embedded tile map in a Defold collection is refused by name.
#[test]
fn a_broken_tilemap_file_is_reported_where_it_is_wrong() {
    let p = common::committed("api_tilemap");
    let broken = "tile_set: \"/main/tiles.tilesource\"\nlayers {\n  id: \"ground\"\n  cell { x: 0 y: 0 tile: 9 }\n  cell { x: 99999 y: 0 tile: 0 }\n  colour: 1\n}\nblend_mode: BLEND_MODE_SOMETIMES\n";
    p.write("/main/level.tilemap", broken);
    std::fs::write(p.path().join("main/tiles.png"), png8(|_, _| [255, 255, 255, 255])).expect("tiles.png");
    let r = common::sinew(&["check", p.path().to_str().expect("utf-8 path")]);
    assert_ne!(r.status, 0, "{}", r.show());
    let out = format!("{}{}", r.stdout, r.stderr);
    for want in [
        "/main/level.tilemap:8:13: `blend_mode` must be BLEND_MODE_ALPHA",
        "/main/level.tilemap:4:3: layer 'ground': tile 9 is not in /main/tiles.tilesource (it has 4 tiles)",
        "/main/level.tilemap:5:3: layer 'ground': cell (99999, 0) is further than 32768 tiles out",
        "/main/level.tilemap:6:3: unknown field `colour` in a layer",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    let embedded = "name: \"main\"\nembedded_instances {\n  id: \"a\"\n  data: \"embedded_components {\\n\"\n  \"  id: \\\"t\\\"\\n\"\n  \"  type: \\\"tilemap\\\"\\n\"\n  \"  data: \\\"\\\"\\n\"\n  \"}\\n\"\n}\n";
    let d = common::project("tm-embedded", &[("/main/main.collection", embedded)]);
    std::fs::write(d.path().join("game.project"), "[bootstrap]\nmain_collection = /main/main.collectionc\n")
        .expect("game.project");
    let r = common::sinew(&["check", d.path().to_str().expect("utf-8 path")]);
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains(
            "/main/main.collection:6:6: embedded tilemap components are not supported yet: put it in a .tilemap file"
        ),
        "{}",
        r.show()
    );
}

/// Sprite pages are sampled as the project says: Sinew's projects nearest (pixel-exact) unless
/// project.json sets `default_texture_mag_filter`; Defold's linear unless game.project's
/// `[graphics]` says nearest. A 2x2 black-and-white checker scaled 40 times shows only black
/// and white with nearest, and greys between the squares with linear.
#[test]
fn sprite_pages_are_filtered_as_the_project_says() {
    let checker = {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, 2, 2);
        enc.set_color(png::ColorType::Rgba);
        let mut wr = enc.write_header().expect("header");
        let (b, w) = ([0u8, 0, 0, 255], [255u8, 255, 255, 255]);
        wr.write_image_data(&[b, w, w, b].concat()).expect("pixels");
        drop(wr);
        out
    };
    let collection = r#"{ "name": "main", "objects": [
      { "id": "s", "position": [80, 60, 0], "scale": [40, 40, 1], "components": [
        { "id": "sprite", "type": "sprite", "tile_set": "/main/c.atlas", "default_animation": "checker" } ] } ] }"#;
    let atlas = r#"{ "images": [{ "image": "/main/checker.png" }] }"#;
    let greys = |settings: &str| {
        let p = common::project(
            "sprite-filter",
            &[("/project.json", settings), ("/main/main.collection", collection), ("/main/c.atlas", atlas)],
        );
        std::fs::write(p.path().join("main/checker.png"), &checker).expect("png");
        let img = shot(&p, "160x120", "2", None);
        (0..120u32)
            .flat_map(|y| (0..160u32).map(move |x| (x, y)))
            .filter_map(|(x, y)| img.pixel(x, y))
            .filter(|p| p[0] > 40 && p[0] < 215 && p[0] == p[1])
            .count()
    };
    let base = r#""main_collection": "/main/main.collection", "clear_color": [0, 0, 0, 1]"#;
    let nearest = greys(&format!("{{ {base} }}"));
    let linear = greys(&format!(r#"{{ {base}, "default_texture_mag_filter": "linear" }}"#));
    assert_eq!(nearest, 0, "nearest: black and white only");
    assert!(linear > 500, "linear: greys between the squares ({linear} pixels)");
}
