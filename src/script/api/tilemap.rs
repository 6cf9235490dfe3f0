//! FFI endpoints of the `tilemap` namespace. Lua side: `lua/tilemap.lua`.
use super::{Ctx, world_status};
use crate::base::hash::name_of;
use crate::game::World;
use crate::game::tilemaps::Turn;
use crate::scene::ComponentRef;
use crate::script::boundary::{OK, fail};

/// The bits of `tilemap_set`'s `flags` and `tilemap_get`'s second answer (`tilemap.H_FLIP`,
/// `V_FLIP`, `ROTATE_*`): flips first, then a quarter turn clockwise; half a turn is both flips.
pub mod flag {
    pub const H_FLIP: u32 = 1;
    pub const V_FLIP: u32 = 2;
    pub const ROTATE_90: u32 = 4;
    pub const ROTATE_180: u32 = H_FLIP | V_FLIP;
    pub const ROTATE_270: u32 = H_FLIP | V_FLIP | ROTATE_90;
}

/// The `K` constants `lua/tilemap.lua` reads.
pub fn constants() -> Vec<(&'static str, f64)> {
    [
        ("TILEMAP_H_FLIP", flag::H_FLIP),
        ("TILEMAP_V_FLIP", flag::V_FLIP),
        ("TILEMAP_ROTATE_90", flag::ROTATE_90),
        ("TILEMAP_ROTATE_180", flag::ROTATE_180),
        ("TILEMAP_ROTATE_270", flag::ROTATE_270),
    ]
    .iter()
    .map(|&(n, v)| (n, f64::from(v)))
    .chain([("TILEMAP_OUTSIDE", f64::from(OUTSIDE))])
    .collect()
}

/// What `tilemap_get`, `tilemap_set` and `tilemap_visible` return for a tile outside the map or
/// a layer it lacks: Defold logs those and answers nil / false, where a wrong argument is an
/// error.
pub const OUTSIDE: i32 = 2;

fn outside(e: String) -> i32 {
    fail(e);
    OUTSIDE
}

/// The tile map of a component, or Defold's message naming it.
fn map_of(w: &World, slot: u32, comp: u64) -> Result<u32, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::TileMap(i)) if w.tilemaps.get(i).is_some() => Ok(i),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

crate::export! {
    /// `tilemap.get_bounds`: x, y (the lowest tile, from 1), width and height into `out`.
    fn tilemap_bounds(ctx: Ctx, slot: u32, comp: u64, out: *mut i32) -> i32 {
        world_status(ctx, |w| {
            let b = match map_of(w, slot, comp) {
                Ok(i) => w.tilemaps.bounds(i).unwrap_or_default(),
                Err(e) => return fail(e),
            };
            if out.is_null() {
                return fail("null out-pointer".into());
            }
            // SAFETY: `out` is a Lua buffer of 4 int32 (checked non-null).
            unsafe { std::ptr::copy_nonoverlapping([b.0, b.1, b.2, b.3].as_ptr(), out, 4) };
            OK
        })
    }

    /// `tilemap.get_tile` / `get_tile_info`: the tile (from 1, 0 for none) and its
    /// [`flag`] bits into `out` (2 u32).
    fn tilemap_get(ctx: Ctx, slot: u32, comp: u64, layer: u64, x: i32, y: i32, out: *mut u32) -> i32 {
        world_status(ctx, |w| {
            let i = match map_of(w, slot, comp) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            let r = w.tilemaps.tile(i, layer, x, y).map(|tile| (tile, w.tilemaps.turn(i, layer, x, y)));
            match r {
                Ok((tile, turn)) if !out.is_null() => {
                    let bit = |on: bool, b: u32| if on { b } else { 0 };
                    let bits = bit(turn.h_flip, flag::H_FLIP)
                        | bit(turn.v_flip, flag::V_FLIP)
                        | bit(turn.rotate90, flag::ROTATE_90);
                    // SAFETY: `out` is a Lua buffer of 2 u32 (checked non-null).
                    unsafe {
                        *out = tile;
                        *out.add(1) = bits;
                    }
                    OK
                }
                Ok(_) => fail("null out-pointer".into()),
                Err(e) => outside(e),
            }
        })
    }

    /// `tilemap.set_tile`: `tile` from 1 (0 clears), turned as `flags` ([`flag`]) says.
    fn tilemap_set(ctx: Ctx, slot: u32, comp: u64, layer: u64, x: i32, y: i32, tile: u32, flags: u32) -> i32 {
        world_status(ctx, |w| {
            let turn = Turn {
                h_flip: flags & flag::H_FLIP != 0,
                v_flip: flags & flag::V_FLIP != 0,
                rotate90: flags & flag::ROTATE_90 != 0,
            };
            let i = match map_of(w, slot, comp).and_then(|i| w.tilemaps.check_tile(i, tile).map(|_| i)) {
                Ok(i) => i,
                Err(e) => return fail(e),
            };
            match w.tilemaps.set_tile(i, layer, x, y, tile, turn) {
                Ok(()) => OK,
                Err(e) => outside(e),
            }
        })
    }

    fn tilemap_visible(ctx: Ctx, slot: u32, comp: u64, layer: u64, on: i32) -> i32 {
        world_status(ctx, |w| match map_of(w, slot, comp) {
            Ok(i) => match w.tilemaps.set_visible(i, layer, on != 0) {
                Ok(()) => OK,
                Err(e) => outside(e),
            },
            Err(e) => fail(e),
        })
    }
}
