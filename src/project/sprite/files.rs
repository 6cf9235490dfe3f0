//! The JSON shapes of `.atlas` and `.tilesource` (Defold's `Atlas` and `TileSet` messages, field
//! for field), parsed strictly, and their checks: ids, frame lists, sizes. Images are decoded
//! under one page budget, so a hostile header is refused before its pixels are allocated.
use super::pack::{self, Borders, Source};
use super::*;
use crate::project::json::{self, Located};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AtlasFile {
    #[serde(default)]
    pub(super) images: Vec<Located<ImageDesc>>,
    #[serde(default)]
    pub(super) animations: Vec<Located<AnimationDesc>>,
    pub(super) margin: Option<Located<u32>>,
    pub(super) extrude_borders: Option<Located<u32>>,
    pub(super) inner_padding: Option<Located<u32>>,
}

/// Defold's `AtlasImage`; trimming is Defold's editor-side mesh optimisation, read and ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ImageDesc {
    pub(super) image: Located<String>,
    #[serde(rename = "sprite_trim_mode")]
    _trim: Option<serde::de::IgnoredAny>,
    /// Where a sprite showing the image puts its object: 0..1 across the image from its
    /// top-left corner (Defold 1.6's atlas pivot); the centre when left out.
    pub(super) pivot_x: Option<Located<f32>>,
    pub(super) pivot_y: Option<Located<f32>>,
}

/// Pivots beyond this many image sizes from the image are refused: a typo, not a placement.
const MAX_PIVOT: f32 = 100.0;

impl ImageDesc {
    fn pivot(&self, file: &str) -> Result<[f32; 2], LoadError> {
        let one = |v: &Option<Located<f32>>, name: &str| match v {
            None => Ok(0.5),
            Some(p) if p.value.is_finite() && p.value.abs() <= MAX_PIVOT => Ok(p.value),
            Some(p) => Err(p.error(file, format!("{name} must be a number from -{MAX_PIVOT} to {MAX_PIVOT}"))),
        };
        Ok([one(&self.pivot_x, "pivot_x")?, one(&self.pivot_y, "pivot_y")?])
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnimationDesc {
    pub(super) id: Located<String>,
    #[serde(default)]
    pub(super) images: Vec<Located<ImageDesc>>,
    pub(super) playback: Option<Located<String>>,
    pub(super) fps: Option<Located<f32>>,
    pub(super) flip_horizontal: Option<bool>,
    pub(super) flip_vertical: Option<bool>,
}

/// The playing fields an atlas animation and a tile source animation share.
pub(super) struct PlayDesc<'a> {
    pub(super) playback: &'a Option<Located<String>>,
    pub(super) fps: &'a Option<Located<f32>>,
    pub(super) flips: (Option<bool>, Option<bool>),
}

macro_rules! play {
    ($d:expr) => {
        PlayDesc { playback: &$d.playback, fps: &$d.fps, flips: ($d.flip_horizontal, $d.flip_vertical) }
    };
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TileSourceFile {
    pub(super) image: Located<String>,
    pub(super) tile_width: Located<u32>,
    pub(super) tile_height: Located<u32>,
    #[serde(default)]
    pub(super) tile_margin: u32,
    #[serde(default)]
    pub(super) tile_spacing: u32,
    #[serde(default)]
    pub(super) animations: Vec<Located<TileAnimationDesc>>,
    pub(super) extrude_borders: Option<Located<u32>>,
    pub(super) inner_padding: Option<Located<u32>>,
    /// The image whose alpha gives each tile its collision hull (usually `image` itself).
    pub(super) collision: Option<Located<String>>,
    /// Each tile's collision group, in tile order (Defold's `convex_hulls`).
    #[serde(default)]
    pub(super) convex_hulls: Vec<Located<HullDesc>>,
}

/// Defold's `ConvexHull`: where its points were in Defold's build output and how many (Sinew
/// computes the points again from the image), and the tile's group.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HullDesc {
    #[serde(rename = "index")]
    _index: Option<u32>,
    #[serde(rename = "count")]
    _count: Option<u32>,
    #[serde(default)]
    pub(super) collision_group: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TileAnimationDesc {
    pub(super) id: Located<String>,
    /// 1-based, inclusive, counted row by row from the top-left tile (Defold's numbering).
    pub(super) start_tile: Located<u32>,
    pub(super) end_tile: Located<u32>,
    pub(super) playback: Option<Located<String>>,
    pub(super) fps: Option<Located<f32>>,
    pub(super) flip_horizontal: Option<bool>,
    pub(super) flip_vertical: Option<bool>,
}

fn border(v: &Option<Located<u32>>, file: &str, name: &str) -> Result<u32, LoadError> {
    match v {
        Some(b) if b.value > MAX_BORDER => Err(b.error(file, format!("{name} must be at most {MAX_BORDER} pixels"))),
        Some(b) => Ok(b.value),
        None => Ok(0),
    }
}

/// An animation's fps, playback and flips, checked.
fn flipbook(id: &str, frames: Vec<u32>, p: &PlayDesc, file: &str) -> Result<Flipbook, LoadError> {
    let fps = match p.fps {
        Some(f) if !(f.value.is_finite() && (0.0..=MAX_FPS).contains(&f.value)) => {
            return Err(f.error(file, format!("animation '{id}': fps must be between 0 and {MAX_FPS}")));
        }
        Some(f) => f.value,
        None => 30.0,
    };
    let playback = match p.playback {
        Some(s) => Playback::parse(&s.value).ok_or_else(|| {
            s.error(file, format!("animation '{id}': unknown playback '{}' (expected {})", s.value, Playback::NAMES))
        })?,
        None => Playback::OnceForward,
    };
    Ok(Flipbook {
        id: id.to_string(),
        frames,
        fps,
        playback,
        flip_horizontal: p.flips.0.unwrap_or(false),
        flip_vertical: p.flips.1.unwrap_or(false),
    })
}

/// Ids are what scripts play by (`sprite.play_flipbook`), so two things of one name would make
/// one of them unreachable.
fn unique_id(seen: &mut HashMap<String, ()>, id: &Located<String>, file: &str, what: &str) -> Result<(), LoadError> {
    named(id, file, what)?;
    if seen.insert(id.value.clone(), ()).is_some() {
        return Err(id.error(file, format!("duplicate id '{}' (image and animation ids must be unique)", id.value)));
    }
    Ok(())
}

/// An id scripts can name: not empty.
fn named(id: &Located<String>, file: &str, what: &str) -> Result<(), LoadError> {
    if id.value.is_empty() {
        return Err(id.error(file, format!("{what} id must not be empty")));
    }
    Ok(())
}

/// The id Defold gives a top-level atlas image: its file name without the extension.
fn image_id(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem).to_string()
}

/// Decodes one image, admitting its size only while the page budget lasts; a refusal is
/// reported as such, not as a broken PNG.
fn decode(
    res: &Resources,
    norm: &str,
    at: &Located<String>,
    file: &str,
    admit: &dyn Fn(u32, u32) -> Result<(), String>,
) -> Result<(u32, u32, Vec<u8>), LoadError> {
    let bytes = res.read(norm, Some(file)).map_err(|e| at.error(file, e.message))?;
    let refused = std::cell::RefCell::new(None);
    let check = |w: u32, h: u32| admit(w, h).inspect_err(|e| *refused.borrow_mut() = Some(e.clone()));
    crate::project::gltf::decode_image_within(&bytes, &check).map_err(|e| {
        let why = refused.borrow_mut().take().unwrap_or(e);
        at.error(file, format!("image '{norm}': {why}"))
    })
}

const PAGE_PIXELS: u64 = MAX_PAGE_SIDE as u64 * MAX_PAGE_SIDE as u64;

fn too_big(total: u64) -> String {
    format!("the images need {total} pixels with their borders, more than one {MAX_PAGE_SIDE}x{MAX_PAGE_SIDE} page")
}

/// Each distinct image once, in the order first named, with where it was first named.
#[derive(Default)]
struct Images<'a> {
    index: HashMap<String, u32>,
    list: Vec<(String, &'a Located<String>)>,
    /// Each image's pivot, as the entry that first names it says.
    pivots: Vec<[f32; 2]>,
}

impl<'a> Images<'a> {
    fn frame(&mut self, img: &'a Located<ImageDesc>, file: &str) -> Result<u32, LoadError> {
        let norm = json::resource_path(&img.value.image, file)?;
        if let Some(&i) = self.index.get(&norm) {
            return Ok(i);
        }
        if self.list.len() >= MAX_FRAMES {
            return Err(img.error(file, format!("more than {MAX_FRAMES} distinct images in one atlas")));
        }
        let i = self.list.len() as u32;
        self.pivots.push(img.value.pivot(file)?);
        self.index.insert(norm.clone(), i);
        self.list.push((norm, &img.value.image));
        Ok(i)
    }
}

/// `skip_missing`: image files that do not exist are left out, with every animation that shows
/// one (see [`super::load_atlas_leaving_out_missing`]); their paths are returned.
pub(super) fn build_atlas(
    res: &Resources,
    file: &str,
    a: &AtlasFile,
    skip_missing: bool,
) -> Result<(Atlas, Vec<String>), LoadError> {
    let b = Borders {
        margin: border(&a.margin, file, "margin")?,
        extrude: border(&a.extrude_borders, file, "extrude_borders")?,
        padding: border(&a.inner_padding, file, "inner_padding")?,
    };
    let mut order = Images::default();
    let mut ids = HashMap::new();
    let mut animations = Vec::new();
    for img in &a.images {
        let f = order.frame(img, file)?;
        let id = Located { value: image_id(&order.list[f as usize].0), at: img.value.image.at.clone() };
        unique_id(&mut ids, &id, file, "image")?;
        let play = PlayDesc { playback: &None, fps: &None, flips: (None, None) };
        let mut one = flipbook(&id.value, vec![f], &play, file)?;
        one.playback = Playback::None;
        animations.push(one);
    }
    for anim in &a.animations {
        let d = &anim.value;
        unique_id(&mut ids, &d.id, file, "animation")?;
        if d.images.is_empty() {
            // Defold builds such an atlas (its examples have one); nothing can play it, so it
            // is left out, with a warning, and a sprite naming it is refused by name.
            log::warn!("{}", anim.error(file, format!("animation '{}' has no images and is left out", d.id.value)));
            continue;
        }
        if d.images.len() > MAX_ANIMATION_FRAMES {
            let msg = format!("animation '{}' has more than {MAX_ANIMATION_FRAMES} frames", d.id.value);
            return Err(anim.error(file, msg));
        }
        let frames = d.images.iter().map(|i| order.frame(i, file)).collect::<Result<Vec<_>, _>>()?;
        animations.push(flipbook(&d.id.value, frames, &play!(d), file)?);
    }
    let used = std::cell::Cell::new(0u64);
    let mut decoded = Vec::with_capacity(order.list.len());
    // Each frame's index among the decoded images (None: its file is missing and skipped).
    let mut kept: Vec<Option<u32>> = Vec::with_capacity(order.list.len());
    let mut missing = Vec::new();
    for (norm, at) in &order.list {
        if skip_missing && !res.exists(norm) {
            kept.push(None);
            missing.push(norm.clone());
            continue;
        }
        kept.push(Some(decoded.len() as u32));
        let admit = |w: u32, h: u32| {
            let total = used.get() + b.cell_area(w, h);
            if w > MAX_PAGE_SIDE || h > MAX_PAGE_SIDE || total > PAGE_PIXELS {
                return Err(too_big(total));
            }
            used.set(total);
            Ok(())
        };
        decoded.push(decode(res, norm, at, file, &admit)?);
    }
    let sources: Vec<Source> = decoded
        .iter()
        .map(|(w, h, px)| Source { pixels: px, image_width: *w, x: 0, y: 0, width: *w, height: *h })
        .collect();
    let page = pack::pack(&sources, b).map_err(|e| LoadError::new(file, e))?;
    if !missing.is_empty() {
        animations.retain_mut(|f| {
            let frames: Option<Vec<u32>> = f.frames.iter().map(|&k| kept.get(k as usize).copied().flatten()).collect();
            frames.map(|v| f.frames = v).is_some()
        });
    }
    // The decoded images' pivots (frames are those), none when all are centred.
    let mut pivots: Vec<[f32; 2]> =
        order.pivots.iter().zip(&kept).filter(|(_, k)| k.is_some()).map(|(p, _)| *p).collect();
    if pivots.iter().all(|&p| p == [0.5, 0.5]) {
        pivots.clear();
    }
    // Every file named, the missing ones too: saving one of them reloads the atlas.
    let images = order.list.into_iter().map(|(n, _)| n).collect();
    let atlas = Atlas {
        source: file.to_string(),
        width: page.width,
        height: page.height,
        rgba: page.rgba,
        frames: page.frames,
        animations,
        images,
        hulls: Vec::new(),
        pivots,
    };
    Ok((atlas, missing))
}

/// Tiles that fit along one side: each is `margin` + tile + `margin`, `spacing` between.
fn tiles_along(image: u32, tile: u32, margin: u32, spacing: u32) -> u32 {
    let stride = u64::from(tile) + u64::from(spacing) + 2 * u64::from(margin);
    ((u64::from(image) + u64::from(spacing)) / stride) as u32
}

pub(super) fn build_tile_source(res: &Resources, file: &str, t: &TileSourceFile) -> Result<Atlas, LoadError> {
    let b = Borders {
        margin: 0,
        extrude: border(&t.extrude_borders, file, "extrude_borders")?,
        padding: border(&t.inner_padding, file, "inner_padding")?,
    };
    let (tw, th) = (t.tile_width.value, t.tile_height.value);
    for (v, name) in [(&t.tile_width, "tile_width"), (&t.tile_height, "tile_height")] {
        if v.value == 0 || v.value > MAX_PAGE_SIDE {
            return Err(v.error(file, format!("{name} must be between 1 and {MAX_PAGE_SIDE} pixels")));
        }
    }
    if t.tile_margin > MAX_BORDER || t.tile_spacing > MAX_BORDER {
        return Err(t.image.error(file, format!("tile_margin and tile_spacing must be at most {MAX_BORDER} pixels")));
    }
    let (m, s) = (t.tile_margin, t.tile_spacing);
    let norm = json::resource_path(&t.image, file)?;
    let admit = |w: u32, h: u32| {
        let (cols, rows) = (tiles_along(w, tw, m, s), tiles_along(h, th, m, s));
        if cols == 0 || rows == 0 {
            return Err(format!("a {w}x{h} image holds no {tw}x{th} tile"));
        }
        let count = u64::from(cols) * u64::from(rows);
        if count > MAX_FRAMES as u64 {
            return Err(format!("{count} tiles, more than {MAX_FRAMES}"));
        }
        let total = count * b.cell_area(tw, th);
        if total > PAGE_PIXELS { Err(too_big(total)) } else { Ok(()) }
    };
    let (w, h, px) = decode(res, &norm, &t.image, file, &admit)?;
    let (cols, rows) = (tiles_along(w, tw, m, s), tiles_along(h, th, m, s));
    let stride = (tw + s + 2 * m, th + s + 2 * m);
    let sources: Vec<Source> = (0..rows * cols)
        .map(|i| Source {
            pixels: &px,
            image_width: w,
            x: (i % cols) * stride.0 + m,
            y: (i / cols) * stride.1 + m,
            width: tw,
            height: th,
        })
        .collect();
    let count = rows * cols;
    // Animation id → its index in `animations`.
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut animations: Vec<Flipbook> = Vec::new();
    for anim in &t.animations {
        let d = &anim.value;
        named(&d.id, file, "animation")?;
        // Defold builds such a tile source and keeps the later of two animations of one id
        // (its runtime's table of ids is written in order): the same here, with a warning.
        let earlier = ids.get(&d.id.value).copied();
        if earlier.is_some() {
            let why =
                format!("duplicate animation id '{}': the later one replaces the earlier, as in Defold", d.id.value);
            log::warn!("{}", d.id.error(file, why));
        }
        for tile in [&d.start_tile, &d.end_tile] {
            if tile.value == 0 || tile.value > count {
                let msg = format!("animation '{}': tile {} is not in 1..{count}", d.id.value, tile.value);
                return Err(tile.error(file, msg));
            }
        }
        if d.start_tile.value > d.end_tile.value {
            let msg = format!("animation '{}': start_tile is after end_tile", d.id.value);
            return Err(d.start_tile.error(file, msg));
        }
        let frames = (d.start_tile.value - 1..d.end_tile.value).collect();
        let book = flipbook(&d.id.value, frames, &play!(d), file)?;
        match earlier {
            Some(i) => animations[i] = book,
            None => {
                ids.insert(d.id.value.clone(), animations.len());
                animations.push(book);
            }
        }
    }
    let page = pack::pack(&sources, b).map_err(|e| LoadError::new(file, e))?;
    let mut images = vec![norm];
    let hulls = match &t.collision {
        Some(c) if !c.value.is_empty() => {
            let path = json::resource_path(c, file)?;
            let other;
            let alpha: &[u8] = if path == images[0] {
                &px
            } else {
                let (cw, ch, cpx) = decode(res, &path, c, file, &admit)?;
                if (cw, ch) != (w, h) {
                    return Err(c.error(file, format!("the collision image is {cw}x{ch}, the image {w}x{h}")));
                }
                images.push(path);
                other = cpx;
                &other
            };
            let tiles: Vec<Source> = sources.iter().map(|t| Source { pixels: alpha, ..*t }).collect();
            tile_shapes(&tiles, &t.convex_hulls)
        }
        _ => Vec::new(),
    };
    Ok(Atlas {
        source: file.to_string(),
        width: page.width,
        height: page.height,
        rgba: page.rgba,
        frames: page.frames,
        animations,
        images,
        hulls,
        pivots: Vec::new(),
    })
}

/// Each tile's collision shape: the hull of its opaque pixels in the collision image, for the
/// tiles `groups` puts in a collision group (Defold's tiles without one collide with nothing).
fn tile_shapes(tiles: &[Source], groups: &[Located<HullDesc>]) -> Vec<Option<TileShape>> {
    tiles
        .iter()
        .zip(groups)
        .map(|(t, g)| {
            let group = &g.value.collision_group;
            if group.is_empty() {
                return None;
            }
            let alpha = |x: u32, y: u32| {
                let i = ((t.y + y) as usize * t.image_width as usize + (t.x + x) as usize) * 4 + 3;
                t.pixels.get(i).is_some_and(|&a| a != 0)
            };
            let hull = super::hull::tile_hull(t.width, t.height, alpha)?;
            Some(TileShape { hull, group: group.clone() })
        })
        .collect()
}
