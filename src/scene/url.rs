//! URLs: `[socket:][path][#fragment]`, resolved against the calling script (api.md 6.3).
use crate::base::hash::{Hash, hash_transient, name_of};

/// A resolved address. Zero means "empty" in each part, as in Defold.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Url {
    pub socket: Hash,
    pub path: Hash,
    pub fragment: Hash,
}

/// Who is resolving: the calling script's collection, prefix, game object and component.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub socket: Hash,
    pub prefix: &'a str,
    pub path: Hash,
    pub fragment: Hash,
}

/// Hashes an id path: absolute when it starts with `/`, else relative to the caller's prefix.
pub fn resolve_path(path: &str, prefix: &str) -> Hash {
    if path.starts_with('/') { hash_transient(path) } else { hash_transient(&format!("{prefix}{path}")) }
}

/// Parses a URL string. `.` is the caller's game object, `#` its component, `#x` a component of
/// the caller's game object.
pub fn parse(s: &str, ctx: &Context) -> Result<Url, String> {
    let (socket, rest) = match s.find(':') {
        Some(i) => (Some(&s[..i]), &s[i + 1..]),
        None => (None, s),
    };
    let (path, fragment) = match rest.find('#') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if path.contains(':') || fragment.is_some_and(|f| f.contains(':') || f.contains('#')) {
        return Err(format!("could not parse URL '{s}'"));
    }
    let socket = match socket {
        Some("") | None => ctx.socket,
        Some(name) => hash_transient(name),
    };
    let path_hash = match path {
        "" | "." => ctx.path,
        p => resolve_path(p, ctx.prefix),
    };
    let fragment = match fragment {
        None => 0,
        Some("") if path.is_empty() => ctx.fragment,
        Some("") => 0,
        Some(f) => hash_transient(f),
    };
    if s.is_empty() {
        return Ok(Url { socket: ctx.socket, path: ctx.path, fragment: ctx.fragment });
    }
    Ok(Url { socket, path: path_hash, fragment })
}

/// `main:/go#script`, as `tostring(url)` shows it.
pub fn format(u: &Url) -> String {
    let mut out = String::new();
    if u.socket != 0 {
        out.push_str(&name_of(u.socket));
        out.push(':');
    }
    if u.path != 0 {
        out.push_str(&name_of(u.path));
    }
    if u.fragment != 0 {
        out.push('#');
        out.push_str(&name_of(u.fragment));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::hash::hash_str;

    fn ctx() -> Context<'static> {
        Context {
            socket: hash_str("main"),
            prefix: "/level/",
            path: hash_str("/level/me"),
            fragment: hash_str("script"),
        }
    }

    #[test]
    fn shorthands_and_relative_ids() {
        let c = ctx();
        let me = Url { socket: c.socket, path: c.path, fragment: 0 };
        assert_eq!(parse(".", &c).unwrap(), me);
        assert_eq!(parse("#", &c).unwrap(), Url { fragment: c.fragment, ..me });
        assert_eq!(parse("#model", &c).unwrap(), Url { fragment: hash_str("model"), ..me });
        assert_eq!(parse("door", &c).unwrap().path, hash_str("/level/door"));
        assert_eq!(parse("/door", &c).unwrap().path, hash_str("/door"));
        let u = parse("main:/hero#model", &c).unwrap();
        assert_eq!(u, Url { socket: hash_str("main"), path: hash_str("/hero"), fragment: hash_str("model") });
        assert_eq!(format(&u), "main:/hero#model");
        assert!(parse("a:b:c", &c).is_err());
        assert!(parse("/a#b#c", &c).is_err());
    }
}
