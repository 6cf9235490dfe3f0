//! The files a game can read, found from its main collection (`sinew bundle` packs these and
//! nothing else).
//!
//! Every file is found by reading it through a traced [`Resources`] with the same loaders the
//! runtime uses: the settings, the input binding, the render script, the main collection (which loads the
//! collections and game objects it includes, factories' prototypes, gui scenes, atlases and
//! fonts), then, per component, what the runtime reads later (scripts and the modules they
//! `require`, models with their buffers and textures, materials and their shaders, sounds),
//! and the settings' `custom_resources` for `sys.load_resource`. What is read is what is packed,
//! so a file a loader needs cannot be forgotten here while the loader changes.
use crate::project::collection::load_collection_within;
use crate::project::{ComponentKind, ObjectSpec, Resources, json, settings};
use std::collections::BTreeSet;

/// Walks the game from its main collection; returns every project file read (sorted), or
/// every problem met (a game that does not load is not bundled).
pub fn reachable(res: &Resources) -> Result<Vec<String>, Vec<String>> {
    let (res, trace) = res.clone().traced();
    let mut w = Walk {
        res: &res,
        problems: Vec::new(),
        scripts: BTreeSet::new(),
        materials: BTreeSet::new(),
        prototypes: BTreeSet::new(),
    };
    let s = match settings::load_settings(&res) {
        Ok(s) => s,
        Err(e) => return Err(vec![e.to_string()]),
    };
    if let Err(e) = crate::project::input::load_binding(&res, &s.input, settings::settings_file(&res)) {
        w.problems.push(e.to_string());
    }
    if let Err(e) = crate::project::display_profiles::load_display_profiles(&res, &s.display_profiles) {
        w.problems.push(e.to_string());
    }
    // The project's own render script and the modules it requires.
    if !s.render.is_empty() {
        match crate::project::defold::render::render_script(&res, &s.render) {
            Ok(script) => w.script(&script, Some(&s.render)),
            Err(e) => w.problems.push(e.to_string()),
        }
    }
    let loaded = load_collection_within(&res, &s.main_collection, s.max_instances);
    w.problems.extend(loaded.problems.iter().map(ToString::to_string));
    w.objects(&loaded.spec.objects);
    w.custom_resources(&s.custom_resources);
    if !w.problems.is_empty() {
        return Err(w.problems);
    }
    Ok(trace.lock().map(|t| t.iter().cloned().collect()).unwrap_or_default())
}

struct Walk<'a> {
    res: &'a Resources,
    problems: Vec<String>,
    /// Scripts and modules already followed (a module required twice, or a require cycle).
    scripts: BTreeSet<String>,
    materials: BTreeSet<String>,
    /// Prototypes already walked: many factories may share one, and walking each again would
    /// grow with the number of paths to it, not the number of files.
    prototypes: BTreeSet<String>,
}

impl Walk<'_> {
    fn objects(&mut self, objects: &[ObjectSpec]) {
        for o in objects {
            for c in &o.components {
                self.component(&c.kind);
            }
        }
    }

    /// One arm per component kind, no wildcard: a new kind does not compile until it says
    /// what it reads.
    fn component(&mut self, kind: &ComponentKind) {
        match kind {
            ComponentKind::Script { script, .. } => self.script(script, None),
            ComponentKind::Model(m) => {
                let mut files: Vec<&String> = vec![&m.mesh, &m.skeleton];
                files.extend(&m.animations);
                for f in files.into_iter().filter(|f| !f.is_empty()) {
                    if let Err(e) = crate::project::import::import_model(self.res, f) {
                        self.problems.push(e.to_string());
                    }
                }
                for (_, texture) in &m.textures {
                    self.read(texture, &m.source);
                }
                self.material(&m.material, &m.source);
            }
            // Built-in shapes and the built-in font only.
            ComponentKind::Camera(_) | ComponentKind::Light(_) | ComponentKind::Label(_) => {}
            // Loaded with the collection, prototypes included; their components are walked here.
            ComponentKind::Factory(f) => {
                if self.prototypes.insert(f.prototype.clone()) {
                    self.objects(&f.objects.clone());
                }
            }
            // The proxy's collection files were read with the collection; its objects' here.
            ComponentKind::CollectionProxy(p) => {
                if self.prototypes.insert(p.collection.clone()) {
                    self.objects(&p.objects.clone());
                }
            }
            ComponentKind::Sound(s) => {
                self.read(&s.sound, &s.sound);
            }
            // Shapes are numbers in the component itself.
            ComponentKind::CollisionObject(_) => {}
            // The atlas and its images were read with the collection.
            ComponentKind::Sprite(s) => self.material(&s.material, &s.atlas.source),
            // The effect and its atlases were read with the collection.
            ComponentKind::ParticleFx(fx) => {
                self.read(&fx.effect.path, &fx.effect.path);
            }
            // The map and its tile source were read with the collection.
            ComponentKind::TileMap(t) => {
                self.read(&t.map.path, &t.map.path);
                self.material(&t.map.material, &t.map.path);
            }
            // Fonts and textures were read with the collection; the script is read when spawned.
            ComponentKind::Gui(g) => {
                if let Some(script) = &g.0.script {
                    self.script(script, Some(&g.0.path));
                }
            }
        }
    }

    /// `/builtins/` files are in every Sinew binary (and some, such as Defold's sprite
    /// material, are known by name only), so they are neither read nor packed.
    fn read(&mut self, path: &str, from: &str) -> Option<Vec<u8>> {
        if path.starts_with("/builtins/") {
            return None;
        }
        match self.res.read(path, Some(from)) {
            Ok(b) => Some(b),
            Err(e) => {
                self.problems.push(e.to_string());
                None
            }
        }
    }

    fn material(&mut self, path: &str, from: &str) {
        if path.is_empty() || !self.materials.insert(path.to_string()) {
            return;
        }
        let Some(bytes) = self.read(path, from) else { return };
        let text = String::from_utf8_lossy(&bytes);
        match crate::project::material::parse_material(path, &text) {
            Ok(d) => {
                for program in [&d.vertex_program, &d.fragment_program] {
                    match json::resource_path(program, path) {
                        Ok(p) => {
                            self.read(&p, path);
                        }
                        Err(e) => self.problems.push(e.to_string()),
                    }
                }
            }
            Err(e) => self.problems.push(e.to_string()),
        }
    }

    /// A script or module, then every module it names in a `require` with a literal name. A
    /// module that is not in the project is no problem here: the script may only try it
    /// (`pcall(require, …)`), and running it says what is missing just as `sinew run` would.
    fn script(&mut self, path: &str, from: Option<&str>) {
        if !self.scripts.insert(path.to_string()) {
            return;
        }
        let bytes = match from {
            Some(f) => self.read(path, f),
            None => self.read(path, path),
        };
        let Some(bytes) = bytes else { return };
        for module in required_modules(&String::from_utf8_lossy(&bytes)) {
            let file = format!("/{}.lua", module.replace('.', "/"));
            if self.res.exists(&file) {
                self.script(&file, Some(path));
            }
        }
    }

    /// `custom_resources` (project.json's list, game.project's `[project] custom_resources`):
    /// each a file or a folder (every file under it).
    fn custom_resources(&mut self, entries: &[String]) {
        let from = settings::settings_file(self.res);
        for entry in entries {
            if self.res.exists(entry) {
                self.read(entry, from);
                continue;
            }
            let folder = format!("{}/", entry.trim_end_matches('/'));
            let under: Vec<String> = self.res.list("").into_iter().filter(|p| p.starts_with(&folder)).collect();
            if under.is_empty() {
                self.problems.push(format!("{from}: custom resource '{entry}' is neither a file nor a folder"));
            }
            for p in under {
                self.read(&p, from);
            }
        }
    }
}

/// The literal module names of `require "a.b"`, `require 'a.b'` and `require("a.b")` in Lua
/// source (a computed name cannot be known before the game runs; list such files in
/// `custom_resources`).
pub fn required_modules(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("require") {
        let before = &rest[..i];
        rest = &rest[i + "require".len()..];
        // `my_require` or `x.require` is some other function.
        if before.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let t = rest.trim_start();
        let t = t.strip_prefix('(').map_or(t, str::trim_start);
        let Some(q) = t.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
        let t = &t[1..];
        if let Some(end) = t.find(q) {
            let name = &t[..end];
            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                out.push(name.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literal_requires_only() {
        let src = "local a = require \"main.util\"\nlocal b = require('lib.x')\nlocal c = require 'y'\n\
                   my_require('no') local d = require(name) local e = require ( \"z.w\" )";
        assert_eq!(required_modules(src), vec!["main.util", "lib.x", "y", "z.w"]);
    }

    fn project(tag: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sinew_reach_{}_{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (p, text) in files {
            let full = dir.join(p);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        dir
    }

    #[test]
    fn only_what_the_main_collection_reaches() {
        let dir = project(
            "reach",
            &[
                ("project.json", r#"{ "main_collection": "/main/main.collection", "custom_resources": ["/data"] }"#),
                (
                    "main/main.collection",
                    r#"{ "name": "main", "objects": [ { "id": "a", "components": [
                    { "id": "s", "type": "script", "script": "/main/a.script" } ] } ] }"#,
                ),
                ("main/a.script", "local u = require \"main.util\"\nfunction init(self) end"),
                ("main/util.lua", "local again = require('main.a_module') return {}"),
                ("main/a_module.lua", "return require('main.util')"),
                ("main/unused.script", "function init(self) end"),
                ("main/unused.collection", r#"{ "name": "u", "objects": [] }"#),
                ("data/levels/1.json", "{}"),
                ("data/2.txt", "x"),
            ],
        );
        let res = Resources::open_dir(&dir).unwrap();
        let files = reachable(&res).unwrap();
        assert_eq!(
            files,
            vec![
                "/data/2.txt",
                "/data/levels/1.json",
                "/main/a.script",
                "/main/a_module.lua",
                "/main/main.collection",
                "/main/util.lua",
                "/project.json",
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A project's own render script, its `.render` and the modules the script requires.
    #[test]
    fn a_render_script_and_its_modules() {
        let dir = project(
            "render",
            &[
                ("game.project", "[bootstrap]\nmain_collection = /main/main.collectionc\nrender = /r/my.renderc\n"),
                ("main/main.collection", "name: \"main\"\n"),
                ("r/my.render", "script: \"/r/my.render_script\"\n"),
                ("r/my.render_script", "local h = require \"r.helper\"\nfunction update(self) end"),
                ("r/helper.lua", "return {}"),
                ("r/unused.render_script", "function update(self) end"),
            ],
        );
        let res = Resources::open_dir(&dir).unwrap();
        let files = reachable(&res).unwrap();
        assert_eq!(
            files,
            vec!["/game.project", "/main/main.collection", "/r/helper.lua", "/r/my.render", "/r/my.render_script"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn game_project_custom_resources() {
        let dir = project(
            "defold",
            &[
                (
                    "game.project",
                    "[project]\ntitle = T\ncustom_resources = /data/a.txt, /more\n\n\
                 [bootstrap]\nmain_collection = /main/main.collectionc\n",
                ),
                ("main/main.collection", "name: \"main\"\nscale_along_z: 0\n"),
                ("data/a.txt", "a"),
                ("data/b.txt", "not listed"),
                ("more/c.bin", "c"),
            ],
        );
        let files = reachable(&Resources::open_dir(&dir).unwrap()).unwrap();
        assert_eq!(files, vec!["/data/a.txt", "/game.project", "/main/main.collection", "/more/c.bin"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_custom_resource_is_a_problem() {
        let dir = project(
            "missing",
            &[
                ("project.json", r#"{ "main_collection": "/m.collection", "custom_resources": ["/nope.txt"] }"#),
                ("m.collection", r#"{ "name": "m", "objects": [] }"#),
            ],
        );
        let e = reachable(&Resources::open_dir(&dir).unwrap()).unwrap_err();
        assert!(e[0].contains("/project.json: custom resource '/nope.txt'"), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
