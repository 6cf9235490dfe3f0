//! GUI components (issue 35): one scene drawn headless at three window sizes, each compared
//! with a golden image; the adjust modes and anchors keep its layout.
mod common;
use common::*;
use sinew::render::Image;

/// The last frame of the project in `dir` run headless with `args` (frames, size, clock), which
/// must end without an error.
fn screenshot(dir: &std::path::Path, args: &[&str]) -> Image {
    let tmp = TempDir::new("gui-shot");
    let png = tmp.path().join("shot.png");
    let mut all = vec!["run", dir.to_str().expect("utf-8 path"), "--headless", "--no-watch"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--screenshot", png.to_str().expect("utf-8")]);
    let r = sinew(&all);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    Image::load_png(&png).expect("screenshot")
}

fn shot(project: &str, size: &str) -> Image {
    let p = committed(project);
    screenshot(p.path(), &["--size", size, "--frames", "2"])
}

/// The share of pixels near `rgb` in the rectangle (x0, y0)-(x1, y1), rows from the top.
fn share(img: &Image, (x0, y0, x1, y1): (u32, u32, u32, u32), rgb: [u8; 3]) -> f32 {
    let mut hit = 0;
    let mut all = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            all += 1;
            if img.pixel(x, y).is_some_and(|p| (0..3).all(|c| p[c].abs_diff(rgb[c]) < 40)) {
                hit += 1;
            }
        }
    }
    hit as f32 / all.max(1) as f32
}

#[test]
fn one_scene_at_three_window_sizes_matches_the_golden_images() {
    let mut failed = Vec::new();
    for (size, name, (w, h)) in [
        ("960x540", "gui_960x540", (960, 540)),
        ("1920x1080", "gui_1920x1080", (1920, 1080)),
        ("540x960", "gui_540x960", (540, 960)),
    ] {
        let img = shot("gui_hud", size);
        assert_eq!((img.width, img.height), (w, h));
        // The stretched bar spans the whole bottom edge whatever the window (purple-ish).
        let sy = h as f32 / 540.0;
        let bar_y = h - (20.0 * sy) as u32;
        let bar = share(&img, (0, bar_y - 3, w, bar_y + 3), [180, 80, 180]);
        assert!(bar > 0.6, "{size}: stretched bar covers {bar}");
        // The top-left panel stays at the top-left corner (its red corner dot).
        let s = w as f32 / 960.0;
        let s = s.min(h as f32 / 540.0);
        let corner = (20.0 * s) as u32 + 1;
        let dot = share(&img, (corner, corner, corner + (3.0 * s) as u32, corner + (3.0 * s) as u32), [255, 60, 60]);
        assert!(dot > 0.5, "{size}: top-left panel corner {dot}");
        if let Err(e) = golden::check_golden(name, &img) {
            failed.push(e);
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The `gui` namespace from a `.gui_script`: properties, metrics, picking rotated and clipped
/// nodes, new nodes, reset, errors.
#[test]
fn lua_api_gui() {
    let p = committed("api_gui");
    // At the display size, so screen points are the scene's own coordinates.
    let dir = p.path().to_str().expect("utf-8 path");
    let r =
        sinew(&["run", dir, "--headless", "--size", "960x540", "--frames", "8", "--fixed-dt", "0.25", "--no-watch"]);
    // An error outside a check (the resources script's init) would leave fewer checks run.
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert_lua_passed(&r, "api_gui");
    let clamped = "gui.set_render_order: 99 is outside 0 to 15; 15 is used";
    assert_eq!(r.stderr.matches(clamped).count(), 1, "{}", r.show());
    assert!(r.stderr.contains("WARNING: /main/hud.gui_script:"), "the warning names the script's line: {}", r.show());
}

/// GUI layouts in Sinew's JSON with a project's own display profiles: chosen before `init`,
/// `gui.set_layout`, `gui.get_layout`, `layout_changed`, and a replayed resize that switches.
#[test]
fn lua_api_gui_layouts() {
    let p = committed("api_gui_layouts");
    let dir = p.path().to_str().expect("utf-8 path");
    let replay = p.path().join("main/resize.replay");
    let args = ["--headless", "--size", "800x400", "--frames", "8", "--fixed-dt", "0.1", "--no-watch"];
    let mut all = vec!["run", dir, "--replay", replay.to_str().expect("utf-8")];
    all.extend_from_slice(&args);
    let r = sinew(&all);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert_lua_passed(&r, "api_gui_layouts");
}

/// Defold's gui/healthbar example (github.com/defold/examples, CC0, tests/defold/LICENSE),
/// copied unchanged into tests/defold/gui_healthbar (with the two images of its atlas it shows),
/// run from its own folder: a timer sends `update_health` every second and the gui script
/// shrinks each bar with `gui.set_size`. At 3.33 s three ticks have passed: 70% health, so each
/// red bar is (0.7 × 187 + 48) × 0.8 = 143 pixels wide, the left one growing from its west
/// pivot, the right one from its east pivot.
#[test]
fn defold_healthbar_example_shrinks_its_bars() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defold/gui_healthbar");
    let img = screenshot(&dir, &["--frames", "200", "--fixed-dt", "0.016666668"]);
    // Red runs on the middle row of each bar (rows from the top: 720 - 500, 720 - 350, 720 - 200).
    let red_run = |y: u32| {
        let xs: Vec<u32> = (0..img.width)
            .filter(|&x| img.pixel(x, y).is_some_and(|p| p[0] > 200 && p[1] < 80 && p[2] < 110))
            .collect();
        (xs.first().copied().unwrap_or(0), xs.len() as u32)
    };
    for (y, what) in [(220, "left"), (370, "right"), (520, "center")] {
        let (_, width) = red_run(y);
        assert!(width.abs_diff(143) <= 6, "{what} bar is {width} px wide");
    }
    let (left_start, _) = red_run(220);
    let (right_start, right_width) = red_run(370);
    assert!(left_start < 275, "the left bar grows from its west end ({left_start})");
    assert!(right_start + right_width > 445, "the right bar keeps its east end");
    if let Err(e) = golden::check_golden("defold_gui_healthbar", &img) {
        panic!("{e}");
    }
}

/// `gui.animate` values equal `go.animate`'s on every frame for every easing (the same tween
/// kernel), with callbacks and `gui.cancel_animation`.
#[test]
fn gui_animate_matches_go_animate_for_every_easing() {
    let p = committed("gui_animate");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&[
        "run",
        dir,
        "--headless",
        "--size",
        "64x48",
        "--frames",
        "30",
        "--fixed-dt",
        "0.016666668",
        "--no-watch",
    ]);
    assert_lua_passed(&r, "gui_animate");
}

/// The node functions of issue 35's second part: ids, pivots, anchors, adjust, blend and
/// clipping modes, fonts, textures, layers, flipbooks (callback on a later frame), parents
/// (with `keep_scene_transform`), clones, deletion (deleted handles raise, naming the
/// function), bad arguments, and the gui script of a gui component a factory made.
#[test]
fn lua_api_gui_nodes() {
    let p = committed("api_gui_nodes");
    let dir = p.path().to_str().expect("utf-8 path");
    // A click on the button at frame 2 (window pixels from the top-left), for `on_input`.
    let replay = p.path().join("click.jsonl");
    let replay = replay.to_str().expect("utf-8 path");
    let r = sinew(&[
        "run",
        dir,
        "--headless",
        "--size",
        "960x540",
        "--frames",
        "8",
        "--fixed-dt",
        "0.25",
        "--no-watch",
        "--replay",
        replay,
    ]);
    assert_lua_passed(&r, "api_gui_nodes");
    assert!(r.stdout.contains("api_gui_nodes final: Hi"), "final ran with its nodes: {}", r.show());
}

/// The frames of `gui_flipbook`'s atlas, made here: four solid colours (red, green, blue,
/// yellow) of different sizes (8x8, 12x8, 8x12, 16x16, so `size_mode: auto` shows each frame's
/// size), each with a white two-pixel strip down its left edge, so a flipped frame shows it on
/// the right.
fn flipbook_frames() -> Vec<(&'static str, Vec<u8>)> {
    let frame = |w: u32, h: u32, c: [u8; 3]| {
        let px: Vec<u8> = (0..h)
            .flat_map(|_| 0..w)
            .flat_map(|x| if x < 2 { [255, 255, 255, 255] } else { [c[0], c[1], c[2], 255] })
            .collect();
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        let mut wr = enc.write_header().expect("header");
        wr.write_image_data(&px).expect("pixels");
        drop(wr);
        out
    };
    vec![
        ("main/f0.png", frame(8, 8, [220, 40, 40])),
        ("main/f1.png", frame(12, 8, [40, 200, 60])),
        ("main/f2.png", frame(8, 12, [40, 80, 230])),
        ("main/f3.png", frame(16, 16, [240, 220, 40])),
    ]
}

/// `tests/projects/gui_flipbook` with its generated frames.
fn flipbook_project() -> TempDir {
    let p = committed("gui_flipbook");
    for (path, bytes) in flipbook_frames() {
        std::fs::write(p.path().join(path), bytes).expect("frame image");
    }
    p
}

/// The Lua side of GUI flipbooks (`tests/projects/gui_flipbook/main/flip.gui_script`): cursors
/// frame by frame at a fixed 1/16 s, `complete_function` once, in the update the once-animation
/// ends, never for a loop; cancel, cursor, playback rate, and bad arguments.
#[test]
fn lua_api_gui_flipbook() {
    let p = flipbook_project();
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--frames", "16", "--fixed-dt", "0.0625", "--no-watch"]);
    assert_lua_passed(&r, "gui_flipbook");
}

/// Each node's frame and the UVs and size the draw list gives it, update by update, for
/// 4-frame animations at 8 fps stepped at 1/16 s (a frame every two updates): once forward
/// (ends on its last frame; the callback moves `counter` at update 8 and never again), loop
/// forward, a 3-frame loop ping-pong, a loop cancelled at update 3, a loop at playback rate 2,
/// the file's own (flipped) animation, a `size_mode: auto` node, and a loop set to cursor 0.5.
#[test]
fn gui_flipbooks_step_frame_by_frame() {
    let p = flipbook_project();
    let res = sinew::project::Resources::open_dir(p.path()).expect("project");
    let atlas = sinew::project::sprite::load_atlas(&res, "/main/frames.atlas").expect("atlas");
    let mut g = sinew::app::run::load_game(&res, Some((160, 120))).unwrap_or_else(|e| panic!("{e}"));
    let (four, three) = ([0, 1, 2, 3], [0, 1, 2]);
    // Per node: its id, the images its animation shows, and the index into them after u updates.
    type Step = fn(u32) -> usize;
    let nodes: [(&str, &[u32], Step); 8] = [
        ("once", &four, |u| (u as usize / 2).min(3)),
        ("loop", &four, |u| (u as usize / 2) % 4),
        ("pingpong", &three, |u| [0, 0, 1, 1, 2, 2, 1, 1][u as usize % 8]),
        ("cancel", &four, |u| (u.min(2) as usize / 2) % 4),
        ("rate", &four, |u| u as usize % 4),
        ("walk", &four, |u| (u as usize / 2) % 4),
        ("auto", &four, |u| (u as usize / 2) % 4),
        ("cursor", &four, |u| (2 + u as usize / 2) % 4),
    ];
    // The atlas frame of image `fK` (its one-frame flipbook, named after the file).
    let image = |k: u32| {
        let id = format!("f{k}");
        atlas.animation(&id).unwrap_or_else(|| panic!("{id}")).frames[0]
    };
    const FLOATS: usize = 9;
    for u in 1..=14u32 {
        sinew::game::update(&g.world, &mut g.scripts, 0.0625, &mut |_, _| {});
        sinew::game::post_update(&g.world, &mut g.scripts);
        let mut w = g.world.borrow_mut();
        let scene = w.gui.instances[0].scene.clone();
        let shown: Vec<u32> = nodes
            .iter()
            .map(|(id, _, _)| {
                let i = scene.node_index(id).unwrap_or_else(|| panic!("node {id}"));
                w.gui.instances[0].nodes[i].frame
            })
            .collect();
        let counter = scene.node_index("counter").expect("counter");
        let c = w.gui.instances[0].nodes[counter].position;
        let list = w.gui.build((160, 120), (160, 120));
        // One texture, no text: every node in one batch, six vertices each in file order.
        assert_eq!(list.draw_calls(), 1, "update {u}: one atlas is one draw call");
        for (k, (id, frames, step)) in nodes.iter().enumerate() {
            let want = image(frames[step(u)]);
            assert_eq!(shown[k], want, "update {u}: node {id} shows atlas frame {} (step {})", shown[k], step(u));
            let f = atlas.frames[want as usize];
            let (aw, ah) = (atlas.width as f32, atlas.height as f32);
            let v = &list.vertices[k * 6 * FLOATS..(k + 1) * 6 * FLOATS];
            let col = |c: usize| v.chunks(FLOATS).map(move |x| x[c]);
            let min = |c: usize| col(c).fold(f32::MAX, f32::min);
            let max = |c: usize| col(c).fold(f32::MIN, f32::max);
            let uv = [min(3), min(4), max(3), max(4)];
            let expect = [f.x as f32 / aw, f.y as f32 / ah, (f.x + f.width) as f32 / aw, (f.y + f.height) as f32 / ah];
            for (a, b) in uv.iter().zip(expect) {
                assert!((a - b).abs() < 1e-6, "update {u}: node {id} UVs {uv:?}, expected {expect:?}");
            }
            // The first vertex is the bottom-left corner: u0 there unless mirrored.
            let flipped = *id == "walk";
            let want_left = if flipped { expect[2] } else { expect[0] };
            assert!((v[3] - want_left).abs() < 1e-6, "update {u}: node {id} mirrored = {flipped}");
            let size = [max(0) - min(0), max(1) - min(1)];
            let want_size = if *id == "auto" { [f.width as f32, f.height as f32] } else { [24.0, 24.0] };
            assert_eq!(size, want_size, "update {u}: node {id} size");
        }
        // The once-animation's callback ran at update 8 and only then.
        let expect_counter = if u >= 8 { (1.0, 8.0) } else { (0.0, 0.0) };
        assert_eq!((c.x, c.y), expect_counter, "update {u}: callbacks so far, and when");
    }
}

/// A GUI box per flipbook after five updates of 1/16 s, drawn from the packed atlas: the top
/// row once, loop, ping-pong (blue, their third frame), cancelled and rate 2 (green, second);
/// below, the file's flipped animation (blue, strip on the right), the auto-sized node (8x12
/// blue) and the loop started at cursor 0.5 (red, wrapped to its first frame).
#[test]
fn gui_flipbook_matches_the_golden_image() {
    let p = flipbook_project();
    let img = screenshot(p.path(), &["--size", "160x120", "--frames", "5", "--fixed-dt", "0.0625"]);
    if let Err(e) = golden::check_golden("gui_flipbook", &img) {
        panic!("{e}");
    }
}

/// Particle nodes (`gui.play_particlefx` and the rest) from a gui script: see its comments.
#[test]
fn lua_api_gui_particlefx() {
    let p = committed("api_gui_particlefx");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--frames", "20", "--fixed-dt", "0.016666668", "--no-watch"]);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert_lua_passed(&r, "api_gui_particlefx");
}

/// Defold's other node property functions (leading, tracking, slice9, rotation, pie bounds,
/// `screen_to_local`, the scene's size, font resources, materials, the keyboard) and a gui's
/// `materials` through `go.get`/`go.set`: see the scripts.
#[test]
fn lua_api_gui_props() {
    let p = committed("api_gui_props");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--frames", "2", "--no-watch"]);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert_lua_passed(&r, "api_gui_props");
    assert_lua_passed(&r, "api_gui_materials");
}
