//! Resource paths (`/main/hero.script`): normalising and resolving relative ones.

/// Normalises a resource path: it must start with `/`; `.` and empty parts are dropped and `..`
/// pops a part. Returns `None` when the path climbs above the project root.
pub fn normalize(path: &str) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// Resolves `rel` against the folder of the resource `base` (for glTF sibling files and the like).
pub fn resolve_relative(base: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return normalize(rel);
    }
    let dir = match base.rfind('/') {
        Some(i) => &base[..=i],
        None => "/",
    };
    normalize(&format!("{dir}{rel}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_refuses_escapes() {
        assert_eq!(normalize("/main//a/./b.script").as_deref(), Some("/main/a/b.script"));
        assert_eq!(normalize("/main/../x.lua").as_deref(), Some("/x.lua"));
        assert_eq!(normalize("/../etc/passwd"), None);
        assert_eq!(normalize("main/x"), None);
        assert_eq!(resolve_relative("/models/a.gltf", "a.bin").as_deref(), Some("/models/a.bin"));
        assert_eq!(resolve_relative("/a.gltf", "../x.bin"), None);
    }
}
