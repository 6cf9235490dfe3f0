//! The glyph atlas: one coverage texture (a byte per texel) that glyphs are rasterised into
//! the first time a text needs them, at the size and outline width asked for, so any size of
//! any face costs only the glyphs on screen. Shelf packing; when the texture is full it is
//! emptied and refilled by the next texts (its `generation` changes so a drawer can redo the
//! frame's quads). Outlines are the glyph's coverage dilated by a disc, so outline and shadow
//! need no shader support.
use super::Face;
use std::collections::HashMap;

/// Texels on a side.
pub const ATLAS_SIZE: usize = 1024;
/// Glyphs are rasterised at most this many pixels per em; larger texts scale the quads (a
/// 2048-pixel glyph would not fit the atlas).
pub const MAX_RASTER_SIZE: f32 = 256.0;
/// Outline widths are clamped to this many pixels.
pub const MAX_OUTLINE: u8 = 32;
/// Empty texels around each glyph, so linear sampling never reads a neighbour.
const PAD: usize = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GlyphKey {
    pub face: u32,
    pub glyph: u16,
    /// Pixels per em it was rasterised at.
    pub px: u16,
    /// Outline width in pixels at that size; 0 is the glyph itself.
    pub outline: u8,
}

/// Where a glyph is: texture coordinates (left, top, right, bottom; rows top first) and the
/// quad around the pen position in raster pixels (left, bottom, width, height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtlasGlyph {
    pub uv: [f32; 4],
    pub quad: [f32; 4],
}

pub struct GlyphAtlas {
    texels: Vec<u8>,
    glyphs: HashMap<GlyphKey, Option<AtlasGlyph>>,
    shelf_x: usize,
    shelf_y: usize,
    shelf_h: usize,
    /// Changed texels since the last [`GlyphAtlas::take_dirty`].
    dirty: bool,
    generation: u32,
    /// Bumped on every change of the texels (a drawer that cannot take `dirty` compares it).
    version: u64,
}

impl Default for GlyphAtlas {
    fn default() -> Self {
        GlyphAtlas {
            texels: vec![0; ATLAS_SIZE * ATLAS_SIZE],
            glyphs: HashMap::new(),
            shelf_x: 0,
            shelf_y: 0,
            shelf_h: 0,
            dirty: true,
            generation: 0,
            version: 1,
        }
    }
}

/// The raster size for a text size, and the factor from raster pixels to the text's pixels.
pub fn raster_size(size: f32) -> (u16, f32) {
    let size = if size.is_finite() { size.max(0.0) } else { 0.0 };
    let px = size.round().clamp(1.0, MAX_RASTER_SIZE);
    (px as u16, size / px)
}

/// `coverage` (w × h) grown by `r` pixels on each side, each texel the most coverage within
/// `r` of it (anti-aliased at the disc's rim).
fn dilate(coverage: &[u8], w: usize, h: usize, r: usize) -> Vec<u8> {
    let (ow, oh) = (w + 2 * r, h + 2 * r);
    let mut out = vec![0u8; ow * oh];
    let ri = r as i64;
    let mut disc = Vec::new();
    for dy in -ri..=ri {
        for dx in -ri..=ri {
            let d = ((dx * dx + dy * dy) as f32).sqrt();
            let weight = (r as f32 + 0.5 - d).clamp(0.0, 1.0);
            if weight > 0.0 {
                disc.push((dx, dy, weight));
            }
        }
    }
    for y in 0..h {
        for x in 0..w {
            let c = coverage[y * w + x];
            if c == 0 {
                continue;
            }
            for &(dx, dy, weight) in &disc {
                let (ox, oy) = ((x as i64 + ri + dx) as usize, (y as i64 + ri + dy) as usize);
                let v = (c as f32 * weight) as u8;
                let t = &mut out[oy * ow + ox];
                *t = (*t).max(v);
            }
        }
    }
    out
}

impl GlyphAtlas {
    pub fn texels(&self) -> &[u8] {
        &self.texels
    }

    /// Bumped each time the atlas was emptied: quads made before hold stale coordinates.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Changes whenever the texels do.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True (once) when texels changed since the last call: the texture needs uploading.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// Glyphs held (tests and stats).
    pub fn len(&self) -> usize {
        self.glyphs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.glyphs.is_empty()
    }

    fn clear(&mut self) {
        self.texels.fill(0);
        self.glyphs.clear();
        (self.shelf_x, self.shelf_y, self.shelf_h) = (0, 0, 0);
        self.dirty = true;
        self.version += 1;
        self.generation = self.generation.wrapping_add(1);
    }

    /// A free `w × h` rectangle's top-left, on the current shelf or a new one.
    fn place(&mut self, w: usize, h: usize) -> Option<(usize, usize)> {
        if w > ATLAS_SIZE || h > ATLAS_SIZE {
            return None;
        }
        if self.shelf_x + w > ATLAS_SIZE {
            self.shelf_y += self.shelf_h;
            (self.shelf_x, self.shelf_h) = (0, 0);
        }
        if self.shelf_y + h > ATLAS_SIZE {
            return None;
        }
        let at = (self.shelf_x, self.shelf_y);
        self.shelf_x += w;
        self.shelf_h = self.shelf_h.max(h);
        Some(at)
    }

    /// `glyph` of `face` at raster size `px` (outlined by `outline` pixels when above 0),
    /// rasterised now if it is not in the atlas yet. `None` for a glyph with no ink (a space)
    /// or one too big for the atlas.
    pub fn glyph(&mut self, face: &Face, glyph: u16, px: u16, outline: u8) -> Option<AtlasGlyph> {
        let key = GlyphKey { face: face.id(), glyph, px, outline: outline.min(MAX_OUTLINE) };
        if let Some(found) = self.glyphs.get(&key) {
            return *found;
        }
        let (coverage, w, h, left, bottom) = face.rasterize(glyph, px as f32);
        let made = if w == 0 || h == 0 {
            None
        } else {
            let r = key.outline as usize;
            let (bitmap, w, h) =
                if r == 0 { (coverage, w, h) } else { (dilate(&coverage, w, h, r), w + 2 * r, h + 2 * r) };
            let at = match self.place(w + 2 * PAD, h + 2 * PAD) {
                Some(at) => Some(at),
                None => {
                    self.clear();
                    self.place(w + 2 * PAD, h + 2 * PAD)
                }
            };
            at.map(|(x0, y0)| {
                let (x0, y0) = (x0 + PAD, y0 + PAD);
                for row in 0..h {
                    let dst = (y0 + row) * ATLAS_SIZE + x0;
                    self.texels[dst..dst + w].copy_from_slice(&bitmap[row * w..row * w + w]);
                }
                self.dirty = true;
                self.version += 1;
                let s = ATLAS_SIZE as f32;
                AtlasGlyph {
                    uv: [x0 as f32 / s, y0 as f32 / s, (x0 + w) as f32 / s, (y0 + h) as f32 / s],
                    quad: [(left - r as i32) as f32, (bottom - r as i32) as f32, w as f32, h as f32],
                }
            })
        };
        self.glyphs.insert(key, made);
        made
    }
}
