//! FFI endpoints of the `gui` namespace: node lookup, properties, text metrics, picking, new
//! nodes, render order. Nodes are (instance, node index) pairs; the Lua side (`lua/gui.lua`)
//! wraps them in node handles and checks arguments.
use super::types::V4;
use super::{Ctx, bytes, put, world_status};
use crate::game::World;
use crate::game::gui::GuiInstance;
use crate::project::font::TextStyle;
use crate::project::font::file::Font;
use crate::project::gui::{AdjustMode, BlendMode, GuiNode, NodeKind, PieBounds, XAnchor, YAnchor};
use crate::project::types::Pivot;
use crate::scene::ComponentRef;
use crate::anim::{AnimError, Easing, Element, Key, MAX_TWEENS, Playback, Spec, Target};
use crate::script::boundary::{OK, fail};
use glam::{Quat, Vec3};
use std::ffi::c_char;

/// The tween-kernel component of every `gui.animate` (a value no hash of a name takes in
/// practice: the top bit pattern of "gui tweens").
const GUI_TWEENS: u64 = 0x6775_695f_7477_6e73;

/// The tween key property of element `axis` (7: the whole property) of a node property.
fn tween_property(inst: u32, node: u32, which: u8, axis: u8) -> u64 {
    (u64::from(inst) << 40) | (u64::from(node) << 8) | (u64::from(which) << 4) | u64::from(axis) | (1 << 63)
}

/// Text set by scripts is at most this long (a HUD line, not a book).
pub const MAX_GUI_TEXT: usize = 1 << 16;
/// Nodes a script may add to one scene.
pub const MAX_NEW_NODES: usize = 16384;

/// The `which` of `gui_get`/`gui_set`: declared where the game reads node values by it.
pub use crate::game::gui::which;

/// `gui_resource_get`/`gui_resource_set`'s list: a gui's `fonts` or `textures` (Lua gets them
/// as `K.GUI_FONTS`, `K.GUI_TEXTURES`).
pub mod resource_list {
    pub const FONTS: i32 = 0;
    pub const TEXTURES: i32 = 1;
    pub const MATERIALS: i32 = 2;
}

/// The `which` of `gui_get_flag`/`gui_set_flag`.
pub mod flag {
    pub const ENABLED: i32 = 0;
    pub const VISIBLE: i32 = 1;
    pub const INHERIT_ALPHA: i32 = 2;
    pub const LINE_BREAK: i32 = 3;
    pub const CLIPPING_VISIBLE: i32 = 4;
    pub const CLIPPING_INVERTED: i32 = 5;
}

/// Defold's `gui.*` enum constants (gui_ddf.proto's enums), the one list: Lua's `gui` table gets
/// them from here (`R.gui_constants`), and a setter accepts what [`set_choice`] takes.
pub const CONSTANTS: &[(&str, i32)] = &[
    ("PIVOT_CENTER", 0),
    ("PIVOT_N", 1),
    ("PIVOT_NE", 2),
    ("PIVOT_E", 3),
    ("PIVOT_SE", 4),
    ("PIVOT_S", 5),
    ("PIVOT_SW", 6),
    ("PIVOT_W", 7),
    ("PIVOT_NW", 8),
    ("ANCHOR_NONE", 0),
    ("ANCHOR_LEFT", 1),
    ("ANCHOR_RIGHT", 2),
    ("ANCHOR_TOP", 1),
    ("ANCHOR_BOTTOM", 2),
    ("ADJUST_FIT", 0),
    ("ADJUST_ZOOM", 1),
    ("ADJUST_STRETCH", 2),
    ("BLEND_ALPHA", 0),
    ("BLEND_ADD", 1),
    ("BLEND_ADD_ALPHA", 2),
    ("BLEND_MULT", 3),
    ("BLEND_SCREEN", 4),
    ("CLIPPING_MODE_NONE", 0),
    ("CLIPPING_MODE_STENCIL", 2),
    ("SIZE_MODE_MANUAL", 0),
    ("SIZE_MODE_AUTO", 1),
    ("PIEBOUNDS_RECTANGLE", 0),
    ("PIEBOUNDS_ELLIPSE", 1),
    // `gui.show_keyboard`'s types (dmHID's numbers); a desktop has no on-screen keyboard.
    ("KEYBOARD_TYPE_DEFAULT", 0),
    ("KEYBOARD_TYPE_NUMBER_PAD", 1),
    ("KEYBOARD_TYPE_EMAIL", 2),
    ("KEYBOARD_TYPE_PASSWORD", 3),
];

/// The `which` of `gui_get_enum`/`gui_set_enum`; values are Defold's `gui.*` constants.
pub mod choice {
    pub const PIVOT: i32 = 0;
    pub const XANCHOR: i32 = 1;
    pub const YANCHOR: i32 = 2;
    pub const ADJUST_MODE: i32 = 3;
    pub const BLEND_MODE: i32 = 4;
    pub const CLIPPING_MODE: i32 = 5;
    pub const SIZE_MODE: i32 = 6;
    /// A pie node's `outer_bounds`.
    pub const OUTER_BOUNDS: i32 = 7;
}

/// The `which` of `gui_get_name`/`gui_set_name`.
pub mod name {
    pub const ID: i32 = 0;
    pub const FONT: i32 = 1;
    pub const TEXTURE: i32 = 2;
    pub const LAYER: i32 = 3;
    pub const FLIPBOOK: i32 = 4;
    /// A particle node's effect (a name in the scene's `particlefxs`).
    pub const PARTICLEFX: i32 = 5;
    /// A box or pie node's material (a name in the scene's `materials`; "" the scene's own).
    pub const MATERIAL: i32 = 6;
}

/// The `kind` of `gui_new_node` (`gui.new_*_node`).
pub mod new_kind {
    pub const BOX: i32 = 0;
    pub const TEXT: i32 = 1;
    pub const PIE: i32 = 2;
    /// Its `text` names the effect.
    pub const PARTICLEFX: i32 = 3;
}

/// Defold's `gui.PIVOT_*` order: `PIVOT_CENTER` 0, then N, NE, E, SE, S, SW, W, NW.
const PIVOTS: [Pivot; 9] =
    [Pivot::Center, Pivot::N, Pivot::NE, Pivot::E, Pivot::SE, Pivot::S, Pivot::SW, Pivot::W, Pivot::NW];

/// A node's value of an enum property as Defold's constant.
fn get_choice(n: &GuiNode, which: i32) -> Result<i32, String> {
    Ok(match which {
        choice::PIVOT => PIVOTS.iter().position(|&p| p == n.pivot).unwrap_or(0) as i32,
        choice::XANCHOR => match n.xanchor {
            XAnchor::None => 0,
            XAnchor::Left => 1,
            XAnchor::Right => 2,
        },
        choice::YANCHOR => match n.yanchor {
            YAnchor::None => 0,
            YAnchor::Top => 1,
            YAnchor::Bottom => 2,
        },
        choice::ADJUST_MODE => match n.adjust_mode {
            AdjustMode::Fit => 0,
            AdjustMode::Zoom => 1,
            AdjustMode::Stretch => 2,
        },
        choice::BLEND_MODE => match n.blend {
            BlendMode::Alpha => 0,
            BlendMode::Add => 1,
            BlendMode::Mult => 3,
            BlendMode::Screen => 4,
        },
        choice::CLIPPING_MODE => {
            if n.clipping {
                2
            } else {
                0
            }
        }
        choice::SIZE_MODE => i32::from(n.size_auto),
        choice::OUTER_BOUNDS => match n.outer_bounds {
            PieBounds::Rectangle => 0,
            PieBounds::Ellipse => 1,
        },
        _ => return Err(format!("no gui enum property {which}")),
    })
}

/// Sets an enum property from Defold's constant; an unknown value is refused, naming it.
fn set_choice(n: &mut GuiNode, which: i32, v: i32) -> Result<(), String> {
    let bad = || Err(format!("unknown value {v}"));
    match which {
        choice::PIVOT => match PIVOTS.get(v as usize) {
            Some(&p) if v >= 0 => n.pivot = p,
            _ => return bad(),
        },
        choice::XANCHOR => {
            n.xanchor = match v {
                0 => XAnchor::None,
                1 => XAnchor::Left,
                2 => XAnchor::Right,
                _ => return bad(),
            }
        }
        choice::YANCHOR => {
            n.yanchor = match v {
                0 => YAnchor::None,
                1 => YAnchor::Top,
                2 => YAnchor::Bottom,
                _ => return bad(),
            }
        }
        choice::ADJUST_MODE => {
            n.adjust_mode = match v {
                0 => AdjustMode::Fit,
                1 => AdjustMode::Zoom,
                2 => AdjustMode::Stretch,
                _ => return bad(),
            }
        }
        choice::BLEND_MODE => {
            n.blend = match v {
                0 => BlendMode::Alpha,
                // BLEND_ADD_ALPHA draws as BLEND_ADD (as the scene loader reads it).
                1 | 2 => BlendMode::Add,
                3 => BlendMode::Mult,
                4 => BlendMode::Screen,
                _ => return bad(),
            }
        }
        choice::CLIPPING_MODE => {
            n.clipping = match v {
                0 => false,
                2 => true,
                _ => return bad(),
            }
        }
        choice::OUTER_BOUNDS => {
            n.outer_bounds = match v {
                0 => PieBounds::Rectangle,
                1 => PieBounds::Ellipse,
                _ => return bad(),
            }
        }
        choice::SIZE_MODE => {
            n.size_auto = match v {
                0 => false,
                1 => true,
                _ => return bad(),
            }
        }
        _ => return Err(format!("no gui enum property {which}")),
    }
    Ok(())
}

/// The `op` of `gui_flipbook`.
pub mod flipbook_op {
    pub const CANCEL: i32 = 0;
    pub const GET_CURSOR: i32 = 1;
    pub const SET_CURSOR: i32 = 2;
    pub const GET_RATE: i32 = 3;
    pub const SET_RATE: i32 = 4;
}

/// The name a node shows for `which` ([`name`]): its id, font, texture (the atlas's or image's
/// name in the scene), layer, or flipbook (the id of the atlas animation it shows).
fn get_name(g: &GuiInstance, n: &GuiNode, which: i32) -> Result<String, String> {
    let image = n.texture.and_then(|t| g.scene.images.get(t));
    Ok(match which {
        name::ID => n.id.clone(),
        name::FONT => n.font.and_then(|f| g.scene.fonts.get(f)).map_or_else(String::new, |(name, _)| name.clone()),
        name::TEXTURE => image.map_or_else(String::new, |img| img.name.clone()),
        name::FLIPBOOK => image
            .and_then(|img| img.atlas.as_ref()?.animations.get(n.animation? as usize))
            .map_or_else(String::new, |a| a.id.clone()),
        name::LAYER => n.layer.and_then(|l| g.scene.layers.get(l)).cloned().unwrap_or_default(),
        name::PARTICLEFX => n.effect.and_then(|e| g.scene.effects.get(e)).map_or_else(String::new, |(name, _)| name.clone()),
        name::MATERIAL => n.material.and_then(|m| g.scene.materials.get(m)).map_or_else(String::new, |(name, _)| name.clone()),
        _ => return Err(format!("no gui name property {which}")),
    })
}

/// The index of the scene's effect `name`.
fn effect_named(scene: &crate::project::gui::GuiScene, name: &str) -> Result<usize, String> {
    scene.effects.iter().position(|(n, _)| n == name).ok_or_else(|| format!("particlefx '{name}' is not in the scene's `particlefxs`"))
}

/// Sets a node's id, font, texture, layer or flipbook by name; names must be the scene's.
fn set_name(g: &mut GuiInstance, node: usize, which: i32, value: &str) -> Result<(), String> {
    let scene = g.scene.clone();
    match which {
        name::ID => {
            if !value.is_empty() && g.nodes.iter().enumerate().any(|(i, n)| i != node && !n.deleted && n.id == value) {
                return Err(format!("the id '{value}' is already in use"));
            }
            g.nodes[node].id = value.to_string();
        }
        name::PARTICLEFX => {
            if g.nodes[node].kind != NodeKind::ParticleFx {
                return Err(format!("node '{}' is not a particlefx node", g.nodes[node].id));
            }
            g.nodes[node].effect = Some(effect_named(&scene, value)?);
        }
        name::FONT => {
            let Some(f) = scene.fonts.iter().position(|(name, _)| name == value) else {
                return Err(format!("font '{value}' is not in the scene's `fonts`"));
            };
            g.nodes[node].font = Some(f);
        }
        name::TEXTURE => {
            let texture = if value.is_empty() {
                None
            } else {
                match scene.images.iter().position(|i| i.name == value) {
                    Some(t) => Some(t),
                    None => return Err(format!("texture '{value}' is not in the scene's `textures`")),
                }
            };
            // As a sprite's `image`: an atlas with an animation of the id the node shows goes
            // on with it from the same cursor and rate; otherwise the node shows the whole
            // texture until a `play_flipbook`.
            let id = get_name(g, &g.nodes[node], name::FLIPBOOK)?;
            let (cursor, rate) = (g.flipbook_cursor(node), g.flipbook_rate(node));
            let listener = g.flipbook(node).and_then(|f| f.listener);
            let keeps = texture
                .and_then(|t| scene.images.get(t)?.atlas.as_ref())
                .is_some_and(|a| !id.is_empty() && a.animation(&id).is_some());
            g.nodes[node].texture = texture;
            g.nodes[node].animation = None;
            g.cancel_flipbook(node);
            if keeps {
                g.play_flipbook(node, &id, 0.0, rate, listener)?;
                g.set_flipbook_cursor(node, cursor);
            }
            g.drop_stale_flipbooks();
        }
        name::FLIPBOOK => g.play_flipbook(node, value, 0.0, 1.0, None)?,
        name::MATERIAL => {
            // The empty name is the scene's own material (built-in when it has none).
            let Some(m) = scene.materials.iter().position(|(name, _)| name == value).or(value.is_empty().then_some(usize::MAX)) else {
                return Err(format!("material '{value}' is not in the scene's `materials`"));
            };
            g.nodes[node].material = (m != usize::MAX).then_some(m);
        }
        name::LAYER => {
            g.nodes[node].layer = if value.is_empty() {
                None
            } else {
                match scene.layers.iter().position(|l| l == value) {
                    Some(l) => Some(l),
                    None => return Err(format!("layer '{value}' is not in the scene's `layers`")),
                }
            };
        }
        _ => return Err(format!("no gui name property {which}")),
    }
    Ok(())
}

fn instance(w: &mut World, inst: u32) -> Result<&mut GuiInstance, String> {
    w.gui.get_mut(inst).ok_or_else(|| "the gui component was deleted".to_string())
}

/// Gui `inst` and the slot of its live node `node`.
fn instance_node(w: &mut World, inst: u32, node: u32) -> Result<(&mut GuiInstance, usize), String> {
    let g = instance(w, inst)?;
    let i = live(g, node)?;
    Ok((g, i))
}

fn node_of(w: &mut World, inst: u32, node: u32) -> Result<&mut GuiNode, String> {
    let g = instance(w, inst)?;
    let i = g.resolve(node)?;
    Ok(&mut g.nodes[i])
}

/// The slot of node handle `node` of instance `g` when it is alive.
fn live(g: &GuiInstance, node: u32) -> Result<usize, String> {
    g.resolve(node)
}

/// The nodes under `root` (itself first), each after its parent.
fn subtree(nodes: &[GuiNode], root: usize) -> Vec<usize> {
    // One pass for every node's children: a scene may hold thousands of nodes.
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (c, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent.filter(|&p| p < nodes.len() && !n.deleted) {
            kids[p].push(c);
        }
    }
    let mut out = vec![root];
    let mut k = 0;
    while k < out.len() {
        let p = out[k];
        out.extend(std::mem::take(&mut kids[p]));
        k += 1;
    }
    out
}


/// Stops every tween of nodes `gone` of instance `inst` (their nodes were deleted).
fn cancel_node_tweens(w: &mut World, inst: u32, slot: u32, gone: &[usize]) {
    let mut keys = Vec::new();
    for &n in gone {
        for which in 0..7u8 {
            for axis in 0..8u8 {
                keys.push(tween_property(inst, n as u32, which, axis));
            }
        }
    }
    w.tweens.cancel(slot, GUI_TWEENS, &keys);
    w.gui.animated.retain(|a| a.instance != inst || !gone.contains(&(a.node as usize)));
}

/// The position that puts node `node`'s pivot at screen point `xyz` on the screen last laid
/// out (through its parent's transform, or a root's anchors and adjust mode), with the node.
fn position_for_screen(w: &mut World, inst: u32, node: u32, xyz: [f32; 3]) -> Result<(&mut GuiInstance, usize, Vec3), String> {
    let [x, y, z, _] = finite([xyz[0], xyz[1], xyz[2], 0.0])?;
    let (display, window) = w.gui.screen_of(inst);
    let (g, i) = instance_node(w, inst, node)?;
    let placed = crate::game::gui::layout::layout(&g.nodes, display, window);
    let screen = Vec3::new(x, y, z);
    match crate::game::gui::layout::position_for_screen(&g.nodes, &placed, i, screen, display, window) {
        Some(p) => Ok((g, i, p)),
        None => Err("the node's parent has a zero scale: no position puts it there".into()),
    }
}

fn finite(v: [f32; 4]) -> Result<[f32; 4], String> {
    if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err("the value must be finite".into()) }
}

/// Defold's text metrics of `text` laid out in `font` (wrapped at `wrap`), written to `out`:
/// width, height, max_ascent, max_descent in x, y, z, w.
fn put_text_metrics(font: &Font, text: &str, wrap: Option<f32>, leading: f32, tracking: f32, out: *mut V4) -> i32 {
    let l = font.face.layout(text, &TextStyle { size: font.size, wrap, leading, tracking, align: 0.0 });
    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
    unsafe { put(out, V4 { x: l.width, y: l.height, z: l.max_ascent, w: l.max_descent }) }
}

fn font_of<'a>(g: &'a GuiInstance, n: &GuiNode, fallback: &'a Font) -> &'a Font {
    n.font.and_then(|i| g.scene.fonts.get(i)).map_or(fallback, |(_, f)| f)
}

/// The scene entry `key` (a hash of its name) of gui `inst`'s fonts (`which` 0) or textures (1).
fn resource_name(g: &GuiInstance, which: i32, key: u64) -> Result<String, String> {
    let (names, kind): (Vec<&str>, _) = match which {
        resource_list::FONTS => (g.scene.fonts.iter().map(|(n, _)| n.as_str()).collect(), "font"),
        resource_list::TEXTURES => (g.scene.images.iter().map(|i| i.name.as_str()).collect(), "texture"),
        resource_list::MATERIALS => {
            (g.scene.materials.iter().map(|(n, _)| n.as_str()).filter(|n| !n.is_empty()).collect(), "material")
        }
        _ => return Err(format!("no gui resource list {which}")),
    };
    match names.iter().find(|n| crate::base::hash::hash_str(n) == key) {
        Some(n) => Ok(n.to_string()),
        None => Err(format!(
            "the gui has no {kind} '{}' (it has {})",
            crate::base::hash::name_of(key),
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        )),
    }
}

crate::export! {
    /// `go.get(gui, "fonts" | "textures", { key = name })`: the hash of the file the scene's
    /// font (`which` 0) or texture (1) named by the hash `key` was read from; 0 with the error.
    fn gui_resource_get(ctx: Ctx, inst: u32, which: i32, key: u64) -> u64 {
        let mut out = 0;
        world_status(ctx, |w| {
            let (g, name) = match instance(w, inst).and_then(|g| resource_name(g, which, key).map(|n| (g, n))) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let file = match which {
                resource_list::FONTS => g.font_file(&name),
                resource_list::MATERIALS => g.material_file(&name),
                _ => g.texture_file(&name),
            };
            out = crate::base::hash::hash_remembered(file.unwrap_or(""));
            OK
        });
        out
    }

    /// `go.set(gui, "fonts" | "textures", v, { key = name })`: the scene's font (`which` 0) or
    /// texture (1) named by the hash `key` becomes the file whose path hashes to `value`
    /// (`resource.font(path)`, `resource.atlas(path)`; Defold's built `.fontc`/`.atlasc` names
    /// too), read now.
    fn gui_resource_set(ctx: Ctx, inst: u32, which: i32, key: u64, value: u64) -> i32 {
        world_status(ctx, |w| {
            let Some(res) = w.factories.res.clone() else { return fail("no resources to load from".into()) };
            let Some(text) = crate::base::hash::text_of(value) else {
                return fail(format!("{} is no resource path (use resource.font, resource.atlas or resource.material)", crate::base::hash::to_hex(value)));
            };
            let built = [".fontc", ".atlasc", ".tilesourcec", ".ttfc", ".materialc"];
            let path = if built.iter().any(|e| text.ends_with(e)) { &text[..text.len() - 1] } else { text.as_str() };
            // A material is read (and later compiled) through the models' registry, as a
            // sprite's is; the built-in one is the built-in drawing.
            let material = if which != resource_list::MATERIALS || path == crate::project::gui::BUILTIN_GUI_MATERIAL {
                None
            } else if !path.ends_with(".material") {
                return fail(format!("'{path}' is no .material file (use resource.material)"));
            } else {
                let from = instance(w, inst).map(|g| g.scene.path.clone()).unwrap_or_default();
                match w.models.material(&res, path, &from) {
                    Ok(m) => Some(m),
                    Err(e) => return fail(e.to_string()),
                }
            };
            // An atlas a script made (`resource.create_atlas`) is among the sprites' atlases.
            let made = (which == resource_list::TEXTURES)
                .then(|| w.sprites.atlases.iter().find(|a| a.source == path).map(|a| (**a).clone()))
                .flatten();
            let (g, name) = match instance(w, inst).and_then(|g| match resource_name(g, which, key) {
                Ok(n) => Ok((g, n)),
                // A texture key the scene lacks adds a texture of that name, as in Defold.
                Err(_) if which == resource_list::TEXTURES && crate::base::hash::text_of(key).is_some() => {
                    Ok((g, crate::base::hash::text_of(key).unwrap_or_default()))
                }
                Err(e) => Err(e),
            }) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let done = if let Some(atlas) = made {
                g.set_texture(&name, crate::project::gui::GuiImage::of_atlas(&name, path, atlas))
            } else if which == resource_list::MATERIALS {
                g.set_material(&name, path, material)
            } else if which == resource_list::FONTS {
                crate::project::gui::load_scene_font(&res, path).map_err(|e| e.to_string()).and_then(|f| g.set_font(&name, f, path))
            } else {
                crate::project::gui::load_scene_image(&res, &name, path).map_err(|e| e.to_string()).and_then(|i| g.set_texture(&name, i))
            };
            match done {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// The GUI instance of component `comp` of object `slot` (a gui component's script shares
    /// its id), or -1.
    fn gui_instance(ctx: Ctx, slot: u32, comp: u64) -> i32 {
        let mut found = -1;
        world_status(ctx, |w| {
            let comps = w.scene.components.get(slot as usize).map(|c| c.as_slice()).unwrap_or(&[]);
            for c in comps {
                if let ComponentRef::Gui(i) = c.kind
                    && c.id == comp
                {
                    found = i as i32;
                }
            }
            OK
        });
        found
    }

    /// The index of the node named `s` (`n` bytes), or -1.
    fn gui_find(ctx: Ctx, inst: u32, s: *const c_char, n: usize) -> i32 {
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let name = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        let mut found = -1;
        let rc = world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                found = g.nodes.iter().position(|n| n.id == name && !n.deleted).map_or(-1, |i| g.handle(i) as i32);
                OK
            }
            Err(e) => fail(e),
        });
        if rc == OK { found } else { -2 }
    }

    /// Reads a vector property ([`which`]); euler in degrees.
    fn gui_get(ctx: Ctx, inst: u32, node: u32, which: i32, out: *mut V4) -> i32 {
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(n) => {
                let v = match which {
                    which::POSITION => n.position.extend(0.0).to_array(),
                    which::EULER => n.euler.extend(0.0).to_array(),
                    which::SCALE => n.scale.extend(0.0).to_array(),
                    which::SIZE => [n.size[0], n.size[1], 0.0, 0.0],
                    which::COLOR => n.color,
                    which::OUTLINE => n.outline,
                    which::SHADOW => n.shadow,
                    which::PIE => [n.pie_fill_angle, n.inner_radius, n.perimeter_vertices as f32, 0.0],
                    which::ROTATION => n.rotation.to_array(),
                    which::SLICE9 => n.slice9,
                    which::SPACING => [n.leading, n.tracking, 0.0, 0.0],
                    _ => return fail(format!("no gui property {which}")),
                };
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, V4 { x: v[0], y: v[1], z: v[2], w: v[3] }) }
            }
            Err(e) => fail(e),
        })
    }

    /// Writes a vector property ([`which`]).
    fn gui_set(ctx: Ctx, inst: u32, node: u32, which: i32, x: f32, y: f32, z: f32, vw: f32) -> i32 {
        let v = match finite([x, y, z, vw]) {
            Ok(v) => v,
            Err(e) => return fail(e),
        };
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(n) => {
                match which {
                    which::POSITION => n.position = Vec3::new(v[0], v[1], v[2]),
                    which::EULER => n.set_euler(Vec3::new(v[0], v[1], v[2])),
                    which::SCALE => n.scale = Vec3::new(v[0], v[1], v[2]),
                    which::SIZE => n.size = [v[0], v[1]],
                    which::COLOR => n.color = v,
                    which::OUTLINE => n.outline = v,
                    which::SHADOW => n.shadow = v,
                    which::PIE => {
                        if v[1] < 0.0 || !(2.0..=1024.0).contains(&v[2]) {
                            return fail(format!(
                                "a pie's inner radius must be >= 0 and its perimeter vertices 2..1024 (got {}, {})",
                                v[1], v[2]
                            ));
                        }
                        n.pie_fill_angle = v[0];
                        n.inner_radius = v[1];
                        n.perimeter_vertices = v[2] as u32;
                    }
                    which::ROTATION => {
                        let q = Quat::from_array(v);
                        if q.length_squared() < 1e-12 {
                            return fail("the rotation must not be a zero quaternion".into());
                        }
                        n.set_rotation(q.normalize());
                    }
                    // Borders are widths: a negative one is none.
                    which::SLICE9 => n.slice9 = v.map(|b| b.max(0.0)),
                    which::SPACING => (n.leading, n.tracking) = (v[0], v[1]),
                    _ => return fail(format!("no gui property {which}")),
                }
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Reads a flag ([`flag`]): 1 or 0, -1 on error.
    fn gui_get_flag(ctx: Ctx, inst: u32, node: u32, which: i32) -> i32 {
        let mut v = -1;
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(n) => {
                v = i32::from(match which {
                    flag::ENABLED => n.enabled,
                    flag::VISIBLE => n.visible,
                    flag::INHERIT_ALPHA => n.inherit_alpha,
                    flag::LINE_BREAK => n.line_break,
                    flag::CLIPPING_VISIBLE => n.clipping_visible,
                    flag::CLIPPING_INVERTED => n.clipping_inverted,
                    _ => return fail(format!("no gui flag {which}")),
                });
                OK
            }
            Err(e) => fail(e),
        });
        v
    }

    fn gui_set_flag(ctx: Ctx, inst: u32, node: u32, which: i32, on: i32) -> i32 {
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(n) => {
                let slot = match which {
                    flag::ENABLED => &mut n.enabled,
                    flag::VISIBLE => &mut n.visible,
                    flag::INHERIT_ALPHA => &mut n.inherit_alpha,
                    flag::LINE_BREAK => &mut n.line_break,
                    flag::CLIPPING_VISIBLE => &mut n.clipping_visible,
                    flag::CLIPPING_INVERTED => &mut n.clipping_inverted,
                    _ => return fail(format!("no gui flag {which}")),
                };
                *slot = on != 0;
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Copies up to `cap` bytes of a node's text; returns its whole length, -1 on error.
    fn gui_get_text(ctx: Ctx, inst: u32, node: u32, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(n) => {
                if !buf.is_null() {
                    let k = n.text.len().min(cap);
                    // SAFETY: `buf` has room for `cap` bytes (a Lua-side buffer).
                    unsafe { std::ptr::copy_nonoverlapping(n.text.as_ptr(), buf.cast(), k) };
                }
                len = n.text.len().min(i32::MAX as usize) as i32;
                OK
            }
            Err(e) => fail(e),
        });
        len
    }

    fn gui_set_text(ctx: Ctx, inst: u32, node: u32, s: *const c_char, n: usize) -> i32 {
        if n > MAX_GUI_TEXT {
            return fail(format!("the text is too long: {n} bytes (at most {MAX_GUI_TEXT})"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let text = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        world_status(ctx, |w| match node_of(w, inst, node) {
            Ok(node) => {
                node.text = text;
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Defold's text metrics of a text node with its font: width, height, max_ascent,
    /// max_descent in x, y, z, w.
    fn gui_text_metrics(ctx: Ctx, inst: u32, node: u32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let n = match live(g, node) {
                Ok(i) => &g.nodes[i],
                Err(e) => return fail(e),
            };
            let fallback = Font::default_sized(16.0);
            let font = font_of(g, n, &fallback);
            put_text_metrics(font, &n.text, n.line_break.then_some(n.size[0]), n.leading, n.tracking, out)
        })
    }

    /// `gui.get_text_metrics` (deprecated in Defold for `resource.get_text_metrics`, still called
    /// by deftest's gui mock): `text` in gui `inst`'s font named `font`, wrapped at `width` when
    /// `line_break` is 1, as a text node of that font would lay it out.
    #[allow(clippy::too_many_arguments)]
    fn gui_font_text_metrics(
        ctx: Ctx,
        inst: u32,
        font: *const c_char,
        nf: usize,
        text: *const c_char,
        nt: usize,
        width: f32,
        line_break: i32,
        leading: f32,
        tracking: f32,
        out: *mut V4,
    ) -> i32 {
        if nf > MAX_GUI_TEXT || nt > MAX_GUI_TEXT {
            return fail(format!("gui.get_text_metrics: the text is too long: {nt} bytes (at most {MAX_GUI_TEXT})"));
        }
        if ![width, leading, tracking].iter().all(|v| v.is_finite()) {
            return fail("gui.get_text_metrics: width, leading and tracking must be finite numbers".into());
        }
        // SAFETY: `font` and `text` are null or `nf`/`nt` bytes of Lua strings held during this call.
        let (name, text) = unsafe { (bytes(font, nf), bytes(text, nt)) };
        let (name, text) = (String::from_utf8_lossy(name).into_owned(), String::from_utf8_lossy(text).into_owned());
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let Some((_, font)) = g.scene.fonts.iter().find(|(n, _)| *n == name) else {
                let names: Vec<&str> = g.scene.fonts.iter().map(|(n, _)| n.as_str()).collect();
                return fail(format!("gui.get_text_metrics: the scene has no font '{name}' (its fonts: {})", names.join(", ")));
            };
            put_text_metrics(font, &text, (line_break != 0 && width > 0.0).then_some(width), leading, tracking, out)
        })
    }

    /// 1 when point (x, y), in display coordinates as `action.x`/`action.y` give them, is
    /// inside the node as last laid out (and inside every
    /// clipping node above it), else 0.
    fn gui_pick(ctx: Ctx, inst: u32, node: u32, x: f32, y: f32) -> i32 {
        let mut hit = 0;
        let rc = world_status(ctx, |w| {
            let (display, window) = w.gui.screen_of(inst);
            match instance(w, inst) {
                Ok(g) => {
                    let i = match live(g, node) {
                        Ok(i) => i,
                        Err(e) => return fail(e),
                    };
                    // Defold's coordinates (`action.x`, `action.y`): the display's, scaled to
                    // the window's pixels the layout was drawn in.
                    let sx = window.0.max(1) as f32 / display.0.max(1) as f32;
                    let sy = window.1.max(1) as f32 / display.1.max(1) as f32;
                    let at = (x * sx, y * sy);
                    hit = i32::from(crate::game::gui::pick(&g.scene, &g.nodes, i, display, window, at));
                    OK
                }
                Err(e) => fail(e),
            }
        });
        if rc == OK { hit } else { -1 }
    }

    /// The node's pivot point on screen, in pixels from the bottom-left.
    fn gui_screen_position(ctx: Ctx, inst: u32, node: u32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let (display, window) = w.gui.screen_of(inst);
            match instance(w, inst) {
                Ok(g) => {
                    let i = match live(g, node) {
                        Ok(i) => i,
                        Err(e) => return fail(e),
                    };
                    let placed = crate::game::gui::layout::layout(&g.nodes, display, window);
                    let Some(p) = placed.get(i) else { return fail(format!("no node {node}")) };
                    let t = p.world.w_axis;
                    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                    unsafe { put(out, V4 { x: t.x, y: t.y, z: t.z, w: 0.0 }) }
                }
                Err(e) => fail(e),
            }
        })
    }

    /// `gui.screen_to_local`: the position that would put the node's pivot point at (x, y, z)
    /// on screen (what `gui_set_screen_position` sets), into `out`; the node stays.
    fn gui_screen_to_local(ctx: Ctx, inst: u32, node: u32, x: f32, y: f32, z: f32, out: *mut V4) -> i32 {
        world_status(ctx, |w| match position_for_screen(w, inst, node, [x, y, z]) {
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            Ok((_, _, p)) => unsafe { put(out, V4 { x: p.x, y: p.y, z: p.z, w: 0.0 }) },
            Err(e) => fail(e),
        })
    }

    /// `gui.get_width`/`get_height`: the scene's size, the project's display size or its
    /// layout's profile size (the design size the layout adjusts from), into `out.x`, `out.y`.
    fn gui_scene_size(ctx: Ctx, inst: u32, out: *mut V4) -> i32 {
        world_status(ctx, |w| {
            let (display, _) = w.gui.screen_of(inst);
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: display.0 as f32, y: display.1 as f32, z: 0.0, w: 0.0 }) }
        })
    }

    /// `gui.get_layout`: the name of the layout the scene shows ("Default" for its own nodes),
    /// copied into `buf` (its length; -1 on error).
    fn gui_layout(ctx: Ctx, inst: u32, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                len = super::copy_out(g.scene.layout_name(g.layout), buf, cap);
                OK
            }
            Err(e) => fail(e),
        });
        len
    }

    /// `gui.set_layout`: shows the scene's layout named `s` (`n` bytes) and, when that is a
    /// switch, posts `layout_changed` to the script. 1 when the scene has the layout, 0 (with a
    /// warning) when not, as Defold answers `true`/`false`; -1 on error.
    fn gui_set_layout(ctx: Ctx, inst: u32, s: *const c_char, n: usize) -> i32 {
        use crate::game::gui::display_layouts::{LayoutSet, report};
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let name = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        let mut found = 0;
        let rc = world_status(ctx, |w| match w.gui.set_layout(inst, &name) {
            Ok(LayoutSet::Unknown) => {
                log::warn!("gui.set_layout: the scene has no layout '{name}'");
                OK
            }
            Ok(LayoutSet::Same) => {
                found = 1;
                OK
            }
            Ok(LayoutSet::Changed(change)) => {
                found = 1;
                report(w, &[change]);
                OK
            }
            Err(e) => fail(e),
        });
        if rc == OK { found } else { -1 }
    }

    /// `gui.get_layouts`: how many layouts the scene has, the default one counted; -1 on error.
    fn gui_layout_count(ctx: Ctx, inst: u32) -> i32 {
        let mut n = -1;
        world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                n = (g.scene.layouts.len() + 1) as i32;
                OK
            }
            Err(e) => fail(e),
        });
        n
    }

    /// Layout `k` of the scene (0: the default one): its name copied into `buf` (its length;
    /// -1 on error) and its profile's size into `out.x`, `out.y`.
    fn gui_layout_at(ctx: Ctx, inst: u32, k: u32, buf: *mut c_char, cap: usize, out: *mut V4) -> i32 {
        let mut len = -1;
        world_status(ctx, |w| match w.gui.layout_at(inst, k as usize) {
            Some((name, (width, height))) => {
                len = super::copy_out(name, buf, cap);
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, V4 { x: width as f32, y: height as f32, z: 0.0, w: 0.0 }) }
            }
            None => fail(format!("the scene has no layout {k}")),
        });
        len
    }

    /// `gui.get_font_resource`: the file the scene's font `s` was read from, copied into `buf`
    /// (its length; -1 with the message when the scene has no such font).
    fn gui_font_resource(ctx: Ctx, inst: u32, s: *const c_char, n: usize, buf: *mut c_char, cap: usize) -> i32 {
        if n > MAX_GUI_TEXT {
            return fail(format!("the font name is too long: {n} bytes"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let name = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        let mut len = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match g.font_file(&name) {
                Some(file) => {
                    len = super::copy_out(file, buf, cap);
                    OK
                }
                None => fail(format!("font '{name}' is not in the scene's `fonts`")),
            }
        });
        len
    }

    /// Moves the node so that its pivot point is at (x, y, z) on screen (`gui_screen_position`'s
    /// pixels): the position its parent's transform, or a root's anchors, turn into that point.
    fn gui_set_screen_position(ctx: Ctx, inst: u32, node: u32, x: f32, y: f32, z: f32) -> i32 {
        world_status(ctx, |w| match position_for_screen(w, inst, node, [x, y, z]) {
            Ok((g, i, p)) => {
                g.nodes[i].position = p;
                OK
            }
            Err(e) => fail(e),
        })
    }

    /// Adds a node (0 box, 1 text, 2 pie) at (x, y) of size (sx, sy); returns its index.
    fn gui_new_node(ctx: Ctx, inst: u32, kind: i32, x: f32, y: f32, sx: f32, sy: f32, s: *const c_char, n: usize) -> i32 {
        if n > MAX_GUI_TEXT {
            return fail(format!("the text is too long: {n} bytes (at most {MAX_GUI_TEXT})"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let text = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        let mut index = -1;
        world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                if g.live_count() >= g.scene.nodes.len() + MAX_NEW_NODES {
                    return fail(format!("more than {MAX_NEW_NODES} new nodes in one gui"));
                }
                let (kind, effect) = match kind {
                    new_kind::BOX => (NodeKind::Box, None),
                    new_kind::TEXT => (NodeKind::Text, None),
                    new_kind::PARTICLEFX => match effect_named(&g.scene, &text) {
                        Ok(e) => (NodeKind::ParticleFx, Some(e)),
                        Err(e) => return fail(format!("bad argument #2: {e}")),
                    },
                    _ => (NodeKind::Pie, None),
                };
                let mut node = crate::project::gui::scene::default_node(kind);
                node.position = Vec3::new(x, y, 0.0);
                node.size = [sx, sy];
                node.effect = effect;
                if effect.is_none() {
                    node.text = text;
                }
                node.id = String::new();
                let i = g.add(node);
                index = g.handle(i) as i32;
                OK
            }
            Err(e) => fail(e),
        });
        index
    }

    /// `gui.reset_nodes`: every node of the scene back as loaded; new nodes are deleted.
    fn gui_reset_nodes(ctx: Ctx, inst: u32) -> i32 {
        world_status(ctx, |w| {
            let (slot, gone) = match instance(w, inst) {
                Ok(g) => {
                    let before = g.nodes.len();
                    g.reset();
                    let gone: Vec<usize> = (0..before).filter(|&i| g.nodes.get(i).is_none_or(|n| n.deleted)).collect();
                    (g.slot, gone)
                }
                Err(e) => return fail(e),
            };
            cancel_node_tweens(w, inst, slot, &gone);
            OK
        })
    }

    /// `gui.animate`: `count` elements of property `which` from element `first` toward `to`,
    /// through the tween kernel `go.animate` uses (same easings, playback modes, callbacks).
    fn gui_animate(ctx: Ctx, inst: u32, node: u32, which: i32, first: u32, count: u32, to: *const V4, playback: u32, easing: u32, duration: f32, delay: f32, callback: u32) -> i32 {
        // SAFETY: `to` is null or a vector4 cdata the Lua wrapper made for this call.
        let Some(to) = (unsafe { to.as_ref() }).copied() else { return fail("no target value".into()) };
        let Some(playback) = Playback::from_index(playback) else {
            return fail("invalid playback mode when starting an animation".into());
        };
        // A pie animates its fill angle and inner radius (elements 0 and 1), not its vertex count.
        let elements = if which == which::PIE { 2 } else { 4 };
        if !(0..=which::PIE).contains(&which) || first + count > elements || count == 0 {
            return fail(format!("property {which} cannot be animated"));
        }
        world_status(ctx, |w| {
            // Tweens are keyed by the node's slot (a deleted node's tweens stop with it).
            let (slot, node) = match instance(w, inst) {
                Ok(g) => match live(g, node) {
                    Ok(i) => (g.slot, i as u32),
                    Err(e) => return fail(e),
                },
                Err(e) => return fail(e),
            };
            if !w.tweens.has_room(count as usize) {
                return fail(format!("Animation could not be stored since the buffer is full ({MAX_TWEENS})."));
            }
            let property = tween_property(inst, node, which as u8, 7);
            let targets = [to.x, to.y, to.z, to.w];
            let mut elements = [Element { property: 0, target: Target::None, to: 0.0 }; 4];
            for (k, e) in elements.iter_mut().enumerate().take(count as usize) {
                let axis = (first as usize + k) as u8;
                let element = tween_property(inst, node, which as u8, axis);
                let (cell, new) = w.tweens.script_cell(slot, GUI_TWEENS, element, false);
                // The tween starts from the node's value now, whatever a script set since.
                let now = w.gui.instances.get_mut(inst as usize).and_then(|g| g.nodes.get_mut(node as usize)).and_then(|n| crate::game::gui::node_get(n, which as u8, axis)).unwrap_or(0.0);
                if let Some(c) = w.tweens.cells.values.get_mut(cell as usize) {
                    *c = now;
                }
                if new || !w.gui.animated.iter().any(|a| a.cell == cell) {
                    w.gui.animated.push(crate::game::gui::AnimatedValue { instance: inst, node, which: which as u8, axis, cell, last: now });
                } else if let Some(a) = w.gui.animated.iter_mut().find(|a| a.cell == cell) {
                    a.last = now;
                }
                *e = Element { property: element, target: Target::Script { cell }, to: targets[k] };
            }
            let key = Key { slot, component: GUI_TWEENS, property };
            let spec = Spec { playback, easing: Easing::Builtin(easing.min(255) as u8), duration, delay, callback };
            match w.tweens.animate(key, &elements[..count as usize], &spec) {
                Ok(()) => OK,
                Err(AnimError::Full) => fail(format!("Animation could not be stored since the buffer is full ({MAX_TWEENS}).")),
            }
        })
    }

    /// `gui.cancel_animation`: stops the tweens of property `which` of a node (no callback).
    fn gui_cancel_animation(ctx: Ctx, inst: u32, node: u32, which: i32) -> i32 {
        world_status(ctx, |w| {
            let (slot, node) = match instance(w, inst) {
                Ok(g) => match live(g, node) {
                    Ok(i) => (g.slot, i as u32),
                    Err(e) => return fail(e),
                },
                Err(e) => return fail(e),
            };
            let mut keys = vec![tween_property(inst, node, which as u8, 7)];
            keys.extend((0..4).map(|a| tween_property(inst, node, which as u8, a)));
            w.tweens.cancel(slot, GUI_TWEENS, &keys);
            OK
        })
    }

    /// An enum property ([`choice`]) as Defold's constant, or -1 on error.
    fn gui_get_enum(ctx: Ctx, inst: u32, node: u32, which: i32) -> i32 {
        let mut v = -1;
        world_status(ctx, |w| match node_of(w, inst, node).and_then(|n| get_choice(n, which)) {
            Ok(x) => {
                v = x;
                OK
            }
            Err(e) => fail(e),
        });
        v
    }

    /// 1 when enum property `which` takes the value `v` (a `gui.*` constant), else 0: the
    /// setters' argument check, from the same match that sets the value.
    fn gui_enum_accepts(which: i32, v: i32) -> i32 {
        i32::from(set_choice(&mut crate::project::gui::scene::default_node(NodeKind::Box), which, v).is_ok())
    }

    fn gui_set_enum(ctx: Ctx, inst: u32, node: u32, which: i32, v: i32) -> i32 {
        world_status(ctx, |w| match node_of(w, inst, node).and_then(|n| set_choice(n, which, v)) {
            Ok(()) => OK,
            Err(e) => fail(e),
        })
    }

    /// Copies up to `cap` bytes of a node's name ([`name`]); returns its whole length, -1 on
    /// error.
    fn gui_get_name(ctx: Ctx, inst: u32, node: u32, which: i32, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match live(g, node).and_then(|i| get_name(g, &g.nodes[i], which)) {
                Ok(text) => {
                    len = super::copy_out(&text, buf, cap);
                    OK
                }
                Err(e) => fail(e),
            }
        });
        len
    }

    fn gui_set_name(ctx: Ctx, inst: u32, node: u32, which: i32, s: *const c_char, n: usize) -> i32 {
        if n > MAX_GUI_TEXT {
            return fail(format!("the name is too long: {n} bytes"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let value = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match live(g, node).and_then(|i| set_name(g, i, which, &value)) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// `gui.play_particlefx`: the node's effect starts (every emitter again); `callback` (0:
    /// none) of script instance `script` hears its emitters' states.
    fn gui_play_particlefx(ctx: Ctx, inst: u32, node: u32, script: u32, callback: u32) -> i32 {
        let listener = (callback != 0).then_some(crate::game::particles::Listener { script, callback });
        world_status(ctx, |w| {
            let i = match instance(w, inst).and_then(|g| live(g, node)) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            match w.gui.play_effect(inst, i, listener) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// `gui.stop_particlefx`: the node's effect stops spawning (`clear` 1: its particles go).
    fn gui_stop_particlefx(ctx: Ctx, inst: u32, node: u32, clear: i32) -> i32 {
        world_status(ctx, |w| {
            let i = match instance(w, inst).and_then(|g| live(g, node)) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            match w.gui.stop_effect(inst, i, clear != 0) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// `gui.play_flipbook`: animation `s` of the node's atlas from `offset` at `rate`;
    /// `callback` (0: none) of script instance `script` is called when a once-flipbook ends.
    fn gui_play_flipbook(ctx: Ctx, inst: u32, node: u32, s: *const c_char, n: usize, offset: f32, rate: f32, script: u32, callback: u32) -> i32 {
        if n > MAX_GUI_TEXT {
            return fail(format!("the animation name is too long: {n} bytes"));
        }
        // SAFETY: `s` is null or `n` bytes of a Lua string held during this call.
        let value = String::from_utf8_lossy(unsafe { bytes(s, n) }).into_owned();
        let listener = (callback != 0).then_some(crate::game::gui::flipbook::Listener { script, callback });
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let played = live(g, node).and_then(|i| {
                g.play_flipbook(i, &value, offset, rate, listener).map_err(|e| format!("bad argument #2: {e}"))
            });
            match played {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// The node flipbook operations ([`flipbook_op`]): cancel, and the cursor and playback rate
    /// (a getter writes `out`, a setter reads `value`).
    fn gui_flipbook(ctx: Ctx, inst: u32, node: u32, op: i32, value: f32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let (g, i) = match instance_node(w, inst, node) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let got = match op {
                flipbook_op::CANCEL => {
                    g.cancel_flipbook(i);
                    None
                }
                flipbook_op::GET_CURSOR => Some(g.flipbook_cursor(i)),
                flipbook_op::SET_CURSOR => {
                    g.set_flipbook_cursor(i, value);
                    None
                }
                flipbook_op::GET_RATE => Some(g.flipbook_rate(i)),
                flipbook_op::SET_RATE => {
                    g.set_flipbook_rate(i, value);
                    None
                }
                _ => return fail(format!("no gui flipbook operation {op}")),
            };
            if let Some(v) = got
                && !out.is_null()
            {
                // SAFETY: `out` is a float cdata the Lua wrapper made for this call.
                unsafe { *out = v };
            }
            OK
        })
    }

    /// `gui.delete_node`: the node and every node under it are deleted; their tweens stop.
    fn gui_delete_node(ctx: Ctx, inst: u32, node: u32) -> i32 {
        world_status(ctx, |w| {
            let (slot, gone) = match instance(w, inst) {
                Ok(g) => match live(g, node) {
                    Ok(i) => {
                        let gone = subtree(&g.nodes, i);
                        g.delete(&gone);
                        (g.slot, gone)
                    }
                    Err(e) => return fail(e),
                },
                Err(e) => return fail(e),
            };
            cancel_node_tweens(w, inst, slot, &gone);
            OK
        })
    }

    /// `gui.clone` (`tree` 0) or `gui.clone_tree` (1): copies the node (and the nodes under
    /// it) with empty ids, under the same parent; writes (original, copy) index pairs into
    /// `out` (room for `cap` u32) and returns how many pairs, -1 on error.
    fn gui_clone(ctx: Ctx, inst: u32, node: u32, tree: i32, out: *mut u32, cap: u32) -> i32 {
        let mut count = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let root = match live(g, node) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let from = if tree != 0 { subtree(&g.nodes, root) } else { vec![root] };
            if g.live_count() + from.len() > g.scene.nodes.len() + MAX_NEW_NODES {
                return fail(format!("more than {MAX_NEW_NODES} new nodes in one gui"));
            }
            if out.is_null() || from.len() * 2 > cap as usize {
                return fail(format!("internal error: gui_clone needs room for {}", from.len() * 2));
            }
            let mut pairs = Vec::with_capacity(from.len() * 2);
            // Slot of each copy, by its original's place in `from`.
            let mut copies: Vec<usize> = Vec::with_capacity(from.len());
            for (k, &i) in from.iter().enumerate() {
                let mut copy = g.nodes[i].clone();
                copy.id = String::new();
                // Children follow their copied parent (earlier in `from`); the root keeps the
                // original's parent.
                if k > 0 {
                    copy.parent = copy.parent.and_then(|p| from.iter().position(|&f| f == p)).map(|j| copies[j]);
                }
                let c = g.add(copy);
                g.copy_flipbook(i, c);
                copies.push(c);
                pairs.extend([g.handle(i), g.handle(c)]);
            }
            // SAFETY: `out` points at `cap` u32 of a Lua-side buffer alive during the call.
            unsafe { std::ptr::copy_nonoverlapping(pairs.as_ptr(), out, pairs.len()) };
            count = from.len() as i32;
            OK
        });
        count
    }

    /// How many nodes `gui.clone_tree` of this node copies (it and those under it), -1 on error.
    fn gui_subtree_size(ctx: Ctx, inst: u32, node: u32) -> i32 {
        let mut v = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match live(g, node) {
                Ok(i) => {
                    v = subtree(&g.nodes, i).len() as i32;
                    OK
                }
                Err(e) => fail(e),
            }
        });
        v
    }

    /// The node and every node under it (each after its parent) into `out` (room for `cap`);
    /// returns how many, -1 on error.
    fn gui_subtree(ctx: Ctx, inst: u32, node: u32, out: *mut u32, cap: u32) -> i32 {
        let mut v = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            let root = match live(g, node) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let all: Vec<u32> = subtree(&g.nodes, root).into_iter().map(|i| g.handle(i)).collect();
            if out.is_null() || all.len() > cap as usize {
                return fail(format!("internal error: gui_subtree needs room for {}", all.len()));
            }
            // SAFETY: `out` points at `cap` u32 of a Lua-side buffer alive during the call.
            unsafe { std::ptr::copy_nonoverlapping(all.as_ptr(), out, all.len()) };
            v = all.len() as i32;
            OK
        });
        v
    }

    /// The node's parent index, -1 for a root, -2 on error.
    fn gui_get_parent(ctx: Ctx, inst: u32, node: u32) -> i32 {
        let mut v = -2;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match live(g, node) {
                Ok(i) => {
                    v = g.nodes[i].parent.map_or(-1, |p| g.handle(p) as i32);
                    OK
                }
                Err(e) => fail(e),
            }
        });
        v
    }

    /// `gui.set_parent`: `parent` -1 makes the node a root. With `keep` 1 the node stays where
    /// it is on screen (its transform is rewritten in the new parent's space, as Defold's
    /// `keep_scene_transform`); a parent under the node itself is refused.
    fn gui_set_parent(ctx: Ctx, inst: u32, node: u32, parent: i32, keep: i32) -> i32 {
        world_status(ctx, |w| {
            let (display, window) = w.gui.screen_of(inst);
            let (g, i) = match instance_node(w, inst, node) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let p = if parent < 0 {
                None
            } else {
                match live(g, parent as u32) {
                    Ok(p) => Some(p),
                    Err(e) => return fail(format!("the parent: {e}")),
                }
            };
            let mut up = p;
            while let Some(k) = up {
                if k == i {
                    return fail("the parent is the node itself or under it".into());
                }
                up = g.nodes[k].parent;
            }
            if keep != 0 {
                let placed = crate::game::gui::layout::layout(&g.nodes, display, window);
                let world = placed[i].world;
                let parent_world = match p {
                    Some(p) => placed[p].world,
                    // A root is placed by its adjust mode: undo that (its anchors' offsets and
                    // scale) by laying out a unit root with the node's anchors.
                    None => {
                        let mut unit = g.nodes[i].clone();
                        unit.parent = None;
                        unit.position = Vec3::ZERO;
                        unit.set_rotation(Quat::IDENTITY);
                        unit.scale = Vec3::ONE;
                        crate::game::gui::layout::layout(&[unit], display, window)[0].world
                    }
                };
                let local = parent_world.inverse() * world;
                let (s, r, t) = local.to_scale_rotation_translation();
                if s.is_finite() && r.is_finite() && t.is_finite() {
                    let n = &mut g.nodes[i];
                    n.position = t;
                    n.set_rotation(r);
                    n.scale = s;
                }
            }
            // A new parent's children gain it last, as Defold appends it.
            if g.nodes[i].parent != p {
                g.nodes[i].rank = g.take_rank();
            }
            g.nodes[i].parent = p;
            OK
        })
    }

    /// `gui.move_above` (`above` 1) and `gui.move_below` (0): `reference` -1 is none.
    fn gui_move_node(ctx: Ctx, inst: u32, node: u32, reference: i32, above: i32) -> i32 {
        world_status(ctx, |w| {
            let (g, i) = match instance_node(w, inst, node) {
                Ok(x) => x,
                Err(e) => return fail(e),
            };
            let r = if reference < 0 {
                None
            } else {
                match live(g, reference as u32) {
                    Ok(r) => Some(r),
                    Err(e) => return fail(format!("the reference: {e}")),
                }
            };
            match g.move_node(i, r, above != 0) {
                Ok(()) => OK,
                Err(e) => fail(e),
            }
        })
    }

    /// The node's place among its siblings (0 first), -1 on error.
    fn gui_get_index(ctx: Ctx, inst: u32, node: u32) -> i32 {
        let mut v = -1;
        world_status(ctx, |w| {
            let g = match instance(w, inst) {
                Ok(g) => g,
                Err(e) => return fail(e),
            };
            match live(g, node) {
                Ok(i) => {
                    let parent = g.nodes[i].parent;
                    let order = crate::game::gui::layout::order(&g.nodes);
                    v = order.iter().filter(|&&k| g.nodes[k].parent == parent).position(|&k| k == i).map_or(-1, |x| x as i32);
                    OK
                }
                Err(e) => fail(e),
            }
        });
        v
    }

    fn gui_set_render_order(ctx: Ctx, inst: u32, order: u32) -> i32 {
        world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                g.render_order = order;
                OK
            }
            Err(e) => fail(e),
        })
    }
}
