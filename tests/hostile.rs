//! Hostile projects, part two: each test is a small project built to break the runtime (issue 19),
//! run through the real `sinew` binary. Each must finish in seconds.
mod common;
use common::*;
use std::time::Duration;

const PROJECT: (&str, &str) = ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#);

fn one_script(tag: &str, script: &str) -> TempDir {
    project(
        tag,
        &[
            PROJECT,
            (
                "/main/main.collection",
                r#"{ "objects": [ { "id": "a", "components": [
                    { "id": "s", "type": "script", "script": "/main/s.script" } ] } ] }"#,
            ),
            ("/main/s.script", script),
        ],
    )
}

fn run_within(dir: &std::path::Path, frames: u32, extra: &[&str], limit: Duration) -> Run {
    let frames = frames.to_string();
    let mut args = vec!["run", dir.to_str().expect("utf-8 path"), "--headless", "--size", "32x32"];
    args.extend_from_slice(&["--frames", &frames, "--fixed-dt", "0.016"]);
    args.extend_from_slice(extra);
    sinew_within(&args, limit)
}

#[test]
fn a_loop_tween_with_a_tiny_duration_does_not_hang_the_frame() {
    let p = one_script(
        "tiny_tween",
        r#"
function init(self)
  go.animate(".", "position.x", go.PLAYBACK_LOOP_FORWARD, 1, go.EASING_LINEAR, 1e-30)
  go.animate(".", "position.y", go.PLAYBACK_LOOP_PINGPONG, 1, go.EASING_LINEAR, 1e-30)
end
function update(self) print(string.format("x=%.3f", go.get_position().x)) end
"#,
    );
    let r = run_within(p.path(), 5, &[], Duration::from_secs(20));
    assert_eq!(r.status, 0, "{}", r.show());
    assert_eq!(r.stdout.matches("x=").count(), 5, "{}", r.show());
    let warnings = r.stderr.matches("below the minimum").count();
    assert_eq!(warnings, 1, "one warning for the clamped durations:\n{}", r.show());
}

#[cfg(unix)]
#[test]
fn directory_links_are_not_followed_by_check_or_the_watcher() {
    let p = one_script("links", "function init(self) print('started') end\n");
    let main = p.path().join("main");
    for (name, target) in [("a", "."), ("b", "."), ("usr", "/usr"), ("root", "/")] {
        std::os::unix::fs::symlink(target, main.join(name)).expect("symlink");
    }
    let dir = p.path().to_str().expect("utf-8");
    let r = sinew_within(&["check", dir], Duration::from_secs(20));
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("no problems found"), "{}", r.show());
    let r = run_within(p.path(), 3, &[], Duration::from_secs(20));
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("started"), "{}", r.show());
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_not_read() {
    let r = sinew_within(&["inspect", "/dev/zero"], Duration::from_secs(10));
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("/dev/zero: not a regular file"), "{}", r.show());
    let r = sinew_within(&["check", "/proc/self"], Duration::from_secs(20));
    assert_eq!(r.status, 1, "no project.json there:\n{}", r.show());
    assert!(r.stderr.contains("project.json"), "{}", r.show());
}

#[test]
fn identical_errors_are_summarised_with_their_count() {
    let p = one_script("flood", "function update(self) for i = 1, 10000 do msg.post('/nobody', 'hi') end end\n");
    let r = run_within(p.path(), 2, &[], Duration::from_secs(30));
    assert_eq!(r.status, 0, "{}", r.show());
    let full = r.stderr.lines().filter(|l| l.starts_with("ERROR: Instance '/nobody' could not be found")).count();
    assert!(r.stderr.lines().count() < 10, "the flood is summarised:\n{}", r.show());
    let repeated: u64 = r
        .stderr
        .lines()
        .filter_map(|l| l.split("repeated ").nth(1))
        .filter_map(|rest| rest.split(' ').next()?.parse::<u64>().ok())
        .sum();
    assert_eq!(full as u64 + repeated, 20000, "nothing lost from the count:\n{}", r.show());
}

#[test]
fn os_exit_ends_the_run_like_sys_exit() {
    let p = one_script(
        "os_exit",
        r#"
function update(self) os.exit(3) end
function final(self) print("final ran") end
"#,
    );
    let shot = p.path().join("shot.png");
    let r = run_within(p.path(), 100, &["--screenshot", shot.to_str().expect("utf-8")], Duration::from_secs(20));
    assert_eq!(r.status, 3, "{}", r.show());
    assert!(r.stdout.contains("final ran"), "{}", r.show());
    assert!(shot.is_file(), "screenshot written:\n{}", r.show());
    let p = one_script("os_exit_bool", "function update(self) os.exit(false) end\n");
    assert_eq!(run_within(p.path(), 100, &[], Duration::from_secs(20)).status, 1);
}

#[test]
fn collection_files_say_what_is_wrong() {
    let bom = format!("\u{feff}{}", r#"{ "objects": [ { "id": "a", "position": [1, 2, 3] } ] }"#);
    let p = project("bom", &[PROJECT, ("/main/main.collection", &bom)]);
    let r = sinew_within(&["check", p.path().to_str().expect("utf-8")], Duration::from_secs(20));
    assert_eq!(r.status, 0, "a UTF-8 BOM is accepted:\n{}", r.show());

    let four = r#"{ "objects": [ { "id": "a", "position": [1, 2, 3, 4] } ] }"#;
    let p = project("four", &[PROJECT, ("/main/main.collection", four)]);
    let r = sinew_within(&["check", p.path().to_str().expect("utf-8")], Duration::from_secs(20));
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("position: expected 3 numbers"), "{}", r.show());

    let mut deep = String::from(r#"{ "id": "leaf" }"#);
    for i in 0..100 {
        deep = format!(r#"{{ "id": "n{i}", "children": [ {deep} ] }}"#);
    }
    let deep = format!(r#"{{ "objects": [ {deep} ] }}"#);
    let p = project("deep", &[PROJECT, ("/main/main.collection", &deep)]);
    let r = sinew_within(&["check", p.path().to_str().expect("utf-8")], Duration::from_secs(20));
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("children nested deeper than"), "{}", r.show());
    assert!(!r.stderr.contains("recursion limit"), "{}", r.show());
}

#[test]
fn a_gltf_error_names_the_file_and_position_once() {
    let p = project("gltf", &[PROJECT, ("/main/bad.gltf", r#"{ "asset": { "version": "2.0" }, "meshes": 5 }"#)]);
    let r =
        sinew_within(&["inspect", p.path().join("main/bad.gltf").to_str().expect("utf-8")], Duration::from_secs(10));
    assert_eq!(r.status, 1, "{}", r.show());
    assert_eq!(r.stderr.matches("bad.gltf").count(), 1, "{}", r.show());
    assert_eq!(r.stderr.matches("column").count(), 1, "the position is given once:\n{}", r.show());
}

const BAD_SHADER_PROJECT: &[(&str, &str)] = &[
    PROJECT,
    (
        "/main/main.collection",
        r#"{ "objects": [
            { "id": "bad", "components": [ { "id": "m", "type": "model", "mesh": "/models/cube.glb",
              "material": "/main/bad.material" } ] },
            { "id": "s", "components": [ { "id": "s", "type": "script", "script": "/main/s.script" } ] } ] }"#,
    ),
    ("/main/s.script", "function update(self) print('frame') end\n"),
    ("/main/bad.material", r#"{ "vertex_program": "/main/bad.vp", "fragment_program": "/builtins/shaders/model.fp" }"#),
    ("/main/bad.vp", "#version 140\nvoid main() { this is not glsl }\n"),
];

#[test]
fn check_and_run_say_the_same_about_a_broken_shader() {
    let p = project("shader", BAD_SHADER_PROJECT);
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    std::fs::write(p.path().join("models/cube.glb"), sinew::project::gltf::samples::textured_cube()).expect("cube");
    let c = sinew_within(&["check", p.path().to_str().expect("utf-8")], Duration::from_secs(30));
    let r = run_within(p.path(), 2, &[], Duration::from_secs(30));
    if c.stderr.contains("cannot create a GL context") {
        if let Err(e) = update::skip_from_env("no GL context here") {
            panic!("{e}");
        }
        return;
    }
    assert_eq!(c.status, 1, "{}", c.show());
    assert_eq!(r.status, 0, "run renders the rest:\n{}", r.show());
    assert_eq!(r.stdout.matches("frame").count(), 2, "{}", r.show());
    let said = "models and sprites using /main/bad.material are skipped; the rest renders";
    assert!(c.stderr.contains(said), "{}", c.show());
    assert!(r.stderr.contains(said), "{}", r.show());
}

/// Issue 6: files whose declared sizes multiply one small accessor into gigabytes. `inspect`
/// used to abort ("memory allocation of 24576 bytes failed", killed by SIGABRT); each must be one
/// short error line and exit status 1.
#[test]
fn hostile_gltf_sizes_are_clean_errors_not_aborts() {
    use serde_json::{Value, json};
    use sinew::project::gltf::writer::{GltfBuilder, PrimitiveSpec, TargetSpec, glb, unglb};
    let mut b = GltfBuilder::new();
    let node = b.node("n", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let positions: Vec<[f32; 3]> = (0..2046).map(|i| [i as f32, (i % 3) as f32, 0.0]).collect();
    let target = TargetSpec { positions: vec![[0.0, 0.0, 1.0]; positions.len()], normals: vec![] };
    b.mesh(node, "big", &[PrimitiveSpec { positions, targets: vec![target], ..Default::default() }], &[], &[]);
    let (base, bin) = unglb(&b.to_glb()).expect("the writer's GLB");
    let variant = |f: &dyn Fn(&mut Value)| {
        let mut j = base.clone();
        f(&mut j);
        glb(&j, &bin)
    };
    let targets = |n: usize| {
        move |j: &mut Value| {
            let t = j["meshes"][0]["primitives"][0]["targets"][0].clone();
            j["meshes"][0]["primitives"][0]["targets"] = Value::Array(vec![t; n]);
        }
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("targets_1m", variant(&targets(1_000_000)), "the glTF JSON: needs"),
        ("targets_100k", variant(&targets(100_000)), "100000 morph targets, at most 256"),
        (
            "nodes",
            variant(&|j| {
                targets(256)(j);
                j["nodes"] = Value::Array(vec![json!({ "mesh": 0 }); 20_000]);
                j["scenes"] = json!([{ "nodes": (0..20_000).collect::<Vec<_>>() }]);
            }),
            "passes the import budget",
        ),
        ("weights", variant(&|j| j["meshes"][0]["weights"] = json!(vec![0.5; 1_000_000])), "(1000000 values)"),
    ];
    let dir = TempDir::new("hostile_gltf");
    for (name, bytes, want) in cases {
        let path = dir.path().join(format!("{name}.glb"));
        std::fs::write(&path, bytes).expect("write the hostile file");
        let r = sinew_within(&["inspect", path.to_str().expect("utf-8")], Duration::from_secs(60));
        assert_eq!(r.status, 1, "{name}: {}", r.show());
        assert!(r.stderr.contains(want), "{name}: {}", r.show());
        assert!(r.stderr.len() < 1000 && r.stderr.lines().count() <= 2, "{name}: a short error:\n{}", r.show());
    }
}

/// Sound files that lie (issue 37): a 4 GB data chunk in a 60-byte file, no channels, a sample
/// rate of 4 GHz, a truncated header, garbage named .ogg. Each is a clear error naming the file,
/// within seconds and without the memory the header claims.
#[test]
fn hostile_sound_files_are_clean_errors() {
    use sinew::project::sound::encode_wav16;
    let good = encode_wav16(8000, 1, &[0.25; 8]);
    let patched = |at: usize, bytes: &[u8]| {
        let mut w = good.clone();
        w[at..at + bytes.len()].copy_from_slice(bytes);
        w
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("huge", patched(40, &(u32::MAX - 1).to_le_bytes()), "declares"),
        ("mono0", patched(22, &0u16.to_le_bytes()), "channels"),
        ("fast", patched(24, &4_000_000_000u32.to_le_bytes()), "WAV"),
        ("cut", good[..30].to_vec(), "bad WAV"),
        ("junk", b"OggS not really an ogg stream".to_vec(), "Ogg"),
    ];
    for (name, bytes, says) in cases {
        let ext = if name == "junk" { "ogg" } else { "wav" };
        let p = project(
            "hostile_sound",
            &[
                PROJECT,
                (
                    "/main/main.collection",
                    &format!(
                        r#"{{ "objects": [ {{ "id": "a", "components": [
                        {{ "id": "s", "type": "sound", "sound": "/main/{name}.{ext}" }} ] }} ] }}"#
                    ),
                ),
            ],
        );
        std::fs::write(p.path().join(format!("main/{name}.{ext}")), &bytes).expect("write");
        let r = run_within(p.path(), 2, &[], Duration::from_secs(20));
        assert_ne!(r.status, 0, "{name}: {}", r.show());
        let line = format!("/main/{name}.{ext}: ");
        assert!(r.stderr.contains(&line) && r.stderr.contains(says), "{name}: {}", r.show());
    }
}
