// SPDX-License-Identifier: GPL-2.0-only
//! kswapd as a thread in simulated time (`--kswapd thread`, crate::kswapd):
//! its passes of balance_pgdat take the CPU time of their scanning, the
//! pages it frees reach other allocations as its pass proceeds, it sleeps
//! short then long, a premature sleep counts as a watermark hit quickly,
//! and a task that outruns it reclaims directly. Numbers by hand in the
//! comments.

mod common;
use common::T;
use mglru_core::kernel::{ZoneSpec, ZONE_DMA32};
use mglru_core::kswapd::{KswapdMode, KswapdState, KSWAPD_ASLEEP};
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions};

/// Scan cost per page in these tests, ns.
const S: u64 = 1_000;

/// A classic machine with one zone, DMA32, of 16,384 pages (watermarks
/// min 256, low 320, high 384: page_alloc.rs), a 128 MiB file read once
/// and no swap; only scanning and page copies cost time.
fn machine(mode: KswapdMode, page_copy: u64, scan: u64) -> T {
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    let cost = CostModel {
        op: 0,
        mem_access: 0,
        page_copy,
        minor_fault: 0,
        disk_read: 0,
        disk_write: 0,
        swap_read: 0,
        swap_write: 0,
        scan,
        lruvec: 0,
        ..CostModel::default()
    };
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        cost: Some(cost),
        kswapd: mode,
        ..Default::default()
    });
    t.run("memory 64M\nfile f size=128M readahead=0\ntask t");
    assert_eq!(t.k().zones[ZONE_DMA32].wmark, [256, 320, 384]);
    t
}

/// Read page after page until the zone's free count as the watermark
/// checks read it (NR_FREE_PAGES without the CPU's unfolded difference,
/// crate::vmstat; its free lists, without the CPU's list) is at most
/// `to`: what a task allocating to a watermark does, whatever the list's
/// refills.
fn read_until_free(t: &mut T, mut page: u64, to: u64) -> u64 {
    while t.k().zone_free_state(ZONE_DMA32) > to {
        t.run(&format!("read t f {page}"));
        page += 1;
    }
    page
}

/// The first wake-up: kswapd's first pass runs at once, the next one when
/// the first one's scanning is done; what it freed is held back from the
/// task until then.
#[test]
fn a_pass_takes_its_scanning_time_and_holds_back_what_it_frees() {
    let mut t = machine(KswapdMode::Thread, 0, S);
    // The reads' pages come from the CPU's list (one CPU: batch 3,
    // high_min 320, high_max 2048), refilled from the zone by 3, 6, 12,
    // 24, 48 (93 pages by the 93rd read), then 96 at reads 94, 190, ...:
    // the zone keeps 16,291 - 96 k after the k-th of those. The 167th
    // (read 16,030, the fast path's check still seeing 355 > low) leaves
    // 259 and 95 on the list. 16,030 reads take the fast path.
    t.run("read t f 0 16030");
    assert_eq!(t.ev(Ev::Pageoutrun), 0);
    assert_eq!(t.k().kswapd.state, KswapdState::Asleep);
    assert_eq!(t.k().folios.nr_free_zone(ZONE_DMA32), 259);
    // The 16,031st finds 259 not above low: slow path, wakeup_kswapd.
    t.run("read t f 16030");
    let k = t.k();
    assert_eq!(k.ev.get(Ev::Pageoutrun), 1);
    assert_eq!(k.kswapd.state, KswapdState::Balancing);
    // Pass 1, priority 12: 16,030 pages read, 3 of them still in the add
    // batch (16,030 = 517 × 31 + 3), so get_scan_count sees 16,027 on the
    // inactive file list: 16,027 >> 12 = 3 scanned, 3 clean read-once
    // pages reclaimed. Nothing else costs time: the clock is still at 0
    // and the pass ends at 3 × S.
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 3);
    assert_eq!(k.ev.get(Ev::PgstealKswapd), 3);
    assert_eq!(k.now, 0);
    assert_eq!(k.kswapd.at, 3 * S);
    assert_eq!(k.sim.kswapd_ns, 3 * S);
    // kswapd frees onto its CPU's list (the tasks', with one CPU), which
    // under ZONE_RECLAIM_ACTIVE is flushed at 12 pages: each of the three
    // frees gives clamp(free_count, 3, 9) = 3 of the list's oldest pages
    // back to the zone. Those 9 are held back from the task until the pass
    // reaches them: the read took its page from the list at the min
    // watermark (259 available > 256), leaving 95 + 3 - 9 - 1 = 88.
    assert_eq!(k.kswapd.held[ZONE_DMA32], 9);
    assert_eq!(k.folios.nr_free_zone(ZONE_DMA32), 268);
    assert_eq!(k.nr_free_available(ZONE_DMA32), 259);
    assert_eq!(k.cpus[0].pcp[ZONE_DMA32].count(), 88);
    // Time passes to the end of pass 1: the held pages come free and
    // pass 2 runs (priority 11): 16,027 >> 11 = 7 scanned and reclaimed;
    // the list (88, free_count halved to 1 by the read) flushes 3, 3, 4,
    // 5, 6, 7, 8 = 36 as the seven are freed: held 36, the zone 304.
    t.run(&format!("sleep {}ns", 3 * S));
    let k = t.k();
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 10);
    assert_eq!(k.kswapd.held[ZONE_DMA32], 36);
    assert_eq!(k.folios.nr_free_zone(ZONE_DMA32), 304);
    assert_eq!(k.sim.kswapd_ns, 10 * S);
    assert_eq!(k.kswapd.at, k.sim.kswapd_ns);
    t.check();
}

/// Balanced, kswapd sleeps HZ/10 (25 jiffies at HZ=250: 100 ms), then
/// for good; a wake-up during the short sleep is a low watermark hit
/// quickly, a node unbalanced when the short sleep ends a high watermark
/// hit quickly.
#[test]
fn short_sleep_then_long_sleep_and_the_hit_quickly_counters() {
    let mut t = machine(KswapdMode::Thread, 0, S);
    // Read 16,031 pages (the last one wakes kswapd, see above), then 1 ms.
    t.run("read t f 0 16031\nsleep 1ms");
    let k = t.k();
    // By 1 ms kswapd has reclaimed above high (385 free) and sleeps short:
    // its passes took pgscan_kswapd × S, the short sleep 100 ms more.
    assert_eq!(k.kswapd.state, KswapdState::ShortSleep);
    assert!(k.nr_free_available(ZONE_DMA32) > 384);
    assert_eq!(k.kswapd.held, [0; 3]);
    let end = k.ev.get(Ev::PgscanKswapd) * S;
    assert!(end < 1_000_000);
    assert_eq!(k.kswapd.at, end + 100_000_000);
    // Down to low again within the 100 ms: woken early.
    let next = read_until_free(&mut t, 16031, 320);
    // The read that finds the zone at low takes the slow path.
    t.run(&format!("read t f {next}"));
    assert_eq!((t.ev(Ev::KswapdLowWmarkHitQuickly), t.ev(Ev::Pageoutrun)), (1, 2));
    assert_eq!(t.k().kswapd.state, KswapdState::Balancing);
    // A second later: balanced again, the short sleep ran its course with
    // the node still balanced: asleep for good, nothing counted.
    t.run("sleep 1s");
    let k = t.k();
    assert_eq!(k.kswapd.state, KswapdState::Asleep);
    assert_eq!(k.kswapd.at, KSWAPD_ASLEEP);
    assert_eq!(k.ev.get(Ev::KswapdHighWmarkHitQuickly), 0);

    // Now the short sleep ends with the node between low and high: no
    // wake-up (free above low), but not balanced: high watermark hit
    // quickly, and balance_pgdat again.
    let mut t = machine(KswapdMode::Thread, 0, S);
    t.run("read t f 0 16031\nsleep 1ms");
    // Down to high at most, but above low (kswapd's frees reset the list's
    // refills to 3, 6, 12...: the zone steps down a few pages at a time).
    read_until_free(&mut t, 16031, 384);
    let free = t.k().nr_free_available(ZONE_DMA32);
    assert!(free > 320 && free <= 384, "free {free}");
    assert_eq!(t.ev(Ev::Pageoutrun), 1);
    t.run("sleep 100ms");
    assert_eq!((t.ev(Ev::KswapdHighWmarkHitQuickly), t.ev(Ev::KswapdLowWmarkHitQuickly), t.ev(Ev::Pageoutrun)), (1, 0, 2));
    t.check();
}

/// A task that allocates faster than kswapd reclaims reaches the min
/// watermark and reclaims directly; with kswapd balancing at once (the
/// instant mode) the same reads never do.
#[test]
fn a_task_that_outruns_kswapd_reclaims_directly() {
    // 1 µs per page read, 1 ms per page scanned by kswapd.
    let reads = "read t f 0 16031\nread t f 16031 2000";
    let mut t = machine(KswapdMode::Thread, 1_000, 1_000_000);
    t.run(reads);
    let (direct, stalls) = (t.ev(Ev::PgscanDirect), t.ev(Ev::AllocstallMovable));
    assert!(stalls > 0 && direct > 0, "allocstall {stalls}, pgscan_direct {direct}");
    t.check();

    let mut t = machine(KswapdMode::Instant, 1_000, 1_000_000);
    t.run(reads);
    assert_eq!((t.ev(Ev::PgscanDirect), t.ev(Ev::AllocstallMovable)), (0, 0));
    // Instant: kswapd's time is counted but the clock does not wait for it.
    let k = t.k();
    assert_eq!(k.sim.kswapd_ns, k.ev.get(Ev::PgscanKswapd) * 1_000_000);
    assert_eq!(k.now, 18_031 * 1_000);
    t.check();
}

/// Same input, same counters, with kswapd a thread and two CPUs.
#[test]
fn thread_mode_is_deterministic() {
    let run = || {
        let mut t = machine(KswapdMode::Thread, 1_000, 20_000);
        t.run("task u\nanon u heap size=8M\nread t f 0 16000\nstore u heap 0 2048\nread t f 16000 3000\nsleep 50ms\nread t f 0 500");
        let k = t.k();
        (k.vmstat(), k.now, k.sim.kswapd_ns, k.kswapd.at)
    };
    assert_eq!(run(), run());
}
