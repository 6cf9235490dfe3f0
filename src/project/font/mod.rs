//! TrueType/OpenType faces and text layout, shared by everything that draws or measures text
//! (`draw_text`, labels, GUI text nodes, `gui.get_text_metrics`), so a text measured by a
//! script is the text drawn. Rasterising into a texture is [`atlas`]; Defold's `.font` files are
//! [`file`]. The default face is DejaVu Sans (Bitstream Vera licence with public-domain DejaVu
//! changes; `builtins/fonts/DejaVuSans.LICENSE`), shipped in the binary.
pub mod atlas;
pub mod bmfont;
pub mod file;
pub mod layout_cache;
pub mod quads;

use crate::base::error::LoadError;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// The default face's resource path (embedded under `/builtins/`).
pub const DEFAULT_FACE_PATH: &str = "/builtins/fonts/DejaVuSans.ttf";
/// Font files above this are refused before parsing (the largest CJK faces are about 20 MB).
pub const MAX_FACE_BYTES: usize = 64 << 20;
/// Text sizes (pixels per em) must be above 0 and at most this.
pub const MAX_TEXT_SIZE: f32 = 2048.0;
/// At most this many characters are laid out per text; the rest are cut (a label's or a
/// message's text is far shorter).
pub const MAX_LAYOUT_CHARS: usize = 1 << 16;

/// One parsed font file. `id` tells faces apart in glyph-atlas keys without comparing bytes.
/// Outlines are read from the file when a glyph is rasterised (ab_glyph), not all at parse time:
/// parsing every outline of DejaVu Sans up front took 25-90 ms and 24 MiB of the start-up
/// (issue 40), and a game draws a few dozen of its 6,000 glyphs.
pub struct Face {
    id: u32,
    glyphs: Glyphs,
    path: String,
}

/// Where a face's glyphs come from.
enum Glyphs {
    /// A TrueType/OpenType file; `per_unit`: pixels per font unit at 1 pixel per em.
    Outline { font: ab_glyph::FontArc, per_unit: f32 },
    /// A BMFont's page images, drawn at their own size and scaled from it.
    Bitmap(bmfont::BitmapFont),
}

impl std::fmt::Debug for Face {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Face({} #{})", self.path, self.id)
    }
}

/// One laid-out glyph: its index in the face, and its pen position (baseline origin) in pixels
/// from the top-left of the text block, y up (so baselines are negative).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedGlyph {
    pub glyph: u16,
    pub x: f32,
    pub y: f32,
}

/// How a text is laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    /// Pixels per em.
    pub size: f32,
    /// Wrap at word boundaries to this width in pixels (Defold's `line_break` with the node's
    /// width); `None`: break only at `\n`.
    pub wrap: Option<f32>,
    /// Line-height factor (Defold's `leading`, 1 = the face's own line height).
    pub leading: f32,
    /// Extra advance after each character, in ems (Defold's `tracking`).
    pub tracking: f32,
    /// Where each line sits in the block's width: 0 left, 0.5 centre, 1 right.
    pub align: f32,
}

impl TextStyle {
    pub fn sized(size: f32) -> Self {
        TextStyle { size, wrap: None, leading: 1.0, tracking: 0.0, align: 0.0 }
    }
}

/// A text laid out: glyphs (whitespace draws nothing and has no entry) and the block's
/// measures, which are Defold's `get_text_metrics` fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextLayout {
    pub glyphs: Vec<PlacedGlyph>,
    /// The widest line's advance width in pixels.
    pub width: f32,
    /// Lines × line height.
    pub height: f32,
    /// The face's ascent and descent (positive, below the baseline) at this size.
    pub max_ascent: f32,
    pub max_descent: f32,
    pub lines: usize,
}

fn next_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Face {
    /// Parses a TrueType/OpenType file; `path` names it in errors.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Face, LoadError> {
        if bytes.len() > MAX_FACE_BYTES {
            return Err(LoadError::new(path, format!("font file of {} bytes is over {MAX_FACE_BYTES}", bytes.len())));
        }
        // The built-in face is read where the binary holds it; another file is copied once.
        let font = match crate::project::resources::builtin(DEFAULT_FACE_PATH) {
            Some(builtin) if builtin == bytes => ab_glyph::FontRef::try_from_slice(builtin).map(ab_glyph::FontArc::new),
            _ => ab_glyph::FontArc::try_from_vec(bytes.to_vec()),
        };
        let inner = font.map_err(|e| LoadError::new(path, format!("not a TrueType/OpenType font: {e}")))?;
        use ab_glyph::Font;
        let per_unit = match inner.units_per_em() {
            Some(u) if u.is_finite() && u > 0.0 => 1.0 / u,
            _ => return Err(LoadError::new(path, "the font has no units per em")),
        };
        if inner.height_unscaled() <= 0.0 {
            return Err(LoadError::new(path, "the font has no horizontal metrics"));
        }
        Ok(Face { id: next_id(), glyphs: Glyphs::Outline { font: inner, per_unit }, path: path.to_string() })
    }

    /// A face drawn from a BMFont's pages (`bmfont::parse`); `path` is the `.fnt`.
    pub fn bitmap(path: &str, font: bmfont::BitmapFont) -> Face {
        Face { id: next_id(), glyphs: Glyphs::Bitmap(font), path: path.to_string() }
    }

    /// The size a bitmap face's glyphs were drawn at; None for an outline face.
    pub fn bitmap_size(&self) -> Option<f32> {
        match &self.glyphs {
            Glyphs::Bitmap(b) => Some(b.size),
            Glyphs::Outline { .. } => None,
        }
    }

    /// [`Face::parse`], but the built-in face's bytes give the built-in face itself: one set of
    /// glyph caches and atlas pages, since most fonts of a project (the demo's HUD,
    /// Defold's default fonts) are that file again.
    pub fn parse_shared(path: &str, bytes: &[u8]) -> Result<Arc<Face>, LoadError> {
        match crate::project::resources::builtin(DEFAULT_FACE_PATH) {
            Some(builtin) if builtin == bytes => Ok(Face::default_face()),
            _ => Face::parse(path, bytes).map(Arc::new),
        }
    }

    /// The built-in face, parsed once.
    pub fn default_face() -> Arc<Face> {
        static FACE: OnceLock<Arc<Face>> = OnceLock::new();
        FACE.get_or_init(|| {
            let bytes = crate::project::resources::builtin(DEFAULT_FACE_PATH).unwrap_or_default();
            match Face::parse(DEFAULT_FACE_PATH, bytes) {
                Ok(f) => Arc::new(f),
                // The file is part of the build; a broken one is a packaging bug.
                Err(e) => panic!("{e}"),
            }
        })
        .clone()
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// The glyph of `c`; 0 (the face's "missing" box, nothing in a bitmap face) when the face
    /// lacks it.
    pub fn glyph(&self, c: char) -> u16 {
        use ab_glyph::Font;
        match &self.glyphs {
            Glyphs::Outline { font, .. } => font.glyph_id(c).0,
            Glyphs::Bitmap(b) => b.by_char.get(&c).copied().unwrap_or(0),
        }
    }

    /// A bitmap face's pixels per its own pixel at `size`.
    fn bitmap_scale(b: &bmfont::BitmapFont, size: f32) -> f32 {
        size / b.size
    }

    fn line(&self, size: f32) -> (f32, f32, f32) {
        use ab_glyph::Font;
        match &self.glyphs {
            Glyphs::Outline { font: f, per_unit } => {
                let k = size * per_unit;
                let (ascent, descent) = (f.ascent_unscaled() * k, -f.descent_unscaled() * k);
                (ascent, descent, ascent + descent + f.line_gap_unscaled() * k)
            }
            // BMFont's line: its top to the baseline is `base`, baseline to baseline
            // `lineHeight`.
            Glyphs::Bitmap(b) => {
                let k = Self::bitmap_scale(b, size);
                (b.base * k, (b.line_height - b.base).max(0.0) * k, b.line_height * k)
            }
        }
    }

    /// Ascent above the baseline and descent below it (both positive), in pixels.
    pub fn ascent_descent(&self, size: f32) -> (f32, f32) {
        let (a, d, _) = self.line(size);
        (a, d)
    }

    /// Baseline to baseline, in pixels.
    pub fn line_height(&self, size: f32) -> f32 {
        self.line(size).2
    }

    /// The pen's advance after `glyph`, in pixels: the face's own horizontal advance.
    pub fn advance(&self, glyph: u16, size: f32) -> f32 {
        use ab_glyph::Font;
        match &self.glyphs {
            Glyphs::Outline { font, per_unit } => font.h_advance_unscaled(ab_glyph::GlyphId(glyph)) * size * per_unit,
            Glyphs::Bitmap(b) => b.glyphs.get(glyph as usize).map_or(0.0, |g| g.xadvance) * Self::bitmap_scale(b, size),
        }
    }

    /// Coverage bitmap (rows top first) of `glyph` at `size`, with its placement: the bitmap's
    /// left and bottom edges from the pen position, in pixels. A glyph wider or taller than a
    /// glyph-atlas page gets none (no ink): a malformed outline's bounds, or a face with few
    /// units per em, could otherwise ask for gigabytes before anything is drawn.
    pub fn rasterize(&self, glyph: u16, size: f32) -> (Vec<u8>, usize, usize, i32, i32) {
        use ab_glyph::Font;
        let (font, per_unit) = match &self.glyphs {
            Glyphs::Outline { font, per_unit } => (font, *per_unit),
            Glyphs::Bitmap(b) => return b.rasterize(glyph, Self::bitmap_scale(b, size)),
        };
        // ab_glyph's scale is the height of ascent to descent; sizes here are pixels per em.
        let scale = size * per_unit * font.height_unscaled();
        let g = ab_glyph::GlyphId(glyph).with_scale(scale);
        let Some(outlined) = font.outline_glyph(g) else { return (Vec::new(), 0, 0, 0, 0) };
        let b = outlined.px_bounds();
        let (w, h) = ((b.max.x - b.min.x).max(0.0) as usize, (b.max.y - b.min.y).max(0.0) as usize);
        if w > atlas::ATLAS_SIZE || h > atlas::ATLAS_SIZE {
            return (Vec::new(), 0, 0, 0, 0);
        }
        let mut px = vec![0u8; w * h];
        outlined.draw(|x, y, c| {
            if let Some(p) = px.get_mut(y as usize * w + x as usize) {
                *p = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
            }
        });
        (px, w, h, b.min.x as i32, -b.max.y as i32)
    }

    fn kern(&self, left: u16, right: u16, size: f32) -> f32 {
        use ab_glyph::Font;
        match &self.glyphs {
            Glyphs::Outline { font, per_unit } => {
                font.kern_unscaled(ab_glyph::GlyphId(left), ab_glyph::GlyphId(right)) * size * per_unit
            }
            Glyphs::Bitmap(b) => b.kerning.get(&(left, right)).copied().unwrap_or(0.0) * Self::bitmap_scale(b, size),
        }
    }

    /// Lays out `text` (UTF-8; `\n` starts a line, except at the very end): advances from the
    /// face with its kerning, words wrapped at `style.wrap`.
    pub fn layout(&self, text: &str, style: &TextStyle) -> TextLayout {
        let size = if style.size.is_finite() { style.size.clamp(0.0, MAX_TEXT_SIZE) } else { 0.0 };
        let (ascent, descent, line_height) = self.line(size);
        let line_height = line_height * if style.leading.is_finite() { style.leading.max(0.0) } else { 1.0 };
        let tracking = if style.tracking.is_finite() { style.tracking * size } else { 0.0 };
        // Each line as (glyph, x) with its advance width; alignment is applied once its width
        // is known.
        let mut lines: Vec<(Vec<(u16, f32)>, f32)> = Vec::new();
        // A newline that ends the text starts no line of its own (Defold's layout: "Score:\n"
        // is one line, centred as one).
        let body = text.strip_suffix('\n').unwrap_or(text);
        for paragraph in body.split('\n') {
            let mut line: Vec<(u16, f32)> = Vec::new();
            let mut pen = 0.0f32;
            let mut prev: Option<u16> = None;
            // Where the last space is: (index in `line`, pen after it) — a wrap point.
            let mut last_break: Option<(usize, f32, f32)> = None;
            let mut count = 0;
            for c in paragraph.chars() {
                count += 1;
                if count > MAX_LAYOUT_CHARS {
                    break;
                }
                let g = self.glyph(c);
                if let Some(p) = prev {
                    pen += self.kern(p, g, size);
                }
                let advance = self.advance(g, size) + tracking;
                if c.is_whitespace() {
                    last_break = Some((line.len(), pen, pen + advance));
                    pen += advance;
                    prev = Some(g);
                    continue;
                }
                if let (Some(wrap), Some((at, width, resume))) = (style.wrap, last_break)
                    && pen + advance > wrap
                    && at > 0
                {
                    let rest: Vec<(u16, f32)> = line.drain(at..).map(|(g, x)| (g, x - resume)).collect();
                    lines.push((std::mem::replace(&mut line, rest), width));
                    pen -= resume;
                    last_break = None;
                }
                line.push((g, pen));
                pen += advance;
                prev = Some(g);
            }
            // Trailing spaces do not count toward the line's width.
            let width = match last_break {
                Some((at, w, _)) if at == line.len() => w,
                _ => pen,
            };
            lines.push((line, width));
        }
        let width = lines.iter().map(|(_, w)| *w).fold(0.0, f32::max);
        let align = if style.align.is_finite() { style.align.clamp(0.0, 1.0) } else { 0.0 };
        let mut glyphs = Vec::new();
        for (k, (line, w)) in lines.iter().enumerate() {
            let dx = (width - w) * align;
            let y = -(ascent + k as f32 * line_height);
            glyphs.extend(line.iter().map(|&(glyph, x)| PlacedGlyph { glyph, x: x + dx, y }));
        }
        let n = lines.len();
        TextLayout {
            glyphs,
            width,
            height: if n == 0 { 0.0 } else { ascent + descent + (n - 1) as f32 * line_height },
            max_ascent: ascent,
            max_descent: descent,
            lines: n,
        }
    }
}

#[cfg(test)]
mod tests;
