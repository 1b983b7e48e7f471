// SPDX-License-Identifier: GPL-2.0-only
//! Which mappings' accesses count in 6.1 (6.1 mm/rmap.c
//! `folio_referenced_one`, mm/memory.c `lru_gen_enter_fault` and
//! `zap_pte_range`, mm/vmscan.c `should_skip_vma`, mm/fadvise.c). 6.12
//! has one test, `vma_has_recency`: a mapping with `MADV_SEQUENTIAL` or
//! `MADV_RANDOM` (or a file opened for `POSIX_FADV_NOREUSE`) has no
//! recency, and reclaim's rmap walk leaves it out entirely
//! (`invalid_folio_referenced_vma`), as do the multi-gen LRU's faults and
//! page-table walks. 6.1 predates it (the NOREUSE series came in 6.3):
//!
//! - reclaim's rmap walk visits every mapping; a young PTE of a
//!   `MADV_RANDOM` mapping counts as a reference (without the
//!   look-around), one of a `MADV_SEQUENTIAL` mapping is cleared and not
//!   counted; other mappings as in 6.12;
//! - unmapping a young PTE marks the file folio accessed unless the
//!   mapping is `MADV_SEQUENTIAL`;
//! - the multi-gen LRU's faults and walks leave out `MADV_SEQUENTIAL`
//!   and `MADV_RANDOM` mappings, as in 6.12;
//! - `POSIX_FADV_NOREUSE` is accepted and does nothing.
//!
//! So a `MADV_RANDOM` mapping's pages are referenced in reclaim under
//! both policies on 6.1: the classic LRU activates the ones used twice,
//! the multi-gen LRU keeps them (the real 6.1, mmap-file: pgscan_file
//! 30,948 classic and 30,893 MGLRU against 10,528 and 10,560 on 6.12,
//! where every scanned page is reclaimed).

use super::{Difference, Fidelity, Steps};
use crate::kernel::{Kernel, Policy};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "recency-6.1",
    source: "6.1 mm/rmap.c: folio_referenced_one; mm/memory.c: lru_gen_enter_fault, zap_pte_range; mm/vmscan.c: should_skip_vma; mm/fadvise.c",
    summary: "no vma_has_recency: reclaim's rmap walk counts young PTEs of MADV_RANDOM mappings (not MADV_SEQUENTIAL), POSIX_FADV_NOREUSE does nothing",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.vma_has_recency = |k, region| k.vmas[region as usize].has_recency();
    s.rmap_skips_vma = |_, _| false;
    s.pte_referenced = pte_referenced;
    s.zap_marks_accessed = |k, region| !k.vmas[region as usize].seq_read;
}

/// 6.1 `folio_referenced_one` at a PTE that maps the folio: the
/// look-around under the multi-gen LRU for a mapping without a
/// sequential or random hint; then the accessed bit is cleared, and
/// counts unless the mapping is sequential.
fn pte_referenced(k: &mut Kernel, region: u32, index: u64, pfn: u32) -> bool {
    let v = &k.vmas[region as usize];
    let (seq, rand) = (v.seq_read, v.rand_read);
    if k.policy() == Policy::Mglru && !seq && !rand {
        return k.lru_gen_look_around(region, index, pfn);
    }
    let young = k.ptep_test_and_clear_young(region, index);
    young && !seq
}
