// SPDX-License-Identifier: GPL-2.0-only
//! The simulator's own machinery, apart from the kernel's files: driving
//! the model with resolved trace operations (here), the cost model
//! (`cost`), the accounting invariants (`check`) and the one source of
//! randomness (`rng`).
//!
//! The machine (memory, swap, boot-time sysctls) is fixed by the setup
//! statements at the top of a trace; the kernel is built at the first
//! other statement. Command-line settings override the trace's setup.

pub mod check;
pub mod cost;
pub mod rng;
mod tasks;

use mglru_trace::{Op, Sysctl, Target};

use crate::sim::cost::CostModel;
use crate::kernel::{Kernel, MachineConfig, Policy, PAGE_SHIFT};
use crate::memcontrol::{Memcg, PAGE_COUNTER_MAX};
use crate::madvise::Advice;
use crate::stat::Ev;
use crate::file::File;
use crate::folio::{pg, FolioTable};
use crate::util::prefetch_read;

/// Largest RAM or swap, in pages: the trace format's limit, which is what
/// the model's page-table encoding can address (one source: mglru_trace).
pub const MAX_PAGES: u64 = mglru_trace::MAX_PAGES;
const _: () = assert!(MAX_PAGES == crate::mm::pte::MAX_VALUE as u64);
/// Smallest RAM the model accepts (mglru_trace's limit).
pub const MIN_MEMORY: u64 = mglru_trace::MIN_MEMORY;

/// What the caller fixes on top of the trace.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub memory: Option<u64>,
    /// The zones as a real machine had them (replaces `memory`).
    pub zones: Option<[crate::kernel::ZoneSpec; crate::folio::NR_ZONES]>,
    pub swap: Option<u64>,
    pub sysctls: Vec<(Sysctl, u64)>,
    pub policy: Option<Policy>,
    pub cost: Option<CostModel>,
    pub seed: u64,
    /// The kernel version followed and the variant on top of it
    /// (crate::profiles).
    pub kernel: crate::kernel::KernelVersion,
    pub variant: crate::kernel::Variant,
    /// The number of CPUs (overrides the trace's `cpus`).
    pub cpus: Option<u32>,
    /// How kswapd runs.
    pub kswapd: crate::kswapd::KswapdMode,
    /// How operations are scheduled (crate::sched).
    pub schedule: crate::sched::Schedule,
    /// Group pages by mobility (crate::buddy; MachineConfig `migratetypes`).
    pub migratetypes: bool,
}

/// An error that stops a run (bad machine description, unsupported use).
#[derive(Debug, Clone, PartialEq)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

pub struct Simulator {
    opts: RunOptions,
    machine: MachineConfig,
    /// The tasks' coroutines (parallel scheduling): dropped before the
    /// kernel their stacks point into.
    coros: tasks::TaskCoros,
    /// At a fixed address: the coroutines of operations in flight hold it.
    kernel: Option<tasks::KernelBox>,
}

fn apply_sysctl(s: &mut crate::kernel::Sysctls, name: Sysctl, v: u64) {
    match name {
        Sysctl::Swappiness => s.swappiness = v as u32,
        Sysctl::PageCluster => s.page_cluster = v as u32,
        Sysctl::MinFreeKbytes => s.min_free_kbytes = Some(v),
        Sysctl::WatermarkScaleFactor => s.watermark_scale_factor = v,
        Sysctl::WatermarkBoostFactor => s.watermark_boost_factor = v,
        Sysctl::DirtyRatio => s.dirty_ratio = v,
        Sysctl::DirtyBackgroundRatio => s.dirty_background_ratio = v,
        Sysctl::DirtyExpireCentisecs => s.dirty_expire_centisecs = v,
        Sysctl::DirtyWritebackCentisecs => s.dirty_writeback_centisecs = v,
        Sysctl::LruGenEnabled => s.lru_gen_enabled = v as u32,
        Sysctl::LruGenMinTtlMs => s.lru_gen_min_ttl_ms = v,
    }
}

fn bytes_to_limit(b: u64) -> u64 {
    if b == u64::MAX {
        PAGE_COUNTER_MAX
    } else {
        b >> PAGE_SHIFT
    }
}

impl Simulator {
    pub fn new(opts: RunOptions) -> Simulator {
        let mut machine =
            MachineConfig { seed: opts.seed, kernel: opts.kernel, variant: opts.variant, kswapd: opts.kswapd, schedule: opts.schedule, migratetypes: opts.migratetypes, ..Default::default() };
        if let Some(c) = &opts.cost {
            machine.cost = c.clone();
        }
        // The LRU the version's Debian config boots with (6.1: the classic
        // one); the trace's sysctls and --policy come on top.
        machine.sysctl.lru_gen_enabled = opts.kernel.entry().lru_gen_enabled_at_boot;
        Simulator { opts, machine, coros: Default::default(), kernel: None }
    }

    /// The kernel, once built.
    pub fn kernel(&self) -> Option<&Kernel> {
        self.kernel.as_ref().map(tasks::KernelBox::get)
    }

    /// Build the kernel now if the setup section is over (or the trace
    /// had nothing else).
    #[inline]
    pub fn boot(&mut self) -> Result<&mut Kernel, SimError> {
        if self.kernel.is_none() {
            self.build_kernel()?;
        }
        Ok(self.kernel.as_mut().map(tasks::KernelBox::get_mut).unwrap())
    }

    #[cold]
    fn build_kernel(&mut self) -> Result<(), SimError> {
        {
            let mut m = self.machine.clone();
            if let Some(b) = self.opts.memory {
                m.memory_bytes = b;
            }
            if let Some(z) = &self.opts.zones {
                m.memory_bytes = z.iter().map(|z| z.pages).sum::<u64>() << PAGE_SHIFT;
                m.zones = Some(z.clone());
            }
            if let Some(b) = self.opts.swap {
                m.swap_bytes = b;
            }
            if let Some(n) = self.opts.cpus {
                m.cpus = n;
            }
            for &(n, v) in &self.opts.sysctls {
                apply_sysctl(&mut m.sysctl, n, v);
            }
            if let Some(p) = self.opts.policy {
                m.sysctl.lru_gen_enabled = match p {
                    Policy::Classic => 0,
                    Policy::Mglru => 0x7,
                };
            }
            if m.memory_bytes < MIN_MEMORY {
                return Err(SimError(format!(
                    "memory {} bytes is too small: the model needs at least 16M (set `memory SIZE` in the trace or --memory)",
                    m.memory_bytes
                )));
            }
            if m.memory_bytes > mglru_trace::MAX_MEMORY {
                return Err(SimError("memory above 1T less two 4K pages is not supported: use --memory 1023G or less".into()));
            }
            if m.cpus == 0 || m.cpus > mglru_trace::MAX_CPUS {
                return Err(SimError(format!(
                    "{} CPUs is not supported: use between 1 and {} (`cpus N` or --cpus)",
                    m.cpus,
                    mglru_trace::MAX_CPUS
                )));
            }
            if m.swap_bytes > mglru_trace::MAX_SWAP {
                return Err(SimError("swap above 1T less two 4K pages is not supported: use `swap 1023G` or less".into()));
            }
            if m.sysctl.lru_gen_enabled & 1 != 0 && !crate::MGLRU_IMPLEMENTED {
                return Err(SimError(
                    "the multi-gen LRU (--policy mglru, lru_gen.enabled) is not implemented yet; use --policy classic".into(),
                ));
            }
            self.kernel = Some(tasks::KernelBox::new(Kernel::new(&m)));
        }
        Ok(())
    }

    /// Let the simulated clock catch up with `ns` as idle time (what a
    /// `sleep` to that moment would do); a clock already past it is left
    /// alone. `mglru validate` uses it to make the model's clock follow a
    /// real guest's (the replayer's time profile).
    pub fn clock_at_least(&mut self, ns: u64) -> Result<(), SimError> {
        let k = self.boot()?;
        // In parallel the guest's clock at a line is when the replayer
        // released it (`mglru-replay --parallel`): the line may not start
        // earlier; its task and CPU may hold it later. Serially the clock
        // itself catches up.
        let from = if k.parallel() { k.sched.release } else { k.now };
        // A busy stretch runs psi's averaging every 2 s, as the kernel
        // does: bound a jump as a trace bounds idle time.
        if ns > from && ns - from > mglru_trace::MAX_SLEEP_NS {
            return Err(SimError(format!(
                "the clock would jump by {} ns, more than 365 days ({} ns): a time profile cannot move the clock that far at once",
                ns - from,
                mglru_trace::MAX_SLEEP_NS
            )));
        }
        if k.parallel() {
            k.sched.release = k.sched.release.max(ns);
            return Ok(());
        }
        if k.now < ns {
            k.wait_until(ns);
        }
        Ok(())
    }

    /// Apply one trace operation.
    #[inline]
    pub fn apply(&mut self, op: &Op) -> Result<(), SimError> {
        if let (&Op::Read { task, file, page, count: 1 }, Some(k)) = (op, self.kernel.as_mut().map(tasks::KernelBox::get_mut)) {
            if k.read_cached_page_now(task, file, page) {
                return Ok(());
            }
        }
        self.apply_op(op)
    }

    /// `apply`, every operation.
    fn apply_op(&mut self, op: &Op) -> Result<(), SimError> {
        if self.kernel.is_none() {
            match *op {
                Op::Memory { bytes } => {
                    self.machine.memory_bytes = bytes;
                    return Ok(());
                }
                Op::Swap { bytes, sync_io, ram, zram } => {
                    self.machine.swap_bytes = bytes;
                    self.machine.swap_sync_io = sync_io;
                    self.machine.swap_ram = ram;
                    self.machine.swap_zram = zram;
                    return Ok(());
                }
                Op::Sysctl { name, value } => {
                    apply_sysctl(&mut self.machine.sysctl, name, value);
                    return Ok(());
                }
                Op::Cpus { n } => {
                    self.machine.cpus = n;
                    return Ok(());
                }
                _ => {}
            }
        }
        let parallel = self.boot()?.parallel();
        // In parallel scheduling an access runs in its task's coroutine,
        // beside the others in flight; any other line is a barrier: every
        // operation in flight ends first (crate::sched, sim::tasks).
        if parallel {
            if let Some(t) = sched_task(op) {
                return self.par_access(op, t);
            }
            self.par_drain();
            if let Op::Exit { task } = *op {
                // Nothing of the task runs again: its coroutine's stack goes.
                self.coros.forget(task as usize);
            }
            self.boot()?.sched_barrier_begin();
        }
        let k = self.boot()?;
        // Between operations kswapd does what fell due (crate::kswapd).
        k.kswapd_run_due();
        k.sim.operations += 1;
        if op.is_access() {
            k.sim.access_ops += 1;
        }
        match *op {
            Op::Memory { .. } | Op::Swap { .. } | Op::Cpus { .. } => {
                return Err(SimError("memory, swap and cpus can only be set before the first operation".into()));
            }
            Op::Sysctl { name, value } => {
                // enabled_store: only the core bit (0x1) switches the
                // LRU (lru_gen_change_state); the other bits are
                // capabilities of a running MGLRU.
                if name == Sysctl::LruGenEnabled {
                    if (value & 1 != 0) != (k.sysctl.lru_gen_enabled & 1 != 0) && !crate::MGLRU_IMPLEMENTED {
                        return Err(SimError("switching lru_gen.enabled at run time is not implemented yet".into()));
                    }
                    k.lru_gen_change_state(value as u32);
                }
                apply_sysctl(&mut k.sysctl, name, value);
                if matches!(name, Sysctl::MinFreeKbytes | Sysctl::WatermarkScaleFactor) {
                    // setup_per_zone_wmarks, then zone_pcp_update.
                    k.setup_per_zone_wmarks();
                    k.setup_zone_pagesets();
                }
            }
            Op::Memcg(ref m) => {
                let mglru_trace::MemcgOp { id, parent, new, max, high, low, min, swap_max, oom_group, reset_peak, reset_swap_peak } = **m;
                // Files the modelled version does not have (6.1: memory.peak
                // is read-only, memory.swap.peak does not exist).
                for (used, what, msg) in [
                    (reset_peak, "memory.peak:write", "peak=reset: memory.peak is read-only on Linux {v}"),
                    (reset_swap_peak, "memory.swap.peak", "swap.peak=reset: Linux {v} has no memory.swap.peak"),
                ] {
                    if used && !k.kernel.has(what) {
                        let v = k.kernel.name();
                        return Err(SimError(format!("{} (drop it, or run --kernel 6.12)", msg.replace("{v}", v))));
                    }
                }
                if new {
                    debug_assert_eq!(id as usize, k.memcgs.len());
                    k.memcgs.push(Memcg::new("", parent));
                    k.memcgs[parent as usize].children.push(id);
                    k.lru_gen_init_memcg(id);
                    k.psi_group_init(id);
                }
                if let Some(v) = low {
                    k.memcgs[id as usize].low = bytes_to_limit(v);
                }
                if let Some(v) = min {
                    k.memcgs[id as usize].min = bytes_to_limit(v);
                }
                if let Some(v) = swap_max {
                    k.memcgs[id as usize].swap_max = bytes_to_limit(v);
                }
                if let Some(v) = high {
                    k.memory_high_write(id, bytes_to_limit(v));
                }
                if let Some(v) = max {
                    k.memory_max_write(id, bytes_to_limit(v));
                }
                if let Some(g) = oom_group {
                    k.memcgs[id as usize].oom_group = g;
                }
                // After the limits, in the order the options are listed.
                if reset_peak {
                    k.memcgs[id as usize].peak_reset();
                }
                if reset_swap_peak {
                    k.memcgs[id as usize].swap_peak_reset();
                }
            }
            Op::File { id, pages, readahead_pages, kind, zram_ratio } => {
                debug_assert_eq!(id as usize, k.files.len());
                if kind.is_shmem() {
                    k.shmem_file_create(id, pages);
                    k.files[id as usize].zram_ratio = zram_ratio;
                    // The ratio's kind on a zram device, made now (on any
                    // other device the data is not compressed: no kind).
                    if let (Some(r), Some(z)) = (zram_ratio, k.swap.as_mut().and_then(|s| s.zram.as_mut())) {
                        if z.kind_of(r).is_none() {
                            return Err(SimError(format!(
                                "a tmpfs or memfd file's zram_ratio= brings the zram device's compression ratios (its own ratio= and the files' zram_ratio= values) to more than {}: give the files fewer distinct zram_ratio= values",
                                crate::swapfile::ZRAM_MAX_KINDS
                            )));
                        }
                    }
                } else {
                    k.files.push(crate::file::File::new(pages, readahead_pages));
                }
            }
            Op::Task { id, memcg, cpu, oom_score_adj } => {
                if let Some(c) = cpu {
                    if c as usize >= k.cpus.len() {
                        return Err(SimError(format!(
                            "a task is pinned to cpu={c} but the machine has {} CPU{} (numbered from 0): raise `cpus N` in the trace or --cpus, or pin it to a lower CPU",
                            k.cpus.len(),
                            if k.cpus.len() == 1 { "" } else { "s" }
                        )));
                    }
                }
                k.task_create(id, memcg, cpu);
                k.tasks[id as usize].oom_score_adj = oom_score_adj;
            }
            Op::TaskSet { id, memcg, oom_score_adj } => {
                // Written from outside the task (cgroup.procs, /proc/PID/
                // oom_score_adj): the task does not run for it.
                if let Some(m) = memcg {
                    k.mem_cgroup_attach(id, m);
                }
                if let Some(a) = oom_score_adj {
                    k.tasks[id as usize].oom_score_adj = a;
                }
            }
            Op::Stat { memcg } => k.memcg_stat_point(memcg),
            Op::Anon { task, region, pages, populate, shared } => {
                if shared {
                    // The mapping's shmem file takes the next file id.
                    let file = k.files.len() as u32;
                    k.shmem_zero_setup(task, region, file, pages);
                } else {
                    k.anon_create(task, region, pages);
                }
                if populate && k.begin_task_op(task, 0) {
                    k.populate_region(region);
                }
            }
            Op::Mmap { task, region, file, populate } => {
                k.mmap_create(task, region, file);
                if populate && k.begin_task_op(task, 0) {
                    k.populate_region(region);
                }
            }
            Op::Mlock { task, region } => {
                if k.begin_task_op(task, 0) {
                    k.mlock_region(region);
                }
            }
            Op::Munlock { task, region } => {
                if k.begin_task_op(task, 0) {
                    k.munlock_region(region);
                }
            }
            Op::Read { .. } | Op::Write { .. } | Op::Load { .. } | Op::Store { .. } => k.task_access(op),
            Op::Advise { task, target, advice } => {
                if k.begin_task_op(task, 0) {
                    let a = match advice {
                        mglru_trace::Advice::Normal => Advice::Normal,
                        mglru_trace::Advice::Random => Advice::Random,
                        mglru_trace::Advice::Sequential => Advice::Sequential,
                        mglru_trace::Advice::DontNeed => Advice::DontNeed,
                        mglru_trace::Advice::WillNeed => Advice::WillNeed,
                        mglru_trace::Advice::NoReuse => Advice::NoReuse,
                    };
                    match target {
                        Target::File(f) => k.fadvise(f, a),
                        Target::Region(r) => k.madvise(r, a),
                    }
                }
            }
            Op::Reclaim { memcg, bytes, swappiness } => {
                // 6.1's memory.reclaim takes a size and nothing else.
                if swappiness.is_some() && !k.kernel.has("memory.reclaim:swappiness") {
                    let v = k.kernel.name();
                    return Err(SimError(format!(
                        "reclaim ... swappiness=: memory.reclaim on Linux {v} takes no swappiness= (drop it, or run --kernel {})",
                        if swappiness > Some(crate::lru_gen::MAX_SWAPPINESS) { "7.2 for max" } else { "6.12" }
                    )));
                }
                if swappiness.is_some_and(|s| s > k.steps.max_swappiness) {
                    let v = k.kernel.name();
                    return Err(SimError(format!(
                        "reclaim ... swappiness=max: memory.reclaim on Linux {v} takes a swappiness from 0 to 200 (max, anon only, is Linux 7.2's; give a number, or run --kernel 7.2)"
                    )));
                }
                k.memory_reclaim_write(memcg, bytes, swappiness)
            }
            Op::Sleep { ns } => {
                k.psi_set_state(crate::psi::PsiState::Idle);
                let t = k.now.saturating_add(ns);
                k.wait_until(t);
            }
            Op::Exit { task } => k.task_exit(task),
            Op::Munmap { task, region } => {
                if k.begin_task_op(task, 0) {
                    k.munmap(task, region);
                }
            }
            Op::Fork { task, child, first_region } => {
                // The parent runs fork(); an OOM-killed parent's fork makes
                // a child that never runs (Kernel::fork).
                k.begin_task_op(task, 0);
                k.fork(task, child, first_region).map_err(SimError)?;
            }
            Op::Unlink { file } => k.unlink_file(file),
            Op::Truncate { file, pages } => k.truncate_file(file, pages),
            Op::Dump => k.lru_gen_dump_point(),
            Op::LruGenAge { memcg, max_gen, swappiness, force_scan } => {
                k.lru_gen_debugfs_age(memcg, max_gen, swappiness, force_scan).map_err(SimError)?
            }
            Op::LruGenEvict { memcg, min_gen, swappiness, nr_to_reclaim } => {
                k.lru_gen_debugfs_evict(memcg, min_gen, swappiness, nr_to_reclaim).map_err(SimError)?
            }
        }
        // Return to user space: memory.high throttling.
        k.mem_cgroup_handle_over_high();
        if parallel {
            k.sched_barrier_end();
        }
        Ok(())
    }

    /// Applies the operations at the front of `ops`, at most `limit` of
    /// them, while each is a one-page `read` that the one-step path of
    /// [`apply`](Self::apply) takes; returns how many it applied (0 if the
    /// first is not such a read, or the kernel is not built yet). The
    /// same as `apply` on each in turn: a caller applies the one it
    /// stopped at with `apply`, which tries the one-step path again (it
    /// changed nothing) and then takes the general one. Like a replay
    /// loop, it prefetches the page-cache entry of the operation
    /// [`PREFETCH_ENTRY_AHEAD`] places on, and the folio of the one
    /// [`PREFETCH_FOLIO_AHEAD`] on, from `ops` (which may extend past
    /// `limit` for that).
    #[inline]
    pub fn apply_cached_reads(&mut self, ops: &[Op], limit: usize) -> usize {
        let Some(k) = self.kernel.as_mut().map(tasks::KernelBox::get_mut) else { return 0 };
        k.read_cached_pages_now(ops, limit.min(ops.len()))
    }

    /// A hint that `op` will be applied soon: start loading the memory it
    /// will touch first. `stage` 0 prefetches the page-cache entry (the
    /// op after next), stage 1 the folio the entry points to (the next op,
    /// whose entry stage 0 brought in). Changes no state.
    #[inline]
    pub fn prefetch(&self, op: &Op, stage: u8) {
        if let Some(k) = self.kernel.as_ref().map(tasks::KernelBox::get) {
            k.prefetch(op, stage);
        }
    }

    /// End of the trace: flush per-CPU batches so list sizes are settled,
    /// as reading /proc/vmstat after a workload would see them.
    pub fn finish(&mut self) -> Result<&mut Kernel, SimError> {
        if self.boot()?.parallel() {
            // The end of the run is when the last task's operation ended.
            self.par_drain();
            self.boot()?.sched_barrier_begin();
        }
        let k = self.boot()?;
        k.kswapd_run_due();
        k.kswapd_release_all();
        k.lru_add_drain_all();
        Ok(k)
    }
}

impl Kernel {
    /// A `read`, `write`, `load` or `store` line of its task: the pages,
    /// then (for `load`/`store`) memory.high's return-to-user work after
    /// each. In parallel scheduling it runs in its task's coroutine and
    /// may pause between pages (`task_yield_point`).
    #[inline]
    pub(crate) fn task_access(&mut self, op: &Op) {
        let k = self;
        match *op {
            Op::Read { task, file, page, count } | Op::Write { task, file, page, count } => {
                if k.begin_task_op(task, count) {
                    k.sim.page_accesses += count;
                    // Each page's copy is charged as it is done
                    // (filemap_read, filemap_write).
                    if matches!(op, Op::Write { .. }) {
                        k.filemap_write(file, page, count);
                    } else {
                        k.filemap_read(file, page, count);
                    }
                }
            }
            Op::Load { task, region, page, count } | Op::Store { task, region, page, count } => {
                let write = matches!(op, Op::Store { .. });
                if k.begin_task_op(task, count) {
                    for p in page..page + count {
                        if !k.tasks[task as usize].alive {
                            k.sim.dropped_accesses += page + count - p;
                            break;
                        }
                        k.sim.page_accesses += 1;
                        k.kswapd_run_due();
                        k.access(region, p, write);
                        // Each page is touched from user space: a fault
                        // that charged over memory.high returns to user
                        // mode through mem_cgroup_handle_over_high
                        // (resume_user_mode_work), page by page.
                        if k.current.nr_pages_over_high != 0 {
                            k.mem_cgroup_handle_over_high();
                        }
                        // (After the last page the operation ends: nothing to
                        // pause for.)
                        if p + 1 < page + count {
                            k.task_yield_point_user();
                        }
                    }
                }
            }
            _ => unreachable!("task_access of a line that is not an access"),
        }
    }
}

/// The task whose timeline an access runs on in parallel scheduling; None
/// for every other operation, a barrier (crate::sched): the replayer waits
/// for every worker's accesses before a mapping, an advice or an exit.
fn sched_task(op: &Op) -> Option<u32> {
    match *op {
        Op::Read { task, .. } | Op::Write { task, .. } | Op::Load { task, .. } | Op::Store { task, .. } => Some(task),
        _ => None,
    }
}


/// How far ahead of the operation applied a replay loop prefetches the
/// page-cache entry of a read or write ([`Simulator::prefetch`] stage 0),
/// and the folio that entry points to (stage 1; the entry arrived
/// meanwhile). A cached read takes some 20-30 ns, a miss in memory about
/// 100 ns or more on a virtual machine: at 8 and 4 ops ahead the loads
/// still waited for both, at 32 and 16 they mostly do not (the zipf
/// benchmark's binary form, docs/PERFORMANCE.md, fifth session); 64 and
/// 32 gained nothing more.
pub const PREFETCH_ENTRY_AHEAD: usize = 32;
/// See [`PREFETCH_ENTRY_AHEAD`].
pub const PREFETCH_FOLIO_AHEAD: usize = 16;

/// [`Simulator::prefetch`] with the file and folio tables.
#[inline(always)]
fn prefetch_op(files: &[File], folios: &FolioTable, op: &Op, stage: u8) {
    if let Op::Read { file, page, .. } | Op::Write { file, page, .. } = *op {
        let Some(f) = files.get(file as usize) else { return };
        if stage == 0 {
            if let Some(p) = f.cache.entry_ptr(page) {
                prefetch_read(p as *const u8);
            }
        } else {
            prefetch_page(f, folios, page);
        }
    }
}

/// Stage 1 for page `page` of `f`, whose page-cache entry stage 0 brought
/// in: the folio if the page is cached; else the page will be read into
/// the page cache, and what that touches first out of cache is the
/// entry's xarray node (its counts, `xa_slot_changed`): that node.
#[inline(always)]
fn prefetch_page(f: &File, folios: &FolioTable, page: u64) {
    match f.folio_at(page) {
        Some(pfn) => prefetch_read(folios.get(pfn) as *const _ as *const u8),
        None => {
            if let Some(node) = f.xa.nodes.get((page >> crate::shadow::XA_CHUNK_SHIFT) as usize) {
                prefetch_read(node as *const _ as *const u8);
            }
        }
    }
}

/// [`prefetch_ahead_in`] inside a run of reads of `file` (`f`): an op
/// ahead that reads the same file, the common case, is looked up in `f`
/// without finding the file again.
#[inline(always)]
fn prefetch_ahead_file(files: &[File], f: &File, file: u32, folios: &FolioTable, ops: &[Op], n: usize) {
    if let Some(o) = ops.get(n + PREFETCH_ENTRY_AHEAD) {
        match *o {
            Op::Read { file: x, page, .. } if x == file => {
                if let Some(p) = f.cache.entry_ptr(page) {
                    prefetch_read(p as *const u8);
                }
            }
            _ => prefetch_op(files, folios, o, 0),
        }
    }
    if let Some(o) = ops.get(n + PREFETCH_FOLIO_AHEAD) {
        match *o {
            Op::Read { file: x, page, .. } if x == file => prefetch_page(f, folios, page),
            _ => prefetch_op(files, folios, o, 1),
        }
    }
}

/// The prefetches of a replay loop at operation `n` of `ops`.
#[inline(always)]
fn prefetch_ahead_in(files: &[File], folios: &FolioTable, ops: &[Op], n: usize) {
    if let Some(o) = ops.get(n + PREFETCH_ENTRY_AHEAD) {
        prefetch_op(files, folios, o, 0);
    }
    if let Some(o) = ops.get(n + PREFETCH_FOLIO_AHEAD) {
        prefetch_op(files, folios, o, 1);
    }
}

impl Kernel {
    /// [`Simulator::prefetch`].
    #[inline(always)]
    fn prefetch(&self, op: &Op, stage: u8) {
        prefetch_op(&self.files, &self.folios, op, stage);
    }

    /// Switch to `task` for an operation; false (and the accesses are
    /// counted as dropped) if it was OOM-killed.
    #[inline(always)]
    pub fn begin_task_op(&mut self, task: u32, count: u64) -> bool {
        // A line of another task than the last task's line
        // (`task_switch`: the platform's replayer wakes that task's
        // worker).
        let switch = task != self.current.pid && self.cost.task_switch > 0;
        self.psi_switch_to(task);
        // The task runs on its CPU; operations without a task (a write to
        // memory.reclaim, a sleep) stay on the last task's CPU.
        self.cpu = self.tasks[task as usize].cpu as usize;
        if !self.tasks[task as usize].alive {
            self.sim.dropped_accesses += count;
            return false;
        }
        if switch {
            self.spend(self.cost.task_switch);
        }
        if self.cost.op > 0 {
            self.spend_cpu(self.cost.op, false);
        }
        if self.cost.op_sys > 0 {
            self.spend_cpu(self.cost.op_sys, true);
        }
        if self.cost.op_wait > 0 {
            self.spend(self.cost.op_wait);
        }
        true
    }

    /// `apply` of `read TASK FILE PAGE` (one page) in one step, for the
    /// common case where the general path would do nothing but count it,
    /// mark the cached folio accessed and move the clock: serial
    /// scheduling, kswapd not due, the task alive and already running on
    /// its CPU (psi has nothing to switch), the page cached without a
    /// readahead mark (no allocation, no I/O, nothing charged, so no
    /// memory.high work), and no timer, statistics flush, psi work or
    /// kswapd release falling due by the end of the operation's CPU time
    /// (the operation's cost, then the copy). The two clock advances of
    /// the general path would then fire nothing; the clock moves once, and
    /// user and system time are split as there. Returns false, having
    /// changed nothing the general path would not change the same way,
    /// when any condition fails.
    #[inline(always)]
    fn read_cached_page_now(&mut self, task: u32, file: u32, page: u64) -> bool {
        if self.parallel() || self.kswapd.at <= self.now || task != self.current.pid || self.current.nr_pages_over_high != 0 {
            return false;
        }
        let t = &self.tasks[task as usize];
        let c = t.cpu as usize;
        if !t.alive || self.psi.cpus[c].state == crate::psi::PsiState::Idle || self.psi.cpus[c].task != task {
            return false;
        }
        let (op, sys, copy) = (self.cost.op, self.cost.op_sys, self.cost.page_copy);
        let spent = self.cost.cached_read();
        let end = self.now.saturating_add(spent);
        if !self.no_event_by(end) || self.kswapd_release_by(end) {
            return false;
        }
        // begin_task_op would put the task on its CPU (the folio batches
        // are per CPU) before the read.
        self.cpu = c;
        if !self.filemap_read_one_cached(file, page) {
            return false;
        }
        self.sim.operations += 1;
        self.sim.access_ops += 1;
        self.sim.page_accesses += 1;
        let t = &mut self.tasks[task as usize];
        t.utime_ns += op;
        t.stime_ns += sys + copy;
        self.sim.task_ns += spent;
        if end > self.now {
            self.now = end;
        }
        true
    }

    /// [`Simulator::apply_cached_reads`]: `read_cached_page_now` for
    /// each one-page read at the front of `ops[..limit]` by one task of
    /// one file. The one-step path changes none of what its conditions
    /// read but the clock (it marks a folio accessed, which can move it
    /// between LRU lists, and counts; it charges nothing, allocates
    /// nothing, wakes nothing and arms no timer; debug builds check it),
    /// so those are checked once for the run: the task, its CPU and psi
    /// state, memory.high, and that no timer, statistics flush, psi work
    /// or kswapd release falls due by the end of the run's last read,
    /// when every read moves the clock by the same op + copy. Per read
    /// remain kswapd's wake-up time against the clock and the page
    /// itself. When an event falls due within the run, each read is
    /// checked whole instead (`read_cached_page_now`).
    #[inline]
    fn read_cached_pages_now(&mut self, ops: &[Op], limit: usize) -> usize {
        let Some(&Op::Read { task, file, count: 1, .. }) = ops.first() else { return 0 };
        let step = self.cost.cached_read();
        let last_end = self.now.saturating_add(step.saturating_mul(limit as u64));
        if !self.no_event_by(last_end) || self.kswapd_release_by(last_end) {
            let mut n = 0;
            while n < limit {
                let Op::Read { task, file, page, count: 1 } = ops[n] else { break };
                self.prefetch_ahead(ops, n);
                if !self.read_cached_page_now(task, file, page) {
                    break;
                }
                n += 1;
            }
            return n;
        }
        // read_cached_page_now's conditions but the clock's, once.
        if self.parallel() || task != self.current.pid || self.current.nr_pages_over_high != 0 || file as usize >= self.files.len() {
            return 0;
        }
        let t = &self.tasks[task as usize];
        let c = t.cpu as usize;
        if !t.alive || self.psi.cpus[c].state == crate::psi::PsiState::Idle || self.psi.cpus[c].task != task {
            return 0;
        }
        self.cpu = c;
        let kswapd_at = self.kswapd.at;
        let n = if self.files[file as usize].shmem {
            self.read_cached_run_each(ops, limit, task, file, step, kswapd_at)
        } else {
            self.read_cached_run(ops, limit, task, file, step, kswapd_at)
        };
        debug_assert!(
            self.no_event_by(last_end)
                && !self.kswapd_release_by(last_end)
                && self.kswapd.at == kswapd_at
                && self.current.pid == task
                && self.current.nr_pages_over_high == 0
                && self.tasks[task as usize].alive
                && self.cpu == c,
            "a one-step read changed what its conditions read"
        );
        // The counts and times read_cached_page_now adds per read.
        let (op, sys, copy) = (self.cost.op, self.cost.op_sys, self.cost.page_copy);
        let k = n as u64;
        self.sim.operations += k;
        self.sim.access_ops += k;
        self.sim.page_accesses += k;
        let t = &mut self.tasks[task as usize];
        t.utime_ns += k * op;
        t.stime_ns += k * (sys + copy);
        self.sim.task_ns += k * step;
        n
    }

    /// The reads of [`read_cached_pages_now`](Self::read_cached_pages_now)
    /// once its run-wide checks passed, of a file that is not shmem: for
    /// each, what `filemap_read_one_cached` does (the folio cached without
    /// `PG_readahead`, `prev_pos`, the mark unless the previous read ended
    /// in the page), then the clock. Inside the inner loop only the file
    /// table (read), the folio table, and the clock and `prev_pos` (kept
    /// in locals, written back before anything else runs) are in reach,
    /// so the borrow checker shows the reads change nothing the run's
    /// conditions read. A mark that needs the whole kernel (the classic
    /// LRU's activation of a referenced inactive folio) leaves the inner
    /// loop and calls `folio_mark_accessed` with the state as the one-step
    /// path has it then (`prev_pos` set, the clock before the read).
    #[inline(always)]
    fn read_cached_run(&mut self, ops: &[Op], limit: usize, task: u32, file: u32, step: u64, kswapd_at: u64) -> usize {
        let mglru = self.policy() == Policy::Mglru;
        let inc_refs = self.steps.folio_inc_refs;
        let mut now = self.now;
        let mut prev_pos = self.files[file as usize].ra.prev_pos;
        let mut n = 0;
        loop {
            let mut activate = None;
            {
                let files = &self.files[..];
                let folios = &mut self.folios;
                let f = &files[file as usize];
                while n < limit {
                    let Op::Read { task: t, file: fl, page, count: 1 } = ops[n] else { break };
                    if t != task || fl != file {
                        break;
                    }
                    prefetch_ahead_file(files, f, file, folios, ops, n);
                    if kswapd_at <= now {
                        break;
                    }
                    let Some(pfn) = f.folio_at(page) else { break };
                    let fo = folios.get_mut(pfn);
                    if fo.test(pg::READAHEAD) {
                        break;
                    }
                    let last_pos = prev_pos;
                    prev_pos = ((page + 1) << 12) as i64;
                    let end = now.saturating_add(step);
                    n += 1;
                    if ((last_pos - 1) >> 12) != page as i64 {
                        // folio_mark_accessed
                        if mglru {
                            inc_refs(fo);
                        } else if !fo.test(pg::REFERENCED) {
                            fo.set(pg::REFERENCED);
                        } else if !fo.test(pg::UNEVICTABLE) && !fo.test(pg::ACTIVE) {
                            activate = Some((pfn, end));
                            break;
                        }
                    }
                    now = end;
                }
            }
            self.files[file as usize].ra.prev_pos = prev_pos;
            match activate {
                Some((pfn, end)) => {
                    self.now = now;
                    self.folio_mark_accessed(pfn);
                    now = end;
                }
                None => {
                    self.now = now;
                    return n;
                }
            }
        }
    }

    /// [`read_cached_run`](Self::read_cached_run) read by read through
    /// `filemap_read_one_cached` (a shmem file).
    fn read_cached_run_each(&mut self, ops: &[Op], limit: usize, task: u32, file: u32, step: u64, kswapd_at: u64) -> usize {
        let mut n = 0;
        while n < limit {
            let Op::Read { task: t, file: f, page, count: 1 } = ops[n] else { break };
            if t != task || f != file {
                break;
            }
            self.prefetch_ahead(ops, n);
            if kswapd_at <= self.now {
                break;
            }
            let end = self.now.saturating_add(step);
            if !self.filemap_read_one_cached(file, page) {
                break;
            }
            self.now = end;
            n += 1;
        }
        n
    }

    /// The prefetches of a replay loop at operation `n` of `ops`.
    #[inline(always)]
    fn prefetch_ahead(&self, ops: &[Op], n: usize) {
        prefetch_ahead_in(&self.files, &self.folios, ops, n);
    }

    /// Global counters the tests and reports read by name.
    pub fn vmstat_event(&self, e: Ev) -> u64 {
        self.ev.get(e)
    }
}
