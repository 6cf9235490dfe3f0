//! Collection proxies (engine.md section 7, docs/proxies.md): a collection loaded on demand into
//! a world of its own, addressed through its own URL socket (`level:/hero#script`), and
//! unloaded with everything in it. Sinew keeps one scene: a proxied world is the set of objects
//! whose socket is the collection's name, so the main world's lookups cost nothing more.
//!
//! The messages arrive through dispatch, which queues them here; [`process`] runs them where the
//! script runtime can make and end scripts, in the order they came:
//! - `load` / `async_load`: the collection was read and checked with the collection holding
//!   the proxy; what is left is importing its models (glTF, OBJ, textures), the slow part.
//!   `load` imports them at once and answers `proxy_loaded`; `async_load` imports them on a
//!   thread while the game runs ([`poll_loading`]), sends `proxy_loading` with `progress`
//!   (files imported / files to import) as files arrive, then `proxy_loaded`. With a fixed
//!   time step (`--fixed-dt`, headless runs) a background load hands over exactly one file a
//!   frame, waiting for it if need be, so replays and tests see the same frames every run;
//! - `init`: spawns the objects and runs their `init`; `enable`: `init` first if needed, then
//!   the objects update and draw; `disable`: their components stop drawing;
//! - `final`: the objects are deleted (`final` runs); `unload`: `final` if needed, then
//!   `proxy_unloaded`;
//! - `set_time_step {factor, mode}`: the world's time runs `factor` times the game's, scaled
//!   every frame (mode 0) or as whole frames every `1 / factor` frames (mode 1); [`frame_time_scale`]
//!   turns that into each object's factor for the frame, which scripts, timers, tweens, model
//!   animation and sprite flipbooks take.
use super::{ScriptHooks, World};
use crate::base::error::LoadError;
use crate::base::hash::{Hash, hash_remembered, name_of};
use crate::project::import::Imported;
use crate::project::{CollectionSpec, ComponentKind, ObjectSpec, ProxySpec};
use crate::scene::message::{MsgValue, decode, encode};
use crate::scene::{Message, Url};
use std::cell::RefCell;

/// Where a proxy's world is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Unloaded,
    /// `async_load` is importing its files on a thread.
    Loading,
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
    /// The background import of an `async_load`.
    loading: Option<Box<Loading>>,
}

/// An `async_load` under way: the thread sends each file's import as it finishes.
struct Loading {
    files: std::sync::mpsc::Receiver<(String, Result<Imported, LoadError>)>,
    total: u32,
    done: u32,
    /// Who asked: `proxy_loading` and `proxy_loaded` go there.
    asker: Url,
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

/// Messages held for worlds that are loaded but not made yet ([`ProxyWorld::hold`]): at most
/// this many, as Defold's socket buffers are bounded; more are reported as undeliverable.
const MAX_HELD: usize = 1024;

#[derive(Default)]
pub struct ProxyWorld {
    pub list: Vec<Proxy>,
    pending: Vec<Pending>,
    /// Messages to objects of a loaded world whose objects are not made yet, in posting order.
    held: Vec<Message>,
    /// This frame's time factor of each object slot ([`frame_time_scale`]); empty when every
    /// object runs at the game's speed, which keeps the per-frame passes on their fast paths.
    pub time_scale: Vec<f32>,
    /// Runs with a fixed time step: a background load hands over one file a frame, in order.
    pub reproducible: bool,
    /// This frame's factor of each loaded world by socket (nesting included), for the passes
    /// that go world by world (physics); empty when every world runs at the game's speed.
    world_scale: Vec<(Hash, f32)>,
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
    loading: Hash,
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
        loading: hash_remembered("proxy_loading"),
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
            loading: None,
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

    /// Holds a message to an object of a world that is loaded (or loading) but whose objects
    /// are not made until its `init`/`enable`: in Defold a loaded collection's objects exist and
    /// their messages wait in its socket until it updates, so `msg.post(proxy, "enable")`
    /// followed by a message to `level:/hero` in the same `on_message` reaches the hero after
    /// its `init`. False when no such world has the receiver's socket (or too many are held):
    /// the caller reports the object as not found.
    pub fn hold(&mut self, m: &Message) -> bool {
        let waiting = self
            .list
            .iter()
            .any(|p| p.alive && p.socket == m.receiver.socket && matches!(p.state, State::Loading | State::Loaded));
        if !waiting || self.held.len() >= MAX_HELD {
            return false;
        }
        self.held.push(m.clone());
        true
    }

    /// Takes the held messages of `socket`'s world, in posting order.
    fn release(&mut self, socket: Hash) -> Vec<Message> {
        let (mine, rest) = std::mem::take(&mut self.held).into_iter().partition(|m| m.receiver.socket == socket);
        self.held = rest;
        mine
    }

    /// This frame's time factor of the world whose objects have scene socket `socket` (1 for
    /// the main world; negative for a world that does not update).
    pub fn world_factor(&self, socket: Hash) -> f32 {
        self.world_scale.iter().find(|w| w.0 == socket).map_or(1.0, |w| w.1)
    }
}

/// The URL of proxy `p`'s component.
fn url_of(w: &World, p: &Proxy) -> Url {
    Url { socket: w.socket_of(p.slot), path: w.scene.ids[p.slot as usize], fragment: p.id }
}

fn reply(w: &mut World, from: Url, to: Url, id: Hash) {
    reply_with(w, from, to, id, Vec::new());
}

fn reply_with(w: &mut World, from: Url, to: Url, id: Hash, table: Vec<(MsgValue, MsgValue)>) {
    let mut data = Vec::new();
    encode(&MsgValue::Table(table), &mut data);
    if w.messages.post(Message::new(from, to, id, data)).is_err() {
        log::warn!("{} dropped: the frame's message budget is spent", name_of(id));
    }
}

/// Every model file a world's objects and their factories' prototypes import, each once.
fn model_files(objects: &[ObjectSpec], out: &mut Vec<String>, seen: &mut Vec<*const Vec<ObjectSpec>>) {
    for c in objects.iter().flat_map(|o| &o.components) {
        match &c.kind {
            ComponentKind::Model(m) => {
                for f in std::iter::once(&m.mesh).chain(std::iter::once(&m.skeleton)).chain(&m.animations) {
                    if !f.is_empty() && !out.contains(f) {
                        out.push(f.clone());
                    }
                }
            }
            ComponentKind::Factory(f) => {
                let at = std::sync::Arc::as_ptr(&f.objects);
                if !seen.contains(&at) {
                    seen.push(at);
                    model_files(&f.objects, out, seen);
                }
            }
            _ => {}
        }
    }
}

/// The model files proxy `i`'s world needs that are not imported yet.
fn files_to_import(w: &World, i: usize) -> Vec<String> {
    let mut files = Vec::new();
    model_files(&w.proxies.list[i].spec.objects, &mut files, &mut Vec::new());
    files.retain(|f| !w.models.has_asset(f));
    files
}

/// Starts `async_load`'s thread; false when there is no thread to be had (the caller loads
/// in place).
fn start_loading(w: &mut World, i: usize, files: Vec<String>, asker: Url) -> bool {
    let Some(res) = w.factories.res.clone() else { return false };
    let (tx, rx) = std::sync::mpsc::channel();
    let total = files.len() as u32;
    let thread = std::thread::Builder::new().name("sinew-async-load".into()).spawn(move || {
        for f in files {
            let r = crate::project::import::import_model(&res, &f);
            // The receiver is gone when the proxy was unloaded or deleted meanwhile.
            if tx.send((f, r)).is_err() {
                return;
            }
        }
    });
    if let Err(e) = thread {
        log::warn!("async_load: no loading thread ({e}); loading in place");
        return false;
    }
    let p = &mut w.proxies.list[i];
    p.loading = Some(Box::new(Loading { files: rx, total, done: 0, asker }));
    p.state = State::Loading;
    true
}

/// Takes the files the `async_load` threads finished, and answers `proxy_loading` /
/// `proxy_loaded`; a file that fails to import ends the load with its error (the proxy stays
/// unloaded, as before the message).
pub fn poll_loading(w: &mut World) {
    let ids = ids();
    for i in 0..w.proxies.list.len() {
        let reproducible = w.proxies.reproducible;
        let p = &mut w.proxies.list[i];
        let Some(l) = p.loading.as_mut() else { continue };
        let mut got = Vec::new();
        let mut stopped = false;
        loop {
            let next = if reproducible {
                if !got.is_empty() {
                    break;
                }
                l.files.recv().map_err(|_| std::sync::mpsc::TryRecvError::Disconnected)
            } else {
                l.files.try_recv()
            };
            match next {
                Ok(file) => got.push(file),
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    stopped = true;
                    break;
                }
            }
        }
        let (asker, collection) = (l.asker, p.spec.collection.clone());
        let mut failed = false;
        for (path, r) in got {
            match r {
                Ok(im) => {
                    w.models.insert_asset(&path, im);
                }
                Err(e) => {
                    log::error!("{collection}: async_load: {e}");
                    failed = true;
                    break;
                }
            }
            if let Some(l) = w.proxies.list[i].loading.as_mut() {
                l.done += 1;
            }
        }
        let p = &mut w.proxies.list[i];
        let Some(l) = p.loading.as_ref() else { continue };
        let (done, total) = (l.done, l.total);
        if failed || (stopped && done < total) {
            if !failed {
                log::error!("{collection}: async_load: the loading thread stopped");
            }
            p.loading = None;
            p.state = State::Unloaded;
            continue;
        }
        let me = url_of(w, &w.proxies.list[i]);
        if done == total {
            let p = &mut w.proxies.list[i];
            p.loading = None;
            p.state = State::Loaded;
            reply(w, me, asker, ids.loaded);
        } else {
            let progress = (MsgValue::String("progress".into()), MsgValue::Number(f64::from(done) / f64::from(total)));
            reply_with(w, me, asker, ids.loading, vec![progress]);
        }
    }
}

/// Spawns proxy `i`'s collection into its world and runs the new scripts' `init`. Ok with the
/// problems met when the world was made with a part left out (a component that could not be
/// created: `spawn_collection` makes the rest); Err when no object was made.
fn init(world: &RefCell<World>, hooks: &mut dyn ScriptHooks, i: usize) -> Result<Vec<String>, String> {
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
    let problems = spawned.err().unwrap_or_default();
    let made = {
        let w = world.borrow();
        (0..w.scene.capacity()).any(|s| w.scene.alive[s] && w.scene.socket[s] == socket)
    };
    if !made && !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    // Posted before `init` runs, so they come before what `init` posts, as in Defold's socket.
    let held = world.borrow_mut().proxies.release(socket);
    for m in held {
        let w = &mut *world.borrow_mut();
        if w.messages.post(m).is_err() {
            log::error!("a message held for '{}' could not be queued: the queue is full", name_of(socket));
        }
    }
    hooks.init_new();
    Ok(problems)
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
            if state == State::Loading {
                log::error!("{}: the collection is already loading", name());
                continue;
            }
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
            let files = files_to_import(&world.borrow(), i);
            if id == x.async_load
                && !files.is_empty()
                && start_loading(&mut world.borrow_mut(), i, files.clone(), next.sender)
            {
                continue;
            }
            let w = &mut *world.borrow_mut();
            let res = w.factories.res.clone();
            let failed = files.iter().find_map(|f| match &res {
                Some(res) => w.models.asset(res, f).err().map(|e| e.to_string()),
                None => Some("no resources to load from".to_string()),
            });
            if let Some(e) = failed {
                log::error!("{}: {e}", w.proxies.list[i].spec.collection);
                continue;
            }
            w.proxies.list[i].state = State::Loaded;
            reply(w, me, next.sender, x.loaded);
        } else if id == x.init || id == x.enable {
            if state == State::Loading {
                log::error!("{}: '{}' before the collection finished loading", name(), name_of(id));
                continue;
            }
            if state == State::Unloaded {
                log::error!("{}: '{}' before 'load'", name(), name_of(id));
                continue;
            }
            if state == State::Loaded {
                match init(world, hooks, i) {
                    Err(e) => {
                        log::error!("{}: {e}", name());
                        continue;
                    }
                    // The world was made without what failed: it is initialized, and a later
                    // `enable` does not make it again (its objects' ids would be taken).
                    Ok(problems) => {
                        for e in problems {
                            log::error!("{}: {e}", name());
                        }
                    }
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
                world.borrow_mut().physics.forget_world(socket);
                set(world, State::Loaded);
            }
            if id == x.unload {
                if state == State::Unloaded {
                    log::error!("{}: 'unload' of a collection that is not loaded", name());
                    continue;
                }
                // A load under way is dropped: its thread stops at its next file; so are the
                // messages held for its objects.
                world.borrow_mut().proxies.list[i].loading = None;
                world.borrow_mut().proxies.release(socket);
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
    proxies.world_scale.clear();
    let mut worlds: Vec<(Hash, Hash, f32)> = Vec::new();
    for p in proxies.list.iter_mut() {
        if p.alive && !matches!(p.state, State::Unloaded | State::Loading) {
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
    proxies.world_scale.extend(worlds.iter().map(|w| (w.0, factor_of(w.0))));
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
    p.loading = None;
    let socket = p.socket;
    doom_world(w, socket);
}
