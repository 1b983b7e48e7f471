// SPDX-License-Identifier: GPL-2.0-only
//! Files on disk and their page cache (`struct address_space`).
//!
//! The page cache is an array of `u64` entries indexed by page offset: an
//! entry is empty, a folio (its pfn), or a shadow entry left behind by
//! reclaim.

use crate::folio::NIL;

/// Entries per chunk: 512 entries of 8 bytes, one 4 KiB page (like an
/// xarray node's slots, the unit the array is counted in).
const CHUNK_SHIFT: u32 = 9;
const CHUNK: usize = 1 << CHUNK_SHIFT;

/// Entry tags.
pub const ENT_FOLIO: u64 = 1 << 63;
pub const ENT_SHADOW: u64 = 1 << 62;
pub const ENT_VALUE: u64 = ENT_SHADOW - 1;
/// A shmem file's swap entry (the slot in the low bits): its page was
/// swapped out (crate::shmem). Shadows fit below this bit.
pub const ENT_SWAP: u64 = 1 << 61;

/// Sparse array of page-cache (or swap-cache) entries.
///
/// A file of up to [`FLAT_MAX`] pages has one flat, zero-filled array, so
/// a lookup is a single load at `base + index` (in chunks, a load of the
/// chunk's pointer, then of the entry: two dependent misses on a cold
/// page). Its memory stays sparse all the same: a large zeroed allocation
/// is fresh anonymous memory from the system, which occupies no RAM until
/// a page of it is written, and entries are written 4 KiB at a time
/// exactly where the chunked array allocates a chunk (a chunk is written
/// first with a value other than 0; writing 0 to a chunk never written is
/// skipped). (glibc maps allocations above its mmap threshold fresh; the
/// threshold starts at 128 KiB and can rise to 32 MiB after large frees,
/// e.g. between the configurations of a sweep, and below it calloc clears
/// heap memory: an array of up to 32 MiB, a file of up to 4 Mi pages, may
/// then be resident whole, at most 8 bytes per page of the file. Huge
/// pages, below, likewise make a sparse array resident 2 MiB at a time.)
/// Larger files keep 4 KiB chunks allocated on first write, so
/// that no single allocation is large enough for the system to refuse.
/// Either way `written` records the chunks written, and the bytes reported
/// are 8 per chunk for the bookkeeping and 4 KiB per chunk written.
#[derive(Default)]
pub struct EntryArray {
    /// Every entry, for a file of up to FLAT_MAX pages; else empty.
    flat: Vec<u64>,
    /// The chunks of a larger file; else empty.
    chunks: Vec<Option<Box<[u64; CHUNK]>>>,
    /// One bit per chunk: written with a value other than 0.
    written: Vec<u64>,
    /// Chunks written (for the bytes-per-page report).
    pub nr_chunks: u64,
}

/// The largest file whose page cache is one flat array: 2^26 pages
/// (256 GiB), 512 MiB of address space.
pub const FLAT_MAX: u64 = 1 << 26;

impl EntryArray {
    pub fn new(len: u64) -> EntryArray {
        let nr = (len as usize).div_ceil(CHUNK);
        let written = vec![0; nr.div_ceil(64)];
        if len <= FLAT_MAX {
            // vec![0; n] asks the allocator for zeroed memory (calloc),
            // which for a large array is a fresh mapping: nothing is
            // zeroed or made resident up front.
            let flat = vec![0u64; len as usize];
            crate::util::advise_huge_pages(flat.as_ptr() as *const u8, flat.len() * 8);
            EntryArray { flat, chunks: Vec::new(), written, nr_chunks: 0 }
        } else {
            let mut chunks = Vec::with_capacity(nr);
            chunks.resize_with(nr, || None);
            EntryArray { flat: Vec::new(), chunks, written, nr_chunks: 0 }
        }
    }
    // The accessors inline everywhere, with a larger file's chunks out of
    // line (cold: a page cache of more than 256 GiB): the bounds check of
    // the flat array is the only test on the way to an entry (an empty
    // flat array sends every index to the chunks). Left to itself the
    // compiler kept them as calls.
    #[inline(always)]
    pub fn get(&self, i: u64) -> u64 {
        match self.flat.get(i as usize) {
            Some(&e) => e,
            None => self.get_chunked(i),
        }
    }
    #[cold]
    #[inline(never)]
    fn get_chunked(&self, i: u64) -> u64 {
        match &self.chunks[(i >> CHUNK_SHIFT) as usize] {
            Some(c) => c[(i as usize) & (CHUNK - 1)],
            None => 0,
        }
    }
    #[inline(always)]
    pub fn set(&mut self, i: u64, v: u64) {
        let c = (i >> CHUNK_SHIFT) as usize;
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        if self.written[word] & bit == 0 {
            if v == 0 {
                return;
            }
            self.written[word] |= bit;
            self.nr_chunks += 1;
        }
        match self.flat.get_mut(i as usize) {
            Some(e) => *e = v,
            None => self.set_chunked(i, v),
        }
    }
    #[cold]
    #[inline(never)]
    fn set_chunked(&mut self, i: u64, v: u64) {
        let c = self.chunks[(i >> CHUNK_SHIFT) as usize].get_or_insert_with(|| Box::new([0; CHUNK]));
        c[(i as usize) & (CHUNK - 1)] = v;
    }
    /// Address of entry `i` if its memory exists (for prefetching).
    #[inline(always)]
    pub fn entry_ptr(&self, i: u64) -> Option<*const u64> {
        match self.flat.get(i as usize) {
            Some(e) => Some(e as *const u64),
            None => self.entry_ptr_chunked(i),
        }
    }
    #[cold]
    #[inline(never)]
    fn entry_ptr_chunked(&self, i: u64) -> Option<*const u64> {
        match self.chunks.get((i >> CHUNK_SHIFT) as usize) {
            Some(Some(c)) => Some(&c[(i as usize) & (CHUNK - 1)] as *const u64),
            _ => None,
        }
    }
    pub fn bytes(&self) -> u64 {
        self.nr_chunk_slots() * 8 + self.nr_chunks * (CHUNK as u64 * 8)
    }
    fn nr_chunk_slots(&self) -> u64 {
        if self.chunks.is_empty() {
            self.flat.len().div_ceil(CHUNK) as u64
        } else {
            self.chunks.len() as u64
        }
    }
}

/// `struct file_ra_state` (one open file description per file, shared by
/// the tasks that read it: simplification, see docs/FIDELITY.md).
#[derive(Clone, Copy, Debug, Default)]
pub struct RaState {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
    /// Maximum readahead in pages (`ra_pages`, from read_ahead_kb).
    pub ra_pages: u64,
    /// Byte position after the last read (`prev_pos`); -1 initially.
    pub prev_pos: i64,
    /// Faults that missed the page cache (`mmap_miss`).
    pub mmap_miss: u32,
}

pub struct File {
    pub pages: u64,
    pub cache: EntryArray,
    /// The page-cache xarray's leaf nodes (shadow-node accounting).
    pub xa: crate::shadow::XaNodes,
    /// Resident folios (`mapping->nrpages`).
    pub nrpages: u64,
    pub ra: RaState,
    /// The device's default `ra_pages` (restored by `POSIX_FADV_NORMAL`).
    pub default_ra_pages: u64,
    /// `FMODE_RANDOM` (POSIX_FADV_RANDOM).
    pub fmode_random: bool,
    /// `FMODE_NOREUSE` (POSIX_FADV_NOREUSE).
    pub fmode_noreuse: bool,
    /// Unlinked: evicted when its last mapping goes.
    pub unlinked: bool,
    /// VMAs (region ids) mapping this file (`i_mmap`).
    pub i_mmap: Vec<u32>,
    /// Dirty page offsets awaiting writeback, possibly stale (checked on use).
    pub dirty_pages: Vec<u32>,
    /// A shmem file (tmpfs, memfd, shared anonymous): swap-backed page
    /// cache (crate::shmem).
    pub shmem: bool,
    /// A shmem file's swapped-out pages (`info->swapped`): its swap entries.
    pub swapped: u64,
    /// How well a shmem file's data compresses on zram (`zram_ratio=`,
    /// hundredths): its pages' zsmalloc class; None: the device's ratio.
    pub zram_ratio: Option<u32>,
    /// When the inode was first dirtied (`dirtied_when`), if dirty.
    pub dirtied_when: Option<u64>,
    /// Position on the flusher's dirty-inode list (`b_dirty`), NIL if clean.
    pub dirty_seq: u64,
}

impl File {
    pub fn new(pages: u64, ra_pages: u64) -> File {
        File {
            pages,
            cache: EntryArray::new(pages),
            xa: crate::shadow::XaNodes::new(pages),
            nrpages: 0,
            ra: RaState { ra_pages, prev_pos: -1, ..Default::default() },
            default_ra_pages: ra_pages,
            fmode_random: false,
            fmode_noreuse: false,
            unlinked: false,
            i_mmap: Vec::new(),
            dirty_pages: Vec::new(),
            shmem: false,
            swapped: 0,
            zram_ratio: None,
            dirtied_when: None,
            dirty_seq: NIL as u64,
        }
    }
    /// The folio cached at `index`, if any.
    #[inline]
    pub fn folio_at(&self, index: u64) -> Option<u32> {
        let e = self.cache.get(index);
        if e & ENT_FOLIO != 0 {
            Some(e as u32)
        } else {
            None
        }
    }
    /// `page_cache_prev_miss`: the last index at or below `index` that has
    /// no folio, looking back at most `max_scan` entries; `u64::MAX` if the
    /// scan ran past offset 0.
    pub fn prev_miss(&self, index: u64, max_scan: u64) -> u64 {
        let mut i = index;
        for _ in 0..max_scan {
            if self.folio_at(i).is_none() {
                return i;
            }
            if i == 0 {
                return u64::MAX;
            }
            i -= 1;
        }
        i
    }
    /// `page_cache_next_miss`: the first index at or above `index` with no
    /// folio, looking at most `max_scan` entries; 0 on wrap (never here).
    pub fn next_miss(&self, index: u64, max_scan: u64) -> u64 {
        let mut i = index;
        for _ in 0..max_scan {
            if i >= self.pages || self.folio_at(i).is_none() {
                return i;
            }
            i += 1;
        }
        i
    }
}

/// `get_init_ra_size` (mm/readahead.c).
pub fn get_init_ra_size(size: u64, max: u64) -> u64 {
    let newsize = size.max(1).next_power_of_two();
    if newsize <= max / 32 {
        newsize * 4
    } else if newsize <= max / 4 {
        newsize * 2
    } else {
        max
    }
}

/// `get_next_ra_size` (mm/readahead.c).
pub fn get_next_ra_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ra_sizes_follow_the_kernel_ramp() {
        // 128 KiB = 32 pages: a 1-page read starts with 4 pages, then x4, x2, max.
        assert_eq!(get_init_ra_size(1, 32), 4);
        assert_eq!(get_next_ra_size(4, 32), 8);
        assert_eq!(get_next_ra_size(8, 32), 16);
        assert_eq!(get_next_ra_size(16, 32), 32);
        assert_eq!(get_next_ra_size(32, 32), 32);
    }
    #[test]
    fn entry_array_is_sparse() {
        let mut a = EntryArray::new(1 << 20);
        assert_eq!(a.get(12345), 0);
        a.set(12345, ENT_FOLIO | 7);
        assert_eq!(a.get(12345), ENT_FOLIO | 7);
        assert_eq!(a.nr_chunks, 1);
        a.set(999_999, 0);
        assert_eq!(a.nr_chunks, 1);
        assert_eq!(a.bytes(), 2048 * 8 + 4096);
    }
    #[test]
    fn entry_array_beyond_flat_max_is_chunked_and_counts_alike() {
        let mut a = EntryArray::new(FLAT_MAX + 1);
        assert_eq!(a.get(FLAT_MAX), 0);
        a.set(FLAT_MAX, 0);
        assert_eq!(a.nr_chunks, 0);
        a.set(FLAT_MAX, ENT_SHADOW | 3);
        a.set(5, ENT_FOLIO | 9);
        assert_eq!((a.get(FLAT_MAX), a.get(5), a.get(6)), (ENT_SHADOW | 3, ENT_FOLIO | 9, 0));
        a.set(5, 0);
        assert_eq!((a.get(5), a.nr_chunks), (0, 2));
        assert!(a.entry_ptr(5).is_some() && a.entry_ptr(1 << 20).is_none());
        assert_eq!(a.bytes(), (FLAT_MAX / 512 + 1) * 8 + 2 * 4096);
    }
}
