//! The messages of one step, as Defold sends them: `collision_response` once per touching pair
//! of objects, `contact_point_response` per contact point, `trigger_response` when an overlap
//! with a trigger starts and when it ends; each to every script of both objects. A world with
//! an event listener (`physics.set_event_listener`) gets them as Defold's events instead:
//! `collision_event`, `contact_point_event` and `trigger_event` tables with both objects as
//! `a` and `b`, gathered for one call.
use super::Physics;
use super::simulation::Party;
use crate::base::hash::{Hash, hash_remembered};
use crate::project::physics::{CollisionType, Events};
use crate::scene::message::{Fields, Key, MsgValue, Record};
use crate::scene::{Message, MessageQueue, Scene, Url};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// Contact points reported per pair of shapes per step: a box resting on a box has four,
/// more only repeat them.
const MAX_POINTS_PER_PAIR: usize = 4;

pub(super) struct Ids {
    collision: Hash,
    contact: Hash,
    trigger: Hash,
    collision_event: Hash,
    contact_event: Hash,
    trigger_event: Hash,
    /// The id of the message that carries a listener's events (Lua passes on only its table).
    pub(super) listener: Hash,
}

pub(super) fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| Ids {
        collision: hash_remembered("collision_response"),
        contact: hash_remembered("contact_point_response"),
        trigger: hash_remembered("trigger_response"),
        collision_event: hash_remembered("collision_event"),
        contact_event: hash_remembered("contact_point_event"),
        trigger_event: hash_remembered("trigger_event"),
        listener: hash_remembered("physics_events"),
    })
}

/// A table of string keys, as an event is.
pub(super) fn table(fields: Vec<(&str, MsgValue)>) -> MsgValue {
    MsgValue::Table(fields.into_iter().map(|(k, v)| (MsgValue::String(k.into()), v)).collect())
}

/// A Lua array of the values.
pub(super) fn numbered(values: Vec<MsgValue>) -> Vec<(MsgValue, MsgValue)> {
    values.into_iter().enumerate().map(|(i, v)| (MsgValue::Number(i as f64 + 1.0), v)).collect()
}

/// One contact point of a pair: the pair (lower object first), the world position each side is
/// told (the pair's order), the normal (from the pair's first object), penetration depth and
/// impulse.
type Point = ((Party, Party), [[f32; 3]; 2], [f32; 3], f32, f32);

/// What a message needs of one side of a pair.
#[derive(Clone, Copy)]
struct Side {
    /// Whether its game object has a script to tell: messages nobody would read are not made
    /// (a pile of a thousand crates without scripts posts nothing).
    listens: bool,
    /// Its game object.
    slot: u32,
    id: Hash,
    path: Hash,
    /// Its object's world (0: the main world), for the messages' URLs.
    socket: Hash,
    group: Hash,
    position: [f32; 3],
    mass: f32,
    velocity: [f32; 3],
    /// Which messages its scripts are sent (Defold's per-object event switches).
    events: Events,
}

/// Whether object `index`'s game object has a script.
fn listens(p: &Physics, scene: &Scene, index: u32) -> bool {
    p.get(index).is_some_and(|b| scene.has_script(b.slot))
}

fn side(p: &Physics, scene: &Scene, index: u32) -> Option<Side> {
    let b = p.get(index).filter(|b| b.enabled)?;
    let (world, h) = p.world_of(index)?;
    let (velocity, _) = world.velocity(h)?;
    let t = scene.world_of(b.slot).translation;
    Some(Side {
        listens: listens(p, scene, index),
        slot: b.slot,
        id: b.id,
        path: *scene.ids.get(b.slot as usize)?,
        socket: scene.socket.get(b.slot as usize).copied().unwrap_or(0),
        group: p.groups.get(b.group as usize).copied().unwrap_or(0),
        position: [t.x, t.y, t.z],
        mass: if b.ty == CollisionType::Dynamic { world.mass(h)? } else { 0.0 },
        velocity: (velocity / p.settings.scale).to_array(),
        events: b.spec.events,
    })
}

/// The sides of a step's pairs by object index, each looked up once however many messages it is
/// in (`None` not looked up yet). Kept between steps with what a step found cleared, as the
/// pairs and points are: a pile of thousands of touching objects would otherwise allocate,
/// fault in and zero several hundred kilobytes a step.
#[derive(Default)]
struct Sides {
    slots: Vec<Option<Option<Side>>>,
    filled: Vec<u32>,
}

impl Sides {
    /// Forgets the last step's sides (only the slots it filled) and makes room for every body.
    fn reset(&mut self, p: &Physics) {
        for &i in &self.filled {
            if let Some(s) = self.slots.get_mut(i as usize) {
                *s = None;
            }
        }
        self.filled.clear();
        if self.slots.len() < p.bodies.len() {
            self.slots.resize(p.bodies.len(), None);
        }
    }

    /// The side of `party`: its object's, in the party's own group if it has one (a tile).
    fn get(&mut self, p: &Physics, scene: &Scene, party: Party) -> Option<Side> {
        let i = party.object;
        let mut s = match self.slots.get_mut(i as usize) {
            Some(Some(s)) => *s,
            Some(slot) => {
                self.filled.push(i);
                *slot.insert(side(p, scene, i))
            }
            None => side(p, scene, i),
        }?;
        if party.group > 0 {
            s.group = p.groups.get(usize::from(party.group - 1)).copied().unwrap_or(0);
        }
        Some(s)
    }
}

/// What `post_events` works in, kept in [`Physics`] between steps so a step allocates nothing
/// once the first has sized it.
#[derive(Default)]
pub(super) struct Scratch {
    touching: Vec<(Party, Party)>,
    /// [`sort_pairs`]' keys and their second buffer.
    keys: (Vec<u64>, Vec<u64>),
    points: Vec<Point>,
    sides: Sides,
    /// Whether the pairs' and the points' limits were warned of, until a step fits again.
    warned: [bool; 2],
}

/// Sorts a step's pairs (lower object first) as `sort_unstable` would, in linear time: each
/// pair packed into a `u64` in the same order, then a radix sort over the bytes in which the keys
/// differ. A pile of thousands of spheres on one ground sorted its pairs by comparison in about
/// 0.15 ms a step; two byte passes take a fifth of that. Object numbers too large to pack (past
/// 2^24) are sorted by comparison instead.
fn sort_pairs(pairs: &mut Vec<(Party, Party)>, (keys, spare): &mut (Vec<u64>, Vec<u64>)) {
    const LIMIT: u32 = 1 << 24;
    if pairs.iter().any(|(a, b)| a.object >= LIMIT || b.object >= LIMIT) {
        pairs.sort_unstable();
        return;
    }
    let pack = |(a, b): &(Party, Party)| {
        (u64::from(a.object) << 40) | (u64::from(a.group) << 32) | (u64::from(b.object) << 8) | u64::from(b.group)
    };
    keys.clear();
    keys.extend(pairs.iter().map(pack));
    let (any, all) = keys.iter().fold((0u64, !0u64), |(o, a), &k| (o | k, a & k));
    let differ = any ^ all;
    for shift in (0..64).step_by(8) {
        if (differ >> shift) & 0xFF == 0 {
            continue;
        }
        // A stable counting sort by this byte, from `keys` into `spare`.
        let mut at = [0usize; 257];
        for &k in keys.iter() {
            at[((k >> shift) & 0xFF) as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        spare.clear();
        spare.resize(keys.len(), 0);
        for &k in keys.iter() {
            let slot = &mut at[((k >> shift) & 0xFF) as usize];
            spare[*slot] = k;
            *slot += 1;
        }
        std::mem::swap(keys, spare);
    }
    let party = |object: u64, group: u64| Party { object: object as u32, group: group as u8 };
    pairs.clear();
    pairs.extend(keys.iter().map(|&k| (party(k >> 40, (k >> 32) & 0xFF), party((k >> 8) & 0xFF_FFFF, k & 0xFF))));
}

/// Keeps the first `max` of a step's `found` (Defold's `max_collisions` / `max_contacts`),
/// warning once, as Defold does, until a step fits again.
fn limit<T>(found: &mut Vec<T>, max: Option<u32>, warned: &mut bool, (key, what): (&str, &str)) {
    match max {
        Some(m) if found.len() > m as usize => {
            if !*warned {
                log::warn!(
                    "physics: {m} of {} {what} reported this step, the rest lost; raise physics.{key} in the project settings",
                    found.len()
                );
                *warned = true;
            }
            found.truncate(m as usize);
        }
        _ => *warned = false,
    }
}

/// Calls `f(own, other)` for each side of a pair whose object has a script.
fn to_both(p: &Physics, scene: &Scene, sides: &mut Sides, (a, b): (Party, Party), mut f: impl FnMut(&Side, &Side)) {
    let (Some(sa), Some(sb)) = (sides.get(p, scene, a), sides.get(p, scene, b)) else { return };
    for (own, other) in [(&sa, &sb), (&sb, &sa)] {
        if own.listens {
            f(own, other);
        }
    }
}

/// To every script of `to`'s game object, from its collision object: `record`'s fields, which
/// `fields` writes.
fn post(
    messages: &mut MessageQueue,
    socket: Hash,
    to: &Side,
    id: Hash,
    record: Record,
    fields: impl FnOnce(&mut Fields),
) {
    if !to.listens {
        return;
    }
    // The largest record's size (contact points: 2 + 4 * 13 + 5 * 9 + 4 * 9), in a buffer a
    // delivered message gave back.
    let mut data = messages.buffer(136);
    fields(&mut Fields::record(&mut data, record));
    let socket = if to.socket != 0 { to.socket } else { socket };
    let sender = Url { socket, path: to.path, fragment: to.id };
    let receiver = Url { socket, path: to.path, fragment: 0 };
    if messages.post(Message::new(sender, receiver, id, data).to_slot(to.slot))
        == Err(crate::scene::message::QueueFull::First)
    {
        log::warn!("physics messages dropped: the frame's message budget is spent");
    }
}

/// Posts the messages of the step space `k` just took.
pub fn post_events(p: &mut Physics, k: u32, scene: &mut Scene, messages: &mut MessageQueue, socket: Hash) {
    let mut scratch = std::mem::take(&mut p.scratch);
    let overlapping = overlaps(p, k);
    scratch.sides.reset(p);
    contact_events(p, k, scene, messages, socket, &mut scratch, &overlapping);
    scratch.sides.reset(p);
    triggers(p, k, scene, messages, socket, &mut scratch.sides, overlapping);
    p.scratch = scratch;
}

/// The pairs of enabled objects (lower index first) a trigger of space `k` overlaps after its
/// step.
fn overlaps(p: &Physics, k: u32) -> BTreeSet<(u32, u32)> {
    let mut now: BTreeSet<(u32, u32)> = BTreeSet::new();
    p.spaces[k as usize].world.intersections(&mut |a, b| {
        if a != b && p.get(a).is_some_and(|x| x.enabled) && p.get(b).is_some_and(|x| x.enabled) {
            now.insert((a.min(b), a.max(b)));
        }
    });
    now
}

/// The contact pairs' and points' messages (or a listener's events) of the step space `k` took;
/// a trigger's `overlapping` pairs are touching pairs too (their `collision_response`, no
/// contact points).
fn contact_events(
    p: &mut Physics,
    k: u32,
    scene: &mut Scene,
    messages: &mut MessageQueue,
    socket: Hash,
    scratch: &mut Scratch,
    overlapping: &BTreeSet<(u32, u32)>,
) {
    let ids = ids();
    let inv = 1.0 / p.settings.scale;
    // Pairs of objects touching this step, lower index first, so each is reported once however
    // many shapes touch, in an order that depends only on the objects.
    let Scratch { touching, keys, points, sides, warned } = scratch;
    touching.clear();
    points.clear();
    let world = &p.spaces[k as usize].world;
    let listening = p.spaces[k as usize].listener.is_some();
    // Nobody to tell: the contact pairs (thousands in a pile) are not walked at all.
    if !listening && !p.bodies.iter().any(|b| b.alive && b.space == k && scene.has_script(b.slot)) {
        return;
    }
    let mut want = |a: Party, b: Party| {
        if !(listening || listens(p, scene, a.object) || listens(p, scene, b.object)) {
            return false;
        }
        touching.push((a.min(b), a.max(b)));
        true
    };
    // Defold's limit is in world units, as the impulses it reports.
    let min_impulse = p.settings.contact_impulse_limit * p.settings.scale;
    world.contacts(MAX_POINTS_PER_PAIR, min_impulse, &mut want, &mut |c| {
        // Stored as seen from the pair's lower index.
        let (key, on, normal) = if c.a < c.b {
            ((c.a, c.b), [c.on_a, c.on_b], c.normal)
        } else {
            ((c.b, c.a), [c.on_b, c.on_a], -c.normal)
        };
        let on = on.map(|p| (p * inv).to_array());
        points.push((key, on, normal.to_array(), c.depth * inv, c.impulse * inv));
    });
    // A trigger's overlaps send `collision_response` every step too, as Defold's: its Box2D
    // step reports every touching sensor contact to the collision callback, its Bullet step
    // reports a trigger's manifolds with the rest (a trigger is always active there, and
    // pushes nothing, so an impulse limit leaves them out in 3D).
    if p.settings.two_d || min_impulse <= 0.0 {
        for &(a, b) in overlapping {
            want(Party::object(a), Party::object(b));
        }
    }
    // Sorted, each pair once: an order that depends only on the objects.
    sort_pairs(touching, keys);
    touching.dedup();
    limit(touching, p.settings.max_collisions, &mut warned[0], ("max_collisions", "touching pairs"));
    limit(points, p.settings.max_contacts, &mut warned[1], ("max_contacts", "contact points"));
    if listening {
        let mut events = listener_events(p, scene, sides, touching, points);
        p.spaces[k as usize].events.append(&mut events);
        return;
    }
    for &pair in touching.iter() {
        to_both(p, scene, sides, pair, |own, other| {
            if !own.events.collision {
                return;
            }
            post(messages, socket, own, ids.collision, Record::Collision, |f| {
                f.hash(Key::OtherId, other.path)
                    .vector3(Key::OtherPosition, other.position)
                    .hash(Key::OtherGroup, other.group)
                    .hash(Key::OwnGroup, own.group)
                    .hash(Key::Group, other.group);
            });
        });
    }
    for &(key, [on_a, on_b], normal, distance, impulse) in points.iter() {
        let (Some(sa), Some(sb)) = (sides.get(p, scene, key.0), sides.get(p, scene, key.1)) else { continue };
        for (own, other, sign, position) in [(&sa, &sb, -1.0, on_a), (&sb, &sa, 1.0, on_b)] {
            if !own.listens || !own.events.contact {
                continue;
            }
            // Defold's normal points from the other object towards the receiving one.
            let n = [normal[0] * sign, normal[1] * sign, normal[2] * sign];
            let rel = [0, 1, 2].map(|k| own.velocity[k] - other.velocity[k]);
            post(messages, socket, own, ids.contact, Record::ContactPoint, |f| {
                f.vector3(Key::Position, position)
                    .vector3(Key::Normal, n)
                    .vector3(Key::RelativeVelocity, rel)
                    .number(Key::Distance, f64::from(distance))
                    .number(Key::AppliedImpulse, f64::from(impulse))
                    .number(Key::LifeTime, 0.0)
                    .number(Key::Mass, f64::from(own.mass))
                    .number(Key::OtherMass, f64::from(other.mass))
                    .hash(Key::OtherId, other.path)
                    .vector3(Key::OtherPosition, other.position)
                    .hash(Key::Group, other.group)
                    .hash(Key::OtherGroup, other.group)
                    .hash(Key::OwnGroup, own.group);
            });
        }
    }
}

/// Compares this step's trigger overlaps (`now`) with the last step's: one `enter` when a pair
/// starts overlapping, one exit when it stops.
fn triggers(
    p: &mut Physics,
    k: u32,
    scene: &mut Scene,
    messages: &mut MessageQueue,
    socket: Hash,
    sides: &mut Sides,
    now: BTreeSet<(u32, u32)>,
) {
    let ids = ids();
    let before = &p.spaces[k as usize].overlaps;
    let entered: Vec<_> = now.difference(before).map(|&pair| (pair, true)).collect();
    let left: Vec<_> = before.difference(&now).map(|&pair| (pair, false)).collect();
    if p.spaces[k as usize].listener.is_some() {
        for (pair, enter) in entered.into_iter().chain(left) {
            let (Some(a), Some(b)) =
                (sides.get(p, scene, Party::object(pair.0)), sides.get(p, scene, Party::object(pair.1)))
            else {
                continue;
            };
            if !(a.events.trigger || b.events.trigger) {
                continue;
            }
            let who = |s: &Side| table(vec![("id", MsgValue::Hash(s.path)), ("group", MsgValue::Hash(s.group))]);
            let event = table(vec![
                ("type", MsgValue::Hash(ids.trigger_event)),
                ("enter", MsgValue::Bool(enter)),
                ("a", who(&a)),
                ("b", who(&b)),
            ]);
            p.spaces[k as usize].events.push(event);
        }
        p.spaces[k as usize].overlaps = now;
        return;
    }
    for ((a, b), enter) in entered.into_iter().chain(left) {
        to_both(p, scene, sides, (Party::object(a), Party::object(b)), |own, other| {
            if !own.events.trigger {
                return;
            }
            post(messages, socket, own, ids.trigger, Record::Trigger, |f| {
                f.hash(Key::OtherId, other.path)
                    .bool(Key::Enter, enter)
                    .hash(Key::OtherGroup, other.group)
                    .hash(Key::OwnGroup, own.group)
                    .hash(Key::Group, other.group);
            });
        });
    }
    p.spaces[k as usize].overlaps = now;
}

/// A listening world's `collision_event`s (a pair once, lower object first as `a`) and
/// `contact_point_event`s, with Defold's fields.
fn listener_events(
    p: &Physics,
    scene: &Scene,
    sides: &mut Sides,
    touching: &[(Party, Party)],
    points: &[Point],
) -> Vec<MsgValue> {
    let ids = ids();
    let v3 = MsgValue::Vector3;
    let mut out = Vec::with_capacity(touching.len() + points.len());
    for &(a, b) in touching {
        let (Some(a), Some(b)) = (sides.get(p, scene, a), sides.get(p, scene, b)) else { continue };
        if !(a.events.collision || b.events.collision) {
            continue;
        }
        let who = |s: &Side| {
            table(vec![
                ("position", v3(s.position)),
                ("id", MsgValue::Hash(s.path)),
                ("group", MsgValue::Hash(s.group)),
            ])
        };
        out.push(table(vec![("type", MsgValue::Hash(ids.collision_event)), ("a", who(&a)), ("b", who(&b))]));
    }
    for &(key, [on_a, on_b], normal, distance, impulse) in points {
        let (Some(a), Some(b)) = (sides.get(p, scene, key.0), sides.get(p, scene, key.1)) else { continue };
        if !(a.events.contact || b.events.contact) {
            continue;
        }
        // Each side's normal points from the other object towards it.
        let who = |own: &Side, other: &Side, sign: f32, position: [f32; 3]| {
            table(vec![
                ("position", v3(position)),
                ("instance_position", v3(own.position)),
                ("id", MsgValue::Hash(own.path)),
                ("group", MsgValue::Hash(own.group)),
                ("relative_velocity", v3([0, 1, 2].map(|k| own.velocity[k] - other.velocity[k]))),
                ("mass", MsgValue::Number(f64::from(own.mass))),
                ("normal", v3(normal.map(|x| x * sign))),
            ])
        };
        out.push(table(vec![
            ("type", MsgValue::Hash(ids.contact_event)),
            ("applied_impulse", MsgValue::Number(f64::from(impulse))),
            ("distance", MsgValue::Number(f64::from(distance))),
            ("a", who(&a, &b, -1.0, on_a)),
            ("b", who(&b, &a, 1.0, on_b)),
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(object: u32, group: u8) -> Party {
        Party { object, group }
    }

    /// The radix sort gives `sort_unstable`'s order: pairs of one object with many (a pile on
    /// one ground), mixed groups, duplicates, numbers in every byte, and numbers past what packs.
    #[test]
    fn pairs_sort_as_a_comparison_sort_does() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut keys = Default::default();
        for case in 0..40 {
            let spread = [2u64, 300, 70_000, 1 << 24, 1 << 32][case % 5];
            let n = (next() % 3000) as usize;
            let mut pairs: Vec<(Party, Party)> = (0..n)
                .map(|_| {
                    let (x, y) = ((next() % spread) as u32, (next() % spread) as u32);
                    let g = |r: u64| if r.is_multiple_of(4) { (r % 17) as u8 } else { 0 };
                    let (a, b) = (party(x.min(y), g(next())), party(x.max(y), g(next())));
                    if case % 3 == 0 { (party(0, 0), b) } else { (a, b) }
                })
                .collect();
            let mut want = pairs.clone();
            want.sort_unstable();
            sort_pairs(&mut pairs, &mut keys);
            assert_eq!(pairs, want, "case {case}: {n} pairs of numbers below {spread}");
        }
        let mut none: Vec<(Party, Party)> = Vec::new();
        sort_pairs(&mut none, &mut keys);
        assert!(none.is_empty());
        let mut one = vec![(party(u32::MAX, 255), party(u32::MAX, 255))];
        sort_pairs(&mut one, &mut keys);
        assert_eq!(one, vec![(party(u32::MAX, 255), party(u32::MAX, 255))]);
    }
}
