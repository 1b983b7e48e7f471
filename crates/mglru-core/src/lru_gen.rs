// SPDX-License-Identifier: GPL-2.0-only
//! The multi-gen LRU as Linux 6.12 implements it (mm/vmscan.c "the
//! aging", "the eviction", "memcg LRU"; include/linux/mm_inline.h;
//! mm/workingset.c).
//!
//! Pages live in generations numbered by sequence: `max_seq` is the
//! youngest, `min_seq[type]` the oldest of each type, at most four and at
//! least two alive. New pages go to the youngest generations when faulted
//! in (they were accessed through a page table) and to the older ones
//! when read through a file descriptor. Aging walks page tables to find
//! young PTEs and moves their folios to `max_seq` lazily: it only rewrites
//! the generation number in the folio, and eviction sorts the oldest
//! generation when it scans it. File-descriptor accesses count in `refs`
//! and `PG_workingset`, which map to tiers; a PID controller compares the
//! refault rate of each tier with tier 0's and protects the tiers that
//! refault more. Everything below follows 6.12 (not the reworked 6.14
//! rules): refs are `PG_referenced`, then `PG_workingset`, then a 2-bit
//! counter; placement is relative to `min_seq`; aging runs when fewer
//! than three generations are left or the young/old distribution is off;
//! anon `min_seq` never passes file's; a refault is recent only if it
//! happens while `min_seq` is still the one it was evicted from.

use crate::folio::{pg, FolioList, NIL, NR_ZONES};
use crate::lru_gen_walk::{MmPos, Walk};
use crate::kernel::{Kernel, DEF_PRIORITY, NSEC_PER_JIFFY, HZ};
use crate::lruvec::{ANON, FILE, LRU_INACTIVE_ANON, LRU_INACTIVE_FILE};
use crate::memcontrol::{MemcgEvent, ROOT_MEMCG};
use crate::stat::Ev;
use crate::vmscan::{ReclaimStat, ScanControl};
use crate::workingset::{pack_shadow, unpack_shadow, EVICTION_MASK};

pub const MIN_NR_GENS: u64 = 2;
pub const MAX_NR_GENS: u64 = 4;
pub const MAX_NR_TIERS: usize = 4;
pub const LRU_REFS_WIDTH: u32 = 2;
pub const MIN_LRU_BATCH: u64 = 64;
pub const MAX_LRU_BATCH: u64 = MIN_LRU_BATCH * 64;
pub const MEMCG_NR_GENS: u64 = 3;
pub const MEMCG_NR_BINS: usize = 8;
pub const BLOOM_FILTER_SHIFT: u32 = 15;
pub const MAX_SWAPPINESS: u32 = 200;
/// Linux 7.2's `SWAPPINESS_ANON_ONLY` (`MAX_SWAPPINESS + 1`): proactive
/// reclaim of anon only (`memory.reclaim swappiness=max`, the debugfs
/// commands' `max`). The functions below take a swappiness from 0 to this
/// value as 7.2's do; from 0 to 200 they compute what 6.12's `can_swap`
/// computed, and the versions without `max` never pass 201
/// ([`crate::profiles::Steps::max_swappiness`]).
pub const SWAPPINESS_ANON_ONLY: u32 = MAX_SWAPPINESS + 1;

/// The evictable types at `swappiness`, `min_type..=max_type` (7.2
/// `for_each_evictable_type`): file only at 0, anon only at
/// [`SWAPPINESS_ANON_ONLY`], both in between (6.12's `!can_swap..2`).
pub(crate) fn evictable_types(swappiness: u32) -> std::ops::RangeInclusive<usize> {
    let min_type = (swappiness == 0) as usize;
    let max_type = (swappiness < SWAPPINESS_ANON_ONLY) as usize;
    min_type..=max_type
}

/// 7.2 `evictable_min_seq`: the smaller `min_seq` of the evictable types.
/// With 6.12's coupled `min_seq` (anon's never above file's) it is
/// `min_seq[!can_swap]`.
pub(crate) fn evictable_min_seq(min_seq: [u64; 2], swappiness: u32) -> u64 {
    let t = evictable_types(swappiness);
    min_seq[*t.start()].min(min_seq[*t.end()])
}

/// `/sys/kernel/mm/lru_gen/enabled` capability bits.
pub const LRU_GEN_CORE: u32 = 1;
pub const LRU_GEN_MM_WALK: u32 = 2;
pub const LRU_GEN_NONLEAF_YOUNG: u32 = 4;

/// Memcg LRU operations (`MEMCG_LRU_*`).
pub const MEMCG_LRU_NOP: u8 = 0;
pub const MEMCG_LRU_HEAD: u8 = 1;
pub const MEMCG_LRU_TAIL: u8 = 2;
pub const MEMCG_LRU_OLD: u8 = 3;
pub const MEMCG_LRU_YOUNG: u8 = 4;

/// `struct lru_gen_folio`, `NR_HIST_GENS` = 1.
#[derive(Clone, Debug, Default)]
pub struct LruGen {
    pub max_seq: u64,
    pub min_seq: [u64; 2],
    /// Birth of each generation, in jiffies.
    pub timestamps: [u64; 4],
    /// `folios[gen][type][zone]`.
    pub folios: [[[FolioList; NR_ZONES]; 2]; 4],
    pub nr_pages: [[i64; 2]; 4],
    pub avg_refaulted: [[u64; MAX_NR_TIERS]; 2],
    pub avg_total: [[u64; MAX_NR_TIERS]; 2],
    /// Per tier (6.12 counts tiers 1..3 only; 7.2 all four).
    pub protected: [[u64; MAX_NR_TIERS]; 2],
    pub evicted: [[u64; MAX_NR_TIERS]; 2],
    pub refaulted: [[u64; MAX_NR_TIERS]; 2],
    pub enabled: bool,
    /// Memcg LRU membership: generation, segment, bin.
    pub memcg_gen: u64,
    pub seg: u8,
    pub bin: usize,
    pub on_memcg_lru: bool,
}

impl LruGen {
    /// `try_to_inc_min_seq`'s search: the oldest generation of `type_`
    /// that holds folios, from its `min_seq` on, but never fewer than
    /// `MIN_NR_GENS` generations deep.
    pub(crate) fn oldest_populated(&self, type_: usize) -> u64 {
        let mut seq = self.min_seq[type_];
        while seq + MIN_NR_GENS <= self.max_seq && self.folios[gen_from_seq(seq)][type_].iter().all(|l| l.len == 0) {
            seq += 1;
        }
        seq
    }
}

/// `pgdat->memcg_lru`.
#[derive(Clone, Debug, Default)]
pub struct MemcgLru {
    pub seq: u64,
    pub nr_memcgs: [u64; MEMCG_NR_GENS as usize],
    pub fifo: [[Vec<u16>; MEMCG_NR_BINS]; MEMCG_NR_GENS as usize],
}

#[inline]
pub(crate) fn gen_from_seq(seq: u64) -> usize {
    (seq % MAX_NR_GENS) as usize
}

/// `order_base_2(refs + 1)`: the tier of a refs count (0..=4).
#[inline]
pub fn lru_tier_from_refs(refs: u32) -> usize {
    match refs {
        0 => 0,
        1 => 1,
        2 | 3 => 2,
        _ => 3,
    }
}

/// Where `try_to_shrink_lruvec` stands in one lruvec (its locals), kept
/// so that kswapd can stop between two batches and go on later
/// (crate::kswapd, docs/FIDELITY.md simplification 2).
#[derive(Clone, Debug)]
pub(crate) struct TryShrink {
    pub(crate) memcg: u16,
    swappiness: u32,
    scanned: u64,
    nr_to_scan: i64,
    /// Some(aged or protected) once done.
    done: Option<bool>,
}

impl TryShrink {
    /// A lruvec whose reclaim ran whole (a loop that is not resumable):
    /// `aged` is its result.
    pub(crate) fn finished(memcg: u16, aged: bool) -> TryShrink {
        TryShrink { memcg, swappiness: 0, scanned: 0, nr_to_scan: 0, done: Some(aged) }
    }
}

/// Where `shrink_many` stands: the memcg generation and bin it walks, the
/// memcg-LRU operation pending on the memcg before (`op` on `prev`), the
/// next memcg (`cur`), and the turn in progress (`one`).
#[derive(Clone, Debug)]
pub(crate) struct ManyWalk {
    gen: usize,
    first_bin: usize,
    bin: usize,
    in_bin: bool,
    op: u8,
    prev: Option<u16>,
    cur: Option<u16>,
    guard: usize,
    one: Option<(u16, TryShrink)>,
}

/// Where `lru_gen_shrink_node` stands: `sc.nr_reclaimed` at its start, the
/// page-table walk flag around `shrink_many` and the walk itself.
#[derive(Clone, Debug)]
pub(crate) struct GenNodeScan {
    reclaimed: u64,
    walk_was: bool,
    walk: bool,
    many: Option<ManyWalk>,
}

/// `struct ctrl_pos`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CtrlPos {
    pub(crate) refaulted: u64,
    pub(crate) total: u64,
    pub(crate) gain: u64,
}

/// `positive_ctrl_err`: PV's refault rate is not above SP's (scaled by
/// the gains), so PV can be evicted.
pub(crate) fn positive_ctrl_err(sp: &CtrlPos, pv: &CtrlPos) -> bool {
    pv.refaulted < MIN_LRU_BATCH
        || (pv.refaulted as u128) * (sp.total as u128 + MIN_LRU_BATCH as u128) * sp.gain as u128
            <= (sp.refaulted as u128 + 1) * pv.total as u128 * pv.gain as u128
}

impl Kernel {
    #[inline]
    pub(crate) fn jiffies(&self) -> u64 {
        self.now / NSEC_PER_JIFFY
    }

    /// `lru_gen_enabled()`.
    #[inline]
    pub fn lru_gen_enabled(&self) -> bool {
        self.sysctl.lru_gen_enabled & LRU_GEN_CORE != 0
    }

    pub(crate) fn should_walk_mmu(&self) -> bool {
        self.sysctl.lru_gen_enabled & LRU_GEN_MM_WALK != 0
    }

    pub(crate) fn should_clear_pmd_young(&self) -> bool {
        self.sysctl.lru_gen_enabled & LRU_GEN_NONLEAF_YOUNG != 0
    }

    /// `lru_gen_init_lruvec` and `lru_gen_online_memcg` for a new memcg.
    pub fn lru_gen_init_memcg(&mut self, memcg: u16) {
        let j = self.jiffies();
        let enabled = self.lru_gen_enabled();
        let lv = &mut self.memcgs[memcg as usize].lruvec;
        lv.lrugen.max_seq = MIN_NR_GENS + 1;
        lv.lrugen.enabled = enabled;
        lv.lrugen.timestamps = [j; 4];
        lv.mm_state.seq = MIN_NR_GENS;
        // lru_gen_online_memcg: the tail of a random bin of the old generation.
        let bin = self.rng.below(MEMCG_NR_BINS as u64) as usize;
        let gen = self.memcg_lru.seq % MEMCG_NR_GENS;
        self.memcg_lru.fifo[gen as usize][bin].push(memcg);
        self.memcg_lru.nr_memcgs[gen as usize] += 1;
        let lg = &mut self.memcgs[memcg as usize].lruvec.lrugen;
        lg.memcg_gen = gen;
        lg.bin = bin;
        lg.on_memcg_lru = true;
    }

    fn lru_gen_is_active(&self, memcg: u16, gen: usize) -> bool {
        let max_seq = self.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        gen == gen_from_seq(max_seq) || gen == gen_from_seq(max_seq - 1)
    }

    /// `lru_gen_update_size` (old or new may be None for add/delete).
    fn lru_gen_update_size(&mut self, memcg: u16, type_: usize, old: Option<usize>, new: Option<usize>) {
        let lru = type_ * LRU_INACTIVE_FILE;
        let old_active = old.map(|g| self.lru_gen_is_active(memcg, g));
        let new_active = new.map(|g| self.lru_gen_is_active(memcg, g));
        let lv = &mut self.memcgs[memcg as usize].lruvec;
        if let Some(g) = old {
            lv.lrugen.nr_pages[g][type_] -= 1;
        }
        if let Some(g) = new {
            lv.lrugen.nr_pages[g][type_] += 1;
        }
        match (old_active, new_active) {
            (None, Some(a)) => lv.gen_size[lru + a as usize] += 1,
            (Some(a), None) => lv.gen_size[lru + a as usize] -= 1,
            (Some(false), Some(true)) => {
                lv.gen_size[lru] -= 1;
                lv.gen_size[lru + 1] += 1;
            }
            _ => {}
        }
    }

    /// `lru_gen_add_folio`: false = not handled (classic lists take it).
    pub fn lru_gen_add_folio(&mut self, pfn: u32, reclaiming: bool) -> bool {
        let f = *self.folios.get(pfn);
        let memcg = f.memcg;
        if f.test(pg::UNEVICTABLE) || !self.memcgs[memcg as usize].lruvec.lrugen.enabled {
            return false;
        }
        debug_assert_eq!(f.gen_field(), 0);
        let type_ = f.lru_type();
        let seq = (self.steps.lru_gen_add_seq)(self, pfn, reclaiming);
        let gen = gen_from_seq(seq);
        self.folios.get_mut(pfn).set_gen_field(gen as u32 + 1);
        self.lru_gen_update_size(memcg, type_, None, Some(gen));
        self.mglru_link(pfn, memcg, gen, type_, reclaiming);
        true
    }

    /// 6.12 `lru_gen_add_folio`'s generation for a folio (the youngest for
    /// an active one, the second youngest for new anon and dirty folios
    /// under reclaim, else the oldest or second oldest), and its flags: an
    /// active folio loses `PG_active`, `PG_referenced` and its refs.
    pub(crate) fn lru_gen_add_seq_6_12(&mut self, pfn: u32, reclaiming: bool) -> u64 {
        let f = *self.folios.get(pfn);
        let type_ = f.lru_type();
        let lg = &self.memcgs[f.memcg as usize].lruvec.lrugen;
        let seq = if f.test(pg::ACTIVE) {
            lg.max_seq
        } else if (type_ == ANON && !f.test(pg::SWAPCACHE))
            || (f.test(pg::RECLAIM) && (f.test(pg::DIRTY) || f.test(pg::WRITEBACK)))
        {
            lg.max_seq - 1
        } else if reclaiming || lg.min_seq[type_] + MIN_NR_GENS >= lg.max_seq {
            lg.min_seq[type_]
        } else {
            lg.min_seq[type_] + 1
        };
        if f.test(pg::ACTIVE) {
            let fm = self.folios.get_mut(pfn);
            fm.set_refs_field(0);
            fm.clear(pg::REFERENCED | pg::ACTIVE);
        }
        seq
    }

    /// 6.12 `evict_folios`' putback of a folio `shrink_folio_list` kept:
    /// true to retry it as a clean folio that may have missed
    /// `folio_rotate_reclaimable`, false to put it back (a rejected folio
    /// goes back active, so not to the oldest generation).
    pub(crate) fn evict_putback_6_12(&mut self, pfn: u32, skip_retry: bool) -> bool {
        let f = *self.folios.get(pfn);
        if f.test(pg::RECLAIM) && (f.test(pg::DIRTY) || f.test(pg::WRITEBACK)) {
            // Restore the LRU_REFS_FLAGS isolate_folio cleared.
            if f.test(pg::WORKINGSET) {
                self.folios.get_mut(pfn).set(pg::REFERENCED);
            }
            return false;
        }
        if skip_retry || f.test(pg::ACTIVE) || f.test(pg::REFERENCED) || f.mapcount > 0 || f.test(pg::DIRTY) || f.test(pg::WRITEBACK) {
            let fm = self.folios.get_mut(pfn);
            fm.set_refs_field(0);
            fm.clear(pg::REFERENCED | pg::WORKINGSET);
            fm.set(pg::ACTIVE);
            return false;
        }
        true
    }

    /// `lru_gen_del_folio`: false when the folio is not on an MGLRU list.
    pub fn lru_gen_del_folio(&mut self, pfn: u32, reclaiming: bool) -> bool {
        let f = *self.folios.get(pfn);
        if f.gen_field() == 0 {
            return false;
        }
        let gen = (f.gen_field() - 1) as usize;
        let memcg = f.memcg;
        let type_ = f.lru_type();
        let set_active = !reclaiming && self.lru_gen_is_active(memcg, gen);
        // The folio may sit on another generation's list (lazy promotion):
        // unlink it from the list it is physically on.
        self.mglru_unlink(pfn);
        let fm = self.folios.get_mut(pfn);
        fm.set_gen_field(0);
        if set_active {
            fm.set(pg::ACTIVE);
        }
        self.lru_gen_update_size(memcg, type_, Some(gen), None);
        true
    }

    /// Unlink a folio from the MGLRU list it is physically on (recorded
    /// in the folio's list field: lazy promotion changes the generation
    /// number without moving the folio).
    pub(crate) fn mglru_unlink(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        let memcg = f.memcg as usize;
        let type_ = f.lru_type();
        let loc = (f.list_field() - 1) as usize;
        let zone = self.folios.zone_of(pfn);
        let mut list = self.memcgs[memcg].lruvec.lrugen.folios[loc][type_][zone];
        self.folios.unlink(&mut list, pfn);
        self.memcgs[memcg].lruvec.lrugen.folios[loc][type_][zone] = list;
        self.folios.get_mut(pfn).set_list_field(0);
        self.zone_lru_count(zone, type_, false);
    }

    /// Link a folio at the head or tail of list [gen][type][its zone].
    pub(crate) fn mglru_link(&mut self, pfn: u32, memcg: u16, gen: usize, type_: usize, tail: bool) {
        let m = memcg as usize;
        let zone = self.folios.zone_of(pfn);
        let mut to = self.memcgs[m].lruvec.lrugen.folios[gen][type_][zone];
        if tail {
            self.folios.add_tail(&mut to, pfn);
        } else {
            self.folios.add_head(&mut to, pfn);
        }
        self.memcgs[m].lruvec.lrugen.folios[gen][type_][zone] = to;
        self.folios.get_mut(pfn).set_list_field(gen as u32 + 1);
        self.zone_lru_count(zone, type_, true);
    }

    /// Move a folio to the head or tail of list [gen][type][its zone]
    /// (`list_move` / `list_move_tail`).
    pub(crate) fn mglru_move(&mut self, pfn: u32, memcg: u16, gen: usize, type_: usize, tail: bool) {
        self.mglru_unlink(pfn);
        self.mglru_link(pfn, memcg, gen, type_, tail);
    }

    /// `folio_inc_refs` (`folio_mark_accessed` under the MGLRU, 6.12):
    /// `PG_referenced`, then `PG_workingset`, then the refs counter.
    #[inline(always)]
    pub fn folio_inc_refs(&mut self, pfn: u32) {
        (self.steps.folio_inc_refs)(self.folios.get_mut(pfn));
    }

    /// `folio_lru_refs`: accesses beyond the first.
    #[inline]
    pub fn folio_lru_refs(&self, pfn: u32) -> u32 {
        let f = self.folios.get(pfn);
        f.refs_field() + f.test(pg::WORKINGSET) as u32
    }

    /// `folio_update_gen`: a young PTE was found; record the folio as in
    /// `gen` (lazily). Returns the old generation, or None when the folio
    /// is not on an MGLRU list (then it only gets `PG_referenced`).
    pub(crate) fn folio_update_gen(&mut self, pfn: u32, gen: usize) -> Option<usize> {
        let f = self.folios.get_mut(pfn);
        if f.gen_field() == 0 {
            f.set(pg::REFERENCED);
            return None;
        }
        let old = (f.gen_field() - 1) as usize;
        f.set_refs_field(0);
        f.clear(pg::REFERENCED | pg::WORKINGSET);
        f.set_gen_field(gen as u32 + 1);
        Some(old)
    }

    /// Size bookkeeping of a lazily promoted folio (`update_batch_size` +
    /// `reset_batch_size`, applied at once).
    pub(crate) fn promote_size(&mut self, memcg: u16, type_: usize, old: usize, new: usize) {
        if old != new {
            self.lru_gen_update_size(memcg, type_, Some(old), Some(new));
        }
    }

    /// `folio_inc_gen`: move a folio of the oldest generation to the next
    /// one (or report where a promoted folio belongs).
    pub(crate) fn folio_inc_gen(&mut self, pfn: u32, reclaiming: bool) -> usize {
        let f = *self.folios.get(pfn);
        let memcg = f.memcg;
        let type_ = f.lru_type();
        let old_gen = gen_from_seq(self.memcgs[memcg as usize].lruvec.lrugen.min_seq[type_]);
        let cur = f.gen_field() as usize;
        debug_assert!(cur != 0);
        if cur - 1 != old_gen {
            return cur - 1;
        }
        let new_gen = (old_gen + 1) % MAX_NR_GENS as usize;
        let fm = self.folios.get_mut(pfn);
        (self.steps.folio_inc_gen_clear)(fm);
        fm.set_gen_field(new_gen as u32 + 1);
        if reclaiming {
            fm.set(pg::RECLAIM);
        }
        self.lru_gen_update_size(memcg, type_, Some(old_gen), Some(new_gen));
        new_gen
    }

    // ---- PID controller ---------------------------------------------------------

    /// `read_ctrl_pos` of one tier (6.12 never protects into tier 0, so
    /// its `protected[0]` stays 0 and 6.12's "tier > 0" test is implied).
    pub(crate) fn read_ctrl_pos(&self, memcg: u16, type_: usize, tier: usize, gain: u64) -> CtrlPos {
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        let total = lg.avg_total[type_][tier] + lg.evicted[type_][tier] + lg.protected[type_][tier];
        CtrlPos { refaulted: lg.avg_refaulted[type_][tier] + lg.refaulted[type_][tier], total, gain }
    }

    /// `reset_ctrl_pos` with `NR_HIST_GENS` = 1: a carry-over halves the
    /// averages into the current counts and clears them; otherwise nothing.
    pub(crate) fn reset_ctrl_pos(&mut self, memcg: u16, type_: usize, carryover: bool) {
        if !carryover {
            return;
        }
        let lg = &mut self.memcgs[memcg as usize].lruvec.lrugen;
        for tier in 0..MAX_NR_TIERS {
            lg.avg_refaulted[type_][tier] = (lg.avg_refaulted[type_][tier] + lg.refaulted[type_][tier]) / 2;
            let sum = lg.avg_total[type_][tier] + lg.evicted[type_][tier] + lg.protected[type_][tier];
            lg.avg_total[type_][tier] = sum / 2;
            lg.refaulted[type_][tier] = 0;
            lg.evicted[type_][tier] = 0;
            lg.protected[type_][tier] = 0;
        }
    }

    // ---- the aging ----------------------------------------------------------------

    pub(crate) fn get_nr_gens(&self, memcg: u16, type_: usize) -> u64 {
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        lg.max_seq - lg.min_seq[type_] + 1
    }

    /// `inc_min_seq`: retire the oldest generation of `type`, moving its
    /// folios to the next one. A type that is not evictable at `swappiness`
    /// (anon at 0; file at 7.2's [`SWAPPINESS_ANON_ONLY`]) just moves the
    /// counter: its folios stay where they are, now in the youngest
    /// generation's slot.
    fn inc_min_seq(&mut self, memcg: u16, type_: usize, swappiness: u32) {
        let m = memcg as usize;
        let old_gen = gen_from_seq(self.memcgs[m].lruvec.lrugen.min_seq[type_]);
        if evictable_types(swappiness).contains(&type_) {
            let mut batch = crate::profiles::AgeBatch::default();
            // Zone by zone, lowest first, each list from its tail.
            for zone in 0..NR_ZONES {
                loop {
                    let pfn = self.memcgs[m].lruvec.lrugen.folios[old_gen][type_][zone].tail;
                    if pfn == NIL {
                        break;
                    }
                    (self.steps.inc_min_seq_protect)(self, memcg, type_, pfn);
                    let new_gen = self.folio_inc_gen(pfn, false);
                    // 6.12: one by one to the tail, which reverses the order.
                    (self.steps.age_move)(self, &mut batch, pfn, memcg, new_gen, type_);
                }
            }
            (self.steps.age_flush)(self, &mut batch, memcg, type_);
        }
        self.reset_ctrl_pos(memcg, type_, true);
        self.memcgs[m].lruvec.lrugen.min_seq[type_] += 1;
    }

    /// `try_to_inc_min_seq`: drop empty oldest generations (6.12: anon's
    /// `min_seq` never passes file's, and file's follows anon's).
    pub(crate) fn try_to_inc_min_seq_6_12(&mut self, memcg: u16, swappiness: u32) -> bool {
        let can_swap = swappiness != 0;
        let m = memcg as usize;
        let lg = &self.memcgs[m].lruvec.lrugen;
        let mut min_seq = lg.min_seq;
        for type_ in (!can_swap as usize)..2 {
            min_seq[type_] = lg.oldest_populated(type_);
        }
        if can_swap {
            min_seq[ANON] = min_seq[ANON].min(min_seq[FILE]);
            min_seq[FILE] = min_seq[ANON].max(lg.min_seq[FILE]);
        }
        let mut success = false;
        for type_ in (!can_swap as usize)..2 {
            if min_seq[type_] == self.memcgs[m].lruvec.lrugen.min_seq[type_] {
                continue;
            }
            self.reset_ctrl_pos(memcg, type_, true);
            self.memcgs[m].lruvec.lrugen.min_seq[type_] = min_seq[type_];
            success = true;
        }
        success
    }

    /// 6.12 `evict_folios` after isolating: the empty oldest generations
    /// dropped (a generation dropped counts as scanned), and nothing
    /// scanned once the type that must stay has only `MIN_NR_GENS`.
    pub(crate) fn evict_folios_scanned_6_12(&mut self, memcg: u16, swappiness: u32, scanned: u64) -> u64 {
        let scanned = scanned + (self.steps.try_to_inc_min_seq)(self, memcg, swappiness) as u64;
        if self.get_nr_gens(memcg, (swappiness == 0) as usize) == MIN_NR_GENS {
            0
        } else {
            scanned
        }
    }

    /// `inc_max_seq`: open a new youngest generation.
    fn inc_max_seq(&mut self, memcg: u16, seq: u64, swappiness: u32) -> bool {
        let m = memcg as usize;
        if seq != self.memcgs[m].lruvec.lrugen.max_seq {
            return false;
        }
        for type_ in [FILE, ANON] {
            if self.get_nr_gens(memcg, type_) != MAX_NR_GENS {
                continue;
            }
            self.inc_min_seq(memcg, type_, swappiness);
        }
        let lv = &mut self.memcgs[m].lruvec;
        let prev = gen_from_seq(lv.lrugen.max_seq - 1);
        let next = gen_from_seq(lv.lrugen.max_seq + 1);
        for type_ in 0..2 {
            let lru = type_ * LRU_INACTIVE_FILE;
            let delta = lv.lrugen.nr_pages[prev][type_] - lv.lrugen.nr_pages[next][type_];
            lv.gen_size[lru] += delta;
            lv.gen_size[lru + 1] -= delta;
        }
        // reset_ctrl_pos(.., false) does nothing with NR_HIST_GENS = 1.
        let j = self.jiffies();
        let lv = &mut self.memcgs[m].lruvec;
        lv.lrugen.timestamps[next] = j;
        lv.lrugen.max_seq += 1;
        true
    }

    /// `try_to_inc_max_seq`: walk the memcg's page tables (if enabled),
    /// then open a new generation.
    pub fn try_to_inc_max_seq(&mut self, memcg: u16, seq: u64, swappiness: u32, force_scan: bool) -> bool {
        let m = memcg as usize;
        if seq <= self.memcgs[m].lruvec.mm_state.seq {
            return false;
        }
        let success = if !self.should_walk_mmu() {
            // iterate_mm_list_nowalk
            let ms = &mut self.memcgs[m].lruvec.mm_state;
            ms.head = MmPos::Null;
            ms.tail = MmPos::Null;
            ms.seq += 1;
            true
        } else {
            self.current.mm_walk = true;
            let mut walk = Walk { memcg, seq, swappiness, force_scan, stats: [0; 4] };
            let mut last;
            loop {
                let (l, mm) = self.iterate_mm_list(&mut walk);
                last = l;
                match mm {
                    Some(task) => self.walk_mm(task, &mut walk),
                    None => break,
                }
            }
            // The page-table entries the walk examined.
            self.spend_reclaim(0);
            last
        };
        if success {
            let ok = self.inc_max_seq(memcg, seq, swappiness);
            debug_assert!(ok);
        }
        success
    }

    // ---- working set protection ------------------------------------------------

    /// `get_swappiness`.
    pub fn get_swappiness(&self, memcg: u16, sc: &ScanControl) -> u32 {
        if !sc.may_swap {
            return 0;
        }
        if self.mem_cgroup_get_nr_swap_pages(memcg) < MIN_LRU_BATCH {
            return 0;
        }
        self.sc_swappiness(sc)
    }

    /// `lruvec_evictable_size` (7.2's name; 6.12 sums the same in
    /// `lruvec_is_sizable` and `should_run_aging`).
    pub(crate) fn lruvec_total(&self, memcg: u16, swappiness: u32) -> u64 {
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        let mut total = 0;
        for type_ in evictable_types(swappiness) {
            for seq in lg.min_seq[type_]..=lg.max_seq {
                total += lg.nr_pages[gen_from_seq(seq)][type_].max(0) as u64;
            }
        }
        total
    }

    /// `lruvec_is_sizable` (every memcg here is online).
    fn lruvec_is_sizable(&self, memcg: u16, sc: &ScanControl) -> bool {
        (self.lruvec_total(memcg, self.get_swappiness(memcg, sc)) >> sc.priority) != 0
    }

    /// `lruvec_is_reclaimable`.
    fn lruvec_is_reclaimable(&self, memcg: u16, sc: &ScanControl, min_ttl: u64) -> bool {
        if self.below_min(None, memcg) {
            return false;
        }
        if !self.lruvec_is_sizable(memcg, sc) {
            return false;
        }
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        let seq = (self.steps.reclaimable_seq)(lg, self.get_swappiness(memcg, sc));
        let birth = lg.timestamps[gen_from_seq(seq)];
        birth + min_ttl < self.jiffies()
    }

    /// `lru_gen_min_ttl` in jiffies: `min_ttl_ms_store` keeps
    /// `msecs_to_jiffies(ms)`, rounded up (1 ms is one jiffy, not none).
    pub fn lru_gen_min_ttl(&self) -> u64 {
        (self.sysctl.lru_gen_min_ttl_ms * HZ).div_ceil(1000)
    }

    /// `lru_gen_age_node` (kswapd): OOM when every lruvec's oldest file
    /// generation is younger than `min_ttl_ms`.
    pub fn lru_gen_age_node(&mut self, sc: &mut ScanControl) {
        let min_ttl = self.lru_gen_min_ttl();
        let mut reclaimable = min_ttl == 0;
        self.set_initial_priority(sc);
        for m in self.memcg_subtree(ROOT_MEMCG) {
            self.calculate_protection(ROOT_MEMCG, m);
            if !reclaimable {
                reclaimable = self.lruvec_is_reclaimable(m, sc, min_ttl);
            }
        }
        if !reclaimable {
            self.out_of_memory(None);
        }
    }

    /// `set_initial_priority`.
    fn set_initial_priority(&self, sc: &mut ScanControl) {
        if sc.priority != DEF_PRIORITY || sc.nr_to_reclaim < MIN_LRU_BATCH {
            return;
        }
        let mut reclaimable = self.node_page_state_lru(LRU_INACTIVE_FILE);
        if self.can_reclaim_anon_pages(ROOT_MEMCG) {
            reclaimable += self.node_page_state_lru(LRU_INACTIVE_ANON);
        }
        let fls = |x: u64| crate::util::fls(x) as i32;
        let priority = fls(reclaimable) - 1 - fls(sc.nr_to_reclaim - 1);
        sc.priority = priority.clamp(DEF_PRIORITY / 2, DEF_PRIORITY);
    }

    // ---- memcg LRU ----------------------------------------------------------------

    /// `lru_gen_rotate_memcg`.
    fn lru_gen_rotate_memcg(&mut self, memcg: u16, op: u8) {
        let bin = self.rng.below(MEMCG_NR_BINS as u64) as usize;
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        if !lg.on_memcg_lru {
            return;
        }
        let old = lg.memcg_gen;
        let old_bin = lg.bin;
        let mut new = old;
        let mut seg = 0;
        match op {
            MEMCG_LRU_HEAD => seg = MEMCG_LRU_HEAD,
            MEMCG_LRU_TAIL => seg = MEMCG_LRU_TAIL,
            MEMCG_LRU_OLD => new = self.memcg_lru.seq % MEMCG_NR_GENS,
            MEMCG_LRU_YOUNG => new = (self.memcg_lru.seq + 1) % MEMCG_NR_GENS,
            _ => debug_assert!(false),
        }
        let l = &mut self.memcg_lru.fifo[old as usize][old_bin];
        let pos = l.iter().position(|&x| x == memcg).expect("memcg not on its memcg-LRU bin");
        l.remove(pos);
        let l = &mut self.memcg_lru.fifo[new as usize][bin];
        if op == MEMCG_LRU_HEAD || op == MEMCG_LRU_OLD {
            l.insert(0, memcg);
        } else {
            l.push(memcg);
        }
        let lg = &mut self.memcgs[memcg as usize].lruvec.lrugen;
        lg.seg = seg;
        lg.memcg_gen = new;
        lg.bin = bin;
        self.memcg_lru.nr_memcgs[old as usize] -= 1;
        self.memcg_lru.nr_memcgs[new as usize] += 1;
        if self.memcg_lru.nr_memcgs[old as usize] == 0 && old == self.memcg_lru.seq % MEMCG_NR_GENS {
            self.memcg_lru.seq += 1;
        }
    }

    /// `shrink_one` up to `try_to_shrink_lruvec`: Ok(op) when the memcg
    /// is protected (the memcg-LRU operation to apply to it), otherwise
    /// the lruvec's scan to run.
    fn shrink_one_begin(&mut self, memcg: u16, sc: &mut ScanControl) -> Result<u8, TryShrink> {
        if self.below_min(None, memcg) {
            return Ok(MEMCG_LRU_YOUNG);
        }
        if self.below_low(None, memcg) {
            if self.memcgs[memcg as usize].lruvec.lrugen.seg != MEMCG_LRU_TAIL {
                return Ok(MEMCG_LRU_TAIL);
            }
            self.memcg_memory_event(memcg, MemcgEvent::Low);
        }
        Err(self.try_to_shrink_lruvec_start(memcg, sc))
    }

    /// The tail of `shrink_one` once its lruvec's scan is done (`success`:
    /// aged or protected): the memcg-LRU operation to apply.
    fn shrink_one_end(&mut self, memcg: u16, sc: &mut ScanControl, success: bool) -> u8 {
        self.shrink_slab(memcg, sc.priority);
        self.spend_lruvec_visit();
        if success {
            return MEMCG_LRU_YOUNG;
        }
        if self.lruvec_is_sizable(memcg, sc) {
            return MEMCG_LRU_NOP;
        }
        if self.memcgs[memcg as usize].lruvec.lrugen.seg != MEMCG_LRU_TAIL {
            MEMCG_LRU_TAIL
        } else {
            MEMCG_LRU_YOUNG
        }
    }

    /// `shrink_many` up to its loop: the oldest memcg generation and a
    /// random first bin.
    fn shrink_many_begin(&mut self) -> ManyWalk {
        let gen = (self.memcg_lru.seq % MEMCG_NR_GENS) as usize;
        let first_bin = self.rng.below(MEMCG_NR_BINS as u64) as usize;
        ManyWalk { gen, first_bin, bin: first_bin, in_bin: false, op: MEMCG_LRU_NOP, prev: None, cur: None, guard: 0, one: None }
    }

    /// The successor of `m` in the memcg-LRU list it is on now.
    fn memcg_lru_next(&self, m: u16) -> Option<u16> {
        let lg = &self.memcgs[m as usize].lruvec.lrugen;
        let l = &self.memcg_lru.fifo[lg.memcg_gen as usize][lg.bin];
        let i = l.iter().position(|&x| x == m)?;
        l.get(i + 1).copied()
    }

    /// The memcg-LRU operation pending on the memcg before (`op` on
    /// `prev`), if any, applied.
    fn shrink_many_rotate_pending(&mut self, w: &mut ManyWalk) {
        if w.op != MEMCG_LRU_NOP {
            self.lru_gen_rotate_memcg(w.prev.unwrap(), w.op);
            w.op = MEMCG_LRU_NOP;
        }
    }

    /// Memcg `m`'s turn in `shrink_many` ended with `op` for it: true when
    /// the walk ends there (`should_abort_scan`: `op` is applied, the
    /// successor is not needed).
    fn shrink_many_turn_end(&mut self, w: &mut ManyWalk, m: u16, op: u8, sc: &ScanControl) -> bool {
        w.op = op;
        w.prev = Some(m);
        if !self.should_abort_scan(sc) {
            return false;
        }
        self.shrink_many_rotate_pending(w);
        true
    }

    /// `shrink_many`'s walk of the bins of the oldest memcg generation
    /// from where `w` stands: true when done, false when kswapd stopped
    /// (inside a memcg's lruvec, or between two memcgs).
    fn shrink_many_resume(&mut self, w: &mut ManyWalk, sc: &mut ScanControl) -> bool {
        loop {
            if let Some((m, t)) = w.one.as_mut() {
                let m = *m;
                let Some(success) = self.try_to_shrink_lruvec_resume(t, sc) else {
                    return false;
                };
                w.one = None;
                let op = self.shrink_one_end(m, sc, success);
                if self.shrink_many_turn_end(w, m, op, sc) {
                    return true;
                }
                w.cur = self.memcg_lru_next(m);
                if w.cur.is_some() {
                    if self.kswapd_should_pause() {
                        return false;
                    }
                    self.task_yield_point();
                }
                continue;
            }
            if !w.in_bin {
                w.in_bin = true;
                w.op = MEMCG_LRU_NOP;
                w.prev = None;
                w.cur = self.memcg_lru.fifo[w.gen][w.bin].first().copied();
                w.guard = 0;
            }
            let Some(m) = w.cur else {
                // The end of this bin.
                self.shrink_many_rotate_pending(w);
                w.in_bin = false;
                w.bin = (w.bin + 1) % MEMCG_NR_BINS;
                if w.bin == w.first_bin {
                    return true;
                }
                continue;
            };
            w.guard += 1;
            if w.guard > 4 * self.memcgs.len() + 8 {
                w.cur = None;
                continue;
            }
            self.shrink_many_rotate_pending(w);
            let skip = self.memcgs[m as usize].lruvec.lrugen.memcg_gen as usize != w.gen;
            if !skip {
                match self.shrink_one_begin(m, sc) {
                    Err(t) => {
                        w.one = Some((m, t));
                        continue;
                    }
                    Ok(op) => {
                        if self.shrink_many_turn_end(w, m, op, sc) {
                            return true;
                        }
                    }
                }
            }
            w.cur = self.memcg_lru_next(m);
        }
    }

    /// `lru_gen_shrink_node` up to `shrink_many`: global reclaim under
    /// the MGLRU.
    pub(crate) fn lru_gen_shrink_node_begin(&mut self, sc: &mut ScanControl) -> GenNodeScan {
        let reclaimed = sc.nr_reclaimed;
        let mut g = GenNodeScan { reclaimed, walk_was: self.current.mm_walk, walk: false, many: None };
        if sc.may_writepage && sc.may_unmap {
            self.lru_add_drain();
            g.walk = self.in_kswapd || sc.proactive;
            self.set_initial_priority(sc);
            if self.in_kswapd {
                sc.nr_reclaimed = 0;
            }
            g.many = Some(self.shrink_many_begin());
        }
        g
    }

    /// The rest of `lru_gen_shrink_node` from where `g` stands: true when
    /// done, false when kswapd stopped inside `shrink_many`.
    pub(crate) fn lru_gen_shrink_node_resume(&mut self, g: &mut GenNodeScan, sc: &mut ScanControl) -> bool {
        if let Some(many) = g.many.as_mut() {
            // set_mm_walk for the walk (kswapd comes back to it with its
            // own context: crate::kswapd `kswapd_enter`).
            self.current.mm_walk = g.walk;
            if !self.shrink_many_resume(many, sc) {
                return false;
            }
            g.many = None;
            if self.in_kswapd {
                sc.nr_reclaimed += g.reclaimed;
            }
            self.current.mm_walk = g.walk_was;
        }
        if sc.nr_reclaimed > g.reclaimed {
            self.kswapd_failures = 0;
        }
        true
    }

    /// `lru_gen_shrink_lruvec`: memcg reclaim of one lruvec.
    pub fn lru_gen_shrink_lruvec(&mut self, memcg: u16, sc: &mut ScanControl) {
        self.lru_add_drain();
        let walk_was = self.current.mm_walk;
        // set_mm_walk: kswapd keeps its node's walk (only a variant without
        // the memcg LRU sends kswapd's reclaim here).
        self.current.mm_walk = sc.proactive || (self.in_kswapd && sc.root_reclaim());
        if self.try_to_shrink_lruvec(memcg, sc) {
            self.lru_gen_rotate_memcg(memcg, MEMCG_LRU_YOUNG);
        }
        self.current.mm_walk = walk_was;
    }

    /// `should_run_aging`: (run aging?, nr_to_scan).
    pub(crate) fn should_run_aging(&self, memcg: u16, can_swap: bool) -> (bool, u64) {
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        let max_seq = lg.max_seq;
        let min_seq = lg.min_seq;
        if min_seq[!can_swap as usize] + MIN_NR_GENS > max_seq {
            return (true, 0);
        }
        let (mut young, mut old, mut total) = (0u64, 0u64, 0u64);
        for type_ in (!can_swap as usize)..2 {
            for seq in min_seq[type_]..=max_seq {
                let size = lg.nr_pages[gen_from_seq(seq)][type_].max(0) as u64;
                total += size;
                if seq == max_seq {
                    young += size;
                } else if seq + MIN_NR_GENS == max_seq {
                    old += size;
                }
            }
        }
        if min_seq[!can_swap as usize] + MIN_NR_GENS < max_seq {
            return (false, total);
        }
        if young * MIN_NR_GENS > total {
            return (true, total);
        }
        if old * (MIN_NR_GENS + 2) < total {
            return (true, total);
        }
        (false, total)
    }

    /// `get_nr_to_scan`.
    fn get_nr_to_scan(&mut self, memcg: u16, sc: &ScanControl, swappiness: u32) -> i64 {
        let can_swap = swappiness != 0;
        if self.below_min(sc.target, memcg) {
            return -1;
        }
        let (success, nr_to_scan) = self.should_run_aging(memcg, can_swap);
        if !success || sc.priority == DEF_PRIORITY {
            return (nr_to_scan >> sc.priority) as i64;
        }
        let max_seq = self.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        if self.try_to_inc_max_seq(memcg, max_seq, swappiness, false) {
            -1
        } else {
            0
        }
    }

    /// `should_abort_scan`.
    pub(crate) fn should_abort_scan(&self, sc: &ScanControl) -> bool {
        if !sc.root_reclaim() {
            return false;
        }
        if sc.nr_reclaimed >= sc.nr_to_reclaim.max(2) {
            return true;
        }
        if !self.in_kswapd {
            return false;
        }
        self.kswapd_zones_safe()
    }

    /// `should_abort_scan`'s kswapd test: every eligible zone is safe
    /// (above its high watermark by `MIN_LRU_BATCH`).
    pub(crate) fn kswapd_zones_safe(&self) -> bool {
        (0..NR_ZONES).all(|z| self.zones[z].managed == 0 || self.zone_watermark_ok(z, self.wmark_pages(z, 2) + MIN_LRU_BATCH))
    }

    /// `try_to_shrink_lruvec`, whole: true = aging was done or the memcg
    /// is protected (rotate it to the young generation).
    fn try_to_shrink_lruvec(&mut self, memcg: u16, sc: &mut ScanControl) -> bool {
        let mut t = self.try_to_shrink_lruvec_start(memcg, sc);
        let r = self.try_to_shrink_lruvec_resume(&mut t, sc);
        r.expect("only kswapd's global reclaim pauses")
    }

    /// `try_to_shrink_lruvec` up to its loop, as the running kernel
    /// starts it (crate::profiles `Steps::try_to_shrink_lruvec`).
    fn try_to_shrink_lruvec_start(&mut self, memcg: u16, sc: &mut ScanControl) -> TryShrink {
        (self.steps.try_to_shrink_lruvec)(self, memcg, sc)
    }

    /// 6.12 `try_to_shrink_lruvec` up to its loop.
    pub(crate) fn try_to_shrink_lruvec_begin(&mut self, memcg: u16, sc: &mut ScanControl) -> TryShrink {
        let swappiness = self.get_swappiness(memcg, sc);
        TryShrink { memcg, swappiness, scanned: 0, nr_to_scan: 0, done: None }
    }

    /// `try_to_shrink_lruvec`'s loop from where `t` stands, and its tail:
    /// Some(aged or protected) when done, None when kswapd stopped after
    /// a batch (`kswapd_should_pause`).
    fn try_to_shrink_lruvec_resume(&mut self, t: &mut TryShrink, sc: &mut ScanControl) -> Option<bool> {
        if let Some(aged) = t.done {
            return Some(aged);
        }
        let memcg = t.memcg;
        loop {
            t.nr_to_scan = self.get_nr_to_scan(memcg, sc, t.swappiness);
            if t.nr_to_scan <= 0 {
                break;
            }
            let delta = self.evict_folios(memcg, sc, t.swappiness);
            if delta == 0 {
                break;
            }
            t.scanned += delta;
            if t.scanned >= t.nr_to_scan as u64 {
                break;
            }
            if self.should_abort_scan(sc) {
                break;
            }
            if self.kswapd_should_pause() {
                return None;
            }
            self.task_yield_point();
        }
        if sc.nr.unqueued_dirty > 0 && sc.nr.unqueued_dirty == sc.nr.file_taken {
            self.wakeup_flusher_threads();
        }
        let aged = t.nr_to_scan < 0;
        t.done = Some(aged);
        Some(aged)
    }

    // ---- the eviction -----------------------------------------------------------

    /// `sort_folio`: true if the folio was moved instead of isolated.
    pub(crate) fn sort_folio(&mut self, batch: &mut crate::profiles::AgeBatch, pfn: u32, tier_idx: usize) -> bool {
        // Unevictable: let it through, shrink_folio_list culls it.
        if !self.folio_evictable(pfn) {
            return false;
        }
        let f = *self.folios.get(pfn);
        let memcg = f.memcg;
        let type_ = f.lru_type();
        let gen = (f.gen_field() - 1) as usize;
        let refs = self.folio_lru_refs(pfn);
        let tier = lru_tier_from_refs(refs);
        let min_gen = gen_from_seq(self.memcgs[memcg as usize].lruvec.lrugen.min_seq[type_]);
        if gen != min_gen {
            // Promoted by the aging or look-around: to the head of its gen.
            self.mglru_move(pfn, memcg, gen, type_, false);
            return true;
        }
        if tier > tier_idx || refs == 1 << LRU_REFS_WIDTH {
            let new_gen = self.folio_inc_gen(pfn, false);
            (self.steps.age_move)(self, batch, pfn, memcg, new_gen, type_);
            self.memcgs[memcg as usize].lruvec.lrugen.protected[type_][tier] += 1;
            (self.steps.sort_folio_protected)(self, memcg, type_);
            return true;
        }
        false
    }

    /// `isolate_folio`.
    pub(crate) fn isolate_folio(&mut self, pfn: u32) -> bool {
        let f = self.folios.get_mut(pfn);
        if !f.test(pg::LRU) {
            return false;
        }
        f.clear(pg::LRU);
        if !f.test(pg::REFERENCED) {
            f.set_refs_field(0);
            f.clear(pg::WORKINGSET);
        }
        f.clear(pg::REFERENCED);
        let ok = self.lru_gen_del_folio(pfn, true);
        debug_assert!(ok);
        self.folios.get_mut(pfn).set(pg::ISOLATED);
        true
    }

    /// `scan_folios`: sort or isolate from the oldest generation of `type`,
    /// zone by zone from the highest eligible one down (the model's
    /// `reclaim_idx` is always the highest zone: every allocation may use
    /// it), so the folios of lower zones are taken last.
    pub(crate) fn scan_folios(&mut self, memcg: u16, sc: &mut ScanControl, type_: usize, tier: usize, list: &mut Vec<u32>, nr_to_scan: u64) -> u64 {
        if self.get_nr_gens(memcg, type_) == MIN_NR_GENS {
            return 0;
        }
        let m = memcg as usize;
        let gen = gen_from_seq(self.memcgs[m].lruvec.lrugen.min_seq[type_]);
        let mut remaining = nr_to_scan;
        let (mut scanned, mut sorted, mut isolated) = (0u64, 0u64, 0u64);
        let batch = self.steps.reclaim_batch;
        let mut aged = crate::profiles::AgeBatch::default();
        for zone in (0..NR_ZONES).rev() {
            let mut moved: Vec<u32> = Vec::new();
            let mut skipped_zone = 0u64;
            loop {
                let pfn = self.memcgs[m].lruvec.lrugen.folios[gen][type_][zone].tail;
                if pfn == NIL {
                    break;
                }
                scanned += 1;
                if (self.steps.sort_folio)(self, &mut aged, pfn, tier) {
                    sorted += 1;
                } else {
                    // Unlink first: isolate_folio removes it via lru_gen_del_folio.
                    if (self.steps.isolate_folio)(self, sc, pfn) {
                        list.push(pfn);
                        isolated += 1;
                    } else {
                        self.mglru_unlink(pfn);
                        moved.push(pfn);
                        skipped_zone += 1;
                    }
                }
                remaining = remaining.saturating_sub(1);
                if remaining == 0 || isolated.max(skipped_zone) >= batch {
                    break;
                }
            }
            if skipped_zone > 0 {
                // list_splice(&moved, head): `moved` had each new one at its
                // head, so the last moved ends first.
                for &p in moved.iter() {
                    self.mglru_link(p, memcg, gen, type_, false);
                }
                let e = [Ev::PgskipDma, Ev::PgskipDma32, Ev::PgskipNormal][zone];
                self.ev.add(e, skipped_zone);
            }
            if remaining == 0 || isolated >= batch {
                break;
            }
        }
        (self.steps.age_flush)(self, &mut aged, memcg, type_);
        (self.steps.count_reclaim)(self, memcg, sc, crate::profiles::ReclaimItem::Scan, isolated);
        (self.steps.count_reclaim)(self, memcg, sc, crate::profiles::ReclaimItem::Refill, sorted);
        self.ev.add(if type_ == FILE { Ev::PgscanFile } else { Ev::PgscanAnon }, isolated);
        if type_ == FILE {
            sc.nr.file_taken += isolated;
        }
        self.spend_reclaim(scanned);
        if isolated > 0 || remaining == 0 {
            scanned
        } else {
            0
        }
    }

    /// `get_tier_idx`.
    fn get_tier_idx(&self, memcg: u16, type_: usize) -> usize {
        let sp = self.read_ctrl_pos(memcg, type_, 0, 1);
        let mut tier = 1;
        while tier < MAX_NR_TIERS {
            let pv = self.read_ctrl_pos(memcg, type_, tier, 2);
            if !positive_ctrl_err(&sp, &pv) {
                break;
            }
            tier += 1;
        }
        tier - 1
    }

    /// `get_type_to_scan`: (type, tier index).
    fn get_type_to_scan(&self, memcg: u16, swappiness: u32) -> (usize, usize) {
        let gain = [swappiness as u64, (MAX_SWAPPINESS - swappiness) as u64];
        let sp = self.read_ctrl_pos(memcg, ANON, 0, gain[ANON]);
        let pv = self.read_ctrl_pos(memcg, FILE, 0, gain[FILE]);
        let type_ = positive_ctrl_err(&sp, &pv) as usize;
        let sp = self.read_ctrl_pos(memcg, 1 - type_, 0, gain[1 - type_]);
        let mut tier = 1;
        while tier < MAX_NR_TIERS {
            let pv = self.read_ctrl_pos(memcg, type_, tier, gain[type_]);
            if !positive_ctrl_err(&sp, &pv) {
                break;
            }
            tier += 1;
        }
        (type_, tier - 1)
    }

    /// `isolate_folios`: (scanned, type).
    pub(crate) fn isolate_folios(&mut self, memcg: u16, sc: &mut ScanControl, swappiness: u32, list: &mut Vec<u32>, nr_to_scan: u64) -> (u64, usize) {
        let min_seq = self.memcgs[memcg as usize].lruvec.lrugen.min_seq;
        let mut tier: Option<usize> = None;
        let mut type_ = if swappiness == 0 {
            FILE
        } else if min_seq[ANON] < min_seq[FILE] {
            ANON
        } else if swappiness == 1 {
            FILE
        } else if swappiness == MAX_SWAPPINESS {
            ANON
        } else {
            let (t, ti) = self.get_type_to_scan(memcg, swappiness);
            tier = Some(ti);
            t
        };
        let mut scanned = 0;
        for _ in (swappiness == 0) as usize..2 {
            let t = match tier {
                Some(t) => t,
                None => self.get_tier_idx(memcg, type_),
            };
            scanned = self.scan_folios(memcg, sc, type_, t, list, nr_to_scan);
            if scanned > 0 {
                break;
            }
            type_ = 1 - type_;
            tier = None;
        }
        (scanned, type_)
    }

    /// `evict_folios`: isolate a batch from the oldest generation, try to
    /// reclaim it, put back the rest; one retry for clean folios that may
    /// have missed rotation.
    pub fn evict_folios(&mut self, memcg: u16, sc: &mut ScanControl, swappiness: u32) -> u64 {
        // 6.12's scan_folios stops at MAX_LRU_BATCH folios a call.
        self.evict_folios_n(memcg, sc, swappiness, MAX_LRU_BATCH)
    }

    /// `evict_folios` with `scan_folios` stopping after `nr_to_scan`
    /// folios (7.2 "relocate the LRU scan batch limit to callers": the
    /// caller passes its batch; crate::profiles `reclaim_loop`).
    pub(crate) fn evict_folios_n(&mut self, memcg: u16, sc: &mut ScanControl, swappiness: u32, nr_to_scan: u64) -> u64 {
        self.evict_folios_typed(memcg, sc, swappiness, nr_to_scan).0
    }

    /// `evict_folios`, also saying which type it isolated a batch of
    /// (None: it isolated nothing).
    pub(crate) fn evict_folios_typed(&mut self, memcg: u16, sc: &mut ScanControl, swappiness: u32, nr_to_scan: u64) -> (u64, Option<usize>) {
        let mut list = Vec::new();
        // The lock is held from before the scan (whose time scan_folios
        // charges) over every folio it scanned or sorted, of both types if
        // it fell back to the other (isolate_folios' count is filtered).
        let (t0, seen) = (self.lock_clock(), self.sim.reclaim_work.scanned);
        (self.steps.evict_folios_flush)(self, memcg, swappiness);
        let (scanned, type_) = (self.steps.isolate_folios)(self, memcg, sc, swappiness, &mut list, nr_to_scan);
        let hold = self.cost.lru_lock + (self.sim.reclaim_work.scanned - seen) * self.cost.lock_isolate_gen;
        let scanned = (self.steps.evict_folios_scanned)(self, memcg, swappiness, scanned);
        self.lru_lock_section(memcg, t0, hold, true);
        if list.is_empty() {
            return (scanned, None);
        }
        // The lru_lock is dropped: the batch stays isolated while
        // shrink_folio_list works on it, and a reclaimer on another CPU
        // may run meanwhile.
        self.task_yield_point();
        let mut skip_retry = false;
        let mut taken = list.len() as u64;
        loop {
            let mut stat = ReclaimStat::default();
            let reclaimed = self.shrink_folio_list(&mut list, sc, &mut stat);
            (self.steps.evict_folios_stat)(self, sc, &stat, &mut taken);
            sc.nr_reclaimed += reclaimed;
            let mut clean = Vec::new();
            let mut keep = Vec::with_capacity(list.len());
            for &pfn in list.iter() {
                if !self.folio_evictable(pfn) {
                    keep.push(pfn); // move_folios_to_lru culls it
                    continue;
                }
                if (self.steps.evict_putback)(self, pfn, skip_retry) {
                    clean.push(pfn);
                } else {
                    keep.push(pfn);
                }
            }
            self.move_folios_to_lru(&keep);
            // Its section ends with shrink_folio_list's work, whose time
            // is charged at the end.
            if self.lru_lock_timed() {
                let hold = self.cost.lru_lock + keep.len() as u64 * self.cost.lock_putback;
                let end = self.lock_clock().saturating_add(self.pending_reclaim_ns());
                self.lru_lock_section(memcg, end.saturating_sub(hold), hold, false);
            }
            (self.steps.count_reclaim)(self, memcg, sc, crate::profiles::ReclaimItem::Steal, reclaimed);
            self.ev.add(if type_ == FILE { Ev::PgstealFile } else { Ev::PgstealAnon }, reclaimed);
            if clean.is_empty() {
                break;
            }
            list = clean;
            skip_retry = true;
        }
        // The rmap walks, look-around and pageouts of shrink_folio_list.
        self.spend_reclaim(0);
        (scanned, Some(type_))
    }

    // ---- refaults ------------------------------------------------------------------

    /// `lru_gen_eviction`: the shadow of an evicted folio.
    pub fn lru_gen_eviction(&mut self, pfn: u32) -> u64 {
        let f = *self.folios.get(pfn);
        let type_ = f.lru_type();
        let refs = self.folio_lru_refs(pfn);
        let tier = lru_tier_from_refs(refs);
        let lg = &mut self.memcgs[f.memcg as usize].lruvec.lrugen;
        let token = (lg.min_seq[type_] << LRU_REFS_WIDTH) | refs.saturating_sub(1) as u64;
        lg.evicted[type_][tier] += 1;
        pack_shadow(f.memcg, token, refs != 0)
    }

    /// The shadow of a refaulting folio, unpacked, if it is for the
    /// folio's own lruvec (every version's `lru_gen_refault` returns
    /// otherwise): (memcg, type, token, workingset).
    pub(crate) fn lru_gen_shadow_of(&self, pfn: u32, shadow: u64) -> Option<(u16, usize, u64, bool)> {
        let (memcg_id, token, workingset) = unpack_shadow(shadow);
        let f = self.folios.get(pfn);
        if memcg_id != f.memcg || memcg_id as usize >= self.memcgs.len() {
            return None;
        }
        Some((f.memcg, f.lru_type(), token, workingset))
    }

    /// `lru_gen_refault`.
    pub fn lru_gen_refault(&mut self, pfn: u32, shadow: u64) {
        let Some((memcg, type_, token, workingset)) = self.lru_gen_shadow_of(pfn, shadow) else {
            return;
        };
        let (refault_ev, act_ev, restore_ev) = crate::workingset::workingset_events(type_ == FILE);
        self.count(memcg, refault_ev, 1);
        let min_seq = self.memcgs[memcg as usize].lruvec.lrugen.min_seq[type_];
        let recent = (token >> LRU_REFS_WIDTH) == (min_seq & (EVICTION_MASK >> LRU_REFS_WIDTH));
        if !recent {
            return;
        }
        let refs = (token & ((1 << LRU_REFS_WIDTH) - 1)) as u32 + workingset as u32;
        let tier = lru_tier_from_refs(refs);
        self.memcgs[memcg as usize].lruvec.lrugen.refaulted[type_][tier] += 1;
        self.count(memcg, act_ev, 1);
        if self.current.in_lru_fault || refs >= (1 << LRU_REFS_WIDTH) - 1 {
            let fm = self.folios.get_mut(pfn);
            fm.set_refs_field(3);
            fm.set(pg::WORKINGSET);
            self.count(memcg, restore_ev, 1);
        }
    }

    // ---- state change, debugfs -----------------------------------------------------

    /// `lru_gen_change_state` (and the capability bits of `enabled`).
    pub fn lru_gen_change_state(&mut self, mask: u32) {
        let enable = mask & LRU_GEN_CORE != 0;
        let was = self.lru_gen_enabled();
        self.sysctl.lru_gen_enabled = mask;
        if enable == was {
            return;
        }
        for m in self.memcg_subtree(ROOT_MEMCG) {
            self.memcgs[m as usize].lruvec.lrugen.enabled = enable;
            if enable {
                // fill_evictable: classic lists into generations.
                for lru in 0..4 {
                    loop {
                        let pfn = self.memcgs[m as usize].lruvec.lists[lru].tail;
                        if pfn == NIL {
                            break;
                        }
                        self.lruvec_del_folio(pfn);
                        let ok = self.lru_gen_add_folio(pfn, false);
                        debug_assert!(ok);
                    }
                }
            } else {
                // drain_evictable: generations back into the classic lists.
                for gen in 0..4 {
                    for type_ in 0..2 {
                        for zone in 0..NR_ZONES {
                            loop {
                                let pfn = self.memcgs[m as usize].lruvec.lrugen.folios[gen][type_][zone].tail;
                                if pfn == NIL {
                                    break;
                                }
                                let ok = self.lru_gen_del_folio(pfn, false);
                                debug_assert!(ok);
                                self.lruvec_add_folio(pfn);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The `lru_gen` debugfs file, in 6.12's exact format. `path` gives
    /// each memcg's cgroup path.
    pub fn lru_gen_debugfs(&self, path: &dyn Fn(u16) -> String) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let j = self.jiffies();
        for m in self.memcg_subtree(ROOT_MEMCG) {
            let lg = &self.memcgs[m as usize].lruvec.lrugen;
            let _ = writeln!(out, "memcg {:5} {}", m as u32 + 1, path(m));
            let _ = writeln!(out, " node {:5}", 0);
            // 7.2 starts at `evictable_min_seq(min_seq, MAX_SWAPPINESS / 2)`,
            // the older of the two types; 6.12 and 6.1 at `min_seq[anon]`,
            // which their coupled min_seq keeps at or below file's
            // (seq_is_valid_6_12), so one expression serves all three.
            for seq in evictable_min_seq(lg.min_seq, MAX_SWAPPINESS / 2)..=lg.max_seq {
                let gen = gen_from_seq(seq);
                let birth = lg.timestamps[gen];
                let age_ms = j.saturating_sub(birth) * (1000 / HZ);
                let _ = write!(out, " {:10} {:10}", seq, age_ms);
                for type_ in 0..2 {
                    let _ = write!(out, " {:10}{}", lg.nr_pages[gen][type_].max(0), ' ');
                }
                out.push('\n');
            }
        }
        out
    }

    /// The trace's `dump` statement: queue the debugfs text for the caller.
    pub fn lru_gen_dump_point(&mut self) {
        self.dump_requests += 1;
    }

    /// `run_cmd`'s bound on a given swappiness: up to `MAX_SWAPPINESS`, and
    /// 7.2's `max` ([`SWAPPINESS_ANON_ONLY`]) where the version has it.
    fn debugfs_swappiness(&self, cmd: char, s: u32) -> Result<u32, String> {
        let bound = self.steps.max_swappiness;
        if s <= bound {
            return Ok(s);
        }
        if s == SWAPPINESS_ANON_ONLY {
            return Err(format!(
                "lru_gen {cmd}: swappiness `max` (anon only) is Linux 7.2's; Linux {} takes 0 to {MAX_SWAPPINESS} (-EINVAL; give a number, or run --kernel 7.2)",
                self.kernel.name()
            ));
        }
        Err(format!("lru_gen {cmd}: swappiness {s} is above {MAX_SWAPPINESS} (-EINVAL)"))
    }

    /// `lru_gen +` (`run_aging` through `run_cmd`): errors carry the
    /// kernel's errno and why.
    pub fn lru_gen_debugfs_age(&mut self, memcg: u16, max_gen: u64, swappiness: Option<u32>, force_scan: bool) -> Result<(), String> {
        let sc = (self.steps.lru_gen_seq_write_sc)(memcg);
        let swappiness = match swappiness {
            None => self.get_swappiness(memcg, &sc),
            Some(s) => self.debugfs_swappiness('+', s)?,
        };
        // Every version's run_aging refuses a generation above max_seq.
        let max_seq = self.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        if max_gen > max_seq {
            return Err(format!("lru_gen +: generation {max_gen} is above max_seq {max_seq} (-EINVAL)"));
        }
        let was = (self.current.in_reclaim, self.current.mm_walk);
        self.current.in_reclaim = true;
        self.current.mm_walk = true;
        let result = (self.steps.run_aging)(self, memcg, max_gen, swappiness, force_scan);
        (self.current.in_reclaim, self.current.mm_walk) = was;
        result
    }

    /// 6.12 (and 6.1) `run_aging` past the -EINVAL check of a generation
    /// above `max_seq` (the caller's): a generation below `max_seq` is
    /// already aged (nothing to do), and without `force_scan` a lruvec
    /// already `MAX_NR_GENS` deep is -ERANGE.
    pub(crate) fn run_aging_6_12(&mut self, memcg: u16, max_gen: u64, swappiness: u32, force_scan: bool) -> Result<(), String> {
        let lg = &self.memcgs[memcg as usize].lruvec.lrugen;
        let (max_seq, min_seq) = (lg.max_seq, lg.min_seq);
        if max_gen < max_seq {
            return Ok(());
        }
        // 6.12 reads `min_seq[!can_swap]`: file's at swappiness 0, else
        // anon's (evictable_min_seq's answer while anon's is never above
        // file's, which 6.12's coupled min_seq keeps).
        if !force_scan && evictable_min_seq(min_seq, swappiness) + MAX_NR_GENS - 1 <= max_seq {
            return Err(format!("lru_gen +: already {MAX_NR_GENS} generations and force_scan is 0 (-ERANGE)"));
        }
        self.try_to_inc_max_seq(memcg, max_seq, swappiness, force_scan);
        Ok(())
    }

    /// `lru_gen -` (`run_eviction`).
    pub fn lru_gen_debugfs_evict(&mut self, memcg: u16, min_gen: u64, swappiness: Option<u32>, nr_to_reclaim: u64) -> Result<(), String> {
        let mut sc = (self.steps.lru_gen_seq_write_sc)(memcg);
        let swappiness = match swappiness {
            None => self.get_swappiness(memcg, &sc),
            Some(s) => self.debugfs_swappiness('-', s)?,
        };
        let max_seq = self.memcgs[memcg as usize].lruvec.lrugen.max_seq;
        if min_gen + MIN_NR_GENS > max_seq {
            return Err(format!(
                "lru_gen -: generation {min_gen} is one of the two youngest (max_seq {max_seq}); evict at most {} (-EINVAL)",
                max_seq.saturating_sub(MIN_NR_GENS)
            ));
        }
        let was = (self.current.in_reclaim, self.current.mm_walk);
        self.current.in_reclaim = true;
        self.current.mm_walk = true;
        sc.nr_reclaimed = 0;
        loop {
            let min_seq = self.memcgs[memcg as usize].lruvec.lrugen.min_seq;
            // 6.12 `min_seq[!swappiness]`, 7.2 `evictable_min_seq`: the
            // same while anon's min_seq is never above file's (6.12).
            if min_gen < evictable_min_seq(min_seq, swappiness) {
                break;
            }
            if sc.nr_reclaimed >= nr_to_reclaim {
                break;
            }
            let batch = (self.steps.run_eviction_batch)(nr_to_reclaim - sc.nr_reclaimed);
            if self.evict_folios_n(memcg, &mut sc, swappiness, batch) == 0 {
                break;
            }
        }
        (self.current.in_reclaim, self.current.mm_walk) = was;
        Ok(())
    }

    /// 6.12 `lru_gen_seq_write`'s scan_control (crate::profiles
    /// `Steps::lru_gen_seq_write_sc`).
    pub(crate) fn debugfs_sc(_memcg: u16) -> ScanControl {
        // lru_gen_seq_write's scan_control: no target memcg (counted as
        // global direct reclaim), may write, unmap and swap; the fields it
        // does not name are zero, so priority is 0.
        let mut sc = ScanControl::new(0, None);
        sc.priority = 0;
        sc
    }

}

/// 6.12 `folio_inc_gen`'s flags: refs and every refs flag cleared.
pub(crate) fn folio_inc_gen_clear_6_12(f: &mut crate::folio::Folio) {
    f.set_refs_field(0);
    f.clear(pg::REFERENCED | pg::WORKINGSET);
}

/// [`Kernel::folio_inc_refs`] on the folio itself: it touches nothing else,
/// so a caller holding other parts of the kernel (the run of cached reads,
/// sim/mod.rs) can mark a folio without the whole `Kernel`.
#[inline(always)]
pub(crate) fn folio_inc_refs_of(f: &mut crate::folio::Folio) {
    if f.test(pg::UNEVICTABLE) {
        return;
    }
    if !f.test(pg::REFERENCED) {
        f.set(pg::REFERENCED);
        return;
    }
    if !f.test(pg::WORKINGSET) {
        f.set(pg::WORKINGSET);
        return;
    }
    let r = f.refs_field();
    if r < 3 {
        f.set_refs_field(r + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::MachineConfig;

    #[test]
    fn tiers_follow_order_base_2_of_refs_plus_one() {
        // 6.12: refs = counter + PG_workingset; tier = order_base_2(refs + 1).
        let tiers: Vec<usize> = (0..=4).map(lru_tier_from_refs).collect();
        assert_eq!(tiers, vec![0, 1, 2, 2, 3]);
    }

    #[test]
    fn ctrl_pos_noise_floor_and_gain() {
        let sp = CtrlPos { refaulted: 100, total: 1000, gain: 1 };
        // Fewer than MIN_LRU_BATCH refaults: always "positive" (evictable).
        assert!(positive_ctrl_err(&sp, &CtrlPos { refaulted: 63, total: 64, gain: 2 }));
        // PV refaults at 20 % vs SP's 10 %: 200*(1000+64)*1 = 212800 <=
        // 101*1000*2 = 202000 is false -> protect.
        assert!(!positive_ctrl_err(&sp, &CtrlPos { refaulted: 200, total: 1000, gain: 2 }));
        // PV at 18 %: 180*1064 = 191520 <= 202000 -> evictable (gain 2 lets
        // PV refault up to about twice SP's rate).
        assert!(positive_ctrl_err(&sp, &CtrlPos { refaulted: 180, total: 1000, gain: 2 }));
    }

    /// A tier whose refault rate is more than twice tier 0's gets
    /// protected: get_tier_idx stops below it.
    #[test]
    fn tier_with_more_refaults_than_tier0_is_protected() {
        let mut k = Kernel::new(&MachineConfig::default());
        let lg = &mut k.memcgs[0].lruvec.lrugen;
        // tier 0: 100 refaults / 1000 evicted; tier 1 same rate; tier 2:
        // 300 / 1000 (30 %).
        lg.refaulted[FILE] = [100, 100, 300, 0];
        lg.evicted[FILE] = [1000, 1000, 1000, 0];
        assert_eq!(k.get_tier_idx(0, FILE), 1, "tiers 0..=1 evictable, tier 2 protected");
        let lg = &mut k.memcgs[0].lruvec.lrugen;
        lg.refaulted[FILE] = [100, 300, 300, 0];
        assert_eq!(k.get_tier_idx(0, FILE), 0, "tier 1 already protected");
        let lg = &mut k.memcgs[0].lruvec.lrugen;
        lg.refaulted[FILE] = [100, 100, 100, 100];
        lg.evicted[FILE] = [1000; 4];
        assert_eq!(k.get_tier_idx(0, FILE), 3, "no tier refaults more: all evictable");
    }

    /// The averages carry half of each generation's counts forward.
    #[test]
    fn reset_ctrl_pos_halves_into_the_average() {
        let mut k = Kernel::new(&MachineConfig::default());
        let lg = &mut k.memcgs[0].lruvec.lrugen;
        lg.refaulted[ANON] = [10, 20, 30, 40];
        lg.evicted[ANON] = [100, 100, 100, 100];
        lg.protected[ANON] = [0, 6, 8, 10];
        lg.avg_refaulted[ANON] = [2, 2, 2, 2];
        lg.avg_total[ANON] = [50, 50, 50, 50];
        k.reset_ctrl_pos(0, ANON, true);
        let lg = &k.memcgs[0].lruvec.lrugen;
        assert_eq!(lg.avg_refaulted[ANON], [6, 11, 16, 21]);
        assert_eq!(lg.avg_total[ANON], [75, 78, 79, 80]);
        assert_eq!(lg.refaulted[ANON], [0; 4]);
        assert_eq!(lg.protected[ANON], [0; 4]);
    }
}

/// 6.12 `seq_is_valid`: file two or more generations deep, no deeper
/// than anon, anon at most four (file's `min_seq` at or above anon's).
pub(crate) fn seq_is_valid_6_12(lg: &LruGen) -> bool {
    lg.max_seq >= lg.min_seq[1] + 1 && lg.min_seq[1] >= lg.min_seq[0] && lg.max_seq - lg.min_seq[0] + 1 <= 4
}
