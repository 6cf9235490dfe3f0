//! Hot reload latency: time from saving a file to the first frame that uses the new version, in
//! a running headless `sinew run` (debounce included), for a script, a glTF model and a
//! collection of 1,000 objects applied in place.
//! Prints the median and p95 over every save, besides criterion's statistics.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::project::gltf::samples;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

fn script(version: u64) -> String {
    format!(
        "function update(self)\n  local m = tostring(model.get_aabb('#model').max)\n  if m ~= self.m then self.m = m print(m) end\nend\nfunction on_reload(self) print('version {version}') end\n"
    )
}

struct Game {
    dir: PathBuf,
    child: Child,
    lines: Receiver<String>,
}

const ONE_OBJECT: &str = r#"{ "name": "main", "objects": [ { "id": "a", "components": [
    { "id": "model", "type": "model", "mesh": "/models/m.glb" },
    { "id": "script", "type": "script", "script": "/main/s.script" } ] } ] }"#;

/// 1,000 objects, each with a model, and one that watches object `o0`: the save moves `o0` to
/// x = `version` in the file.
fn thousand(version: u64) -> String {
    let mut objects = vec![
        r#"{ "id": "watch", "components": [ { "id": "script", "type": "script", "script": "/main/s.script" } ] }"#
            .to_string(),
    ];
    for i in 0..999 {
        let x = if i == 0 { version as f32 } else { (i % 40) as f32 };
        objects.push(format!(
            r#"{{ "id": "o{i}", "position": [{x}, 0, {}], "components": [ {{ "id": "model", "type": "model", "mesh": "/models/m.glb" }} ] }}"#,
            i / 40
        ));
    }
    format!(r#"{{ "name": "main", "objects": [ {} ] }}"#, objects.join(",\n"))
}

const WATCH_O0: &str = "function update(self)\n  local x = go.get_position('/o0').x\n  if x ~= self.x then self.x = x print('x ' .. x) end\nend\n";

impl Game {
    fn start(tag: &str) -> Game {
        Game::start_with(tag, ONE_OBJECT, &script(0))
    }

    fn start_with(tag: &str, collection: &str, script_text: &str) -> Game {
        let dir = std::env::temp_dir().join(format!("sinew-bench-reload-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("main")).expect("dir");
        std::fs::create_dir_all(dir.join("models")).expect("dir");
        std::fs::write(dir.join("project.json"), r#"{ "main_collection": "/main/main.collection" }"#).expect("write");
        std::fs::write(dir.join("main/main.collection"), collection).expect("write");
        std::fs::write(dir.join("main/s.script"), script_text).expect("write");
        std::fs::write(dir.join("models/m.glb"), samples::textured_cube()).expect("write");
        let mut child = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(["run", dir.to_str().unwrap_or(""), "--headless", "--size", "32x32"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sinew");
        let (tx, rx) = channel();
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        std::thread::sleep(Duration::from_millis(1500));
        Game { dir, child, lines: rx }
    }

    /// Saves `bytes` to `rel` and waits for a line equal to `want`; None when it never came.
    fn save_and_wait(&self, rel: &str, bytes: &[u8], want: &str) -> Option<Duration> {
        while self.lines.try_recv().is_ok() {}
        let t = Instant::now();
        std::fs::write(self.dir.join(rel), bytes).expect("save");
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(2)) {
            if l == want {
                return Some(t.elapsed());
            }
        }
        None
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn report(what: &str, mut samples: Vec<f64>, missed: u32) {
    samples.sort_by(|a, b| a.total_cmp(b));
    if samples.is_empty() {
        println!("{what}: no reload seen, missed {missed}");
        return;
    }
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what} reload latency over {} saves: median {:.1} ms, p95 {:.1} ms, missed {missed}",
        samples.len(),
        pick(0.5),
        pick(0.95)
    );
}

fn bench_kind(c: &mut Criterion, name: &str, save: impl Fn(&Game, u64) -> Option<Duration>) {
    bench_game(c, name, Game::start(name), save);
}

fn bench_game(c: &mut Criterion, name: &str, game: Game, save: impl Fn(&Game, u64) -> Option<Duration>) {
    let (mut samples, mut missed, mut n) = (Vec::new(), 0u32, 0u64);
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                match save(&game, n) {
                    Some(d) => {
                        samples.push(d.as_secs_f64() * 1000.0);
                        total += d;
                    }
                    None => {
                        missed += 1;
                        total += Duration::from_secs(2);
                    }
                }
                // Saves closer together than the debounce would merge into one reload.
                std::thread::sleep(Duration::from_millis(60));
            }
            total
        })
    });
    report(name, samples, missed);
}

fn bench_reload(c: &mut Criterion) {
    bench_kind(c, "reload_script_save_to_frame", |g, n| {
        g.save_and_wait("main/s.script", script(n).as_bytes(), &format!("version {n}"))
    });
    let (cube, pair) = (samples::textured_cube(), samples::two_meshes());
    bench_kind(c, "reload_model_save_to_frame", |g, n| {
        let (bytes, want) =
            if n % 2 == 1 { (&pair, "vmath.vector3(1.25, 1.5, 0.5)") } else { (&cube, "vmath.vector3(0.5, 0.5, 0.5)") };
        g.save_and_wait("models/m.glb", bytes, want)
    });
    let big = Game::start_with("collection", &thousand(0), WATCH_O0);
    bench_game(c, "reload_collection_1000_save_to_frame", big, |g, n| {
        let v = 1000 + n;
        g.save_and_wait("main/main.collection", thousand(v).as_bytes(), &format!("x {v}"))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = bench_reload
}
criterion_main!(benches);
