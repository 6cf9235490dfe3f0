use super::atlas::{GlyphAtlas, raster_size};
use super::file::load_font;
use super::*;
use crate::project::Resources;
use crate::project::json::Located;

fn face() -> Arc<Face> {
    Face::default_face()
}

fn path(p: &str) -> Located<String> {
    Located { value: p.to_string(), at: None }
}

fn with_files(files: &[(&str, &[u8])]) -> Resources {
    Resources::demo().with_overlay(files.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect())
}

#[test]
fn metrics_are_the_faces_own_advances_and_kerning() {
    let f = face();
    let size = 32.0;
    let text = "Sinew, AVA";
    let l = f.layout(text, &TextStyle::sized(size));
    // The width is the sum of the face's advances plus its kerning pairs, nothing made up.
    let glyphs: Vec<u16> = text.chars().map(|c| f.glyph(c)).collect();
    let mut expected = 0.0;
    for (i, g) in glyphs.iter().enumerate() {
        if i > 0 {
            expected += f.kern(glyphs[i - 1], *g, size);
        }
        expected += f.advance(*g, size);
    }
    assert!((l.width - expected).abs() < 1e-3, "{} vs {expected}", l.width);
    assert!(f.advance(f.glyph('W'), size) > f.advance(f.glyph('i'), size), "a proportional face");
    let (a, d) = f.ascent_descent(size);
    assert_eq!((l.max_ascent, l.max_descent, l.lines), (a, d, 1));
    assert!((l.height - (a + d)).abs() < 1e-4);
    // Twice the size: twice the width.
    let big = f.layout(text, &TextStyle::sized(2.0 * size));
    assert!((big.width - 2.0 * l.width).abs() < 0.05, "{} vs {}", big.width, l.width);
    // The space draws nothing; every other character is one glyph.
    assert_eq!(l.glyphs.len(), text.chars().filter(|c| !c.is_whitespace()).count());
}

#[test]
fn lines_wrap_at_words_and_align() {
    let f = face();
    let mut s = TextStyle::sized(20.0);
    let one = f.layout("aaa bbb ccc", &s);
    let word = f.layout("aaa", &s).width;
    s.wrap = Some(word * 2.5);
    let wrapped = f.layout("aaa bbb ccc", &s);
    assert_eq!(wrapped.lines, 2, "aaa bbb / ccc");
    assert!(wrapped.width < one.width);
    // The second line starts at the left, one line down.
    let c = wrapped.glyphs[6];
    assert_eq!(c.x, 0.0);
    assert!((c.y - (wrapped.glyphs[0].y - f.line_height(20.0))).abs() < 1e-4);
    // Newlines and right alignment: the short line ends where the long one does.
    let mut r = TextStyle::sized(20.0);
    r.align = 1.0;
    let l = f.layout("a\naaaa", &r);
    let last_a = l.glyphs[4];
    assert!((l.glyphs[0].x - last_a.x).abs() < 1e-3);
    assert_eq!(l.lines, 2);
    // As Defold lays text out, a newline at the very end starts no line; one before it does.
    let s20 = TextStyle::sized(20.0);
    assert_eq!(f.layout("Score:\n", &s20).lines, 1);
    assert_eq!(f.layout("Score:\n", &s20).height, f.layout("Score:", &s20).height);
    assert_eq!(f.layout("a\n\n", &s20).lines, 2);
    assert_eq!(f.layout("\n", &s20).lines, 1);
    // UTF-8: characters, not bytes; one the face lacks is its box (glyph 0).
    let u = f.layout("é€\u{10ffff}", &TextStyle::sized(20.0));
    assert_eq!(u.glyphs.len(), 3);
    assert_ne!(u.glyphs[0].glyph, 0);
    assert_eq!(u.glyphs[2].glyph, 0);
}

#[test]
fn hostile_sizes_and_text_are_bounded() {
    let f = face();
    for size in [f32::NAN, f32::INFINITY, -5.0, 1e30] {
        let l = f.layout("abc", &TextStyle::sized(size));
        assert!(l.width.is_finite() && l.height.is_finite(), "size {size}");
    }
    let long = "x".repeat(MAX_LAYOUT_CHARS + 10);
    assert_eq!(f.layout(&long, &TextStyle::sized(1.0)).glyphs.len(), MAX_LAYOUT_CHARS);
    assert_eq!(raster_size(4096.0), (atlas::MAX_RASTER_SIZE as u16, 16.0));
    assert_eq!(raster_size(f32::NAN).0, 1);
}

/// A face claiming 16 units per em (the built-in one says 2048) draws its glyphs 128 times
/// bigger: at the largest raster size a "W" would be a bitmap of about a gigabyte. It gets no
/// bitmap, and nothing is allocated for it.
#[test]
fn a_glyph_bigger_than_an_atlas_page_is_not_rasterised() {
    let mut bytes = crate::project::resources::builtin(DEFAULT_FACE_PATH).expect("built-in face").to_vec();
    // The table directory: 12 bytes, then 16 per table (tag, checksum, offset, length);
    // `unitsPerEm` is at byte 18 of `head`.
    let tables = u16::from_be_bytes([bytes[4], bytes[5]]) as usize;
    let head = (0..tables)
        .map(|t| 12 + 16 * t)
        .find(|&at| &bytes[at..at + 4] == b"head")
        .map(|at| u32::from_be_bytes([bytes[at + 8], bytes[at + 9], bytes[at + 10], bytes[at + 11]]) as usize)
        .expect("a head table");
    bytes[head + 18..head + 20].copy_from_slice(&16u16.to_be_bytes());
    let big = Face::parse("/big.ttf", &bytes).expect("still a font");
    let (px, w, h, _, _) = big.rasterize(big.glyph('W'), atlas::MAX_RASTER_SIZE);
    assert_eq!((px.len(), w, h), (0, 0, 0));
    let (px, w, h, _, _) = big.rasterize(big.glyph('W'), 1.0);
    assert!(w > 0 && h > 0 && px.len() == w * h, "a small size still draws: {w}x{h}");
    let mut a = GlyphAtlas::default();
    assert_eq!(a.glyph(&big, big.glyph('W'), atlas::MAX_RASTER_SIZE as u16, 0), None, "no ink in the atlas");
}

#[test]
fn atlas_rasterises_once_and_outlines_grow_the_glyph() {
    let f = face();
    let mut a = GlyphAtlas::default();
    assert!(a.take_dirty());
    let g = f.glyph('A');
    let plain = a.glyph(&f, g, 32, 0).expect("A has ink");
    assert!(a.take_dirty() && !a.take_dirty());
    assert_eq!(a.glyph(&f, g, 32, 0), Some(plain), "cached");
    assert!(!a.take_dirty(), "a cached glyph uploads nothing");
    let outlined = a.glyph(&f, g, 32, 3).expect("outline");
    assert_eq!(outlined.quad[2], plain.quad[2] + 6.0);
    assert_eq!(outlined.quad[0], plain.quad[0] - 3.0);
    assert_eq!(a.glyph(&f, f.glyph(' '), 32, 0), None, "a space has no ink");
    // The texels under the glyph hold its coverage.
    let [u0, v0, u1, v1] = plain.uv;
    let n = atlas::ATLAS_SIZE as f32;
    let ink: u32 = (((v0 * n) as usize)..((v1 * n) as usize))
        .flat_map(|y| ((u0 * n) as usize..(u1 * n) as usize).map(move |x| (x, y)))
        .map(|(x, y)| a.texels()[y * atlas::ATLAS_SIZE + x] as u32)
        .sum();
    assert!(ink > 255 * 20);
    // Filling the atlas empties it and says so.
    let before = a.generation();
    for c in (0x21u32..0x2000).filter_map(char::from_u32) {
        a.glyph(&f, f.glyph(c), 200, 0);
        if a.generation() != before {
            break;
        }
    }
    assert_ne!(a.generation(), before);
}

#[test]
fn defold_and_json_font_files_load_alike() {
    let ttf: &[u8] = crate::project::resources::builtin(DEFAULT_FACE_PATH).unwrap();
    let defold = b"font: \"/f.ttf\"\nmaterial: \"/builtins/fonts/font.material\"\nsize: 28\noutline_alpha: 1.0\noutline_width: 2.0\nshadow_alpha: 0.5\nshadow_x: 3.0\nshadow_y: -2.0\nall_chars: false\nrender_mode: MODE_SINGLE_LAYER\n";
    let json = br#"{ "font": "/f.ttf", "size": 28, "outline_alpha": 1, "outline_width": 2, "shadow_alpha": 0.5, "shadow_x": 3, "shadow_y": -2 }"#;
    let res = with_files(&[("/f.ttf", ttf), ("/d.font", defold), ("/j.font", json)]);
    let d = load_font(&res, &path("/d.font"), "/x.gui", 10.0).unwrap();
    let j = load_font(&res, &path("/j.font"), "/x.gui", 10.0).unwrap();
    for f in [&d, &j] {
        assert_eq!(
            (f.size, f.outline_width, f.outline_alpha, f.shadow_alpha, f.shadow),
            (28.0, 2.0, 1.0, 0.5, [3.0, -2.0])
        );
    }
    // A bare face at the size asked for.
    assert_eq!(load_font(&res, &path("/f.ttf"), "/x.gui", 10.0).unwrap().size, 10.0);
    // The built-in default.font.
    assert_eq!(load_font(&res, &path("/builtins/fonts/default.font"), "/x.gui", 1.0).unwrap().size, 14.0);
}

#[test]
fn bad_font_files_name_the_place() {
    let res = with_files(&[
        ("/typo.font", b"font: \"/f.ttf\"\nsize: 28\noutline_widht: 2\n"),
        ("/nosize.font", b"font: \"/f.ttf\"\n"),
        ("/missing.font", b"font: \"/nope.ttf\"\nsize: 20\n"),
        ("/junk.ttf", b"not a font at all"),
        ("/junk.font", b"font: \"/junk.ttf\"\nsize: 20\n"),
        ("/huge.json.font", br#"{ "font": "/f.ttf", "size": 1e9 }"#),
    ]);
    let err = |p: &str| load_font(&res, &path(p), "/x.gui", 10.0).unwrap_err().to_string();
    assert!(err("/typo.font").starts_with("/typo.font:3:1: unknown field `outline_widht`"), "{}", err("/typo.font"));
    assert!(err("/nosize.font").contains("needs `size`"), "{}", err("/nosize.font"));
    assert!(err("/missing.font").starts_with("/missing.font:1:7:"), "{}", err("/missing.font"));
    assert!(err("/junk.font").contains("not a TrueType/OpenType font"), "{}", err("/junk.font"));
    assert!(err("/huge.json.font").contains("at most 2048"), "{}", err("/huge.json.font"));
}

/// A font file that is the built-in face's bytes gets the built-in face itself, parsed once
/// (the demo's HUD font is DejaVu Sans again); other bytes are parsed and checked as before.
#[test]
fn the_builtin_face_is_shared_not_parsed_again() {
    let ttf: &[u8] = crate::project::resources::builtin(DEFAULT_FACE_PATH).unwrap();
    let shared = Face::parse_shared("/fonts/copy.ttf", ttf).unwrap();
    assert!(Arc::ptr_eq(&shared, &Face::default_face()));
    assert!(Face::parse_shared("/junk.ttf", b"not a font").is_err());
    // Other bytes are never taken for the built-in face, whether they parse or not.
    if let Ok(f) = Face::parse_shared("/half.ttf", &ttf[..ttf.len() / 2]) {
        assert!(!Arc::ptr_eq(&f, &shared));
    }
}

/// A Defold `.font` naming a BMFont `.fnt` (britzl's udgj-boss): glyphs from its page at the
/// file's own size (the `.font`'s size is not used, as in Defold), advances and kerning from its
/// lines, coverage from the page's alpha; a page that is missing is named with its line.
#[test]
fn a_font_naming_a_bmfont_draws_from_its_page() {
    // An 8x8 page of 4x4 squares, opaque at the top left and bottom right: 'A' (the left 4x8)
    // is opaque in its top half only.
    let page = crate::project::gltf::samples::checker_png(8, 2, [255, 255, 255, 255], [255, 255, 255, 0]);
    let fnt = b"info face=\"P\" size=8\ncommon lineHeight=10 base=8 scaleW=8 scaleH=8 pages=1\n\
        page id=0 file=\"p.png\"\nchar id=65 x=0 y=0 width=4 height=8 xoffset=0 yoffset=0 xadvance=5 page=0\n\
        char id=32 x=0 y=0 width=0 height=0 xoffset=0 yoffset=0 xadvance=3 page=0\n\
        kerning first=65 second=65 amount=-1\n";
    let font = b"font: \"/fonts/p.fnt\"\nmaterial: \"/builtins/fonts/font-fnt.material\"\nsize: 40\n";
    let broken = b"font: \"/fonts/nopage.fnt\"\nsize: 40\n";
    let nopage = b"common lineHeight=10 base=8\npage id=0 file=\"gone.png\"\n";
    let res = with_files(&[
        ("/fonts/p.png", page.as_slice()),
        ("/fonts/p.fnt", fnt),
        ("/p.font", font),
        ("/fonts/nopage.fnt", nopage),
        ("/broken.font", broken),
    ]);
    let f = load_font(&res, &path("/p.font"), "/x.gui", 10.0).unwrap();
    assert_eq!(f.size, 8.0, "the .fnt's own size");
    let layout = f.face.layout("AA A", &TextStyle::sized(f.size));
    let xs: Vec<f32> = layout.glyphs.iter().map(|g| g.x).collect();
    // A, then A kerned by -1 after an advance of 5, a space of 3, then A.
    assert_eq!(xs, [0.0, 4.0, 12.0]);
    assert_eq!((layout.max_ascent, layout.max_descent, layout.lines), (8.0, 2.0, 1));
    let (px, w, h, left, bottom) = f.face.rasterize(f.face.glyph('A'), f.size);
    assert_eq!((w, h, left, bottom), (4, 8, 0, 0));
    assert_eq!((&px[..16], &px[16..]), (&[255; 16][..], &[0; 16][..]), "the page's alpha");
    assert_eq!(f.face.glyph('Z'), 0, "a character the file lacks is no glyph");
    let e = load_font(&res, &path("/broken.font"), "/x.gui", 10.0).unwrap_err().to_string();
    assert!(e.starts_with("/fonts/nopage.fnt:2:"), "{e}");
    assert!(e.contains("page 'gone.png'"), "{e}");
}
