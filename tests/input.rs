//! Input through the real binary, driven by replay files (input.md sections 2–5): every
//! row of the dispatch rules, fixed update, pacing, bad bindings and bad replays.
mod common;
use common::*;
use std::path::Path;

/// Runs a committed project headless with `--replay FILE` (relative to the project).
fn replay(p: &TempDir, file: &str, dt: &str, extra: &[&str]) -> Run {
    let dir = p.path().to_str().expect("utf-8 path");
    let file = p.path().join(file);
    let file = file.to_str().expect("utf-8 path");
    let mut args = vec!["run", dir, "--headless", "--fixed-dt", dt, "--frames", "100", "--replay", file];
    args.extend_from_slice(extra);
    sinew(&args)
}

fn lines(r: &Run) -> Vec<&str> {
    r.stdout.lines().collect()
}

/// A loaded world hears input only through its proxy's object, as in Defold: before the
/// loader acquires focus the world's own focus counts for nothing; after, the world's objects
/// come right after the loader's scripts and a consumed action stops there; a disabled world
/// hears nothing.
#[test]
fn a_proxy_world_hears_input_through_its_proxys_focus() {
    let p = committed("proxy_input");
    let r = replay(&p, "input.replay", "0.1", &["--size", "64x48"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let heard: Vec<&str> = lines(&r).into_iter().filter(|l| l.contains(" hash: [key_")).collect();
    assert_eq!(
        heard,
        [
            "below hash: [key_a]",
            "loader hash: [key_c]",
            "button hash: [key_c]",
            "loader hash: [key_d]",
            "button hash: [key_d]",
            "loader hash: [key_e]",
            "below hash: [key_e]",
        ],
        "{}",
        r.show()
    );
}

/// A Defold project whose game.project names no binding reads `/input/game.input_binding`, as
/// Defold's engine does (its editor leaves that default out of the file): W is the project's
/// action "up", where Sinew once took `all.input_binding` and sent `key_w`.
#[test]
fn a_defold_project_without_a_game_binding_reads_its_own_input_binding() {
    let p = committed("defold_binding");
    let r = replay(&p, "keys.replay", "0.1", &["--size", "64x48"]);
    assert_lua_passed(&r, "defold_binding");
}

/// `window.set_listener` hears the window's focus, minimising and resizes, through `--replay`.
#[test]
fn window_listener_hears_focus_minimise_and_resize() {
    let p = committed("window_events");
    let r = replay(&p, "events.replay", "0.1", &["--size", "64x48"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let expected = [
        "tester FOCUS_LOST nil nil",
        "tester FOCUS_GAINED nil nil",
        "tester RESIZED 300 200",
        "tester ICONIFIED nil nil",
        "tester DEICONIFIED nil nil",
    ];
    assert_eq!(lines(&r), expected, "{}", r.show());
}

#[test]
fn keys_press_hold_repeat_release() {
    let p = committed("input_keys");
    let r = replay(&p, "keys.replay", "0.1", &["--size", "64x48"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let jump = |f: u32, v: u32, p: u32, rel: u32, rep: u32| format!("{f} hash: [jump] v={v} p={p} r={rel} rep={rep}");
    // Defold's rule: `repeated` is also true on the press frame.
    let left = |f: u32, v: u32, p: u32, rel: u32| format!("{f} hash: [left] v={v} p={p} r={rel} rep={p}");
    let expected = [
        jump(1, 1, 1, 0, 1),
        jump(2, 1, 0, 0, 0),
        jump(3, 1, 0, 0, 0),
        jump(4, 1, 0, 0, 1), // repeat_delay 0.3 s (project.json input_repeat)
        jump(5, 1, 0, 0, 0),
        jump(6, 1, 0, 0, 1), // then every repeat_interval 0.2 s
        jump(7, 1, 0, 0, 0),
        jump(8, 1, 0, 0, 1),
        jump(9, 0, 0, 1, 0),
        left(12, 0, 1, 1), // down and up within one frame
        left(14, 1, 1, 0), // KEY_A and KEY_LEFT share the action: held while either is
        left(15, 1, 0, 0),
        left(16, 1, 0, 0),
        left(17, 0, 0, 1),
    ];
    assert_eq!(lines(&r), expected, "{}", r.show());
}

#[test]
fn focus_stack_order_consume_release_delete_and_errors() {
    let p = committed("input_focus");
    let r = replay(&p, "focus.replay", "0.1", &["--size", "64x48"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let all = |k: &str| {
        vec![
            format!("top hash: [{k}]"),
            format!("middle hash: [{k}]"),
            format!("middle#second hash: [{k}]"),
            format!("bottom hash: [{k}]"),
        ]
    };
    let mut expected = all("key_a");
    // middle consumes key_c: its second script still runs, bottom gets nothing.
    expected.extend(all("key_c").into_iter().take(3));
    // top raises an error on key_e: reported, and dispatch goes on below it.
    expected.extend(all("key_e"));
    // top releases focus on key_r (handled after this frame's dispatch).
    expected.extend(all("key_r"));
    expected.extend(all("key_a").into_iter().skip(1));
    // middle deletes itself on key_d and leaves the stack.
    expected.extend(all("key_d").into_iter().skip(1));
    expected.push("bottom hash: [key_a]".into());
    assert_eq!(lines(&r), expected, "{}", r.show());
    assert!(r.stderr.contains("/main/focus.script:15: boom from top"), "{}", r.show());
    assert!(r.stderr.contains("stack traceback"), "{}", r.show());
    assert!(!r.stdout.contains("on_message"), "focus messages must not reach on_message\n{}", r.show());
}

#[test]
fn pointer_wheel_text_and_gamepad_with_a_window_smaller_than_the_project() {
    let p = committed("input_pointer");
    // The project's window is 960x540; the real one 480x270, so x/y are twice screen_x/y.
    let r = replay(&p, "pointer.replay", "0.1", &["--size", "480x270"]);
    assert_eq!(r.status, 0, "{}", r.show());
    let at = "x=240 y=400 sx=120 sy=200 dx=0 dy=0 sdx=0 sdy=0";
    let expected = [
        "1 nil v=0 p=false r=false x=240 y=400 sx=120 sy=200 dx=240 dy=-140 sdx=120 sdy=-70".to_string(),
        // Defold's all.input_binding: the left button is `mouse_button_left` and `touch`.
        format!("2 hash: [mouse_button_left] v=1 p=true r=false {at}"),
        format!("2 hash: [touch] v=1 p=true r=false {at}"),
        format!("3 hash: [mouse_button_left] v=0 p=false r=true {at}"),
        format!("3 hash: [touch] v=0 p=false r=true {at}"),
        format!("4 hash: [mouse_wheel_up] v=2 p=true r=false {at}"),
        format!("5 hash: [mouse_wheel_down] v=1 p=true r=false {at}"),
        format!("6 hash: [text] v=1 p=true r=false {at} text=hé"),
        format!("7 hash: [marked_text] v=1 p=true r=false {at} text=ni"),
        format!("8 hash: [gamepad_connected] v=1 p=true r=false {at} gamepad=0 name=Test Pad"),
        format!("9 hash: [gamepad_lstick_left] v=0.75 p=true r=false {at} gamepad=0"),
        // 0.1 is inside the dead zone: the stick is released.
        format!("10 hash: [gamepad_lstick_left] v=0 p=false r=true {at} gamepad=0"),
        format!("11 hash: [gamepad_rpad_down] v=1 p=true r=false {at} gamepad=0"),
        format!("12 hash: [gamepad_rpad_down] v=0 p=false r=true {at} gamepad=0"),
        // After a resize to the project's size, logical and screen coordinates agree.
        "13 nil v=0 p=false r=false x=480 y=270 sx=480 sy=270 dx=360 dy=-200 sdx=360 sdy=-200".to_string(),
        "14 hash: [gamepad_disconnected] v=1 p=true r=false x=480 y=270 sx=480 sy=270 dx=0 dy=0 sdx=0 sdy=0 gamepad=0"
            .to_string(),
    ];
    assert_eq!(lines(&r), expected, "{}", r.show());
}

#[test]
fn replay_is_deterministic_output_and_pixels() {
    let p = committed("input_pointer");
    let shots: Vec<_> = (0..2).map(|i| p.path().join(format!("shot{i}.png"))).collect();
    let runs: Vec<Run> = shots
        .iter()
        .map(|s| replay(&p, "pointer.replay", "0.1", &["--size", "96x54", "--screenshot", s.to_str().unwrap()]))
        .collect();
    assert_eq!(runs[0].status, 0, "{}", runs[0].show());
    assert!(!runs[0].stdout.is_empty());
    assert_eq!(runs[0].stdout, runs[1].stdout);
    let png = |s: &Path| std::fs::read(s).expect("screenshot written");
    assert_eq!(png(&shots[0]), png(&shots[1]));
}

fn fixed_project(freq: &str) -> TempDir {
    let p = committed("input_fixed");
    p.write(
        "/project.json",
        &format!(r#"{{ "main_collection": "/main/main.collection", "fixed_update_frequency": {freq} }}"#),
    );
    p
}

#[test]
fn fixed_update_counts_at_30_60_120_hz() {
    for (freq, steps, dt) in [("30", 30, 1.0 / 30.0), ("60", 60, 1.0 / 60.0), ("120", 120, 1.0 / 120.0)] {
        let p = fixed_project(freq);
        let dir = p.path().to_str().expect("utf-8 path");
        let r = sinew(&["run", dir, "--headless", "--size", "32x32", "--frames", "60", "--fixed-dt", "0.0166666667"]);
        assert_eq!(r.status, 0, "{}", r.show());
        let want = format!("frames=60 fixed_steps={steps} fixed_dt={dt:.6}");
        assert_eq!(lines(&r), [want.as_str()], "{freq} Hz\n{}", r.show());
    }
    let p = fixed_project("0");
    let r = sinew(&["run", p.path().to_str().unwrap(), "--headless", "--frames", "10", "--fixed-dt", "0.0166666667"]);
    assert_eq!(lines(&r), ["frames=10 fixed_steps=0 fixed_dt=0.000000"], "{}", r.show());
}

#[test]
fn fixed_update_runs_at_most_five_steps_per_frame_and_warns() {
    // dt 0.25 at 60 Hz would need 15 steps per frame.
    let r = run_project(fixed_project("60").path(), 4, &[]);
    assert_eq!(lines(&r), ["frames=4 fixed_steps=20 fixed_dt=0.016667"], "{}", r.show());
    assert_eq!(r.stderr.matches("fixed_update fell behind").count(), 1, "one warning per second\n{}", r.show());
    // Without any fixed_update the steps are not missed, so nothing is said.
    let quiet = committed("input_keys");
    let r = run_project(quiet.path(), 4, &[]);
    assert!(!r.stderr.contains("fixed_update"), "{}", r.show());
}

#[test]
fn headless_without_fixed_dt_runs_in_real_time() {
    let p = fixed_project("60");
    let t = std::time::Instant::now();
    let r = sinew(&["run", p.path().to_str().unwrap(), "--headless", "--size", "32x32", "--frames", "30"]);
    let took = t.elapsed().as_secs_f64();
    assert_eq!(lines(&r), ["frames=30 fixed_steps=30 fixed_dt=0.016667"], "{}", r.show());
    // 30 frames at update_frequency 60 take half a second (not a few milliseconds).
    assert!(took >= 0.45, "30 frames took {took:.3} s");
}

#[test]
fn record_then_replay_reproduces_the_session() {
    let p = committed("input_pointer");
    let rec = p.path().join("rec.jsonl");
    let first = replay(&p, "pointer.replay", "0.1", &["--size", "480x270", "--record", rec.to_str().unwrap()]);
    assert_eq!(first.status, 0, "{}", first.show());
    let recorded = std::fs::read_to_string(&rec).expect("recording written");
    assert_eq!(recorded.lines().count(), 16, "one line per event\n{recorded}");
    assert!(recorded.starts_with(r#"{"frame": 1, "type": "mouse_move", "x": 120, "y": 70}"#), "{recorded}");
    let second = replay(&p, "rec.jsonl", "0.1", &["--size", "480x270"]);
    assert_eq!(second.status, 0, "{}", second.show());
    assert_eq!(first.stdout, second.stdout);
    assert!(first.stdout.lines().count() >= 14, "{}", first.show());
}

#[test]
fn bad_replays_are_refused_before_the_run_starts() {
    let p = committed("input_keys");
    let cases = [
        ("{\"frame\": 5, \"type\": \"quit\"}\n{\"frame\": 2, \"type\": \"quit\"}\n", ":2: frame 2 comes after frame 5"),
        ("{\"frame\": 1, \"type\": \"teleport\"}\n", ":1: unknown event type 'teleport'"),
        ("{\"frame\": 1, \"type\": \"key\", \"input\": \"KEY_SPACEBAR\", \"down\": true}\n", ":1: unknown input name"),
        ("{\"frame\": 1, \"type\": \"key\"\n", ":1: not a JSON object"),
    ];
    for (text, want) in cases {
        p.write("/bad.replay", text);
        let r = replay(&p, "bad.replay", "0.1", &["--size", "64x48"]);
        assert_eq!(r.status, 1, "{}", r.show());
        assert!(r.stderr.contains(&format!("bad.replay{want}")), "wanted {want}\n{}", r.show());
        assert!(r.stdout.is_empty(), "no partial run\n{}", r.show());
    }
    let r = replay(&p, "missing.replay", "0.1", &[]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("missing.replay: cannot read replay file"), "{}", r.show());
}

#[test]
fn bad_bindings_are_reported_with_position_by_run_and_check() {
    let p = committed("input_keys");
    p.write(
        "/main/game.input_binding",
        "{\n  \"key\": [\n    { \"input\": \"KEY_SPACE\", \"action\": \"jump\" },\n    { \"input\": \"KEY_JUMP\", \"action\": \"jump\" }\n  ]\n}\n",
    );
    let r = run_project(p.path(), 2, &[]);
    assert_eq!(r.status, 1, "{}", r.show());
    assert!(r.stderr.contains("/main/game.input_binding:4:16: unknown input name 'KEY_JUMP'"), "{}", r.show());
    let c = sinew(&["check", p.path().to_str().unwrap()]);
    assert_eq!(c.status, 1, "{}", c.show());
    assert!(c.stderr.contains("/main/game.input_binding:4:16: unknown input name 'KEY_JUMP'"), "{}", c.show());
    p.write(
        "/main/game.input_binding",
        "{ \"key\": [ { \"input\": \"KEY_A\", \"action\": \"a\" },\n { \"input\": \"MOUSE_BUTTON_LEFT\", \"action\": \"a\" } ] }",
    );
    let c = sinew(&["check", p.path().to_str().unwrap()]);
    let want = "/main/game.input_binding:2:13: 'MOUSE_BUTTON_LEFT' does not belong in the \"key\" list";
    assert!(c.stderr.contains(want), "{}", c.show());
    p.write("/main/game.input_binding", "{ \"key\": [ { \"input\": \"KEY_A\", \"action\": \"a\", } ] }");
    let c = sinew(&["check", p.path().to_str().unwrap()]);
    assert!(c.stderr.contains("/main/game.input_binding:1:"), "{}", c.show());
    p.write("/project.json", r#"{ "main_collection": "/main/main.collection", "input": "/nope.input_binding" }"#);
    let c = sinew(&["check", p.path().to_str().unwrap()]);
    assert!(c.stderr.contains("/nope.input_binding"), "{}", c.show());
}
