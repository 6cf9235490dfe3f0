//! The overlay Defold's render script draws on top of the scene: `draw_text` (screen pixels
//! from the bottom-left, the built-in TrueType face at the message's `size`) and `draw_line`
//! (world space), one frame each, and the label components of the draw list (`labels`), all
//! text through one glyph atlas (`project::font::atlas`) that grows with the glyphs drawn.
use crate::project::font::atlas::{ATLAS_SIZE, GlyphAtlas};
use crate::project::font::quads::{FLOATS, TextEffects, push_text};
use crate::project::font::{Face, TextStyle};
use glam::Mat4;
use glow::HasContext;
use std::sync::Arc;

const VERTEX_SOURCE: &str = include_str!("../../shaders/overlay.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/overlay.fp");

/// A `draw_text` of this frame, laid out when drawn.
struct QueuedText {
    text: String,
    at: (f32, f32),
    color: [f32; 4],
    size: f32,
}

/// Appends the quads of `text` in screen pixels: `(x0, y0)` is the bottom-left of its first
/// line (its descent), further lines go down. False when the atlas was emptied meanwhile.
fn text_vertices(atlas: &mut GlyphAtlas, face: &Face, t: &QueuedText, out: &mut Vec<f32>) -> bool {
    let layout = face.layout(&t.text, &TextStyle::sized(t.size));
    let (ascent, descent) = face.ascent_descent(t.size);
    // Whole pixels, so the text stays as crisp as its rasterisation.
    let (left, top) = (t.at.0.round(), (t.at.1 + ascent + descent).round());
    let mut place = |x: f32, y: f32| [left + x, top + y, 0.0];
    push_text(atlas, face, &layout, t.size, [1.0; 2], &TextEffects::plain(t.color), &mut place, out)
}

/// A new `ATLAS_SIZE`² R8 texture holding `atlas`, linear and clamped.
///
/// The atlas is uploaded into a new texture each time glyphs are added, never into the old one:
/// llvmpipe draws asynchronously, and changing a texture in place waits until every queued
/// frame that samples it is drawn. A headless run queues frames without bound, so a HUD clock's
/// new digit stalled the demo for 4 seconds (60 frames' drawing) once a second; a new texture
/// waits for nothing. It happens only when a glyph is first drawn.
///
/// # Safety
/// The context is current; the binding of `TEXTURE_2D` is left changed.
pub(super) unsafe fn atlas_texture(gl: &glow::Context, atlas: &GlyphAtlas) -> Result<glow::Texture, String> {
    let size = ATLAS_SIZE as i32;
    // SAFETY: see the function's contract; the texels are ATLAS_SIZE² bytes.
    unsafe { super::gui::texture(gl, size, size, glow::RED, glow::R8, atlas.texels()) }
}

/// GPU resources of the overlay; create once per context.
pub struct Overlay {
    program: glow::Program,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    texture: glow::Texture,
    u_viewproj: Option<glow::UniformLocation>,
    u_font: Option<glow::UniformLocation>,
    /// This frame's line vertices.
    lines: Vec<f32>,
    /// This frame's `draw_text`s, and their quads once laid out.
    queued: Vec<QueuedText>,
    texts: Vec<f32>,
    /// Label quads, already in normalised device coordinates.
    labels: Vec<f32>,
    /// Every glyph drawn, uploaded to `texture` when it changed.
    atlas: GlyphAtlas,
    /// The atlas generation this frame's first quads were made in (see [`push_text`]).
    frame_generation: Option<u32>,
    stale: bool,
    face: Arc<Face>,
    /// The vertex bytes uploaded, kept so a frame with text allocates nothing.
    bytes: Vec<u8>,
}

/// A program of the two shaders (`(path, source)` each) and a vertex array over one buffer of
/// [`FLOATS`]-float vertices (position 3, texcoord 2, colour 4): the overlay's layout, which the
/// sprites and the GUI share.
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
        let atlas = GlyphAtlas::default();
        // SAFETY: the context is current; the texel layout matches the data.
        unsafe {
            let texture = atlas_texture(gl, &atlas)?;
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
                queued: Vec::new(),
                texts: Vec::new(),
                labels: Vec::new(),
                atlas,
                frame_generation: None,
                stale: false,
                face: Face::default_face(),
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

    /// Queues screen text (pixels from the bottom-left, `size` pixels per em) for the next
    /// [`Overlay::draw`].
    pub fn text(&mut self, text: &str, at: (f32, f32), color: [f32; 4], size: f32) {
        self.queued.push(QueuedText { text: text.to_string(), at, color, size });
    }

    /// Queues the list's labels for the next [`Overlay::draw`], seen through its camera in a
    /// `size` pixel window.
    pub fn labels(&mut self, list: &super::DrawList, size: (u32, u32)) {
        self.frame_generation.get_or_insert(self.atlas.generation());
        let fresh = super::labels::label_vertices(list, size, &mut self.atlas, &self.face, &mut self.labels);
        self.stale |= !fresh;
    }

    /// Draws what was queued, lines through `view_proj`, labels depth-tested against the scene,
    /// text in a `size` pixel window on top, and empties the queue.
    pub fn draw(&mut self, gl: &glow::Context, view_proj: Mat4, size: (u32, u32)) {
        self.frame_generation.get_or_insert(self.atlas.generation());
        for t in std::mem::take(&mut self.queued) {
            self.stale |= !text_vertices(&mut self.atlas, &self.face, &t, &mut self.texts);
        }
        // The atlas filled up and was emptied while this frame's quads were made: some point
        // at texels that are gone. Their text is left out of this one frame (the next lays it
        // out again) rather than drawn as other glyphs.
        if self.stale || self.frame_generation != Some(self.atlas.generation()) {
            warn_stale();
            self.texts.clear();
            self.labels.clear();
        }
        self.stale = false;
        self.frame_generation = None;
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
            if self.atlas.take_dirty() {
                match atlas_texture(gl, &self.atlas) {
                    Ok(t) => gl.delete_texture(std::mem::replace(&mut self.texture, t)),
                    Err(e) => log::error!("overlay: glyph atlas: {e}"),
                }
            }
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
                gl.enable(glow::BLEND);
                gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
                gl.draw_arrays(glow::TRIANGLES, line_vertices + label_vertices, text_vertices);
                gl.disable(glow::BLEND);
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

#[cold]
fn warn_stale() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED
        .call_once(|| log::warn!("text: one frame's glyphs overflowed the glyph atlas; that frame's text is left out"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lays_out_left_to_right_and_down_on_newlines() {
        let face = Face::default_face();
        let mut atlas = GlyphAtlas::default();
        let mut v = Vec::new();
        let t = QueuedText { text: "ab\nc d".into(), at: (10.0, 100.0), color: [1.0; 4], size: 32.0 };
        assert!(text_vertices(&mut atlas, &face, &t, &mut v));
        // a, b, c, d: 4 glyphs of 6 vertices (the space draws nothing).
        assert_eq!(v.len(), 4 * 6 * FLOATS);
        let x_of = |glyph: usize| v[glyph * 6 * FLOATS];
        let y_of = |glyph: usize| v[glyph * 6 * FLOATS + 1];
        // b right of a by about a's advance; c under a, one line down; d right of c.
        let advance = face.advance(face.glyph('a'), 32.0);
        assert!((x_of(1) - x_of(0) - advance).abs() < 3.0, "{} {}", x_of(0), x_of(1));
        assert!((x_of(2) - x_of(0)).abs() < 1.0);
        assert!((y_of(0) - y_of(2) - face.line_height(32.0)).abs() < 2.0);
        assert!(x_of(3) > x_of(2) + advance);
        // The first line sits just above y0: its baseline at y0 + descent, its glyphs within
        // the line.
        let (_, descent) = face.ascent_descent(32.0);
        assert!((y_of(0) - (100.0 + descent).round()).abs() <= 2.5, "{}", y_of(0));
        // A bigger size: a wider text.
        let mut w = Vec::new();
        let big = QueuedText { size: 64.0, ..t };
        assert!(text_vertices(&mut atlas, &face, &big, &mut w));
        assert!(w[6 * FLOATS] - w[0] > 1.8 * (x_of(1) - x_of(0)));
    }
}
