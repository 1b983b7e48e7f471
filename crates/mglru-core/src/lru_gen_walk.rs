// SPDX-License-Identifier: GPL-2.0-only
//! The multi-gen LRU's page-table side (mm/vmscan.c "mm_struct list",
//! "the aging" walk, "rmap/PT walk feedback"): each memcg's list of mm's,
//! the walk of their page tables that ages the young PTEs' folios, the
//! Bloom filters that let the next walk skip PMD tables without young
//! entries, and look-around from an rmap walk.

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::lru_gen::*;
use crate::mm::pte;

/// A position in a memcg's mm list (`mm_state->head/tail`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MmPos {
    /// NULL.
    #[default]
    Null,
    /// The list head itself (`&mm_list->fifo`).
    Fifo,
    /// A task's mm.
    Mm(u32),
}

/// `struct lru_gen_mm_state`.
#[derive(Clone, Debug, Default)]
pub struct MmState {
    pub seq: u64,
    pub head: MmPos,
    pub tail: MmPos,
    pub filters: [Option<Vec<u64>>; 2],
    /// `MM_LEAF_TOTAL`, `MM_LEAF_YOUNG`, `MM_NONLEAF_FOUND`, `MM_NONLEAF_ADDED`.
    pub stats: [u64; 4],
}

/// The page-table walk in progress (`struct lru_gen_mm_walk`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walk {
    pub memcg: u16,
    pub seq: u64,
    /// The swappiness the aging runs at (`walk->swappiness` in 7.2,
    /// `walk->can_swap` in 6.12: only whether it is 0 mattered there).
    pub swappiness: u32,
    pub force_scan: bool,
    pub stats: [u64; 4],
}

/// A 30-bit hash of a PMD entry's identity (the kernel hashes its address).
pub(crate) fn pmd_hash(pmd_tbl: u32, slot: usize) -> u32 {
    let mut z = ((pmd_tbl as u64) << 9 | slot as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^= z >> 29;
    z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (z >> 34) as u32
}

impl Kernel {
    /// The memcg's mm list: its live tasks in the order they were added.
    pub(crate) fn mm_list(&self, memcg: u16) -> &Vec<u32> {
        &self.memcgs[memcg as usize].mm_list
    }

    pub(crate) fn mm_next(&self, memcg: u16, pos: MmPos) -> MmPos {
        let l = self.mm_list(memcg);
        match pos {
            MmPos::Null | MmPos::Fifo => l.first().map_or(MmPos::Fifo, |&t| MmPos::Mm(t)),
            MmPos::Mm(t) => {
                let i = l.iter().position(|&x| x == t).expect("mm not on its list");
                l.get(i + 1).map_or(MmPos::Fifo, |&n| MmPos::Mm(n))
            }
        }
    }

    /// `iterate_mm_list`: hand out the next mm to walk; (last, mm).
    pub(crate) fn iterate_mm_list(&mut self, walk: &mut Walk) -> (bool, Option<u32>) {
        let memcg = walk.memcg;
        let m = memcg as usize;
        let mut first = false;
        let mut last = false;
        let mut mm = None;
        if walk.seq > self.memcgs[m].lruvec.mm_state.seq {
            if self.memcgs[m].lruvec.mm_state.head == MmPos::Null {
                self.memcgs[m].lruvec.mm_state.head = MmPos::Fifo;
            }
            if self.memcgs[m].lruvec.mm_state.head == MmPos::Fifo {
                first = true;
            }
            loop {
                let head = self.mm_next(memcg, self.memcgs[m].lruvec.mm_state.head);
                self.memcgs[m].lruvec.mm_state.head = head;
                let MmPos::Mm(task) = head else {
                    self.memcgs[m].lruvec.mm_state.seq += 1;
                    last = true;
                    break;
                };
                let tail = self.memcgs[m].lruvec.mm_state.tail;
                if tail == MmPos::Null || tail == head {
                    self.memcgs[m].lruvec.mm_state.tail = self.mm_next(memcg, head);
                    walk.force_scan = true;
                }
                // get_next_mm: only mms used since their last walk.
                let t = &mut self.tasks[task as usize];
                if !walk.force_scan && !t.used {
                    continue;
                }
                t.used = false;
                if t.alive {
                    mm = Some(task);
                    break;
                }
            }
        }
        if mm.is_some() || last {
            let ms = &mut self.memcgs[m].lruvec.mm_state;
            for i in 0..4 {
                ms.stats[i] += walk.stats[i];
                walk.stats[i] = 0;
            }
        }
        if mm.is_some() && first {
            // reset_bloom_filter for the next generation.
            let slot = ((walk.seq + 1) % 2) as usize;
            let ms = &mut self.memcgs[m].lruvec.mm_state;
            match &mut ms.filters[slot] {
                Some(f) => f.iter_mut().for_each(|w| *w = 0),
                None => ms.filters[slot] = Some(vec![0u64; (1 << BLOOM_FILTER_SHIFT) / 64]),
            }
        }
        (last, mm)
    }

    pub(crate) fn test_bloom_filter(&self, memcg: u16, seq: u64, pmd_tbl: u32, slot: usize) -> bool {
        let ms = &self.memcgs[memcg as usize].lruvec.mm_state;
        let Some(f) = &ms.filters[(seq % 2) as usize] else { return true };
        let h = pmd_hash(pmd_tbl, slot);
        let (k0, k1) = ((h & 0x7fff) as usize, (h >> 15) as usize & 0x7fff);
        f[k0 / 64] & (1 << (k0 % 64)) != 0 && f[k1 / 64] & (1 << (k1 % 64)) != 0
    }

    pub(crate) fn update_bloom_filter(&mut self, memcg: u16, seq: u64, pmd_tbl: u32, slot: usize) {
        let ms = &mut self.memcgs[memcg as usize].lruvec.mm_state;
        let Some(f) = &mut ms.filters[(seq % 2) as usize] else { return };
        let h = pmd_hash(pmd_tbl, slot);
        let (k0, k1) = ((h & 0x7fff) as usize, (h >> 15) as usize & 0x7fff);
        f[k0 / 64] |= 1 << (k0 % 64);
        f[k1 / 64] |= 1 << (k1 % 64);
    }

    /// `should_skip_vma`.
    pub fn should_skip_vma(&self, region: u32, swappiness: u32) -> bool {
        let v = &self.vmas[region as usize];
        if v.dead || v.locked || !self.vma_has_recency(region) {
            return true;
        }
        // Anon VMAs, and shmem mappings (tmpfs, memfd, shared anonymous),
        // need swap to be worth walking; file mappings are not walked for
        // 7.2's anon-only aging (swappiness above MAX_SWAPPINESS).
        match v.file {
            None => swappiness == 0,
            Some(f) if self.files[f as usize].shmem => swappiness == 0,
            Some(_) => swappiness > crate::lru_gen::MAX_SWAPPINESS,
        }
    }

    /// `walk_mm`: walk every eligible VMA of a task, PMD by PMD.
    /// Mappings are PMD-aligned in the model, so no PTE table is shared
    /// between two VMAs and each VMA can be walked on its own.
    pub(crate) fn walk_mm(&mut self, task: u32, walk: &mut Walk) {
        let regions = self.tasks[task as usize].vmas.clone();
        let pgd = self.tasks[task as usize].pgd;
        let mut regions: Vec<u32> = regions.into_iter().filter(|&r| !self.should_skip_vma(r, walk.swappiness)).collect();
        regions.sort_by_key(|&r| self.vmas[r as usize].start);
        for r in regions {
            if walk.seq != self.memcgs[walk.memcg as usize].lruvec.lrugen.max_seq {
                break;
            }
            let (start, pages) = (self.vmas[r as usize].start, self.vmas[r as usize].pages);
            let end = start + (pages << 12);
            let mut addr = start;
            while addr < end {
                let next = ((addr >> 21) + 1) << 21;
                let next = next.min(end);
                match self.pt.lookup_leaf(pgd, addr) {
                    None => walk.stats[0] += 1, // MM_LEAF_TOTAL for a non-present PMD
                    Some((leaf, pmd_tbl, slot)) => {
                        let mut skip = false;
                        if !walk.force_scan && self.should_clear_pmd_young() {
                            if !self.pt.pmd_test_clear_young(pmd_tbl, slot) {
                                skip = true;
                            }
                        }
                        if !skip && !walk.force_scan && !self.test_bloom_filter(walk.memcg, walk.seq, pmd_tbl, slot) {
                            skip = true;
                        }
                        if !skip {
                            walk.stats[2] += 1; // MM_NONLEAF_FOUND
                            if self.walk_pte_range(r, leaf, addr, next, walk) {
                                walk.stats[3] += 1; // MM_NONLEAF_ADDED
                                self.update_bloom_filter(walk.memcg, walk.seq + 1, pmd_tbl, slot);
                            }
                        }
                    }
                }
                addr = next;
            }
        }
    }

    /// `walk_pte_range`: age the young PTEs of [start, end) in one table.
    pub(crate) fn walk_pte_range(&mut self, region: u32, leaf: u32, start: u64, end: u64, walk: &mut Walk) -> bool {
        let new_gen = gen_from_seq(self.memcgs[walk.memcg as usize].lruvec.lrugen.max_seq);
        let mut total = 0u64;
        let mut young = 0u64;
        let is_file = self.vmas[region as usize].file.is_some();
        let mut addr = start;
        while addr < end {
            total += 1;
            walk.stats[0] += 1;
            let i = ((addr >> 12) & 511) as usize;
            addr += 4096;
            let e = self.pt.leaf_entry(leaf, i);
            if e & pte::PRESENT == 0 || e & pte::VALUE == pte::ZERO_PFN || e & pte::YOUNG == 0 {
                continue;
            }
            let pfn = e & pte::VALUE;
            let f = *self.folios.get(pfn);
            if !(self.steps.get_pfn_folio)(&f, walk.memcg, walk.swappiness != 0) {
                continue;
            }
            self.pt.set_leaf_entry(leaf, i, e & !pte::YOUNG);
            young += 1;
            walk.stats[1] += 1;
            if e & pte::DIRTY != 0 && !f.test(pg::DIRTY) && !(f.test(pg::ANON) && f.test(pg::SWAPBACKED) && !f.test(pg::SWAPCACHE)) {
                if is_file {
                    self.folio_mark_dirty(pfn);
                } else {
                    self.folios.get_mut(pfn).set(pg::DIRTY);
                }
            }
            if let Some(old) = (self.steps.folio_update_gen)(self, pfn, new_gen) {
                self.promote_size(walk.memcg, f.lru_type(), old, new_gen);
            }
        }
        self.current.pending_work.pte += total;
        // suitable_to_scan: 8 PTEs per cache line.
        young * 8 >= total
    }

    /// `lru_gen_look_around`: the rmap found the PTE of `pfn` at `index`
    /// of `region`; test and clear it and, if young, age its neighbours.
    pub fn lru_gen_look_around(&mut self, region: u32, index: u64, pfn: u32) -> bool {
        let v = &self.vmas[region as usize];
        let (task, vstart, vend, is_file) = (v.task, v.start, v.start + (v.pages << 12), v.file.is_some());
        let addr = v.va(index);
        let pgd = self.tasks[task as usize].pgd;
        let Some((leaf, pmd_tbl, slot)) = self.pt.lookup_leaf(pgd, addr) else { return false };
        let i0 = ((addr >> 12) & 511) as usize;
        let e = self.pt.leaf_entry(leaf, i0);
        if e & pte::YOUNG == 0 {
            return false;
        }
        self.pt.set_leaf_entry(leaf, i0, e & !pte::YOUNG);
        let target = *self.folios.get(pfn);
        let memcg = target.memcg;
        let can_swap = !target.is_file_lru();
        let mut start = (addr & !((1 << 21) - 1)).max(vstart);
        let mut end = (addr | ((1 << 21) - 1)).min(vend - 1) + 1;
        if end - start == 4096 {
            return true;
        }
        let win = MIN_LRU_BATCH * 4096;
        if end - start > win {
            if addr - start < win / 2 {
                end = start + win;
            } else if end - addr < win / 2 {
                start = end - win;
            } else {
                start = addr - win / 2;
                end = addr + win / 2;
            }
        }
        let max_seq = self.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        let new_gen = gen_from_seq(max_seq);
        let mut young = 1u64;
        let mut n = 0u64;
        let mut a = start;
        while a != end {
            n += 1;
            let i = ((a >> 12) & 511) as usize;
            a += 4096;
            let e = self.pt.leaf_entry(leaf, i);
            if e & pte::PRESENT == 0 || e & pte::VALUE == pte::ZERO_PFN || e & pte::YOUNG == 0 {
                continue;
            }
            let p = e & pte::VALUE;
            let f = *self.folios.get(p);
            if !(self.steps.get_pfn_folio)(&f, memcg, can_swap) {
                continue;
            }
            self.pt.set_leaf_entry(leaf, i, e & !pte::YOUNG);
            young += 1;
            if e & pte::DIRTY != 0 && !f.test(pg::DIRTY) && !(f.test(pg::ANON) && f.test(pg::SWAPBACKED) && !f.test(pg::SWAPCACHE)) {
                if is_file {
                    self.folio_mark_dirty(p);
                } else {
                    self.folios.get_mut(p).set(pg::DIRTY);
                }
            }
            if self.current.mm_walk {
                if let Some(old) = (self.steps.folio_update_gen)(self, p, new_gen) {
                    self.promote_size(memcg, f.lru_type(), old, new_gen);
                }
                continue;
            }
            (self.steps.look_around_update)(self, p, new_gen);
        }
        self.current.pending_work.pte += n;
        if young * 8 >= n {
            self.update_bloom_filter(memcg, max_seq, pmd_tbl, slot);
        }
        true
    }

    /// `lru_gen_add_mm`: join the task's memcg's mm list; a walker whose
    /// tail is the list head will visit it in this round.
    pub(crate) fn lru_gen_add_mm(&mut self, task: u32) {
        let memcg = self.tasks[task as usize].memcg as usize;
        let lv = &mut self.memcgs[memcg].lruvec;
        if lv.mm_state.tail == MmPos::Fifo {
            lv.mm_state.tail = MmPos::Mm(task);
        }
        self.memcgs[memcg].mm_list.push(task);
    }

    /// `lru_gen_del_mm`: leave the memcg's mm list, moving walk cursors.
    pub(crate) fn lru_gen_del_mm(&mut self, task: u32) {
        let memcg = self.tasks[task as usize].memcg as usize;
        let list = &self.memcgs[memcg].mm_list;
        let Some(i) = list.iter().position(|&t| t == task) else { return };
        let prev = if i == 0 { MmPos::Fifo } else { MmPos::Mm(list[i - 1]) };
        let next = list.get(i + 1).map_or(MmPos::Fifo, |&t| MmPos::Mm(t));
        let ms = &mut self.memcgs[memcg].lruvec.mm_state;
        if ms.head == MmPos::Mm(task) {
            ms.head = prev;
        }
        if ms.tail == MmPos::Mm(task) {
            ms.tail = next;
        }
        self.memcgs[memcg].mm_list.remove(i);
    }
}

/// 6.12 `get_pfn_folio`: a folio of the walk's memcg, anon only if the
/// walk may swap (file mappings can hold anon folios from COW).
pub(crate) fn get_pfn_folio_6_12(f: &crate::folio::Folio, memcg: u16, can_swap: bool) -> bool {
    f.memcg == memcg && (f.is_file_lru() || can_swap)
}

/// 6.12 `lru_gen_look_around` without a page-table walk in progress, for
/// a young neighbour: an isolated folio gets `PG_referenced` (for
/// `shrink_folio_list`), one outside the youngest generation is
/// activated with its refs cleared.
pub(crate) fn look_around_update_6_12(k: &mut Kernel, pfn: u32, new_gen: usize) {
    let f = *k.folios.get(pfn);
    if f.gen_field() == 0 {
        k.folios.get_mut(pfn).set(pg::REFERENCED);
    } else if (f.gen_field() - 1) as usize != new_gen {
        let fm = k.folios.get_mut(pfn);
        fm.set_refs_field(0);
        fm.clear(pg::REFERENCED | pg::WORKINGSET);
        k.folio_activate(pfn);
    }
}
