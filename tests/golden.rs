//! End-to-end golden image: the embedded demo, run headless through the CLI, read back and
//! compared with a committed PNG. Frame 140 is the title screen (content/main/title.gui, a
//! collection behind a proxy) over the level in attract mode: the hero walking the tour, the `.bon`
//! mannequin on the left, the level's HUD under the title. Tolerance: 2 per channel, at most 0.5% of pixels over it
//! (llvmpipe is deterministic on one machine; the slack absorbs other Mesa versions' rounding).
//! `SINEW_UPDATE_GOLDEN=1` rewrites the reference and still fails (`tests/common/golden.rs`, whose
//! own checks are here too); a missing reference fails.
//!
//! Also the demo played by a recorded session (`tests/replays/demo_session.jsonl`, written by
//! hand in the replay format): walk, turn, run, orbit the camera with a mouse drag, jump, stop,
//! wave, zoom, after Enter on the title screen. Headless + `--fixed-dt` + `--replay` is deterministic, so its last frame is a
//! golden image too (`tests/golden/demo_replay.png`). Both show the HUD (gems, time) in the
//! top-left corner; `demo_menu` shows its pause menu.
mod common;
use common::*;
use sinew::render::Image;
use std::path::Path;

#[test]
fn demo_frame_matches_golden_image() {
    let dir = TempDir::new("golden");
    let shot = dir.path().join("demo.png");
    let r = sinew(&[
        "run",
        "--headless",
        "--frames",
        "140",
        "--fixed-dt",
        "0.0166667",
        "--size",
        "480x270",
        "--screenshot",
        shot.to_str().unwrap_or(""),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    let actual = check_golden("demo_frame", &shot);
    // The frame really shows the objects: not just the clear colour.
    let clear = actual.pixel(0, 0).expect("pixel");
    let drawn = actual.rgba.chunks(4).filter(|p| *p != clear).count();
    assert!(drawn > 200, "only {drawn} pixels differ from the background");
}

#[test]
fn demo_replay_final_frame_matches_golden_image() {
    let dir = TempDir::new("demo-replay");
    let shot = dir.path().join("replay.png");
    let replay = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replays/demo_session.jsonl");
    let r = sinew(&[
        "run",
        "--headless",
        "--frames",
        "390",
        "--fixed-dt",
        "0.0166667",
        "--size",
        "480x270",
        "--replay",
        replay.to_str().unwrap_or(""),
        "--screenshot",
        shot.to_str().unwrap_or(""),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    // The session walks the hero through the first gem before the attract mode could reach it.
    assert!(r.stdout.contains("gem 1 picked up"), "{}", r.show());
    check_golden("demo_replay", &shot);
}

/// The demo's pause menu (content/main/hud.gui_script) driven by a recorded session
/// (`tests/replays/demo_menu.jsonl`): walk, Esc opens the menu, the mouse hovers and clicks
/// Restart (the HUD's time starts again), START on a gamepad opens it again and the dpad moves
/// the focus down twice to Quit. The last frame, menu open with Quit highlighted, is a golden
/// image; the same session plus the gamepad's A quits the game with status 0 long before its
/// frame limit.
#[test]
fn demo_pause_menu_works_by_mouse_and_gamepad() {
    let dir = TempDir::new("demo-menu");
    let shot = dir.path().join("menu.png");
    let replay = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replays/demo_menu.jsonl");
    let run = |replay: &Path, frames: &str, shot: Option<&Path>| {
        let mut args = vec!["run", "--headless", "--frames", frames, "--fixed-dt", "0.0166667", "--size", "480x270"];
        args.extend(["--replay", replay.to_str().unwrap_or("")]);
        if let Some(s) = shot {
            args.extend(["--screenshot", s.to_str().unwrap_or("")]);
        }
        sinew(&args)
    };
    let r = run(&replay, "190", Some(&shot));
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(r.stdout.matches("restart from the pause menu").count(), 1, "{}", r.show());
    assert!(!r.stdout.contains("quit from the pause menu"), "{}", r.show());
    check_golden("demo_menu", &shot);
    // A on the gamepad activates the focused button: Quit.
    let quit = dir.path().join("quit.jsonl");
    let mut session = std::fs::read_to_string(&replay).expect("replay");
    session.push_str("{\"frame\": 180, \"type\": \"gamepad_button\", \"gamepad\": 0, \"input\": \"GAMEPAD_RPAD_DOWN\", \"down\": true}\n");
    std::fs::write(&quit, session).expect("write replay");
    let started = std::time::Instant::now();
    let r = run(&quit, "100000", None);
    assert_eq!(r.status, 0, "{}", r.show());
    let (restart, quit_at) = (r.stdout.find("restart from the pause menu"), r.stdout.find("quit from the pause menu"));
    assert!(matches!((restart, quit_at), (Some(a), Some(b)) if a < b), "{}", r.show());
    assert!(started.elapsed().as_secs() < 60, "quit ended the run");
}

/// Compares the screenshot at `shot` with `tests/golden/NAME.png` (see `common/golden.rs`) and
/// returns it.
fn check_golden(name: &str, shot: &Path) -> Image {
    let actual = Image::load_png(shot).expect("screenshot written");
    if let Err(e) = golden::check_golden(name, &actual) {
        panic!("{e}");
    }
    actual
}

/// Two images that differ in every pixel by more than the tolerance.
fn two_images() -> (Image, Image) {
    (Image::filled(20, 10, [10, 20, 30, 255]), Image::filled(20, 10, [10, 20, 40, 255]))
}

#[test]
fn updating_a_golden_image_never_counts_as_a_pass() {
    let dir = TempDir::new("golden-update");
    let path = dir.path().join("g.png");
    let (a, b) = two_images();
    let e = golden::check_image(&path, &a, golden::Mode::Update, dir.path()).expect_err("an update must fail");
    assert!(e.contains("re-run without SINEW_UPDATE_GOLDEN"), "{e}");
    // It did write the reference: comparing against it now passes, and a different image fails.
    assert_eq!(golden::check_image(&path, &a, golden::Mode::Compare, dir.path()), Ok(()));
    let e = golden::check_image(&path, &b, golden::Mode::Compare, dir.path()).expect_err("mismatch must fail");
    assert!(e.contains("200 of 200 pixels differ"), "{e}");
    assert!(dir.path().join("g.diff.png").exists() && dir.path().join("g.actual.png").exists(), "{e}");
}

#[test]
fn a_missing_golden_image_fails() {
    let dir = TempDir::new("golden-missing");
    let path = dir.path().join("sub/new.png");
    let (a, _) = two_images();
    let e = golden::check_image(&path, &a, golden::Mode::Compare, dir.path()).expect_err("missing must fail");
    assert!(e.contains("was missing, wrote it from this run"), "{e}");
    assert!(path.exists());
}

#[test]
fn small_differences_pass_and_ci_refuses_updates() {
    let dir = TempDir::new("golden-tolerance");
    let path = dir.path().join("g.png");
    let (a, _) = two_images();
    a.save_png(&path).expect("write reference");
    // One pixel (0.5%) far off, the rest within the tolerance: passes.
    let mut near = Image::filled(20, 10, [12, 18, 32, 255]);
    near.rgba[0] = 200;
    assert_eq!(golden::check_image(&path, &near, golden::Mode::Compare, dir.path()), Ok(()));
    near.rgba[4] = 200;
    assert!(golden::check_image(&path, &near, golden::Mode::Compare, dir.path()).is_err(), "two pixels is 1%");
    assert_eq!(golden::mode(Some("1"), None), Ok(golden::Mode::Update));
    assert_eq!(golden::mode(None, Some("true")), Ok(golden::Mode::Compare));
    assert_eq!(golden::mode(Some("0"), None), Ok(golden::Mode::Compare));
    assert!(golden::mode(Some("1"), Some("true")).is_err());
    assert!(golden::mode(Some("1"), Some("1")).is_err());
}

/// The demo's level runs behind a collection proxy (content/main/loader.script): T sets its
/// time step to 0.25. Left alone after play, the attract mode picks the first gem 6.5 s into
/// the level (its own clock, printed); in slow motion the same pick comes at the same level
/// time but four times as many frames later, so 1,700 frames see that gem and no other, where
/// at full speed they would have seen every gem of the tour.
#[test]
fn demo_slow_motion_key_slows_the_level() {
    let dir = TempDir::new("demo-slow");
    let play = |name: &str, events: &str, frames: &str| {
        let replay = dir.path().join(name);
        let enter = "{\"frame\": 2, \"type\": \"key\", \"input\": \"KEY_ENTER\", \"down\": true}\n\
                     {\"frame\": 3, \"type\": \"key\", \"input\": \"KEY_ENTER\", \"down\": false}\n";
        std::fs::write(&replay, format!("{enter}{events}")).expect("replay");
        let args = ["run", "--headless", "--frames", frames, "--fixed-dt", "0.0166667", "--size", "160x90"];
        let r = sinew(&[&args[..], &["--replay", replay.to_str().unwrap_or("")]].concat());
        assert_eq!(r.status, 0, "{}", r.show());
        let picks: Vec<f32> = r
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("gem ")?.split(" picked up at ").nth(1)?.strip_suffix(" s")?.parse().ok())
            .collect();
        (r, picks)
    };
    let (_, normal) = play("normal.jsonl", "", "480");
    assert_eq!(normal.len(), 1, "at full speed the first gem comes within 480 frames: {normal:?}");
    let t = "{\"frame\": 6, \"type\": \"key\", \"input\": \"KEY_T\", \"down\": true}\n\
             {\"frame\": 7, \"type\": \"key\", \"input\": \"KEY_T\", \"down\": false}\n";
    let (r, slow) = play("slow.jsonl", t, "1700");
    assert!(r.stdout.contains("slow motion on"), "{}", r.show());
    assert_eq!(slow.len(), 1, "in slow motion 1,700 frames reach only the first gem: {slow:?}\n{}", r.show());
    assert!((slow[0] - normal[0]).abs() < 0.3, "the same level time: {} s vs {} s", slow[0], normal[0]);
}
