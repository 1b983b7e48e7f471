// SPDX-License-Identifier: GPL-2.0-only
//! Parallel scheduling (crate::sched): tasks on their own CPUs run side by
//! side in simulated time; tasks on one CPU take turns; lines without a
//! task are barriers; psi weights each CPU by its own non-idle time.
//! Every expected time below is worked out from the costs the test sets.

mod common;
use common::{only_costs as costs, T};
use mglru_core::sched::Schedule;
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions};


fn t(schedule: Schedule, cost: CostModel) -> T {
    T::with_options(RunOptions { policy: Some(Policy::Mglru), cost: Some(cost), schedule, ..Default::default() })
}

/// Two tasks, each with a one-page anon region, pinned as given.
fn setup(cpu_a: u32, cpu_b: u32) -> String {
    format!("memory 64M\ncpus 2\ntask a cpu={cpu_a}\ntask b cpu={cpu_b}\nanon a r size=4K\nanon b s size=4K\n")
}

const OP: u64 = 1000;

#[test]
fn two_tasks_on_two_cpus_run_side_by_side() {
    // Four loads each, alternating lines, 1 µs per operation (the only
    // cost). Serially the eight operations follow one another: 8 µs. In
    // parallel a's k-th load and b's k-th load both start at (k-1) µs: the
    // run lasts 4 µs, and each task used 4 µs of CPU.
    let lines = "load a r 0\nload b s 0\n".repeat(4);
    let mut serial = t(Schedule::Serial, costs(&[("op", OP)]));
    serial.run(&(setup(0, 1) + &lines));
    assert_eq!(serial.k().sim_time(), 8 * OP);
    let mut par = t(Schedule::Parallel, costs(&[("op", OP)]));
    par.run(&(setup(0, 1) + &lines));
    assert_eq!(par.k().sim_time(), 4 * OP);
    for task in [0, 1] {
        assert_eq!(par.k().tasks[task].utime_ns, 4 * OP, "task {task}'s CPU time is its own four operations");
    }
    // The same page-level events either way: no cost depends on time here.
    for e in [Ev::Pgfault, Ev::PgallocNormal] {
        assert_eq!(serial.ev(e), par.ev(e), "{e:?}");
    }
    par.check();
}

#[test]
fn tasks_pinned_to_one_cpu_take_turns() {
    // Both on CPU 0: each load waits for the other's to end, as serially.
    let lines = "load a r 0\nload b s 0\n".repeat(4);
    let mut par = t(Schedule::Parallel, costs(&[("op", OP)]));
    par.run(&(setup(0, 0) + &lines));
    assert_eq!(par.k().sim_time(), 8 * OP);
}

#[test]
fn no_line_starts_before_the_line_above() {
    // a's four loads, then b's four, on two CPUs. a's run at 0,1,2,3 µs;
    // b's first cannot start before the line above it (a's last, at 3 µs),
    // so b runs at 3,4,5,6 µs and the run ends at 7 µs (serially 8).
    let lines = "load a r 0\n".repeat(4) + &"load b s 0\n".repeat(4);
    let mut par = t(Schedule::Parallel, costs(&[("op", OP)]));
    par.run(&(setup(0, 1) + &lines));
    assert_eq!(par.k().sim_time(), 7 * OP);
}

#[test]
fn lines_without_a_task_are_barriers() {
    // a and b overlap in [0, 1 µs); the sleep starts when both are done
    // (1 µs) and lasts 1 ms; a's next load starts after it, and b's after
    // the line above (a's load, at 1.001 ms): the run ends at 1.002 ms.
    let lines = "load a r 0\nload b s 0\nsleep 1ms\nload a r 0\nload b s 0\n";
    let mut par = t(Schedule::Parallel, costs(&[("op", OP)]));
    par.run(&(setup(0, 1) + lines));
    assert_eq!(par.k().sim_time(), OP + 1_000_000 + OP);
    // A second sleep adds its own length after everything before it.
    par.run("sleep 2ms");
    assert_eq!(par.k().sim_time(), OP + 1_000_000 + OP + 2_000_000);
}

#[test]
fn a_stall_on_one_cpu_is_weighted_by_both_cpus_nonidle_time() {
    // Task a (CPU 0, memcg app with max=1M) reads 600 pages of a file:
    // limit reclaim, 1 ms per page scanned, all of it a memory stall. Task
    // b (CPU 1, memcg other) reads 200 cached pages at 1 ms per page copied:
    // busy, never stalled. In parallel b's read starts with a's, at 0.
    let lines = "memory 256M\ncpus 2\nmemcg app max=1M\nmemcg other\nfile f size=4M readahead=0\nfile g size=1M readahead=0\n\
                 task a memcg=app cpu=0\ntask b memcg=other cpu=1\nread b g 0 200\nread a f 0 600\nread b g 0 200\n";
    let cost = costs(&[("scan", 1_000_000), ("page_copy", 1_000_000)]);
    let mut par = t(Schedule::Parallel, cost.clone());
    par.run(lines);
    // (Lines may still be in flight: every one ends.)
    par.sim.finish().unwrap();
    let app = par.memcg_id("app");
    let other = par.memcg_id("other");
    let (scanned, refill) = {
        let k = par.k();
        (k.memcgs[app as usize].ev.get(Ev::PgscanDirect), k.memcgs[app as usize].ev.get(Ev::Pgrefill))
    };
    assert!(scanned > 300, "the 600-page read in a 256-page memcg reclaims: {scanned}");
    // CPU 1: b's first read, [0, 200 ms). CPU 0: a's read starts with it
    // (the line above started at 0), copies 600 pages (600 ms) and stalls
    // (scanned + refill) ms. b's second read starts when CPU 1 is free
    // again, at 200 ms, and ends at 400 ms.
    let stall_ns = (scanned + refill) * 1_000_000;
    let a_busy = 600 * 1_000_000 + stall_ns;
    let b_busy = 400 * 1_000_000;
    assert_eq!(par.k().sim_time(), a_busy.max(b_busy));
    assert!(par.k().sim_time() < 2_000_000_000, "one psi period: the totals are exact, no average taken");
    // app's pressure: only CPU 0 was non-idle in it, all of the stall.
    let want_app = stall_ns / 1000;
    let shown = par.k().psi_show(app);
    assert!(shown.contains(&format!("some avg10=0.00 avg60=0.00 avg300=0.00 total={want_app}\n")), "{shown}");
    // The system: collect_percpu_times weights each CPU by its non-idle
    // jiffies (4 ms): CPU 0 stalled for stall_ns of its a_busy, CPU 1 never.
    let j = 4_000_000;
    let (n0, n1) = (a_busy / j, b_busy / j);
    let want_root = (stall_ns as u128 * n0 as u128 / (n0 + n1) as u128) as u64 / 1000;
    let shown = par.k().psi_show(0);
    assert!(shown.contains(&format!("total={want_root}\nfull")), "want some total={want_root}: {shown}");
    assert!(par.k().psi_show(other).contains("total=0\nfull"));
    par.check();
}

#[test]
fn parallel_runs_are_deterministic_under_pressure() {
    // Two CPUs, kswapd as a thread, global pressure with swap: twice the
    // same counters, bit for bit.
    let run = || {
        let mut t = T::with_options(RunOptions {
            policy: Some(Policy::Classic),
            schedule: Schedule::Parallel,
            kswapd: mglru_core::kswapd::KswapdMode::Thread,
            ..Default::default()
        });
        let mut lines = String::from("memory 32M\nswap 64M\ncpus 2\nsysctl vm.swappiness=200\nfile f size=24M\ntask a cpu=0\ntask b cpu=1\nanon b r size=24M\n");
        for i in 0..192u64 {
            lines += &format!("read a f {} 128\nstore b r {} 64\n", (i * 128) % 6144, (i * 64) % 6144);
        }
        t.run(&lines);
        t.check();
        let k = t.k();
        (k.vmstat(), k.sim_time())
    };
    let (v1, t1) = run();
    let (v2, t2) = run();
    assert_eq!(v1, v2);
    assert_eq!(t1, t2);
    assert!(v1.iter().any(|(n, v)| *n == "pswpout" && *v > 0), "the run swaps");
}

#[test]
fn a_guest_clock_holds_each_line_back_to_when_the_guest_released_it() {
    // The replayer's time profile in a parallel replay is when it released
    // each line: b's load may start no earlier than 5 µs, though its task
    // and CPU are free at 0; a's second load starts when a is free (1 µs
    // after its first, released at 0) or at its own release, 2 µs.
    let mut par = t(Schedule::Parallel, costs(&[("op", OP)]));
    par.run(&setup(0, 1));
    par.sim.clock_at_least(0).unwrap();
    par.run("load a r 0");
    par.sim.clock_at_least(5 * OP).unwrap();
    par.run("load b s 0");
    assert_eq!(par.k().sim_time(), 6 * OP);
    par.sim.clock_at_least(2 * OP).unwrap();
    par.run("load a r 0");
    // Not before the line above started (5 µs): a's load runs 5..6 µs.
    assert_eq!(par.k().tasks[0].utime_ns, 2 * OP);
    assert_eq!(par.k().sim_time(), 6 * OP);
    par.run("load a r 0");
    assert_eq!(par.k().sim_time(), 7 * OP);
}

#[test]
fn a_task_waiting_for_the_cpu_of_a_stalled_task_makes_the_stall_some_not_full() {
    // a and b share CPU 0. a's read in memcg app (max=1M) is all limit
    // reclaim at 1 ms per page scanned: a memory stall of S ms from 0. b's
    // read (the next line, released at 0) waits for the CPU until S, then
    // copies one page in 1 ms. While b was runnable, a's stall was "some"
    // but not "full" in the groups holding both (the root); app holds only
    // a: there it stays full. Serially b is not waiting (it has nothing to
    // do until a's line ends), so full equals some.
    let lines = "memory 256M\ncpus 2\nmemcg app max=1M\nmemcg other\nfile f size=4M readahead=0\nfile g size=1M readahead=0\n\
                 task a memcg=app cpu=0\ntask b memcg=other cpu=0\nread a f 0 600\nread b g 0 1\n";
    let cost = costs(&[("scan", 1_000_000), ("page_copy", 1_000_000)]);
    let run = |schedule| {
        let mut t = t(schedule, cost.clone());
        t.run(lines);
        let app = t.memcg_id("app");
        let k = t.k();
        let s = (k.memcgs[app as usize].ev.get(Ev::PgscanDirect) + k.memcgs[app as usize].ev.get(Ev::Pgrefill)) * 1_000_000;
        (t.k().sim_time(), s, t.k().psi_show(0), t.k().psi_show(app))
    };
    let (end, stall, root, app) = run(Schedule::Parallel);
    // a copies 600 pages (600 ms) and stalls; b runs after it.
    assert_eq!(end, 600_000_000 + stall + 1_000_000);
    let us = stall / 1000;
    assert!(stall > 0 && end < 2_000_000_000);
    assert!(root.starts_with(&format!("some avg10=0.00 avg60=0.00 avg300=0.00 total={us}\n")), "{root}");
    // b waited from 0 to the end of a's read: the whole stall.
    assert!(root.ends_with("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"), "{root}");
    assert!(app.ends_with(&format!("total={us}\n")), "app keeps its full stall: {app}");
    let (_, stall_s, root_s, _) = run(Schedule::Serial);
    assert_eq!(stall_s, stall);
    assert!(root_s.ends_with(&format!("full avg10=0.00 avg60=0.00 avg300=0.00 total={us}\n")), "{root_s}");
}

#[test]
fn kswapd_and_direct_reclaimers_never_hold_the_same_folio() {
    // Two readers on two CPUs outrun kswapd (a thread at 100 µs per page
    // scanned) on a 32M machine: both kswapd and the tasks' direct reclaim
    // run. After every line no folio is still isolated (the invariant
    // checker's rule): every reclaimer put back or freed what it took
    // within its own step, so none ever held a folio another one had.
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::with_options(RunOptions {
            policy: Some(policy),
            schedule: Schedule::Parallel,
            kswapd: mglru_core::kswapd::KswapdMode::Thread,
            cost: Some(costs(&[("scan", 100_000), ("page_copy", 1_000)])),
            ..Default::default()
        });
        t.run("memory 32M\ncpus 2\nfile f size=48M\nfile g size=48M\ntask a cpu=0\ntask b cpu=1");
        for i in 0..96u64 {
            t.run(&format!("read a f {} 128\nread b g {} 128", i * 128, i * 128));
            t.check();
        }
        let (kswapd, direct) = (t.vm("pgscan_kswapd"), t.vm("pgscan_direct"));
        assert!(kswapd > 0 && direct > 0, "{policy:?}: both reclaim (kswapd {kswapd}, direct {direct})");
    }
}
