// SPDX-License-Identifier: GPL-2.0-only
//! Demand misses: page accesses that found their page out of memory.
//!
//! No kernel counter says how many accesses missed. `pgpgin` counts every
//! page read, readahead included (pages no access asked for yet), and a
//! short run's reads are mostly first touches that no amount of memory
//! avoids. So the model counts, beside the kernel's counters and without
//! changing what it simulates:
//! - a *demand miss* when an access needs a page that is not in memory and
//!   must be read: a `read` of a file page not in the page cache, a fault
//!   on a file mapping whose page is not cached (the major fault), a fault
//!   on an anonymous page that is swapped out and not in the swap cache;
//! - of those, a *cold* (compulsory) miss when the file page was never in
//!   the page cache before (one bit per page of each file, set whenever a
//!   page is added, by readahead and writes too). An anonymous page's
//!   first touch is a zero-filled page, no read and no miss; a swapped-out
//!   page was in memory before, so a swap miss is never cold;
//! - the file pages that reads brought into the page cache, so that
//!   readahead (pages read beyond what accesses asked for) can be told
//!   apart from demand misses.
//!
//! Writes of whole pages read nothing and are not misses. shmem files are
//! left out: a `read` or a fault of a shmem page is never counted
//! (docs/SWEEP.md, "Misses").

/// The counts, and the per-file record of pages ever cached.
#[derive(Clone, Debug, Default)]
pub struct Demand {
    /// Per file id, one bit per page index: the page was in the page cache
    /// at some point.
    seen: Vec<Vec<u64>>,
    /// Accesses that found a file page out of the page cache.
    pub file_misses: u64,
    /// Accesses that found an anonymous page swapped out (not in the swap cache).
    pub swap_misses: u64,
    /// Of `file_misses`, pages never in the page cache before.
    pub cold_misses: u64,
    /// File pages reads added to the page cache (demand and readahead).
    pub file_pages_read: u64,
}

impl Demand {
    fn was_seen(&self, file: u32, index: u64) -> bool {
        let (w, b) = ((index / 64) as usize, index % 64);
        self.seen.get(file as usize).and_then(|v| v.get(w)).is_some_and(|x| x >> b & 1 != 0)
    }

    /// A page of `file` entered the page cache.
    #[inline]
    pub fn note_cached(&mut self, file: u32, index: u64) {
        let (f, w, b) = (file as usize, (index / 64) as usize, index % 64);
        if self.seen.len() <= f {
            self.seen.resize_with(f + 1, Vec::new);
        }
        let v = &mut self.seen[f];
        if v.len() <= w {
            v.resize(w + 1, 0);
        }
        v[w] |= 1 << b;
    }

    /// An access found page `index` of `file` out of the page cache.
    pub fn file_miss(&mut self, file: u32, index: u64) {
        self.file_misses += 1;
        if !self.was_seen(file, index) {
            self.cold_misses += 1;
        }
    }

    /// Bytes of host memory the record takes.
    pub fn bytes(&self) -> u64 {
        self.seen.iter().map(|v| v.len() as u64 * 8).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_cold_until_it_was_cached() {
        let mut d = Demand::default();
        d.file_miss(3, 130);
        assert_eq!((d.file_misses, d.cold_misses), (1, 1));
        d.note_cached(3, 130);
        d.file_miss(3, 130);
        assert_eq!((d.file_misses, d.cold_misses), (2, 1));
        // Another page of the same word, another file: still cold.
        d.file_miss(3, 131);
        d.file_miss(0, 130);
        assert_eq!((d.file_misses, d.cold_misses), (4, 3));
    }
}
