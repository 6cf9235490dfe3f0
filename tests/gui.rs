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
    assert_lua_passed(&r, "api_gui");
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
