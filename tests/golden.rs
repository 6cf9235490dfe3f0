//! End-to-end golden image: the embedded demo, run headless through the CLI, read back and
//! compared with a committed PNG. Frame 140 is the attract mode's first pickup: the gold gem beside
//! the walking hero is swollen in its pop. Tolerance: 2 per channel, at most 0.5% of pixels over it
//! (llvmpipe is deterministic on one machine; the slack absorbs other Mesa versions' rounding).
//! `SINEW_UPDATE_GOLDEN=1` rewrites the reference; a missing reference fails.
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
    let actual = Image::load_png(&shot).expect("screenshot written");
    let golden_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/demo_frame.png");
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
        let diff = Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo_frame.diff.png");
        let _ = c.diff.save_png(&diff);
        panic!(
            "{} pixels differ (limit {limit}, max channel diff {}); diff image: {}",
            c.differing_pixels,
            c.max_channel_diff,
            diff.display()
        );
    }
    // The frame really shows the objects: not just the clear colour.
    let clear = actual.pixel(0, 0).expect("pixel");
    let drawn = actual.rgba.chunks(4).filter(|p| *p != clear).count();
    assert!(drawn > 200, "only {drawn} pixels differ from the background");
}
