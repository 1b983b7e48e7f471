// SPDX-License-Identifier: GPL-2.0-only
//! The file disk's fixed write delay (`--cost disk_write_delay`), worked
//! out by hand: writeback of a page completes after both its turn in the
//! disk's queue (`disk_write` per page, one after the other) and the
//! delay after its submission, the delays of writes in flight running
//! side by side.

mod common;
use common::T;
use mglru_core::{CostModel, Policy, RunOptions};

/// Four pages written at time 0 (dirtied then, no memcg, far under every
/// dirty threshold): the flusher's periodic wake-ups come every 5 s and
/// the first that finds the inode older than `dirty_expire_centisecs`
/// (30 s) is the one at 30 s; it submits the four pages at once. With
/// `disk_write` 10 µs and `disk_write_delay` 1 s each completes at
/// 31 s (the queue would have them done by 30.00004 s): at 30.5 s all
/// four are under writeback, at 31.5 s none is, and the delays ran side
/// by side (not 4 s one after the other).
#[test]
fn writes_wait_the_delay_side_by_side() {
    let mut cost = CostModel::default();
    cost.set("disk_write", 10_000).unwrap();
    cost.set("disk_write_delay", 1_000_000_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(cost), ..Default::default() });
    t.run("memory 256M\nfile f size=64K readahead=0\ntask t\nwrite t f 0 4\n");
    assert_eq!((t.vm("nr_dirty"), t.vm("nr_writeback")), (4, 0));
    t.run("sleep 30500ms\n");
    assert_eq!((t.vm("nr_dirty"), t.vm("nr_writeback")), (0, 4));
    t.run("sleep 1s\n");
    assert_eq!((t.vm("nr_dirty"), t.vm("nr_writeback")), (0, 0));
    t.check();
}

/// A slow queue (`disk_write` 400 ms a page) is not shortened by a
/// shorter delay (100 ms): page *n* of the four submitted at 30 s
/// completes at 30 s + (n+1) × 0.4 s, so at 31 s two are still being
/// written, at 32 s none.
#[test]
fn the_queue_still_orders_writes_behind_a_delay() {
    let mut cost = CostModel::default();
    cost.set("disk_write", 400_000_000).unwrap();
    cost.set("disk_write_delay", 100_000_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(cost), ..Default::default() });
    t.run("memory 256M\nfile f size=64K readahead=0\ntask t\nwrite t f 0 4\nsleep 31s\n");
    assert_eq!(t.vm("nr_writeback"), 2);
    t.run("sleep 1s\n");
    assert_eq!(t.vm("nr_writeback"), 0);
    t.check();
}
