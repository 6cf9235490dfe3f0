//! Mipmaps made on the CPU and uploaded level by level. `glGenerateMipmap` on llvmpipe (Mesa's
//! software rasterizer, what CI and headless runs draw with) blits each level through shaders it
//! compiles anew in every process: the demo's first frame spent about 250 ms there, for three
//! textures of a few hundred bytes. A 2×2 box per level costs a few milliseconds for a 1024²
//! image, on any driver.

use glow::HasContext;

/// Each level below level 0 of a `width` × `height` RGBA8 image: its size and texels, every
/// texel the mean of the 2×2 (or, where a side is odd, the 2×1 or 1×1 at the edge) it covers
/// in the level above, averaged in linear light when `srgb` (as GL generates mipmaps of an
/// sRGB texture), alpha as stored. Down to 1×1.
pub fn levels(width: u32, height: u32, rgba: &[u8], srgb: bool) -> Vec<(u32, u32, Vec<u8>)> {
    let to_linear = |c: u8| -> f32 {
        let c = f32::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let table: Vec<f32> = (0..=255u8).map(|c| if srgb { to_linear(c) } else { f32::from(c) / 255.0 }).collect();
    let encode = |v: f32| -> u8 {
        let v = v.clamp(0.0, 1.0);
        let e = if !srgb {
            v
        } else if v <= 0.003_130_8 {
            v * 12.92
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (e * 255.0 + 0.5) as u8
    };
    let mut out = Vec::new();
    let (mut w, mut h) = (width as usize, height as usize);
    if rgba.len() != w * h * 4 {
        return out;
    }
    while w > 1 || h > 1 {
        let above: &[u8] = out.last().map_or(rgba, |(_, _, l): &(u32, u32, Vec<u8>)| l.as_slice());
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut level = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            let rows = [(2 * y).min(h - 1), (2 * y + 1).min(h - 1)];
            for x in 0..nw {
                let cols = [(2 * x).min(w - 1), (2 * x + 1).min(w - 1)];
                let mut sum = [0f32; 4];
                for &r in &rows {
                    for &c in &cols {
                        let i = (r * w + c) * 4;
                        for k in 0..3 {
                            sum[k] += table[above[i + k] as usize];
                        }
                        sum[3] += f32::from(above[i + 3]) / 255.0;
                    }
                }
                let o = (y * nw + x) * 4;
                for k in 0..3 {
                    level[o + k] = encode(sum[k] * 0.25);
                }
                level[o + 3] = ((sum[3] * 0.25).clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
            }
        }
        out.push((nw as u32, nh as u32, level));
        (w, h) = (nw, nh);
    }
    out
}

/// Uploads the levels below level 0 of the bound `target` image (`face_target` for a cube
/// face) and limits sampling to them.
///
/// # Safety
/// The context is current and the texture is bound to `target`.
pub unsafe fn upload_levels(
    gl: &glow::Context,
    target: u32,
    face_target: u32,
    internal: u32,
    (width, height): (u32, u32),
    rgba: &[u8],
    srgb: bool,
) {
    let levels = levels(width, height, rgba, srgb);
    // SAFETY: as the caller promises.
    unsafe {
        for (k, (w, h, texels)) in levels.iter().enumerate() {
            gl.tex_image_2d(
                face_target,
                k as i32 + 1,
                internal as i32,
                *w as i32,
                *h as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(texels)),
            );
        }
        gl.tex_parameter_i32(target, glow::TEXTURE_MAX_LEVEL, levels.len() as i32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_averages_the_texels_it_covers_down_to_one() {
        // 4x2: a black and white checker of 2x2 blocks, alpha 255 and 0 on the halves.
        let px = |x: u32| if x < 2 { [0, 0, 0, 255] } else { [255, 255, 255, 0] };
        let rgba: Vec<u8> = (0..2).flat_map(|_| (0..4).flat_map(px)).collect();
        let l = levels(4, 2, &rgba, false);
        assert_eq!(l.iter().map(|(w, h, _)| (*w, *h)).collect::<Vec<_>>(), [(2, 1), (1, 1)]);
        assert_eq!(l[0].2, [0, 0, 0, 255, 255, 255, 255, 0]);
        assert_eq!(l[1].2, [128, 128, 128, 128]);
    }

    #[test]
    fn srgb_levels_average_light_not_bytes() {
        // Black and white side by side: half the light is sRGB 188, not 128.
        let l = levels(2, 1, &[0, 0, 0, 255, 255, 255, 255, 255], true);
        assert_eq!(l[0].2, [188, 188, 188, 255]);
        // An odd side repeats its last texel: 3x1 gives 1x1 of the first two.
        let l = levels(3, 1, &[0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255], false);
        assert_eq!(l[0].2, [0, 0, 0, 255]);
        assert!(levels(2, 2, &[0; 3], false).is_empty(), "a short image has no levels");
    }
}
