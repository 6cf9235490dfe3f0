//! The runner of the GL test programs (`harness = false`: SDL must start on the main thread):
//! named checks run in order, a `N passed, M failed` line, exit status 1 on failure. Also the
//! golden-image comparison (from `golden.rs`) and the point-set measures they share.
#![allow(dead_code)]
#[path = "data.rs"]
pub mod data;
#[path = "golden.rs"]
mod golden;
#[path = "update.rs"]
pub mod update;
use glam::Vec3;
use glow::HasContext;
pub use golden::check_golden;
use sinew::project::Resources;
use sinew::project::model_data::{Aabb, ModelData};
use sinew::render::{
    ATTRIBUTES, DrawList, Gfx, Image, MaterialHandle, ModelHandle, ModelRenderer, SubmitStats, WindowConfig,
};
use std::path::PathBuf;
use std::time::Instant;

pub type Check = fn() -> Result<(), String>;

/// Runs the checks whose names contain one of the command-line filters (all without filters).
pub fn run(checks: &[(&str, Check)]) {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let (mut passed, mut failed) = (0, 0);
    for (name, check) in checks {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let start = Instant::now();
        match check() {
            Ok(()) => {
                passed += 1;
                println!("ok     {name} ({:.0} ms)", start.elapsed().as_secs_f64() * 1e3);
            }
            Err(e) => {
                failed += 1;
                println!("FAILED {name}: {e}");
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}

pub fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(msg()) }
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The diagonal of the points' bounds: the "model size" that tolerances scale with.
pub fn size_of(points: &[[f32; 3]]) -> f32 {
    let mut b = Aabb::default();
    points.iter().for_each(|&p| b.grow(p));
    (Vec3::from(b.max) - Vec3::from(b.min)).length().max(1e-6)
}

/// Largest distance between corresponding points, and where.
pub fn max_error(a: &[[f32; 3]], b: &[[f32; 3]]) -> Result<(f32, usize), String> {
    ensure(a.len() == b.len(), || format!("{} vs {} vertices", a.len(), b.len()))?;
    let mut worst = (0.0f32, 0);
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        let d = Vec3::from(*p).distance(Vec3::from(*q));
        if d > worst.0 || d.is_nan() {
            worst = (d, i);
        }
    }
    Ok(worst)
}

/// The background colour of every GL test scene.
pub const CLEAR: [f32; 4] = [0.12, 0.12, 0.15, 1.0];

/// A headless context plus a model renderer with the built-in material loaded (each GL test
/// program adds its own helpers to it).
pub struct Scene {
    pub gfx: Gfx,
    pub r: ModelRenderer,
    pub builtin: MaterialHandle,
}

impl Scene {
    pub fn open(title: &str, width: u32, height: u32) -> Result<Scene, String> {
        let gfx = Gfx::new(&WindowConfig { title: title.into(), width, height, vsync: false, headless: true })?;
        let mut r = ModelRenderer::new(gfx.gl())?;
        let res = Resources::demo();
        let builtin = r
            .add_material(gfx.gl(), "/builtins/materials/model.material", &mut |p| res.read_string(p, None))
            .map_err(|e| e.to_string())?;
        Ok(Scene { gfx, r, builtin })
    }

    pub fn add(&mut self, model: &ModelData) -> Result<ModelHandle, String> {
        self.r.add_model(self.gfx.gl(), model)
    }

    /// Draws `list` over [`CLEAR`] and reads the frame back; any GL error fails.
    pub fn render(&mut self, list: &DrawList) -> Result<(Image, SubmitStats), String> {
        self.gfx.begin_frame(CLEAR);
        let stats = self.r.submit(self.gfx.gl(), list);
        self.gfx.end_frame();
        // SAFETY: plain query on the current context.
        let err = unsafe { self.gfx.gl().get_error() };
        ensure(err == glow::NO_ERROR, || format!("GL error 0x{err:x}"))?;
        Ok((self.gfx.read_pixels(), stats))
    }
}

/// Sets a per-instance attribute of the built-in vertex program (`mtx_worldview`, `mtx_normal`,
/// `animation_data`: attributes, see `render::program`) to one value for every vertex, as the
/// renderer's instance buffer would for one instance: `columns` are the value's columns (a vec4
/// is one); a `mat3` attribute takes the first three of each of its three. Does nothing when the
/// program has no such active attribute.
pub fn set_instance_attribute(gl: &glow::Context, program: glow::Program, name: &str, columns: &[[f32; 4]]) {
    // SAFETY: queries on a linked program of the current context; generic attribute values.
    unsafe {
        let Some(loc) = gl.get_attrib_location(program, name) else { return };
        let mut used = columns.len();
        for i in 0..gl.get_active_attributes(program) {
            if let Some(a) = gl.get_active_attribute(program, i).filter(|a| a.name == name) {
                used = match a.atype {
                    glow::FLOAT_MAT3 => 3,
                    glow::FLOAT_VEC4 => 1,
                    _ => 4,
                };
            }
        }
        for (c, v) in columns.iter().take(used).enumerate() {
            gl.vertex_attrib_4_f32(loc + c as u32, v[0], v[1], v[2], v[3]);
        }
    }
}

/// The columns of a matrix, as [`set_instance_attribute`] takes them.
pub fn columns(m: &glam::Mat4) -> [[f32; 4]; 4] {
    [m.x_axis.to_array(), m.y_axis.to_array(), m.z_axis.to_array(), m.w_axis.to_array()]
}

/// Compiles and links a vertex program (attributes at the renderer's locations) that captures
/// `var_position` and `var_normal` with transform feedback, and makes it current: the readback
/// tests run the built-in vertex program this way.
pub fn capture_program(gl: &glow::Context, source: &str) -> Result<glow::Program, String> {
    // SAFETY: objects are created on the current context; the shader is freed after linking.
    unsafe {
        let shader = gl.create_shader(glow::VERTEX_SHADER)?;
        gl.shader_source(shader, source);
        gl.compile_shader(shader);
        if !gl.get_shader_compile_status(shader) {
            return Err(format!("model.vp: {}", gl.get_shader_info_log(shader)));
        }
        let program = gl.create_program()?;
        gl.attach_shader(program, shader);
        for (index, name) in ATTRIBUTES {
            gl.bind_attrib_location(program, index, name);
        }
        gl.transform_feedback_varyings(program, &["var_position", "var_normal"], glow::INTERLEAVED_ATTRIBS);
        gl.link_program(program);
        gl.delete_shader(shader);
        if !gl.get_program_link_status(program) {
            return Err(format!("link: {}", gl.get_program_info_log(program)));
        }
        gl.use_program(Some(program));
        Ok(program)
    }
}
