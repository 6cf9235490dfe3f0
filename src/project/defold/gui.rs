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

/// NodeDesc's fields: (Defold name, Sinew name, kind, field number). The numbers are
/// `gui_ddf.proto`'s: a layout node's `overridden_fields` lists the fields it sets by them.
const NODE: &[(&str, &str, Kind, u32)] = &[
    ("position", "position", Kind::Vector, 1),
    ("rotation", "euler", Kind::Vector, 2),
    ("scale", "scale", Kind::Vector, 3),
    ("size", "size", Kind::Vector, 4),
    ("color", "color", Kind::Vector, 5),
    ("type", "type", Kind::Enum, 6),
    ("blend_mode", "blend_mode", Kind::Enum, 7),
    ("text", "text", Kind::Str, 8),
    ("texture", "texture", Kind::Str, 9),
    ("font", "font", Kind::Str, 10),
    ("id", "id", Kind::Str, 11),
    ("xanchor", "xanchor", Kind::Enum, 12),
    ("yanchor", "yanchor", Kind::Enum, 13),
    ("pivot", "pivot", Kind::Enum, 14),
    ("outline", "outline", Kind::Vector, 15),
    ("shadow", "shadow", Kind::Vector, 16),
    ("adjust_mode", "adjust_mode", Kind::Enum, 17),
    ("line_break", "line_break", Kind::Bool, 18),
    ("parent", "parent", Kind::Str, 19),
    ("layer", "layer", Kind::Str, 20),
    ("inherit_alpha", "inherit_alpha", Kind::Bool, 21),
    ("slice9", "slice9", Kind::Vector, 22),
    ("outerBounds", "outer_bounds", Kind::Enum, 23),
    ("innerRadius", "inner_radius", Kind::Num, 24),
    ("perimeterVertices", "perimeter_vertices", Kind::Num, 25),
    ("pieFillAngle", "pie_fill_angle", Kind::Num, 26),
    ("clipping_mode", "clipping_mode", Kind::Enum, 27),
    ("clipping_visible", "clipping_visible", Kind::Bool, 28),
    ("clipping_inverted", "clipping_inverted", Kind::Bool, 29),
    ("alpha", "alpha", Kind::Num, 30),
    ("outline_alpha", "outline_alpha", Kind::Num, 31),
    ("shadow_alpha", "shadow_alpha", Kind::Num, 32),
    ("overridden_fields", "overridden_fields", Kind::Skip, 33),
    ("template", "template", Kind::Str, 34),
    ("template_node_child", "template_node_child", Kind::Bool, 35),
    ("text_leading", "text_leading", Kind::Num, 36),
    ("text_tracking", "text_tracking", Kind::Num, 37),
    ("size_mode", "size_mode", Kind::Enum, 38),
    ("spine_scene", "spine_scene", Kind::Skip, 39),
    ("spine_default_animation", "spine_default_animation", Kind::Skip, 40),
    ("spine_skin", "spine_skin", Kind::Skip, 41),
    ("spine_node_child", "spine_node_child", Kind::Skip, 42),
    ("particlefx", "particlefx", Kind::Str, 43),
    ("custom_type", "custom_type", Kind::Skip, 44),
    ("enabled", "enabled", Kind::Bool, 45),
    ("visible", "visible", Kind::Bool, 46),
    ("material", "material", Kind::Str, 47),
    ("spine_create_bones", "spine_create_bones", Kind::Skip, 48),
    ("custom_type_name", "custom_type_name", Kind::Skip, 49),
    ("custom_properties", "custom_properties", Kind::Skip, 50),
    ("font_size", "font_size", Kind::Num, 51),
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
            nodes.push(node(p, m, f, false));
        }
    }
    out.put("nodes", Node::List(nodes), None);
    let mut layouts = Vec::new();
    for f in r.all("layouts") {
        let Some(m) = message(f, "a gui scene", p) else { continue };
        let e = Reader::new(m, "a gui layout", &["name", "nodes"], &["nodes"], p);
        let Some((name, at)) = e.required("name", p) else { continue };
        let mut o = Obj::new(Some(&f.at));
        o.str("name", name, Some(&at.value_at));
        let mut nodes = Vec::new();
        for f in e.all("nodes") {
            if let Some(m) = message(f, "a gui layout", p) {
                nodes.push(node(p, m, f, true));
            }
        }
        o.put("nodes", Node::List(nodes), None);
        layouts.push(o.done());
    }
    out.put("layouts", Node::List(layouts), None);
    out.done()
}

/// One NodeDesc. In a layout (`in_layout`) Defold's editor writes every field but means only
/// those its `overridden_fields` numbers list (the rest follow the default layout), so only
/// those and the `id` are kept; a layout node without the list (older files) keeps them all.
fn node(p: &mut Problems, m: &Message, at: &Field, in_layout: bool) -> Located {
    let names: Vec<&str> = NODE.iter().map(|(n, _, _, _)| *n).collect();
    let r = Reader::new(m, "a gui node", &names, &["overridden_fields", "custom_properties"], p);
    let overridden: Vec<u32> =
        r.all("overridden_fields").filter_map(|f| number(f, "a gui node", p)).map(|n| n as u32).collect();
    let keep =
        |name: &str, field: u32| !in_layout || overridden.is_empty() || name == "id" || overridden.contains(&field);
    let mut out = Obj::new(Some(&at.at));
    for f in &r.msg.fields {
        let Some(&(_, to, kind, number_of_field)) = NODE.iter().find(|(n, _, _, _)| *n == f.name) else { continue };
        if !keep(&f.name, number_of_field) {
            continue;
        }
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
    // NodeDesc's `size` is a Vector4 whose fields default to 0, and Defold's editor leaves out
    // what equals the default: a node written without one is 0 x 0 (a container box that
    // draws nothing), not Sinew JSON's 100 x 100. A layout node keeps its scene node's.
    if !in_layout && r.field("size").is_none() {
        out.put("size", numbers(&[0.0; 3], None), None);
    }
    if let Some(f) = r.field("type")
        && let Value::Ident(t) = &f.value
        && matches!(t.as_str(), "TYPE_SPINE" | "TYPE_CUSTOM")
    {
        p.at(&f.at, format!("gui node type {t} is not supported yet"));
    }
    out.done()
}
