// SPDX-License-Identifier: GPL-2.0-only
//! The multi-gen LRU. Placeholder hooks until the MGLRU issue lands: the
//! seam functions exist so the classic path can call them, and the CLI
//! refuses `--policy mglru` before any of them could run.

use crate::kernel::Kernel;

impl Kernel {
    /// `lru_gen_add_folio`: false = not handled (classic lists take it).
    pub fn lru_gen_add_folio(&mut self, _pfn: u32, _reclaiming: bool) -> bool {
        false
    }
    /// `lru_gen_del_folio`: false when the folio is not on an MGLRU list.
    pub fn lru_gen_del_folio(&mut self, pfn: u32, _reclaiming: bool) -> bool {
        self.folios.get(pfn).gen_field() != 0
    }
    /// `folio_inc_refs`.
    pub fn folio_inc_refs(&mut self, _pfn: u32) {}
    /// `lru_gen_eviction`.
    pub fn lru_gen_eviction(&mut self, _pfn: u32) -> u64 {
        0
    }
    /// `lru_gen_look_around`: test and clear the young bit (and, once
    /// implemented, scan the neighbourhood).
    pub fn lru_gen_look_around(&mut self, region: u32, index: u64, _pfn: u32) -> bool {
        let v = &self.vmas[region as usize];
        let (va, pgd) = (v.va(index), self.tasks[v.task as usize].pgd);
        let p = self.pt.get_mut(pgd, va).unwrap();
        let young = *p & crate::mm::pte::YOUNG != 0;
        *p &= !crate::mm::pte::YOUNG;
        young
    }
    /// `lru_gen_shrink_node`.
    pub fn lru_gen_shrink_node(&mut self, _sc: &mut crate::vmscan::ScanControl) {}
    /// `lru_gen_age_node`.
    pub fn lru_gen_age_node(&mut self, _sc: &mut crate::vmscan::ScanControl) {}
    /// Switch `lru_gen.enabled` at run time (`lru_gen_change_state`).
    pub fn lru_gen_change_state(&mut self, _mask: u32) {}
    /// The trace's `dump` statement.
    pub fn lru_gen_dump_point(&mut self) {}
    /// `lru_gen +` on /sys/kernel/debug/lru_gen.
    pub fn lru_gen_debugfs_age(&mut self, _memcg: u16, _max_gen: u64, _swappiness: Option<u32>, _force_scan: bool) -> Result<(), String> {
        Err("lru_gen debugfs commands need the multi-gen LRU, which is not implemented yet".into())
    }
    /// `lru_gen -` on /sys/kernel/debug/lru_gen.
    pub fn lru_gen_debugfs_evict(&mut self, _memcg: u16, _min_gen: u64, _swappiness: Option<u32>, _nr: u64) -> Result<(), String> {
        Err("lru_gen debugfs commands need the multi-gen LRU, which is not implemented yet".into())
    }
    /// `lru_gen_refault`.
    pub fn lru_gen_refault(&mut self, _pfn: u32, _shadow: u64) {}
}
