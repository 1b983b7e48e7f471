// SPDX-License-Identifier: GPL-2.0-only
//! `mglru validate --trace NAME --timeline`: where along a run the model
//! and the kernel part. The replayer samples some `/proc/vmstat` counters
//! every 100 ms of the guest's time (`vmstat_profile`, with the trace line
//! each sample was taken before); the model is replayed with its clock
//! following the guest's and its counters are taken before the same lines.
//! Event counters are shown as their growth since the first sample, gauges
//! (`nr_*`) as they are.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::validate::{self, Json};

/// The kernel's side: the replayer's `vmstat_profile`.
#[derive(Clone, Debug, Default)]
pub struct KernelTimeline {
    pub lines: Vec<u64>,
    pub ns: Vec<u64>,
    pub counters: BTreeMap<String, Vec<f64>>,
}

/// What `--timeline` shows unless told otherwise.
pub const DEFAULT_COUNTERS: [&str; 7] = [
    "nr_free_pages",
    "workingset_refault_anon",
    "workingset_refault_file",
    "pswpout",
    "pgscan_kswapd",
    "pgscan_direct",
    "pgdeactivate",
];

/// The `vmstat_profile` of a kernel result; None where the result has none
/// (recorded before the replayer kept one).
pub fn parse_vmstat_profile(j: &Json) -> Result<Option<KernelTimeline>, String> {
    let vp = match j.get("vmstat_profile") {
        None | Some(Json::Null) => return Ok(None),
        Some(v) => v,
    };
    let (lines, ns) = validate::profile_axes(vp, "vmstat_profile")?;
    let mut counters = BTreeMap::new();
    match vp.get("counters") {
        Some(c @ Json::Obj(m)) => {
            for k in m.keys() {
                let vals = validate::num_array(c, "vmstat_profile.counters", k)?;
                if vals.len() != lines.len() {
                    return Err(format!("vmstat_profile.counters.{k} has {} samples, not {}", vals.len(), lines.len()));
                }
                counters.insert(k.clone(), vals);
            }
        }
        _ => return Err("vmstat_profile has no object \"counters\"".into()),
    }
    Ok(Some(KernelTimeline { lines, ns, counters }))
}

/// A gauge is shown as it is; an event counter as its growth.
fn is_gauge(name: &str) -> bool {
    name.starts_with("nr_")
}

/// One policy's timeline: per sample, per counter, (kernel, model).
pub struct PolicyTimeline {
    pub policy: &'static str,
    /// The guest's time of each sample.
    pub ns: Vec<u64>,
    /// The model's clock at the same line (at least the guest's where the
    /// clock follows it; later where the model's costs ran ahead).
    pub model_ns: Vec<u64>,
    pub lines: Vec<u64>,
    pub values: Vec<Vec<(f64, f64)>>,
}

/// Kernel and model side by side for `trace`, each policy with a result
/// in `dir/results` that has a `vmstat_profile`.
pub fn build(
    dir: &Path,
    results: &str,
    trace: &str,
    names: &[String],
    follow_guest_clock: bool,
    kswapd: mglru_core::kswapd::KswapdMode,
    migratetypes: bool,
) -> Result<Vec<PolicyTimeline>, String> {
    let trace_path = dir.join("traces").join(format!("{trace}.trace.gz"));
    if !trace_path.is_file() {
        return Err(format!("--timeline: {} does not exist (--trace names a trace of the suite)", trace_path.display()));
    }
    let platform = validate::load_platform(dir)?;
    let platform_cpus = validate::load_platform_cpus(dir)?;
    let start_free = validate::start_free_traces(dir);
    let mut out = Vec::new();
    let mut without = Vec::new();
    for pname in ["mglru", "classic", "self"] {
        let rp = dir.join(results).join(format!("{trace}.{pname}.json"));
        if !rp.exists() {
            continue;
        }
        let kr = validate::load_kernel_result(&rp)?;
        let Some(tl) = kr.timeline.clone() else {
            without.push(rp.display().to_string());
            continue;
        };
        if tl.lines.is_empty() {
            return Err(format!("--timeline: {} has a vmstat_profile without samples", rp.display()));
        }
        for n in names {
            if !tl.counters.contains_key(n) {
                let have: Vec<&str> = tl.counters.keys().map(String::as_str).collect();
                return Err(format!("--timeline {n}: {} did not sample it; it has {}", rp.display(), have.join(", ")));
            }
        }
        let policy = if pname == "self" { None } else { Some(kr.policy) };
        let (memory, zones) = validate::model_memory(&start_free, trace, &kr, migratetypes);
        let profile: &[(u64, u64)] = if follow_guest_clock { &kr.profile } else { &[] };
        let (_, samples) = validate::simulate_trace_sampled(&trace_path, kr.kernel, policy, memory, zones, platform.clone(), profile, &tl.lines, kswapd, kr.schedule, platform_cpus, migratetypes)
            .map_err(|e| format!("{}: {e}", rp.display()))?;
        let model_of = |i: usize, n: &str| -> Result<f64, String> {
            samples[i]
                .1
                .iter()
                .find(|(k, _)| *k == n)
                .map(|&(_, v)| v as f64)
                .ok_or_else(|| format!("--timeline {n}: the model keeps no vmstat counter of that name"))
        };
        // per counter, the model's value at each sample
        let model: Vec<Vec<f64>> =
            names.iter().map(|n| (0..samples.len()).map(|i| model_of(i, n)).collect()).collect::<Result<_, _>>()?;
        let mut values = Vec::with_capacity(tl.lines.len());
        for i in 0..tl.lines.len() {
            let mut row = Vec::with_capacity(names.len());
            for (n, m) in names.iter().zip(&model) {
                let k = &tl.counters[n];
                row.push(if is_gauge(n) { (k[i], m[i]) } else { (k[i] - k[0], m[i] - m[0]) });
            }
            values.push(row);
        }
        let p = if kr.policy == mglru_core::Policy::Mglru { "mglru" } else { "classic" };
        let model_ns = samples.iter().map(|s| s.0).collect();
        out.push(PolicyTimeline { policy: p, ns: tl.ns, model_ns, lines: tl.lines, values });
    }
    if out.is_empty() {
        if without.is_empty() {
            return Err(format!("--timeline: no kernel result for {trace} in {}", dir.join(results).display()));
        }
        return Err(format!(
            "--timeline: {} were recorded without a vmstat_profile; re-measure with validation/run-kernel.sh",
            without.join(", ")
        ));
    }
    Ok(out)
}

/// The rows at least `every_ms` of guest time apart, and the last one.
/// Each counter is a column `kernel | model`, as wide as its name (at
/// least 17 characters), after the guest's time, the model's and the line.
pub fn render(trace: &str, names: &[String], tls: &[PolicyTimeline], every_ms: u64) -> String {
    let mut s = String::new();
    let widths: Vec<usize> = names.iter().map(|n| n.len().max(17)).collect();
    for tl in tls {
        let _ = writeln!(s, "{trace} ({}): kernel | model; events as growth since the first sample, nr_* as they are", tl.policy);
        let _ = write!(s, "{:>7} {:>8} {:>8}", "t (s)", "model t", "line");
        for (n, &cw) in names.iter().zip(&widths) {
            let _ = write!(s, "  {n:^cw$}");
        }
        let _ = writeln!(s);
        let mut last: Option<u64> = None;
        for (i, row) in tl.values.iter().enumerate() {
            let t = tl.ns[i];
            let is_last = i + 1 == tl.values.len();
            if !is_last && last.is_some_and(|l| t < l.saturating_add(every_ms.saturating_mul(1_000_000))) {
                continue;
            }
            last = Some(t);
            let _ = write!(s, "{:>7.2} {:>8.2} {:>8}", t as f64 / 1e9, tl.model_ns[i] as f64 / 1e9, tl.lines[i]);
            for (&(k, m), &cw) in row.iter().zip(&widths) {
                let a = (cw - 3) / 2;
                let b = cw - 3 - a;
                let _ = write!(s, "  {:>a$} | {:<b$}", k as i64, m as i64);
            }
            let _ = writeln!(s);
        }
        let _ = writeln!(s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vmstat_profile_is_read_and_checked() {
        let j = validate::parse_json(
            r#"{"vmstat_profile": {"every_ns": 100, "lines": [3, 9], "ns": [0, 100],
                "counters": {"pswpout": [5, 12], "nr_free_pages": [900, 800]}}}"#,
        )
        .unwrap();
        let tl = parse_vmstat_profile(&j).unwrap().unwrap();
        assert_eq!(tl.lines, vec![3, 9]);
        assert_eq!(tl.counters["pswpout"], vec![5.0, 12.0]);
        assert!(parse_vmstat_profile(&validate::parse_json("{}").unwrap()).unwrap().is_none());
        let short = validate::parse_json(
            r#"{"vmstat_profile": {"lines": [3, 9], "ns": [0, 100], "counters": {"pswpout": [5]}}}"#,
        )
        .unwrap();
        let e = parse_vmstat_profile(&short).unwrap_err();
        assert!(e.contains("counters.pswpout has 1 samples, not 2"), "{e}");
        let unordered = validate::parse_json(
            r#"{"vmstat_profile": {"lines": [9, 3], "ns": [0, 100], "counters": {}}}"#,
        )
        .unwrap();
        assert!(parse_vmstat_profile(&unordered).unwrap_err().contains("order"));
    }

    #[test]
    fn rows_are_thinned_by_guest_time_and_keep_the_last() {
        let tl = PolicyTimeline {
            policy: "classic",
            ns: vec![0, 100_000_000, 200_000_000, 600_000_000, 650_000_000],
            model_ns: vec![0, 100_000_000, 200_000_000, 600_000_000, 700_000_000],
            lines: vec![1, 2, 3, 4, 5],
            values: vec![vec![(0.0, 0.0)], vec![(1.0, 2.0)], vec![(3.0, 4.0)], vec![(5.0, 6.0)], vec![(7.0, 8.0)]],
        };
        let out = render("t", &["pswpout".to_string()], &[tl], 500);
        let rows: Vec<&str> = out.lines().skip(2).filter(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 3, "{out}");
        assert!(rows[1].contains(" 5 | 6"), "{out}");
        assert!(rows[2].contains(" 7 | 8"), "{out}");
    }
}
