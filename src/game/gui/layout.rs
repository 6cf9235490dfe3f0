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

/// The `position` that puts node `i`'s origin at `screen` (window pixels, as
/// `gui.get_screen_position` reports it): `layout` undone for that node, through its parent's
/// transform or, for a root, its anchors and adjust mode. `None` when the parent's transform
/// cannot be undone (a zero scale).
pub fn position_for_screen(
    nodes: &[GuiNode],
    placed: &[Placed],
    i: usize,
    screen: Vec3,
    display: (u32, u32),
    window: (u32, u32),
) -> Option<Vec3> {
    let n = nodes.get(i)?;
    let parent = n.parent.filter(|&p| nodes.get(p).is_some_and(|x| !x.deleted)).and_then(|p| placed.get(p));
    let p = match parent {
        Some(parent) => {
            if parent.world.determinant().abs() < 1e-12 {
                return None;
            }
            parent.world.inverse().transform_point3(screen)
        }
        None => {
            let (ax, ay) = adjust_scale(n.adjust_mode, display, window);
            let (dw, dh) = (display.0 as f32, display.1 as f32);
            let (ww, wh) = (window.0 as f32, window.1 as f32);
            let x = match n.xanchor {
                XAnchor::None => (screen.x - ww * 0.5) / ax + dw * 0.5,
                XAnchor::Left => screen.x / ax,
                XAnchor::Right => dw - (ww - screen.x) / ax,
            };
            let y = match n.yanchor {
                YAnchor::None => (screen.y - wh * 0.5) / ay + dh * 0.5,
                YAnchor::Bottom => screen.y / ay,
                YAnchor::Top => dh - (wh - screen.y) / ay,
            };
            Vec3::new(x, y, screen.z)
        }
    };
    p.is_finite().then_some(p)
}

/// The order nodes draw in (before layers sort them): depth first, each parent before its
/// children, siblings by (rank, index) — a scene's file order, with the nodes scripts made,
/// reparented or moved where Defold puts them. Deleted nodes are left out. Index order when it
/// already is that order (a scene as loaded, new roots), with no allocation but the result.
pub fn order(nodes: &[GuiNode]) -> Vec<usize> {
    let n = nodes.len();
    if index_order_draws(nodes) {
        return (0..n).collect();
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, x) in nodes.iter().enumerate().filter(|(_, x)| !x.deleted) {
        match x.parent {
            // Under a deleted node: deleted with it (`delete` marks the subtree).
            Some(p) if p < n && nodes[p].deleted => {}
            Some(p) if p < n && p != i => children[p].push(i),
            _ => roots.push(i),
        }
    }
    let key = |&i: &usize| (nodes[i].rank, i);
    roots.sort_by_key(key);
    for c in &mut children {
        c.sort_by_key(key);
    }
    let mut out = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        // A parent cycle (never made by the API) is cut rather than looped.
        if std::mem::replace(&mut visited[i], true) {
            continue;
        }
        out.push(i);
        stack.extend(children[i].iter().rev());
    }
    out
}

/// Whether index order is [`order`]'s: no deleted node, each node's parent is on the path
/// from the root to the node before it, and siblings' ranks never fall in index order.
fn index_order_draws(nodes: &[GuiNode]) -> bool {
    // The current path from a root: (node, rank of its last child seen).
    let mut path: Vec<(usize, u64)> = Vec::new();
    let mut last_root = 0u64;
    for (i, x) in nodes.iter().enumerate() {
        if x.deleted {
            return false;
        }
        let last = match x.parent {
            None => {
                path.clear();
                &mut last_root
            }
            Some(p) => {
                while path.last().is_some_and(|&(k, _)| k != p) {
                    path.pop();
                }
                match path.last_mut() {
                    Some((_, r)) => r,
                    None => return false,
                }
            }
        };
        if x.rank < *last {
            return false;
        }
        *last = x.rank;
        path.push((i, 0));
    }
    true
}

/// Places `nodes` (indexed as `nodes`; deleted nodes and those under them are not enabled).
pub fn layout(nodes: &[GuiNode], display: (u32, u32), window: (u32, u32)) -> Vec<Placed> {
    layout_in(nodes, &order(nodes), display, window)
}

/// [`layout`] with the nodes' [`order`] already worked out (the draw list needs it too).
pub fn layout_in(nodes: &[GuiNode], walk: &[usize], display: (u32, u32), window: (u32, u32)) -> Vec<Placed> {
    let off = Placed { world: Mat4::IDENTITY, alpha: 0.0, enabled: false, size: [0.0; 2] };
    let mut out: Vec<Placed> = vec![off; nodes.len()];
    let mut placed = vec![false; nodes.len()];
    for &i in walk {
        let n = &nodes[i];
        let parent = n.parent.and_then(|p| placed.get(p).copied().unwrap_or(false).then(|| out[p]));
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
        out[i] = Placed { world, alpha, enabled: enabled && finite, size: n.size };
        placed[i] = true;
    }
    out
}
