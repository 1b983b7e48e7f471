// SPDX-License-Identifier: GPL-2.0-only
//! The page cache: buffered read and write, readahead, insertion and
//! removal (mm/filemap.c, mm/readahead.c, mm/fadvise.c).

use crate::shadow::Slot;
use crate::file::{get_init_ra_size, get_next_ra_size, ENT_FOLIO, ENT_SHADOW, ENT_VALUE};
use crate::folio::pg;
use crate::kernel::{Kernel, PAGEVEC_SIZE};
use crate::page_alloc::Gfp;
use crate::stat::{Ev, St};

/// `MMAP_LOTSAMISS`.
pub const MMAP_LOTSAMISS: u32 = 100;
/// The device's optimal I/O size in pages (`bdi->io_pages`): 1 MiB, a
/// common `max_sectors_kb`-derived value (docs/FIDELITY.md).
pub const BDI_IO_PAGES: u64 = 256;

/// What one buffer_head costs its memcg: `sizeof(struct buffer_head)`
/// (104 bytes on x86-64) plus the obj_cgroup pointer `obj_full_size`
/// charges with each object. On the ground-truth guest (ext4, 4 KiB
/// blocks) writing 8192 pages raised the memcg's slab_reclaimable by
/// 917,616 bytes: 112.0 per page (docs/FIDELITY.md).
pub const BUFFER_HEAD_BYTES: u64 = 112;

impl Kernel {
    /// A folio just allocated for `index` of `file`, unless another task
    /// filled the slot while the allocation (its charge, its reclaim) let
    /// others run (parallel scheduling): then the new folio is freed and
    /// the one found is returned as `Err` (`filemap_add_folio`'s -EEXIST).
    fn filemap_add_new_folio(&mut self, file: u32, index: u64, pfn: u32, dirty: bool) -> Result<u32, u32> {
        if let Some(found) = self.files[file as usize].folio_at(index) {
            self.free_folio(pfn);
            return Err(found);
        }
        self.filemap_add_folio(file, index, pfn, dirty);
        if !dirty {
            // A read's page (crate::demand; no kernel counter).
            self.sim.demand.file_pages_read += 1;
        }
        Ok(pfn)
    }

    /// `filemap_add_folio` after the folio was allocated and charged:
    /// insert it, take the shadow's refault into account (not for writes),
    /// and queue it for the LRU.
    pub fn filemap_add_folio(&mut self, file: u32, index: u64, pfn: u32, for_write: bool) {
        let old = self.files[file as usize].cache.get(index);
        debug_assert!(old & ENT_FOLIO == 0);
        {
            let f = self.folios.get_mut(pfn);
            f.mapping = file;
            f.index = index as u32;
            f.set(pg::UPTODATE);
        }
        let fl = &mut self.files[file as usize];
        fl.cache.set(index, ENT_FOLIO | pfn as u64);
        fl.nrpages += 1;
        self.sim.demand.note_cached(file, index);
        let memcg = self.folios.get(pfn).memcg;
        let was = if old & ENT_SHADOW != 0 { Slot::Shadow } else { Slot::Empty };
        self.xa_slot_changed(file, index, was, Slot::Page, memcg);
        self.memcgs[memcg as usize].st.add(St::FilePages, 1);
        if !for_write && old & ENT_SHADOW != 0 {
            self.workingset_refault(pfn, old & ENT_VALUE);
        }
        self.folio_add_lru(pfn);
    }

    /// `folio_create_buffers` on a page-cache folio about to be written
    /// (ext4's write_begin, or `block_page_mkwrite` for a store through a
    /// shared mapping): a folio without buffers gets one buffer_head per
    /// 4 KiB block — one — charged to the folio's memcg.
    pub(crate) fn folio_create_buffers(&mut self, pfn: u32) {
        let f = self.folios.get_mut(pfn);
        if f.test(pg::BUFFERS) {
            return;
        }
        f.set(pg::BUFFERS);
        let memcg = f.memcg;
        self.memcg_slab_charge(memcg, BUFFER_HEAD_BYTES);
    }

    /// `__filemap_remove_folio`: drop a folio from the page cache, leaving
    /// `shadow` (0 = none) in its slot. The caller frees the folio. Its
    /// buffers go first (`filemap_release_folio` → `try_to_free_buffers`).
    /// A hint that `filemap_remove_folio(pfn)` will run soon: start
    /// loading what it writes that is likely out of cache, the page-cache
    /// entry and its xarray node (a folio at the cold end of the LRU was
    /// last looked up long ago). For a reclaim batch to call a few folios
    /// ahead; changes no state.
    #[inline]
    pub fn prefetch_folio_removal(&self, pfn: u32) {
        let f = self.folios.get(pfn);
        if f.test(pg::ANON) || f.test(pg::SWAPCACHE) {
            return;
        }
        let Some(fl) = self.files.get(f.mapping as usize) else { return };
        let index = u64::from(f.index);
        if let Some(p) = fl.cache.entry_ptr(index) {
            crate::util::prefetch_read(p as *const u8);
        }
        if let Some(n) = fl.xa.nodes.get((index >> crate::shadow::XA_CHUNK_SHIFT) as usize) {
            crate::util::prefetch_read(n as *const _ as *const u8);
        }
    }

    pub fn filemap_remove_folio(&mut self, pfn: u32, shadow: u64) {
        let f = *self.folios.get(pfn);
        debug_assert!(f.mapcount == 0);
        if f.test(pg::BUFFERS) {
            self.folios.get_mut(pfn).clear(pg::BUFFERS);
            self.memcg_slab_uncharge(f.memcg, BUFFER_HEAD_BYTES);
        }
        let fl = &mut self.files[f.mapping as usize];
        fl.cache.set(f.index as u64, if shadow != 0 { ENT_SHADOW | shadow } else { 0 });
        fl.nrpages -= 1;
        let now = if shadow != 0 { Slot::Shadow } else { Slot::Empty };
        self.xa_slot_changed(f.mapping, f.index as u64, Slot::Page, now, f.memcg);
        self.memcgs[f.memcg as usize].st.add(St::FilePages, -1);
        if f.is_shmem() {
            // shmem_update_stats on the way out (truncation, or a clean
            // folio dropped by reclaim: a hole again).
            self.memcgs[f.memcg as usize].st.add(St::Shmem, -1);
        }
        if f.test(pg::DIRTY) {
            self.account_folio_cleaned(pfn);
        }
    }

    /// Page-cache readahead reads: `read_pages` submits one I/O for the
    /// batch. pgpgin is in KiB.
    fn read_pages(&mut self, memcg: u16, nr: u64) {
        if nr > 0 {
            let _ = memcg;
            self.ev.add(Ev::Pgpgin, nr * 4);
        }
    }

    /// `page_cache_ra_unbounded`: read `nr_to_read` pages from `index`,
    /// skipping cached ones, marking the folio at `nr_to_read -
    /// lookahead_size` with PG_readahead. Returns pages read.
    fn page_cache_ra_unbounded(&mut self, file: u32, index: u64, nr_to_read: u64, lookahead: u64) -> u64 {
        let memcg = self.tasks[self.current.pid as usize].memcg;
        let mark = nr_to_read.wrapping_sub(lookahead);
        let mut pending = 0;
        let mut total = 0;
        let mut i = 0;
        while i < nr_to_read {
            if self.files[file as usize].folio_at(index + i).is_some() {
                self.read_pages(memcg, pending);
                pending = 0;
                i += 1;
                continue;
            }
            let Some(pfn) = self.alloc_folio(memcg, Gfp::NoRetry) else { break };
            if self.filemap_add_new_folio(file, index + i, pfn, false).is_err() {
                // Read meanwhile by another task: skipped, as a cached page.
                self.read_pages(memcg, pending);
                pending = 0;
                i += 1;
                continue;
            }
            if i == mark {
                self.folios.get_mut(pfn).set(pg::READAHEAD);
            }
            pending += 1;
            total += 1;
            i += 1;
        }
        self.read_pages(memcg, pending);
        total
    }

    /// `do_page_cache_ra`: clip to EOF.
    pub(crate) fn do_page_cache_ra(&mut self, file: u32, index: u64, mut nr: u64, lookahead: u64) -> u64 {
        let pages = self.files[file as usize].pages;
        if index >= pages {
            return 0;
        }
        let end_index = pages - 1;
        if nr > end_index - index {
            nr = end_index - index + 1;
        }
        self.page_cache_ra_unbounded(file, index, nr, lookahead)
    }

    /// `force_page_cache_ra`: read exactly the range, 2 MiB at a time.
    pub fn force_page_cache_ra(&mut self, file: u32, mut index: u64, nr: u64) -> u64 {
        // max(bdi->io_pages, ra_pages); the model's io_pages is BDI_IO_PAGES.
        let max = self.files[file as usize].ra.ra_pages.max(BDI_IO_PAGES);
        let mut left = nr.min(max);
        let mut total = 0;
        while left > 0 {
            let chunk = left.min(512);
            total += self.do_page_cache_ra(file, index, chunk, 0);
            index += chunk;
            left -= chunk;
        }
        total
    }

    /// `page_cache_sync_ra` (6.12.117).
    pub fn page_cache_sync_ra(&mut self, file: u32, index: u64, req_count: u64) -> u64 {
        let fl = &self.files[file as usize];
        let mut req = req_count;
        let mut forced = fl.fmode_random;
        if fl.ra.ra_pages == 0 {
            req = 1;
            forced = true;
        }
        if forced {
            return self.force_page_cache_ra(file, index, req);
        }
        // ractl_max_pages: no separate bdi io_pages in the model.
        let max_pages = fl.ra.ra_pages;
        let prev_index = if fl.ra.prev_pos < 0 { u64::MAX } else { (fl.ra.prev_pos as u64) >> 12 };
        let seq = prev_index != u64::MAX && index.wrapping_sub(prev_index) <= 1;
        if index == 0 || req > max_pages || seq {
            let size = get_init_ra_size(req, max_pages);
            let async_size = if size > req { size - req } else { size >> 1 };
            let ra = &mut self.files[file as usize].ra;
            ra.start = index;
            ra.size = size;
            ra.async_size = async_size;
        } else {
            let miss = if index == 0 { u64::MAX } else { fl.prev_miss(index - 1, max_pages) };
            let contig = if miss == u64::MAX { index } else { index - miss - 1 };
            if contig <= req {
                return self.do_page_cache_ra(file, index, req, 0);
            }
            let contig = if miss == u64::MAX { contig * 2 } else { contig };
            let ra = &mut self.files[file as usize].ra;
            ra.start = index;
            ra.size = (contig + req).min(max_pages);
            ra.async_size = 1;
        }
        let ra = self.files[file as usize].ra;
        // page_cache_ra_order falls back to do_page_cache_ra: no large folios.
        self.do_page_cache_ra(file, ra.start, ra.size, ra.async_size)
    }

    /// `page_cache_async_ra`: a PG_readahead folio was hit.
    pub fn page_cache_async_ra(&mut self, file: u32, pfn: u32, req_count: u64) -> u64 {
        let fl = &self.files[file as usize];
        if fl.ra.ra_pages == 0 {
            return 0;
        }
        if self.folios.get(pfn).test(pg::WRITEBACK) {
            return 0;
        }
        self.folios.get_mut(pfn).clear(pg::READAHEAD);
        let index = self.folios.get(pfn).index as u64;
        let max_pages = fl.ra.ra_pages;
        let ra = fl.ra;
        let expected = ra.start + ra.size - ra.async_size;
        if index == expected {
            let ra = &mut self.files[file as usize].ra;
            ra.start += ra.size;
            ra.size = ra.size.max(get_next_ra_size(ra.size, max_pages));
            ra.async_size = ra.size;
        } else {
            let start = fl.next_miss(index + 1, max_pages);
            if start == 0 || start - index > max_pages {
                return 0;
            }
            let size = get_next_ra_size(start - index + req_count, max_pages);
            let ra = &mut self.files[file as usize].ra;
            ra.start = start;
            ra.size = size;
            ra.async_size = size;
        }
        let ra = self.files[file as usize].ra;
        self.do_page_cache_ra(file, ra.start, ra.size, ra.async_size)
    }

    /// `filemap_read` for `count` pages from `page` by the current task.
    /// Returns the number of pages that came from disk. The task waits
    /// `disk_read` for each synchronous miss (asynchronous readahead does
    /// not block it), and spends `page_copy` for each page as the batch
    /// holding it is copied; in parallel scheduling it may pause between
    /// batches (a read is not atomic: another task's work may come between
    /// two of its batches).
    pub fn filemap_read(&mut self, file: u32, page: u64, count: u64) -> u64 {
        // Fast path: one page, cached, not a readahead mark. The loop below
        // would take a batch of that one folio, start no readahead and
        // mark it accessed unless the previous read ended inside it.
        if count == 1 && self.tasks[self.current.pid as usize].alive && self.filemap_read_one_cached(file, page) {
            self.spend_cpu(self.cost.page_copy, true);
            return 0;
        }
        if self.files[file as usize].shmem {
            // (shmem pages are not counted as demand misses: crate::demand.)
            let from_disk = self.shmem_file_read(file, page, count);
            self.spend_cpu(self.cost.page_copy * count, true);
            return from_disk;
        }
        // Demand misses: the pages asked for that are not cached now
        // (crate::demand; the kernel counts none of this).
        for p in page..page + count {
            if self.files[file as usize].folio_at(p).is_none() {
                self.sim.demand.file_miss(file, p);
            }
        }
        self.filemap_read_batches(file, page, count)
    }

    /// `filemap_read` of the one page `page` by a live task when it is
    /// cached and not a readahead mark: the batch would be that one folio,
    /// no readahead starts, and the folio is marked accessed unless the
    /// previous read ended inside it. Returns false, having changed
    /// nothing, when the page is not such a folio. Reads no clock.
    #[inline(always)]
    pub fn filemap_read_one_cached(&mut self, file: u32, page: u64) -> bool {
        let f = &mut self.files[file as usize];
        let Some(pfn) = f.folio_at(page) else { return false };
        if f.shmem {
            // shmem_file_read_iter of a cached page: marked accessed, as
            // every whole-page read starts at the page's beginning.
            self.folio_mark_accessed(pfn);
            return true;
        }
        if self.folios.get(pfn).test(pg::READAHEAD) {
            return false;
        }
        // prev_pos is set before the folio is marked (the kernel sets it
        // after the copy): marking reads no readahead state, and the file
        // is looked up once.
        let last_pos = f.ra.prev_pos;
        f.ra.prev_pos = ((page + 1) << 12) as i64;
        if ((last_pos - 1) >> 12) != page as i64 {
            self.folio_mark_accessed(pfn);
        }
        true
    }

    /// `filemap_read`'s loop: batches of cached folios, reading what is
    /// missing.
    fn filemap_read_batches(&mut self, file: u32, page: u64, count: u64) -> u64 {
        let end = page + count;
        let mut pos = page;
        let mut last_pos = self.files[file as usize].ra.prev_pos;
        let mut from_disk = 0;
        let mut batch = [0u32; PAGEVEC_SIZE];
        while pos < end {
            if !self.tasks[self.current.pid as usize].alive {
                break; // fatal signal pending: the read stops
            }
            let mut n = self.filemap_get_read_batch(file, pos, end, &mut batch);
            if n == 0 {
                from_disk += self.page_cache_sync_ra(file, pos, end - pos);
                // Waiting for a refaulting workingset folio is a memory
                // stall (folio_wait_bit_common).
                let ws = self.files[file as usize].folio_at(pos).is_some_and(|p| self.folios.get(p).test(pg::WORKINGSET));
                self.disk_read_time(ws);
                n = self.filemap_get_read_batch(file, pos, end, &mut batch);
            }
            if n == 0 {
                // filemap_create_folio: the one page, with a full-strength gfp.
                let memcg = self.tasks[self.current.pid as usize].memcg;
                let Some(pfn) = self.alloc_folio(memcg, Gfp::Normal) else {
                    // -ENOMEM; the pages not reached charged as above.
                    self.spend_cpu(self.cost.page_copy * (end - pos), true);
                    return from_disk;
                };
                match self.filemap_add_new_folio(file, pos, pfn, false) {
                    Ok(pfn) => {
                        self.read_pages(memcg, 1);
                        from_disk += 1;
                        batch[0] = pfn;
                    }
                    // Another task added it meanwhile: the lookup again.
                    Err(found) => batch[0] = found,
                }
                n = 1;
            }
            let last = batch[n - 1];
            if self.folios.get(last).test(pg::READAHEAD) {
                // The batch holds references while readahead allocates.
                for &pfn in &batch[..n] {
                    self.folios.get_mut(pfn).set(pg::PINNED);
                }
                let req = end - self.folios.get(last).index as u64;
                from_disk += self.page_cache_async_ra(file, last, req);
                for &pfn in &batch[..n] {
                    self.folios.get_mut(pfn).clear(pg::PINNED);
                }
            }
            // Mark the first folio only if this read did not start inside
            // the folio the previous read ended in.
            // pos_same_folio(ki_pos, last_pos - 1), with loff_t arithmetic.
            if ((last_pos - 1) >> 12) != pos as i64 {
                self.folio_mark_accessed(batch[0]);
            }
            for &pfn in &batch[1..n] {
                self.folio_mark_accessed(pfn);
            }
            pos += n as u64;
            last_pos = (pos << 12) as i64;
            // The batch is copied out (copy_folio_to_iter) and its
            // references dropped.
            self.spend_cpu(self.cost.page_copy * n as u64, true);
            if pos < end {
                // The read holds nothing between batches (its readahead
                // state's prev_pos is written at its end, as 6.12 does).
                self.task_yield_point_user();
            }
        }
        // A read stopped by a fatal signal: the pages it did not reach
        // are charged their copy as before (the line's cost is per page
        // asked).
        self.spend_cpu(self.cost.page_copy * (end - pos), true);
        self.files[file as usize].ra.prev_pos = last_pos;
        from_disk
    }

    /// `filemap_get_read_batch`: contiguous cached folios from `index`,
    /// stopping after a PG_readahead folio, at most a folio batch.
    fn filemap_get_read_batch(&self, file: u32, index: u64, end: u64, out: &mut [u32; PAGEVEC_SIZE]) -> usize {
        let fl = &self.files[file as usize];
        let mut n = 0;
        let mut i = index;
        while i < end && n < PAGEVEC_SIZE {
            let Some(pfn) = fl.folio_at(i) else { break };
            out[n] = pfn;
            n += 1;
            if self.folios.get(pfn).test(pg::READAHEAD) {
                break;
            }
            i += 1;
        }
        n
    }

    /// Buffered write of `count` whole pages (`generic_perform_write`):
    /// write_begin finds or creates the folio (no refault accounting for
    /// writes), the copy dirties it. ext4's write path does not mark
    /// the folio accessed.
    pub fn filemap_write(&mut self, file: u32, page: u64, count: u64) -> u64 {
        if self.files[file as usize].shmem {
            let written = self.shmem_file_write(file, page, count);
            self.spend_cpu(self.cost.page_copy * count, true);
            return written;
        }
        let memcg = self.tasks[self.current.pid as usize].memcg;
        let mut written = 0;
        for idx in page..page + count {
            let pfn = match self.files[file as usize].folio_at(idx) {
                Some(p) => p,
                None => {
                    let Some(p) = self.alloc_folio(memcg, Gfp::Normal) else { break };
                    match self.filemap_add_new_folio(file, idx, p, true) {
                        Ok(p) => {
                            // write_begin's new folio: its allocation,
                            // insertion and the file system's block
                            // reservation (system time, `write_new`).
                            if self.cost.write_new > 0 {
                                self.spend_cpu(self.cost.write_new, true);
                            }
                            p
                        }
                        Err(found) => found,
                    }
                }
            };
            // The copy into the folio, then write_end dirties it.
            self.spend_cpu(self.cost.page_copy, true);
            self.folio_create_buffers(pfn);
            self.folio_mark_dirty(pfn);
            written += 1;
            self.balance_dirty_pages_ratelimited();
            if idx + 1 < page + count {
                // generic_perform_write holds nothing between pages.
                self.task_yield_point_user();
            }
        }
        // A write that stopped early (no memory) copied nothing more; the
        // pages it did not reach are charged their copy as before, the
        // line's cost being per page asked.
        self.spend_cpu(self.cost.page_copy * (count - written), true);
        written
    }

    /// `folio_mark_dirty` for a page cache folio.
    pub fn folio_mark_dirty(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.test(pg::DIRTY) {
            return;
        }
        self.folios.get_mut(pfn).set(pg::DIRTY);
        // Anon folios, and shmem's (`noop_dirty_folio`: a mapping that
        // cannot write back accounts nothing), only get the flag.
        if f.test(pg::ANON) || f.is_shmem() {
            return;
        }
        self.nr_dirty += 1;
        self.memcgs[f.memcg as usize].st.add(St::FileDirty, 1);
        self.count(f.memcg, Ev::NrDirtied, 1);
        let file = f.mapping;
        let now = self.now;
        let fl = &mut self.files[file as usize];
        fl.dirty_pages.push(f.index);
        if fl.dirtied_when.is_none() {
            fl.dirtied_when = Some(now);
            self.dirty_inodes.push_back(file);
        }
        self.arm_flusher();
    }

    /// `folio_account_cleaned` / the dirty half of `folio_clear_dirty_for_io`.
    pub fn account_folio_cleaned(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        self.folios.get_mut(pfn).clear(pg::DIRTY);
        if !f.test(pg::ANON) && !f.is_shmem() && f.test(pg::DIRTY) {
            self.nr_dirty -= 1;
            self.memcgs[f.memcg as usize].st.add(St::FileDirty, -1);
        }
    }
}

impl Kernel {
    /// `posix_fadvise` on the whole file (`generic_fadvise`).
    pub fn fadvise(&mut self, file: u32, advice: crate::madvise::Advice) {
        use crate::madvise::Advice;
        if self.files[file as usize].shmem {
            // generic_fadvise on a file of noop_backing_dev_info (tmpfs):
            // every advice is accepted and ignored.
            return;
        }
        let pages = self.files[file as usize].pages;
        match advice {
            Advice::Normal => {
                let fl = &mut self.files[file as usize];
                fl.ra.ra_pages = fl.default_ra_pages;
                fl.fmode_random = false;
                fl.fmode_noreuse = false;
            }
            Advice::Random => self.files[file as usize].fmode_random = true,
            // generic_fadvise: only the flag; 6.12 reads it in
            // vma_has_recency, for the file's mappings.
            Advice::NoReuse => self.files[file as usize].fmode_noreuse = true,
            Advice::Sequential => {
                let fl = &mut self.files[file as usize];
                fl.ra.ra_pages = fl.default_ra_pages * 2;
                fl.fmode_random = false;
            }
            Advice::WillNeed => {
                self.force_page_cache_ra(file, 0, pages);
            }
            Advice::DontNeed => {
                // Start writeback of dirty pages (WB_SYNC_NONE), then drop
                // what can be dropped without a shadow; busy folios are
                // deactivated instead.
                self.writeback_file(file);
                self.lru_add_drain();
                // mapping_try_invalidate fails on folios another CPU's
                // batches still hold; the kernel then drains every CPU and
                // tries again (lru_add_drain_all): the model drains first.
                let remote = (0..pages).any(|idx| {
                    self.files[file as usize].folio_at(idx).is_some_and(|pfn| self.folio_batch_cpu(pfn).is_some())
                });
                if remote {
                    self.lru_add_drain_all();
                }
                // mapping_try_invalidate: find_lock_entries passes over a
                // folio under writeback; a dirty, mapped or isolated one
                // cannot be evicted and is deactivated; the shadow entries
                // in the range are cleared (clear_shadow_entries).
                for idx in 0..pages {
                    let e = self.files[file as usize].cache.get(idx);
                    if e & ENT_SHADOW != 0 {
                        self.clear_shadow_entry(file, idx);
                        continue;
                    }
                    if e & ENT_FOLIO == 0 {
                        continue;
                    }
                    let pfn = e as u32;
                    let f = *self.folios.get(pfn);
                    if f.test(pg::WRITEBACK) {
                        continue;
                    }
                    if f.test(pg::DIRTY) || f.mapcount > 0 || f.test(pg::ISOLATED) {
                        self.deactivate_file_folio(pfn);
                        continue;
                    }
                    self.filemap_remove_folio(pfn, 0);
                    self.free_unmapped_folio(pfn);
                }
            }
        }
    }

    /// `filemap_fault`: find or read the page; readahead as 6.12 does.
    /// Returns the folio and whether the fault dropped the mmap lock for
    /// I/O (`maybe_unlock_mmap_for_io`) and so ends in VM_FAULT_RETRY: the
    /// caller then handles the fault again with FAULT_FLAG_TRIED (`tried`),
    /// which skips the async readahead and never drops the lock (so never
    /// retries). Every first major fault of a page-cache file retries: the
    /// read-around or the read of the one folio (`page_not_uptodate`) is
    /// done with the lock dropped.
    pub(crate) fn filemap_fault(&mut self, region: u32, page: u64, tried: bool) -> (Option<u32>, bool) {
        let file = self.vmas[region as usize].file.unwrap();
        if self.files[file as usize].shmem {
            return (self.shmem_fault(file, page), false);
        }
        if let Some(pfn) = self.files[file as usize].folio_at(page) {
            if tried {
                return (Some(pfn), false);
            }
            // The fault holds the folio while readahead allocates.
            self.folios.get_mut(pfn).set(pg::PINNED);
            let retry = self.do_async_mmap_readahead(region, file, pfn);
            self.folios.get_mut(pfn).clear(pg::PINNED);
            return (Some(pfn), retry);
        }
        let memcg = self.tasks[self.current.pid as usize].memcg;
        self.count(memcg, Ev::Pgmajfault, 1);
        self.sim.demand.file_miss(file, page);
        let dropped = self.do_sync_mmap_readahead(region, file, page);
        let ws = self.files[file as usize].folio_at(page).is_some_and(|p| self.folios.get(p).test(pg::WORKINGSET));
        self.disk_read_time(ws);
        if let Some(pfn) = self.files[file as usize].folio_at(page) {
            return (Some(pfn), dropped && !tried);
        }
        let Some(pfn) = self.alloc_folio(memcg, Gfp::Normal) else { return (None, dropped && !tried) };
        if let Err(found) = self.filemap_add_new_folio(file, page, pfn, false) {
            return (Some(found), dropped && !tried);
        }
        self.ev.add(Ev::Pgpgin, 4);
        // page_not_uptodate: the read is done with the lock dropped
        // (maybe_unlock_mmap_for_io, on the first try only).
        (Some(pfn), !tried)
    }

    /// `do_sync_mmap_readahead`; true when it read ahead, which it does
    /// with the mmap lock dropped.
    pub(crate) fn do_sync_mmap_readahead(&mut self, region: u32, file: u32, page: u64) -> bool {
        let v = &self.vmas[region as usize];
        let ra_pages = self.files[file as usize].ra.ra_pages;
        if v.rand_read || ra_pages == 0 {
            return false;
        }
        if v.seq_read {
            self.page_cache_sync_ra(file, page, ra_pages);
            return true;
        }
        let ra = &mut self.files[file as usize].ra;
        if ra.mmap_miss < MMAP_LOTSAMISS * 10 {
            ra.mmap_miss += 1;
        }
        if ra.mmap_miss > MMAP_LOTSAMISS {
            return false;
        }
        // Read-around centred on the fault, marker a quarter from the end.
        ra.start = page.saturating_sub(ra_pages / 2);
        ra.size = ra_pages;
        ra.async_size = ra_pages / 4;
        let (s, n, a) = (ra.start, ra.size, ra.async_size);
        self.do_page_cache_ra(file, s, n, a);
        true
    }

    /// `do_async_mmap_readahead`; true when it read ahead (a folio with
    /// PG_readahead), with the mmap lock dropped.
    pub(crate) fn do_async_mmap_readahead(&mut self, region: u32, file: u32, pfn: u32) -> bool {
        let v = &self.vmas[region as usize];
        let ra_pages = self.files[file as usize].ra.ra_pages;
        if v.rand_read || ra_pages == 0 {
            return false;
        }
        let ra = &mut self.files[file as usize].ra;
        if ra.mmap_miss > 0 {
            ra.mmap_miss -= 1;
        }
        if self.folios.get(pfn).test(pg::READAHEAD) {
            self.page_cache_async_ra(file, pfn, ra_pages);
            return true;
        }
        false
    }
}
