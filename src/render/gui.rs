//! Draws the GUI draw list (`game::gui`, passed in as plain slices) on top of everything, in
//! screen pixels, independent of the camera: one call per batch, images uploaded once per file,
//! the GUI glyph atlas uploaded when it changed, clipping through the stencil buffer.
//!
//! A batch with a project material (a node's `material`) is drawn with its program, fed as
//! Defold feeds its GUI materials: attributes `position` (screen pixels), `texcoord0` and
//! `color` (the node's, straight alpha: Defold's `gui.vp` premultiplies it), `view_proj` (or
//! any VIEWPROJ constant) mapping pixels to the screen, the node's texture (white without one)
//! on every `sampler2D`, Defold's premultiplied blending. Its texture coordinates run up the
//! screen as Defold's do (v = 0 at the bottom of a box), so the images such batches sample are
//! uploaded a second time, bottom row first.
use super::material::Material;
use super::program::FrameValues;
use crate::project::font::atlas::{ATLAS_SIZE, GlyphAtlas};
/// Floats per GUI vertex: position (3), texture coordinates (2), colour (4).
use crate::project::font::quads::FLOATS;
use crate::project::gui::GuiImage;
use glam::Mat4;
use glow::HasContext;
use std::collections::HashMap;

const VERTEX_SOURCE: &str = include_str!("../../shaders/gui.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/gui.fp");

/// What one batch draws with (the game's `GuiBatch`, without the game's types).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuiCall {
    /// 0 the vertex colour, 1 the glyph atlas, 2 `image`.
    pub mode: i32,
    pub image: u32,
    pub first: u32,
    pub count: u32,
    pub stencil_test: u8,
    pub stencil_write: Option<u8>,
    pub additive: bool,
    /// A compiled material's index (see the module doc).
    pub material: Option<u32>,
}

pub struct GuiRenderer {
    program: glow::Program,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    glyphs: glow::Texture,
    u_viewproj: Option<glow::UniformLocation>,
    u_texture: Option<glow::UniformLocation>,
    u_mode: Option<glow::UniformLocation>,
    /// Image path → texture, and the pixels it was made from: a hot reload hands new pixels
    /// under the same path (a saved image, a repacked atlas), which are uploaded again. Holding
    /// the old pixels keeps their address from being reused by the new ones.
    images: ImageCache,
    /// The glyph atlas version in `glyphs`.
    glyphs_version: u64,
    bytes: Vec<u8>,
    /// Project materials: a vertex array whose attribute locations are set per batch, the
    /// vertices with v flipped, the uniform buffer their blocks go to, a white texture for
    /// nodes without one, and images uploaded bottom row first (see the module doc).
    custom_vao: glow::VertexArray,
    custom_vbo: glow::Buffer,
    custom_bytes: Vec<u8>,
    ubo: glow::Buffer,
    block_bytes: Vec<u8>,
    white: glow::Texture,
    flipped: ImageCache,
}

/// A texture with linear filtering and clamped edges.
pub(super) unsafe fn texture(
    gl: &glow::Context,
    w: i32,
    h: i32,
    format: u32,
    internal: u32,
    data: &[u8],
) -> Result<glow::Texture, String> {
    // SAFETY: the caller holds the context current; `data` is w × h texels of `format`.
    unsafe {
        let t = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            w,
            h,
            0,
            format,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(data)),
        );
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::LINEAR as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::LINEAR as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE as i32);
        Ok(t)
    }
}

/// Texture caches by image path, each entry with the pixels it was made from.
type ImageCache = HashMap<String, (glow::Texture, std::sync::Arc<Vec<u8>>)>;

/// Uploads `texels` (`img`'s size, RGBA) as `img`'s texture in `cache`, deleting the one it
/// replaces; a failed upload is logged and leaves the old one.
fn cache_image(gl: &glow::Context, cache: &mut ImageCache, img: &GuiImage, texels: &[u8]) -> Option<glow::Texture> {
    // SAFETY: the context is current; `texels` is the image's width × height RGBA texels.
    unsafe {
        match texture(gl, img.width as i32, img.height as i32, glow::RGBA, glow::RGBA8, texels) {
            Ok(t) => {
                if let Some((old, _)) = cache.insert(img.path.clone(), (t, img.rgba.clone())) {
                    gl.delete_texture(old);
                }
                Some(t)
            }
            Err(e) => {
                log::error!("gui: {}: {e}", img.path);
                None
            }
        }
    }
}

impl GuiRenderer {
    pub fn new(gl: &glow::Context) -> Result<GuiRenderer, String> {
        // The overlay's vertex layout (text quads come from the same font code).
        let (program, vao, vbo) =
            super::overlay::quad_pipeline(gl, ("shaders/gui.vp", VERTEX_SOURCE), ("shaders/gui.fp", FRAGMENT_SOURCE))?;
        let empty = vec![0u8; ATLAS_SIZE * ATLAS_SIZE];
        // SAFETY: the context is current.
        unsafe {
            let glyphs = texture(gl, ATLAS_SIZE as i32, ATLAS_SIZE as i32, glow::RED, glow::R8, &empty)?;
            let white = texture(gl, 1, 1, glow::RGBA, glow::RGBA8, &[255; 4])?;
            Ok(GuiRenderer {
                custom_vao: gl.create_vertex_array()?,
                custom_vbo: gl.create_buffer()?,
                custom_bytes: Vec::new(),
                ubo: gl.create_buffer()?,
                block_bytes: Vec::new(),
                white,
                flipped: HashMap::new(),
                u_viewproj: gl.get_uniform_location(program, "mtx_viewproj"),
                u_texture: gl.get_uniform_location(program, "texture_sampler"),
                u_mode: gl.get_uniform_location(program, "mode"),
                program,
                vao,
                vbo,
                glyphs,
                images: HashMap::new(),
                glyphs_version: 0,
                bytes: Vec::new(),
            })
        }
    }

    /// Uploads the images and glyphs that changed since the last frame.
    fn upload(&mut self, gl: &glow::Context, images: &[GuiImage], atlas: &GlyphAtlas) {
        // SAFETY: every object belongs to this context.
        unsafe {
            for img in images {
                let current = self.images.get(&img.path).is_some_and(|(_, px)| std::sync::Arc::ptr_eq(px, &img.rgba));
                if !current {
                    cache_image(gl, &mut self.images, img, &img.rgba);
                }
            }
            if atlas.version() != self.glyphs_version {
                self.glyphs_version = atlas.version();
                gl.active_texture(glow::TEXTURE0);
                // A new texture, not the old one changed in place (see `overlay::atlas_texture`).
                match super::overlay::atlas_texture(gl, atlas) {
                    Ok(t) => gl.delete_texture(std::mem::replace(&mut self.glyphs, t)),
                    Err(e) => log::error!("gui: glyph atlas: {e}"),
                }
            }
        }
    }

    /// `img` uploaded bottom row first, once per pixels.
    fn flipped_image(&mut self, gl: &glow::Context, img: &GuiImage) -> Option<glow::Texture> {
        if let Some((t, px)) = self.flipped.get(&img.path)
            && std::sync::Arc::ptr_eq(px, &img.rgba)
        {
            return Some(*t);
        }
        let row = img.width as usize * 4;
        let rows: Vec<u8> =
            if row == 0 { Vec::new() } else { img.rgba.chunks_exact(row).rev().flatten().copied().collect() };
        cache_image(gl, &mut self.flipped, img, &rows)
    }

    /// One batch with a project material (see the module doc); the built-in program is
    /// current again afterwards.
    fn draw_custom(
        &mut self,
        gl: &glow::Context,
        material: &Material,
        frame: &FrameValues,
        c: &GuiCall,
        images: &[GuiImage],
    ) {
        let tex = match c.mode {
            2 => images.get(c.image as usize).and_then(|i| self.flipped_image(gl, i)),
            _ => None,
        }
        .unwrap_or(self.white);
        material.use_for_quads(gl, frame, &[], self.ubo, &mut self.block_bytes);
        let p = material.program();
        let stride = (FLOATS * 4) as i32;
        // SAFETY: every object belongs to this context; the buffer holds every vertex drawn.
        unsafe {
            for (slot, sampler) in p.samplers.iter().zip(&material.sampler_objects) {
                if slot.array {
                    continue;
                }
                gl.active_texture(glow::TEXTURE0 + slot.unit);
                gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                gl.bind_sampler(slot.unit, *sampler);
            }
            gl.bind_vertex_array(Some(self.custom_vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.custom_vbo));
            material.point_quad_attributes(gl, stride);
            if c.additive {
                gl.blend_func(glow::ONE, glow::ONE);
            } else {
                gl.blend_func(glow::ONE, glow::ONE_MINUS_SRC_ALPHA);
            }
            gl.draw_arrays(glow::TRIANGLES, c.first as i32, c.count as i32);
            for (slot, sampler) in p.samplers.iter().zip(&material.sampler_objects) {
                if sampler.is_some() {
                    gl.bind_sampler(slot.unit, None);
                }
            }
            gl.active_texture(glow::TEXTURE0);
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
        }
    }

    /// Draws `vertices` by `calls` on a `size` pixel screen, over whatever is there;
    /// `material` finds a compiled project material by index (a batch whose material is
    /// missing or failed to compile draws built-in), `frame` is the world's frame (time, lights
    /// for the materials that read them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn draw<'m>(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        vertices: &[f32],
        calls: &[GuiCall],
        images: &[GuiImage],
        atlas: &GlyphAtlas,
        material: &dyn Fn(u32) -> Option<&'m Material>,
        frame: &FrameValues,
    ) {
        if calls.is_empty() {
            return;
        }
        self.upload(gl, images, atlas);
        let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
        let screen = Mat4::from_translation(glam::Vec3::new(-1.0, -1.0, 0.0))
            * Mat4::from_scale(glam::Vec3::new(2.0 / w, 2.0 / h, 1.0));
        self.bytes.clear();
        self.bytes.extend(vertices.iter().flat_map(|f| f.to_ne_bytes()));
        let custom = calls.iter().any(|c| c.material.and_then(material).is_some());
        let gui_frame =
            custom.then(|| FrameValues { view: Mat4::IDENTITY, proj: screen, viewproj: screen, ..frame.clone() });
        if custom {
            self.custom_bytes.clear();
            for v in vertices.chunks_exact(FLOATS) {
                for (k, f) in v.iter().enumerate() {
                    // Texture coordinates' v (the fifth float) runs up the screen.
                    let f = if k == 4 { 1.0 - f } else { *f };
                    self.custom_bytes.extend(f.to_ne_bytes());
                }
            }
            // SAFETY: the buffer belongs to this context.
            unsafe {
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.custom_vbo));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.custom_bytes, glow::STREAM_DRAW);
            }
        }
        // SAFETY: every object belongs to this context; the buffer holds every vertex drawn.
        unsafe {
            gl.active_texture(glow::TEXTURE0);
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.bytes, glow::STREAM_DRAW);
            gl.uniform_matrix_4_f32_slice(self.u_viewproj.as_ref(), false, &screen.to_cols_array());
            gl.uniform_1_i32(self.u_texture.as_ref(), 0);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            gl.enable(glow::BLEND);
            let clipping = calls.iter().any(|c| c.stencil_write.is_some());
            if clipping {
                gl.clear_stencil(0);
                gl.stencil_mask(0xff);
                gl.clear(glow::STENCIL_BUFFER_BIT);
            }
            for c in calls {
                match c.stencil_write {
                    Some(r) => {
                        // Where the stencil holds the parent's value p, make it r: INVERT
                        // through a write mask of p ^ r turns p into r in one pass.
                        gl.enable(glow::STENCIL_TEST);
                        gl.stencil_func(glow::EQUAL, i32::from(c.stencil_test), 0xff);
                        gl.stencil_op(glow::KEEP, glow::KEEP, glow::INVERT);
                        gl.stencil_mask(u32::from(c.stencil_test ^ r));
                        gl.color_mask(false, false, false, false);
                    }
                    None if c.stencil_test > 0 => {
                        gl.enable(glow::STENCIL_TEST);
                        gl.stencil_func(glow::EQUAL, i32::from(c.stencil_test), 0xff);
                        gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
                        gl.stencil_mask(0x00);
                        gl.color_mask(true, true, true, true);
                    }
                    None => {
                        gl.disable(glow::STENCIL_TEST);
                        gl.color_mask(true, true, true, true);
                    }
                }
                if c.stencil_write.is_none()
                    && let (Some(m), Some(f)) = (c.material.and_then(material), &gui_frame)
                {
                    self.draw_custom(gl, m, f, c, images);
                    continue;
                }
                if c.additive {
                    gl.blend_func(glow::SRC_ALPHA, glow::ONE);
                } else {
                    gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
                }
                let tex = match c.mode {
                    1 => Some(self.glyphs),
                    2 => images.get(c.image as usize).and_then(|i| self.images.get(&i.path)).map(|(t, _)| *t),
                    _ => None,
                };
                let mode = if c.mode == 2 && tex.is_none() { 0 } else { c.mode };
                gl.uniform_1_i32(self.u_mode.as_ref(), mode);
                gl.bind_texture(glow::TEXTURE_2D, tex);
                gl.draw_arrays(glow::TRIANGLES, c.first as i32, c.count as i32);
            }
            gl.disable(glow::STENCIL_TEST);
            gl.stencil_mask(0xff);
            gl.color_mask(true, true, true, true);
            gl.disable(glow::BLEND);
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
            gl.delete_texture(self.glyphs);
            gl.delete_texture(self.white);
            gl.delete_vertex_array(self.custom_vao);
            gl.delete_buffer(self.custom_vbo);
            gl.delete_buffer(self.ubo);
            for (t, _) in self.images.into_values().chain(self.flipped.into_values()) {
                gl.delete_texture(t);
            }
        }
    }
}
