//! `factory.*` and `collectionfactory.*`: finding a factory component and spawning its prototype.
//! The Lua wrapper (`lua/factory.lua`) checks the arguments and creates the script records.
use super::{Ctx, bytes, world_status};
use crate::game::factory::{self, Placement};
use crate::scene::ComponentRef;
use crate::scene::url::{self, Url};
use crate::script::boundary;
use glam::{Quat, Vec3};

/// Leaves `msg` for the Lua wrapper and returns -1: these functions return a count or an index,
/// so an error cannot be the usual non-zero status.
fn fail(msg: String) -> i32 {
    boundary::fail(msg);
    -1
}

crate::export! {
    /// Which factory holds index `f` now (0 when none): what the Lua side knows of a factory
    /// holds while this stays the same.
    fn factory_serial(ctx: Ctx, f: u32) -> u32 {
        super::with_world(ctx, |w| w.factories.list.get(f as usize).filter(|fi| fi.alive).map_or(0, |fi| fi.serial))
            .unwrap_or(0)
    }

    /// `factory.set_prototype`: loads the `.go` (or `.collection`) at `path` (`n` bytes; Defold's
    /// built `.goc`/`.collectionc` name is taken too) and makes factory `f` spawn it; 0, or -1
    /// with the loader's error.
    fn factory_set_prototype(ctx: Ctx, f: u32, path: *const std::ffi::c_char, n: usize) -> i32 {
        if n > 4096 {
            return fail(format!("the prototype path is too long: {n} bytes"));
        }
        // SAFETY: `path` is null or `n` bytes of a Lua string held during this call.
        let path = String::from_utf8_lossy(unsafe { bytes(path, n) }).into_owned();
        let path = path.strip_suffix('c').filter(|p| p.ends_with(".go") || p.ends_with(".collection")).map_or(path.clone(), str::to_string);
        world_status(ctx, |w| {
            let Some(fi) = w.factories.list.get(f as usize).filter(|fi| fi.alive) else {
                return fail("the factory was deleted".into());
            };
            let collection = fi.spec.collection;
            let Some(res) = w.factories.res.clone() else { return fail("no resources to load from".into()) };
            let spec = match crate::project::collection::load_prototype(&res, &path, collection, w.factories.max_instances) {
                Ok(s) => s,
                Err(e) => return fail(e.to_string()),
            };
            match factory::set_prototype(w, f, spec) {
                Ok(()) => 0,
                Err(e) => fail(e),
            }
        })
    }

    /// Index of the factory at `u` (a `collectionfactory` when `collection` is 1), else -1.
    fn factory_of(ctx: Ctx, u: *const Url, collection: i32) -> i32 {
        // SAFETY: `u` is null or points at a url cdata of the wrapper.
        let Some(&u) = (unsafe { u.as_ref() }) else { return fail("no url".into()) };
        world_status(ctx, |w| {
            let want = if collection != 0 { "collectionfactory" } else { "factory" };
            let found = w.find_url(u.socket, u.path);
            let comp = found.and_then(|s| w.scene.component(s, u.fragment));
            match comp.map(|c| c.kind) {
                Some(ComponentRef::Factory(i)) => match w.factories.list.get(i as usize).filter(|f| f.alive) {
                    Some(f) if f.spec.collection == (collection != 0) => i as i32,
                    Some(f) => {
                        let is = if f.spec.collection { "collectionfactory" } else { "factory" };
                        fail(format!("'{}' is a {is}, not a {want}", url::format(&u)))
                    }
                    None => fail(format!("no {want} at '{}'", url::format(&u))),
                },
                Some(_) => fail(format!("the component '{}' is not a {want}", url::format(&u))),
                None => fail(format!("could not find a {want} component at '{}'", url::format(&u))),
            }
        })
    }

    /// Spawns factory `f`'s prototype; writes the new slots then the new script instance indices
    /// into `out` (room for `cap`) and returns how many, or -1 (the limit, a model that fails).
    fn factory_spawn(
        ctx: Ctx, f: u32, px: f32, py: f32, pz: f32, rx: f32, ry: f32, rz: f32, rw: f32,
        sx: f32, sy: f32, sz: f32, out: *mut u32, cap: u32,
    ) -> i32 {
        world_status(ctx, |w| {
            let at = Placement {
                position: Vec3::new(px, py, pz),
                rotation: Quat::from_xyzw(rx, ry, rz, rw),
                scale: Vec3::new(sx, sy, sz),
            };
            let mut next = w.next_script;
            match factory::spawn(w, f, at, &mut next) {
                Ok(made) => {
                    w.next_script = next;
                    let all: Vec<u32> = made.slots.iter().chain(&made.scripts).copied().collect();
                    if out.is_null() || all.len() > cap as usize {
                        return fail(format!("internal error: factory output needs room for {}", all.len()));
                    }
                    // SAFETY: `out` points at `cap` u32 of a Lua-side buffer alive during the call.
                    unsafe { std::ptr::copy_nonoverlapping(all.as_ptr(), out, all.len()) };
                    all.len() as i32
                }
                Err(e) => fail(e),
            }
        })
    }
}
