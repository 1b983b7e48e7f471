// SPDX-License-Identifier: GPL-2.0-only
//! The cost model: how far simulated time advances for each thing a task
//! does. Simulated time drives the flusher (dirty expiry, periodic
//! wake-ups), writeback completion, MGLRU generation ages and `min_ttl`,
//! and the throughput estimate. Every value is in nanoseconds and can be
//! changed with `--cost NAME=NS` (docs/COST_MODEL.md).

#[derive(Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Per task operation (a trace's read, write, load/store run or
    /// advice): the program's own work around it, the task's user time.
    pub op: u64,
    /// Per task operation: system time around it that is not the page's
    /// own work (a system call's entry and exit, the file descriptor's
    /// look-up). The platform's replayer spends most of its operation here,
    /// in the socket read and write that hand each line to the task's
    /// worker (validation/calibrate_split.py).
    pub op_sys: u64,
    /// Per task operation: time that passes while the task has no CPU time
    /// of its own for it (the platform's replayer: its controller parsing
    /// and sending the line while the worker waits on its socket).
    pub op_wait: u64,
    /// Per task operation whose task differs from the task of the last
    /// operation before it: time that passes, no task's CPU time (the
    /// platform's replayer hands the line to another worker, on another
    /// CPU, which has to be woken: validation/calibrate_split.py
    /// `--two-tasks`).
    pub task_switch: u64,

    /// A CPU load or store to a resident, mapped page.
    pub mem_access: u64,
    /// A buffered read or write of one cached page (syscall + 4 KiB copy).
    pub page_copy: u64,
    /// A minor fault (page already in memory, or a fresh zeroed page).
    pub minor_fault: u64,
    /// A buffered write's page that was not cached: write_begin allocates
    /// it, adds it to the page cache and the file system reserves its
    /// block (system time, beside `page_copy`'s copy).
    pub write_new: u64,
    /// Reading one page from the file disk (synchronous wait).
    pub disk_read: u64,
    /// Reading one page from the file disk: the reader's own system time
    /// on top of `disk_read`'s wait. A RAM disk (brd, the ground-truth
    /// platform's) copies the page inside `submit_bio`, in the reader's
    /// context; a real disk's read is a wait only (0).
    pub disk_read_sys: u64,
    /// Writing one page to the file disk (time until writeback completes).
    pub disk_write: u64,
    /// A fixed delay every write to the file disk waits on top of
    /// `disk_write`'s queue, in parallel with the other writes in flight:
    /// a device-mapper `delay` target's write delay, or a remote disk's
    /// round trip. Writeback of a page completes no earlier than this
    /// after it was submitted (0 = none).
    pub disk_write_delay: u64,
    /// Reading one page from swap.
    pub swap_read: u64,
    /// Writing one page to swap (time until writeback completes).
    pub swap_write: u64,
    /// Reclaim CPU work per page scanned (charged to the task doing
    /// direct or limit reclaim, or to kswapd): isolating it, sorting it,
    /// and freeing a clean unmapped folio.
    pub scan: u64,
    /// Reclaim CPU work per mapping an rmap walk visits
    /// (`folio_referenced_one`, `try_to_unmap_one`: finding the PTE,
    /// testing or clearing it, the TLB flush).
    pub rmap: u64,
    /// Reclaim CPU work per page-table entry the multi-gen LRU examines,
    /// in the aging's page-table walk (`walk_pte_range`) and in
    /// look-around (`lru_gen_look_around`).
    pub pte: u64,
    /// Reclaim CPU work per folio that reclaim writes out (`pageout`:
    /// `add_to_swap` for anon, submitting the write).
    pub pageout: u64,
    /// Reclaim CPU work per lruvec a reclaim pass visits, whatever it
    /// finds there: one memcg's turn in `shrink_node_memcgs` or the memcg
    /// LRU's `shrink_one` (`shrink_lruvec` or `lru_gen_shrink_lruvec`
    /// with its scan-count arithmetic, `shrink_slab` for the memcg, the
    /// iterator's step). What a reclaim that finds nothing costs.
    pub lruvec: u64,
    /// How long one section of a lruvec's `lru_lock` lasts whatever it
    /// does (taking and releasing the lock, the section's fixed work).
    /// This and the four below are not charged as time of their own: they
    /// say which part of the time charged for `scan` (and for the fault or
    /// write that fills an lru_add batch) is spent holding the lock, so
    /// that another CPU wanting it waits (docs/COST_MODEL.md "The
    /// lru_lock"). Only where two CPUs' work overlaps in time: tasks in
    /// parallel scheduling, kswapd as a thread.
    pub lru_lock: u64,
    /// Per folio the classic LRU's `isolate_lru_folios` scans, under the
    /// lock.
    pub lock_isolate: u64,
    /// Per folio the multi-gen LRU's `isolate_folios` (`scan_folios`)
    /// scans or sorts, under the lock.
    pub lock_isolate_gen: u64,
    /// Per folio `move_folios_to_lru` puts back, under the lock.
    pub lock_putback: u64,
    /// Per folio an lru_add batch adds to the LRU (`folio_batch_move_lru`),
    /// under the lock.
    pub lock_add: u64,
    /// The tasks' time comes from an outside clock (`mglru validate`
    /// following a guest's time profile): reclaim by a task does not move
    /// the clock, kswapd's scanning still takes its time (kswapd's time is
    /// not in the tasks' clock). Not a cost; not settable by name.
    pub tasks_on_external_clock: bool,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel {
            op: 0,
            op_sys: 0,
            op_wait: 0,
            task_switch: 0,
            mem_access: 100,
            page_copy: 500,
            minor_fault: 1_000,
            write_new: 0,
            disk_read: 100_000,
            disk_read_sys: 0,
            disk_write: 10_000,
            disk_write_delay: 0,
            swap_read: 100_000,
            swap_write: 10_000,
            scan: 50,
            // The ratios to `scan` measured on the guest in instructions
            // (0.0769, 0.0658, 2.7839: docs/COST_MODEL.md) times the
            // default scan; the platform's are in validation/platform.json.
            rmap: 4,
            pte: 3,
            pageout: 139,
            lruvec: LRUVEC_DEFAULT_NS,
            // The lock sections measured on the guest in instructions, as
            // ratios to `scan` (docs/COST_MODEL.md "The lru_lock"), times
            // the default scan.
            lru_lock: LOCK_DEFAULTS_NS[0],
            lock_isolate: LOCK_DEFAULTS_NS[1],
            lock_isolate_gen: LOCK_DEFAULTS_NS[2],
            lock_putback: LOCK_DEFAULTS_NS[3],
            lock_add: LOCK_DEFAULTS_NS[4],
            tasks_on_external_clock: false,
        }
    }
}

/// The default `lruvec` cost: the ratio to `scan` measured on the guest
/// (docs/COST_MODEL.md "Reclaim's CPU time by step") times the default
/// scan.
pub const LRUVEC_DEFAULT_NS: u64 = 44;

/// The default `lru_lock`, `lock_isolate`, `lock_isolate_gen`,
/// `lock_putback` and `lock_add` (see Default).
pub const LOCK_DEFAULTS_NS: [u64; 5] = [4, 3, 10, 9, 11];

/// The largest value of one cost, 1 s: a cost is per operation or per
/// page, and larger values only make the clock race (and wrap) while
/// every periodic timer fires in between.
pub const MAX_COST_NS: u64 = 1_000_000_000;

/// The costs settable by name (`--cost NAME=NS`, platform.json), in the
/// order they are listed: `NAMES`, `get` and `set` all come from this one
/// list.
macro_rules! named_costs {
    ($($f:ident),* $(,)?) => {
        impl CostModel {
            pub const NAMES: [&'static str; [$(stringify!($f)),*].len()] = [$(stringify!($f)),*];

            /// The field of the cost called `name`.
            fn slot(&mut self, name: &str) -> Option<&mut u64> {
                match name {
                    $(stringify!($f) => Some(&mut self.$f),)*
                    _ => None,
                }
            }

            pub fn get(&self, name: &str) -> Option<u64> {
                match name {
                    $(stringify!($f) => Some(self.$f),)*
                    _ => None,
                }
            }
        }
    };
}

named_costs!(
    op,
    op_sys,
    op_wait,
    task_switch,
    mem_access,
    page_copy,
    minor_fault,
    write_new,
    disk_read,
    disk_read_sys,
    disk_write,
    disk_write_delay,
    swap_read,
    swap_write,
    scan,
    rmap,
    pte,
    pageout,
    lruvec,
    lru_lock,
    lock_isolate,
    lock_isolate_gen,
    lock_putback,
    lock_add,
);

impl CostModel {
    /// The time of a one-page read of a cached page: the operation (user,
    /// system and waiting parts) and the copy (at most 4 s: each cost is
    /// at most 1 s).
    #[inline]
    pub fn cached_read(&self) -> u64 {
        self.op + self.op_sys + self.op_wait + self.page_copy
    }

    /// Set one value by name; the error names the valid ones.
    pub fn set(&mut self, name: &str, ns: u64) -> Result<(), String> {
        let Some(slot) = self.slot(name) else {
            return Err(format!("unknown cost '{}': expected one of {}", name, Self::NAMES.join(", ")));
        };
        if ns > MAX_COST_NS {
            return Err(format!(
                "cost {name}={ns} is too large: at most {MAX_COST_NS} ns (1 s) per operation or page"
            ));
        }
        *slot = ns;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cost_above_one_second_is_refused_by_name() {
        let mut c = CostModel::default();
        assert!(c.set("op", MAX_COST_NS).is_ok());
        let e = c.set("op", u64::MAX).unwrap_err();
        assert!(e.contains("op=") && e.contains("1 s"), "{e}");
        assert_eq!(c.op, MAX_COST_NS);
    }
}
