//! Scripts that run in the middle of the runtime's own loops (a metamethod on `self` reached
//! by a pass over Rust storage) cannot leave those loops holding stale pointers (issue 32).
//! Debug builds move the tween cells on every growth, so a stale pointer fails every time.
mod common;
use common::*;

/// Issue 32 item 1: a timer callback started from `__index` (the pass before the tweens) and
/// from `__newindex` (the pass after them) animates new script properties, growing the cells
/// both passes walk. Before the fix `x` started at 0 and the process died of heap corruption.
#[test]
fn tween_passes_survive_the_cells_growing_under_them() {
    let p = committed("reentrant_cells");
    let r = run_project(p.path(), 12, &[]);
    assert_lua_passed(&r, "reentrant_cells");
}
