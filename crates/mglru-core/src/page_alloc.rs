// SPDX-License-Identifier: GPL-2.0-only
//! The page allocator's reclaim-relevant behaviour (mm/page_alloc.c).

use crate::buddy::{MAX_PAGE_ORDER, MIGRATE_MOVABLE, MIGRATE_PCPTYPES, MIGRATE_UNMOVABLE, PAGEBLOCK_NR_PAGES, PAGEBLOCK_ORDER};
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
    /// The free count read is the zone's `NR_FREE_PAGES` counter, without
    /// the CPUs' differences not yet folded (crate::vmstat).
    #[inline]
    pub fn zone_watermark_ok(&self, z: usize, mark: u64) -> bool {
        self.held_back(z, self.zone_free_state(z)) > mark + self.zones[z].lowmem_reserve
    }

    /// `wmark_pages(zone, i)`: watermark `i` of zone `z` with the zone's
    /// boost on top (every check the kernel makes against a watermark
    /// uses it so; /proc/zoneinfo prints it so).
    #[inline]
    pub fn wmark_pages(&self, z: usize, i: usize) -> u64 {
        self.zones[z].wmark[i] + self.zones[z].watermark_boost
    }

    /// `pgdat_watermark_boosted`: some managed zone is boosted.
    pub fn pgdat_watermark_boosted(&self) -> bool {
        self.zones.iter().any(|z| z.managed > 0 && z.watermark_boost > 0)
    }

    /// `boost_watermark`: a fallback that may claim a pageblock raises
    /// zone `z`'s watermarks by a pageblock, up to `watermark_boost_factor`
    /// / 10000 of its high watermark (at least a pageblock). Not in zones
    /// smaller than four pageblocks. True if boosted.
    fn boost_watermark(&mut self, z: usize) -> bool {
        let factor = self.sysctl.watermark_boost_factor;
        if factor == 0 {
            return false;
        }
        let zn = &mut self.zones[z];
        if u64::from(PAGEBLOCK_NR_PAGES) * 4 > zn.managed {
            return false;
        }
        // mult_frac(high, factor, 10000)
        let high = zn.wmark[WMARK_HIGH];
        let max_boost = (high / 10_000) * factor + (high % 10_000) * factor / 10_000;
        if max_boost == 0 {
            return false;
        }
        let max_boost = max_boost.max(u64::from(PAGEBLOCK_NR_PAGES));
        zn.watermark_boost = (zn.watermark_boost + u64::from(PAGEBLOCK_NR_PAGES)).min(max_boost);
        self.sim.watermark_boosts += 1;
        true
    }

    /// `alloc_flags_nofragment` for an allocation's first try: when the
    /// preferred zone (the highest populated one) is Normal, the fast
    /// path may not fall back into another type's pageblock below a
    /// whole one (ALLOC_NOFRAGMENT); it tries the lower zones first and
    /// only then again without the flag.
    #[inline]
    fn nofragment(&self) -> bool {
        self.zones[crate::kernel::ZONE_NORMAL].managed > 0
    }

    /// Allocate one page and charge it to `memcg`; None if both failed
    /// for good. Order as in the kernel: the page first
    /// (`alloc_pages`), then the charge (`mem_cgroup_charge`).
    pub fn alloc_folio(&mut self, memcg: u16, gfp: Gfp) -> Option<u32> {
        let pfn = self.alloc_page(gfp, MIGRATE_MOVABLE)?;
        // PGALLOC is counted when the page leaves the free lists
        // (rmqueue), whether or not the charge then succeeds.
        self.count_pgalloc(pfn);
        if !self.try_charge(memcg, 1, gfp) {
            // The folio is put back (folio_put; pgfree counted there).
            self.free_unref_page(pfn);
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
        self.free_unref_page(pfn);
    }

    /// A page-table page (`pagetable_alloc(GFP_PGTABLE_USER)`): an
    /// Unmovable page from the zones (GFP_KERNEL: may reclaim, may OOM);
    /// its memcg charge is the caller's. None if no page could be had.
    pub(crate) fn alloc_pgtable_page(&mut self) -> Option<u32> {
        let pfn = self.alloc_page(Gfp::Normal, MIGRATE_UNMOVABLE)?;
        self.count_pgalloc(pfn);
        let f = self.folios.get_mut(pfn);
        f.set(pg::PGTABLE);
        f.memcg = NO_MEMCG;
        Some(pfn)
    }

    /// A page-table page freed (`pagetable_free`).
    pub(crate) fn free_pgtable_page(&mut self, pfn: u32) {
        debug_assert!(self.folios.get(pfn).test(pg::PGTABLE));
        self.free_unref_page(pfn);
    }

    /// A write to swap slot `slot` of a RAM-backed device
    /// (`brd_insert_page`): the first write of a slot takes a page of
    /// memory (`GFP_NOIO | __GFP_HIGHMEM`, in reclaim's `PF_MEMALLOC`
    /// context: the low watermark, then min, then the reserves) that
    /// stays the device's. False if no page could be had (-ENOMEM: the write fails).
    /// `pfn` is the folio written: on zram its data's ratio (a shmem file's
    /// `zram_ratio`, else the device's) decides the object's size.
    pub(crate) fn swap_device_store(&mut self, slot: u32, pfn: u32) -> bool {
        match &self.swap {
            Some(s) if s.zram.is_some() => return self.zram_write_page(slot, pfn),
            Some(s) if s.ram && !s.stored[slot as usize] => {}
            _ => return true,
        }
        // brd_insert_page: alloc_page(GFP_NOIO | __GFP_HIGHMEM): Unmovable.
        let Some(pfn) = self.alloc_page(Gfp::NoRetry, MIGRATE_UNMOVABLE) else {
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
    /// The object's size is that of the folio's data: a shmem file's
    /// `zram_ratio`, the device's ratio for everything else; each size
    /// class has its own zspages (crate::swapfile::Zram).
    /// False if a zspage could not be had (-ENOMEM: the write fails).
    pub(crate) fn zram_write_page(&mut self, slot: u32, pfn: u32) -> bool {
        if self.swap.as_ref().expect("zram device").stored[slot as usize] {
            return true;
        }
        let f = *self.folios.get(pfn);
        let ratio = if f.test(pg::ANON) { None } else { self.files[f.mapping as usize].zram_ratio };
        let z = self.swap.as_mut().unwrap().zram.as_mut().expect("zram device");
        // More ratios than a device keeps apart (ZRAM_MAX_KINDS, refused
        // when the files are made) cannot arise; the device's is the fallback.
        let kind = ratio.and_then(|r| z.kind_of(r)).unwrap_or(0);
        let (class, comp_len) = (z.kinds[kind as usize].class as usize, z.kinds[kind as usize].comp_len);
        let c = &z.classes[class];
        let need = c.pages_for(c.objects + 1);
        let have = c.pfns.len() as u64;
        if need > have {
            debug_assert_eq!(need - have, u64::from(c.pages_per_zspage));
            let mut got = Vec::with_capacity((need - have) as usize);
            while (got.len() as u64) < need - have {
                // zsmalloc's pages are __GFP_MOVABLE (with compaction).
                match self.alloc_page(Gfp::NoRetry, MIGRATE_MOVABLE) {
                    Some(pfn) => {
                        self.count_pgalloc(pfn);
                        let f = self.folios.get_mut(pfn);
                        f.set(pg::DEVICE);
                        f.memcg = NO_MEMCG;
                        // __SetPageMovable: a zspage page counts as movable
                        // when a fallback weighs its pageblock (crate::buddy
                        // `pageblock_counts`).
                        f.index = 1;
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
            self.swap.as_mut().unwrap().zram.as_mut().unwrap().classes[class].pfns.extend(got);
        }
        let s = self.swap.as_mut().unwrap();
        s.stored[slot as usize] = true;
        s.nr_stored += 1;
        let z = s.zram.as_mut().unwrap();
        z.slot_kind[slot as usize] = kind;
        z.classes[class].objects += 1;
        z.compr_bytes += u64::from(comp_len);
        true
    }

    /// `zram_free_page` of a freed slot: its object leaves the pool, and a
    /// zspage no object needs any more goes back to the zones.
    pub(crate) fn zram_free_page(&mut self, slot: u32) {
        let s = self.swap.as_mut().unwrap();
        debug_assert!(s.stored[slot as usize]);
        s.stored[slot as usize] = false;
        s.nr_stored -= 1;
        let z = s.zram.as_mut().unwrap();
        let k = z.kinds[z.slot_kind[slot as usize] as usize];
        z.compr_bytes -= u64::from(k.comp_len);
        let c = &mut z.classes[k.class as usize];
        c.objects -= 1;
        let keep = c.pages_for(c.objects) as usize;
        let freed: Vec<u32> = c.pfns.split_off(keep);
        for pfn in freed {
            self.free_device_page(pfn);
        }
    }

    /// A swap device's page back to the zones.
    fn free_device_page(&mut self, pfn: u32) {
        debug_assert!(self.folios.get(pfn).test(pg::DEVICE));
        self.free_unref_page(pfn);
    }

    /// `get_page_from_freelist` at watermark `mark` (0 min, 1 low, 2
    /// high) for a page of type `mt`: the zonelist from the highest
    /// populated zone down, the first zone above its watermark and reserve
    /// that has a page gives it (from this CPU's list). On the way each
    /// zone found below its high watermark is flagged `ZONE_BELOW_HIGH`
    /// (its CPUs' lists then shrink as pages are freed). With
    /// `nofragment` (ALLOC_NOFRAGMENT) a zone whose own lists are empty
    /// gives only whole pageblocks of another type; if no zone gives a
    /// page so, every zone is tried again without the flag.
    #[inline]
    fn get_page_from_freelist(&mut self, mark: usize, mt: usize, nofragment: bool) -> Option<u32> {
        for z in (0..NR_ZONES).rev() {
            if self.zones[z].managed == 0 {
                continue;
            }
            if !self.zones[z].below_high {
                if self.zone_watermark_ok(z, self.wmark_pages(z, WMARK_HIGH)) {
                    if let Some(p) = self.rmqueue(z, mt, nofragment) {
                        return Some(p);
                    }
                    continue;
                }
                self.zones[z].below_high = true;
            }
            if self.zone_watermark_ok(z, self.wmark_pages(z, mark)) {
                if let Some(p) = self.rmqueue(z, mt, nofragment) {
                    return Some(p);
                }
            }
        }
        if nofragment {
            return self.get_page_from_freelist(mark, mt, false);
        }
        None
    }

    /// `rmqueue` of an order-0 page of type `mt` from zone `z` (its
    /// per-CPU list), then: a fallback that boosted the zone's watermarks
    /// (`ZONE_BOOSTED_WATERMARK`) wakes kswapd, which may find the node
    /// balanced but must work off the boost. Simplification
    /// (docs/FIDELITY.md): inside direct reclaim the model lets no
    /// allocation wake kswapd (crate::kswapd `wakeup_kswapd`), so there
    /// the flag stays for the next allocation outside reclaim to act on.
    #[inline]
    fn rmqueue(&mut self, z: usize, mt: usize, nofragment: bool) -> Option<u32> {
        let page = self.rmqueue_pcplist(z, mt, nofragment);
        if self.zones[z].boosted_wmark && !self.current.alloc_no_kswapd && !(self.current.in_reclaim && !self.in_kswapd) {
            self.zones[z].boosted_wmark = false;
            self.wakeup_kswapd();
        }
        page
    }

    /// `__rmqueue` of an order-0 page of type `mt` from zone `z`'s free
    /// lists: its own type's smallest chunk, else claim a block of
    /// another type, else (without ALLOC_NOFRAGMENT) steal a page of one.
    /// `mode` remembers, across a `rmqueue_bulk`, where the last page
    /// came from (`enum rmqueue_mode`): a bulk that had to steal goes on
    /// stealing without looking at its own lists again.
    fn rmqueue_buddy_page(&mut self, z: usize, mt: usize, nofragment: bool, mode: &mut RmqueueMode) -> Option<u32> {
        if *mode == RmqueueMode::Normal {
            if let Some(p) = self.folios.rmqueue_smallest(z, 0, mt) {
                return Some(p);
            }
        }
        if *mode != RmqueueMode::Steal {
            if let Some(p) = self.rmqueue_claim(z, mt, nofragment) {
                *mode = RmqueueMode::Normal;
                return Some(p);
            }
        }
        if !nofragment {
            if let Some(p) = self.rmqueue_steal(z, mt) {
                *mode = RmqueueMode::Steal;
                return Some(p);
            }
        }
        None
    }

    /// `__rmqueue_claim` (order 0): the largest free chunk of a type `mt`
    /// falls back to, if it is big enough to claim its pageblock (order ≥
    /// 4 for a Movable page, any for the others; only whole pageblocks
    /// under ALLOC_NOFRAGMENT); each try may boost the watermarks
    /// (`try_to_steal_block`). None if no block could be claimed.
    fn rmqueue_claim(&mut self, z: usize, mt: usize, nofragment: bool) -> Option<u32> {
        let min_order = if nofragment { PAGEBLOCK_ORDER } else { 0 };
        for cur in (min_order..=MAX_PAGE_ORDER).rev() {
            let Some((fallback_mt, can_steal)) = self.folios.find_suitable_fallback(z, cur, mt) else {
                continue;
            };
            if !can_steal {
                break;
            }
            let pfn = self.folios.first_chunk(z, cur, fallback_mt);
            if let Some(p) = self.try_to_steal_block(z, pfn, cur, mt) {
                self.sim.fallbacks += 1;
                self.sim.fallback_claims += 1;
                return Some(p);
            }
        }
        None
    }

    /// `try_to_steal_block` for an order-0 page of type `start_mt` from
    /// the chunk of `cur` at `pfn`: a chunk of a whole pageblock or more
    /// becomes `start_mt`'s, blocks and all. A smaller one first boosts
    /// the zone's watermarks (and flags the zone for kswapd), then claims
    /// its block if at least half of it is free or in use by pages of the
    /// same mobility (for a Movable page: pages on an LRU; for the others,
    /// from a Movable block: whatever is neither free nor on an LRU).
    fn try_to_steal_block(&mut self, z: usize, pfn: u32, cur: u32, start_mt: usize) -> Option<u32> {
        let block_mt = self.folios.pageblock_mt(pfn);
        if cur >= PAGEBLOCK_ORDER {
            self.folios.claim_whole_blocks(pfn, cur, 0, start_mt);
            return Some(pfn);
        }
        // Every allocation of the model may wake kswapd (ALLOC_KSWAPD) but
        // the last try before the OOM killer.
        if self.boost_watermark(z) && !self.current.alloc_no_kswapd {
            self.zones[z].boosted_wmark = true;
        }
        let (start, free, movable) = self.folios.pageblock_counts(z, pfn)?;
        let alike = if start_mt == MIGRATE_MOVABLE {
            movable
        } else if block_mt == MIGRATE_MOVABLE {
            PAGEBLOCK_NR_PAGES - (free + movable)
        } else {
            0
        };
        if free + alike >= PAGEBLOCK_NR_PAGES / 2 {
            self.folios.move_freepages_block(start, start_mt);
            return self.folios.rmqueue_smallest(z, 0, start_mt);
        }
        None
    }

    /// `__rmqueue_steal` (order 0): the smallest chunk of a type `mt`
    /// falls back to gives the page; the rest stays on that type's lists
    /// and the block keeps its type.
    fn rmqueue_steal(&mut self, z: usize, mt: usize) -> Option<u32> {
        for cur in 0..=MAX_PAGE_ORDER {
            let Some((fallback_mt, _)) = self.folios.find_suitable_fallback(z, cur, mt) else {
                continue;
            };
            let pfn = self.folios.first_chunk(z, cur, fallback_mt);
            self.folios.steal_chunk(pfn, cur, 0, fallback_mt);
            self.sim.fallbacks += 1;
            return Some(pfn);
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
            available > self.wmark_pages(z, WMARK_MIN) + self.zones[z].lowmem_reserve
        })
    }

    /// `ALLOC_NO_WATERMARKS`: any free page, highest zone first.
    fn alloc_no_watermarks(&mut self, mt: usize) -> Option<u32> {
        for z in (0..NR_ZONES).rev() {
            if self.zones[z].managed == 0 {
                continue;
            }
            if let Some(p) = self.rmqueue(z, mt, false) {
                return Some(p);
            }
        }
        None
    }

    /// The time a try of direct reclaim took passes before the allocator
    /// looks at the free lists again, and kswapd, a thread beside the
    /// task (`--kswapd thread`), does what falls due in it. The task's own
    /// clock moves with its reclaim anyway (`spend_reclaim`), except on an
    /// external clock (`mglru validate` following the guest's): there the
    /// guest's next reading already holds the time, so it is not charged,
    /// and without this kswapd stood still while the task tried again and
    /// again at one instant — on global-swap-brd, where swapping to brd
    /// frees no page net, 254 tries in a row, each reclaiming about 50
    /// pages, at 6.601 s (docs/FIDELITY.md simplification 2). With
    /// `--kswapd instant` nothing runs beside the task: the clock is left
    /// as it was.
    fn direct_reclaim_time_passes(&mut self) {
        let ns = std::mem::take(&mut self.current.uncharged_reclaim_ns);
        if ns == 0 || self.kswapd.mode != crate::kswapd::KswapdMode::Thread {
            return;
        }
        self.advance_to(self.now.saturating_add(ns));
        self.kswapd_run_due();
    }

    /// `__alloc_pages` of a page of type `mt`: fast path at the low
    /// watermark, then the slow path: wake kswapd, retry at min, direct
    /// reclaim, OOM.
    fn alloc_page(&mut self, gfp: Gfp, mt: usize) -> Option<u32> {
        // Without grouping by mobility (the default: docs/FIDELITY.md
        // simplification 3) every page is Movable, as every pageblock is.
        let mt = if self.migratetypes { mt } else { MIGRATE_MOVABLE };
        let nofragment = self.nofragment();
        if let Some(p) = self.get_page_from_freelist(WMARK_LOW, mt, nofragment) {
            return Some(p);
        }
        if self.current.in_reclaim {
            // PF_MEMALLOC: the slow path's first try at the min watermark,
            // then reclaim's own allocations dip into the reserves
            // (__gfp_pfmemalloc_flags: ALLOC_NO_WATERMARKS).
            if let Some(p) = self.get_page_from_freelist(WMARK_MIN, mt, false) {
                return Some(p);
            }
            return self.alloc_no_watermarks(mt);
        }
        // __alloc_pages_slowpath. wake_all_kswapds; kswapd, woken, starts
        // beside this task (crate::kswapd).
        self.wakeup_kswapd();
        self.kswapd_run_due();
        if let Some(p) = self.get_page_from_freelist(WMARK_MIN, mt, false) {
            return Some(p);
        }
        self.current.uncharged_reclaim_ns = 0;
        let mut no_progress_loops = 0;
        let mut oom_passes = 0;
        loop {
            // __alloc_pages_direct_reclaim: the free lists are tried again
            // only when reclaim made progress; a failed try drains every
            // CPU's lists (pages freed by reclaim may sit on another CPU's)
            // and tries once more.
            self.psi_memstall_enter();
            let reclaimed = self.try_to_free_pages();
            self.direct_reclaim_time_passes();
            let mut page = None;
            if reclaimed > 0 {
                page = self.get_page_from_freelist(WMARK_MIN, mt, false);
                if page.is_none() {
                    self.drain_all_pages();
                    page = self.get_page_from_freelist(WMARK_MIN, mt, false);
                }
            }
            self.psi_memstall_leave();
            if page.is_some() {
                return page;
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
                if let Some(p) = self.get_page_from_freelist(WMARK_MIN, mt, false) {
                    return Some(p);
                }
                continue;
            }
            // __alloc_pages_may_oom: one more try at the high watermark
            // (it catches a parallel OOM kill's freed memory), then the
            // OOM killer.
            // (ALLOC_WMARK_HIGH | ALLOC_CPUSET: no ALLOC_KSWAPD.)
            self.current.alloc_no_kswapd = true;
            let page = self.get_page_from_freelist(WMARK_HIGH, mt, false);
            self.current.alloc_no_kswapd = false;
            if page.is_some() {
                return page;
            }
            if oom_passes < 8 && self.out_of_memory(None) {
                // did_some_progress: back to retry.
                oom_passes += 1;
                no_progress_loops = 0;
                if let Some(p) = self.get_page_from_freelist(WMARK_MIN, mt, false) {
                    return Some(p);
                }
                continue;
            }
            // No victim: the kernel would loop or fail; take a page below min
            // if one exists, else fail the access.
            if let Some(p) = self.alloc_no_watermarks(mt) {
                return Some(p);
            }
            self.sim.failed_allocations += 1;
            return None;
        }
    }
}

// ---- Per-CPU page lists (mm/page_alloc.c's `per_cpu_pages`) ------------------

/// `CONFIG_PCP_BATCH_SCALE_MAX` (its default).
pub const PCP_BATCH_SCALE_MAX: u32 = 5;
/// `MIN_PERCPU_PAGELIST_HIGH_FRACTION`: the largest share of a zone all
/// CPUs' lists may grow to (1/8) when `pcp->high` is tuned automatically.
pub const MIN_PERCPU_PAGELIST_HIGH_FRACTION: u64 = 8;

/// One CPU's free pages of one zone (`struct per_cpu_pages`), order 0
/// only (simplification 3 of docs/FIDELITY.md: the kernel also keeps
/// lists of higher orders).
#[derive(Clone, Debug, Default)]
pub struct PerCpuPages {
    /// The pages of each migrate type (`pcp->lists`), most recently freed
    /// first (`list_add` at the head, allocation from the head,
    /// `free_pcppages_bulk` from the tail).
    pub lists: [std::collections::VecDeque<u32>; MIGRATE_PCPTYPES],
    /// `pcp->count`: pages on all the lists.
    count: u64,
    /// `pcp->high`: tuned between the zone's `high_min` and `high_max`.
    pub high: u64,
    /// `pcp->free_count`: pages freed lately without an allocation
    /// between (halved by each allocation).
    pub free_count: u64,
    /// `pcp->alloc_factor`: the batch of a refill is `batch << alloc_factor`.
    pub alloc_factor: u32,
}

impl PerCpuPages {
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }
    #[inline]
    fn push_front(&mut self, mt: usize, pfn: u32) {
        self.lists[mt].push_front(pfn);
        self.count += 1;
    }
    #[inline]
    fn push_back(&mut self, mt: usize, pfn: u32) {
        self.lists[mt].push_back(pfn);
        self.count += 1;
    }
    /// The `n` pages from `first` on, in address order, at the tail of
    /// the list of `mt`.
    #[inline]
    fn extend_back(&mut self, mt: usize, first: u32, n: u32) {
        let l = &mut self.lists[mt];
        for pfn in first..first + n {
            l.push_back(pfn);
        }
        self.count += u64::from(n);
    }
    #[inline]
    fn pop_front(&mut self, mt: usize) -> Option<u32> {
        let p = self.lists[mt].pop_front()?;
        self.count -= 1;
        Some(p)
    }
    #[inline]
    fn pop_back(&mut self, mt: usize) -> Option<u32> {
        let p = self.lists[mt].pop_back()?;
        self.count -= 1;
        Some(p)
    }
    /// Every page on the lists (for checks).
    pub fn pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.lists.iter().flatten().copied()
    }
}

/// `enum rmqueue_mode`: where a `rmqueue_bulk` found its last page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RmqueueMode {
    Normal,
    Steal,
}

/// `zone_batchsize`: about 0.1 % of the zone, at most 1 MiB, in a 2^n − 1
/// number of pages (≥ 1).
pub fn zone_batchsize(managed: u64) -> u64 {
    let mut batch = (managed >> 10).min(256) / 4;
    if batch < 1 {
        batch = 1;
    }
    let b = batch + batch / 2;
    let pow = 1u64 << (63 - b.leading_zeros());
    (pow - 1).max(1)
}

/// `zone_highsize` for a zone on a node with `cpus` CPUs (every CPU local
/// to the node, none being brought up: `cpu_online` 0, as after boot):
/// the low watermark (or the `1/fraction` share of the zone) split over
/// the CPUs, at least four batches.
pub fn zone_highsize(managed: u64, low_wmark: u64, batch: u64, cpus: u64, high_fraction: u64) -> u64 {
    let total = if high_fraction == 0 { low_wmark } else { managed / high_fraction };
    (total / cpus.max(1)).max(batch << 2)
}

impl Kernel {
    /// `zone_set_pageset_high_and_batch` (`percpu_pagelist_high_fraction`
    /// 0: `pcp->high` tuned between the low watermark's share and 1/8 of
    /// the zone's), for every zone, as at the end of boot.
    pub fn setup_zone_pagesets(&mut self) {
        let cpus = self.cpus.len() as u64;
        for z in self.zones.iter_mut() {
            let batch = zone_batchsize(z.managed);
            z.pcp_batch = batch;
            z.pcp_high_min = zone_highsize(z.managed, z.wmark[WMARK_LOW], batch, cpus, 0);
            z.pcp_high_max = zone_highsize(z.managed, z.wmark[WMARK_LOW], batch, cpus, MIN_PERCPU_PAGELIST_HIGH_FRACTION);
        }
        for c in self.cpus.iter_mut() {
            for (z, p) in c.pcp.iter_mut().enumerate() {
                p.high = p.high.max(self.zones[z].pcp_high_min);
            }
        }
    }

    /// The machine as it starts: `pcp[z]` free pages of zone `z` on the
    /// CPUs' Movable lists (crate::kernel::ZoneSpec `pcp`), oldest at the
    /// tail.
    pub(crate) fn fill_start_pcp(&mut self, pcp: &[u64; NR_ZONES]) {
        let n = self.cpus.len() as u64;
        for (z, &total) in pcp.iter().enumerate() {
            for cpu in 0..self.cpus.len() {
                let share = total / n + u64::from((cpu as u64) < total % n);
                for _ in 0..share {
                    let Some(pfn) = self.folios.rmqueue_smallest(z, 0, MIGRATE_MOVABLE) else { break };
                    self.cpus[cpu].pcp[z].push_back(MIGRATE_MOVABLE, pfn);
                }
                let p = &mut self.cpus[cpu].pcp[z];
                p.high = p.high.max(p.count());
                self.arm_vmstat_update(cpu, z);
            }
        }
    }

    /// Free pages with those on every CPU's list (the zones' free lists
    /// alone are `nr_free_pages`, NR_FREE_PAGES).
    pub fn nr_free_and_pcp_pages(&self) -> u64 {
        self.folios.nr_free() + (0..NR_ZONES).map(|z| self.nr_pcp_pages(z)).sum::<u64>()
    }

    /// Pages on every CPU's list of zone `z`.
    pub fn nr_pcp_pages(&self, z: usize) -> u64 {
        self.cpus.iter().map(|c| c.pcp[z].count()).sum()
    }

    /// `rmqueue_pcplist` for an order-0 page of type `mt` of zone `z` (the
    /// watermarks were checked): from this CPU's list of that type,
    /// refilled from the zone in a batch when empty (`rmqueue_bulk`:
    /// whatever the zone's free lists give, watermarks aside, falling
    /// back to other types' blocks). None if both are empty.
    pub(crate) fn rmqueue_pcplist(&mut self, z: usize, mt: usize, nofragment: bool) -> Option<u32> {
        let cpu = self.cpu;
        let p = &mut self.cpus[cpu].pcp[z];
        p.free_count >>= 1;
        let pfn = match p.pop_front(mt) {
            Some(pfn) => pfn,
            None => self.rmqueue_bulk(cpu, z, mt, nofragment)?,
        };
        self.folios.mark_allocated(pfn);
        Some(pfn)
    }

    /// `rmqueue_bulk` into CPU `cpu`'s empty list of type `mt` of zone
    /// `z`, then the first page of the list (None if the zone gave none).
    #[inline(never)]
    fn rmqueue_bulk(&mut self, cpu: usize, z: usize, mt: usize, nofragment: bool) -> Option<u32> {
        let n = self.nr_pcp_alloc(cpu, z);
        self.arm_vmstat_update(cpu, z);
        // The type's own chunks first (crate::buddy
        // `rmqueue_bulk_smallest`: the pages `__rmqueue_smallest` would
        // give one by one), then one at a time through the fallbacks.
        let (folios, p) = (&mut self.folios, &mut self.cpus[cpu].pcp[z]);
        let got = folios.rmqueue_bulk_smallest(z, mt, n, |first, nr| p.extend_back(mt, first, nr));
        let mut mode = RmqueueMode::Normal;
        for _ in got..n {
            match self.rmqueue_buddy_page(z, mt, nofragment, &mut mode) {
                Some(pfn) => self.cpus[cpu].pcp[z].push_back(mt, pfn),
                None => break,
            }
        }
        // The pages left the zone's free lists on this CPU (crate::vmstat).
        self.vmstat_account_free(cpu, z);
        self.cpus[cpu].pcp[z].pop_front(mt)
    }

    /// A list's `high` grew above `high_min`: `vmstat_update` will decay it
    /// from the next whole second (the work is queued while the CPU has
    /// statistics to fold, which every allocation gives it).
    #[inline]
    fn arm_vmstat_update(&mut self, cpu: usize, z: usize) {
        if self.next_vmstat == crate::kernel::VMSTAT_IDLE && self.cpus[cpu].pcp[z].high > self.zones[z].pcp_high_min {
            self.arm_vmstat();
        }
    }

    /// `vmstat_update` runs from the next whole second.
    pub(crate) fn arm_vmstat(&mut self) {
        if self.next_vmstat == crate::kernel::VMSTAT_IDLE {
            let s = crate::kernel::VMSTAT_INTERVAL_NS;
            self.next_vmstat = (self.now / s + 1).saturating_mul(s);
        }
    }

    /// `nr_pcp_alloc` (order 0): how many pages a refill takes. Each refill
    /// without a free between doubles the batch (up to 2^5 batches), and
    /// while the zone is above its high watermark the list may grow by
    /// the batch towards `high_max`.
    fn nr_pcp_alloc(&mut self, cpu: usize, z: usize) -> u64 {
        let (base, hmin, hmax, below_high) = {
            let zn = &self.zones[z];
            (zn.pcp_batch, zn.pcp_high_min, zn.pcp_high_max, zn.below_high)
        };
        let p = &mut self.cpus[cpu].pcp[z];
        p.high = kclamp(p.high, hmin, hmax);
        let mut high = p.high;
        if high < base {
            return 1;
        }
        let mut batch = base << p.alloc_factor;
        if hmin != hmax && !below_high {
            high = (high + batch).min(hmax);
            p.high = high;
        }
        let max_nr_alloc = high.saturating_sub(p.count() + base).max(base);
        if batch <= max_nr_alloc && p.alloc_factor < PCP_BATCH_SCALE_MAX {
            p.alloc_factor += 1;
        }
        batch = batch.min(max_nr_alloc);
        batch
    }

    /// `free_unref_page_commit` of an order-0 page (PGFREE) onto this
    /// CPU's list of its zone and of its pageblock's type; a CPU's lists
    /// that reach `high` give pages back to the zone, this type's first.
    pub(crate) fn free_unref_page(&mut self, pfn: u32) {
        let z = self.folios.zone_of(pfn);
        let cpu = self.cpu;
        self.ev.add(Ev::Pgfree, 1);
        self.folios.mark_free(pfn);
        let mt = self.folios.pageblock_mt(pfn);
        let base = self.zones[z].pcp_batch;
        let p = &mut self.cpus[cpu].pcp[z];
        p.alloc_factor >>= 1;
        p.push_front(mt, pfn);
        if p.free_count < base << PCP_BATCH_SCALE_MAX {
            p.free_count += 1;
        }
        let high = self.nr_pcp_high(cpu, z);
        self.arm_vmstat_update(cpu, z);
        let p = &self.cpus[cpu].pcp[z];
        if p.count() >= high {
            let n = nr_pcp_free(p.free_count, base, high);
            self.free_pcppages_bulk(cpu, z, n, mt);
            if self.zones[z].below_high && self.zone_watermark_ok(z, self.wmark_pages(z, WMARK_HIGH)) {
                self.zones[z].below_high = false;
            }
        }
    }

    /// `nr_pcp_high` (no high-order frees): the level at which the list is
    /// flushed. While kswapd reclaims the zone, or the zone is below its
    /// high watermark, `pcp->high` shrinks by the recent frees towards
    /// `high_min`; a list that fills up without that grows it to hold a
    /// batch more than the recent frees.
    fn nr_pcp_high(&mut self, cpu: usize, z: usize) -> u64 {
        let zn = self.zones[z];
        let (hmin, hmax, batch) = (zn.pcp_high_min, zn.pcp_high_max, zn.pcp_batch);
        let p = &mut self.cpus[cpu].pcp[z];
        p.high = kclamp(p.high, hmin, hmax);
        let high = p.high;
        if high == 0 {
            return 0;
        }
        if zn.reclaim_active {
            let fc = p.free_count.max(batch);
            p.high = high.saturating_sub(fc).max(hmin);
            return (batch << 2).min(p.high);
        }
        if hmin == hmax {
            return high;
        }
        if zn.below_high {
            let fc = p.free_count.max(batch);
            p.high = high.saturating_sub(fc).max(hmin);
            return p.count().max(hmin);
        }
        if p.count() >= high {
            let need = p.free_count + batch;
            if p.high < need {
                p.high = kclamp(need, hmin, hmax);
            }
        }
        high
    }

    /// `free_pcppages_bulk`: `n` pages of a CPU's lists of zone `z` go
    /// back to the zone's free lists, each list's oldest first: the list
    /// of type `first` until it is empty, then the next non-empty one in
    /// turn. Each goes back as its pageblock's type now is. Pages kswapd
    /// gives back become available to others as its time reaches them
    /// (crate::kswapd).
    fn free_pcppages_bulk(&mut self, cpu: usize, z: usize, n: u64, first: usize) {
        let (folios, p) = (&mut self.folios, &mut self.cpus[cpu].pcp[z]);
        let n = n.min(p.count());
        let mut mt = first;
        folios.free_pcp_pages(
            z,
            (0..n).map(|_| loop {
                match p.pop_back(mt) {
                    Some(pfn) => break pfn,
                    None => mt = (mt + 1) % MIGRATE_PCPTYPES,
                }
            }),
        );
        if self.in_kswapd {
            self.kswapd_freed(z, n);
        }
        // Counted on the CPU doing the free (drain_all_pages drains the
        // others' lists from the caller's, as `__drain_all_pages` does).
        self.vmstat_account_free(self.cpu, z);
    }

    /// `drain_pages(cpu)`: every page on the CPU's lists back to the zones.
    pub fn drain_pages(&mut self, cpu: usize) {
        for z in 0..NR_ZONES {
            let n = self.cpus[cpu].pcp[z].count();
            self.free_pcppages_bulk(cpu, z, n, 0);
        }
    }

    /// `drain_all_pages(NULL)`: every CPU's lists (the kernel queues the
    /// drain as work on each CPU; the model does it at once).
    pub fn drain_all_pages(&mut self) {
        for cpu in 0..self.cpus.len() {
            self.drain_pages(cpu);
        }
    }

    /// `decay_pcp_high` of every CPU's lists (`refresh_cpu_vm_stats` from
    /// `vmstat_update`, once a second): `high` falls by an eighth towards
    /// `high_min` (at most to the count less 2^5 batches) and the list is
    /// trimmed to it, a batch at a time. True if a list is still above
    /// `high_min` (the work requeues itself).
    pub fn decay_pcp_high(&mut self) -> bool {
        let mut todo = false;
        for cpu in 0..self.cpus.len() {
            for z in 0..NR_ZONES {
                let (hmin, batch) = (self.zones[z].pcp_high_min, self.zones[z].pcp_batch);
                let p = &mut self.cpus[cpu].pcp[z];
                if p.high > hmin {
                    let floor = p.count().saturating_sub(batch << PCP_BATCH_SCALE_MAX);
                    p.high = floor.max(p.high - (p.high >> 3)).max(hmin);
                    if p.high > hmin {
                        todo = true;
                    }
                }
                let over = p.count().saturating_sub(p.high);
                if over > 0 {
                    self.free_pcppages_bulk(cpu, z, over, 0);
                    todo = true;
                }
            }
        }
        todo
    }
}

/// `nr_pcp_free` (order 0): how many pages a full list gives back: the
/// recent frees, at least a batch, leaving at least a batch.
fn nr_pcp_free(free_count: u64, batch: u64, high: u64) -> u64 {
    if high < batch {
        return 1;
    }
    kclamp(free_count, batch, high - batch)
}

/// The kernel's `clamp`: `min(max(v, lo), hi)` (hi wins when lo > hi).
#[inline]
fn kclamp(v: u64, lo: u64, hi: u64) -> u64 {
    v.max(lo).min(hi)
}
