//! A Defold file rewritten into the shape of Sinew's JSON (field names, nesting, value forms)
//! and handed to the same serde structs the JSON loader fills, so validation, defaults and
//! every check after parsing exist once. Each value keeps the position it was written at in
//! the Defold file: `json::Located` reads it from here while a node is deserialized.
use crate::base::error::LoadError;
use crate::project::json::Pos;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Located>),
    Map(Vec<(String, Located)>),
}

/// A node and where it was written (None for values Sinew made up, such as a `type`).
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub node: Node,
    pub at: Option<Pos>,
}

impl Located {
    pub fn new(node: Node, at: Option<&Pos>) -> Self {
        Located { node, at: at.cloned() }
    }
}

thread_local! {
    /// The position of the node being deserialized right now (see `json::current_pos`).
    static CURRENT: RefCell<Option<Pos>> = const { RefCell::new(None) };
}

/// Where the node being deserialized was written, while [`deserialize`] runs.
pub fn current_pos() -> Option<Pos> {
    CURRENT.with_borrow(|c| c.clone())
}

/// Clears the position when deserializing ends, also on error.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        CURRENT.with_borrow_mut(|c| *c = None);
    }
}

fn set_current(at: &Option<Pos>) {
    CURRENT.with_borrow_mut(|c| c.clone_from(at));
}

/// Fills `T` from `root` as if it were the JSON of `resource`.
pub fn deserialize<T: DeserializeOwned>(resource: &str, root: Located) -> Result<T, LoadError> {
    let _guard = Guard;
    let at = root.at.clone();
    set_current(&at);
    T::deserialize(NodeDe(root)).map_err(|e| {
        let at = e.at.or(at);
        match at {
            Some(p) => LoadError::at(p.resource, p.line, p.column, e.msg),
            None => LoadError::new(resource, e.msg),
        }
    })
}

#[derive(Debug)]
pub struct Error {
    msg: String,
    at: Option<Pos>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error { msg: msg.to_string(), at: None }
    }
}

/// An error without a position gets the one of the value it came from.
fn placed(e: Error, at: &Option<Pos>) -> Error {
    Error { at: e.at.or_else(|| at.clone()), msg: e.msg }
}

struct NodeDe(Located);

impl<'de> de::Deserializer<'de> for NodeDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let at = self.0.at;
        let r = match self.0.node {
            Node::Bool(b) => v.visit_bool(b),
            Node::Num(n) => v.visit_f64(n),
            Node::Str(s) => v.visit_string(s),
            Node::List(items) => v.visit_seq(Seq { items: items.into_iter() }),
            Node::Map(entries) => v.visit_map(Map { entries: entries.into_iter(), value: None }),
        };
        r.map_err(|e| placed(e, &at))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_some(self)
    }

    // Integers are asked for by type: serde refuses an f64 for a u32 field.
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0.node {
            Node::Num(n) if n >= 0.0 && n <= u32::MAX as f64 && n.fract() == 0.0 => v.visit_u32(n as u32),
            _ => self.deserialize_any(v),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        let at = self.0.at.clone();
        match self.0.node {
            Node::Str(s) => v.visit_enum(s.into_deserializer()).map_err(|e: Error| placed(e, &at)),
            _ => self.deserialize_any(v),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

struct Seq {
    items: std::vec::IntoIter<Located>,
}

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.next() else { return Ok(None) };
        let at = item.at.clone();
        set_current(&at);
        seed.deserialize(NodeDe(item)).map(Some).map_err(|e| placed(e, &at))
    }
}

struct Map {
    entries: std::vec::IntoIter<(String, Located)>,
    value: Option<Located>,
}

impl<'de> MapAccess<'de> for Map {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        let at = value.at.clone();
        self.value = Some(value);
        seed.deserialize(key.into_deserializer()).map(Some).map_err(|e: Error| placed(e, &at))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some(value) = self.value.take() else { return Err(de::Error::custom("value without a key")) };
        let at = value.at.clone();
        set_current(&at);
        seed.deserialize(NodeDe(value)).map_err(|e| placed(e, &at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::json;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        a: json::Located<String>,
        n: Option<u32>,
        #[serde(default)]
        list: Vec<json::Located<f32>>,
    }

    fn pos(line: usize, column: usize) -> Option<Pos> {
        Some(Pos { resource: "/p.go".into(), line, column })
    }

    #[test]
    fn located_values_get_the_defold_positions() {
        let root = Located {
            node: Node::Map(vec![
                ("a".into(), Located { node: Node::Str("x".into()), at: pos(2, 5) }),
                ("n".into(), Located { node: Node::Num(3.0), at: pos(3, 1) }),
                (
                    "list".into(),
                    Located { node: Node::List(vec![Located { node: Node::Num(1.5), at: pos(4, 9) }]), at: pos(4, 1) },
                ),
            ]),
            at: pos(1, 1),
        };
        let p: Probe = deserialize("/p.go", root).unwrap();
        assert_eq!(p.a.value, "x");
        assert_eq!(p.a.at, pos(2, 5));
        assert_eq!(p.n, Some(3));
        assert_eq!(p.list[0].at, pos(4, 9));
        assert_eq!(current_pos(), None, "the position is cleared afterwards");
    }

    #[test]
    fn errors_point_at_the_value() {
        let root = Located {
            node: Node::Map(vec![
                ("a".into(), Located { node: Node::Str("x".into()), at: pos(2, 5) }),
                ("zz".into(), Located { node: Node::Num(1.0), at: pos(7, 3) }),
            ]),
            at: pos(1, 1),
        };
        let e = deserialize::<Probe>("/p.go", root).unwrap_err();
        assert_eq!(e.to_string().split(": ").next(), Some("/p.go:7:3"), "{e}");
        assert!(e.message.contains("unknown field `zz`"), "{e}");
        let root = Located {
            node: Node::Map(vec![("a".into(), Located { node: Node::Num(1.0), at: pos(2, 5) })]),
            at: pos(1, 1),
        };
        let e = deserialize::<Probe>("/p.go", root).unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(5)), "{e}");
    }
}
