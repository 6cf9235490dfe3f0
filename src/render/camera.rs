//! Camera matrices from a camera component, or a default camera that frames the scene when
//! there is none (so a project without a camera still shows its models).

use glam::camera::rh::proj::opengl::perspective;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Vec3};

use crate::project::model_data::Aabb;

/// What the renderer needs of a camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraView {
    pub view: Mat4,
    pub proj: Mat4,
    /// World-space eye position.
    pub position: Vec3,
}

impl Default for CameraView {
    fn default() -> Self {
        default_camera(&Aabb::default(), 1.0)
    }
}

/// Vertical field of view of the default camera.
pub const DEFAULT_FOV: f32 = std::f32::consts::FRAC_PI_4;
/// Direction from the scene centre to the default camera: in front, a little right and above.
const DEFAULT_EYE_DIR: Vec3 = Vec3::new(0.35, 0.45, 1.0);

/// A perspective camera looking at the centre of `bounds` from the front (+Z side, slightly
/// above and to the right), far enough that the bounding sphere fits both the vertical and
/// horizontal field of view. Empty bounds frame a unit box at the origin.
pub fn default_camera(bounds: &Aabb, aspect: f32) -> CameraView {
    let (min, max) = if bounds.is_empty() {
        (Vec3::splat(-0.5), Vec3::splat(0.5))
    } else {
        (Vec3::from(bounds.min), Vec3::from(bounds.max))
    };
    let center = (min + max) * 0.5;
    let radius = ((max - min).length() * 0.5).max(1e-3);
    let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
    let half_v = DEFAULT_FOV * 0.5;
    let half_h = (half_v.tan() * aspect).atan();
    let distance = radius / half_v.min(half_h).sin();
    let position = center + DEFAULT_EYE_DIR.normalize() * distance;
    let near = (distance - radius * 1.5).max(distance * 0.01);
    let far = distance + radius * 2.0;
    CameraView {
        view: look_at_mat4(position, center, Vec3::Y),
        proj: perspective(DEFAULT_FOV, aspect, near, far),
        position,
    }
}

/// A camera component on a game object with world transform `world` (the math is the game
/// layer's, which scripts' `camera.*` share).
pub fn camera_from_component(world: Mat4, spec: &crate::project::types::CameraSpec, aspect: f32) -> CameraView {
    let (view, proj, position) = crate::game::camera::matrices(world, spec, aspect);
    CameraView { view, proj, position }
}

/// World-space bounds of `local` transformed by `world` (all eight corners).
pub fn transform_aabb(local: &Aabb, world: Mat4) -> Aabb {
    let mut out = Aabb::default();
    if local.is_empty() {
        return out;
    }
    for i in 0..8 {
        let pick = |axis: usize| if i >> axis & 1 == 0 { local.min[axis] } else { local.max[axis] };
        out.grow(world.transform_point3(Vec3::new(pick(0), pick(1), pick(2))).to_array());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ndc(cam: &CameraView, p: Vec3) -> Vec3 {
        (cam.proj * cam.view).project_point3(p)
    }

    #[test]
    fn default_camera_sees_every_corner() {
        let bounds = Aabb { min: [-3.0, 0.0, -1.0], max: [5.0, 2.0, 1.0] };
        for aspect in [0.5, 1.0, 16.0 / 9.0] {
            let cam = default_camera(&bounds, aspect);
            for c in 0..8 {
                let p = Vec3::new(
                    if c & 1 == 0 { -3.0 } else { 5.0 },
                    if c & 2 == 0 { 0.0 } else { 2.0 },
                    if c & 4 == 0 { -1.0 } else { 1.0 },
                );
                let q = ndc(&cam, p);
                assert!(q.abs().max_element() <= 1.0, "corner {p} at {q} (aspect {aspect})");
            }
            assert!(ndc(&cam, Vec3::new(1.0, 1.0, 0.0)).truncate().length() < 1e-4);
        }
    }

    #[test]
    fn component_camera_looks_down_minus_z() {
        let world = Mat4::from_translation(Vec3::new(0.0, 0.0, 10.0));
        let spec = crate::game::camera::tests::spec;
        let cam = camera_from_component(world, &spec(false), 1.5);
        assert_eq!(cam.position, Vec3::new(0.0, 0.0, 10.0));
        let q = ndc(&cam, Vec3::ZERO);
        assert!(q.truncate().length() < 1e-5 && q.z.abs() < 1.0);
        let behind = cam.view.transform_point3(Vec3::new(0.0, 0.0, 20.0));
        assert!(behind.z > 0.0);
        let ortho = camera_from_component(world, &spec(true), 2.0);
        assert!((ndc(&ortho, Vec3::new(0.0, 5.0, 0.0)).y - 1.0).abs() < 1e-5);
        assert!((ndc(&ortho, Vec3::new(10.0, 0.0, 0.0)).x - 1.0).abs() < 1e-5);
    }

    #[test]
    fn transformed_bounds() {
        let b = Aabb { min: [-1.0; 3], max: [1.0; 3] };
        let t = transform_aabb(&b, Mat4::from_translation(Vec3::X * 2.0) * Mat4::from_scale(Vec3::splat(2.0)));
        assert_eq!(t.min, [0.0, -2.0, -2.0]);
        assert_eq!(t.max, [4.0, 2.0, 2.0]);
        assert!(transform_aabb(&Aabb::default(), Mat4::IDENTITY).is_empty());
    }
}
