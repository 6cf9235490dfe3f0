//! Embeds `content/` (the demo project), `shaders/` (served as `/builtins/shaders/`) and
//! `builtins/` (served as `/builtins/`, e.g. `/builtins/materials/model.material`) into the binary,
//! so `sinew` runs with no files beside it.
use std::path::Path;

fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, String)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            walk(&p, &format!("{prefix}/{name}"), out);
        } else {
            out.push((format!("{prefix}/{name}"), p.canonicalize().unwrap_or(p).display().to_string()));
        }
    }
}

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let root = Path::new(&root);
    let mut code = String::new();
    let tables: [(&str, &[(&str, &str)]); 2] =
        [("DEMO", &[("content", "")]), ("BUILTINS", &[("shaders", "/builtins/shaders"), ("builtins", "/builtins")])];
    for (var, dirs) in tables {
        let mut files = Vec::new();
        for (dir, prefix) in dirs {
            walk(&root.join(dir), prefix, &mut files);
            println!("cargo:rerun-if-changed={dir}");
        }
        code.push_str(&format!("pub static {var}: &[(&str, &[u8])] = &[\n"));
        for (res, fs) in files {
            code.push_str(&format!("    ({res:?}, include_bytes!({fs:?})),\n"));
        }
        code.push_str("];\n");
    }
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    if let Err(e) = std::fs::write(Path::new(&out).join("embedded.rs"), code) {
        panic!("cannot write embedded.rs: {e}");
    }
}
