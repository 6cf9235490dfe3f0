//! Watching the project folder for saves (hot reload).
//!
//! The whole project folder is watched recursively, never single files: editors that save by
//! writing a temporary file and renaming it over the original (vim, VS Code, JetBrains) replace
//! the watched inode, which a file watch would miss. A short debounce folds a burst of events
//! from one save (or many saves) into one reload per file.
use notify_debouncer_mini::notify::{self, RecursiveMode};
use notify_debouncer_mini::{Config, DebounceEventResult, Debouncer, new_debouncer_opt};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;
use std::time::SystemTime;

/// How long the folder must be quiet before the changed files are reported.
pub const DEBOUNCE: Duration = Duration::from_millis(30);

pub struct Watcher {
    root: PathBuf,
    rx: Receiver<DebounceEventResult>,
    /// Last seen modification time per file: inotify also reports reads (our own, when a reload
    /// reads the file), so only a new mtime counts as a save.
    seen: HashMap<PathBuf, SystemTime>,
    _debouncer: Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
}

impl Watcher {
    pub fn new(root: &Path) -> Result<Watcher, String> {
        let root = root.canonicalize().map_err(|e| format!("{}: {e}", root.display()))?;
        let (tx, rx) = channel();
        // Links to folders are not followed: `main/a -> .` would make the recursive watch
        // endless, and a link to `/usr` would add a watch for every folder under it.
        let config = Config::default()
            .with_timeout(DEBOUNCE)
            .with_notify_config(notify::Config::default().with_follow_symlinks(false));
        let mut debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher>(config, move |res| {
            let _ = tx.send(res);
        })
        .map_err(|e| format!("cannot start the file watcher: {e}"))?;
        debouncer
            .watcher()
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
        let mut seen = HashMap::new();
        record_mtimes(&root, &mut seen);
        Ok(Watcher { root, rx, seen, _debouncer: debouncer })
    }

    /// Resource paths (`/main/hero.script`) changed since the last call, without waiting.
    pub fn changed(&mut self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        while let Ok(res) = self.rx.try_recv() {
            match res {
                Ok(events) => {
                    for e in events {
                        let Some(p) = resource_path(&self.root, &e.path) else { continue };
                        let Some(mtime) = std::fs::metadata(&e.path).and_then(|m| m.modified()).ok() else { continue };
                        if self.seen.insert(e.path.clone(), mtime) != Some(mtime) {
                            out.insert(p);
                        }
                    }
                }
                Err(e) => log::warn!("file watcher: {e}"),
            }
        }
        out
    }
}

fn record_mtimes(dir: &Path, seen: &mut HashMap<PathBuf, SystemTime>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        // Never through a link to a folder (see `Watcher::new`).
        if kind.is_dir() {
            record_mtimes(&p, seen);
        } else if let Ok(t) = e.metadata().and_then(|m| m.modified()) {
            seen.insert(p, t);
        }
    }
}

/// Maps a file to its resource path, or None for files that are not resources: anything under a
/// hidden folder (`.git`), editor swap and backup files, and files that no longer exist (a
/// temporary file that was renamed away).
pub fn resource_path(root: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        let s = c.as_os_str().to_str()?;
        if s.starts_with('.') {
            return None;
        }
        parts.push(s);
    }
    let name = *parts.last()?;
    let junk = name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
        || name.starts_with("#")
        || name == "4913";
    if junk || !file.is_file() {
        return None;
    }
    Some(format!("/{}", parts.join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_hidden_folders_swap_files_and_vanished_files() {
        let root = std::env::temp_dir().join(format!("sinew_watch_{}", std::process::id()));
        std::fs::create_dir_all(root.join("main")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        for f in ["main/a.script", "main/.a.script.swp", "main/a.script~", ".git/index", "main/4913"] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        assert_eq!(resource_path(&root, &root.join("main/a.script")).as_deref(), Some("/main/a.script"));
        for f in ["main/.a.script.swp", "main/a.script~", ".git/index", "main/4913", "main/gone.script"] {
            assert_eq!(resource_path(&root, &root.join(f)), None, "{f}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
