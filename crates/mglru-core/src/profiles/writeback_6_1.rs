// SPDX-License-Identifier: GPL-2.0-only
//! Dirty and writeback folios in 6.1's multi-gen LRU eviction (6.1
//! mm/vmscan.c `sort_folio`, `isolate_folio`, `folio_inc_gen`):
//! - `sort_folio` keeps a folio under writeback, and a dirty page-cache
//!   folio, out of reclaim: it moves to the next generation, at the head
//!   of its list, with PG_reclaim set, so that the end of its writeback
//!   rotates it to the tail for a quick eviction ("waiting for
//!   writeback"). Such folios never reach `shrink_folio_list`: 6.1's
//!   multi-gen LRU neither calls `pageout` on them nor wakes the flushers
//!   (6.12's `sort_folio` lets them through, and `evict_folios` wakes the
//!   flushers when every file folio it took was dirty and unqueued). Their
//!   writeback is started by the writers' dirty throttling and the flusher
//!   (`wb-stats-6.1`).
//! - `isolate_folio` refuses a mapped folio when unmapping is not allowed
//!   and, when writing is not allowed (kswapd while boosting watermarks),
//!   a dirty folio or an anon folio outside the swap cache; it clears
//!   PG_reclaim for `shrink_folio_list`.
//!
//! Simplified: the model has no folio lock, so `sort_folio`'s "locked"
//! case never arises; there are no lazy-free (MADV_FREE) folios, so its
//! "dirty lazyfree" case neither; the model's `reclaim_idx` is always the
//! highest zone, so "ineligible" is never taken (as in 6.12's model).

use super::{AgeBatch, Difference, Fidelity, Steps};
use crate::folio::pg;
use crate::kernel::Kernel;
use crate::lruvec::FILE;
use crate::vmscan::ScanControl;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "writeback-6.1",
    source: "6.1 mm/vmscan.c: sort_folio (waiting for writeback), isolate_folio (unmapping and swapping inhibited, PG_reclaim cleared), folio_inc_gen (reclaiming)",
    summary: "sort_folio moves folios under writeback and dirty page-cache folios to the next generation with PG_reclaim instead of letting reclaim write them; isolate_folio's may_unmap/may_writepage checks",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    // Both wrap 6.12's own (no other difference of 6.1 replaces them;
    // 6.1's tier counting goes through `sort_folio_protected`).
    s.sort_folio = sort_folio;
    s.isolate_folio = isolate_folio;
}

/// 6.1 `sort_folio`: 6.12's cases (promoted, protected), then "waiting for
/// writeback".
fn sort_folio(k: &mut Kernel, batch: &mut AgeBatch, pfn: u32, tier_idx: usize) -> bool {
    if k.sort_folio(batch, pfn, tier_idx) {
        return true;
    }
    if !k.folio_evictable(pfn) {
        return false;
    }
    let f = *k.folios.get(pfn);
    let type_ = f.lru_type();
    if f.test(pg::WRITEBACK) || (type_ == FILE && f.test(pg::DIRTY)) {
        let gen = k.folio_inc_gen(pfn, true);
        // list_move: to the head of the new generation's list.
        k.mglru_move(pfn, f.memcg, gen, type_, false);
        return true;
    }
    false
}

/// 6.1 `isolate_folio`.
fn isolate_folio(k: &mut Kernel, sc: &ScanControl, pfn: u32) -> bool {
    let f = *k.folios.get(pfn);
    // Unmapping inhibited.
    if !sc.may_unmap && f.mapcount > 0 {
        return false;
    }
    // Swapping inhibited (the model's reclaim may always do IO: __GFP_IO).
    if !sc.may_writepage && (f.test(pg::DIRTY) || (f.test(pg::ANON) && !f.test(pg::SWAPCACHE))) {
        return false;
    }
    if !k.isolate_folio(pfn) {
        return false;
    }
    k.folios.get_mut(pfn).clear(pg::RECLAIM);
    true
}
