//! `gui` components: each instance's nodes (starting as its scene's, then changed by scripts),
//! laid out in screen space against the project's display size ([`layout`]) and turned into one
//! draw list for all instances ([`draw`]): vertices and batches the renderer draws above the
//! world, independent of the camera. Game state only; nothing here touches GL.
pub mod draw;
pub mod layout;
#[cfg(test)]
mod tests;

use crate::project::font::atlas::GlyphAtlas;
use crate::project::gui::{GuiNode, GuiScene, GuiSpec};
use std::sync::Arc;

pub use draw::{GuiBatch, GuiDrawList, GuiTexture};

/// One `gui` component.
pub struct GuiInstance {
    pub slot: u32,
    pub id: String,
    pub scene: Arc<GuiScene>,
    /// The nodes now: the scene's, as scripts changed them. Parents before children.
    pub nodes: Vec<GuiNode>,
    pub alive: bool,
    pub enabled: bool,
    /// `gui.set_render_order`: higher draws later (on top).
    pub render_order: u32,
}

#[derive(Default)]
pub struct GuiWorld {
    pub instances: Vec<GuiInstance>,
    /// Glyphs of every GUI text node (one texture for all GUI text).
    pub atlas: GlyphAtlas,
    /// The last built draw list (its memory is reused).
    pub list: GuiDrawList,
    /// The display (design) size and window size of the last [`GuiWorld::build`]: `pick_node`
    /// and `get_screen_position` answer for the screen last drawn.
    pub screen: ((u32, u32), (u32, u32)),
    /// Node properties `gui.animate` drives through the tween kernel's script cells.
    pub animated: Vec<AnimatedValue>,
}

/// One float of one node that a tween cell drives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimatedValue {
    pub instance: u32,
    pub node: u32,
    /// `gui_get`'s `which` (position 0, euler 1, scale 2, size 3, colour 4, outline 5, shadow 6).
    pub which: u8,
    pub axis: u8,
    pub cell: u32,
    /// The value last copied: a cell that stopped changing (its tween ended) no longer
    /// overwrites what a script set since.
    pub last: f32,
}

/// The float of a node property element (`which` as in [`AnimatedValue`]).
pub fn node_value(n: &mut GuiNode, which: u8, axis: u8) -> Option<&mut f32> {
    let a = axis as usize;
    match which {
        0 => n.position.as_mut().get_mut(a),
        2 => n.scale.as_mut().get_mut(a),
        3 => n.size.get_mut(a),
        4 => n.color.get_mut(a),
        5 => n.outline.get_mut(a),
        6 => n.shadow.get_mut(a),
        _ => None,
    }
}

/// True when screen point `at` is inside node `i` as laid out on `window` (and inside every
/// clipping node above it): the inverse of each node's transform, so rotated nodes pick as
/// drawn.
pub fn pick(
    scene: &GuiScene,
    nodes: &[GuiNode],
    i: usize,
    display: (u32, u32),
    window: (u32, u32),
    at: (f32, f32),
) -> bool {
    let placed = layout::layout(nodes, display, window);
    let inside = |k: usize| -> bool {
        let (Some(n), Some(p)) = (nodes.get(k), placed.get(k)) else { return false };
        let local = p.world.inverse().transform_point3(glam::Vec3::new(at.0, at.1, 0.0));
        let [x0, y0, x1, y1] = draw::rect(n, draw::auto_size(scene, n));
        local.is_finite() && local.x >= x0 && local.x <= x1 && local.y >= y0 && local.y <= y1
    };
    if !placed.get(i).is_some_and(|p| p.enabled) || !inside(i) {
        return false;
    }
    let mut up = nodes[i].parent;
    while let Some(k) = up {
        if nodes[k].clipping && !inside(k) {
            return false;
        }
        up = nodes[k].parent;
    }
    true
}

impl GuiWorld {
    pub fn create(&mut self, slot: u32, id: &str, spec: &GuiSpec) -> u32 {
        self.instances.push(GuiInstance {
            slot,
            id: id.to_string(),
            scene: spec.0.clone(),
            nodes: spec.0.nodes.clone(),
            alive: true,
            enabled: true,
            render_order: 0,
        });
        (self.instances.len() - 1) as u32
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut GuiInstance> {
        self.instances.get_mut(i as usize).filter(|g| g.alive)
    }

    /// Copies the tween cells that changed in this frame's update into their nodes.
    pub fn apply_tweens(&mut self, cells: &[f32]) {
        let GuiWorld { instances, animated, .. } = self;
        animated.retain_mut(|a| {
            let Some(g) = instances.get_mut(a.instance as usize).filter(|g| g.alive) else { return false };
            let (Some(&v), Some(n)) = (cells.get(a.cell as usize), g.nodes.get_mut(a.node as usize)) else {
                return false;
            };
            if v.to_bits() != a.last.to_bits() {
                a.last = v;
                if let Some(slot) = node_value(n, a.which, a.axis) {
                    *slot = v;
                }
            }
            true
        });
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(g) = self.instances.get_mut(i as usize) {
            g.alive = false;
            g.nodes = Vec::new();
        }
    }

    /// Lays out every enabled instance for a `window` pixel screen whose design size is
    /// `display` (game.project's / project.json's), and rebuilds [`GuiWorld::list`].
    pub fn build(&mut self, display: (u32, u32), window: (u32, u32)) -> &GuiDrawList {
        self.screen = (display, window);
        let GuiWorld { instances, atlas, list, .. } = self;
        let mut order: Vec<usize> =
            (0..instances.len()).filter(|&i| instances[i].alive && instances[i].enabled).collect();
        order.sort_by_key(|&i| instances[i].render_order);
        // A second pass when the glyph atlas was emptied on the way (its first quads would
        // point at texels that are gone); the second fits, or its text is left out.
        for _ in 0..2 {
            list.clear();
            for &i in &order {
                let g = &instances[i];
                let placed = layout::layout(&g.nodes, display, window);
                draw::append(list, atlas, &g.scene, &g.nodes, &placed);
            }
            if !list.stale {
                break;
            }
        }
        &self.list
    }
}
