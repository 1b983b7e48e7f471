// SPDX-License-Identifier: GPL-2.0-only
//! The OOM killer (mm/oom_kill.c, memcg OOM in mm/memcontrol.c).
//!
//! A victim is the task of the constraint domain (the machine, or the
//! memcg whose limit failed) with the highest `oom_badness`: its rss, swap
//! entries and page tables plus `oom_score_adj` thousandths of the memory
//! the domain may use. `oom_score_adj` -1000 takes a task out of the
//! choice. When the victim's memcg, or an ancestor up to the domain, has
//! `memory.oom.group` set, the highest such memcg is killed whole: every
//! task of its subtree but those at -1000 (`oom_kill_memcg_member`).

use crate::kernel::{Kernel, OomKill};
use crate::memcontrol::{MemcgEvent, PAGE_COUNTER_MAX, ROOT_MEMCG};
use crate::mm::OOM_SCORE_ADJ_MIN;
use crate::stat::Ev;

/// The kernel's `PAGE_COUNTER_MAX` on a 64-bit machine (`LONG_MAX /
/// PAGE_SIZE`): what an unlimited memory.max adds to `totalpages`.
const KERNEL_PAGE_COUNTER_MAX: u64 = (i64::MAX as u64) / crate::kernel::PAGE_SIZE;

impl Kernel {
    /// `oc->totalpages` (`constrained_alloc`): for a memcg OOM,
    /// `mem_cgroup_get_max` (memory.max plus what swap.max lets it swap,
    /// when swappiness is not 0; at least 1); else all RAM and swap.
    fn oom_totalpages(&self, constraint: Option<u16>) -> u64 {
        let total_swap = self.swap.as_ref().map_or(0, |s| s.nr_pages());
        match constraint {
            Some(m) => {
                let c = &self.memcgs[m as usize];
                let lim = |v: u64| if v == PAGE_COUNTER_MAX { KERNEL_PAGE_COUNTER_MAX } else { v };
                let mut max = lim(c.max);
                // Cgroup v2 has no per-memcg swappiness: vm.swappiness.
                if self.sysctl.swappiness != 0 {
                    max = max.saturating_add(lim(c.swap_max).min(total_swap));
                }
                max.max(1)
            }
            None => {
                let ram: u64 = self.zones.iter().map(|z| z.managed).sum();
                ram + total_swap
            }
        }
    }

    /// `out_of_memory` for the whole machine (`constraint` None) or a
    /// memcg (`mem_cgroup_oom`). Picks the task with the highest
    /// `oom_badness` in the constraint domain (ties: the later task, as
    /// the kernel's `>=` scan does), kills it and frees its memory, and
    /// with it the victim's oom.group. Returns false when there was
    /// nothing to kill.
    pub fn out_of_memory(&mut self, constraint: Option<u16>) -> bool {
        if let Some(m) = constraint {
            // mem_cgroup_out_of_memory (its callers count MEMCG_OOM: the
            // charge path's mem_cgroup_oom and memory_max_write): a kill
            // may have freed enough already.
            if self.mem_cgroup_margin(m) >= 1 {
                return true;
            }
        }
        let domain = constraint.unwrap_or(ROOT_MEMCG);
        let totalpages = self.oom_totalpages(constraint);
        // select_bad_process: chosen_points starts at LONG_MIN.
        let mut chosen: Option<(u32, i64)> = None;
        for (i, t) in self.tasks.iter().enumerate() {
            if !t.alive || !self.memcg_is_descendant(t.memcg, domain) {
                continue;
            }
            let Some(points) = t.oom_points(totalpages) else { continue };
            match chosen {
                Some((_, best)) if points < best => {}
                _ => chosen = Some((i as u32, points)),
            }
        }
        let Some((victim, _)) = chosen else { return false };
        // oom_kill_process: the report (`dump_header`), at most ten in five
        // seconds. For a memcg OOM it prints the memcg's memory.stat
        // (`mem_cgroup_print_oom_meminfo` → `memory_stat_format`), which
        // flushes the memcg's statistics when enough updates are pending;
        // the global report (`__show_mem`) reads node counters only.
        if self.oom_rs.allow(self.now) {
            if let Some(m) = constraint {
                self.mem_cgroup_flush_stats(m);
            }
        }
        // oom_kill_process: the group is looked up before the victim dies.
        let group = self.mem_cgroup_get_oom_group(victim, domain);
        let reason = if constraint.is_some() { "memcg limit" } else { "out of memory" };
        // The members are the group's tasks when the kill starts; the
        // victim among them is still there for the kernel (SIGKILL sent,
        // its mm not yet gone), so the group scan counts it again.
        let members: Vec<u32> = match group {
            Some(g) => (0..self.tasks.len() as u32)
                .filter(|&t| self.tasks[t as usize].alive && self.memcg_is_descendant(self.tasks[t as usize].memcg, g))
                .collect(),
            None => Vec::new(),
        };
        self.oom_kill_task(victim, constraint, reason);
        if let Some(g) = group {
            self.memcg_memory_event(g, MemcgEvent::OomGroupKill);
            for t in members {
                // oom_kill_memcg_member: a task at OOM_SCORE_ADJ_MIN is spared.
                if self.tasks[t as usize].oom_score_adj == OOM_SCORE_ADJ_MIN {
                    continue;
                }
                if t == victim {
                    // __oom_kill_process on the victim again: counted, and
                    // nothing more to do (the model freed it already).
                    let vm = self.tasks[t as usize].memcg;
                    self.ev.add(Ev::OomKill, 1);
                    self.count_memcg(vm, Ev::OomKill, 1);
                    self.memcg_memory_event(vm, MemcgEvent::OomKill);
                    continue;
                }
                if self.tasks[t as usize].alive {
                    self.oom_kill_task(t, constraint, "memcg oom.group");
                }
            }
        }
        true
    }

    /// `mem_cgroup_get_oom_group`: the highest memcg from the victim's up
    /// to the OOM domain with memory.oom.group set (none for a victim in
    /// the root memcg).
    fn mem_cgroup_get_oom_group(&self, victim: u32, domain: u16) -> Option<u16> {
        let mut m = self.tasks[victim as usize].memcg;
        if m == ROOT_MEMCG || !self.memcg_is_descendant(m, domain) {
            return None;
        }
        let mut group = None;
        loop {
            if self.memcgs[m as usize].oom_group {
                group = Some(m);
            }
            if m == domain || m == ROOT_MEMCG {
                return group;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `__oom_kill_process`: count the kill (`OOM_KILL`, the memcg's
    /// oom_kill event), record it and free the task's memory (the oom
    /// reaper and exit_mmap, at once in the model).
    fn oom_kill_task(&mut self, victim: u32, constraint: Option<u16>, reason: &'static str) {
        let vm = self.tasks[victim as usize].memcg;
        self.ev.add(Ev::OomKill, 1);
        self.count_memcg(vm, Ev::OomKill, 1);
        self.memcg_memory_event(vm, MemcgEvent::OomKill);
        self.oom_kills.push(OomKill {
            time_ns: self.now,
            constraint_memcg: constraint,
            victim_task: victim,
            victim_memcg: vm,
            victim_pages: self.tasks[victim as usize].badness(),
            reason,
        });
        self.tasks[victim as usize].killed = true;
        self.task_exit(victim);
    }
}

/// `__ratelimit` with the default state (`DEFAULT_RATELIMIT_INTERVAL` 5 s,
/// `DEFAULT_RATELIMIT_BURST` 10): the window starts at the first call and
/// starts again at the first call after it has passed.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateLimit {
    begin: Option<u64>,
    printed: u32,
}

impl RateLimit {
    const INTERVAL_NS: u64 = 5_000_000_000;
    const BURST: u32 = 10;

    /// Whether a call at `now` may go on.
    pub fn allow(&mut self, now: u64) -> bool {
        let begin = *self.begin.get_or_insert(now);
        if now > begin.saturating_add(Self::INTERVAL_NS) {
            self.begin = Some(now);
            self.printed = 0;
        }
        if self.printed < Self::BURST {
            self.printed += 1;
            true
        } else {
            false
        }
    }
}
