// SPDX-License-Identifier: GPL-2.0-only
//! Two tasks inside reclaim at once (`--schedule parallel`, crate::sim::tasks):
//! each task's operation runs in a coroutine that pauses between reclaim
//! batches, after isolating a batch, and in reclaim sleeps, so two direct
//! or limit reclaimers on two CPUs interleave batch by batch, each with its
//! own scan_control, and one may find the other's batch isolated
//! (`too_many_isolated`, `VMSCAN_THROTTLE_ISOLATED`).

mod common;
use common::{only_costs as costs, T};
use mglru_core::sched::Schedule;
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions};

const MS: u64 = 1_000_000;

fn t(policy: Policy, schedule: Schedule, cost: CostModel) -> T {
    T::with_options(RunOptions { policy: Some(policy), cost: Some(cost), schedule, ..Default::default() })
}

/// Tasks a and b on CPUs 0 and 1, each in a memcg of its own with
/// `max`, each reading its own file of `pages` pages once, a line each in
/// turn (`count` pages a line).
fn two_memcgs(max: &str, pages: u64, count: u64) -> String {
    let mut s = format!(
        "memory 256M\ncpus 2\nmemcg ma max={max}\nmemcg mb max={max}\nfile fa size={}K readahead=0\nfile fb size={}K readahead=0\n\
         task a memcg=ma cpu=0\ntask b memcg=mb cpu=1\n",
        pages * 4,
        pages * 4
    );
    for p in (0..pages).step_by(count as usize) {
        s += &format!("read a fa {p} {count}\nread b fb {p} {count}\n");
    }
    s
}

#[test]
fn two_limit_reclaimers_run_at_once_each_as_if_alone() {
    // Each task's memcg is over its limit for most of its read; every
    // charge of a 64-page read reclaims (try_charge: at least the
    // 64-page charge batch, two batches of 32). Serially one task is
    // inside reclaim at a time; in parallel both are, pausing between
    // batches. Their memcgs share nothing and the node's inactive file
    // list (some 2,000 pages) is far above 8 × a 32-page batch, so nobody
    // is throttled: each reclaims exactly what it would alone, and the
    // run takes the longer task's time instead of the sum.
    for policy in [Policy::Classic, Policy::Mglru] {
        let lines = two_memcgs("4M", 8192, 64);
        let cost = costs(&[("scan", MS), ("page_copy", MS)]);
        let mut ser = t(policy, Schedule::Serial, cost.clone());
        ser.run(&lines);
        ser.sim.finish().unwrap();
        let mut par = t(policy, Schedule::Parallel, cost);
        par.run(&lines);
        par.sim.finish().unwrap();
        par.check();
        assert_eq!(ser.k().sched.direct_reclaimers_peak, 1, "{policy:?}: serially one reclaimer at a time");
        assert_eq!(par.k().sched.direct_reclaimers_peak, 2, "{policy:?}: in parallel both at once");
        assert_eq!(par.k().sim.reclaim_throttled, [0, 0, 0], "{policy:?}");
        for m in ["ma", "mb"] {
            let id = ser.memcg_id(m) as usize;
            for e in [Ev::PgscanDirect, Ev::PgstealDirect, Ev::WorkingsetRefaultFile] {
                let (s, p) = (ser.k().memcgs[id].ev.get(e), par.k().memcgs[id].ev.get(e));
                assert_eq!(s, p, "{policy:?} {m} {e:?}");
            }
            assert!(ser.k().memcgs[id].ev.get(Ev::PgscanDirect) > 4000, "{policy:?} {m} reclaims");
        }
        // Each task's own time: its copies and its reclaim's scans.
        let (sa, sb) = (ser.k().tasks[0].stime_ns, ser.k().tasks[1].stime_ns);
        assert_eq!((par.k().tasks[0].stime_ns, par.k().tasks[1].stime_ns), (sa, sb), "{policy:?}");
        assert_eq!(ser.k().sim_time(), sa + sb, "{policy:?}: serially one after the other");
        // In parallel the two overlap: the run ends with the longer task,
        // give or take the last line's wait for the line above.
        let end = par.k().sim_time();
        assert!(end >= sa.max(sb) && end < sa.max(sb) + 100 * MS, "{policy:?}: {end} vs {}", sa.max(sb));
    }
}

/// Tasks a and b on CPUs 0 and 1 in one memcg `app`, reading one file in
/// turns of `count` pages.
fn one_memcg(max: &str, pages: u64, count: u64) -> String {
    let mut s = format!(
        "memory 256M\ncpus 2\nmemcg app max={max}\nfile f size={}K readahead=0\n\
         task a memcg=app cpu=0\ntask b memcg=app cpu=1\n",
        pages * 4
    );
    let half = pages / 2;
    for p in (0..half).step_by(count as usize) {
        s += &format!("read a f {p} {count}\nread b f {} {count}\n", half + p);
    }
    s
}

#[test]
fn a_reclaimer_that_finds_too_many_isolated_waits_for_the_other() {
    // One memcg of 1 MiB (256 pages) is the only user of the page cache:
    // the node's inactive file list holds at most 256 pages, an eighth of
    // it at most 32. The classic LRU's shrink_inactive_list pauses with
    // its batch of 32 isolated (NR_ISOLATED_FILE 32) while it works on it;
    // the other task's reclaim, on the other CPU, then finds more isolated
    // than an eighth of the inactive list and sleeps HZ/50
    // (reclaim_throttle VMSCAN_THROTTLE_ISOLATED) before trying once more.
    // Serially no batch is ever isolated when a reclaimer looks.
    let lines = one_memcg("1M", 4096, 64);
    let cost = costs(&[("scan", MS), ("page_copy", MS)]);
    let mut ser = t(Policy::Classic, Schedule::Serial, cost.clone());
    ser.run(&lines);
    ser.sim.finish().unwrap();
    assert_eq!(ser.k().sim.reclaim_throttled[1], 0);
    let mut par = t(Policy::Classic, Schedule::Parallel, cost.clone());
    par.run(&lines);
    par.sim.finish().unwrap();
    par.check();
    let throttled = par.k().sim.reclaim_throttled[1];
    assert!(throttled > 0, "the second reclaimer waits on the first's batch");
    // Each sleep lasts HZ/50 (5 jiffies at HZ=250, 20 ms) here: the other
    // reclaimer holds its batch for 32 ms (1 ms a folio scanned), so it
    // never asks too_many_isolated again before the sleep has ended.
    let slept = par.k().sim.reclaim_throttled_ns[1];
    assert_eq!(slept, throttled * 20 * MS);
    // Nothing stays isolated once both are done.
    assert_eq!(par.k().nr_isolated, [0, 0]);
    // The sleeps are time the tasks spend off their CPUs: the run is that
    // much longer than their CPU time allows. HZ/50 at HZ=250 is 5
    // jiffies, 20 ms.
    let cpu = par.k().tasks[0].stime_ns.max(par.k().tasks[1].stime_ns);
    assert!(par.k().sim_time() >= cpu, "{} {cpu}", par.k().sim_time());
    // The multi-gen LRU does not count its batches in NR_ISOLATED_*
    // (6.12): it never throttles there, though both reclaim at once.
    let mut mg = t(Policy::Mglru, Schedule::Parallel, cost);
    mg.run(&lines);
    mg.sim.finish().unwrap();
    mg.check();
    assert_eq!(mg.k().sim.reclaim_throttled[1], 0);
    assert_eq!(mg.k().sched.direct_reclaimers_peak, 2);
}

#[test]
fn one_cpu_keeps_reclaimers_apart() {
    // Both tasks pinned to CPU 0: a task's operation holds its CPU to the
    // end, so the other never enters reclaim beside it (the model has no
    // preemption), and nothing changes from the serial run.
    let lines = one_memcg("1M", 4096, 64).replace("cpu=1", "cpu=0");
    let cost = costs(&[("scan", MS), ("page_copy", MS)]);
    let mut ser = t(Policy::Classic, Schedule::Serial, cost.clone());
    ser.run(&lines);
    ser.sim.finish().unwrap();
    let mut par = t(Policy::Classic, Schedule::Parallel, cost);
    par.run(&lines);
    par.sim.finish().unwrap();
    assert_eq!(par.k().sched.direct_reclaimers_peak, 1);
    assert_eq!(par.k().sim.reclaim_throttled, [0, 0, 0]);
    assert_eq!(ser.k().vmstat(), par.k().vmstat());
    assert_eq!(ser.k().sim_time(), par.k().sim_time());
}

#[test]
fn a_reclaimer_that_puts_its_batch_back_wakes_the_sleeper() {
    // Two tasks in one 2 MiB memcg reading single pages of a 16 MiB file
    // in one scattered order (b 17 pages behind a), at the default costs
    // (a folio scanned some 11 µs): a batch of 32 is held well under a
    // millisecond. A sleeper's HZ/50 (20 ms) outlasts the batch it waits
    // on, and the holder's next too_many_isolated — for the next list of
    // the same round, anon or file: the queue is the node's, for both —
    // finds the count low again and wakes the queue
    // (wake_throttle_isolated): sleeps end early, each no later than its
    // timeout. Without the wake every sleep would last 20 ms.
    let mut lines = String::from(
        "memory 64M\ncpus 2\nmemcg app max=2M\nfile f size=16M readahead=0\ntask a memcg=app cpu=0\ntask b memcg=app cpu=1\n",
    );
    for i in 0..3000u64 {
        lines += &format!("read a f {}\nread b f {}\n", (i * 40_503) % 4096, (i * 40_503 + 17) % 4096);
    }
    let mut par = T::with_options(RunOptions { policy: Some(Policy::Classic), schedule: Schedule::Parallel, ..Default::default() });
    par.run(&lines);
    par.sim.finish().unwrap();
    par.check();
    let (n, slept) = (par.k().sim.reclaim_throttled[1], par.k().sim.reclaim_throttled_ns[1]);
    assert!(n > 0);
    assert!(slept < n * 20 * MS, "{slept} ns over {n} sleeps: none woken early");
    assert!(slept < n * MS, "{slept} ns over {n} sleeps: each ends within a batch's time");
}

#[test]
fn two_tasks_missing_the_same_pages_at_once_add_each_once() {
    // a and b read the same pages of one file, in lines of 16, in a memcg
    // whose limit makes every charge reclaim: one task's allocation for a
    // page may pause in its reclaim while the other adds that page; the
    // first then finds the slot taken and frees its new folio
    // (filemap_add_folio's -EEXIST). The accounting holds and every page
    // is cached once. Both policies, mmap faults and buffered reads.
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut lines = String::from(
            "memory 256M\ncpus 2\nmemcg app max=1M\nfile f size=4M readahead=0\ntask a memcg=app cpu=0\ntask b memcg=app cpu=1\n\
             mmap a m file=f\nmmap b n file=f\n",
        );
        for i in 0..64u64 {
            let p = (i * 16) % 1024;
            lines += &format!("read a f {p} 16\nread b f {p} 16\nload a m {} 4\nload b n {} 4\n", (p + 512) % 1024, (p + 512) % 1024);
        }
        let mut t = t(policy, Schedule::Parallel, CostModel::default());
        t.run(&lines);
        t.sim.finish().unwrap();
        t.check();
        assert_eq!(t.k().sched.direct_reclaimers_peak, 2, "{policy:?}");
    }
}

#[test]
fn two_readers_of_one_file_share_its_misses_batch_by_batch() {
    // Both tasks read the same 62 uncached pages (readahead off) in one
    // line each, from time 0, on two CPUs; a miss waits 1,000 ns and
    // nothing else costs. A read pauses between its batches, so each task
    // finds cached what the other has read by then and reads the rest
    // itself: the two share the misses and the lines end at half of
    // 62,000 ns. (Applied whole, as before 2026-11-27, the first line read
    // all 62 pages, ending at 62,000, and the second found them cached at
    // its time 0.)
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut par = t(policy, Schedule::Parallel, costs(&[("disk_read", 1_000)]));
        par.run(
            "memory 256M\ncpus 2\nfile f size=1M readahead=0\ntask a cpu=0\ntask b cpu=1\n\
             read a f 0 62\nread b f 0 62\n",
        );
        par.sim.finish().unwrap();
        par.check();
        let k = par.k();
        assert_eq!(k.ev.get(Ev::Pgpgin) / 4, 62, "{policy:?}: each page read from disk once");
        let ends = (k.sched.task_clock[0], k.sched.task_clock[1]);
        // 62 misses of 1,000 ns between them; the scheduler runs the one
        // behind, so the two clocks stay within a miss of each other, and
        // each line ends with the last page: both at 31,000.
        assert_eq!(ends, (31_000, 31_000), "{policy:?}");
    }
}
