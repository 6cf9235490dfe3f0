//! `sinew api --lua DIR` (cli.md): lua-language-server annotations of the whole API, and
//! `--markdown DIR`: the API reference pages of docs/api, both from `script::api_docs`.
use crate::script::api_docs;
use std::path::Path;

/// Writes `files` into `dir` (made if missing); returns the exit status.
fn write_all(dir: &Path, files: &[(String, String)]) -> i32 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("{}: cannot create the folder: {e}", dir.display());
        return 1;
    }
    for (name, text) in files {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("{}: cannot write: {e}", path.display());
            return 1;
        }
    }
    super::stdout::status_after(&format!("wrote {} files to {}\n", files.len(), dir.display()))
}

pub fn api(lua: Option<&Path>, markdown: Option<&Path>) -> i32 {
    if lua.is_none() && markdown.is_none() {
        eprintln!("error: say what to write: sinew api --lua DIR (annotations) or --markdown DIR (reference pages)");
        return 2;
    }
    if let Some(dir) = lua {
        let status = write_all(dir, &api_docs::luals_files());
        if status != 0 {
            return status;
        }
    }
    if let Some(dir) = markdown {
        return write_all(dir, &api_docs::markdown_pages());
    }
    0
}
