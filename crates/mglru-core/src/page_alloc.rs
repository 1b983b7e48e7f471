// SPDX-License-Identifier: GPL-2.0-only
//! The page allocator's reclaim-relevant behaviour (mm/page_alloc.c).

use crate::folio::{pg, NR_ZONES};
use crate::lruvec::{ANON, FILE};
use crate::memcontrol::ROOT_MEMCG;
use crate::kernel::{Kernel, MAX_RECLAIM_RETRIES};
use crate::memcontrol::NO_MEMCG;
use crate::stat::Ev;

/// How hard an allocation may try (the parts of `gfp_t` that matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfp {
    /// `GFP_KERNEL`/`GFP_HIGHUSER_MOVABLE`: reclaim, retry, OOM.
    Normal,
    /// `__GFP_NORETRY` (readahead): one reclaim attempt, never OOM.
    NoRetry,
}

/// Watermark indexes (`enum zone_watermarks`).
pub const WMARK_MIN: usize = 0;
pub const WMARK_LOW: usize = 1;
pub const WMARK_HIGH: usize = 2;

impl Kernel {
    /// `zone_watermark_ok` for an order-0 request that may use the highest
    /// zone (what every allocation of the model may): zone `z` has more
    /// free pages than `mark` plus what it keeps back for such requests.
    #[inline]
    pub fn zone_watermark_ok(&self, z: usize, mark: u64) -> bool {
        self.nr_free_available(z) > mark + self.zones[z].lowmem_reserve
    }

    /// Allocate one page and charge it to `memcg`; None if both failed
    /// for good. Order as in the kernel: the page first
    /// (`alloc_pages`), then the charge (`mem_cgroup_charge`).
    pub fn alloc_folio(&mut self, memcg: u16, gfp: Gfp) -> Option<u32> {
        let pfn = self.alloc_page(gfp)?;
        // PGALLOC is counted when the page leaves the free lists
        // (rmqueue), whether or not the charge then succeeds.
        self.count_pgalloc(pfn);
        if !self.try_charge(memcg, 1, gfp) {
            // The folio is put back: folio_put counts pgfree.
            self.ev.add(Ev::Pgfree, 1);
            self.folios.free(pfn);
            self.sim.failed_allocations += 1;
            return None;
        }
        self.folios.get_mut(pfn).memcg = memcg;
        Some(pfn)
    }

    /// `pgalloc_<zone>` for a page just taken from the free lists.
    fn count_pgalloc(&mut self, pfn: u32) {
        let e = match self.folios.zone_of(pfn) {
            crate::kernel::ZONE_DMA => Ev::PgallocDma,
            crate::kernel::ZONE_DMA32 => Ev::PgallocDma32,
            _ => Ev::PgallocNormal,
        };
        self.ev.add(e, 1);
    }

    /// Give a folio back: uncharge and free (`free_unref_folios` +
    /// `mem_cgroup_uncharge`). The caller unlinked it from everything.
    pub fn free_folio(&mut self, pfn: u32) {
        self.mlock_folio_freed(pfn);
        let f = *self.folios.get(pfn);
        debug_assert!(f.flags & (pg::LRU | pg::IN_BATCH) == 0, "freeing a folio still on an LRU: {:?}", f);
        debug_assert!(!f.test(pg::BUFFERS), "freeing a folio with buffers: {:?}", f);
        self.page_counter_uncharge(f.memcg, 1);
        self.ev.add(Ev::Pgfree, 1);
        if self.in_kswapd {
            let z = self.folios.zone_of(pfn);
            self.kswapd_freed(z);
        }
        self.folios.free(pfn);
    }

    /// A page-table page (`pagetable_alloc(GFP_PGTABLE_USER)`): a page
    /// from the zones like any other (GFP_KERNEL: may reclaim, may OOM);
    /// its memcg charge is the caller's. None if no page could be had.
    pub(crate) fn alloc_pgtable_page(&mut self) -> Option<u32> {
        let pfn = self.alloc_page(Gfp::Normal)?;
        self.count_pgalloc(pfn);
        let f = self.folios.get_mut(pfn);
        f.set(pg::PGTABLE);
        f.memcg = NO_MEMCG;
        Some(pfn)
    }

    /// A page-table page freed (`pagetable_free`).
    pub(crate) fn free_pgtable_page(&mut self, pfn: u32) {
        debug_assert!(self.folios.get(pfn).test(pg::PGTABLE));
        self.ev.add(Ev::Pgfree, 1);
        self.folios.free(pfn);
    }

    /// A write to swap slot `slot` of a RAM-backed device
    /// (`brd_insert_page`): the first write of a slot takes a page of
    /// memory (`GFP_NOIO | __GFP_HIGHMEM`, in reclaim's `PF_MEMALLOC`
    /// context: the low watermark, then min, then the reserves) that
    /// stays the device's. False if no page could be had (-ENOMEM: the write fails).
    pub(crate) fn swap_device_store(&mut self, slot: u32) -> bool {
        match &self.swap {
            Some(s) if s.zram.is_some() => return self.zram_write_page(slot),
            Some(s) if s.ram && !s.stored[slot as usize] => {}
            _ => return true,
        }
        let Some(pfn) = self.alloc_page(Gfp::NoRetry) else {
            return false;
        };
        self.count_pgalloc(pfn);
        let f = self.folios.get_mut(pfn);
        f.set(pg::DEVICE);
        f.memcg = NO_MEMCG;
        let s = self.swap.as_mut().expect("checked above");
        s.stored[slot as usize] = true;
        s.nr_stored += 1;
        true
    }

    /// `zram_write_page` of slot `slot`: the compressed page goes into the
    /// zsmalloc pool, which takes a new zspage (all its pages at once,
    /// `alloc_zspage`) when the stored objects no longer fit. The pages
    /// come like brd's, in reclaim's context (`__GFP_KSWAPD_RECLAIM`, no
    /// direct reclaim: the low watermark, then min, then the reserves),
    /// and belong to no memcg. A slot written again (its folio redirtied
    /// and reclaimed anew) replaces its object by one of the same size.
    /// False if a zspage could not be had (-ENOMEM: the write fails).
    pub(crate) fn zram_write_page(&mut self, slot: u32) -> bool {
        let s = self.swap.as_ref().expect("zram device");
        if s.stored[slot as usize] {
            return true;
        }
        let z = s.zram.as_ref().expect("zram device");
        let need = z.pages_for(s.nr_stored + 1);
        let have = z.pfns.len() as u64;
        if need > have {
            debug_assert_eq!(need - have, u64::from(z.pages_per_zspage));
            let mut got = Vec::with_capacity((need - have) as usize);
            while (got.len() as u64) < need - have {
                match self.alloc_page(Gfp::NoRetry) {
                    Some(pfn) => {
                        self.count_pgalloc(pfn);
                        let f = self.folios.get_mut(pfn);
                        f.set(pg::DEVICE);
                        f.memcg = NO_MEMCG;
                        got.push(pfn);
                    }
                    None => {
                        // alloc_zspage fails whole: its pages go back.
                        for pfn in got {
                            self.free_device_page(pfn);
                        }
                        return false;
                    }
                }
            }
            self.swap.as_mut().unwrap().zram.as_mut().unwrap().pfns.extend(got);
        }
        let s = self.swap.as_mut().unwrap();
        s.stored[slot as usize] = true;
        s.nr_stored += 1;
        true
    }

    /// `zram_free_page` of a freed slot: its object leaves the pool, and a
    /// zspage no object needs any more goes back to the zones.
    pub(crate) fn zram_free_page(&mut self, slot: u32) {
        let s = self.swap.as_mut().unwrap();
        debug_assert!(s.stored[slot as usize]);
        s.stored[slot as usize] = false;
        s.nr_stored -= 1;
        let z = s.zram.as_ref().unwrap();
        let keep = z.pages_for(s.nr_stored) as usize;
        let freed: Vec<u32> = s.zram.as_mut().unwrap().pfns.split_off(keep);
        for pfn in freed {
            self.free_device_page(pfn);
        }
    }

    /// A swap device's page back to the zones.
    fn free_device_page(&mut self, pfn: u32) {
        debug_assert!(self.folios.get(pfn).test(pg::DEVICE));
        self.ev.add(Ev::Pgfree, 1);
        if self.in_kswapd {
            let z = self.folios.zone_of(pfn);
            self.kswapd_freed(z);
        }
        self.folios.free(pfn);
    }

    /// `get_page_from_freelist` at watermark `mark` (0 min, 1 low): the
    /// zonelist from the highest zone down, the first zone above its
    /// watermark and reserve gives the page.
    #[inline]
    fn get_page_from_freelist(&mut self, mark: usize) -> Option<u32> {
        for z in (0..NR_ZONES).rev() {
            if self.zone_watermark_ok(z, self.zones[z].wmark[mark]) {
                return self.folios.alloc(z);
            }
        }
        None
    }

    /// `zone_reclaimable_pages`: the zone's file LRU pages, and its anon
    /// ones when swap has room (`can_reclaim_anon_pages(NULL)`); a zone
    /// with neither counts its free pages instead (6.12.117).
    pub fn zone_reclaimable_pages(&self, z: usize) -> u64 {
        let mut nr = self.zone_lru[z][FILE];
        if self.can_reclaim_anon_pages(ROOT_MEMCG) {
            nr += self.zone_lru[z][ANON];
        }
        if nr == 0 {
            nr = self.nr_free_available(z);
        }
        nr
    }

    /// `should_reclaim_retry` for an order-0 request: give up after
    /// MAX_RECLAIM_RETRIES rounds without progress, or at once when no
    /// zone could get above its min watermark even if every reclaimable
    /// page were freed (then the OOM killer). No highatomic reserves to
    /// give back in the model.
    pub fn should_reclaim_retry(&self, did_some_progress: bool, no_progress_loops: &mut u32) -> bool {
        if did_some_progress {
            *no_progress_loops = 0;
        } else {
            *no_progress_loops += 1;
        }
        if *no_progress_loops > MAX_RECLAIM_RETRIES {
            return false;
        }
        (0..NR_ZONES).rev().filter(|&z| self.zones[z].managed > 0).any(|z| {
            let available = self.zone_reclaimable_pages(z) + self.nr_free_available(z);
            available > self.zones[z].wmark[WMARK_MIN] + self.zones[z].lowmem_reserve
        })
    }

    /// `ALLOC_NO_WATERMARKS`: any free page, highest zone first.
    fn alloc_no_watermarks(&mut self) -> Option<u32> {
        for z in (0..NR_ZONES).rev() {
            if self.folios.nr_free_zone(z) > 0 {
                return self.folios.alloc(z);
            }
        }
        None
    }

    /// `__alloc_pages`: fast path at the low watermark, then the slow
    /// path: wake kswapd, retry at min, direct reclaim, OOM.
    fn alloc_page(&mut self, gfp: Gfp) -> Option<u32> {
        if let Some(p) = self.get_page_from_freelist(WMARK_LOW) {
            return Some(p);
        }
        if self.in_reclaim {
            // PF_MEMALLOC: the slow path's first try at the min watermark,
            // then reclaim's own allocations dip into the reserves
            // (__gfp_pfmemalloc_flags: ALLOC_NO_WATERMARKS).
            if let Some(p) = self.get_page_from_freelist(WMARK_MIN) {
                return Some(p);
            }
            return self.alloc_no_watermarks();
        }
        // __alloc_pages_slowpath. wake_all_kswapds; kswapd, woken, starts
        // beside this task (crate::kswapd).
        self.wakeup_kswapd();
        self.kswapd_run_due();
        if let Some(p) = self.get_page_from_freelist(WMARK_MIN) {
            return Some(p);
        }
        let mut no_progress_loops = 0;
        let mut oom_passes = 0;
        loop {
            // __alloc_pages_direct_reclaim: the free lists are tried again
            // only when reclaim made progress. Its drain_all_pages() before
            // a second try has nothing to drain: the model keeps no per-CPU
            // free lists (simplification 3).
            self.psi_memstall_enter();
            let reclaimed = self.try_to_free_pages();
            self.psi_memstall_leave();
            if reclaimed > 0 {
                if let Some(p) = self.get_page_from_freelist(WMARK_MIN) {
                    return Some(p);
                }
            }
            if gfp == Gfp::NoRetry {
                self.sim.failed_allocations += 1;
                return None;
            }
            if self.should_reclaim_retry(reclaimed > 0, &mut no_progress_loops) {
                // retry: wake kswapd again (it must not sleep while the
                // allocator loops), the free lists at the min watermark,
                // then reclaim.
                self.wakeup_kswapd();
                self.kswapd_run_due();
                if let Some(p) = self.get_page_from_freelist(WMARK_MIN) {
                    return Some(p);
                }
                continue;
            }
            // __alloc_pages_may_oom: one more try at the high watermark
            // (it catches a parallel OOM kill's freed memory), then the
            // OOM killer.
            if let Some(p) = self.get_page_from_freelist(WMARK_HIGH) {
                return Some(p);
            }
            if oom_passes < 8 && self.out_of_memory(None) {
                // did_some_progress: back to retry.
                oom_passes += 1;
                no_progress_loops = 0;
                if let Some(p) = self.get_page_from_freelist(WMARK_MIN) {
                    return Some(p);
                }
                continue;
            }
            // No victim: the kernel would loop or fail; take a page below min
            // if one exists, else fail the access.
            if let Some(p) = self.alloc_no_watermarks() {
                return Some(p);
            }
            self.sim.failed_allocations += 1;
            return None;
        }
    }
}
