// SPDX-License-Identifier: GPL-2.0-only
//! madvise(2) (mm/madvise.c) on a trace's regions.

use crate::kernel::Kernel;
use crate::mm::pte;

/// What a trace `advise` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    Normal,
    Random,
    Sequential,
    DontNeed,
    WillNeed,
    /// POSIX_FADV_NOREUSE (files only; the trace resolver rejects it for a
    /// region, as madvise has no such advice).
    NoReuse,
}

impl Kernel {
    /// `madvise` on a region.
    pub fn madvise(&mut self, region: u32, advice: Advice) {
        let pages = self.vmas[region as usize].pages;
        match advice {
            Advice::Normal => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = false;
                v.rand_read = false;
            }
            Advice::Random => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = false;
                v.rand_read = true;
            }
            Advice::Sequential => {
                let v = &mut self.vmas[region as usize];
                v.seq_read = true;
                v.rand_read = false;
            }
            // madvise_dontneed_free_valid_vma: a VM_LOCKED mapping gets
            // EINVAL and keeps its pages.
            Advice::DontNeed if self.vmas[region as usize].locked => {}
            Advice::DontNeed => self.zap_range(region, 0, pages),
            Advice::WillNeed => match self.vmas[region as usize].file {
                Some(f) if self.files[f as usize].shmem => {
                    let n = self.files[f as usize].pages.min(pages);
                    self.shmem_swapin_range(f, n);
                }
                Some(f) => {
                    let n = self.files[f as usize].pages;
                    self.force_page_cache_ra(f, 0, n);
                }
                None => self.madvise_willneed_anon(region),
            },
            // Not an madvise advice; the resolver never gives it for a region.
            Advice::NoReuse => {}
        }
    }

    /// `madvise(MADV_WILLNEED)` on anon memory: start swap-in of every
    /// swapped-out page into the swap cache (`swapin_walk_pmd_entry` →
    /// `read_swap_cache_async`, whatever the device: a synchronous one,
    /// zram or brd, is read at once, through the swap cache too).
    pub(crate) fn madvise_willneed_anon(&mut self, region: u32) {
        if self.swap.is_none() {
            return;
        }
        let v = &self.vmas[region as usize];
        let (task, start, pages) = (v.task, v.start, v.pages);
        let pgd = self.tasks[task as usize].pgd;
        for idx in 0..pages {
            let e = self.pt.get(pgd, start + (idx << 12));
            if !pte::is_swap(e) {
                continue;
            }
            let s = e & pte::VALUE;
            if self.swap.as_ref().unwrap().entry(s) & crate::swapfile::SLOT_CACHED == 0 {
                let _ = self.swapin_new_folio(s, true);
            }
        }
        self.lru_add_drain();
    }
}
