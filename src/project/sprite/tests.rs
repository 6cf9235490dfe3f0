use super::*;

/// A PNG whose pixel (x, y) is `f(x, y)`.
fn png(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let px: Vec<u8> = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| f(x, y)).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().unwrap();
    wr.write_image_data(&px).unwrap();
    drop(wr);
    out
}

/// Each pixel different, so a misplaced or flipped copy shows.
fn pattern(seed: u8) -> impl Fn(u32, u32) -> [u8; 4] {
    move |x, y| [seed, (x * 16) as u8, (y * 16) as u8, 255]
}

fn res(files: &[(&str, Vec<u8>)]) -> Resources {
    Resources::demo().with_overlay(files.iter().map(|(p, b)| (p.to_string(), b.clone())).collect())
}

fn page_px(a: &Atlas, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * a.width + x) * 4) as usize;
    [a.rgba[i], a.rgba[i + 1], a.rgba[i + 2], a.rgba[i + 3]]
}

/// Every pixel of `frame` equals the source image's.
fn assert_frame(a: &Atlas, frame: usize, w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) {
    let fr = a.frames[frame];
    assert_eq!((fr.width, fr.height), (w, h));
    for y in 0..h {
        for x in 0..w {
            assert_eq!(page_px(a, fr.x + x, fr.y + y), f(x, y), "frame {frame} pixel {x},{y}");
        }
    }
}

fn two_images() -> Vec<(&'static str, Vec<u8>)> {
    vec![("/main/red.png", png(5, 3, pattern(1))), ("/main/sub/blue.png", png(4, 7, pattern(2)))]
}

const ATLAS_JSON: &str = r#"{
  "images": [{ "image": "/main/red.png" }, { "image": "/main/sub/blue.png" }],
  "animations": [
    { "id": "run", "images": [{ "image": "/main/sub/blue.png" }, { "image": "/main/red.png" }],
      "fps": 12, "playback": "loop_pingpong", "flip_horizontal": true }
  ],
  "margin": 2, "extrude_borders": 1, "inner_padding": 1
}"#;

const ATLAS_TEXT: &str = r#"images {
  image: "/main/red.png"
  sprite_trim_mode: SPRITE_TRIM_MODE_OFF
}
images {
  image: "/main/sub/blue.png"
}
animations {
  id: "run"
  images {
    image: "/main/sub/blue.png"
  }
  images {
    image: "/main/red.png"
  }
  playback: PLAYBACK_LOOP_PINGPONG
  fps: 12
  flip_horizontal: 1
  flip_vertical: 0
}
margin: 2
extrude_borders: 1
inner_padding: 1
"#;

#[test]
fn atlas_packs_every_image_pixel_exact_with_its_animations() {
    let mut files = two_images();
    files.push(("/main/hero.atlas", ATLAS_JSON.as_bytes().to_vec()));
    let a = load_atlas(&res(&files), "/main/hero.atlas").unwrap();
    assert!(a.width.is_power_of_two() && a.height.is_power_of_two());
    assert_eq!(a.frames.len(), 2);
    assert_frame(&a, 0, 5, 3, pattern(1));
    assert_frame(&a, 1, 4, 7, pattern(2));
    assert_eq!(a.images, vec!["/main/red.png".to_string(), "/main/sub/blue.png".to_string()]);
    let ids: Vec<&str> = a.animations.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["red", "blue", "run"]);
    let run = a.animation("run").unwrap();
    assert_eq!(run.frames, vec![1, 0]);
    assert_eq!(
        (run.fps, run.playback, run.flip_horizontal, run.flip_vertical),
        (12.0, Playback::LoopPingpong, true, false)
    );
    let red = a.animation("red").unwrap();
    assert_eq!((red.frames.clone(), red.playback), (vec![0], Playback::None));
    // Margin 2 between cells, each cell 1 + 1 pixels wider than its image on every side.
    let (r0, r1) = (a.frames[0], a.frames[1]);
    let apart_x = r0.x + r0.width + 4 + 2 <= r1.x || r1.x + r1.width + 4 + 2 <= r0.x;
    let apart_y = r0.y + r0.height + 4 + 2 <= r1.y || r1.y + r1.height + 4 + 2 <= r0.y;
    assert!(apart_x || apart_y, "cells overlap or touch: {r0:?} {r1:?}");
}

#[test]
fn defold_atlas_text_gives_the_same_atlas() {
    let mut files = two_images();
    files.push(("/main/a.atlas", ATLAS_JSON.as_bytes().to_vec()));
    files.push(("/main/b.atlas", ATLAS_TEXT.as_bytes().to_vec()));
    let r = res(&files);
    let (a, mut b) = (load_atlas(&r, "/main/a.atlas").unwrap(), load_atlas(&r, "/main/b.atlas").unwrap());
    b.source = a.source.clone();
    assert_eq!(a, b);
}

/// Defold 1.6's atlas image pivot (Dragosha's light-and-shadows stands its props on their
/// feet with `pivot_y: 1.0`): read from the entry that first names the image, in both forms;
/// an atlas without one keeps no pivots; a pivot past the limit is refused where written.
#[test]
fn atlas_image_pivots_are_read_in_both_forms() {
    let mut files = two_images();
    let text = ATLAS_TEXT.replacen(
        "  image: \"/main/sub/blue.png\"\n}",
        "  image: \"/main/sub/blue.png\"\n  pivot_y: 1.0\n}",
        1,
    );
    assert_ne!(text, ATLAS_TEXT);
    files.push(("/main/t.atlas", text.into_bytes()));
    let json = ATLAS_JSON
        .replace(r#"{ "image": "/main/sub/blue.png" }],"#, r#"{ "image": "/main/sub/blue.png", "pivot_y": 1 }],"#);
    files.push(("/main/j.atlas", json.into_bytes()));
    files.push(("/main/plain.atlas", ATLAS_JSON.as_bytes().to_vec()));
    let bad =
        ATLAS_JSON.replace(r#"{ "image": "/main/red.png" }, "#, r#"{ "image": "/main/red.png", "pivot_x": 1e9 }, "#);
    files.push(("/main/bad.atlas", bad.into_bytes()));
    let r = res(&files);
    assert_eq!(load_atlas(&r, "/main/t.atlas").unwrap().pivots, [[0.5, 0.5], [0.5, 1.0]]);
    assert_eq!(load_atlas(&r, "/main/j.atlas").unwrap().pivots, [[0.5, 0.5], [0.5, 1.0]]);
    assert!(load_atlas(&r, "/main/plain.atlas").unwrap().pivots.is_empty());
    let e = load_atlas(&r, "/main/bad.atlas").map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("/main/bad.atlas:2:") && e.contains("pivot_x must be a number from -100 to 100"), "{e}");
}

#[test]
fn extrusion_repeats_edges_and_padding_stays_transparent() {
    let img = |x: u32, y: u32| [10 + x as u8, 20 + y as u8, 30, 255];
    let files = [
        ("/e.png", png(3, 2, img)),
        ("/x.atlas", br#"{ "images": [{ "image": "/e.png" }], "extrude_borders": 2 }"#.to_vec()),
        ("/p.atlas", br#"{ "images": [{ "image": "/e.png" }], "extrude_borders": 1, "inner_padding": 1 }"#.to_vec()),
    ];
    let r = res(&files);
    let x = load_atlas(&r, "/x.atlas").unwrap();
    let f = x.frames[0];
    assert_eq!((f.x, f.y), (2, 2));
    assert_eq!(page_px(&x, 0, 0), img(0, 0), "corner takes the corner pixel");
    assert_eq!(page_px(&x, 0, 3), img(0, 1));
    assert_eq!(page_px(&x, 6, 5), img(2, 1));
    assert_eq!(page_px(&x, 3, 0), img(1, 0));
    let p = load_atlas(&r, "/p.atlas").unwrap();
    assert_eq!((p.frames[0].x, p.frames[0].y), (2, 2));
    assert_eq!(page_px(&p, 1, 2), [0; 4], "inner padding is transparent");
    assert_eq!(page_px(&p, 0, 2), [0; 4], "extruding the padding keeps it transparent");
    assert_frame(&p, 0, 3, 2, img);
}

fn tiles() -> impl Fn(u32, u32) -> [u8; 4] {
    // 3 x 2 tiles of 4 x 4, margin 1 around each and 2 between: tile n is filled with n.
    |x, y| {
        let (sx, sy) = (x / 8, y / 8);
        let (ix, iy) = (x % 8, y % 8);
        if (1..5).contains(&ix) && (1..5).contains(&iy) {
            [(sy * 3 + sx + 1) as u8, ix as u8, iy as u8, 255]
        } else {
            [99, 0, 0, 255]
        }
    }
}

#[test]
fn tile_source_cuts_the_grid_and_numbers_tiles_from_one() {
    let json = r#"{ "image": "/sheet.png", "tile_width": 4, "tile_height": 4, "tile_margin": 1, "tile_spacing": 2,
        "animations": [{ "id": "walk", "start_tile": 2, "end_tile": 5, "playback": "loop_forward", "fps": 8 }] }"#;
    let text = "image: \"/sheet.png\"\ntile_width: 4\ntile_height: 4\ntile_margin: 1\ntile_spacing: 2\n\
        collision: \"\"\nmaterial_tag: \"tile\"\nanimations {\n  id: \"walk\"\n  start_tile: 2\n  end_tile: 5\n\
        playback: PLAYBACK_LOOP_FORWARD\n  fps: 8\n  flip_horizontal: 0\n  flip_vertical: 0\n}\n\
        extrude_borders: 0\ninner_padding: 0\nsprite_trim_mode: SPRITE_TRIM_MODE_OFF\n";
    // 22 = 3 tiles of 1 + 4 + 1, with 2 between; one pixel more on the right and below is unused.
    let files = [
        ("/sheet.png", png(23, 15, tiles())),
        ("/t.tilesource", json.as_bytes().to_vec()),
        ("/d.tilesource", text.as_bytes().to_vec()),
    ];
    let r = res(&files);
    let t = load_atlas(&r, "/t.tilesource").unwrap();
    assert_eq!(t.frames.len(), 6);
    for n in 0..6u32 {
        assert_frame(&t, n as usize, 4, 4, |x, y| [n as u8 + 1, x as u8 + 1, y as u8 + 1, 255]);
    }
    let walk = t.animation("walk").unwrap();
    assert_eq!((walk.frames.clone(), walk.playback, walk.fps), (vec![1, 2, 3, 4], Playback::LoopForward, 8.0));
    let mut d = load_atlas(&r, "/d.tilesource").unwrap();
    d.source = t.source.clone();
    assert_eq!(t, d);
}

/// Shipped Defold games hold tile sources with two animations of one id (Defold builds them,
/// and its runtime's table of ids keeps the later): loaded, the later one played by that id.
#[test]
fn a_tile_sources_repeated_animation_id_keeps_the_later_animation() {
    let text = "image: \"/sheet.png\"\ntile_width: 4\ntile_height: 4\ntile_margin: 1\ntile_spacing: 2\n\
        animations {\n  id: \"log\"\n  start_tile: 1\n  end_tile: 1\n}\n\
        animations {\n  id: \"run\"\n  start_tile: 2\n  end_tile: 3\n}\n\
        animations {\n  id: \"log\"\n  start_tile: 4\n  end_tile: 6\n  fps: 12\n}\n";
    let files = [("/sheet.png", png(23, 15, tiles())), ("/d.tilesource", text.as_bytes().to_vec())];
    let t = load_atlas(&res(&files), "/d.tilesource").expect("loads, as in Defold");
    assert_eq!(t.animations.len(), 2, "one animation per id");
    let log = t.animation("log").expect("log");
    assert_eq!((log.frames.clone(), log.fps), (vec![3, 4, 5], 12.0), "the later 'log'");
    assert_eq!(t.animation("run").map(|r| r.frames.clone()), Some(vec![1, 2]));
}

/// Defold's tile sources keep each tile's collision group but not its hull: the hull comes
/// from the collision image, in the tile's square (-0.5..0.5, y up).
#[test]
fn a_tile_sources_collision_image_gives_each_grouped_tile_its_hull() {
    // Three 4x4 tiles: opaque, opaque in its lower half, opaque without a group.
    let img = || png(12, 4, |x, y| if x < 4 || y >= 2 || x >= 8 { [9, 9, 9, 255] } else { [0; 4] });
    let json = r#"{ "image": "/s.png", "tile_width": 4, "tile_height": 4, "collision": "/s.png",
        "convex_hulls": [{ "collision_group": "ground" }, { "collision_group": "danger" }, { "collision_group": "" }] }"#;
    let text = "image: \"/s.png\"\ntile_width: 4\ntile_height: 4\ncollision: \"/s.png\"\n\
        convex_hulls {\n  index: 0\n  count: 4\n  collision_group: \"ground\"\n}\n\
        convex_hulls {\n  index: 4\n  count: 4\n  collision_group: \"danger\"\n}\n\
        convex_hulls {\n  index: 8\n  count: 4\n  collision_group: \"\"\n}\n\
        collision_groups: \"danger\"\ncollision_groups: \"ground\"\n";
    let files =
        [("/s.png", img()), ("/t.tilesource", json.as_bytes().to_vec()), ("/d.tilesource", text.as_bytes().to_vec())];
    let r = res(&files);
    let t = load_atlas(&r, "/t.tilesource").unwrap();
    assert_eq!(t.hulls.len(), 3);
    let span = |h: &[[f32; 2]], k: usize| {
        h.iter().map(|p| p[k]).fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
    };
    let ground = t.hulls[0].as_ref().expect("a hull for the opaque tile");
    assert_eq!(ground.group, "ground");
    assert_eq!((span(&ground.hull, 0), span(&ground.hull, 1)), ((-0.5, 0.5), (-0.5, 0.5)));
    let danger = t.hulls[1].as_ref().expect("a hull for the half tile");
    assert_eq!(danger.group, "danger");
    // Rows 0 and 1 (y up) of 0..3: the top at 1 / 3 of the square, as Defold scales by width - 1.
    let (low, top) = span(&danger.hull, 1);
    assert!(low == -0.5 && (top - (1.0 / 3.0 - 0.5)).abs() < 1e-6, "{:?}", danger.hull);
    assert_eq!(t.hulls[2], None, "a tile without a group collides with nothing");
    let mut d = load_atlas(&r, "/d.tilesource").unwrap();
    d.source = t.source.clone();
    assert_eq!(t, d, "Defold's text gives the same tile source");

    let other_size = [
        ("/s.png", img()),
        ("/c.png", png(4, 4, pattern(1))),
        (
            "/t.tilesource",
            b"{\"image\": \"/s.png\", \"tile_width\": 4, \"tile_height\": 4,\n \"collision\": \"/c.png\"}".to_vec(),
        ),
    ];
    let e = error(&other_size, "/t.tilesource");
    assert!(e.starts_with("/t.tilesource:2:15:") && e.contains("the collision image is 4x4, the image 12x4"), "{e}");
}

fn error(files: &[(&str, Vec<u8>)], path: &str) -> String {
    load_atlas(&res(files), path).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_atlases_are_reported_where_written() {
    let good = || png(2, 2, pattern(3));
    let not_image = [
        ("/bad.png", b"hello, not a picture".to_vec()),
        ("/a.atlas", b"{\n  \"images\": [\n    { \"image\": \"/bad.png\" }]}".to_vec()),
    ];
    let e = error(&not_image, "/a.atlas");
    assert!(e.starts_with("/a.atlas:3:16:") && e.contains("neither PNG nor JPEG"), "{e}");

    let same_stem = [
        ("/x/a.png", good()),
        ("/y/a.png", good()),
        ("/a.atlas", b"{\"images\": [{\"image\": \"/x/a.png\"},\n {\"image\": \"/y/a.png\"}]}".to_vec()),
    ];
    let e = error(&same_stem, "/a.atlas");
    assert!(e.starts_with("/a.atlas:2:12:") && e.contains("duplicate id 'a'"), "{e}");

    let anim_dup = [
        ("/a.png", good()),
        (
            "/a.atlas",
            b"images { image: \"/a.png\" }\nanimations {\n  id: \"a\"\n  images { image: \"/a.png\" }\n}\n".to_vec(),
        ),
    ];
    let e = error(&anim_dup, "/a.atlas");
    assert!(e.starts_with("/a.atlas:3:7:") && e.contains("duplicate id 'a'"), "{e}");

    // An animation without images is left out (Defold builds such atlases), the rest loads;
    // Defold's page limits are read and dropped.
    let empty = [
        ("/a.png", good()),
        (
            "/a.atlas",
            b"images { image: \"/a.png\" }\nanimations {\n  id: \"run\"\n  fps: 10\n}\nmax_page_width: 512\nmax_page_height: 512\n".to_vec(),
        ),
    ];
    let a = load_atlas(&res(&empty), "/a.atlas").expect("loads without the empty animation");
    assert!(a.animations.iter().all(|x| x.id != "run") && a.animations.iter().any(|x| x.id == "a"));

    let unknown = [("/a.atlas", b"images { image: \"/a.png\" }\nmargn: 2\n".to_vec())];
    let e = error(&unknown, "/a.atlas");
    assert!(e.starts_with("/a.atlas:2:1:") && e.contains("unknown field `margn`"), "{e}");

    let playback = [
        ("/a.png", good()),
        (
            "/a.atlas",
            br#"{"animations": [{"id": "r", "images": [{"image": "/a.png"}], "playback": "sometimes"}]}"#.to_vec(),
        ),
    ];
    let e = error(&playback, "/a.atlas");
    assert!(e.contains("unknown playback 'sometimes'") && e.starts_with("/a.atlas:1:"), "{e}");

    let missing = [("/a.atlas", br#"{"images": [{"image": "/nope.png"}]}"#.to_vec())];
    let e = error(&missing, "/a.atlas");
    assert!(e.starts_with("/a.atlas:1:") && e.contains("/nope.png"), "{e}");

    let tiles = [
        ("/s.png", good()),
        ("/t.tilesource", br#"{"image": "/s.png", "tile_width": 1, "tile_height": 1, "animations": [{"id": "x", "start_tile": 1, "end_tile": 5}]}"#.to_vec()),
    ];
    let e = error(&tiles, "/t.tilesource");
    assert!(e.contains("tile 5 is not in 1..4"), "{e}");
}

#[test]
fn hostile_sizes_are_refused_before_pixels_are_allocated() {
    // A small file whose header declares 8000 x 8000 pixels and holds none of them.
    let mut lying = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut lying, 8000, 8000);
        enc.set_color(png::ColorType::Rgba);
        let mut w = enc.write_header().unwrap();
        // An empty zlib stream, so the decoder reaches the size check.
        w.write_chunk(png::chunk::IDAT, &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]).unwrap();
        let _ = w.finish();
    }
    assert!(lying.len() < 200);
    let files = [("/big.png", lying.clone()), ("/a.atlas", br#"{"images": [{"image": "/big.png"}]}"#.to_vec())];
    let e = error(&files, "/a.atlas");
    assert!(
        e.starts_with("/a.atlas:1:")
            && e.contains("'/big.png': the images need")
            && e.contains("more than one 4096x4096 page"),
        "{e}"
    );

    // Images that each fit but add up to more than a page: refused at the one that overflows.
    let big = png(1000, 1000, |_, _| [1, 2, 3, 255]);
    let mut files: Vec<(String, Vec<u8>)> = (0..20).map(|i| (format!("/i{i}.png"), big.clone())).collect();
    let list: Vec<String> = (0..20).map(|i| format!("{{\"image\": \"/i{i}.png\"}}")).collect();
    files.push(("/many.atlas".into(), format!("{{\"images\": [\n{}]}}", list.join(",\n")).into_bytes()));
    let r = Resources::demo().with_overlay(files);
    let e = load_atlas(&r, "/many.atlas").map(|_| ()).unwrap_err().to_string();
    assert!(
        e.starts_with("/many.atlas:18:11: image '/i16.png': the images need")
            && e.contains("more than one 4096x4096 page"),
        "{e}"
    );

    // One-pixel tiles on a 200 x 200 sheet: 40,000 frames, counted from the header.
    let files = [
        ("/s.png", png(200, 200, pattern(0))),
        ("/t.tilesource", br#"{"image": "/s.png", "tile_width": 1, "tile_height": 1}"#.to_vec()),
    ];
    let e = error(&files, "/t.tilesource");
    assert!(e.contains("40000 tiles, more than 16384"), "{e}");

    let files = [("/a.atlas", br#"{"margin": 100000}"#.to_vec())];
    let e = error(&files, "/a.atlas");
    assert!(e.contains("margin must be at most 256"), "{e}");
}
