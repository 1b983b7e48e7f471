// SPDX-License-Identifier: GPL-2.0-only
//! The page allocator's reclaim-relevant behaviour (mm/page_alloc.c) and
//! memcg charging (mm/memcontrol.c).

use crate::folio::{pg, NR_ZONES};
use crate::kernel::{Kernel, MAX_RECLAIM_RETRIES, NSEC_PER_JIFFY, HZ, SWAP_CLUSTER_MAX};
use crate::memcg::{MemcgEvent, MEMCG_CHARGE_BATCH, NO_MEMCG, PAGE_COUNTER_MAX, ROOT_MEMCG};
use crate::stat::Ev;

/// Bound on charge retry loops that the kernel leaves unbounded (it relies
/// on the scheduler; a model must terminate).
const CHARGE_LOOP_BOUND: u32 = 1000;

/// How hard an allocation may try (the parts of `gfp_t` that matter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfp {
    /// `GFP_KERNEL`/`GFP_HIGHUSER_MOVABLE`: reclaim, retry, OOM.
    Normal,
    /// `__GFP_NORETRY` (readahead): one reclaim attempt, never OOM.
    NoRetry,
}

impl Kernel {
    /// `zone_watermark_ok` for an order-0 request that may use the highest
    /// zone (what every allocation of the model may): zone `z` has more
    /// free pages than `mark` plus what it keeps back for such requests.
    #[inline]
    pub fn zone_watermark_ok(&self, z: usize, mark: u64) -> bool {
        self.folios.nr_free_zone(z) > mark + self.zones[z].lowmem_reserve
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
        let f = *self.folios.get(pfn);
        debug_assert!(f.flags & (pg::LRU | pg::IN_BATCH) == 0, "freeing a folio still on an LRU: {:?}", f);
        debug_assert!(!f.test(pg::BUFFERS), "freeing a folio with buffers: {:?}", f);
        self.page_counter_uncharge(f.memcg, 1);
        self.ev.add(Ev::Pgfree, 1);
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
        if let Some(p) = self.get_page_from_freelist(1) {
            return Some(p);
        }
        if self.in_reclaim {
            // PF_MEMALLOC: the slow path's first try at the min watermark,
            // then reclaim's own allocations dip into the reserves
            // (__gfp_pfmemalloc_flags: ALLOC_NO_WATERMARKS).
            if let Some(p) = self.get_page_from_freelist(0) {
                return Some(p);
            }
            return self.alloc_no_watermarks();
        }
        // wake_all_kswapds: kswapd runs to completion here (docs/FIDELITY.md).
        self.wakeup_kswapd();
        if let Some(p) = self.get_page_from_freelist(0) {
            return Some(p);
        }
        let mut no_progress_loops = 0;
        let mut oom_passes = 0;
        loop {
            let reclaimed = self.try_to_free_pages();
            if let Some(p) = self.get_page_from_freelist(0) {
                return Some(p);
            }
            if gfp == Gfp::NoRetry {
                self.sim.failed_allocations += 1;
                return None;
            }
            // should_reclaim_retry: keep going while reclaim makes progress,
            // at most MAX_RECLAIM_RETRIES rounds without.
            if reclaimed == 0 {
                no_progress_loops += 1;
            } else {
                no_progress_loops = 0;
            }
            if no_progress_loops <= MAX_RECLAIM_RETRIES {
                continue;
            }
            // __alloc_pages_may_oom
            if oom_passes < 8 && self.out_of_memory(None) {
                oom_passes += 1;
                no_progress_loops = 0;
                if let Some(p) = self.get_page_from_freelist(0) {
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

    // ---- memcg page counters ------------------------------------------

    /// `page_counter_try_charge` on the memory counter: charge `nr` pages
    /// up the hierarchy, or return the first ancestor whose max would be
    /// exceeded (nothing charged then).
    fn page_counter_try_charge(&mut self, memcg: u16, nr: u64) -> Result<(), u16> {
        let mut m = memcg;
        loop {
            let c = &self.memcgs[m as usize];
            if m != ROOT_MEMCG && c.usage + nr > c.max {
                // undo the levels below
                let mut u = memcg;
                while u != m {
                    self.memcgs[u as usize].usage -= nr;
                    u = self.memcgs[u as usize].parent;
                }
                return Err(m);
            }
            let c = &mut self.memcgs[m as usize];
            c.usage += nr;
            if c.usage > c.watermark {
                c.watermark = c.usage;
            }
            if m == ROOT_MEMCG {
                return Ok(());
            }
            m = c.parent;
        }
    }

    pub fn page_counter_uncharge(&mut self, memcg: u16, nr: u64) {
        let mut m = memcg;
        loop {
            let c = &mut self.memcgs[m as usize];
            debug_assert!(c.usage >= nr, "memcg {} usage underflow", c.name);
            c.usage -= nr;
            if m == ROOT_MEMCG {
                return;
            }
            m = c.parent;
        }
    }

    /// `consume_stock`.
    fn consume_stock(&mut self, memcg: u16, nr: u64) -> bool {
        if nr > MEMCG_CHARGE_BATCH {
            return false;
        }
        if self.stock.memcg == memcg && self.stock.nr_pages >= nr {
            self.stock.nr_pages -= nr;
            return true;
        }
        false
    }

    /// `drain_stock`: return the cached pre-charge.
    pub fn drain_stock(&mut self) {
        if self.stock.memcg != NO_MEMCG && self.stock.nr_pages > 0 {
            let (m, n) = (self.stock.memcg, self.stock.nr_pages);
            self.page_counter_uncharge(m, n);
        }
        self.stock.nr_pages = 0;
        self.stock.memcg = NO_MEMCG;
    }

    /// `refill_stock`.
    pub(crate) fn refill_stock(&mut self, memcg: u16, nr: u64) {
        if self.stock.memcg != memcg {
            self.drain_stock();
            self.stock.memcg = memcg;
        }
        self.stock.nr_pages += nr;
        if self.stock.nr_pages > MEMCG_CHARGE_BATCH {
            self.drain_stock();
        }
    }

    /// A reclaimable slab object of `bytes` allocated for `memcg`
    /// (`__GFP_ACCOUNT`: `obj_cgroup_charge`). memory.stat counts the
    /// bytes; the memory counter holds whole pages, one more each time the
    /// bytes cross a page boundary (the per-CPU object stock keeps the
    /// rest), taken from the memcg's page stock when it has them.
    /// Simplification (docs/FIDELITY.md): the charge never reclaims — a
    /// page over the limit is forced, and the next folio charge reclaims
    /// it back — and the slab pages take no simulated RAM. The root memcg
    /// counts the bytes only, as it charges nothing in cgroup v2.
    pub(crate) fn memcg_slab_charge(&mut self, memcg: u16, bytes: u64) {
        let c = &mut self.memcgs[memcg as usize];
        c.slab_bytes += bytes;
        if memcg == ROOT_MEMCG {
            return;
        }
        let need = c.slab_bytes.div_ceil(crate::kernel::PAGE_SIZE);
        if need > c.slab_pages {
            let n = need - c.slab_pages;
            c.slab_pages = need;
            if !self.consume_stock(memcg, n) {
                self.force_charge(memcg, n);
            }
        }
    }

    /// The object freed (`obj_cgroup_uncharge`): pages the bytes no longer
    /// fill go back through the page stock (`obj_cgroup_uncharge_pages`).
    pub(crate) fn memcg_slab_uncharge(&mut self, memcg: u16, bytes: u64) {
        let c = &mut self.memcgs[memcg as usize];
        debug_assert!(c.slab_bytes >= bytes);
        c.slab_bytes -= bytes;
        if memcg == ROOT_MEMCG {
            return;
        }
        let need = c.slab_bytes.div_ceil(crate::kernel::PAGE_SIZE);
        if c.slab_pages > need {
            let n = c.slab_pages - need;
            c.slab_pages = need;
            self.refill_stock(memcg, n);
        }
    }

    /// A task's page tables freed at exit (they were charged by
    /// `pte_alloc`): the pages go back through the page stock.
    pub(crate) fn memcg_pgtable_uncharge(&mut self, memcg: u16, n: u64) {
        if memcg == ROOT_MEMCG || n == 0 {
            return;
        }
        let c = &mut self.memcgs[memcg as usize];
        debug_assert!(c.pgtable_pages >= n);
        c.pgtable_pages -= n;
        self.refill_stock(memcg, n);
    }

    /// `mem_cgroup_margin`: pages left under max (memory counter).
    pub fn mem_cgroup_margin(&self, memcg: u16) -> u64 {
        let c = &self.memcgs[memcg as usize];
        c.max.saturating_sub(c.usage)
    }

    pub fn memcg_memory_event(&mut self, memcg: u16, e: MemcgEvent) {
        self.memcgs[memcg as usize].mem_events_local[e as usize] += 1;
        // memory.events is hierarchical in cgroup v2, up to (not into) the root.
        let mut m = memcg;
        while m != ROOT_MEMCG {
            self.memcgs[m as usize].mem_events[e as usize] += 1;
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `try_charge_memcg` for `nr` pages; false when the charge failed
    /// for good (`-ENOMEM`).
    pub fn try_charge(&mut self, memcg: u16, nr: u64, gfp: Gfp) -> bool {
        if memcg == ROOT_MEMCG {
            // The root memcg does not account charges in v2, but its
            // counter still sums the whole machine for reports.
            let _ = self.page_counter_try_charge(ROOT_MEMCG, nr);
            return true;
        }
        let batch_max = MEMCG_CHARGE_BATCH.max(nr);
        let mut nr_retries = MAX_RECLAIM_RETRIES;
        let mut drained = false;
        let mut passed_oom = false;
        // The batch drops to `nr` after a failed attempt and stays there
        // for every retry (try_charge_memcg).
        let mut batch = batch_max;
        for _ in 0..CHARGE_LOOP_BOUND {
            if self.consume_stock(memcg, nr) {
                return true;
            }
            let res = match self.page_counter_try_charge(memcg, batch) {
                Ok(()) => Ok(()),
                Err(over) => {
                    if batch > nr {
                        batch = nr;
                        self.page_counter_try_charge(memcg, batch)
                    } else {
                        Err(over)
                    }
                }
            };
            let over = match res {
                Ok(()) => {
                    if batch > nr {
                        self.refill_stock(memcg, batch - nr);
                    }
                    self.check_high_after_charge(memcg, batch);
                    return true;
                }
                Err(over) => over,
            };
            if self.in_reclaim {
                // PF_MEMALLOC tasks may not recurse; the kernel lets
                // reclaimers' charges fail over to force.
                return self.force_charge(memcg, nr);
            }
            self.memcg_memory_event(over, MemcgEvent::Max);
            let nr_reclaimed = self.try_to_free_mem_cgroup_pages(over, nr, true, false);
            if self.mem_cgroup_margin(over) >= nr {
                continue;
            }
            if !drained {
                self.drain_stock();
                drained = true;
                continue;
            }
            if gfp == Gfp::NoRetry {
                return false;
            }
            if nr_reclaimed > 0 && nr <= 8 {
                continue;
            }
            if nr_retries > 0 {
                nr_retries -= 1;
                continue;
            }
            if passed_oom && !self.tasks[self.current as usize].alive {
                return false;
            }
            if self.out_of_memory(Some(over)) {
                passed_oom = true;
                nr_retries = MAX_RECLAIM_RETRIES;
                continue;
            }
            // mem_cgroup_oom found nothing to kill: the kernel bypasses
            // the limit for an exiting task and fails the charge
            // otherwise (the fault then returns VM_FAULT_OOM).
            return false;
        }
        false
    }

    /// Charge past the limit (`force:` in try_charge_memcg).
    fn force_charge(&mut self, memcg: u16, nr: u64) -> bool {
        let mut m = memcg;
        loop {
            let c = &mut self.memcgs[m as usize];
            c.usage += nr;
            if c.usage > c.watermark {
                c.watermark = c.usage;
            }
            if m == ROOT_MEMCG {
                return true;
            }
            m = c.parent;
        }
    }

    /// The memory.high check at the end of a successful charge.
    fn check_high_after_charge(&mut self, memcg: u16, batch: u64) {
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                self.nr_pages_over_high += batch;
                break;
            }
            m = c.parent;
        }
        if self.nr_pages_over_high > MEMCG_CHARGE_BATCH && !self.in_reclaim {
            self.mem_cgroup_handle_over_high();
        }
    }

    /// `reclaim_high`: reclaim every over-high memcg from `memcg` up to
    /// (not including) the root.
    fn reclaim_high(&mut self, memcg: u16, nr: u64) -> u64 {
        let mut reclaimed = 0;
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                self.memcg_memory_event(m, MemcgEvent::High);
                reclaimed += self.try_to_free_mem_cgroup_pages(m, nr, true, false);
            }
            m = self.memcgs[m as usize].parent;
        }
        reclaimed
    }

    /// `calculate_high_delay` in jiffies for `nr_pages` over high.
    fn calculate_high_delay(&self, memcg: u16, nr_pages: u64) -> u64 {
        const PRECISION_SHIFT: u32 = 20;
        const SCALING_SHIFT: u32 = 14;
        let mut max_overage: u64 = 0;
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                let high = c.high.max(1);
                let overage = ((c.usage - high) << PRECISION_SHIFT) / high;
                max_overage = max_overage.max(overage);
            }
            m = c.parent;
        }
        if max_overage == 0 {
            return 0;
        }
        let mut penalty = ((max_overage as u128 * max_overage as u128 * HZ as u128)
            >> (PRECISION_SHIFT + SCALING_SHIFT)) as u64;
        penalty = penalty * nr_pages / MEMCG_CHARGE_BATCH;
        penalty.min(2 * HZ)
    }

    /// `mem_cgroup_handle_over_high`, run when the task returns to user
    /// space (end of a trace operation) or mid-charge past a batch.
    pub fn mem_cgroup_handle_over_high(&mut self) {
        let nr_pages = self.nr_pages_over_high;
        if nr_pages == 0 {
            return;
        }
        self.nr_pages_over_high = 0;
        let memcg = self.tasks[self.current as usize].memcg;
        let mut nr_retries = MAX_RECLAIM_RETRIES;
        let mut in_retry = false;
        loop {
            let reclaimed = self.reclaim_high(memcg, if in_retry { SWAP_CLUSTER_MAX } else { nr_pages });
            let penalty = self.calculate_high_delay(memcg, nr_pages);
            if penalty <= HZ / 100 {
                return;
            }
            if reclaimed > 0 || nr_retries > 0 {
                if reclaimed == 0 {
                    nr_retries -= 1;
                }
                in_retry = true;
                continue;
            }
            // Throttle the allocating task: it sleeps in simulated time.
            self.spend(penalty * NSEC_PER_JIFFY);
            return;
        }
    }
}
