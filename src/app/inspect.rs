//! `sinew inspect MODEL`: what the importer makes of a glTF file, so an artist can check names,
//! joints, morph targets and clips without running a game.
use crate::project::Resources;
use crate::project::gltf::import;
use crate::project::model_data::{ChannelPath, Interpolation, ModelData};
use std::fmt::Write;
use std::path::Path;

/// Prints the report to stdout and returns 0, or prints the error to stderr and returns 1. The
/// model's folder is the project root, so sibling `.bin` and image files resolve and nothing
/// outside that folder is read.
pub fn inspect(path: &Path) -> i32 {
    // A FIFO would block the read and `/dev/zero` would never end: only plain files are read.
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            eprintln!("error: {}: not a regular file", path.display());
            return 1;
        }
        _ => {}
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    };
    let res_path = format!("/{name}");
    let result = Resources::open_dir(&dir).and_then(|res| import(&res, &res_path));
    match result {
        Ok(m) => {
            print!("{}", report(&path.display().to_string(), &m));
            0
        }
        Err(mut e) => {
            if e.resource == res_path {
                e.resource = path.display().to_string();
            }
            eprintln!("error: {e}");
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
        let _ =
            writeln!(s, "  material {i} \"{}\": base colour ({}, {}, {}, {}){tex}", mat.name, c[0], c[1], c[2], c[3]);
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
