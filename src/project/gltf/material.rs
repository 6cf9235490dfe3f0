//! Materials (base colour, metallic-roughness, emissive, normal and occlusion maps) and the
//! textures they use, decoded to RGBA8. Images nothing uses are not decoded.
use super::Errors;
use super::accessor::{Ctx, load_uri, missing_file};
use crate::project::Resources;
use crate::project::model_data::{AlphaMode, MaterialData, TextureData, TextureRef, Wrap};
use gltf::json;
use gltf::json::texture::{MagFilter, MinFilter, WrappingMode};
use gltf::json::validation::Checked;
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// A decoded image: width, height, RGBA8 pixels.
type Pixels = (u32, u32, Vec<u8>);

/// Images larger than this per side are refused before their pixels are allocated.
const MAX_SIDE: u32 = 16384;
const MAX_PIXELS: u64 = 64 << 20;

/// The textures a material uses, with their glTF paths (relative to the material) and sets.
pub(crate) fn texture_refs(m: &json::Material) -> [Option<(&'static str, usize, u32)>; 5] {
    let pbr = &m.pbr_metallic_roughness;
    [
        pbr.base_color_texture
            .as_ref()
            .map(|t| ("pbrMetallicRoughness.baseColorTexture", t.index.value(), t.tex_coord)),
        m.normal_texture.as_ref().map(|t| ("normalTexture", t.index.value(), t.tex_coord)),
        m.occlusion_texture.as_ref().map(|t| ("occlusionTexture", t.index.value(), t.tex_coord)),
        m.emissive_texture.as_ref().map(|t| ("emissiveTexture", t.index.value(), t.tex_coord)),
        pbr.metallic_roughness_texture
            .as_ref()
            .map(|t| ("pbrMetallicRoughness.metallicRoughnessTexture", t.index.value(), t.tex_coord)),
    ]
}

/// Texcoord sets the importer reads (TEXCOORD_0 and TEXCOORD_1).
pub(crate) const TEXCOORD_SETS: u32 = 2;

pub(crate) fn materials(
    src: &str,
    ctx: &Ctx,
    res: Option<&Resources>,
    errs: &mut Errors,
) -> (Vec<MaterialData>, Vec<TextureData>) {
    let mut textures = Vec::new();
    let mut loaded: HashMap<usize, Option<usize>> = HashMap::new();
    let mut images = Images::default();
    // How many distinct textures use each image, so that the last one takes the decoded pixels.
    let mut seen = std::collections::HashSet::new();
    for m in &ctx.root.materials {
        for (_, t, _) in texture_refs(m).into_iter().flatten() {
            if let Some(tex) = ctx.root.textures.get(t).filter(|_| seen.insert(t)) {
                *images.users.entry(tex.source.value()).or_default() += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(ctx.root.materials.len());
    for (i, m) in ctx.root.materials.iter().enumerate() {
        let path = format!("materials[{i}]");
        let pbr = &m.pbr_metallic_roughness;
        let strength =
            m.extensions.as_ref().and_then(|e| e.emissive_strength.as_ref()).map_or(1.0, |s| s.emissive_strength.0);
        let mut mat = MaterialData {
            name: m.name.clone().unwrap_or_default(),
            base_color: pbr.base_color_factor.0,
            alpha_mode: match m.alpha_mode {
                Checked::Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask,
                Checked::Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
                _ => AlphaMode::Opaque,
            },
            alpha_cutoff: m.alpha_cutoff.map_or(0.5, |c| c.0),
            double_sided: m.double_sided,
            emissive: m.emissive_factor.0.map(|c| c * strength),
            normal_scale: m.normal_texture.as_ref().map_or(1.0, |t| t.scale),
            occlusion_strength: m.occlusion_texture.as_ref().map_or(1.0, |t| t.strength.0),
            metallic: pbr.metallic_factor.0,
            roughness: pbr.roughness_factor.0,
            ..MaterialData::default()
        };
        if !mat.base_color.iter().all(|v| v.is_finite()) || !mat.alpha_cutoff.is_finite() {
            errs.push(format!("{path}: baseColorFactor or alphaCutoff is not finite"));
        }
        if !(strength.is_finite() && strength >= 0.0) {
            errs.push(format!(
                "{path}.extensions.KHR_materials_emissive_strength.emissiveStrength: {strength} is not a finite number >= 0"
            ));
        }
        if !mat.emissive.iter().all(|v| v.is_finite()) {
            errs.push(format!("{path}.emissiveFactor: not finite"));
        }
        if !mat.normal_scale.is_finite() {
            errs.push(format!("{path}.normalTexture.scale: not finite"));
        }
        if !(mat.metallic.is_finite() && mat.roughness.is_finite()) {
            errs.push(format!("{path}.pbrMetallicRoughness: metallicFactor or roughnessFactor is not finite"));
        }
        if !mat.occlusion_strength.is_finite() {
            errs.push(format!("{path}.occlusionTexture.strength: not finite"));
        }
        let refs = texture_refs(m);
        let mut slots = [None; 5];
        for (slot, (field, t, set)) in slots.iter_mut().zip(refs).filter_map(|(s, r)| Some((s, r?))) {
            let what = format!("{path}.{field}");
            if set >= TEXCOORD_SETS {
                errs.push(format!("{what}.texCoord: {set} is not supported (0 or 1)"));
                continue;
            }
            let loaded_slot = match loaded.get(&t) {
                Some(s) => *s,
                None if image_file_missing(src, ctx, res, t) => {
                    log::warn!(
                        "{src}: {what}: its image file is not in the project; the material is drawn without it (a .model's textures still apply, and Defold never reads glTF images)"
                    );
                    loaded.insert(t, None);
                    None
                }
                None => {
                    let s = errs.take(texture(src, ctx, res, t, &mut images).map_err(|e| format!("{what}: {e}"))).map(
                        |tex| {
                            textures.push(tex);
                            textures.len() - 1
                        },
                    );
                    loaded.insert(t, s);
                    s
                }
            };
            *slot = loaded_slot.map(|texture| TextureRef { texture, texcoord: set });
        }
        let [base, normal, occlusion, emissive, metallic_roughness] = slots;
        mat.metallic_roughness_texture = metallic_roughness;
        mat.base_color_texture = base.map(|r| r.texture);
        mat.base_color_texcoord = base.map_or(0, |r| r.texcoord);
        (mat.normal_texture, mat.occlusion_texture, mat.emissive_texture) = (normal, occlusion, emissive);
        out.push(mat);
    }
    (out, textures)
}

/// Texture `t`'s image is an external file that is not there.
fn image_file_missing(src: &str, ctx: &Ctx, res: Option<&Resources>, t: usize) -> bool {
    let image = ctx.root.textures.get(t).and_then(|tex| ctx.root.images.get(tex.source.value()));
    image.is_some_and(|i| i.buffer_view.is_none() && i.uri.as_deref().is_some_and(|u| missing_file(src, u, res)))
}

/// Decoded images still wanted by a texture, and how many textures still want each.
#[derive(Default)]
struct Images {
    decoded: HashMap<usize, Result<Rc<Pixels>, String>>,
    users: HashMap<usize, usize>,
}

/// Image `ii` decoded, within the budget; each image is read and decoded once per import.
fn image(src: &str, ctx: &Ctx, res: Option<&Resources>, ii: usize) -> Result<Rc<Pixels>, String> {
    let image = ctx.root.images.get(ii).ok_or_else(|| format!("image {ii} does not exist"))?;
    let here = format!("images[{ii}]");
    let bytes = match (&image.uri, image.buffer_view) {
        (_, Some(v)) => ctx.view(v.value()).map(|(b, _)| Cow::Borrowed(b)).map_err(|e| format!("{here}: {e}"))?,
        (Some(uri), None) => {
            let b = load_uri(src, uri, res).map_err(|e| format!("{here}.uri: {e}"))?;
            ctx.budget.add_input(b.len() as u64);
            Cow::Owned(b)
        }
        (None, None) => return Err(format!("{here}: neither uri nor bufferView")),
    };
    let admit = |w: u32, h: u32| ctx.charge(u64::from(w) * u64::from(h) * 4, &format!("{w}x{h} pixels"));
    decode_image_within(&bytes, &admit).map(Rc::new).map_err(|e| format!("{here}: {e}"))
}

fn texture(
    src: &str,
    ctx: &Ctx,
    res: Option<&Resources>,
    t: usize,
    images: &mut Images,
) -> Result<TextureData, String> {
    let tex = ctx.root.textures.get(t).ok_or_else(|| format!("texture {t} does not exist"))?;
    let ii = tex.source.value();
    let decoded = images.decoded.entry(ii).or_insert_with(|| image(src, ctx, res, ii)).clone();
    let users = images.users.entry(ii).or_insert(1);
    *users = users.saturating_sub(1);
    if *users == 0 {
        images.decoded.remove(&ii);
    }
    let decoded = decoded.map_err(|e| format!("textures[{t}].source: {e}"))?;
    let (width, height) = (decoded.0, decoded.1);
    // The last texture of an image takes the decoded pixels; each one before it takes a copy.
    let rgba = match Rc::try_unwrap(decoded) {
        Ok((_, _, px)) => px,
        Err(shared) => {
            ctx.charge(shared.2.len() as u64, &format!("textures[{t}]: a copy of images[{ii}]"))?;
            shared.2.clone()
        }
    };
    let sampler = match tex.sampler {
        Some(s) => Some(
            ctx.root
                .samplers
                .get(s.value())
                .ok_or_else(|| format!("textures[{t}].sampler: sampler {} does not exist", s.value()))?,
        ),
        None => None,
    };
    let wrap = |w: Option<&Checked<WrappingMode>>| match w {
        Some(Checked::Valid(WrappingMode::ClampToEdge)) => Wrap::ClampToEdge,
        Some(Checked::Valid(WrappingMode::MirroredRepeat)) => Wrap::MirroredRepeat,
        _ => Wrap::Repeat,
    };
    let min = sampler.and_then(|s| s.min_filter.as_ref());
    let (min_linear, mipmaps) = match min {
        Some(Checked::Valid(MinFilter::Nearest)) => (false, false),
        Some(Checked::Valid(MinFilter::Linear)) => (true, false),
        Some(Checked::Valid(MinFilter::NearestMipmapNearest | MinFilter::NearestMipmapLinear)) => (false, true),
        _ => (true, true),
    };
    let mag_nearest = matches!(sampler.and_then(|s| s.mag_filter.as_ref()), Some(Checked::Valid(MagFilter::Nearest)));
    Ok(TextureData {
        name: tex.name.clone().or_else(|| ctx.root.images.get(ii).and_then(|i| i.name.clone())).unwrap_or_default(),
        width,
        height,
        rgba,
        wrap_s: wrap(sampler.map(|s| &s.wrap_s)),
        wrap_t: wrap(sampler.map(|s| &s.wrap_t)),
        mag_linear: !mag_nearest,
        min_linear,
        mipmaps,
        cube: false,
    })
}

fn check_size(w: u32, h: u32) -> Result<(), String> {
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!("image size {w}x{h} is not supported"));
    }
    Ok(())
}

/// PNG or JPEG (by content, not by the declared MIME type) to RGBA8, rows top to bottom.
pub(crate) fn decode_image(bytes: &[u8]) -> Result<Pixels, String> {
    decode_image_within(bytes, &|_, _| Ok(()))
}

/// [`decode_image`], asking `admit` about the header's width and height before any pixel is
/// allocated (a 1 KB PNG can declare 16384x16384).
pub(crate) fn decode_image_within(
    bytes: &[u8],
    admit: &dyn Fn(u32, u32) -> Result<(), String>,
) -> Result<Pixels, String> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(bytes, admit).map_err(|e| format!("bad PNG: {e}"))
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        decode_jpeg(bytes, admit).map_err(|e| format!("bad JPEG: {e}"))
    } else {
        Err("image is neither PNG nor JPEG".into())
    }
}

fn decode_png(bytes: &[u8], admit: &dyn Fn(u32, u32) -> Result<(), String>) -> Result<Pixels, String> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let (w, h) = (reader.info().width, reader.info().height);
    check_size(w, h)?;
    admit(w, h)?;
    let size = reader.output_buffer_size().ok_or("image too large")?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (color, _) = reader.output_color_type();
    let px = buf.get(..frame.buffer_size()).ok_or("short frame")?;
    let rgba = match color {
        png::ColorType::Rgba => px.to_vec(),
        png::ColorType::Rgb => px.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => px.chunks_exact(2).flat_map(|c| [c[0], c[0], c[0], c[1]]).collect(),
        png::ColorType::Grayscale => px.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("palette was not expanded".into()),
    };
    if rgba.len() != w as usize * h as usize * 4 {
        return Err("decoded size does not match the header".into());
    }
    Ok((w, h, rgba))
}

fn decode_jpeg(bytes: &[u8], admit: &dyn Fn(u32, u32) -> Result<(), String>) -> Result<Pixels, String> {
    use zune_jpeg::zune_core::{bytestream::ZCursor, colorspace::ColorSpace, options::DecoderOptions};
    let opts = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::RGBA)
        .set_max_width(MAX_SIDE as usize)
        .set_max_height(MAX_SIDE as usize);
    let mut dec = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), opts);
    dec.decode_headers().map_err(|e| format!("{e:?}"))?;
    let info = dec.info().ok_or("no image header")?;
    let (w, h) = (u32::from(info.width), u32::from(info.height));
    check_size(w, h)?;
    admit(w, h)?;
    let px = dec.decode().map_err(|e| format!("{e:?}"))?;
    if px.len() != w as usize * h as usize * 4 {
        return Err("decoded size does not match the header".into());
    }
    Ok((w, h, px))
}
