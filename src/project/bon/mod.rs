//! `.bon` rigs (rigs.md section 2): a Microbe3D bone file that rigs one OBJ. Import reads the
//! `.bon`, the OBJ it names, computes the automatic weights and returns the OBJ's model with a
//! skeleton and one skin, so everything downstream treats it as a skinned glTF.
pub mod parse;
pub mod sample;
pub mod skeleton;
pub mod weights;

use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::model_data::ModelData;
use crate::project::obj::{self, line_error};
use parse::BonFile;
use weights::{VertexWeights, WeightRig};

/// A rigged OBJ and what `sinew inspect` reports about it.
#[derive(Debug, Clone)]
pub struct BonImport {
    pub data: ModelData,
    pub file: BonFile,
    /// One entry per OBJ `v` line, file order.
    pub weights: Vec<VertexWeights>,
    /// Per bone: vertices whose primary bone it is and whose radius reached them, then those
    /// that went to it as their nearest bone.
    pub captured: Vec<usize>,
    pub uncaptured: Vec<usize>,
    /// The OBJ and the `.mtl`/texture files it read (hot reload).
    pub files: Vec<String>,
    pub warnings: Vec<String>,
}

impl BonImport {
    pub fn uncaptured_total(&self) -> usize {
        self.uncaptured.iter().sum()
    }
}

/// Imports `path` (a `.bon`) with its OBJ.
pub fn import(res: &Resources, path: &str) -> Result<BonImport, LoadError> {
    let text = res.read_string(path, None)?;
    let file = parse::parse(path, &text)?;
    let obj = obj::import(res, &file.read).map_err(|e| {
        if e.resource == file.read && e.line.is_none() {
            line_error(path, file.read_line, format!("Read '{}': {}", file.read, e.message))
        } else {
            e
        }
    })?;
    Ok(rig(file, obj))
}

/// Rigs an imported OBJ with a parsed `.bon`.
pub fn rig(file: BonFile, obj: obj::ObjImport) -> BonImport {
    let kernel = WeightRig::new(&file);
    let mut weights = vec![VertexWeights::default(); obj.exact.len()];
    kernel.weights_exact(&obj.exact, &mut weights);
    let n = file.bones.len();
    let (mut captured, mut uncaptured) = (vec![0; n], vec![0; n]);
    for w in &weights {
        let b = w.bones[0] as usize;
        if w.captured {
            captured[b] += 1;
        } else {
            uncaptured[b] += 1;
        }
    }
    let mut warnings = obj.warnings;
    let total: usize = uncaptured.iter().sum();
    if total > 0 {
        warnings.push(format!(
            "{}: {total} of {} vertices are inside no bone's radius (each goes to its nearest bone)",
            obj.data.source,
            weights.len()
        ));
    }
    let mut files = vec![file.read.clone()];
    files.extend(obj.files);
    let data = skeleton::rig_model(&file, obj.data, &obj.sources, &weights);
    BonImport { data, file, weights, captured, uncaptured, files, warnings }
}

/// `{"bones": [...], "vertices": [[[bone, weight], ...], ...]}` (rigs.md section 2.4).
pub fn weights_json(b: &BonImport) -> serde_json::Value {
    let bones: Vec<&str> = b.file.bones.iter().map(|b| b.name.as_str()).collect();
    let vertices: Vec<Vec<(u16, f64)>> = b.weights.iter().map(|w| w.pairs().collect()).collect();
    serde_json::json!({ "bones": bones, "vertices": vertices })
}

#[cfg(test)]
mod tests;
