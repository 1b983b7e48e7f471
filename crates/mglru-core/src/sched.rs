// SPDX-License-Identifier: GPL-2.0-only
//! When each trace operation runs: one task at a time in trace order (the
//! default, `--schedule serial`), or tasks side by side on their CPUs
//! (`--schedule parallel`).
//!
//! Serial: an operation starts when the one before it in the trace ended;
//! the machine's clock is one line. This is what the replayer does on the
//! guest by default and what the reference suite was measured with.
//!
//! Parallel: each task has its own clock (when its last operation ended)
//! and each CPU is free again when the operation running on it ends. An
//! operation of a task starts at the latest of
//!   - its task's clock (a task does one thing at a time),
//!   - its CPU's free time (one task runs on a CPU at a time; tasks pinned
//!     to one CPU take turns operation by operation, in trace order),
//!   - the start of the operation above it in the trace (the trace is the
//!     order in which operations are released: a trace recorded from a
//!     concurrent program interleaves its tasks as they ran, and the
//!     replayer's dispatcher hands operations out in that order).
//! So two tasks on two CPUs whose lines alternate run at the same time, and
//! the run's length is the longer task's, not the sum. Only accesses
//! (`read`, `write`, `load`, `store`) run on their task's timeline; every
//! other line (`anon`, `mmap`, `advise`, `exit`, `reclaim`, `sleep`,
//! `dump`, `sysctl`, `memcg`, `file`, `task`, the `lru_gen` commands) is a
//! barrier: it starts when every earlier operation has ended, and every
//! later one starts after it ends — as the replayer's `--parallel` waits
//! for all of its workers' accesses before any other command.
//!
//! Inside an operation: an access runs in a coroutine of its task
//! (crate::sim::tasks) that pauses at `task_yield_point`s — between pages,
//! between reclaim batches and lruvecs, after isolating a batch, after a
//! reclaim or penalty sleep — once its clock has passed the clock of
//! another operation in flight (or the next line's start), and the
//! operation furthest behind goes on. So two tasks on two CPUs are inside
//! reclaim at the same time, each with its own scan_control, and one may
//! find the other's batch isolated. Deterministic: one coroutine runs at a
//! time, chosen by clock, then task number. The price (docs/FIDELITY.md
//! simplification 2): between two such points an operation is applied
//! whole, so when another resumes, the machine's clock steps back by up to
//! that much and it sees the kernel's timers, statistics flushes and
//! kswapd passes as they were at the later time; each CPU's own clock only
//! moves forward (psi's per-CPU times stay exact). A task that waits for
//! its CPU is runnable for psi: its groups are non-idle on that CPU
//! meanwhile, and a memory stall of the task running there is "some" but
//! not "full" in the groups holding both (crate::psi `psi_runnable_wait`).

use crate::kernel::Kernel;

/// How operations are scheduled (`--schedule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// One at a time, in trace order (the default; the reference suite's).
    #[default]
    Serial,
    /// Tasks side by side on their CPUs (this module).
    Parallel,
}

impl Schedule {
    pub fn parse(s: &str) -> Option<Schedule> {
        match s {
            "serial" => Some(Schedule::Serial),
            "parallel" => Some(Schedule::Parallel),
            _ => None,
        }
    }
}

/// What the scheduler hands a task's coroutine when it resumes it
/// (crate::sim::tasks).
pub enum CoIn {
    /// Run this access operation (a `read`, `write`, `load` or `store`) of
    /// this task.
    Start(mglru_trace::Op, u32),
    /// Go on from the point where the operation paused.
    Go,
}

/// What a task's coroutine hands back when it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoOut {
    /// Paused at a point where others may run (`task_yield_point`); its
    /// clock is where it stopped.
    Paused,
    /// The operation ended.
    Done,
}

pub type TaskYielder = corosensei::Yielder<CoIn, CoOut>;

/// The running coroutine's yielder, kept while its operation runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct YielderRef(pub Option<std::ptr::NonNull<TaskYielder>>);

// SAFETY: the pointer is only followed on the thread that resumed the
// coroutine, while that coroutine runs (it is its own stack's yielder),
// and a simulator with operations in flight is never shared between
// threads while one runs.
unsafe impl Send for YielderRef {}

/// The kernel's "current" state of a task whose operation is paused in
/// the middle (what the kernel keeps in `current` and on the task's own
/// stack): the scheduler runs other tasks meanwhile with its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TaskCtx {
    now: u64,
    current: crate::kernel::Current,
    cpu: usize,
    yielder: YielderRef,
    direct_reclaim: bool,
}

/// The scheduler's clocks (parallel scheduling only).
#[derive(Clone, Debug, Default)]
pub struct SchedState {
    pub mode: Schedule,
    /// When the last operation applied started: no later line starts
    /// earlier.
    pub release: u64,
    /// The latest time any operation has reached (the machine's "now" as
    /// a reader of the results sees it).
    pub horizon: u64,
    /// Per CPU: when the operation running on it ends.
    pub cpu_free: Vec<u64>,
    /// Per task: when its last operation ended.
    pub task_clock: Vec<u64>,
    /// The yielder of the task coroutine running now (none between
    /// operations, and in serial scheduling).
    pub yielder: YielderRef,
    /// A running task operation pauses at its next yield point once its
    /// clock has passed this: the earliest clock of the other operations
    /// in flight, or the earliest start of the next line.
    pub yield_bound: u64,
    /// The current task is inside direct reclaim (`try_to_free_pages`,
    /// `try_to_free_mem_cgroup_pages`); how many tasks are, and the most
    /// that ever were at one moment.
    pub direct_reclaim: bool,
    pub direct_reclaimers: u32,
    pub direct_reclaimers_peak: u32,
    /// Task operations paused inside the kernel (in reclaim, a charge, a
    /// sleep), not between pages: they may hold folios on no list (a
    /// batch they isolated, a page allocated and not yet charged or
    /// added), which `check_invariants` then cannot place.
    pub paused_inside: u32,
    /// Per task: when its sleep on the node's ISOLATED throttle queue ends
    /// (its timeout, or earlier when another reclaimer wakes the queue);
    /// u64::MAX when it is not asleep there. The scheduler reads it as the
    /// sleeper's clock.
    pub wake_at: Vec<u64>,
    /// The tasks asleep on that queue and when each went to sleep.
    pub isolated_waiters: Vec<(u32, u64)>,
    /// Per lruvec (memcg index): the last timed section of its lru_lock,
    /// (start, end, holder: a CPU number or `LOCK_KSWAPD`).
    pub lru_locks: Vec<(u64, u64, u32)>,
}

/// The holder number of kswapd's lru_lock sections.
const LOCK_KSWAPD: u32 = u32::MAX;

/// What the timed lru_lock sections came to (report `cpu.lru_lock`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LruLockStats {
    /// Sections timed.
    pub sections: u64,
    /// Sections that had to wait for another CPU's.
    pub contended: u64,
    /// Time the tasks spun waiting (their system time), ns.
    pub wait_ns: u64,
    /// Time kswapd spun waiting (its CPU time), ns.
    pub kswapd_wait_ns: u64,
}

impl Kernel {
    /// Tasks run side by side (`--schedule parallel`).
    #[inline]
    pub fn parallel(&self) -> bool {
        self.sched.mode == Schedule::Parallel
    }

    /// The latest simulated time reached: `now` when serial; in parallel
    /// the end of the operation that ended last.
    pub fn sim_time(&self) -> u64 {
        self.now.max(self.sched.horizon)
    }

    /// Move the clock to `t`: forward as idle time (timers fire, kswapd
    /// does what falls due); backward only to the start of an operation
    /// that overlaps one applied before it (see the module's text).
    fn sched_set_clock(&mut self, t: u64) {
        if t >= self.now {
            self.wait_until(t);
        } else {
            self.now = t;
        }
    }

    /// Before an operation of `task` (parallel scheduling): its start.
    pub fn sched_task_begin(&mut self, task: u32) {
        let t = task as usize;
        if self.sched.task_clock.len() <= t {
            self.sched.task_clock.resize(t + 1, 0);
        }
        let cpu = self.tasks[t].cpu as usize;
        let ready = self.sched.task_clock[t].max(self.sched.release);
        let start = ready.max(self.sched.cpu_free[cpu]);
        // The CPU is held until the operation ends (sched_task_end): not
        // idle for kswapd's placement meanwhile, even while it is paused.
        self.sched.cpu_free[cpu] = u64::MAX;
        self.sched.release = start;
        self.sched_set_clock(start);
        // Waiting for its CPU, the task was runnable (psi).
        self.psi_runnable_wait(task, cpu, ready, start);
    }

    /// After an operation of `task`: its task and its CPU are free at the
    /// time it reached; the task waits for its next operation (psi idle).
    pub fn sched_task_end(&mut self, task: u32) {
        let t = task as usize;
        let now = self.now;
        self.sched.task_clock[t] = now;
        let cpu = self.tasks[t].cpu as usize;
        self.sched.cpu_free[cpu] = now;
        self.sched.horizon = self.sched.horizon.max(now);
        self.psi_task_stop(task);
    }

    /// A point in a task's operation where, in parallel scheduling, other
    /// tasks may run: between two pages of an access, between two reclaim
    /// batches or lruvecs (where kswapd pauses too, with nothing
    /// isolated), in a reclaim or penalty sleep. If the task's clock has
    /// passed what another operation in flight (or the next line) has
    /// reached, its operation pauses here and the scheduler runs the one
    /// that is furthest behind (crate::sim::tasks). Nothing happens
    /// serially, in kswapd, or outside a task's coroutine.
    #[inline]
    pub(crate) fn task_yield_point(&mut self) {
        if self.sched.yielder.0.is_none() || self.in_kswapd || self.now <= self.sched.yield_bound {
            return;
        }
        self.task_yield(true);
    }

    /// `reclaim_throttle(VMSCAN_THROTTLE_ISOLATED)` of a task in parallel
    /// scheduling: it sleeps on the node's queue until `deadline` (HZ/50
    /// on) or until a reclaimer running at a later moment finds the
    /// isolated count low again and wakes the queue (`too_many_isolated`
    /// → `wake_throttle_isolated`), whichever comes first; the others run
    /// meanwhile. Returns how long it slept.
    pub(crate) fn task_wait_isolated(&mut self, deadline: u64) -> u64 {
        let me = self.current.pid;
        let start = self.now;
        if self.sched.wake_at.len() <= me as usize {
            self.sched.wake_at.resize(me as usize + 1, u64::MAX);
        }
        self.sched.wake_at[me as usize] = deadline;
        self.sched.isolated_waiters.push((me, start));
        self.task_yield(true);
        let wake = std::mem::replace(&mut self.sched.wake_at[me as usize], u64::MAX);
        self.sched.isolated_waiters.retain(|&(t, _)| t != me);
        let slept = wake.saturating_sub(self.now);
        self.sim.task_ns += slept;
        self.wait_until(wake);
        slept
    }

    /// `wake_throttle_isolated`: every task asleep on the ISOLATED queue
    /// since no later than now wakes now.
    pub(crate) fn wake_throttle_isolated(&mut self) {
        let now = self.now;
        let mut woke = false;
        for &(t, since) in &self.sched.isolated_waiters {
            let w = &mut self.sched.wake_at[t as usize];
            if since <= now && now < *w {
                *w = now;
                woke = true;
            }
        }
        if woke {
            // The woken task is now the one furthest behind: the running
            // one pauses at its next yield point.
            self.sched.yield_bound = self.sched.yield_bound.min(now);
        }
    }

    /// Whether lru_lock sections are timed: only where another CPU's work
    /// can overlap this one's in time (tasks in parallel scheduling, kswapd
    /// as a thread beside them), and never on a clock that follows a guest
    /// (`mglru validate`: the tasks' reclaim takes no model time there).
    #[inline]
    pub(crate) fn lru_lock_timed(&self) -> bool {
        if self.cost.tasks_on_external_clock {
            return false;
        }
        let thread = self.kswapd.mode == crate::kswapd::KswapdMode::Thread;
        if self.in_kswapd {
            thread
        } else {
            thread || self.sched.yielder.0.is_some()
        }
    }

    /// The clock lru_lock sections are timed on: kswapd's own in its
    /// thread, else the running task's.
    #[inline]
    pub(crate) fn lock_clock(&self) -> u64 {
        if self.in_kswapd {
            self.kswapd.at.saturating_add(self.kswapd.pass_ns)
        } else {
            self.now
        }
    }

    /// A section of `memcg`'s lruvec lru_lock from `t` (on
    /// `lock_clock`) lasting `hold` ns, held by this CPU (kswapd's own
    /// holder when kswapd runs). The callers place it inside the time
    /// already charged for the work it covers: an isolation from the
    /// clock before its scan was charged, a putback or a batch's drain
    /// ending where that work's time ends. If it overlaps the last section
    /// another CPU holds, it starts when that one ends: the wait is
    /// spinning (`spin_lock_irq`), charged now as the waiter's CPU time (a
    /// task's system time, and inside reclaim memory stall time like the
    /// rest of it; kswapd's CPU time, its pass taking that much longer). A
    /// section of the same CPU follows its last one without waiting. With
    /// `may_yield` (a point where the caller holds nothing a paused task may
    /// not) the task first lets the others that are behind it in time run,
    /// so sections mostly come in time order; kswapd does not pause there.
    /// Only the last section per lruvec is remembered (docs/FIDELITY.md 2).
    pub(crate) fn lru_lock_section(&mut self, memcg: u16, t: u64, hold: u64, may_yield: bool) {
        if !self.lru_lock_timed() {
            return;
        }
        if may_yield {
            self.task_yield_point();
        }
        let me = if self.in_kswapd { LOCK_KSWAPD } else { self.cpu as u32 };
        let m = memcg as usize;
        if self.sched.lru_locks.len() <= m {
            self.sched.lru_locks.resize(m + 1, (0, 0, 0));
        }
        let (since, until, holder) = self.sched.lru_locks[m];
        let overlaps = t < until && t.saturating_add(hold) > since;
        let start = if overlaps { until } else { t };
        self.sim.lru_lock.sections += 1;
        if overlaps && holder != me {
            let wait = until - t;
            self.sim.lru_lock.contended += 1;
            if self.in_kswapd {
                // Spinning is CPU time of the pass; the pages the pass
                // freed are not marked as available any earlier for it
                // (kswapd_spend would mark them here, before the batch's
                // shrink work still to be charged).
                self.sim.lru_lock.kswapd_wait_ns += wait;
                self.sim.kswapd_ns += wait;
                self.kswapd.pass_ns += wait;
            } else {
                self.sim.lru_lock.wait_ns += wait;
                self.spend_cpu(wait, true);
            }
        }
        // A section wholly before the remembered one (out of time order)
        // leaves it as the last.
        if start >= since {
            self.sched.lru_locks[m] = (start, start.saturating_add(hold), me);
        }
    }

    /// The clock by which the scheduler orders task `t`'s paused
    /// operation: when its sleep on a throttle queue ends, if it is
    /// asleep there; else where it paused (`paused`).
    pub(crate) fn sched_clock_of(&self, t: usize, paused: u64) -> u64 {
        match self.sched.wake_at.get(t) {
            Some(&w) if w != u64::MAX => w,
            _ => paused,
        }
    }

    /// `task_yield_point` between two pages of an access, in user space:
    /// the task holds nothing of the kernel's there.
    #[inline]
    pub(crate) fn task_yield_point_user(&mut self) {
        if self.sched.yielder.0.is_none() || self.now <= self.sched.yield_bound {
            return;
        }
        self.task_yield(false);
    }

    #[cold]
    #[inline(never)]
    fn task_yield(&mut self, inside: bool) {
        let y = self.sched.yielder.0.expect("in a coroutine");
        let ctx = self.task_ctx_save();
        self.sched.horizon = self.sched.horizon.max(self.now);
        self.sched.paused_inside += inside as u32;
        // SAFETY: `y` is the yielder of the coroutine running this code
        // (set when it started this operation); it lives as long as the
        // coroutine, which is running.
        let y = unsafe { y.as_ref() };
        // The stores above must be done before another coroutine runs: the
        // kernel's address escapes through an opaque barrier first.
        let _ = std::hint::black_box(self as *mut Kernel);
        let input = y.suspend(CoOut::Paused);
        debug_assert!(matches!(input, CoIn::Go));
        // Other tasks changed the kernel while this one was paused; the
        // compiler, which sees only `suspend` between the two, must not
        // assume otherwise (it would drop the restore of fields it just
        // read, `now` among them): the kernel's address goes through an
        // opaque barrier that may have written anything behind it.
        let this = std::hint::black_box(self as *mut Kernel);
        // SAFETY: `this` is `self`.
        unsafe {
            (*this).sched.paused_inside -= inside as u32;
            (*this).task_ctx_restore(ctx);
        }
    }

    /// The current task's kernel state, kept while it is paused; the
    /// kernel is left as between operations (no task inside the kernel).
    fn task_ctx_save(&mut self) -> TaskCtx {
        // The task id stays (the kernel runs on nobody's behalf until the
        // next task's context is restored, as between operations).
        let pid = self.current.pid;
        TaskCtx {
            now: self.now,
            current: std::mem::replace(&mut self.current, crate::kernel::Current { pid, ..Default::default() }),
            cpu: self.cpu,
            yielder: std::mem::take(&mut self.sched.yielder),
            direct_reclaim: std::mem::take(&mut self.sched.direct_reclaim),
        }
    }

    fn task_ctx_restore(&mut self, c: TaskCtx) {
        self.now = c.now;
        self.current = c.current;
        self.cpu = c.cpu;
        self.sched.yielder = c.yielder;
        self.sched.direct_reclaim = c.direct_reclaim;
    }

    /// The current task enters (`true`) or leaves direct reclaim.
    pub(crate) fn sched_direct_reclaim(&mut self, inside: bool) {
        if inside == self.sched.direct_reclaim {
            return;
        }
        self.sched.direct_reclaim = inside;
        if inside {
            self.sched.direct_reclaimers += 1;
            self.sched.direct_reclaimers_peak = self.sched.direct_reclaimers_peak.max(self.sched.direct_reclaimers);
        } else {
            self.sched.direct_reclaimers -= 1;
        }
    }

    /// When an operation of `task` could start: its task, its CPU and the
    /// line above allow it.
    pub(crate) fn sched_ready(&self, task: u32) -> u64 {
        let t = task as usize;
        let tc = self.sched.task_clock.get(t).copied().unwrap_or(0);
        let cpu = self.tasks[t].cpu as usize;
        tc.max(self.sched.release).max(self.sched.cpu_free[cpu])
    }

    /// Before an operation without a task: every earlier one has ended.
    pub fn sched_barrier_begin(&mut self) {
        let start = self.sched.horizon.max(self.sched.release);
        self.sched.release = start;
        self.sched_set_clock(start);
    }

    /// After a barrier: later operations start after it. A barrier that
    /// ran for a task (`advise`, `exit`) leaves it waiting for its next
    /// operation, idle for psi.
    pub fn sched_barrier_end(&mut self) {
        let now = self.now;
        self.sched.horizon = self.sched.horizon.max(now);
        self.sched.release = self.sched.release.max(now);
        if !self.tasks.is_empty() {
            self.psi_task_stop(self.current.pid);
        }
    }
}
