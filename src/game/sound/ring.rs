//! A single-producer single-consumer ring of samples between the game thread (which mixes a
//! frame's worth) and the audio device's callback (which copies out). Slots are atomics, so
//! neither side locks or waits: a full ring drops what does not fit, an empty one reads as
//! silence.
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

pub struct Ring {
    slots: Box<[AtomicU32]>,
    /// Total samples written / read; the difference is what the ring holds.
    written: AtomicUsize,
    read: AtomicUsize,
}

impl Ring {
    pub fn new(capacity: usize) -> Ring {
        Ring {
            slots: (0..capacity.max(1)).map(|_| AtomicU32::new(0)).collect(),
            written: AtomicUsize::new(0),
            read: AtomicUsize::new(0),
        }
    }

    /// Samples waiting to be read.
    pub fn len(&self) -> usize {
        self.written.load(Ordering::Acquire).wrapping_sub(self.read.load(Ordering::Acquire))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Producer side: appends what fits of `samples`; returns how many were taken.
    pub fn push(&self, samples: &[f32]) -> usize {
        let w = self.written.load(Ordering::Relaxed);
        let free = self.slots.len() - w.wrapping_sub(self.read.load(Ordering::Acquire));
        let n = samples.len().min(free);
        for (k, s) in samples[..n].iter().enumerate() {
            self.slots[(w + k) % self.slots.len()].store(s.to_bits(), Ordering::Relaxed);
        }
        self.written.store(w.wrapping_add(n), Ordering::Release);
        n
    }

    /// Consumer side: fills `out`, with silence past what the ring holds; returns the samples
    /// that were real.
    pub fn pop(&self, out: &mut [f32]) -> usize {
        let r = self.read.load(Ordering::Relaxed);
        let held = self.written.load(Ordering::Acquire).wrapping_sub(r);
        let n = out.len().min(held);
        for (k, o) in out[..n].iter_mut().enumerate() {
            *o = f32::from_bits(self.slots[(r + k) % self.slots.len()].load(Ordering::Relaxed));
        }
        out[n..].fill(0.0);
        self.read.store(r.wrapping_add(n), Ordering::Release);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_come_out_in_order_across_the_wrap_and_underruns_are_silent() {
        let ring = Ring::new(8);
        assert_eq!(ring.push(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), 6);
        let mut out = [0.0; 4];
        assert_eq!(ring.pop(&mut out), 4);
        assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(ring.push(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0]), 6, "a full ring drops the rest");
        let mut out = [9.9; 10];
        assert_eq!(ring.pop(&mut out), 8);
        assert_eq!(out, [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 0.0, 0.0]);
    }
}
