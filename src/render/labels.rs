//! Label quads: each label's text is laid out in screen pixels around the point its game object
//! projects to, at that point's depth, so it always faces the camera, keeps its size on screen
//! and is hidden by what stands in front of its object (the usual name-tag behaviour of 3D
//! games; gameplay.md section 3). Glyphs come from the overlay's atlas; what the font lacks is
//! its box.
use super::DrawList;
#[cfg(test)]
use super::overlay::FLOATS;
use super::overlay::{cell, uv};
use glam::Vec4;

/// Glyph quads (text and outline) drawn per frame at most; the rest of the labels are dropped
/// with one warning, so a script cannot grow a frame's vertex buffer without bound.
pub const MAX_LABEL_GLYPHS: usize = 1 << 16;

/// The eight one-font-pixel offsets of the outline.
const OUTLINE: [(f32, f32); 8] =
    [(-1.0, -1.0), (0.0, -1.0), (1.0, -1.0), (-1.0, 0.0), (1.0, 0.0), (-1.0, 1.0), (0.0, 1.0), (1.0, 1.0)];

/// Appends every label's quads (outline first, then text) in normalised device coordinates.
pub(super) fn label_vertices(list: &DrawList, size: (u32, u32), out: &mut Vec<f32>) {
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    let view_proj = list.camera.proj * list.camera.view;
    let mut glyphs = 0usize;
    for item in &list.labels {
        let clip = view_proj * Vec4::new(item.position.x, item.position.y, item.position.z, 1.0);
        // Behind the camera, or past its near or far plane: not drawn.
        let in_depth = clip.w > 1e-6 && clip.z.abs() <= clip.w;
        if !in_depth {
            continue;
        }
        let ndc = clip.truncate() / clip.w;
        let (gw, gh) = (item.size * item.scale[0], item.size * item.scale[1]);
        if !(gw.is_finite() && gh.is_finite() && gw != 0.0 && gh != 0.0) {
            continue;
        }
        let text = list.label_text(item);
        let drawn = text.chars().filter(|c| !c.is_whitespace()).count();
        let outlined = item.outline[3] > 0.0;
        let quads = drawn * if outlined { 1 + OUTLINE.len() } else { 1 };
        if glyphs + quads > MAX_LABEL_GLYPHS {
            warn_once();
            break;
        }
        glyphs += quads;
        // Whole pixels, so the nearest-sampled font stays crisp.
        let (sx, sy) = (((ndc.x + 1.0) * 0.5 * w).round(), ((ndc.y + 1.0) * 0.5 * h).round());
        let lines = text.split('\n').count() as f32;
        let top = sy + (1.0 - item.anchor[1]) * lines * gh;
        let to_ndc = |x: f32, y: f32| [x / w * 2.0 - 1.0, y / h * 2.0 - 1.0, ndc.z];
        let mut emit = |color: &[f32; 4], (dx, dy): (f32, f32)| {
            for (k, line) in text.split('\n').enumerate() {
                let width = line.chars().count() as f32 * gw;
                let x0 = (sx - item.anchor[0] * width).round() + dx;
                let y = top - (k + 1) as f32 * gh + dy;
                for (n, ch) in line.chars().enumerate() {
                    if ch.is_whitespace() {
                        continue;
                    }
                    let [u0, v0, u1, v1] = uv(cell(ch));
                    let x = x0 + n as f32 * gw;
                    let corners = [(x, y, u0, v1), (x + gw, y, u1, v1), (x + gw, y + gh, u1, v0), (x, y + gh, u0, v0)];
                    for i in [0, 1, 2, 0, 2, 3] {
                        let (px, py, u, v) = corners[i];
                        out.extend_from_slice(&to_ndc(px, py));
                        out.extend_from_slice(&[u, v]);
                        out.extend_from_slice(color);
                    }
                }
            }
        };
        if outlined {
            let (px, py) = (gw / 8.0, gh / 8.0);
            for (ox, oy) in OUTLINE {
                emit(&item.outline, (ox * px, oy * py));
            }
        }
        emit(&item.color, (0.0, 0.0));
    }
}

#[cold]
fn warn_once() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| log::warn!("labels: more than {MAX_LABEL_GLYPHS} glyphs in one frame; the rest are not drawn"));
}

#[cfg(test)]
mod tests {
    use super::super::{CameraView, LabelItem, Span};
    use super::*;
    use glam::{Mat4, Vec3};

    fn item(position: Vec3, anchor: [f32; 2]) -> LabelItem {
        LabelItem {
            position,
            text: Span::default(),
            size: 16.0,
            scale: [1.0; 2],
            color: [1.0; 4],
            outline: [0.0; 4],
            anchor,
        }
    }

    /// A camera whose clip space is the world: x, y in -1..1 map to the whole window.
    fn list() -> DrawList {
        DrawList::new(CameraView { view: Mat4::IDENTITY, proj: Mat4::IDENTITY, ..Default::default() })
    }

    /// (left, bottom) in pixels of glyph `g`'s quad in a 200×100 window.
    fn corner(v: &[f32], g: usize) -> (f32, f32) {
        let at = g * 6 * FLOATS;
        ((v[at] + 1.0) * 100.0, (v[at + 1] + 1.0) * 50.0)
    }

    #[test]
    fn pivots_place_the_text_block_around_the_point() {
        let mut l = list();
        l.push_label(item(Vec3::ZERO, [0.5, 0.5]), "ab");
        l.push_label(item(Vec3::ZERO, [0.0, 0.0]), "c");
        l.push_label(item(Vec3::ZERO, [1.0, 1.0]), "d\nef");
        let mut v = Vec::new();
        label_vertices(&l, (200, 100), &mut v);
        assert_eq!(v.len(), 6 * 6 * FLOATS, "6 glyphs");
        // Centre: 32 px wide, 16 high around (100, 50).
        assert_eq!((corner(&v, 0), corner(&v, 1)), ((84.0, 42.0), (100.0, 42.0)));
        // South-west: the block's bottom-left at the point.
        assert_eq!(corner(&v, 2), (100.0, 50.0));
        // North-east: the block's top-right at the point, each line right-aligned.
        assert_eq!((corner(&v, 3), corner(&v, 4), corner(&v, 5)), ((84.0, 34.0), (68.0, 18.0), (84.0, 18.0)));
        // Every vertex at the point's depth.
        assert!((0..v.len() / FLOATS).all(|i| v[i * FLOATS + 2] == 0.0));
    }

    #[test]
    fn behind_the_camera_is_not_drawn_and_outline_comes_first() {
        let mut l = list();
        l.camera.proj = glam::camera::rh::proj::opengl::perspective(1.0, 2.0, 0.1, 100.0);
        l.push_label(item(Vec3::new(0.0, 0.0, 5.0), [0.5; 2]), "behind");
        let mut outlined = item(Vec3::new(0.0, 0.0, -5.0), [0.5; 2]);
        outlined.outline = [0.0, 0.0, 0.0, 1.0];
        outlined.color = [1.0, 0.0, 0.0, 1.0];
        outlined.scale = [2.0, 1.0];
        l.push_label(outlined, "a €");
        let mut v = Vec::new();
        label_vertices(&l, (200, 100), &mut v);
        // 'a' and the box for '€' (the space draws nothing), each 8 outline copies + the text.
        assert_eq!(v.len(), 2 * 9 * 6 * FLOATS);
        let color = |g: usize| &v[g * 6 * FLOATS + 5..g * 6 * FLOATS + 9];
        assert_eq!(color(0), &[0.0, 0.0, 0.0, 1.0]);
        assert_eq!(color(17), &[1.0, 0.0, 0.0, 1.0]);
        // Scale x = 2: glyphs 32 px apart; the text is 3 × 32 wide, centred at 100.
        assert_eq!(corner(&v, 16).0, 52.0);
        assert_eq!(corner(&v, 17).0, 116.0);
        let box_uv = uv(cell('€'));
        assert_eq!(v[17 * 6 * FLOATS + 3], box_uv[0]);
    }
}
