//! FFI endpoints of the `particlefx` namespace (docs/particles.md). Lua side: `lua/particlefx.lua`,
//! which checks the arguments and names the function in its errors.
use super::{Ctx, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
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
    fn particlefx_play(ctx: Ctx, slot: u32, comp: u64) -> i32 {
        world_status(ctx, |w| match effects_of(w, slot, comp) {
            Ok(all) => {
                for i in all {
                    w.particles.play(i);
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
}
