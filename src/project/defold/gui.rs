//! Defold's `.gui` (`gui_ddf.proto` SceneDesc) in the shape of Sinew's `GuiDesc`
//! (`project::gui`): vector messages become arrays, a node's `rotation` (Euler degrees in
//! Defold's GUI files) becomes `euler`, the pie fields' camelCase names snake_case, enum
//! constants are kept as written (the scene loader reads `XANCHOR_LEFT` and `left` alike).
use super::Cx;
use super::node::{Located, Node};
use super::read::{Obj, Problems, Reader, message, number, numbers};
use super::text::{Field, Message, Value};

const SCENE: &[&str] = &[
    "script",
    "fonts",
    "textures",
    "background_color",
    "nodes",
    "layers",
    "material",
    "layouts",
    "adjust_reference",
    "max_nodes",
    "spine_scenes",
    "particlefxs",
    "resources",
    "materials",
    "max_dynamic_textures",
];
const SCENE_REPEATED: &[&str] =
    &["fonts", "textures", "nodes", "layers", "layouts", "spine_scenes", "particlefxs", "resources", "materials"];

/// How a node field is carried over.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Vector,
    Str,
    Enum,
    Bool,
    Num,
    /// Read, not used.
    Skip,
}

/// NodeDesc's fields: (Defold name, Sinew name, kind).
const NODE: &[(&str, &str, Kind)] = &[
    ("position", "position", Kind::Vector),
    ("rotation", "euler", Kind::Vector),
    ("scale", "scale", Kind::Vector),
    ("size", "size", Kind::Vector),
    ("color", "color", Kind::Vector),
    ("type", "type", Kind::Enum),
    ("blend_mode", "blend_mode", Kind::Enum),
    ("text", "text", Kind::Str),
    ("texture", "texture", Kind::Str),
    ("font", "font", Kind::Str),
    ("id", "id", Kind::Str),
    ("xanchor", "xanchor", Kind::Enum),
    ("yanchor", "yanchor", Kind::Enum),
    ("pivot", "pivot", Kind::Enum),
    ("outline", "outline", Kind::Vector),
    ("shadow", "shadow", Kind::Vector),
    ("adjust_mode", "adjust_mode", Kind::Enum),
    ("line_break", "line_break", Kind::Bool),
    ("parent", "parent", Kind::Str),
    ("layer", "layer", Kind::Str),
    ("inherit_alpha", "inherit_alpha", Kind::Bool),
    ("slice9", "slice9", Kind::Vector),
    ("outerBounds", "outer_bounds", Kind::Enum),
    ("innerRadius", "inner_radius", Kind::Num),
    ("perimeterVertices", "perimeter_vertices", Kind::Num),
    ("pieFillAngle", "pie_fill_angle", Kind::Num),
    ("clipping_mode", "clipping_mode", Kind::Enum),
    ("clipping_visible", "clipping_visible", Kind::Bool),
    ("clipping_inverted", "clipping_inverted", Kind::Bool),
    ("alpha", "alpha", Kind::Num),
    ("outline_alpha", "outline_alpha", Kind::Num),
    ("shadow_alpha", "shadow_alpha", Kind::Num),
    ("overridden_fields", "overridden_fields", Kind::Skip),
    ("template", "template", Kind::Str),
    ("template_node_child", "template_node_child", Kind::Bool),
    ("text_leading", "text_leading", Kind::Num),
    ("text_tracking", "text_tracking", Kind::Num),
    ("size_mode", "size_mode", Kind::Enum),
    ("spine_scene", "spine_scene", Kind::Skip),
    ("spine_default_animation", "spine_default_animation", Kind::Skip),
    ("spine_skin", "spine_skin", Kind::Skip),
    ("spine_node_child", "spine_node_child", Kind::Skip),
    ("particlefx", "particlefx", Kind::Str),
    ("custom_type", "custom_type", Kind::Skip),
    ("enabled", "enabled", Kind::Bool),
    ("visible", "visible", Kind::Bool),
    ("material", "material", Kind::Str),
    ("spine_create_bones", "spine_create_bones", Kind::Skip),
    ("custom_type_name", "custom_type_name", Kind::Skip),
    ("custom_properties", "custom_properties", Kind::Skip),
    ("font_size", "font_size", Kind::Num),
];

pub fn gui(cx: &mut Cx, m: &Message) -> Located {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a gui scene", SCENE, SCENE_REPEATED, p);
    let mut out = Obj::new(m.fields.first().map(|f| &f.at));
    if let Some((s, f)) = r.string("script", p) {
        out.str("script", s, Some(&f.value_at));
    }
    if let Some((s, f)) = r.string("material", p) {
        out.str("material", s, Some(&f.value_at));
    }
    if let Some((s, f)) = r.enum_name("adjust_reference", p) {
        out.str("adjust_reference", s, Some(&f.value_at));
    }
    for (list, field) in
        [("fonts", "font"), ("textures", "texture"), ("particlefxs", "particlefx"), ("materials", "material")]
    {
        let mut items = Vec::new();
        for f in r.all(list) {
            let Some(m) = message(f, "a gui scene", p) else { continue };
            let what = format!("a gui scene's `{list}` entry");
            let e = Reader::new(m, &what, &["name", field], &[], p);
            let mut o = Obj::new(Some(&f.at));
            for key in ["name", field] {
                match e.required(key, p) {
                    Some((s, at)) => o.str(key, s, Some(&at.value_at)),
                    None => continue,
                }
            }
            items.push(o.done());
        }
        out.put(list, Node::List(items), None);
    }
    let mut layers = Vec::new();
    for f in r.all("layers") {
        let Some(m) = message(f, "a gui scene", p) else { continue };
        let e = Reader::new(m, "a gui layer", &["name"], &[], p);
        if let Some((s, at)) = e.required("name", p) {
            let mut o = Obj::new(Some(&f.at));
            o.str("name", s, Some(&at.value_at));
            layers.push(o.done());
        }
    }
    out.put("layers", Node::List(layers), None);
    let mut nodes = Vec::new();
    for f in r.all("nodes") {
        if let Some(m) = message(f, "a gui scene", p) {
            nodes.push(node(p, m, f));
        }
    }
    out.put("nodes", Node::List(nodes), None);
    out.done()
}

fn node(p: &mut Problems, m: &Message, at: &Field) -> Located {
    let names: Vec<&str> = NODE.iter().map(|(n, _, _)| *n).collect();
    let r = Reader::new(m, "a gui node", &names, &["overridden_fields", "custom_properties"], p);
    let mut out = Obj::new(Some(&at.at));
    for f in &r.msg.fields {
        let Some(&(_, to, kind)) = NODE.iter().find(|(n, _, _)| *n == f.name) else { continue };
        let node = match kind {
            Kind::Skip => continue,
            Kind::Vector => {
                let Some(v) = message(f, "a gui node", p) else { continue };
                let what = format!("`{}`", f.name);
                let vr = Reader::new(v, &what, &["x", "y", "z", "w"], &[], p);
                let defaults = match f.name.as_str() {
                    "scale" | "color" => [1.0; 4],
                    "outline" | "shadow" => [0.0, 0.0, 0.0, 1.0],
                    _ => [0.0; 4],
                };
                let mut xyzw = defaults;
                for (i, axis) in ["x", "y", "z", "w"].iter().enumerate() {
                    if let Some((n, _)) = vr.number(axis, p) {
                        xyzw[i] = n as f32;
                    }
                }
                // Defold's rotation is Euler degrees in x, y, z (w unused).
                let len = if f.name == "rotation" || f.name == "position" || f.name == "scale" || f.name == "size" {
                    3
                } else {
                    4
                };
                numbers(&xyzw[..len], Some(&f.value_at))
            }
            Kind::Str => match &f.value {
                Value::Str(s, _) => Node::Str(s.clone()),
                _ => {
                    p.at(&f.at, format!("`{}` in a gui node must be a string", f.name));
                    continue;
                }
            },
            Kind::Enum => match &f.value {
                Value::Ident(s) => Node::Str(s.clone()),
                _ => {
                    p.at(&f.at, format!("`{}` in a gui node must be an enum name", f.name));
                    continue;
                }
            },
            Kind::Bool => match r.bool(&f.name, p) {
                Some((b, _)) => Node::Bool(b),
                None => continue,
            },
            Kind::Num => match number(f, "a gui node", p) {
                Some(n) => Node::Num(n),
                None => continue,
            },
        };
        out.put(to, node, Some(&f.value_at));
    }
    if let Some(f) = r.field("type")
        && let Value::Ident(t) = &f.value
        && matches!(t.as_str(), "TYPE_SPINE" | "TYPE_CUSTOM")
    {
        p.at(&f.at, format!("gui node type {t} is not supported yet"));
    }
    out.done()
}
