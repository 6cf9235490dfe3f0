//! `project.json`: window, clear colour, tick rate and the bootstrap collection.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::{self, Located};
use crate::project::material::FilterMode;
use crate::project::types::{Look, MAX_WINDOW_SIDE, ProjectSettings, SHADOW_MAP_SIZES, Shading, ToneMapping};
use serde::Deserialize;

/// Where the project settings live; fixed so a folder is recognisable as a project.
pub const SETTINGS_PATH: &str = "/project.json";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    title: Option<String>,
    main_collection: Located<String>,
    window: Option<Located<WindowFile>>,
    clear_color: Option<[f32; 4]>,
    update_frequency: Option<Located<f32>>,
    input: Option<Located<String>>,
    fixed_update_frequency: Option<Located<f32>>,
    input_repeat: Option<Located<RepeatFile>>,
    script_time_limit: Option<Located<f32>>,
    /// The game's own settings, read by `sys.get_config_*("custom.…")`; the one free-form part.
    custom: Option<Located<serde_json::Value>>,
    max_instances: Option<Located<u32>>,
    ambient: Option<Located<[f32; 3]>>,
    shading: Option<Located<String>>,
    tone_mapping: Option<Located<String>>,
    exposure: Option<Located<f32>>,
    shadows: Option<bool>,
    shadow_map_size: Option<Located<u32>>,
    shadow_distance: Option<Located<f32>>,
    physics: Option<crate::project::physics::PhysicsFile>,
    custom_resources: Option<Vec<Located<String>>>,
    display_profiles: Option<Located<String>>,
    default_texture_min_filter: Option<Located<String>>,
    default_texture_mag_filter: Option<Located<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RepeatFile {
    repeat_delay: Option<f32>,
    repeat_interval: Option<f32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowFile {
    width: Option<u32>,
    height: Option<u32>,
    vsync: Option<bool>,
}

impl Default for ProjectSettings {
    /// The spec's example values, so a minimal project still opens a sensible window.
    fn default() -> Self {
        ProjectSettings {
            title: "Sinew".into(),
            main_collection: String::new(),
            width: 960,
            height: 540,
            vsync: true,
            clear_color: [0.12, 0.12, 0.14, 1.0],
            update_frequency: 60.0,
            input: crate::project::input::DEFAULT_BINDING.into(),
            fixed_update_frequency: 60.0,
            repeat_delay: 0.5,
            repeat_interval: 0.2,
            script_time_limit: crate::project::types::DEFAULT_SCRIPT_TIME_LIMIT,
            max_instances: crate::project::types::DEFAULT_MAX_INSTANCES,
            screen_view: false,
            look: Look::default(),
            physics: Default::default(),
            custom_resources: Vec::new(),
            display_profiles: crate::project::display_profiles::DEFAULT_DISPLAY_PROFILES.into(),
            render: String::new(),
        }
    }
}

/// Loads `/project.json`; only `main_collection` is required. A folder with Defold's
/// `game.project` and no `project.json` is a Defold project, read as it is.
pub fn load_settings(res: &Resources) -> Result<ProjectSettings, LoadError> {
    if is_defold(res) {
        return crate::project::defold::game_project::load(res);
    }
    let text = res.read_string(SETTINGS_PATH, None)?;
    parse_settings(&text)
}

/// True when the settings are Defold's `game.project` (there is no `project.json`).
pub fn is_defold(res: &Resources) -> bool {
    !res.exists(SETTINGS_PATH) && res.exists(crate::project::defold::game_project::GAME_PROJECT)
}

/// The settings file errors about settings are reported against.
pub fn settings_file(res: &Resources) -> &'static str {
    if is_defold(res) { crate::project::defold::game_project::GAME_PROJECT } else { SETTINGS_PATH }
}

/// Whether `dir` holds a project's settings file (Sinew's or Defold's).
pub fn is_project_dir(dir: &std::path::Path) -> bool {
    dir.join(&SETTINGS_PATH[1..]).is_file() || dir.join("game.project").is_file()
}

/// The settings as written, for `sys.get_config_*`: project.json's JSON, or game.project's
/// sections and keys; Null when missing or broken (then every key reads as missing).
pub fn config_values(res: &Resources) -> serde_json::Value {
    if is_defold(res) {
        return res
            .read_string(crate::project::defold::game_project::GAME_PROJECT, None)
            .map_or(serde_json::Value::Null, |t| crate::project::defold::game_project::config_tree(&t));
    }
    res.read_string(SETTINGS_PATH, None)
        .ok()
        .and_then(|text| serde_json::from_str(text.trim_start_matches('\u{feff}')).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// Parses the text of `/project.json` (separate so `sinew check` and tests need no folder).
pub fn parse_settings(text: &str) -> Result<ProjectSettings, LoadError> {
    let file: SettingsFile = json::parse(SETTINGS_PATH, text)?;
    let main = json::resource_path(&file.main_collection, SETTINGS_PATH)?;
    // `run` would read anything else as a collection and fail where `check` saw nothing wrong.
    if !main.ends_with(".collection") {
        let msg = format!("main_collection '{main}' must name a .collection file");
        return Err(file.main_collection.error(SETTINGS_PATH, msg));
    }
    let mut s = ProjectSettings { main_collection: main, ..ProjectSettings::default() };
    parse_look(&file, &mut s.look)?;
    if let Some(p) = &file.physics {
        s.physics = crate::project::physics::settings(p, SETTINGS_PATH)?;
    }
    for r in file.custom_resources.iter().flatten() {
        s.custom_resources.push(json::resource_path(r, SETTINGS_PATH)?);
    }
    if let Some(d) = &file.display_profiles {
        s.display_profiles = json::resource_path(d, SETTINGS_PATH)?;
    }
    if let Some(t) = file.title {
        // The window system takes a C string: a NUL would fail the window after a clean check.
        if t.contains('\0') {
            return Err(LoadError::new(SETTINGS_PATH, "title must not contain a NUL character"));
        }
        s.title = t;
    }
    if let Some(w) = file.window {
        s.width = w.value.width.unwrap_or(s.width);
        s.height = w.value.height.unwrap_or(s.height);
        s.vsync = w.value.vsync.unwrap_or(s.vsync);
        if s.width == 0 || s.height == 0 || s.width > MAX_WINDOW_SIDE || s.height > MAX_WINDOW_SIDE {
            let msg = format!("window width and height must be from 1 to {MAX_WINDOW_SIDE}");
            return Err(w.error(SETTINGS_PATH, msg));
        }
    }
    s.clear_color = file.clear_color.unwrap_or(s.clear_color);
    if let Some(f) = file.update_frequency {
        // A zero or negative rate would make the fixed time step infinite or negative.
        if !(f.value > 0.0 && f.value.is_finite()) {
            return Err(f.error(SETTINGS_PATH, "update_frequency must be a positive number"));
        }
        s.update_frequency = f.value;
    }
    if let Some(p) = &file.input {
        s.input = json::resource_path(p, SETTINGS_PATH)?;
    }
    if let Some(f) = file.fixed_update_frequency {
        if !(f.value >= 0.0 && f.value.is_finite()) {
            return Err(f.error(SETTINGS_PATH, "fixed_update_frequency must be a number >= 0 (0 turns it off)"));
        }
        s.fixed_update_frequency = f.value;
    }
    if let Some(f) = file.script_time_limit {
        if !(f.value >= 0.0 && f.value.is_finite()) {
            return Err(f.error(SETTINGS_PATH, "script_time_limit must be a number of seconds >= 0 (0 turns it off)"));
        }
        s.script_time_limit = f.value;
    }
    if let Some(c) = file.custom
        && !c.value.is_object()
    {
        return Err(c.error(SETTINGS_PATH, "custom must be an object of the game's own settings"));
    }
    if let Some(m) = file.max_instances {
        if m.value == 0 {
            return Err(m.error(SETTINGS_PATH, "max_instances must be at least 1"));
        }
        s.max_instances = m.value;
    }
    if let Some(r) = file.input_repeat {
        s.repeat_delay = r.value.repeat_delay.unwrap_or(s.repeat_delay);
        s.repeat_interval = r.value.repeat_interval.unwrap_or(s.repeat_interval);
        // A zero interval would repeat every frame forever; negative delays make no sense.
        if !(s.repeat_delay >= 0.0
            && s.repeat_interval > 0.0
            && s.repeat_delay.is_finite()
            && s.repeat_interval.is_finite())
        {
            return Err(r.error(SETTINGS_PATH, "input_repeat: repeat_delay must be >= 0 and repeat_interval > 0"));
        }
    }
    Ok(s)
}

/// `ambient`, `shading`, `tone_mapping` and `exposure`: bad values point at where they were written.
fn parse_look(file: &SettingsFile, look: &mut Look) -> Result<(), LoadError> {
    if let Some(a) = &file.ambient {
        if !a.value.iter().all(|c| c.is_finite() && *c >= 0.0) {
            return Err(a.error(SETTINGS_PATH, "ambient must be 3 linear colour values >= 0"));
        }
        look.ambient = a.value;
    }
    if let Some(m) = &file.shading {
        look.shading = match m.value.as_str() {
            "lambert" => Shading::Lambert,
            "standard" => Shading::Standard,
            _ => return Err(m.error(SETTINGS_PATH, "shading must be \"lambert\" or \"standard\"")),
        };
    }
    if let Some(t) = &file.tone_mapping {
        look.tone_mapping = match t.value.as_str() {
            "none" => ToneMapping::None,
            "aces" => ToneMapping::Aces,
            "agx" => ToneMapping::Agx,
            _ => return Err(t.error(SETTINGS_PATH, "tone_mapping must be \"none\", \"aces\" or \"agx\"")),
        };
    }
    if let Some(e) = &file.exposure {
        if !(e.value > 0.0 && e.value.is_finite()) {
            return Err(e.error(SETTINGS_PATH, "exposure must be a positive number"));
        }
        look.exposure = e.value;
    }
    if let Some(m) = &file.default_texture_min_filter {
        look.texture_filter.min = FilterMode::from_name(&m.value).ok_or_else(|| {
            let names: Vec<&str> = FilterMode::NAMES.iter().map(|(n, _)| *n).collect();
            m.error(SETTINGS_PATH, format!("default_texture_min_filter must be one of {}", names.join(", ")))
        })?;
    }
    if let Some(m) = &file.default_texture_mag_filter {
        look.texture_filter.mag = match FilterMode::from_name(&m.value) {
            Some(f @ (FilterMode::Nearest | FilterMode::Linear)) => f,
            _ => return Err(m.error(SETTINGS_PATH, "default_texture_mag_filter must be \"nearest\" or \"linear\"")),
        };
    }
    look.shadows.enabled = file.shadows.unwrap_or(look.shadows.enabled);
    if let Some(m) = &file.shadow_map_size {
        if !SHADOW_MAP_SIZES.contains(&m.value) {
            let (lo, hi) = (SHADOW_MAP_SIZES.start(), SHADOW_MAP_SIZES.end());
            return Err(m.error(SETTINGS_PATH, format!("shadow_map_size must be from {lo} to {hi} texels")));
        }
        look.shadows.map_size = m.value;
    }
    if let Some(d) = &file.shadow_distance {
        if !(d.value > 0.0 && d.value.is_finite()) {
            return Err(d.error(SETTINGS_PATH, "shadow_distance must be a positive number of world units"));
        }
        look.shadows.distance = d.value;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_example() {
        let s = parse_settings(
            r#"{
              "title": "Wiggler demo",
              "main_collection": "/main/main.collection",
              "window": { "width": 1280, "height": 720, "vsync": false },
              "clear_color": [0.5, 0.12, 0.14, 1.0],
              "update_frequency": 30,
              "input": "/input/game.input_binding",
              "fixed_update_frequency": 120,
              "input_repeat": { "repeat_delay": 0.3, "repeat_interval": 0.1 }
            }"#,
        )
        .unwrap();
        assert_eq!(s.title, "Wiggler demo");
        assert_eq!(s.main_collection, "/main/main.collection");
        assert_eq!((s.width, s.height, s.vsync), (1280, 720, false));
        assert_eq!(s.clear_color, [0.5, 0.12, 0.14, 1.0]);
        assert_eq!(s.update_frequency, 30.0);
        assert_eq!(s.input, "/input/game.input_binding");
        assert_eq!((s.fixed_update_frequency, s.repeat_delay, s.repeat_interval), (120.0, 0.3, 0.1));
    }

    #[test]
    fn texture_filters_by_name() {
        use crate::project::TextureFilter;
        let s = parse_settings(r#"{ "main_collection": "/m.collection" }"#).unwrap();
        assert_eq!(s.look.texture_filter, TextureFilter::NEAREST, "Sinew's projects: pixel-exact");
        let s = parse_settings(
            r#"{ "main_collection": "/m.collection", "default_texture_min_filter": "linear_mipmap_linear", "default_texture_mag_filter": "linear" }"#,
        )
        .unwrap();
        assert_eq!(s.look.texture_filter.min, FilterMode::LinearMipmapLinear);
        assert_eq!(s.look.texture_filter.mag, FilterMode::Linear);
        let e = parse_settings(
            r#"{ "main_collection": "/m.collection", "default_texture_mag_filter": "linear_mipmap_linear" }"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("default_texture_mag_filter must be \"nearest\" or \"linear\""), "{e}");
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "default_texture_min_filter": "smooth" }"#)
            .unwrap_err();
        assert!(e.to_string().contains("must be one of nearest, linear, nearest_mipmap_nearest"), "{e}");
    }

    #[test]
    fn defaults() {
        let s = parse_settings(r#"{ "main_collection": "/main/main.collection" }"#).unwrap();
        let expected =
            ProjectSettings { main_collection: "/main/main.collection".into(), ..ProjectSettings::default() };
        assert_eq!(s, expected);
        let s = parse_settings(r#"{ "main_collection": "/m.collection", "window": { "width": 100 } }"#).unwrap();
        assert_eq!((s.width, s.height, s.vsync), (100, 540, true));
    }

    #[test]
    fn errors() {
        let e = parse_settings(r#"{ "title": "x" }"#).unwrap_err();
        assert!(e.message.contains("missing field `main_collection`"), "{e}");
        assert_eq!(e.resource, "/project.json");
        let e = parse_settings("{\n \"main_collection\": \"/m.collection\",\n \"tilte\": \"x\" }").unwrap_err();
        assert!(e.to_string().starts_with("/project.json:3:"), "{e}");
        assert!(e.message.contains("unknown field `tilte`"), "{e}");
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "update_frequency": 0 }"#).unwrap_err();
        assert!(e.message.contains("update_frequency"), "{e}");
        assert_eq!(e.line, Some(1));
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "input_repeat": { "repeat_interval": 0 } }"#)
            .unwrap_err();
        assert!(e.message.contains("input_repeat"), "{e}");
        let e =
            parse_settings(r#"{ "main_collection": "/m.collection", "input_repeat": { "delay": 1 } }"#).unwrap_err();
        assert!(e.message.contains("unknown field `delay`"), "{e}");
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "script_time_limit": -1 }"#).unwrap_err();
        assert!(e.message.contains("script_time_limit"), "{e}");
        let s = parse_settings(r#"{ "main_collection": "/m.collection", "script_time_limit": 0.5 }"#).unwrap();
        assert_eq!(s.script_time_limit, 0.5);
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "fixed_update_frequency": -1 }"#).unwrap_err();
        assert!(e.message.contains("fixed_update_frequency"), "{e}");
        let e = parse_settings(r#"{ "main_collection": "/../m.collection" }"#).unwrap_err();
        assert!(e.message.contains("escapes"), "{e}");
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "window": { "width": -3 } }"#).unwrap_err();
        assert!(e.line.is_some(), "{e}");
    }

    /// Issue 32: what `check` passed and `run` then failed on is refused here, where both read it.
    #[test]
    fn what_run_cannot_start_with_is_refused() {
        let refused = |extra: &str, main: &str| {
            parse_settings(&format!(r#"{{ "main_collection": "{main}"{extra} }}"#)).unwrap_err().to_string()
        };
        let e = refused("", "/project.json");
        assert!(e.contains("main_collection '/project.json' must name a .collection file"), "{e}");
        assert!(refused("", "/main").contains("must name a .collection file"));
        let e = refused(r#", "title": "a\u0000b""#, "/m.collection");
        assert!(e.contains("title must not contain a NUL"), "{e}");
        let e = refused(r#", "window": { "width": 20000, "height": 20000 }"#, "/m.collection");
        assert!(e.starts_with("/project.json:1:") && e.contains("from 1 to 16384"), "{e}");
        let s = parse_settings(r#"{ "main_collection": "/m.collection", "window": { "width": 16384 } }"#).unwrap();
        assert_eq!(s.width, MAX_WINDOW_SIDE);
    }

    #[test]
    fn look_settings() {
        let s = parse_settings(r#"{ "main_collection": "/m.collection" }"#).unwrap();
        assert_eq!(s.look, Look::default());
        assert_eq!(s.look.ambient, [0.25; 3]);
        let s = parse_settings(
            r#"{ "main_collection": "/m.collection", "ambient": [0.1, 0.2, 0.3], "shading": "standard",
                 "tone_mapping": "agx", "exposure": 1.5 }"#,
        )
        .unwrap();
        let want = Look {
            ambient: [0.1, 0.2, 0.3],
            shading: Shading::Standard,
            tone_mapping: ToneMapping::Agx,
            exposure: 1.5,
            ..Look::default()
        };
        assert_eq!(s.look, want);
        assert!(!s.look.shadows.enabled, "shadows are off unless asked for");
        let s = parse_settings(
            r#"{ "main_collection": "/m.collection", "shadows": true, "shadow_map_size": 1024, "shadow_distance": 30 }"#,
        )
        .unwrap();
        assert_eq!(s.look.shadows, crate::project::Shadows { enabled: true, map_size: 1024, distance: 30.0 });
        for (bad, word) in [
            (r#""ambient": [0.1, -1, 0]"#, "ambient"),
            (r#""ambient": [0.1, 0.2]"#, "length 3"),
            (r#""shading": "phong""#, "shading"),
            (r#""tone_mapping": "filmic""#, "tone_mapping"),
            (r#""exposure": 0"#, "exposure"),
            (r#""shadow_map_size": 100"#, "shadow_map_size must be from 256 to 8192"),
            (r#""shadow_map_size": 16384"#, "shadow_map_size must be from 256 to 8192"),
            (r#""shadow_distance": -1"#, "shadow_distance"),
            (r#""shadows": "yes""#, "invalid type"),
        ] {
            let e = parse_settings(&format!("{{ \"main_collection\": \"/m.collection\",\n {bad} }}")).unwrap_err();
            assert!(e.to_string().contains(word) && e.line == Some(2), "{bad}: {e}");
        }
    }

    #[test]
    fn custom_is_free_form() {
        let s = parse_settings(
            r#"{ "main_collection": "/m.collection", "custom": { "lives": 3, "any": { "nested": [1, "x"] } } }"#,
        );
        assert!(s.is_ok(), "{:?}", s.err());
        let e = parse_settings(r#"{ "main_collection": "/m.collection", "custom": 3 }"#).unwrap_err();
        assert!(e.message.contains("custom must be an object"), "{e}");
    }

    #[test]
    fn load_from_folder() {
        let dir = std::env::temp_dir().join(format!("sinew_settings_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let res = Resources::open_dir(&dir).unwrap();
        assert!(load_settings(&res).unwrap_err().message.contains("not found"));
        std::fs::write(dir.join("project.json"), r#"{ "main_collection": "/a.collection" }"#).unwrap();
        assert_eq!(load_settings(&res).unwrap().main_collection, "/a.collection");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
