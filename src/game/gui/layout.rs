//! Where each node is on screen. A scene is designed for the project's display size; on a
//! window of another size each root node keeps its place relative to its anchors (the window's
//! centre when it has none, else the left/right and top/bottom edges) and is scaled by its
//! adjust mode: `fit` the smaller of the two window/display ratios, `zoom` the larger,
//! `stretch` each axis by its own (Defold's rules). Children inherit their parent's transform,
//! so a panel and its contents move and scale as one.
use crate::project::gui::{AdjustMode, GuiNode, XAnchor, YAnchor};
use glam::{Mat4, Vec3};

/// One node placed: its transform to screen pixels (origin bottom-left), the alpha it is drawn
/// with, and whether it is drawn at all (it and all its ancestors enabled).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub world: Mat4,
    pub alpha: f32,
    pub enabled: bool,
    /// The node's size after `size_mode` (texture size for auto nodes is applied by `draw`).
    pub size: [f32; 2],
}

/// The per-axis scale an adjust mode gives for a window/display ratio.
pub fn adjust_scale(mode: AdjustMode, display: (u32, u32), window: (u32, u32)) -> (f32, f32) {
    let sx = window.0.max(1) as f32 / display.0.max(1) as f32;
    let sy = window.1.max(1) as f32 / display.1.max(1) as f32;
    match mode {
        AdjustMode::Fit => (sx.min(sy), sx.min(sy)),
        AdjustMode::Zoom => (sx.max(sy), sx.max(sy)),
        AdjustMode::Stretch => (sx, sy),
    }
}

/// A root node's position on a `window` screen, designed at `display`.
fn adjusted_position(n: &GuiNode, (ax, ay): (f32, f32), display: (u32, u32), window: (u32, u32)) -> Vec3 {
    let (dw, dh) = (display.0 as f32, display.1 as f32);
    let (ww, wh) = (window.0 as f32, window.1 as f32);
    let p = n.position;
    let x = match n.xanchor {
        XAnchor::None => ww * 0.5 + (p.x - dw * 0.5) * ax,
        XAnchor::Left => p.x * ax,
        XAnchor::Right => ww - (dw - p.x) * ax,
    };
    let y = match n.yanchor {
        YAnchor::None => wh * 0.5 + (p.y - dh * 0.5) * ay,
        YAnchor::Bottom => p.y * ay,
        YAnchor::Top => wh - (dh - p.y) * ay,
    };
    Vec3::new(x, y, p.z)
}

/// Places `nodes` (parents before children).
pub fn layout(nodes: &[GuiNode], display: (u32, u32), window: (u32, u32)) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let parent = n.parent.and_then(|p| out.get(p).copied());
        let finite = n.position.is_finite() && n.scale.is_finite() && n.rotation.is_finite();
        let (position, scale) = match parent {
            Some(_) => (n.position, n.scale),
            None => {
                let (ax, ay) = adjust_scale(n.adjust_mode, display, window);
                (adjusted_position(n, (ax, ay), display, window), n.scale * Vec3::new(ax, ay, 1.0))
            }
        };
        let local = Mat4::from_scale_rotation_translation(scale, n.rotation, position);
        let (world, alpha, enabled) = match parent {
            Some(p) => {
                let inherited = if n.inherit_alpha { p.alpha } else { 1.0 };
                (p.world * local, n.color[3] * inherited, p.enabled && n.enabled)
            }
            None => (local, n.color[3], n.enabled),
        };
        out.push(Placed { world, alpha, enabled: enabled && finite, size: n.size });
    }
    out
}
