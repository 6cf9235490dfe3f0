//! Model rendering CPU cost (issue 3): building and submitting a draw list of 500 static
//! textured cubes, all in view, through the built-in material. Criterion runs benches on the main
//! thread, so SDL can initialise here.
//!
//! - `submit_500/cpu`: time of `DrawList` refill + `ModelRenderer::submit` only; the frame is
//!   cleared before and `glFinish`ed after, outside the timed part.
//! - `submit_500/with_finish`: the same plus `glFinish` (what the GPU, here possibly llvmpipe,
//!   adds before the frame is done).
//!
//! Divide by 500 for the cost per draw. `cargo bench --bench render`.
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Vec3};
use glow::HasContext;
use sinew::project::Resources;
use sinew::project::model_data::*;
use sinew::render::*;

const COUNT: usize = 500;

fn cube() -> ModelData {
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    let mut p = PrimitiveData { material: Some(0), ..Default::default() };
    for (n, u, v) in faces {
        let base = p.positions.len() as u32;
        let (c, u, v) = (n * 0.5, u * 0.5, v * 0.5);
        for (corner, uv) in
            [(c - u - v, [0.0, 1.0]), (c + u - v, [1.0, 1.0]), (c + u + v, [1.0, 0.0]), (c - u + v, [0.0, 0.0])]
        {
            p.positions.push(corner.to_array());
            p.normals.push(n.to_array());
            p.texcoords0.push(uv);
        }
        p.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    let rgba = (0..16 * 16).flat_map(|i| if (i / 16 + i) % 2 == 0 { [255u8; 4] } else { [40, 60, 200, 255] }).collect();
    ModelData {
        source: "/bench/cube.gltf".into(),
        meshes: vec![MeshData {
            id: "cube".into(),
            node: 0,
            skin: None,
            primitives: vec![p],
            target_names: vec![],
            weights: vec![],
            aabb: Aabb { min: [-0.5; 3], max: [0.5; 3] },
        }],
        materials: vec![MaterialData { base_color_texture: Some(0), ..Default::default() }],
        textures: vec![TextureData {
            name: "checker".into(),
            width: 16,
            height: 16,
            rgba,
            wrap_s: Wrap::Repeat,
            wrap_t: Wrap::Repeat,
            mag_linear: false,
            min_linear: true,
            mipmaps: true,
            cube: false,
        }],
        nodes: vec![NodeData {
            name: "cube".into(),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            gltf_index: 0,
        }],
        ..Default::default()
    }
}

fn fill(list: &mut DrawList, model: ModelHandle, material: MaterialHandle, worlds: &[Mat4]) {
    list.clear();
    list.lights.push(LightItem::default_key_light());
    for w in worlds {
        list.push(model, material, *w);
    }
}

fn bench(c: &mut Criterion) {
    let (w, h) = (320, 240);
    let cfg = WindowConfig { title: "sinew bench".into(), width: w, height: h, vsync: false, headless: true };
    let mut gfx = match Gfx::new(&cfg) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("render bench skipped: {e}");
            return;
        }
    };
    eprintln!("{}", gfx.renderer_info());
    let (mut renderer, model, material) = {
        let gl = gfx.gl();
        let mut r = ModelRenderer::new(gl).expect("model renderer");
        let model = r.add_model(gl, &cube()).expect("cube upload");
        let res = Resources::demo();
        let material = r
            .add_material(gl, "/builtins/materials/model.material", &mut |p| res.read_string(p, None))
            .expect("built-in material");
        (r, model, material)
    };
    let worlds: Vec<Mat4> = (0..COUNT)
        .map(|i| {
            let (x, z) = ((i % 25) as f32 - 12.0, (i / 25) as f32 - 10.0);
            Mat4::from_translation(Vec3::new(x * 1.5, 0.0, z * 1.5)) * Mat4::from_rotation_y(i as f32 * 0.1)
        })
        .collect();
    let camera = CameraView {
        view: look_at_mat4(Vec3::new(0.0, 20.0, 40.0), Vec3::ZERO, Vec3::Y),
        proj: perspective(60f32.to_radians(), w as f32 / h as f32, 0.1, 200.0),
        position: Vec3::new(0.0, 20.0, 40.0),
    };
    let mut list = DrawList::new(camera);
    let mut group = c.benchmark_group("submit_500");
    group.sample_size(30).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    group.bench_function("cpu", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                gfx.begin_frame([0.1, 0.1, 0.1, 1.0]);
                let start = Instant::now();
                fill(&mut list, model, material, &worlds);
                let stats = renderer.submit(gfx.gl(), &list);
                total += start.elapsed();
                assert_eq!(stats.draws as usize, COUNT);
                // SAFETY: plain finish on the current context, outside the timed part.
                unsafe { gfx.gl().finish() };
            }
            total
        })
    });
    group.bench_function("with_finish", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                gfx.begin_frame([0.1, 0.1, 0.1, 1.0]);
                let start = Instant::now();
                fill(&mut list, model, material, &worlds);
                renderer.submit(gfx.gl(), &list);
                // SAFETY: plain finish on the current context.
                unsafe { gfx.gl().finish() };
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();
    renderer.destroy(gfx.gl());
}

criterion_group!(benches, bench);
criterion_main!(benches);
