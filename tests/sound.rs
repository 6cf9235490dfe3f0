//! Sound (engine.md section 5, docs/sound.md) heard through `--audio-out`: every test makes its
//! sounds with the repo's own generator, runs a project headless at a fixed dt and measures the
//! WAV file the mixer wrote against the formulas of docs/sound.md.
mod common;
use common::*;
use sinew::game::sound::mixer::{BLOCK, RATE};
use sinew::project::sound::{SoundData, decode, encode_wav_float, encode_wav16, tone};
use std::f32::consts::{FRAC_PI_4, SQRT_2};

/// 1/50 s: 960 output frames per game frame, exactly.
const DT: &str = "0.02";
const FRAME: usize = 960;

/// A project with one object `speaker` holding a script and the given sound components (JSON
/// objects), the sound files `sounds` (path, WAV bytes) and the script's source.
fn sound_project(tag: &str, components: &str, script: &str, sounds: &[(&str, Vec<u8>)]) -> TempDir {
    let collection = format!(
        r#"{{ "name": "main", "objects": [ {{ "id": "speaker", "components": [
            {{ "id": "script", "type": "script", "script": "/main/s.script" }}, {components} ] }} ] }}"#
    );
    let p = project(
        tag,
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            ("/main/main.collection", &collection),
            ("/main/s.script", script),
        ],
    );
    for (path, bytes) in sounds {
        let f = p.path().join(path.trim_start_matches('/'));
        std::fs::create_dir_all(f.parent().expect("parent")).expect("mkdir");
        std::fs::write(f, bytes).expect("write sound");
    }
    p
}

/// Runs `frames` frames and returns the mix and the run's output.
fn listen(p: &TempDir, frames: u32) -> (SoundData, Run) {
    let out = p.path().join("out.wav");
    let dir = p.path().to_str().expect("utf-8");
    let frames = frames.to_string();
    let args = [
        "run",
        dir,
        "--headless",
        "--size",
        "32x32",
        "--no-watch",
        "--frames",
        &frames,
        "--fixed-dt",
        DT,
        "--audio-out",
    ];
    let mut args = args.to_vec();
    args.push(out.to_str().expect("utf-8"));
    let r = sinew(&args);
    assert_eq!(r.status, 0, "{}", r.show());
    let bytes = std::fs::read(&out).expect("the audio file");
    let d = decode("/out.wav", &bytes).expect("a WAV file");
    assert_eq!((d.rate, d.channels), (RATE, 2));
    (d, r)
}

fn rms(samples: impl Iterator<Item = f32>) -> f32 {
    let (mut s, mut n) = (0.0f64, 0usize);
    for x in samples {
        s += (x as f64) * (x as f64);
        n += 1;
    }
    (s / n.max(1) as f64).sqrt() as f32
}

fn channel(d: &SoundData, c: usize, range: std::ops::Range<usize>) -> impl Iterator<Item = f32> + '_ {
    range.map(move |i| d.frame(i)).map(move |(l, r)| if c == 0 { l } else { r })
}

const PLAY_ON_INIT: &str = r##"
function init(self) msg.post("#tone", "play_sound", { gain = 0.5 }) end
"##;

#[test]
fn a_440_hz_tone_at_gain_half_has_the_expected_rms() {
    let amplitude = 0.8;
    let wav = encode_wav_float(RATE, 1, &tone(RATE, 440.0, 1.0, amplitude));
    let p = sound_project(
        "sound_rms",
        r#"{ "id": "tone", "type": "sound", "sound": "/sounds/tone.wav" }"#,
        PLAY_ON_INIT,
        &[("/sounds/tone.wav", wav)],
    );
    let (d, _) = listen(&p, 30);
    assert_eq!(d.frames(), 30 * FRAME, "exactly a frame's worth of samples per frame");
    // A sine's RMS is amplitude/√2; gain 0.5; a centred mono source is cos(π/4) each side.
    let want = amplitude / SQRT_2 * 0.5 * FRAC_PI_4.cos();
    for c in 0..2 {
        let got = rms(channel(&d, c, 0..d.frames()));
        assert!((got - want).abs() / want < 0.01, "channel {c}: rms {got}, expected {want}");
    }
}

#[test]
fn a_delay_lands_on_its_sample_frame() {
    let wav = encode_wav16(RATE, 1, &vec![0.5; 2000]);
    let p = sound_project(
        "sound_delay",
        r#"{ "id": "click", "type": "sound", "sound": "/sounds/click.wav" }"#,
        r##"function init(self) msg.post("#click", "play_sound", { delay = 0.1 }) end"##,
        &[("/sounds/click.wav", wav)],
    );
    let (d, _) = listen(&p, 20);
    let first = (0..d.frames()).find(|&i| d.frame(i).0 != 0.0).expect("the click is heard");
    let last = (0..d.frames()).rfind(|&i| d.frame(i).0 != 0.0).expect("the click is heard");
    assert_eq!((first, last), (4800, 4800 + 1999), "0.1 s at 48 kHz, then 2000 frames");
}

#[test]
fn pan_follows_the_constant_power_law() {
    let wav = encode_wav_float(RATE, 1, &vec![0.5; RATE as usize]);
    let p = sound_project(
        "sound_pan",
        r#"{ "id": "dc", "type": "sound", "sound": "/sounds/dc.wav", "pan": 0.5 }"#,
        r##"function init(self) msg.post("#dc", "play_sound", { gain = 0.8 }) end"##,
        &[("/sounds/dc.wav", wav)],
    );
    let (d, _) = listen(&p, 5);
    let theta = (0.5f32 + 1.0) * FRAC_PI_4;
    let (l, r) = d.frame(100);
    assert!((l - 0.5 * 0.8 * theta.cos()).abs() < 1e-5, "left {l}");
    assert!((r - 0.5 * 0.8 * theta.sin()).abs() < 1e-5, "right {r}");
    assert!((l * l + r * r - 0.16).abs() < 1e-5, "constant power: (0.5·0.8)²");
}

#[test]
fn a_loop_is_seamless() {
    // 480 samples are exactly one period of 100 Hz: looped, it must be the endless sine.
    let period = tone(RATE, 100.0, 0.01, 0.9);
    assert_eq!(period.len(), 480);
    let p = sound_project(
        "sound_loop",
        r#"{ "id": "hum", "type": "sound", "sound": "/sounds/hum.wav", "looping": true, "pan": -1 }"#,
        r##"function init(self) msg.post("#hum", "play_sound") end"##,
        &[("/sounds/hum.wav", encode_wav_float(RATE, 1, &period))],
    );
    let (d, _) = listen(&p, 10);
    assert_eq!(d.frames(), 10 * FRAME);
    let mut worst = 0.0f32;
    for i in 0..d.frames() {
        let ideal = period[i % 480];
        worst = worst.max((d.frame(i).0 - ideal).abs());
    }
    assert!(worst < 1e-6, "differs from the continuous tone by {worst} (a seam)");
    let step = (1..d.frames()).map(|i| (d.frame(i).0 - d.frame(i - 1).0).abs()).fold(0.0, f32::max);
    let slope = 0.9 * std::f32::consts::TAU * 100.0 / RATE as f32;
    assert!(step <= slope * 1.001, "largest step {step} exceeds the sine's slope {slope}");
}

#[test]
fn stop_ends_the_sound_within_one_mix_block_and_reports_sound_stopped_once() {
    let wav = encode_wav_float(RATE, 1, &vec![0.5; RATE as usize]);
    let script = r##"
function init(self) self.frame = 0; self.stopped = 0; self.done = 0
  msg.post("#a", "play_sound", { play_id = 1 }) end
function update(self)
  self.frame = self.frame + 1
  if self.frame == 3 then msg.post("#a", "stop_sound") end
  if self.frame == 8 then print("stopped " .. self.stopped .. " done " .. self.done) end
end
function on_message(self, id, message)
  if id == hash("sound_stopped") then self.stopped = self.stopped + 1 end
  if id == hash("sound_done") then self.done = self.done + 1 end
end
"##;
    let p = sound_project(
        "sound_stop",
        r#"{ "id": "a", "type": "sound", "sound": "/sounds/a.wav", "looping": true }"#,
        script,
        &[("/sounds/a.wav", wav)],
    );
    let (d, r) = listen(&p, 9);
    // Posted in frame 3's update: heard through frame 2, stopped within frame 3's first block.
    let from = 2 * FRAME;
    let last = (0..d.frames()).rfind(|&i| d.frame(i).0 != 0.0).expect("heard");
    assert!(last >= from && last < from + BLOCK, "last sample {last}, stop at {from}");
    assert!(r.stdout.contains("stopped 1 done 0"), "{}", r.show());
}

#[test]
fn sound_done_arrives_once() {
    let wav = encode_wav_float(RATE, 1, &vec![0.25; 1000]);
    let script = r##"
function init(self) self.frame = 0; self.done = 0; self.id = nil
  msg.post("#a", "play_sound", { play_id = 7 }) end
function update(self)
  self.frame = self.frame + 1
  if self.frame == 6 then print("done " .. self.done .. " id " .. tostring(self.id)) end
end
function on_message(self, id, message, sender)
  if id == hash("sound_done") then self.done = self.done + 1; self.id = message.play_id end
end
"##;
    let p = sound_project(
        "sound_done",
        r#"{ "id": "a", "type": "sound", "sound": "/sounds/a.wav" }"#,
        script,
        &[("/sounds/a.wav", wav)],
    );
    let (_, r) = listen(&p, 7);
    assert!(r.stdout.contains("done 1 id 7"), "{}", r.show());
}

#[test]
fn a_broken_sound_file_is_refused_with_its_path() {
    let mut wav = encode_wav16(RATE, 1, &[0.1; 16]);
    wav[22..24].copy_from_slice(&0u16.to_le_bytes());
    let p = sound_project(
        "sound_broken",
        r#"{ "id": "a", "type": "sound", "sound": "/sounds/bad.wav" }"#,
        "",
        &[("/sounds/bad.wav", wav)],
    );
    let r = run_project(p.path(), 2, &[]);
    assert_ne!(r.status, 0, "{}", r.show());
    assert!(r.stderr.contains("/sounds/bad.wav"), "{}", r.show());
}

#[test]
fn the_ogg_vorbis_fixture_decodes_to_its_tone() {
    let d = decode("/tone.ogg", include_bytes!("data/sound/tone.ogg")).expect("decodes");
    assert_eq!((d.rate, d.channels), (22050, 2));
    assert!((4400..=4410).contains(&d.frames()), "{} frames", d.frames());
    // Away from the edges (the codec's windows), left is a 0.5 sine and right half of it.
    let mid = 1000..3400;
    let (l, r) = (rms(channel(&d, 0, mid.clone())), rms(channel(&d, 1, mid)));
    assert!((l - 0.5 / SQRT_2).abs() < 0.01, "left rms {l}");
    assert!((r / l - 0.5).abs() < 0.02, "right/left {}", r / l);
}

#[test]
fn lua_api_sound() {
    let p = committed("api_sound");
    std::fs::create_dir_all(p.path().join("sounds")).expect("mkdir");
    std::fs::write(p.path().join("sounds/beep.wav"), encode_wav16(RATE, 1, &vec![0.5; 2400])).expect("beep");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "api_sound");
}

/// Defold games keep their sounds in the main collection and play them from proxied ones
/// (`sound.play("main:/sound#music")`, `sound.stop("main:/sound")`): Defold's sound functions post
/// a message, which reaches another collection and, sent to an object, each of its components.
#[test]
fn sound_functions_reach_another_collection_and_every_sound_of_an_object() {
    let p = committed("sound_proxy");
    std::fs::create_dir_all(p.path().join("sounds")).expect("mkdir");
    std::fs::write(p.path().join("sounds/tone.wav"), encode_wav16(RATE, 1, &vec![0.5; 2400])).expect("tone");
    let r = run_project(p.path(), 10, &[]);
    assert_lua_passed(&r, "sound_proxy");
}

#[test]
fn group_gains_multiply_with_master_and_ramp_without_a_click() {
    let dc = encode_wav_float(RATE, 1, &vec![0.5; RATE as usize]);
    let script = r##"
function init(self)
  self.frame = 0
  sound.set_group_gain("sfx", 0.5)
  sound.set_group_gain("master", 0.8)
  sound.play("#left")
  sound.play("#right")
end
function update(self)
  self.frame = self.frame + 1
  if self.frame == 3 then sound.set_group_gain("sfx", 1) end
end
"##;
    let p = sound_project(
        "sound_groups",
        r#"{ "id": "left", "type": "sound", "sound": "/s/dc.wav", "group": "sfx", "pan": -1 },
           { "id": "right", "type": "sound", "sound": "/s/dc.wav", "pan": 1 }"#,
        script,
        &[("/s/dc.wav", dc)],
    );
    let (d, _) = listen(&p, 5);
    let (l, r) = d.frame(100);
    assert!((l - 0.5 * 0.5 * 0.8).abs() < 1e-6, "sfx: sound × group × master, got {l}");
    assert!((r - 0.5 * 0.8).abs() < 1e-6, "master's own sound gets master once, got {r}");
    // Raised in frame 3: a ramp over the first block of frame 3, then the new level.
    let at = 2 * FRAME;
    assert!((d.frame(at + BLOCK).0 - 0.5 * 0.8).abs() < 1e-6, "{}", d.frame(at + BLOCK).0);
    let step = (1..d.frames()).map(|i| (d.frame(i).0 - d.frame(i - 1).0).abs()).fold(0.0, f32::max);
    assert!(step <= 0.2 / BLOCK as f32 * 1.01, "largest step {step}: the change clicked");
}

/// A positional source moving along x past a listener at the origin: each frame's level is the
/// curve of docs/sound.md, and no sample jumps.
#[test]
fn a_positional_source_follows_the_stated_curve_without_clicks() {
    let dc = encode_wav_float(RATE, 1, &vec![0.5; RATE as usize]);
    let collection = r#"{ "name": "main", "objects": [
        { "id": "mover", "components": [ { "id": "script", "type": "script", "script": "/main/s.script" } ] },
        { "id": "src", "position": [-14, 0, 0], "components": [
            { "id": "hum", "type": "sound", "sound": "/s/dc.wav", "looping": true, "spatial": true,
              "min_distance": 2, "max_distance": 12 } ] } ] }"#;
    let script = r##"
function init(self) self.x = -14; sound.play("/src#hum") end
function update(self)
  self.x = self.x + 1
  go.set_position(vmath.vector3(self.x, 0, 0), "/src")
end
"##;
    let p = project(
        "sound_spatial",
        &[
            ("/project.json", r#"{ "main_collection": "/main/main.collection" }"#),
            ("/main/main.collection", collection),
            ("/main/s.script", script),
        ],
    );
    std::fs::create_dir_all(p.path().join("s")).expect("mkdir");
    std::fs::write(p.path().join("s/dc.wav"), dc).expect("write");
    let (d, _) = listen(&p, 28);
    for f in 0..28 {
        // Frame f (0-based) mixes with the source at x = -13 + f, reached by its last sample.
        let x = -13.0 + f as f32;
        let dist = x.abs();
        let g = ((12.0 - dist) / (12.0 - 2.0)).clamp(0.0, 1.0);
        let pan = (x / dist.max(2.0)).clamp(-1.0, 1.0);
        let theta = (pan + 1.0) * FRAC_PI_4;
        let (l, r) = d.frame((f + 1) * FRAME - 1);
        assert!((l - 0.5 * g * theta.cos()).abs() < 1e-5, "frame {f}, x {x}: left {l}");
        assert!((r - 0.5 * g * theta.sin()).abs() < 1e-5, "frame {f}, x {x}: right {r}");
    }
    for c in 0..2 {
        let at = |i: usize| if c == 0 { d.frame(i).0 } else { d.frame(i).1 };
        let step = (1..d.frames()).map(|i| (at(i) - at(i - 1)).abs()).fold(0.0, f32::max);
        assert!(step < 0.5 / BLOCK as f32, "channel {c}: a step of {step} (a click)");
    }
}

/// Saving a sound file reloads it for the next plays; a broken save keeps the previous sound and
/// says so. A 0.05 s sound played every 0.1 s, its peak read over the last 0.1 s.
#[test]
fn a_saved_sound_reloads_and_a_broken_one_keeps_the_previous() {
    let script = r##"
function init(self) self.n = 0 end
function update(self)
  self.n = self.n + 1
  if self.n % 50 == 0 then
    print(string.format("tick %d peak %.3f", self.n, sound.get_peak("master", 0.1)))
    sound.play("#a")
  end
end
"##;
    let p = sound_project(
        "sound_reload",
        r#"{ "id": "a", "type": "sound", "sound": "/s/a.wav" }"#,
        script,
        &[("/s/a.wav", encode_wav_float(RATE, 1, &vec![0.5; 2400]))],
    );
    let dir = p.path().to_str().expect("utf-8");
    let mut r = spawn_sinew(&["run", dir, "--headless", "--size", "32x32", "--fixed-dt", "0.002"]);
    let limit = std::time::Duration::from_secs(20);
    let loud = format!("peak {:.3}", 0.5 * FRAC_PI_4.cos());
    let soft = format!("peak {:.3}", 0.25 * FRAC_PI_4.cos());
    r.wait_for_stdout(&loud, limit);
    // Saved whole (through a rename, as editors save): a watcher that reads a half-written file
    // would keep the loud sound as "the previous version", and this test would wait in vain.
    let tmp = p.path().join("s/a.wav.part");
    std::fs::write(&tmp, encode_wav_float(RATE, 1, &vec![0.25; 2400])).expect("save");
    std::fs::rename(&tmp, p.path().join("s/a.wav")).expect("rename");
    r.wait_for_stdout(&soft, limit);
    let mut broken = encode_wav16(RATE, 1, &[0.9; 64]);
    broken[22..24].copy_from_slice(&0u16.to_le_bytes());
    std::fs::write(p.path().join("s/a.wav"), broken).expect("broken save");
    // Many plays once the broken save was refused: all still the soft sound. (Counted from the
    // refusal, not from the save: a run going flat out on a loaded machine plays twenty times
    // before the watcher reports the save.)
    r.wait_for_stderr("previous version of /s/a.wav", limit);
    let seen = r.stdout_so_far().len();
    let start = std::time::Instant::now();
    while r.stdout_so_far()[seen..].lines().filter(|l| l.contains("peak")).count() < 20 && start.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    r.signal("TERM");
    let run = r.finish_within(limit);
    assert!(run.stderr.contains("/s/a.wav: ") && run.stderr.contains("previous version of /s/a.wav"), "{}", run.show());
    let after: Vec<&str> = run.stdout[seen..].lines().filter(|l| l.contains("peak")).collect();
    assert!(after.len() >= 20, "{}", run.show());
    let last = after[after.len() - 1];
    assert!(last.ends_with(&soft), "the broken save replaced the sound: {last}");
}

#[test]
fn the_demo_sounds_are_what_the_generator_writes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content/sounds");
    for (name, bytes) in sinew::project::sound::demo_sounds() {
        let committed = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(committed == bytes, "content/sounds/{name} differs from the generator: run scripts/gen-assets.sh");
    }
}

/// The demo's mix (wind under its group gain, footsteps, chimes) is the same file on every run
/// with `--fixed-dt`, and is heard.
#[test]
fn the_demo_mix_is_deterministic_and_heard() {
    let t = TempDir::new("sound_demo");
    let mix = |name: &str| {
        let out = t.path().join(name);
        let args =
            ["run", "--headless", "--size", "32x32", "--frames", "200", "--fixed-dt", "0.0166667", "--audio-out"];
        let mut args = args.to_vec();
        args.push(out.to_str().expect("utf-8"));
        let r = sinew(&args);
        assert_eq!(r.status, 0, "{}", r.show());
        std::fs::read(out).expect("audio file")
    };
    let (a, b) = (mix("a.wav"), mix("b.wav"));
    assert!(a == b, "two runs mixed different samples");
    let d = decode("/a.wav", &a).expect("wav");
    let level = rms(channel(&d, 0, 0..d.frames()));
    assert!(level > 0.01, "the demo is silent (rms {level})");
}

/// Mixes one voice alone, `frames` output frames at a time as the world does (a streamed
/// voice refilled before each mix), until it ends or `limit` frames; returns the left channel
/// and the most frames its window held.
fn mix_alone(mut v: sinew::game::sound::mixer::Voice, frames: usize, limit: usize) -> (Vec<f32>, usize) {
    use sinew::game::sound::mixer::{Buses, mix};
    let mut buses = Box::<Buses>::default();
    let (mut left, mut widest) = (Vec::new(), 0);
    let mut out = vec![0.0f32; frames * 2];
    while left.len() < limit && !v.finished() {
        assert_eq!(v.refill(frames), None, "the stream decodes");
        widest = widest.max(v.stream.as_ref().map_or(0, |s| s.frames()));
        out.fill(0.0);
        mix(std::slice::from_mut(&mut v), &[1.0], &mut buses, &mut out);
        left.extend(out.chunks_exact(2).map(|f| f[0]));
    }
    (left, widest)
}

#[test]
fn a_long_ogg_is_streamed_and_mixes_as_the_decoded_sound() {
    use sinew::game::sound::mixer::Voice;
    use sinew::project::sound::{STREAM_ABOVE_SECONDS, decode_streaming_above};
    use std::sync::Arc;
    // 35 s of 440 Hz, mono at 8 kHz (tests/data/sound/README.md): above the streaming length.
    let bytes = include_bytes!("data/sound/long_tone.ogg");
    let streamed = decode("/long.ogg", bytes).expect("streams");
    let s = streamed.streamed.as_ref().expect("a long Ogg file is streamed");
    assert!(streamed.samples.is_empty(), "nothing decoded up front");
    assert_eq!(s.frames, 35 * 8000, "its length from the last page");
    assert!(s.frames > STREAM_ABOVE_SECONDS * 8000);
    let whole = decode_streaming_above("/long.ogg", bytes, u64::MAX).expect("decodes whole");
    assert!(whole.streamed.is_none());
    assert_eq!(whole.frames(), streamed.frames());
    // Resampled (8 kHz and a speed), 20 s of it in game frames of 960.
    let voice = |d: &SoundData| {
        let mut v = Voice::new(1, Arc::new(d.clone()), 0);
        v.set_speed(1.37);
        v
    };
    let (a, widest) = mix_alone(voice(&streamed), 960, 20 * RATE as usize);
    let (b, _) = mix_alone(voice(&whole), 960, 20 * RATE as usize);
    assert_eq!(a.len(), b.len());
    let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
    assert!(worst < 1e-5, "streamed and decoded differ by {worst}");
    // A 0.5 sine (rms 0.354) through the mono pan law's centre (cos 45°).
    let heard = rms(a[RATE as usize..].iter().copied());
    assert!((heard - 0.25).abs() < 0.01, "rms {heard}");
    // What a play holds: a game frame's worth and a Vorbis packet, not the sound.
    assert!(widest < 4096, "the window grew to {widest} frames");
}

#[test]
fn a_streamed_loop_is_seamless_and_counts_its_plays_as_the_decoded_one() {
    use sinew::game::sound::mixer::Voice;
    use sinew::project::sound::decode_streaming_above;
    use std::sync::Arc;
    let bytes = include_bytes!("data/sound/tone.ogg");
    let streamed = decode_streaming_above("/tone.ogg", bytes, 0).expect("streams");
    assert!(streamed.streamed.is_some(), "0 s streams every Ogg file (Defold's stream_enabled)");
    let whole = decode("/tone.ogg", bytes).expect("decodes");
    for loopcount in [3, 0] {
        let voice = |d: &SoundData| {
            let mut v = Voice::new(1, Arc::new(d.clone()), 0);
            v.looping = true;
            v.plays_left = loopcount;
            v
        };
        let limit = 5 * whole.frames() * 48_000 / 22_050;
        let (a, _) = mix_alone(voice(&streamed), 800, limit);
        let (b, _) = mix_alone(voice(&whole), 800, limit);
        // The positions add up in different magnitudes (a window's frames, the sound's), so the
        // last fraction of a frame may round to one output frame more on one side.
        let last = |x: &[f32]| x.iter().rposition(|&s| s != 0.0).expect("heard");
        assert!(last(&a).abs_diff(last(&b)) <= 1, "loopcount {loopcount}: ends {} and {}", last(&a), last(&b));
        let worst = a.iter().zip(&b).take(last(&a).min(last(&b))).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(worst < 1e-5, "loopcount {loopcount}: streamed and decoded differ by {worst}");
        let heard = last(&a) + 1;
        let one = whole.frames() as f64 * 48_000.0 / 22_050.0;
        if loopcount == 3 {
            assert!((heard as f64 - 3.0 * one).abs() < 3.0, "3 plays: {heard} frames, one is {one:.1}");
        } else {
            assert!(heard as f64 > 4.5 * one, "0 loops until stopped: {heard} frames");
        }
    }
}

#[test]
fn an_ogg_claiming_hours_in_its_last_page_is_refused() {
    let mut bytes = include_bytes!("data/sound/tone.ogg").to_vec();
    let at = bytes.windows(4).rposition(|w| w == b"OggS").expect("a last page");
    bytes[at + 6..at + 14].copy_from_slice(&(3u64 * 3600 * 22_050).to_le_bytes());
    let e = decode("/liar.ogg", &bytes).expect_err("refused").to_string();
    assert!(e.contains("/liar.ogg") && e.contains("samples per byte"), "{e}");
}

#[test]
fn loopcount_plays_a_looping_sound_that_many_times_then_sound_done() {
    let period = tone(RATE, 100.0, 0.01, 0.9);
    let script = r##"
function init(self) self.frame = 0; self.done = 0
  msg.post("#hum", "play_sound", { play_id = 1 }) end
function update(self)
  self.frame = self.frame + 1
  if self.frame == 4 then print("done " .. self.done) end
end
function on_message(self, id) if id == hash("sound_done") then self.done = self.done + 1 end end
"##;
    let p = sound_project(
        "sound_loopcount",
        r#"{ "id": "hum", "type": "sound", "sound": "/sounds/hum.wav", "looping": true, "loopcount": 3 }"#,
        script,
        &[("/sounds/hum.wav", encode_wav_float(RATE, 1, &period))],
    );
    let (d, r) = listen(&p, 5);
    let heard = (0..d.frames()).rfind(|&i| d.frame(i).0 != 0.0).expect("heard") + 1;
    // Three periods of 480 frames, the last sample of each period being near zero.
    assert!((1430..=1440).contains(&heard), "heard {heard} frames, three plays are 1440");
    assert!(r.stdout.contains("done 1"), "{}", r.show());
}
