// SPDX-License-Identifier: GPL-2.0-only
//! mlock and the unevictable LRU (mm/mlock.c, the unevictable parts of
//! mm/swap.c, mm/rmap.c and mm/vmscan.c), and `MAP_POPULATE`.
//!
//! A folio mapped by a `VM_LOCKED` mapping gets `PG_mlocked` (counted in
//! `NR_MLOCK` and `unevictable_pgs_mlocked`) and, once it is on an LRU,
//! moves to the unevictable list (`unevictable_pgs_culled`), where reclaim
//! never looks: the classic LRU scans only the four evictable lists, and
//! the multi-gen LRU does not take unevictable folios at all
//! (`lru_gen_add_folio` leaves them to the classic unevictable list). Its
//! `mlock_count` counts the locked mappings (it may undercount: "reclaim
//! will fix it"). munlock, and unmapping from a locked mapping, lower the
//! count; at zero the folio loses `PG_mlocked` (`unevictable_pgs_munlocked`)
//! and goes back to an evictable list (`unevictable_pgs_rescued`). A folio
//! that was off the LRU when it was locked (in a per-CPU batch, isolated
//! by reclaim) is culled where it next meets the LRU code: when the
//! batch adds it (`lru_add`), or when reclaim finds it unevictable and
//! puts it back (`folio_putback_lru`). A folio freed while still
//! `PG_mlocked` counts `unevictable_pgs_cleared`.
//!
//! The work is queued in a per-CPU batch of its own (`mlock_fbatch`,
//! 31 folios, holding a reference to each), applied when it fills and
//! after the LRU batches whenever those are drained (`lru_add_drain` →
//! `mlock_drain_local`). So a folio faulted into a locked mapping, which
//! sits in the add batch when it is mlocked, is culled by `lru_add` first
//! (with `mlock_count` 0) and then counted by its mlock entry (1).
//!
//! Trace regions are whole mappings: `mlock`/`munlock` lock or unlock a
//! whole region (no VMA split), and there is no `MLOCK_ONFAULT`.

use crate::folio::pg;
use crate::kernel::{Kernel, PAGEVEC_SIZE};
use crate::mm::pte;
use crate::stat::Ev;

/// An mlock batch entry: the pfn, and in the top two bits what to do.
pub const MLOCK_PFN: u32 = (1 << 30) - 1;
/// `__munlock_folio`.
const MLOCK_MUNLOCK: u32 = 0;
/// `__mlock_folio` (the kernel's `LRU_FOLIO` tag).
const MLOCK_LRU: u32 = 1 << 30;
/// `__mlock_new_folio` (`NEW_FOLIO`).
const MLOCK_NEW: u32 = 2 << 30;

impl Kernel {
    /// `folio_evictable` (no mapping is ever unevictable in the model:
    /// no SHM_LOCK, no ramfs).
    #[inline]
    pub fn folio_evictable(&self, pfn: u32) -> bool {
        !self.folios.get(pfn).test(pg::MLOCKED)
    }

    fn set_mlock_count(&mut self, pfn: u32, n: u32) {
        if n == 0 {
            self.mlock_count.remove(&pfn);
        } else {
            self.mlock_count.insert(pfn, n);
        }
    }

    fn get_mlock_count(&self, pfn: u32) -> u32 {
        self.mlock_count.get(&pfn).copied().unwrap_or(0)
    }

    /// `mlock_folio` (`mlock_vma_folio` of a folio mapped into a locked
    /// mapping, or found there by the mlock walk or by reclaim).
    pub fn mlock_folio(&mut self, pfn: u32) {
        let f = self.folios.get_mut(pfn);
        if !f.test(pg::MLOCKED) {
            f.set(pg::MLOCKED);
            self.nr_mlock += 1;
            self.ev.add(Ev::UnevictablePgsMlocked, 1);
        }
        self.mlock_batch_add(pfn, MLOCK_LRU);
    }

    /// `mlock_new_folio` (`folio_add_lru_vma` of a new anon folio in a
    /// locked mapping): mlocked now, onto the unevictable list when the
    /// batch is applied.
    pub fn mlock_new_folio(&mut self, pfn: u32) {
        let f = self.folios.get_mut(pfn);
        debug_assert!(!f.test(pg::LRU));
        f.set(pg::MLOCKED);
        self.nr_mlock += 1;
        self.ev.add(Ev::UnevictablePgsMlocked, 1);
        self.mlock_batch_add(pfn, MLOCK_NEW);
    }

    /// `munlock_folio`: `PG_mlocked` is left to the batch, which knows
    /// whether another lock holds the folio.
    pub fn munlock_folio(&mut self, pfn: u32) {
        self.mlock_batch_add(pfn, MLOCK_MUNLOCK);
    }

    fn mlock_batch_add(&mut self, pfn: u32, kind: u32) {
        self.folios.get_mut(pfn).set(pg::IN_BATCH);
        let b = &mut self.cpus[self.cpu].mlock;
        b.push(pfn | kind);
        if b.len() >= PAGEVEC_SIZE {
            self.mlock_folio_batch(self.cpu);
        }
    }

    /// `mlock_folio_batch`: apply CPU `cpu`'s mlock batch in order.
    pub(crate) fn mlock_folio_batch(&mut self, cpu: usize) {
        let entries = std::mem::take(&mut self.cpus[cpu].mlock);
        for &e in &entries {
            self.folios.get_mut(e & MLOCK_PFN).clear(pg::IN_BATCH);
        }
        self.restore_in_batch_flags();
        for &e in &entries {
            let pfn = e & MLOCK_PFN;
            match e & !MLOCK_PFN {
                MLOCK_LRU => self.mlock_lru_folio(pfn),
                MLOCK_NEW => self.mlock_add_new_folio(pfn),
                _ => self.munlock_lru_folio(pfn),
            }
        }
        // A folio may be queued again meanwhile (a full batch applied
        // from inside this one): keep its flag.
        self.restore_in_batch_flags();
        let mut entries = entries;
        entries.clear();
        if self.cpus[cpu].mlock.is_empty() {
            self.cpus[cpu].mlock = entries; // keep the allocation
        }
    }

    /// `__mlock_folio`.
    fn mlock_lru_folio(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        // Nothing more can be done while it is off the LRU.
        if !f.test(pg::LRU) {
            return;
        }
        if self.folio_evictable(pfn) {
            // Munlocked meanwhile.
            if f.test(pg::UNEVICTABLE) {
                self.lruvec_del_folio(pfn);
                self.folios.get_mut(pfn).clear(pg::UNEVICTABLE);
                self.set_mlock_count(pfn, 0);
                self.lruvec_add_folio(pfn);
                self.ev.add(Ev::UnevictablePgsRescued, 1);
            }
            return;
        }
        if f.test(pg::UNEVICTABLE) {
            let n = self.get_mlock_count(pfn);
            self.set_mlock_count(pfn, n + 1);
            return;
        }
        self.lruvec_del_folio(pfn);
        let fm = self.folios.get_mut(pfn);
        fm.clear(pg::ACTIVE);
        fm.set(pg::UNEVICTABLE);
        self.set_mlock_count(pfn, 1);
        self.lruvec_add_folio(pfn);
        self.ev.add(Ev::UnevictablePgsCulled, 1);
    }

    /// `__mlock_new_folio`: the new folio joins the LRU, the unevictable
    /// list unless it was munlocked meanwhile.
    fn mlock_add_new_folio(&mut self, pfn: u32) {
        if !self.folio_evictable(pfn) {
            self.folios.get_mut(pfn).set(pg::UNEVICTABLE);
            self.set_mlock_count(pfn, 1);
            self.ev.add(Ev::UnevictablePgsCulled, 1);
        }
        self.lruvec_add_folio(pfn);
        self.folios.get_mut(pfn).set(pg::LRU);
    }

    /// `__munlock_folio`.
    fn munlock_lru_folio(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        let isolated = f.test(pg::LRU);
        if isolated && f.test(pg::UNEVICTABLE) {
            // mlock_count is kept while it is there, but may undercount.
            let n = self.get_mlock_count(pfn).saturating_sub(1);
            self.set_mlock_count(pfn, n);
            if n > 0 {
                return;
            }
        }
        // Else this is taken to be the last mlock: reclaim fixes it if not.
        if f.test(pg::MLOCKED) {
            self.folios.get_mut(pfn).clear(pg::MLOCKED);
            self.nr_mlock -= 1;
            let e = if isolated || !f.test(pg::UNEVICTABLE) { Ev::UnevictablePgsMunlocked } else { Ev::UnevictablePgsStranded };
            self.ev.add(e, 1);
        }
        if isolated && f.test(pg::UNEVICTABLE) && self.folio_evictable(pfn) {
            self.lruvec_del_folio(pfn);
            self.folios.get_mut(pfn).clear(pg::UNEVICTABLE);
            self.set_mlock_count(pfn, 0);
            self.lruvec_add_folio(pfn);
            self.ev.add(Ev::UnevictablePgsRescued, 1);
        }
    }

    /// A folio is freed (`__page_cache_release`, `free_pages_prepare`):
    /// one still `PG_mlocked` is cleared and counted.
    #[inline]
    pub(crate) fn mlock_folio_freed(&mut self, pfn: u32) {
        if self.folios.get(pfn).test(pg::MLOCKED) {
            self.folios.get_mut(pfn).clear(pg::MLOCKED);
            self.nr_mlock -= 1;
            self.ev.add(Ev::UnevictablePgsCleared, 1);
        }
        if !self.mlock_count.is_empty() {
            self.mlock_count.remove(&pfn);
        }
    }

    /// `folio_putback_lru` of a folio reclaim found unevictable: back
    /// through the add batch, whose `lru_add` culls it.
    pub(crate) fn folio_putback_lru(&mut self, pfn: u32) {
        self.folios.get_mut(pfn).clear(pg::ISOLATED);
        self.folio_add_lru(pfn);
    }

    /// `mlock(2)` of a whole region: `mlock_fixup` (a region already
    /// locked is left as it is) and `mlock_vma_pages_range` (every
    /// present page is mlocked, between two drains of this CPU's
    /// batches), then `__mm_populate` faults in the rest.
    pub fn mlock_region(&mut self, region: u32) {
        if self.vmas[region as usize].dead {
            return;
        }
        if !self.vmas[region as usize].locked {
            self.vmas[region as usize].locked = true;
            self.lru_add_drain();
            self.for_each_present_folio(region, |k, pfn| k.mlock_folio(pfn));
            self.lru_add_drain();
        }
        self.populate_region(region);
    }

    /// `munlock(2)` of a whole region: every present page is munlocked.
    pub fn munlock_region(&mut self, region: u32) {
        if self.vmas[region as usize].dead || !self.vmas[region as usize].locked {
            return;
        }
        self.vmas[region as usize].locked = false;
        self.lru_add_drain();
        self.for_each_present_folio(region, |k, pfn| k.munlock_folio(pfn));
        self.lru_add_drain();
    }

    /// `walk_page_range` over a region: `f` for each mapped folio (not the
    /// zero page), in address order.
    fn for_each_present_folio(&mut self, region: u32, mut f: impl FnMut(&mut Kernel, u32)) {
        let v = &self.vmas[region as usize];
        let (pages, pgd) = (v.pages, self.tasks[v.task as usize].pgd);
        for idx in 0..pages {
            let va = self.vmas[region as usize].va(idx);
            let e = self.pt.get(pgd, va);
            if e & pte::PRESENT != 0 && e & pte::VALUE != pte::ZERO_PFN {
                f(self, e & pte::VALUE);
            }
        }
    }

    /// `populate_vma_page_range` of a whole region (`MAP_POPULATE`,
    /// `mlock`): get_user_pages with `FOLL_TOUCH`, for writing in a
    /// private (anon) mapping, for reading in a shared one. Each page is
    /// looked up (`follow_page_pte`): a mapped one is touched; a missing
    /// one — or the zero page, or a write-protected page, for a write — is
    /// faulted in like a CPU access (`faultin_page`), and the lookup is
    /// retried (`retry:`), touching the page now mapped. This CPU's
    /// batches are drained at the end.
    pub fn populate_region(&mut self, region: u32) {
        let v = &self.vmas[region as usize];
        let (task, mut pages, write) = (v.task, v.pages, v.file.is_none());
        if let Some(f) = v.file {
            // A fault beyond the end of the file fails (SIGBUS) and
            // get_user_pages stops there: nothing beyond it is populated.
            pages = pages.min(self.files[f as usize].pages);
        }
        let pgd = self.tasks[task as usize].pgd;
        for idx in 0..pages {
            if !self.tasks[task as usize].alive || self.vmas[region as usize].dead {
                break;
            }
            let va = self.vmas[region as usize].va(idx);
            let e = self.pt.get(pgd, va);
            if self.follow_page_touch(e, write) {
                continue;
            }
            if e & pte::PRESENT != 0 && !write {
                // The zero page, read: nothing to touch.
                continue;
            }
            self.kswapd_run_due();
            self.access(region, idx, write);
            // A fault that failed (no memory, the task killed) leaves
            // nothing mapped, and get_user_pages stops.
            if !self.tasks[task as usize].alive || self.vmas[region as usize].dead {
                break;
            }
            let e = self.pt.get(pgd, va);
            self.follow_page_touch(e, write);
        }
        self.lru_add_drain();
    }
}

impl Kernel {
    /// `follow_page_pte` with `FOLL_TOUCH` on PTE `e`: a mapped page (not
    /// the zero page, and for a write not write-protected — a page a fork
    /// left shared takes a write fault first: do_wp_page, a copy or a
    /// reuse) is dirtied for a write if its PTE is clean, and marked
    /// accessed. False when there is no such page to touch.
    fn follow_page_touch(&mut self, e: u32, write: bool) -> bool {
        let pfn = e & pte::VALUE;
        if e & pte::PRESENT == 0 || pfn == pte::ZERO_PFN || (write && e & pte::WRPROT != 0) {
            return false;
        }
        if write && e & pte::DIRTY == 0 {
            self.folio_mark_dirty(pfn);
        }
        self.folio_mark_accessed(pfn);
        true
    }
}
