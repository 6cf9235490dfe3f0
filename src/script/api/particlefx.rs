//! FFI endpoints of the `particlefx` namespace (docs/particles.md). Lua side: `lua/particlefx.lua`,
//! which checks the arguments and names the function in its errors.
use super::{Ctx, with_world, world_status};
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

    /// 1 when `name` (hashed) is an emitter property (`go.get`/`go.set` with the emitter as key),
    /// else 0: the property names live here only.
    fn particlefx_prop_known(name: u64) -> i32 {
        i32::from(which(name).is_some())
    }

    /// An emitter's `image`, `animation` or `material` (`name`, hashed) as a hash; 0 with the
    /// message in `last_error`.
    fn particlefx_prop_get(ctx: Ctx, slot: u32, comp: u64, name: u64, emitter: u64) -> u64 {
        with_world(ctx, |w| {
            let i = match effects_of(w, slot, comp).map(|all| all.first().copied()) {
                Ok(Some(i)) => i,
                Ok(None) => return fail_zero("the object has no particle effect".into()),
                Err(e) => return fail_zero(e),
            };
            let Some((image, animation, material)) = w.particles.look_of(i, emitter) else {
                return fail_zero(format!("no emitter '{}'", name_of(emitter)));
            };
            match which(name) {
                Some(Which::Image) => image,
                Some(Which::Animation) => animation,
                Some(Which::Material) => material,
                None => fail_zero(format!("no emitter property '{}'", name_of(name))),
            }
        })
        .unwrap_or(0)
    }

    /// Sets an emitter's `image` (an atlas or tile source's path hash), `animation` (a flipbook
    /// id) or `material` (a material's path hash) for this component.
    fn particlefx_prop_set(ctx: Ctx, slot: u32, comp: u64, name: u64, emitter: u64, value: u64) -> i32 {
        world_status(ctx, |w| {
            let all = match effects_of(w, slot, comp) {
                Ok(all) => all,
                Err(e) => return fail(e),
            };
            for i in all {
                let r = match which(name) {
                    Some(Which::Image) => super::sprite::find_image(w, value, "go.set: argument 3 (image)").and_then(|a| {
                        let index = w.sprites.atlas_index(&a);
                        w.particles.set_image(i, emitter, &a, index)
                    }),
                    Some(Which::Animation) => w.particles.set_animation(i, emitter, value),
                    Some(Which::Material) => {
                        let path = crate::base::hash::text_of(value).unwrap_or_default();
                        let path = path.strip_suffix('c').filter(|p| p.ends_with(".material")).unwrap_or(&path).to_string();
                        let res = w.factories.res.clone();
                        let referrer = w.scene.ids.get(slot as usize).map(|&h| name_of(h)).unwrap_or_default();
                        crate::game::spawn::custom_particle_material(&mut w.models, res.as_ref(), &path, &referrer)
                            .map_err(|e| format!("go.set: argument 3 (material): {e}"))
                            .and_then(|index| w.particles.set_material(i, emitter, value, index))
                    }
                    None => Err(format!("no emitter property '{}'", name_of(name))),
                };
                if let Err(e) = r {
                    return fail(e);
                }
            }
            OK
        })
    }
}

enum Which {
    Image,
    Animation,
    Material,
}

fn which(name: Hash) -> Option<Which> {
    use crate::base::hash::hash_str;
    if name == hash_str("image") {
        Some(Which::Image)
    } else if name == hash_str("animation") {
        Some(Which::Animation)
    } else if name == hash_str("material") {
        Some(Which::Material)
    } else {
        None
    }
}

fn fail_zero(e: String) -> u64 {
    fail(e);
    0
}
