//! The host functions behind `sys.get_config_*`, `sys.get_engine_info`, `sys.get_sys_info`,
//! `sys.save`/`load`/`get_save_file`, `sys.exists`, `sys.get_application_path`, `json.*` and
//! `socket.gettime` (lua/sys.lua). They are called a few times per game, not per
//! object per frame, so mlua's ~50 ns crossing is fine and they need no FFI declaration.
use crate::project::Resources;
use mlua::{Lua, Table, Value};
use std::cell::OnceCell;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Deeper tables are refused by `json.encode`: a table that contains itself would otherwise
/// recurse until the stack overflows.
const MAX_DEPTH: usize = 128;

pub(super) fn install(lua: &Lua, t: &Table, res: &Resources) -> mlua::Result<()> {
    // The project folder for `sinew run DIR`; beside the executable for a bundled game (and the
    // embedded demo), which is where a Defold desktop build's path points.
    let app_path = match res.dir() {
        Some(d) => std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf()),
        None => std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())).unwrap_or_default(),
    };
    let app_path = app_path.to_string_lossy().into_owned();
    // project.json as written, read on the first `sys.get_config_*` (check and benches run
    // without one; a missing or broken file then reads as "no such key").
    let settings: Rc<OnceCell<serde_json::Value>> = Rc::new(OnceCell::new());
    let res = res.clone();
    t.set(
        "config",
        lua.create_function(move |lua, key: String| {
            let root = settings.get_or_init(|| crate::project::settings::config_values(&res));
            match lookup(root, &key) {
                Some(
                    v @ (serde_json::Value::String(_) | serde_json::Value::Number(_) | serde_json::Value::Bool(_)),
                ) => to_lua(lua, v, 0, false),
                _ => Ok(Value::Nil),
            }
        })?,
    )?;
    t.set(
        "engine_info",
        lua.create_function(|lua, ()| {
            let info = lua.create_table()?;
            info.set("version", env!("CARGO_PKG_VERSION"))?;
            info.set("version_sha1", option_env!("SINEW_VERSION_SHA1").unwrap_or(""))?;
            info.set("is_debug", cfg!(debug_assertions))?;
            Ok(info)
        })?,
    )?;
    t.set("sys_info", lua.create_function(|lua, ()| sys_info(lua))?)?;
    t.set(
        "json_encode",
        lua.create_function(|lua, v: Value| {
            let mut out = String::new();
            match encode(&v, &mut out, 0) {
                Ok(()) => Ok((Value::String(lua.create_string(&out)?), Value::Nil)),
                Err(e) => Ok((Value::Nil, Value::String(lua.create_string(&e)?))),
            }
        })?,
    )?;
    t.set(
        "json_decode",
        lua.create_function(
            |lua, (s, null_as_userdata): (mlua::LuaString, Option<bool>)| match serde_json::from_slice::<
                serde_json::Value,
            >(&s.as_bytes())
            {
                Ok(v) => Ok((to_lua(lua, &v, 0, null_as_userdata.unwrap_or(false))?, Value::Nil)),
                Err(e) => Ok((Value::Nil, Value::String(lua.create_string(e.to_string())?))),
            },
        )?,
    )?;
    t.set("json_null", JSON_NULL)?;
    // Defold's zlib namespace: zlib streams (RFC 1950, header and checksum), as its
    // dmZlib::DeflateBuffer writes and InflateBuffer reads them.
    t.set(
        "zlib_deflate",
        lua.create_function(|lua, s: mlua::LuaString| {
            lua.create_string(miniz_oxide::deflate::compress_to_vec_zlib(&s.as_bytes(), 6))
        })?,
    )?;
    t.set(
        "zlib_inflate",
        lua.create_function(|lua, s: mlua::LuaString| {
            match miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&s.as_bytes(), ZLIB_MAX_INFLATED) {
                Ok(out) => Ok((Value::String(lua.create_string(out)?), Value::Nil)),
                Err(e) if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                    let msg = format!("the data inflates to more than {ZLIB_MAX_INFLATED} bytes");
                    Ok((Value::Nil, Value::String(lua.create_string(msg)?)))
                }
                Err(e) => {
                    Ok((Value::Nil, Value::String(lua.create_string(format!("not zlib data ({:?})", e.status))?)))
                }
            }
        })?,
    )?;
    // Wall-clock seconds as LuaSocket gives them, but advanced by a monotonic clock from one
    // reading at start-up, so differences never go backwards when the system clock is set.
    let start = Instant::now();
    let epoch = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    t.set("gettime", lua.create_function(move |_, ()| Ok(epoch + start.elapsed().as_secs_f64()))?)?;
    t.set("save_max", SAVE_MAX)?;

    t.set("exists", lua.create_function(|_, path: String| Ok(std::path::Path::new(&path).exists()))?)?;
    t.set("application_path", lua.create_function(move |_, ()| Ok(app_path.clone()))?)?;
    t.set(
        "save_path",
        lua.create_function(|lua, (app, file): (String, String)| match save_path(&app, &file) {
            Ok(p) => Ok((Value::String(lua.create_string(p)?), Value::Nil)),
            Err(e) => Ok((Value::Nil, Value::String(lua.create_string(e)?))),
        })?,
    )?;
    t.set(
        "write_save",
        lua.create_function(
            |_, (path, data): (String, mlua::LuaString)| Ok(write_save(&path, &data.as_bytes()).err()),
        )?,
    )?;
    t.set(
        "read_save",
        lua.create_function(|lua, path: String| match read_save(&path) {
            Ok(Some(data)) => Ok((Value::String(lua.create_string(&data)?), Value::Nil)),
            Ok(None) => Ok((Value::Nil, Value::Nil)),
            Err(e) => Ok((Value::Nil, Value::String(lua.create_string(e)?))),
        })?,
    )?;
    Ok(())
}

/// `sys.NETWORK_*` (dmSys's numbers), `sys.REQUEST_STATUS_*` of `sys.load_buffer_async`
/// (script_sys_gamesys.cpp's RequestStatus) and `window.DIMMING_*` (Defold's), for Lua as
/// `K.SYS_*` / `K.WINDOW_*`.
pub fn constants() -> Vec<(&'static str, f64)> {
    vec![
        ("SYS_NETWORK_DISCONNECTED", 0.0),
        ("SYS_NETWORK_CONNECTED", 1.0),
        ("SYS_NETWORK_CONNECTED_CELLULAR", 2.0),
        ("SYS_REQUEST_STATUS_FINISHED", 2.0),
        ("SYS_REQUEST_STATUS_ERROR_NOT_FOUND", -1.0),
        ("SYS_REQUEST_STATUS_ERROR_IO_ERROR", -2.0),
        ("WINDOW_DIMMING_UNKNOWN", 0.0),
        ("WINDOW_DIMMING_ON", 1.0),
        ("WINDOW_DIMMING_OFF", 2.0),
    ]
}

/// The most a `sys.save` table may take, encoded: far above a game's save, far below a file that
/// would stall the loading frame.
const SAVE_MAX: usize = 16 << 20;

/// Bytes `zlib.inflate` may make: a few kilobytes of hostile input can ask for gigabytes, so
/// the output stops here with an error (a save or level file is far smaller).
const ZLIB_MAX_INFLATED: usize = 64 << 20;

/// What a save file starts with, so `sys.load` of any other file is an error, not garbage.
const SAVE_MAGIC: &[u8] = b"SINEW-SAVE 1\n";

/// Where `sys.get_save_file(app, file)` points: `$XDG_DATA_HOME/<app>/<file>` (else
/// `~/.local/share/<app>/<file>`), the folder made if needed. Names that would leave that folder
/// (`/`, `..`, NUL, empty) are refused, so a game cannot write outside its own folder by
/// accident. `Err` is the message.
fn save_path(app: &str, file: &str) -> Result<String, String> {
    for (what, name) in [("application_id", app), ("file_name", file)] {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) || name.len() > 255 {
            return Err(format!(
                "{what} must be a plain file name (no '/', '\\', '..', NUL; 1 to 255 bytes), got {name:?}"
            ));
        }
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".local/share")))
        .ok_or("neither XDG_DATA_HOME nor HOME is set")?;
    let dir = base.join(app);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    dir.join(file).into_os_string().into_string().map_err(|_| "the save folder's path is not UTF-8".to_string())
}

/// Writes through a temporary file and a rename, so a crash mid-write keeps the previous save.
fn write_save(path: &str, data: &[u8]) -> Result<(), String> {
    let tmp = format!("{path}.tmp");
    let mut all = Vec::with_capacity(SAVE_MAGIC.len() + data.len());
    all.extend_from_slice(SAVE_MAGIC);
    all.extend_from_slice(data);
    std::fs::write(&tmp, &all).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| e.to_string())
}

/// The saved bytes without the header; `None` when there is no such file (Defold's `sys.load`
/// then gives an empty table). Files over the limit are refused before they are read.
fn read_save(path: &str) -> Result<Option<Vec<u8>>, String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > (SAVE_MAX + SAVE_MAGIC.len()) as u64 {
        return Err(format!("{} bytes, more than a save may hold ({SAVE_MAX})", meta.len()));
    }
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    match data.strip_prefix(SAVE_MAGIC) {
        Some(rest) => Ok(Some(rest.to_vec())),
        None => Err("not a file written by sys.save".into()),
    }
}

/// `"window.width"` → `root["window"]["width"]`.
fn lookup<'a>(root: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    key.split('.').try_fold(root, |v, part| v.as_object()?.get(part))
}

fn sys_info(lua: &Lua) -> mlua::Result<Table> {
    let info = lua.create_table()?;
    // Defold's names for the desktop systems.
    let system = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Darwin",
        "windows" => "Windows",
        other => other,
    };
    info.set("system_name", system)?;
    info.set("system_version", os_release())?;
    info.set("api_version", "")?;
    // LANG=de_DE.UTF-8 → language "de", territory "DE"; "en" when unset or "C".
    let lang = std::env::var("LANG").unwrap_or_default();
    let code = lang.split('.').next().unwrap_or("");
    let (language, territory) = match code.split_once('_') {
        Some((l, t)) if !l.is_empty() => (l.to_string(), t.to_string()),
        _ if code.len() == 2 => (code.to_string(), String::new()),
        _ => ("en".to_string(), String::new()),
    };
    info.set(
        "device_language",
        if territory.is_empty() { language.clone() } else { format!("{language}-{territory}") },
    )?;
    info.set("language", language)?;
    info.set("territory", territory)?;
    info.set("gmt_offset", 0)?;
    info.set("device_model", "")?;
    info.set("manufacturer", "")?;
    info.set("device_ident", "")?;
    Ok(info)
}

fn os_release() -> String {
    // SAFETY: `uname` fills a zeroed struct of fixed-size, NUL-terminated arrays.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return String::new();
        }
        std::ffi::CStr::from_ptr(u.release.as_ptr()).to_string_lossy().into_owned()
    }
}

/// `json.null`, as in Defold: the null light userdata, which `json.encode` writes as `null` and
/// `json.decode` gives for `null` with `decode_null_as_userdata` (a table cannot hold nil).
const JSON_NULL: Value = Value::LightUserData(mlua::LightUserData(std::ptr::null_mut()));

fn to_lua(lua: &Lua, v: &serde_json::Value, depth: usize, null_as_userdata: bool) -> mlua::Result<Value> {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Err(mlua::Error::runtime(format!("nested deeper than {MAX_DEPTH} levels")));
    }
    Ok(match v {
        J::Null if null_as_userdata => JSON_NULL,
        J::Null => Value::Nil,
        J::Bool(b) => Value::Boolean(*b),
        J::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        J::String(s) => Value::String(lua.create_string(s)?),
        J::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, x, depth + 1, null_as_userdata)?)?;
            }
            Value::Table(t)
        }
        J::Object(o) => {
            let t = lua.create_table_with_capacity(0, o.len())?;
            for (k, x) in o {
                t.raw_set(k.as_str(), to_lua(lua, x, depth + 1, null_as_userdata)?)?;
            }
            Value::Table(t)
        }
    })
}

/// A Lua value as JSON text. A table whose keys are exactly 1..n is an array; any other table
/// is an object (number keys written as strings, keys sorted so the text is reproducible); the
/// empty table is `{}`, as in Defold.
fn encode(v: &Value, out: &mut String, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("table nested deeper than {MAX_DEPTH} levels (does it contain itself?)"));
    }
    match v {
        Value::Nil => out.push_str("null"),
        Value::LightUserData(p) if p.0.is_null() => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Number(n) => number(*n, out)?,
        Value::String(s) => string(&s.to_str().map_err(|_| "string is not valid UTF-8".to_string())?, out),
        Value::Table(t) => table(t, out, depth)?,
        other => return Err(format!("cannot encode a value of type {}", other.type_name())),
    }
    Ok(())
}

/// A table key as JSON needs it: the text it is written as, and the key to read its value by.
enum Key {
    Int(i64),
    Num(f64),
    Str(String),
}

/// One table as an array or an object. Only the keys are collected (as Rust values); each value
/// is read when it is written and dropped after, so a table of any size is encoded: mlua keeps
/// every live Lua value in a slot of a stack of under 8,000 (a table of 7,979 strings failed
/// with "out of Lua stack").
fn table(t: &mlua::Table, out: &mut String, depth: usize) -> Result<(), String> {
    let mut keys: Vec<Key> = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        // The value is dropped at once: only the keys are kept.
        let (k, _) = pair.map_err(|e| e.to_string())?;
        keys.push(match k {
            Value::Integer(i) => Key::Int(i),
            Value::Number(f) => Key::Num(f),
            Value::String(s) => Key::Str(s.to_str().map_err(|_| "key is not valid UTF-8".to_string())?.to_string()),
            other => return Err(format!("cannot encode a table key of type {}", other.type_name())),
        });
    }
    let n = keys.len();
    let is_array = n > 0
        && keys.iter().all(|k| match k {
            Key::Int(i) => *i >= 1 && (*i as usize) <= n,
            Key::Num(f) => f.fract() == 0.0 && *f >= 1.0 && *f <= n as f64,
            Key::Str(_) => false,
        });
    let value = |k: &Key| -> Result<Value, String> {
        match k {
            Key::Int(i) => t.raw_get(*i),
            Key::Num(f) => t.raw_get(*f),
            Key::Str(s) => t.raw_get(s.as_str()),
        }
        .map_err(|e| e.to_string())
    };
    if is_array {
        // The keys are exactly 1..=n (each once, as table keys are unique).
        out.push('[');
        for i in 1..=n {
            if i > 1 {
                out.push(',');
            }
            encode(&value(&Key::Int(i as i64))?, out, depth + 1)?;
        }
        out.push(']');
        return Ok(());
    }
    let mut fields: Vec<(String, &Key)> = Vec::with_capacity(n);
    for k in &keys {
        let text = match k {
            Key::Str(s) => s.clone(),
            Key::Int(i) => i.to_string(),
            Key::Num(f) => {
                let mut s = String::new();
                number(*f, &mut s)?;
                s
            }
        };
        fields.push((text, k));
    }
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    out.push('{');
    for (i, (text, k)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(text, out);
        out.push(':');
        encode(&value(k)?, out, depth + 1)?;
    }
    out.push('}');
    Ok(())
}

/// Whole numbers without a fraction (`3`, not `3.0`); JSON has no NaN or infinity.
fn number(n: f64, out: &mut String) -> Result<(), String> {
    if !n.is_finite() {
        return Err(format!("cannot encode the number {n} (JSON has no NaN or infinity)"));
    }
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        out.push_str(&(n as i64).to_string());
    } else {
        out.push_str(&n.to_string());
    }
    Ok(())
}

fn string(s: &str, out: &mut String) {
    // serde_json's escaping of a plain string cannot fail.
    out.push_str(&serde_json::Value::String(s.to_string()).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lua() -> (Lua, Table) {
        let lua = Lua::new();
        let t = lua.create_table().expect("table");
        let res = Resources::demo();
        install(&lua, &t, &res).expect("install");
        lua.globals().set("R", t.clone()).expect("R");
        (lua, t)
    }

    #[test]
    fn encode_arrays_objects_and_numbers() {
        let (lua, _) = lua();
        let s: String = lua
            .load(r#"return (R.json_encode({ b = { 1, 2.5, "x" }, a = true, [3] = false, e = {} }))"#)
            .eval()
            .expect("encode");
        assert_eq!(s, r#"{"3":false,"a":true,"b":[1,2.5,"x"],"e":{}}"#);
        let (s, err): (Option<String>, Option<String>) =
            lua.load("local t = {} t.t = t return R.json_encode(t)").eval().expect("cycle");
        assert!(s.is_none() && err.is_some_and(|e| e.contains("nested deeper")));
        let (_, err): (Option<String>, Option<String>) =
            lua.load("return R.json_encode({ f = print })").eval().expect("function");
        assert!(err.is_some_and(|e| e.contains("cannot encode a value of type function")));
    }

    /// Issue 32 item 3: 20,000 strings, tables and string keys in one table (7,979 failed with
    /// "out of Lua stack, too many arguments to a Lua function").
    #[test]
    fn encode_tables_of_any_size() {
        let (lua, _) = lua();
        let (s, err): (Option<String>, Option<String>) = lua
            .load(
                "local a, o = {}, {}
                 for i = 1, 20000 do a[i] = 's' .. i; o['k' .. i] = { i } end
                 return R.json_encode({ a = a, o = o })",
            )
            .eval()
            .expect("encode");
        let s = s.unwrap_or_else(|| panic!("json.encode failed: {err:?}"));
        let v: serde_json::Value = serde_json::from_str(&s).expect("valid JSON");
        let a = v["a"].as_array().expect("array");
        assert_eq!(a.len(), 20000);
        assert_eq!(a[19999], serde_json::json!("s20000"));
        let o = v["o"].as_object().expect("object");
        assert_eq!(o.len(), 20000);
        assert_eq!(o["k12345"], serde_json::json!([12345]));
    }

    #[test]
    fn decode_reports_position() {
        let (lua, _) = lua();
        let (v, err): (Value, Option<String>) = lua.load(r#"return R.json_decode('{"a": [1, }')"#).eval().expect("x");
        assert!(v.is_nil());
        assert!(err.as_deref().is_some_and(|e| e.contains("line 1 column")), "{err:?}");
        let n: f64 = lua.load(r#"return R.json_decode('{"a": [1, {"b": 7}]}').a[2].b"#).eval().expect("ok");
        assert_eq!(n, 7.0);
    }

    #[test]
    fn json_null_round_trips() {
        let (lua, _) = lua();
        let s: String =
            lua.load(r#"return (R.json_encode({ a = R.json_null, b = { 1, R.json_null } }))"#).eval().expect("encode");
        assert_eq!(s, r#"{"a":null,"b":[1,null]}"#);
        let same: bool =
            lua.load(r#"return R.json_decode('[null, 2]', true)[1] == R.json_null"#).eval().expect("decode");
        assert!(same);
        let gone: bool = lua.load(r#"return R.json_decode('[null, 2]')[1] == nil"#).eval().expect("decode");
        assert!(gone);
    }

    #[test]
    fn dotted_lookup() {
        let root: serde_json::Value =
            serde_json::from_str(r#"{"window": {"width": 10}, "custom": {"a": {"b": "x"}}}"#).expect("json");
        assert_eq!(lookup(&root, "window.width"), Some(&serde_json::json!(10)));
        assert_eq!(lookup(&root, "custom.a.b"), Some(&serde_json::json!("x")));
        assert_eq!(lookup(&root, "custom.a.c"), None);
        assert_eq!(lookup(&root, "window.width.x"), None);
    }
}
