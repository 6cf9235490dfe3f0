//! `game.project`, Defold's INI settings file: the keys Sinew acts on become
//! [`ProjectSettings`], and every key of every section stays readable as `section.key`
//! through `sys.get_config_*` (unknown keys are kept, never refused).
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::{self, Located, Pos};
use crate::project::types::ProjectSettings;

/// Where Defold keeps its settings.
pub const GAME_PROJECT: &str = "/game.project";

/// Defold's built-in binding: every key, button and the mouse as actions named after them.
pub const ALL_BINDING: &str = "/builtins/input/all.input_binding";

/// What `[input] game_binding` names when game.project leaves it out (Defold's engine default,
/// which its editor does not write: a project's own `/input/game.input_binding`).
pub const DEFAULT_BINDING: &str = "/input/game.input_binding";

/// A larger settings file is refused before it is split into lines.
const MAX_BYTES: usize = 1 << 20;

/// One `key = value` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub section: String,
    pub key: String,
    pub value: String,
    pub at: Pos,
}

/// Splits the file into entries; a line that is neither a section, a `key = value` nor a
/// comment is an error, and every such line is reported.
pub fn parse_ini(text: &str) -> Result<Vec<Entry>, Vec<LoadError>> {
    if text.len() > MAX_BYTES {
        return Err(vec![LoadError::new(GAME_PROJECT, format!("file is larger than {} KiB", MAX_BYTES >> 10))]);
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut section = String::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let indent = raw.len() - raw.trim_start().len();
        let at = |col: usize| Pos { resource: GAME_PROJECT.into(), line: n + 1, column: col + 1 };
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            match rest.strip_suffix(']') {
                Some(name) if !name.trim().is_empty() => section = name.trim().to_string(),
                _ => errors.push(LoadError::at(GAME_PROJECT, n + 1, indent + 1, "a section header is `[name]`")),
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            errors.push(LoadError::at(GAME_PROJECT, n + 1, indent + 1, "expected `key = value` or `[section]`"));
            continue;
        };
        if section.is_empty() {
            errors.push(LoadError::at(GAME_PROJECT, n + 1, indent + 1, "a setting before the first [section]"));
            continue;
        }
        let value_col =
            raw.find('=').map_or(indent, |i| i + 1 + (raw[i + 1..].len() - raw[i + 1..].trim_start().len()));
        out.push(Entry {
            section: section.clone(),
            key: key.trim().to_string(),
            value: value.trim().to_string(),
            at: at(value_col),
        });
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

/// The last value given for `section.key` (a later line wins, as in Defold).
fn get<'a>(entries: &'a [Entry], section: &str, key: &str) -> Option<&'a Entry> {
    entries.iter().rev().find(|e| e.section == section && e.key == key)
}

/// Defold names compiled resources (`/main/main.collectionc`); the source is the name
/// without the `c`.
fn source_path(value: &str) -> String {
    for ext in [".collectionc", ".input_bindingc", ".goc", ".render_scriptc", ".renderc", ".display_profilesc"] {
        if let Some(stem) = value.strip_suffix(ext) {
            return format!("{stem}{}", &ext[..ext.len() - 1]);
        }
    }
    value.to_string()
}

/// Reads `/game.project` into Sinew's settings (Defold's defaults where a key is missing:
/// 960x640, black clear colour, `/input/game.input_binding`). A project that names no binding
/// and has no `/input/game.input_binding` gets `all.input_binding` (Defold would not start).
pub fn load(res: &Resources) -> Result<ProjectSettings, LoadError> {
    let text = res.read_string(GAME_PROJECT, None)?;
    let mut s = parse(&text)?;
    if s.input == DEFAULT_BINDING && !res.exists(DEFAULT_BINDING) {
        s.input = ALL_BINDING.into();
    }
    Ok(s)
}

pub fn parse(text: &str) -> Result<ProjectSettings, LoadError> {
    let entries = parse_ini(text).map_err(super::joined)?;
    let mut errors = Vec::new();
    let mut s = ProjectSettings {
        width: 960,
        height: 640,
        clear_color: [0.0, 0.0, 0.0, 1.0],
        input: DEFAULT_BINDING.into(),
        screen_view: true,
        ..ProjectSettings::default()
    };
    let number = |e: &Entry, errors: &mut Vec<LoadError>| -> Option<f64> {
        match e.value.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                errors.push(err(e, format!("{}.{} must be a number", e.section, e.key)));
                None
            }
        }
    };
    match get(&entries, "bootstrap", "main_collection") {
        Some(e) => match path(e) {
            Ok(p) => s.main_collection = p,
            Err(x) => errors.push(x),
        },
        None => errors.push(LoadError::new(GAME_PROJECT, "[bootstrap] main_collection is missing")),
    }
    if let Some(e) = get(&entries, "project", "title") {
        s.title = e.value.clone();
    }
    // Defold's default render script is what Sinew's own pipeline draws: it is not run.
    if let Some(e) = get(&entries, "bootstrap", "render")
        && !e.value.is_empty()
        && source_path(&e.value) != DEFAULT_RENDER
    {
        match path(e) {
            Ok(p) => s.render = p,
            Err(x) => errors.push(x),
        }
    }
    // A comma-separated list of files and folders (Defold's bundler packs them for
    // sys.load_resource), from the project's root with or without the leading '/' (Defold's
    // examples write both).
    if let Some(e) = get(&entries, "project", "custom_resources") {
        for part in e.value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let rooted = if part.starts_with('/') { part.to_string() } else { format!("/{part}") };
            let one = Entry { value: rooted, ..e.clone() };
            match path(&one) {
                Ok(p) => s.custom_resources.push(p),
                Err(x) => errors.push(x),
            }
        }
    }
    if let Some(e) = get(&entries, "display", "display_profiles")
        && !e.value.is_empty()
    {
        match path(e) {
            Ok(p) => s.display_profiles = p,
            Err(x) => errors.push(x),
        }
    }
    for (key, slot) in [("width", &mut s.width), ("height", &mut s.height)] {
        if let Some(e) = get(&entries, "display", key)
            && let Some(v) = number(e, &mut errors)
        {
            if (1.0..=16384.0).contains(&v) {
                *slot = v as u32;
            } else {
                errors.push(err(e, format!("display.{key} must be between 1 and 16384")));
            }
        }
    }
    // Defold's default samplers are linear unless [graphics] says otherwise.
    s.look.texture_filter = crate::project::TextureFilter::LINEAR;
    for (key, mag) in [("default_texture_min_filter", false), ("default_texture_mag_filter", true)] {
        if let Some(e) = get(&entries, "graphics", key) {
            match crate::project::material::FilterMode::from_name(e.value.trim()) {
                Some(f) if mag => s.look.texture_filter.mag = f.magnifying(),
                Some(f) => s.look.texture_filter.min = f,
                None => errors.push(err(e, format!("graphics.{key} must be nearest, linear or a mipmap mode"))),
            }
        }
    }
    if let Some(e) = get(&entries, "display", "vsync") {
        s.vsync = e.value != "0";
    }
    if let Some(e) = get(&entries, "display", "update_frequency")
        && let Some(v) = number(e, &mut errors)
        && v > 0.0
    {
        // 0, Defold's default, means "as fast as vsync": Sinew's default rate.
        s.update_frequency = v as f32;
    }
    for (i, key) in ["clear_color_red", "clear_color_green", "clear_color_blue", "clear_color_alpha"].iter().enumerate()
    {
        if let Some(e) = get(&entries, "render", key)
            && let Some(v) = number(e, &mut errors)
        {
            s.clear_color[i] = v as f32;
        }
    }
    if let Some(e) = get(&entries, "input", "game_binding")
        && !e.value.is_empty()
    {
        match path(e) {
            Ok(p) => s.input = p,
            Err(x) => errors.push(x),
        }
    }
    for (key, slot) in [("repeat_delay", &mut s.repeat_delay), ("repeat_interval", &mut s.repeat_interval)] {
        if let Some(e) = get(&entries, "input", key)
            && let Some(v) = number(e, &mut errors)
        {
            // A zero interval repeats a held button every frame, as in Defold (whose timer
            // then never climbs above 0); projects ship `repeat_interval = 0.0`.
            if v >= 0.0 {
                *slot = v as f32;
            } else {
                errors.push(err(e, format!("input.{key} must be 0 or more")));
            }
        }
    }
    if let Some(e) = get(&entries, "engine", "fixed_update_frequency")
        && let Some(v) = number(e, &mut errors)
    {
        if v >= 0.0 {
            s.fixed_update_frequency = v as f32;
        } else {
            errors.push(err(e, "engine.fixed_update_frequency must be >= 0 (0 turns it off)"));
        }
    }
    if let Some(e) = get(&entries, "collection", "max_instances")
        && let Some(v) = number(e, &mut errors)
    {
        if v >= 1.0 && v <= u32::MAX as f64 {
            s.max_instances = v as u32;
        } else {
            errors.push(err(e, "collection.max_instances must be at least 1"));
        }
    }
    physics(&entries, &mut s.physics, &mut errors);
    if errors.is_empty() { Ok(s) } else { Err(super::joined(errors)) }
}

/// `[physics] type, gravity_x/y/z, scale, debug, allow_dynamic_transforms, use_fixed_timestep,
/// max_fixed_timesteps, contact_impulse_limit, velocity_threshold, max_collisions, max_contacts`.
fn physics(entries: &[Entry], s: &mut crate::project::physics::PhysicsSettings, errors: &mut Vec<LoadError>) {
    // Defold's engine defaults: scale 1 (one physics unit per world unit; the editor's new
    // project writes 0.02, so most projects say so), and Box2D (2D) unless the project says 3D.
    s.scale = 1.0;
    s.two_d = true;
    // Defold steps physics once a frame by the frame's time unless `use_fixed_timestep` is
    // set, and then at most 2 fixed steps a frame.
    s.fixed_timestep = false;
    s.max_fixed_steps = Some(2);
    // And at most 64 touching pairs and 128 contact points reported a step.
    s.max_collisions = Some(64);
    s.max_contacts = Some(128);
    if let Some(e) = get(entries, "physics", "type") {
        match e.value.to_ascii_uppercase().as_str() {
            "2D" => s.two_d = true,
            "3D" => s.two_d = false,
            _ => errors.push(err(e, "physics.type must be 2D or 3D")),
        }
    }
    let num = |e: &Entry| e.value.parse::<f32>().ok().filter(|v| v.is_finite());
    for (i, key) in ["gravity_x", "gravity_y", "gravity_z"].iter().enumerate() {
        if let Some(e) = get(entries, "physics", key) {
            match num(e) {
                Some(v) => s.gravity[i] = v,
                None => errors.push(err(e, format!("physics.{key} must be a number"))),
            }
        }
    }
    // A number key, checked: its value, or its error at its position.
    let mut checked = |key: &str, check: &dyn Fn(f32) -> Result<f32, String>| {
        let e = get(entries, "physics", key)?;
        match num(e).ok_or_else(|| format!("physics.{key} must be a number")).and_then(check) {
            Ok(v) => Some(v),
            Err(m) => {
                errors.push(err(e, m));
                None
            }
        }
    };
    use crate::project::physics::{check_not_negative, check_scale};
    if let Some(v) = checked("scale", &check_scale) {
        s.scale = v;
    }
    if let Some(v) = checked("contact_impulse_limit", &|v| check_not_negative("contact_impulse_limit", v)) {
        s.contact_impulse_limit = v;
    }
    if let Some(v) = checked("velocity_threshold", &|v| check_not_negative("velocity_threshold", v)) {
        s.velocity_threshold = Some(v);
    }
    if let Some(e) = get(entries, "physics", "debug") {
        s.debug = e.value != "0";
    }
    // Defold reads it as an integer: anything but 0 is on.
    if let Some(e) = get(entries, "physics", "allow_dynamic_transforms") {
        s.dynamic_transforms = e.value.trim() != "0";
    }
    if let Some(e) = get(entries, "physics", "use_fixed_timestep") {
        s.fixed_timestep = e.value.trim() != "0";
    }
    if let Some(e) = get(entries, "physics", "max_fixed_timesteps") {
        match e.value.trim().parse::<u32>() {
            Ok(n) if n >= 1 => s.max_fixed_steps = Some(n),
            _ => errors.push(err(e, "physics.max_fixed_timesteps must be a whole number of at least 1")),
        }
    }
    for (key, slot) in [("max_collisions", &mut s.max_collisions), ("max_contacts", &mut s.max_contacts)] {
        if let Some(e) = get(entries, "physics", key) {
            match e.value.trim().parse::<u32>() {
                // 0: no limit (Defold's newer sources test `max > 0`).
                Ok(n) => *slot = Some(n).filter(|&n| n > 0),
                Err(_) => errors.push(err(e, format!("physics.{key} must be a whole number, 0 or more"))),
            }
        }
    }
}

fn err(e: &Entry, msg: impl Into<String>) -> LoadError {
    LoadError::at(GAME_PROJECT, e.at.line, e.at.column, msg)
}

fn path(e: &Entry) -> Result<String, LoadError> {
    let located = Located { value: source_path(&e.value), at: Some(e.at.clone()) };
    json::resource_path(&located, GAME_PROJECT)
}

/// Defold's values of the settings a game.project leaves out, as Defold's build writes them into
/// the project it runs (from its editor's defaults), so `sys.get_config` reads them there: the
/// display, render, physics, input, graphics and sound settings games and libraries read
/// (defold-orthographic reads `display.update_frequency`, 0 unless set).
const CONFIG_DEFAULTS: &[(&str, &str, &str)] = &[
    ("project", "title", "unnamed"),
    ("project", "version", "1.0"),
    ("display", "width", "960"),
    ("display", "height", "640"),
    ("display", "high_dpi", "0"),
    ("display", "samples", "0"),
    ("display", "fullscreen", "0"),
    ("display", "update_frequency", "0"),
    ("display", "vsync", "1"),
    ("display", "display_profiles", "/builtins/render/default.display_profilesc"),
    ("display", "dynamic_orientation", "0"),
    ("render", "clear_color_red", "0"),
    ("render", "clear_color_green", "0"),
    ("render", "clear_color_blue", "0"),
    ("render", "clear_color_alpha", "0"),
    ("physics", "type", "2D"),
    ("physics", "gravity_x", "0"),
    ("physics", "gravity_y", "-10"),
    ("physics", "gravity_z", "0"),
    ("physics", "scale", "1"),
    ("physics", "debug", "0"),
    ("physics", "max_collisions", "64"),
    ("physics", "max_contacts", "128"),
    ("bootstrap", "render", "/builtins/render/default.renderc"),
    ("graphics", "default_texture_min_filter", "linear"),
    ("graphics", "default_texture_mag_filter", "linear"),
    ("sound", "gain", "1"),
    ("input", "repeat_delay", "0.5"),
    ("input", "repeat_interval", "0.2"),
    ("input", "game_binding", "/input/game.input_bindingc"),
    ("input", "gamepads", "/builtins/input/default.gamepadsc"),
    ("sprite", "max_count", "128"),
    ("sprite", "subpixels", "1"),
    ("collection", "max_instances", "1024"),
    ("collection_proxy", "max_count", "8"),
    ("factory", "max_count", "128"),
    ("collectionfactory", "max_count", "128"),
];

/// Every setting as `{ "section": { "key": "value" } }` for `sys.get_config_*`, values as
/// the strings Defold keeps them as (`sys.get_config_int` converts), with Defold's defaults
/// ([`CONFIG_DEFAULTS`]) for those the file leaves out.
pub fn config_tree(text: &str) -> serde_json::Value {
    let mut root = serde_json::Map::new();
    let entries = parse_ini(text).unwrap_or_default();
    let defaults = CONFIG_DEFAULTS.iter().map(|&(s, k, v)| (s.to_string(), k.to_string(), v.to_string()));
    for (section, key, value) in defaults.chain(entries.into_iter().map(|e| (e.section, e.key, e.value))) {
        let section = root.entry(section).or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let Some(obj) = section.as_object_mut() {
            obj.insert(key, serde_json::Value::String(value));
        }
    }
    serde_json::Value::Object(root)
}

/// Defold's own `.render`, whose script Sinew's pipeline stands for.
const DEFAULT_RENDER: &str = "/builtins/render/default.render";

/// The settings of `text` that Sinew reads and cannot act on, each a warning naming its line:
/// for a project folder (`libraries` is Some, the zips Defold's editor fetched into its
/// `.internal/lib`), library projects (`[project] dependencies#N`) that are not among them or are
/// native extensions, such as defos: the scripts that use them fail, and this says why first.
/// Zips that could not be mounted too. A bundle packs the library files it read: no warning.
pub fn ignored(text: &str, libraries: Option<&crate::project::library::Libraries>) -> Vec<String> {
    let Ok(entries) = parse_ini(text) else { return Vec::new() };
    let at = |e: &Entry| format!("{}:{}:{}", e.at.resource, e.at.line, e.at.column);
    let mut out = Vec::new();
    let Some(libraries) = libraries else { return out };
    let mounted = &libraries.mounted;
    for e in
        entries.iter().filter(|e| e.section == "project" && e.key.starts_with("dependencies") && !e.value.is_empty())
    {
        match mounted.iter().find(|l| fetched_from(l, &e.value)) {
            Some(l) if l.native => out.push(format!(
                "{}: library project {} ({}/{}) is a native extension, which Sinew does not run: the \
                 scripts that use it fail where they do",
                at(e),
                e.value,
                crate::project::library::LIBRARY_DIR,
                l.file
            )),
            Some(_) => {}
            None => out.push(format!(
                "{}: library project {} is not in {} (where Defold's editor fetches it: Project > Fetch \
                 Libraries), so its Lua modules are missing",
                at(e),
                e.value,
                crate::project::library::LIBRARY_DIR
            )),
        }
    }
    out.extend(libraries.problems.iter().map(|p| format!("{p}: not mounted")));
    out
}

/// Whether `library` is the zip of dependency `url`: GitHub's archive of
/// `.../<owner>/<repo>/archive/<ref>.zip` has the one top folder `<repo>-<ref>`.
fn fetched_from(library: &crate::project::library::Library, url: &str) -> bool {
    let Some((repo_url, _)) = url.split_once("/archive/") else { return false };
    let repo = repo_url.rsplit('/').next().unwrap_or_default();
    !repo.is_empty() && (library.folder == repo || library.folder.starts_with(&format!("{repo}-")))
}

/// `[display] width` and `height`, or Defold's defaults 960 x 640 when missing or unreadable.
pub fn display_size(res: &Resources) -> (u32, u32) {
    load(res).map_or((960, 640), |s| (s.width, s.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "[project]\ntitle = Message passing\n\n[bootstrap]\nmain_collection = /example/message_passing.collectionc\n\n[input]\ngame_binding = /builtins/input/all.input_bindingc\nrepeat_interval = 0.05\n\n[display]\nwidth = 720\nheight = 720\nhigh_dpi = 1\n\n[windows]\niap_provider = \n\n[collection]\nmax_instances = 32765\n\n[render]\nclear_color_blue = 1.0\nclear_color_green = 0.5\nclear_color_red = 0.25\n";

    #[test]
    fn library_projects_are_named_as_not_acted_on() {
        let text = "[bootstrap]\nmain_collection = /main/main.collectionc\nrender = /render/custom.renderc\n\
            [project]\ndependencies#0 = https://github.com/subsoap/defos/archive/master.zip\ndependencies#1 = \n";
        let none = crate::project::library::Libraries::default();
        let w = ignored(text, Some(&none));
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(ignored(text, None).len(), 0, "a bundle is not told about libraries: it packed what it read");
        assert!(
            w[0].starts_with("/game.project:5:18: library project https://github.com/subsoap/defos/archive/master.zip"),
            "{w:?}"
        );
        assert_eq!(ignored(EXAMPLE, None), Vec::<String>::new());
    }

    /// A render of the project's own is run (its source path kept); Defold's default is Sinew's
    /// own pipeline, so it is not.
    #[test]
    fn a_render_of_the_projects_own_is_kept_and_the_default_is_not() {
        let own = "[bootstrap]\nmain_collection = /main/main.collectionc\nrender = /render/custom.renderc\n";
        assert_eq!(parse(own).unwrap().render, "/render/custom.render");
        let builtin = "[bootstrap]\nmain_collection = /m.collectionc\nrender = /builtins/render/default.renderc\n";
        assert_eq!(parse(builtin).unwrap().render, "");
        assert_eq!(parse(EXAMPLE).unwrap().render, "");
    }

    /// A dependency whose GitHub archive is in `.internal/lib` is not warned about, unless it is
    /// a native extension; one that is not there is, and so is a zip that could not be mounted.
    #[test]
    fn fetched_libraries_are_told_from_missing_ones() {
        use crate::project::library::{Libraries, tests::zip_of};
        let mut libs = Libraries::default();
        let project = b"[library]\ninclude_dirs = x\n";
        libs.mount("a.zip", zip_of(&[("monarch-3.4.6/game.project", project, false)])).unwrap();
        libs.mount(
            "b.zip",
            zip_of(&[("defos-master/game.project", project, false), ("defos-master/x/ext.manifest", b"", false)]),
        )
        .unwrap();
        libs.problems.push(".internal/lib/c.zip: not a zip file".into());
        let text = "[project]\ndependencies#0 = https://github.com/britzl/monarch/archive/refs/tags/3.4.6.zip\n\
            dependencies#1 = https://github.com/subsoap/defos/archive/master.zip\n\
            dependencies#2 = https://github.com/britzl/gooey/archive/master.zip\n";
        let w = ignored(text, Some(&libs));
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("defos/archive/master.zip (.internal/lib/b.zip) is a native extension"), "{w:?}");
        assert!(w[1].contains("gooey/archive/master.zip is not in .internal/lib"), "{w:?}");
        assert_eq!(w[2], ".internal/lib/c.zip: not a zip file: not mounted");
    }

    #[test]
    fn a_defold_example_game_project() {
        let s = parse(EXAMPLE).unwrap();
        assert_eq!(s.title, "Message passing");
        assert_eq!(s.main_collection, "/example/message_passing.collection");
        assert_eq!(s.input, "/builtins/input/all.input_binding");
        assert_eq!((s.width, s.height), (720, 720));
        assert_eq!(s.clear_color, [0.25, 0.5, 1.0, 1.0]);
        assert_eq!(s.max_instances, 32765);
        assert_eq!(s.repeat_interval, 0.05);
    }

    /// selimanac's daabbcc platformer ships `repeat_delay = 0.0` and `repeat_interval = 0.0`
    /// (a held button repeats every frame, in Defold); Sinew refused the project. A negative
    /// one is still refused where it is written.
    #[test]
    fn a_zero_repeat_interval_is_taken_and_a_negative_one_refused() {
        let zero = EXAMPLE.replace("repeat_interval = 0.05", "repeat_delay = 0.0\nrepeat_interval = 0.0");
        let s = parse(&zero).unwrap();
        assert_eq!((s.repeat_delay, s.repeat_interval), (0.0, 0.0));
        let e = parse(&EXAMPLE.replace("repeat_interval = 0.05", "repeat_interval = -1")).unwrap_err().to_string();
        assert!(e.contains("/game.project:9:19:") && e.contains("input.repeat_interval must be 0 or more"), "{e}");
    }

    #[test]
    fn texture_filters_are_linear_unless_graphics_says() {
        use crate::project::TextureFilter;
        use crate::project::material::FilterMode;
        assert_eq!(parse(EXAMPLE).unwrap().look.texture_filter, TextureFilter::LINEAR);
        let pixel = format!(
            "{EXAMPLE}\n[graphics]\ndefault_texture_min_filter = nearest\ndefault_texture_mag_filter = nearest_mipmap_linear\n"
        );
        let f = parse(&pixel).unwrap().look.texture_filter;
        assert_eq!((f.min, f.mag), (FilterMode::Nearest, FilterMode::Nearest), "a mipmap mode magnifies by its base");
        let e = parse(&format!("{EXAMPLE}\n[graphics]\ndefault_texture_min_filter = blurry\n")).unwrap_err();
        assert!(
            e.to_string().contains("graphics.default_texture_min_filter must be nearest, linear or a mipmap mode"),
            "{e}"
        );
    }

    #[test]
    fn defaults_are_defolds() {
        let s = parse("[bootstrap]\nmain_collection = /main/main.collectionc\n").unwrap();
        assert_eq!((s.width, s.height), (960, 640));
        assert_eq!(s.clear_color, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(s.input, DEFAULT_BINDING, "Defold's engine default, which its editor leaves out");
        assert_eq!(s.physics.scale, 1.0, "Defold's engine default (its new-project template writes 0.02)");
        assert!(s.screen_view, "a Defold project without a camera is seen as Defold's render script shows it");
    }

    #[test]
    fn custom_resources_are_rooted_with_or_without_a_slash() {
        let s = parse("[bootstrap]\nmain_collection = /main/main.collectionc\n[project]\ncustom_resources = levels, /data/a.json\n")
            .unwrap();
        assert_eq!(s.custom_resources, ["/levels", "/data/a.json"]);
        let e = parse("[bootstrap]\nmain_collection = /main/main.collectionc\n[project]\ncustom_resources = ../up\n")
            .unwrap_err();
        assert!(e.to_string().contains("../up"), "{e}");
    }

    /// The defaults `sys.get_config` answers are the ones the runtime runs with, where both have
    /// the setting: the two lists cannot drift apart unseen.
    #[test]
    fn config_defaults_agree_with_the_settings_a_bare_game_project_gets() {
        let s = parse("[bootstrap]\nmain_collection = /main/main.collectionc\n").expect("parses");
        let t = config_tree("");
        let n = |section: &str, key: &str| t[section][key].as_str().and_then(|v| v.parse::<f32>().ok());
        assert_eq!((n("display", "width"), n("display", "height")), (Some(s.width as f32), Some(s.height as f32)));
        assert_eq!(n("input", "repeat_delay"), Some(s.repeat_delay));
        assert_eq!(n("input", "repeat_interval"), Some(s.repeat_interval));
        // The one setting where they differ on purpose: a Defold game reads Defold's 1024, and
        // Sinew runs a project that leaves it out with room for more (docs/formats.md).
        assert_eq!(n("collection", "max_instances"), Some(1024.0));
        assert!(s.max_instances > 1024, "{}", s.max_instances);
        // The clear colour; its alpha is Defold's 0 to scripts, while Sinew clears the window
        // opaque (a window has nothing behind it to show).
        for (i, key) in ["clear_color_red", "clear_color_green", "clear_color_blue"].iter().enumerate() {
            assert_eq!(n("render", key), Some(s.clear_color[i]), "{key}");
        }
        assert_eq!((n("render", "clear_color_alpha"), s.clear_color[3]), (Some(0.0), 1.0));
    }

    #[test]
    fn every_key_is_kept_for_sys_get_config() {
        let t = config_tree(EXAMPLE);
        assert_eq!(t["display"]["high_dpi"], "1");
        assert_eq!(t["windows"]["iap_provider"], "");
        assert_eq!(t["project"]["title"], "Message passing");
        // What the file leaves out reads as Defold's build writes it.
        assert_eq!(t["display"]["update_frequency"], "0");
        assert_eq!(t["physics"]["gravity_y"], "-10");
        let bare = config_tree("[display]\nwidth = 320\n");
        assert_eq!((&bare["display"]["width"], &bare["display"]["height"]), (&"320".into(), &"640".into()));
        assert_eq!(bare["input"]["repeat_interval"], "0.2");
    }

    #[test]
    fn errors_name_the_line_and_all_are_reported() {
        let e =
            parse("[display]\nwidth = wide\nheight = 0\nnonsense\n[bootstrap]\nmain_collection = main.collectionc\n")
                .unwrap_err();
        let all = e.to_string();
        // The line without `=` is a syntax error, reported alone (with the others of its kind).
        assert!(all.starts_with("/game.project:4:1: expected `key = value`"), "{all}");
        let e = parse("[display]\nwidth = wide\nheight = 0\n[bootstrap]\nmain_collection = main.collectionc\n")
            .unwrap_err();
        let all = e.to_string();
        assert!(all.contains("/game.project:2:9: display.width must be a number"), "{all}");
        assert!(all.contains("/game.project:3:10: display.height must be between 1 and 16384"), "{all}");
        assert!(all.contains("/game.project:5:19: resource path 'main.collection' must start with '/'"), "{all}");
        let e = parse("[display]\nwidth = 5\n").unwrap_err();
        assert!(e.message.contains("main_collection is missing"), "{e}");
        assert!(parse_ini("key = 1\n").is_err());
        assert!(parse_ini("[]\n").is_err());
        assert!(parse_ini(&"#".repeat(MAX_BYTES + 1)).is_err());
    }
}
