// SPDX-License-Identifier: GPL-2.0-only
//! fork(2) (kernel/fork.c `dup_mmap`, mm/memory.c `copy_page_range`,
//! mm/rmap.c `anon_vma_fork`): a child process with a copy of its
//! parent's address space, whose private anonymous pages the two share
//! copy-on-write.
//!
//! The kernel does not copy anonymous memory at fork. Each private page
//! the parent has mapped is mapped into the child as well, and both PTEs
//! are write-protected; the page's mapcount counts both, and it is no
//! longer `PageAnonExclusive`. The first store by either side takes a
//! write-protect fault (`do_wp_page`): the side that finds itself the only
//! user reuses the page, any other copies it into a page of its own
//! (charged to its own memcg). A PTE the parent had swapped out is copied
//! as a swap entry too, so the slot's swap count is 2: the slot stays
//! until both sides have swapped it in or let it go.
//!
//! Reclaim must then find every mapping of a shared page. The kernel links
//! each anonymous VMA to an `anon_vma`; fork links the child's copy into
//! the parent's anon_vma (and all of its ancestors'), and gives the child
//! one of its own for the pages it creates later. An anon folio points to
//! one anon_vma, and the rmap walk (`folio_referenced`, `try_to_unmap`)
//! visits every VMA linked to it. The model names an anon_vma by the
//! region that created it (an anon folio's `mapping` is that region), and
//! keeps here, for each region whose anon_vma a fork shared, the regions
//! linked to it. A region nobody forked from has an anon_vma of its own,
//! with itself as the only user, and no entry: the walk of an unshared
//! folio costs what it did before forks existed.
//!
//! Simplifications (docs/FIDELITY.md): the anon_vma is created with the
//! region rather than at its first write fault, except that a region with
//! no anon page or swap entry at the fork is treated as having none (the
//! kernel then copies nothing and links nothing; the model cannot tell a
//! region whose pages all went from one that never had any); `anon_vma_clone`
//! never reuses an idle anon_vma; the child's pgd, task_struct, kernel
//! stack, mm and VMA structures are neither taken from the zones nor
//! charged.

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::mm::{pte, Vma, PTRS_PER_TABLE};

/// The anon_vma links a fork added (see the module comment).
#[derive(Default, Clone)]
pub struct AnonVmas {
    /// By region id: the regions linked to that region's anon_vma, itself
    /// first; empty when no fork shared it (then only itself).
    users: Vec<Vec<u32>>,
    /// By region id: the anon_vmas (their regions) a forked copy is linked
    /// to besides its own, the root first; empty for a region not made by
    /// a fork that shared an anon_vma.
    chain: Vec<Vec<u32>>,
}

impl AnonVmas {
    /// How many regions the walk of an anon folio of `mapping` visits.
    #[inline]
    pub fn users_len(&self, mapping: u32) -> usize {
        match self.users.get(mapping as usize) {
            Some(u) if !u.is_empty() => u.len(),
            _ => 1,
        }
    }
    /// The `i`-th of them (in link order: the anon_vma's own region first).
    #[inline]
    pub fn user(&self, mapping: u32, i: usize) -> u32 {
        match self.users.get(mapping as usize) {
            Some(u) if !u.is_empty() => u[i],
            _ => mapping,
        }
    }
    /// Whether the walk of a folio of `mapping` visits `region`.
    pub fn covers(&self, mapping: u32, region: u32) -> bool {
        (0..self.users_len(mapping)).any(|i| self.user(mapping, i) == region)
    }
    /// The oldest anon_vma `region` is linked to (`anon_vma->root`).
    pub fn root(&self, region: u32) -> u32 {
        match self.chain.get(region as usize) {
            Some(c) if !c.is_empty() => c[0],
            _ => region,
        }
    }
    fn grow(&mut self, regions: usize) {
        if self.users.len() < regions {
            self.users.resize(regions, Vec::new());
            self.chain.resize(regions, Vec::new());
        }
    }
    /// `anon_vma_fork`: link `child` to every anon_vma `parent` is linked
    /// to (`anon_vma_clone`), then give it its own.
    fn fork(&mut self, parent: u32, child: u32) {
        self.grow(child as usize + 1);
        let mut chain = self.chain[parent as usize].clone();
        chain.push(parent);
        for &a in &chain {
            let u = &mut self.users[a as usize];
            if u.is_empty() {
                u.push(a);
            }
            u.push(child);
        }
        self.chain[child as usize] = chain;
    }
}

impl Kernel {
    /// `fork(2)` by `parent`: task `child` is created in the parent's
    /// memcg with a copy of every live mapping of the parent, as regions
    /// `first_region..` in the parent's order (the trace gave the ids).
    /// Shared file mappings are not copied page by page (`vma_needs_copy`:
    /// no anon_vma): the child faults them in. Private anon mappings with
    /// pages are copied PTE by PTE. Err when a page would reach more
    /// mappings than the model's 16-bit mapcount holds.
    pub fn fork(&mut self, parent: u32, child: u32, first_region: u32) -> Result<(), String> {
        let p = &self.tasks[parent as usize];
        let (memcg, adj, base, alive) = (p.memcg, p.oom_score_adj, p.mmap_base, p.alive);
        // A pinned parent's child inherits its affinity; any other is
        // placed as a new task is (wake_up_new_task spreads them).
        let cpu = p.pinned.then_some(p.cpu);
        self.task_create(child, memcg, cpu);
        let c = &mut self.tasks[child as usize];
        c.oom_score_adj = adj;
        c.mmap_base = base;
        let regions = self.tasks[parent as usize].vmas.clone();
        let mut ok = alive;
        for (i, &pr) in regions.iter().enumerate() {
            let cr = first_region + i as u32;
            let v = &self.vmas[pr as usize];
            // vm_area_dup copies the VMA; dup_mmap clears VM_LOCKED.
            let copy = Vma { task: child, locked: false, dead: false, ..v.clone() };
            let file = copy.file;
            self.push_vma(cr, copy);
            if let Some(f) = file {
                self.files[f as usize].i_mmap.push(cr);
                continue;
            }
            if ok && self.region_has_anon(pr) {
                self.anon_vmas.fork(pr, cr);
                ok = self.copy_page_range(pr, cr)?;
            }
        }
        // The parent was OOM-killed before or during the fork, or a page
        // table for the child could not be had (-ENOMEM): the fork fails
        // and the half-built child is torn down; it never runs.
        if !ok || !self.tasks[parent as usize].alive {
            self.task_exit(child);
        }
        Ok(())
    }

    /// Whether a private anon region has an anon page or a swap entry
    /// (the model's stand-in for "has an anon_vma", see the module
    /// comment).
    fn region_has_anon(&self, region: u32) -> bool {
        let v = &self.vmas[region as usize];
        let pgd = self.tasks[v.task as usize].pgd;
        let span = PTRS_PER_TABLE as u64;
        for chunk in 0..v.pages.div_ceil(span) {
            let Some((leaf, _, _)) = self.pt.lookup_leaf(pgd, v.va(chunk * span)) else { continue };
            let n = (v.pages - chunk * span).min(span);
            let first = ((v.va(chunk * span) >> 12) & (span - 1)) as usize;
            for i in 0..n as usize {
                let e = self.pt.leaf_entry(leaf, first + i);
                if pte::is_swap(e) || (e & pte::PRESENT != 0 && e & pte::VALUE != pte::ZERO_PFN) {
                    return true;
                }
            }
        }
        false
    }

    /// `copy_page_range` of a private anon region into the child's copy:
    /// for each page table the parent has in the range, the child gets
    /// one (charged to its memcg, `copy_pte_range`), and each PTE is
    /// copied:
    /// - the zero page: mapped in the child too (old);
    /// - an anon page (`copy_present_pte`): one more mapping, no longer
    ///   exclusive; a writable PTE is write-protected in the parent and
    ///   the copy; the copy is old (`pte_mkold`) and keeps the dirty bit;
    /// - a swap entry (`copy_nonpresent_pte`): `swap_duplicate`; the
    ///   parent's entry loses its exclusive mark and the copy has none.
    ///
    /// Returns false if a page table could not be allocated or charged.
    fn copy_page_range(&mut self, pr: u32, cr: u32) -> Result<bool, String> {
        let v = &self.vmas[pr as usize];
        let (ptask, pages) = (v.task, v.pages);
        let ctask = self.vmas[cr as usize].task;
        let span = PTRS_PER_TABLE as u64;
        for chunk in 0..pages.div_ceil(span) {
            let ppgd = self.tasks[ptask as usize].pgd;
            if self.pt.lookup_leaf(ppgd, self.vmas[pr as usize].va(chunk * span)).is_none() {
                continue;
            }
            // The child's table first (it may reclaim: the parent's PTEs
            // are read after it).
            if !self.pte_alloc(cr, chunk * span) {
                return Ok(false);
            }
            let cpgd = self.tasks[ctask as usize].pgd;
            for idx in chunk * span..(chunk * span + span).min(pages) {
                let va = self.vmas[pr as usize].va(idx);
                let e = self.pt.get(ppgd, va);
                let copy = if e & pte::PRESENT != 0 {
                    let pfn = e & pte::VALUE;
                    if pfn != pte::ZERO_PFN {
                        let f = self.folios.get_mut(pfn);
                        if f.mapcount == u16::MAX {
                            return Err(format!(
                                "fork: a page would be mapped more than {} times, the most the model's 16-bit mapcount holds",
                                u16::MAX
                            ));
                        }
                        f.mapcount += 1;
                        f.clear(pg::ANON_EXCLUSIVE);
                        self.tasks[ctask as usize].rss_anon += 1;
                        if e & pte::WRPROT == 0 {
                            *self.pt.get_mut(ppgd, va).unwrap() = e | pte::WRPROT;
                        }
                    }
                    (e | if pfn != pte::ZERO_PFN { pte::WRPROT } else { 0 }) & !pte::YOUNG
                } else if pte::is_swap(e) {
                    let slot = e & pte::VALUE;
                    if self.swap_count(slot) == u16::MAX {
                        return Err(format!(
                            "fork: a swap slot would be referred to more than {} times, the most the model's 16-bit swap count holds",
                            u16::MAX
                        ));
                    }
                    self.swap_duplicate(slot);
                    self.tasks[ctask as usize].swapents += 1;
                    if e & pte::SWP_EXCLUSIVE != 0 {
                        *self.pt.get_mut(ppgd, va).unwrap() = e & !pte::SWP_EXCLUSIVE;
                    }
                    e & !pte::SWP_EXCLUSIVE
                } else {
                    continue;
                };
                let (p, allocated) = self.pt.get_mut_alloc(cpgd, va);
                debug_assert_eq!(allocated, 0, "the child's table comes from pte_alloc");
                *p = copy;
            }
        }
        Ok(true)
    }
}
