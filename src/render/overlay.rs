//! The overlay Defold's render script draws on top of the scene: `draw_text` (screen pixels
//! from the bottom-left, the built-in 8×8 bitmap font at 2× scale) and `draw_line` (world space),
//! one frame each, and the label components of the draw list (`labels`), in the same font. The
//! font is `font8x8` (public domain glyphs, MIT-licensed crate): ASCII and Latin-1; any other
//! character renders as a box.
use glam::Mat4;
use glow::HasContext;

const VERTEX_SOURCE: &str = include_str!("../../shaders/overlay.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/overlay.fp");

/// Pixels per font pixel: 8×8 glyphs become 16×16 on screen.
pub const TEXT_SCALE: f32 = 2.0;
/// Screen pixels from one glyph to the next, and from one line to the next.
pub const GLYPH_ADVANCE: f32 = 8.0 * TEXT_SCALE;
/// The atlas: 16 × 16 glyph cells of 8 × 8 pixels.
const ATLAS: usize = 128;
/// The atlas cell of the box drawn for characters the font lacks.
const BOX_CELL: usize = 128;
/// Floats per vertex: position xyz, uv, rgba.
pub(super) const FLOATS: usize = 9;

/// The atlas cell of a character.
pub(super) fn cell(c: char) -> usize {
    match c as u32 {
        0x20..=0x7e => c as usize,
        0xa0..=0xff => c as usize,
        _ => BOX_CELL,
    }
}

fn glyph(cell: usize) -> [u8; 8] {
    match cell {
        0..=127 => font8x8::legacy::BASIC_LEGACY[cell],
        160..=255 => font8x8::legacy::LATIN_LEGACY[cell - 160],
        // An outlined box, like most fonts' missing glyph.
        _ => [0xff, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0xff],
    }
}

/// The atlas texels (one coverage byte per pixel, rows top first).
pub fn atlas() -> Vec<u8> {
    let mut px = vec![0u8; ATLAS * ATLAS];
    for c in 0..256 {
        let g = glyph(c);
        let (cx, cy) = ((c % 16) * 8, (c / 16) * 8);
        for (row, bits) in g.iter().enumerate() {
            for col in 0..8 {
                if bits & (1 << col) != 0 {
                    px[(cy + row) * ATLAS + cx + col] = 255;
                }
            }
        }
    }
    px
}

/// Texture coordinates of an atlas cell: left, top, right, bottom (rows run top first).
pub(super) fn uv(c: usize) -> [f32; 4] {
    let (u0, v0) = ((c % 16) as f32 * 8.0 / ATLAS as f32, (c / 16) as f32 * 8.0 / ATLAS as f32);
    [u0, v0, u0 + 8.0 / ATLAS as f32, v0 + 8.0 / ATLAS as f32]
}

/// Appends the quads of `text` (two triangles a glyph) in screen pixels, starting with the
/// bottom-left of its first glyph at `(x0, y0)`.
fn text_vertices(text: &str, (x0, y0): (f32, f32), color: [f32; 4], out: &mut Vec<f32>) {
    let (mut x, mut y) = (x0, y0);
    let size = GLYPH_ADVANCE;
    for ch in text.chars() {
        if ch == '\n' {
            x = x0;
            y -= size;
            continue;
        }
        if ch != ' ' {
            let [u0, v0, u1, v1] = uv(cell(ch));
            // The atlas rows run top first, so the glyph's top (v0) is at y + size.
            let corners = [(x, y, u0, v1), (x + size, y, u1, v1), (x + size, y + size, u1, v0), (x, y + size, u0, v0)];
            for i in [0, 1, 2, 0, 2, 3] {
                let (px, py, u, v) = corners[i];
                out.extend_from_slice(&[px, py, 0.0, u, v]);
                out.extend_from_slice(&color);
            }
        }
        x += size;
    }
}

/// GPU resources of the overlay; create once per context.
pub struct Overlay {
    program: glow::Program,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    texture: glow::Texture,
    u_viewproj: Option<glow::UniformLocation>,
    u_font: Option<glow::UniformLocation>,
    /// This frame's line vertices, then (after `lines_end`) its text vertices.
    lines: Vec<f32>,
    texts: Vec<f32>,
    /// Label quads, already in normalised device coordinates.
    labels: Vec<f32>,
    /// The vertex bytes uploaded, kept so a frame with text allocates nothing.
    bytes: Vec<u8>,
}

/// A program of the two shaders (`(path, source)` each) and a vertex array over one buffer of
/// [`FLOATS`]-float vertices (position 3, texcoord 2, colour 4): the overlay's layout, which the
/// sprites share.
pub(super) fn quad_pipeline(
    gl: &glow::Context,
    vertex: (&str, &str),
    fragment: (&str, &str),
) -> Result<(glow::Program, glow::VertexArray, glow::Buffer), String> {
    let program = super::debug_draw::link_program(
        gl,
        &[(glow::VERTEX_SHADER, vertex.0, vertex.1), (glow::FRAGMENT_SHADER, fragment.0, fragment.1)],
        &[(0, "position"), (1, "texcoord0"), (2, "color")],
    )?;
    // SAFETY: the context is current; the attribute layout matches `FLOATS`.
    unsafe {
        let vao = gl.create_vertex_array()?;
        let vbo = gl.create_buffer()?;
        gl.bind_vertex_array(Some(vao));
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
        let stride = (FLOATS * 4) as i32;
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 3, glow::FLOAT, false, stride, 0);
        gl.enable_vertex_attrib_array(1);
        gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, stride, 12);
        gl.enable_vertex_attrib_array(2);
        gl.vertex_attrib_pointer_f32(2, 4, glow::FLOAT, false, stride, 20);
        gl.bind_vertex_array(None);
        Ok((program, vao, vbo))
    }
}

impl Overlay {
    pub fn new(gl: &glow::Context) -> Result<Overlay, String> {
        let (program, vao, vbo) =
            quad_pipeline(gl, ("shaders/overlay.vp", VERTEX_SOURCE), ("shaders/overlay.fp", FRAGMENT_SOURCE))?;
        let texels = atlas();
        // SAFETY: the context is current; the texel layout matches the data.
        unsafe {
            let texture = gl.create_texture()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::R8 as i32,
                ATLAS as i32,
                ATLAS as i32,
                0,
                glow::RED,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&texels)),
            );
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE as i32);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE as i32);
            gl.bind_texture(glow::TEXTURE_2D, None);
            let u_viewproj = gl.get_uniform_location(program, "mtx_viewproj");
            let u_font = gl.get_uniform_location(program, "font");
            Ok(Overlay {
                program,
                vao,
                vbo,
                texture,
                u_viewproj,
                u_font,
                lines: Vec::new(),
                texts: Vec::new(),
                labels: Vec::new(),
                bytes: Vec::new(),
            })
        }
    }

    /// Queues a world-space line for the next [`Overlay::draw`].
    pub fn line(&mut self, start: [f32; 3], end: [f32; 3], color: [f32; 4]) {
        for p in [start, end] {
            self.lines.extend_from_slice(&[p[0], p[1], p[2], -1.0, -1.0]);
            self.lines.extend_from_slice(&color);
        }
    }

    /// Queues screen text (pixels from the bottom-left) for the next [`Overlay::draw`].
    pub fn text(&mut self, text: &str, at: (f32, f32), color: [f32; 4]) {
        text_vertices(text, at, color, &mut self.texts);
    }

    /// Queues the list's labels for the next [`Overlay::draw`], seen through its camera in a
    /// `size` pixel window.
    pub fn labels(&mut self, list: &super::DrawList, size: (u32, u32)) {
        super::labels::label_vertices(list, size, &mut self.labels);
    }

    /// Draws what was queued, lines through `view_proj`, labels depth-tested against the scene,
    /// text in a `size` pixel window on top, and empties the queue.
    pub fn draw(&mut self, gl: &glow::Context, view_proj: Mat4, size: (u32, u32)) {
        if self.lines.is_empty() && self.texts.is_empty() && self.labels.is_empty() {
            return;
        }
        let line_vertices = (self.lines.len() / FLOATS) as i32;
        let label_vertices = (self.labels.len() / FLOATS) as i32;
        let text_vertices = (self.texts.len() / FLOATS) as i32;
        self.bytes.clear();
        self.bytes.extend(self.lines.iter().chain(&self.labels).chain(&self.texts).flat_map(|f| f.to_ne_bytes()));
        self.lines.clear();
        self.labels.clear();
        self.texts.clear();
        // Pixels (origin bottom-left) to clip space.
        let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
        let screen = Mat4::from_translation(glam::Vec3::new(-1.0, -1.0, 0.0))
            * Mat4::from_scale(glam::Vec3::new(2.0 / w, 2.0 / h, 1.0));
        // SAFETY: all objects belong to this context; the buffer holds the vertices drawn.
        unsafe {
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.bytes, glow::STREAM_DRAW);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.texture));
            gl.uniform_1_i32(self.u_font.as_ref(), 0);
            gl.disable(glow::CULL_FACE);
            // Lines and text are on top of everything (gameplay.md section 3): a bone line inside
            // a body must show.
            gl.disable(glow::DEPTH_TEST);
            if line_vertices > 0 {
                gl.uniform_matrix_4_f32_slice(self.u_viewproj.as_ref(), false, &view_proj.to_cols_array());
                gl.draw_arrays(glow::LINES, 0, line_vertices);
            }
            if label_vertices > 0 {
                // In the scene (hidden behind what is nearer than the label's point), but never
                // hiding each other or writing depth; the text over its outline by draw order.
                gl.uniform_matrix_4_f32_slice(self.u_viewproj.as_ref(), false, &Mat4::IDENTITY.to_cols_array());
                gl.enable(glow::DEPTH_TEST);
                gl.depth_func(glow::LEQUAL);
                gl.depth_mask(false);
                gl.enable(glow::BLEND);
                gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
                gl.draw_arrays(glow::TRIANGLES, line_vertices, label_vertices);
                gl.disable(glow::BLEND);
                gl.depth_mask(true);
                gl.depth_func(glow::LESS);
                gl.disable(glow::DEPTH_TEST);
            }
            if text_vertices > 0 {
                gl.uniform_matrix_4_f32_slice(self.u_viewproj.as_ref(), false, &screen.to_cols_array());
                gl.draw_arrays(glow::TRIANGLES, line_vertices + label_vertices, text_vertices);
            }
            gl.enable(glow::DEPTH_TEST);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.bind_vertex_array(None);
            gl.use_program(None);
        }
    }

    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: objects were created on `gl` and are not used after this.
        unsafe {
            gl.delete_program(self.program);
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
            gl.delete_texture(self.texture);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_map_to_their_cells_and_unknown_ones_to_the_box() {
        assert_eq!(cell('A'), 65);
        assert_eq!(cell('é'), 0xe9);
        assert_eq!(cell('€'), BOX_CELL);
        assert_eq!(glyph(BOX_CELL)[0], 0xff);
        let a = atlas();
        // 'A' has ink; the space does not.
        let ink = |c: usize| (0..8).any(|r| (0..8).any(|x| a[((c / 16) * 8 + r) * ATLAS + (c % 16) * 8 + x] != 0));
        assert!(ink(65) && ink(BOX_CELL) && !ink(32));
    }

    #[test]
    fn text_lays_out_left_to_right_and_down_on_newlines() {
        let mut v = Vec::new();
        text_vertices("ab\nc d", (10.0, 100.0), [1.0; 4], &mut v);
        // a, b, c, d: 4 glyphs of 6 vertices (the space draws nothing).
        assert_eq!(v.len(), 4 * 6 * FLOATS);
        let x_of = |glyph: usize| v[glyph * 6 * FLOATS];
        let y_of = |glyph: usize| v[glyph * 6 * FLOATS + 1];
        assert_eq!((x_of(0), x_of(1)), (10.0, 10.0 + GLYPH_ADVANCE));
        assert_eq!((x_of(2), y_of(2)), (10.0, 100.0 - GLYPH_ADVANCE));
        assert_eq!(x_of(3), 10.0 + 2.0 * GLYPH_ADVANCE);
    }
}
