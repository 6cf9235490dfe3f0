//! Ray casts: `physics.raycast` answers at once from the last step's world,
//! `physics.raycast_async` after the next step with `ray_cast_response` / `ray_cast_missed`.
use super::Physics;
use crate::base::hash::{Hash, hash_remembered};
use crate::scene::message::{MsgValue, encode};
use crate::scene::{Message, MessageQueue, Scene, Url};

/// Results one `{all = true}` cast returns at most, and async requests waiting at once: a
/// script that asks for more is refused rather than let grow a list without bound.
pub const MAX_RAY_RESULTS: usize = 1000;
pub const MAX_PENDING_RAYS: usize = 4096;

/// One hit, in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    pub fraction: f32,
    pub position: [f32; 3],
    pub normal: [f32; 3],
    /// The game object's id.
    pub id: Hash,
    pub group: Hash,
}

pub struct RayRequest {
    pub from: [f32; 3],
    pub to: [f32; 3],
    pub mask: u32,
    pub request_id: u32,
    /// Who asked: the answer goes back there.
    pub reply_to: Url,
}

/// The groups' mask bits; groups the world has never seen match nothing.
pub fn mask_of(p: &Physics, groups: &[Hash]) -> u32 {
    groups.iter().filter_map(|g| p.groups.iter().position(|x| x == g)).fold(0, |m, bit| m | 1 << bit)
}

/// Hits along the segment `from`..`to` of objects in `mask` in the world whose objects have
/// scene socket `socket` (the caller's), nearest first; the first only unless `all`. Triggers
/// and disabled objects are not hit.
pub fn raycast(
    p: &mut Physics,
    scene: &Scene,
    socket: Hash,
    from: [f32; 3],
    to: [f32; 3],
    mask: u32,
    all: bool,
) -> Vec<RayHit> {
    if p.settings.debug {
        p.debug_rays.push((from, to));
    }
    let s = p.settings.scale;
    let (mut a, mut b) = (glam::Vec3::from(from) * s, glam::Vec3::from(to) * s);
    if p.settings.two_d {
        (a.z, b.z) = (0.0, 0.0);
    }
    let length = (b - a).length();
    let Some(k) = p.space_of_socket(socket) else { return Vec::new() };
    if mask == 0 || !a.is_finite() || !b.is_finite() || length <= 0.0 {
        return Vec::new();
    }
    let p = &*p;
    let space = &p.spaces[k as usize];
    let dir = (b - a) / length;
    let mut out: Vec<RayHit> = Vec::new();
    let mut hit = |who: super::simulation::Party, distance: f32, normal: glam::Vec3| {
        let Some(body) = p.get(who.object).filter(|b| b.enabled) else { return };
        // A tile map's hull answers with its tile's group.
        let group = if who.group > 0 { u32::from(who.group - 1) } else { body.group };
        let mut point = (a + dir * distance) / s;
        if p.settings.two_d {
            point.z = from[2];
        }
        out.push(RayHit {
            fraction: distance / length,
            position: point.to_array(),
            normal: normal.to_array(),
            id: scene.ids.get(body.slot as usize).copied().unwrap_or(0),
            group: p.groups.get(group as usize).copied().unwrap_or(0),
        });
    };
    space.world.cast_ray(a, dir, length, mask, all, space.dirty, &mut hit);
    out.sort_by(|x, y| x.fraction.total_cmp(&y.fraction));
    out.truncate(if all { MAX_RAY_RESULTS } else { 1 });
    out
}

/// The table of a `ray_cast_response` and of `physics.raycast`'s result.
pub fn hit_table(h: &RayHit, request_id: Option<u32>) -> MsgValue {
    let mut t = vec![
        ("fraction", MsgValue::Number(f64::from(h.fraction))),
        ("position", MsgValue::Vector3(h.position)),
        ("normal", MsgValue::Vector3(h.normal)),
        ("id", MsgValue::Hash(h.id)),
        ("group", MsgValue::Hash(h.group)),
    ];
    if let Some(r) = request_id {
        t.push(("request_id", MsgValue::Number(f64::from(r))));
    }
    super::events::table(t)
}

/// Answers the `raycast_async` requests made since the last call, each from its asker's world
/// (`socket`: the main world's URL socket).
pub fn answer_async(p: &mut Physics, scene: &Scene, messages: &mut MessageQueue, socket: Hash) {
    if p.rays.is_empty() {
        return;
    }
    let requests = std::mem::take(&mut p.rays);
    for r in requests {
        let world = if r.reply_to.socket == socket { 0 } else { r.reply_to.socket };
        let hits = raycast(p, scene, world, r.from, r.to, r.mask, false);
        let (id, mut table) = match hits.first() {
            Some(h) => (hash_remembered("ray_cast_response"), hit_table(h, Some(r.request_id))),
            None => (
                hash_remembered("ray_cast_missed"),
                super::events::table(vec![("request_id", MsgValue::Number(f64::from(r.request_id)))]),
            ),
        };
        // A world with an event listener hears the answer as an event, `type` its message id.
        let listening = p.space_of_socket(world).map(|k| k as usize).filter(|&k| p.spaces[k].listener.is_some());
        if let (Some(k), MsgValue::Table(fields)) = (listening, &mut table) {
            fields.insert(0, (MsgValue::String("type".into()), MsgValue::Hash(id)));
            p.spaces[k].events.push(table);
            continue;
        }
        let mut data = Vec::new();
        encode(&table, &mut data);
        let socket = if r.reply_to.socket != 0 { r.reply_to.socket } else { socket };
        let sender = Url { socket, path: r.reply_to.path, fragment: r.reply_to.fragment };
        if messages.post(Message::new(sender, r.reply_to, id, data)) == Err(crate::scene::message::QueueFull::First) {
            log::warn!("ray cast answer dropped: the frame's message budget is spent");
        }
    }
}
