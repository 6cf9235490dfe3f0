//! Defold's `.font` (`font_ddf.proto` FontDesc) as the fields of Sinew's `FontDesc`
//! (`project::font::file`): the same names, numbers as numbers, enum values as written.
use super::Cx;
use super::components::FONT;
use super::node::Node;
use super::read::{Obj, Reader, number};
use super::text::{Message, Value};

/// Fields whose values are strings in `FontDesc` (the others are numbers or flags).
const STRINGS: &[&str] = &["font", "material", "extra_characters", "output_format", "render_mode", "characters"];

pub fn font(cx: &mut Cx, m: &Message) -> super::node::Located {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a font", FONT, &[], p);
    let mut out = Obj::new(m.fields.first().map(|f| &f.at));
    for f in &r.msg.fields {
        let node = match (&f.value, STRINGS.contains(&f.name.as_str())) {
            (Value::Str(s, _), true) => Node::Str(s.clone()),
            (Value::Ident(s), true) => Node::Str(s.to_ascii_lowercase()),
            (Value::Ident(s), false) if s == "true" || s == "false" => Node::Bool(s == "true"),
            (_, true) => {
                p.at(&f.at, format!("`{}` in a font must be a string", f.name));
                continue;
            }
            (_, false) => match number(f, "a font", p) {
                Some(n) if f.name == "all_chars" => Node::Bool(n != 0.0),
                Some(n) => Node::Num(n),
                None => continue,
            },
        };
        out.put(&f.name, node, Some(&f.value_at));
    }
    if r.field("font").is_none() {
        p.0.push(r.missing("font"));
    }
    if r.field("size").is_none() {
        p.0.push(r.missing("size"));
    }
    out.done()
}
