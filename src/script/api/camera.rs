//! FFI endpoints of the `camera` namespace and of camera-component properties (`fov`, `near_z`,
//! `far_z`, `orthographic_zoom`, `aspect_ratio`) for `go.get` / `go.set`, and of the light
//! component's (`color`, `intensity`: the scene's other view settings). Lua side:
//! `lua/camera.lua`. The matrices come from `game::camera`, as the renderer's do.
use super::types::{M4, V3};
use super::{Ctx, put, world_status};
use crate::base::hash::{Hash, name_of};
use crate::game::World;
use crate::scene::{ComponentRef, Url};
use crate::script::boundary::{OK, fail};
use glam::{Mat4, Vec3};

/// The `which` of `camera_prop`.
pub mod which {
    pub const FOV: i32 = 0;
    pub const NEAR_Z: i32 = 1;
    pub const FAR_Z: i32 = 2;
    pub const ORTHOGRAPHIC_ZOOM: i32 = 3;
    pub const ASPECT_RATIO: i32 = 4;
    /// `camera.get/set_orthographic_mode`: a `camera.ORTHO_MODE_*` value.
    pub const ORTHOGRAPHIC_MODE: i32 = 5;
    /// `camera.get_enabled` (read only: `enable`/`disable` messages set it): 1 or 0.
    pub const ENABLED: i32 = 6;
}

/// The `K` constants of `camera.ORTHO_MODE_*`.
pub fn constants() -> Vec<(&'static str, f64)> {
    use crate::project::types::OrthoMode;
    OrthoMode::ALL
        .iter()
        .map(|&m| {
            let name = match m {
                OrthoMode::Fixed => "CAMERA_ORTHO_MODE_FIXED",
                OrthoMode::AutoFit => "CAMERA_ORTHO_MODE_AUTO_FIT",
                OrthoMode::AutoCover => "CAMERA_ORTHO_MODE_AUTO_COVER",
            };
            (name, f64::from(m as i32))
        })
        .collect()
}

/// The `which` of `camera_matrix`: `camera.get_view`/`get_projection` and the read-only `view`
/// and `projection` properties.
pub mod matrix_which {
    pub const VIEW: i32 = 0;
    pub const PROJECTION: i32 = 1;
}

/// The `which` of `light_prop`.
pub mod light_which {
    pub const COLOR: i32 = 0;
    pub const INTENSITY: i32 = 1;
}

/// The brightest a light may be set: far past any scene's, short of overflowing the shading.
const MAX_LIGHT: f32 = 1.0e4;

/// The light instance of a component, or Defold's message naming it.
fn light_of(w: &World, slot: u32, comp: Hash) -> Result<usize, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Light(i)) if w.models.lights.get(i as usize).is_some_and(|l| l.alive) => Ok(i as usize),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// A light's colour (x, y, z) or intensity (x); `set` writes `v` first. Negative, NaN or
/// infinite values are refused: one would poison every lit pixel.
fn light_value(w: &mut World, i: usize, which: i32, set: bool, v: Vec3) -> Result<Vec3, String> {
    let spec = &mut w.models.lights[i].spec;
    let ok = |x: f32| (0.0..=MAX_LIGHT).contains(&x);
    match which {
        light_which::COLOR => {
            if set {
                if !(ok(v.x) && ok(v.y) && ok(v.z)) {
                    return Err(format!("a light's color must be 0 to {MAX_LIGHT} in each channel, not {v}"));
                }
                spec.color = v.to_array();
            }
            Ok(Vec3::from(spec.color))
        }
        light_which::INTENSITY => {
            if set {
                if !ok(v.x) {
                    return Err(format!("a light's intensity must be 0 to {MAX_LIGHT}, not {}", v.x));
                }
                spec.intensity = v.x;
            }
            Ok(Vec3::splat(spec.intensity))
        }
        _ => Err(format!("no light property {which}")),
    }
}

/// The camera instance of a component, or Defold's message naming it.
fn camera_of(w: &World, slot: u32, comp: Hash) -> Result<usize, String> {
    match w.scene.component(slot, comp).map(|c| c.kind) {
        Some(ComponentRef::Camera(i)) if w.models.cameras.get(i as usize).is_some_and(|c| c.alive) => Ok(i as usize),
        _ => Err(format!("the component '{}' could not be found", name_of(comp))),
    }
}

/// The window's aspect ratio (width / height), which every camera uses.
fn aspect(w: &World) -> f32 {
    let (width, height) = w.input.window_size();
    if width > 0.0 && height > 0.0 { width / height } else { 1.0 }
}

/// View and projection of camera `i` as they will be drawn (last frame's world transform).
fn matrices(w: &World, i: usize) -> (Mat4, Mat4) {
    let c = &w.models.cameras[i];
    let (view, proj, _) = crate::game::camera::matrices(Mat4::from(w.scene.world_of(c.slot)), &c.spec, aspect(w));
    (view, proj)
}

/// A camera property's value; `set` = 1 writes `value` first. Values that would make the
/// projection singular are refused (near ≤ 0 for perspective, far ≤ near, fov outside (0, π),
/// zoom ≤ 0, anything not finite).
fn prop(w: &mut World, i: usize, which: i32, set: bool, value: f32) -> Result<f32, String> {
    let ratio = aspect(w);
    if which == which::ENABLED {
        if set {
            return Err("enabled is read only (send enable or disable to the camera)".into());
        }
        return Ok(if w.models.cameras[i].enabled { 1.0 } else { 0.0 });
    }
    let spec = &mut w.models.cameras[i].spec;
    if set {
        let mut next = spec.clone();
        match which {
            which::FOV => next.fov = value,
            which::NEAR_Z => next.near = value,
            which::FAR_Z => next.far = value,
            which::ORTHOGRAPHIC_ZOOM => next.zoom = value,
            which::ASPECT_RATIO => return Err("aspect_ratio is read only (it is the window's)".into()),
            which::ORTHOGRAPHIC_MODE => {
                next.ortho_mode = crate::project::types::OrthoMode::from_number(value).ok_or_else(|| {
                    format!("{value} is not an orthographic mode (camera.ORTHO_MODE_FIXED, _AUTO_FIT or _AUTO_COVER)")
                })?
            }
            _ => return Err(format!("no camera property {which}")),
        }
        if let Some(why) = next.problem() {
            return Err(format!("the value {value} would make the camera's projection invalid ({why})"));
        }
        *spec = next;
    }
    Ok(match which {
        which::FOV => spec.fov,
        which::NEAR_Z => spec.near,
        which::FAR_Z => spec.far,
        which::ORTHOGRAPHIC_ZOOM => spec.zoom,
        which::ASPECT_RATIO => ratio,
        which::ORTHOGRAPHIC_MODE => spec.ortho_mode as i32 as f32,
        _ => return Err(format!("no camera property {which}")),
    })
}

fn put_m4(out: *mut M4, m: Mat4) -> i32 {
    // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
    unsafe { put(out, M4 { m: m.to_cols_array() }) }
}

crate::export! {
    /// Reads (`set` = 0) or writes then reads (`set` = 1) camera property `which` into `out`.
    fn camera_prop(ctx: Ctx, slot: u32, comp: u64, which: i32, set: i32, value: f32, out: *mut f32) -> i32 {
        world_status(ctx, |w| match camera_of(w, slot, comp).and_then(|i| prop(w, i, which, set != 0, value)) {
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            Ok(v) => unsafe { put(out, v) },
            Err(e) => fail(e),
        })
    }

    /// Reads (`set` = 0) or writes then reads (`set` = 1) light property `which` (colour in x, y, z;
    /// intensity in x) into `out`.
    fn light_prop(ctx: Ctx, slot: u32, comp: u64, which: i32, set: i32, x: f32, y: f32, z: f32, out: *mut V3) -> i32 {
        world_status(ctx, |w| match light_of(w, slot, comp).and_then(|i| light_value(w, i, which, set != 0, Vec3::new(x, y, z))) {
            // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
            Ok(v) => unsafe { put(out, V3::from(v)) },
            Err(e) => fail(e),
        })
    }

    /// Writes up to `cap` URLs of live cameras into `out`; returns how many there are (-1 on error).
    fn camera_list(ctx: Ctx, out: *mut Url, cap: u32) -> i32 {
        let mut n = -1;
        let rc = world_status(ctx, |w| {
            let mut count = 0usize;
            for c in w.models.cameras.iter().filter(|c| c.alive) {
                if count < cap as usize && !out.is_null() {
                    let socket = w.socket_of(c.slot);
                    let path = w.scene.ids.get(c.slot as usize).copied().unwrap_or_default();
                    // SAFETY: `out` has room for `cap` URLs (a Lua-side array).
                    unsafe { *out.add(count) = Url { socket, path, fragment: c.id } };
                }
                count += 1;
            }
            n = count.min(i32::MAX as usize) as i32;
            OK
        });
        if rc == OK { n } else { -1 }
    }

    /// The component of the camera drawn now (the last to acquire focus, else the first enabled): its slot into `slot` and
    /// its id as the return value's target; 0 when there is none.
    fn camera_active(ctx: Ctx, slot: *mut u32, comp: *mut u64) -> i32 {
        let mut found = 0;
        let rc = world_status(ctx, |w| {
            if let Some(c) = w.models.active_camera() {
                found = 1;
                // SAFETY: out-pointers are null or cdata the Lua wrapper made for this call.
                let a = unsafe { put(slot, c.slot) };
                if a != OK {
                    return a;
                }
                // SAFETY: as above.
                return unsafe { put(comp, c.id) };
            }
            OK
        });
        if rc == OK { found } else { -1 }
    }

    /// The camera's view (`which` 0) or projection (1) matrix.
    fn camera_matrix(ctx: Ctx, slot: u32, comp: u64, which: i32, out: *mut M4) -> i32 {
        world_status(ctx, |w| match camera_of(w, slot, comp) {
            Ok(i) => {
                let (view, proj) = matrices(w, i);
                put_m4(out, if which == matrix_which::VIEW { view } else { proj })
            }
            Err(e) => fail(e),
        })
    }

    /// Screen pixel (x, y, origin bottom left) at view depth z → world point (`to_world` = 1), or
    /// world point → (x, y, depth) (`to_world` = 0), through the camera and the window's size.
    fn camera_convert(ctx: Ctx, slot: u32, comp: u64, to_world: i32, x: f32, y: f32, z: f32, out: *mut V3) -> i32 {
        world_status(ctx, |w| match camera_of(w, slot, comp) {
            Ok(i) => {
                let (view, proj) = matrices(w, i);
                let (width, height) = w.input.window_size();
                let p = if to_world != 0 {
                    crate::game::camera::screen_to_world(view, proj, width, height, x, y, z)
                } else {
                    crate::game::camera::world_to_screen(view, proj, width, height, Vec3::new(x, y, z))
                };
                // SAFETY: the out-pointer is null or a cdata the Lua wrapper made for this call.
                unsafe { put(out, V3::from(p)) }
            }
            Err(e) => fail(e),
        })
    }
}
