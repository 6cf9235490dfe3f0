//! One step of a frame over the game's state. Scripts are reached through [`ScriptHooks`], so this
//! layer knows nothing of Lua; the renderer only reads what [`World`] holds.
pub mod animation;
pub mod camera;
pub mod collection_reload;
pub mod dispatch;
pub mod factory;
pub mod gui;
pub mod input;
pub mod labels;
pub mod model_world;
pub mod particles;
pub mod physics;
pub mod posed;
pub mod proxy;
pub mod render_requests;
pub mod render_script;
pub mod render_targets;
pub mod runtime_textures;
pub mod sound;
pub mod spawn;
pub mod sprites;
pub mod tilemaps;
pub mod world;

pub use world::World;

/// A script callback that the game calls later, maybe many times: the script instance and the
/// id under which the Lua side keeps the function (the play-callback ids `model.play_anim`
/// uses). Held by a GUI node's flipbook, a particle effect's emitter state function and a
/// physics world's event listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptCallback {
    pub script: u32,
    pub callback: u32,
}

use std::cell::RefCell;
use std::time::{Duration, Instant};

/// What the frame step needs from the script runtime.
pub trait ScriptHooks {
    /// Calls `init` on every script instance created since the last call.
    fn init_new(&mut self);
    fn update(&mut self, dt: f32);
    fn late_update(&mut self, dt: f32);
    /// Runs the timers (`timer.delay`) that are due; after `update`, as Defold's script
    /// component runs its timers in the update phase.
    fn timers(&mut self, _dt: f32) {}
    /// Calls `on_message` of script instance `i` with `batch[k]` for each `(i, k)` of `run`, in
    /// order: one call into the runtime for a whole run.
    fn deliver(&mut self, batch: &[crate::scene::Message], run: &[(u32, u32)]);
    /// Calls `final` and forgets the instance.
    fn destroy(&mut self, instance: u32);
    /// Before the tween update: copies into the tween world the script-property values that
    /// tweens starting this frame read.
    fn before_tweens(&mut self, _dt: f32) {}
    /// After the tween update: writes tweened script properties back and runs the completion
    /// callbacks of the tweens that ended.
    fn after_tweens(&mut self) {}
    /// Calls the `complete_function` given to `model.play_anim` (callback id `callback`) of a
    /// script instance as `(self, message_id, message, sender)`.
    fn model_done(&mut self, _instance: u32, _callback: u32, _msg: &crate::scene::Message) {}
    /// Calls such a callback and keeps it for later calls (`particlefx.play`'s emitter state
    /// function runs at each state change; the sweep of dead callbacks drops it once no
    /// component lists it as live).
    fn callback_again(&mut self, _instance: u32, _callback: u32, _msg: &crate::scene::Message) {}
    /// Calls `fixed_update(self, dt)` `steps` times on every script instance that defines it;
    /// false when none does.
    fn fixed_update(&mut self, _dt: f32, _steps: u32) -> bool {
        false
    }
    /// Delivers each action to `targets` (script instances, top of the focus stack first,
    /// `input::actions::GROUP_END` after each object's) until an object consumes it.
    fn input(&mut self, _actions: &[input::ActionEvent], _text: &str, _targets: &[u32]) {}
    /// Each object slot's time factor for this frame (`proxy::frame_time_scale`; empty: all 1,
    /// negative: its world does not update). The runtime copies it; the frame's end calls
    /// again with an empty slice.
    fn time_scale(&mut self, _scale: &[f32]) {}
    /// The frame's window events, `[WindowChange, width, height]` each (`window.set_listener`).
    fn window_events(&mut self, _events: &[[u32; 3]]) {}
    /// The runtime as the maker of scripts for objects spawned outside a script call (a
    /// collection proxy's world); `None` where there is none (benchmarks' stand-ins).
    fn script_factory(&mut self) -> Option<&mut dyn spawn::ScriptFactory> {
        None
    }
}

/// Frame phases that `--stats` reports separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Scripts = 0,
    Tweens = 1,
    Animation = 2,
    Transforms = 3,
}

/// The phases of a frame up to rendering (api.md "Sinew decisions", frame order); `timing`
/// receives how long each phase took.
pub fn update(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, dt: f32, timing: &mut dyn FnMut(Phase, Duration)) {
    // Part of the animation phase, done first so that the pool's threads are awake when the
    // pass begins (`animation::ready`).
    let t = Instant::now();
    animation::ready(&mut world.borrow_mut().models);
    let ready = t.elapsed();
    let t = Instant::now();
    {
        let w = &mut *world.borrow_mut();
        w.time += f64::from(dt);
        w.dt = dt;
    }
    // Objects spawned last frame start before anything else of this frame reaches them.
    hooks.init_new();
    // Each object's time factor (collection proxies' `set_time_step`), for the scripts' passes
    // of this frame; the frame's end tells them it is over (an empty slice).
    let scale = {
        let w = &mut *world.borrow_mut();
        // A background load's files are taken first, so `proxy_loaded` reaches its script in
        // this frame's dispatch.
        proxy::poll_loading(w);
        proxy::frame_time_scale(w);
        w.proxies.time_scale.clone()
    };
    if !scale.is_empty() {
        hooks.time_scale(&scale);
    }
    {
        // GUI layouts follow the window before anything of this frame reads a node, so the
        // scripts hear `layout_changed` in this frame's first dispatch.
        let w = &mut *world.borrow_mut();
        let (width, height) = w.input.window_size();
        let changes = w.gui.follow_window((width as u32, height as u32));
        gui::display_layouts::report(w, &changes);
    }
    input::deliver(world, hooks, dt);
    dispatch::dispatch(world, hooks);
    input::fixed_update(world, hooks, dt);
    dispatch::dispatch(world, hooks);
    hooks.update(dt);
    dispatch::dispatch(world, hooks);
    hooks.timers(dt);
    dispatch::dispatch(world, hooks);
    let mut scripts = t.elapsed();
    let t = Instant::now();
    hooks.before_tweens(dt);
    {
        let w = &mut *world.borrow_mut();
        w.tweens.update_scaled(&mut w.scene, dt, &w.proxies.time_scale);
        w.gui.apply_tweens(&w.tweens.cells.values);
    }
    hooks.after_tweens();
    dispatch::dispatch(world, hooks);
    timing(Phase::Tweens, t.elapsed());
    let t = Instant::now();
    let (finished, events) = animation::animate(&mut world.borrow_mut(), dt);
    report_finished(world, hooks, finished);
    report_events(world, events);
    // GUI box nodes' flipbooks first: they share the sprites' clock, so a node and a sprite on
    // one flipbook change frames on the same update.
    gui::flipbook::step(world, hooks, dt);
    sprites::step(world, hooks, dt);
    dispatch::dispatch(world, hooks);
    timing(Phase::Animation, ready + t.elapsed());
    {
        let w = &mut *world.borrow_mut();
        for (slot, source, groups) in w.tilemaps.take_changed(|slot, file| w.physics.shaped_by_map(slot, file)) {
            w.physics.retile(slot, &source, &groups);
        }
    }
    // After the pose, so a collision object under a bone follows this frame's pose.
    physics::update(world, dt);
    physics::tell_listeners(world, hooks);
    dispatch::dispatch(world, hooks);
    // After physics, so an effect on a falling object emits where the object is this frame.
    particles::step(world, hooks, dt);
    gui::effects::step(world, hooks, dt);
    let t = Instant::now();
    hooks.late_update(dt);
    dispatch::dispatch(world, hooks);
    scripts += t.elapsed();
    timing(Phase::Scripts, scripts);
    let t = Instant::now();
    world.borrow_mut().scene.update_world_transforms();
    timing(Phase::Transforms, t.elapsed());
    sound::step(world, hooks, dt);
    dispatch::dispatch(world, hooks);
    if !scale.is_empty() {
        hooks.time_scale(&[]);
    }
}

/// `model_animation_done {animation_id, playback}` from the model component: to the callback
/// given to `model.play_anim`, else as a message to the script that called it.
fn report_finished(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, finished: Vec<animation::Finished>) {
    use crate::scene::message::{MsgValue, encode};
    for f in finished {
        let msg = {
            let w = world.borrow();
            let Some(inst) = w.models.instances.get(f.model as usize) else { continue };
            let sender = crate::scene::Url {
                socket: w.socket_of(inst.slot),
                path: w.scene.ids[inst.slot as usize],
                fragment: inst.id,
            };
            let table = MsgValue::Table(vec![
                (MsgValue::String("animation_id".into()), MsgValue::Hash(f.animation)),
                (MsgValue::String("playback".into()), MsgValue::Number(f.playback as u32 as f64)),
                (MsgValue::String("layer".into()), MsgValue::Number(f64::from(f.layer))),
            ]);
            let mut data = Vec::new();
            encode(&table, &mut data);
            let id = crate::base::hash::hash_remembered("model_animation_done");
            crate::scene::Message::new(sender, f.listener.url, id, data)
        };
        if f.listener.callback != 0 {
            hooks.model_done(f.listener.script, f.listener.callback, &msg);
        } else {
            if world.borrow_mut().messages.post(msg).is_err() {
                log::warn!("model_animation_done dropped: the frame's message budget is spent");
            }
        }
    }
}

/// `model_animation_event {animation_id, event_id, time, layer}` (layers.md §3), as an
/// `on_message` to the script that started the animation, in the order the cursors passed them.
fn report_events(world: &RefCell<World>, events: Vec<animation::EventReport>) {
    use crate::scene::message::{MsgValue, encode};
    if events.is_empty() {
        return;
    }
    let id = crate::base::hash::hash_remembered("model_animation_event");
    let mut w = world.borrow_mut();
    for e in events {
        let Some(inst) = w.models.instances.get(e.model as usize) else { continue };
        let sender = crate::scene::Url {
            socket: w.socket_of(inst.slot),
            path: w.scene.ids[inst.slot as usize],
            fragment: inst.id,
        };
        let h = e.hit;
        let table = MsgValue::Table(vec![
            (MsgValue::String("animation_id".into()), MsgValue::Hash(h.animation)),
            (MsgValue::String("event_id".into()), MsgValue::Hash(h.event)),
            (MsgValue::String("time".into()), MsgValue::Number(f64::from(h.time))),
            (MsgValue::String("layer".into()), MsgValue::Number(f64::from(h.layer))),
        ]);
        let mut data = Vec::new();
        encode(&table, &mut data);
        let msg = crate::scene::Message::new(sender, h.to.url, id, data);
        if w.messages.post(msg).is_err() {
            log::warn!("model_animation_event dropped: the frame's message budget is spent");
        }
    }
}

/// The phase after rendering: deletions with `final`, then messages posted from `final`.
pub fn post_update(world: &RefCell<World>, hooks: &mut dyn ScriptHooks) {
    dispatch::delete_doomed(world, hooks);
    dispatch::dispatch(world, hooks);
    let mut w = world.borrow_mut();
    w.frame += 1;
    w.messages.new_frame();
}
