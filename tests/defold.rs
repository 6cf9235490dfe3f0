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
    shot_of(&example(name), name, frames, extra, tmp)
}

/// [`shot_with`] of the project in `dir` (a changed copy of an example), its picture `NAME.png`.
fn shot_of(dir: &Path, name: &str, frames: &str, extra: &[&str], tmp: &TempDir) -> (Run, Image) {
    let png = tmp.path().join(format!("{name}.png"));
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

/// Pixels of `img` in the rectangle `xs` × `ys` (rows top to bottom) that `f` accepts.
/// `shot`, asserting the run reported no error and the picture matches its golden image.
fn golden_shot(example: &str, frames: &str, golden: &str, tmp: &TempDir) -> Image {
    let (r, img) = shot(example, frames, tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden(golden, &img) {
        panic!("{e}");
    }
    img
}

fn count_pixels(img: &Image, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>, f: impl Fn([u8; 4]) -> bool) -> usize {
    ys.flat_map(|y| xs.clone().map(move |x| (x, y))).filter_map(|(x, y)| img.pixel(x, y)).filter(|p| f(*p)).count()
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
    let img = golden_shot("sprite_tint", "30", "defold_sprite_tint", &tmp);
    // The first logo (at 120, 120 in a 720x720 display, tinted red) shows only red.
    let y = img.height - 120;
    let red = (100..140).filter_map(|x| img.pixel(x, y)).filter(|p| p[0] > 150 && p[1] < 60 && p[2] < 60).count();
    assert!(red > 5, "no red pixels across the first logo");
}

/// physics/dynamic: two stone blocks, dynamic collision objects with friction 0 and restitution
/// 1, inside four static walls of restitution 0.1 in Defold's default 2D physics (gravity -500,
/// scale 0.02). The example says they "bounce forever": Box2D combines restitutions by the
/// larger, 1. (With rapier's average, 0.55, they came to rest on the floor within two seconds.)
/// At 2 and at 15 seconds both are in the window, one of them in the air above the lowest
/// quarter: none fell through a wall, none came to rest.
#[test]
fn physics_dynamic_example_bounces_its_blocks_forever_inside_the_walls() {
    let tmp = TempDir::new("defold-dynamic");
    let first = golden_shot("physics_dynamic", "120", "defold_physics_dynamic", &tmp);
    let (r, later) = shot("physics_dynamic", "900", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    for (img, when) in [(first, "2 s"), (later, "15 s")] {
        // The stone's grey (the clear colour is white).
        let grey = |ys: std::ops::Range<u32>| count_pixels(&img, 0..img.width, ys, |p| p[0] < 200 && p[2] < 200);
        let (all, above) = (grey(0..img.height), grey(0..img.height * 3 / 4));
        assert!(all > 30000 && above > 10000, "at {when}: {all} stone pixels, {above} above the lowest quarter");
    }
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

/// `sys.get_config_*` reads game.project's keys, the ones Sinew does not use included, and Defold's
/// defaults for the keys the file leaves out.
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
                "function init(self)\n  print(sys.get_config_int('display.width'), sys.get_config_int('html5.heap_size'), sys.get_config_string('project.title'), sys.get_config_string('no.such', 'dflt'), sys.get_config('display.update_frequency'), sys.get_config_int('display.height'), type(sys.get_config('no.such', 4600)), sys.get_config('no.such', 4600))\n  sys.exit(0)\nend\n",
            ),
        ],
    );
    let r = run_project(p.path(), 3, &[]);
    assert_eq!(r.status, 0, "{}", r.show());
    // Keys the file leaves out read as Defold's build writes them (display.update_frequency 0,
    // display.height 640): defold-orthographic's camera divides by the first.
    // A number as the default is taken as its text, as Defold's luaL_checkstring takes it.
    assert!(r.stdout.contains("320\t64\tT\tdflt\t0\t640\tstring\t4600"), "{}", r.show());
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

/// render/basic_lights_2d: "sprites respond to Defold Light components with a custom material"
/// that includes `/builtins/materials/lighting.glsl` (Sinew's own file with Defold's functions).
/// An ambient light, a green point light of range 360 at (160, 390) and a red spot light (a
/// point light in Sinew) at (360, 100) in a 720x720 display light the sprites; the picture is
/// green around the point light, red around the spot, and dark far from both.
#[test]
fn basic_lights_2d_lights_its_sprites_with_light_components() {
    let tmp = TempDir::new("defold-lights-2d");
    let (r, img) = shot_with("basic_lights_2d", "10", &["--size", "360x360"], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let at = |x: f32, y: f32| img.pixel((x / 2.0) as u32, img.height - 1 - (y / 2.0) as u32).expect("inside");
    let green = at(160.0, 390.0);
    assert!(green[1] > 120 && green[1] > 2 * green[0], "green under the point light: {green:?}");
    let red = at(360.0, 100.0);
    assert!(red[0] > 100 && red[0] > 2 * red[1], "red under the spot light: {red:?}");
    let far = at(710.0, 710.0);
    assert!(far.iter().take(3).all(|&c| c < 40), "dark beyond both lights' range: {far:?}");
    // The bottom corners are within the spot light's range but outside its cone (50 degrees
    // from an axis leaning 45 degrees up from -Z): no red there (a point light lit them).
    for (x, y) in [(80.0, 40.0), (640.0, 40.0)] {
        let p = at(x, y);
        assert!(p[0] < 25, "outside the spot light's cone at ({x}, {y}): {p:?}");
    }
    // The lit stone nearest the point light is brighter than the same stone texture far away.
    let near_stone = at(120.0, 280.0);
    let far_stone = at(500.0, 500.0);
    let sum = |p: [u8; 4]| p.iter().take(3).map(|&c| c as u32).sum::<u32>();
    assert!(sum(near_stone) > sum(far_stone), "near {near_stone:?} far {far_stone:?}");
}

/// material/wave_background: a sprite whose material pairs `/builtins/materials/sprite.vp` with
/// the example's fragment program, which draws two blues split by a wave moving with the
/// material's `CONSTANT_TYPE_TIME` constant. Every pixel is one of the two blues (or between
/// them at an edge), and the wave has moved between frame 10 and frame 40.
#[test]
fn wave_background_moves_its_wave_through_the_builtin_sprite_program() {
    let tmp = TempDir::new("defold-wave");
    let (r, a) = shot_with("wave_background", "10", &["--size", "240x160"], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let (_, b) = shot_with("wave_background", "40", &["--size", "240x160"], &tmp);
    let mut changed = 0;
    for y in 0..a.height {
        for x in 0..a.width {
            let p = a.pixel(x, y).expect("inside");
            assert!(p[0] < 8 && (110..=160).contains(&p[1]) && p[2] >= 225, "({x}, {y}) is no wave blue: {p:?}");
            if b.pixel(x, y) != Some(p) {
                changed += 1;
            }
        }
    }
    let share = changed as f32 / (a.width * a.height) as f32;
    assert!(share > 0.1, "the wave moved over {share} of the picture only");
}

/// A Defold material of the built-in model programs, tinted red and lit from the front.
const RED_CUBE_MATERIAL: &str = "name: \"m\"\ntags: \"model\"\nvertex_program: \"/builtins/materials/model.vp\"\nfragment_program: \"/builtins/materials/model.fp\"\nvertex_space: VERTEX_SPACE_LOCAL\nvertex_constants {\n  name: \"mtx_worldview\"\n  type: CONSTANT_TYPE_WORLDVIEW\n}\nvertex_constants {\n  name: \"mtx_view\"\n  type: CONSTANT_TYPE_VIEW\n}\nvertex_constants {\n  name: \"mtx_proj\"\n  type: CONSTANT_TYPE_PROJECTION\n}\nvertex_constants {\n  name: \"mtx_normal\"\n  type: CONSTANT_TYPE_NORMAL\n}\nvertex_constants {\n  name: \"light\"\n  type: CONSTANT_TYPE_USER\n  value {\n    x: 360.0\n    y: 360.0\n    z: 500.0\n    w: 1.0\n  }\n}\nfragment_constants {\n  name: \"tint\"\n  type: CONSTANT_TYPE_USER\n  value {\n    x: 1.0\n    y: 0.0\n    z: 0.0\n    w: 1.0\n  }\n}\nsamplers {\n  name: \"tex0\"\n  wrap_u: WRAP_MODE_CLAMP_TO_EDGE\n  wrap_v: WRAP_MODE_CLAMP_TO_EDGE\n  filter_min: FILTER_MODE_MIN_LINEAR\n  filter_mag: FILTER_MODE_MAG_LINEAR\n}\n";
/// A cube of that material, 200 × 200 display pixels, at the centre of a 720 × 720 display.
const RED_CUBE_COLLECTION: &str = "name: \"main\"\nembedded_instances {\n  id: \"cube\"\n  data: \"embedded_components {\\n\"\n  \"  id: \\\"model\\\"\\n\"\n  \"  type: \\\"model\\\"\\n\"\n  \"  data: \\\"mesh: \\\\\\\"/builtins/assets/gltf/cube.gltf\\\\\\\"\\\\n\"\n  \"materials {\\\\n\"\n  \"  name: \\\\\\\"default\\\\\\\"\\\\n\"\n  \"  material: \\\\\\\"/m.material\\\\\\\"\\\\n\"\n  \"}\\\\n\"\n  \"\\\"\\n\"\n  \"}\\n\"\n  position {\n    x: 360.0\n    y: 360.0\n  }\n  scale3 {\n    x: 200.0\n    y: 200.0\n    z: 0.5\n  }\n}\n";

/// Defold's built-in model programs (`/builtins/materials/model.vp` and `model.fp`, Sinew's own
/// files with Defold's inputs and outputs) in a Defold material: a cube tinted red (`tint`
/// 1, 0, 0) facing a light (`light`, a user constant) straight in front of it is drawn full red
/// (diffuse 1 plus 0.2 ambient, clamped), on Defold's default screen view.
#[test]
fn builtin_model_programs_draw_a_tinted_lit_model() {
    let (material, collection) = (RED_CUBE_MATERIAL, RED_CUBE_COLLECTION);
    let tmp = project(
        "defold-builtin-model",
        &[
            (
                "game.project",
                "[bootstrap]\nmain_collection = /main.collectionc\n\n[display]\nwidth = 720\nheight = 720\n",
            ),
            ("m.material", material),
            ("main.collection", collection),
        ],
    );
    let img = shot_project(&tmp);
    let centre = img.pixel(180, 180).expect("inside");
    assert!(centre[0] > 240 && centre[1] < 10 && centre[2] < 10, "the cube's face, lit and tinted red: {centre:?}");
    // The cube is 200 display pixels (100 here) wide: 70 pixels out is background.
    let outside = img.pixel(180, 110).expect("inside");
    assert!(outside.iter().take(3).all(|&c| c < 10), "outside the cube: {outside:?}");
}

/// The default render script's `use_fixed_projection` (zoom 2) posted to `@render:` by a script:
/// the window (360 × 360, half the 720 × 720 display) shows the display's middle 180 × 180
/// units twice as large, so the red cube (200 units) covers it where the stretched view showed
/// it 100 pixels wide.
#[test]
fn use_fixed_projection_zooms_the_view_without_a_camera() {
    let with_script = format!(
        "{RED_CUBE_COLLECTION}embedded_instances {{\n  id: \"view\"\n  data: \"components {{\\n  id: \\\"s\\\"\\n  component: \\\"/zoom.script\\\"\\n}}\\n\"\n}}\n"
    );
    let game = "[bootstrap]\nmain_collection = /main.collectionc\n\n[display]\nwidth = 720\nheight = 720\n";
    let script = "function init(self)\n  msg.post(\"@render:\", \"use_fixed_projection\", { near = -1, far = 1, zoom = 2 })\nend\n";
    let files = [("game.project", game), ("m.material", RED_CUBE_MATERIAL), ("main.collection", RED_CUBE_COLLECTION)];
    let stretched = shot_project(&project("defold-stretch", &files));
    let tmp = project("defold-fixed-zoom", &files);
    std::fs::write(tmp.path().join("main.collection"), with_script).expect("collection");
    std::fs::write(tmp.path().join("zoom.script"), script).expect("script");
    let zoomed = shot_project(&tmp);
    let red = |p: [u8; 4]| p[0] > 200 && p[1] < 30 && p[2] < 30;
    for (x, y) in [(5, 5), (354, 354), (180, 110)] {
        let (a, b) = (stretched.pixel(x, y).expect("inside"), zoomed.pixel(x, y).expect("inside"));
        assert!(!red(a) && red(b), "({x}, {y}): background when stretched ({a:?}), the cube zoomed ({b:?})");
    }
    assert!(red(stretched.pixel(180, 180).expect("inside")), "the cube is drawn when stretched too");
}

/// Runs a generated project 3 frames at 360x360 and returns its last frame; any logged error
/// fails the test.
fn shot_project(tmp: &TempDir) -> Image {
    let png = tmp.path().join("shot.png");
    let dir = tmp.path().to_str().expect("utf-8");
    let shot = png.to_str().expect("utf-8");
    let r =
        sinew(&["run", dir, "--headless", "--no-watch", "--frames", "3", "--size", "360x360", "--screenshot", shot]);
    assert_eq!(r.status, 0, "{}", r.show());
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    Image::load_png(&png).expect("screenshot written")
}

/// A left click at frame 5 (Defold's `touch` and `mouse_button_left` both come from it).
const CLICK: &str = "{\"frame\": 5, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": true, \"x\": 100, \"y\": 100}\n{\"frame\": 6, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": false, \"x\": 100, \"y\": 100}\n";

/// An example's frame 4, and its frame 10 after a click at frame 5 ([`CLICK`]), at 360x360;
/// any logged error fails the test.
fn before_and_after_a_click(name: &str, tmp: &TempDir) -> (Image, Image) {
    let replay = tmp.path().join("click.jsonl");
    std::fs::write(&replay, CLICK).expect("replay");
    let (r, before) = shot_with(name, "4", &["--size", "360x360"], tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let (r, after) = shot_with(name, "10", &["--size", "360x360", "--replay", replay.to_str().expect("utf-8")], tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    (before, after)
}

/// Pixels of a text colour (the examples' dark blue, 0.2, 0.302, 0.702) in rows `y0..y1`.
fn text_pixels(img: &Image, rows: std::ops::Range<u32>) -> usize {
    rows.flat_map(|y| (0..img.width).filter_map(move |x| img.pixel(x, y)))
        .filter(|p| p[2] > 120 && p[0] < 140 && p[2] > p[0] + 60)
        .count()
}

/// Grey panel pixels (the example's box colour, 0.4 grey) in the rectangle `xs` × `ys`.
fn grey_pixels(img: &Image, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>) -> usize {
    count_pixels(img, xs, ys, |p| p[0].abs_diff(p[1]) < 4 && p[1].abs_diff(p[2]) < 4 && (85..125).contains(&p[0]))
}

/// gui/layouts: "A small UI panel that changes its position depending on the screen size ...
/// using the Defold layouts system", with a Portrait and a Landscape layout. A square window
/// is portrait (Defold's rule), so the panel starts as the Portrait layout has it: a wide bar
/// at the top. The click posts `@render: resize` 20 pixels wider: the window turns landscape,
/// the scene switches to its Landscape layout (a tall bar at the left edge), and its script's
/// `layout_changed` handler writes the scores back (a golden image shows them).
#[test]
fn gui_layouts_switch_to_landscape_when_the_window_widens() {
    let tmp = TempDir::new("defold-layouts");
    let (before, after) = before_and_after_a_click("gui_layouts", &tmp);
    assert_eq!((before.width, before.height), (360, 360));
    assert_eq!((after.width, after.height), (380, 360), "the resize reaches the drawing area");
    let (top, left) = ((100..260, 0..45), (0..50, 100..260));
    let (a, b) =
        (grey_pixels(&before, top.0.clone(), top.1.clone()), grey_pixels(&before, left.0.clone(), left.1.clone()));
    assert!(a > 3000 && b == 0, "portrait: panel pixels at the top {a}, at the left {b}");
    let (c, d) = (grey_pixels(&after, top.0, top.1), grey_pixels(&after, left.0, left.1));
    assert!(c == 0 && d > 3000, "landscape: panel pixels at the top {c}, at the left {d}");
    if let Err(e) = golden::check_golden("defold_gui_layouts_landscape", &after) {
        panic!("{e}");
    }
}

/// gui/get_set_font: a script reads its gui's font `default` (`go.get("#gui", "fonts", { key =
/// "default" })`) and on a click sets it to a `resource.font` property (text48.font): the text
/// node is drawn in the 48 px face instead of the 14 px default, so it covers far more pixels.
#[test]
fn gui_get_set_font_changes_the_font_on_click() {
    let tmp = TempDir::new("defold-get-set-font");
    let (before, after) = before_and_after_a_click("gui_get_set_font", &tmp);
    let (a, b) = (text_pixels(&before, 150..210), text_pixels(&after, 150..210));
    assert!(a > 20 && b > 4 * a, "text pixels before the click {a}, after {b}");
}

/// gui/get_set_texture: on a click the script sets its gui's texture `ui` to a `resource.atlas`
/// property (an atlas of Defold's built-in blue logo, Sinew's own picture at that path): the
/// auto-sized box node shows the 256 px logo, whose blue ring lies where the small logo-colour
/// image left the background white.
#[test]
fn gui_get_set_texture_swaps_the_atlas_on_click() {
    let tmp = TempDir::new("defold-get-set-texture");
    let (before, after) = before_and_after_a_click("gui_get_set_texture", &tmp);
    // The node is at (360, 360) of a 720x720 display: (180, 180) here; the ring is 35 to 51
    // pixels from its centre.
    let ring = after.pixel(223, 180).expect("inside");
    assert!(ring[2] > 200 && ring[0] < 100, "the blue ring after the click: {ring:?}");
    let white = before.pixel(223, 180).expect("inside");
    assert!(white.iter().take(3).all(|&c| c > 230), "background there before: {white:?}");
    let centre = before.pixel(180, 180).expect("inside");
    assert!(centre.iter().take(3).any(|&c| c < 200), "the logo-colour image before: {centre:?}");
}

/// gui/get_set_material: on a click the script sets its gui's material `default` (the built-in
/// `/builtins/materials/gui.material`) to a `resource.material` property whose fragment program
/// multiplies the node's colour (0.702, 0.8, 1) by (v, u, 0): the flat light-blue box becomes a
/// gradient, black at the bottom left, red at the top left and green at the bottom right, as
/// Defold's texture coordinates run (v up the box). A click again brings the built-in back.
#[test]
fn gui_get_set_material_swaps_the_node_material_on_click() {
    let tmp = TempDir::new("defold-get-set-material");
    let (before, after) = before_and_after_a_click("gui_get_set_material", &tmp);
    // The box is 200x100 at (360, 360) of a 720x720 display: x 130..230, y 155..205 here.
    let rgb = |img: &Image, x, y| img.pixel(x, y).map(|p| [p[0], p[1], p[2]]).expect("inside");
    let flat = rgb(&before, 180, 180);
    assert!(flat.iter().zip([179u8, 204, 255]).all(|(a, b)| a.abs_diff(b) <= 3), "built-in before: {flat:?}");
    let [top_left, bottom_left, bottom_right, centre] =
        [(133, 157), (133, 203), (227, 203), (180, 180)].map(|(x, y)| rgb(&after, x, y));
    assert!(top_left[0] > 160 && top_left[1] < 20 && top_left[2] < 5, "red at the top left: {top_left:?}");
    assert!(bottom_left.iter().all(|&c| c < 20), "black at the bottom left: {bottom_left:?}");
    assert!(bottom_right[1] > 180 && bottom_right[0] < 20, "green at the bottom right: {bottom_right:?}");
    let half = [0.702 * 0.5 * 255.0, 0.8 * 0.5 * 255.0, 0.0];
    assert!(centre.iter().zip(half).all(|(&a, b)| (f32::from(a) - b).abs() <= 6.0), "centre: {centre:?}");
    if let Err(e) = golden::check_golden("defold_gui_get_set_material", &after) {
        panic!("{e}");
    }
}

/// resource/create_atlas: the script makes a 128x128 texture (`resource.create_texture`),
/// fills it through a `buffer` stream (left half green, right half red) with
/// `resource.set_texture`, makes an atlas of its two halves (`resource.create_atlas`), shows
/// the left one on the sprite (`go.set(.., "image", ..)`, `sprite.play_flipbook`) and gives the
/// atlas to the gui under a new key, whose script shows the right one on its box node. The
/// sprite is at (360, 199) of a 720x720 display, the box at (360, 502): both 64x128.
#[test]
fn resource_create_atlas_shows_both_halves_of_a_made_texture() {
    let tmp = TempDir::new("defold-create-atlas");
    let img = golden_shot("resource_create_atlas", "3", "defold_resource_create_atlas", &tmp);
    let rgb = |x, y| img.pixel(x, y).map(|p| [p[0], p[1], p[2]]).expect("inside");
    // Screen rows run down: the sprite's centre is row 720 - 199, the box's 720 - 502.
    assert_eq!(rgb(360, 521), [0, 255, 0], "the sprite: the texture's left half");
    assert_eq!(rgb(360, 218), [255, 0, 0], "the gui box: its right half");
    let green = count_pixels(&img, 300..420, 440..600, |p| p[1] == 255 && p[0] == 0);
    let red = count_pixels(&img, 300..420, 140..300, |p| p[0] == 255 && p[1] == 0);
    assert!((64 * 128 - 200..=64 * 128 + 200).contains(&green), "sprite pixels {green}");
    assert!((64 * 128 - 200..=64 * 128 + 200).contains(&red), "box pixels {red}");
}

/// resource/modify_atlas: on a click the script reads its atlas (`resource.get_atlas`, its
/// page's `resource.get_texture_info`), decodes a PNG from its custom resources (`image.load`)
/// into a `buffer` and writes it over the atlas's first image (`resource.set_texture` at the
/// uvs the atlas gave): both pink ships turn yellow, the green ones stay.
#[test]
fn resource_modify_atlas_replaces_the_pink_ships_on_click() {
    let tmp = TempDir::new("defold-modify-atlas");
    let (before, after) = before_and_after_a_click("resource_modify_atlas", &tmp);
    let all = |img: &Image, f: &dyn Fn([u8; 4]) -> bool| count_pixels(img, 0..360, 0..360, f);
    let pink = |p: [u8; 4]| p[0] > 200 && p[2] > 110 && p[1] < 160;
    let yellow = |p: [u8; 4]| p[0] > 200 && p[1] > 150 && p[2] < 90;
    let green = |p: [u8; 4]| p[1] > 150 && p[0] < 150 && p[2] > 100 && p[2] < 190;
    let counts = |img: &Image| (all(img, &pink), all(img, &yellow), all(img, &green));
    let ((p0, y0, g0), (p1, y1, g1)) = (counts(&before), counts(&after));
    assert!(p0 > 500 && y0 < 20, "before: pink {p0}, yellow {y0}");
    assert!(p1 < 20 && y1 > 500, "after: pink {p1}, yellow {y1}");
    assert!(g0 > 500 && g0.abs_diff(g1) < g0 / 20, "the green ships stay: {g0} then {g1}");
}

/// A `.cubemap` (Defold's six images) on a material's `samplerCube`: a quad whose fragment
/// program samples direction +X on its left half and -Y on its right half shows the `right`
/// face's colour and the `bottom` face's, each face a solid colour (so orientation within a
/// face does not matter here; `project::cubemap`'s tests check the face order).
#[test]
fn a_cubemap_texture_reaches_a_sampler_cube() {
    let fp = "#version 140\nin mediump vec2 var_texcoord0;\nout vec4 out_fragColor;\nuniform samplerCube env;\nvoid main()\n{\n    vec3 dir = var_texcoord0.x < 0.5 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, -1.0, 0.0);\n    out_fragColor = vec4(texture(env, dir).rgb, 1.0);\n}\n";
    let material = "name: \"env\"\ntags: \"model\"\nvertex_program: \"/builtins/materials/model.vp\"\nfragment_program: \"/env.fp\"\nvertex_space: VERTEX_SPACE_LOCAL\nvertex_constants {\n  name: \"mtx_worldview\"\n  type: CONSTANT_TYPE_WORLDVIEW\n}\nvertex_constants {\n  name: \"mtx_view\"\n  type: CONSTANT_TYPE_VIEW\n}\nvertex_constants {\n  name: \"mtx_proj\"\n  type: CONSTANT_TYPE_PROJECTION\n}\nvertex_constants {\n  name: \"mtx_normal\"\n  type: CONSTANT_TYPE_NORMAL\n}\nsamplers {\n  name: \"env\"\n  wrap_u: WRAP_MODE_CLAMP_TO_EDGE\n  wrap_v: WRAP_MODE_CLAMP_TO_EDGE\n  filter_min: FILTER_MODE_MIN_LINEAR\n  filter_mag: FILTER_MODE_MAG_LINEAR\n}\n";
    let collection = "name: \"main\"\nembedded_instances {\n  id: \"quad\"\n  data: \"embedded_components {\\n\"\n  \"  id: \\\"model\\\"\\n\"\n  \"  type: \\\"model\\\"\\n\"\n  \"  data: \\\"mesh: \\\\\\\"/builtins/assets/gltf/quad.gltf\\\\\\\"\\\\n\"\n  \"materials {\\\\n\"\n  \"  name: \\\\\\\"default\\\\\\\"\\\\n\"\n  \"  material: \\\\\\\"/env.material\\\\\\\"\\\\n\"\n  \"  textures {\\\\n\"\n  \"    sampler: \\\\\\\"env\\\\\\\"\\\\n\"\n  \"    texture: \\\\\\\"/sky.cubemap\\\\\\\"\\\\n\"\n  \"  }\\\\n\"\n  \"}\\\\n\"\n  \"\\\"\\n\"\n  \"}\\n\"\n  position {\n    x: 360.0\n    y: 360.0\n  }\n  scale3 {\n    x: 400.0\n    y: 400.0\n    z: 1.0\n  }\n}\n";
    let faces = [
        ("right", [255, 0, 0, 255]),
        ("left", [0, 255, 0, 255]),
        ("top", [255, 255, 0, 255]),
        ("bottom", [0, 0, 255, 255]),
        ("front", [255, 0, 255, 255]),
        ("back", [0, 255, 255, 255]),
    ];
    let cubemap: String = faces.iter().map(|(f, _)| format!("{f}: \"/faces/{f}.png\"\n")).collect();
    let tmp = project(
        "defold-cubemap",
        &[
            (
                "game.project",
                "[bootstrap]\nmain_collection = /main.collectionc\n\n[display]\nwidth = 720\nheight = 720\n",
            ),
            ("env.fp", fp),
            ("env.material", material),
            ("sky.cubemap", cubemap.as_str()),
            ("main.collection", collection),
        ],
    );
    std::fs::create_dir_all(tmp.path().join("faces")).expect("faces dir");
    for (f, rgba) in faces {
        Image::filled(4, 4, rgba).save_png(&tmp.path().join(format!("faces/{f}.png"))).expect("face png");
    }
    let img = shot_project(&tmp);
    assert_eq!(img.pixel(140, 180).map(|p| [p[0], p[1], p[2]]), Some([255, 0, 0]), "+X: the right face");
    assert_eq!(img.pixel(220, 180).map(|p| [p[0], p[1], p[2]]), Some([0, 0, 255]), "-Y: the bottom face");
}

/// A Defold sprite material's vertex `attributes`: `mycolor` (no semantic, default red 0.25)
/// is one value for the sprite's vertices, set per sprite with `go.set` (a vector4, or a
/// vector3 as Defold allows); `position_local` (SEMANTIC_TYPE_POSITION in local space) is each
/// vertex's place in the sprite's own pixels. The program writes red from `mycolor`, green and
/// blue from the local position mapped 0..1 across the 200-pixel sprite.
#[test]
fn sprite_material_attributes_take_values_and_local_positions() {
    let vp = "#version 140\nin highp vec4 position;\nin mediump vec2 texcoord0;\nin mediump vec4 mycolor;\nin highp vec2 position_local;\nout mediump vec4 var_mycolor;\nout highp vec2 var_local;\nuniform vs_uniforms\n{\n    highp mat4 view_proj;\n};\nvoid main()\n{\n    gl_Position = view_proj * vec4(position.xyz, 1.0);\n    var_mycolor = mycolor;\n    var_local = position_local / 200.0 + 0.5;\n}\n";
    let fp = "#version 140\nin mediump vec4 var_mycolor;\nin highp vec2 var_local;\nout vec4 out_fragColor;\nvoid main()\n{\n    out_fragColor = vec4(var_mycolor.r, var_local.x, var_local.y, 1.0);\n}\n";
    let material = "name: \"attrs\"\ntags: \"tile\"\nvertex_program: \"/attrs.vp\"\nfragment_program: \"/attrs.fp\"\nvertex_constants {\n  name: \"view_proj\"\n  type: CONSTANT_TYPE_VIEWPROJ\n}\nattributes {\n  name: \"position_local\"\n  semantic_type: SEMANTIC_TYPE_POSITION\n  vector_type: VECTOR_TYPE_VEC2\n}\nattributes {\n  name: \"mycolor\"\n  double_values {\n    v: 0.25\n    v: 1.0\n    v: 1.0\n    v: 1.0\n  }\n}\n";
    let sprite = |id: &str, x: f32, script: bool, own: &str| {
        let components = if script { "components {\n  id: \"set\"\n  component: \"/set.script\"\n}\n" } else { "" };
        format!(
            "embedded_instances {{\n  id: \"{id}\"\n  data: {:?}\n  position {{\n    x: {x}\n    y: 360.0\n  }}\n}}\n",
            format!(
                "{components}embedded_components {{\n  id: \"sprite\"\n  type: \"sprite\"\n  data: {:?}\n}}\n",
                format!(
                    "tile_set: \"/builtins/graphics/particle_blob.tilesource\"\ndefault_animation: \"anim\"\nmaterial: \"/attrs.material\"\nsize_mode: SIZE_MODE_MANUAL\nsize {{\n  x: 200.0\n  y: 200.0\n}}\n{own}"
                )
            )
        )
    };
    // Sprite d sets its own value in its `.sprite` data (Defold's per-sprite override).
    let own = "attributes {\n  name: \"mycolor\"\n  double_values {\n    v: 0.75\n    v: 0.0\n  }\n}\n";
    let collection = format!(
        "name: \"main\"\n{}{}{}{}",
        sprite("a", 200.0, true, ""),
        sprite("b", 520.0, false, ""),
        sprite("c", 360.0, false, "").replace("y: 360.0", "y: 600.0"),
        sprite("d", 360.0, false, own).replace("y: 360.0", "y: 120.0")
    );
    let script = "function init(self)\n  go.set(\"#sprite\", \"mycolor\", vmath.vector4(1, 0, 0, 1))\n  go.set(\"/c#sprite\", \"mycolor\", vmath.vector3(0.5, 0, 0))\nend\n";
    let tmp = project(
        "defold-sprite-attributes",
        &[
            (
                "game.project",
                "[bootstrap]\nmain_collection = /main.collectionc\n\n[display]\nwidth = 720\nheight = 720\n",
            ),
            ("attrs.vp", vp),
            ("attrs.fp", fp),
            ("attrs.material", material),
            ("set.script", script),
            ("main.collection", collection.as_str()),
        ],
    );
    let img = shot_project(&tmp);
    let px = |x: u32, y: u32| {
        img.pixel(x, img.height - 1 - y).map(|p| [p[0] as i32, p[1] as i32, p[2] as i32]).expect("inside")
    };
    let near = |got: [i32; 3], want: [i32; 3], what: &str| {
        assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 8), "{what}: {got:?}, expected about {want:?}");
    };
    // Sprite a (centre 100, 180 here; 100 pixels wide): its own red, the local position's
    // middle at its centre, near 0.1 and 0.9 of its width at 10 pixels in from its corners.
    near(px(100, 180), [255, 128, 128], "a's centre");
    near(px(60, 140), [255, 26, 26], "a's bottom-left");
    near(px(140, 220), [255, 230, 230], "a's top-right");
    // Sprite b keeps the material's default; c took a vector3 (w kept).
    near(px(260, 180), [64, 128, 128], "b's centre");
    near(px(180, 300), [128, 128, 128], "c's centre");
    near(px(180, 60), [191, 128, 128], "d's centre, its own value");
}

/// sprite/samplers: a sprite whose material has two samplers, `texture1_sampler` on `one.atlas`
/// (Defold's logo) and `texture2_sampler` on `two.atlas` (the blue logo, renamed to the same
/// animation), mixed by `mix_amount`, which the script animates from 0 to 1 and back in a
/// two-second ping-pong. At the start the logo's ring shows the first atlas's yellow, after one
/// second the second's blue, and half way between a mix of both.
#[test]
fn sprite_samplers_mix_two_atlases_on_one_sprite() {
    let tmp = TempDir::new("defold-sprite-samplers");
    let ring = |frames: &str| {
        let (r, img) = shot_with("sprite_samplers", frames, &["--size", "360x360"], &tmp);
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        // The sprite is at (360, 360) of a 720x720 display: (180, 180) here; its ring is 36 to
        // 51 pixels from the centre.
        img.pixel(223, 180).expect("inside")
    };
    let (start, middle, end) = (ring("1"), ring("30"), ring("60"));
    assert!(start[0] > 180 && start[1] > 130 && start[2] < 110, "the first atlas's yellow ring: {start:?}");
    assert!(end[2] > 180 && end[0] < 110, "the second atlas's blue ring: {end:?}");
    for k in [0, 2] {
        let (lo, hi) = (start[k].min(end[k]), start[k].max(end[k]));
        assert!(middle[k] > lo + 20 && middle[k] + 20 < hi, "half way, channel {k} between both: {middle:?}");
    }
}

/// particles/fire_and_smoke: a looping fire emitter (additive, orange) and, after half a second,
/// a smoke emitter (grey) rising above it, as in Defold's picture of the example. After four
/// seconds the fire is warm and bright at the bottom centre, grey smoke rises above it, and
/// the corners are the clear colour: particles stay where the emitter sends them. The same
/// frames every run (the generator is seeded per component).
#[test]
fn particles_fire_and_smoke_burns_with_smoke_above() {
    let tmp = TempDir::new("defold-fire");
    let (r, img) = shot_with("particles_fire_and_smoke", "240", &["--size", "360x360"], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_particles_fire_and_smoke", &img) {
        panic!("{e}");
    }
    let (w, h) = (img.width, img.height);
    let count = |xs, ys, f: &dyn Fn([u8; 4]) -> bool| count_pixels(&img, xs, ys, f);
    let warm = |p: [u8; 4]| p[0] > 200 && p[1] > 100 && p[2] < 120;
    let grey = |p: [u8; 4]| p[0] > 70 && p[0].abs_diff(p[1]) < 20 && p[1].abs_diff(p[2]) < 20;
    // Rows are top to bottom: the fire in the lowest third, the smoke in the top half.
    let fire = count(w / 3..w * 2 / 3, h * 2 / 3..h, &warm);
    let smoke = count(w / 3..w * 2 / 3, 0..h / 2, &grey);
    let corners = count(0..w / 6, 0..h / 6, &|p| p[0] > 60) + count(w * 5 / 6..w, 0..h / 6, &|p| p[0] > 60);
    assert!(fire > 500 && smoke > 200 && corners == 0, "fire {fire}, smoke {smoke}, lit corner pixels {corners}");
}

/// particles/particlefx_set_get: a click swaps both emitters' image, animation and material
/// through `go.set` with `{ keys = { emitter } }`, from the sprites atlas and the built-in
/// particle material to the particles atlas and the example's glow material (its own fragment
/// program over Sinew's `/builtins/materials/particlefx.vp`), which turns particles near white.
/// The labels print the `go.get` values; the same frame without the click has few such pixels.
#[test]
fn particles_set_get_swaps_image_animation_and_material() {
    let tmp = TempDir::new("defold-pfx-set-get");
    let replay = tmp.path().join("click.jsonl");
    std::fs::write(&replay, CLICK).expect("replay");
    let size = ["--size", "360x360"];
    let (r, before) = shot_with("particles_set_get", "60", &size, &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let replay = replay.to_str().expect("utf-8");
    let (r, after) = shot_with("particles_set_get", "60", &[size[0], size[1], "--replay", replay], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_particles_set_get", &after) {
        panic!("{e}");
    }
    let white =
        |img: &Image| count_pixels(img, 0..img.width, 0..img.height, |p| p[0] > 235 && p[1] > 235 && p[2] > 235);
    let (b, a) = (white(&before), white(&after));
    assert!(a > b + 1000, "near-white pixels: {b} before the click, {a} after");
}

/// tilemap/get_set_tile: "click to place a flower" with `tilemap.set_tile` on the tile under
/// the pointer, read back with `tilemap.get_tile`. The level's tiles are drawn where its cells
/// are (the brown frame at the edges, white inside); a click at (300, 450) of the 720x720
/// display is tile (5, 5), the square x 256..320, y 256..320, which turns from the white
/// background to the flower's green and yellow.
#[test]
fn tilemap_get_set_tile_places_a_flower_where_clicked() {
    let tmp = TempDir::new("defold-tilemap");
    let replay = tmp.path().join("click.jsonl");
    let click = "{\"frame\": 5, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": true, \"x\": 300, \"y\": 450}\n{\"frame\": 6, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": false, \"x\": 300, \"y\": 450}\n";
    std::fs::write(&replay, click).expect("replay");
    let (r, before) = shot("tilemap_get_set_tile", "10", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let (r, after) = shot_with("tilemap_get_set_tile", "10", &["--replay", replay.to_str().expect("utf-8")], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_tilemap_get_set_tile", &after) {
        panic!("{e}");
    }
    assert_eq!((after.width, after.height), (720, 720));
    // The frame's left column (cells x = 1, x 64..128) is brown in both, half way up.
    let brown = |img: &Image| img.pixel(96, 360).is_some_and(|p| p[0] < 120 && p[1] < 90 && p[2] < 90);
    assert!(brown(&before) && brown(&after), "the level's frame tiles are drawn");
    // Tile (5, 5): screen rows 720-320..720-256.
    let coloured = |img: &Image| count_pixels(img, 256..320, 400..464, |p| !(p[0] > 240 && p[1] > 240 && p[2] > 240));
    let (b, a) = (coloured(&before), coloured(&after));
    assert!(b < 50, "the tile is empty before the click ({b} coloured pixels)");
    assert!(a > 400, "the flower is there after it ({a} coloured pixels)");
}

/// tilemap/collisions: "Click/tap on the screen to spawn game objects that will fall and
/// interact with the tilemap"; the level's script deletes whatever touches a tile of its
/// "danger" group. The tile source keeps only its tiles' groups: the hulls come from its image.
/// An enemy spawned by a replayed click above the spikes (screen x 480) is gone once it has
/// fallen onto them; one spawned above the plain ground (x 390) lies there. (Copied with the
/// two images it shows; its atlas lists only the enemy's.)
#[test]
fn tilemap_collisions_delete_what_falls_on_the_danger_tiles() {
    let tmp = TempDir::new("defold-tilemap-collisions");
    let dark = |img: &Image, (xs, ys): (std::ops::Range<u32>, std::ops::Range<u32>)| {
        count_pixels(img, xs, ys, |p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) < 200)
    };
    let (spikes, ground) = ((430..610, 520..585), (360..425, 540..615));
    let mut shots = Vec::new();
    for x in [480, 390] {
        let replay = tmp.path().join(format!("click{x}.jsonl"));
        let click = format!(
            "{{\"frame\": 5, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": true, \"x\": {x}, \"y\": 450}}\n{{\"frame\": 6, \"type\": \"mouse_button\", \"input\": \"MOUSE_BUTTON_LEFT\", \"down\": false, \"x\": {x}, \"y\": 450}}\n"
        );
        std::fs::write(&replay, click).expect("replay");
        let (r, img) = shot_with("tilemap_collisions", "120", &["--replay", replay.to_str().expect("utf-8")], &tmp);
        assert!(!r.stderr.contains("ERROR"), "{}", r.show());
        shots.push(img);
    }
    if let Err(e) = golden::check_golden("defold_tilemap_collisions", &shots[0]) {
        panic!("{e}");
    }
    let (on_spikes, on_ground) = (dark(&shots[0], spikes), dark(&shots[1], ground.clone()));
    assert_eq!(on_spikes, 0, "the enemy that fell on the spikes is deleted");
    assert!(on_ground > 300, "the enemy that fell on the ground lies there ({on_ground} dark pixels)");
    assert_eq!(dark(&shots[0], ground), 0, "nothing else came to that ground");
}

/// render/orthographic_zoom: "Scrolling the mouse wheel changes the camera zoom in small fixed
/// steps" with the camera in `ORTHO_MODE_FIXED` (`camera.set_orthographic_mode`). Five replayed
/// steps up make the zoom 1.5 (the label reads "Orthographic Zoom: 1.50"): the courtyard's
/// bottom wall, 170 pixels below the centre, moves to 255 below it (y 530 to 615).
#[test]
fn render_orthographic_zoom_zooms_on_the_wheel() {
    let tmp = TempDir::new("defold-ortho-zoom");
    let replay = tmp.path().join("wheel.jsonl");
    let steps: String =
        (5..10).map(|f| format!("{{\"frame\": {f}, \"type\": \"mouse_wheel\", \"steps\": 1}}\n")).collect();
    std::fs::write(&replay, steps).expect("replay");
    let (r, before) = shot("render_orthographic_zoom", "20", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let (r, after) = shot_with("render_orthographic_zoom", "20", &["--replay", replay.to_str().expect("utf-8")], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    if let Err(e) = golden::check_golden("defold_render_orthographic_zoom", &after) {
        panic!("{e}");
    }
    let stone = |p: [u8; 4]| p[2] > 80 && p[0].abs_diff(p[2]) < 40;
    // Below the centre, where only grass is between the two places.
    let wall = |img: &Image, ys| count_pixels(img, 280..400, ys, stone);
    let (at_1, at_15) =
        ((wall(&before, 526..538), wall(&after, 526..538)), (wall(&before, 608..626), wall(&after, 608..626)));
    assert!(at_1.0 > 500 && at_1.1 < 20, "the wall leaves y 530: {at_1:?} stone pixels before and after");
    assert!(at_15.0 < 20 && at_15.1 > 800, "and comes to y 615: {at_15:?}");
}

/// mesh/triangle: "a mesh component in the shape of a triangle ... The triangle also defines
/// the colors at each point": the `.buffer`'s three positions (scaled by 100 about the centre of
/// the 720x720 display) and its green, red and blue corners, mixed between.
#[test]
fn mesh_triangle_draws_its_buffers_coloured_corners() {
    let tmp = TempDir::new("defold-mesh-triangle");
    let img = golden_shot("mesh_triangle", "3", "defold_mesh_triangle", &tmp);
    let px = |x, y| img.pixel(x, y).expect("inside");
    // Just inside each corner: (-0.5, -0.5) green, (0.5, -0.5) red, (0, 0.5) blue.
    let (green, red, blue) = (px(318, 402), px(402, 402), px(360, 318));
    assert!(green[1] > 200 && green[0] < 40 && green[2] < 40, "{green:?}");
    assert!(red[0] > 200 && red[1] < 40 && red[2] < 40, "{red:?}");
    assert!(blue[2] > 200 && blue[0] < 40 && blue[1] < 40, "{blue:?}");
    assert_eq!(px(360, 300), [255, 255, 255, 255], "outside the triangle, the clear colour");
}

/// Defold draws a model only through a render predicate of its material's tags; Sinew's
/// pipeline is Defold's default render script, so the same triangle with its material tagged
/// `postprocess` (a quad a project's own render script draws over a render target) is not drawn,
/// where Sinew once drew such quads over the whole picture.
#[test]
fn a_model_tagged_for_another_render_script_is_not_drawn() {
    let tmp = TempDir::new("defold-mesh-postprocess");
    let dir = tmp.path().join("mesh_triangle");
    std::fs::create_dir_all(&dir).expect("mkdir");
    copy_dir(&example("mesh_triangle"), &dir);
    let material = dir.join("example/mesh.material");
    let text = std::fs::read_to_string(&material).expect("the example's material");
    assert!(text.contains("tags: \"model\""), "{text}");
    std::fs::write(&material, text.replace("tags: \"model\"", "tags: \"postprocess\"")).expect("write");
    let (r, img) = shot_of(&dir, "postprocess", "3", &[], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    for (x, y) in [(318, 402), (402, 402), (360, 318), (360, 380)] {
        assert_eq!(img.pixel(x, y), Some([255, 255, 255, 255]), "the clear colour at ({x}, {y})");
    }
}

/// mesh/textured: a quad from a `.buffer` as a triangle strip with texture coordinates,
/// textured by its material's `tex0` (the grass image), seen by the orbiting camera 6 units
/// away: a green square in the middle of the grey clear colour.
#[test]
fn mesh_textured_draws_a_grass_quad() {
    let tmp = TempDir::new("defold-mesh-textured");
    let (r, img) = shot("mesh_textured", "30", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let grass = |p: [u8; 4]| p[1] > p[0] + 15 && p[1] > p[2] + 5;
    let inside = count_pixels(&img, 240..480, 240..480, grass);
    assert!(inside > 240 * 240 * 9 / 10, "the quad covers the middle ({inside} grass pixels)");
    assert_eq!(count_pixels(&img, 0..150, 0..720, grass), 0, "and nothing at the sides");
    assert_eq!(img.pixel(100, 100), Some([51, 51, 51, 255]), "the example's clear colour");
}

/// The same quad with its picture red in the top half and blue in the bottom: the buffer's
/// texture coordinates are Defold's (v = 1 at the quad's top edge is the image's top row), so the
/// quad shows red above blue, as Defold draws it, not the other way up.
#[test]
fn mesh_textured_shows_its_picture_the_right_way_up() {
    let tmp = TempDir::new("defold-mesh-upright");
    let dir = tmp.path().join("mesh_textured");
    std::fs::create_dir_all(&dir).expect("mkdir");
    copy_dir(&example("mesh_textured"), &dir);
    let (red, blue) = ([230u8, 20, 20, 255], [20u8, 20, 230, 255]);
    let pixels: Vec<u8> = (0..8).flat_map(|row| if row < 4 { red } else { blue }.repeat(8)).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 8, 8);
    enc.set_color(png::ColorType::Rgba);
    let mut w = enc.write_header().expect("header");
    w.write_image_data(&pixels).expect("pixels");
    drop(w);
    std::fs::write(dir.join("example/floor_ground_grass.png"), out).expect("picture");
    let (r, img) = shot_of(&dir, "upright", "30", &[], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    let is =
        |c: [u8; 4]| move |p: [u8; 4]| p[0].abs_diff(c[0]) < 40 && p[1].abs_diff(c[1]) < 40 && p[2].abs_diff(c[2]) < 40;
    // Rows from the top: the quad spans about 240..480.
    let (top_red, top_blue) =
        (count_pixels(&img, 260..460, 260..340, is(red)), count_pixels(&img, 260..460, 260..340, is(blue)));
    let (low_red, low_blue) =
        (count_pixels(&img, 260..460, 380..460, is(red)), count_pixels(&img, 260..460, 380..460, is(blue)));
    assert!(top_red > 200 * 70 && top_blue == 0, "the top half is red: {top_red} red, {top_blue} blue");
    assert!(low_blue > 200 * 70 && low_red == 0, "the bottom half is blue: {low_red} red, {low_blue} blue");
}

/// timer/cancel_timer: a repeating one-second `timer.delay` plays a gui particle node
/// (`gui.play_particlefx`) at the screen's middle; a click cancels the timer. Its flames fly out
/// from (360, 400) of the 720x720 display, each turned along the direction it was born with
/// (`PARTICLE_ORIENTATION_INITIAL_DIRECTION`). At frame 80 (the timer fired at frame 60) the
/// ring of flames is there; with the click at frame 5 the timer never fires and no flame is.
#[test]
fn timer_cancel_timer_plays_a_gui_particle_node_until_cancelled() {
    let tmp = TempDir::new("defold-cancel-timer");
    let replay = tmp.path().join("click.jsonl");
    std::fs::write(&replay, CLICK).expect("replay");
    let played = golden_shot("timer_cancel_timer", "80", "defold_timer_cancel_timer", &tmp);
    let (r, cancelled) = shot_with("timer_cancel_timer", "80", &["--replay", replay.to_str().expect("utf-8")], &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    // Flame orange: red high, green in the middle, blue low; around the node (y 400 up is row
    // 320 down).
    let orange =
        |img: &Image| count_pixels(img, 200..520, 160..480, |p| p[0] > 200 && p[1] > 100 && p[1] < 220 && p[2] < 100);
    let (p, c) = (orange(&played), orange(&cancelled));
    assert!(p > 300, "flames around the node after the timer fired: {p} orange pixels");
    assert_eq!(c, 0, "no flame once the timer was cancelled before it fired");
}

/// animation/cancel_animation: its description label (SourceSansPro at 32 pixels, `line_break`
/// with `size.x` 600, at 360, 60) reads "Click or touch anywhere to cancel current animation
/// and move to the cursor position": in Defold it breaks into two centred lines inside the
/// 720-pixel window, in its own font, not one line running off both edges in the built-in one.
#[test]
fn cancel_animation_example_wraps_its_label_in_its_font() {
    let tmp = TempDir::new("defold-cancel-animation");
    let img = golden_shot("cancel_animation", "30", "defold_cancel_animation", &tmp);
    // White text on the dark clear colour; the label's centre is row 720 - 60 = 660.
    let white = |x: std::ops::Range<u32>, y: std::ops::Range<u32>| {
        count_pixels(&img, x, y, |p| p[0] > 200 && p[1] > 200 && p[2] > 200)
    };
    let (upper, lower) = (white(0..720, 622..658), white(0..720, 662..700));
    assert!(upper > 200 && lower > 200, "two lines of text: {upper} and {lower} white pixels");
    let edges = white(0..50, 600..720) + white(670..720, 600..720);
    assert_eq!(edges, 0, "the lines stay within the label's 600-pixel width, centred");
}

/// sprite/texture_scrolling: four sprites whose material scrolls the image inside its own
/// region of the atlas, through the `texture_transform_2d` matrix Defold feeds sprite
/// materials (the region's origin and size in page coordinates) and a `translation` attribute
/// per sprite. Each square shows the diamond pattern, not one flat colour, and it moves.
#[test]
fn texture_scrolling_example_tiles_and_scrolls_inside_the_image() {
    let tmp = TempDir::new("defold-texture-scrolling");
    let later = golden_shot("sprite_texture_scrolling", "60", "defold_sprite_texture_scrolling", &tmp);
    let (r, earlier) = shot("sprite_texture_scrolling", "30", &tmp);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    // The pattern's two colours, cyan (green and blue high) and a deeper blue (green lower),
    // in each square.
    for (x, y) in [(60, 60), (390, 60), (60, 390), (390, 390)] {
        let cyan = count_pixels(&later, x..x + 270, y..y + 270, |p| p[0] < 60 && p[1] > 200 && p[2] > 200);
        let blue = count_pixels(&later, x..x + 270, y..y + 270, |p| p[0] < 90 && p[1] < 170 && p[2] > 200);
        assert!(cyan > 5000 && blue > 5000, "square at {x},{y}: {cyan} cyan and {blue} blue pixels");
    }
    let moved = count_pixels(&earlier, 60..330, 60..330, |_| true)
        - (60..330u32)
            .flat_map(|y| (60..330u32).map(move |x| (x, y)))
            .filter(|&(x, y)| earlier.pixel(x, y) == later.pixel(x, y))
            .count();
    assert!(moved > 10_000, "the pattern scrolls between frames 30 and 60: {moved} pixels changed");
}
