//! The demo played by a recorded session (`tests/replays/demo_session.jsonl`, written by hand in
//! the replay format): walk, turn, run, orbit the camera with a mouse drag, jump, stop, wave,
//! zoom. Headless + `--fixed-dt` + `--replay` is deterministic, so the last frame is a golden
//! image (tolerance as in golden.rs); `SINEW_UPDATE_GOLDEN=1` rewrites it.
mod common;
use common::*;
use sinew::render::{Image, compare};
use std::path::Path;

#[test]
fn demo_replay_final_frame_matches_golden_image() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = TempDir::new("demo-replay");
    let shot = dir.path().join("replay.png");
    let replay = root.join("tests/replays/demo_session.jsonl");
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
    let actual = Image::load_png(&shot).expect("screenshot written");
    let golden_path = root.join("tests/golden/demo_replay.png");
    if std::env::var("SINEW_UPDATE_GOLDEN").as_deref() == Ok("1") {
        actual.save_png(&golden_path).expect("write golden");
        eprintln!("updated {}", golden_path.display());
        return;
    }
    let golden = Image::load_png(&golden_path)
        .unwrap_or_else(|e| panic!("missing golden {}: {e} (run with SINEW_UPDATE_GOLDEN=1)", golden_path.display()));
    let c = compare(&actual, &golden, 2).expect("same size");
    let limit = (actual.width * actual.height) as usize / 200;
    if c.differing_pixels > limit {
        let diff = Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo_replay.diff.png");
        let _ = c.diff.save_png(&diff);
        panic!(
            "{} pixels differ (limit {limit}, max channel diff {}); diff image: {}",
            c.differing_pixels,
            c.max_channel_diff,
            diff.display()
        );
    }
}
