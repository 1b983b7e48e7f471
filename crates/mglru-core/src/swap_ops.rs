// SPDX-License-Identifier: GPL-2.0-only
//! Swap slots and the swap cache (mm/swap_state.c, mm/swapfile.c).

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::memcg::{MemcgEvent, PAGE_COUNTER_MAX, ROOT_MEMCG};
use crate::stat::St;
use crate::swap::{SLOT_CACHED, SLOT_ORPHAN, SLOT_SHADOW, SLOT_USED, SLOT_VALUE};

impl Kernel {
    /// Which (region, page) a slot's data belongs to.
    pub fn swap_owner(&self, slot: u32) -> (u32, u32) {
        self.swap.as_ref().unwrap().owner[slot as usize]
    }

    /// `add_to_swap`: allocate a slot (charging memcg swap) and put the
    /// folio in the swap cache, dirty. False if swap is full or the
    /// memcg's swap.max would be exceeded.
    pub fn add_to_swap(&mut self, pfn: u32) -> bool {
        let f = *self.folios.get(pfn);
        let Some(sw) = self.swap.as_mut() else { return false };
        let Some(slot) = sw.alloc(f.memcg) else {
            return false;
        };
        // mem_cgroup_try_charge_swap
        if f.memcg != ROOT_MEMCG {
            let mut m = f.memcg;
            let mut over = None;
            while m != ROOT_MEMCG {
                let c = &self.memcgs[m as usize];
                if c.swap_max != PAGE_COUNTER_MAX && c.swap_usage + 1 > c.swap_max {
                    over = Some(m);
                    break;
                }
                m = c.parent;
            }
            if let Some(_o) = over {
                // MEMCG_SWAP_MAX / MEMCG_SWAP_FAIL are memory.swap.events: not modelled.
                self.swap.as_mut().unwrap().free(slot);
                return false;
            }
        }
        self.swap_charge(f.memcg, 1);
        let sw = self.swap.as_mut().unwrap();
        sw.owner[slot as usize] = (f.mapping, f.index);
        self.add_to_swap_cache(pfn, slot);
        self.folios.get_mut(pfn).set(pg::DIRTY);
        true
    }

    fn swap_charge(&mut self, memcg: u16, n: u64) {
        self.memcgs[memcg as usize].st.add(St::Swap, n as i64);
        let mut m = memcg;
        loop {
            self.memcgs[m as usize].swap_usage += n;
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    fn swap_uncharge(&mut self, memcg: u16, n: u64) {
        self.memcgs[memcg as usize].st.add(St::Swap, -(n as i64));
        let mut m = memcg;
        loop {
            self.memcgs[m as usize].swap_usage -= n;
            if m == ROOT_MEMCG {
                return;
            }
            m = self.memcgs[m as usize].parent;
        }
    }

    /// `add_to_swap_cache`.
    pub fn add_to_swap_cache(&mut self, pfn: u32, slot: u32) {
        self.swap_set_entry(slot, SLOT_USED | SLOT_CACHED | pfn as u64);
        let f = self.folios.get_mut(pfn);
        f.set(pg::SWAPCACHE);
        f.swap = slot + 1;
        let m = f.memcg as usize;
        self.memcgs[m].st.add(St::SwapCached, 1);
        self.memcgs[m].st.add(St::FilePages, 1);
    }

    /// `__delete_from_swap_cache`, leaving `shadow` (0 = none) in the slot.
    pub fn delete_from_swap_cache(&mut self, pfn: u32, shadow: u64) {
        let f = *self.folios.get(pfn);
        let slot = f.swap - 1;
        let sw = self.swap.as_mut().unwrap();
        let orphan = sw.entry(slot) & SLOT_ORPHAN != 0;
        self.swap_set_entry(slot, SLOT_USED | if shadow != 0 { SLOT_SHADOW | (shadow & SLOT_VALUE) } else { 0 });
        let fm = self.folios.get_mut(pfn);
        fm.clear(pg::SWAPCACHE);
        fm.swap = 0;
        self.memcgs[f.memcg as usize].st.add(St::SwapCached, -1);
        self.memcgs[f.memcg as usize].st.add(St::FilePages, -1);
        if orphan {
            self.swap_slot_free(slot);
        }
    }

    /// Set a slot's entry, keeping the swap cache's node accounting.
    pub fn swap_set_entry(&mut self, slot: u32, v: u64) {
        let sw = self.swap.as_mut().unwrap();
        let old = slot_kind(sw.entry(slot));
        sw.set_entry(slot, v);
        self.xa_slot_changed(crate::shadow::SPACE_SWAP, u64::from(slot), old, slot_kind(v), ROOT_MEMCG);
    }

    /// Release a slot nobody references (`swap_entry_free`), uncharging swap.
    pub fn swap_slot_free(&mut self, slot: u32) {
        let old = slot_kind(self.swap.as_ref().unwrap().entry(slot));
        // swap_range_free → clear_shadow_from_swap_cache.
        self.xa_slot_changed(crate::shadow::SPACE_SWAP, u64::from(slot), old, crate::shadow::Slot::Empty, ROOT_MEMCG);
        let sw = self.swap.as_mut().unwrap();
        let memcg = sw.memcg[slot as usize];
        sw.free(slot);
        self.swap_uncharge(memcg, 1);
    }

    /// `folio_free_swap`: drop the folio's swap copy (not under
    /// writeback); it becomes dirty, as the only copy.
    pub fn folio_free_swap(&mut self, pfn: u32) -> bool {
        let f = *self.folios.get(pfn);
        if !f.test(pg::SWAPCACHE) || f.test(pg::WRITEBACK) {
            return false;
        }
        let slot = f.swap - 1;
        self.delete_from_swap_cache(pfn, 0);
        self.swap_slot_free(slot);
        self.folios.get_mut(pfn).set(pg::DIRTY);
        true
    }

    /// `free_swap_and_cache`: a swap PTE is zapped.
    pub fn free_swap_and_cache(&mut self, slot: u32) {
        let e = self.swap.as_ref().unwrap().entry(slot);
        if e & SLOT_CACHED != 0 {
            let pfn = (e & SLOT_VALUE) as u32;
            if self.folios.get(pfn).mapcount == 0 && !self.folios.get(pfn).test(pg::WRITEBACK) {
                self.delete_from_swap_cache(pfn, 0);
                self.swap_slot_free(slot);
                if !self.folios.get(pfn).test(pg::ISOLATED) {
                    self.free_unmapped_folio(pfn);
                }
                return;
            }
            // Busy: the slot goes when the folio leaves the swap cache.
            self.swap.as_mut().unwrap().set_entry(slot, e | SLOT_ORPHAN);
            return;
        }
        self.swap_slot_free(slot);
    }

    /// `mem_cgroup_swap_full`: global swap over half used, or a memcg on
    /// the way up at half its swap.max.
    pub fn mem_cgroup_swap_full(&self, memcg: u16) -> bool {
        let Some(sw) = &self.swap else { return false };
        if sw.vm_swap_full() {
            return true;
        }
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            if c.swap_max != PAGE_COUNTER_MAX && c.swap_usage * 2 >= c.swap_max {
                return true;
            }
            m = c.parent;
        }
        false
    }

    /// Unused event hook kept for memory.swap.events (not modelled).
    #[allow(dead_code)]
    fn swap_event(&mut self, _m: u16, _e: MemcgEvent) {}
}

/// What the swap cache holds for a slot entry.
fn slot_kind(e: u64) -> crate::shadow::Slot {
    if e & SLOT_CACHED != 0 {
        crate::shadow::Slot::Page
    } else if e & SLOT_SHADOW != 0 {
        crate::shadow::Slot::Shadow
    } else {
        crate::shadow::Slot::Empty
    }
}
