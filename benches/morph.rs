//! Morph target cost (issue 5): 200 instances of a 10 000-vertex mesh with 8 targets, each with
//! its own animated weights, through the built-in material. Criterion runs benches on the main
//! thread, so SDL can initialise here. `cargo bench --bench morph`. Divide by 200 for the cost
//! per instance.
//!
//! - `morph_200/list`: refilling the `DrawList` (200 items, 8 weights each, new every frame).
//! - `morph_200/submit_10k` (`_no_targets`): list refill + `ModelRenderer::submit` of the 10k
//!   mesh with (without) targets; frame clear and `glFinish` are outside the timed part. On a
//!   software driver (llvmpipe) vertex shading runs inside the draw calls, so this is mostly
//!   the driver shading 2 M vertices, not Sinew's CPU work.
//! - `morph_200/submit_quad` (`_no_targets`): the same with a 4-vertex mesh with 8 targets:
//!   the renderer's own per-instance CPU cost (weights, uniforms, binds), which does not
//!   depend on the vertex count.
//! - `upload/with_targets`, `upload/no_targets`: `add_model` + `remove_model` + `glFinish` of
//!   the 10k model: one-time cost per model; the difference is the morph texture (packing and
//!   a 3.8 MB RGBA32F upload).
use std::f32::consts::PI;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Vec3};
use glow::HasContext;
use sinew::project::Resources;
use sinew::project::model_data::*;
use sinew::render::*;

const INSTANCES: usize = 200;
const SIDE: u32 = 100; // 100 x 100 = 10 000 vertices
const TARGETS: usize = 8;

/// A wavy `side` x `side` sheet with `targets` position + normal targets.
fn sheet(side: u32, targets: usize) -> ModelData {
    let mut p = PrimitiveData::default();
    for iy in 0..side {
        for ix in 0..side {
            let (x, y) = (ix as f32 / (side - 1) as f32 - 0.5, iy as f32 / (side - 1) as f32 - 0.5);
            p.positions.push([x, y, 0.0]);
            p.normals.push([0.0, 0.0, 1.0]);
        }
    }
    for iy in 0..side - 1 {
        for ix in 0..side - 1 {
            let a = iy * side + ix;
            p.indices.extend([a, a + 1, a + side + 1, a, a + side + 1, a + side]);
        }
    }
    p.targets = (0..targets)
        .map(|t| {
            let k = (t + 1) as f32;
            MorphTargetData {
                positions: p.positions.iter().map(|q| [0.0, 0.0, 0.1 * (k * PI * (q[0] + q[1])).sin()]).collect(),
                normals: p.positions.iter().map(|q| [0.05 * (k * PI * q[0]).cos(), 0.0, 0.0]).collect(),
                tangents: vec![],
            }
        })
        .collect();
    ModelData {
        source: format!("/bench/sheet_{side}_{targets}.gltf"),
        meshes: vec![MeshData {
            id: "sheet".into(),
            node: 0,
            skin: None,
            primitives: vec![p],
            target_names: vec![String::new(); targets],
            weights: vec![0.0; targets],
            aabb: Aabb { min: [-0.5, -0.5, -0.1], max: [0.5, 0.5, 0.1] },
        }],
        nodes: vec![NodeData {
            name: "sheet".into(),
            parent: None,
            gltf_index: 0,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }],
        ..Default::default()
    }
}

/// Refills `list`; with `frame`, each instance gets 8 weights that change every frame (as
/// animation or a script would give them).
fn fill(list: &mut DrawList, model: ModelHandle, material: MaterialHandle, worlds: &[Mat4], frame: Option<u32>) {
    list.clear();
    list.lights.push(LightItem::default_key_light());
    let mut w = [0.0f32; TARGETS];
    for (i, world) in worlds.iter().enumerate() {
        list.push(model, material, *world);
        if let Some(f) = frame {
            for (t, v) in w.iter_mut().enumerate() {
                *v = (0.05 * f as f32 + 0.3 * i as f32 + t as f32).sin() * 0.5 + 0.5;
            }
            list.set_morph_weights(&w);
        }
    }
}

fn bench(c: &mut Criterion) {
    let (w, h) = (320, 240);
    let cfg = WindowConfig { title: "sinew bench".into(), width: w, height: h, vsync: false, headless: true };
    let mut gfx = match Gfx::new(&cfg) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("morph bench skipped: {e}");
            return;
        }
    };
    eprintln!("{}", gfx.renderer_info());
    let (morphed, plain) = (sheet(SIDE, TARGETS), sheet(SIDE, 0));
    let mut renderer = ModelRenderer::new(gfx.gl()).expect("model renderer");
    let res = Resources::demo();
    let material = renderer
        .add_material(gfx.gl(), "/builtins/materials/model.material", &mut |p| res.read_string(p, None))
        .expect("built-in material");
    let mut add = |m: &ModelData| renderer.add_model(gfx.gl(), m).expect("upload");
    let models = [
        ("submit_10k", add(&morphed), true),
        ("submit_10k_no_targets", add(&plain), false),
        ("submit_quad", add(&sheet(2, TARGETS)), true),
        ("submit_quad_no_targets", add(&sheet(2, 0)), false),
    ];
    let worlds: Vec<Mat4> = (0..INSTANCES)
        .map(|i| {
            let (x, z) = ((i % 20) as f32 - 9.5, (i / 20) as f32 - 5.0);
            Mat4::from_translation(Vec3::new(x * 1.2, 0.0, z * 1.2)) * Mat4::from_rotation_x(-1.2)
        })
        .collect();
    let camera = CameraView {
        view: look_at_mat4(Vec3::new(0.0, 14.0, 16.0), Vec3::ZERO, Vec3::Y),
        proj: perspective(60f32.to_radians(), w as f32 / h as f32, 0.1, 200.0),
        position: Vec3::new(0.0, 14.0, 16.0),
    };
    let mut list = DrawList::new(camera);
    let mut frame = 0u32;
    let mut group = c.benchmark_group("morph_200");
    group.sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    group.bench_function("list", |b| {
        b.iter(|| {
            frame += 1;
            fill(&mut list, models[0].1, material, &worlds, Some(frame));
        })
    });
    for (name, model, weights) in models {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    frame += 1;
                    gfx.begin_frame([0.1, 0.1, 0.1, 1.0]);
                    let start = Instant::now();
                    fill(&mut list, model, material, &worlds, weights.then_some(frame));
                    let stats = renderer.submit(gfx.gl(), &list);
                    total += start.elapsed();
                    assert_eq!(stats.draws as usize, INSTANCES, "{stats:?}");
                    // SAFETY: plain finish on the current context, outside the timed part.
                    unsafe { gfx.gl().finish() };
                }
                total
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("upload");
    group.sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    for (name, model) in [("with_targets", &morphed), ("no_targets", &plain)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let gl = gfx.gl();
                let h = renderer.add_model(gl, model).expect("upload");
                renderer.remove_model(gl, h);
                // SAFETY: plain finish on the current context: the driver's copy is part of it.
                unsafe { gl.finish() };
            })
        });
    }
    group.finish();
    renderer.destroy(gfx.gl());
}

criterion_group!(benches, bench);
criterion_main!(benches);
