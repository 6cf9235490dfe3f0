//! Font files: Defold's `.font` (protobuf text, `font_ddf.proto`'s FontDesc) or the same fields
//! in Sinew JSON, naming a TrueType/OpenType file and the size, outline and shadow to draw it
//! with. Both formats fill [`FontDesc`] (`project::defold::font` converts Defold's).
use super::{Face, MAX_TEXT_SIZE};
use crate::base::error::LoadError;
use crate::project::Resources;
use crate::project::json::Located;
use serde::Deserialize;
use std::sync::Arc;

/// The fields of a `.font` file Sinew uses; the rest of Defold's are accepted and ignored.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FontDesc {
    /// The `.ttf` / `.otf` file.
    pub font: Located<String>,
    /// Pixels per em.
    pub size: f32,
    #[serde(default)]
    pub material: Option<String>,
    #[serde(default = "one")]
    pub alpha: f32,
    #[serde(default)]
    pub outline_alpha: f32,
    /// Outline width in pixels at `size`.
    #[serde(default)]
    pub outline_width: f32,
    #[serde(default)]
    pub shadow_alpha: f32,
    #[serde(default)]
    pub shadow_blur: f32,
    /// Shadow offset in pixels (y up).
    #[serde(default)]
    pub shadow_x: f32,
    #[serde(default)]
    pub shadow_y: f32,
    #[serde(default)]
    pub antialias: Option<u32>,
    #[serde(default)]
    pub extra_characters: Option<String>,
    #[serde(default)]
    pub all_chars: Option<bool>,
    #[serde(default)]
    pub output_format: Option<String>,
    #[serde(default)]
    pub render_mode: Option<String>,
    #[serde(default)]
    pub cache_width: Option<u32>,
    #[serde(default)]
    pub cache_height: Option<u32>,
    #[serde(default)]
    pub characters: Option<String>,
}

fn one() -> f32 {
    1.0
}

/// A font ready to draw: its face and how it is drawn.
#[derive(Debug, Clone)]
pub struct Font {
    pub face: Arc<Face>,
    pub size: f32,
    pub alpha: f32,
    pub outline_width: f32,
    pub outline_alpha: f32,
    pub shadow_alpha: f32,
    pub shadow: [f32; 2],
}

impl Font {
    /// The built-in face at `size`, no outline or shadow.
    pub fn default_sized(size: f32) -> Font {
        Font {
            face: Face::default_face(),
            size,
            alpha: 1.0,
            outline_width: 0.0,
            outline_alpha: 0.0,
            shadow_alpha: 0.0,
            shadow: [0.0; 2],
        }
    }
}

/// Reads `path` (a `.font`, or a `.ttf`/`.otf` directly at `default_size`).
pub fn load_font(
    res: &Resources,
    path: &Located<String>,
    referrer: &str,
    default_size: f32,
) -> Result<Font, LoadError> {
    let lower = path.value.to_ascii_lowercase();
    if lower.ends_with(".ttf") || lower.ends_with(".otf") {
        let norm = crate::project::json::resource_path(path, referrer)?;
        let bytes = res.read(&norm, Some(referrer)).map_err(|e| path.error(referrer, e.message))?;
        return Ok(Font { face: Face::parse_shared(&norm, &bytes)?, ..Font::default_sized(default_size) });
    }
    let (norm, desc): (String, FontDesc) = crate::project::json::read(res, path, referrer)?;
    font_from_desc(res, &norm, &desc)
}

/// Checks a description's numbers and parses its face.
pub fn font_from_desc(res: &Resources, resource: &str, d: &FontDesc) -> Result<Font, LoadError> {
    let bad = |what: &str| d.font.error(resource, what.to_string());
    if !(d.size > 0.0 && d.size <= MAX_TEXT_SIZE) {
        return Err(bad(&format!("font size must be above 0 and at most {MAX_TEXT_SIZE}")));
    }
    let numbers = [d.alpha, d.outline_alpha, d.outline_width, d.shadow_alpha, d.shadow_x, d.shadow_y];
    if numbers.iter().any(|n| !n.is_finite()) || d.outline_width < 0.0 {
        return Err(bad("alpha, outline and shadow values must be finite (outline_width at least 0)"));
    }
    let norm = crate::project::json::resource_path(&d.font, resource)?;
    let bytes = res.read(&norm, Some(resource)).map_err(|e| d.font.error(resource, e.message))?;
    let (face, size) = if norm.to_ascii_lowercase().ends_with(".fnt") {
        // A BMFont is drawn at its own size, as Defold's fontc takes it; the `.font`'s size
        // is not used.
        let face = Arc::new(bitmap_face(res, &norm, &bytes)?);
        let size = face.bitmap_size().unwrap_or(d.size);
        (face, size)
    } else {
        (Face::parse_shared(&norm, &bytes).map_err(|e| d.font.error(resource, e.message))?, d.size)
    };
    Ok(Font {
        face,
        size,
        alpha: d.alpha.clamp(0.0, 1.0),
        outline_width: d.outline_width,
        outline_alpha: d.outline_alpha.clamp(0.0, 1.0),
        shadow_alpha: d.shadow_alpha.clamp(0.0, 1.0),
        shadow: [d.shadow_x, d.shadow_y],
    })
}

/// A BMFont `.fnt` (text format) and its page images, named relative to its folder.
fn bitmap_face(res: &Resources, path: &str, bytes: &[u8]) -> Result<Face, LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|_| LoadError::new(path, "not a BMFont text file (not UTF-8)"))?;
    let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut page = |file: &str| -> super::bmfont::PageImage {
        let page_path = crate::base::path::normalize(&format!("{folder}/{file}"))
            .ok_or_else(|| format!("'{file}' escapes the project root"))?;
        let png = res.read(&page_path, Some(path)).map_err(|e| e.message)?;
        let side = super::bmfont::MAX_PAGE_SIDE;
        let admit = |w: u32, h: u32| {
            if w > side || h > side { Err(format!("{w}x{h} is larger than {side} texels a side")) } else { Ok(()) }
        };
        crate::project::gltf::decode_image_within(&png, &admit)
    };
    super::bmfont::parse(path, text, &mut page).map(|font| Face::bitmap(path, font))
}
