// SPDX-License-Identifier: GPL-2.0-only
//! mglru-sweep: run one input under many configurations.
//!
//! The engine behind `mglru sweep`, `mglru compare` and the Python
//! package: an input is decoded once ([`Input`]), a grid of configurations
//! is expanded from command-line style text ([`SweepSpec`]), and each
//! configuration runs on its own simulator over the shared operations
//! ([`sweep`]). [`Figures`] are the derived numbers a person reads first.

pub mod default_workload;
pub mod exec;
pub mod figures;
pub mod grid;
pub mod input;
pub mod lines;
pub mod replicate;
pub mod setup;
pub mod stats;
pub mod warmup;

pub use exec::{run_config, run_config_until, sweep, sweep_until, Outcome, Series};
pub use figures::{spread_rows, spread_summary, verdict, verdict_between, verdict_replicates, Figures};
pub use grid::{expand, Config, SweepSpec};
pub use input::{Failure, Input, Source};
pub use replicate::{seeded, seeds, sweep_replicates, Replicate};
pub use setup::Setup;
pub use stats::{spread, summarize, Spread};
pub use warmup::{Warmup, WarmupEnd};

use serde_json::{Map, Value};

/// The `/proc/vmstat` counters a sweep row carries beside the figures.
pub const ROW_COUNTERS: [&str; 12] = [
    "pgpgin",
    "pgpgout",
    "pswpin",
    "pswpout",
    "workingset_refault_anon",
    "workingset_refault_file",
    "pgscan_anon",
    "pgscan_file",
    "pgsteal_anon",
    "pgsteal_file",
    "pgmajfault",
    "oom_kill",
];

/// The whole run's figures a row carries beside those after a warm-up,
/// as `whole_run_NAME`.
pub const WHOLE_RUN: [&str; 8] =
    ["page_accesses", "hit_ratio", "miss_ratio", "cold_miss_ratio", "misses", "cold_misses", "readahead_pages", "refaults_per_1k_accesses"];

/// One sweep row: the configuration's axis values (as text), the derived
/// figures (after the warm-up, if any, then where it ended and the whole
/// run's), then the raw counters of [`ROW_COUNTERS`] (over the whole
/// run). Wall-clock time is left out: rows are identical from run to run.
pub fn row(cfg: &Config, o: &Outcome) -> Map<String, Value> {
    row_of(cfg, o, None)
}

/// [`row`] of replicate `r` (crate::replicate): the axes, then
/// `replicate` (0, 1, ...) and `seed`, then the rest.
pub fn replicate_row(cfg: &Config, o: &Outcome, r: usize) -> Map<String, Value> {
    row_of(cfg, o, Some(r))
}

fn row_of(cfg: &Config, o: &Outcome, replicate: Option<usize>) -> Map<String, Value> {
    let mut m = Map::new();
    for (axis, v) in &cfg.labels {
        m.insert(axis.clone(), Value::String(v.clone()));
    }
    if let Some(r) = replicate {
        m.insert("replicate".into(), Value::from(r));
        m.insert("seed".into(), Value::from(cfg.opts.seed));
    }
    m.insert("policy_run".into(), Value::String(o.report.policy.into()));
    if let Value::Object(f) = serde_json::to_value(&o.figures).expect("figures are plain numbers") {
        m.extend(f);
    }
    // With a warm-up, where it ended and the whole run's figures beside.
    if let (Some((s, n)), Some(w)) = (o.warmup_end, &o.whole) {
        m.insert("warmup_end_seconds".into(), Value::from(s));
        m.insert("warmup_end_accesses".into(), Value::from(n));
        if let Value::Object(f) = serde_json::to_value(w).expect("figures are plain numbers") {
            m.extend(f.into_iter().filter(|(k, _)| WHOLE_RUN.contains(&k.as_str())).map(|(k, v)| (format!("whole_run_{k}"), v)));
        }
    }
    for c in ROW_COUNTERS {
        m.insert(c.into(), Value::from(o.report.vmstat(c).unwrap_or(0)));
    }
    m
}
