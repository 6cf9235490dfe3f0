//! FFI endpoints of the `render` namespace, which a project's own render script calls (Lua side:
//! `lua/render.lua`): each records a command of the frame into `game::render_script`, which the
//! renderer carries out after the script's `update`.
use super::types::M4;
use super::{Ctx, put, world_status};
use crate::game::render_script::{Binding, Command, Compare, Face, RENDER_SCRIPT_INSTANCE};
use crate::game::render_targets::{Buffer, BufferParams, Filter, Format, Wrap};
use crate::script::boundary::{OK, fail};
use glam::Mat4;

/// The bits of `render_clear`'s `has`.
pub mod clear {
    pub const COLOR: i32 = 1;
    pub const DEPTH: i32 = 2;
    pub const STENCIL: i32 = 4;
    /// `graphics.BUFFER_TYPE_COLOR1_BIT` to `COLOR3`: a render target's other colour buffers,
    /// which the window has not (`render.clear` takes and leaves them).
    pub const OTHER_COLORS: [i32; 3] = [8, 16, 32];
}

/// The buffer a `render.BUFFER_*_BIT` / `graphics.BUFFER_TYPE_*_BIT` names.
fn buffer_of(bit: f64) -> Option<Buffer> {
    let is = |b: i32| bit == f64::from(b);
    if is(clear::COLOR) {
        return Some(Buffer::Color(0));
    }
    if is(clear::DEPTH) {
        return Some(Buffer::Depth);
    }
    if is(clear::STENCIL) {
        return Some(Buffer::Stencil);
    }
    clear::OTHER_COLORS.iter().position(|&b| is(b)).map(|i| Buffer::Color(i as u8 + 1))
}

/// Numbers `render_target_make` takes per buffer: its bit, then [`TARGET_FIELDS`] (NaN where
/// the script left a field out).
pub const TARGET_STRIDE: usize = 1 + TARGET_FIELDS.len();
/// The fields of a buffer's table, in the order `render_target_make` takes them.
pub const TARGET_FIELDS: [&str; 7] = ["format", "width", "height", "min_filter", "mag_filter", "u_wrap", "v_wrap"];
/// Buffers one render target may have: four colours, depth, stencil.
pub const TARGET_BUFFERS: usize = 6;
/// Named constants one `render.draw` may carry (the Lua side's buffer).
pub const DRAW_CONSTANTS: usize = 64;

/// Where `render.FACE_*` and `render.COMPARE_FUNC_*` are numbered from (in their enums' order).
const FACE_BASE: f64 = 200.0;
const COMPARE_BASE: f64 = 300.0;

/// The `which` of `render_state`.
pub mod state {
    pub const CULL_FACE: i32 = 0;
    pub const DEPTH_FUNC: i32 = 1;
}

/// The `which` of `render_matrix` and `render_size`.
pub mod which {
    pub const VIEW: i32 = 0;
    pub const PROJECTION: i32 = 1;
    pub const WIDTH: i32 = 0;
    pub const HEIGHT: i32 = 1;
    pub const WINDOW_WIDTH: i32 = 2;
    pub const WINDOW_HEIGHT: i32 = 3;
}

/// `render.*`'s constants as Lua gets them: `RENDER_` and Defold's name, and `RS_` for what only
/// the Lua side passes back (the `which` of the calls, the tag limit, the instance). Their values
/// only need to differ from each other: scripts pass them back (`render.enable_state`) or use
/// them as keys (`render.clear`). The three buffer bits are `render_clear`'s own.
pub fn constants() -> Vec<(&'static str, f64)> {
    let mut k = vec![
        ("RENDER_BUFFER_COLOR_BIT", f64::from(clear::COLOR)),
        ("RENDER_BUFFER_DEPTH_BIT", f64::from(clear::DEPTH)),
        ("RENDER_BUFFER_STENCIL_BIT", f64::from(clear::STENCIL)),
        ("RS_MATRIX_VIEW", f64::from(which::VIEW)),
        ("RS_MATRIX_PROJECTION", f64::from(which::PROJECTION)),
        ("RS_SIZE_WIDTH", f64::from(which::WIDTH)),
        ("RS_SIZE_HEIGHT", f64::from(which::HEIGHT)),
        ("RS_SIZE_WINDOW_WIDTH", f64::from(which::WINDOW_WIDTH)),
        ("RS_SIZE_WINDOW_HEIGHT", f64::from(which::WINDOW_HEIGHT)),
        ("RS_MAX_TAGS", crate::game::render_script::MAX_TAGS as f64),
        ("RS_INSTANCE", f64::from(RENDER_SCRIPT_INSTANCE)),
        ("RS_STATE_CULL_FACE", f64::from(state::CULL_FACE)),
        ("RS_STATE_DEPTH_FUNC", f64::from(state::DEPTH_FUNC)),
        ("RS_TARGET_STRIDE", TARGET_STRIDE as f64),
        ("RS_TARGET_BUFFERS", TARGET_BUFFERS as f64),
        ("RS_DRAW_CONSTANTS", DRAW_CONSTANTS as f64),
        ("RENDER_BUFFER_COLOR0_BIT", f64::from(clear::COLOR)),
        ("RENDER_BUFFER_COLOR1_BIT", f64::from(clear::OTHER_COLORS[0])),
        ("RENDER_BUFFER_COLOR2_BIT", f64::from(clear::OTHER_COLORS[1])),
        ("RENDER_BUFFER_COLOR3_BIT", f64::from(clear::OTHER_COLORS[2])),
        // Usage flags of a render target's buffers, which GL needs none of: taken and left.
        ("RENDER_TEXTURE_BIT", 1.0),
        ("GRAPHICS_TEXTURE_USAGE_FLAG_SAMPLE", 1.0),
        ("GRAPHICS_TEXTURE_USAGE_FLAG_MEMORYLESS", 2.0),
        ("GRAPHICS_TEXTURE_USAGE_FLAG_INPUT", 4.0),
        ("GRAPHICS_TEXTURE_USAGE_FLAG_COLOR", 8.0),
        ("GRAPHICS_TEXTURE_USAGE_FLAG_STORAGE", 16.0),
    ];
    // A render target's formats, filters and wraps: `render.FORMAT_*` & co. (Defold's older
    // names) and `graphics.TEXTURE_*` (its newer; the formats runtime textures take too are
    // already among `graphics`'s from api/resource.rs, numbered alike).
    let shared = crate::game::runtime_textures::TEXTURE_FORMATS;
    let mut named: Vec<(String, f64)> = Vec::new();
    for f in Format::ALL {
        let v = f64::from(f.value());
        named.push((format!("RENDER_FORMAT_{}", f.name()), v));
        let graphics = format!("TEXTURE_FORMAT_{}", f.name());
        if !shared.iter().any(|(n, _, _)| *n == graphics) {
            named.push((format!("GRAPHICS_{graphics}"), v));
        }
    }
    for (i, f) in Filter::ALL.iter().enumerate() {
        named.push((format!("RENDER_FILTER_{}", f.name()), i as f64));
        named.push((format!("GRAPHICS_TEXTURE_FILTER_{}", f.name()), i as f64));
    }
    for (i, w) in Wrap::ALL.iter().enumerate() {
        named.push((format!("RENDER_WRAP_{}", w.name()), i as f64));
        named.push((format!("GRAPHICS_TEXTURE_WRAP_{}", w.name()), i as f64));
    }
    k.extend(named.into_iter().map(|(n, v)| (&*Box::leak(n.into_boxed_str()), v)));
    // The render states and their arguments, which Sinew's passes set for themselves: numbered
    // apart so that a script comparing them sees distinct values.
    const STATES: &[&str] = &[
        "RENDER_STATE_DEPTH_TEST",
        "RENDER_STATE_STENCIL_TEST",
        "RENDER_STATE_BLEND",
        "RENDER_STATE_CULL_FACE",
        "RENDER_STATE_POLYGON_OFFSET_FILL",
        "RENDER_BLEND_ZERO",
        "RENDER_BLEND_ONE",
        "RENDER_BLEND_SRC_COLOR",
        "RENDER_BLEND_ONE_MINUS_SRC_COLOR",
        "RENDER_BLEND_DST_COLOR",
        "RENDER_BLEND_ONE_MINUS_DST_COLOR",
        "RENDER_BLEND_SRC_ALPHA",
        "RENDER_BLEND_ONE_MINUS_SRC_ALPHA",
        "RENDER_BLEND_DST_ALPHA",
        "RENDER_BLEND_ONE_MINUS_DST_ALPHA",
        "RENDER_BLEND_SRC_ALPHA_SATURATE",
        "RENDER_BLEND_CONSTANT_COLOR",
        "RENDER_BLEND_ONE_MINUS_CONSTANT_COLOR",
        "RENDER_BLEND_CONSTANT_ALPHA",
        "RENDER_BLEND_ONE_MINUS_CONSTANT_ALPHA",
        "RENDER_STENCIL_OP_KEEP",
        "RENDER_STENCIL_OP_ZERO",
        "RENDER_STENCIL_OP_REPLACE",
        "RENDER_STENCIL_OP_INCR",
        "RENDER_STENCIL_OP_INCR_WRAP",
        "RENDER_STENCIL_OP_DECR",
        "RENDER_STENCIL_OP_DECR_WRAP",
        "RENDER_STENCIL_OP_INVERT",
    ];
    k.extend(STATES.iter().enumerate().map(|(i, &n)| (n, 100.0 + i as f64)));
    // The two states a model draw takes from the script, numbered from their enums.
    let faces = Face::ALL.iter().enumerate().map(|(i, f)| (format!("RENDER_FACE_{}", f.name()), FACE_BASE + i as f64));
    let compares = Compare::ALL
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("RENDER_COMPARE_FUNC_{}", c.name()), COMPARE_BASE + i as f64));
    k.extend(faces.chain(compares).map(|(n, v)| (&*Box::leak(n.into_boxed_str()), v)));
    // Defold 1.9's `graphics.*` names of the same values, which its newer render scripts (and
    // the default one they copy) use; the three extra colour buffers belong to render targets.
    let mut graphics: Vec<(&'static str, f64)> = vec![
        ("GRAPHICS_BUFFER_TYPE_COLOR0_BIT", f64::from(clear::COLOR)),
        ("GRAPHICS_BUFFER_TYPE_DEPTH_BIT", f64::from(clear::DEPTH)),
        ("GRAPHICS_BUFFER_TYPE_STENCIL_BIT", f64::from(clear::STENCIL)),
        ("GRAPHICS_BUFFER_TYPE_COLOR1_BIT", f64::from(clear::OTHER_COLORS[0])),
        ("GRAPHICS_BUFFER_TYPE_COLOR2_BIT", f64::from(clear::OTHER_COLORS[1])),
        ("GRAPHICS_BUFFER_TYPE_COLOR3_BIT", f64::from(clear::OTHER_COLORS[2])),
    ];
    for &(n, v) in &k {
        let Some(rest) = n.strip_prefix("RENDER_") else { continue };
        let renamed = match rest {
            _ if ["BUFFER_", "FORMAT_", "FILTER_", "WRAP_", "TEXTURE_BIT"].iter().any(|p| rest.starts_with(p)) => continue,
            _ if rest.starts_with("BLEND_") => format!("GRAPHICS_BLEND_FACTOR_{}", &rest[6..]),
            _ if rest.starts_with("FACE_") => format!("GRAPHICS_FACE_TYPE_{}", &rest[5..]),
            _ => format!("GRAPHICS_{rest}"),
        };
        graphics.push((Box::leak(renamed.into_boxed_str()), v));
    }
    k.extend(graphics);
    k
}

fn record(ctx: Ctx, c: Command) -> i32 {
    world_status(ctx, |w| match w.render_script.push(c) {
        Ok(()) => OK,
        Err(e) => fail(e),
    })
}

crate::export! {
    /// `render.predicate`: a predicate of `n` tag hashes; its number, or -1 on error.
    fn render_predicate(ctx: Ctx, tags: *const u64, n: u32) -> i32 {
        if tags.is_null() {
            return fail("no tags".into());
        }
        let mut made = -1;
        let rc = world_status(ctx, |w| {
            // SAFETY: `tags` is a Lua-side array of `n` hashes made for this call.
            let tags = unsafe { std::slice::from_raw_parts(tags, n as usize) };
            match w.render_script.predicate(tags) {
                Ok(p) => {
                    made = p as i32;
                    OK
                }
                Err(e) => fail(e),
            }
        });
        if rc == OK { made } else { -1 }
    }

    /// `render.clear`: the buffers `has` names (`clear::*` bits), with their values.
    fn render_clear(ctx: Ctx, has: i32, r: f32, g: f32, b: f32, a: f32, depth: f32, stencil: i32) -> i32 {
        let color = (has & clear::COLOR != 0).then_some([r, g, b, a]);
        if color.is_some_and(|c| !c.iter().all(|x| x.is_finite())) {
            return fail("the clear colour has a NaN or infinite component".into());
        }
        if has & clear::DEPTH != 0 && !depth.is_finite() {
            return fail("the clear depth must be a finite number".into());
        }
        let depth = (has & clear::DEPTH != 0).then_some(depth.clamp(0.0, 1.0));
        let stencil = (has & clear::STENCIL != 0).then_some(stencil);
        record(ctx, Command::Clear { color, depth, stencil })
    }

    /// `render.set_viewport`, in window pixels.
    fn render_viewport(ctx: Ctx, x: i32, y: i32, width: i32, height: i32) -> i32 {
        record(ctx, Command::Viewport([x, y, width, height]))
    }

    /// `render.set_view` (`which::VIEW`) or `render.set_projection` (`which::PROJECTION`).
    fn render_matrix(ctx: Ctx, which: i32, m: *const M4) -> i32 {
        // SAFETY: `m` is null or a matrix4 cdata the Lua wrapper checked.
        let Some(m) = (unsafe { m.as_ref() }) else { return fail("no matrix".into()) };
        let m = Mat4::from_cols_array(&m.m);
        record(ctx, if which == which::VIEW { Command::View(m) } else { Command::Projection(m) })
    }

    /// `render.set_cull_face` (`state::CULL_FACE`, a `render.FACE_*`) or `render.set_depth_func`
    /// (`state::DEPTH_FUNC`, a `render.COMPARE_FUNC_*`).
    fn render_state(ctx: Ctx, which: i32, value: f64) -> i32 {
        let nth = |base: f64, len: usize| {
            let i = value - base;
            (i >= 0.0 && i < len as f64 && i.fract() == 0.0).then_some(i as usize)
        };
        let c = match which {
            state::CULL_FACE => match nth(FACE_BASE, Face::ALL.len()) {
                Some(i) => Command::CullFace(Face::ALL[i]),
                None => return fail(format!("{value} is not a render.FACE_* value")),
            },
            _ => match nth(COMPARE_BASE, Compare::ALL.len()) {
                Some(i) => Command::DepthFunc(Compare::ALL[i]),
                None => return fail(format!("{value} is not a render.COMPARE_FUNC_* value")),
            },
        };
        record(ctx, c)
    }

    /// `render.draw` of predicate `p`, with `n` named vector4 constants: `names[i]`'s value is
    /// `values[4 * i..4 * i + 4]`.
    fn render_draw(ctx: Ctx, p: u32, names: *const u64, values: *const f32, n: u32) -> i32 {
        if n > 0 {
            if names.is_null() || values.is_null() || n as usize > DRAW_CONSTANTS {
                return fail(format!("a draw carries at most {DRAW_CONSTANTS} constants, not {n}"));
            }
            // SAFETY: Lua-side arrays of `DRAW_CONSTANTS` names and 4 times as many floats.
            let (names, values) = unsafe {
                (std::slice::from_raw_parts(names, n as usize), std::slice::from_raw_parts(values, 4 * n as usize))
            };
            let given = names.iter().zip(values.chunks_exact(4)).map(|(&h, v)| (h, [v[0], v[1], v[2], v[3]]));
            let rc = world_status(ctx, |w| w.render_script.push_constants(given).map_or_else(fail, |()| OK));
            if rc != OK {
                return rc;
            }
        }
        record(ctx, Command::Draw(p))
    }

    /// `render.draw_debug3d`.
    fn render_draw_debug3d(ctx: Ctx) -> i32 {
        record(ctx, Command::DrawDebug3d)
    }

    /// `render.render_target`: `n` buffers of [`TARGET_STRIDE`] numbers each; the target's
    /// number, or -1 on error.
    fn render_target_make(ctx: Ctx, params: *const f64, n: u32) -> i32 {
        if params.is_null() || n as usize > TARGET_BUFFERS {
            fail(format!("a render target has 1 to {TARGET_BUFFERS} buffers, not {n}"));
            return -1;
        }
        // SAFETY: a Lua-side array of `TARGET_BUFFERS * TARGET_STRIDE` numbers made for this call.
        let params = unsafe { std::slice::from_raw_parts(params, n as usize * TARGET_STRIDE) };
        let mut buffers = Vec::with_capacity(n as usize);
        for p in params.chunks_exact(TARGET_STRIDE) {
            let Some(buffer) = buffer_of(p[0]) else {
                fail(format!("{} is not a buffer type (graphics.BUFFER_TYPE_*_BIT)", p[0]));
                return -1;
            };
            let given = |x: f64| (!x.is_nan()).then_some(x);
            buffers.push(BufferParams {
                buffer,
                format: given(p[1]),
                width: given(p[2]),
                height: given(p[3]),
                min_filter: given(p[4]),
                mag_filter: given(p[5]),
                u_wrap: given(p[6]),
                v_wrap: given(p[7]),
            });
        }
        let mut made = -1;
        let rc = world_status(ctx, |w| match w.render_script.targets.make(&buffers) {
            Ok(t) => {
                made = t as i32;
                OK
            }
            Err(e) => fail(e),
        });
        if rc == OK { made } else { -1 }
    }

    /// `render.delete_render_target`.
    fn render_target_delete(ctx: Ctx, target: u32) -> i32 {
        world_status(ctx, |w| w.render_script.targets.delete(target).map_or_else(fail, |()| OK))
    }

    /// `render.set_render_target_size`.
    fn render_target_resize(ctx: Ctx, target: u32, width: f64, height: f64) -> i32 {
        world_status(ctx, |w| w.render_script.targets.resize(target, width, height).map_or_else(fail, |()| OK))
    }

    /// `render.get_render_target_width` / `_height` of buffer `bit`: both, into `out[0..2]`.
    fn render_target_size(ctx: Ctx, target: u32, bit: f64, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let t = match w.render_script.targets.find(target) {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            match buffer_of(bit) {
                Some(b) if t.has(b) => {}
                _ => return fail(format!("render target {target} has no buffer {bit}")),
            }
            if out.is_null() {
                return fail("no out-pointer".into());
            }
            // SAFETY: a two-float cdata the Lua wrapper made for this call.
            unsafe { std::slice::from_raw_parts_mut(out, 2).copy_from_slice(&[t.width as f32, t.height as f32]) };
            OK
        })
    }

    /// `render.set_render_target`: target `target`, or the window when negative.
    fn render_target_set(ctx: Ctx, target: i32) -> i32 {
        record(ctx, Command::Target(u32::try_from(target).ok()))
    }

    /// `render.enable_texture` (`on`) or `render.disable_texture`: the samplers at texture unit
    /// `unit`, or, when it is negative, those named `sampler`; buffer `bit` of `target`.
    fn render_texture(ctx: Ctx, on: i32, unit: i32, sampler: u64, target: u32, bit: f64) -> i32 {
        let binding = u32::try_from(unit).map_or(Binding::Sampler(sampler), Binding::Unit);
        if on == 0 {
            return record(ctx, Command::DisableTexture(binding));
        }
        match buffer_of(bit) {
            Some(buffer) => record(ctx, Command::EnableTexture { binding, target, buffer }),
            None => fail(format!("{bit} is not a buffer type (graphics.BUFFER_TYPE_*_BIT)")),
        }
    }

    /// `render.get_width` & co. (`which::*`) into `out`: the display size game.project names, or
    /// the window's.
    fn render_size(ctx: Ctx, which: i32, out: *mut f32) -> i32 {
        world_status(ctx, |w| {
            let (ww, wh) = w.input.window_size();
            let (dw, dh) = w.render_script.display;
            let v = match which {
                which::WIDTH => dw as f32,
                which::HEIGHT => dh as f32,
                which::WINDOW_WIDTH => ww,
                _ => wh,
            };
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            unsafe { put(out, v) }
        })
    }
}
