// SPDX-License-Identifier: GPL-2.0-only
//! Folios (one 4 KiB page each) in a dense table, and index-linked lists.
//!
//! The kernel keeps `struct folio` in the memmap and links LRU members with
//! `list_head`. Here a folio is 28 bytes in a `Vec`, addressed by its pfn
//! (a `u32`), and lists link pfns. The head of a list is its young end;
//! reclaim takes from the tail, as in the kernel.

/// No folio / end of a list.
pub const NIL: u32 = u32::MAX;

/// Folio flag bits (the subset of `enum pageflags` that reclaim reads),
/// plus the MGLRU gen and refs fields, packed in one `u32`.
pub mod pg {
    pub const LRU: u32 = 1 << 0;
    pub const ACTIVE: u32 = 1 << 1;
    pub const REFERENCED: u32 = 1 << 2;
    pub const WORKINGSET: u32 = 1 << 3;
    pub const DIRTY: u32 = 1 << 4;
    pub const WRITEBACK: u32 = 1 << 5;
    pub const RECLAIM: u32 = 1 << 6;
    pub const SWAPBACKED: u32 = 1 << 7;
    pub const SWAPCACHE: u32 = 1 << 8;
    pub const UNEVICTABLE: u32 = 1 << 9;
    /// `PG_readahead` is `PG_reclaim` in 6.12 (one bit, page-flags.h):
    /// a reader meeting a folio marked for reclaim takes it for a
    /// readahead mark (async readahead starts unless the folio is under
    /// writeback, `page_cache_async_ra`; a swap-cache hit counts
    /// `swap_ra_hit` and clears the mark), and a readahead-marked folio
    /// whose writeback ends is rotated to the tail as if reclaim had
    /// marked it (`folio_end_writeback`).
    pub const READAHEAD: u32 = RECLAIM;
    /// Freed while a reclaimer held it isolated (parallel scheduling: its
    /// task OOM-killed while another task's reclaim was paused with it in
    /// its batch): the reclaimer's reference is the last, and it frees the
    /// folio when it comes back to it (crate::vmscan).
    pub const ORPHAN: u32 = 1 << 10;
    /// The folio is anonymous (its mapping is an anon region), not page cache.
    pub const ANON: u32 = 1 << 11;
    /// The folio is allocated (not on the free list).
    pub const ALLOCATED: u32 = 1 << 12;
    /// Sitting in a per-CPU folio batch (holds an extra reference).
    pub const IN_BATCH: u32 = 1 << 13;
    /// Isolated from the LRU by reclaim.
    pub const ISOLATED: u32 = 1 << 14;
    pub const UPTODATE: u32 = 1 << 15;
    /// MGLRU generation + 1 (0 = not on an MGLRU list), 3 bits.
    pub const GEN_SHIFT: u32 = 16;
    pub const GEN_MASK: u32 = 0b111 << GEN_SHIFT;
    /// MGLRU refs counter, 2 bits (`LRU_REFS_WIDTH`).
    pub const REFS_SHIFT: u32 = 19;
    pub const REFS_MASK: u32 = 0b11 << REFS_SHIFT;
    /// Which classic list the folio is on (`enum lru_list` + 1; 0 = none), 3 bits.
    pub const LIST_SHIFT: u32 = 21;
    pub const LIST_MASK: u32 = 0b111 << LIST_SHIFT;
    /// Held by the operation in progress (the kernel's extra reference
    /// from a page-cache lookup): reclaim may isolate it but cannot free it.
    pub const PINNED: u32 = 1 << 24;
    /// `PG_private` of a page-cache folio: it carries buffer heads (ext4
    /// attaches them when the page is first written, by write() or
    /// through a shared mapping), charged to its memcg until it leaves
    /// the page cache.
    pub const BUFFERS: u32 = 1 << 25;
    /// A page a RAM-backed swap device stores data in (brd's backing
    /// page): kernel memory on no list, charged to no memcg. `index` 1
    /// for zsmalloc's (movable: `__PageMovable`), 0 for brd's.
    pub const DEVICE: u32 = 1 << 26;
    /// A page-table page (`pagetable_alloc`): kernel memory on no list,
    /// its charge (if any) held by the memcg's `pgtable_pages`.
    pub const PGTABLE: u32 = 1 << 27;
    /// `PG_mlocked`: mapped by a `VM_LOCKED` mapping (counted in
    /// `NR_MLOCK`); the folio is not evictable.
    pub const MLOCKED: u32 = 1 << 28;
    /// `PageAnonExclusive`: the anon page is mapped by one process only
    /// and may be written without a copy. Fork clears it on every page
    /// it shares; so does unmapping for swap (the swap PTE keeps it).
    pub const ANON_EXCLUSIVE: u32 = 1 << 29;
    /// `PageBuddy`: the first page of a free chunk on the buddy
    /// allocator's lists (crate::buddy; its order in `index`, its list's
    /// migrate type in `mapping`).
    pub const BUDDY: u32 = 1 << 30;
    /// Memory that was in use before the run and stays so: the kernel's,
    /// other programs' (a zone laid out from /proc/pagetypeinfo,
    /// crate::buddy `lay_out_zone`). On no list; `index` 1 if it counts
    /// as movable (in a Movable pageblock).
    pub const KERNEL: u32 = 1 << 31;
}

/// One simulated 4 KiB folio. 28 bytes.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Folio {
    pub flags: u32,
    pub prev: u32,
    pub next: u32,
    /// File id (page cache) or anon region id (anonymous), per `pg::ANON`.
    pub mapping: u32,
    /// Page offset inside the file or region.
    pub index: u32,
    /// Swap slot + 1 while in the swap cache, else 0 (`folio->private`/`swap`).
    pub swap: u32,
    pub memcg: u16,
    /// Number of PTEs mapping the folio (`folio_mapcount`).
    pub mapcount: u16,
}

impl Folio {
    pub(crate) const FREE: Folio = Folio {
        flags: 0,
        prev: NIL,
        next: NIL,
        mapping: NIL,
        index: 0,
        swap: 0,
        memcg: 0,
        mapcount: 0,
    };
    /// A page of the boot's memory, allocated for the run (`pg::KERNEL`;
    /// `movable`: it lies in a Movable pageblock).
    pub(crate) fn boot(movable: bool) -> Folio {
        Folio { flags: pg::ALLOCATED | pg::KERNEL, index: movable as u32, ..Folio::FREE }
    }
    #[inline]
    pub fn test(&self, f: u32) -> bool {
        self.flags & f != 0
    }
    #[inline]
    pub fn set(&mut self, f: u32) {
        self.flags |= f;
    }
    #[inline]
    pub fn clear(&mut self, f: u32) {
        self.flags &= !f;
    }
    /// `folio_is_file_lru`: not swap-backed.
    #[inline]
    pub fn is_file_lru(&self) -> bool {
        !self.test(pg::SWAPBACKED)
    }
    /// A shmem folio (tmpfs, memfd, shared anonymous): swap-backed page
    /// cache, `folio_test_swapbacked && !folio_test_anon`.
    #[inline]
    pub fn is_shmem(&self) -> bool {
        self.flags & (pg::SWAPBACKED | pg::ANON) == pg::SWAPBACKED
    }
    /// 0 = anon, 1 = file, the index the kernel uses for per-type arrays.
    #[inline]
    pub fn lru_type(&self) -> usize {
        self.is_file_lru() as usize
    }
    #[inline]
    pub fn gen_field(&self) -> u32 {
        (self.flags & pg::GEN_MASK) >> pg::GEN_SHIFT
    }
    #[inline]
    pub fn set_gen_field(&mut self, v: u32) {
        self.flags = (self.flags & !pg::GEN_MASK) | ((v << pg::GEN_SHIFT) & pg::GEN_MASK);
    }
    #[inline]
    pub fn refs_field(&self) -> u32 {
        (self.flags & pg::REFS_MASK) >> pg::REFS_SHIFT
    }
    #[inline]
    pub fn set_refs_field(&mut self, v: u32) {
        self.flags = (self.flags & !pg::REFS_MASK) | ((v << pg::REFS_SHIFT) & pg::REFS_MASK);
    }
    #[inline]
    pub fn list_field(&self) -> u32 {
        (self.flags & pg::LIST_MASK) >> pg::LIST_SHIFT
    }
    #[inline]
    pub fn set_list_field(&mut self, v: u32) {
        self.flags = (self.flags & !pg::LIST_MASK) | ((v << pg::LIST_SHIFT) & pg::LIST_MASK);
    }
}

/// A doubly linked list of folios threaded through `Folio::prev/next`.
#[derive(Clone, Copy, Debug)]
pub struct FolioList {
    pub head: u32,
    pub tail: u32,
    pub len: u64,
}

impl Default for FolioList {
    fn default() -> Self {
        FolioList { head: NIL, tail: NIL, len: 0 }
    }
}

/// Zones the model has: `ZONE_DMA`, `ZONE_DMA32`, `ZONE_NORMAL` (an x86-64
/// machine's; `ZONE_MOVABLE` and `ZONE_DEVICE` are never populated here).
pub const NR_ZONES: usize = 3;

/// The folio table: every page of simulated RAM, the buddy allocator's
/// free lists, one free area per zone (crate::buddy), and each pageblock's
/// migrate type. Zone `z` holds the pfns from `zone_end[z - 1]` (0 for
/// the first) to `zone_end[z]`.
pub struct FolioTable {
    pub f: Vec<Folio>,
    pub(crate) areas: [crate::buddy::FreeArea; NR_ZONES],
    pub(crate) block_mt: Vec<u8>,
    pub(crate) zone_end: [u32; NR_ZONES],
}

impl FolioTable {
    /// A table of `zone_pages[z]` pages in each zone, laid out in zone
    /// order, every pageblock Movable (as memmap_init leaves them) and
    /// every page free, as the boot's memblock hands them over.
    pub fn new(zone_pages: [u32; NR_ZONES]) -> FolioTable {
        FolioTable::with_layouts(zone_pages, &[None, None, None])
    }

    /// A table whose zones are laid out as /proc/pagetypeinfo showed them
    /// where a layout is given (crate::buddy `lay_out_zone`: the zone
    /// spans its pageblocks, starts on a pageblock boundary, and holds
    /// `zone_pages[z]` free pages beyond its layout's chunks for the
    /// per-CPU lists); the others as [`new`](Self::new) lays them out.
    pub fn with_layouts(zone_pages: [u32; NR_ZONES], layouts: &[Option<&crate::buddy::ZoneLayout>; NR_ZONES]) -> FolioTable {
        let mut zone_end = [0u32; NR_ZONES];
        let mut start = 0u32;
        for z in 0..NR_ZONES {
            if let Some(l) = layouts[z] {
                zone_end[z] = start.next_multiple_of(crate::buddy::PAGEBLOCK_NR_PAGES) + l.span();
            } else {
                zone_end[z] = start + zone_pages[z];
            }
            start = zone_end[z];
        }
        let blocks = start.div_ceil(crate::buddy::PAGEBLOCK_NR_PAGES) as usize;
        let mut t = FolioTable {
            f: vec![Folio::FREE; start as usize],
            areas: Default::default(),
            block_mt: vec![crate::buddy::MIGRATE_MOVABLE as u8; blocks],
            zone_end,
        };
        for z in 0..NR_ZONES {
            let zs = t.zone_start(z);
            match layouts[z] {
                Some(l) => {
                    // A laid-out zone starts on a pageblock boundary: the
                    // pages before it (after the zone below) are its own,
                    // allocated for the run.
                    let first = zone_end[z] - l.span();
                    for p in zs..first {
                        t.f[p as usize] = Folio::boot(false);
                    }
                    t.lay_out_zone(first, l, zone_pages[z]);
                }
                None => t.free_range(zs, zone_end[z]),
            }
        }
        t
    }
    /// Free pages of the node (every zone).
    #[inline]
    pub fn nr_free(&self) -> u64 {
        self.areas.iter().map(|a| a.nr_free).sum()
    }
    /// Free pages of zone `z`.
    #[inline]
    pub fn nr_free_zone(&self, z: usize) -> u64 {
        self.areas[z].nr_free
    }
    #[inline]
    pub fn nr_pages(&self) -> u64 {
        self.f.len() as u64
    }
    /// Pages of zone `z` (the model's zones are all managed pages).
    pub fn zone_pages(&self, z: usize) -> u64 {
        let start = if z == 0 { 0 } else { self.zone_end[z - 1] };
        (self.zone_end[z] - start) as u64
    }
    /// `folio_zonenum`.
    #[inline]
    pub fn zone_of(&self, pfn: u32) -> usize {
        if pfn < self.zone_end[0] {
            0
        } else if pfn < self.zone_end[1] {
            1
        } else {
            2
        }
    }
    /// Take a free Movable page of zone `z` straight from its free lists
    /// (no per-CPU list; for tests); the caller checked the watermarks.
    #[inline]
    pub fn alloc(&mut self, z: usize) -> Option<u32> {
        let pfn = self.rmqueue_smallest(z, 0, crate::buddy::MIGRATE_MOVABLE)?;
        self.mark_allocated(pfn);
        Some(pfn)
    }
    /// Free a page straight to its zone's free lists (no per-CPU list).
    #[inline]
    pub fn free(&mut self, pfn: u32) {
        self.mark_free(pfn);
        self.put_free(pfn);
    }
    /// A page of a per-CPU list handed out.
    #[inline]
    pub fn mark_allocated(&mut self, pfn: u32) {
        let fo = &mut self.f[pfn as usize];
        debug_assert_eq!(fo.flags, 0);
        fo.flags = pg::ALLOCATED;
    }
    /// A page freed onto a per-CPU list: free, not on the zone's list.
    #[inline]
    pub fn mark_free(&mut self, pfn: u32) {
        debug_assert!(self.f[pfn as usize].prev == NIL && self.f[pfn as usize].next == NIL);
        self.f[pfn as usize] = Folio::FREE;
    }
    /// A free page back on its zone's free lists (`__free_one_page` with
    /// the type of its pageblock, as `free_pcppages_bulk` takes it).
    #[inline]
    pub fn put_free(&mut self, pfn: u32) {
        debug_assert_eq!(self.f[pfn as usize].flags, 0);
        let mt = self.pageblock_mt(pfn);
        self.free_one_page(pfn, 0, mt, false);
    }

    #[inline]
    pub fn get(&self, pfn: u32) -> &Folio {
        &self.f[pfn as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, pfn: u32) -> &mut Folio {
        &mut self.f[pfn as usize]
    }

    /// `list_add`: link at the head (young end).
    #[inline]
    pub fn add_head(&mut self, list: &mut FolioList, pfn: u32) {
        let old = list.head;
        {
            let fo = &mut self.f[pfn as usize];
            debug_assert!(fo.prev == NIL && fo.next == NIL);
            fo.prev = NIL;
            fo.next = old;
        }
        if old != NIL {
            self.f[old as usize].prev = pfn;
        } else {
            list.tail = pfn;
        }
        list.head = pfn;
        list.len += 1;
    }
    /// `list_add_tail`: link at the tail (the end reclaim takes first).
    #[inline]
    pub fn add_tail(&mut self, list: &mut FolioList, pfn: u32) {
        let old = list.tail;
        {
            let fo = &mut self.f[pfn as usize];
            debug_assert!(fo.prev == NIL && fo.next == NIL);
            fo.next = NIL;
            fo.prev = old;
        }
        if old != NIL {
            self.f[old as usize].next = pfn;
        } else {
            list.head = pfn;
        }
        list.tail = pfn;
        list.len += 1;
    }
    /// `list_del`.
    #[inline]
    pub fn unlink(&mut self, list: &mut FolioList, pfn: u32) {
        let (p, n) = {
            let fo = &self.f[pfn as usize];
            (fo.prev, fo.next)
        };
        if p != NIL {
            self.f[p as usize].next = n;
        } else {
            debug_assert_eq!(list.head, pfn);
            list.head = n;
        }
        if n != NIL {
            self.f[n as usize].prev = p;
        } else {
            debug_assert_eq!(list.tail, pfn);
            list.tail = p;
        }
        let fo = &mut self.f[pfn as usize];
        fo.prev = NIL;
        fo.next = NIL;
        list.len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folio_is_28_bytes() {
        assert_eq!(std::mem::size_of::<Folio>(), 28);
    }

    #[test]
    fn list_order_head_young_tail_old() {
        let mut t = FolioTable::new([8, 0, 0]);
        let mut l = FolioList::default();
        let a = t.alloc(0).unwrap();
        let b = t.alloc(0).unwrap();
        let c = t.alloc(0).unwrap();
        t.add_head(&mut l, a);
        t.add_head(&mut l, b);
        t.add_tail(&mut l, c);
        assert_eq!((l.head, l.tail, l.len), (b, c, 3));
        t.unlink(&mut l, a);
        assert_eq!(t.get(b).next, c);
        assert_eq!(t.get(c).prev, b);
        t.unlink(&mut l, b);
        t.unlink(&mut l, c);
        assert_eq!((l.head, l.tail, l.len), (NIL, NIL, 0));
    }

    #[test]
    fn zones_hold_their_pfns_and_free_lists() {
        let mut t = FolioTable::new([2, 3, 1]);
        assert_eq!((t.nr_pages(), t.nr_free()), (6, 6));
        assert_eq!([t.zone_of(0), t.zone_of(1), t.zone_of(2), t.zone_of(4), t.zone_of(5)], [0, 0, 1, 1, 2]);
        assert_eq!([t.zone_pages(0), t.zone_pages(1), t.zone_pages(2)], [2, 3, 1]);
        let p = t.alloc(1).unwrap();
        assert_eq!(p, 4, "the smallest free chunk first (pfn 4 alone; 2-3 is a pair)");
        let q = t.alloc(0).unwrap();
        assert_eq!(q, 0);
        assert_eq!((t.nr_free_zone(0), t.nr_free_zone(1), t.nr_free()), (1, 2, 4));
        t.free(p);
        assert_eq!((t.nr_free_zone(1), t.nr_free()), (3, 5));
        assert_eq!(t.alloc(2), Some(5));
        assert_eq!(t.alloc(2), None, "an empty zone gives nothing");
    }
}
