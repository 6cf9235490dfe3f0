//! FFI endpoints of the `resource` functions that make, read and change textures and atlases
//! while the game runs (`create_texture`, `set_texture`, `create_atlas`, `get_atlas`,
//! `get_texture_info`), with the constants of the `buffer`, `graphics` and `image` namespaces
//! and `image.load`'s decoding. Lua side: `lua/resource.lua`, `lua/buffer.lua`,
//! `lua/graphics.lua`, `lua/image.lua`; tables cross in the message format (`S.encode_save`,
//! `S.decode_message`) and are checked and built by `game::runtime_textures`.
use super::types::V3;
use super::{Ctx, bytes, copy_out, put, world_status};
use crate::base::hash::{hash_remembered, name_of};
use crate::game::World;
use crate::game::runtime_textures::{
    MAX_TEXTURE_SIDE, RuntimeTexture, TEXTURE_FORMATS, TEXTURE_TYPE_2D, atlas_from_table, atlas_source_path,
    atlas_to_table, page_texture_path, write_region,
};
use crate::project::sprite::Atlas;
use crate::scene::message::{MsgValue, decode, encode};
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

/// Defold's `image.TYPE_*`; `image.load` answers RGBA.
pub const IMAGE_TYPES: &[(&str, f64)] =
    &[("TYPE_RGB", 0.0), ("TYPE_RGBA", 1.0), ("TYPE_LUMINANCE", 2.0), ("TYPE_LUMINANCE_ALPHA", 3.0)];

/// `image.load`'s pixels: a PNG or JPEG as RGBA8, rows top first (bottom first when `flip`),
/// colours times alpha when `premultiply`; `None` for bytes that are no image it reads (or
/// one past the decoder's size limits, refused before its pixels are allocated).
pub fn decode_image(data: &[u8], premultiply: bool, flip: bool) -> Option<(u32, u32, Vec<u8>)> {
    let (w, h, mut rgba) = crate::project::gltf::decode_image(data).ok()?;
    if premultiply {
        for px in rgba.chunks_exact_mut(4) {
            let a = u16::from(px[3]);
            for c in &mut px[..3] {
                *c = ((u16::from(*c) * a + 127) / 255) as u8;
            }
        }
    }
    if flip && w > 0 {
        let row = w as usize * 4;
        rgba = rgba.chunks_exact(row).rev().flatten().copied().collect();
    }
    Some((w, h, rgba))
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

/// The texture an atlas's page is: the one a script made it over, else the file atlas's
/// (Defold's built name, [`page_texture_path`]).
pub(super) fn page_of(w: &World, a: &Atlas) -> String {
    w.textures.texture_of(&a.source).map_or_else(|| page_texture_path(&a.source), str::to_string)
}

/// The atlas whose path (or Defold's built name for it) hashes to `path`, with its page's
/// texture: one the game uses, else the file read now (and kept, for `set_texture`).
fn atlas_named(w: &mut World, path: u64) -> Result<(Arc<Atlas>, String), String> {
    let Some(text) = crate::base::hash::text_of(path) else {
        return Err(format!("{} is no atlas the game knows", name_of(path)));
    };
    let source = atlas_source_path(&text);
    if let Some(a) = w.sprites.atlases.iter().find(|a| a.source == source).cloned() {
        let texture = page_of(w, &a);
        return Ok((a, texture));
    }
    let is_file = source.ends_with(".atlas") || source.ends_with(".tilesource");
    let Some(res) = w.factories.res.clone().filter(|_| is_file) else {
        return Err(format!("'{text}' is no atlas or tile source"));
    };
    let atlas = Arc::new(crate::project::sprite::load_atlas(&res, &source).map_err(|e| e.to_string())?);
    w.sprites.atlas_index(&atlas);
    Ok((atlas, page_texture_path(&source)))
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
            if w.textures.get(&path).is_some()
                && let Err(e) = w.textures.set(&path, &params, data)
            {
                return fail(e);
            }
            // Atlases over this texture take its new pixels (a new page: the renderer uploads
            // it); a file atlas's page is written itself.
            let pages: Vec<usize> =
                (0..w.sprites.atlases.len()).filter(|&i| page_of(w, &w.sprites.atlases[i]) == path).collect();
            if w.textures.get(&path).is_none() && pages.is_empty() {
                return fail(format!("'{path}' is no texture made by resource.create_texture or atlas page"));
            }
            for i in pages {
                let mut atlas: Atlas = (*w.sprites.atlases[i]).clone();
                match w.textures.get(&path) {
                    Some(made) => atlas.rgba.clone_from(&made.rgba),
                    None => {
                        let (width, height, rgba) = (atlas.width, atlas.height, std::mem::take(&mut atlas.rgba));
                        let mut page = RuntimeTexture { path: path.clone(), width, height, rgba };
                        if let Err(e) = write_region(&mut page, &params, data) {
                            return fail(e);
                        }
                        atlas.rgba = page.rgba;
                    }
                }
                w.sprites.atlases[i] = Arc::new(atlas);
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
    /// `resource.get_atlas(path)`: the atlas's table (`game::runtime_textures::atlas_to_table`)
    /// in the message format, copied into `buf`; its length, -1 with the message. An atlas or
    /// tile source file no sprite has used is read now.
    fn resource_get_atlas(ctx: Ctx, path: u64, buf: *mut c_char, cap: usize) -> i32 {
        let mut len = -1;
        world_status(ctx, |w| match atlas_named(w, path) {
            Ok((atlas, texture)) => {
                let mut out = Vec::new();
                encode(&atlas_to_table(&atlas, &texture), &mut out);
                len = copy_out(&out, buf, cap);
                OK
            }
            Err(e) => fail(e),
        });
        len
    }

    /// `resource.get_texture_info(path)`: the width and height (x, y of `out`) of a texture a
    /// script made or an atlas's page.
    fn resource_texture_info(ctx: Ctx, texture: u64, out: *mut V3) -> i32 {
        world_status(ctx, |w| {
            let Some(path) = crate::base::hash::text_of(texture) else {
                return fail(format!("{} is no texture", name_of(texture)));
            };
            let size = w.textures.get(&path).map(|t| (t.width, t.height)).or_else(|| {
                let a = w.sprites.atlases.iter().find(|a| page_texture_path(&a.source) == path)?;
                Some((a.width, a.height))
            });
            match size {
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                Some((x, y)) => unsafe { put(out, V3 { x: x as f32, y: y as f32, z: 0.0 }) },
                None => fail(format!("'{path}' is no texture made by resource.create_texture or atlas page")),
            }
        })
    }
}
