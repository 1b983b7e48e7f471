// SPDX-License-Identifier: GPL-2.0-only
//! What a run reports: `/proc/vmstat`, each memcg's `memory.stat`,
//! `memory.current`, `memory.peak` and `memory.events`, in the kernel's
//! names, order and units, plus the simulation's own figures.

use crate::kernel::{Kernel, Policy, PAGE_SIZE};
use crate::lruvec::{LRU_ACTIVE_ANON, LRU_ACTIVE_FILE, LRU_INACTIVE_ANON, LRU_INACTIVE_FILE, LRU_UNEVICTABLE};
use crate::memcontrol::{MEMCG_EVENT_NAMES, ROOT_MEMCG};
use crate::stat::{Ev, Events, St, States};

#[derive(Clone, Debug, PartialEq)]
pub struct MemcgReport {
    pub name: String,
    pub stat: Vec<(&'static str, u64)>,
    /// Bytes. The peaks are what a newly opened memory.peak and
    /// memory.swap.peak read: the global watermarks, which a reset (a
    /// write to the file) does not lower.
    pub current: u64,
    pub peak: u64,
    pub swap_current: u64,
    pub swap_peak: u64,
    pub events: Vec<(&'static str, u64)>,
    /// `memory.pressure` (the root's is `/proc/pressure/memory`).
    pub pressure: PressureReport,
}

/// One line of a pressure file: the averages in percent and the total
/// stall time in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PressureLine {
    pub avg10: f64,
    pub avg60: f64,
    pub avg300: f64,
    pub total: u64,
}

/// `memory.pressure`'s two lines.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PressureReport {
    pub some: PressureLine,
    pub full: PressureLine,
}

/// A memcg's files as one `stat MEMCG` statement read them.
#[derive(Clone, Debug, PartialEq)]
pub struct StatReport {
    pub memcg: String,
    pub time_ns: u64,
    /// Bytes, like MemcgReport's; and the peaks as the trace's file that
    /// `peak=reset` / `swap.peak=reset` wrote to reads them (the peak
    /// since the last reset; the global one before any).
    pub current: u64,
    pub peak: u64,
    pub swap_current: u64,
    pub swap_peak: u64,
    pub peak_since_reset: u64,
    pub swap_peak_since_reset: u64,
    pub events: Vec<(&'static str, u64)>,
    pub stat: Vec<(&'static str, u64)>,
}

impl StatReport {
    pub fn stat(&self, name: &str) -> Option<u64> {
        self.stat.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
    pub fn event(&self, name: &str) -> Option<u64> {
        self.events.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

/// What one `reclaim` statement's write to memory.reclaim returned.
#[derive(Clone, Debug, PartialEq)]
pub struct ReclaimReport {
    pub memcg: String,
    pub bytes: u64,
    pub reclaimed_pages: u64,
    /// 0 or -11 (-EAGAIN).
    pub result: i32,
}

/// A zram swap device's `mm_stat` (bytes) at the end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZramReport {
    /// Uncompressed bytes stored, compressed bytes, the pool's memory.
    pub orig_data_size: u64,
    pub compr_data_size: u64,
    pub mem_used_total: u64,
    /// Compression ratio of the trace (hundredths).
    pub ratio: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OomReport {
    pub time_ns: u64,
    pub constraint: String,
    pub victim_task: String,
    pub victim_memcg: String,
    pub victim_pages: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimReport {
    pub operations: u64,
    /// read/write/load/store statements (the workload's own operations).
    pub access_ops: u64,
    pub page_accesses: u64,
    pub dropped_accesses: u64,
    pub failed_allocations: u64,
    /// Order-0 pages taken from another migrate type's pageblock (the
    /// kernel's `mm_page_alloc_extfrag` trace events) and watermark boosts
    /// (`boost_watermark` calls that raised a zone's watermarks): no
    /// /proc/vmstat counter has them.
    pub fallbacks: u64,
    /// Of `fallbacks`, those that claimed the pageblock for the
    /// allocation's type (`change_ownership`).
    pub fallback_claims: u64,
    pub watermark_boosts: u64,
    pub simulated_ns: u64,
    pub task_ns: u64,
    /// Filled in by the caller (the model has no wall clock).
    pub wall_seconds: f64,
    pub model_bytes: u64,
    /// Of `model_bytes`: the folio table (a fixed amount per page of RAM).
    pub model_bytes_ram: u64,
    /// Of `model_bytes`: the files' page-cache arrays (per page of the
    /// files that were touched).
    pub model_bytes_files: u64,
    pub simulated_pages: u64,
    /// Demand misses (crate::demand): accesses that found a file
    /// page out of the page cache, or an anonymous page swapped out; of
    /// the file ones, pages never cached before (cold); file pages reads
    /// brought in, readahead included.
    pub file_misses: u64,
    pub swap_misses: u64,
    pub cold_misses: u64,
    pub file_pages_read: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub policy: &'static str,
    /// The kernel version modelled (crate::profiles `KernelVersion`).
    pub kernel: &'static str,
    pub vmstat: Vec<(&'static str, u64)>,
    pub memcg: Vec<MemcgReport>,
    pub oom_kills: Vec<OomReport>,
    /// `stat` statements' reads and `reclaim` statements' results, in
    /// trace order.
    pub stats: Vec<StatReport>,
    pub reclaims: Vec<ReclaimReport>,
    /// The swap device's memory if it is zram.
    pub zram: Option<ZramReport>,
    pub sim: SimReport,
    /// CPU time from the cost model, per task and for kswapd.
    pub cpu: CpuReport,
    /// The populated zones at the end, as /proc/zoneinfo shows them.
    pub zones: Vec<ZoneReport>,
}

/// A populated zone at the end of the run (/proc/zoneinfo): its free
/// pages (`nr_free_pages`, the free lists only), the pages on its CPUs'
/// per-CPU lists (the `count:` lines summed), its managed pages and
/// watermarks.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneReport {
    pub name: &'static str,
    pub managed: u64,
    pub free: u64,
    pub pcp: u64,
    pub min: u64,
    pub low: u64,
    pub high: u64,
    /// `zone->watermark_boost` (included in `min`/`low`/`high`).
    pub boost: u64,
    /// As /proc/pagetypeinfo: pageblocks of each migrate type
    /// (Unmovable, Movable, Reclaimable), counted from the zone's first
    /// pfn a pageblock at a time, and free chunks per type and order.
    pub pageblocks: [u64; crate::buddy::MIGRATE_PCPTYPES],
    pub free_chunks: [[u32; crate::buddy::NR_PAGE_ORDERS]; crate::buddy::MIGRATE_PCPTYPES],
}

/// A task's CPU time (`utime`/`stime` of /proc/PID/stat) in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskCpuReport {
    pub name: String,
    pub cpu: u32,
    pub utime_ns: u64,
    pub stime_ns: u64,
}

/// The machine's CPUs and the CPU time spent on them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpuReport {
    pub cpus: u32,
    /// `serial` or `parallel` (crate::sched).
    pub schedule: &'static str,
    /// kswapd0's CPU time (system time).
    pub kswapd_ns: u64,
    /// The most tasks that were inside direct reclaim (global or memcg)
    /// at one moment: above 1 only in parallel scheduling (crate::sched).
    pub direct_reclaimers_peak: u32,
    /// `reclaim_throttle` sleeps (`mm_vmscan_throttled` events), by
    /// reason: writeback, isolated, congested.
    pub reclaim_throttled: [u64; 3],
    /// How long those sleeps lasted, by reason, ns.
    pub reclaim_throttled_ns: [u64; 3],
    /// The lruvecs' lru_lock: sections timed, those that waited for
    /// another CPU's, and the time spent spinning (tasks, kswapd).
    pub lru_lock: crate::sched::LruLockStats,
    pub tasks: Vec<TaskCpuReport>,
    /// The reclaim steps the cost model charged, over the run (every
    /// reclaimer together): folios scanned, mappings visited by rmap
    /// walks, page-table entries examined, folios written out.
    pub reclaim_work: crate::kernel::ReclaimWork,
}

impl Report {
    /// The modelled kernel has `memory.swap.peak` (6.1 has not).
    pub fn has_swap_peak(&self) -> bool {
        crate::profiles::KernelVersion::parse(self.kernel).map_or(true, |k| k.has("memory.swap.peak"))
    }

    pub fn vmstat(&self, name: &str) -> Option<u64> {
        self.vmstat.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
    pub fn memcg(&self, name: &str) -> Option<&MemcgReport> {
        self.memcg.iter().find(|m| m.name == name)
    }
}

impl SimReport {
    /// Throughput estimate from the cost model: access operations per
    /// second of simulated task time (what the tasks spent, stalls
    /// included; idle `sleep` time excluded).
    pub fn throughput(&self) -> f64 {
        if self.task_ns == 0 {
            0.0
        } else {
            self.access_ops as f64 * 1e9 / self.task_ns as f64
        }
    }
}

impl MemcgReport {
    pub fn stat(&self, name: &str) -> Option<u64> {
        self.stat.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
    pub fn event(&self, name: &str) -> Option<u64> {
        self.events.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

/// Names for ids, from the trace.
pub trait Names {
    fn memcg(&self, id: u16) -> String;
    fn task(&self, id: u32) -> String;
}

impl Names for mglru_trace::TraceReader {
    fn memcg(&self, id: u16) -> String {
        self.memcg_name(id).to_string()
    }
    fn task(&self, id: u32) -> String {
        self.task_name(id).to_string()
    }
}

impl Kernel {
    fn lru_sizes(&self, memcgs: &[u16]) -> [u64; 5] {
        let mut s = [0; 5];
        for &m in memcgs {
            for (l, v) in s.iter_mut().enumerate() {
                *v += self.memcgs[m as usize].lruvec.size(l);
            }
        }
        s
    }

    fn sum_states(&self, memcgs: &[u16]) -> States {
        let mut st = States::default();
        for &m in memcgs {
            for i in 0..St::COUNT {
                st.0[i] += self.memcgs[m as usize].st.0[i];
            }
        }
        st
    }

    fn sum_events(&self, memcgs: &[u16]) -> Events {
        let mut ev = Events::default();
        for &m in memcgs {
            for i in 0..Ev::COUNT {
                ev.0[i] += self.memcgs[m as usize].ev.0[i];
            }
        }
        ev
    }

    /// `/proc/vmstat` as the model maintains it, in the kernel's order.
    pub fn vmstat(&self) -> Vec<(&'static str, u64)> {
        let all: Vec<u16> = (0..self.memcgs.len() as u16).collect();
        let lru = self.lru_sizes(&all);
        let st = self.sum_states(&all);
        let g = |s: St| st.get(s).max(0) as u64;
        let e = |x: Ev| self.ev.get(x);
        let mut v: Vec<(&'static str, u64)> = vec![
            ("nr_free_pages", self.nr_free_pages()),
            ("nr_zone_inactive_anon", lru[LRU_INACTIVE_ANON]),
            ("nr_zone_active_anon", lru[LRU_ACTIVE_ANON]),
            ("nr_zone_inactive_file", lru[LRU_INACTIVE_FILE]),
            ("nr_zone_active_file", lru[LRU_ACTIVE_FILE]),
            ("nr_zone_unevictable", lru[LRU_UNEVICTABLE]),
            ("nr_zone_write_pending", self.nr_dirty + self.nr_writeback),
            ("nr_mlock", self.nr_mlock),
            // NR_ZSPAGES: the zram device's zsmalloc pool, in pages.
            ("nr_zspages", self.swap.as_ref().and_then(|s| s.zram.as_ref()).map_or(0, |z| z.pool_pages())),
            ("nr_inactive_anon", lru[LRU_INACTIVE_ANON]),
            ("nr_active_anon", lru[LRU_ACTIVE_ANON]),
            ("nr_inactive_file", lru[LRU_INACTIVE_FILE]),
            ("nr_active_file", lru[LRU_ACTIVE_FILE]),
            ("nr_unevictable", lru[LRU_UNEVICTABLE]),
            ("nr_isolated_anon", self.nr_isolated[0]),
            ("nr_isolated_file", self.nr_isolated[1]),
            ("workingset_nodes", self.nr_workingset_nodes),
        ];
        for x in [
            Ev::WorkingsetRefaultAnon,
            Ev::WorkingsetRefaultFile,
            Ev::WorkingsetActivateAnon,
            Ev::WorkingsetActivateFile,
            Ev::WorkingsetRestoreAnon,
            Ev::WorkingsetRestoreFile,
            Ev::WorkingsetNodereclaim,
        ] {
            v.push((x.name(), e(x)));
        }
        v.extend([
            ("nr_anon_pages", g(St::Anon)),
            ("nr_mapped", g(St::FileMapped)),
            ("nr_file_pages", g(St::FilePages)),
            ("nr_dirty", self.nr_dirty),
            ("nr_writeback", self.nr_writeback),
            ("nr_shmem", g(St::Shmem)),
            ("nr_swapcached", g(St::SwapCached)),
        ]);
        for x in [Ev::NrVmscanWrite, Ev::NrVmscanImmediateReclaim, Ev::NrDirtied, Ev::NrWritten] {
            v.push((x.name(), e(x)));
        }
        for &x in Ev::ALL {
            if matches!(
                x,
                Ev::WorkingsetRefaultAnon
                    | Ev::WorkingsetRefaultFile
                    | Ev::WorkingsetActivateAnon
                    | Ev::WorkingsetActivateFile
                    | Ev::WorkingsetRestoreAnon
                    | Ev::WorkingsetRestoreFile
                    | Ev::WorkingsetNodereclaim
                    | Ev::NrVmscanWrite
                    | Ev::NrVmscanImmediateReclaim
                    | Ev::NrDirtied
                    | Ev::NrWritten
            ) {
                continue;
            }
            v.push((x.name(), e(x)));
        }
        let absent = self.kernel.entry().vmstat_absent;
        v.retain(|(k, _)| !absent.contains(k));
        v
    }

    /// `memory.stat` of a memcg (hierarchical), in 6.12's order; byte
    /// fields in bytes.
    pub fn memory_stat(&self, memcg: u16) -> Vec<(&'static str, u64)> {
        let sub = self.memcg_subtree(memcg);
        let lru = self.lru_sizes(&sub);
        let st = self.sum_states(&sub);
        let ev = self.sum_events(&sub);
        let b = |s: St| st.get(s).max(0) as u64 * PAGE_SIZE;
        // NR_PAGETABLE: each PUD, PMD and PTE table where it was charged
        // (a moved task's stay behind). The pgd is not counted: x86's
        // pgd_alloc takes plain pages, without the page-table constructor
        // that adds to NR_PAGETABLE.
        let pgtables: u64 = self
            .tasks
            .iter()
            .filter(|t| t.alive)
            .map(|t| t.pgtable_pfns.iter().filter(|&&p| sub.contains(&self.folios.get(p).memcg)).count() as u64)
            .sum::<u64>()
            * PAGE_SIZE;
        let slab: u64 = sub.iter().map(|&m| self.memcgs[m as usize].slab_bytes).sum();
        let kmem: u64 = sub.iter().map(|&m| self.memcgs[m as usize].slab_pages).sum::<u64>() * PAGE_SIZE;
        let mut v: Vec<(&'static str, u64)> = vec![
            ("anon", b(St::Anon)),
            // The swap cache counts into the node's NR_FILE_PAGES only
            // (add_to_swap_cache: __node_stat_mod_folio), never the memcg's.
            ("file", {
                debug_assert!(b(St::FilePages) >= b(St::SwapCached), "swap cache outside the memcg's file pages");
                b(St::FilePages).saturating_sub(b(St::SwapCached))
            }),
            ("kernel", pgtables + kmem),
            ("kernel_stack", 0),
            ("pagetables", pgtables),
            ("sec_pagetables", 0),
            ("percpu", 0),
            ("sock", 0),
            ("vmalloc", 0),
            ("shmem", b(St::Shmem)),
            ("file_mapped", b(St::FileMapped)),
            ("file_dirty", b(St::FileDirty)),
            ("file_writeback", b(St::FileWriteback) + b(St::AnonWriteback)),
            ("swapcached", b(St::SwapCached)),
            ("anon_thp", 0),
            ("file_thp", 0),
            ("shmem_thp", 0),
            ("inactive_anon", lru[LRU_INACTIVE_ANON] * PAGE_SIZE),
            ("active_anon", lru[LRU_ACTIVE_ANON] * PAGE_SIZE),
            ("inactive_file", lru[LRU_INACTIVE_FILE] * PAGE_SIZE),
            ("active_file", lru[LRU_ACTIVE_FILE] * PAGE_SIZE),
            ("unevictable", lru[LRU_UNEVICTABLE] * PAGE_SIZE),
            ("slab_reclaimable", slab),
            ("slab_unreclaimable", 0),
            ("slab", slab),
        ];
        for x in [
            Ev::WorkingsetRefaultAnon,
            Ev::WorkingsetRefaultFile,
            Ev::WorkingsetActivateAnon,
            Ev::WorkingsetActivateFile,
            Ev::WorkingsetRestoreAnon,
            Ev::WorkingsetRestoreFile,
            Ev::WorkingsetNodereclaim,
        ] {
            v.push((x.name(), ev.get(x)));
        }
        v.extend([("pgdemote_kswapd", 0), ("pgdemote_direct", 0), ("pgdemote_khugepaged", 0), ("pgpromote_success", 0)]);
        // 7.2 moves these into the node-stat part of memory_stats[] and adds
        // the proactive ones; the order here is 6.12's, a version's key set
        // comes from its `memory_stat_absent` (crate::profiles).
        v.push(("pgdemote_proactive", 0));
        v.push(("pgscan", ev.get(Ev::PgscanKswapd) + ev.get(Ev::PgscanDirect) + ev.get(Ev::PgscanKhugepaged) + ev.get(Ev::PgscanProactive)));
        v.push(("pgsteal", ev.get(Ev::PgstealKswapd) + ev.get(Ev::PgstealDirect) + ev.get(Ev::PgstealKhugepaged) + ev.get(Ev::PgstealProactive)));
        for x in [
            Ev::PgscanKswapd,
            Ev::PgscanDirect,
            Ev::PgscanKhugepaged,
            Ev::PgscanProactive,
            Ev::PgstealKswapd,
            Ev::PgstealDirect,
            Ev::PgstealKhugepaged,
            Ev::PgstealProactive,
            Ev::Pgfault,
            Ev::Pgmajfault,
            Ev::Pgrefill,
            Ev::Pgactivate,
            Ev::Pgdeactivate,
            Ev::Pglazyfree,
            Ev::Pglazyfreed,
        ] {
            v.push((x.name(), ev.get(x)));
        }
        v.extend([
            ("swpin_zero", 0),
            ("swpout_zero", 0),
            ("thp_fault_alloc", 0),
            ("thp_collapse_alloc", 0),
            ("thp_swpout", 0),
            ("thp_swpout_fallback", 0),
            ("numa_pages_migrated", 0),
            ("numa_pte_updates", 0),
            ("numa_hint_faults", 0),
        ]);
        let absent = self.kernel.entry().memory_stat_absent;
        v.retain(|(k, _)| !absent.contains(k));
        v
    }

    /// Bytes of model state per simulated page: folio table, page cache
    /// and swap arrays, page tables; divided by the pages the trace
    /// defines (RAM folios, file pages, anon pages).
    pub fn model_bytes(&self) -> u64 {
        let swap = self.swap.as_ref().map_or(0, |s| s.nr_pages() * (8 + 2 + 8));
        self.model_bytes_ram() + self.model_bytes_files() + swap + self.pt.bytes() + self.sim.demand.bytes()
    }

    /// The folio table's part of [`model_bytes`](Self::model_bytes).
    pub fn model_bytes_ram(&self) -> u64 {
        self.folios.nr_pages() * std::mem::size_of::<crate::folio::Folio>() as u64 + self.folios.nr_pages().div_ceil(u64::from(crate::buddy::PAGEBLOCK_NR_PAGES))
    }

    /// The page-cache arrays' part of [`model_bytes`](Self::model_bytes).
    pub fn model_bytes_files(&self) -> u64 {
        self.files.iter().map(|f| f.cache.bytes() + f.dirty_pages.capacity() as u64 * 4).sum()
    }

    pub fn simulated_pages(&self) -> u64 {
        let files: u64 = self.files.iter().map(|f| f.pages).sum();
        let anon: u64 = self.vmas.iter().filter(|v| v.file.is_none()).map(|v| v.pages).sum();
        files + anon
    }

    /// `memory.pressure` of `memcg` as it would read now.
    pub fn pressure_report(&self, memcg: u16) -> PressureReport {
        let g = self.psi_read(memcg);
        let line = |full: bool| PressureLine {
            avg10: g.avg_percent(full, 0),
            avg60: g.avg_percent(full, 1),
            avg300: g.avg_percent(full, 2),
            total: g.total[full as usize] / 1000,
        };
        PressureReport { some: line(false), full: line(true) }
    }

    /// The whole report.
    pub fn report(&self, names: &dyn Names) -> Report {
        let mut memcg = Vec::new();
        for id in 0..self.memcgs.len() as u16 {
            let c = &self.memcgs[id as usize];
            memcg.push(MemcgReport {
                name: names.memcg(id),
                stat: self.memory_stat(id),
                current: c.usage * PAGE_SIZE,
                peak: c.watermark * PAGE_SIZE,
                swap_current: c.swap_usage * PAGE_SIZE,
                swap_peak: c.swap_watermark * PAGE_SIZE,
                events: MEMCG_EVENT_NAMES.iter().zip(c.mem_events.iter()).map(|(&n, &v)| (n, v)).collect(),
                pressure: self.pressure_report(id),
            });
        }
        let oom_kills = self
            .oom_kills
            .iter()
            .map(|o| OomReport {
                time_ns: o.time_ns,
                constraint: match o.constraint_memcg {
                    Some(m) => names.memcg(m),
                    None => "global".into(),
                },
                victim_task: names.task(o.victim_task),
                victim_memcg: names.memcg(o.victim_memcg),
                victim_pages: o.victim_pages,
            })
            .collect();
        let _ = ROOT_MEMCG;
        let stats = self
            .stat_points
            .iter()
            .map(|p| StatReport {
                memcg: names.memcg(p.memcg),
                time_ns: p.time_ns,
                current: p.current,
                peak: p.peak,
                swap_current: p.swap_current,
                swap_peak: p.swap_peak,
                peak_since_reset: p.peak_since_reset,
                swap_peak_since_reset: p.swap_peak_since_reset,
                events: MEMCG_EVENT_NAMES.iter().zip(p.events.iter()).map(|(&n, &v)| (n, v)).collect(),
                stat: p.stat.clone(),
            })
            .collect();
        let reclaims = self
            .reclaim_results
            .iter()
            .map(|r| ReclaimReport { memcg: names.memcg(r.memcg), bytes: r.bytes, reclaimed_pages: r.reclaimed, result: r.result })
            .collect();
        let zram = self.swap.as_ref().and_then(|s| {
            let z = s.zram.as_ref()?;
            Some(ZramReport {
                orig_data_size: s.nr_stored * PAGE_SIZE,
                compr_data_size: z.compr_bytes,
                mem_used_total: z.pool_pages() * PAGE_SIZE,
                ratio: z.ratio,
            })
        });
        let cpu = CpuReport {
            cpus: self.cpus.len() as u32,
            schedule: if self.parallel() { "parallel" } else { "serial" },
            kswapd_ns: self.sim.kswapd_ns,
            direct_reclaimers_peak: self.sched.direct_reclaimers_peak,
            reclaim_throttled: self.sim.reclaim_throttled,
            reclaim_throttled_ns: self.sim.reclaim_throttled_ns,
            lru_lock: self.sim.lru_lock,
            tasks: self
                .tasks
                .iter()
                .enumerate()
                .map(|(i, t)| TaskCpuReport { name: names.task(i as u32), cpu: t.cpu, utime_ns: t.utime_ns, stime_ns: t.stime_ns })
                .collect(),
            reclaim_work: self.sim.reclaim_work,
        };
        let zones = (0..crate::folio::NR_ZONES)
            .filter(|&z| self.zones[z].managed > 0)
            .map(|z| ZoneReport {
                name: crate::kernel::ZONE_NAMES[z],
                managed: self.zones[z].managed,
                free: self.folios.nr_free_zone(z),
                pcp: self.nr_pcp_pages(z),
                // As /proc/zoneinfo prints them: boost included.
                min: self.wmark_pages(z, 0),
                low: self.wmark_pages(z, 1),
                high: self.wmark_pages(z, 2),
                boost: self.zones[z].watermark_boost,
                pageblocks: self.folios.pageblocks_by_type(z),
                free_chunks: std::array::from_fn(|mt| std::array::from_fn(|o| self.folios.free_area(z).nr_chunks(o, mt))),
            })
            .collect();
        Report {
            zones,
            policy: match self.policy() {
                Policy::Classic => "classic",
                Policy::Mglru => "mglru",
            },
            kernel: self.kernel.name(),
            vmstat: self.vmstat(),
            memcg,
            oom_kills,
            stats,
            reclaims,
            zram,
            sim: SimReport {
                operations: self.sim.operations,
                access_ops: self.sim.access_ops,
                page_accesses: self.sim.page_accesses,
                dropped_accesses: self.sim.dropped_accesses,
                failed_allocations: self.sim.failed_allocations,
                fallbacks: self.sim.fallbacks,
                fallback_claims: self.sim.fallback_claims,
                watermark_boosts: self.sim.watermark_boosts,
                simulated_ns: self.now,
                task_ns: self.sim.task_ns,
                wall_seconds: 0.0,
                model_bytes: self.model_bytes(),
                model_bytes_ram: self.model_bytes_ram(),
                model_bytes_files: self.model_bytes_files(),
                simulated_pages: self.simulated_pages(),
                file_misses: self.sim.demand.file_misses,
                swap_misses: self.sim.demand.swap_misses,
                cold_misses: self.sim.demand.cold_misses,
                file_pages_read: self.sim.demand.file_pages_read,
            },
            cpu,
        }
    }
}
