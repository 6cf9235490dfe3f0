//! The first SIGINT or SIGTERM ends `sinew run`, whatever the game thread is doing. The signal
//! asks the game to quit, and the script watchdog interrupts running Lua once, which ends the
//! run cleanly (`final`, the screenshot). That is not enough when the game thread does not come
//! back: an `xpcall` handler that loops after the interruption, a `pcall` that swallows it in a
//! loop, or a load that takes 20 s outside Lua. Then this deadline ends the process with status
//! 130, as a second signal would.
use std::time::Duration;

/// How long a clean end may take after the signal. A clean end (`final` callbacks, writing the
/// screenshot) takes milliseconds.
pub const GRACE: Duration = Duration::from_secs(2);

/// How often the signal is looked for.
const POLL: Duration = Duration::from_millis(20);

/// Starts the thread that holds the deadline (once per process).
pub fn end_within_grace_after_signal() {
    static STARTED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new().name("sinew-interrupt".into()).spawn(|| {
            while !crate::script::watchdog::quit_requested() {
                std::thread::sleep(POLL);
            }
            std::thread::sleep(GRACE);
            eprintln!(
                "error: interrupted, and the run did not end within {} s (a script that does not return, or a long load): exiting",
                GRACE.as_secs()
            );
            // SAFETY: `_exit` ends the process without running anything else; the game thread
            // may hold any lock, so nothing that could wait on one runs here.
            unsafe { libc::_exit(130) };
        });
        if let Err(e) = spawned {
            log::warn!("cannot start the interrupt thread ({e}): a second Ctrl-C may be needed");
        }
    });
}
