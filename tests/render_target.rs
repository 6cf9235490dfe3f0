//! Render targets and post-processing, as Defold's post-processing example does it: the render
//! script of `tests/projects/render_target` draws the world into a render target at the
//! display's size, then draws the target onto the window through a full-window quad whose
//! material samples it (`render.enable_texture`); a game script switches the quad's material
//! with `go.set(url, "material", ...)`. Its two scripts check the argument errors themselves.
mod common;
use common::*;
use common::{near_rgb as near, rgb_from_bottom as at};
use sinew::render::Image;

const RED: [u8; 3] = [220, 40, 40];
const BLUE: [u8; 3] = [0, 0, 255];

/// Runs it headless at 320x180 (twice the display) for `frames` frames with `[test]` settings.
fn shot(test: &str, frames: u32) -> (Run, Image) {
    let p = committed("render_target");
    let file = p.path().join("game.project");
    let text = std::fs::read_to_string(&file).expect("game.project");
    std::fs::write(&file, format!("{text}\n[test]\n{test}\n")).expect("game.project");
    shoot(p.path(), "320x180", frames)
}

fn inverted(c: [u8; 3]) -> [u8; 3] {
    c.map(|x| 255 - x)
}

/// The red sprite at display (40, 67), an 8-unit square, lands in the target's top left and so,
/// the target scaled to the window, about window pixel (80, 134): the right way up, which a
/// target sampled in the other texture convention would put at (80, 46). Around it the target's
/// blue clear; the window's own black clear is covered by the quad everywhere.
#[test]
fn the_world_drawn_into_a_target_reaches_the_window_through_the_quad() {
    let (r, img) = shot("", 3);
    assert_lua_passed(&r, "render_target");
    assert_lua_passed(&r, "game script");
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert!(!r.stderr.contains("is stopped"), "the render script runs to the end\n{}", r.show());
    assert!(near(at(&img, 80, 134), RED), "{:?}\n{}", at(&img, 80, 134), r.show());
    assert!(near(at(&img, 73, 127), RED) && near(at(&img, 86, 141), RED), "the square's corners");
    for (x, y) in [(80, 46), (80, 150), (100, 134), (2, 2), (317, 177), (240, 90)] {
        assert!(near(at(&img, x, y), BLUE), "({x}, {y}) is {:?}", at(&img, x, y));
    }
}

/// From the frame the game script sets the quad's `material` to the inverting one, the window
/// shows the target's colours inverted; `go.get` answers the new material.
#[test]
fn setting_the_quads_material_switches_the_post_processing() {
    let (r, img) = shot("invert_at = 2", 4);
    assert!(r.stdout.contains("material now true"), "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert!(near(at(&img, 80, 134), inverted(RED)), "{:?}", at(&img, 80, 134));
    assert!(near(at(&img, 240, 90), inverted(BLUE)), "{:?}", at(&img, 240, 90));
}

/// `render.draw(predicate, { constants = cb })`: the buffer's `tint` (0.5, 1, 1, 1) reaches the
/// quad's material over its own (white): the red square's red is halved, the blue stays.
#[test]
fn a_draws_constants_reach_its_material() {
    let (r, img) = shot("half_red = 1", 3);
    assert_lua_passed(&r, "render_target");
    let square = at(&img, 80, 134);
    assert!(square[0].abs_diff(RED[0] / 2) <= 2 && near([0, square[1], square[2]], [0, RED[1], RED[2]]), "{square:?}");
    assert!(near(at(&img, 240, 90), BLUE), "{:?}", at(&img, 240, 90));
}
