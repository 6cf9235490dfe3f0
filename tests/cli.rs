//! Runs the real `sinew` binary on small projects: the Lua API test projects, the frame order,
//! error reporting and the command line.
mod common;
use common::*;

const PROJECT: &str = r#"{ "main_collection": "/main/main.collection" }"#;

fn one_script(tag: &str, script: &str) -> TempDir {
    project(
        tag,
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "obj", "components": [
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", script),
        ],
    )
}

#[test]
fn lua_api_go() {
    let p = committed("api_go");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "api_go");
    assert!(r.stdout.contains("final doomed\thash: [/doomed]"), "{}", r.show());
}

/// An instance's own transform read and written in `update` without a call (the scene's
/// transform view), including after spawning moves the arrays: `tests/projects/own_transform`.
#[test]
fn lua_own_transform_direct_path() {
    let p = committed("own_transform");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "own_transform");
}

#[test]
fn lua_api_msg() {
    let p = committed("api_msg");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "api_msg");
    assert!(
        r.stderr.contains(
            "Instance '/nobody' could not be found when dispatching message 'lost' sent from main:/tester#script"
        ),
        "{}",
        r.show()
    );
}

/// Messages are delivered to scripts in runs, one call into Lua for many: the queue's order
/// holds, across scripts and around the engine's own handling of a message, and an error in one
/// on_message is reported with its place and loses none of the messages after it.
#[test]
fn messages_keep_their_order_in_runs_and_after_errors() {
    let p = committed("api_msg_order");
    let r = run_project(p.path(), 4, &[]);
    assert_lua_passed(&r, "api_msg_order");
    for (script, line) in [("order_test.script", 30), ("record.script", 3)] {
        let at = format!("/main/{script}:{line}:");
        assert!(r.stderr.contains(&at), "the error names {at}\n{}", r.show());
    }
    assert_eq!(r.stderr.matches("boom in").count(), 2, "each error reported once\n{}", r.show());
}

#[test]
fn frame_order_follows_the_spec() {
    let s = r##"
function init(self) print("init") msg.post(".", "from_init") end
function update(self, dt) print("update " .. dt) msg.post(".", "from_update") end
function late_update(self, dt) print("late_update " .. dt) end
function on_message(self, id) print("on_message " .. tostring(id)) if id == hash("from_update") then sys.exit(0) end end
function final(self) print("final") end
"##;
    let p = one_script("order", s);
    let r = run_project(p.path(), 5, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "init",
            "on_message hash: [from_init]",
            "update 0.25",
            "on_message hash: [from_update]",
            "late_update 0.25",
            "final"
        ],
        "{}",
        r.show()
    );
}

#[test]
fn runtime_errors_in_every_callback_are_reported_and_the_game_goes_on() {
    for cb in ["init", "update", "late_update", "on_message", "final"] {
        let s = format!(
            r#"
local util = require "main.util"
function init(self) msg.post(".", "m") {i} end
function update(self, dt) {u} end
function late_update(self, dt) {l} end
function on_message(self) {o} end
function final(self) {f} end
"#,
            i = if cb == "init" { "local x = nil; x.boom = 1" } else { "" },
            u = if cb == "update" { "util.explode()" } else { "" },
            l = if cb == "late_update" { "error('late')" } else { "" },
            o = if cb == "on_message" { "local t = {} .. 1" } else { "" },
            f = if cb == "final" { "error('in final')" } else { "" },
        );
        let p = project(
            cb,
            &[
                ("/project.json", PROJECT),
                (
                    "/main/main.collection",
                    r#"{ "name": "main", "objects": [
                        { "id": "bad", "components": [ { "id": "script", "type": "script", "script": "/main/bad.script" } ] },
                        { "id": "good", "components": [ { "id": "script", "type": "script", "script": "/main/good.script" } ] } ] }"#,
                ),
                ("/main/bad.script", &s),
                ("/main/util.lua", "local M = {}\nfunction M.explode()\n  error('module failed')\nend\nreturn M\n"),
                ("/main/good.script", "function update(self) self.n = (self.n or 0) + 1 print('good ' .. self.n) end"),
            ],
        );
        let r = run_project(p.path(), 3, &[]);
        assert_eq!(r.status, 0, "{cb}: {}", r.show());
        assert!(r.stdout.contains("good 3"), "{cb}: other objects and later frames run\n{}", r.show());
        let (file_line, text) = match cb {
            "init" => ("/main/bad.script:3:", "attempt to index local 'x' (a nil value)"),
            "update" => ("/main/util.lua:3:", "module failed"),
            "late_update" => ("/main/bad.script:5:", "late"),
            "on_message" => ("/main/bad.script:6:", "attempt to concatenate"),
            _ => ("/main/bad.script:7:", "in final"),
        };
        assert!(r.stderr.contains(file_line) && r.stderr.contains(text), "{cb}: {}", r.show());
        assert!(r.stderr.contains("stack traceback:"), "{cb}: traceback\n{}", r.show());
        if cb == "update" {
            // Identical errors are folded (issue 19): the first in full, then a count.
            let n = r.stderr.matches("module failed").count();
            assert_eq!(n, 2, "reported once in full, then summarised: {}", r.show());
            assert!(r.stderr.contains("… repeated 2 times: /main/util.lua:3: module failed"), "{}", r.show());
            assert!(r.stderr.contains("/main/bad.script:4:"), "traceback names the caller: {}", r.show());
        }
    }
}

fn expect_load_error(tag: &str, files: &[(&str, &str)], needles: &[&str]) {
    let p = project(tag, files);
    let r = run_project(p.path(), 2, &[]);
    assert_eq!(r.status, 1, "{tag}: {}", r.show());
    for n in needles {
        assert!(r.stderr.contains(n), "{tag}: expected '{n}'\n{}", r.show());
    }
    assert!(!r.stderr.contains("panicked"), "{tag}: {}", r.show());
}

fn collection_with(script: &str) -> String {
    format!(
        r#"{{ "name": "main", "objects": [ {{ "id": "obj", "components": [
            {{ "id": "script", "type": "script", "script": "{script}" }} ] }} ] }}"#
    )
}

#[test]
fn load_errors_stop_with_status_1_and_name_the_file() {
    let coll = collection_with("/main/s.script");
    expect_load_error(
        "syntax",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &coll),
            ("/main/s.script", "function init(self)\n  x = = 1\nend\n"),
        ],
        &["/main/s.script:2:"],
    );
    expect_load_error(
        "missing_script",
        &[("/project.json", PROJECT), ("/main/main.collection", &collection_with("/main/nope.script"))],
        &["/main/main.collection", "/main/nope.script", "not found"],
    );
    expect_load_error(
        "missing_module",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &coll),
            ("/main/s.script", "local m = require 'main.nothing'\n"),
        ],
        &["/main/s.script:1:", "main.nothing", "/main/nothing.lua"],
    );
    expect_load_error(
        "module_syntax",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &coll),
            ("/main/s.script", "local m = require 'main.m'\n"),
            ("/main/m.lua", "local M = {}\nreturn M M\n"),
        ],
        &["/main/m.lua:2:"],
    );
    expect_load_error(
        "module_error",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &coll),
            ("/main/s.script", "local m = require 'main.m'\n"),
            ("/main/m.lua", "local M = {}\nerror('module top level failed')\nreturn M\n"),
        ],
        &["/main/m.lua:2: module top level failed"],
    );
    expect_load_error(
        "callback_not_function",
        &[("/project.json", PROJECT), ("/main/main.collection", &coll), ("/main/s.script", "update = 5\n")],
        &["The global name 'update' in '/main/s.script' must be a function."],
    );
    expect_load_error(
        "bad_json",
        &[("/project.json", PROJECT), ("/main/main.collection", "{ \"name\": \"main\",\n  \"objects\": [ }")],
        &["/main/main.collection:2:"],
    );
    expect_load_error(
        "misspelt",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                "{ \"name\": \"main\", \"objects\": [\n { \"id\": \"a\", \"posiiton\": [0, 0, 0] } ] }",
            ),
        ],
        &["/main/main.collection:2:", "posiiton"],
    );
    expect_load_error(
        "wrong_type",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                "{ \"name\": \"main\", \"objects\": [\n { \"id\": \"a\", \"position\": \"up\" } ] }",
            ),
        ],
        &["/main/main.collection:2:"],
    );
    expect_load_error("project_json", &[("/project.json", "{ \"main_collection\": 5 }")], &["/project.json:1:"]);
    expect_load_error(
        "cycle",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                r#"{ "name": "main", "collections": [ { "id": "a", "collection": "/main/a.collection" } ] }"#,
            ),
            (
                "/main/a.collection",
                r#"{ "name": "a", "collections": [ { "id": "b", "collection": "/main/main.collection" } ] }"#,
            ),
        ],
        &["collection cycle", "/main/a.collection"],
    );
    expect_load_error(
        "unknown_component",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [ { "id": "s", "type": "spinemodel" } ] } ] }"#,
            ),
        ],
        &["/main/main.collection", "unknown component type 'spinemodel'"],
    );
    expect_load_error(
        "escape",
        &[("/project.json", PROJECT), ("/main/main.collection", &collection_with("/../outside.script"))],
        &["/main/main.collection", "escapes the project root"],
    );
    expect_load_error(
        "bad_override",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "obj", "components": [
                    { "id": "script", "type": "script", "script": "/main/s.script", "properties": { "speed": "fast" } } ] } ] }"#,
            ),
            ("/main/s.script", "go.property('speed', 1)\n"),
        ],
        &["speed", "/main/s.script"],
    );
    let missing = TempDir::new("nodir");
    let r = sinew(&["run", missing.path().join("absent").to_str().unwrap_or(""), "--headless", "--frames", "1"]);
    assert_eq!(r.status, 1, "{}", r.show());
}

#[test]
fn unknown_ids_raise_lua_errors_and_bad_receivers_are_logged() {
    let s = r##"
function init(self)
  local ok, e = pcall(go.get_position, "/ghost") print(e)
  ok, e = pcall(go.set, "/ghost", "position", vmath.vector3()) print(e)
  msg.post("/ghost", "boo")
  msg.post("#nothing", "boo")
end
"##;
    let p = one_script("ghost", s);
    let r = run_project(p.path(), 2, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("/main/s.script:3: Instance /ghost not found"), "{}", r.show());
    assert!(r.stdout.contains("/main/s.script:4: Could not find any instance with id '/ghost'."), "{}", r.show());
    assert!(r.stderr.contains("Instance '/ghost' could not be found when dispatching message 'boo'"), "{}", r.show());
    assert!(r.stderr.contains("Component '/obj#nothing' could not be found"), "{}", r.show());
}

#[test]
fn sys_exit_sets_the_status_and_final_runs() {
    let p = one_script("exit", "function update(self) sys.exit(7) end\nfunction final(self) print('bye') end\n");
    let r = run_project(p.path(), 100, &[]);
    assert_eq!(r.status, 7, "{}", r.show());
    assert!(r.stdout.contains("bye"), "{}", r.show());
}

/// A run ends the process without taking the game down (`end_process` in src/app/run.rs): what
/// a script wrote through C's stdio, to a file it never closed and to stdout without a line
/// end, still arrives, and so does the screenshot.
#[test]
fn a_run_ends_with_everything_written() {
    let dir = TempDir::new("unclosed");
    let file = dir.path().join("unclosed.txt");
    let script = format!(
        "function final(self)\n  local f = assert(io.open({:?}, 'w'))\n  f:write('written, never closed')\n  io.write('no line end')\nend\n",
        file.to_str().expect("utf-8 path")
    );
    let p = one_script("unclosed", &script);
    let shot = dir.path().join("shot.png");
    let r = run_project(p.path(), 2, &["--screenshot", shot.to_str().expect("utf-8 path")]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.ends_with("no line end"), "{}", r.show());
    let written = std::fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(written, "written, never closed", "{}", r.show());
    assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 0), "{}", r.show());
}

#[test]
fn print_and_pprint() {
    let s = r##"
function init(self)
  print("a", 1, nil, true, vmath.vector3(1, 2.5, 3), hash("h"))
  pprint({ x = 1, list = { 1, 2 }, v = vmath.vector3(0.1, 0, 0) })
  pprint(msg.url())
end
"##;
    let p = one_script("print", s);
    let r = run_project(p.path(), 1, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("a\t1\tnil\ttrue\tvmath.vector3(1, 2.5, 3)\thash: [h]"), "{}", r.show());
    assert!(r.stdout.contains("v = vmath.vector3(0.1, 0, 0)"), "{}", r.show());
    assert!(r.stdout.contains("list = {\n    1,\n    2\n  },") || r.stdout.contains("[1] = 1"), "{}", r.show());
    assert!(r.stdout.contains("url: [main:/obj#script]"), "{}", r.show());
}

#[test]
fn demo_runs_headless_and_is_deterministic() {
    let dir = TempDir::new("demo");
    let a = dir.path().join("a.png");
    let b = dir.path().join("b.png");
    let r1 =
        sinew(&["run", "--headless", "--frames", "160", "--size", "160x90", "--screenshot", a.to_str().unwrap_or("")]);
    let r2 =
        sinew(&["run", "--headless", "--frames", "160", "--size", "160x90", "--screenshot", b.to_str().unwrap_or("")]);
    assert_eq!(r1.status, 0, "{}", r1.show());
    assert!(r1.stdout.contains("Sinew demo"), "{}", r1.show());
    // The attract mode walks the hero to the first gem, which tells the hero when it pops.
    assert!(r1.stdout.contains("gem 1 picked up at 2.5 s"), "{}", r1.show());
    assert_eq!(r1.stdout, r2.stdout);
    let (ia, ib) = (std::fs::read(&a).expect("screenshot a"), std::fs::read(&b).expect("screenshot b"));
    assert_eq!(ia, ib, "same pixels on the same machine");
    let auto = sinew(&["--version"]);
    assert_eq!(auto.status, 0);
}

#[test]
fn no_display_falls_back_to_headless_with_one_line() {
    let p = one_script("auto", "function init(self) print('ok') end");
    let r = sinew(&["run", p.path().to_str().unwrap_or(""), "--frames", "1"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(r.stderr.matches("running headless").count(), 1, "{}", r.show());
}

#[test]
fn stats_prints_one_json_line() {
    let p = one_script("stats", "function update(self) end");
    let r = run_project(p.path(), 4, &["--stats"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let line = r.stderr.lines().find(|l| l.starts_with('{')).expect("stats line");
    let v: serde_json::Value = serde_json::from_str(line).expect("json");
    assert_eq!(v["frames"], 4);
    for phase in ["scripts", "tweens", "animation", "transforms", "render"] {
        assert!(v[phase]["p99_ms"].is_number(), "{phase}: {line}");
    }
}

/// `--stats` says where start-up went (issue 40): each step's milliseconds, adding up to the
/// total to the first frame, and the peak resident memory.
#[test]
fn stats_break_down_the_start_up_and_say_the_peak_memory() {
    let p = one_script("stats-startup", "function update(self) end");
    let r = run_project(p.path(), 2, &["--stats"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let line = r.stderr.lines().find(|l| l.starts_with('{')).expect("stats line");
    let v: serde_json::Value = serde_json::from_str(line).expect("json");
    let steps = [
        "resources",
        "project_files",
        "world",
        "lua_state",
        "spawn",
        "init",
        "gl_context",
        "renderer",
        "audio_and_watcher",
        "first_frame",
    ];
    let mut sum = 0.0;
    for step in steps {
        let ms = v["startup"][format!("{step}_ms")].as_f64().unwrap_or(-1.0);
        assert!(ms >= 0.0, "{step}: {line}");
        sum += ms;
    }
    let total = v["startup"]["total_ms"].as_f64().expect("total");
    assert!((sum - total).abs() < 1e-6 && total > 0.0, "the steps add up to the total: {line}");
    assert!(v["peak_rss_mib"].as_f64().is_some_and(|m| m > 1.0), "{line}");
}

/// `--stats` says where the drawing goes, pass by pass, for the first frame (most of the
/// start-up) and as a median: every pass named, none negative, and the first frame's passes
/// inside the first frame's start-up step (each pass is waited for, so none hides in another).
#[test]
fn stats_split_the_drawing_into_passes() {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content");
    let r = run_project(&demo, 3, &["--stats", "--no-watch"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let line = r.stderr.lines().find(|l| l.starts_with('{')).expect("stats line");
    let v: serde_json::Value = serde_json::from_str(line).expect("json");
    let passes = v["passes"].as_object().expect("passes");
    let mut names: Vec<&str> = passes.keys().map(String::as_str).collect();
    names.sort();
    let mut expected = ["shadow", "models", "sprites", "overlay", "gui"];
    expected.sort();
    assert_eq!(names, expected, "{line}");
    let mut first = 0.0;
    for (name, p) in passes {
        for key in ["first_ms", "median_ms"] {
            assert!(p[key].as_f64().is_some_and(|ms| ms >= 0.0 && ms.is_finite()), "{name} {key}: {line}");
        }
        first += p["first_ms"].as_f64().unwrap_or(0.0);
    }
    let frame = v["startup"]["first_frame_ms"].as_f64().expect("first frame");
    assert!(
        first > 0.0 && first <= frame,
        "the first frame's passes ({first} ms) within its step ({frame} ms): {line}"
    );
}

#[test]
fn bad_usage_exits_2() {
    for args in [&["run", "--frames", "x"][..], &["run", "--size", "10"], &["fly"], &["run", "--fixed-dt", "-1"]] {
        let r = sinew(args);
        assert_eq!(r.status, 2, "{args:?}: {}", r.show());
    }
}

#[test]
fn check_lists_every_problem() {
    let p = project(
        "check",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &collection_with("/main/s.script")),
            ("/main/s.script", "function init(self) end\n"),
            ("/main/broken.script", "function init(self)\n  if then\nend\n"),
            ("/main/broken.lua", "return {\n"),
            ("/main/other.collection", "{ \"objects\": 3 }"),
        ],
    );
    let r = sinew(&["check", p.path().to_str().unwrap_or("")]);
    assert_eq!(r.status, 1, "{}", r.show());
    for n in ["/main/broken.script:2:", "/main/broken.lua:", "/main/other.collection:1:", "3 problem(s)"] {
        assert!(r.stderr.contains(n), "{n}\n{}", r.show());
    }
    let good = one_script("check_ok", "function init(self) end\n");
    let r = sinew(&["check", good.path().to_str().unwrap_or("")]);
    assert_eq!(r.status, 0, "{}", r.show());
}

/// The lines of `stderr` that point into `file`, without the log's level tag: the load problems.
fn problems_in(stderr: &str, file: &str) -> std::collections::BTreeSet<String> {
    stderr
        .lines()
        .map(|l| l.strip_prefix("ERROR: ").unwrap_or(l))
        .filter(|l| l.starts_with(file))
        .map(str::to_string)
        .collect()
}

#[test]
fn check_reports_every_load_problem_run_refuses() {
    let p = committed("check_agrees");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/wiggler.glb"), sinew::project::gltf::samples::wiggler()).expect("wiggler");
    let dir = p.path().to_str().unwrap_or("");
    let check = sinew(&["check", dir]);
    let run = run_project(p.path(), 2, &[]);
    assert_eq!(check.status, 1, "{}", check.show());
    assert_eq!(run.status, 1, "{}", run.show());
    assert!(!run.stdout.contains("init ran"), "run refused before init: {}", run.show());
    let expected = [
        "/main/main.collection:10:21: script '/main/hero.script' has no property 'sped' to override",
        "/main/main.collection:11:21: property 'tint' of script '/main/hero.script' is a vector4, this override is a vector3",
        "/main/main.collection:12:21: property 'name' of script '/main/hero.script' is a string, this override is a hash",
        "/main/main.collection:13:21: property 'home': could not parse URL 'main:/a#b#c'",
        "/main/main.collection:19:19: rotation quaternion must not be zero",
        "/main/main.collection:21:95: default_animation 'wigle' not found (animations: wiggle)",
        "/main/main.collection:26:31: camera 'camera': far must be greater than near",
    ];
    for (name, r) in [("check", &check), ("run", &run)] {
        for e in expected {
            assert!(r.stderr.lines().any(|l| l.contains(e)), "{name}: expected '{e}'\n{}", r.show());
        }
    }
    assert!(check.stderr.contains("7 problem(s)"), "{}", check.show());
    // One validation path: the same problems, word for word, from both commands.
    assert_eq!(problems_in(&check.stderr, "/main/main.collection"), problems_in(&run.stderr, "/main/main.collection"));
    assert!(!run.stderr.contains("property 'speed'"), "the valid override is not reported: {}", run.show());
}

#[test]
fn check_reports_a_shared_problem_once_with_its_position() {
    let p = project(
        "check_once",
        &[
            ("/project.json", PROJECT),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "prototype": "/main/walker.go" } ],
  "collections": [ { "id": "level", "collection": "/main/level.collection" } ] }"#,
            ),
            (
                "/main/level.collection",
                r#"{ "objects": [ { "id": "b", "prototype": "/main/walker.go" }, { "id": "c", "prototype": "/main/walker.go" } ] }"#,
            ),
            (
                "/main/walker.go",
                "{ \"components\": [ { \"id\": \"script\", \"type\": \"script\", \"script\": \"/main/w.script\",\n    \"properties\": { \"speed\": true } } ] }",
            ),
            ("/main/w.script", "go.property('speed', 1)\n"),
        ],
    );
    let r = sinew(&["check", p.path().to_str().unwrap_or("")]);
    assert_eq!(r.status, 1, "{}", r.show());
    let line =
        "/main/walker.go:2:30: property 'speed' of script '/main/w.script' is a number, this override is a boolean";
    assert_eq!(r.stderr.matches(line).count(), 1, "{}", r.show());
    assert!(r.stderr.contains("1 problem(s)"), "{}", r.show());
    let r = run_project(p.path(), 2, &[]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert_eq!(r.stderr.matches(line).count(), 1, "run reports it once too: {}", r.show());
}

#[test]
fn lua_near_fails_for_values_that_are_not_close() {
    let script = r#"
local T = require "lua.test_helpers"
function init(self)
  T.near("1", 1, 1e-5, "a string is not a number")
  T.near("abc", vmath.vector3(1, 2, 3), 1e-5, "a string is not a vector3")
  T.near({ x = 1, y = 2, z = 3 }, vmath.vector3(1, 2, 3), 1e-5, "a table is not a vector3")
  T.near(nil, vmath.vector3(1, 2, 3), 1e-5, "nil is not a vector3")
  T.near(nil, 1, 1e-5, "nil is not a number")
  T.near(vmath.vector4(1, 2, 3, 0), vmath.vector3(1, 2, 3), 1e-5, "a vector4 is not a vector3")
  T.near(0 / 0, 0, 1e-5, "NaN is not near anything")
  T.near(vmath.vector3(1, 2, 3), vmath.vector3(1, 2, 3.1), 1e-5, "z is off")
  T.near(vmath.quat(0, 0, 0, 1), vmath.quat(0, 0, 0, -1), 1e-5, "w is off")
  T.near(1, "1", 1e-5, "the expected value is a string")
  T.near(vmath.vector3(1, 2, 3), vmath.vector3(1, 2, 3 + 1e-7), 1e-5, "passes: same vector")
  T.near(2, 2 + 1e-7, 1e-5, "passes: close numbers")
  T.near(vmath.vector({ 1, 2 }), vmath.vector({ 1, 2 }), 1e-5, "passes: same vector(n)")
  T.done("near")
end
"#;
    let p = one_script("near", script);
    let r = run_project(p.path(), 2, &[]);
    assert!(r.stdout.contains("near: 3 passed, 10 failed"), "{}", r.show());
    assert_eq!(r.status, 1, "{}", r.show());
    for m in ["a string is not a number", "a table is not a vector3", "nil is not a vector3", "NaN is not near"] {
        assert!(r.stdout.lines().any(|l| l.starts_with("FAIL ") && l.contains(m)), "{m}\n{}", r.show());
    }
    assert!(!r.stdout.contains("passes:"), "a close value failed: {}", r.show());
}

#[test]
fn sigterm_ends_the_run_cleanly() {
    // `started` is printed from the first update, when the window (and SDL's signal handling) exists.
    let p = one_script(
        "sigterm",
        "function update(self) if not self.s then self.s = true print('started') end end\nfunction final(self) print('final called') end\n",
    );
    let shot = p.path().join("shot.png");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["run", p.path().to_str().unwrap_or(""), "--headless", "--size", "32x32"])
        .arg("--screenshot")
        .arg(&shot)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout_pipe = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout_pipe, &mut first).expect("read");
    assert_eq!(first.trim(), "started");
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut stdout_pipe, &mut stdout).expect("read rest");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("final called"), "{stdout}");
    assert!(shot.exists(), "screenshot written on SIGTERM");
}

/// `sinew luajit FILE ARGS…` (hidden, for scripts/bench.sh's floors): plain LuaJIT with `arg`,
/// no Sinew API, errors on stderr with exit status 1.
#[test]
fn luajit_runs_plain_lua_files() {
    let dir = project(
        "luajit",
        &[
            ("/ok.lua", "print(arg[1], arg[2], jit ~= nil, go == nil, msg == nil)"),
            ("/bad.lua", "local x = nil\nprint(x.y)"),
        ],
    );
    let ok = dir.path().join("ok.lua");
    let r = sinew(&["luajit", ok.to_str().unwrap(), "65000", "-5"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(r.stdout.trim(), "65000\t-5\ttrue\ttrue\ttrue", "{}", r.show());
    let bad = dir.path().join("bad.lua");
    let r = sinew(&["luajit", bad.to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("bad.lua:2:"), "{}", r.show());
}
