//! GPU skinning CPU cost (issue 4): 200 instances of a 24-joint skinned tube (240 vertices),
//! each with its own palette every frame, through the built-in material. Criterion runs benches
//! on the main thread, so SDL can initialise here. `cargo bench --bench skin`. Divide by 200 for
//! the cost per instance.
//!
//! - `skin_200/list`: refilling the `DrawList` (200 items, `set_palette` with 24 matrices each).
//! - `skin_200/submit_palettes`: list refill + `ModelRenderer::submit`, which packs 4 800 bones
//!   into `pose_matrix_cache` (one texture upload) and draws; frame clear and `glFinish` are
//!   outside the timed part.
//! - `skin_200/submit_rest`: the same without palettes (every item shares the rest pose).
//! - `skin_200/submit_unskinned`: the same mesh without a skin: the baseline. On a software
//!   driver (llvmpipe) vertex shading runs inside the draw calls, so these three are mostly the
//!   driver shading 48 000 vertices.
//! - `*_quad`: the same with a 4-vertex mesh on the same 24-joint skin: the renderer's own
//!   per-instance CPU cost (palette packing, upload, uniforms, binds).
//!
//! The palettes themselves (sampling, `Skeleton::palette`) are precomputed: that is the rig's
//! cost (`benches/skeleton.rs`), not the renderer's.
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Quat, Vec3};
use glow::HasContext;
use sinew::project::Resources;
use sinew::project::model_data::*;
use sinew::render::*;

const INSTANCES: usize = 200;
const JOINTS: usize = 24;
const SEG: f32 = 0.1;

fn node(name: String, parent: Option<usize>, t: [f32; 3]) -> NodeData {
    NodeData { name, parent, gltf_index: 0, translation: t, rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] }
}

/// A 10-sided tube over a chain of `JOINTS` joints, each vertex on its two nearest joints.
fn tube(skinned: bool) -> ModelData {
    let sides = 10u32;
    let mut p = PrimitiveData::default();
    for j in 0..JOINTS {
        for s in 0..sides {
            let a = std::f32::consts::TAU * s as f32 / sides as f32;
            p.positions.push([0.1 * a.cos(), j as f32 * SEG, 0.1 * a.sin()]);
            p.normals.push([a.cos(), 0.0, a.sin()]);
            if skinned {
                p.joints.push([j as u16, (j + 1).min(JOINTS - 1) as u16, 0, 0]);
                p.weights.push([0.75, 0.25, 0.0, 0.0]);
            }
        }
    }
    for r in 0..JOINTS as u32 - 1 {
        for s in 0..sides {
            let (a, b) = (r * sides + s, r * sides + (s + 1) % sides);
            p.indices.extend([a, a + sides, b, b, a + sides, b + sides]);
        }
    }
    let mut nodes: Vec<NodeData> = (0..JOINTS)
        .map(|j| node(format!("j{j}"), j.checked_sub(1), [0.0, if j == 0 { 0.0 } else { SEG }, 0.0]))
        .collect();
    nodes.push(node("body".into(), None, [0.0; 3]));
    let skins = if skinned {
        let inverse_bind = (0..JOINTS)
            .map(|j| Mat4::from_translation(Vec3::new(0.0, -(j as f32) * SEG, 0.0)).to_cols_array())
            .collect();
        vec![SkinData { name: "skin".into(), joints: (0..JOINTS).collect(), inverse_bind }]
    } else {
        Vec::new()
    };
    ModelData {
        source: format!("/bench/tube_{skinned}.gltf"),
        meshes: vec![MeshData {
            id: "tube".into(),
            node: JOINTS,
            skin: skinned.then_some(0),
            primitives: vec![p],
            target_names: vec![],
            weights: vec![],
            aabb: Aabb { min: [-0.1, 0.0, -0.1], max: [0.1, JOINTS as f32 * SEG, 0.1] },
        }],
        nodes,
        skins,
        ..Default::default()
    }
}

/// The tube's rig with a 4-vertex quad as its mesh (influenced by the first and last joints): the
/// renderer's own per-instance cost, without the driver's per-vertex work.
fn quad(skinned: bool) -> ModelData {
    let mut m = tube(skinned);
    let last = JOINTS as u16 - 1;
    m.source = format!("/bench/quad_{skinned}.gltf");
    m.meshes[0].primitives[0] = PrimitiveData {
        positions: vec![[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 1.0, 0.0], [-0.5, 1.0, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 4],
        joints: if skinned { vec![[0, last, 0, 0]; 4] } else { vec![] },
        weights: if skinned { vec![[0.5, 0.5, 0.0, 0.0]; 4] } else { vec![] },
        indices: vec![0, 1, 2, 0, 2, 3],
        ..Default::default()
    };
    m
}

/// `count` different poses: each joint bent a little about Z, as an animation would.
fn palettes(count: usize) -> Vec<Vec<Mat4>> {
    (0..count)
        .map(|k| {
            let mut world = Mat4::IDENTITY;
            (0..JOINTS)
                .map(|j| {
                    let t = if j == 0 { Vec3::ZERO } else { Vec3::new(0.0, SEG, 0.0) };
                    let bend = Quat::from_rotation_z(0.08 * ((k + j) as f32 * 0.4).sin());
                    world *= Mat4::from_rotation_translation(bend, t);
                    world * Mat4::from_translation(Vec3::new(0.0, -(j as f32) * SEG, 0.0))
                })
                .collect()
        })
        .collect()
}

/// Refills `list`; with `frame`, each instance gets one of the palettes, shifting every frame.
fn fill(
    list: &mut DrawList,
    model: ModelHandle,
    material: MaterialHandle,
    worlds: &[Mat4],
    poses: &[Vec<Mat4>],
    frame: Option<usize>,
) {
    list.clear();
    list.lights.push(LightItem::default_key_light());
    for (i, world) in worlds.iter().enumerate() {
        list.push(model, material, *world);
        if let Some(f) = frame {
            list.set_palette(&poses[(f + i) % poses.len()]);
        }
    }
}

fn bench(c: &mut Criterion) {
    let (w, h) = (320, 240);
    let cfg = WindowConfig { title: "sinew bench".into(), width: w, height: h, vsync: false, headless: true };
    let mut gfx = match Gfx::new(&cfg) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skin bench skipped: {e}");
            return;
        }
    };
    eprintln!("{}", gfx.renderer_info());
    let mut renderer = ModelRenderer::new(gfx.gl()).expect("model renderer");
    let res = Resources::demo();
    let material = renderer
        .add_material(gfx.gl(), "/builtins/materials/model.material", &mut |p| res.read_string(p, None))
        .expect("built-in material");
    let skinned = renderer.add_model(gfx.gl(), &tube(true)).expect("upload");
    let plain = renderer.add_model(gfx.gl(), &tube(false)).expect("upload");
    let skinned_quad = renderer.add_model(gfx.gl(), &quad(true)).expect("upload");
    let plain_quad = renderer.add_model(gfx.gl(), &quad(false)).expect("upload");
    let poses = palettes(16);
    let worlds: Vec<Mat4> = (0..INSTANCES)
        .map(|i| {
            let (x, z) = ((i % 20) as f32 - 9.5, (i / 20) as f32 - 5.0);
            Mat4::from_translation(Vec3::new(x * 1.2, 0.0, z * 1.2))
        })
        .collect();
    let camera = CameraView {
        view: look_at_mat4(Vec3::new(0.0, 14.0, 16.0), Vec3::ZERO, Vec3::Y),
        proj: perspective(60f32.to_radians(), w as f32 / h as f32, 0.1, 200.0),
        position: Vec3::new(0.0, 14.0, 16.0),
    };
    let mut list = DrawList::new(camera);
    let mut frame = 0usize;
    let mut group = c.benchmark_group("skin_200");
    group.sample_size(20).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    group.bench_function("list", |b| {
        b.iter(|| {
            frame += 1;
            fill(&mut list, skinned, material, &worlds, &poses, Some(frame));
        })
    });
    let cases = [
        ("submit_palettes", skinned, true, JOINTS * INSTANCES),
        ("submit_rest", skinned, false, JOINTS),
        ("submit_unskinned", plain, false, 0),
        ("submit_palettes_quad", skinned_quad, true, JOINTS * INSTANCES),
        ("submit_rest_quad", skinned_quad, false, JOINTS),
        ("submit_unskinned_quad", plain_quad, false, 0),
    ];
    for (name, model, with_palettes, bones) in cases {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    frame += 1;
                    gfx.begin_frame([0.1, 0.1, 0.1, 1.0]);
                    let start = Instant::now();
                    fill(&mut list, model, material, &worlds, &poses, with_palettes.then_some(frame));
                    let stats = renderer.submit(gfx.gl(), &list);
                    total += start.elapsed();
                    assert_eq!((stats.draws as usize, stats.bones as usize), (INSTANCES, bones), "{stats:?}");
                    // SAFETY: plain finish on the current context, outside the timed part.
                    unsafe { gfx.gl().finish() };
                }
                total
            })
        });
    }
    group.finish();
    renderer.destroy(gfx.gl());
}

criterion_group!(benches, bench);
criterion_main!(benches);
