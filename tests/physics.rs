//! Collision objects (engine.md section 3) from Lua projects that assert numbers against
//! analytic values: resting height, contact and trigger messages, ray casts, a kinematic body
//! pushing a dynamic one, and the same positions from two runs.
mod common;
use common::*;

/// Runs a committed physics project for `frames` frames at exactly one 60 Hz step per frame.
fn run_steps(name: &str, frames: u32) -> Run {
    run_dir(&committed(name), frames)
}

fn run_dir(p: &TempDir, frames: u32) -> Run {
    let frames = frames.to_string();
    let dir = p.path().to_str().expect("utf-8 path");
    sinew(&["run", dir, "--headless", "--size", "64x48", "--frames", &frames, "--fixed-dt", "0.016666668"])
}

#[test]
fn a_sphere_comes_to_rest_on_a_box() {
    let r = run_steps("physics_fall", 130);
    assert_lua_passed(&r, "physics_fall");
}

/// The same drop in a 2D world, with the ball drawn at z = 7, beyond the box's depth (half 5):
/// depth only orders drawing in 2D, so it lands all the same, and keeps its z.
#[test]
fn a_circle_comes_to_rest_on_a_box_in_2d() {
    let p = committed("physics_fall");
    let settings = r#"{ "title": "physics_fall_2d", "main_collection": "/main/main.collection",
        "fixed_update_frequency": 60, "physics": { "type": "2d", "gravity": [0, -10, 0] } }"#;
    p.write("/project.json", settings);
    let collection = std::fs::read_to_string(p.path().join("main/main.collection")).expect("collection");
    let moved = collection.replace(r#""position": [0, 3, 0]"#, r#""position": [0, 3, 7]"#);
    assert_ne!(moved, collection);
    p.write("/main/main.collection", &moved);
    let r = run_dir(&p, 130);
    assert_lua_passed(&r, "physics_fall_2d");
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

#[test]
fn spawned_deleted_disabled_and_enabled_objects() {
    let r = run_steps("physics_lifecycle", 70);
    assert_lua_passed(&r, "physics_lifecycle");
}

#[test]
fn joints_hold_swing_and_pull_as_the_formulas_say() {
    let r = run_steps("physics_joints", 190);
    assert_lua_passed(&r, "physics_joints");
}

/// `physics.debug`: every shape as wire lines (static white, dynamic green, kinematic blue,
/// trigger magenta), the ball's contacts on the ground in yellow, the frame's ray in red,
/// against a golden image.
#[test]
fn the_debug_view_matches_the_golden_image() {
    let p = committed("render_physics_debug");
    let shot = p.path().join("shot.png");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&[
        "run",
        dir,
        "--headless",
        "--size",
        "480x270",
        "--frames",
        "30",
        "--fixed-dt",
        "0.016666668",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    let img = sinew::render::Image::load_png(&shot).expect("screenshot");
    let count = |f: &dyn Fn([u8; 4]) -> bool| {
        (0..img.width)
            .flat_map(|x| (0..img.height).map(move |y| (x, y)))
            .filter(|&(x, y)| img.pixel(x, y).is_some_and(f))
            .count()
    };
    let red = count(&|p| p[0] > 200 && p[1] < 60 && p[2] < 60);
    let green = count(&|p| p[0] < 100 && p[1] > 200 && p[2] < 100);
    let magenta = count(&|p| p[0] > 200 && p[1] < 120 && p[2] > 200);
    assert!(red > 50 && green > 50 && magenta > 50, "ray {red}, dynamic {green}, trigger {magenta}");
    if let Err(e) = golden::check_golden("physics_debug", &img) {
        panic!("{e}");
    }
}
