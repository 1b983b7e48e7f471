// SPDX-License-Identifier: GPL-2.0-only
//! 6.1's workingset accounting under the multi-gen LRU (6.1
//! mm/workingset.c: `lru_gen_refault`; mm/vmscan.c: `sort_folio`):
//!
//! - a refault counts (`workingset_refault_*`) only if it is recent — its
//!   shadow's memcg is the folio's and its `min_seq` token is the lruvec's
//!   current one; 6.12 counts every refault of the right memcg before the
//!   recency test;
//! - a refault activates nothing in the counters: 6.1 counts
//!   `workingset_activate_*` where `sort_folio` protects a folio of a
//!   tier the PID controller keeps (6.12 counts it per recent refault);
//! - the restore rule is 6.12's (in a fault, or refs at the top tier):
//!   all refs bits and PG_workingset set, `workingset_restore_*` counted.

use super::{Difference, Fidelity, Steps};
use crate::folio::pg;
use crate::kernel::Kernel;
use crate::lru_gen::{lru_tier_from_refs, LRU_REFS_WIDTH};
use crate::lruvec::FILE;
use crate::stat::Ev;
use crate::workingset::{workingset_events, EVICTION_MASK};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "workingset-6.1",
    source: "6.1 mm/workingset.c: lru_gen_refault; 6.1 mm/vmscan.c: sort_folio",
    summary: "only recent refaults count; workingset_activate counts folios sort_folio protects, not refaults",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.lru_gen_refault = lru_gen_refault;
    s.sort_folio_protected = sort_folio_protected;
}

fn lru_gen_refault(k: &mut Kernel, pfn: u32, shadow: u64) {
    let Some((memcg, type_, token, workingset)) = k.lru_gen_shadow_of(pfn, shadow) else {
        return;
    };
    let min_seq = k.memcgs[memcg as usize].lruvec.lrugen.min_seq[type_];
    if (token >> LRU_REFS_WIDTH) != (min_seq & (EVICTION_MASK >> LRU_REFS_WIDTH)) {
        return;
    }
    let refs = (token & ((1 << LRU_REFS_WIDTH) - 1)) as u32 + workingset as u32;
    let tier = lru_tier_from_refs(refs);
    k.memcgs[memcg as usize].lruvec.lrugen.refaulted[type_][tier] += 1;
    let (refault_ev, _, restore_ev) = workingset_events(type_ == FILE);
    k.count(memcg, refault_ev, 1);
    if k.current.in_lru_fault || refs >= (1 << LRU_REFS_WIDTH) - 1 {
        let fm = k.folios.get_mut(pfn);
        fm.set_refs_field(3);
        fm.set(pg::WORKINGSET);
        k.count(memcg, restore_ev, 1);
    }
}

/// 6.1 `sort_folio`'s protected case: `__mod_lruvec_state(lruvec,
/// WORKINGSET_ACTIVATE_BASE + type, delta)`.
fn sort_folio_protected(k: &mut Kernel, memcg: u16, type_: usize) {
    let e = if type_ == FILE { Ev::WorkingsetActivateFile } else { Ev::WorkingsetActivateAnon };
    k.count(memcg, e, 1);
}
