// SPDX-License-Identifier: GPL-2.0-only
//! One swap device: slots, the swap cache and its shadow entries.
//!
//! A slot entry is a `u64`: `USED` while the slot holds data (the kernel's
//! `swap_map` count, here at most one mapping since tasks never fork),
//! `CACHED` with a pfn while a folio for it is in the swap cache, or
//! `SHADOW` with a shadow entry once that folio was reclaimed.

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
