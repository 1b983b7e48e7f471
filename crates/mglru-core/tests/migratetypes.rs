// SPDX-License-Identifier: GPL-2.0-only
//! Grouping pages by mobility (`--migratetypes`, crate::buddy): page
//! tables and brd's pages Unmovable, per-type per-CPU lists, fallbacks
//! into other types' pageblocks, watermark boosting and kswapd's boosted
//! reclaim, zones laid out from /proc/pagetypeinfo. Expected values are
//! derived by hand from mm/page_alloc.c and mm/vmscan.c (6.12); the
//! derivation is in the comments.

mod common;
use common::T;
use mglru_core::buddy::{ZoneLayout, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE};
use mglru_core::kernel::{ZoneSpec, ZONE_DMA, ZONE_DMA32};
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

fn grouped(policy: Policy) -> T {
    T::with_options(RunOptions { policy: Some(policy), migratetypes: true, ..Default::default() })
}

fn lists(t: &mut T, z: usize) -> Vec<usize> {
    t.k().cpus[0].pcp[z].lists.iter().map(|l| l.len()).collect()
}

/// Without `--migratetypes` (the default) page tables are Movable pages
/// like the rest: one list, no fallback, no boost.
#[test]
fn without_grouping_every_page_is_movable() {
    let mut t = T::classic();
    t.run("memory 64M\ntask t\nanon t heap size=64M\nstore t heap 0 2000");
    assert_eq!(lists(&mut t, ZONE_DMA32)[MIGRATE_UNMOVABLE], 0);
    assert_eq!((t.k().sim.fallbacks, t.k().sim.watermark_boosts), (0, 0));
    t.check();
}

/// 64 MiB (zones.rs: DMA32 12288 pages, low 240, batch 3; DMA 4096 pages,
/// low 80 + reserve 48, batch 1). The heap's pages are Movable, its page
/// tables (a PUD, a PMD, then a PTE table before data pages 1, 513, 1025,
/// ...) Unmovable; one `alloc_factor` per CPU and zone sets both lists'
/// batches. DMA32: the PUD finds no Unmovable page, so the refill (3)
/// claims the zone's first order-10 chunk (pfns 4096..5119, two
/// pageblocks) whole for Unmovable (no boost: whole blocks) and takes its
/// first 3 pages: PUD, PMD, first PTE table. The Movable list then takes
/// 6, 12, 24, 48 (90 by data page 90), then 96 at data pages 91, 187,
/// ...; the second PTE table (data page 513) refills the Unmovable list
/// with 96. So after the k-th Movable 96 (k >= 5) the zone has 12288 - 3
/// - 90 - 96 - 96 k free. Its 11 Movable order-10 chunks (11264 pages)
/// run dry on the way: the Movable refill falls back to the Unmovable
/// blocks, first claiming the free order-9 block at 4608 whole, then the
/// order-8 chunk of the block holding the tables, a claim below a whole
/// block, which boosts the watermarks (by a pageblock: DMA32's cap is
/// max(512, 288 × 1.5)) and, the block being more than half free (512 -
/// 99), takes it. The boost wakes kswapd (pageoutrun), which finds
/// nothing to reclaim (anon, no swap: a failure) and takes the boost off
/// as it ends. DMA32 gives pages while above low (free > 240): the 124th
/// Movable 96 (data page 91 + 96 × 123 = 11899, allocation 11899 + 2 +
/// 24 tables = 11925, found at 291) leaves 195. Then DMA while above low
/// + reserve (free > 128): Movable refills of 1, 2, 4, 8, 16 (31), then
/// 32 at a time; the 25th PTE table (data page 12289) claims DMA's
/// order-10 chunk at 1024 for Unmovable and takes 32. The same fallbacks
/// as in DMA32 follow (the order-9 block at 1536, then the boosting claim
/// of the block at 1024, kswapd's second run and failure). DMA's free
/// count after the j-th Movable 32 is 4096 - 31 - 32 - 32 j: the 123rd
/// (found at 129) leaves 97. Its allocations: the 31 + 32 × 123 Movable
/// pages less the 31 left on the list, and the 7 PTE tables of data pages
/// 12289 .. 15361: 3943, which brings the trace to allocation 15868 =
/// data page 15835 (with 33 tables). Left on the lists: DMA32 Movable 95,
/// Unmovable 96 - 23 = 73; DMA Movable 31, Unmovable 32 - 7 = 25. The
/// next page finds every zone at low: the slow path wakes kswapd
/// (pageoutrun; nothing to reclaim) and retries at min, where DMA32 (195 >
/// 192) gives it from its Movable list.
#[test]
fn page_tables_claim_blocks_and_the_heap_falls_back_with_a_boost() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = grouped(policy);
        t.run("memory 64M\ntask t\nanon t heap size=64M\nstore t heap 0 15835");
        assert_eq!((t.ev(Ev::PgallocDma32), t.ev(Ev::PgallocDma)), (11925, 3943), "{policy:?}");
        assert_eq!((t.k().folios.nr_free_zone(ZONE_DMA32), t.k().folios.nr_free_zone(ZONE_DMA)), (195, 97));
        assert_eq!((lists(&mut t, ZONE_DMA32), lists(&mut t, ZONE_DMA)), (vec![73, 95, 0], vec![25, 31, 0]));
        assert_eq!((t.k().sim.fallbacks, t.k().sim.fallback_claims, t.k().sim.watermark_boosts), (6, 6, 2));
        assert_eq!((t.ev(Ev::Pageoutrun), t.k().kswapd_failures), (2, 2));
        assert_eq!(t.k().zones.iter().map(|z| z.watermark_boost).sum::<u64>(), 0);
        t.run("store t heap 15835");
        assert_eq!((t.ev(Ev::PgallocDma32), t.ev(Ev::PgallocDma)), (11926, 3943), "{policy:?}");
        assert_eq!(t.ev(Ev::Pageoutrun), 3);
        t.check();
    }
}

/// classic_mechanisms' `direct_reclaim_when_kswapd_is_hopeless` with
/// grouping: one zone (DMA32) of 16384 pages (min 256, low 320, high 384;
/// batch 3, high_min 320). 15985 heap pages and 34 page tables: 16019
/// allocations. The PUD's refill (3) claims the zone's first order-10
/// chunk for Unmovable; the heap's list takes 6, 12, 24, 48 (90 by data
/// page 90), then 96 at data pages 91, 187, ...; the second PTE table
/// (data page 513) takes 96 for the Unmovable list, of which the 30 later
/// tables use 30. The zone's free count is 16384 - 3 - 90 - 96 - 96 k
/// after the k-th Movable 96 (k >= 5). The heap's Movable chunks (15 ×
/// 1024) run dry near the end: its refill claims the Unmovable chunk's
/// free order-9 block whole, then the block holding the tables, which
/// boosts the watermarks and wakes kswapd: it finds nothing (SCAN_FILE,
/// no file), counts a failure and takes the boost off. The 165th refill
/// (data page 15835) leaves 355; the 166th (data page 15931, allocation
/// 15965) leaves 259. From allocation 15966 on each finds 259 <= low: the
/// slow path wakes kswapd, which fails again: with the boost's run, 16
/// runs; then wakeup_kswapd returns at once. 259 > min: no direct
/// reclaim; the last 54 allocations come from the Movable list (95 - 54 =
/// 41 left), the Unmovable one keeps 96 - 31 = 65.
///
/// Then 43 file pages: 0..40 from the Movable list; page 41 refills 96
/// (alloc_factor still 5): the zone keeps 163. Page 42: 163 is not above
/// min: direct reclaim (nr_to_reclaim 32, SCAN_FILE). The add batch
/// (shared with the anon pages: 15985 = 515 × 31 + 20) flushed after 11
/// file pages and after 31 more: 42 on the list. Priority escalation:
/// 12..6: 42 >> p = 0; 5: 1; 4: 41 >> 4 = 2 (3); 3: 39 >> 3 = 4 (7); 2:
/// 35 >> 2 = 8 (15); 1: 27 >> 1 = 13 (28); 0: 14 -> 42 >= 32. The 42
/// clean pages of Movable blocks go to the Movable list (95 + 42 = 137;
/// with the Unmovable 65, 202, under high_min: no flush while the zone is
/// below high); the retry at min fails on the zone's 163, drain_all_pages
/// gives the 202 back (365), and the retry refills 3 (alloc_factor 0 after
/// the frees): 362 free, 2 on the lists.
#[test]
fn unmovable_list_holds_pages_the_heap_cannot_have() {
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, ..Default::default() };
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        migratetypes: true,
        ..Default::default()
    });
    t.run("memory 64M\nfile f size=1M readahead=0\ntask t\nanon t heap size=64M");
    t.run("store t heap 0 15985");
    let k = t.k();
    assert_eq!((k.nr_free_pages(), k.kswapd_failures, k.ev.get(Ev::Pageoutrun)), (259, 16, 16));
    assert_eq!((k.sim.fallbacks, k.sim.fallback_claims, k.sim.watermark_boosts), (3, 3, 1));
    assert_eq!(lists(&mut t, ZONE_DMA32), [65, 41, 0]);
    t.run("read t f 0 43");
    assert_eq!((t.ev(Ev::AllocstallMovable), t.ev(Ev::PgscanDirect), t.ev(Ev::PgstealDirect)), (1, 42, 42));
    assert_eq!(t.k().nr_free_pages(), 362);
    assert_eq!(t.k().cpus[0].pcp[ZONE_DMA32].count(), 2);
    t.check();
}

/// A zone laid out as /proc/pagetypeinfo says: 11 pageblocks, Movable 8
/// (four order-10 chunks free), Unmovable 1 (full), Reclaimable 2 (two
/// order-8 and two order-7 chunks free). From the zone's start (pfn 0, on
/// an order-10 boundary): Movable 0..4096 (four rooms of order 10),
/// Unmovable 4096..4608, Reclaimable 4608..5632 (4608 is not on an
/// order-10 boundary: two rooms of order 9). The order-10 chunks fill the
/// Movable rooms. The first order-8 chunk goes into the smallest, lowest
/// Reclaimable room, 4608: its buddy 4864 keeps its first page, and the
/// rest of the buddy becomes rooms of orders 0..7 (4865, 4866, 4868, ...,
/// 4992). The second goes to 5120 (rooms up to 5504). The order-7 chunks
/// take the two order-7 rooms, 4992 and 5504. Free: 4096 + 2 × 256 + 2 ×
/// 128 = 4864; the rest allocated, for the run.
#[test]
fn a_zone_is_laid_out_from_pagetypeinfo() {
    let mut layout = ZoneLayout::default();
    layout.blocks = [1, 8, 2];
    layout.free[MIGRATE_RECLAIMABLE][8] = 2;
    layout.free[MIGRATE_RECLAIMABLE][7] = 2;
    layout.free[MIGRATE_MOVABLE][10] = 4;
    let dma = ZoneSpec { pages: layout.free_pages(), managed: 5632, layout: Some(layout), ..Default::default() };
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([dma, ZoneSpec::default(), ZoneSpec::default()]),
        migratetypes: true,
        ..Default::default()
    });
    t.run("task t");
    let k = t.k();
    assert_eq!((k.folios.zone_pages(ZONE_DMA), k.folios.nr_free_zone(ZONE_DMA)), (5632, 4864));
    let a = k.folios.free_area(ZONE_DMA);
    assert_eq!((a.nr_chunks(10, MIGRATE_MOVABLE), a.nr_chunks(8, MIGRATE_RECLAIMABLE), a.nr_chunks(7, MIGRATE_RECLAIMABLE)), (4, 2, 2));
    let mts = [0, 3584, 4096, 4608, 5120].map(|p| k.folios.pageblock_mt(p));
    assert_eq!(mts, [MIGRATE_MOVABLE, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE, MIGRATE_RECLAIMABLE, MIGRATE_RECLAIMABLE]);
    assert_eq!(k.folios.first_chunk(ZONE_DMA, 8, MIGRATE_RECLAIMABLE), 4608);
    assert_eq!(k.folios.first_chunk(ZONE_DMA, 7, MIGRATE_RECLAIMABLE), 4992);
    t.check();
}

/// Watermark boosting and kswapd's boosted pass. A zone of 11 pageblocks
/// laid out Movable 8 (four order-10 chunks free), Unmovable 1 (full),
/// Reclaimable 2 (an order-8 and an order-7 chunk free in each): free
/// 4096 + 768 = 4864; watermarks 64/80/96 (given); batch 1. Reading a
/// file takes the Movable chunks first; the refill that finds them empty
/// falls back: no other type has a chunk of order 9 or 10, the first of
/// order 8 is Reclaimable's (fallbacks[Movable] tries Reclaimable before
/// Unmovable), at 4608 (Movable 0..4096, Unmovable 4096..4608,
/// Reclaimable 4608..5632 with rooms at 4608 and 5120). A claim below a
/// whole block: the zone's watermarks go up by a pageblock (max(512, 96 ×
/// 1.5) caps it at 512) and, the block's 384 free pages being at least
/// half of it, the block becomes Movable. The boost wakes kswapd though
/// the node is balanced (about 760 free > high 96 + boost 512):
/// balance_pgdat's boosted pass (512 pages to reclaim, no writeback, no
/// swap) at DEF_PRIORITY scans each list's size >> 12, nothing of ~4000
/// pages, so it reclaims nothing and stops at once (a failure) and takes
/// the boost off.
#[test]
fn a_fallback_boosts_the_watermarks_and_wakes_kswapd() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut layout = ZoneLayout::default();
        layout.blocks = [1, 8, 2];
        layout.free[MIGRATE_MOVABLE][10] = 4;
        layout.free[MIGRATE_RECLAIMABLE][8] = 2;
        layout.free[MIGRATE_RECLAIMABLE][7] = 2;
        let dma = ZoneSpec { pages: layout.free_pages(), managed: 5632, wmark: Some([64, 80, 96]), lowmem_reserve: Some(0), layout: Some(layout), ..Default::default() };
        let mut t = T::with_options(RunOptions {
            policy: Some(policy),
            zones: Some([dma, ZoneSpec::default(), ZoneSpec::default()]),
            migratetypes: true,
            ..Default::default()
        });
        t.run("file f size=32M readahead=0\ntask t");
        assert_eq!(t.k().folios.first_chunk(ZONE_DMA, 8, MIGRATE_RECLAIMABLE), 4608);
        t.run("read t f 0 4000");
        assert_eq!((t.k().sim.fallbacks, t.k().sim.watermark_boosts, t.ev(Ev::Pageoutrun)), (0, 0, 0), "{policy:?}");
        t.run("read t f 4000 200");
        let k = t.k();
        assert_eq!((k.sim.fallbacks, k.sim.fallback_claims, k.sim.watermark_boosts), (1, 1, 1), "{policy:?}");
        assert_eq!([k.folios.pageblock_mt(4608), k.folios.pageblock_mt(5120)], [MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE]);
        assert_eq!((k.ev.get(Ev::Pageoutrun), k.ev.get(Ev::PgscanKswapd), k.kswapd_failures), (1, 0, 1), "{policy:?}");
        assert_eq!(k.zones[ZONE_DMA].watermark_boost, 0);
        t.check();
    }
}
