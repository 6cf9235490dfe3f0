//! FFI endpoints of the `gui` namespace: node lookup, properties, text metrics, picking, new
//! nodes, render order. Nodes are (instance, node index) pairs; the Lua side (`lua/gui.lua`)
//! wraps them in node handles and checks arguments.
use super::types::V4;
use super::{Ctx, bytes, put, world_status};
use crate::game::World;
use crate::game::gui::GuiInstance;
use crate::project::font::TextStyle;
use crate::project::font::file::Font;
use crate::project::gui::{GuiNode, NodeKind};
use crate::scene::ComponentRef;
use crate::anim::{AnimError, Easing, Element, Key, MAX_TWEENS, Playback, Spec, Target};
use crate::script::boundary::{OK, fail};
use glam::{EulerRot, Quat, Vec3};
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

/// The `which` of `gui_get`/`gui_set`.
pub mod which {
    pub const POSITION: i32 = 0;
    pub const EULER: i32 = 1;
    pub const SCALE: i32 = 2;
    pub const SIZE: i32 = 3;
    pub const COLOR: i32 = 4;
    pub const OUTLINE: i32 = 5;
    pub const SHADOW: i32 = 6;
}

/// The `which` of `gui_get_flag`/`gui_set_flag`.
pub mod flag {
    pub const ENABLED: i32 = 0;
    pub const VISIBLE: i32 = 1;
    pub const INHERIT_ALPHA: i32 = 2;
    pub const LINE_BREAK: i32 = 3;
}

fn instance(w: &mut World, inst: u32) -> Result<&mut GuiInstance, String> {
    w.gui.get_mut(inst).ok_or_else(|| "the gui component was deleted".to_string())
}

fn node_of(w: &mut World, inst: u32, node: u32) -> Result<&mut GuiNode, String> {
    instance(w, inst)?.nodes.get_mut(node as usize).ok_or_else(|| format!("no node {node}"))
}

fn finite(v: [f32; 4]) -> Result<[f32; 4], String> {
    if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err("the value must be finite".into()) }
}

fn font_of<'a>(g: &'a GuiInstance, n: &GuiNode, fallback: &'a Font) -> &'a Font {
    n.font.and_then(|i| g.scene.fonts.get(i)).map_or(fallback, |(_, f)| f)
}

crate::export! {
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
                found = g.nodes.iter().position(|n| n.id == name).map_or(-1, |i| i as i32);
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
                    which::EULER => {
                        let (z, y, x) = n.rotation.to_euler(EulerRot::ZYX);
                        [x.to_degrees(), y.to_degrees(), z.to_degrees(), 0.0]
                    }
                    which::SCALE => n.scale.extend(0.0).to_array(),
                    which::SIZE => [n.size[0], n.size[1], 0.0, 0.0],
                    which::COLOR => n.color,
                    which::OUTLINE => n.outline,
                    which::SHADOW => n.shadow,
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
                    which::EULER => {
                        n.rotation = Quat::from_euler(EulerRot::ZYX, v[2].to_radians(), v[1].to_radians(), v[0].to_radians())
                    }
                    which::SCALE => n.scale = Vec3::new(v[0], v[1], v[2]),
                    which::SIZE => n.size = [v[0], v[1]],
                    which::COLOR => n.color = v,
                    which::OUTLINE => n.outline = v,
                    which::SHADOW => n.shadow = v,
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
            let Some(n) = g.nodes.get(node as usize) else { return fail(format!("no node {node}")) };
            let fallback = Font::default_sized(16.0);
            let font = font_of(g, n, &fallback);
            let style = TextStyle {
                size: font.size,
                wrap: n.line_break.then_some(n.size[0]),
                leading: n.leading,
                tracking: n.tracking,
                align: 0.0,
            };
            let l = font.face.layout(&n.text, &style);
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, V4 { x: l.width, y: l.height, z: l.max_ascent, w: l.max_descent }) }
        })
    }

    /// 1 when screen point (x, y) is inside the node as last laid out (and inside every
    /// clipping node above it), else 0.
    fn gui_pick(ctx: Ctx, inst: u32, node: u32, x: f32, y: f32) -> i32 {
        let mut hit = 0;
        let rc = world_status(ctx, |w| {
            let (display, window) = w.gui.screen;
            match instance(w, inst) {
                Ok(g) => {
                    hit = i32::from(crate::game::gui::pick(&g.scene, &g.nodes, node as usize, display, window, (x, y)));
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
            let (display, window) = w.gui.screen;
            match instance(w, inst) {
                Ok(g) => {
                    let placed = crate::game::gui::layout::layout(&g.nodes, display, window);
                    let Some(p) = placed.get(node as usize) else { return fail(format!("no node {node}")) };
                    let t = p.world.w_axis;
                    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                    unsafe { put(out, V4 { x: t.x, y: t.y, z: t.z, w: 0.0 }) }
                }
                Err(e) => fail(e),
            }
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
                if g.nodes.len() >= g.scene.nodes.len() + MAX_NEW_NODES {
                    return fail(format!("more than {MAX_NEW_NODES} new nodes in one gui"));
                }
                let kind = match kind {
                    0 => NodeKind::Box,
                    1 => NodeKind::Text,
                    _ => NodeKind::Pie,
                };
                let mut node = crate::project::gui::scene::default_node(kind);
                node.position = Vec3::new(x, y, 0.0);
                node.size = [sx, sy];
                node.text = text;
                node.id = String::new();
                g.nodes.push(node);
                index = (g.nodes.len() - 1) as i32;
                OK
            }
            Err(e) => fail(e),
        });
        index
    }

    /// `gui.reset_nodes`: every node of the scene back as loaded; new nodes are dropped.
    fn gui_reset_nodes(ctx: Ctx, inst: u32) -> i32 {
        world_status(ctx, |w| match instance(w, inst) {
            Ok(g) => {
                g.nodes = g.scene.nodes.clone();
                OK
            }
            Err(e) => fail(e),
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
        if !(0..=6).contains(&which) || which == which::EULER || first + count > 4 || count == 0 {
            return fail(format!("property {which} cannot be animated"));
        }
        world_status(ctx, |w| {
            let slot = match instance(w, inst) {
                Ok(g) if (node as usize) < g.nodes.len() => g.slot,
                Ok(_) => return fail(format!("no node {node}")),
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
                let now = w.gui.instances.get_mut(inst as usize).and_then(|g| g.nodes.get_mut(node as usize)).and_then(|n| crate::game::gui::node_value(n, which as u8, axis).map(|v| *v)).unwrap_or(0.0);
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
            let slot = match instance(w, inst) {
                Ok(g) => g.slot,
                Err(e) => return fail(e),
            };
            let mut keys = vec![tween_property(inst, node, which as u8, 7)];
            keys.extend((0..4).map(|a| tween_property(inst, node, which as u8, a)));
            w.tweens.cancel(slot, GUI_TWEENS, &keys);
            OK
        })
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
