// SPDX-License-Identifier: GPL-2.0-only
//! Page faults (mm/memory.c): CPU loads and stores through the page
//! tables, the anonymous, file and swap fault paths, fault-around, and
//! zapping a range of page-table entries.

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::mm::pte;
use crate::page_alloc::Gfp;
use crate::stat::{Ev, St};

/// `fault_around_bytes` = 64 KiB.
pub const FAULT_AROUND_PAGES: u64 = 16;

impl Kernel {
    // ---- CPU accesses ------------------------------------------------------

    /// A load or store by `task` to page `page` of `region`.
    pub fn access(&mut self, region: u32, page: u64, write: bool) {
        let v = &self.vmas[region as usize];
        let task = v.task;
        let va = v.va(page);
        let pgd = self.tasks[task as usize].pgd;
        self.tasks[task as usize].used = true;
        let e = self.pt.get(pgd, va);
        if e & pte::PRESENT != 0 {
            let val = e & pte::VALUE;
            if val != pte::ZERO_PFN {
                // A shmem mapping needs no write notification (nothing to
                // account or write back): its PTEs are writable from the
                // start, and a store only sets the dirty bit.
                if !write
                    || (e & pte::WRPROT == 0
                        && (e & pte::DIRTY != 0 || self.vmas[region as usize].file.map_or(true, |f| self.files[f as usize].shmem)))
                {
                    // The CPU sets the accessed bits (PMD and PTE) and, for
                    // an anon store, the dirty bit.
                    self.pt.hw_access(pgd, va, write);
                    self.spend_cpu(self.cost.mem_access, false);
                    return;
                }
                self.fault_begin(region);
                if e & pte::WRPROT != 0 {
                    // A store to an anon page a fork shared.
                    self.do_wp_page(region, page, val);
                } else {
                    // A store through a clean (write-protected) shared file PTE.
                    self.wp_page_shared(region, page, val);
                }
                self.fault_end();
                return;
            }
            if !write {
                self.pt.hw_access(pgd, va, false);
                self.spend_cpu(self.cost.mem_access, false);
                return;
            }
            // A store to the zero page: wp_page_copy.
            self.fault_begin(region);
            self.do_anonymous_page(region, page, true);
            self.fault_end();
            return;
        }
        self.fault_begin(region);
        if e == 0 && !self.pte_alloc(region, page) {
            // VM_FAULT_OOM: the tables could not be charged.
            self.sim.dropped_accesses += 1;
            self.fault_end();
            return;
        }
        if e & pte::SWAP != 0 {
            self.do_swap_page(region, page, e, write);
        } else if self.vmas[region as usize].file.is_none() {
            self.do_anonymous_page(region, page, write);
        } else if write {
            self.do_shared_fault(region, page, false);
        } else {
            self.do_read_fault(region, page, false);
        }
        self.fault_end();
    }

    /// `__handle_mm_fault`'s `pmd_alloc`/`pte_alloc`: the page-table
    /// pages down to the faulting PTE, before anything else of the fault.
    /// Each comes from the zones (`pagetable_alloc(GFP_PGTABLE_USER)`:
    /// may reclaim) and is then charged to the task's memcg
    /// (`__GFP_ACCOUNT`, charged once the allocator has the page; the
    /// charge may reclaim too). False when a page or a charge could not
    /// be had, or the task died meanwhile.
    pub(crate) fn pte_alloc(&mut self, region: u32, page: u64) -> bool {
        let v = &self.vmas[region as usize];
        let (task, va) = (v.task, v.va(page));
        let pgd = self.tasks[task as usize].pgd;
        let need = self.pt.missing_tables(pgd, va) as u64;
        if need == 0 {
            return true;
        }
        let memcg = self.tasks[task as usize].memcg;
        let mut pfns = Vec::with_capacity(need as usize);
        while (pfns.len() as u64) < need {
            let Some(p) = self.alloc_pgtable_page() else { break };
            pfns.push(p);
        }
        let root = memcg == crate::memcontrol::ROOT_MEMCG;
        let charged = pfns.len() as u64 == need && (root || self.try_charge(memcg, need, Gfp::Normal));
        if !charged || !self.tasks[task as usize].alive || self.vmas[region as usize].dead {
            // No page, no charge, or OOM-killed meanwhile: give it all back.
            if charged && !root {
                self.refill_stock(memcg, need);
            }
            pfns.into_iter().for_each(|p| self.free_pgtable_page(p));
            return false;
        }
        // The tables stay charged to this memcg if the task moves on.
        for &p in &pfns {
            self.folios.get_mut(p).memcg = memcg;
        }
        self.tasks[task as usize].pgtable_pfns.extend(pfns);
        let (_, allocated) = self.pt.get_mut_alloc(pgd, va);
        debug_assert_eq!(allocated as u64, need);
        if !root {
            self.memcgs[memcg as usize].pgtable_pages += need;
        }
        true
    }

    /// `handle_mm_fault` entry: count the fault, `lru_gen_enter_fault`.
    fn fault_begin(&mut self, region: u32) {
        let memcg = self.tasks[self.vmas[region as usize].task as usize].memcg;
        self.count(memcg, Ev::Pgfault, 1);
        self.current.in_lru_fault = self.vma_has_recency(region);
        self.spend_cpu(self.cost.minor_fault, true);
    }
    fn fault_end(&mut self) {
        self.current.in_lru_fault = false;
    }

    /// `vma_has_recency`: whether the LRU algorithm applies to the
    /// mapping's accesses (a version step).
    #[inline]
    pub fn vma_has_recency(&self, region: u32) -> bool {
        (self.steps.vma_has_recency)(self, region)
    }

    /// 6.12 `vma_has_recency`: no MADV_SEQUENTIAL/RANDOM, no FMODE_NOREUSE.
    pub(crate) fn vma_has_recency_6_12(&self, region: u32) -> bool {
        let v = &self.vmas[region as usize];
        if !v.has_recency() {
            return false;
        }
        match v.file {
            Some(f) => !self.files[f as usize].fmode_noreuse,
            None => true,
        }
    }

    /// Install a PTE for `pfn` and account the mapping (`set_pte_range`,
    /// `folio_add_*_rmap`, which ends with `mlock_vma_folio` in a locked
    /// mapping). New PTEs are young on x86.
    fn map_folio(&mut self, region: u32, page: u64, pfn: u32, write: bool) {
        self.map_folio_rmap(region, page, pfn, write);
        if self.vmas[region as usize].locked && !self.vmas[region as usize].dead {
            self.mlock_folio(pfn);
        }
    }

    /// The PTE and rmap accounting of `map_folio`, without the mlock
    /// (`folio_add_new_anon_rmap`: a new anon folio is mlocked by
    /// `folio_add_lru_vma` instead).
    fn map_folio_rmap(&mut self, region: u32, page: u64, pfn: u32, write: bool) {
        let v = &self.vmas[region as usize];
        if v.dead {
            // The task was OOM-killed while this fault allocated.
            return;
        }
        let (task, va, is_file) = (v.task, v.va(page), v.file.is_some());
        let pgd = self.tasks[task as usize].pgd;
        let (p, allocated) = self.pt.get_mut_alloc(pgd, va);
        *p = pte::PRESENT | pte::YOUNG | if write { pte::DIRTY } else { 0 } | pfn;
        // The fault's pte_alloc made (and charged) the tables.
        debug_assert_eq!(allocated, 0, "page tables come from pte_alloc");
        let t = &mut self.tasks[task as usize];
        let f = self.folios.get_mut(pfn);
        f.mapcount += 1;
        let memcg = f.memcg;
        if is_file {
            t.rss_file += 1;
            if f.mapcount == 1 {
                self.memcgs[memcg as usize].st.add(St::FileMapped, 1);
            }
        } else {
            t.rss_anon += 1;
            // NR_ANON_MAPPED counts folios mapped at all, not PTEs.
            if f.mapcount == 1 {
                self.memcgs[memcg as usize].st.add(St::Anon, 1);
            }
        }
    }

    // ---- anonymous faults --------------------------------------------------

    /// `do_anonymous_page` (and `wp_page_copy` from the zero page).
    fn do_anonymous_page(&mut self, region: u32, page: u64, write: bool) {
        let task = self.vmas[region as usize].task;
        let va = self.vmas[region as usize].va(page);
        let pgd = self.tasks[task as usize].pgd;
        if !write {
            if self.vmas[region as usize].dead {
                return;
            }
            let (p, allocated) = self.pt.get_mut_alloc(pgd, va);
            *p = pte::PRESENT | pte::YOUNG | pte::ZERO_PFN;
            debug_assert_eq!(allocated, 0, "page tables come from pte_alloc");
            return;
        }
        let memcg = self.tasks[task as usize].memcg;
        let Some(pfn) = self.alloc_folio(memcg, Gfp::Normal) else {
            self.sim.dropped_accesses += 1;
            return;
        };
        if !self.tasks[task as usize].alive {
            // OOM killed itself while charging: the memory is gone.
            self.free_unmapped_folio(pfn);
            return;
        }
        {
            let f = self.folios.get_mut(pfn);
            f.set(pg::ANON | pg::SWAPBACKED | pg::UPTODATE | pg::ANON_EXCLUSIVE);
            f.mapping = region;
            f.index = page as u32;
        }
        self.map_folio_rmap(region, page, pfn, true);
        // folio_add_lru_vma.
        if self.vmas[region as usize].locked && !self.vmas[region as usize].dead {
            self.mlock_new_folio(pfn);
        } else {
            self.folio_add_lru(pfn);
        }
    }

    // ---- file faults ---------------------------------------------------------

    /// `do_read_fault`: fault-around first, then `filemap_fault`. A fault
    /// that ends in VM_FAULT_RETRY (the lock dropped for I/O) is handled
    /// again with FAULT_FLAG_TRIED (`tried`): fault-around then maps the
    /// page just read with the cached pages around it.
    fn do_read_fault(&mut self, region: u32, page: u64, tried: bool) {
        if self.do_fault_around(region, page) {
            return;
        }
        match self.filemap_fault(region, page, tried) {
            (_, true) => {
                if self.fault_can_retry(region) {
                    self.do_read_fault(region, page, true);
                }
            }
            (Some(pfn), false) => self.map_folio(region, page, pfn, false),
            (None, false) => {}
        }
    }

    /// After VM_FAULT_RETRY: the task faults again unless it was killed
    /// or its mapping went meanwhile.
    fn fault_can_retry(&self, region: u32) -> bool {
        let v = &self.vmas[region as usize];
        !v.dead && self.tasks[v.task as usize].alive
    }

    /// `do_shared_fault`: a store to an unmapped page of a shared mapping
    /// (handled again with FAULT_FLAG_TRIED after VM_FAULT_RETRY).
    fn do_shared_fault(&mut self, region: u32, page: u64, tried: bool) {
        let (found, retry) = self.filemap_fault(region, page, tried);
        if retry {
            if self.fault_can_retry(region) {
                self.do_shared_fault(region, page, true);
            }
            return;
        }
        if let Some(pfn) = found {
            if self.vmas[region as usize].dead {
                return;
            }
            let shmem = self.folios.get(pfn).is_shmem();
            if !shmem {
                self.folio_create_buffers(pfn);
            }
            self.folio_mark_dirty(pfn);
            self.map_folio(region, page, pfn, true);
            // fault_dirty_shared_page: no dirty throttling for a mapping
            // that cannot write back (shmem).
            if !shmem {
                self.balance_dirty_pages_ratelimited();
            }
        }
    }

    /// `wp_page_shared`: first store through a read-only shared PTE.
    fn wp_page_shared(&mut self, region: u32, page: u64, pfn: u32) {
        self.folio_create_buffers(pfn);
        self.folio_mark_dirty(pfn);
        let v = &self.vmas[region as usize];
        let va = v.va(page);
        let pgd = self.tasks[v.task as usize].pgd;
        self.pt.hw_access(pgd, va, true);
        self.balance_dirty_pages_ratelimited();
    }

    /// `do_fault_around` + `filemap_map_pages`: map cached, non-readahead
    /// pages of the 16-page block around the fault; true if the faulting
    /// page itself was mapped.
    fn do_fault_around(&mut self, region: u32, page: u64) -> bool {
        let v = &self.vmas[region as usize];
        let file = v.file.unwrap();
        let (task, start, pages) = (v.task, v.start, v.pages);
        let pgd = self.tasks[task as usize].pgd;
        let pte_off = ((start >> 12) + page) & 511;
        let from = (pte_off & !(FAULT_AROUND_PAGES - 1)).max(pte_off - pte_off.min(page));
        let to = (from + FAULT_AROUND_PAGES).min(512).min(pte_off + pages - page);
        let mut mapped_self = false;
        let mut looked = 0u32;
        for off in from..to {
            let idx = page + off - pte_off;
            let va = start + (idx << 12);
            let Some(pfn) = self.files[file as usize].folio_at(idx) else { continue };
            let f = self.folios.get(pfn);
            if f.test(pg::READAHEAD) || !f.test(pg::UPTODATE) {
                continue;
            }
            // filemap_map_order0_folio counts the folio towards mmap_miss
            // before it looks at the PTE: a page mapped already counts too.
            if !f.test(pg::WORKINGSET) {
                looked += 1;
            }
            if self.pt.get(pgd, va) != 0 {
                continue;
            }
            self.map_folio(region, idx, pfn, false);
            if idx == page {
                mapped_self = true;
            }
        }
        let ra = &mut self.files[file as usize].ra;
        ra.mmap_miss = ra.mmap_miss.saturating_sub(looked);
        mapped_self
    }

    /// `do_swap_page` for the swap PTE `orig`.
    fn do_swap_page(&mut self, region: u32, page: u64, orig: u32, write: bool) {
        let task = self.vmas[region as usize].task;
        let slot = orig & pte::VALUE;
        let entry = self.swap.as_ref().unwrap().entry(slot);
        if entry & crate::swapfile::SLOT_CACHED == 0 {
            // A demand miss (crate::demand): the page must be read.
            self.sim.demand.swap_misses += 1;
        }
        let mut major = false;
        // A folio read for this fault alone, never in the swap cache:
        // certainly exclusive.
        let mut fresh = false;
        let pfn = if entry & crate::swapfile::SLOT_CACHED != 0 {
            // swap_cache_get_folio: a readahead hit counts, and the hit
            // becomes the VMA's previous fault for the next window.
            let pfn = (entry & crate::swapfile::SLOT_VALUE) as u32;
            let readahead = self.folios.get(pfn).test(pg::READAHEAD);
            if readahead {
                self.folios.get_mut(pfn).clear(pg::READAHEAD);
                self.ev.add(Ev::SwapRaHit, 1);
            }
            self.vma_swap_ra_hit(region, page, readahead);
            pfn
        } else if self.swap.as_ref().unwrap().sync_io && self.swap_count(slot) == 1 {
            // SWP_SYNCHRONOUS_IO with one reference: read straight into a
            // new folio, no swap cache. A slot a fork shared goes through
            // the swap cache like any device's.
            major = true;
            fresh = true;
            let Some(pfn) = self.swapin_new_folio(slot, false) else {
                self.sim.dropped_accesses += 1;
                return;
            };
            pfn
        } else {
            major = true;
            match self.swapin_readahead(region, page, slot) {
                Some(p) => p,
                None => {
                    self.sim.dropped_accesses += 1;
                    return;
                }
            }
        };
        if !self.tasks[task as usize].alive {
            return;
        }
        if major {
            let memcg = self.tasks[task as usize].memcg;
            self.count(memcg, Ev::Pgmajfault, 1);
            let ws = self.folios.get(pfn).test(pg::WORKINGSET);
            self.swap_read_time(ws);
        }
        // The PTE's reference on the slot goes (swap_free_nr); the slot
        // itself when nothing refers to it any more.
        let in_cache = self.folios.get(pfn).test(pg::SWAPCACHE);
        let others = self.folios.get(pfn).mapcount;
        self.tasks[task as usize].swapents -= 1;
        if self.swap_put_ref(slot) == 0 && !in_cache {
            self.swap_slot_free(slot);
        }
        // should_try_to_free_swap: swap full, a locked VMA or an mlocked
        // folio, or a write that may make the folio ours alone (no other
        // mapping). Simplification: a per-CPU batch's reference is not
        // counted here (docs/FIDELITY.md).
        let locked = self.vmas[region as usize].locked || self.folios.get(pfn).test(pg::MLOCKED);
        let try_free = in_cache && (self.mem_cgroup_swap_full(self.folios.get(pfn).memcg) || locked || (write && others == 0));
        if fresh || orig & pte::SWP_EXCLUSIVE != 0 {
            // Exclusive: mapped writable (RMAP_EXCLUSIVE).
            self.map_folio(region, page, pfn, write);
            self.folios.get_mut(pfn).set(pg::ANON_EXCLUSIVE);
            if try_free {
                self.folio_free_swap(pfn);
            }
            return;
        }
        // Shared by a fork at some point: writable only if no one else
        // holds the folio (folio_ref_count == 1), else read-only, and a
        // write goes on to do_wp_page.
        if try_free {
            self.folio_free_swap(pfn);
        }
        let reuse = self.folio_ref_count(pfn) == 0;
        self.map_folio(region, page, pfn, write && reuse);
        if reuse {
            self.folios.get_mut(pfn).set(pg::ANON_EXCLUSIVE);
            return;
        }
        if self.vmas[region as usize].dead {
            return;
        }
        let v = &self.vmas[region as usize];
        let pgd = self.tasks[task as usize].pgd;
        let va = v.va(page);
        if let Some(p) = self.pt.get_mut(pgd, va) {
            *p |= pte::WRPROT;
        }
        if write {
            self.do_wp_page(region, page, pfn);
        }
    }

    /// The references on an anon folio besides a fault's own: its
    /// mappings, the swap cache, a per-CPU batch, an isolation, a pin
    /// (`folio_ref_count` less the caller's).
    pub(crate) fn folio_ref_count(&self, pfn: u32) -> u32 {
        let f = self.folios.get(pfn);
        u32::from(f.mapcount)
            + f.test(pg::SWAPCACHE) as u32
            + f.test(pg::IN_BATCH) as u32
            + f.test(pg::ISOLATED) as u32
            + f.test(pg::PINNED) as u32
    }

    // ---- copy-on-write ---------------------------------------------------------

    /// `do_wp_page` of a private anon page (a store through a PTE a fork
    /// write-protected): reuse the page if it is exclusive or this mapping
    /// turns out to be its only user, else copy it.
    fn do_wp_page(&mut self, region: u32, page: u64, pfn: u32) {
        debug_assert!(self.folios.get(pfn).test(pg::ANON));
        if self.folios.get(pfn).test(pg::ANON_EXCLUSIVE) || self.wp_can_reuse_anon_folio(pfn, region) {
            self.folios.get_mut(pfn).set(pg::ANON_EXCLUSIVE);
            // wp_page_reuse: writable, young and dirty.
            let v = &self.vmas[region as usize];
            let (pgd, va) = (self.tasks[v.task as usize].pgd, v.va(page));
            if let Some(p) = self.pt.get_mut(pgd, va) {
                *p &= !pte::WRPROT;
            }
            self.pt.hw_access(pgd, va, true);
            self.ev.add(Ev::Pgreuse, 1);
            return;
        }
        self.wp_page_copy(region, page, pfn);
    }

    /// `wp_can_reuse_anon_folio`: the folio's only reference is this
    /// mapping's, once this CPU's batches are drained (if the folio is not
    /// on the LRU) and its swap copy is dropped (if no other process's
    /// swap PTE refers to it). The folio then moves to the region's own
    /// anon_vma (`folio_move_anon_rmap`).
    fn wp_can_reuse_anon_folio(&mut self, pfn: u32, region: u32) -> bool {
        if self.folio_ref_count(pfn) > 3 {
            return false;
        }
        if !self.folios.get(pfn).test(pg::LRU) {
            self.lru_add_drain();
        }
        let swapcache = self.folios.get(pfn).test(pg::SWAPCACHE);
        if self.folio_ref_count(pfn) > 1 + swapcache as u32 {
            return false;
        }
        if swapcache {
            self.folio_free_swap(pfn);
        }
        if self.folio_ref_count(pfn) != 1 {
            return false;
        }
        self.folios.get_mut(pfn).mapping = region;
        true
    }

    /// `wp_page_copy`: a new page (charged to the storing task's memcg)
    /// takes the shared one's place in this PTE, writable and dirty; the
    /// old page loses this mapping and, if that was its last, its swap
    /// copy (unless another process's swap PTE still refers to it) and
    /// then itself.
    fn wp_page_copy(&mut self, region: u32, page: u64, old: u32) {
        let task = self.vmas[region as usize].task;
        let memcg = self.tasks[task as usize].memcg;
        let Some(pfn) = self.alloc_folio(memcg, Gfp::Normal) else {
            self.sim.dropped_accesses += 1;
            return;
        };
        if !self.tasks[task as usize].alive || self.vmas[region as usize].dead {
            self.free_unmapped_folio(pfn);
            return;
        }
        let v = &self.vmas[region as usize];
        let (pgd, va, locked) = (self.tasks[task as usize].pgd, v.va(page), v.locked);
        let e = self.pt.get(pgd, va);
        if e & pte::PRESENT == 0 || e & pte::VALUE != old || e & pte::WRPROT == 0 {
            // !pte_same: reclaim took the page while this fault allocated.
            // The new page goes back and the CPU retries the store.
            self.free_unmapped_folio(pfn);
            self.fault_end();
            self.access(region, page, true);
            return;
        }
        self.spend_cpu(self.cost.page_copy, true);
        {
            let f = self.folios.get_mut(pfn);
            f.set(pg::ANON | pg::SWAPBACKED | pg::UPTODATE | pg::ANON_EXCLUSIVE);
            f.mapping = region;
            f.index = page as u32;
            f.mapcount = 1;
        }
        self.memcgs[memcg as usize].st.add(St::Anon, 1);
        *self.pt.get_mut(pgd, va).unwrap() = pte::PRESENT | pfn;
        self.pt.hw_access(pgd, va, true);
        if locked {
            self.mlock_new_folio(pfn);
        } else {
            self.folio_add_lru(pfn);
        }
        // folio_remove_rmap_pte of the old page (rss stays: anon for anon).
        let f = self.folios.get_mut(old);
        f.mapcount -= 1;
        let (left, om) = (f.mapcount, f.memcg);
        if left == 0 {
            self.memcgs[om as usize].st.add(St::Anon, -1);
        }
        if locked {
            self.munlock_folio(old);
        }
        if left == 0 {
            // free_swap_cache, then the last folio_put.
            if self.folios.get(old).test(pg::SWAPCACHE) {
                self.folio_free_swap(old);
            }
            if !self.folios.get(old).test(pg::SWAPCACHE) {
                self.free_unmapped_folio(old);
            }
        }
    }

    // ---- unmapping ranges and exit -----------------------------------------

    /// `zap_page_range` over pages [from, to) of a region (MADV_DONTNEED,
    /// munmap, exit).
    pub fn zap_range(&mut self, region: u32, from: u64, to: u64) {
        let v = &self.vmas[region as usize];
        let (task, start, is_file) = (v.task, v.start, v.file.is_some());
        // A young PTE of a file folio marks it accessed (a version step:
        // 6.12 where the mapping has recency).
        let marks_accessed = (self.steps.zap_marks_accessed)(self, region);
        let pgd = self.tasks[task as usize].pgd;
        for idx in from..to {
            let va = start + (idx << 12);
            let e = self.pt.get(pgd, va);
            if e == 0 {
                continue;
            }
            if e & pte::PRESENT != 0 {
                let val = e & pte::VALUE;
                if val == pte::ZERO_PFN {
                    *self.pt.get_mut(pgd, va).unwrap() = 0;
                    continue;
                }
                let pfn = val;
                let young = self.unmap_one(region, idx, pfn, 0);
                if is_file {
                    if young && marks_accessed {
                        self.folio_mark_accessed(pfn);
                    }
                } else if self.folios.get(pfn).mapcount == 0 {
                    // The last mapping (a fork's other side may still map it).
                    self.free_anon_folio(pfn);
                }
            } else if e & pte::SWAP != 0 {
                *self.pt.get_mut(pgd, va).unwrap() = 0;
                self.tasks[task as usize].swapents -= 1;
                self.free_swap_and_cache(e & pte::VALUE);
            }
        }
    }

    /// An anon folio lost its last mapping: drop it from the swap cache
    /// (freeing the slot) and from the LRU, and free it. While another
    /// process's swap PTE refers to its slot, it stays in the swap cache
    /// instead (`free_swap_cache`: `folio_free_swap` fails).
    fn free_anon_folio(&mut self, pfn: u32) {
        if self.folios.get(pfn).test(pg::SWAPCACHE) {
            let slot = self.folios.get(pfn).swap - 1;
            if self.swap_count(slot) > 0 {
                return;
            }
            self.swap_cache_drop(pfn);
        }
        self.free_unmapped_folio(pfn);
    }

    /// Take an unmapped, unreferenced folio off the LRU and free it.
    pub fn free_unmapped_folio(&mut self, pfn: u32) {
        self.folio_leave_batches(pfn);
        let f = *self.folios.get(pfn);
        if f.test(pg::ISOLATED) {
            // In a batch of a reclaimer paused in the middle (parallel
            // scheduling): its isolation reference keeps the folio until it
            // comes back to it and frees it (shrink_folio_list,
            // move_folios_to_lru), as folio_put leaves it in 6.12.
            let fm = self.folios.get_mut(pfn);
            fm.set(pg::ORPHAN);
            if f.test(pg::ANON) {
                fm.clear(pg::DIRTY);
            }
            return;
        }
        if f.test(pg::LRU) {
            self.lruvec_del_folio(pfn);
            self.folios.get_mut(pfn).clear(pg::LRU);
        }
        if f.test(pg::WRITEBACK) {
            self.writeback_abandon(pfn);
        }
        if f.test(pg::ANON) && f.test(pg::DIRTY) {
            self.folios.get_mut(pfn).clear(pg::DIRTY);
        }
        self.free_folio(pfn);
    }

}
