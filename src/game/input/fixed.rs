//! The fixed-update clock (input.md section 3): whole steps of `1/frequency` out of the frame
//! time, at most [`MAX_STEPS`] per frame; the rest is dropped with one warning per second.

pub const MAX_STEPS: u32 = 5;

#[derive(Debug, Clone, Default)]
pub struct FixedClock {
    /// Seconds per step; 0 when fixed update is off.
    pub step: f64,
    acc: f64,
    /// Game time since the last "dropped steps" warning, and steps dropped since then.
    since_warning: f64,
    dropped: u64,
    warned_once: bool,
    /// Steps a frame may take at most.
    max_steps: u32,
}

impl FixedClock {
    pub fn new(frequency: f32) -> FixedClock {
        FixedClock::with_max_steps(frequency, MAX_STEPS)
    }

    /// A clock taking at most `max_steps` (at least 1) a frame: Defold's
    /// `physics.max_fixed_timesteps` for the physics step.
    pub fn with_max_steps(frequency: f32, max_steps: u32) -> FixedClock {
        let step = if frequency > 0.0 { 1.0 / frequency as f64 } else { 0.0 };
        FixedClock { step, max_steps: max_steps.max(1), ..FixedClock::default() }
    }

    /// Adds a frame's `dt`; returns how many fixed steps to run now.
    pub fn advance(&mut self, dt: f32) -> u32 {
        if self.step <= 0.0 {
            return 0;
        }
        self.acc += dt.max(0.0) as f64;
        self.since_warning += dt.max(0.0) as f64;
        // A tiny tolerance so 1/60 accumulated sixty times still counts sixty steps.
        let eps = self.step * 1e-6;
        let mut steps = ((self.acc + eps) / self.step).floor() as u64;
        self.acc = (self.acc - steps as f64 * self.step).max(0.0);
        let max = u64::from(self.max_steps);
        if steps > max {
            // A frequency of 1e33 Hz asks for steps past u64 each frame: counted, not overflowed.
            self.dropped = self.dropped.saturating_add(steps - max);
            steps = max;
        }
        steps as u32
    }

    /// Steps dropped since the last warning, when a warning is due (the first time, then at
    /// most once per second of game time).
    pub fn warning(&mut self) -> Option<u64> {
        if self.dropped == 0 || (self.warned_once && self.since_warning < 1.0) {
            return None;
        }
        self.warned_once = true;
        self.since_warning = 0.0;
        Some(std::mem::take(&mut self.dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_frequency() {
        for (freq, dt, frames, expected) in
            [(60.0, 1.0 / 60.0, 60, 60), (30.0, 1.0 / 60.0, 60, 30), (120.0, 1.0 / 60.0, 60, 120)]
        {
            let mut c = FixedClock::new(freq);
            let total: u32 = (0..frames).map(|_| c.advance(dt)).sum();
            assert_eq!(total, expected, "{freq} Hz");
        }
        assert_eq!(FixedClock::new(0.0).advance(1.0), 0);
    }

    /// Found by `tests/fuzz.rs`: a project's `fixed_update_frequency` of 1.8e33 overflowed the
    /// count of dropped steps (a panic in debug builds, a wrong count in release ones).
    #[test]
    fn an_absurd_frequency_drops_steps_without_overflow() {
        let mut c = FixedClock::new(1.8e33);
        for _ in 0..3 {
            assert_eq!(c.advance(1.0), MAX_STEPS);
        }
        assert_eq!(c.warning(), Some(u64::MAX));
    }

    #[test]
    fn a_clock_takes_at_most_its_own_number_of_steps() {
        let mut c = FixedClock::with_max_steps(60.0, 2);
        assert_eq!(c.advance(0.1), 2, "six steps due, two taken");
        assert_eq!(c.warning(), Some(4));
        assert_eq!(FixedClock::with_max_steps(60.0, 0).advance(0.1), 1, "at least one");
    }

    #[test]
    fn at_most_five_steps_per_frame() {
        let mut c = FixedClock::new(60.0);
        assert_eq!(c.advance(1.0), MAX_STEPS);
        assert_eq!(c.warning(), Some(55));
        // The rest was dropped, not carried over.
        assert_eq!(c.advance(0.0), 0);
        c.advance(0.5);
        assert_eq!(c.warning(), None, "at most one warning per second");
        c.advance(0.6);
        assert_eq!(c.warning(), Some(25 + 31));
    }
}
