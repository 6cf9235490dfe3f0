//! Issue 12: `factory.create` + `go.delete` of one object, µs per pair, for a script-only object
//! and for an object with a skinned model (wiggler: bones as game objects, default animation).
//! Each pair is a whole life: spawned in one frame's update, `init` at the next frame's start,
//! deleted in that frame's update (`final`, its tween dropped) and removed at the frame's end.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::app::run::load_game;
use sinew::game;
use sinew::project::Resources;

/// Objects spawned (and deleted) per frame; the figure reported is per object.
const PER_FRAME: usize = 100;

const SPAWNER: &str = r##"
go.property("which", 1)
function init(self) self.live = {} end
function update(self, dt)
  go.delete(self.live)
  local url = self.which == 1 and "#mob_factory" or "#wiggler_factory"
  for i = 1, 100 do self.live[i] = factory.create(url) end
end
"##;

const MOB: &str = r#"
go.property("speed", 1)
function init(self) go.animate(".", "position.x", go.PLAYBACK_LOOP_PINGPONG, 1, go.EASING_LINEAR, 1) end
function update(self, dt) end
function final(self) end
"#;

fn project(which: u32) -> Resources {
    let dir = std::env::temp_dir().join(format!("sinew-bench-factory-{}-{which}", std::process::id()));
    let w = |rel: &str, text: &[u8]| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
        std::fs::write(p, text).expect("write");
    };
    w("project.json", br#"{ "main_collection": "/main/main.collection" }"#);
    let main = format!(
        r#"{{ "name": "main", "objects": [ {{ "id": "spawner", "components": [
  {{ "id": "script", "type": "script", "script": "/main/spawner.script", "properties": {{ "which": {which} }} }},
  {{ "id": "mob_factory", "type": "factory", "prototype": "/main/mob.go" }},
  {{ "id": "wiggler_factory", "type": "factory", "prototype": "/main/wiggler.go" }} ] }} ] }}"#
    );
    w("main/main.collection", main.as_bytes());
    w("main/spawner.script", SPAWNER.as_bytes());
    w("main/mob.script", MOB.as_bytes());
    w("main/mob.go", br#"{ "components": [ { "id": "script", "type": "script", "script": "/main/mob.script" } ] }"#);
    w(
        "main/wiggler.go",
        br#"{ "components": [ { "id": "model", "type": "model", "mesh": "/models/wiggler.glb", "default_animation": "wiggle" } ] }"#,
    );
    w("models/wiggler.glb", &sinew::project::gltf::samples::wiggler());
    Resources::open_dir(&dir).expect("resources")
}

fn bench_pairs(c: &mut Criterion) {
    let mut g = c.benchmark_group("factory_create_delete_x100");
    for (which, name) in [(1, "script_only"), (2, "skinned_model")] {
        let res = project(which);
        let mut game = load_game(&res, None).unwrap_or_else(|e| panic!("load: {e}"));
        let frame = |game: &mut sinew::app::run::Game| {
            game::update(&game.world, &mut game.scripts, 1.0 / 60.0, &mut |_, _| {});
            game::post_update(&game.world, &mut game.scripts);
        };
        frame(&mut game);
        g.bench_function(name, |b| b.iter(|| frame(&mut game)));
        // The figure line scripts/bench.sh reads: µs per pair, best and median of 15 runs of
        // 40 frames.
        let mut per_pair: Vec<f64> = (0..15)
            .map(|_| {
                let t = std::time::Instant::now();
                for _ in 0..40 {
                    frame(&mut game);
                }
                t.elapsed().as_secs_f64() * 1e6 / (40 * PER_FRAME) as f64
            })
            .collect();
        per_pair.sort_by(f64::total_cmp);
        eprintln!("factory_pair {name}: best {:.2} µs, median {:.2} µs per create + delete", per_pair[0], per_pair[7]);
        assert_eq!(game.scripts.error_count(), 0, "{name}: no script errors");
        let live = game.world.borrow().scene.live_count();
        assert!(live > PER_FRAME, "{name}: the objects were really spawned ({live} live)");
        let cap = game.world.borrow().scene.capacity();
        assert!(cap < 4 * live, "{name}: slots are reused ({cap} slots for {live} live)");
    }
    g.finish();
}

criterion_group!(benches, bench_pairs);
criterion_main!(benches);
