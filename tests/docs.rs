//! docs/ as a test: every example under docs/examples runs and prints its `expected.txt`; the
//! code blocks the pages show are those files (`<!-- file: PATH -->` and `<!-- output: DIR -->`
//! before a fenced block); every relative link resolves.
mod common;
use common::{TempDir, sinew};
use std::path::{Path, PathBuf};

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

fn pages() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [docs(), docs().join("api")] {
        for e in std::fs::read_dir(&dir).expect("docs folder").flatten() {
            if e.path().extension().is_some_and(|x| x == "md") {
                v.push(e.path());
            }
        }
    }
    v.sort();
    v
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(docs().join("examples"))
        .expect("docs/examples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read").flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// `(marker, block)` for every `<!-- kind: arg -->` line followed by a fenced block.
fn marked_blocks(text: &str) -> Vec<(String, String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(inner) = l.trim().strip_prefix("<!-- ").and_then(|s| s.strip_suffix(" -->")) else { continue };
        let Some((kind, arg)) = inner.split_once(": ") else { continue };
        let open = lines.get(i + 1).copied().unwrap_or("");
        assert!(open.starts_with("```"), "marker `{l}` is not followed by a fenced block");
        let body: Vec<&str> = lines[i + 2..].iter().take_while(|b| !b.starts_with("```")).copied().collect();
        out.push((kind.to_string(), arg.to_string(), body.join("\n") + "\n"));
    }
    out
}

#[test]
fn every_example_runs_and_prints_what_its_page_shows() {
    let list = examples();
    assert!(list.len() >= 4, "docs/examples has {} examples", list.len());
    for ex in &list {
        let name = ex.file_name().expect("name").to_string_lossy().into_owned();
        let tmp = TempDir::new(&format!("doc-{name}"));
        copy_dir(ex, tmp.path());
        let r = sinew(&[
            "run",
            tmp.path().to_str().expect("utf-8"),
            "--headless",
            "--size",
            "64x48",
            "--frames",
            "600",
            "--fixed-dt",
            "0.0166667",
        ]);
        let expected = std::fs::read_to_string(ex.join("expected.txt")).expect("expected.txt");
        assert_eq!(r.status, 0, "example {name}: {}", r.show());
        assert_eq!(r.stdout, expected, "example {name}: {}", r.show());
        assert!(!r.stderr.contains("error"), "example {name}: {}", r.show());
    }
}

#[test]
fn the_code_on_the_pages_is_the_code_that_runs() {
    let mut shown = std::collections::BTreeSet::new();
    let mut outputs = std::collections::BTreeSet::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        for (kind, arg, body) in marked_blocks(&text) {
            match kind.as_str() {
                "file" => {
                    let file = docs().join(&arg);
                    let actual =
                        std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{}: no {arg}", page.display()));
                    assert_eq!(body, actual, "{}: the block for {arg} differs from the file", page.display());
                    shown.insert(arg);
                }
                "output" => {
                    let actual = std::fs::read_to_string(docs().join(&arg).join("expected.txt")).expect("expected.txt");
                    assert_eq!(body, actual, "{}: the output shown for {arg} differs", page.display());
                    outputs.insert(arg);
                }
                other => panic!("{}: unknown marker {other}", page.display()),
            }
        }
    }
    // Every example's scripts are on a page, with its output.
    for ex in examples() {
        let rel = format!("examples/{}", ex.file_name().expect("name").to_string_lossy());
        assert!(outputs.contains(&rel), "no page shows the output of {rel}");
        assert!(shown.iter().any(|s| s.starts_with(&rel) && s.ends_with(".script")), "no page shows a script of {rel}");
    }
}

#[test]
fn links_resolve_and_the_readme_points_here() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = pages();
    files.push(root.join("README.md"));
    for page in &files {
        let text = std::fs::read_to_string(page).expect("page");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = rest[..end].split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.contains(' ') {
                continue;
            }
            let path = page.parent().expect("dir").join(target);
            assert!(path.exists(), "{}: link to {target}, which does not exist", page.display());
        }
    }
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    for link in [
        "docs/README.md",
        "docs/porting-from-defold.md",
        "docs/editors.md",
        "docs/reliability.md",
        "docs/benchmarks.md",
        "docs/contributing.md",
    ] {
        assert!(readme.contains(&format!("]({link}")), "README.md does not link {link}");
    }
}

/// The README is the front page a newcomer reads in five minutes: what Sinew is, the two
/// commands, the tutorial, API coverage and links. The manual lives in docs/, the benchmark
/// table in docs/benchmarks.md.
#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README");
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines: move the detail into docs/ (at most 250)");
    for section in ["## The two commands", "## Five-minute tutorial", "## API coverage", "## Reliability"] {
        assert!(readme.lines().any(|l| l == section), "README.md has no `{section}`");
    }
    let benchmarks = std::fs::read_to_string(docs().join("benchmarks.md")).expect("benchmarks.md");
    let tables = benchmarks.lines().filter(|l| l.starts_with("| ---")).count();
    assert_eq!(tables, 1, "docs/benchmarks.md keeps one current benchmark table, not {tables}");
}

#[test]
fn example_models_are_the_generated_ones() {
    let glb = std::fs::read(docs().join("examples/animation/models/wiggler.glb")).expect("wiggler.glb");
    assert!(glb == sinew::project::gltf::samples::wiggler(), "docs/examples/animation/models/wiggler.glb is stale");
}

#[test]
fn the_editor_page_shows_the_luarc_that_sinew_new_writes() {
    let page = std::fs::read_to_string(docs().join("editors.md")).expect("editors.md");
    assert!(
        page.contains(&sinew::script::api_docs::luarc_json("annotations")),
        "docs/editors.md's .luarc.json is stale"
    );
}
