//! Wavefront OBJ import (rigs.md section 1) into the same [`ModelData`] a glTF becomes.
//!
//! Parsed by hand rather than with `tobj`: its errors carry no line number (`LoadError::
//! FaceParseError` and friends), and the contract is that a malformed line is reported as
//! `/models/girl.obj:120: …`. The parser is a single pass over the lines, and every index is
//! checked against the vertices read so far (negative indices count back from there).
pub mod mtl;

use crate::base::error::LoadError;
use crate::base::path::resolve_relative;
use crate::project::Resources;
use crate::project::gltf::Budget;
use crate::project::model_data::{
    Aabb, AlphaMode, MaterialData, MeshData, ModelData, NodeData, PrimitiveData, TextureData,
};
use std::collections::{HashMap, HashSet};

/// An error on one line (`/m.obj:12: message`, no column: OBJ fields have no useful one).
pub(crate) fn line_error(path: &str, line: usize, message: String) -> LoadError {
    LoadError { resource: path.to_string(), line: Some(line), column: None, message }
}

/// A finite decimal number; `inf`/`nan` (which Rust's parser accepts) are refused.
pub(crate) fn number(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a number")),
    }
}

/// An OBJ file with what a rig needs besides the model: the `v` positions in file order and, for
/// every drawn vertex, the `v` it came from.
#[derive(Debug, Clone)]
pub struct ObjImport {
    pub data: ModelData,
    /// Every `v` line, file order.
    pub positions: Vec<[f32; 3]>,
    /// The same coordinates as written (parsed as f64): a rig's weights are computed from these,
    /// so a vertex the file puts exactly between two bones ties as the spec says, not as f32
    /// rounding of `0.1` decides.
    pub exact: Vec<[f64; 3]>,
    /// Per primitive (meshes in order, then primitives in order): the `v` index of each vertex.
    pub sources: Vec<Vec<u32>>,
    /// The `.mtl` (and texture) resources read or looked for, for hot reload.
    pub files: Vec<String>,
    /// Problems that do not stop the import (a missing `.mtl`, an unknown `usemtl`).
    pub warnings: Vec<String>,
}

/// Imports the OBJ resource `path` and the `.mtl` files it names.
pub fn import(res: &Resources, path: &str) -> Result<ObjImport, LoadError> {
    let text = res.read_string(path, None)?;
    parse(path, &text, Some(res))
}

/// Marks an absent texcoord or normal index in a face corner.
const NONE: u32 = u32::MAX;

/// One mesh being read: its primitives by material (`usemtl` switches).
struct MeshBuild {
    name: String,
    /// (material, triangle corners as (v, vt, vn) triples, three per triangle).
    prims: Vec<(Option<usize>, Vec<[u32; 3]>)>,
}

/// Bytes one `v` line keeps: its f32 position, its f64 coordinates and its smooth normal.
const VERTEX_BYTES: u64 = 12 + 24 + 12;
/// Bytes one triangle corner takes while reading (a (v, vt, vn) triple) and in the model (an
/// index); a polygon of n corners makes n − 2 triangles, so a long `f` line multiplies.
const CORNER_BYTES: u64 = 12 + 4;
/// Bytes one drawn vertex of the model takes: position, normal, texcoord, its `v` index and its
/// entry in the corner map.
const DRAWN_VERTEX_BYTES: u64 = 12 + 12 + 8 + 4 + 24;

/// Parses OBJ text. Without `res`, `mtllib` lines only produce warnings. What the model will
/// hold is charged to glTF's import budget (64 MiB plus 8 bytes per byte of the file) before it
/// is allocated: 10 million `f 1 2 3` lines, or one `f` line of a million corners, are refused
/// with the line instead of taking gigabytes.
pub fn parse(path: &str, text: &str, res: Option<&Resources>) -> Result<ObjImport, LoadError> {
    let budget = Budget::new(text.len() as u64);
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut exact: Vec<[f64; 3]> = Vec::new();
    let mut texcoords: Vec<[f32; 2]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let default_name = path.rsplit('/').next().unwrap_or(path).trim_end_matches(".obj").to_string();
    let mut meshes: Vec<MeshBuild> = Vec::new();
    // Meshes by name (the first of a name): a file of 300,000 `g` lines must not compare each
    // with every one before it.
    let mut mesh_by_name: HashMap<String, usize> = HashMap::new();
    let mut current_mesh: Option<usize> = None;
    let mut current_material: Option<usize> = None;
    let mut lib = Library::default();
    let mut corners: Vec<[u32; 3]> = Vec::with_capacity(8);
    let mut logged: HashSet<String> = HashSet::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |m: String| line_error(path, line, m);
        let body = match raw.find('#') {
            Some(k) => &raw[..k],
            None => raw,
        };
        let mut it = body.split_ascii_whitespace();
        let Some(key) = it.next() else { continue };
        match key {
            "v" => {
                let mut p = [0.0f64; 3];
                let mut n = 0;
                for f in it {
                    // `v x y z r g b` (vertex colours) exists in the wild: colours are ignored.
                    if n < 3 {
                        p[n] = exact_number(f).map_err(err)?;
                    } else if n >= 6 {
                        return Err(err("'v' takes 3 coordinates".into()));
                    }
                    n += 1;
                }
                if n != 3 && n != 4 && n != 6 {
                    return Err(err(format!("'v' takes 3 coordinates, found {n}")));
                }
                budget.charge(VERTEX_BYTES, "a vertex").map_err(err)?;
                positions.push(p.map(|c| c as f32));
                exact.push(p);
            }
            "vt" => {
                let mut t = [0.0f32; 2];
                let mut n = 0;
                for f in it {
                    if n < 2 {
                        t[n] = number(f).map_err(err)?;
                    } else {
                        number(f).map_err(err)?;
                    }
                    n += 1;
                }
                if !(1..=3).contains(&n) {
                    return Err(err(format!("'vt' takes 1 to 3 coordinates, found {n}")));
                }
                budget.charge(8, "a texture coordinate").map_err(err)?;
                // OBJ's v runs up from the bottom of the image, glTF's (and Sinew's) down.
                texcoords.push([t[0], 1.0 - t[1]]);
            }
            "vn" => {
                let mut v = [0.0f32; 3];
                let mut n = 0;
                for f in it {
                    if n >= 3 {
                        return Err(err("'vn' takes 3 numbers".into()));
                    }
                    v[n] = number(f).map_err(err)?;
                    n += 1;
                }
                if n != 3 {
                    return Err(err(format!("'vn' takes 3 numbers, found {n}")));
                }
                budget.charge(12, "a normal").map_err(err)?;
                normals.push(v);
            }
            "f" => {
                corners.clear();
                for f in it {
                    corners.push(corner(f, positions.len(), texcoords.len(), normals.len()).map_err(err)?);
                }
                if corners.len() < 3 {
                    return Err(err(format!("a face needs at least 3 vertices, found {}", corners.len())));
                }
                let triangles = corners.len() as u64 - 2;
                budget.charge(triangles * 3 * CORNER_BYTES, "a face").map_err(err)?;
                let m = match current_mesh {
                    Some(m) => m,
                    None => mesh_named(&mut meshes, &mut mesh_by_name, &default_name),
                };
                current_mesh = Some(m);
                let prims = &mut meshes[m].prims;
                let p = match prims.iter().position(|(mat, _)| *mat == current_material) {
                    Some(p) => p,
                    None => {
                        prims.push((current_material, Vec::new()));
                        prims.len() - 1
                    }
                };
                let tris = &mut prims[p].1;
                // A fan: exact for the convex polygons exporters write.
                for k in 1..corners.len() - 1 {
                    tris.extend_from_slice(&[corners[0], corners[k], corners[k + 1]]);
                }
            }
            "o" | "g" => {
                let name = body.trim_start()[1..].trim();
                let name = if name.is_empty() { default_name.as_str() } else { name };
                let bytes = (std::mem::size_of::<MeshBuild>() + name.len()) as u64;
                budget.charge(bytes, "a group").map_err(err)?;
                current_mesh = Some(mesh_named(&mut meshes, &mut mesh_by_name, name));
            }
            "usemtl" => {
                let name = body.trim_start()["usemtl".len()..].trim();
                current_material = lib.material(path, line, name);
            }
            "mtllib" => {
                let names = body.trim_start()["mtllib".len()..].trim();
                if names.is_empty() {
                    return Err(err("'mtllib' needs a file name".into()));
                }
                for name in names.split_ascii_whitespace() {
                    lib.load(res, path, line, &name.replace('\\', "/"))?;
                }
            }
            // Smoothing groups: Sinew's generated normals are smooth per position anyway.
            "s" => {}
            other => {
                if !logged.contains(other) {
                    log::debug!("{path}:{line}: '{other}' is ignored");
                    logged.insert(other.to_string());
                }
            }
        }
    }
    let read = Read { positions, exact, texcoords, normals };
    build(path, read, meshes, lib, &budget)
}

/// The mesh called `name` (the first one, as `g` lines reopen groups), made when new.
fn mesh_named(meshes: &mut Vec<MeshBuild>, by_name: &mut HashMap<String, usize>, name: &str) -> usize {
    if let Some(&m) = by_name.get(name) {
        return m;
    }
    meshes.push(MeshBuild { name: name.to_string(), prims: Vec::new() });
    by_name.insert(name.to_string(), meshes.len() - 1);
    meshes.len() - 1
}

/// [`number`] in f64, for the coordinates a rig measures.
fn exact_number(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        // Finite in f32 too: the model keeps the coordinate as f32.
        Ok(v) if v.is_finite() && (v as f32).is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a number")),
    }
}

/// The `v`, `vt` and `vn` lines of a file.
struct Read {
    positions: Vec<[f32; 3]>,
    exact: Vec<[f64; 3]>,
    texcoords: Vec<[f32; 2]>,
    normals: Vec<[f32; 3]>,
}

/// One face corner `v`, `v/vt`, `v//vn` or `v/vt/vn` as 0-based indices.
fn corner(f: &str, nv: usize, nt: usize, nn: usize) -> Result<[u32; 3], String> {
    let mut parts = f.split('/');
    let v = parts.next().unwrap_or("");
    let t = parts.next().unwrap_or("");
    let n = parts.next().unwrap_or("");
    if parts.next().is_some() {
        return Err(format!("face vertex '{f}' has more than 3 parts"));
    }
    let v = index(v, nv, "vertices", "face")?;
    let t = if t.is_empty() { NONE } else { index(t, nt, "texture coordinates", "texture coordinate")? };
    let n = if n.is_empty() { NONE } else { index(n, nn, "normals", "normal")? };
    Ok([v, t, n])
}

/// A 1-based (or negative, relative) OBJ index resolved against the `count` entries so far.
fn index(s: &str, count: usize, what: &str, kind: &str) -> Result<u32, String> {
    let i: i64 = s.parse().map_err(|_| format!("{kind} index '{s}' is not an integer"))?;
    let resolved = if i > 0 { i - 1 } else { count as i64 + i };
    if i == 0 || resolved < 0 || resolved >= count as i64 {
        return Err(format!("{kind} index {i} out of range ({count} {what})"));
    }
    Ok(resolved as u32)
}

/// The materials of every `mtllib`, by name, and the textures they use.
#[derive(Default)]
struct Library {
    materials: Vec<MaterialData>,
    by_name: HashMap<String, usize>,
    textures: Vec<TextureData>,
    texture_by_path: HashMap<String, usize>,
    files: Vec<String>,
    warnings: Vec<String>,
    unknown: HashSet<String>,
}

impl Library {
    fn load(&mut self, res: Option<&Resources>, obj: &str, line: usize, name: &str) -> Result<(), LoadError> {
        let Some(mtl_path) = resolve_relative(obj, name) else {
            return Err(line_error(obj, line, format!("mtllib '{name}' escapes the project root")));
        };
        self.files.push(mtl_path.clone());
        let Some(res) = res else {
            self.warnings.push(format!("{obj}:{line}: mtllib '{mtl_path}' not read (no project)"));
            return Ok(());
        };
        let text = match res.read_string(&mtl_path, Some(obj)) {
            Ok(t) => t,
            Err(e) if e.message.contains("not found") => {
                self.warnings.push(format!("{obj}:{line}: material library '{mtl_path}' not found; default material"));
                return Ok(());
            }
            // A symlink out of the project, a FIFO, bad UTF-8: refused, with the OBJ's line.
            Err(e) => return Err(line_error(obj, line, format!("mtllib '{mtl_path}': {}", e.message))),
        };
        for m in mtl::parse(&mtl_path, &text)? {
            let texture = match &m.diffuse_map {
                Some(p) => self.texture(res, &mtl_path, m.diffuse_map_line, p),
                None => None,
            };
            let data = MaterialData {
                name: m.name.clone(),
                base_color: [m.diffuse[0], m.diffuse[1], m.diffuse[2], m.alpha],
                base_color_texture: texture,
                alpha_mode: if m.alpha < 1.0 { AlphaMode::Blend } else { AlphaMode::Opaque },
                // The built-in material adds it like glTF's emissiveFactor (linear, as `Kd`).
                emissive: m.emissive,
                ..MaterialData::default()
            };
            // The first library to define a name wins, as in every OBJ viewer.
            if !self.by_name.contains_key(&m.name) {
                self.by_name.insert(m.name, self.materials.len());
                self.materials.push(data);
            }
        }
        Ok(())
    }

    fn texture(&mut self, res: &Resources, mtl: &str, line: usize, path: &str) -> Option<usize> {
        if let Some(&t) = self.texture_by_path.get(path) {
            return Some(t);
        }
        self.files.push(path.to_string());
        match crate::project::gltf::load_texture(res, path, mtl) {
            Ok(t) => {
                self.textures.push(t);
                self.texture_by_path.insert(path.to_string(), self.textures.len() - 1);
                Some(self.textures.len() - 1)
            }
            Err(e) => {
                self.warnings.push(format!("{mtl}:{line}: map_Kd '{path}': {}; no texture", e.message));
                None
            }
        }
    }

    fn material(&mut self, obj: &str, line: usize, name: &str) -> Option<usize> {
        let found = self.by_name.get(name).copied();
        if found.is_none() && self.unknown.insert(name.to_string()) {
            self.warnings.push(format!("{obj}:{line}: usemtl '{name}': no such material; default material"));
        }
        found
    }
}

/// Unique (v, vt, vn) corners become vertices, per primitive.
fn build(
    path: &str,
    read: Read,
    meshes: Vec<MeshBuild>,
    lib: Library,
    budget: &Budget,
) -> Result<ObjImport, LoadError> {
    let Read { positions, exact, texcoords, normals } = read;
    let refused = |e: String| LoadError::new(path, e);
    let needs_normals = meshes.iter().flat_map(|m| &m.prims).flat_map(|p| &p.1).any(|c| c[2] == NONE);
    let computed = if needs_normals { smooth_normals(&positions, &meshes) } else { Vec::new() };
    let mut out_meshes = Vec::new();
    let mut nodes = Vec::new();
    let mut sources = Vec::new();
    let mut aabb = Aabb::default();
    let mut map: HashMap<[u32; 3], u32, std::hash::BuildHasherDefault<CornerHasher>> = HashMap::default();
    for m in meshes.into_iter().filter(|m| !m.prims.is_empty()) {
        let mut mesh_box = Aabb::default();
        let mut prims = Vec::with_capacity(m.prims.len());
        for (material, tris) in m.prims {
            map.clear();
            let mut prim = PrimitiveData { material, ..PrimitiveData::default() };
            let mut src = Vec::new();
            let has_uv = tris.iter().any(|c| c[1] != NONE);
            prim.indices.reserve(tris.len());
            for c in &tris {
                let next = src.len() as u32;
                let k = *map.entry(*c).or_insert(next);
                if k == next {
                    budget.charge(DRAWN_VERTEX_BYTES, "a drawn vertex").map_err(refused)?;
                    let p = positions[c[0] as usize];
                    mesh_box.grow(p);
                    prim.positions.push(p);
                    prim.normals.push(if c[2] == NONE { computed[c[0] as usize] } else { normals[c[2] as usize] });
                    if has_uv {
                        prim.texcoords0.push(if c[1] == NONE { [0.0; 2] } else { texcoords[c[1] as usize] });
                    }
                    src.push(c[0]);
                }
                prim.indices.push(k);
            }
            prims.push(prim);
            sources.push(src);
        }
        if !mesh_box.is_empty() {
            aabb.grow(mesh_box.min);
            aabb.grow(mesh_box.max);
        }
        nodes.push(NodeData {
            name: m.name.clone(),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            gltf_index: nodes.len(),
        });
        out_meshes.push(MeshData {
            id: m.name,
            node: nodes.len() - 1,
            skin: None,
            primitives: prims,
            target_names: Vec::new(),
            weights: Vec::new(),
            aabb: mesh_box,
        });
    }
    let data = ModelData {
        source: path.to_string(),
        meshes: out_meshes,
        materials: lib.materials,
        textures: lib.textures,
        nodes,
        skins: Vec::new(),
        animations: Vec::new(),
        aabb,
    };
    Ok(ObjImport { data, positions, exact, sources, files: lib.files, warnings: lib.warnings })
}

/// A multiply-rotate hash for the (v, vt, vn) corner keys: SipHash (the default, built against
/// hostile keys) took a third of the import time, and these keys are bounded indices.
#[derive(Default)]
struct CornerHasher(u64);

impl std::hash::Hasher for CornerHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(b as u32);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(5) ^ v as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u32(v as u32);
    }
}

/// Area-weighted normals per `v` position over every face of the file (a cross product's length
/// is twice the triangle's area, so summing them unnormalised weighs by area).
fn smooth_normals(positions: &[[f32; 3]], meshes: &[MeshBuild]) -> Vec<[f32; 3]> {
    use glam::Vec3;
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for tris in meshes.iter().flat_map(|m| &m.prims).map(|p| &p.1) {
        for t in tris.chunks_exact(3) {
            let [a, b, c] = [t[0][0], t[1][0], t[2][0]].map(|i| i as usize);
            let (pa, pb, pc) = (Vec3::from(positions[a]), Vec3::from(positions[b]), Vec3::from(positions[c]));
            let n = (pb - pa).cross(pc - pa);
            acc[a] += n;
            acc[b] += n;
            acc[c] += n;
        }
    }
    acc.into_iter().map(|n| n.try_normalize().unwrap_or(Vec3::Y).to_array()).collect()
}

#[cfg(test)]
mod tests;
