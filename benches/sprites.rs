//! Benchmark of issue 38: 10,000 sprites, each playing a looping flipbook and moved by a
//! `go.animate`. One frame is the game's whole step (scripts, tweens, the sprite pass,
//! transforms) plus the CPU side of drawing (the quad list, the depth sort, the batches); the
//! draw calls it takes are printed (targets: at most 2 ms per frame and 10 calls).
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::game::World;
use sinew::game::sprites::quads::SpriteQuad;
use sinew::project::sprite::{Billboard, BlendMode, SizeMode, SpriteSpec, load_atlas};
use sinew::project::{CollectionSpec, ComponentKind, ComponentSpec, ComponentTransform, ObjectSpec, Resources};
use sinew::render::sprites::{count_batches, draw_order};
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

const SPRITES: usize = 10_000;
const DT: f32 = 1.0 / 60.0;

/// Starts one `go.animate` of `position` per sprite object.
const DRIVER: &str = r#"
function init(self)
  for i = 0, 9999 do
    local id = hash("/s" .. i)
    go.animate(id, "position", go.PLAYBACK_LOOP_PINGPONG, vmath.vector3(i % 100 * 8 + 40, 600, 0), go.EASING_INOUTSINE, 1 + (i % 7) * 0.25)
  end
end
"#;

fn png(w: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    let mut wr = enc.write_header().expect("header");
    wr.write_image_data(&c.repeat((w * h) as usize)).expect("pixels");
    drop(wr);
    out
}

fn game() -> (ScriptHost, Rc<RefCell<World>>) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-sprites-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("main")).expect("temp dir");
    for (i, c) in [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]].iter().enumerate() {
        std::fs::write(dir.join(format!("main/f{i}.png")), png(16, 16, *c)).expect("image");
    }
    let atlas = r#"{ "animations": [{ "id": "walk", "images": [{ "image": "/main/f0.png" }, { "image": "/main/f1.png" },
        { "image": "/main/f2.png" }, { "image": "/main/f3.png" }], "fps": 12, "playback": "loop_forward" }] }"#;
    std::fs::write(dir.join("main/a.atlas"), atlas).expect("atlas");
    std::fs::write(dir.join("main/driver.script"), DRIVER).expect("script");
    let res = Resources::open_dir(&dir).expect("resources");
    let atlas = Arc::new(load_atlas(&res, "/main/a.atlas").expect("atlas"));
    let sprite = SpriteSpec {
        atlas,
        textures: Vec::new(),
        attributes: Vec::new(),
        default_animation: 0,
        material: "/builtins/materials/sprite.material".into(),
        blend_mode: BlendMode::Alpha,
        size_mode: SizeMode::Auto,
        size: [0.0; 2],
        billboard: Billboard::Off,
        transform: ComponentTransform::IDENTITY,
        slice9: [0.0; 4],
    };
    let object = |path: String, position: [f32; 3], components| ObjectSpec {
        path,
        collection_prefix: "/".into(),
        parent: None,
        position,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        components,
    };
    let mut objects: Vec<ObjectSpec> = (0..SPRITES)
        .map(|i| {
            let c = ComponentSpec { id: "sprite".into(), kind: ComponentKind::Sprite(sprite.clone()) };
            object(format!("/s{i}"), [(i % 100) as f32 * 8.0, (i / 100) as f32 * 6.0, 0.0], vec![c])
        })
        .collect();
    let driver = ComponentSpec {
        id: "script".into(),
        kind: ComponentKind::Script { script: "/main/driver.script".into(), properties: vec![] },
    };
    objects.push(object("/driver".into(), [0.0; 3], vec![driver]));
    let spec = CollectionSpec { name: "main".into(), objects };
    let world = Rc::new(RefCell::new(World::new("main")));
    let mut host = ScriptHost::new(world.clone(), res.clone()).expect("lua");
    sinew::game::spawn::spawn_collection(&world, &res, &spec, &mut host).expect("spawn");
    (host, world)
}

/// One frame: the game's step, then the quad list, the draw order and the batches.
fn frame(
    host: &mut ScriptHost,
    world: &Rc<RefCell<World>>,
    quads: &mut Vec<SpriteQuad>,
    order: &mut Vec<(f32, u32)>,
) -> u32 {
    sinew::game::update(world, host, DT, &mut |_, _| {});
    sinew::game::post_update(world, host);
    let w = world.borrow();
    w.sprites.quads(&w.scene, glam::Mat4::IDENTITY, quads);
    draw_order(quads, glam::Mat4::IDENTITY, order);
    count_batches(quads, order)
}

fn bench(c: &mut Criterion) {
    let (mut host, world) = game();
    let (mut quads, mut order) = (Vec::new(), Vec::new());
    // The first frame runs `init` (10,000 go.animate calls); measured frames are steady ones.
    for _ in 0..3 {
        frame(&mut host, &world, &mut quads, &mut order);
    }
    let calls = frame(&mut host, &world, &mut quads, &mut order);
    println!("sprites: {} quads, {calls} draw call(s) per frame, {} tweens", quads.len(), world.borrow().tweens.len());
    assert_eq!(quads.len(), SPRITES);
    c.bench_function("sprites_10k_flipbook_and_animate_frame", |b| {
        b.iter(|| frame(&mut host, &world, &mut quads, &mut order))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
