//! `physics.get_shape` / `set_shape`: a collision object's primitive shapes read and resized
//! at run time by their Defold id. Resizing rebuilds the object's colliders from its own copy
//! of the spec, as flipping does; the body keeps its pose, velocities and total mass.
use super::Physics;
use crate::base::hash::Hash;
use crate::project::physics::{MAX_MAGNITUDE, ShapeKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeType {
    Sphere,
    Box,
    Capsule,
    Hull,
}

impl ShapeType {
    /// Every kind by its `physics.SHAPE_TYPE_*` name, in the order of its value (Defold's
    /// `CollisionShape.Type`): Lua's constants are made from this list.
    pub const ALL: [(&'static str, ShapeType); 4] = [
        ("SHAPE_TYPE_SPHERE", ShapeType::Sphere),
        ("SHAPE_TYPE_BOX", ShapeType::Box),
        ("SHAPE_TYPE_CAPSULE", ShapeType::Capsule),
        ("SHAPE_TYPE_HULL", ShapeType::Hull),
    ];

    pub fn from_index(i: i32) -> Option<ShapeType> {
        usize::try_from(i).ok().and_then(|i| Self::ALL.get(i)).map(|&(_, t)| t)
    }

    fn of(kind: &ShapeKind) -> ShapeType {
        match kind {
            ShapeKind::Sphere { .. } => ShapeType::Sphere,
            ShapeKind::Box { .. } => ShapeType::Box,
            ShapeKind::Capsule { .. } => ShapeType::Capsule,
            ShapeKind::Hull { .. } => ShapeType::Hull,
        }
    }

    /// The size fields of Defold's shape table for this kind, each with how many numbers it
    /// takes (3: a vector3), in the order [`Physics::shape`] lays them out: Lua's `get_shape`
    /// and `set_shape` tables are made and read from this list.
    pub fn fields(self) -> &'static [(&'static str, usize)] {
        match self {
            ShapeType::Sphere => &[("diameter", 1)],
            ShapeType::Box => &[("dimensions", 3)],
            ShapeType::Capsule => &[("diameter", 1), ("height", 1)],
            ShapeType::Hull => &[],
        }
    }

    /// "sphere", "box", ... from the constant's name.
    fn name(self) -> String {
        let full = Self::ALL.iter().find(|(_, t)| *t == self).map_or("", |(n, _)| n);
        full.trim_start_matches("SHAPE_TYPE_").to_ascii_lowercase()
    }
}

impl Physics {
    fn shape_index(&self, i: u32, id: Hash) -> Result<usize, String> {
        let b = self.get(i).ok_or("the collision object was deleted")?;
        b.spec.shapes.iter().position(|s| s.id == Some(id)).ok_or_else(|| {
            format!("the collision object has no shape with the id '{}'", crate::base::hash::name_of(id))
        })
    }

    /// The shape's kind and its sizes as Defold gives them: a sphere's diameter; a box's
    /// dimensions (whole, not half); a capsule's diameter and height; nothing for a hull.
    pub fn shape(&self, i: u32, id: Hash) -> Result<(ShapeType, [f32; 3]), String> {
        let k = self.shape_index(i, id)?;
        let kind = &self.bodies[i as usize].spec.shapes[k].kind;
        let sizes = match kind {
            ShapeKind::Sphere { radius } => [2.0 * radius, 0.0, 0.0],
            ShapeKind::Box { half } => half.map(|h| 2.0 * h),
            ShapeKind::Capsule { radius, height } => [2.0 * radius, *height, 0.0],
            ShapeKind::Hull { .. } => [0.0; 3],
        };
        Ok((ShapeType::of(kind), sizes))
    }

    /// Resizes the shape (`sizes` as [`Physics::shape`] gives them). As in Defold the shape
    /// must be of kind `ty` already, and a hull's points cannot be changed; sizes are checked
    /// as a file's are.
    pub fn set_shape(&mut self, i: u32, id: Hash, ty: ShapeType, sizes: [f32; 3]) -> Result<(), String> {
        let k = self.shape_index(i, id)?;
        let b = &self.bodies[i as usize];
        let now = ShapeType::of(&b.spec.shapes[k].kind);
        if now != ty {
            return Err(format!("the shape is a {}, not a {}", now.name(), ty.name()));
        }
        if ty == ShapeType::Hull {
            return Err("a hull's points cannot be changed (only its primitive shapes resize)".into());
        }
        let used: usize = ty.fields().iter().map(|&(_, n)| n).sum();
        if !sizes[..used].iter().all(|v| v.is_finite() && *v > 0.0 && *v <= MAX_MAGNITUDE) {
            return Err(format!("shape sizes must be above 0 and at most {MAX_MAGNITUDE}"));
        }
        let kind = match ty {
            ShapeType::Sphere => ShapeKind::Sphere { radius: sizes[0] / 2.0 },
            ShapeType::Box => ShapeKind::Box { half: sizes.map(|d| d / 2.0) },
            _ => ShapeKind::Capsule { radius: sizes[0] / 2.0, height: sizes[1] },
        };
        let b = &mut self.bodies[i as usize];
        b.spec.shapes[k].kind = kind;
        self.rebuild_colliders(i);
        Ok(())
    }
}
