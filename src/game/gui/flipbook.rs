//! GUI box nodes playing atlas animations. The timing is the sprites' ([`Clock`]: Defold's
//! playback modes, offset, rate, cursor), so a node and a sprite on the same flipbook show the
//! same frame on the same update; only who hears the end differs (`complete_function(self,
//! node)` of the gui script that played it).
use super::{GuiInstance, GuiWorld};
use crate::game::sprites::flipbook::Clock;
use crate::project::gui::GuiScene;
use crate::project::sprite::Flipbook;

/// The gui script to call when a once-flipbook ends.
pub use crate::game::ScriptCallback as Listener;

/// One node's flipbook: kept after it ends or is cancelled (the frame stays, and its cursor and
/// rate still read back), until the node plays another or loses its animation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeFlipbook {
    /// The node's slot.
    pub node: usize,
    pub clock: Clock,
    pub listener: Option<Listener>,
}

/// A once-flipbook that ended in the last [`GuiWorld::animate_flipbooks`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    pub instance: u32,
    pub node: usize,
    pub listener: Listener,
}

/// The flipbook node `n` of `scene` shows, if its texture is an atlas and it names one.
fn book<'a>(scene: &'a GuiScene, g: &[crate::project::gui::GuiNode], node: usize) -> Option<&'a Flipbook> {
    let n = g.get(node)?;
    scene.images.get(n.texture?)?.atlas.as_ref()?.animations.get(n.animation? as usize)
}

impl GuiInstance {
    /// The flipbook of `node`, if it has one.
    pub fn flipbook(&self, node: usize) -> Option<&NodeFlipbook> {
        self.flipbooks.iter().find(|f| f.node == node)
    }

    /// Starts animation `animation` of the node's atlas on the node (Defold's
    /// `gui.play_flipbook`): an unknown id is an error naming the ids the atlas has.
    pub fn play_flipbook(
        &mut self,
        node: usize,
        animation: &str,
        offset: f32,
        rate: f32,
        listener: Option<Listener>,
    ) -> Result<(), String> {
        let scene = self.scene.clone();
        let n = self.nodes.get(node).ok_or("the node was deleted")?;
        let Some(img) = n.texture.and_then(|t| scene.images.get(t)) else {
            return Err("the node has no texture to play an animation of".into());
        };
        let Some(atlas) = &img.atlas else {
            return Err(format!("texture '{}' is an image, not an atlas: it has no animation '{animation}'", img.name));
        };
        let Some(k) = atlas.animations.iter().position(|a| a.id == animation) else {
            let ids: Vec<&str> = atlas.animations.iter().map(|a| a.id.as_str()).collect();
            return Err(format!(
                "unknown animation '{animation}' of texture '{}' ({} has {})",
                img.name,
                img.path,
                if ids.is_empty() { "none".to_string() } else { ids.join(", ") }
            ));
        };
        self.nodes[node].animation = Some(k as u32);
        self.start(node, offset, rate, listener);
        Ok(())
    }

    /// (Re)starts the clock of the node's animation, replacing any flipbook it had.
    pub(super) fn start(&mut self, node: usize, offset: f32, rate: f32, listener: Option<Listener>) {
        self.flipbooks.retain(|f| f.node != node);
        self.push_clock(node, offset, rate, listener);
    }

    /// Adds a clock for a node that has none and shows its first frame.
    pub(super) fn push_clock(&mut self, node: usize, offset: f32, rate: f32, listener: Option<Listener>) {
        let Some(f) = book(&self.scene, &self.nodes, node) else { return };
        let clock = Clock::start(f, offset, rate);
        let frame = f.frames.get(clock.frame(f) as usize).copied().unwrap_or(0);
        self.nodes[node].frame = frame;
        self.flipbooks.push(NodeFlipbook { node, clock, listener });
    }

    /// A clone goes on from its original's place in the flipbook, as Defold copies a node's
    /// animations with it; the callback stays the original's alone.
    pub fn copy_flipbook(&mut self, from: usize, to: usize) {
        self.flipbooks.retain(|f| f.node != to);
        if let Some(f) = self.flipbook(from).copied() {
            self.flipbooks.push(NodeFlipbook { node: to, listener: None, ..f });
        }
    }

    /// `gui.cancel_flipbook`: the node stays on its frame and its callback is never called.
    pub fn cancel_flipbook(&mut self, node: usize) {
        if let Some(f) = self.flipbooks.iter_mut().find(|f| f.node == node) {
            f.clock.playing = false;
            f.listener = None;
        }
    }

    /// The flipbook's cursor (0 without one).
    pub fn flipbook_cursor(&self, node: usize) -> f32 {
        match (self.flipbook(node), book(&self.scene, &self.nodes, node)) {
            (Some(p), Some(f)) => p.clock.cursor(f),
            _ => 0.0,
        }
    }

    /// Moves the flipbook to `cursor` (0..1) and shows that frame at once.
    pub fn set_flipbook_cursor(&mut self, node: usize, cursor: f32) {
        let scene = self.scene.clone();
        let Some(f) = book(&scene, &self.nodes, node) else { return };
        if let Some(p) = self.flipbooks.iter_mut().find(|p| p.node == node) {
            p.clock.set_cursor(f, cursor);
            self.nodes[node].frame = f.frames.get(p.clock.frame(f) as usize).copied().unwrap_or(0);
        }
    }

    /// The flipbook's playback rate (1 without one, as a flipbook starts).
    pub fn flipbook_rate(&self, node: usize) -> f32 {
        self.flipbook(node).map_or(1.0, |p| p.clock.rate)
    }

    /// Negative and non-finite rates are 0 and 1, as `play_flipbook`'s.
    pub fn set_flipbook_rate(&mut self, node: usize, rate: f32) {
        if let Some(p) = self.flipbooks.iter_mut().find(|p| p.node == node) {
            p.clock.rate = if rate.is_finite() { rate.max(0.0) } else { 1.0 };
        }
    }

    /// The animations the scene's file gives its nodes play from the start, as Defold's do
    /// when a scene is made (and again on `gui.reset_nodes`).
    pub(super) fn start_file_flipbooks(&mut self) {
        self.flipbooks.clear();
        for node in 0..self.nodes.len() {
            if !self.nodes[node].deleted && self.nodes[node].animation.is_some() {
                self.push_clock(node, 0.0, 1.0, None);
            }
        }
    }

    /// Forgets the flipbooks of nodes that were deleted or no longer show an animation.
    pub fn drop_stale_flipbooks(&mut self) {
        let nodes = &self.nodes;
        self.flipbooks.retain(|f| nodes.get(f.node).is_some_and(|n| !n.deleted && n.animation.is_some()));
    }
}

impl GuiWorld {
    /// One frame of every playing node flipbook; once-flipbooks that ended (and have a
    /// listener) are left in `self.done`.
    /// Each scene runs on its object's world time (`scale`, as `TweenWorld::update_scaled`
    /// takes it).
    pub fn animate_flipbooks(&mut self, dt: f32, scale: &[f32]) {
        self.done.clear();
        for (i, g) in self.instances.iter_mut().enumerate() {
            if !g.alive || g.flipbooks.is_empty() {
                continue;
            }
            let dt = crate::anim::tween::scaled_dt(scale, g.slot, dt);
            let GuiInstance { scene, nodes, flipbooks, .. } = g;
            for p in flipbooks.iter_mut() {
                if !p.clock.playing {
                    continue;
                }
                let Some(f) = book(scene, nodes, p.node) else { continue };
                let ended = p.clock.advance(f, dt);
                let k = p.clock.frame(f);
                if let Some(n) = nodes.get_mut(p.node) {
                    n.frame = f.frames.get(k as usize).copied().unwrap_or(0);
                }
                if ended && let Some(listener) = p.listener.take() {
                    self.done.push(Done { instance: i as u32, node: p.node, listener });
                }
            }
        }
    }

    /// Adds the callback ids a live node flipbook may still call, so the once-a-frame sweep of
    /// play callbacks keeps them.
    pub fn extend_live_callbacks(&self, out: &mut Vec<u32>) {
        for g in self.instances.iter().filter(|g| g.alive) {
            out.extend(g.flipbooks.iter().filter_map(|f| f.listener).map(|l| l.callback));
        }
        // The particle nodes' emitter state functions.
        self.particles.extend_live_callbacks(out);
    }
}

/// The GUI flipbook phase of a frame: every node flipbook advanced, then the
/// `complete_function` of each once-flipbook that ended, in the same update (as sprites).
pub fn step(world: &std::cell::RefCell<crate::game::World>, hooks: &mut dyn crate::game::ScriptHooks, dt: f32) {
    let mut done = {
        let w = &mut *world.borrow_mut();
        w.gui.animate_flipbooks(dt, &w.proxies.time_scale);
        if w.gui.done.is_empty() {
            return;
        }
        std::mem::take(&mut w.gui.done)
    };
    for d in &done {
        // The gui script's wrapper calls `complete_function(self, node)` and reads nothing of
        // the message; it names the animation for anything that looks.
        let msg = {
            let w = world.borrow();
            let Some(g) = w.gui.instances.get(d.instance as usize) else { continue };
            let id = crate::base::hash::hash_remembered("animation_done");
            let fragment = crate::base::hash::hash_remembered(&g.id);
            let Some(&path) = w.scene.ids.get(g.slot as usize) else { continue };
            let sender = crate::scene::Url { socket: w.socket_of(g.slot), path, fragment };
            let mut data = Vec::new();
            crate::scene::message::encode(&crate::scene::message::MsgValue::Table(Vec::new()), &mut data);
            crate::scene::Message::new(sender, sender, id, data)
        };
        hooks.model_done(d.listener.script, d.listener.callback, &msg);
    }
    done.clear();
    world.borrow_mut().gui.done = done;
}
