//! The mixer: voices summed into interleaved stereo `f32` at [`RATE`], in blocks of [`BLOCK`]
//! frames. Mixing is a pure function of the voices and group gains over caller-owned slices: it
//! allocates nothing, takes no lock and reads no clock, so the same calls give the same samples
//! (what `--audio-out` and the tests rely on), and it could run inside an audio callback.
//!
//! Gain changes ramp linearly over one block, so a `set_gain`, a pan or a positional update never
//! clicks; a stopped voice ramps to silence within the block it was stopped in and ends there.
use super::stream::Stream;
use crate::project::sound::SoundData;
use std::sync::Arc;

/// The output rate. Sounds at other rates (or played at another speed) are resampled.
pub const RATE: u32 = 48_000;
/// Frames per mix block: the granularity of ramps and of `stop` (5.3 ms at 48 kHz).
pub const BLOCK: usize = 256;
/// Groups a game may have (`master` is group 0); more are refused by name.
pub const MAX_GROUPS: usize = 32;
/// Blocks of history kept per group for `get_rms`/`get_peak` (1.36 s at 48 kHz).
pub const METER_BLOCKS: usize = 256;

/// Where a voice is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoiceState {
    Playing,
    /// Ramping to silence over the current block, then [`VoiceState::Stopped`].
    Stopping,
    /// Reached its end (not looping): `sound_done`.
    Done,
    /// Ended by `stop`: `sound_stopped`.
    Stopped,
}

/// One playing sound.
#[derive(Debug)]
pub struct Voice {
    pub play_id: u32,
    pub data: Arc<SoundData>,
    /// Position in source frames (fractional while resampling).
    pub pos: f64,
    /// `speed` × source rate / [`RATE`]: source frames per output frame.
    pub step: f64,
    pub gain: f32,
    /// -1 (left) .. 1 (right).
    pub pan: f32,
    /// Positional attenuation and pan (1 and 0 for a plain sound), set per frame by the world.
    pub spatial_gain: f32,
    pub spatial_pan: f32,
    pub group: usize,
    /// Output frames of silence before the first sample.
    pub delay: u64,
    pub looping: bool,
    /// Plays left of a looping voice with a `loopcount`, this one included; 0 loops until
    /// stopped.
    pub plays_left: u32,
    pub paused: bool,
    pub state: VoiceState,
    /// A streamed sound's decoder and window; `pos` then counts from the window's first frame.
    pub stream: Option<Box<Stream>>,
    /// Per-channel gains reached at the end of the last block (the start of the next ramp);
    /// `None` until the first block, which starts at its target so the onset is sample-exact.
    current: Option<(f32, f32)>,
}

impl Voice {
    pub fn new(play_id: u32, data: Arc<SoundData>, group: usize) -> Voice {
        let step = data.rate as f64 / RATE as f64;
        let stream = data.streamed.clone().map(|s| Box::new(Stream::new(s, data.channels)));
        Voice {
            play_id,
            data,
            pos: 0.0,
            step,
            gain: 1.0,
            pan: 0.0,
            spatial_gain: 1.0,
            spatial_pan: 0.0,
            group,
            delay: 0,
            looping: false,
            plays_left: 0,
            paused: false,
            state: VoiceState::Playing,
            stream,
            current: None,
        }
    }

    /// At the end of the sound: whether to start over (a decoded looping voice with plays
    /// left), counting the play. A streamed voice loops in its decoder instead ([`Voice::refill`]).
    fn wrap(&mut self) -> bool {
        if !self.looping || self.stream.is_some() {
            return false;
        }
        next_play(&mut self.plays_left)
    }

    /// Whether the frame after the last is the first (what interpolation at the seam reads).
    fn wraps_next(&self) -> bool {
        self.looping && self.stream.is_none() && self.plays_left != 1
    }

    /// Before a mix of `out_frames` output frames: a streamed voice lets go of the frames behind
    /// it and decodes the ones the mix will read (two more for interpolation). Returns the
    /// stream's decoding error, once.
    pub fn refill(&mut self, out_frames: usize) -> Option<String> {
        let st = self.stream.as_mut()?;
        if matches!(self.state, VoiceState::Done | VoiceState::Stopped) {
            return None;
        }
        let behind = (self.pos.max(0.0).floor() as usize).min(st.frames());
        st.drop_front(behind);
        self.pos -= behind as f64;
        let heard = out_frames.saturating_sub(self.delay.min(out_frames as u64) as usize);
        let need = if self.paused { 2 } else { (self.pos + heard as f64 * self.step).ceil() as usize + 2 };
        let (looping, plays_left) = (self.looping, &mut self.plays_left);
        st.fill(need, || looping && next_play(plays_left));
        st.error.take()
    }

    /// Source frames per output frame at playback rate `speed`.
    pub fn set_speed(&mut self, speed: f32) {
        self.step = speed as f64 * self.data.rate as f64 / RATE as f64;
    }

    pub fn finished(&self) -> bool {
        matches!(self.state, VoiceState::Done | VoiceState::Stopped)
    }
}

/// Counts a play at a loop's seam: true to play again (0 is "until stopped").
fn next_play(plays_left: &mut u32) -> bool {
    match *plays_left {
        0 => true,
        1 => false,
        n => {
            *plays_left = n - 1;
            true
        }
    }
}

/// The pan law (docs/sound.md): constant power, `θ = (pan + 1)·π/4`. A mono source goes out as
/// `(cos θ, sin θ)`: −3 dB in each channel at the centre, the same power everywhere. A stereo
/// source is balanced: each side is `min(1, √2·cos θ)` / `min(1, √2·sin θ)`, unity at the centre
/// and the far side silent at ±1.
#[inline]
pub fn pan_gains(pan: f32, stereo: bool) -> (f32, f32) {
    let theta = (pan.clamp(-1.0, 1.0) + 1.0) * std::f32::consts::FRAC_PI_4;
    let (l, r) = (theta.cos(), theta.sin());
    if stereo { ((l * std::f32::consts::SQRT_2).min(1.0), (r * std::f32::consts::SQRT_2).min(1.0)) } else { (l, r) }
}

/// Level meters of one group: mean square and peak per [`BLOCK`] frames of output, for
/// `get_rms`/`get_peak`. Blocks are counted in output frames, not mix calls, so a game frame
/// shorter than a block (a high frame rate) still fills whole blocks.
#[derive(Clone)]
pub struct Meter {
    sumsq: [[f32; 2]; METER_BLOCKS],
    peak: [[f32; 2]; METER_BLOCKS],
    /// Next block slot to write.
    at: usize,
    /// Blocks written so far (up to METER_BLOCKS).
    filled: usize,
    /// The block being filled: sums, peaks and frames so far.
    acc: ([f32; 2], [f32; 2], usize),
}

impl Default for Meter {
    fn default() -> Meter {
        Meter {
            sumsq: [[0.0; 2]; METER_BLOCKS],
            peak: [[0.0; 2]; METER_BLOCKS],
            at: 0,
            filled: 0,
            acc: ([0.0; 2], [0.0; 2], 0),
        }
    }
}

impl Meter {
    fn push(&mut self, frames: &[f32]) {
        for f in frames.chunks_exact(2) {
            let (s, p, n) = &mut self.acc;
            s[0] += f[0] * f[0];
            s[1] += f[1] * f[1];
            p[0] = p[0].max(f[0].abs());
            p[1] = p[1].max(f[1].abs());
            *n += 1;
            if *n == BLOCK {
                let k = BLOCK as f32;
                self.sumsq[self.at] = [s[0] / k, s[1] / k];
                self.peak[self.at] = *p;
                self.at = (self.at + 1) % METER_BLOCKS;
                self.filled = (self.filled + 1).min(METER_BLOCKS);
                self.acc = ([0.0; 2], [0.0; 2], 0);
            }
        }
    }

    fn last(&self, window: f32) -> impl Iterator<Item = usize> + '_ {
        let blocks = ((window.max(0.0) * RATE as f32 / BLOCK as f32).ceil() as usize).clamp(1, self.filled.max(1));
        let blocks = blocks.min(self.filled);
        (0..blocks).map(move |k| (self.at + METER_BLOCKS - 1 - k) % METER_BLOCKS)
    }

    /// Root mean square per channel over the last `window` seconds (whole blocks).
    pub fn rms(&self, window: f32) -> (f32, f32) {
        let (mut l, mut r, mut n) = (0.0, 0.0, 0);
        for i in self.last(window) {
            l += self.sumsq[i][0];
            r += self.sumsq[i][1];
            n += 1;
        }
        if n == 0 { (0.0, 0.0) } else { ((l / n as f32).sqrt(), (r / n as f32).sqrt()) }
    }

    /// Largest absolute sample per channel over the last `window` seconds.
    pub fn peak(&self, window: f32) -> (f32, f32) {
        self.last(window).fold((0.0f32, 0.0f32), |(l, r), i| (l.max(self.peak[i][0]), r.max(self.peak[i][1])))
    }
}

/// Scratch space for [`mix`], made once: one stereo block per group.
pub struct Buses {
    bus: Vec<[f32; BLOCK * 2]>,
    pub meters: Vec<Meter>,
    /// Each group's total gain at the end of the last block, where its next ramp starts (NaN
    /// before the first: a group starts at its gain).
    applied: [f32; MAX_GROUPS],
}

impl Default for Buses {
    fn default() -> Buses {
        Buses {
            bus: vec![[0.0; BLOCK * 2]; MAX_GROUPS],
            meters: vec![Meter::default(); MAX_GROUPS],
            applied: [f32::NAN; MAX_GROUPS],
        }
    }
}

/// Mixes `out.len() / 2` frames of every voice into `out` (interleaved stereo, overwritten).
/// Group `g`'s voices are scaled by `group_gains[g]`, then everything by `group_gains[0]`
/// (`master`); master's own voices get it once. Finished voices are left for the caller to
/// collect (their state says how they ended); no voice is added or removed here.
pub fn mix(voices: &mut [Voice], group_gains: &[f32], buses: &mut Buses, out: &mut [f32]) {
    let groups = group_gains.len().min(MAX_GROUPS);
    let master = group_gains.first().copied().unwrap_or(1.0);
    for chunk in out.chunks_mut(BLOCK * 2) {
        let frames = chunk.len() / 2;
        let mut used = [false; MAX_GROUPS];
        for v in voices.iter_mut() {
            if v.finished() || v.paused || v.group >= groups {
                continue;
            }
            let g = v.group;
            if !used[g] {
                buses.bus[g][..frames * 2].fill(0.0);
                used[g] = true;
            }
            mix_voice(v, &mut buses.bus[g][..frames * 2]);
        }
        chunk.fill(0.0);
        for g in 0..groups {
            let k = if g == 0 { master } else { group_gains[g] * master };
            let bus = &mut buses.bus[g][..frames * 2];
            if !used[g] {
                bus.fill(0.0);
            } else {
                // Group gains ramp like voice gains: `set_group_gain` never clicks either.
                let from = if buses.applied[g].is_nan() { k } else { buses.applied[g] };
                let dk = (k - from) / frames as f32;
                for (t, f) in bus.chunks_exact_mut(2).enumerate() {
                    let kt = from + dk * t as f32;
                    f[0] *= kt;
                    f[1] *= kt;
                }
                for (o, s) in chunk.iter_mut().zip(bus.iter()) {
                    *o += *s;
                }
            }
            buses.applied[g] = k;
            buses.meters[g].push(bus);
        }
    }
}

/// Adds one block of `v` to `out` (stereo frames), advancing it.
fn mix_voice(v: &mut Voice, out: &mut [f32]) {
    let frames = out.len() / 2;
    let stereo = v.data.channels == 2;
    let (pl, pr) = pan_gains(v.pan + v.spatial_pan, stereo);
    let g = if v.state == VoiceState::Stopping { 0.0 } else { v.gain * v.spatial_gain };
    let target = (g * pl, g * pr);
    let start = v.current.unwrap_or(target);
    v.current = Some(target);
    let skip = (v.delay.min(frames as u64)) as usize;
    v.delay -= skip as u64;
    let n = frames - skip;
    if n > 0 {
        // A streamed voice reads its window, lent out for the block (taking a Vec moves no
        // samples and allocates nothing).
        let window = v.stream.as_mut().map(|s| std::mem::take(&mut s.window));
        let data = v.data.clone();
        let samples: &[f32] = window.as_deref().unwrap_or(&data.samples);
        if samples.is_empty() {
            v.state = VoiceState::Done;
        } else {
            // The ramp spans the whole block, delayed frames included, so a ramp ends where the
            // next block's starts.
            let ramp = Ramp {
                start,
                step: ((target.0 - start.0) / frames as f32, (target.1 - start.1) / frames as f32),
                at: skip as f32,
            };
            let out = &mut out[skip * 2..];
            let done = match (stereo, v.step == 1.0 && v.pos.fract() == 0.0) {
                (false, true) => copy::<false>(v, samples, out, ramp),
                (true, true) => copy::<true>(v, samples, out, ramp),
                (false, false) => resample::<false>(v, samples, out, ramp),
                (true, false) => resample::<true>(v, samples, out, ramp),
            };
            if done {
                v.state = VoiceState::Done;
            }
        }
        if let (Some(st), Some(w)) = (v.stream.as_mut(), window) {
            st.window = w;
        }
    }
    if v.state == VoiceState::Stopping {
        v.state = VoiceState::Stopped;
    }
}

/// A linear gain ramp across one block: the gains at frame `at` are `start + step·at`.
#[derive(Clone, Copy)]
struct Ramp {
    start: (f32, f32),
    step: (f32, f32),
    at: f32,
}

#[inline(always)]
fn frame_of<const STEREO: bool>(s: &[f32], i: usize) -> (f32, f32) {
    if STEREO { (s[i * 2], s[i * 2 + 1]) } else { (s[i], s[i]) }
}

/// A voice at its own rate (speed 1, no fraction): runs of whole frames, no interpolation.
/// Returns true when a non-looping voice reached its end.
fn copy<const STEREO: bool>(v: &mut Voice, s: &[f32], out: &mut [f32], r: Ramp) -> bool {
    let total = s.len() / if STEREO { 2 } else { 1 };
    let mut i = v.pos as usize;
    let (mut gl, mut gr) = (r.start.0 + r.step.0 * r.at, r.start.1 + r.step.1 * r.at);
    let mut rest = out;
    while !rest.is_empty() {
        let run = (rest.len() / 2).min(total - i);
        let (now, later) = rest.split_at_mut(run * 2);
        for (k, o) in now.chunks_exact_mut(2).enumerate() {
            let (a, b) = frame_of::<STEREO>(s, i + k);
            o[0] += a * gl;
            o[1] += b * gr;
            gl += r.step.0;
            gr += r.step.1;
        }
        i += run;
        rest = later;
        if i >= total {
            if !v.wrap() {
                v.pos = total as f64;
                return true;
            }
            i = 0;
        }
    }
    v.pos = i as f64;
    false
}

/// A resampled voice: linear interpolation between frames, the next frame of a loop's last
/// being its first. Returns true when a non-looping voice reached its end.
fn resample<const STEREO: bool>(v: &mut Voice, s: &[f32], out: &mut [f32], r: Ramp) -> bool {
    let total = s.len() / if STEREO { 2 } else { 1 };
    let len = total as f64;
    let (mut gl, mut gr) = (r.start.0 + r.step.0 * r.at, r.start.1 + r.step.1 * r.at);
    for o in out.chunks_exact_mut(2) {
        let i = v.pos as usize;
        let frac = (v.pos - i as f64) as f32;
        let j = if i + 1 < total {
            i + 1
        } else if v.wraps_next() {
            0
        } else {
            i
        };
        let (a0, a1) = frame_of::<STEREO>(s, i);
        let (b0, b1) = frame_of::<STEREO>(s, j);
        o[0] += (a0 + (b0 - a0) * frac) * gl;
        o[1] += (a1 + (b1 - a1) * frac) * gr;
        gl += r.step.0;
        gr += r.step.1;
        v.pos += v.step;
        if v.pos >= len {
            if !v.wrap() {
                return true;
            }
            v.pos -= len * (v.pos / len).floor();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(rate: u32, samples: Vec<f32>) -> Arc<SoundData> {
        Arc::new(SoundData { rate, channels: 1, samples, streamed: None })
    }

    fn run(voices: &mut [Voice], gains: &[f32], frames: usize) -> Vec<f32> {
        let mut out = vec![0.0; frames * 2];
        mix(voices, gains, &mut Buses::default(), &mut out);
        out
    }

    #[test]
    fn a_mono_voice_at_the_centre_is_minus_3_db_each_side() {
        let mut v = [Voice::new(1, data(RATE, vec![1.0; 1000]), 0)];
        let out = run(&mut v, &[1.0], 100);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!((out[0] - h).abs() < 1e-6 && (out[1] - h).abs() < 1e-6, "{:?}", &out[..2]);
    }

    #[test]
    fn a_delay_starts_on_its_frame_and_the_voice_ends_on_its_last() {
        let mut v = Voice::new(1, data(RATE, vec![1.0; 300]), 0);
        v.delay = 517;
        let mut vs = [v];
        let out = run(&mut vs, &[1.0], 1024);
        let first = out.chunks(2).position(|f| f[0] != 0.0).expect("sound");
        let last = out.chunks(2).rposition(|f| f[0] != 0.0).expect("sound");
        assert_eq!((first, last), (517, 816));
        assert_eq!(vs[0].state, VoiceState::Done);
    }

    #[test]
    fn speed_two_plays_every_other_frame_and_resampling_interpolates() {
        let ramp: Vec<f32> = (0..100).map(|i| i as f32 / 100.0).collect();
        let mut v = Voice::new(1, data(RATE, ramp), 0);
        v.set_speed(2.0);
        v.pan = -1.0;
        let out = run(&mut [v], &[1.0], 60);
        assert!((out[2] - 0.02).abs() < 1e-6 && (out[98] - 0.98).abs() < 1e-6, "{} {}", out[2], out[98]);
        assert_eq!(out[100], 0.0, "50 frames at speed 2");
        let mut half = Voice::new(1, data(RATE / 2, (0..10).map(|i| i as f32).collect()), 0);
        half.pan = -1.0;
        let out = run(&mut [half], &[1.0], 4);
        assert_eq!([out[0], out[2], out[4], out[6]], [0.0, 0.5, 1.0, 1.5]);
    }

    #[test]
    fn a_stop_ramps_to_silence_within_one_block() {
        let mut v = [Voice::new(1, data(RATE, vec![1.0; 10_000]), 0)];
        v[0].looping = true;
        run(&mut v, &[1.0], BLOCK);
        v[0].state = VoiceState::Stopping;
        let out = run(&mut v, &[1.0], BLOCK * 2);
        assert_eq!(v[0].state, VoiceState::Stopped);
        assert!(out[..BLOCK * 2].windows(2).step_by(2).all(|w| w[1] <= w[0] + 1e-6), "falls within the block");
        assert!(out[BLOCK * 2..].iter().all(|&s| s == 0.0), "silent after it");
    }

    #[test]
    fn group_gains_multiply_with_master() {
        let mut v = [Voice::new(1, data(RATE, vec![1.0; 100]), 1), Voice::new(2, data(RATE, vec![1.0; 100]), 0)];
        v[0].pan = -1.0;
        v[1].pan = 1.0;
        let out = run(&mut v, &[0.5, 0.25], 10);
        assert!((out[0] - 0.125).abs() < 1e-6 && (out[1] - 0.5).abs() < 1e-6, "{:?}", &out[..2]);
    }

    #[test]
    fn meters_count_output_frames_not_mix_calls() {
        // 96 frames a call (a 500 Hz game frame): the meter still sees whole 256-frame blocks.
        let mut v = [Voice::new(1, data(RATE, vec![1.0; 960]), 0)];
        let mut buses = Buses::default();
        let mut out = vec![0.0; 96 * 2];
        for _ in 0..10 {
            mix(&mut v, &[1.0], &mut buses, &mut out);
        }
        let (l, _) = buses.meters[0].peak(0.1);
        let (rl, _) = buses.meters[0].rms(0.1);
        assert!((l - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (rl - l).abs() < 1e-6, "{l} {rl}");
    }
}
