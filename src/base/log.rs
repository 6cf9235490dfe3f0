//! The runtime's own log: stderr, level from `SINEW_LOG` (debug|info|warn|error, default info).
//! Hand-written because it is twenty lines and keeps the dependency tree lean.
use log::{Level, LevelFilter, Log, Metadata, Record};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a repeated error or warning is summarised.
pub const REPEAT_WINDOW: Duration = Duration::from_secs(1);
/// How many distinct recent messages are tracked; past that, all pending counts are printed
/// and tracking starts over (nothing is lost from a count).
const TRACKED: usize = 256;

struct Seen {
    tag: &'static str,
    /// Repeats not yet printed in a summary.
    pending: u64,
    /// When the message or its last summary was printed.
    printed: Instant,
}

/// Folds floods of identical errors and warnings: a message is printed in full unless the same
/// text was printed (or summarised) less than [`REPEAT_WINDOW`] ago; then it is only counted,
/// and "… repeated N times: <first line>" is printed once the window has passed (at the next
/// message, at the end of a frame, or at exit). Every repeat is in exactly one summary.
#[derive(Default)]
pub struct Repeats {
    seen: HashMap<String, Seen>,
    swept: Option<Instant>,
}

fn summary(tag: &str, text: &str, n: u64) -> String {
    let first = text.lines().next().unwrap_or("");
    let head: String = first.chars().take(120).collect();
    let times = if n == 1 { "time" } else { "times" };
    format!("{tag}: … repeated {n} {times}: {head}")
}

impl Repeats {
    /// The lines to print for one message.
    pub fn accept(&mut self, tag: &'static str, text: &str, now: Instant, out: &mut Vec<String>) {
        if self.swept.is_none_or(|t| now.duration_since(t) >= REPEAT_WINDOW / 10) {
            self.sweep(now, false, out);
        }
        if let Some(s) = self.seen.get_mut(text) {
            let quiet = now.duration_since(s.printed) >= REPEAT_WINDOW;
            if !quiet || s.pending > 0 {
                s.pending += 1;
                if quiet {
                    out.push(summary(s.tag, text, s.pending));
                    s.pending = 0;
                    s.printed = now;
                }
                return;
            }
            self.seen.remove(text);
        }
        if self.seen.len() >= TRACKED {
            self.sweep(now, true, out);
            self.seen.clear();
        }
        out.push(format!("{tag}: {text}"));
        self.seen.insert(text.to_string(), Seen { tag, pending: 0, printed: now });
    }

    /// Summaries that are due (all pending ones when `all`); forgets quiet messages.
    pub fn sweep(&mut self, now: Instant, all: bool, out: &mut Vec<String>) {
        self.swept = Some(now);
        let mut due: Vec<(&String, &mut Seen)> = self
            .seen
            .iter_mut()
            .filter(|(_, s)| s.pending > 0 && (all || now.duration_since(s.printed) >= REPEAT_WINDOW))
            .collect();
        due.sort_by_key(|(_, s)| s.printed);
        for (text, s) in due {
            out.push(summary(s.tag, text, s.pending));
            s.pending = 0;
            s.printed = now;
        }
        self.seen.retain(|_, s| s.pending > 0 || now.duration_since(s.printed) < REPEAT_WINDOW);
    }
}

static REPEATS: Mutex<Option<Repeats>> = Mutex::new(None);

fn emit(lines: &[String]) {
    let mut err = std::io::stderr().lock();
    for l in lines {
        let _ = writeln!(err, "{l}");
    }
}

fn with_repeats(f: impl FnOnce(&mut Repeats, &mut Vec<String>)) {
    let mut out = Vec::new();
    if let Ok(mut r) = REPEATS.lock() {
        f(r.get_or_insert_with(Repeats::default), &mut out);
    }
    emit(&out);
}

/// Prints every pending "… repeated" summary; called once at exit so no count is lost.
pub fn finish() {
    with_repeats(|r, out| r.sweep(Instant::now(), true, out));
}

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= log::max_level()
    }
    fn log(&self, r: &Record) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let tag = match r.level() {
            Level::Error => "ERROR",
            Level::Warn => "WARNING",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        };
        if r.level() <= Level::Warn {
            let text = r.args().to_string();
            with_repeats(|rep, out| rep.accept(tag, &text, Instant::now(), out));
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{tag}: {}", r.args());
    }
    /// Prints the summaries that are due (the run loop calls this once per frame).
    fn flush(&self) {
        with_repeats(|r, out| r.sweep(Instant::now(), false, out));
    }
}

static LOGGER: StderrLogger = StderrLogger;

/// Installs the logger once; later calls only update the level.
pub fn init() {
    let level = match std::env::var("SINEW_LOG").ok().as_deref() {
        Some("debug") => LevelFilter::Debug,
        Some("trace") => LevelFilter::Trace,
        Some("warn") => LevelFilter::Warn,
        Some("error") => LevelFilter::Error,
        _ => LevelFilter::Info,
    };
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(level);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(lines: &[String], text: &str) -> u64 {
        let mut n = 0;
        for l in lines.iter().filter(|l| l.ends_with(text)) {
            n += match l.split("repeated ").nth(1) {
                Some(rest) => rest.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0),
                None => 1,
            };
        }
        n
    }

    #[test]
    fn a_flood_prints_once_then_a_summary_per_second_and_keeps_the_count() {
        let mut r = Repeats::default();
        let mut out = Vec::new();
        let t0 = Instant::now();
        // 2.5 s of 1000 identical errors every 10 ms, interleaved with a second message.
        for step in 0..250u32 {
            let now = t0 + Duration::from_millis(10 * step as u64);
            for _ in 0..1000 {
                r.accept("ERROR", "Instance '/nobody' could not be found", now, &mut out);
            }
            r.accept("ERROR", "other", now, &mut out);
        }
        r.sweep(t0 + Duration::from_secs(3), true, &mut out);
        assert!(out.len() <= 8, "{out:#?}");
        assert_eq!(out[0], "ERROR: Instance '/nobody' could not be found");
        assert_eq!(counted(&out, "Instance '/nobody' could not be found"), 250_000, "{out:#?}");
        assert_eq!(counted(&out, "other"), 250, "{out:#?}");
    }

    #[test]
    fn different_messages_all_print_and_a_quiet_message_prints_again() {
        let mut r = Repeats::default();
        let mut out = Vec::new();
        let t0 = Instant::now();
        r.accept("ERROR", "a", t0, &mut out);
        r.accept("WARNING", "b", t0, &mut out);
        r.accept("ERROR", "a", t0 + Duration::from_secs(2), &mut out);
        assert_eq!(out, ["ERROR: a", "WARNING: b", "ERROR: a"]);
    }
}
