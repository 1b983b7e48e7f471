// SPDX-License-Identifier: GPL-2.0-only
//! `reclaim_throttle` (mm/vmscan.c) by reason, and the memcg writeback
//! domain's headroom (`mem_cgroup_wb_stats`), worked out by hand.

mod common;
use common::T;
use mglru_core::vmscan::Throttle;
use mglru_core::{CostModel, Policy, RunOptions};

const MS: u64 = 1_000_000;

/// A machine whose disk takes 1 ms a page, one after another. `n` pages
/// are dirtied at time 0 and written by the flusher's wake-up at 30 s
/// (the first that finds the inode 30 s old), all submitted at once:
/// page i's writeback ends at 30 s + (i+1) ms.
fn pages_being_written(n: u64) -> T {
    let mut cost = CostModel::default();
    cost.set("disk_write", MS).unwrap();
    // The writes themselves take no time: everything below is at whole ms.
    cost.set("page_copy", 0).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(cost), ..Default::default() });
    t.run(&format!("memory 1G\nfile f size=64M readahead=0\ntask t\nwrite t f 0 {n}\nsleep 30s\n"));
    assert_eq!(t.k().now, 30_000 * MS);
    assert_eq!(t.vm("nr_writeback"), n);
    t
}

/// `VMSCAN_THROTTLE_WRITEBACK` (HZ/10 = 100 ms) wakes when more than
/// SWAP_CLUSTER_MAX (32) pages have ended writeback since the sleep
/// began: at the 33rd completion, 33 ms later, with 7 still being written.
#[test]
fn writeback_throttle_wakes_after_32_completions() {
    let mut t = pages_being_written(40);
    t.k().reclaim_throttle(Throttle::Writeback);
    assert_eq!(t.k().now, 30_033 * MS);
    assert_eq!(t.vm("nr_writeback"), 7);
}

/// `VMSCAN_THROTTLE_ISOLATED` sleeps its whole HZ/50 (20 ms): nothing
/// wakes its queue in 6.12, writeback completions included.
#[test]
fn isolated_throttle_sleeps_its_timeout() {
    let mut t = pages_being_written(40);
    t.k().reclaim_throttle(Throttle::Isolated);
    assert_eq!(t.k().now, 30_020 * MS);
    assert_eq!(t.vm("nr_writeback"), 20);
}

/// `VMSCAN_THROTTLE_CONGESTED` sleeps one jiffy (4 ms at HZ=250), not
/// woken by the completions meanwhile — but `skip_throttle_noprogress`
/// skips it while at most half of the node's reclaimable pages wait for
/// writeback. Reclaimable is per zone the file LRU (no swap here), or the
/// zone's free pages where it has no LRU pages at all (6.12.117): the DMA
/// zone's few thousand free pages count. 10,000 pages being written (on
/// 1 GiB, under the global background threshold until the 30 s wake-up)
/// and nothing else cached: 20,000 > 10,000 + DMA's free pages, it sleeps
/// the jiffy. With 20,000 more clean cached pages it returns at once.
#[test]
fn congested_throttle_sleeps_a_jiffy_unless_little_is_pending() {
    let mut t = pages_being_written(10_000);
    t.k().reclaim_throttle(Throttle::Congested);
    assert_eq!(t.k().now, 30_004 * MS);
    let mut t = pages_being_written(10_000);
    t.run("file g size=100M readahead=0\nread t g 0 20000\n");
    let now = t.k().now;
    assert_eq!(t.vm("nr_writeback") + t.vm("nr_dirty"), 10_000 - (now - 30_000 * MS) / MS);
    t.k().reclaim_throttle(Throttle::Congested);
    assert_eq!(t.k().now, now);
}

/// The memcg writeback domain's headroom is the least of the memcg's and
/// its non-root ancestors' (`mem_cgroup_wb_stats`). A task in `w`, a
/// memcg without limits under `top` (max 64M), dirties 5,120 pages (20
/// MiB) of a file on a 1 GiB machine, far under the global background
/// threshold. Three seconds later (the statistics flushed at 2 s) it
/// dirties one more: `w`'s domain has about 5,121 file pages plus `top`'s
/// headroom of about 11,260 pages available, a background threshold of
/// 10 % of that, about 1,640 pages, which 5,120 dirty pages exceed, so
/// writeback starts. With `top` unlimited the headroom is the machine's
/// and the global background threshold holds: nothing is written.
#[test]
fn a_child_memcg_has_its_parents_dirty_headroom() {
    let run = |top: &str| {
        let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), ..Default::default() });
        t.run(&format!(
            "memory 1G\nmemcg top{top}\nmemcg w parent=top\nfile f size=64M readahead=0\ntask t memcg=w\n\
             write t f 0 5120\nsleep 3s\nwrite t f 5120 1\n"
        ));
        t.check();
        t.vm("nr_dirty")
    };
    assert!(run(" max=64M") < 5121, "the parent's headroom bounds the child's domain");
    assert_eq!(run(""), 5121, "no limit anywhere: the global thresholds only");
}

/// domain_dirty_limits turns the ratios into parts per PAGE_SIZE before it
/// applies them: 20 % is 819/4096 and 10 % is 409/4096, so the thresholds
/// are a little under a fifth and a tenth of the dirtyable memory. With
/// dirtyable memory `a`, worked out by hand from those fractions.
#[test]
fn dirty_thresholds_round_as_the_kernels_per_page_ratios() {
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), ..Default::default() });
    t.run("memory 1G\nfile f size=64M readahead=0\ntask t\nread t f 0 4096\n");
    t.check();
    let k = t.k();
    let a = k.global_dirtyable_memory();
    assert!(a > 100_000, "1G has more than 100,000 dirtyable pages: {a}");
    let (bg, thresh) = k.dirty_thresholds();
    assert_eq!(thresh, a * 819 / 4096);
    assert_eq!(bg, a * 409 / 4096);
    // The plain percentages would give more: a fifth exceeds 819/4096 by
    // a/20480 pages, which is above one page here.
    assert!(a / 5 > thresh && a / 10 > bg);
}

/// kswapd's congestion tag (LRUVEC_NODE_CONGESTED) is set on its own
/// target, the root lruvec, and shrink_node tests the flags of its
/// target's lruvec: a memory.reclaim of a memcg below the root is not
/// stalled by it, even with most of the node's pages being written (so
/// `skip_throttle_noprogress` would not skip the sleep). The same reclaim
/// takes the same time with and without the tag.
#[test]
fn memcg_reclaim_ignores_kswapds_node_congestion() {
    let run = |congested: bool| {
        let mut t = pages_being_written(10_000);
        t.run("memcg m\ntask u memcg=m\nfile g size=8M readahead=0\nread u g 0 1000\n");
        t.k().node_congested = congested;
        let before = t.k().now;
        t.run("reclaim m 400K\n");
        let r = t.k().reclaim_results.last().copied().unwrap();
        assert!(r.reclaimed >= 100, "{r:?}");
        t.k().now - before
    };
    assert_eq!(run(true), run(false));
}
