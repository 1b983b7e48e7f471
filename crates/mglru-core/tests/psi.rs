// SPDX-License-Identifier: GPL-2.0-only
//! Pressure stall information through whole runs: the stall a task
//! accumulates is the time it spends in the stall sections 6.12 marks
//! (limit reclaim in try_charge_memcg here), counted in its memcg's
//! `memory.pressure` and up to `/proc/pressure/memory`, and nowhere else.

mod common;
use common::T;
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions};

/// Only reclaim costs time: 1 ms per page scanned. Every other cost is 0,
/// so the run's whole simulated time is the stall.
fn scan_only() -> CostModel {
    common::only_costs(&[("scan", 1_000_000)])
}

#[test]
fn limit_reclaim_time_is_the_memcgs_and_the_systems_memory_stall() {
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(scan_only()), ..Default::default() });
    t.run("memory 256M\nmemcg app max=1M\nmemcg idle\nfile f size=4M readahead=0\ntask a memcg=app\ntask b memcg=idle");
    t.run("read a f 0 600");
    let app = t.memcg_id("app") as usize;
    let idle = t.memcg_id("idle");
    // Classic limit reclaim charges the reclaimer 1 ms for each page its
    // shrink_inactive_list (pgscan) and shrink_active_list (pgrefill) scan,
    // all inside try_charge_memcg's psi_memstall_enter/leave.
    let (scanned, refill) = {
        let k = t.k();
        (k.memcgs[app].ev.get(Ev::PgscanDirect), k.memcgs[app].ev.get(Ev::Pgrefill))
    };
    assert!(scanned > 300, "the 600-page read in a 256-page memcg reclaims: {scanned}");
    let stall_us = (scanned + refill) * 1000;
    let now = t.k().now;
    assert_eq!(now, (scanned + refill) * 1_000_000, "nothing but reclaim took time");
    // The whole run (under 2 s) was one period with the task non-idle for
    // more than a jiffy: the totals are exact; no average has been taken
    // (the first averaging is 2.004 s after the first state change).
    let want = format!(
        "some avg10=0.00 avg60=0.00 avg300=0.00 total={stall_us}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total={stall_us}\n"
    );
    assert!(now < 2_000_000_000);
    assert_eq!(t.k().psi_show(app as u16), want);
    assert_eq!(t.k().psi_show(0), want, "the system's pressure is the same task's");
    assert_eq!(
        t.k().psi_show(idle),
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    );
    // After 10 s of sleep the averaging has run: the stall is all in its
    // first period, so avg10 is above 0 and the total is unchanged.
    t.run("sleep 10s");
    let shown = t.k().psi_show(app as u16);
    assert!(shown.contains(&format!("total={stall_us}")), "{shown}");
    assert!(!shown.starts_with("some avg10=0.00 avg60=0.00"), "{shown}");
    t.check();
}

#[test]
fn a_read_that_never_reclaims_is_no_stall() {
    let mut c = CostModel::default();
    c.set("disk_read", 5_000_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Mglru), cost: Some(c), ..Default::default() });
    t.run("memory 256M\nfile f size=4M readahead=0\ntask a\nread a f 0 200\nsleep 5s");
    // 200 synchronous misses of 5 ms each (1 s of I/O waits): none of the
    // folios is a refaulting workingset folio, so none is a memory stall.
    assert!(t.k().now >= 1_000_000_000);
    assert!(t.k().psi_show(0).contains("total=0\nfull"), "{}", t.k().psi_show(0));
}

#[test]
fn kswapd_passes_as_a_thread_are_a_system_stall_some_not_full_beside_a_busy_task() {
    use mglru_core::kswapd::KswapdMode;
    // One CPU: a task reads 8000 pages of a 64M file one by one on a 16M
    // machine at 200 µs per page copied while kswapd (a thread, 10 µs per page scanned) keeps up, so
    // the task never reclaims itself. Every pass of balance_pgdat is a
    // memory stall of kswapd, a root-cgroup task: "some" for the system,
    // not "full" (the task was running beside it), and no memcg's.
    let c = common::only_costs(&[("page_copy", 200_000), ("scan", 10_000)]);
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), kswapd: KswapdMode::Thread, ..Default::default() });
    let mut lines = String::from("memory 16M\nmemcg app\nfile f size=64M readahead=0\ntask a memcg=app\n");
    for p in 0..8000 {
        lines += &format!("read a f {p} 1\n");
    }
    t.run(&lines);
    assert_eq!(t.vm("pgscan_direct"), 0, "kswapd keeps up");
    assert!(t.vm("pgscan_kswapd") > 0);
    let k = t.k();
    // No throttling: the passes lasted exactly kswapd's CPU time.
    let stall_us = k.sim.kswapd_ns / 1000;
    assert!(stall_us > 0 && k.now < 2_000_000_000, "one psi period: {} ns", k.now);
    let app = t.memcg_id("app");
    assert_eq!(
        t.k().psi_show(0),
        format!("some avg10=0.00 avg60=0.00 avg300=0.00 total={stall_us}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    );
    assert!(t.k().psi_show(app).contains("total=0\nfull"), "kswapd is not app's");
}
