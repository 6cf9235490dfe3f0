//! `go.animate` from Lua: the test projects under tests/projects/animate run headless with
//! dt 0.25 (Defold's anim test scripts re-expressed, plus argument errors, targets, callbacks,
//! cancel and deletion).
mod common;
use common::*;

#[test]
fn lua_animate() {
    let p = committed("animate");
    let r = run_project(p.path(), 20, &[]);
    assert_lua_passed(&r, "animate");
    assert!(r.stderr.contains("callback failure is reported"), "callback errors are logged\n{}", r.show());
    assert!(r.stderr.contains("/main/tester.script:"), "callback errors name the script\n{}", r.show());
}
