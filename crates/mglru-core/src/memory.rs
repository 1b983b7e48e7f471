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
                if !write || e & pte::DIRTY != 0 || self.vmas[region as usize].file.is_none() {
                    // The CPU sets the accessed bits (PMD and PTE) and, for
                    // an anon store, the dirty bit.
                    self.pt.hw_access(pgd, va, write);
                    self.spend_cpu(self.cost.mem_access, false);
                    return;
                }
                // A store through a clean (write-protected) shared file PTE.
                self.fault_begin(region);
                self.wp_page_shared(region, page, val);
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
            self.do_swap_page(region, page, e & pte::VALUE, write);
        } else if self.vmas[region as usize].file.is_none() {
            self.do_anonymous_page(region, page, write);
        } else if write {
            self.do_shared_fault(region, page);
        } else {
            self.do_read_fault(region, page);
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
    fn pte_alloc(&mut self, region: u32, page: u64) -> bool {
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
        self.in_lru_fault = self.vma_has_recency(region);
        self.spend_cpu(self.cost.minor_fault, true);
    }
    fn fault_end(&mut self) {
        self.in_lru_fault = false;
    }

    /// `vma_has_recency`: no MADV_SEQUENTIAL/RANDOM, no FMODE_NOREUSE.
    pub fn vma_has_recency(&self, region: u32) -> bool {
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
            self.memcgs[memcg as usize].st.add(St::Anon, 1);
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
            f.set(pg::ANON | pg::SWAPBACKED | pg::UPTODATE);
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

    /// `do_read_fault`: fault-around first, then `filemap_fault`.
    fn do_read_fault(&mut self, region: u32, page: u64) {
        if self.do_fault_around(region, page) {
            return;
        }
        if let Some(pfn) = self.filemap_fault(region, page) {
            self.map_folio(region, page, pfn, false);
        }
    }

    /// `do_shared_fault`: a store to an unmapped page of a shared mapping.
    fn do_shared_fault(&mut self, region: u32, page: u64) {
        if let Some(pfn) = self.filemap_fault(region, page) {
            if self.vmas[region as usize].dead {
                return;
            }
            self.folio_create_buffers(pfn);
            self.folio_mark_dirty(pfn);
            self.map_folio(region, page, pfn, true);
            self.balance_dirty_pages_ratelimited();
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
            if self.pt.get(pgd, va) != 0 {
                continue;
            }
            let Some(pfn) = self.files[file as usize].folio_at(idx) else { continue };
            let f = self.folios.get(pfn);
            if f.test(pg::READAHEAD) || !f.test(pg::UPTODATE) {
                continue;
            }
            if !f.test(pg::WORKINGSET) {
                looked += 1;
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

    /// `do_swap_page`.
    fn do_swap_page(&mut self, region: u32, page: u64, slot: u32, write: bool) {
        let task = self.vmas[region as usize].task;
        let entry = self.swap.as_ref().unwrap().entry(slot);
        let mut major = false;
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
        } else if self.swap.as_ref().unwrap().sync_io {
            // SWP_SYNCHRONOUS_IO: read straight into a new folio, no swap cache.
            major = true;
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
            // swap_read_folio of a workingset folio is a memory stall.
            let ws = self.folios.get(pfn).test(pg::WORKINGSET);
            self.wait_for_read(self.cost.swap_read, ws);
        }
        // The PTE's reference on the slot goes (swap_free_nr).
        let in_cache = self.folios.get(pfn).test(pg::SWAPCACHE);
        self.tasks[task as usize].swapents -= 1;
        if !in_cache {
            self.swap_slot_free(slot);
        }
        self.map_folio(region, page, pfn, write);
        if in_cache && (self.mem_cgroup_swap_full(self.folios.get(pfn).memcg) || write) {
            self.folio_free_swap(pfn);
        }
    }

    // ---- unmapping ranges and exit -----------------------------------------

    /// `zap_page_range` over pages [from, to) of a region (MADV_DONTNEED,
    /// munmap, exit).
    pub fn zap_range(&mut self, region: u32, from: u64, to: u64) {
        let v = &self.vmas[region as usize];
        let (task, start, is_file) = (v.task, v.start, v.file.is_some());
        let recency = self.vma_has_recency(region);
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
                    if young && recency {
                        self.folio_mark_accessed(pfn);
                    }
                } else {
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
    /// (freeing the slot) and from the LRU, and free it.
    fn free_anon_folio(&mut self, pfn: u32) {
        if self.folios.get(pfn).test(pg::SWAPCACHE) {
            let slot = self.folios.get(pfn).swap - 1;
            self.delete_from_swap_cache(pfn, 0);
            self.swap_slot_free(slot);
        }
        self.free_unmapped_folio(pfn);
    }

    /// Take an unmapped, unreferenced folio off the LRU and free it.
    pub fn free_unmapped_folio(&mut self, pfn: u32) {
        self.folio_leave_batches(pfn);
        let f = *self.folios.get(pfn);
        debug_assert!(!f.test(pg::ISOLATED));
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
