//! Atlases and tile sources (engine.md section 6): `.atlas` (images and flipbook animations)
//! and `.tilesource` (one sheet cut into a grid, with animations over tile ranges), in Sinew
//! JSON or Defold's text format, packed at load into one RGBA page each. Everything a sprite
//! needs later (the page, frame rectangles, flipbooks) is here, so the game and the renderer
//! never see files, images or packing.
use crate::base::error::LoadError;
use crate::project::Resources;

pub mod defold;
mod files;
pub mod hull;
mod pack;
#[cfg(test)]
mod tests;

/// A page side larger than this is refused: GL drivers guarantee 4096, and a sprite sheet
/// bigger than that is almost always an unscaled source file.
pub const MAX_PAGE_SIDE: u32 = 4096;
/// Distinct images (or tiles) one atlas may hold.
pub const MAX_FRAMES: usize = 16384;
/// Entries of one animation's frame list.
pub const MAX_ANIMATION_FRAMES: usize = 4096;
/// Margin, extrusion and inner padding, each in pixels.
pub const MAX_BORDER: u32 = 256;
/// Frames per second of a flipbook.
pub const MAX_FPS: f32 = 1000.0;

/// One loaded atlas or tile source: the packed page, the frames on it and the flipbooks.
#[derive(Debug, Clone, PartialEq)]
pub struct Atlas {
    /// The `.atlas` / `.tilesource` resource.
    pub source: String,
    pub width: u32,
    pub height: u32,
    /// RGBA8, rows top to bottom; unused space is transparent black.
    pub rgba: Vec<u8>,
    /// One per distinct image (atlas) or tile (tile source).
    pub frames: Vec<Frame>,
    /// Flipbooks by id; an atlas's top-level images are one-frame flipbooks named after their
    /// file (as Defold names them), so a sprite can show any image by id.
    pub animations: Vec<Flipbook>,
    /// Every image file read, for hot reload.
    pub images: Vec<String>,
    /// A tile source's collision shapes, one per tile (index as `frames`), from its `collision`
    /// image: None for a tile with no opaque pixel or no collision group. Empty for atlases and
    /// tile sources without a collision image.
    pub hulls: Vec<Option<TileShape>>,
    /// Each frame's pivot (Defold's atlas `pivot_x`/`pivot_y`: 0..1 across the image from its
    /// top-left corner), the point a sprite showing it puts on its object. Empty when every
    /// image is pivoted at its centre (0.5, 0.5), as tile sources always are.
    pub pivots: Vec<[f32; 2]>,
}

/// The collision shape of one tile: its hull and the collision group it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct TileShape {
    pub hull: hull::TileHull,
    pub group: String,
}

/// Where one image sits on the page, in pixels from the page's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// A named sequence of frames (Defold's `AtlasAnimation` / tile source `Animation`).
#[derive(Debug, Clone, PartialEq)]
pub struct Flipbook {
    pub id: String,
    /// Indexes into [`Atlas::frames`], in playing order; never empty.
    pub frames: Vec<u32>,
    pub fps: f32,
    pub playback: Playback,
    pub flip_horizontal: bool,
    pub flip_vertical: bool,
}

/// Defold's `Playback` enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Playback {
    None,
    OnceForward,
    OnceBackward,
    OncePingpong,
    LoopForward,
    LoopBackward,
    LoopPingpong,
}

impl Playback {
    /// Every mode in the order of its `go.PLAYBACK_*` value (the index), as Lua tables give it.
    pub const BY_VALUE: [Playback; 7] = [
        Playback::None,
        Playback::OnceForward,
        Playback::OnceBackward,
        Playback::OncePingpong,
        Playback::LoopForward,
        Playback::LoopBackward,
        Playback::LoopPingpong,
    ];

    pub const NAMES: &'static str =
        "none, once_forward, once_backward, once_pingpong, loop_forward, loop_backward or loop_pingpong";

    /// Sinew's lower-case names, or Defold's `PLAYBACK_*` constants.
    pub fn parse(s: &str) -> Option<Playback> {
        let s = s.strip_prefix("PLAYBACK_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Some(match s.as_str() {
            "none" => Playback::None,
            "once_forward" => Playback::OnceForward,
            "once_backward" => Playback::OnceBackward,
            "once_pingpong" => Playback::OncePingpong,
            "loop_forward" => Playback::LoopForward,
            "loop_backward" => Playback::LoopBackward,
            "loop_pingpong" => Playback::LoopPingpong,
            _ => return None,
        })
    }

    /// Whether the flipbook ends (and sends `animation_done`).
    pub fn is_once(self) -> bool {
        matches!(self, Playback::OnceForward | Playback::OnceBackward | Playback::OncePingpong)
    }
}

impl Atlas {
    pub fn animation(&self, id: &str) -> Option<&Flipbook> {
        self.animations.iter().find(|a| a.id == id)
    }

    /// The index of the flipbook whose id hashes to `id`, or the message naming the ones there
    /// are (`go.set` of an animation, `play_flipbook`).
    pub fn animation_index(&self, id: crate::base::hash::Hash) -> Result<u32, String> {
        match self.animations.iter().position(|a| crate::base::hash::hash_remembered(&a.id) == id) {
            Some(k) => Ok(k as u32),
            None => {
                let ids: Vec<&str> = self.animations.iter().map(|a| a.id.as_str()).collect();
                Err(format!(
                    "no animation '{}' in '{}' (it has {})",
                    crate::base::hash::name_of(id),
                    self.source,
                    ids.join(", ")
                ))
            }
        }
    }

    /// A 4x2 white page of one frame and one flipbook `id` on it (tests and benchmarks of what
    /// draws atlases).
    pub fn one_frame(id: &str, flip_horizontal: bool) -> Atlas {
        Atlas {
            source: "/a.atlas".into(),
            width: 4,
            height: 2,
            rgba: vec![255; 32],
            frames: vec![Frame { x: 0, y: 0, width: 4, height: 2 }],
            animations: vec![Flipbook {
                id: id.into(),
                frames: vec![0],
                fps: 1.0,
                playback: Playback::None,
                flip_horizontal,
                flip_vertical: false,
            }],
            images: vec![],
            hulls: vec![],
            pivots: Vec::new(),
        }
    }
}

/// Loads an `.atlas` or a `.tilesource` (Defold's older `.tileset` too), JSON or Defold text.
pub fn load_atlas(res: &Resources, path: &str) -> Result<Atlas, LoadError> {
    load(res, path, false).map(|(atlas, _)| atlas)
}

/// [`load_atlas`] for GUI scenes, which Sinew has always let name an atlas some of whose image
/// files are absent (Defold's examples are often copied with only the images they show): the
/// absent images are left out with every animation that shows one, and their paths returned
/// so the caller can say so. A file that exists but does not decode is still an error.
pub fn load_atlas_leaving_out_missing(res: &Resources, path: &str) -> Result<(Atlas, Vec<String>), LoadError> {
    load(res, path, true)
}

fn load(res: &Resources, path: &str, skip_missing: bool) -> Result<(Atlas, Vec<String>), LoadError> {
    let text = res.read_string(path, None)?;
    let tile_source = path.ends_with(".tilesource") || path.ends_with(".tileset");
    if !tile_source && !path.ends_with(".atlas") {
        return Err(LoadError::new(path, "an atlas must be a .atlas, .tilesource or .tileset file"));
    }
    let defold = crate::project::defold::is_protobuf_text(&text);
    if tile_source {
        let file: files::TileSourceFile =
            if defold { defold::tile_source(path, &text)? } else { crate::project::json::parse(path, &text)? };
        Ok((files::build_tile_source(res, path, &file)?, Vec::new()))
    } else {
        let file: files::AtlasFile =
            if defold { defold::atlas(path, &text)? } else { crate::project::json::parse(path, &text)? };
        files::build_atlas(res, path, &file, skip_missing)
    }
}

/// The material a sprite gets when it names none (Defold's path, served from Sinew's builtins).
pub const DEFAULT_SPRITE_MATERIAL: &str = "/builtins/materials/sprite.material";
/// A sprite side larger than this (in units at scale 1) is refused as a typo.
pub const MAX_SPRITE_SIZE: f32 = 1.0e6;
/// Textures a sprite may name besides its atlas (a material's samplers are fewer in practice).
pub const MAX_SPRITE_TEXTURES: usize = 16;
/// Attribute values a sprite may set for itself (a material declares a handful).
pub const MAX_SPRITE_ATTRIBUTES: usize = 32;

/// A `sprite` component (engine.md section 6), its atlas loaded and checked with the collection,
/// so spawning never reads a file and `play_flipbook` never meets a broken atlas.
#[derive(Debug, Clone, PartialEq)]
pub struct SpriteSpec {
    pub atlas: std::sync::Arc<Atlas>,
    /// More atlases or tile sources, each for a sampler of the custom material (by the name's
    /// hash): Defold's `textures` after the first. They are sampled at the coordinates of the
    /// frame shown from `atlas`, so each is laid out as `atlas` is (the same images' sizes).
    pub textures: Vec<(crate::base::hash::Hash, std::sync::Arc<Atlas>)>,
    /// The sprite's own values of its material's value attributes (name hash, up to four
    /// numbers, zeros after those given): where it starts, before any `go.set`.
    pub attributes: Vec<(crate::base::hash::Hash, [f32; 4])>,
    /// Index into the atlas's animations.
    pub default_animation: u32,
    pub material: String,
    pub blend_mode: BlendMode,
    pub size_mode: SizeMode,
    /// Width and height for [`SizeMode::Manual`]; ignored in auto mode (the frame's size).
    pub size: [f32; 2],
    pub billboard: Billboard,
    /// The sprite's own place in its game object (engine.md section 2).
    pub transform: crate::project::ComponentTransform,
    /// Defold's `slice9`: pixels kept unstretched at the left, top, right and bottom of the
    /// frame when the size is manual (all zero: the frame stretches as one quad).
    pub slice9: [f32; 4],
}

/// Defold's sprite blend modes (`add_alpha` is its deprecated alias of `add`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BlendMode {
    Alpha,
    Add,
    Multiply,
    Screen,
}

impl BlendMode {
    pub const NAMES: &'static str = "alpha, add, multiply or screen (or Defold's BLEND_MODE_* names)";

    pub fn parse(s: &str) -> Option<BlendMode> {
        let s = s.strip_prefix("BLEND_MODE_").map(str::to_ascii_lowercase).unwrap_or_else(|| s.to_string());
        Some(match s.as_str() {
            "alpha" => BlendMode::Alpha,
            "add" | "add_alpha" => BlendMode::Add,
            "multiply" | "mult" => BlendMode::Multiply,
            "screen" => BlendMode::Screen,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeMode {
    /// The current frame's size in pixels (Defold's default).
    Auto,
    Manual,
}

impl SizeMode {
    pub fn parse(s: &str) -> Option<SizeMode> {
        match s {
            "auto" | "SIZE_MODE_AUTO" => Some(SizeMode::Auto),
            "manual" | "SIZE_MODE_MANUAL" => Some(SizeMode::Manual),
            _ => None,
        }
    }
}

/// Sinew's addition to Defold's sprites: turning toward the camera, for markers in 3D scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Billboard {
    /// Oriented by its game object, as in Defold.
    Off,
    /// Always faces the camera.
    Face,
    /// Turns about its Y axis only, staying upright (trees, characters).
    Upright,
}
