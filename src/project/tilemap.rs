//! Tile maps: Defold's `.tilemap` files (`tile_ddf.proto`'s `TileGrid`: a tile source and
//! layers of cells), read into runtime types once at load with their tile source. The game's
//! tile map world (`game/tilemaps`) never sees the file format.
use super::defold::read::{Problems, Reader};
use crate::base::error::LoadError;
use crate::project::sprite::{Atlas, BlendMode};
use std::sync::Arc;

/// Layers of one map.
pub const MAX_LAYERS: usize = 64;
/// Cells of one layer, and the span of its coordinates either way.
pub const MAX_CELLS: usize = 1 << 20;
pub const MAX_COORDINATE: i32 = 1 << 15;

/// `TileGrid` (tile_ddf.proto).
const TILE_GRID: &[&str] = &["tile_set", "layers", "material", "blend_mode"];
/// `TileLayer`.
const LAYER: &[&str] = &["id", "z", "is_visible", "id_hash", "cell"];
/// `TileCell`.
const CELL: &[&str] = &["x", "y", "tile", "h_flip", "v_flip", "rotate90"];

/// One tile of a layer: its tile source index (from 0) and how it is turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub x: i32,
    pub y: i32,
    pub tile: u32,
    pub h_flip: bool,
    pub v_flip: bool,
    pub rotate90: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LayerSpec {
    pub id: String,
    pub z: f32,
    pub visible: bool,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TileMapSpec {
    pub path: String,
    /// The `.tilesource`, as written.
    pub tile_set: String,
    /// Its tiles in index order (frames of the atlas built from it).
    pub tiles: Arc<Atlas>,
    pub layers: Vec<LayerSpec>,
    pub material: String,
    pub blend: BlendMode,
}

/// A `tilemap` component: its map and its own place in its game object.
#[derive(Debug, Clone, PartialEq)]
pub struct TileMapComponent {
    pub map: Arc<TileMapSpec>,
    pub transform: crate::project::ComponentTransform,
}

/// Defold's built-in tile map material: Sinew's sprite program draws it.
pub const DEFAULT_MATERIAL: &str = "/builtins/materials/tile_map.material";

/// Reads a `.tilemap` file; `tiles` loads its tile source (the field naming it, for errors).
pub fn parse(
    path: &str,
    text: &str,
    tiles: &mut crate::project::particlefx::AtlasLoader,
) -> Result<TileMapSpec, Vec<LoadError>> {
    let m = super::defold::text::parse(path, text)?;
    let mut p = Problems::default();
    let r = Reader::new(&m, "a tile map", TILE_GRID, &["layers"], &mut p);
    let Some((tile_set, tf)) = r.required("tile_set", &mut p) else { return Err(p.0) };
    let atlas = match tiles(tile_set, tf) {
        Ok(a) => Some(a),
        Err(e) => {
            p.0.push(e);
            None
        }
    };
    let material = r.string("material", &mut p).map_or(DEFAULT_MATERIAL, |(s, _)| s).to_string();
    let blend = match r.enum_name("blend_mode", &mut p) {
        None | Some(("BLEND_MODE_ALPHA", _)) => BlendMode::Alpha,
        Some(("BLEND_MODE_ADD" | "BLEND_MODE_ADD_ALPHA", _)) => BlendMode::Add,
        Some(("BLEND_MODE_MULT", _)) => BlendMode::Multiply,
        Some(("BLEND_MODE_SCREEN", _)) => BlendMode::Screen,
        Some((_, f)) => {
            p.at(
                &f.value_at,
                "`blend_mode` must be BLEND_MODE_ALPHA, BLEND_MODE_ADD, BLEND_MODE_MULT or BLEND_MODE_SCREEN",
            );
            BlendMode::Alpha
        }
    };
    let count = atlas.as_ref().map_or(u32::MAX, |a| a.frames.len() as u32);
    let mut layers = Vec::new();
    for f in r.all("layers") {
        if layers.len() == MAX_LAYERS {
            p.at(&f.at, format!("more than {MAX_LAYERS} layers"));
            break;
        }
        if let Some(l) = layer(f, count, tile_set, &mut p) {
            layers.push(l);
        }
    }
    match (atlas, p.0.is_empty()) {
        (Some(tiles), true) => {
            Ok(TileMapSpec { path: path.to_string(), tile_set: tile_set.to_string(), tiles, layers, material, blend })
        }
        _ => Err(p.0),
    }
}

fn layer(f: &super::defold::text::Field, count: u32, tile_set: &str, p: &mut Problems) -> Option<LayerSpec> {
    let m = super::defold::read::message(f, "a layer", p)?;
    let r = Reader::new(m, "a layer", LAYER, &["cell"], p);
    let id = r.string("id", p).map_or("layer1", |(s, _)| s).to_string();
    let z = r.number("z", p).map_or(0.0, |(v, _)| v as f32);
    let visible = r.number("is_visible", p).is_none_or(|(v, _)| v != 0.0);
    let mut cells = Vec::new();
    for cf in r.all("cell") {
        if cells.len() == MAX_CELLS {
            p.at(&cf.at, format!("layer '{id}': more than {MAX_CELLS} cells"));
            break;
        }
        let Some(cm) = super::defold::read::message(cf, "a cell", p) else { continue };
        let c = Reader::new(cm, "a cell", CELL, &[], p);
        let int = |name: &str, p: &mut Problems| -> Option<i64> {
            let (v, f) = c.number(name, p)?;
            if v.fract() != 0.0 || v.abs() > f64::from(MAX_COORDINATE) * 4.0 {
                p.at(&f.value_at, format!("`{name}` must be a whole number within {}", MAX_COORDINATE));
                return None;
            }
            Some(v as i64)
        };
        let (x, y, tile) = (int("x", p).unwrap_or(0), int("y", p).unwrap_or(0), int("tile", p).unwrap_or(0));
        let flag = |name: &str, p: &mut Problems| int(name, p).is_some_and(|v| v != 0);
        if x.abs() >= i64::from(MAX_COORDINATE) || y.abs() >= i64::from(MAX_COORDINATE) {
            p.at(&cf.at, format!("layer '{id}': cell ({x}, {y}) is further than {MAX_COORDINATE} tiles out"));
            continue;
        }
        if tile < 0 || tile >= i64::from(count) {
            p.at(&cf.at, format!("layer '{id}': tile {tile} is not in {tile_set} (it has {count} tiles)"));
            continue;
        }
        let (h_flip, v_flip, rotate90) = (flag("h_flip", p), flag("v_flip", p), flag("rotate90", p));
        cells.push(Cell { x: x as i32, y: y as i32, tile: tile as u32, h_flip, v_flip, rotate90 });
    }
    Some(LayerSpec { id, z, visible, cells })
}

/// The map's collision shape (a collision object naming it, as Defold's `collision_shape`).
pub fn collision(map: &TileMapSpec) -> crate::project::physics::TileCollision {
    crate::project::physics::TileCollision {
        source: map.path.clone(),
        groups: tile_groups(&map.tiles, map.layers.iter().flat_map(|l| &l.cells)),
        offset: ([0.0; 3], [0.0, 0.0, 0.0, 1.0]),
    }
}

/// Each cell's tile hull, turned as the cell is drawn, by collision group, in the order given.
/// Every layer collides, as in Defold; cells whose tile has no hull (no collision group, or no
/// opaque pixel) do not.
pub fn tile_groups<'a>(
    tiles: &Atlas,
    cells: impl Iterator<Item = &'a Cell>,
) -> Vec<crate::project::physics::TileGroup> {
    let mut out: Vec<crate::project::physics::TileGroup> = Vec::new();
    for c in cells {
        let (Some(Some(shape)), Some(f)) = (tiles.hulls.get(c.tile as usize), tiles.frames.get(c.tile as usize)) else {
            continue;
        };
        let (w, h) = (f.width as f32, f.height as f32);
        let centre = [(c.x as f32 + 0.5) * w, (c.y as f32 + 0.5) * h];
        let hull = shape
            .hull
            .iter()
            .map(|&[u, v]| {
                // As `game::tilemaps` draws the cell: the image flipped, then turned a quarter
                // clockwise (its bottom-left to the square's top-left).
                let (u, v) = (if c.h_flip { -u } else { u } * w, if c.v_flip { -v } else { v } * h);
                let (u, v) = if c.rotate90 { (v, -u) } else { (u, v) };
                [centre[0] + u, centre[1] + v]
            })
            .collect();
        match out.iter_mut().find(|g| g.group == shape.group) {
            Some(g) => g.hulls.push(hull),
            None => out.push(crate::project::physics::TileGroup { group: shape.group.clone(), hulls: vec![hull] }),
        }
    }
    out
}
