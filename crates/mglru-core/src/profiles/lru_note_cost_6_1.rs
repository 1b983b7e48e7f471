// SPDX-License-Identifier: GPL-2.0-only
//! The classic LRU's reclaim cost before 6.12's rework (6.1 mm/swap.c:
//! `lru_note_cost(lruvec, file, nr_pages)`; 6.1 mm/vmscan.c:
//! `shrink_inactive_list`; 6.1 mm/workingset.c: `workingset_refault`):
//! a type's cost is the pages of I/O its reclaim caused — the folios
//! `shrink_inactive_list` wrote out, and one per refaulting workingset
//! folio — with the same halving when the costs pass a quarter of the
//! lruvec's size. 6.12 weighs I/O by `SWAP_CLUSTER_MAX` and adds the
//! folios rotated (scanned and not reclaimed; `shrink_active_list`'s
//! rotations), which shifts `get_scan_count`'s anon/file balance.

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "lru-note-cost-6.1",
    source: "6.1 mm/swap.c: lru_note_cost; 6.1 mm/vmscan.c: shrink_inactive_list, shrink_active_list; 6.1 mm/workingset.c: workingset_refault",
    summary: "classic LRU cost = pages of I/O only (no SWAP_CLUSTER_MAX weight, no rotations)",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.lru_note_cost = lru_note_cost;
}

/// 6.1's callers pass the I/O alone: `shrink_inactive_list` its
/// `stat.nr_pageout` (also when 0: the decay still runs),
/// `workingset_refault` the folio's pages. `shrink_active_list` notes no
/// cost in 6.1; its 6.12 call (rotations of VM_EXEC folios) never happens
/// in the model, which has no VM_EXEC mappings.
fn lru_note_cost(k: &mut Kernel, memcg: u16, file: usize, nr_io: u64, _nr_rotated: u64) {
    k.lru_note_cost_add(memcg, file, nr_io);
}
