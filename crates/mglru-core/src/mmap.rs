// SPDX-License-Identifier: GPL-2.0-only
//! Address spaces (mm/mmap.c, kernel/fork.c, kernel/exit.c): tasks, their
//! anonymous and file mappings, and what exit tears down.

use crate::kernel::Kernel;
use crate::mm::{Task, Vma};

impl Kernel {
    pub fn task_create(&mut self, id: u32, memcg: u16, cpu: Option<u32>) {
        let pgd = self.pt.new_pgd();
        debug_assert_eq!(id as usize, self.tasks.len());
        // The pgd is not charged to the memcg: it was allocated when the
        // process was forked, before it joined its cgroup (as the
        // replayer's workers are). The tables below it are.
        let mut t = Task::new(memcg, pgd);
        // Default placement (docs/TRACE_FORMAT.md `cpus`): task ids
        // round-robin over the CPUs, as a scheduler spreads new tasks over
        // idle CPUs; the caller has checked a pinned CPU exists.
        t.cpu = cpu.unwrap_or(id % self.cpus.len() as u32);
        self.tasks.push(t);
        // lru_gen_add_mm: join the memcg's mm list; a walker whose tail is
        // the list head will visit it in this round.
        let lv = &mut self.memcgs[memcg as usize].lruvec;
        if lv.mm_state.tail == crate::lru_gen_walk::MmPos::Fifo {
            lv.mm_state.tail = crate::lru_gen_walk::MmPos::Mm(id);
        }
        self.memcgs[memcg as usize].mm_list.push(id);
    }

    /// `mmap(MAP_ANONYMOUS|MAP_PRIVATE)` of `pages`.
    pub fn anon_create(&mut self, task: u32, region: u32, pages: u64) {
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: None, seq_read: false, rand_read: false, dead: false, swap_ra: (0, 0, 0) });
    }

    /// `mmap(MAP_SHARED)` of the whole file.
    pub fn mmap_create(&mut self, task: u32, region: u32, file: u32) {
        let pages = self.files[file as usize].pages;
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: Some(file), seq_read: false, rand_read: false, dead: false, swap_ra: (0, 0, 0) });
        self.files[file as usize].i_mmap.push(region);
    }

    pub(crate) fn push_vma(&mut self, region: u32, v: Vma) {
        debug_assert_eq!(region as usize, self.vmas.len());
        self.tasks[v.task as usize].vmas.push(region);
        self.vmas.push(v);
    }

    /// The task exits (or is OOM-killed): every mapping is torn down.
    pub fn task_exit(&mut self, task: u32) {
        if !self.tasks[task as usize].alive {
            return;
        }
        self.lru_gen_del_mm(task);
        let regions = self.tasks[task as usize].vmas.clone();
        for r in regions {
            let pages = self.vmas[r as usize].pages;
            self.zap_range(r, 0, pages);
            self.vmas[r as usize].dead = true;
            if let Some(f) = self.vmas[r as usize].file {
                self.files[f as usize].i_mmap.retain(|&x| x != r);
            }
        }
        let t = &mut self.tasks[task as usize];
        t.alive = false;
        let pgd = t.pgd;
        self.pt.free_all(pgd);
        let t = &mut self.tasks[task as usize];
        let tmemcg = t.memcg;
        let pfns = std::mem::take(&mut t.pgtable_pfns);
        let freed = pfns.len() as u64;
        pfns.into_iter().for_each(|p| self.free_pgtable_page(p));
        self.memcg_pgtable_uncharge(tmemcg, freed);
        let t = &self.tasks[task as usize];
        debug_assert_eq!((t.rss_anon, t.rss_file, t.swapents), (0, 0, 0));
    }
}
