//! Hostile projects and inputs, part three (issue 32's loader and command-line items): each is
//! built to break a loader or the command line and run through the real `sinew` binary, which
//! must answer with a clean error (or end) within seconds.
mod common;
use common::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);
const PROJECT: (&str, &str) = ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#);

fn run_within(dir: &std::path::Path, frames: u32, extra: &[&str]) -> Run {
    let frames = frames.to_string();
    let mut args = vec!["run", dir.to_str().expect("utf-8 path"), "--headless", "--size", "32x32", "--no-watch"];
    args.extend_from_slice(&["--frames", &frames, "--fixed-dt", "0.016"]);
    args.extend_from_slice(extra);
    sinew_within(&args, LIMIT)
}

fn check_within(dir: &std::path::Path) -> Run {
    sinew_within(&["check", dir.to_str().expect("utf-8 path")], LIMIT)
}

/// 22 collections of one object and two instances of the next (4,194,303 objects, under 5 KB):
/// 45 s and 3.5 GB before the first frame. `run` and `check` refuse it at once, naming the file
/// and the setting; the project's own `max_instances` is the one applied.
#[test]
fn collection_laughs_are_refused_by_run_and_check() {
    let mut files: Vec<(String, String)> = (0..22)
        .map(|i| {
            let text = if i < 21 {
                format!(
                    r#"{{ "objects": [ {{ "id": "o" }} ], "collections": [ {{ "id": "x", "collection": "/main/l{n}.collection" }}, {{ "id": "y", "collection": "/main/l{n}.collection" }} ] }}"#,
                    n = i + 1
                )
            } else {
                r#"{ "objects": [ { "id": "o" } ] }"#.to_string()
            };
            (format!("/main/l{i}.collection"), text)
        })
        .collect();
    files.push((
        "/main/main.collection".into(),
        r#"{ "collections": [ { "id": "bomb", "collection": "/main/l0.collection" } ] }"#.into(),
    ));
    files.push((
        "/project.json".into(),
        r#"{ "main_collection": "/main/main.collection", "max_instances": 500 }"#.into(),
    ));
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let p = project("laughs", &refs);
    for r in [run_within(p.path(), 1, &[]), check_within(p.path())] {
        assert_eq!(r.status, 1, "{}", r.show());
        assert!(
            r.stderr.contains("collection '/main/main.collection' expands to 4194303 game objects")
                && r.stderr.contains("more than max_instances (500;"),
            "{}",
            r.show()
        );
    }
}

/// `check` said fine and `run` failed: a main collection naming /project.json or a folder, a NUL
/// in the title, a 20000×20000 window. Both now refuse each with the same words.
#[test]
fn check_and_run_agree_on_project_settings() {
    let main = r#"{ "objects": [ { "id": "a" } ] }"#;
    let cases: [(&str, &str); 5] = [
        (r#"{ "main_collection": "/project.json" }"#, "main_collection '/project.json' must name a .collection file"),
        (r#"{ "main_collection": "/main" }"#, "main_collection '/main' must name a .collection file"),
        (r#"{ "main_collection": "/main/dir.collection" }"#, "'/main/dir.collection' is not a regular file"),
        (r#"{ "main_collection": "/main/main.collection", "title": "a\u0000b" }"#, "title must not contain a NUL"),
        (
            r#"{ "main_collection": "/main/main.collection", "window": { "width": 20000, "height": 20000 } }"#,
            "window width and height must be from 1 to 16384",
        ),
    ];
    for (settings, needle) in cases {
        let p = project("agree", &[("/project.json", settings), ("/main/main.collection", main)]);
        std::fs::create_dir_all(p.path().join("main/dir.collection")).expect("mkdir");
        let (run, check) = (run_within(p.path(), 1, &[]), check_within(p.path()));
        for r in [&run, &check] {
            assert_eq!(r.status, 1, "{settings}\n{}", r.show());
            assert!(r.stderr.contains(needle), "{settings}: expected {needle:?}\n{}", r.show());
        }
    }
}

/// `--replay` of a FIFO blocked for ever; `/dev/zero` was read to 1.8 GB before the error.
#[cfg(unix)]
#[test]
fn replay_of_a_fifo_or_a_device_is_refused_at_once() {
    let p = project("replay_special", &[PROJECT, ("/main/main.collection", r#"{ "objects": [ { "id": "a" } ] }"#)]);
    let fifo = p.path().join("events.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    for file in [fifo.to_str().expect("utf-8"), "/dev/zero"] {
        let r = run_within(p.path(), 1, &["--replay", file]);
        assert_eq!(r.status, 1, "{file}\n{}", r.show());
        assert!(r.stderr.contains(&format!("{file}: cannot read replay file: not a regular file")), "{}", r.show());
    }
    let long = p.path().join("long.jsonl");
    std::fs::write(&long, vec![b' '; 200_000]).expect("write");
    let r = run_within(p.path(), 1, &["--replay", long.to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("long.jsonl:1: line longer than 65536 bytes"), "{}", r.show());
}

/// Issue 32 item 2: an `xpcall` whose handler loops after the body is stopped; issue 32 item 9:
/// a load that does not come back (here a top-level loop that swallows the interruption). One
/// SIGINT left both running (only a second one ended them). Now the first ends the run: cleanly
/// if the scripts return, else after the grace period with status 130.
#[test]
fn the_first_sigint_ends_a_run_that_does_not_come_back() {
    let handler = "function update(self)\n  print('looping')\n  xpcall(function() while true do end end, function(e) while true do end end)\nend\n";
    let load = "print('looping')\nwhile true do pcall(function() while true do end end) end\n";
    for (tag, script) in [("handler", handler), ("load", load)] {
        let p = project(
            tag,
            &[
                ("/project.json", r#"{ "main_collection": "/main/main.collection", "script_time_limit": 0 }"#),
                (
                    "/main/main.collection",
                    r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/s.script" } ] } ] }"#,
                ),
                ("/main/s.script", script),
            ],
        );
        let dir = p.path().to_str().expect("utf-8 path");
        let mut running = spawn_sinew(&["run", dir, "--headless", "--size", "32x32", "--no-watch"]);
        running.wait_for_stdout("looping", LIMIT);
        // Long enough for LuaJIT to have compiled the loop: the hook must reach compiled code.
        std::thread::sleep(Duration::from_millis(300));
        running.signal("INT");
        let r = running.finish_within(LIMIT);
        assert!(r.status == 0 || r.status == 130, "{tag}\n{}", r.show());
        if r.status == 130 {
            assert!(r.stderr.contains("interrupted, and the run did not end within 2 s"), "{tag}\n{}", r.show());
        }
    }
}

/// `sinew inspect FILE | head`: the reader leaves early; the command ends quietly instead of
/// panicking with "failed printing to stdout: Broken pipe".
#[cfg(unix)]
#[test]
fn inspect_into_a_closed_pipe_exits_quietly() {
    let dir = TempDir::new("pipe");
    // Enough vertices that the JSON is far past a pipe's buffer.
    let mut obj = String::new();
    for k in 0..20_000 {
        obj.push_str(&format!("v {k} 0 0\nv {k} 1 0\nv {k} 0 1\nf -3 -2 -1\n"));
    }
    dir.write("/big.obj", &obj);
    let model = dir.path().join("big.obj");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["inspect", model.to_str().expect("utf-8"), "--vertices", "-"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn sinew");
    // `head` that has read nothing yet and is gone.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// `check` stopped at an unknown component type and hid the missing model and script beside it.
#[test]
fn check_lists_every_problem_beside_an_unknown_component_type() {
    let p = project(
        "unknown_type",
        &[
            PROJECT,
            (
                "/main/main.collection",
                r#"{ "objects": [ { "id": "a", "components": [
                    { "id": "s", "type": "spinemodel" },
                    { "id": "m", "type": "model", "model": "/main/missing.model" },
                    { "id": "c", "type": "script", "script": "/main/missing.script" } ] } ] }"#,
            ),
        ],
    );
    let r = check_within(p.path());
    assert_eq!(r.status, 1, "{}", r.show());
    for needle in
        ["unknown component type 'spinemodel'", "'/main/missing.model' not found", "'/main/missing.script' not found"]
    {
        assert!(r.stderr.contains(needle), "{needle}\n{}", r.show());
    }
    assert!(r.stderr.contains("3 problem(s) found"), "{}", r.show());
}
