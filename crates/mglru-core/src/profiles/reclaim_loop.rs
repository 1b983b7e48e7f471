// SPDX-License-Identifier: GPL-2.0-only
//! Seed 004 (Kairui Song, 2026), "improve reclaim loop and dirty folio
//! handling": `try_to_shrink_lruvec` with a scan budget fixed at the
//! start, aging that no longer ends the loop, the flusher woken inside it,
//! a smaller isolation batch, and the batches' writeback statistics in
//! `sc->nr`. docs/VARIANTS.md.

use super::{Difference, Fidelity, Steps};
use crate::kernel::{Kernel, DEF_PRIORITY, SWAP_CLUSTER_MAX};
use crate::lru_gen::TryShrink;
use crate::vmscan::{ReclaimStat, ScanControl};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "reclaim-loop",
    source: "seed 004's cover letter: try_to_shrink_lruvec, evict_folios",
    summary: "scan budget fixed at the start, aging inside the loop, flusher woken in the loop, smaller batch, unified writeback statistics",
    fidelity: Fidelity::Interpreted,
    apply,
};

fn apply(s: &mut Steps) {
    s.try_to_shrink_lruvec = |k, memcg, sc| TryShrink::finished(memcg, try_to_shrink_lruvec(k, memcg, sc));
    // "Use a smaller batch for reclaim": SWAP_CLUSTER_MAX.
    s.reclaim_batch = SWAP_CLUSTER_MAX;
    s.evict_folios_stat = evict_folios_stat;
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
fn evict_folios_stat(sc: &mut ScanControl, stat: &ReclaimStat, taken: &mut u64) {
    sc.nr.unqueued_dirty += stat.nr_unqueued_dirty;
    sc.nr.dirty += stat.nr_dirty;
    sc.nr.congested += stat.nr_congested;
    sc.nr.writeback += stat.nr_writeback;
    sc.nr.immediate += stat.nr_immediate;
    sc.nr.taken += std::mem::take(taken);
}

/// Seed 004's restructured loop (an interpretation of the cover
/// letter; docs/VARIANTS.md): the scan budget is fixed at the start
/// (evictable size >> priority, at least SWAP_CLUSTER_MAX); aging runs
/// when needed without ending the loop; the flusher is woken inside the
/// loop as soon as a batch was all unqueued dirty file folios.
fn try_to_shrink_lruvec(k: &mut Kernel, memcg: u16, sc: &mut ScanControl) -> bool {
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
