//! The flat list the renderer draws sprites from: one quad per visible sprite, in world space,
//! with its atlas, page rectangle (flips applied), tint and blend mode. Made once a frame into
//! a list the caller keeps, so it allocates nothing once it has grown.
use super::{SpriteInstance, SpriteWorld};
use crate::project::sprite::{Atlas, Billboard, BlendMode, SizeMode};
use crate::scene::Scene;
use glam::{Mat4, Vec3};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpriteQuad {
    /// Bottom-left, bottom-right, top-right, top-left, in world space.
    pub corners: [Vec3; 4],
    /// Page coordinates (0..1, v down the page) at the left, top, right and bottom edges.
    pub uv: [f32; 4],
    /// The quad in the sprite's own pixels about its centre, unscaled (left, bottom, right,
    /// top): what a material's local-space position attribute reads.
    pub local: [f32; 4],
    pub color: [f32; 4],
    /// Index into [`SpriteWorld::atlases`].
    pub atlas: u32,
    pub blend: BlendMode,
    pub material: crate::base::hash::Hash,
    /// The custom material's index in `ModelWorld::materials`; None: the built-in program.
    pub material_index: Option<u32>,
    /// The sprite this quad belongs to (its material constants), index into `instances`.
    pub sprite: u32,
    /// Equal for quads whose material constants (tint included) are equal: custom materials
    /// read them as uniforms, so only such quads share a draw call (0 for the built-in
    /// program, which takes the tint per vertex).
    pub constants_key: u64,
}

impl SpriteWorld {
    /// The atlas's index in [`SpriteWorld::atlases`], added when new (pages are uploaded once
    /// per atlas, not per sprite).
    pub(crate) fn atlas_index(&mut self, atlas: &Arc<Atlas>) -> u32 {
        match self.atlases.iter().position(|a| Arc::ptr_eq(a, atlas)) {
            Some(i) => i as u32,
            None => {
                self.atlases.push(atlas.clone());
                (self.atlases.len() - 1) as u32
            }
        }
    }

    /// Fills `out` with the quads of every enabled sprite (nine for a sliced one);
    /// `camera_world` (the camera's world matrix) turns billboards toward it.
    pub fn quads(&self, scene: &Scene, camera_world: Mat4, out: &mut Vec<SpriteQuad>) {
        out.clear();
        for (i, s) in self.instances.iter().enumerate().filter(|(_, s)| s.alive && s.enabled) {
            quad(i as u32, s, scene, camera_world, out);
        }
    }
}

/// What custom-material quads must agree on to share a draw call: the tint, the script's
/// constants, bit for bit, and the further textures (FNV-1a over their bits).
fn constants_key(s: &SpriteInstance) -> u64 {
    if s.material_index.is_none() {
        return 0;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        h ^= x;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    for v in s.tint {
        eat(u64::from(v.to_bits()));
    }
    for (name, v) in &s.constants {
        eat(*name);
        for c in v {
            eat(u64::from(c.to_bits()));
        }
    }
    for &(sampler, atlas) in &s.textures {
        eat(sampler);
        eat(u64::from(atlas));
    }
    h.max(1)
}

/// Nine-slice cut positions along one axis, in size units from the low edge: `[0, a, n - b,
/// n]` for borders `a` and `b`, shrunk in proportion when they do not fit in `n` (Defold
/// squeezes the corners rather than overlap them).
fn cuts(n: f32, a: f32, b: f32) -> [f32; 4] {
    let k = if a + b > n && a + b > 0.0 { n / (a + b) } else { 1.0 };
    [0.0, a * k, n - b * k, n]
}

fn quad(i: u32, s: &SpriteInstance, scene: &Scene, camera_world: Mat4, out: &mut Vec<SpriteQuad>) -> Option<()> {
    let frame = s.atlas.frames.get(s.frame as usize)?;
    let [w, h] = s.size();
    let (hw, hh) = (w * s.scale[0] * 0.5, h * s.scale[1] * 0.5);
    let mut world = Mat4::from(scene.world_of(s.slot));
    if let Some(local) = s.transform.matrix() {
        world *= local;
    }
    let object = world.w_axis.truncate();
    let (right, up) = match s.billboard {
        Billboard::Off => (world.x_axis.truncate(), world.y_axis.truncate()),
        Billboard::Face => {
            let scale = world_scale(world);
            (
                camera_world.x_axis.truncate().normalize_or_zero() * scale.x,
                camera_world.y_axis.truncate().normalize_or_zero() * scale.y,
            )
        }
        Billboard::Upright => {
            let scale = world_scale(world);
            let r = camera_world.x_axis.truncate();
            let r = Vec3::new(r.x, 0.0, r.z).normalize_or(Vec3::X);
            (r * scale.x, Vec3::Y * scale.y)
        }
    };
    let (rx, uy) = (right * hw, up * hh);
    // The image's pivot sits on the object (0..1 from its top-left corner; a flip mirrors it
    // with the picture): the quad's centre is that far from it.
    let (hflip, vflip) = s.flips();
    let [px, py] = s.atlas.pivots.get(s.frame as usize).copied().unwrap_or([0.5, 0.5]);
    let (px, py) = (if hflip { 1.0 - px } else { px }, if vflip { 1.0 - py } else { py });
    let centre = object + rx * (1.0 - 2.0 * px) + uy * (2.0 * py - 1.0);
    let corners = [centre - rx - uy, centre + rx - uy, centre + rx + uy, centre - rx + uy];
    if !corners.iter().all(|c| c.is_finite()) {
        return None;
    }
    let (pw, ph) = (s.atlas.width as f32, s.atlas.height as f32);
    let (mut l, mut r) = (frame.x as f32 / pw, (frame.x + frame.width) as f32 / pw);
    let (mut t, mut b) = (frame.y as f32 / ph, (frame.y + frame.height) as f32 / ph);
    if hflip {
        std::mem::swap(&mut l, &mut r);
    }
    if vflip {
        std::mem::swap(&mut t, &mut b);
    }
    let mut q = SpriteQuad {
        corners,
        uv: [l, t, r, b],
        local: [-w * 0.5, -h * 0.5, w * 0.5, h * 0.5],
        color: s.tint,
        atlas: s.atlas_index,
        blend: s.blend_mode,
        material: s.material,
        material_index: s.material_index,
        sprite: i,
        constants_key: constants_key(s),
    };
    let [bl, bt, br, bb] = s.slice9;
    if s.size_mode != SizeMode::Manual || [bl, bt, br, bb].iter().all(|&v| v <= 0.0) {
        out.push(q);
        return Some(());
    }
    // Nine slices: borders are frame pixels, kept at their size (times the scale); a flip
    // mirrors the picture, so the border drawn on the left is the frame's right one.
    let (fw, fh) = (frame.width as f32, frame.height as f32);
    let clamp = |v: f32, n: f32| v.clamp(0.0, n);
    let (bl, br) = if hflip { (clamp(br, fw), clamp(bl, fw)) } else { (clamp(bl, fw), clamp(br, fw)) };
    let (bt, bb) = if vflip { (clamp(bb, fh), clamp(bt, fh)) } else { (clamp(bt, fh), clamp(bb, fh)) };
    let xs = cuts(w, bl, br);
    let ys = cuts(h, bb, bt);
    // Page coordinates at the cuts, left to right and bottom to top; the flips' signs follow
    // from the swapped edges.
    let (du, dv) = ((r - l).signum() / pw, (t - b).signum() / ph);
    let us = [l, l + du * bl, r - du * br, r];
    let vs = [b, b + dv * bb, t - dv * bt, t];
    let origin = centre - rx - uy;
    let (ax, ay) = (right * s.scale[0], up * s.scale[1]);
    for row in 0..3 {
        for col in 0..3 {
            let (x0, x1, y0, y1) = (xs[col], xs[col + 1], ys[row], ys[row + 1]);
            if x1 - x0 <= 0.0 || y1 - y0 <= 0.0 {
                continue;
            }
            let at = |x: f32, y: f32| origin + ax * x + ay * y;
            q.corners = [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)];
            q.uv = [us[col], vs[row + 1], us[col + 1], vs[row]];
            q.local = [x0 - w * 0.5, y0 - h * 0.5, x1 - w * 0.5, y1 - h * 0.5];
            out.push(q);
        }
    }
    Some(())
}

fn world_scale(m: Mat4) -> Vec3 {
    Vec3::new(m.x_axis.truncate().length(), m.y_axis.truncate().length(), m.z_axis.truncate().length())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ComponentTransform;
    use crate::project::sprite::{SizeMode, SpriteSpec};
    use glam::Quat;

    /// One 4x2 sprite at (1, 2, 3) showing the whole of a 4x2 page.
    fn sprite(billboard: Billboard) -> (SpriteWorld, Scene) {
        let atlas = Atlas::one_frame("a", true);
        let spec = SpriteSpec {
            atlas: Arc::new(atlas),
            textures: Vec::new(),
            attributes: Vec::new(),
            default_animation: 0,
            material: "/m.material".into(),
            blend_mode: BlendMode::Alpha,
            size_mode: SizeMode::Auto,
            size: [0.0; 2],
            billboard,
            transform: ComponentTransform::IDENTITY,
            slice9: [0.0; 4],
        };
        let mut scene = Scene::new();
        let prefix = scene.intern_prefix("/");
        let slot = scene.spawn("/s", prefix, Vec3::new(1.0, 2.0, 3.0), Quat::IDENTITY, Vec3::ONE).expect("spawn");
        scene.update_world_transforms();
        let mut w = SpriteWorld::default();
        w.create(slot, "sprite", &spec, None);
        (w, scene)
    }

    fn quad_of(billboard: Billboard, camera: Mat4) -> SpriteQuad {
        let (w, scene) = sprite(billboard);
        let mut out = Vec::new();
        w.quads(&scene, camera, &mut out);
        assert_eq!(out.len(), 1);
        out[0]
    }

    #[test]
    fn a_quad_spans_the_frame_around_its_object_with_flips_in_its_page_coordinates() {
        let q = quad_of(Billboard::Off, Mat4::IDENTITY);
        assert_eq!(q.corners[0], Vec3::new(-1.0, 1.0, 3.0));
        assert_eq!(q.corners[2], Vec3::new(3.0, 3.0, 3.0));
        // The flipbook's own horizontal flip swaps left and right.
        assert_eq!(q.uv, [1.0, 0.0, 0.0, 1.0]);
    }

    /// An image's pivot (Defold's atlas `pivot_x`/`pivot_y`, from its top-left corner) sits on
    /// the object; the flipbook's horizontal flip mirrors it with the picture.
    #[test]
    fn the_images_pivot_sits_on_the_object() {
        let at = |pivot: [f32; 2]| {
            let (mut w, scene) = sprite(Billboard::Off);
            let mut atlas = (*w.instances[0].atlas).clone();
            atlas.pivots = vec![pivot];
            w.instances[0].atlas = Arc::new(atlas);
            let mut out = Vec::new();
            w.quads(&scene, Mat4::IDENTITY, &mut out);
            (out[0].corners[0], out[0].corners[2])
        };
        // Bottom centre: the 4x2 image stands on the object at (1, 2).
        assert_eq!(at([0.5, 1.0]), (Vec3::new(-1.0, 2.0, 3.0), Vec3::new(3.0, 4.0, 3.0)));
        // Bottom left, mirrored by the flip to bottom right: the image lies left of the object.
        assert_eq!(at([0.0, 1.0]), (Vec3::new(-3.0, 2.0, 3.0), Vec3::new(1.0, 4.0, 3.0)));
        // The centre is where it always was.
        assert_eq!(at([0.5, 0.5]), (Vec3::new(-1.0, 1.0, 3.0), Vec3::new(3.0, 3.0, 3.0)));
    }

    #[test]
    fn billboards_turn_to_the_camera() {
        // A camera turned 90 degrees about Y, and one also pitched down 45.
        let turned = Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let pitched = turned * Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_4);
        let off = quad_of(Billboard::Off, turned);
        assert_eq!(
            off.corners[1] - off.corners[0],
            Vec3::new(4.0, 0.0, 0.0),
            "Defold's sprites keep their object's axes"
        );
        let face = quad_of(Billboard::Face, pitched);
        let (right, up) = (face.corners[1] - face.corners[0], face.corners[3] - face.corners[0]);
        assert!((right - Vec3::new(0.0, 0.0, -4.0)).length() < 1e-5, "{right}");
        assert!((up.normalize() - pitched.y_axis.truncate()).length() < 1e-5, "{up}");
        let upright = quad_of(Billboard::Upright, pitched);
        let (right, up) = (upright.corners[1] - upright.corners[0], upright.corners[3] - upright.corners[0]);
        assert!((right - Vec3::new(0.0, 0.0, -4.0)).length() < 1e-5, "{right}");
        assert_eq!(up, Vec3::new(0.0, 2.0, 0.0), "upright stays vertical");
    }

    #[test]
    fn a_sliced_sprite_keeps_its_borders_and_mirrors_them_with_a_flip() {
        let (mut w, scene) = sprite(Billboard::Off);
        let s = &mut w.instances[0];
        s.size_mode = SizeMode::Manual;
        s.size = [10.0, 2.0];
        // Left 1, right 2 pixels; no top or bottom border, so one row of three quads.
        s.slice9 = [1.0, 0.0, 2.0, 0.0];
        let mut out = Vec::new();
        w.quads(&scene, Mat4::IDENTITY, &mut out);
        assert_eq!(out.len(), 3);
        // The flipbook flips horizontally: the frame's 2-pixel right border is drawn on the
        // left, 2 units wide, showing page u 1 down to 0.5.
        assert_eq!((out[0].corners[0], out[0].corners[2]), (Vec3::new(-4.0, 1.0, 3.0), Vec3::new(-2.0, 3.0, 3.0)));
        assert_eq!(out[0].uv, [1.0, 0.0, 0.5, 1.0]);
        assert_eq!((out[1].corners[0].x, out[1].corners[1].x), (-2.0, 5.0), "the centre stretches");
        assert_eq!(out[1].uv, [0.5, 0.0, 0.25, 1.0]);
        assert_eq!((out[2].corners[0].x, out[2].corners[1].x, out[2].uv[2]), (5.0, 6.0, 0.0));
        // Auto size ignores slice9 (Defold's rule), and borders wider than the sprite shrink.
        w.instances[0].size_mode = SizeMode::Auto;
        w.quads(&scene, Mat4::IDENTITY, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(cuts(2.0, 2.0, 2.0), [0.0, 1.0, 1.0, 2.0]);
    }
}
