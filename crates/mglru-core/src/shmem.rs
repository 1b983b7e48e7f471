// SPDX-License-Identifier: GPL-2.0-only
//! Shared memory (mm/shmem.c): tmpfs files, memfds and the shmem file
//! behind a `MAP_SHARED|MAP_ANONYMOUS` mapping.
//!
//! A shmem file's pages are page cache that no disk backs: they are
//! swap-backed (`PG_swapbacked`), so reclaim keeps them on the anon LRU
//! and can only free them by swapping; the flusher never sees them (the
//! mapping cannot write back: `noop_dirty_folio` sets `PG_dirty` and
//! nothing else, no `nr_dirty`, no dirty throttling). They are charged to
//! the memcg as page cache, counted in `NR_FILE_PAGES` and `NR_SHMEM`
//! (memory.stat `file` and `shmem`, /proc/meminfo `Shmem`), and in
//! `NR_FILE_MAPPED` while mapped; never in `anon`.
//!
//! Reclaim writes a dirty shmem folio out with `shmem_writepage`: the
//! folio gets a swap slot and moves into the swap cache, and its page
//! cache slot now holds the swap entry (`info->swapped` counts them); the
//! swap cache then treats it like an anon folio (writeback, removal with
//! a shadow entry in the swap cache). A clean folio — one faulted in by
//! a read and never stored to, all zeroes — is simply dropped: the slot
//! becomes a hole again, no shadow (shmem is not on the file LRU). An
//! access to a swapped page (`shmem_get_folio_gfp` → `shmem_swapin_folio`)
//! reads it through the swap cache with the swap device's cluster
//! readahead (`swap_cluster_readahead`: shmem has no VMA readahead and, in
//! 6.12, no swap-cache bypass for synchronous devices), puts it back in
//! the page cache dirty and frees the slot; the swap cache's shadow makes
//! it an anon refault (`workingset_refault_anon`). Truncation and the
//! eviction of the last reference free folios and swap slots alike.
//!
//! The model keeps a shmem folio's file and index in `mapping`/`index`
//! also while it is in the swap cache, and marks the slot's owner with
//! [`OWNER_SHMEM`] so that a read of the slot (by shmem or by readahead)
//! makes a shmem folio of it, not an anon one.

use crate::file::{File, ENT_FOLIO, ENT_SWAP};
use crate::folio::pg;
use crate::kernel::Kernel;
use crate::page_alloc::Gfp;
use crate::shadow::Slot;
use crate::stat::{Ev, St};
use crate::swapfile::{SLOT_CACHED, SLOT_USED, SLOT_VALUE};

/// The owner of a swap slot holding a shmem page: the file id with this
/// bit set (the anon owners are region ids, far below it).
pub const OWNER_SHMEM: u32 = 1 << 31;

/// How `shmem_get_folio` may treat a hole (`enum sgp_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sgp {
    /// `SGP_READ`: a hole reads as zeroes, nothing is allocated.
    Read,
    /// `SGP_CACHE`: a fault allocates a folio for a hole, not dirtied.
    Cache,
    /// `SGP_WRITE`: write(2) allocates and marks the folio referenced.
    Write,
}

/// Attempts of one `shmem_get_folio` before it gives up (the kernel's
/// `goto repeat` on -EEXIST has no bound; the model's races are only an
/// allocation that reclaimed or killed, so one retry is all it takes).
const SHMEM_GET_RETRIES: u32 = 4;

/// Bound on the timers a swap-in waits through for the folio's writeback
/// (each wait fires at least one timer; the write's own is among them).
const WRITEBACK_WAIT_BOUND: u32 = 1 << 20;

impl Kernel {
    /// A tmpfs file or memfd of `pages` pages (`shmem_get_inode`): no
    /// readahead, nothing allocated until written or faulted.
    pub fn shmem_file_create(&mut self, id: u32, pages: u64) {
        debug_assert_eq!(id as usize, self.files.len());
        let mut f = File::new(pages, 0);
        f.shmem = true;
        self.files.push(f);
    }

    /// `mmap(MAP_SHARED|MAP_ANONYMOUS)`: `shmem_zero_setup` makes an
    /// unlinked shmem file of the mapping's size (file id `file`) and the
    /// mapping is of it; only the mapping holds it, so its pages and swap
    /// go when the mapping goes.
    pub fn shmem_zero_setup(&mut self, task: u32, region: u32, file: u32, pages: u64) {
        self.shmem_file_create(file, pages);
        self.mmap_create(task, region, file);
        self.files[file as usize].unlinked = true;
    }

    /// `shmem_add_to_page_cache` + the stats of `shmem_update_stats`:
    /// `pfn` goes into slot `index` (a hole, or the swap entry it was
    /// read from).
    fn shmem_add_to_page_cache(&mut self, file: u32, index: u64, pfn: u32) {
        let old = self.files[file as usize].cache.get(index);
        debug_assert!(old & ENT_FOLIO == 0);
        let f = self.folios.get_mut(pfn);
        f.mapping = file;
        f.index = index as u32;
        let memcg = f.memcg;
        let fl = &mut self.files[file as usize];
        fl.cache.set(index, ENT_FOLIO | pfn as u64);
        fl.nrpages += 1;
        // A swap entry is a value entry, but shmem's xarray keeps no
        // shadow-node list (mapping_set_update skips shmem): for the node
        // accounting it is an occupied slot like a folio.
        let was = if old & ENT_SWAP != 0 { Slot::Page } else { Slot::Empty };
        self.xa_slot_changed(file, index, was, Slot::Page, memcg);
        let st = &mut self.memcgs[memcg as usize].st;
        st.add(St::FilePages, 1);
        st.add(St::Shmem, 1);
    }

    /// `shmem_get_folio_gfp` for the current task: the folio at `index`
    /// of shmem `file`, swapped in if it was swapped out, allocated for a
    /// hole unless `sgp` is `Read`. `fault` counts a major fault when the
    /// page has to be read from swap (`shmem_fault`). None for a hole read
    /// or when memory could not be had.
    pub fn shmem_get_folio(&mut self, file: u32, index: u64, sgp: Sgp, fault: bool) -> Option<u32> {
        for _ in 0..SHMEM_GET_RETRIES {
            let e = self.files[file as usize].cache.get(index);
            if e & ENT_FOLIO != 0 {
                let pfn = e as u32;
                if sgp == Sgp::Write {
                    self.folio_mark_accessed(pfn);
                }
                return Some(pfn);
            }
            if e & ENT_SWAP != 0 {
                match self.shmem_swapin_folio(file, index, (e & SLOT_VALUE) as u32, sgp, fault) {
                    Ok(pfn) => return Some(pfn),
                    Err(true) => continue,
                    Err(false) => return None,
                }
            }
            if sgp == Sgp::Read {
                return None;
            }
            // shmem_alloc_and_add_folio: allocate, charge, insert, LRU.
            let memcg = self.tasks[self.current.pid as usize].memcg;
            let pfn = self.alloc_folio(memcg, Gfp::Normal)?;
            if self.files[file as usize].cache.get(index) != 0 || !self.tasks[self.current.pid as usize].alive {
                // The allocation reclaimed or OOM-killed meanwhile and the
                // slot is no longer the hole it was (-EEXIST), or the task
                // is gone.
                self.free_folio(pfn);
                if !self.tasks[self.current.pid as usize].alive {
                    return None;
                }
                continue;
            }
            self.folios.get_mut(pfn).set(pg::SWAPBACKED | pg::UPTODATE);
            self.shmem_add_to_page_cache(file, index, pfn);
            self.folio_add_lru(pfn);
            if sgp == Sgp::Write {
                // folio_set_referenced: the flag only.
                self.folios.get_mut(pfn).set(pg::REFERENCED);
            }
            return Some(pfn);
        }
        None
    }

    /// `shmem_swapin_folio`: bring swap slot `slot`, which page `index` of
    /// `file` holds, back into the page cache. Err(true) when the entry
    /// changed meanwhile (the caller looks again), Err(false) on failure.
    fn shmem_swapin_folio(&mut self, file: u32, index: u64, slot: u32, sgp: Sgp, fault: bool) -> Result<u32, bool> {
        let entry = self.swap.as_ref().expect("a shmem swap entry without swap").entry(slot);
        let pfn = if entry & SLOT_CACHED != 0 {
            // swap_cache_get_folio without a VMA: a readahead hit feeds
            // the cluster readahead's window.
            let pfn = (entry & SLOT_VALUE) as u32;
            if self.folios.get(pfn).test(pg::READAHEAD) {
                self.folios.get_mut(pfn).clear(pg::READAHEAD);
                self.ev.add(Ev::SwapRaHit, 1);
                let sw = self.swap.as_mut().unwrap();
                sw.cluster_ra.hits = sw.cluster_ra.hits.saturating_add(1);
            }
            pfn
        } else {
            if fault {
                let memcg = self.tasks[self.current.pid as usize].memcg;
                self.count(memcg, Ev::Pgmajfault, 1);
            }
            let Some(pfn) = self.swap_cluster_readahead(slot) else {
                return Err(self.files[file as usize].cache.get(index) != ENT_SWAP | slot as u64);
            };
            let ws = self.folios.get(pfn).test(pg::WORKINGSET);
            self.folios.get_mut(pfn).set(pg::PINNED);
            self.swap_read_time(ws);
            self.folios.get_mut(pfn).clear(pg::PINNED);
            pfn
        };
        // The lock is taken: the entry must still be this slot's and the
        // folio still the slot's swap-cache folio (shmem_confirm_swap).
        let f = *self.folios.get(pfn);
        if self.files[file as usize].cache.get(index) != ENT_SWAP | slot as u64
            || !f.test(pg::SWAPCACHE)
            || f.swap != slot + 1
        {
            return Err(true);
        }
        // folio_wait_writeback: the task sleeps until the write ends.
        self.folios.get_mut(pfn).set(pg::PINNED);
        let mut waits = 0u32;
        while self.folios.get(pfn).test(pg::WRITEBACK) && waits < WRITEBACK_WAIT_BOUND {
            let Some(t) = self.next_timer() else { break };
            self.wait_until(t);
            waits += 1;
        }
        self.folios.get_mut(pfn).clear(pg::PINNED);
        if self.folios.get(pfn).test(pg::WRITEBACK) {
            // No timer would end it: only an abandoned writeback does that.
            self.writeback_abandon(pfn);
        }
        self.shmem_add_to_page_cache(file, index, pfn);
        self.files[file as usize].swapped -= 1;
        if sgp == Sgp::Write {
            self.folio_mark_accessed(pfn);
        }
        self.delete_from_swap_cache(pfn, 0);
        self.folios.get_mut(pfn).set(pg::DIRTY);
        // swap_free_nr: shmem's reference was the slot's last (nothing
        // else refers to a shmem page's slot).
        let left = self.swap_put_ref(slot);
        debug_assert_eq!(left, 0);
        self.swap_slot_free(slot);
        Ok(pfn)
    }

    /// `swap_cluster_readahead` (mm/swap_state.c): read the aligned
    /// cluster of `swapin_nr_pages` slots around `slot` into the swap
    /// cache (each a readahead folio of whoever owns it), then the slot
    /// itself. Returns the slot's folio.
    fn swap_cluster_readahead(&mut self, slot: u32) -> Option<u32> {
        // The device's offsets count from 1: offset 0 is the header page.
        let offset = u64::from(slot) + 1;
        let mask = self.swapin_nr_pages(offset) - 1;
        if mask > 0 {
            let max = self.swap.as_ref().unwrap().nr_pages() + 1;
            let start = (offset & !mask).max(1);
            let end = (offset | mask).min(max - 1);
            for o in start..=end {
                let s = (o - 1) as u32;
                let e = self.swap.as_ref().unwrap().entry(s);
                // __read_swap_cache_async: nothing for a free slot or one
                // already cached.
                if e & SLOT_USED == 0 || e & SLOT_CACHED != 0 {
                    continue;
                }
                if let Some(pfn) = self.swapin_new_folio(s, true) {
                    if o != offset {
                        self.folios.get_mut(pfn).set(pg::READAHEAD);
                        self.ev.add(Ev::SwapRa, 1);
                    }
                }
            }
            self.lru_add_drain();
        }
        let e = self.swap.as_ref().unwrap().entry(slot);
        if e & SLOT_CACHED != 0 {
            return Some((e & SLOT_VALUE) as u32);
        }
        if e & SLOT_USED == 0 {
            return None;
        }
        self.swapin_new_folio(slot, true)
    }

    /// `swapin_nr_pages`: the cluster readahead's window, from the hits
    /// since the last call and whether this offset follows the previous
    /// one (`__swapin_nr_pages`).
    fn swapin_nr_pages(&mut self, offset: u64) -> u64 {
        let max_pages = 1u64 << self.sysctl.page_cluster;
        if max_pages <= 1 {
            return 1;
        }
        let ra = &mut self.swap.as_mut().unwrap().cluster_ra;
        let hits = std::mem::take(&mut ra.hits);
        let mut pages = u64::from(hits) + 2;
        if pages == 2 {
            if offset != ra.prev_offset + 1 && offset != ra.prev_offset.wrapping_sub(1) {
                pages = 1;
            }
        } else {
            let mut roundup = 4;
            while roundup < pages {
                roundup <<= 1;
            }
            pages = roundup;
        }
        pages = pages.min(max_pages).max(ra.last_pages / 2);
        if hits == 0 {
            ra.prev_offset = offset;
        }
        ra.last_pages = pages;
        pages
    }

    /// `pageout` of a dirty shmem folio that is not in the swap cache yet:
    /// clear its dirty bit for the write (`folio_clear_dirty_for_io`, only
    /// the flag: nothing is accounted), `shmem_writepage`, count
    /// `nr_vmscan_write`. False when writepage had no slot for it: it is
    /// dirty again and reclaim activates it (`PAGE_ACTIVATE`).
    pub(crate) fn shmem_pageout(&mut self, pfn: u32) -> bool {
        let f = self.folios.get_mut(pfn);
        f.clear(pg::DIRTY);
        f.set(pg::RECLAIM);
        if !self.shmem_writepage(pfn) {
            // redirty: folio_mark_dirty, AOP_WRITEPAGE_ACTIVATE.
            let f = self.folios.get_mut(pfn);
            f.set(pg::DIRTY);
            f.clear(pg::RECLAIM);
            return false;
        }
        if !self.folios.get(pfn).test(pg::WRITEBACK) {
            self.folios.get_mut(pfn).clear(pg::RECLAIM);
        }
        self.ev.add(Ev::NrVmscanWrite, 1);
        true
    }

    /// `shmem_writepage` from reclaim's `pageout`, the folio's dirty bit
    /// already cleared: give it a swap slot (charging the memcg's swap),
    /// move it into the swap cache with the swap entry in its page-cache
    /// slot, and start the swap write. False when no slot could be had
    /// (no swap, swap full, `memory.swap.max`): the caller redirties and
    /// activates it (`AOP_WRITEPAGE_ACTIVATE`).
    pub(crate) fn shmem_writepage(&mut self, pfn: u32) -> bool {
        let f = *self.folios.get(pfn);
        debug_assert!(f.is_shmem() && !f.test(pg::SWAPCACHE) && f.mapcount == 0);
        if !self.add_to_swap(pfn) {
            return false;
        }
        let slot = self.folios.get(pfn).swap - 1;
        self.swap.as_mut().unwrap().owner[slot as usize] = (f.mapping | OWNER_SHMEM, f.index);
        // swap_shmem_alloc: the page-cache entry holds the slot, as a swap
        // PTE would.
        self.swap_duplicate(slot);
        // add_to_swap dirtied it for the anon path; writepage writes a
        // folio whose dirty bit pageout already cleared.
        self.folios.get_mut(pfn).clear(pg::DIRTY);
        // shmem_delete_from_page_cache(folio, swap entry).
        let (file, index) = (f.mapping, f.index as u64);
        let fl = &mut self.files[file as usize];
        fl.cache.set(index, ENT_SWAP | u64::from(slot));
        fl.nrpages -= 1;
        fl.swapped += 1;
        let st = &mut self.memcgs[f.memcg as usize].st;
        st.add(St::FilePages, -1);
        st.add(St::Shmem, -1);
        // swap_writepage.
        self.folio_start_writeback(pfn);
        true
    }

    /// `read(2)` of `count` pages of a shmem file (`shmem_file_read_iter`):
    /// each page is looked up with `SGP_READ` (a swapped page is read
    /// back, a hole reads as zeroes and allocates nothing) and marked
    /// accessed, as every whole-page read starts at the page's beginning.
    pub fn shmem_file_read(&mut self, file: u32, page: u64, count: u64) -> u64 {
        let mut swapped_in = 0;
        for idx in page..page + count {
            if !self.tasks[self.current.pid as usize].alive {
                break;
            }
            let swapped = self.files[file as usize].cache.get(idx) & ENT_SWAP != 0;
            if let Some(pfn) = self.shmem_get_folio(file, idx, Sgp::Read, false) {
                swapped_in += swapped as u64;
                self.folio_mark_accessed(pfn);
            }
        }
        swapped_in
    }

    /// `write(2)` of `count` whole pages of a shmem file
    /// (`generic_perform_write` with `shmem_write_begin`/`_end`): the
    /// folio is found (marked accessed), swapped in or allocated (marked
    /// referenced) and dirtied; no dirty accounting, no throttling.
    pub fn shmem_file_write(&mut self, file: u32, page: u64, count: u64) -> u64 {
        let mut written = 0;
        for idx in page..page + count {
            if !self.tasks[self.current.pid as usize].alive {
                break;
            }
            let Some(pfn) = self.shmem_get_folio(file, idx, Sgp::Write, false) else { break };
            self.folio_mark_dirty(pfn);
            written += 1;
        }
        written
    }

    /// `shmem_fault` (`SGP_CACHE`): the page for a fault on a mapping of
    /// shmem `file`.
    pub(crate) fn shmem_fault(&mut self, file: u32, page: u64) -> Option<u32> {
        self.shmem_get_folio(file, page, Sgp::Cache, true)
    }

    /// `madvise(MADV_WILLNEED)` on a shmem mapping (`shmem_swapin_range`):
    /// start reading every swapped-out page of the file into the swap
    /// cache (`read_swap_cache_async`, no readahead around them), then
    /// drain the CPU's batches.
    pub(crate) fn shmem_swapin_range(&mut self, file: u32, pages: u64) {
        for idx in 0..pages {
            let e = self.files[file as usize].cache.get(idx);
            if e & ENT_SWAP == 0 {
                continue;
            }
            let s = (e & SLOT_VALUE) as u32;
            if self.swap.as_ref().unwrap().entry(s) & SLOT_CACHED == 0 {
                let _ = self.swapin_new_folio(s, true);
            }
        }
        self.lru_add_drain();
    }

    /// Truncation of a swapped-out page (`shmem_free_swap` from
    /// `shmem_undo_range`): the entry goes and so does the slot, with its
    /// swap-cache folio unless that is busy (`free_swap_and_cache`).
    pub(crate) fn shmem_free_swap(&mut self, file: u32, index: u64) {
        let e = self.files[file as usize].cache.get(index);
        debug_assert!(e & ENT_SWAP != 0);
        let fl = &mut self.files[file as usize];
        fl.cache.set(index, 0);
        fl.swapped -= 1;
        self.xa_slot_changed(file, index, Slot::Page, Slot::Empty, crate::memcontrol::ROOT_MEMCG);
        self.free_swap_and_cache((e & SLOT_VALUE) as u32);
    }
}
