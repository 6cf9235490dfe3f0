//! Defold's `CollisionObjectDesc` (a `.collisionobject` file or an embedded one) as the fields
//! of a Sinew `collisionobject` component: the embedded shapes' slices of the shared `data`
//! array become each shape's own `data`, so `project::physics` checks one form.
use super::Cx;
use super::node::{Located, Node};
use super::read::{Obj, Problems, Reader, numbers};
use super::text::{Field, Message, Value};
use crate::project::physics::MAX_SHAPES;

const COLLISION_OBJECT: &[&str] = &[
    "collision_shape",
    "type",
    "mass",
    "friction",
    "restitution",
    "group",
    "mask",
    "embedded_collision_shape",
    "linear_damping",
    "angular_damping",
    "locked_rotation",
    "bullet",
    "event_collision",
    "event_contact",
    "event_trigger",
];
const COLLISION_SHAPE: &[&str] = &["shapes", "data"];
const SHAPE: &[&str] = &["shape_type", "position", "rotation", "index", "count", "id"];

pub fn collision_object(cx: &mut Cx, m: &Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a collision object", COLLISION_OBJECT, &["mask"], p);
    out.str("type", "collisionobject", None);
    if let Some((t, f)) = r.enum_name("type", p) {
        out.str("collision_type", t, Some(&f.value_at));
    }
    for name in ["mass", "friction", "restitution", "linear_damping", "angular_damping"] {
        if let Some((v, f)) = r.number(name, p) {
            out.put(name, Node::Num(v), Some(&f.value_at));
        }
    }
    for name in ["locked_rotation", "bullet", "event_collision", "event_contact", "event_trigger"] {
        if let Some((v, f)) = r.bool(name, p) {
            out.put(name, Node::Bool(v), Some(&f.value_at));
        }
    }
    if let Some((g, f)) = r.non_empty("group", p) {
        out.str("group", g, Some(&f.value_at));
    }
    let mask: Vec<Located> = r
        .all("mask")
        .filter_map(|f| match &f.value {
            Value::Str(s, _) => Some(Located::new(Node::Str(s.clone()), Some(&f.value_at))),
            _ => {
                p.at(&f.at, "`mask` of a collision object holds group names");
                None
            }
        })
        .collect();
    if let Some(first) = r.field("mask") {
        out.put("mask", Node::List(mask), Some(&first.value_at));
    }
    let named = r.non_empty("collision_shape", p);
    // A tile map as the shape: its tiles' hulls, read with the map (`project::tilemap::collision`).
    let named = match named {
        Some((path, f)) if path.ends_with(".tilemap") => {
            out.str("tilemap", path, Some(&f.value_at));
            None
        }
        other => other,
    };
    let file_shape = named.and_then(|(path, f)| convex_shape(cx.res, path, f, p));
    let Some((shape, sf)) = r.message("embedded_collision_shape", p) else {
        if let Some((o, f)) = file_shape {
            out.put("shapes", Node::List(vec![o]), Some(&f.value_at));
        }
        return;
    };
    let sr = Reader::new(shape, "an embedded collision shape", COLLISION_SHAPE, &["shapes", "data"], p);
    let count = sr.all("shapes").count();
    if count > MAX_SHAPES {
        p.at(&sf.at, format!("more than {MAX_SHAPES} shapes in one collision object ({count})"));
        return;
    }
    let mut data = Vec::new();
    for f in sr.all("data") {
        if let Some(v) = super::read::number(f, "an embedded collision shape", p) {
            data.push(v as f32);
        }
    }
    let mut shapes = Vec::with_capacity(count);
    for f in sr.all("shapes") {
        let Some(m) = super::read::message(f, "a shape", p) else { continue };
        let r = Reader::new(m, "a shape", SHAPE, &[], p);
        let mut o = Obj::new(Some(&f.at));
        if let Some((t, tf)) = r.enum_name("shape_type", p) {
            o.str("shape_type", t, Some(&tf.value_at));
        }
        if let Some((id, idf)) = r.string("id", p).filter(|(id, _)| !id.is_empty()) {
            o.str("id", id, Some(&idf.value_at));
        }
        if let Some((v, vf)) = r.vector::<3>("position", [0.0; 3], p) {
            o.put("position", numbers(&v, Some(&vf.value_at)), Some(&vf.value_at));
        }
        if let Some((v, vf)) = r.vector::<4>("rotation", [0.0, 0.0, 0.0, 1.0], p) {
            o.put("rotation", numbers(&v, Some(&vf.value_at)), Some(&vf.value_at));
        }
        let index = r.number("index", p).map_or(0.0, |(v, _)| v);
        let n = r.number("count", p).map_or(0.0, |(v, _)| v);
        let slice = (index >= 0.0 && n >= 0.0 && index + n <= data.len() as f64)
            .then(|| &data[index as usize..(index + n) as usize]);
        match slice {
            Some(s) => o.put("data", numbers(s, Some(&f.at)), Some(&f.at)),
            None => {
                let msg = format!("shape data index {index} count {n} is outside `data` ({} numbers)", data.len());
                p.at(&f.at, msg);
                continue;
            }
        }
        shapes.push(o.done());
    }
    shapes.extend(file_shape.map(|(o, _)| o));
    out.put("shapes", Node::List(shapes), Some(&sf.value_at));
}

/// A `.convexshape` file (ConvexShape of physics_ddf.proto: `shape_type` and its `data`) as one
/// shape at the object's origin; its problems are reported at their place in that file.
fn convex_shape<'f>(
    res: &crate::project::Resources,
    path: &str,
    f: &'f Field,
    p: &mut Problems,
) -> Option<(Located, &'f Field)> {
    if !path.ends_with(".convexshape") {
        p.at(&f.at, format!("collision shape file '{path}': Sinew reads `.convexshape` and `.tilemap` files"));
        return None;
    }
    let text = match res.read_string(path, Some(&f.at.resource)) {
        Ok(t) => t,
        Err(e) => {
            p.at(&f.at, format!("collision shape file: {e}"));
            return None;
        }
    };
    let m = match super::text::parse(path, &text) {
        Ok(m) => m,
        Err(errors) => {
            p.extend(errors);
            return None;
        }
    };
    let r = Reader::new(&m, "a convex shape", &["shape_type", "data"], &["data"], p);
    let mut o = Obj::new(Some(&f.at));
    if let Some((t, tf)) = r.enum_name("shape_type", p) {
        o.str("shape_type", t, Some(&tf.value_at));
    }
    let data: Vec<f32> =
        r.all("data").filter_map(|d| super::read::number(d, "a convex shape", p)).map(|v| v as f32).collect();
    o.put("data", numbers(&data, Some(&f.value_at)), Some(&f.value_at));
    Some((o.done(), f))
}
