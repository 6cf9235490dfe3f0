//! `sinew new DIR` (cli.md): a starter project that runs as is, with the editor set-up
//! (`.luarc.json` and the API annotations) a Lua programmer expects from `cargo new`.
use crate::script::api_docs;
use std::path::Path;

const PROJECT_JSON: &str = include_str!("starter/project.json");
const COLLECTION: &str = include_str!("starter/main.collection");
const MODEL: &str = include_str!("starter/hero.model");
const SCRIPT: &str = include_str!("starter/hero.script");
const BINDING: &str = include_str!("starter/game.input_binding");
const VSCODE: &str = "{\n  \"files.associations\": { \"*.script\": \"lua\" }\n}\n";
const README: &str = include_str!("starter/README.md");

/// Every file of the starter project, as (relative path, bytes).
pub fn starter_files(title: &str) -> Vec<(String, Vec<u8>)> {
    // The folder name goes into JSON as a JSON string, whatever characters it has.
    let quoted = serde_json::to_string(title).unwrap_or_else(|_| "\"My game\"".into());
    let text = |p: &str, t: &str| (p.to_string(), t.replace("\"TITLE\"", &quoted).replace("TITLE", title).into_bytes());
    let mut files = vec![
        text("project.json", PROJECT_JSON),
        text("main/main.collection", COLLECTION),
        text("main/hero.model", MODEL),
        text("main/hero.script", SCRIPT),
        text("input/game.input_binding", BINDING),
        text("README.md", README),
        (".luarc.json".to_string(), api_docs::luarc_json("annotations").into_bytes()),
        text(".vscode/settings.json", VSCODE),
        ("models/humanoid.glb".to_string(), crate::project::gltf::humanoid::humanoid()),
        ("models/ground.glb".to_string(), crate::project::gltf::humanoid::ground(40.0, 20.0)),
    ];
    for (name, t) in api_docs::luals_files() {
        files.push((format!("annotations/{name}"), t.into_bytes()));
    }
    files
}

/// Writes the starter project into `dir`; refuses, writing nothing, when any of its files exists.
pub fn new_project(dir: &Path) -> i32 {
    let title = dir
        .canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "My game".to_string());
    let files = starter_files(&title);
    let taken: Vec<String> =
        files.iter().map(|(p, _)| dir.join(p)).filter(|p| p.exists()).map(|p| p.display().to_string()).collect();
    if !taken.is_empty() {
        let shown: Vec<&str> = taken.iter().take(3).map(String::as_str).collect();
        let more = if taken.len() > 3 { format!(" and {} more", taken.len() - 3) } else { String::new() };
        eprintln!("{}: refusing to overwrite existing files: {}{more}", dir.display(), shown.join(", "));
        return 1;
    }
    for (rel, bytes) in &files {
        let path = dir.join(rel);
        let made = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|_| std::fs::write(&path, bytes));
        if let Err(e) = made {
            eprintln!("{}: cannot write: {e}", path.display());
            return 1;
        }
    }
    let d = dir.display();
    super::stdout::status_after(&format!("created {d} ({} files); run it with: sinew run {d}\n", files.len()))
}
