// SPDX-License-Identifier: GPL-2.0-only
//! memory.reclaim in 6.1 (6.1 mm/memcontrol.c: `memory_reclaim`): each
//! round asks `try_to_free_mem_cgroup_pages` for the whole remainder
//! (6.12 asks for a quarter of it, at least `SWAP_CLUSTER_MAX`, to
//! over-reclaim less), with the same retries and the final drain. 6.1's
//! file takes no `swappiness=` key (the trace format has none for
//! memory.reclaim either).

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "memory-reclaim-6.1",
    source: "6.1 mm/memcontrol.c: memory_reclaim",
    summary: "memory.reclaim asks for the whole remainder each round (6.12: a quarter)",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.memory_reclaim = memory_reclaim;
}

fn memory_reclaim(k: &mut Kernel, memcg: u16, nr_to_reclaim: u64, swappiness: Option<u32>) -> (u64, bool) {
    k.memory_reclaim_rounds(memcg, nr_to_reclaim, swappiness, |left| left)
}
