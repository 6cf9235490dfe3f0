//! One entry point for every model file a component may name: glTF (`.glb`, `.gltf`), OBJ,
//! `.bon` rigs and Defold's mesh `.buffer` files all become [`ModelData`], plus what only some
//! formats have.
use crate::base::error::LoadError;
use crate::project::model_data::ModelData;
use crate::project::{JointLimitSpec, Resources, bon, gltf, obj};

/// A model file after import.
#[derive(Debug, Clone)]
pub struct Imported {
    pub data: ModelData,
    /// Other resources it was read from (the OBJ of a `.bon`, `.mtl` files, textures): a save of
    /// any of them re-imports it.
    pub files: Vec<String>,
    /// Problems that did not stop the import (`sinew check` and `inspect` print them).
    pub warnings: Vec<String>,
    /// Joint limits the file itself gives (a `.bon`'s `BoneRmin`/`BoneRmax`), free joints left out.
    pub limits: Vec<JointLimitSpec>,
}

pub fn is_obj(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".obj")
}

pub fn is_bon(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".bon")
}

/// Imports `path` by its extension (anything not OBJ, `.bon` or a mesh buffer is read as glTF).
pub fn import_model(res: &Resources, path: &str) -> Result<Imported, LoadError> {
    if let Some(m) = crate::project::mesh::MeshRef::of(path) {
        let data = crate::project::mesh::import(res, &m)?;
        // The key names more than the file: a save of the file re-imports it.
        return Ok(Imported { data, files: vec![m.buffer], warnings: Vec::new(), limits: Vec::new() });
    }
    if is_obj(path) {
        let o = obj::import(res, path)?;
        return Ok(Imported { data: o.data, files: o.files, warnings: o.warnings, limits: Vec::new() });
    }
    if is_bon(path) {
        let b = bon::import(res, path)?;
        let limits = bon_limits(&b.file);
        return Ok(Imported { data: b.data, files: b.files, warnings: b.warnings, limits });
    }
    let data = gltf::import(res, path)?;
    Ok(Imported { data, files: Vec::new(), warnings: Vec::new(), limits: Vec::new() })
}

/// The limited bones of a `.bon` (a bone left at ±180 on every axis is free).
pub fn bon_limits(f: &bon::parse::BonFile) -> Vec<JointLimitSpec> {
    f.bones
        .iter()
        .filter(|b| (0..3).any(|k| b.rmax[k] - b.rmin[k] < 360.0))
        .map(|b| JointLimitSpec { joint: b.name.clone(), min: b.rmin.map(|v| v as f32), max: b.rmax.map(|v| v as f32) })
        .collect()
}
