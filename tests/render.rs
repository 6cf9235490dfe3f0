//! Rendering tests that need a GL context. SDL may only be initialised from the main thread,
//! so this is a `harness = false` test with its own `main` that runs the checks in order.
//!
//! Golden images: `tests/golden/*.png`, compared by `common/golden.rs`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Quat, Vec3};
use glow::HasContext;
use sinew::render::{DebugCube, DebugDraw, Gfx, Image, WindowConfig, compare};
#[path = "common/checks.rs"]
mod checks;
use checks::{Check, ensure};

fn main() {
    let checks: &[(&str, Check)] = &[
        ("headless context is GL >= 3.3 core", headless_context_is_core_33),
        ("clear colour and row order read back exactly", clear_and_row_order),
        ("debug cubes match golden image", debug_cubes_golden),
        ("500 debug cubes draw quickly", many_cubes),
        ("compare() counts differing pixels", compare_behaviour),
        ("PNG save/load round trip", png_round_trip),
        ("windowed Gfx without a display is an error", windowed_without_display),
        ("a skip fails under CI", skips_fail_under_ci),
    ];
    checks::run(checks);
}

fn headless(width: u32, height: u32) -> Result<Gfx, String> {
    Gfx::new(&WindowConfig { title: "sinew render test".into(), width, height, vsync: false, headless: true })
}

fn headless_context_is_core_33() -> Result<(), String> {
    let gfx = headless(32, 32)?;
    println!("       {}", gfx.renderer_info());
    let gl = gfx.gl();
    // SAFETY: plain queries on the current context.
    let (major, minor, profile) = unsafe {
        (
            gl.get_parameter_i32(glow::MAJOR_VERSION),
            gl.get_parameter_i32(glow::MINOR_VERSION),
            gl.get_parameter_i32(glow::CONTEXT_PROFILE_MASK),
        )
    };
    ensure((major, minor) >= (3, 3), || format!("GL {major}.{minor} < 3.3"))?;
    ensure(profile as u32 & glow::CONTEXT_CORE_PROFILE_BIT != 0, || {
        format!("not a core profile (mask 0x{profile:x})")
    })?;
    ensure(gfx.size() == (32, 32), || format!("size {:?}", gfx.size()))
}

fn clear_and_row_order() -> Result<(), String> {
    let mut gfx = headless(64, 48)?;
    gfx.begin_frame([1.0, 0.0, 0.0, 1.0]);
    gfx.end_frame();
    let img = gfx.read_pixels();
    ensure((img.width, img.height) == (64, 48), || format!("image is {}x{}", img.width, img.height))?;
    ensure(img.rgba.len() == 64 * 48 * 4, || format!("{} bytes", img.rgba.len()))?;
    if let Some(i) = img.rgba.chunks_exact(4).position(|p| p != [255, 0, 0, 255]) {
        return Err(format!("pixel {} is {:?}, expected red", i, &img.rgba[i * 4..i * 4 + 4]));
    }

    // Green over the top-left quadrant (GL's y axis points up, so that is y 24..48).
    gfx.begin_frame([1.0, 0.0, 0.0, 1.0]);
    let gl = gfx.gl();
    // SAFETY: scissored clear on the bound offscreen frame buffer.
    unsafe {
        gl.enable(glow::SCISSOR_TEST);
        gl.scissor(0, 24, 32, 24);
        gl.clear_color(0.0, 1.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.disable(glow::SCISSOR_TEST);
    }
    gfx.end_frame();
    let mut events = Vec::new();
    gfx.poll_events(&mut events);
    ensure(events.is_empty(), || format!("unexpected events {events:?}"))?;
    let img = gfx.read_pixels();
    for y in 0..48 {
        for x in 0..64 {
            let expected = if x < 32 && y < 24 { [0, 255, 0, 255] } else { [255, 0, 0, 255] };
            let got = img.pixel(x, y).ok_or("pixel out of range")?;
            ensure(got == expected, || format!("pixel ({x},{y}) from top-left is {got:?}, expected {expected:?}"))?;
        }
    }
    Ok(())
}

fn golden_scene() -> (Mat4, Vec<DebugCube>) {
    let proj = perspective(45f32.to_radians(), 160.0 / 120.0, 0.1, 100.0);
    let view = look_at_mat4(Vec3::new(3.0, 2.5, 5.0), Vec3::new(0.0, 0.2, 0.0), Vec3::Y);
    let cubes = vec![
        // Red cube at the origin, turned 30 degrees about Y.
        DebugCube { world: Mat4::from_rotation_y(30f32.to_radians()), color: [0.9, 0.2, 0.2, 1.0] },
        // Tall green box on the left, standing on the same floor (y = -0.5).
        DebugCube {
            world: Mat4::from_scale_rotation_translation(
                Vec3::new(0.6, 1.8, 0.6),
                Quat::IDENTITY,
                Vec3::new(-1.8, 0.4, 0.0),
            ),
            color: [0.2, 0.8, 0.3, 1.0],
        },
        // Small blue cube in front on the right, tilted.
        DebugCube {
            world: Mat4::from_scale_rotation_translation(
                Vec3::splat(0.6),
                Quat::from_euler(glam::EulerRot::YXZ, 0.6, 0.4, 0.0),
                Vec3::new(1.5, -0.2, 1.0),
            ),
            color: [0.2, 0.4, 0.95, 1.0],
        },
    ];
    (proj * view, cubes)
}

fn render_golden_scene() -> Result<Image, String> {
    let mut gfx = headless(160, 120)?;
    let debug = DebugDraw::new(gfx.gl())?;
    let (view_proj, cubes) = golden_scene();
    gfx.begin_frame([0.12, 0.12, 0.15, 1.0]);
    debug.draw(gfx.gl(), view_proj, &cubes);
    gfx.end_frame();
    let img = gfx.read_pixels();
    debug.destroy(gfx.gl());
    Ok(img)
}

fn debug_cubes_golden() -> Result<(), String> {
    checks::check_golden("debug_cubes", &render_golden_scene()?)
}

fn many_cubes() -> Result<(), String> {
    let mut gfx = headless(320, 240)?;
    let debug = DebugDraw::new(gfx.gl())?;
    let proj = perspective(60f32.to_radians(), 320.0 / 240.0, 0.1, 200.0);
    let view = look_at_mat4(Vec3::new(0.0, 20.0, 40.0), Vec3::ZERO, Vec3::Y);
    let cubes: Vec<DebugCube> = (0..500)
        .map(|i| {
            let (x, z) = ((i % 25) as f32 - 12.0, (i / 25) as f32 - 10.0);
            DebugCube {
                world: Mat4::from_translation(Vec3::new(x * 1.5, 0.0, z * 1.5)) * Mat4::from_rotation_y(i as f32 * 0.1),
                color: [0.5, (i % 7) as f32 / 7.0, 0.8, 1.0],
            }
        })
        .collect();
    let start = Instant::now();
    let frames = 10;
    for _ in 0..frames {
        gfx.begin_frame([0.0, 0.0, 0.0, 1.0]);
        debug.draw(gfx.gl(), proj * view, &cubes);
        gfx.end_frame();
    }
    let img = gfx.read_pixels();
    let per_frame = start.elapsed().as_secs_f64() * 1e3 / frames as f64;
    println!("       500 cubes: {per_frame:.1} ms/frame (including GPU/llvmpipe time)");
    // SAFETY: plain query.
    let err = unsafe { gfx.gl().get_error() };
    debug.destroy(gfx.gl());
    ensure(err == glow::NO_ERROR, || format!("GL error 0x{err:x}"))?;
    let lit = img.rgba.chunks_exact(4).filter(|p| p[..3] != [0, 0, 0]).count();
    ensure(lit > 1000, || format!("only {lit} non-black pixels"))?;
    ensure(per_frame < 500.0, || format!("{per_frame:.1} ms per frame"))
}

fn compare_behaviour() -> Result<(), String> {
    let mut a = Image::filled(10, 8, [10, 20, 30, 255]);
    a.set_pixel(2, 3, [200, 100, 50, 255]);
    let same = compare(&a, &a.clone(), 0)?;
    ensure(same.differing_pixels == 0 && same.max_channel_diff == 0, || {
        format!("identical: {} diffs", same.differing_pixels)
    })?;
    let mut b = a.clone();
    b.set_pixel(9, 7, [10, 20, 40, 255]);
    let one = compare(&a, &b, 2)?;
    ensure(one.differing_pixels == 1 && one.max_channel_diff == 10, || {
        format!("one changed: {} diffs, max {}", one.differing_pixels, one.max_channel_diff)
    })?;
    ensure(one.diff.pixel(9, 7) == Some([255, 0, 0, 255]), || "changed pixel not red in diff".into())?;
    let small = Image::filled(10, 7, [0; 4]);
    ensure(compare(&a, &small, 2).is_err(), || "size mismatch accepted".into())
}

fn png_round_trip() -> Result<(), String> {
    let mut img = Image::filled(13, 7, [0, 0, 0, 0]);
    for y in 0..7 {
        for x in 0..13 {
            img.set_pixel(x, y, [x as u8 * 19, y as u8 * 36, 77, (x + y) as u8 * 10]);
        }
    }
    let path: PathBuf = std::env::temp_dir().join(format!("sinew-render-test-{}.png", std::process::id()));
    img.save_png(&path)?;
    let back = Image::load_png(&path);
    let _ = std::fs::remove_file(&path);
    let back = back?;
    ensure(back == img, || "round trip changed the image".into())?;
    ensure(Image::load_png(Path::new("/nonexistent/x.png")).is_err(), || "missing file loaded".into())
}

fn windowed_without_display() -> Result<(), String> {
    if sinew::render::display_available() {
        return checks::update::skip_from_env("a display is available");
    }
    match Gfx::new(&WindowConfig {
        title: "sinew render test".into(),
        width: 64,
        height: 48,
        vsync: true,
        headless: false,
    }) {
        Ok(gfx) => Err(format!("opened a window: {}", gfx.renderer_info())),
        Err(e) => {
            println!("       error as expected: {e}");
            Ok(())
        }
    }
}

fn skips_fail_under_ci() -> Result<(), String> {
    use checks::update::skip;
    ensure(skip("nothing to run", None).is_ok(), || "a local skip failed".into())?;
    ensure(skip("nothing to run", Some("0")).is_ok(), || "CI=0 made a skip fail".into())?;
    let e = skip("no display", Some("true")).err().unwrap_or_default();
    ensure(e.contains("no display") && e.contains("CI"), || format!("a skip under CI passed ({e:?})"))
}
