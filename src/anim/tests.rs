//! Defold's tween cases (`test_gameobject_anim.cpp`, api.md 1.3 and 8) with dt = 0.25.
use super::*;
use crate::base::hash::hash_str;
use crate::scene::Scene;
use glam::{Quat, Vec3};

const DT: f32 = 0.25;
const EPS: f32 = 1e-6;

struct Game {
    scene: Scene,
    tweens: TweenWorld,
    finished: u32,
    cancelled: u32,
    callbacks_seen: Vec<u32>,
}

impl Game {
    fn new(objects: usize) -> Game {
        let mut scene = Scene::new();
        for i in 0..objects {
            scene.spawn(&format!("/o{i}"), 0, Vec3::ZERO, Quat::IDENTITY, Vec3::ONE).unwrap();
        }
        Game { scene, tweens: TweenWorld::new(), finished: 0, cancelled: 0, callbacks_seen: vec![] }
    }

    #[allow(clippy::too_many_arguments)]
    fn animate_full(
        &mut self,
        slot: u32,
        prop: &str,
        to: &[f32],
        playback: Playback,
        duration: f32,
        delay: f32,
        cb: u32,
    ) {
        let (base, axis) = match prop.split_once('.') {
            Some((b, a)) => (b, Some("xyzw".find(a).unwrap() as u8)),
            None => (prop, None),
        };
        let gp = ["position", "rotation", "euler", "scale"].iter().position(|&n| n == base).unwrap();
        let gp = GoProperty::from_index(gp as u32).unwrap();
        let elements = match axis {
            Some(a) => {
                let target = self.tweens.go_target(&mut self.scene, slot, gp, a);
                vec![Element { property: hash_str(prop), target, to: to[0] }]
            }
            None => self.tweens.go_elements(&mut self.scene, slot, gp, to),
        };
        let key = Key { slot, component: 0, property: hash_str(prop) };
        let spec = Spec { playback, easing: Easing::Builtin(0), duration, delay, callback: cb };
        self.tweens.animate(key, &elements, &spec).unwrap();
    }

    fn animate(&mut self, prop: &str, to: &[f32], playback: Playback, duration: f32, delay: f32) {
        self.animate_full(0, prop, to, playback, duration, delay, 1);
    }

    fn update(&mut self) {
        self.tweens.update(&mut self.scene, DT);
        for d in self.tweens.done.drain(..) {
            self.callbacks_seen.push(d.callback);
            if d.finished != 0 {
                self.finished += 1;
            } else {
                self.cancelled += 1;
            }
        }
    }

    fn x(&self) -> f32 {
        self.scene.position[0].x
    }

    fn frames(&mut self, expected: &[f32]) {
        for (n, &e) in expected.iter().enumerate() {
            self.update();
            assert!((self.x() - e).abs() < EPS, "frame {}: expected {e}, got {}", n + 1, self.x());
        }
    }
}

fn near_quat(a: Quat, b: Quat, eps: f32) {
    for (x, y) in a.to_array().iter().zip(b.to_array()) {
        assert!((x - y).abs() < eps, "expected {b:?}, got {a:?}");
    }
}

#[test]
fn animate_and_stop() {
    let mut g = Game::new(1);
    g.animate("position", &[10.0, 0.0, 0.0], Playback::OnceForward, 1.0, 0.0);
    g.frames(&[2.5, 5.0, 7.5]);
    assert_eq!((g.finished, g.cancelled), (0, 0));
    g.frames(&[10.0]);
    assert_eq!((g.finished, g.cancelled), (1, 0));
    assert!(g.tweens.is_empty());
}

#[test]
fn playback_table() {
    let mut g = Game::new(1);
    let rows: [(Playback, &[f32]); 7] = [
        (Playback::OnceForward, &[2.5, 5.0, 7.5, 10.0, 10.0]),
        (Playback::OnceBackward, &[7.5, 5.0, 2.5, 0.0, 0.0]),
        (Playback::OncePingpong, &[5.0, 10.0, 5.0, 0.0, 0.0]),
        (Playback::None, &[0.0, 0.0]),
        (Playback::LoopForward, &[2.5, 5.0, 7.5, 0.0, 2.5]),
        (Playback::LoopBackward, &[7.5, 5.0, 2.5, 10.0, 7.5]),
        (Playback::LoopPingpong, &[5.0, 10.0, 5.0, 0.0, 5.0, 10.0, 5.0, 0.0]),
    ];
    for (playback, values) in rows {
        g.scene.position[0] = Vec3::ZERO;
        g.animate("position", &[10.0, 0.0, 0.0], playback, 1.0, 0.0);
        g.frames(values);
    }
    // The three ONCE modes completed; NONE and two loops were replaced by the next tween.
    assert_eq!((g.finished, g.cancelled), (3, 3));
}

#[test]
fn callback_comes_at_frame_four_only_for_once_modes() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 1.0, 0.0);
    g.frames(&[2.5, 5.0, 7.5]);
    assert_eq!(g.finished, 0);
    g.frames(&[10.0]);
    assert_eq!(g.finished, 1);
    g.animate("position.x", &[0.0], Playback::LoopForward, 1.0, 0.0);
    for _ in 0..20 {
        g.update();
    }
    assert_eq!((g.finished, g.cancelled), (1, 0));
}

#[test]
fn cancel_and_cancel_all() {
    let mut g = Game::new(1);
    g.animate("position", &[10.0, 0.0, 0.0], Playback::OnceForward, 1.0, 0.0);
    g.tweens.cancel(
        0,
        0,
        &[hash_str("position"), hash_str("position.x"), hash_str("position.y"), hash_str("position.z")],
    );
    g.update();
    assert_eq!(g.x(), 0.0);
    assert_eq!((g.finished, g.cancelled), (0, 1));

    let mut g = Game::new(1);
    g.animate("position", &[10.0, 0.0, 0.0], Playback::OnceForward, 1.0, 0.0);
    g.animate("scale", &[2.0, 2.0, 2.0], Playback::OnceForward, 1.0, 0.0);
    g.tweens.cancel(0, 0, &[]);
    g.update();
    assert_eq!(g.x(), 0.0);
    assert_eq!(g.scene.scale[0], Vec3::ONE);
    assert_eq!((g.finished, g.cancelled), (0, 2));
}

#[test]
fn cancel_only_touches_the_addressed_component() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 1.0, 0.0);
    g.tweens.cancel(0, hash_str("script"), &[]);
    g.frames(&[2.5]);
}

#[test]
fn linked_list_cancel_head_middle_tail() {
    for (cancelled, expected) in [(0usize, [0.0, 0.25, 0.25]), (1, [0.25, 0.0, 0.25]), (2, [0.25, 0.25, 0.0])] {
        let mut g = Game::new(1);
        for p in ["position.x", "position.y", "position.z"] {
            g.animate(p, &[1.0], Playback::OnceForward, 1.0, 0.0);
        }
        let id = ["position.x", "position.y", "position.z"][cancelled];
        g.tweens.cancel(0, 0, &[hash_str(id)]);
        g.update();
        assert_eq!(g.scene.position[0].to_array(), expected);
        g.tweens.remove_object(0);
        g.update();
        assert_eq!(g.scene.position[0].to_array(), expected);
    }
}

#[test]
fn animate_euler_to_360() {
    let mut g = Game::new(1);
    g.animate("euler.z", &[360.0], Playback::OnceForward, 1.0, 0.0);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    for (z, w) in [(h, h), (1.0, 0.0), (h, -h), (0.0, -1.0)] {
        g.update();
        let r = g.scene.rotation[0];
        assert!((r.z - z).abs() < 1e-4 && (r.w - w).abs() < 1e-4, "expected z {z} w {w}, got {r:?}");
    }
}

#[test]
fn euler_committed_before_callbacks() {
    // The callback pass sees every Euler value of the frame in the rotations.
    let mut g = Game::new(2);
    g.animate_full(0, "euler", &[20.0, 30.0, 40.0], Playback::OnceForward, 0.5, 0.0, 7);
    g.animate_full(1, "euler.z", &[180.0], Playback::OnceForward, 0.5, 0.0, 0);
    g.tweens.update(&mut g.scene, 0.5);
    assert_eq!(g.tweens.done, [Done { callback: 7, finished: 1 }]);
    near_quat(g.scene.rotation[0], target::euler_to_quat(Vec3::new(20.0, 30.0, 40.0)), 1e-4);
    assert!((g.scene.rotation[1].z - 1.0).abs() < 1e-4 && g.scene.rotation[1].w.abs() < 1e-4);
}

#[test]
fn euler_animation_starts_from_the_current_rotation() {
    let mut g = Game::new(1);
    let rotation = target::euler_to_quat(Vec3::new(20.0, 30.0, 40.0));
    g.scene.rotation[0] = rotation;
    let mut initial = target::quat_to_euler(rotation);
    g.animate("euler.z", &[80.0], Playback::OnceForward, 0.5, 0.0);
    g.update();
    initial.z = (initial.z + 80.0) * 0.5;
    near_quat(g.scene.rotation[0], target::euler_to_quat(initial), 1e-4);
}

#[test]
fn euler_delayed_axes_and_cancellation() {
    let mut g = Game::new(1);
    g.animate("euler.x", &[120.0], Playback::OnceForward, 1.0, 0.0);
    g.animate("euler.y", &[60.0], Playback::OnceForward, 1.0, 0.25);
    g.animate("euler.z", &[720.0], Playback::OnceForward, 1.0, 0.0);
    for frame in 1..=2 {
        g.update();
        let f = frame as f32;
        let want = target::euler_to_quat(Vec3::new(30.0 * f, 15.0 * (f - 1.0), 180.0 * f));
        near_quat(g.scene.rotation[0], want, 1e-4);
    }
    let mut retained = target::quat_to_euler(g.scene.rotation[0]);
    g.tweens.cancel(0, 0, &[hash_str("euler.x")]);
    g.tweens.cancel(0, 0, &[hash_str("euler.y")]);
    g.update();
    retained.z = 540.0;
    near_quat(g.scene.rotation[0], target::euler_to_quat(retained), 1e-4);
}

#[test]
fn euler_writeback_only_for_changed_values() {
    let target_rotation = target::euler_to_quat(Vec3::new(90.0, 0.0, 0.0));
    let mut g = Game::new(4);
    for i in 0..4u32 {
        let euler_to = if i & 1 != 0 { 90.0 } else { 0.0 };
        let mut order = [("euler.z", vec![euler_to]), ("rotation", target_rotation.to_array().to_vec())];
        if i & 2 != 0 {
            order.reverse();
        }
        for (prop, to) in order {
            g.animate_full(i, prop, &to, Playback::OnceForward, 1.0, 0.0, 0);
        }
    }
    g.update();
    for i in 0..4 {
        let want = if i & 1 != 0 {
            target::euler_to_quat(Vec3::new(0.0, 0.0, 22.5))
        } else {
            Quat::from_xyzw(target_rotation.x * 0.25, 0.0, 0.0, 1.0 + (target_rotation.w - 1.0) * 0.25)
        };
        near_quat(g.scene.rotation[i], want, 1e-4);
    }
}

#[test]
fn delete_in_anim_cancels_without_callback() {
    let mut g = Game::new(3);
    for slot in 0..3 {
        g.animate_full(slot, "position", &[10.0, 0.0, 0.0], Playback::OnceForward, 1.0, 0.0, slot + 1);
    }
    for (n, slot) in [1u32, 0, 2].into_iter().enumerate() {
        g.update();
        g.tweens.remove_object(slot);
        g.update_done_only();
        assert_eq!((g.finished, g.cancelled), (0, n as u32 + 1));
        assert_eq!(g.callbacks_seen.last(), Some(&(slot + 1)));
    }
    g.update();
    assert!(g.tweens.is_empty());
}

impl Game {
    fn update_done_only(&mut self) {
        for d in self.tweens.done.drain(..) {
            self.callbacks_seen.push(d.callback);
            if d.finished != 0 {
                self.finished += 1;
            } else {
                self.cancelled += 1;
            }
        }
    }
}

#[test]
fn zero_duration_sets_the_value_and_completes() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 0.0, 0.0);
    g.update();
    assert_eq!(g.x(), 10.0);
    assert_eq!(g.finished, 1);
}

#[test]
fn delay_holds_the_value() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 1.0, 1.0);
    g.frames(&[0.0, 0.0, 0.0, 0.0]);
    g.update();
    assert!(g.x() > 0.0);

    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 1.0, 2.0);
    g.frames(&[0.0; 8]);
    g.update();
    assert!(g.x() > 0.0);
}

#[test]
fn delayed_tween_is_not_stopped_by_a_newer_one() {
    let mut g = Game::new(1);
    g.animate("position.x", &[1.0], Playback::OnceForward, 0.75, 0.25);
    g.animate("position.x", &[0.5], Playback::OnceForward, 0.75, 0.0);
    for _ in 0..4 {
        g.update();
        assert!(g.x() > 0.0);
    }
    g.update();
    assert_eq!(g.x(), 1.0);
}

#[test]
fn start_value_is_captured_when_the_delay_ends() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, 1.0, 0.5);
    g.update();
    g.scene.position[0].x = 6.0;
    g.update();
    assert_eq!(g.x(), 6.0, "starts this frame at cursor 0");
    g.frames(&[7.0, 8.0, 9.0, 10.0]);
}

#[test]
fn negative_duration_and_delay_are_zero() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::OnceForward, -1.0, -5.0);
    g.frames(&[10.0]);
    assert_eq!(g.finished, 1);
}

#[test]
fn uniform_position_and_scale() {
    let mut g = Game::new(1);
    g.scene.position[0] = Vec3::new(1.0, 2.0, 3.0);
    g.animate("position", &[2.0; 3], Playback::OnceForward, 0.25, 0.0);
    g.update();
    assert_eq!(g.scene.position[0], Vec3::splat(2.0));

    g.scene.scale[0] = Vec3::new(1.0, 2.0, 3.0);
    g.animate("scale", &[2.0; 3], Playback::OnceForward, 0.25, 0.0);
    g.update();
    assert_eq!(g.scene.scale[0], Vec3::splat(2.0));

    for (axis, prop) in ["scale.x", "scale.y", "scale.z"].into_iter().enumerate() {
        g.scene.scale[0] = Vec3::ONE;
        g.animate(prop, &[2.0], Playback::OnceForward, 0.25, 0.0);
        g.update();
        let mut want = Vec3::ONE;
        want[axis] = 2.0;
        assert_eq!(g.scene.scale[0], want);
    }
}

#[test]
fn element_tween_replaces_only_that_child_of_a_composite() {
    let mut g = Game::new(1);
    g.animate_full(0, "position", &[10.0, 10.0, 10.0], Playback::OnceForward, 1.0, 0.0, 5);
    g.update();
    g.animate_full(0, "position.x", &[-10.0], Playback::OnceForward, 0.5, 0.0, 6);
    g.update();
    let p = g.scene.position[0];
    assert!((p.x + 3.75).abs() < 1e-5 && (p.y - 5.0).abs() < 1e-5, "{p:?}");
    g.update();
    assert_eq!(g.callbacks_seen, [6]);
    g.update();
    assert_eq!(g.callbacks_seen, [6, 5], "the old composite still completes");
    assert_eq!(g.scene.position[0], Vec3::new(-10.0, 10.0, 10.0));
}

#[test]
fn composite_tween_replaces_element_tweens_and_the_old_composite() {
    let mut g = Game::new(1);
    g.animate_full(0, "position.x", &[5.0], Playback::OnceForward, 1.0, 0.0, 1);
    g.animate_full(0, "position", &[1.0, 1.0, 1.0], Playback::OnceForward, 1.0, 0.0, 2);
    g.update();
    g.animate_full(0, "position", &[-1.0, -1.0, -1.0], Playback::OnceForward, 1.0, 0.0, 3);
    for _ in 0..4 {
        g.update();
    }
    assert_eq!((g.finished, g.cancelled), (1, 2));
    assert_eq!(g.callbacks_seen.last(), Some(&3));
    assert_eq!(g.scene.position[0], Vec3::splat(-1.0));
}

#[test]
fn results_do_not_depend_on_record_order() {
    // Two objects animating each other's start values: starts read before any value moves.
    let mut a = Game::new(2);
    a.scene.position[1].x = 4.0;
    a.animate_full(0, "position.x", &[8.0], Playback::OnceForward, 1.0, 0.0, 0);
    a.animate_full(1, "position.x", &[8.0], Playback::OnceForward, 1.0, 0.0, 0);
    let mut b = Game::new(2);
    b.scene.position[1].x = 4.0;
    b.animate_full(1, "position.x", &[8.0], Playback::OnceForward, 1.0, 0.0, 0);
    b.animate_full(0, "position.x", &[8.0], Playback::OnceForward, 1.0, 0.0, 0);
    for _ in 0..3 {
        a.update();
        b.update();
        assert_eq!(a.scene.position[..2], b.scene.position[..2]);
    }
}

#[test]
fn rotation_is_interpolated_per_component() {
    let mut g = Game::new(1);
    let q = Quat::from_rotation_z(1.0);
    g.animate("rotation", &q.to_array(), Playback::OnceForward, 1.0, 0.0);
    g.update();
    near_quat(g.scene.rotation[0], Quat::from_xyzw(0.0, 0.0, q.z * 0.25, 1.0 + (q.w - 1.0) * 0.25), 1e-6);
}

#[test]
fn custom_curve_and_buffer_limit() {
    let mut g = Game::new(1);
    let curve: Vec<f32> = (0..=10).map(|i| i as f32 / 10.0).collect();
    let key = Key { slot: 0, component: 0, property: hash_str("position.y") };
    let target = Target::Position { slot: 0, axis: 1 };
    let spec = Spec {
        playback: Playback::OnceForward,
        easing: Easing::Custom(&curve),
        duration: 1.0,
        delay: 0.0,
        callback: 0,
    };
    g.tweens.animate(key, &[Element { property: key.property, target, to: 1.0 }], &spec).unwrap();
    for f in 1..=4 {
        g.update();
        assert!((g.scene.position[0].y - f as f32 * 0.25).abs() < EPS);
    }
    let many: Vec<Element> = (0..MAX_TWEENS).map(|_| Element { property: 1, target, to: 0.0 }).collect();
    assert_eq!(g.tweens.animate(key, &many, &spec), Err(AnimError::Full));
}

#[test]
fn load_test_1024_objects() {
    let mut g = Game::new(1024);
    for slot in 0..1024 {
        g.animate_full(slot, "position", &[10.0, 0.0, 0.0], Playback::OnceForward, 1.0, 0.0, 0);
    }
    assert_eq!(g.tweens.len(), 4096);
    for _ in 0..4 {
        g.update();
    }
    assert!(g.tweens.is_empty());
    assert!(g.scene.position.iter().all(|p| p.x == 10.0));
}

#[test]
fn loops_with_tiny_durations_wrap_in_one_step() {
    let mut g = Game::new(1);
    g.animate("position.x", &[10.0], Playback::LoopForward, 1e-30, 0.0);
    g.animate_full(0, "position.y", &[10.0], Playback::LoopPingpong, 1e-30, 0.0, 0);
    for _ in 0..4 {
        g.update();
    }
    assert!(g.x().is_finite() && (0.0..=10.0).contains(&g.x()), "x = {}", g.x());
    // A huge step against a short loop: a subtraction loop would stop changing the cursor.
    g.animate("position.x", &[10.0], Playback::LoopForward, 1.0e-3, 0.0);
    g.tweens.update(&mut g.scene, 1.0e7);
    assert!((0.0..=10.0).contains(&g.x()), "x = {}", g.x());
}

#[test]
fn loop_wraps_keep_their_phase() {
    let mut g = Game::new(1);
    g.animate("position", &[10.0, 0.0, 0.0], Playback::LoopForward, 1.0, 0.0);
    g.tweens.update(&mut g.scene, 5.25);
    assert!((g.x() - 2.5).abs() < EPS, "x = {}", g.x());
    g.scene.position[0] = Vec3::ZERO;
    g.animate("position", &[10.0, 0.0, 0.0], Playback::LoopPingpong, 1.0, 0.0);
    // Three whole loops and a quarter: the direction flips once per loop, as before.
    g.tweens.update(&mut g.scene, 3.25);
    let mut h = Game::new(1);
    h.animate("position", &[10.0, 0.0, 0.0], Playback::LoopPingpong, 1.0, 0.0);
    for _ in 0..13 {
        h.update();
    }
    assert!((g.x() - h.x()).abs() < EPS, "one step {} vs 13 steps {}", g.x(), h.x());
}

/// The short way through the advance pass (ONCE_FORWARD or LOOP_FORWARD, built-in curve,
/// unmirrored script cell) gives the values, cursors, callbacks and callback order of the
/// general way, bit for bit: records mixed with every other kind, delays that end inside a
/// frame, tweens ending and loops wrapping, two records on one cell (the later record wins in
/// both), mirrored cells, custom curves, and frames of several lengths, a zero one among them
/// (issue 15).
#[test]
fn short_way_equals_the_general_way() {
    let run = |general_only: bool| {
        let mut g = Game::new(400);
        g.tweens.general_only = general_only;
        let modes = [Playback::OnceForward, Playback::LoopPingpong, Playback::OnceBackward, Playback::LoopForward];
        let curve = [0.0, 0.3, 0.1, 1.0];
        let mut cb = 1;
        for slot in 0..400u32 {
            for p in 0..6u32 {
                let i = (slot * 6 + p) as usize;
                let mirrored = i.is_multiple_of(11);
                // Properties 4 and 5 share a cell: two records on one value.
                let prop = hash_str(&format!("p{}", p.min(4)));
                let (cell, _) = g.tweens.script_cell(slot, 7, prop, mirrored);
                g.tweens.cells.values[cell as usize] = i as f32 * 0.5;
                let playback = if i.is_multiple_of(3) { modes[i % 4] } else { Playback::OnceForward };
                let easing =
                    if i.is_multiple_of(13) { Easing::Custom(&curve) } else { Easing::Builtin((i % 41) as u8) };
                let (duration, delay) = (0.2 + (i % 17) as f32 * 0.13, [0.0, 0.0, 0.1, 0.3, 1.1][i % 5]);
                let e = Element { property: prop, target: Target::Script { cell }, to: 10.0 - i as f32 * 0.01 };
                let key = Key { slot, component: 7, property: prop };
                let spec = Spec { playback, easing, duration, delay, callback: cb };
                g.tweens.animate(key, &[e], &spec).unwrap();
                cb += 1;
            }
        }
        let mut frames = Vec::new();
        for f in 0..40 {
            let dt = [DT, 1.0 / 60.0, 0.0, 0.07][f % 4];
            g.tweens.update(&mut g.scene, dt);
            for d in g.tweens.done.drain(..) {
                g.callbacks_seen.push(d.callback * 2 + d.finished);
            }
            frames.push(g.tweens.cells.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        }
        (frames, g.callbacks_seen)
    };
    let (general, short) = (run(true), run(false));
    assert!(general.1.len() > 1000, "tweens ended: {}", general.1.len());
    let moving = general.0[4].iter().zip(&general.0[5]).filter(|(a, b)| a != b).count();
    assert!(moving > 1000, "values move: {moving}");
    assert_eq!(general.1, short.1, "callbacks and their order");
    for (f, (a, b)) in general.0.iter().zip(&short.0).enumerate() {
        let first = a.iter().zip(b).position(|(x, y)| x != y);
        assert!(first.is_none(), "frame {f}: cell {first:?} differs");
    }
}
