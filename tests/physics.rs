//! Collision objects (engine.md section 3) from Lua projects that assert numbers against
//! analytic values: resting height, contact and trigger messages, ray casts, a kinematic body
//! pushing a dynamic one, and the same positions from two runs.
mod common;
use common::*;

/// Runs a committed physics project for `frames` frames at exactly one 60 Hz step per frame.
fn run_steps(name: &str, frames: u32) -> Run {
    let p = committed(name);
    let frames = frames.to_string();
    let dir = p.path().to_str().expect("utf-8 path");
    sinew(&["run", dir, "--headless", "--size", "64x48", "--frames", &frames, "--fixed-dt", "0.016666668"])
}

#[test]
fn a_sphere_comes_to_rest_on_a_box() {
    let r = run_steps("physics_fall", 130);
    assert_lua_passed(&r, "physics_fall");
}

#[test]
fn trigger_enter_and_exit_once_each() {
    let r = run_steps("physics_trigger", 130);
    assert_lua_passed(&r, "physics_trigger");
}

#[test]
fn ray_casts_hit_where_the_geometry_says() {
    let r = run_steps("physics_raycast", 10);
    assert_lua_passed(&r, "physics_raycast");
}

/// The `trace` lines of a run: the positions it printed.
fn trace(r: &Run) -> Vec<String> {
    r.stdout.lines().filter(|l| l.starts_with("trace ")).map(str::to_string).collect()
}

#[test]
fn a_kinematic_body_pushes_a_dynamic_one_the_same_way_every_run() {
    let a = run_steps("physics_push", 160);
    assert_lua_passed(&a, "physics_push");
    let b = run_steps("physics_push", 160);
    assert_lua_passed(&b, "physics_push");
    let (ta, tb) = (trace(&a), trace(&b));
    assert_eq!(ta.len(), 15, "{}", a.show());
    assert_eq!(ta, tb, "two runs, two histories");
}
