// SPDX-License-Identifier: GPL-2.0-only
//! The statistics flush before the classic LRU's scan balance in 6.1 (6.1
//! mm/vmscan.c `prepare_scan_count`, mm/memcontrol.c
//! `mem_cgroup_flush_stats`). Every `shrink_node` of the classic LRU reads
//! the target memcg's refault and LRU-size statistics to decide whether to
//! deactivate anon or file and whether to trim the page cache first. 6.1
//! flushes them first whenever enough updates are pending
//! (`stats_flush_threshold` above the number of online CPUs: more than
//! `MEMCG_CHARGE_BATCH` updates per CPU since the last flush, counted over
//! every memcg); 6.12 flushes only when the periodic 2-s flush is late
//! (`mem_cgroup_flush_stats_ratelimited`), so between periodic flushes it
//! reads older sizes and refault counts. The multi-gen LRU returns before
//! this in both.
//!
//! Simplified: the pending updates are counted as the model's
//! `mem_cgroup_flush_stats` counts them (all from one CPU, in whole
//! batches).

use super::{Difference, Fidelity, Steps};
use crate::memcontrol::ROOT_MEMCG;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "scan-flush-6.1",
    source: "6.1 mm/vmscan.c: prepare_scan_count; mm/memcontrol.c: mem_cgroup_flush_stats (threshold flush of the whole tree)",
    summary: "the classic LRU's scan balance reads freshly flushed statistics (flushed whenever enough updates are pending), not the last periodic flush's",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.prepare_scan_flush = |k, _target| {
        k.mem_cgroup_flush_stats(ROOT_MEMCG);
    };
}
