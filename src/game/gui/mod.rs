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

    pub fn remove(&mut self, i: u32) {
        if let Some(g) = self.instances.get_mut(i as usize) {
            g.alive = false;
            g.nodes = Vec::new();
        }
    }

    /// Lays out every enabled instance for a `window` pixel screen whose design size is
    /// `display` (game.project's / project.json's), and rebuilds [`GuiWorld::list`].
    pub fn build(&mut self, display: (u32, u32), window: (u32, u32)) -> &GuiDrawList {
        let GuiWorld { instances, atlas, list } = self;
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
