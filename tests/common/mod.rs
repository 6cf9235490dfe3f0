//! Helpers for tests that run the real `sinew` binary on small projects.
#![allow(dead_code)]
pub mod data;
pub mod golden;
pub mod update;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh, empty temporary folder (removed on drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("sinew-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("create temp dir");
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.0.join(rel.trim_start_matches('/'));
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A project made of `files`, plus the Lua test helpers at /lua/test_helpers.lua.
pub fn project(tag: &str, files: &[(&str, &str)]) -> TempDir {
    let d = TempDir::new(tag);
    d.write("/lua/test_helpers.lua", include_str!("../lua/test_helpers.lua"));
    for (p, t) in files {
        d.write(p, t);
    }
    d
}

/// Copies a committed test project from tests/projects/NAME into a temp dir (with the helpers).
pub fn committed(name: &str) -> TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/projects").join(name);
    let d = project(name, &[]);
    copy_dir(&src, d.path());
    d
}

/// Copies a folder tree (test projects, the demo's content/).
pub fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).expect("read test project") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn show(&self) -> String {
        format!("status {}\n--- stdout\n{}\n--- stderr\n{}", self.status, self.stdout, self.stderr)
    }
}

/// Runs `sinew ARGS` headless.
pub fn sinew(args: &[&str]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("SINEW_LOG", "info")
        .output()
        .expect("run sinew");
    Run::from(out)
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A `sinew` process still running; both pipes are drained while it runs (a chatty run cannot
/// block on a full pipe) into buffers the test can watch.
pub struct Running {
    child: Child,
    args: Vec<String>,
    out: Arc<Mutex<Vec<u8>>>,
    err: Arc<Mutex<Vec<u8>>>,
    drains: Vec<std::thread::JoinHandle<()>>,
}

/// Starts `sinew ARGS` headless.
pub fn spawn_sinew(args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("SINEW_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sinew");
    let drain = |mut r: Box<dyn Read + Send>, buf: Arc<Mutex<Vec<u8>>>| {
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                buf.lock().expect("output buffer").extend_from_slice(&chunk[..n]);
            }
        })
    };
    let (out, err) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
    let drains = vec![
        drain(Box::new(child.stdout.take().expect("stdout")), out.clone()),
        drain(Box::new(child.stderr.take().expect("stderr")), err.clone()),
    ];
    Running { child, args: args.iter().map(|a| a.to_string()).collect(), out, err, drains }
}

impl Running {
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.out.lock().expect("output buffer")).into_owned()
    }

    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.err.lock().expect("output buffer")).into_owned()
    }

    /// Waits until stdout contains `needle`; panics (killing the process) after `limit`.
    pub fn wait_for_stdout(&mut self, needle: &str, limit: Duration) {
        self.wait_for(false, needle, limit);
    }

    /// Waits until stderr contains `needle` (a log line); panics (killing the process) after
    /// `limit`.
    pub fn wait_for_stderr(&mut self, needle: &str, limit: Duration) {
        self.wait_for(true, needle, limit);
    }

    fn wait_for(&mut self, stderr: bool, needle: &str, limit: Duration) {
        let start = Instant::now();
        let so_far = |r: &Self| if stderr { r.stderr_so_far() } else { r.stdout_so_far() };
        while !so_far(self).contains(needle) {
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let pipe = if stderr { "stderr" } else { "stdout" };
                panic!("sinew {:?}: no {needle:?} on {pipe} after {limit:?}\n{}", self.args, so_far(self));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The process's resident memory in kB (`VmRSS`), 0 when it cannot be read.
    pub fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// Sends a signal by name (`INT`, `TERM`).
    pub fn signal(&self, name: &str) {
        let sent = Command::new("kill").arg(format!("-{name}")).arg(self.child.id().to_string()).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{name} failed");
    }

    /// Waits for the exit; a run still going after `limit` is killed and fails the test (a hang
    /// is a failure, not a stuck test run).
    pub fn finish_within(mut self, limit: Duration) -> Run {
        let start = Instant::now();
        let status = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                break status;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("sinew {:?} still running after {limit:?}\n{}", self.args, self.stdout_so_far());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        for d in self.drains.drain(..) {
            let _ = d.join();
        }
        let text = |b: &Arc<Mutex<Vec<u8>>>| String::from_utf8_lossy(&b.lock().expect("output buffer")).into_owned();
        // A process ended by a signal has no code: -(signal number), as Python shows it.
        let code = status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt;
            -status.signal().unwrap_or(0)
        });
        Run { status: code, stdout: text(&self.out), stderr: text(&self.err) }
    }
}

/// Runs `sinew ARGS`, killing it after `limit`.
pub fn sinew_within(args: &[&str], limit: Duration) -> Run {
    spawn_sinew(args).finish_within(limit)
}

/// Runs a project headless for at most `frames` frames with a fixed dt.
pub fn run_project(dir: &Path, frames: u32, extra: &[&str]) -> Run {
    let frames = frames.to_string();
    let mut args = vec!["run", dir.to_str().expect("utf-8 path"), "--headless", "--size", "64x48", "--frames", &frames];
    args.extend_from_slice(&["--fixed-dt", "0.25"]);
    args.extend_from_slice(extra);
    sinew(&args)
}

/// Runs the project in `dir` headless at `size` (`WxH`) for `frames` frames of 1/60 s and loads
/// its last frame (written to `dir/shot.png`).
pub fn shoot(dir: &Path, size: &str, frames: u32) -> (Run, sinew::render::Image) {
    let shot = dir.join("shot.png");
    let frames = frames.to_string();
    let r = sinew(&[
        "run",
        dir.to_str().expect("utf-8 path"),
        "--headless",
        "--no-watch",
        "--size",
        size,
        "--frames",
        &frames,
        "--fixed-dt",
        "0.016666668",
        "--screenshot",
        shot.to_str().expect("utf-8"),
    ]);
    let img = sinew::render::Image::load_png(&shot).unwrap_or_else(|e| panic!("{e}\n{}", r.show()));
    (r, img)
}

/// The colour of pixel (x, y) of `img`, y counted from the bottom as Defold's screen
/// coordinates are.
pub fn rgb_from_bottom(img: &sinew::render::Image, x: u32, y: u32) -> [u8; 3] {
    let p = img.pixel(x, img.height - 1 - y).expect("pixel");
    [p[0], p[1], p[2]]
}

/// Whether two colours differ by at most 2 in each channel.
pub fn near_rgb(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2)
}

/// The closing line a Lua test project prints: `NAME: N passed, M failed`.
pub fn assert_lua_passed(r: &Run, name: &str) {
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")) && l.contains(" passed, "))
        .unwrap_or_else(|| panic!("no result line for {name}\n{}", r.show()));
    assert!(line.ends_with(" 0 failed"), "{line}\n{}", r.show());
    let passed: u32 =
        line.split(": ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(passed > 0, "no checks ran: {line}");
    assert_eq!(r.status, 0, "{}", r.show());
}
