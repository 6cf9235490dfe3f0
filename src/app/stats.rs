//! Per-phase frame timings for `--stats`, and what the last frame drew.
use std::time::Duration;

use crate::render::{PASSES, SubmitStats};

pub const PHASES: [&str; 5] = ["scripts", "tweens", "animation", "transforms", "render"];

#[derive(Default)]
pub struct Stats {
    samples: [Vec<f64>; 5],
    /// The model renderer's counts of the last frame drawn (a crowd scene draws the same
    /// counts every frame; the last one is the settled state).
    last: SubmitStats,
    /// Draw calls the sprites took in the last frame.
    sprite_draw_calls: u32,
    /// Per drawing pass ([`PASSES`]), its milliseconds in each frame.
    passes: [Vec<f64>; PASSES.len()],
    /// Start-up, step by step: milliseconds since the run began when each step ended, and the
    /// memory held then (KiB).
    startup: Vec<(&'static str, f64, u64)>,
    /// Where the memory lay after the first frame.
    memory: Option<MemoryMap>,
}

/// The most memory the process has held (`VmHWM`, KiB), or 0 where /proc does not say.
pub fn peak_rss_kib() -> u64 {
    proc_status_kib("VmHWM:")
}

/// The memory the process holds now (`VmRSS`, KiB), or 0 where /proc does not say.
pub fn rss_kib() -> u64 {
    proc_status_kib("VmRSS:")
}

fn proc_status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

impl Stats {
    pub fn record(&mut self, phase: usize, took: Duration) {
        if let Some(v) = self.samples.get_mut(phase) {
            v.push(took.as_secs_f64() * 1000.0);
        }
    }

    pub fn record_submit(&mut self, s: &SubmitStats) {
        self.last = *s;
    }

    pub fn record_sprites(&mut self, draw_calls: u32) {
        self.sprite_draw_calls = draw_calls;
    }

    /// One frame's drawing, pass by pass (`PassClock::took`).
    pub fn record_passes(&mut self, took: &[f64; PASSES.len()]) {
        for (samples, &ms) in self.passes.iter_mut().zip(took) {
            samples.push(ms);
        }
    }

    /// Marks the end of a start-up step, `since` being when the run began.
    pub fn startup_step(&mut self, step: &'static str, since: std::time::Instant) {
        self.startup.push((step, since.elapsed().as_secs_f64() * 1000.0, rss_kib()));
    }

    /// Notes where the memory lies now (after the first frame): one read of /proc.
    pub fn map_memory(&mut self) {
        self.memory = MemoryMap::of_this_process();
    }

    /// One JSON line: frames, per phase the mean, median and p99 in milliseconds, and the last
    /// frame's `draw_calls`, `triangles` and `skinned_instances`.
    pub fn to_json(&self, frames: u64) -> String {
        let mut obj = serde_json::Map::new();
        obj.insert("frames".into(), frames.into());
        for (name, samples) in PHASES.iter().zip(&self.samples) {
            let (mean, median, p99) = summary(samples);
            obj.insert(name.to_string(), serde_json::json!({ "mean_ms": mean, "median_ms": median, "p99_ms": p99 }));
        }
        // The drawing pass by pass: the first frame's (most of the start-up's first frame) and
        // the median.
        let mut passes = serde_json::Map::new();
        for (name, samples) in PASSES.iter().zip(&self.passes) {
            let first = samples.first().copied().unwrap_or(0.0);
            passes.insert(name.to_string(), serde_json::json!({ "first_ms": first, "median_ms": summary(samples).1 }));
        }
        obj.insert("passes".into(), serde_json::Value::Object(passes));
        obj.insert("draw_calls".into(), self.last.draw_calls.into());
        obj.insert("triangles".into(), self.last.triangles.into());
        obj.insert("skinned_instances".into(), self.last.skinned_instances.into());
        obj.insert("sprite_draw_calls".into(), self.sprite_draw_calls.into());
        // Each step's own time (issue 40: where start-up goes), and the total to the first frame.
        let mut startup = serde_json::Map::new();
        // And the memory each step added (issue 40: where the start-up's memory goes).
        let mut before = 0.0;
        let mut held = 0;
        for (step, at, rss) in &self.startup {
            startup.insert(format!("{step}_ms"), (at - before).into());
            startup.insert(format!("{step}_mib"), ((*rss as f64 - held as f64) / 1024.0).into());
            before = *at;
            held = *rss;
        }
        startup.insert("total_ms".into(), before.into());
        startup.insert("rss_mib".into(), (held as f64 / 1024.0).into());
        if let Some(m) = &self.memory {
            startup.insert("memory".into(), m.to_json());
        }
        obj.insert("startup".into(), serde_json::Value::Object(startup));
        obj.insert("peak_rss_mib".into(), (peak_rss_kib() as f64 / 1024.0).into());
        serde_json::Value::Object(obj).to_string()
    }
}

/// Where the memory the process holds lies, from `/proc/self/smaps` (issue 40: what is left of
/// the start-up's memory): anonymous memory (heaps, stacks, the GL driver's buffers), Sinew's
/// own executable, and the shared libraries (on Mesa's llvmpipe, LLVM alone is most of it), the
/// largest named.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MemoryMap {
    pub anonymous_kib: u64,
    pub executable_kib: u64,
    pub libraries_kib: u64,
    pub other_files_kib: u64,
    /// The libraries holding the most, largest first (file name, KiB).
    pub largest_libraries: Vec<(String, u64)>,
}

/// How many libraries `MemoryMap` names.
const LIBRARIES_NAMED: usize = 4;

impl MemoryMap {
    /// This process's map, or `None` where /proc does not say (not Linux).
    pub fn of_this_process() -> Option<MemoryMap> {
        let text = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let exe = std::env::current_exe().ok().map(|p| p.display().to_string());
        Some(MemoryMap::parse(&text, exe.as_deref().unwrap_or("")))
    }

    /// `smaps`' resident sizes summed by what each mapping is; `exe` is the executable's path.
    pub fn parse(smaps: &str, exe: &str) -> MemoryMap {
        let mut map = MemoryMap::default();
        let mut libraries: Vec<(String, u64)> = Vec::new();
        let mut path = String::new();
        for line in smaps.lines() {
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or("");
            if first.contains('-') && first.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
                // A mapping's header: range, permissions, offset, device, inode, then its path.
                path = words.nth(4).map(str::to_owned).unwrap_or_default();
                continue;
            }
            if first != "Rss:" {
                continue;
            }
            let kib: u64 = words.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            if path.is_empty() || path.starts_with('[') {
                map.anonymous_kib += kib;
            } else if path == exe {
                map.executable_kib += kib;
            } else if path.contains(".so") {
                map.libraries_kib += kib;
                let name = path.rsplit('/').next().unwrap_or(&path);
                match libraries.iter_mut().find(|(n, _)| n == name) {
                    Some((_, k)) => *k += kib,
                    None => libraries.push((name.to_owned(), kib)),
                }
            } else {
                map.other_files_kib += kib;
            }
        }
        libraries.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        libraries.truncate(LIBRARIES_NAMED);
        map.largest_libraries = libraries;
        map
    }

    fn to_json(&self) -> serde_json::Value {
        let mib = |k: u64| k as f64 / 1024.0;
        let largest: Vec<serde_json::Value> =
            self.largest_libraries.iter().map(|(n, k)| serde_json::json!({ "name": n, "mib": mib(*k) })).collect();
        serde_json::json!({
            "anonymous_mib": mib(self.anonymous_kib),
            "executable_mib": mib(self.executable_kib),
            "libraries_mib": mib(self.libraries_kib),
            "other_files_mib": mib(self.other_files_kib),
            "largest_libraries": largest,
        })
    }
}

/// Mean, median and 99th percentile of `samples` (zeros for none).
fn summary(samples: &[f64]) -> (f64, f64, f64) {
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| if s.is_empty() { 0.0 } else { s[((s.len() - 1) as f64 * q).round() as usize] };
    let mean = if s.is_empty() { 0.0 } else { s.iter().sum::<f64>() / s.len() as f64 };
    (mean, pick(0.5), pick(0.99))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_every_phase() {
        let mut s = Stats::default();
        s.record(0, Duration::from_millis(1));
        let v: serde_json::Value = serde_json::from_str(&s.to_json(1)).unwrap();
        assert_eq!(v["frames"], 1);
        for p in PHASES {
            assert!(v[p]["median_ms"].is_number(), "{p}");
        }
        assert_eq!(v["draw_calls"], 0);
        // No frame drawn: every pass at zero, the first frame's included.
        for p in PASSES {
            assert_eq!(
                (v["passes"][p]["first_ms"].as_f64(), v["passes"][p]["median_ms"].as_f64()),
                (Some(0.0), Some(0.0))
            );
        }
        s.record_passes(&[1.0, 2.0, 0.0, 0.0, 3.0]);
        s.record_passes(&[5.0, 6.0, 0.0, 0.0, 7.0]);
        s.record_passes(&[4.0, 4.0, 0.0, 0.0, 4.0]);
        let v: serde_json::Value = serde_json::from_str(&s.to_json(3)).unwrap();
        assert_eq!(
            (v["passes"]["shadow"]["first_ms"].as_f64(), v["passes"]["shadow"]["median_ms"].as_f64()),
            (Some(1.0), Some(4.0))
        );
        assert_eq!(
            (v["passes"]["gui"]["first_ms"].as_f64(), v["passes"]["gui"]["median_ms"].as_f64()),
            (Some(3.0), Some(4.0))
        );
        s.record_submit(&SubmitStats { draw_calls: 3, triangles: 12, skinned_instances: 2, ..Default::default() });
        let v: serde_json::Value = serde_json::from_str(&s.to_json(1)).unwrap();
        assert_eq!(
            (v["draw_calls"].as_u64(), v["triangles"].as_u64(), v["skinned_instances"].as_u64()),
            (Some(3), Some(12), Some(2))
        );
    }

    #[test]
    fn startup_steps_have_their_time_and_memory() {
        let mut s = Stats::default();
        let began = std::time::Instant::now();
        s.startup_step("resources", began);
        let held = vec![1u8; 8 << 20];
        s.startup_step("load_and_init", began);
        let v: serde_json::Value = serde_json::from_str(&s.to_json(0)).unwrap();
        let st = &v["startup"];
        assert!(st["resources_ms"].as_f64().unwrap() >= 0.0 && st["load_and_init_ms"].as_f64().unwrap() >= 0.0);
        // /proc is there on Linux, where the memory figures are read: what the process held
        // when the step ended includes the 8 MiB it had just written (other tests running at
        // the same time make each step's own difference unreliable here).
        assert!(st["rss_mib"].as_f64().unwrap() >= 8.0, "{st}");
        assert!(st["resources_mib"].is_number() && st["load_and_init_mib"].is_number(), "{st}");
        assert!(std::hint::black_box(&held).iter().all(|&b| b == 1));
    }

    /// Three kinds of mapping and a file that is none of them, as /proc/self/smaps writes them.
    const SMAPS: &str = "\
55d0c0000000-55d0c1000000 r-xp 00000000 08:01 1234  /opt/game/sinew
Size:              16384 kB
Rss:                4096 kB
Pss:                4096 kB
7f0000000000-7f0003000000 r-xp 00000000 08:01 99    /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
Rss:               30720 kB
7f0004000000-7f0004100000 r--p 00100000 08:01 99    /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
Rss:                1024 kB
7f0005000000-7f0005100000 r-xp 00000000 08:01 7     /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
Rss:                2048 kB
7f0006000000-7f0007000000 rw-p 00000000 00:00 0
Rss:               10240 kB
AnonHugePages:      8192 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0     [stack]
Rss:                 132 kB
7f0008000000-7f0008010000 r--p 00000000 08:01 55    /root/.cache/mesa_shader_cache/index
Rss:                  64 kB
";

    #[test]
    fn memory_is_summed_by_what_holds_it() {
        let m = MemoryMap::parse(SMAPS, "/opt/game/sinew");
        assert_eq!(
            (m.anonymous_kib, m.executable_kib, m.libraries_kib, m.other_files_kib),
            (10240 + 132, 4096, 30720 + 1024 + 2048, 64)
        );
        // A library mapped in several parts counts once, with all of them.
        assert_eq!(
            m.largest_libraries,
            vec![("libLLVM-15.so.1".to_string(), 31744), ("swrast_dri.so".to_string(), 2048)]
        );
        // Nothing recognisable: nothing counted, nothing made up.
        assert_eq!(
            MemoryMap::parse("not smaps\nRss: lots\n", ""),
            MemoryMap { anonymous_kib: 0, ..MemoryMap::default() }
        );
    }

    #[test]
    fn this_process_memory_is_in_the_startup_figures() {
        let mut s = Stats::default();
        s.startup_step("first_frame", std::time::Instant::now());
        s.map_memory();
        let v: serde_json::Value = serde_json::from_str(&s.to_json(1)).unwrap();
        let m = &v["startup"]["memory"];
        // The test binary is running from its own pages, and it has a heap.
        assert!(m["executable_mib"].as_f64().unwrap() > 0.0, "{m}");
        assert!(m["anonymous_mib"].as_f64().unwrap() > 0.0, "{m}");
        let libraries = m["largest_libraries"].as_array().unwrap();
        assert!(libraries.iter().any(|l| l["name"].as_str().unwrap().starts_with("libc")), "{m}");
    }
}
