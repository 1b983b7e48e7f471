// SPDX-License-Identifier: GPL-2.0-only
//! The shadow-node shrinker's limit in 7.2 (7.2 mm/workingset.c
//! `count_shadow_nodes`). The limit is still the memcg's LRU and slab
//! pages / 8, but 7.2 reads the LRU pages with `lruvec_lru_size(lruvec,
//! lru, MAX_NR_ZONES - 1)` where 6.12 read `lruvec_page_state_local(lruvec,
//! NR_LRU_BASE + lru)`. Under a memcg, `lruvec_lru_size` sums the memcg's
//! per-zone `lru_zone_size[]`, which only `update_lru_size` (7.2
//! include/linux/mm_inline.h) maintains, through
//! `mem_cgroup_update_lru_size`. The classic lists go through it; the
//! multi-gen LRU's `lru_gen_update_size` calls `__update_lru_size`, which
//! updates the lruvec and zone statistics and not `lru_zone_size[]`. So
//! under MGLRU a memcg's limit counts only the folios on the classic lists
//! (the unevictable list, folios not yet drained after lru_gen was turned
//! on) and its slab: the shrinker frees nearly every shadow-only node, and
//! refaults go undetected (real 7.2, two-memcgs-global-pressure MGLRU:
//! `workingset_nodereclaim` 2,328, `workingset_refault_file` 2 where 6.12
//! counts 0 and 108,804). Under the classic LRU the sizes are exact where
//! 6.12's were as of the last statistics flush.
//!
//! The slab pages are still `lruvec_page_state_local`, as of the last flush.

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "shadow-nodes-7.2",
    source: "7.2 mm/workingset.c: count_shadow_nodes (lruvec_lru_size: mem_cgroup_get_zone_lru_size, which lru_gen_update_size leaves alone)",
    summary: "the shadow-node limit counts the memcg's classic-list pages only (exact): under MGLRU nearly every shadow-only node is freed",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.shadow_limit_pages = shadow_limit_pages;
}

/// `lruvec_lru_size` over every list: the memcg's `lru_zone_size[]`, i.e.
/// the folios on its classic lists now (multi-gen folios are not in it);
/// and the slab as of the last flush.
fn shadow_limit_pages(k: &Kernel, memcg: u16) -> u64 {
    let c = &k.memcgs[memcg as usize];
    c.lruvec.lists.iter().map(|l| l.len).sum::<u64>() + c.flushed.slab_local_pages
}
