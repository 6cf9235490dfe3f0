//! Flipbook timing, as Defold's sprite component runs it (`comp_sprite.cpp`: `PlayAnimation`,
//! `Animate`, `UpdateCurrentAnimationFrame`, `PostMessages`, `Get/SetCursor`): a timer from 0
//! to 1 over the whole flipbook (a ping-pong's frames counted out and back, 2n - 2), advanced by
//! `dt * fps / frames * playback_rate`, wrapped when looping and held at 1 when playing once;
//! a once-flipbook ends (and sends `animation_done`) in the update its timer reaches 1.
use crate::project::sprite::{Flipbook, Playback};

/// One sprite's playing state; plain numbers so the per-frame pass is a loop over a slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// 0..1 over the flipbook in playing order (Defold's `m_AnimTimer`).
    pub timer: f32,
    /// Timer units per second at rate 1.
    pub inv_duration: f32,
    pub rate: f32,
    pub playing: bool,
}

/// Frames the timer runs through: a ping-pong goes out and back without repeating its ends.
fn steps(f: &Flipbook) -> u32 {
    let n = f.frames.len() as u32;
    if matches!(f.playback, Playback::OncePingpong | Playback::LoopPingpong) {
        (2 * n).saturating_sub(2).max(1)
    } else {
        n.max(1)
    }
}

fn backwards(p: Playback) -> bool {
    matches!(p, Playback::OnceBackward | Playback::LoopBackward)
}

fn pingpong(p: Playback) -> bool {
    matches!(p, Playback::OncePingpong | Playback::LoopPingpong)
}

impl Clock {
    /// Starts `f` at `offset` (0..1) and `rate` (negative rates are 0). Defold turns a
    /// backward flipbook's offset round twice, so the timer starts at the offset in every mode
    /// (halved for a ping-pong), and a backward flipbook starts on its last frame.
    pub fn start(f: &Flipbook, offset: f32, rate: f32) -> Clock {
        let offset = if offset.is_finite() { offset.clamp(0.0, 1.0) } else { 0.0 };
        Clock {
            timer: if pingpong(f.playback) { offset / 2.0 } else { offset },
            inv_duration: f.fps / steps(f) as f32,
            rate: if rate.is_finite() { rate.max(0.0) } else { 1.0 },
            playing: f.playback != Playback::None,
        }
    }

    /// Advances by `dt`; true when a once-flipbook has just ended (the caller sends
    /// `animation_done`).
    pub fn advance(&mut self, f: &Flipbook, dt: f32) -> bool {
        if !self.playing {
            return false;
        }
        self.timer += dt * self.inv_duration * self.rate;
        let once = f.playback.is_once();
        if self.timer >= 1.0 {
            if once { self.timer = 1.0 } else { self.timer -= self.timer.floor() }
        }
        if once && self.timer >= 1.0 {
            self.playing = false;
            return true;
        }
        false
    }

    /// Index into `f.frames` of the frame shown now.
    pub fn frame(&self, f: &Flipbook) -> u32 {
        let n = f.frames.len() as u32;
        let count = steps(f);
        let t = if backwards(f.playback) { 1.0 - self.timer } else { self.timer };
        let mut k = ((t * count as f32) as u32).min(count - 1);
        if k >= n {
            k = (2 * (n - 1)).saturating_sub(k);
        }
        k.min(n.saturating_sub(1))
    }

    /// The `cursor` property: 0..1 through the flipbook as authored (a ping-pong's 0..1..0).
    pub fn cursor(&self, f: &Flipbook) -> f32 {
        let mut c = if backwards(f.playback) { 1.0 - self.timer } else { self.timer };
        if pingpong(f.playback) {
            c *= 2.0;
            if c > 1.0 {
                c = 2.0 - c;
            }
        }
        c
    }

    pub fn set_cursor(&mut self, f: &Flipbook, cursor: f32) {
        let mut c = if cursor.is_finite() { cursor.clamp(0.0, 1.0) } else { 0.0 };
        if pingpong(f.playback) {
            c /= 2.0;
        }
        if backwards(f.playback) {
            c = 1.0 - c;
        }
        self.timer = c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(n: u32, fps: f32, playback: Playback) -> Flipbook {
        Flipbook {
            id: "a".into(),
            frames: (10..10 + n).collect(),
            fps,
            playback,
            flip_horizontal: false,
            flip_vertical: false,
        }
    }

    /// The frames shown after each of `updates` steps of `dt` from `offset`, and the update
    /// (1-based) that ended the flipbook.
    fn run(f: &Flipbook, offset: f32, dt: f32, updates: usize) -> (Vec<u32>, Option<usize>) {
        let mut c = Clock::start(f, offset, 1.0);
        let mut done = None;
        let mut shown = vec![c.frame(f)];
        for u in 1..=updates {
            if c.advance(f, dt) && done.is_none() {
                done = Some(u);
            }
            shown.push(c.frame(f));
        }
        (shown, done)
    }

    #[test]
    fn each_playback_walks_the_frames_as_defold_does() {
        // One frame per update, starting half a frame in (Defold's timer is exactly on a frame
        // boundary otherwise, and a backward flipbook then shows its last frame twice).
        let dt = 0.25;
        let cases = [
            (Playback::OnceForward, 4, vec![0, 1, 2, 3, 3, 3, 3, 3, 3], Some(4)),
            (Playback::OnceBackward, 4, vec![3, 2, 1, 0, 0, 0, 0, 0, 0], Some(4)),
            (Playback::OncePingpong, 3, vec![0, 1, 2, 1, 1, 1, 1, 1, 1], Some(4)),
            (Playback::LoopForward, 4, vec![0, 1, 2, 3, 0, 1, 2, 3, 0], None),
            (Playback::LoopBackward, 4, vec![3, 2, 1, 0, 3, 2, 1, 0, 3], None),
            (Playback::LoopPingpong, 3, vec![0, 1, 2, 1, 0, 1, 2, 1, 0], None),
            (Playback::None, 4, vec![0, 0, 0, 0, 0, 0, 0, 0, 0], None),
        ];
        for (p, n, frames, done) in cases {
            let f = book(n, 4.0, p);
            assert_eq!(run(&f, 0.125, dt, 8), (frames, done), "{p:?}");
        }
        // Exactly on the boundaries, Defold's backward quirk: the last frame twice.
        let f = book(4, 4.0, Playback::OnceBackward);
        assert_eq!(run(&f, 0.0, dt, 4), (vec![3, 3, 2, 1, 0], Some(4)));
    }

    #[test]
    fn a_once_flipbook_ends_in_the_update_its_time_is_up() {
        // 4 frames at 32 fps last 0.125 s: at 64 updates a second (exact in binary), the 8th
        // update ends it (Defold posts animation_done from the update that takes the timer to 1).
        let f = book(4, 32.0, Playback::OnceForward);
        assert_eq!(run(&f, 0.0, 1.0 / 64.0, 30).1, Some(8));
        // 6 frames at 30 fps last 0.2 s, but at 60 Hz the f32 timer Defold keeps is 0.99999994
        // after 12 steps of 1/12, so the end comes one update later, as in Defold.
        let f = book(6, 30.0, Playback::OnceForward);
        let (_, done) = run(&f, 0.0, 1.0 / 60.0, 30);
        assert_eq!(done, Some(13));
        // At half speed, twice as long; from a cursor of 0.5, half as long.
        let f = book(4, 32.0, Playback::OnceForward);
        let mut c = Clock::start(&f, 0.0, 0.5);
        assert_eq!((1..100).find(|_| c.advance(&f, 1.0 / 64.0)), Some(16));
        let mut c = Clock::start(&f, 0.5, 1.0);
        assert_eq!((1..100).find(|_| c.advance(&f, 1.0 / 64.0)), Some(4));
    }

    #[test]
    fn cursor_reads_back_what_was_set() {
        for p in [Playback::LoopForward, Playback::OnceBackward, Playback::LoopPingpong] {
            let f = book(5, 10.0, p);
            let mut c = Clock::start(&f, 0.0, 1.0);
            c.set_cursor(&f, 0.3);
            assert!((c.cursor(&f) - 0.3).abs() < 1e-6, "{p:?}");
            c.set_cursor(&f, f32::NAN);
            assert_eq!(c.cursor(&f), 0.0, "{p:?}");
        }
    }
}
