//! Node (rigid) animation: a model of N animated nodes (a chain of boxes, each node with its own
//! translation and rotation channels and its own mesh, no skin), through the runtime's
//! `AnimState` — advance, sample, local-to-model, mesh matrices for the draw list. Reported per
//! animated node per frame, next to the one-clip joint figure of `benches/skeleton.rs`
//! (target ≤ 20 ns per node).
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Quat;
use sinew::anim::Playback;
use sinew::game::animation::{AnimState, Rig};
use sinew::project::gltf::import_bytes;
use sinew::project::gltf::robot_arm::box_primitive;
use sinew::project::gltf::writer::{ChannelSpec, GltfBuilder};
use sinew::project::model_data::{ChannelPath, Interpolation};
use std::time::{Duration, Instant};

fn chain(nodes: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mut channels = Vec::new();
    let mut parent = None;
    let times: Vec<f32> = (0..31).map(|k| k as f32 / 30.0).collect();
    for i in 0..nodes {
        let n = b.node(&format!("n{i}"), parent, [0.0, 0.3, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        b.mesh(n, &format!("box{i}"), &[box_primitive([0.0, 0.15, 0.0], [0.1, 0.3, 0.1], None)], &[], &[]);
        let phase = i as f32 * 0.37;
        channels.push(ChannelSpec {
            node: n,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: times
                .iter()
                .flat_map(|t| Quat::from_rotation_z((t * 6.0 + phase).sin() * 0.3).to_array())
                .collect(),
        });
        channels.push(ChannelSpec {
            node: n,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: times.iter().flat_map(|t| [0.0, 0.3 + 0.05 * (t * 4.0 + phase).sin(), 0.0]).collect(),
        });
        parent = Some(n);
    }
    b.animation("wave", &channels);
    b.to_glb()
}

fn per_node(c: &mut Criterion) {
    let mut g = c.benchmark_group("node_animation");
    g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for nodes in [24, 100] {
        let m = import_bytes("/chain.glb", &chain(nodes), None).unwrap_or_else(|e| panic!("{e}"));
        let rig = std::sync::Arc::new(Rig::new(&m.source, &m, &[&m]).unwrap_or_else(|e| panic!("{e}")));
        let mut s = AnimState::with_meshes(rig, &m);
        s.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
        let mut frame = || {
            let _ = s.advance(1.0 / 60.0);
            s.pose(&mut []);
        };
        g.throughput(Throughput::Elements(nodes as u64));
        g.bench_function(format!("sinew_{nodes}_nodes"), |b| b.iter(&mut frame));
        let mut t: Vec<f64> = (0..50)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..200 {
                    frame();
                }
                start.elapsed().as_secs_f64() * 1e9 / 200.0 / nodes as f64
            })
            .collect();
        t.sort_by(f64::total_cmp);
        eprintln!("node animation {nodes:>3} nodes: {:6.1} ns/node best, {:6.1} median", t[0], t[25]);
    }
    g.finish();
}

criterion_group!(benches, per_node);
criterion_main!(benches);
