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
        t.pinned = cpu.is_some();
        self.tasks.push(t);
        self.lru_gen_add_mm(id);
    }

    /// `mmap(MAP_ANONYMOUS|MAP_PRIVATE)` of `pages`.
    pub fn anon_create(&mut self, task: u32, region: u32, pages: u64) {
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: None, seq_read: false, rand_read: false, dead: false, locked: false, swap_ra: (0, 0, 0) });
    }

    /// `mmap(MAP_SHARED)` of the whole file.
    pub fn mmap_create(&mut self, task: u32, region: u32, file: u32) {
        let pages = self.files[file as usize].pages;
        let start = self.tasks[task as usize].place(pages);
        self.push_vma(region, Vma { task, start, pages, file: Some(file), seq_read: false, rand_read: false, dead: false, locked: false, swap_ra: (0, 0, 0) });
        self.files[file as usize].i_mmap.push(region);
    }

    pub(crate) fn push_vma(&mut self, region: u32, v: Vma) {
        debug_assert_eq!(region as usize, self.vmas.len());
        self.tasks[v.task as usize].vmas.push(region);
        self.vmas.push(v);
    }

    /// `munmap(2)` of a whole region (mm/vma.c: `do_vmi_align_munmap` →
    /// `unmap_region`): drain this CPU's folio batches, zap every PTE
    /// (anon folios mapped nowhere else are freed with their swap
    /// slots, swap entries free their slots, file folios stay cached),
    /// then free the page tables the range alone used (`free_pgtables`)
    /// and uncharge them.
    pub fn munmap(&mut self, task: u32, region: u32) {
        if self.vmas[region as usize].dead {
            return; // gone with an OOM kill of its task
        }
        self.lru_add_drain();
        let pages = self.vmas[region as usize].pages;
        self.zap_range(region, 0, pages);
        let v = &self.vmas[region as usize];
        let (start, file) = (v.start, v.file);
        let end = start + (pages << 12).div_ceil(crate::mm::PMD_SIZE) * crate::mm::PMD_SIZE;
        self.vmas[region as usize].dead = true;
        self.tasks[task as usize].vmas.retain(|&r| r != region);
        let t = &self.tasks[task as usize];
        let span = |r: u32| {
            let v = &self.vmas[r as usize];
            (v.start, v.start + (v.pages << 12).div_ceil(crate::mm::PMD_SIZE) * crate::mm::PMD_SIZE)
        };
        let others: Vec<(u64, u64)> = t.vmas.iter().map(|&r| span(r)).collect();
        let pgd = t.pgd;
        let freed = self.pt.free_range(pgd, start, end, |lo, hi| others.iter().any(|&(s, e)| s < hi && lo < e));
        if freed > 0 {
            let t = &mut self.tasks[task as usize];
            let keep = t.pgtable_pfns.len() - freed as usize;
            let pfns = t.pgtable_pfns.split_off(keep);
            // Each table is uncharged from the memcg it was charged to
            // (the task may have moved since), as at exit.
            self.free_pgtable_pfns(pfns);
        }
        if let Some(f) = file {
            self.mapping_unmapped(f, region);
        }
    }

    /// `region` no longer maps `file` (`vma_close` → `fput`): an unlinked
    /// file whose last user this was is evicted (`iput_final` → `evict`).
    fn mapping_unmapped(&mut self, file: u32, region: u32) {
        let fl = &mut self.files[file as usize];
        fl.i_mmap.retain(|&x| x != region);
        if fl.unlinked && fl.i_mmap.is_empty() {
            self.evict_inode(file);
        }
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
                self.mapping_unmapped(f, r);
            }
        }
        let t = &mut self.tasks[task as usize];
        t.alive = false;
        let pgd = t.pgd;
        self.pt.free_all(pgd);
        let t = &mut self.tasks[task as usize];
        let pfns = std::mem::take(&mut t.pgtable_pfns);
        self.free_pgtable_pfns(pfns);
        let t = &self.tasks[task as usize];
        debug_assert_eq!((t.rss_anon, t.rss_file, t.swapents), (0, 0, 0));
    }

    /// Free page-table pages, each uncharged from the memcg it was
    /// charged to (the task may have moved since), in runs of the same
    /// memcg.
    fn free_pgtable_pfns(&mut self, pfns: Vec<u32>) {
        let mut run: Option<(u16, u64)> = None;
        for p in pfns {
            let m = self.folios.get(p).memcg;
            self.free_pgtable_page(p);
            match run {
                Some((rm, n)) if rm == m => run = Some((rm, n + 1)),
                Some((rm, n)) => {
                    self.memcg_pgtable_uncharge(rm, n);
                    run = Some((m, 1));
                }
                None => run = Some((m, 1)),
            }
        }
        if let Some((m, n)) = run {
            self.memcg_pgtable_uncharge(m, n);
        }
    }
}
