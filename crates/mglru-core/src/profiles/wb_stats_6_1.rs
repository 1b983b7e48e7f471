// SPDX-License-Identifier: GPL-2.0-only
//! The statistics a writer's memcg dirty domain reads in 6.1 (6.1
//! mm/memcontrol.c `mem_cgroup_wb_stats`, `mem_cgroup_flush_stats`;
//! mm/page-writeback.c `balance_dirty_pages`). A writer in a memcg is held
//! to the memcg's dirty limits as well as the global ones: its dirty and
//! writeback pages against a share of its file pages and headroom. 6.1's
//! `mem_cgroup_wb_stats` flushes the memcg statistics first whenever
//! enough updates are pending (the threshold flush of the whole tree), so
//! the writer sees its memcg's dirty pages within a few hundred updates;
//! 6.12's flushes only when the periodic 2-s flush is late
//! (`mem_cgroup_flush_stats_ratelimited`), so a small memcg can fill with
//! dirty pages before its domain notices. This matters most where reclaim
//! leaves dirty folios to the flusher (6.1's `sort_folio`, `writeback-6.1`):
//! the writer's throttling is then what starts their writeback.
//!
//! Simplified: the pending updates are counted as the model's
//! `mem_cgroup_flush_stats` counts them (all from one CPU, in whole
//! batches), and the model calls `balance_dirty_pages` on every page a
//! writer dirties, not every `nr_dirtied_pause` pages.

use super::{Difference, Fidelity, Steps};
use crate::memcontrol::ROOT_MEMCG;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "wb-stats-6.1",
    source: "6.1 mm/memcontrol.c: mem_cgroup_wb_stats, mem_cgroup_flush_stats (threshold flush of the whole tree); mm/page-writeback.c: balance_dirty_pages",
    summary: "a writer's memcg dirty domain reads freshly flushed statistics (flushed whenever enough updates are pending), not the last periodic flush's",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.wb_stats_flush = |k| {
        k.mem_cgroup_flush_stats(ROOT_MEMCG);
    };
}
