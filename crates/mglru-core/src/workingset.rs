// SPDX-License-Identifier: GPL-2.0-only
//! Shadow entries and refault detection (mm/workingset.c), classic part.
//!
//! A shadow packs `eviction | memcg id | workingset` as the kernel's
//! `pack_shadow` does, with 6.12's field widths on x86-64 with
//! `NODES_SHIFT` = 10: `EVICTION_SHIFT` = 1 + 1 + 10 + 16 = 28, so 36 bits
//! of eviction counter survive (`EVICTION_MASK`) and distances wrap there.

use crate::folio::pg;
use crate::kernel::{Kernel, Policy};
use crate::lruvec::{ANON, FILE, LRU_ACTIVE_ANON, LRU_ACTIVE_FILE, LRU_INACTIVE_ANON, LRU_INACTIVE_FILE};
use crate::memcontrol::ROOT_MEMCG;
use crate::stat::Ev;

pub const EVICTION_BITS: u32 = 36;
pub const EVICTION_MASK: u64 = (1 << EVICTION_BITS) - 1;

#[inline]
/// `WORKINGSET_REFAULT_BASE`, `_ACTIVATE_BASE`, `_RESTORE_BASE` + type:
/// (refault, activate, restore) of a file or an anon folio.
pub(crate) fn workingset_events(file: bool) -> (Ev, Ev, Ev) {
    if file {
        (Ev::WorkingsetRefaultFile, Ev::WorkingsetActivateFile, Ev::WorkingsetRestoreFile)
    } else {
        (Ev::WorkingsetRefaultAnon, Ev::WorkingsetActivateAnon, Ev::WorkingsetRestoreAnon)
    }
}

pub fn pack_shadow(memcg: u16, eviction: u64, workingset: bool) -> u64 {
    ((eviction & EVICTION_MASK) << 17) | ((memcg as u64) << 1) | workingset as u64
}

/// Returns (memcg id, eviction, workingset).
#[inline]
pub fn unpack_shadow(s: u64) -> (u16, u64, bool) {
    ((s >> 1) as u16, (s >> 17) & EVICTION_MASK, s & 1 != 0)
}

impl Kernel {
    /// `workingset_age_nonresident`: age the lruvec and its ancestors.
    pub fn workingset_age_nonresident(&mut self, memcg: u16, n: u64) {
        let mut m = memcg;
        loop {
            self.memcgs[m as usize].lruvec.nonresident_age += n;
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `workingset_activation`: classic `folio_mark_accessed` promotion.
    pub fn workingset_activation(&mut self, pfn: u32) {
        let m = self.folios.get(pfn).memcg;
        self.workingset_age_nonresident(m, 1);
    }

    /// `lruvec_page_state(NR_LRU_BASE + lru)` of a memcg's lruvec: the
    /// hierarchical size (cgroup v2 aggregates over the subtree; root = the
    /// node) as of the last statistics flush — what the kernel's reclaim
    /// heuristics read, up to 2 s old.
    #[inline]
    pub fn lruvec_page_state(&self, memcg: u16, lru: usize) -> u64 {
        self.memcgs[memcg as usize].flushed.lru[lru]
    }

    /// `lruvec_page_state(WORKINGSET_ACTIVATE_*)`, as of the last flush.
    #[inline]
    pub fn flushed_ws_activate(&self, memcg: u16, file: usize) -> u64 {
        self.memcgs[memcg as usize].flushed.ws_activate[file]
    }

    /// `node_page_state(NR_LRU_BASE + lru)`: the node's exact LRU size
    /// (vmstat counters, not the memcg statistics).
    pub fn node_page_state_lru(&self, lru: usize) -> u64 {
        self.memcgs.iter().map(|m| m.lruvec.size(lru)).sum()
    }

    /// `mem_cgroup_get_nr_swap_pages`.
    pub fn mem_cgroup_get_nr_swap_pages(&self, memcg: u16) -> u64 {
        let mut n = match &self.swap {
            Some(s) => s.nr_free,
            None => return 0,
        };
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            n = n.min(c.swap_max.saturating_sub(c.swap_usage));
            m = c.parent;
        }
        n
    }

    /// `workingset_eviction`: the shadow to leave behind for a folio that
    /// reclaim (targeting `target_memcg`) is removing.
    pub fn workingset_eviction(&mut self, pfn: u32, target_memcg: u16) -> u64 {
        if self.policy() == Policy::Mglru {
            return (self.steps.lru_gen_eviction)(self, pfn);
        }
        let eviction = self.memcgs[target_memcg as usize].lruvec.nonresident_age;
        self.workingset_age_nonresident(target_memcg, 1);
        let ws = self.folios.get(pfn).test(pg::WORKINGSET);
        pack_shadow(target_memcg, eviction, ws)
    }

    /// `workingset_test_recent` (classic). Returns (recent, workingset).
    pub fn workingset_test_recent(&self, shadow: u64, file: bool) -> (bool, bool) {
        let (memcg, eviction, ws) = unpack_shadow(shadow);
        if memcg as usize >= self.memcgs.len() {
            return (false, ws);
        }
        let refault = self.memcgs[memcg as usize].lruvec.nonresident_age;
        let distance = refault.wrapping_sub(eviction) & EVICTION_MASK;
        let mut size = self.lruvec_page_state(memcg, LRU_ACTIVE_FILE);
        if !file {
            size += self.lruvec_page_state(memcg, LRU_INACTIVE_FILE);
        }
        if self.mem_cgroup_get_nr_swap_pages(memcg) > 0 {
            size += self.lruvec_page_state(memcg, LRU_ACTIVE_ANON);
            if file {
                size += self.lruvec_page_state(memcg, LRU_INACTIVE_ANON);
            }
        }
        (distance <= size, ws)
    }

    /// `workingset_refault`: a folio is being added where a shadow was.
    pub fn workingset_refault(&mut self, pfn: u32, shadow: u64) {
        if self.policy() == Policy::Mglru {
            (self.steps.lru_gen_refault)(self, pfn, shadow);
            return;
        }
        let f = *self.folios.get(pfn);
        let file = f.is_file_lru();
        let memcg = f.memcg;
        let (refault_ev, act_ev, restore_ev) = workingset_events(file);
        self.count(memcg, refault_ev, 1);
        let (recent, ws) = self.workingset_test_recent(shadow, file);
        if !recent {
            return;
        }
        self.folios.get_mut(pfn).set(pg::ACTIVE);
        self.workingset_age_nonresident(memcg, 1);
        self.count(memcg, act_ev, 1);
        if ws {
            self.folios.get_mut(pfn).set(pg::WORKINGSET);
            (self.steps.lru_note_cost)(self, memcg, if file { FILE } else { ANON }, 1, 0);
            self.count(memcg, restore_ev, 1);
        }
    }

    /// `lru_note_cost`: charge reclaim cost to a type, up the hierarchy,
    /// decaying both costs when they outgrow a quarter of the LRU.
    pub fn lru_note_cost(&mut self, memcg: u16, file: usize, nr_io: u64, nr_rotated: u64) {
        let cost = nr_io * crate::kernel::SWAP_CLUSTER_MAX + nr_rotated;
        self.lru_note_cost_add(memcg, file, cost);
    }

    /// The part of `lru_note_cost` every version shares: add `cost` to
    /// the type's cost of `memcg` and each ancestor, halving both types'
    /// once they pass a quarter of the lruvec's size.
    pub(crate) fn lru_note_cost_add(&mut self, memcg: u16, file: usize, cost: u64) {
        let mut m = memcg;
        loop {
            let lrusize = self.lruvec_page_state(m, LRU_INACTIVE_ANON)
                + self.lruvec_page_state(m, LRU_ACTIVE_ANON)
                + self.lruvec_page_state(m, LRU_INACTIVE_FILE)
                + self.lruvec_page_state(m, LRU_ACTIVE_FILE);
            let lv = &mut self.memcgs[m as usize].lruvec;
            if file == FILE {
                lv.file_cost += cost;
            } else {
                lv.anon_cost += cost;
            }
            if lv.file_cost + lv.anon_cost > lrusize / 4 {
                lv.file_cost /= 2;
                lv.anon_cost /= 2;
            }
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn shadow_round_trip_and_mask() {
        let s = pack_shadow(7, (1 << 36) + 5, true);
        assert_eq!(unpack_shadow(s), (7, 5, true));
        assert!(s < (1 << 53));
    }
}
