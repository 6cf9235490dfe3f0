//! Collision objects (engine.md section 3) from Lua projects that assert numbers against
//! analytic values: resting height, contact and trigger messages, ray casts, a kinematic body
//! pushing a dynamic one, and the same positions from two runs.
mod common;
use common::*;

/// Runs a committed physics project for `frames` frames at exactly one 60 Hz step per frame.
fn run_steps(name: &str, frames: u32) -> Run {
    run_dir(&committed(name), frames)
}

/// Committed project `name` with project.json's `"physics"` given by `physics` (its members),
/// titled `name`, 60 fixed updates a second.
fn with_physics(name: &str, physics: &str) -> TempDir {
    let p = committed(name);
    p.write(
        "/project.json",
        &format!(
            r#"{{ "title": "{name}", "main_collection": "/main/main.collection", "fixed_update_frequency": 60,
            "physics": {{ {physics} }} }}"#
        ),
    );
    p
}

fn run_dir(p: &TempDir, frames: u32) -> Run {
    run_sized(p, frames, "64x48", &[])
}

fn run_sized(p: &TempDir, frames: u32, size: &str, extra: &[&str]) -> Run {
    let frames = frames.to_string();
    let dir = p.path().to_str().expect("utf-8 path");
    let mut args = vec!["run", dir, "--headless", "--size", size, "--frames", &frames, "--fixed-dt", "0.016666668"];
    args.extend_from_slice(extra);
    sinew(&args)
}

#[test]
fn a_sphere_comes_to_rest_on_a_box() {
    let r = run_steps("physics_fall", 160);
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
    let r = run_dir(&p, 160);
    assert_lua_passed(&r, "physics_fall_2d");
}

/// A box dropped in place of the ball rests at the same height; its contact with the ground
/// has the points of the dimension's manifold: a face on a face is four corners in 3D, and in a
/// 2D world (rapier2d, as Defold's Box2D) an edge on an edge is two, where a ball has one.
#[test]
fn a_box_rests_on_four_points_in_3d_and_two_in_2d() {
    let sphere = r#"{ "shape_type": "sphere", "data": [0.5] }"#;
    let cube = r#"{ "shape_type": "box", "data": [0.5, 0.5, 0.5] }"#;
    for (shape, two_d, points) in [(sphere, false, 1), (cube, false, 4), (sphere, true, 1), (cube, true, 2)] {
        let p = committed("physics_fall");
        let collection = std::fs::read_to_string(p.path().join("main/main.collection")).expect("collection");
        let dropped = collection.replace(sphere, shape);
        assert_eq!(dropped == collection, shape == sphere);
        p.write("/main/main.collection", &dropped);
        let name = if two_d { "physics_fall_2d" } else { "physics_fall" };
        let dimension = if two_d { "2d" } else { "3d" };
        let settings = format!(
            r#"{{ "title": "{name}", "main_collection": "/main/main.collection", "fixed_update_frequency": 60,
                "physics": {{ "type": "{dimension}", "gravity": [0, -10, 0] }} }}"#
        );
        p.write("/project.json", &settings);
        let r = run_dir(&p, 160);
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        assert_lua_passed(&r, name);
        let want = format!("contact points a step at rest {points}\n");
        assert!(r.stdout.contains(&want), "{dimension} {shape}: want {want:?}\n{}", r.show());
    }
}

/// The same drop onto a hull: the ground box's eight corners as a convex hull in 3D, and its
/// four corners in the plane (a flat hull, given a thickness) in 2D, rest the ball at the same
/// analytic height.
#[test]
fn a_sphere_comes_to_rest_on_a_hull() {
    let box_shape = r#"{ "shape_type": "box", "data": [5, 0.5, 5] }"#;
    let solid = r#"{ "shape_type": "hull", "data": [-5, -0.5, -5, 5, -0.5, -5, 5, 0.5, -5, -5, 0.5, -5, -5, -0.5, 5, 5, -0.5, 5, 5, 0.5, 5, -5, 0.5, 5] }"#;
    let flat = r#"{ "shape_type": "hull", "data": [-5, -0.5, 0, 5, -0.5, 0, 5, 0.5, 0, -5, 0.5, 0] }"#;
    for (hull, two_d) in [(solid, false), (flat, true)] {
        let p = committed("physics_fall");
        let collection = std::fs::read_to_string(p.path().join("main/main.collection")).expect("collection");
        let with_hull = collection.replace(box_shape, hull);
        assert_ne!(with_hull, collection);
        p.write("/main/main.collection", &with_hull);
        let name = if two_d { "physics_fall_2d" } else { "physics_fall" };
        if two_d {
            let settings = r#"{ "title": "physics_fall_2d", "main_collection": "/main/main.collection",
                "fixed_update_frequency": 60, "physics": { "type": "2d", "gravity": [0, -10, 0] } }"#;
            p.write("/project.json", settings);
        }
        let r = run_dir(&p, 160);
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        assert_lua_passed(&r, name);
    }
}

/// `go.animate` of `linear_damping` and `angular_damping` reaches the rapier body as `go.set` does.
/// A velocity tweened toward NaN is refused by the body: that tween stops with one error at its
/// `go.animate`, and a tween started after it still runs and calls back on time.
#[test]
fn collision_object_properties_animate() {
    let r = run_steps("physics_animate", 72);
    assert_lua_passed(&r, "physics_animate");
    let refused = "/main/animate.script:11: go.animate of 'linear_velocity' of 'main:/plank#co': \
                   the value must be finite; the tween is stopped";
    assert_eq!(r.stderr.matches(refused).count(), 1, "{}", r.show());
    assert_eq!(r.stderr.matches("ERROR").count(), 1, "{}", r.show());
}

/// A trigger's enter and exit once each, and a `collision_response` to both sides every step
/// while they overlap (as Defold's engines report a trigger's overlaps), no contact point; in
/// 3D none under a `contact_impulse_limit` (Bullet's trigger manifolds push nothing), in 2D the
/// same as without (Box2D's sensor contacts are reported apart).
#[test]
fn trigger_enter_and_exit_once_each_and_collide_while_overlapping() {
    let r = run_steps("physics_trigger", 130);
    assert_lua_passed(&r, "physics_trigger");
    for (two_d, limit) in [(true, 0), (false, 1), (true, 1)] {
        let dimension = if two_d { "2d" } else { "3d" };
        let p = with_physics(
            "physics_trigger",
            &format!(r#""type": "{dimension}", "gravity": [0, 0, 0], "contact_impulse_limit": {limit}"#),
        );
        p.write("/main/mode.lua", &format!("return {{ two_d = {two_d}, impulse_limit = {limit} }}\n"));
        let r = run_dir(&p, 130);
        assert_lua_passed(&r, "physics_trigger");
    }
}

/// `physics.set_event_listener`: the world's trigger, collision, contact point and ray cast
/// events reach one function instead of messages, with Defold's fields; without it, messages.
#[test]
fn an_event_listener_hears_the_world_instead_of_messages() {
    let r = run_steps("physics_listener", 165);
    assert_lua_passed(&r, "physics_listener");
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
}

/// A tile map as a collision shape (Defold's `collision_shape` naming a `.tilemap`): each tile's
/// hull made from the tile source's collision image, in the tile's collision group, turned as
/// its cell; `collision_response`'s `own_group` is the tile's group, ray casts meet tiles, and
/// `tilemap.set_tile` changes the shape. The tile source is an 8x8 image of four 4-pixel tiles:
/// opaque ("ground"), opaque in its lower half ("danger"), empty, and opaque without a group.
#[test]
fn balls_rest_on_a_tile_maps_hulls_in_their_tiles_groups() {
    let p = committed("physics_tilemap");
    let rgba = (0..8u32)
        .flat_map(|y| (0..8u32).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let opaque = match (x < 4, y < 4) {
                (true, true) | (false, false) => true,
                (false, true) => y >= 2,
                (true, false) => false,
            };
            if opaque { [0, 160, 0, 255] } else { [0, 0, 0, 0] }
        })
        .collect();
    let tiles = sinew::render::Image { width: 8, height: 8, rgba };
    tiles.save_png(&p.path().join("main/tiles.png")).expect("tiles.png");
    let r = run_dir(&p, 245);
    assert_lua_passed(&r, "physics_tilemap");
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
}

/// Box2D's own API (`b2d.*`) at Defold's scale 0.01 and gravity -900: bodies, shapes made,
/// changed and destroyed, queries, sensors, prismatic and mouse joints, bad arguments.
#[test]
fn lua_api_b2d() {
    let r = run_steps("api_b2d", 125);
    assert_lua_passed(&r, "api_b2d");
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
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
    // The refused forces, each once, naming the sender and the receiver.
    let from = "apply_force sent from main:/pusher#script to main:/puck#co: ";
    for refused in [
        "force and position must be finite (force (NaN, 0, 0), position (0, 20, 10))",
        "force and position must be finite (force (5, 0, 0), position (0, inf, 10))",
        "needs vector3 `force` and `position`",
    ] {
        assert_eq!(a.stderr.matches(&format!("{from}{refused}")).count(), 1, "{}", a.show());
    }
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
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(all.contains("physics.create_joint: unknown joint property 'speed' ignored"), "{}", r.show());
}

/// Defold's six joint kinds by its own property names (`damping`, read-only `joint_angle`,
/// `joint_translation`, `joint_speed`), each kind's own fields from `get_joint_properties`, a
/// spring at frequency 0 as Box2D's rigid distance joint, rigid and soft welds, a sprung and
/// motored wheel: the same numbers in a 3D world and in a 2D one (Defold's joints are Box2D's).
#[test]
fn defold_joint_kinds_and_their_properties_in_3d_and_2d() {
    passes_in_3d_and_2d("physics_joints_defold", 121);
}

/// Runs committed project `name` (a 3D world, g = 10 at 60 Hz) and again as a 2D world.
fn passes_in_3d_and_2d(name: &str, frames: u32) {
    let r = run_steps(name, frames);
    assert_lua_passed(&r, name);
    let p = with_physics(name, r#""type": "2d", "gravity": [0, -10, 0]"#);
    let r = run_dir(&p, frames);
    assert_lua_passed(&r, name);
}

/// `physics.get_shape` / `set_shape` by shape id: sizes as Defold gives them (diameters, a
/// box's whole dimensions), a ball and the ground under it resized move where the ball rests,
/// bad requests are Lua errors naming the problem; in a 3D world and in a 2D one.
#[test]
fn shapes_are_read_and_resized_by_id_in_3d_and_2d() {
    passes_in_3d_and_2d("physics_shapes", 301);
}

/// Shapes take their game object's scale (the smallest axis's), when made and when it changes:
/// a scaled ball rests on a scaled ground where the sizes say, scaled back it settles lower and
/// a ray finds its new top; a factory's scale too; in 3D and in 2D.
#[test]
fn shapes_take_their_objects_scale_in_3d_and_2d() {
    passes_in_3d_and_2d("physics_scale", 181);
}

/// A script moving or turning a dynamic body's game object moves the body, as Defold's with
/// `allow_dynamic_transforms` (its default): a falling ball put elsewhere is there a frame later,
/// falling on at its speed, and lands there; a lying plank stood up is found standing by a ray; a
/// ball under a scaled parent rests where its world size says, is carried when the parent moves
/// (a ray finds the body there) and shrinks when the parent's scale does.
/// With the setting off (in project.json; game.project's key is read in `project::physics_tests`) the bodies keep their own places
/// and their objects follow them again; in 3D and in 2D.
#[test]
fn scripts_move_dynamic_bodies_unless_the_project_says_not_to() {
    passes_in_3d_and_2d("physics_teleport", 221);
    for ty in ["3d", "2d"] {
        let p = committed("physics_teleport");
        p.write(
            "/project.json",
            &format!(
                r#"{{ "title": "physics_teleport", "main_collection": "/main/main.collection", "fixed_update_frequency": 60,
                "physics": {{ "type": "{ty}", "gravity": [0, -10, 0], "allow_dynamic_transforms": false }} }}"#
            ),
        );
        let r = run_dir(&p, 221);
        assert_lua_passed(&r, "physics_teleport");
    }
}

/// A Defold project steps its physics as Defold does: once a frame by the frame's time unless
/// game.project says `use_fixed_timestep = 1`, then whole steps of the fixed-update frequency, at
/// most `max_fixed_timesteps` (2) a frame. At 30 frames a second a ball falls for 30 frames:
/// 30 steps of 1/30, 60 of 1/60, or 30 of 1/60 with one step a frame at most.
#[test]
fn a_defold_project_steps_physics_as_its_game_project_says() {
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects/physics_timestep_defold/game.project"),
    )
    .expect("game.project");
    for extra in ["", "use_fixed_timestep = 1\n", "use_fixed_timestep = 1\nmax_fixed_timesteps = 1\n"] {
        let p = committed("physics_timestep_defold");
        p.write("/game.project", &format!("{base}{extra}"));
        let dir = p.path().to_str().expect("utf-8 path");
        let r = sinew(&["run", dir, "--headless", "--size", "64x48", "--frames", "32", "--fixed-dt", "0.033333335"]);
        assert_lua_passed(&r, "physics_timestep_defold");
    }
}

/// `contact_point_response`'s `applied_impulse` in world units (Defold divides by the physics
/// scale, as for positions): a resting ball's is m g dt. With `contact_impulse_limit` above
/// that, the resting ball sends nothing and its landing still reports; in 3D and 2D, at
/// physics scale 0.5.
#[test]
fn contact_impulses_are_in_world_units_and_the_limit_filters_them() {
    for mode in ["3d", "2d"] {
        for limit in ["0", "1"] {
            let p = with_physics(
                "physics_impulse",
                &format!(r#""type": "{mode}", "gravity": [0, -10, 0], "scale": 0.5, "contact_impulse_limit": {limit}"#),
            );
            p.write("/main/limit.lua", &format!("return {limit}\n"));
            let r = run_dir(&p, 151);
            assert_lua_passed(&r, "physics_impulse");
        }
    }
}

/// Friction and restitution combine as in Defold's engines (Box2D in 2D: geometric mean and
/// larger; Bullet in 3D: products), checked against the formulas: a box's sliding distance
/// v² / (2 μ g), a ball's bounce height e² h; a slow contact does not bounce in 2D (Box2D's
/// 1 unit a second threshold) unless `velocity_threshold` is 0.
#[test]
fn friction_and_restitution_combine_as_in_defold() {
    for physics in [r#""type": "3d""#, r#""type": "2d""#, r#""type": "2d", "velocity_threshold": 0"#] {
        let p = with_physics("physics_material", &format!(r#"{physics}, "gravity": [0, -10, 0]"#));
        let r = run_dir(&p, 241);
        assert_lua_passed(&r, "physics_material");
    }
}

/// Defold's `max_collisions` / `max_contacts`: at most that many touching pairs and contact
/// points reported a step, the rest lost with one warning (not one a step); 0, none lost.
#[test]
fn message_limits_drop_what_is_over_them_with_one_warning() {
    let r = run_steps("physics_limits", 61);
    assert_lua_passed(&r, "physics_limits");
    assert_eq!(r.stderr.matches("touching pairs reported this step").count(), 1, "{}", r.show());
    assert_eq!(r.stderr.matches("contact points reported this step").count(), 1, "{}", r.show());
    let p = with_physics("physics_limits", r#""gravity": [0, -10, 0], "max_collisions": 0, "max_contacts": 0"#);
    let r = run_dir(&p, 61);
    assert_lua_passed(&r, "physics_limits");
    assert!(!r.stderr.contains("reported this step"), "{}", r.show());
}

/// Defold's per-object event switches (`event_collision`, `event_contact`, `event_trigger`):
/// each decides which messages its own object's scripts are sent; a world's event listener gets
/// a pair's events when either side's switch is on.
#[test]
fn event_switches_decide_what_each_object_is_sent() {
    let r = run_steps("physics_event_flags", 91);
    assert_lua_passed(&r, "physics_event_flags");
    let p = committed("physics_event_flags");
    p.write("/main/mode.lua", "return { listener = true }\n");
    let r = run_dir(&p, 91);
    assert_lua_passed(&r, "physics_event_flags");
}

/// Each side of a contact is told the point Defold's engine of the dimension gives it: in 3D
/// (Bullet) the point on its own surface, in 2D (Box2D) the point midway, with messages and with
/// an event listener: a kinematic ball sunk 0.2 into static ground. Left in place, the ball
/// falls asleep and the contact stops reporting; moved, it reports again.
#[test]
fn each_side_of_a_contact_gets_its_point_as_in_defold() {
    for two_d in [false, true] {
        for listener in [false, true] {
            let dimension = if two_d { "2d" } else { "3d" };
            let p = with_physics("physics_contact_sides", &format!(r#""type": "{dimension}", "gravity": [0, -10, 0]"#));
            p.write("/main/mode.lua", &format!("return {{ two_d = {two_d}, listener = {listener} }}\n"));
            let r = run_dir(&p, 91);
            assert_lua_passed(&r, "physics_contact_sides");
        }
    }
}

/// `physics.debug`: every shape as wire lines (static white, dynamic green, kinematic blue,
/// trigger magenta), the ball's contacts on the ground in yellow, the frame's ray in red,
/// against a golden image.
#[test]
fn the_debug_view_matches_the_golden_image() {
    let p = committed("render_physics_debug");
    let shot = p.path().join("shot.png");
    let r = run_sized(&p, 30, "480x270", &["--no-watch", "--screenshot", shot.to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.show());
    let img = sinew::render::Image::load_png(&shot).expect("screenshot");
    // Pixels of the ray (red), the dynamic ball (green) and the trigger (magenta).
    let (mut red, mut green, mut magenta) = (0, 0, 0);
    for (x, y) in (0..img.width).flat_map(|x| (0..img.height).map(move |y| (x, y))) {
        let Some([r, g, b, _]) = img.pixel(x, y) else { continue };
        red += usize::from(r > 200 && g < 60 && b < 60);
        green += usize::from(r < 100 && g > 200 && b < 100);
        magenta += usize::from(r > 200 && g < 120 && b > 200);
    }
    assert!(red > 50 && green > 50 && magenta > 50, "ray {red}, dynamic {green}, trigger {magenta}");
    if let Err(e) = golden::check_golden("physics_debug", &img) {
        panic!("{e}");
    }
}

/// Defold's `msg.post("@system:", "toggle_physics_debug")` turns the debug view on at run time
/// in a project without `physics.debug` (the same picture as the golden image of the setting),
/// and a second toggle turns it off again.
#[test]
fn toggle_physics_debug_turns_the_debug_view_on_and_off() {
    for toggles in [1, 2] {
        let p = committed("render_physics_debug");
        p.write(
            "/project.json",
            r#"{ "title": "render_physics_debug", "main_collection": "/main/main.collection",
                "fixed_update_frequency": 60, "physics": { "gravity": [0, -10, 0] } }"#,
        );
        p.write(
            "/main/rays.script",
            &format!(
                "function init(self)\n  for _ = 1, {toggles} do msg.post(\"@system:\", \"toggle_physics_debug\") end\nend\n\
                 function update(self)\n  physics.raycast(vmath.vector3(-3.5, 3, 0), vmath.vector3(3.5, 0.5, 0), {{ hash(\"world\") }})\nend\n"
            ),
        );
        let shot = p.path().join("shot.png");
        let r = run_sized(&p, 30, "480x270", &["--no-watch", "--screenshot", shot.to_str().expect("utf-8")]);
        assert_eq!(r.status, 0, "{}", r.show());
        assert!(!r.stderr.contains("not supported"), "{}", r.show());
        let img = sinew::render::Image::load_png(&shot).expect("screenshot");
        let lines = (0..img.width)
            .flat_map(|x| (0..img.height).map(move |y| (x, y)))
            .filter_map(|(x, y)| img.pixel(x, y))
            .filter(|&[r, g, b, _]| (r > 200 && g < 60 && b < 60) || (r < 100 && g > 200 && b < 100))
            .count();
        if toggles == 1 {
            if let Err(e) = golden::check_golden("physics_debug", &img) {
                panic!("toggled on: {e}");
            }
        } else {
            assert_eq!(lines, 0, "toggled twice: no ray and no dynamic shape drawn");
        }
    }
}

/// A kinematic hitbox parented to a bone object of an animated model (the generated robot
/// arm) follows the pose every step and enters a trigger at the step its pose reaches it.
#[test]
fn a_hitbox_on_a_bone_follows_the_animation() {
    let p = committed("physics_hitbox");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/arm.glb"), sinew::project::gltf::robot_arm::robot_arm()).expect("arm");
    let r = run_dir(&p, 50);
    assert_lua_passed(&r, "physics_hitbox");
}

/// `physics.set_hflip`/`set_vflip` mirror a 2D object's shapes (offsets and turns), checked by
/// ray casts against the analytic surfaces.
#[test]
fn flips_mirror_the_shapes_of_a_2d_object() {
    let r = run_steps("physics_flip", 2);
    assert_lua_passed(&r, "physics_flip");
}

/// Only Defold's Box2D flips: in a 3D world the call is a Lua error naming the function.
#[test]
fn flips_are_refused_in_a_3d_world() {
    let p = committed("physics_flip");
    p.write(
        "/project.json",
        r#"{ "title": "physics_flip_3d", "main_collection": "/main/main.collection", "physics": { "type": "3d" } }"#,
    );
    let r = run_dir(&p, 2);
    assert_lua_passed(&r, "physics_flip_3d");
    assert!(
        r.stdout.contains("flip refused")
            && r.stdout.contains("physics.set_hflip: flipping shapes needs a 2D physics world"),
        "{}",
        r.show()
    );
}

/// `physics.update_mass`: the new mass is read back at once and a force moves it as F = m·a;
/// bad values and a static object are refused naming the function.
#[test]
fn update_mass_changes_how_a_force_moves_a_body() {
    let r = run_steps("physics_mass", 8);
    assert_lua_passed(&r, "physics_mass");
}

/// Issue 34, bad input: seeded random calls of the physics API, properties and messages with
/// hostile arguments, 40 a frame for 240 frames, in 3D and in 2D (tests/projects/physics_fuzz):
/// many are refused with a Lua error, none crashes, every object's transform stays finite and
/// a probe sphere no call touches still lands on the ground.
#[test]
fn hostile_physics_calls_never_crash_or_poison_the_world() {
    for two_d in [false, true] {
        let p = committed("physics_fuzz");
        if two_d {
            p.write(
                "/project.json",
                r#"{ "title": "physics_fuzz", "main_collection": "/main/main.collection", "fixed_update_frequency": 60,
                    "physics": { "type": "2d", "gravity": [0, -10, 0] } }"#,
            );
        }
        let r = run_dir(&p, 240);
        assert_lua_passed(&r, "physics_fuzz");
        assert!(!r.stderr.contains("panicked"), "{}", r.show());
    }
}

/// Finite parts can make an infinite world position (3e38 under a parent at 3e38): a body made
/// there would poison the world, so it starts at the origin (with an error naming it) and the
/// world still steps.
#[test]
fn a_body_whose_world_position_overflows_starts_at_the_origin() {
    use glam::{Quat, Vec3};
    use sinew::project::physics::{CollisionObjectSpec, CollisionType, ShapeKind, ShapeSpec};
    let mut w = sinew::game::World::new("main");
    let prefix = w.scene.intern_prefix("/");
    let sinew::game::World { scene, physics, .. } = &mut w;
    let far = Vec3::new(3e38, 0.0, 0.0);
    let parent = scene.spawn("/parent", prefix, far, Quat::IDENTITY, Vec3::ONE).expect("parent");
    let child = scene.spawn("/child", prefix, far, Quat::IDENTITY, Vec3::ONE).expect("child");
    scene.set_parent(child, parent, false).expect("parented");
    scene.update_world_transforms();
    assert!(!scene.world_of(child).translation.is_finite(), "the test needs an overflowing world position");
    let sphere = ShapeSpec {
        kind: ShapeKind::Sphere { radius: 1.0 },
        id: None,
        position: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
    };
    let i = physics.create(child, "co", &CollisionObjectSpec::with_shapes(CollisionType::Dynamic, vec![sphere]), scene);
    let i = i.expect("made");
    let (sim, handle) = physics.world_of(i).expect("in a world");
    let (at, turn) = sim.pose(handle).expect("a pose");
    assert_eq!(at, Vec3::ZERO);
    assert!(turn.is_finite());
    let w = std::cell::RefCell::new(w);
    for _ in 0..10 {
        sinew::game::physics::update(&w, 1.0 / 60.0);
    }
}

/// Defold's platformer pattern (britzl/bythesword's movement script): a kinematic sphere moved
/// by its script and pushed out of the floor by each contact point's distance. The distance is
/// the depth at the pose the object had when the step ran, in 3D and 2D; it was the depth plus
/// the object's own move again (the step carries a kinematic body on to where it heads), and
/// the hero rose off the floor a little more each frame until it floated away.
#[test]
fn a_kinematic_platformer_rests_on_the_floor_its_contacts_push_it_out_of() {
    for physics in
        [r#""scale": 0.02, "gravity": [0, -500, 0]"#, r#""type": "2d", "scale": 0.02, "gravity": [0, -500, 0]"#]
    {
        let p = with_physics("physics_kinematic_platformer", physics);
        let r = run_dir(&p, 125);
        assert_lua_passed(&r, "physics_kinematic_platformer");
    }
}
