//! AngelCode BMFont text files (`.fnt`), which Defold's `.font` may name instead of a TrueType
//! face (its fontc reads them as drawn: each glyph a rectangle of a page image, at the file's
//! own size). Read once into [`BitmapFont`]; [`super::Face`] lays out and rasterises from it as
//! from an outline face. Glyphs are the page's alpha (its brightness where the page has no
//! transparency), tinted by the text's colour like any glyph; a coloured bitmap font is drawn in
//! one colour.
use crate::base::error::LoadError;
use std::collections::HashMap;

/// Characters one file may define.
pub const MAX_CHARS: usize = 16_384;
/// Pages one file may name.
pub const MAX_PAGES: usize = 16;
/// Texels on a page's longer side.
pub const MAX_PAGE_SIDE: u32 = 4096;
/// Pixels a glyph, its offsets and advances and the line may measure.
const MAX_METRIC: f32 = 4096.0;

/// One character: its rectangle on a page and where it stands from the pen, as the file says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BitmapGlyph {
    pub page: usize,
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// From the pen to the rectangle's left edge.
    pub xoffset: f32,
    /// From the line's top to the rectangle's top (y down).
    pub yoffset: f32,
    pub xadvance: f32,
}

/// A page as coverage, a byte a texel, rows top first.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub width: u32,
    pub height: u32,
    pub coverage: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BitmapFont {
    /// The size the glyphs were drawn at (`info size`, pixels per em).
    pub size: f32,
    /// Baseline to baseline.
    pub line_height: f32,
    /// The line's top to the baseline.
    pub base: f32,
    /// Index 0 is no character (an empty glyph: what a missing character draws).
    pub glyphs: Vec<BitmapGlyph>,
    pub by_char: HashMap<char, u16>,
    pub kerning: HashMap<(u16, u16), f32>,
    pub pages: Vec<Page>,
}

/// A line's `key=value` pairs, each with the column of its value.
fn pairs(line: &str) -> Vec<(&str, &str, usize)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let key_start = i;
        while i < bytes.len() && bytes[i] != b'=' && bytes[i] != b' ' && bytes[i] != b'\t' {
            i += 1;
        }
        let key = &line[key_start..i];
        if i >= bytes.len() || bytes[i] != b'=' {
            continue;
        }
        i += 1;
        let value_start = i;
        let value = if bytes.get(i) == Some(&b'"') {
            let end = line[i + 1..].find('"').map_or(bytes.len(), |e| i + 1 + e);
            let v = &line[(i + 1).min(end)..end];
            i = (end + 1).min(bytes.len());
            v
        } else {
            while i < bytes.len() && bytes[i] != b' ' && bytes[i] != b'\t' {
                i += 1;
            }
            &line[value_start..i]
        };
        out.push((key, value, value_start + 1));
    }
    out
}

/// A page image as (width, height, RGBA), or why it cannot be had.
pub type PageImage = Result<(u32, u32, Vec<u8>), String>;

/// Parses the text of a `.fnt` file; `page` reads a page's image (its `file`, resolved next to
/// the `.fnt`).
pub fn parse(path: &str, text: &str, page: &mut dyn FnMut(&str) -> PageImage) -> Result<BitmapFont, LoadError> {
    if text.starts_with("BMF") || text.trim_start().starts_with('<') {
        return Err(LoadError::new(
            path,
            "only BMFont's text format is read (export the font as text, not binary or XML)",
        ));
    }
    let mut font = BitmapFont {
        size: 0.0,
        line_height: 0.0,
        base: 0.0,
        glyphs: vec![BitmapGlyph::default()],
        by_char: HashMap::new(),
        kerning: HashMap::new(),
        pages: Vec::new(),
    };
    let mut page_files: Vec<(usize, String, usize)> = Vec::new();
    let mut raw_kerning: Vec<(u32, u32, f32)> = Vec::new();
    let mut seen_common = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let tag = line.split_whitespace().next().unwrap_or("");
        let fields = pairs(line);
        let at = |col: usize, message: String| LoadError::at(path, line_no, col, message);
        let number = |name: &str| -> Result<Option<f32>, LoadError> {
            match fields.iter().find(|(k, _, _)| *k == name) {
                None => Ok(None),
                Some((_, v, col)) => match v.parse::<f32>() {
                    Ok(x) if x.is_finite() && x.abs() <= MAX_METRIC => Ok(Some(x)),
                    _ => Err(at(*col, format!("`{name}` must be a number of at most {MAX_METRIC} pixels, not '{v}'"))),
                },
            }
        };
        let whole = |name: &str| -> Result<u32, LoadError> {
            let v = number(name)?.unwrap_or(0.0);
            if v < 0.0 || v.fract() != 0.0 {
                let col = fields.iter().find(|(k, _, _)| *k == name).map_or(1, |f| f.2);
                return Err(at(col, format!("`{name}` must be a whole number at least 0")));
            }
            Ok(v as u32)
        };
        match tag {
            "info" => font.size = number("size")?.unwrap_or(0.0).abs(),
            "common" => {
                seen_common = true;
                font.line_height = number("lineHeight")?.unwrap_or(0.0);
                font.base = number("base")?.unwrap_or(0.0);
                if font.line_height <= 0.0 {
                    return Err(at(1, "`lineHeight` must be above 0".into()));
                }
            }
            "page" => {
                let id = whole("id")? as usize;
                let Some((_, file, col)) = fields.iter().find(|(k, _, _)| *k == "file") else {
                    return Err(at(1, "a page needs a `file`".into()));
                };
                if id >= MAX_PAGES {
                    return Err(at(1, format!("page id {id}: at most {MAX_PAGES} pages")));
                }
                page_files.push((id, (*file).to_string(), *col));
                page_files.sort_by_key(|p| p.0);
            }
            "char" => {
                if font.glyphs.len() > MAX_CHARS {
                    return Err(at(1, format!("more than {MAX_CHARS} characters")));
                }
                let id = whole("id")?;
                let Some(c) = char::from_u32(id) else {
                    return Err(at(1, format!("character id {id} is no character")));
                };
                let g = BitmapGlyph {
                    page: whole("page")? as usize,
                    x: whole("x")?,
                    y: whole("y")?,
                    width: whole("width")?,
                    height: whole("height")?,
                    xoffset: number("xoffset")?.unwrap_or(0.0),
                    yoffset: number("yoffset")?.unwrap_or(0.0),
                    xadvance: number("xadvance")?.unwrap_or(0.0),
                };
                if g.page >= MAX_PAGES {
                    return Err(at(1, format!("character {id}: page {} is not one of the file's", g.page)));
                }
                // A character defined again replaces the first, as a later key does.
                let index = match font.by_char.get(&c) {
                    Some(&i) => i,
                    None => {
                        font.glyphs.push(g);
                        (font.glyphs.len() - 1) as u16
                    }
                };
                font.glyphs[index as usize] = g;
                font.by_char.insert(c, index);
            }
            "kerning" => {
                raw_kerning.push((whole("first")?, whole("second")?, number("amount")?.unwrap_or(0.0)));
            }
            _ => {}
        }
    }
    if !seen_common {
        return Err(LoadError::new(path, "not a BMFont text file: no `common` line"));
    }
    if font.size <= 0.0 {
        font.size = font.line_height;
    }
    for (first, second, amount) in raw_kerning {
        let glyph = |id: u32| char::from_u32(id).and_then(|c| font.by_char.get(&c).copied());
        if let (Some(a), Some(b)) = (glyph(first), glyph(second)) {
            font.kerning.insert((a, b), amount);
        }
    }
    for (i, (id, file, col)) in page_files.iter().enumerate() {
        if *id != i {
            return Err(LoadError::new(path, format!("pages must be numbered from 0 without gaps (page {id})")));
        }
        let (width, height, rgba) = page(file).map_err(|e| {
            let line =
                text.lines().position(|l| l.starts_with("page") && l.contains(file.as_str())).map_or(1, |p| p + 1);
            LoadError::at(path, line, *col, format!("page '{file}': {e}"))
        })?;
        if width > MAX_PAGE_SIDE || height > MAX_PAGE_SIDE || rgba.len() != width as usize * height as usize * 4 {
            return Err(LoadError::new(path, format!("page '{file}' is larger than {MAX_PAGE_SIDE} texels a side")));
        }
        // The alpha where the page is transparent anywhere; else its brightness (a white-on-black
        // page exported without alpha).
        let opaque = rgba.chunks_exact(4).all(|p| p[3] == 255);
        let coverage = rgba.chunks_exact(4).map(|p| if opaque { p[0].max(p[1]).max(p[2]) } else { p[3] }).collect();
        font.pages.push(Page { width, height, coverage });
    }
    for (c, &i) in &font.by_char {
        let g = font.glyphs[i as usize];
        let fits = font.pages.get(g.page).is_some_and(|p| {
            u64::from(g.x) + u64::from(g.width) <= u64::from(p.width)
                && u64::from(g.y) + u64::from(g.height) <= u64::from(p.height)
        });
        if !fits && g.width > 0 && g.height > 0 {
            return Err(LoadError::new(
                path,
                format!("character {:?} ({}): its rectangle is outside page {}", c, *c as u32, g.page),
            ));
        }
    }
    Ok(font)
}

impl BitmapFont {
    /// The glyph's coverage at `scale` times its size (nearest texel: a bitmap font is pixels),
    /// with its left and bottom edges from the pen in pixels, y up.
    pub fn rasterize(&self, glyph: u16, scale: f32) -> (Vec<u8>, usize, usize, i32, i32) {
        let Some(g) = self.glyphs.get(glyph as usize) else { return (Vec::new(), 0, 0, 0, 0) };
        let Some(page) = self.pages.get(g.page) else { return (Vec::new(), 0, 0, 0, 0) };
        if g.width == 0 || g.height == 0 || !(scale > 0.0 && scale.is_finite()) {
            return (Vec::new(), 0, 0, 0, 0);
        }
        let (w, h) = ((g.width as f32 * scale).round() as usize, (g.height as f32 * scale).round() as usize);
        if w == 0 || h == 0 || w > super::atlas::ATLAS_SIZE || h > super::atlas::ATLAS_SIZE {
            return (Vec::new(), 0, 0, 0, 0);
        }
        let mut px = vec![0u8; w * h];
        for (row, out) in px.chunks_exact_mut(w).enumerate() {
            let sy = g.y as usize + ((row as f32 + 0.5) / scale) as usize;
            for (col, p) in out.iter_mut().enumerate() {
                let sx = g.x as usize + ((col as f32 + 0.5) / scale) as usize;
                *p = page.coverage.get(sy * page.width as usize + sx).copied().unwrap_or(0);
            }
        }
        let left = (g.xoffset * scale).round() as i32;
        let bottom = ((self.base - g.yoffset - g.height as f32) * scale).round() as i32;
        (px, w, h, left, bottom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x2 page: the left half opaque white, the right half clear.
    fn page(_: &str) -> PageImage {
        let texel = |x: u32| if x < 2 { [255, 255, 255, 255] } else { [255, 255, 255, 0] };
        Ok((4, 2, (0..2).flat_map(|_| (0..4).flat_map(texel)).collect()))
    }

    const FNT: &str = "info face=\"T\" size=-16 bold=0\n\
        common lineHeight=20 base=15 scaleW=4 scaleH=2 pages=1 packed=0\n\
        page id=0 file=\"t.png\"\n\
        chars count=2\n\
        char id=65 x=0 y=0 width=2 height=2 xoffset=1 yoffset=11 xadvance=9 page=0 chnl=15\n\
        char id=66 x=2 y=0 width=2 height=2 xoffset=0 yoffset=0 xadvance=7 page=0 chnl=15\n\
        kerning first=65 second=66 amount=-2\n";

    #[test]
    fn a_text_file_gives_its_glyphs_metrics_and_kerning() {
        let f = parse("/t.fnt", FNT, &mut page).expect("parses");
        assert_eq!((f.size, f.line_height, f.base), (16.0, 20.0, 15.0));
        let a = f.by_char[&'A'];
        let b = f.by_char[&'B'];
        assert_eq!(f.glyphs[a as usize].xadvance, 9.0);
        assert_eq!(f.kerning[&(a, b)], -2.0);
        // A stands 1 pixel right of the pen, its bottom 15 - 11 - 2 = 2 above the baseline.
        let (px, w, h, left, bottom) = f.rasterize(a, 1.0);
        assert_eq!((w, h, left, bottom), (2, 2, 1, 2));
        assert_eq!(px, vec![255; 4]);
        let (px, ..) = f.rasterize(b, 1.0);
        assert_eq!(px, vec![0; 4], "B's rectangle is the clear half");
        let (px, w, h, ..) = f.rasterize(a, 2.0);
        assert_eq!((w, h, px.len()), (4, 4, 16));
        assert_eq!(f.rasterize(0, 1.0).1, 0, "no character draws nothing");
    }

    #[test]
    fn bad_files_are_refused_with_their_place() {
        let e = parse("/t.fnt", &FNT.replace("xadvance=9", "xadvance=lots"), &mut page).unwrap_err();
        assert_eq!((e.line, e.column), (Some(5), Some(67)), "{e}");
        let e = parse("/t.fnt", &FNT.replace("x=2 y=0 width=2", "x=3 y=0 width=2"), &mut page).unwrap_err();
        assert!(e.message.contains("outside page 0"), "{e}");
        let e = parse("/t.fnt", &FNT.replace("lineHeight=20", "lineHeight=0"), &mut page).unwrap_err();
        assert!(e.message.contains("lineHeight"), "{e}");
        let e = parse("/t.fnt", "<?xml version=\"1.0\"?><font/>", &mut page).unwrap_err();
        assert!(e.message.contains("text format"), "{e}");
        let e = parse("/t.fnt", "not a font at all", &mut page).unwrap_err();
        assert!(e.message.contains("no `common` line"), "{e}");
        let missing = &mut |_: &str| -> PageImage { Err("resource not found".into()) };
        let e = parse("/t.fnt", FNT, missing).unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("page 't.png': resource not found"), "{e}");
        let huge = FNT.replace("char id=66 x=2", "char id=66 x=4000000000");
        assert!(parse("/t.fnt", &huge, &mut page).is_err());
    }
}
