// SPDX-License-Identifier: GPL-2.0-only
//! The report as JSON (serde), in the documented, versioned shape of
//! `mglru run --json` (docs/CLI.md, "JSON report").
//!
//! Counter lists are written as objects in the kernel's order (not sorted),
//! so a report reads like `/proc/vmstat`. The report types stay free of
//! serialisation concerns: the shape lives here, in borrowed views.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::report::{MemcgReport, OomReport, ReclaimReport, Report, StatReport};

/// The version of the report's shape. Bump it when a key changes meaning
/// or disappears; adding a key keeps it.
pub const SCHEMA_VERSION: u32 = 1;

/// `(name, value)` pairs as one JSON object, in their order.
struct Pairs<'a>(&'a [(&'static str, u64)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct MemcgView<'a> {
    stat: Pairs<'a>,
    current: u64,
    peak: u64,
    swap_current: u64,
    /// Absent where the kernel has no memory.swap.peak (6.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    swap_peak: Option<u64>,
    events: Pairs<'a>,
    pressure: PressureView,
}

/// One `stat MEMCG` read: `{"memcg", "time_ns", "current", "peak",
/// "swap_current", "swap_peak", "peak_since_reset",
/// "swap_peak_since_reset", "events": {...}, "stat": {...}}`.
#[derive(Serialize)]
struct StatView<'a> {
    memcg: &'a str,
    time_ns: u64,
    current: u64,
    peak: u64,
    swap_current: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    swap_peak: Option<u64>,
    peak_since_reset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    swap_peak_since_reset: Option<u64>,
    events: Pairs<'a>,
    stat: Pairs<'a>,
}

impl<'a> StatView<'a> {
    fn of(p: &'a StatReport, swap_peak: bool) -> Self {
        StatView {
            memcg: &p.memcg,
            time_ns: p.time_ns,
            current: p.current,
            peak: p.peak,
            swap_current: p.swap_current,
            swap_peak: swap_peak.then_some(p.swap_peak),
            peak_since_reset: p.peak_since_reset,
            swap_peak_since_reset: swap_peak.then_some(p.swap_peak_since_reset),
            events: Pairs(&p.events),
            stat: Pairs(&p.stat),
        }
    }
}

/// One `reclaim` statement: `{"memcg", "bytes", "reclaimed_pages", "result"}`.
#[derive(Serialize)]
struct ReclaimView<'a> {
    memcg: &'a str,
    bytes: u64,
    reclaimed_pages: u64,
    result: i32,
}

impl<'a> From<&'a ReclaimReport> for ReclaimView<'a> {
    fn from(r: &'a ReclaimReport) -> Self {
        ReclaimView { memcg: &r.memcg, bytes: r.bytes, reclaimed_pages: r.reclaimed_pages, result: r.result }
    }
}

/// A zram device's mm_stat figures (bytes) and the trace's ratio.
#[derive(Serialize)]
struct ZramView {
    orig_data_size: u64,
    compr_data_size: u64,
    mem_used_total: u64,
    ratio: f64,
}

/// `memory.pressure`: `{"some": {"avg10", "avg60", "avg300", "total"}, "full": {...}}`,
/// averages in percent, totals in microseconds.
#[derive(Serialize)]
struct PressureView {
    some: LineView,
    full: LineView,
}

#[derive(Serialize)]
struct LineView {
    avg10: f64,
    avg60: f64,
    avg300: f64,
    total: u64,
}

impl From<&crate::report::PressureLine> for LineView {
    fn from(l: &crate::report::PressureLine) -> LineView {
        LineView { avg10: l.avg10, avg60: l.avg60, avg300: l.avg300, total: l.total }
    }
}

/// The memcgs as one object keyed by name, in the trace's order (and
/// whether the kernel has memory.swap.peak).
struct Memcgs<'a>(&'a [MemcgReport], bool);

impl Serialize for Memcgs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for c in self.0 {
            let pressure = PressureView { some: (&c.pressure.some).into(), full: (&c.pressure.full).into() };
            let v = MemcgView { stat: Pairs(&c.stat), current: c.current, peak: c.peak, swap_current: c.swap_current, swap_peak: self.1.then_some(c.swap_peak), events: Pairs(&c.events), pressure };
            m.serialize_entry(&c.name, &v)?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct OomView<'a> {
    time_ns: u64,
    constraint: &'a str,
    victim_task: &'a str,
    victim_memcg: &'a str,
    victim_pages: u64,
}

impl<'a> From<&'a OomReport> for OomView<'a> {
    fn from(k: &'a OomReport) -> Self {
        OomView { time_ns: k.time_ns, constraint: &k.constraint, victim_task: &k.victim_task, victim_memcg: &k.victim_memcg, victim_pages: k.victim_pages }
    }
}

#[derive(Serialize)]
struct SimView {
    operations: u64,
    access_ops: u64,
    /// One decimal, as the report has always printed it.
    throughput_ops_per_s: f64,
    page_accesses: u64,
    dropped_accesses: u64,
    failed_allocations: u64,
    fallbacks: u64,
    fallback_claims: u64,
    watermark_boosts: u64,
    simulated_ns: u64,
    task_ns: u64,
    /// Microsecond resolution.
    wall_seconds: f64,
    model_bytes: u64,
    model_bytes_ram: u64,
    model_bytes_files: u64,
    simulated_pages: u64,
}

#[derive(Serialize)]
struct ReportView<'a> {
    schema_version: u32,
    policy: &'a str,
    kernel: &'a str,
    vmstat: Pairs<'a>,
    memcg: Memcgs<'a>,
    oom_kills: Vec<OomView<'a>>,
    stats: Vec<StatView<'a>>,
    reclaims: Vec<ReclaimView<'a>>,
    zram: Option<ZramView>,
    sim: SimView,
    cpu: CpuView<'a>,
    zones: Vec<ZoneView<'a>>,
}

/// `zones`: each populated zone at the end (/proc/zoneinfo).
#[derive(Serialize)]
struct ZoneView<'a> {
    name: &'a str,
    managed: u64,
    free: u64,
    pcp: u64,
    min: u64,
    low: u64,
    high: u64,
    boost: u64,
    /// Keyed by migrate type, as the replayer's parse of /proc/pagetypeinfo.
    pageblocks: ByType<u64>,
    free_chunks: ByType<[u32; crate::buddy::NR_PAGE_ORDERS]>,
}

/// One value per migrate type, named as /proc/pagetypeinfo names them.
#[derive(Serialize)]
struct ByType<T> {
    #[serde(rename = "Unmovable")]
    unmovable: T,
    #[serde(rename = "Movable")]
    movable: T,
    #[serde(rename = "Reclaimable")]
    reclaimable: T,
}

impl<T: Copy> ByType<T> {
    fn of(v: &[T; crate::buddy::MIGRATE_PCPTYPES]) -> ByType<T> {
        use crate::buddy::{MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE};
        ByType { unmovable: v[MIGRATE_UNMOVABLE], movable: v[MIGRATE_MOVABLE], reclaimable: v[MIGRATE_RECLAIMABLE] }
    }
}

/// `cpu`: the CPU count, kswapd0's CPU time and each task's, in ns.
#[derive(Serialize)]
struct CpuView<'a> {
    cpus: u32,
    schedule: &'a str,
    kswapd_ns: u64,
    direct_reclaimers_peak: u32,
    reclaim_throttled: ThrottleView,
    reclaim_throttled_ns: ThrottleView,
    lru_lock: LockView,
    tasks: Tasks<'a>,
    reclaim_work: WorkView,
}

/// `cpu.lru_lock`: the timed lru_lock sections.
#[derive(Serialize)]
struct LockView {
    sections: u64,
    contended: u64,
    wait_ns: u64,
    kswapd_wait_ns: u64,
}

/// `cpu.reclaim_throttled`: reclaim_throttle sleeps by reason.
#[derive(Serialize)]
struct ThrottleView {
    writeback: u64,
    isolated: u64,
    congested: u64,
}

/// `cpu.reclaim_work`: the reclaim steps the cost model charged.
#[derive(Serialize)]
struct WorkView {
    scanned: u64,
    rmap: u64,
    pte: u64,
    pageout: u64,
    lruvecs: u64,
}

/// The tasks as one object keyed by name: `{"cpu", "utime_ns", "stime_ns"}`.
struct Tasks<'a>(&'a [crate::report::TaskCpuReport]);

#[derive(Serialize)]
struct TaskView {
    cpu: u32,
    utime_ns: u64,
    stime_ns: u64,
}

impl Serialize for Tasks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for t in self.0 {
            m.serialize_entry(&t.name, &TaskView { cpu: t.cpu, utime_ns: t.utime_ns, stime_ns: t.stime_ns })?;
        }
        m.end()
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// A serialisable view of a report (for embedding in a larger document).
pub fn report_value(r: &Report) -> impl Serialize + '_ {
    let s = &r.sim;
    ReportView {
        schema_version: SCHEMA_VERSION,
        policy: r.policy,
        kernel: r.kernel,
        vmstat: Pairs(&r.vmstat),
        memcg: Memcgs(&r.memcg, r.has_swap_peak()),
        oom_kills: r.oom_kills.iter().map(OomView::from).collect(),
        stats: r.stats.iter().map(|p| StatView::of(p, r.has_swap_peak())).collect(),
        reclaims: r.reclaims.iter().map(ReclaimView::from).collect(),
        zram: r.zram.map(|z| ZramView {
            orig_data_size: z.orig_data_size,
            compr_data_size: z.compr_data_size,
            mem_used_total: z.mem_used_total,
            ratio: f64::from(z.ratio) / 100.0,
        }),
        sim: SimView {
            operations: s.operations,
            access_ops: s.access_ops,
            throughput_ops_per_s: round(s.throughput(), 1),
            page_accesses: s.page_accesses,
            dropped_accesses: s.dropped_accesses,
            failed_allocations: s.failed_allocations,
            fallbacks: s.fallbacks,
            fallback_claims: s.fallback_claims,
            watermark_boosts: s.watermark_boosts,
            simulated_ns: s.simulated_ns,
            task_ns: s.task_ns,
            wall_seconds: round(s.wall_seconds, 6),
            model_bytes: s.model_bytes,
            model_bytes_ram: s.model_bytes_ram,
            model_bytes_files: s.model_bytes_files,
            simulated_pages: s.simulated_pages,
        },
        cpu: CpuView {
            cpus: r.cpu.cpus,
            schedule: r.cpu.schedule,
            kswapd_ns: r.cpu.kswapd_ns,
            direct_reclaimers_peak: r.cpu.direct_reclaimers_peak,
            reclaim_throttled: ThrottleView {
                writeback: r.cpu.reclaim_throttled[0],
                isolated: r.cpu.reclaim_throttled[1],
                congested: r.cpu.reclaim_throttled[2],
            },
            reclaim_throttled_ns: ThrottleView {
                writeback: r.cpu.reclaim_throttled_ns[0],
                isolated: r.cpu.reclaim_throttled_ns[1],
                congested: r.cpu.reclaim_throttled_ns[2],
            },
            lru_lock: LockView {
                sections: r.cpu.lru_lock.sections,
                contended: r.cpu.lru_lock.contended,
                wait_ns: r.cpu.lru_lock.wait_ns,
                kswapd_wait_ns: r.cpu.lru_lock.kswapd_wait_ns,
            },
            tasks: Tasks(&r.cpu.tasks),
            reclaim_work: WorkView {
                scanned: r.cpu.reclaim_work.scanned,
                rmap: r.cpu.reclaim_work.rmap,
                pte: r.cpu.reclaim_work.pte,
                pageout: r.cpu.reclaim_work.pageout,
                lruvecs: r.cpu.reclaim_work.lruvecs,
            },
        },
        zones: r
            .zones
            .iter()
            .map(|z| ZoneView {
                name: z.name,
                managed: z.managed,
                free: z.free,
                pcp: z.pcp,
                min: z.min,
                low: z.low,
                high: z.high,
                boost: z.boost,
                pageblocks: ByType::of(&z.pageblocks),
                free_chunks: ByType::of(&z.free_chunks),
            })
            .collect(),
    }
}

/// The report as a pretty-printed JSON document (the `mglru run --json`
/// shape), ending with a newline.
pub fn report_json(r: &Report) -> String {
    let mut s = serde_json::to_string_pretty(&report_value(r)).expect("a report serialises: string keys, finite numbers");
    s.push('\n');
    s
}

/// A string as a JSON string literal, quotes included.
pub fn escape(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::SimReport;

    #[test]
    fn the_report_keeps_its_keys_order_and_values() {
        let r = Report {
            policy: "mglru",
            kernel: "6.12",
            vmstat: vec![("nr_free_pages", 7), ("pgpgin", 4)],
            memcg: vec![MemcgReport { name: "app".into(), stat: vec![("anon", 4096)], current: 8192, peak: 12288, swap_current: 0, swap_peak: 0, events: vec![("max", 1)], pressure: Default::default() }],
            oom_kills: vec![OomReport { time_ns: 5, constraint: "global".into(), victim_task: "t\"1".into(), victim_memcg: "app".into(), victim_pages: 3 }],
            stats: Vec::new(),
            reclaims: Vec::new(),
            zram: None,
            sim: SimReport { operations: 10, access_ops: 4, page_accesses: 9, dropped_accesses: 0, failed_allocations: 0, fallbacks: 0, fallback_claims: 0, watermark_boosts: 0, simulated_ns: 100, task_ns: 3, wall_seconds: 0.1234567, model_bytes: 1, model_bytes_ram: 0, model_bytes_files: 0, simulated_pages: 2, file_misses: 0, swap_misses: 0, cold_misses: 0, file_pages_read: 0 },
            cpu: crate::report::CpuReport {
                cpus: 2,
                schedule: "parallel",
                kswapd_ns: 5,
                direct_reclaimers_peak: 2,
                reclaim_throttled: [3, 4, 5],
                reclaim_throttled_ns: [6, 7, 8],
                lru_lock: crate::sched::LruLockStats { sections: 16, contended: 17, wait_ns: 18, kswapd_wait_ns: 19 },
                tasks: vec![crate::report::TaskCpuReport { name: "t\"1".into(), cpu: 1, utime_ns: 6, stime_ns: 7 }],
                reclaim_work: crate::kernel::ReclaimWork { scanned: 11, rmap: 12, pte: 13, pageout: 14, lruvecs: 15 },
            },
            zones: vec![crate::report::ZoneReport {
                name: "DMA32",
                managed: 100,
                free: 60,
                pcp: 30,
                min: 1,
                low: 2,
                high: 3,
                boost: 0,
                pageblocks: [0, 1, 0],
                free_chunks: [[0; 11], [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0; 11]],
            }],
        };
        let j = report_json(&r);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["vmstat"]["pgpgin"], 4);
        assert_eq!(v["memcg"]["app"]["peak"], 12288);
        assert_eq!(v["oom_kills"][0]["victim_task"], "t\"1");
        // 4 accesses in 3 ns of task time: 1333333333.3 per second.
        assert_eq!(v["sim"]["throughput_ops_per_s"], 1333333333.3);
        assert_eq!(v["sim"]["wall_seconds"], 0.123457);
        assert_eq!(v["cpu"]["cpus"], 2);
        assert_eq!(v["cpu"]["kswapd_ns"], 5);
        assert_eq!(v["cpu"]["direct_reclaimers_peak"], 2);
        assert_eq!(v["cpu"]["reclaim_throttled"]["isolated"], 4);
        assert_eq!(v["cpu"]["reclaim_throttled_ns"]["congested"], 8);
        assert_eq!(v["cpu"]["lru_lock"]["contended"], 17);
        assert_eq!(v["cpu"]["lru_lock"]["kswapd_wait_ns"], 19);
        assert_eq!(v["cpu"]["schedule"], "parallel");
        assert_eq!(v["cpu"]["tasks"]["t\"1"]["stime_ns"], 7);
        assert_eq!(v["cpu"]["reclaim_work"]["rmap"], 12);
        assert_eq!(v["cpu"]["reclaim_work"]["pageout"], 14);
        assert_eq!(v["cpu"]["reclaim_work"]["lruvecs"], 15);
        assert_eq!(v["memcg"]["app"]["pressure"]["some"]["total"], 0);
        assert_eq!((v["zones"][0]["name"].as_str(), v["zones"][0]["pcp"].as_u64()), (Some("DMA32"), Some(30)));
        // /proc/pagetypeinfo's shape: per migrate type by name.
        assert_eq!((v["zones"][0]["pageblocks"]["Movable"].as_u64(), v["zones"][0]["pageblocks"]["Unmovable"].as_u64()), (Some(1), Some(0)));
        assert_eq!(v["zones"][0]["free_chunks"]["Movable"][2].as_u64(), Some(1));
        assert_eq!(v["zones"][0]["free_chunks"]["Reclaimable"].as_array().map(|a| a.len()), Some(11));
        // The kernel's order, not alphabetical.
        assert!(j.find("nr_free_pages").unwrap() < j.find("pgpgin").unwrap());
        assert!(j.ends_with("}\n"));
        assert_eq!(escape("a\"b\n"), "\"a\\\"b\\n\"");
    }
}
