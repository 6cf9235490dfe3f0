//! `sinew luajit FILE [ARGS…]`: runs a plain Lua file on the LuaJIT built into the binary, with
//! none of Sinew's API. It exists so the plain-LuaJIT floors of `../shared/perf` run on exactly
//! the VM (and build flags, see .cargo/config.toml) the engine's figures come from
//! (`scripts/bench.sh`).
use mlua::{Lua, Table};
use std::path::Path;

pub fn run_file(path: &Path, args: &[String]) -> i32 {
    let src = match std::fs::read(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return 1;
        }
    };
    let lua = Lua::new();
    let result = (|| -> mlua::Result<()> {
        let arg: Table = lua.create_table()?;
        arg.set(0, path.display().to_string())?;
        for (i, a) in args.iter().enumerate() {
            arg.set(i + 1, a.as_str())?;
        }
        lua.globals().set("arg", arg)?;
        lua.load(&src[..]).set_name(format!("@{}", path.display())).exec()
    })();
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
