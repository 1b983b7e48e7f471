// SPDX-License-Identifier: GPL-2.0-only
//! Derived figures: what a person asks of a run before any raw counter.
//!
//! Every figure is arithmetic on counters the report already has, so a
//! reader can check it against `/proc/vmstat`:
//! - a *miss* is a page read from storage: `pgpgin` (KiB) / 4, which counts
//!   file pages read (readahead included) and swap-ins. The miss ratio is
//!   misses per page access; readahead can read pages that are never
//!   accessed, so it can exceed 1 (and the hit ratio, 1 − miss ratio, is
//!   then shown as 0);
//! - refaults are `workingset_refault_anon + workingset_refault_file`:
//!   pages evicted and needed again while their shadow entry was alive;
//! - swap I/O is `pswpin` and `pswpout`, in pages and MiB;
//! - pages scanned and stolen are `pgscan_anon + pgscan_file` and
//!   `pgsteal_anon + pgsteal_file`, which the kernel counts for every
//!   reclaimer (`pgscan_kswapd`/`pgscan_direct` leave out memcg limit
//!   reclaim); their meaning differs between the two LRUs: classic counts
//!   pages walked on the lists, MGLRU pages isolated and sorted.

use mglru_core::report::Report;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub page_accesses: u64,
    /// Pages read from disk or swap (`pgpgin` / 4).
    pub misses: u64,
    pub miss_ratio: f64,
    pub hit_ratio: f64,
    pub refaults: u64,
    pub refaults_per_1k_accesses: f64,
    pub swap_in_pages: u64,
    pub swap_out_pages: u64,
    pub swap_io_mib: f64,
    pub oom_kills: u64,
    pub pages_scanned: u64,
    pub pages_stolen: u64,
    pub simulated_seconds: f64,
    pub memory_stall_seconds: f64,
    pub memory_stall_share: f64,
    pub task_seconds: f64,
}

impl Figures {
    pub fn of(r: &Report) -> Figures {
        let v = |n: &str| r.vmstat(n).unwrap_or(0);
        let accesses = r.sim.page_accesses;
        let misses = v("pgpgin") / 4;
        let per = |x: u64| if accesses == 0 { 0.0 } else { x as f64 / accesses as f64 };
        let miss_ratio = per(misses);
        let refaults = v("workingset_refault_anon") + v("workingset_refault_file");
        let (sin, sout) = (v("pswpin"), v("pswpout"));
        let stall = r.memcg.first().map_or(0.0, |root| root.pressure.some.total as f64 / 1e6);
        Figures {
            page_accesses: accesses,
            misses,
            miss_ratio,
            hit_ratio: (1.0 - miss_ratio).max(0.0),
            refaults,
            refaults_per_1k_accesses: per(refaults) * 1000.0,
            swap_in_pages: sin,
            swap_out_pages: sout,
            swap_io_mib: (sin + sout) as f64 * 4096.0 / (1 << 20) as f64,
            oom_kills: v("oom_kill"),
            pages_scanned: v("pgscan_anon") + v("pgscan_file"),
            pages_stolen: v("pgsteal_anon") + v("pgsteal_file"),
            simulated_seconds: r.sim.simulated_ns as f64 / 1e9,
            memory_stall_seconds: stall,
            memory_stall_share: if r.sim.simulated_ns == 0 { 0.0 } else { stall / (r.sim.simulated_ns as f64 / 1e9) },
            task_seconds: r.sim.task_ns as f64 / 1e9,
        }
    }
}

/// A whole number with thousands separators: 1234567 → "1,234,567".
pub fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut o = String::with_capacity(d.len() + d.len() / 3);
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i) % 3 == 0 {
            o.push(',');
        }
        o.push(c);
    }
    o
}

impl Figures {
    /// The figures as (label, value) rows, in reading order.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        vec![
            ("page accesses", thousands(self.page_accesses)),
            ("hit ratio", format!("{:.1} %", self.hit_ratio * 100.0)),
            ("misses (pages read from disk or swap)", thousands(self.misses)),
            ("refaults per 1,000 accesses", format!("{:.2}", self.refaults_per_1k_accesses)),
            ("swap I/O (in + out)", format!("{} + {} pages ({:.1} MiB)", thousands(self.swap_in_pages), thousands(self.swap_out_pages), self.swap_io_mib)),
            ("OOM kills", thousands(self.oom_kills)),
            ("pages scanned / stolen by reclaim", format!("{} / {}", thousands(self.pages_scanned), thousands(self.pages_stolen))),
            ("memory stall (PSI some)", format!("{:.3} s ({:.1} % of the time)", self.memory_stall_seconds, self.memory_stall_share * 100.0)),
            ("task time / simulated time", format!("{:.3} s / {:.3} s", self.task_seconds, self.simulated_seconds)),
        ]
    }
}

/// How `b` differs from `a`, as a share of `a`: "12 % fewer refaults".
fn change(what: &str, a: f64, b: f64) -> Option<String> {
    if a == 0.0 && b == 0.0 {
        return None;
    }
    if a == 0.0 {
        return Some(format!("{what} {b:.0} instead of none"));
    }
    let pct = (b - a) / a * 100.0;
    if pct.abs() < 0.5 {
        return Some(format!("about as many {what}"));
    }
    let dir = if pct < 0.0 { "fewer" } else { "more" };
    Some(format!("{:.0} % {dir} {what}", pct.abs()))
}

/// The one-line verdict of `mglru compare`: MGLRU against classic, on the
/// figures that decide which one a workload prefers.
pub fn verdict(classic: &Figures, mglru: &Figures) -> String {
    verdict_between("MGLRU", "classic", "policy", classic, mglru)
}

/// The verdict of `b` (named `b_name`) against `a` (`a_name`), two values
/// of one `axis` (policy, kernel, variant).
pub fn verdict_between(b_name: &str, a_name: &str, axis: &str, a: &Figures, b: &Figures) -> String {
    let mut parts = Vec::new();
    parts.extend(change("refaults", a.refaults as f64, b.refaults as f64));
    parts.extend(change("pages read from storage", a.misses as f64, b.misses as f64));
    parts.extend(change("pages scanned", a.pages_scanned as f64, b.pages_scanned as f64));
    if a.swap_in_pages + a.swap_out_pages + b.swap_in_pages + b.swap_out_pages > 0 {
        parts.extend(change("swap I/O", a.swap_io_mib, b.swap_io_mib));
    }
    if a.oom_kills != b.oom_kills {
        parts.push(format!("{} OOM kills instead of {}", b.oom_kills, a.oom_kills));
    }
    if parts.is_empty() {
        format!("Verdict: no reclaim happened under either {axis} (the workload fits in memory)")
    } else {
        format!("Verdict: {b_name} against {a_name}: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(refaults: u64, misses: u64, scanned: u64) -> Figures {
        Figures {
            page_accesses: 1000,
            misses,
            miss_ratio: misses as f64 / 1000.0,
            hit_ratio: 1.0 - misses as f64 / 1000.0,
            refaults,
            refaults_per_1k_accesses: refaults as f64,
            swap_in_pages: 0,
            swap_out_pages: 0,
            swap_io_mib: 0.0,
            oom_kills: 0,
            pages_scanned: scanned,
            pages_stolen: 0,
            simulated_seconds: 1.0,
            memory_stall_seconds: 0.0,
            memory_stall_share: 0.0,
            task_seconds: 1.0,
        }
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn the_verdict_names_direction_and_size() {
        let v = verdict(&figures(100, 200, 1000), &figures(88, 200, 1030));
        assert_eq!(v, "Verdict: MGLRU against classic: 12 % fewer refaults, about as many pages read from storage, 3 % more pages scanned");
        assert!(verdict(&figures(0, 0, 0), &figures(0, 0, 0)).contains("no reclaim"));
        assert!(verdict(&figures(0, 0, 0), &figures(5, 0, 0)).contains("refaults 5 instead of none"));
        let k = verdict_between("7.2", "6.12", "kernel", &figures(100, 200, 1000), &figures(50, 200, 1000));
        assert_eq!(k, "Verdict: 7.2 against 6.12: 50 % fewer refaults, about as many pages read from storage, about as many pages scanned");
        assert!(verdict_between("7.2", "6.12", "kernel", &figures(0, 0, 0), &figures(0, 0, 0)).contains("either kernel"));
    }
}
