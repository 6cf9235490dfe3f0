//! Game objects in flat arrays, their transforms, URLs and the message queue.
pub mod message;
pub mod objects;
pub mod url;

pub use message::{Message, MessageQueue};
pub use objects::{BoneDriver, BoneStream, Component, ComponentRef, NONE, Scene, TransformView};
pub use url::Url;
