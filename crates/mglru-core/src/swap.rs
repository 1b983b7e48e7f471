// SPDX-License-Identifier: GPL-2.0-only
//! LRU list manipulation shared by the policies (mm/swap.c,
//! include/linux/mm_inline.h): the per-CPU folio batches, adding and
//! deleting folios, and `folio_mark_accessed`.

use crate::folio::pg;
use crate::kernel::{Kernel, Policy, PAGEVEC_SIZE};
use crate::lruvec::{lru_index, LRU_UNEVICTABLE};
use crate::stat::Ev;

/// Index of each per-CPU batch in `Kernel::batch`, in the order
/// `lru_add_drain_cpu` drains them.
pub const B_ADD: usize = 0;
pub const B_MOVE_TAIL: usize = 1;
pub const B_DEACTIVATE_FILE: usize = 2;
pub const B_DEACTIVATE: usize = 3;
pub const B_LAZYFREE: usize = 4;
pub const B_ACTIVATE: usize = 5;

impl Kernel {
    /// `folio_lru_list` for the classic lists.
    #[inline]
    fn folio_lru_list(&self, pfn: u32) -> usize {
        let f = self.folios.get(pfn);
        if f.test(pg::UNEVICTABLE) {
            LRU_UNEVICTABLE
        } else {
            lru_index(f.lru_type(), f.test(pg::ACTIVE))
        }
    }

    /// `lruvec_add_folio`: the head of the folio's list.
    pub fn lruvec_add_folio(&mut self, pfn: u32) {
        self.lruvec_add_folio_at(pfn, false)
    }

    /// `lruvec_add_folio_tail`.
    pub fn lruvec_add_folio_tail(&mut self, pfn: u32) {
        self.lruvec_add_folio_at(pfn, true)
    }

    fn lruvec_add_folio_at(&mut self, pfn: u32, tail: bool) {
        if self.policy() == Policy::Mglru && self.lru_gen_add_folio(pfn, tail) {
            return;
        }
        let lru = self.folio_lru_list(pfn);
        let memcg = self.folios.get(pfn).memcg as usize;
        let mut list = self.memcgs[memcg].lruvec.lists[lru];
        if tail {
            self.folios.add_tail(&mut list, pfn);
        } else {
            self.folios.add_head(&mut list, pfn);
        }
        self.memcgs[memcg].lruvec.lists[lru] = list;
        self.folios.get_mut(pfn).set_list_field(lru as u32 + 1);
        self.zone_lru_add(pfn, lru, true);
    }

    /// `update_lru_size` on the zone: one folio of list `lru` joins
    /// (`add`) or leaves its zone's LRU count.
    #[inline]
    pub(crate) fn zone_lru_add(&mut self, pfn: u32, lru: usize, add: bool) {
        if lru >= LRU_UNEVICTABLE {
            return;
        }
        self.zone_lru_count(self.folios.zone_of(pfn), lru / 2, add);
    }

    /// One folio of type `type_` joins or leaves zone `z`'s LRU count
    /// (both policies' list operations end here).
    #[inline]
    pub(crate) fn zone_lru_count(&mut self, z: usize, type_: usize, add: bool) {
        let c = &mut self.zone_lru[z][type_];
        if add {
            *c += 1;
        } else {
            *c -= 1;
        }
    }

    /// `lruvec_del_folio`.
    pub fn lruvec_del_folio(&mut self, pfn: u32) {
        if self.lru_gen_del_folio(pfn, false) {
            return;
        }
        let f = self.folios.get(pfn);
        let lru = f.list_field();
        debug_assert!(lru != 0, "folio {} not on a classic list", pfn);
        let lru = (lru - 1) as usize;
        let memcg = f.memcg as usize;
        let mut list = self.memcgs[memcg].lruvec.lists[lru];
        self.folios.unlink(&mut list, pfn);
        self.memcgs[memcg].lruvec.lists[lru] = list;
        self.folios.get_mut(pfn).set_list_field(0);
        self.zone_lru_add(pfn, lru, false);
    }

    // ---- per-CPU batches -------------------------------------------------

    /// `folio_add_lru`: queue a new folio for the LRU.
    pub fn folio_add_lru(&mut self, pfn: u32) {
        // Under MGLRU a folio faulted in on a VMA with recency gets the
        // flags that place it (a version step; 6.12: active).
        if self.policy() == Policy::Mglru
            && !self.folios.get(pfn).test(pg::UNEVICTABLE)
            && self.current.in_lru_fault
            && !self.current.in_reclaim
        {
            (self.steps.folio_add_lru_fault)(self, pfn);
        }
        self.folio_batch_add_and_move(B_ADD, pfn);
    }

    fn folio_batch_add_and_move(&mut self, b: usize, pfn: u32) {
        self.folios.get_mut(pfn).set(pg::IN_BATCH);
        let batch = &mut self.cpus[self.cpu].batch[b];
        batch.push(pfn);
        if batch.len() >= PAGEVEC_SIZE {
            self.folio_batch_move_lru(self.cpu, b);
        }
    }

    /// `folio_batch_move_lru`: apply batch `b` of CPU `cpu` to each folio
    /// in order.
    fn folio_batch_move_lru(&mut self, cpu: usize, b: usize) {
        let folios = std::mem::take(&mut self.cpus[cpu].batch[b]);
        if self.lru_lock_timed() {
            self.folio_batch_lock_sections(&folios, b);
        }
        for &pfn in &folios {
            let f = self.folios.get_mut(pfn);
            f.clear(pg::IN_BATCH);
            if b != B_ADD {
                // folio_test_clear_lru: skip folios isolated meanwhile.
                if !f.test(pg::LRU) {
                    continue;
                }
                f.clear(pg::LRU);
            }
            match b {
                B_ADD => self.lru_add(pfn),
                B_MOVE_TAIL => self.lru_move_tail(pfn),
                B_DEACTIVATE_FILE => self.lru_deactivate_file(pfn),
                B_DEACTIVATE => self.lru_deactivate(pfn),
                B_LAZYFREE => self.lru_lazyfree(pfn),
                B_ACTIVATE => self.lru_activate(pfn),
                _ => unreachable!(),
            }
            self.folios.get_mut(pfn).set(pg::LRU);
        }
        self.restore_in_batch_flags();
        let mut folios = folios;
        folios.clear();
        if self.cpus[cpu].batch[b].is_empty() {
            self.cpus[cpu].batch[b] = folios; // keep the allocation
        }
    }

    /// The lru_lock sections of a batch: `folio_lruvec_relock_irqsave`
    /// keeps the lock while consecutive folios share a lruvec, and drops
    /// it for the next one's otherwise; a batch other than lru_add skips
    /// (without the lock) a folio isolated meanwhile. Each folio holds it
    /// `lock_add` (measured on lru_add; the other batches' moves are taken
    /// to cost the same). The drain's work is in the time already charged
    /// to the faults or writes that filled the batch: its sections follow
    /// one another and end now.
    fn folio_batch_lock_sections(&mut self, folios: &[u32], b: usize) {
        let moved = |k: &Kernel, p: u32| b == B_ADD || k.folios.get(p).test(pg::LRU);
        let mut runs: Vec<(u16, u64)> = Vec::new();
        for &p in folios {
            if !moved(self, p) {
                continue;
            }
            let memcg = self.folios.get(p).memcg;
            match runs.last_mut() {
                Some((m, n)) if *m == memcg => *n += 1,
                _ => runs.push((memcg, 1)),
            }
        }
        let total: u64 = runs.iter().map(|&(_, n)| self.cost.lru_lock + n * self.cost.lock_add).sum();
        let mut at = self.lock_clock().saturating_sub(total);
        for (memcg, n) in runs {
            let hold = self.cost.lru_lock + n * self.cost.lock_add;
            self.lru_lock_section(memcg, at, hold, false);
            at = at.saturating_add(hold);
        }
    }

    /// A folio can sit in several batches at once, of this CPU or another
    /// (the kernel's batches each hold a reference): after a batch is
    /// applied, keep the flag of those still queued.
    pub(crate) fn restore_in_batch_flags(&mut self) {
        for c in 0..self.cpus.len() {
            for ob in 0..6 {
                for i in 0..self.cpus[c].batch[ob].len() {
                    let p = self.cpus[c].batch[ob][i];
                    self.folios.get_mut(p).set(pg::IN_BATCH);
                }
            }
            for i in 0..self.cpus[c].mlock.len() {
                let p = self.cpus[c].mlock[i] & crate::mlock::MLOCK_PFN;
                self.folios.get_mut(p).set(pg::IN_BATCH);
            }
        }
    }

    /// `lru_add_drain`: flush every batch of this CPU.
    pub fn lru_add_drain(&mut self) {
        self.lru_add_drain_cpu(self.cpu);
    }

    /// `lru_add_drain_cpu`: flush every batch of CPU `cpu`, then its
    /// mlock batch (`mlock_drain_local`, which `lru_add_drain` and the
    /// per-CPU work of `lru_add_drain_all` run after it).
    pub fn lru_add_drain_cpu(&mut self, cpu: usize) {
        for b in 0..6 {
            if !self.cpus[cpu].batch[b].is_empty() {
                self.folio_batch_move_lru(cpu, b);
            }
        }
        if !self.cpus[cpu].mlock.is_empty() {
            self.mlock_folio_batch(cpu);
        }
    }

    /// `lru_add_drain_all`: flush the batches of every CPU (the kernel
    /// queues the work on each CPU with something to drain and waits for
    /// it; the model drains them at once, this CPU first, then the others
    /// in CPU order).
    pub fn lru_add_drain_all(&mut self) {
        self.lru_add_drain_cpu(self.cpu);
        for c in 0..self.cpus.len() {
            if c != self.cpu {
                self.lru_add_drain_cpu(c);
            }
        }
    }

    /// The CPU whose batches hold `pfn`, if any (this CPU first).
    pub fn folio_batch_cpu(&self, pfn: u32) -> Option<usize> {
        if !self.folios.get(pfn).test(pg::IN_BATCH) {
            return None;
        }
        let holds = |c: usize| {
            self.cpus[c].batch.iter().any(|b| b.contains(&pfn))
                || self.cpus[c].mlock.iter().any(|&e| e & crate::mlock::MLOCK_PFN == pfn)
        };
        if holds(self.cpu) {
            return Some(self.cpu);
        }
        (0..self.cpus.len()).find(|&c| holds(c))
    }

    /// Drop a folio that is about to be freed from whatever batch holds it
    /// (the kernel's batch reference delays the free until that CPU
    /// drains; the model drains the CPU holding it first: docs/FIDELITY.md).
    pub fn folio_leave_batches(&mut self, pfn: u32) {
        while let Some(c) = self.folio_batch_cpu(pfn) {
            self.lru_add_drain_cpu(c);
        }
    }

    /// `lru_add`: an mlocked folio goes to the unevictable list
    /// (culled), an evictable one that was marked unevictable is rescued.
    fn lru_add(&mut self, pfn: u32) {
        let evictable = self.folio_evictable(pfn);
        let f = self.folios.get_mut(pfn);
        let was_unevictable = f.test(pg::UNEVICTABLE);
        f.clear(pg::UNEVICTABLE);
        if evictable {
            if was_unevictable {
                let m = f.memcg;
                self.count(m, Ev::UnevictablePgsRescued, 1);
            }
        } else {
            f.clear(pg::ACTIVE);
            f.set(pg::UNEVICTABLE);
            // mlock_count 0: an underestimate reclaim corrects.
            self.mlock_count.remove(&pfn);
            if !was_unevictable {
                self.ev.add(Ev::UnevictablePgsCulled, 1);
            }
        }
        self.lruvec_add_folio(pfn);
    }

    /// `lru_move_tail` (`folio_rotate_reclaimable`'s batch).
    fn lru_move_tail(&mut self, pfn: u32) {
        if self.folios.get(pfn).test(pg::UNEVICTABLE) {
            return;
        }
        self.lruvec_del_folio(pfn);
        self.folios.get_mut(pfn).clear(pg::ACTIVE);
        self.lruvec_add_folio_tail(pfn);
        let m = self.folios.get(pfn).memcg;
        self.count(m, Ev::Pgrotated, 1);
    }

    /// `lru_deactivate_file` (invalidation of a busy page cache folio).
    fn lru_deactivate_file(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.test(pg::UNEVICTABLE) || f.mapcount > 0 {
            return;
        }
        let active = f.test(pg::ACTIVE);
        self.lruvec_del_folio(pfn);
        let fm = self.folios.get_mut(pfn);
        fm.clear(pg::ACTIVE | pg::REFERENCED);
        if fm.test(pg::WRITEBACK) || fm.test(pg::DIRTY) {
            // Added first, then marked: lru_gen_add_folio places a folio by
            // PG_reclaim, which it does not have yet.
            self.lruvec_add_folio(pfn);
            self.folios.get_mut(pfn).set(pg::RECLAIM);
        } else {
            self.lruvec_add_folio_tail(pfn);
            self.count(f.memcg, Ev::Pgrotated, 1);
        }
        if active {
            self.count(f.memcg, Ev::Pgdeactivate, 1);
        }
    }

    /// `lru_deactivate` (MADV_COLD and friends).
    fn lru_deactivate(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.test(pg::UNEVICTABLE) || !(f.test(pg::ACTIVE) || self.policy() == Policy::Mglru) {
            return;
        }
        self.lruvec_del_folio(pfn);
        self.folios.get_mut(pfn).clear(pg::ACTIVE | pg::REFERENCED);
        self.lruvec_add_folio(pfn);
        self.count(f.memcg, Ev::Pgdeactivate, 1);
    }

    /// `lru_lazyfree` (MADV_FREE): not reachable from trace v1.
    fn lru_lazyfree(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if !(f.test(pg::ANON) && f.test(pg::SWAPBACKED)) || f.test(pg::SWAPCACHE) || f.test(pg::UNEVICTABLE) {
            return;
        }
        self.lruvec_del_folio(pfn);
        self.folios.get_mut(pfn).clear(pg::ACTIVE | pg::REFERENCED | pg::SWAPBACKED);
        self.lruvec_add_folio(pfn);
        self.count(f.memcg, Ev::Pglazyfree, 1);
    }

    /// `lru_activate`.
    fn lru_activate(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.test(pg::ACTIVE) || f.test(pg::UNEVICTABLE) {
            return;
        }
        self.lruvec_del_folio(pfn);
        self.folios.get_mut(pfn).set(pg::ACTIVE);
        self.lruvec_add_folio(pfn);
        self.count(f.memcg, Ev::Pgactivate, 1);
    }

    /// `folio_activate`.
    pub fn folio_activate(&mut self, pfn: u32) {
        let f = self.folios.get(pfn);
        if f.test(pg::ACTIVE) || f.test(pg::UNEVICTABLE) || !f.test(pg::LRU) {
            return;
        }
        self.folio_batch_add_and_move(B_ACTIVATE, pfn);
    }

    /// `folio_rotate_reclaimable`: at writeback end of a `PG_reclaim` folio.
    pub fn folio_rotate_reclaimable(&mut self, pfn: u32) {
        let f = self.folios.get(pfn);
        if f.test(pg::DIRTY) || f.test(pg::UNEVICTABLE) || !f.test(pg::LRU) {
            return;
        }
        self.folio_batch_add_and_move(B_MOVE_TAIL, pfn);
    }

    /// `deactivate_file_folio` (POSIX_FADV_DONTNEED on a folio it could
    /// not drop).
    pub fn deactivate_file_folio(&mut self, pfn: u32) {
        let f = self.folios.get(pfn);
        if f.test(pg::UNEVICTABLE) || !f.test(pg::LRU) {
            return;
        }
        self.folio_batch_add_and_move(B_DEACTIVATE_FILE, pfn);
    }

    /// `folio_mark_accessed`.
    #[inline(always)]
    pub fn folio_mark_accessed(&mut self, pfn: u32) {
        if self.policy() == Policy::Mglru {
            self.folio_inc_refs(pfn);
            return;
        }
        let f = *self.folios.get(pfn);
        if !f.test(pg::REFERENCED) {
            self.folios.get_mut(pfn).set(pg::REFERENCED);
        } else if f.test(pg::UNEVICTABLE) {
        } else if !f.test(pg::ACTIVE) {
            if f.test(pg::LRU) {
                self.folio_activate(pfn);
            } else if f.test(pg::IN_BATCH) && self.cpus[self.cpu].batch[B_ADD].contains(&pfn) {
                // __lru_cache_activate_folio: still in this CPU's add batch.
                self.folios.get_mut(pfn).set(pg::ACTIVE);
            }
            self.folios.get_mut(pfn).clear(pg::REFERENCED);
            self.workingset_activation(pfn);
        }
    }
}
