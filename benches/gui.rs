//! Benchmark of issue 35: 5,000 GUI nodes (4,000 boxes over one image, 1,000 text nodes in one
//! font), each with a running tween on its position in the tween kernel `go.animate` uses
//! (`anim::TweenWorld`, script cells), per frame: the tween update, the copy into the nodes,
//! layout and the draw list. Also reports the draw list's batches (draw calls): the boxes and
//! the text are in two layers, as a Defold scene groups nodes to batch them.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::anim::{Easing, Element, Key, Playback, Spec, Target, TweenWorld};
use sinew::game::gui::GuiWorld;
use sinew::project::gui::GuiSpec;
use sinew::project::gui::scene::{GuiImage, GuiScene, NodeKind, default_node};
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
    let image =
        GuiImage { name: "ui".into(), path: "/ui.png".into(), width: 4, height: 4, rgba: Arc::new(vec![255; 64]) };
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
        }
        nodes.push(n);
    }
    let scene = GuiScene {
        path: "/b.gui".into(),
        script: None,
        fonts: Vec::new(),
        images: vec![image],
        layers: vec!["boxes".into(), "text".into()],
        nodes,
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
    eprintln!("gui_5000: {ms:.3} ms per frame (tweens + layout + draw list), {calls} draw calls");
    c.bench_function("gui_5000_animated_nodes", |bencher| bencher.iter(|| frame(&mut b)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
