//! The flat list the renderer draws sprites from: one quad per visible sprite, in world space,
//! with its atlas, page rectangle (flips applied), tint and blend mode. Made once a frame into
//! a list the caller keeps, so it allocates nothing once it has grown.
use super::{SpriteInstance, SpriteWorld};
use crate::project::sprite::{Atlas, Billboard, BlendMode};
use crate::scene::Scene;
use glam::{Mat4, Vec3};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpriteQuad {
    /// Bottom-left, bottom-right, top-right, top-left, in world space.
    pub corners: [Vec3; 4],
    /// Page coordinates (0..1, v down the page) at the left, top, right and bottom edges.
    pub uv: [f32; 4],
    pub color: [f32; 4],
    /// Index into [`SpriteWorld::atlases`].
    pub atlas: u32,
    pub blend: BlendMode,
    pub material: crate::base::hash::Hash,
}

impl SpriteWorld {
    /// The atlas's index in [`SpriteWorld::atlases`], added when new (pages are uploaded once
    /// per atlas, not per sprite).
    pub(super) fn atlas_index(&mut self, atlas: &Arc<Atlas>) -> u32 {
        match self.atlases.iter().position(|a| Arc::ptr_eq(a, atlas)) {
            Some(i) => i as u32,
            None => {
                self.atlases.push(atlas.clone());
                (self.atlases.len() - 1) as u32
            }
        }
    }

    /// Fills `out` with the quads of every enabled sprite; `camera_world` (the camera's world
    /// matrix) turns billboards toward it.
    pub fn quads(&self, scene: &Scene, camera_world: Mat4, out: &mut Vec<SpriteQuad>) {
        out.clear();
        for s in self.instances.iter().filter(|s| s.alive && s.enabled) {
            if let Some(q) = quad(s, scene, camera_world) {
                out.push(q);
            }
        }
    }
}

fn quad(s: &SpriteInstance, scene: &Scene, camera_world: Mat4) -> Option<SpriteQuad> {
    let frame = s.atlas.frames.get(s.frame as usize)?;
    let [w, h] = s.size();
    let (hw, hh) = (w * s.scale[0] * 0.5, h * s.scale[1] * 0.5);
    let mut world = Mat4::from(scene.world_of(s.slot));
    if let Some(local) = s.transform.matrix() {
        world *= local;
    }
    let centre = world.w_axis.truncate();
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
    let corners = [centre - rx - uy, centre + rx - uy, centre + rx + uy, centre - rx + uy];
    if !corners.iter().all(|c| c.is_finite()) {
        return None;
    }
    let (pw, ph) = (s.atlas.width as f32, s.atlas.height as f32);
    let (mut l, mut r) = (frame.x as f32 / pw, (frame.x + frame.width) as f32 / pw);
    let (mut t, mut b) = (frame.y as f32 / ph, (frame.y + frame.height) as f32 / ph);
    let (hflip, vflip) = s.flips();
    if hflip {
        std::mem::swap(&mut l, &mut r);
    }
    if vflip {
        std::mem::swap(&mut t, &mut b);
    }
    Some(SpriteQuad {
        corners,
        uv: [l, t, r, b],
        color: s.tint,
        atlas: s.atlas_index,
        blend: s.blend_mode,
        material: s.material,
    })
}

fn world_scale(m: Mat4) -> Vec3 {
    Vec3::new(m.x_axis.truncate().length(), m.y_axis.truncate().length(), m.z_axis.truncate().length())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ComponentTransform;
    use crate::project::sprite::{Flipbook, Frame, Playback, SizeMode, SpriteSpec};
    use glam::Quat;

    /// One 4x2 sprite at (1, 2, 3) showing the whole of a 4x2 page.
    fn sprite(billboard: Billboard) -> (SpriteWorld, Scene) {
        let atlas = Atlas {
            source: "/a.atlas".into(),
            width: 4,
            height: 2,
            rgba: vec![255; 32],
            frames: vec![Frame { x: 0, y: 0, width: 4, height: 2 }],
            animations: vec![Flipbook {
                id: "a".into(),
                frames: vec![0],
                fps: 1.0,
                playback: Playback::None,
                flip_horizontal: true,
                flip_vertical: false,
            }],
            images: vec![],
        };
        let spec = SpriteSpec {
            atlas: Arc::new(atlas),
            default_animation: 0,
            material: "/m.material".into(),
            blend_mode: BlendMode::Alpha,
            size_mode: SizeMode::Auto,
            size: [0.0; 2],
            billboard,
            transform: ComponentTransform::IDENTITY,
        };
        let mut scene = Scene::new();
        let prefix = scene.intern_prefix("/");
        let slot = scene.spawn("/s", prefix, Vec3::new(1.0, 2.0, 3.0), Quat::IDENTITY, Vec3::ONE).expect("spawn");
        scene.update_world_transforms();
        let mut w = SpriteWorld::default();
        w.create(slot, "sprite", &spec);
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
}
