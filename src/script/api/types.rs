//! The plain data that crosses the boundary by pointer: Lua's `vmath` values and hashes. Their C
//! declarations are generated from these (`boundary::structs`).

/// `vmath.vector3`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// `vmath.vector4`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V4 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}

/// `vmath.quat`: the same floats as a vector4 but another C type, so LuaJIT refuses one for
/// the other.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Q4 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}

/// `vmath.matrix4`, column-major.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct M4 {
    pub m: [f32; 16],
}

/// A hash value as Lua boxes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hash64 {
    pub h: u64,
}

impl From<glam::Vec3> for V3 {
    fn from(p: glam::Vec3) -> V3 {
        V3 { x: p.x, y: p.y, z: p.z }
    }
}

impl From<glam::Quat> for Q4 {
    fn from(q: glam::Quat) -> Q4 {
        Q4 { x: q.x, y: q.y, z: q.z, w: q.w }
    }
}
