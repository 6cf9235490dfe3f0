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

/// Writes `value` to `dst` without reading `dst`'s cache lines first, and without keeping them
/// in the caches (non-temporal stores): for data a pass writes whole and nothing reads soon,
/// such as the matrices of a thousand characters' bone objects, which are read only when a
/// script or an attached object asks. An ordinary store first loads each line from memory
/// once the rest of the frame has pushed it out. Call [`stream_fence`] before another thread
/// reads what was written (the writing thread itself always sees its own stores).
#[inline(always)]
pub fn stream_store<T: Copy>(dst: &mut T, value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        const { assert!(std::mem::align_of::<T>() >= 16 && std::mem::size_of::<T>().is_multiple_of(16)) };
        use std::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let (d, s) = ((dst as *mut T).cast::<f32>(), (value as *const T).cast::<f32>());
        for k in 0..std::mem::size_of::<T>() / 16 {
            // SAFETY: `dst` is a live, exclusively borrowed value aligned to 16 bytes (checked
            // above), so each 16-byte block of it is in bounds and aligned; `value` is read
            // within its size. The stored bytes are a copy of a `T`, so `dst` stays valid.
            unsafe { _mm_stream_ps(d.add(4 * k), _mm_loadu_ps(s.add(4 * k))) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = *value;
    }
}

/// Orders the non-temporal stores of [`stream_store`] before every later store, so another
/// thread that sees a later write also sees them.
#[inline(always)]
pub fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no operands and no effect but ordering.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}
