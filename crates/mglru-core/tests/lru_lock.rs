// SPDX-License-Identifier: GPL-2.0-only
//! A lruvec's lru_lock held by one CPU makes another that wants it spin
//! (crate::sched `lru_lock_section`; docs/COST_MODEL.md "The lru_lock"):
//! only where two CPUs' work overlaps in time (parallel scheduling, kswapd
//! as a thread), never serially or on a guest's clock.

mod common;
use common::{only_costs as costs, T};
use mglru_core::sched::Schedule;
use mglru_core::{CostModel, Policy, RunOptions};

fn t(policy: Policy, schedule: Schedule, cost: CostModel) -> T {
    T::with_options(RunOptions { policy: Some(policy), cost: Some(cost), schedule, ..Default::default() })
}

/// Tasks a and b on CPUs 0 and 1 in one memcg, each storing `pages` new
/// pages of its own heap in one line.
fn two_faulters(pages: u64) -> String {
    format!(
        "memory 256M\ncpus 2\nmemcg m\ntask a memcg=m cpu=0\ntask b memcg=m cpu=1\n\
         anon a h size=1M\nanon b h size=1M\nstore a h 0 {pages}\nstore b h 0 {pages}\n"
    )
}

#[test]
fn two_cpus_filling_their_lru_add_batches_at_once_take_turns_on_the_lock() {
    // Worked by hand. Each fault costs 1,000 ns of the faulting task's
    // system time, and both tasks start at 0 on their own CPUs, so each
    // fills its 31-folio lru_add batch (PAGEVEC_SIZE) with its 31st fault,
    // at the same moment, and drains it into the memcg's lruvec: 31 folios
    // × 100 ns under the lock (lru_lock 0), the section ending at the
    // drain (the drain's work is in the faults' time). The first to take
    // it holds [27,900, 31,000]; the other's section would be the same,
    // so it spins for 3,100 ns, as system time, and ends 3,100 ns later. Serially the second task's faults come after the
    // first's: nobody waits, and nothing is even timed.
    for policy in [Policy::Classic, Policy::Mglru] {
        let cost = costs(&[("minor_fault", 1_000), ("lock_add", 100)]);
        let mut par = t(policy, Schedule::Parallel, cost.clone());
        par.run(&two_faulters(31));
        par.sim.finish().unwrap();
        par.check();
        let k = par.k();
        let lock = k.sim.lru_lock;
        assert_eq!((lock.sections, lock.contended, lock.wait_ns, lock.kswapd_wait_ns), (2, 1, 3_100, 0), "{policy:?}");
        let (sa, sb) = (k.tasks[0].stime_ns, k.tasks[1].stime_ns);
        assert_eq!(sa.min(sb), 31_000, "{policy:?}: the first drains without waiting");
        assert_eq!(sa.max(sb), 34_100, "{policy:?}: the second spins for the first's section");

        let mut ser = t(policy, Schedule::Serial, cost);
        ser.run(&two_faulters(31));
        ser.sim.finish().unwrap();
        let k = ser.k();
        assert_eq!(k.sim.lru_lock, Default::default(), "{policy:?}: serially no section is timed");
        assert_eq!((k.tasks[0].stime_ns, k.tasks[1].stime_ns), (31_000, 31_000), "{policy:?}");
    }
}

#[test]
fn sections_of_one_cpu_never_wait_for_each_other() {
    // A batch's drain is part of the time charged to the faults that
    // filled it: its section ends at the drain. With 1,500 ns a folio a
    // drain of 31 lasts 46,500 ns, longer than the 31 faults between two
    // drains (31,000 ns), so two sections of one CPU overlap: the first
    // [0, 46,500] (it cannot start before time 0), the second [15,500,
    // 62,000]. The kernel's CPU would simply have done one after the
    // other: nothing waits, whether the two drains are one task's or two
    // tasks' taking turns on one CPU.
    for policy in [Policy::Classic, Policy::Mglru] {
        for (lines, what) in [
            ("task a memcg=m cpu=0\nanon a h size=1M\nstore a h 0 62\n", "one task"),
            (
                "task a memcg=m cpu=0\ntask b memcg=m cpu=0\nanon a h size=1M\nanon b h size=1M\nstore a h 0 31\nstore b h 0 31\n",
                "two tasks on CPU 0",
            ),
        ] {
            let mut par = t(policy, Schedule::Parallel, costs(&[("minor_fault", 1_000), ("lock_add", 1_500)]));
            par.run(&format!("memory 256M\ncpus 2\nmemcg m\n{lines}"));
            par.sim.finish().unwrap();
            let k = par.k();
            assert_eq!((k.sim.lru_lock.sections, k.sim.lru_lock.contended), (2, 0), "{policy:?} {what}");
            let stime: u64 = k.tasks.iter().map(|t| t.stime_ns).sum();
            assert_eq!(stime, 62_000, "{policy:?} {what}");
        }
    }
}

/// Two tasks on two CPUs, one 8 MiB memcg, 12 MiB anon heaps each with
/// swap: both reclaim the memcg's lruvec at once.
fn two_reclaimers() -> String {
    let mut s = String::from(
        "memory 256M\ncpus 2\nswap 64M sync=y\nmemcg m max=8M\ntask a memcg=m cpu=0\ntask b memcg=m cpu=1\n\
         anon a h size=12M\nanon b h size=12M\n",
    );
    for p in (0..3072).step_by(64) {
        s += &format!("store a h {p} 64\nstore b h {p} 64\n");
    }
    s
}

#[test]
fn two_reclaimers_of_one_lruvec_wait_for_each_other_only_with_a_held_lock() {
    // With the lock held for nothing, no section waits; with isolation and
    // putback holding it, two limit reclaimers of the same lruvec meet
    // there, and the time spun is in their system time; the same run twice
    // gives the same counts (the order of sections is the scheduler's).
    for policy in [Policy::Classic, Policy::Mglru] {
        let base = [("minor_fault", 1_000), ("scan", 2_000), ("pageout", 5_000)];
        let mut free = t(policy, Schedule::Parallel, costs(&base));
        free.run(&two_reclaimers());
        free.sim.finish().unwrap();
        free.check();
        assert_eq!(free.k().sim.lru_lock.wait_ns, 0, "{policy:?}");
        assert!(free.k().sim.lru_lock.sections > 0, "{policy:?}");

        let held = [&base[..], &[("lru_lock", 500), ("lock_isolate", 500), ("lock_isolate_gen", 500), ("lock_putback", 500)]].concat();
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut x = t(policy, Schedule::Parallel, costs(&held));
            x.run(&two_reclaimers());
            x.sim.finish().unwrap();
            x.check();
            let k = x.k();
            assert!(k.sched.direct_reclaimers_peak == 2, "{policy:?}: both reclaim at once");
            runs.push((k.sim.lru_lock, k.tasks[0].stime_ns, k.tasks[1].stime_ns, k.now));
        }
        assert_eq!(runs[0], runs[1], "{policy:?}: deterministic");
        let lock = runs[0].0;
        assert!(lock.contended > 0 && lock.wait_ns > 0, "{policy:?}: {lock:?}");
        assert_eq!(lock.kswapd_wait_ns, 0, "{policy:?}: kswapd is not woken (memcg limit)");
    }
}
