//! Text quads from a laid-out text and the glyph atlas, shared by `draw_text`, labels (both in
//! `render`) and GUI text nodes (`game::gui`) so the three draw the same glyphs the same way: shadow first, then outline, then
//! the face, each glyph two triangles of the overlay's vertex layout (position, uv, rgba).
use super::atlas::{GlyphAtlas, MAX_OUTLINE, raster_size};
use super::{Face, TextLayout};

/// Colours and widths of a text's passes. A pass whose alpha is 0 is not drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextEffects {
    pub color: [f32; 4],
    pub outline: [f32; 4],
    /// Outline width in pixels at the text's size.
    pub outline_width: f32,
    pub shadow: [f32; 4],
    /// Shadow offset in pixels at the text's size, y up.
    pub shadow_offset: [f32; 2],
}

impl TextEffects {
    pub fn plain(color: [f32; 4]) -> Self {
        TextEffects { color, outline: [0.0; 4], outline_width: 0.0, shadow: [0.0; 4], shadow_offset: [0.0; 2] }
    }
}

/// Floats per vertex: position xyz, uv, rgba.
pub const FLOATS: usize = 9;

/// Glyph quads that `layout` (laid out at `size` pixels per em) needs with `fx`.
pub fn quad_count(layout: &TextLayout, fx: &TextEffects) -> usize {
    let passes = 1 + usize::from(fx.outline[3] > 0.0 && fx.outline_width > 0.0) + usize::from(fx.shadow[3] > 0.0);
    layout.glyphs.len() * passes
}

/// Appends the quads of `layout` to `out`. Glyph positions are the layout's (pixels from the
/// block's top-left, y up) times `scale`; `place` maps them to the output's coordinates.
/// Returns false when the atlas was emptied on the way (quads made before then, in this call
/// or earlier ones, point at texels that are gone: the caller redoes its frame once).
#[allow(clippy::too_many_arguments)]
pub fn push_text(
    atlas: &mut GlyphAtlas,
    face: &Face,
    layout: &TextLayout,
    size: f32,
    scale: [f32; 2],
    fx: &TextEffects,
    place: &mut dyn FnMut(f32, f32) -> [f32; 3],
    out: &mut Vec<f32>,
) -> bool {
    let generation = atlas.generation();
    let (sx, sy) = (scale[0], scale[1]);
    // Rasterised at the size it shows at, so a scaled-up text stays sharp.
    let (px, _) = raster_size(size * sx.abs().max(sy.abs()));
    // Raster pixels to layout pixels (before `scale`).
    let k = if size > 0.0 { size / px as f32 } else { 0.0 };
    let outline_px =
        (fx.outline_width * px as f32 / size.max(f32::MIN_POSITIVE)).round().clamp(0.0, MAX_OUTLINE as f32) as u8;
    let outlined = fx.outline[3] > 0.0 && outline_px > 0;
    // At one texel a pixel, glyphs start on whole pixels so the coverage is drawn as it was
    // rasterised, not blurred between two pixels.
    let snap = sx == sy && (px as f32 - size * sx.abs()).abs() < 1e-3;
    let mut passes: Vec<([f32; 4], u8, [f32; 2])> = Vec::with_capacity(3);
    if fx.shadow[3] > 0.0 {
        passes.push((fx.shadow, if outlined { outline_px } else { 0 }, fx.shadow_offset));
    }
    if outlined {
        passes.push((fx.outline, outline_px, [0.0; 2]));
    }
    passes.push((fx.color, 0, [0.0; 2]));
    for (color, outline, [ox, oy]) in passes {
        for g in &layout.glyphs {
            let Some(a) = atlas.glyph(face, g.glyph, px, outline) else { continue };
            let [l, b, w, h] = a.quad;
            let (mut x0, mut y0) = (g.x + ox + l * k, g.y + oy + b * k);
            if snap {
                (x0, y0) = ((x0 * sx).round() / sx, (y0 * sy).round() / sy);
            }
            let (x1, y1) = (x0 + w * k, y0 + h * k);
            let [u0, v0, u1, v1] = a.uv;
            // Atlas rows run top first: the glyph's top (v0) is at y1.
            let corners = [(x0, y0, u0, v1), (x1, y0, u1, v1), (x1, y1, u1, v0), (x0, y1, u0, v0)];
            for i in [0, 1, 2, 0, 2, 3] {
                let (x, y, u, v) = corners[i];
                out.extend_from_slice(&place(x * sx, y * sy));
                out.extend_from_slice(&[u, v]);
                out.extend_from_slice(&color);
            }
        }
    }
    atlas.generation() == generation
}
