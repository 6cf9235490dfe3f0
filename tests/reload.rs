//! Hot reload through a real running `sinew run`: files are edited while the game runs and the
//! test watches its output.
mod common;
use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Running {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
    seen: Vec<String>,
    /// Lines before this index belong to earlier steps and are not searched.
    mark: usize,
}

fn lines(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

impl Running {
    fn start(dir: &std::path::Path) -> Running {
        Running::start_with(dir, &[])
    }

    fn start_with(dir: &std::path::Path, extra: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(["run", dir.to_str().unwrap_or(""), "--headless", "--size", "32x32", "--fixed-dt", "0.016"])
            .args(extra)
            .env("SINEW_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn sinew");
        let out = lines(child.stdout.take().expect("stdout"));
        let err = lines(child.stderr.take().expect("stderr"));
        Running { child, out, err, seen: Vec::new(), mark: 0 }
    }

    /// Starts a new step: later waits only look at output from now on.
    fn mark(&mut self) {
        self.drain();
        self.mark = self.seen.len();
    }

    fn drain(&mut self) {
        for rx in [&self.out, &self.err] {
            while let Ok(l) = rx.try_recv() {
                self.seen.push(l);
            }
        }
    }

    /// Waits for a line (stdout or stderr, since the last mark) containing `text`.
    fn wait_for(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            self.drain();
            if let Some(l) = self.seen[self.mark..].iter().find(|l| l.contains(text)) {
                return l.clone();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("sinew exited ({status}) before printing '{text}':\n{}", self.seen.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("timed out waiting for '{text}':\n{}", self.seen.join("\n"));
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const SCRIPT_V1: &str = r#"
local util = require "main.util"
function init(self) self.count = 0 print("v1 init") end
function update(self)
  self.count = self.count + 1
  if self.count % 20 == 0 then print("v1 tick " .. util.name()) end
end
"#;

const SCRIPT_V2: &str = r#"
local util = require "main.util"
go.property("added", 42)
function init(self) print("init must not run again") end
function update(self)
  self.count = self.count + 1
  if self.count % 20 == 0 then print("v2 tick " .. util.name() .. " added=" .. self.added) end
end
function on_reload(self) print("on_reload count=" .. self.count) end
"#;

fn reload_project() -> TempDir {
    project(
        "reload",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", SCRIPT_V1),
            ("/main/util.lua", "local M = {}\nfunction M.name() return 'util1' end\nreturn M\n"),
        ],
    )
}

#[test]
fn script_save_keeps_self_and_calls_on_reload() {
    let p = reload_project();
    let mut r = Running::start(p.path());
    r.wait_for("v1 tick util1");
    r.mark();
    p.write("/main/s.script", SCRIPT_V2);
    let line = r.wait_for("on_reload count=");
    let count: u32 = line.trim_start_matches("on_reload count=").parse().expect("count");
    assert!(count >= 20, "self.count carried over: {line}");
    r.wait_for("v2 tick util1 added=42");
    r.wait_for("reloaded /main/s.script");
    assert!(!r.seen.iter().any(|l| l.contains("init must not run again")));
}

#[test]
fn rename_over_saves_and_modules_reload() {
    let p = reload_project();
    let mut r = Running::start(p.path());
    r.wait_for("v1 tick util1");
    // The way vim / VS Code save: write a temporary file, rename it over the original.
    r.mark();
    p.write("/main/s.script.tmp~", SCRIPT_V2);
    std::fs::rename(p.path().join("main/s.script.tmp~"), p.path().join("main/s.script")).expect("rename");
    r.wait_for("on_reload count=");
    r.mark();
    p.write("/main/util.lua.swp", "junk that is not Lua ((");
    p.write("/main/util.lua", "local M = {}\nfunction M.name() return 'util2' end\nreturn M\n");
    r.wait_for("v2 tick util2 added=42");
    assert!(!r.seen.iter().any(|l| l.contains("util.lua.swp")), "swap files are ignored");
}

#[test]
fn broken_saves_are_reported_and_survived() {
    let p = reload_project();
    let mut r = Running::start(p.path());
    r.wait_for("v1 tick util1");
    r.mark();
    p.write("/main/s.script", "function update(self)\n  this is not lua\nend\n");
    r.wait_for("/main/s.script:2:");
    r.wait_for("previous version of /main/s.script keeps running");
    r.mark();
    r.wait_for("v1 tick util1");
    r.mark();
    p.write("/main/util.lua", "local M = {}\nerror('module broke')\nreturn M\n");
    r.wait_for("/main/util.lua:2: module broke");
    r.mark();
    r.wait_for("v1 tick util1");
    // A burst of broken and good saves ends in the last good version.
    for i in 0..20 {
        let text = if i % 2 == 0 {
            "function update(self) (((".to_string()
        } else {
            SCRIPT_V1.replace("v1 tick", &format!("burst{i} tick"))
        };
        p.write("/main/s.script", &text);
        std::thread::sleep(Duration::from_millis(7));
    }
    r.mark();
    p.write("/main/s.script", SCRIPT_V2);
    r.wait_for("on_reload count=");
    r.wait_for("v2 tick util1 added=42");
    r.mark();
    p.write("/main/main.collection", "{ broken");
    r.wait_for("reload failed: the running version of /main/main.collection stays");
    r.mark();
    r.wait_for("v2 tick");
}

const AABB_SCRIPT: &str = r##"
function update(self)
  self.n = (self.n or 0) + 1
  if self.n % 10 == 0 then print("aabb max " .. tostring(model.get_aabb("#model").max)) end
end
"##;

#[test]
fn models_and_shaders_reload_on_save() {
    let p = project(
        "reload_model",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "model", "type": "model", "mesh": "/models/m.glb", "material": "/main/custom.material" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", AABB_SCRIPT),
            (
                "/main/custom.material",
                r#"{ "vertex_program": "/builtins/shaders/model.vp", "fragment_program": "/main/custom.fp" }"#,
            ),
            (
                "/main/custom.fp",
                "#version 140\nout vec4 out_color;\nvoid main() { out_color = vec4(1.0, 0.0, 0.0, 1.0); }\n",
            ),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::write(p.path().join("models/m.glb"), sinew::project::gltf::samples::textured_cube()).expect("glb");
    let mut r = Running::start(p.path());
    r.wait_for("aabb max vmath.vector3(0.5, 0.5, 0.5)");

    r.mark();
    std::fs::write(p.path().join("models/m.glb"), sinew::project::gltf::samples::two_meshes()).expect("glb");
    r.wait_for("reloaded /models/m.glb");
    r.wait_for("aabb max vmath.vector3(1.25, 1.5, 0.5)");

    r.mark();
    std::fs::write(p.path().join("models/m.glb"), b"glTF garbage").expect("glb");
    r.wait_for("/models/m.glb:");
    r.wait_for("previous version of /models/m.glb stays in use");
    r.mark();
    r.wait_for("aabb max vmath.vector3(1.25, 1.5, 0.5)");

    r.mark();
    p.write("/main/custom.fp", "#version 140\nout vec4 out_color;\nvoid main() { out_color = vec4(not_declared); }\n");
    r.wait_for("/main/custom.fp");
    r.wait_for("previous version of /main/custom.fp stays in use");
    r.mark();
    p.write(
        "/main/custom.fp",
        "#version 140\nout vec4 out_color;\nvoid main() { out_color = vec4(0.0, 1.0, 0.0, 1.0); }\n",
    );
    r.wait_for("reloaded /main/custom.fp");
    r.mark();
    r.wait_for("aabb max");
}

const WIGGLE_SCRIPT: &str = r##"
function init(self)
  -- A still pose at a known cursor (a playing loop could wrap between two reads).
  model.play_anim("#model", "wiggle", go.PLAYBACK_NONE)
  self.set_cursor = true
  self.bone = model.get_go("#model", "Bone_002")
  go.set_parent("/hat", self.bone)
end
function update(self)
  if self.set_cursor then self.set_cursor = false go.set("#model", "cursor", 0.37) end
  self.n = (self.n or 0) + 1
  if self.n % 5 == 0 then
    local ok, bone = pcall(model.get_go, "#model", "Bone_002")
    print(string.format("cursor %.4f anim %s same_bone %s hat_parent_ok %s", go.get("#model", "cursor"),
      tostring(go.get("#model", "animation")), tostring(ok and bone == self.bone),
      tostring(go.get_parent("/hat") == self.bone)))
  end
end
"##;

fn cursor_of(line: &str) -> f32 {
    line.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(-1.0)
}

#[test]
fn a_model_swapped_mid_animation_keeps_its_cursor_and_bones() {
    use sinew::project::gltf::samples;
    let p = project(
        "reload_anim",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "w", "components": [
                    { "id": "model", "type": "model", "mesh": "/models/w.glb" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] },
                    { "id": "hat" } ] }"#,
            ),
            ("/main/s.script", WIGGLE_SCRIPT),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler()).expect("glb");
    let mut r = Running::start(p.path());
    let before = cursor_of(&r.wait_for("cursor 0.37"));
    r.mark();
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler()).expect("save");
    r.wait_for("reloaded /models/w.glb");
    r.mark();
    let after = r.wait_for("cursor ");
    assert!((cursor_of(&after) - before).abs() < 1e-4, "cursor kept across the reload: {before} then {after}");
    assert!(after.contains("anim hash: [wiggle]") && after.contains("same_bone true hat_parent_ok true"), "{after}");

    // The clip disappears: a warning, the bind pose, bones still there.
    r.mark();
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler_with_clip("sway")).expect("save");
    r.wait_for("animation 'wiggle' is gone after the reload");
    r.mark();
    let gone = r.wait_for("cursor ");
    assert!(gone.contains("same_bone true hat_parent_ok true"), "{gone}");
}

#[test]
fn a_saved_model_file_switches_mesh_and_survives_mistakes() {
    use sinew::project::gltf::samples;
    let p = project(
        "reload_model_file",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "model", "type": "model", "model": "/main/m.model" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", AABB_SCRIPT),
            ("/main/m.model", r#"{ "mesh": "/models/cube.glb" }"#),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::write(p.path().join("models/cube.glb"), samples::textured_cube()).expect("glb");
    std::fs::write(p.path().join("models/pair.glb"), samples::two_meshes()).expect("glb");
    let mut r = Running::start(p.path());
    r.wait_for("aabb max vmath.vector3(0.5, 0.5, 0.5)");
    r.mark();
    p.write("/main/m.model", r#"{ "mesh": "/models/pair.glb" }"#);
    r.wait_for("reloaded /main/m.model");
    r.wait_for("aabb max vmath.vector3(1.25, 1.5, 0.5)");
    r.mark();
    p.write("/main/m.model", "{ \"mesh\": \"/models/cube.glb\",\n  \"materiall\": 1 }");
    r.wait_for("/main/m.model:2:");
    r.wait_for("previous version of /main/m.model stays in use");
    r.mark();
    r.wait_for("aabb max vmath.vector3(1.25, 1.5, 0.5)");
}

#[test]
fn a_module_that_returned_nil_still_reloads() {
    let p = reload_project();
    p.write(
        "/main/s.script",
        r#"
require "main.util"
function update(self)
  self.n = (self.n or 0) + 1
  local m = package.loaded["main.util"]
  if self.n % 10 == 0 then print("module v=" .. tostring(type(m) == "table" and m.v)) end
end
"#,
    );
    p.write("/main/util.lua", "return { v = 1 }\n");
    let mut r = Running::start(p.path());
    r.wait_for("module v=1");
    r.mark();
    p.write("/main/util.lua", "");
    r.wait_for("reloaded /main/util.lua");
    r.wait_for("module v=false");
    for v in [3, 4] {
        r.mark();
        p.write("/main/util.lua", &format!("return {{ v = {v} }}\n"));
        r.wait_for("reloaded /main/util.lua");
        r.wait_for(&format!("module v={v}"));
    }
}

#[test]
fn a_saved_input_binding_applies_and_a_broken_one_is_survived() {
    let binding = |action: &str| format!(r#"{{ "key": [ {{ "input": "KEY_SPACE", "action": "{action}" }} ] }}"#);
    let p = project(
        "reload_binding",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection", "input": "/main/game.input_binding" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            (
                "/main/s.script",
                r#"function init(self) msg.post(".", "acquire_input_focus") end
function on_input(self, action_id, action) if action.pressed then print("pressed " .. tostring(action_id)) end end"#,
            ),
            ("/main/game.input_binding", &binding("jump")),
            // Space goes down at frame 1 and stays down.
            ("/held.replay", r#"{"frame": 1, "type": "key", "input": "KEY_SPACE", "down": true}"#),
        ],
    );
    let replay = p.path().join("held.replay");
    let mut r = Running::start_with(p.path(), &["--replay", replay.to_str().unwrap_or("")]);
    r.wait_for("pressed hash: [jump]");
    r.mark();
    p.write("/main/game.input_binding", &binding("leap"));
    r.wait_for("pressed hash: [leap]");
    r.wait_for("reloaded /main/game.input_binding");
    r.mark();
    p.write("/main/game.input_binding", "{ \"key\": [ { \"input\": \"KEY_SPACEBAR\", \"action\": \"x\" } ] }");
    r.wait_for("/main/game.input_binding:1:23: unknown input name 'KEY_SPACEBAR'");
    r.wait_for("the previous version of /main/game.input_binding stays in use");
    p.write("/main/game.input_binding", &binding("hop"));
    r.wait_for("pressed hash: [hop]");
}

/// Issue 10, item 2: a model saved with morph targets it did not have gets a weight buffer of
/// the new size. With a `set_blend_weights` override set before the save, the frame loop used to
/// index past the old (empty) buffer; without one, morph animation silently stopped.
#[test]
fn a_model_that_gains_morph_targets_on_save_gets_new_weights() {
    use sinew::project::gltf::samples;
    const SCRIPT: &str = r##"
go.property("override", false)
function init(self)
  self.n = 0
  if self.override then model.set_blend_weights("#model", { 0.25, 0.75 }) end
end
function update(self)
  self.n = self.n + 1
  local w = model.get_blend_weights("#model")
  if #w > 0 and not self.override and not self.playing then
    self.playing = true
    model.play_anim("#model", "smile", go.PLAYBACK_LOOP_FORWARD)
  end
  if self.n % 5 == 0 then
    local parts = {}
    for i, v in ipairs(w) do parts[i] = string.format("%.3f", v) end
    print(string.format("%s weights [%s] frame %d", self.override and "held" or "played", table.concat(parts, " "), self.n))
  end
end
"##;
    let p = project(
        "reload_morph_gain",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [
                  { "id": "held", "components": [
                    { "id": "model", "type": "model", "mesh": "/models/m.glb" },
                    { "id": "script", "type": "script", "script": "/main/s.script", "properties": { "override": true } } ] },
                  { "id": "played", "components": [
                    { "id": "model", "type": "model", "mesh": "/models/m.glb" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", SCRIPT),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::write(p.path().join("models/m.glb"), samples::textured_cube()).expect("glb");
    let mut r = Running::start(p.path());
    r.wait_for("held weights [] frame");
    r.mark();
    std::fs::write(p.path().join("models/m.glb"), samples::morph_face()).expect("glb");
    r.wait_for("reloaded /models/m.glb");
    // The override set before the save applies to the new targets.
    r.wait_for("held weights [0.250 0.750]");
    // The clip plays on the reloaded model: its weights move from frame to frame.
    let first = r.wait_for("played weights [");
    r.mark();
    let mut later = r.wait_for("played weights [");
    let strip = |l: &str| l.split(" frame ").next().unwrap_or("").to_string();
    for _ in 0..20 {
        if strip(&later) != strip(&first) {
            break;
        }
        r.mark();
        later = r.wait_for("played weights [");
    }
    assert_ne!(strip(&later), strip(&first), "morph animation is stuck after the reload");
    assert!(r.child.try_wait().ok().flatten().is_none(), "sinew exited");
}

const LAYERS_SCRIPT: &str = r##"
local W = "#model"
function init(self)
  model.play_anim(W, "wiggle", go.PLAYBACK_NONE)
  model.play_anim(W, "wiggle", go.PLAYBACK_NONE,
    { layer = 1, offset = 0.25, weight = 0.6, mask = "upper", playback_rate = 0.5 })
  model.play_anim(W, "wiggle", go.PLAYBACK_NONE, { layer = 2, offset = 0.5, additive = true, mask = "Bone_002" })
  -- A slow fade, still running at every reload below.
  model.set_layer_weight(W, 2, 0, 1000)
  self.bone = model.get_go(W, "Bone_002")
end
function update(self)
  self.n = (self.n or 0) + 1
  if self.n % 5 == 0 then
    local l1, l2 = model.get_layer(W, 1), model.get_layer(W, 2)
    local p = go.get_world_position(self.bone)
    print(string.format("layers l1 %s %.4f %.3f %.3f l2 %s %.4f %.5f bone %.4f %.4f %.4f", tostring(l1.animation),
      l1.cursor, l1.playback_rate, l1.weight, tostring(l2.animation), l2.cursor, l2.weight, p.x, p.y, p.z))
  end
end
"##;

/// The numbers of a `layers` line, in order (animations as "nil" or a hash name are skipped).
fn layer_numbers(line: &str) -> Vec<f32> {
    line.split(' ').filter_map(|w| w.parse().ok()).collect()
}

#[test]
fn a_reload_keeps_every_layer_and_drops_those_whose_clip_or_mask_is_gone() {
    use sinew::project::gltf::samples;
    let model = r#"{ "mesh": "/models/w.glb", "masks": { "upper": ["Bone_001"] } }"#;
    let p = project(
        "reload_layers",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "w", "components": [
                    { "id": "model", "type": "model", "model": "/main/w.model" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", LAYERS_SCRIPT),
            ("/main/w.model", model),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("dir");
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler()).expect("glb");
    let mut r = Running::start(p.path());
    let before = r.wait_for("layers l1 ");
    assert!(before.contains("l1 hash: [wiggle] 0.2500 0.500 0.600 l2 hash: [wiggle] 0.5000"), "{before}");

    // The same glb saved again: both layers continue as they were, the fade included.
    r.mark();
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler()).expect("save");
    r.wait_for("reloaded /models/w.glb");
    r.mark();
    let after = r.wait_for("layers l1 ");
    assert!(after.contains("l1 hash: [wiggle] 0.2500 0.500 0.600 l2 hash: [wiggle] 0.5000"), "{after}");
    r.mark();
    let later = r.wait_for("layers l1 ");
    let (b, a, l) = (layer_numbers(&before), layer_numbers(&after), layer_numbers(&later));
    // Frames run flat out at a fixed dt, so how far the 1000 s fade gets during the reload
    // depends on the machine (a few seconds of game time on a fast one): neither restarted nor
    // finished is what counts.
    assert!(a[4] < b[4] && l[4] < a[4] && a[4] > 0.9, "layer 2's weight fade goes on: {before} / {after} / {later}");
    // Mask and additive flag kept: the bone where the same layers put it (the fade moves it
    // by far less than the tolerance over these frames).
    for k in 5..8 {
        assert!((a[k] - b[k]).abs() < 2e-3, "bone kept its layered pose: {before} / {after}");
    }

    // The .model loses the mask 'upper': layer 1 is dropped with a warning, layer 2 stays.
    r.mark();
    p.write("/main/w.model", r#"{ "mesh": "/models/w.glb" }"#);
    r.wait_for("layer 1 is dropped after the reload");
    r.wait_for("reloaded /main/w.model");
    // The "reloaded" line is on stderr and the layer lines on stdout, read by two threads: a
    // line printed before the reload may still arrive after it. So wait for the new state
    // (a timeout fails the test), then check the rest of that line.
    r.mark();
    let no_mask = r.wait_for("layers l1 nil");
    assert!(no_mask.contains("l1 nil 0.0000") && no_mask.contains("l2 hash: [wiggle] 0.5000"), "{no_mask}");

    // The clip disappears: layer 2 is dropped too.
    r.mark();
    std::fs::write(p.path().join("models/w.glb"), samples::wiggler_with_clip("sway")).expect("save");
    r.wait_for("animation 'wiggle' on layer 2 is gone after the reload; the layer is dropped");
    r.mark();
    let gone = r.wait_for(" l2 nil");
    assert!(gone.contains("l1 nil") && gone.contains("l2 nil"), "{gone}");
    println!("{before}\n{after}\n{later}\n{no_mask}\n{gone}");
}

/// Sprites (issue 38): saving an image of an atlas, or the atlas, reloads the atlas for the
/// sprites using it; a broken image keeps the previous atlas.
#[test]
fn atlases_reload_when_an_image_or_the_atlas_is_saved() {
    let p = project(
        "reload_sprite",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "sprite", "type": "sprite", "tile_set": "/main/a.atlas", "default_animation": "run" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            (
                "/main/a.atlas",
                r#"{ "animations": [{ "id": "run", "images": [{ "image": "/main/a.png" }], "fps": 1 }] }"#,
            ),
            (
                "/main/s.script",
                "function init(self) self.n = 0 end\nfunction update(self)\n  self.n = self.n + 1\n  if self.n % 10 == 0 then print(\"sprite \" .. tostring(go.get(\"#sprite\", \"size\")) .. \" \" .. tostring(go.get(\"#sprite\", \"animation\"))) end\nend\n",
            ),
        ],
    );
    let png = sinew::project::gltf::samples::checker_png;
    std::fs::write(p.path().join("main/a.png"), png(8, 2, [255, 0, 0, 255], [0, 0, 255, 255])).expect("png");
    let mut r = Running::start(p.path());
    r.wait_for("sprite vmath.vector3(8, 8, 0)");

    r.mark();
    std::fs::write(p.path().join("main/a.png"), png(16, 2, [255, 0, 0, 255], [0, 0, 255, 255])).expect("png");
    r.wait_for("reloaded /main/a.png");
    r.wait_for("sprite vmath.vector3(16, 16, 0)");

    r.mark();
    std::fs::write(p.path().join("main/a.png"), b"not a picture").expect("png");
    r.wait_for("previous version of /main/a.atlas stays in use");
    r.mark();
    r.wait_for("sprite vmath.vector3(16, 16, 0)");

    r.mark();
    std::fs::write(p.path().join("main/a.png"), png(4, 2, [255, 0, 0, 255], [0, 0, 255, 255])).expect("png");
    p.write(
        "/main/a.atlas",
        r#"{ "animations": [{ "id": "walk", "images": [{ "image": "/main/a.png" }] }, { "id": "run", "images": [{ "image": "/main/a.png" }] }] }"#,
    );
    r.wait_for("reloaded /main/a.atlas");
    r.mark();
    r.wait_for("sprite vmath.vector3(4, 4, 0) hash: [run]");
}

const COLLECTION_V1: &str = r#"{ "name": "main", "objects": [
  { "id": "a", "components": [ { "id": "script", "type": "script", "script": "/main/a.script" } ] },
  { "id": "b", "components": [ { "id": "script", "type": "script", "script": "/main/say.script", "properties": { "n": 2 } } ] },
  { "id": "c", "position": [1, 0, 0], "components": [ { "id": "script", "type": "script", "script": "/main/c.script" } ] },
  { "id": "e", "components": [ { "id": "script", "type": "script", "script": "/main/say.script", "properties": { "n": 51 } } ] }
] }"#;

/// `b` removed, `d` added, `c` moved in the file, `e`'s property changed, `a` as it was (on
/// another line now).
const COLLECTION_V2: &str = r#"{ "name": "main", "objects": [

  { "id": "a", "components": [ { "id": "script", "type": "script", "script": "/main/a.script" } ] },
  { "id": "c", "position": [5, 0, 0], "components": [ { "id": "script", "type": "script", "script": "/main/c.script" } ] },
  { "id": "d", "components": [ { "id": "script", "type": "script", "script": "/main/say.script", "properties": { "n": 4 } } ] },
  { "id": "e", "components": [ { "id": "script", "type": "script", "script": "/main/say.script", "properties": { "n": 52 } } ] }
] }"#;

#[test]
fn a_saved_collection_applies_in_place_and_keeps_what_did_not_change() {
    let p = project(
        "reload-collection",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            ("/main/main.collection", COLLECTION_V1),
            (
                "/main/a.script",
                "function init(self) self.n = 0 print('a init') end\nfunction update(self) self.n = self.n + 1 if self.n % 20 == 0 then print('a n=' .. self.n) end end",
            ),
            (
                "/main/say.script",
                "go.property('n', 0)\nfunction init(self) print('init ' .. self.n) end\nfunction final(self) print('final ' .. self.n) end",
            ),
            (
                "/main/c.script",
                "function init(self) self.n = 0 end\nfunction update(self) self.n = self.n + 1 if self.n % 20 == 0 then print('c x=' .. go.get_position().x) end end",
            ),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("c x=1");
    let before: u32 = r.wait_for("a n=").trim_start_matches("a n=").parse().expect("n");
    r.mark();
    p.write("/main/main.collection", COLLECTION_V2);
    let line = r.wait_for("objects kept");
    assert!(line.contains("1 objects kept, 1 moved, 1 added, 1 removed, 1 made again"), "{line}");
    r.wait_for("final 2");
    r.wait_for("final 51");
    r.wait_for("init 52");
    r.wait_for("init 4");
    r.wait_for("c x=5");
    let after: u32 = r.wait_for("a n=").trim_start_matches("a n=").parse().expect("n");
    assert!(after > before, "a kept its self: {before} then {after}");
    r.wait_for("reloaded /main/main.collection");
    assert!(!r.seen[r.mark..].iter().any(|l| l.contains("a init")), "a was not made again");

    // A broken save is reported and the running collection stays.
    r.mark();
    p.write("/main/main.collection", "{ \"name\": \"main\", \"objects\": [ { \"id\": ");
    r.wait_for("reload failed: the running version of /main/main.collection stays");
    r.mark();
    r.wait_for("a n=");
    r.wait_for("c x=5");
}

#[test]
fn a_saved_project_json_applies_what_it_can_and_names_what_needs_a_restart() {
    let p = reload_project();
    let mut r = Running::start(p.path());
    r.wait_for("v1 tick util1");
    r.mark();
    p.write(
        "/project.json",
        r#"{ "main_collection": "/main/main.collection", "ambient": [0.5, 0.5, 0.5], "clear_color": [1, 0, 0, 1] }"#,
    );
    r.wait_for("reloaded /project.json");
    assert!(!r.seen[r.mark..].iter().any(|l| l.contains("restart")), "{:?}", &r.seen[r.mark..]);
    r.mark();
    p.write("/project.json", r#"{ "main_collection": "/main/main.collection", "window": { "width": 400 } }"#);
    r.wait_for("/project.json: window changed: restart to apply");
    r.mark();
    p.write("/project.json", r#"{ "main_collection": 7 }"#);
    r.wait_for("reload failed: the running settings stay");
    r.mark();
    r.wait_for("v1 tick util1");
}

const GUI_V1: &str = r#"{ "script": "/main/hud.gui_script", "nodes": [
  { "id": "score", "type": "text", "position": [10, 10, 0], "text": "file v1", "color": [1, 0, 0] },
  { "id": "gone", "type": "box", "position": [50, 50, 0] } ] }"#;

const GUI_V2: &str = r#"{ "script": "/main/hud.gui_script", "nodes": [
  { "id": "score", "type": "text", "position": [10, 10, 0], "text": "file v2", "color": [0, 1, 0] },
  { "id": "added", "type": "box", "position": [70, 70, 0], "size": [7, 7] } ] }"#;

const GUI_SCRIPT_V1: &str = r#"
function init(self)
  self.score = gui.get_node("score")
  self.gone = gui.get_node("gone")
  self.made = gui.new_box_node(vmath.vector3(1, 2, 0), vmath.vector3(3, 4, 0))
  gui.set_text(self.score, "script text")
  self.n = 0
end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    local c = gui.get_color(self.score)
    print(string.format("gui v1 text=%s color=%g,%g made=%g", gui.get_text(self.score), c.x, c.y, gui.get_size(self.made).x))
    local ok, err = pcall(gui.get_position, self.gone)
    if not ok then print("gone: " .. err) end
    local ok2, added = pcall(gui.get_node, "added")
    if ok2 then print("added size=" .. gui.get_size(added).x) end
  end
end
"#;

const GUI_SCRIPT_V2: &str = r#"
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then print("gui v2 text=" .. gui.get_text(self.score) .. " made=" .. gui.get_size(self.made).x) end
end
function on_reload(self) print("gui on_reload n=" .. self.n) end
function final(self) print("gui final") end
"#;

/// A saved `.gui` keeps what the script did (its text, its new node, the handles it holds)
/// and takes the file's other changes (the colour, a node added, a node removed); a saved
/// `.gui_script` keeps `self` and calls `on_reload`.
#[test]
fn a_saved_gui_keeps_script_state_and_gui_scripts_reload() {
    let p = project(
        "reload-gui",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            ("/main/hud.gui", GUI_V1),
            ("/main/hud.gui_script", GUI_SCRIPT_V1),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("gui v1 text=script text color=1,0 made=3");
    r.mark();
    p.write("/main/hud.gui", GUI_V2);
    r.wait_for("reloaded /main/hud.gui");
    r.wait_for("gui v1 text=script text color=0,1 made=3");
    r.wait_for("gone: ");
    let gone = r.wait_for("gone: ");
    assert!(gone.contains("gui.get_position: the node was deleted"), "{gone}");
    r.wait_for("added size=7");
    r.mark();
    p.write("/main/hud.gui_script", GUI_SCRIPT_V2);
    r.wait_for("gui on_reload n=");
    r.wait_for("gui v2 text=script text made=3");
}

/// A saved `.atlas` reaches the gui scenes that use it: packed again, a node playing an
/// animation the new atlas still has goes on with it at its rate, and the atlas's new
/// animations play.
#[test]
fn a_saved_atlas_reaches_the_gui_nodes_that_play_it() {
    let atlas_v1 = r#"{ "animations": [ { "id": "run", "images": [ { "image": "/main/a.png" }, { "image": "/main/b.png" } ], "fps": 2, "playback": "loop_forward" } ] }"#;
    let atlas_v2 = r#"{ "animations": [ { "id": "run", "images": [ { "image": "/main/b.png" }, { "image": "/main/a.png" } ], "fps": 2, "playback": "loop_forward" },
        { "id": "walk", "images": [ { "image": "/main/a.png" } ], "fps": 2, "playback": "loop_forward" } ] }"#;
    let p = project(
        "reload-gui-atlas",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            (
                "/main/hud.gui",
                r#"{ "script": "/main/hud.gui_script", "textures": [ { "name": "t", "texture": "/main/a.atlas" } ],
                     "nodes": [ { "id": "n", "texture": "t/run" }, { "id": "probe", "texture": "t/run" } ] }"#,
            ),
            ("/main/a.atlas", atlas_v1),
            (
                "/main/hud.gui_script",
                r#"
function init(self)
  self.n = 0
  gui.set_flipbook_playback_rate(gui.get_node("n"), 0.5)
end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    local n = gui.get_node("n")
    local walk = pcall(gui.play_flipbook, gui.get_node("probe"), "walk")
    print(string.format("atlas %s rate=%.1f walk=%s", tostring(gui.get_flipbook(n)), gui.get_flipbook_playback_rate(n), tostring(walk)))
  end
end
"#,
            ),
        ],
    );
    let png = sinew::project::gltf::samples::checker_png;
    std::fs::write(p.path().join("main/a.png"), png(8, 2, [255, 0, 0, 255], [0, 0, 255, 255])).expect("png");
    std::fs::write(p.path().join("main/b.png"), png(4, 2, [0, 255, 0, 255], [0, 0, 255, 255])).expect("png");
    let mut r = Running::start(p.path());
    r.wait_for("atlas hash: [run] rate=0.5 walk=false");
    r.mark();
    p.write("/main/a.atlas", atlas_v2);
    r.wait_for("reloaded /main/a.atlas");
    r.mark();
    r.wait_for("atlas hash: [run] rate=0.5 walk=true");
}

/// A saved `.font` reaches the gui scenes that use it: the text measures at the new size, and
/// the text the script set stays.
#[test]
fn a_saved_font_reaches_the_gui_text_that_uses_it() {
    let font = |size: u32| format!(r#"{{ "font": "/builtins/fonts/DejaVuSans.ttf", "size": {size} }}"#);
    let p = project(
        "reload-gui-font",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            (
                "/main/hud.gui",
                r#"{ "script": "/main/hud.gui_script", "fonts": [ { "name": "f", "font": "/main/f.font" } ],
                     "nodes": [ { "id": "t", "type": "text", "text": "file", "font": "f" } ] }"#,
            ),
            ("/main/f.font", &font(16)),
            (
                "/main/hud.gui_script",
                r#"
function init(self) self.n = 0 gui.set_text(gui.get_node("t"), "Score 12") end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    local t = gui.get_node("t")
    print(string.format("font text=%s width=%d", gui.get_text(t), gui.get_text_metrics_from_node(t).width))
  end
end
"#,
            ),
        ],
    );
    let mut r = Running::start(p.path());
    let width = |line: &str| -> f32 { line.rsplit('=').next().and_then(|w| w.parse().ok()).expect("width") };
    let before = width(&r.wait_for("font text=Score 12 width="));
    r.mark();
    p.write("/main/f.font", &font(32));
    r.wait_for("reloaded /main/f.font");
    r.mark();
    let after = width(&r.wait_for("font text=Score 12 width="));
    assert!((after / before - 2.0).abs() < 0.1, "twice the size, twice the width: {before} then {after}");
}

/// A sprite's custom material reloads as a model's does: a saved `.material` brings its new
/// constant defaults, a broken shader is reported and the previous program kept, a fixed one
/// is compiled again.
#[test]
fn a_sprite_material_reloads_on_save() {
    const VP: &str = "#version 140\nin vec4 position;\nin vec2 texcoord0;\nuniform mat4 mtx_viewproj;\nout vec2 uv;\nvoid main() { uv = texcoord0; gl_Position = mtx_viewproj * vec4(position.xyz, 1.0); }\n";
    const FP: &str = "#version 140\nin vec2 uv;\nuniform sampler2D texture_sampler;\nuniform vec4 glow;\nout vec4 out_color;\nvoid main() { out_color = texture(texture_sampler, uv) + glow; }\n";
    let p = project(
        "reload_sprite_material",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "sprite", "type": "sprite", "tile_set": "/main/a.atlas", "material": "/main/spr.material" },
                    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/a.atlas", r#"{ "images": [{ "image": "/main/a.png" }] }"#),
            (
                "/main/spr.material",
                r#"{ "vertex_program": "/main/spr.vp", "fragment_program": "/main/spr.fp", "fragment_constants": { "glow": [1, 0, 0, 0] } }"#,
            ),
            ("/main/spr.vp", VP),
            ("/main/spr.fp", FP),
            (
                "/main/s.script",
                "function init(self) self.n = 0 end\nfunction update(self)\n  self.n = self.n + 1\n  if self.n % 10 == 0 then print(\"glow \" .. tostring(go.get(\"#sprite\", \"glow\"))) end\nend\n",
            ),
        ],
    );
    let png = sinew::project::gltf::samples::checker_png;
    std::fs::write(p.path().join("main/a.png"), png(8, 2, [255, 0, 0, 255], [0, 0, 255, 255])).expect("png");
    let mut r = Running::start(p.path());
    r.wait_for("glow vmath.vector4(1, 0, 0, 0)");

    r.mark();
    p.write(
        "/main/spr.material",
        r#"{ "vertex_program": "/main/spr.vp", "fragment_program": "/main/spr.fp", "fragment_constants": { "glow": [0, 1, 0, 0] } }"#,
    );
    r.wait_for("reloaded /main/spr.material");
    r.wait_for("glow vmath.vector4(0, 1, 0, 0)");

    r.mark();
    p.write("/main/spr.fp", "#version 140\nout vec4 out_color;\nvoid main() { out_color = vec4(not_declared); }\n");
    r.wait_for("previous version of /main/spr.fp stays in use");
    r.mark();
    p.write("/main/spr.fp", FP);
    r.wait_for("reloaded /main/spr.fp");
    r.mark();
    r.wait_for("glow vmath.vector4(0, 1, 0, 0)");
}

/// A saved `.particlefx` reaches the gui particle nodes that show it: the script's next play
/// runs the new file's emitter (named in its emitter state function).
#[test]
fn a_saved_particlefx_reaches_the_gui_particle_nodes() {
    let effect = |id: &str| {
        format!(
            "emitters {{\n  id: \"{id}\"\n  mode: PLAY_MODE_ONCE\n  duration: 0.05\n  space: EMISSION_SPACE_WORLD\n  tile_source: \"/builtins/graphics/particle_blob.tilesource\"\n  animation: \"anim\"\n  max_particle_count: 8\n  type: EMITTER_TYPE_CIRCLE\n}}\n"
        )
    };
    let p = project(
        "reload-gui-particlefx",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            (
                "/main/hud.gui",
                r#"{ "script": "/main/hud.gui_script", "particlefxs": [ { "name": "fx", "particlefx": "/main/fx.particlefx" } ],
                     "nodes": [ { "id": "n", "type": "particlefx", "particlefx": "fx" } ] }"#,
            ),
            ("/main/fx.particlefx", &effect("first")),
            (
                "/main/hud.gui_script",
                r#"
function init(self) self.n = 0 end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    gui.play_particlefx(gui.get_node("n"), function(_, _, emitter, state)
      if state == particlefx.EMITTER_STATE_SPAWNING then print("emitter " .. tostring(emitter)) end
    end)
  end
end
"#,
            ),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("emitter hash: [first]");
    p.write("/main/fx.particlefx", &effect("second"));
    r.wait_for("reloaded /main/fx.particlefx");
    r.mark();
    r.wait_for("emitter hash: [second]");
}

/// A saved `.font` reaches the labels drawn with it while the game runs, and a broken one is
/// reported with the previous font kept (the label and its text stay either way).
#[test]
fn a_saved_font_reaches_the_labels_drawn_with_it() {
    let font = |size: &str| format!(r#"{{ "font": "/builtins/fonts/DejaVuSans.ttf", "size": {size} }}"#);
    let p = project(
        "reload-label-font",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "tag", "components": [
                    { "id": "label", "type": "label", "text": "hello", "font": "/main/ui.font" },
                    { "id": "script", "type": "script", "script": "/main/tag.script" } ] } ] }"#,
            ),
            ("/main/ui.font", &font("20")),
            (
                "/main/tag.script",
                r##"
function init(self) self.n = 0 end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then print("label says " .. label.get_text("#label")) end
end
"##,
            ),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("label says hello");
    p.write("/main/ui.font", &font("32"));
    r.wait_for("reloaded /main/ui.font");
    p.write("/main/ui.font", &font("-1"));
    r.wait_for("reload failed: the previous version of /main/ui.font stays in use");
    r.mark();
    r.wait_for("label says hello");
}

/// A saved `.gui` that gives a node another of its `materials` reaches the running instance;
/// one naming a `.material` that does not parse is reported (the materials are read before the
/// scene is swapped) and the previous scene stays.
#[test]
fn a_saved_gui_reaches_its_node_materials() {
    let gui = |node_material: &str, extra: &str| {
        format!(
            r#"{{ "script": "/main/hud.gui_script",
  "materials": [ {{ "name": "glow", "material": "/main/glow.material" }},
                 {{ "name": "plain", "material": "/builtins/materials/gui.material" }}{extra} ],
  "nodes": [ {{ "id": "box", "type": "box", "position": [50, 50, 0], "material": "{node_material}" }} ] }}"#
        )
    };
    let material = "name: \"glow\"\ntags: \"gui\"\nvertex_program: \"/builtins/materials/gui.vp\"\nfragment_program: \"/builtins/materials/gui.fp\"\nvertex_constants {\n  name: \"view_proj\"\n  type: CONSTANT_TYPE_VIEWPROJ\n}\n";
    let p = project(
        "reload-gui-material",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            ("/main/hud.gui", &gui("glow", "")),
            ("/main/glow.material", material),
            ("/main/broken.material", "name: \"broken\"\nvertex_program: 5\n"),
            (
                "/main/hud.gui_script",
                r##"
function init(self) self.n = 0 end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    print("box material " .. (gui.get_material(gui.get_node("box")) == hash("plain") and "plain" or "glow"))
  end
end
"##,
            ),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("box material glow");
    p.write("/main/hud.gui", &gui("plain", ""));
    r.wait_for("reloaded /main/hud.gui");
    r.mark();
    r.wait_for("box material plain");
    let broken = r#", { "name": "bad", "material": "/main/broken.material" }"#;
    p.write("/main/hud.gui", &gui("glow", broken));
    r.wait_for("the previous version of /main/hud.gui stays in use");
    r.mark();
    r.wait_for("box material plain");
}

/// A saved `.display_profiles` reaches the running scenes: a 32x32 window (portrait) shows the
/// layout of the profile that is portrait, so swapping the profiles' sizes switches the scene
/// to its other layout with `layout_changed`; a broken save keeps the previous profiles.
#[test]
fn saved_display_profiles_switch_the_layout() {
    let profiles = |a: (u32, u32), b: (u32, u32)| {
        format!(
            "profiles {{\n  name: \"A\"\n  qualifiers {{\n    width: {}\n    height: {}\n  }}\n}}\nprofiles {{\n  name: \"B\"\n  qualifiers {{\n    width: {}\n    height: {}\n  }}\n}}\n",
            a.0, a.1, b.0, b.1
        )
    };
    let p = project(
        "reload-display-profiles",
        &[
            (
                "/project.json",
                r#"{ "main_collection": "/main/main.collection", "display_profiles": "/main/ui.display_profiles" }"#,
            ),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [ { "id": "ui", "components": [
                    { "id": "hud", "type": "gui", "gui": "/main/hud.gui" } ] } ] }"#,
            ),
            ("/main/ui.display_profiles", &profiles((100, 200), (200, 100))),
            (
                "/main/hud.gui",
                r#"{ "script": "/main/hud.gui_script", "nodes": [ { "id": "box" } ],
  "layouts": [ { "name": "A", "nodes": [ { "id": "box", "position": [1, 0, 0] } ] },
               { "name": "B", "nodes": [ { "id": "box", "position": [2, 0, 0] } ] } ] }"#,
            ),
            (
                "/main/hud.gui_script",
                r##"
function init(self) self.n = 0 end
function on_message(self, id, m)
  if id == hash("layout_changed") then print("changed to " .. tostring(m.id)) end
end
function update(self)
  self.n = self.n + 1
  if self.n % 10 == 0 then
    print("layout " .. tostring(gui.get_layout()) .. " x " .. gui.get_position(gui.get_node("box")).x)
  end
end
"##,
            ),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("layout hash: [A] x 1");
    p.write("/main/ui.display_profiles", &profiles((200, 100), (100, 200)));
    // The script hears the switch in the frame the reload is logged after.
    r.wait_for("changed to hash: [B]");
    r.wait_for("reloaded /main/ui.display_profiles");
    r.mark();
    r.wait_for("layout hash: [B] x 2");
    p.write("/main/ui.display_profiles", "profiles {\n  name: \"A\"\n  qualifiers {\n    width: -3\n  }\n}\n");
    r.wait_for("the previous version of /main/ui.display_profiles stays in use");
    r.mark();
    r.wait_for("layout hash: [B] x 2");
}

/// A Defold collision object in a file of its own (`ball.collisionobject`, named by `ball.go`).
const BALL_CO: &str = r#"collision_shape: ""
type: COLLISION_OBJECT_TYPE_DYNAMIC
mass: 1.0
friction: 0.5
restitution: 0.0
group: "default"
mask: "default"
embedded_collision_shape {
  shapes {
    shape_type: TYPE_SPHERE
    position { x: 0.0 y: 0.0 z: 0.0 }
    rotation { x: 0.0 y: 0.0 z: 0.0 w: 1.0 }
    index: 0
    count: 1
  }
  data: 0.5
}
"#;

/// A saved component file (here a Defold `.collisionobject`) reaches the objects that use it,
/// as a saved `.go` does: the ball is made again with the new radius and rests higher; the
/// other objects keep their state; a broken save is reported with its position and the running
/// version stays.
#[test]
fn a_saved_collision_object_file_remakes_the_objects_that_use_it() {
    let ground = r#"embedded_components {\n  id: \"co\"\n  type: \"collisionobject\"\n  data: \"type: COLLISION_OBJECT_TYPE_STATIC\\nmass: 0.0\\nfriction: 0.5\\nrestitution: 0.0\\ngroup: \\\"default\\\"\\nmask: \\\"default\\\"\\nembedded_collision_shape {\\n  shapes {\\n    shape_type: TYPE_BOX\\n    position { x: 0.0 y: 0.0 z: 0.0 }\\n    rotation { x: 0.0 y: 0.0 z: 0.0 w: 1.0 }\\n    index: 0\\n    count: 3\\n  }\\n  data: 10.0\\n  data: 0.5\\n  data: 10.0\\n}\\n\"\n}\n"#;
    let collection = format!(
        "name: \"main\"\ninstances {{\n  id: \"ball\"\n  prototype: \"/main/ball.go\"\n  position {{ x: 0.0 y: 5.0 z: 0.0 }}\n}}\n\
         embedded_instances {{\n  id: \"ground\"\n  data: \"{ground}\"\n}}\n\
         embedded_instances {{\n  id: \"watch\"\n  data: \"components {{\\n  id: \\\"script\\\"\\n  component: \\\"/main/watch.script\\\"\\n}}\\n\"\n}}\n"
    );
    let p = project(
        "reload-collisionobject",
        &[
            (
                "/game.project",
                "[bootstrap]\nmain_collection = /main/main.collectionc\n\n[physics]\ngravity_y = -10.0\n",
            ),
            ("/main/main.collection", &collection),
            ("/main/ball.go", "components {\n  id: \"co\"\n  component: \"/main/ball.collisionobject\"\n}\n"),
            ("/main/ball.collisionobject", BALL_CO),
            (
                "/main/watch.script",
                "function init(self) self.n = 0 end\nfunction update(self)\n  self.n = self.n + 1\n  if self.n % 20 == 0 then print(string.format('n %d ball y %.2f', self.n, go.get_position('/ball').y)) end\nend\n",
            ),
        ],
    );
    let mut r = Running::start(p.path());
    // Radius 0.5 on a box whose top is at 0.5.
    r.wait_for("ball y 1.00");
    let before: u32 = r.wait_for(" ball y").split(' ').nth(1).and_then(|n| n.parse().ok()).expect("n");
    r.mark();
    p.write("/main/ball.collisionobject", &BALL_CO.replace("  data: 0.5\n", "  data: 2.0\n"));
    let line = r.wait_for("objects kept");
    assert!(
        line.contains("/main/ball.collisionobject: 2 objects kept, 0 moved, 0 added, 0 removed, 1 made again"),
        "{line}"
    );
    r.wait_for("ball y 2.50");
    // The watcher was not made again: its count went on.
    let after: u32 = r.wait_for(" ball y").split(' ').nth(1).and_then(|n| n.parse().ok()).expect("n");
    assert!(after > before, "the watcher kept its self: {before} then {after}");

    r.mark();
    p.write("/main/ball.collisionobject", "type: COLLISION_OBJECT_TYPE_DYNAMIC\nmass: ");
    r.wait_for("reload failed: the running version of /main/ball.collisionobject stays");
    r.mark();
    r.wait_for("ball y 2.50");
}

/// A saved render script (game.project's `[bootstrap] render`) runs its new callbacks with the
/// same `self`, after `on_reload`, as a game script does; one that no longer compiles keeps the
/// previous version drawing.
#[test]
fn a_saved_render_script_keeps_self_and_calls_on_reload() {
    const V1: &str = "function init(self) self.frames = 0 end\n\
        function update(self)\n  self.frames = self.frames + 1\n  \
        if self.frames % 20 == 0 then print('render v1 ' .. self.frames) end\nend\n";
    const V2: &str = "function init(self) print('init must not run again') end\n\
        function update(self)\n  self.frames = self.frames + 1\n  \
        if self.frames % 20 == 0 then print('render v2 ' .. self.frames) end\nend\n\
        function on_reload(self) print('render on_reload frames=' .. self.frames) end\n";
    let p = project(
        "reload_render",
        &[
            ("/game.project", "[bootstrap]\nmain_collection = /main/main.collectionc\nrender = /main/my.renderc\n"),
            ("/main/main.collection", "name: \"main\"\n"),
            ("/main/my.render", "script: \"/main/my.render_script\"\n"),
            ("/main/my.render_script", V1),
        ],
    );
    let mut r = Running::start(p.path());
    r.wait_for("render v1 20");
    r.mark();
    p.write("/main/my.render_script", V2);
    let line = r.wait_for("render on_reload frames=");
    let frames: u32 = line.trim_start_matches("render on_reload frames=").parse().expect("frames");
    assert!(frames >= 20, "self.frames carried over: {line}");
    r.wait_for("render v2");
    r.wait_for("reloaded /main/my.render_script");
    r.mark();
    p.write("/main/my.render_script", "function update(self) )\n");
    r.wait_for("the previous version of /main/my.render_script keeps running");
    r.wait_for("render v2");
    assert!(!r.seen.iter().any(|l| l.contains("init must not run again")));
}
