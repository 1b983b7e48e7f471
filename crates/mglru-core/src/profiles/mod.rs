// SPDX-License-Identifier: GPL-2.0-only
//! Kernel versions and patch variants: one model, several kernels.
//!
//! The model's functions read like Linux 6.12's. Where another kernel (or
//! one of the seeds' patch series) does a step differently, the 6.12
//! function calls that step through [`Steps`], a table of functions that
//! each *perform* the step: 6.12's own in [`Steps::V6_12`], another
//! version's or a patch's in a module of this folder. A **difference** is
//! one such module: it names the kernel function it models, cites the
//! version whose source it follows, and overrides one or more entries of
//! the table ([`Difference::apply`]). A **kernel version** ([`KernelVersion`],
//! `--kernel`) is 6.12 plus a list of differences; a **variant**
//! ([`Variant`], `--variant`) is a list of differences applied on top of
//! whichever version runs. When a patch was merged, its variant and the
//! newer version list the same difference, so they run the same code
//! (seed 004's `reclaim-loop` is in 7.2).
//!
//! Everything a user sees of this — the names `--kernel` and `--variant`
//! accept, their help, docs/KERNELS.md's table of differences — comes from
//! [`DIFFERENCES`], [`VERSIONS`] and [`VARIANTS`]. Adding a difference is a
//! module here and one line in [`DIFFERENCES`] (plus its name in the lists
//! of the versions or variants that have it).
//!
//! The seam is at the steps where the kernels' own history draws it (a
//! refault test, a reclaim loop, where a counter is counted), never an
//! `if version >= X` inside a 6.12 function.

use crate::kernel::Kernel;
use crate::lru_gen::{TryShrink, MIN_LRU_BATCH};
use crate::vmscan::{NodeScan, ReclaimStat, ScanControl};

mod batch_aging;
mod no_memcg_lru;
mod lru_gen_write_proactive;
mod lru_gen_workingset_6_1;
mod lru_note_cost_6_1;
mod memory_reclaim_6_1;
mod reclaim_loop_6_1;
mod swap_rw_page;
mod tiers_7_2;
mod shadow_nodes_7_2;
mod swap_table_7_2;
mod insertion_7_2;
mod min_seq_7_2;
mod recency_6_1;
mod shadow_nodes_6_1;
mod scan_flush_6_1;
mod wb_stats_6_1;
mod writeback_6_1;
mod pageout_7_2;
mod swappiness_max_7_2;
mod node_stat_counters;
mod reclaim_loop;

/// Folios that aging or sorting has taken off their lists and not yet
/// put on their new generation's (only a difference that moves them in
/// bulk uses it; 6.12 moves each at once). It lives in the caller's frame,
/// as the kernel's batch would live on `inc_min_seq`'s stack.
#[derive(Debug, Default)]
pub struct AgeBatch {
    pub(crate) folios: Vec<(u32, usize)>,
}

/// The steps in which the modelled kernels differ, each a function that
/// performs it. [`Steps::V6_12`] is Linux 6.12.
#[derive(Clone, Copy)]
pub(crate) struct Steps {
    /// `inc_min_seq` or `sort_folio` moves folio `pfn` (memcg, type),
    /// already given generation `new_gen`, to that generation's list.
    pub age_move: fn(&mut Kernel, &mut AgeBatch, u32, u16, usize, usize),
    /// The end of a run of `age_move`s (the end of `inc_min_seq`, of a
    /// `scan_folios` pass).
    pub age_flush: fn(&mut Kernel, &mut AgeBatch, u16, usize),
    /// `try_to_shrink_lruvec` up to its loop: where the lruvec's reclaim
    /// starts (a loop that is not resumable runs whole here and returns
    /// its result as done).
    pub try_to_shrink_lruvec: fn(&mut Kernel, u16, &mut ScanControl) -> TryShrink,
    /// How many folios `scan_folios` isolates per call.
    pub reclaim_batch: u64,
    /// How `shrink_node` starts global (root) reclaim under the multi-gen
    /// LRU: Some = `lru_gen_shrink_node` over the memcg LRU; None = no
    /// such path, the memcgs are walked by `shrink_node_memcgs`.
    pub lru_gen_shrink_node: fn(&mut Kernel, &mut ScanControl) -> Option<NodeScan>,
    /// `evict_folios` adds one `shrink_folio_list` round's writeback
    /// statistics to `sc->nr` (`taken`: the folios isolated for it, not
    /// yet added).
    pub evict_folios_stat: fn(&mut Kernel, &mut ScanControl, &ReclaimStat, &mut u64),
    /// A reclaimer counts folios it scanned, reclaimed or sorted/refilled
    /// (`pgscan_*`, `pgsteal_*`, `pgrefill`) for memcg `memcg`.
    pub count_reclaim: fn(&mut Kernel, u16, &ScanControl, ReclaimItem, u64),
    /// The scan_control a debugfs `lru_gen` command (on memcg) runs with
    /// (`lru_gen_seq_write` and `run_cmd`).
    pub lru_gen_seq_write_sc: fn(u16) -> ScanControl,
    /// The debugfs aging command, `run_aging` (memcg, seq at most
    /// `max_seq`, swappiness, force_scan): its refusals as errors naming
    /// the kernel's errno.
    pub run_aging: fn(&mut Kernel, u16, u64, u32, bool) -> Result<(), String>,
    /// The batch `run_eviction` gives each `evict_folios` (what is left of
    /// its NR_TO_RECLAIM): 6.12's `scan_folios` stops at `MAX_LRU_BATCH`.
    pub run_eviction_batch: fn(u64) -> u64,
    /// `lru_gen_refault`: a multi-gen LRU folio comes back (pfn, shadow).
    pub lru_gen_refault: fn(&mut Kernel, u32, u64),
    /// What `sort_folio` counts, beyond the tier's `protected`, when it
    /// protects a folio of (memcg, type): nothing in 6.12.
    pub sort_folio_protected: fn(&mut Kernel, u16, usize),
    /// A swap read or write of one page goes to the device: the block
    /// layer's `pgpgin`/`pgpgout` (KiB) for it (`submit_bio`).
    pub count_swap_bio: fn(&mut Kernel, crate::stat::Ev),
    /// The classic LRU charges reclaim cost to a type (memcg, type,
    /// folios written, folios rotated), for `get_scan_count`'s balance.
    pub lru_note_cost: fn(&mut Kernel, u16, usize, u64, u64),
    /// A write to memory.reclaim (memcg, pages, swappiness): (reclaimed,
    /// -EAGAIN).
    pub memory_reclaim: fn(&mut Kernel, u16, u64, Option<u32>) -> (u64, bool),
    /// kswapd's aging pass under the multi-gen LRU (`kswapd_age_node` →
    /// `lru_gen_age_node`).
    pub lru_gen_age_node: fn(&mut Kernel, &mut ScanControl),
    /// `folio_mark_accessed` under the multi-gen LRU: a folio's refs.
    pub folio_inc_refs: fn(&mut crate::folio::Folio),
    /// `lru_gen_eviction`: the shadow of an evicted folio.
    pub lru_gen_eviction: fn(&mut Kernel, u32) -> u64,
    /// `sort_folio` (batch, pfn, tier index): true if moved, not isolated.
    pub sort_folio: fn(&mut Kernel, &mut AgeBatch, u32, usize) -> bool,
    /// `isolate_folio` (sc, pfn).
    pub isolate_folio: fn(&mut Kernel, &ScanControl, u32) -> bool,
    /// `isolate_folios` (memcg, sc, swappiness, list, nr_to_scan):
    /// (scanned, type).
    pub isolate_folios: fn(&mut Kernel, u16, &mut ScanControl, u32, &mut Vec<u32>, u64) -> (u64, usize),
    /// The refs flags `folio_inc_gen` clears.
    pub folio_inc_gen_clear: fn(&mut crate::folio::Folio),
    /// What `inc_min_seq` counts for a folio it moves (memcg, type, pfn),
    /// before `folio_inc_gen`: nothing in 6.12.
    pub inc_min_seq_protect: fn(&mut Kernel, u16, usize, u32),
    /// The LRU and slab pages of memcg's lruvec that `count_shadow_nodes`
    /// limits its shadow nodes by (an eighth of them).
    pub shadow_limit_pages: fn(&Kernel, u16) -> u64,
    /// The xarray nodes of a swap cache of that many slots, set up at
    /// swapon: 6.12's swap cache is an xarray (its shadow-only nodes go on
    /// the root's shadow-node list); none for a swap cache without one.
    pub swap_cache_nodes: fn(u64) -> crate::shadow::XaNodes,
    /// `lru_gen_add_folio` (pfn, reclaiming): the sequence number of the
    /// generation the folio goes to, with the flags that placing it
    /// clears.
    pub lru_gen_add_seq: fn(&mut Kernel, u32, bool) -> u64,
    /// What `folio_add_lru` does to a folio added in a fault under the
    /// multi-gen LRU, before the batch adds it (6.12: `PG_active`).
    pub folio_add_lru_fault: fn(&mut Kernel, u32),
    /// `evict_folios`' putback of a folio reclaim kept (pfn, skip_retry):
    /// true to retry it as clean, false to put it back.
    pub evict_putback: fn(&mut Kernel, u32, bool) -> bool,
    /// `folio_update_gen` (pfn, the youngest generation): a page-table
    /// walk found the folio young; Some(old generation) if it moved it.
    pub folio_update_gen: fn(&mut Kernel, u32, usize) -> Option<usize>,
    /// `get_pfn_folio` (folio, memcg, can_swap): whether a page-table
    /// walk or look-around ages this folio.
    pub get_pfn_folio: fn(&crate::folio::Folio, u16, bool) -> bool,
    /// What `lru_gen_look_around` does, outside a page-table walk, to a
    /// young neighbour (pfn, the youngest generation).
    pub look_around_update: fn(&mut Kernel, u32, usize),
    /// `folio_check_references`.
    pub folio_check_references: fn(&mut Kernel, u32, &ScanControl) -> crate::vmscan::FolioRef,
    /// `shrink_folio_list` under the multi-gen LRU: a folio kept because
    /// the look-around tried to promote it while it was isolated.
    pub shrink_folio_promoted: fn(&crate::folio::Folio) -> bool,
    /// `try_to_inc_min_seq` (memcg, swappiness): drop the empty oldest
    /// generations; true if a `min_seq` moved.
    pub try_to_inc_min_seq: fn(&mut Kernel, u16, u32) -> bool,
    /// What `evict_folios` does before isolating (memcg, swappiness):
    /// nothing in 6.12.
    pub evict_folios_flush: fn(&mut Kernel, u16, u32),
    /// `evict_folios` after isolating (memcg, swappiness, folios scanned):
    /// the scan count it returns.
    pub evict_folios_scanned: fn(&mut Kernel, u16, u32, u64) -> u64,
    /// `seq_is_valid`: the generation window the version keeps (checked
    /// by the simulator's invariants).
    pub seq_is_valid: fn(&crate::lru_gen::LruGen) -> bool,
    /// `vma_has_recency` (region): the LRU algorithm applies to the
    /// mapping's faults and page-table walks.
    pub vma_has_recency: fn(&Kernel, u32) -> bool,
    /// Whether reclaim's rmap walk (`folio_referenced`) leaves the
    /// mapping out (region).
    pub rmap_skips_vma: fn(&Kernel, u32) -> bool,
    /// `folio_referenced_one` at a PTE mapping the folio (region, index,
    /// pfn): whether it counts as a reference (clearing what it reads).
    pub pte_referenced: fn(&mut Kernel, u32, u64, u32) -> bool,
    /// Whether unmapping a young PTE of a file folio marks it accessed
    /// (`zap_pte_range`; region).
    pub zap_marks_accessed: fn(&Kernel, u32) -> bool,
    /// The statistics flush of the classic LRU's `prepare_scan_control`
    /// (target memcg): none in 6.12 (rate-limited, and the periodic flush
    /// is never late in the model).
    pub prepare_scan_flush: fn(&mut Kernel, u16),
    /// `shrink_folio_list` on a dirty page-cache folio: true to leave it
    /// to the flusher at once (`NR_VMSCAN_IMMEDIATE`, `PG_reclaim`,
    /// activated); false to try `pageout`.
    pub dirty_file_immediate: fn(&Kernel, &crate::folio::Folio) -> bool,
    /// The statistics flush of `mem_cgroup_wb_stats` before a writer in a
    /// memcg reads its dirty domain: none in 6.12 (rate-limited, and the
    /// periodic flush is never late in the model).
    pub wb_stats_flush: fn(&mut Kernel),
    /// The largest swappiness proactive reclaim accepts (`memory.reclaim
    /// swappiness=`, the debugfs commands): `MAX_SWAPPINESS` in 6.12, 7.2's
    /// `SWAPPINESS_ANON_ONLY` (`max`) where the version has it.
    pub max_swappiness: u32,
    /// `lruvec_is_reclaimable`: the generation whose birth the `min_ttl`
    /// test reads (lrugen, swappiness).
    pub reclaimable_seq: fn(&crate::lru_gen::LruGen, u32) -> u64,
}

/// What `Steps::count_reclaim` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReclaimItem {
    /// `PGSCAN_KSWAPD`/`_DIRECT` (folios isolated, MGLRU; scanned, classic).
    Scan,
    /// `PGSTEAL_KSWAPD`/`_DIRECT`.
    Steal,
    /// `PGREFILL` (MGLRU: folios sorted; classic: the active list scanned).
    Refill,
}

impl Steps {
    /// Linux 6.12.
    pub const V6_12: Steps = Steps {
        age_move: age_move_6_12,
        age_flush: age_flush_6_12,
        try_to_shrink_lruvec: Kernel::try_to_shrink_lruvec_begin,
        reclaim_batch: MIN_LRU_BATCH,
        lru_gen_shrink_node: lru_gen_shrink_node_6_12,
        evict_folios_stat: evict_folios_stat_6_12,
        count_reclaim: count_reclaim_6_12,
        lru_gen_seq_write_sc: Kernel::debugfs_sc,
        run_aging: Kernel::run_aging_6_12,
        run_eviction_batch: |_| crate::lru_gen::MAX_LRU_BATCH,
        lru_gen_refault: Kernel::lru_gen_refault,
        sort_folio_protected: |_, _, _| {},
        count_swap_bio: |k, e| k.ev.add(e, 4),
        lru_note_cost: Kernel::lru_note_cost,
        memory_reclaim: Kernel::memory_reclaim,
        lru_gen_age_node: Kernel::lru_gen_age_node,
        folio_inc_refs: crate::lru_gen::folio_inc_refs_of,
        lru_gen_eviction: Kernel::lru_gen_eviction,
        sort_folio: Kernel::sort_folio,
        isolate_folio: |k, _sc, pfn| k.isolate_folio(pfn),
        isolate_folios: Kernel::isolate_folios,
        folio_inc_gen_clear: crate::lru_gen::folio_inc_gen_clear_6_12,
        inc_min_seq_protect: |_, _, _, _| {},
        shadow_limit_pages: shadow_limit_pages_6_12,
        swap_cache_nodes: crate::shadow::XaNodes::new,
        lru_gen_add_seq: Kernel::lru_gen_add_seq_6_12,
        folio_add_lru_fault: |k, pfn| k.folios.get_mut(pfn).set(crate::folio::pg::ACTIVE),
        evict_putback: Kernel::evict_putback_6_12,
        folio_update_gen: Kernel::folio_update_gen,
        get_pfn_folio: crate::lru_gen_walk::get_pfn_folio_6_12,
        look_around_update: crate::lru_gen_walk::look_around_update_6_12,
        folio_check_references: Kernel::folio_check_references_6_12,
        shrink_folio_promoted: |f| f.mapcount > 0 && f.test(crate::folio::pg::REFERENCED),
        try_to_inc_min_seq: Kernel::try_to_inc_min_seq_6_12,
        evict_folios_flush: |_, _, _| {},
        evict_folios_scanned: Kernel::evict_folios_scanned_6_12,
        seq_is_valid: crate::lru_gen::seq_is_valid_6_12,
        vma_has_recency: Kernel::vma_has_recency_6_12,
        rmap_skips_vma: |k, region| !k.vma_has_recency(region),
        pte_referenced: Kernel::pte_referenced_6_12,
        zap_marks_accessed: Kernel::vma_has_recency,
        prepare_scan_flush: |_, _| {},
        // Only kswapd writes page-cache folios, and only ones it found
        // dirty before (PG_reclaim) on a node marked PGDAT_DIRTY.
        dirty_file_immediate: |k, f| !k.in_kswapd || !f.test(crate::folio::pg::RECLAIM) || !k.pgdat_dirty,
        wb_stats_flush: |_| {},
        max_swappiness: crate::lru_gen::MAX_SWAPPINESS,
        reclaimable_seq: |lg, _| lg.min_seq[crate::lruvec::FILE],
    };

    /// The steps of `version` with `variant`'s differences on top.
    pub fn of(version: KernelVersion, variant: Variant) -> Steps {
        let mut s = Steps::V6_12;
        for name in version.entry().differences.iter().chain(variant.entry().differences.iter()) {
            (difference(name).apply)(&mut s);
        }
        s
    }
}

/// 6.12 `count_shadow_nodes`: `lruvec_page_state_local` of every LRU
/// list and of the slab, as of the last statistics flush.
fn shadow_limit_pages_6_12(k: &Kernel, memcg: u16) -> u64 {
    let f = &k.memcgs[memcg as usize].flushed;
    f.lru_local.iter().sum::<u64>() + f.slab_local_pages
}

/// 6.12 `inc_min_seq`/`sort_folio`: each folio to the tail of its new
/// generation at once (which reverses the order of a batch).
fn age_move_6_12(k: &mut Kernel, _b: &mut AgeBatch, pfn: u32, memcg: u16, new_gen: usize, type_: usize) {
    k.mglru_move(pfn, memcg, new_gen, type_, true);
}

/// 6.12: nothing is held back, nothing to flush.
fn age_flush_6_12(_k: &mut Kernel, _b: &mut AgeBatch, _memcg: u16, _type_: usize) {}

/// 6.12 `shrink_node`: `lru_gen_shrink_node` for root reclaim.
fn lru_gen_shrink_node_6_12(k: &mut Kernel, sc: &mut ScanControl) -> Option<NodeScan> {
    Some(NodeScan::Mglru(k.lru_gen_shrink_node_begin(sc)))
}

/// 6.12 `evict_folios`: only `nr_unqueued_dirty` reaches `sc->nr` (the
/// flusher test after `try_to_shrink_lruvec`'s loop reads it with
/// `file_taken`, counted at isolation).
fn evict_folios_stat_6_12(_k: &mut Kernel, sc: &mut ScanControl, stat: &ReclaimStat, _taken: &mut u64) {
    sc.nr.unqueued_dirty += stat.nr_unqueued_dirty;
}

/// 6.12 `__count_vm_events` for the node unless the reclaim is cgroup
/// reclaim, `__count_memcg_events` always; kswapd's or direct (a proactive
/// reclaimer counts as direct).
fn count_reclaim_6_12(k: &mut Kernel, memcg: u16, sc: &ScanControl, item: ReclaimItem, n: u64) {
    use crate::stat::Ev;
    let e = match item {
        ReclaimItem::Scan if k.in_kswapd => Ev::PgscanKswapd,
        ReclaimItem::Scan => Ev::PgscanDirect,
        ReclaimItem::Steal if k.in_kswapd => Ev::PgstealKswapd,
        ReclaimItem::Steal => Ev::PgstealDirect,
        ReclaimItem::Refill => Ev::Pgrefill,
    };
    if !sc.cgroup_reclaim() {
        k.ev.add(e, n);
    }
    k.count_memcg(memcg, e, n);
}

/// How far a difference's model goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fidelity {
    /// Follows the cited source.
    Modelled,
    /// Follows it with a simplification its module and docs/FIDELITY.md name.
    Simplified,
    /// An interpretation of a cover letter (no source to follow).
    Interpreted,
}

impl Fidelity {
    pub fn name(self) -> &'static str {
        match self {
            Fidelity::Modelled => "modelled",
            Fidelity::Simplified => "simplified",
            Fidelity::Interpreted => "interpreted",
        }
    }
}

/// One behaviour difference from 6.12.
pub struct Difference {
    pub name: &'static str,
    /// The source it follows: version and kernel functions.
    pub source: &'static str,
    pub summary: &'static str,
    pub fidelity: Fidelity,
    pub(crate) apply: fn(&mut Steps),
}

/// Every difference the model has, in the order they are applied.
pub static DIFFERENCES: &[Difference] = &[
    batch_aging::DIFFERENCE,
    reclaim_loop::DIFFERENCE,
    no_memcg_lru::DIFFERENCE,
    node_stat_counters::DIFFERENCE,
    lru_gen_write_proactive::DIFFERENCE,
    lru_gen_workingset_6_1::DIFFERENCE,
    swap_rw_page::DIFFERENCE,
    lru_note_cost_6_1::DIFFERENCE,
    memory_reclaim_6_1::DIFFERENCE,
    reclaim_loop_6_1::DIFFERENCE,
    tiers_7_2::DIFFERENCE,
    shadow_nodes_7_2::DIFFERENCE,
    swap_table_7_2::DIFFERENCE,
    insertion_7_2::DIFFERENCE,
    min_seq_7_2::DIFFERENCE,
    recency_6_1::DIFFERENCE,
    shadow_nodes_6_1::DIFFERENCE,
    scan_flush_6_1::DIFFERENCE,
    pageout_7_2::DIFFERENCE,
    wb_stats_6_1::DIFFERENCE,
    writeback_6_1::DIFFERENCE,
    swappiness_max_7_2::DIFFERENCE,
];

fn difference(name: &str) -> &'static Difference {
    DIFFERENCES.iter().find(|d| d.name == name).unwrap_or_else(|| panic!("profile lists unknown difference `{name}`"))
}

/// A named profile: a kernel version or a variant.
pub struct ProfileEntry {
    /// Canonical name first, then aliases.
    pub names: &'static [&'static str],
    pub summary: &'static str,
    /// The differences from 6.12 (a version) or added to the running
    /// version (a variant), by name.
    pub differences: &'static [&'static str],
}

/// A kernel version: its differences from 6.12 and what it is like at
/// boot and from user space.
pub struct VersionEntry {
    pub names: &'static [&'static str],
    pub summary: &'static str,
    /// The Debian kernel whose source and config the profile follows (and
    /// that validation/ boots).
    pub debian: &'static str,
    pub differences: &'static [&'static str],
    /// `/sys/kernel/mm/lru_gen/enabled` at boot: 0x0007 where Debian's
    /// config has `CONFIG_LRU_GEN_ENABLED=y`, 0 where it has not (6.1).
    pub lru_gen_enabled_at_boot: u32,
    /// memcg files or writes the version does not have (`memory.swap.peak`;
    /// `memory.peak:write`, a peak reset): a trace that uses one is an
    /// error, and a report leaves the file out.
    pub lacks: &'static [&'static str],
    /// Counters of the model's `/proc/vmstat` and `memory.stat` that the
    /// version does not print (from each version's `vmstat_text[]` and
    /// `memory_stats[]`, Debian's config; shared/reference/kernel-versions.md §4).
    pub vmstat_absent: &'static [&'static str],
    pub memory_stat_absent: &'static [&'static str],
}

/// The counters 7.2 added that the model keeps.
const NEW_IN_7_2: &[&str] = &["pgscan_proactive", "pgsteal_proactive", "pgdemote_proactive"];

/// The kernel versions, in [`KernelVersion`] order.
pub static VERSIONS: [VersionEntry; 3] = [
    VersionEntry {
        names: &["6.1"],
        summary: "Linux 6.1 (Debian 12's kernel): the multi-gen LRU built but off at boot, no memcg LRU",
        debian: "linux-image-6.1.0-57-cloud-amd64 6.1.192-3",
        differences: &["no-memcg-lru", "workingset-6.1", "swap-rw-page", "lru-note-cost-6.1", "memory-reclaim-6.1", "reclaim-loop-6.1", "recency-6.1", "shadow-nodes-6.1", "scan-flush-6.1", "wb-stats-6.1", "writeback-6.1"],
        lru_gen_enabled_at_boot: 0,
        lacks: &["memory.swap.peak", "memory.peak:write", "memory.reclaim:swappiness"],
        vmstat_absent: &["pgscan_proactive", "pgsteal_proactive", "pgscan_khugepaged", "pgsteal_khugepaged"],
        memory_stat_absent: &[
            "pgscan_proactive",
            "pgsteal_proactive",
            "pgdemote_proactive",
            "pgdemote_kswapd",
            "pgdemote_direct",
            "pgdemote_khugepaged",
            "pgpromote_success",
            "pgscan_khugepaged",
            "pgsteal_khugepaged",
            "swpin_zero",
            "swpout_zero",
            "thp_swpout",
            "thp_swpout_fallback",
            "numa_pages_migrated",
            "numa_pte_updates",
            "numa_hint_faults",
        ],
    },
    VersionEntry {
        names: &["6.12"],
        summary: "Linux 6.12 (the default; Debian 12 backports' kernel)",
        debian: "linux-image-6.12.117+deb12-cloud-amd64 6.12.117-1~deb12u1",
        differences: &[],
        lru_gen_enabled_at_boot: 0x7,
        lacks: &[],
        vmstat_absent: NEW_IN_7_2,
        memory_stat_absent: NEW_IN_7_2,
    },
    VersionEntry {
        names: &["7.2"],
        summary: "Linux 7.2 (Debian sid's kernel): seed 004's reclaim loop, reclaim counters as node stats",
        debian: "linux-image-7.2.13+deb14-cloud-amd64 7.2.13-1",
        differences: &["reclaim-loop", "node-stat-counters", "lru-gen-write-proactive", "tiers-7.2", "shadow-nodes-7.2", "swap-table-7.2", "insertion-7.2", "min-seq-7.2", "pageout-7.2", "swappiness-max-7.2"],
        lru_gen_enabled_at_boot: 0x7,
        lacks: &[],
        vmstat_absent: &[],
        memory_stat_absent: &[],
    },
];

/// The variants, in [`Variant`] order; the first is none.
pub static VARIANTS: [ProfileEntry; 4] = [
    ProfileEntry { names: &["plain", "6.12"], summary: "the kernel version as released (default)", differences: &[] },
    ProfileEntry {
        names: &["batch-aging"],
        summary: "seed 000 (Kairui Song, 2024): aging and sorting move folios in bulk, keeping their order",
        differences: &["batch-aging"],
    },
    ProfileEntry {
        names: &["reclaim-loop"],
        summary: "seed 004 (Kairui Song, 2026): the improved MGLRU reclaim loop and dirty folio handling",
        differences: &["reclaim-loop"],
    },
    ProfileEntry {
        names: &["memcg-lru-off"],
        summary: "seed 003 without its memcg selection: global reclaim walks every memcg instead of the memcg LRU",
        differences: &["no-memcg-lru"],
    },
];

/// A kernel version the model follows (`--kernel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelVersion {
    V6_1,
    #[default]
    V6_12,
    V7_2,
}

impl KernelVersion {
    pub const ALL: [KernelVersion; 3] = [KernelVersion::V6_1, KernelVersion::V6_12, KernelVersion::V7_2];

    pub fn entry(self) -> &'static VersionEntry {
        &VERSIONS[self as usize]
    }

    /// True if the version has this memcg file or write (see
    /// [`VersionEntry::lacks`]).
    pub fn has(self, interface: &str) -> bool {
        !self.entry().lacks.contains(&interface)
    }

    /// One line per version for `--help`.
    pub fn help() -> String {
        VERSIONS.iter().map(|e| format!("{}: {}", e.names[0], e.summary)).collect::<Vec<_>>().join("; ")
    }

    pub fn name(self) -> &'static str {
        self.entry().names[0]
    }

    pub fn names() -> Vec<&'static str> {
        VERSIONS.iter().map(|e| e.names[0]).collect()
    }

    pub fn parse(s: &str) -> Result<KernelVersion, String> {
        KernelVersion::ALL
            .into_iter()
            .find(|v| v.entry().names.contains(&s))
            .ok_or_else(|| format!("unknown kernel `{s}`: expected one of {}", KernelVersion::names().join(", ")))
    }
}

/// A named change on top of the running kernel version (`--variant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant(u8);

impl Variant {
    /// No change.
    pub const PLAIN: Variant = Variant(0);

    pub fn entry(self) -> &'static ProfileEntry {
        &VARIANTS[self.0 as usize]
    }

    pub fn all() -> impl Iterator<Item = Variant> {
        (0..VARIANTS.len() as u8).map(Variant)
    }

    /// The canonical names, in registry order.
    pub fn names() -> Vec<&'static str> {
        VARIANTS.iter().map(|e| e.names[0]).collect()
    }

    pub fn parse(s: &str) -> Result<Variant, String> {
        Variant::all()
            .find(|v| v.entry().names.contains(&s))
            .ok_or_else(|| format!("unknown variant `{s}`: expected one of {}", Variant::names().join(", ")))
    }

    pub fn name(self) -> &'static str {
        self.entry().names[0]
    }

    /// One line per variant for `--help`: name and summary.
    pub fn help() -> String {
        VARIANTS.iter().map(|e| format!("{}: {}", e.names[0], e.summary)).collect::<Vec<_>>().join("; ")
    }
}

/// The registry as Markdown: every version with its differences, every
/// variant, every difference (docs/KERNELS.md holds this text between its
/// "generated" markers; `mglru kernels` prints it).
pub fn markdown() -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "### Kernel versions (`--kernel`)\n");
    let _ = writeln!(o, "| version | Debian kernel | MGLRU at boot | differences from 6.12 |");
    let _ = writeln!(o, "|---|---|---|---|");
    for v in KernelVersion::ALL {
        let e = v.entry();
        let diffs = if e.differences.is_empty() { "— (the reference)".to_string() } else { e.differences.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ") };
        let boot = if e.lru_gen_enabled_at_boot & 1 != 0 { format!("on (0x{:04x})", e.lru_gen_enabled_at_boot) } else { "off (0x0000)".into() };
        let _ = writeln!(o, "| {} | `{}` | {boot} | {diffs} |", e.names[0], e.debian);
    }
    let _ = writeln!(o, "\n### Variants (`--variant`, on top of the version)\n");
    let _ = writeln!(o, "| variant | what | differences |");
    let _ = writeln!(o, "|---|---|---|");
    for v in Variant::all() {
        let e = v.entry();
        let diffs = if e.differences.is_empty() { "—".to_string() } else { e.differences.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ") };
        let _ = writeln!(o, "| {} | {} | {diffs} |", e.names.join(", "), e.summary);
    }
    let _ = writeln!(o, "\n### Differences\n");
    let _ = writeln!(o, "| difference | in | fidelity | what it changes | source |");
    let _ = writeln!(o, "|---|---|---|---|---|");
    for d in DIFFERENCES {
        let mut users: Vec<String> = KernelVersion::ALL.iter().filter(|v| v.entry().differences.contains(&d.name)).map(|v| v.name().to_string()).collect();
        users.extend(Variant::all().filter(|v| v.entry().differences.contains(&d.name)).map(|v| format!("--variant {}", v.name())));
        let _ = writeln!(o, "| `{}` | {} | {} | {} | {} |", d.name, users.join(", "), d.fidelity.name(), d.summary, d.source);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/KERNELS.md carries the registry's table as `markdown()` makes
    /// it (regenerate it with `mglru kernels --markdown`).
    #[test]
    fn kernels_doc_is_the_registry() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/KERNELS.md")).expect("docs/KERNELS.md");
        let (begin, end) = ("<!-- generated by `mglru kernels --markdown`: begin -->\n", "<!-- generated: end -->");
        let a = doc.find(begin).expect("begin marker") + begin.len();
        let b = doc.find(end).expect("end marker");
        assert_eq!(&doc[a..b], markdown(), "docs/KERNELS.md is stale: regenerate its table with `mglru kernels --markdown`");
    }

    #[test]
    fn every_difference_is_used_by_a_version_or_a_variant() {
        for d in DIFFERENCES {
            let used = KernelVersion::ALL.iter().any(|v| v.entry().differences.contains(&d.name))
                || Variant::all().any(|v| v.entry().differences.contains(&d.name));
            assert!(used, "difference {} is registered but no version or variant lists it", d.name);
        }
    }

    #[test]
    fn names_round_trip_and_every_listed_difference_exists() {
        for v in Variant::all() {
            for n in v.entry().names {
                assert_eq!(Variant::parse(n), Ok(v));
            }
            for d in v.entry().differences {
                assert!(DIFFERENCES.iter().any(|x| x.name == *d), "variant {} lists unknown difference {d}", v.name());
            }
        }
        for k in KernelVersion::ALL {
            assert_eq!(KernelVersion::parse(k.name()), Ok(k));
            for d in k.entry().differences {
                assert!(DIFFERENCES.iter().any(|x| x.name == *d), "kernel {} lists unknown difference {d}", k.name());
            }
        }
        assert!(Variant::parse("no-such").unwrap_err().contains("batch-aging"));
        assert!(KernelVersion::parse("5.15").unwrap_err().contains("6.1, 6.12, 7.2"));
        let mut names: Vec<_> = DIFFERENCES.iter().map(|d| d.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), DIFFERENCES.len(), "two differences share a name");
    }
}
