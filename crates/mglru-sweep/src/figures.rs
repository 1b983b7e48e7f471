// SPDX-License-Identifier: GPL-2.0-only
//! Derived figures: what a person asks of a run before any raw counter.
//!
//! Every figure is arithmetic on counters the report has, so a reader can
//! check it against `/proc/vmstat` and the model's miss counts
//! (mglru_core::demand):
//! - an access *misses* when its page is out of memory and must be read:
//!   a file page not in the page cache, an anonymous page swapped out. A
//!   *cold* (compulsory) miss is one of a page never in memory before: no
//!   amount of memory avoids it, so it is counted apart; `misses` are the
//!   others (the page had been in memory and was evicted: what more memory
//!   can fix). `miss_ratio` and `cold_miss_ratio` are per page access;
//!   `hit_ratio` is the share of accesses that found their page in memory
//!   (1 − both). An anonymous page's first touch is zero-filled: no read,
//!   no miss. Whole-page writes read nothing and always hit;
//! - `pages_read` are the file pages reads brought into the page cache
//!   plus `pswpin`: every page read, readahead included (`pgpgin` / 4 on
//!   6.12, which counts swap bios too); `readahead_pages` are those no
//!   access was waiting for (file pages read beyond the file misses,
//!   swap-ins beyond the swap misses);
//! - refaults are `workingset_refault_anon + workingset_refault_file`:
//!   pages evicted and needed again while their shadow entry was alive;
//! - swap I/O is `pswpin` and `pswpout`, in pages and MiB;
//! - pages scanned and stolen are `pgscan_anon + pgscan_file` and
//!   `pgsteal_anon + pgsteal_file`, which the kernel counts for every
//!   reclaimer (`pgscan_kswapd`/`pgscan_direct` leave out memcg limit
//!   reclaim); their meaning differs between the two LRUs: classic counts
//!   pages walked on the lists, MGLRU pages isolated and sorted.
//!
//! With a warm-up (crate::warmup) the figures are the change of those
//! counters from the end of the warm-up to the end of the run
//! ([`Figures::between`]).

use mglru_core::report::Report;
use serde::Serialize;

use crate::stats::{spread, Spread};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub page_accesses: u64,
    pub hit_ratio: f64,
    /// Accesses whose page had been in memory and was read again.
    pub misses: u64,
    pub miss_ratio: f64,
    /// Accesses whose page was never in memory before (compulsory).
    pub cold_misses: u64,
    pub cold_miss_ratio: f64,
    /// Every page read from disk or swap (readahead included).
    pub pages_read: u64,
    /// Of `pages_read`, those no access was waiting for.
    pub readahead_pages: u64,
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

/// The counters figures are made of, at one point of a run.
struct Counts {
    accesses: u64,
    file_misses: u64,
    swap_misses: u64,
    cold: u64,
    file_read: u64,
    pswpin: u64,
    pswpout: u64,
    refaults: u64,
    oom: u64,
    scanned: u64,
    stolen: u64,
    ns: u64,
    task_ns: u64,
    stall_us: u64,
}

impl Counts {
    fn of(r: &Report) -> Counts {
        let v = |n: &str| r.vmstat(n).unwrap_or(0);
        Counts {
            accesses: r.sim.page_accesses,
            file_misses: r.sim.file_misses,
            swap_misses: r.sim.swap_misses,
            cold: r.sim.cold_misses,
            file_read: r.sim.file_pages_read,
            pswpin: v("pswpin"),
            pswpout: v("pswpout"),
            refaults: v("workingset_refault_anon") + v("workingset_refault_file"),
            oom: v("oom_kill"),
            scanned: v("pgscan_anon") + v("pgscan_file"),
            stolen: v("pgsteal_anon") + v("pgsteal_file"),
            ns: r.sim.simulated_ns,
            task_ns: r.sim.task_ns,
            stall_us: r.memcg.first().map_or(0, |root| root.pressure.some.total),
        }
    }
}

impl Figures {
    /// The figures of a whole run.
    pub fn of(r: &Report) -> Figures {
        Figures::between(None, r)
    }

    /// The figures of the part of a run from `start` (a report taken at
    /// the end of the warm-up; None = the beginning) to `end`.
    pub fn between(start: Option<&Report>, end: &Report) -> Figures {
        let b = Counts::of(end);
        let a = start.map(Counts::of);
        let d = |f: fn(&Counts) -> u64| f(&b).saturating_sub(a.as_ref().map_or(0, f));
        let accesses = d(|c| c.accesses);
        let per = |x: u64| if accesses == 0 { 0.0 } else { x as f64 / accesses as f64 };
        let (file_misses, swap_misses, cold) = (d(|c| c.file_misses), d(|c| c.swap_misses), d(|c| c.cold));
        let misses = (file_misses + swap_misses).saturating_sub(cold);
        let (sin, sout) = (d(|c| c.pswpin), d(|c| c.pswpout));
        let file_read = d(|c| c.file_read);
        let pages_read = file_read + sin;
        let readahead = file_read.saturating_sub(file_misses) + sin.saturating_sub(swap_misses);
        let ns = d(|c| c.ns);
        let stall = d(|c| c.stall_us) as f64 / 1e6;
        let refaults = d(|c| c.refaults);
        Figures {
            page_accesses: accesses,
            hit_ratio: (1.0 - per(misses + cold)).max(0.0),
            misses,
            miss_ratio: per(misses),
            cold_misses: cold,
            cold_miss_ratio: per(cold),
            pages_read,
            readahead_pages: readahead,
            refaults,
            refaults_per_1k_accesses: per(refaults) * 1000.0,
            swap_in_pages: sin,
            swap_out_pages: sout,
            swap_io_mib: (sin + sout) as f64 * 4096.0 / (1 << 20) as f64,
            oom_kills: d(|c| c.oom),
            pages_scanned: d(|c| c.scanned),
            pages_stolen: d(|c| c.stolen),
            simulated_seconds: ns as f64 / 1e9,
            memory_stall_seconds: stall,
            memory_stall_share: if ns == 0 { 0.0 } else { stall / (ns as f64 / 1e9) },
            task_seconds: d(|c| c.task_ns) as f64 / 1e9,
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
            ("misses (page had been in memory)", format!("{} ({:.2} %)", thousands(self.misses), self.miss_ratio * 100.0)),
            ("cold misses (first touch)", format!("{} ({:.2} %)", thousands(self.cold_misses), self.cold_miss_ratio * 100.0)),
            ("pages read / of them readahead", format!("{} / {}", thousands(self.pages_read), thousands(self.readahead_pages))),
            ("refaults per 1,000 accesses", format!("{:.2}", self.refaults_per_1k_accesses)),
            ("swap I/O (in + out)", format!("{} + {} pages ({:.1} MiB)", thousands(self.swap_in_pages), thousands(self.swap_out_pages), self.swap_io_mib)),
            ("OOM kills", thousands(self.oom_kills)),
            ("pages scanned / stolen by reclaim", format!("{} / {}", thousands(self.pages_scanned), thousands(self.pages_stolen))),
            ("memory stall (PSI some)", format!("{:.3} s ({:.1} % of the time)", self.memory_stall_seconds, self.memory_stall_share * 100.0)),
            ("task time / simulated time", format!("{:.3} s / {:.3} s", self.task_seconds, self.simulated_seconds)),
        ]
    }
}

/// Counts per 1,000 accesses, with as many decimals as small rates need.
fn per_1k(n: f64, accesses: f64) -> String {
    if accesses == 0.0 {
        return "-".into();
    }
    let r = n * 1000.0 / accesses;
    if r >= 10.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.2}")
    }
}

/// A count, or a mean of counts, as a whole number with separators.
fn count(x: f64) -> String {
    thousands(x.round().max(0.0) as u64)
}

/// How `b` differs from `a`, as a share of `a`, with the rates per 1,000
/// accesses and the counts: "12 % fewer refaults (0.36 → 0.32 per 1,000
/// accesses; 3,600 → 3,200)". `None` when neither has any. With
/// replicates the values are means and `diff` is the spread of the
/// replicates' paired changes (b − a under the same seed).
fn change(what: &str, a: f64, b: f64, acc_a: f64, acc_b: f64, diff: Option<Spread>) -> Option<String> {
    if a == 0.0 && b == 0.0 {
        return None;
    }
    let detail = format!("({} → {} per 1,000 accesses; {} → {})", per_1k(a, acc_a), per_1k(b, acc_b), count(a), count(b));
    // The replicates' verdict on the change: its 95 % interval, and
    // whether that holds no change at all.
    let spread = match diff {
        Some(d) if d.n > 1 => {
            let (lo, hi) = d.interval();
            let (lo, hi) = if a > 0.0 { (format!("{:+.1} %", lo / a * 100.0), format!("{:+.1} %", hi / a * 100.0)) } else { (format!("{lo:+.0}"), format!("{hi:+.0}")) };
            if d.contains(0.0) {
                format!(" — inside the replicate spread: the change's 95 % interval {lo} .. {hi} holds 0")
            } else {
                format!(" [95 % interval of the change {lo} .. {hi}]")
            }
        }
        _ => String::new(),
    };
    if a == 0.0 {
        return Some(format!("{what} {} instead of none {detail}{spread}", count(b)));
    }
    let pct = (b - a) / a * 100.0;
    if pct.abs() < 0.5 {
        return Some(format!("about as many {what} {detail}{spread}"));
    }
    let dir = if pct < 0.0 { "fewer" } else { "more" };
    Some(format!("{:.0} % {dir} {what} {detail}{spread}", pct.abs()))
}

/// The one-line verdict of `mglru compare`: MGLRU against classic, on the
/// figures that decide which one a workload prefers.
pub fn verdict(classic: &Figures, mglru: &Figures) -> String {
    verdict_between("MGLRU", "classic", "policy", classic, mglru)
}

/// The verdict of `b` (named `b_name`) against `a` (`a_name`), two values
/// of one `axis` (policy, kernel, variant, memory, a sysctl ...).
pub fn verdict_between(b_name: &str, a_name: &str, axis: &str, a: &Figures, b: &Figures) -> String {
    verdict_replicates(b_name, a_name, axis, std::slice::from_ref(a), std::slice::from_ref(b))
}

/// [`verdict_between`] over replicates: `a[r]` and `b[r]` ran under the
/// same seed (the same generated input), so each change is judged by the
/// spread of the paired changes `b[r] − a[r]`: a change whose 95 %
/// interval holds 0 is said to be inside the replicate spread.
pub fn verdict_replicates(b_name: &str, a_name: &str, axis: &str, a: &[Figures], b: &[Figures]) -> String {
    assert!(!a.is_empty() && a.len() == b.len(), "paired replicates");
    let mean = |f: &[Figures], g: fn(&Figures) -> u64| f.iter().map(|x| g(x) as f64).sum::<f64>() / f.len() as f64;
    let (x, y) = (mean(a, |f| f.page_accesses), mean(b, |f| f.page_accesses));
    let mut parts = Vec::new();
    let metrics: [(&str, fn(&Figures) -> u64); 5] = [
        ("refaults", |f| f.refaults),
        ("misses", |f| f.misses),
        ("pages read from storage", |f| f.pages_read),
        ("pages scanned", |f| f.pages_scanned),
        ("pages swapped in and out", |f| f.swap_in_pages + f.swap_out_pages),
    ];
    for (what, g) in metrics {
        let d: Vec<f64> = a.iter().zip(b).map(|(p, q)| g(q) as f64 - g(p) as f64).collect();
        parts.extend(change(what, mean(a, g), mean(b, g), x, y, Some(spread(&d))));
    }
    let (oa, ob) = (mean(a, |f| f.oom_kills), mean(b, |f| f.oom_kills));
    if oa != ob {
        let n = |v: f64| if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") };
        parts.push(format!("{} OOM kills instead of {}", n(ob), n(oa)));
    }
    let over = if a.len() > 1 { format!(" (means of {} replicates)", a.len()) } else { String::new() };
    if parts.is_empty() {
        format!("Verdict: no reclaim happened under either {axis} value, {a_name} or {b_name} (the workload fits in memory)")
    } else {
        format!("Verdict: {b_name} against {a_name}{over}: {}", parts.join(", "))
    }
}

/// The headline figures of replicates as (label, "mean ± half width")
/// rows in reading order; the half width is that of the 95 % interval.
pub fn spread_rows(f: &[Figures]) -> Vec<(&'static str, String)> {
    let s = |g: fn(&Figures) -> f64| spread(&f.iter().map(g).collect::<Vec<_>>());
    let pm = |x: Spread, scale: f64, decimals: usize, unit: &str| {
        format!("{:.d$} ± {:.d$}{unit}", x.mean * scale, x.half_width.unwrap_or(0.0) * scale, d = decimals)
    };
    let whole = |x: Spread| format!("{} ± {}", count(x.mean), count(x.half_width.unwrap_or(0.0)));
    vec![
        ("page accesses", whole(s(|f| f.page_accesses as f64))),
        ("hit ratio", pm(s(|f| f.hit_ratio), 100.0, 2, " %")),
        ("miss ratio (page had been in memory)", pm(s(|f| f.miss_ratio), 100.0, 2, " %")),
        ("cold miss ratio (first touch)", pm(s(|f| f.cold_miss_ratio), 100.0, 2, " %")),
        ("misses", whole(s(|f| f.misses as f64))),
        ("pages read", whole(s(|f| f.pages_read as f64))),
        ("refaults per 1,000 accesses", pm(s(|f| f.refaults_per_1k_accesses), 1.0, 2, "")),
        ("swap I/O", pm(s(|f| f.swap_io_mib), 1.0, 1, " MiB")),
        ("OOM kills", pm(s(|f| f.oom_kills as f64), 1.0, 1, "")),
        ("pages scanned by reclaim", whole(s(|f| f.pages_scanned as f64))),
        ("memory stall (PSI some)", pm(s(|f| f.memory_stall_share), 100.0, 1, " % of the time")),
        ("simulated time", pm(s(|f| f.simulated_seconds), 1.0, 3, " s")),
    ]
}

/// Replicates' figures for a JSON document: each figure's mean and, as
/// `NAME_ci95`, the half width of its 95 % interval (crate::stats).
pub fn spread_summary(f: &[Figures]) -> serde_json::Map<String, serde_json::Value> {
    let maps: Vec<serde_json::Map<String, serde_json::Value>> = f
        .iter()
        .map(|x| match serde_json::to_value(x).expect("figures are plain numbers") {
            serde_json::Value::Object(m) => m,
            _ => unreachable!("figures serialise as an object"),
        })
        .collect();
    crate::stats::summarize(&maps.iter().collect::<Vec<_>>())
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
            cold_misses: 0,
            cold_miss_ratio: 0.0,
            pages_read: misses,
            readahead_pages: 0,
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
    fn the_verdict_names_direction_size_rates_and_counts() {
        let v = verdict(&figures(100, 200, 1000), &figures(88, 200, 1030));
        assert_eq!(
            v,
            "Verdict: MGLRU against classic: 12 % fewer refaults (100.0 → 88.0 per 1,000 accesses; 100 → 88), \
             about as many misses (200.0 → 200.0 per 1,000 accesses; 200 → 200), \
             about as many pages read from storage (200.0 → 200.0 per 1,000 accesses; 200 → 200), \
             3 % more pages scanned (1000.0 → 1030.0 per 1,000 accesses; 1,000 → 1,030)"
        );
        assert!(verdict(&figures(0, 0, 0), &figures(0, 0, 0)).contains("no reclaim happened under either policy value, classic or MGLRU"));
        assert!(verdict(&figures(0, 0, 0), &figures(5, 0, 0)).contains("refaults 5 instead of none (0.00 → 5.00 per 1,000 accesses; 0 → 5)"));
        let k = verdict_between("memory 2G", "memory 1G", "memory", &figures(100, 200, 1000), &figures(50, 200, 1000));
        assert!(k.starts_with("Verdict: memory 2G against memory 1G: 50 % fewer refaults (100.0 → 50.0 per"), "{k}");
        // Rates are per each side's own accesses.
        let mut b = figures(100, 200, 1000);
        b.page_accesses = 2000;
        assert!(verdict(&figures(100, 200, 1000), &b).contains("about as many refaults (100.0 → 50.0 per 1,000 accesses; 100 → 100)"));
    }

    #[test]
    fn a_change_inside_the_replicate_spread_says_so() {
        // Refaults: +10 under one seed, -10 under the other: no change to
        // speak of. Misses: +20 under every seed: a change.
        let a = [figures(100, 200, 1000), figures(120, 200, 1000)];
        let b = [figures(110, 220, 1000), figures(110, 220, 1000)];
        let v = verdict_replicates("memory 2G", "memory 1G", "memory", &a, &b);
        assert!(v.starts_with("Verdict: memory 2G against memory 1G (means of 2 replicates): "), "{v}");
        let refaults = v.split(", ").find(|p| p.contains("refaults")).unwrap();
        assert!(refaults.contains("inside the replicate spread"), "{v}");
        let misses = v.split(", ").find(|p| p.contains("% more misses")).unwrap();
        assert!(misses.contains("95 % interval of the change +10.0 % .. +10.0 %") && !misses.contains("inside"), "{v}");
    }
}
