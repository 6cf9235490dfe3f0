//! FFI endpoints of the `model` namespace and of model-component properties (material constants
//! such as `tint`) read and written through `go.get` / `go.set`. Lua side: `lua/model.lua`.
use super::msg::write_str;
use super::types::{V3, V4};
use super::{Ctx, put, slice, with_world};
use crate::base::hash::{Hash, hash_remembered, name_of};
use crate::game::World;
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};
use std::ffi::c_char;

/// A status from `put` as the `Result` the closures here return (the message is already set).
fn ok(status: i32) -> Result<(), String> {
    if status == OK { Ok(()) } else { Err("null output pointer".into()) }
}

/// The model instance of a component, or a message naming what is missing.
fn model_of(w: &World, slot: u32, comp: Hash) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Model(i)) if w.models.instances.get(i as usize).is_some_and(|m| m.alive) => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// Runs `f` on the model world for one component; errors go to `last_error`.
fn with_model(ctx: Ctx, slot: u32, comp: Hash, f: impl FnOnce(&mut World, u32) -> Result<(), String>) -> i32 {
    with_world(ctx, |w| match model_of(w, slot, comp).and_then(|m| f(w, m)) {
        Ok(()) => OK,
        Err(e) => fail(e),
    })
    .unwrap_or_else(|| fail("game state is busy".into()))
}

/// Whether `mesh` names mesh `x`: Defold names a mesh by its glTF node; Sinew's own id (the glTF
/// mesh name, else the node's) is accepted too, as before.
fn names_mesh(data: &crate::project::model_data::ModelData, x: &crate::project::model_data::MeshData, mesh: Hash) -> bool {
    hash_remembered(&x.id) == mesh || data.nodes.get(x.node).is_some_and(|n| hash_remembered(&n.name) == mesh)
}

/// Index of the mesh with id `mesh` (its first mesh of that id), or an error naming both.
fn mesh_index(w: &World, m: u32, mesh: Hash) -> Result<usize, String> {
    let inst = &w.models.instances[m as usize];
    let data = &w.models.assets[inst.asset as usize].data;
    data.meshes
        .iter()
        .position(|x| names_mesh(data, x, mesh))
        .ok_or_else(|| format!("Component {} had no mesh with id {}", name_of(inst.id), name_of(mesh)))
}

/// The `which` of `model_anim_get`/`model_anim_set`: a property of a model's player.
pub mod player {
    pub const CURSOR: i32 = 0;
    pub const PLAYBACK_RATE: i32 = 1;
}

/// `component_kind`'s numbers, one per component type.
pub mod kind {
    pub const NONE: i32 = 0;
    pub const SCRIPT: i32 = 1;
    pub const MODEL: i32 = 2;
    pub const CAMERA: i32 = 3;
    pub const LIGHT: i32 = 4;
    pub const FACTORY: i32 = 5;
    pub const LABEL: i32 = 6;
    pub const SOUND: i32 = 7;
    pub const COLLISION_OBJECT: i32 = 8;
    pub const SPRITE: i32 = 9;
    pub const GUI: i32 = 10;
    pub const COLLECTION_PROXY: i32 = 11;
    pub const PARTICLEFX: i32 = 12;
    pub const TILEMAP: i32 = 13;
}

crate::export! {
    /// The names of a model's clips (", "-separated, cut at `cap` bytes) when it has none named
    /// `anim`; -1 when it has one, has no animations or is no model (the message then goes as
    /// usual). model.play_anim warns at the call, where it knows the script's file and line.
    fn model_unknown_clip(ctx: Ctx, slot: u32, comp: u64, anim: u64, buf: *mut c_char, cap: usize) -> i32 {
        with_world(ctx, |w| {
            let Ok(m) = model_of(w, slot, comp) else { return -1 };
            let Some(a) = w.models.instances.get(m as usize).and_then(|i| i.anim.as_ref()) else { return -1 };
            if a.rig.clip_index(anim).is_some() {
                return -1;
            }
            // SAFETY: `buf` is null or room for `cap` bytes of a Lua-side buffer.
            unsafe { write_str(&a.rig.clip_names.join(", "), buf, cap) }.min(i32::MAX as usize) as i32
        })
        .unwrap_or(-1)
    }

    /// The component's type as a [`kind`] number (`kind::NONE` when there is none).
    fn component_kind(ctx: Ctx, slot: u32, comp: u64) -> i32 {
        // A gui component's script is registered under the gui's id too: the id names the gui.
        let kind_of = |w: &World| {
            let comps = w.scene.components.get(slot as usize).map(|c| c.as_slice()).unwrap_or(&[]);
            let gui = comps.iter().find(|c| c.id == comp && matches!(c.kind, ComponentRef::Gui(_)));
            gui.or_else(|| comps.iter().find(|c| c.id == comp)).map(|c| c.kind)
        };
        with_world(ctx, |w| match kind_of(w) {
            None => kind::NONE,
            Some(ComponentRef::Script(_)) => kind::SCRIPT,
            Some(ComponentRef::Model(_)) => kind::MODEL,
            Some(ComponentRef::Camera(_)) => kind::CAMERA,
            Some(ComponentRef::Light(_)) => kind::LIGHT,
            Some(ComponentRef::Factory(_)) => kind::FACTORY,
            Some(ComponentRef::Label(_)) => kind::LABEL,
            Some(ComponentRef::Sound(_)) => kind::SOUND,
            Some(ComponentRef::CollisionObject(_)) => kind::COLLISION_OBJECT,
            Some(ComponentRef::Sprite(_)) => kind::SPRITE,
            Some(ComponentRef::Gui(_)) => kind::GUI,
            Some(ComponentRef::CollectionProxy(_)) => kind::COLLECTION_PROXY,
            Some(ComponentRef::ParticleFx(_)) => kind::PARTICLEFX,
            Some(ComponentRef::TileMap(_)) => kind::TILEMAP,
        })
        .unwrap_or(kind::NONE)
    }

    /// Reads a material constant of a model component (override, else the material's default).
    fn model_constant_get(ctx: Ctx, slot: u32, comp: u64, name: u64, out: *mut V4) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let v = w.models.constant(m, name).ok_or_else(|| format!("no constant '{}'", name_of(name)))?;
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            ok(unsafe { put(out, V4 { x: v[0], y: v[1], z: v[2], w: v[3] }) })
        })
    }

    fn model_constant_set(ctx: Ctx, slot: u32, comp: u64, name: u64, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            if w.models.set_constant(m, name, [x, y, z, vw]) {
                Ok(())
            } else {
                Err(format!("no constant '{}'", name_of(name)))
            }
        })
    }

    /// Number of meshes of a model component (-1 on error).
    fn model_mesh_count(ctx: Ctx, slot: u32, comp: u64) -> i32 {
        let mut n = -1;
        let rc = with_model(ctx, slot, comp, |w, m| {
            n = w.models.instances[m as usize].mesh_enabled.len() as i32;
            Ok(())
        });
        if rc == OK { n } else { -1 }
    }

    /// Hash of mesh `i`'s id.
    fn model_mesh_id(ctx: Ctx, slot: u32, comp: u64, i: u32) -> u64 {
        let mut id = 0;
        with_model(ctx, slot, comp, |w, m| {
            let a = w.models.instances[m as usize].asset as usize;
            if let Some(mesh) = w.models.assets.get(a).and_then(|a| a.data.meshes.get(i as usize)) {
                id = hash_remembered(&mesh.id);
            }
            Ok(())
        });
        id
    }

    /// Gets (`set` < 0) or sets the enabled flag of every mesh with that id; returns 0/1 or -1.
    fn model_mesh_enabled(ctx: Ctx, slot: u32, comp: u64, mesh: u64, set: i32) -> i32 {
        let mut result = -1;
        let rc = with_model(ctx, slot, comp, |w, m| {
            let first = mesh_index(w, m, mesh)?;
            let inst = &mut w.models.instances[m as usize];
            if set >= 0 {
                let ids: Vec<bool> = {
                    let data = &w.models.assets[inst.asset as usize].data;
                    data.meshes.iter().map(|x| names_mesh(data, x, mesh)).collect()
                };
                for (flag, same) in inst.mesh_enabled.iter_mut().zip(ids) {
                    if same {
                        *flag = set != 0;
                    }
                }
            }
            result = i32::from(inst.mesh_enabled.get(first).copied().unwrap_or(true));
            Ok(())
        });
        if rc == OK { result } else { -1 }
    }

    /// Model-space bounds of mesh `i`, or of the whole model when `i` < 0. Empty → zeros.
    fn model_aabb(ctx: Ctx, slot: u32, comp: u64, i: i32, min: *mut V3, max: *mut V3) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let data = &w.models.assets[w.models.instances[m as usize].asset as usize].data;
            let b = if i < 0 { data.aabb } else { data.meshes.get(i as usize).map(|x| x.aabb).ok_or("no such mesh")? };
            let (lo, hi) = if b.is_empty() { ([0.0; 3], [0.0; 3]) } else { (b.min, b.max) };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            ok(unsafe { put(min, V3 { x: lo[0], y: lo[1], z: lo[2] }) })?;
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            ok(unsafe { put(max, V3 { x: hi[0], y: hi[1], z: hi[2] }) })
        })
    }

    /// Sets (`n` ≥ 0 values at `w`) or clears (`n` < 0) the script's morph weight override.
    fn model_set_blend_weights(ctx: Ctx, slot: u32, comp: u64, w: *const f32, n: i32) -> i32 {
        let values = if n < 0 || w.is_null() {
            None
        } else {
            // SAFETY: the pointer is null or `n` values of a Lua-side buffer alive during this call.
            Some(unsafe { slice(w, n as usize) }.to_vec())
        };
        with_model(ctx, slot, comp, |wd, m| {
            wd.models.set_weight_override(m, values);
            Ok(())
        })
    }

    /// Copies up to `cap` weights of the first morphed mesh into `out`; returns the count, -1 on error.
    fn model_get_blend_weights(ctx: Ctx, slot: u32, comp: u64, out: *mut f32, cap: i32) -> i32 {
        let mut count = -1;
        let rc = with_model(ctx, slot, comp, |w, m| {
            let ws = w.models.first_mesh_weights(m);
            let n = if out.is_null() { 0 } else { ws.len().min(cap.max(0) as usize) };
            // SAFETY: `out` has room for `cap` floats (a Lua-side buffer).
            unsafe { std::ptr::copy_nonoverlapping(ws.as_ptr(), out, n) };
            count = n as i32;
            Ok(())
        });
        if rc == OK { count } else { -1 }
    }

    /// Reads `cursor` (0) or `playback_rate` (1) of a model's player; a model without animations
    /// reads 0 and 1.
    fn model_anim_get(ctx: Ctx, slot: u32, comp: u64, which: i32, out: *mut f32) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let anim = w.models.instances[m as usize].anim.as_ref();
            let v = match (which, anim) {
                (player::CURSOR, Some(a)) => a.player.cursor(),
                (player::CURSOR, None) => 0.0,
                (_, Some(a)) => a.player.playback_rate(),
                (_, None) => 1.0,
            };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            ok(unsafe { put(out, v) })
        })
    }

    /// Sets `cursor` (0, normalized, wrap rules of api.md 4.2) or `playback_rate` (1, clamped ≥ 0).
    fn model_anim_set(ctx: Ctx, slot: u32, comp: u64, which: i32, v: f32) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let Some(a) = w.models.instances[m as usize].anim.as_mut() else { return Ok(()) };
            if which == player::CURSOR {
                a.player.set_cursor(v);
            } else {
                a.player.set_playback_rate(v);
            }
            Ok(())
        })
    }

    /// The hash of the path of the material a model component draws with (`go.get(url,
    /// "material")`), 0 with the message in `last_error`.
    fn model_material_get(ctx: Ctx, slot: u32, comp: u64) -> u64 {
        let mut h = 0;
        with_model(ctx, slot, comp, |w, m| {
            let i = w.models.instances[m as usize].material;
            let mat = w.models.materials.get(i as usize).ok_or("the model has no material")?;
            h = hash_remembered(&mat.path);
            Ok(())
        });
        h
    }

    /// `go.set(url, "material", resource.material(path))`: the component draws with the
    /// material at the path `material` hashes (loaded now if no model has used it yet).
    fn model_material_set(ctx: Ctx, slot: u32, comp: u64, material: u64) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let what = "go.set: argument 3 (material)";
            let text = crate::base::hash::text_of(material)
                .ok_or_else(|| format!("{what}: {} is not the hash of a material's path", name_of(material)))?;
            // Defold's scripts may name the built file.
            let path = text.strip_suffix('c').filter(|p| p.ends_with(".material")).unwrap_or(&text);
            if !path.ends_with(".material") {
                return Err(format!("{what}: '{path}' is not a .material"));
            }
            let res = w.factories.res.clone().ok_or_else(|| format!("{what}: the game's files cannot be read now"))?;
            let i = w.models.material(&res, path, "go.set").map_err(|e| format!("{what}: {e}"))?;
            w.models.set_material(m, i);
            Ok(())
        })
    }

    /// Hash of the current animation's id, 0 when none.
    fn model_animation(ctx: Ctx, slot: u32, comp: u64) -> u64 {
        let mut id = 0;
        with_model(ctx, slot, comp, |w, m| {
            id = w.models.instances[m as usize].anim.as_ref().and_then(|a| a.current_animation()).unwrap_or(0);
            Ok(())
        });
        id
    }

    /// Id of the game object of a bone (`model.get_go`), 0 with the message in `last_error`.
    fn model_get_go(ctx: Ctx, slot: u32, comp: u64, bone: u64) -> u64 {
        let mut id = 0;
        with_model(ctx, slot, comp, |w, m| {
            let name = name_of(bone);
            let not_found = || format!("the bone '{name}' could not be found");
            let anim = w.models.instances[m as usize].anim.as_ref().ok_or_else(not_found)?;
            let sk = &anim.rig.skeleton;
            let node = (0..sk.skin_count())
                .flat_map(|s| sk.skin_joints(s).iter().copied())
                .find(|&n| hash_remembered(sk.name(n)) == bone)
                .ok_or_else(not_found)?;
            let slot = anim
                .bones()
                .iter()
                .find(|(n, _)| *n == node)
                .map(|(_, s)| *s)
                .ok_or_else(|| format!("no game object found for the bone '{name}'"))?;
            // The script may read the bone object from now on: it is driven every frame.
            w.models.watch(&mut w.scene, slot);
            id = w.scene.ids[slot as usize];
            Ok(())
        });
        id
    }

    /// `model.get_layer`: the layer's animation hash (0: none) into `anim`, then its cursor,
    /// playback rate and weight into `out[0..3]`. Layer 0 is Defold's animation.
    fn model_get_layer(ctx: Ctx, slot: u32, comp: u64, layer: i32, anim: *mut u64, out: *mut f32) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            if !(0..crate::anim::layers::LAYERS as i32).contains(&layer) || out.is_null() {
                return Err(format!("layer {layer} is not 0-7"));
            }
            let a = w.models.instances[m as usize].anim.as_ref();
            let (id, v) = match a {
                None => (0, [0.0, 1.0, 1.0]),
                Some(a) if layer == 0 => {
                    (a.current_animation().unwrap_or(0), [a.player.cursor(), a.player.playback_rate(), a.layer0.weight()])
                }
                Some(a) => match a.layer(layer as usize) {
                    Some(s) => {
                        let p = &s.layer.player;
                        let id = p.animation().and_then(|c| a.rig.clip_ids.get(c).copied()).unwrap_or(0);
                        (id, [p.cursor(), p.playback_rate(), s.layer.params.weight()])
                    }
                    None => (0, [0.0, 1.0, 1.0]),
                },
            };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            ok(unsafe { put(anim, id) })?;
            // SAFETY: `out` points at 3 floats of a Lua-side buffer (checked non-null above).
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), out, 3) };
            Ok(())
        })
    }

    /// IK of chain `chain`: `op` 0 follows game object `target` (a slot), 1 the world position
    /// (x, y, z), 2 sets the weight (x, clamped to 0–1), 3 clears the target; 4 reads the
    /// weight into `out`. An unknown chain is an error naming it.
    fn model_ik(ctx: Ctx, slot: u32, comp: u64, chain: u64, op: i32, target: u32, x: f32, y: f32, z: f32, out: *mut f32) -> i32 {
        with_model(ctx, slot, comp, |w, m| {
            let live = w.scene.is_live(target);
            let no_chain = || format!("the model has no ik chain named '{}'", name_of(chain));
            let st = w.models.ik_state_mut(m, chain).ok_or_else(no_chain)?;
            use crate::game::animation::IkTarget;
            match op {
                0 if live => st.target = IkTarget::Object(target),
                0 => return Err("the target game object does not exist".into()),
                1 => {
                    let p = glam::Vec3::new(x, y, z);
                    if !p.is_finite() {
                        return Err("the target position is not finite".into());
                    }
                    st.target = IkTarget::Position(p);
                }
                2 => st.weight = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) },
                3 => {
                    st.target = IkTarget::None;
                    st.model_target = None;
                }
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                _ => return ok(unsafe { put(out, st.weight) }),
            }
            Ok(())
        })
    }

    /// Of the `n` `model.play_anim` callback ids at `ids`, overwrites with 0 each one that no model
    /// will ever call: no live listener holds it (replaced, cancelled, looping, unknown clip, model
    /// deleted or its message lost). Lua drops those closures (issue 10: callbacks were kept forever).
    fn model_dead_callbacks(ctx: Ctx, ids: *mut u32, n: u32) -> i32 {
        if ids.is_null() || n == 0 {
            return OK;
        }
        // SAFETY: `ids` points at `n` uint32 of a Lua-side buffer alive during the call.
        let ids = unsafe { std::slice::from_raw_parts_mut(ids, n as usize) };
        with_world(ctx, |w| {
            let mut live = std::mem::take(&mut w.live_callbacks);
            w.models.live_callbacks(&mut live);
            w.sounds.live_callbacks(&mut live);
            w.sprites.extend_live_callbacks(&mut live);
            w.gui.extend_live_callbacks(&mut live);
            w.particles.extend_live_callbacks(&mut live);
            w.physics.extend_live_callbacks(&mut live);
            live.sort_unstable();
            for id in ids.iter_mut() {
                if live.binary_search(id).is_err() {
                    *id = 0;
                }
            }
            w.live_callbacks = live;
            OK
        })
        .unwrap_or_else(|| fail("game state is busy".into()))
    }
}
