//! Defold's `.display_profiles` (`render_ddf.proto` DisplayProfiles) in the shape
//! `project::display_profiles` reads: the same names, numbers as numbers.
use super::Cx;
use super::node::{Located, Node};
use super::read::{Obj, Reader, message};
use super::text::{Message, Value};

pub fn display_profiles(cx: &mut Cx, m: &Message) -> Located {
    let p = &mut cx.problems;
    let r = Reader::new(m, "display profiles", &["profiles", "auto_layout_selection"], &["profiles"], p);
    let mut out = Obj::new(m.fields.first().map(|f| &f.at));
    if let Some((b, f)) = r.bool("auto_layout_selection", p) {
        out.put("auto_layout_selection", Node::Bool(b), Some(&f.value_at));
    }
    let mut profiles = Vec::new();
    for f in r.all("profiles") {
        let Some(pm) = message(f, "display profiles", p) else { continue };
        let pr = Reader::new(pm, "a display profile", &["name", "qualifiers"], &["qualifiers"], p);
        let mut o = Obj::new(Some(&f.at));
        if let Some((name, at)) = pr.required("name", p) {
            o.str("name", name, Some(&at.value_at));
        }
        let mut qualifiers = Vec::new();
        for q in pr.all("qualifiers") {
            let Some(qm) = message(q, "a display profile", p) else { continue };
            let qr = Reader::new(qm, "a qualifier", &["width", "height", "device_models"], &["device_models"], p);
            let mut qo = Obj::new(Some(&q.at));
            for key in ["width", "height"] {
                match qr.number(key, p) {
                    Some((n, at)) => qo.put(key, Node::Num(n), Some(&at.value_at)),
                    None if qr.field(key).is_none() => p.0.push(qr.missing(key)),
                    None => {}
                }
            }
            let models: Vec<Located> = qr
                .all("device_models")
                .filter_map(|d| match &d.value {
                    Value::Str(s, _) => Some(Located::new(Node::Str(s.clone()), Some(&d.value_at))),
                    _ => None,
                })
                .collect();
            qo.put("device_models", Node::List(models), None);
            qualifiers.push(qo.done());
        }
        o.put("qualifiers", Node::List(qualifiers), None);
        profiles.push(o.done());
    }
    out.put("profiles", Node::List(profiles), None);
    out.done()
}
