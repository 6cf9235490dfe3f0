//! One step of a frame over the game's state. Scripts are reached through [`ScriptHooks`], so this
//! layer knows nothing of Lua; the renderer only reads what [`World`] holds.
pub mod dispatch;
pub mod spawn;
pub mod world;

pub use world::World;

use std::cell::RefCell;

/// What the frame step needs from the script runtime.
pub trait ScriptHooks {
    /// Calls `init` on every script instance created since the last call.
    fn init_new(&mut self);
    fn update(&mut self, dt: f32);
    fn late_update(&mut self, dt: f32);
    /// Calls `on_message` of one script instance.
    fn deliver(&mut self, instance: u32, msg: &crate::scene::Message);
    /// Calls `final` and forgets the instance.
    fn destroy(&mut self, instance: u32);
}

/// The phases of a frame up to rendering (api.md "Sinew decisions", frame order).
pub fn update(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, dt: f32) {
    hooks.update(dt);
    dispatch::dispatch(world, hooks);
    hooks.late_update(dt);
    dispatch::dispatch(world, hooks);
    world.borrow_mut().scene.update_world_transforms();
}

/// The phase after rendering: deletions with `final`, then messages posted from `final`.
pub fn post_update(world: &RefCell<World>, hooks: &mut dyn ScriptHooks) {
    dispatch::delete_doomed(world, hooks);
    dispatch::dispatch(world, hooks);
    world.borrow_mut().frame += 1;
}
