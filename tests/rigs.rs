//! OBJ scenes, `.bon` rigs and joint limits (rigs.md) through the real binary: `inspect`,
//! `check`, and Lua projects run headless. Every model is generated at test time
//! (`sinew::project::bon::sample`, `sinew::project::gltf::samples`).
mod common;
use common::*;
use sinew::anim::skinning::rows_matrix;
use sinew::project::bon::sample;

const PROJECT: &str = r#"{ "title": "rigs", "main_collection": "/main/main.collection" }"#;

fn collection(objects: &str) -> String {
    format!(
        r#"{{ "name": "main", "objects": [ {{ "id": "tester", "components": [ {{ "id": "script", "type": "script", "script": "/main/test.script" }} ] }}, {objects} ] }}"#
    )
}

/// A project with the generated figure in /models and `script` as /main/test.script.
fn figure_project(tag: &str, script: &str) -> TempDir {
    let objects = r#"{ "id": "figure", "components": [ { "id": "model", "type": "model", "mesh": "/models/figure.bon" } ] },
        { "id": "statue", "position": [2, 0, 0], "components": [ { "id": "model", "type": "model", "mesh": "/models/figure.obj" } ] }"#;
    let d = project(
        tag,
        &[("/project.json", PROJECT), ("/main/main.collection", &collection(objects)), ("/main/test.script", script)],
    );
    sample::write_figure(&d.path().join("models"), 4, 6).unwrap();
    d
}

#[test]
fn inspect_bon_prints_bones_counts_and_writes_weights() {
    let d = figure_project("rig_inspect", "");
    let bon = d.path().join("models/figure.bon");
    let r = sinew(&["inspect", bon.to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.show());
    let out = &r.stdout;
    assert!(out.contains("obj: /figure.obj (504 vertices)"), "{out}");
    assert!(out.contains("bones: 21"), "{out}");
    assert!(
        out.contains(
            "bone 6 \"BrasG\": parent \"ClavG\", pivot EpauleG (0.18, 1.4, 0), end CoudeG (0.45, 1.4, 0), radius 0.075, min 0.2, max 0.8, limits (-80, -60, -100) .. (130, 85, 55)"
        ),
        "{out}"
    );
    assert!(out.contains("uncaptured vertices: 0"), "{out}");
    assert!(out.contains("skin 0 \"figure.obj\": 21 joints"), "{out}");
    // Every bone's tube is captured by it or shared with a neighbour.
    let captured: usize = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("vertices: "))
        .map(|l| l.split(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(captured, 504);

    let json_path = d.path().join("w.json");
    let r = sinew(&["inspect", bon.to_str().unwrap(), "--weights", json_path.to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.show());
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(v["bones"].as_array().unwrap().len(), 21);
    assert_eq!(v["bones"][0], "Bassin");
    let verts = v["vertices"].as_array().unwrap();
    assert_eq!(verts.len(), 504);
    for (i, pairs) in verts.iter().enumerate() {
        let pairs = pairs.as_array().unwrap();
        assert!(!pairs.is_empty() && pairs.len() <= 2, "vertex {i}: {pairs:?}");
        let sum: f64 = pairs.iter().map(|p| p[1].as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-12, "vertex {i}: {pairs:?}");
        let bones: Vec<u64> = pairs.iter().map(|p| p[0].as_u64().unwrap()).collect();
        assert!(bones.windows(2).all(|w| w[0] < w[1]), "sorted by bone index: {pairs:?}");
        assert!(pairs.iter().all(|p| p[1].as_f64().unwrap() > 0.0), "zero weights are left out");
    }
    // The first ring of BrasG's tube sits exactly on the shoulder, where ClavG ends and BrasG
    // starts (both along +X): as far from one as from the other in the file's decimals, so the
    // tie goes to ClavG, the earlier bone (rigs.md 2.3), which is rigid (MAX 1) and takes it
    // alone. Tube order: Bassin, Torse, Cou, Tete, Machoire, ClavG, BrasG -> BrasG starts at
    // 6 * 24. (Measured from the f32 positions, BrasG won by the rounding of 0.18.)
    let shoulder = verts[6 * 24].as_array().unwrap();
    assert_eq!(shoulder.len(), 1, "{shoulder:?}");
    assert_eq!(shoulder[0][0], 5);
    assert_eq!(shoulder[0][1].as_f64(), Some(1.0));
    // Its second ring (t = 1/3, inside MIN 0.2 .. MAX 0.8) is BrasG's alone.
    assert_eq!(verts[6 * 24 + 6].as_array().unwrap().iter().map(|p| p[0].as_u64()).collect::<Vec<_>>(), [Some(6)]);
}

#[test]
fn inspect_and_check_report_rig_mistakes_with_lines() {
    let d = figure_project("rig_errors", "");
    d.write("/models/bad.bon", "Read figure.obj\nBoneAxis A 0 0 0\nBone b Scene A Z\n");
    let r = sinew(&["inspect", d.path().join("models/bad.bon").to_str().unwrap()]);
    assert_eq!(r.status, 1);
    assert!(r.stderr.contains("bad.bon:3: unknown point 'Z'"), "{}", r.show());
    // Uncaptured vertices: `check` warns with the count.
    d.write(
        "/models/thin.bon",
        "Read figure.obj\nBoneAxis A 0 0 0\nBoneAxis B 0 2 0\nBone b Scene A B\nBoneInfluence 0.01 0 1\n",
    );
    let objects =
        r#"{ "id": "thin", "components": [ { "id": "model", "type": "model", "mesh": "/models/thin.bon" } ] }"#;
    d.write("/main/main.collection", &collection(objects));
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.show());
    let warning = r.stderr.lines().find(|l| l.starts_with("warning: /models/figure.obj: ")).unwrap_or_default();
    assert!(
        warning.ends_with(" of 504 vertices are inside no bone's radius (each goes to its nearest bone)"),
        "{}",
        r.show()
    );
    let n: usize = warning["warning: /models/figure.obj: ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!(n > 400 && n < 504, "{}", r.show());
    d.write(
        "/main/main.collection",
        &collection(
            r#"{ "id": "bad", "components": [ { "id": "model", "type": "model", "mesh": "/models/bad.bon" } ] }"#,
        ),
    );
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("/models/bad.bon:3: unknown point 'Z'"), "{}", r.show());
}

#[test]
fn obj_import_through_inspect_and_check() {
    let d = project("obj_import", &[("/project.json", PROJECT)]);
    d.write(
        "/m/scene.obj",
        "mtllib scene.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\no roof\nusemtl red\nf -5 -4 -3 -1 -2\ng floor\nusemtl glass\nf 1 2 3\n",
    );
    d.write("/m/scene.mtl", "newmtl red\nKd 1 0 0\nillum 2\nKe 0.5 0.25 0\nnewmtl glass\nKd 0.5 0.5 1\nd 0.25\n");
    let r = sinew(&["inspect", d.path().join("m/scene.obj").to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("mesh \"roof\": node 0 \"roof\", 1 primitive(s)"), "{}", r.stdout);
    assert!(r.stdout.contains("primitive 0: 5 vertices, 3 triangles, material 0, POSITION NORMAL"), "{}", r.stdout);
    assert!(r.stdout.contains("mesh \"floor\""), "{}", r.stdout);
    assert!(r.stdout.contains("material 1 \"glass\": base colour (0.5, 0.5, 1, 0.25)\n"), "{}", r.stdout);
    // `Ke` is the material's emissive term (drawn by the built-in material as glTF's).
    assert!(r.stdout.contains("material 0 \"red\": base colour (1, 0, 0, 1), emissive (0.5, 0.25, 0)"), "{}", r.stdout);
    // A missing .mtl: a warning, the default material.
    d.write("/m/lost.obj", "mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
    let r = sinew(&["inspect", d.path().join("m/lost.obj").to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stderr.contains("lost.obj:1: material library '/nowhere.mtl' not found"), "{}", r.show());
    assert!(r.stdout.contains("material default"), "{}", r.stdout);
    // An .mtl outside the project: refused, naming the OBJ line.
    d.write("/m/out.obj", "v 0 0 0\nmtllib ../../secret.mtl\n");
    let objects = r#"{ "id": "o", "components": [ { "id": "model", "type": "model", "mesh": "/m/out.obj" } ] }"#;
    d.write("/main/main.collection", &collection(objects));
    d.write("/main/test.script", "");
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("/m/out.obj:2: mtllib '../../secret.mtl' escapes the project root"), "{}", r.show());
    #[cfg(unix)]
    {
        // Through a symlink: the resource layer refuses it.
        std::fs::write(d.path().join("../sinew-rigs-secret.mtl"), "newmtl x\n").unwrap();
        std::os::unix::fs::symlink(d.path().join("../sinew-rigs-secret.mtl"), d.path().join("m/link.mtl")).unwrap();
        d.write("/m/out.obj", "v 0 0 0\nmtllib link.mtl\n");
        let r = sinew(&["check", d.path().to_str().unwrap()]);
        let _ = std::fs::remove_file(d.path().join("../sinew-rigs-secret.mtl"));
        assert_eq!(r.status, 1, "{}", r.show());
        assert!(r.stderr.contains("/m/out.obj:2: mtllib '/m/link.mtl'"), "{}", r.show());
        assert!(r.stderr.contains("leaves the project folder"), "{}", r.show());
    }
    // A malformed face.
    d.write("/m/out.obj", "v 0 0 0\nv 1 0 0\nf 1 2 900\n");
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert!(r.stderr.contains("/m/out.obj:3: face index 900 out of range (2 vertices)"), "{}", r.show());
}

const FIGURE_SCRIPT: &str = r#"
local T = require "lua.test_helpers"
function init(self)
  local arm = model.get_go("/figure#model", "BrasG")
  T.check(go.exists(arm), "a .bon bone has a game object")
  T.eq(go.get_parent(arm), hash("/figure"), "bones are children of the model object")
  T.near(go.get_position(arm), vmath.vector3(0.18, 1.4, 0), 1e-6, "BrasG rests at its pivot")
  T.err(function() model.get_go("/figure#model", "EpauleG") end, "could not be found")
  local m = model.get_mesh_aabb("/figure#model")
  T.check(m[hash("body")] ~= nil and m[hash("head")] ~= nil, "o/g names are mesh ids")
  model.set_mesh_enabled("/figure#model", "head", false)
  T.eq(model.get_mesh_enabled("/figure#model", "head"), false, "mesh switch by group name")
  local s = model.get_aabb("/statue#model")
  T.near(s.max.y, 1.8, 1e-5, "plain OBJ bounds")
  T.err(function() model.get_go("/statue#model", "BrasG") end, "could not be found")
  T.done("test")
end
"#;

#[test]
fn bon_and_obj_models_run() {
    let d = figure_project("rig_run", FIGURE_SCRIPT);
    let r = run_project(d.path(), 2, &[]);
    assert_lua_passed(&r, "test");
}

const LIMIT_SCRIPT: &str = r#"
local T = require "lua.test_helpers"
function init(self)
  self.frame = 0
  model.play_anim("/wiggler#model", "wiggle", go.PLAYBACK_NONE)
end
function update(self)
  self.frame = self.frame + 1
  go.set("/wiggler#model", "cursor", 0.5)
  if self.frame == 3 then
    local b1 = model.get_go("/wiggler#model", "Bone_001")
    local b2 = model.get_go("/wiggler#model", "Bone_002")
    -- The clip turns Bone_001 by 25 degrees about Z at 0.5 s; the limit stops it at 10.
    T.near(go.get(b1, "euler").z, 10, 1e-3, "go.get returns the clamped angle")
    -- Bone_002 (unlimited, -30 relative) follows its clamped parent: model angle 10 - 30.
    T.near(go.get(b2, "euler").z, -20, 1e-3, "child follows the clamped parent")
    local s = math.sin(math.rad(10))
    T.near(go.get_position(b2), vmath.vector3(-s, 1 + math.cos(math.rad(10)), 0), 1e-5, "child position")
    T.done("test")
  end
end
"#;

#[test]
fn model_joint_limits_clamp_animation() {
    let model = r#"{ "mesh": "/models/wiggler.glb", "joint_limits": { "Bone_001": { "min": [-10, -90, -10], "max": [10, 90, 10] } } }"#;
    let objects =
        r#"{ "id": "wiggler", "components": [ { "id": "model", "type": "model", "model": "/main/wiggler.model" } ] }"#;
    let d = project(
        "rig_limits",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &collection(objects)),
            ("/main/test.script", LIMIT_SCRIPT),
            ("/main/wiggler.model", model),
        ],
    );
    std::fs::create_dir_all(d.path().join("models")).unwrap();
    std::fs::write(d.path().join("models/wiggler.glb"), sinew::project::gltf::samples::wiggler()).unwrap();
    let r = run_project(d.path(), 4, &[]);
    assert_lua_passed(&r, "test");
    // A limit naming no joint and one with min > max are load errors with the file.
    d.write(
        "/main/wiggler.model",
        r#"{ "mesh": "/models/wiggler.glb", "joint_limits": { "Bone_9": { "min": [0, 0, 0], "max": [1, 1, 1] } } }"#,
    );
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("joint_limits: skeleton /models/wiggler.glb has no joint 'Bone_9'"), "{}", r.show());
    d.write(
        "/main/wiggler.model",
        r#"{ "mesh": "/models/wiggler.glb", "joint_limits": { "Bone": { "min": [0, 5, 0], "max": [1, 1, 1] } } }"#,
    );
    let r = sinew(&["check", d.path().to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("joint_limits 'Bone': min 5 is above max 1 on axis y"), "{}", r.show());
}

const POSE_SCRIPT: &str = r#"
local T = require "lua.test_helpers"
local function near_angle(a, b) return math.abs(((a - b + 180) % 360) - 180) < 1e-3 end
function init(self)
  self.frame = 0
  self.arm = model.get_go("/figure#model", "BrasG")
  self.fore = model.get_go("/figure#model", "AvBrasG")
  self.hand = model.get_go("/figure#model", "MainG")
end
function update(self)
  self.frame = self.frame + 1
  local f = self.frame
  if f == 1 then
    T.near(go.get_position(self.fore), vmath.vector3(0.45, 1.4, 0), 1e-6, "elbow at rest")
    go.set(self.arm, "euler.z", 30)
  elseif f == 2 then
    -- The forearm follows the arm: the elbow turns 30 degrees about the shoulder.
    local c, s = math.cos(math.rad(30)), math.sin(math.rad(30))
    T.near(go.get_position(self.fore), vmath.vector3(0.18 + 0.27 * c, 1.4 + 0.27 * s, 0), 1e-5, "elbow follows")
    T.near(go.get_position(self.hand), vmath.vector3(0.18 + 0.52 * c, 1.4 + 0.52 * s, 0), 1e-5, "wrist follows")
    T.eq(go.get(self.arm, "euler.z"), 30, "an angle within the limits reads back as written")
    -- Beyond BoneRmax Z 55: clamped.
    go.set(self.arm, "euler.z", 80)
  elseif f == 3 then
    T.near(go.get(self.arm, "euler").z, 55, 1e-3, "go.get returns the clamped angle")
    local c, s = math.cos(math.rad(55)), math.sin(math.rad(55))
    T.near(go.get_position(self.fore), vmath.vector3(0.18 + 0.27 * c, 1.4 + 0.27 * s, 0), 1e-5, "elbow at the limit")
    go.set_rotation(vmath.quat(), self.arm)
    -- The forearm's own limits: Z in [-5, 150]. 200 degrees is -160: 50 past 150, 155 short of -5.
    go.set(self.fore, "euler.z", 200)
  elseif f == 4 then
    T.near(go.get(self.fore, "euler").z, 150, 1e-3, "angles beyond 180 clamp modulo turns")
    T.near(go.get_position(self.fore), vmath.vector3(0.45, 1.4, 0), 1e-6, "arm back at rest")
    go.set(self.fore, "euler.z", 0)
    go.animate(self.arm, "euler.x", go.PLAYBACK_ONCE_FORWARD, 170, go.EASING_LINEAR, 0.5)
  elseif f == 5 then
    -- 0.25 s into 0.5 s: 85 degrees, within X [-80, 130].
    T.near(go.get(self.arm, "euler").x, 85, 1e-3, "tween within the limits")
  elseif f == 7 then
    T.near(go.get(self.arm, "euler").x, 130, 1e-3, "the tween stops at the limit")
    T.done("test")
  end
end
"#;

#[test]
fn scripts_pose_bon_bones_within_limits() {
    let d = figure_project("rig_pose", POSE_SCRIPT);
    let r = run_project(d.path(), 10, &[]);
    assert_lua_passed(&r, "test");
}

const RELOAD_SCRIPT: &str = r#"
function init(self)
  self.arm = model.get_go("/figure#model", "BrasG")
  go.set(self.arm, "euler.z", 30)
  self.last = ""
end
function update(self)
  local a = model.get_aabb("/figure#model")
  local line = string.format("STATE top %.3f arm %.3f", a.max.y, go.get(self.arm, "euler").z)
  if line ~= self.last then print(line) self.last = line end
end
"#;

#[test]
fn hot_reload_of_obj_mtl_and_bon_keeps_bone_poses() {
    let d = figure_project("rig_reload", RELOAD_SCRIPT);
    let mut run =
        spawn_sinew(&["run", d.path().to_str().unwrap(), "--headless", "--size", "32x32", "--fixed-dt", "0.016"]);
    let limit = std::time::Duration::from_secs(20);
    run.wait_for_stdout("STATE top 1.800 arm 30.000", limit);
    // The OBJ grows a spike: re-imported, re-rigged, the arm keeps its pose by name.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let mut obj = sample::figure_obj(4, 6);
    obj.push_str("v 0 3 0\nv 0.01 3 0\nv 0 3 0.01\nf -3 -2 -1\n");
    std::fs::write(d.path().join("models/figure.obj"), obj).unwrap();
    run.wait_for_stdout("STATE top 3.000 arm 30.000", limit);
    // A saved .mtl re-imports too (the pose still holds).
    std::fs::write(d.path().join("models/figure.mtl"), "newmtl body\nKd 1 0 0\nnewmtl head\nKd 0 1 0\n").unwrap();
    // The .bon narrows the arm's Z limit to 20: the kept pose is clamped by the new rig.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let bon = sample::figure_bon("figure.obj").replace("BoneRmax 130.0 85.0 55.0", "BoneRmax 130.0 85.0 20.0");
    std::fs::write(d.path().join("models/figure.bon"), bon).unwrap();
    run.wait_for_stdout("STATE top 3.000 arm 20.000", limit);
    run.signal("INT");
    let r = run.finish_within(std::time::Duration::from_secs(10));
    assert!(r.stderr.contains("reloaded /models/figure.obj"), "{}", r.show());
    assert!(r.stderr.contains("reloaded /models/figure.mtl"), "{}", r.show());
    assert!(r.stderr.contains("reloaded /models/figure.bon"), "{}", r.show());
}

/// Checks the demo's mannequin (content/main/mannequin.script on the generated rig) every frame,
/// after the pose (late_update): the forearms' local rotation (torso⁻¹ × forearm, as the script
/// composes it) is the asked-for curl up to the 150-degree limit, and the limit itself once the
/// script asks for more. Prints the torso's pose at frame 60 for the soft-waist check in Rust.
const DEMO_RIG_TESTER: &str = r#"
local T = require "lua.test_helpers"
local LIMIT = 150
local function qdot(a, b) return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w end
function init(self)
  self.frame, self.clamped, self.free = 0, 0, 0
  self.torso = model.get_go("/mannequin#model", "Torse")
  self.pelvis = model.get_go("/mannequin#model", "Bassin")
  self.left = model.get_go("/mannequin#model", "AvBrasG")
  self.right = model.get_go("/mannequin#model", "AvBrasD")
end
function late_update(self)
  self.frame = self.frame + 1
  local asked = go.get("/mannequin#script", "elbow")
  local expect = math.rad(math.min(asked, LIMIT))
  local torso = go.get_rotation(self.torso)
  local left = vmath.conj(torso) * go.get_rotation(self.left)
  local right = vmath.conj(torso) * go.get_rotation(self.right)
  if asked > LIMIT + 1 then
    self.clamped = self.clamped + 1
    T.check(math.abs(asked - LIMIT) > 1, "asked past the limit")
  elseif asked > 1 then
    self.free = self.free + 1
  end
  -- Within 0.1 degree (q and -q are the same rotation).
  local near = function(a, b) return math.abs(qdot(a, b)) > math.cos(math.rad(0.05)) end
  if not near(left, vmath.quat_rotation_z(expect)) or not near(right, vmath.quat_rotation_z(-expect)) then
    T.check(false, string.format("frame %d: asked %.2f, left %s right %s", self.frame, asked, tostring(left), tostring(right)))
  end
  if self.frame == 60 then
    local t, p = torso, go.get_rotation(self.pelvis)
    print(string.format("WAIST %.7f %.7f %.7f %.7f PELVIS %.7f %.7f %.7f %.7f", t.x, t.y, t.z, t.w, p.x, p.y, p.z, p.w))
    T.check(math.abs(t.w) < math.cos(math.rad(5)), "the torso is bent and turned at frame 60")
  end
  if self.frame == 150 then
    -- Frames 84..138 ask for more than 150 degrees: there the forearms hold still at the limit.
    T.check(self.clamped > 40, "frames clamped: " .. self.clamped)
    T.check(self.free > 40, "frames within the limit: " .. self.free)
    T.done("demo_rig")
  end
end
"#;

/// The demo's rig (content/main/mannequin.script and .model, the generator's mannequin files):
/// the elbows stop at their limit, and the soft waist blends: a vertex at the waist moves by a
/// fraction of the torso's motion that grows smoothly from pelvis (none) to chest (all).
#[test]
fn demo_mannequin_elbows_stop_at_the_limit_and_the_waist_bends_softly() {
    use glam::{Mat4, Quat, Vec3};
    use sinew::game::animation::{AnimState, Rig};
    use std::sync::Arc;
    let content = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/main");
    let read = |name: &str| std::fs::read_to_string(content.join(name)).unwrap();
    let (script, model) = (read("mannequin.script"), read("mannequin.model"));
    let objects = r#"{ "id": "mannequin", "components": [
        { "id": "model", "type": "model", "model": "/main/mannequin.model" },
        { "id": "script", "type": "script", "script": "/main/mannequin.script" } ] }"#;
    let d = project(
        "rig_demo",
        &[
            ("/project.json", PROJECT),
            ("/main/main.collection", &collection(objects)),
            ("/main/test.script", DEMO_RIG_TESTER),
            ("/main/mannequin.script", &script),
            ("/main/mannequin.model", &model),
        ],
    );
    for (name, text) in sample::mannequin_files() {
        d.write(&format!("/models/{name}"), &text);
    }
    let dir = d.path().to_str().unwrap();
    let r = sinew(&["run", dir, "--headless", "--size", "32x32", "--frames", "160", "--fixed-dt", "0.0166667"]);
    assert_lua_passed(&r, "demo_rig");
    assert!(!r.stderr.contains("warn"), "{}", r.show());

    // The pose the script set at frame 60, applied to the rig on the CPU as the renderer skins it.
    let line = r.stdout.lines().find_map(|l| l.strip_prefix("WAIST ")).unwrap_or_else(|| panic!("{}", r.show()));
    let nums: Vec<f32> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert_eq!(nums.len(), 8, "{line}");
    let (torso, pelvis) = (Quat::from_slice(&nums[0..4]), Quat::from_slice(&nums[4..8]));
    assert!(pelvis.angle_between(Quat::IDENTITY) < 1e-4, "the script leaves the pelvis alone");
    let res = sinew::project::Resources::open_dir(d.path()).unwrap();
    let imported = sinew::project::import::import_model(&res, "/models/mannequin.bon").unwrap();
    let data = imported.data;
    let rig = Arc::new(Rig::new(&data.source, &data, &[&data]).unwrap());
    let sk = &rig.skeleton;
    let (b, t) = (sk.find_joint("Bassin").unwrap(), sk.find_joint("Torse").unwrap());
    let mut locals = sk.rest().to_vec();
    locals[t].rotation = torso;
    let mut world = vec![Mat4::IDENTITY; sk.node_count()];
    sk.local_to_model(&locals, &mut world).unwrap();
    let mut state = AnimState::with_meshes(rig.clone(), &data);
    sk.palette_rows(0, &world, &mut state.palette).unwrap();
    let posed = sinew::game::posed::pose_with(&data, Some(&state), &[]);
    let (pelvis_m, torso_m) = (rows_matrix(&state.palette[b]), rows_matrix(&state.palette[t]));
    let rides_torso = |mut j: usize| loop {
        if j == t {
            return true;
        }
        match sk.parent(j) {
            Some(p) => j = p,
            None => return false,
        }
    };

    // Trunk vertices on the front (z > 0.08, |x| < 0.02) from hips to chest, by height.
    let body = data.meshes.iter().position(|m| m.id == "body").unwrap();
    let mut front: Vec<(f32, f32, f32)> = Vec::new(); // (height, fraction, torso weight)
    for p in posed.iter().filter(|p| p.mesh == body) {
        let prim = &data.meshes[body].primitives[p.primitive];
        for (i, rest) in prim.positions.iter().enumerate() {
            let v = Vec3::from_array(*rest);
            if v.z < 0.08 || v.x.abs() > 0.02 || !(0.9..=1.4).contains(&v.y) {
                continue;
            }
            let (from, to) = (pelvis_m.transform_point3(v), torso_m.transform_point3(v));
            let moved = Vec3::from_array(p.positions[i]);
            let f = (moved - from).dot(to - from) / (to - from).length_squared();
            // On the straight line between the two bones' motions, at the weight of the bones
            // that ride the torso (it and its descendants: the neck and clavicles at the chest).
            let w: f32 = prim.joints[i]
                .iter()
                .zip(prim.weights[i])
                .filter(|(j, _)| rides_torso(**j as usize))
                .map(|x| x.1)
                .sum();
            assert!((moved - from.lerp(to, f)).length() < 1e-4, "y {}: off the blend line", v.y);
            assert!((f - w).abs() < 1e-3, "y {}: moved {f} of the torso's motion, torso weight {w}", v.y);
            front.push((v.y, f, w));
        }
    }
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    front.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-4);
    let at = |y: f32| front.iter().min_by(|a, b| (a.0 - y).abs().total_cmp(&(b.0 - y).abs())).unwrap().1;
    println!("waist fractions (height, fraction): {:?}", front.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>());
    assert!(at(0.95) < 0.01, "the hips stay with the pelvis: {front:?}");
    assert!(at(1.35) > 0.99, "the chest moves with the torso: {front:?}");
    let waist = at(1.15);
    assert!((0.3..=0.7).contains(&waist), "the waist moves {waist} of the torso's motion: {front:?}");
    assert!(front.iter().filter(|x| x.1 > 0.05 && x.1 < 0.95).count() >= 4, "a soft band, not a step: {front:?}");
    for pair in front.windows(2) {
        assert!(pair[1].1 >= pair[0].1 - 1e-4, "the share grows with height: {pair:?}");
        assert!(pair[1].1 - pair[0].1 < 0.3, "no crease: {pair:?}");
    }
}
