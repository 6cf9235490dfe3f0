//! `sinew bundle` (docs/bundle.md): the demo and a Defold example bundled, copied to a fresh
//! folder with nothing beside them and run there: the same picture and the same output as
//! `sinew run`; what the game does not reach is not packed; bad archives are errors.
mod common;
use common::*;
use sinew::project::archive::Archive;
use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// Bundles `project` into `tmp/out`, copies the result to `tmp/player` (nothing else there) and
/// returns the executable there.
fn bundle(project: &Path, tmp: &TempDir, extra: &[&str]) -> PathBuf {
    let out = tmp.path().join("out");
    let mut args = vec!["bundle", project.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    let r = sinew(&args);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("bundled"), "{}", r.show());
    let player = tmp.path().join("player");
    copy_dir(&out, &player);
    std::fs::read_dir(&player)
        .expect("player")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_none() && p.file_name().is_some_and(|n| n != "LICENSES.txt"))
        .expect("an executable")
}

/// Runs a bundled executable from its own folder (its working directory), headless.
fn play(exe: &Path, args: &[&str]) -> Run {
    let out = Command::new(exe)
        .args(args)
        .current_dir(exe.parent().expect("folder"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run the bundled game");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

fn demo_project(tmp: &TempDir) -> PathBuf {
    let dir = tmp.path().join("demo");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("content"), &dir);
    dir
}

#[test]
fn the_bundled_demo_runs_alone_as_sinew_run_does() {
    let tmp = TempDir::new("bundle-demo");
    let exe = bundle(&demo_project(&tmp), &tmp, &[]);
    assert_eq!(exe.file_name().and_then(|n| n.to_str()), Some("Sinew_demo"), "named after the title");
    let pak = exe.with_file_name("Sinew_demo.pak");
    let licences = std::fs::read_to_string(exe.with_file_name("LICENSES.txt")).expect("licences");
    assert!(licences.contains("DejaVu") && licences.contains("LuaJIT"), "{licences}");

    // What the demo reaches is in the archive; its two unused models are not.
    let a = Archive::parse("demo", std::fs::read(&pak).expect("archive")).expect("valid");
    for p in ["/project.json", "/main/main.collection", "/main/hero.script", "/models/humanoid.glb", "/sounds/wind.wav"]
    {
        assert!(a.get(p).is_some(), "{p} is packed");
    }
    for p in ["/models/face.glb", "/models/wiggler.glb"] {
        assert!(a.get(p).is_none(), "{p} is reached by nothing and must stay out");
    }

    // The same picture and the same printed output for a replayed session.
    let replay = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replays/demo_session.jsonl");
    let replay = replay.to_str().expect("utf-8");
    // The same session both ways: 390 frames of the recorded replay at 480x270.
    let session = |png: &Path| -> Vec<String> {
        ["--headless", "--frames", "390", "--size", "480x270", "--replay", replay, "--screenshot"]
            .iter()
            .map(|s| s.to_string())
            .chain([png.to_str().expect("utf-8").to_string()])
            .collect()
    };
    let (bundled_png, run_png) = (tmp.path().join("bundled.png"), tmp.path().join("run.png"));
    let args = session(&bundled_png);
    let b = play(&exe, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(b.status, 0, "{}", b.show());
    let args = session(&run_png);
    let run_args: Vec<&str> = ["run", "--no-watch"].into_iter().chain(args.iter().map(String::as_str)).collect();
    let r = sinew(&run_args);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(b.stdout, r.stdout, "the same printed output");
    assert!(b.stdout.contains("gem 1 picked up"), "{}", b.show());
    assert_eq!(std::fs::read(&bundled_png).expect("png"), std::fs::read(&run_png).expect("png"), "the same picture");
    // No watcher, no development messages.
    assert!(!b.stderr.contains("reload") && !b.stderr.contains("watch"), "{}", b.show());
}

#[test]
fn a_single_file_bundle_carries_its_archive() {
    let tmp = TempDir::new("bundle-single");
    let exe = bundle(&demo_project(&tmp), &tmp, &["--single-file"]);
    let names: Vec<String> = std::fs::read_dir(exe.parent().expect("folder"))
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".pak")), "no archive beside it: {names:?}");
    let r = play(&exe, &["--headless", "--frames", "2"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("Sinew demo"), "{}", r.show());
}

#[test]
fn a_defold_example_bundles_and_draws_the_same() {
    let tmp = TempDir::new("bundle-defold");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defold/sprite_tint");
    let exe = bundle(&dir, &tmp, &[]);
    let a = Archive::parse("x", std::fs::read(format!("{}.pak", exe.display())).expect("archive")).expect("valid");
    assert!(a.get("/game.project").is_some(), "Defold's settings file is packed");
    let (bundled, run) = (tmp.path().join("b.png"), tmp.path().join("r.png"));
    let b = play(
        &exe,
        &["--headless", "--frames", "5", "--fixed-dt", "0.016666668", "--screenshot", bundled.to_str().expect("utf-8")],
    );
    assert_eq!(b.status, 0, "{}", b.show());
    let r = sinew(&[
        "run",
        dir.to_str().expect("utf-8"),
        "--headless",
        "--no-watch",
        "--frames",
        "5",
        "--fixed-dt",
        "0.016666668",
        "--screenshot",
        run.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(std::fs::read(&bundled).expect("png"), std::fs::read(&run).expect("png"), "the same picture");
}

/// A Defold project's library files (mounted from its `.internal/lib`) are packed like its own:
/// the bundle runs them with the zip gone, and names no missing library.
#[test]
fn library_files_are_packed_and_not_warned_about() {
    let tmp = TempDir::new("bundle-library");
    let p = committed("defold_library");
    let exe = bundle(p.path(), &tmp, &[]);
    std::fs::remove_dir_all(p.path().join(".internal")).expect("the zip removed");
    let a = Archive::parse("x", std::fs::read(format!("{}.pak", exe.display())).expect("archive")).expect("valid");
    assert!(a.get("/twicelib/twice.lua").is_some() && a.get("/twicelib/spin.script").is_some());
    let r = play(&exe, &["--headless", "--frames", "4", "--fixed-dt", "0.25"]);
    assert_lua_passed(&r, "defold_library");
    assert!(!r.stderr.contains("library project"), "{}", r.show());
}

#[test]
fn custom_resources_and_required_modules_are_packed() {
    let tmp = TempDir::new("bundle-custom");
    let p = project(
        "bundle-custom-project",
        &[
            (
                "/project.json",
                r#"{ "title": "Custom", "main_collection": "/main/main.collection", "custom_resources": ["/data"] }"#,
            ),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/a.script" } ] } ] }"#,
            ),
            // The module is required only in update, after the traced first frame's init.
            (
                "/main/a.script",
                "function update(self) local m = require('lib.later'); print(m.word .. ' ' .. sys.load_resource('/data/level.txt')); sys.exit(0) end",
            ),
            ("/lib/later.lua", "return { word = 'later' }"),
            ("/data/level.txt", "level-one"),
            ("/unused.txt", "nobody reads me"),
        ],
    );
    let exe = bundle(p.path(), &tmp, &[]);
    let a = Archive::parse("x", std::fs::read(format!("{}.pak", exe.display())).expect("archive")).expect("valid");
    assert!(a.get("/unused.txt").is_none());
    let r = play(&exe, &["--headless", "--frames", "3"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("later level-one"), "{}", r.show());
}

#[test]
fn a_project_with_problems_is_refused() {
    let tmp = TempDir::new("bundle-bad");
    let p = project("bundle-bad-project", &[("/project.json", r#"{ "main_collection": "/main/missing.collection" }"#)]);
    let out = tmp.path().join("out");
    let r = sinew(&["bundle", p.path().to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("nothing was written"), "{}", r.show());
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_damaged_archive_is_a_clear_error() {
    let tmp = TempDir::new("bundle-damaged");
    let exe = bundle(&demo_project(&tmp), &tmp, &[]);
    let pak = PathBuf::from(format!("{}.pak", exe.display()));
    let bytes = std::fs::read(&pak).expect("archive");
    std::fs::write(&pak, &bytes[..bytes.len() / 2]).expect("truncate");
    let r = play(&exe, &["--headless", "--frames", "1"]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(
        r.stderr.contains("Sinew_demo.pak: not a valid game archive") && r.stderr.contains("truncated"),
        "{}",
        r.show()
    );
    let mut tampered = bytes.clone();
    let n = tampered.len();
    tampered[n - 100] ^= 0x55;
    std::fs::write(&pak, &tampered).expect("tamper");
    let r = play(&exe, &["--headless", "--frames", "1"]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("checksum"), "{}", r.show());
}

#[test]
fn a_collection_behind_a_proxy_is_packed_and_runs_from_the_bundle() {
    let tmp = TempDir::new("bundle-proxy");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects/api_proxy");
    let project = tmp.path().join("proxy");
    copy_dir(&dir, &project);
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lua"), &project.join("lua"));
    let exe = bundle(&project, &tmp, &[]);
    let a = Archive::parse("x", std::fs::read(format!("{}.pak", exe.display())).expect("archive")).expect("valid");
    for p in ["/level/level.collection", "/level/hero.script"] {
        assert!(a.get(p).is_some(), "{p}, reached only through the proxy, is packed");
    }
    let r = play(&exe, &["--headless", "--frames", "40"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("api_proxy: ") && r.stdout.contains(" passed, 0 failed"), "{}", r.show());
}
