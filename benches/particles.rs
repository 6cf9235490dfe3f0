//! Particle effects: 100 looping effects of one emitter each, 10,000 particles alive in steady
//! state (600 born a second per emitter, living 1/6 s... 100 at most each), pulled by an
//! acceleration and a drag modifier. One frame is the particle pass (spawn, modifiers, move,
//! deaths) and the quads the renderer gets. Target: at most 1 ms per frame (a tenth of a
//! 60 Hz frame on these machines for a screenful of effects).
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use sinew::game::particles::ParticleWorld;
use sinew::game::sprites::quads::SpriteQuad;
use sinew::project::ComponentTransform;
use sinew::project::particlefx::{ParticleFxComponent, parse};
use sinew::project::sprite::Atlas;
use sinew::scene::Scene;
use std::sync::Arc;
use std::time::{Duration, Instant};

const EFFECTS: usize = 100;
const DT: f32 = 1.0 / 60.0;

const EFFECT: &str = r#"emitters {
  id: "spark"
  mode: PLAY_MODE_LOOP
  duration: 1.0
  space: EMISSION_SPACE_WORLD
  tile_source: "/a.atlas"
  animation: "dot"
  material: "/builtins/materials/particlefx.material"
  max_particle_count: 100
  type: EMITTER_TYPE_CIRCLE
  properties { key: EMITTER_KEY_SPAWN_RATE points { y: 600.0 } }
  properties { key: EMITTER_KEY_SIZE_X points { y: 20.0 } }
  properties { key: EMITTER_KEY_PARTICLE_LIFE_TIME points { y: 1.0 } spread: 0.2 }
  properties { key: EMITTER_KEY_PARTICLE_SPEED points { y: 100.0 } spread: 20.0 }
  properties { key: EMITTER_KEY_PARTICLE_SIZE points { y: 8.0 } }
  properties { key: EMITTER_KEY_PARTICLE_RED points { y: 1.0 } }
  properties { key: EMITTER_KEY_PARTICLE_GREEN points { y: 0.5 } }
  properties { key: EMITTER_KEY_PARTICLE_ALPHA points { y: 1.0 } }
  particle_properties { key: PARTICLE_KEY_SCALE points { y: 1.0 t_x: 1.0 } points { x: 1.0 y: 0.0 t_x: 1.0 } }
  particle_properties { key: PARTICLE_KEY_ALPHA points { y: 1.0 t_x: 1.0 } points { x: 1.0 y: 0.0 t_x: 1.0 } }
  modifiers {
    type: MODIFIER_TYPE_ACCELERATION
    properties { key: MODIFIER_KEY_MAGNITUDE points { y: -200.0 } }
  }
  modifiers {
    type: MODIFIER_TYPE_DRAG
    properties { key: MODIFIER_KEY_MAGNITUDE points { y: 0.5 } }
  }
}
"#;

fn setup() -> (ParticleWorld, Scene) {
    let atlas = Arc::new(Atlas::one_frame("dot", false));
    let spec = parse("/bench.particlefx", EFFECT, &mut |_, _| Ok(atlas.clone())).expect("effect");
    let fx = ParticleFxComponent { effect: Arc::new(spec), transform: ComponentTransform::IDENTITY };
    let mut scene = Scene::new();
    let prefix = scene.intern_prefix("/");
    let mut world = ParticleWorld::default();
    for i in 0..EFFECTS {
        let at = Vec3::new((i % 10) as f32 * 100.0, (i / 10) as f32 * 100.0, 0.0);
        let slot = scene.spawn(&format!("/fx{i}"), prefix, at, Quat::IDENTITY, Vec3::ONE).expect("spawn");
        let k = world.create(slot, "fx", &fx, &mut |_| 0, &mut |_| Ok(None)).expect("effect");
        world.play(k, None);
    }
    scene.update_world_transforms();
    // Two seconds: every emitter at its steady state.
    for _ in 0..120 {
        world.step(&scene, DT);
    }
    (world, scene)
}

fn frame(world: &mut ParticleWorld, scene: &Scene, out: &mut Vec<SpriteQuad>) -> Duration {
    let t = Instant::now();
    world.step(scene, DT);
    out.clear();
    world.quads(scene, out);
    t.elapsed()
}

fn bench(c: &mut Criterion) {
    let (mut world, scene) = setup();
    let mut out = Vec::new();
    let mut times: Vec<f64> = (0..300).map(|_| frame(&mut world, &scene, &mut out).as_secs_f64() * 1e3).collect();
    times.sort_by(f64::total_cmp);
    let alive: usize = world.instances.iter().map(|p| p.count()).sum();
    let median = times[times.len() / 2];
    eprintln!(
        "particles_10000: {median:.3} ms per frame (median of 300; spawn, modifiers, move and {} quads), {alive} particles alive, {:.1} ns per particle (target <= 1 ms)",
        out.len(),
        median * 1e6 / alive.max(1) as f64
    );
    if std::env::var_os("SINEW_BENCH_FIGURES_ONLY").is_some() {
        return;
    }
    c.bench_function("particles_10000_frame", |b| {
        b.iter_custom(|n| (0..n).map(|_| frame(&mut world, &scene, &mut out)).sum())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
