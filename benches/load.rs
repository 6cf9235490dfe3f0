//! Loading time of a flat collection of 100,000 game objects (issue 19: it grew with the square of
//! the file size). The collection is generated once into a temporary project folder;
//! `load_collection_within` (read, parse with positions, flatten) is what is timed. Target: under 1 s.
use criterion::{Criterion, criterion_group, criterion_main};
use sinew::project::Resources;
use sinew::project::collection::load_collection_within;
use std::fmt::Write;
use std::time::{Duration, Instant};

const OBJECTS: usize = 100_000;

fn flat_collection(n: usize) -> String {
    let mut s = String::from("{ \"name\": \"flat\", \"objects\": [\n");
    for i in 0..n {
        let sep = if i + 1 < n { "," } else { "" };
        let _ = writeln!(s, "  {{ \"id\": \"o{i}\", \"position\": [{i}, 0.5, -1], \"scale\": [1, 1, 1] }}{sep}");
    }
    s.push_str("] }\n");
    s
}

fn load(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("sinew-bench-load-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("main")).expect("temp project");
    std::fs::write(dir.join("main/flat.collection"), flat_collection(OBJECTS)).expect("write collection");
    let res = Resources::open_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    let t = Instant::now();
    // Past the default max_instances (65,536): the project would raise it, as this does.
    let load = || {
        let mut loaded = load_collection_within(&res, "/main/flat.collection", OBJECTS as u32);
        if loaded.problems.is_empty() { Ok(loaded.spec) } else { Err(loaded.problems.remove(0)) }
    };
    let spec = load().unwrap_or_else(|e| panic!("{e}"));
    println!("load_flat_collection_100k: first load {:.3} s (target < 1 s)", t.elapsed().as_secs_f64());
    assert_eq!(spec.objects.len(), OBJECTS);
    let mut group = c.benchmark_group("load");
    group.sample_size(10).measurement_time(Duration::from_secs(12));
    group.bench_function("load_flat_collection_100k", |b| b.iter(|| load().map(|s| s.objects.len())));
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, load);
criterion_main!(benches);
