//! An object's placement in a file (`position`, `rotation` or `euler`, `scale`) and how a
//! collection instance's placement composes with it.
use super::*;

#[derive(Debug, Clone, Copy)]
pub(super) struct Trs {
    pub(super) t: Vec3,
    pub(super) r: Quat,
    pub(super) s: Vec3,
}

impl Trs {
    /// Stands in for a transform that failed to load, so the object's components and children
    /// are still checked.
    pub(super) const IDENTITY: Trs = Trs { t: Vec3::ZERO, r: Quat::IDENTITY, s: Vec3::ONE };

    pub(super) fn matrix(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.s, self.r, self.t)
    }

    /// Applies a collection instance's placement; shear from non-uniform scale is lost, as in Defold.
    pub(super) fn placed(&self, place: &Affine3A) -> Trs {
        let (s, r, t) = (*place * self.matrix()).to_scale_rotation_translation();
        // A zero scale leaves no rotation to recover (glam divides by it): the object is a
        // point, and keeps its own rotation.
        let r = crate::base::quat::unit_quat(r.to_array()).unwrap_or(self.r);
        Trs { t, r, s }
    }
}

pub(super) fn transform(
    file: &str,
    position: Option<[f32; 3]>,
    rotation: &Option<Located<[f32; 4]>>,
    euler: &Option<Located<[f32; 3]>>,
    scale: Option<[f32; 3]>,
) -> Result<Trs, LoadError> {
    let r = match (rotation, euler) {
        (Some(_), Some(e)) => {
            return Err(e.error(file, "give either 'rotation' or 'euler', not both"));
        }
        (Some(q), None) => {
            // A zero quaternion has no direction to normalise to.
            let Some(quat) = crate::base::quat::unit_quat(q.value) else {
                let what = if q.value.iter().all(|x| x.is_finite()) { "must not be zero" } else { "must be finite" };
                return Err(q.error(file, format!("rotation quaternion {what}")));
            };
            quat
        }
        (None, Some(e)) if !e.value.iter().all(|x| x.is_finite()) => {
            return Err(e.error(file, "euler angles must be 3 finite numbers"));
        }
        (None, Some(e)) => euler_to_quat(e.value),
        (None, None) => Quat::IDENTITY,
    };
    let t = Vec3::from_array(position.unwrap_or([0.0; 3]));
    let s = Vec3::from_array(scale.unwrap_or([1.0; 3]));
    Ok(Trs { t, r, s })
}
