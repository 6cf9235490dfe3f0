//! Walks a collection, its prototypes and nested collection instances, flattening them into
//! game objects with full id paths, parents first, and collecting every problem on the way.
use super::*;

pub(super) struct Loader<'a> {
    pub(super) res: &'a Resources,
    /// Collections being loaded, outermost first, to name cycles.
    pub(super) stack: Vec<String>,
    pub(super) objects: Vec<ObjectSpec>,
    /// Parsed `.go` files, since many instances usually share one prototype.
    pub(super) prototypes: HashMap<String, Vec<ComponentDesc>>,
    /// Problems that did not stop loading (see [`load_collection_all`]).
    pub(super) problems: Vec<LoadError>,
    /// Every collection file read.
    pub(super) files: Vec<String>,
    /// The id paths of `objects`: an object with a duplicate id (already reported) is left out,
    /// so spawning does not stop at it.
    pub(super) paths: HashSet<String>,
    /// Factory prototypes already flattened, by resource path.
    pub(super) factories: HashMap<String, FactorySpec>,
    /// Collection files parsed so far, by resource path: a file nested many times is read once.
    pub(super) parsed: HashMap<String, Rc<CollectionFile>>,
    /// Game objects each collection file expands to, nested instances included (see
    /// [`Loader::expansion`]).
    pub(super) expansions: HashMap<String, u64>,
    /// The project's `max_instances`: no collection, nor a collection factory's prototype, may
    /// expand to more game objects.
    pub(super) max_instances: u32,
    /// Atlases and tile sources loaded so far, by resource path: sprites share them.
    pub(super) atlases: HashMap<String, std::sync::Arc<crate::project::sprite::Atlas>>,
    /// Particle effects read so far in this load, by path.
    pub(super) effects: HashMap<String, std::sync::Arc<crate::project::particlefx::ParticleFxSpec>>,
    /// Tile maps read so far in this load, by path.
    pub(super) maps: HashMap<String, std::sync::Arc<crate::project::tilemap::TileMapSpec>>,
    /// The `overrides` of the collection instances being loaded, outermost first.
    pub(super) overrides: Vec<PendingOverride>,
}

/// One object's overrides from a collection instance, waiting for the object to be made.
pub(super) struct PendingOverride {
    /// The object's full id path (`/level/room/door`).
    path: String,
    components: Vec<ComponentDesc>,
    /// The collection file that wrote the overrides, and the override's id there.
    file: String,
    id: Located<String>,
    used: bool,
}

impl Loader<'_> {
    /// Loads one collection (the top one or a nested instance) and returns its `name`.
    pub(super) fn collection(
        &mut self,
        path: &Located<String>,
        referrer: &str,
        prefix: &str,
        place: Option<Affine3A>,
    ) -> Result<Option<String>, LoadError> {
        let norm = json::resource_path(path, referrer)?;
        if let Some(i) = self.stack.iter().position(|p| *p == norm) {
            let mut chain = self.stack[i..].to_vec();
            chain.push(norm);
            return Err(path.error(referrer, format!("collection cycle: {}", chain.join(" -> "))));
        }
        if self.stack.len() >= MAX_COLLECTION_DEPTH {
            let msg = format!("collections nested more than {MAX_COLLECTION_DEPTH} deep");
            return Err(path.error(referrer, msg));
        }
        if prefix == "/" {
            self.refuse_past_capacity(path, referrer)?;
        }
        let (norm, file) = self.parsed(path, referrer)?;
        self.problems.extend(duplicate_ids(&file, &norm));
        if !self.files.contains(&norm) {
            self.files.push(norm.clone());
        }
        self.stack.push(norm.clone());
        for o in &file.objects {
            self.object(o, &norm, None, prefix, place.as_ref());
        }
        for c in &file.collections {
            let local = self.transform(&norm, c.position, &c.rotation, &c.euler, c.scale).matrix();
            let placed = place.map_or(local, |p| p * local);
            let inner = format!("{prefix}{}/", c.id.value.0);
            let first = self.overrides.len();
            self.overrides.extend(c.overrides.iter().map(|o| PendingOverride {
                path: format!("{inner}{}", o.id.value),
                components: o.components.clone(),
                file: norm.clone(),
                id: o.id.clone(),
                used: false,
            }));
            if let Err(e) = self.collection(&c.collection, &norm, &inner, Some(placed)) {
                self.problems.push(e);
            }
            for o in self.overrides.drain(first..).filter(|o| !o.used).collect::<Vec<_>>() {
                let msg = format!("overrides: collection instance '{}' has no object '{}'", c.id.value.0, o.id.value);
                self.problems.push(o.id.error(&o.file, msg));
            }
        }
        self.stack.pop();
        Ok(file.name.clone())
    }

    /// A collection file, parsed once however many instances name it.
    fn parsed(&mut self, path: &Located<String>, referrer: &str) -> Result<(String, Rc<CollectionFile>), LoadError> {
        let norm = json::resource_path(path, referrer)?;
        if let Some(f) = self.parsed.get(&norm) {
            return Ok((norm, f.clone()));
        }
        let (norm, file): (String, CollectionFile) = json::read(self.res, path, referrer)?;
        let file = Rc::new(file);
        self.parsed.insert(norm.clone(), file.clone());
        Ok((norm, file))
    }

    /// Refuses a collection (the top one or a collection factory's prototype) that expands to
    /// more than `max_instances` game objects, before one of them is made: 22 tiny files that
    /// each nest two instances of the next expand to millions (issue 32, "laughs").
    fn refuse_past_capacity(&mut self, path: &Located<String>, referrer: &str) -> Result<(), LoadError> {
        let total = self.expansion(path, referrer, &mut Vec::new());
        let max = self.max_instances;
        if total <= u64::from(max) {
            return Ok(());
        }
        let norm = json::resource_path(path, referrer)?;
        let msg = format!(
            "collection '{norm}' expands to {total} game objects (nested collections included), more than \
             max_instances ({max}; project.json \"max_instances\" raises it)"
        );
        Err(path.error(referrer, msg))
    }

    /// The game objects `path` expands to, counted from the files alone (each parsed once, each
    /// count kept), saturating. A file that cannot be read, a cycle or too deep a nesting counts
    /// nothing here: loading reports those.
    fn expansion(&mut self, path: &Located<String>, referrer: &str, open: &mut Vec<String>) -> u64 {
        let Ok(norm) = json::resource_path(path, referrer) else { return 0 };
        if let Some(&n) = self.expansions.get(&norm) {
            return n;
        }
        if open.contains(&norm) || open.len() >= MAX_COLLECTION_DEPTH {
            return 0;
        }
        let Ok((norm, file)) = self.parsed(path, referrer) else { return 0 };
        fn objects(o: &ObjectDesc) -> u64 {
            o.children.iter().fold(1, |n, c| n.saturating_add(objects(c)))
        }
        let mut total = file.objects.iter().fold(0u64, |n, o| n.saturating_add(objects(o)));
        open.push(norm.clone());
        for c in &file.collections {
            total = total.saturating_add(self.expansion(&c.collection, &norm, open));
        }
        open.pop();
        self.expansions.insert(norm, total);
        total
    }

    /// Adds a game object and its children; `place` is set only for the top-level objects of a
    /// nested collection instance, because children stay relative to their parent.
    pub(super) fn object(
        &mut self,
        d: &ObjectDesc,
        file: &str,
        parent: Option<usize>,
        prefix: &str,
        place: Option<&Affine3A>,
    ) {
        let path = format!("{prefix}{}", d.id.value.0);
        if !self.paths.insert(path.clone()) {
            return;
        }
        let mut trs = self.transform(file, d.position, &d.rotation, &d.euler, d.scale);
        if let Some(p) = place {
            trs = trs.placed(p);
        }
        let components = self.components(d, file, &path);
        let index = self.objects.len();
        self.objects.push(ObjectSpec {
            path,
            collection_prefix: prefix.to_string(),
            parent,
            position: trs.t.to_array(),
            rotation: trs.r.to_array(),
            scale: trs.s.to_array(),
            components,
        });
        for c in &d.children {
            self.object(c, file, Some(index), prefix, None);
        }
    }

    /// [`transform`], or the identity with the problem noted.
    pub(super) fn transform(
        &mut self,
        file: &str,
        position: Option<[f32; 3]>,
        rotation: &Option<Located<[f32; 4]>>,
        euler: &Option<Located<[f32; 3]>>,
        scale: Option<[f32; 3]>,
    ) -> Trs {
        transform(file, position, rotation, euler, scale).unwrap_or_else(|e| {
            self.problems.push(e);
            Trs::IDENTITY
        })
    }

    /// The prototype's components with the instance's added or merged in by id; the ones that
    /// cannot be loaded are left out (and noted).
    pub(super) fn components(&mut self, d: &ObjectDesc, file: &str, path: &str) -> Vec<ComponentSpec> {
        self.problems.extend(duplicate_component_ids(&d.components, file));
        let mut list = match &d.prototype {
            Some(p) => self.prototype(p, file).unwrap_or_else(|e| {
                self.problems.push(e);
                Vec::new()
            }),
            None => Vec::new(),
        };
        for c in &d.components {
            match merge_by_id(&mut list, c, file) {
                Some(Err(e)) => self.problems.push(e),
                Some(Ok(())) => {}
                None => list.push(c.clone()),
            }
        }
        // The innermost collection instance's overrides first, so the outermost one's win.
        for o in self.overrides.iter_mut().rev().filter(|o| o.path == path) {
            o.used = true;
            for c in &o.components {
                match merge_by_id(&mut list, c, &o.file) {
                    Some(Err(e)) => self.problems.push(e),
                    Some(Ok(())) => {}
                    None => {
                        let msg = format!("overrides: object '{}' has no component '{}'", o.id.value, c.id.value.0);
                        self.problems.push(c.id.error(&o.file, msg));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for c in &list {
            match self.component(c, file) {
                Ok(spec) => out.push(spec),
                Err(e) => self.problems.push(e),
            }
        }
        out
    }

    pub(super) fn prototype(&mut self, path: &Located<String>, file: &str) -> Result<Vec<ComponentDesc>, LoadError> {
        let norm = json::resource_path(path, file)?;
        if let Some(c) = self.prototypes.get(&norm) {
            return Ok(c.clone());
        }
        let (norm, go): (String, GoFile) = json::read(self.res, path, file)?;
        self.problems.extend(duplicate_component_ids(&go.components, &norm));
        self.prototypes.insert(norm, go.components.clone());
        Ok(go.components)
    }

    pub(super) fn component(&mut self, c: &ComponentDesc, file: &str) -> Result<ComponentSpec, LoadError> {
        let id = &c.id.value.0;
        let Some(field) = &c.ty else {
            let msg = format!("component '{id}' needs a 'type' ({TYPE_NAMES})");
            return Err(c.id.error(file, msg));
        };
        let ty = match &field.value {
            TypeField::Known(t) => *t,
            TypeField::Unknown(name) => {
                return Err(field.error(file, format!("unknown component type '{name}' (expected {TYPE_NAMES})")));
            }
        };
        if let Some(field) = foreign_field(c, ty) {
            let msg = format!("field '{field}' does not apply to {} component '{id}'", ty.name());
            return Err(c.id.error(file, msg));
        }
        let kind = match ty {
            ComponentType::Script => self.script(c, file)?,
            ComponentType::Model => {
                let mut spec = self.model(c, file)?;
                spec.transform = Box::new(component_transform(c, file)?);
                ComponentKind::Model(spec)
            }
            ComponentType::Camera => ComponentKind::Camera(camera(c, file)?),
            ComponentType::Light => ComponentKind::Light(light(c, file)?),
            ComponentType::Label => ComponentKind::Label(label(c, file, self.res)?),
            ComponentType::Factory => ComponentKind::Factory(self.factory(c, file, false)?),
            ComponentType::CollectionFactory => ComponentKind::Factory(self.factory(c, file, true)?),
            ComponentType::CollectionProxy => ComponentKind::CollectionProxy(self.proxy(c, file)?),
            ComponentType::Sound => ComponentKind::Sound(super::sound::sound(c, file)?),
            ComponentType::CollisionObject => {
                let tiles = match c.tilemap {
                    Some(_) => Some(crate::project::tilemap::collision(&*self.tilemap(c, file)?)),
                    None => None,
                };
                ComponentKind::CollisionObject(Box::new(collision_object(c, file, tiles)?))
            }
            ComponentType::Sprite => ComponentKind::Sprite(self.sprite(c, file)?),
            ComponentType::ParticleFx => ComponentKind::ParticleFx(crate::project::particlefx::ParticleFxComponent {
                effect: self.particlefx(c, file)?,
                transform: component_transform(c, file)?,
            }),
            ComponentType::TileMap => ComponentKind::TileMap(crate::project::tilemap::TileMapComponent {
                map: self.tilemap(c, file)?,
                transform: component_transform(c, file)?,
            }),
            ComponentType::Gui => match &c.gui {
                Some(g) => ComponentKind::Gui(crate::project::gui::GuiSpec::new(crate::project::gui::load_gui(
                    self.res, g, file,
                )?)),
                None => return Err(c.id.error(file, format!("gui component '{id}' needs `gui` (a .gui file)"))),
            },
        };
        Ok(ComponentSpec { id: id.clone(), kind })
    }

    /// Reads the script once so a missing file is reported where the collection names it. A
    /// malformed override is noted and left out, so the others are still checked against the
    /// script's declarations.
    pub(super) fn script(&mut self, c: &ComponentDesc, file: &str) -> Result<ComponentKind, LoadError> {
        let mut properties = Vec::new();
        for (k, v) in c.properties.iter().flat_map(|p| &p.0) {
            match property_value(k, v, file) {
                Ok(value) => properties.push((k.clone(), Located { value, at: v.at.clone() })),
                Err(e) => self.problems.push(e),
            }
        }
        let Some(path) = &c.script else {
            let msg = format!("script component '{}' needs a 'script' path", c.id.value.0);
            return Err(c.id.error(file, msg));
        };
        let (script, _) = json::read_text(self.res, path, file)?;
        Ok(ComponentKind::Script { script, properties })
    }

    /// Flattens a factory's prototype as if it were a collection of its own (fresh ids, same
    /// problem list), so `run` refuses and `sinew check` reports a broken prototype up front.
    /// `stack` holds the `.go` too, so a prototype that spawns itself is a cycle.
    pub(super) fn factory(
        &mut self,
        c: &ComponentDesc,
        file: &str,
        collection: bool,
    ) -> Result<FactorySpec, LoadError> {
        let (kind, ext) = if collection { ("collectionfactory", ".collection") } else { ("factory", ".go") };
        let id = &c.id.value.0;
        let Some(path) = &c.prototype else {
            return Err(c.id.error(file, format!("{kind} '{id}' needs a 'prototype' (a {ext} file)")));
        };
        self.factory_prototype(kind, id, path, file, collection)
    }

    /// [`factory`](Self::factory) once the prototype's path is known (`factory.set_prototype`
    /// comes here directly).
    pub(super) fn factory_prototype(
        &mut self,
        kind: &str,
        id: &str,
        path: &Located<String>,
        file: &str,
        collection: bool,
    ) -> Result<FactorySpec, LoadError> {
        let ext = if collection { ".collection" } else { ".go" };
        let norm = json::resource_path(path, file)?;
        if !norm.ends_with(ext) {
            return Err(path.error(file, format!("{kind} '{id}': prototype '{norm}' must be a {ext} file")));
        }
        if let Some(f) = self.factories.get(&norm) {
            return Ok(f.clone());
        }
        if let Some(i) = self.stack.iter().position(|p| *p == norm) {
            let mut chain = self.stack[i..].to_vec();
            chain.push(norm);
            return Err(path.error(file, format!("factory cycle: {}", chain.join(" -> "))));
        }
        let outer_objects = std::mem::take(&mut self.objects);
        let outer_paths = std::mem::take(&mut self.paths);
        // The prototype is shared by every spawn: no collection instance's overrides reach it.
        let outer_overrides = std::mem::take(&mut self.overrides);
        let loaded = if collection {
            self.collection(path, file, "/", None).map(|_| ())
        } else {
            // The one object of a `.go` prototype; its id is replaced by `/instanceN` on spawn.
            let desc = ObjectDesc {
                id: Located { value: Id("instance".into()), at: None },
                position: None,
                rotation: None,
                euler: None,
                scale: None,
                prototype: Some(path.clone()),
                components: Vec::new(),
                children: Default::default(),
            };
            self.stack.push(norm.clone());
            let before = self.problems.len();
            self.object(&desc, file, None, "/", None);
            self.stack.pop();
            // A missing `.go` is noted by `components` and leaves an empty object: an error here.
            if self.problems.len() > before { Err(self.problems.remove(before)) } else { Ok(()) }
        };
        let objects = std::mem::replace(&mut self.objects, outer_objects);
        self.paths = outer_paths;
        self.overrides = outer_overrides;
        loaded?;
        let spec = FactorySpec { prototype: norm.clone(), collection, objects: std::sync::Arc::new(objects) };
        self.factories.insert(norm, spec.clone());
        Ok(spec)
    }

    /// A proxy's collection, flattened on its own (fresh ids, the same problem list) as a
    /// collection factory's prototype is, with its `name` for the socket of its world.
    pub(super) fn proxy(&mut self, c: &ComponentDesc, file: &str) -> Result<ProxySpec, LoadError> {
        let id = &c.id.value.0;
        let Some(path) = &c.collection else {
            return Err(c.id.error(file, format!("collectionproxy '{id}' needs a 'collection' (a .collection file)")));
        };
        let norm = json::resource_path(path, file)?;
        if !norm.ends_with(".collection") {
            return Err(path.error(file, format!("collectionproxy '{id}': '{norm}' must be a .collection file")));
        }
        let outer_objects = std::mem::take(&mut self.objects);
        let outer_paths = std::mem::take(&mut self.paths);
        let outer_overrides = std::mem::take(&mut self.overrides);
        let loaded = self.collection(path, file, "/", None);
        let objects = std::mem::replace(&mut self.objects, outer_objects);
        self.paths = outer_paths;
        self.overrides = outer_overrides;
        let name = loaded?.unwrap_or_else(|| "default".into());
        if name.is_empty() || name.contains([':', '/', '#']) {
            return Err(
                path.error(file, format!("collectionproxy '{id}': '{norm}' needs a name usable as a URL socket"))
            );
        }
        Ok(ProxySpec { collection: norm, name, objects: std::sync::Arc::new(objects) })
    }

    pub(super) fn model(&self, c: &ComponentDesc, file: &str) -> Result<ModelSpec, LoadError> {
        let inline = inline_model(c);
        let Some(path) = &c.model else {
            let missing = || c.id.error(file, format!("model component '{}' needs 'model' or 'mesh'", c.id.value.0));
            let source = inline.mesh.as_ref().map_or(c.id.file(file), |m| m.file(file)).to_string();
            return model_spec(&source, inline, missing);
        };
        if inline.mesh.is_some() || has_model_options(&inline) {
            let msg = format!("model component '{}': give either 'model' or the model fields inline", c.id.value.0);
            return Err(c.id.error(file, msg));
        }
        let (norm, fields): (String, ModelFields) = json::read(self.res, path, file)?;
        let mut spec = model_spec(&norm, fields, || LoadError::new(&norm, "missing field `mesh`"))?;
        // Per placement, so one `.model` can be a shadow caster here and not there.
        spec.cast_shadows = c.cast_shadows.unwrap_or(spec.cast_shadows);
        spec.receive_shadows = c.receive_shadows.unwrap_or(spec.receive_shadows);
        Ok(spec)
    }
}

/// Ids name objects in URLs, so they must be non-empty and unique across the whole file,
/// children and nested collection instances included.
pub(super) fn duplicate_ids(file: &CollectionFile, norm: &str) -> Vec<LoadError> {
    pub(super) fn walk<'a>(o: &'a ObjectDesc, out: &mut Vec<&'a Located<Id>>) {
        out.push(&o.id);
        o.children.iter().for_each(|c| walk(c, out));
    }
    let mut ids = Vec::new();
    file.objects.iter().for_each(|o| walk(o, &mut ids));
    ids.extend(file.collections.iter().map(|c| &c.id));
    let mut seen = HashSet::new();
    let dup = |id: &Located<Id>| {
        if id.value.0.is_empty() {
            return id.error(norm, "an id must not be empty");
        }
        let msg = format!("duplicate id '{}' (ids must be unique within a collection, children included)", id.value.0);
        id.error(norm, msg)
    };
    ids.into_iter().filter(|id| id.value.0.is_empty() || !seen.insert(&id.value)).map(dup).collect()
}

pub(super) fn duplicate_component_ids(list: &[ComponentDesc], file: &str) -> Vec<LoadError> {
    let mut seen = HashSet::new();
    let dup = |c: &ComponentDesc| c.id.error(file, format!("duplicate component id '{}'", c.id.value.0));
    list.iter().filter(|c| !seen.insert(&c.id.value)).map(dup).collect()
}
