//! The API table (`script::api_docs`) against the live Lua state: every function and constant
//! a script can reach is described, and nothing is described that is not there (except the
//! functions `PENDING` names). Also: the generated annotations parse as Lua and define every
//! function, and the committed docs/api pages are what the table generates.
#[path = "common/update.rs"]
mod update;
use sinew::game::World;
use sinew::project::Resources;
use sinew::script::ScriptHost;
use sinew::script::api_docs::{self, ConstValue, FUNCS, NAMESPACES, PENDING};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// Lua's and LuaJIT's own globals, which the table does not describe.
const LUA_GLOBALS: &[&str] = &[
    "_G",
    "_VERSION",
    "assert",
    "bit",
    "collectgarbage",
    "coroutine",
    "debug",
    "dofile",
    "error",
    "ffi",
    "gcinfo",
    "getfenv",
    "getmetatable",
    "io",
    "ipairs",
    "jit",
    "load",
    "loadfile",
    "loadstring",
    "math",
    "module",
    "newproxy",
    "next",
    "os",
    "package",
    "pairs",
    "pcall",
    "print",
    "rawequal",
    "rawget",
    "rawset",
    "require",
    "select",
    "setfenv",
    "setmetatable",
    "string",
    "table",
    "tonumber",
    "tostring",
    "type",
    "unpack",
    "xpcall",
];

/// `(functions, constants)` the runtime has: `ns.name` for namespace fields (raw, so the
/// "not supported" metatables are not triggered), plain names for global functions.
fn live() -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let dir = std::env::temp_dir().join(format!("sinew-api-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let res = Resources::open_dir(&dir).expect("resources");
    let host = ScriptHost::new(Rc::new(RefCell::new(World::new("main"))), res).expect("lua");
    let dump: (Vec<String>, Vec<String>, Vec<String>) = host
        .lua()
        .load(
            r#"
            local skip, nested = ...
            local funcs, consts, tables = {}, {}, {}
            -- A namespace's fields; a table field that is a namespace itself (`b2d.body`) too.
            local function walk(k, v)
              tables[#tables + 1] = k
              for name, x in next, v do
                local q = k .. "." .. name
                if type(x) == "function" then funcs[#funcs + 1] = q
                elseif type(x) == "table" and nested[q] then walk(q, x)
                else consts[#consts + 1] = q end
              end
            end
            for k, v in next, _G do
              if not skip[k] then
                if type(v) == "function" then funcs[#funcs + 1] = k
                elseif type(v) == "table" then walk(k, v)
                else consts[#consts + 1] = k end
              end
            end
            return funcs, consts, tables
            "#,
        )
        .call((
            host.lua().create_table_from(LUA_GLOBALS.iter().map(|g| (*g, true))).expect("table"),
            host.lua()
                .create_table_from(NAMESPACES.iter().filter(|n| n.name.contains('.')).map(|n| (n.name, true)))
                .expect("table"),
        ))
        .expect("walk the globals");
    let _ = std::fs::remove_dir_all(&dir);
    (dump.0.into_iter().collect(), dump.1.into_iter().collect(), dump.2.into_iter().collect())
}

#[test]
fn table_and_runtime_have_the_same_functions_and_constants() {
    let (funcs, consts, tables) = live();
    let described: BTreeSet<String> = FUNCS.iter().map(|f| api_docs::qualified(f.ns, f.name)).collect();
    for p in PENDING {
        assert!(described.contains(*p), "PENDING names {p}, which the table does not describe");
    }
    let undocumented: Vec<&String> = funcs.difference(&described).collect();
    assert!(undocumented.is_empty(), "functions the runtime has and src/script/api_docs.rs lacks: {undocumented:?}");
    let mut missing = Vec::new();
    for name in described.difference(&funcs) {
        if PENDING.contains(&name.as_str()) {
            println!("skipped: {name} is not in this runtime yet (api_docs::PENDING; remove it there once it is)");
        } else {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "functions src/script/api_docs.rs describes and the runtime lacks: {missing:?}");
    for p in PENDING {
        if funcs.contains(*p) {
            println!("note: {p} is in the runtime now: remove it from api_docs::PENDING");
        }
    }
    let documented: BTreeSet<String> = api_docs::constants().iter().map(|c| format!("{}.{}", c.ns, c.name)).collect();
    assert_eq!(consts, documented, "constants: runtime (left) against the table (right)");
    // Every namespace table is described, as a namespace or as unsupported.
    let namespaces: BTreeSet<String> = NAMESPACES
        .iter()
        .map(|n| n.name.to_string())
        .chain(api_docs::unsupported().iter().map(|n| n.to_string()))
        .collect();
    let unknown: Vec<&String> = tables.iter().filter(|t| !namespaces.contains(*t)).collect();
    assert!(unknown.is_empty(), "namespace tables the table does not list: {unknown:?}");
    for ns in api_docs::unsupported() {
        assert!(tables.contains(ns), "unsupported namespace {ns} has no stub table in the runtime");
        assert!(
            !funcs.iter().any(|f| f.starts_with(&format!("{ns}."))),
            "{ns} is listed as unsupported but has functions"
        );
    }
    for ns in NAMESPACES.iter().filter(|n| !n.name.is_empty()) {
        if !tables.contains(ns.name) {
            let all_pending = FUNCS
                .iter()
                .filter(|f| f.ns == ns.name)
                .all(|f| PENDING.contains(&api_docs::qualified(f.ns, f.name).as_str()));
            assert!(all_pending, "namespace {} is missing at runtime", ns.name);
            println!("skipped: namespace {} is not in this runtime yet (all its functions are PENDING)", ns.name);
        }
    }
    // The constants' values too: the docs print them.
    let dir = std::env::temp_dir().join(format!("sinew-api-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let host = ScriptHost::new(Rc::new(RefCell::new(World::new("main"))), Resources::open_dir(&dir).expect("res"))
        .expect("lua");
    for c in api_docs::constants() {
        match c.value {
            ConstValue::Sentinel => {
                let t: String =
                    host.lua().load(format!("return type(rawget({}, '{}'))", c.ns, c.name)).eval().expect("type");
                assert_eq!(t, "userdata", "{}.{} is a sentinel", c.ns, c.name);
            }
            ConstValue::Hash(text) => {
                let same: bool = host
                    .lua()
                    .load(format!("return rawget({}, '{}') == hash('{text}')", c.ns, c.name))
                    .eval()
                    .expect("hash constant");
                assert!(same, "{}.{} is hash('{text}')", c.ns, c.name);
            }
            ConstValue::Number(n) => {
                let v: f64 =
                    host.lua().load(format!("return rawget({}, '{}')", c.ns, c.name)).eval().expect("constant");
                assert_eq!(v, n, "{}.{}", c.ns, c.name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn annotations_parse_as_lua_and_define_every_function() {
    let lua = mlua::Lua::new();
    let mut defined = BTreeSet::new();
    let files = api_docs::luals_files();
    assert!(files.iter().any(|(n, _)| n == "sinew.lua"));
    for (name, text) in &files {
        assert!(text.starts_with("---@meta"), "{name} is not a LuaLS meta file");
        lua.load(text.as_str()).set_name(name.as_str()).into_function().unwrap_or_else(|e| panic!("{name}: {e}"));
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("function ") {
                defined.insert(rest.split('(').next().unwrap_or("").to_string());
            }
            // Every annotation line is one of the LuaLS tags used, so a typo shows here.
            if let Some(tag) = line.strip_prefix("---@") {
                let tag = tag.split_whitespace().next().unwrap_or("");
                assert!(
                    ["meta", "param", "return", "overload", "class", "field", "alias", "operator", "type"]
                        .contains(&tag),
                    "{name}: unknown tag {tag} in {line}"
                );
            }
        }
    }
    let (funcs, _, _) = live();
    let missing: Vec<&String> = funcs.iter().filter(|f| !defined.contains(*f)).collect();
    assert!(missing.is_empty(), "runtime functions without an annotation: {missing:?}");
    // Each callback has its signature alias.
    let base = &files.iter().find(|(n, _)| n == "sinew.lua").expect("base").1;
    for c in api_docs::CALLBACKS {
        assert!(base.contains(&format!("---@alias sinew.{} fun(", c.name)), "callback {}", c.name);
    }
    for op in
        ["---@operator add(vector3): vector3", "---@operator mul(quat): quat", "---@operator mul(vector4): vector4"]
    {
        assert!(base.contains(op), "{op}");
    }
    // The generated Lua runs: every namespace table and function exists after loading them.
    for (_, text) in &files {
        lua.load(text.as_str()).exec().expect("annotations run");
    }
    for f in FUNCS {
        let q = api_docs::qualified(f.ns, f.name);
        let t: String = lua.load(format!("return type({q})")).eval().expect("type");
        assert_eq!(t, "function", "{q}");
    }
}

/// The type names a LuaLS type expression uses (field and parameter names left out).
fn type_names(ty: &str) -> Vec<String> {
    let b = ty.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            let rest = ty[i..].trim_start();
            if !(rest.starts_with(':') || rest.starts_with("?:")) {
                out.push(ty[start..i].to_string());
            }
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn every_type_the_annotations_use_is_defined() {
    let files = api_docs::luals_files();
    let mut defined: BTreeSet<String> =
        ["nil", "any", "boolean", "string", "number", "integer", "table", "function", "fun"].map(String::from).into();
    for (_, text) in &files {
        for line in text.lines() {
            for tag in ["---@class ", "---@alias "] {
                if let Some(rest) = line.strip_prefix(tag) {
                    defined.insert(rest.split_whitespace().next().unwrap_or("").to_string());
                }
            }
        }
    }
    let mut used = 0;
    for (name, text) in &files {
        for line in text.lines() {
            let ty = if let Some(rest) = line.strip_prefix("---@param ") {
                rest.split_once(' ').map(|(_, t)| t).unwrap_or("")
            } else if let Some(rest) = line.strip_prefix("---@return ") {
                rest
            } else if let Some(rest) = line.strip_prefix("---@overload ").or_else(|| line.strip_prefix("---@field ")) {
                rest
            } else if let Some(rest) = line.strip_prefix("---@alias ") {
                rest.split_once(' ').map(|(_, t)| t).unwrap_or("")
            } else {
                continue;
            };
            // A `---@field`/`---@return` line may end in a description: types come first.
            let ty = if line.starts_with("---@field ") {
                ty.split_whitespace().nth(1).unwrap_or("")
            } else if line.starts_with("---@return ") {
                ty.split_whitespace().next().unwrap_or("")
            } else {
                ty
            };
            for t in type_names(ty) {
                used += 1;
                assert!(defined.contains(&t), "{name}: type '{t}' is not defined (in `{line}`)");
            }
        }
    }
    assert!(used > 300, "only {used} type uses checked");
}

#[test]
fn docs_api_pages_are_generated_from_the_table() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/api");
    let mode = update::mode_from_env("SINEW_UPDATE_DOCS").unwrap_or_else(|e| panic!("{e}"));
    if mode == update::Mode::Update {
        std::fs::create_dir_all(&dir).expect("docs/api");
        for (name, text) in api_docs::markdown_pages() {
            std::fs::write(dir.join(&name), &text).expect("write page");
        }
        panic!(
            "{} rewritten from src/script/api_docs.rs; check the diff, commit it, and re-run without \
             SINEW_UPDATE_DOCS (an update never counts as a pass)",
            dir.display()
        );
    }
    for (name, text) in api_docs::markdown_pages() {
        let path = dir.join(&name);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{} is not what src/script/api_docs.rs generates: run SINEW_UPDATE_DOCS=1 cargo test --test api_docs",
            path.display()
        );
    }
}

/// The pages are rewritten on request as golden images are: never under CI, where nobody reads
/// the rewritten pages before the run counts. Runs the test above in a child process with both
/// variables set; it must fail saying why, having written nothing.
#[test]
fn updating_the_docs_pages_is_refused_under_ci() {
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["docs_api_pages_are_generated_from_the_table", "--exact", "--test-threads", "1"])
        .env("SINEW_UPDATE_DOCS", "1")
        .env("CI", "true")
        .output()
        .expect("run the test binary");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "SINEW_UPDATE_DOCS=1 with CI set passed:\n{text}");
    assert!(text.contains("SINEW_UPDATE_DOCS=1 is refused when CI is set"), "{text}");
    assert!(text.contains("1 failed"), "the page test must have run and failed:\n{text}");
}

#[test]
fn sinew_api_writes_the_annotation_files() {
    let dir = std::env::temp_dir().join(format!("sinew-api-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["api", "--lua", dir.to_str().expect("utf-8")])
        .output()
        .expect("run sinew api");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (name, text) in api_docs::luals_files() {
        assert_eq!(std::fs::read_to_string(dir.join(&name)).expect("written"), text, "{name}");
    }
    let none = std::process::Command::new(env!("CARGO_BIN_EXE_sinew")).arg("api").output().expect("run");
    assert_eq!(none.status.code(), Some(2), "sinew api without --lua/--markdown is a usage error");
    let _ = std::fs::remove_dir_all(&dir);
}
