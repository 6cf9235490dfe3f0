//! `sinew bundle PROJECT -o OUT [--single-file]` (docs/bundle.md): a folder a player runs
//! without Sinew's sources, and the player side: an executable that finds its game's archive
//! beside it (`NAME.pak`) or appended to itself, and runs it with no watcher.
//!
//! What goes in is what the game reaches from its main collection, found by
//! `crate::project::reachable` without running the game (no script runs, nothing is printed or
//! played at bundle time): every file its loaders read, the modules of literal `require`s, and
//! `custom_resources` (what `sys.load_resource` reads). Nothing else.
use super::run::{RunOptions, run};
use crate::project::Resources;
use crate::project::archive::{self, Archive};
use crate::project::settings;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The name of the executable: the game's title with what file systems dislike replaced.
pub fn executable_name(title: &str) -> String {
    let name: String = title
        .trim()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' { c } else { '_' })
        .collect();
    let name = name.trim_matches('.').to_string();
    if name.is_empty() { "game".into() } else { name }
}

/// The licences of what a bundle holds, as one text.
fn licences() -> String {
    let font = crate::project::resources::builtin("/builtins/fonts/DejaVuSans.LICENSE")
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    format!(
        "This game runs on Sinew, a runtime for Defold-style games.\n\n\
         Inside the executable:\n\
         - LuaJIT, (c) Mike Pall, MIT licence (https://luajit.org/luajit.html).\n\
         - Rust crates, each under its own licence (MIT or Apache-2.0 for most; see Cargo.lock of the Sinew \
         source it was built from).\n\
         - The fonts DejaVu Sans and DejaVu Sans Mono Bold, under the licence below.\n\
         Linked at run time: SDL2 (zlib licence), the system's OpenGL and C libraries.\n\n\
         ---- DejaVu Sans, DejaVu Sans Mono Bold ----\n{font}"
    )
}

/// `sinew bundle`: returns the exit status (0 written, 1 refused or failed).
pub fn bundle(project: &Path, out: &Path, single_file: bool) -> i32 {
    match bundle_inner(project, out, single_file) {
        Ok(msg) => super::stdout::status_after(&msg),
        Err(e) => {
            eprintln!("bundle: {e}");
            1
        }
    }
}

fn bundle_inner(project: &Path, out: &Path, single_file: bool) -> Result<String, String> {
    if super::run::check(project) != 0 {
        return Err(format!("{} has problems (above); nothing was written", project.display()));
    }
    let res = Resources::open_dir(project).map_err(|e| e.to_string())?;
    let title = settings::load_settings(&res).map_err(|e| e.to_string())?.title;
    let files = crate::project::reachable::reachable(&res).map_err(|p| p.join("\n"))?;
    let mut packed = Vec::with_capacity(files.len());
    for p in &files {
        packed.push((p.clone(), res.read(p, None).map_err(|e| e.to_string())?));
    }
    let pak = archive::write(&packed);
    // The archive is read back as the player will before anything is written.
    Archive::parse("the new archive", pak.clone())?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let name = executable_name(&title);
    let target = out.join(&name);
    let write_err = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    std::fs::copy(&exe, &target).map_err(|e| write_err(&target, e))?;
    if single_file {
        let mut f = std::fs::OpenOptions::new().append(true).open(&target).map_err(|e| write_err(&target, e))?;
        use std::io::Write;
        f.write_all(&pak).and_then(|_| f.write_all(&archive::trailer(pak.len()))).map_err(|e| write_err(&target, e))?;
    } else {
        let path = pak_beside(&target);
        std::fs::write(&path, &pak).map_err(|e| write_err(&path, e))?;
    }
    let lic = out.join("LICENSES.txt");
    std::fs::write(&lic, licences()).map_err(|e| write_err(&lic, e))?;
    let data: usize = packed.iter().map(|(_, b)| b.len()).sum();
    Ok(format!(
        "bundled {} resources ({data} bytes, archive {} bytes) into {}\n",
        packed.len(),
        pak.len(),
        target.display()
    ))
}

/// Where a bundled executable's archive lies when it is not appended: `NAME.pak` beside it.
fn pak_beside(exe: &Path) -> PathBuf {
    let mut s = exe.as_os_str().to_owned();
    s.push(".pak");
    PathBuf::from(s)
}

/// The archive of the game this executable was bundled with: appended to it, or beside it.
/// `None` for a plain Sinew executable; `Some(Err)` for an archive that is there but bad.
pub fn bundled_game() -> Option<Result<Archive, String>> {
    let exe = std::env::current_exe().ok()?;
    let mut f = std::fs::File::open(&exe).ok()?;
    let len = f.metadata().ok()?.len();
    let mut tail = [0u8; 16];
    let appended = if len >= 16 && f.seek(SeekFrom::End(-16)).is_ok() && f.read_exact(&mut tail).is_ok() {
        archive::trailer_len(&tail)
    } else {
        None
    };
    if let Some(size) = appended {
        let name = exe.display().to_string();
        let Some(start) = (len - 16).checked_sub(size) else {
            return Some(Err(format!("{name}: the appended game archive claims {size} bytes (truncated)")));
        };
        let mut bytes = Vec::new();
        let read = f.seek(SeekFrom::Start(start)).and_then(|_| f.take(size).read_to_end(&mut bytes));
        return Some(read.map_err(|e| format!("{name}: {e}")).and_then(|_| Archive::parse(&name, bytes)));
    }
    let pak = pak_beside(&exe);
    if !pak.is_file() {
        return None;
    }
    let name = pak.display().to_string();
    Some(std::fs::read(&pak).map_err(|e| format!("{name}: {e}")).and_then(|b| Archive::parse(&name, b)))
}

/// Runs a bundled game: its archive, never a watcher.
pub fn play(game: Archive, opts: RunOptions) -> i32 {
    run(RunOptions { resources: Some(Resources::archive(game)), watch: false, project_dir: None, ..opts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_becomes_a_file_name() {
        assert_eq!(executable_name("Sinew demo"), "Sinew_demo");
        assert_eq!(executable_name("../x/y"), "_x_y");
        assert_eq!(executable_name("  "), "game");
    }
}
