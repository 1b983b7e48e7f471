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
//! Deterministic: operations are applied in trace order, so there is no
//! tie to break. The price (docs/FIDELITY.md simplification 2): each
//! operation is applied whole, as one step — including any reclaim it
//! does — before the next line's operation, which may start earlier on
//! another CPU. The kernel's state (timers, statistics flushes, kswapd's
//! passes) is then seen by that operation as it was when the longer one
//! ended: the machine's clock steps back to the later operation's start,
//! by at most one operation's length; each CPU's own clock only moves
//! forward (psi's per-CPU times stay exact). Two tasks are never inside
//! reclaim at the same moment. A task that waits for its CPU is runnable
//! for psi: its groups are non-idle on that CPU meanwhile, and a memory
//! stall of the task running there is "some" but not "full" in the groups
//! holding both (crate::psi `psi_runnable_wait`).

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
            self.psi_task_stop(self.current);
        }
    }
}
