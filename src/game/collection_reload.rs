//! A saved collection applied to the running game in place (issue 36 item 3, docs/cli.md
//! "hot reload"): objects are matched by their id path, so what did not change keeps its state
//! (a script's `self`, tweens, animation, physics); an object the file no longer has is deleted
//! (its scripts' `final` runs), a new one is spawned and initialised, an object whose
//! components changed is made again, one whose transform in the file changed takes the new
//! transform, and a changed parent is re-parented. Objects that did not come from the
//! collection (a factory's) are left alone.
use super::World;
use super::spawn::{ScriptFactory, spawn_collection};
use crate::base::hash::hash_str;
use crate::project::{CollectionSpec, ComponentKind, ComponentSpec, ObjectSpec, Resources};
use glam::{Quat, Vec3};
use std::cell::RefCell;
use std::collections::HashMap;

/// What a reload did, for the log line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub kept: usize,
    pub moved: usize,
    pub added: usize,
    pub removed: usize,
    pub rebuilt: usize,
    pub reparented: usize,
}

/// Components compared by what they say, not where: a line added above a script property
/// moves its position in the file without changing it.
fn same_components(a: &[ComponentSpec], b: &[ComponentSpec]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.id == y.id
                && match (&x.kind, &y.kind) {
                    (
                        ComponentKind::Script { script: s1, properties: p1 },
                        ComponentKind::Script { script: s2, properties: p2 },
                    ) => {
                        s1 == s2
                            && p1.len() == p2.len()
                            && p1.iter().zip(p2).all(|((n1, v1), (n2, v2))| n1 == n2 && v1.value == v2.value)
                    }
                    (k1, k2) => k1 == k2,
                }
        })
}

fn parent_path(spec: &CollectionSpec, o: &ObjectSpec) -> Option<String> {
    o.parent.and_then(|p| spec.objects.get(p)).map(|p| p.path.clone())
}

/// Applies `new` over the objects spawned from `old`. `hooks` runs `final` of deleted scripts
/// and `init` of new ones.
pub fn apply<H: ScriptFactory + super::ScriptHooks>(
    world: &RefCell<World>,
    res: &Resources,
    hooks: &mut H,
    old: &CollectionSpec,
    new: &CollectionSpec,
) -> Result<Applied, Vec<String>> {
    let mut done = Applied::default();
    let old_by: HashMap<&str, &ObjectSpec> = old.objects.iter().map(|o| (o.path.as_str(), o)).collect();
    let new_by: HashMap<&str, &ObjectSpec> = new.objects.iter().map(|o| (o.path.as_str(), o)).collect();
    let slot_of = |path: &str| world.borrow().scene.find(hash_str(path));

    // Gone from the file, or made again: deleted now (`final` runs), so the same ids can be
    // spawned below.
    let mut respawn = std::collections::HashSet::new();
    {
        let mut w = world.borrow_mut();
        for o in &old.objects {
            let Some(slot) = w.scene.find(hash_str(&o.path)) else { continue };
            let rebuilt = match new_by.get(o.path.as_str()) {
                None => {
                    done.removed += 1;
                    true
                }
                Some(n) if !same_components(&o.components, &n.components) => {
                    done.rebuilt += 1;
                    respawn.insert(n.path.clone());
                    true
                }
                Some(_) => false,
            };
            if rebuilt {
                w.scene.doomed[slot as usize] = true;
            }
        }
    }
    super::dispatch::delete_doomed(world, hooks);

    // New and made-again objects, in the file's order (parents first); a parent among them is
    // given by its index in this list, one that stayed is set after spawning.
    let fresh: Vec<&ObjectSpec> =
        new.objects.iter().filter(|o| !old_by.contains_key(o.path.as_str()) || respawn.contains(&o.path)).collect();
    if !fresh.is_empty() {
        let index: HashMap<&str, usize> = fresh.iter().enumerate().map(|(i, o)| (o.path.as_str(), i)).collect();
        let objects = fresh
            .iter()
            .map(|o| {
                let parent = parent_path(new, o).and_then(|p| index.get(p.as_str()).copied());
                ObjectSpec { parent, ..(*o).clone() }
            })
            .collect();
        let sub = CollectionSpec { name: new.name.clone(), objects };
        spawn_collection(world, res, &sub, hooks)?;
        done.added += fresh.len() - respawn.len();
    }

    // Kept objects: the file's transform when it changed there; every object's parent as the
    // file says.
    for o in &new.objects {
        let Some(slot) = slot_of(&o.path) else { continue };
        let mut w = world.borrow_mut();
        if let Some(before) = old_by.get(o.path.as_str())
            && !respawn.contains(&o.path)
        {
            if (before.position, before.rotation, before.scale) != (o.position, o.rotation, o.scale) {
                let s = slot as usize;
                w.scene.settle_for_write(slot);
                w.scene.position[s] = Vec3::from(o.position);
                w.scene.rotation[s] = Quat::from_array(o.rotation).normalize();
                w.scene.scale[s] = Vec3::from(o.scale);
                done.moved += 1;
            } else {
                done.kept += 1;
            }
        }
        let want = parent_path(new, o).and_then(|p| w.scene.find(hash_str(&p))).unwrap_or(crate::scene::NONE);
        if w.scene.parent[slot as usize] != want {
            w.scene.set_parent(slot, want, false).map_err(|e| vec![format!("{}: {e}", o.path)])?;
            done.reparented += 1;
        }
    }
    hooks.init_new();
    Ok(done)
}
