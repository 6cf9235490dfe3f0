//! FFI endpoints of sprite-component properties for `go.get` / `go.set` / `go.animate` (`tint`,
//! `size`, `scale`, `cursor`, `playback_rate`, and the read-only `animation` and `image`). The
//! `sprite.*` functions post messages (as Defold's do) and need no endpoint. Lua side:
//! `lua/sprite.lua`.
use super::types::V4;
use super::{Ctx, put, world_status};
use crate::base::hash::{Hash, hash_remembered, name_of};
use crate::game::World;
use crate::project::sprite::SizeMode;
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};

/// The atlas or tile source whose path (Defold's built `.atlasc`/`.tilesourcec` name too) the
/// hash was made from, loaded from the project: `None` when the hash's text is unknown or names
/// no such file type.
fn load_image(w: &World, value: Hash) -> Result<Option<std::sync::Arc<crate::project::sprite::Atlas>>, String> {
    let Some(text) = crate::base::hash::text_of(value) else { return Ok(None) };
    let is_image = |p: &str| p.ends_with(".atlas") || p.ends_with(".tilesource");
    let path = text.strip_suffix('c').filter(|p| is_image(p)).unwrap_or(&text);
    let Some(res) = w.factories.res.as_ref().filter(|_| is_image(path)) else { return Ok(None) };
    let atlas = crate::project::sprite::load_atlas(res, path).map_err(|e| e.to_string())?;
    Ok(Some(std::sync::Arc::new(atlas)))
}

/// The atlas or tile source whose path hashes to `value`: one the game drew with already, else
/// loaded now; the message lists the loaded ones when it is none. `what` names the argument.
pub(crate) fn find_image(w: &World, value: Hash, what: &str) -> Result<std::sync::Arc<crate::project::sprite::Atlas>, String> {
    if let Some(a) = w.sprites.atlases.iter().find(|a| hash_remembered(&a.source) == value) {
        return Ok(a.clone());
    }
    match load_image(w, value) {
        Ok(Some(a)) => Ok(a),
        Err(e) => Err(format!("{what}: {e}")),
        Ok(None) => {
            let loaded: Vec<&str> = w.sprites.atlases.iter().map(|a| a.source.as_str()).collect();
            Err(format!(
                "{what}: '{}' is not an atlas or tile source the game has loaded (loaded: {})",
                name_of(value),
                loaded.join(", ")
            ))
        }
    }
}

fn sprite_of(w: &World, slot: u32, comp: Hash) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Sprite(i)) if w.sprites.get(i).is_some() => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// Property names as hashes, so Lua passes what it already has and no table of numbers needs
/// keeping in step.
struct Names {
    tint: Hash,
    size: Hash,
    scale: Hash,
    cursor: Hash,
    playback_rate: Hash,
    animation: Hash,
    image: Hash,
    slice9: Hash,
    /// The texture of the sprite's atlas page (Defold's sampler property, read only here):
    /// `resource.set_texture` on it draws into what the sprite shows.
    texture0: Hash,
}

fn names() -> &'static Names {
    static N: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    N.get_or_init(|| Names {
        tint: hash_remembered("tint"),
        size: hash_remembered("size"),
        scale: hash_remembered("scale"),
        cursor: hash_remembered("cursor"),
        playback_rate: hash_remembered("playback_rate"),
        animation: hash_remembered("animation"),
        image: hash_remembered("image"),
        slice9: hash_remembered("slice9"),
        texture0: hash_remembered("texture0"),
    })
}

/// A constant of the sprite's custom material: the sprite's own value, else the material's.
fn constant(w: &World, s: &crate::game::sprites::SpriteInstance, name: Hash) -> Option<[f32; 4]> {
    if let Some((_, v)) = s.constants.iter().find(|(h, _)| *h == name) {
        return Some(*v);
    }
    let m = w.models.materials.get(s.material_index? as usize)?;
    m.constants.iter().find(|(h, _, _)| *h == name).map(|(_, _, v)| *v)
}

/// Whether the sprite's custom material lists constant `name` (the built-in program has only
/// `tint`, which is a property of its own).
fn declares(models: &crate::game::model_world::ModelWorld, s: &crate::game::sprites::SpriteInstance, name: Hash) -> bool {
    s.material_index
        .and_then(|m| models.materials.get(m as usize))
        .is_some_and(|m| m.constants.iter().any(|(h, _, _)| *h == name))
}

crate::export! {
    /// Reads a vector (`tint`, `size`, `scale`) or number (`cursor`, `playback_rate`, in x)
    /// property of a sprite.
    fn sprite_prop_get(ctx: Ctx, slot: u32, comp: u64, name: u64, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let n = names();
            let cursor = w.sprites.cursor(i).unwrap_or(0.0);
            let Some(s) = w.sprites.get(i) else { return fail("the sprite was deleted".into()) };
            let v = if name == n.tint {
                s.tint
            } else if name == n.size {
                let [x, y] = s.size();
                [x, y, 0.0, 0.0]
            } else if name == n.scale {
                [s.scale[0], s.scale[1], s.scale[2], 0.0]
            } else if name == n.cursor {
                [cursor, 0.0, 0.0, 0.0]
            } else if name == n.playback_rate {
                [s.clock.rate, 0.0, 0.0, 0.0]
            } else if name == n.slice9 {
                s.slice9
            } else if let Some(v) = constant(w, s, name) {
                v
            } else {
                return fail(format!("a sprite has no property '{}'", name_of(name)));
            };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: v[0], y: v[1], z: v[2], w: v[3] }) }
        })
    }

    /// Sets a property `sprite_prop_get` reads. Setting `size` makes the sprite's size manual.
    fn sprite_prop_set(ctx: Ctx, slot: u32, comp: u64, name: u64, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        if ![x, y, z, vw].iter().all(|v| v.is_finite()) {
            return fail(format!("the property '{}' must be finite", name_of(name)));
        }
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let n = names();
            if name == n.cursor {
                w.sprites.set_cursor(i, x);
                return OK;
            }
            let Some(s) = w.sprites.get_mut(i) else { return fail("the sprite was deleted".into()) };
            if name == n.tint {
                s.tint = [x, y, z, vw];
            } else if name == n.size {
                s.size = [x.max(0.0), y.max(0.0)];
                s.size_mode = SizeMode::Manual;
            } else if name == n.scale {
                s.scale = [x, y, z];
            } else if name == n.playback_rate {
                s.clock.rate = x.max(0.0);
            } else if name == n.slice9 {
                s.slice9 = [x.max(0.0), y.max(0.0), z.max(0.0), vw.max(0.0)];
            } else if declares(&w.models, s, name) {
                let v = [x, y, z, vw];
                match s.constants.iter_mut().find(|(h, _)| *h == name) {
                    Some(c) => c.1 = v,
                    None => s.constants.push((name, v)),
                }
            } else {
                return fail(format!("a sprite has no property '{}'", name_of(name)));
            }
            OK
        })
    }

    /// `sprite.set_constant` (`set` = 1: `tint` or a constant of the sprite's material to the
    /// value) and `sprite.reset_constant` (`set` = 0: `tint` back to white, a constant back to
    /// the material's own value).
    fn sprite_constant(ctx: Ctx, slot: u32, comp: u64, name: u64, set: i32, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        if ![x, y, z, vw].iter().all(|v| v.is_finite()) {
            return fail(format!("the constant '{}' must be finite", name_of(name)));
        }
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let Some(s) = w.sprites.get_mut(i) else { return fail("the sprite was deleted".into()) };
            let v = [x, y, z, vw];
            if name == names().tint {
                s.tint = if set != 0 { v } else { [1.0; 4] };
            } else if declares(&w.models, s, name) {
                s.constants.retain(|(h, _)| *h != name);
                if set != 0 {
                    s.constants.push((name, v));
                }
            } else {
                return fail(format!("the sprite's material has no constant '{}'", name_of(name)));
            }
            OK
        })
    }

    /// Whether `name` is a constant of the sprite's custom material (go.get/go.set treat it as
    /// a vector4 property, as Defold's `SetMaterialConstant` fallback does): 1 yes, 0 no.
    fn sprite_has_constant(ctx: Ctx, slot: u32, comp: u64, name: u64, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let yes = w.sprites.get(i).is_some_and(|s| declares(&w.models, s, name));
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, u32::from(yes)) }
        })
    }

    /// Sets the `image` of a sprite to the atlas or tile source whose path hashes to `value`
    /// (`resource.atlas(path)`, `hash(path)`). One no sprite has used yet is loaded now (Defold
    /// loads a script's resource properties with the script); a hash whose text is unknown, or
    /// a path that is no atlas or tile source, is refused, listing the loaded ones.
    fn sprite_image_set(ctx: Ctx, slot: u32, comp: u64, value: u64) -> i32 {
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let atlas = match find_image(w, value, "go.set: argument 3 (image)") {
                Ok(a) => a,
                Err(e) => return fail(e),
            };
            match w.sprites.set_image(i, &atlas) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// The `animation` (the flipbook's id) or `image` (the atlas's path) of a sprite, as a hash;
    /// 0 with the message in `last_error`.
    fn sprite_hash_get(ctx: Ctx, slot: u32, comp: u64, name: u64) -> u64 {
        let mut out = 0;
        world_status(ctx, |w| {
            let i = match sprite_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let Some(s) = w.sprites.get(i) else { return fail("the sprite was deleted".into()) };
            if name == names().animation {
                out = s.animation_hash;
            } else if name == names().image {
                out = hash_remembered(&s.atlas.source);
            } else if name == names().texture0 {
                out = hash_remembered(&super::resource::page_of(w, &s.atlas));
            } else {
                return fail(format!("a sprite has no property '{}'", name_of(name)));
            }
            OK
        });
        out
    }
}
