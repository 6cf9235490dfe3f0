//! Hot reload latency: time from saving a script to the first frame that prints from the new
//! version, in a running headless `sinew run` (debounce included). Prints the median and p95
//! over every save made, besides criterion's own statistics.
use criterion::{Criterion, criterion_group, criterion_main};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn script(version: u64) -> String {
    format!(
        "function update(self)\n  if not self.said then self.said = true end\nend\nfunction on_reload(self) print('version {version}') end\n"
    )
}

fn bench_reload(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-reload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("main")).expect("dir");
    std::fs::write(dir.join("project.json"), r#"{ "main_collection": "/main/main.collection" }"#).expect("write");
    std::fs::write(
        dir.join("main/main.collection"),
        r#"{ "name": "main", "objects": [ { "id": "a", "components": [ { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#,
    )
    .expect("write");
    std::fs::write(dir.join("main/s.script"), script(0)).expect("write");
    let exe = env!("CARGO_BIN_EXE_sinew");
    let mut child = Command::new(exe)
        .args(["run", dir.to_str().unwrap_or(""), "--headless", "--size", "32x32"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {exe}: {e}"));
    let (tx, rx) = channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let mut version = 0u64;
    let mut samples: Vec<f64> = Vec::new();
    let mut missed = 0;
    c.bench_function("reload_script_save_to_frame", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                version += 1;
                let want = format!("version {version}");
                let t = Instant::now();
                std::fs::write(dir.join("main/s.script"), script(version)).expect("save");
                let mut got = false;
                while let Ok(l) = rx.recv_timeout(Duration::from_secs(2)) {
                    if l == want {
                        got = true;
                        break;
                    }
                }
                let d = t.elapsed();
                if got {
                    samples.push(d.as_secs_f64() * 1000.0);
                } else {
                    missed += 1;
                }
                total += d;
                // Saves closer together than the debounce would merge into one reload.
                std::thread::sleep(Duration::from_millis(60));
            }
            total
        })
    });
    let _ = child.kill();
    let _ = child.wait();
    samples.sort_by(|a, b| a.total_cmp(b));
    if !samples.is_empty() {
        let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        println!(
            "reload latency over {} saves: median {:.1} ms, p95 {:.1} ms, missed {missed}",
            samples.len(),
            pick(0.5),
            pick(0.95)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = bench_reload
}
criterion_main!(benches);
