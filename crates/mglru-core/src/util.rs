// SPDX-License-Identifier: GPL-2.0-only
//! Small integer helpers with the kernel's semantics.

/// `int_sqrt`: floor of the square root.
pub fn int_sqrt(x: u64) -> u64 {
    if x < 2 {
        return x;
    }
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// `fls`: position of the most significant set bit, 1-based; 0 for 0.
pub fn fls(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// Ask the system to back the 2 MiB-aligned stretches of a large array
/// with huge pages (`madvise(MADV_HUGEPAGE)`; a hint, changes no value).
/// The model's big tables (the page cache of a large file, the folio
/// table) are read at random, a few bytes per access: with 4 KiB pages
/// nearly every access also misses the TLB, which the prefetches of the
/// replay loop cannot hide (a prefetch waits for its page walk). Ignored
/// below 4 MiB, off Linux, and wherever the system declines.
pub fn advise_huge_pages(p: *const u8, len: usize) {
    const HUGE: usize = 2 << 20;
    if len < 2 * HUGE {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE);
    let end = (p as usize + len) & !(HUGE - 1);
    if end <= start {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: core::ffi::c_int) -> core::ffi::c_int;
        }
        const MADV_HUGEPAGE: core::ffi::c_int = 14;
        // SAFETY: the range lies inside one live allocation of the caller
        // and is page-aligned; MADV_HUGEPAGE changes how the range is
        // backed, never its contents, and an error (no THP, an old kernel)
        // is harmless, so the return value is ignored.
        unsafe {
            madvise(start as *mut core::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

/// A hint to start loading the cache line at `p` (a replay loop's or a
/// reclaim batch's look-ahead). Changes no state.
#[inline(always)]
pub fn prefetch_read(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn int_sqrt_floor() {
        assert_eq!(int_sqrt(0), 0);
        assert_eq!(int_sqrt(15), 3);
        assert_eq!(int_sqrt(16), 4);
        assert_eq!(int_sqrt(1 << 40), 1 << 20);
        assert_eq!(fls(1), 1);
        assert_eq!(fls(32), 6);
    }
}
