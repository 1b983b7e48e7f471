// SPDX-License-Identifier: GPL-2.0-only
//! Dirty pages, writeback and the flusher (mm/page-writeback.c,
//! fs/fs-writeback.c), reduced to what reclaim sees: when dirty file
//! pages become clean, how long writeback takes, and the rotation of
//! `PG_reclaim` folios when it ends.
//!
//! The flusher is one thread for the one disk: a periodic "kupdate"
//! wake-up every `dirty_writeback_centisecs` writes inodes dirtied more
//! than `dirty_expire_centisecs` ago; background writeback runs while
//! dirty pages exceed the background threshold; reclaim's
//! `wakeup_flusher_threads` writes everything. Each device is a serial
//! queue: a page's writeback completes `disk_write` (or `swap_write`) ns
//! after the previous one on that device; 0 means synchronous.

use crate::folio::pg;
use crate::kernel::{Kernel, Timer};
use crate::lruvec::{LRU_ACTIVE_FILE, LRU_INACTIVE_FILE};
use crate::memcg::ROOT_MEMCG;
use crate::stat::{Ev, St};

/// Bound on how many times a writer waits for writeback in one
/// `balance_dirty_pages` call.
const DIRTY_WAIT_BOUND: u32 = 10_000;

impl Kernel {
    /// `folio_clear_dirty_for_io` for a folio about to be written.
    pub fn folio_clear_dirty_for_io(&mut self, pfn: u32) {
        if !self.folios.get(pfn).test(pg::ANON) {
            self.folio_mkclean(pfn);
        }
        self.account_folio_cleaned(pfn);
    }

    /// `folio_start_writeback` + submit: completion is scheduled on the
    /// device's queue, or immediate for a synchronous device.
    pub fn folio_start_writeback(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        debug_assert!(!f.test(pg::WRITEBACK));
        self.folios.get_mut(pfn).set(pg::WRITEBACK);
        self.nr_writeback += 1;
        self.memcgs[f.memcg as usize].st.add(if f.test(pg::ANON) { St::AnonWriteback } else { St::FileWriteback }, 1);
        self.ev.add(Ev::Pgpgout, 4);
        let service = if f.test(pg::SWAPCACHE) {
            self.ev.add(Ev::Pswpout, 1);
            if self.swap.as_ref().is_some_and(|s| s.sync_io) {
                0
            } else {
                self.cost.swap_write
            }
        } else {
            self.cost.disk_write
        };
        if service == 0 {
            self.folio_end_writeback(pfn);
            return;
        }
        let q = if f.test(pg::SWAPCACHE) { &mut self.swap_busy_until } else { &mut self.disk_busy_until };
        let done = (*q).max(self.now) + service;
        *q = done;
        self.add_timer(done, Timer::WritebackDone(pfn));
    }

    /// `folio_end_writeback`: `PG_reclaim` folios rotate to the tail.
    pub fn folio_end_writeback(&mut self, pfn: u32) {
        let f = *self.folios.get(pfn);
        if !f.test(pg::WRITEBACK) {
            return;
        }
        if f.test(pg::RECLAIM) {
            self.folios.get_mut(pfn).clear(pg::RECLAIM);
            self.folio_rotate_reclaimable(pfn);
        }
        self.folios.get_mut(pfn).clear(pg::WRITEBACK);
        self.nr_writeback -= 1;
        self.memcgs[f.memcg as usize].st.add(if f.test(pg::ANON) { St::AnonWriteback } else { St::FileWriteback }, -1);
        self.ev.add(Ev::NrWritten, 1);
    }

    /// A folio under writeback is being freed (its task exited): finish
    /// its writeback now and forget the timer (docs/FIDELITY.md).
    pub fn writeback_abandon(&mut self, pfn: u32) {
        self.folios.get_mut(pfn).clear(pg::RECLAIM);
        self.folio_end_writeback(pfn);
        self.timers_retain(|t| t != Timer::WritebackDone(pfn));
    }

    /// Dirty thresholds in pages: (background, hard) from
    /// `global_dirtyable_memory` and the ratios (`domain_dirty_limits`).
    pub fn dirty_thresholds(&self) -> (u64, u64) {
        let free = self.nr_free_pages();
        let reserve = self.wmark[2];
        let dirtyable = free - free.min(reserve)
            + self.lruvec_page_state(ROOT_MEMCG, LRU_INACTIVE_FILE)
            + self.lruvec_page_state(ROOT_MEMCG, LRU_ACTIVE_FILE)
            + 1;
        let thresh = dirtyable * self.sysctl.dirty_ratio / 100;
        let mut bg = dirtyable * self.sysctl.dirty_background_ratio / 100;
        if bg >= thresh {
            bg = thresh / 2;
        }
        (bg, thresh)
    }

    /// `__mark_inode_dirty` arms the flusher's periodic wake-up.
    pub fn arm_flusher(&mut self) {
        if !self.flusher_armed && self.sysctl.dirty_writeback_centisecs > 0 {
            self.flusher_armed = true;
            let at = self.now + self.sysctl.dirty_writeback_centisecs * 10_000_000;
            self.add_timer(at, Timer::FlusherPeriodic);
        }
    }

    /// `wb_workfn` on its periodic timer: kupdate then background work.
    pub fn flusher_periodic(&mut self) {
        self.flusher_armed = false;
        let expire = self.sysctl.dirty_expire_centisecs * 10_000_000;
        let cutoff = self.now.saturating_sub(expire);
        self.writeback_inodes(|dirtied| dirtied <= cutoff, u64::MAX);
        self.background_writeback();
        if !self.dirty_inodes.is_empty() {
            self.arm_flusher();
        }
    }

    /// `wb_check_background_flush`: write oldest inodes first while dirty
    /// pages exceed the background threshold.
    pub fn background_writeback(&mut self) {
        let (bg, _) = self.dirty_thresholds();
        if self.nr_dirty <= bg {
            return;
        }
        let excess = self.nr_dirty - bg;
        self.writeback_inodes(|_| true, excess);
    }

    /// `wakeup_flusher_threads(WB_REASON_VMSCAN)`: write everything.
    pub fn wakeup_flusher_threads(&mut self) {
        self.writeback_inodes(|_| true, u64::MAX);
    }

    /// Start writeback of one file's dirty pages (`filemap_fdatawrite`).
    pub fn writeback_file(&mut self, file: u32) {
        if self.files[file as usize].dirtied_when.is_none() {
            return;
        }
        if let Some(pos) = self.dirty_inodes.iter().position(|&f| f == file) {
            self.dirty_inodes.remove(pos);
            self.dirty_inodes.push_front(file);
            self.writeback_inodes(|_| true, 1);
        }
    }

    /// Write back dirty inodes in dirtied order whose `dirtied_when`
    /// passes `eligible`, whole inodes in page-offset order, stopping
    /// once `budget` pages were submitted (at an inode boundary).
    fn writeback_inodes(&mut self, eligible: impl Fn(u64) -> bool, budget: u64) {
        let mut written = 0;
        let mut requeue = Vec::new();
        while written < budget {
            let Some(file) = self.dirty_inodes.pop_front() else { break };
            let when = self.files[file as usize].dirtied_when.unwrap_or(0);
            if !eligible(when) {
                self.dirty_inodes.push_front(file);
                break;
            }
            let mut pages = std::mem::take(&mut self.files[file as usize].dirty_pages);
            pages.sort_unstable();
            pages.dedup();
            let mut still_dirty = Vec::new();
            for idx in pages {
                let Some(pfn) = self.files[file as usize].folio_at(idx as u64) else { continue };
                let f = *self.folios.get(pfn);
                if !f.test(pg::DIRTY) {
                    continue;
                }
                if f.test(pg::WRITEBACK) {
                    // WB_SYNC_NONE skips folios still being written.
                    still_dirty.push(idx);
                    continue;
                }
                self.folio_clear_dirty_for_io(pfn);
                self.folio_start_writeback(pfn);
                written += 1;
            }
            let fl = &mut self.files[file as usize];
            fl.dirty_pages.extend(still_dirty);
            if fl.dirty_pages.is_empty() {
                fl.dirtied_when = None;
            } else {
                requeue.push(file);
            }
        }
        for f in requeue {
            self.dirty_inodes.push_back(f);
        }
    }

    /// `balance_dirty_pages_ratelimited`, simplified: start background
    /// writeback above the background threshold; above the hard threshold
    /// the writer waits for writeback to complete.
    pub fn balance_dirty_pages_ratelimited(&mut self) {
        let (bg, thresh) = self.dirty_thresholds();
        if self.nr_dirty > bg {
            self.background_writeback();
        }
        let mut n = 0;
        while self.nr_dirty + self.nr_writeback > thresh && n < DIRTY_WAIT_BOUND {
            match self.next_timer() {
                Some(t) => {
                    let d = t.saturating_sub(self.now);
                    self.spend(d);
                }
                None => break,
            }
            if self.nr_dirty > bg {
                self.background_writeback();
            }
            n += 1;
        }
    }
}

#[allow(dead_code)]
fn _unused(_: St) {}
