//! Whether a pass that can run on every core should, decided by timing it both ways.
//!
//! A pass split over the thread pool is only faster when the pool's threads are awake. On a
//! machine whose idle cores take milliseconds to wake (virtual machines: measured on the 2-core
//! machine Sinew is tested on, a 4 ms pass split over 2 threads took 2.7 ms after 5 ms idle but
//! 4.3 ms after 16 ms idle, longer than on one thread), a game frame of 16 ms or more leaves the
//! pool asleep and splitting loses. The result of the pass is the same either way (each pass
//! that uses this is bit-identical on one thread and on many), so the choice can follow the
//! clock: both ways are timed at first, then the faster one is kept and the other is tried
//! again every [`RETRY_EVERY`] calls.

/// How often the slower way is timed again, in calls.
pub const RETRY_EVERY: u32 = 32;

/// Threads of the pool a parallel pass would use: the pool the caller runs in (tests install
/// their own), else the global pool, made once here so that a machine that cannot start threads
/// gets one warning and single-threaded passes instead of rayon's panic on first use.
fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        return rayon::current_num_threads();
    }
    static GLOBAL: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *GLOBAL.get_or_init(|| match rayon::ThreadPoolBuilder::new().build_global() {
        Ok(()) => rayon::current_num_threads(),
        Err(e) => {
            // Already made by someone else (fine), or no threads to be had: then every pass
            // stays on the calling thread and rayon is not touched again.
            match std::panic::catch_unwind(rayon::current_num_threads) {
                Ok(n) => n,
                Err(_) => {
                    log::warn!("no thread pool ({e}): the animation pass runs on one thread");
                    1
                }
            }
        }
    })
}

#[derive(Debug, Default, Clone)]
pub struct Chooser {
    /// Smoothed seconds per call: one thread, the pool.
    took: [f64; 2],
    calls: u32,
}

impl Chooser {
    /// True: run this call on the pool. Never with a pool of one thread.
    pub fn parallel(&mut self) -> bool {
        if pool_threads() < 2 {
            return false;
        }
        self.calls = self.calls.wrapping_add(1);
        if self.took[0] == 0.0 || self.took[1] == 0.0 {
            return self.calls.is_multiple_of(2);
        }
        let faster = self.took[1] < self.took[0];
        if self.calls.is_multiple_of(RETRY_EVERY) { !faster } else { faster }
    }

    /// Records how long a call took the way [`Chooser::parallel`] chose.
    pub fn took(&mut self, parallel: bool, seconds: f64) {
        let t = &mut self.took[parallel as usize];
        *t = if *t == 0.0 { seconds } else { 0.75 * *t + 0.25 * seconds };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_faster_way_and_retries_the_other() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let mut c = Chooser::default();
            let mut ways = Vec::new();
            for _ in 0..(3 * RETRY_EVERY) {
                let p = c.parallel();
                ways.push(p);
                c.took(p, if p { 1.0 } else { 2.0 });
            }
            let parallel = ways.iter().filter(|&&p| p).count();
            assert!(parallel > ways.len() - 5, "the faster way is kept: {parallel} of {}", ways.len());
            assert!(ways[10..].iter().any(|&p| !p), "the slower way is tried again");
        });
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        one.install(|| assert!(!Chooser::default().parallel(), "one thread never splits"));
    }
}
