// SPDX-License-Identifier: GPL-2.0-only
//! The per-memcg (one node) LRU vector: the classic lists and the state
//! the classic policy and the refault logic keep beside them.

use crate::folio::FolioList;

/// `enum lru_list`.
pub const LRU_INACTIVE_ANON: usize = 0;
pub const LRU_ACTIVE_ANON: usize = 1;
pub const LRU_INACTIVE_FILE: usize = 2;
pub const LRU_ACTIVE_FILE: usize = 3;
pub const LRU_UNEVICTABLE: usize = 4;
pub const NR_LRU_LISTS: usize = 5;
pub const LRU_NAMES: [&str; 5] = ["inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable"];

pub const ANON: usize = 0;
pub const FILE: usize = 1;

#[inline]
pub fn lru_index(file: usize, active: bool) -> usize {
    2 * file + active as usize
}

#[derive(Default)]
pub struct Lruvec {
    /// MGLRU state (`lruvec->lrugen`) and page-table walk state (`mm_state`).
    pub lrugen: crate::lru_gen::LruGen,
    pub mm_state: crate::lru_gen_walk::MmState,
    /// Active/inactive sizes the MGLRU keeps for compatibility
    /// (`lru_gen_update_size`), indexed like `lists`.
    pub gen_size: [i64; NR_LRU_LISTS],
    pub lists: [FolioList; NR_LRU_LISTS],
    /// `anon_cost`, `file_cost` (`lru_note_cost`).
    pub anon_cost: u64,
    pub file_cost: u64,
    /// `nonresident_age`: the classic refault clock.
    pub nonresident_age: u64,
    /// `refaults[]`: `WORKINGSET_ACTIVATE_*` at the last `snapshot_refaults`.
    pub refaults: [u64; 2],
}

impl Lruvec {
    /// `lruvec_page_state(NR_LRU_BASE + lru)` of this lruvec alone: the
    /// classic list, or the MGLRU's compatibility count.
    #[inline]
    pub fn size(&self, lru: usize) -> u64 {
        (self.lists[lru].len as i64 + self.gen_size[lru]).max(0) as u64
    }
}
