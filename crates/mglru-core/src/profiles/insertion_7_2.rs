// SPDX-License-Identifier: GPL-2.0-only
//! Where folios enter the generations in 7.2 (7.2
//! include/linux/mm_inline.h `lru_gen_folio_seq`, `lru_gen_add_folio`;
//! mm/swap.c `folio_add_lru`; mm/vmscan.c `evict_folios`). One rule,
//! `lru_gen_folio_seq`, counts generations down from `max_seq` by what
//! the folio's flags say of it, never below the type's `min_seq`:
//!
//! - active (set while isolated: a refaulted workingset folio, a folio
//!   promoted by a page-table access): `max_seq` with `PG_workingset`,
//!   else `max_seq - 1`;
//! - put back by reclaim for rotation (`reclaiming`): `max_seq - 3`;
//! - anon outside the swap cache, and dirty or writeback folios reclaim
//!   has tagged: `max_seq - 1`;
//! - the rest (page cache, swap cache): `max_seq - 2` if it has
//!   `PG_workingset` or `PG_referenced`, else `max_seq - 3`.
//!
//! 6.12 put an unreferenced page-cache folio at `min_seq + 1` (the oldest
//! with only three generations) and every active one at `max_seq`, and
//! cleared an active folio's refs; 7.2 clears only `PG_active` and keeps
//! the refs, which the tier rework reads (profiles/tiers_7_2.rs).
//!
//! `folio_add_lru` in a fault no longer makes every folio active: a
//! workingset folio becomes active, any other gets `folio_mark_accessed`
//! (`PG_referenced`, so the second oldest generation) unless it was
//! already referenced. `evict_folios` puts back a folio reclaim kept with
//! its flags as they are, unless `lru_gen_folio_seq` would put it in the
//! oldest generation, in which case it becomes active without its refs;
//! the clean retry no longer excludes referenced folios, and 6.12's
//! special case for dirty folios tagged for reclaim is gone (they fall
//! under the `max_seq - 1` rule).
//!
//! Simplified: the model's swap-ins from a synchronous device skip the
//! swap cache as in 6.12. 7.2 adds them to it first (`swapin_sync`) and
//! drops them from it as soon as they are mapped
//! (`should_try_to_free_swap`), before the per-CPU batch adds them to the
//! LRU, so they take the anon rule (`max_seq - 1`) either way, but when
//! their own `folio_add_lru` fills the batch: then 7.2 places them while
//! still in the swap cache, at `max_seq - 2`.

use super::{Difference, Fidelity, Steps};
use crate::folio::pg;
use crate::kernel::Kernel;
use crate::lru_gen::{MAX_NR_GENS, MIN_NR_GENS};
use crate::lruvec::ANON;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "insertion-7.2",
    source: "7.2 include/linux/mm_inline.h: lru_gen_folio_seq, lru_gen_add_folio; mm/swap.c: folio_add_lru; mm/vmscan.c: evict_folios",
    summary: "generations counted down from max_seq by the folio's flags (unreferenced page cache to max_seq-3, new anon to max_seq-1); faults mark folios accessed instead of active; rejected folios keep their flags unless bound for the oldest generation",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.lru_gen_add_seq = |k, pfn, reclaiming| {
        let seq = lru_gen_folio_seq(k, pfn, reclaiming);
        k.folios.get_mut(pfn).clear(pg::ACTIVE);
        seq
    };
    s.folio_add_lru_fault = folio_add_lru_fault;
    s.evict_putback = evict_putback;
}

/// 7.2 `lru_gen_folio_seq`.
fn lru_gen_folio_seq(k: &Kernel, pfn: u32, reclaiming: bool) -> u64 {
    let f = k.folios.get(pfn);
    let type_ = f.lru_type();
    let gen = if f.test(pg::ACTIVE) {
        MIN_NR_GENS - f.test(pg::WORKINGSET) as u64
    } else if reclaiming {
        MAX_NR_GENS
    } else if (type_ == ANON && !f.test(pg::SWAPCACHE)) || (f.test(pg::RECLAIM) && (f.test(pg::DIRTY) || f.test(pg::WRITEBACK))) {
        MIN_NR_GENS
    } else {
        MAX_NR_GENS - (f.test(pg::WORKINGSET) || f.test(pg::REFERENCED)) as u64
    };
    let lg = &k.memcgs[f.memcg as usize].lruvec.lrugen;
    (lg.max_seq + 1 - gen).max(lg.min_seq[type_])
}

/// 7.2 `folio_add_lru` in a fault: a workingset folio is added active,
/// any other is marked accessed if it is not referenced yet.
fn folio_add_lru_fault(k: &mut Kernel, pfn: u32) {
    let f = k.folios.get_mut(pfn);
    if f.test(pg::WORKINGSET) {
        f.set(pg::ACTIVE);
    } else if !f.test(pg::REFERENCED) {
        (k.steps.folio_inc_refs)(f);
    }
}

/// 7.2 `evict_folios`' putback.
fn evict_putback(k: &mut Kernel, pfn: u32, skip_retry: bool) -> bool {
    let f = *k.folios.get(pfn);
    if !skip_retry && !f.test(pg::ACTIVE) && f.mapcount == 0 && !f.test(pg::DIRTY) && !f.test(pg::WRITEBACK) {
        return true;
    }
    // Not to the oldest generation: LRU_REFS_FLAGS (the refs and
    // PG_referenced) cleared, PG_active set.
    let min_seq = k.memcgs[f.memcg as usize].lruvec.lrugen.min_seq[f.lru_type()];
    if lru_gen_folio_seq(k, pfn, false) == min_seq {
        let fm = k.folios.get_mut(pfn);
        fm.set_refs_field(0);
        fm.clear(pg::REFERENCED);
        fm.set(pg::ACTIVE);
    }
    false
}
