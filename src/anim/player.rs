//! The rig player of a model component (api.md 4.2, Defold `rig.cpp`): two players, the newest
//! current and the other fading out during a cross-fade; cursor advance, wrap, normalisation and
//! completion exactly as Defold, but sampling exact key times instead of 30 Hz bakes. The player
//! works on clip indices; resolving animation ids (and refusing unknown ones) is the caller's.
use super::clip::{Clip, SamplingCache, TrackSelection};
use super::skeleton::{RigError, Skeleton, need};
use super::transform::{Transform, blend_locals, blend_weights};
use super::tween::Playback;

/// Sent by `update` when the current ONCE animation ends (never on cancel or replacement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub animation: usize,
    pub playback: Playback,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Player {
    animation: Option<usize>,
    /// Clip duration (seconds).
    duration: f32,
    playback: Playback,
    /// Seconds in [0, duration], or [0, 2·duration] for ONCE_PINGPONG; stored mirrored
    /// (`duration − t`) while `backwards`.
    cursor: f32,
    rate: f32,
    backwards: bool,
    playing: bool,
    /// The cursor unwrapped (seconds of playback since the start position, in f64), what event
    /// crossings are counted on (see `events`). Never read by the pose.
    travel: f64,
}

impl Player {
    const IDLE: Player = Player {
        animation: None,
        duration: 0.0,
        playback: Playback::None,
        cursor: 0.0,
        rate: 1.0,
        backwards: false,
        playing: false,
        travel: 0.0,
    };

    /// Length of the cursor's range: ONCE_PINGPONG runs the clip there and back.
    fn cursor_duration(&self) -> f32 {
        if self.playback == Playback::OncePingpong { 2.0 * self.duration } else { self.duration }
    }

    /// Advances the cursor (Defold `UpdatePlayer`); true when a ONCE animation ended now.
    fn advance(&mut self, dt: f32) -> bool {
        if self.animation.is_none() || !self.playing {
            return false;
        }
        if self.playback != Playback::None {
            self.cursor += dt * self.rate;
            self.travel += f64::from(dt) * f64::from(self.rate);
        }
        let d = self.cursor_duration();
        if self.playback.completes() {
            self.travel = self.travel.min(f64::from(d));
        }
        if d <= 0.0 {
            self.cursor = 0.0;
        }
        match self.playback {
            Playback::OnceForward | Playback::OnceBackward | Playback::OncePingpong if self.cursor >= d => {
                self.cursor = d;
                self.travel = f64::from(d);
                self.playing = false;
                return true;
            }
            Playback::LoopForward | Playback::LoopBackward | Playback::LoopPingpong if d > 0.0 && self.cursor >= d => {
                // Defold subtracts d in a loop (and toggles direction each time for pingpong);
                // the same in one step, so a huge dt cannot spin.
                let wraps = (self.cursor / d).floor();
                self.cursor = (self.cursor - wraps * d).clamp(0.0, d);
                if self.cursor >= d {
                    self.cursor = 0.0;
                }
                if self.playback == Playback::LoopPingpong && wraps % 2.0 == 1.0 {
                    self.backwards = !self.backwards;
                }
            }
            _ => {}
        }
        false
    }

    /// Clip time to sample: ONCE_PINGPONG folded back after the first leg, backwards mirrored.
    fn time(&self) -> f32 {
        let d = self.duration;
        let mut t = self.cursor;
        if self.playback == Playback::OncePingpong && t > d {
            t = 2.0 * d - t;
        }
        if self.backwards { d - t } else { t }
    }

    /// Defold `SetCursor(value, normalized = true)`.
    fn set_cursor(&mut self, normalized: f32) {
        if self.animation.is_none() {
            return;
        }
        let d = self.duration;
        if self.playback == Playback::LoopPingpong {
            self.backwards = false;
        }
        if d <= 0.0 {
            self.cursor = 0.0;
            self.travel = 0.0;
            return;
        }
        // NaN or infinite (a script can set anything) counts as 0 rather than poisoning the cursor.
        let mut t = if normalized.is_finite() { normalized * d } else { 0.0 };
        if t.abs() > d {
            t %= d;
            if t.abs() < 1e-4 {
                t = d;
            }
        }
        if t < 0.0 {
            t = d - (-t % d);
        }
        self.cursor = if self.backwards { d - t } else { t };
        self.travel = f64::from(self.cursor);
    }

    /// Defold `GetCursor(normalized = true)`.
    fn cursor(&self) -> f32 {
        let d = self.duration;
        if self.animation.is_none() || d <= 0.0 { 0.0 } else { self.time() / d }
    }
}

/// Animation state of one model instance. Plain data (no clips inside): one per component.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPlayer {
    players: [Player; 2],
    current: usize,
    blending: bool,
    blend_timer: f32,
    blend_duration: f32,
    /// Duration of every clip of the model, by index.
    durations: Vec<f32>,
}

impl ModelPlayer {
    pub fn new(clips: &[Clip]) -> Self {
        ModelPlayer {
            players: [Player::IDLE; 2],
            current: 0,
            blending: false,
            blend_timer: 0.0,
            blend_duration: 0.0,
            durations: clips.iter().map(Clip::duration).collect(),
        }
    }

    /// Starts clip `animation` (Defold `PlayAnimation`). `blend_duration > 0` cross-fades from
    /// the current animation, which keeps playing; otherwise it is stopped. `offset` is the
    /// normalised progress along the playback direction: for the backward modes it is mirrored
    /// (`1 − clamp(offset, 0, 1)`, api.md §2) before `set_cursor`, so offset 0 starts at the
    /// clip's end. `playback_rate` is clamped to ≥ 0. Returns false (and changes nothing) for an
    /// index with no clip.
    pub fn play(&mut self, animation: usize, playback: Playback, blend_duration: f32, offset: f32, rate: f32) -> bool {
        let Some(&duration) = self.durations.get(animation) else { return false };
        if blend_duration > 0.0 && blend_duration.is_finite() {
            self.blending = true;
            self.blend_timer = 0.0;
            self.blend_duration = blend_duration;
        } else {
            self.blending = false;
            self.players[self.current].playing = false;
        }
        self.current = 1 - self.current;
        let backwards = matches!(playback, Playback::OnceBackward | Playback::LoopBackward);
        let p = &mut self.players[self.current];
        *p = Player {
            animation: Some(animation),
            duration,
            playback,
            cursor: 0.0,
            rate: 1.0,
            backwards,
            playing: true,
            travel: 0.0,
        };
        let offset = if offset.is_nan() { 0.0 } else { offset };
        p.set_cursor(if backwards { 1.0 - offset.clamp(0.0, 1.0) } else { offset });
        self.set_playback_rate(rate);
        true
    }

    /// Stops the current animation where it is (its pose stays); no completion is reported.
    pub fn cancel(&mut self) {
        self.players[self.current].playing = false;
    }

    /// Advances the blend timer and both players by `dt` seconds (negative or non-finite → 0).
    /// Returns the completion of the current ONCE animation when it ends during this step.
    pub fn update(&mut self, dt: f32) -> Option<Completion> {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if self.blending {
            self.blend_timer += dt;
            if self.blend_timer >= self.blend_duration {
                self.blending = false;
                self.players[1 - self.current].playing = false;
            }
        }
        if self.blending {
            self.players[1 - self.current].advance(dt);
        }
        let p = &mut self.players[self.current];
        let done = p.advance(dt);
        match p.animation {
            Some(animation) if done => Some(Completion { animation, playback: p.playback }),
            _ => None,
        }
    }

    /// `update`, also calling `hit(i)` for each event time `times[i]` (clip seconds, ascending:
    /// the events of the current animation) that the current animation's cursor passed, in
    /// order (layers.md §3: both ways for pingpong, every loop, once per crossing). The
    /// animation fading out during a cross-fade reports none.
    pub fn update_with_events(&mut self, dt: f32, times: &[f32], hit: impl FnMut(usize)) -> Option<Completion> {
        let p = self.players[self.current];
        let done = self.update(dt);
        let after = &self.players[self.current];
        if p.playing && p.animation.is_some() && !times.is_empty() {
            super::events::crossings(p.playback, p.duration, times, p.travel, after.travel, done.is_some(), hit);
        }
        done
    }

    /// The current animation (also after it ended or was cancelled).
    pub fn animation(&self) -> Option<usize> {
        self.players[self.current].animation
    }
    /// Whether the current animation still advances (false after a ONCE end or cancel).
    pub fn is_playing(&self) -> bool {
        self.players[self.current].playing
    }
    pub fn playback(&self) -> Playback {
        self.players[self.current].playback
    }
    /// Normalised cursor of the current animation in [0, 1] (0 without one).
    pub fn cursor(&self) -> f32 {
        self.players[self.current].cursor()
    }
    /// Sets the normalised cursor of the current animation (ignored without one).
    pub fn set_cursor(&mut self, normalized: f32) {
        self.players[self.current].set_cursor(normalized);
    }
    pub fn playback_rate(&self) -> f32 {
        self.players[self.current].rate
    }
    /// Clamped to ≥ 0; NaN counts as 0.
    pub fn set_playback_rate(&mut self, rate: f32) {
        self.players[self.current].rate = rate.max(0.0);
    }
    /// Current clip time in seconds (after pingpong folding and backwards mirroring).
    pub fn time(&self) -> f32 {
        self.players[self.current].time()
    }
    /// The animation fading out while a cross-fade runs (None: none, or it had no animation).
    pub fn previous_animation(&self) -> Option<usize> {
        if self.blending { self.players[1 - self.current].animation } else { None }
    }
    /// Weight of the current animation while a cross-fade runs.
    pub fn blend_weight(&self) -> Option<f32> {
        self.blending.then(|| (self.blend_timer / self.blend_duration).clamp(0.0, 1.0))
    }

    /// The pose: rest pose, the current clip sampled over it, then during a cross-fade blended
    /// with the previous clip's pose (or the rest pose, when there was no previous animation) by
    /// `timer / blend_duration`. `out_locals` needs `skeleton.node_count()` entries and
    /// `out_weights` `skeleton.rest_weights().len()`; nothing is written on error.
    pub fn pose(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        scratch: &mut PoseScratch,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        self.pose_from(clips, skeleton, scratch, true, out_locals, out_weights)
    }

    /// `pose`; without `with_previous` a cross-fade is ignored (the current clip alone), which
    /// is how a layer that fades in over the layers below samples its clip.
    pub fn pose_from(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        scratch: &mut PoseScratch,
        with_previous: bool,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        self.pose_masked(clips, skeleton, scratch, with_previous, None, out_locals, out_weights)
    }

    /// `pose_from` where only the nodes `mask` covers need to be right (a masked layer reads
    /// no others): the clips are sampled on those nodes only ([`Clip::sample_masked`]); the
    /// others hold the rest pose or a blend of rest poses.
    #[allow(clippy::too_many_arguments)]
    pub fn pose_masked(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        scratch: &mut PoseScratch,
        with_previous: bool,
        mask: Option<&[f32]>,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        let sample = |clip: &Clip, t: f32, cache: &mut SamplingCache, l: &mut [Transform], w: &mut [f32]| match mask {
            Some(m) => clip.sample_masked(t, cache, m, l, w),
            None => clip.sample(t, cache, l, w),
        };
        let (n, w) = (skeleton.node_count(), skeleton.rest_weights().len());
        need("locals", n, out_locals.len())?;
        need("weights", w, out_weights.len())?;
        let clip_of = |p: &Player| p.animation.and_then(|a| clips.get(a)).map(|c| (c, p.time()));
        let cur = clip_of(&self.players[self.current]);
        let prev = if self.blending && with_previous { Some(clip_of(&self.players[1 - self.current])) } else { None };
        for (slot, c) in [(self.current, cur), (1 - self.current, prev.flatten())] {
            if let Some((clip, _)) = c {
                need("sampling cache", clip.time_list_count(), scratch.caches[slot].capacity())?;
                need("locals", clip.node_span(), n)?;
                need("weights", clip.weight_span(), w)?;
            }
        }
        if prev.is_some() {
            need("scratch locals", n, scratch.locals.len())?;
            need("scratch weights", w, scratch.weights.len())?;
        }
        let (out_locals, out_weights) = (&mut out_locals[..n], &mut out_weights[..w]);
        out_locals.copy_from_slice(skeleton.rest());
        out_weights.copy_from_slice(skeleton.rest_weights());
        if let Some((clip, t)) = cur {
            sample(clip, t, &mut scratch.caches[self.current], out_locals, out_weights)?;
        }
        if let Some(prev) = prev {
            let (locals, weights) = (&mut scratch.locals[..n], &mut scratch.weights[..w]);
            locals.copy_from_slice(skeleton.rest());
            weights.copy_from_slice(skeleton.rest_weights());
            if let Some((clip, t)) = prev {
                sample(clip, t, &mut scratch.caches[1 - self.current], locals, weights)?;
            }
            let k = self.blend_weight().unwrap_or(1.0);
            blend_locals(locals, out_locals, k);
            blend_weights(weights, out_weights, k);
        }
        Ok(())
    }
}

impl ModelPlayer {
    /// The current clip alone (no cross-fade) over the rest pose, sampled through `sel`
    /// (`Clip::sample_selected`): a masked layer's pose, without a mask test per track.
    pub fn pose_selected(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        scratch: &mut PoseScratch,
        sel: &TrackSelection,
        out_locals: &mut [Transform],
        out_weights: &mut [f32],
    ) -> Result<(), RigError> {
        let (n, w) = (skeleton.node_count(), skeleton.rest_weights().len());
        need("locals", n, out_locals.len())?;
        need("weights", w, out_weights.len())?;
        let p = &self.players[self.current];
        let clip = p.animation.and_then(|a| clips.get(a));
        if let Some(clip) = clip {
            need("sampling cache", clip.time_list_count(), scratch.caches[self.current].capacity())?;
            need("locals", clip.node_span(), n)?;
            need("weights", clip.weight_span(), w)?;
        }
        let (out_locals, out_weights) = (&mut out_locals[..n], &mut out_weights[..w]);
        out_locals.copy_from_slice(skeleton.rest());
        out_weights.copy_from_slice(skeleton.rest_weights());
        match clip {
            Some(clip) => {
                clip.sample_selected(p.time(), &mut scratch.caches[self.current], sel, out_locals, out_weights)
            }
            None => Ok(()),
        }
    }
}

impl ModelPlayer {
    /// The current animation's clip time and the sampling cache `pose` uses for it, for a
    /// layer that blends straight from the keys of the current clip or of a clip made from it
    /// with the same key times (an additive layer's difference clip). None without an
    /// animation.
    pub fn current_sampling<'s>(&self, scratch: &'s mut PoseScratch) -> Option<(f32, &'s mut SamplingCache)> {
        let p = &self.players[self.current];
        p.animation.map(|_| (p.time(), &mut scratch.caches[self.current]))
    }
}

/// Per-instance working memory of `ModelPlayer::pose`: a sampling cache per player and the
/// previous animation's pose during a cross-fade. Allocated once, reused every frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoseScratch {
    caches: [SamplingCache; 2],
    locals: Vec<Transform>,
    weights: Vec<f32>,
}

impl PoseScratch {
    /// Starts loading the sampling caches (`base::prefetch`); the scratch poses are only read
    /// while blending.
    pub fn prefetch(&self) {
        self.caches.iter().for_each(SamplingCache::prefetch);
    }

    pub fn new(skeleton: &Skeleton, clips: &[Clip]) -> Self {
        PoseScratch {
            caches: [SamplingCache::for_clips(clips), SamplingCache::for_clips(clips)],
            locals: skeleton.rest().to_vec(),
            weights: skeleton.rest_weights().to_vec(),
        }
    }
}
