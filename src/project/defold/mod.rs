//! Defold projects as they are (engine.md section 1): `game.project`, and the protobuf text
//! format of `.collection`, `.go`, `.model`, the component files, `.material` and
//! `.input_binding`, rewritten into the shapes Sinew's JSON loader fills, so one loader path
//! (validation, `sinew check`, hot reload, error positions) serves both formats. Also
//! recognises a folder of Defold files that is not a whole project, for a hint.
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::Pos;
use serde::de::DeserializeOwned;
use std::path::Path;

pub mod collection;
pub mod components;
pub mod display_profiles;
pub mod font;
pub mod game_project;
pub mod gui;
pub mod input;
#[cfg(test)]
mod loading_tests;
pub mod material;
pub mod node;
pub mod physics;
pub mod read;
pub mod render;
pub mod sound;
pub mod text;

/// What one conversion collects: problems, warnings, how deep in `data:` strings it is.
pub struct Cx<'a> {
    pub res: &'a Resources,
    pub problems: read::Problems,
    /// Messages around the one being read (`data:` strings nest).
    pub depth: usize,
    /// `file:kind` of the unsupported component kinds already reported.
    pub unsupported_seen: Vec<String>,
    /// Component offsets Sinew does not apply yet: warned about, not refused.
    pub offsets: Vec<(Pos, String)>,
    /// Values Defold accepts that Sinew replaces, each saying with what: warned about, not refused.
    pub warnings: Vec<(Pos, String)>,
    display_size: Option<(u32, u32)>,
}

impl<'a> Cx<'a> {
    pub fn new(res: &'a Resources) -> Self {
        Cx {
            res,
            problems: read::Problems::default(),
            depth: 0,
            unsupported_seen: Vec::new(),
            offsets: Vec::new(),
            warnings: Vec::new(),
            display_size: None,
        }
    }

    /// Reads a file a Defold file names, the error placed where it is named.
    pub fn read(&mut self, path: &str, at: &Pos) -> Option<String> {
        let Some(norm) = crate::base::path::normalize(path) else {
            self.problems.at(at, format!("resource path '{path}' must start with '/' and stay in the project"));
            return None;
        };
        match self.res.read_string(&norm, Some(&at.resource)) {
            Ok(t) => Some(t),
            Err(e) => {
                self.problems.at(at, e.message);
                None
            }
        }
    }

    /// `[display] width` and `height` of game.project (Defold's defaults 960 x 640): an
    /// orthographic camera's zoom is relative to them.
    pub fn display_size(&mut self) -> (u32, u32) {
        *self.display_size.get_or_insert_with(|| game_project::display_size(self.res))
    }
}

/// Parses a Defold file of the kind its extension names into `T`, the struct the JSON loader
/// fills for that kind. Every problem of the file is in the one error, one per line.
pub fn parse_as<T: DeserializeOwned>(res: &Resources, resource: &str, text: &str) -> Result<T, LoadError> {
    let msg = text::parse(resource, text).map_err(joined)?;
    let mut cx = Cx::new(res);
    let ext = resource.rsplit_once('.').map_or("", |(_, e)| e);
    let root = match ext {
        "collection" => collection::collection(&mut cx, &msg, resource),
        "go" => collection::game_object(&mut cx, &msg),
        "model" => {
            let mut out = read::Obj::new(msg.fields.first().map(|f| &f.at));
            components::model(&mut cx, &msg, &mut out);
            out.done()
        }
        "font" => font::font(&mut cx, &msg),
        "gui" => gui::gui(&mut cx, &msg),
        "display_profiles" => display_profiles::display_profiles(&mut cx, &msg),
        _ => return Err(LoadError::new(resource, format!("Defold's .{ext} files are not read here"))),
    };
    for (at, w) in std::mem::take(&mut cx.offsets) {
        log::warn!(
            "{}:{}:{}: {w}; Sinew places components at their game object for now",
            at.resource,
            at.line,
            at.column
        );
    }
    for (at, w) in std::mem::take(&mut cx.warnings) {
        log::warn!("{}:{}:{}: {w}", at.resource, at.line, at.column);
    }
    if !cx.problems.0.is_empty() {
        return Err(joined(cx.problems.0));
    }
    node::deserialize(resource, root)
}

/// Several problems as one error: the first, then the rest one per line in the same
/// `path:line:column: message` form (how `sinew check` prints each).
pub fn joined(mut errors: Vec<LoadError>) -> LoadError {
    errors.sort_by(|a, b| (&a.resource, a.line, a.column).cmp(&(&b.resource, b.line, b.column)));
    errors.dedup();
    let mut first = errors.first().cloned().unwrap_or_else(|| LoadError::new("", "unknown problem"));
    for e in errors.iter().skip(1) {
        first.message.push('\n');
        first.message.push_str(&e.to_string());
    }
    first
}

/// Where a ported project's author should read next.
pub const GUIDE: &str = "docs/porting-from-defold.md";

/// Most files looked at: the signs show in the first few; a huge tree is not walked.
const MAX_FILES: usize = 2000;
const MAX_DEPTH: usize = 8;
/// Bytes read from the start of a file to tell the formats apart.
const HEAD: usize = 512;

/// Whether `text` holds nothing but white space (and a byte-order mark): what Defold's editor
/// saves for a message with no fields, such as a game object without components.
pub fn is_empty_text(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').trim().is_empty()
}

/// Whether `text` (the start of a `.collection` or `.go` file) is protobuf text, not JSON.
pub fn is_protobuf_text(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.is_empty() || t.starts_with('{') || t.starts_with('[') {
        return false;
    }
    // The first token of a protobuf text message is a field name, then `:` or `{`.
    let name_len = t.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    if name_len == 0 {
        return false;
    }
    let rest = t[name_len..].trim_start();
    rest.starts_with(':') || rest.starts_with('{')
}

/// The Defold files found in `dir`, as project paths (`/game.project`, `/main/main.collection`),
/// at most `limit` of them; empty when nothing looks like Defold.
pub fn defold_files(dir: &Path, limit: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    walk(dir, dir, 0, &mut seen, &mut found, limit);
    found.sort();
    found
}

fn walk(root: &Path, dir: &Path, depth: usize, seen: &mut usize, found: &mut Vec<String>, limit: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if found.len() >= limit || *seen >= MAX_FILES {
            return;
        }
        *seen += 1;
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if kind.is_dir() {
            // Links are not followed (a link to `/` must not make this walk the disk).
            if depth < MAX_DEPTH && !name.starts_with('.') {
                walk(root, &path, depth + 1, seen, found, limit);
            }
            continue;
        }
        if !kind.is_file() {
            continue;
        }
        let defold_file = (name == "game.project" && depth == 0)
            || ((name.ends_with(".collection") || name.ends_with(".go")) && starts_as_protobuf_text(&path));
        if defold_file {
            found.push(format!("/{}", path.strip_prefix(root).unwrap_or(&path).display()));
        }
    }
}

fn starts_as_protobuf_text(path: &Path) -> bool {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut head = Vec::with_capacity(HEAD);
    f.take(HEAD as u64).read_to_end(&mut head).is_ok() && is_protobuf_text(&String::from_utf8_lossy(&head))
}

/// The hint after a Defold project failed to load, or None for other folders.
pub fn hint(dir: &Path) -> Option<String> {
    let files = defold_files(dir, 4);
    // Defold files in a Sinew project are read like its JSON files and their errors say
    // enough; a Defold project that fails may be using what Sinew lacks.
    if !files.iter().any(|f| f == "/game.project") {
        return None;
    }
    Some(format!(
        "hint: {} is a Defold project ({} in Defold's format). {GUIDE} (in Sinew's repository) \
         lists which of Defold's components and namespaces Sinew runs.",
        dir.display(),
        files.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_protobuf_text_from_json() {
        assert!(is_protobuf_text("name: \"main\"\ninstances {\n"));
        assert!(is_protobuf_text("components {\n  id: \"script\"\n"));
        assert!(is_protobuf_text("\u{feff}  embedded_instances {\n"));
        assert!(!is_protobuf_text("{ \"name\": \"main\" }"));
        assert!(!is_protobuf_text("\n  {\"components\": []}"));
        assert!(!is_protobuf_text(""));
        assert!(!is_protobuf_text("# a comment"));
    }
}
