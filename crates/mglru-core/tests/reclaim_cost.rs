// SPDX-License-Identifier: GPL-2.0-only
//! Reclaim's CPU time by step (docs/COST_MODEL.md): each test gives one
//! step a cost and every other cost 0, so the reclaimer's CPU time is
//! that step's count times its cost, and the count follows from the
//! kernel's counters and the trace by hand.

mod common;
use common::T;
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions};

/// Every cost 0 but `name`, which is 1 µs.
fn only(name: &str) -> CostModel {
    common::only_costs(&[(name, 1_000)])
}

fn with(policy: Policy, cost: &str) -> T {
    T::with_options(RunOptions { policy: Some(policy), cost: Some(only(cost)), ..Default::default() })
}

#[test]
fn unmapping_a_mapped_file_folio_costs_one_rmap_step() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = with(policy, "rmap");
        // MADV_RANDOM: folio_referenced skips the mapping (no recency), so
        // each folio reclaim frees was visited once, by try_to_unmap. The
        // loads leave the folios clean: each one unmapped is freed.
        t.run("memory 256M\nmemcg app max=1M\nfile f size=4M readahead=0\ntask a memcg=app\nmmap a m file=f\nadvise a m random");
        for p in 0..600 {
            t.run(&format!("load a m {p} 1"));
        }
        let app = t.memcg_id("app") as usize;
        let stolen = t.k().memcgs[app].ev.get(Ev::PgstealDirect);
        assert!(stolen > 300, "{policy:?}: 600 pages through a 256-page memcg: {stolen} reclaimed");
        let k = t.k();
        assert_eq!(k.sim.reclaim_work.rmap, stolen, "{policy:?}");
        assert_eq!(k.tasks[0].stime_ns, stolen * 1_000, "{policy:?}: the reclaimer's system time");
        assert_eq!(k.now, stolen * 1_000, "{policy:?}: nothing else took time");
        assert_eq!(k.sim.reclaim_work.pte, 0, "{policy:?}: no page-table walk, no look-around");
        t.check();
    }
}

#[test]
fn each_folio_written_to_swap_costs_one_pageout_step() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = with(policy, "pageout");
        t.run("memory 256M\nswap 64M sync=y\nmemcg app max=1M\ntask a memcg=app\nanon a h size=4M");
        for p in 0..600 {
            t.run(&format!("store a h {p} 1"));
        }
        let (pswpout, written) = (t.ev(Ev::Pswpout), t.ev(Ev::NrVmscanWrite));
        assert!(pswpout > 300, "{policy:?}: {pswpout}");
        // A synchronous device: every folio reclaim writes is swapped out.
        assert_eq!(written, pswpout, "{policy:?}");
        let k = t.k();
        assert_eq!(k.sim.reclaim_work.pageout, pswpout, "{policy:?}");
        assert_eq!(k.tasks[0].stime_ns, pswpout * 1_000, "{policy:?}");
        t.check();
    }
}

#[test]
fn an_aging_walk_costs_one_pte_step_per_entry_of_the_mapping() {
    let mut t = with(Policy::Mglru, "pte");
    // A 1 MiB heap is 256 PTEs in one page table; the aging command with
    // FORCE_SCAN walks the memcg's one mm whatever its Bloom filters say.
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask a memcg=app\nanon a h size=1M\nstore a h 0 256");
    let before = t.k().now;
    t.run("lru_gen + app 0 3 60 1");
    assert_eq!(t.k().sim.reclaim_work.pte, 256);
    assert_eq!(t.k().now - before, 256 * 1_000, "the walk's 256 entries at 1 µs");
    // The second walk finds the same 256 entries, none young any more.
    t.run("lru_gen + app 0 4 60 1");
    assert_eq!(t.k().sim.reclaim_work.pte, 512);
    assert_eq!(t.k().now - before, 512 * 1_000);
    assert_eq!(t.k().sim.reclaim_work.scanned, 0, "aging scans no LRU list");
    t.check();
}

#[test]
fn classic_deactivation_walks_the_rmap_of_each_mapped_folio_it_takes_off_the_active_list() {
    let mut t = with(Policy::Classic, "rmap");
    // Without MADV_RANDOM the mapping has recency. Two reads make each
    // page active (folio_mark_accessed), a load maps it; memory.reclaim
    // then finds the inactive list empty: shrink_active_list walks the
    // one mapping of each folio it takes (pgrefill) and deactivates it;
    // shrink_folio_list walks it again in folio_check_references (every
    // folio it is handed is still mapped), and once more in try_to_unmap
    // for each folio it frees.
    t.run("memory 256M\nmemcg app\nfile f size=2M readahead=0\ntask a memcg=app\nread a f 0 512\nread a f 0 512");
    t.run("mmap a m file=f\nload a m 0 512\nreclaim app 1M");
    let app = t.memcg_id("app") as usize;
    let k = t.k();
    let (stolen, refill, activated) =
        (k.memcgs[app].ev.get(Ev::PgstealDirect), k.memcgs[app].ev.get(Ev::Pgrefill), k.memcgs[app].ev.get(Ev::Pgactivate));
    let scanned = k.memcgs[app].ev.get(Ev::PgscanDirect);
    assert!(stolen > 0 && refill > 0 && activated > 0, "stolen {stolen} refill {refill} activated {activated}");
    assert_eq!(k.sim.reclaim_work.rmap, scanned + stolen + refill, "stolen {stolen} activated {activated}");
    assert_eq!(k.tasks[0].stime_ns, k.sim.reclaim_work.rmap * 1_000);
    t.check();
}

#[test]
fn a_reclaim_that_finds_nothing_costs_its_lruvec_visits() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = with(policy, "lruvec");
        // Each memcg's one page is anon and there is no swap: nothing is
        // reclaimable. memory_reclaim of one page: 16 calls that reclaim
        // nothing use up the retries, the 17th returns -EAGAIN. Each
        // try_to_free_mem_cgroup_pages runs the 13 priorities (12 to 0),
        // then again with memcg_full_walk: 26 shrink_node calls, each
        // visiting every memcg of the subtree that holds a page (an empty
        // one is below its memory.min of 0 and skipped).
        t.run("memory 256M\nmemcg app\nmemcg c0 parent=app\nmemcg c1 parent=app\nmemcg c2 parent=app");
        for c in 0..3 {
            t.run(&format!("task t{c} memcg=c{c}\nanon t{c} h size=4K\nstore t{c} h 0 1"));
        }
        let (now, work) = (t.k().now, t.k().sim.reclaim_work);
        assert_eq!(work.lruvecs, 0, "{policy:?}: no reclaim yet");
        t.run("reclaim c0 4K");
        let k = t.k();
        assert_eq!(k.sim.reclaim_work.lruvecs, 17 * 26, "{policy:?}: a leaf: one lruvec a pass");
        assert_eq!(k.now - now, 17 * 26 * 1_000, "{policy:?}: 1 µs a visit, nothing else costs");
        assert_eq!(k.reclaim_results.last().map(|r| (r.reclaimed, r.result)), Some((0, -11)), "{policy:?}");
        // The parent: itself (its usage is its children's) and its three
        // children, each pass.
        t.run("reclaim app 4K");
        let k = t.k();
        assert_eq!(k.sim.reclaim_work.lruvecs, 17 * 26 + 17 * 26 * 4, "{policy:?}");
        assert_eq!(k.sim.reclaim_work.scanned, 0, "{policy:?}: no folio on any list reclaim may scan");
        t.check();
    }
}

#[test]
fn a_synchronous_swap_in_is_system_time_an_asynchronous_one_a_wait() {
    for policy in [Policy::Classic, Policy::Mglru] {
        for (sync, on_cpu) in [("y", true), ("n", false)] {
            let mut t = with(policy, "swap_read");
            // 600 pages through a 256-page memcg: most go to swap (the
            // write costs nothing here), then the task loads them again.
            t.run(&format!("memory 256M\nswap 64M sync={sync}\nmemcg app max=1M\ntask a memcg=app\nanon a h size=4M"));
            for p in 0..600 {
                t.run(&format!("store a h {p} 1"));
            }
            let (now, stime, majflt) = (t.k().now, t.k().tasks[0].stime_ns, t.ev(Ev::Pgmajfault));
            assert_eq!(majflt, 0, "{policy:?} sync={sync}: nothing read back yet");
            for p in 0..200 {
                t.run(&format!("load a h {p} 1"));
            }
            let majflt = t.ev(Ev::Pgmajfault);
            assert!(majflt > 20, "{policy:?} sync={sync}: {majflt} major faults (readahead on the block device)");
            let k = t.k();
            // One swap_read (1 µs) per major fault, whichever the device.
            assert_eq!(k.now - now, majflt * 1_000, "{policy:?} sync={sync}");
            // zram/brd do the read in the faulting task (submit_bio_wait):
            // system time; a block device's read is a sleep.
            let want = if on_cpu { majflt * 1_000 } else { 0 };
            assert_eq!(k.tasks[0].stime_ns - stime, want, "{policy:?} sync={sync}");
            t.check();
        }
    }
}
