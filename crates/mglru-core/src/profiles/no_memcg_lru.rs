// SPDX-License-Identifier: GPL-2.0-only
//! No memcg LRU: global (root) reclaim under the multi-gen LRU walks every
//! memcg with the shared iterator (`shrink_node_memcgs` → `shrink_lruvec`
//! → `lru_gen_shrink_lruvec`), as cgroup reclaim and the classic LRU do,
//! instead of picking memcgs from the per-node memcg LRU
//! (`lru_gen_shrink_node` → `shrink_many`). That is Linux 6.1, which
//! has neither `shrink_many` nor `lru_gen_rotate_memcg` (6.1
//! mm/vmscan.c: `shrink_node` calls `shrink_node_memcgs` for every
//! reclaim; `shrink_lruvec` hands each lruvec to `lru_gen_shrink_lruvec`),
//! and it is seed 003's "patch1-8" (the multi-gen LRU before its memcg
//! selection: variant `memcg-lru-off`). kswapd keeps its page-table walk
//! there (`set_mm_walk` in 6.1's `lru_gen_shrink_lruvec`).

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;
use crate::vmscan::{NodeScan, ScanControl};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "no-memcg-lru",
    source: "6.1 mm/vmscan.c: shrink_node, shrink_lruvec (no lru_gen_shrink_node, shrink_many)",
    summary: "global reclaim walks every memcg in iterator order; no memcg LRU",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.lru_gen_shrink_node = no_lru_gen_shrink_node;
}

fn no_lru_gen_shrink_node(_k: &mut Kernel, _sc: &mut ScanControl) -> Option<NodeScan> {
    None
}
