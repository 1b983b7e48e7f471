// SPDX-License-Identifier: GPL-2.0-only
//! Tasks, VMAs and 4-level page tables (512 entries a level, as on x86-64).
//!
//! All page-table pages live in two arenas: upper levels (PGD, PUD, PMD
//! tables) hold `child index + 1` (0 = none) and, at the PMD level, the
//! non-leaf accessed bit; leaf tables hold PTEs. A PTE is a `u32`:
//! present/young/dirty/swap bits and a 28-bit pfn or swap slot, which
//! bounds simulated RAM and swap at 2^28 pages (1 TiB) each.

use crate::folio::NIL;

pub const PTRS_PER_TABLE: usize = 512;

pub mod pte {
    pub const PRESENT: u32 = 1 << 31;
    /// The hardware accessed bit (`pte_young`).
    pub const YOUNG: u32 = 1 << 30;
    /// The hardware dirty bit.
    pub const DIRTY: u32 = 1 << 29;
    /// A swap entry (not present; value is the slot).
    pub const SWAP: u32 = 1 << 28;
    /// On a present anon PTE (the bit a swap entry uses): write-protected
    /// (`!pte_write`), as fork leaves a private anon page in both
    /// processes; a store takes a write-protect fault (`do_wp_page`).
    pub const WRPROT: u32 = SWAP;
    /// On a swap entry (the bit a present PTE uses for young): the page
    /// was exclusive to this mapping when it was unmapped
    /// (`pte_swp_exclusive`).
    pub const SWP_EXCLUSIVE: u32 = YOUNG;
    pub const VALUE: u32 = (1 << 28) - 1;
    /// The shared zero page, mapped read-only by a read fault on anon memory.
    pub const ZERO_PFN: u32 = VALUE;
    /// Largest pfn or slot a PTE can hold.
    pub const MAX_VALUE: u32 = VALUE - 1;
    /// A swap entry (not a present PTE that is write-protected).
    #[inline]
    pub fn is_swap(e: u32) -> bool {
        e & (PRESENT | SWAP) == SWAP
    }
}

/// PMD entries carry the non-leaf accessed bit here (`pmd_young` on a table).
pub const PMD_YOUNG: u32 = 1 << 31;
const CHILD_MASK: u32 = !PMD_YOUNG;

pub struct PageTables {
    upper: Vec<[u32; PTRS_PER_TABLE]>,
    leaf: Vec<[u32; PTRS_PER_TABLE]>,
    free_upper: Vec<u32>,
    free_leaf: Vec<u32>,
}

#[inline]
fn idx(va: u64, level: u32) -> usize {
    ((va >> (12 + 9 * level)) & 511) as usize
}

impl Default for PageTables {
    fn default() -> Self {
        Self::new()
    }
}

impl PageTables {
    pub fn new() -> PageTables {
        PageTables { upper: Vec::new(), leaf: Vec::new(), free_upper: Vec::new(), free_leaf: Vec::new() }
    }
    fn new_upper(&mut self) -> u32 {
        if let Some(i) = self.free_upper.pop() {
            self.upper[i as usize] = [0; PTRS_PER_TABLE];
            return i;
        }
        self.upper.push([0; PTRS_PER_TABLE]);
        (self.upper.len() - 1) as u32
    }
    fn new_leaf(&mut self) -> u32 {
        if let Some(i) = self.free_leaf.pop() {
            self.leaf[i as usize] = [0; PTRS_PER_TABLE];
            return i;
        }
        self.leaf.push([0; PTRS_PER_TABLE]);
        (self.leaf.len() - 1) as u32
    }
    /// A new, empty PGD.
    pub fn new_pgd(&mut self) -> u32 {
        self.new_upper()
    }
    /// Bytes of page-table memory in use (for reports).
    pub fn bytes(&self) -> u64 {
        ((self.upper.len() - self.free_upper.len()) + (self.leaf.len() - self.free_leaf.len())) as u64 * 4096
    }

    /// Walk to the leaf table covering `va`; returns (leaf index, pmd table, pmd slot).
    #[inline]
    pub fn lookup_leaf(&self, pgd: u32, va: u64) -> Option<(u32, u32, usize)> {
        let pud = self.upper[pgd as usize][idx(va, 3)];
        if pud == 0 {
            return None;
        }
        let pmd = self.upper[(pud - 1) as usize][idx(va, 2)];
        if pmd == 0 {
            return None;
        }
        let pmd_tbl = pmd - 1;
        let e = self.upper[pmd_tbl as usize][idx(va, 1)] & CHILD_MASK;
        if e == 0 {
            return None;
        }
        Some((e - 1, pmd_tbl, idx(va, 1)))
    }
    /// Read a PTE (0 = none).
    #[inline]
    pub fn get(&self, pgd: u32, va: u64) -> u32 {
        match self.lookup_leaf(pgd, va) {
            Some((leaf, _, _)) => self.leaf[leaf as usize][idx(va, 0)],
            None => 0,
        }
    }
    /// How many page-table pages `get_mut_alloc` would allocate for `va`.
    pub fn missing_tables(&self, pgd: u32, va: u64) -> u32 {
        let pud = self.upper[pgd as usize][idx(va, 3)];
        if pud == 0 {
            return 3;
        }
        let pmd = self.upper[(pud - 1) as usize][idx(va, 2)];
        if pmd == 0 {
            return 2;
        }
        u32::from(self.upper[(pmd - 1) as usize][idx(va, 1)] & CHILD_MASK == 0)
    }
    /// A mutable PTE, allocating the tables on the way (`__pte_alloc`);
    /// returns the number of page-table pages allocated as well. The
    /// non-leaf accessed bit of the PMD entry is set, as the CPU does when
    /// it walks through it.
    #[inline]
    pub fn get_mut_alloc(&mut self, pgd: u32, va: u64) -> (&mut u32, u32) {
        let mut allocated = 0;
        let mut pud = self.upper[pgd as usize][idx(va, 3)];
        if pud == 0 {
            pud = self.new_upper() + 1;
            allocated += 1;
            self.upper[pgd as usize][idx(va, 3)] = pud;
        }
        let mut pmd = self.upper[(pud - 1) as usize][idx(va, 2)];
        if pmd == 0 {
            pmd = self.new_upper() + 1;
            allocated += 1;
            self.upper[(pud - 1) as usize][idx(va, 2)] = pmd;
        }
        let slot = idx(va, 1);
        let mut e = self.upper[(pmd - 1) as usize][slot] & CHILD_MASK;
        if e == 0 {
            e = self.new_leaf() + 1;
            allocated += 1;
        }
        self.upper[(pmd - 1) as usize][slot] = e | PMD_YOUNG;
        (&mut self.leaf[(e - 1) as usize][idx(va, 0)], allocated)
    }
    /// A mutable PTE if its tables exist.
    #[inline]
    pub fn get_mut(&mut self, pgd: u32, va: u64) -> Option<&mut u32> {
        let (leaf, _, _) = self.lookup_leaf(pgd, va)?;
        Some(&mut self.leaf[leaf as usize][idx(va, 0)])
    }
    #[inline]
    pub fn leaf_entry(&self, leaf: u32, i: usize) -> u32 {
        self.leaf[leaf as usize][i]
    }
    #[inline]
    pub fn set_leaf_entry(&mut self, leaf: u32, i: usize, v: u32) {
        self.leaf[leaf as usize][i] = v;
    }
    /// A CPU access through the page tables: the hardware sets the
    /// accessed bit in the PMD entry it walks through and in the PTE (and
    /// the dirty bit on a store). Returns the PTE as it was, 0 if none.
    #[inline]
    pub fn hw_access(&mut self, pgd: u32, va: u64, write: bool) -> u32 {
        let Some((leaf, pmd_tbl, slot)) = self.lookup_leaf(pgd, va) else { return 0 };
        let e = &mut self.leaf[leaf as usize][idx(va, 0)];
        let old = *e;
        if old & pte::PRESENT != 0 {
            *e |= pte::YOUNG | if write { pte::DIRTY } else { 0 };
            self.upper[pmd_tbl as usize][slot] |= PMD_YOUNG;
        }
        old
    }
    /// Test and clear the young bit of a PMD entry (non-leaf young).
    pub fn pmd_test_clear_young(&mut self, pmd_tbl: u32, slot: usize) -> bool {
        let e = &mut self.upper[pmd_tbl as usize][slot];
        let y = *e & PMD_YOUNG != 0;
        *e &= !PMD_YOUNG;
        y
    }
    /// `free_pgd_range` after an munmap of [start, end) (both 2 MiB
    /// aligned): every leaf table inside the range goes, and so does an
    /// upper table (PMD table: 1 GiB, PUD table: 512 GiB) when `busy`
    /// says no other mapping of the task lies in its span — the kernel's
    /// floor/ceiling test, which frees a table only when the gap between
    /// the neighbouring mappings covers it. The pgd stays. Returns the
    /// number of tables freed.
    pub fn free_range(&mut self, pgd: u32, start: u64, end: u64, busy: impl Fn(u64, u64) -> bool) -> u64 {
        const PMD_SPAN: u64 = 1 << 21;
        const PUD_SPAN: u64 = 1 << 30;
        const PGD_SPAN: u64 = 1 << 39;
        let mut freed = 0;
        let mut va = start;
        while va < end {
            if let Some((leaf, pmd_tbl, slot)) = self.lookup_leaf(pgd, va) {
                if va + PMD_SPAN <= end {
                    self.free_leaf.push(leaf);
                    self.upper[pmd_tbl as usize][slot] = 0;
                    freed += 1;
                }
            }
            va += PMD_SPAN;
        }
        // PMD tables, then PUD tables, whose span the range touches.
        for (span, level) in [(PUD_SPAN, 2u32), (PGD_SPAN, 3u32)] {
            let mut lo = start & !(span - 1);
            while lo < end {
                let hi = lo + span;
                if !busy(lo, hi) {
                    freed += self.free_upper_at(pgd, lo, level);
                }
                lo = hi;
            }
        }
        freed
    }

    /// Free the upper table at `level` (2: a PMD table, 3: a PUD table)
    /// covering `va`, with anything left below it; returns tables freed.
    fn free_upper_at(&mut self, pgd: u32, va: u64, level: u32) -> u64 {
        let pud_slot = idx(va, 3);
        let pud = self.upper[pgd as usize][pud_slot];
        if pud == 0 {
            return 0;
        }
        if level == 3 {
            let mut n = 0;
            for j in 0..PTRS_PER_TABLE {
                let pmd = self.upper[(pud - 1) as usize][j];
                if pmd != 0 {
                    n += self.free_pmd_table(pmd - 1);
                }
            }
            self.free_upper.push(pud - 1);
            self.upper[pgd as usize][pud_slot] = 0;
            return n + 1;
        }
        let pmd_slot = idx(va, 2);
        let pmd = self.upper[(pud - 1) as usize][pmd_slot];
        if pmd == 0 {
            return 0;
        }
        self.upper[(pud - 1) as usize][pmd_slot] = 0;
        self.free_pmd_table(pmd - 1)
    }

    fn free_pmd_table(&mut self, tbl: u32) -> u64 {
        let mut n = 1;
        for k in 0..PTRS_PER_TABLE {
            let e = self.upper[tbl as usize][k] & CHILD_MASK;
            if e != 0 {
                self.free_leaf.push(e - 1);
                n += 1;
            }
        }
        self.free_upper.push(tbl);
        n
    }

    /// Free every table of an address space (`free_pgtables` at exit).
    /// Returns the number of page-table pages released.
    pub fn free_all(&mut self, pgd: u32) -> u64 {
        let mut n = 1;
        for i in 0..PTRS_PER_TABLE {
            let pud = self.upper[pgd as usize][i];
            if pud == 0 {
                continue;
            }
            for j in 0..PTRS_PER_TABLE {
                let pmd = self.upper[(pud - 1) as usize][j];
                if pmd == 0 {
                    continue;
                }
                for k in 0..PTRS_PER_TABLE {
                    let e = self.upper[(pmd - 1) as usize][k] & CHILD_MASK;
                    if e != 0 {
                        self.free_leaf.push(e - 1);
                        n += 1;
                    }
                }
                self.free_upper.push(pmd - 1);
                n += 1;
            }
            self.free_upper.push(pud - 1);
            n += 1;
        }
        self.free_upper.push(pgd);
        n
    }
}

/// A virtual memory area: one trace REGION.
#[derive(Clone, Debug)]
pub struct Vma {
    pub task: u32,
    /// Start virtual address (page aligned).
    pub start: u64,
    pub pages: u64,
    /// `Some(file)` for a shared file mapping.
    pub file: Option<u32>,
    /// `VM_SEQ_READ` (MADV_SEQUENTIAL).
    pub seq_read: bool,
    /// `VM_RAND_READ` (MADV_RANDOM).
    pub rand_read: bool,
    /// Unmapped (task exited or OOM-killed).
    pub dead: bool,
    /// `VM_LOCKED` (mlock).
    pub locked: bool,
    /// `swap_readahead_info`: (last fault pfn, window, hits).
    pub swap_ra: (u64, u32, u32),
}

impl Vma {
    #[inline]
    pub fn va(&self, page: u64) -> u64 {
        self.start + (page << 12)
    }
    /// `vma_has_recency` (6.12): no `VM_SEQ_READ`/`VM_RAND_READ` hint.
    #[inline]
    pub fn has_recency(&self) -> bool {
        !(self.seq_read || self.rand_read)
    }
}

/// A task (process) with its address space.
#[derive(Clone, Debug)]
pub struct Task {
    pub memcg: u16,
    pub pgd: u32,
    pub vmas: Vec<u32>,
    pub alive: bool,
    /// OOM-killed (as opposed to a normal exit).
    pub killed: bool,
    /// Next free virtual address for a new mapping (top-down).
    pub mmap_base: u64,
    /// `MM_ANONPAGES`, `MM_FILEPAGES`, `MM_SWAPENTS`.
    pub rss_anon: u64,
    pub rss_file: u64,
    pub swapents: u64,
    /// The pfns of the page-table pages taken from the zones (all but
    /// the pgd, which the task had before it joined the trace).
    pub pgtable_pfns: Vec<u32>,
    /// The MGLRU mm-walk "used since last walk" hint.
    pub used: bool,
    /// The CPU the task runs on (pinned with `task ... cpu=K`, else the
    /// default placement: task ids round-robin over the CPUs).
    pub cpu: u32,
    /// Pinned to `cpu` (`task ... cpu=K`, or the child of a pinned task:
    /// fork inherits the affinity).
    pub pinned: bool,
    /// CPU time from the cost model, user and system (`utime`, `stime`).
    pub utime_ns: u64,
    pub stime_ns: u64,
    /// `oom_score_adj` (`signal->oom_score_adj`): -1000 (never chosen,
    /// spared by an oom.group kill) to 1000.
    pub oom_score_adj: i16,
}

/// `OOM_SCORE_ADJ_MIN`: a task the OOM killer never picks.
pub const OOM_SCORE_ADJ_MIN: i16 = -1000;

/// Top of the user address space where mmap starts placing mappings.
pub const MMAP_TOP: u64 = 0x7f00_0000_0000;
/// Mappings are aligned to a PMD (2 MiB) boundary: see docs/FIDELITY.md.
pub const PMD_SIZE: u64 = 1 << 21;

impl Task {
    pub fn new(memcg: u16, pgd: u32) -> Task {
        Task {
            memcg,
            pgd,
            vmas: Vec::new(),
            alive: true,
            killed: false,
            mmap_base: MMAP_TOP,
            rss_anon: 0,
            rss_file: 0,
            swapents: 0,
            pgtable_pfns: Vec::new(),
            used: true,
            cpu: 0,
            pinned: false,
            utime_ns: 0,
            stime_ns: 0,
            oom_score_adj: 0,
        }
    }
    /// Place a new mapping of `pages` below the previous one (top-down mmap),
    /// PMD-aligned. Simplification: no gaps, no VMA merging.
    pub fn place(&mut self, pages: u64) -> u64 {
        let len = (pages << 12).div_ceil(PMD_SIZE) * PMD_SIZE;
        self.mmap_base -= len;
        self.mmap_base
    }
    /// Page-table pages (`mm_pgtables_bytes / PAGE_SIZE`): the PUD, PMD
    /// and PTE tables while the task lives (`mm_inc_nr_ptes` and friends),
    /// none after its exit. The pgd is not counted: the count starts at 0
    /// (`mm_pgtables_bytes_init`) and x86's `pgd_alloc` does not add to it.
    pub fn pgtables(&self) -> u64 {
        if self.alive {
            self.pgtable_pfns.len() as u64
        } else {
            0
        }
    }
    /// What `oom_badness` starts from: rss + swap + page tables, in pages.
    pub fn badness(&self) -> u64 {
        self.rss_anon + self.rss_file + self.swapents + self.pgtables()
    }

    /// `oom_badness(p, totalpages)`: the pages above plus `oom_score_adj`
    /// thousandths of `totalpages`; None for `OOM_SCORE_ADJ_MIN` (never
    /// chosen, the kernel's LONG_MIN).
    pub fn oom_points(&self, totalpages: u64) -> Option<i64> {
        if self.oom_score_adj == OOM_SCORE_ADJ_MIN {
            return None;
        }
        let adj = i64::from(self.oom_score_adj) * (totalpages / 1000) as i64;
        Some(self.badness() as i64 + adj)
    }
}

/// An unused region slot marker.
pub const NO_TASK: u32 = NIL;

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn four_level_walk() {
        let mut pt = PageTables::new();
        let pgd = pt.new_pgd();
        let va = 0x7f12_3456_7000u64;
        assert_eq!(pt.get(pgd, va), 0);
        let (p, n) = pt.get_mut_alloc(pgd, va);
        *p = pte::PRESENT | 42;
        assert_eq!(n, 3);
        assert_eq!(pt.get(pgd, va), pte::PRESENT | 42);
        assert_eq!(pt.get(pgd, va + 4096), 0);
        let (_, n2) = pt.get_mut_alloc(pgd, va + 4096);
        assert_eq!(n2, 0);
        assert_eq!(pt.free_all(pgd), 4);
    }
}
