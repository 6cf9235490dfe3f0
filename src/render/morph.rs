//! Morph target deltas on the GPU: one `sampler2DArray` per primitive, in the layout Defold's
//! morph shaders read (api spec 5.3), so their shaders run unchanged. Three layers per target
//! (`3t` position, `3t+1` normal, `3t+2` tangent deltas), one RGBA32F texel per vertex, vertex
//! `i` at texel `(i mod width, i div width)`. Layers a target has no deltas for are zero rather
//! than absent so that layer indices never depend on which attributes a file happens to morph.
//!
//! Uploaded once per model and shared by every instance; only the weights are per instance.

use glow::HasContext;

use crate::project::model_data::PrimitiveData;

/// A primitive's uploaded morph targets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphTexture {
    pub texture: glow::Texture,
    pub width: u32,
    pub height: u32,
    pub targets: u32,
}

/// Driver limits the texture must fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MorphLimits {
    /// GL_MAX_TEXTURE_SIZE: bounds width and height.
    pub max_size: u32,
    /// GL_MAX_ARRAY_TEXTURE_LAYERS: bounds 3 × targets.
    pub max_layers: u32,
}

impl MorphLimits {
    pub fn query(gl: &glow::Context) -> MorphLimits {
        // SAFETY: plain state queries on the current context.
        let (size, layers) = unsafe {
            (gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE), gl.get_parameter_i32(glow::MAX_ARRAY_TEXTURE_LAYERS))
        };
        // GL 3.3 guarantees at least 1024 and 256; a broken query must not make every upload fail.
        MorphLimits { max_size: (size.max(1024)) as u32, max_layers: (layers.max(256)) as u32 }
    }
}

/// Texture grid for `vertices` texels: as wide as allowed, so most meshes are a single row and
/// the shader's `div`/`mod` touch one row. None when it cannot fit.
pub fn morph_grid(vertices: usize, max_size: u32) -> Option<(u32, u32)> {
    let width = vertices.clamp(1, max_size.max(1) as usize);
    let height = vertices.div_ceil(width).max(1);
    (height <= max_size as usize).then_some((width as u32, height as u32))
}

/// Checks every target stream against the vertex count (an empty stream is a zero delta).
pub fn check_targets(p: &PrimitiveData) -> Result<(), String> {
    let n = p.positions.len();
    for (t, target) in p.targets.iter().enumerate() {
        for (name, len) in
            [("POSITION", target.positions.len()), ("NORMAL", target.normals.len()), ("TANGENT", target.tangents.len())]
        {
            if len != 0 && len != n {
                return Err(format!("morph target {t} has {len} {name} deltas for {n} vertices"));
            }
        }
    }
    Ok(())
}

/// Texel data for `glTexImage3D`: layer after layer, rows bottom (y = 0) first, RGBA with w = 0.
pub fn pack_morph_texels(p: &PrimitiveData, width: u32, height: u32) -> Vec<f32> {
    let layer = width as usize * height as usize * 4;
    let mut data = vec![0.0f32; layer * 3 * p.targets.len()];
    for (t, target) in p.targets.iter().enumerate() {
        for (k, stream) in [&target.positions, &target.normals, &target.tangents].into_iter().enumerate() {
            let start = (3 * t + k) * layer;
            for (texel, d) in data[start..start + layer].chunks_exact_mut(4).zip(stream) {
                texel[..3].copy_from_slice(d);
            }
        }
    }
    data
}

/// Uploads `p`'s targets; Ok(None) when it has none. Errors say which limit or stream is wrong.
pub(crate) fn upload_morph_texture(
    gl: &glow::Context,
    p: &PrimitiveData,
    limits: MorphLimits,
) -> Result<Option<MorphTexture>, String> {
    if p.targets.is_empty() {
        return Ok(None);
    }
    check_targets(p)?;
    let n = p.positions.len();
    let (width, height) = morph_grid(n, limits.max_size)
        .ok_or_else(|| format!("{n} vertices do not fit a {0}x{0} morph target texture", limits.max_size))?;
    let layers = 3 * p.targets.len();
    if layers > limits.max_layers as usize {
        return Err(format!(
            "{} morph targets need {layers} texture layers; this GPU allows {} ({} targets)",
            p.targets.len(),
            limits.max_layers,
            limits.max_layers / 3
        ));
    }
    let data = pack_morph_texels(p, width, height);
    let texture = float_array_texture(gl, width, height, layers as u32, &data)?;
    Ok(Some(MorphTexture { texture, width, height, targets: p.targets.len() as u32 }))
}

/// The 1×1×3 all-zero texture bound where a shader samples `morph_targets` but the mesh has
/// none: the contract shader derives its target count from the layer count, reads one zero
/// target and leaves the mesh as it is.
pub(crate) fn zero_morph_texture(gl: &glow::Context) -> Result<glow::Texture, String> {
    float_array_texture(gl, 1, 1, 3, &[0.0; 12])
}

fn float_array_texture(
    gl: &glow::Context,
    width: u32,
    height: u32,
    layers: u32,
    data: &[f32],
) -> Result<glow::Texture, String> {
    let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_ne_bytes()).collect();
    // SAFETY: the context is current; `bytes` holds width*height*layers RGBA32F texels.
    unsafe {
        let tex = gl.create_texture()?;
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, Some(tex));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
        gl.tex_image_3d(
            glow::TEXTURE_2D_ARRAY,
            0,
            glow::RGBA32F as i32,
            width as i32,
            height as i32,
            layers as i32,
            0,
            glow::RGBA,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(Some(&bytes)),
        );
        // Defold's shaders sample with texture() at texel centres, so filtering must not blend
        // neighbouring vertices, and there are no mip levels to make it complete otherwise.
        gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, glow::TEXTURE_MAX_LEVEL, 0);
        for wrap in [glow::TEXTURE_WRAP_S, glow::TEXTURE_WRAP_T] {
            gl.tex_parameter_i32(glow::TEXTURE_2D_ARRAY, wrap, glow::CLAMP_TO_EDGE as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D_ARRAY, None);
        let err = gl.get_error();
        if err != glow::NO_ERROR {
            gl.delete_texture(tex);
            return Err(format!("morph target texture {width}x{height}x{layers}: GL error 0x{err:x}"));
        }
        Ok(tex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::model_data::MorphTargetData;

    #[test]
    fn grid_is_one_row_when_it_fits() {
        assert_eq!(morph_grid(10_000, 16_384), Some((10_000, 1)));
        assert_eq!(morph_grid(10_000, 4096), Some((4096, 3)));
        assert_eq!(morph_grid(0, 4096), Some((1, 1)));
        assert_eq!(morph_grid(5, 2), None);
        assert_eq!(morph_grid(4, 2), Some((2, 2)));
    }

    #[test]
    fn texels_follow_the_contract_layout() {
        let p = PrimitiveData {
            positions: vec![[0.0; 3]; 3],
            targets: vec![
                MorphTargetData {
                    positions: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
                    ..Default::default()
                },
                MorphTargetData {
                    positions: vec![],
                    normals: vec![[0.5; 3]; 3],
                    tangents: vec![[0.0, 0.0, -1.0], [0.0; 3], [0.0, 2.0, 0.0]],
                },
            ],
            ..Default::default()
        };
        // Width 2: vertex 2 lands at (0, 1); texel (1, 1) is padding.
        let d = pack_morph_texels(&p, 2, 2);
        let texel = |layer: usize, x: usize, y: usize| &d[((layer * 2 + y) * 2 + x) * 4..][..4];
        assert_eq!(d.len(), 6 * 4 * 4);
        assert_eq!(texel(0, 1, 0), &[4.0, 5.0, 6.0, 0.0]);
        assert_eq!(texel(0, 0, 1), &[7.0, 8.0, 9.0, 0.0]);
        assert_eq!(texel(0, 1, 1), &[0.0; 4]);
        assert!((0..4).all(|i| texel(1, i % 2, i / 2) == [0.0; 4] && texel(2, i % 2, i / 2) == [0.0; 4]));
        assert_eq!(texel(3, 0, 0), &[0.0; 4], "target 1 has no position deltas");
        assert_eq!(texel(4, 0, 1), &[0.5, 0.5, 0.5, 0.0]);
        assert_eq!(texel(5, 0, 1), &[0.0, 2.0, 0.0, 0.0]);
    }

    #[test]
    fn streams_of_the_wrong_length_are_named() {
        let p = PrimitiveData {
            positions: vec![[0.0; 3]; 3],
            targets: vec![
                MorphTargetData::default(),
                MorphTargetData { normals: vec![[0.0; 3]; 2], ..Default::default() },
            ],
            ..Default::default()
        };
        assert_eq!(check_targets(&p), Err("morph target 1 has 2 NORMAL deltas for 3 vertices".to_string()));
    }
}
