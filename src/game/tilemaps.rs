//! Tile map components (Defold's `tilemap`): layers of tiles from one tile source, drawn with
//! the sprites (the same quads, sorted by depth and batched with them), changed by
//! `tilemap.set_tile` and `set_visible` and read by `get_tile` and `get_bounds`. Defold's
//! coordinates: cell (x, y) of the file is tile (x + 1, y + 1) of the API, and its square spans
//! `x * width .. (x + 1) * width` (likewise y) in the component's space.
use crate::base::hash::{Hash, hash_remembered};
use crate::game::sprites::quads::SpriteQuad;
use crate::project::sprite::Atlas;
use crate::project::tilemap::{Cell, DEFAULT_MATERIAL, TileMapComponent, TileMapSpec};
use crate::scene::Scene;
use glam::{Mat4, Vec3};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One layer: its cells by file coordinates (ordered, so the quads come in the same order
/// every frame).
pub struct Layer {
    pub id: Hash,
    pub z: f32,
    pub visible: bool,
    pub cells: BTreeMap<(i32, i32), Cell>,
}

pub struct TileMapInstance {
    pub slot: u32,
    pub id: Hash,
    pub alive: bool,
    pub enabled: bool,
    pub spec: Arc<TileMapSpec>,
    /// Index into `SpriteWorld::atlases`.
    pub atlas: u32,
    pub material: Hash,
    /// The custom material's index in `ModelWorld::materials`; None: the built-in program.
    pub material_index: Option<u32>,
    /// Its place in its game object.
    pub local: Mat4,
    pub layers: Vec<Layer>,
    /// The cells the file spans, lowest corner and size (Defold fixes them at load):
    /// `set_tile` and `get_tile` stay inside.
    pub bounds: (i32, i32, i32, i32),
}

#[derive(Default)]
pub struct TileMapWorld {
    pub instances: Vec<TileMapInstance>,
    free: Vec<u32>,
    /// Maps whose tiles `set_tile` changed since the physics last took them.
    changed: Vec<u32>,
}

/// `h_flip`, `v_flip` and `rotate90` of `tilemap.set_tile`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Turn {
    pub h_flip: bool,
    pub v_flip: bool,
    pub rotate90: bool,
}

fn bounds_of(spec: &TileMapSpec) -> (i32, i32, i32, i32) {
    let mut cells = spec.layers.iter().flat_map(|l| l.cells.iter());
    let Some(first) = cells.next() else { return (0, 0, 0, 0) };
    let (mut lo, mut hi) = ((first.x, first.y), (first.x, first.y));
    for c in cells {
        lo = (lo.0.min(c.x), lo.1.min(c.y));
        hi = (hi.0.max(c.x), hi.1.max(c.y));
    }
    (lo.0, lo.1, hi.0 - lo.0 + 1, hi.1 - lo.1 + 1)
}

impl TileMapWorld {
    pub fn create(
        &mut self,
        slot: u32,
        id: &str,
        c: &TileMapComponent,
        atlas_index: &mut dyn FnMut(&Arc<Atlas>) -> u32,
        material_index: Option<u32>,
    ) -> u32 {
        let spec = &c.map;
        let layers = spec
            .layers
            .iter()
            .map(|l| Layer {
                id: hash_remembered(&l.id),
                z: l.z,
                visible: l.visible,
                cells: l.cells.iter().map(|c| ((c.x, c.y), *c)).collect(),
            })
            .collect();
        let inst = TileMapInstance {
            slot,
            id: hash_remembered(id),
            alive: true,
            enabled: true,
            spec: spec.clone(),
            atlas: atlas_index(&spec.tiles),
            material: hash_remembered(if spec.material.is_empty() { DEFAULT_MATERIAL } else { &spec.material }),
            material_index,
            local: c.transform.matrix().unwrap_or(Mat4::IDENTITY),
            layers,
            bounds: bounds_of(spec),
        };
        match self.free.pop() {
            Some(i) => {
                self.instances[i as usize] = inst;
                i
            }
            None => {
                self.instances.push(inst);
                self.instances.len() as u32 - 1
            }
        }
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(t) = self.instances.get_mut(i as usize).filter(|t| t.alive) {
            t.alive = false;
            t.layers.clear();
            self.free.push(i);
        }
    }

    pub fn get(&self, i: u32) -> Option<&TileMapInstance> {
        self.instances.get(i as usize).filter(|t| t.alive)
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut TileMapInstance> {
        self.instances.get_mut(i as usize).filter(|t| t.alive)
    }

    /// `tilemap.get_bounds`: the lowest tile (from 1) and the size in tiles.
    pub fn bounds(&self, i: u32) -> Option<(i32, i32, i32, i32)> {
        self.get(i).map(|t| (t.bounds.0 + 1, t.bounds.1 + 1, t.bounds.2, t.bounds.3))
    }

    /// The layer named `layer` and the file cell of API tile `(x, y)`, or the error Defold gives.
    fn locate(&self, i: u32, layer: Hash, x: i32, y: i32) -> Result<(usize, (i32, i32)), String> {
        let t = self.get(i).ok_or("the tile map was deleted")?;
        let k = t
            .layers
            .iter()
            .position(|l| l.id == layer)
            .ok_or_else(|| format!("Could not find layer {}.", crate::base::hash::name_of(layer)))?;
        let (bx, by, bw, bh) = t.bounds;
        let cell = (x.wrapping_sub(1), y.wrapping_sub(1));
        if cell.0 < bx || cell.1 < by || cell.0 >= bx + bw || cell.1 >= by + bh {
            return Err(format!(
                "the tile ({x}, {y}) is outside the map (x {}..{}, y {}..{})",
                bx + 1,
                bx + bw,
                by + 1,
                by + bh
            ));
        }
        Ok((k, cell))
    }

    /// `tilemap.get_tile`: the tile (from 1) at API tile `(x, y)` of `layer`; 0 for none.
    pub fn tile(&self, i: u32, layer: Hash, x: i32, y: i32) -> Result<u32, String> {
        let (k, cell) = self.locate(i, layer, x, y)?;
        Ok(self.get(i).and_then(|t| t.layers[k].cells.get(&cell)).map_or(0, |c| c.tile + 1))
    }

    /// How the tile at API tile `(x, y)` of `layer` is turned (nothing for an empty cell or an
    /// error, which `tile` reports).
    pub fn turn(&self, i: u32, layer: Hash, x: i32, y: i32) -> Turn {
        let Ok((k, cell)) = self.locate(i, layer, x, y) else { return Turn::default() };
        let c = self.get(i).and_then(|t| t.layers[k].cells.get(&cell));
        c.map_or(Turn::default(), |c| Turn { h_flip: c.h_flip, v_flip: c.v_flip, rotate90: c.rotate90 })
    }

    /// Whether `tile` (from 1; 0 for none) is one of the map's tile source, else the message.
    pub fn check_tile(&self, i: u32, tile: u32) -> Result<(), String> {
        let t = self.get(i).ok_or("the tile map was deleted")?;
        let count = t.spec.tiles.frames.len() as u32;
        if tile > count {
            return Err(format!("tile {tile} is not in {} (it has {count} tiles)", t.spec.tile_set));
        }
        Ok(())
    }

    /// `tilemap.set_tile`: `tile` from 1 (0 clears the cell; see [`Self::check_tile`]).
    pub fn set_tile(&mut self, i: u32, layer: Hash, x: i32, y: i32, tile: u32, turn: Turn) -> Result<(), String> {
        self.check_tile(i, tile)?;
        let (k, cell) = self.locate(i, layer, x, y)?;
        if !self.changed.contains(&i) {
            self.changed.push(i);
        }
        let Some(t) = self.get_mut(i) else { return Ok(()) };
        let cells = &mut t.layers[k].cells;
        if tile == 0 {
            cells.remove(&cell);
        } else {
            let Turn { h_flip, v_flip, rotate90 } = turn;
            cells.insert(cell, Cell { x: cell.0, y: cell.1, tile: tile - 1, h_flip, v_flip, rotate90 });
        }
        Ok(())
    }

    /// The maps `set_tile` changed since the last call that `shaped(slot, file)` says a
    /// collision object takes its shape from (the hulls of others are not made): each one's
    /// game object, file and collision hulls by group (cells in layer order, then by
    /// coordinates, so a shape is made the same way every run).
    pub fn take_changed(
        &mut self,
        shaped: impl Fn(u32, &str) -> bool,
    ) -> Vec<(u32, String, Vec<crate::project::physics::TileGroup>)> {
        let changed = std::mem::take(&mut self.changed);
        changed
            .into_iter()
            .filter_map(|i| self.get(i))
            .filter(|t| shaped(t.slot, &t.spec.path))
            .map(|t| {
                let cells = t.layers.iter().flat_map(|l| l.cells.values());
                (t.slot, t.spec.path.clone(), crate::project::tilemap::tile_groups(&t.spec.tiles, cells))
            })
            .collect()
    }

    /// `tilemap.set_visible`.
    pub fn set_visible(&mut self, i: u32, layer: Hash, on: bool) -> Result<(), String> {
        let t = self.get_mut(i).ok_or("the tile map was deleted")?;
        let l = t.layers.iter_mut().find(|l| l.id == layer);
        let l = l.ok_or_else(|| format!("Could not find layer {}.", crate::base::hash::name_of(layer)))?;
        l.visible = on;
        Ok(())
    }

    /// Appends a quad per tile of every visible layer of every enabled map.
    pub fn quads(&self, scene: &Scene, out: &mut Vec<SpriteQuad>) {
        for t in self.instances.iter().filter(|t| t.alive && t.enabled && scene.is_live(t.slot)) {
            let frame = Mat4::from(scene.world_of(t.slot)) * t.local;
            let atlas = &t.spec.tiles;
            let (pw, ph) = (atlas.width.max(1) as f32, atlas.height.max(1) as f32);
            for l in t.layers.iter().filter(|l| l.visible) {
                for c in l.cells.values() {
                    let Some(f) = atlas.frames.get(c.tile as usize) else { continue };
                    let (w, h) = (f.width as f32, f.height as f32);
                    let (x0, y0) = (c.x as f32 * w, c.y as f32 * h);
                    let at = |x: f32, y: f32| frame.transform_point3(Vec3::new(x, y, l.z));
                    let (bl, br, tr, tl) = (at(x0, y0), at(x0 + w, y0), at(x0 + w, y0 + h), at(x0, y0 + h));
                    // The image's corners (bottom-left first, as `uv` gives them) turned a
                    // quarter clockwise: its bottom-left goes to the square's top-left.
                    let corners = if c.rotate90 { [tl, bl, br, tr] } else { [bl, br, tr, tl] };
                    let (mut l0, mut t0, mut r0, mut b0) =
                        (f.x as f32 / pw, f.y as f32 / ph, (f.x + f.width) as f32 / pw, (f.y + f.height) as f32 / ph);
                    if c.h_flip {
                        std::mem::swap(&mut l0, &mut r0);
                    }
                    if c.v_flip {
                        std::mem::swap(&mut t0, &mut b0);
                    }
                    out.push(SpriteQuad {
                        corners,
                        uv: [l0, t0, r0, b0],
                        local: [-w * 0.5, -h * 0.5, w * 0.5, h * 0.5],
                        color: [1.0; 4],
                        atlas: t.atlas,
                        blend: t.spec.blend,
                        material: t.material,
                        material_index: t.material_index,
                        sprite: u32::MAX,
                        constants_key: 0,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::sprite::BlendMode;
    use crate::project::tilemap::LayerSpec;
    use glam::Quat;

    /// A map of one 4 x 2 tile (the one-frame test atlas) with the given cells, at `slot`.
    fn world_with(cells: Vec<Cell>) -> (TileMapWorld, Scene, u32) {
        let mut scene = Scene::default();
        let prefix = scene.intern_prefix("/");
        let slot = scene.spawn("/m", prefix, Vec3::new(100.0, 0.0, 0.0), Quat::IDENTITY, Vec3::ONE).expect("spawn");
        scene.update_world_transforms();
        let spec = TileMapSpec {
            path: "/m.tilemap".into(),
            tile_set: "/a.atlas".into(),
            tiles: Arc::new(Atlas::one_frame("a", false)),
            layers: vec![LayerSpec { id: "l".into(), z: 0.5, visible: true, cells }],
            material: DEFAULT_MATERIAL.into(),
            blend: BlendMode::Alpha,
        };
        let c = TileMapComponent { map: Arc::new(spec), transform: crate::project::ComponentTransform::IDENTITY };
        let mut w = TileMapWorld::default();
        w.create(slot, "m", &c, &mut |_| 0, None);
        (w, scene, slot)
    }

    fn cell(x: i32, y: i32, h_flip: bool, v_flip: bool, rotate90: bool) -> Cell {
        Cell { x, y, tile: 0, h_flip, v_flip, rotate90 }
    }

    #[test]
    fn a_cell_covers_its_square_at_its_layer_depth_in_the_object() {
        let (w, scene, _) = world_with(vec![cell(2, 1, false, false, false)]);
        let mut out = Vec::new();
        w.quads(&scene, &mut out);
        assert_eq!(out.len(), 1);
        // Cell (2, 1) of 4 x 2 tiles: x 8..12, y 2..4, moved by the object's x = 100.
        let q = out[0];
        assert_eq!(q.corners[0], Vec3::new(108.0, 2.0, 0.5));
        assert_eq!(q.corners[2], Vec3::new(112.0, 4.0, 0.5));
        assert_eq!(q.uv, [0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn flips_swap_the_page_edges_and_a_quarter_turn_turns_the_corners() {
        let (w, scene, _) = world_with(vec![cell(0, 0, true, true, false), cell(1, 0, false, false, true)]);
        let mut out = Vec::new();
        w.quads(&scene, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].uv, [1.0, 1.0, 0.0, 0.0], "both flips: left/right and top/bottom swapped");
        // Turned a quarter clockwise: the image's bottom-left corner sits at the square's top-left.
        let (x0, x1) = (104.0, 108.0);
        assert_eq!(out[1].corners[0], Vec3::new(x0, 2.0, 0.5));
        assert_eq!(out[1].corners[1], Vec3::new(x0, 0.0, 0.5));
        assert_eq!(out[1].corners[2], Vec3::new(x1, 0.0, 0.5));
        assert_eq!(out[1].corners[3], Vec3::new(x1, 2.0, 0.5));
    }

    #[test]
    fn tiles_are_set_cleared_and_hidden_by_layer_inside_the_bounds() {
        let (mut w, scene, _) = world_with(vec![cell(0, 0, false, false, false), cell(2, 1, false, false, false)]);
        let layer = hash_remembered("l");
        assert_eq!(w.bounds(0), Some((1, 1, 3, 2)));
        assert_eq!(w.tile(0, layer, 3, 2), Ok(1));
        w.set_tile(0, layer, 3, 2, 0, Turn::default()).expect("clear");
        assert_eq!(w.tile(0, layer, 3, 2), Ok(0));
        assert!(w.set_tile(0, layer, 4, 1, 1, Turn::default()).is_err(), "outside the bounds");
        assert!(w.set_tile(0, layer, 1, 1, 2, Turn::default()).is_err(), "a tile the source lacks");
        assert!(w.tile(0, hash_remembered("other"), 1, 1).is_err(), "a missing layer");
        w.set_visible(0, layer, false).expect("hide");
        let mut out = Vec::new();
        w.quads(&scene, &mut out);
        assert!(out.is_empty(), "a hidden layer draws nothing");
    }
}
