//! Animation events (layers.md §3): which event times a player's cursor passed during one
//! update. The cursor is followed as an unwrapped *phase* in f64 (seconds along the playback,
//! growing forever for the loops), so consecutive updates cover adjoining intervals
//! `[before, after)` whose shared end is the very same number: an event on a frame boundary is
//! counted by exactly one of the two frames, and a large `dt` that skips several loops counts
//! every crossing. The f32 cursor that poses the clip wraps on its own; the two differ by float
//! rounding only (microseconds).
use super::tween::Playback;

/// Crossings reported by one update at most, so a hostile `playback_rate` cannot flood the
/// message queue (a real clip crosses a handful per frame).
pub const MAX_EVENTS_PER_UPDATE: usize = 64;

/// Length of one period of the phase: the clip there and back for the pingpong modes.
pub fn period(playback: Playback, duration: f32) -> f64 {
    let d = f64::from(duration);
    if matches!(playback, Playback::OncePingpong | Playback::LoopPingpong) { 2.0 * d } else { d }
}

/// Calls `hit(event_index)` for every event time of `times` (clip seconds, ascending) whose
/// phase lies in `[from, to)` (`[from, to]` when `end_inclusive`, the step where a ONCE
/// animation reaches its end), in the order the cursor passes them. In a period the forward
/// modes pass `t` at phase `t`, the backward modes at `d − t`, pingpong at `t` and again at
/// `2d − t` (once only at the turn, `t = d`, and for the loops at `t = 0`, where the next
/// period starts). ONCE modes have a single period. Returns how many were reported (at most
/// [`MAX_EVENTS_PER_UPDATE`]).
pub fn crossings(
    playback: Playback,
    duration: f32,
    times: &[f32],
    from: f64,
    to: f64,
    end_inclusive: bool,
    mut hit: impl FnMut(usize),
) -> usize {
    let p = period(playback, duration);
    let forward = matches!(to.partial_cmp(&from), Some(std::cmp::Ordering::Greater));
    if times.is_empty() || playback == Playback::None || p.is_nan() || p <= 0.0 || (!forward && !end_inclusive) {
        return 0;
    }
    let d = f64::from(duration);
    let looping = !playback.completes();
    let inside = |pos: f64| pos >= from && (pos < to || (end_inclusive && pos <= to));
    let first = if looping { (from / p).floor() } else { 0.0 };
    let mut count = 0;
    let mut k = first;
    while k * p <= to && count < MAX_EVENTS_PER_UPDATE {
        let base = k * p;
        let mut emit = |i: usize, phase: f64| {
            if count < MAX_EVENTS_PER_UPDATE && inside(base + phase) {
                hit(i);
                count += 1;
            }
        };
        let clamp = |t: f32| f64::from(t).clamp(0.0, d);
        match playback {
            Playback::OnceForward | Playback::LoopForward => {
                for (i, &t) in times.iter().enumerate() {
                    emit(i, clamp(t));
                }
            }
            Playback::OnceBackward | Playback::LoopBackward => {
                for (i, &t) in times.iter().enumerate().rev() {
                    emit(i, d - clamp(t));
                }
            }
            Playback::OncePingpong | Playback::LoopPingpong => {
                for (i, &t) in times.iter().enumerate() {
                    emit(i, clamp(t));
                }
                for (i, &t) in times.iter().enumerate().rev() {
                    let t = clamp(t);
                    if t < d && (t > 0.0 || !looping) {
                        emit(i, 2.0 * d - t);
                    }
                }
            }
            Playback::None => {}
        }
        if !looping {
            break;
        }
        k += 1.0;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use Playback::*;

    /// Every crossing over a run of `steps` updates of `dt` seconds at `rate` (phase grows by
    /// `dt × rate`, ONCE modes stop at their end), as the player drives it.
    fn run(playback: Playback, times: &[f32], rate: f64, dt: f64, seconds: f64) -> Vec<usize> {
        let d = 1.0f32;
        let end = period(playback, d);
        let mut out = Vec::new();
        let mut phase = 0.0f64;
        let steps = (seconds / dt).round() as usize;
        for _ in 0..steps {
            let mut to = phase + dt * rate;
            let done = playback.completes() && to >= end;
            if done {
                to = end;
            }
            crossings(playback, d, times, phase, to, done, |i| out.push(i));
            phase = to;
            if done {
                break;
            }
        }
        out
    }

    #[test]
    fn forward_loop_counts_every_crossing_once_whatever_the_step() {
        let times = [0.21, 0.56];
        for dt in [0.25, 1.0 / 60.0, 0.75] {
            assert_eq!(run(LoopForward, &times, 1.0, dt, 3.0), [0, 1, 0, 1, 0, 1], "dt {dt}");
        }
        // One huge step over several loops: every loop's crossings, in order.
        let mut hits = Vec::new();
        crossings(LoopForward, 1.0, &times, 0.1, 3.3, false, |i| hits.push(i));
        assert_eq!(hits, [0, 1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn pingpong_passes_each_event_both_ways_and_the_turn_once() {
        let times = [0.0, 0.21, 1.0];
        // Loop: phases 0, 0.21, 1.0 (turn), 1.79, then 2.0 = next period's 0.
        assert_eq!(run(LoopPingpong, &times, 1.0, 0.25, 4.0), [0, 1, 2, 1, 0, 1, 2, 1]);
        // Once: 0, 0.21, 1.0, 1.79 and the end 2.0 (the event at 0 is reached again).
        assert_eq!(run(OncePingpong, &times, 1.0, 1.0 / 60.0, 4.0), [0, 1, 2, 1, 0]);
    }

    #[test]
    fn backward_modes_pass_events_in_reverse() {
        let times = [0.21, 0.56];
        assert_eq!(run(OnceBackward, &times, 1.0, 0.25, 3.0), [1, 0]);
        assert_eq!(run(LoopBackward, &times, 2.0, 0.25, 1.0), [1, 0, 1, 0]);
    }

    #[test]
    fn a_hostile_rate_is_capped() {
        let n = crossings(LoopForward, 1.0, &[0.5], 0.0, 1e12, false, |_| {});
        assert_eq!(n, MAX_EVENTS_PER_UPDATE);
        assert_eq!(crossings(LoopForward, 0.0, &[0.0], 0.0, 5.0, false, |_| {}), 0);
        assert_eq!(crossings(None, 1.0, &[0.5], 0.0, 5.0, false, |_| {}), 0);
    }
}
