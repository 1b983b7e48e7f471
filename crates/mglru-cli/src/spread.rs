// SPDX-License-Identifier: GPL-2.0-only
//! Reclaim by whom, CPU time and pressure over the kernel's own runs
//! (`mglru validate`'s checked spread section).
//!
//! These figures vary from boot to boot far more than the published
//! counters (direct reclaim on global-swap-brd: 7,318 to 14,523 pages over
//! fifteen runs), so one kernel result cannot judge them. For every trace
//! that thresholds.json's `spread.runs` lists, the model follows each of
//! the kernel's runs (its clock and start zones, as for the main table),
//! and the median of the model's values is held to the median of the
//! kernel's within the kernel's own range (largest minus smallest run),
//! or a floor where that range is narrow. Nothing here is fitted: the
//! runs are the guest's, the rule is the same for every figure.
//!
//! Since 2026-12-03 the activation family ([`ACTIVATION`]: activations,
//! deactivations, rotations, recent and restoring refaults, major faults,
//! pages written) is held to the same rule twice per run: with the model
//! following the run's clock and on the model's own clock (issue 33).
//!
//! Times (task stime, kswapd's CPU, PSI totals) are taken per second of
//! the workload on each side (the guest's wall clock, the model's own
//! cost-model clock), since TCG's speed follows the host's load: the same
//! trace took 13 s in one boot and 109 s in another (docs/COST_MODEL.md).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use mglru_core::kswapd::KswapdMode;
use mglru_core::report::Report;

use crate::validate::{self, parse_json, Json, KernelResult};

/// Floors of the tolerance, per kind of figure: pages as the main table
/// (256), events (allocation stalls, kswapd wake-ups) 16, shares of the
/// workload's time 1 %.
const FLOOR_PAGES: f64 = 256.0;
const FLOOR_EVENTS: f64 = 16.0;
const FLOOR_SHARE: f64 = 0.01;

/// thresholds.json's `spread`: the kernel runs of each trace (result
/// folders of the suite) and the known deviations.
#[derive(Clone, Debug, Default)]
pub struct SpreadSpec {
    pub runs: Vec<(String, Vec<String>)>,
    pub exceptions: Vec<Exception>,
}

/// A known deviation of the section (each explained in docs/FIDELITY.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Exception {
    /// A trace of `runs`, or `*`.
    pub trace: String,
    /// `mglru`, `classic` or `*`.
    pub policy: String,
    /// Figures or the starts of figures' names (`stime` covers every task).
    pub figures: Vec<String>,
    /// The kswapd mode it applies to; None: both.
    pub kswapd: Option<KswapdMode>,
    pub why: String,
}

impl SpreadSpec {
    fn exempt(&self, trace: &str, policy: &str, figure: &str, mode: KswapdMode) -> bool {
        self.exceptions.iter().any(|e| {
            (e.trace == "*" || e.trace == trace)
                && (e.policy == "*" || e.policy == policy)
                && e.figures.iter().any(|f| figure.starts_with(f.as_str()))
                && e.kswapd.is_none_or(|m| m == mode)
        })
    }
}

/// Reads `spread` from the suite's thresholds.json (None: no such key).
pub fn load_spec(dir: &Path) -> Result<Option<SpreadSpec>, String> {
    let p = dir.join("thresholds.json");
    let Ok(text) = std::fs::read_to_string(&p) else { return Ok(None) };
    let j = parse_json(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    let Some(s) = j.get("spread") else { return Ok(None) };
    let bad = |what: &str| format!("{}: spread.{what}", p.display());
    let mut spec = SpreadSpec::default();
    match s.get("runs") {
        Some(Json::Obj(m)) => {
            for (trace, v) in m {
                if !dir.join("traces").join(format!("{trace}.trace.gz")).exists() {
                    return Err(bad(&format!("runs names `{trace}`, which is not a trace in {}/traces", dir.display())));
                }
                let Json::Arr(a) = v else {
                    return Err(bad(&format!("runs.{trace} must be an array of result folders, e.g. [\"results\", \"results-repeat\"]")));
                };
                let mut folders = Vec::new();
                for f in a {
                    let f = f.str().ok_or_else(|| bad(&format!("runs.{trace} must hold folder names")))?;
                    if !dir.join(f).is_dir() {
                        return Err(bad(&format!("runs.{trace}: `{f}` is not a folder of {}", dir.display())));
                    }
                    folders.push(f.to_string());
                }
                if folders.len() < 2 {
                    return Err(bad(&format!("runs.{trace} needs at least two kernel runs to have a spread")));
                }
                spec.runs.push((trace.clone(), folders));
            }
        }
        _ => return Err(bad("runs must be an object of trace: [result folders]")),
    }
    match s.get("exceptions") {
        None => {}
        Some(Json::Arr(a)) => {
            for e in a {
                let f = |k: &str| e.get(k).and_then(Json::str).map(str::to_string);
                let figures: Option<Vec<String>> = match e.get("figures") {
                    Some(Json::Arr(a)) if !a.is_empty() => a.iter().map(|x| x.str().map(str::to_string)).collect(),
                    _ => None,
                };
                let (Some(trace), Some(policy), Some(figures), Some(why)) = (f("trace"), f("policy"), figures, f("why")) else {
                    return Err(bad(
                        "exceptions: each needs \"trace\", \"policy\", \"figures\" (figure names or their starts) and \"why\" (trace and policy may be \"*\")",
                    ));
                };
                if trace != "*" && !spec.runs.iter().any(|(r, _)| *r == trace) {
                    return Err(bad(&format!("exceptions: `{trace}` has no entry in spread.runs")));
                }
                if !["*", "mglru", "classic"].contains(&policy.as_str()) {
                    return Err(bad(&format!("exceptions: policy `{policy}` must be mglru, classic or *")));
                }
                let kswapd = match f("kswapd") {
                    None => None,
                    Some(m) => Some(KswapdMode::parse(&m).ok_or_else(|| bad(&format!("exceptions: kswapd `{m}` must be instant or thread (or left out: both)")))?),
                };
                spec.exceptions.push(Exception { trace, policy, figures, kswapd, why });
            }
        }
        Some(_) => return Err(bad("exceptions must be an array")),
    }
    Ok(Some(spec))
}

/// One figure of one trace and policy over the kernel's runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SpreadRow {
    pub trace: String,
    pub policy: &'static str,
    /// `allocstall`, `pageoutrun`, a validate::CPU_VMSTAT counter (the
    /// direct/kswapd split; pages or events), an [`ACTIVATION`] counter
    /// (with [`OWN_CLOCK`] appended: on the model's own clock), or
    /// `kswapd_cpu`, `stime TASK`, `psi_some GROUP`, `psi_full GROUP`
    /// (shares of the workload's time).
    pub figure: String,
    /// Per run where the guest measured it: (kernel, model).
    pub runs: Vec<(f64, f64)>,
    pub kernel_median: f64,
    pub model_median: f64,
    /// max(kernel range, floor).
    pub tolerance: f64,
    pub ok: bool,
    /// A known deviation (thresholds.json spread.exceptions).
    pub exempt: bool,
}

impl SpreadRow {
    /// The row of `figure` over `runs` ((kernel, model) per run): the two
    /// medians, the tolerance (the kernel's range, at least the figure's
    /// floor) and the verdict.
    fn new(trace: &str, policy: &'static str, figure: String, runs: Vec<(f64, f64)>, exempt: bool) -> SpreadRow {
        let ks: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let lo = ks.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = ks.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let kernel_median = median(ks);
        let model_median = median(runs.iter().map(|r| r.1).collect());
        let tolerance = (hi - lo).max(floor_of(&figure));
        let ok = (model_median - kernel_median).abs() <= tolerance + 1e-12;
        SpreadRow { trace: trace.to_string(), policy, figure, runs, kernel_median, model_median, tolerance, ok, exempt }
    }
}

fn is_share(figure: &str) -> bool {
    figure == "kswapd_cpu" || figure.starts_with("stime ") || figure.starts_with("psi_")
}

fn floor_of(figure: &str) -> f64 {
    if is_share(figure) {
        FLOOR_SHARE
    } else if figure == "allocstall" || figure == "pageoutrun" {
        FLOOR_EVENTS
    } else {
        FLOOR_PAGES
    }
}

/// The counters of the working set's fate a kernel developer reads beside
/// the main table's (issue 33): activations, deactivations, rotations,
/// refaults that were recent and that restored the working set, major
/// faults and pages written. Each is held to the kernel's runs twice:
/// with the model following each run's clock (`NAME`) and on the model's
/// own cost-model clock (`NAME (own clock)`), where decisions that read
/// the memcg statistics (flushed every 2 s) land at other moments.
pub const ACTIVATION: [&str; 10] = [
    "pgactivate",
    "pgdeactivate",
    "pgrotated",
    "pgrefill",
    "workingset_activate_anon",
    "workingset_activate_file",
    "workingset_restore_anon",
    "workingset_restore_file",
    "pgmajfault",
    "pgpgout",
];

/// The suffix of a figure taken on the model's own clock.
pub const OWN_CLOCK: &str = " (own clock)";

/// The figures of one run: kernel (None where not measured) and model.
fn run_figures(kr: &KernelResult, rep: &Report, own: &Report) -> Vec<(String, Option<f64>, f64)> {
    let mut out = Vec::new();
    out.push((
        "allocstall".to_string(),
        Some(validate::allocstall_sum(kr.vmstat.iter().map(|(k, v)| (k.as_str(), *v)))),
        validate::allocstall_sum(rep.vmstat.iter().map(|(k, v)| (*k, *v as f64))),
    ));
    for c in validate::CPU_VMSTAT.iter().chain(std::iter::once(&"pageoutrun")) {
        out.push((c.to_string(), Some(kr.vmstat.get(*c).copied().unwrap_or(0.0)), rep.vmstat(c).unwrap_or(0) as f64));
    }
    // Shares of the workload's time: the guest's wall clock, the model's
    // own clock (`own`, a run without the guest's clock).
    let kw = kr.wall_seconds.max(1e-9);
    let mw = (own.sim.simulated_ns as f64 / 1e9).max(1e-9);
    out.push(("kswapd_cpu".to_string(), kr.kswapd_cpu_seconds.map(|k| k / kw), own.cpu.kswapd_ns as f64 / 1e9 / mw));
    if let Some(kc) = &kr.cpu {
        for (name, t) in &kc.tasks {
            let m = own.cpu.tasks.iter().find(|m| &m.name == name).map_or(0.0, |m| m.stime_ns as f64 / 1e9);
            out.push((format!("stime {name}"), t.map(|(_, st)| st / kw), m / mw));
        }
        for (group, k, (ms, mf)) in validate::psi_groups(kc, own) {
            out.push((format!("psi_some {group}"), k.map(|(s, _)| s / 1e6 / kw), ms / mw));
            out.push((format!("psi_full {group}"), k.map(|(_, f)| f / 1e6 / kw), mf / mw));
        }
    }
    for c in ACTIVATION {
        let k = Some(kr.vmstat.get(c).copied().unwrap_or(0.0));
        out.push((c.to_string(), k, rep.vmstat(c).unwrap_or(0) as f64));
        out.push((format!("{c}{OWN_CLOCK}"), k, own.vmstat(c).unwrap_or(0) as f64));
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    validate::median(&mut v)
}

/// The model against every kernel run of every trace in `spec`. The runs
/// are independent simulations, spread over the machine's cores; the rows
/// come out in the same order whatever the number of threads.
pub fn spread_rows(dir: &Path, spec: &SpreadSpec, kswapd: KswapdMode, migratetypes: bool) -> Result<Vec<SpreadRow>, String> {
    let start_free = validate::start_free_traces(dir);
    let platform = validate::load_platform(dir)?;
    let cpus = validate::load_platform_cpus(dir)?;
    // One job per (trace, policy, kernel run).
    let mut jobs: Vec<(&str, &'static str, &str)> = Vec::new();
    for (trace, folders) in &spec.runs {
        for pol in ["mglru", "classic"] {
            for f in folders {
                jobs.push((trace, pol, f));
            }
        }
    }
    let one = |(trace, pol, f): (&str, &'static str, &str)| -> Result<Vec<(String, Option<f64>, f64)>, String> {
        let rp = dir.join(f).join(format!("{trace}.{pol}.json"));
        if !rp.exists() {
            return Err(format!("{}: missing (thresholds.json spread.runs lists {f} for {trace})", rp.display()));
        }
        let kr = validate::load_kernel_result(&rp)?;
        let path = dir.join("traces").join(format!("{trace}.trace.gz"));
        let (memory, zones) = validate::model_memory(&start_free, trace, &kr, migratetypes);
        let policy = Some(kr.policy);
        let rep = validate::simulate_trace(&path, kr.kernel, policy, memory, zones.clone(), platform.clone(), &kr.profile, kswapd, kr.schedule, cpus, migratetypes)?;
        let own = validate::simulate_trace(&path, kr.kernel, policy, memory, zones, platform.clone(), &[], kswapd, kr.schedule, cpus, migratetypes)?;
        Ok(run_figures(&kr, &rep, &own))
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<Vec<(String, Option<f64>, f64)>, String>>> = vec![None; jobs.len()];
    let done: Vec<Vec<(usize, Result<Vec<(String, Option<f64>, f64)>, String>)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&job) = jobs.get(i) else { break };
                        mine.push((i, one(job)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_default()).collect()
    });
    for (i, r) in done.into_iter().flatten() {
        results[i] = Some(r);
    }
    let mut rows = Vec::new();
    let mut at = 0;
    for (trace, folders) in &spec.runs {
        for pol in ["mglru", "classic"] {
            // figure -> per run (kernel, model); first-seen order kept.
            let mut order: Vec<String> = Vec::new();
            let mut per: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
            for _ in folders {
                let figs = results[at].take().ok_or("a validation thread stopped before its run")??;
                at += 1;
                for (fig, k, m) in figs {
                    let Some(k) = k else { continue };
                    if !per.contains_key(&fig) {
                        order.push(fig.clone());
                    }
                    per.entry(fig).or_default().push((k, m));
                }
            }
            for fig in order {
                let runs = per.remove(&fig).unwrap_or_default();
                let exempt = spec.exempt(trace, pol, &fig, kswapd);
                rows.push(SpreadRow::new(trace, pol, fig, runs, exempt));
            }
        }
    }
    Ok(rows)
}

fn fmt(fig: &str, v: f64) -> String {
    if is_share(fig) {
        format!("{:.2}%", v * 100.0)
    } else {
        format!("{v:.0}")
    }
}

/// The section of `mglru validate`'s report.
pub fn render(rows: &[SpreadRow], spec: &SpreadSpec, mode: KswapdMode) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\nReclaim by whom (pages, events) and CPU time and pressure (share of the workload's time), over the kernel's runs \
         (checked: |model median - kernel median| <= max(kernel range, floor); floors 256 pages, 16 events, 1% of the time):"
    );
    let _ = writeln!(
        o,
        "{:<28} {:<8} {:<36} {:>4} {:>10} {:>21} {:>10} {:>21} {:>10}  verdict",
        "trace", "policy", "figure", "runs", "kernel med", "kernel range", "model med", "model range", "tolerance"
    );
    for r in rows {
        let range = |sel: fn(&(f64, f64)) -> f64| {
            let lo = r.runs.iter().map(sel).fold(f64::INFINITY, f64::min);
            let hi = r.runs.iter().map(sel).fold(f64::NEG_INFINITY, f64::max);
            format!("{}..{}", fmt(&r.figure, lo), fmt(&r.figure, hi))
        };
        let verdict = match (r.ok, r.exempt) {
            (true, _) => "ok",
            (false, true) => "known deviation",
            (false, false) => "OUTSIDE",
        };
        let _ = writeln!(
            o,
            "{:<28} {:<8} {:<36} {:>4} {:>10} {:>21} {:>10} {:>21} {:>10}  {verdict}",
            r.trace,
            r.policy,
            r.figure,
            r.runs.len(),
            fmt(&r.figure, r.kernel_median),
            range(|x| x.0),
            fmt(&r.figure, r.model_median),
            range(|x| x.1),
            fmt(&r.figure, r.tolerance)
        );
    }
    for e in spec.exceptions.iter().filter(|e| e.kswapd.is_none_or(|m| m == mode)) {
        let _ = writeln!(o, "known deviation (docs/FIDELITY.md): {} {} {}: {}", e.trace, e.policy, e.figures.join(", "), e.why);
    }
    o
}

/// The violations: rows outside their tolerance that are not exempt.
pub fn check(rows: &[SpreadRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| !r.ok && !r.exempt)
        .map(|r| {
            format!(
                "{} {} {}: model median {} vs kernel median {} over {} runs, off by more than the kernel's range {}",
                r.trace,
                r.policy,
                r.figure,
                fmt(&r.figure, r.model_median),
                fmt(&r.figure, r.kernel_median),
                r.runs.len(),
                fmt(&r.figure, r.tolerance)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fig: &str, runs: Vec<(f64, f64)>) -> SpreadRow {
        SpreadRow::new("t", "mglru", fig.into(), runs, false)
    }

    #[test]
    fn the_kernel_range_is_the_tolerance_above_its_floor() {
        // Kernel 1000, 1400, 1200: median 1200, range 400. Model median
        // 1500 is 300 off (inside); 1700 is 500 off (outside).
        let r = row("pgscan_direct", vec![(1000.0, 1500.0), (1400.0, 1500.0), (1200.0, 1500.0)]);
        assert_eq!((r.kernel_median, r.tolerance, r.ok), (1200.0, 400.0, true));
        let r = row("pgscan_direct", vec![(1000.0, 1700.0), (1400.0, 1700.0), (1200.0, 1700.0)]);
        assert!(!r.ok);
        assert_eq!(check(&[r.clone()]).len(), 1);
        // A narrow range falls back to the floor: 16 events.
        let r = row("allocstall", vec![(100.0, 115.0), (101.0, 115.0)]);
        assert_eq!((r.tolerance, r.ok), (16.0, true));
        // Shares: 1 % of the workload's time.
        let r = row("psi_some system", vec![(0.100, 0.115), (0.101, 0.115)]);
        assert!(!r.ok && (r.tolerance - 0.01).abs() < 1e-12);
        let mut e = r.clone();
        e.exempt = true;
        assert!(check(&[e]).is_empty());
    }

    #[test]
    fn exceptions_match_by_trace_policy_and_figure_prefix() {
        let e = |t: &str, p: &str, f: &str, k: Option<KswapdMode>| Exception {
            trace: t.into(),
            policy: p.into(),
            figures: vec![f.into()],
            kswapd: k,
            why: "w".into(),
        };
        let spec = SpreadSpec {
            runs: vec![],
            exceptions: vec![
                e("*", "*", "stime", None),
                e("a", "classic", "psi_", None),
                e("*", "*", "pgscan_direct", Some(KswapdMode::Instant)),
            ],
        };
        let t = KswapdMode::Thread;
        assert!(spec.exempt("b", "mglru", "stime t", t));
        assert!(spec.exempt("a", "classic", "psi_full app", t));
        assert!(!spec.exempt("a", "mglru", "psi_full app", t));
        assert!(!spec.exempt("b", "classic", "pgscan_direct", t));
        assert!(spec.exempt("b", "classic", "pgscan_direct", KswapdMode::Instant));
        // An own-clock figure is its own: exempting it leaves the guest-clock one checked.
        let own = format!("workingset_restore_anon{OWN_CLOCK}");
        let spec = SpreadSpec { runs: vec![], exceptions: vec![e("a", "classic", &own, None)] };
        assert!(spec.exempt("a", "classic", &own, t));
        assert!(!spec.exempt("a", "classic", "workingset_restore_anon", t));
    }

    #[test]
    fn a_spread_entry_must_name_a_trace_and_its_runs() {
        let dir = std::env::temp_dir().join(format!("mglru-spread-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        std::fs::create_dir_all(dir.join("results")).unwrap();
        std::fs::write(dir.join("traces/t.trace.gz"), b"").unwrap();
        let load = |spread: &str| {
            std::fs::write(dir.join("thresholds.json"), format!("{{\"spread\": {spread}}}")).unwrap();
            load_spec(&dir)
        };
        let e = load(r#"{"runs": {"u": ["results", "results"]}}"#).unwrap_err();
        assert!(e.contains("`u`") && e.contains("not a trace"), "{e}");
        let e = load(r#"{"runs": {"t": ["results", "results-gone"]}}"#).unwrap_err();
        assert!(e.contains("results-gone") && e.contains("not a folder"), "{e}");
        let e = load(r#"{"runs": {"t": ["results"]}}"#).unwrap_err();
        assert!(e.contains("at least two"), "{e}");
        let e = load(r#"{"runs": {"t": ["results", "results"]}, "exceptions": [{"trace": "t", "policy": "*", "figures": ["stime"], "kswapd": "slow", "why": "w"}]}"#)
            .unwrap_err();
        assert!(e.contains("instant or thread"), "{e}");
        let e = load(r#"{"runs": {"t": ["results", "results"]}, "exceptions": [{"trace": "t", "policy": "*", "why": "w"}]}"#).unwrap_err();
        assert!(e.contains("\"figures\""), "{e}");
        let s = load(r#"{"runs": {"t": ["results", "results"]}, "exceptions": [{"trace": "*", "policy": "classic", "figures": ["psi_"], "why": "w"}]}"#)
            .unwrap()
            .unwrap();
        assert_eq!(s.runs, vec![("t".to_string(), vec!["results".to_string(), "results".to_string()])]);
        assert!(s.exempt("t", "classic", "psi_full system", KswapdMode::Thread) && !s.exempt("t", "mglru", "psi_full system", KswapdMode::Thread));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
