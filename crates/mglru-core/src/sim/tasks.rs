// SPDX-License-Identifier: GPL-2.0-only
//! Tasks side by side in simulated time (`--schedule parallel`): each
//! task's access lines run in a coroutine of its own, which pauses at the
//! points where the kernel may let another CPU's task run meanwhile
//! (`Kernel::task_yield_point`: between pages, between reclaim batches and
//! lruvecs, in reclaim and penalty sleeps) once its clock has passed the
//! clock of another operation in flight. The scheduler then resumes the
//! operation that is furthest behind (the lowest clock; a tie goes to the
//! lower task number), so two tasks' direct reclaim, each with its own
//! scan_control on its coroutine's stack, interleave batch by batch.
//!
//! Lines are still handed out in trace order (crate::sched): a line starts
//! at the latest of its task's clock, its CPU's free time and the start of
//! the line above; before it starts, every operation in flight whose clock
//! is behind that start runs up to it, and an operation of the same task or
//! on the same CPU runs to its end. Every line that is not an access is a
//! barrier: all operations in flight end first. Deterministic: only one
//! coroutine runs at a time and the order is a function of the clocks.
//!
//! The coroutines share the one kernel: a paused operation keeps its
//! task's kernel state (`TaskCtx`) on its own stack and the kernel is left
//! as between operations while others run.

use corosensei::stack::DefaultStack;
use std::ptr::NonNull;

use corosensei::{Coroutine, CoroutineResult};
use mglru_trace::Op;

use super::Simulator;
use crate::kernel::Kernel;
use crate::sched::{CoIn, CoOut, YielderRef};

/// A coroutine's stack. The model's deepest calls (a fault that reclaims
/// and walks page tables) use well under 100 KiB; the rest is reserve.
const STACK_BYTES: usize = 2 << 20;

/// The most tasks with a coroutine at once (`--schedule parallel`; a
/// task's is made at its first access and dropped when it exits). Each
/// stack is two of the process's memory mappings (the stack and its guard
/// page), and Linux's vm.max_map_count (65530 by default) bounds those:
/// without this limit the 32,744th failed with "Cannot allocate memory".
/// Host memory: 2 MiB of address space per stack, of which only the pages
/// used are resident.
pub const MAX_PARALLEL_TASKS: usize = 32_000;

type TaskCoroutine = Coroutine<CoIn, CoOut, (), DefaultStack>;

struct TaskCoro {
    co: TaskCoroutine,
    /// Where it paused (while its task is in `TaskCoros::busy`).
    clock: u64,
    /// The CPU it holds.
    cpu: usize,
}

/// The tasks' coroutines, made the first time each task runs an access.
#[derive(Default)]
pub(super) struct TaskCoros {
    coros: Vec<Option<TaskCoro>>,
    /// The tasks with an operation in flight (at most one per CPU).
    busy: Vec<usize>,
    /// The coroutines in `coros` (at most MAX_PARALLEL_TASKS).
    live: usize,
}

// SAFETY: a coroutine's stack holds only the kernel's state (references
// into the boxed Kernel, which is Send, and plain values); nothing on it
// is tied to the thread that made it.
unsafe impl Send for TaskCoros {}

impl TaskCoros {
    /// Drop task `t`'s coroutine (the task exited; nothing is in flight).
    pub(super) fn forget(&mut self, t: usize) {
        debug_assert!(!self.busy.contains(&t));
        if let Some(c) = self.coros.get_mut(t) {
            if c.take().is_some() {
                self.live -= 1;
            }
        }
    }

    /// The operation in flight that is furthest behind, other than
    /// `except`: (clock, task). A task asleep on a throttle queue counts
    /// at its wake-up time.
    fn earliest(&self, k: &Kernel, except: Option<usize>) -> Option<(u64, usize)> {
        self.busy
            .iter()
            .filter(|&&t| Some(t) != except)
            .map(|&t| (k.sched_clock_of(t, self.coros[t].as_ref().map_or(0, |c| c.clock)), t))
            .min()
    }
}

/// The simulator's kernel, on the heap at an address that never changes
/// while it lives. A raw pointer, not a `Box` field: the coroutines of
/// operations in flight reach the kernel through it while the scheduler
/// holds the simulator, so no reference the scheduler takes may outlive a
/// resume (the compiler would otherwise assume a resumed coroutine leaves
/// the kernel alone).
pub(super) struct KernelBox(NonNull<Kernel>);

// SAFETY: it owns its Kernel as a Box would; Kernel is Send.
unsafe impl Send for KernelBox {}

impl KernelBox {
    pub(super) fn new(k: Kernel) -> KernelBox {
        KernelBox(NonNull::from(Box::leak(Box::new(k))))
    }

    #[inline(always)]
    pub(super) fn get(&self) -> &Kernel {
        // SAFETY: owned, alive until drop; no coroutine runs while the
        // caller holds this (they run only inside `resume`).
        unsafe { self.0.as_ref() }
    }

    #[inline(always)]
    pub(super) fn get_mut(&mut self) -> &mut Kernel {
        // SAFETY: as `get`.
        unsafe { self.0.as_mut() }
    }

    fn ptr(&self) -> *mut Kernel {
        self.0.as_ptr()
    }
}

impl Drop for KernelBox {
    fn drop(&mut self) {
        // SAFETY: made by Box::leak in `new`, dropped once.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

impl Simulator {
    fn kernel_ref(&self) -> &Kernel {
        self.kernel.as_ref().expect("the kernel is built before any operation").get()
    }

    /// Resume task `t`'s paused operation until it pauses again past
    /// `bound` (or past the clock of another operation in flight), or ends.
    fn par_resume(&mut self, t: usize, bound: u64) {
        let k = self.kernel.as_mut().expect("kernel").get_mut();
        let others = self.coros.earliest(k, Some(t)).map_or(u64::MAX, |(c, _)| c);
        k.sched.yield_bound = bound.min(others);
        let c = self.coros.coros[t].as_mut().expect("a coroutine in flight");
        let r = c.co.resume(CoIn::Go);
        self.par_stopped(t, r);
    }

    /// After task `t`'s coroutine stopped with `r`.
    fn par_stopped(&mut self, t: usize, r: CoroutineResult<CoOut, ()>) {
        // The coroutine changed the kernel through its own pointer: an
        // opaque barrier on the kernel's address (see `Kernel::task_yield`).
        let kp = std::hint::black_box(self.kernel.as_ref().expect("kernel").ptr());
        // SAFETY: the kernel is alive; the coroutine has stopped.
        let k = unsafe { &mut *kp };
        let busy = &mut self.coros.busy;
        match r {
            CoroutineResult::Yield(CoOut::Paused) => {
                if !busy.contains(&t) {
                    busy.push(t);
                }
                self.coros.coros[t].as_mut().expect("a coroutine").clock = k.now;
            }
            CoroutineResult::Yield(CoOut::Done) => busy.retain(|&u| u != t),
            CoroutineResult::Return(()) => unreachable!("a task's coroutine never returns"),
        }
        k.sched.yielder = YielderRef::default();
    }

    /// Run the operation furthest behind one step; false if none is in
    /// flight.
    fn par_step(&mut self, bound: u64) -> bool {
        match self.coros.earliest(self.kernel_ref(), None) {
            Some((_, t)) => {
                self.par_resume(t, bound);
                true
            }
            None => false,
        }
    }

    /// Every operation in flight runs to its end, in time order.
    pub(super) fn par_drain(&mut self) {
        while self.par_step(u64::MAX) {}
    }

    /// An access line of `task` in parallel scheduling.
    pub(super) fn par_access(&mut self, op: &Op, task: u32) -> Result<(), super::SimError> {
        let t = task as usize;
        let cpu = self.kernel_ref().tasks[t].cpu as usize;
        // Its task and its CPU must be free: what holds them ends first
        // (and whatever is further behind runs before it).
        while self.coros.busy.iter().any(|&i| i == t || self.coros.coros[i].as_ref().is_some_and(|c| c.cpu == cpu)) {
            self.par_step(u64::MAX);
        }
        let start = self.kernel_ref().sched_ready(task);
        // Everything in flight catches up with the line's start.
        while let Some((clock, u)) = self.coros.earliest(self.kernel_ref(), None) {
            if clock >= start {
                break;
            }
            self.par_resume(u, start);
        }
        {
            let k = self.kernel.as_mut().expect("kernel").get_mut();
            k.sched_task_begin(task);
            k.kswapd_run_due();
            k.sim.operations += 1;
            k.sim.access_ops += 1;
            // The line pauses at its first yield point once time has
            // passed: the next line may start from here.
            k.sched.yield_bound = start.min(self.coros.earliest(k, None).map_or(u64::MAX, |(c, _)| c));
        }
        if self.coros.coros.len() <= t {
            self.coros.coros.resize_with(t + 1, || None);
        }
        if self.coros.coros[t].is_none() {
            if self.coros.live >= MAX_PARALLEL_TASKS {
                return Err(super::SimError(format!(
                    "--schedule parallel runs at most {MAX_PARALLEL_TASKS} tasks at once (each keeps a coroutine whose stack takes two memory mappings, which vm.max_map_count bounds), and task {task}'s first access would make one more: run the trace with --schedule serial, or let tasks exit before others start"
                )));
            }
            let kp = self.kernel.as_ref().expect("kernel").ptr();
            let stack = DefaultStack::new(STACK_BYTES).map_err(|e| {
                super::SimError(format!(
                    "cannot allocate the stack of task {task}'s coroutine ({} tasks have one): {e}; raise vm.max_map_count, or run with --schedule serial",
                    self.coros.live
                ))
            })?;
            self.coros.live += 1;
            let co = TaskCoroutine::with_stack(stack, move |y, mut input| loop {
                if let CoIn::Start(op, task) = input {
                    // SAFETY: the kernel is boxed and outlives the
                    // coroutines (Simulator drops them first); only one
                    // coroutine or the scheduler uses it at a time.
                    let k = unsafe { &mut *kp };
                    k.sched.yielder = YielderRef(Some(std::ptr::NonNull::from(y)));
                    k.task_access(&op);
                    // Return to user space: memory.high throttling.
                    k.mem_cgroup_handle_over_high();
                    k.sched_task_end(task);
                }
                input = y.suspend(CoOut::Done);
            });
            self.coros.coros[t] = Some(TaskCoro { co, clock: 0, cpu });
        }
        let c = self.coros.coros[t].as_mut().expect("made above");
        c.cpu = cpu;
        let r = c.co.resume(CoIn::Start(op.clone(), task));
        self.par_stopped(t, r);
        Ok(())
    }
}
