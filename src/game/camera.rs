//! A camera component's matrices, in the game layer so that scripts (`camera.get_projection`,
//! `camera.screen_to_world`) and the renderer compute them the same way from the same state.
use glam::camera::rh::proj::opengl::{orthographic, perspective};
use glam::{Mat4, Vec3};

use crate::project::types::{CameraSpec, OrthoMode};

/// View and projection of a camera on an object with world transform `world`, for a viewport of
/// `aspect` (width / height). It looks down the object's -Z with +Y up; scale in `world` is
/// ignored (it would skew the view). An orthographic camera shows `ortho_height / zoom` world
/// units vertically; in the auto modes the zoom is Defold's: the design area (`ortho_height`
/// high, `design_aspect` wide) fits inside the window or covers it, whatever its shape.
pub fn matrices(world: Mat4, spec: &CameraSpec, aspect: f32) -> (Mat4, Mat4, Vec3) {
    let (_, rotation, position) = world.to_scale_rotation_translation();
    let view = Mat4::from_rotation_translation(rotation, position).inverse();
    let aspect = if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 };
    let proj = if spec.orthographic {
        let zoom = if spec.zoom > 0.0 && spec.zoom.is_finite() { spec.zoom } else { 1.0 };
        // How much taller than the design area the view is: a window narrower than the design
        // shows more height to fit its width in, a wider one less to cover it.
        let design =
            if spec.design_aspect > 0.0 && spec.design_aspect.is_finite() { spec.design_aspect } else { aspect };
        let h = spec.ortho_height
            * 0.5
            * match spec.ortho_mode {
                OrthoMode::Fixed => 1.0 / zoom,
                OrthoMode::AutoFit => (design / aspect).max(1.0),
                OrthoMode::AutoCover => (design / aspect).min(1.0),
            };
        let w = h * aspect;
        orthographic(-w, w, -h, h, spec.near, spec.far)
    } else {
        perspective(spec.fov, aspect, spec.near, spec.far)
    };
    (view, proj, position)
}

/// The world point under window pixel (`x`, `y`) (origin bottom left, as `action.screen_x/y`) at
/// view depth `z` (distance in front of the camera), for a `width` x `height` window.
pub fn screen_to_world(view: Mat4, proj: Mat4, width: f32, height: f32, x: f32, y: f32, z: f32) -> Vec3 {
    let ndc = glam::Vec2::new(x / width.max(1.0) * 2.0 - 1.0, y / height.max(1.0) * 2.0 - 1.0);
    let inv = (proj * view).inverse();
    let near = inv.project_point3(ndc.extend(-1.0));
    let far = inv.project_point3(ndc.extend(1.0));
    let eye = view.inverse().transform_point3(Vec3::ZERO);
    let forward = view.inverse().transform_vector3(Vec3::NEG_Z).normalize_or_zero();
    let dir = (far - near).normalize_or_zero();
    let along = dir.dot(forward);
    if along.abs() < 1e-6 {
        return near;
    }
    // The ray from the near plane, to the plane `z` in front of the eye.
    let t = (z - (near - eye).dot(forward)) / along;
    near + dir * t
}

/// Window pixel (origin bottom left) and view depth of world point `p`.
pub fn world_to_screen(view: Mat4, proj: Mat4, width: f32, height: f32, p: Vec3) -> Vec3 {
    let ndc = (proj * view).project_point3(p);
    let depth = -view.transform_point3(p).z;
    Vec3::new((ndc.x + 1.0) * 0.5 * width, (ndc.y + 1.0) * 0.5 * height, depth)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn spec(orthographic: bool) -> CameraSpec {
        CameraSpec {
            fov: 0.8,
            near: 0.1,
            far: 100.0,
            orthographic,
            ortho_height: 10.0,
            zoom: 1.0,
            ortho_mode: OrthoMode::Fixed,
            design_aspect: 0.0,
        }
    }

    #[test]
    fn screen_and_world_round_trip_in_both_projections() {
        let world = Mat4::from_rotation_translation(glam::Quat::from_rotation_y(0.4), Vec3::new(1.0, 2.0, 8.0));
        for ortho in [false, true] {
            let (view, proj, _) = matrices(world, &spec(ortho), 1.6);
            for (x, y, z) in [(400.0, 250.0, 5.0), (0.0, 0.0, 1.0), (800.0, 500.0, 20.0)] {
                let p = screen_to_world(view, proj, 800.0, 500.0, x, y, z);
                let back = world_to_screen(view, proj, 800.0, 500.0, p);
                assert!(back.abs_diff_eq(Vec3::new(x, y, z), 1e-2), "ortho {ortho}: {x},{y},{z} -> {p} -> {back}");
            }
        }
    }

    #[test]
    fn zoom_narrows_an_orthographic_view() {
        let mut s = spec(true);
        let (view, proj, _) = matrices(Mat4::IDENTITY, &s, 1.0);
        let edge = world_to_screen(view, proj, 100.0, 100.0, Vec3::new(0.0, 5.0, -1.0));
        assert!((edge.y - 100.0).abs() < 1e-3, "{edge}");
        s.zoom = 2.0;
        let (view, proj, _) = matrices(Mat4::IDENTITY, &s, 1.0);
        let edge = world_to_screen(view, proj, 100.0, 100.0, Vec3::new(0.0, 2.5, -1.0));
        assert!((edge.y - 100.0).abs() < 1e-3, "zoom 2 shows half the height: {edge}");
    }

    /// Defold's auto modes for a 2:1 design area 10 high: the height shown (world units) in a
    /// window of `aspect`.
    #[test]
    fn auto_modes_fit_or_cover_the_design_area() {
        let shown = |mode: OrthoMode, aspect: f32| {
            let s = CameraSpec { ortho_mode: mode, design_aspect: 2.0, zoom: 3.0, ..spec(true) };
            let (view, proj, _) = matrices(Mat4::IDENTITY, &s, aspect);
            let top = screen_to_world(view, proj, 100.0 * aspect, 100.0, 0.0, 100.0, 1.0);
            top.y * 2.0
        };
        let near = |a: f32, b: f32| (a - b).abs() < 1e-3;
        // A window of the design's shape shows it exactly, whatever the zoom was.
        assert!(near(shown(OrthoMode::AutoFit, 2.0), 10.0) && near(shown(OrthoMode::AutoCover, 2.0), 10.0));
        // A square window: fitting shows the whole 20 wide, so 20 high; covering shows 10 high
        // and cuts the sides.
        assert!(near(shown(OrthoMode::AutoFit, 1.0), 20.0), "{}", shown(OrthoMode::AutoFit, 1.0));
        assert!(near(shown(OrthoMode::AutoCover, 1.0), 10.0));
        // A 4:1 window: fitting shows the 10 height, covering the 20 width (5 high).
        assert!(near(shown(OrthoMode::AutoFit, 4.0), 10.0) && near(shown(OrthoMode::AutoCover, 4.0), 5.0));
        assert!(near(shown(OrthoMode::Fixed, 1.0), 10.0 / 3.0), "fixed keeps its zoom");
    }
}
