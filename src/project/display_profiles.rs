//! `.display_profiles` (Defold's `render_ddf.proto` DisplayProfiles): named screen sizes a GUI
//! scene's `layouts` are made for. The running game picks, for its window, the profile of the
//! scene's layouts that fits best, as Defold does: same orientation first, then the smallest
//! sum of area and aspect differences.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::Located;
use crate::project::types::{MAX_WINDOW_SIDE, window_side};
use serde::Deserialize;

/// The profiles a project without `[display] display_profiles` has: Defold's
/// `Landscape` 1280x720 and `Portrait` 720x1280.
pub const DEFAULT_DISPLAY_PROFILES: &str = "/builtins/render/default.display_profiles";

/// Most profiles and qualifiers a file may list (Defold's editor offers a handful).
const MAX_PROFILES: usize = 256;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfilesFile {
    #[serde(default)]
    profiles: Vec<ProfileFile>,
    #[serde(default)]
    auto_layout_selection: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: Located<String>,
    #[serde(default)]
    qualifiers: Vec<Located<QualifierFile>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct QualifierFile {
    width: f64,
    height: f64,
    /// Phone models a qualifier is limited to: read, not used (Sinew runs on desktops).
    #[serde(default)]
    #[allow(dead_code)]
    device_models: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    /// (width, height) of each qualifier, in file order.
    pub qualifiers: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DisplayProfiles {
    pub profiles: Vec<Profile>,
    /// False: scenes keep the layout they start with (`gui.set_layout` still switches).
    pub auto_layout_selection: bool,
}

impl Default for DisplayProfiles {
    /// What [`DEFAULT_DISPLAY_PROFILES`] holds, for a project that names an unreadable file.
    fn default() -> Self {
        DisplayProfiles {
            profiles: vec![
                Profile { name: "Landscape".into(), qualifiers: vec![(1280, 720)] },
                Profile { name: "Portrait".into(), qualifiers: vec![(720, 1280)] },
            ],
            auto_layout_selection: true,
        }
    }
}

impl DisplayProfiles {
    /// The profile among those `choose` accepts that best fits a `width` x `height` window:
    /// of the qualifiers in the window's orientation (portrait when not wider than tall), the
    /// one with the smallest `|1 - window area / area| + |1 - window ratio / ratio|`; of the
    /// other orientation only when none is in the window's. `None` when no profile is accepted.
    pub fn best(&self, (width, height): (u32, u32), choose: impl Fn(&str) -> bool) -> Option<&str> {
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let (area, ratio) = (w * h, w / h);
        let portrait = |w: f32, h: f32| usize::from(w <= h);
        let mut best: [(f32, Option<&str>); 2] = [(f32::MAX, None), (f32::MAX, None)];
        for p in self.profiles.iter().filter(|p| choose(&p.name)) {
            for &(qw, qh) in &p.qualifiers {
                let (qw, qh) = (qw as f32, qh as f32);
                let d = (1.0 - area / (qw * qh)).abs() + (1.0 - ratio / (qw / qh)).abs();
                let slot = &mut best[portrait(qw, qh)];
                if d < slot.0 {
                    *slot = (d, Some(p.name.as_str()));
                }
            }
        }
        let wanted = portrait(w, h);
        best[wanted].1.or(best[1 - wanted].1)
    }

    /// The size of profile `name`'s first qualifier: the resolution its layout was made for.
    pub fn size_of(&self, name: &str) -> Option<(u32, u32)> {
        self.profiles.iter().find(|p| p.name == name)?.qualifiers.first().copied()
    }
}

/// Reads and checks a `.display_profiles` file (Defold's text format or the same fields in
/// JSON); every problem is reported, with its position.
pub fn load_display_profiles(res: &Resources, path: &str) -> Result<DisplayProfiles, LoadError> {
    // A missing file is the settings' problem: reported against game.project / project.json.
    let text = res.read_string(path, Some(crate::project::settings::settings_file(res)))?;
    let file: ProfilesFile = crate::project::json::parse_resource(res, path, &text)?;
    let mut errors = Vec::new();
    if file.profiles.len() > MAX_PROFILES {
        errors.push(LoadError::new(path, format!("more than {MAX_PROFILES} profiles")));
    }
    let mut out =
        DisplayProfiles { profiles: Vec::new(), auto_layout_selection: file.auto_layout_selection.unwrap_or(true) };
    for p in file.profiles.iter().take(MAX_PROFILES) {
        if p.name.value.is_empty() || out.profiles.iter().any(|o| o.name == p.name.value) {
            let why = if p.name.value.is_empty() { "must not be empty" } else { "is used twice" };
            errors.push(p.name.error(path, format!("profile name '{}' {why}", p.name.value)));
            continue;
        }
        let mut qualifiers = Vec::new();
        for q in p.qualifiers.iter().take(MAX_PROFILES) {
            match (window_side(q.value.width), window_side(q.value.height)) {
                (Some(w), Some(h)) => qualifiers.push((w, h)),
                _ => errors.push(q.error(
                    path,
                    format!(
                        "profile '{}': a qualifier's width and height must be whole numbers from 1 to {MAX_WINDOW_SIDE}",
                        p.name.value
                    ),
                )),
            }
        }
        out.profiles.push(Profile { name: p.name.value.clone(), qualifiers });
    }
    if errors.is_empty() { Ok(out) } else { Err(crate::project::defold::joined(errors)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_profile_is_in_the_windows_orientation_then_the_nearest() {
        let p = DisplayProfiles::default();
        let all = |_: &str| true;
        // A square window counts as portrait (not wider than tall), as in Defold.
        assert_eq!(p.best((720, 720), all), Some("Portrait"));
        assert_eq!(p.best((740, 720), all), Some("Landscape"));
        assert_eq!(p.best((400, 1000), all), Some("Portrait"));
        // Only the scene's layouts are candidates: the other orientation when none fits.
        assert_eq!(p.best((720, 720), |n| n == "Landscape"), Some("Landscape"));
        assert_eq!(p.best((720, 720), |_| false), None);
        // Within an orientation, the nearer in area and ratio.
        let three = DisplayProfiles {
            profiles: vec![
                Profile { name: "small".into(), qualifiers: vec![(640, 360)] },
                Profile { name: "big".into(), qualifiers: vec![(1920, 1080), (2560, 1440)] },
            ],
            auto_layout_selection: true,
        };
        assert_eq!(three.best((700, 400), all), Some("small"));
        assert_eq!(three.best((2400, 1300), all), Some("big"));
        assert_eq!(three.size_of("big"), Some((1920, 1080)));
        assert_eq!(three.size_of("none"), None);
        // A zero-sized window is treated as 1x1, not a division by zero.
        assert_eq!(p.best((0, 0), all), Some("Portrait"));
    }

    #[test]
    fn the_builtin_file_is_defolds_two_profiles() {
        let res = Resources::demo();
        let p = load_display_profiles(&res, DEFAULT_DISPLAY_PROFILES).expect("built-in profiles");
        assert_eq!(p, DisplayProfiles::default());
    }

    #[test]
    fn bad_profiles_are_reported_with_their_positions() {
        let dir = std::env::temp_dir().join(format!("sinew_profiles_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let text = "profiles {\n  name: \"a\"\n  qualifiers {\n    width: 0\n    height: 10\n  }\n}\nprofiles {\n  name: \"a\"\n}\n";
        std::fs::write(dir.join("bad.display_profiles"), text).expect("write");
        let res = Resources::open_dir(&dir).expect("dir");
        let e = load_display_profiles(&res, "/bad.display_profiles").expect_err("refused").to_string();
        assert!(e.contains("/bad.display_profiles:3:") && e.contains("whole numbers from 1 to 16384"), "{e}");
        assert!(e.contains("/bad.display_profiles:9:") && e.contains("profile name 'a' is used twice"), "{e}");
        let e = load_display_profiles(&res, "/none.display_profiles").expect_err("missing").to_string();
        assert!(e.starts_with("/project.json: resource '/none.display_profiles' not found"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
