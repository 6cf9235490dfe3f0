//! The animation pass runs on every core (issue 15): a crowd's poses, completions and events
//! must be exactly those of one thread (`RAYON_NUM_THREADS=1` keeps the pass on the calling
//! thread, in the order it had before it was parallel).
mod common;
use common::*;
use sinew::project::gltf::samples;
use std::process::Command;

fn run_with_threads(dir: &std::path::Path, threads: &str) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["run", dir.to_str().expect("utf-8 path"), "--headless", "--size", "64x48", "--frames", "40"])
        .args(["--fixed-dt", "0.1", "--no-watch"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("run sinew");
    Run::from(out)
}

/// Runs the committed project `name` (a crowd of humanoids) on one thread and on four; both
/// must end well and print `NAME: WALKERS walkers`. Returns the lines starting with one of
/// `kinds` of each run.
fn one_and_four_threads(name: &str, walkers: usize, kinds: &[&str]) -> (Run, [Vec<String>; 2]) {
    let p = committed(name);
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    let humanoid = samples::demo_assets().into_iter().find(|(n, _)| *n == "humanoid.glb").expect("humanoid");
    std::fs::write(p.path().join("models/humanoid.glb"), humanoid.1).expect("humanoid");
    let one = run_with_threads(p.path(), "1");
    let four = run_with_threads(p.path(), "4");
    for r in [&one, &four] {
        assert_eq!(r.status, 0, "{}", r.show());
        assert!(r.stdout.contains(&format!("{name}: {walkers} walkers")), "{}", r.show());
    }
    let lines = |r: &Run| -> Vec<String> {
        r.stdout.lines().filter(|l| kinds.iter().any(|k| l.starts_with(k))).map(str::to_string).collect()
    };
    let both = [lines(&one), lines(&four)];
    (one, both)
}

#[test]
fn crowd_is_bit_identical_on_one_thread_and_on_several() {
    let (one, [a, b]) = one_and_four_threads("anim_threads", 48, &["pose ", "log "]);
    assert_eq!(a.iter().filter(|l| l.starts_with("pose ")).count(), 48 * 3);
    assert!(a.iter().any(|l| l.contains(" event ")), "no events reached the script:\n{}", one.show());
    assert!(a.iter().any(|l| l.contains(" done ")), "no completions reached the script:\n{}", one.show());
    assert_eq!(a, b, "one thread and four threads differ");
}

/// Issue 32 item 11: with IK targets the pass stays on the calling thread and reads bone
/// objects it drove earlier in the same pass (their streamed matrices, fenced first). One thread
/// and four agree, and each head looks straight at the bone it follows, as posed this frame.
#[test]
fn ik_crowd_reads_this_frames_bones_on_any_thread_count() {
    let (_, [a, b]) = one_and_four_threads("anim_threads_ik", 40, &["pose ", "aim "]);
    assert_eq!(a.iter().filter(|l| l.starts_with("pose ")).count(), 40 * 3);
    let aims: Vec<f64> = a
        .iter()
        .filter_map(|l| l.strip_prefix("aim "))
        .map(|l| l.split(' ').nth(1).and_then(|x| x.parse().ok()).expect("aim line"))
        .collect();
    assert_eq!(aims.len(), 39);
    assert!(aims.iter().all(|&d| d > 0.9999), "a head does not look at this frame's target: {aims:?}");
    assert_eq!(a, b, "one thread and four threads differ");
}
