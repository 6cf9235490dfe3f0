//! Particle effect components (docs/particles.md): the `particlefx` namespace from Lua, and a
//! broken `.particlefx` file reported with its path and position, every problem at once. The
//! picture of a Defold example's effect is in tests/defold.rs (fire and smoke).
mod common;
use common::*;

#[test]
fn lua_api_particlefx() {
    let p = committed("api_particlefx");
    let dir = p.path().to_str().expect("utf-8 path");
    let r = sinew(&["run", dir, "--headless", "--size", "64x48", "--frames", "14", "--fixed-dt", "0.016666668"]);
    assert!(!r.stderr.contains("ERROR"), "{}", r.show());
    assert_lua_passed(&r, "api_particlefx");
}

/// Unknown keys, a missing image and an animation the atlas lacks: each named with the file,
/// line and column, in one `sinew check`.
#[test]
fn a_broken_particlefx_file_is_reported_where_it_is_wrong() {
    let p = committed("api_particlefx");
    let broken = "emitters {\n  id: \"a\"\n  mode: PLAY_MODE_SOMETIMES\n  tile_source: \"/builtins/graphics/particle_blob.tilesource\"\n  animation: \"nope\"\n  max_particle_count: 16\n  type: EMITTER_TYPE_CIRCLE\n}\nemitters {\n  id: \"b\"\n  colour: 1\n  max_particle_count: 1000000\n}\n";
    p.write("/main/puff.particlefx", broken);
    let r = sinew(&["check", p.path().to_str().expect("utf-8 path")]);
    assert_ne!(r.status, 0, "{}", r.show());
    let out = format!("{}{}", r.stdout, r.stderr);
    for want in [
        "/main/puff.particlefx:3:9: `mode` must be one of PLAY_MODE_ONCE, PLAY_MODE_LOOP",
        "/main/puff.particlefx:5:14: emitter 'a': no animation 'nope'",
        "/main/puff.particlefx:11:3: unknown field `colour` in an emitter",
        "/main/puff.particlefx:10:3: an emitter needs `tile_source`",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

/// Defold varies a value by `spread × [-1, 1]` and takes a negative spread (a shipped game's
/// exhaust has `spread: -30.0`): the file loads, where Sinew once refused it.
#[test]
fn a_negative_spread_loads_as_defold_takes_it() {
    let p = committed("api_particlefx");
    let puff = std::fs::read_to_string(p.path().join("main/puff.particlefx")).expect("puff");
    let negative = puff.replace(
        "EMITTER_KEY_PARTICLE_SPEED points { y: 30.0 } }",
        "EMITTER_KEY_PARTICLE_SPEED points { y: 30.0 } spread: -30.0 }",
    );
    assert_ne!(negative, puff, "the speed curve is in the file");
    p.write("/main/puff.particlefx", &negative);
    let r = sinew(&["check", p.path().to_str().expect("utf-8 path")]);
    assert_eq!(r.status, 0, "{}", r.show());
}

/// An emitter may hold up to 100,000 particles (britzl's bunnymark asks for 15,000 and Defold
/// takes it); a number past that is refused where it is written, as a hostile size.
#[test]
fn an_emitter_takes_fifteen_thousand_particles_and_refuses_a_hostile_count() {
    let p = committed("api_particlefx");
    let puff = std::fs::read_to_string(p.path().join("main/puff.particlefx")).expect("puff");
    let dir = p.path().to_str().expect("utf-8 path");
    for (count, ok) in [("15000", true), ("100000", true), ("100001", false)] {
        let text = puff.replace("max_particle_count: 16", &format!("max_particle_count: {count}"));
        assert_ne!(text, puff, "the count is in the file");
        p.write("/main/puff.particlefx", &text);
        let r = sinew(&["check", dir]);
        assert_eq!(r.status == 0, ok, "{count}: {}", r.show());
        if !ok {
            let want = "/main/puff.particlefx:9:23: emitter 'puff': `max_particle_count` must be between 0 and 100000";
            assert!(r.stdout.contains(want) || r.stderr.contains(want), "{}", r.show());
        }
    }
}
