//! Property animation (`go.animate`): easing curves and the tween world. Sits between `scene`
//! (whose transforms it writes) and `game` (which runs it once per frame); script properties are
//! reached through value cells that the script layer copies in and out.
pub mod easing;
pub mod morph;
pub mod property;
pub mod target;
#[cfg(test)]
mod tests;
pub mod tween;

pub use property::GoProperty;
pub use target::Target;
pub use tween::{AnimError, Done, Easing, Element, Key, MAX_TWEENS, Playback, Spec, TweenWorld};
