//! Skeletal and morph animation of model components, one idea a file: the rig (skeleton and clip
//! set) built once per model file set (`rig`), the per-instance state and its pose (`state`,
//! with script posing of the bones in `bone_pose`), the per-frame pass that samples, blends,
//! computes palettes, writes morph weights and moves bone game objects (`pass`), what an
//! instance gets when it is made (`setup`) and rig hot reload (`reload`).
//!
//! Imports go one way: `state` uses `rig` and `bone_pose`; `model_world` holds rigs and states;
//! `pass`, `setup` and `reload` work on the world. Nothing that a world holds knows the code that
//! works on it, so no two files import each other.
pub mod bone_pose;
pub mod pass;
pub mod reload;
pub mod rig;
pub mod setup;
pub mod state;

pub use pass::{EventReport, Finished, Report, animate, ready};
pub use reload::{rebuild_rigs, reload_model_file};
pub use rig::{ClipEvents, Rig, RigExtras, unmatched_channels};
pub use setup::{create_bones, start_default};
pub use state::{AnimState, BoneEdits, EventHit, IkState, IkTarget, LayerSlot, Listener, PoseBuffers};
