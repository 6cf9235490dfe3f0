//! The GUI draw list: every visible node's triangles in screen pixels (the overlay's vertex
//! layout: position xyz, uv, rgba), grouped into batches that share a texture and stencil
//! state, so a screen of nodes over one image and one font is a handful of draw calls.
//!
//! Stencil clipping: before the nodes, each clipping node's shape is written into the stencil
//! buffer with a reference of its own, where the stencil holds its nearest clipping ancestor's
//! (so nested clippers intersect). Every node then draws where the stencil holds its nearest
//! clipping ancestor's reference (a clipper: its own). Sinew decision: sibling clippers that
//! overlap each other clip their children to the earlier one's shape minus the overlap.
use super::effects::NodeEffect;
use super::layout::Placed;
use crate::game::particles::ParticleWorld;
use crate::project::font::atlas::GlyphAtlas;
use crate::project::font::file::Font;
use crate::project::font::layout_cache::LayoutCache;
use crate::project::font::quads::{FLOATS, TextEffects, push_text};
use crate::project::font::{TextLayout, TextStyle};
use crate::project::gui::{BlendMode, GuiImage, GuiNode, GuiScene, NodeKind, PieBounds};
use crate::project::sprite::BlendMode as SpriteBlend;
use glam::{Mat4, Vec3};

/// Clipping nodes per frame at most (an 8-bit stencil buffer); later ones do not clip.
pub const MAX_CLIPPERS: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuiTexture {
    /// No texture: the vertex colour.
    White,
    /// The GUI glyph atlas (coverage in red).
    Glyphs,
    /// Index into [`GuiDrawList::images`].
    Image(u32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GuiBatch {
    pub texture: GuiTexture,
    /// First vertex and vertex count.
    pub first: u32,
    pub count: u32,
    /// Draw where the stencil holds this (0: everywhere, no clipping).
    pub stencil_test: u8,
    /// Write this reference into the stencil instead of drawing colour (a clipper's shape).
    pub stencil_write: Option<u8>,
    pub additive: bool,
    /// A project material (its index in the models' material registry) instead of the
    /// built-in drawing.
    pub material: Option<u32>,
}

#[derive(Default)]
pub struct GuiDrawList {
    pub vertices: Vec<f32>,
    pub batches: Vec<GuiBatch>,
    /// The images the batches name (one entry per image file).
    pub images: Vec<GuiImage>,
    /// Clipper references handed out this frame.
    clippers: usize,
    /// The glyph atlas was emptied while this list was built: rebuild it.
    pub(super) stale: bool,
    /// Text nodes' layouts, kept from frame to frame (`clear` leaves them).
    layouts: LayoutCache,
}

impl GuiDrawList {
    pub fn clear(&mut self) {
        self.vertices.clear();
        self.batches.clear();
        self.images.clear();
        self.clippers = 0;
        self.stale = false;
    }

    /// Draw calls the renderer will make (stencil writes included).
    pub fn draw_calls(&self) -> usize {
        self.batches.len()
    }

    fn image(&mut self, img: &GuiImage) -> u32 {
        match self.images.iter().position(|i| i.path == img.path) {
            Some(i) => i as u32,
            None => {
                self.images.push(img.clone());
                (self.images.len() - 1) as u32
            }
        }
    }

    /// Starts or extends the batch for this state; vertices pushed next belong to it.
    fn batch(&mut self, texture: GuiTexture, stencil_test: u8, stencil_write: Option<u8>, additive: bool) {
        self.batch_with(texture, stencil_test, stencil_write, additive, None);
    }

    fn batch_with(
        &mut self,
        texture: GuiTexture,
        stencil_test: u8,
        stencil_write: Option<u8>,
        additive: bool,
        material: Option<u32>,
    ) {
        let first = (self.vertices.len() / FLOATS) as u32;
        let next = GuiBatch { texture, first, count: 0, stencil_test, stencil_write, additive, material };
        if let Some(b) = self.batches.last_mut()
            && (GuiBatch { first: b.first, count: b.count, ..next }) == *b
        {
            return;
        }
        self.batches.push(next);
    }

    /// Closes the last batch over the vertices pushed since it began.
    fn seal(&mut self) {
        let end = (self.vertices.len() / FLOATS) as u32;
        if let Some(b) = self.batches.last_mut() {
            b.count = end - b.first;
        }
    }
}

/// Pushes one vertex.
fn vertex(out: &mut Vec<f32>, world: &Mat4, x: f32, y: f32, u: f32, v: f32, color: &[f32; 4]) {
    let p = world.transform_point3(Vec3::new(x, y, 0.0));
    out.extend_from_slice(&[p.x, p.y, 0.0, u, v]);
    out.extend_from_slice(color);
}

/// A rectangle `[x0, y0, x1, y1]` with texture rectangle `[u0, v0, u1, v1]` (v0 at y1: image
/// rows run top first).
fn quad(out: &mut Vec<f32>, world: &Mat4, r: [f32; 4], uv: [f32; 4], color: &[f32; 4]) {
    let [x0, y0, x1, y1] = r;
    let [u0, v0, u1, v1] = uv;
    let c = [(x0, y0, u0, v1), (x1, y0, u1, v1), (x1, y1, u1, v0), (x0, y1, u0, v0)];
    for i in [0, 1, 2, 0, 2, 3] {
        let (x, y, u, v) = c[i];
        vertex(out, world, x, y, u, v, color);
    }
}

/// The node's rectangle around its position, by its pivot.
pub fn rect(n: &GuiNode, size: [f32; 2]) -> [f32; 4] {
    let [ax, ay] = n.pivot.anchor();
    let (x0, y0) = (-ax * size[0], -ay * size[1]);
    [x0, y0, x0 + size[0], y0 + size[1]]
}

/// The part of a texture a node shows: `[u0, v0, u1, v1]` (v down from the top; mirrored by
/// swapping ends) and that part's size in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Texel {
    pub uv: [f32; 4],
    pub size: [f32; 2],
}

/// What node `n` shows of its texture: the atlas frame its flipbook is on (mirrored as the
/// animation says), else the whole texture.
pub fn texel(scene: &GuiScene, n: &GuiNode) -> Option<Texel> {
    let img = n.texture.and_then(|t| scene.images.get(t))?;
    let book = n.animation.and_then(|k| img.atlas.as_ref()?.animations.get(k as usize));
    let (mut uv, size) = img.frame_uv(book.map(|_| n.frame));
    if book.is_some_and(|b| b.flip_horizontal) {
        uv.swap(0, 2);
    }
    if book.is_some_and(|b| b.flip_vertical) {
        uv.swap(1, 3);
    }
    Some(Texel { uv, size })
}

/// A box: one quad, or nine with `slice9` borders (in texture pixels) kept unstretched.
fn box_node(out: &mut Vec<f32>, world: &Mat4, r: [f32; 4], n: &GuiNode, tex: Option<Texel>, color: &[f32; 4]) {
    let [l, t, rt, b] = n.slice9;
    let full = tex.map_or([0.0, 0.0, 1.0, 1.0], |t| t.uv);
    let Some(tex) = tex.filter(|_| l + t + rt + b > 0.0) else {
        return quad(out, world, r, full, color);
    };
    let (w, h) = (r[2] - r[0], r[3] - r[1]);
    let (iw, ih) = (tex.size[0].max(1.0), tex.size[1].max(1.0));
    // Borders never overlap: at most half the node each way.
    let (l, rt) = (l.min(w * 0.5), rt.min(w * 0.5));
    let (t, b) = (t.min(h * 0.5), b.min(h * 0.5));
    let xs = [r[0], r[0] + l, r[2] - rt, r[2]];
    let ys = [r[1], r[1] + b, r[3] - t, r[3]];
    // Fractions of the shown part, mapped into its place on the texture.
    let [u0, v0, u1, v1] = full;
    let u = |f: f32| u0 + (u1 - u0) * f;
    let v = |f: f32| v0 + (v1 - v0) * f;
    let us = [u(0.0), u(l / iw), u(1.0 - rt / iw), u(1.0)];
    // v runs down from the image's top: the bottom row of cells is at v = 1.
    let vs = [v(1.0), v(1.0 - b / ih), v(t / ih), v(0.0)];
    for j in 0..3 {
        for i in 0..3 {
            quad(out, world, [xs[i], ys[j], xs[i + 1], ys[j + 1]], [us[i], vs[j + 1], us[i + 1], vs[j]], color);
        }
    }
}

/// A pie: a fan from the centre (or a ring from `inner_radius`) over `pie_fill_angle` degrees,
/// counter-clockwise from the positive x axis, to the ellipse or rectangle of the node's size.
fn pie_node(out: &mut Vec<f32>, world: &Mat4, r: [f32; 4], n: &GuiNode, uv: [f32; 4], color: &[f32; 4]) {
    let (cx, cy) = ((r[0] + r[2]) * 0.5, (r[1] + r[3]) * 0.5);
    let (hw, hh) = ((r[2] - r[0]) * 0.5, (r[3] - r[1]) * 0.5);
    if hw <= 0.0 || hh <= 0.0 {
        return;
    }
    let fill = n.pie_fill_angle.clamp(-360.0, 360.0).to_radians();
    let segments = ((n.perimeter_vertices as f32 * fill.abs() / std::f32::consts::TAU).ceil() as usize).max(1);
    let inner = (n.inner_radius / hw).clamp(0.0, 1.0);
    let edge = |a: f32| -> (f32, f32) {
        let (s, c) = a.sin_cos();
        match n.outer_bounds {
            PieBounds::Ellipse => (c * hw, s * hh),
            PieBounds::Rectangle => {
                let k = 1.0 / (c.abs() / hw).max(s.abs() / hh).max(f32::MIN_POSITIVE);
                (c * k, s * k)
            }
        }
    };
    let [u0, v0, u1, v1] = uv;
    let uv = |x: f32, y: f32| {
        let (fu, fv) = ((x - r[0]) / (2.0 * hw), 1.0 - (y - r[1]) / (2.0 * hh));
        (u0 + (u1 - u0) * fu, v0 + (v1 - v0) * fv)
    };
    let mut put = |x: f32, y: f32| {
        let (u, v) = uv(x, y);
        vertex(out, world, x, y, u, v, color);
    };
    for i in 0..segments {
        let (a0, a1) = (fill * i as f32 / segments as f32, fill * (i + 1) as f32 / segments as f32);
        let ((ox0, oy0), (ox1, oy1)) = (edge(a0), edge(a1));
        let (o0, o1) = ((cx + ox0, cy + oy0), (cx + ox1, cy + oy1));
        let (i0, i1) = ((cx + ox0 * inner, cy + oy0 * inner), (cx + ox1 * inner, cy + oy1 * inner));
        for (x, y) in [i0, o0, o1, i0, o1, i1] {
            put(x, y);
        }
    }
}

/// The font a text node draws with: its scene font, or the built-in one at 16 pixels per em.
fn node_font<'a>(scene: &'a GuiScene, n: &GuiNode, fallback: &'a Font) -> &'a Font {
    n.font.and_then(|i| scene.fonts.get(i)).map_or(fallback, |(_, f)| f)
}

fn text_node(
    list: &mut GuiDrawList,
    atlas: &mut GlyphAtlas,
    world: &Mat4,
    n: &GuiNode,
    font: &Font,
    color: [f32; 4],
    alpha: f32,
) {
    let [ax, ay] = n.pivot.anchor();
    let style = TextStyle {
        size: font.size,
        wrap: n.line_break.then_some(n.size[0]),
        leading: n.leading,
        tracking: n.tracking,
        align: ax,
    };
    let layout: &TextLayout = list.layouts.layout(&font.face, &n.text, &style);
    let (left, top) = (-ax * layout.width, (1.0 - ay) * layout.height);
    // Rasterised at the size the text shows at on screen.
    let s = world.x_axis.truncate().length().max(world.y_axis.truncate().length());
    let s = if s.is_finite() && s > 1e-3 { s } else { 1.0 };
    let mut place = |x: f32, y: f32| {
        let p = world.transform_point3(Vec3::new(left + x / s, top + y / s, 0.0));
        [p.x, p.y, 0.0]
    };
    let fx = TextEffects {
        color: [color[0], color[1], color[2], alpha * font.alpha],
        outline: [n.outline[0], n.outline[1], n.outline[2], n.outline[3] * font.outline_alpha * alpha],
        outline_width: font.outline_width,
        shadow: [n.shadow[0], n.shadow[1], n.shadow[2], n.shadow[3] * font.shadow_alpha * alpha],
        shadow_offset: font.shadow,
    };
    list.stale |= !push_text(atlas, &font.face, layout, font.size, [s, s], &fx, &mut place, &mut list.vertices);
}

/// The particle world of the GUI and the instance's played particle nodes.
pub type Effects<'a> = (&'a ParticleWorld, &'a [NodeEffect]);

/// Appends one instance's nodes; `materials` is the instance's table
/// ([`super::GuiInstance::materials`]).
pub fn append(
    list: &mut GuiDrawList,
    atlas: &mut GlyphAtlas,
    (scene, nodes, placed, walk): (&GuiScene, &[GuiNode], &[Placed], &[usize]),
    (particles, effects): Effects,
    materials: &[(String, Option<u32>)],
) {
    let mut quads = Vec::new();
    let fallback = Font::default_sized(16.0);
    // The stencil reference each node draws within, and each clipper's own.
    let mut within = vec![0u8; nodes.len()];
    let mut own = vec![0u8; nodes.len()];
    for &i in walk {
        let n = &nodes[i];
        within[i] = n.parent.map_or(0, |p| if nodes[p].clipping && own[p] > 0 { own[p] } else { within[p] });
        if n.clipping && placed[i].enabled && list.clippers < MAX_CLIPPERS {
            list.clippers += 1;
            own[i] = list.clippers as u8;
            let size = auto_size(scene, n);
            let r = rect(n, size);
            list.batch(GuiTexture::White, within[i], Some(own[i]), false);
            if n.kind == NodeKind::Pie {
                pie_node(&mut list.vertices, &placed[i].world, r, n, [0.0, 0.0, 1.0, 1.0], &[1.0; 4]);
            } else {
                quad(&mut list.vertices, &placed[i].world, r, [0.0, 0.0, 1.0, 1.0], &[1.0; 4]);
            }
            list.seal();
        }
    }
    // Layers: nodes without one take their parent's; nodes with none at all draw first.
    let mut layer = vec![-1i64; nodes.len()];
    for &i in walk {
        let n = &nodes[i];
        layer[i] = match (n.layer, n.parent) {
            (Some(l), _) => l as i64,
            (None, Some(p)) => layer[p],
            (None, None) => -1,
        };
    }
    let mut order: Vec<usize> = walk.iter().copied().filter(|&i| placed[i].enabled).collect();
    order.sort_by_key(|&i| layer[i]);
    for i in order {
        let n = &nodes[i];
        if !n.visible || n.kind == NodeKind::Template || (n.clipping && !n.clipping_visible) {
            continue;
        }
        let test = if own[i] > 0 { own[i] } else { within[i] };
        let additive = matches!(n.blend, BlendMode::Add | BlendMode::Screen);
        let world = &placed[i].world;
        let color = [n.color[0], n.color[1], n.color[2], placed[i].alpha];
        match n.kind {
            NodeKind::Text => {
                list.batch(GuiTexture::Glyphs, test, None, additive);
                text_node(list, atlas, world, n, node_font(scene, n, &fallback), color, placed[i].alpha);
            }
            NodeKind::Box | NodeKind::Pie => {
                let img = n.texture.and_then(|t| scene.images.get(t));
                let texture = match img {
                    Some(img) => GuiTexture::Image(list.image(img)),
                    None => GuiTexture::White,
                };
                let material = n.material.and_then(|k| materials.get(k)?.1);
                list.batch_with(texture, test, None, additive, material);
                let tex = img.and_then(|_| texel(scene, n));
                let r = rect(n, auto_size(scene, n));
                if n.kind == NodeKind::Pie {
                    let uv = tex.map_or([0.0, 0.0, 1.0, 1.0], |t| t.uv);
                    pie_node(&mut list.vertices, world, r, n, uv, &color);
                } else {
                    box_node(&mut list.vertices, world, r, n, tex, &color);
                }
            }
            NodeKind::ParticleFx => {
                quads.clear();
                super::GuiWorld::effect_quads(particles, effects, i, *world, &mut quads);
                for q in &quads {
                    // The instance was made with each emitter's atlas as its scene image.
                    let Some(img) = scene.images.get(q.atlas as usize) else { continue };
                    let texture = GuiTexture::Image(list.image(img));
                    list.batch(texture, test, None, additive || q.blend == SpriteBlend::Add);
                    let c =
                        [q.color[0] * color[0], q.color[1] * color[1], q.color[2] * color[2], q.color[3] * color[3]];
                    let [u0, v0, u1, v1] = q.uv;
                    let corner = [(u0, v1), (u1, v1), (u1, v0), (u0, v0)];
                    for k in [0, 1, 2, 0, 2, 3] {
                        let (p, (u, v)) = (q.corners[k], corner[k]);
                        list.vertices.extend_from_slice(&[p.x, p.y, 0.0, u, v]);
                        list.vertices.extend_from_slice(&c);
                    }
                    list.seal();
                }
            }
            NodeKind::Template => {}
        }
        list.seal();
    }
    // Batches that ended up empty (a text of spaces) cost a draw call for nothing.
    list.batches.retain(|b| b.count > 0);
}

/// The node's size: for `size_mode: auto` boxes and pies, that of what it shows of its texture
/// (an atlas frame's, changing with its flipbook, as Defold sizes them).
pub fn auto_size(scene: &GuiScene, n: &GuiNode) -> [f32; 2] {
    match texel(scene, n) {
        Some(t) if n.size_auto => t.size,
        _ => n.size,
    }
}
