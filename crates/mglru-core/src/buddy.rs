// SPDX-License-Identifier: GPL-2.0-only
//! The buddy allocator's free lists and pageblocks (the free-area part of
//! mm/page_alloc.c): free memory as power-of-two chunks of pages, each on
//! the list of its order and of its pageblock's migrate type, chunks that
//! are buddies merged as they are freed, and each pageblock (2^9 pages)
//! typed Unmovable, Movable or Reclaimable.
//!
//! What reclaim sees of this is watermark boosting: when a Movable
//! allocation finds its own lists empty and falls back to a chunk of an
//! Unmovable or Reclaimable block large enough to try claiming the block
//! (order ≥ 4), the zone's watermarks are raised and kswapd is woken
//! (crate::page_alloc `try_to_steal_block`, crate::kswapd's boosted
//! passes). The order in which chunks are taken and merged follows 6.12,
//! so which blocks fill up, and when a fallback happens, follows from the
//! same rules.
//!
//! A free chunk is its first page's folio with `pg::BUDDY` set: its order
//! in `index`, the migrate type of the list it is on in `mapping`, and its
//! list links in `prev`/`next` (a free page is on no LRU). The other pages
//! of the chunk are plain free folios. Simplifications (docs/FIDELITY.md
//! simplification 3): no HighAtomic or Isolate blocks, no CMA, no page
//! shuffling (`page_alloc.shuffle` is off by default), no compaction.

use crate::folio::{pg, Folio, FolioTable, NIL, NR_ZONES};

/// `MAX_PAGE_ORDER`: the largest chunk is 2^10 pages (4 MiB).
pub const MAX_PAGE_ORDER: u32 = 10;
/// `NR_PAGE_ORDERS`.
pub const NR_PAGE_ORDERS: usize = MAX_PAGE_ORDER as usize + 1;
/// `pageblock_order` on x86-64 (a 2 MiB huge page).
pub const PAGEBLOCK_ORDER: u32 = 9;
/// `pageblock_nr_pages`.
pub const PAGEBLOCK_NR_PAGES: u32 = 1 << PAGEBLOCK_ORDER;

/// `enum migratetype`, the types with per-CPU lists (`MIGRATE_PCPTYPES`).
pub const MIGRATE_UNMOVABLE: usize = 0;
pub const MIGRATE_MOVABLE: usize = 1;
pub const MIGRATE_RECLAIMABLE: usize = 2;
pub const MIGRATE_PCPTYPES: usize = 3;
/// Names as /proc/pagetypeinfo prints them.
pub const MIGRATETYPE_NAMES: [&str; MIGRATE_PCPTYPES] = ["Unmovable", "Movable", "Reclaimable"];

/// `fallbacks[]`: the types an allocation falls back to, in order, when
/// the lists of its own type are empty.
const FALLBACKS: [[usize; 2]; MIGRATE_PCPTYPES] = [
    [MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE],
    [MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE],
    [MIGRATE_UNMOVABLE, MIGRATE_MOVABLE],
];

/// One free list: chunk heads linked through their folios.
#[derive(Clone, Copy, Debug)]
struct ChunkList {
    head: u32,
    tail: u32,
}

impl Default for ChunkList {
    fn default() -> Self {
        ChunkList { head: NIL, tail: NIL }
    }
}

/// A zone's `free_area[]`: per order, a list per migrate type and the
/// number of chunks of that order (`area->nr_free`); and the zone's free
/// pages (`NR_FREE_PAGES`).
#[derive(Clone, Debug, Default)]
pub struct FreeArea {
    lists: [[ChunkList; MIGRATE_PCPTYPES]; NR_PAGE_ORDERS],
    chunks: [[u32; MIGRATE_PCPTYPES]; NR_PAGE_ORDERS],
    /// Per type, bit `o` set when its list of order `o` is not empty
    /// (finds the smallest chunk without walking the orders).
    nonempty: [u16; MIGRATE_PCPTYPES],
    pub nr_free: u64,
}

impl FreeArea {
    /// Chunks of `order` on the list of type `mt`.
    pub fn nr_chunks(&self, order: usize, mt: usize) -> u32 {
        self.chunks[order][mt]
    }
}

/// `can_steal_fallback`: whether a fallback from a chunk of `order` may
/// claim the chunk's whole pageblock for `start_mt`: a chunk of half a
/// pageblock or more, or any chunk for an Unmovable or Reclaimable
/// allocation.
fn can_steal_fallback(order: u32, start_mt: usize) -> bool {
    order >= PAGEBLOCK_ORDER / 2 || start_mt == MIGRATE_RECLAIMABLE || start_mt == MIGRATE_UNMOVABLE
}

/// `page_is_buddy`: `pfn` heads a free chunk of `order` in the zone whose
/// folios are `f`'s from `start` on (`f` ends where the zone ends).
#[inline(always)]
fn is_buddy(f: &[Folio], start: u32, pfn: u32, order: u32) -> bool {
    if pfn < start {
        return false;
    }
    match f.get(pfn as usize) {
        Some(h) => h.flags & pg::BUDDY != 0 && h.index == order,
        None => false,
    }
}

/// `buddy_merge_likely`: the chunk one order up from the merged one (at
/// `pfn`, of `order`) has a free buddy; the last buddy looked at is
/// `buddy_pfn`.
#[inline(always)]
fn buddy_merge_likely(f: &[Folio], start: u32, pfn: u32, buddy_pfn: u32, order: u32) -> bool {
    if order >= MAX_PAGE_ORDER - 1 {
        return false;
    }
    let higher = buddy_pfn & pfn;
    is_buddy(f, start, higher ^ (1 << (order + 1)), order + 1)
}

/// `change_pageblock_range` on the table of pageblock types.
#[inline]
fn set_pageblock_range(block_mt: &mut [u8], pfn: u32, order: u32, mt: usize) {
    let first = (pfn >> PAGEBLOCK_ORDER) as usize;
    let blocks = 1usize << order.saturating_sub(PAGEBLOCK_ORDER);
    for b in &mut block_mt[first..first + blocks] {
        *b = mt as u8;
    }
}

/// `__free_one_page` on zone's free area `area`, its folios `f` (the
/// table up to the zone's end; the zone starts at `start`) and the
/// pageblock types: a free chunk of `order` at `pfn` (pages already marked
/// free) of type `mt` merges with its free buddies, up to MAX_PAGE_ORDER,
/// and goes on its list — at the tail if `to_tail` (FPI_TO_TAIL) or when
/// the chunk one order up is likely to merge soon (`buddy_merge_likely`),
/// else at the head.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn merge_free_chunk(f: &mut [Folio], area: &mut FreeArea, block_mt: &mut [u8], start: u32, mut pfn: u32, mut order: u32, mt: usize, to_tail: bool) {
    debug_assert_eq!(pfn & ((1 << order) - 1), 0);
    area.nr_free += 1 << order;
    let mut buddy_pfn = 0;
    while order < MAX_PAGE_ORDER {
        buddy_pfn = pfn ^ (1 << order);
        if !is_buddy(f, start, buddy_pfn, order) {
            break;
        }
        // No merging across pageblocks of the types without fallbacks
        // (HighAtomic, Isolate): the model has none, so every merge is
        // allowed; the buddy's blocks take the freed chunk's type.
        let buddy_mt = f[buddy_pfn as usize].mapping as usize;
        area.del(f, buddy_pfn);
        if order >= PAGEBLOCK_ORDER && buddy_mt != mt {
            set_pageblock_range(block_mt, buddy_pfn, order, mt);
        }
        pfn &= buddy_pfn;
        order += 1;
    }
    let tail = to_tail || buddy_merge_likely(f, start, pfn, buddy_pfn, order);
    area.add(f, pfn, order, mt, tail);
}

impl FreeArea {
    /// `__add_to_free_list` + `set_buddy_order`: `pfn` heads a free chunk
    /// of `order` on the list of `mt`, at its head or its tail (`f`: the
    /// folios, which the lists link).
    #[inline(always)]
    fn add(&mut self, f: &mut [Folio], pfn: u32, order: u32, mt: usize, tail: bool) {
        let o = order as usize;
        let l = &mut self.lists[o][mt];
        let (prev, next) = if tail { (l.tail, NIL) } else { (NIL, l.head) };
        {
            let h = &mut f[pfn as usize];
            debug_assert_eq!(h.flags, 0, "a chunk head that is not free: pfn {pfn}");
            h.flags = pg::BUDDY;
            h.index = order;
            h.mapping = mt as u32;
            h.prev = prev;
            h.next = next;
        }
        if tail {
            if prev != NIL {
                f[prev as usize].next = pfn;
            } else {
                l.head = pfn;
            }
            l.tail = pfn;
        } else {
            if next != NIL {
                f[next as usize].prev = pfn;
            } else {
                l.tail = pfn;
            }
            l.head = pfn;
        }
        self.chunks[o][mt] += 1;
        self.nonempty[mt] |= 1 << o;
    }

    /// `__del_page_from_free_list`: the chunk `pfn` heads leaves its list;
    /// its head is a plain free page again.
    #[inline(always)]
    fn del(&mut self, f: &mut [Folio], pfn: u32) {
        let (o, mt, prev, next) = {
            let h = &f[pfn as usize];
            debug_assert!(h.flags & pg::BUDDY != 0, "not a chunk head: pfn {pfn}");
            (h.index as usize, h.mapping as usize, h.prev, h.next)
        };
        let l = &mut self.lists[o][mt];
        if prev != NIL {
            f[prev as usize].next = next;
        } else {
            l.head = next;
        }
        if next != NIL {
            f[next as usize].prev = prev;
        } else {
            l.tail = prev;
        }
        let n = &mut self.chunks[o][mt];
        *n -= 1;
        if *n == 0 {
            self.nonempty[mt] &= !(1 << o);
        }
        f[pfn as usize] = Folio::FREE;
    }
}

impl FolioTable {
    /// `get_pfnblock_migratetype`.
    #[inline]
    pub fn pageblock_mt(&self, pfn: u32) -> usize {
        self.block_mt[(pfn >> PAGEBLOCK_ORDER) as usize] as usize
    }

    /// `set_pageblock_migratetype`.
    #[inline]
    pub fn set_pageblock_mt(&mut self, pfn: u32, mt: usize) {
        self.block_mt[(pfn >> PAGEBLOCK_ORDER) as usize] = mt as u8;
    }

    /// `change_pageblock_range`: every pageblock of a chunk of `order`
    /// (one if it is smaller than a pageblock).
    pub fn change_pageblock_range(&mut self, pfn: u32, order: u32, mt: usize) {
        set_pageblock_range(&mut self.block_mt, pfn, order, mt);
    }

    /// Zone `z`'s pageblocks of each migrate type, as /proc/pagetypeinfo
    /// counts them: a pageblock at a time from the zone's first pfn.
    pub fn pageblocks_by_type(&self, z: usize) -> [u64; MIGRATE_PCPTYPES] {
        let mut n = [0; MIGRATE_PCPTYPES];
        let (start, end) = (self.zone_start(z), self.zone_end[z]);
        let mut p = start;
        while p < end {
            n[self.pageblock_mt(p)] += 1;
            p += PAGEBLOCK_NR_PAGES;
        }
        n
    }

    /// Zone `z`'s free area.
    #[inline]
    pub fn free_area(&self, z: usize) -> &FreeArea {
        &self.areas[z]
    }

    /// The first pfn of zone `z`.
    #[inline]
    pub fn zone_start(&self, z: usize) -> u32 {
        if z == 0 {
            0
        } else {
            self.zone_end[z - 1]
        }
    }

    /// `__add_to_free_list` + `set_buddy_order`: `pfn` (of zone `z`) heads
    /// a free chunk of `order` on the list of `mt`, at its head or its tail.
    #[inline]
    fn add_to_free_list(&mut self, z: usize, pfn: u32, order: u32, mt: usize, tail: bool) {
        self.areas[z].add(&mut self.f, pfn, order, mt, tail);
    }

    /// `__del_page_from_free_list`: the chunk `pfn` (of zone `z`) heads
    /// leaves its list; its head is a plain free page again.
    #[inline]
    fn del_from_free_list(&mut self, z: usize, pfn: u32) {
        self.areas[z].del(&mut self.f, pfn);
    }

    /// `move_to_free_list`: a chunk moves to the tail of another type's list.
    fn move_to_free_list(&mut self, z: usize, pfn: u32, new_mt: usize) {
        let order = self.f[pfn as usize].index;
        self.del_from_free_list(z, pfn);
        self.add_to_free_list(z, pfn, order, new_mt, true);
    }

    /// `__free_one_page` for a chunk whose zone is not known yet (see
    /// [`free_one_page_zone`](Self::free_one_page_zone)).
    pub fn free_one_page(&mut self, pfn: u32, order: u32, mt: usize, to_tail: bool) {
        let z = self.zone_of(pfn);
        self.free_one_page_zone(z, pfn, order, mt, to_tail);
    }

    /// `__free_one_page`: a free chunk of `order` at `pfn` of zone `z`
    /// (pages already marked free) of type `mt` merges with its free
    /// buddies and goes on its list (`merge_free_chunk`).
    #[inline]
    pub(crate) fn free_one_page_zone(&mut self, z: usize, pfn: u32, order: u32, mt: usize, to_tail: bool) {
        debug_assert_eq!(self.zone_of(pfn), z);
        let start = self.zone_start(z);
        let f = &mut self.f[..self.zone_end[z] as usize];
        merge_free_chunk(f, &mut self.areas[z], &mut self.block_mt, start, pfn, order, mt, to_tail);
    }

    /// `free_pcppages_bulk`'s `__free_one_page` of each order-0 page of
    /// zone `z` that `pages` gives (from a per-CPU list, already marked
    /// free), with the type its pageblock has when it is freed.
    #[inline]
    pub(crate) fn free_pcp_pages(&mut self, z: usize, pages: impl Iterator<Item = u32>) {
        let start = self.zone_start(z);
        let f = &mut self.f[..self.zone_end[z] as usize];
        let (area, block_mt) = (&mut self.areas[z], &mut self.block_mt[..]);
        for pfn in pages {
            debug_assert!(pfn >= start && f[pfn as usize].flags == 0);
            let mt = block_mt[(pfn >> PAGEBLOCK_ORDER) as usize] as usize;
            merge_free_chunk(f, area, block_mt, start, pfn, 0, mt, false);
        }
    }

    /// `page_del_and_expand` (with `expand`): take the chunk of `high` at
    /// `pfn` off its list, keep its first 2^`low` pages and give the upper
    /// halves back to the heads of the lists of `mt`.
    #[inline]
    fn del_and_expand(&mut self, z: usize, pfn: u32, low: u32, mut high: u32, mt: usize) {
        let (f, area) = (&mut self.f[..], &mut self.areas[z]);
        area.del(f, pfn);
        area.nr_free -= 1 << low;
        while high > low {
            high -= 1;
            area.add(f, pfn + (1 << high), high, mt, false);
        }
    }

    /// `__rmqueue_smallest`: the first chunk of the smallest order ≥
    /// `order` on `mt`'s lists of zone `z`, split down to `order`.
    pub fn rmqueue_smallest(&mut self, z: usize, order: u32, mt: usize) -> Option<u32> {
        let above = self.areas[z].nonempty[mt] >> order;
        if above == 0 {
            return None;
        }
        let cur = order + above.trailing_zeros();
        let pfn = self.areas[z].lists[cur as usize][mt].head;
        debug_assert_ne!(pfn, NIL);
        self.del_and_expand(z, pfn, order, cur, mt);
        Some(pfn)
    }

    /// `rmqueue_bulk`'s part from `mt`'s own lists: up to `need` order-0
    /// pages, each of the smallest chunk there is, handed to `put` in
    /// order, a run of consecutive pfns at a time (`put(first, n)`); how
    /// many. Taken a chunk at a time: once the smallest chunk is of order
    /// k, every smaller list of the type is empty, so taking its pages one
    /// by one (`__rmqueue_smallest`, each split putting the upper halves at
    /// the heads of the emptied lists) gives its pages in address order and
    /// leaves, if fewer are needed, the aligned chunks that cover the rest,
    /// one per list: this does the same without the splits.
    pub fn rmqueue_bulk_smallest(&mut self, z: usize, mt: usize, need: u64, mut put: impl FnMut(u32, u32)) -> u64 {
        let (f, area) = (&mut self.f[..], &mut self.areas[z]);
        let mut got = 0;
        while got < need {
            let mask = area.nonempty[mt];
            if mask == 0 {
                break;
            }
            let k = mask.trailing_zeros();
            let p = area.lists[k as usize][mt].head;
            area.del(f, p);
            let size = 1u32 << k;
            let take = (need - got).min(u64::from(size)) as u32;
            put(p, take);
            // The rest of the chunk, [take, size), in aligned chunks: from
            // each offset the largest its alignment allows (below size, an
            // offset aligned to 2^j has 2^j pages left before size).
            let mut off = take;
            while off < size {
                let j = off.trailing_zeros();
                area.add(f, p + off, j, mt, false);
                off += 1 << j;
            }
            area.nr_free -= u64::from(take);
            got += u64::from(take);
        }
        got
    }

    /// `find_suitable_fallback` (`only_stealable` false): the first type
    /// `start_mt` falls back to that has a chunk of `order`, and whether
    /// such a fallback may claim the block (`can_steal`).
    pub fn find_suitable_fallback(&self, z: usize, order: u32, start_mt: usize) -> Option<(usize, bool)> {
        let counts = &self.areas[z].chunks[order as usize];
        if counts.iter().all(|&n| n == 0) {
            return None;
        }
        FALLBACKS[start_mt]
            .iter()
            .find(|&&mt| counts[mt] > 0)
            .map(|&mt| (mt, can_steal_fallback(order, start_mt)))
    }

    /// The first chunk on the list of (`order`, `mt`) of zone `z`.
    #[inline]
    pub fn first_chunk(&self, z: usize, order: u32, mt: usize) -> u32 {
        self.areas[z].lists[order as usize][mt].head
    }

    /// `try_to_steal_block`'s whole-block case (`current_order` ≥
    /// pageblock_order): the chunk at `pfn` becomes `start_mt`'s, blocks
    /// and all, split down to `order`.
    pub fn claim_whole_blocks(&mut self, pfn: u32, current_order: u32, order: u32, start_mt: usize) {
        // (The chunk's head names the list it is on: changing the blocks
        // first does not change which list it leaves.)
        self.change_pageblock_range(pfn, current_order, start_mt);
        let z = self.zone_of(pfn);
        self.del_and_expand(z, pfn, order, current_order, start_mt);
    }

    /// `__rmqueue_steal`'s taking: the chunk at `pfn`, of `current_order`
    /// on the list of `fallback_mt`, split down to `order`, its rest left
    /// on that type's lists (the block keeps its type).
    pub fn steal_chunk(&mut self, pfn: u32, current_order: u32, order: u32, fallback_mt: usize) {
        let z = self.zone_of(pfn);
        self.del_and_expand(z, pfn, order, current_order, fallback_mt);
    }

    /// `prep_move_freepages_block` with counting: the pageblock holding
    /// `pfn`, if it lies wholly inside zone `z`: its first pfn, its free
    /// pages (in chunks) and its pages that could be migrated (`PageLRU`,
    /// or `__PageMovable`: zsmalloc's).
    pub fn pageblock_counts(&self, z: usize, pfn: u32) -> Option<(u32, u32, u32)> {
        let start = pfn & !(PAGEBLOCK_NR_PAGES - 1);
        let end = start + PAGEBLOCK_NR_PAGES;
        if start < self.zone_start(z) || end > self.zone_end[z] {
            return None;
        }
        let (mut free, mut movable) = (0, 0);
        let mut p = start;
        while p < end {
            let f = &self.f[p as usize];
            if f.flags & pg::BUDDY != 0 {
                let n = 1u32 << f.index;
                free += n;
                p += n;
                continue;
            }
            // PageLRU, or __PageMovable (zsmalloc's pages), or the boot's
            // memory of a Movable block.
            if f.flags & pg::LRU != 0 || (f.flags & (pg::KERNEL | pg::DEVICE) != 0 && f.index == 1) {
                movable += 1;
            }
            p += 1;
        }
        Some((start, free, movable))
    }

    /// `__move_freepages_block`: the pageblock at `start` becomes
    /// `new_mt`'s, its free chunks moving to that type's lists.
    pub fn move_freepages_block(&mut self, start: u32, new_mt: usize) {
        let z = self.zone_of(start);
        let end = start + PAGEBLOCK_NR_PAGES;
        let mut p = start;
        while p < end {
            let f = self.f[p as usize];
            if f.flags & pg::BUDDY != 0 {
                self.move_to_free_list(z, p, new_mt);
                p += 1 << f.index;
            } else {
                p += 1;
            }
        }
        self.set_pageblock_mt(start, new_mt);
    }

    /// Zone `z`'s pages from `start` to `end` freed at boot
    /// (`__free_pages_memory`): in the largest aligned chunks that fit,
    /// each to the tail of the lists of its block's type (FPI_TO_TAIL).
    pub(crate) fn free_range(&mut self, start: u32, end: u32) {
        let mut p = start;
        while p < end {
            let mut order = if p == 0 { MAX_PAGE_ORDER } else { p.trailing_zeros().min(MAX_PAGE_ORDER) };
            while p + (1 << order) > end {
                order -= 1;
            }
            let mt = self.pageblock_mt(p);
            self.free_one_page(p, order, mt, true);
            p += 1 << order;
        }
    }

    /// For `Kernel::check`: every chunk on the lists of its zone, of its
    /// order and aligned to it, on the list its head names, every page of
    /// it free; the chunk counts and `nr_free` match; no chunk touches a
    /// page that `pcp` (the per-CPU lists) holds; every page is allocated
    /// or free, and a free page is in a chunk or on a per-CPU list.
    pub fn check_free_lists(&self, pcp: &[u32]) -> Result<(), String> {
        let n = self.f.len();
        let mut seen = vec![false; n];
        for &pfn in pcp {
            let i = pfn as usize;
            if i >= n || seen[i] {
                return Err(format!("per-CPU free lists: pfn {pfn} out of range or listed twice"));
            }
            seen[i] = true;
            if self.f[i].flags != 0 {
                return Err(format!("a per-CPU free list holds pfn {pfn}, which is not a plain free page ({:?})", self.f[i]));
            }
        }
        for z in 0..NR_ZONES {
            let mut pages = 0u64;
            for order in 0..NR_PAGE_ORDERS {
                for mt in 0..MIGRATE_PCPTYPES {
                    let mut count = 0u32;
                    let mut prev = NIL;
                    let mut p = self.areas[z].lists[order][mt].head;
                    while p != NIL {
                        let f = &self.f[p as usize];
                        let what = format!("zone {z} order {order} {} list: pfn {p}", MIGRATETYPE_NAMES[mt]);
                        if f.flags != pg::BUDDY || f.index as usize != order || f.mapping as usize != mt || f.prev != prev {
                            return Err(format!("{what} is not a chunk head of this list ({f:?})"));
                        }
                        let size = 1u32 << order;
                        if p & (size - 1) != 0 || p < self.zone_start(z) || p + size > self.zone_end[z] {
                            return Err(format!("{what}: chunk misaligned or outside its zone"));
                        }
                        for q in p..p + size {
                            if seen[q as usize] {
                                return Err(format!("{what}: pfn {q} is also in another chunk or on a per-CPU list"));
                            }
                            seen[q as usize] = true;
                            if q != p && self.f[q as usize].flags != 0 {
                                return Err(format!("{what}: pfn {q} of the chunk is not free"));
                            }
                        }
                        pages += u64::from(size);
                        count += 1;
                        prev = p;
                        p = f.next;
                    }
                    if prev != self.areas[z].lists[order][mt].tail {
                        return Err(format!("zone {z} order {order} {} list: tail {} but the last chunk is {prev}", MIGRATETYPE_NAMES[mt], self.areas[z].lists[order][mt].tail));
                    }
                    if count != self.areas[z].chunks[order][mt] {
                        return Err(format!("zone {z} order {order} {} list: {count} chunks counted {}", MIGRATETYPE_NAMES[mt], self.areas[z].chunks[order][mt]));
                    }
                    if (count > 0) != (self.areas[z].nonempty[mt] >> order & 1 == 1) {
                        return Err(format!("zone {z} order {order} {} list: {count} chunks but its non-empty bit says otherwise", MIGRATETYPE_NAMES[mt]));
                    }
                }
            }
            if pages != self.areas[z].nr_free {
                return Err(format!("zone {z}: {pages} pages in chunks but nr_free is {}", self.areas[z].nr_free));
            }
        }
        if let Some(p) = (0..n).find(|&p| !seen[p] && self.f[p].flags & pg::ALLOCATED == 0) {
            return Err(format!("pfn {p} is neither allocated nor free in a chunk or on a per-CPU list"));
        }
        Ok(())
    }
}

/// A zone's pageblocks and free memory as /proc/pagetypeinfo shows them
/// at the start of a run: pageblocks per migrate type, and free chunks per
/// type and order. (Its pages that are neither free nor the workload's,
/// the kernel's and the other programs' memory, are allocated for the
/// whole run.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneLayout {
    pub blocks: [u32; MIGRATE_PCPTYPES],
    pub free: [[u32; NR_PAGE_ORDERS]; MIGRATE_PCPTYPES],
}

impl ZoneLayout {
    /// Pages the zone spans: its pageblocks.
    pub fn span(&self) -> u32 {
        self.blocks.iter().sum::<u32>() * PAGEBLOCK_NR_PAGES
    }
    /// Free pages in its chunks.
    pub fn free_pages(&self) -> u64 {
        self.free.iter().map(|f| f.iter().enumerate().map(|(o, &n)| u64::from(n) << o).sum::<u64>()).sum()
    }
}

impl FolioTable {
    /// Lay zone `z` (pfns `start`..`start + layout.span()`, `start` on a
    /// pageblock boundary) out as `layout` says, with `pcp` more free
    /// pages for the per-CPU lists (order-0 Movable chunks, which the
    /// start's refill takes first). Simplification (docs/FIDELITY.md):
    /// where the chunks lie is made up. Its blocks go Movable (from a
    /// MAX_PAGE_ORDER boundary), Unmovable, Reclaimable; each type's chunks,
    /// largest first, go into its blocks so that no two could have
    /// merged: a chunk smaller than the room it takes is put at the room's
    /// start, the first page after it stays allocated, and what is left
    /// of the room (halves of decreasing order after that page, and the
    /// upper halves above the chunk's buddy) is room for smaller chunks.
    /// Pages no chunk takes stay allocated (`pg::KERNEL`), counted as
    /// movable in Movable blocks, as the page cache and anonymous memory
    /// there would be. A chunk its type has no room for goes into another
    /// type's room (and onto that block's lists); one no room holds is
    /// laid out as two of half its order.
    pub(crate) fn lay_out_zone(&mut self, start: u32, layout: &ZoneLayout, pcp: u32) {
        debug_assert_eq!(start % PAGEBLOCK_NR_PAGES, 0);
        let end = start + layout.span();
        // Blocks: the Movable ones from a MAX_PAGE_ORDER boundary (one
        // other block first if the zone starts between two), so that
        // pairs of them can hold the largest chunks; then Unmovable and
        // Reclaimable.
        let pair = 1u32 << MAX_PAGE_ORDER;
        let mut left = layout.blocks;
        let mut order_of_blocks: Vec<usize> = Vec::new();
        if start % pair != 0 && left[MIGRATE_MOVABLE] > 0 {
            if let Some(mt) = [MIGRATE_UNMOVABLE, MIGRATE_RECLAIMABLE].into_iter().find(|&m| left[m] > 0) {
                order_of_blocks.push(mt);
                left[mt] -= 1;
            }
        }
        for mt in [MIGRATE_MOVABLE, MIGRATE_UNMOVABLE, MIGRATE_RECLAIMABLE] {
            order_of_blocks.extend(std::iter::repeat_n(mt, left[mt] as usize));
        }
        let mut rooms: [Vec<(u32, u32)>; MIGRATE_PCPTYPES] = Default::default();
        let mut i = 0;
        while i < order_of_blocks.len() {
            let mt = order_of_blocks[i];
            let b = start + i as u32 * PAGEBLOCK_NR_PAGES;
            self.set_pageblock_mt(b, mt);
            // Rooms: an aligned pair of one type's blocks is one room of
            // MAX_PAGE_ORDER, a block alone one of pageblock order.
            if b % pair == 0 && order_of_blocks.get(i + 1) == Some(&mt) {
                self.set_pageblock_mt(b + PAGEBLOCK_NR_PAGES, mt);
                rooms[mt].push((b, MAX_PAGE_ORDER));
                i += 2;
            } else {
                rooms[mt].push((b, PAGEBLOCK_ORDER));
                i += 1;
            }
        }
        // Every page allocated to the boot's memory first.
        for p in start..end {
            self.f[p as usize] = Folio::boot(self.pageblock_mt(p) == MIGRATE_MOVABLE);
        }
        // The chunks, largest first (a heap of orders); the per-CPU lists'
        // pages are order-0 Movable chunks.
        let mut chunks = std::collections::BinaryHeap::new();
        for mt in 0..MIGRATE_PCPTYPES {
            for order in 0..NR_PAGE_ORDERS {
                for _ in 0..layout.free[mt][order] {
                    chunks.push((order as u32, std::cmp::Reverse(mt)));
                }
            }
        }
        for _ in 0..pcp {
            chunks.push((0, std::cmp::Reverse(MIGRATE_MOVABLE)));
        }
        while let Some((order, std::cmp::Reverse(mt))) = chunks.pop() {
            let pick = |rooms: &Vec<(u32, u32)>| {
                rooms.iter().enumerate().filter(|(_, r)| r.1 >= order).min_by_key(|(_, r)| (r.1, r.0)).map(|(i, _)| i)
            };
            let found = pick(&rooms[mt]).map(|i| (mt, i)).or_else(|| (0..MIGRATE_PCPTYPES).find_map(|m| pick(&rooms[m]).map(|i| (m, i))));
            let Some((owner, i)) = found else {
                // No room this large left anywhere: two halves instead (the
                // zone keeps its free pages, in smaller chunks).
                if order > 0 {
                    chunks.push((order - 1, std::cmp::Reverse(mt)));
                    chunks.push((order - 1, std::cmp::Reverse(mt)));
                }
                continue;
            };
            let (s, room) = rooms[owner].swap_remove(i);
            for p in s..s + (1 << order) {
                self.f[p as usize] = Folio::FREE;
            }
            let z = self.zone_of(s);
            self.add_to_free_list(z, s, order, self.pageblock_mt(s), true);
            self.areas[z].nr_free += 1 << order;
            if room > order {
                // The chunk's buddy keeps its first page allocated; the
                // rest of the buddy and the upper halves are rooms.
                let buddy = s + (1 << order);
                for m in 0..order {
                    rooms[owner].push((buddy + (1 << m), m));
                }
                for m in order + 1..room {
                    rooms[owner].push((s + (1 << m), m));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_frees_aligned_chunks_and_freeing_merges_buddies() {
        // 3000 pages in one zone: 2 chunks of order 10, then 512 + 256 +
        // 128 + 32 + 16 + 8 (2048 + 952).
        let mut t = FolioTable::new([0, 3000, 0]);
        let a = t.free_area(1);
        assert_eq!(a.nr_free, 3000);
        assert_eq!(a.nr_chunks(10, MIGRATE_MOVABLE), 2);
        for o in [9, 8, 7, 5, 4, 3] {
            assert_eq!(a.nr_chunks(o, MIGRATE_MOVABLE), 1, "order {o}");
        }
        // The smallest chunk (order 3, at 2992) is split; its first page goes.
        let p = t.rmqueue_smallest(1, 0, MIGRATE_MOVABLE).unwrap();
        assert_eq!(p, 2992);
        assert_eq!((t.free_area(1).nr_chunks(3, MIGRATE_MOVABLE), t.free_area(1).nr_chunks(0, MIGRATE_MOVABLE)), (0, 1));
        assert_eq!(t.free_area(1).nr_free, 2999);
        t.check_free_lists(&[p]).unwrap();
        // Freed again, it merges back into the order-3 chunk.
        t.free_one_page(p, 0, MIGRATE_MOVABLE, false);
        assert_eq!(t.free_area(1).nr_chunks(3, MIGRATE_MOVABLE), 1);
        assert_eq!(t.free_area(1).nr_chunks(0, MIGRATE_MOVABLE), 0);
        t.check_free_lists(&[]).unwrap();
    }

    #[test]
    fn chunks_do_not_merge_across_zones() {
        // Zone 0 ends at pfn 4, mid-chunk: pfn 4 (zone 1) is pfn 0's
        // order-2 buddy but of another zone.
        let t = FolioTable::new([4, 4, 0]);
        assert_eq!(t.free_area(0).nr_chunks(2, MIGRATE_MOVABLE), 1);
        assert_eq!(t.free_area(1).nr_chunks(2, MIGRATE_MOVABLE), 1);
        t.check_free_lists(&[]).unwrap();
    }

    #[test]
    fn moving_a_block_moves_its_free_chunks() {
        let mut t = FolioTable::new([0, 1024, 0]);
        // Split the order-10 chunk: two blocks of 512, then take a page.
        let p = t.rmqueue_smallest(1, 0, MIGRATE_MOVABLE).unwrap();
        assert_eq!(p, 0);
        let (start, free, movable) = t.pageblock_counts(1, 5).unwrap();
        assert_eq!((start, free, movable), (0, 511, 0));
        // A zsmalloc page (a swap device's page marked movable) counts as
        // movable, brd's does not.
        let q = t.rmqueue_smallest(1, 0, MIGRATE_MOVABLE).unwrap();
        t.f[q as usize] = Folio { flags: pg::ALLOCATED | pg::DEVICE, index: 1, ..Folio::FREE };
        assert_eq!(t.pageblock_counts(1, 5).unwrap(), (0, 510, 1));
        t.f[q as usize].index = 0;
        assert_eq!(t.pageblock_counts(1, 5).unwrap(), (0, 510, 0));
        t.f[q as usize] = Folio::FREE;
        t.free_one_page(q, 0, MIGRATE_MOVABLE, false);
        t.move_freepages_block(0, MIGRATE_UNMOVABLE);
        assert_eq!(t.pageblock_mt(0), MIGRATE_UNMOVABLE);
        assert_eq!(t.pageblock_mt(512), MIGRATE_MOVABLE);
        let moved: u32 = (0..NR_PAGE_ORDERS).map(|o| t.free_area(1).nr_chunks(o, MIGRATE_UNMOVABLE) << o).sum();
        assert_eq!(moved, 511);
        assert_eq!(t.find_suitable_fallback(1, 8, MIGRATE_MOVABLE), Some((MIGRATE_UNMOVABLE, true)));
        assert_eq!(t.find_suitable_fallback(1, 0, MIGRATE_MOVABLE), Some((MIGRATE_UNMOVABLE, false)));
        t.check_free_lists(&[p]).unwrap();
    }

    /// rmqueue_bulk_smallest gives the pages, and leaves the lists, that
    /// rmqueue_smallest one page at a time does, on a fragmented zone.
    #[test]
    fn bulk_taking_is_taking_one_by_one() {
        let build = || {
            let mut t = FolioTable::new([0, 4096, 0]);
            let taken: Vec<u32> = (0..3000).map(|_| t.alloc(1).unwrap()).collect();
            // Free every third and every seventh page: chunks of many orders.
            for &p in taken.iter().filter(|&&p| p % 3 == 0 || p % 7 == 0) {
                t.free(p);
            }
            t
        };
        for need in [1u64, 5, 31, 96, 700, 2000] {
            let (mut a, mut b) = (build(), build());
            let mut bulk = Vec::new();
            let got = a.rmqueue_bulk_smallest(1, MIGRATE_MOVABLE, need, |p, n| bulk.extend(p..p + n));
            let one: Vec<u32> = (0..got).map(|_| b.rmqueue_smallest(1, 0, MIGRATE_MOVABLE).unwrap()).collect();
            assert_eq!(bulk, one, "need {need}");
            assert_eq!(a.free_area(1).nr_free, b.free_area(1).nr_free);
            for o in 0..NR_PAGE_ORDERS as u32 {
                assert_eq!(a.free_area(1).nr_chunks(o as usize, MIGRATE_MOVABLE), b.free_area(1).nr_chunks(o as usize, MIGRATE_MOVABLE));
                assert_eq!(a.first_chunk(1, o, MIGRATE_MOVABLE), b.first_chunk(1, o, MIGRATE_MOVABLE), "need {need} order {o}");
            }
            a.check_free_lists(&bulk).unwrap();
        }
    }
}
