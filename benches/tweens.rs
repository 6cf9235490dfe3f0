//! Benchmarks of issue 6 (go.animate):
//! (a) the tween phase of a frame with 65,000 tween records over 5,000 objects, started from Lua
//!     (per object: `position` and `scale` vector3 tweens = 2 × 4 records, `euler.x/y/z` = 3,
//!     two script `go.property` numbers = 2; mixed easings, looping), property write-back
//!     included; also the same without the script properties (55,000 records, all in Rust);
//! (b) the baseline: the same animated values done by a plain-Lua tween loop on LuaJIT, the way
//!     pure-Lua tween libraries do it (one table per tween, analytic easing functions);
//! (c) starting 10,000 tweens from Lua in one frame (`go.animate` calls).
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::game::{ScriptHooks, World, spawn::spawn_collection};
use sinew::project::{CollectionSpec, ComponentKind, ComponentSpec, ObjectSpec, Resources};
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

const OBJECTS: usize = 5_000;
const DT: f32 = 1.0 / 60.0;

const ANIMATED: &str = r##"
go.property("a", 0)
go.property("b", 0)
local n = 0
function init(self)
  n = n + 1
  local e = n % 41
  go.animate(".", "position", go.PLAYBACK_LOOP_PINGPONG, vmath.vector3(n % 7, 1, 2), e, 1 + (n % 5) * 0.25)
  go.animate(".", "scale", go.PLAYBACK_LOOP_FORWARD, vmath.vector3(2, 2, 2), (e + 1) % 41, 1.5)
  go.animate(".", "euler.x", go.PLAYBACK_LOOP_FORWARD, 360, (e + 2) % 41, 2)
  go.animate(".", "euler.y", go.PLAYBACK_LOOP_PINGPONG, 90, (e + 3) % 41, 2.5)
  go.animate(".", "euler.z", go.PLAYBACK_LOOP_FORWARD, -360, (e + 4) % 41, 3)
  if WITH_SCRIPT_PROPS then
    go.animate("#", "a", go.PLAYBACK_LOOP_PINGPONG, 10, (e + 5) % 41, 1)
    go.animate("#", "b", go.PLAYBACK_LOOP_FORWARD, -10, (e + 6) % 41, 0.75)
  end
end
"##;

/// 10,000 go.animate calls (two per object) when the global START is set.
const STARTER: &str = r#"
local ids = {}
function init(self)
  for i = 1, 5000 do ids[i] = hash("/o" .. i) end
end
function update(self, dt)
  if not START then return end
  local v = vmath.vector3(1, 2, 3)
  for i = 1, 5000 do
    local id = ids[i]
    go.animate(id, "position", go.PLAYBACK_ONCE_FORWARD, v, go.EASING_OUTBACK, 1)
    go.animate(id, "euler.z", go.PLAYBACK_LOOP_FORWARD, 360, go.EASING_LINEAR, 2)
  end
end
"#;

/// Plain LuaJIT: the same values animated by Lua tween tables.
const BASELINE: &str = r#"
local n_objects, with_props = ...
local sin, cos, sqrt, abs, pi = math.sin, math.cos, math.sqrt, math.abs, math.pi
local function linear(t, b, c, d) return c * t / d + b end
local function inQuad(t, b, c, d) t = t / d return c * t * t + b end
local function outQuad(t, b, c, d) t = t / d return -c * t * (t - 2) + b end
local function inOutCubic(t, b, c, d) t = t / d * 2 if t < 1 then return c / 2 * t * t * t + b end t = t - 2 return c / 2 * (t * t * t + 2) + b end
local function inOutSine(t, b, c, d) return -c / 2 * (cos(pi * t / d) - 1) + b end
local function outExpo(t, b, c, d) if t == d then return b + c end return c * 1.001 * (-(2 ^ (-10 * t / d)) + 1) + b end
local function outCirc(t, b, c, d) t = t / d - 1 return c * sqrt(1 - t * t) + b end
local function outBack(t, b, c, d) local s = 1.70158 t = t / d - 1 return c * (t * t * ((s + 1) * t + s) + 1) + b end
local function outBounce(t, b, c, d)
  t = t / d
  if t < 1 / 2.75 then return c * (7.5625 * t * t) + b end
  if t < 2 / 2.75 then t = t - (1.5 / 2.75) return c * (7.5625 * t * t + 0.75) + b end
  if t < 2.5 / 2.75 then t = t - (2.25 / 2.75) return c * (7.5625 * t * t + 0.9375) + b end
  t = t - (2.625 / 2.75) return c * (7.5625 * t * t + 0.984375) + b
end
local function outElastic(t, b, c, d)
  if t == 0 then return b end t = t / d if t == 1 then return b + c end
  local p = d * 0.3 local s = p / 4
  return c * 2 ^ (-10 * t) * sin((t * d - s) * (2 * pi) / p) + c + b
end
local easings = { linear, inQuad, outQuad, inOutCubic, inOutSine, outExpo, outCirc, outBack, outBounce, outElastic }

local tweens, objects = {}, {}
local function add(subject, keys, to, duration, easing, pingpong)
  local from = {}
  for i, k in ipairs(keys) do from[i] = subject[k] end
  tweens[#tweens + 1] = { subject = subject, keys = keys, from = from, to = to, duration = duration,
    clock = 0, easing = easings[easing % #easings + 1], pingpong = pingpong }
end
local XYZ = { "x", "y", "z" }
for n = 1, n_objects do
  local o = { position = { x = 0, y = 0, z = 0 }, scale = { x = 1, y = 1, z = 1 },
    euler = { x = 0, y = 0, z = 0 }, rotation = { x = 0, y = 0, z = 0, w = 1 }, self = { a = 0, b = 0 } }
  objects[n] = o
  local e = n % 41
  add(o.position, XYZ, { n % 7, 1, 2 }, 1 + (n % 5) * 0.25, e, true)
  add(o.scale, XYZ, { 2, 2, 2 }, 1.5, e + 1, false)
  add(o.euler, { "x" }, { 360 }, 2, e + 2, false)
  add(o.euler, { "y" }, { 90 }, 2.5, e + 3, true)
  add(o.euler, { "z" }, { -360 }, 3, e + 4, false)
  if with_props then
    add(o.self, { "a" }, { 10 }, 1, e + 5, true)
    add(o.self, { "b" }, { -10 }, 0.75, e + 6, false)
  end
end

local HALF_RAD = pi / 360
return function(dt)
  for i = 1, #tweens do
    local tw = tweens[i]
    local d = tw.duration
    local clock = tw.clock + dt
    while clock >= d do clock = clock - d end
    tw.clock = clock
    local t = clock
    if tw.pingpong then t = 2 * clock if t > d then t = 2 * d - t end end
    local subject, keys, from, to, ease = tw.subject, tw.keys, tw.from, tw.to, tw.easing
    for k = 1, #keys do
      subject[keys[k]] = ease(t, from[k], to[k] - from[k], d)
    end
  end
  for i = 1, #objects do
    local o = objects[i]
    local e, q = o.euler, o.rotation
    local hx, hy, hz = e.x * HALF_RAD, e.y * HALF_RAD, e.z * HALF_RAD
    local cx, sx, cy, sy, cz, sz = cos(hx), sin(hx), cos(hy), sin(hy), cos(hz), sin(hz)
    q.x = sx * cy * cz + cx * sy * sz
    q.y = cx * sy * cz + sx * cy * sz
    q.z = cx * cy * sz - sx * sy * cz
    q.w = cx * cy * cz - sx * sy * sz
  end
end
"#;

fn game(script: &str, with_scripts: bool, globals: &[(&str, bool)]) -> (ScriptHost, Rc<RefCell<World>>) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-tweens-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("main")).expect("temp dir");
    std::fs::write(dir.join("main/s.script"), script).expect("write script");
    let res = Resources::open_dir(&dir).expect("resources");
    let res2 = res.clone();
    let script_component = || ComponentSpec {
        id: "script".into(),
        kind: ComponentKind::Script { script: "/main/s.script".into(), properties: vec![] },
    };
    let mut objects: Vec<ObjectSpec> = (1..=OBJECTS)
        .map(|i| ObjectSpec {
            path: format!("/o{i}"),
            collection_prefix: "/".into(),
            parent: None,
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            components: if with_scripts { vec![script_component()] } else { vec![] },
        })
        .collect();
    if !with_scripts {
        objects.push(ObjectSpec {
            path: "/driver".into(),
            collection_prefix: "/".into(),
            parent: None,
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            components: vec![script_component()],
        });
    }
    let spec = CollectionSpec { name: "main".into(), objects };
    let world = Rc::new(RefCell::new(World::new("main")));
    let mut host = ScriptHost::new(world.clone(), res).expect("lua");
    for (name, v) in globals {
        host.lua().globals().set(*name, *v).expect("global");
    }
    spawn_collection(&world, &res2, &spec, &mut host).expect("spawn");
    host.init_new();
    assert_eq!(host.error_count(), 0);
    (host, world)
}

/// Best and median of `n` timed runs: on a shared machine the minimum is the least disturbed.
fn best_and_median(n: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[n / 2])
}

/// The tween phase of `game::update`: script values in, update, write-back and callbacks.
fn tween_phase(host: &mut ScriptHost, world: &Rc<RefCell<World>>) {
    host.before_tweens(DT);
    {
        let w = &mut *world.borrow_mut();
        w.tweens.update(&mut w.scene, DT);
    }
    host.after_tweens();
}

fn bench_frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("tweens_frame");
    for (name, with_props, records) in
        [("65k_mixed_with_script_props", true, 65_000), ("55k_game_object_only", false, 55_000)]
    {
        let (mut host, world) = game(ANIMATED, true, &[("WITH_SCRIPT_PROPS", with_props)]);
        assert_eq!(world.borrow().tweens.len(), records, "all tweens started from Lua");
        g.bench_function(format!("sinew_{name}"), |b| b.iter(|| tween_phase(&mut host, &world)));
        let (best, median) = best_and_median(300, || tween_phase(&mut host, &world));
        eprintln!("sinew_{name}: best {best:.0} µs, median {median:.0} µs per frame ({records} records)");
        let w = world.borrow();
        let moved = w.scene.position.iter().take(OBJECTS).filter(|p| p.y != 0.0).count();
        assert!(moved > OBJECTS / 2, "the tweens really moved the objects ({moved})");
        assert_eq!(w.tweens.len(), records);
        drop(w);
        assert_eq!(host.error_count(), 0);
        if with_props {
            let w = world.borrow();
            let moved = w.tweens.cells.values.iter().filter(|&&v| v != 0.0).count();
            assert!(moved > OBJECTS, "script properties moved ({moved})");
        }

        // SAFETY: the baseline needs nothing unsafe, but uses the same JIT-enabled state kind.
        let lua = unsafe { mlua::Lua::unsafe_new() };
        let frame: mlua::Function = lua.load(BASELINE).call((OBJECTS, with_props)).expect("baseline");
        g.bench_function(format!("plain_luajit_{name}"), |b| b.iter(|| frame.call::<()>(DT as f64).expect("frame")));
        let (best, median) = best_and_median(100, || frame.call::<()>(DT as f64).expect("frame"));
        eprintln!("plain_luajit_{name}: best {best:.0} µs, median {median:.0} µs per frame");
    }
    g.finish();
}

fn bench_start(c: &mut Criterion) {
    let mut g = c.benchmark_group("go_animate_start_10k");
    let (mut host, world) = game(STARTER, false, &[]);
    g.bench_function("10000_calls", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                host.lua().globals().set("START", true).expect("global");
                let t = Instant::now();
                host.update(DT);
                total += t.elapsed();
                host.lua().globals().set("START", false).expect("global");
                assert_eq!(world.borrow().tweens.len(), 25_000, "5000 × (position composite + euler.z)");
                let mut w = world.borrow_mut();
                for slot in 0..OBJECTS as u32 {
                    w.tweens.remove_object(slot);
                }
            }
            total
        })
    });
    let mut per_call = Vec::new();
    for _ in 0..30 {
        host.lua().globals().set("START", true).expect("global");
        let t = Instant::now();
        host.update(DT);
        per_call.push(t.elapsed().as_secs_f64() * 1e6 / 10_000.0);
        host.lua().globals().set("START", false).expect("global");
        let mut w = world.borrow_mut();
        for slot in 0..OBJECTS as u32 {
            w.tweens.remove_object(slot);
        }
    }
    per_call.sort_by(f64::total_cmp);
    eprintln!("go.animate: best {:.3} µs, median {:.3} µs per call", per_call[0], per_call[15]);
    assert_eq!(host.error_count(), 0);
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench_frame, bench_start
}
criterion_main!(benches);
