//! FFI endpoints of the `resource` functions that make and change resources while the game
//! runs (`create_texture`, `set_texture`, `create_atlas`), with the constants of the `buffer`
//! and `graphics` namespaces they take. Lua side: `lua/resource.lua`, `lua/buffer.lua`,
//! `lua/graphics.lua`; the tables arrive in the message format (`S.encode_save`) and are
//! checked by `game::runtime_textures`.
use super::{Ctx, bytes, world_status};
use crate::base::hash::{hash_remembered, name_of};
use crate::game::runtime_textures::{MAX_TEXTURE_SIDE, TEXTURE_FORMATS, TEXTURE_TYPE_2D, atlas_from_table};
use crate::scene::message::{MsgValue, decode};
use crate::script::boundary::{OK, fail};
use std::ffi::c_char;
use std::sync::Arc;

/// Defold's `buffer.VALUE_TYPE_*`: (name, value, the C type a stream holds). One list: Lua's
/// constants and arrays come from it.
pub const VALUE_TYPES: &[(&str, u32, &str)] = &[
    ("VALUE_TYPE_UINT8", 0, "uint8_t"),
    ("VALUE_TYPE_UINT16", 1, "uint16_t"),
    ("VALUE_TYPE_UINT32", 2, "uint32_t"),
    ("VALUE_TYPE_UINT64", 3, "uint64_t"),
    ("VALUE_TYPE_INT8", 4, "int8_t"),
    ("VALUE_TYPE_INT16", 5, "int16_t"),
    ("VALUE_TYPE_INT32", 6, "int32_t"),
    ("VALUE_TYPE_INT64", 7, "int64_t"),
    ("VALUE_TYPE_FLOAT32", 8, "float"),
];

/// Bytes one buffer may hold: a full-size RGBA texture's.
pub const BUFFER_MAX_BYTES: f64 = (MAX_TEXTURE_SIDE as f64) * (MAX_TEXTURE_SIDE as f64) * 4.0;

/// Defold's `graphics.*` (and `resource.*`) texture constants that the functions here take.
pub fn graphics_constants() -> Vec<(&'static str, f64)> {
    let mut k: Vec<(&str, f64)> = TEXTURE_FORMATS.iter().map(|&(n, v, _)| (n, f64::from(v))).collect();
    k.push(("TEXTURE_TYPE_2D", f64::from(TEXTURE_TYPE_2D)));
    k.push(("COMPRESSION_TYPE_DEFAULT", 0.0));
    k
}

/// A table the Lua side encoded (`n` bytes at `p`).
///
/// # Safety
/// `p` is null or `n` bytes held by the caller during this call.
unsafe fn table(p: *const c_char, n: usize) -> Result<MsgValue, String> {
    // SAFETY: as the function's contract says.
    decode(unsafe { bytes(p, n) })
}

/// A resource path passed as text (`n` bytes at `p`).
///
/// # Safety
/// As [`table`].
unsafe fn path(p: *const c_char, n: usize) -> String {
    // SAFETY: as the function's contract says.
    String::from_utf8_lossy(unsafe { bytes(p, n) }).into_owned()
}

crate::export! {
    /// `resource.create_texture(path, params)`: a transparent texture of the table's size.
    fn resource_create_texture(ctx: Ctx, p: *const c_char, n: usize, params: *const c_char, len: usize) -> i32 {
        // SAFETY: Lua passes two strings it holds during the call.
        let (path, params) = unsafe { (path(p, n), table(params, len)) };
        world_status(ctx, |w| {
            let params = match params {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            match w.textures.create(&path, &params) {
                Ok(()) => {
                    hash_remembered(&path);
                    OK
                }
                Err(e) => fail(e),
            }
        })
    }

    /// `resource.set_texture(path, params, buffer)`: the buffer's bytes (`data`, `data_len`) into
    /// a region of the texture whose path hashes to `texture`; atlases made from it show the new
    /// pixels from the next frame.
    fn resource_set_texture(
        ctx: Ctx,
        texture: u64,
        params: *const c_char,
        len: usize,
        data: *const c_char,
        data_len: usize,
    ) -> i32 {
        // SAFETY: Lua passes a string and a buffer's array it holds during the call.
        let (params, data) = unsafe { (table(params, len), bytes(data, data_len)) };
        world_status(ctx, |w| {
            let params = match params {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            let Some(path) = crate::base::hash::text_of(texture) else {
                return fail(format!("{} is no texture made by resource.create_texture", name_of(texture)));
            };
            if let Err(e) = w.textures.set(&path, &params, data) {
                return fail(e);
            }
            // Atlases over this texture take its new pixels (a new page: the renderer uploads it).
            let crate::game::World { textures, sprites, .. } = w;
            let Some(t) = textures.get(&path) else { return OK };
            for a in sprites.atlases.iter_mut().filter(|a| textures.is_atlas_of(&a.source, &path)) {
                let mut new = (**a).clone();
                new.rgba.clone_from(&t.rgba);
                *a = Arc::new(new);
            }
            OK
        })
    }

    /// `resource.create_atlas(path, params)`: an atlas over one of the scripts' textures that
    /// sprites (`go.set(url, "image", h)`) and guis (`go.set(gui, "textures", h, { key })`) use
    /// as one read from a file.
    fn resource_create_atlas(ctx: Ctx, p: *const c_char, n: usize, params: *const c_char, len: usize) -> i32 {
        // SAFETY: Lua passes two strings it holds during the call.
        let (path, params) = unsafe { (path(p, n), table(params, len)) };
        world_status(ctx, |w| {
            let params = match params {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            let h = hash_remembered(&path);
            if w.sprites.atlases.iter().any(|a| hash_remembered(&a.source) == h) {
                return fail(format!("'{path}' exists already"));
            }
            let texture = match params.get("texture") {
                Some(MsgValue::Hash(t)) => crate::base::hash::text_of(*t),
                Some(MsgValue::String(s)) => Some(s.clone()),
                _ => return fail("texture: the hash or path of a texture made by resource.create_texture expected".into()),
            };
            let Some(page) = texture.as_deref().and_then(|t| w.textures.get(t)) else {
                return fail(format!("texture: {} is no texture made by resource.create_texture", texture.unwrap_or_default()));
            };
            match atlas_from_table(&path, page, &params) {
                Ok(atlas) => {
                    let texture = page.path.clone();
                    w.textures.note_atlas(&path, &texture);
                    w.sprites.atlas_index(&Arc::new(atlas));
                    OK
                }
                Err(e) => fail(e),
            }
        })
    }
}
