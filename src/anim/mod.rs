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

pub use clip::{Clip, SamplingCache};
pub use player::{Completion, ModelPlayer, PoseScratch};
pub use property::GoProperty;
pub use skeleton::{RigError, Skeleton};
pub use target::Target;
pub use transform::Transform;
pub use tween::{AnimError, Done, Easing, Element, Key, MAX_TWEENS, Playback, Spec, TweenWorld};
