//! Collection proxies (engine.md section 7, docs/proxies.md): a collection loaded on demand into
//! a world of its own, addressed through its own URL socket (`level:/hero#script`), and
//! unloaded with everything in it. Sinew keeps one scene: a proxied world is the set of objects
//! whose socket is the collection's name, so the main world's lookups cost nothing more.
//!
//! The messages arrive through dispatch, which queues them here; [`process`] runs them where the
//! script runtime can make and end scripts, in the order they came:
//! - `load` / `async_load`: the collection was loaded and checked with the collection holding
//!   the proxy, so this only answers `proxy_loaded` (the next dispatch delivers it);
//! - `init`: spawns the objects and runs their `init`; `enable`: `init` first if needed, then
//!   the objects update and draw; `disable`: their components stop drawing;
//! - `final`: the objects are deleted (`final` runs); `unload`: `final` if needed, then
//!   `proxy_unloaded`;
//! - `set_time_step {factor, mode}`: the world's time runs `factor` times the game's, scaled
//!   every frame (mode 0) or as whole frames every `1 / factor` frames (mode 1); [`frame_time_scale`]
//!   turns that into each object's factor for the frame, which scripts, timers, tweens, model
//!   animation and sprite flipbooks take.
use super::{ScriptHooks, World};
use crate::base::hash::{Hash, hash_remembered, name_of};
use crate::project::{CollectionSpec, ProxySpec};
use crate::scene::message::{MsgValue, decode, encode};
use crate::scene::{Message, Url};
use std::cell::RefCell;

/// Where a proxy's world is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Unloaded,
    Loaded,
    Initialized,
    Enabled,
}

pub struct Proxy {
    pub slot: u32,
    pub id: Hash,
    pub spec: ProxySpec,
    /// The socket of its world: the hash of the collection's name.
    pub socket: Hash,
    pub state: State,
    pub alive: bool,
    /// `set_time_step`: the factor and whether it is discrete.
    pub time_step: (f32, bool),
    /// Discrete mode: the fraction of a frame the world is owed.
    owed: f32,
}

/// One message to a proxy, waiting for [`process`].
struct Pending {
    proxy: u32,
    id: Hash,
    sender: Url,
    data: Vec<u8>,
    /// Sent to the proxy's own URL, not to its whole object (whose scripts may well take it).
    direct: bool,
}

#[derive(Default)]
pub struct ProxyWorld {
    pub list: Vec<Proxy>,
    pending: Vec<Pending>,
    /// This frame's time factor of each object slot ([`frame_time_scale`]); empty when every
    /// object runs at the game's speed, which keeps the per-frame passes on their fast paths.
    pub time_scale: Vec<f32>,
}

struct Ids {
    load: Hash,
    async_load: Hash,
    init: Hash,
    enable: Hash,
    disable: Hash,
    final_: Hash,
    unload: Hash,
    set_time_step: Hash,
    loaded: Hash,
    unloaded: Hash,
}

fn ids() -> &'static Ids {
    static IDS: std::sync::OnceLock<Ids> = std::sync::OnceLock::new();
    IDS.get_or_init(|| Ids {
        load: hash_remembered("load"),
        async_load: hash_remembered("async_load"),
        init: hash_remembered("init"),
        enable: hash_remembered("enable"),
        disable: hash_remembered("disable"),
        final_: hash_remembered("final"),
        unload: hash_remembered("unload"),
        set_time_step: hash_remembered("set_time_step"),
        loaded: hash_remembered("proxy_loaded"),
        unloaded: hash_remembered("proxy_unloaded"),
    })
}

impl ProxyWorld {
    pub fn add(&mut self, slot: u32, id: &str, spec: &ProxySpec) -> u32 {
        let socket = hash_remembered(&spec.name);
        self.list.push(Proxy {
            slot,
            id: hash_remembered(id),
            spec: spec.clone(),
            socket,
            state: State::Unloaded,
            alive: true,
            time_step: (1.0, false),
            owed: 0.0,
        });
        (self.list.len() - 1) as u32
    }

    /// Queues a message to proxy `i` (dispatch calls this; [`process`] runs it).
    pub fn message(&mut self, i: u32, m: &Message) {
        let direct = m.receiver.fragment != 0;
        self.pending.push(Pending { proxy: i, id: m.id, sender: m.sender, data: m.data.clone(), direct });
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }
}

/// The URL of proxy `p`'s component.
fn url_of(w: &World, p: &Proxy) -> Url {
    Url { socket: w.socket_of(p.slot), path: w.scene.ids[p.slot as usize], fragment: p.id }
}

fn reply(w: &mut World, from: Url, to: Url, id: Hash) {
    let mut data = Vec::new();
    encode(&MsgValue::Table(Vec::new()), &mut data);
    if w.messages.post(Message { sender: from, receiver: to, id, data }).is_err() {
        log::warn!("{} dropped: the frame's message budget is spent", name_of(id));
    }
}

/// Spawns proxy `i`'s collection into its world and runs the new scripts' `init`.
fn init(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, i: usize) -> Result<(), String> {
    let (spec, socket) = {
        let w = world.borrow();
        let p = &w.proxies.list[i];
        (CollectionSpec { name: p.spec.name.clone(), objects: (*p.spec.objects).clone() }, p.socket)
    };
    let res = world.borrow().factories.res.clone().ok_or("no resources to spawn from")?;
    let before = world.borrow().scene.spawn_socket();
    world.borrow_mut().scene.set_spawn_socket(socket);
    let spawned = match hooks.script_factory() {
        Some(f) => super::spawn::spawn_collection(world, &res, &spec, f),
        None => Err(vec!["no script runtime to make the collection's scripts".to_string()]),
    };
    world.borrow_mut().scene.set_spawn_socket(before);
    spawned.map_err(|e| e.join("\n"))?;
    hooks.init_new();
    Ok(())
}

/// Marks every object of `socket`'s world for deletion.
fn doom_world(w: &mut World, socket: Hash) {
    for s in 0..w.scene.capacity() {
        if w.scene.alive[s] && w.scene.socket[s] == socket {
            w.scene.doomed[s] = true;
        }
    }
}

/// Turns the drawing components of `socket`'s world on or off.
fn set_enabled(w: &mut World, socket: Hash, on: bool) {
    let slots: Vec<u32> = (0..w.scene.capacity() as u32)
        .filter(|&s| w.scene.alive[s as usize] && w.scene.socket[s as usize] == socket)
        .collect();
    for s in slots {
        let comps = w.scene.components[s as usize].clone();
        for c in comps {
            super::dispatch::set_component_enabled(w, c.kind, on);
        }
    }
}

/// Runs the queued proxy messages (see the module's documentation).
pub fn process(world: &RefCell<World>, hooks: &mut dyn ScriptHooks) {
    // Only dispatch queues here, and it does not run during this: the whole queue at once.
    let batch = std::mem::take(&mut world.borrow_mut().proxies.pending);
    for next in batch {
        let i = next.proxy as usize;
        let (state, alive, socket, me) = {
            let w = world.borrow();
            let Some(p) = w.proxies.list.get(i) else { continue };
            (p.state, p.alive, p.socket, url_of(&w, p))
        };
        if !alive {
            continue;
        }
        let id = next.id;
        let x = ids();
        let set = |world: &RefCell<World>, s: State| world.borrow_mut().proxies.list[i].state = s;
        let name = || world.borrow().proxies.list[i].spec.collection.clone();
        if id == x.load || id == x.async_load {
            if state != State::Unloaded {
                log::error!("{}: the collection is already loaded", name());
                continue;
            }
            // Several proxies may name collections of the same name (levels made from one
            // template); only two loaded at once would share a socket. Defold's words.
            let taken =
                world.borrow().proxies.list.iter().any(|p| p.alive && p.socket == socket && p.state != State::Unloaded);
            if taken {
                log::error!(
                    "The collection '{}' could not be created since there is already a socket with the same name ({} was not loaded)",
                    name_of(socket),
                    name()
                );
                continue;
            }
            set(world, State::Loaded);
            reply(&mut world.borrow_mut(), me, next.sender, x.loaded);
        } else if id == x.init || id == x.enable {
            if state == State::Unloaded {
                log::error!("{}: '{}' before 'load'", name(), name_of(id));
                continue;
            }
            if state == State::Loaded {
                if let Err(e) = init(world, hooks, i) {
                    log::error!("{}: {e}", name());
                    continue;
                }
                set(world, State::Initialized);
            }
            if id == x.enable {
                set_enabled(&mut world.borrow_mut(), socket, true);
                set(world, State::Enabled);
            }
        } else if id == x.disable {
            if state == State::Enabled {
                set_enabled(&mut world.borrow_mut(), socket, false);
                set(world, State::Initialized);
            }
        } else if id == x.final_ || id == x.unload {
            if matches!(state, State::Initialized | State::Enabled) {
                doom_world(&mut world.borrow_mut(), socket);
                // Deleted now, not at the frame's end: a `load` answering `proxy_unloaded`
                // spawns the same ids again.
                super::dispatch::delete_doomed(world, hooks);
                set(world, State::Loaded);
            }
            if id == x.unload {
                if state == State::Unloaded {
                    log::error!("{}: 'unload' of a collection that is not loaded", name());
                    continue;
                }
                set(world, State::Unloaded);
                reply(&mut world.borrow_mut(), me, next.sender, x.unloaded);
            }
        } else if id == x.set_time_step {
            let data = decode(&next.data).ok();
            let num = |k: &str| match data.as_ref().and_then(|d| d.get(k)) {
                Some(MsgValue::Number(n)) => Some(*n as f32),
                _ => None,
            };
            match (num("factor"), num("mode").unwrap_or(0.0)) {
                (Some(f), mode) if f.is_finite() && f >= 0.0 => {
                    world.borrow_mut().proxies.list[i].time_step = (f, mode == 1.0);
                }
                _ => log::error!("set_time_step needs a 'factor' >= 0 (and 'mode' 0 or 1)"),
            }
        } else if next.direct {
            log::warn!("collectionproxy: message '{}' is not one a proxy takes", name_of(id));
        }
    }
}

/// This frame's time factor of one proxy's world: -1 while it is not enabled (Defold updates
/// only enabled worlds: no script `update` at all), else its `set_time_step`. Discrete mode runs whole frames: the world is
/// owed `factor` of a frame each frame and takes the whole frames it is owed.
fn frame_factor(p: &mut Proxy) -> f32 {
    if p.state != State::Enabled {
        return -1.0;
    }
    let (f, discrete) = p.time_step;
    if !discrete {
        return f;
    }
    p.owed += f;
    let whole = p.owed.floor();
    p.owed -= whole;
    whole
}

/// Fills [`ProxyWorld::time_scale`] for the frame about to run: each object's factor is its
/// world's ([`frame_factor`]), 1 in the main world; negative where the world does not update
/// (the passes that only scale time take it as 0). A world inside a world runs at its own
/// factor times its holder's.
pub fn frame_time_scale(w: &mut World) {
    let World { proxies, scene, .. } = w;
    proxies.time_scale.clear();
    let mut worlds: Vec<(Hash, Hash, f32)> = Vec::new();
    for p in proxies.list.iter_mut() {
        if p.alive && p.state != State::Unloaded {
            let holder = scene.socket.get(p.slot as usize).copied().unwrap_or(0);
            worlds.push((p.socket, holder, frame_factor(p)));
        }
    }
    if worlds.iter().all(|&(_, _, f)| f == 1.0) {
        return;
    }
    // Nesting is shallow (a world per level of proxies): follow the holders up.
    let factor_of = |socket: Hash| {
        let mut f = 1.0;
        let mut at = socket;
        for _ in 0..worlds.len() {
            match worlds.iter().find(|w| w.0 == at) {
                Some(&(_, _, g)) if g < 0.0 => return -1.0,
                Some(&(_, holder, g)) => {
                    f *= g;
                    at = holder;
                }
                None => break,
            }
        }
        f
    };
    let mut last = (0, 1.0);
    proxies.time_scale.extend(scene.socket.iter().map(|&s| {
        if s == 0 {
            return 1.0;
        }
        if s != last.0 {
            last = (s, factor_of(s));
        }
        last.1
    }));
}

/// The proxy of an object that is deleted: its world goes with it.
pub fn remove(w: &mut World, i: u32) {
    let Some(p) = w.proxies.list.get_mut(i as usize) else { return };
    p.alive = false;
    let socket = p.socket;
    doom_world(w, socket);
}
