// SPDX-License-Identifier: GPL-2.0-only
//! An over-high task sleeps the kernel's penalty
//! (`mem_cgroup_handle_over_high` → `calculate_high_delay`), in simulated
//! time, as a memory stall of its memcg.

mod common;
use common::T;
use mglru_core::{CostModel, Policy, RunOptions};

const HZ: u64 = 250;
const NSEC_PER_JIFFY: u64 = 4_000_000;

/// 6.12's arithmetic, written out: overage in 2^-20 units of high, the
/// penalty quadratic in it (HZ × overage² >> 34), scaled by the pages
/// charged over high per MEMCG_CHARGE_BATCH (64), at most 2 s.
fn penalty_jiffies(usage: u64, high: u64, nr_pages: u64) -> u64 {
    let overage = ((usage - high) << 20) / high;
    let p = ((overage as u128 * overage as u128 * HZ as u128) >> 34) as u64;
    (p * nr_pages / 64).min(2 * HZ)
}

#[test]
fn an_over_high_task_sleeps_the_penalty_as_a_memory_stall() {
    // No cost but the sleep moves the clock.
    let cost = CostModel { op: 0, mem_access: 0, page_copy: 0, minor_fault: 0, disk_read: 0, swap_read: 0, scan: 0, lruvec: 0, ..CostModel::default() };
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(cost), ..Default::default() });
    // Anon only and no swap: reclaim_high finds nothing to reclaim.
    t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t heap size=8M\nstore t heap 0 512");
    let app = t.memcg_id("app");
    let usage = t.k().memcgs[app as usize].usage;
    assert_eq!(t.k().now, 0);
    // 512 heap pages, 3 page-table pages (a PUD, a PMD, one PTE table)
    // and 61 pages left in the charge stock of the last 64-page batch.
    assert_eq!(usage, 576);
    // memory.high 500 pages: the write drains the memcg's charge stock
    // (usage above high), reclaims nothing, and does not sleep.
    let high = 500;
    t.run("memcg app high=2000K");
    assert_eq!(t.k().now, 0);
    let drained = t.k().memcgs[app as usize].usage;
    assert_eq!(drained, 515);
    // One new page: the empty stock takes a batch of 64 from the page
    // counter, all above high (memcg_nr_pages_over_high = 64); on return to
    // user space reclaim_high finds nothing, retries 16 times, then sleeps.
    t.run("store t heap 512");
    let k = t.k();
    let usage_now = k.memcgs[app as usize].usage;
    assert_eq!(usage_now, drained + 64, "one batch charged");
    // 579 pages over a high of 500: overage = (79 << 20) / 500 = 165,675;
    // 165,675² × 250 >> 34 = 399 jiffies; × 64 / 64: 399 (1.596 s), above
    // HZ/100 and below the 2 s cap.
    let p = penalty_jiffies(usage_now, high, 64);
    assert_eq!(p, 399);
    assert_eq!(k.now, p * NSEC_PER_JIFFY);
    // The sleep is a memory stall of the task's groups, app and the system
    // (psi_read folds the CPUs' times the way the averaging work does).
    assert_eq!(k.psi_read(app).total[0], p * NSEC_PER_JIFFY);
    assert_eq!(k.psi_read(0).total[0], p * NSEC_PER_JIFFY);
    t.check();
}

/// A store line touches its pages from user space one by one: each fault
/// that charged a batch over memory.high returns to user mode through
/// `mem_cgroup_handle_over_high`, which reclaims that batch (64 pages)
/// before the next fault. So usage never passes high by more than one
/// batch: memory.peak is at most high + 64 pages (1024 + 64 here, with
/// swap to reclaim to). Handled only every second batch, it reached
/// high + 128 (1,152 pages).
#[test]
fn a_store_line_is_throttled_at_every_batch_over_high() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::with_options(RunOptions { policy: Some(policy), ..Default::default() });
        t.run("memory 1G\nswap 64M sync=y ram=y\nmemcg app high=4M\ntask t memcg=app\nanon t heap size=8M\nstore t heap 0 2048");
        let app = t.memcg_id("app");
        let k = t.k();
        let m = &k.memcgs[app as usize];
        assert!(m.watermark > 1024 && m.watermark <= 1024 + 64, "{policy:?}: peak {} pages", m.watermark);
        assert!(k.ev.get(mglru_core::stat::Ev::Pswpout) > 0, "{policy:?}");
        t.check();
    }
}
