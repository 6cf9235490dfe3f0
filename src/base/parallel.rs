//! Whether a pass that can run on every core should, decided by timing it both ways.
//!
//! A pass split over the thread pool is only faster when the pool's threads are awake. On a
//! machine whose idle cores take milliseconds to wake (virtual machines: measured on the 2-core
//! machine Sinew is tested on, a 4 ms pass split over 2 threads took 2.7 ms after 5 ms idle but
//! 4.3 ms after 16 ms idle, longer than on one thread), a game frame of 16 ms or more leaves the
//! pool asleep and splitting loses. The result of the pass is the same either way (each pass
//! that uses this is bit-identical on one thread and on many), so the choice can follow the
//! clock: both ways are timed at first, then the faster one is kept and the other is tried
//! again every [`RETRY_EVERY`] calls, [`RETRY_RUN`] calls in a row: a pool woken for one call
//! after a long sleep is slower than it is while in use, so one call alone would keep finding
//! the parallel way slower than it is. A pass that comes soon after its frame begins can have
//! its threads woken then ([`Crew::ready`]), so they are running by the time it starts.

/// How often the slower way is timed again, in calls.
pub const RETRY_EVERY: u32 = 32;
/// How many calls in a row the slower way is timed each time.
pub const RETRY_RUN: u32 = 4;

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
    /// Smoothed seconds per call: one thread, the pool (see `took`).
    took: [f64; 2],
    calls: u32,
    /// The way timed in the current run of retries, and the calls left in it.
    retrying: (bool, u32),
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
        if self.calls.is_multiple_of(RETRY_EVERY) {
            self.retrying = (!faster, RETRY_RUN);
        }
        match self.retrying {
            (way, left) if left > 0 => {
                self.retrying.1 = left - 1;
                way
            }
            _ => faster,
        }
    }

    /// Records how long a call took the way [`Chooser::parallel`] chose.
    pub fn took(&mut self, parallel: bool, seconds: f64) {
        let t = &mut self.took[parallel as usize];
        // A call many times slower than usual (a thread descheduled for a time slice) counts
        // as twice the usual: one such call would otherwise hand the choice to the other way
        // for a whole retry period, while a way that really got slower still takes over within
        // a few calls.
        *t = if *t == 0.0 { seconds } else { 0.75 * *t + 0.25 * seconds.min(2.0 * *t) };
    }
}

/// The calling thread and whichever of the pool's threads come to help run one piece of work
/// together, the caller never waiting for a helper that has not started: a pool thread that
/// wakes late (a virtual machine's idle core takes up to milliseconds) finds the work gone and
/// returns. Work is shared by the work itself (a queue it takes from), so the caller alone can
/// do all of it. One crew per pass: calls on one crew must not overlap.
#[derive(Debug, Default, Clone)]
pub struct Crew {
    shared: std::sync::Arc<CrewShared>,
}

#[derive(Debug, Default)]
struct CrewShared {
    /// The work of the call in progress (a pointer to the caller's `&dyn Fn`), null between
    /// calls.
    job: std::sync::atomic::AtomicPtr<()>,
    /// Helpers inside `job` now.
    active: std::sync::atomic::AtomicUsize,
    /// Helpers woken by [`Crew::ready`] still waiting for a call.
    waiting: std::sync::atomic::AtomicUsize,
    /// Calls begun so far: a waiting helper that sees it change with no job posted knows the
    /// call it waited for is over.
    calls: std::sync::atomic::AtomicU64,
}

impl CrewShared {
    /// Runs the posted job, if any, as one of the helpers; false when none was posted.
    fn help(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.active.fetch_add(1, SeqCst);
        let job = self.job.load(SeqCst).cast::<Job>();
        if !job.is_null() {
            // SAFETY: `job` was loaded after this helper counted itself in `active` (both
            // sequentially consistent), and the caller stores null before it waits for `active`
            // to drop to 0: so either the load saw null, or the caller is still waiting and the
            // `Job` on its stack is alive.
            let work = unsafe { *job };
            // A panic must not leave `active` up (the caller would spin forever).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        }
        self.active.fetch_sub(1, SeqCst);
        !job.is_null()
    }
}

type Job<'a> = &'a (dyn Fn() + Sync);

impl Crew {
    /// Runs `work` on this thread, with up to `helpers` pool threads asked to run it too;
    /// returns once `work` has returned here and in every helper that started it.
    pub fn run(&self, helpers: usize, work: &(dyn Fn() + Sync)) {
        use std::sync::atomic::Ordering::SeqCst;
        let job: Job = work;
        let shared = &*self.shared;
        shared.job.store((&job as *const Job).cast_mut().cast(), SeqCst);
        /// Closes the call even if `work` panics here: no helper may start it after this
        /// frame is gone, and the ones inside are waited for.
        struct Close<'a>(&'a CrewShared);
        impl Drop for Close<'_> {
            fn drop(&mut self) {
                self.0.job.store(std::ptr::null_mut(), SeqCst);
                while self.0.active.load(SeqCst) != 0 {
                    std::hint::spin_loop();
                }
            }
        }
        let close = Close(shared);
        shared.calls.fetch_add(1, SeqCst);
        // Helpers already waiting (`ready`) join by themselves; one that gives up just now is
        // missed for this call, which the caller's share of the queue makes up for.
        for _ in shared.waiting.load(SeqCst).min(helpers)..helpers {
            let crew = self.shared.clone();
            rayon::spawn(move || {
                crew.help();
            });
        }
        work();
        drop(close);
    }

    /// Sends away the helpers [`Crew::ready`] woke: the call they wait for is not coming.
    pub fn dismiss(&self) {
        self.shared.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Wakes up to `helpers` pool threads to wait for the next [`Crew::run`], spinning for at
    /// most `patience`, so that they are running when it starts. Waking a thread is a system
    /// call on the caller's side and, on a virtual machine whose idle core has stopped, tens of
    /// microseconds before the thread runs (measured: a helper joined a 0.43 ms pass 80 µs late,
    /// after 20 µs of the caller's spent waking it); asked for ahead of the pass, both happen
    /// while the caller does other work. A helper leaves when the call it waited for has come
    /// and gone, or at `patience`: a call that comes later wakes its helpers itself.
    pub fn ready(&self, helpers: usize, patience: std::time::Duration) {
        use std::sync::atomic::Ordering::SeqCst;
        let shared = &*self.shared;
        for _ in shared.waiting.load(SeqCst).min(helpers)..helpers {
            shared.waiting.fetch_add(1, SeqCst);
            let crew = self.shared.clone();
            let began = std::time::Instant::now();
            let calls = crew.calls.load(SeqCst);
            rayon::spawn(move || {
                loop {
                    // The count first: `run` posts its job before counting the call, so a
                    // changed count with no job seen after it means that call has ended.
                    let now = crew.calls.load(SeqCst);
                    if !crew.job.load(SeqCst).is_null() && crew.help() {
                        break;
                    }
                    if now != calls || began.elapsed() >= patience {
                        break;
                    }
                    std::hint::spin_loop();
                }
                crew.waiting.fetch_sub(1, SeqCst);
            });
        }
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
            let retries = 3 * RETRY_RUN as usize;
            assert!(parallel >= ways.len() - retries - 2, "the faster way is kept: {parallel} of {}", ways.len());
            assert!(ways[10..].iter().any(|&p| !p), "the slower way is tried again");
        });
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        one.install(|| assert!(!Chooser::default().parallel(), "one thread never splits"));
    }

    #[test]
    fn retries_come_in_runs_and_one_outlier_does_not_flip_the_choice() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let mut c = Chooser::default();
            let mut ways = Vec::new();
            for _ in 0..(4 * RETRY_EVERY) {
                let p = c.parallel();
                ways.push(p);
                c.took(p, if p { 1.0 } else { 2.0 });
            }
            // One thread is only timed in runs of RETRY_RUN (the first and last runs may be cut
            // by the start and the end of the calls).
            let runs: Vec<usize> = ways.split(|&p| p).map(|r| r.len()).filter(|&n| n > 0).collect();
            let inner = &runs[1..runs.len() - 1];
            assert!(inner.len() >= 2 && inner.iter().all(|&n| n == RETRY_RUN as usize), "runs of one thread: {runs:?}");
            // A hundred times slower once (a descheduled thread): the pool stays the faster way.
            c.took(true, 100.0);
            assert!(c.took[1] < c.took[0], "one outlier flipped the choice: smoothed {:?}", c.took);
        });
    }

    #[test]
    fn a_crew_does_all_the_work_with_or_without_helpers() {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let crew = Crew::default();
        for helpers in [0, 1, 2, 5] {
            for round in 0..50 {
                let mut items = vec![0u32; 1000];
                let queue = Mutex::new(items.chunks_mut(7));
                let takers = AtomicUsize::new(0);
                let work = || {
                    takers.fetch_add(1, Ordering::Relaxed);
                    while let Some(chunk) = queue.lock().ok().and_then(|mut q| q.next()) {
                        for x in chunk {
                            *x += 1 + round;
                        }
                    }
                };
                pool.install(|| crew.run(helpers, &work));
                assert!(items.iter().all(|&x| x == 1 + round), "every item once, {helpers} helpers");
                assert!(takers.load(Ordering::Relaxed) <= 1 + helpers);
            }
        }
        // A helper that cannot start before the call ends (the pool's one thread is the
        // caller): the call does not wait for it, and when it runs later it finds nothing.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let takers = AtomicUsize::new(0);
        let work = || {
            takers.fetch_add(1, Ordering::Relaxed);
        };
        one.install(|| crew.run(1, &work));
        one.install(|| ());
        assert_eq!(takers.load(Ordering::Relaxed), 1, "the late helper found the work gone");
    }

    /// Waits (up to a minute, for a loaded machine) until `done` holds.
    fn eventually(done: impl Fn() -> bool) -> bool {
        let began = std::time::Instant::now();
        while !done() {
            if began.elapsed() > std::time::Duration::from_secs(60) {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }

    #[test]
    fn a_readied_helper_joins_the_next_call_and_leaves_after_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let crew = Crew::default();
        let waiting = || crew.shared.waiting.load(Ordering::SeqCst);
        pool.install(|| crew.ready(1, Duration::from_secs(600)));
        assert_eq!(waiting(), 1);
        // Asking again while it waits wakes no second one.
        pool.install(|| crew.ready(1, Duration::from_secs(600)));
        assert_eq!(waiting(), 1);
        // The call spawns nobody (one is waiting), so a second taker can only be the readied
        // helper; the work holds the call open until it has come.
        let takers = AtomicUsize::new(0);
        let work = || {
            takers.fetch_add(1, Ordering::SeqCst);
            assert!(eventually(|| takers.load(Ordering::SeqCst) >= 2), "the readied helper never joined");
        };
        pool.install(|| crew.run(1, &work));
        assert_eq!(takers.load(Ordering::SeqCst), 2);
        assert!(eventually(|| waiting() == 0), "the helper left after its call");
        assert!(crew.shared.job.load(Ordering::SeqCst).is_null());
    }

    #[test]
    fn readied_helpers_leave_when_dismissed_or_out_of_patience() {
        use std::sync::atomic::Ordering;
        use std::time::Duration;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let crew = Crew::default();
        let waiting = || crew.shared.waiting.load(Ordering::SeqCst);
        pool.install(|| crew.ready(2, Duration::from_secs(600)));
        assert_eq!(waiting(), 2);
        crew.dismiss();
        assert!(eventually(|| waiting() == 0), "dismissed helpers left");
        pool.install(|| crew.ready(2, Duration::from_millis(1)));
        assert!(eventually(|| waiting() == 0), "helpers out of patience left");
        // A call after they left still gets its work done, by whoever comes.
        let mut items = vec![0u32; 100];
        let queue = std::sync::Mutex::new(items.chunks_mut(3));
        let work = || {
            while let Some(chunk) = queue.lock().ok().and_then(|mut q| q.next()) {
                chunk.iter_mut().for_each(|x| *x += 1);
            }
        };
        pool.install(|| crew.run(2, &work));
        assert!(items.iter().all(|&x| x == 1));
    }
}
