// SPDX-License-Identifier: GPL-2.0-only
//! 7.2's rework of the multi-gen LRU's tiers, PG_workingset and refault
//! detection (7.2 include/linux/mm_inline.h: `lru_tier_from_refs`,
//! `folio_lru_refs`; 7.2 mm/swap.c: `lru_gen_inc_refs`; 7.2
//! mm/workingset.c: `lru_gen_eviction`, `lru_gen_test_recent`,
//! `lru_gen_refault`; 7.2 mm/vmscan.c: `sort_folio`, `isolate_folio`,
//! `folio_inc_gen`, `inc_min_seq`, `read_ctrl_pos`, `get_tier_idx`,
//! `get_type_to_scan`, `isolate_folios`):
//!
//! - an access through a file descriptor sets PG_referenced first, then
//!   counts up to three in the refs counter, and sets PG_workingset once
//!   the counter is saturated (6.12: PG_referenced, then PG_workingset,
//!   then the counter); `folio_lru_refs` counts all accesses (0 without
//!   PG_referenced); a folio with PG_workingset is in the top tier, any
//!   other in tier `order_base_2(refs)`;
//! - the shadow keeps PG_workingset itself (6.12: "refs != 0"); a refault
//!   is recent while `max_seq` is fewer than `MAX_NR_GENS` generations past
//!   the `min_seq` the folio was evicted at (6.12: `min_seq` unchanged);
//!   `workingset_activate` counts only a refault of a workingset folio in
//!   a fault, `workingset_restore` every refault of a workingset folio
//!   (6.12: activate every recent refault, restore in faults or at the top
//!   tier); a refault of any other folio restores its refs counter;
//! - `sort_folio` protects into the head of the next generation, and does
//!   not count a saturated workingset folio it promotes lazily;
//!   `inc_min_seq` counts the folios it moves as protected; `folio_inc_gen`
//!   and `isolate_folio` keep PG_workingset;
//! - the PID controller counts protected folios of every tier, uses the
//!   gains 2:3 between tiers, and picks the type to scan over the sums of
//!   all tiers; `isolate_folios` tries the other type only when the first
//!   scanned nothing.
//!
//! - a page-table access promotes on the second sighting: the first
//!   young PTE a walk, the look-around or reclaim's rmap walk finds sets
//!   PG_referenced only; the next promotes the folio (a walk:
//!   `folio_update_gen` to the youngest generation with PG_workingset; the
//!   look-around and reclaim: `lru_gen_set_refs`, PG_workingset once the
//!   folio has more than one access, then activation). Under the multi-gen
//!   LRU `folio_check_references` no longer applies the classic rules: no
//!   young PTE, reclaim; the first, keep; the second, activate. Walks and
//!   the look-around skip folios off the LRU (6.12 gave an isolated folio
//!   PG_referenced and `shrink_folio_list` kept it) and age the anon
//!   folios of file mappings whatever the swappiness.
//!
//! Where folios are inserted (`lru_gen_folio_seq`) is profiles/insertion_7_2.rs.
//!
//! Simplified (docs/FIDELITY.md): every folio is order 0, so the batching
//! of a large folio's PTEs (`folio_pte_batch_flags`) never applies, and
//! `lru_gen_switching()` (a change of `lru_gen/enabled` in progress) is not
//! modelled.

use super::{AgeBatch, Difference, Fidelity, Steps};
use crate::folio::{pg, Folio};
use crate::kernel::Kernel;
use crate::lru_gen::{gen_from_seq, positive_ctrl_err, CtrlPos, LRU_REFS_WIDTH, MAX_NR_GENS, MAX_NR_TIERS, MAX_SWAPPINESS};
use crate::lruvec::{ANON, FILE};
use crate::vmscan::ScanControl;
use crate::workingset::{pack_shadow, workingset_events, EVICTION_MASK};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "tiers-7.2",
    source: "7.2 mm_inline.h: lru_tier_from_refs, folio_lru_refs; mm/swap.c: lru_gen_inc_refs; mm/workingset.c: lru_gen_eviction, lru_gen_test_recent, lru_gen_refault; mm/vmscan.c: sort_folio, isolate_folio, folio_inc_gen, inc_min_seq, read_ctrl_pos, get_tier_idx, get_type_to_scan, isolate_folios, folio_update_gen, lru_gen_set_refs, walk_update_folio, get_pfn_folio, folio_check_references, shrink_folio_list",
    summary: "tiers and PG_workingset reworked: refs counted to saturation then PG_workingset; refault window of MAX_NR_GENS; activations only for workingset refaults in faults; PID over all tiers; page-table accesses promote on the second sighting",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.folio_inc_refs = lru_gen_inc_refs;
    s.lru_gen_eviction = lru_gen_eviction;
    s.lru_gen_refault = lru_gen_refault;
    s.sort_folio = sort_folio;
    s.isolate_folio = |k, _sc, pfn| isolate_folio(k, pfn);
    s.isolate_folios = isolate_folios;
    s.folio_inc_gen_clear = folio_inc_gen_clear;
    s.inc_min_seq_protect = inc_min_seq_protect;
    s.folio_update_gen = folio_update_gen;
    s.get_pfn_folio = |f, memcg, _can_swap| f.gen_field() != 0 && f.memcg == memcg;
    s.look_around_update = look_around_update;
    s.folio_check_references = folio_check_references;
    // The look-around no longer marks isolated folios: nothing to keep.
    s.shrink_folio_promoted = |_| false;
}

/// The refs counter saturates at `BIT(LRU_REFS_WIDTH) - 1`.
const REFS_MAX: u32 = (1 << LRU_REFS_WIDTH) - 1;
/// `BIT(LRU_REFS_WIDTH) + 1`: refs + workingset of a saturated workingset
/// folio, which `sort_folio` promotes lazily.
const LAZY: u32 = (1 << LRU_REFS_WIDTH) + 1;

/// 7.2 `lru_gen_inc_refs`.
fn lru_gen_inc_refs(f: &mut Folio) {
    if f.test(pg::UNEVICTABLE) {
        return;
    }
    if !f.test(pg::REFERENCED) {
        f.set_refs_field(0);
        f.set(pg::REFERENCED);
        return;
    }
    let r = f.refs_field();
    if r == REFS_MAX {
        f.set(pg::WORKINGSET);
        return;
    }
    f.set_refs_field(r + 1);
}

/// 7.2 `folio_lru_refs`: every access, PG_referenced's included.
fn folio_lru_refs(f: &Folio) -> u32 {
    if !f.test(pg::REFERENCED) {
        return 0;
    }
    f.refs_field() + 1
}

/// 7.2 `lru_tier_from_refs`.
fn lru_tier_from_refs(refs: u32, workingset: bool) -> usize {
    if workingset {
        return MAX_NR_TIERS - 1;
    }
    // order_base_2: 0 and 1 -> 0, 2 -> 1, 3 and 4 -> 2.
    match refs {
        0 | 1 => 0,
        2 => 1,
        _ => 2,
    }
}

/// 7.2 `lru_gen_eviction`.
fn lru_gen_eviction(k: &mut Kernel, pfn: u32) -> u64 {
    let f = *k.folios.get(pfn);
    let type_ = f.lru_type();
    let refs = folio_lru_refs(&f);
    let workingset = f.test(pg::WORKINGSET);
    let tier = lru_tier_from_refs(refs, workingset);
    let lg = &mut k.memcgs[f.memcg as usize].lruvec.lrugen;
    let token = (lg.min_seq[type_] << LRU_REFS_WIDTH) | refs.saturating_sub(1) as u64;
    lg.evicted[type_][tier] += 1;
    pack_shadow(f.memcg, token, workingset)
}

/// 7.2 `lru_gen_refault` with `lru_gen_test_recent`.
fn lru_gen_refault(k: &mut Kernel, pfn: u32, shadow: u64) {
    let Some((memcg, type_, token, workingset)) = k.lru_gen_shadow_of(pfn, shadow) else {
        return;
    };
    let (refault_ev, act_ev, restore_ev) = workingset_events(type_ == FILE);
    k.count(memcg, refault_ev, 1);
    // lru_gen_test_recent: max_seq, cut to the shadow's width, fewer than
    // MAX_NR_GENS past the min_seq of the eviction.
    let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq & (EVICTION_MASK >> LRU_REFS_WIDTH);
    if max_seq.abs_diff(token >> LRU_REFS_WIDTH) >= MAX_NR_GENS {
        return;
    }
    let refs = (token & ((1 << LRU_REFS_WIDTH) - 1)) as u32 + 1;
    let tier = lru_tier_from_refs(refs, workingset);
    k.memcgs[memcg as usize].lruvec.lrugen.refaulted[type_][tier] += 1;
    if workingset {
        // folio_add_lru sets PG_active for workingset folios in a fault.
        if k.current.in_lru_fault {
            k.count(memcg, act_ev, 1);
        }
        k.folios.get_mut(pfn).set(pg::WORKINGSET);
        k.count(memcg, restore_ev, 1);
    } else {
        // The counter only: PG_referenced stays as it was.
        k.folios.get_mut(pfn).set_refs_field(refs - 1);
    }
}

/// 7.2 `sort_folio`: true if the folio was moved instead of isolated.
fn sort_folio(k: &mut Kernel, _batch: &mut AgeBatch, pfn: u32, tier_idx: usize) -> bool {
    if !k.folio_evictable(pfn) {
        return false;
    }
    let f = *k.folios.get(pfn);
    let memcg = f.memcg;
    let type_ = f.lru_type();
    let gen = (f.gen_field() - 1) as usize;
    let refs = folio_lru_refs(&f);
    let workingset = f.test(pg::WORKINGSET);
    let tier = lru_tier_from_refs(refs, workingset);
    let min_gen = gen_from_seq(k.memcgs[memcg as usize].lruvec.lrugen.min_seq[type_]);
    if gen != min_gen {
        // Promoted by the aging or look-around: to the head of its gen.
        k.mglru_move(pfn, memcg, gen, type_, false);
        return true;
    }
    let lazy = refs + workingset as u32 == LAZY;
    if tier > tier_idx || lazy {
        let new_gen = k.folio_inc_gen(pfn, false);
        k.mglru_move(pfn, memcg, new_gen, type_, false);
        if !lazy {
            k.memcgs[memcg as usize].lruvec.lrugen.protected[type_][tier] += 1;
        }
        return true;
    }
    false
}

/// 7.2 `isolate_folio`: PG_referenced and PG_workingset stay; without
/// PG_referenced the counter is cleared.
fn isolate_folio(k: &mut Kernel, pfn: u32) -> bool {
    let f = k.folios.get_mut(pfn);
    if !f.test(pg::LRU) {
        return false;
    }
    f.clear(pg::LRU);
    if !f.test(pg::REFERENCED) {
        f.set_refs_field(0);
    }
    let ok = k.lru_gen_del_folio(pfn, true);
    debug_assert!(ok);
    k.folios.get_mut(pfn).set(pg::ISOLATED);
    true
}

/// 7.2 `folio_inc_gen` clears `LRU_REFS_FLAGS` (the counter and
/// PG_referenced), not PG_workingset.
fn folio_inc_gen_clear(f: &mut Folio) {
    f.set_refs_field(0);
    f.clear(pg::REFERENCED);
}

/// 7.2 `inc_min_seq`: every folio it moves counts as protected in its
/// tier, but a saturated workingset folio being promoted lazily.
fn inc_min_seq_protect(k: &mut Kernel, memcg: u16, type_: usize, pfn: u32) {
    let f = *k.folios.get(pfn);
    let refs = folio_lru_refs(&f);
    let workingset = f.test(pg::WORKINGSET);
    if refs + workingset as u32 != LAZY {
        let tier = lru_tier_from_refs(refs, workingset);
        k.memcgs[memcg as usize].lruvec.lrugen.protected[type_][tier] += 1;
    }
}

/// 7.2 `read_ctrl_pos` over all tiers (`tier == MAX_NR_TIERS`).
fn read_ctrl_pos_all(k: &Kernel, memcg: u16, type_: usize, gain: u64) -> CtrlPos {
    let mut pos = CtrlPos { refaulted: 0, total: 0, gain };
    for tier in 0..MAX_NR_TIERS {
        let p = k.read_ctrl_pos(memcg, type_, tier, gain);
        pos.refaulted += p.refaulted;
        pos.total += p.total;
    }
    pos
}

/// 7.2 `get_tier_idx`: gains 2:3 ("any other tier would have at least
/// twice as many refaults as the first tier").
fn get_tier_idx(k: &Kernel, memcg: u16, type_: usize) -> usize {
    let sp = k.read_ctrl_pos(memcg, type_, 0, 2);
    let mut tier = 1;
    while tier < MAX_NR_TIERS {
        let pv = k.read_ctrl_pos(memcg, type_, tier, 3);
        if !positive_ctrl_err(&sp, &pv) {
            break;
        }
        tier += 1;
    }
    tier - 1
}

/// 7.2 `get_type_to_scan`: file at swappiness 0 or 1, anon at 200 and
/// above, otherwise the PID over the sums of all tiers.
fn get_type_to_scan(k: &Kernel, memcg: u16, swappiness: u32) -> usize {
    if swappiness <= 1 {
        return FILE;
    }
    if swappiness >= MAX_SWAPPINESS {
        return ANON;
    }
    let sp = read_ctrl_pos_all(k, memcg, ANON, swappiness as u64);
    let pv = read_ctrl_pos_all(k, memcg, FILE, (MAX_SWAPPINESS - swappiness) as u64);
    positive_ctrl_err(&sp, &pv) as usize
}

/// 7.2 `isolate_folios`: (scanned, type).
fn isolate_folios(k: &mut Kernel, memcg: u16, sc: &mut ScanControl, swappiness: u32, list: &mut Vec<u32>, nr_to_scan: u64) -> (u64, usize) {
    let mut type_ = get_type_to_scan(k, memcg, swappiness);
    // for_each_evictable_type: file only at swappiness 0, anon only above
    // MAX_SWAPPINESS ("max").
    let types = if swappiness == 0 || swappiness > MAX_SWAPPINESS { 1 } else { 2 };
    let mut total = 0;
    for _ in 0..types {
        let tier = get_tier_idx(k, memcg, type_);
        let scanned = k.scan_folios(memcg, sc, type_, tier, list, nr_to_scan);
        total += scanned;
        if !list.is_empty() {
            break;
        }
        // "If scanned > 0 and isolated == 0, avoid falling back to the
        // other type, as this type remains sufficient."
        if scanned == 0 {
            type_ = 1 - type_;
        }
    }
    (total, type_)
}

/// The first page-table sighting of a folio with neither PG_referenced
/// nor PG_workingset (`folio_update_gen`, `lru_gen_set_refs`): it gets
/// PG_referenced alone (the refs counter cleared), and true.
fn first_sighting(f: &mut Folio) -> bool {
    if f.test(pg::REFERENCED) || f.test(pg::WORKINGSET) {
        return false;
    }
    f.set_refs_field(0);
    f.set(pg::REFERENCED);
    true
}

/// 7.2 `folio_update_gen` (a page-table walk found the folio young): the
/// first sighting sets PG_referenced only; a folio that has it, or
/// PG_workingset, moves to `gen` with PG_workingset and without its refs.
fn folio_update_gen(k: &mut Kernel, pfn: u32, gen: usize) -> Option<usize> {
    let f = k.folios.get_mut(pfn);
    if first_sighting(f) {
        return None;
    }
    if f.gen_field() == 0 {
        return None;
    }
    let old = (f.gen_field() - 1) as usize;
    f.set_refs_field(0);
    f.clear(pg::REFERENCED);
    f.set(pg::WORKINGSET);
    f.set_gen_field(gen as u32 + 1);
    Some(old)
}

/// 7.2 `lru_gen_set_refs`: false on the first sighting (PG_referenced
/// set); on a later one PG_workingset for a folio with more than one
/// access, else one more access, and true.
fn lru_gen_set_refs(k: &mut Kernel, pfn: u32) -> bool {
    let f = k.folios.get_mut(pfn);
    if first_sighting(f) {
        return false;
    }
    if folio_lru_refs(f) > 1 {
        f.set_refs_field(0);
        f.clear(pg::REFERENCED);
        f.set(pg::WORKINGSET);
    } else {
        (k.steps.folio_inc_refs)(f);
    }
    true
}

/// 7.2 `walk_update_folio` without a walk (the look-around from reclaim's
/// rmap walk): a promoted folio outside the youngest generation is
/// activated.
fn look_around_update(k: &mut Kernel, pfn: u32, new_gen: usize) {
    if lru_gen_set_refs(k, pfn) {
        let g = k.folios.get(pfn).gen_field();
        if g != 0 && (g - 1) as usize != new_gen {
            k.folio_activate(pfn);
        }
    }
}

/// 7.2 `folio_check_references`: under the multi-gen LRU, no young PTE
/// means reclaim, the first sighting keep, a later one activate; the
/// classic LRU's rules (and its `folio_test_clear_referenced`) apply only
/// without it.
fn folio_check_references(k: &mut Kernel, pfn: u32, sc: &ScanControl) -> crate::vmscan::FolioRef {
    use crate::vmscan::FolioRef;
    let rp = k.folio_referenced(pfn, sc.target);
    if k.folios.get(pfn).test(pg::MLOCKED) {
        return FolioRef::Activate;
    }
    if k.policy() == crate::kernel::Policy::Mglru {
        if rp == 0 {
            return FolioRef::Reclaim;
        }
        return if lru_gen_set_refs(k, pfn) { FolioRef::Activate } else { FolioRef::Keep };
    }
    let f = k.folios.get_mut(pfn);
    let referenced_folio = f.test(pg::REFERENCED);
    f.clear(pg::REFERENCED);
    k.folio_check_references_classic(pfn, rp, referenced_folio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{KernelVersion, MachineConfig};

    fn kernel_7_2() -> Kernel {
        Kernel::new(&MachineConfig { kernel: KernelVersion::V7_2, ..Default::default() })
    }

    /// `lru_gen_set_refs`, sighting by sighting, from the 7.2 source: the
    /// first sets PG_referenced and says "keep"; the second finds one
    /// access (PG_referenced, counter 0), adds one (counter 1) and says
    /// "activate"; the third finds two accesses, so PG_workingset replaces
    /// PG_referenced and the counter; from then on PG_workingset alone
    /// makes every sighting a promotion.
    #[test]
    fn lru_gen_set_refs_promotes_on_the_second_sighting() {
        let mut k = kernel_7_2();
        let pfn = 0;
        let f = k.folios.get_mut(pfn);
        f.clear(pg::REFERENCED | pg::WORKINGSET);
        f.set_refs_field(0);
        let state = |k: &Kernel| {
            let f = k.folios.get(pfn);
            (f.test(pg::REFERENCED), f.refs_field(), f.test(pg::WORKINGSET))
        };
        assert!(!lru_gen_set_refs(&mut k, pfn));
        assert_eq!(state(&k), (true, 0, false));
        assert!(lru_gen_set_refs(&mut k, pfn));
        assert_eq!(state(&k), (true, 1, false));
        assert!(lru_gen_set_refs(&mut k, pfn));
        assert_eq!(state(&k), (false, 0, true));
        assert!(lru_gen_set_refs(&mut k, pfn));
        // folio_lru_refs is 0 without PG_referenced: one access counted.
        assert_eq!(state(&k), (true, 0, true));
    }

    /// `folio_update_gen`: a folio with neither PG_referenced nor
    /// PG_workingset is only marked; a marked one moves to the walk's
    /// generation with PG_workingset; an isolated one (no generation)
    /// stays put. 6.12 moved the first at once, clearing its flags.
    #[test]
    fn folio_update_gen_marks_then_promotes() {
        let mut k = kernel_7_2();
        let pfn = 0;
        let mut f = *k.folios.get(pfn);
        f.clear(pg::REFERENCED | pg::WORKINGSET);
        f.set_refs_field(0);
        f.set_gen_field(1);
        *k.folios.get_mut(pfn) = f;
        assert_eq!(folio_update_gen(&mut k, pfn, 3), None);
        assert_eq!((k.folios.get(pfn).gen_field(), k.folios.get(pfn).test(pg::REFERENCED)), (1, true));
        assert_eq!(folio_update_gen(&mut k, pfn, 3), Some(0));
        let g = *k.folios.get(pfn);
        assert_eq!((g.gen_field(), g.test(pg::REFERENCED), g.test(pg::WORKINGSET)), (4, false, true));
        k.folios.get_mut(pfn).set_gen_field(0);
        assert_eq!(folio_update_gen(&mut k, pfn, 2), None, "isolated");
        let mut k612 = Kernel::new(&MachineConfig::default());
        *k612.folios.get_mut(pfn) = f;
        assert_eq!(k612.folio_update_gen(pfn, 3), Some(0), "6.12 promotes on the first sighting");
        assert!(!k612.folios.get(pfn).test(pg::WORKINGSET));
    }
}
