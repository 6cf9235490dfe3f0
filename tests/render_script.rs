//! A project's own render script (game.project's `[bootstrap] render`), run headless: what its
//! `update` draws and through which projection, the `@render:` messages it gets, a failing frame,
//! and the checks `run` and `sinew check` make of its files. The project is
//! `tests/projects/render_script` (Defold's formats); its render script checks the `render`
//! namespace's arguments itself and prints `render_script: N passed, M failed`.
mod common;
use common::*;
use common::{near_rgb as near, rgb_from_bottom as at};
use sinew::render::Image;

/// An 8x8 PNG of one colour.
fn solid(c: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 8, 8);
    enc.set_color(png::ColorType::Rgba);
    let mut w = enc.write_header().expect("header");
    w.write_image_data(&c.repeat(64)).expect("pixels");
    drop(w);
    out
}

const RED: [u8; 3] = [220, 40, 40];
const GREEN: [u8; 3] = [40, 200, 60];
/// game.project's clear colour (0.25, 0.5, 0.75), which the render script reads as Defold's
/// older default script does.
const CLEAR: [u8; 3] = [64, 128, 191];

/// The project, with `[test]` settings that tell its game script on which frame to send what.
fn project(test: &str) -> TempDir {
    let p = committed("render_script");
    std::fs::write(p.path().join("main/red.png"), solid([RED[0], RED[1], RED[2], 255])).expect("image");
    std::fs::write(p.path().join("main/green.png"), solid([GREEN[0], GREEN[1], GREEN[2], 255])).expect("image");
    let file = p.path().join("game.project");
    let text = std::fs::read_to_string(&file).expect("game.project");
    std::fs::write(&file, format!("{text}\n[test]\n{test}\n")).expect("game.project");
    p
}

/// Runs it headless at 320x180 for `frames` frames; the run and its last frame.
fn shot(p: &TempDir, frames: u32) -> (Run, Image) {
    shoot(p.path(), "320x180", frames)
}

/// Clears to game.project's colour and sees the 160x90 display area at 4 window pixels a unit
/// (not Sinew's own 2, the window over the display area): the red sprite at (40, 30) is a
/// 32-pixel square about pixel (160, 120) and the green one at (120, 30) is off the window; the
/// caption label is drawn through the window's projection.
#[test]
fn a_render_script_draws_the_frame_as_it_says() {
    let p = project("");
    let (r, img) = shot(&p, 3);
    assert_lua_passed(&r, "render_script");
    assert!(!r.stderr.contains("ERROR") && !r.stderr.contains("render script of the project's own"), "{}", r.show());
    assert!(r.stdout.contains("game script reads\tstring"), "a game script's get_config stays text\n{}", r.show());
    assert!(near(at(&img, 160, 120), RED), "{:?}\n{}", at(&img, 160, 120), r.show());
    assert!(near(at(&img, 145, 105), RED) && near(at(&img, 175, 135), RED), "the square's corners");
    for (x, y) in [(140, 120), (180, 120), (80, 60), (240, 60), (5, 5), (315, 175)] {
        assert!(near(at(&img, x, y), CLEAR), "({x}, {y}) is {:?}", at(&img, x, y));
    }
    // The label at (10, 140) is drawn by the `text` predicate through the window's own
    // projection, one pixel a unit, as the script's last draw says.
    let white =
        (10..70).flat_map(|x| (140..160).map(move |y| (x, y))).filter(|&(x, y)| at(&img, x, y)[1] > 220).count();
    assert!(white > 40, "only {white} white pixels of the caption");
    if let Err(e) = golden::check_golden("render_script", &img) {
        panic!("{e}");
    }
}

/// `zoom` and `clear_color` posted to `@render:` by a game script reach the render script's
/// `on_message` (no "not supported" warning): from then on 2 pixels a unit on yellow, both
/// sprites in view.
#[test]
fn messages_to_render_reach_the_render_script() {
    let p = project("zoom_at = 2\nclear_at = 2");
    let (r, img) = shot(&p, 4);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("not supported") && !r.stderr.contains("ERROR"), "{}", r.show());
    assert!(near(at(&img, 80, 60), RED), "red at 2 pixels a unit: {:?}", at(&img, 80, 60));
    assert!(near(at(&img, 240, 60), GREEN), "green in view: {:?}", at(&img, 240, 60));
    assert!(near(at(&img, 160, 120), [255, 255, 0]), "the clear colour the message gave");
}

/// From the frame whose `update` fails, the error is reported with the script's file and line
/// each frame, the game goes on (its messages still arrive), and the picture stays the last
/// good frame's: the clear colour a later message gives is never drawn.
#[test]
fn a_failing_frame_is_drawn_as_the_last_good_one() {
    let p = project("fail_at = 2\nclear_at = 3");
    let (r, img) = shot(&p, 5);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stderr.contains("/main/pixels.render_script:") && r.stderr.contains("this frame fails"), "{}", r.show());
    assert!(r.stderr.contains("in function"), "with its traceback\n{}", r.show());
    assert!(
        near(at(&img, 160, 120), RED) && near(at(&img, 5, 5), CLEAR),
        "{:?} {:?}",
        at(&img, 160, 120),
        at(&img, 5, 5)
    );
}

/// A `.render` that is not Defold's, or a render script that does not compile, stops `run`
/// before anything starts and is reported by `sinew check` with its position.
#[test]
fn bad_render_files_are_refused_with_their_position() {
    let p = project("");
    let render = p.path().join("main/pixels.render");
    std::fs::write(&render, "script: \"/main/pixels.render_script\"\nscripts: 1\n").expect("render");
    let dir = p.path().to_str().expect("utf-8 path");
    let check = sinew(&["check", dir]);
    assert_ne!(check.status, 0, "{}", check.show());
    assert!(check.stderr.contains("/main/pixels.render:2:1: unknown field `scripts`"), "{}", check.show());
    let run = run_project(p.path(), 1, &[]);
    assert_ne!(run.status, 0, "{}", run.show());
    assert!(run.stderr.contains("/main/pixels.render:2:1"), "{}", run.show());

    std::fs::write(&render, "script: \"/main/pixels.render_script\"\n").expect("render");
    let script = p.path().join("main/pixels.render_script");
    let text = std::fs::read_to_string(&script).expect("script");
    std::fs::write(&script, text.replace("function update(self, dt)", "function update(self, dt) )")).expect("script");
    let check = sinew(&["check", dir]);
    assert_ne!(check.status, 0, "{}", check.show());
    assert!(check.stderr.contains("/main/pixels.render_script:"), "{}", check.show());
    let run = run_project(p.path(), 1, &[]);
    assert_ne!(run.status, 0, "{}", run.show());
    assert!(run.stderr.contains("/main/pixels.render_script:"), "{}", run.show());
}

/// `render.set_cull_face` and `render.set_depth_func` reach the model draw: with the camera
/// inside a box, culling front faces shows the box's far side (as a sky box is drawn), and
/// culling back faces, Sinew's own choice, shows nothing of it.
#[test]
fn a_box_seen_from_inside_shows_with_front_faces_culled() {
    let centre = |face: &str| {
        let p = project(&format!("inside_at = 1\nface = {face}"));
        let (r, img) = shot(&p, 3);
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        at(&img, 160, 90)
    };
    let front = centre("front");
    assert!(!near(front, CLEAR), "front faces culled: the box's far side, not {front:?}");
    assert!(near(centre("back"), CLEAR), "back faces culled: nothing of the box");
}
