//! Defold's own examples (github.com/defold/examples, CC0, tests/defold/LICENSE), copied
//! unchanged into tests/defold/<name>/ and run from their own folders, headless: what each
//! example's description says it shows is asserted on the picture.
mod common;
use common::*;
use sinew::render::Image;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/defold").join(name)
}

/// Runs an example `frames` frames at 60 Hz and returns its last frame.
fn shot(name: &str, frames: &str, tmp: &TempDir) -> (Run, Image) {
    shot_with(name, frames, &[], tmp)
}

/// [`shot`] with more arguments (a `--replay`).
fn shot_with(name: &str, frames: &str, extra: &[&str], tmp: &TempDir) -> (Run, Image) {
    let png = tmp.path().join(format!("{name}.png"));
    let dir = example(name);
    let mut args = vec![
        "run",
        dir.to_str().expect("utf-8"),
        "--headless",
        "--no-watch",
        "--frames",
        frames,
        "--fixed-dt",
        "0.016666668",
        "--screenshot",
        png.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let r = sinew(&args);
    assert_eq!(r.status, 0, "{}", r.show());
    let img = Image::load_png(&png).expect("screenshot written");
    (r, img)
}

/// basics/random_numbers: "a game object containing a label ... where we show the text". The
/// label's object is at (50, 360) with pivot W in a 720x720 display: with Defold's default
/// render view the text starts at x = 50, half way up, in the label's blue.
#[test]
fn random_numbers_shows_its_label_where_defold_draws_it() {
    let tmp = TempDir::new("defold-random");
    let (_, img) = shot("random_numbers", "3", &tmp);
    assert_eq!((img.width, img.height), (720, 720));
    let blue = |x: u32, y: u32| img.pixel(x, y).is_some_and(|p| p[2] > 150 && p[0] < 120);
    let columns: Vec<u32> = (0..img.width).filter(|&x| (300..420).any(|y| blue(x, y))).collect();
    let first = *columns.first().expect("the label is drawn");
    assert!((48..=56).contains(&first), "text starts at x={first}, not at the object's x=50");
    let rows: Vec<u32> = (0..img.height).filter(|&y| (0..img.width).any(|x| blue(x, y))).collect();
    let (top, bottom) = (rows[0], rows[rows.len() - 1]);
    assert!(top < 360 && bottom > 360, "four lines centred on y=360 (rows {top}..{bottom})");
}

/// input/mouse_and_touch: "Move mouse around and click or touch" is written by a label placed
/// by its component offset (20, 670) near the top left; the other label (20, 620) below it.
#[test]
fn mouse_and_touch_labels_keep_their_offsets() {
    let tmp = TempDir::new("defold-mouse");
    let (_, img) = shot("mouse_and_touch", "2", &tmp);
    let white = |x: u32, y: u32| img.pixel(x, y).is_some_and(|p| p[0] > 200 && p[1] > 200 && p[2] > 200);
    let rows: Vec<u32> = (0..img.height).filter(|&y| (0..img.width).any(|x| white(x, y))).collect();
    assert!(!rows.is_empty(), "no text drawn");
    // Screen y grows downwards: 670 up is 50 down; pivot SW puts the text above that line.
    assert!(rows[0] < 50 && rows[rows.len() - 1] < 110, "text rows {rows:?}");
    let first = (0..img.width).find(|&x| (0..120).any(|y| white(x, y))).expect("text");
    assert!((18..=24).contains(&first), "text starts at x={first}, not at the offset x=20");
}

/// model/gltf: "a car on an endless road": the glTF models with Defold's `materials` list,
/// one material per glTF material, laid out by their component positions. Golden image.
#[test]
fn gltf_example_matches_golden_image() {
    let tmp = TempDir::new("defold-gltf");
    let (_, img) = shot("gltf", "30", &tmp);
    if let Err(e) = golden::check_golden("defold_gltf", &img) {
        panic!("{e}");
    }
    let clear = img.pixel(0, 0).expect("pixel");
    let drawn = img.rgba.chunks(4).filter(|p| *p != clear).count();
    assert!(drawn > 100_000, "only {drawn} pixels show the models");
}

/// sprite/tint: five logos from a Defold atlas, tinted by `go.set` (red only, no red, alpha
/// 0.3) and by two `go.animate`s of `tint` (ping-pong), run from its own folder with Defold's
/// default screen view. Golden image at frame 30.
#[test]
fn sprite_tint_example_matches_golden_image() {
    let tmp = TempDir::new("defold-tint");
    let (r, img) = shot("sprite_tint", "30", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_sprite_tint", &img) {
        panic!("{e}");
    }
    // The first logo (at 120, 120 in a 720x720 display, tinted red) shows only red.
    let y = img.height - 120;
    let red = (100..140).filter_map(|x| img.pixel(x, y)).filter(|p| p[0] > 150 && p[1] < 60 && p[2] < 60).count();
    assert!(red > 5, "no red pixels across the first logo");
}

/// physics/dynamic: two stone blocks, dynamic collision objects with restitution 1, fall inside
/// four static walls in Defold's default 2D physics (gravity -500, scale 0.02). After two
/// seconds both rest on (or bounce off) the floor, inside the window: none fell through a wall.
#[test]
fn physics_dynamic_example_keeps_its_blocks_inside_the_walls() {
    let tmp = TempDir::new("defold-dynamic");
    let (r, img) = shot("physics_dynamic", "120", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_physics_dynamic", &img) {
        panic!("{e}");
    }
    // The stone's grey (the clear colour is white): rows of it in the lowest quarter, none in
    // the top half.
    let grey = |y: u32| (0..img.width).filter_map(|x| img.pixel(x, y)).filter(|p| p[0] < 200 && p[2] < 200).count();
    let low: usize = (img.height * 3 / 4..img.height).map(grey).sum();
    let high: usize = (0..img.height / 2).map(grey).sum();
    assert!(low > 5000 && high == 0, "stone pixels: {low} in the lowest quarter, {high} in the top half");
}

/// basics/message_passing uses sprites (an atlas named in the newer `textures` form): `check`
/// now loads them, atlas and all, and finds nothing wrong.
#[test]
fn message_passing_sprites_load() {
    let dir = example("message_passing");
    let r = sinew(&["check", dir.to_str().expect("utf-8")]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("no problems found") && !r.stderr.contains("not supported"), "{}", r.show());
}

/// `sys.get_config_*` reads game.project's keys, the ones Sinew does not use included.
#[test]
fn game_project_keys_reach_sys_get_config() {
    let p = project(
        "defold-config",
        &[
            (
                "/game.project",
                "[bootstrap]\nmain_collection = /main.collectionc\n[display]\nwidth = 320\n[html5]\nheap_size = 64\n[project]\ntitle = T\n",
            ),
            (
                "/main.collection",
                "name: \"main\"\nembedded_instances {\n  id: \"go\"\n  data: \"components {\\n  id: \\\"s\\\"\\n  component: \\\"/a.script\\\"\\n}\\n\"\n}\n",
            ),
            (
                "/a.script",
                "function init(self)\n  print(sys.get_config_int('display.width'), sys.get_config_int('html5.heap_size'), sys.get_config_string('project.title'), sys.get_config_string('no.such', 'dflt'))\n  sys.exit(0)\nend\n",
            ),
        ],
    );
    let r = run_project(p.path(), 3, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(r.stdout.contains("320\t64\tT\tdflt"), "{}", r.show());
}

/// collection/timestep: "speed up or slow down animations in a collection proxy by changing the
/// time step". The game world's enemies ping-pong across the screen (720 px, INOUTQUAD, 5 s
/// there and back) under a controller in the bootstrap world that posts `set_time_step` with
/// its `speed` every frame; SPACE (heard in the game world through the proxy's focus) makes the
/// controller animate `speed` from 1 to 3 in one second. One second after SPACE, the game world
/// has lived 2 s (the integral of the speed) instead of 1: enemy1 is 92% of the way across
/// (662 px) instead of 32% (230 px). Measured as the centre of enemy1's dark pixels in its row.
#[test]
fn timestep_example_speeds_up_its_proxy_world() {
    let tmp = TempDir::new("defold-timestep");
    let enemy1_x = |img: &Image| {
        // enemy1 stands at y = 589 of 720: rows 110..160 from the top (below the instructions) hold only it.
        let xs: Vec<u32> = (110..160)
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .filter(|&(x, y)| img.pixel(x, y).is_some_and(|p| p[0] < 120 && p[1] < 110 && p[2] < 140))
            .map(|(x, _)| x)
            .collect();
        assert!(xs.len() > 200, "enemy1 is drawn ({} dark pixels)", xs.len());
        xs.iter().map(|&x| f64::from(x)).sum::<f64>() / xs.len() as f64
    };
    let (_, plain) = shot("timestep", "62", &tmp);
    let replay = tmp.path().join("space.replay");
    std::fs::write(
        &replay,
        "{\"frame\": 2, \"type\": \"key\", \"input\": \"KEY_SPACE\", \"down\": true}\n\
         {\"frame\": 3, \"type\": \"key\", \"input\": \"KEY_SPACE\", \"down\": false}\n",
    )
    .expect("replay");
    let (_, fast) = shot_with("timestep", "62", &["--replay", replay.to_str().expect("utf-8")], &tmp);
    let (a, b) = (enemy1_x(&plain), enemy1_x(&fast));
    println!("enemy1 at x = {a:.1} at speed 1, {b:.1} after SPACE");
    assert!((a - 230.0).abs() < 25.0, "1 s of world time: enemy1 at {a:.1}, expected about 230");
    assert!((b - 662.0).abs() < 25.0, "2 s of world time: enemy1 at {b:.1}, expected about 662");
}

/// collection/proxy: a menu and three levels behind proxies. A click on LEVEL 2 (the menu's
/// GUI, heard through the controller's focus) unloads the menu and loads level 2; a click in
/// the level sends `show_menu` back, which unloads level 2 (printed by the controller as
/// Defold prints it) and brings the menu back.
#[test]
fn proxy_example_goes_to_level_2_and_back() {
    let tmp = TempDir::new("defold-proxy");
    let replay = tmp.path().join("clicks.replay");
    let click = |frame: u32, x: u32, y: u32| {
        format!(
            "{{\"frame\": {frame}, \"type\": \"mouse_move\", \"x\": {x}, \"y\": {y}}}\n\
             {{\"frame\": {frame}, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": true, \"x\": {x}, \"y\": {y}}}\n\
             {{\"frame\": {}, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": false, \"x\": {x}, \"y\": {y}}}\n",
            frame + 1
        )
    };
    // LEVEL 2 is the middle button, at (360, 366) from the top left of the 720 x 720 window.
    std::fs::write(&replay, format!("{}{}", click(10, 360, 366), click(40, 600, 600))).expect("replay");
    let (r, menu) = shot_with("proxy", "70", &["--replay", replay.to_str().expect("utf-8")], &tmp);
    let unloaded: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("Unloaded")).collect();
    assert_eq!(
        unloaded,
        ["Unloaded\turl: [proxy:/controller#menuproxy]", "Unloaded\turl: [proxy:/controller#level2proxy]"],
        "{}",
        r.show()
    );
    // The menu is back: its three dark grey buttons fill much of the middle (a level draws
    // light stones there, its black text only at the top).
    let dark = |x: u32, y: u32| menu.pixel(x, y).is_some_and(|p| p[0] < 60 && p[1] < 60 && p[2] < 60);
    let n = (200..520).flat_map(|y| (240..480).map(move |x| (x, y))).filter(|&(x, y)| dark(x, y)).count();
    assert!(n > 20_000, "the menu's buttons are drawn again ({n} dark pixels)");
}
