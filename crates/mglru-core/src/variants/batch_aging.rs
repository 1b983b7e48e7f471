// SPDX-License-Identifier: GPL-2.0-only
//! Seed 000 (Kairui Song, 2024), "batch update pages when aging": the
//! folios that the aging (`inc_min_seq`) and the eviction's sort move to
//! a younger generation are collected and spliced to the tails of their
//! new lists in bulk, keeping their relative order, instead of moved one
//! by one (which reverses it). docs/VARIANTS.md.

use super::Hooks;
use crate::kernel::Kernel;
use crate::lru_gen::MAX_LRU_BATCH;

pub struct BatchAging;

impl Hooks for BatchAging {
    fn age_move(&self, k: &mut Kernel, pfn: u32, memcg: u16, new_gen: usize, type_: usize) {
        k.mglru_unlink(pfn);
        k.protected_batch.push((pfn, new_gen));
        if k.protected_batch.len() as u64 == MAX_LRU_BATCH {
            splice_tail_in_order(k, memcg, type_);
        }
    }

    fn age_flush(&self, k: &mut Kernel, memcg: u16, type_: usize) {
        splice_tail_in_order(k, memcg, type_);
    }
}

/// The bulk move: the folios, taken oldest first, go to the tails of their
/// new generations with their relative order kept.
fn splice_tail_in_order(k: &mut Kernel, memcg: u16, type_: usize) {
    let mut batch = std::mem::take(&mut k.protected_batch);
    for &(pfn, gen) in batch.iter().rev() {
        k.mglru_link(pfn, memcg, gen, type_, true);
    }
    batch.clear();
    k.protected_batch = batch;
}
