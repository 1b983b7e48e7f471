// SPDX-License-Identifier: GPL-2.0-only
//! Pressure stall information for memory (kernel/sched/psi.c):
//! `/proc/pressure/memory` and each memcg's `memory.pressure`.
//!
//! A task is in a memory stall between `psi_memstall_enter` and
//! `psi_memstall_leave`, which 6.12 calls around direct reclaim
//! (`__alloc_pages_direct_reclaim`), memcg limit reclaim
//! (`try_charge_memcg`, `reclaim_high`), the memory.high penalty sleep,
//! kswapd's `balance_pgdat`, and the reads of refaulting workingset folios
//! (`filemap_read_folio`, `folio_wait_bit_common`, `swap_read_folio`).
//! psi keeps per CPU and per group (the system, and each cgroup for the
//! tasks below it) the time spent with at least one task stalled ("some"),
//! with every non-idle task stalled ("full") and with any task non-idle.
//! Every PSI_FREQ (2 s + 1 jiffy) a worker folds the CPUs' times into the
//! group's totals, weighting each CPU by its non-idle jiffies, and updates
//! the 10 s / 60 s / 300 s running averages (the load-average formula
//! with EXP_10s, EXP_60s, EXP_300s); it stops while the group is idle and
//! is started again, PSI_FREQ later, by the next state change.
//!
//! The model follows that arithmetic and timing exactly, per CPU. Serially
//! (the default schedule) its tasks run one at a time (docs/FIDELITY.md
//! simplification 2), so the only non-idle task of a group is the one
//! running, and "full" equals "some"; with `--schedule parallel` tasks on
//! other CPUs are non-idle at once, and a task waiting for its CPU is
//! runnable (`psi_runnable_wait`). kswapd's stall (kswapd is a task of the
//! root cgroup) counts in `--kswapd thread`, turn by turn
//! (`psi_kswapd_stall`); in the default mode its reclaim takes no
//! simulated time (docs/FIDELITY.md simplification 27).
//! Time passes for the running task when its operations cost time (the cost
//! model) or when the clock follows a guest's; a trace's `sleep` is idle.

use crate::kernel::{Kernel, NSEC_PER_JIFFY};
use crate::memcontrol::ROOT_MEMCG;

/// `PSI_FREQ` in ns: 2 s and one jiffy.
pub const PSI_PERIOD_NS: u64 = (2 * crate::kernel::HZ + 1) * NSEC_PER_JIFFY;
/// `FSHIFT`, `FIXED_1`: the load average's fixed point.
const FSHIFT: u32 = 11;
const FIXED_1: u64 = 1 << FSHIFT;
/// `1/exp(2s/10s)`, `1/exp(2s/60s)`, `1/exp(2s/300s)` in fixed point.
const EXP: [u64; 3] = [1677, 1981, 2034];

/// What the running task is doing, for psi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PsiState {
    /// No task runs (before the first operation, in a `sleep`).
    Idle,
    /// The task runs (or waits for I/O) without a memory stall.
    Busy,
    /// The task is in a memory stall.
    Memstall,
}

/// Time a CPU spent in each state since the last collection.
#[derive(Clone, Copy, Debug, Default)]
struct CpuTimes {
    some: u64,
    full: u64,
    nonidle: u64,
}

impl CpuTimes {
    /// `dt` ns of a non-idle task, stalled or not. One task runs at a time:
    /// the stalled task is the only non-idle one of each of its groups, so
    /// some and full agree (simplification 2).
    fn add(&mut self, dt: u64, stall: bool) {
        self.nonidle += dt;
        if stall {
            self.some += dt;
            self.full += dt;
        }
    }
}

/// `struct psi_group`, memory states only, with the averages' aggregator.
#[derive(Clone, Debug)]
pub struct PsiGroup {
    /// `total[PSI_AVGS][PSI_MEM_SOME/FULL]` in ns.
    pub total: [u64; 2],
    /// `avg[PSI_MEM_SOME/FULL][10s, 60s, 300s]` in FIXED_1 units of percent.
    pub avg: [[u64; 3]; 2],
    avg_total: [u64; 2],
    avg_last_update: u64,
    avg_next_update: u64,
    /// When the queued averaging work runs (`delayed_work_pending`).
    work_at: Option<u64>,
    cpus: Vec<CpuTimes>,
}

impl PsiGroup {
    /// `group_init` at time `now`.
    pub fn new(now: u64, nr_cpus: usize) -> PsiGroup {
        PsiGroup {
            total: [0; 2],
            avg: [[0; 3]; 2],
            avg_total: [0; 2],
            avg_last_update: now,
            avg_next_update: now + PSI_PERIOD_NS,
            work_at: None,
            cpus: vec![CpuTimes::default(); nr_cpus],
        }
    }

    /// `collect_percpu_times`: fold the CPUs' times since the last call into
    /// the totals, each CPU weighted by its non-idle jiffies (a CPU with less
    /// than a jiffy of activity counts for nothing). True if any CPU was
    /// non-idle (the work then re-arms itself).
    fn collect(&mut self) -> bool {
        let mut deltas = [0u128; 2];
        let mut nonidle_total = 0u64;
        let mut active = false;
        for c in self.cpus.iter_mut() {
            let nonidle = c.nonidle / NSEC_PER_JIFFY;
            active |= c.nonidle > 0;
            nonidle_total += nonidle;
            deltas[0] += c.some as u128 * nonidle as u128;
            deltas[1] += c.full as u128 * nonidle as u128;
            *c = CpuTimes::default();
        }
        for s in 0..2 {
            self.total[s] += (deltas[s] / nonidle_total.max(1) as u128) as u64;
        }
        active
    }

    /// What the averaging work and a read of the file both do at `now`:
    /// collect, and update the averages if their time has come. True if
    /// any CPU was non-idle.
    fn sample(&mut self, now: u64) -> bool {
        let active = self.collect();
        if now >= self.avg_next_update {
            self.avg_next_update = self.update_averages(now);
        }
        active
    }

    /// `update_averages` at `now`; returns the next update time.
    fn update_averages(&mut self, now: u64) -> u64 {
        let expires = self.avg_next_update;
        let missed = if now - expires >= PSI_PERIOD_NS { (now - expires) / PSI_PERIOD_NS } else { 0 };
        let next = expires + (1 + missed) * PSI_PERIOD_NS;
        let period = now - (self.avg_last_update + missed * PSI_PERIOD_NS);
        self.avg_last_update = now;
        for s in 0..2 {
            // Samples above the period (time that slipped from the last
            // one) are cut to it and the rest carried into the next.
            let sample = (self.total[s] - self.avg_total[s]).min(period);
            self.avg_total[s] += sample;
            calc_avgs(&mut self.avg[s], missed, sample, period);
        }
        next
    }

    /// The two lines of `memory.pressure` as psi_show prints them.
    pub fn show(&self) -> String {
        let mut out = String::new();
        for (s, name) in ["some", "full"].iter().enumerate() {
            let a = self.avg[s];
            out.push_str(&format!(
                "{name} avg10={} avg60={} avg300={} total={}\n",
                load_text(a[0]),
                load_text(a[1]),
                load_text(a[2]),
                self.total[s] / 1000
            ));
        }
        out
    }

    /// An average as the percentage psi_show prints, e.g. 12.34.
    pub fn avg_percent(&self, full: bool, window: usize) -> f64 {
        let a = self.avg[full as usize][window];
        (a >> FSHIFT) as f64 + (((a & (FIXED_1 - 1)) * 100) >> FSHIFT) as f64 / 100.0
    }
}

/// `LOAD_INT.LOAD_FRAC` with two decimals.
fn load_text(a: u64) -> String {
    format!("{}.{:02}", a >> FSHIFT, ((a & (FIXED_1 - 1)) * 100) >> FSHIFT)
}

/// `calc_load`: one step of the exponential average.
fn calc_load(load: u64, exp: u64, active: u64) -> u64 {
    let mut newload = load * exp + active * (FIXED_1 - exp);
    if active >= load {
        newload += FIXED_1 - 1;
    }
    newload / FIXED_1
}

/// `fixed_power_int(x, FSHIFT, n)`: x^n in fixed point, rounding each step.
fn fixed_power_int(mut x: u64, mut n: u64) -> u64 {
    let mut result = FIXED_1;
    while n > 0 {
        if n & 1 == 1 {
            result = (result * x + (1 << (FSHIFT - 1))) >> FSHIFT;
        }
        n >>= 1;
        if n == 0 {
            break;
        }
        x = (x * x + (1 << (FSHIFT - 1))) >> FSHIFT;
    }
    result
}

/// `calc_avgs`: decay over the missed (idle) periods, then take the
/// sample's share of its period.
fn calc_avgs(avg: &mut [u64; 3], missed: u64, time: u64, period: u64) {
    if missed > 0 {
        // calc_load_n's exponent is an unsigned int in the kernel.
        let n = missed.min(u32::MAX as u64);
        for (a, &e) in avg.iter_mut().zip(EXP.iter()) {
            *a = calc_load(*a, fixed_power_int(e, n), 0);
        }
    }
    let pct = (time as u128 * 100 / period.max(1) as u128) as u64 * FIXED_1;
    for (a, &e) in avg.iter_mut().zip(EXP.iter()) {
        *a = calc_load(*a, e, pct);
    }
}

/// What one CPU is doing for psi: the task on it (if not idle), its state
/// and `psi_memstall_enter` nesting, and when that state began.
#[derive(Clone, Copy, Debug)]
pub struct PsiCpu {
    pub task: u32,
    pub state: PsiState,
    /// `psi_memstall_enter` nesting of the task on this CPU.
    pub memstall_depth: u32,
    /// When the CPU's current state began (not yet accounted). Each CPU's
    /// marks only move forward: its operations never overlap
    /// (crate::sched).
    mark: u64,
}

/// The psi state of the machine: a group per memcg (index = memcg id; the
/// root's is the system's, `/proc/pressure/memory`), and what each CPU has
/// been doing since its mark.
#[derive(Clone, Debug)]
pub struct Psi {
    pub groups: Vec<PsiGroup>,
    pub cpus: Vec<PsiCpu>,
    /// Parallel scheduling: per CPU, its recent memory stalls (start, end,
    /// task; end u64::MAX while it lasts), for a task found later to have
    /// waited for that CPU meanwhile (`psi_runnable_wait`).
    stalls: Vec<Vec<(u64, u64, u32)>>,
    /// The earliest queued averaging work (u64::MAX if none). psi's works
    /// are kept apart from the kernel's timers so that a sleeper woken by
    /// "the next event" (reclaim_throttle) is not woken by them.
    pub next_work: u64,
}

impl Psi {
    pub fn new(nr_cpus: usize) -> Psi {
        Psi {
            groups: vec![PsiGroup::new(0, nr_cpus)],
            cpus: vec![PsiCpu { task: 0, state: PsiState::Idle, memstall_depth: 0, mark: 0 }; nr_cpus],
            stalls: vec![Vec::new(); nr_cpus],
            next_work: u64::MAX,
        }
    }
}

impl Kernel {
    /// A new memcg's group (`psi_cgroup_alloc` → `group_init`).
    pub fn psi_group_init(&mut self, memcg: u16) {
        debug_assert_eq!(memcg as usize, self.psi.groups.len());
        let g = PsiGroup::new(self.now, self.cpus.len());
        self.psi.groups.push(g);
    }

    /// The CPU of the running task (`self.current.pid`): psi's state changes
    /// happen there (not on `self.cpu`, which is kswapd's while kswapd runs
    /// in the middle of the task's time).
    fn psi_cur_cpu(&self) -> usize {
        self.tasks.get(self.current.pid as usize).map_or(0, |t| t.cpu as usize)
    }

    /// Account CPU `c`'s time since its last change to the groups of the
    /// task on it (its memcg and every ancestor up to the system's).
    fn psi_settle_cpu(&mut self, c: usize) {
        let pc = self.psi.cpus[c];
        let dt = self.now.saturating_sub(pc.mark);
        self.psi.cpus[c].mark = self.now.max(pc.mark);
        if dt == 0 || pc.state == PsiState::Idle || self.tasks.is_empty() {
            return;
        }
        let stall = pc.state == PsiState::Memstall;
        let mut m = self.tasks[pc.task as usize].memcg;
        loop {
            self.psi.groups[m as usize].cpus[c].add(dt, stall);
            if m == ROOT_MEMCG {
                break;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// Account every non-idle CPU up to now (before the averages are taken).
    fn psi_settle_all(&mut self) {
        for c in 0..self.psi.cpus.len() {
            if self.psi.cpus[c].state != PsiState::Idle {
                self.psi_settle_cpu(c);
            }
        }
    }

    /// A task state change in the groups of `task` (`psi_group_change`
    /// with `wake_clock`): start a group's averaging work if it is idle.
    fn psi_state_change(&mut self, task: u32) {
        if self.tasks.is_empty() {
            return;
        }
        let mut m = self.tasks[task as usize].memcg;
        loop {
            if self.psi.groups[m as usize].work_at.is_none() {
                // schedule_delayed_work(..., PSI_FREQ)
                self.psi_queue_work(m, self.now.saturating_add(PSI_PERIOD_NS));
            }
            if m == ROOT_MEMCG {
                break;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// CPU `c` moves to `state` (running `task` unless idle).
    fn psi_cpu_set(&mut self, c: usize, task: u32, state: PsiState) {
        let pc = self.psi.cpus[c];
        if state == pc.state && (state == PsiState::Idle || task == pc.task) {
            return;
        }
        self.psi_settle_cpu(c);
        if pc.state != PsiState::Idle {
            self.psi_state_change(pc.task);
        }
        self.psi_note_stall(c, pc.state, state, task);
        self.psi.cpus[c].state = state;
        if state != PsiState::Idle {
            if task != pc.task || pc.state == PsiState::Idle {
                self.psi.cpus[c].memstall_depth = 0;
            }
            self.psi.cpus[c].task = task;
            self.psi_state_change(task);
        }
    }

    /// The running task (`self.current.pid`) moves to `state`.
    pub fn psi_set_state(&mut self, state: PsiState) {
        let c = self.psi_cur_cpu();
        let pc = self.psi.cpus[c];
        if pc.state == PsiState::Idle && state == PsiState::Idle {
            return;
        }
        let state = if state == PsiState::Busy && pc.memstall_depth > 0 { PsiState::Memstall } else { state };
        if state == pc.state {
            return;
        }
        self.psi_settle_cpu(c);
        self.psi_note_stall(c, pc.state, state, self.current.pid);
        self.psi.cpus[c].state = state;
        self.psi.cpus[c].task = self.current.pid;
        self.psi_state_change(self.current.pid);
    }

    /// The task about to run is `task`. Serially scheduled (the default),
    /// the previous task stops: one task runs at a time. In parallel
    /// (crate::sched) the other CPUs go on; the caller makes a CPU idle
    /// when its task's operation ends (`psi_task_stop`).
    #[inline]
    pub fn psi_switch_to(&mut self, task: u32) {
        let c = self.tasks[task as usize].cpu as usize;
        if task == self.current.pid && self.psi.cpus[c].state != PsiState::Idle && self.psi.cpus[c].task == task {
            return;
        }
        self.psi_switch_cpu(task, c);
    }

    /// `psi_switch_to` when `task` is not already running on its CPU `c`.
    fn psi_switch_cpu(&mut self, task: u32, c: usize) {
        if !self.parallel() {
            let prev = self.psi_cur_cpu();
            if prev != c && self.psi.cpus[prev].state != PsiState::Idle {
                self.psi_cpu_set(prev, 0, PsiState::Idle);
            }
        }
        let pc = self.psi.cpus[c];
        self.psi_settle_cpu(c);
        if pc.state != PsiState::Idle {
            self.psi_state_change(pc.task);
        }
        self.current.pid = task;
        self.psi_note_stall(c, pc.state, PsiState::Busy, task);
        self.psi.cpus[c] = PsiCpu { task, state: PsiState::Busy, memstall_depth: 0, mark: self.psi.cpus[c].mark };
        self.psi_state_change(task);
    }

    /// Parallel scheduling: keep CPU `c`'s memory stalls (a state change
    /// from `old` to `new` now) while a task may still turn out to have
    /// waited for the CPU during them; older ones are dropped.
    fn psi_note_stall(&mut self, c: usize, old: PsiState, new: PsiState, task: u32) {
        if !self.parallel() || old == new {
            return;
        }
        let now = self.now;
        let st = &mut self.psi.stalls[c];
        if old == PsiState::Memstall {
            if let Some(last) = st.last_mut().filter(|l| l.1 == u64::MAX) {
                last.1 = now.max(last.0);
            }
        }
        if new == PsiState::Memstall {
            // No later operation starts before the last one released.
            let horizon = self.sched.release;
            st.retain(|l| l.1 > horizon);
            st.push((now, u64::MAX, task));
        }
    }

    /// Parallel scheduling: `task` was ready at `ready` but its CPU `c` was
    /// busy until `start`. psi counts a runnable task (`NR_RUNNING`): in
    /// every group holding it, the CPU was non-idle all that time, and a
    /// memory stall of another task on the CPU then was not "full" in the
    /// groups holding both (`PSI_MEM_FULL` needs every running task
    /// stalled). The stalls were accounted when they happened, so their full
    /// time is taken back now (from the times not yet collected; a period's
    /// averaging in between keeps what it took).
    pub fn psi_runnable_wait(&mut self, task: u32, c: usize, ready: u64, start: u64) {
        if start <= ready || self.tasks.is_empty() {
            return;
        }
        let mine = self.tasks[task as usize].memcg;
        let stalls = self.psi.stalls[c].clone();
        // Full time taken back, per group.
        for &(a, b, t) in &stalls {
            let b = if b == u64::MAX { self.now.max(a) } else { b };
            let ov = b.min(start).saturating_sub(a.max(ready));
            if ov == 0 || t == task {
                continue;
            }
            let mut m = self.tasks[t as usize].memcg;
            loop {
                if self.memcg_is_descendant(mine, m) {
                    let ct = &mut self.psi.groups[m as usize].cpus[c];
                    ct.full = ct.full.saturating_sub(ov);
                }
                if m == ROOT_MEMCG {
                    break;
                }
                m = self.memcgs[m as usize].parent;
            }
        }
        // Non-idle time of the groups that hold the waiting task but not
        // the one running meanwhile (the running task's own groups counted
        // it already). The running task is the CPU's last.
        let running = self.psi.cpus[c].task;
        let theirs = self.tasks.get(running as usize).map_or(ROOT_MEMCG, |t| t.memcg);
        let mut m = mine;
        let mut woke = false;
        loop {
            if !self.memcg_is_descendant(theirs, m) {
                self.psi.groups[m as usize].cpus[c].nonidle += start - ready;
                woke = true;
            }
            if m == ROOT_MEMCG {
                break;
            }
            m = self.memcgs[m as usize].parent;
        }
        if woke {
            self.psi_state_change(task);
        }
    }

    /// A pass of kswapd's balance_pgdat (`--kswapd thread`) took `dur` on
    /// CPU `c`, all of it inside psi_memstall_enter: kswapd is a task of the
    /// root cgroup, so only the system's pressure sees it. It is "some"; it
    /// is also "full" unless a task was running there without a stall
    /// (`PSI_MEM_FULL`: every running task stalled; the stall of a running
    /// reclaimer is `TSK_MEMSTALL_RUNNING`); an otherwise idle CPU becomes
    /// non-idle for it. The pass is accounted when it is applied, against
    /// the state of its CPU then (docs/FIDELITY.md simplification 27).
    pub fn psi_kswapd_stall(&mut self, c: usize, dur: u64) {
        if dur == 0 {
            return;
        }
        let state = self.psi.cpus[c].state;
        let ct = &mut self.psi.groups[ROOT_MEMCG as usize].cpus[c];
        ct.some += dur;
        match state {
            PsiState::Idle => {
                ct.full += dur;
                ct.nonidle += dur;
            }
            PsiState::Memstall => ct.full += dur,
            PsiState::Busy => {}
        }
        if self.psi.groups[ROOT_MEMCG as usize].work_at.is_none() {
            self.psi_queue_work(ROOT_MEMCG, self.now.saturating_add(PSI_PERIOD_NS));
        }
    }

    /// `task`'s operation is over and it waits for its next one (parallel
    /// scheduling): its CPU goes idle.
    pub fn psi_task_stop(&mut self, task: u32) {
        let c = self.tasks[task as usize].cpu as usize;
        if self.psi.cpus[c].state != PsiState::Idle && self.psi.cpus[c].task == task {
            self.psi_cpu_set(c, task, PsiState::Idle);
        }
    }

    /// The CPU `task` is on for psi, if it is not idle there.
    fn psi_cpu_of(&self, task: u32) -> Option<usize> {
        let c = self.tasks[task as usize].cpu as usize;
        let pc = self.psi.cpus[c];
        (pc.state != PsiState::Idle && pc.task == task).then_some(c)
    }

    /// A task about to move to another memcg (`cgroup_move_task`): if it
    /// is not idle, its time so far goes to its old groups, which see it
    /// leave.
    pub(crate) fn psi_task_move_begin(&mut self, task: u32) {
        if let Some(c) = self.psi_cpu_of(task) {
            self.psi_settle_cpu(c);
            self.psi_state_change(task);
        }
    }

    /// The task moved: its new groups see it arrive.
    pub(crate) fn psi_task_move_end(&mut self, task: u32) {
        if self.psi_cpu_of(task).is_some() {
            self.psi_state_change(task);
        }
    }

    /// `psi_memstall_enter`.
    pub fn psi_memstall_enter(&mut self) {
        let c = self.psi_cur_cpu();
        self.psi.cpus[c].memstall_depth += 1;
        if self.psi.cpus[c].memstall_depth == 1 && self.psi.cpus[c].state != PsiState::Idle {
            self.psi_set_state(PsiState::Memstall);
        }
    }

    /// `psi_memstall_leave`.
    pub fn psi_memstall_leave(&mut self) {
        let c = self.psi_cur_cpu();
        debug_assert!(self.psi.cpus[c].memstall_depth > 0);
        self.psi.cpus[c].memstall_depth -= 1;
        if self.psi.cpus[c].memstall_depth == 0 && self.psi.cpus[c].state == PsiState::Memstall {
            self.psi_set_state(PsiState::Busy);
        }
    }

    fn psi_queue_work(&mut self, m: u16, at: u64) {
        self.psi.groups[m as usize].work_at = Some(at);
        self.psi.next_work = self.psi.next_work.min(at);
    }

    /// Run every averaging work due now, in memcg order.
    pub(crate) fn psi_run_due_works(&mut self) {
        let now = self.now;
        for m in 0..self.psi.groups.len() {
            if self.psi.groups[m].work_at.is_some_and(|a| a <= now) {
                self.psi.groups[m].work_at = None;
                self.psi_avgs_work(m as u16);
            }
        }
        self.psi.next_work = self.psi.groups.iter().filter_map(|g| g.work_at).min().unwrap_or(u64::MAX);
    }

    /// `psi_avgs_work` of memcg `m`'s group, due now.
    fn psi_avgs_work(&mut self, m: u16) {
        self.psi_settle_all();
        let now = self.now;
        let g = &mut self.psi.groups[m as usize];
        let active = g.sample(now);
        if active {
            // schedule_delayed_work(nsecs_to_jiffies(next - now) + 1)
            let delay = ((g.avg_next_update - now) / NSEC_PER_JIFFY + 1) * NSEC_PER_JIFFY;
            g.work_at = Some(now + delay);
        }
    }

    /// What reading `memory.pressure` of `memcg` now would show, without
    /// changing the model: a copy of the group with the running task's
    /// time so far, collected and, if due, averaged.
    pub fn psi_read(&self, memcg: u16) -> PsiGroup {
        let mut g = self.psi.groups[memcg as usize].clone();
        for (c, pc) in self.psi.cpus.iter().enumerate() {
            let dt = self.now.saturating_sub(pc.mark);
            if dt > 0 && pc.state != PsiState::Idle && !self.tasks.is_empty() {
                let task_memcg = self.tasks[pc.task as usize].memcg;
                if self.memcg_is_descendant(task_memcg, memcg) {
                    g.cpus[c].add(dt, pc.state == PsiState::Memstall);
                }
            }
        }
        g.sample(self.now);
        g
    }

    /// Reading `memory.pressure` of `memcg` (the root's is
    /// `/proc/pressure/memory`) now, as `psi_show` does: collect, and
    /// update the averages if their time has come.
    pub fn psi_show(&mut self, memcg: u16) -> String {
        self.psi_settle_all();
        let now = self.now;
        let g = &mut self.psi.groups[memcg as usize];
        g.sample(now);
        g.show()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_average_steps_follow_the_kernel_formula() {
        // A full period at 100 %: pct = 100 × 2048 = 204,800.
        // avg10 = (0 × 1677 + 204,800 × 371 + 2047) / 2048 = 37,100.
        let mut a = [0u64; 3];
        calc_avgs(&mut a, 0, 2_000, 2_000);
        assert_eq!(a[0], (204_800 * 371 + 2047) / 2048);
        assert_eq!(load_text(a[0]), "18.11");
        // x^0 = 1.0; x^1 = x; x^2 = round(x·x).
        assert_eq!(fixed_power_int(1677, 0), 2048);
        assert_eq!(fixed_power_int(1677, 1), 1677);
        assert_eq!(fixed_power_int(1677, 2), (1677 * 1677 + 1024) >> 11);
    }

    const P: u64 = PSI_PERIOD_NS; // 501 jiffies = 2,004,000,000 ns

    #[test]
    fn one_second_of_stall_in_the_first_period() {
        let mut g = PsiGroup::new(0, 1);
        g.cpus[0] = CpuTimes { some: 1_000_000_000, full: 1_000_000_000, nonidle: 2_000_000_000 };
        assert!(g.collect());
        assert_eq!(g.total, [1_000_000_000; 2]);
        // The work at P: no missed period, period = P - 0.
        // pct = 1e9 × 100 / 2.004e9 = 49 → 49 × 2048 = 100,352;
        // avg10 = (100,352 × 371 + 2047) / 2048 = 18,179 → 8.87 %;
        // avg60 = (100,352 × 67 + 2047) / 2048 = 3,283 → 1.60 %;
        // avg300 = (100,352 × 14 + 2047) / 2048 = 686 → 0.33 %.
        let next = g.update_averages(P);
        assert_eq!(next, 2 * P);
        assert_eq!(g.avg[0], [18_179, 3_283, 686]);
        assert_eq!(g.avg[1], g.avg[0]);
        assert_eq!(g.show(), "some avg10=8.87 avg60=1.60 avg300=0.33 total=1000000\nfull avg10=8.87 avg60=1.60 avg300=0.33 total=1000000\n");
    }

    #[test]
    fn cpus_are_weighted_by_their_nonidle_jiffies() {
        let mut g = PsiGroup::new(0, 3);
        // CPU 0: 500 jiffies non-idle, 1 s stalled; CPU 1: 250 jiffies,
        // no stall; CPU 2: 3 ms non-idle (0 jiffies) and 3 ms stalled.
        g.cpus[0] = CpuTimes { some: 1_000_000_000, full: 0, nonidle: 2_000_000_000 };
        g.cpus[1] = CpuTimes { some: 0, full: 0, nonidle: 1_000_000_000 };
        g.cpus[2] = CpuTimes { some: 3_000_000, full: 3_000_000, nonidle: 3_000_000 };
        g.collect();
        // some: (1e9 × 500 + 0 × 250 + 3e6 × 0) / 750 = 666,666,666.
        assert_eq!(g.total, [666_666_666, 0]);
        // A CPU with less than a jiffy of activity alone: nothing counts.
        g.cpus[0] = CpuTimes { some: 3_000_000, full: 3_000_000, nonidle: 3_999_999 };
        g.collect();
        assert_eq!(g.total, [666_666_666, 0]);
    }

    #[test]
    fn idle_periods_decay_the_averages() {
        let mut g = PsiGroup::new(0, 1);
        g.cpus[0] = CpuTimes { some: P, full: P, nonidle: P };
        g.collect();
        g.avg_next_update = g.update_averages(P);
        assert_eq!(g.avg_next_update, 2 * P);
        // 100 %: pct = 204,800; avg10 = (204,800 × 371 + 2047) / 2048 = 37,100.
        assert_eq!(g.avg[0][0], 37_100);
        // The next reading at 11P with nothing new: expires = 2P, so
        // missed = 9 periods, decayed by EXP_10s^9; then a 0 % sample over
        // the period 11P - (P + 9P) = P. Ten steps of e^-0.2 in all:
        // 37,100 × e^-2 ≈ 5,021 (the fixed point's rounding gives 5,012).
        let next = g.update_averages(11 * P);
        assert_eq!(next, 12 * P);
        let decayed = calc_load(37_100, fixed_power_int(1677, 9), 0);
        assert_eq!(g.avg[0][0], calc_load(decayed, 1677, 0));
        assert_eq!(g.avg[0][0], 5_012);
    }
}
