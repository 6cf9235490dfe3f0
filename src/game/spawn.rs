//! Turning a loaded collection into game objects and component instances.
use super::World;
use crate::base::hash::hash_remembered;
use crate::project::{CollectionSpec, ComponentKind as SpecKind, PropertyValue, Resources};
use crate::scene::{Component, ComponentKind};
use glam::{Quat, Vec3};
use std::cell::RefCell;

/// Creates script component instances on behalf of the spawner.
pub trait ScriptFactory {
    /// Returns the new instance index, or an error message naming the script.
    fn create(
        &mut self,
        slot: u32,
        component: &str,
        script: &str,
        props: &[(String, PropertyValue)],
    ) -> Result<u32, String>;
}

/// Spawns every object of `spec` with its components; a model that cannot be imported is a load
/// error naming the file.
pub fn spawn_collection(
    world: &RefCell<World>,
    res: &Resources,
    spec: &CollectionSpec,
    scripts: &mut dyn ScriptFactory,
) -> Result<(), String> {
    let mut slots = Vec::with_capacity(spec.objects.len());
    for o in &spec.objects {
        let mut w = world.borrow_mut();
        let prefix = w.scene.intern_prefix(&o.collection_prefix);
        let rot = Quat::from_array(o.rotation).normalize();
        let slot = w.scene.spawn(&o.path, prefix, Vec3::from(o.position), rot, Vec3::from(o.scale))?;
        if let Some(p) = o.parent {
            let parent = *slots.get(p).ok_or_else(|| format!("{}: parent listed after child", o.path))?;
            w.scene.set_parent(slot, parent, false)?;
        }
        slots.push(slot);
    }
    for (o, &slot) in spec.objects.iter().zip(&slots) {
        for c in &o.components {
            let kind = match &c.kind {
                SpecKind::Script { script, properties } => {
                    ComponentKind::Script(scripts.create(slot, &c.id, script, properties)?)
                }
                SpecKind::Model(m) => {
                    let mut w = world.borrow_mut();
                    let i = w.models.create_model(res, slot, (&c.id, &o.path), m)?;
                    if m.create_go_bones {
                        super::animation::create_bones(&mut w, i, &o.path, &c.id)?;
                    }
                    if let Some(name) = &m.default_animation {
                        super::animation::start_default(&mut w, i, name);
                    }
                    ComponentKind::Model(i)
                }

                SpecKind::Camera(cam) => {
                    ComponentKind::Camera(world.borrow_mut().models.create_camera(slot, &c.id, cam))
                }
                SpecKind::Light(l) => ComponentKind::Light(world.borrow_mut().models.create_light(slot, &c.id, l)),
            };
            let id = hash_remembered(&c.id);
            world.borrow_mut().scene.components[slot as usize].push(Component { id, kind });
        }
    }
    world.borrow_mut().scene.update_world_transforms();
    Ok(())
}
