// SPDX-License-Identifier: GPL-2.0-only
//! kswapd's passes resumable between batches (`--kswapd thread`,
//! crate::kswapd `kswapd_should_pause`): a pass that has spent past the
//! moment kswapd was let in stops after the batch in progress, and goes
//! on from there when the tasks' time reaches kswapd's clock; its next
//! batch sees what the tasks did meanwhile. Numbers by hand in the
//! comments.

mod common;
use common::T;
use mglru_core::kernel::{ZoneSpec, ZONE_DMA32};
use mglru_core::kswapd::{KswapdMode, KswapdState};
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

/// Scan cost per page, ns.
const S: u64 = 1_000;

/// One zone, DMA32, of `pages` pages, a file twice its size, no swap;
/// only scanning costs time.
fn machine(policy: Policy, mode: KswapdMode, pages: u64) -> T {
    machine_on(policy, mode, pages, false)
}

/// `machine`, its task on an external clock when `external` (as under
/// `mglru validate`: a task's own work, reclaim included, takes no time of
/// the model's; kswapd's does).
fn machine_on(policy: Policy, mode: KswapdMode, pages: u64, external: bool) -> T {
    let dma32 = ZoneSpec { pages, managed: pages, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    let mut cost = common::only_costs(&[("scan", S)]);
    cost.tasks_on_external_clock = external;
    let mut t = T::with_options(RunOptions {
        policy: Some(policy),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        cost: Some(cost),
        kswapd: mode,
        ..Default::default()
    });
    t.run(&format!("memory {}M\nfile f size={}M readahead=0\ntask t", pages / 256, pages / 128));
    t
}

/// Read the file page by page (after `from` pages at once) until
/// kswapd's first wake-up; returns the pages read.
fn read_until_wake(t: &mut T, from: u64) -> u64 {
    t.run(&format!("read t f 0 {from}"));
    let mut page = from;
    while t.ev(Ev::Pageoutrun) == 0 {
        t.run(&format!("read t f {page}"));
        page += 1;
    }
    page
}

/// Let the tasks' time reach kswapd's clock (a sleep of the task; none
/// if the clock is past it already, kswapd then runs at the sleep's
/// start).
fn sleep_to_kswapd(t: &mut T) {
    let (at, now) = (t.k().kswapd.at, t.k().now);
    t.run(&format!("sleep {}ns", at.saturating_sub(now)));
}

/// MGLRU, 16,384 pages (watermarks min 256, low 320, high 384). The read
/// that wakes kswapd is the 16,031st (as in tests/kswapd.rs). kswapd's
/// first pass aims at 384 pages (`kswapd_shrink_node`: the high
/// watermark): `try_to_shrink_lruvec` evicts a batch of MIN_LRU_BATCH =
/// 64 clean read-once folios, 64 × S of CPU time. The zone then holds
/// fewer than high + MIN_LRU_BATCH = 448 free pages, so
/// `should_abort_scan` says go on; but kswapd has spent past the moment
/// it was let in (0): it stops there, in the middle of its pass, until
/// the clock reaches 64 µs. Its second batch leaves the zone above 448:
/// the pass ends at 128 µs, and the next one finds the node balanced.
#[test]
fn a_pass_stops_after_a_batch_and_goes_on_at_kswapds_clock() {
    let mut t = machine(Policy::Mglru, KswapdMode::Thread, 16384);
    assert_eq!(read_until_wake(&mut t, 15_500), 16_031);
    let k = t.k();
    assert_eq!(k.zones[ZONE_DMA32].wmark, [256, 320, 384]);
    assert_eq!((k.ev.get(Ev::PgscanKswapd), k.ev.get(Ev::PgstealKswapd)), (64, 64));
    assert!(k.kswapd_mid_pass());
    assert_eq!((k.now, k.kswapd.at), (0, 64 * S));
    assert!(k.folios.nr_free_zone(ZONE_DMA32) < 448);
    sleep_to_kswapd(&mut t);
    let k = t.k();
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 128);
    assert!(!k.kswapd_mid_pass());
    assert!(k.folios.nr_free_zone(ZONE_DMA32) >= 448);
    assert_eq!((k.kswapd.state, k.kswapd.at), (KswapdState::Balancing, 128 * S));
    sleep_to_kswapd(&mut t);
    let k = t.k();
    assert_eq!(k.kswapd.state, KswapdState::ShortSleep);
    assert_eq!((k.ev.get(Ev::PgscanKswapd), k.ev.get(Ev::Pageoutrun)), (128, 1));

    // With `--kswapd instant` the same read runs balance_pgdat whole: the
    // two batches at once, kswapd asleep after.
    let mut t = machine(Policy::Mglru, KswapdMode::Instant, 16384);
    assert_eq!(read_until_wake(&mut t, 15_500), 16_031);
    let k = t.k();
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 128);
    assert!(!k.kswapd_mid_pass());
    assert_eq!(k.kswapd.state, KswapdState::Asleep);
    t.check();
}

/// The batch after a pause sees what the tasks did meanwhile: the same
/// wake-up, then the task reads 100 more pages before kswapd's clock
/// reaches 64 µs (reads cost nothing here). At its second batch the zone
/// is still below 448 free pages (it would have been at 478 without the
/// reads, less what the reads took), so the pass goes on: a third batch,
/// at 128 µs, and the pass is over at 192 µs. An atomic pass decided at 0
/// would have stopped after two.
#[test]
fn the_next_batch_sees_the_tasks_allocations() {
    let mut t = machine(Policy::Mglru, KswapdMode::Thread, 16384);
    let n = read_until_wake(&mut t, 15_500);
    t.run(&format!("read t f {n} 100"));
    assert_eq!(t.ev(Ev::PgscanKswapd), 64);
    sleep_to_kswapd(&mut t);
    let k = t.k();
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 128);
    assert!(k.kswapd_mid_pass());
    assert!(k.folios.nr_free_zone(ZONE_DMA32) < 448);
    assert_eq!(k.kswapd.at, 128 * S);
    sleep_to_kswapd(&mut t);
    let k = t.k();
    assert_eq!(k.ev.get(Ev::PgscanKswapd), 192);
    assert!(!k.kswapd_mid_pass());
    assert_eq!(k.kswapd.at, 192 * S);
    t.check();
}

/// Classic, 262,144 pages (1 GiB): `shrink_lruvec` scans the inactive
/// file list SWAP_CLUSTER_MAX = 32 folios per round; kswapd stops after
/// each round it has spent past the clock on, so every turn of kswapd
/// inside a pass scans one round (32, or the rest of the lruvec's target
/// when less) and takes its pages × S.
#[test]
fn a_classic_pass_stops_between_rounds_of_shrink_lruvec() {
    let mut t = machine(Policy::Classic, KswapdMode::Thread, 262_144);
    // (The bulk read outruns kswapd, whose time is the only one that
    // passes, and reclaims directly too.)
    read_until_wake(&mut t, 261_000);
    // kswapd catches up with the task's clock (several turns at once).
    sleep_to_kswapd(&mut t);
    let mut turns = 0;
    while t.k().kswapd_mid_pass() {
        let (scanned, at, now) = (t.ev(Ev::PgscanKswapd), t.k().kswapd.at, t.k().now);
        assert!(at > now);
        sleep_to_kswapd(&mut t);
        let k = t.k();
        let delta = k.ev.get(Ev::PgscanKswapd) - scanned;
        if k.kswapd_mid_pass() {
            assert!(delta > 0 && delta <= 32, "turn {turns}: {delta} scanned");
            assert_eq!(k.kswapd.at - at, delta * S, "turn {turns}");
        }
        turns += 1;
    }
    assert!(turns >= 4, "{turns} turns");
    t.check();
}

/// Two CPUs, MGLRU, instant kswapd: tasks `t` (CPU 0) and `u` (CPU 1,
/// round-robin placement); kswapd starts on the last CPU, 1.
fn two_cpus() -> T {
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Mglru),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        cost: Some(common::only_costs(&[("scan", S)])),
        ..Default::default()
    });
    t.run("memory 64M\ncpus 2\nfile f size=128M readahead=0\ntask t\ntask u");
    assert_eq!(t.k().kswapd.cpu, 1);
    t
}

/// A woken kswapd goes where CFS puts a woken task while a CPU is idle
/// (`kswapd_select_cpu`): its previous CPU if idle, else an idle one. The
/// reads run one at a time, so only the reader's CPU is busy.
#[test]
fn woken_kswapd_runs_on_an_idle_cpu() {
    // `u` reads on CPU 1, kswapd's CPU: kswapd is woken onto CPU 0, and
    // the folios it frees go to CPU 0's page lists (the reads never used
    // them: they were empty).
    let mut t = two_cpus();
    assert_eq!(t.k().cpus[0].pcp[ZONE_DMA32].count(), 0);
    t.run("read u f 0 16100");
    let k = t.k();
    assert!(k.ev.get(Ev::Pageoutrun) > 0);
    assert_eq!(k.kswapd.cpu, 0);
    assert!(k.cpus[0].pcp[ZONE_DMA32].count() > 0);
    // Then `t` reads on CPU 0 and wakes it again: its previous CPU is
    // busy, CPU 1 is idle.
    let n = t.ev(Ev::Pageoutrun);
    let mut page = 16100;
    while t.ev(Ev::Pageoutrun) == n {
        t.run(&format!("read t f {page} 64"));
        page += 64;
    }
    assert_eq!(t.k().kswapd.cpu, 1);

    // `t` reads on CPU 0: kswapd's previous CPU, 1, is idle: it stays.
    let mut t = two_cpus();
    t.run("read t f 0 16100");
    assert!(t.ev(Ev::Pageoutrun) > 0);
    assert_eq!(t.k().kswapd.cpu, 1);
    t.check();
}

/// On an external clock (`mglru validate` following the guest's, where
/// the tasks' own work is already in the guest's time), a task's direct
/// reclaim is not charged to its clock, but the time a try took still
/// passes before the allocator looks again, so that kswapd, a thread
/// beside it, can run meanwhile (page_alloc `direct_reclaim_time_passes`).
/// Reads cost nothing here, so the only time that passes is the direct
/// reclaim's: the clock ends at exactly pgscan_direct × S. Without it the
/// clock stood at 0 while the task reclaimed; with `--kswapd instant`
/// nothing runs beside the task and the clock is left alone.
#[test]
fn direct_reclaim_time_passes_on_an_external_clock() {
    let run = |mode: KswapdMode| {
        let mut t = machine_on(Policy::Mglru, mode, 16384, true);
        let mut page = 0;
        while t.ev(Ev::AllocstallMovable) == 0 && page < 32768 {
            t.run(&format!("read t f {page}"));
            page += 1;
        }
        t
    };
    let mut t = run(KswapdMode::Thread);
    let direct = t.ev(Ev::PgscanDirect);
    assert!(direct > 0, "the task reclaimed directly");
    assert_eq!(t.k().now, direct * S);
    let mut t = run(KswapdMode::Instant);
    assert_eq!(t.k().now, 0);
}

/// kswapd and a direct reclaimer never isolate the same folio: kswapd
/// pauses only between batches, with what it isolated put back, so
/// whenever a task runs beside a paused pass the node has no folio
/// isolated (`nr_isolated_*` 0) for its own reclaim to meet; the task's
/// isolations are its own and back on the lists when its reclaim ends.
/// The classic LRU (the one that counts NR_ISOLATED), one zone, the task
/// on an external clock so that it outruns kswapd and reclaims directly
/// while kswapd is mid-pass: checked after every read.
#[test]
fn kswapd_and_a_direct_reclaimer_never_hold_folios_at_once() {
    let mut t = machine_on(Policy::Classic, KswapdMode::Thread, 16384, true);
    let mut beside = 0;
    for page in 0..32768 {
        let mid = t.k().kswapd_mid_pass();
        let stalls = t.ev(Ev::AllocstallMovable);
        t.run(&format!("read t f {page}"));
        if mid && t.ev(Ev::AllocstallMovable) > stalls {
            beside += 1;
        }
        assert_eq!(t.k().nr_isolated, [0, 0], "after read {page}");
        if beside >= 8 {
            break;
        }
    }
    assert_eq!((t.vm("nr_isolated_anon"), t.vm("nr_isolated_file")), (0, 0));
    assert!(beside > 0, "the task reclaimed directly while kswapd was mid-pass");
    assert!(t.ev(Ev::PgscanKswapd) > 0 && t.ev(Ev::PgscanDirect) > 0);
}
