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

#[test]
fn crowd_is_bit_identical_on_one_thread_and_on_several() {
    let p = committed("anim_threads");
    std::fs::create_dir_all(p.path().join("models")).expect("models dir");
    let humanoid = samples::demo_assets().into_iter().find(|(n, _)| *n == "humanoid.glb").expect("humanoid");
    std::fs::write(p.path().join("models/humanoid.glb"), humanoid.1).expect("humanoid");
    let one = run_with_threads(p.path(), "1");
    let four = run_with_threads(p.path(), "4");
    for r in [&one, &four] {
        assert_eq!(r.status, 0, "{}", r.show());
        assert!(r.stdout.contains("anim_threads: 48 walkers"), "{}", r.show());
    }
    let lines = |r: &Run| -> Vec<String> {
        r.stdout.lines().filter(|l| l.starts_with("pose ") || l.starts_with("log ")).map(str::to_string).collect()
    };
    let (a, b) = (lines(&one), lines(&four));
    assert_eq!(a.iter().filter(|l| l.starts_with("pose ")).count(), 48 * 3);
    assert!(a.iter().any(|l| l.contains(" event ")), "no events reached the script:\n{}", one.show());
    assert!(a.iter().any(|l| l.contains(" done ")), "no completions reached the script:\n{}", one.show());
    assert_eq!(a, b, "one thread and four threads differ");
}
