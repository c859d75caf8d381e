//! A hint to the processor to bring a value's memory into its caches before it is read.
//!
//! The index's look-ups read memory in no order (an accumulator per listed name, a name's
//! words): each read of a line in no cache waits on the memory, and a loop that reads one
//! per step waits once per step. Asked for a few steps ahead, the lines arrive while the
//! steps before them run. A prefetch changes no value and never faults; `safe_arch` gives
//! the instruction behind a safe function (the workspace forbids `unsafe`), and on other
//! processors the hint is nothing.

/// Asks for the cache line holding `value` (into every level of the cache).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse"
    ))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(
        any(target_arch = "x86", target_arch = "x86_64"),
        target_feature = "sse"
    )))]
    let _ = value;
}
