//! Textures and atlases a script makes while the game runs (Defold's `resource.create_texture`,
//! `resource.set_texture` and `resource.create_atlas`): plain pixels, and `Atlas` values built
//! from Defold's creation tables, each table checked whole before anything changes (every
//! problem named by its field path). Sprites and guis use an atlas made here as one read from a
//! file (it joins `SpriteWorld::atlases`). The other way, `resource.get_atlas`'s table of any
//! atlas ([`atlas_to_table`]) reads back through [`atlas_from_table`], and Defold's built names
//! (`.a.texturesetc`, `.a.texturec`) map to Sinew's files here. Nothing here touches GL.
use crate::project::sprite::{Atlas, Flipbook, Frame, Playback};
use crate::scene::message::MsgValue;

/// Texture sides at most: what OpenGL 3.3 drivers take (llvmpipe included), and a size whose
/// pixels (256 MiB) a script cannot exceed by accident.
pub const MAX_TEXTURE_SIDE: u32 = 8192;
/// Bytes of pixels all of a game's made textures may hold: a script that makes textures in a
/// loop is refused before it takes the machine's memory.
pub const MAX_TOTAL_BYTES: usize = 1 << 30;
/// Geometries and animations per created atlas at most.
pub const MAX_ATLAS_ENTRIES: usize = 65536;

/// Defold's `graphics.TEXTURE_FORMAT_*` that `create_texture` and `set_texture` take: (name,
/// value, bytes per texel). One list: Lua's constants come from it.
pub const TEXTURE_FORMATS: &[(&str, u32, usize)] =
    &[("TEXTURE_FORMAT_LUMINANCE", 0, 1), ("TEXTURE_FORMAT_RGB", 2, 3), ("TEXTURE_FORMAT_RGBA", 3, 4)];
/// Defold's `graphics.TEXTURE_TYPE_2D`, the one texture type made at run time.
pub const TEXTURE_TYPE_2D: u32 = 0;

/// A texture made by a script. RGBA8, rows top first, as atlas pages are.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeTexture {
    pub path: String,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

#[derive(Default)]
pub struct RuntimeTextures {
    textures: Vec<RuntimeTexture>,
    /// (atlas, texture) of each atlas made over one of `textures`.
    atlases: Vec<(String, String)>,
}

/// A whole number field of a creation table; `path` names it in errors.
fn whole(t: &MsgValue, key: &str, path: &str, default: Option<f64>) -> Result<f64, String> {
    match (t.get(key), default) {
        (Some(MsgValue::Number(n)), _) if n.is_finite() && n.fract() == 0.0 => Ok(*n),
        (Some(MsgValue::Number(n)), _) => Err(format!("{path}{key}: {n} is not a whole number")),
        (Some(_), _) => Err(format!("{path}{key}: a number expected")),
        (None, Some(d)) => Ok(d),
        (None, None) => Err(format!("{path}{key}: missing")),
    }
}

/// A side length from 1 to [`MAX_TEXTURE_SIDE`].
fn side(t: &MsgValue, key: &str, path: &str) -> Result<u32, String> {
    let n = whole(t, key, path, None)?;
    if !(1.0..=f64::from(MAX_TEXTURE_SIDE)).contains(&n) {
        return Err(format!("{path}{key}: {n} is not from 1 to {MAX_TEXTURE_SIDE}"));
    }
    Ok(n as u32)
}

/// The bytes per texel of the table's `format` (RGBA when absent); its `type` must be 2D.
fn texel_bytes(t: &MsgValue) -> Result<usize, String> {
    let kind = whole(t, "type", "", Some(f64::from(TEXTURE_TYPE_2D)))?;
    if kind != f64::from(TEXTURE_TYPE_2D) {
        return Err(format!("type: {kind} is not graphics.TEXTURE_TYPE_2D (the one type Sinew makes at run time)"));
    }
    let format = whole(t, "format", "", Some(3.0))?;
    match TEXTURE_FORMATS.iter().find(|(_, v, _)| f64::from(*v) == format) {
        Some(&(_, _, bytes)) => Ok(bytes),
        None => Err(format!("format: {format} is not graphics.TEXTURE_FORMAT_LUMINANCE, _RGB or _RGBA")),
    }
}

impl RuntimeTextures {
    pub fn get(&self, path: &str) -> Option<&RuntimeTexture> {
        self.textures.iter().find(|t| t.path == path)
    }

    /// Atlas `atlas` was made over texture `texture` (its page follows the texture's pixels).
    pub fn note_atlas(&mut self, atlas: &str, texture: &str) {
        self.atlases.push((atlas.to_string(), texture.to_string()));
    }

    /// The texture atlas `atlas` was made over, when a script made it.
    pub fn texture_of(&self, atlas: &str) -> Option<&str> {
        self.atlases.iter().find(|(a, _)| a == atlas).map(|(_, t)| t.as_str())
    }

    /// `resource.create_texture(path, { width, height, type, format })`: a transparent black
    /// texture. A path in use is refused (Defold: the resource already exists).
    pub fn create(&mut self, path: &str, params: &MsgValue) -> Result<(), String> {
        let (width, height) = (side(params, "width", "")?, side(params, "height", "")?);
        texel_bytes(params)?;
        if self.get(path).is_some() {
            return Err(format!("'{path}' exists already"));
        }
        let bytes = width as usize * height as usize * 4;
        let held: usize = self.textures.iter().map(|t| t.rgba.len()).sum();
        if held + bytes > MAX_TOTAL_BYTES {
            return Err(format!(
                "a {width}x{height} texture would take the game's made textures past {} MiB ({} MiB held)",
                MAX_TOTAL_BYTES >> 20,
                held >> 20
            ));
        }
        let rgba = vec![0; bytes];
        self.textures.push(RuntimeTexture { path: path.to_string(), width, height, rgba });
        Ok(())
    }

    /// `resource.set_texture(path, { width, height, x, y, format }, buffer)`: `data` (the
    /// buffer's bytes: rows bottom first, as Defold's textures are, `format`'s bytes per
    /// texel) into the region whose bottom-left corner is (x, y) from the texture's bottom left.
    pub fn set(&mut self, path: &str, params: &MsgValue, data: &[u8]) -> Result<(), String> {
        let Some(t) = self.textures.iter_mut().find(|t| t.path == path) else {
            return Err(format!("'{path}' is no texture made by resource.create_texture"));
        };
        write_region(t, params, data)
    }
}

/// Writes a `set_texture` region into `t`, all checked before a byte changes.
pub fn write_region(t: &mut RuntimeTexture, params: &MsgValue, data: &[u8]) -> Result<(), String> {
    let (w, h) = (side(params, "width", "")?, side(params, "height", "")?);
    let (x, y) = (whole(params, "x", "", Some(0.0))?, whole(params, "y", "", Some(0.0))?);
    if x < 0.0 || y < 0.0 || x + f64::from(w) > f64::from(t.width) || y + f64::from(h) > f64::from(t.height) {
        return Err(format!(
            "the region {w}x{h} at ({x}, {y}) is not inside the {}x{} texture {}",
            t.width, t.height, t.path
        ));
    }
    let bytes = texel_bytes(params)?;
    let need = w as usize * h as usize * bytes;
    if data.len() < need {
        return Err(format!("the buffer holds {} bytes; a {w}x{h} region needs {need}", data.len()));
    }
    let (x, y) = (x as usize, y as usize);
    let stride = t.width as usize * 4;
    for row in 0..h as usize {
        // Row `row` of the region is `y + row` from the bottom: top-first storage flips it.
        let out_row = t.height as usize - 1 - (y + row);
        for col in 0..w as usize {
            let src = &data[(row * w as usize + col) * bytes..][..bytes];
            let texel = match bytes {
                1 => [src[0], src[0], src[0], 255],
                3 => [src[0], src[1], src[2], 255],
                _ => [src[0], src[1], src[2], src[3]],
            };
            let at = out_row * stride + (x + col) * 4;
            t.rgba[at..at + 4].copy_from_slice(&texel);
        }
    }
    Ok(())
}

/// The entries of a list field (a Lua sequence), in order.
fn list<'a>(t: &'a MsgValue, key: &str) -> Result<Vec<&'a MsgValue>, String> {
    let Some(MsgValue::Table(items)) = t.get(key) else { return Err(format!("{key}: a list expected")) };
    if items.len() > MAX_ATLAS_ENTRIES {
        return Err(format!("{key}: {} entries (at most {MAX_ATLAS_ENTRIES})", items.len()));
    }
    let mut out: Vec<(f64, &MsgValue)> = Vec::with_capacity(items.len());
    for (k, v) in items {
        match k {
            MsgValue::Number(i) if *i >= 1.0 && i.fract() == 0.0 => out.push((*i, v)),
            _ => return Err(format!("{key}: a list expected (keys 1, 2, ...)")),
        }
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    if out.iter().enumerate().any(|(i, (k, _))| *k != (i + 1) as f64) {
        return Err(format!("{key}: a list expected (keys 1, 2, ... without gaps)"));
    }
    Ok(out.into_iter().map(|(_, v)| v).collect())
}

/// The numbers of a list field.
fn numbers(t: &MsgValue, key: &str, path: &str) -> Result<Vec<f64>, String> {
    list(t, key)
        .map_err(|e| format!("{path}{e}"))?
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            MsgValue::Number(n) if n.is_finite() => Ok(*n),
            _ => Err(format!("{path}{key}[{}]: a finite number expected", i + 1)),
        })
        .collect()
}

/// `resource.create_atlas(path, { texture, animations, geometries })` over `page` (a texture's
/// size and pixels): one frame per geometry, the bounding box of its `uvs` (texture pixels
/// from the top left, as Defold's), and one flipbook per animation over geometries
/// `frame_start` to `frame_end - 1` (1-based).
pub fn atlas_from_table(path: &str, page: &RuntimeTexture, params: &MsgValue) -> Result<Atlas, String> {
    let mut frames = Vec::new();
    for (i, g) in list(params, "geometries")?.into_iter().enumerate() {
        let at = format!("geometries[{}].", i + 1);
        let uvs = numbers(g, "uvs", &at)?;
        if uvs.len() < 6 || uvs.len() % 2 != 0 {
            return Err(format!("{at}uvs: {} numbers (x, y pairs of at least three corners expected)", uvs.len()));
        }
        let (xs, ys): (Vec<f64>, Vec<f64>) = uvs.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
        let (x0, x1) = (xs.iter().copied().fold(f64::MAX, f64::min), xs.iter().copied().fold(f64::MIN, f64::max));
        let (y0, y1) = (ys.iter().copied().fold(f64::MAX, f64::min), ys.iter().copied().fold(f64::MIN, f64::max));
        let (w, h) = (f64::from(page.width), f64::from(page.height));
        if x0 < 0.0 || y0 < 0.0 || x1 > w || y1 > h || x1 <= x0 || y1 <= y0 {
            return Err(format!("{at}uvs: ({x0}, {y0})..({x1}, {y1}) is no area inside the {w}x{h} texture"));
        }
        let (x0, x1, y0, y1) = (x0.round() as u32, x1.round() as u32, y0.round() as u32, y1.round() as u32);
        frames.push(Frame { x: x0, y: y0, width: (x1 - x0).max(1), height: (y1 - y0).max(1) });
    }
    let mut animations: Vec<Flipbook> = Vec::new();
    for (i, a) in list(params, "animations")?.into_iter().enumerate() {
        let at = format!("animations[{}].", i + 1);
        let id = match a.get("id") {
            Some(MsgValue::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(format!("{at}id: a name expected")),
        };
        if animations.iter().any(|b| b.id == id) {
            return Err(format!("{at}id: '{id}' is used twice"));
        }
        // `frames` (geometry numbers, as `get_atlas` gives them), else `frame_start` to
        // `frame_end`, the end not included.
        let order: Vec<u32> = if a.get("frames").is_some() {
            let numbers = numbers(a, "frames", &at)?;
            if numbers.is_empty() || numbers.iter().any(|&k| k < 1.0 || k > frames.len() as f64 || k.fract() != 0.0) {
                return Err(format!("{at}frames: geometry numbers from 1 to {} expected", frames.len()));
            }
            numbers.iter().map(|&k| k as u32 - 1).collect()
        } else {
            let (start, end) = (whole(a, "frame_start", &at, None)?, whole(a, "frame_end", &at, None)?);
            if start < 1.0 || end <= start || end - 1.0 > frames.len() as f64 {
                return Err(format!(
                    "{at}frame_start {start}, frame_end {end}: not geometries 1 to {} (the end is not included)",
                    frames.len()
                ));
            }
            (start as u32 - 1..end as u32 - 1).collect()
        };
        let playback = whole(a, "playback", &at, Some(1.0))?;
        let playback = Playback::BY_VALUE
            .get(playback as usize)
            .copied()
            .filter(|_| playback >= 0.0)
            .ok_or_else(|| format!("{at}playback: {playback} is not a go.PLAYBACK_* value"))?;
        let fps = match a.get("fps") {
            None => 30.0,
            Some(MsgValue::Number(f)) if f.is_finite() && *f >= 0.0 => *f as f32,
            Some(_) => return Err(format!("{at}fps: a number from 0 expected")),
        };
        let flag = |k: &str| matches!(a.get(k), Some(MsgValue::Bool(true)));
        animations.push(Flipbook {
            id,
            frames: order,
            fps,
            playback,
            flip_horizontal: flag("flip_horizontal"),
            flip_vertical: flag("flip_vertical"),
        });
    }
    Ok(Atlas {
        source: path.to_string(),
        width: page.width,
        height: page.height,
        rgba: page.rgba.clone(),
        frames,
        animations,
        images: Vec::new(),
        hulls: Vec::new(),
        pivots: Vec::new(),
    })
}

/// The texture a file atlas's page is, by Defold's built names: `/a/b.atlas` is
/// `/a/b.a.texturec`, `/a/t.tilesource` is `/a/t.t.texturec`.
pub fn page_texture_path(source: &str) -> String {
    if let Some(stem) = source.strip_suffix(".atlas") {
        format!("{stem}.a.texturec")
    } else if let Some(stem) = source.strip_suffix(".tilesource") {
        format!("{stem}.t.texturec")
    } else {
        format!("{source}.texturec")
    }
}

/// The atlas or tile source a `resource.get_atlas` path names: Defold's built names
/// (`.a.texturesetc`, `.t.texturesetc`, `.atlasc`) are their source files'.
pub fn atlas_source_path(text: &str) -> String {
    if let Some(stem) = text.strip_suffix(".a.texturesetc") {
        format!("{stem}.atlas")
    } else if let Some(stem) = text.strip_suffix(".t.texturesetc") {
        format!("{stem}.tilesource")
    } else if let Some(stem) = text.strip_suffix(".atlasc") {
        format!("{stem}.atlas")
    } else if let Some(stem) = text.strip_suffix(".tilesourcec") {
        format!("{stem}.tilesource")
    } else {
        text.to_string()
    }
}

/// `resource.get_atlas`'s table of atlas `a` whose page is texture `texture`: each frame a
/// geometry (a quad: `vertices` in its own pixels, `uvs` in texture pixels from the top left,
/// Defold's corner order: bottom left, top left, top right, bottom right), each flipbook an
/// animation with its `frames` (geometry numbers). [`atlas_from_table`] reads it back.
pub fn atlas_to_table(a: &Atlas, texture: &str) -> MsgValue {
    let s = |k: &str| MsgValue::String(k.to_string());
    let n = |x: f64| MsgValue::Number(x);
    let list = |items: Vec<MsgValue>| {
        MsgValue::Table(items.into_iter().enumerate().map(|(i, v)| (n((i + 1) as f64), v)).collect())
    };
    let numbers = |xs: &[f64]| list(xs.iter().map(|&x| n(x)).collect());
    let geometries = a
        .frames
        .iter()
        .map(|f| {
            let (x, y, w, h) = (f64::from(f.x), f64::from(f.y), f64::from(f.width), f64::from(f.height));
            MsgValue::Table(vec![
                (s("width"), n(w)),
                (s("height"), n(h)),
                (s("pivot_x"), n(0.5)),
                (s("pivot_y"), n(0.5)),
                (s("rotated"), MsgValue::Bool(false)),
                (s("vertices"), numbers(&[0.0, h, 0.0, 0.0, w, 0.0, w, h])),
                (s("uvs"), numbers(&[x, y + h, x, y, x + w, y, x + w, y + h])),
                (s("indices"), numbers(&[0.0, 1.0, 2.0, 0.0, 2.0, 3.0])),
            ])
        })
        .collect();
    let animations = a
        .animations
        .iter()
        .map(|b| {
            let first = b.frames.first().and_then(|&k| a.frames.get(k as usize));
            let playback = Playback::BY_VALUE.iter().position(|p| *p == b.playback).unwrap_or(1);
            MsgValue::Table(vec![
                (s("id"), s(&b.id)),
                (s("width"), n(first.map_or(0.0, |f| f64::from(f.width)))),
                (s("height"), n(first.map_or(0.0, |f| f64::from(f.height)))),
                (s("fps"), n(f64::from(b.fps))),
                (s("playback"), n(playback as f64)),
                (s("flip_horizontal"), MsgValue::Bool(b.flip_horizontal)),
                (s("flip_vertical"), MsgValue::Bool(b.flip_vertical)),
                (s("frames"), list(b.frames.iter().map(|&k| n(f64::from(k) + 1.0)).collect())),
            ])
        })
        .collect();
    MsgValue::Table(vec![
        (s("texture"), MsgValue::Hash(crate::base::hash::hash_remembered(texture))),
        (s("animations"), list(animations)),
        (s("geometries"), list(geometries)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(fields: Vec<(&str, MsgValue)>) -> MsgValue {
        MsgValue::Table(fields.into_iter().map(|(k, v)| (MsgValue::String(k.into()), v)).collect())
    }
    fn list(items: Vec<MsgValue>) -> MsgValue {
        MsgValue::Table(items.into_iter().enumerate().map(|(i, v)| (MsgValue::Number((i + 1) as f64), v)).collect())
    }
    fn n(x: f64) -> MsgValue {
        MsgValue::Number(x)
    }
    fn size(w: f64, h: f64) -> MsgValue {
        table(vec![("width", n(w)), ("height", n(h))])
    }

    #[test]
    fn bad_creation_tables_are_refused_before_allocating() {
        let mut t = RuntimeTextures::default();
        for (params, want) in [
            (size(0.0, 4.0), "width: 0 is not from 1 to 8192"),
            (size(4.0, 1e9), "height: 1000000000 is not from 1 to 8192"),
            (size(4.5, 4.0), "width: 4.5 is not a whole number"),
            (table(vec![("width", n(4.0))]), "height: missing"),
            (table(vec![("width", MsgValue::String("4".into())), ("height", n(4.0))]), "width: a number expected"),
            (
                table(vec![("width", n(4.0)), ("height", n(4.0)), ("type", n(1.0))]),
                "type: 1 is not graphics.TEXTURE_TYPE_2D",
            ),
            (table(vec![("width", n(4.0)), ("height", n(4.0)), ("format", n(9.0))]), "format: 9 is not"),
        ] {
            let e = t.create("/t.texturec", &params).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        assert!(t.get("/t.texturec").is_none(), "nothing made");
        t.create("/t.texturec", &size(2.0, 2.0)).unwrap();
        assert_eq!(t.create("/t.texturec", &size(2.0, 2.0)).unwrap_err(), "'/t.texturec' exists already");
        // Four full-size textures fill the budget (1 GiB); a fifth is refused, nothing made.
        for i in 0..3 {
            t.create(&format!("/big{i}"), &size(8192.0, 8192.0)).unwrap();
        }
        let e = t.create("/big3", &size(8192.0, 8192.0)).unwrap_err();
        assert!(e.contains("past 1024 MiB (768 MiB held)"), "{e}");
        assert!(t.get("/big3").is_none());
    }

    /// Defold's texture rows run bottom first: the buffer's first row lands on the bottom row
    /// of the top-first page, at the region's x and y from the bottom left.
    #[test]
    fn set_texture_writes_rows_bottom_first_and_refuses_bad_regions() {
        let mut t = RuntimeTextures::default();
        t.create("/t", &size(3.0, 2.0)).unwrap();
        let region = |x: f64, y: f64, w: f64, h: f64, format: f64| {
            table(vec![("x", n(x)), ("y", n(y)), ("width", n(w)), ("height", n(h)), ("format", n(format))])
        };
        // One RGB texel at (1, 0): the bottom row, middle column.
        t.set("/t", &region(1.0, 0.0, 1.0, 1.0, 2.0), &[10, 20, 30]).unwrap();
        let px = |t: &RuntimeTextures, x: usize, y: usize| {
            let tex = t.get("/t").unwrap();
            tex.rgba[(y * 3 + x) * 4..][..4].to_vec()
        };
        assert_eq!(px(&t, 1, 1), [10, 20, 30, 255], "row 1 of the page is the bottom one");
        assert_eq!(px(&t, 1, 0), [0, 0, 0, 0]);
        // Two luminance rows at x = 2: the first (bottom) row 7, the second 9.
        t.set("/t", &region(2.0, 0.0, 1.0, 2.0, 0.0), &[7, 9]).unwrap();
        assert_eq!((px(&t, 2, 1), px(&t, 2, 0)), (vec![7, 7, 7, 255], vec![9, 9, 9, 255]));
        let before = t.get("/t").unwrap().clone();
        for (params, data, want) in [
            (region(2.0, 0.0, 2.0, 1.0, 3.0), vec![0; 8], "the region 2x1 at (2, 0) is not inside the 3x2 texture /t"),
            (region(-1.0, 0.0, 1.0, 1.0, 3.0), vec![0; 4], "is not inside"),
            (region(0.0, 0.0, 2.0, 2.0, 3.0), vec![0; 15], "the buffer holds 15 bytes; a 2x2 region needs 16"),
        ] {
            let e = t.set("/t", &params, &data).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        assert_eq!(t.get("/t").unwrap(), &before, "a refused set changes nothing");
        let e = t.set("/none", &region(0.0, 0.0, 1.0, 1.0, 3.0), &[0; 4]).unwrap_err();
        assert_eq!(e, "'/none' is no texture made by resource.create_texture");
    }

    fn geometry(uvs: &[f64]) -> MsgValue {
        table(vec![("uvs", list(uvs.iter().map(|&x| n(x)).collect()))])
    }
    fn animation(id: &str, start: f64, end: f64) -> MsgValue {
        table(vec![("id", MsgValue::String(id.into())), ("frame_start", n(start)), ("frame_end", n(end))])
    }

    /// Defold's create_atlas example: two geometries, each half of a 128 px texture, and an
    /// animation over each (frame_end not included).
    #[test]
    fn an_atlas_is_made_from_geometries_and_animations() {
        let page = RuntimeTexture { path: "/t".into(), width: 128, height: 64, rgba: vec![1; 128 * 64 * 4] };
        let params = table(vec![
            ("animations", list(vec![animation("left", 1.0, 2.0), animation("right", 2.0, 3.0)])),
            (
                "geometries",
                list(vec![
                    geometry(&[0.0, 64.0, 0.0, 0.0, 64.0, 0.0, 64.0, 64.0]),
                    geometry(&[64.0, 40.0, 64.0, 8.0, 128.0, 8.0, 128.0, 40.0]),
                ]),
            ),
        ]);
        let a = atlas_from_table("/a.texturesetc", &page, &params).unwrap();
        assert_eq!(a.source, "/a.texturesetc");
        assert_eq!((a.width, a.height, a.rgba.len()), (128, 64, 128 * 64 * 4));
        // uvs count y down from the top, as the page's rows.
        assert_eq!(
            a.frames,
            [Frame { x: 0, y: 0, width: 64, height: 64 }, Frame { x: 64, y: 8, width: 64, height: 32 }]
        );
        let ids: Vec<(&str, &[u32])> = a.animations.iter().map(|b| (b.id.as_str(), &b.frames[..])).collect();
        assert_eq!(ids, [("left", &[0u32][..]), ("right", &[1u32][..])]);
        assert_eq!((a.animations[0].fps, a.animations[0].playback), (30.0, Playback::OnceForward));
    }

    /// `get_atlas`'s table makes the same atlas again (`set_atlas`/`create_atlas` read it),
    /// its uvs from the top left and each animation's `frames` kept.
    #[test]
    fn an_atlas_table_reads_back_as_the_same_atlas() {
        let page = RuntimeTexture { path: "/t".into(), width: 32, height: 16, rgba: vec![9; 32 * 16 * 4] };
        let mut atlas = Atlas {
            source: "/a.atlas".into(),
            width: 32,
            height: 16,
            rgba: page.rgba.clone(),
            frames: vec![Frame { x: 0, y: 2, width: 8, height: 10 }, Frame { x: 8, y: 0, width: 24, height: 16 }],
            animations: Vec::new(),
            images: Vec::new(),
            hulls: Vec::new(),
            pivots: Vec::new(),
        };
        atlas.animations.push(Flipbook {
            id: "walk".into(),
            frames: vec![1, 0, 1],
            fps: 12.0,
            playback: Playback::LoopPingpong,
            flip_horizontal: true,
            flip_vertical: false,
        });
        let table = atlas_to_table(&atlas, "/a.a.texturec");
        let uvs = table.get("geometries").and_then(|g| match g {
            MsgValue::Table(items) => items.first().and_then(|(_, first)| first.get("uvs").cloned()),
            _ => None,
        });
        let first: Vec<f64> = match uvs {
            Some(MsgValue::Table(items)) => {
                items.iter().filter_map(|(_, v)| if let MsgValue::Number(x) = v { Some(*x) } else { None }).collect()
            }
            _ => Vec::new(),
        };
        assert_eq!(first, [0.0, 12.0, 0.0, 2.0, 8.0, 2.0, 8.0, 12.0], "bottom left, top left, top right, bottom right");
        let back = atlas_from_table("/a.atlas", &page, &table).unwrap();
        assert_eq!((back.frames, back.animations), (atlas.frames, atlas.animations));
        assert_eq!(page_texture_path("/x/a.atlas"), "/x/a.a.texturec");
        assert_eq!(atlas_source_path("/x/a.a.texturesetc"), "/x/a.atlas");
        assert_eq!(atlas_source_path("/x/t.t.texturesetc"), "/x/t.tilesource");
        assert_eq!(atlas_source_path("/x/a.atlasc"), "/x/a.atlas");
    }

    #[test]
    fn bad_atlas_tables_name_the_field() {
        let page = RuntimeTexture { path: "/t".into(), width: 16, height: 16, rgba: vec![0; 16 * 16 * 4] };
        let quad = geometry(&[0.0, 16.0, 0.0, 0.0, 16.0, 0.0, 16.0, 16.0]);
        let with = |animations: Vec<MsgValue>, geometries: Vec<MsgValue>| {
            table(vec![("animations", list(animations)), ("geometries", list(geometries))])
        };
        for (params, want) in [
            (table(vec![("animations", list(vec![]))]), "geometries: a list expected"),
            (
                with(vec![], vec![geometry(&[0.0, 0.0, 17.0, 0.0, 17.0, 3.0])]),
                "geometries[1].uvs: (0, 0)..(17, 3) is no area inside the 16x16 texture",
            ),
            (with(vec![], vec![geometry(&[0.0, 0.0, 1.0])]), "geometries[1].uvs: 3 numbers"),
            (with(vec![], vec![geometry(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0])]), "is no area"),
            (
                with(vec![animation("a", 1.0, 3.0)], vec![quad.clone()]),
                "animations[1].frame_start 1, frame_end 3: not geometries 1 to 1",
            ),
            (with(vec![animation("a", 1.0, 1.0)], vec![quad.clone()]), "frame_end 1: not geometries"),
            (
                with(vec![animation("a", 1.0, 2.0), animation("a", 1.0, 2.0)], vec![quad.clone()]),
                "animations[2].id: 'a' is used twice",
            ),
            (with(vec![animation("", 1.0, 2.0)], vec![quad.clone()]), "animations[1].id: a name expected"),
            (
                with(
                    vec![table(vec![
                        ("id", MsgValue::String("a".into())),
                        ("frame_start", n(1.0)),
                        ("frame_end", n(2.0)),
                        ("playback", n(9.0)),
                    ])],
                    vec![quad.clone()],
                ),
                "animations[1].playback: 9 is not a go.PLAYBACK_* value",
            ),
            (
                table(vec![
                    ("animations", MsgValue::Table(vec![(n(2.0), animation("a", 1.0, 2.0))])),
                    ("geometries", list(vec![quad])),
                ]),
                "animations: a list expected (keys 1, 2, ... without gaps)",
            ),
        ] {
            let e = atlas_from_table("/a", &page, &params).unwrap_err();
            assert!(e.contains(want), "{e} lacks {want}");
        }
    }
}
