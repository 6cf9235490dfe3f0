//! FFI endpoints of the `physics` namespace and of collision object properties
//! (`linear_velocity`, `angular_velocity`, `mass`, `linear_damping`, `angular_damping`) for
//! `go.get` / `go.set`. Lua side: `lua/physics.lua`.
use super::types::V4;
use super::{Ctx, put, slice, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
use crate::game::physics::joints::{JointProps, JointType};
use crate::game::physics::shapes::ShapeType;
use crate::game::physics::query::{self, MAX_PENDING_RAYS, MAX_RAY_RESULTS, RayRequest};
use crate::project::physics::{CollisionType, MAX_GROUPS};
use crate::scene::{ComponentRef, Url};
use crate::script::boundary::{OK, fail};

/// Floats per hit in `physics_raycast`'s out array: fraction, position xyz, normal xyz.
pub const RAY_FLOATS: u32 = 7;

/// The `which` of `physics_prop_get`/`physics_prop_set`.
pub mod which {
    pub const LINEAR_VELOCITY: i32 = 0;
    pub const ANGULAR_VELOCITY: i32 = 1;
    pub const MASS: i32 = 2;
    pub const LINEAR_DAMPING: i32 = 3;
    pub const ANGULAR_DAMPING: i32 = 4;
}

/// The collision object of a component, or Defold's message naming it.
fn body_of(w: &World, slot: u32, comp: Hash) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::CollisionObject(i)) if w.physics.get(i).is_some() => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

fn finite(v: &[f32]) -> Result<(), String> {
    if v.iter().all(|x| x.is_finite()) { Ok(()) } else { Err("the value must be finite".into()) }
}

/// Floats in the property list of the joint functions (`JointProps::NAMES`' order).
pub const JOINT_PROPS: u32 = JointProps::COUNT as u32;

/// The first collision object of a joint and the second, or the error naming the one missing.
fn joint_bodies(w: &World, (sa, ca): (u32, u64), (sb, cb): (u32, u64)) -> Result<(u32, u32), String> {
    Ok((body_of(w, sa, ca)?, body_of(w, sb, cb)?))
}

/// `n` property floats (NaN: not given) from a Lua buffer.
///
/// # Safety
/// `p` is null or points at `n` floats.
unsafe fn props(p: *const f32, n: u32) -> Result<JointProps, String> {
    if n != JOINT_PROPS {
        return Err(format!("a joint has {JOINT_PROPS} properties, got {n}"));
    }
    // SAFETY: the caller's promise.
    let v = unsafe { slice(p, n as usize) };
    let mut out = JointProps([f32::NAN; JointProps::COUNT]);
    for (slot, x) in out.0.iter_mut().zip(v) {
        *slot = *x;
    }
    Ok(out)
}


crate::export! {
    /// Reads a collision object property as 4 floats (vectors with w = 0, numbers in x).
    fn physics_prop_get(ctx: Ctx, slot: u32, comp: u64, which: i32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let i = match body_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let s = w.physics.settings.scale;
            let Some((world, h)) = w.physics.world_of(i) else {
                return fail("the collision object was deleted".into());
            };
            let (Some((linear, angular)), Some((linear_damping, angular_damping))) = (world.velocity(h), world.damping(h))
            else {
                return fail("the collision object was deleted".into());
            };
            let v = match which {
                which::LINEAR_VELOCITY => (linear / s).extend(0.0).to_array(),
                which::ANGULAR_VELOCITY => angular.extend(0.0).to_array(),
                which::MASS => [w.physics.mass(i).unwrap_or(0.0), 0.0, 0.0, 0.0],
                which::LINEAR_DAMPING => [linear_damping, 0.0, 0.0, 0.0],
                which::ANGULAR_DAMPING => [angular_damping, 0.0, 0.0, 0.0],
                _ => return fail(format!("no collision object property {which}")),
            };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: v[0], y: v[1], z: v[2], w: v[3] }) }
        })
    }

    /// Sets a collision object property (`mass` is read-only, as in Defold); a velocity of a
    /// body that is not dynamic is ignored.
    fn physics_prop_set(ctx: Ctx, slot: u32, comp: u64, which: i32, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| {
            let i = match body_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            if let Err(e) = finite(&[x, y, z]) {
                return fail(e);
            }
            let s = w.physics.settings.scale;
            let dynamic = w.physics.get(i).is_some_and(|b| b.ty == CollisionType::Dynamic);
            let Some((world, h)) = w.physics.world_of_mut(i) else {
                return fail("the collision object was deleted".into());
            };
            let v = glam::Vec3::new(x, y, z);
            match which {
                which::LINEAR_VELOCITY if dynamic => world.set_linear_velocity(h, v * s),
                which::ANGULAR_VELOCITY if dynamic => world.set_angular_velocity(h, v),
                which::LINEAR_VELOCITY | which::ANGULAR_VELOCITY => {}
                which::LINEAR_DAMPING | which::ANGULAR_DAMPING
                    if !(0.0..=crate::project::physics::MAX_DAMPING).contains(&x) =>
                {
                    return fail(format!("damping must be between 0 and {}", crate::project::physics::MAX_DAMPING));
                }
                which::LINEAR_DAMPING => world.set_damping(h, Some(x), None),
                which::ANGULAR_DAMPING => world.set_damping(h, None, Some(x)),
                which::MASS => return fail("the property 'mass' can only be read".into()),
                _ => return fail(format!("no collision object property {which}")),
            }
            OK
        })
    }

    /// `physics.update_mass`: a dynamic object's mass (kg, above 0), shared by its shapes as
    /// before; the body takes it at once.
    fn physics_update_mass(ctx: Ctx, slot: u32, comp: u64, mass: f32) -> i32 {
        if !(mass.is_finite() && mass > 0.0) {
            return fail(format!("the mass must be a number above 0 (got {mass})"));
        }
        world_status(ctx, |w| {
            let i = match body_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            if !w.physics.get(i).is_some_and(|b| b.ty == CollisionType::Dynamic) {
                return fail("only a dynamic collision object has a mass to update".into());
            }
            let Some((world, h)) = w.physics.world_of_mut(i) else {
                return fail("the collision object was deleted".into());
            };
            world.set_mass(h, mass);
            OK
        })
    }

    /// Casts a ray against the objects of the `n` groups at `groups` (hashes); writes up to
    /// `cap` hits nearest first ([`RAY_FLOATS`] floats and 2 hashes, id and group, each) and
    /// returns how many, -1 on error.
    fn physics_raycast(
        ctx: Ctx,
        socket: u64,
        from: *const V4,
        to: *const V4,
        groups: *const u64,
        n: u32,
        all: i32,
        floats: *mut f32,
        hashes: *mut u64,
        cap: u32,
    ) -> i32 {
        let mut count = -1;
        let rc = world_status(ctx, |w| {
            // SAFETY: each pointer is null or a Lua-side buffer of the size given beside it.
            let (from, to) = unsafe { (from.as_ref(), to.as_ref()) };
            let (Some(from), Some(to)) = (from, to) else { return fail("null ray end".into()) };
            if n as usize > MAX_GROUPS * 4 || cap as usize > MAX_RAY_RESULTS || floats.is_null() || hashes.is_null() {
                return fail("bad ray cast buffers".into());
            }
            // SAFETY: as above.
            let groups = unsafe { slice(groups, n as usize) };
            let World { physics, scene, socket: main, .. } = w;
            let world = if socket == *main { 0 } else { socket };
            let mask = query::mask_of(physics, groups);
            let hits =
                query::raycast(physics, scene, world, [from.x, from.y, from.z], [to.x, to.y, to.z], mask, all != 0);
            let k = hits.len().min(cap as usize);
            for (j, h) in hits.iter().take(k).enumerate() {
                let f = [h.fraction, h.position[0], h.position[1], h.position[2], h.normal[0], h.normal[1], h.normal[2]];
                // SAFETY: `floats` holds `cap` × RAY_FLOATS floats and `hashes` `cap` × 2 (checked non-null).
                unsafe {
                    std::ptr::copy_nonoverlapping(f.as_ptr(), floats.add(j * RAY_FLOATS as usize), f.len());
                    *hashes.add(j * 2) = h.id;
                    *hashes.add(j * 2 + 1) = h.group;
                }
            }
            count = k as i32;
            OK
        });
        if rc == OK { count } else { -1 }
    }

    /// Queues a ray cast answered after the next step to the script at `socket:path#fragment`.
    fn physics_raycast_async(
        ctx: Ctx,
        from: *const V4,
        to: *const V4,
        groups: *const u64,
        n: u32,
        request_id: u32,
        socket: u64,
        path: u64,
        fragment: u64,
    ) -> i32 {
        world_status(ctx, |w| {
            // SAFETY: each pointer is null or a Lua-side value or buffer of the size given beside it.
            let (from, to) = unsafe { (from.as_ref(), to.as_ref()) };
            let (Some(from), Some(to)) = (from, to) else { return fail("null ray end".into()) };
            if n as usize > MAX_GROUPS * 4 {
                return fail("too many groups".into());
            }
            if w.physics.rays.len() >= MAX_PENDING_RAYS {
                return fail(format!("more than {MAX_PENDING_RAYS} ray casts waiting for the next step"));
            }
            // SAFETY: as above.
            let groups = unsafe { slice(groups, n as usize) };
            let mask = query::mask_of(&w.physics, groups);
            w.physics.rays.push(RayRequest {
                from: [from.x, from.y, from.z],
                to: [to.x, to.y, to.z],
                mask,
                request_id,
                reply_to: Url { socket, path, fragment },
            });
            OK
        })
    }

    /// The gravity of the caller's world (`socket`: its URL socket).
    fn physics_gravity_get(ctx: Ctx, socket: u64, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let g = w.physics.gravity(if socket == w.socket { 0 } else { socket });
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: g[0], y: g[1], z: g[2], w: 0.0 }) }
        })
    }

    fn physics_gravity_set(ctx: Ctx, socket: u64, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| {
            if let Err(e) = finite(&[x, y, z]) {
                return fail(e);
            }
            let world = if socket == w.socket { 0 } else { socket };
            w.physics.set_gravity(world, [x, y, z]);
            OK
        })
    }

    /// `physics.set_event_listener` of script instance `script` in the world of URL socket
    /// `socket`; `callback` 0 removes the listener.
    fn physics_event_listener(ctx: Ctx, socket: u64, script: u32, callback: u32) -> i32 {
        world_status(ctx, |w| {
            let world = if socket == w.socket { 0 } else { socket };
            let listener = (callback != 0).then_some(crate::game::ScriptCallback { script, callback });
            w.physics.set_listener(world, listener);
            OK
        })
    }

    fn physics_group_get(ctx: Ctx, slot: u32, comp: u64, out: *mut u64) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) => {
                let g = w.physics.get(i).map_or(0, |b| w.physics.groups.get(b.group as usize).copied().unwrap_or(0));
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, g) }
            }
            Err(e) => fail(e),
        })
    }

    fn physics_group_set(ctx: Ctx, slot: u32, comp: u64, group: u64) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) if w.physics.set_group(i, group) => OK,
            Ok(_) => fail(format!("the group '{}' is one more than the {MAX_GROUPS} a world can hold", name_of(group))),
            Err(e) => fail(e),
        })
    }

    /// Whether the object's mask holds `group` (0 or 1 through `out`).
    fn physics_maskbit_get(ctx: Ctx, slot: u32, comp: u64, group: u64, out: *mut i32) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) => {
                let bit = w.physics.groups.iter().position(|&g| g == group);
                let on = match (bit, w.physics.get(i)) {
                    (Some(bit), Some(b)) => i32::from(b.mask & (1 << bit) != 0),
                    _ => 0,
                };
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, on) }
            }
            Err(e) => fail(e),
        })
    }

    fn physics_maskbit_set(ctx: Ctx, slot: u32, comp: u64, group: u64, on: i32) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) if w.physics.set_mask_bit(i, group, on != 0) => OK,
            Ok(_) => fail(format!("the group '{}' is one more than the {MAX_GROUPS} a world can hold", name_of(group))),
            Err(e) => fail(e),
        })
    }

    /// `physics.set_hflip` (`axis` 0) and `set_vflip` (1).
    fn physics_flip(ctx: Ctx, slot: u32, comp: u64, axis: u32, on: i32) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) => match w.physics.set_flip(i, (axis as usize).min(1), on != 0) {
                Ok(()) => OK,
                Err(e) => fail(e),
            },
            Err(e) => fail(e),
        })
    }

    fn physics_wakeup(ctx: Ctx, slot: u32, comp: u64) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp) {
            Ok(i) => {
                if let Some((world, h)) = w.physics.world_of_mut(i) {
                    world.wake_up(h);
                }
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// `physics.create_joint(type, a, id, anchor_a, b, anchor_b, properties)`.
    fn physics_joint_create(
        ctx: Ctx,
        ty: u32,
        slot_a: u32,
        comp_a: u64,
        id: u64,
        anchor_a: *const V4,
        slot_b: u32,
        comp_b: u64,
        anchor_b: *const V4,
        values: *const f32,
        n: u32,
    ) -> i32 {
        world_status(ctx, |w| {
            let Some(ty) = JointType::from_index(ty) else { return fail(format!("unknown joint type {ty}")) };
            // SAFETY: each pointer is null or a cdata / buffer the Lua wrapper made for this call.
            let (pa, pb) = unsafe { (anchor_a.as_ref(), anchor_b.as_ref()) };
            let (Some(pa), Some(pb)) = (pa, pb) else { return fail("null anchor".into()) };
            // SAFETY: as above.
            let p = match unsafe { props(values, n) } {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            let r = joint_bodies(w, (slot_a, comp_a), (slot_b, comp_b))
                .and_then(|(a, b)| w.physics.create_joint(ty, (a, id), [pa.x, pa.y, pa.z], b, [pb.x, pb.y, pb.z], p));
            match r {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    fn physics_joint_destroy(ctx: Ctx, slot: u32, comp: u64, id: u64) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp).and_then(|a| w.physics.destroy_joint(a, id)) {
            Ok(()) => OK,
            Err(e) => fail(e),
        })
    }

    /// Writes the joint's properties ([`JOINT_PROPS`] floats) and its type.
    fn physics_joint_get(ctx: Ctx, slot: u32, comp: u64, id: u64, out: *mut f32, n: u32, ty: *mut i32) -> i32 {
        world_status(ctx, |w| {
            if n != JOINT_PROPS || out.is_null() {
                return fail(format!("a joint has {JOINT_PROPS} properties"));
            }
            match body_of(w, slot, comp).and_then(|a| w.physics.joint_properties(a, id)) {
                Ok((t, p)) => {
                    // SAFETY: `out` holds `n` floats (checked non-null), `ty` is null or a cdata.
                    unsafe {
                        std::ptr::copy_nonoverlapping(p.0.as_ptr(), out, p.0.len());
                        put(ty, t as i32)
                    }
                }
                Err(e) => fail(e),
            }
        })
    }

    fn physics_joint_set(ctx: Ctx, slot: u32, comp: u64, id: u64, values: *const f32, n: u32) -> i32 {
        world_status(ctx, |w| {
            // SAFETY: `values` is null or `n` floats of a Lua buffer.
            let p = match unsafe { props(values, n) } {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            match body_of(w, slot, comp).and_then(|a| w.physics.set_joint_properties(a, id, p)) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// The reaction force (xyz) and torque (w) of the last step.
    fn physics_joint_reaction(ctx: Ctx, slot: u32, comp: u64, id: u64, out: *mut V4) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp).and_then(|a| w.physics.joint_reaction(a, id)) {
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            Ok((f, t)) => unsafe { put(out, V4 { x: f[0], y: f[1], z: f[2], w: t }) },
            Err(e) => fail(e),
        })
    }

    /// `physics.get_shape`: the shape's `physics.SHAPE_TYPE_*` value and its sizes in `out`'s
    /// x, y, z (`Physics::shape`).
    fn physics_shape_get(ctx: Ctx, slot: u32, comp: u64, id: u64, out: *mut V4, ty: *mut i32) -> i32 {
        world_status(ctx, |w| match body_of(w, slot, comp).and_then(|i| w.physics.shape(i, id)) {
            // SAFETY: both out-pointers are null or cdata the Lua wrapper made for this call.
            Ok((t, s)) => unsafe {
                put(ty, t as i32);
                put(out, V4 { x: s[0], y: s[1], z: s[2], w: 0.0 })
            },
            Err(e) => fail(e),
        })
    }

    /// `physics.set_shape`: kind `ty` (`physics.SHAPE_TYPE_*`) with the sizes in `sizes`' x, y, z.
    fn physics_shape_set(ctx: Ctx, slot: u32, comp: u64, id: u64, ty: i32, sizes: *const V4) -> i32 {
        world_status(ctx, |w| {
            let Some(ty) = ShapeType::from_index(ty) else { return fail(format!("unknown shape type {ty}")) };
            // SAFETY: null or a cdata the Lua wrapper made for this call.
            let Some(v) = (unsafe { sizes.as_ref() }) else { return fail("null sizes".into()) };
            match body_of(w, slot, comp).and_then(|i| w.physics.set_shape(i, id, ty, [v.x, v.y, v.z])) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }
}
