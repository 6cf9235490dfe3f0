//! Crowd rendering (issue 15, item 5): instances of one primitive and material share an instanced
//! draw call, each skinned one reading its own palette from `pose_matrix_cache`, and the picture
//! is the one drawing them one by one gives (`SINEW_NO_INSTANCING=1`), pixel for pixel.
mod common;
use common::*;
use sinew::project::gltf::samples;
use sinew::render::{Image, compare};
use std::process::Command;

const WIGGLERS: usize = 64;
const CUBES: usize = 16;

/// 64 wigglers, each looping `wiggle` from its own offset (so every palette differs), and 16
/// static textured cubes; the default camera frames them.
fn crowd() -> TempDir {
    let mut objects = Vec::new();
    for i in 0..WIGGLERS {
        let (x, z) = ((i % 8) as f32 * 1.5 - 5.25, (i / 8) as f32 * -1.5);
        objects.push(format!(
            r#"{{ "id": "w{i}", "position": [{x}, 0, {z}], "components": [
                {{ "id": "model", "type": "model", "mesh": "/models/wiggler.glb" }},
                {{ "id": "script", "type": "script", "script": "/main/wiggle.script",
                   "properties": {{ "offset": {} }} }} ] }}"#,
            (i as f32 * 0.137) % 1.0
        ));
    }
    for i in 0..CUBES {
        let (x, z) = ((i % 4) as f32 * 2.0 - 3.0, 2.0 + (i / 4) as f32 * 1.5);
        objects.push(format!(
            r#"{{ "id": "c{i}", "position": [{x}, 0.5, {z}], "euler": [0, {}, 0], "components": [
                {{ "id": "model", "type": "model", "mesh": "/models/cube.glb" }} ] }}"#,
            i * 20
        ));
    }
    let collection = format!(r#"{{ "name": "main", "objects": [{}] }}"#, objects.join(",\n"));
    let p = project(
        "instancing",
        &[
            ("/project.json", r#"{ "title": "instancing", "main_collection": "/main/main.collection" }"#),
            ("/main/main.collection", &collection),
            (
                "/main/wiggle.script",
                "go.property(\"offset\", 0)\nfunction init(self)\n    model.play_anim(\"#model\", \"wiggle\", \
                 go.PLAYBACK_LOOP_FORWARD, { offset = self.offset })\nend\n",
            ),
        ],
    );
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/wiggler.glb"), samples::wiggler()).expect("wiggler");
    std::fs::write(p.path().join("models/cube.glb"), samples::textured_cube()).expect("cube");
    p
}

/// Runs the crowd headless for 10 frames; returns the `--stats` line and the screenshot.
fn render(p: &TempDir, single_draws: bool) -> (serde_json::Value, Image) {
    let shot = p.path().join(if single_draws { "single.png" } else { "instanced.png" });
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sinew"));
    cmd.args(["run", p.path().to_str().expect("utf-8 path"), "--headless", "--size", "160x120"])
        .args(["--frames", "10", "--fixed-dt", "0.0166667", "--no-watch", "--stats", "--screenshot"])
        .arg(&shot)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("SINEW_NO_INSTANCING");
    if single_draws {
        cmd.env("SINEW_NO_INSTANCING", "1");
    }
    let r = Run::from(cmd.output().expect("run sinew"));
    assert_eq!(r.status, 0, "{}", r.show());
    let line = r.stderr.lines().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no stats line\n{}", r.show()));
    let stats = serde_json::from_str(line).expect("stats json");
    (stats, Image::load_png(&shot).expect("screenshot"))
}

#[test]
fn a_crowd_draws_in_one_call_per_primitive_and_looks_the_same() {
    let p = crowd();
    let (inst, a) = render(&p, false);
    let (single, b) = render(&p, true);
    let count = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("no {k}: {v}"));
    // Both sample models are one primitive each: one instanced draw call per model.
    assert_eq!(count(&inst, "draw_calls"), 2, "{inst}");
    assert_eq!(count(&single, "draw_calls"), (WIGGLERS + CUBES) as u64, "{single}");
    for v in [&inst, &single] {
        assert_eq!(count(v, "skinned_instances"), WIGGLERS as u64, "{v}");
    }
    // The cube is 12 triangles; every wiggler has the same (non-zero) count on top.
    let wiggler_triangles = count(&inst, "triangles") - 12 * CUBES as u64;
    assert!(wiggler_triangles > 0 && wiggler_triangles.is_multiple_of(WIGGLERS as u64), "{inst}");
    assert_eq!(count(&inst, "triangles"), count(&single, "triangles"));
    let c = compare(&a, &b, 0).expect("same size");
    assert_eq!(c.differing_pixels, 0, "instanced vs single draws differ (max {})", c.max_channel_diff);
    let background = a.pixel(0, 0).expect("pixel");
    let drawn = a.rgba.chunks_exact(4).filter(|px| *px != background).count();
    assert!(drawn > 160 * 120 / 10, "the crowd covers only {drawn} pixels");
}
