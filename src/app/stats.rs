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
        obj.insert("startup".into(), serde_json::Value::Object(startup));
        obj.insert("peak_rss_mib".into(), (peak_rss_kib() as f64 / 1024.0).into());
        serde_json::Value::Object(obj).to_string()
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
}
