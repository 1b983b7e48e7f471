// SPDX-License-Identifier: GPL-2.0-only
//! The shadow-node shrinker's limit in 6.1 reads exact sizes (6.1
//! include/linux/memcontrol.h `lruvec_page_state_local`, mm/workingset.c
//! `count_shadow_nodes`). The limit is the memcg's LRU and slab pages / 8
//! in every version, read with `lruvec_page_state_local`; in 6.1 that sums
//! the per-CPU counters (`lruvec_stats_percpu->state`) at the moment of
//! the call, where 6.12 reads `state_local`, which only the statistics
//! flush (every 2 s, or on enough updates) brings up to date. So a memcg
//! that fills before the first flush after it was created sees its
//! limit at once in 6.1, and at 0 until then in 6.12 (real 6.1,
//! file-zipf-with-scans MGLRU: `workingset_nodereclaim` 0; the model
//! reading 6.12's flushed sizes freed 128 nodes in the first 2 s).

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;
use crate::lruvec::NR_LRU_LISTS;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "shadow-nodes-6.1",
    source: "6.1 include/linux/memcontrol.h: lruvec_page_state_local (per-CPU sums); mm/workingset.c: count_shadow_nodes",
    summary: "the shadow-node limit reads the memcg's LRU and slab sizes exactly, not as of the last statistics flush",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.shadow_limit_pages = shadow_limit_pages;
}

/// The memcg's own LRU lists (its generations under MGLRU, counted in
/// `NR_LRU_BASE` by `lru_gen_update_size`) and slab pages, now.
fn shadow_limit_pages(k: &Kernel, memcg: u16) -> u64 {
    let c = &k.memcgs[memcg as usize];
    (0..NR_LRU_LISTS).map(|lru| c.lruvec.size(lru)).sum::<u64>() + k.memcg_slab_pages(memcg)
}
