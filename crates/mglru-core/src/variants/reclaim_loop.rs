// SPDX-License-Identifier: GPL-2.0-only
//! Seed 004 (Kairui Song, 2026), "improve reclaim loop and dirty folio
//! handling": `try_to_shrink_lruvec` with a scan budget fixed at the
//! start, aging that no longer ends the loop, the flusher woken inside it,
//! and a smaller isolation batch. docs/VARIANTS.md.

use super::Hooks;
use crate::kernel::{Kernel, DEF_PRIORITY, SWAP_CLUSTER_MAX};
use crate::vmscan::ScanControl;

pub struct ReclaimLoop;

impl Hooks for ReclaimLoop {
    fn try_to_shrink_lruvec(&self, k: &mut Kernel, memcg: u16, sc: &mut ScanControl) -> Option<bool> {
        Some(try_to_shrink_lruvec(k, memcg, sc))
    }

    /// "Use a smaller batch for reclaim": SWAP_CLUSTER_MAX.
    fn reclaim_batch(&self) -> u64 {
        SWAP_CLUSTER_MAX
    }

    /// "Unify writeback reclaim statistic and throttling" (the series'
    /// last patch; its posted reproducer: `dd` of 192 MiB into a 128 MiB
    /// memcg on a device that delays every write by 1 s, OOM-killed
    /// under 6.12's MGLRU, not under the classic LRU): the batches'
    /// writeback statistics reach `sc->nr`, so memcg reclaim that meets
    /// only folios under writeback marks the lruvec congested and
    /// throttles (`shrink_node`), as the classic LRU does. Root reclaim
    /// (`lru_gen_shrink_node`) still returns before that code: "global
    /// throttling is not here yet", says the patch.
    fn unified_writeback_stats(&self) -> bool {
        true
    }
}

/// Seed 004's restructured loop (an interpretation of the cover
/// letter; docs/VARIANTS.md): the scan budget is fixed at the start
/// (evictable size >> priority, at least SWAP_CLUSTER_MAX); aging runs
/// when needed without ending the loop; the flusher is woken inside the
/// loop as soon as a batch was all unqueued dirty file folios.
pub(super) fn try_to_shrink_lruvec(k: &mut Kernel, memcg: u16, sc: &mut ScanControl) -> bool {
    let swappiness = k.get_swappiness(memcg, sc);
    let can_swap = swappiness != 0;
    if k.below_min(sc.target, memcg) {
        return true;
    }
    let total = k.lruvec_total(memcg, can_swap);
    let mut budget = (total >> sc.priority).max(SWAP_CLUSTER_MAX);
    let mut aged = false;
    let mut rounds = 0;
    while budget > 0 && rounds < 10_000 {
        rounds += 1;
        let (need_aging, _) = k.should_run_aging(memcg, can_swap);
        if need_aging && sc.priority < DEF_PRIORITY {
            let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
            if k.try_to_inc_max_seq(memcg, max_seq, can_swap, false) {
                aged = true;
            }
        }
        let (taken_before, dirty_before) = (sc.nr.file_taken, sc.nr.unqueued_dirty);
        let delta = k.evict_folios(memcg, sc, swappiness);
        let (taken, dirty) = (sc.nr.file_taken - taken_before, sc.nr.unqueued_dirty - dirty_before);
        if dirty > 0 && dirty == taken {
            k.wakeup_flusher_threads();
        }
        if delta == 0 {
            break;
        }
        budget = budget.saturating_sub(delta);
        if k.should_abort_scan(sc) {
            break;
        }
    }
    aged
}
