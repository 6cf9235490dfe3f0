//! `go.*`: transforms, world transforms, ids, hierarchy and deletion of game objects.
use super::types::{M4, Q4, V3};
use super::{Ctx, bytes, put, with_world, world_status};
use crate::base::hash::name_of;
use crate::game::World;
use crate::scene::NONE;
use crate::scene::url;
use crate::script::boundary::{OK, fail};
use glam::{Mat4, Quat, Vec3};

#[inline(always)]
fn live(w: &World, slot: u32) -> Result<usize, i32> {
    if w.scene.is_live(slot) { Ok(slot as usize) } else { Err(not_found(slot)) }
}

/// Out of line, so the hot path keeps no formatting code (and no register spills for it).
#[cold]
#[inline(never)]
fn not_found(slot: u32) -> i32 {
    fail(format!("Instance {slot} not found"))
}

// Setters take components, not a pointer: the vector a script passes then does not escape into C,
// so LuaJIT can sink its allocation (`local p = go.get_position(); p.x = …; go.set_position(p)`
// allocates nothing in a compiled trace).
/// `script_of`: the object has a component with that id, of another type than script.
pub const OTHER_COMPONENT: u32 = NONE - 1;

crate::export! {
    /// The scene's transform view (see `scene::TransformView`): fixed for the run, so Lua asks
    /// once. Null when the world is busy (never at start-up, when this is called).
    fn transform_view(ctx: Ctx) -> *const crate::scene::TransformView {
        with_world(ctx, |w| w.scene.transform_view()).unwrap_or(std::ptr::null())
    }

    fn get_position(ctx: Ctx, slot: u32, out: *mut V3) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle(s as u32);
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, w.scene.position[s].into()) }
        }))
    }

    fn get_rotation(ctx: Ctx, slot: u32, out: *mut Q4) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle(s as u32);
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, w.scene.rotation[s].into()) }
        }))
    }

    fn get_scale(ctx: Ctx, slot: u32, out: *mut V3) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle(s as u32);
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, w.scene.scale[s].into()) }
        }))
    }

    fn set_position(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle_for_write(s as u32);
            w.scene.position[s] = Vec3::new(x, y, z);
            OK
        }))
    }

    fn set_rotation(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32, qw: f32) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle_for_write(s as u32);
            w.scene.rotation[s] = Quat::from_xyzw(x, y, z, qw);
            OK
        }))
    }

    fn set_scale(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| live(w, slot).map_or_else(|e| e, |s| {
            w.scene.settle_for_write(s as u32);
            w.scene.scale[s] = Vec3::new(x, y, z);
            OK
        }))
    }

    /// `euler` as go.get reads it: the angles an Euler tween keeps, else from the rotation.
    fn get_euler(ctx: Ctx, slot: u32, out: *mut V3) -> i32 {
        world_status(ctx, |w| match live(w, slot) {
            Ok(_) => {
                let e = w.tweens.euler_of(&mut w.scene, slot);
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, e.into()) }
            }
            Err(e) => e,
        })
    }

    fn set_euler(ctx: Ctx, slot: u32, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| match live(w, slot) {
            Ok(_) => {
                w.tweens.set_euler(&mut w.scene, slot, Vec3::new(x, y, z));
                OK
            }
            Err(e) => e,
        })
    }

    /// World transform as position, rotation, scale and matrix (each pointer may be null), from
    /// the last transform update.
    fn get_world(ctx: Ctx, slot: u32, pos: *mut V3, rot: *mut Q4, scale: *mut V3, m: *mut M4) -> i32 {
        world_status(ctx, |w| match live(w, slot) {
            Ok(s) => {
                let a = w.scene.world_of(s as u32);
                let (sc, r, t) = a.to_scale_rotation_translation();
                let r = w.scene.world_rotation(s as u32, r);
                // SAFETY: each pointer is either null or a cdata of the right type from the wrapper.
                unsafe {
                    if let Some(p) = pos.as_mut() {
                        *p = t.into();
                    }
                    if let Some(p) = rot.as_mut() {
                        *p = r.into();
                    }
                    if let Some(p) = scale.as_mut() {
                        *p = sc.into();
                    }
                    if let Some(p) = m.as_mut() {
                        p.m = Mat4::from(a).to_cols_array();
                    }
                }
                OK
            }
            Err(e) => e,
        })
    }

    fn update_world_transform(ctx: Ctx, slot: u32) -> i32 {
        world_status(ctx, |w| match live(w, slot) {
            Ok(_) => {
                w.scene.update_world_transform_of(slot);
                OK
            }
            Err(e) => e,
        })
    }

    /// Hash of a relative or absolute id path as seen from `caller` (`go.get_id`).
    fn id_of_path(ctx: Ctx, caller: u32, s: *const std::ffi::c_char, n: usize) -> u64 {
        // SAFETY: `s` is null or `n` bytes of a Lua string the wrapper holds during this call.
        let text = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        with_world(ctx, |w| {
            let prefix = w
                .scene
                .prefix
                .get(caller as usize)
                .and_then(|&p| w.scene.prefixes.get(p as usize))
                .map_or("/", |s| s.as_str())
                .to_string();
            url::resolve_path(&text, &prefix)
        })
        .unwrap_or(0)
    }

    /// Slot of the object with this id, or `NONE`.
    fn find(ctx: Ctx, socket: u64, id: u64) -> u32 {
        with_world(ctx, |w| w.find_url(socket, id).unwrap_or(NONE))
            .unwrap_or(NONE)
    }

    /// Id hash of a slot (0 if dead).
    fn id_of(ctx: Ctx, slot: u32) -> u64 {
        with_world(ctx, |w| if w.scene.is_live(slot) { w.scene.ids[slot as usize] } else { 0 }).unwrap_or(0)
    }

    /// Script instance index of a component, `NONE` when the object has no script with that id,
    /// and [`OTHER_COMPONENT`] when it has a component of another type with that id.
    fn script_of(ctx: Ctx, slot: u32, comp: u64) -> u32 {
        with_world(ctx, |w| match w.scene.component(slot, comp).map(|c| c.kind) {
            Some(crate::scene::ComponentRef::Script(i)) => i,
            Some(_) => OTHER_COMPONENT,
            None => NONE,
        })
        .unwrap_or(NONE)
    }

    fn get_parent(ctx: Ctx, slot: u32) -> u32 {
        with_world(ctx, |w| if w.scene.is_live(slot) { w.scene.parent[slot as usize] } else { NONE }).unwrap_or(NONE)
    }

    /// Marks an object (and with `recursive` its descendants) for deletion at the end of the frame.
    fn delete(ctx: Ctx, slot: u32, recursive: i32) -> i32 {
        world_status(ctx, |w| {
            if !w.scene.is_live(slot) {
                return fail("Instance not found".into());
            }
            if w.models.is_bone(slot) {
                return fail(format!(
                    "Can not delete subinstances of spine or model components. '{}'",
                    name_of(w.scene.ids[slot as usize])
                ));
            }
            let mut stack = vec![slot];
            while let Some(s) = stack.pop() {
                w.scene.doomed[s as usize] = true;
                // A model's bone objects go with it, recursive or not.
                stack.extend(w.models.bones_of(s));
                if recursive != 0 {
                    stack.extend(w.scene.children(s).into_iter().filter(|c| !w.scene.doomed[*c as usize]));
                }
            }
            OK
        })
    }
}
