//! Input dispatch (issue 11): 1,000 objects on the focus stack, 10 held actions, every
//! `on_input` called (none consumes), against a plain-Lua loop that builds the same action
//! tables and calls the same `on_input` functions (baseline, same run; target within 3×).
mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::game::World;
use sinew::game::input::{InputState, RawEvent};
use sinew::project::input::{Input, parse_binding};
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;

const OBJECTS: usize = 1_000;
const KEYS: [&str; 10] = ["KEY_A", "KEY_B", "KEY_C", "KEY_D", "KEY_E", "KEY_F", "KEY_G", "KEY_H", "KEY_I", "KEY_J"];

const ON_INPUT: &str = r#"
function init(self) self.n = 0 end
function on_input(self, action_id, action)
  if action_id ~= nil then self.n = self.n + action.value + action.x * 0 end
  if self.n == 1 then _G.first_calls = (_G.first_calls or 0) + 1 end
end
"#;

const BASELINE: &str = r#"
local n, nactions = ...
local selves = {}
for i = 1, n do selves[i] = { n = 0 } end
local function on_input(self, action_id, action)
  if action_id ~= nil then self.n = self.n + action.value + action.x * 0 end
  if self.n == 1 then _G.first_calls = (_G.first_calls or 0) + 1 end
end
local ids = {}
for k = 1, nactions do ids[k] = "action" .. k end
return function()
  for k = 1, nactions do
    local action = { value = 1, pressed = false, released = false, repeated = false, x = 0, y = 0,
      screen_x = 0, screen_y = 0, dx = 0, dy = 0, screen_dx = 0, screen_dy = 0 }
    local id = ids[k]
    for i = n, 1, -1 do
      if on_input(selves[i], id, action) == true then break end
    end
  end
  return selves[1].n
end
"#;

fn game() -> (ScriptHost, Rc<RefCell<World>>) {
    let (host, world) = common::scripted_world("input", OBJECTS, ON_INPUT, |_| ());
    let rows: Vec<String> =
        KEYS.iter().enumerate().map(|(i, k)| format!(r#"{{ "input": "{k}", "action": "action{i}" }}"#)).collect();
    let binding =
        parse_binding("/bench.input_binding", &format!(r#"{{ "key": [ {} ] }}"#, rows.join(", "))).expect("binding");
    {
        let w = &mut *world.borrow_mut();
        w.input = InputState::new(&binding, (960, 540), 0.5, 0.2);
        for slot in 0..OBJECTS as u32 {
            w.input.focus.acquire(slot);
        }
        for k in KEYS {
            w.input.feed(&RawEvent::Key { input: Input::from_name(k).expect("key"), down: true });
        }
    }
    (host, world)
}

fn bench_dispatch(c: &mut Criterion) {
    let mut g = c.benchmark_group("input_dispatch_1000_objects_10_actions");
    let (mut host, world) = game();
    g.bench_function("sinew", |b| b.iter(|| sinew::game::input::deliver(&world, &mut host, 1.0 / 60.0)));
    assert_eq!(world.borrow().input.frame.len(), KEYS.len(), "ten actions held");
    assert_eq!(host.error_count(), 0);
    // Every object's on_input ran (each counts its first call once).
    let calls: f64 = host.lua().load("return _G.first_calls").eval().expect("on_input ran");
    assert_eq!(calls, OBJECTS as f64);

    // SAFETY: the baseline needs nothing unsafe, but uses the same JIT-enabled state kind.
    let lua = unsafe { mlua::Lua::unsafe_new() };
    let frame: mlua::Function = lua.load(BASELINE).call((OBJECTS, KEYS.len())).expect("baseline");
    g.bench_function("plain_lua_loop", |b| b.iter(|| frame.call::<f64>(()).expect("frame")));
    g.finish();
    // The figure line scripts/bench.sh reads: both sides in turns, 21 runs of 50 frames each,
    // the ratio of the medians.
    let mut runs = (Vec::new(), Vec::new());
    for _ in 0..21 {
        let t = std::time::Instant::now();
        for _ in 0..50 {
            sinew::game::input::deliver(&world, &mut host, 1.0 / 60.0);
        }
        runs.0.push(t.elapsed().as_secs_f64() * 1e6 / 50.0);
        let t = std::time::Instant::now();
        for _ in 0..50 {
            frame.call::<f64>(()).expect("frame");
        }
        runs.1.push(t.elapsed().as_secs_f64() * 1e6 / 50.0);
    }
    runs.0.sort_by(f64::total_cmp);
    runs.1.sort_by(f64::total_cmp);
    let (sinew, plain) = (runs.0[10], runs.1[10]);
    eprintln!(
        "input_dispatch: sinew median {sinew:.1} µs, plain Lua loop median {plain:.1} µs per frame: {:.2}x (target within 3x)",
        sinew / plain
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench_dispatch
}
criterion_main!(benches);
