//! Resource paths (`/main/hero.script`) and the one error type every loader reports with.
use std::fmt;

/// An error about one resource, printed as `/main/x.collection:3:5: message` so editors can jump to it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub resource: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl LoadError {
    pub fn new(resource: impl Into<String>, message: impl Into<String>) -> Self {
        LoadError { resource: resource.into(), line: None, column: None, message: message.into() }
    }
    pub fn at(resource: impl Into<String>, line: usize, column: usize, message: impl Into<String>) -> Self {
        LoadError { resource: resource.into(), line: Some(line), column: Some(column), message: message.into() }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.resource)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

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

    #[test]
    fn error_display_has_position() {
        let e = LoadError::at("/main/m.collection", 3, 5, "unknown field `posiiton`");
        assert_eq!(e.to_string(), "/main/m.collection:3:5: unknown field `posiiton`");
    }
}
