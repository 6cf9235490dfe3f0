//! Drawing the game's sprite quads: sorted back to front by view depth (z in a 2D view), then
//! by material, page and blend mode, so sprites at one depth batch; one draw call per run of
//! quads sharing material (and its constants), page and blend mode, nearest filtering
//! (pixel-exact at scale 1 under the screen camera), Defold's blend factors.
//!
//! A sprite with a custom material is drawn with that material's program, fed as Defold feeds
//! its sprite materials: attributes `position` (world space), `texcoord0` (page coordinates),
//! `page_index` (always 0: one page per atlas) and Sinew's `color` (the tint), the page on every
//! `sampler2D` it declares (`texture_sampler` in Defold's) but those the sprite names another
//! texture for (Defold's several `textures`, by sampler), and its uniforms by the model
//! contract of `render::program` (`mtx_viewproj`, `mtx_view`, `mtx_proj`, constants such as
//! `tint` from the sprite, then the material's defaults), plain or in uniform blocks.
use super::material::Material;
use super::program::FrameValues;
use crate::base::hash::{Hash, hash_remembered};
use crate::game::sprites::SpriteWorld;
use crate::game::sprites::quads::SpriteQuad;
use crate::project::sprite::{Atlas, BlendMode};
use glam::Mat4;
use glow::HasContext;
use std::sync::Arc;

const VERTEX_SOURCE: &str = include_str!("../../shaders/sprite.vp");
const FRAGMENT_SOURCE: &str = include_str!("../../shaders/sprite.fp");

pub struct SpriteRenderer {
    program: glow::Program,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    u_viewproj: Option<glow::UniformLocation>,
    u_texture: Option<glow::UniformLocation>,
    /// A page per atlas index, with the atlas it was made from (a reloaded atlas is a new one).
    pages: Vec<Option<(Arc<Atlas>, glow::Texture)>>,
    order: Vec<(f32, u32)>,
    vertices: Vec<f32>,
    bytes: Vec<u8>,
    /// Custom materials: a vertex array whose attribute locations are set per run (each
    /// program has its own), the uniform buffer their blocks are written to, and scratch.
    custom_vao: glow::VertexArray,
    ubo: glow::Buffer,
    block_bytes: Vec<u8>,
    overrides: Vec<(Hash, [f32; 4])>,
    /// Per vertex, in drawing order, what only some custom materials read: the position in its
    /// sprite's own pixels (2 floats) and the texture transform's three columns (9 floats), made
    /// and uploaded only in frames where such a material draws.
    extra_vbo: glow::Buffer,
    extra_bytes: Vec<u8>,
    /// The pages' GL min and mag filters (the project's `texture_filter`).
    filters: (i32, i32),
}

/// Sort key of the order quads are drawn in, and the runs that make one draw call.
fn batch_key(q: &SpriteQuad) -> (Hash, u64, u32, BlendMode) {
    (q.material, q.constants_key, q.atlas, q.blend)
}

/// Indexes of `quads` in drawing order: farthest first (by view-space depth of the centre),
/// ties by material, page and blend mode, then as listed.
pub fn draw_order(quads: &[SpriteQuad], view: Mat4, out: &mut Vec<(f32, u32)>) {
    out.clear();
    out.extend(quads.iter().enumerate().map(|(i, q)| {
        let centre = (q.corners[0] + q.corners[2]) * 0.5;
        (view.transform_point3(centre).z, i as u32)
    }));
    out.sort_by(|a, b| {
        let (qa, qb) = (&quads[a.1 as usize], &quads[b.1 as usize]);
        a.0.total_cmp(&b.0).then_with(|| batch_key(qa).cmp(&batch_key(qb))).then(a.1.cmp(&b.1))
    });
}

/// How many draw calls `order` takes: one per run of equal page and blend mode.
pub fn count_batches(quads: &[SpriteQuad], order: &[(f32, u32)]) -> u32 {
    let mut n = 0;
    let mut last = None;
    for &(_, i) in order {
        let k = batch_key(&quads[i as usize]);
        if last != Some(k) {
            n += 1;
            last = Some(k);
        }
    }
    n
}

fn blend(gl: &glow::Context, b: BlendMode) {
    let (src, dst) = match b {
        BlendMode::Alpha => (glow::ONE, glow::ONE_MINUS_SRC_ALPHA),
        BlendMode::Add => (glow::ONE, glow::ONE),
        BlendMode::Multiply => (glow::DST_COLOR, glow::ONE_MINUS_SRC_ALPHA),
        BlendMode::Screen => (glow::ONE_MINUS_DST_COLOR, glow::ONE),
    };
    // SAFETY: plain state on the current context.
    unsafe { gl.blend_func(src, dst) };
}

impl SpriteRenderer {
    pub fn new(gl: &glow::Context) -> Result<SpriteRenderer, String> {
        let (program, vao, vbo) = super::overlay::quad_pipeline(
            gl,
            ("shaders/sprite.vp", VERTEX_SOURCE),
            ("shaders/sprite.fp", FRAGMENT_SOURCE),
        )?;
        // SAFETY: the context is current and `program` was made on it.
        let (u_viewproj, u_texture) = unsafe {
            (gl.get_uniform_location(program, "mtx_viewproj"), gl.get_uniform_location(program, "texture_sampler"))
        };
        // SAFETY: plain object creation on the current context.
        let (custom_vao, ubo, extra_vbo) =
            unsafe { (gl.create_vertex_array()?, gl.create_buffer()?, gl.create_buffer()?) };
        Ok(SpriteRenderer {
            program,
            vao,
            vbo,
            u_viewproj,
            u_texture,
            pages: Vec::new(),
            order: Vec::new(),
            vertices: Vec::new(),
            bytes: Vec::new(),
            custom_vao,
            ubo,
            block_bytes: Vec::new(),
            overrides: Vec::new(),
            extra_vbo,
            extra_bytes: Vec::new(),
            filters: (glow::NEAREST as i32, glow::NEAREST as i32),
        })
    }

    /// The page of atlas `i`, uploaded when first drawn or when the atlas was replaced.
    fn page(&mut self, gl: &glow::Context, i: usize, atlas: &Arc<Atlas>) -> Option<glow::Texture> {
        if self.pages.len() <= i {
            self.pages.resize_with(i + 1, || None);
        }
        if let Some((a, t)) = &self.pages[i]
            && Arc::ptr_eq(a, atlas)
        {
            return Some(*t);
        }
        // SAFETY: the context is current; the page holds width x height RGBA8 texels.
        let t = unsafe {
            if let Some((_, old)) = self.pages[i].take() {
                gl.delete_texture(old);
            }
            let t = gl.create_texture().ok()?;
            gl.bind_texture(glow::TEXTURE_2D, Some(t));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                atlas.width as i32,
                atlas.height as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(&atlas.rgba)),
            );
            for (k, v) in [
                (glow::TEXTURE_MIN_FILTER, self.filters.0),
                (glow::TEXTURE_MAG_FILTER, self.filters.1),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE as i32),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE as i32),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, k, v);
            }
            // The built-in program samples level 0 (nearest); a custom material's sampler whose
            // filter is left to the default (Defold's FILTER_MODE_MIN_DEFAULT) reads mipmaps, and
            // without them the texture is incomplete and samples black.
            let size = (atlas.width, atlas.height);
            super::mipmap::upload_levels(gl, glow::TEXTURE_2D, glow::TEXTURE_2D, glow::RGBA8, size, &atlas.rgba, false);
            t
        };
        self.pages[i] = Some((atlas.clone(), t));
        Some(t)
    }

    /// Samples every page (made or to be made) with `filter` from now on: the project's
    /// setting, read again when the settings are saved.
    pub fn set_filter(&mut self, gl: &glow::Context, filter: crate::project::TextureFilter) {
        let filters = (filter.min.gl().0, filter.mag.magnifying().gl().1);
        if filters == self.filters {
            return;
        }
        self.filters = filters;
        // SAFETY: the pages were made on this context.
        unsafe {
            for (_, t) in self.pages.iter().flatten() {
                gl.bind_texture(glow::TEXTURE_2D, Some(*t));
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, filters.0);
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, filters.1);
            }
        }
    }

    /// Draws `quads` (pages from the world's atlases, constants from its sprites) through the
    /// model renderer's frame (camera, time, and the lights a custom material may read, so lit
    /// sprites see the scene's light components); `material` finds a compiled custom material by index (a quad whose
    /// material is missing or failed to compile is skipped, as a model's is). Returns the draw
    /// calls.
    pub(crate) fn draw<'m>(
        &mut self,
        gl: &glow::Context,
        quads: &[SpriteQuad],
        world: &SpriteWorld,
        material: &dyn Fn(u32) -> Option<&'m Material>,
        frame: &FrameValues,
    ) -> u32 {
        let (view, proj) = (frame.view, frame.proj);
        let atlases = &world.atlases;
        if quads.is_empty() {
            return 0;
        }
        let mut order = std::mem::take(&mut self.order);
        draw_order(quads, view, &mut order);
        self.vertices.clear();
        for &(_, i) in &order {
            let q = &quads[i as usize];
            let [l, t, r, b] = q.uv;
            let uv = [[l, b], [r, b], [r, t], [l, t]];
            for k in [0, 1, 2, 0, 2, 3] {
                self.vertices.extend_from_slice(&q.corners[k].to_array());
                self.vertices.extend_from_slice(&uv[k]);
                self.vertices.extend_from_slice(&q.color);
            }
        }
        self.bytes.clear();
        self.bytes.extend(self.vertices.iter().flat_map(|f| f.to_ne_bytes()));
        let wants_extras =
            |q: &SpriteQuad| q.material_index.and_then(material).is_some_and(Material::reads_quad_extras);
        if quads.iter().any(wants_extras) {
            self.extra_bytes.clear();
            for &(_, i) in &order {
                let q = &quads[i as usize];
                let [x0, y0, x1, y1] = q.local;
                let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
                let transform = texture_transform(q.uv);
                for k in [0, 1, 2, 0, 2, 3] {
                    let floats = corners[k].iter().chain(&transform);
                    self.extra_bytes.extend(floats.flat_map(|f| f.to_ne_bytes()));
                }
            }
            // SAFETY: the buffer belongs to this context.
            unsafe {
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.extra_vbo));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.extra_bytes, glow::STREAM_DRAW);
            }
        }
        let mut calls = 0;
        // SAFETY: all objects belong to this context; the buffer holds the vertices drawn.
        unsafe {
            gl.use_program(Some(self.program));
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &self.bytes, glow::STREAM_DRAW);
            gl.uniform_matrix_4_f32_slice(self.u_viewproj.as_ref(), false, &(proj * view).to_cols_array());
            gl.uniform_1_i32(self.u_texture.as_ref(), 0);
            gl.active_texture(glow::TEXTURE0);
            gl.disable(glow::CULL_FACE);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LEQUAL);
            gl.depth_mask(false);
            gl.enable(glow::BLEND);
            let mut start = 0usize;
            while start < order.len() {
                let first = &quads[order[start].1 as usize];
                let key = batch_key(first);
                let mut end = start + 1;
                while end < order.len() && batch_key(&quads[order[end].1 as usize]) == key {
                    end += 1;
                }
                if let Some(atlas) = atlases.get(first.atlas as usize)
                    && let Some(tex) = self.page(gl, first.atlas as usize, atlas)
                {
                    let range = ((start * 6) as i32, ((end - start) * 6) as i32);
                    blend(gl, first.blend);
                    match first.material_index {
                        None => {
                            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
                            gl.draw_arrays(glow::TRIANGLES, range.0, range.1);
                            calls += 1;
                        }
                        Some(m) => {
                            if let Some(material) = material(m) {
                                let s = world.instances.get(first.sprite as usize);
                                self.draw_custom(gl, material, s, (tex, atlases), frame, range);
                                calls += 1;
                            }
                            // Back to the built-in program for the next run.
                            gl.use_program(Some(self.program));
                            gl.bind_vertex_array(Some(self.vao));
                            gl.active_texture(glow::TEXTURE0);
                        }
                    }
                }
                start = end;
            }
            gl.disable(glow::BLEND);
            gl.depth_mask(true);
            gl.depth_func(glow::LESS);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.bind_vertex_array(None);
            gl.use_program(None);
        }
        self.order = order;
        calls
    }

    /// One run of quads with a custom material's program (see the module doc for what it is
    /// fed). The vertex buffer holds this frame's quads in drawing order.
    fn draw_custom(
        &mut self,
        gl: &glow::Context,
        material: &Material,
        sprite: Option<&crate::game::sprites::SpriteInstance>,
        (page, atlases): (glow::Texture, &[Arc<Atlas>]),
        frame: &FrameValues,
        (first, count): (i32, i32),
    ) {
        let p = material.program();
        self.overrides.clear();
        if let Some(s) = sprite {
            self.overrides.push((tint_hash(), s.tint));
            self.overrides.extend_from_slice(&s.constants);
        }
        material.use_for_quads(gl, frame, &self.overrides, self.ubo, &mut self.block_bytes);
        let stride = (FLOATS_PER_VERTEX * 4) as i32;
        // SAFETY: the context is current (as for every renderer call); every object belongs to
        // it and the vertex buffer holds `first + count` vertices.
        unsafe {
            // The sprite's further pages uploaded first: an upload binds on the active unit.
            for &(_, i) in sprite.map_or(&[][..], |s| &s.textures) {
                if let Some(a) = atlases.get(i as usize) {
                    self.page(gl, i as usize, a);
                }
            }
            for (slot, sampler) in p.samplers.iter().zip(&material.sampler_objects) {
                if slot.array {
                    continue;
                }
                let named = sprite.and_then(|s| s.textures.iter().find(|(h, _)| *h == slot.hash));
                let own = named.and_then(|&(_, i)| self.page(gl, i as usize, atlases.get(i as usize)?));
                gl.active_texture(glow::TEXTURE0 + slot.unit);
                gl.bind_texture(glow::TEXTURE_2D, Some(own.unwrap_or(page)));
                gl.bind_sampler(slot.unit, *sampler);
            }
            gl.bind_vertex_array(Some(self.custom_vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.vbo));
            material.point_quad_attributes(gl, stride);
            // Sinew's atlases are one page: Defold's `page_index` is a constant 0.
            if let Some(loc) = gl.get_attrib_location(p.program, "page_index") {
                gl.disable_vertex_attrib_array(loc);
                gl.vertex_attrib_1_f32(loc, 0.0);
            }
            // The material's value attributes: the sprite's own value (set like a constant),
            // else the material's default, for every vertex of the run.
            for &(hash, loc, default) in &material.attributes {
                let v = self.overrides.iter().rev().find(|(h, _)| *h == hash).map_or(default, |(_, v)| *v);
                gl.disable_vertex_attrib_array(loc);
                gl.vertex_attrib_4_f32(loc, v[0], v[1], v[2], v[3]);
            }
            if material.reads_quad_extras() {
                let stride = (EXTRA_FLOATS * 4) as i32;
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.extra_vbo));
                for &loc in &material.local_position {
                    gl.enable_vertex_attrib_array(loc);
                    gl.vertex_attrib_pointer_f32(loc, 2, glow::FLOAT, false, stride, 0);
                }
                for &loc in &material.texture_transform {
                    for column in 0..3 {
                        gl.enable_vertex_attrib_array(loc + column);
                        let offset = 8 + 12 * column as i32;
                        gl.vertex_attrib_pointer_f32(loc + column, 3, glow::FLOAT, false, stride, offset);
                    }
                }
            }
            gl.draw_arrays(glow::TRIANGLES, first, count);
            for (slot, sampler) in p.samplers.iter().zip(&material.sampler_objects) {
                if sampler.is_some() {
                    gl.bind_sampler(slot.unit, None);
                }
            }
        }
    }

    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: objects were created on `gl` and are not used after this.
        unsafe {
            gl.delete_vertex_array(self.custom_vao);
            gl.delete_buffer(self.ubo);
            gl.delete_buffer(self.extra_vbo);
            gl.delete_program(self.program);
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
            for (_, t) in self.pages.into_iter().flatten() {
                gl.delete_texture(t);
            }
        }
    }
}

/// Floats per vertex in the extra buffer: local position, texture transform.
const EXTRA_FLOATS: usize = 11;

/// Defold's texture transform of a quad whose page coordinates are `[left, top, right,
/// bottom]`: columns `(width, 0, 0)`, `(0, height, 0)` and `(left, top, 1)` in page units, so
/// `texcoord0 = origin + local × size` for the quad's own 0..1 coordinates, and a shader gets
/// back to them (to tile or scroll inside the image) with `(texcoord0 - origin) / size`.
fn texture_transform([l, t, r, b]: [f32; 4]) -> [f32; 9] {
    let (u0, v0) = (l.min(r), t.min(b));
    let (du, dv) = ((r - l).abs(), (b - t).abs());
    [du, 0.0, 0.0, 0.0, dv, 0.0, u0, v0, 1.0]
}

/// Floats per vertex in the sprite buffer: position, page coordinates, tint.
const FLOATS_PER_VERTEX: usize = 9;

fn tint_hash() -> Hash {
    static H: std::sync::OnceLock<Hash> = std::sync::OnceLock::new();
    *H.get_or_init(|| hash_remembered("tint"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn quad(z: f32, atlas: u32, blend: BlendMode) -> SpriteQuad {
        let c = |x: f32, y: f32| Vec3::new(x, y, z);
        SpriteQuad {
            corners: [c(0.0, 0.0), c(1.0, 0.0), c(1.0, 1.0), c(0.0, 1.0)],
            uv: [0.0, 0.0, 1.0, 1.0],
            local: [0.0; 4],
            color: [1.0; 4],
            atlas,
            blend,
            material: 7,
            material_index: None,
            sprite: 0,
            constants_key: 0,
        }
    }

    #[test]
    fn back_to_front_then_batched_by_page_and_blend() {
        let quads = [
            quad(0.3, 0, BlendMode::Alpha),
            quad(0.1, 1, BlendMode::Alpha),
            quad(0.2, 0, BlendMode::Add),
            quad(0.1, 0, BlendMode::Alpha),
        ];
        let mut order = Vec::new();
        draw_order(&quads, Mat4::IDENTITY, &mut order);
        let idx: Vec<u32> = order.iter().map(|o| o.1).collect();
        // Lowest z first; at one z, page 0 before page 1.
        assert_eq!(idx, [3, 1, 2, 0]);
        assert_eq!(count_batches(&quads, &order), 4);
    }

    #[test]
    fn thousands_at_one_depth_take_a_call_per_page_and_blend() {
        let quads: Vec<SpriteQuad> = (0..3000)
            .map(|i| quad(0.0, (i % 2) as u32, if i % 3 == 0 { BlendMode::Add } else { BlendMode::Alpha }))
            .collect();
        let mut order = Vec::new();
        draw_order(&quads, Mat4::IDENTITY, &mut order);
        assert_eq!(count_batches(&quads, &order), 4);
    }

    #[test]
    fn custom_material_runs_split_by_material_and_constants_only() {
        let custom = |key: u64, material: Hash| SpriteQuad {
            material,
            material_index: Some(0),
            constants_key: key,
            ..quad(0.0, 0, BlendMode::Alpha)
        };
        // Built-in sprites of any tint share a run; a custom material is a run of its own, and
        // within it quads of equal constants share one.
        let quads = [quad(0.0, 0, BlendMode::Alpha), custom(5, 9), custom(5, 9), custom(6, 9), custom(5, 10)];
        let mut order = Vec::new();
        draw_order(&quads, Mat4::IDENTITY, &mut order);
        assert_eq!(count_batches(&quads, &order), 4);
    }
}
