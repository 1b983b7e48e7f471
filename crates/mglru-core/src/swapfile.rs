// SPDX-License-Identifier: GPL-2.0-only
//! One swap device and its slots (mm/swapfile.c): the slot map, which also
//! holds the swap cache's entries and their shadows.
//!
//! A slot entry is a `u64`: `USED` while the slot holds data, `CACHED`
//! with a pfn while a folio for it is in the swap cache (the kernel's
//! `SWAP_HAS_CACHE`), or `SHADOW` with a shadow entry once that folio was
//! reclaimed. Beside it, `count` is the kernel's `swap_map` count: how many
//! swap PTEs refer to the slot (more than one after a fork shared it).

use crate::folio::pg;
use crate::kernel::Kernel;
use crate::memcontrol::ROOT_MEMCG;

pub const SLOT_USED: u64 = 1 << 63;
/// `SWAPFILE_CLUSTER`: slots per swap cluster (HPAGE_PMD_NR on x86-64).
pub const SWAPFILE_CLUSTER: u64 = 512;
pub const SLOT_CACHED: u64 = 1 << 62;
pub const SLOT_SHADOW: u64 = 1 << 61;
/// No PTE references the slot any more (its task is gone) but a folio
/// under writeback still holds it in the swap cache; the slot is freed
/// when that folio leaves the swap cache.
pub const SLOT_ORPHAN: u64 = 1 << 60;
pub const SLOT_VALUE: u64 = SLOT_ORPHAN - 1;

pub struct SwapDevice {
    pub slots: Vec<u64>,
    /// Swap PTEs referring to each slot (`swap_count(swap_map[slot])`).
    pub count: Vec<u16>,
    /// The memcg each used slot is charged to (`swap_cgroup`).
    pub memcg: Vec<u16>,
    /// The page each used slot holds: (region, page index), the model's
    /// stand-in for the anon_vma the swapped-in folio rejoins; for a
    /// shmem page (file | `shmem::OWNER_SHMEM`, page index).
    pub owner: Vec<(u32, u32)>,
    pub nr_free: u64,
    /// Next-fit cursor: the kernel's per-CPU cluster allocator hands out
    /// slots sequentially within a cluster; with one CPU that is close to
    /// next-fit over the device (simplification, docs/FIDELITY.md).
    cursor: u64,
    /// Where `swap_reclaim_full_clusters` looks next (a cluster index):
    /// the kernel scans its full-cluster list round robin, moving each
    /// scanned cluster to the tail; the model goes round by index.
    pub full_cursor: u64,
    /// Slots in use per cluster of SWAPFILE_CLUSTER (a cluster is full
    /// when all of its slots are), kept by `alloc` and `free`.
    cluster_used: Vec<u16>,
    /// `SWP_SYNCHRONOUS_IO` (zram, brd): swap-in skips the swap cache.
    pub sync_io: bool,
    /// The swap cache's leaf nodes (shadow-node accounting).
    pub xa: crate::shadow::XaNodes,
    /// The device keeps its data in RAM, a page per slot ever written
    /// (brd: `brd_insert_page` on the first write of a sector, freed only
    /// by a discard, which swap without `swapon --discard` never sends).
    /// Simplification (docs/FIDELITY.md): the mkswap header page is not
    /// counted.
    pub ram: bool,
    /// Slots whose data the device holds in RAM (with `ram` or `zram`),
    /// and their count.
    pub stored: Vec<bool>,
    pub nr_stored: u64,
    /// A zram device: its compressed store (crate::swapfile::Zram).
    pub zram: Option<Zram>,
    /// The cluster readahead's state (`swapin_nr_pages`' statics and
    /// `swapin_readahead_hits`), used by shmem's swap-in.
    pub cluster_ra: ClusterRa,
}

/// `swapin_nr_pages`' state: the previous offset, the previous window,
/// and the readahead hits since (mm/swap_state.c, global there; one
/// device here).
#[derive(Clone, Copy, Debug, Default)]
pub struct ClusterRa {
    pub prev_offset: u64,
    pub last_pages: u64,
    pub hits: u32,
}

/// A zram device's memory (drivers/block/zram/zram_drv.c on mm/zsmalloc.c).
///
/// zram compresses each page written to it and keeps the result in a
/// zsmalloc pool: objects of one size class are packed into "zspages" of
/// 1..=8 physical pages allocated together, and the pool's pages come from
/// RAM — unmovable kernel memory of the zone, charged to no memcg. A slot's
/// object goes when the slot is freed (`swap_slot_free_notify` →
/// `zram_free_page`), and with it, eventually, the zspage.
///
/// The model knows no page contents, so a page compresses by a ratio
/// given for its data: a shmem file's `zram_ratio=` for that file's pages,
/// the device's `ratio=` for every other page. A page of ratio R is an
/// object of `ceil(4096 / R)` bytes (a whole page when that reaches
/// zsmalloc's huge class, as `zram_write_page` stores incompressible
/// pages), in the size class `zs_malloc` picks for it with the handle's
/// bytes added; objects of one size class share that class's zspages,
/// whichever ratio they came from. Simplifications (docs/FIDELITY.md):
/// no same-filled pages (they take no memory in the kernel); each class is
/// always packed (`ceil(objects / objs_per_zspage)` zspages, as after
/// compaction: the kernel frees a zspage only when its last object goes,
/// so after scattered frees it holds more until `zs_compact`); zram's
/// per-slot table (allocated once at `disksize`) is not counted.
#[derive(Clone, Debug)]
pub struct Zram {
    /// The device's compression ratio in hundredths (`ratio=`).
    pub ratio: u32,
    /// The ratios the device has stored pages of, the device's first:
    /// each with its object's bytes and size class (an index of `classes`).
    pub kinds: Vec<ZsKind>,
    /// The size classes in use, each with its zspages.
    pub classes: Vec<ZsClass>,
    /// Per slot, the kind (index of `kinds`) of the object it holds.
    pub slot_kind: Vec<u8>,
    /// Bytes of the stored objects (`compr_data_size`).
    pub compr_bytes: u64,
}

/// One compression ratio's objects (crate::swapfile::Zram `kinds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZsKind {
    /// Hundredths.
    pub ratio: u32,
    /// Bytes stored per page (`comp_len`).
    pub comp_len: u32,
    /// Its size class: an index of `Zram::classes`.
    pub class: u8,
}

/// One zsmalloc size class: the object size, pages per zspage and objects
/// per zspage, the objects stored and the pool pages holding them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZsClass {
    pub class_size: u32,
    pub pages_per_zspage: u32,
    pub objs_per_zspage: u32,
    pub objects: u64,
    /// The class's pages, in allocation order.
    pub pfns: Vec<u32>,
}

/// At most this many distinct ratios on one device (`Zram::slot_kind` is
/// a byte per slot).
pub const ZRAM_MAX_KINDS: usize = 255;

/// `PAGE_SIZE` as zsmalloc's arithmetic uses it.
const ZS_PAGE: u32 = 4096;
/// `CONFIG_ZSMALLOC_CHAIN_SIZE` (the default, and Debian's 6.12).
pub const ZS_MAX_PAGES_PER_ZSPAGE: u32 = 8;
/// `ZS_MIN_ALLOC_SIZE` on x86-64 (32 bytes).
const ZS_MIN_ALLOC_SIZE: u32 = 32;
/// `ZS_SIZE_CLASS_DELTA` (`PAGE_SIZE >> CLASS_BITS`).
const ZS_SIZE_CLASS_DELTA: u32 = ZS_PAGE >> 8;
/// `ZS_HANDLE_SIZE`: zs_malloc adds it to every object.
const ZS_HANDLE_SIZE: u32 = 8;

/// `calculate_zspage_chain_size`: the pages per zspage (1..=8) that waste
/// the least of the last page, the first such count on ties.
pub fn zspage_chain_size(class_size: u32) -> u32 {
    if class_size.is_power_of_two() {
        return 1;
    }
    let mut best = (u32::MAX, 1);
    for i in 1..=ZS_MAX_PAGES_PER_ZSPAGE {
        let waste = (i * ZS_PAGE) % class_size;
        if waste < best.0 {
            best = (waste, i);
        }
    }
    best.1
}

/// The size of zsmalloc's first huge class less the handle's bytes
/// (`zs_huge_class_size`): from the largest class down, the first with
/// more than one page per zspage and more than one object per zspage.
/// A compressed page this long or longer is stored whole.
pub fn zs_huge_class_size() -> u32 {
    let nr_classes = (ZS_PAGE - ZS_MIN_ALLOC_SIZE).div_ceil(ZS_SIZE_CLASS_DELTA) + 1;
    for i in (0..nr_classes).rev() {
        let size = (ZS_MIN_ALLOC_SIZE + i * ZS_SIZE_CLASS_DELTA).min(ZS_PAGE);
        let pages = zspage_chain_size(size);
        if pages != 1 && pages * ZS_PAGE / size != 1 {
            return size - (ZS_HANDLE_SIZE - 1);
        }
    }
    ZS_PAGE
}

/// A page of ratio `ratio` (hundredths) as zsmalloc stores it: the
/// compressed length (`comp_len`, a whole page from the huge class on) and
/// the size class `zs_malloc` puts it in (`get_size_class_index`, after
/// the handle's bytes).
pub fn zs_object(ratio: u32) -> (u32, u32) {
    debug_assert!(ratio >= 100);
    let mut comp_len = (u64::from(ZS_PAGE) * 100).div_ceil(u64::from(ratio)) as u32;
    if comp_len >= zs_huge_class_size() {
        comp_len = ZS_PAGE;
    }
    let size = comp_len + ZS_HANDLE_SIZE;
    let idx = if size > ZS_MIN_ALLOC_SIZE { (size - ZS_MIN_ALLOC_SIZE).div_ceil(ZS_SIZE_CLASS_DELTA) } else { 0 };
    (comp_len, (ZS_MIN_ALLOC_SIZE + idx * ZS_SIZE_CLASS_DELTA).min(ZS_PAGE))
}

impl ZsClass {
    pub fn new(class_size: u32) -> ZsClass {
        let pages_per_zspage = zspage_chain_size(class_size);
        ZsClass { class_size, pages_per_zspage, objs_per_zspage: pages_per_zspage * ZS_PAGE / class_size, objects: 0, pfns: Vec::new() }
    }

    /// Pool pages needed for `objects` objects of this class, packed.
    pub fn pages_for(&self, objects: u64) -> u64 {
        objects.div_ceil(u64::from(self.objs_per_zspage)) * u64::from(self.pages_per_zspage)
    }
}

impl Zram {
    /// A device of `slots` slots compressing by `ratio` (hundredths).
    pub fn new(ratio: u32, slots: u64) -> Zram {
        let mut z = Zram { ratio, kinds: Vec::new(), classes: Vec::new(), slot_kind: vec![0; slots as usize], compr_bytes: 0 };
        z.kind_of(ratio);
        z
    }

    /// The kind of a page of ratio `ratio`, added (with its class) at its
    /// first use; None when the device already has ZRAM_MAX_KINDS ratios.
    pub fn kind_of(&mut self, ratio: u32) -> Option<u8> {
        if let Some(k) = self.kinds.iter().position(|k| k.ratio == ratio) {
            return Some(k as u8);
        }
        if self.kinds.len() >= ZRAM_MAX_KINDS {
            return None;
        }
        let (comp_len, class_size) = zs_object(ratio);
        let class = match self.classes.iter().position(|c| c.class_size == class_size) {
            Some(c) => c,
            None => {
                self.classes.push(ZsClass::new(class_size));
                self.classes.len() - 1
            }
        };
        self.kinds.push(ZsKind { ratio, comp_len, class: class as u8 });
        Some((self.kinds.len() - 1) as u8)
    }

    /// The device's own kind (its `ratio=`).
    pub fn device_kind(&self) -> &ZsKind {
        &self.kinds[0]
    }

    /// The pool's pages, every class's.
    pub fn pool_pages(&self) -> u64 {
        self.classes.iter().map(|c| c.pfns.len() as u64).sum()
    }
}

impl SwapDevice {
    pub fn new(pages: u64, sync_io: bool, ram: bool, zram: Option<u32>) -> SwapDevice {
        let stores = ram || zram.is_some();
        SwapDevice {
            slots: vec![0; pages as usize],
            count: vec![0; pages as usize],
            memcg: vec![0; pages as usize],
            owner: vec![(0, 0); pages as usize],
            nr_free: pages,
            cursor: 0,
            full_cursor: 0,
            cluster_used: vec![0; pages.div_ceil(SWAPFILE_CLUSTER) as usize],
            // zram is always SWP_SYNCHRONOUS_IO.
            sync_io: sync_io || zram.is_some(),
            xa: crate::shadow::XaNodes::new(pages),
            ram,
            stored: if stores { vec![false; pages as usize] } else { Vec::new() },
            nr_stored: 0,
            zram: zram.map(|r| Zram::new(r, pages)),
            cluster_ra: ClusterRa::default(),
        }
    }
    pub fn nr_pages(&self) -> u64 {
        self.slots.len() as u64
    }
    /// Pages of RAM the device holds (brd's pages, zram's pool).
    pub fn device_pages(&self) -> u64 {
        match &self.zram {
            Some(z) => z.pool_pages(),
            None => self.nr_stored,
        }
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
                self.cluster_used[(s / SWAPFILE_CLUSTER) as usize] += 1;
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
        debug_assert_eq!(self.count[slot as usize], 0, "freeing swap slot {slot} that PTEs still refer to");
        *e = 0;
        self.nr_free += 1;
        self.cluster_used[(u64::from(slot) / SWAPFILE_CLUSTER) as usize] -= 1;
    }
    /// Whether every slot of cluster `c` is in use.
    fn cluster_full(&self, c: u64) -> bool {
        let size = (self.nr_pages() - c * SWAPFILE_CLUSTER).min(SWAPFILE_CLUSTER);
        u64::from(self.cluster_used[c as usize]) == size
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

    /// How many swap PTEs refer to `slot` (`__swap_count`).
    #[inline]
    pub fn swap_count(&self, slot: u32) -> u16 {
        self.swap.as_ref().unwrap().count[slot as usize]
    }

    /// `swap_duplicate`: one more swap PTE refers to `slot` (an unmap for
    /// swap, or a fork copying a swap PTE). A slot no PTE referred to
    /// while its folio sat in the swap cache is referred to again.
    pub fn swap_duplicate(&mut self, slot: u32) {
        let sw = self.swap.as_mut().unwrap();
        let c = &mut sw.count[slot as usize];
        *c = c.checked_add(1).expect("swap count overflow (the caller bounds the mappings)");
        let e = sw.entry(slot);
        if e & SLOT_ORPHAN != 0 {
            sw.set_entry(slot, e & !SLOT_ORPHAN);
        }
    }

    /// `swap_free` of one PTE's reference (a swap-in, or a zap): the count
    /// left.
    pub fn swap_put_ref(&mut self, slot: u32) -> u16 {
        let c = &mut self.swap.as_mut().unwrap().count[slot as usize];
        debug_assert!(*c > 0, "swap slot {slot} dropped by a PTE that did not refer to it");
        *c -= 1;
        *c
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
        // swap_range_free → swap_slot_free_notify: zram drops the slot's
        // object (zram_free_page).
        if sw.zram.is_some() && sw.stored[slot as usize] {
            self.zram_free_page(slot);
        }
        self.swap_uncharge(memcg, 1);
    }

    /// `folio_free_swap`: drop the folio's swap copy (not under
    /// writeback); it becomes dirty, as the only copy.
    pub fn folio_free_swap(&mut self, pfn: u32) -> bool {
        let f = *self.folios.get(pfn);
        if !f.test(pg::SWAPCACHE) || f.test(pg::WRITEBACK) {
            return false;
        }
        // folio_swapped: another process still has a swap PTE for it.
        if self.swap_count(f.swap - 1) > 0 {
            return false;
        }
        self.swap_cache_drop(pfn);
        self.folios.get_mut(pfn).set(pg::DIRTY);
        true
    }

    /// `swap_reclaim_full_clusters(si, false)`, which `cluster_alloc_swap_entry`
    /// runs while swap is over half full (`vm_swap_full`): the next full
    /// cluster (SWAPFILE_CLUSTER slots, every one in use) gives back each
    /// slot held only by the swap cache (`__try_to_reclaim_swap` with
    /// TTRS_ANYWAY: no PTE refers to it, the folio is not under writeback
    /// and not locked — an isolated or held folio is), the folio staying
    /// in memory, dirty. Only asynchronous devices keep such slots for
    /// long (a synchronous device's swap-in frees its slot).
    pub(crate) fn swap_reclaim_full_clusters(&mut self) {
        let Some(sw) = self.swap.as_mut() else { return };
        let n = sw.nr_pages();
        let clusters = n.div_ceil(SWAPFILE_CLUSTER);
        let start = sw.full_cursor;
        if let Some(c) = (0..clusters).map(|i| (start + i) % clusters).find(|&c| sw.cluster_full(c)) {
            sw.full_cursor = (c + 1) % clusters;
            for s in c * SWAPFILE_CLUSTER..((c + 1) * SWAPFILE_CLUSTER).min(n) {
                let e = self.swap.as_ref().unwrap().slots[s as usize];
                if e & SLOT_CACHED == 0 || self.swap_count(s as u32) != 0 {
                    continue;
                }
                let pfn = (e & SLOT_VALUE) as u32;
                let f = self.folios.get(pfn);
                if f.test(pg::ISOLATED) || f.test(pg::PINNED) {
                    continue; // folio_trylock fails
                }
                self.folio_free_swap(pfn);
            }
        }
    }

    /// Take a folio out of the swap cache and free its slot, which no PTE
    /// refers to any more (a slot marked `SLOT_ORPHAN` is freed by the
    /// removal itself).
    pub(crate) fn swap_cache_drop(&mut self, pfn: u32) {
        let slot = self.folios.get(pfn).swap - 1;
        debug_assert_eq!(self.swap_count(slot), 0);
        let orphan = self.swap.as_ref().unwrap().entry(slot) & SLOT_ORPHAN != 0;
        self.delete_from_swap_cache(pfn, 0);
        if !orphan {
            self.swap_slot_free(slot);
        }
    }

    /// `free_swap_and_cache`: a swap PTE is zapped. The slot and its
    /// swap-cache folio stay while other swap PTEs refer to it. When the
    /// last goes, `__try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL)` takes
    /// the folio out of the swap cache if no process maps it (it is freed),
    /// or if swap is full for its memcg (`mem_cgroup_swap_full`): a folio
    /// still mapped (by another process since a fork) stays, dirty, and
    /// its slot goes.
    pub fn free_swap_and_cache(&mut self, slot: u32) {
        if self.swap_put_ref(slot) > 0 {
            return;
        }
        let e = self.swap.as_ref().unwrap().entry(slot);
        if e & SLOT_CACHED != 0 {
            let pfn = (e & SLOT_VALUE) as u32;
            let f = *self.folios.get(pfn);
            if f.mapcount > 0
                && !f.test(pg::WRITEBACK)
                && !f.test(pg::ISOLATED)
                && !f.test(pg::PINNED)
                && self.mem_cgroup_swap_full(f.memcg)
            {
                // (An isolated or held folio fails folio_trylock, as in
                // swap_reclaim_full_clusters.)
                self.folio_free_swap(pfn);
                return;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zsmalloc_classes() {
        // A power of two fills its pages exactly: one page per zspage.
        assert_eq!(zspage_chain_size(32), 1);
        assert_eq!(zspage_chain_size(2048), 1);
        // 48 bytes: 4096 mod 48 = 16, 8192 mod 48 = 32, 12288 mod 48 = 0.
        assert_eq!(zspage_chain_size(48), 3);
        // From 4096 down, sizes above 3632 waste least with one page (one
        // object); 3632 takes 8 pages for 9 objects (32768 - 9 * 3632 =
        // 80 bytes of waste): the first class that is not huge. Less the
        // handle's 8 bytes plus one: 3625.
        assert_eq!(zspage_chain_size(3632), 8);
        assert_eq!(zs_huge_class_size(), 3625);
        // Ratio 1.13: ceil(4096 / 1.13) = 3625 bytes reaches the huge
        // class and is stored as a whole page, one per 4096-byte class.
        let z = Zram::new(113, 1);
        let (k, c) = (z.kinds[0], &z.classes[0]);
        assert_eq!((k.comp_len, c.class_size, c.pages_per_zspage, c.objs_per_zspage), (4096, 4096, 1, 1));
        // Ratio 1.14: 3593 bytes, 3601 with the handle: class 3616 (32 +
        // 224 * 16); 8 pages hold 9 such objects (waste 224), less than
        // any other count.
        let mut z = Zram::new(114, 1);
        let (k, c) = (z.kinds[0], z.classes[0].clone());
        assert_eq!((k.comp_len, c.class_size), (3593, 3616));
        assert_eq!((c.pages_per_zspage, c.objs_per_zspage), (8, 9));
        assert_eq!(c.pages_for(9), 8);
        assert_eq!(c.pages_for(10), 16);
        assert_eq!(c.pages_for(0), 0);
        // Ratio 1.8 is 2276 bytes, 2284 with the handle: class 2288
        // (32 + 141 * 16), a class of its own. Ratios 90 and 100 are 46 and
        // 41 bytes, 54 and 49 with the handle: both class 64 (32 + 2 * 16),
        // whose zspages they share.
        assert_eq!(z.kind_of(180), Some(1));
        assert_eq!((z.kinds[1].comp_len, z.kinds[1].class, z.classes[1].class_size), (2276, 1, 2288));
        assert_eq!(z.kind_of(9000), Some(2));
        assert_eq!(z.kind_of(10000), Some(3));
        assert_eq!((z.kinds[2].comp_len, z.kinds[3].comp_len), (46, 41));
        assert_eq!((z.kinds[2].class, z.kinds[3].class, z.classes[2].class_size), (2, 2, 64));
        assert_eq!(z.kind_of(114), Some(0));
        assert_eq!(z.classes.len(), 3);
    }
}
