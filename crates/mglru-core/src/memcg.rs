// SPDX-License-Identifier: GPL-2.0-only
//! Memory cgroups (v2): the tree, page counters, limits and protection.

use crate::lruvec::Lruvec;
use crate::stat::{Events, States};

pub const ROOT_MEMCG: u16 = 0;
pub const NO_MEMCG: u16 = u16::MAX;
/// "max" as a limit.
pub const PAGE_COUNTER_MAX: u64 = u64::MAX;

/// `enum memcg_memory_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcgEvent {
    Low = 0,
    High,
    Max,
    Oom,
    OomKill,
    OomGroupKill,
}
pub const MEMCG_EVENT_NAMES: [&str; 6] = ["low", "high", "max", "oom", "oom_kill", "oom_group_kill"];

pub struct Memcg {
    pub name: String,
    pub parent: u16,
    pub children: Vec<u16>,
    /// Limits in pages.
    pub max: u64,
    pub high: u64,
    pub low: u64,
    pub min: u64,
    pub swap_max: u64,
    /// `memory` page counter usage (pages), hierarchical.
    pub usage: u64,
    /// `memory.peak` (pages).
    pub watermark: u64,
    /// `memory.swap` page counter usage (pages), hierarchical.
    pub swap_usage: u64,
    /// Effective protection computed by `calculate_protection`.
    pub emin: u64,
    pub elow: u64,
    /// `memory.events` (hierarchical, as v2 reports them) and
    /// `memory.events.local`.
    pub mem_events: [u64; 6],
    pub mem_events_local: [u64; 6],
    /// Event counters charged to this memcg itself (summed over the
    /// subtree for memory.stat).
    pub ev: Events,
    /// Page state of this memcg itself.
    pub st: States,
    pub lruvec: Lruvec,
    /// Per-root position of the shared reclaim iterator
    /// (`mem_cgroup_reclaim_iter`): the last memcg visited, and the
    /// generation of the walk.
    pub iter_pos: Option<u16>,
    pub iter_gen: u64,
    /// `LRUVEC_CGROUP_CONGESTED`.
    pub lruvec_congested: bool,
    /// The tasks whose mm belongs to this memcg (`memcg->mm_list`), in
    /// the order they were added.
    pub mm_list: Vec<u32>,
    /// The memcg's statistics as of the last rstat flush: what reclaim
    /// reads through `lruvec_page_state` and `memcg_page_state`.
    pub flushed: FlushedStats,
    /// Page-cache xarray nodes charged to this memcg (its radix_tree_node
    /// slab), and its shadow-only nodes in list_lru order (seq → space,
    /// node), and the shadow shrinker's deferred work (`nr_deferred`).
    pub xa_nodes: u64,
    pub shadow_nodes: std::collections::BTreeMap<u64, (u32, u32)>,
    pub shrinker_nr_deferred: u64,
    /// Reclaimable slab charged to this memcg (`NR_SLAB_RECLAIMABLE_B`):
    /// its page-cache xarray nodes and the buffer heads of its written
    /// file folios, in bytes as memory.stat shows them; and the whole
    /// pages of the memory counter they hold (`MEMCG_KMEM`).
    pub slab_bytes: u64,
    pub slab_pages: u64,
    /// Page-table pages of its tasks charged to it (`GFP_PGTABLE_USER` is
    /// `__GFP_ACCOUNT`): also `MEMCG_KMEM`.
    pub pgtable_pages: u64,
}

/// A memcg's statistics as the last `cgroup_rstat_flush` left them
/// (`lruvec_stats->state`, `state_local`; `memcg->vmstats->state`). The
/// kernel's per-CPU counters reach these only when they are flushed: every
/// `FLUSH_TIME` (2 s) by `flush_memcg_stats_dwork`, and on reads of
/// `memory.stat`. Reclaim heuristics read them, so they see the sizes of up
/// to 2 s ago.
#[derive(Clone, Copy, Default, Debug)]
pub struct FlushedStats {
    /// `NR_LRU_BASE + lru`, this memcg and its descendants.
    pub lru: [u64; 5],
    /// `NR_LRU_BASE + lru`, this memcg alone (`lruvec_page_state_local`).
    pub lru_local: [u64; 5],
    /// `WORKINGSET_ACTIVATE_{ANON,FILE}`, hierarchical.
    pub ws_activate: [u64; 2],
    /// `NR_FILE_DIRTY`, `NR_WRITEBACK`, hierarchical.
    pub file_dirty: u64,
    pub writeback: u64,
    /// `NR_SLAB_{RECLAIMABLE,UNRECLAIMABLE}_B >> PAGE_SHIFT`, this memcg alone.
    pub slab_local_pages: u64,
}

impl Memcg {
    pub fn new(name: &str, parent: u16) -> Memcg {
        Memcg {
            name: name.to_string(),
            parent,
            children: Vec::new(),
            max: PAGE_COUNTER_MAX,
            high: PAGE_COUNTER_MAX,
            low: 0,
            min: 0,
            swap_max: PAGE_COUNTER_MAX,
            usage: 0,
            watermark: 0,
            swap_usage: 0,
            emin: 0,
            elow: 0,
            mem_events: [0; 6],
            mem_events_local: [0; 6],
            ev: Events::default(),
            st: States::default(),
            lruvec: Lruvec::default(),
            iter_pos: None,
            iter_gen: 0,
            lruvec_congested: false,
            mm_list: Vec::new(),
            flushed: FlushedStats::default(),
            xa_nodes: 0,
            shadow_nodes: Default::default(),
            shrinker_nr_deferred: 0,
            slab_bytes: 0,
            slab_pages: 0,
            pgtable_pages: 0,
        }
    }
}

/// `effective_protection` without `memory_recursiveprot` (the cgroup2
/// mount option is off in a plain mount; docs/FIDELITY.md).
pub fn effective_protection(usage: u64, setting: u64, parent_effective: u64, siblings_protected: u64) -> u64 {
    let protected = usage.min(setting);
    if siblings_protected > parent_effective {
        // u128: protected * parent_effective can exceed u64 with "max" limits.
        return ((protected as u128 * parent_effective as u128) / siblings_protected as u128) as u64;
    }
    protected
}

/// The per-CPU charge stock (`memcg_stock_pcp`), one CPU.
#[derive(Clone, Copy, Debug)]
pub struct Stock {
    pub memcg: u16,
    pub nr_pages: u64,
}
impl Default for Stock {
    fn default() -> Self {
        Stock { memcg: NO_MEMCG, nr_pages: 0 }
    }
}
/// `MEMCG_CHARGE_BATCH`.
pub const MEMCG_CHARGE_BATCH: u64 = 64;
