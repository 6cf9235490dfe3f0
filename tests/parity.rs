//! Defold parity cases found by acceptance tests, each a small Lua project run headless.
mod common;

/// Defold refreshes world transforms before it dispatches messages, so `go.set_parent(id,
/// parent, true)` right after `go.set_position` in the same callback keeps the *new* world
/// position, not last frame's.
#[test]
fn set_parent_keeps_the_world_position_set_in_the_same_callback() {
    let d = common::project(
        "parity_set_parent",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [
                    { "id": "parent", "position": [10, 0, 0], "scale": [2, 2, 2] },
                    { "id": "child", "position": [1, 2, 3] },
                    { "id": "judge", "components": [ { "id": "script", "type": "script", "script": "/main/judge.script" } ] }
                ] }"#,
            ),
            (
                "/main/judge.script",
                r#"local T = require "lua.test_helpers"
local frame = 0
function update(self, dt)
  frame = frame + 1
  if frame == 1 then
    go.set_position(vmath.vector3(5, 6, 7), "child")
    go.set_parent("child", "parent", true)
  elseif frame == 2 then
    T.near(go.get_world_position("child"), vmath.vector3(5, 6, 7), 1e-5, "world position kept")
    T.near(go.get_position("child"), vmath.vector3(-2.5, 3, 3.5), 1e-5, "local position under the scaled parent")
    -- And back out of the parent, again right after a move.
    go.set_position(vmath.vector3(0, 1, 0), "child")
    go.set_parent("child", nil, true)
  else
    T.near(go.get_world_position("child"), vmath.vector3(10, 2, 0), 1e-5, "world position kept on unparenting")
    T.done("parity_set_parent")
  end
end
"#,
            ),
        ],
    );
    let r = common::run_project(d.path(), 5, &[]);
    common::assert_lua_passed(&r, "parity_set_parent");
}

/// `euler` has one source: `go.get` reads the angles an Euler tween keeps and `go.set` keeps the
/// angles given, as Defold stores them, instead of re-deriving them from the rotation (which
/// folds 270° to -90° and 200° to -160°).
#[test]
fn euler_reads_back_what_was_set_or_animated() {
    let d = common::project(
        "parity_euler",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            (
                "/main/main.collection",
                r#"{ "name": "main", "objects": [
                    { "id": "spinner" }, { "id": "placed" },
                    { "id": "judge", "components": [ { "id": "script", "type": "script", "script": "/main/judge.script" } ] }
                ] }"#,
            ),
            (
                "/main/judge.script",
                r#"local T = require "lua.test_helpers"
local frame = 0
function init(self)
  go.animate("spinner", "euler.z", go.PLAYBACK_ONCE_FORWARD, 360, go.EASING_LINEAR, 1)
  go.set("placed", "euler", vmath.vector3(0, 0, 200))
  T.near(go.get("placed", "euler"), vmath.vector3(0, 0, 200), 1e-4, "set euler reads back as set")
  T.near(go.get("placed", "euler.z"), 200, 1e-4, "set euler.z reads back as set")
  local q = go.get_rotation("placed")
  T.near(q, vmath.quat_rotation_z(math.rad(200)), 1e-5, "the rotation follows")
end
function update(self, dt)
  frame = frame + 1
  if frame == 4 then
    -- Three tween updates of 0.25 s have run before this update.
    T.near(go.get("spinner", "euler.z"), 270, 1e-3, "euler read during a tween is the tween's angle")
    go.set("placed", "euler.z", 300)
    T.near(go.get("placed", "euler.z"), 300, 1e-4, "an element set reads back")
    -- Rotating by other means re-derives the angles.
    go.set_rotation(vmath.quat_rotation_z(math.rad(90)), "placed")
    T.near(go.get("placed", "euler.z"), 90, 1e-3, "a new rotation gives new angles")
    T.done("parity_euler")
  end
end
"#,
            ),
        ],
    );
    let r = common::run_project(d.path(), 6, &[]);
    common::assert_lua_passed(&r, "parity_euler");
}
