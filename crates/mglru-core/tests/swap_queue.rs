// SPDX-License-Identifier: GPL-2.0-only
//! The asynchronous swap device's request queue (writeback.rs
//! `SWAP_QUEUE_DEPTH`): a swap-out that finds every request in flight
//! sleeps until the oldest completes, so reclaim never has more than the
//! queue's writes outstanding and meets the folios it wrote again only
//! after they completed (issue 12 item 2's example, measured on the
//! 6.12 guest in validation/results-async).

mod common;
use common::T;
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

const DEPTH: u64 = 128;

/// Only the device's write time costs: 1 µs a page, one page after the
/// other (a serial queue).
fn machine(policy: Policy) -> T {
    let c = common::only_costs(&[("swap_write", 1_000)]);
    T::with_options(RunOptions { policy: Some(policy), cost: Some(c), ..Default::default() })
}

#[test]
fn memory_reclaim_on_an_async_device_waits_for_the_queue_and_succeeds() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = machine(policy);
        // 100 MiB of anon in a memcg without a limit, then memory.reclaim
        // of 70 MiB (17,920 pages) to a block device (sync=n).
        t.run("memory 1G\nswap 512M\nmemcg app\ntask t memcg=app\nanon t heap size=100M\nstore t heap 0 25600");
        assert_eq!(t.k().now, 0, "{policy:?}: nothing costs before reclaim");
        t.run("reclaim app 70M");
        let k = t.k();
        let r = k.reclaim_results.last().copied().unwrap();
        assert_eq!(r.result, 0, "{policy:?}: 6.12 reclaims it all (the guest: 0 in 12 of 12 runs)");
        assert!(r.reclaimed >= 17_920, "{policy:?}: {} pages", r.reclaimed);
        let written = k.ev.get(Ev::Pswpout);
        // Each write after the first DEPTH waited for the one DEPTH
        // before it: when the reclaim returns, at least all but the last
        // DEPTH have completed, each 1 µs after the one before.
        assert!(k.now >= (written - DEPTH) * 1_000, "{policy:?}: {} ns for {written} writes", k.now);
        assert!(k.swap_inflight.len() as u64 <= DEPTH, "{policy:?}");
        // The folios written were complete when reclaim met them again:
        // none activated for being under writeback (the guest: 0-2), each
        // rotated to the tail as its write completed.
        assert_eq!(k.ev.get(Ev::Pgactivate), 0, "{policy:?}");
        assert!(written < 17_920 + 2 * DEPTH + 64, "{policy:?}: {written} written for 17,920 reclaimed");
        t.check();
    }
}

#[test]
fn a_synchronous_device_has_no_queue_to_wait_for() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = machine(policy);
        t.run("memory 1G\nswap 512M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=100M\nstore t heap 0 25600");
        t.run("reclaim app 70M");
        let k = t.k();
        assert_eq!(k.reclaim_results.last().map(|r| r.result), Some(0), "{policy:?}");
        // A synchronous write completes in the writer's call: no time on
        // the device's queue, nothing in flight.
        assert_eq!(k.now, 0, "{policy:?}");
        assert!(k.swap_inflight.is_empty(), "{policy:?}");
        t.check();
    }
}
