// SPDX-License-Identifier: GPL-2.0-only
//! Seed 004 (Kairui Song, 2026), "mm/mglru: improve reclaim loop and
//! dirty folio handling", as merged in Linux 7.2 (7.2 mm/vmscan.c:
//! `try_to_shrink_lruvec`, `get_nr_to_scan`, `should_run_aging`,
//! `should_abort_scan`, `evict_folios`, `handle_reclaim_writeback`):
//!
//! - the scan budget is computed once, at the start: the lruvec's
//!   evictable folios after `apply_proportional_protection`, shifted by
//!   the priority (6.12 recomputed it each round and stopped the lruvec
//!   after aging);
//! - aging runs inside the loop whenever `should_run_aging` says so (with
//!   only `MIN_NR_GENS + 1` generations left it ages below the default
//!   priority), and root reclaim leaves the lruvec after a round that aged
//!   (it rotates the memcg); cgroup reclaim keeps evicting;
//! - each round evicts a batch of at most `MIN_LRU_BATCH` folios
//!   (`scan_folios` stops after the batch: "relocate the LRU scan batch
//!   limit to callers"), where 6.12 scanned up to `MAX_LRU_BATCH`;
//! - memcg reclaim stops at its target too (`should_abort_scan` lost
//!   6.12's `if (!root_reclaim(sc)) return false`);
//! - the batches' writeback statistics reach `sc->nr` and the flusher is
//!   woken from inside the loop when a batch was all unqueued dirty
//!   (`handle_reclaim_writeback`), where 6.12 tested that once after the
//!   loop.
//!
//! - `evict_folios` returns the folios it scanned (6.12 added a dropped
//!   generation and returned 0 once a type was down to `MIN_NR_GENS`), and
//!   flushes empty oldest generations before isolating and, if it scanned
//!   anything, after.
//!
//! `--variant reclaim-loop` applies this difference to another version
//! (6.12 by default). The putback rules and type selection of 7.2's
//! `evict_folios` belong to the tier rework (tiers_7_2.rs,
//! insertion_7_2.rs), the decoupled `min_seq` to min_seq_7_2.rs;
//! `sort_folio`'s dirty case was already gone in 6.12.117.

use super::{Difference, Fidelity, Steps};
use crate::kernel::{Kernel, DEF_PRIORITY};
use crate::lru_gen::{evictable_min_seq, TryShrink, MAX_LRU_BATCH, MIN_LRU_BATCH, MIN_NR_GENS};
use crate::vmscan::{ReclaimStat, ScanControl};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "reclaim-loop",
    source: "7.2 mm/vmscan.c: try_to_shrink_lruvec, get_nr_to_scan, should_run_aging, should_abort_scan, evict_folios (batch, exact scan count, min_seq flushes), handle_reclaim_writeback",
    summary: "scan budget fixed at the start, aging inside the loop, batches of MIN_LRU_BATCH, memcg reclaim stops at its target, evict_folios counts what it scanned, writeback statistics and the flusher handled per batch",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.try_to_shrink_lruvec = |k, memcg, sc| TryShrink::finished(memcg, try_to_shrink_lruvec(k, memcg, sc));
    s.evict_folios_stat = handle_reclaim_writeback_stat;
    // The batch limit relocated to the callers: the debugfs eviction
    // command gives each evict_folios what is left of its target, at most
    // MAX_LRU_BATCH.
    s.run_eviction_batch = |left| left.min(MAX_LRU_BATCH);
    // "Scan and count the exact number of folios": the empty oldest
    // generations are flushed before isolating and, if anything was
    // scanned, after; the count is the folios scanned.
    s.evict_folios_flush = |k, memcg, swappiness| {
        (k.steps.try_to_inc_min_seq)(k, memcg, swappiness);
    };
    s.evict_folios_scanned = |k, memcg, swappiness, scanned| {
        if scanned > 0 {
            (k.steps.try_to_inc_min_seq)(k, memcg, swappiness);
        }
        scanned
    };
}

/// 7.2 `handle_reclaim_writeback` for `evict_folios`: every batch's
/// dirty, congested, writeback, immediate and taken counts reach `sc->nr`,
/// so memcg reclaim that meets only folios under writeback marks the
/// lruvec congested and throttles in `shrink_node`, as the classic LRU
/// does (the series' last patch, "unify writeback reclaim statistic and
/// throttling"; its reproducer: `dd` of 192 MiB into a 128 MiB memcg on a
/// device that delays every write by 1 s, OOM-killed under 6.12's MGLRU).
/// Root reclaim (`lru_gen_shrink_node`) still returns before that code in
/// 7.2.
fn handle_reclaim_writeback_stat(k: &mut Kernel, sc: &mut ScanControl, stat: &ReclaimStat, taken: &mut u64) {
    // Only the first shrink_folio_list of a batch (`if (isolated)`): a
    // batch that was all unqueued dirty folios wakes the flusher at once.
    if *taken > 0 && stat.nr_unqueued_dirty == *taken {
        k.wakeup_flusher_threads();
    }
    sc.nr.add_batch(stat, std::mem::take(taken));
}

/// 7.2 `get_nr_to_scan`: the evictable folios, less the memcg's
/// protection (`apply_proportional_protection`), shifted by the priority.
/// (Every memcg of the model is online; 7.2 scrapes an offline one whole.)
fn get_nr_to_scan(k: &mut Kernel, memcg: u16, sc: &mut ScanControl, swappiness: u32) -> u64 {
    let evictable = k.lruvec_total(memcg, swappiness);
    let nr = k.apply_proportional_protection(memcg, sc, evictable);
    nr >> sc.priority
}

/// 7.2 `should_run_aging`: aging is needed once fewer than `MIN_NR_GENS`
/// generations above the evictable minimum remain; at the default
/// priority nothing more; below it also when exactly `MIN_NR_GENS` remain.
fn should_run_aging(k: &Kernel, memcg: u16, sc: &ScanControl, swappiness: u32) -> bool {
    let lg = &k.memcgs[memcg as usize].lruvec.lrugen;
    let min = evictable_min_seq(lg.min_seq, swappiness);
    if min + MIN_NR_GENS > lg.max_seq {
        return true;
    }
    if sc.priority == DEF_PRIORITY {
        return false;
    }
    min + MIN_NR_GENS == lg.max_seq
}

/// 7.2 `should_abort_scan`: enough reclaimed (for any reclaimer, memcg
/// reclaim included), or kswapd with every eligible zone safe.
fn should_abort_scan(k: &Kernel, sc: &ScanControl) -> bool {
    // (`sc->proactive && signal_pending(current)`: no signals in the model.)
    if sc.nr_reclaimed >= sc.nr_to_reclaim.max(2) {
        return true;
    }
    k.in_kswapd && k.kswapd_zones_safe()
}

/// 7.2 `try_to_shrink_lruvec`: true = rotate the memcg (aged, or
/// protected by memory.min).
pub(super) fn try_to_shrink_lruvec(k: &mut Kernel, memcg: u16, sc: &mut ScanControl) -> bool {
    let (mut need_rotate, mut should_age) = (false, false);
    let swappiness = k.get_swappiness(memcg, sc);
    let mut nr_to_scan = get_nr_to_scan(k, memcg, sc, swappiness) as i64;
    while nr_to_scan > 0 {
        if k.below_min(sc.target, memcg) {
            need_rotate = true;
            break;
        }
        if should_run_aging(k, memcg, sc, swappiness) {
            let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
            if k.try_to_inc_max_seq(memcg, max_seq, swappiness, false) {
                need_rotate = true;
            }
            should_age = true;
        }
        let nr_batch = (nr_to_scan as u64).min(MIN_LRU_BATCH);
        let delta = k.evict_folios_n(memcg, sc, swappiness, nr_batch);
        if delta == 0 {
            break;
        }
        if should_abort_scan(k, sc) {
            break;
        }
        // Root reclaim rotates the memcg when it runs low on cold folios;
        // cgroup reclaim gets its fairness from the iterator.
        if sc.root_reclaim() && should_age {
            break;
        }
        nr_to_scan -= delta as i64;
        k.task_yield_point();
    }
    need_rotate
}
