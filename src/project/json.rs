//! Strict JSON parsing shared by every project file: serde errors become `LoadError`s with the
//! file, line and column, and `Located<T>` remembers where a value was written so errors found
//! after parsing (duplicate ids, missing files, cycles) can still point into the file.
use crate::base::error::LoadError;
use crate::base::path::normalize;
use crate::project::Resources;
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use std::cell::RefCell;
use std::fmt;
use std::io::Read;
use std::marker::PhantomData;

/// Where a value starts: file, 1-based line and 1-based byte column.
#[derive(Debug, Clone, PartialEq)]
pub struct Pos {
    pub resource: String,
    pub line: usize,
    pub column: usize,
}

/// A parsed value plus where it was written. `at` is `None` when parsed outside [`parse`].
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub at: Option<Pos>,
}

impl<T> Located<T> {
    /// An error pointing at this value, or at `fallback` (without a position) when unknown.
    pub fn error(&self, fallback: &str, message: impl Into<String>) -> LoadError {
        match &self.at {
            Some(p) => LoadError::at(p.resource.clone(), p.line, p.column, message),
            None => LoadError::new(fallback, message),
        }
    }

    /// The file this value was written in, or `fallback`.
    pub fn file<'a>(&'a self, fallback: &'a str) -> &'a str {
        self.at.as_ref().map_or(fallback, |p| p.resource.as_str())
    }
}

/// The file being parsed and how many bytes serde_json has pulled from it so far. serde_json
/// exposes no spans, so [`parse`] feeds it one byte at a time and `Located` reads the count.
struct Track {
    resource: String,
    text: String,
    consumed: usize,
    /// Byte offset of every line start, so a position is a binary search, not a rescan of the
    /// file from its start for every value (which made loading quadratic in the file size).
    lines: Vec<usize>,
    /// How deep `children` lists are nested right now (see [`Children`]).
    children_depth: usize,
}

thread_local! {
    static TRACK: RefCell<Option<Track>> = const { RefCell::new(None) };
}

/// Restores the previous tracking state even when parsing fails or unwinds.
struct TrackGuard(Option<Track>);

impl Drop for TrackGuard {
    fn drop(&mut self) {
        let prev = self.0.take();
        TRACK.with_borrow_mut(|t| *t = prev);
    }
}

/// Hands serde_json one byte per read so the consumed count is exact.
struct CountingReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let (Some(slot), Some(&b)) = (buf.first_mut(), self.bytes.get(self.pos)) else {
            return Ok(0);
        };
        *slot = b;
        self.pos += 1;
        let pos = self.pos;
        TRACK.with_borrow_mut(|t| {
            if let Some(t) = t {
                t.consumed = pos;
            }
        });
        Ok(1)
    }
}

/// Parses `text` (the contents of `resource`) strictly into `T`.
pub fn parse<T: DeserializeOwned>(resource: &str, text: &str) -> Result<T, LoadError> {
    // Editors on Windows may start UTF-8 files with a byte order mark; it is not JSON, so it is
    // skipped (positions then count from the character after it, as editors show them).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines = std::iter::once(0).chain(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
    let track = Track {
        resource: resource.to_string(),
        text: text.to_string(),
        consumed: 0,
        lines: lines.collect(),
        children_depth: 0,
    };
    let prev = TRACK.with_borrow_mut(|t| t.replace(track));
    let _guard = TrackGuard(prev);
    let reader = CountingReader { bytes: text.as_bytes(), pos: 0 };
    serde_json::from_reader(reader).map_err(|e| serde_error(resource, &e))
}

/// Reads and parses a resource; a missing file is reported against `referrer` at its position.
pub fn read<T: DeserializeOwned>(
    res: &Resources,
    path: &Located<String>,
    referrer: &str,
) -> Result<(String, T), LoadError> {
    let (norm, text) = read_text(res, path, referrer)?;
    let value = parse_resource(res, &norm, &text)?;
    Ok((norm, value))
}

/// [`parse`], or for a file in Defold's protobuf text format, the same struct filled from it
/// (`project::defold`), so everything after parsing is one path for both formats.
pub fn parse_resource<T: DeserializeOwned>(res: &Resources, resource: &str, text: &str) -> Result<T, LoadError> {
    // Defold's editor saves a game object without components as an empty `.go` file (one is in
    // Defold's own examples): the empty message, in either format a game object with nothing.
    let empty_object = resource.ends_with(".go") && crate::project::defold::is_empty_text(text);
    if empty_object || crate::project::defold::is_protobuf_text(text) {
        return crate::project::defold::parse_as(res, resource, text);
    }
    parse(resource, text)
}

/// Reads a resource as text, returning its normalised path too.
pub fn read_text(res: &Resources, path: &Located<String>, referrer: &str) -> Result<(String, String), LoadError> {
    let norm = resource_path(path, referrer)?;
    let who = path.file(referrer);
    let text = res.read_string(&norm, Some(who)).map_err(|e| place(e, path, who))?;
    Ok((norm, text))
}

/// Adds `path`'s position to an error that `Resources` reported against the referring file.
fn place(e: LoadError, path: &Located<String>, who: &str) -> LoadError {
    match &path.at {
        Some(p) if e.resource == who && e.line.is_none() => LoadError::at(who, p.line, p.column, e.message),
        _ => e,
    }
}

/// Checks a resource path written in a file and normalises it, so bad paths are reported where
/// they were written rather than when something finally reads them.
pub fn resource_path(path: &Located<String>, referrer: &str) -> Result<String, LoadError> {
    let p = &path.value;
    normalize(p).ok_or_else(|| {
        if p.starts_with('/') {
            path.error(referrer, format!("resource path '{p}' escapes the project root"))
        } else {
            path.error(referrer, format!("resource path '{p}' must start with '/'"))
        }
    })
}

/// serde_json's message without its " at line L column C" tail, which `LoadError` prints itself.
pub fn serde_error(resource: &str, e: &serde_json::Error) -> LoadError {
    let full = e.to_string();
    if e.line() == 0 {
        return LoadError::new(resource, full);
    }
    let tail = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&tail).unwrap_or(&full);
    // serde_json gives up at 128 levels of brackets; say what the limit is.
    let msg = if msg == "recursion limit exceeded" { "nested deeper than 128 levels of [ and {" } else { msg };
    LoadError::at(resource, e.line(), e.column(), shorten_quoted(msg))
}

/// `msg` with each name serde quotes in backticks (an unknown field, a variant) cut to its first
/// 64 bytes when over 80: a file's hostile 100 KB key is named, not printed whole.
fn shorten_quoted(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    let mut parts = msg.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (i, part) in parts.enumerate() {
        out.push('`');
        out.push_str(&if i % 2 == 0 { crate::base::error::abbreviated(part, 80) } else { part.into() });
    }
    out
}

/// The deepest `children` nesting a collection may have. serde_json stops at 128 levels of
/// brackets and each level of children takes two, so the limit is checked (and named) first.
pub const MAX_CHILDREN_DEPTH: usize = 60;

/// A `children` list: objects inside objects, refused past [`MAX_CHILDREN_DEPTH`] levels with a
/// message that names the limit instead of serde_json's "recursion limit exceeded".
#[derive(Debug, Clone, PartialEq)]
pub struct Children<T>(pub Vec<T>);

impl<T> Default for Children<T> {
    fn default() -> Self {
        Children(Vec::new())
    }
}

impl<T> std::ops::Deref for Children<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a Children<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Restores the depth count when a `children` list ends, also on error.
struct DepthGuard;

impl Drop for DepthGuard {
    fn drop(&mut self) {
        TRACK.with_borrow_mut(|t| {
            if let Some(t) = t {
                t.children_depth = t.children_depth.saturating_sub(1);
            }
        });
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Children<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let depth = TRACK.with_borrow_mut(|t| {
            t.as_mut().map_or(0, |t| {
                t.children_depth += 1;
                t.children_depth
            })
        });
        let _guard = DepthGuard;
        if depth > MAX_CHILDREN_DEPTH {
            return Err(de::Error::custom(format!("children nested deeper than {MAX_CHILDREN_DEPTH} levels")));
        }
        Vec::<T>::deserialize(d).map(Children)
    }
}

/// `#[serde(default, deserialize_with = "json::position")]`: exactly three numbers, with an error
/// that names the field ("position: expected 3 numbers") instead of "trailing characters".
pub fn position<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f32; 3]>, D::Error> {
    numbers(d, "position")
}

/// `scale`, as [`position`].
pub fn scale<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f32; 3]>, D::Error> {
    numbers(d, "scale")
}

fn numbers<'de, D: Deserializer<'de>, const N: usize>(d: D, field: &'static str) -> Result<Option<[f32; N]>, D::Error> {
    struct V<const N: usize>(&'static str);
    impl<'de, const N: usize> Visitor<'de> for V<N> {
        type Value = [f32; N];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "{}: expected {N} numbers", self.0)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<[f32; N], A::Error> {
            let mut out = [0.0; N];
            let mut n = 0;
            while let Some(v) = seq.next_element::<serde_json::Value>()? {
                match (out.get_mut(n), v.as_f64()) {
                    // A number past f32's range would place the object at infinity.
                    (Some(_), Some(x)) if !(x as f32).is_finite() => {
                        return Err(de::Error::custom(format!(
                            "{}: {x:e} is past the range of a 32-bit float (±3.4e38)",
                            self.0
                        )));
                    }
                    (Some(slot), Some(x)) => *slot = x as f32,
                    _ => return Err(de::Error::custom(format!("{}: expected {N} numbers", self.0))),
                }
                n += 1;
            }
            if n != N {
                return Err(de::Error::custom(format!("{}: expected {N} numbers, got {n}", self.0)));
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V::<N>(field)).map(Some)
}

/// Where the value being deserialized right now starts. serde_json has either just eaten the
/// `:` before it, or has already pulled (peeked) the value's first byte.
fn current_pos() -> Option<Pos> {
    // A Defold file being read (`project::defold::node`) knows each value's position itself.
    if let Some(p) = crate::project::defold::node::current_pos() {
        return Some(p);
    }
    TRACK.with_borrow(|t| {
        let t = t.as_ref()?;
        let bytes = t.text.as_bytes();
        let last = t.consumed.checked_sub(1)?;
        let start = if bytes.get(last) == Some(&b':') {
            let skip = bytes[t.consumed..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            t.consumed + skip
        } else {
            last
        };
        let (line, column) = line_col(&t.lines, start.min(bytes.len()));
        Some(Pos { resource: t.resource.clone(), line, column })
    })
}

/// 1-based line and byte column of `offset`, matching serde_json's own counting. `lines` holds
/// the offset of each line start (the first is 0).
fn line_col(lines: &[usize], offset: usize) -> (usize, usize) {
    let line = lines.partition_point(|&start| start <= offset).max(1);
    let line_start = lines.get(line - 1).copied().unwrap_or(0);
    (line, offset - line_start + 1)
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let at = current_pos();
        let value = T::deserialize(d)?;
        Ok(Located { value, at })
    }
}

/// A JSON object kept in the order it was written (serde_json's `preserve_order` is off, and
/// texture units and property lists should not be reordered). Repeated keys are an error.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(OrderedVisitor(PhantomData))
    }
}

struct OrderedVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for OrderedVisitor<V> {
    type Value = OrderedMap<V>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out: Vec<(String, V)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!("duplicate key '{key}'")));
            }
            let value = map.next_value()?;
            out.push((key, value));
        }
        Ok(OrderedMap(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        a: Located<String>,
        b: Option<Located<[f32; 2]>>,
        #[serde(default)]
        list: Vec<Located<u32>>,
    }

    /// Found by `tests/fuzz.rs`: an unknown key of 2,000 bytes was quoted whole in the error.
    #[test]
    fn a_long_unknown_key_is_quoted_by_its_start() {
        let key = "k".repeat(5000);
        let e = parse::<Probe>("/p.json", &format!(r#"{{ "a": "x", "{key}": 1 }}"#)).unwrap_err();
        let text = e.to_string();
        assert!(text.len() < 600 && text.contains(&format!("`{}… (5000 bytes)`", "k".repeat(64))), "{text}");
        assert!(text.starts_with("/p.json:1:"), "{text}");
    }

    #[test]
    fn located_values_point_at_their_first_character() {
        let text = "{\n  \"a\":   \"x\",\n  \"b\": [1, 2],\n  \"list\": [ 7,\n 8]\n}";
        let p: Probe = parse("/t.json", text).unwrap();
        let at = |l: &Option<Pos>| l.as_ref().map(|p| (p.line, p.column));
        assert_eq!(at(&p.a.at), Some((2, 10)));
        assert_eq!(at(&p.b.unwrap().at), Some((3, 8)));
        assert_eq!(at(&p.list[0].at), Some((4, 13)));
        assert_eq!(at(&p.list[1].at), Some((5, 2)));
    }

    #[test]
    fn errors_carry_line_and_column_once() {
        let e = parse::<Probe>("/t.json", "{\n \"a\": \"x\",\n \"c\": 1}").unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(5)));
        assert!(e.message.starts_with("unknown field `c`"), "{e}");
        assert!(!e.message.contains("at line"), "{e}");
        let e = parse::<OrderedMap<u32>>("/m.json", "{\"x\": 1, \"x\": 2}").unwrap_err();
        assert!(e.message.contains("duplicate key 'x'"), "{e}");
        assert!(e.line.is_some());
    }

    #[test]
    fn positions_after_a_bom_and_deep_in_long_files() {
        let mut text = String::from("\u{feff}{\n  \"list\": [\n");
        for i in 0..2000 {
            text.push_str(&format!("    {i},\n"));
        }
        text.push_str("    7\n  ],\n  \"a\": \"x\"\n}");
        let p: Probe = parse("/t.json", &text).unwrap();
        let at = |l: &Option<Pos>| l.as_ref().map(|p| (p.line, p.column));
        assert_eq!(at(&p.list[0].at), Some((3, 5)));
        assert_eq!(at(&p.list[2000].at), Some((2003, 5)));
        assert_eq!(at(&p.a.at), Some((2005, 8)));
    }

    #[test]
    fn ordered_map_keeps_written_order() {
        let m: OrderedMap<u32> = parse("/m.json", "{\"b\": 1, \"a\": 2}").unwrap();
        assert_eq!(m.0, vec![("b".to_string(), 1), ("a".to_string(), 2)]);
    }
}
