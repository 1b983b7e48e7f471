// SPDX-License-Identifier: GPL-2.0-only
//! `mglru sweep`: one input, a grid of configurations, all cores.
//!
//! The input is decoded once (mglru-sweep's `Input`), the grid expanded
//! from the flags, and the configurations run on a rayon pool; rows come
//! back in grid order whatever the thread count, so the table, the CSV and
//! the JSON are the same with `--jobs 1` and `--jobs 32`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::Args;
use mglru_sweep::figures::thousands;
use mglru_sweep::stats::CI_SUFFIX;
use mglru_sweep::{expand, replicate_row, row, seeded, seeds, summarize, sweep_replicates, Failure, Input, Source, SweepSpec};
use signal_hook::consts::{SIGINT, SIGTERM};
use serde_json::{Map, Value};

use crate::output::{self, Output};
use crate::plot;
use crate::progress::Progress;

/// Options of `mglru sweep`. Every axis takes a comma-separated list or a
/// range A..B/N (N values from A to B, both included).
#[derive(Args, Debug)]
#[command(after_long_help = "\
The grid is the product of every axis given; memory varies fastest, so the rows of one policy form
a curve over memory. The input is decoded or generated once and shared by all configurations;
results do not depend on --jobs. Rows carry the axis values, derived figures (docs/CLI.md) and the
key /proc/vmstat counters.

--seed and --replicates are not axes: every configuration runs under each seed, and the table shows
mean ± 95 % interval (docs/SWEEP.md \"Replicates\").

Examples:
    mglru sweep --workload 'fio:--name=j --rw=randread --size=1G --buffered=1' \\
        --memory 256M..2G/8 --policy classic,mglru --csv out.csv --plot plots/
    mglru sweep --workload 'fio:--name=j --rw=randread --size=1G --buffered=1' \\
        --memory 256M..2G/8 --replicates 5 --warmup 2Maccesses")]
pub struct SweepArgs {
    /// The trace (`-` = standard input); none = the built-in workload
    #[arg(value_name = "TRACE")]
    trace: Option<String>,
    /// A generated workload instead of TRACE (`mglru workload` lists them)
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    workload: Option<String>,
    /// RAM sizes, e.g. 256M..4G/8 or 512M,1G,2G
    #[arg(long, value_name = "SIZES")]
    memory: Option<String>,
    /// Swap sizes, e.g. 0,1G
    #[arg(long, value_name = "SIZES")]
    swap: Option<String>,
    /// Policies: classic, mglru or classic,mglru
    #[arg(long, value_name = "POLICIES")]
    policy: Option<String>,
    /// MGLRU variants on top of the kernel version, e.g. plain,reclaim-loop (docs/VARIANTS.md)
    #[arg(long, value_name = "NAMES", long_help = crate::variant_help())]
    variant: Option<String>,
    /// Kernel versions, e.g. 6.12,7.2 (docs/KERNELS.md; default 6.12)
    #[arg(long, value_name = "VERSIONS")]
    kernel: Option<String>,
    /// A sysctl axis (repeatable), e.g. vm.swappiness=0,60,200 or vm.swappiness=0..200/5
    #[arg(long, value_name = "NAME=VALUES")]
    sysctl: Vec<String>,
    /// A memcg limit axis (repeatable): MEMCG.KNOB=SIZES with KNOB max, high, low, min or
    /// swap.max, e.g. app.max=64M..512M/8; replaces the limit of the memcg's definition
    #[arg(long, value_name = "MEMCG.KNOB=SIZES")]
    memcg: Vec<String>,
    /// Seeds of the replicates, e.g. 0,1,2: every configuration runs under each (the model's
    /// random choices, and a generated workload's seed=N becomes seed=N+SEED; docs/SWEEP.md
    /// "Replicates"); the table shows mean ± 95 % interval, the CSV and JSON every replicate
    #[arg(long, value_name = "SEEDS")]
    seed: Option<String>,
    /// Run every configuration under N seeds (from --seed, default 0, on): the table shows
    /// mean ± the 95 % interval (Student's t), the CSV and JSON carry every replicate
    #[arg(long, value_name = "N")]
    replicates: Option<u64>,
    /// CPU counts of the machine, e.g. 1,2,4 (each CPU has its own folio batches and charge stock)
    #[arg(long, value_name = "COUNTS")]
    cpus: Option<String>,
    /// How kswapd runs, e.g. instant,thread (docs/FIDELITY.md simplification 2)
    #[arg(long, value_name = "MODES")]
    kswapd: Option<String>,
    /// Grouping pages by mobility, e.g. off,on (docs/FIDELITY.md simplification 3)
    #[arg(long, value_name = "SETTINGS")]
    migratetypes: Option<String>,
    /// How tasks are scheduled, e.g. serial,parallel (docs/TRACE_FORMAT.md "Scheduling")
    #[arg(long, value_name = "SCHEDULES")]
    schedule: Option<String>,
    /// A cost-model value in simulated ns, the same for every configuration (repeatable)
    #[arg(long, value_name = "NAME=NS")]
    cost: Vec<String>,
    /// Leave the start of every run out of the figures: TIME of simulated time (30s), N% of
    /// the input's page accesses (20%) or N page accesses (2Maccesses); rows then carry the
    /// whole run's figures as whole_run_* (docs/SWEEP.md "Steady state")
    #[arg(long, value_name = "TIME|N%|Naccesses")]
    warmup: Option<String>,
    /// Threads to run configurations on (default: one per core)
    #[arg(long, short, value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Write the rows as CSV (`-` = standard output)
    #[arg(long, value_name = "PATH")]
    csv: Option<String>,
    /// Write the rows as JSON (`-` = standard output)
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Write plots (PNG and SVG) into DIR: miss ratio and refaults against memory per series,
    /// and a heatmap when two axes vary
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Verify the model's accounting invariants at the end of every configuration
    #[arg(long)]
    check: bool,
    /// No table on standard output
    #[arg(long, short)]
    quiet: bool,
    /// No progress bar (it shows only on a terminal, after one second)
    #[arg(long)]
    no_progress: bool,
}

/// The columns of the table, after the axes: (row key, heading).
const TABLE: [(&str, &str); 10] = [
    ("hit_ratio", "hit %"),
    ("miss_ratio", "miss %"),
    ("cold_miss_ratio", "cold %"),
    ("misses", "misses"),
    ("refaults_per_1k_accesses", "refaults/1k"),
    ("swap_io_mib", "swap MiB"),
    ("oom_kills", "OOM"),
    ("pages_scanned", "scanned"),
    ("memory_stall_share", "stall %"),
    ("simulated_seconds", "sim s"),
];

/// Ratios the table shows in percent.
const PERCENT: [&str; 4] = ["hit_ratio", "miss_ratio", "cold_miss_ratio", "memory_stall_share"];

fn cell(v: &Value, key: &str) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if PERCENT.contains(&key) => format!("{:.1}", n.as_f64().unwrap_or(0.0) * 100.0),
        Value::Number(n) if n.is_u64() => thousands(n.as_u64().unwrap_or(0)),
        Value::Number(n) => format!("{:.2}", n.as_f64().unwrap_or(0.0)),
        other => other.to_string(),
    }
}

/// Counts the table shows as whole numbers (a mean over replicates too).
const COUNTS: [&str; 3] = ["misses", "oom_kills", "pages_scanned"];

/// A cell of a summary row (stats::summarize): the mean ± the half width
/// of its 95 % interval, in the column's unit.
fn cell_spread(r: &Map<String, Value>, key: &str) -> Option<String> {
    let m = r.get(key)?.as_f64()?;
    let h = r.get(&format!("{key}{CI_SUFFIX}")).and_then(Value::as_f64).unwrap_or(0.0);
    Some(if PERCENT.contains(&key) {
        format!("{:.1} ± {:.1}", m * 100.0, h * 100.0)
    } else if COUNTS.contains(&key) {
        format!("{} ± {}", thousands(m.round() as u64), thousands(h.round() as u64))
    } else {
        format!("{m:.2} ± {h:.2}")
    })
}

/// The rows as a table a person reads: axes, then the figures. Summary
/// rows of replicates (with `replicates`) show mean ± 95 % interval.
pub fn table(axes: &[String], rows: &[Map<String, Value>]) -> String {
    let mut cols: Vec<(String, String)> = axes.iter().map(|a| (a.clone(), a.clone())).collect();
    cols.extend(TABLE.iter().map(|(k, h)| (k.to_string(), h.to_string())));
    let one = |r: &Map<String, Value>, k: &str| {
        if r.contains_key("replicates") && !axes.iter().any(|a| a == k) {
            cell_spread(r, k).unwrap_or_default()
        } else {
            r.get(k).map(|v| cell(v, k)).unwrap_or_default()
        }
    };
    let cells: Vec<Vec<String>> = rows.iter().map(|r| cols.iter().map(|(k, _)| one(r, k)).collect()).collect();
    let widths: Vec<usize> = cols.iter().enumerate().map(|(i, (_, h))| cells.iter().map(|c| c[i].chars().count()).chain([h.len()]).max().unwrap_or(0)).collect();
    let mut o = String::new();
    for (i, (_, h)) in cols.iter().enumerate() {
        let _ = write!(o, "{}{h:>w$}", if i > 0 { "  " } else { "" }, w = widths[i]);
    }
    o.push('\n');
    for c in &cells {
        for (i, v) in c.iter().enumerate() {
            let _ = write!(o, "{}{v:>w$}", if i > 0 { "  " } else { "" }, w = widths[i]);
        }
        o.push('\n');
    }
    o
}

/// The rows as CSV (csv crate): the first row's keys are the header.
pub fn csv_text(rows: &[Map<String, Value>]) -> Result<Vec<u8>, Failure> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Failure::io(format!("--csv: {e}"));
    if let Some(first) = rows.first() {
        w.write_record(first.keys()).map_err(err)?;
    }
    for r in rows {
        w.write_record(r.values().map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }))
        .map_err(err)?;
    }
    w.into_inner().map_err(|e| Failure::io(format!("--csv: {e}")))
}

pub fn cmd_sweep(a: SweepArgs) -> Result<(), Failure> {
    let source = Source::new(a.trace.as_deref(), a.workload.as_deref())?;
    let spec = SweepSpec {
        policy: a.policy.clone(),
        variant: a.variant.clone(),
        kernel: a.kernel.clone(),
        swap: a.swap.clone(),
        sysctl: a.sysctl.clone(),
        memcg: a.memcg.clone(),
        seed: a.seed.clone(),
        replicates: a.replicates,
        cpus: a.cpus.clone(),
        kswapd: a.kswapd.clone(),
        migratetypes: a.migratetypes.clone(),
        schedule: a.schedule.clone(),
        memory: a.memory.clone(),
        cost: a.cost.clone(),
        warmup: a.warmup.clone(),
    };
    output::one_stdout(&[("--csv", a.csv.as_deref()), ("--json", a.json.as_deref())])?;
    let csv = a.csv.as_deref().map(|p| Output::open("--csv", p)).transpose()?;
    let json = a.json.as_deref().map(|p| Output::open("--json", p)).transpose()?;
    output::distinct(&csv.iter().chain(json.iter()).collect::<Vec<_>>(), &crate::run::inputs_of(&source, None))?;
    if let Some(d) = &a.plot {
        plot::prepare_dir(d)?;
    }
    let stdout_taken = csv.as_ref().is_some_and(|o| o.is_stdout()) || json.as_ref().is_some_and(|o| o.is_stdout());

    // Decode once (per seed, for a generated workload); every
    // configuration reads this vector.
    let seed_list = seeds(spec.seed.as_deref(), spec.replicates)?;
    let replicated = spec.seed.is_some() || spec.replicates.is_some();
    let mut reader = seeded(&source, seed_list[0])?.open()?;
    let decode_bar = Progress::new(!a.no_progress, reader.total_bytes());
    let input = Input::decode(&mut reader, &|b| decode_bar.set(b, 0))?;
    decode_bar.finish();
    drop(reader);
    if input.access_ops() == 0 {
        eprintln!("mglru: warning: {} has no page accesses (read, write, load, store): the counters show the setup only", input.name);
    }
    let configs = expand(&spec, &input)?;
    if a.plot.is_some() {
        plot::check(&configs)?;
    }
    // SIGINT and SIGTERM stop the sweep: the configurations running give
    // up, and the finished ones are written as usual (signal-hook sets the
    // flags; nothing else runs in the handler).
    let stop = Arc::new(AtomicBool::new(false));
    let term = Arc::new(AtomicBool::new(false));
    for (sig, flag) in [(SIGINT, &stop), (SIGTERM, &stop), (SIGTERM, &term)] {
        signal_hook::flag::register(sig, Arc::clone(flag)).map_err(|e| Failure::io(format!("installing the signal handlers: {e}")))?;
    }
    // The bar's total counts the first seed's input for every replicate.
    let bar = Progress::new(!a.no_progress, Some(input.ops.len() as u64 * configs.len() as u64 * seed_list.len() as u64));
    let n_configs = configs.len();
    let reps = sweep_replicates(&source, input, &spec, &seed_list, None, a.jobs, a.check, &|n| bar.inc(n), &stop, &|_, _| {})?;
    bar.finish();
    let total = n_configs * seed_list.len();
    // Every replicate's rows, configuration by configuration.
    let mut rows: Vec<Map<String, Value>> = Vec::new();
    let mut summary: Vec<Map<String, Value>> = Vec::new();
    let mut configs = Vec::new();
    for c in 0..n_configs {
        let mine: Vec<Map<String, Value>> = reps
            .iter()
            .enumerate()
            .filter_map(|(r, rep)| rep.outcomes[c].as_ref().map(|o| if replicated { replicate_row(&rep.configs[c], o, r) } else { row(&rep.configs[c], o) }))
            .collect();
        if mine.is_empty() {
            continue;
        }
        configs.push(reps[0].configs[c].clone());
        summary.push(summarize(&mine.iter().collect::<Vec<_>>()));
        rows.extend(mine);
    }
    let finished = rows.len();
    let interrupted = (finished < total).then(|| if term.load(Ordering::Relaxed) { ("SIGTERM", 143) } else { ("SIGINT", 130) });
    // Replicates that all came out the same: the input has nothing the
    // seed varies (a trace file without memcgs, say).
    let identical = seed_list.len() > 1
        && summary.iter().all(|s| s.iter().filter(|(k, _)| k.ends_with(CI_SUFFIX)).all(|(_, v)| v.as_f64() == Some(0.0)));
    let shown: &[Map<String, Value>] = if seed_list.len() > 1 { &summary } else { &rows };
    let axes: Vec<String> = configs.first().map(|c| c.labels.iter().map(|(a, _)| a.clone()).collect()).unwrap_or_default();
    if !a.quiet && !stdout_taken {
        let mut text = format!("sweep of {} over {} configuration{}\n", source.describe(), n_configs, if n_configs == 1 { "" } else { "s" });
        if seed_list.len() > 1 {
            let _ = writeln!(
                text,
                "{} replicates of each (seeds {}): mean ± 95 % interval (Student's t); the CSV and JSON have every replicate",
                seed_list.len(),
                seed_list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
            );
        }
        if interrupted.is_some() {
            let _ = writeln!(text, "interrupted: the {finished} finished run{} only", if finished == 1 { "" } else { "s" });
        }
        if let Some((w, _)) = configs.first().and_then(|c| c.warmup) {
            let _ = writeln!(text, "figures after the warm-up ({}); the CSV and JSON have the whole run's as whole_run_*", w.describe());
        }
        text.push_str("miss % leaves out cold misses (first touches, cold %): docs/SWEEP.md \"Misses\"\n\n");
        text.push_str(&table(&axes, shown));
        output::print(&text)?;
    }
    if identical {
        eprintln!("mglru: note: the {} replicates came out identical: the input has nothing the seed varies (only a generated workload's stream and the model's memcg LRU bins take it; docs/SWEEP.md \"Replicates\")", seed_list.len());
    }
    if let Some(o) = csv {
        o.write(&csv_text(&rows)?)?;
    }
    if let Some(o) = json {
        let mut doc = serde_json::json!({
            "schema_version": 1,
            "input": source.describe(),
            "axes": axes,
            "rows": rows,
        });
        if seed_list.len() > 1 {
            // Per configuration: each figure's mean and `NAME_ci95`.
            doc["seeds"] = Value::from(seed_list.clone());
            doc["summary"] = Value::from(summary.clone());
        }
        let mut t = serde_json::to_string_pretty(&doc).map_err(|e| Failure::io(e.to_string()))?;
        t.push('\n');
        o.write(t.as_bytes())?;
    }
    if let Some(d) = &a.plot {
        if rows.is_empty() {
            eprintln!("mglru: no configuration finished: no plots");
        } else {
            // Under each title: the input, and what every row shares.
            let fixed: Vec<String> = axes
                .iter()
                .enumerate()
                .filter(|(i, _)| configs.iter().all(|c| c.labels[*i].1 == configs[0].labels[*i].1))
                .map(|(i, a)| format!("{a}={}", configs[0].labels[i].1))
                .collect();
            let kernel = if axes.iter().any(|a| a == "kernel") { String::new() } else { format!("; Linux {} model", configs[0].opts.kernel.name()) };
            let mut subtitle = format!("{}{kernel}", source.describe());
            if !fixed.is_empty() {
                subtitle.push_str(&format!("; {}", fixed.join(" ")));
            }
            if let Some((w, _)) = configs[0].warmup {
                subtitle.push_str(&format!("; after a warm-up of {}", w.text()));
            }
            if seed_list.len() > 1 {
                subtitle = format!("mean of {} replicates (on the curves, bars: 95 % interval; a heatmap shows the means); {subtitle}", seed_list.len());
            }
            if subtitle.chars().count() > 150 {
                subtitle = subtitle.chars().take(147).collect::<String>() + "...";
            }
            let written = plot::plots(d, &configs, shown, &subtitle)?;
            eprintln!("mglru: wrote {} plot file{} to {}", written.len(), if written.len() == 1 { "" } else { "s" }, d.display());
        }
    }
    if let Some((sig, code)) = interrupted {
        let outputs: Vec<&str> = [a.csv.as_deref(), a.json.as_deref()].into_iter().flatten().filter(|p| *p != "-").collect();
        let to = if outputs.is_empty() { String::new() } else { format!("; their rows are in {}", outputs.join(" and ")) };
        let what = if seed_list.len() > 1 { "runs (configurations × replicates)" } else { "configurations" };
        return Err(Failure { msg: format!("interrupted ({sig}) after {finished} of {total} {what}{to}"), code });
    }
    Ok(())
}
