//! Rig player (api.md §2 and §4.2) and clip sampling with a fixed dt: every playback mode with
//! completion, cancel, replacement, blend, offset and rate, the expected cursors written out.
//! Durations and dt are powers of two so that the expected values are exact.
use super::clip::{Clip, SamplingCache};
use super::player::{Completion, ModelPlayer, PoseScratch};
use super::skeleton::{RigError, Skeleton};
use super::transform::Transform;
use super::tween::Playback;
use crate::project::model_data::{
    Aabb, ChannelData, ChannelPath, ClipData, Interpolation, MeshData, ModelData, NodeData, SkinData,
};
use glam::{Mat4, Quat, Vec3, Vec3A};

const DT: f32 = 0.25;

fn node(name: &str, parent: Option<usize>, t: [f32; 3]) -> NodeData {
    NodeData {
        name: name.into(),
        parent,
        translation: t,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
        gltf_index: 0,
    }
}

fn channel(node: usize, path: ChannelPath, i: Interpolation, times: &[f32], values: &[f32]) -> ChannelData {
    let components = match path {
        ChannelPath::Translation | ChannelPath::Scale => 3,
        ChannelPath::Rotation => 4,
        ChannelPath::Weights => 2,
    };
    ChannelData { node, path, interpolation: i, times: times.to_vec(), values: values.to_vec(), components }
}

/// Node 0 "root" (rest x = 7) with a two-weight mesh; node 1 "bone" child. Clip 0 "a" (1 s):
/// root x = time, weights = (time, 0). Clip 1 "b" (2 s): root x = 100 + time, weights (0, 1).
fn model() -> ModelData {
    let lin = Interpolation::Linear;
    let a = ClipData {
        name: "a".into(),
        duration: 1.0,
        channels: vec![
            channel(0, ChannelPath::Translation, lin, &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
            channel(0, ChannelPath::Weights, lin, &[0.0, 1.0], &[0.0, 0.0, 1.0, 0.0]),
        ],
    };
    let b = ClipData {
        name: "b".into(),
        duration: 2.0,
        channels: vec![
            channel(0, ChannelPath::Translation, lin, &[0.0, 2.0], &[100.0, 0.0, 0.0, 102.0, 0.0, 0.0]),
            channel(0, ChannelPath::Weights, Interpolation::Step, &[0.0], &[0.0, 1.0]),
        ],
    };
    let mesh = MeshData {
        id: "m".into(),
        node: 0,
        skin: Some(0),
        primitives: vec![],
        target_names: vec![],
        weights: vec![0.5, 0.5],
        aabb: Aabb::default(),
    };
    let skin = SkinData { name: "s".into(), joints: vec![1, 0], inverse_bind: vec![Mat4::IDENTITY.to_cols_array(); 2] };
    ModelData {
        nodes: vec![node("root", None, [7.0, 0.0, 0.0]), node("bone", Some(0), [0.0, 1.0, 0.0])],
        meshes: vec![mesh],
        skins: vec![skin],
        animations: vec![a, b],
        ..Default::default()
    }
}

struct Rig {
    skeleton: Skeleton,
    clips: Vec<Clip>,
    scratch: PoseScratch,
    player: ModelPlayer,
}

fn rig() -> Rig {
    let m = model();
    let skeleton = Skeleton::new(&m).unwrap();
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let scratch = PoseScratch::new(&skeleton, &clips);
    let player = ModelPlayer::new(&clips);
    Rig { skeleton, clips, scratch, player }
}

impl Rig {
    /// Root x and the weights after posing.
    fn pose(&mut self) -> (f32, [f32; 2]) {
        let mut locals = [Transform::IDENTITY; 2];
        let mut w = [0.0; 2];
        self.player.pose(&self.clips, &self.skeleton, &mut self.scratch, &mut locals, &mut w).unwrap();
        (locals[0].translation.x, w)
    }
    /// Normalised cursors after each of `n` updates, and the step that completed (1-based).
    fn run(&mut self, n: usize) -> (Vec<f32>, Option<(usize, Completion)>) {
        let mut done = None;
        let cursors = (1..=n)
            .map(|i| {
                if let Some(c) = self.player.update(DT) {
                    assert!(done.is_none(), "completed twice");
                    done = Some((i, c));
                }
                self.player.cursor()
            })
            .collect();
        (cursors, done)
    }
}

fn done(step: usize, animation: usize, playback: Playback) -> Option<(usize, Completion)> {
    Some((step, Completion { animation, playback }))
}

#[test]
fn once_forward_completes_once_and_holds_the_last_pose() {
    let mut r = rig();
    assert!(r.player.play(0, Playback::OnceForward, 0.0, 0.0, 1.0));
    assert_eq!(r.player.cursor(), 0.0);
    assert_eq!(r.run(6), (vec![0.25, 0.5, 0.75, 1.0, 1.0, 1.0], done(4, 0, Playback::OnceForward)));
    assert!(!r.player.is_playing());
    assert_eq!(r.player.animation(), Some(0));
    assert_eq!(r.pose(), (1.0, [1.0, 0.0]));
}

#[test]
fn once_backward_starts_at_the_end_and_mirrors_the_offset() {
    let mut r = rig();
    r.player.play(0, Playback::OnceBackward, 0.0, 0.0, 1.0);
    assert_eq!((r.player.cursor(), r.pose().0), (1.0, 1.0));
    assert_eq!(r.run(5), (vec![0.75, 0.5, 0.25, 0.0, 0.0], done(4, 0, Playback::OnceBackward)));
    assert_eq!(r.pose().0, 0.0, "ends on the clip's first frame");
    // Offset 0.25 is a quarter of the way along the backward run: clip time 0.75.
    r.player.play(0, Playback::OnceBackward, 0.0, 0.25, 1.0);
    assert_eq!(r.player.cursor(), 0.75);
    assert_eq!(r.run(4), (vec![0.5, 0.25, 0.0, 0.0], done(3, 0, Playback::OnceBackward)));
    // Offsets outside [0, 1] clamp for the backward modes: 1.5 → the clip start.
    r.player.play(0, Playback::LoopBackward, 0.0, 1.5, 1.0);
    assert_eq!(r.player.cursor(), 0.0);
}

#[test]
fn once_pingpong_runs_there_and_back_in_twice_the_duration() {
    let mut r = rig();
    r.player.play(0, Playback::OncePingpong, 0.0, 0.0, 1.0);
    let (c, d) = r.run(9);
    assert_eq!(c, [0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0]);
    assert_eq!(d, done(8, 0, Playback::OncePingpong));
    assert_eq!(r.pose().0, 0.0);
}

#[test]
fn loop_forward_wraps_and_never_completes() {
    let mut r = rig();
    r.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    assert_eq!(r.run(9), (vec![0.25, 0.5, 0.75, 0.0, 0.25, 0.5, 0.75, 0.0, 0.25], None));
    // A huge step wraps in one go: 1000.25 s → 0.25.
    r.player.update(1000.0);
    assert_eq!(r.player.cursor(), 0.25);
}

#[test]
fn loop_backward_runs_down_and_wraps_to_the_end() {
    let mut r = rig();
    r.player.play(0, Playback::LoopBackward, 0.0, 0.0, 1.0);
    assert_eq!(r.player.cursor(), 1.0);
    assert_eq!(r.run(6), (vec![0.75, 0.5, 0.25, 1.0, 0.75, 0.5], None));
}

#[test]
fn loop_pingpong_toggles_direction_each_leg() {
    let mut r = rig();
    r.player.play(0, Playback::LoopPingpong, 0.0, 0.0, 1.0);
    let (c, d) = r.run(10);
    assert_eq!(c, [0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.25, 0.0, 0.25, 0.5]);
    assert_eq!(d, None);
    // One step over a leg end flips the direction: 0.5 + 1.25 s → backward, 0.75 s into the leg.
    r.player.update(1.25);
    assert_eq!(r.player.cursor(), 0.25);
}

#[test]
fn setting_the_cursor_on_the_backward_leg_of_loop_pingpong_goes_forward() {
    let mut r = rig();
    r.player.play(0, Playback::LoopPingpong, 0.0, 0.0, 1.0);
    assert_eq!(r.run(5).0, [0.25, 0.5, 0.75, 1.0, 0.75]);
    r.player.set_cursor(0.5);
    assert_eq!(r.player.cursor(), 0.5);
    assert_eq!(r.run(2).0, [0.75, 1.0], "forward again (backward would read 0.25, 0.0)");
}

#[test]
fn none_is_posed_at_the_offset_and_never_advances() {
    let mut r = rig();
    r.player.play(0, Playback::None, 0.0, 0.5, 1.0);
    assert_eq!(r.run(4), (vec![0.5; 4], None));
    assert!(r.player.is_playing());
    assert_eq!(r.pose(), (0.5, [0.5, 0.0]));
    r.player.set_cursor(0.75); // go.animate("#model", "cursor", ...) drives it like this
    assert_eq!(r.pose().0, 0.75);
}

#[test]
fn playback_rate_scales_the_advance_and_is_clamped_at_zero() {
    let mut r = rig();
    r.player.play(1, Playback::LoopForward, 0.0, 0.0, 2.0); // 2 s clip at rate 2
    assert_eq!(r.player.playback_rate(), 2.0);
    assert_eq!(r.run(4).0, [0.25, 0.5, 0.75, 0.0]);
    r.player.set_playback_rate(-3.0);
    assert_eq!(r.player.playback_rate(), 0.0);
    assert_eq!(r.run(2).0, [0.0, 0.0]);
    r.player.set_playback_rate(f32::NAN);
    assert_eq!(r.player.playback_rate(), 0.0);
    r.player.set_playback_rate(0.5);
    assert_eq!(r.run(2).0, [0.0625, 0.125]);
    r.player.play(1, Playback::LoopForward, 0.0, 0.0, -1.0);
    assert_eq!(r.player.playback_rate(), 0.0, "play clamps too");
}

#[test]
fn cursor_normalisation_follows_set_cursor() {
    let mut r = rig();
    r.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    // (value, read back): fmod beyond ±1 with ~0 → end; negative counts from the end.
    let cases = [
        (0.25, 0.25),
        (1.0, 1.0),
        (2.0, 1.0),
        (1.25, 0.25),
        (-0.25, 0.75),
        (-1.0, 1.0),
        (-1.25, 0.75),
        (-2.0, 1.0),
        (3.00001, 1.0), // remainder 1e-5 s < 1e-4 → end
        (f32::NAN, 0.0),
        (f32::INFINITY, 0.0),
    ];
    for (set, want) in cases {
        r.player.set_cursor(set);
        assert_eq!(r.player.cursor(), want, "set_cursor({set})");
    }
    // Backwards playback stores `duration - t`, reading back the same normalised value.
    r.player.play(0, Playback::LoopBackward, 0.0, 0.0, 1.0);
    r.player.set_cursor(0.25);
    assert_eq!(r.player.cursor(), 0.25);
    assert_eq!(r.run(2).0, [1.0, 0.75], "runs down through the start and wraps to the end");
    // The offset of play follows the same rules.
    r.player.play(1, Playback::OnceForward, 0.0, -0.25, 1.0);
    assert_eq!(r.player.cursor(), 0.75);
    assert_eq!(r.pose().0, 101.5);
}

#[test]
fn cancel_freezes_the_pose_and_reports_nothing() {
    let mut r = rig();
    r.player.play(0, Playback::OnceForward, 0.0, 0.0, 1.0);
    r.run(2);
    r.player.cancel();
    assert_eq!(r.run(8), (vec![0.5; 8], None));
    assert_eq!(r.pose().0, 0.5);
    // Without an animation: rest pose, cursor 0, set_cursor ignored.
    let mut fresh = rig();
    fresh.player.cancel();
    fresh.player.set_cursor(0.5);
    assert_eq!((fresh.player.cursor(), fresh.player.animation()), (0.0, None));
    assert_eq!(fresh.pose(), (7.0, [0.5, 0.5]));
}

#[test]
fn a_replaced_once_animation_never_completes() {
    let mut r = rig();
    r.player.play(0, Playback::OnceForward, 0.0, 0.0, 1.0);
    r.run(3);
    r.player.play(1, Playback::LoopForward, 0.0, 0.0, 1.0);
    assert_eq!(r.run(8), (vec![0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 0.0], None));
    // Replaced with a cross-fade: the old ONCE clip ends during the fade, unreported.
    r.player.play(0, Playback::OnceForward, 0.0, 0.0, 1.0);
    r.run(3);
    r.player.play(1, Playback::OnceForward, 1.0, 0.0, 1.0);
    assert_eq!(r.run(4).1, None);
    assert_eq!(r.run(4).1, done(4, 1, Playback::OnceForward), "only the new clip reports, at 2 s");
}

#[test]
fn cross_fade_weights_the_new_clip_by_timer_over_duration() {
    let mut r = rig();
    r.player.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    r.player.update(DT);
    r.player.play(1, Playback::LoopForward, 1.0, 0.0, 1.0);
    assert_eq!(r.player.blend_weight(), Some(0.0));
    assert_eq!(r.pose(), (0.25, [0.25, 0.0]), "weight 0: the old clip (at 0.25 s) only");
    // Both players advance: old at 0.5 s (x 0.5), new at 0.25 s (x 100.25), weight 0.25.
    r.player.update(DT);
    assert_eq!(r.pose(), (0.5 + (100.25 - 0.5) * 0.25, [0.375, 0.25]));
    r.player.update(DT);
    assert_eq!(r.pose(), (0.75 + (100.5 - 0.75) * 0.5, [0.375, 0.5]));
    r.player.update(0.5); // timer reaches 1.0: the old player stops
    assert_eq!(r.player.blend_weight(), None);
    assert_eq!(r.pose(), (101.0, [0.0, 1.0]));
}

#[test]
fn cross_fade_from_nothing_starts_at_the_rest_pose() {
    let mut r = rig();
    r.player.play(1, Playback::LoopForward, 0.5, 0.0, 1.0);
    r.player.update(DT);
    assert_eq!(r.pose(), (7.0 + (100.25 - 7.0) * 0.5, [0.25, 0.75]));
}

#[test]
fn cross_fade_slerps_rotations_and_keeps_them_unit() {
    let mut m = model();
    let q = Quat::from_rotation_z(1.0).to_array();
    m.animations[1].channels.push(channel(1, ChannelPath::Rotation, Interpolation::Step, &[0.0], &q));
    let skeleton = Skeleton::new(&m).unwrap();
    let clips: Vec<Clip> = m.animations.iter().map(|a| Clip::new(a, &skeleton).unwrap()).collect();
    let mut scratch = PoseScratch::new(&skeleton, &clips);
    let mut p = ModelPlayer::new(&clips);
    p.play(0, Playback::LoopForward, 0.0, 0.0, 1.0);
    p.play(1, Playback::LoopForward, 1.0, 0.0, 1.0);
    p.update(0.25);
    let (mut locals, mut w) = ([Transform::IDENTITY; 2], [0.0; 2]);
    p.pose(&clips, &skeleton, &mut scratch, &mut locals, &mut w).unwrap();
    assert!(locals[1].rotation.angle_between(Quat::from_rotation_z(0.25)) < 1e-5);
    assert!((locals[1].rotation.length() - 1.0).abs() < 1e-6);
}

#[test]
fn unknown_index_and_bad_buffers_are_refused() {
    let mut r = rig();
    assert!(!r.player.play(2, Playback::OnceForward, 0.0, 0.0, 1.0));
    assert_eq!(r.player.animation(), None);
    r.player.play(0, Playback::LoopForward, 0.5, 0.0, 1.0);
    let (mut locals, mut w) = ([Transform::IDENTITY; 2], [9.0; 2]);
    let short = r.player.pose(&r.clips, &r.skeleton, &mut r.scratch, &mut locals[..1], &mut w);
    assert!(matches!(short, Err(RigError::BufferTooShort { what: "locals", needed: 2, got: 1 })));
    let short = r.player.pose(&r.clips, &r.skeleton, &mut r.scratch, &mut locals, &mut w[..1]);
    assert!(matches!(short, Err(RigError::BufferTooShort { what: "weights", .. })));
    let mut small = PoseScratch::default();
    let bad = r.player.pose(&r.clips, &r.skeleton, &mut small, &mut locals, &mut w);
    assert!(matches!(bad, Err(RigError::BufferTooShort { what: "sampling cache", .. })));
    assert_eq!(w, [9.0; 2], "nothing written on error");
    // Negative and non-finite dt do not move the cursor.
    for dt in [-1.0, f32::NAN, f32::INFINITY] {
        r.player.update(dt);
        assert_eq!(r.player.cursor(), 0.0);
    }
}

fn sample_x(clip: &Clip, t: f32, cache: &mut SamplingCache) -> f32 {
    let mut locals = [Transform::IDENTITY; 2];
    let mut w = [0.0; 2];
    clip.sample(t, cache, &mut locals, &mut w).unwrap();
    locals[0].translation.x
}

fn one_channel_clip(i: Interpolation, times: &[f32], xs: &[f32]) -> (Clip, SamplingCache) {
    let values: Vec<f32> = xs.iter().flat_map(|&x| [x, 0.0, 0.0]).collect();
    let data = ClipData {
        name: "c".into(),
        duration: times.last().copied().unwrap_or(0.0),
        channels: vec![channel(0, ChannelPath::Translation, i, times, &values)],
    };
    let clip = Clip::new(&data, &Skeleton::new(&model()).unwrap()).unwrap();
    let cache = SamplingCache::new(&clip);
    (clip, cache)
}

#[test]
fn step_linear_and_cubic_sampling_at_exact_times() {
    let (step, mut c) = one_channel_clip(Interpolation::Step, &[0.0, 1.0, 2.0], &[1.0, 2.0, 3.0]);
    let got: Vec<f32> = [-1.0, 0.0, 0.5, 1.0, 1.999, 2.0, 5.0].iter().map(|&t| sample_x(&step, t, &mut c)).collect();
    assert_eq!(got, [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
    let (lin, mut c) = one_channel_clip(Interpolation::Linear, &[0.0, 1.0, 2.0], &[1.0, 2.0, 4.0]);
    let got: Vec<f32> = [-1.0, 0.5, 1.0, 1.5, 3.0].iter().map(|&t| sample_x(&lin, t, &mut c)).collect();
    assert_eq!(got, [1.0, 1.5, 2.0, 3.0, 4.0]);
    // CUBICSPLINE keys are (in-tangent, value, out-tangent). Value 0 → 0 with out-tangent 1/s over
    // a 2 s interval: p(s) = (s³ − 2s² + s)·2·1, 0.25 at s = 0.5 (0.125 if the interval were
    // ignored).
    let (cub, mut c) = one_channel_clip(Interpolation::CubicSpline, &[0.0, 2.0], &[9.0, 0.0, 1.0, 0.0, 0.0, 9.0]);
    assert_eq!(sample_x(&cub, 1.0, &mut c), 0.25);
    assert_eq!(sample_x(&cub, 2.0, &mut c), 0.0);
    assert_eq!(sample_x(&cub, -3.0, &mut c), 0.0, "before the first key: its value, not its tangent");
}

#[test]
fn the_cache_gives_the_same_values_forward_backward_and_foreign() {
    let times: Vec<f32> = (0..50).map(|k| k as f32 * 0.1).collect();
    let xs: Vec<f32> = (0..50).map(|k| ((k * 7919) % 13) as f32).collect();
    let (clip, mut cache) = one_channel_clip(Interpolation::Linear, &times, &xs);
    let ts: Vec<f32> = (0..200).map(|i| i as f32 * 0.0251).chain([4.0, 0.3, 2.2, 0.0, 4.9]).collect();
    for &t in &ts {
        let fresh = sample_x(&clip, t, &mut SamplingCache::new(&clip));
        assert_eq!(sample_x(&clip, t, &mut cache), fresh, "t = {t}");
    }
    // A cache of another, bigger clip holds out-of-range hints: still correct.
    let long: Vec<f32> = (0..200).map(|k| k as f32).collect();
    let (big, mut foreign) = one_channel_clip(Interpolation::Linear, &long, &long);
    assert_eq!(sample_x(&big, 150.5, &mut foreign), 150.5);
    assert_eq!(sample_x(&clip, 1.05, &mut foreign), sample_x(&clip, 1.05, &mut SamplingCache::new(&clip)));
}

#[test]
fn sample_refuses_short_buffers_and_clamps_odd_times() {
    let (clip, mut cache) = one_channel_clip(Interpolation::Linear, &[1.0, 2.0], &[1.0, 2.0]);
    let mut locals = [Transform::IDENTITY; 2];
    let mut w = [0.0; 2];
    let mut none = SamplingCache::default();
    let e = clip.sample(1.5, &mut none, &mut locals, &mut w);
    assert!(matches!(e, Err(RigError::BufferTooShort { what: "sampling cache", needed: 1, got: 0 })));
    assert!(clip.sample(1.5, &mut cache, &mut [], &mut w).is_err());
    assert_eq!(locals[0], Transform::IDENTITY, "nothing written");
    let weighted = rig();
    let mut wc = SamplingCache::new(&weighted.clips[0]);
    let e = weighted.clips[0].sample(0.5, &mut wc, &mut locals, &mut w[..1]);
    assert!(matches!(e, Err(RigError::BufferTooShort { what: "weights", needed: 2, got: 1 })));
    for (t, x) in [(f32::NAN, 1.0), (f32::NEG_INFINITY, 1.0), (f32::INFINITY, 2.0)] {
        clip.sample(t, &mut cache, &mut locals, &mut w).unwrap();
        assert_eq!(locals[0].translation.x, x, "t = {t}");
    }
}

#[test]
fn conversion_rejects_what_sampling_could_not_index() {
    let m = model();
    let s = Skeleton::new(&m).unwrap();
    let lin = Interpolation::Linear;
    let bad = [
        channel(5, ChannelPath::Translation, lin, &[0.0], &[0.0; 3]), // no such node
        channel(0, ChannelPath::Translation, lin, &[0.0, 1.0], &[0.0; 3]), // too few values
        channel(0, ChannelPath::Translation, lin, &[1.0, 0.0], &[0.0; 6]), // times decrease
        channel(0, ChannelPath::Translation, lin, &[], &[]),          // no keys
        channel(1, ChannelPath::Weights, lin, &[0.0], &[0.0; 2]),     // no mesh on node 1
        channel(0, ChannelPath::Rotation, lin, &[0.0], &[0.0, 0.0, f32::NAN, 1.0]),
    ];
    for ch in bad {
        let data = ClipData { name: "x".into(), duration: 1.0, channels: vec![ch.clone()] };
        assert!(Clip::new(&data, &s).is_err(), "{ch:?}");
    }
    // Zero quaternion keys become identity instead of NaN.
    let zero = channel(0, ChannelPath::Rotation, lin, &[0.0], &[0.0; 4]);
    let clip = Clip::new(&ClipData { name: "z".into(), duration: 0.0, channels: vec![zero] }, &s).unwrap();
    let mut locals = [Transform::IDENTITY; 2];
    clip.sample(0.0, &mut SamplingCache::new(&clip), &mut locals, &mut []).unwrap();
    assert_eq!(locals[0].rotation, Quat::IDENTITY);
}

#[test]
fn skeleton_checks_its_model_and_its_buffers() {
    let mut m = model();
    m.nodes[0].parent = Some(1); // child before parent
    assert!(Skeleton::new(&m).is_err());
    let mut m = model();
    m.skins[0].joints.push(9);
    m.skins[0].inverse_bind.push(Mat4::IDENTITY.to_cols_array());
    assert!(Skeleton::new(&m).is_err());
    let mut m = model();
    m.skins[0].inverse_bind.pop();
    assert!(Skeleton::new(&m).is_err());

    let s = Skeleton::new(&model()).unwrap();
    assert_eq!((s.find_joint("bone"), s.find_joint("root"), s.find_joint("nope")), (Some(1), Some(0), None));
    let mut world = [Mat4::IDENTITY; 2];
    assert!(s.local_to_model(&s.rest()[..1], &mut world).is_err());
    assert!(s.local_to_model(s.rest(), &mut world[..1]).is_err());
    s.local_to_model(s.rest(), &mut world).unwrap();
    assert_eq!(world[1].transform_point3(Vec3::ZERO), Vec3::new(7.0, 1.0, 0.0));
    let mut palette = [Mat4::ZERO; 2];
    assert!(matches!(s.palette(1, &world, &mut palette), Err(RigError::NoSkin(1))));
    assert!(s.palette(0, &world[..1], &mut palette).is_err());
    assert!(s.palette(0, &world, &mut palette[..1]).is_err());
    s.palette(0, &world, &mut palette).unwrap();
    assert_eq!(palette, [world[1], world[0]], "skin order, identity inverse binds");
    assert_eq!(s.rest()[0].translation, Vec3A::new(7.0, 0.0, 0.0));
}

/// The row palettes (what the pose keeps) are the matrix palette's rows bit for bit, streamed
/// or not, into aligned memory or not (the streamed one falls back to ordinary stores), and
/// refuse what `palette` refuses.
#[test]
fn row_palettes_are_the_matrix_palette_rows() {
    use super::skinning::{BoneRows, bone_rows};
    let mut m = model();
    m.skins[0].inverse_bind[0] = Mat4::from_rotation_z(0.3).to_cols_array();
    m.skins[0].inverse_bind[1] = Mat4::from_translation(Vec3::new(0.5, -2.0, 1.0)).to_cols_array();
    let s = Skeleton::new(&m).unwrap();
    let world = [
        Mat4::from_scale_rotation_translation(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_x(0.4), Vec3::X),
        Mat4::from_scale_rotation_translation(Vec3::ONE, Quat::from_rotation_y(-1.1), Vec3::new(0.1, 0.2, 0.3)),
    ];
    let mut palette = [Mat4::ZERO; 2];
    s.palette(0, &world, &mut palette).unwrap();
    let want = palette.map(|p| bone_rows(&p));
    let mut rows = [[0.0; 12]; 2];
    s.palette_rows(0, &world, &mut rows).unwrap();
    assert_eq!(rows, want);
    /// Rows at offset 16 (aligned) or 4 (not) of a 16-byte-aligned block.
    #[repr(C, align(16))]
    struct Block {
        pad: [f32; 4],
        rows: [BoneRows; 2],
    }
    #[repr(C, align(16))]
    struct Skewed {
        pad: f32,
        rows: [BoneRows; 2],
    }
    let mut a = Block { pad: [0.0; 4], rows: [[0.0; 12]; 2] };
    let mut b = Skewed { pad: 0.0, rows: [[0.0; 12]; 2] };
    assert_eq!(a.rows.as_ptr() as usize % 16, 0);
    assert_ne!(b.rows.as_ptr() as usize % 16, 0);
    {
        let stream = crate::base::prefetch::Streaming::new();
        // SAFETY: neither block is touched until `stream` is dropped below.
        unsafe {
            s.palette_rows_streamed(0, &world, &mut a.rows, &stream).unwrap();
            s.palette_rows_streamed(0, &world, &mut b.rows, &stream).unwrap();
        }
    }
    assert_eq!((a.rows, b.rows, a.pad, b.pad), (want, want, [0.0; 4], 0.0));
    let stream = crate::base::prefetch::Streaming::new();
    // SAFETY: nothing is written (refused), and `a` is not read while `stream` lives.
    unsafe {
        assert!(matches!(s.palette_rows_streamed(1, &world, &mut a.rows, &stream), Err(RigError::NoSkin(1))));
        assert!(s.palette_rows_streamed(0, &world[..1], &mut a.rows, &stream).is_err());
    }
    assert!(s.palette_rows(0, &world, &mut rows[..1]).is_err());
}

/// `local_to_model` as it was before its four-lane axes: one node at a time, glam's
/// `Mat4::from_quat` times the scale, then the affine product with the parent.
fn local_to_model_one_by_one(parents: &[Option<usize>], locals: &[Transform]) -> Vec<Mat4> {
    let mut out: Vec<Mat4> = Vec::with_capacity(locals.len());
    for (p, local) in parents.iter().zip(locals) {
        let r = Mat4::from_quat(local.rotation);
        let s = local.scale;
        let (x, y, z) = (r.x_axis * s.x, r.y_axis * s.y, r.z_axis * s.z);
        let t = local.translation.extend(1.0);
        out.push(match p {
            None => Mat4::from_cols(x, y, z, t),
            Some(p) => {
                let pm = out[*p];
                let col = |v: glam::Vec4| pm.x_axis * v.x + pm.y_axis * v.y + pm.z_axis * v.z;
                Mat4::from_cols(col(x), col(y), col(z), col(t) + pm.w_axis)
            }
        });
    }
    out
}

#[test]
fn four_lane_local_to_model_is_bit_identical_to_one_node_at_a_time() {
    let mut unit = super::test_random(0x9e37_79b9);
    let mut rnd = move || unit() * 2.0 - 1.0;
    // Every remainder of four, roots in the middle of a batch, chains inside a batch (a
    // parent just before its child), negative and non-uniform scales.
    for n in 1..=13 {
        let mut nodes = Vec::new();
        let mut parents = Vec::new();
        for i in 0..n {
            let parent = match i {
                0 => None,
                _ if i % 5 == 2 => None,
                _ if i % 2 == 1 => Some(i - 1),
                _ => Some(((rnd() * 0.5 + 0.5) * i as f32) as usize % i),
            };
            let q = Quat::from_xyzw(rnd(), rnd(), rnd(), rnd()).normalize();
            let mut nd = node(&format!("n{i}"), parent, [rnd() * 3.0, rnd() * 3.0, rnd() * 3.0]);
            nd.rotation = q.to_array();
            nd.scale = [1.0 + rnd() * 0.5, -0.5 + rnd() * 0.1, 2.0 * rnd()];
            nodes.push(nd);
            parents.push(parent);
        }
        let m = ModelData { source: "lanes.gltf".into(), nodes, ..Default::default() };
        let s = Skeleton::new(&m).unwrap();
        let mut got = vec![Mat4::ZERO; n];
        s.local_to_model(s.rest(), &mut got).unwrap();
        let want = local_to_model_one_by_one(&parents, s.rest());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let bits = |m: &Mat4| m.to_cols_array().map(f32::to_bits);
            assert_eq!(bits(g), bits(w), "{n} nodes, node {i}: {g} against {w}");
        }
    }
}
