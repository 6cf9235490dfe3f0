//! `sinew inspect MODEL`: what the importer makes of a glTF file, so an artist can check names,
//! joints, morph targets and clips without running a game.
use crate::project::Resources;
use crate::project::model_data::{ChannelPath, Interpolation, ModelData};
use std::fmt::Write;
use std::path::Path;

/// Prints the report to stdout and returns 0, or prints the error to stderr and returns 1. The
/// model's folder is the project root, so sibling `.bin` and image files resolve and nothing
/// outside that folder is read.
pub fn inspect(path: &Path) -> i32 {
    if crate::project::import::is_bon(&path.to_string_lossy()) {
        return inspect_rig(path, None);
    }
    if path.extension().is_some_and(|e| e == "model") {
        return inspect_model_file(path);
    }
    match load_imported(path) {
        Ok(im) => {
            let status = super::stdout::status_after(&report(&path.display().to_string(), &im.data));
            for w in warnings(&im.data) {
                eprintln!("warning: {}: {w}", path.display());
            }
            for w in &im.warnings {
                eprintln!("warning: {w}");
            }
            status
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// A `.model` component file (Sinew's JSON or Defold's text format), read in its project (the
/// nearest folder above it with `game.project` or `project.json`, else its own): what it names,
/// then the report of its mesh.
fn inspect_model_file(path: &Path) -> i32 {
    let Ok(abs) = path.canonicalize() else {
        eprintln!("error: {}: cannot open the file", path.display());
        return 1;
    };
    let own = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let is_root = |d: &&Path| d.join("game.project").is_file() || d.join("project.json").is_file();
    let root = own.ancestors().find(is_root).unwrap_or(&own).to_path_buf();
    let Ok(rel) = abs.strip_prefix(&root) else {
        eprintln!("error: {}: not inside its project folder", path.display());
        return 1;
    };
    let resource = format!("/{}", rel.to_string_lossy().replace('\\', "/"));
    let spec =
        match Resources::open_dir(&root).and_then(|res| crate::project::collection::load_model_file(&res, &resource)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        };
    let mut out = format!("{resource} (project {})\n  mesh {}\n", root.display(), spec.mesh);
    if !spec.skeleton.is_empty() && spec.skeleton != spec.mesh {
        let _ = writeln!(out, "  skeleton {}", spec.skeleton);
    }
    for a in &spec.animations {
        let _ = writeln!(out, "  animations {a}");
    }
    if let Some(d) = &spec.default_animation {
        let _ = writeln!(out, "  default_animation {}", d.value);
    }
    let _ = writeln!(out, "  material {}", spec.material);
    for (sampler, texture) in &spec.textures {
        let _ = writeln!(out, "  texture {sampler}: {texture}");
    }
    if super::stdout::status_after(&out) != 0 {
        return 1;
    }
    inspect(&root.join(spec.mesh.trim_start_matches('/')))
}

/// Imports the model with its folder as the project root; errors name the path as given.
pub(super) fn load(path: &Path) -> Result<ModelData, crate::base::error::LoadError> {
    load_imported(path).map(|im| im.data)
}

/// The project root and resource path `inspect` reads `path` as: its own folder, `/NAME`.
fn open(path: &Path) -> Result<(Resources, String), crate::base::error::LoadError> {
    // A FIFO would block the read and `/dev/zero` would never end: only plain files are read.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(crate::base::error::LoadError::new(path.display().to_string(), "not a regular file"));
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    };
    Ok((Resources::open_dir(&dir)?, format!("/{name}")))
}

/// `sinew inspect RIG.bon [--weights FILE]` (rigs.md section 2.4): the bones, the OBJ's vertex
/// count, captured and uncaptured vertices per bone; with `weights`, the weights as JSON.
pub fn inspect_rig(path: &Path, weights: Option<&Path>) -> i32 {
    let shown = path.display().to_string();
    let loaded = open(path).and_then(|(res, p)| {
        crate::project::bon::import(&res, &p).map_err(|mut e| {
            if e.resource == p {
                e.resource = shown.clone();
            }
            e
        })
    });
    let b = match loaded {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    if let Some(out) = weights {
        let text = crate::project::bon::weights_json(&b).to_string();
        if out.as_os_str() == "-" {
            return super::stdout::status_after(&(text + "\n"));
        }
        if let Err(e) = std::fs::write(out, text + "\n") {
            eprintln!("error: {}: {e}", out.display());
            return 1;
        }
    }
    let status = super::stdout::status_after(&rig_report(&shown, &b));
    for w in &b.warnings {
        eprintln!("warning: {w}");
    }
    status
}

/// The rig part of `inspect RIG.bon`, then the usual model report of the rigged OBJ.
pub fn rig_report(title: &str, b: &crate::project::bon::BonImport) -> String {
    let mut s = String::new();
    let f = &b.file;
    let _ = writeln!(s, "rig {title}");
    let _ = writeln!(s, "obj: {} ({} vertices)", f.read, b.weights.len());
    let _ = writeln!(s, "bones: {}", f.bones.len());
    let p = |i: usize| {
        let pt = &f.points[i];
        format!("{} ({}, {}, {})", pt.name, pt.pos[0], pt.pos[1], pt.pos[2])
    };
    for (i, bone) in f.bones.iter().enumerate() {
        let parent = bone.parent.map_or("Scene".to_string(), |q| format!("\"{}\"", f.bones[q].name));
        let radius = bone.radius.map_or("none".to_string(), |r| r.to_string());
        let lim = |v: [f64; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
        let _ = writeln!(
            s,
            "  bone {i} \"{}\": parent {parent}, pivot {}, end {}, radius {radius}, min {}, max {}, limits {} .. {}",
            bone.name,
            p(bone.pivot),
            p(bone.end),
            bone.min,
            bone.max,
            lim(bone.rmin),
            lim(bone.rmax)
        );
        let _ = writeln!(s, "    vertices: {} captured, {} uncaptured", b.captured[i], b.uncaptured[i]);
    }
    let _ = writeln!(s, "uncaptured vertices: {}", b.uncaptured_total());
    s.push_str(&report(title, &b.data));
    s
}

/// [`load`] with what only some formats have (warnings, the files an OBJ read).
fn load_imported(path: &Path) -> Result<crate::project::import::Imported, crate::base::error::LoadError> {
    let (res, res_path) = open(path)?;
    crate::project::import::import_model(&res, &res_path).map_err(|mut e| {
        if e.resource == res_path {
            e.resource = path.display().to_string();
        }
        e
    })
}

/// Animated nodes that nothing drawn follows (no mesh at or below them, not a skin joint, no
/// ancestor of one): their motion is invisible, which usually means a broken export.
pub fn warnings(m: &ModelData) -> Vec<String> {
    let n = m.nodes.len();
    let mut shows = vec![false; n];
    for mesh in &m.meshes {
        if let Some(s) = shows.get_mut(mesh.node) {
            *s = true;
        }
    }
    for skin in &m.skins {
        for &j in &skin.joints {
            if let Some(s) = shows.get_mut(j) {
                *s = true;
            }
        }
    }
    // Children come after parents: a backward pass carries "shows" up to every ancestor.
    for i in (0..n).rev() {
        if shows[i]
            && let Some(p) = m.nodes[i].parent.filter(|&p| p < n)
        {
            shows[p] = true;
        }
    }
    let mut out = Vec::new();
    for a in &m.animations {
        let mut hidden: Vec<usize> = a.channels.iter().map(|c| c.node).filter(|&k| k < n && !shows[k]).collect();
        hidden.sort_unstable();
        hidden.dedup();
        if !hidden.is_empty() {
            let names: Vec<String> = hidden.iter().take(5).map(|&k| format!("{k} \"{}\"", m.nodes[k].name)).collect();
            let more = if hidden.len() > 5 { format!(" and {} more", hidden.len() - 5) } else { String::new() };
            out.push(format!(
                "animation \"{}\" moves node(s) {}{more} that no drawn mesh follows",
                a.name,
                names.join(", ")
            ));
        }
    }
    out
}

/// `inspect MODEL --anim A --time T... --vertices FILE` (cli.md): posed positions of every drawn
/// primitive, from the same animation state and formulas the renderer uses.
pub fn vertices(path: &Path, anim: Option<&str>, times: &[f32], out: &Path) -> i32 {
    let m = match load(path) {
        Ok(m) => std::rc::Rc::new(m),
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let src = m.source.clone();
    let needs_rig = !m.skins.is_empty() || !m.animations.is_empty();
    let rig = if needs_rig {
        match crate::game::animation::Rig::new(&src, &m, &[&m]) {
            Ok(r) => Some(std::sync::Arc::new(r)),
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        }
    } else {
        None
    };
    let clip = match anim {
        None => None,
        Some(a) => {
            let by_name = rig.as_ref().and_then(|r| r.clip_names.iter().position(|n| n == a));
            let by_index = a.parse::<usize>().ok().filter(|&i| rig.as_ref().is_some_and(|r| i < r.clips.len()));
            match by_name.or(by_index) {
                Some(c) => Some(c),
                None => {
                    let names = rig.as_ref().map(|r| r.clip_names.join(", ")).unwrap_or_default();
                    eprintln!("error: {}: no animation '{a}' (animations: {names})", path.display());
                    return 1;
                }
            }
        }
    };
    let times = if times.is_empty() { &[0.0][..] } else { times };
    // The file's own mesh numbers (OBJ and `.bon` meshes are numbered in order, as here).
    let name = path.to_string_lossy();
    let gltf = !crate::project::import::is_obj(&name) && !crate::project::import::is_bon(&name);
    let file_meshes = match std::fs::read(path) {
        Ok(b) if gltf => crate::project::gltf::node_meshes(&b),
        _ => Vec::new(),
    };
    let mesh_of = |p: &crate::game::posed::PosedPrimitive| {
        m.nodes.get(p.node).and_then(|n| file_meshes.get(n.gltf_index).copied().flatten()).unwrap_or(p.mesh)
    };
    let mut frames = Vec::new();
    for &t in times {
        let prims = crate::game::posed::posed_vertices(&m, rig.clone(), clip, t);
        let meshes: Vec<serde_json::Value> = prims
            .iter()
            .map(|p| {
                let flat: Vec<f32> = p.positions.iter().flatten().copied().collect();
                serde_json::json!({
                    "node": m.nodes.get(p.node).map_or(p.node, |n| n.gltf_index),
                    "mesh": mesh_of(p),
                    "primitive": p.primitive,
                    "positions": flat,
                })
            })
            .collect();
        frames.push(serde_json::json!({ "t": t, "meshes": meshes }));
    }
    let text = serde_json::json!({ "frames": frames }).to_string() + "\n";
    if out.as_os_str() == "-" {
        return super::stdout::status_after(&text);
    }
    match std::fs::write(out, text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {}: {e}", out.display());
            1
        }
    }
}

fn v3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// The human-readable report; one fact per line, indented by what it belongs to.
pub fn report(title: &str, m: &ModelData) -> String {
    let mut s = String::new();
    let node = |i: usize| m.nodes.get(i).map_or("?".to_string(), |n| format!("{i} \"{}\"", n.name));
    let _ = writeln!(s, "model {title}");
    if m.aabb.is_empty() {
        let _ = writeln!(s, "bounds: empty");
    } else {
        let _ = writeln!(s, "bounds: min {} max {}", v3(m.aabb.min), v3(m.aabb.max));
    }
    let _ = writeln!(s, "nodes: {}", m.nodes.len());
    let _ = writeln!(s, "meshes: {}", m.meshes.len());
    for mesh in &m.meshes {
        let skin = mesh.skin.map_or(String::new(), |k| format!(", skin {k}"));
        let _ = writeln!(
            s,
            "  mesh \"{}\": node {}{skin}, {} primitive(s)",
            mesh.id,
            node(mesh.node),
            mesh.primitives.len()
        );
        for (i, p) in mesh.primitives.iter().enumerate() {
            let mut attrs = vec!["POSITION", "NORMAL"];
            for (has, a) in [
                (!p.tangents.is_empty(), "TANGENT"),
                (!p.texcoords0.is_empty(), "TEXCOORD_0"),
                (!p.texcoords1.is_empty(), "TEXCOORD_1"),
                (!p.colors.is_empty(), "COLOR_0"),
                (!p.joints.is_empty(), "JOINTS_0"),
                (!p.weights.is_empty(), "WEIGHTS_0"),
            ] {
                if has {
                    attrs.push(a);
                }
            }
            let mat = p.material.map_or("default".to_string(), |k| k.to_string());
            let _ = writeln!(
                s,
                "    primitive {i}: {} vertices, {} triangles, material {mat}, {}",
                p.positions.len(),
                p.indices.len() / 3,
                attrs.join(" ")
            );
        }
        if !mesh.weights.is_empty() {
            let _ = writeln!(s, "    morph targets: {}", mesh.weights.len());
            for (i, (n, w)) in mesh.target_names.iter().zip(&mesh.weights).enumerate() {
                let _ = writeln!(s, "      target {i} \"{n}\": weight {w}");
            }
        }
        let _ = writeln!(s, "    bounds: min {} max {}", v3(mesh.aabb.min), v3(mesh.aabb.max));
    }
    let _ = writeln!(s, "materials: {}", m.materials.len());
    for (i, mat) in m.materials.iter().enumerate() {
        let tex = mat.base_color_texture.and_then(|t| m.textures.get(t));
        let tex = tex.map_or(String::new(), |t| format!(", texture {}x{}", t.width, t.height));
        let c = mat.base_color;
        let e = mat.emissive;
        let glow = if e == [0.0; 3] { String::new() } else { format!(", emissive ({}, {}, {})", e[0], e[1], e[2]) };
        let _ = writeln!(
            s,
            "  material {i} \"{}\": base colour ({}, {}, {}, {}){tex}{glow}",
            mat.name, c[0], c[1], c[2], c[3]
        );
    }
    let _ = writeln!(s, "skins: {}", m.skins.len());
    for (i, skin) in m.skins.iter().enumerate() {
        let _ = writeln!(s, "  skin {i} \"{}\": {} joints", skin.name, skin.joints.len());
        for (k, &j) in skin.joints.iter().enumerate() {
            let parent = m.nodes.get(j).and_then(|n| n.parent).map_or("none".to_string(), node);
            let _ = writeln!(s, "    joint {k}: node {}, parent {parent}", node(j));
        }
    }
    let _ = writeln!(s, "animations: {}", m.animations.len());
    for a in &m.animations {
        let _ = writeln!(s, "  animation \"{}\": duration {:.3} s, {} channels", a.name, a.duration, a.channels.len());
        for c in &a.channels {
            let path = match c.path {
                ChannelPath::Translation => "translation",
                ChannelPath::Rotation => "rotation",
                ChannelPath::Scale => "scale",
                ChannelPath::Weights => "weights",
            };
            let interp = match c.interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            let _ = writeln!(s, "    node {} {path} {interp}, {} keys", node(c.node), c.times.len());
        }
    }
    s
}
