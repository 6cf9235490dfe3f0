//! Gameplay namespaces in running projects (spec gameplay.md sections 2, 4, 5): timers at both
//! frame lengths, `sys`/`window`/`json`/`socket`, and the namespaces Sinew does not have.
mod common;
use common::*;

#[test]
fn lua_api_timer_quarter_second_frames() {
    let p = committed("api_timer");
    let r = run_project(p.path(), 60, &[]);
    assert_lua_passed(&r, "api_timer");
}

#[test]
fn lua_api_timer_sixtieth_second_frames() {
    let p = committed("api_timer");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--size", "64x48", "--frames", "60", "--fixed-dt", "0.016666668"]);
    assert_lua_passed(&r, "api_timer");
}

/// A timer's callback error is reported like any script error and the game goes on; the
/// timer is not left half-run (a one-shot ends, a repeating one keeps its schedule).
#[test]
fn timer_callback_error_is_reported() {
    let p = project(
        "timer_error",
        &[
            ("/project.json", r#"{ "main_collection": "/main.collection" }"#),
            (
                "/main.collection",
                r#"{ "name": "m", "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/a.script" } ] } ] }"#,
            ),
            (
                "/a.script",
                "function init(self)\n  self.n = 0\n  timer.delay(0, true, function(s)\n    s.n = s.n + 1\n    if s.n == 2 then error('boom') end\n    if s.n == 4 then print('ran ' .. s.n) sys.exit(0) end\n  end)\nend\n",
            ),
        ],
    );
    let r = run_project(p.path(), 20, &[]);
    assert!(r.stderr.contains("/a.script:5: boom"), "{}", r.show());
    assert!(r.stdout.contains("ran 4"), "{}", r.show());
}

/// Defold's `type()` of hashes, URLs and vmath values ("userdata") and the `types` namespace.
#[test]
fn lua_api_types() {
    let p = committed("api_types");
    let r = run_project(p.path(), 3, &[]);
    assert_lua_passed(&r, "api_types");
}

/// `sys.get_save_file`, `sys.save`, `sys.load`: round trips, limits, bad names, damaged files.
#[test]
fn lua_api_save() {
    let p = committed("api_save");
    let data = p.path().join("user-data");
    let dir = p.path().to_str().expect("utf-8 path").to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["run", &dir, "--headless", "--size", "64x48", "--frames", "3", "--fixed-dt", "0.25"])
        .env_remove("DISPLAY")
        .env("XDG_DATA_HOME", &data)
        .output()
        .expect("run sinew");
    let r = Run::from(out);
    assert_lua_passed(&r, "api_save");
    assert!(data.join("sinew_save_test/slot1").is_file(), "the save is where get_save_file said");
}

/// Collection proxies: load, init, enable, disable, final, unload and their replies in Defold's
/// order, a world's own socket (`level:/hero#script`), the same id in two worlds, three cycles;
/// the level's `init` and `final` run once per cycle.
#[test]
fn lua_api_proxy() {
    let p = committed("api_proxy");
    let r = run_project(p.path(), 40, &[]);
    assert_lua_passed(&r, "api_proxy");
    assert_eq!(
        r.stdout.matches("level hero init url: [level:/hero#script] at vmath.vector3(1, 2, 3)").count(),
        3,
        "{}",
        r.show()
    );
    assert_eq!(r.stdout.matches("level hero final").count(), 3, "{}", r.show());
}

/// `set_time_step` on five worlds side by side: factor 1, 0.5 and 0 (continuous), 0.5
/// discrete, and a world disabled while running; scripts' dt, timers, tweens and model
/// animation follow each world's time (the checks are in the project's loader.script).
#[test]
fn lua_api_proxy_time_step() {
    let p = committed("proxy_timestep");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/wiggler.glb"), sinew::project::gltf::samples::wiggler()).expect("wiggler");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--size", "16x16", "--frames", "20", "--fixed-dt", "0.1"]);
    assert_lua_passed(&r, "proxy_timestep");
}

/// Each world's physics steps at its world's time (Defold gives every collection its own
/// physics world): factors 1, 0.5 and 0, a world disabled while running, gravity set inside
/// one world only; worlds' bodies never meet and ray casts see only the caller's world.
#[test]
fn lua_api_proxy_physics_per_world() {
    let p = committed("proxy_physics");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--size", "16x16", "--frames", "55", "--fixed-dt", "0.0166667"]);
    assert_lua_passed(&r, "proxy_physics");
}

/// `async_load` imports the world's models on a thread: progress as `proxy_loading`, one file
/// a frame under a fixed time step, `proxy_loaded` after the last; a broken file ends the load
/// with its path in the error; `init` during the load is refused.
#[test]
fn lua_api_proxy_async_load() {
    let p = committed("proxy_async");
    let models = p.path().join("models");
    std::fs::create_dir_all(&models).expect("models dir");
    std::fs::write(models.join("wiggler.glb"), sinew::project::gltf::samples::wiggler()).expect("wiggler");
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/assets");
    for f in ["Fox.glb", "RiggedSimple.glb"] {
        std::fs::copy(assets.join(f), models.join(f)).expect("copy a sample");
    }
    std::fs::write(models.join("broken.glb"), b"glTF but not really").expect("broken");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--size", "16x16", "--frames", "12"]);
    assert_lua_passed(&r, "proxy_async");
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.contains("/worlds/broken.collection: async_load:") && all.contains("/models/broken.glb"),
        "{}",
        r.show()
    );
    assert!(all.contains("'init' before the collection finished loading"), "{}", r.show());
}

/// Collection proxies from Defold's own formats: a `.collectionproxy` file and an embedded
/// `collectionproxy` in a Defold `.collection`, each loading its world.
#[test]
fn lua_api_proxy_from_defold_files() {
    let p = committed("defold_proxy");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "defold_proxy");
}

/// Messages to a loaded proxy's objects sent before it is enabled (with the `enable` itself, in
/// the `proxy_loaded` handler) wait for its `init` and come in posting order, as in Defold,
/// instead of "Instance '/hero' could not be found" (britzl's level_selector example).
#[test]
fn messages_to_a_loaded_world_wait_for_its_objects() {
    let p = committed("proxy_held");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "proxy_held");
    assert!(!r.stderr.contains("could not be found"), "{}", r.show());
}

/// A Defold project whose main collection loads `level.collection` through a proxy (load, init,
/// enable on `proxy_loaded`); `level` is the proxied collection's text, and `extra` more files.
fn proxied_level(tag: &str, level: &str, extra: &[(&str, &str)]) -> TempDir {
    let main = r#"name: "main"
embedded_instances {
  id: "loader"
  data: "components {\n  id: \"s\"\n  component: \"/loader.script\"\n}\nembedded_components {\n  id: \"proxy\"\n  type: \"collectionproxy\"\n  data: \"collection: \\\"/level.collection\\\"\\n\"\n}\n"
}
"#;
    let loader = "function init(self) msg.post(\"#proxy\", \"async_load\") end\n\
        function on_message(self, id, m, sender)\n\
          if id == hash(\"proxy_loaded\") then msg.post(sender, \"init\") msg.post(sender, \"enable\") end\n\
        end\n";
    let mut files = vec![
        ("/game.project", "[bootstrap]\nmain_collection = /main.collectionc\n"),
        ("/main.collection", main),
        ("/loader.script", loader),
        ("/level.collection", level),
    ];
    files.extend_from_slice(extra);
    project(tag, &files)
}

const HERO_GO: &str = "components {\n  id: \"s\"\n  component: \"/hero.script\"\n}\n";

/// A script property override that its script does not declare, in a Defold project's
/// collection that a proxy loads: found when the project loads, by `run` and by `sinew check`
/// alike, and left out with one warning, as Defold's editor leaves it out (defold/defold#9682);
/// the proxy's world is made once, whole (platypus' example level against a newer
/// defold-orthographic; combochamp against its monarch). Of another type, the same. Before,
/// `run` refused to start such a game, which Defold runs.
#[test]
fn a_misfit_override_in_a_defold_collection_is_left_out_with_a_warning() {
    let level = "name: \"level\"\ninstances {\n  id: \"a\"\n  prototype: \"/hero.go\"\n}\n\
        instances {\n  id: \"b\"\n  prototype: \"/hero.go\"\n  component_properties {\n    id: \"s\"\n\
            properties {\n      id: \"nope\"\n      value: \"1.0\"\n      type: PROPERTY_TYPE_NUMBER\n    }\n\
            properties {\n      id: \"speed\"\n      value: \"fast\"\n      type: PROPERTY_TYPE_HASH\n    }\n  }\n}\n";
    // And in a collection factory's prototype, whose overrides reach the script runtime.
    let maker = r#"embedded_instances {
  id: "maker"
  data: "components {\n  id: \"s\"\n  component: \"/maker.script\"\n}\nembedded_components {\n  id: \"f\"\n  type: \"collectionfactory\"\n  data: \"prototype: \\\"/spawned.collection\\\"\\n\"\n}\n"
}
"#;
    let spawned = "name: \"spawned\"\ninstances {\n  id: \"c\"\n  prototype: \"/hero.go\"\n  component_properties {\n\
        id: \"s\"\n    properties {\n      id: \"nope\"\n      value: \"2.0\"\n      type: PROPERTY_TYPE_NUMBER\n    }\n  }\n}\n";
    let hero =
        "go.property(\"speed\", 1)\nfunction init(self) print(\"init\", go.get_id(), self.nope, self.speed) end\n";
    let extra = [
        ("/hero.go", HERO_GO),
        ("/hero.script", hero),
        ("/maker.script", "function init(self) collectionfactory.create(\"#f\") end\n"),
        ("/spawned.collection", spawned),
    ];
    let p = proxied_level("proxied-override", &format!("{level}{maker}"), &extra);
    let nope = "/level.collection:13:14: script '/hero.script' has no property 'nope' to override (declared: speed); left out, as Defold does";
    let speed = "/level.collection:18:14: property 'speed' of script '/hero.script' is a number, this override is a hash; left out, as Defold does";
    let dir = p.path().to_str().expect("utf-8 path");
    let check = sinew(&["check", dir]);
    assert_eq!(check.status, 0, "{}", check.show());
    assert!(check.stderr.contains(nope) && check.stderr.contains(speed), "{}", check.show());
    let r = run_project(p.path(), 5, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(r.stderr.matches(nope).count(), 1, "warned of once, at load: {}", r.show());
    assert_eq!(r.stderr.matches(speed).count(), 1, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    // Both objects made once (in the proxy's world), the overridden one with its declared
    // default and nothing else.
    assert_eq!(r.stdout.matches("init\thash: [/a]\tnil\t1").count(), 1, "{}", r.show());
    assert_eq!(r.stdout.matches("init\thash: [/b]\tnil\t1").count(), 1, "{}", r.show());
    let spawned = "/spawned.collection:9:14: script '/hero.script' has no property 'nope' to override";
    assert_eq!(r.stderr.matches(spawned).count(), 1, "{}", r.show());
    assert_eq!(r.stdout.matches("\tnil\t1\n").count(), 3, "the spawned one too: {}", r.show());
}

/// A quat property set by a 4-number override (Defold's `PROPERTY_TYPE_QUAT`), in a Defold
/// collection and in a collection factory's prototype: the kinds that fit another kind are one
/// Rust list (`spawn::OTHER_KINDS_THAT_FIT`) that the loader's check and the script runtime both
/// read, so neither leaves this one out.
#[test]
fn a_quat_property_takes_a_four_number_override_in_a_defold_project() {
    let over = "  component_properties {\n    id: \"s\"\n    properties {\n      id: \"turn\"\n\
        value: \"0.0, 0.0, 0.6, 0.8\"\n      type: PROPERTY_TYPE_QUAT\n    }\n  }\n";
    let main = format!(
        "name: \"main\"\ninstances {{\n  id: \"a\"\n  prototype: \"/turner.go\"\n{over}}}\n\
        embedded_instances {{\n  id: \"maker\"\n  data: \"components {{\\n  id: \\\"s\\\"\\n\
        component: \\\"/maker.script\\\"\\n}}\\nembedded_components {{\\n  id: \\\"f\\\"\\n\
        type: \\\"collectionfactory\\\"\\n  data: \\\"prototype: \\\\\\\"/made.collection\\\\\\\"\\\\n\\\"\\n}}\\n\"\n}}\n"
    );
    let made = format!("name: \"made\"\ninstances {{\n  id: \"b\"\n  prototype: \"/turner.go\"\n{over}}}\n");
    let turner = "go.property(\"turn\", vmath.quat())\n\
        function init(self) print(\"turn\", go.get_id(), self.turn.x, self.turn.y, self.turn.z, self.turn.w) end\n";
    let files = [
        ("/game.project", "[bootstrap]\nmain_collection = /main.collectionc\n"),
        ("/main.collection", main.as_str()),
        ("/made.collection", made.as_str()),
        ("/turner.go", "components {\n  id: \"s\"\n  component: \"/turner.script\"\n}\n"),
        ("/turner.script", turner),
        ("/maker.script", "function init(self) collectionfactory.create(\"#f\") end\n"),
    ];
    let p = project("quat-override", &files);
    let r = run_project(p.path(), 3, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("left out") && !r.stderr.contains("ERROR"), "{}", r.show());
    let turned =
        |line: &str| line.starts_with("turn\t") && line.ends_with("\t0\t0\t0.60000002384186\t0.80000001192093");
    assert_eq!(r.stdout.lines().filter(|l| turned(l)).count(), 2, "the placed and the spawned object: {}", r.show());
}

/// A proxied world that can be made only without one of its parts (here a sound whose file is
/// missing, found when the proxy's `init` makes the world) is made once, the rest of it
/// running, with one error naming the file: its `enable` does not make it again.
#[test]
fn a_proxied_world_made_without_a_part_is_made_once() {
    let level = "name: \"level\"\ninstances {\n  id: \"a\"\n  prototype: \"/hero.go\"\n}\n\
        embedded_instances {\n  id: \"c\"\n  data: \"components {\\n  id: \\\"s\\\"\\n  component: \\\"/hero.script\\\"\\n}\\n\
        embedded_components {\\n  id: \\\"snd\\\"\\n  type: \\\"sound\\\"\\n  data: \\\"sound: \\\\\\\"/nope.wav\\\\\\\"\\\\n\\\"\\n}\\n\"\n}\n";
    let hero = "function init(self) print(\"init\", go.get_id()) end\n";
    let p = proxied_level("proxied-part", level, &[("/hero.go", HERO_GO), ("/hero.script", hero)]);
    let r = run_project(p.path(), 6, &[]);
    assert_eq!(r.stderr.matches("/nope.wav: resource not found").count(), 1, "{}", r.show());
    assert!(!r.stderr.contains("already exists"), "{}", r.show());
    for line in ["init\thash: [/a]", "init\thash: [/c]"] {
        assert_eq!(r.stdout.matches(line).count(), 1, "{line} once: {}", r.show());
    }
}

/// A script property's URL default (`go.property("sprite", msg.url("#sprite"))`, and
/// `msg.url()`) is resolved for each instance, as Defold resolves the text its build kept: the
/// instance's own world and path. It was the URL made as the script loaded, in the main world,
/// so britzl/bythesword's enemies in a proxied level flipped sprites of "main:/berserker".
#[test]
fn a_url_property_default_is_resolved_for_each_instance() {
    let level = "name: \"level\"\ninstances {\n  id: \"a\"\n  prototype: \"/hero.go\"\n}\n\
        instances {\n  id: \"b\"\n  prototype: \"/hero.go\"\n}\n";
    let hero = "go.property(\"sprite\", msg.url(\"#sprite\"))\ngo.property(\"me\", msg.url())\n\
        go.property(\"other\", msg.url(\"b#s\"))\n\
        function init(self) print(\"urls\", go.get_id(), self.sprite, self.me, self.other) end\n";
    let p = proxied_level("url-defaults", level, &[("/hero.go", HERO_GO), ("/hero.script", hero)]);
    let r = run_project(p.path(), 5, &[]);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    for line in [
        "urls\thash: [/a]\turl: [level:/a#sprite]\turl: [level:/a#s]\turl: [level:/b#s]",
        "urls\thash: [/b]\turl: [level:/b#sprite]\turl: [level:/b#s]\turl: [level:/b#s]",
    ] {
        assert!(r.stdout.contains(line), "{line}: {}", r.show());
    }
}

/// A finalizer that runs only as the Lua state closes (luacov saving its statistics at exit)
/// prints through the C io library; a host call there is an ignored error, never a panic.
#[test]
fn a_finalizer_at_exit_prints_and_never_panics() {
    let p = committed("finalizer_at_exit");
    let r = run_project(p.path(), 2, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    for line in ["finalizer_at_exit: running", "finalizer: printed at exit", "at = \"exit\""] {
        assert!(r.stdout.contains(line), "{line}: {}", r.show());
    }
    assert!(!r.stdout.contains("not reached"), "a host call at exit stops the finalizer: {}", r.show());
    assert!(!r.stderr.contains("panicked"), "{}", r.show());
}

/// A Defold library project where Defold's editor fetches it (a zip in `.internal/lib`): its
/// module through `require`, its script as a component with the collection's property.
#[test]
fn a_defold_library_runs_from_internal_lib() {
    let p = committed("defold_library");
    let r = run_project(p.path(), 4, &[]);
    assert_lua_passed(&r, "defold_library");
    assert!(!r.stderr.contains("library project"), "a fetched library is not warned about: {}", r.show());
}

/// The `camera` namespace and camera properties through go.get/go.set, against the formulas;
/// light components' `color` and `intensity` through go.get/go.set/go.animate.
#[test]
fn lua_api_camera() {
    let p = committed("api_camera");
    let r = run_project(p.path(), 6, &[]);
    assert_lua_passed(&r, "api_camera");
}

#[test]
fn lua_api_sys() {
    let p = committed("api_sys");
    let r = run_project(p.path(), 5, &[]);
    assert_lua_passed(&r, "api_sys");
}

/// Defold's `buffer` namespace and the `resource` functions that make textures and atlases at
/// run time, with their bad arguments: see the script.
#[test]
fn lua_api_resource() {
    let p = committed("api_resource");
    let r = run_project(p.path(), 5, &[]);
    assert_lua_passed(&r, "api_resource");
}

#[test]
fn custom_settings_must_be_an_object() {
    let p = project(
        "custom_bad",
        &[
            ("/project.json", "{ \"main_collection\": \"/main.collection\",\n  \"custom\": [1, 2] }"),
            ("/main.collection", r#"{ "name": "m", "objects": [] }"#),
        ],
    );
    let r = run_project(p.path(), 2, &[]);
    assert_ne!(r.status, 0, "{}", r.show());
    assert!(r.stderr.contains("/project.json:2:") && r.stderr.contains("custom must be an object"), "{}", r.show());
}

/// `sys.serialize`/`deserialize`, `exists`, `get_application_path`/`info`, and
/// `set_error_handler`: the script's errors are logged and handed to the handler; a handler
/// that fails is logged too, and the game goes on.
#[test]
fn lua_api_sys_more() {
    let p = committed("api_sys_more");
    let r = run_project(p.path(), 6, &[]);
    assert_lua_passed(&r, "api_sys_more");
    for want in ["boom on purpose", "second on purpose", "the error handler (sys.set_error_handler) failed"] {
        assert!(r.stderr.contains(want), "{want:?} logged: {}", r.show());
    }
}

/// Globals a script defines are every script's, as Defold runs every script's top level in the
/// one global table (benjames' PicoShot calls `_G["enemy" .. wave](self)`, functions another
/// script defined); each script keeps its own callbacks and `self`.
#[test]
fn scripts_share_their_globals_and_keep_their_callbacks() {
    let p = committed("script_globals");
    let r = run_project(p.path(), 3, &[]);
    assert_lua_passed(&r, "script_globals");
}
