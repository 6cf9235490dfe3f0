//! Input between the window and the scripts: raw events (from SDL or a replay file, the same
//! type) become per-frame actions through the project's binding, and go to the focus stack.
//! Owns no window and no Lua: the app layer feeds [`RawEvent`]s, the script layer receives
//! [`ActionEvent`] slices through `ScriptHooks::input`.
pub mod actions;
pub mod fixed;
pub mod focus;
pub mod raw;
pub mod replay;

pub use actions::{ActionEvent, InputState};
pub use fixed::FixedClock;
pub use raw::RawEvent;

use super::{ScriptHooks, World};
use crate::scene::ComponentRef;
use actions::GROUP_END;
use std::cell::RefCell;

/// Builds this frame's actions and hands them, with the focus stack resolved to script
/// instances, to the scripts. The buffers are lent out and put back, so nothing is allocated
/// in a steady state and Lua can reach the world while it runs.
pub fn deliver(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, dt: f32) {
    if !world.borrow().input.window_events.is_empty() {
        // Lent out, as the actions are: the listener may reach the world while it runs.
        let mut events = std::mem::take(&mut world.borrow_mut().input.window_events);
        hooks.window_events(&events);
        events.clear();
        world.borrow_mut().input.window_events = events;
    }
    let (frame, text, targets) = {
        let w = &mut *world.borrow_mut();
        w.input.build(dt);
        if w.input.frame.is_empty() || w.input.focus.is_empty() {
            return;
        }
        let mut targets = std::mem::take(&mut w.input.targets);
        targets.clear();
        push_world(w, w.socket, 0, &mut targets);
        (std::mem::take(&mut w.input.frame), std::mem::take(&mut w.input.text), targets)
    };
    hooks.input(&frame, &text, &targets);
    let w = &mut *world.borrow_mut();
    w.input.frame = frame;
    w.input.text = text;
    w.input.targets = targets;
}

/// Lists the script instances of `socket`'s world on the focus stack, top first, each object's
/// group closed by `GROUP_END`. An object holding an enabled collection proxy passes the input
/// on to its loaded world's own stack after its scripts, as Defold's proxy component does: a
/// loaded world hears input only through the focus of its proxy's object.
fn push_world(w: &World, socket: crate::base::hash::Hash, depth: u32, targets: &mut Vec<u32>) {
    /// Worlds load worlds through proxies; the depth only guards the recursion.
    const MAX_DEPTH: u32 = 16;
    for slot in w.input.focus.top_down() {
        let s = slot as usize;
        if !w.scene.alive.get(s).copied().unwrap_or(false) || w.socket_of(slot) != socket {
            continue;
        }
        for c in &w.scene.components[s] {
            if let ComponentRef::Script(i) = c.kind {
                targets.push(i);
            }
        }
        targets.push(GROUP_END);
        for c in &w.scene.components[s] {
            if let ComponentRef::CollectionProxy(i) = c.kind
                && let Some(p) = w.proxies.list.get(i as usize)
                && p.alive
                && p.state == super::proxy::State::Enabled
                && depth < MAX_DEPTH
            {
                push_world(w, p.socket, depth + 1, targets);
            }
        }
    }
}

/// Runs the frame's whole `fixed_update` steps (input.md section 3).
pub fn fixed_update(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, dt: f32) {
    let (steps, step) = {
        let mut w = world.borrow_mut();
        let steps = w.fixed.advance(dt);
        (steps, w.fixed.step as f32)
    };
    if steps == 0 {
        return;
    }
    let used = hooks.fixed_update(step, steps);
    // Warn only when a script has fixed_update: a dropped step nobody would run is no loss.
    if let Some(dropped) = world.borrow_mut().fixed.warning()
        && used
    {
        log::warn!("fixed_update fell behind: {dropped} step(s) dropped (at most {} per frame)", fixed::MAX_STEPS);
    }
}
