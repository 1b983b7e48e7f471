// SPDX-License-Identifier: GPL-2.0-only
//! Seed 000 (Kairui Song, 2024), "batch update pages when aging": the
//! folios that the aging (`inc_min_seq`) and the eviction's sort move to
//! a younger generation are collected and spliced to the tails of their
//! new lists in bulk, keeping their relative order, instead of moved one
//! by one (which reverses it). In no kernel the model follows (7.2 still
//! moves them one by one: shared/reference/kernel-versions.md §2).
//! docs/VARIANTS.md.

use super::{AgeBatch, Difference, Fidelity, Steps};
use crate::kernel::Kernel;
use crate::lru_gen::MAX_LRU_BATCH;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "batch-aging",
    source: "seed 000's cover letter (no kernel has it): inc_min_seq, sort_folio",
    summary: "aging and sorting move folios to their new generation in bulk, in their original order",
    fidelity: Fidelity::Interpreted,
    apply,
};

fn apply(s: &mut Steps) {
    s.age_move = age_move;
    s.age_flush = age_flush;
}

fn age_move(k: &mut Kernel, b: &mut AgeBatch, pfn: u32, memcg: u16, new_gen: usize, type_: usize) {
    k.mglru_unlink(pfn);
    b.folios.push((pfn, new_gen));
    if b.folios.len() as u64 == MAX_LRU_BATCH {
        splice_tail_in_order(k, b, memcg, type_);
    }
}

fn age_flush(k: &mut Kernel, b: &mut AgeBatch, memcg: u16, type_: usize) {
    splice_tail_in_order(k, b, memcg, type_);
}

/// The bulk move: the folios, taken oldest first, go to the tails of their
/// new generations with their relative order kept.
fn splice_tail_in_order(k: &mut Kernel, b: &mut AgeBatch, memcg: u16, type_: usize) {
    for &(pfn, gen) in b.folios.iter().rev() {
        k.mglru_link(pfn, memcg, gen, type_, true);
    }
    b.folios.clear();
}
