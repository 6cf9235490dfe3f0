//! The sample models and reference poses the tests compare against. They are committed under
//! `tests/data` (their licences beside them) rather than read from `../shared`: tests that skipped
//! when that folder was absent passed on every fresh clone without checking anything.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

/// `tests/data/assets`: public glTF sample models (sources and licences in its `SOURCES.md`).
pub fn sample_assets() -> PathBuf {
    data_dir("assets")
}

/// `tests/data/reference`: poses of those models from an independent glTF animation
/// implementation (format in its `README.md`).
pub fn reference_poses() -> PathBuf {
    data_dir("reference")
}

/// A folder of `tests/data`. Missing, it is a broken checkout, which fails the test: there is no
/// skip for data the repository holds.
fn data_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    assert!(dir.is_dir(), "{} is missing: it is part of the repository", dir.display());
    dir
}
