//! Game objects in flat arrays, their transforms, URLs and the message queue.
pub mod message;
pub mod objects;
pub mod url;

pub use message::{Message, MessageQueue};
/// TEMP: `src/app` and `src/script` still use the old name of [`ComponentRef`]; renamed there,
/// this goes.
pub use objects::ComponentRef as ComponentKind;
pub use objects::{BoneDriver, BoneStream, Component, ComponentRef, NONE, Scene, TransformView};
pub use url::Url;
