//! Collections (`*.collection`), game object files (`*.go`) and models (`*.model`), flattened
//! into one `CollectionSpec` so the scene never sees prototypes, nesting or JSON.
use crate::base::path::LoadError;
use crate::project::Resources;
use crate::project::json::{self, Located, OrderedMap};
use crate::project::types::*;
use glam::{Affine3A, Quat, Vec3};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Deeper nesting than this is almost certainly a mistake and would only slow loading down.
pub const MAX_COLLECTION_DEPTH: usize = 32;

/// The spec's default vertical field of view (0.7854 rad, 45 degrees).
pub const DEFAULT_FOV: f32 = std::f32::consts::FRAC_PI_4;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CollectionFile {
    name: Option<String>,
    #[serde(default)]
    objects: Vec<ObjectDesc>,
    #[serde(default)]
    collections: Vec<InstanceDesc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectDesc {
    id: Located<Id>,
    #[serde(default, deserialize_with = "json::position")]
    position: Option<[f32; 3]>,
    rotation: Option<Located<[f32; 4]>>,
    euler: Option<Located<[f32; 3]>>,
    #[serde(default, deserialize_with = "json::scale")]
    scale: Option<[f32; 3]>,
    prototype: Option<Located<String>>,
    #[serde(default)]
    components: Vec<ComponentDesc>,
    #[serde(default)]
    children: json::Children<ObjectDesc>,
}

/// A nested collection instance: not a game object, only a prefix and a placement.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InstanceDesc {
    id: Located<Id>,
    collection: Located<String>,
    #[serde(default, deserialize_with = "json::position")]
    position: Option<[f32; 3]>,
    rotation: Option<Located<[f32; 4]>>,
    euler: Option<Located<[f32; 3]>>,
    #[serde(default, deserialize_with = "json::scale")]
    scale: Option<[f32; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GoFile {
    #[serde(default)]
    components: Vec<ComponentDesc>,
}

/// Every field any component type may have, so `deny_unknown_fields` catches typos with their
/// position; fields that belong to another type are refused after parsing (`foreign_field`).
/// `type` is optional because an instance may override a prototype component by id alone.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct ComponentDesc {
    id: Located<Id>,
    #[serde(rename = "type")]
    ty: Option<ComponentType>,
    script: Option<Located<String>>,
    properties: Option<OrderedMap<Located<Value>>>,
    model: Option<Located<String>>,
    mesh: Option<Located<String>>,
    skeleton: Option<Located<String>>,
    animations: Option<Vec<Located<String>>>,
    default_animation: Option<Located<String>>,
    material: Option<Located<String>>,
    textures: Option<OrderedMap<Located<String>>>,
    create_go_bones: Option<bool>,
    fov: Option<f32>,
    near: Option<f32>,
    far: Option<f32>,
    orthographic: Option<bool>,
    ortho_height: Option<f32>,
    kind: Option<LightKindDesc>,
    color: Option<[f32; 3]>,
    intensity: Option<f32>,
}

/// A `.model` file, or the same fields taken from a component.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ModelFields {
    mesh: Option<Located<String>>,
    skeleton: Option<Located<String>>,
    animations: Option<Vec<Located<String>>>,
    default_animation: Option<Located<String>>,
    material: Option<Located<String>>,
    textures: Option<OrderedMap<Located<String>>>,
    create_go_bones: Option<bool>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum LightKindDesc {
    Directional,
    Point,
}

/// A game object or component id, checked while parsing so the error has a position.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Id(String);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.is_empty() {
            return Err(de::Error::custom("an id must not be empty"));
        }
        // These characters separate the parts of a URL such as `main:/hero#script`.
        if let Some(c) = s.chars().find(|c| matches!(c, ':' | '#' | '/')) {
            return Err(de::Error::custom(format!("id '{s}' must not contain '{c}'")));
        }
        Ok(Id(s))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ComponentType {
    Script,
    Model,
    Camera,
    Light,
}

impl ComponentType {
    fn name(self) -> &'static str {
        match self {
            ComponentType::Script => "script",
            ComponentType::Model => "model",
            ComponentType::Camera => "camera",
            ComponentType::Light => "light",
        }
    }
}

impl<'de> Deserialize<'de> for ComponentType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "script" => Ok(ComponentType::Script),
            "model" => Ok(ComponentType::Model),
            "camera" => Ok(ComponentType::Camera),
            "light" => Ok(ComponentType::Light),
            _ => Err(de::Error::custom(format!(
                "unknown component type '{s}' (expected script, model, camera or light)"
            ))),
        }
    }
}

/// Loads a collection and everything it references, flattened with parents before children;
/// the first problem is the error (see [`load_collection_all`] for all of them).
pub fn load_collection(res: &Resources, path: &str) -> Result<CollectionSpec, LoadError> {
    let mut loaded = load_collection_all(res, path);
    if loaded.problems.is_empty() { Ok(loaded.spec) } else { Err(loaded.problems.remove(0)) }
}

/// What [`load_collection_all`] found.
pub struct LoadedCollection {
    /// Everything that loaded; broken parts are left out.
    pub spec: CollectionSpec,
    pub problems: Vec<LoadError>,
    /// The collection files read, the top one first: `sinew check` spawns only the collections
    /// no other one includes, so a nested collection's problems are not found twice.
    pub files: Vec<String>,
}

/// Every problem of a collection and of the files it references, in the order met, plus what
/// loaded despite them: a broken object, component or nested collection is skipped and loading
/// goes on, so one pass of `sinew check` (or a refused `run`) lists them all.
pub fn load_collection_all(res: &Resources, path: &str) -> LoadedCollection {
    let mut loader = Loader {
        res,
        stack: Vec::new(),
        objects: Vec::new(),
        prototypes: HashMap::new(),
        problems: Vec::new(),
        files: Vec::new(),
        paths: HashSet::new(),
    };
    let top = Located { value: path.to_string(), at: None };
    let name = match loader.collection(&top, path, "/", None) {
        Ok(name) => name,
        Err(e) => {
            loader.problems.push(e);
            None
        }
    };
    // A prototype shared by many instances would otherwise report its one problem many times.
    let mut seen = HashSet::new();
    let problems = loader.problems.into_iter().filter(|e| seen.insert(e.to_string())).collect();
    let spec = CollectionSpec { name: name.unwrap_or_else(|| "default".into()), objects: loader.objects };
    LoadedCollection { spec, problems, files: loader.files }
}

/// `euler` in files is Defold's (YZX order, degrees), so values copied from the Defold editor
/// give the same rotation; the one conversion lives in `base::euler`.
pub fn euler_to_quat(degrees: [f32; 3]) -> Quat {
    crate::base::euler::euler_to_quat(Vec3::from(degrees))
}

#[derive(Debug, Clone, Copy)]
struct Trs {
    t: Vec3,
    r: Quat,
    s: Vec3,
}

impl Trs {
    /// Stands in for a transform that failed to load, so the object's components and children
    /// are still checked.
    const IDENTITY: Trs = Trs { t: Vec3::ZERO, r: Quat::IDENTITY, s: Vec3::ONE };

    fn matrix(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.s, self.r, self.t)
    }

    /// Applies a collection instance's placement; shear from non-uniform scale is lost, as in Defold.
    fn placed(&self, place: &Affine3A) -> Trs {
        let (s, r, t) = (*place * self.matrix()).to_scale_rotation_translation();
        Trs { t, r: r.normalize(), s }
    }
}

fn transform(
    file: &str,
    position: Option<[f32; 3]>,
    rotation: &Option<Located<[f32; 4]>>,
    euler: &Option<Located<[f32; 3]>>,
    scale: Option<[f32; 3]>,
) -> Result<Trs, LoadError> {
    let r = match (rotation, euler) {
        (Some(_), Some(e)) => {
            return Err(e.error(file, "give either 'rotation' or 'euler', not both"));
        }
        (Some(q), None) => {
            let quat = Quat::from_array(q.value);
            // A zero quaternion has no direction to normalise to.
            if quat.length_squared() < 1e-12 {
                return Err(q.error(file, "rotation quaternion must not be zero"));
            }
            quat.normalize()
        }
        (None, Some(e)) => euler_to_quat(e.value),
        (None, None) => Quat::IDENTITY,
    };
    let t = Vec3::from_array(position.unwrap_or([0.0; 3]));
    let s = Vec3::from_array(scale.unwrap_or([1.0; 3]));
    Ok(Trs { t, r, s })
}

struct Loader<'a> {
    res: &'a Resources,
    /// Collections being loaded, outermost first, to name cycles.
    stack: Vec<String>,
    objects: Vec<ObjectSpec>,
    /// Parsed `.go` files, since many instances usually share one prototype.
    prototypes: HashMap<String, Vec<ComponentDesc>>,
    /// Problems that did not stop loading (see [`load_collection_all`]).
    problems: Vec<LoadError>,
    /// Every collection file read.
    files: Vec<String>,
    /// The id paths of `objects`: an object with a duplicate id (already reported) is left out,
    /// so spawning does not stop at it.
    paths: HashSet<String>,
}

impl Loader<'_> {
    /// Loads one collection (the top one or a nested instance) and returns its `name`.
    fn collection(
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
        let (norm, file): (String, CollectionFile) = json::read(self.res, path, referrer)?;
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
            if let Err(e) = self.collection(&c.collection, &norm, &inner, Some(placed)) {
                self.problems.push(e);
            }
        }
        self.stack.pop();
        Ok(file.name)
    }

    /// Adds a game object and its children; `place` is set only for the top-level objects of a
    /// nested collection instance, because children stay relative to their parent.
    fn object(&mut self, d: &ObjectDesc, file: &str, parent: Option<usize>, prefix: &str, place: Option<&Affine3A>) {
        let path = format!("{prefix}{}", d.id.value.0);
        if !self.paths.insert(path.clone()) {
            return;
        }
        let mut trs = self.transform(file, d.position, &d.rotation, &d.euler, d.scale);
        if let Some(p) = place {
            trs = trs.placed(p);
        }
        let components = self.components(d, file);
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
    fn transform(
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
    fn components(&mut self, d: &ObjectDesc, file: &str) -> Vec<ComponentSpec> {
        self.problems.extend(duplicate_component_ids(&d.components, file));
        let mut list = match &d.prototype {
            Some(p) => self.prototype(p, file).unwrap_or_else(|e| {
                self.problems.push(e);
                Vec::new()
            }),
            None => Vec::new(),
        };
        for c in &d.components {
            match list.iter_mut().find(|b| b.id.value == c.id.value) {
                Some(base) => match merged(base, c, file) {
                    Ok(m) => *base = m,
                    Err(e) => self.problems.push(e),
                },
                None => list.push(c.clone()),
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

    fn prototype(&mut self, path: &Located<String>, file: &str) -> Result<Vec<ComponentDesc>, LoadError> {
        let norm = json::resource_path(path, file)?;
        if let Some(c) = self.prototypes.get(&norm) {
            return Ok(c.clone());
        }
        let (norm, go): (String, GoFile) = json::read(self.res, path, file)?;
        self.problems.extend(duplicate_component_ids(&go.components, &norm));
        self.prototypes.insert(norm, go.components.clone());
        Ok(go.components)
    }

    fn component(&mut self, c: &ComponentDesc, file: &str) -> Result<ComponentSpec, LoadError> {
        let id = &c.id.value.0;
        let Some(ty) = c.ty else {
            let msg = format!("component '{id}' needs a 'type' (script, model, camera or light)");
            return Err(c.id.error(file, msg));
        };
        if let Some(field) = foreign_field(c, ty) {
            let msg = format!("field '{field}' does not apply to {} component '{id}'", ty.name());
            return Err(c.id.error(file, msg));
        }
        let kind = match ty {
            ComponentType::Script => self.script(c, file)?,
            ComponentType::Model => ComponentKind::Model(self.model(c, file)?),
            ComponentType::Camera => ComponentKind::Camera(camera(c, file)?),
            ComponentType::Light => ComponentKind::Light(light(c)),
        };
        Ok(ComponentSpec { id: id.clone(), kind })
    }

    /// Reads the script once so a missing file is reported where the collection names it. A
    /// malformed override is noted and left out, so the others are still checked against the
    /// script's declarations.
    fn script(&mut self, c: &ComponentDesc, file: &str) -> Result<ComponentKind, LoadError> {
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

    fn model(&self, c: &ComponentDesc, file: &str) -> Result<ModelSpec, LoadError> {
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
        model_spec(&norm, fields, || LoadError::new(&norm, "missing field `mesh`"))
    }
}

/// Reads one `.model` file (hot reload re-reads a saved one).
pub fn load_model_file(res: &Resources, path: &str) -> Result<ModelSpec, LoadError> {
    let text = res.read_string(path, None)?;
    let fields: ModelFields = json::parse(path, &text)?;
    model_spec(path, fields, || LoadError::new(path, "missing field `mesh`"))
}

/// Ids name objects in URLs, so they must be unique across the whole file, children and nested
/// collection instances included.
fn duplicate_ids(file: &CollectionFile, norm: &str) -> Vec<LoadError> {
    fn walk<'a>(o: &'a ObjectDesc, out: &mut Vec<&'a Located<Id>>) {
        out.push(&o.id);
        o.children.iter().for_each(|c| walk(c, out));
    }
    let mut ids = Vec::new();
    file.objects.iter().for_each(|o| walk(o, &mut ids));
    ids.extend(file.collections.iter().map(|c| &c.id));
    let mut seen = HashSet::new();
    let dup = |id: &Located<Id>| {
        let msg = format!("duplicate id '{}' (ids must be unique within a collection, children included)", id.value.0);
        id.error(norm, msg)
    };
    ids.into_iter().filter(|id| !seen.insert(&id.value)).map(dup).collect()
}

fn duplicate_component_ids(list: &[ComponentDesc], file: &str) -> Vec<LoadError> {
    let mut seen = HashSet::new();
    let dup = |c: &ComponentDesc| c.id.error(file, format!("duplicate component id '{}'", c.id.value.0));
    list.iter().filter(|c| !seen.insert(&c.id.value)).map(dup).collect()
}

/// An instance component over the prototype's: the instance's fields win, and `properties`
/// merge per property so an instance can tweak one `go.property` and keep the rest.
fn merged(base: &ComponentDesc, over: &ComponentDesc, file: &str) -> Result<ComponentDesc, LoadError> {
    if let (Some(a), Some(b)) = (base.ty, over.ty)
        && a != b
    {
        let msg = format!("component '{}' is a {} in the prototype but a {} here", over.id.value.0, a.name(), b.name());
        return Err(over.id.error(file, msg));
    }
    let mut m = over.clone();
    macro_rules! keep_base {
        ($($f:ident),*) => { $( if m.$f.is_none() { m.$f = base.$f.clone(); } )* };
    }
    keep_base!(
        ty,
        script,
        model,
        mesh,
        skeleton,
        animations,
        default_animation,
        material,
        textures,
        create_go_bones,
        fov,
        near,
        far,
        orthographic,
        ortho_height,
        kind,
        color,
        intensity
    );
    if let (Some(b), Some(o)) = (&base.properties, &over.properties) {
        let mut props = b.0.clone();
        for (k, v) in &o.0 {
            match props.iter_mut().find(|(pk, _)| pk == k) {
                Some(slot) => slot.1 = v.clone(),
                None => props.push((k.clone(), v.clone())),
            }
        }
        m.properties = Some(OrderedMap(props));
    } else if m.properties.is_none() {
        m.properties = base.properties.clone();
    }
    Ok(m)
}

/// The first field that is set but belongs to another component type.
fn foreign_field(c: &ComponentDesc, ty: ComponentType) -> Option<&'static str> {
    use ComponentType::*;
    let fields = [
        ("script", c.script.is_some(), Script),
        ("properties", c.properties.is_some(), Script),
        ("model", c.model.is_some(), Model),
        ("mesh", c.mesh.is_some(), Model),
        ("skeleton", c.skeleton.is_some(), Model),
        ("animations", c.animations.is_some(), Model),
        ("default_animation", c.default_animation.is_some(), Model),
        ("material", c.material.is_some(), Model),
        ("textures", c.textures.is_some(), Model),
        ("create_go_bones", c.create_go_bones.is_some(), Model),
        ("fov", c.fov.is_some(), Camera),
        ("near", c.near.is_some(), Camera),
        ("far", c.far.is_some(), Camera),
        ("orthographic", c.orthographic.is_some(), Camera),
        ("ortho_height", c.ortho_height.is_some(), Camera),
        ("kind", c.kind.is_some(), Light),
        ("color", c.color.is_some(), Light),
        ("intensity", c.intensity.is_some(), Light),
    ];
    fields.iter().find(|(_, set, owner)| *set && *owner != ty).map(|(name, ..)| *name)
}

fn inline_model(c: &ComponentDesc) -> ModelFields {
    ModelFields {
        mesh: c.mesh.clone(),
        skeleton: c.skeleton.clone(),
        animations: c.animations.clone(),
        default_animation: c.default_animation.clone(),
        material: c.material.clone(),
        textures: c.textures.clone(),
        create_go_bones: c.create_go_bones,
    }
}

fn has_model_options(f: &ModelFields) -> bool {
    f.skeleton.is_some()
        || f.animations.is_some()
        || f.default_animation.is_some()
        || f.material.is_some()
        || f.textures.is_some()
        || f.create_go_bones.is_some()
}

/// Applies the `.model` defaults; referenced files are only checked for well-formed paths here
/// (the mesh and texture loaders read them and report what is missing).
fn model_spec(source: &str, f: ModelFields, missing_mesh: impl FnOnce() -> LoadError) -> Result<ModelSpec, LoadError> {
    let Some(mesh) = &f.mesh else {
        return Err(missing_mesh());
    };
    let mesh = json::resource_path(mesh, source)?;
    let path_or = |p: &Option<Located<String>>, default: &str| match p {
        Some(p) => json::resource_path(p, source),
        None => Ok(default.to_string()),
    };
    let animations = match &f.animations {
        Some(list) => list.iter().map(|p| json::resource_path(p, source)).collect::<Result<_, _>>()?,
        None => vec![mesh.clone()],
    };
    let textures = match &f.textures {
        Some(t) => {
            t.0.iter().map(|(k, p)| Ok((k.clone(), json::resource_path(p, source)?))).collect::<Result<_, _>>()?
        }
        None => Vec::new(),
    };
    Ok(ModelSpec {
        source: source.to_string(),
        skeleton: path_or(&f.skeleton, &mesh)?,
        material: path_or(&f.material, DEFAULT_MODEL_MATERIAL)?,
        mesh,
        animations,
        default_animation: f.default_animation,
        textures,
        create_go_bones: f.create_go_bones.unwrap_or(true),
    })
}

/// Refuses values that would make the projection matrix singular or flipped.
fn camera(c: &ComponentDesc, file: &str) -> Result<CameraSpec, LoadError> {
    let cam = CameraSpec {
        fov: c.fov.unwrap_or(DEFAULT_FOV),
        near: c.near.unwrap_or(0.1),
        far: c.far.unwrap_or(1000.0),
        orthographic: c.orthographic.unwrap_or(false),
        ortho_height: c.ortho_height.unwrap_or(10.0),
    };
    let id = &c.id.value.0;
    let problem = if cam.far <= cam.near {
        Some("far must be greater than near")
    } else if !cam.orthographic && cam.near <= 0.0 {
        Some("near must be positive for a perspective camera")
    } else if !cam.orthographic && (cam.fov <= 0.0 || cam.fov >= std::f32::consts::PI) {
        Some("fov must be between 0 and pi radians")
    } else if cam.orthographic && cam.ortho_height <= 0.0 {
        Some("ortho_height must be positive")
    } else {
        None
    };
    match problem {
        Some(p) => Err(c.id.error(file, format!("camera '{id}': {p}"))),
        None => Ok(cam),
    }
}

fn light(c: &ComponentDesc) -> LightSpec {
    LightSpec {
        kind: match c.kind {
            Some(LightKindDesc::Point) => LightKind::Point,
            Some(LightKindDesc::Directional) | None => LightKind::Directional,
        },
        color: c.color.unwrap_or([1.0; 3]),
        intensity: c.intensity.unwrap_or(1.0),
    }
}

/// Converts one `go.property` override; the JSON shape decides the type, as listed in the spec.
fn property_value(name: &str, v: &Located<Value>, file: &str) -> Result<PropertyValue, LoadError> {
    let bad = || {
        let msg = format!(
            "property '{name}': expected a number, bool, string (\"hash:...\", \"url:...\") or an array of 3 or 4 numbers"
        );
        v.error(file, msg)
    };
    Ok(match &v.value {
        Value::Number(n) => PropertyValue::Number(n.as_f64().ok_or_else(bad)?),
        Value::Bool(b) => PropertyValue::Bool(*b),
        Value::String(s) => match (s.strip_prefix("hash:"), s.strip_prefix("url:")) {
            (Some(h), _) => PropertyValue::Hash(h.to_string()),
            (_, Some(u)) => PropertyValue::Url(u.to_string()),
            _ => PropertyValue::String(s.clone()),
        },
        Value::Array(a) => vector(a).ok_or_else(bad)?,
        Value::Null | Value::Object(_) => return Err(bad()),
    })
}

fn vector(a: &[Value]) -> Option<PropertyValue> {
    let n: Vec<f32> = a.iter().map(|v| v.as_f64().map(|x| x as f32)).collect::<Option<_>>()?;
    match *n.as_slice() {
        [x, y, z] => Some(PropertyValue::Vector3([x, y, z])),
        [x, y, z, w] => Some(PropertyValue::Vector4([x, y, z, w])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A throwaway project folder, removed again when the test ends.
    struct Project(PathBuf);

    impl Project {
        fn new(files: &[(&str, &str)]) -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("sinew_coll_{}_{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for (path, text) in files {
                let full = dir.join(path.trim_start_matches('/'));
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(full, text).unwrap();
            }
            std::fs::create_dir_all(&dir).unwrap();
            Project(dir)
        }

        fn load(&self, path: &str) -> Result<CollectionSpec, LoadError> {
            load_collection(&Resources::open_dir(&self.0).unwrap(), path)
        }
    }

    impl Drop for Project {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Loads `/main/main.collection` with the given text (plus a script) and expects an error.
    fn error_of(collection: &str) -> LoadError {
        let p = Project::new(&[("/main/main.collection", collection), ("/main/a.script", "")]);
        p.load("/main/main.collection").unwrap_err()
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4)
    }

    fn values(props: &[(String, Located<PropertyValue>)]) -> Vec<(String, PropertyValue)> {
        props.iter().map(|(k, v)| (k.clone(), v.value.clone())).collect()
    }

    const MAIN: &str = r#"{
  "name": "main",
  "objects": [
    {
      "id": "hero",
      "position": [0, 0, 0],
      "rotation": [0, 0, 0, 1],
      "scale": [1, 1, 1],
      "prototype": "/main/hero.go",
      "components": [
        { "id": "script", "type": "script", "script": "/main/hero.script",
          "properties": { "speed": 3.0, "target": [1, 2, 3] } },
        { "id": "model", "type": "model", "model": "/main/hero.model" }
      ],
      "children": [ { "id": "sword", "position": [0.2, 1, 0], "components": [] } ]
    }
  ],
  "collections": [
    { "id": "level", "collection": "/main/level.collection", "position": [10, 0, 0] }
  ]
}"#;

    const MODEL: &str = r#"{
  "mesh": "/models/wiggler.glb",
  "skeleton": "/models/wiggler.glb",
  "animations": ["/models/wiggler.glb", "/models/extra_moves.glb"],
  "default_animation": "wiggle",
  "material": "/builtins/materials/model.material",
  "textures": { "tex0": "/models/wiggler.png" },
  "create_go_bones": true
}"#;

    fn example() -> Project {
        Project::new(&[
            ("/main/main.collection", MAIN),
            (
                "/main/hero.go",
                r#"{ "components": [ { "id": "script", "type": "script", "script": "/main/hero.script" } ] }"#,
            ),
            ("/main/hero.script", "function update(self, dt) end"),
            ("/main/hero.model", MODEL),
            ("/main/level.collection", r#"{ "objects": [ { "id": "door", "position": [1, 0, 0] } ] }"#),
        ])
    }

    #[test]
    fn full_example_from_the_spec() {
        let c = example().load("/main/main.collection").unwrap();
        assert_eq!(c.name, "main");
        let paths: Vec<_> =
            c.objects.iter().map(|o| (o.path.as_str(), o.collection_prefix.as_str(), o.parent)).collect();
        assert_eq!(paths, [("/hero", "/", None), ("/sword", "/", Some(0)), ("/level/door", "/level/", None)]);
        let hero = &c.objects[0];
        assert_eq!(hero.components.len(), 2);
        let ComponentKind::Script { script, properties } = &hero.components[0].kind else { panic!() };
        assert_eq!(script, "/main/hero.script");
        let expected = [
            ("speed".to_string(), PropertyValue::Number(3.0)),
            ("target".to_string(), PropertyValue::Vector3([1.0, 2.0, 3.0])),
        ];
        assert_eq!(values(properties), expected);
        let ComponentKind::Model(m) = &hero.components[1].kind else { panic!() };
        assert_eq!(m.source, "/main/hero.model");
        assert_eq!(m.animations, ["/models/wiggler.glb", "/models/extra_moves.glb"]);
        assert_eq!(m.default_animation.as_ref().map(|a| a.value.as_str()), Some("wiggle"));
        let at = m.default_animation.as_ref().and_then(|a| a.at.as_ref()).map(|p| (p.resource.as_str(), p.line));
        assert_eq!(at, Some(("/main/hero.model", 5)));
        assert_eq!(m.textures, [("tex0".to_string(), "/models/wiggler.png".to_string())]);
        assert_eq!(c.objects[1].position, [0.2, 1.0, 0.0]);
        assert!(close(&c.objects[2].position, &[11.0, 0.0, 0.0]));
    }

    #[test]
    fn defaults() {
        let p = Project::new(&[(
            "/c.collection",
            r#"{ "objects": [ { "id": "a", "components": [
                { "id": "m", "type": "model", "mesh": "/m.glb" },
                { "id": "c", "type": "camera" },
                { "id": "l", "type": "light" } ] } ] }"#,
        )]);
        let c = p.load("/c.collection").unwrap();
        assert_eq!(c.name, "default");
        let o = &c.objects[0];
        assert_eq!((o.position, o.rotation, o.scale), ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]));
        let model = ModelSpec {
            source: "/c.collection".into(),
            mesh: "/m.glb".into(),
            skeleton: "/m.glb".into(),
            animations: vec!["/m.glb".into()],
            default_animation: None,
            material: DEFAULT_MODEL_MATERIAL.into(),
            textures: vec![],
            create_go_bones: true,
        };
        assert_eq!(o.components[0].kind, ComponentKind::Model(model));
        let cam = CameraSpec { fov: DEFAULT_FOV, near: 0.1, far: 1000.0, orthographic: false, ortho_height: 10.0 };
        assert_eq!(o.components[1].kind, ComponentKind::Camera(cam));
        let light = LightSpec { kind: LightKind::Directional, color: [1.0; 3], intensity: 1.0 };
        assert_eq!(o.components[2].kind, ComponentKind::Light(light));
        let empty = Project::new(&[("/e.collection", "{}")]);
        assert!(empty.load("/e.collection").unwrap().objects.is_empty());
    }

    #[test]
    fn nested_children_keep_parents_first() {
        let p = Project::new(&[(
            "/c.collection",
            r#"{ "objects": [
                { "id": "a", "children": [ { "id": "b", "children": [ { "id": "c" } ] }, { "id": "d" } ] },
                { "id": "e", "components": [ { "id": "light", "type": "light", "kind": "point", "intensity": 2 } ] } ] }"#,
        )]);
        let c = p.load("/c.collection").unwrap();
        let got: Vec<_> = c.objects.iter().map(|o| (o.path.as_str(), o.parent)).collect();
        assert_eq!(got, [("/a", None), ("/b", Some(0)), ("/c", Some(1)), ("/d", Some(0)), ("/e", None)]);
        let ComponentKind::Light(l) = &c.objects[4].components[0].kind else { panic!() };
        assert_eq!((l.kind, l.intensity), (LightKind::Point, 2.0));
    }

    #[test]
    fn prototype_components_are_merged_by_id() {
        let p = Project::new(&[
            ("/a.script", ""),
            ("/b.script", ""),
            (
                "/hero.go",
                r#"{ "components": [
                    { "id": "script", "type": "script", "script": "/a.script",
                      "properties": { "speed": 1, "name": "x", "tag": "hash:hero" } },
                    { "id": "cam", "type": "camera", "fov": 1.0 } ] }"#,
            ),
            (
                "/c.collection",
                r#"{ "objects": [ { "id": "h", "prototype": "/hero.go", "components": [
                    { "id": "script", "properties": { "speed": 5, "home": "url:main:/base#script", "tint": [1, 0, 0, 1] } },
                    { "id": "cam", "near": 0.5 },
                    { "id": "extra", "type": "script", "script": "/b.script" } ] },
                  { "id": "plain", "prototype": "/hero.go" } ] }"#,
            ),
        ]);
        let c = p.load("/c.collection").unwrap();
        let comps = &c.objects[0].components;
        let ids: Vec<_> = comps.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["script", "cam", "extra"]);
        let ComponentKind::Script { script, properties } = &comps[0].kind else { panic!() };
        assert_eq!(script, "/a.script");
        let expected = [
            ("speed".to_string(), PropertyValue::Number(5.0)),
            ("name".to_string(), PropertyValue::String("x".into())),
            ("tag".to_string(), PropertyValue::Hash("hero".into())),
            ("home".to_string(), PropertyValue::Url("main:/base#script".into())),
            ("tint".to_string(), PropertyValue::Vector4([1.0, 0.0, 0.0, 1.0])),
        ];
        assert_eq!(values(properties), expected);
        let ComponentKind::Camera(cam) = &comps[1].kind else { panic!() };
        assert_eq!((cam.fov, cam.near), (1.0, 0.5));
        let ComponentKind::Script { properties, .. } = &c.objects[1].components[0].kind else { panic!() };
        assert_eq!(values(properties)[0], ("speed".to_string(), PropertyValue::Number(1.0)));

        let bad = r#"{ "objects": [ { "id": "h", "prototype": "/hero.go", "components": [ { "id": "script", "type": "light" } ] } ] }"#;
        std::fs::write(p.0.join("c.collection"), bad).unwrap();
        let e = p.load("/c.collection").unwrap_err();
        assert!(e.message.contains("is a script in the prototype but a light here"), "{e}");
        assert_eq!(e.line, Some(1), "{e}");
    }

    #[test]
    fn nested_collection_instances_compose_transforms() {
        let p = Project::new(&[
            (
                "/main.collection",
                r#"{ "name": "world", "objects": [ { "id": "obj" } ], "collections": [
                    { "id": "level", "collection": "/level.collection", "position": [10, 0, 0], "euler": [0, 0, 90], "scale": [2, 2, 2] },
                    { "id": "outer", "collection": "/outer.collection", "position": [0, 5, 0] } ] }"#,
            ),
            (
                "/level.collection",
                r#"{ "name": "ignored", "objects": [ { "id": "door", "position": [1, 0, 0], "children": [ { "id": "knob", "position": [0, 1, 0] } ] } ] }"#,
            ),
            (
                "/outer.collection",
                r#"{ "collections": [ { "id": "inner", "collection": "/inner.collection", "position": [1, 0, 0] } ] }"#,
            ),
            ("/inner.collection", r#"{ "objects": [ { "id": "obj", "position": [0, 0, 1] } ] }"#),
        ]);
        let c = p.load("/main.collection").unwrap();
        assert_eq!(c.name, "world");
        let got: Vec<_> = c.objects.iter().map(|o| (o.path.as_str(), o.collection_prefix.as_str(), o.parent)).collect();
        let expected = [
            ("/obj", "/", None),
            ("/level/door", "/level/", None),
            ("/level/knob", "/level/", Some(1)),
            ("/outer/inner/obj", "/outer/inner/", None),
        ];
        assert_eq!(got, expected);
        let door = &c.objects[1];
        assert!(close(&door.position, &[10.0, 2.0, 0.0]), "{:?}", door.position);
        assert!(close(&door.rotation, &[0.0, 0.0, 0.70710677, 0.70710677]), "{:?}", door.rotation);
        assert!(close(&door.scale, &[2.0; 3]), "{:?}", door.scale);
        assert_eq!(c.objects[2].position, [0.0, 1.0, 0.0], "children stay relative to their parent");
        assert!(close(&c.objects[3].position, &[1.0, 5.0, 1.0]), "{:?}", c.objects[3].position);
    }

    #[test]
    fn euler_matches_defold() {
        let q = euler_to_quat([0.0, 0.0, 90.0]);
        assert!(close(&q.to_array(), &[0.0, 0.0, 0.70710677, 0.70710677]), "{q:?}");
        let q = euler_to_quat([90.0, 0.0, 0.0]);
        assert!(close(&q.to_array(), &[0.70710677, 0.0, 0.0, 0.70710677]), "{q:?}");
        // Defold applies Y, then Z, then X.
        let q = euler_to_quat([30.0, 40.0, 50.0]);
        let yzx = Quat::from_rotation_y(40f32.to_radians())
            * Quat::from_rotation_z(50f32.to_radians())
            * Quat::from_rotation_x(30f32.to_radians());
        assert!(close(&q.to_array(), &yzx.to_array()), "{q:?} {yzx:?}");
        let p = Project::new(&[("/c.collection", r#"{ "objects": [ { "id": "a", "euler": [0, 0, 90] } ] }"#)]);
        let o = &p.load("/c.collection").unwrap().objects[0];
        assert!(close(&o.rotation, &[0.0, 0.0, 0.70710677, 0.70710677]));
    }

    #[test]
    fn syntax_and_schema_errors_have_positions() {
        let e = error_of("{\n  \"objects\": [\n    { \"id\": \"a\", }\n  ]\n}");
        assert_eq!(e.resource, "/main/main.collection");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.column.is_some());
        let e = error_of("{\n  \"objects\": [\n    { \"id\": \"a\", \"posiiton\": [0, 0, 0] }\n  ]\n}");
        assert!(e.message.contains("unknown field `posiiton`"), "{e}");
        assert!(e.to_string().starts_with("/main/main.collection:3:"), "{e}");
        let e = error_of(r#"{ "objects": [ { "id": "a", "position": "up" } ] }"#);
        assert!(e.message.contains("invalid type"), "{e}");
        assert_eq!(e.line, Some(1));
        let e = error_of(r#"{ "objects": [ { "position": [0, 0, 0] } ] }"#);
        assert!(e.message.contains("missing field `id`"), "{e}");
        let e = error_of(
            "{ \"objects\": [ { \"id\": \"a\",\n \"components\": [ { \"id\": \"s\", \"type\": \"sprite\" } ] } ] }",
        );
        assert_eq!(e.message, "unknown component type 'sprite' (expected script, model, camera or light)");
        assert_eq!(e.line, Some(2), "{e}");
        let e = error_of(r#"{ "objects": [ { "id": "a:b" } ] }"#);
        assert!(e.message.contains("must not contain ':'"), "{e}");
        assert!(e.line.is_some());
        let e = error_of(r#"{ "objects": [ { "id": "a", "rotation": [0, 0, 0, 1], "euler": [0, 0, 0] } ] }"#);
        assert!(e.message.contains("not both"), "{e}");
        assert_eq!(e.column, Some(64), "{e}");
    }

    #[test]
    fn every_problem_is_found_in_one_pass() {
        let text = "{ \"objects\": [\n { \"id\": \"a\" },\n { \"id\": \"a\", \"children\": [ { \"id\": \"kid\" } ] },\n { \"id\": \"r\", \"rotation\": [0, 0, 0, 0], \"components\": [ { \"id\": \"c\", \"type\": \"camera\", \"far\": 0.01 } ] },\n { \"id\": \"p\", \"prototype\": \"/main/none.go\" },\n { \"id\": \"s\", \"components\": [ { \"id\": \"s\", \"type\": \"script\", \"script\": \"/main/a.script\", \"properties\": { \"bad\": null, \"good\": 1 } } ] } ],\n \"collections\": [ { \"id\": \"l\", \"collection\": \"/main/none.collection\" } ] }";
        let p = Project::new(&[("/main/main.collection", text), ("/main/a.script", "")]);
        let res = Resources::open_dir(&p.0).unwrap();
        let loaded = load_collection_all(&res, "/main/main.collection");
        let got: Vec<(Option<usize>, &str)> = loaded.problems.iter().map(|e| (e.line, e.message.as_str())).collect();
        let lines: Vec<Option<usize>> = got.iter().map(|g| g.0).collect();
        assert_eq!(lines, [Some(3), Some(4), Some(4), Some(5), Some(6), Some(7)], "{got:?}");
        assert!(got[0].1.contains("duplicate id 'a'"), "{got:?}");
        assert!(got[1].1.contains("rotation quaternion must not be zero"), "{got:?}");
        assert!(got[2].1.contains("far must be greater than near"), "{got:?}");
        assert!(got[3].1.contains("'/main/none.go' not found"), "{got:?}");
        assert!(got[4].1.contains("property 'bad'"), "{got:?}");
        assert!(got[5].1.contains("'/main/none.collection' not found"), "{got:?}");
        // What loaded is kept: the first 'a' (the duplicate and its child are left out), the
        // objects with problems, and the script with its one good override.
        let paths: Vec<&str> = loaded.spec.objects.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, ["/a", "/r", "/p", "/s"]);
        let ComponentKind::Script { properties, .. } = &loaded.spec.objects[3].components[0].kind else { panic!() };
        assert_eq!(values(properties), [("good".to_string(), PropertyValue::Number(1.0))]);
        assert_eq!(loaded.files, ["/main/main.collection"]);
    }

    #[test]
    fn semantic_errors_name_the_file_and_position() {
        let e = error_of(
            "{ \"objects\": [\n { \"id\": \"a\" },\n { \"id\": \"b\", \"children\": [ { \"id\": \"a\" } ] } ] }",
        );
        assert!(e.message.contains("duplicate id 'a'"), "{e}");
        assert_eq!((e.line, e.column), (Some(3), Some(37)), "{e}");
        let e = error_of(r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script" } ] } ] }"#);
        assert!(e.message.contains("needs a 'script' path"), "{e}");
        let e = error_of(
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/a.script", "fov": 1 } ] } ] }"#,
        );
        assert!(e.message.contains("field 'fov' does not apply to script component 's'"), "{e}");
        let e = error_of(r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "model" } ] } ] }"#);
        assert!(e.message.contains("needs 'model' or 'mesh'"), "{e}");
        let e = error_of(
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "c", "type": "camera", "near": 5, "far": 1 } ] } ] }"#,
        );
        assert!(e.message.contains("far must be greater than near"), "{e}");
        let e = error_of(
            "{ \"objects\": [ { \"id\": \"a\", \"components\": [ { \"id\": \"s\", \"type\": \"script\", \"script\": \"/main/a.script\",\n \"properties\": { \"ok\": 1, \"bad\": { \"x\": 1 } } } ] } ] }",
        );
        assert!(e.message.contains("property 'bad'"), "{e}");
        assert_eq!((e.line, e.column), (Some(2), Some(34)), "{e}");
        let e = error_of(
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/a.script", "properties": { "v": [1, 2] } } ] } ] }"#,
        );
        assert!(e.message.contains("property 'v'"), "{e}");
    }

    #[test]
    fn missing_and_escaping_files_name_the_referrer() {
        let e = error_of("{ \"objects\": [\n { \"id\": \"a\", \"prototype\": \"/main/missing.go\" } ] }");
        assert_eq!(e.resource, "/main/main.collection");
        assert_eq!((e.line, e.column), (Some(2), Some(28)), "{e}");
        assert!(e.message.contains("'/main/missing.go' not found"), "{e}");
        let e = error_of(
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "s", "type": "script", "script": "/main/nope.script" } ] } ] }"#,
        );
        assert!(e.message.contains("not found") && e.line.is_some(), "{e}");
        let e = error_of(r#"{ "collections": [ { "id": "x", "collection": "/../x.collection" } ] }"#);
        assert!(e.message.contains("escapes the project root"), "{e}");
        assert_eq!(e.resource, "/main/main.collection");
        let p = Project::new(&[]);
        assert!(p.load("/main/main.collection").unwrap_err().message.contains("not found"));
        let e = p.load("/../x.collection").unwrap_err();
        assert!(e.message.contains("escapes"), "{e}");
        let e = error_of(
            r#"{ "objects": [ { "id": "a", "components": [ { "id": "m", "type": "model", "model": "/main/a.model" } ] } ] }"#,
        );
        assert!(e.message.contains("'/main/a.model' not found"), "{e}");
    }

    #[test]
    fn errors_inside_referenced_files_name_that_file() {
        let p = Project::new(&[
            (
                "/c.collection",
                r#"{ "objects": [ { "id": "a", "prototype": "/a.go", "components": [ { "id": "m", "type": "model", "model": "/a.model" } ] } ] }"#,
            ),
            ("/a.go", "{ \"components\": [\n { \"id\": \"x\", \"type\": \"light\", \"colour\": [1, 1, 1] } ] }"),
            ("/a.model", r#"{ "mesh": "/a.glb" }"#),
        ]);
        let e = p.load("/c.collection").unwrap_err();
        assert_eq!(e.resource, "/a.go");
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("unknown field `colour`"), "{e}");
        std::fs::write(p.0.join("a.go"), "{}").unwrap();
        std::fs::write(p.0.join("a.model"), r#"{ "skeleton": "/a.glb" }"#).unwrap();
        let e = p.load("/c.collection").unwrap_err();
        assert_eq!((e.resource.as_str(), e.message.as_str()), ("/a.model", "missing field `mesh`"));
    }

    #[test]
    fn cycles_are_named() {
        let p = Project::new(&[
            ("/main/a.collection", r#"{ "collections": [ { "id": "b", "collection": "/main/b.collection" } ] }"#),
            ("/main/b.collection", r#"{ "collections": [ { "id": "a", "collection": "/main//a.collection" } ] }"#),
            (
                "/main/self.collection",
                r#"{ "collections": [ { "id": "me", "collection": "/main/self.collection" } ] }"#,
            ),
        ]);
        let e = p.load("/main/a.collection").unwrap_err();
        assert_eq!(e.message, "collection cycle: /main/a.collection -> /main/b.collection -> /main/a.collection");
        assert_eq!(e.resource, "/main/b.collection");
        assert!(e.line.is_some());
        let e = p.load("/main/self.collection").unwrap_err();
        assert!(e.message.contains("collection cycle: /main/self.collection -> /main/self.collection"), "{e}");
    }

    #[test]
    fn depth_is_capped() {
        let mut files: Vec<(String, String)> = Vec::new();
        for i in 0..40 {
            let text = format!(r#"{{ "collections": [ {{ "id": "n", "collection": "/c{}.collection" }} ] }}"#, i + 1);
            files.push((format!("/c{i}.collection"), text));
        }
        let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let e = Project::new(&refs).load("/c0.collection").unwrap_err();
        assert!(e.message.contains("nested more than 32 deep"), "{e}");
    }
}
