//! Reading fields of a parsed Defold message against the field table of its `*_ddf.proto`
//! message: a field the proto does not have is an error (a typo, or a newer Defold), a field it
//! has but Sinew does not use is accepted, and a value of the wrong kind is reported where it
//! was written. Problems are collected, never returned early, so a file's are all found.
use super::node::{Located, Node};
use super::text::{self, Field, Message, Value};
use crate::base::error::LoadError;
use crate::project::json::Pos;

/// Collects the problems of one conversion.
#[derive(Default)]
pub struct Problems(pub Vec<LoadError>);

impl Problems {
    pub fn at(&mut self, at: &Pos, msg: impl Into<String>) {
        self.0.push(LoadError::at(at.resource.clone(), at.line, at.column, msg));
    }

    /// Parse errors of a text (or of an embedded `data:` string).
    pub fn extend(&mut self, errors: Vec<LoadError>) {
        self.0.extend(errors);
    }
}

/// One message being read, named for messages (`an embedded label`).
pub struct Reader<'a> {
    pub msg: &'a Message,
    pub what: &'a str,
}

impl<'a> Reader<'a> {
    /// Checks every field name against `known` (the proto's fields) and that a field that is
    /// not `repeated` is given once.
    pub fn new(msg: &'a Message, what: &'a str, known: &[&str], repeated: &[&str], p: &mut Problems) -> Self {
        let mut seen: Vec<&str> = Vec::new();
        for f in &msg.fields {
            if !known.contains(&f.name.as_str()) {
                p.at(&f.at, format!("unknown field `{}` in {what} (expected {})", f.name, known.join(", ")));
            } else if !repeated.contains(&f.name.as_str()) {
                if seen.contains(&f.name.as_str()) {
                    p.at(&f.at, format!("field `{}` given twice in {what}", f.name));
                }
                seen.push(&f.name);
            }
        }
        Reader { msg, what }
    }

    pub fn field(&self, name: &str) -> Option<&'a Field> {
        self.msg.first(name)
    }

    pub fn all(&self, name: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.msg.all(name)
    }

    /// A string field: its text, position and byte origin (for `data:`).
    pub fn string(&self, name: &str, p: &mut Problems) -> Option<(&'a str, &'a Field)> {
        let f = self.field(name)?;
        match &f.value {
            Value::Str(s, _) => Some((s.as_str(), f)),
            _ => {
                p.at(&f.at, format!("`{name}` in {} must be a string", self.what));
                None
            }
        }
    }

    /// A string that names something; Defold writes `""` for "none".
    pub fn non_empty(&self, name: &str, p: &mut Problems) -> Option<(&'a str, &'a Field)> {
        self.string(name, p).filter(|(s, _)| !s.is_empty())
    }

    pub fn required(&self, name: &str, p: &mut Problems) -> Option<(&'a str, &'a Field)> {
        let s = self.string(name, p);
        if self.field(name).is_none() {
            p.0.push(self.missing(name));
        }
        s
    }

    /// The error for a missing required field: at the message's first field, or the file.
    pub fn missing(&self, name: &str) -> LoadError {
        let msg = format!("{} needs `{name}`", self.what);
        match self.msg.fields.first() {
            Some(f) => LoadError::at(f.at.resource.clone(), f.at.line, f.at.column, msg),
            None => LoadError::new("", msg),
        }
    }

    pub fn number(&self, name: &str, p: &mut Problems) -> Option<(f64, &'a Field)> {
        let f = self.field(name)?;
        number(f, self.what, p).map(|n| (n, f))
    }

    pub fn enum_name(&self, name: &str, p: &mut Problems) -> Option<(&'a str, &'a Field)> {
        let f = self.field(name)?;
        match &f.value {
            Value::Ident(s) => Some((s.as_str(), f)),
            _ => {
                p.at(&f.at, format!("`{name}` in {} must be an enum name", self.what));
                None
            }
        }
    }

    pub fn bool(&self, name: &str, p: &mut Problems) -> Option<(bool, &'a Field)> {
        let f = self.field(name)?;
        let b = match &f.value {
            Value::Ident(s) if s == "true" => Some(true),
            Value::Ident(s) if s == "false" => Some(false),
            Value::Number(n) if n == "1" => Some(true),
            Value::Number(n) if n == "0" => Some(false),
            _ => None,
        };
        if b.is_none() {
            p.at(&f.at, format!("`{name}` in {} must be true or false", self.what));
        }
        b.map(|b| (b, f))
    }

    pub fn message(&self, name: &str, p: &mut Problems) -> Option<(&'a Message, &'a Field)> {
        let f = self.field(name)?;
        message(f, self.what, p).map(|m| (m, f))
    }

    /// A `dmMath` vector message (`position { x: 1 y: 2 }`) with per-axis defaults.
    pub fn vector<const N: usize>(
        &self,
        name: &str,
        defaults: [f32; N],
        p: &mut Problems,
    ) -> Option<([f32; N], &'a Field)> {
        let (m, f) = self.message(name, p)?;
        let axes = ["x", "y", "z", "w"];
        let what = format!("`{name}`");
        let r = Reader::new(m, &what, &axes[..N.max(3)], &[], p);
        let mut out = defaults;
        for (i, slot) in out.iter_mut().enumerate() {
            if let Some((v, at)) = r.number(axes[i], p) {
                // Finite in single precision: 1e39 is a finite f64 and an infinite f32.
                if (v as f32).is_finite() {
                    *slot = v as f32;
                } else {
                    p.at(&at.at, format!("`{name}.{}` must be finite (within ±3.4e38)", axes[i]));
                }
            }
        }
        Some((out, f))
    }
}

pub fn number(f: &Field, what: &str, p: &mut Problems) -> Option<f64> {
    let n = match &f.value {
        Value::Number(s) => s.trim_end_matches(['f', 'F']).parse::<f64>().ok(),
        Value::Ident(s) if s == "inf" => Some(f64::INFINITY),
        Value::Ident(s) if s == "nan" => Some(f64::NAN),
        _ => None,
    };
    if n.is_none() {
        p.at(&f.at, format!("`{}` in {what} must be a number", f.name));
    }
    n
}

pub fn message<'a>(f: &'a Field, what: &str, p: &mut Problems) -> Option<&'a Message> {
    match &f.value {
        Value::Message(m) => Some(m),
        _ => {
            p.at(&f.at, format!("`{}` in {what} must be a message ({{ ... }})", f.name));
            None
        }
    }
}

/// Parses an embedded `data:` string as a message, errors at their place in the outer file.
pub fn embedded(f: &Field, depth: usize, p: &mut Problems) -> Option<Message> {
    let Value::Str(s, origin) = &f.value else {
        p.at(&f.at, "`data` must be a string");
        return None;
    };
    match text::parse_embedded(&f.at.resource, s, origin, depth) {
        Ok(m) => Some(m),
        Err(e) => {
            p.extend(e);
            None
        }
    }
}

/// Builds the JSON-shaped nodes the loader's structs are filled from.
pub struct Obj {
    entries: Vec<(String, Located)>,
    at: Option<Pos>,
}

impl Obj {
    pub fn new(at: Option<&Pos>) -> Self {
        Obj { entries: Vec::new(), at: at.cloned() }
    }
    pub fn put(&mut self, key: &str, node: Node, at: Option<&Pos>) {
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_string(), Located::new(node, at)));
    }
    pub fn put_located(&mut self, key: &str, value: Located) {
        self.entries.retain(|(k, _)| k != key);
        self.entries.push((key.to_string(), value));
    }
    pub fn str(&mut self, key: &str, value: &str, at: Option<&Pos>) {
        self.put(key, Node::Str(value.to_string()), at);
    }
    pub fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Located> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn done(self) -> Located {
        Located { node: Node::Map(self.entries), at: self.at }
    }
}

pub fn numbers(v: &[f32], at: Option<&Pos>) -> Node {
    Node::List(v.iter().map(|&x| Located::new(Node::Num(x as f64), at)).collect())
}
