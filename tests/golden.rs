//! End-to-end golden image: the embedded demo, run headless through the CLI, read back and
//! compared with a committed PNG. Frame 140 is the attract mode's first pickup: the gold gem beside
//! the walking hero is swollen in its pop. Tolerance: 2 per channel, at most 0.5% of pixels over it
//! (llvmpipe is deterministic on one machine; the slack absorbs other Mesa versions' rounding).
//! `SINEW_UPDATE_GOLDEN=1` rewrites the reference; a missing reference fails.
//!
//! Also the demo played by a recorded session (`tests/replays/demo_session.jsonl`, written by
//! hand in the replay format): walk, turn, run, orbit the camera with a mouse drag, jump, stop,
//! wave, zoom. Headless + `--fixed-dt` + `--replay` is deterministic, so its last frame is a
//! golden image too (`tests/golden/demo_replay.png`).
mod common;
use common::*;
use sinew::render::{Image, compare};
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
        "380",
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

/// Compares the screenshot at `shot` with `tests/golden/NAME.png` (2 per channel, at most 0.5%
/// of pixels over it; a diff image is written on failure) and returns it.
fn check_golden(name: &str, shot: &Path) -> Image {
    let actual = Image::load_png(shot).expect("screenshot written");
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.png"));
    if std::env::var("SINEW_UPDATE_GOLDEN").as_deref() == Ok("1") {
        actual.save_png(&golden_path).expect("write golden");
        eprintln!("updated {}", golden_path.display());
        return actual;
    }
    let golden = Image::load_png(&golden_path)
        .unwrap_or_else(|e| panic!("missing golden {}: {e} (run with SINEW_UPDATE_GOLDEN=1)", golden_path.display()));
    let c = compare(&actual, &golden, 2).expect("same size");
    let limit = (actual.width * actual.height) as usize / 200;
    if c.differing_pixels > limit {
        let diff = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.diff.png"));
        let _ = c.diff.save_png(&diff);
        panic!(
            "{} pixels differ (limit {limit}, max channel diff {}); diff image: {}",
            c.differing_pixels,
            c.max_channel_diff,
            diff.display()
        );
    }
    actual
}
