//! Benchmark of issue 35: 5,000 GUI nodes (4,000 boxes over one atlas, each playing a looping
//! 2-frame flipbook, 1,000 text nodes in one font), each with a running tween on its position
//! in the tween kernel `go.animate` uses (`anim::TweenWorld`, script cells), per frame: the
//! flipbooks, the tween update, the copy into the nodes, layout and the draw list. Also reports the draw list's batches (draw calls): the boxes and
//! the text are in two layers, as a Defold scene groups nodes to batch them.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::anim::{Easing, Element, Key, Playback, Spec, Target, TweenWorld};
use sinew::game::gui::GuiWorld;
use sinew::project::gui::GuiSpec;
use sinew::project::gui::scene::{GuiImage, GuiScene, NodeKind, default_node};
use sinew::project::sprite::{Atlas, Flipbook, Frame, Playback as FlipPlayback};
use sinew::scene::Scene;
use std::sync::Arc;

const NODES: usize = 5_000;
const DT: f32 = 1.0 / 60.0;

struct Bench {
    gui: GuiWorld,
    tweens: TweenWorld,
    scene: Scene,
    /// (node, x cell, y cell)
    cells: Vec<(usize, u32, u32)>,
}

fn setup() -> Bench {
    // An atlas page of two 4x4 frames, and a 2-frame looping flipbook over them.
    let frames = vec![Frame { x: 0, y: 0, width: 4, height: 4 }, Frame { x: 4, y: 0, width: 4, height: 4 }];
    let blink = Flipbook {
        id: "blink".into(),
        frames: vec![0, 1],
        fps: 8.0,
        playback: FlipPlayback::LoopForward,
        flip_horizontal: false,
        flip_vertical: false,
    };
    let atlas = Atlas {
        source: "/ui.atlas".into(),
        width: 8,
        height: 4,
        rgba: Vec::new(),
        frames,
        animations: vec![blink],
        images: Vec::new(),
        hulls: Vec::new(),
        pivots: Vec::new(),
    };
    let image = GuiImage {
        name: "ui".into(),
        path: "/ui.atlas".into(),
        width: 8,
        height: 4,
        rgba: Arc::new(vec![255; 8 * 4 * 4]),
        atlas: Some(Arc::new(atlas)),
    };
    let mut nodes = Vec::with_capacity(NODES);
    for i in 0..NODES {
        let text = i % 5 == 4;
        let mut n = default_node(if text { NodeKind::Text } else { NodeKind::Box });
        n.id = format!("n{i}");
        n.position = glam::Vec3::new((i % 100) as f32 * 9.6, (i / 100) as f32 * 10.8, 0.0);
        n.size = [8.0, 8.0];
        // Two layers, as a Defold scene groups them to batch: boxes, then text.
        n.layer = Some(usize::from(text));
        if text {
            n.text = format!("{i}");
        } else {
            n.texture = Some(0);
            n.animation = Some(0);
        }
        nodes.push(n);
    }
    let scene = GuiScene {
        path: "/b.gui".into(),
        script: None,
        fonts: Vec::new(),
        font_files: Vec::new(),
        images: vec![image],
        layers: vec!["boxes".into(), "text".into()],
        nodes,
        effects: Vec::new(),
        materials: Vec::new(),
        layouts: Vec::new(),
    };
    let mut gui = GuiWorld::default();
    gui.create(0, "gui", &GuiSpec::new(scene));
    let mut tweens = TweenWorld::new();
    let mut cells = Vec::with_capacity(NODES);
    for i in 0..NODES {
        let p = gui.instances[0].nodes[i].position;
        let (cx, _) = tweens.script_cell(0, 1, (2 * i) as u64 + 10, false);
        let (cy, _) = tweens.script_cell(0, 1, (2 * i) as u64 + 11, false);
        tweens.cells.values[cx as usize] = p.x;
        tweens.cells.values[cy as usize] = p.y;
        let elements = [
            Element { property: (2 * i) as u64 + 10, target: Target::Script { cell: cx }, to: p.x + 50.0 },
            Element { property: (2 * i) as u64 + 11, target: Target::Script { cell: cy }, to: p.y + 30.0 },
        ];
        let spec = Spec {
            playback: Playback::LoopPingpong,
            easing: Easing::Builtin((i % 41) as u8),
            duration: 1.0 + (i % 7) as f32 * 0.25,
            delay: 0.0,
            callback: 0,
        };
        let key = Key { slot: 0, component: 1, property: i as u64 + 1_000_000 };
        if tweens.animate(key, &elements, &spec).is_err() {
            panic!("tween buffer full");
        }
        cells.push((i, cx, cy));
    }
    Bench { gui, tweens, scene: Scene::new(), cells }
}

fn frame(b: &mut Bench) -> usize {
    b.gui.animate_flipbooks(DT, &[]);
    b.tweens.prepare(DT);
    b.tweens.update(&mut b.scene, DT);
    let nodes = &mut b.gui.instances[0].nodes;
    for &(i, cx, cy) in &b.cells {
        nodes[i].position.x = b.tweens.cells.values[cx as usize];
        nodes[i].position.y = b.tweens.cells.values[cy as usize];
    }
    b.gui.build((960, 540), (1920, 1080)).draw_calls()
}

fn bench(c: &mut Criterion) {
    let mut b = setup();
    let calls = frame(&mut b);
    let start = std::time::Instant::now();
    let frames = 60;
    for _ in 0..frames {
        frame(&mut b);
    }
    let ms = start.elapsed().as_secs_f64() * 1000.0 / frames as f64;
    eprintln!("gui_5000: {ms:.3} ms per frame (flipbooks + tweens + layout + draw list), {calls} draw calls");
    c.bench_function("gui_5000_animated_nodes", |bencher| bencher.iter(|| frame(&mut b)));
}

/// The same 5,000 nodes made by a `.gui_script` (`gui.new_box_node`/`new_text_node`) and moved
/// by `gui.animate` itself, in a game loaded as `sinew run` loads it: per frame, the whole game
/// step (scripts, the tweens `gui.animate` started and their copy into the nodes) plus layout
/// and the draw list.
fn bench_via_gui_animate(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-gui-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("main")).expect("dir");
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).expect("write");
    write("project.json", r#"{ "main_collection": "/main/main.collection" }"#);
    write(
        "main/main.collection",
        r#"{ "name": "main", "objects": [ { "id": "ui", "components": [ { "id": "hud", "type": "gui", "gui": "/main/b.gui" } ] } ] }"#,
    );
    // Two layers, as a Defold scene groups nodes to batch them: boxes, then text.
    write(
        "main/b.gui",
        r#"{ "script": "/main/b.gui_script", "layers": [{ "name": "boxes" }, { "name": "text" }], "nodes": [] }"#,
    );
    write(
        "main/b.gui_script",
        &format!(
            "function init(self)\n  for i = 0, {} do\n    local p = vmath.vector3((i % 100) * 9.6, math.floor(i / 100) * 10.8, 0)\n    local n = (i % 5 == 4) and gui.new_text_node(p, tostring(i)) or gui.new_box_node(p, vmath.vector3(8, 8, 0))\n    gui.set_layer(n, (i % 5 == 4) and 'text' or 'boxes')\n    gui.animate(n, 'position', p + vmath.vector3(50, 30, 0), i % 41, 1 + (i % 7) * 0.25, 0, nil, gui.PLAYBACK_LOOP_PINGPONG)\n  end\nend\n",
            NODES - 1
        ),
    );
    let res = sinew::project::Resources::open_dir(&dir).expect("project");
    let mut g = sinew::app::run::load_game(&res, Some((960, 540))).unwrap_or_else(|e| panic!("{e}"));
    let mut step = || {
        sinew::game::update(&g.world, &mut g.scripts, DT, &mut |_, _| {});
        sinew::game::post_update(&g.world, &mut g.scripts);
        g.world.borrow_mut().gui.build((960, 540), (1920, 1080)).draw_calls()
    };
    let mut calls = 0;
    for _ in 0..30 {
        calls = step();
    }
    let mut t: Vec<f64> = (0..200)
        .map(|_| {
            let s = std::time::Instant::now();
            step();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    let nodes = g.world.borrow().gui.instances[0].nodes.len();
    assert_eq!(nodes, NODES, "the script made every node");
    eprintln!(
        "gui_5000 via gui.animate: {:.3} ms per frame median ({:.3} best; game step + layout + draw list), {calls} draw calls",
        t[100], t[0]
    );
    c.bench_function("gui_5000_via_gui_animate", |b| b.iter(&mut step));
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench, bench_via_gui_animate);
criterion_main!(benches);
