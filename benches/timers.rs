//! Benchmark of issue 12.2 (timers): the timer pass of one frame with 10,000 live timers made
//! from Lua, (a) repeating with delays spread over 0.5–5 s, so a few dozen fire each frame, and
//! (b) all with delay 0, so every one fires every frame (the worst case: one callback each).
mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use sinew::game::{ScriptHooks, World};
use sinew::script::ScriptHost;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

const TIMERS: usize = 10_000;
const DT: f32 = 1.0 / 60.0;

/// 100 objects × 100 timers; FIRED counts the callbacks so the bench can check they ran.
const SCRIPT: &str = r#"
_G.FIRED = 0
local n = 0
function init(self)
  for i = 1, 100 do
    n = n + 1
    local delay = ALL_DUE and 0 or 0.5 + (n % 451) * 0.01
    timer.delay(delay, true, function() _G.FIRED = _G.FIRED + 1 end)
  end
end
"#;

fn game(all_due: bool) -> (ScriptHost, Rc<RefCell<World>>) {
    let tag = if all_due { "timers-due" } else { "timers" };
    let (host, world) = common::scripted_world(tag, TIMERS / 100, SCRIPT, |h| {
        h.lua().globals().set("ALL_DUE", all_due).expect("global");
    });
    assert_eq!(host.error_count(), 0);
    (host, world)
}

/// One frame's script phases that timers depend on: `update` (which starts the frame for the
/// timers) is run but not timed; the timer pass is.
fn frame(host: &mut ScriptHost) -> Duration {
    host.update(DT);
    let t = Instant::now();
    host.timers(DT);
    t.elapsed()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("timers_frame_10k");
    for (name, all_due) in [("spread_0.5_to_5s", false), ("all_due_every_frame", true)] {
        let (mut host, _world) = game(all_due);
        g.bench_function(name, |b| b.iter_custom(|iters| (0..iters).map(|_| frame(&mut host)).sum()));
        let before: f64 = host.lua().globals().get("FIRED").expect("FIRED");
        let mut t: Vec<f64> = (0..600).map(|_| frame(&mut host).as_secs_f64() * 1e6).collect();
        let fired: f64 = host.lua().globals().get::<f64>("FIRED").expect("FIRED") - before;
        t.sort_by(f64::total_cmp);
        eprintln!(
            "timers {name}: best {:.1} µs, median {:.1} µs per frame ({TIMERS} live timers, {:.0} callbacks per frame)",
            t[0],
            t[300],
            fired / 600.0
        );
        assert!(fired > 0.0, "the timers really fired");
        if all_due {
            assert_eq!(fired, 600.0 * TIMERS as f64);
        }
        assert_eq!(host.error_count(), 0);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
