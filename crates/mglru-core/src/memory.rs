// SPDX-License-Identifier: GPL-2.0-only
//! Address spaces and page faults (mm/memory.c, mm/rmap.c, mm/madvise.c):
//! mapping creation, CPU loads and stores through the page tables, the
//! anonymous, file and swap fault paths, fault-around, rmap reference
//! checks, unmapping, and process exit.

use crate::filemap::MMAP_LOTSAMISS;
use crate::folio::pg;
use crate::kernel::{Kernel, Policy};
use crate::mm::{pte, Task, Vma};
use crate::page_alloc::Gfp;
use crate::stat::{Ev, St};

/// `fault_around_bytes` = 64 KiB.
pub const FAULT_AROUND_PAGES: u64 = 16;

/// What a trace `advise` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    Normal,
    Random,
    Sequential,
    DontNeed,
    WillNeed,
    /// POSIX_FADV_NOREUSE (files only; the trace resolver rejects it for a
    /// region, as madvise has no such advice).
    NoReuse,
}

impl Kernel {
    // ---- creating tasks and mappings -------------------------------------

    pub fn task_create(&mut self, id: u32, memcg: u16) {
        let pgd = self.pt.new_pgd();
        debug_assert_eq!(id as usize, self.tasks.len());
        // The pgd is not charged to the memcg: it was allocated when the
        // process was forked, before it joined its cgroup (as the
        // replayer's workers are). The tables below it are.
        self.tasks.push(Task::new(memcg, pgd));
        // lru_gen_add_mm: join the memcg's mm list; a walker whose tail is
        // the list head will visit it in this round.
        let lv = &mut self.memcgs[memcg as usize].lruvec;
        if lv.mm_state.tail == crate::mglru::MmPos::Fifo {
            lv.mm_state.tail = crate::mglru::MmPos::Mm(id);
        }
        self.memcgs[memcg as usize].mm_list.push(id);
    }

    /// `lru_gen_del_mm`: leave the memcg's mm list, moving walk cursors.
    fn lru_gen_del_mm(&mut self, task: u32) {
        use crate::mglru::MmPos;
        let memcg = self.tasks[task as usize].memcg as usize;
        let list = &self.memcgs[memcg].mm_list;
        let Some(i) = list.iter().position(|&t| t == task) else { return };
        let prev = if i == 0 { MmPos::Fifo } else { MmPos::Mm(list[i - 1]) };
        let next = list.get(i + 1).map_or(MmPos::Fifo, |&t| MmPos::Mm(t));
        let ms = &mut self.memcgs[memcg].lruvec.mm_state;
        if ms.head == MmPos::Mm(task) {
            ms.head = prev;
        }
        if ms.tail == MmPos::Mm(task) {
            ms.tail = next;
        }
        self.memcgs[memcg].mm_list.remove(i);
    }

    /// `mmap(MAP_ANONYMOUS|MAP_PRIVATE)` of `pages`.
    pub fn anon_create(&mut self, task: u32, region: u32, pages: u64) {
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: None, seq_read: false, rand_read: false, dead: false, swap_ra: (0, 0, 0) });
    }

    /// `mmap(MAP_SHARED)` of the whole file.
    pub fn mmap_create(&mut self, task: u32, region: u32, file: u32) {
        let pages = self.files[file as usize].pages;
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: Some(file), seq_read: false, rand_read: false, dead: false, swap_ra: (0, 0, 0) });
        self.files[file as usize].i_mmap.push(region);
    }

    fn push_vma(&mut self, region: u32, v: Vma) {
        debug_assert_eq!(region as usize, self.vmas.len());
        self.tasks[v.task as usize].vmas.push(region);
        self.vmas.push(v);
    }

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
                    self.spend(self.cost.mem_access);
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
                self.spend(self.cost.mem_access);
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
        let root = memcg == crate::memcg::ROOT_MEMCG;
        let charged = pfns.len() as u64 == need && (root || self.try_charge(memcg, need, Gfp::Normal));
        if !charged || !self.tasks[task as usize].alive || self.vmas[region as usize].dead {
            // No page, no charge, or OOM-killed meanwhile: give it all back.
            if charged && !root {
                self.refill_stock(memcg, need);
            }
            pfns.into_iter().for_each(|p| self.free_pgtable_page(p));
            return false;
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
        self.spend(self.cost.minor_fault);
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
    /// `folio_add_*_rmap`). New PTEs are young on x86.
    fn map_folio(&mut self, region: u32, page: u64, pfn: u32, write: bool) {
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
        self.map_folio(region, page, pfn, true);
        self.folio_add_lru(pfn);
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

    /// `filemap_fault`: find or read the page; readahead as 6.12 does.
    fn filemap_fault(&mut self, region: u32, page: u64) -> Option<u32> {
        let file = self.vmas[region as usize].file.unwrap();
        if let Some(pfn) = self.files[file as usize].folio_at(page) {
            // The fault holds the folio while readahead allocates.
            self.folios.get_mut(pfn).set(pg::PINNED);
            self.do_async_mmap_readahead(region, file, pfn);
            self.folios.get_mut(pfn).clear(pg::PINNED);
            return Some(pfn);
        }
        let memcg = self.tasks[self.current as usize].memcg;
        self.count(memcg, Ev::Pgmajfault, 1);
        self.do_sync_mmap_readahead(region, file, page);
        self.spend(self.cost.disk_read);
        if let Some(pfn) = self.files[file as usize].folio_at(page) {
            return Some(pfn);
        }
        let pfn = self.alloc_folio(memcg, Gfp::Normal)?;
        self.filemap_add_folio(file, page, pfn, false);
        self.ev.add(Ev::Pgpgin, 4);
        Some(pfn)
    }

    /// `do_sync_mmap_readahead`.
    fn do_sync_mmap_readahead(&mut self, region: u32, file: u32, page: u64) {
        let v = &self.vmas[region as usize];
        let ra_pages = self.files[file as usize].ra.ra_pages;
        if v.rand_read || ra_pages == 0 {
            return;
        }
        if v.seq_read {
            self.page_cache_sync_ra(file, page, ra_pages);
            return;
        }
        let ra = &mut self.files[file as usize].ra;
        if ra.mmap_miss < MMAP_LOTSAMISS * 10 {
            ra.mmap_miss += 1;
        }
        if ra.mmap_miss > MMAP_LOTSAMISS {
            return;
        }
        // Read-around centred on the fault, marker a quarter from the end.
        ra.start = page.saturating_sub(ra_pages / 2);
        ra.size = ra_pages;
        ra.async_size = ra_pages / 4;
        let (s, n, a) = (ra.start, ra.size, ra.async_size);
        self.do_page_cache_ra(file, s, n, a);
    }

    /// `do_async_mmap_readahead`.
    fn do_async_mmap_readahead(&mut self, region: u32, file: u32, pfn: u32) {
        let v = &self.vmas[region as usize];
        let ra_pages = self.files[file as usize].ra.ra_pages;
        if v.rand_read || ra_pages == 0 {
            return;
        }
        let ra = &mut self.files[file as usize].ra;
        if ra.mmap_miss > 0 {
            ra.mmap_miss -= 1;
        }
        if self.folios.get(pfn).test(pg::READAHEAD) {
            self.page_cache_async_ra(file, pfn, ra_pages);
        }
    }

    // ---- swap faults -----------------------------------------------------------

    /// `do_swap_page`.
    fn do_swap_page(&mut self, region: u32, page: u64, slot: u32, write: bool) {
        let task = self.vmas[region as usize].task;
        let entry = self.swap.as_ref().unwrap().entry(slot);
        let mut major = false;
        let pfn = if entry & crate::swap::SLOT_CACHED != 0 {
            // swap_cache_get_folio: a readahead hit counts, and the hit
            // becomes the VMA's previous fault for the next window.
            let pfn = (entry & crate::swap::SLOT_VALUE) as u32;
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
            self.spend(self.cost.swap_read);
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

    /// Allocate a folio for swap slot `slot`, charge it to the slot's
    /// memcg, apply its shadow, add it to the LRU and read it. With
    /// `to_cache` it joins the swap cache (`__read_swap_cache_async`).
    pub fn swapin_new_folio(&mut self, slot: u32, to_cache: bool) -> Option<u32> {
        let sw = self.swap.as_ref().unwrap();
        let memcg = sw.memcg[slot as usize];
        let entry = sw.entry(slot);
        let pfn = self.alloc_folio(memcg, Gfp::Normal)?;
        {
            let f = self.folios.get_mut(pfn);
            f.set(pg::ANON | pg::SWAPBACKED | pg::UPTODATE);
        }
        // The folio needs its owner (region, page) for rmap; recorded below
        // by the caller through the slot's owner table.
        let (region, index) = self.swap_owner(slot);
        {
            let f = self.folios.get_mut(pfn);
            f.mapping = region;
            f.index = index;
        }
        if to_cache {
            self.add_to_swap_cache(pfn, slot);
        }
        if entry & crate::swap::SLOT_SHADOW != 0 {
            self.workingset_refault(pfn, entry & crate::swap::SLOT_VALUE);
            if !to_cache {
                // The shadow goes with the swap-cache slot it sat in.
                let e = self.swap.as_ref().unwrap().entry(slot);
                self.swap_set_entry(slot, e & !(crate::swap::SLOT_SHADOW | crate::swap::SLOT_VALUE));
            }
        }
        self.folio_add_lru(pfn);
        self.ev.add(Ev::Pswpin, 1);
        self.ev.add(Ev::Pgpgin, 4);
        Some(pfn)
    }

    /// `swap_vma_readahead` around the faulting page; returns the target.
    fn swapin_readahead(&mut self, region: u32, page: u64, slot: u32) -> Option<u32> {
        let (start, end, win) = self.swap_vma_ra_win(region, page);
        if win > 1 {
            // The window in address order, the target among the others;
            // only the others are marked PG_readahead. Then the drain.
            let v = &self.vmas[region as usize];
            let (task, vstart) = (v.task, v.start);
            let pgd = self.tasks[task as usize].pgd;
            for p in start..end {
                let e = self.pt.get(pgd, vstart + (p << 12));
                if e & pte::SWAP == 0 {
                    continue;
                }
                let s = e & pte::VALUE;
                if self.swap.as_ref().unwrap().entry(s) & crate::swap::SLOT_CACHED != 0 {
                    continue;
                }
                if let Some(pfn) = self.swapin_new_folio(s, true) {
                    if p != page {
                        self.folios.get_mut(pfn).set(pg::READAHEAD);
                        self.ev.add(Ev::SwapRa, 1);
                    }
                }
            }
            self.lru_add_drain();
        }
        // `skip:` the target, read above unless reclaim took it meanwhile
        // (or the window was one page).
        let e = self.swap.as_ref().unwrap().entry(slot);
        if e & crate::swap::SLOT_CACHED != 0 {
            return Some((e & crate::swap::SLOT_VALUE) as u32);
        }
        self.swapin_new_folio(slot, true)
    }

    /// `swap_vma_ra_win`: returns the page range [start, end) to read and
    /// the window it was cut from.
    fn swap_vma_ra_win(&mut self, region: u32, page: u64) -> (u64, u64, u64) {
        let max_win = 1u64 << self.sysctl.page_cluster.min(5);
        if max_win == 1 {
            return (page, page + 1, 1);
        }
        let v = &mut self.vmas[region as usize];
        let fpfn = (v.start >> 12) + page;
        let (prev, prev_win, hits) = v.swap_ra;
        let mut pages = hits as u64 + 2;
        if pages == 2 {
            if fpfn != prev + 1 && fpfn != prev.wrapping_sub(1) {
                pages = 1;
            }
        } else {
            let mut roundup = 4;
            while roundup < pages {
                roundup <<= 1;
            }
            pages = roundup;
        }
        pages = pages.min(max_win).max(prev_win as u64 / 2);
        v.swap_ra = (fpfn, pages as u32, 0);
        if pages == 1 {
            return (page, page + 1, 1);
        }
        let (lpfn, rpfn) = if fpfn == prev + 1 {
            (fpfn, fpfn + pages)
        } else if prev == fpfn + 1 {
            (fpfn + 1 - pages.min(fpfn + 1), fpfn + 1)
        } else {
            let left = (pages - 1) / 2;
            (fpfn.saturating_sub(left), fpfn + pages - left)
        };
        let vs = v.start >> 12;
        let ve = vs + v.pages;
        let pmd_start = fpfn & !511;
        let s = lpfn.max(vs).max(pmd_start);
        let e = rpfn.min(ve).min(pmd_start + 512);
        (s - vs, e - vs, pages)
    }

    /// `swap_cache_get_folio`'s VMA readahead state on a swap-cache hit:
    /// the hit's address replaces the previous fault's, the window stays,
    /// a readahead hit counts (at most `SWAP_RA_HITS_MAX`).
    fn vma_swap_ra_hit(&mut self, region: u32, page: u64, readahead: bool) {
        const SWAP_RA_HITS_MAX: u32 = (1 << (crate::kernel::PAGE_SHIFT / 2)) - 1;
        let v = &mut self.vmas[region as usize];
        v.swap_ra.0 = (v.start >> 12) + page;
        if readahead {
            v.swap_ra.2 = (v.swap_ra.2 + 1).min(SWAP_RA_HITS_MAX);
        }
    }

    // ---- rmap ----------------------------------------------------------------

    /// `folio_referenced`: how many mappings saw the folio young (clearing
    /// their accessed bits), considering only mms in `target` memcg's
    /// subtree when reclaim is memcg-targeted. Mappings without recency
    /// are skipped untouched.
    pub fn folio_referenced(&mut self, pfn: u32, target: Option<u16>) -> u32 {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 {
            return 0;
        }
        let mut referenced = 0;
        if f.test(pg::ANON) {
            referenced += self.referenced_one(f.mapping, f.index as u64, pfn, target) as u32;
        } else {
            let n = self.files[f.mapping as usize].i_mmap.len();
            for i in 0..n {
                let r = self.files[f.mapping as usize].i_mmap[i];
                referenced += self.referenced_one(r, f.index as u64, pfn, target) as u32;
            }
        }
        referenced
    }

    fn referenced_one(&mut self, region: u32, index: u64, pfn: u32, target: Option<u16>) -> bool {
        let v = &self.vmas[region as usize];
        if v.dead || index >= v.pages || !self.vma_has_recency(region) {
            return false;
        }
        let task = v.task;
        if let Some(t) = target {
            if !self.memcg_is_descendant(self.tasks[task as usize].memcg, t) {
                return false;
            }
        }
        let va = v.va(index);
        let pgd = self.tasks[task as usize].pgd;
        let e = self.pt.get(pgd, va);
        if e & pte::PRESENT == 0 || e & pte::VALUE != pfn {
            return false;
        }
        if self.policy() == Policy::Mglru {
            return self.lru_gen_look_around(region, index, pfn);
        }
        let p = self.pt.get_mut(pgd, va).unwrap();
        let young = *p & pte::YOUNG != 0;
        *p &= !pte::YOUNG;
        young
    }

    /// `try_to_unmap`: remove every PTE of the folio. Anon PTEs become
    /// swap entries for the folio's slot; dirty bits move to the folio.
    pub fn try_to_unmap(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 {
            return;
        }
        if f.test(pg::ANON) {
            let slot = f.swap - 1;
            self.unmap_one(f.mapping, f.index as u64, pfn, pte::SWAP | slot);
        } else {
            let n = self.files[f.mapping as usize].i_mmap.len();
            for i in 0..n {
                let r = self.files[f.mapping as usize].i_mmap[i];
                if self.folios.get(pfn).mapcount == 0 {
                    break;
                }
                self.unmap_one(r, f.index as u64, pfn, 0);
            }
        }
    }

    /// Clear one mapping of `pfn` at `index` of `region`, writing `new`
    /// into the PTE. Returns whether the PTE was young.
    fn unmap_one(&mut self, region: u32, index: u64, pfn: u32, new: u32) -> bool {
        let v = &self.vmas[region as usize];
        if v.dead || index >= v.pages {
            return false;
        }
        let (task, va, is_file) = (v.task, v.va(index), v.file.is_some());
        let pgd = self.tasks[task as usize].pgd;
        let Some(p) = self.pt.get_mut(pgd, va) else { return false };
        if *p & pte::PRESENT == 0 || *p & pte::VALUE != pfn {
            return false;
        }
        let old = *p;
        *p = new;
        if old & pte::DIRTY != 0 {
            if is_file {
                self.folio_mark_dirty(pfn);
            } else {
                self.folios.get_mut(pfn).set(pg::DIRTY);
            }
        }
        let f = self.folios.get_mut(pfn);
        f.mapcount -= 1;
        let (memcg, left) = (f.memcg, f.mapcount);
        let t = &mut self.tasks[task as usize];
        if is_file {
            t.rss_file -= 1;
            if left == 0 {
                self.memcgs[memcg as usize].st.add(St::FileMapped, -1);
            }
        } else {
            t.rss_anon -= 1;
            if new & pte::SWAP != 0 {
                t.swapents += 1;
            }
            self.memcgs[memcg as usize].st.add(St::Anon, -1);
        }
        old & pte::YOUNG != 0
    }

    /// Write-protect and clean every PTE of a file folio (`folio_mkclean`)
    /// so the next store faults and re-dirties it.
    pub fn folio_mkclean(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 || f.test(pg::ANON) {
            return;
        }
        let n = self.files[f.mapping as usize].i_mmap.len();
        for i in 0..n {
            let r = self.files[f.mapping as usize].i_mmap[i];
            let v = &self.vmas[r as usize];
            if v.dead || f.index as u64 >= v.pages {
                continue;
            }
            let va = v.va(f.index as u64);
            let pgd = self.tasks[v.task as usize].pgd;
            if let Some(p) = self.pt.get_mut(pgd, va) {
                if *p & pte::PRESENT != 0 && *p & pte::VALUE == pfn {
                    *p &= !pte::DIRTY;
                }
            }
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

    /// The task exits (or is OOM-killed): every mapping is torn down.
    pub fn task_exit(&mut self, task: u32) {
        if !self.tasks[task as usize].alive {
            return;
        }
        self.lru_gen_del_mm(task);
        let regions = self.tasks[task as usize].vmas.clone();
        for r in regions {
            let pages = self.vmas[r as usize].pages;
            self.zap_range(r, 0, pages);
            self.vmas[r as usize].dead = true;
            if let Some(f) = self.vmas[r as usize].file {
                self.files[f as usize].i_mmap.retain(|&x| x != r);
            }
        }
        let t = &mut self.tasks[task as usize];
        t.alive = false;
        let pgd = t.pgd;
        self.pt.free_all(pgd);
        let t = &mut self.tasks[task as usize];
        let tmemcg = t.memcg;
        let pfns = std::mem::take(&mut t.pgtable_pfns);
        let freed = pfns.len() as u64;
        pfns.into_iter().for_each(|p| self.free_pgtable_page(p));
        self.memcg_pgtable_uncharge(tmemcg, freed);
        let t = &self.tasks[task as usize];
        debug_assert_eq!((t.rss_anon, t.rss_file, t.swapents), (0, 0, 0));
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

    /// `madvise` on a region.
    pub fn madvise(&mut self, region: u32, advice: Advice) {
        let pages = self.vmas[region as usize].pages;
        match advice {
            Advice::Normal => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = false;
                v.rand_read = false;
            }
            Advice::Random => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = false;
                v.rand_read = true;
            }
            Advice::Sequential => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = true;
                v.rand_read = false;
            }
            Advice::DontNeed => self.zap_range(region, 0, pages),
            Advice::WillNeed => match self.vmas[region as usize].file {
                Some(f) => {
                    let n = self.files[f as usize].pages;
                    self.force_page_cache_ra(f, 0, n);
                }
                None => self.madvise_willneed_anon(region),
            },
            // Not an madvise advice; the resolver never gives it for a region.
            Advice::NoReuse => {}
        }
    }

    /// `madvise(MADV_WILLNEED)` on anon memory: start swap-in of every
    /// swapped-out page into the swap cache.
    fn madvise_willneed_anon(&mut self, region: u32) {
        if self.swap.is_none() || self.swap.as_ref().unwrap().sync_io {
            return;
        }
        let v = &self.vmas[region as usize];
        let (task, start, pages) = (v.task, v.start, v.pages);
        let pgd = self.tasks[task as usize].pgd;
        for idx in 0..pages {
            let e = self.pt.get(pgd, start + (idx << 12));
            if e & pte::SWAP == 0 {
                continue;
            }
            let s = e & pte::VALUE;
            if self.swap.as_ref().unwrap().entry(s) & crate::swap::SLOT_CACHED == 0 {
                let _ = self.swapin_new_folio(s, true);
            }
        }
        self.lru_add_drain();
    }
}
