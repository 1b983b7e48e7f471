// SPDX-License-Identifier: GPL-2.0-only
//! The simulated kernel: one node with its zones (DMA, DMA32, Normal), its
//! memory, tasks, files, swap, memcgs, reclaim and the clock.
//!
//! `Kernel` is a plain struct holding every piece of state; the mechanisms
//! live in sibling modules as `impl Kernel` blocks named after the kernel
//! files they model (`page_alloc`, `memcontrol`, `memory`, `mmap`, `rmap`,
//! `madvise`, `filemap`, `swap`, `swap_state`, `swapfile`, `vmscan`,
//! `lru_gen`, `lru_gen_walk`, `workingset`, `writeback`, `oom`). The
//! simulator's own machinery (driver, cost model, invariants, randomness)
//! is in `sim/`, the kernel versions' and the seeds' patches' differences
//! from 6.12 in `profiles/`. The policy seam sits where the
//! kernel's does: `lruvec_add_folio`, `folio_mark_accessed`,
//! `lruvec_del_folio`, `shrink_lruvec`, and the shadow written at eviction
//! and read at refault; each checks `self.policy()` the way the kernel
//! checks `lru_gen_enabled()`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::sim::cost::CostModel;
use crate::file::File;
use crate::folio::{FolioTable, NR_ZONES};
use crate::memcontrol::{Memcg, Stock, ROOT_MEMCG};
use crate::mm::{PageTables, Task, Vma};
use crate::stat::{Ev, Events};
use crate::swapfile::SwapDevice;

pub const PAGE_SHIFT: u32 = 12;
pub const PAGE_SIZE: u64 = 4096;
/// `DEF_PRIORITY`.
pub const DEF_PRIORITY: i32 = 12;
/// `SWAP_CLUSTER_MAX`.
pub const SWAP_CLUSTER_MAX: u64 = 32;
/// `MAX_RECLAIM_RETRIES`.
pub const MAX_RECLAIM_RETRIES: u32 = 16;
/// `PAGEVEC_SIZE`: per-CPU folio batch capacity in 6.12.
pub const PAGEVEC_SIZE: usize = 31;
/// `HZ` of Debian's 6.12 cloud kernel (CONFIG_HZ=250).
pub const HZ: u64 = 250;
pub const NSEC_PER_JIFFY: u64 = 1_000_000_000 / HZ;
/// `FLUSH_TIME` (mm/memcontrol.c): the period of the memcg statistics
/// flush, 2 s.
pub const FLUSH_TIME_NS: u64 = 2 * HZ * NSEC_PER_JIFFY;

/// `enum zone_type` of an x86-64 kernel, the populated part.
pub const ZONE_DMA: usize = 0;
pub const ZONE_DMA32: usize = 1;
pub const ZONE_NORMAL: usize = 2;
pub const ZONE_NAMES: [&str; NR_ZONES] = ["DMA", "DMA32", "Normal"];
/// `sysctl_lowmem_reserve_ratio` of DMA, DMA32 and Normal.
pub const LOWMEM_RESERVE_RATIO: [u64; NR_ZONES] = [256, 256, 32];
/// `MAX_DMA_PFN` (16 MiB) and `MAX_DMA32_PFN` (4 GiB) in pages.
pub const MAX_DMA_PFN: u64 = 4096;
pub const MAX_DMA32_PFN: u64 = 1 << 20;

/// A zone as the machine description gives it: its pages (all free at the
/// start), its managed pages (what the watermarks and reserves are
/// computed from), and optionally the watermarks and lowmem reserve as a
/// real kernel had them (`mglru validate` takes them from the guest's
/// `/proc/zoneinfo`); without them the model computes both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneSpec {
    pub pages: u64,
    pub managed: u64,
    pub wmark: Option<[u64; 3]>,
    pub lowmem_reserve: Option<u64>,
    /// Of `pages`, those on the per-CPU free lists at the start (shared
    /// out evenly over the CPUs, the first CPUs taking the remainder);
    /// each list's `high` starts at its count (or `high_min`, if higher).
    pub pcp: u64,
    /// The zone's pageblocks and free chunks at the start, as the guest's
    /// /proc/pagetypeinfo showed them (crate::buddy `ZoneLayout`; used
    /// with `--migratetypes` only): then the zone spans its pageblocks,
    /// `pages` are still its free pages (the chunks', and the rest as
    /// order-0 pages, those of `pcp` among them), and the pages neither
    /// free nor on the per-CPU lists are the boot's, allocated for the run.
    /// None: every page of `pages` free, every pageblock Movable.
    pub layout: Option<crate::buddy::ZoneLayout>,
}

impl ZoneSpec {
    /// The zones of an x86-64 machine with `nr_pages` of RAM from pfn 0:
    /// DMA below 16 MiB, DMA32 below 4 GiB, Normal above. Simplification
    /// (docs/FIDELITY.md): every page is managed — a real machine loses a
    /// few hundred pages of the DMA zone to the firmware and the kernel.
    pub fn layout(nr_pages: u64) -> [ZoneSpec; NR_ZONES] {
        let dma = nr_pages.min(MAX_DMA_PFN);
        let dma32 = nr_pages.min(MAX_DMA32_PFN) - dma;
        let normal = nr_pages - dma - dma32;
        [dma, dma32, normal].map(|p| ZoneSpec { pages: p, managed: p, wmark: None, lowmem_reserve: None, pcp: 0, layout: None })
    }
}

/// The per-zone numbers allocation and reclaim decide by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zone {
    pub managed: u64,
    /// `_watermark[WMARK_MIN/LOW/HIGH]`.
    pub wmark: [u64; 3],
    /// `lowmem_reserve[ZONE_MOVABLE]`: what this zone keeps back from an
    /// allocation that could have used a higher zone. Every allocation the
    /// model makes is such a one (`GFP_HIGHUSER_MOVABLE`; `ZONE_MOVABLE`
    /// is empty, so `GFP_KERNEL`'s reserve is the same).
    pub lowmem_reserve: u64,
    /// `zone->pageset_batch`, `pageset_high_min`, `pageset_high_max`: the
    /// per-CPU lists' refill batch and the range of their `high`
    /// (crate::page_alloc `setup_zone_pagesets`).
    pub pcp_batch: u64,
    pub pcp_high_min: u64,
    pub pcp_high_max: u64,
    /// `ZONE_BELOW_HIGH`: an allocation found the zone below its high
    /// watermark (cleared when a per-CPU list's flush lifts it above).
    pub below_high: bool,
    /// `zone->watermark_boost`: pages added on top of every watermark
    /// after fallbacks into other types' pageblocks (crate::buddy), until
    /// kswapd has reclaimed them.
    pub watermark_boost: u64,
    /// `ZONE_BOOSTED_WATERMARK`: a boost since the last allocation from
    /// the zone woke kswapd.
    pub boosted_wmark: bool,
    /// `ZONE_RECLAIM_ACTIVE`: kswapd's balance_pgdat is reclaiming the node.
    pub reclaim_active: bool,
}

/// Which LRU implementation reclaim uses (the `lru_gen.enabled` switch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Classic,
    Mglru,
}

pub use crate::profiles::{KernelVersion, Variant};

/// Tunables (sysctls and sysfs knobs) with the kernel's defaults.
#[derive(Clone, Debug)]
pub struct Sysctls {
    pub swappiness: u32,
    pub page_cluster: u32,
    /// None = the kernel's default, computed from memory size.
    pub min_free_kbytes: Option<u64>,
    pub watermark_scale_factor: u64,
    /// `vm.watermark_boost_factor`: how far (in 1/10000 of the high
    /// watermark) fallbacks may boost a zone's watermarks (0: never).
    pub watermark_boost_factor: u64,
    pub dirty_ratio: u64,
    pub dirty_background_ratio: u64,
    pub dirty_expire_centisecs: u64,
    pub dirty_writeback_centisecs: u64,
    /// `/sys/kernel/mm/lru_gen/enabled` capability mask.
    pub lru_gen_enabled: u32,
    pub lru_gen_min_ttl_ms: u64,
}

impl Default for Sysctls {
    fn default() -> Self {
        Sysctls {
            swappiness: 60,
            page_cluster: 3,
            min_free_kbytes: None,
            watermark_scale_factor: 10,
            watermark_boost_factor: 15_000,
            dirty_ratio: 20,
            dirty_background_ratio: 10,
            dirty_expire_centisecs: 3000,
            dirty_writeback_centisecs: 500,
            lru_gen_enabled: 0x7,
            lru_gen_min_ttl_ms: 0,
        }
    }
}

/// What the kernel keeps per CPU that reclaim depends on.
#[derive(Clone, Debug, Default)]
pub struct Cpu {
    /// The folio batches (`cpu_fbatches`): lru_add, lru_move_tail
    /// (rotate), lru_deactivate_file, lru_deactivate, lru_lazyfree,
    /// lru_activate.
    pub batch: [Vec<u32>; 6],
    /// The mlock batch (`mlock_fbatch`): pfns tagged with what to do
    /// (crate::mlock).
    pub mlock: Vec<u32>,
    /// The memcg charge stock (`memcg_stock_pcp`).
    pub stock: Stock,
    /// The per-CPU free pages of each zone (`zone->per_cpu_pageset`).
    pub pcp: [crate::page_alloc::PerCpuPages; NR_ZONES],
}

/// The CPUs of a machine when the trace does not say (`cpus N`) and the
/// caller does not either (`--cpus N`): one, so that tasks run one at a
/// time in trace order with one set of per-CPU batches (docs/FIDELITY.md
/// simplification 2).
pub const DEFAULT_CPUS: u32 = 1;

/// Machine description fixed before the first operation.
#[derive(Clone, Debug)]
pub struct MachineConfig {
    pub memory_bytes: u64,
    /// The zones, when given explicitly (their pages then replace
    /// `memory_bytes`); None = `ZoneSpec::layout` of `memory_bytes`.
    pub zones: Option<[ZoneSpec; NR_ZONES]>,
    pub swap_bytes: u64,
    pub swap_sync_io: bool,
    /// The swap device keeps its data in RAM (brd): each slot written
    /// takes a page of the machine's memory.
    pub swap_ram: bool,
    /// The swap device is zram with this compression ratio (hundredths).
    pub swap_zram: Option<u32>,
    pub sysctl: Sysctls,
    pub cost: CostModel,
    pub seed: u64,
    /// The kernel version followed (`--kernel`) and the variant on top of
    /// it (`--variant`): crate::profiles.
    pub kernel: KernelVersion,
    pub variant: Variant,
    /// Number of CPUs (`cpus N`).
    pub cpus: u32,
    /// How kswapd runs (`--kswapd`).
    pub kswapd: crate::kswapd::KswapdMode,
    /// How operations are scheduled (`--schedule`).
    pub schedule: crate::sched::Schedule,
    /// Group pages by mobility (`--migratetypes`): page tables and brd's
    /// pages Unmovable, fallbacks between pageblock types, watermark
    /// boosting, zones laid out as their `ZoneSpec::layout` says. Off:
    /// every page and pageblock Movable (docs/FIDELITY.md
    /// simplification 3).
    pub migratetypes: bool,
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            memory_bytes: 1 << 30,
            zones: None,
            swap_bytes: 0,
            swap_sync_io: false,
            swap_ram: false,
            swap_zram: None,
            sysctl: Sysctls::default(),
            cost: CostModel::default(),
            seed: 0,
            kernel: KernelVersion::V6_12,
            variant: Variant::PLAIN,
            cpus: DEFAULT_CPUS,
            kswapd: Default::default(),
            schedule: Default::default(),
            migratetypes: false,
        }
    }
}

/// `sysctl_stat_interval` (HZ): `vmstat_update` runs on each CPU once a
/// second, at whole seconds of the clock (`round_jiffies_relative`).
/// Simplification (docs/FIDELITY.md 3): every CPU's at the same instant,
/// where the kernel skews them by a few jiffies per CPU.
pub const VMSTAT_INTERVAL_NS: u64 = 1_000_000_000;
/// No `vmstat_update` due: no per-CPU list has anything to decay.
pub const VMSTAT_IDLE: u64 = u64::MAX;

/// A timer on the simulated clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// Writeback of this folio completes (`folio_end_writeback`).
    WritebackDone(u32),
    /// The flusher's periodic wake-up (`wb_workfn` for kupdate writeback).
    FlusherPeriodic,
}

/// An OOM kill, as the kernel logs it.
#[derive(Clone, Debug)]
pub struct OomKill {
    pub time_ns: u64,
    /// The memcg whose limit was hit, or None for a global (system) OOM.
    pub constraint_memcg: Option<u16>,
    pub victim_task: u32,
    pub victim_memcg: u16,
    /// Pages the victim held (rss + swap), as `oom_badness` counted them.
    pub victim_pages: u64,
    pub reason: &'static str,
}

/// Simulation bookkeeping that is not a kernel counter.
#[derive(Clone, Debug, Default)]
pub struct SimCounters {
    pub operations: u64,
    pub access_ops: u64,
    pub page_accesses: u64,
    /// Accesses by a task that had been OOM-killed, dropped.
    pub dropped_accesses: u64,
    /// Allocations that failed for good (charge or page) and were dropped.
    pub failed_allocations: u64,
    /// Pages taken from another migrate type's pageblock (the kernel's
    /// `mm_page_alloc_extfrag` events, order 0), and watermark boosts
    /// (`boost_watermark` that raised a zone's watermarks).
    pub fallbacks: u64,
    /// Of `fallbacks`, those that claimed the pageblock (the trace event's
    /// `change_ownership`).
    pub fallback_claims: u64,
    pub watermark_boosts: u64,
    /// Simulated ns the tasks spent (operations plus stalls).
    pub task_ns: u64,
    /// kswapd's CPU time from the cost model (pages it scanned × `scan`);
    /// it does not move the clock.
    pub kswapd_ns: u64,
    /// Statistics flushes that did work (`flush_memcg_stats_dwork` runs
    /// whose result could differ from the previous one's).
    pub stats_flushes: u64,
    /// The steps of reclaim the cost model charges, counted over the run
    /// (what the reclaimers' CPU time is made of: docs/COST_MODEL.md).
    pub reclaim_work: ReclaimWork,
    /// `reclaim_throttle` sleeps by reason (the `mm_vmscan_throttled`
    /// tracepoint's count): writeback, isolated, congested.
    pub reclaim_throttled: [u64; 3],
    /// The time those sleeps lasted, by reason (the trace event's
    /// `usec_delayed`), ns.
    pub reclaim_throttled_ns: [u64; 3],
    /// The timed lru_lock sections (crate::sched `lru_lock_section`).
    pub lru_lock: crate::sched::LruLockStats,
    /// Demand and cold misses, file pages read (crate::demand): no
    /// kernel counter has them.
    pub demand: crate::demand::Demand,
}

/// Counts of the reclaim steps that cost CPU time apart from the folios
/// scanned: mappings visited by rmap walks, page-table entries examined
/// by the multi-gen LRU, folios written out by reclaim, and lruvecs a
/// reclaim pass visited (one per memcg shrunk per pass over the memcgs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReclaimWork {
    pub scanned: u64,
    pub rmap: u64,
    pub pte: u64,
    pub pageout: u64,
    pub lruvecs: u64,
}

/// What the kernel keeps about the task it runs on behalf of (`current`,
/// its `task_struct` fields and per-task reclaim state): one value, so that
/// a task paused inside the kernel keeps its own while others run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Current {
    /// The task (`current->pid`, the model's task id).
    pub pid: u32,
    /// `current->in_lru_fault`.
    pub in_lru_fault: bool,
    /// Reclaim nesting guard (`PF_MEMALLOC`): allocations made while
    /// reclaiming never recurse into reclaim.
    pub in_reclaim: bool,
    /// The allocation being made has no ALLOC_KSWAPD (`__alloc_pages_may_oom`'s
    /// try at the high watermark): a boost it causes does not flag the zone,
    /// and it neither tests nor clears the flag (crate::page_alloc `rmqueue`).
    pub alloc_no_kswapd: bool,
    /// Pages charged above memory.high since the last return to user
    /// (`current->memcg_nr_pages_over_high`).
    pub nr_pages_over_high: u64,
    /// `current->reclaim_state->mm_walk` is set (look-around may promote
    /// lazily instead of activating).
    pub mm_walk: bool,
    /// Reclaim steps done but not yet charged as CPU time: charged at
    /// the end of the batch or walk that did them (`spend_reclaim`).
    pub(crate) pending_work: ReclaimWork,
    /// On an external clock (`CostModel::tasks_on_external_clock`): the
    /// reclaim time of the current task not charged to its clock, since
    /// the allocator's slow path last took it (crate::page_alloc).
    pub(crate) uncharged_reclaim_ns: u64,
}

pub struct Kernel {
    pub sysctl: Sysctls,
    pub cost: CostModel,
    pub folios: FolioTable,
    /// The zones' watermarks and reserves (their pages are in `folios`).
    pub zones: [Zone; NR_ZONES],
    pub memcgs: Vec<Memcg>,
    /// The memcg tree in pre-order with each memcg's place and the end of
    /// its subtree there (`memcg_iter` steps in O(1); a chain of 65,535
    /// memcgs made every step of a reclaim walk rebuild it, quadratic in
    /// the depth). Empty when a memcg was added since it was built.
    pub(crate) preorder: MemcgPreorder,
    pub files: Vec<File>,
    pub tasks: Vec<Task>,
    pub vmas: Vec<Vma>,
    pub pt: PageTables,
    pub swap: Option<SwapDevice>,
    /// `/proc/vmstat` events.
    pub ev: Events,
    /// The CPUs' per-CPU state (`cpus N`; one by default), and the CPU
    /// the kernel runs on now: the current task's.
    pub cpus: Vec<Cpu>,
    pub cpu: usize,
    /// Simulated time, ns.
    pub now: u64,
    timers: BinaryHeap<Reverse<(u64, u64, Timer)>>,
    timer_seq: u64,
    /// When `flush_memcg_stats_dwork` runs next. Kept out of `timers` so
    /// that sleepers woken by events (writeback completion) are not woken
    /// by it.
    next_stats_flush: u64,
    /// When `vmstat_update` next decays the per-CPU lists' `high`
    /// (`VMSTAT_IDLE`: no list above its `high_min`, nothing to do).
    pub(crate) next_vmstat: u64,
    /// Shadow-node list positions handed out, and the nodes on the lists
    /// (`WORKINGSET_NODES`).
    pub shadow_seq: u64,
    pub nr_workingset_nodes: u64,
    pub kswapd_failures: u32,
    /// `PGDAT_DIRTY`, `PGDAT_WRITEBACK`.
    pub pgdat_dirty: bool,
    pub pgdat_writeback: bool,
    /// `LRUVEC_NODE_CONGESTED` on the root lruvec.
    pub node_congested: bool,
    pub oom_kills: Vec<OomKill>,
    /// `oom_kill_process`'s `oom_rs`: how often the OOM report is printed.
    pub oom_rs: crate::oom::RateLimit,
    /// What each `reclaim` statement's write returned, and the memcg files
    /// each `stat` statement read, in trace order.
    pub reclaim_results: Vec<crate::memcontrol::ReclaimResult>,
    pub stat_points: Vec<crate::memcontrol::StatPoint>,
    pub sim: SimCounters,
    /// `NR_ISOLATED_ANON`, `NR_ISOLATED_FILE` of the node: folios the
    /// classic LRU's `shrink_inactive_list` / `shrink_active_list` hold
    /// off their lists (the multi-gen LRU does not count its batches
    /// there, as in 6.12).
    pub nr_isolated: [u64; 2],
    /// The task on whose behalf the kernel runs now, and what the kernel
    /// keeps about it while it runs (`current`): saved and restored whole
    /// when a task's operation pauses (crate::sched).
    pub current: Current,
    /// `current_is_kswapd()`.
    pub in_kswapd: bool,
    /// Dirty inodes in the order they were dirtied (`wb->b_dirty`).
    pub dirty_inodes: std::collections::VecDeque<u32>,
    /// Global page-state gauges kept exactly.
    pub nr_dirty: u64,
    /// `NR_MLOCK`: folios with `PG_mlocked`.
    pub nr_mlock: u64,
    /// `folio->mlock_count` of the folios on the unevictable list that
    /// have one (the kernel keeps it in the folio while it is there).
    pub mlock_count: std::collections::BTreeMap<u32, u32>,
    /// The anon_vma links forks made (crate::fork).
    pub anon_vmas: crate::fork::AnonVmas,
    pub nr_writeback: u64,
    /// Folios on each zone's LRU lists by type, anon and file
    /// (`NR_ZONE_{IN,}ACTIVE_{ANON,FILE}` summed over active and
    /// inactive; `zone_reclaimable_pages` reads them). Isolated folios and
    /// folios in per-CPU batches are not on a list and not counted.
    pub zone_lru: [[u64; 2]; NR_ZONES],
    /// The flusher's periodic timer is armed.
    pub flusher_armed: bool,
    /// Background writeback requested (`wb_start_background_writeback`).
    pub flusher_kicked: bool,
    /// When the file disk and the swap device finish their queued writes.
    pub disk_busy_until: u64,
    pub swap_busy_until: u64,
    /// Completion times of the swap device's writes still in flight
    /// (oldest first; at most `SWAP_QUEUE_DEPTH`): crate::writeback.
    pub swap_inflight: std::collections::VecDeque<u64>,
    /// The per-node memcg LRU of the multi-gen LRU.
    pub memcg_lru: crate::lru_gen::MemcgLru,
    /// `dump` statements executed (the caller prints the debugfs text).
    pub dump_requests: u64,
    /// The kernel version and variant followed, and their steps
    /// (crate::profiles).
    pub kernel: KernelVersion,
    pub variant: Variant,
    pub(crate) steps: crate::profiles::Steps,
    pub rng: crate::sim::rng::Rng,
    /// Pressure stall information (`/proc/pressure/memory`, memory.pressure).
    pub psi: crate::psi::Psi,
    /// kswapd0 in simulated time.
    pub kswapd: crate::kswapd::Kswapd,
    /// Pages are grouped by mobility (MachineConfig `migratetypes`).
    pub migratetypes: bool,
    /// When operations run (crate::sched).
    pub sched: crate::sched::SchedState,
    /// `NR_FREE_PAGES` with its per-CPU differences (crate::vmstat).
    pub free_stat: crate::vmstat::FreeStat,
}

impl Kernel {
    pub fn new(cfg: &MachineConfig) -> Kernel {
        let spec = cfg.zones.clone().unwrap_or_else(|| ZoneSpec::layout(cfg.memory_bytes >> PAGE_SHIFT));
        let mut k = Kernel {
            sysctl: cfg.sysctl.clone(),
            cost: cfg.cost.clone(),
            // Zone layouts only with grouping by mobility: otherwise every
            // page of `pages` is free in a Movable pageblock.
            folios: if cfg.migratetypes {
                FolioTable::with_layouts(
                    // A laid-out zone's free pages beyond its chunks (the
                    // per-CPU lists' and a difference between the two
                    // files' readings) are free order-0 pages.
                    spec.clone().map(|z| match &z.layout {
                        Some(l) => z.pages.saturating_sub(l.free_pages()) as u32,
                        None => z.pages as u32,
                    }),
                    &[spec[0].layout.as_ref(), spec[1].layout.as_ref(), spec[2].layout.as_ref()],
                )
            } else {
                FolioTable::new(spec.clone().map(|z| z.pages as u32))
            },
            zones: spec.clone().map(|z| Zone { managed: z.managed, ..Default::default() }),
            memcgs: vec![Memcg::new("root", crate::memcontrol::NO_MEMCG)],
            preorder: MemcgPreorder::default(),
            files: Vec::new(),
            tasks: Vec::new(),
            vmas: Vec::new(),
            pt: PageTables::new(),
            // mkswap puts its header in the device's first page and swapon
            // marks it bad (swap_map[0]): a device of N pages has N - 1
            // slots, offsets 1..N-1 (the model's slot s is offset s + 1).
            swap: if cfg.swap_bytes >= PAGE_SIZE {
                Some(SwapDevice::new((cfg.swap_bytes >> PAGE_SHIFT) - 1, cfg.swap_sync_io, cfg.swap_ram, cfg.swap_zram))
            } else {
                None
            },
            ev: Events::default(),
            cpus: (0..cfg.cpus.max(1)).map(|_| Cpu::default()).collect(),
            cpu: 0,
            now: 0,
            timers: BinaryHeap::new(),
            timer_seq: 0,
            // The work is queued when the root memcg comes online at boot
            // (time 0) and requeues itself every FLUSH_TIME.
            next_stats_flush: FLUSH_TIME_NS,
            next_vmstat: VMSTAT_IDLE,
            shadow_seq: 0,
            nr_workingset_nodes: 0,
            kswapd_failures: 0,
            pgdat_dirty: false,
            pgdat_writeback: false,
            node_congested: false,
            oom_kills: Vec::new(),
            oom_rs: Default::default(),
            reclaim_results: Vec::new(),
            stat_points: Vec::new(),
            sim: SimCounters::default(),
            nr_isolated: [0; 2],
            current: Current::default(),
            in_kswapd: false,
            dirty_inodes: Default::default(),
            nr_dirty: 0,
            nr_mlock: 0,
            mlock_count: Default::default(),
            anon_vmas: Default::default(),
            nr_writeback: 0,
            zone_lru: [[0; 2]; NR_ZONES],
            flusher_armed: false,
            flusher_kicked: false,
            disk_busy_until: 0,
            swap_busy_until: 0,
            swap_inflight: std::collections::VecDeque::new(),
            memcg_lru: Default::default(),
            dump_requests: 0,
            kernel: cfg.kernel,
            variant: cfg.variant,
            steps: crate::profiles::Steps::of(cfg.kernel, cfg.variant),
            rng: crate::sim::rng::Rng::new(cfg.seed),
            psi: crate::psi::Psi::new(cfg.cpus.max(1) as usize),
            // kswapd starts on the last CPU; a wake-up may move it to an
            // idle one (crate::kswapd `kswapd_select_cpu`).
            kswapd: crate::kswapd::Kswapd::new(cfg.cpus.max(1) as usize - 1, cfg.kswapd),
            migratetypes: cfg.migratetypes,
            sched: crate::sched::SchedState { mode: cfg.schedule, cpu_free: vec![0; cfg.cpus.max(1) as usize], ..Default::default() },
            free_stat: Default::default(),
        };
        if let Some(sw) = k.swap.as_mut() {
            sw.xa = (k.steps.swap_cache_nodes)(sw.nr_pages());
        }
        k.setup_per_zone_wmarks();
        k.setup_per_zone_lowmem_reserve();
        for (z, sp) in spec.iter().enumerate() {
            if let Some(w) = sp.wmark {
                k.zones[z].wmark = w;
            }
            if let Some(r) = sp.lowmem_reserve {
                k.zones[z].lowmem_reserve = r;
            }
        }
        k.setup_zone_pagesets();
        k.fill_start_pcp(&spec.clone().map(|z| z.pcp));
        k.refresh_zone_stat_thresholds();
        k.lru_gen_init_memcg(crate::memcontrol::ROOT_MEMCG);
        k
    }

    /// Which policy reclaim runs now.
    #[inline]
    pub fn policy(&self) -> Policy {
        if self.sysctl.lru_gen_enabled & 1 != 0 {
            Policy::Mglru
        } else {
            Policy::Classic
        }
    }

    /// `calculate_min_free_kbytes` and `__setup_per_zone_wmarks`: the
    /// node's minimum reserve from its managed pages, shared out between
    /// the zones in proportion to their size. `calculate_min_free_kbytes`
    /// counts `nr_free_buffer_pages()`, which at boot (before any
    /// watermark exists) is every managed page.
    pub fn setup_per_zone_wmarks(&mut self) {
        let lowmem_pages: u64 = self.zones.iter().map(|z| z.managed).sum();
        let lowmem_kbytes = lowmem_pages * 4;
        let min_free_kbytes = self
            .sysctl
            .min_free_kbytes
            .unwrap_or_else(|| crate::util::int_sqrt(lowmem_kbytes * 16).clamp(128, 262_144));
        let pages_min = min_free_kbytes >> (PAGE_SHIFT - 10);
        for z in self.zones.iter_mut() {
            if lowmem_pages == 0 {
                continue;
            }
            let min = pages_min * z.managed / lowmem_pages;
            let tmp = (min / 4).max(z.managed * self.sysctl.watermark_scale_factor / 10_000);
            z.wmark = [min, min + tmp, min + 2 * tmp];
            z.watermark_boost = 0;
        }
    }

    /// `setup_per_zone_lowmem_reserve`: each zone keeps back the managed
    /// pages of the zones above it divided by its ratio.
    pub fn setup_per_zone_lowmem_reserve(&mut self) {
        for z in 0..NR_ZONES {
            let above: u64 = self.zones[z + 1..].iter().map(|u| u.managed).sum();
            let ratio = LOWMEM_RESERVE_RATIO[z];
            self.zones[z].lowmem_reserve = if self.zones[z].managed == 0 { 0 } else { above / ratio };
        }
    }

    /// A watermark summed over the node's zones (`min_wmark_pages`,
    /// `high_wmark_pages` added up as the node-wide checks do, boosts
    /// included).
    #[inline]
    pub fn node_wmark(&self, i: usize) -> u64 {
        self.zones.iter().map(|z| z.wmark[i] + z.watermark_boost).sum()
    }

    /// `calculate_totalreserve_pages`: per zone its largest lowmem reserve
    /// plus its high watermark, at most its managed pages.
    pub fn totalreserve_pages(&self) -> u64 {
        self.zones.iter().map(|z| (z.lowmem_reserve + z.wmark[2]).min(z.managed)).sum()
    }

    /// Arm a timer at absolute time `at`.
    pub fn add_timer(&mut self, at: u64, t: Timer) {
        self.timer_seq += 1;
        self.timers.push(Reverse((at, self.timer_seq, t)));
    }

    /// Advance the clock to `t`, firing every timer due on the way, in
    /// time order (ties in the order they were armed).
    #[inline]
    pub fn advance_to(&mut self, t: u64) {
        // Fast path: nothing falls due by `t`, so the loop below would
        // fire nothing; only the clock moves.
        if self.no_event_by(t) {
            if t > self.now {
                self.now = t;
            }
            self.kswapd_release_due();
            return;
        }
        self.advance_to_events(t);
    }

    /// True if no timer, statistics flush or psi work falls due by `t`
    /// (each is strictly later).
    #[inline]
    pub fn no_event_by(&self, t: u64) -> bool {
        t < self.next_stats_flush && t < self.next_vmstat && t < self.psi.next_work && self.timers.peek().map_or(true, |r| r.0 .0 > t)
    }

    /// `advance_to` when something may fall due on the way.
    fn advance_to_events(&mut self, t: u64) {
        loop {
            let timer_at = self.timers.peek().map(|r| r.0 .0);
            let flush_at = self.next_stats_flush;
            let at = match timer_at {
                Some(a) if a <= flush_at => a,
                _ => flush_at,
            };
            // psi's averaging works come last among events of one instant;
            // they only read the state.
            if self.psi.next_work < at.min(t.saturating_add(1)) {
                let w = self.psi.next_work;
                if w > self.now {
                    self.now = w;
                }
                self.psi_run_due_works();
                continue;
            }
            // vmstat_update comes after the timers and the statistics
            // flush of the same instant.
            if self.next_vmstat < at && self.next_vmstat <= t {
                let w = self.next_vmstat;
                if w > self.now {
                    self.now = w;
                }
                // refresh_cpu_vm_stats: the CPUs' differences go to the
                // zones, then the lists decay (their frees are the next
                // second's differences).
                self.vmstat_fold_all();
                let todo = self.decay_pcp_high() || self.vmstat_pending();
                self.next_vmstat = if todo { w.saturating_add(VMSTAT_INTERVAL_NS) } else { VMSTAT_IDLE };
                continue;
            }
            if at > t {
                break;
            }
            if at > self.now {
                self.now = at;
            }
            if timer_at == Some(at) {
                let Reverse((_, _, timer)) = self.timers.pop().expect("peeked");
                self.fire(timer);
            } else {
                self.flush_memcg_stats();
                self.sim.stats_flushes += 1;
                // Until the next timer (or `t`) nothing changes the
                // statistics: the flushes before it would copy the same
                // values again. Skip them, keeping the period's phase, so
                // that idle time costs nothing in proportion to its length.
                let next_event = match self.timers.peek() {
                    Some(r) if r.0 .0 < t => r.0 .0,
                    _ => t,
                };
                let periods = next_event.saturating_sub(at).div_ceil(FLUSH_TIME_NS).max(1);
                self.next_stats_flush = at.saturating_add(periods.saturating_mul(FLUSH_TIME_NS));
            }
        }
        if t > self.now {
            self.now = t;
        }
        self.kswapd_release_due();
    }

    /// The current task sleeps until `t` (or the clock is already past
    /// it): timers fire and kswapd does what falls due, in time order.
    pub fn wait_until(&mut self, t: u64) {
        while self.kswapd.at <= t {
            if self.kswapd.at > self.now {
                let at = self.kswapd.at;
                self.advance_to(at);
            }
            if self.in_kswapd {
                break;
            }
            self.kswapd_run();
        }
        self.advance_to(t);
    }

    /// The current task sleeps `ns` (throttling, a penalty): time it
    /// spends, not on a CPU.
    pub fn sleep(&mut self, ns: u64) {
        self.sim.task_ns += ns;
        let t = self.now.saturating_add(ns);
        self.wait_until(t);
        // Others run while it sleeps (parallel scheduling).
        self.task_yield_point();
    }

    /// `memcg_page_state_local(NR_SLAB_*_B) >> PAGE_SHIFT`: the slab of a
    /// memcg in pages: its page-cache xarray nodes and buffer heads (the
    /// model's only slab objects).
    pub fn memcg_slab_pages(&self, memcg: u16) -> u64 {
        self.memcgs[memcg as usize].slab_bytes >> PAGE_SHIFT
    }

    /// `flush_memcg_stats_dwork` → `cgroup_rstat_flush(root)`: every
    /// memcg's flushed statistics catch up with its counters.
    pub fn flush_memcg_stats(&mut self) {
        self.cgroup_rstat_flush(ROOT_MEMCG);
    }

    /// Time passes for the current task, on its CPU: user (`sys` false)
    /// or system time, as /proc/PID/stat splits them.
    #[inline]
    pub fn spend_cpu(&mut self, ns: u64, sys: bool) {
        if let Some(t) = self.tasks.get_mut(self.current.pid as usize) {
            if sys {
                t.stime_ns += ns;
            } else {
                t.utime_ns += ns;
            }
        }
        self.spend(ns);
    }

    /// The current task's read of a page from the file disk: `disk_read`
    /// waiting, `disk_read_sys` its own system time (a RAM disk's copy).
    pub fn disk_read_time(&mut self, workingset: bool) {
        self.read_time(self.cost.disk_read_sys, self.cost.disk_read, workingset);
    }

    /// `swap_read_folio`'s time for the faulting task. On a synchronous
    /// device (`SWP_SYNCHRONOUS_IO`: zram, brd) `submit_bio_wait` returns
    /// after the driver has decompressed or copied the page in the
    /// task's own context, so `swap_read` is the task's system time; on
    /// any other device the task sleeps until the read completes.
    pub fn swap_read_time(&mut self, workingset: bool) {
        let ns = self.cost.swap_read;
        if self.swap.as_ref().is_some_and(|s| s.sync_io) {
            self.read_time(ns, 0, workingset);
        } else {
            self.read_time(0, ns, workingset);
        }
    }

    /// A read the current task does or waits for: `sys` of its system
    /// time, then `wait` asleep; reading a refaulting workingset folio is
    /// a memory stall (psi).
    fn read_time(&mut self, sys: u64, wait: u64, workingset: bool) {
        if workingset {
            self.psi_memstall_enter();
        }
        self.spend_cpu(sys, true);
        self.spend(wait);
        if workingset {
            self.psi_memstall_leave();
        }
    }

    /// Time passes for the current task (an operation's own cost).
    #[inline]
    pub fn spend(&mut self, ns: u64) {
        self.sim.task_ns += ns;
        let t = self.now.saturating_add(ns);
        self.advance_to(t);
    }

    fn fire(&mut self, t: Timer) {
        match t {
            Timer::WritebackDone(pfn) => self.folio_end_writeback(pfn),
            Timer::FlusherPeriodic => self.flusher_periodic(),
        }
    }

    /// Drop pending timers that fail `keep`.
    pub fn timers_retain(&mut self, keep: impl Fn(Timer) -> bool) {
        self.timers.retain(|r| keep(r.0 .2));
    }

    /// Next pending timer, if any (for `reclaim_throttle`).
    pub fn next_timer(&self) -> Option<u64> {
        self.timers.peek().map(|r| r.0 .0)
    }

    /// When the `n`-th of the writebacks already queued from now on ends
    /// (None when fewer are queued).
    pub fn nth_writeback_end(&self, n: usize) -> Option<u64> {
        let mut ends: Vec<u64> =
            self.timers.iter().filter(|r| matches!(r.0 .2, Timer::WritebackDone(_))).map(|r| r.0 .0).collect();
        if n == 0 || ends.len() < n {
            return None;
        }
        let (_, nth, _) = ends.select_nth_unstable(n - 1);
        Some(*nth)
    }

    /// Count a vmstat event and the same memcg event.
    #[inline]
    pub fn count(&mut self, memcg: u16, e: Ev, n: u64) {
        self.ev.add(e, n);
        self.memcgs[memcg as usize].ev.add(e, n);
    }
    /// Count only the memcg event (`count_memcg_events`).
    #[inline]
    pub fn count_memcg(&mut self, memcg: u16, e: Ev, n: u64) {
        self.memcgs[memcg as usize].ev.add(e, n);
    }

    pub fn nr_free_pages(&self) -> u64 {
        self.folios.nr_free()
    }

    /// Is `m` in the subtree of `root` (inclusive)?
    pub fn memcg_is_descendant(&self, mut m: u16, root: u16) -> bool {
        loop {
            if m == root {
                return true;
            }
            if m == ROOT_MEMCG {
                return false;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// The memcg after `pos` in the pre-order walk of `root`'s subtree
    /// (`css_next_descendant_pre`), the first (`root`) for None; None at
    /// the end.
    pub(crate) fn memcg_next_pre(&mut self, root: u16, pos: Option<u16>) -> Option<u16> {
        if self.preorder.order.len() != self.memcgs.len() {
            self.preorder = MemcgPreorder::build(&self.memcgs);
        }
        let p = &self.preorder;
        match pos {
            None => Some(root),
            Some(x) => {
                let i = p.place[x as usize] as usize + 1;
                (i < p.end[root as usize] as usize).then(|| p.order[i])
            }
        }
    }

    /// Pre-order walk of the subtree under `root` (`css_next_descendant_pre`).
    pub fn memcg_subtree(&self, root: u16) -> Vec<u16> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(m) = stack.pop() {
            out.push(m);
            for &c in self.memcgs[m as usize].children.iter().rev() {
                stack.push(c);
            }
        }
        out
    }
}

/// The memcg tree in pre-order (crate::kernel::Kernel `preorder`):
/// `order` lists every memcg, a parent before its children and those in
/// the order they were made; `place[m]` is m's index in it and `end[m]`
/// the index after m's subtree.
#[derive(Clone, Debug, Default)]
pub(crate) struct MemcgPreorder {
    pub order: Vec<u16>,
    pub place: Vec<u32>,
    pub end: Vec<u32>,
}

impl MemcgPreorder {
    fn build(memcgs: &[Memcg]) -> MemcgPreorder {
        let n = memcgs.len();
        let mut p = MemcgPreorder { order: Vec::with_capacity(n), place: vec![0; n], end: vec![0; n] };
        // (memcg, next child to visit)
        let mut stack: Vec<(u16, usize)> = vec![(ROOT_MEMCG, 0)];
        p.order.push(ROOT_MEMCG);
        while let Some(&(m, next)) = stack.last() {
            match memcgs[m as usize].children.get(next) {
                Some(&c) => {
                    stack.last_mut().expect("not empty").1 += 1;
                    p.place[c as usize] = p.order.len() as u32;
                    p.order.push(c);
                    stack.push((c, 0));
                }
                None => {
                    p.end[m as usize] = p.order.len() as u32;
                    stack.pop();
                }
            }
        }
        p
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    /// A tree of 12 memcgs made in an order that interleaves branches:
    /// root 0 with children 1, 2, 7; 1 with 3, 5; 3 with 4; 2 with 6, 9;
    /// 6 with 8, 10; 7 with 11. Pre-order: 0 1 3 4 5 2 6 8 10 9 7 11.
    fn tree() -> Kernel {
        let mut k = Kernel::new(&MachineConfig::default());
        for (id, parent) in [(1u16, 0u16), (2, 0), (3, 1), (4, 3), (5, 1), (6, 2), (7, 0), (8, 6), (9, 2), (10, 6), (11, 7)] {
            assert_eq!(id as usize, k.memcgs.len());
            k.memcgs.push(Memcg::new("", parent));
            k.memcgs[parent as usize].children.push(id);
        }
        k
    }

    fn walk(k: &mut Kernel, root: u16) -> Vec<u16> {
        let mut out = Vec::new();
        let mut pos = None;
        while let Some(m) = k.memcg_next_pre(root, pos) {
            out.push(m);
            pos = Some(m);
        }
        out
    }

    #[test]
    fn the_preorder_steps_as_the_subtree_walk() {
        let mut k = tree();
        assert_eq!(walk(&mut k, 0), vec![0, 1, 3, 4, 5, 2, 6, 8, 10, 9, 7, 11]);
        assert_eq!(walk(&mut k, 2), vec![2, 6, 8, 10, 9]);
        assert_eq!(walk(&mut k, 4), vec![4]);
        for root in 0..12u16 {
            assert_eq!(walk(&mut k, root), k.memcg_subtree(root), "root {root}");
        }
        // A memcg made later is in the next walk (the order is rebuilt).
        k.memcgs.push(Memcg::new("", 4));
        k.memcgs[4].children.push(12);
        assert_eq!(walk(&mut k, 1), vec![1, 3, 4, 12, 5]);
        assert_eq!(walk(&mut k, 0), k.memcg_subtree(0));
    }
}
