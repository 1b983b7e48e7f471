// SPDX-License-Identifier: GPL-2.0-only
//! Seed 003 without its memcg selection ("mm: multi-gen LRU: optimize
//! multiple memcgs", the patch that the seed's "patch1-8" runs leave out;
//! in 6.12 the per-node memcg LRU of `lru_gen_shrink_node`/`shrink_many`
//! carries that selection). With this variant global reclaim under the
//! multi-gen LRU does not pick memcgs from the memcg LRU: it walks every
//! memcg with the shared iterator, as cgroup reclaim and the classic LRU
//! do (`shrink_node_memcgs`), and reclaims each with
//! `lru_gen_shrink_lruvec` — the shape of global reclaim before the memcg
//! LRU existed. An interpretation, not the seed's code (which the seeds do
//! not contain); docs/VARIANTS.md.

use super::Hooks;

pub struct MemcgLruOff;

impl Hooks for MemcgLruOff {
    fn memcg_lru(&self) -> bool {
        false
    }
}
