//! `factory` and `collectionfactory` components at run time: spawning a loaded prototype into the
//! running collection. The prototype was flattened and checked at load, so spawning reads no file
//! and can only fail on the instance limit or a model that cannot be built.
use super::World;
use crate::base::hash::{Hash, name_of};
use crate::project::{ComponentKind, FactorySpec, Resources};
use crate::scene::{Component, ComponentRef, NONE};
use glam::{Affine3A, Quat, Vec3};

/// One factory component of a live object.
pub struct FactoryInstance {
    pub slot: u32,
    pub id: Hash,
    pub spec: FactorySpec,
    /// Which factory holds this index now: indices of deleted factories are reused, and the Lua
    /// side keeps what it knows of a factory only while the serial matches.
    pub serial: u32,
    pub alive: bool,
}

/// The factories of the running collection and the counters that name what they make.
pub struct Factories {
    pub list: Vec<FactoryInstance>,
    /// Models are built from files; kept from load so spawning needs nothing from the caller.
    pub res: Option<Resources>,
    /// N of the next `/instanceN` and `/collectionN`: only ever counts up, so an id is never
    /// reused in a run (a message posted to a deleted object never reaches a new one).
    pub next_instance: u64,
    pub next_collection: u64,
    /// `project.json` `max_instances`.
    pub max_instances: u32,
    /// The script overrides a Defold project's collections set that their scripts do not
    /// declare (or of another type), as warned of: each is warned of once a run
    /// (`spawn::Misfit::LeftOut`).
    pub left_out_overrides: std::collections::HashSet<String>,
    /// Indices of deleted factories, reused by the next ones (an object holding a factory,
    /// spawned and deleted again and again, would otherwise grow the list for ever).
    free: Vec<u32>,
    next_serial: u32,
}

impl Default for Factories {
    fn default() -> Self {
        Factories {
            list: Vec::new(),
            res: None,
            next_instance: 0,
            next_collection: 0,
            max_instances: crate::project::types::DEFAULT_MAX_INSTANCES,
            left_out_overrides: Default::default(),
            free: Vec::new(),
            next_serial: 0,
        }
    }
}

/// Where the prototype's root objects go.
#[derive(Clone, Copy)]
pub struct Placement {
    pub position: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

/// What one `create` made: the new objects' slots in prototype order, then the script instance
/// indices given to their script components, in prototype order too (the Lua side creates the
/// script records from these).
#[derive(Default)]
pub struct Made {
    pub slots: Vec<u32>,
    pub scripts: Vec<u32>,
}

/// The factory's URL as Defold writes it in errors (`/spawner#factory`).
pub fn factory_name(w: &World, f: &FactoryInstance) -> String {
    let path = w.scene.ids.get(f.slot as usize).map_or_else(String::new, |&h| name_of(h));
    format!("{path}#{}", name_of(f.id))
}

/// A free `/instanceN` (or `/collectionN/`) name: a user object may already be called that.
fn fresh(w: &World, collection: bool, counter: &mut u64) -> String {
    loop {
        let n = *counter;
        *counter += 1;
        let name = if collection { format!("/collection{n}") } else { format!("/instance{n}") };
        let taken = if collection {
            // The prototype's objects get `/collectionN/<id>`: any object under that prefix clashes.
            w.scene.has_prefix(&format!("{name}/"))
        } else {
            w.scene.find_in(w.scene.spawn_socket(), crate::base::hash::hash_str(&name)).is_some()
        };
        if !taken {
            return name;
        }
    }
}

/// Spawns the prototype of factory `f`. Scripts get instance indices from `next_script` but no
/// Lua state: the caller (the script runtime) creates them from [`Made::scripts`].
pub fn spawn(w: &mut World, f: u32, at: Placement, next_script: &mut u32) -> Result<Made, String> {
    // The objects join the world of the factory's own object (a proxy's, or the main one).
    let owner = w.factories.list.get(f as usize).filter(|fi| fi.alive).map(|fi| fi.slot);
    let socket = owner.and_then(|o| w.scene.socket.get(o as usize).copied()).unwrap_or(0);
    let before = w.scene.spawn_socket();
    w.scene.set_spawn_socket(socket);
    let made = spawn_in_socket(w, f, at, next_script);
    w.scene.set_spawn_socket(before);
    made
}

fn spawn_in_socket(w: &mut World, f: u32, at: Placement, next_script: &mut u32) -> Result<Made, String> {
    let Some(fi) = w.factories.list.get(f as usize).filter(|fi| fi.alive) else {
        return Err(format!("no factory {f}"));
    };
    let (objects, collection, owner) = (fi.spec.objects.clone(), fi.spec.collection, fi.slot);
    if !w.scene.is_live(owner) {
        return Err(format!("{}: the factory's game object was deleted", factory_name(w, fi)));
    }
    let max = w.factories.max_instances as usize;
    if w.scene.live_count() + objects.len() > max {
        return Err(format!(
            "{}: the collection '{}' is full: it holds {} game objects and max_instances (project.json) is {max}",
            factory_name(w, fi),
            w.socket_name,
            w.scene.live_count()
        ));
    }
    let mut counter = if collection { w.factories.next_collection } else { w.factories.next_instance };
    let base = fresh(w, collection, &mut counter);
    if collection {
        w.factories.next_collection = counter;
    } else {
        w.factories.next_instance = counter;
    }
    let place = Affine3A::from_scale_rotation_translation(at.scale, at.rotation.normalize(), at.position);
    let mut made = Made::default();
    let mut paths = Vec::with_capacity(objects.len());
    for o in objects.iter() {
        // A `.go` prototype's one object is the instance itself; a collection's keep their paths.
        let (path, prefix) = if collection {
            (format!("{base}{}", o.path), format!("{base}{}", o.collection_prefix))
        } else {
            (base.clone(), "/".to_string())
        };
        let prefix = w.scene.intern_prefix(&prefix);
        let (pos, rot, scale) = (Vec3::from(o.position), Quat::from_array(o.rotation).normalize(), Vec3::from(o.scale));
        let (pos, rot, scale) = match o.parent {
            Some(_) => (pos, rot, scale),
            None if collection => {
                let (s, r, t) = (place * Affine3A::from_scale_rotation_translation(scale, rot, pos))
                    .to_scale_rotation_translation();
                (t, r.normalize(), s)
            }
            // The rotation as given, as go.set_rotation keeps it and Defold's Spawn does: a
            // round trip through factory.create compares equal (britzl/desert's tests).
            None => (at.position, at.rotation, at.scale),
        };
        let slot = w.scene.spawn_transient(&path, prefix, pos, rot, scale)?;
        paths.push(path);
        if let Some(p) = o.parent {
            let parent = made.slots.get(p).copied().unwrap_or(NONE);
            w.scene.set_parent(slot, parent, false)?;
        }
        made.slots.push(slot);
    }
    let res = w.factories.res.clone();
    for ((o, &slot), path) in objects.iter().zip(&made.slots).zip(&paths) {
        for c in &o.components {
            let kind = match &c.kind {
                ComponentKind::Script { .. } => {
                    let i = *next_script;
                    *next_script += 1;
                    made.scripts.push(i);
                    ComponentRef::Script(i)
                }
                ComponentKind::Model(m) => {
                    let Some(res) = &res else { return Err("factory.create: no resources".into()) };
                    ComponentRef::Model(super::spawn::create_model(w, res, slot, (&c.id, path), m, true)?)
                }
                ComponentKind::Camera(cam) => ComponentRef::Camera(w.models.create_camera(slot, &c.id, cam)),
                ComponentKind::Light(l) => ComponentRef::Light(w.models.create_light(slot, &c.id, l)),
                ComponentKind::Factory(fs) => ComponentRef::Factory(add(w, slot, &c.id, fs)),
                ComponentKind::Label(l) => ComponentRef::Label(w.labels.create(slot, &c.id, l)),
                ComponentKind::Sound(s) => {
                    let Some(res) = &res else { return Err("factory.create: no resources".into()) };
                    ComponentRef::Sound(w.sounds.create(res, slot, &c.id, s)?)
                }
                ComponentKind::CollisionObject(co) => {
                    let World { physics, scene, .. } = w;
                    ComponentRef::CollisionObject(physics.create(slot, &c.id, co, scene)?)
                }
                ComponentKind::Sprite(s) => {
                    let material = if s.material == crate::project::sprite::DEFAULT_SPRITE_MATERIAL {
                        None
                    } else {
                        let Some(res) = &res else { return Err("factory.create: no resources".into()) };
                        Some(w.models.material(res, &s.material, path).map_err(|e| e.to_string())?)
                    };
                    ComponentRef::Sprite(w.sprites.create(slot, &c.id, s, material))
                }
                ComponentKind::TileMap(t) => {
                    let World { tilemaps, sprites, models, .. } = w;
                    let material = t.map.material.as_str();
                    let custom = if material.is_empty() || material == crate::project::tilemap::DEFAULT_MATERIAL {
                        None
                    } else {
                        let Some(res) = &res else { return Err("factory.create: no resources".into()) };
                        Some(models.material(res, material, path).map_err(|e| e.to_string())?)
                    };
                    ComponentRef::TileMap(tilemaps.create(slot, &c.id, t, &mut |a| sprites.atlas_index(a), custom))
                }
                ComponentKind::ParticleFx(fx) => {
                    let World { particles, sprites, models, .. } = w;
                    let mut material_of =
                        |m: &str| super::spawn::custom_particle_material(models, res.as_ref(), m, path);
                    ComponentRef::ParticleFx(particles.create(
                        slot,
                        &c.id,
                        fx,
                        &mut |a| sprites.atlas_index(a),
                        &mut material_of,
                    )?)
                }
                ComponentKind::Gui(g) => {
                    // Its .gui_script runs as a script of the same id, listed first (as a
                    // loaded collection's): the runtime makes it from `made.scripts` in the
                    // order `factory_info` lists scripts.
                    if g.0.script.is_some() {
                        let i = *next_script;
                        *next_script += 1;
                        made.scripts.push(i);
                        let id = crate::base::hash::hash_remembered(&c.id);
                        w.scene.add_component(slot, Component { id, kind: ComponentRef::Script(i) });
                    }
                    ComponentRef::Gui(w.gui.create(slot, &c.id, g))
                }
                ComponentKind::CollectionProxy(p) => ComponentRef::CollectionProxy(w.proxies.add(slot, &c.id, p)),
            };
            let id = crate::base::hash::hash_remembered(&c.id);
            w.scene.add_component(slot, Component { id, kind });
        }
    }
    // Read at once (`go.get_world_position`), and a full transform pass per spawn would cost
    // O(all objects): parents come first, and `spawn` set each world to its local transform.
    for (o, &slot) in objects.iter().zip(&made.slots) {
        if let Some(&parent) = o.parent.and_then(|p| made.slots.get(p)) {
            w.scene.place_under(slot, parent);
        }
    }
    Ok(made)
}

/// Registers a factory component; the index goes into the object's component list.
pub fn add(w: &mut World, slot: u32, id: &str, spec: &FactorySpec) -> u32 {
    let id = crate::base::hash::hash_remembered(id);
    let f = &mut w.factories;
    f.next_serial = f.next_serial.wrapping_add(1);
    let made = FactoryInstance { slot, id, spec: spec.clone(), serial: f.next_serial, alive: true };
    if let Some(i) = f.free.pop() {
        f.list[i as usize] = made;
        return i;
    }
    f.list.push(made);
    (f.list.len() - 1) as u32
}

/// The factory of a deleted object: its index is free for the next one.
/// `factory.set_prototype`: factory `i` makes `spec` from now on. Its serial changes, so what
/// the Lua side knew of the old prototype (its scripts, its objects' ids) is asked for again.
pub fn set_prototype(w: &mut World, i: u32, spec: FactorySpec) -> Result<(), String> {
    let f = &mut w.factories;
    let Some(fi) = f.list.get_mut(i as usize).filter(|fi| fi.alive) else {
        return Err("the factory was deleted".into());
    };
    if fi.spec.collection != spec.collection {
        return Err("a factory takes a .go prototype, a collectionfactory a .collection".into());
    }
    f.next_serial = f.next_serial.wrapping_add(1);
    fi.serial = f.next_serial;
    fi.spec = spec;
    Ok(())
}

pub fn remove(w: &mut World, i: u32) {
    if let Some(fi) = w.factories.list.get_mut(i as usize)
        && fi.alive
    {
        fi.alive = false;
        fi.spec.objects = Default::default();
        w.factories.free.push(i);
    }
}
