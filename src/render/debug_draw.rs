//! Flat-lit unit cubes for game objects that have nothing else to show.

use glam::{Mat4, Vec3};
use glow::HasContext;

const VERTEX_SOURCE: &str = include_str!("../../shaders/debug.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/debug.fp");

/// Attribute locations, bound before linking.
const ATTR_POSITION: u32 = 0;
const ATTR_NORMAL: u32 = 1;
/// Floats per vertex: position xyz + normal xyz.
const VERTEX_FLOATS: usize = 6;
const CUBE_VERTICES: i32 = 36;

/// One cube to draw: `world` places a unit cube (side 1, centred on the origin).
#[derive(Clone, Copy, Debug)]
pub struct DebugCube {
    pub world: Mat4,
    pub color: [f32; 4],
}

/// GPU resources for drawing debug cubes; create once per context.
pub struct DebugDraw {
    program: glow::Program,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    u_worldviewproj: Option<glow::UniformLocation>,
    u_normal: Option<glow::UniformLocation>,
    u_tint: Option<glow::UniformLocation>,
}

impl DebugDraw {
    /// Compiles `shaders/debug.vp`/`debug.fp` and uploads the cube mesh. Shader errors
    /// carry the driver's info log.
    pub fn new(gl: &glow::Context) -> Result<DebugDraw, String> {
        let program = link_program(
            gl,
            &[
                (glow::VERTEX_SHADER, "shaders/debug.vp", VERTEX_SOURCE),
                (glow::FRAGMENT_SHADER, "shaders/debug.fp", FRAGMENT_SOURCE),
            ],
            &[(ATTR_POSITION, "position"), (ATTR_NORMAL, "normal")],
        )?;
        let vertices = cube_vertices();
        let bytes: Vec<u8> = vertices.iter().flat_map(|f| f.to_ne_bytes()).collect();
        let stride = (VERTEX_FLOATS * 4) as i32;
        // SAFETY: the context is current; the buffer data outlives the upload call and the
        // attribute layout matches `cube_vertices`.
        let (vao, vbo) = unsafe {
            let vao = match gl.create_vertex_array() {
                Ok(v) => v,
                Err(e) => {
                    gl.delete_program(program);
                    return Err(e);
                }
            };
            let vbo = match gl.create_buffer() {
                Ok(b) => b,
                Err(e) => {
                    gl.delete_vertex_array(vao);
                    gl.delete_program(program);
                    return Err(e);
                }
            };
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            gl.enable_vertex_attrib_array(ATTR_POSITION);
            gl.vertex_attrib_pointer_f32(ATTR_POSITION, 3, glow::FLOAT, false, stride, 0);
            gl.enable_vertex_attrib_array(ATTR_NORMAL);
            gl.vertex_attrib_pointer_f32(ATTR_NORMAL, 3, glow::FLOAT, false, stride, 12);
            gl.bind_vertex_array(None);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            (vao, vbo)
        };
        // SAFETY: queries on a successfully linked program.
        let (u_worldviewproj, u_normal, u_tint) = unsafe {
            (
                gl.get_uniform_location(program, "mtx_worldviewproj"),
                gl.get_uniform_location(program, "mtx_normal"),
                gl.get_uniform_location(program, "tint"),
            )
        };
        Ok(DebugDraw { program, vao, vbo, u_worldviewproj, u_normal, u_tint })
    }

    /// Draws `cubes` into the bound frame buffer with depth testing as currently set
    /// (on after `Gfx::begin_frame`). One draw call per cube; back faces are culled.
    pub fn draw(&self, gl: &glow::Context, view_proj: Mat4, cubes: &[DebugCube]) {
        if cubes.is_empty() {
            return;
        }
        // SAFETY: program and VAO belong to this context; uniform data are plain arrays.
        unsafe {
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.enable(glow::CULL_FACE);
            gl.cull_face(glow::BACK);
            gl.front_face(glow::CCW);
            gl.disable(glow::BLEND);
        }
        for cube in cubes {
            let wvp = view_proj * cube.world;
            let normal = cube.world.inverse().transpose();
            // SAFETY: as above.
            unsafe {
                gl.uniform_matrix_4_f32_slice(self.u_worldviewproj.as_ref(), false, &wvp.to_cols_array());
                gl.uniform_matrix_4_f32_slice(self.u_normal.as_ref(), false, &normal.to_cols_array());
                gl.uniform_4_f32_slice(self.u_tint.as_ref(), &cube.color);
                gl.draw_arrays(glow::TRIANGLES, 0, CUBE_VERTICES);
            }
        }
        // SAFETY: unbinding only.
        unsafe {
            gl.disable(glow::CULL_FACE);
            gl.bind_vertex_array(None);
            gl.use_program(None);
        }
    }

    /// Frees the GL objects; call with the context that created them, before it goes away.
    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: objects were created on `gl` and are not used after this.
        unsafe {
            gl.delete_program(self.program);
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
        }
    }
}

/// 36 vertices (12 counter-clockwise triangles seen from outside), each position + normal.
fn cube_vertices() -> Vec<f32> {
    // (normal, u, v) with u x v = normal so (-u-v, u-v, u+v, -u+v) winds CCW from outside.
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    let mut out = Vec::with_capacity(CUBE_VERTICES as usize * VERTEX_FLOATS);
    for (n, u, v) in faces {
        debug_assert!(u.cross(v).abs_diff_eq(n, 1e-6));
        let c = n * 0.5;
        let (u, v) = (u * 0.5, v * 0.5);
        let corners = [c - u - v, c + u - v, c + u + v, c - u + v];
        for i in [0, 1, 2, 0, 2, 3] {
            let p = corners[i];
            out.extend_from_slice(&[p.x, p.y, p.z, n.x, n.y, n.z]);
        }
    }
    out
}

fn compile_shader(gl: &glow::Context, kind: u32, name: &str, source: &str) -> Result<glow::Shader, String> {
    // SAFETY: the context is current; the shader is deleted on failure.
    unsafe {
        let shader = gl.create_shader(kind)?;
        gl.shader_source(shader, source);
        gl.compile_shader(shader);
        if gl.get_shader_compile_status(shader) {
            Ok(shader)
        } else {
            let log = gl.get_shader_info_log(shader);
            gl.delete_shader(shader);
            Err(format!("{name}: compile failed:\n{}", log.trim_end()))
        }
    }
}

pub(super) fn link_program(
    gl: &glow::Context,
    stages: &[(u32, &str, &str)],
    attributes: &[(u32, &str)],
) -> Result<glow::Program, String> {
    let mut shaders = Vec::with_capacity(stages.len());
    for &(kind, name, source) in stages {
        match compile_shader(gl, kind, name, source) {
            Ok(s) => shaders.push(s),
            Err(e) => {
                for s in shaders {
                    // SAFETY: shaders created above on this context.
                    unsafe { gl.delete_shader(s) };
                }
                return Err(e);
            }
        }
    }
    // SAFETY: the context is current; shaders are detached and deleted after linking.
    unsafe {
        let program = match gl.create_program() {
            Ok(p) => p,
            Err(e) => {
                for s in shaders {
                    gl.delete_shader(s);
                }
                return Err(e);
            }
        };
        for &s in &shaders {
            gl.attach_shader(program, s);
        }
        for &(index, name) in attributes {
            gl.bind_attrib_location(program, index, name);
        }
        gl.link_program(program);
        for s in shaders {
            gl.detach_shader(program, s);
            gl.delete_shader(s);
        }
        if gl.get_program_link_status(program) {
            Ok(program)
        } else {
            let names: Vec<&str> = stages.iter().map(|s| s.1).collect();
            let log = gl.get_program_info_log(program);
            gl.delete_program(program);
            Err(format!("{}: link failed:\n{}", names.join(" + "), log.trim_end()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_mesh_is_closed_unit_cube_with_outward_ccw_faces() {
        let v = cube_vertices();
        assert_eq!(v.len(), CUBE_VERTICES as usize * VERTEX_FLOATS);
        for tri in v.chunks_exact(VERTEX_FLOATS * 3) {
            let p = |i: usize| Vec3::new(tri[i * 6], tri[i * 6 + 1], tri[i * 6 + 2]);
            let n = Vec3::new(tri[3], tri[4], tri[5]);
            let face_normal = (p(1) - p(0)).cross(p(2) - p(0)).normalize();
            assert!(face_normal.abs_diff_eq(n, 1e-6), "{face_normal} vs {n}");
            for i in 0..3 {
                assert!(p(i).abs().abs_diff_eq(Vec3::splat(0.5), 1e-6));
            }
        }
    }
}
