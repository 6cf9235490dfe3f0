//! `sinew new DIR` (cli.md): a starter project that runs as is, with the editor set-up
//! (`.luarc.json` and the API annotations) a Lua programmer expects from `cargo new`;
//! `--defold` writes the same game in Defold's own file formats.
use crate::script::api_docs;
use std::path::Path;

const PROJECT_JSON: &str = include_str!("starter/project.json");
const COLLECTION: &str = include_str!("starter/main.collection");
const MODEL: &str = include_str!("starter/hero.model");
const SCRIPT: &str = include_str!("starter/hero.script");
const BINDING: &str = include_str!("starter/game.input_binding");
const VSCODE: &str = "{\n  \"files.associations\": { \"*.script\": \"lua\" }\n}\n";
const README: &str = include_str!("starter/README.md");

/// The starter's Defold-format files (the script and models are the same).
mod defold {
    pub const GAME_PROJECT: &str = include_str!("starter/defold/game.project");
    pub const COLLECTION: &str = include_str!("starter/defold/main.collection");
    pub const HERO_GO: &str = include_str!("starter/defold/hero.go");
    pub const HERO_MODEL: &str = include_str!("starter/defold/hero.model");
    pub const GROUND_MODEL: &str = include_str!("starter/defold/ground.model");
    pub const BINDING: &str = include_str!("starter/defold/game.input_binding");
    pub const README: &str = include_str!("starter/defold/README.md");
}

/// Every file of the starter project, as (relative path, bytes): Sinew's JSON, or with
/// `defold` Defold's formats.
pub fn starter_files(title: &str, defold: bool) -> Vec<(String, Vec<u8>)> {
    // The folder name goes into JSON as a JSON string, whatever characters it has; into
    // game.project as one line.
    let quoted = serde_json::to_string(title).unwrap_or_else(|_| "\"My game\"".into());
    let line: String = title.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let text = |p: &str, t: &str| (p.to_string(), t.replace("\"TITLE\"", &quoted).replace("TITLE", title).into_bytes());
    let ini = |p: &str, t: &str| (p.to_string(), t.replace("TITLE", &line).into_bytes());
    let own = if defold {
        vec![
            ini("game.project", defold::GAME_PROJECT),
            text("main/main.collection", defold::COLLECTION),
            text("main/hero.go", defold::HERO_GO),
            text("main/hero.model", defold::HERO_MODEL),
            text("main/ground.model", defold::GROUND_MODEL),
            text("input/game.input_binding", defold::BINDING),
            ini("README.md", defold::README),
        ]
    } else {
        vec![
            text("project.json", PROJECT_JSON),
            text("main/main.collection", COLLECTION),
            text("main/hero.model", MODEL),
            text("input/game.input_binding", BINDING),
            text("README.md", README),
        ]
    };
    let mut files = own;
    files.extend([
        text("main/hero.script", SCRIPT),
        (".luarc.json".to_string(), api_docs::luarc_json("annotations").into_bytes()),
        text(".vscode/settings.json", VSCODE),
        ("models/humanoid.glb".to_string(), crate::project::gltf::humanoid::humanoid()),
        ("models/ground.glb".to_string(), crate::project::gltf::humanoid::ground(40.0, 20.0)),
    ]);
    for (name, t) in api_docs::luals_files() {
        files.push((format!("annotations/{name}"), t.into_bytes()));
    }
    files
}

/// Writes the starter project into `dir` (in Defold's formats with `defold`); refuses, writing
/// nothing, when any of its files exists.
pub fn new_project(dir: &Path, defold: bool) -> i32 {
    let title = dir
        .canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "My game".to_string());
    let files = starter_files(&title, defold);
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
