// SPDX-License-Identifier: GPL-2.0-only
//! One swap device and its slots (mm/swapfile.c): the slot map, which also
//! holds the swap cache's entries and their shadows.
//!
//! A slot entry is a `u64`: `USED` while the slot holds data (the kernel's
//! `swap_map` count, here at most one mapping since tasks never fork),
//! `CACHED` with a pfn while a folio for it is in the swap cache, or
//! `SHADOW` with a shadow entry once that folio was reclaimed.

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::memcontrol::ROOT_MEMCG;

pub const SLOT_USED: u64 = 1 << 63;
pub const SLOT_CACHED: u64 = 1 << 62;
pub const SLOT_SHADOW: u64 = 1 << 61;
/// No PTE references the slot any more (its task is gone) but a folio
/// under writeback still holds it in the swap cache; the slot is freed
/// when that folio leaves the swap cache.
pub const SLOT_ORPHAN: u64 = 1 << 60;
pub const SLOT_VALUE: u64 = SLOT_ORPHAN - 1;

pub struct SwapDevice {
    pub slots: Vec<u64>,
    /// The memcg each used slot is charged to (`swap_cgroup`).
    pub memcg: Vec<u16>,
    /// The anon page each used slot holds: (region, page index), the
    /// model's stand-in for the anon_vma the swapped-in folio rejoins.
    pub owner: Vec<(u32, u32)>,
    pub nr_free: u64,
    /// Next-fit cursor: the kernel's per-CPU cluster allocator hands out
    /// slots sequentially within a cluster; with one CPU that is close to
    /// next-fit over the device (simplification, docs/FIDELITY.md).
    cursor: u64,
    /// `SWP_SYNCHRONOUS_IO` (zram, brd): swap-in skips the swap cache.
    pub sync_io: bool,
    /// The swap cache's leaf nodes (shadow-node accounting).
    pub xa: crate::shadow::XaNodes,
    /// The device keeps its data in RAM, a page per slot ever written
    /// (brd: `brd_insert_page` on the first write of a sector, freed only
    /// by a discard, which swap without `swapon --discard` never sends).
    /// Simplification (docs/FIDELITY.md): the mkswap header page is not
    /// counted, and zram (compression, memory freed with the slot) is not
    /// modelled.
    pub ram: bool,
    /// Slots whose RAM page exists (only with `ram`), and their count.
    pub stored: Vec<bool>,
    pub nr_stored: u64,
}

impl SwapDevice {
    pub fn new(pages: u64, sync_io: bool, ram: bool) -> SwapDevice {
        SwapDevice {
            slots: vec![0; pages as usize],
            memcg: vec![0; pages as usize],
            owner: vec![(0, 0); pages as usize],
            nr_free: pages,
            cursor: 0,
            sync_io,
            xa: crate::shadow::XaNodes::new(pages),
            ram,
            stored: if ram { vec![false; pages as usize] } else { Vec::new() },
            nr_stored: 0,
        }
    }
    pub fn nr_pages(&self) -> u64 {
        self.slots.len() as u64
    }
    /// `folio_alloc_swap`: a free slot, or None when the device is full.
    pub fn alloc(&mut self, memcg: u16) -> Option<u32> {
        let n = self.slots.len() as u64;
        if self.nr_free == 0 {
            return None;
        }
        for _ in 0..n {
            let s = self.cursor;
            self.cursor = if s + 1 == n { 0 } else { s + 1 };
            if self.slots[s as usize] & SLOT_USED == 0 {
                self.slots[s as usize] = SLOT_USED;
                self.memcg[s as usize] = memcg;
                self.nr_free -= 1;
                return Some(s as u32);
            }
        }
        None
    }
    /// `swap_free`: drop the slot's data (its shadow goes with it).
    pub fn free(&mut self, slot: u32) {
        let e = &mut self.slots[slot as usize];
        debug_assert!(*e & SLOT_USED != 0);
        debug_assert!(*e & SLOT_CACHED == 0);
        *e = 0;
        self.nr_free += 1;
    }
    #[inline]
    pub fn entry(&self, slot: u32) -> u64 {
        self.slots[slot as usize]
    }
    #[inline]
    pub fn set_entry(&mut self, slot: u32, v: u64) {
        self.slots[slot as usize] = v;
    }
    /// `vm_swap_full`: more than half of swap in use.
    pub fn vm_swap_full(&self) -> bool {
        self.nr_free * 2 < self.nr_pages()
    }
}

impl Kernel {
    /// Which (region, page) a slot's data belongs to.
    pub fn swap_owner(&self, slot: u32) -> (u32, u32) {
        self.swap.as_ref().unwrap().owner[slot as usize]
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
}

/// What the swap cache holds for a slot entry.
pub(crate) fn slot_kind(e: u64) -> crate::shadow::Slot {
    if e & SLOT_CACHED != 0 {
        crate::shadow::Slot::Page
    } else if e & SLOT_SHADOW != 0 {
        crate::shadow::Slot::Shadow
    } else {
        crate::shadow::Slot::Empty
    }
}
