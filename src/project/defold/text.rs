//! Protobuf text format, the way Defold writes `.collection`, `.go`, `.model` and the other
//! component files: `name: "value"` fields, `name { ... }` messages, adjacent string literals
//! joined, C escapes. Every value keeps the line and column it was written at, also inside an
//! embedded `data:` string (a message written as an escaped string inside another), so an error
//! deep in an embedded component still points into the file on disk.
//!
//! Parsing collects every syntax error of a file in one pass: after a bad token it skips to the
//! next line and goes on at the same depth.
use crate::base::error::LoadError;
use crate::project::json::Pos;

/// Deeper nesting than any Defold file has; past it the file is refused, not recursed into.
pub const MAX_DEPTH: usize = 64;
/// A larger text file is refused before it is tokenised (Defold's big files are binary assets).
pub const MAX_TEXT_BYTES: usize = 64 << 20;
/// Errors reported per file: past this many the rest are noise from the first.
const MAX_ERRORS: usize = 50;

/// One field as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// Where the field's name is (errors about the field point here).
    pub at: Pos,
    /// Where its value starts (a value carried on into Sinew's descriptions points here).
    pub value_at: Pos,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string literal (adjacent literals joined), with where each byte of it was written, so a
    /// message parsed from it (`data:`) reports positions in the outer file.
    Str(String, Origin),
    /// A number as written (`1`, `-0.5`, `1e3`, `2.0f`); the reader decides its type.
    Number(String),
    /// An enum value or `true`/`false`/`inf`/`nan`.
    Ident(String),
    Message(Message),
}

/// The fields of a message in file order (repeated fields appear once per value).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    pub fields: Vec<Field>,
}

/// Where the bytes of a text come from: counted in the text itself, or a table of positions in
/// an outer file (one per byte of a decoded string literal).
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Text,
    Map(Vec<(u32, u32)>),
}

impl Message {
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Field> + 'a {
        self.fields.iter().filter(move |f| f.name == name)
    }
    pub fn first(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Parses a whole file. `origin` says where its bytes were written (see [`Origin`]).
pub fn parse(resource: &str, text: &str) -> Result<Message, Vec<LoadError>> {
    parse_in(resource, text, &Origin::Text, 0)
}

/// Parses the text of a string field (`data:`) as a message, positions mapped into the file
/// that holds the string. `depth` counts the messages around it, so nesting data strings cannot
/// get past [`MAX_DEPTH`] either.
pub fn parse_embedded(resource: &str, text: &str, origin: &Origin, depth: usize) -> Result<Message, Vec<LoadError>> {
    parse_in(resource, text, origin, depth)
}

fn parse_in(resource: &str, text: &str, origin: &Origin, depth: usize) -> Result<Message, Vec<LoadError>> {
    // Positions count from after a byte order mark, as editors show them.
    let text = if *origin == Origin::Text { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
    let locate = Locator::new(resource, text, origin);
    if text.len() > MAX_TEXT_BYTES {
        return Err(vec![locate.error(0, format!("file is larger than {} MiB", MAX_TEXT_BYTES >> 20))]);
    }
    let (tokens, mut errors) = lex(text, &locate);
    let mut p = Parser { tokens, i: 0, locate: &locate, errors: Vec::new() };
    let msg = p.message(depth, None);
    errors.append(&mut p.errors);
    errors.sort_by_key(|e| (e.line, e.column));
    errors.truncate(MAX_ERRORS);
    if errors.is_empty() { Ok(msg) } else { Err(errors) }
}

/// Turns byte offsets into file positions.
struct Locator<'a> {
    resource: &'a str,
    origin: &'a Origin,
    /// Start offset of each line (for [`Origin::Text`]).
    lines: Vec<usize>,
    /// The text's length: errors at its end point there.
    len: usize,
}

impl<'a> Locator<'a> {
    fn new(resource: &'a str, text: &str, origin: &'a Origin) -> Self {
        let lines = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Locator { resource, origin, lines, len: text.len() }
    }

    fn pos(&self, offset: usize) -> Pos {
        let (line, column) = match self.origin {
            Origin::Text => {
                let line = self.lines.partition_point(|&s| s <= offset).max(1);
                let start = self.lines.get(line - 1).copied().unwrap_or(0);
                (line, offset - start + 1)
            }
            Origin::Map(map) => {
                // Past the end: the end of the literal (an error at the end of embedded data).
                let i = offset.min(self.len).min(map.len().saturating_sub(1));
                map.get(i).map_or((1, 1), |&(l, c)| (l as usize, c as usize))
            }
        };
        Pos { resource: self.resource.to_string(), line, column }
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> LoadError {
        let p = self.pos(offset);
        LoadError::at(p.resource, p.line, p.column, message)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Number(String),
    /// Decoded bytes of one literal and the source offset of each.
    Str(Vec<u8>, Vec<usize>),
    Punct(u8),
}

struct Token {
    tok: Tok,
    offset: usize,
    /// The line this token starts (counted in the text being parsed): recovery skips to the
    /// next line.
    line: usize,
}

fn lex(text: &str, locate: &Locator) -> (Vec<Token>, Vec<LoadError>) {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' | b'}' | b'<' | b'>' | b':' | b',' | b';' | b'[' | b']' => {
                out.push(Token { tok: Tok::Punct(c), offset: i, line });
                i += 1;
            }
            b'"' | b'\'' => match string(b, i) {
                Ok((bytes, offsets, end)) => {
                    out.push(Token { tok: Tok::Str(bytes, offsets), offset: start, line });
                    i = end;
                }
                Err((at, msg)) => {
                    errors.push(locate.error(at, msg));
                    // An empty value in its place, so the field is not also reported as missing one.
                    out.push(Token { tok: Tok::Str(Vec::new(), Vec::new()), offset: start, line });
                    // The rest of the line belongs to the broken literal.
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
            },
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
                out.push(Token { tok: Tok::Ident(text[start..i].to_string()), offset: start, line });
            }
            c if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => {
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'.'
                        || ((b[i] == b'-' || b[i] == b'+') && matches!(b[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                out.push(Token { tok: Tok::Number(text[start..i].to_string()), offset: start, line });
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                errors.push(locate.error(i, format!("unexpected character '{}'", ch.escape_default())));
                i += ch.len_utf8();
            }
        }
        if errors.len() >= MAX_ERRORS {
            break;
        }
    }
    (out, errors)
}

/// One quoted literal starting at `b[start]`: its decoded bytes, the source offset of each, and
/// the offset after the closing quote.
#[allow(clippy::type_complexity)]
fn string(b: &[u8], start: usize) -> Result<(Vec<u8>, Vec<usize>, usize), (usize, String)> {
    let quote = b[start];
    let mut out = Vec::new();
    let mut at = Vec::new();
    let mut i = start + 1;
    loop {
        let Some(&c) = b.get(i) else {
            return Err((start, "string not closed before the end of the file".into()));
        };
        match c {
            b'\n' => return Err((start, "string not closed on its line".into())),
            c if c == quote => return Ok((out, at, i + 1)),
            b'\\' => {
                let Some(&e) = b.get(i + 1) else {
                    return Err((i, "string not closed before the end of the file".into()));
                };
                let simple = match e {
                    b'n' => Some(b'\n'),
                    b't' => Some(b'\t'),
                    b'r' => Some(b'\r'),
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b'f' => Some(12),
                    b'v' => Some(11),
                    b'\\' | b'\'' | b'"' | b'?' => Some(e),
                    _ => None,
                };
                if let Some(v) = simple {
                    out.push(v);
                    at.push(i);
                    i += 2;
                    continue;
                }
                let (value, len) = match e {
                    b'0'..=b'7' => {
                        let digits = b[i + 1..].iter().take(3).take_while(|d| (b'0'..=b'7').contains(d)).count();
                        let text = std::str::from_utf8(&b[i + 1..i + 1 + digits]).unwrap_or("0");
                        (u32::from_str_radix(text, 8).unwrap_or(256), 1 + digits)
                    }
                    b'x' | b'X' => {
                        let digits = b[i + 2..].iter().take(2).take_while(|d| d.is_ascii_hexdigit()).count();
                        if digits == 0 {
                            return Err((i, "\\x needs hexadecimal digits".into()));
                        }
                        let text = std::str::from_utf8(&b[i + 2..i + 2 + digits]).unwrap_or("0");
                        (u32::from_str_radix(text, 16).unwrap_or(256), 2 + digits)
                    }
                    _ => {
                        let shown = String::from_utf8_lossy(&b[i..(i + 2).min(b.len())]).into_owned();
                        return Err((i, format!("unknown escape '{shown}'")));
                    }
                };
                let Ok(byte) = u8::try_from(value) else {
                    return Err((i, "escaped byte above 255".into()));
                };
                out.push(byte);
                at.push(i);
                i += len;
            }
            c => {
                out.push(c);
                at.push(i);
                i += 1;
            }
        }
    }
}

struct Parser<'a> {
    tokens: Vec<Token>,
    i: usize,
    locate: &'a Locator<'a>,
    errors: Vec<LoadError>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.i).map(|t| &t.tok)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.i).map_or(self.locate.len, |t| t.offset)
    }

    fn fail(&mut self, msg: impl Into<String>) {
        let at = self.offset();
        self.errors.push(self.locate.error(at, msg));
        // Recovery: on to the first token of the next line, but never past a closing brace of
        // this message (its fields end there).
        let line = self.tokens.get(self.i).map_or(usize::MAX, |t| t.line);
        while let Some(t) = self.tokens.get(self.i) {
            if t.line != line || matches!(t.tok, Tok::Punct(b'}' | b'>')) {
                break;
            }
            self.i += 1;
        }
    }

    /// Fields up to `close` (None: the end of the text).
    fn message(&mut self, depth: usize, close: Option<u8>) -> Message {
        let mut msg = Message::default();
        loop {
            if self.errors.len() >= MAX_ERRORS {
                self.i = self.tokens.len();
                return msg;
            }
            let Some(tok) = self.peek().cloned() else {
                if let Some(c) = close {
                    self.fail(format!("missing '{}' before the end of the file", c as char));
                }
                return msg;
            };
            match tok {
                Tok::Punct(c) if Some(c) == close => {
                    self.i += 1;
                    return msg;
                }
                Tok::Punct(b',' | b';') => self.i += 1,
                Tok::Ident(name) => {
                    let at = self.locate.pos(self.offset());
                    self.i += 1;
                    self.field(name, at, depth, &mut msg);
                }
                Tok::Punct(c @ (b'}' | b'>')) => {
                    self.fail(format!("unexpected '{}'", c as char));
                    // A stray closer with nothing open would loop here forever.
                    if self.peek() == Some(&Tok::Punct(c)) {
                        self.i += 1;
                    }
                }
                other => {
                    self.fail(format!("expected a field name, found {}", describe(&other)));
                    if self.tokens.get(self.i).is_some_and(|t| t.tok == other) {
                        self.i += 1;
                    }
                }
            }
        }
    }

    fn field(&mut self, name: String, at: Pos, depth: usize, msg: &mut Message) {
        let colon = self.peek() == Some(&Tok::Punct(b':'));
        if colon {
            self.i += 1;
        }
        match self.peek().cloned() {
            Some(Tok::Punct(open @ (b'{' | b'<'))) => {
                if depth + 1 > MAX_DEPTH {
                    self.fail(format!("messages nested deeper than {MAX_DEPTH} levels"));
                    self.i = self.tokens.len();
                    return;
                }
                let value_at = self.locate.pos(self.offset());
                self.i += 1;
                let close = if open == b'{' { b'}' } else { b'>' };
                let inner = self.message(depth + 1, Some(close));
                msg.fields.push(Field { name, at, value_at, value: Value::Message(inner) });
            }
            Some(Tok::Punct(b'[')) if colon => {
                self.i += 1;
                loop {
                    match self.peek() {
                        Some(Tok::Punct(b']')) => {
                            self.i += 1;
                            break;
                        }
                        Some(Tok::Punct(b',')) => self.i += 1,
                        _ => {
                            let value_at = self.locate.pos(self.offset());
                            match self.scalar() {
                                Some(value) => {
                                    msg.fields.push(Field { name: name.clone(), at: at.clone(), value_at, value })
                                }
                                None => return,
                            }
                        }
                    }
                }
            }
            _ if colon => {
                let value_at = self.locate.pos(self.offset());
                if let Some(value) = self.scalar() {
                    msg.fields.push(Field { name, at, value_at, value });
                }
            }
            _ => self.fail(format!("expected ':' or '{{' after '{name}'")),
        }
    }

    fn scalar(&mut self) -> Option<Value> {
        match self.peek().cloned() {
            Some(Tok::Number(n)) => {
                self.i += 1;
                Some(Value::Number(n))
            }
            Some(Tok::Ident(n)) => {
                self.i += 1;
                Some(Value::Ident(n))
            }
            Some(Tok::Str(..)) => {
                let (mut bytes, mut offsets) = (Vec::new(), Vec::new());
                let start = self.offset();
                while let Some(Tok::Str(b, o)) = self.peek() {
                    bytes.extend_from_slice(b);
                    offsets.extend_from_slice(o);
                    self.i += 1;
                }
                let Ok(text) = String::from_utf8(bytes) else {
                    self.errors.push(self.locate.error(start, "string is not valid UTF-8"));
                    return Some(Value::Str(String::new(), Origin::Text));
                };
                let map = offsets
                    .iter()
                    .map(|&o| {
                        let p = self.locate.pos(o);
                        (p.line as u32, p.column as u32)
                    })
                    .collect();
                Some(Value::Str(text, Origin::Map(map)))
            }
            other => {
                let found = other.as_ref().map_or("the end of the file".to_string(), describe);
                self.fail(format!("expected a value, found {found}"));
                None
            }
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("'{s}'"),
        Tok::Number(s) => format!("number {s}"),
        Tok::Str(..) => "a string".into(),
        Tok::Punct(c) => format!("'{}'", *c as char),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(f: &Field) -> (usize, usize) {
        (f.at.line, f.at.column)
    }

    #[test]
    fn messages_repeated_fields_and_scalars() {
        let text = "name: \"default\"\nscale_along_z: 0\ninstances {\n  id: \"a\"\n  position { x: 1.5 y: -2 z: 3e1 }\n}\ninstances <\n  id: 'b'; children: [\"c\", \"d\"]\n>\npivot: PIVOT_W # comment\n";
        let m = parse("/m.collection", text).unwrap();
        let names: Vec<_> = m.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "scale_along_z", "instances", "instances", "pivot"]);
        let Value::Message(a) = &m.fields[2].value else { panic!("not a message") };
        let Value::Message(pos) = &a.first("position").unwrap().value else { panic!("not a message") };
        let nums: Vec<_> = pos.fields.iter().map(|f| f.value.clone()).collect();
        assert_eq!(nums, ["1.5", "-2", "3e1"].map(|n| Value::Number(n.into())));
        let Value::Message(b) = &m.fields[3].value else { panic!("not a message") };
        assert_eq!(b.all("children").count(), 2);
        assert_eq!(m.fields[4].value, Value::Ident("PIVOT_W".into()));
        assert_eq!(at(&m.fields[2]), (3, 1));
        assert_eq!(at(a.first("position").unwrap()), (5, 3));
    }

    #[test]
    fn adjacent_literals_join_and_escapes_decode() {
        let m = parse("/a.go", "data: \"a\\n\" \"b\\\"c\\\\\\t\\101\\x42\"\n").unwrap();
        let Value::Str(s, _) = &m.fields[0].value else { panic!("not a string") };
        assert_eq!(s, "a\nb\"c\\\tAB");
        let m = parse("/a.go", "text: \"\\303\\251t\\303\\251\"").unwrap();
        let Value::Str(s, _) = &m.fields[0].value else { panic!("not a string") };
        assert_eq!(s, "été");
    }

    #[test]
    fn embedded_data_positions_point_into_the_outer_file() {
        // Line 3 of the file holds `  id: \"script\"`: the embedded field `id` starts at column 4.
        let text = "embedded_instances {\n  data: \"components {\\n\"\n  \"  id: \\\"script\\\"\\n\"\n  \"  bad bad\\n\"\n  \"}\\n\"\n}\n";
        let m = parse("/m.collection", text).unwrap();
        let Value::Message(inst) = &m.fields[0].value else { panic!("not a message") };
        let Value::Str(data, origin) = &inst.first("data").unwrap().value else { panic!("not a string") };
        let errors = parse_embedded("/m.collection", data, origin, 1).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!((errors[0].line, errors[0].column), (Some(4), Some(10)), "{}", errors[0]);
        assert!(errors[0].message.contains("expected ':' or '{' after 'bad'"), "{}", errors[0]);
        // The good part parses with its positions in the outer file too.
        let good = "embedded_instances {\n  data: \"components {\\n\"\n  \"  id: \\\"script\\\"\\n\"\n  \"}\\n\"\n}\n";
        let m = parse("/m.collection", good).unwrap();
        let Value::Message(inst) = &m.fields[0].value else { panic!("not a message") };
        let Value::Str(data, origin) = &inst.first("data").unwrap().value else { panic!("not a string") };
        let go = parse_embedded("/m.collection", data, origin, 1).unwrap();
        let Value::Message(c) = &go.fields[0].value else { panic!("not a message") };
        assert_eq!(at(c.first("id").unwrap()), (3, 6));
        assert_eq!(at(&go.fields[0]), (2, 10));
    }

    #[test]
    fn every_error_of_a_file_in_one_pass() {
        let text = "a: \"x\nb { c: }\nd: \"\\q\"\ne: 1\n}\nf {\n";
        let errors = parse("/bad.go", text).unwrap_err();
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(shown[0].starts_with("/bad.go:1:4: string not closed"), "{shown:?}");
        assert!(shown.iter().any(|e| e.starts_with("/bad.go:2:8: expected a value, found '}'")), "{shown:?}");
        assert!(shown.iter().any(|e| e.starts_with("/bad.go:3:5: unknown escape '\\q'")), "{shown:?}");
        assert!(shown.iter().any(|e| e.starts_with("/bad.go:5:1: unexpected '}'")), "{shown:?}");
        assert!(shown.iter().any(|e| e.contains("missing '}' before the end of the file")), "{shown:?}");
        assert!(parse("/x.go", "a: @").unwrap_err()[0].message.contains("unexpected character '@'"));
        assert!(parse("/x.go", "a: \"\\400\"").unwrap_err()[0].message.contains("above 255"));
        assert!(parse("/x.go", "a: \"\\xZZ\"").unwrap_err()[0].message.contains("hexadecimal"));
        assert!(parse("/x.go", "a: \"\\377\"").unwrap_err()[0].message.contains("UTF-8"));
        assert!(parse("/x.go", "a").unwrap_err()[0].message.contains("expected ':' or '{'"));
        assert!(parse("/x.go", "a:").unwrap_err()[0].message.contains("found the end of the file"));
    }

    #[test]
    fn hostile_depth_and_error_floods_are_bounded() {
        let deep = "a {".repeat(100_000);
        let errors = parse("/deep.go", &deep).unwrap_err();
        assert!(errors.iter().any(|e| e.message.contains("deeper than 64")), "{:?}", errors.first());
        let flood = "}\n".repeat(10_000);
        assert_eq!(parse("/flood.go", &flood).unwrap_err().len(), MAX_ERRORS);
        // Depth carries into embedded data, so nesting data strings cannot recurse past it.
        assert!(parse_embedded("/e.go", "a {}", &Origin::Text, MAX_DEPTH).is_err());
        assert!(parse_embedded("/e.go", "a: 1", &Origin::Text, MAX_DEPTH).is_ok());
    }

    #[test]
    fn empty_and_bom_files() {
        assert_eq!(parse("/e.go", "").unwrap(), Message::default());
        let m = parse("/e.go", "\u{feff}id: \"x\"").unwrap();
        assert_eq!(at(&m.fields[0]), (1, 1));
    }
}
