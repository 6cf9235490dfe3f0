//! The Lua/Rust boundary, written once. Every C function Lua calls through LuaJIT's FFI is
//! declared with [`export!`] in one of the `api/` files, and every struct the two sides share is
//! listed once with [`c_struct!`]; the C text Lua needs (its `ffi.cdef` and the signature each
//! function pointer is cast to) is generated here from the Rust types, so a signature cannot
//! disagree with its function (before, each was typed by hand in a Lua file and a mismatch was
//! silent memory corruption).
//!
//! This module owns the C type names, the panic guard and the last-error channel; it knows no
//! game state. The tests load the generated declarations into LuaJIT and compare every struct
//! layout and every function's arity with Rust's, then call each function with bad arguments.
use std::cell::RefCell;
use std::ffi::{CString, c_char};

/// The C spelling of a Rust type that crosses the boundary.
pub trait CType {
    fn c_type() -> String;
    /// A struct field of this type named `name` (arrays put their length after the name).
    fn c_field(name: &str) -> String {
        format!("{} {name}", Self::c_type())
    }
}

macro_rules! c_scalars {
    ($($t:ty => $c:literal),* $(,)?) => {
        $(impl CType for $t {
            fn c_type() -> String {
                $c.into()
            }
        })*
    };
}

c_scalars!(
    f32 => "float", f64 => "double", i8 => "char", u8 => "uint8_t", i32 => "int32_t",
    u32 => "uint32_t", u64 => "uint64_t", usize => "size_t", () => "void",
);

impl<T: CType> CType for *const T {
    fn c_type() -> String {
        format!("const {} *", T::c_type())
    }
}

impl<T: CType> CType for *mut T {
    fn c_type() -> String {
        format!("{} *", T::c_type())
    }
}

impl<T: CType, const N: usize> CType for [T; N] {
    fn c_type() -> String {
        format!("{}[{N}]", T::c_type())
    }
    fn c_field(name: &str) -> String {
        format!("{} {name}[{N}]", T::c_type())
    }
}

/// One struct shared with Lua: its C declaration and, for the layout test, Rust's size and
/// field offsets under the C field names.
pub struct CStruct {
    pub name: &'static str,
    pub decl: String,
    pub size: usize,
    pub fields: Vec<(&'static str, usize)>,
}

/// Declares the C mirror of a `#[repr(C)]` Rust struct: `c_struct!(Url as "sinew_url" { s: u64
/// = socket, … })` gives `Url` its C name and returns its [`CStruct`]. Each field's type is
/// checked against the Rust field at compile time; the order and padding by the layout test.
#[macro_export]
macro_rules! c_struct {
    ($fname:ident: $ty:ty as $cname:literal { $($cfield:ident : $fty:ty = $rfield:ident),* $(,)? }) => {
        impl $crate::script::boundary::CType for $ty {
            fn c_type() -> String {
                $cname.into()
            }
        }
        // Compile-time check that each listed type is the Rust field's type.
        const _: fn(&$ty) = |_v| {
            $(let _: &$fty = &_v.$rfield;)*
        };
        fn $fname() -> $crate::script::boundary::CStruct {
            let fields: Vec<String> =
                vec![$(<$fty as $crate::script::boundary::CType>::c_field(stringify!($cfield))),*];
            $crate::script::boundary::CStruct {
                name: $cname,
                decl: format!("typedef struct {0} {{ {1}; }} {0};", $cname, fields.join("; ")),
                size: std::mem::size_of::<$ty>(),
                fields: vec![$((stringify!($cfield), std::mem::offset_of!($ty, $rfield))),*],
            }
        }
    };
}

/// One exported function: its name, address and C signature, from its Rust declaration.
pub struct Export {
    pub name: &'static str,
    pub addr: usize,
    pub ret: String,
    pub args: Vec<String>,
}

impl Export {
    /// The function-pointer type Lua casts the address to, e.g. `int32_t (*)(const void *, uint32_t)`.
    pub fn signature(&self) -> String {
        format!("{} (*)({})", self.ret, self.args.join(", "))
    }
}

/// Declares C functions for Lua. Each body runs inside [`guard`]: a panic becomes an error
/// return (with the message in [`last_error`]) instead of an abort. The functions are `unsafe
/// extern "C"`: they are called only by LuaJIT with the arguments the generated signature
/// describes. The block also defines `exports()`, the list the Lua runtime binds.
#[macro_export]
macro_rules! export {
    ($( $(#[$meta:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $(-> $ret:ty)? $body:block )*) => {
        $(
            $(#[$meta])*
            #[allow(clippy::missing_safety_doc)]
            pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
                $crate::script::boundary::guard(stringify!($name), move || $body)
            }
        )*

        /// The functions of this namespace, for the Lua runtime (see `script::boundary`).
        pub fn exports() -> Vec<$crate::script::boundary::Export> {
            vec![$(
                $crate::script::boundary::Export {
                    name: stringify!($name),
                    addr: $name as *const () as usize,
                    ret: <$crate::export!(@ret $($ret)?) as $crate::script::boundary::CType>::c_type(),
                    args: vec![$(<$ty as $crate::script::boundary::CType>::c_type()),*],
                }
            ),*]
        }
    };
    (@ret) => { () };
    (@ret $r:ty) => { $r };
}

/// What an exported function returns when its body panicked: the error status for status
/// returns, the "nothing" value otherwise (`NONE` slot, zero hash, empty length).
pub trait PanicValue {
    fn on_panic() -> Self;
}

impl PanicValue for i32 {
    fn on_panic() -> i32 {
        ERR
    }
}
impl PanicValue for u32 {
    fn on_panic() -> u32 {
        crate::scene::NONE
    }
}
impl PanicValue for u64 {
    fn on_panic() -> u64 {
        0
    }
}
impl PanicValue for usize {
    fn on_panic() -> usize {
        0
    }
}
impl PanicValue for () {
    fn on_panic() {}
}
impl PanicValue for *const crate::scene::TransformView {
    fn on_panic() -> *const crate::scene::TransformView {
        std::ptr::null()
    }
}
impl PanicValue for *const c_char {
    fn on_panic() -> *const c_char {
        c"".as_ptr()
    }
}

/// Runs an exported body; a panic is caught at the boundary (unwinding into LuaJIT's frames
/// would abort the process) and reported as an internal error naming the function.
#[inline(always)]
pub fn guard<R: PanicValue>(name: &str, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            panicked(name, payload);
            R::on_panic()
        }
    }
}

#[cold]
#[inline(never)]
fn panicked(name: &str, payload: Box<dyn std::any::Any + Send>) {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    let msg = format!("internal error in Sinew's {name}: {what}");
    log::error!("{msg}");
    fail(msg);
}

pub const OK: i32 = 0;
pub const ERR: i32 = 1;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Leaves `msg` for the Lua wrapper (which raises it with the caller's file and line) and
/// returns the error status.
pub fn fail(msg: String) -> i32 {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
    ERR
}

/// The message of the last failed call (exported as `last_error` by `api/sys.rs`).
pub fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

use super::api::types::{Hash64, M4, Q4, V3, V4};

c_struct!(c_hash: Hash64 as "sinew_hash" { h: u64 = h });
c_struct!(c_url: crate::scene::Url as "sinew_url" { s: u64 = socket, p: u64 = path, f: u64 = fragment });
c_struct!(c_vector3: V3 as "sinew_vector3" { x: f32 = x, y: f32 = y, z: f32 = z });
c_struct!(c_vector4: V4 as "sinew_vector4" { x: f32 = x, y: f32 = y, z: f32 = z, w: f32 = w });
c_struct!(c_quat: Q4 as "sinew_quat" { x: f32 = x, y: f32 = y, z: f32 = z, w: f32 = w });
c_struct!(c_envelope: super::Envelope as "sinew_envelope" {
    id: u64 = id, sender: crate::scene::Url = sender, receiver: crate::scene::Url = receiver,
    data: *const u8 = data, len: usize = len, instance: u32 = instance,
});
c_struct!(c_anim_req: super::api::animate::AnimRequest as "sinew_anim_req" {
    component: u64 = component, property: u64 = property, elems: [u64; 4] = elems, to: [f32; 4] = to,
    curve: *const f32 = curve, curve_len: i32 = curve_len, slot: u32 = slot, kind: u32 = kind,
    elem: i32 = elem, count: u32 = count, playback: u32 = playback, easing: u32 = easing,
    duration: f32 = duration, delay: f32 = delay, callback: u32 = callback, mirror: u32 = mirror,
    new_cells: u32 = new_cells, cells: [u32; 4] = cells,
});
c_struct!(c_transforms: crate::scene::TransformView as "sinew_transforms" {
    position: *mut f32 = position, rotation: *mut f32 = rotation, scale: *mut f32 = scale, len: u32 = len,
});
c_struct!(c_anim_done: crate::anim::Done as "sinew_anim_done" { callback: u32 = callback, finished: u32 = finished });
c_struct!(c_anim_io: super::api::animate::AnimIo as "sinew_anim_io" {
    values: *mut f32 = values, cells: *const u32 = cells, ncells: u32 = ncells, ndone: u32 = ndone,
    done: *const crate::anim::Done = done, released: *const u32 = released, nreleased: u32 = nreleased,
});
c_struct!(c_action: crate::game::input::ActionEvent as "sinew_action" {
    action: u64 = action, value: f32 = value, x: f32 = x, y: f32 = y, screen_x: f32 = screen_x,
    screen_y: f32 = screen_y, dx: f32 = dx, dy: f32 = dy, screen_dx: f32 = screen_dx,
    screen_dy: f32 = screen_dy, flags: u32 = flags, gamepad: u32 = gamepad,
    text_start: u32 = text_start, text_len: u32 = text_len,
});

/// Every struct Lua shares with Rust, in declaration order (a struct before its users).
pub fn structs() -> Vec<CStruct> {
    let mut all = vec![
        c_hash(),
        c_url(),
        c_vector3(),
        c_vector4(),
        c_quat(),
        matrix4(),
        vector(),
        c_envelope(),
        c_anim_req(),
        c_anim_done(),
        c_transforms(),
        c_anim_io(),
        c_action(),
    ];
    all.extend(super::api::b2d::structs());
    all
}

impl CType for M4 {
    fn c_type() -> String {
        "sinew_matrix4".into()
    }
}

/// `vmath.matrix4`: sixteen floats seen three ways (array, named elements, column vectors).
fn matrix4() -> CStruct {
    let names = (0..4).flat_map(|c| (0..4).map(move |r| format!("m{r}{c}"))).collect::<Vec<_>>().join(", ");
    CStruct {
        name: "sinew_matrix4",
        decl: format!(
            "typedef struct sinew_matrix4 {{ union {{ float m[16]; struct {{ float {names}; }}; \
             struct {{ sinew_vector4 c0, c1, c2, c3; }}; }}; }} sinew_matrix4;"
        ),
        size: std::mem::size_of::<M4>(),
        fields: vec![("m", std::mem::offset_of!(M4, m)), ("m23", 14 * 4), ("c1", 16)],
    }
}

/// `vmath.vector`: a variable-length float array owned by Lua; Rust sees `(v, n)`.
fn vector() -> CStruct {
    CStruct {
        name: "sinew_vector",
        decl: "typedef struct sinew_vector { int32_t n; float v[?]; } sinew_vector;".into(),
        size: 4,
        fields: vec![("n", 0), ("v", 4)],
    }
}

/// Every number Lua and Rust must agree on, under the name Lua reads it by (`S.K.NAME`), taken
/// from its Rust definition: no Lua file spells one (a test below scans them), so a value
/// changed here cannot leave a stale copy in Lua.
pub fn constants() -> Vec<(&'static str, f64)> {
    use super::api::{animate, camera, go, label, model, msg, sound};
    use crate::game::input::actions as input;
    use crate::game::input::raw::WindowChange;
    use crate::game::particles::EmitterState;
    use crate::scene::message::{self, tag};
    let mut k: Vec<(&'static str, f64)> = vec![
        ("NONE", f64::from(crate::scene::NONE)),
        ("OTHER_COMPONENT", f64::from(go::OTHER_COMPONENT)),
        ("SCRIPT_PROPERTY", f64::from(animate::SCRIPT_PROPERTY)),
        ("STATUS_OK", f64::from(OK)),
        ("STATUS_ERR", f64::from(ERR)),
        ("POST_DROPPED", f64::from(msg::DROPPED)),
        ("COMPONENT_NONE", f64::from(model::kind::NONE)),
        ("COMPONENT_SCRIPT", f64::from(model::kind::SCRIPT)),
        ("COMPONENT_MODEL", f64::from(model::kind::MODEL)),
        ("COMPONENT_CAMERA", f64::from(model::kind::CAMERA)),
        ("COMPONENT_LIGHT", f64::from(model::kind::LIGHT)),
        ("COMPONENT_FACTORY", f64::from(model::kind::FACTORY)),
        ("COMPONENT_LABEL", f64::from(model::kind::LABEL)),
        ("COMPONENT_SOUND", f64::from(model::kind::SOUND)),
        ("COMPONENT_SPRITE", f64::from(model::kind::SPRITE)),
        ("COMPONENT_GUI", f64::from(model::kind::GUI)),
        ("COMPONENT_PARTICLEFX", f64::from(model::kind::PARTICLEFX)),
        ("COMPONENT_TILEMAP", f64::from(model::kind::TILEMAP)),
        ("COMPONENT_COLLECTION_PROXY", f64::from(model::kind::COLLECTION_PROXY)),
        ("GUI_MAX_RENDER_ORDER", f64::from(crate::game::gui::MAX_RENDER_ORDER)),
        ("GUI_DEFAULT_TEXT_LEADING", f64::from(crate::project::gui::scene::DEFAULT_TEXT_LEADING)),
        ("PARTICLEFX_STATE_SLEEPING", f64::from(EmitterState::Sleeping as u32)),
        ("PARTICLEFX_STATE_PRESPAWN", f64::from(EmitterState::Prespawn as u32)),
        ("PARTICLEFX_STATE_SPAWNING", f64::from(EmitterState::Spawning as u32)),
        ("PARTICLEFX_STATE_POSTSPAWN", f64::from(EmitterState::Postspawn as u32)),
        ("LABEL_COLOR", f64::from(label::which::COLOR)),
        ("LABEL_OUTLINE", f64::from(label::which::OUTLINE)),
        ("LABEL_SCALE", f64::from(label::which::SCALE)),
        ("WINDOW_EVENT_FOCUS_LOST", f64::from(WindowChange::FocusLost as u32)),
        ("WINDOW_EVENT_FOCUS_GAINED", f64::from(WindowChange::FocusGained as u32)),
        ("WINDOW_EVENT_RESIZED", f64::from(WindowChange::Resized as u32)),
        ("WINDOW_EVENT_ICONIFIED", f64::from(WindowChange::Iconified as u32)),
        ("WINDOW_EVENT_DEICONIFIED", f64::from(WindowChange::Deiconified as u32)),
        ("SOUND_GAIN", f64::from(sound::which::GAIN)),
        ("SOUND_PAN", f64::from(sound::which::PAN)),
        ("SOUND_SPEED", f64::from(sound::which::SPEED)),
        ("CAMERA_FOV", f64::from(camera::which::FOV)),
        ("CAMERA_NEAR_Z", f64::from(camera::which::NEAR_Z)),
        ("CAMERA_FAR_Z", f64::from(camera::which::FAR_Z)),
        ("CAMERA_ORTHOGRAPHIC_ZOOM", f64::from(camera::which::ORTHOGRAPHIC_ZOOM)),
        ("CAMERA_ASPECT_RATIO", f64::from(camera::which::ASPECT_RATIO)),
        ("CAMERA_ORTHOGRAPHIC_MODE", f64::from(camera::which::ORTHOGRAPHIC_MODE)),
        ("CAMERA_ENABLED", f64::from(camera::which::ENABLED)),
        ("CAMERA_VIEW", f64::from(camera::matrix_which::VIEW)),
        ("CAMERA_PROJECTION", f64::from(camera::matrix_which::PROJECTION)),
        ("LIGHT_COLOR", f64::from(camera::light_which::COLOR)),
        ("LIGHT_INTENSITY", f64::from(camera::light_which::INTENSITY)),
        ("PLAYER_CURSOR", f64::from(model::player::CURSOR)),
        ("PLAYER_PLAYBACK_RATE", f64::from(model::player::PLAYBACK_RATE)),
        ("INPUT_GROUP_END", f64::from(input::GROUP_END)),
        ("INPUT_PRESSED", f64::from(input::PRESSED)),
        ("INPUT_RELEASED", f64::from(input::RELEASED)),
        ("INPUT_REPEATED", f64::from(input::REPEATED)),
        ("INPUT_HAS_GAMEPAD", f64::from(input::HAS_GAMEPAD)),
        ("INPUT_HAS_TEXT", f64::from(input::HAS_TEXT)),
        ("INPUT_HAS_GAMEPAD_NAME", f64::from(input::HAS_GAMEPAD_NAME)),
        ("MSG_MAX_BYTES", message::MAX_MESSAGE_BYTES as f64),
        ("MSG_MAX_DEPTH", f64::from(message::MAX_DEPTH)),
        ("PLAYBACK_COUNT", super::api_docs::PLAYBACK.len() as f64),
        ("EASING_COUNT", super::api_docs::EASING.len() as f64),
        ("LAYERS", crate::anim::layers::LAYERS as f64),
        ("COMPONENT_COLLISION_OBJECT", f64::from(model::kind::COLLISION_OBJECT)),
        ("PHYSICS_LINEAR_VELOCITY", f64::from(super::api::physics::which::LINEAR_VELOCITY)),
        ("PHYSICS_ANGULAR_VELOCITY", f64::from(super::api::physics::which::ANGULAR_VELOCITY)),
        ("PHYSICS_MASS", f64::from(super::api::physics::which::MASS)),
        ("PHYSICS_LINEAR_DAMPING", f64::from(super::api::physics::which::LINEAR_DAMPING)),
        ("PHYSICS_ANGULAR_DAMPING", f64::from(super::api::physics::which::ANGULAR_DAMPING)),
        ("PHYSICS_RAY_FLOATS", f64::from(super::api::physics::RAY_FLOATS)),
        ("PHYSICS_MAX_RAY_RESULTS", crate::game::physics::query::MAX_RAY_RESULTS as f64),
        ("PHYSICS_MAX_GROUPS", crate::project::physics::MAX_GROUPS as f64),
        ("PHYSICS_JOINT_PROPS", f64::from(super::api::physics::JOINT_PROPS)),
    ];
    let tags = [
        ("MSG_FALSE", tag::FALSE),
        ("MSG_TRUE", tag::TRUE),
        ("MSG_NUMBER", tag::NUMBER),
        ("MSG_STRING", tag::STRING),
        ("MSG_HASH", tag::HASH),
        ("MSG_URL", tag::URL),
        ("MSG_VECTOR3", tag::VECTOR3),
        ("MSG_VECTOR4", tag::VECTOR4),
        ("MSG_QUAT", tag::QUAT),
        ("MSG_MATRIX4", tag::MATRIX4),
        ("MSG_TABLE", tag::TABLE),
        ("MSG_KEY", tag::KEY),
        ("MSG_RECORD", tag::RECORD),
    ];
    k.extend(tags.iter().map(|&(n, t)| (n, f64::from(t))));
    {
        use super::api::gui::{choice, flag, flipbook_op, name, new_kind, resource_list, which};
        let gui = [
            ("GUI_FONTS", resource_list::FONTS),
            ("GUI_TEXTURES", resource_list::TEXTURES),
            ("GUI_MATERIALS", resource_list::MATERIALS),
            ("GUI_POSITION", which::POSITION),
            ("GUI_EULER", which::EULER),
            ("GUI_SCALE", which::SCALE),
            ("GUI_SIZE", which::SIZE),
            ("GUI_COLOR", which::COLOR),
            ("GUI_OUTLINE", which::OUTLINE),
            ("GUI_SHADOW", which::SHADOW),
            ("GUI_PIE", which::PIE),
            ("GUI_ROTATION", which::ROTATION),
            ("GUI_SLICE9", which::SLICE9),
            ("GUI_SPACING", which::SPACING),
            ("GUI_OUTER_BOUNDS", choice::OUTER_BOUNDS),
            ("GUI_ENABLED", flag::ENABLED),
            ("GUI_VISIBLE", flag::VISIBLE),
            ("GUI_INHERIT_ALPHA", flag::INHERIT_ALPHA),
            ("GUI_LINE_BREAK", flag::LINE_BREAK),
            ("GUI_CLIPPING_VISIBLE", flag::CLIPPING_VISIBLE),
            ("GUI_CLIPPING_INVERTED", flag::CLIPPING_INVERTED),
            ("GUI_PIVOT", choice::PIVOT),
            ("GUI_XANCHOR", choice::XANCHOR),
            ("GUI_YANCHOR", choice::YANCHOR),
            ("GUI_ADJUST_MODE", choice::ADJUST_MODE),
            ("GUI_BLEND_MODE", choice::BLEND_MODE),
            ("GUI_CLIPPING_MODE", choice::CLIPPING_MODE),
            ("GUI_SIZE_MODE", choice::SIZE_MODE),
            ("GUI_ID", name::ID),
            ("GUI_FONT", name::FONT),
            ("GUI_TEXTURE", name::TEXTURE),
            ("GUI_LAYER", name::LAYER),
            ("GUI_FLIPBOOK", name::FLIPBOOK),
            ("GUI_PARTICLEFX", name::PARTICLEFX),
            ("GUI_MATERIAL", name::MATERIAL),
            ("GUI_NEW_BOX", new_kind::BOX),
            ("GUI_NEW_TEXT", new_kind::TEXT),
            ("GUI_NEW_PIE", new_kind::PIE),
            ("GUI_NEW_PARTICLEFX", new_kind::PARTICLEFX),
            ("GUI_FLIP_CANCEL", flipbook_op::CANCEL),
            ("GUI_FLIP_GET_CURSOR", flipbook_op::GET_CURSOR),
            ("GUI_FLIP_SET_CURSOR", flipbook_op::SET_CURSOR),
            ("GUI_FLIP_GET_RATE", flipbook_op::GET_RATE),
            ("GUI_FLIP_SET_RATE", flipbook_op::SET_RATE),
        ];
        k.extend(gui.iter().map(|&(n, v)| (n, f64::from(v))));
    }
    k.extend(super::api::b2d::constants());
    k.extend(super::api::tilemap::constants());
    k.extend(super::api::camera::constants());
    k.extend(super::api::render::constants());
    k.extend(super::system::constants());
    k
}

/// The `ffi.cdef` text of every shared struct.
pub fn cdef() -> String {
    structs().iter().map(|s| s.decl.as_str()).collect::<Vec<_>>().join("\n")
}

/// Every exported function of every namespace.
pub fn exports() -> Vec<Export> {
    super::api::exports()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::{Lua, Table};

    fn lua() -> Lua {
        // SAFETY: the tests need LuaJIT's `ffi`, as the runtime does.
        let lua = unsafe { Lua::unsafe_new() };
        crate::script::declare_structs(&lua).expect("the generated cdef parses");
        lua
    }

    /// LuaJIT's view of every shared struct equals Rust's: size and the offset of each field.
    #[test]
    fn struct_layouts_agree_with_luajit() {
        let lua = lua();
        let check: mlua::Function = lua
            .load(
                "local ffi = require('ffi')
                 return function(name, field)
                   if field == nil then
                     return name == 'sinew_vector' and ffi.sizeof(name, 0) or ffi.sizeof(name)
                   end
                   return ffi.offsetof(name, field)
                 end",
            )
            .eval()
            .expect("checker");
        let structs = structs();
        assert!(structs.len() >= 12, "every shared struct is listed");
        for s in &structs {
            let size: usize = check.call((s.name, mlua::Nil)).expect("sizeof");
            assert_eq!(size, s.size, "{}: LuaJIT size {size}, Rust {}", s.name, s.size);
            for (field, offset) in &s.fields {
                let o: Option<usize> = check.call((s.name, *field)).expect("offsetof");
                assert_eq!(o, Some(*offset), "{}.{field}", s.name);
            }
        }
    }

    /// Each signature is a C function-pointer type LuaJIT accepts, with one parameter per Rust
    /// argument, and every name is exported once.
    #[test]
    fn every_signature_parses_and_names_are_unique() {
        let lua = lua();
        let parse: mlua::Function = lua
            .load("local ffi = require('ffi') return function(sig) return tostring(ffi.typeof(sig)) end")
            .eval()
            .expect("f");
        let all = exports();
        let mut names: Vec<&str> = all.iter().map(|e| e.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "an FFI name is exported twice");
        for e in &all {
            let t: String =
                parse.call(e.signature()).unwrap_or_else(|err| panic!("{}: {}: {err}", e.name, e.signature()));
            assert!(t.starts_with("ctype<"), "{}: {t}", e.name);
            let params = e.signature().matches(',').count() + usize::from(!e.args.is_empty());
            assert_eq!(params, e.args.len(), "{}", e.name);
        }
    }

    /// Every Lua file of the runtime: the two loaded first, then the registered ones.
    fn lua_files() -> Vec<(&'static str, &'static str)> {
        let mut all = vec![("runtime", include_str!("lua/runtime.lua")), ("vmath", include_str!("lua/vmath.lua"))];
        all.extend_from_slice(crate::script::LUA_FILES);
        all
    }

    /// Each runtime file loads from the bytecode build.rs made (the source is only the
    /// fallback), and that bytecode is exactly what this LuaJIT makes of the file now: not
    /// stale, and with the chunk name and lines errors and tracebacks show.
    #[test]
    fn every_runtime_file_loads_from_its_current_bytecode() {
        use crate::script::builtin_lua::{BUILTIN_BYTECODE, BUILTIN_PRELUDE};
        use crate::script::fingerprint::fingerprint;
        // SAFETY: binary chunks are refused by a safe state; nothing is run here.
        let lua = unsafe { mlua::Lua::unsafe_new() };
        for (name, source) in lua_files() {
            let &(_, len, print, bytecode) = BUILTIN_BYTECODE
                .iter()
                .find(|b| b.0 == name)
                .unwrap_or_else(|| panic!("{name}.lua has no bytecode (build.rs)"));
            // Compiled from the file as it is now (dumps themselves differ between states: a
            // table constructor's keys are laid out by string hashes LuaJIT seeds per state).
            assert_eq!((len, print), (source.len(), fingerprint(source.as_bytes())), "{name}.lua's bytecode is stale");
            let loaded = lua
                .load(bytecode)
                .set_mode(mlua::chunk::ChunkMode::Binary)
                .into_function()
                .unwrap_or_else(|e| panic!("{name}.lua's bytecode does not load: {e}"));
            let parsed = lua
                .load(format!("{BUILTIN_PRELUDE}{source}"))
                .set_name(format!("@/builtins/{name}.lua"))
                .into_function()
                .unwrap_or_else(|e| panic!("{name}.lua: {e}"));
            assert_eq!(loaded.dump(false).len(), parsed.dump(false).len(), "{name}");
            let info = loaded.info();
            assert_eq!(info.source.as_deref(), Some(format!("@/builtins/{name}.lua").as_str()), "{name}");
        }
    }

    /// A namespace file that is not registered is not an error anywhere else (an unlisted
    /// module is simply not compiled, an unlisted Lua file not loaded): each file in `lua/` is
    /// in `lua_files`, and each file in `api/` exports something (its name is in `namespaces!`).
    #[test]
    fn every_namespace_file_is_registered() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/script");
        let names = |sub: &str, ext: &str| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(dir.join(sub))
                .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).collect::<Vec<_>>())
                .unwrap_or_default()
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect();
            v.sort();
            v
        };
        let lua = names("lua", "lua");
        assert!(lua.len() >= 12, "src/script/lua is read: {lua:?}");
        let listed: Vec<&str> = lua_files().iter().map(|f| f.0).collect();
        for f in &lua {
            assert!(listed.contains(&f.as_str()), "src/script/lua/{f}.lua is in no list: add it to script::LUA_FILES");
        }
        let api = std::fs::read_to_string(dir.join("api/mod.rs")).unwrap_or_default();
        // The invocation, however rustfmt breaks it over lines.
        let list = api
            .split_once("\nnamespaces!(")
            .and_then(|(_, rest)| rest.split_once(");"))
            .map(|(names, _)| names.split_whitespace().collect::<String>() + ")")
            .unwrap_or_default();
        for f in names("api", "rs").iter().filter(|f| *f != "mod" && *f != "types") {
            assert!(
                list.contains(&format!("{f},")) || list.contains(&format!("{f})")),
                "src/script/api/{f}.rs is not in namespaces!(…): {list}"
            );
        }
    }

    /// Every function the Lua wrappers call through `F` (the FFI table's one name in every file)
    /// is exported, and every export is called by some wrapper (no stale entry on either side).
    #[test]
    fn lua_wrappers_call_exactly_the_exported_functions() {
        let mut called = std::collections::BTreeSet::new();
        for (_, src) in lua_files() {
            for (i, _) in src.match_indices("F.") {
                let before = src[..i].chars().last().unwrap_or(' ');
                if before.is_alphanumeric() || before == '_' || before == '.' {
                    continue;
                }
                let name: String = src[i + 2..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if src[i + 2 + name.len()..].starts_with('(') {
                    called.insert(name);
                }
            }
        }
        let exported: std::collections::BTreeSet<String> = exports().iter().map(|e| e.name.to_string()).collect();
        let missing: Vec<_> = called.difference(&exported).collect();
        assert!(missing.is_empty(), "called from Lua but not exported: {missing:?}");
        let unused: Vec<_> = exported.difference(&called).collect();
        assert!(unused.is_empty(), "exported but never called from Lua: {unused:?}");
    }

    /// A numeric literal: decimal or hex, with LuaJIT's `ULL`/`LL` suffixes.
    fn literal(token: &str) -> Option<f64> {
        let t = token.trim_end_matches("ULL").trim_end_matches("LL");
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok().map(|v| v as f64),
            None if t.starts_with(|c: char| c.is_ascii_digit()) => t.parse().ok(),
            None => None,
        }
    }

    /// No Lua file spells a number it shares with Rust (issue 31): each is read from `S.K`
    /// ([`constants`]). Caught: an upper-case local bound to an integer literal (a constant
    /// typed in Lua), an FFI result compared with a literal other than 0 (the OK status), any
    /// literal equal to a shared value of 256 or more, and a `K.NAME` that Rust does not give.
    #[test]
    fn lua_files_spell_no_shared_constant() {
        // Lua's own: Defold's API values with no Rust side, and a buffer size Lua picks.
        const LUA_ONLY: &[&str] = &["STATUS_UNLOADED", "MAX_WEIGHTS"];
        let k = constants();
        let big: Vec<f64> = k.iter().map(|c| c.1).filter(|v| *v >= 256.0).collect();
        let names: Vec<&str> = k.iter().map(|c| c.0).collect();
        let mut found = Vec::new();
        for (file, src) in lua_files() {
            for (n, line) in src.lines().enumerate() {
                let code = line.split("--").next().unwrap_or("");
                let at = format!("{file}:{}: {}", n + 1, line.trim());
                if let Some((lhs, rhs)) = code.trim_start().strip_prefix("local ").and_then(|r| r.split_once('=')) {
                    let upper = lhs.split(',').map(str::trim).all(|n| {
                        !n.is_empty() && n.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    });
                    let integer = rhs.split(',').any(|v| literal(v.trim()).is_some_and(|x| x.fract() == 0.0));
                    if upper && integer && !LUA_ONLY.iter().any(|o| lhs.contains(o)) {
                        found.push(format!("a constant typed in Lua: {at}"));
                    }
                }
                for token in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_')) {
                    if literal(token).is_some_and(|x| big.contains(&x)) {
                        found.push(format!("a shared value spelled: {at}"));
                    }
                }
                for op in ["== ", "~= "] {
                    for (i, _) in code.match_indices(op) {
                        let after = code[i + 3..].chars().next().unwrap_or(' ');
                        if code.contains("F.") && code[..i].trim_end().ends_with(')') && ('1'..='9').contains(&after) {
                            found.push(format!("an FFI result compared with a literal: {at}"));
                        }
                    }
                }
                for (i, _) in code.match_indices("K.") {
                    if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    let name: String =
                        code[i + 2..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if !names.contains(&name.as_str()) {
                        found.push(format!("K.{name} is not a shared constant: {at}"));
                    }
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
        // The scan itself finds what it is for.
        assert!(literal("0xffffffff").is_some_and(|x| big.contains(&x)));
        assert_eq!(literal("2048"), Some(2048.0));
    }

    /// Calls every exported function with hostile arguments: no game state, then a real world
    /// with dead slots, null pointers, NaN floats and lengths over null buffers. Nothing may
    /// crash; a status-returning function must report an error (or do nothing) and leave a
    /// message.
    #[test]
    fn every_function_survives_bad_and_null_arguments() {
        let lua = lua();
        let call: mlua::Function = lua
            .load(
                r#"local ffi = require('ffi')
                 return function(sig, addr, ctx, live)
                   local f = ffi.cast(sig, addr)
                   local params = sig:match("%(%*%)%((.*)%)$")
                   local args = {}
                   local i = 0
                   for p in params:gmatch("[^,]+") do
                     i = i + 1
                     p = p:gsub("^%s+", ""):gsub("%s+$", "")
                     if p:find("%*") then
                       args[i] = (i == 1 and p == "const void *") and ffi.cast("void *", ctx) or nil
                     elseif p == "float" or p == "double" then
                       args[i] = 0/0
                     elseif p == "uint32_t" then
                       args[i] = live and 0 or 0xffffffff
                     elseif p == "size_t" then
                       args[i] = 16
                     else
                       args[i] = live and 0 or -1
                     end
                   end
                   local r = f(unpack(args, 1, i))
                   return r ~= nil and tonumber(ffi.cast("uint64_t", r)) or 0
                 end"#,
            )
            .eval()
            .expect("caller");
        let world = RefCell::new(crate::game::World::new("t"));
        let slot = world
            .borrow_mut()
            .scene
            .spawn("/a", 0, glam::Vec3::ZERO, glam::Quat::IDENTITY, glam::Vec3::ONE)
            .expect("one object");
        assert_eq!(slot, 0);
        let ctx = &world as *const RefCell<crate::game::World> as usize as f64;
        for (ctx, live) in [(0.0, false), (ctx, false), (ctx, true)] {
            for e in exports() {
                // Writes through the context would end the test's world, not test the boundary.
                if e.name == "exit" {
                    continue;
                }
                let _: f64 = call
                    .call((e.signature(), e.addr as f64, ctx, live))
                    .unwrap_or_else(|err| panic!("{} (ctx {ctx}, live {live}): {err}", e.name));
            }
        }
        assert!(world.try_borrow_mut().is_ok(), "a call left the world borrowed");
    }

    mod panicking {
        crate::export! {
            fn panics_for_test(x: u32) -> i32 {
                if x > 0 {
                    panic!("boom {x}");
                }
                0
            }
        }
    }

    /// A panic inside an exported function is an error return with the message for Lua, never an
    /// abort; the Lua wrapper then raises it as a Lua error.
    #[test]
    fn a_panic_becomes_a_lua_error() {
        let lua = lua();
        let e = &panicking::exports()[0];
        let last = last_error_ptr as *const () as usize;
        let t: Table = lua.create_table().expect("t");
        t.set("f", e.addr as f64).expect("f");
        t.set("sig", e.signature()).expect("sig");
        t.set("last", last as f64).expect("last");
        let msg: String = lua
            .load(
                "local t = ...
                 local ffi = require('ffi')
                 local f = ffi.cast(t.sig, t.f)
                 local last = ffi.cast('const char *(*)(void)', t.last)
                 local ok, err = pcall(function()
                   if f(7) ~= 0 then error(ffi.string(last()), 0) end
                 end)
                 assert(not ok)
                 assert(f(0) == 0)
                 return err",
            )
            .call(t)
            .expect("the panic reached Lua as an error");
        assert_eq!(msg, "internal error in Sinew's panics_for_test: boom 7");
    }
}
