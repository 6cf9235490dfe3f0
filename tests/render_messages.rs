//! Defold's `@render:` messages (`draw_text`, `draw_line`, `clear_color`) drawn headless and
//! compared with a golden image; unknown `@render:`/`@system:` messages warn once by name.
mod common;
use common::*;
use sinew::render::Image;

#[test]
fn draw_text_draw_line_and_clear_color_match_the_golden_image() {
    let p = committed("render_messages");
    let shot = p.path().join("shot.png");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&[
        "run",
        dir,
        "--headless",
        "--size",
        "320x180",
        "--frames",
        "3",
        "--no-watch",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    assert_eq!(r.status, 0, "{}", r.show());
    for m in ["@render: message 'bloom_pass' is not supported", "@system: message 'toggle_profile' is not supported"] {
        assert_eq!(r.stderr.matches(m).count(), 1, "{m}\n{}", r.show());
    }
    assert!(!r.stderr.contains("could not be found"), "{}", r.show());
    let img = Image::load_png(&shot).expect("screenshot");
    // The clear colour, a white pixel of "score 3" and the red line's midpoint region.
    let px = |x: u32, y: u32| img.pixel(x, 179 - y).unwrap_or([0; 4]);
    let c = px(2, 2);
    let near = |a: u8, b: u8| a.abs_diff(b) <= 2;
    assert!(near(c[0], 26) && near(c[1], 38) && near(c[2], 77), "clear colour {c:?}");
    // "score 3" at 24 pixels per em: anti-aliased, so pixels a glyph covers nearly wholly.
    let white = (20..132)
        .flat_map(|x| (40..70).map(move |y| (x, y)))
        .filter(|&(x, y)| px(x, y)[..3].iter().all(|&c| c > 215))
        .count();
    assert!(white > 100, "only {white} white text pixels");
    if let Err(e) = golden::check_golden("render_messages", &img) {
        panic!("{e}");
    }
}
