// SPDX-License-Identifier: GPL-2.0-only
//! The per-CPU page lists as 6.12 sizes and moves them (mm/page_alloc.c:
//! `zone_batchsize`, `zone_highsize`, `nr_pcp_alloc`, `nr_pcp_high`,
//! `nr_pcp_free`, `decay_pcp_high`, `drain_all_pages`). Every number is
//! worked out by hand in the comments.

mod common;
use common::T;
use mglru_core::kernel::{ZoneSpec, ZONE_DMA32};
use mglru_core::memcontrol::ROOT_MEMCG;
use mglru_core::page_alloc::{zone_batchsize, zone_highsize, Gfp};
use mglru_core::{Policy, RunOptions};

/// One populated zone, DMA32, of 16,384 pages, on `cpus` CPUs:
/// min_free_kbytes = int_sqrt(65,536 × 16) = 1,024 → min 256 pages, low
/// 256 + max(64, 16) = 320, high 384. batch: 16,384 >> 10 = 16, / 4 = 4,
/// rounddown_pow_of_two(4 + 2) − 1 = 3. high_min = max(320 / cpus, 12),
/// high_max = max(16,384 / 8 / cpus, 12).
fn one_zone(cpus: u32) -> T {
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        cpus: Some(cpus),
        ..Default::default()
    });
    t.run("memory 64M\ntask t");
    let z = t.k().zones[ZONE_DMA32];
    assert_eq!((z.wmark, z.pcp_batch), ([256, 320, 384], 3));
    assert_eq!((z.pcp_high_min, z.pcp_high_max), (320 / cpus as u64, 2048 / cpus as u64));
    t
}

fn alloc(t: &mut T, n: usize) -> Vec<u32> {
    (0..n).map(|_| t.k().alloc_folio(ROOT_MEMCG, Gfp::Normal).expect("a free page")).collect()
}

fn free(t: &mut T, pfns: &[u32]) {
    for &p in pfns {
        t.k().free_folio(p);
    }
}

fn zone_free(t: &mut T) -> u64 {
    t.k().folios.nr_free_zone(ZONE_DMA32)
}

fn pcp(t: &mut T, cpu: usize) -> (u64, u64) {
    let p = &t.k().cpus[cpu].pcp[ZONE_DMA32];
    (p.count(), p.high)
}

#[test]
fn batch_and_high_of_the_guest_zones() {
    // The guest's DMA32 (98,464 managed pages, low watermark 765, 2 CPUs):
    // 98,464 >> 10 = 96, / 4 = 24, rounddown_pow_of_two(36) − 1 = 31;
    // high_min = 765 / 2 = 382; high_max = 98,464 / 8 / 2 = 6,154.
    assert_eq!(zone_batchsize(98_464), 31);
    assert_eq!(zone_highsize(98_464, 765, 31, 2, 0), 382);
    assert_eq!(zone_highsize(98_464, 765, 31, 2, 8), 6_154);
    // Its DMA (3,840 managed, low 28): 3 / 4 = 0 → 1, rounddown(1) − 1 = 0
    // → batch 1; high_min = max(28 / 2, 4) = 14, high_max = 3,840 / 16 = 240.
    assert_eq!(zone_batchsize(3_840), 1);
    assert_eq!(zone_highsize(3_840, 28, 1, 2, 0), 14);
    assert_eq!(zone_highsize(3_840, 28, 1, 2, 8), 240);
    // A tiny zone: four batches at least.
    assert_eq!(zone_highsize(1_000, 5, 3, 4, 0), 12);
}

#[test]
fn refills_double_their_batch_and_leave_the_zone_count() {
    let mut t = one_zone(1);
    assert_eq!(zone_free(&mut t), 16384);
    let mut pfns = Vec::new();
    // First allocation: the list is empty. high = 320 grows by the batch
    // (zone above high) to 323; max_nr_alloc = 323 − 0 − 3 = 320 ≥ 3, so
    // alloc_factor becomes 1; 3 pages leave the zone, one is handed out.
    pfns.extend(alloc(&mut t, 1));
    assert_eq!(zone_free(&mut t), 16381);
    assert_eq!(pcp(&mut t, 0), (2, 323));
    // Refills at the 4th, 10th, 22nd and 46th allocation take 6, 12, 24 and
    // 48 (high 329, 341, 365, 413): after 93, 3 + 6 + 12 + 24 + 48 = 93
    // pages have left the zone and the list is empty.
    pfns.extend(alloc(&mut t, 92));
    assert_eq!(zone_free(&mut t), 16384 - 93);
    assert_eq!(pcp(&mut t, 0), (0, 413));
    // alloc_factor is 5 (the limit): the 94th takes 3 << 5 = 96, high 509.
    pfns.extend(alloc(&mut t, 1));
    assert_eq!(zone_free(&mut t), 16384 - 189);
    assert_eq!(pcp(&mut t, 0), (95, 509));
    // NR_FREE_PAGES counts the zone's free lists only, as /proc/vmstat does.
    assert_eq!(t.vm("nr_free_pages"), 16384 - 189);
    // The 94 back on the list: 189 under high (509), none to the zone.
    free(&mut t, &pfns);
    assert_eq!((pcp(&mut t, 0).0, zone_free(&mut t)), (189, 16384 - 189));
    t.check();
}

#[test]
fn frees_stay_on_the_list_below_high_and_decay_once_a_second() {
    let mut t = one_zone(1);
    // 1,000 allocations: refills at allocations 1, 4, 10, 22, 46 (3 .. 48
    // pages), then 96 at 94, 190, ..., 958 (ten more): 15 refills, 1,053
    // pages taken; high 413 + 10 × 96 = 1,373; 53 left on the list.
    let pfns = alloc(&mut t, 1000);
    assert_eq!(zone_free(&mut t), 16384 - 1053);
    assert_eq!(pcp(&mut t, 0), (53, 1373));
    // Freed, they all fit under high (1,053 < 1,373): none reaches the zone.
    free(&mut t, &pfns);
    assert_eq!(zone_free(&mut t), 16384 - 1053);
    assert_eq!(pcp(&mut t, 0), (1053, 1373));
    // decay_pcp_high: high = max(count − 96, high − high/8, high_min).
    // 1st: max(957, 1,373 − 171, 320) = 1,202, nothing over it.
    assert!(t.k().decay_pcp_high());
    assert_eq!(pcp(&mut t, 0), (1053, 1202));
    // 2nd: max(957, 1,202 − 150) = 1,052: one page over it goes back.
    t.k().decay_pcp_high();
    assert_eq!(pcp(&mut t, 0), (1052, 1052));
    assert_eq!(zone_free(&mut t), 16384 - 1052);
    // 3rd: max(1,052 − 96 = 956, 1,052 − 131 = 921) = 956: 96 go back.
    t.k().decay_pcp_high();
    assert_eq!(pcp(&mut t, 0), (956, 956));
    t.check();
    // The same decay runs on the clock, at whole seconds: three seconds of
    // sleep give three more: max(860, 837) = 860, max(764, 753) = 764,
    // max(668, 669) = 669.
    let now = t.k().now;
    assert!(now < 1_000_000_000, "the setup took {now} ns");
    t.run("sleep 3s");
    assert_eq!(pcp(&mut t, 0), (669, 669));
    assert_eq!(zone_free(&mut t), 16384 - 669);
    t.check();
}

#[test]
fn under_kswapd_a_list_keeps_at_most_four_batches() {
    let mut t = one_zone(1);
    // 30 allocations: refills of 3, 6, 12, 24 (45 pages), 15 left; high 365.
    let pfns = alloc(&mut t, 30);
    assert_eq!(pcp(&mut t, 0), (15, 365));
    assert_eq!(zone_free(&mut t), 16384 - 45);
    // While kswapd reclaims (ZONE_RECLAIM_ACTIVE) a list is flushed at
    // min(batch × 4, high) = 12 pages, giving back clamp(free_count, 3, 9),
    // and high shrinks by max(free_count, 3) per free down to high_min:
    // free 1: 16 ≥ 12, gives 3 (13); free 2: 14, gives 3 (11); free 3: 12,
    // gives 3 (9); frees 4, 5: 10, 11; free 6: 12, gives 6 (6); frees 7-11:
    // 7-11; free 12: 12, gives 9 (3); free 21: 12, gives 9; free 30 the same:
    // 3 + 3 + 3 + 6 + 9 + 9 + 9 = 42 back, 3 left; high 365 − 3 − 3 − 3 − 4
    // − 5 − 6 − 7 − 8 then high_min: 320.
    t.k().zones[ZONE_DMA32].reclaim_active = true;
    free(&mut t, &pfns);
    assert_eq!(pcp(&mut t, 0), (3, 320));
    assert_eq!(zone_free(&mut t), 16384 - 3);
    t.check();
}

#[test]
fn pages_on_another_cpus_list_come_back_only_with_a_drain() {
    let mut t = one_zone(2);
    // CPU 1 allocates 10 and frees them: refills of 3 and 6 (and 12 at the
    // 10th: 21 taken, 11 left), then the 10 freed: 21 on CPU 1's list.
    t.k().cpu = 1;
    let pfns = alloc(&mut t, 10);
    free(&mut t, &pfns);
    assert_eq!(pcp(&mut t, 1).0, 21);
    assert_eq!(zone_free(&mut t), 16384 - 21);
    // CPU 0 cannot have them: its first allocation refills from the zone.
    t.k().cpu = 0;
    let p0 = alloc(&mut t, 1);
    assert_eq!(zone_free(&mut t), 16384 - 24);
    // drain_all_pages gives both lists back: 21 + 2.
    t.k().drain_all_pages();
    assert_eq!((pcp(&mut t, 0).0, pcp(&mut t, 1).0), (0, 0));
    assert_eq!(zone_free(&mut t), 16384 - 1);
    free(&mut t, &p0);
    t.check();
}

#[test]
fn below_high_shrinks_the_lists_until_a_flush_lifts_the_zone() {
    let mut t = one_zone(1);
    // Allocate until the zone is below its high watermark (384): the
    // allocation that finds it so sets ZONE_BELOW_HIGH.
    let mut pfns = Vec::new();
    while !t.k().zones[ZONE_DMA32].below_high {
        pfns.extend(alloc(&mut t, 1));
    }
    assert!(zone_free(&mut t) <= 384);
    // Freed, the pages flush from the list (high falls towards high_min
    // while the zone is below high), and the flush that lifts the zone above
    // 384 clears the flag.
    free(&mut t, &pfns);
    assert!(!t.k().zones[ZONE_DMA32].below_high);
    let (count, high) = pcp(&mut t, 0);
    assert_eq!(zone_free(&mut t) + count, 16384);
    assert!(high >= 320 && count <= high, "count {count}, high {high}");
    t.check();
}
