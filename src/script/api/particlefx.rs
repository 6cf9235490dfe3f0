//! FFI endpoints of the `particlefx` namespace (docs/particles.md). Lua side: `lua/particlefx.lua`,
//! which checks the arguments and names the function in its errors.
use super::{Ctx, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
use crate::game::particles::Listener;
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};

/// The particle effect instances a URL names: its component, or with no component (`comp` 0)
/// every particle effect of the object, as Defold's play and stop messages reach every component
/// of an object they are sent to. Defold's message when there is none.
fn effects_of(w: &World, slot: u32, comp: Hash) -> Result<Vec<u32>, String> {
    let comps = w.scene.components.get(slot as usize).map(|c| c.as_slice()).unwrap_or(&[]);
    let found: Vec<u32> = comps
        .iter()
        .filter(|c| comp == 0 || c.id == comp)
        .filter_map(|c| match c.kind {
            ComponentRef::ParticleFx(i) if w.particles.get(i).is_some() => Some(i),
            _ => None,
        })
        .collect();
    if found.is_empty() && comp != 0 {
        return Err(format!("the component '{}' could not be found", name_of(comp)));
    }
    Ok(found)
}

crate::export! {
    /// Starts every emitter of a component (after its start delay); `comp` 0: of every particle
    /// effect of the object.
    /// `script`, `callback`: the caller's instance and the id of its emitter state function
    /// (0: none).
    fn particlefx_play(ctx: Ctx, slot: u32, comp: u64, script: u32, callback: u32) -> i32 {
        world_status(ctx, |w| match effects_of(w, slot, comp) {
            Ok(all) => {
                let listener = (callback != 0).then_some(Listener { script, callback });
                for i in all {
                    w.particles.play(i, listener);
                }
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Stops spawning (`clear` 1: and removes the living particles).
    fn particlefx_stop(ctx: Ctx, slot: u32, comp: u64, clear: i32) -> i32 {
        world_status(ctx, |w| match effects_of(w, slot, comp) {
            Ok(all) => {
                for i in all {
                    w.particles.stop(i, clear != 0);
                }
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Sets (`set` 1) or resets (0) a constant of one emitter of a component (or of every
    /// effect of the object, `comp` 0). The built-in particle program has one, `tint`.
    fn particlefx_constant(ctx: Ctx, slot: u32, comp: u64, emitter: u64, name: u64, set: i32, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        world_status(ctx, |w| {
            if name != crate::base::hash::hash_str("tint") {
                return fail(format!(
                    "no constant '{}' (the built-in particle material has `tint`; custom particle materials are not supported yet)",
                    name_of(name)
                ));
            }
            if ![x, y, z, vw].iter().all(|v| v.is_finite()) {
                return fail("the value must be finite".into());
            }
            match effects_of(w, slot, comp) {
                Ok(all) => {
                    let mut found = false;
                    for i in all {
                        found |= w.particles.set_tint(i, emitter, (set != 0).then_some([x, y, z, vw]));
                    }
                    if found { OK } else { fail(format!("no emitter '{}'", name_of(emitter))) }
                }
                Err(e) => fail(e),
            }
        })
    }
}
