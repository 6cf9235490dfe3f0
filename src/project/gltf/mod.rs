//! glTF 2.0 import into [`ModelData`]. The `gltf` crate only parses the JSON; every buffer, image
//! and accessor is resolved and bounds-checked here, because the crate trusts the file and a game
//! must not crash (or allocate gigabytes) on a bad asset. Errors name the resource and the glTF
//! path (`/m.glb: meshes[0].primitives[1].indices: index 812 out of range (800 vertices)`); as
//! many as practical are collected so one fix-and-retry shows most of the problems at once.
mod accessor;
/// OBJ imports are held to the same budget as glTF's.
pub(crate) use accessor::Budget;
mod anim;
pub mod humanoid;
mod material;
pub(crate) use material::decode_image;
/// Atlases decode their images under their own page budget.
pub(crate) use material::decode_image_within;
pub(crate) mod mesh;
pub mod robot_arm;
pub mod samples;
mod scene;
pub mod writer;

use crate::base::bytes::le_u32;
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::model_data::{Aabb, ModelData, TextureData, Wrap};
use accessor::Buffers;
use gltf::json;

/// How many problems one error message lists before it says "and N more".
const MAX_LISTED: usize = 5;

/// Problems found so far, each `gltf.path: message`.
#[derive(Default)]
pub(crate) struct Errors(Vec<String>);

impl Errors {
    pub fn push(&mut self, e: String) {
        self.0.push(e);
    }
    /// Keeps the value of `r` or records its error (so one bad part does not hide the others).
    pub fn take<T>(&mut self, r: Result<T, String>) -> Option<T> {
        r.map_err(|e| self.push(e)).ok()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn into_error(self, src: &str) -> LoadError {
        let mut msg = self.0.iter().take(MAX_LISTED).cloned().collect::<Vec<_>>().join("; ");
        if self.0.len() > MAX_LISTED {
            msg.push_str(&format!("; and {} more", self.0.len() - MAX_LISTED));
        }
        LoadError::new(src, msg)
    }
    /// `Err` with everything recorded, if anything was.
    fn check(self, src: &str) -> Result<(), LoadError> {
        if self.is_empty() { Ok(()) } else { Err(self.into_error(src)) }
    }
}

/// Imports the glTF resource `path` (`.glb`, or `.gltf` with embedded or sibling files).
pub fn import(res: &Resources, path: &str) -> Result<ModelData, LoadError> {
    let bytes = res.read(path, None)?;
    import_bytes(path, &bytes, Some(res))
}

/// Imports glTF bytes. `path_for_messages` names the file in errors and is the base that relative
/// URIs resolve against; without `res`, only self-contained files (GLB, data URIs) import.
pub fn import_bytes(path_for_messages: &str, bytes: &[u8], res: Option<&Resources>) -> Result<ModelData, LoadError> {
    let src = path_for_messages;
    let fail = |m: String| LoadError::new(src, m);
    let (json_bytes, bin) = if bytes.starts_with(b"glTF") { split_glb(bytes).map_err(fail)? } else { (bytes, None) };
    if json_bytes.starts_with(b"glTF") {
        return Err(fail("the GLB JSON chunk is not JSON".into()));
    }
    let budget = Budget::new(bytes.len() as u64);
    budget.charge(count_objects(json_bytes).saturating_mul(PARSED_OBJECT_BYTES), "the glTF JSON").map_err(fail)?;
    // The crate's own validation is run only after `precheck`: it indexes accessors by a POSITION
    // index it has not checked yet, and would panic on a hostile file.
    let parsed = gltf::Gltf::from_slice_without_validation(json_bytes).map_err(|e| fail(parse_message(&e)))?;
    let root = parsed.document.into_json();
    precheck(&root).map_err(fail)?;
    let root = match gltf::Document::from_json(root) {
        Ok(doc) => doc.into_json(),
        Err(e) => return Err(fail(parse_message(&e))),
    };
    convert(src, &root, &budget, bin, res)
}

/// The glTF mesh index of each node (`nodes[i].mesh`), from the file's JSON alone: `ModelData`
/// numbers meshes in the order the nodes draw them, which is not the file's numbering when a
/// mesh is drawn twice or not at all; `sinew inspect` reports the file's. Empty for bytes that
/// are not glTF.
pub fn node_meshes(bytes: &[u8]) -> Vec<Option<usize>> {
    #[derive(serde::Deserialize)]
    struct Node {
        mesh: Option<usize>,
    }
    #[derive(serde::Deserialize)]
    struct Nodes {
        #[serde(default)]
        nodes: Vec<Node>,
    }
    let json = if bytes.starts_with(b"glTF") { split_glb(bytes).map_or(&[][..], |(j, _)| j) } else { bytes };
    serde_json::from_slice::<Nodes>(json).map(|r| r.nodes.into_iter().map(|n| n.mesh).collect()).unwrap_or_default()
}

/// What one JSON object costs once parsed and imported (measured: 2,000,000 empty `nodes` take
/// 840 MB, about 420 bytes each). The parser allocates before anything can be checked, and `{},`
/// is 3 bytes, so the object count is what bounds the parse.
const PARSED_OBJECT_BYTES: u64 = 512;

/// How many JSON objects the text opens, counted without parsing (braces outside strings).
fn count_objects(text: &[u8]) -> u64 {
    let (mut n, mut in_string, mut escaped) = (0u64, false, false);
    for &c in text {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'{' {
            n += 1;
        }
    }
    n
}

fn convert(
    src: &str,
    root: &json::Root,
    budget: &Budget,
    bin: Option<&[u8]>,
    res: Option<&Resources>,
) -> Result<ModelData, LoadError> {
    let mut errs = Errors::default();
    let buffers = Buffers::load(src, root, bin, res, &mut errs);
    errs.check(src)?;
    budget.add_input(buffers.loaded_bytes());
    let ctx = accessor::Ctx { root, buffers: &buffers, budget };
    let mut errs = Errors::default();
    let scene = scene::build(root).map_err(|e| LoadError::new(src, e))?;
    let skins = anim::skins(&ctx, &scene, &mut errs);
    let meshes = mesh::meshes(&ctx, &scene, &skins, &mut errs);
    let (mut materials, textures) = material::materials(src, &ctx, res, &mut errs);
    let mut meshes = meshes;
    // A primitive without a material gets glTF's default material (white, metallic 1,
    // roughness 1), not the rough dielectric other formats default to: in `standard`
    // shading it is a grey rough metal, as three.js draws it.
    if meshes.iter().flat_map(|m| &m.primitives).any(|p| p.material.is_none()) {
        materials.push(crate::project::model_data::MaterialData {
            name: "(glTF default material)".into(),
            metallic: 1.0,
            ..Default::default()
        });
        let k = materials.len() - 1;
        for p in meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            p.material.get_or_insert(k);
        }
    }
    let animations = anim::animations(&ctx, &scene, &mut errs);
    errs.check(src)?;
    let mut aabb = Aabb::default();
    for m in &meshes {
        if !m.aabb.is_empty() {
            aabb.grow(m.aabb.min);
            aabb.grow(m.aabb.max);
        }
    }
    Ok(ModelData { source: src.to_string(), meshes, materials, textures, nodes: scene.nodes, skins, animations, aabb })
}

fn parse_message(e: &gltf::Error) -> String {
    match e {
        gltf::Error::Validation(list) => {
            let mut all: Vec<String> = list.iter().map(|(p, e)| format!("{}: {e}", p.as_str())).collect();
            let more = all.len().saturating_sub(MAX_LISTED);
            all.truncate(MAX_LISTED);
            let mut msg = all.join("; ");
            if more > 0 {
                msg.push_str(&format!("; and {more} more"));
            }
            msg
        }
        gltf::Error::Deserialize(e) => {
            // serde_json ends its message with " at line L column C": give the position once.
            let full = e.to_string();
            let tail = format!(" at line {} column {}", e.line(), e.column());
            let msg = full.strip_suffix(&tail).unwrap_or(&full);
            format!("invalid glTF JSON (line {}, column {}): {msg}", e.line(), e.column())
        }
        other => format!("invalid glTF: {other}"),
    }
}

/// The checks that must pass before `gltf` may validate the document without panicking.
fn precheck(root: &json::Root) -> Result<(), String> {
    for (mi, m) in root.meshes.iter().enumerate() {
        for (pi, p) in m.primitives.iter().enumerate() {
            let key = json::validation::Checked::Valid(json::mesh::Semantic::Positions);
            if let Some(ix) = p.attributes.get(&key)
                && ix.value() >= root.accessors.len()
            {
                return Err(format!(
                    "meshes[{mi}].primitives[{pi}].attributes.POSITION: accessor {} does not exist ({} accessors)",
                    ix.value(),
                    root.accessors.len()
                ));
            }
        }
    }
    Ok(())
}

/// Splits a GLB container into its JSON and BIN chunks. Done here rather than by the crate, which
/// underflows (and panics in debug builds) on a header length below 12.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), String> {
    let short = || format!("truncated GLB ({} bytes)", bytes.len());
    let version = le_u32(bytes, 4).ok_or_else(short)?;
    if version != 2 {
        return Err(format!("GLB version {version} is not supported (only 2)"));
    }
    let length = le_u32(bytes, 8).ok_or_else(short)? as usize;
    if length > bytes.len() {
        return Err(format!("truncated GLB: header says {length} bytes, file has {}", bytes.len()));
    }
    let body = bytes.get(..length).ok_or_else(short)?;
    let mut at = 12;
    let mut json = None;
    let mut bin = None;
    while at < body.len() {
        let (Some(len), Some(kind)) = (le_u32(body, at), le_u32(body, at + 4)) else {
            return Err(format!("GLB chunk header at byte {at} is truncated"));
        };
        let start = at + 8;
        let data = start
            .checked_add(len as usize)
            .and_then(|end| body.get(start..end))
            .ok_or_else(|| format!("GLB chunk at byte {at} ({len} bytes) runs past the end of the file ({length})"))?;
        match (kind, json.is_some()) {
            (0x4E4F_534A, false) => json = Some(data),
            (_, false) => return Err("the first GLB chunk is not JSON".into()),
            (0x004E_4942, true) if bin.is_none() => bin = Some(data),
            _ => {} // unknown chunks are skipped, as the spec says
        }
        at = start + data.len();
    }
    let json = json.ok_or("GLB has no JSON chunk")?;
    Ok((json, bin))
}

#[cfg(test)]
mod tests;

/// A stand-alone texture file (PNG or JPEG) named by a `.model`'s `textures`: repeat, linear,
/// mipmapped.
pub fn load_texture(res: &Resources, path: &str, referenced_from: &str) -> Result<TextureData, LoadError> {
    if path.ends_with(".cubemap") {
        return crate::project::cubemap::load_cubemap(res, path, referenced_from);
    }
    let bytes = res.read(path, Some(referenced_from))?;
    let (width, height, rgba) = material::decode_image(&bytes).map_err(|e| LoadError::new(path, e))?;
    Ok(TextureData {
        name: path.to_string(),
        width,
        height,
        rgba,
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        mag_linear: true,
        min_linear: true,
        mipmaps: true,
        cube: false,
    })
}
