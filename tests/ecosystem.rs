//! What a new user meets first: `sinew new`, the Defold-folder hint, and the hints for hash and
//! URL values written as plain strings.
mod common;
use common::{TempDir, project, run_project, sinew};
use std::path::Path;

#[test]
fn sinew_new_writes_a_project_that_checks_and_runs() {
    starter_checks_and_runs(&[], &["project.json"]);
}

/// `--defold`: the same game in Defold's formats, read by Sinew's Defold loader.
#[test]
fn sinew_new_defold_writes_a_defold_project_that_checks_and_runs() {
    let dir = starter_checks_and_runs(&["--defold"], &["game.project", "main/hero.go", "main/ground.model"]);
    assert!(!dir.path().join("my_game/project.json").exists(), "a Defold project has no project.json");
    let collection = std::fs::read_to_string(dir.path().join("my_game/main/main.collection")).expect("collection");
    assert!(collection.starts_with("name: \"main\"\ninstances {"), "Defold's text format:\n{collection}");
}

/// Writes the starter with `flags`, checks it has the common files and `own`, that `sinew check`
/// finds nothing, that the hero shows and that space makes it wave. The temp dir holds it in
/// `my_game`.
fn starter_checks_and_runs(flags: &[&str], own: &[&str]) -> TempDir {
    let tmp = TempDir::new("new");
    let dir = tmp.path().join("my_game");
    let d = dir.to_str().expect("utf-8");
    let mut args = vec!["new", d];
    args.extend_from_slice(flags);
    let made = sinew(&args);
    assert_eq!(made.status, 0, "{}", made.show());
    for f in [
        "main/main.collection",
        "main/hero.script",
        "main/hero.model",
        "input/game.input_binding",
        "models/humanoid.glb",
        ".luarc.json",
        ".vscode/settings.json",
        "annotations/sinew.lua",
        "annotations/go.lua",
        "annotations/model.lua",
        "annotations/vmath.lua",
    ]
    .iter()
    .chain(own)
    {
        assert!(dir.join(f).is_file(), "sinew new did not write {f}");
    }
    let luarc = std::fs::read_to_string(dir.join(".luarc.json")).expect("luarc");
    let parsed: serde_json::Value = serde_json::from_str(&luarc).expect(".luarc.json is JSON");
    assert_eq!(parsed["workspace.library"][0], "annotations");
    // `inspect` takes the model component file too (either format), and reports its mesh.
    let model = dir.join("main/hero.model");
    let inspected = sinew(&["inspect", model.to_str().expect("utf-8")]);
    assert_eq!(inspected.status, 0, "{}", inspected.show());
    assert!(inspected.stdout.starts_with("/main/hero.model (project "), "{}", inspected.show());
    assert!(inspected.stdout.contains("  mesh /models/humanoid.glb\n"), "{}", inspected.show());
    assert!(inspected.stdout.contains("\"wave\""), "the mesh's clips are listed: {}", inspected.show());
    let checked = sinew(&["check", d]);
    assert_eq!(checked.status, 0, "{}", checked.show());
    assert!(checked.stdout.contains("no problems found"), "{}", checked.show());
    let shot = tmp.path().join("shot.png");
    let shot_s = shot.to_str().expect("utf-8");
    let ran = sinew(&["run", d, "--headless", "--frames", "60", "--size", "160x90", "--screenshot", shot_s]);
    assert_eq!(ran.status, 0, "{}", ran.show());
    assert!(!ran.stderr.contains("error"), "{}", ran.show());
    // The hero shows: its shirt and skin are the only red-dominant pixels (sky is blue, the
    // ground green).
    let img = sinew::render::Image::load_png(&shot).expect("screenshot");
    let mut hero = 0;
    for y in 0..img.height {
        for x in 0..img.width {
            let [r, g, b, _] = img.pixel(x, y).expect("pixel");
            if r as i32 > g as i32 + 20 && r as i32 > b as i32 + 20 {
                hero += 1;
            }
        }
    }
    assert!(hero >= 20, "only {hero} hero pixels in the starter's screenshot");
    // The script reacts to its key: space (bound to "wave") plays the wave clip.
    let replay = tmp.path().join("space.replay");
    std::fs::write(
        &replay,
        "{\"frame\": 3, \"type\": \"key\", \"input\": \"KEY_SPACE\", \"down\": true}\n\
         {\"frame\": 4, \"type\": \"key\", \"input\": \"KEY_SPACE\", \"down\": false}\n",
    )
    .expect("replay");
    let waved = sinew(&[
        "run",
        d,
        "--headless",
        "--frames",
        "60",
        "--size",
        "64x48",
        "--fixed-dt",
        "0.0166667",
        "--replay",
        replay.to_str().expect("utf-8"),
    ]);
    assert_eq!(waved.status, 0, "{}", waved.show());
    assert_eq!(waved.stdout.lines().filter(|l| *l == "wave").count(), 1, "{}", waved.show());
    assert!(!waved.stderr.contains("has no animation"), "{}", waved.show());
    tmp
}

#[test]
fn sinew_new_refuses_to_overwrite() {
    let tmp = TempDir::new("new-refuse");
    let dir = tmp.path().join("game");
    std::fs::create_dir_all(dir.join("main")).expect("mkdir");
    std::fs::write(dir.join("main/hero.script"), "-- mine\n").expect("write");
    std::fs::write(dir.join("notes.txt"), "mine\n").expect("write");
    let r = sinew(&["new", dir.to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("refusing to overwrite") && r.stderr.contains("hero.script"), "{}", r.show());
    assert_eq!(std::fs::read_to_string(dir.join("main/hero.script")).expect("kept"), "-- mine\n");
    assert!(!dir.join("project.json").exists(), "a refused `new` wrote files");
    // A folder holding only other files is fine: nothing of the starter is overwritten.
    std::fs::remove_file(dir.join("main/hero.script")).expect("rm");
    let r = sinew(&["new", dir.to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).expect("kept"), "mine\n");
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).to_str().expect("utf-8").to_string()
}

/// A folder with game.project runs as it is (Defold's formats read directly, issue 33).
#[test]
fn a_defold_folder_runs_as_it_is() {
    let dir = fixture("defold_project");
    let r = sinew(&["run", dir.as_str(), "--headless", "--frames", "1"]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("hello from Defold"), "{}", r.show());
    let r = sinew(&["check", dir.as_str()]);
    assert_eq!(r.status, 0, "{}", r.show());
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join(sinew::project::defold::GUIDE);
    assert!(guide.is_file(), "the hint names {}, which is missing", guide.display());
}

/// A broken Defold project names the file and line, and the guide with what Sinew supports.
#[test]
fn a_broken_defold_project_points_to_the_guide() {
    let d = project(
        "defold-broken",
        &[
            ("/game.project", "[bootstrap]\nmain_collection = /main/main.collectionc\n"),
            ("/main/main.collection", "name: \"main\"\nembedded_instances {\n  id: \"go\"\n}\n"),
        ],
    );
    let r = sinew(&["check", d.path().to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("/main/main.collection:3:3: an embedded instance needs `data`"), "{}", r.show());
    assert!(r.stderr.contains("is a Defold project (/game.project, /main/main.collection"), "{}", r.show());
    assert!(r.stderr.contains("docs/porting-from-defold.md"), "{}", r.show());
    // A broken project that is not Defold's gets no such hint.
    let plain = project("not-defold", &[("/main/main.collection", r#"{ "name": "main" }"#)]);
    let r = sinew(&["check", plain.path().to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(!r.stderr.contains("Defold"), "{}", r.show());
}

const DECLARES: &str = "go.property('team', hash('blue'))\ngo.property('target', msg.url())\n";

#[test]
fn plain_strings_for_hash_and_url_properties_show_the_prefix() {
    let d = project(
        "prefix-hint",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "door" }, { "id": "p", "components": [
                     { "id": "script", "type": "script", "script": "/main/p.script",
                       "properties": { "team": "red", "target": "/door" } } ] } ] }"#,
            ),
            ("/main/p.script", DECLARES),
        ],
    );
    let r = sinew(&["check", d.path().to_str().expect("utf-8")]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(
        r.stderr.contains(
            r#"is a hash, this override is a string (a hash is written with its prefix in a collection: "hash:red")"#
        ),
        "{}",
        r.show()
    );
    assert!(r.stderr.contains(r#""url:/door""#), "{}", r.show());
    assert!(r.stderr.contains("/main/main.collection:"), "the hint keeps the position: {}", r.show());
}

#[test]
fn plain_strings_in_lua_show_the_constructor() {
    let d = project(
        "prefix-hint-lua",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "p", "components": [
                     { "id": "f", "type": "factory", "prototype": "/main/p.go" },
                     { "id": "script", "type": "script", "script": "/main/t.script" } ] } ] }"#,
            ),
            ("/main/p.go", r#"{ "components": [ { "id": "script", "type": "script", "script": "/main/p.script" } ] }"#),
            ("/main/p.script", DECLARES),
            (
                "/main/t.script",
                r##"local T = require "lua.test_helpers"
                go.property('team', hash('blue'))
                function init(self)
                  T.err(function() go.set("#", "team", "red") end, 'must be a hash (make one with hash("red"))')
                  T.err(function() factory.create("#f", nil, nil, { target = "/door" }) end,
                    'is a url, got string (make one with msg.url("/door"))')
                  T.done("prefix-hint-lua")
                end"##,
            ),
        ],
    );
    let r = run_project(d.path(), 2, &[]);
    common::assert_lua_passed(&r, "prefix-hint-lua");
}

#[test]
fn sinew_new_titles_the_project_after_its_folder() {
    let tmp = TempDir::new("new-title");
    let dir = tmp.path().join("a \"quoted\" \\ game");
    let r = sinew(&["new", dir.to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.show());
    let text = std::fs::read_to_string(dir.join("project.json")).expect("project.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("project.json is JSON");
    assert_eq!(v["title"], "a \"quoted\" \\ game");
}
