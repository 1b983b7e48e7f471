// SPDX-License-Identifier: GPL-2.0-only
//! Changes to 6.12 from the seeds' patch series (`--variant NAME`).
//!
//! The kernel-faithful functions of `lru_gen.rs` call a variant at a few
//! named points — the steps the seeds' patches change — through the
//! [`Hooks`] trait; 6.12 itself is [`Plain`], whose hooks do exactly what
//! 6.12 does. A variant is one module here that overrides some hooks, plus
//! one line in [`REGISTRY`] (and one in the [`Variant`] enum that names
//! it). A reader of a 6.12 function sees one call at each seam and no
//! variant's logic. docs/VARIANTS.md says what each variant changes and
//! how it was derived from its seed.

use crate::kernel::Kernel;
use crate::lru_gen::MIN_LRU_BATCH;
use crate::vmscan::ScanControl;

mod batch_aging;
mod memcg_lru_off;
mod reclaim_loop;

/// The steps of MGLRU a variant may replace. Every default is 6.12.
pub trait Hooks: Sync {
    /// The aging (`inc_min_seq`) or the eviction's sort (`sort_folio`)
    /// moves folio `pfn`, already given generation `new_gen`, to that
    /// generation's list. 6.12 moves each to the tail at once, which
    /// reverses the order of a batch.
    fn age_move(&self, k: &mut Kernel, pfn: u32, memcg: u16, new_gen: usize, type_: usize) {
        k.mglru_move(pfn, memcg, new_gen, type_, true);
    }
    /// The end of a run of `age_move`s (the end of `inc_min_seq`, of a
    /// `scan_folios` pass). Nothing to do in 6.12.
    fn age_flush(&self, _k: &mut Kernel, _memcg: u16, _type_: usize) {}
    /// `try_to_shrink_lruvec` as a whole: `Some(aged)` replaces 6.12's
    /// loop, `None` runs it.
    fn try_to_shrink_lruvec(&self, _k: &mut Kernel, _memcg: u16, _sc: &mut ScanControl) -> Option<bool> {
        None
    }
    /// How many folios `scan_folios` isolates per call (6.12:
    /// `MIN_LRU_BATCH`).
    fn reclaim_batch(&self) -> u64 {
        MIN_LRU_BATCH
    }
    /// Global (root) reclaim picks memcgs from the per-node memcg LRU
    /// (`lru_gen_shrink_node` → `shrink_many`). False: it walks them all
    /// with the memcg iterator (`shrink_node_memcgs`) instead.
    fn memcg_lru(&self) -> bool {
        true
    }
    /// `evict_folios` adds its batch's writeback statistics (dirty,
    /// congested, under writeback, immediate, taken) to `sc->nr` as
    /// `shrink_inactive_list` does, so that the reclaim throttling that
    /// reads them (`shrink_node`) sees the multi-gen LRU's batches too.
    /// 6.12 adds only `unqueued_dirty` (and `file_taken` at isolation).
    fn unified_writeback_stats(&self) -> bool {
        false
    }
}

/// 6.12 as it is.
pub struct Plain;
impl Hooks for Plain {}

/// A named change to 6.12 from the seeds; `Plain` is 6.12 itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    #[default]
    Plain,
    /// Seed 000 (Kairui Song, 2024): "batch update pages when aging" —
    /// folios moved by aging/sorting keep their relative order.
    BatchAging,
    /// Seed 004 (Kairui Song, 2026): "improve reclaim loop and dirty folio
    /// handling" — scan budget, decoupled aging, dirty flush in the loop,
    /// a smaller batch, a minimum scan.
    ReclaimLoop,
    /// Seed 003 without its memcg selection: global reclaim walks every
    /// memcg instead of using the memcg LRU.
    MemcgLruOff,
}

/// Every variant: what it is called on the command line and its hooks.
/// The first name of an entry is the canonical one.
pub static REGISTRY: [(Variant, &[&str], &dyn Hooks); 4] = [
    (Variant::Plain, &["6.12", "plain"], &Plain),
    (Variant::BatchAging, &["batch-aging"], &batch_aging::BatchAging),
    (Variant::ReclaimLoop, &["reclaim-loop"], &reclaim_loop::ReclaimLoop),
    (Variant::MemcgLruOff, &["memcg-lru-off"], &memcg_lru_off::MemcgLruOff),
];

/// The hooks of `v`.
#[inline]
pub fn hooks(v: Variant) -> &'static dyn Hooks {
    REGISTRY[v as usize].2
}

impl Variant {
    /// The canonical names, in registry order.
    pub const NAMES: [&'static str; 4] = ["6.12", "batch-aging", "reclaim-loop", "memcg-lru-off"];

    pub fn parse(s: &str) -> Result<Variant, String> {
        REGISTRY
            .iter()
            .find(|(_, names, _)| names.contains(&s))
            .map(|(v, _, _)| *v)
            .ok_or_else(|| format!("unknown variant `{s}`: expected one of {}", Variant::NAMES.join(", ")))
    }

    pub fn name(self) -> &'static str {
        REGISTRY[self as usize].1[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_in_enum_order_and_names_round_trip() {
        for (i, (v, names, _)) in REGISTRY.iter().enumerate() {
            assert_eq!(*v as usize, i, "REGISTRY[{i}] is out of enum order");
            assert_eq!(Variant::NAMES[i], names[0]);
            for n in names.iter() {
                assert_eq!(Variant::parse(n), Ok(*v));
            }
            assert_eq!(v.name(), names[0]);
        }
        assert!(Variant::parse("no-such").unwrap_err().contains("batch-aging"));
    }
}
