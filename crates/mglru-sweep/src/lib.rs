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
pub mod setup;

pub use exec::{run_config, sweep, Outcome, Series};
pub use figures::{verdict, verdict_between, Figures};
pub use grid::{expand, Config, SweepSpec};
pub use input::{Failure, Input, Source};
pub use setup::Setup;

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

/// One sweep row: the configuration's axis values (as text), the derived
/// figures, then the raw counters of [`ROW_COUNTERS`]. Wall-clock time is
/// left out: rows are identical from run to run.
pub fn row(cfg: &Config, o: &Outcome) -> Map<String, Value> {
    let mut m = Map::new();
    for (axis, v) in &cfg.labels {
        m.insert(axis.clone(), Value::String(v.clone()));
    }
    m.insert("policy_run".into(), Value::String(o.report.policy.into()));
    if let Value::Object(f) = serde_json::to_value(&o.figures).expect("figures are plain numbers") {
        m.extend(f);
    }
    for c in ROW_COUNTERS {
        m.insert(c.into(), Value::from(o.report.vmstat(c).unwrap_or(0)));
    }
    m
}
