//! Embeds `content/` (the demo project), `shaders/` (served as `/builtins/shaders/`) and
//! `builtins/` (served as `/builtins/`, e.g. `/builtins/materials/model.material`) into the binary,
//! so `sinew` runs with no files beside it; and compiles the runtime's own Lua
//! (`src/script/lua/*.lua`) to LuaJIT bytecode, which loads in a thirtieth of the time parsing
//! takes.
use std::path::Path;

include!("src/script/fingerprint.rs");

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
    builtin_lua(root, Path::new(&out));
}

/// Put before every built-in Lua file, on its first line (so line numbers stay the file's): the
/// runtime's files keep Lua's own `type`, which `types.lua` replaces for scripts with Defold's
/// answer.
const BUILTIN_PRELUDE: &str = "local type = type; ";

/// Writes `builtin_lua.rs`: the prelude, and each `src/script/lua/NAME.lua` with the prelude
/// compiled by LuaJIT, named `@/builtins/NAME.lua` and with its line information (errors and
/// tracebacks read as from the source). A file that does not compile gets no bytecode: the
/// runtime then parses its source and reports the error as it would without this step.
fn builtin_lua(root: &Path, out: &Path) {
    let dir = root.join("src/script/lua");
    println!("cargo:rerun-if-changed=src/script/lua");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "lua")).collect())
        .unwrap_or_default();
    files.sort();
    let bc_dir = out.join("builtin_lua");
    if let Err(e) = std::fs::create_dir_all(&bc_dir) {
        panic!("cannot create {}: {e}", bc_dir.display());
    }
    // SAFETY: nothing is run in this state; it only parses and dumps.
    let lua = unsafe { mlua::Lua::unsafe_new() };
    let mut code = format!("pub const BUILTIN_PRELUDE: &str = {BUILTIN_PRELUDE:?};\n");
    code.push_str("/// (file name, its source's length and fingerprint, the bytecode)\n");
    code.push_str("pub static BUILTIN_BYTECODE: &[(&str, usize, u64, &[u8])] = &[\n");
    for path in files {
        let Some(name) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        let Ok(source) = std::fs::read_to_string(&path) else { continue };
        let chunk = lua.load(format!("{BUILTIN_PRELUDE}{source}")).set_name(format!("@/builtins/{name}.lua"));
        match chunk.into_function() {
            Ok(f) => {
                let bc = bc_dir.join(format!("{name}.bc"));
                if let Err(e) = std::fs::write(&bc, f.dump(false)) {
                    panic!("cannot write {}: {e}", bc.display());
                }
                let (len, print) = (source.len(), fingerprint(source.as_bytes()));
                code.push_str(&format!(
                    "    ({name:?}, {len}, {print}, include_bytes!({:?})),\n",
                    bc.display().to_string()
                ));
            }
            Err(e) => println!("cargo:warning=src/script/lua/{name}.lua does not compile: {e}"),
        }
    }
    code.push_str("];\n");
    if let Err(e) = std::fs::write(out.join("builtin_lua.rs"), code) {
        panic!("cannot write builtin_lua.rs: {e}");
    }
}
