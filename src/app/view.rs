//! `sinew view FILE` (rigs.md section 6): one model file shown without a project. The file's
//! folder is the project root and a small project made here is laid over it (Resources'
//! overlay): a collection with the model, a framed camera running the built-in viewer script
//! (`builtins/view/view.script`: orbit, zoom, pan, clip cycling, bones overlay) and two lights.
//! Everything else is `sinew run`: the same loop, hot reload of the folder, `--headless`,
//! `--screenshot`, `--replay`.
use super::run::{RunOptions, run};
use crate::project::Resources;
use crate::project::model_data::{Aabb, ModelData};
use std::fmt::Write;
use std::path::Path;

/// Where the made-up project lives inside the model's folder (nothing is written to disk).
const DIR: &str = "/_sinew_view";

/// Viewable file types; the model component loads each through the importer its extension names.
const EXTENSIONS: [&str; 4] = ["glb", "gltf", "obj", "bon"];

/// `opts`: `run`'s frame options (headless, frames, screenshot, …); the resources are made here.
pub fn view(file: &Path, opts: RunOptions) -> i32 {
    let ext = file.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    if !EXTENSIONS.contains(&ext.as_str()) {
        eprintln!("error: {}: sinew view shows .glb, .gltf, .obj and .bon files", file.display());
        return 2;
    }
    let data = match super::inspect::load(file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => Path::new(".").to_path_buf(),
    };
    let res = match Resources::open_dir(&dir) {
        Ok(r) => r.with_overlay(project_files(&name, &data)),
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    run(RunOptions { resources: Some(res), ..opts })
}

/// A Lua string literal for any bytes (`\ddd` escapes for everything unusual).
fn lua_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03}");
            }
        }
    }
    out.push('"');
    out
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The joints of every skin, each with the index (1-based, 0 = none) of its nearest ancestor
/// that is a joint too: the bones overlay draws a line from each joint to that one.
fn bones(data: &ModelData) -> Vec<(String, usize)> {
    let mut joints: Vec<usize> = data.skins.iter().flat_map(|s| s.joints.iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    joints.retain(|&j| j < data.nodes.len());
    let position = |n: usize| joints.iter().position(|&j| j == n);
    joints
        .iter()
        .map(|&j| {
            let mut p = data.nodes[j].parent;
            let mut parent = 0;
            while let Some(n) = p.filter(|&n| n < data.nodes.len()) {
                if let Some(k) = position(n) {
                    parent = k + 1;
                    break;
                }
                p = data.nodes[n].parent;
            }
            (data.nodes[j].name.clone(), parent)
        })
        .collect()
}

/// The model's bounds as the first frame shows it: every node transform applied and the first
/// clip posed at its start (the viewer starts it before that frame). The meshes' own bounds
/// leave out the nodes above a skinned mesh, which put CesiumMan (under a rotated root) in a
/// corner with its head cut off.
fn first_frame_bounds(data: &ModelData) -> Aabb {
    let animated = !data.skins.is_empty() || !data.animations.is_empty();
    let rig = if animated {
        match crate::game::animation::Rig::new(&data.source, data, &[data]) {
            Ok(r) => Some(std::sync::Arc::new(r)),
            Err(_) => return data.aabb,
        }
    } else {
        None
    };
    let clip = rig.as_ref().filter(|r| !r.clips.is_empty()).map(|_| 0);
    let mut bounds = Aabb::default();
    for p in crate::game::posed::posed_vertices(data, rig, clip, 0.0) {
        for v in p.positions {
            bounds.grow(v);
        }
    }
    bounds
}

fn project_files(name: &str, data: &ModelData) -> Vec<(String, Vec<u8>)> {
    let bounds = first_frame_bounds(data);
    let (lo, hi) = (glam::Vec3::from(bounds.min), glam::Vec3::from(bounds.max));
    let ok = lo.is_finite() && hi.is_finite() && hi.cmpge(lo).all();
    let (center, radius) =
        if ok { ((lo + hi) * 0.5, ((hi - lo).length() * 0.5).max(1e-3)) } else { (glam::Vec3::ZERO, 1.0) };
    let mut info = String::from("-- Made by `sinew view` (src/app/view.rs) for the viewer script.\nreturn {\n");
    let _ = writeln!(info, "  file = {},", lua_string(name));
    let clips: Vec<String> = data.animations.iter().map(|a| lua_string(&a.name)).collect();
    let _ = writeln!(info, "  clips = {{ {} }},", clips.join(", "));
    let _ = writeln!(info, "  center = vmath.vector3({}, {}, {}),", center.x, center.y, center.z);
    let _ = writeln!(info, "  radius = {radius},");
    let bones: Vec<String> = bones(data).iter().map(|(n, p)| format!("{{ {}, {p} }}", lua_string(n))).collect();
    let _ = writeln!(info, "  bones = {{ {} }},", bones.join(", "));
    info.push_str("}\n");
    // The camera's near and far planes follow the model's size (a Fox is 150 units long).
    let collection = format!(
        r#"{{ "name": "view", "objects": [
  {{ "id": "model", "components": [ {{ "id": "model", "type": "model", "mesh": {mesh} }} ] }},
  {{ "id": "eye", "components": [
    {{ "id": "camera", "type": "camera", "near": {near}, "far": {far} }},
    {{ "id": "script", "type": "script", "script": "/builtins/view/view.script" }} ] }},
  {{ "id": "sun", "euler": [-45, 35, 0], "components": [ {{ "id": "light", "type": "light", "kind": "directional" }} ] }},
  {{ "id": "fill", "euler": [-20, -150, 0], "components": [ {{ "id": "light", "type": "light", "kind": "directional", "intensity": 0.35 }} ] }}
] }}"#,
        mesh = json_string(&format!("/{name}")),
        near = radius * 0.01,
        far = radius * 100.0,
    );
    let project = format!(
        r#"{{ "title": {title}, "main_collection": "{DIR}/view.collection", "clear_color": [0.16, 0.17, 0.2, 1] }}"#,
        title = json_string(&format!("sinew view: {name}")),
    );
    vec![
        ("/project.json".to_string(), project.into_bytes()),
        (format!("{DIR}/view.collection"), collection.into_bytes()),
        (format!("{DIR}/info.lua"), info.into_bytes()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 31: a skinned mesh under a rotated, scaled root (CesiumMan's layout) is framed where
    /// it is drawn, not where its bind-pose vertices lie (which glTF leaves untransformed).
    #[test]
    fn the_frame_follows_the_posed_model_not_the_mesh_bounds() {
        use crate::project::gltf::writer::{GltfBuilder, PrimitiveSpec};
        let mut b = GltfBuilder::new();
        // A quarter turn about X takes the file's +Z up to -Y; the scale doubles it.
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let root = b.node("root", None, [0.0, 10.0, 0.0], [half, 0.0, 0.0, half], [2.0; 3]);
        let joint = b.node("joint", Some(root), [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let body = b.node("body", Some(root), [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let prim = PrimitiveSpec {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            normals: vec![[0.0, 1.0, 0.0]; 3],
            joints: vec![[0; 4]; 3],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
            ..Default::default()
        };
        b.mesh(body, "body", &[prim], &[], &[]);
        b.skin(body, &[joint], None);
        let data = crate::project::gltf::import_bytes("/m.glb", &b.to_glb(), None).unwrap();
        assert_eq!((data.aabb.min, data.aabb.max), ([0.0; 3], [1.0, 0.0, 1.0]), "the bind-pose mesh bounds");
        let posed = first_frame_bounds(&data);
        let close = |a: [f32; 3], e: [f32; 3]| a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(posed.min, [0.0, 8.0, 0.0]) && close(posed.max, [2.0, 10.0, 0.0]), "{posed:?}");
        let files = project_files("m.glb", &data);
        let info = String::from_utf8_lossy(&files[2].1).to_string();
        assert!(info.contains("center = vmath.vector3(1, 9, "), "{info}");
    }

    #[test]
    fn lua_strings_escape_everything_unusual() {
        assert_eq!(lua_string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(lua_string("é\n"), r#""\195\169\010""#);
    }
}
