//! Collections (`*.collection`), game object files (`*.go`) and models (`*.model`), flattened
//! into one `CollectionSpec` so the scene never sees prototypes, nesting or JSON.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::{self, Located, OrderedMap};
use crate::project::types::*;
use glam::{Affine3A, Quat, Vec3};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Deeper nesting than this is almost certainly a mistake and would only slow loading down.
pub const MAX_COLLECTION_DEPTH: usize = 32;

/// The spec's default vertical field of view (0.7854 rad, 45 degrees).
pub const DEFAULT_FOV: f32 = std::f32::consts::FRAC_PI_4;

/// The spec's default near plane of a camera.
pub const DEFAULT_NEAR: f32 = 0.1;

mod components;
mod files;
mod loader;
mod sound;
mod sprite;
#[cfg(test)]
mod tests;
mod transform;

use components::*;
use files::*;
use loader::*;
use transform::*;

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
    load_collection_within(res, path, DEFAULT_MAX_INSTANCES)
}

/// [`load_collection_all`] for a project whose `max_instances` is `max_instances`: a collection
/// (or collection factory prototype) that expands to more game objects is refused before any is
/// made.
pub fn load_collection_within(res: &Resources, path: &str, max_instances: u32) -> LoadedCollection {
    let mut loader = Loader::new(res, max_instances);
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

/// A factory prototype (`.go`, or `.collection` for a collection factory) loaded while the game
/// runs, for `factory.set_prototype`: flattened and checked as one named in a file is.
pub fn load_prototype(
    res: &Resources,
    path: &str,
    collection: bool,
    max_instances: u32,
) -> Result<FactorySpec, LoadError> {
    let mut loader = Loader::new(res, max_instances);
    let kind = if collection { "collectionfactory" } else { "factory" };
    let at = Located { value: path.to_string(), at: None };
    let spec = loader.factory_prototype(kind, "set_prototype", &at, path, collection)?;
    match loader.problems.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(spec),
    }
}

impl<'a> Loader<'a> {
    fn new(res: &'a Resources, max_instances: u32) -> Self {
        Loader {
            res,
            stack: Vec::new(),
            objects: Vec::new(),
            prototypes: HashMap::new(),
            problems: Vec::new(),
            files: Vec::new(),
            paths: HashSet::new(),
            factories: HashMap::new(),
            parsed: HashMap::new(),
            expansions: HashMap::new(),
            max_instances,
            atlases: HashMap::new(),
            effects: HashMap::new(),
            maps: HashMap::new(),
            overrides: Vec::new(),
        }
    }
}

/// `euler` in files is Defold's (YZX order, degrees), so values copied from the Defold editor
/// give the same rotation; the one conversion lives in `base::euler`.
pub fn euler_to_quat(degrees: [f32; 3]) -> Quat {
    crate::base::euler::euler_to_quat(Vec3::from(degrees))
}

/// Reads one `.model` file (hot reload re-reads a saved one).
pub fn load_model_file(res: &Resources, path: &str) -> Result<ModelSpec, LoadError> {
    let text = res.read_string(path, None)?;
    let fields: ModelFields = json::parse_resource(res, path, &text)?;
    model_spec(path, fields, || LoadError::new(path, "missing field `mesh`"))
}
