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
use crate::memcontrol::ROOT_MEMCG;
use crate::stat::{Ev, St};

/// Bound on how many times a writer waits for writeback in one
/// `balance_dirty_pages` call.
const DIRTY_WAIT_BOUND: u32 = 10_000;
/// `MIN_WRITEBACK_PAGES`: 4 MiB.
const MIN_WRITEBACK_PAGES: u64 = 1024;
/// Requests an asynchronous swap device takes at once: the block layer's
/// default queue size (`BLKDEV_DEFAULT_RQ`, 128). A writer that finds
/// them all in flight sleeps until one completes (`blk_mq_get_tag` →
/// `io_schedule`), so reclaim cannot queue more swap-outs than the
/// device holds. Simplified (docs/FIDELITY.md 32): one request per folio
/// (no bio merging under the plug), whatever the device's own depth.
pub const SWAP_QUEUE_DEPTH: usize = 128;

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
        self.memcgs[f.memcg as usize].st.add(if f.test(pg::ANON) || f.test(pg::SWAPCACHE) { St::AnonWriteback } else { St::FileWriteback }, 1);
        let swap = f.test(pg::SWAPCACHE);
        if swap {
            (self.steps.count_swap_bio)(self, Ev::Pgpgout);
        } else {
            self.ev.add(Ev::Pgpgout, 4);
        }
        // (time in the device's queue, fixed delay beside it): only the
        // file disk has the delay.
        let (service, delay) = if swap {
            self.ev.add(Ev::Pswpout, 1);
            if !self.swap_device_store(f.swap - 1, pfn) {
                // The device found no page (-ENOMEM): the bio fails and
                // __end_swap_bio_write redirties the folio.
                self.folios.get_mut(pfn).clear(pg::RECLAIM);
                self.folio_end_writeback(pfn);
                self.folio_mark_dirty(pfn);
                return;
            }
            (if self.swap.as_ref().is_some_and(|s| s.sync_io) { 0 } else { self.cost.swap_write }, 0)
        } else {
            (self.cost.disk_write, self.cost.disk_write_delay)
        };
        if service == 0 && delay == 0 {
            self.folio_end_writeback(pfn);
            return;
        }
        if swap {
            self.swap_queue_wait();
        }
        let now = self.now;
        let q = if swap { &mut self.swap_busy_until } else { &mut self.disk_busy_until };
        let queued = (*q).max(now).saturating_add(service);
        *q = queued;
        // The page completes after both its turn in the queue and the delay.
        let done = queued.max(now.saturating_add(delay));
        if swap {
            self.swap_inflight.push_back(done);
        }
        self.add_timer(done, Timer::WritebackDone(pfn));
    }

    /// A swap-out finds the device's queue full (`SWAP_QUEUE_DEPTH`
    /// writes in flight): the writer sleeps until the oldest completes.
    /// A task's sleep passes as time in its reclaim (psi: still a memory
    /// stall), timers fire meanwhile; kswapd's lengthens its pass. Time
    /// only passes here: kswapd does not run a pass inside the writer's
    /// batch (it gets in at the next point that lets it).
    fn swap_queue_wait(&mut self) {
        let now = self.now;
        while self.swap_inflight.front().is_some_and(|&t| t <= now) {
            self.swap_inflight.pop_front();
        }
        if self.swap_inflight.len() < SWAP_QUEUE_DEPTH {
            return;
        }
        let Some(oldest) = self.swap_inflight.pop_front() else {
            return;
        };
        let d = oldest - now;
        if self.in_kswapd {
            self.kswapd_sleep(d);
        } else if !self.cost.tasks_on_external_clock {
            self.sim.task_ns += d;
            self.advance_to(oldest);
        }
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
        self.memcgs[f.memcg as usize].st.add(if f.test(pg::ANON) || f.test(pg::SWAPCACHE) { St::AnonWriteback } else { St::FileWriteback }, -1);
        self.ev.add(Ev::NrWritten, 1);
    }

    /// A folio under writeback is being freed (its task exited): finish
    /// its writeback now and forget the timer (docs/FIDELITY.md).
    pub fn writeback_abandon(&mut self, pfn: u32) {
        self.folios.get_mut(pfn).clear(pg::RECLAIM);
        self.folio_end_writeback(pfn);
        self.timers_retain(|t| t != Timer::WritebackDone(pfn));
    }

    /// `global_dirtyable_memory`: free pages above the reserves plus the
    /// file LRUs, plus one (never 0). No highmem on x86_64.
    pub fn global_dirtyable_memory(&self) -> u64 {
        // global_zone_page_state: the zones' counters (crate::vmstat).
        let free = self.global_free_state();
        let reserve = self.totalreserve_pages();
        free - free.min(reserve)
            + self.node_page_state_lru(LRU_INACTIVE_FILE)
            + self.node_page_state_lru(LRU_ACTIVE_FILE)
            + 1
    }

    /// `domain_dirty_limits` with the ratios (the `*_bytes` sysctls are not
    /// modelled): (background, hard) thresholds in pages of a domain with
    /// `avail` dirtyable pages. The kernel turns each ratio into parts per
    /// PAGE_SIZE first (20 % is 819/4096), so the thresholds round as its.
    fn domain_dirty_limits(&self, avail: u64) -> (u64, u64) {
        let ratio = self.sysctl.dirty_ratio * crate::kernel::PAGE_SIZE / 100;
        let bg_ratio = self.sysctl.dirty_background_ratio * crate::kernel::PAGE_SIZE / 100;
        let thresh = (ratio * avail / crate::kernel::PAGE_SIZE).min(u32::MAX as u64);
        let mut bg = bg_ratio * avail / crate::kernel::PAGE_SIZE;
        if bg >= thresh {
            bg = thresh / 2;
        }
        (bg, thresh)
    }

    /// The global domain's thresholds in pages: (background, hard)
    /// (`global_dirty_limits`).
    pub fn dirty_thresholds(&self) -> (u64, u64) {
        self.domain_dirty_limits(self.global_dirtyable_memory())
    }

    /// `__mark_inode_dirty` arms the flusher's periodic wake-up.
    pub fn arm_flusher(&mut self) {
        if !self.flusher_armed && self.sysctl.dirty_writeback_centisecs > 0 {
            self.flusher_armed = true;
            let at = self.now.saturating_add(self.sysctl.dirty_writeback_centisecs * 10_000_000);
            self.add_timer(at, Timer::FlusherPeriodic);
        }
    }

    /// `wb_workfn` on its periodic timer: kupdate then background work.
    pub fn flusher_periodic(&mut self) {
        self.flusher_armed = false;
        let expire = self.sysctl.dirty_expire_centisecs * 10_000_000;
        // An inode is expired once it has been dirty for `expire`
        // (wb_writeback's `oldest_jif`; jiffies wrap, so nothing dirtied at
        // boot is old before `expire` has passed).
        let now = self.now;
        self.writeback_inodes(|dirtied| dirtied.saturating_add(expire) <= now, u64::MAX);
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
        // The flusher writes in chunks of at least MIN_WRITEBACK_PAGES.
        let budget = if budget == u64::MAX { u64::MAX } else { budget.max(1).div_ceil(MIN_WRITEBACK_PAGES) * MIN_WRITEBACK_PAGES };
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
            let mut partial = false;
            for (i, &idx) in pages.iter().enumerate() {
                if written >= budget {
                    still_dirty.extend_from_slice(&pages[i..]);
                    partial = true;
                    break;
                }
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
            } else if partial {
                // More to write: stays first in line (requeue_io).
                self.dirty_inodes.push_front(file);
            } else {
                requeue.push(file);
            }
        }
        for f in requeue {
            self.dirty_inodes.push_back(f);
        }
    }

    /// `mem_cgroup_wb_stats` for the current task's memcg (None for the
    /// root memcg): its file, dirty and writeback pages as of the last
    /// statistics flush, and its headroom from the page counters (exact):
    /// the least of the memcg's and every non-root ancestor's
    /// min(memory.max, memory.high) - usage, so a child without limits
    /// under a limited parent has the parent's.
    fn memcg_wb_stats(&self) -> Option<MemcgWbStats> {
        let memcg = self.tasks[self.current.pid as usize].memcg;
        if memcg == ROOT_MEMCG {
            return None;
        }
        let fl = self.memcgs[memcg as usize].flushed;
        let mut headroom = u64::MAX;
        let mut m = memcg;
        while m != ROOT_MEMCG {
            let c = &self.memcgs[m as usize];
            headroom = headroom.min(c.max.min(c.high).saturating_sub(c.usage));
            m = c.parent;
        }
        Some(MemcgWbStats {
            filepages: fl.lru[LRU_INACTIVE_FILE] + fl.lru[LRU_ACTIVE_FILE],
            dirty: fl.file_dirty,
            writeback: fl.writeback,
            headroom,
        })
    }

    /// The memcg writeback domain (`mdtc`, cgroup v2 writeback) as
    /// `domain_dirty_avail` and `domain_dirty_limits` compute it: (dirty,
    /// background threshold, threshold) in pages. `dirty` counts the pages
    /// under writeback too when `include_writeback` (balance_dirty_pages'
    /// test), not for the background test (`domain_over_bg_thresh`).
    fn memcg_dirty_domain(&self, wb: &MemcgWbStats, global_avail: u64, include_writeback: bool) -> (u64, u64, u64) {
        let (dirty, gdirty) = if include_writeback {
            (wb.dirty + wb.writeback, self.nr_dirty + self.nr_writeback)
        } else {
            (wb.dirty, self.nr_dirty)
        };
        // mdtc_calc_avail: the headroom counts only as far as the clean
        // page cache outside this memcg could make room for it.
        let global_clean = global_avail - global_avail.min(gdirty);
        let clean = wb.filepages - wb.filepages.min(dirty);
        let other_clean = global_clean - global_clean.min(clean);
        let avail = wb.filepages + wb.headroom.min(other_clean);
        let (bg, thresh) = self.domain_dirty_limits(avail);
        (dirty, bg, thresh)
    }

    /// [`Self::dirty_exceeded`] after the statistics flush a version's
    /// `mem_cgroup_wb_stats` does for a writer in a memcg
    /// (`Steps::wb_stats_flush`).
    fn dirty_exceeded_now(&mut self) -> (bool, bool) {
        if self.tasks[self.current.pid as usize].memcg != ROOT_MEMCG {
            (self.steps.wb_stats_flush)(self);
        }
        self.dirty_exceeded()
    }

    /// Whether the writer is over a dirty limit (global or its memcg's),
    /// and whether background writeback should run.
    fn dirty_exceeded(&self) -> (bool, bool) {
        let global_avail = self.global_dirtyable_memory();
        let (bg, thresh) = self.domain_dirty_limits(global_avail);
        let mut over_bg = self.nr_dirty > bg;
        let mut over = self.nr_dirty + self.nr_writeback > thresh;
        if let Some(wb) = self.memcg_wb_stats() {
            let (d, mbg, _) = self.memcg_dirty_domain(&wb, global_avail, false);
            over_bg |= d > mbg;
            let (d, _, mthresh) = self.memcg_dirty_domain(&wb, global_avail, true);
            over |= d > mthresh;
        }
        (over_bg, over)
    }

    /// `balance_dirty_pages_ratelimited`, simplified: start background
    /// writeback above a background threshold; above a hard threshold the
    /// writer waits for writeback to complete. Both the global domain and
    /// the writer's memcg domain are checked, as cgroup v2 writeback does.
    pub fn balance_dirty_pages_ratelimited(&mut self) {
        let (over_bg, mut over) = self.dirty_exceeded_now();
        if over_bg {
            self.background_writeback_all();
        }
        let mut n = 0;
        while over && n < DIRTY_WAIT_BOUND {
            match self.next_timer() {
                Some(t) => {
                    let d = t.saturating_sub(self.now);
                    self.sleep(d);
                }
                None => break,
            }
            let (b, o) = self.dirty_exceeded_now();
            if b {
                self.background_writeback_all();
            }
            over = o;
            n += 1;
        }
    }

    /// Background writeback on behalf of a memcg domain: the model's one
    /// flusher writes the oldest dirty inodes until the global count is
    /// under its background threshold or one inode was written.
    fn background_writeback_all(&mut self) {
        let (bg, _) = self.dirty_thresholds();
        let budget = self.nr_dirty.saturating_sub(bg).max(1);
        self.writeback_inodes(|_| true, budget);
    }
}

/// What `mem_cgroup_wb_stats` reports of a memcg, in pages.
struct MemcgWbStats {
    filepages: u64,
    dirty: u64,
    writeback: u64,
    headroom: u64,
}
