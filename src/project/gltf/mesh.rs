//! Mesh primitives: attribute streams checked for type, count and range, missing normals (and the
//! tangents of normal-mapped primitives) generated, skin weights renormalised, and model-space bounds.
use super::Errors;
use super::accessor::{Ctx, Kind};
use super::material::texture_refs;
use super::scene::Scene;
use crate::project::model_data::{Aabb, MeshData, MorphTargetData, PrimitiveData, SkinData};
use glam::{Mat4, Vec3};
use gltf::json;
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;
use std::collections::HashMap;

/// Most morph targets one primitive may have. The renderer blends every target of a mesh each
/// frame, and a target list is the cheapest way for a file to multiply one accessor into
/// gigabytes, so the count is checked before any target is read.
pub(crate) const MAX_TARGETS: usize = 256;

/// How many values a bad list quotes in an error (a million weights do not fit on a line).
const QUOTED: usize = 4;

/// `[a, b, c, d, ... (N values)]`: the first few values of a list, and its length.
fn quote(v: &[f32]) -> String {
    let head: Vec<String> = v.iter().take(QUOTED).map(|x| format!("{x}")).collect();
    let more = if v.len() > QUOTED { ", ..." } else { "" };
    format!("[{}{more}] ({} values)", head.join(", "), v.len())
}

/// Bytes one copy of these primitives (and its per-node lists) takes, for the budget: every node
/// that uses a mesh gets its own copy.
fn copy_bytes(prims: &[PrimitiveData], names: &[String], id: usize) -> u64 {
    let n = |len: usize, size: usize| (len as u64).saturating_mul(size as u64);
    let mut total = n(names.len(), 24) + names.iter().map(|s| s.len() as u64).sum::<u64>() + id as u64;
    for p in prims {
        total += n(p.positions.len(), 12) + n(p.normals.len(), 12) + n(p.tangents.len(), 16);
        total += n(p.texcoords0.len(), 8) + n(p.texcoords1.len(), 8) + n(p.colors.len(), 16);
        total += n(p.joints.len(), 8) + n(p.weights.len(), 16) + n(p.indices.len(), 4);
        for t in &p.targets {
            total += n(t.positions.len(), 12) + n(t.normals.len(), 12) + n(t.tangents.len(), 12);
        }
    }
    total
}

/// One `MeshData` per scene node that has a mesh, in node order.
pub(crate) fn meshes(ctx: &Ctx, scene: &Scene, skins: &[SkinData], errs: &mut Errors) -> Vec<MeshData> {
    // Each mesh is read once: its primitives and target names, or None after its error.
    type Read = Option<(Vec<PrimitiveData>, Vec<String>)>;
    let mut cache: HashMap<usize, Read> = HashMap::new();
    let mut out = Vec::new();
    for (ni, &g) in scene.order.iter().enumerate() {
        let Some(node) = ctx.root.nodes.get(g) else { continue };
        let Some(mi) = node.mesh.map(|m| m.value()) else { continue };
        let Some(mesh) = ctx.root.meshes.get(mi) else {
            errs.push(format!("nodes[{g}].mesh: mesh {mi} does not exist"));
            continue;
        };
        let cached = cache.entry(mi).or_insert_with(|| {
            errs.take(read_mesh(ctx, mi, mesh)).map(|p| {
                let mut names = target_names(mesh);
                names.truncate(p.first().map_or(0, |p| p.targets.len()));
                (p, names)
            })
        });
        let Some((prims, names)) = cached.as_ref() else { continue };
        let name = [&mesh.name, &node.name].into_iter().flatten().map(String::as_str).find(|n| !n.is_empty());
        let copy = copy_bytes(prims, names, name.map_or(0, str::len));
        if errs.take(ctx.charge(copy, &format!("nodes[{g}].mesh (mesh {mi})"))).is_none() {
            continue;
        }
        let (mut primitives, mut target_names) = (prims.clone(), names.clone());
        let n_targets = primitives.first().map_or(0, |p| p.targets.len());
        let id = name.map_or_else(|| format!("mesh_{mi}"), str::to_string);
        let skin = node.skin.map(|s| s.value());
        if let Some(s) = skin {
            let Some(sk) = skins.get(s) else {
                errs.push(format!("nodes[{g}].skin: skin {s} does not exist"));
                continue;
            };
            for (pi, p) in primitives.iter_mut().enumerate() {
                errs.take(check_joints(p, sk.joints.len()).map_err(|e| {
                    format!("meshes[{mi}].primitives[{pi}].attributes.JOINTS_0: {e} (nodes[{g}] uses skin {s})")
                }));
            }
        }
        let weights = match node.weights.as_ref().or(mesh.weights.as_ref()) {
            None => vec![0.0; n_targets],
            Some(w) if w.len() == n_targets && w.iter().all(|v| v.is_finite()) => w.clone(),
            Some(w) => {
                let from = if node.weights.is_some() { format!("nodes[{g}]") } else { format!("meshes[{mi}]") };
                errs.push(format!("{from}.weights: {n_targets} finite weights needed, found {}", quote(w)));
                continue;
            }
        };
        target_names.resize(n_targets, String::new());
        // A skinned mesh ignores its node's transform (glTF spec): its bind-pose vertices are
        // already in model space.
        let world =
            if skin.is_some() { Mat4::IDENTITY } else { scene.world.get(ni).copied().unwrap_or(Mat4::IDENTITY) };
        let mut aabb = Aabb::default();
        for p in &primitives {
            for &v in &p.positions {
                aabb.grow(world.transform_point3(Vec3::from(v)).to_array());
            }
        }
        out.push(MeshData { id, node: ni, skin, primitives, target_names, weights, aabb });
    }
    out
}

/// `mesh.extras.targetNames`, the de-facto convention for naming morph targets.
fn target_names(mesh: &json::Mesh) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Extras {
        #[serde(rename = "targetNames")]
        target_names: Option<Vec<String>>,
    }
    let parsed = mesh.extras.as_ref().and_then(|raw| serde_json::from_str::<Extras>(raw.get()).ok());
    parsed.and_then(|e| e.target_names).unwrap_or_default()
}

/// Joint indices must name a joint of the skin; an unused influence (weight 0) is set to joint 0.
fn check_joints(p: &mut PrimitiveData, n: usize) -> Result<(), String> {
    for (v, (j, w)) in p.joints.iter_mut().zip(&p.weights).enumerate() {
        for (j, &w) in j.iter_mut().zip(w) {
            if usize::from(*j) >= n {
                if w > 0.0 {
                    return Err(format!("vertex {v}: joint {j} out of range ({n} joints)"));
                }
                *j = 0;
            }
        }
    }
    Ok(())
}

fn read_mesh(ctx: &Ctx, mi: usize, mesh: &json::Mesh) -> Result<Vec<PrimitiveData>, String> {
    let mut prims = Vec::with_capacity(mesh.primitives.len());
    for (pi, p) in mesh.primitives.iter().enumerate() {
        let path = format!("meshes[{mi}].primitives[{pi}]");
        let prim = read_primitive(ctx, &path, p)?;
        if let Some(first) = prims.first().map(|f: &PrimitiveData| f.targets.len())
            && first != prim.targets.len()
        {
            return Err(format!("{path}.targets: {} targets, primitive 0 has {first}", prim.targets.len()));
        }
        prims.push(prim);
    }
    if prims.is_empty() {
        return Err(format!("meshes[{mi}].primitives: empty"));
    }
    Ok(prims)
}

fn read_primitive(ctx: &Ctx, path: &str, p: &json::mesh::Primitive) -> Result<PrimitiveData, String> {
    match p.mode {
        Checked::Valid(Mode::Triangles) => {}
        Checked::Valid(m) => return Err(format!("{path}.mode: {m:?} is not supported (only triangles)")),
        Checked::Invalid => return Err(format!("{path}.mode: invalid")),
    }
    let n_targets = p.targets.as_ref().map_or(0, |t| t.len());
    if n_targets > MAX_TARGETS {
        return Err(format!("{path}.targets: {n_targets} morph targets, at most {MAX_TARGETS} are supported"));
    }
    let mut out = PrimitiveData::default();
    let mut n: Option<(usize, String)> = None;
    let mut count = |c: usize, what: &str| -> Result<(), String> {
        match &n {
            Some((m, first)) if *m != c => Err(format!("{what}: {c} elements, but {first} has {m}")),
            Some(_) => Ok(()),
            None => {
                n = Some((c, what.to_string()));
                Ok(())
            }
        }
    };
    for (sem, acc) in &p.attributes {
        let Checked::Valid(sem) = sem else { return Err(format!("{path}.attributes: invalid attribute name")) };
        let acc = acc.value();
        let what = format!("{path}.attributes.{}", sem_name(sem));
        match sem {
            Semantic::Positions => {
                let a = ctx.read::<f32>(acc, &what, &[3], Kind::Float)?;
                if let Some(i) = a.values.iter().position(|v| !v.is_finite()) {
                    return Err(format!("{what}[{}]: position is not finite", i / 3));
                }
                count(a.count, &what)?;
                out.positions = a.arrays();
            }
            Semantic::Normals => {
                let a = ctx.read::<f32>(acc, &what, &[3], Kind::Float)?;
                count(a.count, &what)?;
                out.normals = a.arrays();
            }
            Semantic::Tangents => {
                let a = ctx.read::<f32>(acc, &what, &[4], Kind::FloatOrNorm)?;
                if let Some(i) = a.values.iter().position(|v| !v.is_finite()) {
                    return Err(format!("{what}[{}]: tangent is not finite", i / 4));
                }
                count(a.count, &what)?;
                // w is the bitangent's sign, +1 or -1 in the spec; anything else is read as its sign.
                out.tangents = a.arrays::<4>().into_iter().map(|[x, y, z, w]| [x, y, z, w_sign(w)]).collect();
            }
            Semantic::TexCoords(set @ (0 | 1)) => {
                let a = ctx.read::<f32>(acc, &what, &[2], Kind::FloatOrUnorm)?;
                count(a.count, &what)?;
                *(if *set == 0 { &mut out.texcoords0 } else { &mut out.texcoords1 }) = a.arrays();
            }
            Semantic::Colors(0) => {
                let a = ctx.read::<f32>(acc, &what, &[3, 4], Kind::FloatOrUnorm)?;
                count(a.count, &what)?;
                out.colors = a
                    .values
                    .chunks_exact(a.dim)
                    .map(|c| [c[0], c[1], c[2], c.get(3).copied().unwrap_or(1.0)])
                    .collect();
            }
            Semantic::Joints(0) => {
                let a = ctx.read::<u32>(acc, &what, &[4], Kind::Joint)?;
                count(a.count, &what)?;
                out.joints =
                    a.values.chunks_exact(4).map(|c| [c[0] as u16, c[1] as u16, c[2] as u16, c[3] as u16]).collect();
            }
            Semantic::Weights(0) => {
                let a = ctx.read::<f32>(acc, &what, &[4], Kind::FloatOrUnorm)?;
                count(a.count, &what)?;
                let w = a.arrays::<4>().into_iter().enumerate().map(|(i, w)| renormalize(w).ok_or(i));
                out.weights = w
                    .collect::<Result<_, _>>()
                    .map_err(|i| format!("{what}: weights of vertex {i} are negative or not finite"))?;
            }
            _ => {} // further sets (TEXCOORD_2, JOINTS_1, ...) and custom attributes are not used
        }
    }
    let Some((nv, _)) = n else { return Err(format!("{path}.attributes: no POSITION")) };
    if out.positions.is_empty() {
        return Err(format!("{path}.attributes: no POSITION"));
    }
    if out.joints.is_empty() != out.weights.is_empty() {
        return Err(format!("{path}.attributes: JOINTS_0 and WEIGHTS_0 must come together"));
    }
    out.indices = match p.indices {
        Some(ix) => {
            let what = format!("{path}.indices");
            let a = ctx.read::<u32>(ix.value(), &what, &[1], Kind::Index)?;
            if let Some(bad) = a.values.iter().find(|&&i| i as usize >= nv) {
                return Err(format!("{what}: index {bad} out of range ({nv} vertices)"));
            }
            a.values
        }
        None => {
            ctx.charge(nv as u64 * 4, &format!("{path}.indices"))?;
            (0..nv as u32).collect()
        }
    };
    if out.indices.len() % 3 != 0 {
        return Err(format!("{path}: {} indices is not a whole number of triangles", out.indices.len()));
    }
    for (ti, t) in p.targets.iter().flatten().enumerate() {
        let tpath = format!("{path}.targets[{ti}]");
        let mut m = MorphTargetData::default();
        for (acc, name, dst) in [
            (t.positions, "POSITION", &mut m.positions),
            (t.normals, "NORMAL", &mut m.normals),
            (t.tangents, "TANGENT", &mut m.tangents),
        ] {
            if let Some(acc) = acc {
                let what = format!("{tpath}.{name}");
                let a = ctx.read::<f32>(acc.value(), &what, &[3], Kind::FloatOrNorm)?;
                if a.count != nv {
                    return Err(format!("{what}: {} elements for {nv} vertices", a.count));
                }
                if a.values.iter().any(|v| !v.is_finite()) {
                    return Err(format!("{what}: values are not finite"));
                }
                *dst = a.arrays();
            }
        }
        out.targets.push(m);
    }
    if out.normals.is_empty() {
        ctx.charge(nv as u64 * 24, &format!("{path}.attributes.NORMAL"))?;
        out.normals = smooth_normals(&out.positions, &out.indices);
    }
    out.material = p.material.map(|m| m.value());
    if let Some(mi) = out.material
        && let Some(m) = ctx.root.materials.get(mi)
    {
        for (field, _, set) in texture_refs(m).into_iter().flatten() {
            let have = match set {
                0 => !out.texcoords0.is_empty(),
                1 => !out.texcoords1.is_empty(),
                _ => true, // reported with the material
            };
            if !have {
                return Err(format!("{path}.attributes: no TEXCOORD_{set}, which materials[{mi}].{field} reads"));
            }
        }
        if let Some(nt) = &m.normal_texture
            && out.tangents.is_empty()
        {
            let uv = if nt.tex_coord == 1 { &out.texcoords1 } else { &out.texcoords0 };
            ctx.charge(nv as u64 * 48, &format!("{path}.attributes.TANGENT"))?;
            out.tangents = generate_tangents(&out.positions, &out.normals, uv, &out.indices);
        }
    }
    Ok(out)
}

fn w_sign(w: f32) -> f32 {
    if w < 0.0 { -1.0 } else { 1.0 }
}

/// Per-vertex tangents for a normal-mapped primitive that has none: each triangle's tangent and
/// bitangent from its position and UV differences (Lengyel's method, not MikkTSpace), summed per
/// vertex, made perpendicular to the normal (Gram-Schmidt), with w the bitangent's sign. glTF's
/// v runs down the image while a normal map's green channel points up it, so the bitangent that
/// w = +1 stands for is -dP/dv. Vertices whose triangles all have degenerate UVs get any
/// tangent perpendicular to their normal.
pub(crate) fn generate_tangents(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uvs: &[[f32; 2]],
    indices: &[u32],
) -> Vec<[f32; 4]> {
    let mut tan = vec![Vec3::ZERO; positions.len()];
    let mut bit = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let p = |i: u32| positions.get(i as usize).map_or(Vec3::ZERO, |v| Vec3::from(*v));
        let uv = |i: u32| uvs.get(i as usize).map_or(glam::Vec2::ZERO, |v| glam::Vec2::from(*v));
        let (e1, e2) = (p(t[1]) - p(t[0]), p(t[2]) - p(t[0]));
        let (d1, d2) = (uv(t[1]) - uv(t[0]), uv(t[2]) - uv(t[0]));
        let r = d1.x * d2.y - d2.x * d1.y;
        if !r.is_normal() {
            continue;
        }
        let sdir = (e1 * d2.y - e2 * d1.y) / r; // dP/du
        let tdir = (e2 * d1.x - e1 * d2.x) / r; // dP/dv
        if !(sdir.is_finite() && tdir.is_finite()) {
            continue;
        }
        for &i in t {
            if let (Some(a), Some(b)) = (tan.get_mut(i as usize), bit.get_mut(i as usize)) {
                *a += sdir;
                *b += tdir;
            }
        }
    }
    tan.iter()
        .zip(&bit)
        .enumerate()
        .map(|(i, (&t, &b))| {
            let n = normals.get(i).map_or(Vec3::Z, |v| Vec3::from(*v)).try_normalize().unwrap_or(Vec3::Z);
            let t = (t - n * n.dot(t)).try_normalize().unwrap_or_else(|| n.any_orthonormal_vector());
            let w = if n.cross(t).dot(-b) < 0.0 { -1.0 } else { 1.0 };
            [t.x, t.y, t.z, w]
        })
        .collect()
}

fn sem_name(s: &Semantic) -> String {
    match s {
        Semantic::Positions => "POSITION".into(),
        Semantic::Normals => "NORMAL".into(),
        Semantic::Tangents => "TANGENT".into(),
        Semantic::Colors(i) => format!("COLOR_{i}"),
        Semantic::TexCoords(i) => format!("TEXCOORD_{i}"),
        Semantic::Joints(i) => format!("JOINTS_{i}"),
        Semantic::Weights(i) => format!("WEIGHTS_{i}"),
        Semantic::Extras(n) => n.clone(),
    }
}

/// Scales weights to sum to 1 (exporters often write sums like 0.998). All-zero weights bind to the
/// first joint rather than collapsing the vertex to the origin.
fn renormalize(w: [f32; 4]) -> Option<[f32; 4]> {
    if w.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return None;
    }
    let sum: f32 = w.iter().sum();
    Some(if sum <= 0.0 { [1.0, 0.0, 0.0, 0.0] } else { w.map(|v| v / sum) })
}

/// Area-weighted vertex normals from the triangles, for files that have none (the glTF spec asks
/// for flat normals; shared vertices give smooth ones, which look better on the organic models here).
pub(crate) fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let p = |i: u32| positions.get(i as usize).map_or(Vec3::ZERO, |v| Vec3::from(*v));
        let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        for &i in t {
            if let Some(a) = acc.get_mut(i as usize) {
                *a += n;
            }
        }
    }
    acc.into_iter().map(|n| n.try_normalize().unwrap_or(Vec3::Z).to_array()).collect()
}
