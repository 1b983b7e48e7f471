// SPDX-License-Identifier: GPL-2.0-only
//! Reverse mapping (mm/rmap.c): which page-table entries map a folio, and
//! what reclaim does through them: test and clear the accessed bits
//! (`folio_referenced`), unmap (`try_to_unmap`), write-protect
//! (`folio_mkclean`).

use crate::folio::pg;
use crate::kernel::{Kernel, Policy};
use crate::mm::pte;
use crate::stat::St;

impl Kernel {
    /// `folio_referenced`: how many mappings saw the folio young (clearing
    /// their accessed bits), considering only mms in `target` memcg's
    /// subtree when reclaim is memcg-targeted. Mappings without recency
    /// are skipped untouched.
    pub fn folio_referenced(&mut self, pfn: u32, target: Option<u16>) -> u32 {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 {
            return 0;
        }
        let mut referenced = 0;
        if f.test(pg::ANON) {
            // rmap_walk_anon: every region linked to the folio's anon_vma
            // (after a fork, the parent's and the children's).
            for i in 0..self.anon_vmas.users_len(f.mapping) {
                let r = self.anon_vmas.user(f.mapping, i);
                if self.rmap_locked_abort(r, f.index as u64, pfn) {
                    break;
                }
                referenced += self.referenced_one(r, f.index as u64, pfn, target) as u32;
            }
        } else {
            let n = self.files[f.mapping as usize].i_mmap.len();
            for i in 0..n {
                let r = self.files[f.mapping as usize].i_mmap[i];
                if self.rmap_locked_abort(r, f.index as u64, pfn) {
                    break;
                }
                referenced += self.referenced_one(r, f.index as u64, pfn, target) as u32;
            }
        }
        referenced
    }

    /// The `VM_LOCKED` test of `folio_referenced_one` and
    /// `try_to_unmap_one`: a folio found mapped in a locked mapping is
    /// mlocked (`mlock_vma_folio`) and the rmap walk stops; the caller
    /// sees `PG_mlocked` (the kernel's `VM_LOCKED` in `vm_flags`, or the
    /// failed unmap).
    fn rmap_locked_abort(&mut self, region: u32, index: u64, pfn: u32) -> bool {
        let v = &self.vmas[region as usize];
        if !v.locked || v.dead || index >= v.pages {
            return false;
        }
        let e = self.pt.get(self.tasks[v.task as usize].pgd, v.va(index));
        if e & pte::PRESENT == 0 || e & pte::VALUE != pfn {
            return false;
        }
        self.mlock_folio(pfn);
        true
    }

    pub(crate) fn referenced_one(&mut self, region: u32, index: u64, pfn: u32, target: Option<u16>) -> bool {
        if self.rmap_locked_abort(region, index, pfn) {
            return false;
        }
        let v = &self.vmas[region as usize];
        if v.dead || index >= v.pages || (self.steps.rmap_skips_vma)(self, region) {
            return false;
        }
        let task = v.task;
        if let Some(t) = target {
            if !self.memcg_is_descendant(self.tasks[task as usize].memcg, t) {
                return false;
            }
        }
        let va = v.va(index);
        let pgd = self.tasks[task as usize].pgd;
        // page_vma_mapped_walk in this mapping: a step of reclaim's CPU time.
        self.current.pending_work.rmap += 1;
        let e = self.pt.get(pgd, va);
        if e & pte::PRESENT == 0 || e & pte::VALUE != pfn {
            return false;
        }
        (self.steps.pte_referenced)(self, region, index, pfn)
    }

    /// 6.12 `folio_referenced_one` at a PTE that maps the folio: the
    /// look-around under the multi-gen LRU, else test and clear the
    /// accessed bit.
    pub(crate) fn pte_referenced_6_12(&mut self, region: u32, index: u64, pfn: u32) -> bool {
        if self.policy() == Policy::Mglru {
            return self.lru_gen_look_around(region, index, pfn);
        }
        self.ptep_test_and_clear_young(region, index)
    }

    /// `ptep_clear_flush_young` of the PTE of page `index` of `region`.
    pub(crate) fn ptep_test_and_clear_young(&mut self, region: u32, index: u64) -> bool {
        let v = &self.vmas[region as usize];
        let (pgd, va) = (self.tasks[v.task as usize].pgd, v.va(index));
        let p = self.pt.get_mut(pgd, va).unwrap();
        let young = *p & pte::YOUNG != 0;
        *p &= !pte::YOUNG;
        young
    }

    /// `try_to_unmap`: remove every PTE of the folio. Anon PTEs become
    /// swap entries for the folio's slot; dirty bits move to the folio.
    pub fn try_to_unmap(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 {
            return;
        }
        if f.test(pg::ANON) {
            // Each PTE becomes a swap entry (one more reference on the
            // slot each), marked exclusive if the page was; the page is no
            // longer exclusive (folio_try_share_anon_rmap_pte).
            let exclusive = if f.test(pg::ANON_EXCLUSIVE) { pte::SWP_EXCLUSIVE } else { 0 };
            let entry = pte::SWAP | exclusive | (f.swap - 1);
            for i in 0..self.anon_vmas.users_len(f.mapping) {
                if self.folios.get(pfn).mapcount == 0 {
                    break;
                }
                let r = self.anon_vmas.user(f.mapping, i);
                if self.rmap_locked_abort(r, f.index as u64, pfn) {
                    return;
                }
                let before = self.folios.get(pfn).mapcount;
                self.unmap_one(r, f.index as u64, pfn, entry);
                if self.folios.get(pfn).mapcount < before {
                    self.folios.get_mut(pfn).clear(pg::ANON_EXCLUSIVE);
                }
            }
        } else {
            let n = self.files[f.mapping as usize].i_mmap.len();
            for i in 0..n {
                let r = self.files[f.mapping as usize].i_mmap[i];
                if self.folios.get(pfn).mapcount == 0 || self.rmap_locked_abort(r, f.index as u64, pfn) {
                    break;
                }
                self.unmap_one(r, f.index as u64, pfn, 0);
            }
        }
    }

    /// Clear one mapping of `pfn` at `index` of `region`, writing `new`
    /// into the PTE. Returns whether the PTE was young.
    pub(crate) fn unmap_one(&mut self, region: u32, index: u64, pfn: u32, new: u32) -> bool {
        let v = &self.vmas[region as usize];
        if v.dead || index >= v.pages {
            return false;
        }
        let (task, va, is_file, locked) = (v.task, v.va(index), v.file.is_some(), v.locked);
        self.current.pending_work.rmap += 1;
        let pgd = self.tasks[task as usize].pgd;
        let Some(p) = self.pt.get_mut(pgd, va) else { return false };
        if *p & pte::PRESENT == 0 || *p & pte::VALUE != pfn {
            return false;
        }
        let old = *p;
        *p = new;
        if old & pte::DIRTY != 0 {
            if is_file {
                self.folio_mark_dirty(pfn);
            } else {
                self.folios.get_mut(pfn).set(pg::DIRTY);
            }
        }
        let f = self.folios.get_mut(pfn);
        f.mapcount -= 1;
        let (memcg, left) = (f.memcg, f.mapcount);
        let t = &mut self.tasks[task as usize];
        if is_file {
            t.rss_file -= 1;
            if left == 0 {
                self.memcgs[memcg as usize].st.add(St::FileMapped, -1);
            }
        } else {
            t.rss_anon -= 1;
            // NR_ANON_MAPPED counts folios mapped at all, not PTEs.
            if left == 0 {
                self.memcgs[memcg as usize].st.add(St::Anon, -1);
            }
            if new & pte::SWAP != 0 {
                t.swapents += 1;
                self.swap_duplicate(new & pte::VALUE);
            }
        }
        // __folio_remove_rmap ends with munlock_vma_folio.
        if locked {
            self.munlock_folio(pfn);
        }
        old & pte::YOUNG != 0
    }

    /// Write-protect and clean every PTE of a file folio (`folio_mkclean`)
    /// so the next store faults and re-dirties it.
    pub fn folio_mkclean(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.mapcount == 0 || f.test(pg::ANON) {
            return;
        }
        let n = self.files[f.mapping as usize].i_mmap.len();
        for i in 0..n {
            let r = self.files[f.mapping as usize].i_mmap[i];
            let v = &self.vmas[r as usize];
            if v.dead || f.index as u64 >= v.pages {
                continue;
            }
            let va = v.va(f.index as u64);
            let pgd = self.tasks[v.task as usize].pgd;
            if let Some(p) = self.pt.get_mut(pgd, va) {
                if *p & pte::PRESENT != 0 && *p & pte::VALUE == pfn {
                    *p &= !pte::DIRTY;
                }
            }
        }
    }
}
