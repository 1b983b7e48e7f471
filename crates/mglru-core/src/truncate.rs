// SPDX-License-Identifier: GPL-2.0-only
//! Taking pages out of a file's page cache for good (mm/truncate.c):
//! `ftruncate` to a smaller size and the eviction of an unlinked inode.
//!
//! Reclaim leaves a shadow entry where it takes a folio, so that a
//! refault can be recognised; truncation is different: the data is gone,
//! so the folio goes without a shadow, and the shadows already in the
//! range go too (`truncate_folio_batch_exceptionals`). What the removal
//! changes is bookkeeping the rest of the model already keeps: the
//! mappings' PTEs (`unmap_mapping_range` first, so `nr_mapped` and the
//! tasks' rss drop), the memcg's `file` and `file_dirty`, the buffer
//! heads and xarray nodes charged as slab, and `workingset_nodes` when a
//! shadow-only node empties.

use crate::file::{ENT_FOLIO, ENT_SHADOW, ENT_SWAP};
use crate::kernel::Kernel;
use crate::shadow::Slot;

impl Kernel {
    /// `truncate_setsize` + `truncate_pagecache` (the `ftruncate` of a
    /// file to `pages` pages). Growing a file removes nothing.
    pub fn truncate_file(&mut self, file: u32, pages: u64) {
        let old = self.files[file as usize].pages;
        if pages < old {
            self.unmap_mapping_range(file, pages);
            self.truncate_inode_pages_range(file, pages, old);
        }
        self.files[file as usize].pages = pages;
    }

    /// `unmap_mapping_range(mapping, from, 0, even_cows)`: zap the PTEs of
    /// every mapping of the file at and beyond page `from`, as munmap
    /// would (a young PTE marks its folio accessed, a dirty one dirties
    /// it).
    fn unmap_mapping_range(&mut self, file: u32, from: u64) {
        let n = self.files[file as usize].i_mmap.len();
        for i in 0..n {
            let r = self.files[file as usize].i_mmap[i];
            let pages = self.vmas[r as usize].pages;
            if from < pages {
                self.zap_range(r, from, pages);
            }
        }
    }

    /// `truncate_inode_pages_range` over pages [from, to): each folio is
    /// cleaned of its dirty state without writing it (`folio_cancel_dirty`),
    /// loses its buffers (`folio_invalidate` of a whole folio), leaves the
    /// page cache without a shadow and is freed from the LRU; each shadow
    /// entry is cleared.
    ///
    /// Simplification (docs/FIDELITY.md): the kernel waits for a folio
    /// under writeback to finish (`folio_wait_writeback`); the model ends
    /// its writeback at once and the truncating task does not wait.
    pub fn truncate_inode_pages_range(&mut self, file: u32, from: u64, to: u64) {
        if self.files[file as usize].nrpages == 0 && self.files[file as usize].swapped == 0 && !self.file_has_shadows(file) {
            return; // mapping_empty
        }
        for idx in from..to {
            let e = self.files[file as usize].cache.get(idx);
            if e & ENT_FOLIO != 0 {
                let pfn = e as u32;
                debug_assert_eq!(self.folios.get(pfn).mapcount, 0, "the mappings were zapped first");
                // filemap_remove_folio cancels the dirty state and drops
                // the buffers; no shadow: the data is gone.
                self.filemap_remove_folio(pfn, 0);
                self.free_unmapped_folio(pfn);
            } else if e & ENT_SWAP != 0 {
                // shmem_undo_range: a swapped-out page frees its slot.
                self.shmem_free_swap(file, idx);
            } else if e & ENT_SHADOW != 0 {
                self.clear_shadow_entry(file, idx);
            }
        }
    }

    /// `__clear_shadow_entry`: the shadow at `idx` of the file's page cache
    /// goes (truncation, `mapping_try_invalidate`).
    pub(crate) fn clear_shadow_entry(&mut self, file: u32, idx: u64) {
        self.files[file as usize].cache.set(idx, 0);
        self.xa_slot_changed(file, idx, Slot::Shadow, Slot::Empty, crate::memcontrol::ROOT_MEMCG);
    }

    /// Whether any xarray node of the file holds a shadow entry.
    fn file_has_shadows(&self, file: u32) -> bool {
        self.files[file as usize].xa.nodes.iter().any(|n| n.values > 0)
    }

    /// `evict` of an unlinked inode nobody holds any more:
    /// `truncate_inode_pages_final` empties its page cache, shadows
    /// included, and the inode leaves the flusher's dirty list
    /// (`inode_io_list_del`).
    pub fn evict_inode(&mut self, file: u32) {
        let pages = self.files[file as usize].pages;
        self.truncate_inode_pages_range(file, 0, pages);
        let fl = &mut self.files[file as usize];
        fl.dirty_pages.clear();
        fl.dirtied_when = None;
        self.dirty_inodes.retain(|&f| f != file);
    }

    /// `unlink(2)` of a file: the name goes at once; the inode, with its
    /// page cache, when its last mapping goes (the model holds no open
    /// file descriptions between statements).
    pub fn unlink_file(&mut self, file: u32) {
        let fl = &mut self.files[file as usize];
        if fl.unlinked {
            return;
        }
        fl.unlinked = true;
        if fl.i_mmap.is_empty() {
            self.evict_inode(file);
        }
    }
}
