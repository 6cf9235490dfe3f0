//! Benchmark of issue 37: the mixing cost of one second of audio (60 frames of 1/60 s at 48 kHz)
//! with 64 voices playing looped mono tones, half of them resampled (speed 1.37, a 22.05 kHz
//! file) and positional (moving past the listener every frame), through the same calls a frame
//! makes: the positional pass, then the frame's mix. Target: at most 1% of one core, 10 ms per
//! second of audio. Prints one line, which `scripts/bench.sh` puts in its table:
//!   cargo bench --bench sound
use glam::{Quat, Vec3};
use sinew::game::sound::{Owner, PlayOptions, SoundWorld, spatial};
use sinew::project::Resources;
use sinew::project::sound::{SoundSpec, Spatial, encode_wav16, tone};
use sinew::scene::Scene;
use std::time::Instant;

const VOICES: usize = 64;
const DT: f32 = 1.0 / 60.0;
const SECONDS: usize = 20;

fn main() {
    let res = Resources::demo().with_overlay(vec![
        ("/a.wav".into(), encode_wav16(48_000, 1, &tone(48_000, 440.0, 2.0, 0.1))),
        ("/b.wav".into(), encode_wav16(22_050, 1, &tone(22_050, 330.0, 2.0, 0.1))),
    ]);
    let mut scene = Scene::new();
    let mut sounds = SoundWorld::default();
    let mut slots = Vec::new();
    for i in 0..VOICES {
        let moving = i % 2 == 1;
        let slot = scene.spawn(&format!("/o{i}"), 0, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE).expect("object");
        let spec = SoundSpec {
            sound: if moving { "/b.wav" } else { "/a.wav" }.into(),
            gain: 0.5,
            pan: 0.0,
            speed: if moving { 1.37 } else { 1.0 },
            looping: true,
            loopcount: 0,
            group: if moving { "sfx" } else { "master" }.into(),
            spatial: moving.then_some(Spatial { min_distance: 1.0, max_distance: 40.0 }),
        };
        let c = sounds.create(&res, slot, "s", &spec).expect("sound");
        sounds.play(c, PlayOptions::default(), Owner { script: 0, callback: 0, reply: None }).expect("play");
        slots.push((slot, moving));
    }
    let mut per_second = Vec::new();
    let mut t = 0.0f32;
    for _ in 0..SECONDS {
        let start = Instant::now();
        for _ in 0..60 {
            t += DT;
            for (k, &(slot, moving)) in slots.iter().enumerate() {
                if moving {
                    let x = ((t + k as f32) * 0.7).sin() * 30.0;
                    scene.position[slot as usize] = Vec3::new(x, 0.0, -2.0);
                }
            }
            scene.update_world_transforms();
            spatial::update(&mut sounds, &scene, None);
            sounds.mix_frame(DT);
        }
        per_second.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(sounds.voices.len(), VOICES, "every voice still playing");
    }
    per_second.sort_by(f64::total_cmp);
    let median = per_second[SECONDS / 2];
    println!(
        "sound_mix_64: median {median:.3} ms per second of audio ({:.2}% of one core; min {:.3}, max {:.3}; {VOICES} voices, half resampled and positional)",
        median / 10.0,
        per_second[0],
        per_second[SECONDS - 1]
    );
}
