//! Recognising a Defold project folder, so that `sinew run`/`check` can say what it is and
//! where the porting guide is, instead of only "/project.json: resource not found". Defold
//! keeps `game.project` (INI) at the root and writes `.collection`/`.go` files in protobuf
//! text format (`name: "main"`, `instances {`, `components {`), where Sinew reads JSON.
use std::path::Path;

/// Where a ported project's author should read next.
pub const GUIDE: &str = "docs/porting-from-defold.md";

/// Most files looked at: the signs show in the first few; a huge tree is not walked.
const MAX_FILES: usize = 2000;
const MAX_DEPTH: usize = 8;
/// Bytes read from the start of a file to tell the formats apart.
const HEAD: usize = 512;

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

/// The hint for a folder that looks like a Defold project, or None.
pub fn hint(dir: &Path) -> Option<String> {
    let files = defold_files(dir, 4);
    if files.is_empty() {
        return None;
    }
    Some(format!(
        "hint: {} looks like a Defold project ({} in Defold's format). Sinew runs Defold's Lua API \
         unchanged but reads JSON files: a project.json instead of game.project, and .collection/.go \
         files written as JSON. {GUIDE} (in Sinew's repository) maps each file and field.",
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
