//! Morph targets on the GPU (GL context needed, so `harness = false` with its own `main`).
//!
//! - Readback: the built-in vertex program (`shaders/model.vp`, unmodified) runs under transform
//!   feedback with the renderer's morph texture, and its morphed positions and normals are
//!   compared with the CPU reference `sinew::anim::morph` (and, for the Khronos samples,
//!   with the independent reference poses in `tests/data/reference`).
//! - Renderer: per-instance weight spans drawn with the built-in material and with a Defold-style
//!   contract shader (`tests/fixtures/morph_contract.vp`) must look like the same meshes morphed
//!   on the CPU; golden images `tests/golden/morph_*.png` (`SINEW_UPDATE_GOLDEN=1` rewrites them and fails).
//!
//! Test models are generated with `GltfBuilder` and imported, so the importer is in the loop.

use std::f32::consts::PI;

use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat3, Mat4, Quat, Vec3};
use glow::HasContext;
use serde_json::Value;
use sinew::anim::morph::{morph_normals, morph_positions};
use sinew::base::error::LoadError;
use sinew::project::Resources;
use sinew::project::gltf::writer::{GltfBuilder, PrimitiveSpec, TargetSpec};
use sinew::project::gltf::{import, import_bytes};
use sinew::project::model_data::*;
use sinew::render::*;
#[path = "common/checks.rs"]
mod checks;
use checks::data::{reference_poses, sample_assets};
use checks::{
    Check, Scene, capture_program, columns, ensure, manifest_dir, max_error, set_instance_attribute, size_of,
};

/// Morphed (positions, normals) of one primitive.
type Morphed = (Vec<[f32; 3]>, Vec<[f32; 3]>);
/// One reference pose of one primitive: (time, index in `meshes[]`, weights, world positions).
type RefPose = (f64, usize, Vec<f32>, Vec<[f32; 3]>);

const W: u32 = 160;
const H: u32 = 120;
const BUILTIN_VP: &str = include_str!("../shaders/model.vp");

fn main() {
    let checks: &[(&str, Check)] = &[
        ("readback: generated model, GPU = CPU reference", readback_generated),
        ("readback: vertices past the first texture row", readback_rows),
        ("readback: sample models vs reference poses", readback_samples),
        ("renderer: built-in material per-instance weights = CPU-morphed meshes", renderer_builtin),
        ("renderer: contract shader per-instance weights = CPU-morphed meshes", renderer_contract),
        ("renderer: `morph_weights` alias as a plain uniform array", renderer_alias),
        ("golden: built-in material", golden_builtin),
        ("golden: contract shader", golden_contract),
        ("too many targets for the material: reported once, not drawn", too_many_targets),
        ("bad morph target data is an upload error", upload_errors),
    ];
    checks::run(checks);
}

// ---------------------------------------------------------------------------------------------
// Scene

impl Scene {
    fn new() -> Result<Scene, String> {
        Scene::open("sinew morph test", W, H)
    }

    /// Loads a material from `tests/fixtures` (resource paths `/fixtures/...`).
    fn fixture_material(&mut self, path: &str) -> Result<MaterialHandle, String> {
        let dir = manifest_dir().join("tests");
        let mut read = |p: &str| {
            std::fs::read_to_string(dir.join(p.trim_start_matches('/'))).map_err(|e| LoadError::new(p, e.to_string()))
        };
        self.r.add_material(self.gfx.gl(), path, &mut read).map_err(|e| e.to_string())
    }

    fn inline_material(&mut self, vp: &str, fp: &str) -> Result<MaterialHandle, String> {
        let mut read = |p: &str| match p {
            "/m/t.material" => Ok("{\"vertex_program\": \"/m/t.vp\", \"fragment_program\": \"/m/t.fp\"}".into()),
            "/m/t.vp" => Ok(vp.to_string()),
            "/m/t.fp" => Ok(fp.to_string()),
            _ => Err(LoadError::new(p, "not found")),
        };
        self.r.add_material(self.gfx.gl(), "/m/t.material", &mut read).map_err(|e| e.to_string())
    }
}

fn camera() -> CameraView {
    let eye = Vec3::new(0.0, 0.8, 6.0);
    CameraView {
        view: look_at_mat4(eye, Vec3::new(0.0, -0.15, 0.0), Vec3::Y),
        proj: perspective(45f32.to_radians(), W as f32 / H as f32, 0.1, 100.0),
        position: eye,
    }
}

// ---------------------------------------------------------------------------------------------
// Generated models

/// Fixes a triangle's winding so it faces along `n` (the sum of its vertex normals).
fn push_triangle(p: &mut PrimitiveSpec, [a, b, c]: [u32; 3]) {
    let v = |i: u32| Vec3::from(p.positions[i as usize]);
    let n = Vec3::from(p.normals[a as usize]) + Vec3::from(p.normals[b as usize]) + Vec3::from(p.normals[c as usize]);
    let facing = (v(b) - v(a)).cross(v(c) - v(a)).dot(n);
    p.indices.extend(if facing >= 0.0 { [a, b, c] } else { [a, c, b] });
}

/// A UV sphere with three targets: "stretch" (position + exact normal deltas), "bulge"
/// (positions only: its normal layer must be zero), "lean" (a shear, position + normal).
fn blob_primitive(rings: u32, segments: u32) -> PrimitiveSpec {
    let mut p = PrimitiveSpec { material: Some(0), ..Default::default() };
    let mut t = [TargetSpec::default(), TargetSpec::default(), TargetSpec::default()];
    for i in 0..=rings {
        let theta = PI * i as f32 / rings as f32;
        for j in 0..=segments {
            let phi = 2.0 * PI * j as f32 / segments as f32;
            let n = Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin());
            let pos = n * 0.8;
            p.positions.push(pos.to_array());
            p.normals.push(n.to_array());
            p.texcoords0.push([j as f32 / segments as f32, i as f32 / rings as f32]);
            let stretch_n = Vec3::new(n.x, n.y / 1.6, n.z).normalize();
            t[0].positions.push([0.0, 0.6 * pos.y, 0.0]);
            t[0].normals.push((stretch_n - n).to_array());
            let bump = 0.25 * theta.sin().powi(2) * (4.0 * phi).cos();
            t[1].positions.push((n * bump).to_array());
            let lean_n = Vec3::new(n.x, n.y - 0.4 * n.x, n.z).normalize();
            t[2].positions.push([0.4 * pos.y, 0.0, 0.0]);
            t[2].normals.push((lean_n - n).to_array());
        }
    }
    let row = segments + 1;
    for i in 0..rings {
        for j in 0..segments {
            let (a, b, c, d) = (i * row + j, (i + 1) * row + j, (i + 1) * row + j + 1, i * row + j + 1);
            push_triangle(&mut p, [a, b, c]);
            push_triangle(&mut p, [a, c, d]);
        }
    }
    p.targets = t.to_vec();
    p
}

/// A grid in the XY plane facing +Z, `nx` x `ny` quads over [-0.5, 0.5]², with "wave" and
/// "curl" position targets.
fn fin_primitive(nx: u32, ny: u32, material: Option<usize>) -> PrimitiveSpec {
    let mut p = PrimitiveSpec { material, ..Default::default() };
    let mut t = [TargetSpec::default(), TargetSpec::default()];
    for iy in 0..=ny {
        for ix in 0..=nx {
            let (x, y) = (ix as f32 / nx as f32 - 0.5, iy as f32 / ny as f32 - 0.5);
            p.positions.push([x, y, 0.0]);
            p.normals.push([0.0, 0.0, 1.0]);
            t[0].positions.push([0.0, 0.0, 0.3 * (2.0 * PI * x).sin()]);
            t[1].positions.push([0.0, -0.2 * x * x, 0.6 * x * x]);
        }
    }
    let row = nx + 1;
    for iy in 0..ny {
        for ix in 0..nx {
            let a = iy * row + ix;
            p.indices.extend([a, a + 1, a + row + 1, a, a + row + 1, a + row]);
        }
    }
    p.targets = t.to_vec();
    p
}

fn import_glb(source: &str, b: &GltfBuilder) -> Result<ModelData, String> {
    import_bytes(source, &b.to_glb(), None).map_err(|e| e.to_string())
}

/// Two meshes on a rotated root and a scaled, rotated child: "blob" (3 targets, initial
/// weights 0.3, 0, 0) and "fin" (2 targets, initial 0.5, 0): span layout `[b0 b1 b2 f0 f1]`.
fn blob_model() -> Result<ModelData, String> {
    let mut b = GltfBuilder::new();
    let r = Quat::from_rotation_y(0.3).to_array();
    let root = b.node("root", None, [-0.4, 0.0, 0.0], r, [1.0; 3]);
    let child_r = (Quat::from_rotation_y(-0.3) * Quat::from_rotation_x(-0.5)).to_array();
    let child = b.node("fin", Some(root), [0.4, -1.15, 0.3], child_r, [1.7, 0.7, 1.0]);
    b.material("blob", [1.0, 0.6, 0.3, 1.0], None);
    b.material("fin", [0.3, 0.8, 0.9, 1.0], None);
    b.mesh(root, "blob", &[blob_primitive(16, 24)], &[0.3, 0.0, 0.0], &["stretch", "bulge", "lean"]);
    b.mesh(child, "fin", &[fin_primitive(12, 6, Some(1))], &[0.5, 0.0], &["wave", "curl"]);
    import_glb("/test/blob.glb", &b)
}

/// One grid mesh with at least `vertices` vertices and two targets.
fn big_grid_model(vertices: usize) -> Result<ModelData, String> {
    let side = (vertices as f64).sqrt().ceil() as u32;
    let mut b = GltfBuilder::new();
    let n = b.node("grid", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let mut p = fin_primitive(side - 1, side - 1, None);
    // Normal deltas too, different per vertex, so a wrong texel shows in the normals as well.
    p.targets[1].normals = (0..p.positions.len()).map(|i| [0.0, ((i % 97) as f32) * 0.01, 0.0]).collect();
    b.mesh(n, "grid", &[p], &[0.0, 0.0], &[]);
    import_glb("/test/grid.glb", &b)
}

// ---------------------------------------------------------------------------------------------
// CPU side: what a weight span means (DrawItem::morph_weights), and CPU-morphed copies

/// Per mesh, the weights a span gives it: empty span = initial weights; missing = 0; NaN = 0.
fn mesh_weights(model: &ModelData, span: &[f32]) -> Vec<Vec<f32>> {
    let mut at = 0;
    model
        .meshes
        .iter()
        .map(|m| {
            let count = m.primitives.iter().map(|p| p.targets.len()).max().unwrap_or(0);
            let w = if span.is_empty() {
                let mut w = m.weights.clone();
                w.resize(count, 0.0);
                w
            } else {
                (at..at + count).map(|i| span.get(i).copied().filter(|v| v.is_finite()).unwrap_or(0.0)).collect()
            };
            at += count;
            w
        })
        .collect()
}

/// The model with every mesh morphed on the CPU and its targets removed.
fn cpu_morphed(model: &ModelData, span: &[f32]) -> Result<ModelData, String> {
    let weights = mesh_weights(model, span);
    let mut out = model.clone();
    for (m, w) in out.meshes.iter_mut().zip(&weights) {
        for p in &mut m.primitives {
            let mut pos = vec![[0.0; 3]; p.positions.len()];
            let mut nrm = vec![[0.0; 3]; p.normals.len()];
            morph_positions(&p.positions, &p.targets, w, &mut pos).map_err(|e| e.to_string())?;
            morph_normals(&p.normals, &p.targets, w, &mut nrm).map_err(|e| e.to_string())?;
            (p.positions, p.normals) = (pos, nrm);
            p.targets.clear();
        }
        m.weights.clear();
    }
    Ok(out)
}

/// CPU reference of one primitive in model space: (positions, normals) after the mesh's node
/// transform (normals by the inverse-transpose, not renormalised, as the shader does).
fn cpu_reference(p: &PrimitiveData, weights: &[f32], world: Mat4) -> Result<Morphed, String> {
    let mut pos = vec![[0.0; 3]; p.positions.len()];
    let mut nrm = vec![[0.0; 3]; p.normals.len()];
    morph_positions(&p.positions, &p.targets, weights, &mut pos).map_err(|e| e.to_string())?;
    morph_normals(&p.normals, &p.targets, weights, &mut nrm).map_err(|e| e.to_string())?;
    let nm = Mat3::from_mat4(world.inverse().transpose());
    let pos = pos.iter().map(|&v| world.transform_point3(Vec3::from(v)).to_array()).collect();
    let nrm = nrm.iter().map(|&v| (nm * Vec3::from(v)).to_array()).collect();
    Ok((pos, nrm))
}

// ---------------------------------------------------------------------------------------------
// GPU readback: the built-in vertex program under transform feedback

/// Runs `shaders/model.vp` over `p`'s vertices (one point each, so `gl_VertexID` = vertex index)
/// with the uploaded morph texture and `weights`, capturing the morphed `var_position` and
/// `var_normal` (model space times `world`).
fn gpu_morph(
    gl: &glow::Context,
    p: &PrimitiveData,
    tex: Option<&MorphTexture>,
    weights: &[f32],
    world: Mat4,
) -> Result<Morphed, String> {
    let n = p.positions.len();
    let source = preprocess(BUILTIN_VP);
    let mut padded = weights.to_vec();
    padded.resize(weights.len().div_ceil(4).max(1) * 4, 0.0);
    let count = tex.map_or(0, |t| t.targets as i32);
    let f32s = |v: &[[f32; 3]]| v.iter().flatten().flat_map(|f| f.to_ne_bytes()).collect::<Vec<u8>>();
    // SAFETY: objects are created and deleted here on the current context; buffer sizes match
    // the draws (n points, 6 captured floats each).
    unsafe {
        let program = capture_program(gl, &source)?;
        let loc = |name: &str| gl.get_uniform_location(program, name);
        let normal = world.inverse().transpose();
        set_instance_attribute(gl, program, "mtx_worldview", &columns(&world));
        set_instance_attribute(gl, program, "mtx_normal", &columns(&normal));
        set_instance_attribute(gl, program, "animation_data", &[[0.0; 4]]);
        gl.uniform_matrix_4_f32_slice(loc("mtx_proj").as_ref(), false, &Mat4::IDENTITY.to_cols_array());
        gl.uniform_4_f32_slice(loc("morph_targets_weights").as_ref(), &padded);
        gl.uniform_1_i32(loc("morph_target_count").as_ref(), count);
        gl.uniform_1_i32(loc("morph_targets").as_ref(), 0);
        // A sampler2D on the same unit as the sampler2DArray would make the draw invalid; the
        // primitive is not skinned (animation_data is 0), so the unit's texture is never read.
        gl.uniform_1_i32(loc("pose_matrix_cache").as_ref(), 1);
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, tex.map(|t| t.texture));

        let vao = gl.create_vertex_array()?;
        gl.bind_vertex_array(Some(vao));
        let mut buffers = Vec::new();
        for (attr, data) in [(0, f32s(&p.positions)), (1, f32s(&p.normals))] {
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(attr);
            gl.vertex_attrib_pointer_f32(attr, 3, glow::FLOAT, false, 0, 0);
            buffers.push(b);
        }
        let feedback = gl.create_buffer()?;
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(feedback));
        gl.buffer_data_size(glow::TRANSFORM_FEEDBACK_BUFFER, (n * 24) as i32, glow::STREAM_READ);
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(feedback));
        gl.enable(glow::RASTERIZER_DISCARD);
        gl.begin_transform_feedback(glow::POINTS);
        gl.draw_arrays(glow::POINTS, 0, n as i32);
        gl.end_transform_feedback();
        gl.disable(glow::RASTERIZER_DISCARD);
        let mut bytes = vec![0u8; n * 24];
        gl.get_buffer_sub_data(glow::TRANSFORM_FEEDBACK_BUFFER, 0, &mut bytes);
        let err = gl.get_error();

        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, None);
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, None);
        gl.bind_buffer(glow::ARRAY_BUFFER, None);
        gl.bind_vertex_array(None);
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, None);
        gl.use_program(None);
        gl.delete_buffer(feedback);
        buffers.into_iter().for_each(|b| gl.delete_buffer(b));
        gl.delete_vertex_array(vao);
        gl.delete_program(program);
        ensure(err == glow::NO_ERROR, || format!("GL error 0x{err:x}"))?;

        let floats: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
        let (mut pos, mut nrm) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for v in floats.chunks_exact(6) {
            pos.push([v[0], v[1], v[2]]);
            nrm.push([v[3], v[4], v[5]]);
        }
        Ok((pos, nrm))
    }
}

/// GPU vs CPU reference for every primitive of `model` with the weights `span` gives; returns
/// the worst relative position error over the model.
fn compare_model(s: &mut Scene, model: &ModelData, span: &[f32], label: &str) -> Result<f32, String> {
    let h = s.add(model)?;
    let worlds = node_world_matrices(model);
    let weights = mesh_weights(model, span);
    let mut worst = 0.0f32;
    for (mi, mesh) in model.meshes.iter().enumerate() {
        let world = if mesh.skin.is_some() { Mat4::IDENTITY } else { worlds[mesh.node] };
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let gpu_model = s.r.model(h).ok_or("model handle")?;
            let tex = gpu_model.morph_texture(mi, pi).copied();
            ensure(tex.is_some() != p.targets.is_empty(), || format!("{label}: texture presence for mesh {mi}"))?;
            let (gpos, gnrm) = gpu_morph(s.gfx.gl(), p, tex.as_ref(), &weights[mi], world)?;
            let (cpos, cnrm) = cpu_reference(p, &weights[mi], world)?;
            let size = size_of(&cpos);
            let (err, at) = max_error(&gpos, &cpos)?;
            ensure(err <= 1e-5 * size, || {
                format!(
                    "{label} mesh {mi} prim {pi}: vertex {at} GPU {:?} CPU {:?} (error {err:e}, size {size})",
                    gpos[at], cpos[at]
                )
            })?;
            let (nerr, nat) = max_error(&gnrm, &cnrm)?;
            let nscale = cnrm.iter().map(|v| Vec3::from(*v).length()).fold(1e-6, f32::max);
            ensure(nerr <= 1e-5 * nscale, || {
                format!("{label} mesh {mi} prim {pi}: normal {nat} GPU {:?} CPU {:?}", gnrm[nat], cnrm[nat])
            })?;
            worst = worst.max(err / size);
        }
    }
    s.r.remove_model(s.gfx.gl(), h);
    Ok(worst)
}

fn readback_generated() -> Result<(), String> {
    let mut s = Scene::new()?;
    let model = blob_model()?;
    ensure(model.meshes.len() == 2, || format!("{} meshes", model.meshes.len()))?;
    let spans: [&[f32]; 5] = [&[], &[1.0, 0.0, 0.0, 0.0, 0.0], &[0.0, 1.0], &[0.7, -0.4, 1.3, 1.0, 0.25], &[0.25; 5]];
    let mut worst = 0.0f32;
    for span in spans {
        worst = worst.max(compare_model(&mut s, &model, span, &format!("span {span:?}"))?);
    }
    println!("       worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

fn readback_rows() -> Result<(), String> {
    let mut s = Scene::new()?;
    let limits = MorphLimits::query(s.gfx.gl());
    let model = big_grid_model(limits.max_size as usize + 500)?;
    let h = s.add(&model)?;
    let tex = s.r.model(h).and_then(|m| m.morph_texture(0, 0)).copied().ok_or("no morph texture")?;
    let n = model.meshes[0].primitives[0].positions.len();
    println!("       {n} vertices in a {}x{} grid (GL_MAX_TEXTURE_SIZE {})", tex.width, tex.height, limits.max_size);
    ensure(tex.height >= 2 && tex.width == limits.max_size, || format!("{tex:?}"))?;
    let worst = compare_model(&mut s, &model, &[0.6, 0.9], "grid")?;
    println!("       worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

/// Reference `meshes[]` entries with their frame's weights and world-space positions.
fn reference_meshes(json: &Value) -> Vec<RefPose> {
    let mut out = Vec::new();
    for frame in json["frames"].as_array().into_iter().flatten() {
        let t = frame["t"].as_f64().unwrap_or(-1.0);
        for (k, m) in frame["meshes"].as_array().into_iter().flatten().enumerate() {
            let w = m["weights"].as_array().into_iter().flatten().filter_map(Value::as_f64).map(|v| v as f32);
            let p: Vec<f32> =
                m["positions"].as_array().into_iter().flatten().filter_map(Value::as_f64).map(|v| v as f32).collect();
            out.push((t, k, w.collect(), p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()));
        }
    }
    out
}

fn readback_samples() -> Result<(), String> {
    let res = Resources::open_dir(&sample_assets()).map_err(|e| e.to_string())?;
    let mut s = Scene::new()?;
    for (file, reference) in [
        ("AnimatedMorphCube.glb", Some("animatedmorphcube.0.json")),
        ("SimpleMorph.glb", Some("simplemorph.0.json")),
        ("MorphPrimitivesTest.glb", None),
    ] {
        let model = import(&res, &format!("/{file}")).map_err(|e| e.to_string())?;
        // Primitives with targets in model order: what the reference's meshes[] lists.
        let morphed: Vec<(usize, usize)> = model
            .meshes
            .iter()
            .enumerate()
            .flat_map(|(mi, m)| m.primitives.iter().enumerate().map(move |(pi, p)| (mi, pi, !p.targets.is_empty())))
            .filter_map(|(mi, pi, t)| t.then_some((mi, pi)))
            .collect();
        // GPU vs CPU at the initial weights and at all-ones.
        let all: usize = model.meshes.iter().map(|m| m.weights.len()).sum();
        let w_initial = compare_model(&mut s, &model, &[], file)?;
        let w_ones = compare_model(&mut s, &model, &vec![1.0; all], file)?;
        let Some(reference) = reference else {
            println!(
                "       {file}: GPU = CPU (initial weights {w_initial:.1e}, ones {w_ones:.1e}); no reference poses"
            );
            continue;
        };
        let text = std::fs::read_to_string(reference_poses().join(reference)).map_err(|e| e.to_string())?;
        let json: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let h = s.add(&model)?;
        let worlds = node_world_matrices(&model);
        let (mut worst, mut frames) = (0.0f32, 0);
        for (t, k, weights, expected) in reference_meshes(&json) {
            let &(mi, pi) = morphed.get(k).ok_or(format!("{file}: reference mesh {k} has no morphed primitive"))?;
            let mesh = &model.meshes[mi];
            let world = if mesh.skin.is_some() { Mat4::IDENTITY } else { worlds[mesh.node] };
            let p = &mesh.primitives[pi];
            let tex = s.r.model(h).and_then(|m| m.morph_texture(mi, pi)).copied();
            let (gpu, _) = gpu_morph(s.gfx.gl(), p, tex.as_ref(), &weights, world)?;
            let (cpu, _) = cpu_reference(p, &weights, world)?;
            let size = size_of(&expected);
            let (e_cpu, _) = max_error(&gpu, &cpu)?;
            ensure(e_cpu <= 1e-5 * size, || format!("{file} t={t}: GPU vs CPU error {e_cpu} (size {size})"))?;
            let (e_ref, at) = max_error(&gpu, &expected)?;
            ensure(e_ref <= 1e-4 * size, || {
                format!("{file} t={t}: vertex {at} GPU {:?} reference {:?} (size {size})", gpu[at], expected[at])
            })?;
            worst = worst.max(e_ref / size);
            frames += 1;
        }
        s.r.remove_model(s.gfx.gl(), h);
        ensure(frames > 0, || format!("{reference}: no frames"))?;
        println!("       {file}: {frames} reference poses, worst GPU-reference error {worst:.1e} x size");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Renderer path: per-instance spans vs the same meshes morphed on the CPU

const SPANS: [&[f32]; 4] = [
    &[],                                  // initial weights: blob stretched 0.3, fin wave 0.5
    &[1.0, 0.0, 0.7, 0.0, 1.0],           // full
    &[0.0, 1.0],                          // short: the rest is 0
    &[f32::NAN, 0.8, 0.0, 1.0, 0.0, 9.0], // NaN counts as 0, the extra value is ignored
];

fn placement(i: usize) -> Mat4 {
    Mat4::from_translation(Vec3::new(-2.1 + 1.4 * i as f32, 0.0, 0.0)) * Mat4::from_scale(Vec3::splat(0.6))
}

/// Renders the spans through the renderer, then CPU-morphed copies, and compares the images.
fn renderer_vs_cpu(s: &mut Scene, material: MaterialHandle, label: &str) -> Result<Image, String> {
    let model = blob_model()?;
    let h = s.add(&model)?;
    let mut list = DrawList::new(camera());
    list.lights.push(LightItem::default_key_light());
    for (i, span) in SPANS.iter().enumerate() {
        list.push(h, material, placement(i));
        list.set_morph_weights(span);
    }
    let (gpu, stats) = s.render(&list)?;
    ensure(stats.draws == 8 && stats.morph_skipped == 0, || format!("{label}: {stats:?}"))?;
    list.clear();
    list.lights.push(LightItem::default_key_light());
    for (i, span) in SPANS.iter().enumerate() {
        let cpu = s.add(&cpu_morphed(&model, span)?)?;
        list.push(cpu, material, placement(i));
    }
    let (cpu, _) = s.render(&list)?;
    let cmp = compare(&gpu, &cpu, 3)?;
    let allowed = (W * H) as usize / 400;
    if cmp.differing_pixels > allowed {
        let dir = manifest_dir().join("target");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        gpu.save_png(&dir.join(format!("morph_{label}.gpu.png")))?;
        cpu.save_png(&dir.join(format!("morph_{label}.cpu.png")))?;
        return Err(format!("{label}: {} pixels differ from the CPU-morphed render", cmp.differing_pixels));
    }
    Ok(gpu)
}

fn renderer_builtin() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.builtin;
    renderer_vs_cpu(&mut s, m, "builtin").map(|_| ())
}

fn renderer_contract() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.fixture_material("/fixtures/morph_contract.material")?;
    let program = s.r.material(m).ok_or("material")?.program();
    for name in ["morph_targets", "morph_targets_weights", "mtx_worldview", "mtx_normal", "tint"] {
        ensure(program.declares(name), || format!("contract program does not report '{name}'"))?;
    }
    renderer_vs_cpu(&mut s, m, "contract").map(|_| ())
}

/// The other name the spec allows, as a plain (not block) array, read with texelFetch.
const ALIAS_VP: &str = "#version 140
in vec4 position;
in vec3 normal;
uniform mat4 mtx_worldview;
uniform mat4 mtx_proj;
uniform mat4 mtx_normal;
uniform vec4 morph_weights[2];
uniform sampler2DArray morph_targets;
out vec3 var_normal;
void main()
{
    ivec3 size = textureSize(morph_targets, 0);
    ivec2 texel = ivec2(gl_VertexIndex % size.x, gl_VertexIndex / size.x);
    vec3 p = position.xyz;
    vec3 n = normal;
    for (int t = 0; t < size.z / 3; ++t)
    {
        p += morph_weights[t / 4][t % 4] * texelFetch(morph_targets, ivec3(texel, 3 * t), 0).xyz;
        n += morph_weights[t / 4][t % 4] * texelFetch(morph_targets, ivec3(texel, 3 * t + 1), 0).xyz;
    }
    var_normal = normalize(mat3(mtx_normal) * normalize(n));
    gl_Position = mtx_proj * mtx_worldview * vec4(p, 1.0);
}
";

const ALIAS_FP: &str = "#version 140
in vec3 var_normal;
out vec4 c;
void main() { c = vec4(0.5 + 0.5 * normalize(var_normal), 1.0); }
";

fn renderer_alias() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.inline_material(ALIAS_VP, ALIAS_FP)?;
    renderer_vs_cpu(&mut s, m, "alias").map(|_| ())
}

fn golden_builtin() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.builtin;
    let img = renderer_vs_cpu(&mut s, m, "builtin")?;
    check_golden("builtin", &img)
}

fn golden_contract() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.fixture_material("/fixtures/morph_contract.material")?;
    let img = renderer_vs_cpu(&mut s, m, "contract")?;
    check_golden("contract", &img)
}

// ---------------------------------------------------------------------------------------------
// Errors

const SMALL_VP: &str = "#version 140
in vec4 position;
uniform mat4 mtx_worldviewproj;
uniform vec4 morph_targets_weights[1];
uniform sampler2DArray morph_targets;
void main()
{
    vec3 p = position.xyz;
    int n = textureSize(morph_targets, 0).z / 3;
    for (int t = 0; t < n; ++t)
        p += morph_targets_weights[t / 4][t % 4] * texelFetch(morph_targets, ivec3(gl_VertexIndex, 0, 3 * t), 0).xyz;
    gl_Position = mtx_worldviewproj * vec4(p, 1.0);
}
";

const FLAT_FP: &str = "#version 140\nout vec4 c;\nvoid main() { c = vec4(1.0, 0.5, 0.0, 1.0); }\n";

fn too_many_targets() -> Result<(), String> {
    let mut s = Scene::new()?;
    let small = s.inline_material(SMALL_VP, FLAT_FP)?;
    let mut b = GltfBuilder::new();
    let n = b.node("n", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let mut six = fin_primitive(2, 2, None);
    six.targets =
        (0..6).map(|i| TargetSpec { positions: vec![[0.0, 0.01 * i as f32, 0.0]; 9], normals: vec![] }).collect();
    let mut four = fin_primitive(2, 2, None);
    four.targets.truncate(1);
    let plain = fin_primitive(2, 2, None);
    b.mesh(n, "six", &[six], &[], &[]);
    let n2 = b.node("n2", None, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.mesh(n2, "one", &[four], &[], &[]);
    let n3 = b.node("n3", None, [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    b.mesh(n3, "plain", &[PrimitiveSpec { targets: vec![], ..plain }], &[], &[]);
    let model = import_glb("/test/six.glb", &b)?;
    let h = s.add(&model)?;
    let mut list = DrawList::new(camera());
    list.push(h, small, Mat4::IDENTITY);
    list.push(h, small, Mat4::from_translation(Vec3::Y));
    list.push(h, s.builtin, Mat4::from_translation(Vec3::NEG_Y));
    for frame in 0..2 {
        let (_, stats) = s.render(&list)?;
        ensure(stats.morph_skipped == 2 && stats.draws == 7, || format!("frame {frame}: {stats:?}"))?;
    }
    let errors = s.r.errors();
    ensure(errors.len() == 1, || format!("expected one report, got {errors:?}"))?;
    let e = &errors[0];
    println!("       {e}");
    ensure(e.contains("/test/six.glb") && e.contains("'six'") && e.contains("/m/t.material") && e.contains('6'), || {
        format!("report does not name model, mesh, material and count: {e}")
    })
}

fn upload_errors() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mut model = blob_model()?;
    model.meshes[1].primitives[0].targets[1].positions.pop();
    let e = s.add(&model).err().ok_or("short target accepted")?;
    println!("       {e}");
    ensure(e.contains("/test/blob.glb") && e.contains("'fin'") && e.contains("morph target 1"), || e.clone())
}

fn check_golden(name: &str, actual: &Image) -> Result<(), String> {
    checks::check_golden(&format!("morph_{name}"), actual)
}
