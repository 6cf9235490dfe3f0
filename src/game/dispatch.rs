//! Message dispatch and deferred deletion.
use super::{ScriptHooks, World};
use crate::base::hash::{hash_str, name_of};
use crate::scene::message::{MsgValue, decode};
use crate::scene::{ComponentRef, Message, NONE, url};
use std::cell::RefCell;
use std::sync::OnceLock;

/// Passes over the queue per dispatch, so a message ping-pong cannot hang a frame.
const MAX_PASSES: usize = 10;

struct BuiltinIds {
    set_parent: u64,
    enable: u64,
    disable: u64,
    play: u64,
    cancel: u64,
    layer_weight: u64,
    acquire_focus: u64,
    release_focus: u64,
    set_text: u64,
    acquire_camera: u64,
    release_camera: u64,
    toggle_physics_debug: u64,
}

fn ids() -> &'static BuiltinIds {
    static IDS: OnceLock<BuiltinIds> = OnceLock::new();
    IDS.get_or_init(|| BuiltinIds {
        set_parent: hash_str("set_parent"),
        enable: hash_str("enable"),
        disable: hash_str("disable"),
        play: hash_str("model_play_animation"),
        cancel: hash_str("model_cancel_animation"),
        layer_weight: hash_str("model_set_layer_weight"),
        acquire_focus: hash_str("acquire_input_focus"),
        release_focus: hash_str("release_input_focus"),
        set_text: hash_str("set_text"),
        acquire_camera: hash_str("acquire_camera_focus"),
        release_camera: hash_str("release_camera_focus"),
        toggle_physics_debug: hash_str("toggle_physics_debug"),
    })
}

/// Delivers queued messages, including those posted while delivering, up to [`MAX_PASSES`].
///
/// Scripts' `on_message` calls go to the runtime in runs, one call for many (a physics step
/// posts thousands). The order is the queue's: before the engine acts on a message itself
/// ([`engine_acts_on`]), the run so far is delivered.
pub fn dispatch(world: &RefCell<World>, hooks: &mut dyn ScriptHooks) {
    let mut run: Vec<(u32, u32)> = Vec::new();
    for _ in 0..MAX_PASSES {
        let batch: Vec<Message> = {
            let mut w = world.borrow_mut();
            if w.messages.is_empty() {
                return;
            }
            w.messages.take_all()
        };
        for (at, m) in batch.iter().enumerate() {
            let find = || world.borrow().find_receiver(m);
            let mut slot = find();
            if !run.is_empty() && engine_acts_on(&world.borrow(), m, slot) {
                hooks.deliver(&batch, &run);
                run.clear();
                // Found again: the scripts just run may have made the object it is for.
                slot = find();
            }
            route(&mut world.borrow_mut(), m, slot, at as u32, &mut run);
        }
        if !run.is_empty() {
            hooks.deliver(&batch, &run);
            run.clear();
        }
        world.borrow_mut().messages.give_back(batch);
        if world.borrow().proxies.has_pending() {
            super::proxy::process(world, hooks);
        }
    }
    let left = world.borrow().messages.len();
    if left > 0 {
        log::warn!("{left} messages left undelivered after {MAX_PASSES} dispatch passes; they wait for the next frame");
    }
}

/// Whether routing `m` (to object `slot`) does more than find its scripts: the engine acts on
/// it (or reports it undeliverable), so scripts must have had the messages before it first.
fn engine_acts_on(w: &World, m: &Message, slot: Option<u32>) -> bool {
    let ids = ids();
    let socket = m.receiver.socket;
    if super::render_requests::is_render_socket(socket) || super::render_requests::is_system_socket(socket) {
        return true;
    }
    if m.id == ids.acquire_focus || m.id == ids.release_focus || (m.receiver.fragment == 0 && m.id == ids.set_parent) {
        return true;
    }
    let Some(slot) = slot else { return true };
    let mut matching = w.scene.components[slot as usize]
        .iter()
        .filter(|c| m.receiver.fragment == 0 || c.id == m.receiver.fragment)
        .peekable();
    // Not found: its error is logged in order with what scripts print.
    matching.peek().is_none() || matching.any(|c| component_acts(c.kind, m.id))
}

/// Whether [`builtin_component_message`] changes anything a script can see for message `id` at
/// a component of `kind`.
fn component_acts(kind: ComponentRef, id: u64) -> bool {
    let ids = ids();
    if id == ids.enable || id == ids.disable {
        return !matches!(kind, ComponentRef::Script(_));
    }
    match kind {
        ComponentRef::Model(_) => id == ids.play || id == ids.cancel || id == ids.layer_weight,
        ComponentRef::Sound(_) => super::sound::is_message(id),
        ComponentRef::CollisionObject(_) => super::physics::is_message(id),
        ComponentRef::Sprite(_) => super::sprites::is_message(id),
        ComponentRef::Camera(_) => id == ids.acquire_camera || id == ids.release_camera,
        ComponentRef::Label(_) => id == ids.set_text,
        // A proxy's messages are only recorded here and acted on after the pass.
        _ => false,
    }
}

/// Acts on `m` where the engine does, and adds `(instance, at)` to `run` for each script of
/// object `slot` (`find_url` of its receiver) that receives it.
fn route(w: &mut World, m: &Message, slot: Option<u32>, at: u32, run: &mut Vec<(u32, u32)>) {
    // Defold's render script and system sockets are answered by the runtime itself.
    if super::render_requests::is_render_socket(m.receiver.socket) {
        // A project's render script gets every message but the two the engine draws itself,
        // as Defold's DispatchCallback hands them on (`clear_color`, `set_view_projection` and
        // the `use_*_projection` are the script's to act on); `resize` is acted on here too.
        if !w.render_script.path.is_empty() {
            if super::render_requests::engine_draws(m.id) {
                return w.render.render_message(m);
            }
            run.push((super::render_script::RENDER_SCRIPT_INSTANCE, at));
            if super::render_requests::is_resize(m.id) {
                w.render.render_message(m);
            }
            return;
        }
        return w.render.render_message(m);
    }
    if super::render_requests::is_system_socket(m.receiver.socket) {
        // Defold answers it in debug builds only; Sinew has one kind of build.
        if m.id == ids().toggle_physics_debug {
            return w.physics.toggle_debug();
        }
        return w.render.system_message(m);
    }
    let Some(slot) = slot else {
        // For a world loaded but not made yet: delivered after its `init`.
        if w.proxies.hold(m) {
            return;
        }
        log::error!(
            "Instance '{}' could not be found when dispatching message '{}' sent from {}",
            name_of(m.receiver.path),
            name_of(m.id),
            url::format(&m.sender)
        );
        return;
    };
    // Handled by the runtime for the whole object (input.md section 2), never seen by on_message.
    if m.id == ids().acquire_focus {
        return w.input.focus.acquire(slot);
    }
    if m.id == ids().release_focus {
        return w.input.focus.release(slot);
    }
    if m.receiver.fragment == 0 {
        builtin_object_message(w, slot, m);
    }
    let mut found = false;
    // By index: the engine's handlers take the whole world (none adds or removes components).
    for k in 0.. {
        let Some(&c) = w.scene.components.get(slot as usize).and_then(|cs| cs.get(k)) else { break };
        if m.receiver.fragment != 0 && c.id != m.receiver.fragment {
            continue;
        }
        found = true;
        match c.kind {
            ComponentRef::Script(i) => run.push((i, at)),
            kind => builtin_component_message(w, kind, m),
        }
    }
    if !found && m.receiver.fragment != 0 {
        log::error!(
            "Component '{}#{}' could not be found when dispatching message '{}' sent from {}",
            name_of(m.receiver.path),
            name_of(m.receiver.fragment),
            name_of(m.id),
            url::format(&m.sender)
        );
    }
}

/// `enable` / `disable` sent to a model, camera, light or label component, the model's animation
/// messages and the label's `set_text` (what `label.set_text` posts, as in Defold).
fn builtin_component_message(w: &mut World, kind: ComponentRef, m: &Message) {
    let id = m.id;
    if let ComponentRef::Model(i) = kind
        && (id == ids().play || id == ids().cancel || id == ids().layer_weight)
    {
        return model_animation_message(w, i, m);
    }
    if let ComponentRef::Sound(i) = kind
        && super::sound::message(w, i, m)
    {
        return;
    }
    if let ComponentRef::CollectionProxy(i) = kind {
        return w.proxies.message(i, m);
    }
    if let ComponentRef::CollisionObject(i) = kind {
        return super::physics::component_message(w, i, m);
    }
    if let ComponentRef::Sprite(i) = kind
        && super::sprites::message(w, i, m)
    {
        return;
    }
    if let ComponentRef::Camera(i) = kind
        && (id == ids().acquire_camera || id == ids().release_camera)
    {
        return w.models.camera_focus(i, id == ids().acquire_camera);
    }
    if let ComponentRef::Label(i) = kind
        && id == ids().set_text
    {
        return match decode(&m.data).map(|d| d.get("text").cloned()) {
            Ok(Some(MsgValue::String(t))) => {
                w.labels.set_text(i, &t);
            }
            _ => log::error!("set_text to label '{}' needs a string 'text'", name_of(m.receiver.fragment)),
        };
    }
    let on = if id == ids().enable {
        true
    } else if id == ids().disable {
        false
    } else {
        return;
    };
    set_component_enabled(w, kind, on);
}

/// Turns a drawing component (model, camera, light, label, sprite, GUI) on or off; the others
/// have no such state here.
pub fn set_component_enabled(w: &mut World, kind: ComponentRef, on: bool) {
    let models = &mut w.models;
    let flag = match kind {
        ComponentRef::Model(i) => models.instances.get_mut(i as usize).map(|m| &mut m.enabled),
        ComponentRef::Camera(i) => models.cameras.get_mut(i as usize).map(|c| &mut c.enabled),
        ComponentRef::Light(i) => models.lights.get_mut(i as usize).map(|l| &mut l.enabled),
        ComponentRef::Label(i) => w.labels.get_mut(i).map(|l| &mut l.enabled),
        ComponentRef::Sprite(i) => w.sprites.get_mut(i).map(|s| &mut s.enabled),
        ComponentRef::Gui(i) => w.gui.get_mut(i).map(|g| &mut g.enabled),
        ComponentRef::TileMap(i) => w.tilemaps.get_mut(i).map(|t| &mut t.enabled),
        ComponentRef::Script(_)
        | ComponentRef::Factory(_)
        | ComponentRef::Sound(_)
        | ComponentRef::CollisionObject(_)
        | ComponentRef::CollectionProxy(_)
        | ComponentRef::ParticleFx(_) => None,
    };
    if let Some(f) = flag {
        *f = on;
    }
}

/// `model_play_animation {animation_id, playback, blend_duration, offset, playback_rate}` and
/// `model_cancel_animation`. The sending script becomes the listener for the end of a ONCE
/// animation (with `callback`, the id of its `complete_function`, when `model.play_anim` had one).
fn model_animation_message(w: &mut World, model: u32, m: &Message) {
    let listener = w
        .find_url(m.sender.socket, m.sender.path)
        .and_then(|s| w.scene.component(s, m.sender.fragment))
        .and_then(|c| match c.kind {
            ComponentRef::Script(i) => Some(i),
            _ => None,
        });
    let Some(inst) = w.models.instances.get_mut(model as usize) else { return };
    let url = inst.id;
    let Some(anim) = inst.anim.as_mut() else {
        return log::warn!("'{}' has no animations", name_of(url));
    };
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => return log::error!("{}: {e}", name_of(m.id)),
    };
    let num = |k: &str, default: f64| match data.get(k) {
        Some(MsgValue::Number(n)) => *n,
        _ => default,
    };
    // Layers (layers.md §1): 0 is Defold's animation; the Lua side checked the range.
    let layer = num("layer", 0.0);
    let layer = if (0.0..crate::anim::layers::LAYERS as f64).contains(&layer) { layer as usize } else { 0 };
    if m.id == ids().cancel {
        match data.get("layer") {
            Some(_) => anim.cancel(layer),
            None => (0..crate::anim::layers::LAYERS).for_each(|l| anim.cancel(l)),
        }
        return;
    }
    if m.id == ids().layer_weight {
        if let Some(p) = anim.params_mut(layer) {
            p.set_weight(num("weight", 1.0) as f32, num("duration", 0.0) as f32);
        }
        return;
    }
    let animation = match data.get("animation_id") {
        Some(MsgValue::Hash(h)) => *h,
        Some(MsgValue::String(s)) => crate::base::hash::hash_transient(s),
        _ => 0,
    };
    let Some(clip) = anim.rig.clip_index(animation) else {
        return log::warn!(
            "'{}' has no animation named '{}' (animations: {})",
            name_of(url),
            name_of(animation),
            anim.rig.clip_names.join(", ")
        );
    };
    let playback =
        crate::anim::Playback::from_index(num("playback", 1.0) as u32).unwrap_or(crate::anim::Playback::OnceForward);
    let (mask, names) = match data.get("mask") {
        None => (None, None),
        Some(v) => match mask_names(v).and_then(|names| Ok((anim.resolve_mask(&names)?, names))) {
            Ok((mask, names)) => (Some(mask), Some(names)),
            Err(e) => return log::warn!("'{}': model.play_anim: {e}", name_of(url)),
        },
    };
    let (blend, offset, rate) = (num("blend_duration", 0.0), num("offset", 0.0), num("playback_rate", 1.0));
    let additive = matches!(data.get("additive"), Some(MsgValue::Bool(true)));
    let weight = num("weight", 1.0) as f32;
    // Only a ONCE animation completes: any other callback can never run, so none is kept.
    let callback = if !playback.completes() { 0 } else { num("callback", 0.0) as u32 };
    let to = |callback| listener.map(|script| crate::game::animation::Listener { script, url: m.sender, callback });
    if layer == 0 {
        anim.player.play(clip, playback, blend as f32, offset as f32, rate as f32);
        anim.listener = to(callback);
        anim.starter = to(0);
        // A script that sets none of these keeps layer 0 exactly Defold's.
        if (mask.is_some() || additive || data.get("weight").is_some() || !anim.layer0.is_plain())
            && let Some(p) = anim.params_mut(0)
        {
            p.set_weight(weight, 0.0);
            p.mask = mask;
            p.additive = additive;
            anim.layer0_mask = names;
        }
        return;
    }
    let Some(slot) = anim.layer_mut(layer) else { return };
    slot.layer.player.play(clip, playback, blend as f32, offset as f32, rate as f32);
    slot.layer.params.set_weight(weight, 0.0);
    slot.layer.params.mask = mask;
    slot.layer.params.additive = additive;
    slot.mask = names;
    slot.listener = to(callback);
    slot.starter = to(0);
}

/// A `mask` play property (a name or hash, or a table of them) as the names it lists.
fn mask_names(v: &MsgValue) -> Result<Vec<crate::base::hash::Hash>, String> {
    let one = |v: &MsgValue| match v {
        MsgValue::String(s) => Ok(crate::base::hash::hash_transient(s)),
        MsgValue::Hash(h) => Ok(*h),
        _ => Err("a mask entry must be a string or hash".to_string()),
    };
    match v {
        MsgValue::Table(entries) => entries.iter().map(|(_, e)| one(e)).collect(),
        other => Ok(vec![one(other)?]),
    }
}

/// Messages a game object itself understands.
fn builtin_object_message(w: &mut World, slot: u32, m: &Message) {
    if m.id != ids().set_parent {
        return;
    }
    let data = match decode(&m.data) {
        Ok(d) => d,
        Err(e) => return log::error!("set_parent: {e}"),
    };
    let parent = match data.get("parent_id") {
        Some(MsgValue::Hash(h)) if *h != 0 => match w.scene.find_in(w.scene.socket[slot as usize], *h) {
            Some(p) => p,
            None => return log::error!("set_parent: parent '{}' not found", name_of(*h)),
        },
        _ => NONE,
    };
    let keep = match data.get("keep_world_transform") {
        Some(MsgValue::Number(n)) => *n != 0.0,
        Some(MsgValue::Bool(b)) => *b,
        _ => true,
    };
    // A bone object that was not watched is posed before it is read as a parent.
    if parent != NONE {
        w.models.watch(&mut w.scene, parent);
    }
    // Defold updates world transforms before dispatching messages, so a `go.set_position` in the
    // callback that posted this message counts. Only the two chains this message reads need it.
    if keep {
        w.scene.update_world_transform_of(slot);
        if parent != NONE {
            w.scene.update_world_transform_of(parent);
        }
    }
    if let Err(e) = w.scene.set_parent(slot, parent, keep) {
        log::error!("set_parent of '{}': {e}", name_of(w.scene.ids[slot as usize]));
    }
}

/// Deletes the objects marked by `go.delete`, children before parents, calling `final` first.
pub fn delete_doomed(world: &RefCell<World>, hooks: &mut dyn ScriptHooks) {
    let doomed: Vec<u32> = {
        let mut w = world.borrow_mut();
        if !w.scene.doomed.iter().any(|&d| d) {
            return;
        }
        let World { models, scene, .. } = &mut *w;
        models.bones_follow_models(&mut scene.doomed);
        let order = w.scene.order().to_vec();
        order.into_iter().rev().filter(|&s| w.scene.doomed[s as usize]).collect()
    };
    for &slot in &doomed {
        let scripts: Vec<u32> = world.borrow().scene.components[slot as usize]
            .iter()
            .filter_map(|c| match c.kind {
                ComponentRef::Script(i) => Some(i),
                _ => None,
            })
            .collect();
        for i in scripts {
            hooks.destroy(i);
        }
    }
    let mut w = world.borrow_mut();
    let (mut proxies_gone, mut factories_gone) = (Vec::new(), Vec::new());
    for slot in doomed {
        w.tweens.remove_object(slot);
        w.models.remove_object(slot);
        let World { scene, labels, sounds, physics, sprites, gui, particles, tilemaps, .. } = &mut *w;
        for c in &scene.components[slot as usize] {
            if let ComponentRef::Label(i) = c.kind {
                labels.remove(i);
            }
            if let ComponentRef::Sound(i) = c.kind {
                sounds.remove(i);
            }
            if let ComponentRef::CollisionObject(i) = c.kind {
                physics.remove(i);
            }
            if let ComponentRef::Sprite(i) = c.kind {
                sprites.remove(i);
            }
            if let ComponentRef::Gui(i) = c.kind {
                gui.remove(i);
            }
            if let ComponentRef::ParticleFx(i) = c.kind {
                particles.remove(i);
            }
            if let ComponentRef::TileMap(i) = c.kind {
                tilemaps.remove(i);
            }
            if let ComponentRef::CollectionProxy(i) = c.kind {
                proxies_gone.push(i);
            }
            if let ComponentRef::Factory(i) = c.kind {
                factories_gone.push(i);
            }
        }
        w.input.focus.release(slot);
        w.scene.remove(slot);
    }
    // A deleted proxy takes its world along (deleted at the next frame's end).
    for i in proxies_gone {
        super::proxy::remove(&mut w, i);
    }
    for i in factories_gone {
        super::factory::remove(&mut w, i);
    }
}
