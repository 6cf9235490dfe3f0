//! Turning a loaded collection into game objects and component instances.
use super::World;
use crate::base::error::LoadError;
use crate::base::hash::hash_remembered;
use crate::project::json::Located;
use crate::project::{CollectionSpec, ComponentKind, PropertyValue, Resources};
use crate::scene::{Component, ComponentRef};
use glam::{Quat, Vec3};
use std::cell::RefCell;

/// Creates script component instances on behalf of the spawner.
pub trait ScriptFactory {
    /// The script's `go.property` declarations as (name, kind) pairs, kinds as `go.property`
    /// names them (`number`, `boolean`, `string`, `hash`, `url`, `vector3`, `vector4`, `quat`);
    /// loading it runs its top level. An error names the script file.
    fn declarations(&mut self, script: &str) -> Result<Vec<(String, String)>, String>;

    /// Returns the new instance index, or an error message naming the script. `props` have been
    /// checked against [`ScriptFactory::declarations`] with [`check_overrides`].
    fn create(
        &mut self,
        slot: u32,
        component: &str,
        script: &str,
        props: &[(String, Located<PropertyValue>)],
    ) -> Result<u32, String>;
}

/// The `go.property` kind an override's JSON value gives; a 4-number array fits a quat too.
fn override_kind(v: &PropertyValue) -> &'static str {
    match v {
        PropertyValue::Number(_) => "number",
        PropertyValue::Bool(_) => "boolean",
        PropertyValue::String(_) => "string",
        PropertyValue::Hash(_) => "hash",
        PropertyValue::Url(_) => "url",
        PropertyValue::Vector3(_) => "vector3",
        PropertyValue::Vector4(_) => "vector4",
    }
}

/// Why a URL override cannot be parsed. Parse errors do not depend on where the URL is resolved
/// from, so any context will do; finding them here gives them the override's position.
fn url_problem(v: &PropertyValue) -> Option<String> {
    let PropertyValue::Url(text) = v else { return None };
    let anywhere = crate::scene::url::Context { socket: 0, prefix: "/", path: 0, fragment: 0 };
    crate::scene::url::parse(text, &anywhere).err()
}

/// Override kinds that fit a declared property of another kind: a 4-number value for a quat.
/// Written once for the two places that decide what fits: [`check_overrides`], and the script
/// runtime, which leaves out what does not fit from a factory's prototype in a Defold project.
pub const OTHER_KINDS_THAT_FIT: &[(&str, &str)] = &[("quat", "vector4")];

/// Whether an override of kind `given` sets a property declared as `declared`.
fn fits(declared: &str, given: &str) -> bool {
    declared == given || OTHER_KINDS_THAT_FIT.contains(&(declared, given))
}

/// What becomes of an override that does not fit its script: one naming no declared property,
/// or of another type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misfit {
    /// Sinew's own files refuse it: a typo the game would otherwise run with.
    Refused,
    /// A Defold project's is left out, with a warning: Defold's editor drops such an override
    /// when it loads the collection (and writes the file without it, defold/defold#9682), so its
    /// build never sees one, and a game whose library renamed a property runs there (combochamp
    /// sets monarch's `transition_url`, which its monarch no longer declares).
    LeftOut,
}

impl Misfit {
    /// [`Misfit::LeftOut`] in a Defold project, else [`Misfit::Refused`].
    pub fn of(res: &Resources) -> Misfit {
        if crate::project::settings::is_defold(res) { Misfit::LeftOut } else { Misfit::Refused }
    }
}

/// What [`check_overrides`] found, each pointing at where the override was written.
#[derive(Debug, Default)]
pub struct Checked {
    pub refused: Vec<LoadError>,
    /// With the index of the override in the list checked.
    pub left_out: Vec<(usize, LoadError)>,
}

/// Every override of `props` that names no declared property or has another type, pointing at
/// where it was written (not at the instance: a prototype's override is one mistake however many
/// objects use it), refused or left out as `misfit` says; a URL that does not parse is refused
/// either way. `run` refuses to start with any refused, and `sinew check` reports the same list,
/// so the two cannot disagree about a collection.
pub fn check_overrides(
    script: &str,
    declared: &[(String, String)],
    props: &[(String, Located<PropertyValue>)],
    misfit: Misfit,
) -> Checked {
    let mut out = Checked::default();
    for (i, (name, v)) in props.iter().enumerate() {
        let given = override_kind(&v.value);
        let problem = match declared.iter().find(|(n, _)| n == name) {
            None => {
                let names: Vec<&str> = declared.iter().map(|(n, _)| n.as_str()).collect();
                let known = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                format!("script '{script}' has no property '{name}' to override (declared: {known})")
            }
            Some((_, kind)) if kind == "url" && given == "url" => match url_problem(&v.value) {
                Some(e) => {
                    out.refused.push(v.error(script, format!("property '{name}': {e}")));
                    continue;
                }
                None => continue,
            },
            Some((_, kind)) if fits(kind, given) => continue,
            Some((_, kind)) => {
                format!(
                    "property '{name}' of script '{script}' is a {kind}, this override is a {given}{}",
                    prefix_hint(kind, &v.value)
                )
            }
        };
        match misfit {
            Misfit::Refused => out.refused.push(v.error(script, problem)),
            Misfit::LeftOut => out.left_out.push((i, v.error(script, format!("{problem}; left out, as Defold does")))),
        }
    }
    out
}

/// Collection files are JSON, which has no hash or URL type: a plain string where one is
/// declared is the usual slip, so the message shows the prefixed spelling.
fn prefix_hint(kind: &str, value: &PropertyValue) -> String {
    match (kind, value) {
        ("url" | "hash", PropertyValue::String(s)) => {
            format!(" (a {kind} is written with its prefix in a collection: \"{kind}:{s}\")")
        }
        _ => String::new(),
    }
}

/// A script instance, made only when its overrides fit the script's declarations (or, in a
/// Defold project, without those that do not: `left_out` gets them).
fn create_script(
    scripts: &mut dyn ScriptFactory,
    (slot, component, script): (u32, &str, &str),
    props: &[(String, Located<PropertyValue>)],
    misfit: Misfit,
    left_out: &mut Vec<LoadError>,
) -> Result<u32, Vec<String>> {
    let declared = scripts.declarations(script).map_err(|e| vec![e])?;
    let checked = check_overrides(script, &declared, props, misfit);
    if !checked.refused.is_empty() {
        return Err(checked.refused.iter().map(LoadError::to_string).collect());
    }
    if checked.left_out.is_empty() {
        return scripts.create(slot, component, script, props).map_err(|e| vec![e]);
    }
    let left = |i: usize| checked.left_out.iter().any(|&(j, _)| j == i);
    let kept: Vec<_> = props.iter().enumerate().filter(|&(i, _)| !left(i)).map(|(_, p)| p.clone()).collect();
    left_out.extend(checked.left_out.into_iter().map(|(_, e)| e));
    scripts.create(slot, component, script, &kept).map_err(|e| vec![e])
}

/// Spawns every object of `spec` with its components. A component that cannot be created (a
/// model that cannot be imported, a script that does not load, an override that does not fit)
/// is left out and the rest are still made, so every problem is found in one pass; the result
/// lists them all.
pub fn spawn_collection(
    world: &RefCell<World>,
    res: &Resources,
    spec: &CollectionSpec,
    scripts: &mut dyn ScriptFactory,
) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    let (misfit, mut left_out) = (Misfit::of(res), Vec::new());
    world.borrow_mut().factories.res = Some(res.clone());
    let mut slots = Vec::with_capacity(spec.objects.len());
    for o in &spec.objects {
        let mut w = world.borrow_mut();
        let prefix = w.scene.intern_prefix(&o.collection_prefix);
        let rot = Quat::from_array(o.rotation).normalize();
        let slot = w.scene.spawn(&o.path, prefix, Vec3::from(o.position), rot, Vec3::from(o.scale));
        let slot = slot.map_err(|e| vec![e])?;
        if let Some(p) = o.parent {
            let parent = *slots.get(p).ok_or_else(|| vec![format!("{}: parent listed after child", o.path)])?;
            w.scene.set_parent(slot, parent, false).map_err(|e| vec![e])?;
        }
        slots.push(slot);
    }
    for (o, &slot) in spec.objects.iter().zip(&slots) {
        for c in &o.components {
            let kind = match &c.kind {
                ComponentKind::Script { script, properties } => {
                    match create_script(scripts, (slot, &c.id, script), properties, misfit, &mut left_out) {
                        Ok(i) => ComponentRef::Script(i),
                        Err(mut e) => {
                            problems.append(&mut e);
                            continue;
                        }
                    }
                }
                ComponentKind::Model(m) => {
                    match create_model(&mut world.borrow_mut(), res, slot, (&c.id, &o.path), m, false) {
                        Ok(i) => ComponentRef::Model(i),
                        Err(e) => {
                            problems.push(e);
                            continue;
                        }
                    }
                }
                ComponentKind::CollectionProxy(p) => {
                    check_proxied(scripts, p, &mut problems, (misfit, &mut left_out));
                    ComponentRef::CollectionProxy(world.borrow_mut().proxies.add(slot, &c.id, p))
                }
                ComponentKind::Factory(f) => {
                    check_prototype(world, res, scripts, f, &mut problems, (misfit, &mut left_out));
                    ComponentRef::Factory(super::factory::add(&mut world.borrow_mut(), slot, &c.id, f))
                }
                ComponentKind::Camera(cam) => {
                    ComponentRef::Camera(world.borrow_mut().models.create_camera(slot, &c.id, cam))
                }
                ComponentKind::Light(l) => ComponentRef::Light(world.borrow_mut().models.create_light(slot, &c.id, l)),
                ComponentKind::Label(l) => ComponentRef::Label(world.borrow_mut().labels.create(slot, &c.id, l)),
                ComponentKind::Sound(s) => match world.borrow_mut().sounds.create(res, slot, &c.id, s) {
                    Ok(i) => ComponentRef::Sound(i),
                    Err(e) => {
                        problems.push(e);
                        continue;
                    }
                },
                ComponentKind::CollisionObject(co) => {
                    let w = &mut *world.borrow_mut();
                    match w.physics.create(slot, &c.id, co, &mut w.scene) {
                        Ok(i) => ComponentRef::CollisionObject(i),
                        Err(e) => {
                            problems.push(e);
                            continue;
                        }
                    }
                }
                ComponentKind::Sprite(s) => {
                    let w = &mut *world.borrow_mut();
                    // A custom material goes through the models' registry: one parse, one
                    // compiled program, and the same hot reload as a model's material.
                    let material = if s.material == crate::project::sprite::DEFAULT_SPRITE_MATERIAL {
                        None
                    } else {
                        match w.models.material(res, &s.material, &o.path) {
                            Ok(m) => Some(m),
                            Err(e) => {
                                problems.push(format!("{e}\n(sprite '{}' of {})", c.id, o.path));
                                continue;
                            }
                        }
                    };
                    ComponentRef::Sprite(w.sprites.create(slot, &c.id, s, material))
                }
                ComponentKind::TileMap(t) => {
                    let super::World { tilemaps, sprites, models, .. } = &mut *world.borrow_mut();
                    let material = t.map.material.as_str();
                    let custom = if material.is_empty() || material == crate::project::tilemap::DEFAULT_MATERIAL {
                        Ok(None)
                    } else {
                        models.material(res, material, &o.path).map(Some)
                    };
                    match custom {
                        Ok(m) => {
                            ComponentRef::TileMap(tilemaps.create(slot, &c.id, t, &mut |a| sprites.atlas_index(a), m))
                        }
                        Err(e) => {
                            problems.push(format!("{e}\n(tilemap '{}' of {})", c.id, o.path));
                            continue;
                        }
                    }
                }
                ComponentKind::ParticleFx(fx) => {
                    let super::World { particles, sprites, models, .. } = &mut *world.borrow_mut();
                    // Custom materials go through the models' registry, as a sprite's do.
                    let mut material_of = |m: &str| custom_particle_material(models, Some(res), m, &o.path);
                    match particles.create(slot, &c.id, fx, &mut |a| sprites.atlas_index(a), &mut material_of) {
                        Ok(i) => ComponentRef::ParticleFx(i),
                        Err(e) => {
                            problems.push(format!("{e}\n(particlefx '{}' of {})", c.id, o.path));
                            continue;
                        }
                    }
                }
                ComponentKind::Gui(g) => {
                    // The scene's .gui_script runs as a script of the same id, listed first,
                    // so messages and input focus for `#id` reach it.
                    if let Some(script) = &g.0.script {
                        match create_script(scripts, (slot, &c.id, script), &[], misfit, &mut left_out) {
                            Ok(i) => {
                                let id = hash_remembered(&c.id);
                                let kind = ComponentRef::Script(i);
                                world.borrow_mut().scene.add_component(slot, Component { id, kind });
                            }
                            Err(mut e) => problems.append(&mut e),
                        }
                    }
                    let super::World { gui, models, .. } = &mut *world.borrow_mut();
                    let i = gui.create(slot, &c.id, g);
                    // Materials go through the models' registry, as a sprite's do.
                    let mut register = |m: &str| models.material(res, m, &g.0.path).map_err(|e| e.to_string());
                    if let Err(e) = gui.resolve_materials(i, &mut register) {
                        problems.push(format!("{e}\n(gui '{}' of {})", c.id, o.path));
                    }
                    ComponentRef::Gui(i)
                }
            };
            let id = hash_remembered(&c.id);
            world.borrow_mut().scene.add_component(slot, Component { id, kind });
        }
    }
    world.borrow_mut().scene.update_world_transforms();
    // Each once a run, however many objects, prototypes and proxy loads meet it.
    let mut w = world.borrow_mut();
    for e in left_out {
        let text = e.to_string();
        if w.factories.left_out_overrides.insert(text.clone()) {
            log::warn!("{text}");
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// A model component with its bone objects and default animation, for load and factories.
pub(super) fn create_model(
    w: &mut World,
    res: &Resources,
    slot: u32,
    (id, path): (&str, &str),
    m: &crate::project::ModelSpec,
    spawned: bool,
) -> Result<u32, String> {
    let i = w.models.create_model(res, slot, (id, path), m)?;
    if m.create_go_bones {
        super::animation::create_bones(w, i, path, id, spawned)?;
    }
    if let Some(name) = &m.default_animation {
        super::animation::start_default(w, i, name, &m.source)?;
    }
    Ok(i)
}

/// The components of `objects` and of the files their factories name (with `proxies`, their
/// proxies' collections too), each file once (`seen`): the loader refused cycles of
/// prototypes, but a prototype may be named by many factories, and a menu and its level often
/// name each other through proxies.
fn components_within<'a>(
    objects: &'a [crate::project::ObjectSpec],
    proxies: bool,
    seen: &mut Vec<&'a str>,
    out: &mut Vec<&'a crate::project::ComponentSpec>,
) {
    for c in objects.iter().flat_map(|o| &o.components) {
        out.push(c);
        let (file, inner) = match &c.kind {
            ComponentKind::Factory(f) => (f.prototype.as_str(), &f.objects),
            ComponentKind::CollectionProxy(p) if proxies => (p.collection.as_str(), &p.objects),
            _ => continue,
        };
        if !seen.contains(&file) {
            seen.push(file);
            components_within(inner, proxies, seen, out);
        }
    }
}

/// The script overrides inside a factory prototype (and the prototypes of its factories), checked
/// at load as a loaded object's are: `factory.create` must not be the first to find a typo. Then
/// the prototype's models are imported, so a missing or broken mesh is a load problem (`run`
/// refuses, `sinew check` reports it), not a Lua error at the first `factory.create`; the import
/// is cached, so spawning does not read files.
fn check_prototype(
    world: &RefCell<World>,
    res: &Resources,
    scripts: &mut dyn ScriptFactory,
    f: &crate::project::FactorySpec,
    problems: &mut Vec<String>,
    misfits: (Misfit, &mut Vec<LoadError>),
) {
    let mut components = Vec::new();
    components_within(&f.objects, false, &mut vec![f.prototype.as_str()], &mut components);
    check_scripts(scripts, &components, problems, misfits);
    let w = &mut *world.borrow_mut();
    for c in &components {
        if let ComponentKind::Model(m) = &c.kind
            && let Err(e) = w.models.asset(res, &m.mesh)
        {
            problems.push(format!("{e}\n(model '{}' of {})", c.id, m.source));
        }
    }
}

/// Loads the scripts of `components` (a gui's .gui_script too) and checks their overrides.
fn check_scripts(
    scripts: &mut dyn ScriptFactory,
    components: &[&crate::project::ComponentSpec],
    problems: &mut Vec<String>,
    (misfit, left_out): (Misfit, &mut Vec<LoadError>),
) {
    for c in components {
        // A gui's .gui_script is loaded (and its errors found) with the other scripts.
        if let ComponentKind::Gui(g) = &c.kind
            && let Some(script) = &g.0.script
            && let Err(e) = scripts.declarations(script)
        {
            problems.push(e);
        }
        if let ComponentKind::Script { script, properties } = &c.kind {
            match scripts.declarations(script) {
                Ok(declared) => {
                    let checked = check_overrides(script, &declared, properties, misfit);
                    problems.extend(checked.refused.iter().map(LoadError::to_string));
                    left_out.extend(checked.left_out.into_iter().map(|(_, e)| e));
                }
                Err(e) => problems.push(e),
            }
        }
    }
}

/// The scripts of a proxied collection (and of the collections its proxies and factories name,
/// each once), checked at load as a factory prototype's are, as Defold's build checks every
/// collection: a misnamed override is found by `run` and `sinew check`, not when the proxy's
/// world is made half-way. Its models are left to the proxy's load (`async_load` imports them
/// on a thread).
fn check_proxied(
    scripts: &mut dyn ScriptFactory,
    p: &crate::project::ProxySpec,
    problems: &mut Vec<String>,
    misfits: (Misfit, &mut Vec<LoadError>),
) {
    let mut components = Vec::new();
    components_within(&p.objects, true, &mut vec![p.collection.as_str()], &mut components);
    check_scripts(scripts, &components, problems, misfits);
}

/// A particle emitter's material: None for Defold's built-in particle material (drawn by the
/// sprites' program), else a custom one from the models' registry.
pub(crate) fn custom_particle_material(
    models: &mut crate::game::model_world::ModelWorld,
    res: Option<&Resources>,
    material: &str,
    referrer: &str,
) -> Result<Option<u32>, String> {
    if material.is_empty() || material == crate::game::particles::DEFAULT_MATERIAL {
        return Ok(None);
    }
    let res = res.ok_or("no resources to load the material from")?;
    models.material(res, material, referrer).map(Some).map_err(|e| e.to_string())
}
