// SPDX-License-Identifier: GPL-2.0-only
//! Shadow-entry nodes, the shadow-node shrinker and the memcg statistics
//! flush it reads (mm/workingset.c `count_shadow_nodes`, mm/shrinker.c
//! `do_shrink_slab`, mm/memcontrol.c `flush_memcg_stats_dwork`).

mod common;
use common::T;
use mglru_core::cost::CostModel;
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

/// The nodes (64 pages each) of file `f` that hold no resident page: after
/// one pass, the nodes whose pages were all evicted, i.e. the shadow-only
/// ones. The resident pages are the newest ones the memcg holds: its 256
/// pages less the slab pages (the nodes, charged to it) and the charge
/// stock, so this is counted, not assumed.
fn nodes_without_pages(t: &mut T, pages: u64) -> u64 {
    (0..pages / 64).filter(|n| (n * 64..(n + 1) * 64).all(|p| t.folio_of("f", p).is_none())).count() as u64
}

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
        // 8 MiB = 32 nodes; those whose pages were all evicted (28 or 29:
        // 256 pages less the charged slab and stock stay resident) become
        // shadow-only. The limit is (LRU + slab pages) / 8 ≥ 31 nodes:
        // nothing is trimmed.
        let mut t = one_pass(policy, 8, true, None);
        let shadow_only = nodes_without_pages(&mut t, 2048);
        assert!((28..=29).contains(&shadow_only), "{policy:?}: {shadow_only}");
        assert_eq!(t.vm("workingset_nodes"), shadow_only, "{policy:?}");
        // The 32 nodes are the memcg's slab: 584 bytes each.
        let app = t.memcg_id("app");
        let slab = t.k().memory_stat(app).iter().find(|(n, _)| *n == "slab").unwrap().1;
        assert_eq!(slab, 32 * 584, "{policy:?}");
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
        // Up to ~320 nodes of 584 bytes (46 pages) and the stock share the
        // memcg with the resident pages: 3 to 5 nodes keep pages.
        let shadow_only = nodes_without_pages(&mut t, 20480);
        assert!((315..=317).contains(&shadow_only), "{policy:?}: {shadow_only}");
        assert_eq!(t.vm("workingset_nodes") + reclaimed, shadow_only, "{policy:?}");
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
    let n = nodes_without_pages(&mut stale, 20480);
    assert_eq!(stale.vm("workingset_nodes") + s, n);
    let n = nodes_without_pages(&mut fresh, 20480);
    assert_eq!(fresh.vm("workingset_nodes") + f, n);
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

/// Kernel memory charged to a memcg: ext4 gives a page one buffer_head
/// (112 bytes with its obj_cgroup pointer) when it is first written, and
/// the page cache's xarray nodes (584 bytes each) are charged to the memcg
/// whose page allocated them. memory.stat's slab shows the bytes; the
/// memory counter holds them as whole pages (memory.stat `kernel`).
/// Reclaiming a written page frees its buffer_head; a node stays while it
/// holds pages or shadows.
#[test]
fn written_pages_carry_a_buffer_head_charged_to_their_memcg() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nwrite t f 0 128\nread t f 128 64\n");
        t.drain();
        let app = t.memcg_id("app");
        let stat = |t: &mut T, name: &str| t.k().memory_stat(app).iter().find(|(n, _)| *n == name).unwrap().1;
        // 128 written pages, 3 nodes (pages 0..191).
        assert_eq!(stat(&mut t, "slab"), 128 * 112 + 3 * 584, "{policy:?}");
        assert_eq!(stat(&mut t, "slab_reclaimable"), 128 * 112 + 3 * 584, "{policy:?}");
        // 16088 bytes fill 4 pages, which the memory counter holds.
        let pgtables = stat(&mut t, "pagetables");
        assert_eq!(stat(&mut t, "kernel") - pgtables, 4 * 4096, "{policy:?}");
        // Rewriting a page does not add a buffer_head.
        t.run("write t f 5\n");
        assert_eq!(stat(&mut t, "slab"), 128 * 112 + 3 * 584, "{policy:?}");
        // DONTNEED drops the clean read pages 128..191 without shadows (the
        // invalidation leaves none), so their node goes; it starts
        // writeback of the dirty ones. Once written, reclaim evicts them:
        // their buffer heads go, their two nodes stay, holding shadows.
        t.run("advise t f dontneed\nsleep 40s\nreclaim app 4M\n");
        t.drain();
        let resident = (0..256).filter(|&p| t.folio_of("f", p).is_some()).count() as u64;
        let written_resident = (0..128).filter(|&p| t.folio_of("f", p).is_some()).count() as u64;
        assert!(resident < 192, "{policy:?}: reclaim left {resident} pages");
        assert_eq!(stat(&mut t, "slab"), written_resident * 112 + 2 * 584, "{policy:?}");
        t.check();
    }
}
