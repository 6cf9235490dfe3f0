//! `sinew run`: load, then loop input → update → render → post-update until told to stop.
use super::draw::Scenery;
use super::stats::Stats;
use crate::game::{self, ScriptHooks, World};
use crate::project::{ProjectSettings, Resources, collection, settings};
use crate::render::{Gfx, InputEvent, WindowConfig};
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
}

/// A loaded game: its state and the script runtime that drives it.
pub struct Game {
    pub settings: ProjectSettings,
    pub world: Rc<RefCell<World>>,
    pub scripts: ScriptHost,
}

fn open_resources(dir: Option<&Path>) -> Result<Resources, String> {
    match dir {
        Some(d) => Resources::open_dir(d).map_err(|e| e.to_string()),
        None => Ok(Resources::demo()),
    }
}

/// Loads the project, spawns the main collection and runs every `init` (and the messages they post).
pub fn load_game(res: &Resources) -> Result<Game, String> {
    let settings = settings::load_settings(res).map_err(|e| e.to_string())?;
    let spec = collection::load_collection(res, &settings.main_collection).map_err(|e| e.to_string())?;
    let world = Rc::new(RefCell::new(World::new(&spec.name)));
    let mut scripts = ScriptHost::new(world.clone(), res.clone())?;
    game::spawn::spawn_collection(&world, res, &spec, &mut scripts)?;
    scripts.init_new();
    game::post_update(&world, &mut scripts);
    Ok(Game { settings, world, scripts })
}

/// Runs a project; returns the exit status.
pub fn run(opts: RunOptions) -> i32 {
    let res = match open_resources(opts.project_dir.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            log::error!("{e}");
            return 1;
        }
    };
    let mut g = match load_game(&res) {
        Ok(g) => g,
        Err(e) => {
            log::error!("{e}");
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
    let mut scenery = match Scenery::new(gfx.gl(), opts.debug_draw) {
        Ok(s) => s,
        Err(e) => {
            log::error!("cannot set up rendering: {e}");
            return 1;
        }
    };
    let fixed_dt = opts.fixed_dt.or(if headless { Some(1.0 / g.settings.update_frequency.max(1.0)) } else { None });
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
    let mut stats = Stats::default();
    let mut frames = 0u64;
    let mut last = Instant::now();
    let exit_code = loop {
        if opts.frames.is_some_and(|n| frames >= n) {
            break 0;
        }
        if gfx.poll_events().iter().any(|e| matches!(e, InputEvent::Quit)) {
            break 0;
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
        let t = Instant::now();
        gfx.begin_frame(g.settings.clear_color);
        {
            let w = g.world.borrow();
            scenery.sync(gfx.gl(), &w, &res);
            scenery.draw(gfx.gl(), &w, gfx.size());
        }
        gfx.end_frame();
        stats.record(4, t.elapsed());
        for (path, saved) in reloaded.drain(..) {
            let ms = saved.elapsed().map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0);
            log::info!("reloaded {path} ({ms:.1} ms from save to first frame)");
        }
        game::post_update(&g.world, &mut g.scripts);
        frames += 1;
        if let Some(code) = g.world.borrow().exit_code {
            break code;
        }
    };
    shutdown(&mut g);
    let mut status = exit_code;
    if let Some(path) = &opts.screenshot
        && let Err(e) = gfx.read_pixels().save_png(path)
    {
        log::error!("cannot write screenshot {}: {e}", path.display());
        status = if status == 0 { 1 } else { status };
    }
    if opts.stats {
        eprintln!("{}", stats.to_json(frames));
    }
    status
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
    if path.ends_with(".script") || path.ends_with(".lua") {
        return match g.scripts.reload(path) {
            Ok(true) => Some(saved),
            Ok(false) => None,
            Err(e) => {
                log::error!("{e}\n(reload failed: the previous version of {path} keeps running)");
                None
            }
        };
    }
    let mut done = false;
    let assets = g.world.borrow_mut().models.reload_assets(res, path);
    if assets.iter().any(|(_, r)| r.is_ok()) {
        let rebuilt = crate::game::animation::rebuild_rigs(&mut g.world.borrow_mut(), res, path);
        if let Err(e) = rebuilt {
            log::error!("{e}\n(animation of {path} could not be rebuilt)");
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
    if path.ends_with(".collection") || path.ends_with(".go") || path == "/project.json" {
        log::warn!("{path} changed: collections, game objects and project.json are loaded at start; restart to apply");
    }
    None
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
                    if let crate::scene::ComponentKind::Script(i) = c.kind {
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
        if let Err(e) = res.read_string(path, Some(from)).and_then(|_| renderer.add_material(gfx.gl(), path, &mut read))
        {
            problems.push(e.to_string());
        }
    }
    problems
}

/// `sinew check`: loads every collection and compiles every script; lists every problem.
pub fn check(dir: &Path) -> i32 {
    let res = match Resources::open_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut problems = Vec::new();
    if let Err(e) = settings::load_settings(&res) {
        problems.push(e.to_string());
    }
    let mut meshes = std::collections::BTreeSet::new();
    let mut materials = std::collections::BTreeSet::new();
    for path in res.list(".collection") {
        match collection::load_collection(&res, &path) {
            Ok(spec) => {
                for c in spec.objects.iter().flat_map(|o| &o.components) {
                    if let crate::project::ComponentKind::Model(m) = &c.kind {
                        meshes.extend([m.mesh.clone(), m.skeleton.clone()]);
                        meshes.extend(m.animations.iter().cloned());
                        materials.insert((m.material.clone(), m.source.clone()));
                    }
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    let mut imported = std::collections::BTreeMap::new();
    for mesh in &meshes {
        match crate::project::gltf::import(&res, mesh) {
            Ok(m) => {
                for w in super::inspect::warnings(&m) {
                    eprintln!("warning: {mesh}: {w}");
                }
                imported.insert(mesh.clone(), m);
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    // Clips of other files that target nodes the model's skeleton lacks (run warns the same).
    let mut seen = std::collections::BTreeSet::new();
    for path in res.list(".collection") {
        let Ok(spec) = collection::load_collection(&res, &path) else { continue };
        for c in spec.objects.iter().flat_map(|o| &o.components) {
            let crate::project::ComponentKind::Model(m) = &c.kind else { continue };
            let Some(sk) = imported.get(&m.skeleton) else { continue };
            for a in m.animations.iter().filter(|a| **a != m.skeleton) {
                if let Some(file) = imported.get(a)
                    && seen.insert((m.skeleton.clone(), a.clone()))
                {
                    for w in crate::game::animation::unmatched_channels(&m.skeleton, sk, file) {
                        eprintln!("warning: {w}");
                    }
                }
            }
        }
    }
    problems.extend(check_materials(&res, &materials));
    let world = Rc::new(RefCell::new(World::new("check")));
    match ScriptHost::new(world, res.clone()) {
        Ok(host) => {
            for path in res.list(".script") {
                if let Err(e) = host.compile(&path) {
                    problems.push(e);
                }
            }
            for path in res.list(".lua") {
                if let Err(e) = host.compile(&path) {
                    problems.push(e);
                }
            }
        }
        Err(e) => problems.push(e),
    }
    for p in &problems {
        eprintln!("{p}");
    }
    if problems.is_empty() {
        println!("{}: no problems found", dir.display());
        0
    } else {
        eprintln!("{} problem(s) found", problems.len());
        1
    }
}
