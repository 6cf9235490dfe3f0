//! Defold library projects as the Defold editor leaves them: each dependency of `game.project`
//! fetched as a zip into the project's `.internal/lib/`. A library's `game.project` names its
//! `[library] include_dirs`; those folders are mounted at the project's root (`/monarch/...`),
//! behind the project's own files, as Defold's build does. Only the zip's directory is read when
//! the project opens; a file is inflated when it is read.
use crate::base::bytes::{le_u16, le_u32};
use crate::base::path::normalize;
use std::collections::HashMap;
use std::path::Path;

/// Where the Defold editor (and `bob.jar resolve`) keeps the fetched libraries.
pub const LIBRARY_DIR: &str = ".internal/lib";

/// A zip larger than this is not opened (libraries are a few MB), nor is a file read that says
/// it inflates to more than `MAX_FILE_BYTES`.
const MAX_ZIP_BYTES: u64 = 256 << 20;
const MAX_FILE_BYTES: u64 = 64 << 20;

/// One file of a zip: how to get its bytes.
#[derive(Debug, Clone)]
struct Entry {
    zip: usize,
    /// Offset of its local header.
    header: u64,
    method: u16,
    compressed: u64,
    size: u64,
    crc: u32,
}

/// One mounted library.
#[derive(Debug, Clone)]
pub struct Library {
    /// The zip's file name in `.internal/lib`.
    pub file: String,
    /// Its top folder (`monarch-3.4.6`), empty when its `game.project` is at its root.
    pub folder: String,
    /// The folders it mounts (`[library] include_dirs`).
    pub include_dirs: Vec<String>,
    /// Whether it is a native extension (an `ext.manifest` in a mounted folder): its Lua API is
    /// made by native code, which Sinew does not run.
    pub native: bool,
}

/// The libraries of one project, by mounted resource path.
#[derive(Default)]
pub struct Libraries {
    zips: Vec<Vec<u8>>,
    files: HashMap<String, Entry>,
    pub mounted: Vec<Library>,
    /// Zips that could not be mounted, with why.
    pub problems: Vec<String>,
}

impl std::fmt::Debug for Libraries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Libraries").field("mounted", &self.mounted).field("problems", &self.problems).finish()
    }
}

/// A zip's central directory: (name, entry) for every file, or why it cannot be read.
fn directory(zip: &[u8], index: usize) -> Result<Vec<(String, Entry)>, String> {
    const END: u32 = 0x0605_4b50;
    const CENTRAL: u32 = 0x0201_4b50;
    // The end record is the last 22 bytes but for a comment of up to 65,535 bytes.
    let last = zip.len().checked_sub(22).ok_or("not a zip file (too short)")?;
    let end = (last.saturating_sub(65_535)..=last)
        .rev()
        .find(|&i| le_u32(zip, i) == Some(END))
        .ok_or("not a zip file (no end of central directory)")?;
    let count = le_u16(zip, end + 10).ok_or("truncated")? as usize;
    let at = le_u32(zip, end + 16).ok_or("truncated")?;
    if count == 0xFFFF || at == 0xFFFF_FFFF {
        return Err("a ZIP64 archive, which Sinew does not read".into());
    }
    let mut out = Vec::with_capacity(count);
    let mut at = at as usize;
    for _ in 0..count {
        let bad = || format!("central directory entry at byte {at} is damaged");
        if le_u32(zip, at) != Some(CENTRAL) {
            return Err(bad());
        }
        let field16 = |o: usize| le_u16(zip, at + o).ok_or_else(bad);
        let field32 = |o: usize| le_u32(zip, at + o).ok_or_else(bad);
        let (flags, method) = (field16(8)?, field16(10)?);
        let (crc, compressed, size) = (field32(16)?, field32(20)?, field32(24)?);
        let (name_len, extra_len, comment_len) = (field16(28)? as usize, field16(30)? as usize, field16(32)? as usize);
        let header = field32(42)?;
        let name = zip.get(at + 46..at + 46 + name_len).ok_or_else(bad)?;
        let name = String::from_utf8_lossy(name).into_owned();
        if flags & 1 != 0 {
            return Err(format!("'{name}' is encrypted"));
        }
        let entry = Entry {
            zip: index,
            header: u64::from(header),
            method,
            compressed: u64::from(compressed),
            size: u64::from(size),
            crc,
        };
        out.push((name, entry));
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// The bytes of `e`, inflated and checked against its CRC.
fn contents(zip: &[u8], name: &str, e: &Entry) -> Result<Vec<u8>, String> {
    const LOCAL: u32 = 0x0403_4b50;
    let damaged = || format!("'{name}' is damaged");
    let at = usize::try_from(e.header).map_err(|_| damaged())?;
    if le_u32(zip, at) != Some(LOCAL) {
        return Err(damaged());
    }
    let skip = le_u16(zip, at + 26).ok_or_else(damaged)? as usize + le_u16(zip, at + 28).ok_or_else(damaged)? as usize;
    let start = at + 30 + skip;
    let len = usize::try_from(e.compressed).map_err(|_| damaged())?;
    let data = zip.get(start..start.checked_add(len).ok_or_else(damaged)?).ok_or_else(damaged)?;
    if e.size > MAX_FILE_BYTES {
        return Err(format!("'{name}' is larger than {} MiB", MAX_FILE_BYTES >> 20));
    }
    let bytes = match e.method {
        0 => data.to_vec(),
        8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, e.size as usize).map_err(|_| damaged())?,
        m => return Err(format!("'{name}' is compressed with method {m}, which Sinew does not read")),
    };
    if bytes.len() as u64 != e.size || crc32fast::hash(&bytes) != e.crc {
        return Err(damaged());
    }
    Ok(bytes)
}

impl Libraries {
    /// Every zip in `project/.internal/lib`, in name order (so a file two libraries both mount
    /// comes from the same one every time); none when there is no such folder.
    pub fn open(project: &Path) -> Libraries {
        let mut libs = Libraries::default();
        let Ok(rd) = std::fs::read_dir(project.join(LIBRARY_DIR)) else { return libs };
        let mut zips: Vec<_> = rd
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".zip"))
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        zips.sort();
        for (file, path) in zips {
            let bytes = match std::fs::metadata(&path) {
                Ok(m) if m.is_file() && m.len() <= MAX_ZIP_BYTES => std::fs::read(&path).map_err(|e| e.to_string()),
                Ok(m) if m.is_file() => Err(format!("larger than {} MiB", MAX_ZIP_BYTES >> 20)),
                Ok(_) => Err("not a regular file".into()),
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = bytes.and_then(|b| libs.mount(&file, b)) {
                libs.problems.push(format!("{LIBRARY_DIR}/{file}: {e}"));
            }
        }
        libs
    }

    /// Mounts one zip's `include_dirs`.
    pub fn mount(&mut self, file: &str, zip: Vec<u8>) -> Result<(), String> {
        let index = self.zips.len();
        let entries = directory(&zip, index)?;
        // The library's own game.project: at the root, or in the one top folder GitHub's
        // archives have.
        let (project_name, project) = entries
            .iter()
            .filter(|(n, _)| n == "game.project" || n.split('/').count() == 2 && n.ends_with("/game.project"))
            .min_by_key(|(n, _)| n.len())
            .ok_or("no game.project in the zip (is it a Defold library?)")?;
        let folder = project_name.trim_end_matches("game.project").to_string();
        let text = contents(&zip, project_name, project)?;
        let text = String::from_utf8(text).map_err(|_| format!("{project_name} is not UTF-8"))?;
        let entries_ini = crate::project::defold::game_project::parse_ini(&text)
            .map_err(|e| format!("{project_name}: {}", e.first().map_or(String::new(), |e| e.to_string())))?;
        let include_dirs: Vec<String> = entries_ini
            .iter()
            .filter(|e| e.section == "library" && e.key == "include_dirs")
            .flat_map(|e| e.value.split(',').map(|d| d.trim().trim_matches('/').to_string()).collect::<Vec<_>>())
            .filter(|d| !d.is_empty())
            .collect();
        if include_dirs.is_empty() {
            return Err(format!("{project_name} names no [library] include_dirs"));
        }
        // `/dir/` per include dir: a file's name is in one before and after normalising (a name
        // that climbs out of its folder, `in/../main/x.lua`, is never mounted).
        let prefixes: Vec<String> = include_dirs.iter().map(|d| format!("/{d}/")).collect();
        let within = |path: &str| prefixes.iter().find(|p| path.starts_with(p.as_str()));
        let mut native = false;
        for (name, e) in entries {
            let Some(inner) = name.strip_prefix(&folder) else { continue };
            let raw = format!("/{inner}");
            let Some(prefix) = within(&raw) else { continue };
            native |= raw[prefix.len()..] == *"ext.manifest";
            if inner.ends_with('/') {
                continue;
            }
            if let Some(path) = normalize(&raw)
                && within(&path).is_some()
            {
                self.files.entry(path).or_insert(e);
            }
        }
        self.zips.push(zip);
        self.mounted.push(Library {
            file: file.to_string(),
            folder: folder.trim_end_matches('/').to_string(),
            include_dirs,
            native,
        });
        Ok(())
    }

    /// The mounted file at resource path `norm`, if a library has one.
    pub fn read(&self, norm: &str) -> Option<Result<Vec<u8>, String>> {
        let e = self.files.get(norm)?;
        let zip = self.zips.get(e.zip)?;
        Some(contents(zip, norm, e))
    }

    /// Whether any library is mounted.
    pub fn is_empty(&self) -> bool {
        self.mounted.is_empty()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A zip of `files` (name, bytes, deflated?), as GitHub's archives and `git archive` write them.
    pub(crate) fn zip_of(files: &[(&str, &[u8], bool)]) -> Vec<u8> {
        let (mut out, mut central) = (Vec::new(), Vec::new());
        for (name, data, deflate) in files {
            let body = if *deflate { miniz_oxide::deflate::compress_to_vec(data, 6) } else { data.to_vec() };
            let (method, crc, offset) = (if *deflate { 8u16 } else { 0 }, crc32fast::hash(data), out.len() as u32);
            let sizes = [(body.len() as u32).to_le_bytes(), (data.len() as u32).to_le_bytes()].concat();
            out.extend(0x0403_4b50u32.to_le_bytes());
            out.extend([20, 0, 0, 0]);
            out.extend(method.to_le_bytes());
            out.extend([0; 4]);
            out.extend(crc.to_le_bytes());
            out.extend(&sizes);
            out.extend((name.len() as u16).to_le_bytes());
            out.extend([0, 0]);
            out.extend(name.as_bytes());
            out.extend(&body);
            central.extend(0x0201_4b50u32.to_le_bytes());
            central.extend([20, 0, 20, 0, 0, 0]);
            central.extend(method.to_le_bytes());
            central.extend([0; 4]);
            central.extend(crc.to_le_bytes());
            central.extend(&sizes);
            central.extend((name.len() as u16).to_le_bytes());
            central.extend([0; 12]);
            central.extend(offset.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let (at, len, n) = (out.len() as u32, central.len() as u32, files.len() as u16);
        out.extend(central);
        out.extend(0x0605_4b50u32.to_le_bytes());
        out.extend([0; 4]);
        out.extend(n.to_le_bytes());
        out.extend(n.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(at.to_le_bytes());
        out.extend([0, 0]);
        out
    }

    const PROJECT: &[u8] = b"[project]\ntitle = lib\n\n[library]\ninclude_dirs = lib, more\n";

    #[test]
    fn a_librarys_include_dirs_are_mounted_at_the_root() {
        let big = "return 'a'\n".repeat(1000);
        let zip = zip_of(&[
            ("lib-1.0/", b"", false),
            ("lib-1.0/game.project", PROJECT, true),
            ("lib-1.0/lib/a.lua", big.as_bytes(), true),
            ("lib-1.0/more/b.txt", b"b", false),
            ("lib-1.0/example/x.lua", b"x", false),
            ("lib-1.0/lib/../example/y.lua", b"y", false),
        ]);
        let mut libs = Libraries::default();
        libs.mount("lib.zip", zip).unwrap();
        assert_eq!(libs.read("/lib/a.lua").unwrap().unwrap(), big.as_bytes(), "deflated");
        assert_eq!(libs.read("/more/b.txt").unwrap().unwrap(), b"b", "stored");
        for outside in ["/example/x.lua", "/example/y.lua", "/game.project", "/lib-1.0/lib/a.lua"] {
            assert!(libs.read(outside).is_none(), "{outside} is not in an include dir");
        }
        let l = &libs.mounted[0];
        assert_eq!(
            (l.file.as_str(), l.folder.as_str(), l.include_dirs.clone()),
            ("lib.zip", "lib-1.0", vec!["lib".into(), "more".into()])
        );
        assert!(!l.native);
        // A library zipped without its top folder mounts the same way.
        let mut flat = Libraries::default();
        flat.mount("flat.zip", zip_of(&[("game.project", PROJECT, false), ("lib/a.lua", b"a", true)])).unwrap();
        assert_eq!(flat.read("/lib/a.lua").unwrap().unwrap(), b"a");
        let ext = zip_of(&[("game.project", PROJECT, false), ("lib/ext.manifest", b"name: \"X\"\n", false)]);
        flat.mount("ext.zip", ext).unwrap();
        assert!(flat.mounted[1].native, "a native extension is told apart");
        assert_eq!(flat.read("/lib/a.lua").unwrap().unwrap(), b"a", "the first zip by name keeps its files");
    }

    /// Damage is found when the file is read, named, and never panics; what is not a library
    /// is refused whole.
    #[test]
    fn broken_zips_are_refused_with_why() {
        let mut zip = zip_of(&[("l/game.project", PROJECT, false), ("l/lib/a.lua", b"abc", false)]);
        let body = zip.windows(3).position(|w| w == b"abc").unwrap();
        zip[body] = b'x';
        let mut libs = Libraries::default();
        libs.mount("l.zip", zip.clone()).unwrap();
        let e = libs.read("/lib/a.lua").unwrap().unwrap_err();
        assert!(e.contains("'/lib/a.lua' is damaged"), "{e}");
        // Every cut of the zip is refused or read, never a panic.
        for cut in 0..zip.len() {
            let mut l = Libraries::default();
            if l.mount("cut.zip", zip[..cut].to_vec()).is_ok() {
                let _ = l.read("/lib/a.lua");
            }
        }
        let refused = |zip: Vec<u8>| Libraries::default().mount("z.zip", zip).unwrap_err();
        assert!(refused(b"PK not a zip".to_vec()).contains("not a zip file"));
        assert!(refused(zip_of(&[("l/lib/a.lua", b"a", false)])).contains("no game.project"));
        let no_dirs = zip_of(&[("l/game.project", b"[project]\ntitle = x\n", false)]);
        assert!(refused(no_dirs).contains("names no [library] include_dirs"));
        let mut encrypted = zip_of(&[("l/game.project", PROJECT, false)]);
        let central = encrypted.windows(4).position(|w| w == 0x0201_4b50u32.to_le_bytes()).unwrap();
        encrypted[central + 8] = 1;
        assert!(refused(encrypted).contains("is encrypted"));
        // A size past the limit is refused before anything is allocated for it.
        let mut huge = zip_of(&[("l/game.project", PROJECT, false), ("l/lib/a.lua", b"a", false)]);
        let last = huge.windows(4).rposition(|w| w == 0x0201_4b50u32.to_le_bytes()).unwrap();
        huge[last + 24..last + 28].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut l = Libraries::default();
        l.mount("huge.zip", huge).unwrap();
        assert!(l.read("/lib/a.lua").unwrap().unwrap_err().contains("larger than 64 MiB"));
    }
}
