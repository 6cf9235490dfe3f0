//! Property animation (`go.animate`): easing curves and the tween world. Sits between `scene`
//! (whose transforms it writes) and `game` (which runs it once per frame); script properties are
//! reached through value cells that the script layer copies in and out.
//!
//! Skeletal and morph animation (`model.play_anim`): `skeleton`, `clip`, `player` and CPU
//! `skinning`, built once from imported `ModelData` and run on caller-owned buffers.
pub mod clip;
pub mod easing;
pub mod events;
pub mod ik;
#[cfg(test)]
mod layer_tests;
pub mod layers;
pub mod limits;
pub mod morph;
pub mod player;
pub mod property;
#[cfg(test)]
mod rig_tests;
pub mod skeleton;
pub mod skinning;
pub mod target;
#[cfg(test)]
mod tests;
pub mod transform;
pub mod tween;

/// Numbers in [0, 1) from a xorshift seeded with `seed`: the same every run, for the tests
/// that compare kernels over many random inputs.
#[cfg(test)]
pub(crate) fn test_random(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed >> 8) as f32 / (1u32 << 24) as f32
    }
}

pub use clip::{Clip, SamplingCache};
pub use player::{Completion, ModelPlayer, PoseScratch};
pub use property::GoProperty;
pub use skeleton::{RigError, Skeleton};
pub use target::Target;
pub use transform::Transform;
pub use tween::{AnimError, Done, Easing, Element, Key, MAX_TWEENS, Playback, Spec, TweenWorld};
