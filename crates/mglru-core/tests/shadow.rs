// SPDX-License-Identifier: GPL-2.0-only
//! Shadow-entry nodes, the shadow-node shrinker and the memcg statistics
//! flush it reads (mm/workingset.c `count_shadow_nodes`, mm/shrinker.c
//! `do_shrink_slab`, mm/memcontrol.c `flush_memcg_stats_dwork`).

mod common;
use common::T;
use mglru_core::cost::CostModel;
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

/// One-page reads of the pages in `r`, as trace lines.
fn reads(r: std::ops::Range<u64>) -> String {
    r.map(|p| format!("read t f {p} 1\n")).collect()
}

/// A 1 MiB memcg (256 pages) and a file of `mib` MiB read once, a page at a
/// time: the last 256 pages stay, every other page leaves a shadow, and a
/// node (64 pages) becomes shadow-only once all its pages were evicted.
fn one_pass(policy: Policy, mib: u64, sleep_after_fill: bool, cost: Option<CostModel>) -> T {
    let mut t = T::with_options(RunOptions { policy: Some(policy), cost, ..Default::default() });
    let mut text = format!("memory 256M\nmemcg app max=1M\nfile f size={mib}M readahead=0\ntask t memcg=app\n");
    let pages = mib * 256;
    text.push_str(&reads(0..256));
    if sleep_after_fill {
        // Past the first statistics flush (2 s): the memcg's 256 LRU pages
        // are what count_shadow_nodes sees from now on.
        text.push_str("sleep 2500ms\n");
    }
    text.push_str(&reads(256..pages));
    t.run(&text);
    t.drain();
    t.check();
    t
}

#[test]
fn shadow_nodes_under_the_limit_are_kept() {
    for policy in [Policy::Classic, Policy::Mglru] {
        // 8 MiB = 32 nodes; 28 become shadow-only. The limit is (256 LRU
        // pages + slab) / 8 = 32 nodes: nothing is trimmed.
        let mut t = one_pass(policy, 8, true, None);
        assert_eq!(t.vm("workingset_nodes"), 28, "{policy:?}");
        assert_eq!(t.ev(Ev::WorkingsetNodereclaim), 0, "{policy:?}");
        // Every evicted page still has its shadow: a second pass refaults
        // all 2048 pages.
        t.run(&reads(0..2048));
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 2048, "{policy:?}");
        t.check();
    }
}

#[test]
fn shadow_nodes_over_the_limit_are_trimmed_oldest_first() {
    for policy in [Policy::Classic, Policy::Mglru] {
        // 80 MiB = 320 nodes; the last 4 hold the resident pages, 316 end
        // shadow-only, far over the limit of about 32–37 nodes ((256 LRU
        // pages + the slab of up to 320 nodes) / 8). Limit reclaim in a
        // 1 MiB memcg descends to low priorities, where the deferred work
        // (nr_deferred >> priority) adds to half the excess, so how many
        // nodes go depends on the reclaim passes; what does not: every
        // shadow-only node is either still listed or was reclaimed, whole
        // batches go oldest first, and shadows go with their node.
        let mut t = one_pass(policy, 80, true, None);
        let reclaimed = t.ev(Ev::WorkingsetNodereclaim);
        assert!(reclaimed > 0, "{policy:?}");
        assert!(t.vm("slabs_scanned") >= reclaimed, "{policy:?}");
        assert_eq!(t.vm("workingset_nodes") + reclaimed, 316, "{policy:?}");
        // The newest shadow-only node (pages 20160..20223) keeps its shadows;
        // the oldest (pages 0..63) lost them.
        t.run(&reads(20160..20224));
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 64, "{policy:?}");
        t.run(&reads(0..64));
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 64, "{policy:?}");
        t.check();
    }
}

#[test]
fn before_the_first_stats_flush_the_shrinker_sees_an_empty_memcg() {
    // A RAM-speed disk: the whole pass ends long before the first flush at
    // 2 s, so count_shadow_nodes reads zero LRU and slab pages and the
    // limit is 0 nodes, where the run with a flush after the fill sees 256
    // LRU pages (a limit of 32+ nodes). The stale run trims more.
    let fast = CostModel { disk_read: 0, ..Default::default() };
    let mut stale = one_pass(Policy::Classic, 80, false, Some(fast.clone()));
    assert!(stale.k().now < 2_000_000_000, "the pass took {} ns", stale.k().now);
    let mut fresh = one_pass(Policy::Classic, 80, true, Some(fast));
    let (s, f) = (stale.ev(Ev::WorkingsetNodereclaim), fresh.ev(Ev::WorkingsetNodereclaim));
    assert!(s > f, "stale {s}, fresh {f}");
    assert_eq!(stale.vm("workingset_nodes") + s, 316);
    assert_eq!(fresh.vm("workingset_nodes") + f, 316);
}

#[test]
fn stats_flush_every_two_seconds() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 100");
    t.drain();
    let app = t.memcg_id("app");
    let lru = |t: &mut T| t.k().memcgs[app as usize].flushed.lru_local.iter().sum::<u64>();
    assert_eq!(lru(&mut t), 0);
    // Up to 1 µs before the first flush at 2 s: still nothing.
    let left_us = (2_000_000_000 - t.k().now) / 1000;
    t.run(&format!("sleep {}us", left_us - 1));
    assert_eq!(lru(&mut t), 0);
    t.run("sleep 1us");
    assert_eq!(lru(&mut t), 100);
    assert_eq!(t.k().memcgs[0].flushed.lru.iter().sum::<u64>(), 100, "root sees the subtree");
    // The next flush is 2 s later.
    t.run("read t f 100 50");
    t.drain();
    let left_us = (4_000_000_000 - t.k().now) / 1000;
    t.run(&format!("sleep {}us", left_us - 1));
    assert_eq!(lru(&mut t), 100);
    t.run("sleep 1us");
    assert_eq!(lru(&mut t), 150);
}
