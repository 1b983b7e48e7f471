// SPDX-License-Identifier: GPL-2.0-only
//! The OOM killer (mm/oom_kill.c, memcg OOM in mm/memcontrol.c).

use crate::kernel::{Kernel, OomKill};
use crate::memcontrol::{MemcgEvent, ROOT_MEMCG};
use crate::stat::Ev;

impl Kernel {
    /// `out_of_memory` for the whole machine (`constraint` None) or a
    /// memcg (`mem_cgroup_oom`). Picks the task with the highest
    /// `oom_badness` in the constraint domain (ties: the later task, as
    /// the kernel's `>=` scan does), kills it and frees its memory.
    /// Returns false when there was nothing to kill.
    pub fn out_of_memory(&mut self, constraint: Option<u16>) -> bool {
        if let Some(m) = constraint {
            self.memcg_memory_event(m, MemcgEvent::Oom);
            // mem_cgroup_out_of_memory: a kill may have freed enough already.
            if self.mem_cgroup_margin(m) >= 1 {
                return true;
            }
        }
        let domain = constraint.unwrap_or(ROOT_MEMCG);
        let mut chosen: Option<(u32, u64)> = None;
        for (i, t) in self.tasks.iter().enumerate() {
            if !t.alive || !self.memcg_is_descendant(t.memcg, domain) {
                continue;
            }
            let points = t.badness();
            match chosen {
                Some((_, best)) if points < best => {}
                _ => chosen = Some((i as u32, points)),
            }
        }
        let Some((victim, points)) = chosen else { return false };
        let vm = self.tasks[victim as usize].memcg;
        self.ev.add(Ev::OomKill, 1);
        self.count_memcg(vm, Ev::OomKill, 1);
        self.memcg_memory_event(vm, MemcgEvent::OomKill);
        self.oom_kills.push(OomKill {
            time_ns: self.now,
            constraint_memcg: constraint,
            victim_task: victim,
            victim_memcg: vm,
            victim_pages: points,
            reason: if constraint.is_some() { "memcg limit" } else { "out of memory" },
        });
        // The victim exits: the oom reaper and exit_mmap free its memory.
        self.tasks[victim as usize].killed = true;
        self.task_exit(victim);
        true
    }
}
