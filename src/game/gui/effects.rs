//! Particle nodes (`TYPE_PARTICLEFX`): a node names one of its scene's `particlefxs`, and
//! `gui.play_particlefx` runs that effect at the node. The GUI keeps its own particle world
//! (the game objects' simulation, `game::particles`), placed in screen pixels at each node as
//! laid out, so an effect follows its node, its anchors and adjust mode; its particles draw in
//! the node's place in the GUI's draw order, with the emitter atlases' pixels the scene holds.
//!
//! Sinew decisions: an instance is made at the first play of a node and lives until the node
//! is deleted, shows another effect (`gui.set_particlefx`), or its scene is deleted or hot
//! reloaded (a saved `.gui` or effect stops the node's particles until its next play); a node
//! that is disabled keeps its particles but does not advance or draw them; the node's colour
//! and alpha tint its particles, as the emitter's `tint` constant does for a game object's.
use super::{GuiInstance, GuiWorld};
use crate::game::particles::{EmitterState, Listener, ParticleWorld};
use crate::project::gui::NodeKind;
use crate::project::particlefx::{ParticleFxComponent, ParticleFxSpec};
use glam::Mat4;
use std::sync::Arc;

/// A particle node that has been played: its node and its instance in
/// [`GuiWorld::particles`] (which runs the effect the node showed then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeEffect {
    pub node: usize,
    /// The node's generation: a new node in a deleted one's slot does not take its particles.
    pub generation: u16,
    pub instance: u32,
}

/// An emitter of a GUI effect that changed state, for its emitter state function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectChange {
    pub instance: u32,
    pub emitter: u32,
    pub state: EmitterState,
    pub listener: Listener,
}

impl GuiInstance {
    /// The effect node `node` shows, or why it has none.
    fn effect_of(&self, node: usize) -> Result<&Arc<ParticleFxSpec>, String> {
        let n = self.nodes.get(node).filter(|n| !n.deleted).ok_or("the node was deleted")?;
        if n.kind != NodeKind::ParticleFx {
            return Err(format!("node '{}' is not a particlefx node", n.id));
        }
        let effect = n.effect.and_then(|e| self.scene.effects.get(e));
        effect.map(|(_, spec)| spec).ok_or_else(|| format!("node '{}' has no particlefx", n.id))
    }

    /// Whether played node `e` still shows the effect its instance runs (not deleted, not
    /// given another effect, its scene not reloaded since).
    fn still_shows(&self, e: &NodeEffect, particles: &ParticleWorld) -> bool {
        self.gens.get(e.node) == Some(&e.generation)
            && self
                .effect_of(e.node)
                .is_ok_and(|spec| particles.get(e.instance).is_some_and(|p| Arc::ptr_eq(&p.spec, spec)))
    }
}

impl GuiWorld {
    /// `gui.play_particlefx`: starts node `node`'s effect (made at its first play), every
    /// emitter again; `listener` hears the emitters' states.
    pub fn play_effect(&mut self, inst: u32, node: usize, listener: Option<Listener>) -> Result<(), String> {
        let GuiWorld { instances, particles, .. } = self;
        let g = instances.get_mut(inst as usize).filter(|g| g.alive).ok_or("the gui was deleted")?;
        let effect = g.effect_of(node)?.clone();
        let current = g.effects.iter().find(|e| e.node == node).copied();
        let instance = match current {
            Some(e) if g.still_shows(&e, particles) => e.instance,
            stale => {
                if let Some(e) = stale {
                    particles.remove(e.instance);
                    g.effects.retain(|x| x.node != node);
                }
                let fx = ParticleFxComponent { effect, transform: crate::project::ComponentTransform::IDENTITY };
                // Each emitter's atlas as its index in the scene's images (which hold the
                // pixels the GUI draws), and the GUI's program (no custom particle material).
                let scene = g.scene.clone();
                let mut image = |a: &Arc<crate::project::sprite::Atlas>| {
                    scene.image_of_atlas(&a.source).map_or(u32::MAX, |i| i as u32)
                };
                let id = g.nodes[node].id.clone();
                let instance = particles.create(g.slot, &id, &fx, &mut image, &mut |_| Ok(None))?;
                let generation = g.gens.get(node).copied().unwrap_or(0);
                g.effects.push(NodeEffect { node, generation, instance });
                instance
            }
        };
        particles.play(instance, listener);
        Ok(())
    }

    /// `gui.stop_particlefx`: no more particles are born (`clear`: the living ones go too). A
    /// node never played has nothing to stop.
    pub fn stop_effect(&mut self, inst: u32, node: usize, clear: bool) -> Result<(), String> {
        let g = self.instances.get(inst as usize).filter(|g| g.alive).ok_or("the gui was deleted")?;
        g.effect_of(node)?;
        if let Some(e) = g.effects.iter().find(|e| e.node == node) {
            self.particles.stop(e.instance, clear);
        }
        Ok(())
    }

    /// Forgets the instances of nodes deleted or showing another effect since (a reloaded
    /// scene's effects are new ones), and every instance of a deleted scene.
    fn drop_stale_effects(&mut self) {
        let GuiWorld { instances, particles, .. } = self;
        for g in instances.iter_mut() {
            let mut effects = std::mem::take(&mut g.effects);
            effects.retain(|e| {
                let keep = g.alive && g.still_shows(e, particles);
                if !keep {
                    particles.remove(e.instance);
                }
                keep
            });
            g.effects = effects;
        }
    }

    /// One frame of every GUI effect, each at its node as laid out on the screen last drawn;
    /// the emitters that changed state (and have a listener) are left in `self.effect_changes`.
    pub fn step_effects(&mut self, dt: f32) {
        self.drop_stale_effects();
        let (display, window) = self.screen;
        let GuiWorld { instances, particles, frames, effect_changes, .. } = self;
        frames.clear();
        frames.resize(particles.instances.len(), None);
        for g in instances.iter().filter(|g| g.alive && g.enabled && !g.effects.is_empty()) {
            let playing = |e: &NodeEffect| {
                particles.get(e.instance).is_some_and(|p| p.emitter_states().any(|s| s != EmitterState::Sleeping))
            };
            if !g.effects.iter().any(playing) {
                continue;
            }
            let placed = super::layout::layout(&g.nodes, g.resolution.unwrap_or(display), window);
            for e in &g.effects {
                if let (Some(p), Some(f)) =
                    (placed.get(e.node).filter(|p| p.enabled), frames.get_mut(e.instance as usize))
                {
                    *f = Some(p.world);
                }
            }
        }
        particles.step_placed(dt, |i, _| frames.get(i as usize).copied().flatten());
        let mut changes = std::mem::take(&mut particles.changes);
        for c in changes.drain(..) {
            if let Some(listener) = particles.listener(c.instance) {
                effect_changes.push(EffectChange {
                    instance: c.instance,
                    emitter: c.emitter,
                    state: c.state,
                    listener,
                });
            }
        }
        particles.changes = changes;
        // The changes are told: an effect whose emitters all sleep stops listening.
        particles.forget_sleeping_listeners();
    }

    /// Appends node `node`'s particles (instance `g`'s), the node at `world`.
    pub(super) fn effect_quads(
        particles: &ParticleWorld,
        effects: &[NodeEffect],
        node: usize,
        world: Mat4,
        out: &mut Vec<crate::game::sprites::quads::SpriteQuad>,
    ) {
        if let Some(e) = effects.iter().find(|e| e.node == node) {
            particles.instance_quads(e.instance, world, out);
        }
    }
}

/// The GUI particle phase of a frame: every playing effect advanced, then the emitter state
/// functions of the changes, as `(self, node, emitter, state)` (the gui script's wrapper knows
/// the node; the message names the emitter and the state).
pub fn step(world: &std::cell::RefCell<crate::game::World>, hooks: &mut dyn crate::game::ScriptHooks, dt: f32) {
    use crate::base::hash::hash_remembered;
    use crate::scene::message::{MsgValue, encode};
    let changes = {
        let w = &mut *world.borrow_mut();
        w.gui.step_effects(dt);
        if w.gui.effect_changes.is_empty() {
            return;
        }
        std::mem::take(&mut w.gui.effect_changes)
    };
    for c in &changes {
        let msg = {
            let w = world.borrow();
            let Some(p) = w.gui.particles.get(c.instance) else { continue };
            let Some(spec) = p.spec.emitters.get(c.emitter as usize) else { continue };
            let Some(&path) = w.scene.ids.get(p.slot as usize) else { continue };
            let sender = crate::scene::Url { socket: w.socket_of(p.slot), path, fragment: 0 };
            let s = |k: &str| MsgValue::String(k.into());
            let table = MsgValue::Table(vec![
                (s("emitter"), MsgValue::Hash(hash_remembered(&spec.id))),
                (s("state"), MsgValue::Number(f64::from(c.state as u32))),
            ]);
            let mut data = Vec::new();
            encode(&table, &mut data);
            let id = hash_remembered("particlefx_emitter_state");
            crate::scene::Message::new(sender, sender, id, data)
        };
        hooks.callback_again(c.listener.script, c.listener.callback, &msg);
    }
    let mut changes = changes;
    changes.clear();
    world.borrow_mut().gui.effect_changes = changes;
}
