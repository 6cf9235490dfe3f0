//! Per-phase frame timings for `--stats`.
use std::time::Duration;

pub const PHASES: [&str; 5] = ["scripts", "tweens", "animation", "transforms", "render"];

#[derive(Default)]
pub struct Stats {
    samples: [Vec<f64>; 5],
}

impl Stats {
    pub fn record(&mut self, phase: usize, took: Duration) {
        if let Some(v) = self.samples.get_mut(phase) {
            v.push(took.as_secs_f64() * 1000.0);
        }
    }

    /// One JSON line: frames, and per phase the mean, median and p99 in milliseconds.
    pub fn to_json(&self, frames: u64) -> String {
        let mut obj = serde_json::Map::new();
        obj.insert("frames".into(), frames.into());
        for (name, samples) in PHASES.iter().zip(&self.samples) {
            let mut s = samples.clone();
            s.sort_by(|a, b| a.total_cmp(b));
            let pick = |q: f64| if s.is_empty() { 0.0 } else { s[((s.len() - 1) as f64 * q).round() as usize] };
            let mean = if s.is_empty() { 0.0 } else { s.iter().sum::<f64>() / s.len() as f64 };
            obj.insert(
                name.to_string(),
                serde_json::json!({ "mean_ms": mean, "median_ms": pick(0.5), "p99_ms": pick(0.99) }),
            );
        }
        serde_json::Value::Object(obj).to_string()
    }
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
    }
}
