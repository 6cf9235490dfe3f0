//! Benchmark of issue 34: 1,000 dynamic boxes falling into a pile on a static ground, stepped
//! at 60 Hz. Sinew's physics phase per step (moving the followers, the rapier step, writing
//! the boxes' transforms back, the collision and contact messages) against the same scene in a
//! bare rapier world stepped in the same run. Target: at most 1.25x.
//! Then 10,000 contact messages a frame delivered to scripts: 5,000 spheres resting on a ground,
//! each with a script whose `on_message` counts them (a `collision_response` and a
//! `contact_point_response` per sphere per step); the physics phase and dispatch against bare
//! rapier stepping the same scene, the difference being what the messages cost. Target: at most
//! 2 ms a frame.
mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use rapier3d::prelude::*;
use sinew::game::World;
use sinew::project::physics::{CollisionObjectSpec, CollisionType, ShapeKind, ShapeSpec};
use std::cell::RefCell;
use std::time::{Duration, Instant};

const BOXES: usize = 1000;
const STEPS: usize = 300;

/// Steps measured: `SINEW_BENCH_STEPS` overrides the 300 (a few under callgrind).
fn steps() -> usize {
    std::env::var("SINEW_BENCH_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(STEPS)
}
const DT: f32 = 1.0 / 60.0;

/// Box `i` of a 10 x 10 x 10 block, 1.5 apart, its lowest layer at y = 2.
fn place(i: usize) -> [f32; 3] {
    let (x, y, z) = (i % 10, i / 100, (i / 10) % 10);
    [x as f32 * 1.5 - 7.0, 2.0 + y as f32 * 1.5, z as f32 * 1.5 - 7.0]
}

fn spec(ty: CollisionType, half: [f32; 3]) -> CollisionObjectSpec {
    let shapes =
        vec![ShapeSpec { kind: ShapeKind::Box { half }, id: None, position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] }];
    CollisionObjectSpec { friction: 0.5, restitution: 0.0, ..CollisionObjectSpec::with_shapes(ty, shapes) }
}

fn sinew_world() -> RefCell<World> {
    let mut w = World::new("main");
    let prefix = w.scene.intern_prefix("/");
    let World { scene, physics, .. } = &mut w;
    let ground = scene.spawn("/ground", prefix, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE).expect("ground");
    physics.create(ground, "co", &spec(CollisionType::Static, [50.0, 0.5, 50.0]), scene).expect("ground body");
    for i in 0..BOXES {
        let slot = scene.spawn(&format!("/box{i}"), prefix, place(i).into(), Quat::IDENTITY, Vec3::ONE).expect("box");
        physics.create(slot, "co", &spec(CollisionType::Dynamic, [0.5; 3]), scene).expect("box body");
    }
    RefCell::new(w)
}

/// One frame's physics phase; the messages it posted are taken out (as dispatch would).
fn sinew_step(w: &RefCell<World>) -> (Duration, usize) {
    let t = Instant::now();
    sinew::game::physics::update(w, DT);
    let took = t.elapsed();
    let mut w = w.borrow_mut();
    let posted = w.messages.take_all();
    let n = posted.len();
    w.messages.give_back(posted);
    w.messages.new_frame();
    (took, n)
}

/// Sinew's 3D worlds combine coefficients as Bullet does (products): the same scene here.
const BULLET: CoefficientCombineRule = CoefficientCombineRule::Multiply;

fn rapier_world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -10.0, 0.0);
    world.integration_parameters.dt = DT;
    let body = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(
        ColliderBuilder::cuboid(50.0, 0.5, 50.0)
            .friction(0.5)
            .restitution(0.0)
            .friction_combine_rule(BULLET)
            .restitution_combine_rule(BULLET),
        Some(body),
    );
    for i in 0..BOXES {
        let p = place(i);
        let body = world.insert_body(RigidBodyBuilder::dynamic().translation(Vector::new(p[0], p[1], p[2])));
        let c = ColliderBuilder::cuboid(0.5, 0.5, 0.5)
            .friction(0.5)
            .restitution(0.0)
            .friction_combine_rule(BULLET)
            .restitution_combine_rule(BULLET)
            .mass(1.0);
        world.insert_collider(c, Some(body));
    }
    world
}

fn rapier_step(world: &mut PhysicsWorld) -> Duration {
    let t = Instant::now();
    world.step();
    t.elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bench(c: &mut Criterion) {
    // Both scenes from the same start, interleaved step by step so load on the machine falls on
    // both alike.
    let sinew = sinew_world();
    let mut rapier = rapier_world();
    let (mut a, mut b, mut messages) = (Vec::new(), Vec::new(), 0);
    let steps = steps();
    for i in 0..steps {
        // Each goes first every other step: the first to step after the pile's contacts grow
        // faults in the memory the allocator then hands to the second (with transparent huge
        // pages, 2 MiB zeroed at a time), so a fixed order charged one side for both.
        let bare = |rapier: &mut PhysicsWorld, b: &mut Vec<f64>| b.push(rapier_step(rapier).as_secs_f64() * 1e3);
        if i % 2 == 1 {
            bare(&mut rapier, &mut b);
        }
        let (t, n) = sinew_step(&sinew);
        a.push(t.as_secs_f64() * 1e3);
        messages = messages.max(n);
        if i % 2 == 0 {
            bare(&mut rapier, &mut b);
        }
    }
    let piled = sinew.borrow().scene.position.iter().filter(|p| p.y < 2.0).count();
    let (sa, sb) = (a.iter().sum::<f64>() / steps as f64, b.iter().sum::<f64>() / steps as f64);
    eprintln!(
        "physics {BOXES} boxes, {steps} steps: sinew {sa:.3} ms/step (median {:.3}), rapier alone {sb:.3} ms/step (median {:.3}), ratio {:.2} (target <= 1.25); {messages} messages in the busiest step; {piled} boxes below y 2 at the end",
        median(a.clone()),
        median(b.clone()),
        sa / sb
    );
    // scripts/bench.sh reads the line above and needs nothing more.
    if std::env::var_os("SINEW_BENCH_FIGURES_ONLY").is_some() {
        return;
    }
    let mut g = c.benchmark_group("physics_1000_boxes");
    g.sample_size(10);
    g.bench_function("sinew_step", |bch| bch.iter_custom(|iters| (0..iters).map(|_| sinew_step(&sinew).0).sum()));
    g.bench_function("rapier_step", |bch| bch.iter_custom(|iters| (0..iters).map(|_| rapier_step(&mut rapier)).sum()));
    g.finish();
}

/// Counts what arrives, so the bench can check every message reached a script.
const COUNTER: &str = r#"
function on_message(self, message_id, message)
  _G.received = _G.received + 1
end
"#;

/// Spheres resting on a static ground without a script, kept awake: each step every sphere's
/// script gets a `collision_response` and a `contact_point_response` (one point), 10,000
/// messages in all.
const SPHERES: usize = 5_000;
const SETTLE_STEPS: usize = 30;

fn sphere_spec() -> CollisionObjectSpec {
    CollisionObjectSpec {
        shapes: vec![ShapeSpec {
            kind: ShapeKind::Sphere { radius: 0.5 },
            id: None,
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
        }],
        ..spec(CollisionType::Dynamic, [0.5; 3])
    }
}

/// Sphere `i` on a 100-wide grid, 1.5 apart (never touching each other), resting on y = 0.5.
fn sphere_at(i: usize) -> Vec3 {
    Vec3::new((i % 100) as f32 * 1.5 - 75.0, 1.0, (i / 100) as f32 * 1.5 - 37.5)
}

fn contact_world() -> (sinew::script::ScriptHost, std::rc::Rc<RefCell<World>>) {
    let (host, world) = common::scripted_world("contacts", SPHERES, COUNTER, |h| {
        h.lua().globals().set("received", 0).expect("global");
    });
    {
        let w = &mut *world.borrow_mut();
        let World { scene, physics, .. } = w;
        let prefix = scene.intern_prefix("/");
        let ground = scene.spawn("/ground", prefix, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE).expect("ground");
        physics.create(ground, "co", &spec(CollisionType::Static, [100.0, 0.5, 100.0]), scene).expect("ground body");
        for i in 0..SPHERES {
            let slot = scene.find(sinew::base::hash::hash_str(&format!("/o{i}"))).expect("object");
            scene.position[slot as usize] = sphere_at(i);
            physics.create(slot, "co", &sphere_spec(), scene).expect("sphere");
        }
    }
    (host, world)
}

/// The same spheres and ground in a bare rapier world.
fn rapier_spheres() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -10.0, 0.0);
    world.integration_parameters.dt = DT;
    let body = world.insert_body(RigidBodyBuilder::fixed());
    world.insert_collider(
        ColliderBuilder::cuboid(100.0, 0.5, 100.0)
            .friction(0.5)
            .restitution(0.0)
            .friction_combine_rule(BULLET)
            .restitution_combine_rule(BULLET),
        Some(body),
    );
    for i in 0..SPHERES {
        let p = sphere_at(i);
        let body = world.insert_body(RigidBodyBuilder::dynamic().translation(Vector::new(p.x, p.y, p.z)));
        world.insert_collider(
            ColliderBuilder::ball(0.5)
                .friction(0.5)
                .restitution(0.0)
                .friction_combine_rule(BULLET)
                .restitution_combine_rule(BULLET)
                .mass(1.0),
            Some(body),
        );
    }
    world
}

/// One frame's physics phase and the dispatch of what it posted, and the messages delivered.
#[inline(never)]
fn contact_frame(host: &mut sinew::script::ScriptHost, w: &RefCell<World>) -> (Duration, u64) {
    let (step, delivery, n) = contact_frame_parts(host, w);
    (step + delivery, n)
}

/// [`contact_frame`] as its two halves: the physics phase (the step and the messages posted) and
/// their delivery to scripts.
fn contact_frame_parts(host: &mut sinew::script::ScriptHost, w: &RefCell<World>) -> (Duration, Duration, u64) {
    let before: u64 = host.lua().globals().get("received").expect("received");
    wake_spheres(w);
    let t = Instant::now();
    sinew::game::physics::update(w, DT);
    let step = t.elapsed();
    sinew::game::dispatch::dispatch(w, host);
    let delivery = t.elapsed() - step;
    w.borrow_mut().messages.new_frame();
    let after: u64 = host.lua().globals().get("received").expect("received");
    (step, delivery, after - before)
}

/// Wakes every sphere, outside the timing, as `physics.wakeup` would: a pair of a sleeping body
/// and a static one reports nothing (as in Defold), and the bench measures messages.
fn wake_spheres(w: &RefCell<World>) {
    let physics = &mut w.borrow_mut().physics;
    for i in 1..=SPHERES as u32 {
        if let Some((world, h)) = physics.world_of_mut(i) {
            world.wake_up(h);
        }
    }
}

/// [`wake_spheres`] for the bare rapier world, so both solve the same awake pile.
fn wake_rapier(world: &mut PhysicsWorld) {
    for (_, b) in world.bodies.iter_mut() {
        b.wake_up(true);
    }
}

/// The floor: plain Lua in the same Lua state (the same heap of 5,000 instances) making the
/// tables the messages are, with the same vectors, hashes and URLs, and handing each to a
/// function that keeps it; no engine, no decoding.
const FLOOR: &str = r#"
local n = ...
local h1, h2, h3 = hash("a"), hash("b"), hash("c")
local cid, pid = hash("collision_response"), hash("contact_point_response")
local v3, url = vmath.vector3, msg.url
local kept = {}
local function on_message(self, id, m, sender) self.m, self.id, self.sender = m, id, sender end
return function()
  for i = 1, n do
    on_message(kept, cid, { other_id = h1, other_position = v3(i, 0, 0), other_group = h2, own_group = h3,
      group = h2 }, url())
    on_message(kept, pid, { position = v3(i, 1, 0), normal = v3(0, 1, 0), relative_velocity = v3(0, 0, 0),
      distance = 0.01, applied_impulse = 1.5, life_time = 0, mass = 1, other_mass = 0, other_id = h1,
      other_position = v3(i, 0, 0), group = h2, other_group = h2, own_group = h3 }, url())
  end
end
"#;

fn bench_contacts(c: &mut Criterion) {
    let (mut host, world) = contact_world();
    let mut rapier = rapier_spheres();
    for _ in 0..SETTLE_STEPS {
        contact_frame(&mut host, &world);
        wake_rapier(&mut rapier);
        rapier_step(&mut rapier);
    }
    let (mut frame, mut bare, mut delivered) = (Vec::new(), Vec::new(), Vec::new());
    let (mut posting, mut delivering, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    let floor_frame: mlua::Function =
        host.lua().load(FLOOR).set_name("floor").call(SPHERES).expect("the floor's Lua runs");
    for _ in 0..steps() {
        let t = Instant::now();
        floor_frame.call::<()>(()).expect("the floor's frame runs");
        floor.push(t.elapsed().as_secs_f64() * 1e3);
        let (step, delivery, n) = contact_frame_parts(&mut host, &world);
        frame.push((step + delivery).as_secs_f64() * 1e3);
        posting.push(step.as_secs_f64() * 1e3);
        delivering.push(delivery.as_secs_f64() * 1e3);
        delivered.push(n);
        wake_rapier(&mut rapier);
        bare.push(rapier_step(&mut rapier).as_secs_f64() * 1e3);
    }
    let fewest = delivered.iter().copied().min().unwrap_or(0);
    assert_eq!(fewest, (SPHERES * 2) as u64, "each resting sphere's two messages reach its script every step");
    assert_eq!(host.error_count(), 0);
    let (f, r) = (median(frame.clone()), median(bare.clone()));
    eprintln!(
        "physics contacts: {fewest} messages a frame delivered to scripts: physics phase + dispatch median {f:.3} ms/frame, rapier alone {r:.3}, the messages {:.3} ms (target <= 2 ms); physics phase with posting {:.3}, delivery {:.3}; plain Lua making the same tables in the same state {:.3}",
        f - r,
        median(posting),
        median(delivering),
        median(floor)
    );
    if std::env::var_os("SINEW_BENCH_FIGURES_ONLY").is_some() {
        return;
    }
    let mut g = c.benchmark_group("physics_contact_messages_10000");
    g.sample_size(10);
    g.bench_function("frame", |b| b.iter_custom(|iters| (0..iters).map(|_| contact_frame(&mut host, &world).0).sum()));
    g.finish();
}

criterion_group!(benches, bench, bench_contacts);
criterion_main!(benches);
