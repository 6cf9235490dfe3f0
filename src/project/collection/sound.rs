//! A `sound` component from its fields: ranges checked where they are written, Defold's
//! defaults (gain 1, pan 0, speed 1, group `master`) filled in. The file itself is decoded when
//! the component is made (`game::sound`), where hot reload can replace it.
use super::*;
use crate::project::sound::{MAX_GAIN, MAX_SPEED, MIN_SPEED, SoundSpec, Spatial};

/// The largest `max_distance`: beyond a million units a sound is everywhere or nowhere.
const MAX_DISTANCE: f32 = 1.0e6;
/// The most plays a `loopcount` may ask for (more is "until stopped", which 0 says).
const MAX_LOOPCOUNT: u32 = 1_000_000;

pub(super) fn sound(c: &ComponentDesc, file: &str) -> Result<SoundSpec, LoadError> {
    let id = &c.id.value.0;
    let Some(path) = &c.sound else {
        return Err(c.id.error(file, format!("sound '{id}' needs a 'sound' (a .wav or .ogg file)")));
    };
    let sound = json::resource_path(path, file)?;
    if !(sound.ends_with(".wav") || sound.ends_with(".ogg")) {
        return Err(path.error(file, format!("sound '{id}': '{sound}' must be a .wav or .ogg file")));
    }
    let ranged = |v: &Option<Located<f32>>, name: &str, lo: f32, hi: f32, default: f32| {
        super::components::in_range(v, lo..=hi, default)
            .map_err(|x| x.error(file, format!("sound '{id}': '{name}' must be a number from {lo} to {hi}")))
    };
    let gain = ranged(&c.gain, "gain", 0.0, MAX_GAIN, 1.0)?;
    let pan = ranged(&c.pan, "pan", -1.0, 1.0, 0.0)?;
    let speed = ranged(&c.speed, "speed", MIN_SPEED, MAX_SPEED, 1.0)?;
    let group = match &c.group {
        Some(g) if g.value.is_empty() => return Err(g.error(file, format!("sound '{id}': 'group' must not be empty"))),
        Some(g) => g.value.clone(),
        None => "master".to_string(),
    };
    let spatial = match c.spatial {
        Some(true) => {
            let min = ranged(&c.min_distance, "min_distance", 0.0, MAX_DISTANCE, 1.0)?;
            let max = ranged(&c.max_distance, "max_distance", 0.0, MAX_DISTANCE, 100.0)?;
            if max <= min {
                let at = c.max_distance.as_ref().or(c.min_distance.as_ref());
                let msg = format!("sound '{id}': 'max_distance' ({max}) must be above 'min_distance' ({min})");
                return Err(match at {
                    Some(a) => a.error(file, msg),
                    None => c.id.error(file, msg),
                });
            }
            Some(Spatial { min_distance: min, max_distance: max })
        }
        _ => {
            if let Some(d) = c.min_distance.as_ref().or(c.max_distance.as_ref()) {
                let msg = format!("sound '{id}': distances apply only with \"spatial\": true");
                return Err(d.error(file, msg));
            }
            None
        }
    };
    let loopcount = match &c.loopcount {
        Some(n) if !(n.value >= 0.0 && n.value <= MAX_LOOPCOUNT as f32 && n.value.fract() == 0.0) => {
            let msg = format!("sound '{id}': 'loopcount' must be a whole number from 0 to {MAX_LOOPCOUNT}");
            return Err(n.error(file, msg));
        }
        Some(n) => n.value as u32,
        None => 0,
    };
    Ok(SoundSpec { sound, gain, pan, speed, looping: c.looping.unwrap_or(false), loopcount, group, spatial })
}
