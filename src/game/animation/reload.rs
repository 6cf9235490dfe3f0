//! Hot reload of rigs: after a glTF file or a `.model` was saved, the instances made from it
//! get new rigs and carry their playback and bone objects over by name.
use super::rig::RigExtras;
use super::setup::rebind_bones;
use super::state::AnimState;
use crate::anim::layers::LAYERS;
use crate::base::hash::hash_remembered;
use crate::game::World;
use std::sync::Arc;

/// After a glTF file was re-imported: rebuilds the rigs that use it and gives their instances a
/// new player that continues the same animation at the same cursor (or shows the bind pose, with
/// a warning, when the clip is gone). Bone objects whose joint name still exists are kept, so
/// objects parented to bones stay attached; the others are removed, new joints get new objects.
pub fn rebuild_rigs(w: &mut World, res: &crate::project::Resources, path: &str) -> Result<usize, String> {
    w.models.forget_rigs_of(path);
    let affected: Vec<u32> = (0..w.models.instances.len() as u32)
        .filter(|&i| {
            let m = &w.models.instances[i as usize];
            m.alive && (m.spec.skeleton == path || m.spec.animations.iter().any(|a| a == path))
        })
        .collect();
    for &i in &affected {
        let spec = w.models.instances[i as usize].spec.clone();
        rebuild_instance(w, res, i, &spec)?;
    }
    Ok(affected.len())
}

/// A saved `.model`: every instance made from it switches to the new mesh, material, textures
/// and rig, continuing its animation where the clip still exists. Errors leave them unchanged.
pub fn reload_model_file(w: &mut World, res: &crate::project::Resources, path: &str) -> Result<usize, String> {
    let spec = crate::project::collection::load_model_file(res, path).map_err(|e| e.to_string())?;
    let users: Vec<u32> = (0..w.models.instances.len() as u32)
        .filter(|&i| w.models.instances[i as usize].alive && w.models.instances[i as usize].spec.source == path)
        .collect();
    if users.is_empty() {
        return Ok(0);
    }
    let asset = w.models.asset(res, &spec.mesh).map_err(|e| e.to_string())?;
    let material = w.models.material(res, &spec.material, path).map_err(|e| e.to_string())?;
    let mut textures = Vec::new();
    for (sampler, tex) in &spec.textures {
        textures.push((hash_remembered(sampler), w.models.texture(res, tex, path).map_err(|e| e.to_string())?));
    }
    w.models.forget_rigs_of(&spec.skeleton);
    for &i in &users {
        let data = w.models.assets[asset as usize].data.clone();
        let m = &mut w.models.instances[i as usize];
        m.asset = asset;
        m.material = material;
        m.textures = textures.clone();
        if m.mesh_enabled.len() != data.meshes.len() {
            m.mesh_enabled = vec![true; data.meshes.len()];
        }
        m.weights = data.meshes.iter().flat_map(|x| x.weights.iter().copied()).collect();
        m.spec = spec.clone();
        rebuild_instance(w, res, i, &spec)?;
    }
    Ok(users.len())
}

/// Gives one instance a new rig built from `spec`, carrying playback over and rebinding bones.
fn rebuild_instance(
    w: &mut World,
    res: &crate::project::Resources,
    i: u32,
    spec: &crate::project::ModelSpec,
) -> Result<(), String> {
    {
        let rig = w.models.rig(res, spec)?;
        let old = w.models.instances[i as usize].anim.take();
        let Some(rig) = rig else {
            for &(_, slot) in old.as_ref().map_or(&[][..], |a| a.bones()) {
                w.scene.remove(slot);
            }
            return Ok(());
        };
        let asset = w.models.instances[i as usize].asset as usize;
        let mut new = match w.models.assets.get(asset) {
            Some(a) => AnimState::with_meshes(rig, &a.data),
            None => AnimState::new(rig),
        };
        let extras = RigExtras::resolve(&new.rig, &spec.rig_extras, &spec.source)?;
        new.set_extras(Arc::new(extras));
        if let Some(old) = &old {
            carry_playback(old, &mut new, &spec.source);
        }
        w.models.instances[i as usize].anim = Some(new);
        let old_bones: Vec<(String, u32)> = old
            .map(|a| a.bones().iter().map(|&(n, s)| (a.rig.skeleton.name(n).to_string(), s)).collect())
            .unwrap_or_default();
        rebind_bones(w, i, old_bones)
    }
}

/// Continues every layer of the old state on the new rig: its clip (by name) at its cursor,
/// rate and playback mode (stopped if it had stopped), its weight and weight fade, additive
/// flag and mask (resolved again by name), its listeners. A cross-fade in progress ends at the
/// reload. A layer whose clip or mask is gone is dropped with a warning (layer 0: the bind pose).
fn carry_playback(old: &AnimState, new: &mut AnimState, source: &str) {
    for layer in 0..LAYERS {
        let (player, params, mask, listener, starter) = match layer {
            0 => (&old.player, &old.layer0, &old.layer0_mask, old.listener, old.starter),
            _ => match old.layer(layer) {
                Some(s) => (&s.layer.player, &s.layer.params, &s.mask, s.listener, s.starter),
                None => break,
            },
        };
        let Some(id) = player.animation().and_then(|a| old.rig.clip_ids.get(a).copied()) else { continue };
        let on = if layer == 0 { String::new() } else { format!(" on layer {layer}") };
        let Some(clip) = new.rig.clip_index(id) else {
            let what = if layer == 0 { "showing the bind pose" } else { "the layer is dropped" };
            log::warn!("{source}: animation '{}'{on} is gone after the reload; {what}", crate::base::hash::name_of(id));
            continue;
        };
        let resolved = match mask.as_deref().map(|names| new.resolve_mask(names)).transpose() {
            Ok(m) => m,
            Err(e) => {
                log::warn!("{source}: layer {layer} is dropped after the reload: {e}");
                continue;
            }
        };
        let plain = params.is_plain() && mask.is_none();
        let mut params = params.clone();
        params.mask = resolved;
        let (p, l, s, m) = if layer == 0 {
            if !plain && let Some(p) = new.params_mut(0) {
                *p = params;
            }
            new.layer0_mask = mask.clone();
            (&mut new.player, &mut new.listener, &mut new.starter, None)
        } else {
            let Some(slot) = new.layer_mut(layer) else { continue };
            slot.layer.params = params;
            (&mut slot.layer.player, &mut slot.listener, &mut slot.starter, Some(&mut slot.mask))
        };
        p.play(clip, player.playback(), 0.0, 0.0, player.playback_rate());
        p.set_cursor(player.cursor());
        if !player.is_playing() {
            p.cancel();
        }
        (*l, *s) = (listener, starter);
        if let Some(m) = m {
            *m = mask.clone();
        }
    }
}
