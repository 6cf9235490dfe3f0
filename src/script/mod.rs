//! The Lua side of the game: one LuaJIT state running every `.script` instance.
//!
//! Bindings are split per namespace, each a Lua file (`lua/go.lua`, `lua/msg.lua`,
//! `lua/vmath.lua`) over the C functions of [`api`], declared once through [`boundary`]. Lua owns only the per-instance `self` tables
//! and the compiled callbacks; all game state stays in [`World`].
pub mod api;
pub mod api_docs;
pub mod boundary;
#[cfg(test)]
mod message_codec_tests;
mod system;
/// `sys.NETWORK_*` and `window.DIMMING_*` (their one list, for the API docs).
pub use system::constants as system_constants;
pub mod watchdog;

use crate::game::{ScriptHooks, World};
use crate::project::json::Located;
use crate::project::{PropertyValue, Resources};
use crate::scene::Message;
use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value};
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;

const VMATH_LUA: &str = include_str!("lua/vmath.lua");
const RUNTIME_LUA: &str = include_str!("lua/runtime.lua");

/// The Lua files loaded after `runtime.lua`, in order (each may use what those before it made).
/// Each is called with the shared table `S`; a table it returns becomes the global of its name.
/// The Lua half of registering a namespace is its line here (the Rust half, its module's name in
/// `api`'s `namespaces!`); a Defold namespace not made here raises "not supported" by itself.
pub(crate) const LUA_FILES: &[(&str, &str)] = &[
    ("go", include_str!("lua/go.lua")),
    ("property", include_str!("lua/property.lua")),
    ("animate", include_str!("lua/animate.lua")),
    ("model", include_str!("lua/model.lua")),
    ("label", include_str!("lua/label.lua")),
    ("msg", include_str!("lua/msg.lua")),
    ("input", include_str!("lua/input.lua")),
    ("timer", include_str!("lua/timer.lua")),
    ("sys", include_str!("lua/sys.lua")),
    ("factory", include_str!("lua/factory.lua")),
    ("collectionproxy", include_str!("lua/collectionproxy.lua")),
    ("camera", include_str!("lua/camera.lua")),
    ("render", include_str!("lua/render.lua")),
    ("types", include_str!("lua/types.lua")),
    ("buffer", include_str!("lua/buffer.lua")),
    ("graphics", include_str!("lua/graphics.lua")),
    ("image", include_str!("lua/image.lua")),
    ("resource", include_str!("lua/resource.lua")),
    ("sound", include_str!("lua/sound.lua")),
    ("physics", include_str!("lua/physics.lua")),
    ("sprite", include_str!("lua/sprite.lua")),
    ("gui", include_str!("lua/gui.lua")),
    ("particlefx", include_str!("lua/particlefx.lua")),
    ("b2d", include_str!("lua/b2d.lua")),
    ("tilemap", include_str!("lua/tilemap.lua")),
];

/// The runtime's Lua files compiled at build time (build.rs): `BUILTIN_BYTECODE` by file name,
/// and `BUILTIN_PRELUDE`, put before each file on its first line (line numbers stay): the
/// runtime's files keep Lua's own `type`, which `types.lua` replaces for scripts with Defold's
/// answer.
pub(crate) mod builtin_lua {
    include!(concat!(env!("OUT_DIR"), "/builtin_lua.rs"));
}
#[cfg(test)]
mod fingerprint;

/// Built-in Lua file `name` (`src/script/lua/NAME.lua`, `source` its text) as a function to
/// call: its bytecode from the build, which loads in a thirtieth of the time parsing takes (5 ms
/// of every start for all of them), else its source with the prelude, parsed here.
fn builtin(lua: &Lua, name: &str, source: &str) -> mlua::Result<Function> {
    let chunk_name = format!("@/builtins/{name}.lua");
    // A length that differs from the compiled file's: bytecode of another text, never used.
    if let Some((_, _, _, bytecode)) = builtin_lua::BUILTIN_BYTECODE.iter().find(|b| b.0 == name && b.1 == source.len())
        && let Ok(f) =
            lua.load(*bytecode).set_mode(mlua::chunk::ChunkMode::Binary).set_name(&chunk_name).into_function()
    {
        return Ok(f);
    }
    lua.load(format!("{}{source}", builtin_lua::BUILTIN_PRELUDE)).set_name(chunk_name).into_function()
}

/// A message for a script instance, read by `E.deliver` in arrays and by `E.model_done` alone
/// (`sinew_envelope`, declared in `boundary::structs`).
#[repr(C)]
struct Envelope {
    id: u64,
    sender: crate::scene::Url,
    receiver: crate::scene::Url,
    data: *const u8,
    len: usize,
    /// The receiving script instance.
    instance: u32,
}

impl Envelope {
    /// A view of `msg`, valid while `msg` lives; Lua reads it during the call it is passed to.
    fn of(msg: &Message, instance: u32) -> Envelope {
        Envelope {
            id: msg.id,
            sender: msg.sender,
            receiver: msg.receiver,
            data: msg.data.as_ptr(),
            len: msg.data.len(),
            instance,
        }
    }

    /// The address Lua casts to `const sinew_envelope *`.
    fn addr(&self) -> f64 {
        self as *const Envelope as usize as f64
    }
}

/// Where runtime.lua's shared table `S` is kept in the Lua registry.
const SHARED_KEY: &str = "sinew.S";

/// Entry points of runtime.lua, looked up once.
struct Entries {
    create: Function,
    declared: Function,
    init_new: Function,
    update: Function,
    late_update: Function,
    deliver: Function,
    destroy: Function,
    reload_script: Function,
    reload_module: Function,
    model_done: Function,
    before_tweens: Function,
    after_tweens: Function,
    fixed_update: Function,
    input: Function,
    timers: Function,
    window_events: Function,
    time_scale: Function,
    render_load: Function,
    render_update: Function,
}

pub struct ScriptHost {
    lua: Lua,
    entries: Entries,
    /// Kept so the FFI context pointer given to Lua stays valid as long as the Lua state.
    world: Rc<RefCell<World>>,
    errors: Rc<Cell<u32>>,
    res: Resources,
    /// Stops a callback that does not return (time limit, SIGINT); see [`watchdog`].
    watch: std::sync::Arc<watchdog::Watch>,
    /// `ulimit -v` is set: the Lua limit is measured again each frame.
    address_space_limited: bool,
    /// `deliver`'s array, kept empty between calls so a run allocates nothing.
    envelopes: Vec<Envelope>,
}

impl Drop for ScriptHost {
    fn drop(&mut self) {
        // Before the Lua state closes: the watchdog must never touch a closed state, and the
        // finalizers that run as it closes must not call back into Rust (mlua cannot take the
        // call then, and a script's `print` at exit showed as a panic).
        self.watch.detach();
        let before_close = self
            .lua
            .named_registry_value::<Table>(SHARED_KEY)
            .and_then(|s| s.get::<Function>("before_close"))
            .and_then(|f| f.call::<()>(()));
        if let Err(e) = before_close {
            log::error!("internal error before closing Lua: {e}");
        }
    }
}

fn lua_err(e: mlua::Error) -> String {
    e.to_string()
}

impl ScriptHost {
    /// Creates the Lua state with the Sinew API installed.
    pub fn new(world: Rc<RefCell<World>>, res: Resources) -> Result<Self, String> {
        // SAFETY: FFI is required by the bindings; scripts are trusted game code, as in LÖVE.
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
        let errors = Rc::new(Cell::new(0u32));
        let host_fns = Self::host_functions(&lua, res.clone(), errors.clone(), world.clone()).map_err(lua_err)?;
        let (api, sigs) = bindings(&lua).map_err(|e| format!("internal error while binding the FFI: {e}"))?;
        let ctx_addr = Rc::as_ptr(&world) as usize as f64;
        let entries = (|| -> mlua::Result<Entries> {
            let vm = load_vmath_over(&lua, &api, &sigs)?;
            let globals = lua.globals();
            globals.set("vmath", vm.get::<Table>("vmath")?)?;
            let s: Table = builtin(&lua, "runtime", RUNTIME_LUA)?.call((api, sigs, ctx_addr, host_fns, vm))?;
            for (name, code) in LUA_FILES {
                let made: Value = builtin(&lua, name, code)?.call(s.clone())?;
                if let Value::Table(t) = made {
                    globals.set(*name, t)?;
                }
            }
            for ns in api_docs::unsupported() {
                if globals.get::<Value>(ns)?.is_nil() {
                    let refused: Table = s.get::<Function>("unsupported_rest")?.call((ns, lua.create_table()?))?;
                    globals.set(ns, refused)?;
                }
            }
            crate::script::constants(&lua, &globals.get::<Table>("go")?)?;
            // gui.EASING_* and gui.PLAYBACK_* are go's (raw: the table refuses other new fields).
            let gui: Table = globals.get("gui")?;
            for (i, n) in api_docs::PLAYBACK.iter().enumerate() {
                gui.raw_set(format!("PLAYBACK_{n}"), i)?;
            }
            for (i, n) in api_docs::EASING.iter().enumerate() {
                gui.raw_set(format!("EASING_{n}"), i)?;
            }
            let hash: Function = globals.get("hash")?;
            for n in api_docs::GUI_PROPS {
                gui.raw_set(format!("PROP_{}", n.to_uppercase()), hash.call::<Value>(*n)?)?;
            }
            let reads: Function = s.get("unsupported_reads")?;
            for ns in api_docs::NAMESPACES.iter().filter(|n| !n.name.is_empty()) {
                if let Ok(t) = globals.get::<Table>(ns.name)
                    && t.metatable().is_none()
                {
                    reads.call::<()>((ns.name, t))?;
                }
            }
            let e: Table = s.get("E")?;
            // The tests reach the runtime's internals (the message decoder) through it.
            lua.set_named_registry_value(SHARED_KEY, s)?;
            Ok(Entries {
                create: e.get("create")?,
                declared: e.get("declared")?,
                init_new: e.get("init_new")?,
                update: e.get("update")?,
                late_update: e.get("late_update")?,
                deliver: e.get("deliver")?,
                destroy: e.get("destroy")?,
                reload_script: e.get("reload_script")?,
                model_done: e.get("model_done")?,
                reload_module: e.get("reload_module")?,
                before_tweens: e.get("before_tweens")?,
                after_tweens: e.get("after_tweens")?,
                fixed_update: e.get("fixed_update")?,
                input: e.get("input")?,
                timers: e.get("timers")?,
                window_events: e.get("window_events")?,
                time_scale: e.get("time_scale")?,
                render_load: e.get("render_load")?,
                render_update: e.get("render_update")?,
            })
        })()
        .map_err(|e| format!("internal error while starting Lua: {e}"))?;
        // mlua's allocator aborts the process when the system refuses memory; under this limit
        // Lua gets its own "not enough memory" error first and the game goes on.
        if let Err(e) = lua.set_memory_limit(lua_memory_limit()) {
            log::warn!("cannot limit Lua's memory ({e}): running out of memory will abort");
        }
        let watch = watchdog::Watch::new(&lua);
        Ok(ScriptHost {
            lua,
            entries,
            world,
            errors,
            res,
            watch,
            address_space_limited: address_space_limit().is_some(),
            envelopes: Vec::new(),
        })
    }

    /// The functions Lua calls back into with ordinary (non-FFI) values.
    fn host_functions(
        lua: &Lua,
        res: Resources,
        errors: Rc<Cell<u32>>,
        world: Rc<RefCell<World>>,
    ) -> mlua::Result<Table> {
        let t = lua.create_table()?;
        // Once per factory (the Lua side caches it): what its prototype's scripts need.
        t.set("factory_info", lua.create_function(move |lua, f: u32| factory_info(lua, &world, f))?)?;
        t.set(
            "print",
            lua.create_function(|_, s: mlua::LuaString| {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&s.as_bytes());
                let _ = out.write_all(b"\n");
                let _ = out.flush();
                Ok(())
            })?,
        )?;
        t.set(
            "log_error",
            lua.create_function(move |_, s: String| {
                errors.set(errors.get() + 1);
                log::error!("{s}");
                Ok(())
            })?,
        )?;
        t.set(
            "log_warn",
            lua.create_function(|_, s: String| {
                log::warn!("{s}");
                Ok(())
            })?,
        )?;
        // The game-object property registry (anim::GoProperty), read by go.get/go.set/go.animate.
        let props = lua.create_table()?;
        for p in crate::anim::GoProperty::ALL {
            let row = lua.create_table()?;
            row.set("name", p.name())?;
            row.set("index", p as u32)?;
            row.set("type", p.value_type())?;
            row.set("elements", lua.create_sequence_from(p.element_names().iter().copied())?)?;
            row.set("fills_set", p.number_fills(false))?;
            row.set("fills_animate", p.number_fills(true))?;
            props.push(row)?;
        }
        t.set("go_properties", props)?;
        t.set("stop_messages", lua.create_sequence_from(watchdog::STOP_MESSAGES)?)?;
        let fits = lua.create_table()?;
        for &(declared, given) in crate::game::spawn::OTHER_KINDS_THAT_FIT {
            let kinds: Table = match fits.get::<Option<Table>>(declared)? {
                Some(k) => k,
                None => lua.create_table()?,
            };
            kinds.set(given, true)?;
            fits.set(declared, kinds)?;
        }
        t.set("other_kinds_that_fit", fits)?;
        t.set("message_keys", lua.create_sequence_from(crate::scene::message::KEYS.iter().copied())?)?;
        let records = crate::scene::message::RECORDS.iter().map(|keys| keys.iter().map(|&k| k as u8 + 1).collect());
        t.set("message_records", lua.create_sequence_from(records.map(|k: Vec<u8>| k))?)?;
        t.set("gui_constants", lua.create_table_from(api::gui::CONSTANTS.iter().copied())?)?;
        t.set("graphics_constants", lua.create_table_from(api::resource::graphics_constants())?)?;
        t.set("render_target_fields", lua.create_sequence_from(api::render::TARGET_FIELDS)?)?;
        let joint_types = crate::game::physics::joints::JointType::ALL.iter().enumerate().map(|(i, &(n, _))| (n, i));
        t.set("physics_joint_types", lua.create_table_from(joint_types)?)?;
        t.set("physics_joint_props", lua.create_sequence_from(crate::game::physics::joints::JointProps::NAMES)?)?;
        let fields = lua.create_table()?;
        for (i, &(_, ty)) in crate::game::physics::joints::JointType::ALL.iter().enumerate() {
            fields.set(i, lua.create_sequence_from(ty.fields().split_whitespace())?)?;
        }
        t.set("physics_joint_fields", fields)?;
        let shape_types = crate::game::physics::shapes::ShapeType::ALL.iter().enumerate().map(|(i, &(n, _))| (n, i));
        t.set("physics_shape_types", lua.create_table_from(shape_types)?)?;
        let shape_fields = lua.create_table()?;
        for (i, &(_, ty)) in crate::game::physics::shapes::ShapeType::ALL.iter().enumerate() {
            let list = lua.create_table()?;
            for (k, &(name, n)) in ty.fields().iter().enumerate() {
                let row = lua.create_table()?;
                row.set(1, name)?;
                row.set(2, n)?;
                list.set(k + 1, row)?;
            }
            shape_fields.set(i, list)?;
        }
        t.set("physics_shape_fields", shape_fields)?;
        t.set(
            "physics_joint_read_only",
            lua.create_sequence_from(crate::game::physics::joints::JointProps::READ_ONLY)?,
        )?;
        let value_types = api::resource::VALUE_TYPES
            .iter()
            .map(|&(name, v, ctype)| vec![name.to_string(), v.to_string(), ctype.to_string()]);
        t.set("buffer_value_types", lua.create_sequence_from(value_types)?)?;
        t.set("buffer_max_bytes", api::resource::BUFFER_MAX_BYTES)?;
        t.set("image_constants", lua.create_table_from(api::resource::IMAGE_TYPES.iter().copied())?)?;
        t.set(
            "image_decode",
            lua.create_function(|lua, (data, premultiply, flip): (mlua::LuaString, bool, bool)| {
                match api::resource::decode_image(&data.as_bytes(), premultiply, flip) {
                    Some((w, h, px)) => {
                        Ok((Value::Number(w.into()), Value::Number(h.into()), Value::String(lua.create_string(&px)?)))
                    }
                    None => Ok((Value::Nil, Value::Nil, Value::Nil)),
                }
            })?,
        )?;
        t.set("K", lua.create_table_from(boundary::constants())?)?;
        t.set("max_properties", crate::base::hash::SCRIPT_NAMES)?;
        let (min, max) = (crate::base::quat::MIN_LENGTH, crate::base::quat::MAX_SCRIPT_LENGTH);
        t.set("rotation_lengths", lua.create_sequence_from([min, max])?)?;
        t.set("rotation_rule", format!("a quat of length between {min:e} and {max:e}"))?;
        let read_res = res.clone();
        t.set(
            "read",
            // A third value on failure: true when the file is simply not there
            // (`sys.load_buffer_async` tells that from an error reading it).
            lua.create_function(move |lua, path: String| match read_res.read(&path, None) {
                Ok(bytes) => Ok((Value::String(lua.create_string(&bytes)?), Value::Nil, Value::Nil)),
                Err(e) => {
                    let missing = e.message == crate::project::resources::NOT_FOUND;
                    Ok((Value::Nil, Value::String(lua.create_string(e.to_string())?), Value::Boolean(missing)))
                }
            })?,
        )?;
        system::install(lua, &t, &res)?;
        Ok(t)
    }

    /// The time one entry into Lua (an update pass, an `init` round, a message) may take before
    /// the running script is stopped with "script ran too long"; `None` = no limit.
    pub fn set_time_limit(&self, limit: Option<std::time::Duration>) {
        self.watch.set_limit(limit);
    }

    /// Compiles a `.script` or `.lua` file without running it (`sinew check`).
    pub fn compile(&self, path: &str) -> Result<(), String> {
        let src = self.res.read_string(path, None).map_err(|e| e.to_string())?;
        self.lua.load(src).set_name(format!("@{path}")).into_function().map(|_| ()).map_err(|e| match e {
            mlua::Error::SyntaxError { message, .. } => message,
            other => other.to_string(),
        })
    }

    /// Re-runs a changed `.script` or `.lua` for its instances (hot reload). `Ok(false)` when the
    /// file is not in use; `Err` (with path and line) leaves the previous version running.
    pub fn reload(&mut self, path: &str) -> Result<bool, String> {
        let f = if path.ends_with(".script") || path.ends_with(".gui_script") || path.ends_with(".render_script") {
            &self.entries.reload_script
        } else {
            &self.entries.reload_module
        };
        let _running = self.watch.enter();
        let (err, used): (Option<String>, Option<bool>) = f.call(path).map_err(lua_err)?;
        match err {
            Some(e) => Err(e),
            None => Ok(used.unwrap_or(false)),
        }
    }

    /// Loads the project's own render script (`[bootstrap] render`) and runs its `init`: from
    /// then on each frame is drawn as its `update` says ([`Self::render_update`]). `Err`: it does
    /// not compile or its top level fails (with path and line). A script that meets something
    /// Sinew does not support is stopped with a warning, and Sinew's pipeline draws.
    pub fn load_render_script(&mut self, path: &str) -> Result<(), String> {
        self.world.borrow_mut().render_script.path = path.to_string();
        let _running = self.watch.enter();
        let (err, stopped): (Option<String>, Option<bool>) = self.entries.render_load.call(path).map_err(lua_err)?;
        if err.is_some() || stopped == Some(true) {
            self.world.borrow_mut().render_script.stop();
        }
        err.map_or(Ok(()), Err)
    }

    /// Runs the render script's `update` for the frame about to be drawn, recording its
    /// commands; a failed `update` (reported with its place) leaves the last good frame's.
    pub fn render_update(&mut self, dt: f32) {
        let (width, height) = {
            let mut w = self.world.borrow_mut();
            if w.render_script.path.is_empty() {
                return;
            }
            w.render_script.begin();
            w.input.window_size()
        };
        let _running = self.watch.enter();
        let (ok, stopped) = match self.entries.render_update.call::<(bool, bool)>((dt, width, height)) {
            Ok(r) => r,
            Err(e) => {
                self.errors.set(self.errors.get() + 1);
                log::error!("the render script's update: {e}");
                (false, false)
            }
        };
        let mut w = self.world.borrow_mut();
        w.render_script.end(ok);
        if stopped {
            w.render_script.stop();
        }
    }

    /// Number of script errors reported so far (runtime errors in callbacks).
    pub fn error_count(&self) -> u32 {
        self.errors.get()
    }

    pub fn world(&self) -> &Rc<RefCell<World>> {
        &self.world
    }

    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// The `go.property` declarations of a script as (name, kind), loading it (its top level
    /// runs once) if no instance has yet; loading errors name the script file.
    pub fn declarations(&self, script: &str) -> Result<Vec<(String, String)>, String> {
        let (list, err): (Option<Vec<Vec<String>>>, Option<String>) =
            self.entries.declared.call(script).map_err(lua_err)?;
        let Some(list) = list else {
            return Err(err.unwrap_or_else(|| format!("{script}: cannot be loaded")));
        };
        Ok(list
            .into_iter()
            .filter_map(|row| match <[String; 2]>::try_from(row) {
                Ok([name, kind]) => Some((name, kind)),
                Err(_) => None,
            })
            .collect())
    }

    /// Creates one script component instance; loading errors name the script file. The
    /// overrides must fit the declarations (`game::spawn::check_overrides`).
    pub fn create_instance(
        &mut self,
        slot: u32,
        component: &str,
        script: &str,
        props: &[(String, Located<PropertyValue>)],
    ) -> Result<u32, String> {
        // Most spawned objects override nothing: no table is made for them.
        let overrides = if props.is_empty() {
            None
        } else {
            let t = self.lua.create_table().map_err(lua_err)?;
            for (i, (name, v)) in props.iter().enumerate() {
                let row = property_row(&self.lua, name, &v.value).map_err(lua_err)?;
                t.set(i + 1, row).map_err(lua_err)?;
            }
            Some(t)
        };
        let index = self.world.borrow().next_script;
        let _running = self.watch.enter();
        let err: Option<String> =
            self.entries.create.call((index, slot, component, script, overrides)).map_err(lua_err)?;
        if let Some(e) = err {
            return Err(e);
        }
        self.world.borrow_mut().next_script = index + 1;
        Ok(index)
    }

    /// Runs one of the runtime's passes; the scripts' own errors were reported inside it with
    /// their place, so an error reaching here is the pass's (its memory error has no place of
    /// its own), and `pass` names it.
    fn call_entry<A: mlua::IntoLuaMulti>(&self, pass: &str, f: &Function, args: A) {
        let _running = self.watch.enter();
        if let Err(e) = f.call::<()>(args) {
            self.errors.set(self.errors.get() + 1);
            let e = e.to_string();
            if e.contains("not enough memory") {
                log::error!("{pass}: not enough memory (Lua's memory limit was reached; the pass was stopped)");
            } else {
                log::error!("{pass}: {e}");
            }
        }
    }
}

/// The exported functions as Lua tables name → address and name → C signature, after declaring
/// the shared structs; runtime.lua casts each address with its signature.
fn bindings(lua: &Lua) -> mlua::Result<(Table, Table)> {
    declare_structs(lua)?;
    let (api, sigs) = (lua.create_table()?, lua.create_table()?);
    for e in boundary::exports() {
        api.set(e.name, e.addr as f64)?;
        sigs.set(e.name, e.signature())?;
    }
    Ok((api, sigs))
}

/// Loads the built-in `vmath` module (returns its module table; `.vmath` is the namespace) over
/// the FFI functions it needs. Loading it again in the same state returns the same module.
pub fn load_vmath(lua: &Lua) -> mlua::Result<Table> {
    let (api, sigs) = bindings(lua)?;
    load_vmath_over(lua, &api, &sigs)
}

/// [`load_vmath`] over bindings already made (the runtime makes them once for every file).
fn load_vmath_over(lua: &Lua, api: &Table, sigs: &Table) -> mlua::Result<Table> {
    let cast: Function =
        lua.load("local ffi = require('ffi') return function(s, a) return ffi.cast(s, a) end").eval()?;
    let f = lua.create_table()?;
    for name in ["euler_to_quat", "quat_to_euler"] {
        f.set(name, cast.call::<Value>((sigs.get::<String>(name)?, api.get::<f64>(name)?))?)?;
    }
    builtin(lua, "vmath", VMATH_LUA)?.call(f)
}

/// Declares every shared struct (`boundary::cdef`) in a Lua state with LuaJIT's FFI; `vmath`
/// and the runtime use the types from there.
pub fn declare_structs(lua: &Lua) -> mlua::Result<()> {
    // Once per state: LuaJIT refuses a second declaration of the same struct.
    let code =
        "local text = ... local ffi = require('ffi') if not pcall(ffi.typeof, 'sinew_hash') then ffi.cdef(text) end";
    lua.load(code).set_name("=boundary").call::<()>(boundary::cdef())
}

/// The most memory Lua may hold: half the machine's physical memory, and half the address
/// space the process may still map (`ulimit -v`), so the refusal comes from Lua's limit, never
/// from the system (mlua's allocator ends the process when the system refuses). At least 16 MiB.
/// `SINEW_LUA_MEMORY_MB` lowers it (the tests' way to reach the limit quickly).
pub fn lua_memory_limit() -> usize {
    lua_memory_limit_with(0)
}

/// [`lua_memory_limit`] for a state holding `used` bytes: the room left in the address space
/// shrinks as the renderer and the game map memory, so the limit is measured again each frame
/// where the address space is limited (see [`ScriptHost::update`]).
fn lua_memory_limit_with(used: usize) -> usize {
    const FLOOR: usize = 16 << 20;
    // SAFETY: plain queries of the C library.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let mut limit = usize::MAX;
    if pages > 0 && page > 0 {
        limit = (pages as usize).saturating_mul(page as usize) / 2;
    }
    if let Some(r) = address_space_limit() {
        let mapped = mapped_bytes().unwrap_or(0);
        limit = limit.min(used + r.saturating_sub(mapped) / 2);
    }
    if let Some(mb) = std::env::var("SINEW_LUA_MEMORY_MB").ok().and_then(|v| v.parse::<usize>().ok()) {
        limit = limit.min(mb.saturating_mul(1 << 20));
    }
    limit.max(FLOOR)
}

/// The address space the process may map (`ulimit -v`), if it is limited: then the Lua limit
/// follows the room left.
fn address_space_limit() -> Option<usize> {
    // SAFETY: a plain query of the C library with no pointer but the rlimit out-value.
    let r = unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        (libc::getrlimit(libc::RLIMIT_AS, &mut r) == 0).then_some(r.rlim_cur)
    };
    r.filter(|&r| r != libc::RLIM_INFINITY).map(|r| usize::try_from(r).unwrap_or(usize::MAX))
}

/// The process's mapped address space (the first field of /proc/self/statm, in pages).
fn mapped_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: a plain query.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages.saturating_mul(usize::try_from(page).ok()?))
}

/// `{ collection, paths = { "/root", ... }, scripts = { { obj, comp, script, overrides } } }`
/// for the factory `f`, `obj` being the 1-based index into `paths` (the prototype's objects, in
/// the order `factory_spawn` returns their slots).
fn factory_info(lua: &Lua, world: &RefCell<World>, f: u32) -> mlua::Result<Table> {
    let spec = match world
        .try_borrow()
        .ok()
        .and_then(|w| w.factories.list.get(f as usize).filter(|f| f.alive).map(|f| f.spec.clone()))
    {
        Some(s) => s,
        None => return Err(mlua::Error::runtime(format!("internal error: no factory {f}"))),
    };
    let (t, paths, scripts) = (lua.create_table()?, lua.create_table()?, lua.create_table()?);
    t.set("collection", spec.collection)?;
    for (i, o) in spec.objects.iter().enumerate() {
        paths.set(i + 1, o.path.as_str())?;
        for c in &o.components {
            if let crate::project::ComponentKind::Script { script, properties } = &c.kind {
                let row = lua.create_table()?;
                row.set("obj", i + 1)?;
                row.set("comp", c.id.as_str())?;
                row.set("script", script.as_str())?;
                let overrides = lua.create_table()?;
                for (k, (name, v)) in properties.iter().enumerate() {
                    overrides.set(k + 1, property_row(lua, name, &v.value)?)?;
                }
                row.set("overrides", overrides)?;
                scripts.push(row)?;
            }
            // A gui component's .gui_script, in the place `factory::spawn` gives it.
            if let crate::project::ComponentKind::Gui(g) = &c.kind
                && let Some(script) = &g.0.script
            {
                let row = lua.create_table()?;
                row.set("obj", i + 1)?;
                row.set("comp", c.id.as_str())?;
                row.set("script", script.as_str())?;
                row.set("overrides", lua.create_table()?)?;
                scripts.push(row)?;
            }
        }
    }
    t.set("paths", paths)?;
    t.set("scripts", scripts)?;
    Ok(t)
}

fn property_row(lua: &Lua, name: &str, v: &PropertyValue) -> mlua::Result<Table> {
    let row = lua.create_table()?;
    row.set(1, name)?;
    match v {
        PropertyValue::Number(n) => {
            row.set(2, "number")?;
            row.set(3, *n)?;
        }
        PropertyValue::Bool(b) => {
            row.set(2, "boolean")?;
            row.set(3, *b)?;
        }
        PropertyValue::String(s) => {
            row.set(2, "string")?;
            row.set(3, s.as_str())?;
        }
        PropertyValue::Hash(s) => {
            row.set(2, "hash")?;
            row.set(3, s.as_str())?;
        }
        PropertyValue::Url(s) => {
            row.set(2, "url")?;
            row.set(3, s.as_str())?;
        }
        PropertyValue::Vector3(a) => {
            row.set(2, "vector3")?;
            for (i, x) in a.iter().enumerate() {
                row.set(3 + i, *x)?;
            }
        }
        PropertyValue::Vector4(a) => {
            row.set(2, "vector4")?;
            for (i, x) in a.iter().enumerate() {
                row.set(3 + i, *x)?;
            }
        }
    }
    Ok(row)
}

/// `go.PLAYBACK_*` and `go.EASING_*` constants, named by the API table ([`api_docs`]).
pub fn constants(_lua: &Lua, go: &Table) -> mlua::Result<()> {
    for (i, n) in api_docs::PLAYBACK.iter().enumerate() {
        go.set(format!("PLAYBACK_{n}"), i)?;
    }
    for (i, n) in api_docs::EASING.iter().enumerate() {
        go.set(format!("EASING_{n}"), i)?;
    }
    Ok(())
}

impl ScriptHooks for ScriptHost {
    fn script_factory(&mut self) -> Option<&mut dyn crate::game::spawn::ScriptFactory> {
        Some(self)
    }

    fn init_new(&mut self) {
        self.call_entry("the init pass", &self.entries.init_new, ());
    }
    fn update(&mut self, dt: f32) {
        if self.address_space_limited {
            let used = self.lua.used_memory();
            let _ = self.lua.set_memory_limit(lua_memory_limit_with(used));
        }
        self.call_entry("the update pass", &self.entries.update, dt);
    }
    fn late_update(&mut self, dt: f32) {
        self.call_entry("the late update pass", &self.entries.late_update, dt);
    }
    fn deliver(&mut self, batch: &[Message], run: &[(u32, u32)]) {
        let mut envelopes = std::mem::take(&mut self.envelopes);
        envelopes.extend(run.iter().filter_map(|&(i, k)| Some(Envelope::of(batch.get(k as usize)?, i))));
        // An address as a number, as for `input`: Lua reads the envelopes only during this call.
        let args = (envelopes.as_ptr() as usize as f64, envelopes.len());
        self.call_entry("message delivery", &self.entries.deliver, args);
        // Emptied before it is kept: its pointers are into `batch`.
        envelopes.clear();
        self.envelopes = envelopes;
    }
    fn model_done(&mut self, instance: u32, callback: u32, msg: &Message) {
        let env = Envelope::of(msg, instance);
        self.call_entry("an animation callback", &self.entries.model_done, (instance, callback, env.addr(), false));
    }
    fn callback_again(&mut self, instance: u32, callback: u32, msg: &Message) {
        let env = Envelope::of(msg, instance);
        self.call_entry("a callback", &self.entries.model_done, (instance, callback, env.addr(), true));
    }
    fn destroy(&mut self, instance: u32) {
        self.call_entry("the final pass", &self.entries.destroy, instance);
    }
    fn timers(&mut self, dt: f32) {
        self.call_entry("the timer pass", &self.entries.timers, dt);
    }
    fn before_tweens(&mut self, dt: f32) {
        self.call_entry("the tween pass", &self.entries.before_tweens, dt);
    }
    fn after_tweens(&mut self) {
        self.call_entry("the tween pass", &self.entries.after_tweens, ());
    }
    fn fixed_update(&mut self, dt: f32, steps: u32) -> bool {
        let _running = self.watch.enter();
        match self.entries.fixed_update.call::<bool>((dt, steps)) {
            Ok(used) => used,
            Err(e) => {
                self.errors.set(self.errors.get() + 1);
                log::error!("{e}");
                true
            }
        }
    }
    fn input(&mut self, actions: &[crate::game::input::ActionEvent], text: &str, targets: &[u32]) {
        // Addresses as numbers, as for `deliver`: Lua reads the slices only during this call.
        let addr = |p: *const u8| p as usize as f64;
        let args = (
            addr(actions.as_ptr().cast()),
            actions.len(),
            addr(text.as_ptr()),
            addr(targets.as_ptr().cast()),
            targets.len(),
        );
        self.call_entry("input dispatch", &self.entries.input, args);
    }
    fn time_scale(&mut self, scale: &[f32]) {
        // An address as a number, as for `input`: Lua copies the factors during this call.
        let args = (scale.as_ptr() as usize as f64, scale.len());
        self.call_entry("the time step", &self.entries.time_scale, args);
    }
    fn window_events(&mut self, events: &[[u32; 3]]) {
        // An address as a number, as for `input`: Lua reads the slice only during this call.
        let args = (events.as_ptr() as usize as f64, events.len());
        self.call_entry("window events", &self.entries.window_events, args);
    }
}

impl crate::game::spawn::ScriptFactory for ScriptHost {
    fn declarations(&mut self, script: &str) -> Result<Vec<(String, String)>, String> {
        ScriptHost::declarations(self, script)
    }

    fn create(
        &mut self,
        slot: u32,
        component: &str,
        script: &str,
        props: &[(String, Located<PropertyValue>)],
    ) -> Result<u32, String> {
        self.create_instance(slot, component, script, props)
    }
}
