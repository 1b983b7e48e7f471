// SPDX-License-Identifier: GPL-2.0-only
//! Page reclaim (mm/vmscan.c): the classic active/inactive LRU scanner,
//! `shrink_folio_list`, the memcg walk, direct reclaim, memcg limit and
//! proactive reclaim, and kswapd.
//!
//! Order of operations and constants follow 6.12. The isolated batch is a
//! `Vec` in isolation order (oldest first); the kernel's list juggling
//! (isolate to the head of a private list, process from its tail, put
//! back from the tail to the LRU head) amounts to processing oldest first
//! and putting the batch back with its order kept, which is what the
//! model does.

use crate::folio::{pg, NR_ZONES};
use crate::profiles::ReclaimItem;
use crate::kernel::{Kernel, Policy, DEF_PRIORITY, MAX_RECLAIM_RETRIES, NSEC_PER_JIFFY, HZ, SWAP_CLUSTER_MAX};
use crate::kswapd::KSWAPD_ASLEEP;
use crate::lruvec::{ANON, FILE, LRU_ACTIVE_ANON, LRU_ACTIVE_FILE, LRU_INACTIVE_ANON, LRU_INACTIVE_FILE};
use crate::memcontrol::{MemcgEvent, ROOT_MEMCG};
use crate::stat::Ev;
use crate::util::int_sqrt;

pub const DEACTIVATE_ANON: u8 = 1;
pub const DEACTIVATE_FILE: u8 = 2;

/// `sc->nr`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NrStats {
    pub dirty: u64,
    pub unqueued_dirty: u64,
    pub congested: u64,
    pub writeback: u64,
    pub immediate: u64,
    pub file_taken: u64,
    pub taken: u64,
}

impl NrStats {
    /// One batch's writeback statistics and the folios it took
    /// (`shrink_inactive_list`; 7.2 `handle_reclaim_writeback`).
    pub fn add_batch(&mut self, stat: &ReclaimStat, taken: u64) {
        self.dirty += stat.nr_dirty;
        self.congested += stat.nr_congested;
        self.unqueued_dirty += stat.nr_unqueued_dirty;
        self.writeback += stat.nr_writeback;
        self.immediate += stat.nr_immediate;
        self.taken += taken;
    }
}

/// `struct scan_control`.
#[derive(Clone, Debug)]
pub struct ScanControl {
    pub nr_to_reclaim: u64,
    /// `target_mem_cgroup`: None for global reclaim.
    pub target: Option<u16>,
    pub priority: i32,
    pub may_writepage: bool,
    pub may_unmap: bool,
    pub may_swap: bool,
    pub proactive: bool,
    /// Proactive swappiness override (`memory.reclaim swappiness=`).
    pub swappiness: Option<u32>,
    pub memcg_low_reclaim: bool,
    pub memcg_low_skipped: bool,
    pub memcg_full_walk: bool,
    pub may_deactivate: u8,
    pub force_deactivate: bool,
    pub skipped_deactivate: bool,
    pub cache_trim_mode: bool,
    pub cache_trim_mode_failed: bool,
    pub no_cache_trim_mode: bool,
    pub file_is_tiny: bool,
    pub anon_cost: u64,
    pub file_cost: u64,
    pub nr_scanned: u64,
    pub nr_reclaimed: u64,
    /// 6.1's `memcgs_need_aging` and `last_reclaimed` (kswapd's aging of
    /// every memcg; crate::profiles `reclaim_loop_6_1`). 6.12 has neither.
    pub memcgs_need_aging: bool,
    pub last_reclaimed: u64,
    pub nr: NrStats,
}

impl ScanControl {
    pub fn new(nr_to_reclaim: u64, target: Option<u16>) -> ScanControl {
        ScanControl {
            nr_to_reclaim,
            target,
            priority: DEF_PRIORITY,
            may_writepage: true,
            may_unmap: true,
            may_swap: true,
            proactive: false,
            swappiness: None,
            memcg_low_reclaim: false,
            memcg_low_skipped: false,
            memcg_full_walk: false,
            may_deactivate: 0,
            force_deactivate: false,
            skipped_deactivate: false,
            cache_trim_mode: false,
            cache_trim_mode_failed: false,
            no_cache_trim_mode: false,
            file_is_tiny: false,
            memcgs_need_aging: false,
            last_reclaimed: 0,
            anon_cost: 0,
            file_cost: 0,
            nr_scanned: 0,
            nr_reclaimed: 0,
            nr: NrStats::default(),
        }
    }
    /// `cgroup_reclaim`.
    #[inline]
    pub fn cgroup_reclaim(&self) -> bool {
        self.target.is_some()
    }
    /// `root_reclaim`.
    #[inline]
    pub fn root_reclaim(&self) -> bool {
        matches!(self.target, None | Some(ROOT_MEMCG))
    }
    #[inline]
    pub fn target_memcg(&self) -> u16 {
        self.target.unwrap_or(ROOT_MEMCG)
    }
}

/// Why a reclaimer sleeps in `reclaim_throttle` (`enum
/// vmscan_throttle_state`; NOPROGRESS is not modelled, docs/FIDELITY.md
/// 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throttle {
    /// `VMSCAN_THROTTLE_WRITEBACK`: kswapd met folios tagged for immediate
    /// reclaim still under writeback.
    Writeback,
    /// `VMSCAN_THROTTLE_ISOLATED`: too many folios isolated by others.
    Isolated,
    /// `VMSCAN_THROTTLE_CONGESTED`: the lruvec or node is congested.
    Congested,
}

/// `struct reclaim_stat`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReclaimStat {
    pub nr_dirty: u64,
    pub nr_unqueued_dirty: u64,
    pub nr_congested: u64,
    pub nr_writeback: u64,
    pub nr_immediate: u64,
    pub nr_pageout: u64,
    pub nr_activate: [u64; 2],
    pub nr_ref_keep: u64,
    pub nr_unmap_fail: u64,
}

/// Where a reclaim pass stands in one lruvec: `shrink_lruvec`'s locals,
/// kept so that kswapd can stop between two rounds of batches and go on
/// later (crate::kswapd, docs/FIDELITY.md simplification 2). Direct,
/// memcg and proactive reclaim run it to the end at once.
#[derive(Clone, Debug)]
pub(crate) struct LruvecScan {
    memcg: u16,
    /// False: the MGLRU's `lru_gen_shrink_lruvec`, already done whole.
    classic: bool,
    nr: [u64; 4],
    targets: [u64; 4],
    nr_to_reclaim: u64,
    nr_reclaimed: u64,
    proportional: bool,
}

/// Where `shrink_node_memcgs` stands: the memcg under reclaim (None: the
/// walk is over) and, once its turn has begun, its lruvec's scan.
#[derive(Clone, Debug)]
pub(crate) struct MemcgWalk {
    target: u16,
    partial: bool,
    gen: u64,
    memcg: Option<u16>,
    lruvec: Option<LruvecScan>,
}

/// Where `shrink_node` stands.
#[derive(Clone, Debug)]
pub(crate) enum NodeScan {
    /// The classic walk of the memcg tree; `sc.nr_reclaimed` at its start.
    Classic { nr_reclaimed: u64, walk: MemcgWalk },
    /// The MGLRU's global reclaim over the memcg LRU.
    Mglru(crate::lru_gen::GenNodeScan),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FolioRef {
    Reclaim,
    ReclaimClean,
    Keep,
    Activate,
}

/// What happened to a folio in `shrink_folio_list`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    Freed,
    Activate,
    Keep,
}

impl Kernel {
    /// `sc_swappiness`: cgroup v2 has no per-memcg swappiness.
    pub fn sc_swappiness(&self, sc: &ScanControl) -> u32 {
        sc.swappiness.unwrap_or(self.sysctl.swappiness)
    }

    /// `can_reclaim_anon_pages`.
    pub fn can_reclaim_anon_pages(&self, memcg: u16) -> bool {
        self.mem_cgroup_get_nr_swap_pages(memcg) > 0
    }

    /// `can_age_anon_pages`: swap is configured.
    pub fn can_age_anon_pages(&self) -> bool {
        self.swap.as_ref().is_some_and(|s| s.nr_pages() > 0)
    }

    /// `inactive_is_low` on hierarchical sizes.
    pub fn inactive_is_low(&self, memcg: u16, inactive_lru: usize) -> bool {
        let inactive = self.lruvec_page_state(memcg, inactive_lru);
        let active = self.lruvec_page_state(memcg, inactive_lru + 1);
        let gb = (inactive + active) >> (30 - 12);
        let ratio = if gb > 0 { int_sqrt(10 * gb) } else { 1 };
        inactive * ratio < active
    }

    // ---- shrink_folio_list ---------------------------------------------------

    /// `folio_check_references` (6.12: the same for both policies).
    pub(crate) fn folio_check_references_6_12(&mut self, pfn: u32, sc: &ScanControl) -> FolioRef {
        let rp = self.folio_referenced(pfn, sc.target);
        let f = self.folios.get_mut(pfn);
        let referenced_folio = f.test(pg::REFERENCED);
        f.clear(pg::REFERENCED);
        if f.test(pg::MLOCKED) {
            // Found in a VM_LOCKED mapping (mlock.rs), PG_referenced
            // already cleared (folio_test_clear_referenced comes first).
            return FolioRef::Activate;
        }
        self.folio_check_references_classic(pfn, rp, referenced_folio)
    }

    /// The classic LRU's rules of `folio_check_references`, once the
    /// references are known: `rp` young mappings, `referenced_folio`
    /// the `PG_referenced` it tested and cleared.
    pub(crate) fn folio_check_references_classic(&mut self, pfn: u32, rp: u32, referenced_folio: bool) -> FolioRef {
        let f = self.folios.get_mut(pfn);
        if rp > 0 {
            f.set(pg::REFERENCED);
            if referenced_folio || rp > 1 {
                return FolioRef::Activate;
            }
            // No VM_EXEC mappings in the model.
            return FolioRef::Keep;
        }
        if referenced_folio && f.is_file_lru() {
            return FolioRef::ReclaimClean;
        }
        FolioRef::Reclaim
    }

    /// `shrink_folio_list`: try to free each isolated folio. Returns the
    /// number reclaimed; `list` keeps the folios to put back, in order.
    pub fn shrink_folio_list(&mut self, list: &mut Vec<u32>, sc: &mut ScanControl, stat: &mut ReclaimStat) -> u64 {
        let mut nr_reclaimed = 0;
        let mut kept = Vec::with_capacity(list.len());
        let mut pgactivate = 0;
        for (i, &pfn) in list.iter().enumerate() {
            // A hint for the host's caches, no state: the page-cache entry
            // and xarray node of the folio four ahead, which its removal
            // will write (docs/PERFORMANCE.md, fifth session).
            if let Some(&ahead) = list.get(i + 4) {
                self.prefetch_folio_removal(ahead);
            }
            // A folio its owner freed while this batch held it: the
            // isolation's reference was the last (crate::memory
            // `free_unmapped_folio`).
            let fate = if self.folios.get(pfn).test(pg::ORPHAN) { Fate::Freed } else { self.shrink_one_folio(pfn, sc, stat) };
            match fate {
                Fate::Freed => {
                    nr_reclaimed += 1;
                    self.folios.get_mut(pfn).clear(pg::ISOLATED | pg::ORPHAN);
                    let f = self.folios.get_mut(pfn);
                    f.clear(pg::ACTIVE | pg::REFERENCED | pg::WORKINGSET | pg::RECLAIM);
                    self.free_folio(pfn);
                }
                Fate::Activate => {
                    let f = *self.folios.get(pfn);
                    // activate_locked: free the swap slot of a folio that is
                    // going to stay (swap full, or mlocked), unless a PTE
                    // still refers to the slot (folio_free_swap's test).
                    if f.test(pg::SWAPCACHE)
                        && (self.mem_cgroup_swap_full(f.memcg) || f.test(pg::MLOCKED))
                        && self.folio_swap_unreferenced(pfn)
                    {
                        self.folio_free_swap(pfn);
                    }
                    // activate_locked: an mlocked folio is not activated
                    // (move_folios_to_lru culls it).
                    if !self.folios.get(pfn).test(pg::MLOCKED) {
                        self.folios.get_mut(pfn).set(pg::ACTIVE);
                        stat.nr_activate[f.lru_type()] += 1;
                        self.count_memcg(f.memcg, Ev::Pgactivate, 1);
                        pgactivate += 1;
                    }
                    kept.push(pfn);
                }
                Fate::Keep => kept.push(pfn),
            }
        }
        self.ev.add(Ev::Pgactivate, pgactivate);
        *list = kept;
        nr_reclaimed
    }

    /// Whether no PTE references the folio's swap slot any more (the
    /// kernel's `!folio_swapped`: a swap count of 0): every mapping's PTE
    /// points to the folio, not to the slot, or the mappings are gone.
    pub fn folio_swap_unreferenced(&self, pfn: u32) -> bool {
        self.swap_count(self.folios.get(pfn).swap - 1) == 0
    }

    fn shrink_one_folio(&mut self, pfn: u32, sc: &mut ScanControl, stat: &mut ReclaimStat) -> Fate {
        sc.nr_scanned += 1;
        if !self.folio_evictable(pfn) {
            return Fate::Activate;
        }
        let f = *self.folios.get(pfn);
        let mapped = f.mapcount > 0;
        if !sc.may_unmap && mapped {
            return Fate::Keep;
        }
        if self.policy() == Policy::Mglru && (self.steps.shrink_folio_promoted)(&f) {
            return Fate::Keep;
        }
        // folio_check_dirty_writeback: anon and shmem folios (off the file
        // LRU) are written from reclaim, not by the flushers, so reclaim
        // does not stall on them: neither dirty nor under writeback here.
        let file_lru = f.is_file_lru();
        let dirty = file_lru && f.test(pg::DIRTY);
        let writeback = file_lru && f.test(pg::WRITEBACK);
        if dirty || writeback {
            stat.nr_dirty += 1;
        }
        if dirty && !writeback {
            stat.nr_unqueued_dirty += 1;
        }
        if writeback && f.test(pg::RECLAIM) {
            stat.nr_congested += 1;
        }
        if f.test(pg::WRITEBACK) {
            if self.in_kswapd && f.test(pg::RECLAIM) && self.pgdat_writeback {
                stat.nr_immediate += 1;
                return Fate::Activate;
            }
            // cgroup v2: writeback throttling is sane, never wait here.
            self.folios.get_mut(pfn).set(pg::RECLAIM);
            stat.nr_writeback += 1;
            return Fate::Activate;
        }
        let references = (self.steps.folio_check_references)(self, pfn, sc);
        match references {
            FolioRef::Activate => return Fate::Activate,
            FolioRef::Keep => {
                stat.nr_ref_keep += 1;
                return Fate::Keep;
            }
            _ => {}
        }
        let f = *self.folios.get(pfn);
        if f.test(pg::ANON) && f.test(pg::SWAPBACKED) && !f.test(pg::SWAPCACHE) && !self.add_to_swap(pfn) {
            return Fate::Activate;
        }
        if self.folios.get(pfn).mapcount > 0 {
            self.try_to_unmap(pfn);
            if self.folios.get(pfn).mapcount > 0 {
                stat.nr_unmap_fail += 1;
                return Fate::Activate;
            }
        }
        let f = *self.folios.get(pfn);
        if f.test(pg::DIRTY) {
            if f.is_file_lru() && (self.steps.dirty_file_immediate)(self, &f) {
                self.ev.add(Ev::NrVmscanImmediateReclaim, 1);
                self.folios.get_mut(pfn).set(pg::RECLAIM);
                return Fate::Activate;
            }
            if references == FolioRef::ReclaimClean {
                return Fate::Keep;
            }
            if !sc.may_writepage {
                return Fate::Keep;
            }
            // pageout(); a shmem folio's writepage moves it to swap (shmem.rs).
            if f.is_shmem() && !f.test(pg::SWAPCACHE) {
                if !self.shmem_pageout(pfn) {
                    return Fate::Activate;
                }
            } else if f.is_file_lru() {
                // A page-cache folio of a regular file: its mapping has no
                // ->writepage (ext4, the model's file system, has only
                // ->writepages in 6.12), so pageout returns PAGE_ACTIVATE
                // and the folio stays dirty with PG_reclaim for the flusher
                // (is_page_cache_freeable first: a folio with an extra
                // reference is kept).
                if f.test(pg::IN_BATCH) || f.test(pg::PINNED) {
                    return Fate::Keep;
                }
                return Fate::Activate;
            } else {
                self.pageout(pfn);
            }
            stat.nr_pageout += 1;
            let f = self.folios.get(pfn);
            if f.test(pg::WRITEBACK) || f.test(pg::DIRTY) {
                return Fate::Keep;
            }
        }
        if self.remove_mapping(pfn, sc) {
            Fate::Freed
        } else {
            Fate::Keep
        }
    }

    /// `pageout` of a swap-cache folio (`swap_writepage`): clear dirty for
    /// I/O and start writing it. Synchronous devices finish before this
    /// returns. (A regular file's folio never gets here: no ->writepage.)
    fn pageout(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if f.test(pg::SWAPCACHE) && self.folio_swap_unreferenced(pfn) && f.mapcount == 0 {
            // swap_writepage: nobody references the slot; drop swap.
            self.folio_free_swap(pfn);
            return;
        }
        self.folio_clear_dirty_for_io(pfn);
        self.folios.get_mut(pfn).set(pg::RECLAIM);
        self.ev.add(Ev::NrVmscanWrite, 1);
        self.current.pending_work.pageout += 1;
        self.folio_start_writeback(pfn);
        if !self.folios.get(pfn).test(pg::WRITEBACK) {
            self.folios.get_mut(pfn).clear(pg::RECLAIM);
        }
    }

    /// `__remove_mapping`: take the folio out of the page cache or swap
    /// cache, leaving a shadow. False if it is busy.
    fn remove_mapping(&mut self, pfn: u32, sc: &ScanControl) -> bool {
        let f = *self.folios.get(pfn);
        if f.mapcount > 0 || f.test(pg::DIRTY) || f.test(pg::WRITEBACK) || f.test(pg::PINNED) || f.test(pg::IN_BATCH) {
            // folio_ref_freeze fails on an extra reference (an operation
            // holding it, or a per-CPU batch).
            return false;
        }
        let target = sc.target_memcg();
        if f.test(pg::SWAPCACHE) {
            let shadow = self.workingset_eviction(pfn, target);
            self.delete_from_swap_cache(pfn, shadow);
            return true;
        }
        if f.test(pg::ANON) {
            // An anon folio without swap cache cannot be here.
            return false;
        }
        let shadow = if f.is_file_lru() { self.workingset_eviction(pfn, target) } else { 0 };
        self.filemap_remove_folio(pfn, shadow);
        true
    }

    /// `move_folios_to_lru`: put back in order; returns pages moved.
    pub fn move_folios_to_lru(&mut self, list: &[u32]) -> u64 {
        let mut moved = 0;
        for &pfn in list {
            if self.folios.get(pfn).test(pg::ORPHAN) {
                // Freed by its owner meanwhile: the last reference goes.
                self.folios.get_mut(pfn).clear(pg::ISOLATED | pg::ORPHAN | pg::ACTIVE | pg::REFERENCED | pg::WORKINGSET);
                self.free_folio(pfn);
                continue;
            }
            if !self.folio_evictable(pfn) {
                // Mlocked meanwhile: back through the add batch, which
                // culls it to the unevictable list (mlock.rs).
                self.folio_putback_lru(pfn);
                continue;
            }
            let f = self.folios.get_mut(pfn);
            f.clear(pg::ISOLATED);
            f.set(pg::LRU);
            let memcg = f.memcg;
            self.lruvec_add_folio(pfn);
            moved += 1;
            // Tested after the add: the MGLRU clears PG_active there.
            if self.folios.get(pfn).test(pg::ACTIVE) {
                self.workingset_age_nonresident(memcg, 1);
            }
        }
        moved
    }

    /// `isolate_lru_folios`: take up to `nr_to_scan` folios from the tail
    /// of a classic list. Returns (isolated, scanned).
    fn isolate_lru_folios(&mut self, nr_to_scan: u64, memcg: u16, lru: usize, sc: &ScanControl, dst: &mut Vec<u32>) -> u64 {
        let mut scan = 0;
        while scan < nr_to_scan {
            let mut list = self.memcgs[memcg as usize].lruvec.lists[lru];
            let pfn = list.tail;
            if pfn == crate::folio::NIL {
                break;
            }
            scan += 1;
            let f = *self.folios.get(pfn);
            if !f.test(pg::LRU) || (!sc.may_unmap && f.mapcount > 0) {
                // list_move to the head of the source list.
                self.folios.unlink(&mut list, pfn);
                self.folios.add_head(&mut list, pfn);
                self.memcgs[memcg as usize].lruvec.lists[lru] = list;
                continue;
            }
            self.folios.unlink(&mut list, pfn);
            self.memcgs[memcg as usize].lruvec.lists[lru] = list;
            self.zone_lru_add(pfn, lru, false);
            let fm = self.folios.get_mut(pfn);
            fm.set_list_field(0);
            fm.clear(pg::LRU);
            fm.set(pg::ISOLATED);
            dst.push(pfn);
        }
        scan
    }

    /// `too_many_isolated`: a direct or limit reclaimer (not kswapd) waits
    /// while other reclaimers hold more of the node's folios of this type
    /// off the lists than an eighth of its inactive list (`GFP_IO|FS`:
    /// every allocation of the model's tasks). Others hold some only in
    /// parallel scheduling, where a task's reclaim pauses with its batch
    /// isolated (crate::sched); serially, and beside kswapd (which pauses
    /// only with its batch put back), the answer is false. A false answer
    /// wakes the reclaimers asleep on the ISOLATED queue.
    fn too_many_isolated(&mut self, file: bool) -> bool {
        if self.in_kswapd {
            return false;
        }
        let isolated = self.nr_isolated[file as usize];
        let too_many = isolated != 0 && {
            let lru = if file { LRU_INACTIVE_FILE } else { LRU_INACTIVE_ANON };
            isolated > self.node_page_state_lru(lru) >> 3
        };
        if !too_many {
            // wake_throttle_isolated: reclaimers asleep on the node's
            // ISOLATED queue wake now.
            self.wake_throttle_isolated();
        }
        too_many
    }

    /// `shrink_inactive_list`.
    fn shrink_inactive_list(&mut self, nr_to_scan: u64, memcg: u16, lru: usize, sc: &mut ScanControl) -> u64 {
        let file = lru == LRU_INACTIVE_FILE;
        let mut stalled = false;
        while self.too_many_isolated(file) {
            if stalled {
                return 0;
            }
            // Wait a bit for the other reclaimers (VMSCAN_THROTTLE_ISOLATED).
            stalled = true;
            self.reclaim_throttle(Throttle::Isolated);
            // About to die (OOM-killed meanwhile) and free its memory.
            if !self.in_kswapd && !self.tasks.get(self.current.pid as usize).is_none_or(|t| t.alive) {
                return SWAP_CLUSTER_MAX;
            }
        }
        self.lru_add_drain();
        let mut list = Vec::with_capacity(nr_to_scan as usize);
        let t0 = self.lock_clock();
        let nr_scanned = self.isolate_lru_folios(nr_to_scan, memcg, lru, sc, &mut list);
        let nr_taken = list.len() as u64;
        self.nr_isolated[file as usize] += nr_taken;
        self.lru_lock_section(memcg, t0, self.cost.lru_lock + nr_scanned * self.cost.lock_isolate, true);
        (self.steps.count_reclaim)(self, memcg, sc, ReclaimItem::Scan, nr_scanned);
        self.ev.add(if file { Ev::PgscanFile } else { Ev::PgscanAnon }, nr_scanned);
        self.spend_reclaim(nr_scanned);
        if nr_taken == 0 {
            return 0;
        }
        // The lru_lock is dropped: the batch stays isolated while
        // shrink_folio_list works on it, and a reclaimer on another CPU
        // may run meanwhile and find it counted (too_many_isolated).
        self.task_yield_point();
        let mut stat = ReclaimStat::default();
        let nr_reclaimed = self.shrink_folio_list(&mut list, sc, &mut stat);
        self.move_folios_to_lru(&list);
        self.nr_isolated[file as usize] -= nr_taken;
        // The rmap walks and pageouts of shrink_folio_list.
        self.spend_reclaim(0);
        let hold = self.cost.lru_lock + list.len() as u64 * self.cost.lock_putback;
        self.lru_lock_section(memcg, self.lock_clock().saturating_sub(hold), hold, true);
        (self.steps.count_reclaim)(self, memcg, sc, ReclaimItem::Steal, nr_reclaimed);
        self.ev.add(if file { Ev::PgstealFile } else { Ev::PgstealAnon }, nr_reclaimed);
        (self.steps.lru_note_cost)(self, memcg, file as usize, stat.nr_pageout, nr_scanned - nr_reclaimed);
        if stat.nr_unqueued_dirty == nr_taken {
            self.wakeup_flusher_threads();
        }
        sc.nr.add_batch(&stat, nr_taken);
        if file {
            sc.nr.file_taken += nr_taken;
        }
        nr_reclaimed
    }

    /// `shrink_active_list`.
    pub fn shrink_active_list(&mut self, nr_to_scan: u64, memcg: u16, lru: usize, sc: &mut ScanControl) {
        let file = lru == LRU_ACTIVE_FILE;
        self.lru_add_drain();
        let mut hold = Vec::with_capacity(nr_to_scan as usize);
        let t0 = self.lock_clock();
        let nr_scanned = self.isolate_lru_folios(nr_to_scan, memcg, lru, sc, &mut hold);
        let nr_taken = hold.len() as u64;
        self.nr_isolated[file as usize] += nr_taken;
        self.lru_lock_section(memcg, t0, self.cost.lru_lock + nr_scanned * self.cost.lock_isolate, true);
        (self.steps.count_reclaim)(self, memcg, sc, ReclaimItem::Refill, nr_scanned);
        self.spend_reclaim(nr_scanned);
        let nr_rotated = 0; // no VM_EXEC mappings in the model
        for &pfn in &hold {
            // folio_referenced clears the young bits; the answer only
            // matters for VM_EXEC file folios.
            if !self.folio_evictable(pfn) {
                continue; // put back as it is (move_folios_to_lru)
            }
            let _ = self.folio_referenced(pfn, sc.target);
            // A folio the walk found in a VM_LOCKED mapping (mlocked now)
            // is deactivated like the rest; move_folios_to_lru culls it.
            let f = self.folios.get_mut(pfn);
            f.clear(pg::ACTIVE);
            f.set(pg::WORKINGSET);
        }
        // The rmap walks of folio_referenced above.
        self.spend_reclaim(0);
        let nr_deactivate = self.move_folios_to_lru(&hold);
        self.nr_isolated[file as usize] -= nr_taken;
        let putback = self.cost.lru_lock + nr_taken * self.cost.lock_putback;
        self.lru_lock_section(memcg, self.lock_clock().saturating_sub(putback), putback, true);
        self.ev.add(Ev::Pgdeactivate, nr_deactivate);
        self.count_memcg(memcg, Ev::Pgdeactivate, nr_deactivate);
        if nr_rotated > 0 {
            (self.steps.lru_note_cost)(self, memcg, file as usize, 0, nr_rotated);
        }
    }

    fn shrink_list(&mut self, lru: usize, nr_to_scan: u64, memcg: u16, sc: &mut ScanControl) -> u64 {
        if lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE {
            let bit = if lru == LRU_ACTIVE_FILE { DEACTIVATE_FILE } else { DEACTIVATE_ANON };
            if sc.may_deactivate & bit != 0 {
                self.shrink_active_list(nr_to_scan, memcg, lru, sc);
            } else {
                sc.skipped_deactivate = true;
            }
            return 0;
        }
        self.shrink_inactive_list(nr_to_scan, memcg, lru, sc)
    }

    /// `get_scan_count`.
    fn get_scan_count(&mut self, memcg: u16, sc: &mut ScanControl) -> [u64; 4] {
        #[derive(PartialEq)]
        enum Balance {
            Equal,
            Fract,
            Anon,
            File,
        }
        let swappiness = self.sc_swappiness(sc) as u64;
        let mut fraction = [0u64; 2];
        let mut denominator = 0u64;
        let balance = if !sc.may_swap || !self.can_reclaim_anon_pages(memcg) {
            Balance::File
        } else if sc.cgroup_reclaim() && swappiness == 0 {
            Balance::File
        } else if swappiness == crate::lru_gen::SWAPPINESS_ANON_ONLY as u64 {
            // 7.2: proactive reclaim of anon only (`swappiness=max`; the
            // versions without it never get here with 201).
            Balance::Anon
        } else if sc.priority == 0 && swappiness != 0 {
            Balance::Equal
        } else if sc.file_is_tiny {
            Balance::Anon
        } else if sc.cache_trim_mode {
            Balance::File
        } else {
            let total = sc.anon_cost + sc.file_cost;
            let anon_cost = total + sc.anon_cost;
            let file_cost = total + sc.file_cost;
            let total = anon_cost + file_cost;
            let ap = swappiness * (total + 1) / (anon_cost + 1);
            let fp = (200 - swappiness) * (total + 1) / (file_cost + 1);
            fraction = [ap, fp];
            denominator = ap + fp;
            Balance::Fract
        };
        let mut nr = [0u64; 4];
        let (min, low) = self.mem_cgroup_protection(sc.target_memcg(), memcg);
        for (lru, slot) in nr.iter_mut().enumerate() {
            let file = lru >= LRU_INACTIVE_FILE;
            let size = self.memcgs[memcg as usize].lruvec.size(lru);
            let mut scan = self.apply_proportional_protection_of(memcg, sc, size, min, low);
            scan >>= sc.priority;
            scan = match balance {
                Balance::Equal => scan,
                Balance::Fract => {
                    if denominator == 0 {
                        0
                    } else {
                        ((scan as u128 * fraction[file as usize] as u128) / denominator as u128) as u64
                    }
                }
                Balance::File => {
                    if file {
                        scan
                    } else {
                        0
                    }
                }
                Balance::Anon => {
                    if file {
                        0
                    } else {
                        scan
                    }
                }
            };
            *slot = scan;
        }
        nr
    }

    /// `apply_proportional_protection` (6.12 inside `get_scan_count`, a
    /// function of its own in 7.2): a protected memcg's scan target
    /// shrinks by the share of its usage its protection covers.
    pub(crate) fn apply_proportional_protection(&mut self, memcg: u16, sc: &mut ScanControl, scan: u64) -> u64 {
        let (min, low) = self.mem_cgroup_protection(sc.target_memcg(), memcg);
        self.apply_proportional_protection_of(memcg, sc, scan, min, low)
    }

    fn apply_proportional_protection_of(&mut self, memcg: u16, sc: &mut ScanControl, size: u64, min: u64, low: u64) -> u64 {
        if min == 0 && low == 0 {
            return size;
        }
        let cgroup_size = self.memcgs[memcg as usize].usage;
        let protection = if !sc.memcg_low_reclaim && low > min {
            sc.memcg_low_skipped = true;
            low
        } else {
            min
        };
        let cgroup_size = cgroup_size.max(protection);
        let s = size - ((size as u128 * protection as u128) / (cgroup_size as u128 + 1)) as u64;
        s.max(SWAP_CLUSTER_MAX)
    }

    /// `shrink_lruvec` up to its loop: the scan targets (classic; the
    /// MGLRU's memcg reclaim runs whole here, `lru_gen_shrink_lruvec`).
    fn shrink_lruvec_begin(&mut self, memcg: u16, sc: &mut ScanControl) -> LruvecScan {
        // 6.12 tests `!root_reclaim(sc)` too; root reclaim under the
        // multi-gen LRU comes here only where the kernel has no
        // `lru_gen_shrink_node` (6.1; crate::profiles `no_memcg_lru`), which
        // hands every lruvec to `lru_gen_shrink_lruvec`.
        if self.policy() == Policy::Mglru {
            // Not resumable (docs/FIDELITY.md simplification 2).
            self.lru_gen_shrink_lruvec(memcg, sc);
            return LruvecScan { memcg, classic: false, nr: [0; 4], targets: [0; 4], nr_to_reclaim: 0, nr_reclaimed: 0, proportional: false };
        }
        let nr = self.get_scan_count(memcg, sc);
        LruvecScan {
            memcg,
            classic: true,
            nr,
            targets: nr,
            nr_to_reclaim: sc.nr_to_reclaim,
            nr_reclaimed: 0,
            proportional: !sc.cgroup_reclaim() && !self.in_kswapd && sc.priority == DEF_PRIORITY,
        }
    }

    /// `shrink_lruvec`'s loop from where `s` stands, and its tail: true
    /// when done, false when kswapd stopped between two rounds of batches
    /// (`kswapd_should_pause`; it goes on from `s` later).
    fn shrink_lruvec_resume(&mut self, s: &mut LruvecScan, sc: &mut ScanControl) -> bool {
        if !s.classic {
            return true;
        }
        let memcg = s.memcg;
        while s.nr[LRU_INACTIVE_ANON] > 0 || s.nr[LRU_ACTIVE_FILE] > 0 || s.nr[LRU_INACTIVE_FILE] > 0 {
            for lru in 0..4 {
                if s.nr[lru] > 0 {
                    let n = s.nr[lru].min(SWAP_CLUSTER_MAX);
                    s.nr[lru] -= n;
                    s.nr_reclaimed += self.shrink_list(lru, n, memcg, sc);
                }
            }
            if s.nr_reclaimed >= s.nr_to_reclaim && !s.proportional {
                let nr = &mut s.nr;
                let targets = &s.targets;
                let nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
                let nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
                if nr_file == 0 || nr_anon == 0 {
                    break;
                }
                let (stop, percentage) = if nr_file > nr_anon {
                    let t = targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON] + 1;
                    (LRU_INACTIVE_ANON, nr_anon * 100 / t)
                } else {
                    let t = targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE] + 1;
                    (LRU_INACTIVE_FILE, nr_file * 100 / t)
                };
                nr[stop] = 0;
                nr[stop + 1] = 0;
                let other = if stop == LRU_INACTIVE_FILE { LRU_INACTIVE_ANON } else { LRU_INACTIVE_FILE };
                for l in [other, other + 1] {
                    let scanned = targets[l] - nr[l];
                    nr[l] = targets[l] * (100 - percentage) / 100;
                    nr[l] -= nr[l].min(scanned);
                }
            }
            if self.kswapd_should_pause() {
                return false;
            }
            self.task_yield_point();
        }
        sc.nr_reclaimed += s.nr_reclaimed;
        if self.can_age_anon_pages() && self.inactive_is_low(memcg, LRU_INACTIVE_ANON) {
            self.shrink_active_list(SWAP_CLUSTER_MAX, memcg, LRU_ACTIVE_ANON, sc);
        }
        true
    }

    /// `prepare_scan_control` (classic only).
    fn prepare_scan_control(&mut self, sc: &mut ScanControl) {
        if self.policy() == Policy::Mglru {
            return;
        }
        let target = sc.target_memcg();
        // The statistics it reads are those of the last flush; a version
        // step may flush first (6.12's rate-limited flush does nothing
        // while the periodic flush keeps time).
        (self.steps.prepare_scan_flush)(self, target);
        sc.anon_cost = self.memcgs[target as usize].lruvec.anon_cost;
        sc.file_cost = self.memcgs[target as usize].lruvec.file_cost;
        if !sc.force_deactivate {
            let refaults = [
                self.flushed_ws_activate(target, ANON),
                self.flushed_ws_activate(target, FILE),
            ];
            let snap = self.memcgs[target as usize].lruvec.refaults;
            let mut md = 0;
            if refaults[ANON] != snap[ANON] || self.inactive_is_low(target, LRU_INACTIVE_ANON) {
                md |= DEACTIVATE_ANON;
            }
            if refaults[FILE] != snap[FILE] || self.inactive_is_low(target, LRU_INACTIVE_FILE) {
                md |= DEACTIVATE_FILE;
            }
            sc.may_deactivate = md;
        } else {
            sc.may_deactivate = DEACTIVATE_ANON | DEACTIVATE_FILE;
        }
        let file = self.lruvec_page_state(target, LRU_INACTIVE_FILE);
        sc.cache_trim_mode = (file >> sc.priority) != 0 && sc.may_deactivate & DEACTIVATE_FILE == 0 && !sc.no_cache_trim_mode;
        if !sc.cgroup_reclaim() {
            // sum_zone_node_page_state: the zones' counters (crate::vmstat).
            let free = self.global_free_state();
            let file = self.node_page_state_lru(LRU_ACTIVE_FILE) + self.node_page_state_lru(LRU_INACTIVE_FILE);
            let anon = self.node_page_state_lru(LRU_INACTIVE_ANON);
            sc.file_is_tiny = file + free <= self.node_wmark(2) && sc.may_deactivate & DEACTIVATE_ANON == 0 && (anon >> sc.priority) != 0;
        }
    }

    /// `snapshot_refaults`.
    pub(crate) fn snapshot_refaults(&mut self, target: u16) {
        if self.policy() == Policy::Mglru {
            return;
        }
        let a = self.flushed_ws_activate(target, ANON);
        let f = self.flushed_ws_activate(target, FILE);
        self.memcgs[target as usize].lruvec.refaults = [a, f];
    }

    /// `mem_cgroup_calculate_protection` for `memcg` under `root`.
    pub(crate) fn calculate_protection(&mut self, root: u16, memcg: u16) {
        if memcg == root {
            return;
        }
        let usage = self.memcgs[memcg as usize].usage;
        if usage == 0 {
            return;
        }
        let parent = self.memcgs[memcg as usize].parent;
        if parent == root {
            let c = &mut self.memcgs[memcg as usize];
            c.emin = c.min;
            c.elow = c.low;
            return;
        }
        let p = &self.memcgs[parent as usize];
        let (pemin, pelow) = (p.emin, p.elow);
        let (mut smin, mut slow) = (0, 0);
        for &ch in &p.children {
            let c = &self.memcgs[ch as usize];
            smin += c.usage.min(c.min);
            slow += c.usage.min(c.low);
        }
        let c = &self.memcgs[memcg as usize];
        let emin = crate::memcontrol::effective_protection(usage, c.min, pemin, smin);
        let elow = crate::memcontrol::effective_protection(usage, c.low, pelow, slow);
        let c = &mut self.memcgs[memcg as usize];
        c.emin = emin;
        c.elow = elow;
    }

    /// `mem_cgroup_iter` with or without the shared reclaim cookie, over the
    /// subtree of `root` in pre-order. `state` carries (prev, generation).
    fn memcg_iter(&mut self, root: u16, prev: Option<u16>, partial: bool, gen: &mut u64) -> Option<u16> {
        if !partial {
            return self.memcg_next_pre(root, prev);
        }
        let cur_gen = self.memcgs[root as usize].iter_gen;
        if prev.is_none() {
            *gen = cur_gen;
        } else if *gen != cur_gen {
            return None;
        }
        let pos = self.memcgs[root as usize].iter_pos;
        let mut next = self.memcg_next_pre(root, pos);
        self.memcgs[root as usize].iter_pos = next;
        if next.is_none() {
            self.memcgs[root as usize].iter_gen += 1;
            if prev.is_none() {
                // A walker joining at the very end restarts from the top.
                *gen = self.memcgs[root as usize].iter_gen;
                next = Some(root);
                self.memcgs[root as usize].iter_pos = next;
            }
        }
        next
    }

    /// `shrink_node_memcgs` up to its loop: the first memcg.
    fn shrink_node_memcgs_begin(&mut self, sc: &ScanControl) -> MemcgWalk {
        let target = sc.target_memcg();
        let partial = !self.in_kswapd && !sc.memcg_full_walk;
        let mut gen = 0;
        let memcg = self.memcg_iter(target, None, partial, &mut gen);
        MemcgWalk { target, partial, gen, memcg, lruvec: None }
    }

    /// `shrink_node_memcgs`'s loop from where `w` stands: true when done,
    /// false when kswapd stopped (inside a lruvec, or between two).
    fn shrink_node_memcgs_resume(&mut self, w: &mut MemcgWalk, sc: &mut ScanControl) -> bool {
        while let Some(m) = w.memcg {
            if let Some(s) = w.lruvec.as_mut() {
                if !self.shrink_lruvec_resume(s, sc) {
                    return false;
                }
                w.lruvec = None;
                self.shrink_slab(m, sc.priority);
                self.spend_lruvec_visit();
                if w.partial && sc.nr_reclaimed >= sc.nr_to_reclaim {
                    return true;
                }
            } else {
                self.calculate_protection(w.target, m);
                let c = &self.memcgs[m as usize];
                let own = m == ROOT_MEMCG || m == w.target;
                let below_min = !own && c.emin >= c.usage;
                let below_low = !own && c.elow >= c.usage;
                let mut skip = false;
                if below_min {
                    skip = true;
                } else if below_low {
                    if !sc.memcg_low_reclaim {
                        sc.memcg_low_skipped = true;
                        skip = true;
                    } else {
                        self.memcg_memory_event(m, MemcgEvent::Low);
                    }
                }
                if !skip {
                    w.lruvec = Some(self.shrink_lruvec_begin(m, sc));
                    continue;
                }
            }
            w.memcg = self.memcg_iter(w.target, Some(m), w.partial, &mut w.gen);
            if w.memcg.is_some() {
                if self.kswapd_should_pause() {
                    return false;
                }
                self.task_yield_point();
            }
        }
        true
    }

    /// `shrink_node`, whole (direct, memcg and proactive reclaim; kswapd's
    /// resumable passes use its parts, crate::kswapd).
    pub fn shrink_node(&mut self, sc: &mut ScanControl) {
        let mut n = self.shrink_node_begin(sc);
        let done = self.shrink_node_resume(&mut n, sc);
        debug_assert!(done, "only kswapd pauses inside shrink_node");
    }

    /// `shrink_node` up to the memcg walk (classic) or the memcg LRU's
    /// walk (`lru_gen_shrink_node`).
    pub(crate) fn shrink_node_begin(&mut self, sc: &mut ScanControl) -> NodeScan {
        sc.nr = NrStats::default();
        if self.policy() == Policy::Mglru && sc.root_reclaim() {
            if let Some(n) = (self.steps.lru_gen_shrink_node)(self, sc) {
                return n;
            }
        }
        let nr_reclaimed = sc.nr_reclaimed;
        self.prepare_scan_control(sc);
        let walk = self.shrink_node_memcgs_begin(sc);
        NodeScan::Classic { nr_reclaimed, walk }
    }

    /// The rest of `shrink_node` from where `n` stands: true when done,
    /// false when kswapd stopped inside it.
    pub(crate) fn shrink_node_resume(&mut self, n: &mut NodeScan, sc: &mut ScanControl) -> bool {
        let (nr_reclaimed, walk) = match n {
            NodeScan::Mglru(g) => return self.lru_gen_shrink_node_resume(g, sc),
            NodeScan::Classic { nr_reclaimed, walk } => (*nr_reclaimed, walk),
        };
        if !self.shrink_node_memcgs_resume(walk, sc) {
            return false;
        }
        let reclaimable = sc.nr_reclaimed - nr_reclaimed > 0;
        if self.in_kswapd {
            if sc.nr.writeback > 0 && sc.nr.writeback == sc.nr.taken {
                self.pgdat_writeback = true;
            }
            if sc.nr.unqueued_dirty == sc.nr.file_taken {
                self.pgdat_dirty = true;
            }
            if sc.nr.immediate > 0 {
                self.reclaim_throttle(Throttle::Writeback);
            }
        }
        if sc.nr.dirty > 0 && sc.nr.dirty == sc.nr.congested {
            if self.in_kswapd {
                self.node_congested = true;
            }
            if sc.cgroup_reclaim() {
                self.memcgs[sc.target_memcg() as usize].lruvec_congested = true;
            }
        }
        // The flags are the target lruvec's: LRUVEC_NODE_CONGESTED is set by
        // kswapd on its own target, the root lruvec, so it stalls global
        // direct reclaim (and reclaim aimed at the root memcg) only, never
        // reclaim aimed at a memcg below the root.
        let target = sc.target_memcg();
        if !self.in_kswapd
            && (self.memcgs[target as usize].lruvec_congested || (target == ROOT_MEMCG && self.node_congested))
        {
            self.reclaim_throttle(Throttle::Congested);
        }
        if reclaimable {
            self.kswapd_failures = 0;
        } else if sc.cache_trim_mode {
            sc.cache_trim_mode_failed = true;
        }
        true
    }

    /// `reclaim_throttle`: the reclaimer sleeps for `reason`'s timeout
    /// (`VMSCAN_THROTTLE_WRITEBACK` HZ/10, `ISOLATED` HZ/50, `CONGESTED`
    /// one jiffy), woken early only where 6.12 wakes its queue: a
    /// writeback sleeper once more than SWAP_CLUSTER_MAX pages have ended
    /// writeback since it began (`__acct_reclaim_writeback`, counted from
    /// each sleeper's own start), found among the completions already
    /// queued on the devices (docs/FIDELITY.md 15); an isolated sleeper in
    /// parallel scheduling when another reclaimer's `too_many_isolated`
    /// comes out false (`task_wait_isolated`). A congested
    /// sleep is skipped as `skip_throttle_noprogress` says. A task sleeps
    /// in simulated time (kswapd runs meanwhile); kswapd's own sleep
    /// lengthens its pass.
    pub fn reclaim_throttle(&mut self, reason: Throttle) {
        let jiffies = match reason {
            Throttle::Writeback => HZ / 10,
            Throttle::Isolated => HZ / 50,
            Throttle::Congested => {
                if self.skip_throttle_noprogress() {
                    return;
                }
                1
            }
        };
        let deadline = self.now.saturating_add(jiffies * NSEC_PER_JIFFY);
        let until = match reason {
            Throttle::Writeback => self.nth_writeback_end(SWAP_CLUSTER_MAX as usize + 1).map_or(deadline, |t| t.min(deadline)),
            _ => deadline,
        };
        let d = until.saturating_sub(self.now);
        self.sim.reclaim_throttled[reason as usize] += 1;
        if reason == Throttle::Isolated && !self.in_kswapd && self.sched.yielder.0.is_some() {
            // With tasks side by side, another reclaimer may wake it early.
            let slept = self.task_wait_isolated(until);
            self.sim.reclaim_throttled_ns[reason as usize] += slept;
            return;
        }
        self.sim.reclaim_throttled_ns[reason as usize] += d;
        if self.in_kswapd {
            self.kswapd_sleep(d);
        } else {
            self.sleep(d);
        }
    }

    /// `skip_throttle_noprogress`: no congestion or no-progress sleep when
    /// kswapd has given up on the node, or when at most half of the
    /// node's reclaimable pages wait for writeback (dirty or under
    /// writeback): reclaim will meet them at the tail and throttle then.
    fn skip_throttle_noprogress(&self) -> bool {
        if self.kswapd_failures >= MAX_RECLAIM_RETRIES {
            return true;
        }
        let reclaimable: u64 =
            (0..NR_ZONES).filter(|&z| self.zones[z].managed > 0).map(|z| self.zone_reclaimable_pages(z)).sum();
        2 * (self.nr_dirty + self.nr_writeback) <= reclaimable
    }

    /// The end of one lruvec's turn in a reclaim pass (`shrink_node_memcgs`,
    /// the memcg LRU's `shrink_one`): the visit's own CPU time (`lruvec`),
    /// whatever it found.
    pub(crate) fn spend_lruvec_visit(&mut self) {
        self.current.pending_work.lruvecs += 1;
        self.spend_reclaim(0);
    }

    /// The time of the reclaim steps done but not yet charged
    /// (`spend_reclaim` charges them with the next batch's scan).
    pub(crate) fn pending_reclaim_ns(&self) -> u64 {
        let (w, c) = (&self.current.pending_work, &self.cost);
        w.rmap * c.rmap + w.pte * c.pte + w.pageout * c.pageout + w.lruvecs * c.lruvec
    }

    /// Reclaim CPU time for `scanned` pages and the steps done since the
    /// last charge (rmap walks, page-table entries, pageouts): system
    /// time of the task that reclaims, whose clock it moves; kswapd's is
    /// its own CPU time, on its own timeline (crate::kswapd). A batch's
    /// folios scanned are charged when it is isolated, the steps done on
    /// them (and an aging walk's entries) when it ends.
    pub(crate) fn spend_reclaim(&mut self, scanned: u64) {
        let w = std::mem::take(&mut self.current.pending_work);
        let c = &self.cost;
        let ns = scanned * c.scan + w.rmap * c.rmap + w.pte * c.pte + w.pageout * c.pageout + w.lruvecs * c.lruvec;
        let total = &mut self.sim.reclaim_work;
        total.scanned += scanned;
        total.rmap += w.rmap;
        total.pte += w.pte;
        total.pageout += w.pageout;
        total.lruvecs += w.lruvecs;
        if scanned == 0 && ns == 0 {
            return;
        }
        if self.in_kswapd {
            self.kswapd_spend(ns);
        } else if !self.cost.tasks_on_external_clock {
            self.spend_cpu(ns, true);
        } else {
            self.current.uncharged_reclaim_ns += ns;
        }
    }

    /// `do_try_to_free_pages`.
    pub fn do_try_to_free_pages(&mut self, sc: &mut ScanControl) -> u64 {
        let initial_priority = sc.priority;
        let was = self.current.in_reclaim;
        self.current.in_reclaim = true;
        let entered = !was && !self.in_kswapd;
        if entered {
            self.sched_direct_reclaim(true);
        }
        loop {
            if !sc.cgroup_reclaim() {
                self.ev.add(Ev::AllocstallMovable, 1);
            }
            loop {
                sc.nr_scanned = 0;
                // shrink_zones: the node. Its consider_reclaim_throttle
                // (NOPROGRESS) is left out: docs/FIDELITY.md simplification 15.
                self.shrink_node(sc);
                if sc.nr_reclaimed >= sc.nr_to_reclaim {
                    break;
                }
                if sc.priority < DEF_PRIORITY - 2 {
                    sc.may_writepage = true;
                }
                sc.priority -= 1;
                if sc.priority < 0 {
                    break;
                }
            }
            let target = sc.target_memcg();
            self.snapshot_refaults(target);
            if sc.cgroup_reclaim() {
                self.memcgs[target as usize].lruvec_congested = false;
            }
            if sc.nr_reclaimed > 0 {
                break;
            }
            if !sc.memcg_full_walk {
                sc.priority = initial_priority;
                sc.memcg_full_walk = true;
                continue;
            }
            if sc.skipped_deactivate {
                sc.priority = initial_priority;
                sc.force_deactivate = true;
                sc.skipped_deactivate = false;
                continue;
            }
            if sc.memcg_low_skipped {
                sc.priority = initial_priority;
                sc.force_deactivate = false;
                sc.memcg_low_reclaim = true;
                sc.memcg_low_skipped = false;
                continue;
            }
            break;
        }
        if entered {
            self.sched_direct_reclaim(false);
        }
        self.current.in_reclaim = was;
        sc.nr_reclaimed
    }

    /// `allow_direct_reclaim`: direct reclaimers may go on while the free
    /// pages of the zones up to Normal that have something to reclaim are
    /// above half their min watermarks, or kswapd has given up.
    pub fn allow_direct_reclaim(&self) -> bool {
        if self.kswapd_failures >= MAX_RECLAIM_RETRIES {
            return true;
        }
        let (mut reserve, mut free) = (0, 0);
        for z in 0..NR_ZONES {
            if self.zones[z].managed == 0 || self.zone_reclaimable_pages(z) == 0 {
                continue;
            }
            reserve += self.wmark_pages(z, 0);
            free += self.nr_free_available(z);
        }
        reserve == 0 || free > reserve / 2
    }

    /// `allow_direct_reclaim` with its side effect: when the watermark is
    /// not met (so kswapd is not hopeless), a waiting kswapd is woken
    /// whether or not the node is balanced: throttled processes need it
    /// awake (`kswapd_wake` leaves a running kswapd alone).
    fn allow_direct_reclaim_wake(&mut self) -> bool {
        let ok = self.allow_direct_reclaim();
        if !ok {
            self.kswapd_wake();
        }
        ok
    }

    /// `throttle_direct_reclaim` for a `__GFP_FS` allocation: below half
    /// the min reserve, wait on `pfmemalloc_wait` until kswapd has
    /// restored it (it wakes the waiters at the end of each pass when
    /// `allow_direct_reclaim` holds, and before it sleeps; a waiter woken
    /// too early checks again and waits again).
    fn throttle_direct_reclaim(&mut self) {
        if self.allow_direct_reclaim_wake() {
            return;
        }
        self.ev.add(Ev::PgscanDirectThrottle, 1);
        // A waiter and a kswapd that finds the node balanced at once can
        // wake each other without end at one instant (the kernel spins
        // through that in real time); the model stops waiting then.
        let mut idle_rounds = 0;
        loop {
            let at = self.kswapd.at;
            if at == KSWAPD_ASLEEP {
                // kswapd went to sleep with the waiter unsatisfied and
                // could not be woken (hopeless node): allow_direct_reclaim
                // now holds, or nothing will make it.
                break;
            }
            if at > self.now {
                // Asleep until kswapd's pass ends; the other tasks run
                // meanwhile (parallel scheduling).
                self.sim.task_ns += at - self.now;
                self.advance_to(at);
                self.task_yield_point();
                idle_rounds = 0;
            } else {
                idle_rounds += 1;
                if idle_rounds > MAX_RECLAIM_RETRIES {
                    break;
                }
                self.kswapd_run();
            }
            // kswapd wakes the waiters at the end of a pass, not while it
            // is paused inside one.
            if !self.kswapd_mid_pass() && self.allow_direct_reclaim_wake() {
                break;
            }
        }
    }

    /// `try_to_free_pages`: global direct reclaim of 32 pages.
    pub fn try_to_free_pages(&mut self) -> u64 {
        if self.current.in_reclaim {
            return 0;
        }
        self.throttle_direct_reclaim();
        let mut sc = ScanControl::new(SWAP_CLUSTER_MAX, None);
        self.do_try_to_free_pages(&mut sc)
    }
}
