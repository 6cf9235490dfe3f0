//! Defold's `.atlas` and `.tilesource` text rewritten into the Sinew JSON shapes of `files.rs`
//! (the same serde structs fill both), positions kept, Defold fields Sinew has no use for
//! (trimming, the build's hull points) read and dropped, fields the proto lacks refused.
use super::files::{AtlasFile, TileSourceFile};
use crate::base::error::LoadError;
use crate::project::defold::node::{self, Node};
use crate::project::defold::read::{self, Obj, Problems, Reader};
use crate::project::defold::{joined, text};

/// Page limits and rename patterns (`max_page_*`, `rename_patterns`) only shape Defold's
/// build: read and dropped, as Sinew packs every atlas into pages of its own size.
const ATLAS: &[&str] = &[
    "images",
    "animations",
    "margin",
    "extrude_borders",
    "inner_padding",
    "max_page_width",
    "max_page_height",
    "rename_patterns",
];
const IMAGE: &[&str] = &[
    "image",
    "sprite_trim_mode",
    "pivot_x",
    "pivot_y",
    "source_position_x",
    "source_position_y",
    "source_width",
    "source_height",
];
const ANIMATION: &[&str] = &["id", "images", "playback", "fps", "flip_horizontal", "flip_vertical"];
const TILE_SET: &[&str] = &[
    "image",
    "tile_width",
    "tile_height",
    "tile_margin",
    "tile_spacing",
    "collision",
    "material_tag",
    "convex_hulls",
    "convex_hull_points",
    "collision_groups",
    "animations",
    "extrude_borders",
    "inner_padding",
    "sprite_trim_mode",
];
const TILE_ANIMATION: &[&str] =
    &["id", "start_tile", "end_tile", "playback", "fps", "flip_horizontal", "flip_vertical", "cues"];
const CONVEX_HULL: &[&str] = &["index", "count", "collision_group"];
const TILE_REPEATED: &[&str] = &["convex_hulls", "convex_hull_points", "collision_groups", "animations"];

/// How a scalar field is carried over.
#[derive(Clone, Copy)]
enum As {
    Str,
    Num,
    /// An enum constant, kept as its name (the JSON loader reads Defold's names too).
    Enum,
    /// Defold's 0/1 `uint32` flags, Sinew's booleans.
    Flag,
}

fn copy(r: &Reader, fields: &[(&str, As)], out: &mut Obj, p: &mut Problems) {
    for &(name, kind) in fields {
        let Some(f) = r.field(name) else { continue };
        let at = Some(&f.value_at);
        let node = match kind {
            As::Str => r.string(name, p).map(|(s, _)| Node::Str(s.to_string())),
            As::Num => r.number(name, p).map(|(n, _)| Node::Num(n)),
            As::Enum => r.enum_name(name, p).map(|(s, _)| Node::Str(s.to_string())),
            As::Flag => r.number(name, p).map(|(n, _)| Node::Bool(n != 0.0)),
        };
        if let Some(node) = node {
            out.put(name, node, at);
        }
    }
}

fn image(f: &text::Field, p: &mut Problems) -> Option<node::Located> {
    let m = read::message(f, "an atlas", p)?;
    let r = Reader::new(m, "an atlas image", IMAGE, &[], p);
    let mut out = Obj::new(Some(&f.value_at));
    copy(&r, &[("image", As::Str), ("pivot_x", As::Num), ("pivot_y", As::Num)], &mut out, p);
    if r.field("image").is_none() {
        p.0.push(r.missing("image"));
    }
    Some(out.done())
}

fn list(items: Vec<node::Located>, at: &Option<&text::Field>) -> (Node, Option<crate::project::json::Pos>) {
    (Node::List(items), at.map(|f| f.value_at.clone()))
}

fn finish<T: serde::de::DeserializeOwned>(path: &str, out: Obj, p: Problems) -> Result<T, LoadError> {
    if !p.0.is_empty() {
        return Err(joined(p.0));
    }
    node::deserialize(path, out.done())
}

pub(super) fn atlas(path: &str, source: &str) -> Result<AtlasFile, LoadError> {
    let msg = text::parse(path, source).map_err(joined)?;
    let mut p = Problems::default();
    let r = Reader::new(&msg, "an atlas", ATLAS, &["images", "animations"], &mut p);
    let mut out = Obj::new(msg.fields.first().map(|f| &f.at));
    let images: Vec<_> = r.all("images").filter_map(|f| image(f, &mut p)).collect();
    let (node, at) = list(images, &r.field("images"));
    out.put("images", node, at.as_ref());
    let mut animations = Vec::new();
    for f in r.all("animations") {
        let Some(m) = read::message(f, "an atlas", &mut p) else { continue };
        let a = Reader::new(m, "an atlas animation", ANIMATION, &["images"], &mut p);
        let mut o = Obj::new(Some(&f.value_at));
        let fields = [
            ("id", As::Str),
            ("playback", As::Enum),
            ("fps", As::Num),
            ("flip_horizontal", As::Flag),
            ("flip_vertical", As::Flag),
        ];
        copy(&a, &fields, &mut o, &mut p);
        if a.field("id").is_none() {
            p.0.push(a.missing("id"));
        }
        let frames: Vec<_> = a.all("images").filter_map(|f| image(f, &mut p)).collect();
        let (node, at) = list(frames, &a.field("images"));
        o.put("images", node, at.as_ref());
        animations.push(o.done());
    }
    let (node, at) = list(animations, &r.field("animations"));
    out.put("animations", node, at.as_ref());
    copy(&r, &[("margin", As::Num), ("extrude_borders", As::Num), ("inner_padding", As::Num)], &mut out, &mut p);
    finish(path, out, p)
}

pub(super) fn tile_source(path: &str, source: &str) -> Result<TileSourceFile, LoadError> {
    let msg = text::parse(path, source).map_err(joined)?;
    let mut p = Problems::default();
    let r = Reader::new(&msg, "a tile source", TILE_SET, TILE_REPEATED, &mut p);
    let mut out = Obj::new(msg.fields.first().map(|f| &f.at));
    let fields = [
        ("image", As::Str),
        ("tile_width", As::Num),
        ("tile_height", As::Num),
        ("tile_margin", As::Num),
        ("tile_spacing", As::Num),
        ("extrude_borders", As::Num),
        ("inner_padding", As::Num),
        ("collision", As::Str),
    ];
    copy(&r, &fields, &mut out, &mut p);
    let mut hulls = Vec::new();
    for f in r.all("convex_hulls") {
        let Some(m) = read::message(f, "a tile source", &mut p) else { continue };
        let h = Reader::new(m, "a convex hull", CONVEX_HULL, &[], &mut p);
        let mut o = Obj::new(Some(&f.value_at));
        copy(&h, &[("index", As::Num), ("count", As::Num), ("collision_group", As::Str)], &mut o, &mut p);
        hulls.push(o.done());
    }
    let (node, at) = list(hulls, &r.field("convex_hulls"));
    out.put("convex_hulls", node, at.as_ref());
    for name in ["image", "tile_width", "tile_height"] {
        if r.field(name).is_none() {
            p.0.push(r.missing(name));
        }
    }
    let mut animations = Vec::new();
    for f in r.all("animations") {
        let Some(m) = read::message(f, "a tile source", &mut p) else { continue };
        let a = Reader::new(m, "a tile source animation", TILE_ANIMATION, &["cues"], &mut p);
        let mut o = Obj::new(Some(&f.value_at));
        let fields = [
            ("id", As::Str),
            ("start_tile", As::Num),
            ("end_tile", As::Num),
            ("playback", As::Enum),
            ("fps", As::Num),
            ("flip_horizontal", As::Flag),
            ("flip_vertical", As::Flag),
        ];
        copy(&a, &fields, &mut o, &mut p);
        for name in ["id", "start_tile", "end_tile"] {
            if a.field(name).is_none() {
                p.0.push(a.missing(name));
            }
        }
        animations.push(o.done());
    }
    let (node, at) = list(animations, &r.field("animations"));
    out.put("animations", node, at.as_ref());
    finish(path, out, p)
}

const SPRITE: &[&str] = &[
    "tile_set",
    "default_animation",
    "material",
    "blend_mode",
    "slice9",
    "size",
    "size_mode",
    "offset",
    "playback_rate",
    "attributes",
    "textures",
];
const SPRITE_TEXTURE: &[&str] = &["sampler", "texture"];

/// A `.sprite` (Defold's `SpriteDesc`) as the inline fields of a Sinew sprite component: the
/// older `tile_set` or the newer `textures { sampler texture }` (several for a material with
/// several samplers), and Defold's
/// default size mode (auto) made explicit, since a Sinew `size` alone means manual.
pub fn sprite(cx: &mut crate::project::defold::Cx, m: &text::Message, out: &mut Obj) {
    let p = &mut cx.problems;
    let r = Reader::new(m, "a sprite", SPRITE, &["textures", "attributes"], p);
    out.str("type", "sprite", None);
    if let Some((s, f)) = r.non_empty("tile_set", p) {
        out.str("tile_set", s, Some(&f.value_at));
    }
    // One texture is the sprite's atlas; several are Sinew's `textures` map, by sampler.
    let mut textures = Vec::new();
    for f in r.all("textures") {
        let Some(t) = read::message(f, "a sprite", p) else { continue };
        let tr = Reader::new(t, "a sprite texture", SPRITE_TEXTURE, &[], p);
        if let Some((s, tf)) = tr.non_empty("texture", p) {
            let sampler = tr.non_empty("sampler", p).map_or(String::new(), |(n, _)| n.to_string());
            textures.push((sampler, s.to_string(), tf.value_at.clone(), f.at.clone()));
        }
    }
    if !textures.is_empty() && out.has("tile_set") {
        p.at(&textures[0].3, "a sprite names its atlas in `tile_set` or in `textures`, not both");
    } else if let [(_, path, at, _)] = textures.as_slice() {
        out.str("tile_set", path, Some(at));
    } else if !textures.is_empty() {
        let mut map = Obj::new(None);
        for (sampler, path, at, field_at) in &textures {
            if sampler.is_empty() || map.has(sampler) {
                p.at(field_at, "each of a sprite's several textures names its own `sampler`");
            } else {
                map.str(sampler, path, Some(at));
            }
        }
        out.put_located("textures", map.done());
    }
    if let Some((s, f)) = r.non_empty("default_animation", p) {
        out.str("default_animation", s, Some(&f.value_at));
    }
    // The sprite's own values of its material's attributes, as Sinew's `attributes` map.
    let mut attributes = Obj::new(None);
    for f in r.all("attributes") {
        let Some(a) = read::message(f, "a sprite", p) else { continue };
        let ar = Reader::new(a, "a sprite attribute", crate::project::defold::material::ATTRIBUTE, &[], p);
        let Some((name, nf)) = ar.required("name", p) else { continue };
        let v = crate::project::defold::material::attribute_values(&ar, name, p);
        attributes.put(name, read::numbers(&v, Some(&nf.value_at)), Some(&nf.value_at));
    }
    let attributes = attributes.done();
    if matches!(&attributes.node, Node::Map(a) if !a.is_empty()) {
        out.put_located("attributes", attributes);
    }
    if let Some((s, f)) = r.non_empty("material", p) {
        out.str("material", s, Some(&f.value_at));
    }
    copy(&r, &[("blend_mode", As::Enum)], out, p);
    match r.enum_name("size_mode", p) {
        Some((s, f)) => out.str("size_mode", s, Some(&f.value_at)),
        None => out.str("size_mode", "auto", None),
    }
    if let Some((v, f)) = r.vector::<4>("size", [0.0; 4], p) {
        out.put("size", read::numbers(&v[..2], Some(&f.value_at)), Some(&f.value_at));
    }
    // Defold's vector4 is left, top, right, bottom: Sinew's array in the same order.
    if let Some((v, f)) = r.vector::<4>("slice9", [0.0; 4], p) {
        out.put("slice9", read::numbers(&v, Some(&f.value_at)), Some(&f.value_at));
    }
}
