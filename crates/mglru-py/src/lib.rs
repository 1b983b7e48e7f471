// SPDX-License-Identifier: GPL-2.0-only
//! `mglru._native`: the Rust side of the Python package.
//!
//! A deliberately narrow seam: every function takes and returns plain
//! strings (JSON for structured values), and the Python layer
//! (python/mglru/__init__.py) turns them into pandas objects. The model
//! runs with the GIL released, so Python threads and Ray workers do not
//! wait on each other.

use mglru_sweep::{expand, row, run_config, sweep as run_sweep, Failure, Input, Source, SweepSpec};
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

fn decode(source: &str) -> Result<(Source, Input), Failure> {
    let s: SourceSpec = parse("source", source)?;
    if s.trace.as_deref() == Some("-") {
        return Err(Failure::input("trace=\"-\" (standard input) is for the command line; pass a path"));
    }
    let src = Source::new(s.trace.as_deref(), s.workload.as_deref())?;
    let mut reader = src.open()?;
    let input = Input::decode(&mut reader, &|_| {})?;
    Ok((src, input))
}

/// One configuration: the report (the `mglru run --json` document), the
/// derived figures, the configuration echo and, if `sample_ms` is given,
/// a time series.
fn run_impl(source: &str, spec: &str, sample_ms: Option<u64>, check: bool) -> Result<String, Failure> {
    let spec: SweepSpec = parse("options", spec)?;
    let (src, input) = decode(source)?;
    let configs = expand(&spec, &input)?;
    if configs.len() != 1 {
        return Err(Failure::input(format!(
            "run takes one value per option, these give {} configurations: use mglru.sweep()",
            configs.len()
        )));
    }
    let cfg = &configs[0];
    let o = run_config(&input, cfg, check, Some(sample_ms.unwrap_or(100).max(1)), &|_| {})?;
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
/// index in the grid. `only` restricts the run to some indices (how the
/// Ray backend splits a grid); `threads` 0 = one per core.
fn sweep_impl(source: &str, spec: &str, threads: usize, only: Option<Vec<usize>>) -> Result<String, Failure> {
    let spec: SweepSpec = parse("grid", spec)?;
    let (_, input) = decode(source)?;
    let configs = expand(&spec, &input)?;
    let picked: Vec<usize> = match only {
        Some(v) => {
            if let Some(bad) = v.iter().find(|&&i| i >= configs.len()) {
                return Err(Failure::input(format!("configuration index {bad} is past the grid's {}", configs.len())));
            }
            v
        }
        None => (0..configs.len()).collect(),
    };
    let subset: Vec<_> = picked.iter().map(|&i| configs[i].clone()).collect();
    let outcomes = run_sweep(&input, &subset, threads, false, &|_| {})?;
    let rows: Vec<Value> = picked
        .iter()
        .zip(subset.iter().zip(&outcomes))
        .map(|(&i, (c, o))| {
            let mut r = serde_json::Map::new();
            r.insert("config".into(), Value::from(i));
            r.extend(row(c, o));
            Value::Object(r)
        })
        .collect();
    let axes: Vec<&str> = configs.first().map(|c| c.labels.iter().map(|(a, _)| a.as_str()).collect()).unwrap_or_default();
    serde_json::to_string(&json!({"schema_version": 1, "axes": axes, "size": configs.len(), "rows": rows})).map_err(|e| Failure::io(e.to_string()))
}

/// The number of configurations a grid has (decodes the input to resolve
/// memcg names).
fn grid_size_impl(source: &str, spec: &str) -> Result<usize, Failure> {
    let spec: SweepSpec = parse("grid", spec)?;
    let (_, input) = decode(source)?;
    Ok(expand(&spec, &input)?.len())
}

fn lines_text(lines: mglru_workload::Lines) -> Result<String, Failure> {
    let mut out = String::new();
    for l in lines {
        out.push_str(&l.map_err(Failure::input)?);
        out.push('\n');
    }
    Ok(out)
}

#[pyfunction]
#[pyo3(signature = (source, options, sample_ms=None, check=false))]
fn run(py: Python<'_>, source: String, options: String, sample_ms: Option<u64>, check: bool) -> PyResult<String> {
    py.detach(|| run_impl(&source, &options, sample_ms, check)).map_err(to_py)
}

#[pyfunction]
#[pyo3(signature = (source, grid, threads=0, only=None))]
fn sweep(py: Python<'_>, source: String, grid: String, threads: usize, only: Option<Vec<usize>>) -> PyResult<String> {
    py.detach(|| sweep_impl(&source, &grid, threads, only)).map_err(to_py)
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
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
