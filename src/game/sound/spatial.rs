//! Positional sound (beyond Defold): a `"spatial": true` component is attenuated by its distance
//! to the listener and panned by its side, every frame; the mixer ramps each change over one
//! block, so a source moving past the listener never clicks.
//!
//! The curve (docs/sound.md): gain `g(d) = clamp((max − d) / (max − min), 0, 1)` (1 up to
//! `min_distance`, linear to silence at `max_distance`); pan `p = x / max(d, min)`, where `x` is
//! the source's offset along the listener's right (+x) axis, so a source straight to the right
//! at or beyond `min_distance` is hard right, and one passing through the listener sweeps
//! smoothly instead of flipping sides.
use super::SoundWorld;
use crate::project::sound::Spatial;
use crate::scene::Scene;
use glam::{Affine3A, Vec3};

/// Gain for a source `d` units from the listener.
pub fn gain(s: &Spatial, d: f32) -> f32 {
    ((s.max_distance - d) / (s.max_distance - s.min_distance)).clamp(0.0, 1.0)
}

/// Pan (-1..1) for a source at `at` heard by a listener at `listener`.
pub fn pan(s: &Spatial, listener: &Affine3A, at: Vec3) -> f32 {
    let offset = at - Vec3::from(listener.translation);
    let right = Vec3::from(listener.matrix3.x_axis).normalize_or_zero();
    let d = offset.length();
    (offset.dot(right) / d.max(s.min_distance).max(f32::EPSILON)).clamp(-1.0, 1.0)
}

/// Sets every positional voice's gain and pan from its object's and the listener's transforms
/// of the last transform pass. `camera` is the active camera's object, used without a
/// `sound.set_listener` object; with neither, the listener is at the origin facing -z.
pub fn update(sounds: &mut SoundWorld, scene: &Scene, camera: Option<u32>) {
    let listener = match sounds.listener.filter(|&s| scene.is_live(s)).or(camera) {
        Some(slot) => scene.world_of(slot),
        None => Affine3A::IDENTITY,
    };
    let lpos = Vec3::from(listener.translation);
    for k in 0..sounds.voices.len() {
        let Some((s, slot)) = sounds.owner_instance(k).and_then(|i| i.spec.spatial.map(|s| (s, i.slot))) else {
            continue;
        };
        let at = Vec3::from(scene.world_of(slot).translation);
        let v = &mut sounds.voices[k];
        v.spatial_gain = gain(&s, at.distance(lpos));
        v.spatial_pan = pan(&s, &listener, at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_is_flat_to_min_then_linear_to_max() {
        let s = Spatial { min_distance: 2.0, max_distance: 10.0 };
        assert_eq!(
            [gain(&s, 0.0), gain(&s, 2.0), gain(&s, 6.0), gain(&s, 10.0), gain(&s, 50.0)],
            [1.0, 1.0, 0.5, 0.0, 0.0]
        );
        let l = Affine3A::IDENTITY;
        assert_eq!(pan(&s, &l, Vec3::new(5.0, 0.0, 0.0)), 1.0);
        assert_eq!(pan(&s, &l, Vec3::new(-1.0, 0.0, 0.0)), -0.5, "inside min_distance the pan is partial");
        assert_eq!(pan(&s, &l, Vec3::new(0.0, 0.0, -5.0)), 0.0, "straight ahead");
    }
}
