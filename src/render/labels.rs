//! Label quads: each label's text is laid out in screen pixels around the point its game object
//! projects to, at that point's depth, so it always faces the camera, keeps its size on screen
//! and is hidden by what stands in front of its object (the usual name-tag behaviour of 3D
//! games; gameplay.md section 3) — except that a world-sized label (Defold's) under an
//! orthographic camera is sized, turned and scaled as its object is on screen, as Defold's 2D
//! views draw labels. Glyphs come from the overlay's glyph atlas, in the label's font or the
//! built-in face; what the face lacks is its box.
use super::{DrawList, LabelItem};
use crate::project::font::atlas::GlyphAtlas;
use crate::project::font::file::Font;
use crate::project::font::quads::{TextEffects, push_text, quad_count};
use crate::project::font::{Face, TextStyle};
use glam::Vec4;

/// Glyph quads (text and outline) drawn per frame at most; the rest of the labels are dropped
/// with one warning, so a script cannot grow a frame's vertex buffer without bound.
pub const MAX_LABEL_GLYPHS: usize = 1 << 16;

/// The outline's width: a twelfth of the size, at least a pixel.
pub fn outline_width(size: f32) -> f32 {
    (size / 12.0).max(1.0)
}

/// Appends every label's quads (outline first, then text) in normalised device coordinates.
/// False when the atlas was emptied meanwhile (see [`push_text`]).
pub(super) fn label_vertices(
    list: &DrawList,
    size: (u32, u32),
    atlas: &mut GlyphAtlas,
    face: &Face,
    out: &mut Vec<f32>,
) -> bool {
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    let view_proj = list.camera.proj * list.camera.view;
    let ortho = is_orthographic(list.camera.proj);
    let mut glyphs = 0usize;
    let mut fresh = true;
    for item in &list.labels {
        let clip = view_proj * Vec4::new(item.position.x, item.position.y, item.position.z, 1.0);
        // Behind the camera, or past its near or far plane: not drawn.
        let in_depth = clip.w > 1e-6 && clip.z.abs() <= clip.w;
        if !in_depth {
            continue;
        }
        let ndc = clip.truncate() / clip.w;
        // A world-sized label under an orthographic camera: its object's axes on screen, in
        // pixels per unit, give its size and its turn; otherwise upright at its own size.
        let (zoom, turn) = match item.world_size && ortho {
            true => on_screen(view_proj, item.axes, (w, h)),
            false => ([1.0; 2], [1.0, 0.0]),
        };
        let (sx, sy) = (item.scale[0] * zoom[0], item.scale[1] * zoom[1]);
        let (gw, gh) = (item.size * sx, item.size * sy);
        if !(gw.is_finite() && gh.is_finite() && gw != 0.0 && gh != 0.0) {
            continue;
        }
        let text = list.label_text(item);
        let font = (item.font as usize).checked_sub(1).and_then(|i| list.label_fonts.get(i));
        let face = font.map_or(face, |f| &*f.face);
        // Lines align left, centre or right with the pivot.
        let style = TextStyle {
            align: item.anchor[0],
            wrap: (item.wrap > 0.0).then_some(item.wrap),
            leading: item.leading,
            tracking: item.tracking,
            ..TextStyle::sized(item.size)
        };
        let layout = face.layout(text, &style);
        let fx = label_effects(item, font.map(|f| &**f));
        let quads = quad_count(&layout, &fx);
        if glyphs + quads > MAX_LABEL_GLYPHS {
            warn_once();
            break;
        }
        glyphs += quads;
        // Whole pixels, so the text stays as crisp as its rasterisation (unturned).
        let (px, py) = ((ndc.x + 1.0) * 0.5 * w, (ndc.y + 1.0) * 0.5 * h);
        let left = (px - item.anchor[0] * layout.width * sx).round();
        let top = (py + (1.0 - item.anchor[1]) * layout.height * sy).round();
        let [c, s] = turn;
        let mut place = |x: f32, y: f32| {
            // Turned about the label's point.
            let (dx, dy) = (left + x - px, top + y - py);
            let (x, y) = (px + c * dx - s * dy, py + s * dx + c * dy);
            [x / w * 2.0 - 1.0, y / h * 2.0 - 1.0, ndc.z]
        };
        fresh &= push_text(atlas, face, &layout, item.size, [sx, sy], &fx, &mut place, out);
    }
    fresh
}

/// Under an orthographic projection a label whose size is in world units (Defold's) is drawn
/// in its object's plane: it grows as the camera zooms in and turns and scales with its
/// object. Under a perspective one every label keeps its size on screen, upright (a name tag).
fn is_orthographic(proj: glam::Mat4) -> bool {
    proj.z_axis.w == 0.0 && proj.w_axis.w == 1.0
}

/// The screen pixels one unit along each of `axes` (a label's world x and y axes, its object's
/// scale included) covers, and the x axis's direction on screen as (cos, sin); an axis that
/// vanishes on screen gives 1 and no turn.
fn on_screen(view_proj: glam::Mat4, axes: [glam::Vec3; 2], (w, h): (f32, f32)) -> ([f32; 2], [f32; 2]) {
    let pixels = |a: glam::Vec3| {
        let d = view_proj * a.extend(0.0);
        glam::Vec2::new(d.x * 0.5 * w, d.y * 0.5 * h)
    };
    let (x, y) = (pixels(axes[0]), pixels(axes[1]));
    let (lx, ly) = (x.length(), y.length());
    if !(lx.is_finite() && ly.is_finite() && lx > 1e-6 && ly > 1e-6) {
        return ([1.0; 2], [1.0, 0.0]);
    }
    ([lx, ly], [x.x / lx, x.y / lx])
}

/// How a label's text is drawn: with a font, its alpha, outline width and shadow as Defold
/// draws them (a font without an outline draws none, whatever the label's outline colour);
/// without one, the built-in face's outline (a twelfth of the size wide) when its alpha is
/// above 0.
fn label_effects(item: &LabelItem, font: Option<&Font>) -> TextEffects {
    let [r, g, b, a] = item.color;
    match font {
        None => TextEffects {
            outline: item.outline,
            outline_width: outline_width(item.size),
            ..TextEffects::plain(item.color)
        },
        Some(f) => {
            let [or, og, ob, oa] = item.outline;
            let [sr, sg, sb, sa] = item.shadow;
            let shadowed = f.shadow_alpha > 0.0;
            TextEffects {
                color: [r, g, b, a * f.alpha],
                outline: [or, og, ob, if f.outline_width > 0.0 { oa * f.outline_alpha } else { 0.0 }],
                outline_width: f.outline_width,
                shadow: [sr, sg, sb, if shadowed { sa * f.shadow_alpha } else { 0.0 }],
                shadow_offset: f.shadow,
            }
        }
    }
}

#[cold]
fn warn_once() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| log::warn!("labels: more than {MAX_LABEL_GLYPHS} glyphs in one frame; the rest are not drawn"));
}

#[cfg(test)]
mod tests {
    use super::super::{CameraView, LabelItem};
    use super::*;
    use crate::project::font::quads::FLOATS;
    use glam::{Mat4, Vec3};

    fn item(position: Vec3, anchor: [f32; 2]) -> LabelItem {
        LabelItem { anchor, ..LabelItem::plain(position, 16.0) }
    }

    /// A camera whose clip space is the world: x, y in -1..1 map to the whole window.
    fn list() -> DrawList {
        DrawList::new(CameraView { view: Mat4::IDENTITY, proj: Mat4::IDENTITY, ..Default::default() })
    }

    /// Pixel bounds (left, bottom, right, top) of the vertices of glyphs `from..to` in a
    /// 200×100 window.
    fn bounds(v: &[f32], from: usize, to: usize) -> [f32; 4] {
        let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for i in from * 6..to * 6 {
            let (x, y) = ((v[i * FLOATS] + 1.0) * 100.0, (v[i * FLOATS + 1] + 1.0) * 50.0);
            b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
        b
    }

    fn vertices(l: &DrawList) -> Vec<f32> {
        let mut v = Vec::new();
        assert!(label_vertices(l, (200, 100), &mut GlyphAtlas::default(), &Face::default_face(), &mut v));
        v
    }

    #[test]
    fn pivots_place_the_text_block_around_the_point() {
        let face = Face::default_face();
        let mut l = list();
        l.push_label(item(Vec3::ZERO, [0.5, 0.5]), "HH", None);
        l.push_label(item(Vec3::ZERO, [0.0, 0.0]), "H", None);
        l.push_label(item(Vec3::ZERO, [1.0, 1.0]), "H\nHH", None);
        let v = vertices(&l);
        assert_eq!(v.len(), 6 * 6 * FLOATS, "6 glyphs");
        let block = face.layout("HH", &TextStyle::sized(16.0));
        // Centre: the ink of "HH" straddles the point (100, 50) both ways.
        let c = bounds(&v, 0, 2);
        assert!(c[0] < 100.0 && c[2] > 100.0 && c[1] < 50.0 && c[3] > 50.0, "{c:?}");
        assert!((c[0] - (100.0 - block.width / 2.0)).abs() < 3.0, "{c:?}");
        // South-west: the ink right of and above the point.
        let sw = bounds(&v, 2, 3);
        assert!(sw[0] >= 100.0 && sw[1] >= 50.0 && sw[0] < 104.0, "{sw:?}");
        // North-east: the ink left of and below the point, each line right-aligned.
        let ne1 = bounds(&v, 3, 4);
        let ne2 = bounds(&v, 4, 6);
        assert!(ne2[2] <= 100.0 && ne2[3] <= 50.0, "{ne2:?}");
        assert!((ne1[2] - ne2[2]).abs() < 1.0 && ne1[1] > ne2[3], "{ne1:?} {ne2:?}");
        // Every vertex at the point's depth.
        assert!((0..v.len() / FLOATS).all(|i| v[i * FLOATS + 2] == 0.0));
    }

    #[test]
    fn behind_the_camera_is_not_drawn_and_outline_comes_first() {
        let mut l = list();
        l.camera.proj = glam::camera::rh::proj::opengl::perspective(1.0, 2.0, 0.1, 100.0);
        l.push_label(item(Vec3::new(0.0, 0.0, 5.0), [0.5; 2]), "behind", None);
        let mut outlined = item(Vec3::new(0.0, 0.0, -5.0), [0.5; 2]);
        outlined.outline = [0.0, 0.0, 0.0, 1.0];
        outlined.color = [1.0, 0.0, 0.0, 1.0];
        l.push_label(outlined, "a \u{10ffff}", None);
        let v = vertices(&l);
        // 'a' and the box for the character the face lacks (the space draws nothing), each
        // outline then text.
        assert_eq!(v.len(), 2 * 2 * 6 * FLOATS);
        let color = |g: usize| &v[g * 6 * FLOATS + 5..g * 6 * FLOATS + 9];
        assert_eq!(color(0), &[0.0, 0.0, 0.0, 1.0]);
        assert_eq!(color(3), &[1.0, 0.0, 0.0, 1.0]);
        // The outline is wider than its glyph.
        let (o, t) = (bounds(&v, 0, 1), bounds(&v, 2, 3));
        assert!(o[0] < t[0] && o[2] > t[2]);
        // Scale x = 2: twice as wide.
        let mut wide = list();
        wide.camera = l.camera;
        outlined.scale = [2.0, 1.0];
        wide.push_label(outlined, "a \u{10ffff}", None);
        let w = vertices(&wide);
        let (one, two) = (bounds(&v, 0, 4), bounds(&w, 0, 4));
        assert!(((two[2] - two[0]) / (one[2] - one[0]) - 2.0).abs() < 0.15, "{one:?} {two:?}");
    }

    #[test]
    fn labels_wrap_at_their_width() {
        let mut l = list();
        l.push_label(item(Vec3::ZERO, [0.5; 2]), "ab ab ab", None);
        l.push_label(LabelItem { wrap: 40.0, ..item(Vec3::ZERO, [0.5; 2]) }, "ab ab ab", None);
        l.push_label(LabelItem { leading: 2.0, ..item(Vec3::ZERO, [0.5; 2]) }, "ab\nab", None);
        l.push_label(item(Vec3::ZERO, [0.5; 2]), "ab\nab", None);
        let v = vertices(&l);
        assert_eq!(v.len(), 20 * 6 * FLOATS, "the same glyphs however the lines break");
        let (one, three) = (bounds(&v, 0, 6), bounds(&v, 6, 12));
        let (w, h) = (|b: [f32; 4]| b[2] - b[0], |b: [f32; 4]| b[3] - b[1]);
        assert!(h(three) > 2.0 * h(one) && w(three) <= 40.0 && w(one) > 40.0, "{one:?} {three:?}");
        let (spaced, plain) = (bounds(&v, 12, 16), bounds(&v, 16, 20));
        assert!(h(spaced) > 1.4 * h(plain), "leading 2 spaces the lines: {spaced:?} {plain:?}");
    }

    #[test]
    fn a_labels_font_decides_its_outline_and_shadow() {
        let mut font = Font::default_sized(20.0);
        let outlined = LabelItem { outline: [1.0, 0.0, 0.0, 1.0], ..item(Vec3::ZERO, [0.5; 2]) };
        // Defold: a font without an outline draws none, whatever the label's outline colour.
        let fx = label_effects(&outlined, Some(&font));
        assert_eq!((fx.outline[3], fx.shadow[3]), (0.0, 0.0));
        (font.outline_width, font.outline_alpha, font.shadow_alpha, font.shadow) = (3.0, 0.5, 1.0, [2.0, -2.0]);
        let fx = label_effects(&outlined, Some(&font));
        assert_eq!((fx.outline, fx.outline_width), ([1.0, 0.0, 0.0, 0.5], 3.0));
        assert_eq!((fx.shadow, fx.shadow_offset), ([0.0, 0.0, 0.0, 1.0], [2.0, -2.0]));
        // Without a font: the built-in outline, a twelfth of the size.
        let fx = label_effects(&outlined, None);
        assert_eq!((fx.outline[3], fx.outline_width), (1.0, outline_width(16.0)));
        // Drawn in the font: shadow, outline and text quads for the one glyph.
        let mut l = list();
        l.push_label(outlined, "a", Some(&std::sync::Arc::new(font)));
        assert_eq!(vertices(&l).len(), 3 * 6 * FLOATS);
    }

    #[test]
    fn an_orthographic_zoom_scales_labels_and_a_perspective_does_not() {
        let ortho = glam::camera::rh::proj::opengl::orthographic(0.0, 100.0, 0.0, 50.0, -1.0, 1.0);
        let ((zoom, turn), axes) = (on_screen(ortho, [Vec3::X, Vec3::Y], (200.0, 100.0)), [Vec3::X, Vec3::Y]);
        assert!((zoom[0] - 2.0).abs() < 1e-5 && (zoom[1] - 2.0).abs() < 1e-5, "100 units over 200 pixels: {zoom:?}");
        assert_eq!(turn, [1.0, 0.0]);
        // An object turned a quarter and scaled 3 along its x axis.
        let turned = [Vec3::Y * 3.0, -Vec3::X];
        let (zoom, turn) = on_screen(ortho, turned, (200.0, 100.0));
        assert!((zoom[0] - 6.0).abs() < 1e-4 && (turn[1] - 1.0).abs() < 1e-5, "{zoom:?} {turn:?} {axes:?}");
        assert!(is_orthographic(ortho));
        let perspective = glam::camera::rh::proj::opengl::perspective(1.0, 2.0, 0.1, 100.0);
        assert!(!is_orthographic(perspective));
        let text = |proj| {
            let mut l = list();
            l.camera.proj = proj;
            let world = LabelItem { world_size: true, ..item(Vec3::new(50.0, 25.0, 0.0), [0.5; 2]) };
            l.push_label(world, "HH", None);
            let v = vertices(&l);
            let b = bounds(&v, 0, 2);
            b[3] - b[1]
        };
        let (one, two) =
            (text(glam::camera::rh::proj::opengl::orthographic(0.0, 200.0, 0.0, 100.0, -1.0, 1.0)), text(ortho));
        assert!((two / one - 2.0).abs() < 0.2, "twice the pixels per unit, twice the height: {one} {two}");
    }

    #[test]
    fn a_world_sized_label_turns_with_its_object_under_an_orthographic_camera() {
        let mut l = list();
        l.camera.proj = glam::camera::rh::proj::opengl::orthographic(0.0, 200.0, 0.0, 100.0, -1.0, 1.0);
        let at = Vec3::new(100.0, 50.0, 0.0);
        let upright = LabelItem { world_size: true, ..item(at, [0.5; 2]) };
        let turned = LabelItem { axes: [Vec3::Y, -Vec3::X], ..upright };
        let name_tag = LabelItem { world_size: false, ..turned };
        for label in [upright, turned, name_tag] {
            l.push_label(label, "HHHH", None);
        }
        let v = vertices(&l);
        let (w, h) = (|b: [f32; 4]| b[2] - b[0], |b: [f32; 4]| b[3] - b[1]);
        let (a, b, c) = (bounds(&v, 0, 4), bounds(&v, 4, 8), bounds(&v, 8, 12));
        assert!(w(a) > 2.0 * h(a), "upright: a wide block {a:?}");
        assert!(h(b) > 2.0 * w(b), "a quarter turn: a tall block {b:?}");
        assert!((w(b) - h(a)).abs() < 1.0 && (h(b) - w(a)).abs() < 1.0, "the same block turned: {a:?} {b:?}");
        assert!(w(c) > 2.0 * h(c), "a label sized in pixels stays upright: {c:?}");
    }
}
