//! The one golden-image comparison of the test suite, shared by the `cargo test` programs
//! (through `common`) and the GL check programs (through `checks`), so tolerance, update rules
//! and failure output cannot drift apart between copies.
#![allow(dead_code)]
pub use super::update::Mode;
use sinew::render::{Image, compare};
use std::path::{Path, PathBuf};

/// Channel difference that still counts as equal: llvmpipe is deterministic on one machine; the
/// slack absorbs other Mesa versions' rounding.
pub const TOLERANCE: u8 = 2;

/// The mode for the values of `SINEW_UPDATE_GOLDEN` and `CI` (see [`super::update::mode`]).
pub fn mode(update: Option<&str>, ci: Option<&str>) -> Result<Mode, String> {
    super::update::mode("SINEW_UPDATE_GOLDEN", update, ci)
}

/// [`mode`] from this process's environment.
pub fn mode_from_env() -> Result<Mode, String> {
    super::update::mode_from_env("SINEW_UPDATE_GOLDEN")
}

/// `tests/golden/NAME.png`.
pub fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.png"))
}

/// Compares with `tests/golden/<name>.png` in the mode the environment asks for (see
/// [`check_image`]).
pub fn check_golden(name: &str, actual: &Image) -> Result<(), String> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"));
    check_image(&golden_path(name), actual, mode_from_env()?, out)
}

/// Compares `actual` with the PNG at `golden`: tolerance [`TOLERANCE`] per channel, at most
/// 0.5% of pixels over it. A missing golden fails (and is written, to be checked and
/// committed); [`Mode::Update`] rewrites it and fails too. On a mismatch the diff and actual
/// images are written to `out`.
pub fn check_image(golden: &Path, actual: &Image, mode: Mode, out: &Path) -> Result<(), String> {
    let write = |path: &Path| -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        actual.save_png(path)
    };
    if mode == Mode::Update {
        write(golden)?;
        return Err(format!(
            "golden image {} rewritten from this run; check it, commit it, and re-run without \
             SINEW_UPDATE_GOLDEN (an update never counts as a pass)",
            golden.display()
        ));
    }
    if !golden.exists() {
        let wrote = write(golden).is_ok();
        return Err(format!(
            "golden image {} was missing{}; check it and commit it",
            golden.display(),
            if wrote { ", wrote it from this run" } else { "" }
        ));
    }
    let reference = Image::load_png(golden)?;
    let cmp = compare(&reference, actual, TOLERANCE)?;
    let total = (actual.width * actual.height) as usize;
    let allowed = total / 200;
    if cmp.differing_pixels > allowed {
        let stem = golden.file_stem().and_then(|s| s.to_str()).unwrap_or("golden");
        let (diff, act) = (out.join(format!("{stem}.diff.png")), out.join(format!("{stem}.actual.png")));
        write(&act)?;
        cmp.diff.save_png(&diff)?;
        return Err(format!(
            "{} of {total} pixels differ by more than {TOLERANCE} (max channel diff {}, allowed {allowed}); \
             diff: {}, actual: {}",
            cmp.differing_pixels,
            cmp.max_channel_diff,
            diff.display(),
            act.display()
        ));
    }
    Ok(())
}
