// SPDX-License-Identifier: GPL-2.0-only
//! The allocator's slow path as 6.12.117 decides it: `zone_reclaimable_pages`
//! (with the 6.12.117 rule that a zone with nothing reclaimable counts its
//! free pages), `should_reclaim_retry`'s "would reclaiming everything get
//! a zone above min?" and no-progress limit, and `allow_direct_reclaim`.
//! The numbers are worked out by hand in the comments.

mod common;
use common::T;
use mglru_core::kernel::{ZoneSpec, ZONE_DMA, ZONE_DMA32};
use mglru_core::lruvec::LRU_ACTIVE_FILE;
use mglru_core::vmscan::ScanControl;
use mglru_core::{Policy, RunOptions};

/// A classic machine with one populated zone, DMA32, of 16,384 pages:
/// min_free_kbytes = int_sqrt(65,536 × 16) = 1,024 → min 256 pages.
fn one_zone(swap: bool) -> T {
    let mut t = T::classic();
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    t.sim = mglru_core::Simulator::new(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        ..Default::default()
    });
    let swap = if swap { "swap 16M\n" } else { "" };
    t.run(&format!("memory 64M\n{swap}file f size=1M readahead=0\ntask t\nanon t heap size=64M"));
    assert_eq!(t.k().zones[ZONE_DMA32].wmark[0], 256);
    t
}

#[test]
fn zone_reclaimable_pages_counts_file_then_anon_with_swap_else_free() {
    let mut t = one_zone(false);
    // Nothing on any LRU: 6.12.117 counts the zone's free pages instead
    // (all 16,384), so a zone is never skipped for having nothing to reclaim.
    assert_eq!(t.k().zone_reclaimable_pages(ZONE_DMA32), 16384);
    // 40 anon pages (and 1 PTE table + PMD + PUD = 3 page-table pages, not
    // on an LRU), then 40 file pages. The add batch holds 31: the first 31
    // stores flush at the 31st; 9 anon + 22 file flush at the next 31; 18
    // file pages are still queued. On the LRU: 40 anon, 22 file.
    t.run("store t heap 0 40\nread t f 0 40");
    assert_eq!(t.k().zone_lru[ZONE_DMA32], [40, 22]);
    // No swap: anon is not reclaimable. Only the 22 file pages count.
    assert_eq!(t.k().zone_reclaimable_pages(ZONE_DMA32), 22);
    t.drain();
    assert_eq!(t.k().zone_lru[ZONE_DMA32], [40, 40]);
    assert_eq!(t.k().zone_reclaimable_pages(ZONE_DMA32), 40);
    // The unpopulated DMA zone: nothing on its lists, no free pages.
    assert_eq!(t.k().zone_reclaimable_pages(ZONE_DMA), 0);
    t.check();

    let mut t = one_zone(true);
    t.run("store t heap 0 40\nread t f 0 40");
    t.drain();
    // With free swap, anon counts too: 40 + 40.
    assert_eq!(t.k().zone_reclaimable_pages(ZONE_DMA32), 80);
    t.check();
}

#[test]
fn should_reclaim_retry_gives_up_after_sixteen_rounds_without_progress() {
    let mut t = one_zone(false);
    t.run("store t heap 0 40\nread t f 0 40");
    t.drain();
    let k = t.k();
    let mut loops = 0;
    // Progress resets the count; the zone could get above min (40 file
    // pages + 16,384 - 40 - 40 - 3 free is far above 256).
    assert!(k.should_reclaim_retry(true, &mut loops));
    assert_eq!(loops, 0);
    // Sixteen rounds without progress are retried, the seventeenth is not
    // (no_progress_loops > MAX_RECLAIM_RETRIES).
    for i in 1..=16 {
        assert!(k.should_reclaim_retry(false, &mut loops), "round {i}");
        assert_eq!(loops, i);
    }
    assert!(!k.should_reclaim_retry(false, &mut loops));
    assert_eq!(loops, 17);
}

/// With the heap filling the zone down to its min watermark and nothing
/// reclaimable, `should_reclaim_retry` asks whether reclaiming everything
/// reclaimable would lift the zone above min: 6.12.117's free-page rule
/// counts free twice, so it retries while free > min / 2. This is the
/// scenario of classic_mechanisms' `direct_reclaim_when_kswapd_is_hopeless`.
#[test]
fn should_reclaim_retry_counts_free_twice_when_nothing_is_reclaimable() {
    let mut t = one_zone(false);
    // 16,050 heap pages and 34 page tables: 16,084 allocations, which the
    // CPU's list takes from the zone in refills (classic_mechanisms'
    // `direct_reclaim_when_kswapd_is_hopeless` works them out): the zone
    // keeps 259 free, the list 41.
    t.run("store t heap 0 16050");
    let k = t.k();
    assert_eq!((k.nr_free_pages(), k.nr_pcp_pages(ZONE_DMA32)), (259, 41));
    // All 16,050 anon pages are on the list or in the add batch, none is
    // reclaimable without swap, no file page: reclaimable = free = 259
    // (NR_FREE_PAGES: not the per-CPU lists' pages), available 518 > 256.
    assert_eq!(k.zone_reclaimable_pages(ZONE_DMA32), 259);
    let mut loops = 0;
    assert!(k.should_reclaim_retry(false, &mut loops));
    // allow_direct_reclaim: the zone has "reclaimable" pages (its free
    // ones), reserve 256, free 259 > 128: direct reclaim is not throttled.
    assert!(k.allow_direct_reclaim());
    // Once kswapd has failed MAX_RECLAIM_RETRIES times it is always allowed.
    k.kswapd_failures = 16;
    assert!(k.allow_direct_reclaim());
}

/// 6.12 `shrink_active_list` notes a cost only for rotated folios
/// (`if (nr_rotated) lru_note_cost(...)`, mm/vmscan.c:2146): deactivating
/// folios, none of them executable, must not run `lru_note_cost`'s decay.
#[test]
fn deactivation_without_rotation_leaves_the_costs_alone() {
    let mut t = one_zone(false);
    // Read 64 file pages twice: the second read activates them (the
    // activate batch, drained here).
    t.run("read t f 0 64\nread t f 0 64");
    t.drain();
    let k = t.k();
    assert_eq!(k.memcgs[0].lruvec.size(LRU_ACTIVE_FILE), 64);
    // Costs far above a quarter of the LRU (64 pages): a call to
    // lru_note_cost, even with a cost of 0, would halve both.
    k.memcgs[0].lruvec.file_cost = 1000;
    k.memcgs[0].lruvec.anon_cost = 600;
    let mut sc = ScanControl::new(32, None);
    k.shrink_active_list(32, 0, LRU_ACTIVE_FILE, &mut sc);
    assert_eq!(k.memcgs[0].lruvec.size(LRU_ACTIVE_FILE), 32, "32 deactivated");
    assert_eq!((k.memcgs[0].lruvec.file_cost, k.memcgs[0].lruvec.anon_cost), (1000, 600));
    t.check();
}
