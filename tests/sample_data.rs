//! The sample models and reference poses are part of the repository, so the tests that compare
//! against them run on every clone: no test reads `../shared` (where they used to be, with a
//! skip that passed whenever that folder was absent), every model keeps its source and licence
//! beside it, and every reference pose names a model that is here.
mod common;
use common::data::{reference_poses, sample_assets};
use std::path::{Path, PathBuf};

#[test]
fn no_test_reads_the_shared_folder() {
    // Test sources are the test programs and their helpers in tests/common.
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let files: Vec<PathBuf> = [tests.clone(), tests.join("common")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).expect("read tests").flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    assert!(files.len() > 30, "only {} test files found", files.len());
    // Code, not comments (which may say where the data came from); spelt in two pieces so
    // this file does not match itself.
    let needle = format!("../{}", "shared");
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).expect("test source");
            let hits: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.split("//").next().is_some_and(|code| code.contains(&needle)))
                .map(|(i, l)| format!("{}:{}: {}", f.display(), i + 1, l.trim()))
                .collect();
            hits
        })
        .collect();
    assert!(offenders.is_empty(), "tests must read tests/data, not {needle}:\n{}", offenders.join("\n"));
}

/// The `| `FILE` | BYTES | ... | LICENCE | ... |` row of `SOURCES.md` for `name`, as cells.
fn sources_row<'a>(sources: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let start = format!("| `{name}`");
    let line = sources.lines().find(|l| l.starts_with(&start))?;
    Some(line.split(" | ").map(str::trim).collect())
}

#[test]
fn every_sample_model_has_its_source_and_licence_beside_it() {
    let dir = sample_assets();
    let sources = std::fs::read_to_string(dir.join("SOURCES.md")).expect("tests/data/assets/SOURCES.md");
    let mut models = 0;
    let mut total = 0u64;
    for e in std::fs::read_dir(&dir).expect("assets").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let bytes = e.metadata().expect("metadata").len();
        total += bytes;
        if name == "SOURCES.md" {
            continue;
        }
        let row = sources_row(&sources, &name).unwrap_or_else(|| panic!("SOURCES.md has no row for {name}"));
        // The bytes column may list the original files after the model's own size.
        let listed = row[1].split(" / ").next().unwrap_or("").replace(',', "");
        assert_eq!(listed, bytes.to_string(), "{name}: SOURCES.md says {} bytes", row[1]);
        let licence = row.iter().rev().nth(1).expect("licence column");
        assert!(licence.contains("CC0 1.0") || licence.contains("CC-BY 4.0"), "{name}: licence {licence:?}");
        models += 1;
    }
    assert!(models >= 8, "{models} sample models");
    for e in std::fs::read_dir(reference_poses()).expect("reference").flatten() {
        total += e.metadata().expect("metadata").len();
    }
    assert!(total < 1 << 20, "the test data is {total} bytes: keep it under 1 MiB");
}

#[test]
fn every_reference_pose_names_a_model_here_and_is_described() {
    let dir = reference_poses();
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("tests/data/reference/README.md");
    let mut poses = 0;
    for e in std::fs::read_dir(&dir).expect("reference").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let pose: serde_json::Value = serde_json::from_slice(&std::fs::read(e.path()).expect("read"))
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        let asset = pose["asset"].as_str().unwrap_or_else(|| panic!("{name}: no asset"));
        assert!(sample_assets().join(asset).is_file(), "{name}: its model {asset} is not in tests/data/assets");
        assert!(readme.contains(&format!("| {name} | {asset} |")), "README.md does not describe {name}");
        poses += 1;
    }
    assert!(poses >= 6, "{poses} reference poses");
}
