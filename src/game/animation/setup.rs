//! What a model instance gets when it is made: its bone game objects (made again by name after
//! a reload) and its default animation.
use crate::anim::{Playback, Skeleton};
use crate::base::hash::hash_remembered;
use crate::game::World;
use crate::scene::Scene;
use glam::Mat4;

/// Creates one game object per joint (`create_go_bones`), children of the model's object. Their
/// ids cannot clash with user ids: they contain `#`, which ids may not.
/// `spawned`: the model belongs to a factory-made object, whose bone names are not kept for
/// the whole run (see `Scene::spawn_transient`).
pub fn create_bones(w: &mut World, model: u32, go_path: &str, comp: &str, spawned: bool) -> Result<(), String> {
    let Some(inst) = w.models.instances.get(model as usize) else { return Ok(()) };
    let (owner, Some(anim)) = (inst.slot, &inst.anim) else { return Ok(()) };
    let sk = &anim.rig.skeleton;
    let joints = bone_nodes(sk);
    let mut bones = Vec::with_capacity(joints.len());
    for node in joints {
        let path = format!("{go_path}#{comp}/{}#{node}", sk.name(node));
        bones.push((node, spawn_bone(&mut w.scene, &path, owner, &anim.model[node], spawned)?));
    }
    w.models.set_bones(model, bones, &w.scene);
    Ok(())
}

/// `default_animation`: starts looping at creation. A name the animation set lacks refuses the
/// load, as the Defold editor refuses to build such a model: it is always a typo or a clip that
/// was renamed, and a model that silently stays in its bind pose is harder to track down.
/// `source` is the file the model was described in (the fallback when the name has no position).
pub fn start_default(
    w: &mut World,
    model: u32,
    name: &crate::project::json::Located<String>,
    source: &str,
) -> Result<(), String> {
    let Some(inst) = w.models.instances.get_mut(model as usize) else { return Ok(()) };
    let n = &name.value;
    let Some(anim) = inst.anim.as_mut() else {
        return Err(name.error(source, format!("default_animation '{n}': the model has no animations")).to_string());
    };
    match anim.rig.clip_index(hash_remembered(n)) {
        Some(i) => {
            anim.player.play(i, Playback::LoopForward, 0.0, 0.0, 1.0);
            Ok(())
        }
        None => {
            let msg = format!("default_animation '{n}' not found (animations: {})", anim.rig.clip_names.join(", "));
            Err(name.error(source, msg).to_string())
        }
    }
}

/// Gives the new skeleton's joints the bone objects of the same names, creating or removing
/// the difference.
pub(super) fn rebind_bones(w: &mut World, model: u32, mut old: Vec<(String, u32)>) -> Result<(), String> {
    let inst = &w.models.instances[model as usize];
    let (owner, create) = (inst.slot, inst.spec.create_go_bones);
    let (comp, go_path) = inst.names.clone();
    let Some(anim) = inst.anim.as_ref() else { return Ok(()) };
    let sk = &anim.rig.skeleton;
    let mut bones = Vec::new();
    for node in bone_nodes(sk) {
        let name = sk.name(node).to_string();
        if let Some(k) = old.iter().position(|(n, _)| *n == name) {
            bones.push((node, old.swap_remove(k).1));
        } else if create {
            let path = format!("{go_path}#{comp}/{name}#{node}");
            bones.push((node, spawn_bone(&mut w.scene, &path, owner, &anim.model[node], false)?));
        }
    }
    for (_, slot) in old {
        w.scene.remove(slot);
    }
    w.models.set_bones(model, bones, &w.scene);
    Ok(())
}

/// The skeleton nodes that get bone objects: every skin's joints, once each, in node order.
fn bone_nodes(sk: &Skeleton) -> Vec<usize> {
    let mut joints: Vec<usize> = (0..sk.skin_count()).flat_map(|s| sk.skin_joints(s).iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    joints
}

/// Spawns a bone object with the id path `path` at the joint's model-space `pose`, a child of
/// the model's object `owner`, its world transform computed when read. `transient`: see
/// `Scene::spawn_transient`.
fn spawn_bone(scene: &mut Scene, path: &str, owner: u32, pose: &Mat4, transient: bool) -> Result<u32, String> {
    let prefix = scene.prefix[owner as usize];
    let (s, r, t) = pose.to_scale_rotation_translation();
    let slot =
        if transient { scene.spawn_transient(path, prefix, t, r, s)? } else { scene.spawn(path, prefix, t, r, s)? };
    scene.set_parent(slot, owner, false)?;
    scene.world_on_demand(slot);
    Ok(slot)
}
