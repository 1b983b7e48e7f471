// SPDX-License-Identifier: GPL-2.0-only
//! Memory cgroups v2 (mm/memcontrol.c, mm/page_counter.c): the tree, page
//! counters, limits and protection, charging with the per-CPU stock,
//! memory.high throttling, and the writes to memory.max, memory.high and
//! memory.reclaim.

use crate::kernel::{Kernel, HZ, MAX_RECLAIM_RETRIES, NSEC_PER_JIFFY, SWAP_CLUSTER_MAX};
use crate::lruvec::Lruvec;
use crate::page_alloc::Gfp;
use crate::stat::St;
use crate::vmscan::ScanControl;
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
    /// `memory.peak` (pages): the counter's `watermark`, what a file
    /// nobody wrote to reads.
    pub watermark: u64,
    /// The counter's `local_watermark`: the peak since the last write to
    /// memory.peak (`peak_write`), never above `watermark`.
    pub local_watermark: u64,
    /// The usage a write to memory.peak saw (the trace's one open file's
    /// `cgroup_of_peak` value), None before any write: memory.peak then
    /// reads `max(that, local_watermark)` instead of `watermark`.
    pub peak_fd: Option<u64>,
    /// `memory.swap` page counter usage (pages), hierarchical.
    pub swap_usage: u64,
    /// The swap counter's `watermark` and `local_watermark`
    /// (`memory.swap.peak`), and its file's value like `peak_fd`.
    pub swap_watermark: u64,
    pub swap_local_watermark: u64,
    pub swap_peak_fd: Option<u64>,
    /// `memory.oom.group`: an OOM kill of a task in this memcg's subtree
    /// kills every task of the subtree (mem_cgroup_get_oom_group).
    pub oom_group: bool,
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
    /// The subtree's counters when this memcg was last flushed: what
    /// `memcg_stats_pending` measures the updates since against.
    pub base: RstatBase,
}

/// A memcg subtree's counters that reach memory.stat through rstat (its
/// states, LRU sizes, the events memcg counts, slab bytes and page
/// tables), summed over the subtree. The kernel counts every update's
/// size into `stats_updates` as it happens (`memcg_rstat_updated`); the
/// model, which keeps no per-update count, takes the change of each of
/// these since the memcg's last flush as that count (a lower bound: an
/// update undone before the read counts nothing). Slab counts one update
/// per page of change: `mod_objcg_state` holds a CPU's slab bytes in its
/// object stock until they pass a page, then hands them on as one update
/// of their size in pages.
#[derive(Clone, Copy, Default, Debug)]
pub struct RstatBase {
    pub st: [i64; crate::stat::St::COUNT],
    pub lru: [u64; crate::lruvec::NR_LRU_LISTS],
    pub ev: u64,
    pub slab_bytes: u64,
    pub pgtable_pages: u64,
}

/// The events of `memcg_vm_event_stat` the model counts, and the
/// `WORKINGSET_*` lruvec items (updated through `mod_lruvec_state`): the
/// memcg events that count as rstat updates.
const RSTAT_EVENTS: [crate::stat::Ev; 20] = {
    use crate::stat::Ev::*;
    [
        PgscanKswapd,
        PgscanDirect,
        PgscanKhugepaged,
        PgstealKswapd,
        PgstealDirect,
        PgstealKhugepaged,
        Pgfault,
        Pgmajfault,
        Pgrefill,
        Pgactivate,
        Pgdeactivate,
        Pglazyfree,
        Pglazyfreed,
        WorkingsetRefaultAnon,
        WorkingsetRefaultFile,
        WorkingsetActivateAnon,
        WorkingsetActivateFile,
        WorkingsetRestoreAnon,
        WorkingsetRestoreFile,
        WorkingsetNodereclaim,
    ]
};

impl RstatBase {
    /// This memcg's own counters (not its subtree's).
    fn local(c: &Memcg) -> RstatBase {
        let mut lru = [0; crate::lruvec::NR_LRU_LISTS];
        for (l, v) in lru.iter_mut().enumerate() {
            *v = c.lruvec.size(l);
        }
        RstatBase {
            st: c.st.0,
            lru,
            ev: RSTAT_EVENTS.iter().map(|&e| c.ev.get(e)).sum(),
            slab_bytes: c.slab_bytes,
            pgtable_pages: c.pgtable_pages,
        }
    }
    fn add(&mut self, o: &RstatBase) {
        for (a, b) in self.st.iter_mut().zip(o.st) {
            *a += b;
        }
        for (a, b) in self.lru.iter_mut().zip(o.lru) {
            *a += b;
        }
        self.ev += o.ev;
        self.slab_bytes += o.slab_bytes;
        self.pgtable_pages += o.pgtable_pages;
    }
    /// The updates from `self` to `now`, each counter's change in pages.
    /// The swap cache's NR_FILE_PAGES is a node counter only in 6.12
    /// (`__node_stat_mod_folio`; the memcg gets NR_SWAPCACHE): the model
    /// keeps it in the memcg's file pages, so it is left out here.
    fn updates_to(&self, now: &RstatBase) -> u64 {
        let (fp, sc) = (St::FilePages as usize, St::SwapCached as usize);
        let st: u64 = self
            .st
            .iter()
            .zip(now.st)
            .enumerate()
            .map(|(i, (a, b))| if i == fp { (a - self.st[sc]).abs_diff(b - now.st[sc]) } else { a.abs_diff(b) })
            .sum();
        let lru: u64 = self.lru.iter().zip(now.lru).map(|(a, b)| a.abs_diff(b)).sum();
        let slab = self.slab_bytes.abs_diff(now.slab_bytes) / crate::kernel::PAGE_SIZE;
        st + lru + now.ev.saturating_sub(self.ev) + slab + self.pgtable_pages.abs_diff(now.pgtable_pages)
    }
}

impl Memcg {
    /// The watermark update of `page_counter_charge` after the usage grew:
    /// the local watermark first, the global one only when the local one
    /// moved (it is never above the global one).
    #[inline]
    fn raise_watermarks(&mut self) {
        if self.usage > self.local_watermark {
            self.local_watermark = self.usage;
            if self.usage > self.watermark {
                self.watermark = self.usage;
            }
        }
    }

    /// What the trace's `memory.peak` reads now, in pages (`peak_show`):
    /// the global watermark until the file was written to, then the
    /// larger of the usage at the write and the local watermark.
    pub fn peak_read(&self) -> u64 {
        match self.peak_fd {
            None => self.watermark,
            Some(v) => v.max(self.local_watermark),
        }
    }

    /// `memory.swap.peak` read the same way.
    pub fn swap_peak_read(&self) -> u64 {
        match self.swap_peak_fd {
            None => self.swap_watermark,
            Some(v) => v.max(self.swap_local_watermark),
        }
    }

    /// A write to `memory.peak` (`peak_write`): the local watermark drops
    /// to the usage, and the writer's file remembers it. Simplification
    /// (docs/FIDELITY.md): a trace has one open file per memcg and peak
    /// file, which every reset and every `stat` uses; the kernel's other
    /// watchers of the same file (`memcg->memory_peaks`) do not exist.
    pub fn peak_reset(&mut self) {
        self.local_watermark = self.usage;
        self.peak_fd = Some(self.usage);
    }

    /// A write to `memory.swap.peak`.
    pub fn swap_peak_reset(&mut self) {
        self.swap_local_watermark = self.swap_usage;
        self.swap_peak_fd = Some(self.swap_usage);
    }

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
            local_watermark: 0,
            peak_fd: None,
            swap_usage: 0,
            swap_watermark: 0,
            swap_local_watermark: 0,
            swap_peak_fd: None,
            oom_group: false,
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

// ---- charging, limits and memory.high (the rest of mm/memcontrol.c) --------

/// Bound on charge retry loops that the kernel leaves unbounded (it relies
/// on the scheduler; a model must terminate).
const CHARGE_LOOP_BOUND: u32 = 1000;

impl Kernel {
    /// `page_counter_try_charge` on the memory counter: charge `nr` pages
    /// up the hierarchy, or return the first ancestor whose max would be
    /// exceeded (nothing charged then).
    pub(crate) fn page_counter_try_charge(&mut self, memcg: u16, nr: u64) -> Result<(), u16> {
        let mut m = memcg;
        loop {
            let c = &self.memcgs[m as usize];
            if m != ROOT_MEMCG && c.usage + nr > c.max {
                // undo the levels below
                let mut u = memcg;
                while u != m {
                    self.memcgs[u as usize].usage -= nr;
                    u = self.memcgs[u as usize].parent;
                }
                return Err(m);
            }
            let c = &mut self.memcgs[m as usize];
            c.usage += nr;
            c.raise_watermarks();
            if m == ROOT_MEMCG {
                return Ok(());
            }
            m = c.parent;
        }
    }

    pub fn page_counter_uncharge(&mut self, memcg: u16, nr: u64) {
        let mut m = memcg;
        loop {
            let c = &mut self.memcgs[m as usize];
            debug_assert!(c.usage >= nr, "memcg {} usage underflow", c.name);
            c.usage -= nr;
            if m == ROOT_MEMCG {
                return;
            }
            m = c.parent;
        }
    }

    /// `consume_stock`.
    pub(crate) fn consume_stock(&mut self, memcg: u16, nr: u64) -> bool {
        if nr > MEMCG_CHARGE_BATCH {
            return false;
        }
        let stock = &mut self.cpus[self.cpu].stock;
        if stock.memcg == memcg && stock.nr_pages >= nr {
            stock.nr_pages -= nr;
            return true;
        }
        false
    }

    /// `drain_stock` of CPU `cpu`: return its cached pre-charge.
    pub fn drain_stock(&mut self, cpu: usize) {
        let stock = self.cpus[cpu].stock;
        if stock.memcg != NO_MEMCG && stock.nr_pages > 0 {
            self.page_counter_uncharge(stock.memcg, stock.nr_pages);
        }
        self.cpus[cpu].stock = Stock::default();
    }

    /// `drain_all_stock(root)`: every CPU whose stock holds pages of a
    /// memcg in `root`'s subtree gives them back (this CPU at once; the
    /// kernel queues the others' drain as work on their CPUs, the model
    /// does it at once too: docs/FIDELITY.md). A stock of another memcg is
    /// left alone.
    pub fn drain_all_stock(&mut self, root: u16) {
        for cpu in 0..self.cpus.len() {
            let stock = self.cpus[cpu].stock;
            if stock.memcg != NO_MEMCG && stock.nr_pages > 0 && self.memcg_is_descendant(stock.memcg, root) {
                self.drain_stock(cpu);
            }
        }
    }

    /// `refill_stock`.
    pub(crate) fn refill_stock(&mut self, memcg: u16, nr: u64) {
        let cpu = self.cpu;
        if self.cpus[cpu].stock.memcg != memcg {
            self.drain_stock(cpu);
            self.cpus[cpu].stock.memcg = memcg;
        }
        self.cpus[cpu].stock.nr_pages += nr;
        if self.cpus[cpu].stock.nr_pages > MEMCG_CHARGE_BATCH {
            self.drain_stock(cpu);
        }
    }

    /// A reclaimable slab object of `bytes` allocated for `memcg`
    /// (`__GFP_ACCOUNT`: `obj_cgroup_charge`). memory.stat counts the
    /// bytes; the memory counter holds whole pages, one more each time the
    /// bytes cross a page boundary (the per-CPU object stock keeps the
    /// rest), taken from the memcg's page stock when it has them.
    /// Simplification (docs/FIDELITY.md): the charge never reclaims — a
    /// page over the limit is forced, and the next folio charge reclaims
    /// it back — and the slab pages take no simulated RAM. The root memcg
    /// counts the bytes only, as it charges nothing in cgroup v2.
    pub(crate) fn memcg_slab_charge(&mut self, memcg: u16, bytes: u64) {
        let c = &mut self.memcgs[memcg as usize];
        c.slab_bytes += bytes;
        if memcg == ROOT_MEMCG {
            return;
        }
        let need = c.slab_bytes.div_ceil(crate::kernel::PAGE_SIZE);
        if need > c.slab_pages {
            let n = need - c.slab_pages;
            c.slab_pages = need;
            if !self.consume_stock(memcg, n) {
                self.force_charge(memcg, n);
            }
        }
    }

    /// The object freed (`obj_cgroup_uncharge`): pages the bytes no longer
    /// fill go back through the page stock (`obj_cgroup_uncharge_pages`).
    pub(crate) fn memcg_slab_uncharge(&mut self, memcg: u16, bytes: u64) {
        let c = &mut self.memcgs[memcg as usize];
        debug_assert!(c.slab_bytes >= bytes);
        c.slab_bytes -= bytes;
        if memcg == ROOT_MEMCG {
            return;
        }
        let need = c.slab_bytes.div_ceil(crate::kernel::PAGE_SIZE);
        if c.slab_pages > need {
            let n = c.slab_pages - need;
            c.slab_pages = need;
            self.refill_stock(memcg, n);
        }
    }

    /// A task's page tables freed at exit (they were charged by
    /// `pte_alloc`): the pages go back through the page stock.
    pub(crate) fn memcg_pgtable_uncharge(&mut self, memcg: u16, n: u64) {
        if memcg == ROOT_MEMCG || n == 0 {
            return;
        }
        let c = &mut self.memcgs[memcg as usize];
        debug_assert!(c.pgtable_pages >= n);
        c.pgtable_pages -= n;
        self.refill_stock(memcg, n);
    }

    /// `mem_cgroup_margin`: pages left under max (memory counter).
    pub fn mem_cgroup_margin(&self, memcg: u16) -> u64 {
        let c = &self.memcgs[memcg as usize];
        c.max.saturating_sub(c.usage)
    }

    pub fn memcg_memory_event(&mut self, memcg: u16, e: MemcgEvent) {
        self.memcgs[memcg as usize].mem_events_local[e as usize] += 1;
        // memory.events is hierarchical in cgroup v2, up to (not into) the root.
        let mut m = memcg;
        while m != ROOT_MEMCG {
            self.memcgs[m as usize].mem_events[e as usize] += 1;
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `try_charge_memcg` for `nr` pages; false when the charge failed
    /// for good (`-ENOMEM`).
    pub fn try_charge(&mut self, memcg: u16, nr: u64, gfp: Gfp) -> bool {
        if memcg == ROOT_MEMCG {
            // The root memcg does not account charges in v2, but its
            // counter still sums the whole machine for reports.
            let _ = self.page_counter_try_charge(ROOT_MEMCG, nr);
            return true;
        }
        let batch_max = MEMCG_CHARGE_BATCH.max(nr);
        let mut nr_retries = MAX_RECLAIM_RETRIES;
        let mut drained = false;
        let mut passed_oom = false;
        // The batch drops to `nr` after a failed attempt and stays there
        // for every retry (try_charge_memcg).
        let mut batch = batch_max;
        for _ in 0..CHARGE_LOOP_BOUND {
            if self.consume_stock(memcg, nr) {
                return true;
            }
            let res = match self.page_counter_try_charge(memcg, batch) {
                Ok(()) => Ok(()),
                Err(over) => {
                    if batch > nr {
                        batch = nr;
                        self.page_counter_try_charge(memcg, batch)
                    } else {
                        Err(over)
                    }
                }
            };
            let over = match res {
                Ok(()) => {
                    if batch > nr {
                        self.refill_stock(memcg, batch - nr);
                    }
                    self.check_high_after_charge(memcg, batch);
                    return true;
                }
                Err(over) => over,
            };
            if self.current.in_reclaim {
                // PF_MEMALLOC tasks may not recurse; the kernel lets
                // reclaimers' charges fail over to force.
                return self.force_charge(memcg, nr);
            }
            self.memcg_memory_event(over, MemcgEvent::Max);
            self.psi_memstall_enter();
            let nr_reclaimed = self.try_to_free_mem_cgroup_pages(over, nr, true, false);
            self.psi_memstall_leave();
            if self.mem_cgroup_margin(over) >= nr {
                continue;
            }
            if !drained {
                self.drain_all_stock(over);
                drained = true;
                continue;
            }
            if gfp == Gfp::NoRetry {
                return false;
            }
            if nr_reclaimed > 0 && nr <= 8 {
                continue;
            }
            if nr_retries > 0 {
                nr_retries -= 1;
                continue;
            }
            if passed_oom && !self.tasks[self.current.pid as usize].alive {
                return false;
            }
            // mem_cgroup_oom: the event, then the OOM killer.
            self.memcg_memory_event(over, MemcgEvent::Oom);
            if self.out_of_memory(Some(over)) {
                passed_oom = true;
                nr_retries = MAX_RECLAIM_RETRIES;
                continue;
            }
            // mem_cgroup_oom found nothing to kill: the kernel bypasses
            // the limit for an exiting task and fails the charge
            // otherwise (the fault then returns VM_FAULT_OOM).
            return false;
        }
        false
    }

    /// Charge past the limit (`force:` in try_charge_memcg).
    pub(crate) fn force_charge(&mut self, memcg: u16, nr: u64) -> bool {
        let mut m = memcg;
        loop {
            let c = &mut self.memcgs[m as usize];
            c.usage += nr;
            c.raise_watermarks();
            if m == ROOT_MEMCG {
                return true;
            }
            m = c.parent;
        }
    }

    /// The memory.high check at the end of a successful charge.
    pub(crate) fn check_high_after_charge(&mut self, memcg: u16, batch: u64) {
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                self.current.nr_pages_over_high += batch;
                break;
            }
            m = c.parent;
        }
        if self.current.nr_pages_over_high > MEMCG_CHARGE_BATCH && !self.current.in_reclaim {
            self.mem_cgroup_handle_over_high();
        }
    }

    /// `reclaim_high`: reclaim every over-high memcg from `memcg` up to
    /// (not including) the root.
    pub(crate) fn reclaim_high(&mut self, memcg: u16, nr: u64) -> u64 {
        let mut reclaimed = 0;
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                self.memcg_memory_event(m, MemcgEvent::High);
                self.psi_memstall_enter();
                reclaimed += self.try_to_free_mem_cgroup_pages(m, nr, true, false);
                self.psi_memstall_leave();
            }
            m = self.memcgs[m as usize].parent;
        }
        reclaimed
    }

    /// `calculate_high_delay` in jiffies for `nr_pages` over high.
    pub(crate) fn calculate_high_delay(&self, memcg: u16, nr_pages: u64) -> u64 {
        const PRECISION_SHIFT: u32 = 20;
        const SCALING_SHIFT: u32 = 14;
        let mut max_overage: u64 = 0;
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.high != PAGE_COUNTER_MAX && c.usage > c.high {
                let high = c.high.max(1);
                let overage = ((c.usage - high) << PRECISION_SHIFT) / high;
                max_overage = max_overage.max(overage);
            }
            m = c.parent;
        }
        if max_overage == 0 {
            return 0;
        }
        let mut penalty = ((max_overage as u128 * max_overage as u128 * HZ as u128)
            >> (PRECISION_SHIFT + SCALING_SHIFT)) as u64;
        penalty = penalty * nr_pages / MEMCG_CHARGE_BATCH;
        penalty.min(2 * HZ)
    }

    /// `mem_cgroup_handle_over_high`, run when the task returns to user
    /// space (end of a trace operation) or mid-charge past a batch.
    #[inline]
    pub fn mem_cgroup_handle_over_high(&mut self) {
        // Nothing was charged over a memory.high since the last return to
        // user space (always the case when no memcg has a high limit).
        if self.current.nr_pages_over_high != 0 {
            self.handle_over_high_pages();
        }
    }

    fn handle_over_high_pages(&mut self) {
        let nr_pages = self.current.nr_pages_over_high;
        self.current.nr_pages_over_high = 0;
        let memcg = self.tasks[self.current.pid as usize].memcg;
        let mut nr_retries = MAX_RECLAIM_RETRIES;
        let mut in_retry = false;
        loop {
            // task_is_dying: an OOM-killed task neither reclaims nor sleeps.
            if !self.tasks[self.current.pid as usize].alive {
                return;
            }
            let reclaimed = self.reclaim_high(memcg, if in_retry { SWAP_CLUSTER_MAX } else { nr_pages });
            let penalty = self.calculate_high_delay(memcg, nr_pages);
            if penalty <= HZ / 100 {
                return;
            }
            if reclaimed > 0 || nr_retries > 0 {
                if reclaimed == 0 {
                    nr_retries -= 1;
                }
                in_retry = true;
                continue;
            }
            // Throttle the allocating task: it sleeps in simulated time.
            self.psi_memstall_enter();
            self.sleep(penalty * NSEC_PER_JIFFY);
            self.psi_memstall_leave();
            return;
        }
    }

    /// A write to `memory.max` (`memory_max_write`): reclaim down to the
    /// new limit, then OOM-kill inside the memcg until it fits.
    pub fn memory_max_write(&mut self, memcg: u16, max: u64) {
        self.memcgs[memcg as usize].max = max;
        let mut drained = false;
        let mut nr_reclaims = crate::kernel::MAX_RECLAIM_RETRIES;
        for _ in 0..10_000 {
            let usage = self.memcgs[memcg as usize].usage;
            if usage <= max {
                return;
            }
            if !drained {
                self.drain_all_stock(memcg);
                drained = true;
                continue;
            }
            if nr_reclaims > 0 {
                if self.try_to_free_mem_cgroup_pages(memcg, usage - max, true, false) == 0 {
                    nr_reclaims -= 1;
                }
                continue;
            }
            self.memcg_memory_event(memcg, MemcgEvent::Oom);
            if !self.out_of_memory(Some(memcg)) {
                return;
            }
        }
    }

    /// A write to `memory.high` (`memory_high_write`): reclaim down to it.
    pub fn memory_high_write(&mut self, memcg: u16, high: u64) {
        self.memcgs[memcg as usize].high = high;
        let mut drained = false;
        let mut nr_retries = crate::kernel::MAX_RECLAIM_RETRIES;
        for _ in 0..10_000 {
            let usage = self.memcgs[memcg as usize].usage;
            if usage <= high {
                return;
            }
            if !drained {
                // Drain the per-CPU charge stock, then look at the usage
                // again before reclaiming (memory_high_write's `continue`).
                self.drain_all_stock(memcg);
                drained = true;
                continue;
            }
            let r = self.try_to_free_mem_cgroup_pages(memcg, usage - high, true, false);
            if r == 0 {
                if nr_retries == 0 {
                    return;
                }
                nr_retries -= 1;
            }
        }
    }

    /// A write to `memory.reclaim` (`memory_reclaim`). Returns pages
    /// reclaimed and whether the kernel would answer -EAGAIN.
    pub fn memory_reclaim(&mut self, memcg: u16, nr_to_reclaim: u64, swappiness: Option<u32>) -> (u64, bool) {
        // 6.12 asks for a quarter of what is left each round
        // (try_to_free_mem_cgroup_pages raises it to SWAP_CLUSTER_MAX).
        self.memory_reclaim_rounds(memcg, nr_to_reclaim, swappiness, |left| left / 4)
    }

    /// `memory_reclaim`'s loop, every version's: rounds of
    /// `try_to_free_mem_cgroup_pages` asking `request(left)` pages, the
    /// retries and the final drain.
    pub(crate) fn memory_reclaim_rounds(&mut self, memcg: u16, nr_to_reclaim: u64, swappiness: Option<u32>, request: fn(u64) -> u64) -> (u64, bool) {
        let mut retries = MAX_RECLAIM_RETRIES;
        let mut reclaimed = 0;
        while reclaimed < nr_to_reclaim {
            let batch = request(nr_to_reclaim - reclaimed);
            if retries == 0 {
                // The final attempt: drain every CPU's folio batches.
                self.lru_add_drain_all();
            }
            let r = self.try_to_free_mem_cgroup_pages_swappiness(memcg, batch, true, true, swappiness);
            if r == 0 {
                if retries == 0 {
                    return (reclaimed, true);
                }
                retries -= 1;
            }
            reclaimed += r;
        }
        (reclaimed, false)
    }

    /// `try_to_free_mem_cgroup_pages`.
    pub fn try_to_free_mem_cgroup_pages(&mut self, memcg: u16, nr_pages: u64, may_swap: bool, proactive: bool) -> u64 {
        self.try_to_free_mem_cgroup_pages_swappiness(memcg, nr_pages, may_swap, proactive, None)
    }

    pub fn try_to_free_mem_cgroup_pages_swappiness(
        &mut self,
        memcg: u16,
        nr_pages: u64,
        may_swap: bool,
        proactive: bool,
        swappiness: Option<u32>,
    ) -> u64 {
        if self.current.in_reclaim {
            return 0;
        }
        let mut sc = ScanControl::new(nr_pages.max(SWAP_CLUSTER_MAX), Some(memcg));
        sc.may_swap = may_swap;
        sc.proactive = proactive;
        sc.swappiness = swappiness;
        self.do_try_to_free_pages(&mut sc)
    }

    pub(crate) fn swap_charge(&mut self, memcg: u16, n: u64) {
        self.memcgs[memcg as usize].st.add(St::Swap, n as i64);
        let mut m = memcg;
        loop {
            let c = &mut self.memcgs[m as usize];
            c.swap_usage += n;
            // page_counter_try_charge's watermarks on the swap counter.
            if c.swap_usage > c.swap_local_watermark {
                c.swap_local_watermark = c.swap_usage;
                c.swap_watermark = c.swap_watermark.max(c.swap_usage);
            }
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    pub(crate) fn swap_uncharge(&mut self, memcg: u16, n: u64) {
        self.memcgs[memcg as usize].st.add(St::Swap, -(n as i64));
        let mut m = memcg;
        loop {
            self.memcgs[m as usize].swap_usage -= n;
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `mem_cgroup_swap_full`: global swap over half used, or a memcg on
    /// the way up at half its swap.max.
    pub fn mem_cgroup_swap_full(&self, memcg: u16) -> bool {
        let Some(sw) = &self.swap else { return false };
        if sw.vm_swap_full() {
            return true;
        }
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.swap_max != PAGE_COUNTER_MAX && c.swap_usage * 2 >= c.swap_max {
                return true;
            }
            m = c.parent;
        }
        false
    }

    /// Unused event hook kept for memory.swap.events (not modelled).
    #[allow(dead_code)]
    pub(crate) fn swap_event(&mut self, _m: u16, _e: MemcgEvent) {}

    /// `mem_cgroup_below_min(target, memcg)`.
    pub fn below_min(&self, target: Option<u16>, memcg: u16) -> bool {
        if memcg == ROOT_MEMCG || Some(memcg) == target {
            return false;
        }
        let c = &self.memcgs[memcg as usize];
        c.emin >= c.usage
    }

    /// `mem_cgroup_below_low(target, memcg)`.
    pub fn below_low(&self, target: Option<u16>, memcg: u16) -> bool {
        if memcg == ROOT_MEMCG || Some(memcg) == target {
            return false;
        }
        let c = &self.memcgs[memcg as usize];
        c.elow >= c.usage
    }

    /// `mem_cgroup_protection`: (min, low) of `memcg` under `target`.
    pub(crate) fn mem_cgroup_protection(&self, target: u16, memcg: u16) -> (u64, u64) {
        if memcg == ROOT_MEMCG || memcg == target {
            return (0, 0);
        }
        let c = &self.memcgs[memcg as usize];
        (c.emin, c.elow)
    }
}

// ---- moving a task (cgroup.procs), memory.reclaim's answer, stat reads ----

/// What one write to `memory.reclaim` returned, in trace order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReclaimResult {
    pub memcg: u16,
    /// Bytes asked for.
    pub bytes: u64,
    /// Pages reclaimed (what the loop counted; may pass the request).
    pub reclaimed: u64,
    /// The write's return: 0 for success (the kernel returns the bytes
    /// written) or -EAGAIN (-11) when reclaim gave up short of the goal.
    pub result: i32,
}

/// `EAGAIN`.
pub const EAGAIN: i32 = 11;

/// A memcg's files as a `stat MEMCG` statement read them.
#[derive(Clone, Debug, PartialEq)]
pub struct StatPoint {
    pub memcg: u16,
    /// Simulated time of the read (ns).
    pub time_ns: u64,
    /// memory.current, memory.peak, memory.swap.current, memory.swap.peak
    /// in bytes; the peaks as a newly opened file reads them (the global
    /// watermarks), and as the trace's file that `peak=reset` /
    /// `swap.peak=reset` wrote to reads them (the same until a reset).
    pub current: u64,
    pub peak: u64,
    pub swap_current: u64,
    pub swap_peak: u64,
    pub peak_since_reset: u64,
    pub swap_peak_since_reset: u64,
    /// memory.events (hierarchical), in MEMCG_EVENT_NAMES order.
    pub events: [u64; 6],
    /// memory.events.local.
    pub events_local: [u64; 6],
    /// memory.stat, in 6.12's order and units.
    pub stat: Vec<(&'static str, u64)>,
}

impl Kernel {
    /// Writing a task's pid to another memcg's `cgroup.procs` in cgroup
    /// v2 (`cgroup_attach_task` → `mem_cgroup_attach`): nothing charged
    /// moves — its folios, swap entries and page tables stay charged to
    /// the memcg they were charged to (v2 has no move_charge_at_immigrate)
    /// — but from now on its mm's charges go to the new memcg
    /// (`get_mem_cgroup_from_mm`), its mm joins the new memcg's mm list
    /// for MGLRU's page-table walks (`lru_gen_migrate_mm`), its time goes
    /// to the new memcg's pressure, and an OOM in the new memcg may pick it.
    pub fn mem_cgroup_attach(&mut self, task: u32, to: u16) {
        let t = &self.tasks[task as usize];
        if !t.alive || t.memcg == to {
            return;
        }
        // cgroup_move_task → psi_cgroup_change: the running task's time so
        // far belongs to its old groups.
        self.psi_task_move_begin(task);
        // lru_gen_migrate_mm: leave the old list, join the new one.
        self.lru_gen_del_mm(task);
        self.tasks[task as usize].memcg = to;
        self.lru_gen_add_mm(task);
        self.psi_task_move_end(task);
    }

    /// A write to `memory.reclaim` as a trace statement: reclaim and
    /// record what the write returned.
    pub fn memory_reclaim_write(&mut self, memcg: u16, bytes: u64, swappiness: Option<u32>) {
        // memory_reclaim: `memparse(buf) / PAGE_SIZE`, rounded down (less
        // than a page asks for nothing); `swappiness=N` is the proactive
        // reclaim's own (sc->proactive_swappiness).
        let (reclaimed, eagain) = (self.steps.memory_reclaim)(self, memcg, bytes / crate::kernel::PAGE_SIZE, swappiness);
        self.reclaim_results.push(ReclaimResult { memcg, bytes, reclaimed, result: if eagain { -EAGAIN } else { 0 } });
    }

    /// `cgroup_rstat_flush` of `memcg`'s subtree: the flushed statistics
    /// of every memcg in it catch up with its counters. Its ancestors'
    /// stay as they were (the kernel leaves the subtree's changes pending
    /// in the parent until the parent is flushed).
    pub fn cgroup_rstat_flush(&mut self, memcg: u16) {
        let sub = self.memcg_subtree(memcg);
        let mut hier: Vec<(FlushedStats, RstatBase)> = Vec::with_capacity(sub.len());
        for &m in &sub {
            let c = &self.memcgs[m as usize];
            let mut h = FlushedStats::default();
            for lru in 0..crate::lruvec::NR_LRU_LISTS {
                h.lru_local[lru] = c.lruvec.size(lru);
            }
            h.lru = h.lru_local;
            h.ws_activate = [c.ev.get(crate::stat::Ev::WorkingsetActivateAnon), c.ev.get(crate::stat::Ev::WorkingsetActivateFile)];
            h.file_dirty = c.st.get(crate::stat::St::FileDirty).max(0) as u64;
            h.writeback = c.st.get(crate::stat::St::FileWriteback).max(0) as u64 + c.st.get(crate::stat::St::AnonWriteback).max(0) as u64;
            h.slab_local_pages = self.memcg_slab_pages(m);
            hier.push((h, RstatBase::local(c)));
        }
        // `sub` is in pre-order: walking it backwards meets every child
        // before its parent, which is earlier in the list.
        let mut pos = vec![usize::MAX; self.memcgs.len()];
        for (i, &m) in sub.iter().enumerate() {
            pos[m as usize] = i;
        }
        for i in (1..sub.len()).rev() {
            let j = pos[self.memcgs[sub[i] as usize].parent as usize];
            let (c, cb) = hier[i];
            let (h, hb) = &mut hier[j];
            for lru in 0..crate::lruvec::NR_LRU_LISTS {
                h.lru[lru] += c.lru[lru];
            }
            h.ws_activate[0] += c.ws_activate[0];
            h.ws_activate[1] += c.ws_activate[1];
            h.file_dirty += c.file_dirty;
            h.writeback += c.writeback;
            hb.add(&cb);
        }
        for (&m, (mut h, b)) in sub.iter().zip(hier) {
            h.base = b;
            self.memcgs[m as usize].flushed = h;
        }
    }

    /// The size of the statistics updates in `memcg`'s subtree since it
    /// was last flushed, as the model counts them (`RstatBase`).
    pub fn memcg_stats_pending(&self, memcg: u16) -> u64 {
        let mut now = RstatBase::default();
        for m in self.memcg_subtree(memcg) {
            now.add(&RstatBase::local(&self.memcgs[m as usize]));
        }
        self.memcgs[memcg as usize].flushed.base.updates_to(&now)
    }

    /// `mem_cgroup_flush_stats`: flush `memcg`'s subtree if
    /// `memcg_vmstats_needs_flush` — its `stats_updates` above
    /// `MEMCG_CHARGE_BATCH` per online CPU. The kernel adds a CPU's
    /// updates to that count in lots of at least `MEMCG_CHARGE_BATCH`
    /// (`memcg_rstat_updated`); the model counts the pending updates as
    /// if they all came from one CPU, whose lots are whole batches of 64.
    /// Returns whether it flushed.
    pub fn mem_cgroup_flush_stats(&mut self, memcg: u16) -> bool {
        let pending = self.memcg_stats_pending(memcg);
        let counted = pending - pending % MEMCG_CHARGE_BATCH;
        if counted > MEMCG_CHARGE_BATCH * self.cpus.len() as u64 {
            self.cgroup_rstat_flush(memcg);
            true
        } else {
            false
        }
    }

    /// Read a memcg's files now (`stat MEMCG`). Reading memory.stat
    /// flushes the memcg's subtree first when enough updates are pending
    /// (`memory_stat_format` → `mem_cgroup_flush_stats`), which changes
    /// the sizes reclaim reads from then on. The values read are exact,
    /// as after a flush, also when the kernel would not have flushed
    /// (docs/FIDELITY.md simplification 13).
    pub fn memcg_stat_point(&mut self, memcg: u16) {
        self.mem_cgroup_flush_stats(memcg);
        let page = crate::kernel::PAGE_SIZE;
        let c = &self.memcgs[memcg as usize];
        let p = StatPoint {
            memcg,
            time_ns: self.now,
            current: c.usage * page,
            peak: c.watermark * page,
            swap_current: c.swap_usage * page,
            swap_peak: c.swap_watermark * page,
            peak_since_reset: c.peak_read() * page,
            swap_peak_since_reset: c.swap_peak_read() * page,
            events: c.mem_events,
            events_local: c.mem_events_local,
            stat: self.memory_stat(memcg),
        };
        self.stat_points.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folio added to the swap cache is one memcg update (NR_SWAPCACHE):
    /// its NR_FILE_PAGES is the node's only. An anon folio added to the
    /// inactive anon list on top of it makes two more (NR_ANON_MAPPED and
    /// the LRU size), and a page-cache folio's NR_FILE_PAGES one.
    #[test]
    fn swap_cache_counts_once_towards_pending_updates() {
        let base = RstatBase::default();
        let mut now = base;
        now.st[St::SwapCached as usize] += 1;
        now.st[St::FilePages as usize] += 1;
        assert_eq!(base.updates_to(&now), 1);
        now.st[St::Anon as usize] += 1;
        now.lru[crate::lruvec::LRU_INACTIVE_ANON] += 1;
        assert_eq!(base.updates_to(&now), 3);
        now.st[St::FilePages as usize] += 1;
        assert_eq!(base.updates_to(&now), 4);
    }
}
