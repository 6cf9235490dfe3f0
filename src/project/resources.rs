//! Where resource bytes come from: a project folder on disk, the embedded demo or a bundled
//! game's archive, with the embedded `/builtins/` behind each. Every path is checked so nothing
//! outside the root is read.
use crate::base::error::LoadError;
use crate::base::path::normalize;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The longest resource path read (Linux's own limit is 4,096 bytes).
pub const MAX_PATH_BYTES: usize = 1024;

/// Files made by the program: resource path → bytes.
type Overlay = std::sync::Arc<Vec<(String, Vec<u8>)>>;

#[derive(Debug, Clone)]
enum Root {
    /// A folder, with the Defold library projects the editor fetched into its `.internal/lib`
    /// behind its own files (a bundle packs the library files it read with the rest).
    Dir(PathBuf, std::sync::Arc<super::library::Libraries>),
    Demo,
    Archive(std::sync::Arc<super::archive::Archive>),
}

/// The project resources read so far, when traced (`sinew bundle` packs what a run reads).
pub type Trace = std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>;

/// What [`Resources::read`] says of a resource that is not there, asked for by no file.
pub const NOT_FOUND: &str = "resource not found";

/// Read access to one project's resources.
#[derive(Debug, Clone)]
pub struct Resources {
    root: Root,
    /// Files made by the program that win over the root's (`sinew view`'s project around one
    /// model file).
    overlay: Option<Overlay>,
    trace: Option<Trace>,
}

fn find(table: &[(&str, &'static [u8])], path: &str) -> Option<&'static [u8]> {
    table.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

/// Defold's built-in files that Sinew answers with its own (docs/formats.md, "Built-in
/// files"): Bitstream Vera Sans Mono Bold, the face of Defold's default, debug and 3D-text
/// fonts, is DejaVu Sans Mono Bold's ancestor (the same Latin glyphs), so text in Defold's
/// default font keeps its width and weight.
const BUILTIN_ALIASES: &[(&str, &str)] = &[
    ("/builtins/fonts/vera_mo_bd.ttf", "/builtins/fonts/DejaVuSansMono-Bold.ttf"),
    // Defold's older built-in font (britzl/shapeshift's HUD names it): the same face and size
    // as its default font, only under a material of its own.
    ("/builtins/fonts/system_font.font", "/builtins/fonts/default.font"),
    // Defold's model materials per vertex path (skinned, instanced) and per lighting (its
    // `_lit` ones read its light components): Sinew's one built-in model material skins,
    // instances and is lit by light components already.
    ("/builtins/materials/model_skinned.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_instanced.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_skinned_instanced.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_lit.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_instanced_lit.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_skinned_lit.material", "/builtins/materials/model.material"),
    ("/builtins/materials/model_skinned_instanced_lit.material", "/builtins/materials/model.material"),
    // Defold's tile map programs are its sprite programs under another name (the same inputs,
    // `view_proj`, `texture_sampler` and `tint`): materials of a project's own pair them with its
    // tags (defold/sample-lights-and-shadows' light occluders).
    ("/builtins/materials/tile_map.vp", "/builtins/materials/sprite.vp"),
    ("/builtins/materials/tile_map.fp", "/builtins/materials/sprite.fp"),
];

/// The built-in file that answers `path`: itself, or the one it stands in for (Defold's skinned
/// model material is Sinew's one model material).
pub fn builtin_alias(path: &str) -> &str {
    BUILTIN_ALIASES.iter().find(|(a, _)| *a == path).map_or(path, |(_, to)| to)
}

/// A built-in file by its path or the path it stands in for.
fn find_builtin(path: &str) -> Option<&'static [u8]> {
    find(embedded::BUILTINS, builtin_alias(path))
}

/// A file of the embedded `/builtins/` (the default font face is read before any project is).
pub fn builtin(path: &str) -> Option<&'static [u8]> {
    find_builtin(path)
}

impl Resources {
    /// A project folder on disk; the folder must exist.
    pub fn open_dir(dir: &Path) -> Result<Self, LoadError> {
        let canon = dir
            .canonicalize()
            .map_err(|e| LoadError::new(dir.display().to_string(), format!("cannot open project folder: {e}")))?;
        if !canon.is_dir() {
            return Err(LoadError::new(dir.display().to_string(), "not a folder"));
        }
        let libraries = std::sync::Arc::new(super::library::Libraries::open(&canon));
        Ok(Resources { root: Root::Dir(canon, libraries), overlay: None, trace: None })
    }

    /// The demo project embedded in the binary.
    pub fn demo() -> Self {
        Resources { root: Root::Demo, overlay: None, trace: None }
    }

    /// A bundled game's archive (checked whole by [`super::archive::Archive::parse`]).
    pub fn archive(a: super::archive::Archive) -> Self {
        Resources { root: Root::Archive(std::sync::Arc::new(a)), overlay: None, trace: None }
    }

    /// These resources, recording the path of every project file read into the returned set.
    pub fn traced(mut self) -> (Self, Trace) {
        let t = Trace::default();
        self.trace = Some(t.clone());
        (self, t)
    }

    /// These resources with `files` (path → bytes) in front of the root's.
    pub fn with_overlay(mut self, files: Vec<(String, Vec<u8>)>) -> Self {
        self.overlay = Some(std::sync::Arc::new(files));
        self
    }

    /// The project folder on disk, if any (hot reload watches it).
    pub fn dir(&self) -> Option<&Path> {
        match &self.root {
            Root::Dir(p, _) => Some(p),
            Root::Demo | Root::Archive(_) => None,
        }
    }

    /// A short description of the project for messages.
    pub fn describe(&self) -> String {
        match &self.root {
            Root::Dir(p, _) => p.display().to_string(),
            Root::Demo => "the embedded demo".into(),
            Root::Archive(_) => "the game's archive".into(),
        }
    }

    /// Reads a resource. `referenced_from` names the file that asked for it, for the error message.
    pub fn read(&self, path: &str, referenced_from: Option<&str>) -> Result<Vec<u8>, LoadError> {
        if path.len() > MAX_PATH_BYTES {
            let quoted = crate::base::error::abbreviated(path, MAX_PATH_BYTES);
            let msg = format!("resource path '{quoted}' is longer than {MAX_PATH_BYTES} bytes");
            return Err(LoadError::new(referenced_from.unwrap_or("the project"), msg));
        }
        let who = referenced_from.unwrap_or(path);
        let Some(norm) = normalize(path) else {
            let msg = if path.starts_with('/') {
                format!("resource path '{path}' escapes the project root")
            } else {
                format!("resource path '{path}' must start with '/'")
            };
            return Err(LoadError::new(who, msg));
        };
        if let Some(files) = &self.overlay
            && let Some((_, b)) = files.iter().find(|(p, _)| *p == norm)
        {
            return Ok(b.clone());
        }
        if let Some(bytes) = self.read_project(&norm, who)? {
            if let Some(t) = &self.trace
                && let Ok(mut set) = t.lock()
            {
                set.insert(norm);
            }
            return Ok(bytes);
        }
        if let Some(b) = find_builtin(&norm) {
            return Ok(b.to_vec());
        }
        match referenced_from {
            Some(r) => Err(LoadError::new(r, format!("resource '{norm}' not found"))),
            None => Err(LoadError::new(norm, NOT_FOUND)),
        }
    }

    /// The library projects mounted from a project folder's `.internal/lib` (None for the demo
    /// and a bundle, whose library files, if any, are packed with the rest).
    pub fn libraries(&self) -> Option<&super::library::Libraries> {
        match &self.root {
            Root::Dir(_, libraries) => Some(libraries),
            Root::Demo | Root::Archive(_) => None,
        }
    }

    /// Reads a resource as UTF-8 text.
    pub fn read_string(&self, path: &str, referenced_from: Option<&str>) -> Result<String, LoadError> {
        let bytes = self.read(path, referenced_from)?;
        String::from_utf8(bytes).map_err(|_| LoadError::new(path, "file is not valid UTF-8"))
    }

    /// True when the resource exists (project or builtins).
    pub fn exists(&self, path: &str) -> bool {
        self.read(path, None).is_ok()
    }

    fn read_project(&self, norm: &str, who: &str) -> Result<Option<Vec<u8>>, LoadError> {
        match &self.root {
            Root::Demo => Ok(find(embedded::DEMO, norm).map(|b| b.to_vec())),
            Root::Archive(a) => Ok(a.get(norm).map(|b| b.to_vec())),
            Root::Dir(root, libraries) => {
                let full = root.join(&norm[1..]);
                if !full.exists() {
                    let Some(file) = libraries.read(norm) else { return Ok(None) };
                    return file.map(Some).map_err(|e| LoadError::new(who, format!("library file: {e}")));
                }
                let canon =
                    full.canonicalize().map_err(|e| LoadError::new(who, format!("cannot resolve '{norm}': {e}")))?;
                if !canon.starts_with(root) {
                    return Err(LoadError::new(
                        who,
                        format!("resource path '{norm}' leaves the project folder (symlink)"),
                    ));
                }
                // A FIFO or a device would block the read or never end it.
                if !canon.is_file() {
                    return Err(LoadError::new(who, format!("'{norm}' is not a regular file")));
                }
                std::fs::read(&canon).map(Some).map_err(|e| LoadError::new(who, format!("cannot read '{norm}': {e}")))
            }
        }
    }

    /// Resource paths of every file in the project with the given extension (for `sinew check`).
    pub fn list(&self, ext: &str) -> Vec<String> {
        let mut out = Vec::new();
        match &self.root {
            Root::Demo => {
                for (p, _) in embedded::DEMO {
                    if p.ends_with(ext) {
                        out.push(p.to_string());
                    }
                }
            }
            Root::Archive(a) => out.extend(a.paths().into_iter().filter(|p| p.ends_with(ext))),
            Root::Dir(root, _) => list_dir(root, root, ext, &mut out),
        }
        out.sort();
        out
    }
}

/// Walks the project without following links to folders: `main/a -> .` would make the walk
/// endless and a link to `/` would list the whole disk. A link to a file is listed (reading it
/// checks that it stays inside the project); FIFOs and devices are never listed, so `check`
/// cannot block or read forever on one.
fn list_dir(root: &Path, dir: &Path, ext: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        let Ok(kind) = e.file_type() else { continue };
        if name.starts_with('.') {
            continue;
        }
        if kind.is_dir() {
            list_dir(root, &p, ext, out);
        } else if name.ends_with(ext)
            && (kind.is_file() || (kind.is_symlink() && p.is_file()))
            && let Ok(rel) = p.strip_prefix(root)
        {
            out.push(format!("/{}", rel.to_string_lossy()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by `tests/fuzz.rs`: a path of thousands of bytes was looked up and quoted whole.
    #[test]
    fn a_path_past_the_limit_is_refused_by_its_start() {
        let path = format!("/{}", "a/".repeat(1000));
        let e = Resources::demo().read(&path, Some("/main/main.collection")).expect_err("refused");
        let text = e.to_string();
        assert!(text.starts_with("/main/main.collection: resource path '/a/a/"), "{text}");
        assert!(text.ends_with("… (2001 bytes)' is longer than 1024 bytes"), "{text}");
    }

    /// Defold's built-in quad (its material examples scale it to the display) and the Vera
    /// path that DejaVu Sans answers, and Defold's older system font, its default font.
    #[test]
    fn defolds_builtin_quad_and_fonts_are_there() {
        let r = Resources::demo();
        let quad = r.read("/builtins/assets/gltf/quad.gltf", None).expect("quad");
        let m =
            crate::project::gltf::import_bytes("/builtins/assets/gltf/quad.gltf", &quad, Some(&r)).expect("imports");
        assert_eq!((m.aabb.min, m.aabb.max), ([-0.5, -0.5, 0.0], [0.5, 0.5, 0.0]));
        assert_eq!(builtin("/builtins/fonts/vera_mo_bd.ttf"), builtin("/builtins/fonts/DejaVuSansMono-Bold.ttf"));
        let system_font = builtin("/builtins/fonts/system_font.font");
        assert!(system_font.is_some_and(|f| f.starts_with(b"font: ")), "{system_font:?}");
        assert_eq!(system_font, builtin("/builtins/fonts/default.font"));
        assert!(builtin("/builtins/fonts/vera_mo_bd.ttf").is_some_and(|b| b.len() > 100_000));
        assert!(r.read("/builtins/fonts/debug/always_on_top.font", None).is_ok());
    }

    /// The other primitives in Defold's sizes (scripts/gen-builtins.py), the particle blob's
    /// tile source and picture, the logo, and Defold's model material variants answered by the
    /// one built-in model material.
    #[test]
    fn defolds_builtin_primitives_and_pictures_are_there() {
        let r = Resources::demo();
        for (path, min, max, triangles) in [
            ("/builtins/assets/gltf/quad_2x2.gltf", [-1.0, -1.0, 0.0], [1.0, 1.0, 0.0], 2),
            ("/builtins/assets/gltf/cube.gltf", [-0.5; 3], [0.5; 3], 12),
            ("/builtins/assets/gltf/sphere.gltf", [-0.5; 3], [0.5; 3], 32 * 16 * 2 - 64),
        ] {
            let bytes = r.read(path, None).expect(path);
            let m = crate::project::gltf::import_bytes(path, &bytes, Some(&r)).expect("imports");
            let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
            assert!(close(m.aabb.min, min) && close(m.aabb.max, max), "{path}: {:?}", m.aabb);
            let p = &m.meshes[0].primitives[0];
            assert_eq!(p.indices.len() / 3, triangles, "{path}");
            // Every triangle faces out: its winding agrees with its vertices' normals.
            for t in p.indices.chunks(3) {
                let v = |i: u32| glam::Vec3::from(p.positions[i as usize]);
                let n = glam::Vec3::from(p.normals[t[0] as usize]);
                let face = (v(t[1]) - v(t[0])).cross(v(t[2]) - v(t[0]));
                assert!(face.dot(n) > 0.0, "{path}: triangle {t:?} faces in");
            }
        }
        assert!(r.read("/builtins/graphics/particle_blob.tilesource", None).is_ok());
        assert!(r.read("/builtins/graphics/particle_blob.png", None).is_ok());
        assert!(r.read("/builtins/assets/images/logo/logo_256.png", None).is_ok());
        for variant in ["model_skinned", "model_instanced_lit", "model_skinned_instanced_lit"] {
            let path = format!("/builtins/materials/{variant}.material");
            assert_eq!(builtin(&path), builtin("/builtins/materials/model.material"), "{path}");
        }
        for ext in ["vp", "fp"] {
            let sprite = builtin(&format!("/builtins/materials/sprite.{ext}"));
            assert!(sprite.is_some());
            assert_eq!(builtin(&format!("/builtins/materials/tile_map.{ext}")), sprite);
        }
    }

    /// A Defold project opened by Defold's editor has its libraries in `.internal/lib`: their
    /// folders read as the project's own, behind them, and are traced for `sinew bundle`.
    #[test]
    fn libraries_in_internal_lib_are_read_behind_the_project() {
        let dir = std::env::temp_dir().join(format!("sinew_res_lib_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".internal/lib")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let project = b"[library]\ninclude_dirs = lib\n";
        let zip = crate::project::library::tests::zip_of(&[
            ("lib-main/game.project", project, false),
            ("lib-main/lib/a.lua", b"from the library", true),
            ("lib-main/lib/b.lua", b"shadowed", true),
        ]);
        std::fs::write(dir.join(".internal/lib/lib-main.zip"), zip).unwrap();
        std::fs::write(dir.join(".internal/lib/broken.zip"), b"not a zip").unwrap();
        std::fs::write(dir.join("lib/b.lua"), b"the project's own").unwrap();
        let (r, trace) = Resources::open_dir(&dir).unwrap().traced();
        assert_eq!(r.read("/lib/a.lua", None).unwrap(), b"from the library");
        assert_eq!(r.read("/lib/b.lua", None).unwrap(), b"the project's own");
        assert!(r.read("/lib-main/lib/a.lua", None).is_err());
        assert!(trace.lock().unwrap().contains("/lib/a.lua"), "bundles pack library files");
        let libs = r.libraries().unwrap();
        assert_eq!(libs.mounted.len(), 1);
        assert!(libs.problems[0].starts_with(".internal/lib/broken.zip: not a zip file"), "{:?}", libs.problems);
        assert!(Resources::open_dir(&dir.join("lib")).unwrap().libraries().is_some_and(|l| l.is_empty()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refuses_escapes_and_symlinks() {
        let dir = std::env::temp_dir().join(format!("sinew_res_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("proj/main")).unwrap();
        std::fs::write(dir.join("secret.txt"), "s").unwrap();
        std::fs::write(dir.join("proj/main/a.lua"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("proj/main/link.txt")).unwrap();
        let r = Resources::open_dir(&dir.join("proj")).unwrap();
        assert_eq!(r.read("/main/a.lua", None).unwrap(), b"x");
        let e = r.read("/../secret.txt", Some("/main/main.collection")).unwrap_err();
        assert_eq!(e.resource, "/main/main.collection");
        assert!(e.message.contains("escapes"), "{e}");
        #[cfg(unix)]
        assert!(r.read("/main/link.txt", None).unwrap_err().message.contains("leaves the project"));
        assert!(r.read("/main/missing.lua", None).unwrap_err().message.contains("not found"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
