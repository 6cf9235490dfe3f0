//! Hints to start loading memory a pass will touch soon.
//!
//! The animation pass walks a thousand characters' state once a frame, and the rest of the frame
//! (llvmpipe's vertex work above all) has pushed all of it out of the caches: measured on the
//! 2-core test machine, posing a Fox took 45 ns per joint in the engine against 18 in the kernel
//! benchmark with its state in cache. Asking for the next character's buffers while this one is
//! posed overlaps those misses with work. A hint changes no result.

/// Starts loading the cache lines of `data` (a no-op where there is no prefetch instruction).
#[inline(always)]
pub fn prefetch<T>(data: &[T]) {
    prefetch_bytes(data.as_ptr().cast(), std::mem::size_of_val(data));
}

/// Starts loading the cache lines of one value.
#[inline(always)]
pub fn prefetch_value<T>(value: &T) {
    prefetch_bytes((value as *const T).cast(), std::mem::size_of::<T>());
}

/// Starts loading the cache lines of `count` values at `p`, which need not point at anything
/// (a prefetch never faults): for memory reached through a raw pointer.
#[inline(always)]
pub fn prefetch_ptr<T>(p: *const T, count: usize) {
    prefetch_bytes(p.cast(), count.saturating_mul(std::mem::size_of::<T>()));
}

#[inline(always)]
fn prefetch_bytes(p: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let mut off = 0;
        while off < bytes {
            // SAFETY: a prefetch never faults and reads nothing the program sees; the address
            // is inside (or one line past the start of) a live value anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off).cast()) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes);
}

/// Non-temporal stores: writes that do not read the destination's cache lines first and do
/// not keep them in the caches, for data a pass writes whole and nothing reads soon, such as
/// the matrices of a thousand characters' bone objects, read only when a script or an attached
/// object asks. An ordinary store first loads each line from memory once the rest of the frame
/// has pushed it out.
///
/// Such stores are weakly ordered: the thread that made them must fence before anything, on
/// any thread, itself included, touches that memory again (Rust's rules for `_mm_stream_ps`).
/// This type is the one way to make them and it fences when dropped, so the fence can be
/// neither forgotten nor made on the wrong thread: it is neither `Send` nor `Sync`, and what it
/// wrote through [`Streaming::store`] stays borrowed (for `'a`, which is invariant) until it is
/// dropped.
pub struct Streaming<'a> {
    /// Invariant in `'a` (a shorter borrow cannot stand in for it), and not `Send`/`Sync`.
    _written: std::marker::PhantomData<*mut &'a mut ()>,
}

impl Default for Streaming<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Streaming<'a> {
    pub fn new() -> Self {
        Streaming { _written: std::marker::PhantomData }
    }

    /// Writes `value` to `dst`, which stays borrowed until this is dropped (and fenced).
    #[inline(always)]
    pub fn store<T: Copy>(&self, dst: &'a mut T, value: &T) {
        // SAFETY: `dst` is an exclusive borrow that outlives `self`, so nothing else reads or
        // writes it before the fence in `drop`.
        unsafe { self.store_raw(dst, value) }
    }

    /// [`Streaming::store`] through a pointer, for destinations that several threads write
    /// (each its own elements).
    ///
    /// # Safety
    /// `dst` must be valid for writes and aligned, and nothing but stores through this value
    /// may read or write `*dst` until this value is dropped.
    #[inline(always)]
    pub unsafe fn store_raw<T: Copy>(&self, dst: *mut T, value: &T) {
        #[cfg(target_arch = "x86_64")]
        {
            const { assert!(std::mem::align_of::<T>() >= 16 && std::mem::size_of::<T>().is_multiple_of(16)) };
            use std::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
            let (d, s) = (dst.cast::<f32>(), (value as *const T).cast::<f32>());
            for k in 0..std::mem::size_of::<T>() / 16 {
                // SAFETY: `dst` is valid for writes and aligned to 16 bytes (the caller's promise
                // and the assertion above), so each 16-byte block of it is in bounds and aligned;
                // `value` is read within its size. The stored bytes are a copy of a `T`, so `*dst`
                // stays valid; the fence in `drop` orders them before any later access.
                unsafe { _mm_stream_ps(d.add(4 * k), _mm_loadu_ps(s.add(4 * k))) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        // SAFETY: `dst` is valid for writes and aligned (the caller's promise).
        unsafe {
            *dst = *value;
        }
    }
}

impl Drop for Streaming<'_> {
    /// Orders every store made through this value before every later load and store of this
    /// thread, so another thread that sees a later write (a lock released, a counter
    /// decremented) also sees them.
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a store fence has no operands and no effect but ordering.
        unsafe {
            std::arch::x86_64::_mm_sfence()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::Streaming;

    #[test]
    fn streamed_values_are_read_back_after_the_fence() {
        let mut out = vec![glam::Affine3A::IDENTITY; 37];
        let values: Vec<glam::Affine3A> =
            (0..37).map(|i| glam::Affine3A::from_translation(glam::Vec3::new(i as f32, -1.5, 0.25))).collect();
        {
            let s = Streaming::new();
            for (o, v) in out.iter_mut().zip(&values) {
                s.store(o, v);
            }
        }
        assert_eq!(out, values);
        // From several threads at once, each fencing its own stores before it joins.
        let expected: Vec<glam::Affine3A> = values.iter().cycle().take(4 * 64).copied().collect();
        let mut out = vec![glam::Affine3A::IDENTITY; 4 * 64];
        std::thread::scope(|scope| {
            for (chunk, part) in out.chunks_mut(64).zip(expected.chunks(64)) {
                scope.spawn(move || {
                    let s = Streaming::new();
                    for (o, v) in chunk.iter_mut().zip(part) {
                        s.store(o, v);
                    }
                });
            }
        });
        assert_eq!(out, expected);
    }
}
