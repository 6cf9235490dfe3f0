//! Stops Lua that does not come back: a callback that runs past the time limit, or any Lua
//! running when the process gets SIGINT or SIGTERM. It owns one background thread and the
//! signal handlers; it touches no game state.
//!
//! LuaJIT's sanctioned way to interrupt running code from outside is `lua_sethook` with a count
//! of 1, called from a signal handler or another thread (luajit.c does it for Ctrl-C). The hook
//! then runs at the next instruction the interpreter executes and raises a Lua error there, so
//! the callback unwinds through the ordinary error path (traceback, `file:line`) and the game
//! goes on. JIT-compiled loops only notice the hook because LuaJIT is built with
//! `LUAJIT_ENABLE_CHECKHOOK` (`.cargo/config.toml`).
//!
//! The budget is per entry from Rust into Lua (one update pass, one `init` round, one message
//! delivery), measured from when the entry began; when it fires, the clock restarts, so the
//! scripts after a stuck one get a full budget again.
use mlua::ffi::{self, lua_Debug, lua_State};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The time one entry into Lua may take until the project sets its own. Sinew decision: long
/// enough for any honest loading work, short enough that a stuck game is noticed.
pub const DEFAULT_LIMIT: Duration =
    Duration::from_millis((crate::project::types::DEFAULT_SCRIPT_TIME_LIMIT * 1000.0) as u64);

/// How the two errors the hook raises begin (after the script's `file:line: `). Lua's `xpcall`
/// hands them back without running the script's message handler: a handler runs where the
/// error was raised, here inside LuaJIT's hook, where no hook fires again, so a handler that
/// looped there could never be stopped (issue 32).
pub const STOP_MESSAGES: [&str; 2] = ["script ran too long (", "interrupted (SIGINT or SIGTERM)"];

/// How often the watchdog thread looks; also the resolution of the limit.
const TICK: Duration = Duration::from_millis(20);

/// One Lua state under watch.
pub struct Watch {
    state: AtomicPtr<lua_State>,
    /// The allocator cookie of the state's global state: the hook may run on any coroutine of
    /// it, and this is what they share.
    alloc_ud: usize,
    /// Milliseconds since [`epoch`] + 1 at which the current entry began; 0 when Lua is idle.
    entered: AtomicU64,
    /// The limit in milliseconds; 0 = no limit.
    limit_ms: AtomicU64,
    /// Set when the hook was armed for this state and has not fired yet.
    armed: AtomicBool,
    /// Nesting of entries (Lua → Rust → Lua); only the outermost one is timed.
    depth: AtomicU32,
}

// The hook finds its `Watch` through the state's global state: one registry of every watched
// state. Rarely more than one (tests run several).
fn registry() -> &'static Mutex<Vec<Weak<Watch>>> {
    static R: OnceLock<Mutex<Vec<Weak<Watch>>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(Vec::new()))
}

fn epoch() -> Instant {
    static E: OnceLock<Instant> = OnceLock::new();
    *E.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64 + 1
}

/// [`now_ms`] as of the watchdog's last tick. Entries read this instead of the clock: a frame
/// enters Lua once per delivered message, and the limit needs no finer time than a tick.
static COARSE_MS: AtomicU64 = AtomicU64::new(1);

/// Signals received so far (SIGINT or SIGTERM); the game loop quits when it is non-zero.
static SIGNALS: AtomicU32 = AtomicU32::new(0);
/// Set by a signal, taken by the first hook that fires after it.
static INTERRUPT: AtomicBool = AtomicBool::new(false);

impl Watch {
    /// Starts watching `lua` (starting the watchdog thread on first use).
    pub fn new(lua: &mlua::Lua) -> Arc<Watch> {
        let mut state: *mut lua_State = std::ptr::null_mut();
        // SAFETY: the closure only copies the pointer out; the main state lives as long as `lua`,
        // which the owner of this `Watch` keeps alive at least as long (ScriptHost drops the
        // `Watch` first).
        let _ = unsafe { lua.exec_raw::<()>((), |l| state = l) };
        let w = Arc::new(Watch {
            state: AtomicPtr::new(state),
            alloc_ud: alloc_ud(state),
            entered: AtomicU64::new(0),
            limit_ms: AtomicU64::new(DEFAULT_LIMIT.as_millis() as u64),
            armed: AtomicBool::new(false),
            depth: AtomicU32::new(0),
        });
        if let Ok(mut r) = registry().lock() {
            r.retain(|x| x.strong_count() > 0);
            r.push(Arc::downgrade(&w));
        }
        start_thread();
        w
    }

    /// Sets the time one entry may take; `None` turns the limit off.
    pub fn set_limit(&self, limit: Option<Duration>) {
        let ms = limit.map(|d| (d.as_millis() as u64).max(1)).unwrap_or(0);
        self.limit_ms.store(ms, Ordering::Relaxed);
    }

    /// Marks Lua as running until the guard drops.
    pub fn enter(&self) -> EntryGuard<'_> {
        if self.depth.fetch_add(1, Ordering::AcqRel) == 0 {
            self.entered.store(COARSE_MS.load(Ordering::Relaxed), Ordering::Release);
        }
        EntryGuard(self)
    }

    /// Detaches from the Lua state; called before the state closes.
    pub fn detach(&self) {
        let l = self.state.swap(std::ptr::null_mut(), Ordering::AcqRel);
        self.entered.store(0, Ordering::Release);
        if !l.is_null() && self.armed.swap(false, Ordering::AcqRel) {
            // SAFETY: the state is still open (detach runs before the Lua state drops).
            unsafe { ffi::lua_sethook(l, None, 0, 0) };
        }
    }

    fn over_limit(&self, now: u64) -> bool {
        let limit = self.limit_ms.load(Ordering::Relaxed);
        let since = self.entered.load(Ordering::Acquire);
        limit != 0 && since != 0 && now.saturating_sub(since) > limit
    }

    fn arm(&self) {
        let l = self.state.load(Ordering::Acquire);
        if l.is_null() || self.armed.swap(true, Ordering::AcqRel) {
            return;
        }
        // SAFETY: LuaJIT documents lua_sethook with count 1 as safe to call from another thread
        // while the state runs; it only stores the hook and its mask.
        unsafe { ffi::lua_sethook(l, Some(hook), ffi::LUA_MASKCOUNT, 1) };
    }
}

pub struct EntryGuard<'a>(&'a Watch);

impl Drop for EntryGuard<'_> {
    fn drop(&mut self) {
        if self.0.depth.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.entered.store(0, Ordering::Release);
        }
    }
}

/// True once SIGINT or SIGTERM arrived: the game loop ends the run cleanly.
pub fn quit_requested() -> bool {
    SIGNALS.load(Ordering::Relaxed) > 0
}

fn start_thread() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new().name("sinew-watchdog".into()).spawn(|| {
            loop {
                std::thread::sleep(TICK);
                let now = now_ms();
                COARSE_MS.store(now, Ordering::Relaxed);
                let interrupt = INTERRUPT.load(Ordering::Acquire);
                let Ok(r) = registry().lock() else { return };
                for w in r.iter().filter_map(Weak::upgrade) {
                    let running = w.entered.load(Ordering::Acquire) != 0;
                    if running && (interrupt || w.over_limit(now)) {
                        w.arm();
                    }
                }
            }
        });
        if let Err(e) = spawned {
            log::warn!("cannot start the script watchdog ({e}): endless scripts will not be stopped");
        }
    });
}

fn alloc_ud(l: *mut lua_State) -> usize {
    if l.is_null() {
        return 0;
    }
    let mut ud: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: reads two fields of an open state's global state.
    unsafe { ffi::lua_getallocf(l, &mut ud) };
    ud as usize
}

/// Raises the Lua error that stops the running script; runs on the game thread, inside Lua.
unsafe extern "C-unwind" fn hook(l: *mut lua_State, _ar: *mut lua_Debug) {
    let now = now_ms();
    let mine = alloc_ud(l);
    let mut message: Option<String> = None;
    if let Ok(r) = registry().lock() {
        for w in r.iter().filter_map(Weak::upgrade) {
            if w.alloc_ud != mine || !w.armed.swap(false, Ordering::AcqRel) {
                continue;
            }
            if INTERRUPT.swap(false, Ordering::AcqRel) {
                message = Some(format!("{}: the run ends after this frame", STOP_MESSAGES[1]));
            } else if w.over_limit(now) {
                let limit = w.limit_ms.load(Ordering::Relaxed) as f64 / 1000.0;
                message = Some(format!(
                    "{}more than {limit} s without returning; \"script_time_limit\" in project.json sets the limit)",
                    STOP_MESSAGES[0]
                ));
                // The scripts after this one get a full budget.
                w.entered.store(now, Ordering::Release);
            }
        }
    }
    // SAFETY: `l` is the running state handed to the hook. The hook is removed first so the
    // error handler does not trip it again; `lua_error` unwinds to the innermost pcall (the
    // runtime's xpcall around every callback), past this frame, which owns nothing to drop
    // (the lock above is released and `message` is moved into Lua before the call).
    unsafe {
        ffi::lua_sethook(l, None, 0, 0);
        if let Some(m) = message {
            ffi::luaL_where(l, 0);
            ffi::lua_pushlstring(l, m.as_ptr().cast(), m.len());
            drop(m);
            ffi::lua_concat(l, 2);
            ffi::lua_error(l);
        }
    }
}

/// Installs the SIGINT/SIGTERM handlers of `sinew run`: the first signal asks the game to quit
/// (running Lua is interrupted, `final` runs, the screenshot is written); a second one ends the
/// process at once with status 130, for a script that swallows the interruption.
pub fn install_signal_handlers() {
    extern "C" fn on_signal(_sig: libc::c_int) {
        // Only atomics here: async-signal-safe. The watchdog thread arms the hook.
        if SIGNALS.fetch_add(1, Ordering::AcqRel) > 0 {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(130) };
        }
        INTERRUPT.store(true, Ordering::Release);
    }
    // Make sure the thread exists even before any Lua state does.
    start_thread();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a plain handler that only touches atomics; SDL, initialised later, keeps a
        // handler that is already installed instead of replacing it.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

/// Drops an interruption nobody consumed (it arrived while no Lua ran).
pub fn clear_interrupt() {
    INTERRUPT.store(false, Ordering::Release);
}
