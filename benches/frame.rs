//! Benchmarks of issue 2: (a) script `update` doing go.get_position/go.set_position on 10,000
//! objects, against the same loop in plain LuaJIT over Lua tables (baseline, same run);
//! (b) world-transform update of 100,000 objects in chains of depth 8.
mod common;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sinew::game::{ScriptHooks, World};
use sinew::scene::Scene;
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;

const OBJECTS: usize = 10_000;

const MOVER: &str = r#"
function update(self, dt)
  local p = go.get_position()
  p.x = p.x + dt
  go.set_position(p)
end
"#;

/// The baseline: the same script shape, with go.* written in Lua over tables.
const BASELINE: &str = r#"
local objects, selves, n = {}, {}, ...
for i = 1, n do objects[i] = { pos = { x = 0, y = 0, z = 0 } }; selves[i] = {} end
local current
local go = {}
function go.get_position() local p = current.pos; return { x = p.x, y = p.y, z = p.z } end
function go.set_position(v) local p = current.pos; p.x, p.y, p.z = v.x, v.y, v.z end
local function update(self, dt)
  local p = go.get_position()
  p.x = p.x + dt
  go.set_position(p)
end
return function(dt)
  for i = 1, n do current = objects[i]; update(selves[i], dt) end
end
"#;

/// A script with no `update`: the frame must not pay for it (issue 15).
const IDLE: &str = "function init(self) end\n";

fn script_game(source: &str) -> (ScriptHost, Rc<RefCell<World>>) {
    common::scripted_world(&format!("frame-{}", source.len()), OBJECTS, source, |_| ())
}

fn bench_scripts(c: &mut Criterion) {
    let mut g = c.benchmark_group("script_update_10k");
    let (mut host, world) = script_game(MOVER);
    g.bench_function("sinew", |b| b.iter(|| host.update(1.0 / 60.0)));
    assert!(world.borrow().scene.position[0].x > 0.0, "the scripts really moved the objects");
    assert_eq!(host.error_count(), 0);

    // SAFETY: the baseline needs nothing unsafe, but uses the same JIT-enabled state kind.
    let lua = unsafe { mlua::Lua::unsafe_new() };
    let frame: mlua::Function = lua.load(BASELINE).call(OBJECTS).expect("baseline");
    g.bench_function("plain_luajit_tables", |b| b.iter(|| frame.call::<()>(1.0f64 / 60.0).expect("frame")));
    g.finish();

    let mut g = c.benchmark_group("script_update_10k_without_update");
    let (mut idle, _world) = script_game(IDLE);
    g.bench_function("sinew", |b| b.iter(|| idle.update(1.0 / 60.0)));
    g.finish();
}

/// 100,000 objects in 12,500 chains of depth 8, spawned parents first.
fn hierarchy() -> Scene {
    let mut s = Scene::new();
    let prefix = s.intern_prefix("/");
    for chain in 0..12_500 {
        let mut parent = None;
        for depth in 0..8 {
            let pos = glam::Vec3::new(1.0, depth as f32 * 0.1, 0.0);
            let rot = glam::Quat::from_rotation_z(0.1 * depth as f32);
            let slot =
                s.spawn(&format!("/c{chain}_{depth}"), prefix, pos, rot, glam::Vec3::splat(1.01)).expect("spawn");
            if let Some(p) = parent {
                s.set_parent(slot, p, false).expect("parent");
            }
            parent = Some(slot);
        }
    }
    s.update_world_transforms();
    s
}

fn bench_transforms(c: &mut Criterion) {
    let mut g = c.benchmark_group("world_transforms_100k_depth8");
    let mut s = hierarchy();
    g.bench_function("update", |b| b.iter(|| s.update_world_transforms()));
    g.bench_function("rebuild_order_and_update", |b| {
        b.iter_batched(
            || {
                let mut s2 = hierarchy();
                let slot = s2.find(sinew::base::hash_str("/c0_1")).expect("slot");
                let _ = s2.set_parent(slot, sinew::scene::NONE, true);
                s2
            },
            |mut s2| s2.update_world_transforms(),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench_scripts, bench_transforms
}
criterion_main!(benches);
