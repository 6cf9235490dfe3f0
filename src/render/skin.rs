//! Skinning matrices on the GPU: one RGBA32F texture, `pose_matrix_cache`, holds the bones of
//! every skinned draw item of a frame, in the layout Defold's `skinning.glsl` reads (api spec
//! 5.3), so its shaders run unchanged:
//!
//! * each bone takes 3 texels; texel `k` holds column `k` of the 3×3 rotation-scale part in
//!   `.xyz` and translation component `k` in `.w` (the bottom row of an affine matrix is implied);
//! * texel index `i = 3 × bone + animation_data.x` sits at `(i mod width, i div width)`, so a bone
//!   may straddle two rows;
//! * the width is a power of two, so the shader's float division `i / width` is exact.
//!
//! The texture is made once, grows (never shrinks) when a frame needs more rows, and gets one
//! `glTexSubImage2D` per frame covering the rows used.

use glow::HasContext;

use super::draw::BoneRows;

/// Texels per row. A power of two (see the module doc), within what every GL 3.3 driver allows
/// (GL_MAX_TEXTURE_SIZE ≥ 1024), and wide enough that a frame of a few hundred characters is a
/// handful of rows.
pub const POSE_CACHE_WIDTH: u32 = 1024;

/// One bone in texture layout: three RGBA texels (see the module doc).
pub type BoneTexels = [f32; 12];

const IDENTITY_TEXELS: BoneTexels = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];

/// Draw-list rows → texture layout. A bone with a non-finite value becomes the identity, so one
/// bad matrix cannot turn a mesh into NaN vertices (the same rule as for morph weights).
pub fn bone_texels(r: &BoneRows) -> BoneTexels {
    if !r.iter().all(|v| v.is_finite()) {
        return IDENTITY_TEXELS;
    }
    [r[0], r[4], r[8], r[3], r[1], r[5], r[9], r[7], r[2], r[6], r[10], r[11]]
}

/// Texture layout → column-major 4×4 (what a `mat4` uniform array receives).
pub fn texels_to_cols(t: &BoneTexels) -> [f32; 16] {
    [t[0], t[1], t[2], 0.0, t[4], t[5], t[6], 0.0, t[8], t[9], t[10], 0.0, t[3], t[7], t[11], 1.0]
}

/// The frame's bones and the texture they are uploaded to.
pub struct PoseCache {
    texture: Option<glow::Texture>,
    /// Allocated rows (a power of two).
    height: u32,
    max_height: u32,
    bones: Vec<BoneTexels>,
    /// Row-padded copy of `bones` for the upload (reused).
    staging: Vec<f32>,
}

impl PoseCache {
    pub fn new(gl: &glow::Context) -> PoseCache {
        // SAFETY: plain state query on the current context.
        let max = unsafe { gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE) };
        // GL 3.3 guarantees 1024; a broken query must not disable skinning.
        PoseCache { texture: None, height: 0, max_height: max.max(1024) as u32, bones: Vec::new(), staging: Vec::new() }
    }

    /// Starts a frame: forgets the bones, keeps the memory and the texture.
    pub fn clear(&mut self) {
        self.bones.clear();
    }

    /// Bones the texture can hold at most (its largest allowed size).
    pub fn capacity(&self) -> usize {
        (POSE_CACHE_WIDTH as usize * self.max_height as usize) / 3
    }

    /// Bones added so far this frame.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Appends bones (draw-list rows); returns the first one's bone index, or None when they do
    /// not fit [`PoseCache::capacity`] (nothing is added then).
    pub fn push_rows(&mut self, rows: impl ExactSizeIterator<Item = BoneRows>) -> Option<u32> {
        let base = self.bones.len();
        if base + rows.len() > self.capacity() {
            return None;
        }
        self.bones.extend(rows.map(|r| bone_texels(&r)));
        Some(base as u32)
    }

    /// The frame's bones in texture layout.
    pub fn bones(&self) -> &[BoneTexels] {
        &self.bones
    }

    /// The texture, once something has been uploaded.
    pub fn texture(&self) -> Option<glow::Texture> {
        self.texture
    }

    /// (width, height) of the texture in texels: `animation_data.zw`.
    pub fn size(&self) -> (u32, u32) {
        (POSE_CACHE_WIDTH, self.height)
    }

    /// Uploads this frame's bones (nothing to do without any), growing the texture first if it
    /// is too small. Errors carry the GL error code; the cache is then left without a texture.
    pub fn upload(&mut self, gl: &glow::Context) -> Result<(), String> {
        if self.bones.is_empty() {
            return Ok(());
        }
        let width = POSE_CACHE_WIDTH as usize;
        let rows = (self.bones.len() * 3).div_ceil(width);
        let needed = (rows as u32).next_power_of_two();
        self.staging.clear();
        self.staging.extend(self.bones.iter().flatten());
        self.staging.resize(rows * width * 4, 0.0);
        let bytes: &[u8] = bytemuck_f32(&self.staging);
        // SAFETY: the context is current; `bytes` holds `rows` full rows of RGBA32F texels and
        // the texture has at least that many rows once (re)allocated below.
        unsafe {
            let tex = match self.texture {
                Some(t) => t,
                None => {
                    let t = gl.create_texture()?;
                    self.texture = Some(t);
                    self.height = 0;
                    t
                }
            };
            gl.bind_texture(glow::TEXTURE_2D, Some(tex));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            if self.height < needed {
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA32F as i32,
                    width as i32,
                    needed as i32,
                    0,
                    glow::RGBA,
                    glow::FLOAT,
                    glow::PixelUnpackData::Slice(None),
                );
                // Defold's shaders sample texel centres with texture(); filtering must not blend
                // neighbouring bones, and there are no mip levels.
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 0);
                for wrap in [glow::TEXTURE_WRAP_S, glow::TEXTURE_WRAP_T] {
                    gl.tex_parameter_i32(glow::TEXTURE_2D, wrap, glow::CLAMP_TO_EDGE as i32);
                }
                self.height = needed;
            }
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                0,
                width as i32,
                rows as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelUnpackData::Slice(Some(bytes)),
            );
            gl.bind_texture(glow::TEXTURE_2D, None);
            let err = gl.get_error();
            if err != glow::NO_ERROR {
                gl.delete_texture(tex);
                self.texture = None;
                self.height = 0;
                return Err(format!("pose_matrix_cache {width}x{needed}: GL error 0x{err:x}"));
            }
        }
        Ok(())
    }

    /// Frees the texture; call with the context that created it.
    pub fn destroy(&mut self, gl: &glow::Context) {
        if let Some(t) = self.texture.take() {
            // SAFETY: created on `gl`, not used afterwards.
            unsafe { gl.delete_texture(t) };
        }
        self.height = 0;
    }
}

/// The bytes of a float slice, without copying (f32 has no padding and any byte pattern is a
/// valid u8).
fn bytemuck_f32(v: &[f32]) -> &[u8] {
    // SAFETY: `v` is a live, initialised slice; u8 has alignment 1 and the length is exact.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::draw::bone_rows;
    use glam::{Mat4, Quat, Vec3, Vec4};

    #[test]
    fn texels_follow_the_contract_layout() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.3),
            Vec3::new(3.0, -4.0, 5.0),
        );
        let t = bone_texels(&bone_rows(&m));
        // Texel k: column k's xyz, translation component k in w.
        for k in 0..3 {
            let col = m.col(k);
            assert_eq!(&t[4 * k..4 * k + 3], &col.truncate().to_array());
            assert_eq!(t[4 * k + 3], m.w_axis[k]);
        }
        assert_eq!(Mat4::from_cols_array(&texels_to_cols(&t)), m);
        let p = Vec4::new(0.3, -1.0, 2.0, 1.0);
        assert!((Mat4::from_cols_array(&texels_to_cols(&t)) * p).abs_diff_eq(m * p, 1e-6));
    }

    #[test]
    fn bad_bones_become_identity() {
        let mut r = bone_rows(&Mat4::from_translation(Vec3::X));
        r[5] = f32::NAN;
        assert_eq!(bone_texels(&r), IDENTITY_TEXELS);
        assert_eq!(Mat4::from_cols_array(&texels_to_cols(&IDENTITY_TEXELS)), Mat4::IDENTITY);
    }
}
