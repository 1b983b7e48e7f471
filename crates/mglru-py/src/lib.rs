// SPDX-License-Identifier: GPL-2.0-only
//! `mglru._native`: the Rust side of the Python package.
//!
//! A deliberately narrow seam: every function takes and returns plain
//! strings (JSON for structured values), and the Python layer
//! (python/mglru/__init__.py) turns them into pandas objects. The model
//! runs with the GIL released, so Python threads and Ray workers do not
//! wait on each other, on a thread of its own while the caller's thread
//! checks for signals: Ctrl-C raises KeyboardInterrupt at once and stops
//! the model at its next check ([`interruptible`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mglru_sweep::exec::run_config_until;
use mglru_sweep::{expand, replicate_row, row, seeded, seeds, sweep_replicates, Failure, Input, Source, SweepSpec};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde::Deserialize;
use serde_json::{json, Value};

/// Where the operations come from: a trace path (`-` is refused here:
/// Python has no terminal stdin to give), a workload spec, or neither (the
/// built-in workload).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SourceSpec {
    #[serde(default)]
    trace: Option<String>,
    #[serde(default)]
    workload: Option<String>,
}

fn to_py(f: Failure) -> PyErr {
    match f.code {
        1 => PyValueError::new_err(f.msg),
        2 => PyOSError::new_err(f.msg),
        _ => PyRuntimeError::new_err(f.msg),
    }
}

fn parse<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> Result<T, Failure> {
    serde_json::from_str(text).map_err(|e| Failure::input(format!("{what}: {e}")))
}

/// The source, and its input as the replicate with `seed` reads it
/// (mglru_sweep::replicate's seed rule).
fn decode(source: &str, seed: u64) -> Result<(Source, Input), Failure> {
    let s: SourceSpec = parse("source", source)?;
    if s.trace.as_deref() == Some("-") {
        return Err(Failure::input("trace=\"-\" (standard input) is for the command line; pass a path"));
    }
    let src = Source::new(s.trace.as_deref(), s.workload.as_deref())?;
    let mut reader = seeded(&src, seed)?.open()?;
    let input = Input::decode(&mut reader, &|_| {})?;
    Ok((src, input))
}

/// One configuration: the report (the `mglru run --json` document), the
/// derived figures, the configuration echo and, if `sample_ms` is given,
/// a time series.
fn run_impl(source: &str, spec: &str, sample_ms: Option<u64>, check: bool, stop: &AtomicBool) -> Result<String, Failure> {
    if sample_ms == Some(0) {
        return Err(Failure::input("timeseries_ms=0: the sampling interval in simulated milliseconds is at least 1 (None: no time series)"));
    }
    let spec: SweepSpec = parse("options", spec)?;
    let seed = match seeds(spec.seed.as_deref(), spec.replicates)?.as_slice() {
        [s] => *s,
        more => return Err(Failure::input(format!("run takes one seed, these give {}: use mglru.sweep(..., replicates=N)", more.len()))),
    };
    let (src, input) = decode(source, seed)?;
    let mut configs = expand(&spec, &input)?;
    if let Some(c) = configs.first_mut() {
        c.opts.seed = seed;
    }
    if configs.len() != 1 {
        return Err(Failure::input(format!(
            "run takes one value per option, these give {} configurations: use mglru.sweep()",
            configs.len()
        )));
    }
    let cfg = &configs[0];
    let Some(o) = run_config_until(&input, cfg, check, Some(sample_ms.unwrap_or(100)), &|_| {}, stop)? else {
        return Err(Failure::input("interrupted"));
    };
    let mut setup = mglru_sweep::Setup::default();
    for op in &input.ops {
        setup.observe(op);
    }
    let names = |m: u16| mglru_core::report::Names::memcg(&input, m);
    let series = o.series.as_ref().map(|s| json!({"columns": s.columns, "rows": s.rows}));
    let doc = json!({
        "report": mglru_core::json::report_value(&o.report),
        "figures": o.figures,
        "whole_run_figures": o.whole,
        "warmup_end": o.warmup_end.map(|(s, n)| json!({"seconds": s, "accesses": n})),
        "configuration": setup.describe(&cfg.opts, &cfg.memcg_limits, &names, o.report.policy, &src.describe()),
        "series": if sample_ms.is_some() { series.unwrap_or(Value::Null) } else { Value::Null },
    });
    serde_json::to_string(&doc).map_err(|e| Failure::io(e.to_string()))
}

/// A grid: the rows (as `mglru sweep --json` writes them), each with its
/// index in the grid (`config`) and, with seeds or replicates, its
/// `replicate` and `seed`. `only` restricts the run to some runs by their
/// flat index, replicate-major (how the Ray backend splits a grid);
/// `threads` 0 = one per core.
fn sweep_impl(source: &str, spec: &str, threads: usize, only: Option<Vec<usize>>, stop: &AtomicBool) -> Result<String, Failure> {
    let spec: SweepSpec = parse("grid", spec)?;
    let seed_list = seeds(spec.seed.as_deref(), spec.replicates)?;
    let replicated = spec.seed.is_some() || spec.replicates.is_some();
    let (src, input) = decode(source, seed_list[0])?;
    let n = expand(&spec, &input)?.len();
    if let Some(bad) = only.as_ref().and_then(|v| v.iter().find(|&&i| i >= n * seed_list.len()).copied()) {
        return Err(Failure::input(format!("run index {bad} is past the grid's {} runs", n * seed_list.len())));
    }
    let reps = sweep_replicates(&src, input, &spec, &seed_list, only.as_deref(), threads, false, &|_| {}, stop, &|_, _| {})?;
    if stop.load(Ordering::Relaxed) {
        return Err(Failure::input("interrupted"));
    }
    let mut rows = Vec::new();
    for (r, rep) in reps.iter().enumerate() {
        for (i, (c, o)) in rep.configs.iter().zip(&rep.outcomes).enumerate() {
            let Some(o) = o else { continue };
            let mut m = serde_json::Map::new();
            m.insert("config".into(), Value::from(i));
            m.extend(if replicated { replicate_row(c, o, r) } else { row(c, o) });
            rows.push(Value::Object(m));
        }
    }
    let axes: Vec<&str> = reps.first().and_then(|r| r.configs.first()).map(|c| c.labels.iter().map(|(a, _)| a.as_str()).collect()).unwrap_or_default();
    serde_json::to_string(&json!({"schema_version": 1, "axes": axes, "size": n, "seeds": seed_list, "rows": rows})).map_err(|e| Failure::io(e.to_string()))
}

/// The number of runs a grid has: configurations × seeds (decodes the
/// input to resolve memcg names).
fn grid_size_impl(source: &str, spec: &str) -> Result<usize, Failure> {
    let spec: SweepSpec = parse("grid", spec)?;
    let seed_list = seeds(spec.seed.as_deref(), spec.replicates)?;
    let (_, input) = decode(source, seed_list[0])?;
    Ok(expand(&spec, &input)?.len() * seed_list.len())
}

fn lines_text(lines: mglru_workload::Lines) -> Result<String, Failure> {
    let mut out = String::new();
    for l in lines {
        out.push_str(&l.map_err(Failure::input)?);
        out.push('\n');
    }
    Ok(out)
}

/// How often the caller's thread looks for a signal while the model runs.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Run `work` on a thread of its own, the GIL released, and look for
/// signals every SIGNAL_CHECK: on one (Ctrl-C), raise its exception
/// (KeyboardInterrupt) at once and set the flag `work` checks, so that it
/// gives up at its next check (every mglru_sweep::exec::TICK_OPS
/// operations) and its thread ends by itself.
fn interruptible<T: Send + 'static>(py: Python<'_>, work: impl FnOnce(&AtomicBool) -> Result<T, Failure> + Send + 'static) -> PyResult<T> {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let flag = Arc::clone(&stop);
    std::thread::Builder::new()
        .name("mglru-model".into())
        .spawn(move || {
            let _ = tx.send(work(&flag));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("starting the model's thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes into the GIL-free closure and comes back.
        let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_CHECK), rx));
        rx = back;
        match got {
            Ok(r) => return r.map_err(to_py),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("internal error: the model's thread ended without a result"));
            }
        }
    }
}

#[pyfunction]
#[pyo3(signature = (source, options, sample_ms=None, check=false))]
fn run(py: Python<'_>, source: String, options: String, sample_ms: Option<u64>, check: bool) -> PyResult<String> {
    interruptible(py, move |stop| run_impl(&source, &options, sample_ms, check, stop))
}

#[pyfunction]
#[pyo3(signature = (source, grid, threads=0, only=None))]
fn sweep(py: Python<'_>, source: String, grid: String, threads: usize, only: Option<Vec<usize>>) -> PyResult<String> {
    interruptible(py, move |stop| sweep_impl(&source, &grid, threads, only, stop))
}

#[pyfunction]
fn grid_size(py: Python<'_>, source: String, grid: String) -> PyResult<usize> {
    py.detach(|| grid_size_impl(&source, &grid)).map_err(to_py)
}

/// The workload generators: (name, description).
#[pyfunction]
fn workload_names() -> Vec<(String, String)> {
    mglru_workload::workload_names().iter().map(|(n, d)| (n.to_string(), d.to_string())).collect()
}

/// A generator's trace as text (what `mglru workload SPEC --emit-trace -` prints).
#[pyfunction]
fn workload_trace(py: Python<'_>, spec: String) -> PyResult<String> {
    py.detach(|| {
        let lines = mglru_workload::workload(&spec)
            .map_err(|e| Failure::input(format!("workload {spec}: {e}{}", mglru_sweep::input::fio_hint(&spec))))?;
        lines_text(lines)
    })
    .map_err(to_py)
}

/// An importer's trace as text (`mglru import FORMAT PATH --emit-trace -`).
#[pyfunction]
fn import_trace(py: Python<'_>, format: String, path: String) -> PyResult<String> {
    py.detach(|| {
        let lines = mglru_workload::import(&format, std::path::Path::new(&path), &mglru_workload::ImportOptions::default())
            .map_err(|e| Failure::input(format!("import {format} {path}: {e}")))?;
        lines_text(lines)
    })
    .map_err(to_py)
}

/// The two-sided 95 % quantile of Student's t for `dof` degrees of freedom
/// (the replicates' intervals, mglru_sweep::stats).
#[pyfunction]
fn t95(dof: usize) -> PyResult<f64> {
    if dof == 0 {
        return Err(PyValueError::new_err("t95: dof must be at least 1 (two replicates or more)"));
    }
    Ok(mglru_sweep::stats::t95(dof))
}

/// The built-in workload as trace text.
#[pyfunction]
fn default_trace() -> String {
    mglru_sweep::default_workload::default_trace()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(grid_size, m)?)?;
    m.add_function(wrap_pyfunction!(workload_names, m)?)?;
    m.add_function(wrap_pyfunction!(workload_trace, m)?)?;
    m.add_function(wrap_pyfunction!(import_trace, m)?)?;
    m.add_function(wrap_pyfunction!(default_trace, m)?)?;
    m.add_function(wrap_pyfunction!(t95, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
