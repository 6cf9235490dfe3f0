//! `sinew run`: load, then loop input → update → render → post-update until told to stop.
use super::draw::Scenery;
use super::stats::Stats;
use crate::game::input::{RawEvent, replay};
use crate::game::{self, ScriptHooks, World};
use crate::project::{ProjectSettings, Resources, collection, input, settings};
use crate::render::{Gfx, WindowConfig};
use crate::script::ScriptHost;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

#[derive(Default)]
pub struct RunOptions {
    pub project_dir: Option<PathBuf>,
    pub headless: bool,
    pub frames: Option<u64>,
    pub fixed_dt: Option<f32>,
    pub screenshot: Option<PathBuf>,
    pub size: Option<(u32, u32)>,
    pub watch: bool,
    pub stats: bool,
    pub debug_draw: bool,
    /// Write every raw input event to this file (JSON lines, input.md section 5).
    pub record: Option<PathBuf>,
    /// Feed the raw input events of this file.
    pub replay: Option<PathBuf>,
    /// Resources to run instead of `project_dir`'s (`sinew view`).
    pub resources: Option<Resources>,
    /// Write every sample mixed to this WAV file (docs/sound.md).
    pub audio_out: Option<PathBuf>,
}

/// A loaded game: its state and the script runtime that drives it.
pub struct Game {
    pub settings: ProjectSettings,
    /// The main collection as last loaded: a saved collection is applied over it in place.
    pub spec: crate::project::CollectionSpec,
    pub world: Rc<RefCell<World>>,
    pub scripts: ScriptHost,
}

fn open_resources(dir: Option<&Path>) -> Result<Resources, String> {
    match dir {
        Some(d) => Resources::open_dir(d).map_err(|e| e.to_string()),
        None => Ok(Resources::demo()),
    }
}

/// A collection loaded and spawned into a new world (no `init` run yet), with every problem met
/// on the way. This is the one load path of `run` and `sinew check`, so check reports exactly
/// what run would refuse to start with.
struct Spawned {
    spec: crate::project::CollectionSpec,
    world: Rc<RefCell<World>>,
    scripts: Option<ScriptHost>,
    problems: Vec<String>,
}

/// Spawns even a collection with load problems: what did load is still checked (script
/// overrides, models), so one pass finds everything.
/// `limit`: the project's `script_time_limit`, already in force for the scripts' top levels;
/// `max_instances`: its capacity, which no collection may expand past.
/// `setup` readies the new world before anything is spawned into it (what components read when
/// they are made: the GUI's screen and display profiles).
fn spawn(
    res: &Resources,
    path: &str,
    limit: Option<std::time::Duration>,
    max_instances: u32,
    setup: impl FnOnce(&mut World),
    mark: &mut dyn FnMut(&'static str),
) -> Spawned {
    let loaded = collection::load_collection_within(res, path, max_instances);
    mark("project_files");
    let mut problems: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    let world = Rc::new(RefCell::new(World::new(&loaded.spec.name)));
    setup(&mut world.borrow_mut());
    mark("world");
    let scripts = match ScriptHost::new(world.clone(), res.clone()) {
        Ok(mut scripts) => {
            mark("lua_state");
            scripts.set_time_limit(limit);
            if let Err(p) = game::spawn::spawn_collection(&world, res, &loaded.spec, &mut scripts) {
                problems.extend(p);
            }
            mark("spawn");
            Some(scripts)
        }
        Err(e) => {
            problems.push(e);
            None
        }
    };
    // A prototype's problem is met once per object using it, with the same words.
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    Spawned { spec: loaded.spec, world, scripts, problems }
}

/// Loads the project, spawns the main collection and runs every `init` (and the messages they
/// post). Refuses with every load problem, one per line. `size`: the window size asked for
/// (`--size`), which `window.get_size` reports from `init` on, before the window exists.
pub fn load_game(res: &Resources, size: Option<(u32, u32)>) -> Result<Game, String> {
    load_game_marked(res, size, &mut |_| {})
}

/// [`load_game`], calling `mark` as each of its steps ends (`--stats`' start-up breakdown):
/// `project_files` (settings, display profiles, the main collection's files read and checked),
/// `world` (the game world and its worker threads), `lua_state` (LuaJIT and every binding),
/// `spawn` (the objects, their models imported and their scripts loaded) and `init` (the input
/// binding, every `init` and the messages it posts).
pub fn load_game_marked(
    res: &Resources,
    size: Option<(u32, u32)>,
    mark: &mut dyn FnMut(&'static str),
) -> Result<Game, String> {
    let settings = settings::load_settings(res).map_err(|e| e.to_string())?;
    if settings::is_defold(res)
        && let Ok(text) = res.read_string(crate::project::defold::game_project::GAME_PROJECT, None)
    {
        for w in crate::project::defold::game_project::ignored(&text, res.libraries()) {
            log::warn!("{w}");
        }
    }
    let limit = settings.script_time_limit;
    let limit = (limit > 0.0).then(|| std::time::Duration::from_secs_f32(limit));
    let display = (settings.width, settings.height);
    let profiles = crate::project::display_profiles::load_display_profiles(res, &settings.display_profiles);
    let profiles_problem = profiles.as_ref().err().map(ToString::to_string);
    // The screen the GUI is laid out on and its layouts chosen for, from the scenes' start
    // (each frame's layout sets it again from the window).
    let setup = |w: &mut World| {
        w.gui.screen = (display, size.unwrap_or(display));
        w.gui.set_profiles(profiles.unwrap_or_default());
    };
    let Spawned { world, scripts, mut problems, spec } =
        spawn(res, &settings.main_collection, limit, settings.max_instances, setup, mark);
    problems.extend(profiles_problem);
    match input::load_binding(res, &settings.input, settings::settings_file(res)) {
        Ok(binding) => {
            let mut w = world.borrow_mut();
            w.input = game::input::InputState::new(
                &binding,
                (settings.width, settings.height),
                settings.repeat_delay,
                settings.repeat_interval,
            );
            if let Some((width, height)) = size {
                w.input.set_window_size(width, height);
            }
            w.fixed = game::input::FixedClock::new(settings.fixed_update_frequency);
            let game::World { physics, scene, .. } = &mut *w;
            physics.configure(settings.physics, settings.fixed_update_frequency, scene);
            w.factories.max_instances = settings.max_instances;
        }
        Err(e) => problems.push(e.to_string()),
    }
    let render_script = match settings.render.as_str() {
        "" => None,
        render => {
            crate::project::defold::render::render_script(res, render).map_err(|e| problems.push(e.to_string())).ok()
        }
    };
    let mut scripts = match scripts {
        Some(s) if problems.is_empty() => s,
        _ => return Err(problems.join("\n")),
    };
    world.borrow_mut().render_script.display = (settings.width, settings.height);
    // As Defold starts its render script before the main collection: its `init` runs first.
    if let Some(path) = render_script {
        scripts.load_render_script(&path)?;
    }
    scripts.init_new();
    game::post_update(&world, &mut scripts);
    mark("init");
    Ok(Game { settings, spec, world, scripts })
}

/// Runs a project. Returns the exit status when the game cannot start; a game that ran ends the
/// process itself ([`end_process`]), so this is the last thing a command calls.
pub fn run(opts: RunOptions) -> i32 {
    let began = Instant::now();
    let mut stats = Stats::default();
    // Before any script runs: a Ctrl-C during an endless `init` must still end the run cleanly.
    crate::script::watchdog::install_signal_handlers();
    super::interrupt::end_within_grace_after_signal();
    // The whole replay is checked before anything runs: a bad line means no partial run.
    let mut replay = match &opts.replay {
        Some(path) => {
            match super::replay_file::read(path).and_then(|text| replay::parse(&path.display().to_string(), &text)) {
                Ok(r) => Some(r),
                Err(e) => {
                    log::error!("{e}");
                    return 1;
                }
            }
        }
        None => None,
    };
    let mut recorder = match &opts.record {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(std::io::BufWriter::new(f)),
            Err(e) => {
                log::error!("{}: cannot create recording: {e}", path.display());
                return 1;
            }
        },
        None => None,
    };
    let opened = match opts.resources.clone() {
        Some(r) => Ok(r),
        None => open_resources(opts.project_dir.as_deref()),
    };
    let res = match opened {
        Ok(r) => r,
        Err(e) => {
            log::error!("{e}");
            return 1;
        }
    };
    stats.startup_step("resources", began);
    let mut g = match load_game_marked(&res, opts.size, &mut |step| stats.startup_step(step, began)) {
        Ok(g) => g,
        Err(e) => {
            log::error!("{e}");
            defold_hint(opts.project_dir.as_deref());
            return 1;
        }
    };
    let headless = opts.headless || !crate::render::display_available();
    if headless && !opts.headless {
        log::info!("no display available: running headless");
    }
    let (width, height) = opts.size.unwrap_or((g.settings.width, g.settings.height));
    let cfg = WindowConfig { title: g.settings.title.clone(), width, height, vsync: g.settings.vsync, headless };
    let mut gfx = match Gfx::new(&cfg) {
        Ok(gfx) => gfx,
        Err(e) => {
            log::error!("cannot create the OpenGL context: {e}");
            return 1;
        }
    };
    log::debug!("{}", gfx.renderer_info());
    stats.startup_step("gl_context", began);
    let mut scenery = match Scenery::new(gfx.gl(), opts.debug_draw) {
        Ok(mut s) => {
            s.set_look(g.settings.look);
            s
        }
        Err(e) => {
            log::error!("cannot set up rendering: {e}");
            return 1;
        }
    };
    stats.startup_step("renderer", began);
    scenery.screen_view = g.settings.screen_view;
    scenery.display = (g.settings.width, g.settings.height);
    let period = 1.0 / g.settings.update_frequency.max(1.0);
    let fixed_dt = opts.fixed_dt.or(if headless { Some(period) } else { None });
    // input.md section 4: only `--fixed-dt` runs flat out; headless or vsync-less runs keep
    // real time at update_frequency.
    let pace = opts.fixed_dt.is_none() && (headless || !g.settings.vsync);
    gfx.finish_frames(opts.stats);
    scenery.renderer.clock.set_on(opts.stats);
    g.world.borrow_mut().proxies.reproducible = fixed_dt.is_some();
    let mut next_frame = Instant::now();
    {
        let (w, h) = gfx.window_size();
        g.world.borrow_mut().input.set_window_size(w, h);
    }
    let mut audio = match super::audio::AudioOut::open(opts.audio_out.as_deref(), headless) {
        Ok(a) => a,
        Err(e) => {
            log::error!("{e}");
            return 1;
        }
    };
    let mut events: Vec<RawEvent> = Vec::new();
    // Events the game itself caused (a headless `@render: resize`), for the next frame; not
    // recorded, since replaying the game causes them again.
    let mut caused: Vec<RawEvent> = Vec::new();
    // A window size the frame buffer could not take, reported once (the window keeps it).
    let mut refused: Option<(u32, u32)> = None;
    let mut watcher = match (opts.watch, res.dir()) {
        (true, Some(dir)) => match super::watch::Watcher::new(dir) {
            Ok(w) => Some(w),
            Err(e) => {
                log::warn!("{e}; hot reload is off");
                None
            }
        },
        _ => None,
    };
    let mut reloaded: Vec<(String, std::time::SystemTime)> = Vec::new();
    stats.startup_step("audio_and_watcher", began);
    let mut frames = 0u64;
    let mut last = Instant::now();
    let exit_code = loop {
        if opts.frames.is_some_and(|n| frames >= n) {
            break 0;
        }
        events.clear();
        gfx.poll_events(&mut events);
        if let Some(r) = &mut replay {
            events.extend(r.take(frames).iter().map(|(_, e)| e.clone()));
        }
        // Replayed events are recorded too, so replaying a recording reproduces the session.
        if let Some(w) = &mut recorder {
            write_events(w, frames, &events);
        }
        events.append(&mut caused);
        if events.iter().any(|e| matches!(e, RawEvent::Quit)) || crate::script::watchdog::quit_requested() {
            break 0;
        }
        {
            let input = &mut g.world.borrow_mut().input;
            for e in &events {
                input.feed(e);
            }
            // The drawing area follows the window, so the GUI lays out on (and its layouts are
            // chosen for) the window's size.
            let (width, height) = input.window_size();
            let want = (width as u32, height as u32);
            if refused != Some(want)
                && let Err(e) = gfx.resize(want.0, want.1)
            {
                log::error!("{e}; drawing stays at {}x{}", gfx.size().0, gfx.size().1);
                refused = Some(want);
            }
        }
        if let Some(w) = &mut watcher {
            for path in w.changed() {
                if let Some(done) = reload(&mut g, &res, &path, &gfx, &mut scenery) {
                    reloaded.push((path, done));
                }
            }
        }
        let now = Instant::now();
        let dt = fixed_dt.unwrap_or_else(|| now.duration_since(last).as_secs_f32().min(0.25));
        last = now;
        step(&mut g, dt, &mut stats);
        g.scripts.render_update(dt);
        gfx.set_mouse_lock(g.world.borrow().input.mouse_lock);
        if let Some((width, height)) = g.world.borrow_mut().render.resize.take() {
            if gfx.is_headless() {
                caused.push(RawEvent::Resize { width, height });
            } else {
                gfx.set_window_size(width, height);
            }
        }
        audio.write(&g.world.borrow().sounds.out);
        let t = Instant::now();
        let clear = g.world.borrow().render.clear_color.unwrap_or(g.settings.clear_color);
        gfx.begin_frame(clear);
        // GUI layout and draw list (the game's part of drawing the GUI), for this window.
        g.world.borrow_mut().gui.build((g.settings.width, g.settings.height), gfx.size());
        {
            let w = g.world.borrow();
            scenery.sync(gfx.gl(), &w, &res);
            let submitted = scenery.draw(gfx.gl(), &w, gfx.size());
            stats.record_submit(&submitted);
            if opts.stats {
                stats.record_passes(scenery.renderer.clock.took());
            }
            stats.record_sprites(scenery.sprite_draw_calls);
        }
        gfx.end_frame();
        g.world.borrow_mut().render.end_frame();
        stats.record(4, t.elapsed());
        for (path, saved) in reloaded.drain(..) {
            let ms = saved.elapsed().map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0);
            log::info!("reloaded {path} ({ms:.1} ms from save to first frame)");
        }
        game::post_update(&g.world, &mut g.scripts);
        log::logger().flush();
        frames += 1;
        if frames == 1 {
            stats.startup_step("first_frame", began);
            if opts.stats {
                stats.map_memory();
            }
        }
        if let Some(code) = g.world.borrow().exit_code {
            break code;
        }
        if pace {
            next_frame += std::time::Duration::from_secs_f32(period);
            let now = Instant::now();
            if next_frame > now {
                std::thread::sleep(next_frame - now);
            } else {
                // Behind (a slow frame): start counting again from now instead of rushing.
                next_frame = now;
            }
        }
    };
    if let Some(mut w) = recorder {
        use std::io::Write;
        if let Err(e) = w.flush() {
            log::error!("cannot write the recording: {e}");
        }
    }
    // An interruption that arrived outside Lua must not stop the `final` callbacks.
    crate::script::watchdog::clear_interrupt();
    shutdown(&mut g);
    let mut status = exit_code;
    if !audio.finish() && status == 0 {
        status = 1;
    }
    if let Some(path) = &opts.screenshot
        && let Err(e) = gfx.read_pixels().save_png(path)
    {
        log::error!("cannot write screenshot {}: {e}", path.display());
        status = if status == 0 { 1 } else { status };
    }
    if opts.stats {
        eprintln!("{}", stats.to_json(frames));
    }
    drop(g);
    end_process(status)
}

/// Ends the process once a run has written everything it writes (the `final` callbacks' output,
/// the screenshot, the sound file, the recording, the statistics) and its Lua state has closed
/// (finalizers run at exit: luacov saves its statistics then), leaving the renderer and the
/// OpenGL context to the operating system: taking those down took 6–7 ms of every exit on
/// Mesa's llvmpipe (the context 4–5 ms, the window and its driver 2), after the last frame of a
/// start-up that issue 40 holds to 100 ms, and C's `exit` would still run LLVM's static
/// destructors. The log's pending "… repeated" counts and the buffered output of Rust and of
/// C's stdio (a script's `io.write` to a file it never closed) are written first, which
/// `tests/cli.rs` checks. Mesa writes its shader cache on its own thread while the frame that
/// compiled the shaders goes on: a one-frame run from an empty cache left the same 25 entries
/// (1.5 MB) as one that took everything down (checked by hand with `MESA_SHADER_CACHE_DIR`,
/// five times).
fn end_process(status: i32) -> ! {
    use std::io::Write;
    crate::base::log::finish();
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: every stream the process wrote is flushed above; `_exit` runs no destructor and
    // no `atexit` handler, which is the point: nothing of the run's state is read again.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(status)
    }
    #[cfg(not(unix))]
    std::process::exit(status)
}

/// Appends `events` to a recording, stamped with `frame`.
fn write_events(w: &mut impl std::io::Write, frame: u64, events: &[RawEvent]) {
    for e in events {
        if let Err(e) = writeln!(w, "{}", replay::line(frame, e)) {
            log::error!("cannot write the recording: {e}");
            return;
        }
    }
}

/// Reads every gui scene in use again after `saved` changed and gives each to its instances
/// (`GuiWorld::reload_scene`: node handles and what scripts did are kept). A scene that no
/// longer loads is reported and keeps its previous version. Returns how many instances took a
/// new scene.
fn reload_gui_scenes(g: &mut Game, res: &Resources, saved: &str) -> usize {
    use crate::project::gui::BUILTIN_GUI_MATERIAL;
    let mut paths: Vec<String> =
        g.world.borrow().gui.instances.iter().filter(|i| i.alive).map(|i| i.scene.path.clone()).collect();
    paths.sort();
    paths.dedup();
    let mut count = 0;
    for path in paths {
        let at = crate::project::json::Located { value: path.clone(), at: None };
        match crate::project::gui::load_gui(res, &at, &path) {
            Ok(scene) => {
                let crate::game::World { gui, models, .. } = &mut *g.world.borrow_mut();
                // Every material read first: one that does not load keeps the previous scene.
                let read: Result<Vec<u32>, _> = scene
                    .materials
                    .iter()
                    .filter(|(_, m)| m != BUILTIN_GUI_MATERIAL)
                    .map(|(_, m)| models.material(res, m, &path))
                    .collect();
                if let Err(e) = read {
                    log::error!("{e}\n(reload of {saved} failed: the previous version of {path} stays in use)");
                    continue;
                }
                count += gui.reload_scene(&path, &std::sync::Arc::new(scene));
                for i in 0..gui.instances.len() as u32 {
                    if gui.instances[i as usize].scene.path == path {
                        let mut register = |m: &str| models.material(res, m, &path).map_err(|e| e.to_string());
                        if let Err(e) = gui.resolve_materials(i, &mut register) {
                            log::error!("{e}");
                        }
                    }
                }
            }
            Err(e) => log::error!("{e}\n(reload of {saved} failed: the previous version of {path} stays in use)"),
        }
    }
    count
}

/// Applies one changed resource; returns the file's save time when something was reloaded.
/// A broken save is reported and the previous version keeps running.
fn reload(
    g: &mut Game,
    res: &Resources,
    path: &str,
    gfx: &Gfx,
    scenery: &mut Scenery,
) -> Option<std::time::SystemTime> {
    let saved = res.dir().and_then(|d| std::fs::metadata(d.join(&path[1..])).ok()).and_then(|m| m.modified().ok());
    let saved = saved.unwrap_or_else(std::time::SystemTime::now);
    if path == g.settings.input {
        return match input::load_binding(res, path, settings::settings_file(res)) {
            Ok(b) => {
                g.world.borrow_mut().input.set_binding(&b);
                Some(saved)
            }
            Err(e) => {
                log::error!("{e}\n(reload failed: the previous version of {path} stays in use)");
                None
            }
        };
    }
    if path == g.settings.display_profiles {
        return match crate::project::display_profiles::load_display_profiles(res, path) {
            Ok(p) => {
                // Scenes take the layout the new profiles choose at the next frame's start,
                // with `layout_changed` as for a resize.
                g.world.borrow_mut().gui.set_profiles(p);
                Some(saved)
            }
            Err(e) => {
                log::error!("{e}\n(reload failed: the previous version of {path} stays in use)");
                None
            }
        };
    }
    if path.ends_with(".gui") {
        // The scene itself, or a template of other scenes.
        return (reload_gui_scenes(g, res, path) > 0).then_some(saved);
    }
    if [".script", ".gui_script", ".render_script", ".lua"].iter().any(|ext| path.ends_with(ext)) {
        return match g.scripts.reload(path) {
            Ok(true) => Some(saved),
            Ok(false) => None,
            Err(e) => {
                log::error!("{e}\n(reload failed: the previous version of {path} keeps running)");
                None
            }
        };
    }
    if path.ends_with(".wav") || path.ends_with(".ogg") {
        return match g.world.borrow_mut().sounds.reload(res, path) {
            Ok(true) => Some(saved),
            Ok(false) => None,
            Err(e) => {
                log::error!("{e}\n(reload failed: the previous version of {path} stays in use)");
                None
            }
        };
    }
    let mut done = false;
    let assets = g.world.borrow_mut().models.reload_assets(res, path);
    // The re-imported files, which may be other than `path` (the `.bon` of a saved `.obj`).
    let reimported: Vec<String> = {
        let w = g.world.borrow();
        assets.iter().filter(|(_, r)| r.is_ok()).map(|(i, _)| w.models.assets[*i as usize].path.clone()).collect()
    };
    for file in &reimported {
        let rebuilt = crate::game::animation::rebuild_rigs(&mut g.world.borrow_mut(), res, file);
        if let Err(e) = rebuilt {
            log::error!("{e}\n(animation of {file} could not be rebuilt)");
        }
    }
    for (asset, result) in assets {
        let w = g.world.borrow();
        match result.map_err(|e| e.to_string()).and_then(|()| scenery.refresh_model(gfx.gl(), &w, asset)) {
            Ok(()) => done = true,
            Err(e) => log::error!("{e}\n(reload failed: the previous version of {path} stays in use)"),
        }
    }
    let materials = g.world.borrow_mut().models.reload_materials(res, path);
    for (material, result) in materials {
        let w = g.world.borrow();
        match result.map_err(|e| e.to_string()).and_then(|()| scenery.refresh_material(gfx.gl(), &w, res, material)) {
            Ok(()) => done = true,
            Err(e) => log::error!("{e}\n(reload failed: the previous version of {path} stays in use)"),
        }
    }
    // A font, image or particle effect a gui scene may use: scenes do not record every file they
    // read, so each scene in use is read again (a few files; what scripts did is kept either way).
    let gui_asset = [".font", ".ttf", ".otf", ".fnt", ".png", ".jpg", ".jpeg", ".atlas", ".tilesource", ".particlefx"]
        .iter()
        .any(|e| path.ends_with(e));
    if gui_asset && reload_gui_scenes(g, res, path) > 0 {
        done = true;
    }
    if [".font", ".ttf", ".otf", ".fnt"].iter().any(|e| path.ends_with(e)) {
        for (file, result) in g.world.borrow_mut().labels.reload_fonts(res, path) {
            match result {
                Ok(()) => done = true,
                Err(e) => log::error!("{e}\n(reload failed: the previous version of {file} stays in use)"),
            }
        }
    }
    for (file, result) in g.world.borrow_mut().sprites.reload_atlases(res, path) {
        match result {
            Ok(()) => done = true,
            Err(e) => log::error!("{e}\n(reload failed: the previous version of {file} stays in use)"),
        }
    }
    if done {
        return Some(saved);
    }
    if path.ends_with(".model") {
        let result = crate::game::animation::reload_model_file(&mut g.world.borrow_mut(), res, path);
        match result {
            Ok(n) if n > 0 => return Some(saved),
            Ok(_) => {}
            Err(e) => log::error!("{e}\n(reload failed: the previous version of {path} stays in use)"),
        }
    }
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    // A collision object's hull file is copied into it too.
    let inlined = crate::project::defold::components::INLINED_FILES.contains(&ext) || ext == "convexshape";
    if ext == "collection" || ext == "go" || inlined {
        return reload_collection(g, res, path).then_some(saved);
    }
    if path == settings::settings_file(res) {
        return reload_settings(g, res, scenery).then_some(saved);
    }
    None
}

/// A saved collection or game object file: the main collection is loaded again (with every
/// file it includes) and applied over the running one (`game::collection_reload`); a broken
/// save keeps the running version.
fn reload_collection(g: &mut Game, res: &Resources, path: &str) -> bool {
    let loaded = collection::load_collection_within(res, &g.settings.main_collection, g.settings.max_instances);
    if !loaded.problems.is_empty() {
        let all: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
        log::error!("{}\n(reload failed: the running version of {path} stays)", all.join("\n"));
        return false;
    }
    if loaded.spec == g.spec {
        return false;
    }
    match crate::game::collection_reload::apply(&g.world, res, &mut g.scripts, &g.spec, &loaded.spec) {
        Ok(a) => {
            log::info!(
                "{path}: {} objects kept, {} moved, {} added, {} removed, {} made again, {} re-parented",
                a.kept,
                a.moved,
                a.added,
                a.removed,
                a.rebuilt,
                a.reparented
            );
            g.spec = loaded.spec;
            game::post_update(&g.world, &mut g.scripts);
            true
        }
        Err(problems) => {
            log::error!("{}\n(reload of {path} was applied only in part)", problems.join("\n"));
            g.spec = loaded.spec;
            false
        }
    }
}

/// A saved project.json or game.project: what applies to a running game (the clear colour, the
/// ambient light, shading, tone mapping and exposure) does at once; the rest (window, main
/// collection, physics, rates) is said to need a restart.
fn reload_settings(g: &mut Game, res: &Resources, scenery: &mut Scenery) -> bool {
    let new = match settings::load_settings(res) {
        Ok(s) => s,
        Err(e) => {
            log::error!("{e}\n(reload failed: the running settings stay)");
            return false;
        }
    };
    let old = std::mem::replace(&mut g.settings, new);
    let s = &mut g.settings;
    scenery.set_look(s.look);
    let restart = [
        ("main_collection", old.main_collection != s.main_collection),
        ("window", (old.width, old.height, old.vsync) != (s.width, s.height, s.vsync)),
        ("title", old.title != s.title),
        ("physics", old.physics != s.physics),
        ("input", old.input != s.input),
        (
            "update rates",
            (old.update_frequency, old.fixed_update_frequency) != (s.update_frequency, s.fixed_update_frequency),
        ),
    ];
    let later: Vec<&str> = restart.iter().filter(|(_, changed)| *changed).map(|(what, _)| *what).collect();
    if !later.is_empty() {
        log::warn!("{}: {} changed: restart to apply", settings::settings_file(res), later.join(", "));
    }
    // What needs a restart keeps its running value until then.
    s.main_collection = old.main_collection;
    (s.width, s.height, s.vsync, s.title) = (old.width, old.height, old.vsync, old.title);
    s.physics = old.physics;
    s.input = old.input;
    (s.update_frequency, s.fixed_update_frequency) = (old.update_frequency, old.fixed_update_frequency);
    if s.display_profiles != old.display_profiles {
        match crate::project::display_profiles::load_display_profiles(res, &s.display_profiles) {
            Ok(p) => g.world.borrow_mut().gui.set_profiles(p),
            Err(e) => {
                log::error!("{e}\n(the previous display profiles stay in use)");
                s.display_profiles = old.display_profiles;
            }
        }
    }
    true
}

/// One frame up to rendering, timing each phase.
pub fn step(g: &mut Game, dt: f32, stats: &mut Stats) {
    game::update(&g.world, &mut g.scripts, dt, &mut |phase, d| stats.record(phase as usize, d));
}

/// Ends the game cleanly: `final` for every remaining script.
pub fn shutdown(g: &mut Game) {
    let all: Vec<u32> = {
        let w = g.world.borrow();
        let mut v = Vec::new();
        for (slot, comps) in w.scene.components.iter().enumerate() {
            if w.scene.alive[slot] {
                for c in comps {
                    if let crate::scene::ComponentRef::Script(i) = c.kind {
                        v.push(i);
                    }
                }
            }
        }
        v
    };
    for i in all {
        g.scripts.destroy(i);
    }
}

/// Parses every material and compiles its shaders in a headless GL context.
fn check_materials(res: &Resources, materials: &std::collections::BTreeSet<(String, String)>) -> Vec<String> {
    if materials.is_empty() {
        return Vec::new();
    }
    let cfg = WindowConfig { title: "sinew check".into(), width: 16, height: 16, vsync: false, headless: true };
    let gfx = match Gfx::new(&cfg) {
        Ok(g) => g,
        Err(e) => return vec![format!("cannot create a GL context to compile shaders: {e}")],
    };
    let mut renderer = match crate::render::ModelRenderer::new(gfx.gl()) {
        Ok(r) => r,
        Err(e) => return vec![e],
    };
    let mut problems = Vec::new();
    for (path, from) in materials {
        let mut read = |p: &str| res.read_string(p, Some(path));
        if let Err(e) = res.read_string(path, Some(from)) {
            problems.push(e.to_string());
        } else if let Err(e) = renderer.add_material(gfx.gl(), path, &mut read) {
            problems.push(super::draw::material_skipped(&e, path));
        }
    }
    problems
}

/// The collections to spawn so that each is loaded once: those no other collection includes,
/// then any left over (collections that only include each other, a cycle).
fn collection_roots(res: &Resources, max_instances: u32) -> Vec<String> {
    let all = res.list(".collection");
    let mut nested = std::collections::HashSet::new();
    let mut files = std::collections::HashMap::new();
    for path in &all {
        let loaded = collection::load_collection_within(res, path, max_instances);
        nested.extend(loaded.files.iter().filter(|f| *f != path).cloned());
        files.insert(path.clone(), loaded.files);
    }
    let mut roots: Vec<String> = all.iter().filter(|p| !nested.contains(*p)).cloned().collect();
    let mut covered: std::collections::HashSet<String> =
        roots.iter().flat_map(|r| files.get(r).into_iter().flatten().cloned()).collect();
    for path in &all {
        if !covered.contains(path) && !roots.contains(path) {
            roots.push(path.clone());
            covered.extend(files.get(path).into_iter().flatten().cloned());
        }
    }
    roots
}

/// `sinew check`: everything `run` loads, for every collection (the same load path as `run`, see
/// [`spawn`]), plus every script compiled and every shader built; lists every problem.
pub fn check(dir: &Path) -> i32 {
    let res = match Resources::open_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    // A folder without project.json is no project: say so instead of walking everything below
    // it (`sinew check /` would read the whole disk).
    if !res.dir().is_some_and(settings::is_project_dir) {
        eprintln!("{}: not a Sinew project (no {} in it)", dir.display(), settings::SETTINGS_PATH);
        defold_hint(Some(dir));
        return 1;
    }
    let mut problems = Vec::new();
    let mut limit = None;
    let mut max_instances = crate::project::types::DEFAULT_MAX_INSTANCES;
    let mut main = None;
    match settings::load_settings(&res) {
        Ok(s) => {
            if let Err(e) = input::load_binding(&res, &s.input, settings::settings_file(&res)) {
                problems.push(e.to_string());
            }
            if let Err(e) = crate::project::display_profiles::load_display_profiles(&res, &s.display_profiles) {
                problems.push(e.to_string());
            }
            if !s.render.is_empty()
                && let Err(e) = crate::project::defold::render::render_script(&res, &s.render)
            {
                problems.push(e.to_string());
            }
            limit = (s.script_time_limit > 0.0).then(|| std::time::Duration::from_secs_f32(s.script_time_limit));
            max_instances = s.max_instances;
            main = Some(s.main_collection);
        }
        Err(e) => problems.push(e.to_string()),
    }
    let mut materials = std::collections::BTreeSet::new();
    let mut warned = std::collections::BTreeSet::new();
    let mut roots = collection_roots(&res, max_instances);
    // A main collection that is no listed file (missing, a folder, a link out of the project) is
    // still loaded the way `run` loads it, so check fails where run would.
    if let Some(main) = main.filter(|m| !res.list(".collection").contains(m)) {
        roots.insert(0, main);
    }
    for path in roots {
        let s = spawn(&res, &path, limit, max_instances, |_| {}, &mut |_| {});
        problems.extend(s.problems);
        for c in s.spec.objects.iter().flat_map(|o| &o.components) {
            match &c.kind {
                crate::project::ComponentKind::Model(m) => {
                    materials.insert((m.material.clone(), m.source.clone()));
                }
                // A sprite's custom material is compiled as a model's is (the built-in is not
                // a file).
                crate::project::ComponentKind::Sprite(sp)
                    if sp.material != crate::project::sprite::DEFAULT_SPRITE_MATERIAL =>
                {
                    materials.insert((sp.material.clone(), path.clone()));
                }
                _ => {}
            }
        }
        // Import warnings, which run does not print (`sinew inspect` does), once per file.
        for asset in &s.world.borrow().models.assets {
            if warned.insert(asset.path.clone()) {
                for w in super::inspect::warnings(&asset.data) {
                    eprintln!("warning: {}: {w}", asset.path);
                }
                for w in &asset.warnings {
                    eprintln!("warning: {w}");
                }
            }
        }
    }
    problems.extend(check_materials(&res, &materials));
    // Scripts no collection uses are at least compiled.
    let world = Rc::new(RefCell::new(World::new("check")));
    match ScriptHost::new(world, res.clone()) {
        Ok(host) => {
            for path in res.list(".script") {
                if let Err(e) = host.compile(&path) {
                    problems.push(e);
                }
            }
            for path in res.list(".render_script").into_iter().chain(res.list(".lua")) {
                if let Err(e) = host.compile(&path) {
                    problems.push(e);
                }
            }
        }
        Err(e) => problems.push(e),
    }
    // A file shared by several collections reports its problem once.
    let mut seen = std::collections::HashSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    for p in &problems {
        eprintln!("{p}");
    }
    if problems.is_empty() {
        super::stdout::status_after(&format!("{}: no problems found\n", dir.display()))
    } else {
        eprintln!("{} problem(s) found", problems.len());
        defold_hint(Some(dir));
        1
    }
}

/// After a failed load: when the folder holds Defold's files, say so and name the porting guide.
fn defold_hint(dir: Option<&Path>) {
    if let Some(h) = dir.and_then(crate::project::defold::hint) {
        eprintln!("{h}");
    }
}
