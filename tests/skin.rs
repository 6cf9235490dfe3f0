//! GPU skinning (GL context needed, so `harness = false` with its own `main`).
//!
//! - Readback: the built-in vertex program (`shaders/model.vp`, unmodified) runs under transform
//!   feedback with bones uploaded through the renderer's `PoseCache`, and its skinned positions and
//!   normals are compared with the CPU reference `sinew::anim::skinning` (and, for the
//!   Khronos samples, with the independent reference poses in `tests/data/reference`). Generated
//!   rigs: a 3-joint column, a 300-joint chain whose bones straddle texture rows, and a primitive
//!   that is morphed, then skinned.
//! - Renderer: per-instance palettes (full, empty = rest pose, short, with a NaN bone) on a model
//!   with two skins, drawn with the built-in material, a Defold-style contract shader (texture()
//!   at texel centres, `animation_data`) and a `mat4` uniform-array shader, must look like the same
//!   meshes skinned on the CPU; a 300-joint rig the same; golden image `tests/golden/skin_builtin.png`
//!   (`SINEW_UPDATE_GOLDEN=1` rewrites it and fails).
//!
//! Test models are generated with `GltfBuilder` and imported, so the importer is in the loop.

use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat3, Mat4, Quat, Vec3, Vec3A};
use glow::HasContext;
use serde_json::Value;
use sinew::anim::morph::morph_normals;
use sinew::anim::skinning::{morph_positions, rows_matrix, skin_positions};
use sinew::anim::{Clip, SamplingCache, Skeleton};
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

/// Skinned (positions, normals) of one primitive.
type Skinned = (Vec<[f32; 3]>, Vec<[f32; 3]>);

const W: u32 = 160;
const H: u32 = 120;
const BUILTIN_VP: &str = include_str!("../shaders/model.vp");

fn main() {
    let checks: &[(&str, Check)] = &[
        ("readback: 3-joint column, GPU = CPU reference", readback_column),
        ("readback: 300-joint chain across texture rows", readback_chain),
        ("readback: morph then skin on one primitive", readback_morph_skin),
        ("readback: sample models vs reference poses", readback_samples),
        ("renderer: built-in material, two skins, per-instance palettes = CPU-skinned", renderer_builtin),
        ("renderer: Defold contract shader (texture(), animation_data) = CPU-skinned", renderer_contract),
        ("renderer: mat4 uniform array `bone_matrices` = CPU-skinned", renderer_array),
        ("renderer: bones and animation_data in a std140 block = CPU-skinned", renderer_block),
        ("renderer: 300-joint rig, 6 instances = CPU-skinned", renderer_chain),
        ("golden: built-in material", golden_builtin),
        ("readback: rigid meshes under joints and animated nodes = inspect --vertices", readback_robot_arm),
        ("golden: robot arm at two times, rigid parts moved where they should", golden_robot_arm),
        ("bone array too small for the skin: reported once, not drawn", array_too_small),
        ("readback: .bon rig posed as scripts pose it, limits clamped = CPU reference", readback_bon_rig),
        (
            "renderer: article-style shader (vertex, boneNinfo, bonesMatrices) = built-in material's pose",
            renderer_article,
        ),
    ];
    checks::run(checks);
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

// ---------------------------------------------------------------------------------------------
// Scene

impl Scene {
    fn new() -> Result<Scene, String> {
        Scene::open("sinew skin test", W, H)
    }

    fn inline_material(&mut self, vp: &str, fp: &str) -> Result<MaterialHandle, String> {
        let mut read = |p: &str| match p {
            "/m/t.material" => Ok("{\"vertex_program\": \"/m/t.vp\", \"fragment_program\": \"/m/t.fp\"}".into()),
            "/m/t.vp" => Ok(vp.to_string()),
            "/m/t.fp" => Ok(fp.to_string()),
            _ => Err(LoadError::new(p, "not found")),
        };
        self.r.add_material(self.gfx.gl(), "/m/t.material", &mut read).map_err(err)
    }
}

fn camera(eye: Vec3, target: Vec3) -> CameraView {
    CameraView {
        view: look_at_mat4(eye, target, Vec3::Y),
        proj: perspective(45f32.to_radians(), W as f32 / H as f32, 0.1, 100.0),
        position: eye,
    }
}

// ---------------------------------------------------------------------------------------------
// Generated rigs

/// A tube along +Y over `joints` chained joints `seg` apart, `rings` rings per segment. Vertex
/// influences: the two nearest joints (most weight) and their outer neighbours, so all four
/// influences are used. Returns the primitive and the joints' rest heights.
fn tube_primitive(joints: usize, seg: f32, rings: usize, radius: f32, material: Option<usize>) -> PrimitiveSpec {
    let segments = 10;
    let mut p = PrimitiveSpec { material, ..Default::default() };
    let total = (joints - 1) * rings;
    let clamp = |j: isize| j.clamp(0, joints as isize - 1) as u16;
    for r in 0..=total {
        let y = r as f32 * seg / rings as f32;
        let j = (r / rings).min(joints - 1) as isize;
        let f = (r % rings) as f32 / rings as f32;
        for s in 0..segments {
            let a = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(a.cos(), 0.0, a.sin());
            p.positions.push([radius * n.x, y, radius * n.z]);
            p.normals.push(n.to_array());
            p.joints.push([clamp(j), clamp(j + 1), clamp(j - 1), clamp(j + 2)]);
            let w = [0.8 * (1.0 - f), 0.8 * f + 0.05, 0.1, 0.05];
            let sum: f32 = w.iter().sum();
            p.weights.push(w.map(|x| x / sum));
        }
    }
    for r in 0..total as u32 {
        for s in 0..segments {
            let (a, b) = (r * segments + s, r * segments + (s + 1) % segments);
            let (c, d) = (a + segments, b + segments);
            // Counter-clockwise seen from outside.
            p.indices.extend([a, c, b, b, c, d]);
        }
    }
    p
}

/// Adds a chain of `joints` joints `seg` apart under `parent` (first at `origin`) and returns
/// them with their inverse bind matrices (the inverse of their rest world matrices, given the
/// parent's world matrix).
fn add_chain(
    b: &mut GltfBuilder,
    name: &str,
    parent: (Option<usize>, Mat4),
    origin: Vec3,
    joints: usize,
    seg: f32,
) -> (Vec<usize>, Vec<[f32; 16]>) {
    let (mut nodes, mut ib) = (Vec::new(), Vec::new());
    let mut world = parent.1;
    let mut up = parent.0;
    for j in 0..joints {
        let t = if j == 0 { origin } else { Vec3::new(0.0, seg, 0.0) };
        let n = b.node(&format!("{name}{j}"), up, t.to_array(), [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        world *= Mat4::from_translation(t);
        ib.push(world.inverse().to_cols_array());
        nodes.push(n);
        up = Some(n);
    }
    (nodes, ib)
}

fn import_glb(source: &str, b: &GltfBuilder) -> Result<ModelData, String> {
    import_bytes(source, &b.to_glb(), None).map_err(err)
}

/// One skinned tube of `joints` joints. The rig hangs under a moved, rotated root, and the mesh
/// sits on a node with its own transform, which skinning must ignore (glTF).
fn tube_model(joints: usize, seg: f32, morph: bool) -> Result<ModelData, String> {
    let mut b = GltfBuilder::new();
    let root_t = Mat4::from_rotation_translation(Quat::from_rotation_y(0.4), Vec3::new(0.2, -0.1, 0.0));
    let root = trs_node(&mut b, "root", None, root_t);
    let (nodes, ib) = add_chain(&mut b, "j", (Some(root), root_t), Vec3::ZERO, joints, seg);
    let body = b.node("body", None, [3.0, 1.0, 0.0], Quat::from_rotation_z(0.5).to_array(), [2.0; 3]);
    b.material("tube", [0.9, 0.6, 0.3, 1.0], None);
    let mut p = tube_primitive(joints, seg, 4, 0.25, Some(0));
    // Bind-space positions: where the rest-pose joints are.
    p.positions.iter_mut().for_each(|v| *v = root_t.transform_point3(Vec3::from(*v)).to_array());
    p.normals.iter_mut().for_each(|v| *v = root_t.transform_vector3(Vec3::from(*v)).to_array());
    if morph {
        // A bulge (position and normal deltas) that skinning must then carry along.
        let positions = p.positions.iter().map(|v| [0.3 * v[0], 0.0, 0.3 * v[2]]).collect();
        let normals = p.positions.iter().map(|v| [0.0, 0.1 * (v[1] * 3.0).sin(), 0.0]).collect();
        p.targets = vec![TargetSpec { positions, normals }];
    }
    let weights: &[f32] = if morph { &[0.7] } else { &[] };
    b.mesh(body, "tube", &[p], weights, &[]);
    b.skin(body, &nodes, Some(&ib));
    import_glb(&format!("/test/tube{joints}.glb"), &b)
}

/// A node from a matrix (GltfBuilder takes translation, rotation, scale).
fn trs_node(b: &mut GltfBuilder, name: &str, parent: Option<usize>, m: Mat4) -> usize {
    let (s, r, t) = m.to_scale_rotation_translation();
    b.node(name, parent, t.to_array(), r.to_array(), s.to_array())
}

/// Two tubes with a skin each (3 and 5 joints): the palette span holds skin 0 then skin 1.
fn two_skins_model() -> Result<ModelData, String> {
    let mut b = GltfBuilder::new();
    let root_m = Mat4::from_translation(Vec3::new(0.0, -1.2, 0.0));
    let root = trs_node(&mut b, "root", None, root_m);
    let (a, a_ib) = add_chain(&mut b, "a", (Some(root), root_m), Vec3::new(-0.7, 0.0, 0.0), 3, 1.0);
    let (c, c_ib) = add_chain(&mut b, "c", (Some(root), root_m), Vec3::new(0.7, 0.0, 0.0), 5, 0.5);
    b.material("a", [0.9, 0.6, 0.3, 1.0], None);
    b.material("c", [0.3, 0.7, 0.9, 1.0], None);
    let body_a = b.node("body_a", None, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let body_c = b.node("body_c", None, [1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    // Mesh positions in bind space: the chains' rest world placement.
    let mut pa = tube_primitive(3, 1.0, 4, 0.3, Some(0));
    let mut pc = tube_primitive(5, 0.5, 3, 0.22, Some(1));
    for (p, x) in [(&mut pa, -0.7), (&mut pc, 0.7)] {
        p.positions.iter_mut().for_each(|v| *v = [v[0] + x, v[1] - 1.2, v[2]]);
    }
    b.mesh(body_a, "tube_a", &[pa], &[], &[]);
    b.mesh(body_c, "tube_c", &[pc], &[], &[]);
    b.skin(body_a, &a, Some(&a_ib));
    b.skin(body_c, &c, Some(&c_ib));
    import_glb("/test/two_skins.glb", &b)
}

/// A pose: every joint bent about Z (and X), some scaled non-uniformly (so normals need the
/// inverse-transpose), amplitude `amp`. Returns model-space matrices of every node.
fn pose(sk: &Skeleton, amp: f32, phase: f32) -> Result<Vec<Mat4>, String> {
    let mut locals = sk.rest().to_vec();
    for (i, l) in locals.iter_mut().enumerate() {
        if sk.name(i).starts_with("root") || sk.name(i).starts_with("body") {
            continue;
        }
        let a = amp * (0.7 * i as f32 + phase).sin();
        l.rotation = l.rotation * Quat::from_rotation_z(a) * Quat::from_rotation_x(0.4 * a);
        if i % 3 == 1 {
            l.scale = Vec3A::new(1.0 + 0.3 * amp, 1.0, 1.0 - 0.2 * amp);
        }
    }
    let mut world = vec![Mat4::IDENTITY; sk.node_count()];
    sk.local_to_model(&locals, &mut world).map_err(err)?;
    Ok(world)
}

/// The palette span of every skin in skin order (DrawItem::palette layout).
fn full_palette(sk: &Skeleton, world: &[Mat4]) -> Result<Vec<Mat4>, String> {
    let mut out = Vec::new();
    for s in 0..sk.skin_count() {
        let mut p = vec![Mat4::IDENTITY; sk.skin_joints(s).len()];
        sk.palette(s, world, &mut p).map_err(err)?;
        out.extend(p);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// CPU reference

/// Normals through the blended matrix's inverse-transpose, normalised (what the shader does).
fn skin_normals(palette: &[Mat4], normals: &[[f32; 3]], joints: &[[u16; 4]], weights: &[[f32; 4]]) -> Vec<[f32; 3]> {
    let mut out = Vec::with_capacity(normals.len());
    for ((n, j), w) in normals.iter().zip(joints).zip(weights) {
        let mut s = Mat3::ZERO;
        for (&j, &w) in j.iter().zip(w) {
            if w != 0.0 {
                s += Mat3::from_mat4(palette[usize::from(j)]) * w;
            }
        }
        let n = (s.inverse().transpose() * Vec3::from(*n)).normalize_or_zero();
        out.push(n.to_array());
    }
    out
}

/// Morph (initial or given weights), then skin: positions and normals in model space.
fn cpu_skin(p: &PrimitiveData, weights: &[f32], palette: &[Mat4]) -> Result<Skinned, String> {
    let n = p.positions.len();
    let (mut morphed, mut mn) = (vec![[0.0; 3]; n], vec![[0.0; 3]; p.normals.len()]);
    morph_positions(&p.positions, &p.targets, weights, &mut morphed).map_err(err)?;
    morph_normals(&p.normals, &p.targets, weights, &mut mn).map_err(err)?;
    let mut pos = vec![[0.0; 3]; n];
    skin_positions(palette, &morphed, &p.joints, &p.weights, &mut pos).map_err(err)?;
    let nrm = if mn.is_empty() { Vec::new() } else { skin_normals(palette, &mn, &p.joints, &p.weights) };
    Ok((pos, nrm))
}

// ---------------------------------------------------------------------------------------------
// GPU readback: the built-in vertex program under transform feedback

/// Runs `shaders/model.vp` over `p`'s vertices (one point each) with `palette` uploaded through a
/// `PoseCache` after `pad` other bones (so the skin can start mid-row), the morph texture and
/// `weights`, capturing `var_position` and `var_normal` (model space: world-view = identity).
fn gpu_skin(
    gl: &glow::Context,
    p: &PrimitiveData,
    morph: Option<&MorphTexture>,
    weights: &[f32],
    palette: &[Mat4],
    pad: usize,
    worldview: Mat4,
) -> Result<Skinned, String> {
    let n = p.positions.len();
    let mut cache = PoseCache::new(gl);
    cache.push_rows((0..pad).map(|_| bone_rows(&Mat4::from_translation(Vec3::splat(1e3))))).ok_or("pad")?;
    let base = cache.push_rows(palette.iter().map(bone_rows)).ok_or("palette does not fit")?;
    cache.upload(gl)?;
    let (cw, ch) = cache.size();
    let animation = [(3 * base) as f32, palette.len() as f32, cw as f32, ch as f32];
    let source = preprocess(BUILTIN_VP);
    let mut padded = weights.to_vec();
    padded.resize(weights.len().div_ceil(4).max(1) * 4, 0.0);
    let count = morph.map_or(0, |t| t.targets as i32);
    let f32s = |v: &[[f32; 3]]| v.iter().flatten().flat_map(|f| f.to_ne_bytes()).collect::<Vec<u8>>();
    let joints: Vec<u8> = p.joints.iter().flatten().flat_map(|j| j.to_ne_bytes()).collect();
    let bone_weights: Vec<u8> = p.weights.iter().flatten().flat_map(|f| f.to_ne_bytes()).collect();
    // SAFETY: objects are created and deleted here on the current context; buffer sizes match
    // the draws (n points, 6 captured floats each).
    let result = unsafe {
        let program = capture_program(gl, &source)?;
        let loc = |name: &str| gl.get_uniform_location(program, name);
        let id = Mat4::IDENTITY.to_cols_array();
        gl.uniform_matrix_4_f32_slice(loc("mtx_proj").as_ref(), false, &id);
        set_instance_attribute(gl, program, "mtx_normal", &columns(&Mat4::IDENTITY));
        set_instance_attribute(gl, program, "mtx_worldview", &columns(&worldview));
        gl.uniform_4_f32_slice(loc("morph_targets_weights").as_ref(), &padded);
        gl.uniform_1_i32(loc("morph_target_count").as_ref(), count);
        gl.uniform_1_i32(loc("morph_targets").as_ref(), 0);
        gl.uniform_1_i32(loc("pose_matrix_cache").as_ref(), 1);
        set_instance_attribute(gl, program, "animation_data", &[animation]);
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, morph.map(|t| t.texture));
        gl.active_texture(glow::TEXTURE1);
        gl.bind_texture(glow::TEXTURE_2D, cache.texture());
        gl.active_texture(glow::TEXTURE0);

        let vao = gl.create_vertex_array()?;
        gl.bind_vertex_array(Some(vao));
        let mut buffers = Vec::new();
        let streams = [
            (0, 3, glow::FLOAT, f32s(&p.positions)),
            (1, 3, glow::FLOAT, f32s(&p.normals)),
            (6, 4, glow::UNSIGNED_SHORT, joints),
            (7, 4, glow::FLOAT, bone_weights),
        ];
        for (attr, comps, ty, data) in streams {
            if data.is_empty() {
                continue;
            }
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &data, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(attr);
            gl.vertex_attrib_pointer_f32(attr, comps, ty, false, 0, 0);
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
        let e = gl.get_error();

        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, None);
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, None);
        gl.bind_buffer(glow::ARRAY_BUFFER, None);
        gl.bind_vertex_array(None);
        gl.active_texture(glow::TEXTURE1);
        gl.bind_texture(glow::TEXTURE_2D, None);
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, None);
        gl.use_program(None);
        gl.delete_buffer(feedback);
        buffers.into_iter().for_each(|b| gl.delete_buffer(b));
        gl.delete_vertex_array(vao);
        gl.delete_program(program);
        ensure(e == glow::NO_ERROR, || format!("GL error 0x{e:x}"))?;

        let floats: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
        let (mut pos, mut nrm) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for v in floats.chunks_exact(6) {
            pos.push([v[0], v[1], v[2]]);
            nrm.push([v[3], v[4], v[5]]);
        }
        Ok((pos, nrm))
    };
    cache.destroy(gl);
    result
}

/// GPU vs CPU for every skinned primitive of `model` at the pose `world`; returns the worst
/// relative position error.
fn compare_pose(s: &mut Scene, model: &ModelData, world: &[Mat4], pad: usize, label: &str) -> Result<f32, String> {
    let sk = Skeleton::new(model).map_err(err)?;
    let h = s.add(model)?;
    let mut worst = 0.0f32;
    for (mi, mesh) in model.meshes.iter().enumerate() {
        let Some(skin) = mesh.skin else { continue };
        let mut palette = vec![Mat4::IDENTITY; sk.skin_joints(skin).len()];
        sk.palette(skin, world, &mut palette).map_err(err)?;
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let tex = s.r.model(h).and_then(|m| m.morph_texture(mi, pi)).copied();
            let gpu_skin_of = s.r.model(h).and_then(|m| m.primitive_skin(mi, pi));
            ensure(gpu_skin_of == Some(skin), || format!("{label}: primitive_skin {gpu_skin_of:?}"))?;
            let (gpos, gnrm) = gpu_skin(s.gfx.gl(), p, tex.as_ref(), &mesh.weights, &palette, pad, Mat4::IDENTITY)?;
            let (cpos, cnrm) = cpu_skin(p, &mesh.weights, &palette)?;
            let size = size_of(&cpos);
            let (e, at) = max_error(&gpos, &cpos)?;
            ensure(e <= 1e-5 * size, || {
                format!(
                    "{label} mesh {mi}: vertex {at} GPU {:?} CPU {:?} (error {e:e}, size {size})",
                    gpos[at], cpos[at]
                )
            })?;
            if !cnrm.is_empty() {
                let (ne, nat) = max_error(&gnrm, &cnrm)?;
                ensure(ne <= 1e-4, || {
                    format!("{label} mesh {mi}: normal {nat} GPU {:?} CPU {:?}", gnrm[nat], cnrm[nat])
                })?;
            }
            worst = worst.max(e / size);
        }
    }
    s.r.remove_model(s.gfx.gl(), h);
    Ok(worst)
}

fn readback_column() -> Result<(), String> {
    let mut s = Scene::new()?;
    let model = tube_model(3, 1.0, false)?;
    let sk = Skeleton::new(&model).map_err(err)?;
    let mut worst = 0.0f32;
    for (k, amp) in [0.0, 0.5, 1.2, -2.0].into_iter().enumerate() {
        let world = pose(&sk, amp, k as f32)?;
        worst = worst.max(compare_pose(&mut s, &model, &world, 0, &format!("amp {amp}"))?);
    }
    println!("       worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

fn readback_chain() -> Result<(), String> {
    let mut s = Scene::new()?;
    let model = tube_model(300, 0.02, false)?;
    let sk = Skeleton::new(&model).map_err(err)?;
    ensure(sk.skin_joints(0).len() == 300, || "300 joints".into())?;
    let mut worst = 0.0f32;
    // 250 bones before the skin: it starts mid-row (texel 750) and spans two rows.
    for (amp, pad) in [(0.1, 0), (0.05, 250), (-0.2, 341)] {
        let world = pose(&sk, amp, 0.3)?;
        worst = worst.max(compare_pose(&mut s, &model, &world, pad, &format!("amp {amp} pad {pad}"))?);
    }
    println!("       300 joints, worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

fn readback_morph_skin() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mut model = tube_model(3, 1.0, true)?;
    let sk = Skeleton::new(&model).map_err(err)?;
    let mut worst = 0.0f32;
    for w in [0.7, 1.0, -0.5] {
        model.meshes[0].weights = vec![w];
        let world = pose(&sk, 0.8, w)?;
        worst = worst.max(compare_pose(&mut s, &model, &world, 7, &format!("weight {w}"))?);
    }
    // The morph must matter: skinning the unmorphed mesh is far off.
    let world = pose(&sk, 0.8, 1.0)?;
    let mut palette = vec![Mat4::IDENTITY; 3];
    sk.palette(0, &world, &mut palette).map_err(err)?;
    let p = &model.meshes[0].primitives[0];
    let (with, _) = cpu_skin(p, &[1.0], &palette)?;
    let (without, _) = cpu_skin(p, &[0.0], &palette)?;
    let (d, _) = max_error(&with, &without)?;
    ensure(d > 0.05, || format!("morph makes no difference ({d})"))?;
    println!("       worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_f64).map(|f| f as f32).collect()).unwrap_or_default()
}

fn readback_samples() -> Result<(), String> {
    let res = Resources::open_dir(&sample_assets()).map_err(err)?;
    let mut s = Scene::new()?;
    for file in ["riggedsimple.0.json", "simpleskin.0.json", "fox.survey.json", "fox.run.json"] {
        let text = std::fs::read_to_string(reference_poses().join(file)).map_err(err)?;
        let reference: Value = serde_json::from_str(&text).map_err(err)?;
        let asset = reference["asset"].as_str().ok_or("asset")?;
        let model = import(&res, &format!("/{asset}")).map_err(err)?;
        let sk = Skeleton::new(&model).map_err(err)?;
        let clips: Vec<Clip> =
            model.animations.iter().map(|a| Clip::new(a, &sk)).collect::<Result<_, _>>().map_err(err)?;
        let clip = clips.get(reference["animation"]["index"].as_u64().unwrap_or(0) as usize).ok_or("clip")?;
        let h = s.add(&model)?;
        let ours = |g: u64| (0..sk.node_count()).find(|&i| sk.gltf_index(i) == Some(g as usize));
        let mut cache = SamplingCache::new(clip);
        let mut locals = sk.rest().to_vec();
        let mut weights = sk.rest_weights().to_vec();
        let mut world = vec![Mat4::IDENTITY; sk.node_count()];
        let (mut worst, mut poses) = (0.0f32, 0);
        for frame in reference["frames"].as_array().into_iter().flatten() {
            let t = frame["clipTime"].as_f64().ok_or("clipTime")? as f32;
            locals.copy_from_slice(sk.rest());
            weights.copy_from_slice(sk.rest_weights());
            clip.sample(t, &mut cache, &mut locals, &mut weights).map_err(err)?;
            sk.local_to_model(&locals, &mut world).map_err(err)?;
            for m in frame["meshes"].as_array().into_iter().flatten() {
                let node = ours(m["node"].as_u64().unwrap_or(u64::MAX)).ok_or("mesh node")?;
                let mi = (0..sk.mesh_count()).find(|&i| sk.mesh_node(i) == Some(node)).ok_or("mesh")?;
                let Some(skin) = sk.mesh_skin(mi) else { continue };
                let pi = m["primitive"].as_u64().unwrap_or(0) as usize;
                let p = &model.meshes[mi].primitives[pi];
                let mut palette = vec![Mat4::IDENTITY; sk.skin_joints(skin).len()];
                sk.palette(skin, &world, &mut palette).map_err(err)?;
                let w = &weights[sk.mesh_weights(mi)];
                let tex = s.r.model(h).and_then(|g| g.morph_texture(mi, pi)).copied();
                let (gpu, _) = gpu_skin(s.gfx.gl(), p, tex.as_ref(), w, &palette, 5, Mat4::IDENTITY)?;
                let expected: Vec<[f32; 3]> =
                    floats(&m["positions"]).chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
                let size = size_of(&expected).max(Vec3::from(model.aabb.max).distance(Vec3::from(model.aabb.min)));
                let (cpu, _) = cpu_skin(p, w, &palette)?;
                let (e_cpu, _) = max_error(&gpu, &cpu)?;
                ensure(e_cpu <= 1e-5 * size, || format!("{file} t={t}: GPU vs CPU error {e_cpu} (size {size})"))?;
                let (e, at) = max_error(&gpu, &expected)?;
                ensure(e <= 1e-4 * size, || {
                    format!("{file} t={t}: vertex {at} GPU {:?} reference {:?} (size {size})", gpu[at], expected[at])
                })?;
                worst = worst.max(e / size);
                poses += 1;
            }
        }
        s.r.remove_model(s.gfx.gl(), h);
        ensure(poses > 0, || format!("{file}: no skinned poses"))?;
        println!("       {file} ({asset}): {poses} skinned poses, worst GPU-reference error {worst:.1e} x size");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Renderer path: per-instance palettes vs the same meshes skinned on the CPU

/// What an instance's palette span is, as the renderer must read it.
enum Palette {
    Rest,
    Full(f32),
    /// Only skin 0's bones: skin 1 keeps the rest pose.
    Short(f32),
    /// Bone 1 of skin 0 is NaN: drawn as the identity.
    NanBone(f32),
}

const PALETTES: [Palette; 4] = [Palette::Rest, Palette::Full(0.6), Palette::Short(-0.9), Palette::NanBone(0.4)];

/// (span given to the draw list, the palette the renderer must draw with).
fn spans(sk: &Skeleton, model: &ModelData, which: &Palette) -> Result<(Vec<Mat4>, Vec<Mat4>), String> {
    let rest = {
        let nodes = node_world_matrices(model);
        full_palette(sk, &nodes)?
    };
    Ok(match *which {
        Palette::Rest => (Vec::new(), rest),
        Palette::Full(a) => {
            let p = full_palette(sk, &pose(sk, a, 0.0)?)?;
            (p.clone(), p)
        }
        Palette::Short(a) => {
            let p = full_palette(sk, &pose(sk, a, 1.0)?)?;
            let n0 = sk.skin_joints(0).len();
            let mut drawn = p[..n0].to_vec();
            drawn.extend_from_slice(&rest[n0..]);
            (p[..n0].to_vec(), drawn)
        }
        Palette::NanBone(a) => {
            let mut p = full_palette(sk, &pose(sk, a, 2.0)?)?;
            p[1] = Mat4::from_cols_array(&[f32::NAN; 16]);
            let mut drawn = p.clone();
            drawn[1] = Mat4::IDENTITY;
            (p, drawn)
        }
    })
}

/// The model with every skinned primitive skinned on the CPU with `palette` (span layout), its
/// skins dropped and its meshes moved to an identity node (skinned meshes ignore their node).
fn cpu_skinned(model: &ModelData, sk: &Skeleton, palette: &[Mat4]) -> Result<ModelData, String> {
    let mut out = model.clone();
    out.nodes.push(NodeData {
        name: "cpu".into(),
        parent: None,
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        gltf_index: usize::MAX,
    });
    let identity = out.nodes.len() - 1;
    let mut start = 0;
    let starts: Vec<usize> = (0..sk.skin_count())
        .map(|s| {
            let at = start;
            start += sk.skin_joints(s).len();
            at
        })
        .collect();
    for m in &mut out.meshes {
        let Some(skin) = m.skin.take() else { continue };
        let pal = &palette[starts[skin]..starts[skin] + sk.skin_joints(skin).len()];
        for p in &mut m.primitives {
            let (pos, nrm) = cpu_skin(p, &m.weights, pal)?;
            (p.positions, p.normals) = (pos, nrm);
            (p.joints, p.weights) = (Vec::new(), Vec::new());
            p.targets.clear();
        }
        m.node = identity;
    }
    out.skins.clear();
    Ok(out)
}

fn placement(i: usize) -> Mat4 {
    Mat4::from_translation(Vec3::new(-2.85 + 1.9 * i as f32, 0.0, 0.0)) * Mat4::from_scale(Vec3::splat(0.75))
}

/// Renders `PALETTES` through the renderer, then CPU-skinned copies, and compares the images.
fn renderer_vs_cpu(s: &mut Scene, material: MaterialHandle, label: &str) -> Result<Image, String> {
    let model = two_skins_model()?;
    let sk = Skeleton::new(&model).map_err(err)?;
    let h = s.add(&model)?;
    let g = s.r.model(h).ok_or("model")?;
    ensure(g.palette_len() == 8 && g.skin_range(1) == (3..8), || format!("{label}: span layout"))?;
    let cam = camera(Vec3::new(0.0, 1.0, 8.0), Vec3::new(0.0, 0.0, 0.0));
    let mut list = DrawList::new(cam);
    list.lights.push(LightItem::default_key_light());
    let mut drawn = Vec::new();
    for (i, which) in PALETTES.iter().enumerate() {
        let (span, d) = spans(&sk, &model, which)?;
        list.push(h, material, placement(i));
        list.set_palette(&span);
        drawn.push(d);
    }
    let (gpu, stats) = s.render(&list)?;
    ensure(stats.draws == 8 && stats.skin_skipped == 0, || format!("{label}: {stats:?}"))?;
    ensure(stats.bones == 4 * 8, || format!("{label}: {stats:?}"))?;
    // Items without a palette share one copy of their model's rest pose.
    let mut rest = DrawList::new(cam);
    (0..3).for_each(|i| rest.push(h, material, placement(i)));
    let (_, stats) = s.render(&rest)?;
    ensure(stats.bones == 8 && stats.draws == 6, || format!("{label}: rest pose not shared: {stats:?}"))?;
    list.clear();
    list.lights.push(LightItem::default_key_light());
    for (i, d) in drawn.iter().enumerate() {
        let cpu = s.add(&cpu_skinned(&model, &sk, d)?)?;
        list.push(cpu, material, placement(i));
    }
    let (cpu, _) = s.render(&list)?;
    let cmp = compare(&gpu, &cpu, 3)?;
    let allowed = (W * H) as usize / 400;
    if cmp.differing_pixels > allowed {
        let dir = manifest_dir().join("target");
        std::fs::create_dir_all(&dir).map_err(err)?;
        gpu.save_png(&dir.join(format!("skin_{label}.gpu.png")))?;
        cpu.save_png(&dir.join(format!("skin_{label}.cpu.png")))?;
        return Err(format!("{label}: {} pixels differ from the CPU-skinned render", cmp.differing_pixels));
    }
    // The poses must show: the rest-pose render differs from the posed one.
    let background = (0..W * H).filter(|i| gpu.pixel(i % W, i / W) == cpu.pixel(0, 0)).count();
    ensure(background < (W * H) as usize * 97 / 100, || format!("{label}: nothing visible"))?;
    Ok(gpu)
}

fn renderer_builtin() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.builtin;
    renderer_vs_cpu(&mut s, m, "builtin").map(|_| ())
}

/// Defold's documented reading of the cache: `texture()` at texel centres, offsets and size from
/// `animation_data`, influences summed as Σ w·(M·p). Written from the spec (api.md 5.3).
const CONTRACT_VP: &str = "#version 140
in vec4 position;
in vec3 normal;
in vec4 bone_weights;
in vec4 bone_indices;
uniform mat4 mtx_worldview;
uniform mat4 mtx_proj;
uniform mat4 mtx_normal;
uniform vec4 animation_data;
uniform sampler2D pose_matrix_cache;
out vec3 var_normal;

vec2 uv_of(int index)
{
    vec2 size = animation_data.zw;
    float x = mod(float(index), size.x);
    float y = floor(float(index) / size.x);
    return vec2((x + 0.5) / size.x, (y + 0.5) / size.y);
}

mat4 bone(float b)
{
    int i = int(b) * 3 + int(animation_data.x);
    vec4 c0 = texture(pose_matrix_cache, uv_of(i));
    vec4 c1 = texture(pose_matrix_cache, uv_of(i + 1));
    vec4 c2 = texture(pose_matrix_cache, uv_of(i + 2));
    return mat4(vec4(c0.xyz, 0.0), vec4(c1.xyz, 0.0), vec4(c2.xyz, 0.0), vec4(c0.w, c1.w, c2.w, 1.0));
}

void main()
{
    vec4 p = position;
    vec3 n = normal;
    if (animation_data.y > 0.0)
    {
        p = vec4(0.0);
        mat4 s = mat4(0.0);
        for (int k = 0; k < 4; ++k)
        {
            if (bone_weights[k] > 0.0)
            {
                mat4 m = bone(bone_indices[k]);
                p += bone_weights[k] * (m * position);
                s += bone_weights[k] * m;
            }
        }
        p.w = 1.0;
        n = transpose(inverse(mat3(s))) * normal;
    }
    var_normal = normalize(mat3(mtx_normal) * n);
    gl_Position = mtx_proj * mtx_worldview * p;
}
";

const NORMAL_FP: &str = "#version 140
in vec3 var_normal;
out vec4 c;
void main() { c = vec4(0.5 + 0.5 * normalize(var_normal), 1.0); }
";

fn renderer_contract() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.inline_material(CONTRACT_VP, NORMAL_FP)?;
    let program = s.r.material(m).ok_or("material")?.program();
    for name in ["pose_matrix_cache", "animation_data"] {
        ensure(program.declares(name), || format!("contract program does not report '{name}'"))?;
    }
    renderer_vs_cpu(&mut s, m, "contract").map(|_| ())
}

/// The uniform-array alternative: the draw's skin as `mat4 bone_matrices[n]`.
fn array_vp(n: usize) -> String {
    format!(
        "#version 140
in vec4 position;
in vec3 normal;
in vec4 bone_weights;
in vec4 bone_indices;
uniform mat4 mtx_worldview;
uniform mat4 mtx_proj;
uniform mat4 mtx_normal;
uniform vec4 animation_data;
uniform mat4 bone_matrices[{n}];
out vec3 var_normal;
void main()
{{
    vec4 p = position;
    vec3 n = normal;
    if (animation_data.y > 0.0)
    {{
        mat4 s = bone_weights.x * bone_matrices[int(bone_indices.x)] + bone_weights.y * bone_matrices[int(bone_indices.y)]
            + bone_weights.z * bone_matrices[int(bone_indices.z)] + bone_weights.w * bone_matrices[int(bone_indices.w)];
        p = vec4((s * position).xyz, 1.0);
        n = transpose(inverse(mat3(s))) * normal;
    }}
    var_normal = normalize(mat3(mtx_normal) * n);
    gl_Position = mtx_proj * mtx_worldview * p;
}}
"
    )
}

fn renderer_array() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.inline_material(&array_vp(16), NORMAL_FP)?;
    renderer_vs_cpu(&mut s, m, "array").map(|_| ())
}

fn renderer_block() -> Result<(), String> {
    let mut s = Scene::new()?;
    let vp = array_vp(8).replace("uniform vec4 animation_data;\n", "").replace(
        "uniform mat4 bone_matrices[8];",
        "uniform skin_block { vec4 animation_data; mat4 bone_matrices[8]; };",
    );
    ensure(vp.contains("skin_block"), || "block not substituted".into())?;
    let m = s.inline_material(&vp, NORMAL_FP)?;
    renderer_vs_cpu(&mut s, m, "block").map(|_| ())
}

fn renderer_chain() -> Result<(), String> {
    let mut s = Scene::new()?;
    let model = tube_model(300, 0.01, false)?;
    let sk = Skeleton::new(&model).map_err(err)?;
    let h = s.add(&model)?;
    let cam = camera(Vec3::new(0.0, 1.2, 6.0), Vec3::new(0.0, 1.2, 0.0));
    let at =
        |i: usize| Mat4::from_translation(Vec3::new(-2.5 + i as f32, 0.0, 0.0)) * Mat4::from_scale(Vec3::splat(0.8));
    let mut list = DrawList::new(cam);
    list.lights.push(LightItem::default_key_light());
    let palettes: Vec<Vec<Mat4>> =
        (0..6).map(|i| full_palette(&sk, &pose(&sk, 0.01 + 0.012 * i as f32, i as f32)?)).collect::<Result<_, _>>()?;
    for (i, p) in palettes.iter().enumerate() {
        list.push(h, s.builtin, at(i));
        list.set_palette(p);
    }
    let (gpu, stats) = s.render(&list)?;
    ensure(stats.draws == 6 && stats.bones == 1800, || format!("{stats:?}"))?;
    list.clear();
    list.lights.push(LightItem::default_key_light());
    for (i, p) in palettes.iter().enumerate() {
        let cpu = s.add(&cpu_skinned(&model, &sk, p)?)?;
        list.push(cpu, s.builtin, at(i));
    }
    let (cpu, _) = s.render(&list)?;
    let cmp = compare(&gpu, &cpu, 3)?;
    if cmp.differing_pixels > (W * H) as usize / 400 {
        let dir = manifest_dir().join("target");
        std::fs::create_dir_all(&dir).map_err(err)?;
        gpu.save_png(&dir.join("skin_chain.gpu.png"))?;
        cpu.save_png(&dir.join("skin_chain.cpu.png"))?;
        return Err(format!("{} pixels differ from the CPU-skinned render", cmp.differing_pixels));
    }
    println!("       1800 bones in a {}-texel-wide pose cache", POSE_CACHE_WIDTH);
    Ok(())
}

fn golden_builtin() -> Result<(), String> {
    let mut s = Scene::new()?;
    let m = s.builtin;
    let img = renderer_vs_cpu(&mut s, m, "builtin")?;
    check_golden("builtin", &img)
}

fn array_too_small() -> Result<(), String> {
    let mut s = Scene::new()?;
    let small = s.inline_material(&array_vp(4), NORMAL_FP)?;
    let model = two_skins_model()?;
    let h = s.add(&model)?;
    let mut list = DrawList::new(camera(Vec3::new(0.0, 0.6, 7.5), Vec3::ZERO));
    list.push(h, small, Mat4::IDENTITY);
    list.push(h, small, Mat4::from_translation(Vec3::X));
    list.push(h, s.builtin, Mat4::from_translation(Vec3::NEG_X));
    for frame in 0..2 {
        let (_, stats) = s.render(&list)?;
        // Skin 1 has 5 joints: not drawn with the 4-bone material; skin 0 (3 joints) is.
        ensure(stats.skin_skipped == 2 && stats.draws == 4, || format!("frame {frame}: {stats:?}"))?;
    }
    let errors = s.r.errors();
    ensure(errors.len() == 1, || format!("expected one report, got {errors:?}"))?;
    let e = &errors[0];
    println!("       {e}");
    ensure(e.contains("/test/two_skins.glb") && e.contains("'tube_c'") && e.contains("5 joints"), || e.clone())
}

fn check_golden(name: &str, actual: &Image) -> Result<(), String> {
    checks::check_golden(&format!("skin_{name}"), actual)
}

// ---------------------------------------------------------------------------------------------
// Node animation: rigid meshes under joints, nested animated nodes, morph + skin + joints

fn robot_arm_at(t: f32) -> Result<(ModelData, sinew::game::animation::AnimState, Vec<f32>), String> {
    use sinew::game::animation::{AnimState, Rig};
    let model = import_bytes("/test/arm.glb", &sinew::project::gltf::robot_arm::robot_arm(), None).map_err(err)?;
    let rig = std::sync::Arc::new(Rig::new(&model.source, &model, &[&model]).map_err(err)?);
    let mut state = AnimState::with_meshes(rig, &model);
    state.player.play(0, sinew::anim::Playback::OnceForward, 0.0, 0.0, 1.0);
    state.player.set_cursor(t / model.animations[0].duration);
    let mut weights: Vec<f32> = model.meshes.iter().flat_map(|m| m.weights.iter().copied()).collect();
    state.pose(&mut weights);
    Ok((model, state, weights))
}

/// Each primitive through the built-in vertex program with the mesh matrix the draw list gives
/// the renderer (`DrawList::mesh_world`) and the instance's palette and weights, against
/// `sinew::game::posed` (what `inspect --vertices` prints).
fn readback_robot_arm() -> Result<(), String> {
    let mut s = Scene::new()?;
    let mut worst = 0.0f32;
    for t in [0.0, 0.3, 0.5, 0.9] {
        let (model, state, weights) = robot_arm_at(t)?;
        let cpu = sinew::game::posed::pose_with(&model, Some(&state), &weights);
        let h = s.add(&model)?;
        let mut list = DrawList::new(camera(Vec3::new(0.0, 1.0, 6.0), Vec3::ZERO));
        list.push(h, s.builtin, Mat4::IDENTITY);
        list.set_morph_weights(&weights);
        list.set_palette_rows(&state.palette);
        list.set_mesh_worlds(&state.mesh_world);
        let item = list.items[0];
        let rest = sinew::render::node_world_matrices(&model);
        for c in &cpu {
            let mesh = &model.meshes[c.mesh];
            let p = &mesh.primitives[c.primitive];
            let at_rest = if mesh.skin.is_some() { Mat4::IDENTITY } else { rest[mesh.node] };
            let worldview = list.mesh_world(&item, c.mesh, at_rest);
            let palette: Vec<Mat4> =
                if mesh.skin.is_some() { state.palette.iter().map(rows_matrix).collect() } else { vec![] };
            let tex = s.r.model(h).and_then(|m| m.morph_texture(c.mesh, c.primitive)).copied();
            let w = if mesh.weights.is_empty() { &[][..] } else { &weights[..] };
            let (gpos, _) = gpu_skin(s.gfx.gl(), p, tex.as_ref(), w, &palette, 3, worldview)?;
            let size = size_of(&c.positions).max(1.0);
            let (e, at) = max_error(&gpos, &c.positions)?;
            ensure(e <= 1e-5 * size, || {
                format!("t {t} mesh {} vertex {at}: GPU {:?} CPU {:?}", mesh.id, gpos[at], c.positions[at])
            })?;
            worst = worst.max(e / size);
        }
        s.r.remove_model(s.gfx.gl(), h);
    }
    println!("       worst GPU - inspect --vertices error: {worst:.2e} x size");
    Ok(())
}

/// The arm drawn at t = 0 and t = 0.5: goldens for both, and the pixels that changed lie where
/// the arm, blade and cable move — the static base's pixels stay the same.
fn golden_robot_arm() -> Result<(), String> {
    let mut s = Scene::new()?;
    let (mut images, mut golden) = (Vec::new(), Ok(()));
    for t in [0.0, 0.5] {
        let (model, state, weights) = robot_arm_at(t)?;
        let h = s.add(&model)?;
        let mut list = DrawList::new(camera(Vec3::new(0.6, 1.3, 4.2), Vec3::new(0.6, 1.1, 0.0)));
        list.lights.push(LightItem::default_key_light());
        list.push(h, s.builtin, Mat4::IDENTITY);
        list.set_morph_weights(&weights);
        list.set_palette_rows(&state.palette);
        list.set_mesh_worlds(&state.mesh_world);
        let (img, _) = s.render(&list)?;
        s.r.remove_model(s.gfx.gl(), h);
        // Both goldens are checked (and, when updating, both rewritten) before either fails.
        golden = golden.and(check_golden(&format!("robot_arm_t{}", (t * 10.0) as u32), &img));
        images.push(img);
    }
    golden?;
    let (a, b) = (&images[0], &images[1]);
    let (w, h) = (a.width as usize, a.height as usize);
    let differs = |x: usize, y: usize| {
        let k = (y * w + x) * 4;
        a.rgba[k..k + 3].iter().zip(&b.rgba[k..k + 3]).any(|(p, q)| p.abs_diff(*q) > 8)
    };
    let changed = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).filter(|&(x, y)| differs(x, y)).count();
    ensure(changed > w * h / 50, || format!("only {changed} pixels changed between t 0 and t 0.5"))?;
    // The base sits at the bottom centre of the view (rows are top to bottom in `Image`): the
    // block of pixels around its middle must not change.
    let base = project_point(Vec3::new(0.0, 0.25, 0.0), Vec3::new(0.6, 1.3, 4.2), Vec3::new(0.6, 1.1, 0.0), w, h);
    let still = (-3i32..=3).flat_map(|dy| (-3i32..=3).map(move |dx| (dx, dy))).all(|(dx, dy)| {
        let (x, y) = ((base.0 as i32 + dx) as usize, (base.1 as i32 + dy) as usize);
        !differs(x, y)
    });
    ensure(still, || format!("the static base's pixels around {base:?} changed"))?;
    println!("       {changed} of {} pixels changed; the base's did not", w * h);
    Ok(())
}

/// Pixel (x right, y down) of a world point through [`camera`].
fn project_point(p: Vec3, eye: Vec3, target: Vec3, w: usize, h: usize) -> (usize, usize) {
    let cam = camera(eye, target);
    let clip = cam.proj * cam.view * p.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    (((ndc.x * 0.5 + 0.5) * w as f32) as usize, ((0.5 - ndc.y * 0.5) * h as f32) as usize)
}

/// The generated 21-bone `.bon` figure: bones turned the way `go.set(bone, "euler...")` turns
/// them (one beyond its limit), the limits applied as the pose pipeline applies them, then GPU
/// skinning of the automatic two-bone weights against the CPU reference.
fn readback_bon_rig() -> Result<(), String> {
    use sinew::anim::limits::{JointLimit, clamp_locals};
    use sinew::project::bon::{parse, rig, sample};
    let obj = sinew::project::obj::parse("/f/figure.obj", &sample::figure_obj(6, 10), None).map_err(err)?;
    let file = parse::parse("/f/figure.bon", &sample::figure_bon("figure.obj")).map_err(err)?;
    let limits_spec = sinew::project::import::bon_limits(&file);
    let model = rig(file, obj).data;
    let sk = Skeleton::new(&model).map_err(err)?;
    let limits: Vec<JointLimit> = limits_spec
        .iter()
        .filter_map(|l| {
            let node = sk.find_joint(&l.joint)?;
            Some(JointLimit { node, min: Vec3::from_array(l.min), max: Vec3::from_array(l.max) })
        })
        .collect();
    ensure(limits.len() == 4, || format!("{} limited bones", limits.len()))?;
    let mut s = Scene::new()?;
    let mut worst = 0.0f32;
    let turns: [(&str, [f32; 3]); 4] = [
        ("BrasG", [0.0, 0.0, 80.0]),
        ("AvBrasG", [0.0, 0.0, 90.0]),
        ("Tete", [0.0, 0.0, 20.0]),
        ("CuisseD", [-40.0, 0.0, 0.0]),
    ];
    for (k, amount) in [0.0f32, 0.5, 1.0].into_iter().enumerate() {
        let mut locals = sk.rest().to_vec();
        for (name, e) in turns {
            let node = sk.find_joint(name).ok_or(name)?;
            locals[node].rotation = sinew::base::euler::euler_to_quat(Vec3::from_array(e) * amount);
        }
        clamp_locals(&limits, &mut locals);
        let arm = sk.find_joint("BrasG").ok_or("BrasG")?;
        let z = sinew::base::euler::quat_to_euler(locals[arm].rotation).z;
        ensure(z <= 55.0 + 1e-3, || format!("BrasG z {z} past its limit"))?;
        let mut world = vec![Mat4::IDENTITY; sk.node_count()];
        sk.local_to_model(&locals, &mut world).map_err(err)?;
        worst = worst.max(compare_pose(&mut s, &model, &world, k * 7, &format!("figure pose {amount}"))?);
    }
    println!("       worst GPU-CPU position error: {worst:.2e} x model size");
    Ok(())
}

/// The shader of "Skeletal animation, part 1 – shader" (demensdeum), as the article writes it:
/// four `(joint, weight)` vec2 attributes and one `mat4` array, flat white.
fn article_vp(n: usize) -> String {
    format!(
        "#version 140
attribute vec3 vertex;
attribute vec2 uv;
attribute vec2 bone0info;
attribute vec2 bone1info;
attribute vec2 bone2info;
attribute vec2 bone3info;
uniform mat4 bonesMatrices[{n}];
uniform mat4 projectionMatrix;
uniform mat4 viewMatrix;
uniform mat4 modelMatrix;
out vec2 uvOut;
void main()
{{
    vec4 v = vec4(vertex, 1.0);
    mat4 bone0matrix = bonesMatrices[int(bone0info.x)];
    mat4 bone1matrix = bonesMatrices[int(bone1info.x)];
    mat4 bone2matrix = bonesMatrices[int(bone2info.x)];
    mat4 bone3matrix = bonesMatrices[int(bone3info.x)];
    vec4 animatedVertex = bone0matrix * v * bone0info.y + bone1matrix * v * bone1info.y
        + bone2matrix * v * bone2info.y + bone3matrix * v * bone3info.y;
    uvOut = uv;
    gl_Position = projectionMatrix * viewMatrix * modelMatrix * animatedVertex;
}}
"
    )
}

const WHITE_FP: &str = "#version 140
in vec2 uvOut;
out vec4 c;
void main() { c = vec4(1.0, 1.0, 1.0, 1.0) + 0.0 * vec4(uvOut, 0.0, 0.0); }
";

/// The posed `.bon` figure drawn with the built-in material and with the article's shader: the
/// silhouettes (every pixel that is not background) must agree within 0.2 % of the image.
/// Shading differs by design (lit vs flat white), the pose must not.
fn renderer_article() -> Result<(), String> {
    use sinew::project::bon::{parse, rig, sample};
    let obj = sinew::project::obj::parse("/f/figure.obj", &sample::figure_obj(8, 12), None).map_err(err)?;
    let file = parse::parse("/f/figure.bon", &sample::figure_bon("figure.obj")).map_err(err)?;
    let model = rig(file, obj).data;
    let sk = Skeleton::new(&model).map_err(err)?;
    let mut s = Scene::new()?;
    let article = s.inline_material(&article_vp(32), WHITE_FP)?;
    let h = s.add(&model)?;
    let mut locals = sk.rest().to_vec();
    for (name, e) in [
        ("BrasG", [0.0, 0.0, 50.0]),
        ("AvBrasG", [0.0, 0.0, 60.0]),
        ("BrasD", [0.0, 0.0, -30.0]),
        ("Tete", [0.0, 0.0, 15.0]),
    ] {
        let node = sk.find_joint(name).ok_or(name)?;
        locals[node].rotation = sinew::base::euler::euler_to_quat(Vec3::from_array(e));
    }
    let mut world = vec![Mat4::IDENTITY; sk.node_count()];
    sk.local_to_model(&locals, &mut world).map_err(err)?;
    let mut palette = vec![Mat4::IDENTITY; sk.skin_joints(0).len()];
    sk.palette(0, &world, &mut palette).map_err(err)?;
    let cam = camera(Vec3::new(0.0, 1.1, 3.0), Vec3::new(0.0, 1.0, 0.0));
    let shot = |s: &mut Scene, m: MaterialHandle| -> Result<Image, String> {
        let mut list = DrawList::new(cam);
        list.lights.push(LightItem::default_key_light());
        list.push(h, m, Mat4::from_translation(Vec3::new(0.1, 0.0, 0.0)));
        list.set_palette(&palette);
        let (img, stats) = s.render(&list)?;
        ensure(stats.skin_skipped == 0 && stats.draws >= 1, || format!("{stats:?}"))?;
        Ok(img)
    };
    let builtin = s.builtin;
    let (built, art) = (shot(&mut s, builtin)?, shot(&mut s, article)?);
    let bg = built.pixel(0, 0);
    let (mut figure, mut differ) = (0usize, 0usize);
    for i in 0..W * H {
        let (a, b) = (built.pixel(i % W, i / W) != bg, art.pixel(i % W, i / W) != bg);
        figure += a as usize;
        differ += (a != b) as usize;
    }
    ensure(figure > 500, || format!("only {figure} figure pixels"))?;
    let allowed = (W * H) as usize / 500;
    if differ > allowed {
        let dir = manifest_dir().join("target");
        std::fs::create_dir_all(&dir).map_err(err)?;
        built.save_png(&dir.join("skin_article.builtin.png"))?;
        art.save_png(&dir.join("skin_article.article.png"))?;
        return Err(format!("{differ} silhouette pixels differ (allowed {allowed}, figure {figure})"));
    }
    // The pose shows: the rest pose's silhouette is far from the posed one.
    let mut rest = vec![Mat4::IDENTITY; palette.len()];
    let mut rest_world = vec![Mat4::IDENTITY; sk.node_count()];
    sk.local_to_model(sk.rest(), &mut rest_world).map_err(err)?;
    sk.palette(0, &rest_world, &mut rest).map_err(err)?;
    let mut list = DrawList::new(cam);
    list.push(h, article, Mat4::from_translation(Vec3::new(0.1, 0.0, 0.0)));
    list.set_palette(&rest);
    let (at_rest, _) = s.render(&list)?;
    let moved = (0..W * H).filter(|i| (at_rest.pixel(i % W, i / W) != bg) != (art.pixel(i % W, i / W) != bg)).count();
    ensure(moved > 10 * allowed, || format!("the pose barely shows: {moved} pixels"))?;
    if let Some(dir) = std::env::var_os("SINEW_SAVE_ARTICLE") {
        let dir = std::path::PathBuf::from(dir);
        built.save_png(&dir.join("article.builtin.png"))?;
        art.save_png(&dir.join("article.article.png"))?;
    }
    println!(
        "       {figure} figure pixels, {differ} silhouette pixels differ (allowed {allowed}); {moved} move from rest"
    );
    Ok(())
}
