// SPDX-License-Identifier: GPL-2.0-only
//! The swap cache and swap-in (mm/swap_state.c): adding a folio to swap,
//! the cache's insertion and removal, and swap readahead.

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::memcontrol::{PAGE_COUNTER_MAX, ROOT_MEMCG};
use crate::mm::pte;
use crate::page_alloc::Gfp;
use crate::stat::{Ev, St};
use crate::swapfile::{SLOT_CACHED, SLOT_ORPHAN, SLOT_SHADOW, SLOT_USED, SLOT_VALUE};

impl Kernel {

    /// `add_to_swap`: allocate a slot (charging memcg swap) and put the
    /// folio in the swap cache, dirty. False if swap is full or the
    /// memcg's swap.max would be exceeded.
    pub fn add_to_swap(&mut self, pfn: u32) -> bool {
        let f = *self.folios.get(pfn);
        if self.swap.as_ref().is_some_and(|sw| sw.vm_swap_full()) {
            self.swap_reclaim_full_clusters();
        }
        let Some(sw) = self.swap.as_mut() else { return false };
        let Some(slot) = sw.alloc(f.memcg) else {
            return false;
        };
        // mem_cgroup_try_charge_swap
        if f.memcg != ROOT_MEMCG {
            let mut m = f.memcg;
            let mut over = None;
            while m != ROOT_MEMCG {
                let c = &self.memcgs[m as usize];
                if c.swap_max != PAGE_COUNTER_MAX && c.swap_usage + 1 > c.swap_max {
                    over = Some(m);
                    break;
                }
                m = c.parent;
            }
            if let Some(_o) = over {
                // MEMCG_SWAP_MAX / MEMCG_SWAP_FAIL are memory.swap.events: not modelled.
                self.swap.as_mut().unwrap().free(slot);
                return false;
            }
        }
        self.swap_charge(f.memcg, 1);
        let sw = self.swap.as_mut().unwrap();
        sw.owner[slot as usize] = (f.mapping, f.index);
        self.add_to_swap_cache(pfn, slot);
        self.folios.get_mut(pfn).set(pg::DIRTY);
        true
    }

    /// `add_to_swap_cache`.
    pub fn add_to_swap_cache(&mut self, pfn: u32, slot: u32) {
        self.swap_set_entry(slot, SLOT_USED | SLOT_CACHED | pfn as u64);
        let f = self.folios.get_mut(pfn);
        f.set(pg::SWAPCACHE);
        f.swap = slot + 1;
        let m = f.memcg as usize;
        self.memcgs[m].st.add(St::SwapCached, 1);
        self.memcgs[m].st.add(St::FilePages, 1);
    }

    /// `__delete_from_swap_cache`, leaving `shadow` (0 = none) in the slot.
    pub fn delete_from_swap_cache(&mut self, pfn: u32, shadow: u64) {
        let f = *self.folios.get(pfn);
        let slot = f.swap - 1;
        let sw = self.swap.as_mut().unwrap();
        let orphan = sw.entry(slot) & SLOT_ORPHAN != 0;
        self.swap_set_entry(slot, SLOT_USED | if shadow != 0 { SLOT_SHADOW | (shadow & SLOT_VALUE) } else { 0 });
        let fm = self.folios.get_mut(pfn);
        fm.clear(pg::SWAPCACHE);
        fm.swap = 0;
        self.memcgs[f.memcg as usize].st.add(St::SwapCached, -1);
        self.memcgs[f.memcg as usize].st.add(St::FilePages, -1);
        if orphan {
            self.swap_slot_free(slot);
        }
    }


    /// Allocate a folio for swap slot `slot`, charge it to the slot's
    /// memcg, apply its shadow, add it to the LRU and read it. With
    /// `to_cache` it joins the swap cache (`__read_swap_cache_async`).
    pub fn swapin_new_folio(&mut self, slot: u32, to_cache: bool) -> Option<u32> {
        let sw = self.swap.as_ref().unwrap();
        let memcg = sw.memcg[slot as usize];
        let pfn = self.alloc_folio(memcg, Gfp::Normal)?;
        // The allocation may have reclaimed, or OOM-killed the slot's
        // owner, whose exit freed the slot; or another fault brought it into
        // the swap cache meanwhile. As swapcache_prepare() would then fail
        // in __read_swap_cache_async, the new folio is put back.
        let entry = self.swap.as_ref().unwrap().entry(slot);
        if entry & crate::swapfile::SLOT_USED == 0 || entry & crate::swapfile::SLOT_CACHED != 0 {
            self.free_folio(pfn);
            return None;
        }
        // The folio needs its owner (region, page) for rmap, from the
        // slot's owner table; a shmem page's owner is its file
        // (crate::shmem), and its folio is not anon.
        let (owner, index) = self.swap_owner(slot);
        {
            let f = self.folios.get_mut(pfn);
            if owner & crate::shmem::OWNER_SHMEM != 0 {
                f.set(pg::SWAPBACKED | pg::UPTODATE);
                f.mapping = owner & !crate::shmem::OWNER_SHMEM;
            } else {
                f.set(pg::ANON | pg::SWAPBACKED | pg::UPTODATE);
                f.mapping = owner;
            }
            f.index = index;
        }
        if to_cache {
            self.add_to_swap_cache(pfn, slot);
        }
        if entry & crate::swapfile::SLOT_SHADOW != 0 {
            self.workingset_refault(pfn, entry & crate::swapfile::SLOT_VALUE);
            if !to_cache {
                // The shadow goes with the swap-cache slot it sat in.
                let e = self.swap.as_ref().unwrap().entry(slot);
                self.swap_set_entry(slot, e & !(crate::swapfile::SLOT_SHADOW | crate::swapfile::SLOT_VALUE));
            }
        }
        self.folio_add_lru(pfn);
        self.ev.add(Ev::Pswpin, 1);
        (self.steps.count_swap_bio)(self, Ev::Pgpgin);
        Some(pfn)
    }

    /// `swap_vma_readahead` around the faulting page; returns the target.
    pub(crate) fn swapin_readahead(&mut self, region: u32, page: u64, slot: u32) -> Option<u32> {
        let (start, end, win) = self.swap_vma_ra_win(region, page);
        if win > 1 {
            // The window in address order, the target among the others;
            // only the others are marked PG_readahead. Then the drain.
            let v = &self.vmas[region as usize];
            let (task, vstart) = (v.task, v.start);
            let pgd = self.tasks[task as usize].pgd;
            for p in start..end {
                let e = self.pt.get(pgd, vstart + (p << 12));
                if !pte::is_swap(e) {
                    continue;
                }
                let s = e & pte::VALUE;
                if self.swap.as_ref().unwrap().entry(s) & crate::swapfile::SLOT_CACHED != 0 {
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
        if e & crate::swapfile::SLOT_CACHED != 0 {
            return Some((e & crate::swapfile::SLOT_VALUE) as u32);
        }
        self.swapin_new_folio(slot, true)
    }

    /// `swap_vma_ra_win`: returns the page range [start, end) to read and
    /// the window it was cut from.
    pub(crate) fn swap_vma_ra_win(&mut self, region: u32, page: u64) -> (u64, u64, u64) {
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
    pub(crate) fn vma_swap_ra_hit(&mut self, region: u32, page: u64, readahead: bool) {
        const SWAP_RA_HITS_MAX: u32 = (1 << (crate::kernel::PAGE_SHIFT / 2)) - 1;
        let v = &mut self.vmas[region as usize];
        v.swap_ra.0 = (v.start >> 12) + page;
        if readahead {
            v.swap_ra.2 = (v.swap_ra.2 + 1).min(SWAP_RA_HITS_MAX);
        }
    }
}

