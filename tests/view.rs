//! `sinew view FILE` (rigs.md section 6): a model file shown without a project, driven by a
//! replay (next clip, bones overlay, orbit) and compared with a golden image.
mod common;
use common::golden::check_golden;
use common::*;
use sinew::render::Image;

fn humanoid() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/models/humanoid.glb")
}

fn shoot(extra: &[&str], dir: &TempDir, name: &str) -> (Run, Image) {
    shoot_after("40", extra, dir, name)
}

/// The humanoid viewed for `frames` frames at 60 per second, shot into `dir/name`.
fn shoot_after(frames: &str, extra: &[&str], dir: &TempDir, name: &str) -> (Run, Image) {
    let shot = dir.path().join(name);
    let model = humanoid();
    let mut args = vec![
        "view",
        model.to_str().expect("utf-8"),
        "--headless",
        "--size",
        "240x180",
        "--frames",
        frames,
        "--fixed-dt",
        "0.0166667",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let r = sinew(&args);
    assert_eq!(r.status, 0, "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
    (r, img)
}

#[test]
fn view_frames_the_model_cycles_clips_and_draws_bones() {
    let dir = project("view", &[("/replay.jsonl", REPLAY)]);
    let replay = dir.path().join("replay.jsonl");
    let (plain_run, plain) = shoot(&[], &dir, "plain.png");
    assert!(plain_run.stdout.contains("view: clip idle"), "{}", plain_run.show());
    let (r, img) = shoot(&["--replay", replay.to_str().expect("utf-8")], &dir, "replay.png");
    let clips: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("view: clip ")).collect();
    assert_eq!(clips, ["view: clip idle", "view: clip walk"], "{}", r.show());
    // The model fills the middle of the frame: a good share of pixels differ from the clear colour.
    let clear = plain.pixel(1, 1).expect("pixel");
    let covered =
        (0..180).flat_map(|y| (0..240).map(move |x| (x, y))).filter(|&(x, y)| plain.pixel(x, y) != Some(clear)).count();
    assert!(covered > 240 * 180 / 20, "the model covers {covered} pixels");
    // Bones overlay: the line colour (1, 0.8, 0.2) appears only with B pressed.
    let bone = |i: &Image| {
        (0..180)
            .flat_map(|y| (0..240).map(move |x| (x, y)))
            .filter(|&(x, y)| i.pixel(x, y).is_some_and(|p| p[0] == 255 && p[1] == 204 && p[2] == 51))
            .count()
    };
    assert_eq!(bone(&plain), 0);
    assert!(bone(&img) > 50, "bone lines drawn: {} pixels", bone(&img));
    check_golden("view_humanoid", &img).unwrap_or_else(|e| panic!("{e}"));
}

/// Frame 5: N (next clip), frame 8: B (bones), frames 10-20: a left drag to the right (orbit).
const REPLAY: &str = r#"{"frame": 5, "type": "key", "input": "KEY_N", "down": true}
{"frame": 6, "type": "key", "input": "KEY_N", "down": false}
{"frame": 8, "type": "key", "input": "KEY_B", "down": true}
{"frame": 9, "type": "key", "input": "KEY_B", "down": false}
{"frame": 10, "type": "mouse_button", "input": "MOUSE_BUTTON_LEFT", "down": true, "x": 100, "y": 90}
{"frame": 12, "type": "mouse_move", "x": 120, "y": 90}
{"frame": 14, "type": "mouse_move", "x": 140, "y": 90}
{"frame": 16, "type": "mouse_move", "x": 160, "y": 95}
{"frame": 18, "type": "mouse_button", "input": "MOUSE_BUTTON_LEFT", "down": false, "x": 160, "y": 95}
"#;

#[test]
fn view_refuses_other_files_clearly() {
    let dir = project("view_bad", &[("/notes.txt", "hello"), ("/broken.glb", "not a glb")]);
    let r = sinew(&["view", dir.path().join("notes.txt").to_str().expect("utf-8"), "--headless", "--frames", "1"]);
    assert_eq!(r.status, 2, "{}", r.show());
    assert!(r.stderr.contains("sinew view shows .glb, .gltf, .obj and .bon files"), "{}", r.show());
    let r = sinew(&["view", dir.path().join("broken.glb").to_str().expect("utf-8"), "--headless", "--frames", "1"]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("broken.glb"), "{}", r.show());
    let r = sinew(&["view", dir.path().join("missing.glb").to_str().expect("utf-8"), "--headless", "--frames", "1"]);
    assert_eq!(r.status, 1, "{}", r.show());
}

/// A `.bon` rig (the repo's generated 21-bone figure) views like a glTF: framed, its bones drawn.
#[test]
fn view_shows_a_bon_rig_with_its_bones() {
    let dir = project(
        "view_bon",
        &[("/replay.jsonl", "{\"frame\": 2, \"type\": \"key\", \"input\": \"KEY_B\", \"down\": true}\n")],
    );
    sinew::project::bon::sample::write_figure(dir.path(), 8, 12).expect("figure");
    let shot = dir.path().join("bon.png");
    let r = sinew(&[
        "view",
        dir.path().join("figure.bon").to_str().expect("utf-8"),
        "--headless",
        "--size",
        "240x180",
        "--frames",
        "10",
        "--no-watch",
        "--replay",
        dir.path().join("replay.jsonl").to_str().expect("utf-8"),
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("view: no animations"), "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
    let bone = (0..180)
        .flat_map(|y| (0..240).map(move |x| (x, y)))
        .filter(|&(x, y)| img.pixel(x, y).is_some_and(|p| p[0] == 255 && p[1] == 204 && p[2] == 51))
        .count();
    assert!(bone > 30, "bone lines of the rig: {bone} pixels");
}

/// Issue 31: the first frame showed the bind pose blending into the first clip (0.15 s), so the
/// first frames jumped from a T-pose. The clip now starts unblended before the first frame:
/// frames 1 and 4 (1/20 s apart) show almost the same pose (27 pixels changed by more than 40
/// levels; 225 with the blend from the bind pose).
#[test]
fn view_shows_the_clip_from_the_first_frame() {
    let dir = TempDir::new("view_first");
    let (_, one) = shoot_after("1", &[], &dir, "frame1.png");
    let (_, two) = shoot_after("4", &[], &dir, "frame4.png");
    let changed = (0..180)
        .flat_map(|y| (0..240).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let (a, b) = (one.pixel(x, y).unwrap_or_default(), two.pixel(x, y).unwrap_or_default());
            a.iter().zip(b).any(|(p, q)| p.abs_diff(q) > 40)
        })
        .count();
    assert!(changed < 80, "{changed} pixels changed from frame 1 to frame 4");
}
