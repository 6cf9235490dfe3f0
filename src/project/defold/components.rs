//! One component of a Defold game object, referenced (`component: "/x.label"`) or embedded
//! (`type: "label"` with a `data:` string), as the inline fields of a Sinew component:
//! `.script`, `.model` (ModelDesc), `.label` (LabelDesc), `.camera` (CameraDesc), `.factory`
//! and `.collectionfactory` (FactoryDesc / CollectionFactoryDesc). Kinds Sinew has not built
//! get one error naming the kind.
use super::Cx;
use super::collection::properties;
use super::node::Node;
use super::read::{Obj, Problems, Reader, embedded, number, numbers};
use super::text::{Field, Message, Value};
use crate::project::json::Pos;

const COMPONENT: &[&str] = &["id", "component", "position", "rotation", "scale", "properties", "property_decls"];
const EMBEDDED_COMPONENT: &[&str] = &["id", "type", "data", "position", "rotation", "scale"];
const LABEL: &[&str] = &[
    "size",
    "scale",
    "color",
    "outline",
    "shadow",
    "leading",
    "tracking",
    "pivot",
    "blend_mode",
    "line_break",
    "text",
    "font",
    "material",
    "style",
    "style_hash",
];
const CAMERA: &[&str] = &[
    "aspect_ratio",
    "fov",
    "near_z",
    "far_z",
    "auto_aspect_ratio",
    "orthographic_projection",
    "orthographic_zoom",
    "orthographic_mode",
];
const FACTORY: &[&str] = &["prototype", "load_dynamically", "dynamic_prototype"];
pub const MODEL: &[&str] = &[
    "mesh",
    "material",
    "textures",
    "skeleton",
    "animations",
    "default_animation",
    "name",
    "materials",
    "create_go_bones",
    // Sinew's own (Defold's ModelDesc has no shadow fields): docs/porting-from-defold.md.
    "cast_shadows",
    "receive_shadows",
    "mesh_name",
    "mesh_index",
];
const MODEL_MATERIAL: &[&str] = &["name", "material", "textures", "attributes"];
const TEXTURE: &[&str] = &["sampler", "texture"];
pub const FONT: &[&str] = &[
    "font",
    "material",
    "size",
    "antialias",
    "alpha",
    "outline_alpha",
    "outline_width",
    "shadow_alpha",
    "shadow_blur",
    "shadow_x",
    "shadow_y",
    "extra_characters",
    "output_format",
    "all_chars",
    "cache_width",
    "cache_height",
    "render_mode",
    "characters",
];

/// Defold's font size when a label's font cannot be read (its built-in `default.font`).
const DEFAULT_FONT_SIZE: f64 = 14.0;

/// Component kinds Defold has and Sinew does not (yet), by file extension / embedded type.
const UNSUPPORTED: &[&str] = &["tilegrid", "spinemodel", "rivemodel", "buffer"];
/// `MeshDesc` (mesh_ddf.proto).
const MESH: &[&str] = &["material", "vertices", "textures", "primitive_type", "position_stream", "normal_stream"];

/// CollectionProxyDesc (gamesys/proto/gamesys/collection_proxy_ddf.proto).
const COLLECTION_PROXY: &[&str] = &["collection", "exclude"];

/// Component files whose content is copied into the collection (the others keep a path and are
/// loaded, and reloaded, by their own kind), by extension: a saved one reloads the collection.
pub const INLINED_FILES: &[&str] = &[
    "label",
    "camera",
    "factory",
    "collectionfactory",
    "collectionproxy",
    "sound",
    "collisionobject",
    "sprite",
    "mesh",
];

/// `components { id: "..." component: "/path.ext" }`.
pub fn component_file(cx: &mut Cx, f: &Field) -> Option<(String, Obj)> {
    let m = super::read::message(f, "a component", &mut cx.problems)?;
    let r = Reader::new(m, "a component", COMPONENT, &["properties"], &mut cx.problems);
    let (id, idf) = r.required("id", &mut cx.problems)?;
    let (path, pf) = r.required("component", &mut cx.problems)?;
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let mut out = Obj::new(Some(&f.at));
    out.str("id", id, Some(&idf.value_at));
    let scale = transform(cx, &r, &mut out, id, ext);
    let props = properties(cx, &r, &f.at);
    if ext != "script" && r.field("properties").is_some() {
        cx.problems.at(&pf.at, format!("component '{id}': properties are only for scripts"));
    }
    match ext {
        "script" => {
            out.str("type", "script", None);
            out.str("script", path, Some(&pf.value_at));
            out.put_located("properties", props.done());
        }
        "model" => {
            out.str("type", "model", None);
            out.str("model", path, Some(&pf.value_at));
        }
        "gui" => {
            out.str("type", "gui", None);
            out.str("gui", path, Some(&pf.value_at));
        }
        "particlefx" => {
            out.str("type", "particlefx", None);
            out.str("particlefx", path, Some(&pf.value_at));
        }
        "tilemap" => {
            out.str("type", "tilemap", None);
            out.str("tilemap", path, Some(&pf.value_at));
        }
        // A sound file as the component itself: Defold's `wavc` component type, a sound with
        // the defaults (ianshk/Hyper-Dot-Defold's jump and coin sounds).
        "wav" | "ogg" => {
            out.str("type", "sound", None);
            out.str("sound", path, Some(&pf.value_at));
        }
        ext if INLINED_FILES.contains(&ext) => {
            let text = cx.read(path, &pf.at)?;
            let parsed = match super::text::parse(path, &text) {
                Ok(m) => m,
                Err(e) => {
                    cx.problems.extend(e);
                    return None;
                }
            };
            fill(cx, ext, &parsed, &mut out, scale);
        }
        other => {
            unsupported(cx, other, &pf.at);
            return None;
        }
    }
    Some((id.to_string(), out))
}

/// `embedded_components { id: "..." type: "label" data: "..." }`.
pub fn embedded_component(cx: &mut Cx, f: &Field) -> Option<(String, Obj)> {
    let m = super::read::message(f, "an embedded component", &mut cx.problems)?;
    let r = Reader::new(m, "an embedded component", EMBEDDED_COMPONENT, &[], &mut cx.problems);
    let (id, idf) = r.required("id", &mut cx.problems)?;
    let (ty, tf) = r.required("type", &mut cx.problems)?;
    if !matches!(
        ty,
        "label"
            | "camera"
            | "factory"
            | "collectionfactory"
            | "collectionproxy"
            | "model"
            | "sound"
            | "collisionobject"
            | "sprite"
            | "ambient_light"
            | "directional_light"
            | "point_light"
            | "spot_light"
            | "mesh"
    ) {
        unsupported(cx, ty, &tf.at);
        return None;
    }
    let mut out = Obj::new(Some(&f.at));
    out.str("id", id, Some(&idf.value_at));
    let scale = transform(cx, &r, &mut out, id, ty);
    let Some(data) = r.field("data") else {
        cx.problems.0.push(r.missing("data"));
        return None;
    };
    let inner = embedded(data, cx.depth + 1, &mut cx.problems)?;
    let before = cx.problems.0.len();
    fill(cx, ty, &inner, &mut out, scale);
    // An empty `data` has no position of its own: what it lacks is reported at the field.
    for e in cx.problems.0.iter_mut().skip(before).filter(|e| e.resource.is_empty()) {
        e.resource.clone_from(&data.at.resource);
        (e.line, e.column) = (Some(data.at.line), Some(data.at.column));
    }
    Some((id.to_string(), out))
}

/// Reports a kind Sinew does not have (once per kind and file: a scene of a hundred sprites
/// needs one line, not a hundred).
fn unsupported(cx: &mut Cx, kind: &str, at: &Pos) {
    let key = format!("{}:{kind}", at.resource);
    if cx.unsupported_seen.contains(&key) {
        return;
    }
    cx.unsupported_seen.push(key);
    let msg = if UNSUPPORTED.contains(&kind) {
        format!("{kind} components are not supported yet")
    } else if kind == "particlefx" || kind == "tilemap" {
        format!("embedded {kind} components are not supported yet: put it in a .{kind} file")
    } else {
        format!(
            "unknown component kind '{kind}' (Sinew reads script, model, label, camera, factory, collectionfactory, sound, collisionobject, sprite, particlefx and tilemap)"
        )
    };
    cx.problems.at(at, msg);
}

/// The component's own position/rotation/scale (engine.md section 2): a model and a sprite
/// keep all three, a label its offset (its scale multiplies the label's own `scale`, and
/// labels face the camera, so a rotation is warned about); other kinds are placed at their
/// game object, with a warning when they have an offset. Returns a label's scale.
fn transform(cx: &mut Cx, r: &Reader, out: &mut Obj, id: &str, kind: &str) -> [f32; 3] {
    let p = &mut cx.problems;
    let position = r.vector::<3>("position", [0.0; 3], p);
    let rotation = r.vector::<4>("rotation", [0.0, 0.0, 0.0, 1.0], p);
    let scale = r.vector::<3>("scale", [1.0; 3], p);
    let mut warn = |f: &Field, what: &str| {
        cx.offsets.push((f.at.clone(), format!("component '{id}' ({kind}) has a {what} of its own")));
    };
    let keep = |out: &mut Obj, name: &str, v: &[f32], f: &Field| {
        out.put(name, numbers(v, Some(&f.value_at)), Some(&f.value_at));
    };
    if let Some((v, f)) = position {
        match kind {
            "model" | "mesh" | "label" | "collisionobject" | "sprite" | "particlefx" | "tilemap" => {
                keep(out, "position", &v, f)
            }
            _ if v != [0.0; 3] => warn(f, "position"),
            _ => {}
        }
    }
    if let Some((v, f)) = rotation {
        match kind {
            "model" | "mesh" | "collisionobject" | "sprite" | "particlefx" | "tilemap" => keep(out, "rotation", &v, f),
            _ if v != [0.0, 0.0, 0.0, 1.0] => warn(f, "rotation"),
            _ => {}
        }
    }
    match scale {
        // A sprite's scale is its `scale` property (Defold's sprite scale is the component's).
        Some((v, f)) if kind == "model" || kind == "mesh" || kind == "sprite" => {
            keep(out, "scale", &v, f);
            [1.0; 3]
        }
        Some((v, _)) if kind == "label" => v,
        Some((v, f)) => {
            if v != [1.0; 3] {
                warn(f, "scale");
            }
            [1.0; 3]
        }
        None => [1.0; 3],
    }
}

/// The inline fields of one component kind from its Defold message.
fn fill(cx: &mut Cx, kind: &str, m: &Message, out: &mut Obj, scale: [f32; 3]) {
    match kind {
        "label" => label(cx, m, out, scale),
        "camera" => camera(cx, m, out),
        "collisionobject" => super::physics::collision_object(cx, m, out),
        "sprite" => crate::project::sprite::defold::sprite(cx, m, out),
        "factory" | "collectionfactory" => {
            let r = Reader::new(m, "a factory", FACTORY, &[], &mut cx.problems);
            out.str("type", kind, None);
            if let Some((p, pf)) = r.required("prototype", &mut cx.problems) {
                out.str("prototype", p, Some(&pf.value_at));
            }
        }
        "sound" => super::sound::sound(cx, m, out),
        "mesh" => mesh(cx, m, out),
        "ambient_light" | "directional_light" | "point_light" | "spot_light" => light(cx, kind, m, out),
        "collectionproxy" => {
            // `exclude` leaves the collection out of a Defold bundle (Live Update); a Sinew
            // bundle packs what a run reaches, so it changes nothing here.
            let r = Reader::new(m, "a collection proxy", COLLECTION_PROXY, &[], &mut cx.problems);
            out.str("type", "collectionproxy", None);
            if let Some((p, pf)) = r.required("collection", &mut cx.problems) {
                out.str("collection", p, Some(&pf.value_at));
            }
        }
        _ => {
            out.str("type", "model", None);
            model(cx, m, out);
        }
    }
}

/// The fields of a `google.protobuf.Struct` (`struct { fields { key: … value { … } } }`), the
/// form Defold's light components keep their data in: key, value message, where.
fn struct_fields(m: &Message) -> Vec<(&str, &Message, &Field)> {
    let Some(Value::Message(st)) = m.first("struct").map(|f| &f.value) else { return Vec::new() };
    st.all("fields")
        .filter_map(|f| {
            let Value::Message(kv) = &f.value else { return None };
            let (Value::Str(k, _), Some(Value::Message(v))) =
                (&kv.first("key")?.value, kv.first("value").map(|x| &x.value))
            else {
                return None;
            };
            Some((k.as_str(), v, kv.first("value")?))
        })
        .collect()
}

/// Defold's light components (`ambient_light`, `directional_light`, `point_light`,
/// `spot_light`: `data { struct { … } }` with `color`, `intensity` and a point or spot light's
/// `range`, a spot light's `inner_cone_angle` and `outer_cone_angle`) as Sinew lights.
fn light(cx: &mut Cx, kind: &str, m: &Message, out: &mut Obj) {
    out.str("type", "light", None);
    out.str("kind", kind.trim_end_matches("_light"), None);
    let Some(data) = m.first("data") else { return };
    let Value::Message(d) = &data.value else {
        cx.problems.at(&data.at, "`data` of a light must be a message");
        return;
    };
    let what = "a light";
    for (key, v, f) in struct_fields(d) {
        match key {
            "color" => {
                let values: Vec<f64> = match v.first("list").map(|l| &l.value) {
                    Some(Value::Message(list)) => list
                        .all("values")
                        .filter_map(|x| match &x.value {
                            Value::Message(n) => n.first("number").and_then(|n| number(n, what, &mut cx.problems)),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                if values.len() < 3 {
                    cx.problems.at(&f.at, "a light's `color` must be a list of 3 numbers");
                    continue;
                }
                let c: Vec<f32> = values[..3].iter().map(|&x| x as f32).collect();
                out.put("color", numbers(&c, Some(&f.value_at)), Some(&f.value_at));
            }
            "intensity" => {
                if let Some(n) = v.first("number").and_then(|n| number(n, what, &mut cx.problems)) {
                    out.put("intensity", Node::Num(n), Some(&f.value_at));
                }
            }
            "range" if matches!(kind, "point_light" | "spot_light") => {
                if let Some(n) = v.first("number").and_then(|n| number(n, what, &mut cx.problems)) {
                    out.put("range", Node::Num(n), Some(&f.value_at));
                }
            }
            "inner_cone_angle" | "outer_cone_angle" if kind == "spot_light" => {
                if let Some(n) = v.first("number").and_then(|n| number(n, what, &mut cx.problems)) {
                    out.put(key, Node::Num(n), Some(&f.value_at));
                }
            }
            _ => {}
        }
    }
}

/// LabelDesc (gamesys/proto/gamesys/label_ddf.proto): the font is loaded as the label's (its
/// face, size, outline and shadow), `size.x` is the wrap width when `line_break` is set, and
/// the label's `scale` times the component's is the `scale` property's first value.
fn label(cx: &mut Cx, m: &Message, out: &mut Obj, scale: [f32; 3]) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a label", LABEL, &[], p);
    out.str("type", "label", None);
    // Defold draws labels in the world: under its 2D camera a unit is a pixel, and a zoom
    // enlarges them.
    out.put("world_size", Node::Bool(true), None);
    if let Some((t, f)) = r.string("text", p) {
        out.str("text", t, Some(&f.value_at));
    }
    // Defold's editor leaves out a colour at its default: white text, black outline and shadow
    // (which show when the font has an outline width or shadow alpha).
    for (name, default) in [("color", [1.0; 4]), ("outline", [0.0, 0.0, 0.0, 1.0]), ("shadow", [0.0, 0.0, 0.0, 1.0])] {
        match r.vector(name, default, p) {
            Some((v, f)) => out.put(name, numbers(&v, Some(&f.value_at)), Some(&f.value_at)),
            None => out.put(name, numbers(&default, None), None),
        }
    }
    if let Some((v, f)) = r.enum_name("pivot", p) {
        out.str("pivot", v, Some(&f.value_at));
    }
    // Vector4 in LabelDesc, as `size`: w is unused.
    let own = r.vector::<4>("scale", [1.0, 1.0, 1.0, 0.0], p).map_or([1.0; 4], |(v, _)| v);
    let combined: Vec<f32> = own.iter().zip(scale).map(|(a, b)| a * b).collect();
    if combined != [1.0; 3] {
        out.put("scale", numbers(&combined, None), r.field("scale").map(|f| &f.value_at));
    }
    if let Some((b, f)) = r.bool("line_break", p) {
        out.put("line_break", Node::Bool(b), Some(&f.value_at));
        if b && let Some((v, sf)) = r.vector::<4>("size", [128.0, 32.0, 0.0, 0.0], p) {
            out.put("width", Node::Num(v[0] as f64), Some(&sf.value_at));
        }
    }
    for name in ["leading", "tracking"] {
        if let Some((v, f)) = r.number(name, p) {
            out.put(name, Node::Num(v), Some(&f.value_at));
        }
    }
    match r.non_empty("font", p) {
        Some((font, f)) => out.str("font", font, Some(&f.value_at)),
        None => out.put("size", Node::Num(DEFAULT_FONT_SIZE), None),
    }
}

fn camera(cx: &mut Cx, m: &Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a camera", CAMERA, &[], p);
    out.str("type", "camera", None);
    let ortho = r.number("orthographic_projection", p).is_some_and(|(v, _)| v != 0.0);
    // The near plane the camera is drawn with, for the far plane's check (near_z comes first).
    let mut near = f64::from(crate::project::collection::DEFAULT_NEAR);
    for (from, to) in [("fov", "fov"), ("near_z", "near"), ("far_z", "far")] {
        if let Some((v, f)) = r.number(from, p) {
            // Defold takes any fov, and games whose render script sets its own projection ship
            // cameras with `fov: 45.0` (meant as degrees, never used): loaded, with a warning.
            let flipped = from == "fov" && !ortho && v.is_finite() && !(v > 0.0 && v < std::f64::consts::PI);
            if flipped {
                let fov = crate::project::collection::DEFAULT_FOV;
                let why = format!(
                    "camera fov {v} is not between 0 and pi radians (Defold's fov is in radians: 45 degrees \
                     is {fov:.4}); Sinew draws this camera with {fov:.4}"
                );
                cx.warnings.push((f.value_at.clone(), why));
                continue;
            }
            // The same for a perspective camera's `near_z: -5.0`, copied from an orthographic one
            // (defold/sample-lights-and-shadows): Defold's projection would be flipped, unused.
            if from == "near_z" && !ortho && v.is_finite() && v <= 0.0 {
                let near = crate::project::collection::DEFAULT_NEAR;
                let why = format!(
                    "camera near_z {v} is not positive, which a perspective camera needs; Sinew draws this \
                     camera with near {near}"
                );
                cx.warnings.push((f.value_at.clone(), why));
                continue;
            }
            // And a far plane not beyond the near one (geekhunger/cavemen-defold's `far_z: -1.0`
            // with `near_z: 1.0`): drawn 1000 units beyond the near plane.
            if from == "far_z" && v.is_finite() && v <= near {
                let far = near + 1000.0;
                let why = format!(
                    "camera far_z {v} is not beyond near_z {near}, which Sinew needs to draw it; Sinew \
                     draws this camera with far {far}"
                );
                cx.warnings.push((f.value_at.clone(), why));
                out.put(to, Node::Num(far), Some(&f.value_at));
                continue;
            }
            if from == "near_z" {
                near = v;
            }
            out.put(to, Node::Num(v), Some(&f.value_at));
        }
    }
    if let Some(f) = r.field("orthographic_projection") {
        out.put("orthographic", Node::Bool(ortho), Some(&f.value_at));
    }
    if let Some((zoom, f)) = r.number("orthographic_zoom", p) {
        out.put("orthographic_zoom", Node::Num(zoom), Some(&f.value_at));
    }
    if let Some((mode, f)) = r.enum_name("orthographic_mode", p) {
        out.str("orthographic_mode", mode, Some(&f.value_at));
    }
    if ortho {
        // Zoom 1 shows one world unit per pixel of the display; the auto modes fit or cover it.
        let (width, height) = cx.display_size();
        out.put("ortho_height", Node::Num(f64::from(height)), None);
        out.put("ortho_width", Node::Num(f64::from(width)), None);
    }
}

/// A `textures` list of texture paths (a mesh's, a model's deprecated one), bound to the
/// material's samplers in order: `tex0`, `tex1`, ...
fn textures_in_order(r: &Reader, what: &str, p: &mut Problems) -> Obj {
    let mut textures = Obj::new(None);
    for (i, f) in r.all("textures").enumerate() {
        match &f.value {
            super::text::Value::Str(t, _) if !t.is_empty() => textures.str(&format!("tex{i}"), t, Some(&f.value_at)),
            _ => p.at(&f.at, format!("`textures` of {what} holds texture paths")),
        }
    }
    textures
}

/// MeshDesc as a model of one primitive: its `mesh` is the buffer with how to read it
/// ([`crate::project::mesh::MeshRef`]), its textures bound to the material's samplers in order.
fn mesh(cx: &mut Cx, m: &Message, out: &mut Obj) {
    use crate::project::mesh::{MeshRef, Primitive};
    let p = &mut cx.problems;
    let r = Reader::new(m, "a mesh", MESH, &["textures"], p);
    out.str("type", "model", None);
    let primitive = match r.enum_name("primitive_type", p) {
        None => Primitive::Triangles,
        Some((name, f)) => Primitive::parse(name).unwrap_or_else(|| {
            p.at(
                &f.value_at,
                "`primitive_type` must be PRIMITIVE_TRIANGLES, PRIMITIVE_TRIANGLE_STRIP or PRIMITIVE_LINES",
            );
            Primitive::Triangles
        }),
    };
    let mut stream = |name: &str, default: &str| r.non_empty(name, p).map_or(default, |(s, _)| s).to_string();
    let (position_stream, normal_stream) = (stream("position_stream", "position"), stream("normal_stream", "normal"));
    if let Some((buffer, f)) = r.required("vertices", p) {
        let key = MeshRef { buffer: buffer.to_string(), primitive, position_stream, normal_stream }.key();
        out.str("mesh", &key, Some(&f.value_at));
    }
    if let Some((mat, f)) = r.required("material", p) {
        out.str("material", mat, Some(&f.value_at));
    }
    let textures = textures_in_order(&r, "a mesh", p).done();
    if matches!(&textures.node, Node::Map(t) if !t.is_empty()) {
        out.put_located("textures", textures);
    }
    // A buffer has no skeleton or animations; bone objects would be none anyway.
    out.put("create_go_bones", Node::Bool(false), None);
}

/// Defold's built-in meshes as the Collada files older projects name: Sinew has the same
/// shapes in Defold's sizes as glTF (docs/porting-from-defold.md) and reads no Collada.
fn builtin_mesh(path: &str) -> Option<&'static str> {
    Some(match path {
        "/builtins/assets/meshes/quad.dae" => "/builtins/assets/gltf/quad.gltf",
        "/builtins/assets/meshes/quad_2x2.dae" => "/builtins/assets/gltf/quad_2x2.gltf",
        "/builtins/assets/meshes/cube.dae" => "/builtins/assets/gltf/cube.gltf",
        "/builtins/assets/meshes/sphere.dae" => "/builtins/assets/gltf/sphere.gltf",
        _ => return None,
    })
}

/// ModelDesc into the `.model` fields Sinew has: one material for the whole model (every entry
/// of Defold's `materials` must name the same one), textures by sampler name.
pub fn model(cx: &mut Cx, m: &Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a model", MODEL, &["textures", "materials"], p);
    if let Some((mesh, f)) = r.required("mesh", p) {
        match builtin_mesh(mesh) {
            Some(gltf) => out.str("mesh", gltf, Some(&f.value_at)),
            None if mesh.to_ascii_lowercase().ends_with(".dae") => p.at(
                &f.value_at,
                format!("'{mesh}' is a Collada model, which Sinew does not read: export it as glTF (.gltf or .glb)"),
            ),
            None => out.str("mesh", mesh, Some(&f.value_at)),
        }
    }
    if let Some((s, f)) = r.non_empty("skeleton", p) {
        out.str("skeleton", s, Some(&f.value_at));
    }
    if let Some((a, f)) = r.non_empty("animations", p) {
        out.put(
            "animations",
            Node::List(vec![super::node::Located::new(Node::Str(a.into()), Some(&f.value_at))]),
            Some(&f.value_at),
        );
    }
    if let Some((a, f)) = r.non_empty("default_animation", p) {
        out.str("default_animation", a, Some(&f.value_at));
    }
    for name in ["create_go_bones", "cast_shadows", "receive_shadows"] {
        if let Some((b, f)) = r.bool(name, p) {
            out.put(name, Node::Bool(b), Some(&f.value_at));
        }
    }
    for name in ["mesh_name", "mesh_index"] {
        if let Some(f) = r.field(name) {
            p.at(&f.at, format!("`{name}` (one mesh of a glTF file) is not supported yet"));
        }
    }
    let mut material: Option<(String, Pos)> = None;
    if let Some((mat, f)) = r.non_empty("material", p) {
        material = Some((mat.to_string(), f.at.clone()));
    }
    let mut textures = textures_in_order(&r, "a model", p);
    for f in r.all("materials") {
        let Some(mm) = super::read::message(f, "a model material", p) else { continue };
        let mr = Reader::new(mm, "a model material", MODEL_MATERIAL, &["textures", "attributes"], p);
        if let Some((mat, mf)) = mr.required("material", p) {
            match &material {
                // Defold's skinned and unskinned built-in materials are one material in Sinew.
                Some((first, _))
                    if crate::project::resources::builtin_alias(first) != crate::project::resources::builtin_alias(mat) =>
                {
                    p.at(
                    &mf.at,
                        format!("a model with several materials ('{first}', '{mat}') is not supported yet: give every glTF material the same one"),
                    )
                }
                Some(_) => {}
                None => material = Some((mat.to_string(), mf.at.clone())),
            }
        }
        if let Some(a) = mr.field("attributes") {
            p.at(&a.at, "material attributes of a model are not supported yet");
        }
        for t in mr.all("textures") {
            let Some(tm) = super::read::message(t, "a texture", p) else { continue };
            let tr = Reader::new(tm, "a texture", TEXTURE, &[], p);
            if let (Some((s, _)), Some((path, tf))) = (tr.required("sampler", p), tr.required("texture", p))
                && !textures.has(s)
                && !path.is_empty()
            {
                textures.str(s, path, Some(&tf.value_at));
            }
        }
    }
    if let Some((mat, at)) = material {
        out.str("material", &mat, Some(&at));
    }
    let textures = textures.done();
    if matches!(&textures.node, Node::Map(t) if !t.is_empty()) {
        out.put_located("textures", textures);
    }
}
