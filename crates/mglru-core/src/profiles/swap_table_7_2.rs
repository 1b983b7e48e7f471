// SPDX-License-Identifier: GPL-2.0-only
//! The swap cache as a swap table (7.2 mm/swap_table.h, mm/swap_state.c:
//! `swap_cache_get_shadow`, `__swap_cache_do_del_folio`). 6.12's swap cache
//! is an xarray per 64 MiB of swap space: a swapped-out folio's shadow
//! sits in a leaf node like a page cache shadow, a node that holds only
//! shadows goes on the root's `shadow_nodes` list
//! (`workingset_update_node`), and the shadow-node shrinker frees such
//! nodes with their shadows. 7.2 keeps the swap cache in the swap device's
//! clusters (a table of entries per cluster, each a folio, a shadow or
//! empty): no xarray node holds an anon shadow, so none is on the
//! shrinker's list, and an anon shadow lives until its slot is freed or a
//! folio replaces it. Only page cache nodes are left for the shrinker
//! (real 7.2, global-swap-brd MGLRU: `workingset_nodereclaim` 79).
//!
//! The table's own memory (allocated per cluster in use, not charged to a
//! memcg) is not modelled, as the swap cache xarray's nodes were not.

use super::{Difference, Fidelity, Steps};
use crate::shadow::XaNodes;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "swap-table-7.2",
    source: "7.2 mm/swap_table.h, mm/swap_state.c: swap_cache_get_shadow, __swap_cache_do_del_folio (the swap cache in the cluster's table, no xarray)",
    summary: "the swap cache is a table in the swap clusters: anon shadows are in no xarray node, the shadow-node shrinker never frees them",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.swap_cache_nodes = |_| XaNodes::default();
}
