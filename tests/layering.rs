//! The layers of `src/` import only downwards: base → project → scene → anim → game →
//! script | render → app (script and render are peers that never see each other). A `use` or
//! path of a layer above fails this test, naming the file and line.
use std::path::Path;

const LAYERS: [(&str, u32); 8] =
    [("base", 0), ("project", 1), ("scene", 2), ("anim", 3), ("game", 4), ("script", 5), ("render", 5), ("app", 6)];

fn rank(layer: &str) -> Option<u32> {
    LAYERS.iter().find(|(n, _)| *n == layer).map(|(_, r)| *r)
}

fn rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The layers a line of code names through `crate::x` paths, including `use crate::{x, y}`.
fn named_layers(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code = line.split("//").next().unwrap_or("");
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for part in inner.split(',') {
                let name: String = part.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push(name);
            }
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let Some(layer) = rel.components().next().and_then(|c| c.as_os_str().to_str()) else { continue };
        let Some(own) = rank(layer) else { continue };
        let text = std::fs::read_to_string(f).expect("read");
        checked += 1;
        for (n, line) in text.lines().enumerate() {
            for other in named_layers(line) {
                let Some(r) = rank(&other) else { continue };
                if other != layer && r >= own {
                    bad.push(format!("src/{}:{}: {layer} uses {other}: {}", rel.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} files checked");
    assert!(bad.is_empty(), "imports from a layer above (or a peer):\n{}", bad.join("\n"));
}

#[test]
fn the_checker_sees_grouped_and_plain_paths() {
    assert_eq!(named_layers("use crate::{game::World, scene::Url};"), ["game", "scene"]);
    assert_eq!(named_layers("let x = crate::render::gfx(); // crate::app"), ["render"]);
}
