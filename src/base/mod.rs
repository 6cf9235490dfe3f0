//! Foundation shared by every layer: Defold-compatible hashing, Euler angles and quaternions from files,
//! resource paths, errors, logging,
//! bit sets, numbers in a file's bytes.
pub mod bits;
pub mod bytes;
pub mod error;
pub mod euler;
pub mod hash;
pub mod log;
pub mod parallel;
pub mod path;
pub mod prefetch;
pub mod quat;

pub use hash::{Hash, hash_str};
