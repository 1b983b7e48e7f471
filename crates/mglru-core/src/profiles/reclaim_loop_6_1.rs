// SPDX-License-Identifier: GPL-2.0-only
//! The multi-gen LRU's reclaim loop of 6.1 (6.1 mm/vmscan.c:
//! `lru_gen_shrink_lruvec`, `get_nr_to_scan`, `should_abort_scan`,
//! `lru_gen_age_node`, `age_lruvec`):
//!
//! - a direct or memcg reclaimer that finds too few generations ages the
//!   lruvec itself and keeps evicting in the same call (6.12 ages and
//!   leaves the lruvec); at the default priority it does not age, and
//!   kswapd never ages here ("leave the work to lru_gen_age_node()");
//! - kswapd ages instead in `lru_gen_age_node`, every memcg in turn,
//!   each one whose generations ask for it — skipped once after an
//!   eviction pass that reclaimed `MIN_LRU_BATCH` or more without needing
//!   aging (`sc->memcgs_need_aging`);
//! - `should_abort_scan`: a direct or memcg reclaimer stops after the
//!   lruvec aged a second time in one call ("age each memcg at most once
//!   to ensure fairness"), or once it has its target and has swapped;
//!   memcg reclaim goes on otherwise; kswapd stops only once it has
//!   reclaimed `nr_to_reclaim` since it aged; neither stops above
//!   priority `DEF_PRIORITY - 2`; then both stop when every zone is above
//!   its watermark (high for kswapd, low for direct reclaim), adding
//!   `MIN_LRU_BATCH` to `nr_reclaimed`;
//! - a memcg below memory.low (unless low reclaim is on) is not scanned.
//!
//! The lruvec's reclaim is then 6.12's `evict_folios` (6.1's `sort_folio`
//! and `isolate_folio` rules for dirty and writeback folios are not
//! modelled: docs/KERNELS.md). Simplified: `fatal_signal_pending` (a task
//! the OOM killer chose stops reclaiming) is not tested here.

use super::{Difference, Fidelity, Steps};
use crate::kernel::{Kernel, DEF_PRIORITY};
use crate::lru_gen::{gen_from_seq, TryShrink, MIN_LRU_BATCH, MIN_NR_GENS};
use crate::lruvec::{ANON, FILE};
use crate::memcontrol::ROOT_MEMCG;
use crate::vmscan::ScanControl;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "reclaim-loop-6.1",
    source: "6.1 mm/vmscan.c: lru_gen_shrink_lruvec, get_nr_to_scan, should_abort_scan, lru_gen_age_node, age_lruvec",
    summary: "direct/memcg reclaim ages and keeps evicting; kswapd ages every memcg; 6.1's should_abort_scan",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    // 6.1 has no memcg LRU to rotate: the lruvec's result is never used.
    s.try_to_shrink_lruvec = |k, memcg, sc| {
        lru_gen_shrink_lruvec(k, memcg, sc);
        TryShrink::finished(memcg, false)
    };
    s.lru_gen_age_node = lru_gen_age_node;
}

/// 6.1 `get_nr_to_scan`: (folios to scan, aging needed).
fn get_nr_to_scan(k: &mut Kernel, memcg: u16, sc: &ScanControl, swappiness: u32) -> (u64, bool) {
    let can_swap = swappiness != 0;
    if k.below_min(sc.target, memcg) || (k.below_low(sc.target, memcg) && !sc.memcg_low_reclaim) {
        return (0, false);
    }
    // 6.1's should_run_aging decides as 6.12's (the model's) does, but
    // sums the lruvec's folios first, so nr_to_scan is set even when
    // aging is needed (6.12 returns before the sum).
    let need_aging = k.should_run_aging(memcg, can_swap).0;
    let nr_to_scan = k.lruvec_total(memcg, swappiness) >> sc.priority;
    if !need_aging {
        return (nr_to_scan, false);
    }
    if sc.priority != DEF_PRIORITY {
        if k.in_kswapd {
            return (0, true);
        }
        let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        if k.try_to_inc_max_seq(memcg, max_seq, swappiness, false) {
            return (nr_to_scan, true);
        }
    }
    let lg = &k.memcgs[memcg as usize].lruvec.lrugen;
    let left = if lg.min_seq[!can_swap as usize] + MIN_NR_GENS <= lg.max_seq { nr_to_scan } else { 0 };
    (left, true)
}

/// 6.1 `should_abort_scan` (`seq`: max_seq when the lruvec's reclaim
/// began).
fn should_abort_scan(k: &mut Kernel, memcg: u16, seq: u64, sc: &mut ScanControl, need_swapping: bool) -> bool {
    if !k.in_kswapd {
        if k.memcgs[memcg as usize].lruvec.lrugen.max_seq - seq > 1 {
            return true;
        }
        if sc.nr_reclaimed >= sc.nr_to_reclaim && need_swapping {
            return true;
        }
        if sc.cgroup_reclaim() {
            return false;
        }
    } else if sc.nr_reclaimed.saturating_sub(sc.last_reclaimed) < sc.nr_to_reclaim {
        return false;
    }
    if sc.priority > DEF_PRIORITY - 2 {
        return false;
    }
    let mark = if k.in_kswapd { 2 } else { 1 };
    for z in 0..crate::folio::NR_ZONES {
        if k.zones[z].managed != 0 && k.wmark_pages(z, mark) > k.zone_free_state(z) {
            return false;
        }
    }
    sc.nr_reclaimed += MIN_LRU_BATCH;
    true
}

/// 6.1 `lru_gen_shrink_lruvec`'s loop.
fn lru_gen_shrink_lruvec(k: &mut Kernel, memcg: u16, sc: &mut ScanControl) {
    let seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
    let reclaimed = sc.nr_reclaimed;
    let (mut need_swapping, mut scanned) = (false, 0u64);
    let need_aging = loop {
        let swappiness = if sc.may_swap {
            k.get_swappiness(memcg, sc)
        } else if !sc.cgroup_reclaim() && k.get_swappiness(memcg, sc) != 0 {
            1
        } else {
            0
        };
        let (nr_to_scan, need_aging) = get_nr_to_scan(k, memcg, sc, swappiness);
        if nr_to_scan == 0 {
            return;
        }
        let (delta, type_) = k.evict_folios_typed(memcg, sc, swappiness, crate::lru_gen::MAX_LRU_BATCH);
        if type_ == Some(ANON) {
            need_swapping = true;
        }
        if delta == 0 {
            return;
        }
        scanned += delta;
        if scanned >= nr_to_scan || should_abort_scan(k, memcg, seq, sc, need_swapping) {
            break need_aging;
        }
        k.task_yield_point();
    };
    // "see the comment in lru_gen_age_node()": a pass that reclaimed a
    // batch without needing aging lets kswapd skip its next aging.
    if sc.nr_reclaimed - reclaimed >= MIN_LRU_BATCH && !need_aging {
        sc.memcgs_need_aging = false;
    }
}

/// 6.1 `age_lruvec`: whether the memcg is old enough to reclaim from
/// (for `min_ttl`); ages it when its generations ask for it.
fn age_lruvec(k: &mut Kernel, memcg: u16, sc: &ScanControl, min_ttl: u64) -> bool {
    k.calculate_protection(ROOT_MEMCG, memcg);
    if k.below_min(None, memcg) {
        return false;
    }
    let swappiness = k.get_swappiness(memcg, sc);
    let need_aging = k.should_run_aging(memcg, swappiness != 0).0;
    let nr_to_scan = k.lruvec_total(memcg, swappiness) >> sc.priority;
    if min_ttl > 0 {
        let lg = &k.memcgs[memcg as usize].lruvec.lrugen;
        let birth = lg.timestamps[gen_from_seq(lg.min_seq[FILE])];
        if birth + min_ttl > k.jiffies() {
            return false;
        }
        if nr_to_scan == 0 && sc.priority != DEF_PRIORITY {
            return false;
        }
    }
    if need_aging {
        let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        k.try_to_inc_max_seq(memcg, max_seq, swappiness, false);
    }
    true
}

/// 6.1 `lru_gen_age_node` (kswapd, each priority of `balance_pgdat`).
fn lru_gen_age_node(k: &mut Kernel, sc: &mut ScanControl) {
    let min_ttl = k.lru_gen_min_ttl();
    sc.last_reclaimed = sc.nr_reclaimed;
    if !sc.memcgs_need_aging {
        sc.memcgs_need_aging = true;
        return;
    }
    // set_mm_walk(pgdat): kswapd walks page tables while it ages.
    let walk_was = k.current.mm_walk;
    k.current.mm_walk = true;
    let mut success = false;
    for m in k.memcg_subtree(ROOT_MEMCG) {
        if age_lruvec(k, m, sc, min_ttl) {
            success = true;
        }
    }
    k.current.mm_walk = walk_was;
    if success || min_ttl == 0 {
        return;
    }
    k.out_of_memory(None);
}
