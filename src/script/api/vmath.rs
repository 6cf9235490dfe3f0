//! `vmath.*` functions whose formula Rust already owns: the Euler conversion (`base::euler`) is
//! written once, for collections, tweens, `go.get/set` of `euler` and `vmath` alike.
use super::put;
use super::types::{Q4, V3};
use crate::base::euler;
use glam::{Quat, Vec3};

crate::export! {
    fn euler_to_quat(x: f32, y: f32, z: f32, out: *mut Q4) -> i32 {
        // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
        unsafe { put(out, euler::euler_to_quat(Vec3::new(x, y, z)).into()) }
    }

    fn quat_to_euler(x: f32, y: f32, z: f32, w: f32, out: *mut V3) -> i32 {
        // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
        unsafe { put(out, euler::quat_to_euler(Quat::from_xyzw(x, y, z, w)).into()) }
    }
}
