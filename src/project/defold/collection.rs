//! `.collection` (`CollectionDesc`) and `.go` (`PrototypeDesc`) of gameobject_ddf.proto, into
//! the JSON shape of Sinew's collection and game object files: Defold's flat instance lists
//! with `children` id lists become nested objects, embedded instances' `data:` strings become
//! inline components, and `component_properties` become component overrides by id.
use super::Cx;
use super::components::{component_file, embedded_component};
use super::node::{Located, Node};
use super::read::{Obj, Problems, Reader, embedded, numbers};
use super::text::{Field, Message};
use crate::project::json::Pos;
use std::collections::{HashMap, HashSet};

const COLLECTION: &[&str] = &[
    "name",
    "instances",
    "collection_instances",
    "scale_along_z",
    "embedded_instances",
    "property_resources",
    "component_types",
];
const COLLECTION_REPEATED: &[&str] =
    &["instances", "collection_instances", "embedded_instances", "property_resources", "component_types"];
const INSTANCE: &[&str] =
    &["id", "prototype", "children", "position", "rotation", "component_properties", "scale", "scale3"];
const EMBEDDED_INSTANCE: &[&str] =
    &["id", "children", "data", "position", "rotation", "component_properties", "scale", "scale3"];
const COLLECTION_INSTANCE: &[&str] =
    &["id", "collection", "position", "rotation", "scale", "scale3", "instance_properties"];
/// `InstancePropertyDesc`: an object inside the instance, and its components' overrides.
const INSTANCE_PROPERTIES: &[&str] = &["id", "properties"];
const PROTOTYPE: &[&str] = &["components", "embedded_components", "property_resources"];
const COMPONENT_PROPERTY: &[&str] = &["id", "properties", "property_decls"];
const PROPERTY: &[&str] = &["id", "value", "type"];

/// An object of the collection before nesting: its JSON fields and its children's ids.
struct Draft {
    id: String,
    at: Pos,
    obj: Obj,
    children: Vec<(String, Pos)>,
}

pub fn collection(cx: &mut Cx, msg: &Message, file: &str) -> Located {
    let p = &mut cx.problems;
    let r = Reader::new(msg, "a collection", COLLECTION, COLLECTION_REPEATED, p);
    let mut out = Obj::new(msg.fields.first().map(|f| &f.at));
    if let Some((name, f)) = r.string("name", &mut cx.problems) {
        out.str("name", name, Some(&f.value_at));
    }
    let mut drafts = Vec::new();
    for f in msg.all("instances") {
        if let Some(d) = instance(cx, f, false) {
            drafts.push(d);
        }
    }
    for f in msg.all("embedded_instances") {
        if let Some(d) = instance(cx, f, true) {
            drafts.push(d);
        }
    }
    let objects = nest(drafts, &mut cx.problems);
    out.put("objects", Node::List(objects), None);
    let mut collections = Vec::new();
    for f in msg.all("collection_instances") {
        if let Some(c) = collection_instance(cx, f) {
            collections.push(c);
        }
    }
    out.put("collections", Node::List(collections), None);
    let _ = file;
    out.done()
}

/// Position, rotation and scale of an instance, in Sinew's field forms.
pub fn placement(r: &Reader, out: &mut Obj, p: &mut Problems) {
    if let Some((v, f)) = r.vector("position", [0.0; 3], p) {
        out.put("position", numbers(&v, Some(&f.value_at)), Some(&f.value_at));
    }
    if let Some((v, f)) = r.vector("rotation", [0.0, 0.0, 0.0, 1.0], p) {
        out.put("rotation", numbers(&v, Some(&f.value_at)), Some(&f.value_at));
    }
    // `scale3` (per axis; an axis left out is 1) wins over the older uniform `scale`.
    if let Some((v, f)) = r.vector("scale3", [1.0; 3], p) {
        out.put("scale", numbers(&v, Some(&f.value_at)), Some(&f.value_at));
    } else if let Some((s, f)) = r.number("scale", p) {
        out.put("scale", numbers(&[s as f32; 3], Some(&f.value_at)), Some(&f.value_at));
    }
}

fn instance(cx: &mut Cx, f: &Field, is_embedded: bool) -> Option<Draft> {
    let what = if is_embedded { "an embedded instance" } else { "an instance" };
    let m = super::read::message(f, what, &mut cx.problems)?;
    let known = if is_embedded { EMBEDDED_INSTANCE } else { INSTANCE };
    let r = Reader::new(m, what, known, &["children", "component_properties"], &mut cx.problems);
    let (id, id_field) = r.required("id", &mut cx.problems)?;
    let mut obj = Obj::new(Some(&f.at));
    obj.str("id", id, Some(&id_field.value_at));
    placement(&r, &mut obj, &mut cx.problems);
    let mut overrides = Vec::new();
    for cp in r.all("component_properties") {
        if let Some(o) = component_properties(cx, cp) {
            overrides.push(o);
        }
    }
    if is_embedded {
        let mut components = Vec::new();
        if let Some(data) = r.field("data") {
            if let Some(go) = embedded(data, cx.depth + 1, &mut cx.problems) {
                cx.depth += 1;
                components = prototype_components(cx, &go);
                cx.depth -= 1;
            }
        } else {
            cx.problems.0.push(r.missing("data"));
        }
        // An embedded object's overrides apply to its own components (there is no prototype).
        for (cid, props) in overrides {
            match components.iter_mut().find(|c| c.0 == cid.0) {
                Some(c) => merge_properties(&mut c.1, props),
                None => cx.problems.at(&cid.1, format!("component_properties: no component '{}' in '{id}'", cid.0)),
            }
        }
        obj.put("components", Node::List(components.into_iter().map(|c| c.1.done()).collect()), None);
    } else {
        if let Some((proto, pf)) = r.required("prototype", &mut cx.problems) {
            obj.str("prototype", proto, Some(&pf.value_at));
        }
        let list = overrides.into_iter().map(override_component).collect();
        obj.put("components", Node::List(list), None);
    }
    let mut children = Vec::new();
    for c in r.all("children") {
        match &c.value {
            super::text::Value::Str(s, _) => children.push((s.clone(), c.at.clone())),
            _ => cx.problems.at(&c.at, "`children` holds ids as strings"),
        }
    }
    Some(Draft { id: id.to_string(), at: id_field.at.clone(), obj, children })
}

/// `component_properties { id: "script" properties { ... } }`: the component id and its
/// `properties` object.
fn component_properties(cx: &mut Cx, f: &Field) -> Option<((String, Pos), Obj)> {
    let m = super::read::message(f, "component_properties", &mut cx.problems)?;
    let r = Reader::new(m, "component_properties", COMPONENT_PROPERTY, &["properties"], &mut cx.problems);
    let (id, idf) = r.required("id", &mut cx.problems)?;
    let props = properties(cx, &r, &f.at);
    Some(((id.to_string(), idf.at.clone()), props))
}

/// A component override by id, `{ "id": ..., "properties": {...} }`, from `component_properties`.
fn override_component(((id, at), props): ((String, Pos), Obj)) -> Located {
    let mut c = Obj::new(Some(&at));
    c.str("id", &id, Some(&at));
    merge_properties(&mut c, props);
    c.done()
}

/// The `properties` of a component (`PropertyDesc`: id, value as text, type) as Sinew's
/// `properties` object, each value in the JSON form its type has there.
pub fn properties(cx: &mut Cx, r: &Reader, at: &Pos) -> Obj {
    let mut out = Obj::new(Some(at));
    for f in r.all("properties") {
        let Some(m) = super::read::message(f, "a property", &mut cx.problems) else { continue };
        let pr = Reader::new(m, "a property", PROPERTY, &[], &mut cx.problems);
        let (Some((id, _)), Some((value, vf)), Some((ty, tf))) = (
            pr.required("id", &mut cx.problems),
            pr.required("value", &mut cx.problems),
            pr.enum_name("type", &mut cx.problems),
        ) else {
            if pr.field("type").is_none() {
                cx.problems.0.push(pr.missing("type"));
            }
            continue;
        };
        let bad = |p: &mut Problems, want: &str| p.at(&vf.at, format!("property '{id}': '{value}' is not {want}"));
        let node = match ty {
            "PROPERTY_TYPE_NUMBER" => match value.trim().parse::<f64>() {
                Ok(n) if n.is_finite() => Node::Num(n),
                _ => {
                    bad(&mut cx.problems, "a number");
                    continue;
                }
            },
            "PROPERTY_TYPE_HASH" => Node::Str(format!("hash:{value}")),
            "PROPERTY_TYPE_URL" => Node::Str(format!("url:{value}")),
            "PROPERTY_TYPE_BOOLEAN" => match value.trim() {
                "true" | "1" => Node::Bool(true),
                "false" | "0" => Node::Bool(false),
                _ => {
                    bad(&mut cx.problems, "true or false");
                    continue;
                }
            },
            "PROPERTY_TYPE_VECTOR3" | "PROPERTY_TYPE_VECTOR4" | "PROPERTY_TYPE_QUAT" => {
                let n = if ty == "PROPERTY_TYPE_VECTOR3" { 3 } else { 4 };
                let parts: Option<Vec<f32>> = value.split(',').map(|s| s.trim().parse::<f32>().ok()).collect();
                match parts {
                    Some(v) if v.len() == n && v.iter().all(|x| x.is_finite()) => numbers(&v, Some(&vf.value_at)),
                    _ => {
                        bad(&mut cx.problems, &format!("{n} numbers separated by commas"));
                        continue;
                    }
                }
            }
            other => {
                cx.problems.at(&tf.at, format!("property '{id}': unknown type {other}"));
                continue;
            }
        };
        out.put(id, node, Some(&vf.value_at));
    }
    out
}

/// Adds `props` (a `properties` object) into component `c`, over what it has.
fn merge_properties(c: &mut Obj, props: Obj) {
    let Node::Map(new) = props.done().node else { return };
    if new.is_empty() {
        return;
    }
    if !c.has("properties") {
        c.put("properties", Node::Map(Vec::new()), None);
    }
    if let Some(Located { node: Node::Map(old), .. }) = c.get_mut("properties") {
        for (k, v) in new {
            old.retain(|(ok, _)| *ok != k);
            old.push((k, v));
        }
    }
}

/// Defold lists every object of a collection flat and names children by id; Sinew nests them.
/// An id named as a child twice, a child id with no object and a cycle are reported.
fn nest(drafts: Vec<Draft>, p: &mut Problems) -> Vec<Located> {
    let ids: HashSet<String> = drafts.iter().map(|d| d.id.clone()).collect();
    let mut parent_of: HashMap<String, String> = HashMap::new();
    for d in &drafts {
        for (c, at) in &d.children {
            if !ids.contains(c) {
                p.at(at, format!("'{}' has a child '{c}' that is not in this collection", d.id));
            } else if let Some(other) = parent_of.get(c) {
                p.at(at, format!("'{c}' is a child of both '{other}' and '{}'", d.id));
            } else {
                parent_of.insert(c.clone(), d.id.clone());
            }
        }
    }
    let mut by_id: HashMap<String, Draft> = HashMap::new();
    let mut order = Vec::new();
    for d in drafts {
        order.push((d.id.clone(), d.at.clone()));
        // A duplicate id keeps its first object here; the loader reports the duplicate.
        if let Some(first) = by_id.get(&d.id) {
            p.at(&d.at, format!("duplicate id '{}' (first at line {})", d.id, first.at.line));
            continue;
        }
        by_id.insert(d.id.clone(), d);
    }
    let mut out = Vec::new();
    for (id, _) in &order {
        if !parent_of.contains_key(id)
            && let Some(node) = build(id, &mut by_id, &parent_of, p, 0)
        {
            out.push(node);
        }
    }
    // What is left is only reachable through a cycle.
    for (id, at) in &order {
        if by_id.contains_key(id) {
            p.at(at, format!("'{id}' is its own ancestor through `children`"));
            by_id.remove(id);
        }
    }
    out
}

fn build(
    id: &str,
    by_id: &mut HashMap<String, Draft>,
    parent_of: &HashMap<String, String>,
    p: &mut Problems,
    depth: usize,
) -> Option<Located> {
    let mut d = by_id.remove(id)?;
    let mut kids = Vec::new();
    for (c, at) in &d.children {
        if parent_of.get(c).map(String::as_str) != Some(id) {
            continue;
        }
        if depth >= crate::project::json::MAX_CHILDREN_DEPTH {
            p.at(at, format!("children nested deeper than {} levels", crate::project::json::MAX_CHILDREN_DEPTH));
            continue;
        }
        if let Some(k) = build(c, by_id, parent_of, p, depth + 1) {
            kids.push(k);
        }
    }
    if !kids.is_empty() {
        d.obj.put("children", Node::List(kids), None);
    }
    Some(d.obj.done())
}

fn collection_instance(cx: &mut Cx, f: &Field) -> Option<Located> {
    let m = super::read::message(f, "a collection instance", &mut cx.problems)?;
    let r = Reader::new(m, "a collection instance", COLLECTION_INSTANCE, &["instance_properties"], &mut cx.problems);
    let (id, idf) = r.required("id", &mut cx.problems)?;
    let mut out = Obj::new(Some(&f.at));
    out.str("id", id, Some(&idf.value_at));
    if let Some((c, cf)) = r.required("collection", &mut cx.problems) {
        out.str("collection", c, Some(&cf.value_at));
    }
    placement(&r, &mut out, &mut cx.problems);
    let mut overrides = Vec::new();
    for ip in r.all("instance_properties") {
        let Some(m) = super::read::message(ip, "instance_properties", &mut cx.problems) else { continue };
        let ir = Reader::new(m, "instance_properties", INSTANCE_PROPERTIES, &["properties"], &mut cx.problems);
        let Some((object, of)) = ir.required("id", &mut cx.problems) else { continue };
        let mut o = Obj::new(Some(&ip.at));
        o.str("id", object, Some(&of.value_at));
        let components = ir.all("properties").filter_map(|cp| component_properties(cx, cp)).map(override_component);
        o.put("components", Node::List(components.collect()), None);
        overrides.push(o.done());
    }
    if !overrides.is_empty() {
        out.put("overrides", Node::List(overrides), None);
    }
    Some(out.done())
}

/// A `.go` file: `{ "components": [...] }`.
pub fn game_object(cx: &mut Cx, msg: &Message) -> Located {
    let components = prototype_components(cx, msg);
    let mut out = Obj::new(msg.fields.first().map(|f| &f.at));
    out.put("components", Node::List(components.into_iter().map(|c| c.1.done()).collect()), None);
    out.done()
}

/// The components of a `PrototypeDesc`, by id, in file order (`components` then
/// `embedded_components`); the ones that cannot be converted are reported and left out.
fn prototype_components(cx: &mut Cx, msg: &Message) -> Vec<(String, Obj)> {
    let r = Reader::new(msg, "a game object", PROTOTYPE, PROTOTYPE, &mut cx.problems);
    let mut out = Vec::new();
    for f in r.all("components") {
        if let Some(c) = component_file(cx, f) {
            out.push(c);
        }
    }
    for f in r.all("embedded_components") {
        if let Some(c) = embedded_component(cx, f) {
            out.push(c);
        }
    }
    out
}
