// SPDX-License-Identifier: GPL-2.0-only
//! `mglru`: replay page-access traces on a model of Linux 6.12 reclaim.
//!
//! The command line is declared with clap (derive): every subcommand has
//! its own `--help`/`-h`, mistyped options get a suggestion, and the same
//! declaration gives the shell completions (`mglru completions SHELL`) and
//! the man page (`mglru man`). The work itself lives in `run.rs`
//! (run, compare), `validate.rs`/`timeline.rs` (validate) and the
//! mglru-sweep crate.

mod output;
mod plot;
mod progress;
mod run;
mod spread;
mod sweep;
mod timeline;
mod timeseries;
mod validate;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use mglru_sweep::{Failure, Source};
use mglru_trace::TraceReader;

use output::Output;

const AFTER_HELP: &str = "\
TRACE is trace format v1 text (docs/TRACE_FORMAT.md), optionally gzip- or zstd-compressed, or the
binary form written by `mglru trace convert`; `-` reads standard input. Every output option takes
`-` for standard output. Units: /proc/vmstat names and units (pages, pgpgin/pgpgout in KiB);
memory.stat byte fields in bytes.

Exit status: 0 on success, 1 when the trace or an option is invalid, 2 on I/O errors, 3 when
--check finds a broken accounting invariant, 4 when `validate --check` fails; a sweep stopped by
SIGINT or SIGTERM writes its finished rows and exits 130 or 143.

Documents: docs/CLI.md (this manual and the JSON report's schema), docs/TRACE_FORMAT.md,
docs/WORKLOADS.md, docs/VARIANTS.md, docs/FIDELITY.md.";

#[derive(Parser)]
#[command(
    name = "mglru",
    version,
    about = "A model of Linux memory reclaim (classic LRU and multi-gen LRU) of 6.12, 6.1 and 7.2 (--kernel)",
    long_about = "A model of Linux memory reclaim (classic LRU and multi-gen LRU) of 6.12, the default, 6.1 and 7.2 (--kernel; mglru kernels lists what differs).\n\n\
        Replays a page-access trace, a generated workload or the built-in workload on a \
        deterministic model of the kernel's page reclaim and reports what the kernel would: \
        /proc/vmstat, each memcg's memory.stat, memory.current, memory.peak, memory.events.",
    after_long_help = AFTER_HELP,
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay TRACE (or the built-in workload) and report the counters
    Run(RunArgs),
    /// Run both policies on the same input: one table (or --json with both)
    Compare(RunArgs),
    /// Run one input under a grid of configurations on all cores: table, CSV, JSON, plots
    Sweep(sweep::SweepArgs),
    /// Hold the model against the real-kernel results (docs/FIDELITY.md)
    Validate(ValidateArgs),
    /// List the workload generators, or write one's trace (docs/WORKLOADS.md)
    Workload(WorkloadArgs),
    /// Convert fio-iolog, blkparse, strace, lackey, oracle-general or cachesim-csv input to trace v1
    Import(ImportArgs),
    /// Trace tools
    #[command(subcommand)]
    Trace(TraceCmd),
    /// Print the built-in workload as trace v1 text
    DefaultTrace,
    /// List the kernel versions, variants and their behaviour differences (docs/KERNELS.md)
    Kernels {
        /// Print the Markdown table docs/KERNELS.md holds
        #[arg(long)]
        markdown: bool,
    },
    /// Print a shell completion script (e.g. `mglru completions bash > /etc/bash_completion.d/mglru`)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff; `mglru man | man -l -`)
    Man,
}

/// `--kswapd`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
enum KswapdArg {
    /// balance_pgdat runs to completion when kswapd is woken, taking no simulated time
    #[default]
    Instant,
    /// kswapd is a thread in simulated time: it reclaims batch by batch beside the tasks,
    /// sleeps short and long, and direct reclaim happens when it falls behind
    Thread,
}

impl From<KswapdArg> for mglru_core::kswapd::KswapdMode {
    fn from(a: KswapdArg) -> Self {
        match a {
            KswapdArg::Instant => mglru_core::kswapd::KswapdMode::Instant,
            KswapdArg::Thread => mglru_core::kswapd::KswapdMode::Thread,
        }
    }
}

/// `--schedule`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
enum ScheduleArg {
    /// One operation at a time, in trace order (as the reference suite was measured)
    #[default]
    Serial,
    /// Tasks side by side on their CPUs: an operation starts when its task and its CPU are
    /// free, but not before the line above it started; lines without a task are barriers
    Parallel,
}

impl From<ScheduleArg> for mglru_core::sched::Schedule {
    fn from(a: ScheduleArg) -> Self {
        match a {
            ScheduleArg::Serial => mglru_core::sched::Schedule::Serial,
            ScheduleArg::Parallel => mglru_core::sched::Schedule::Parallel,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
enum PolicyArg {
    Classic,
    Mglru,
}

/// The options of `run` and `compare`.
#[derive(Args, Debug)]
#[command(after_long_help = AFTER_HELP)]
struct RunArgs {
    /// The trace to replay (`-` = standard input); none = the built-in workload
    #[arg(value_name = "TRACE")]
    trace: Option<String>,
    /// Run a generated workload instead of TRACE, e.g. 'ebizzy:seq=16,loops=4' or
    /// 'fio:--name=j --rw=randread --size=1G --buffered=1;memory=512M' (`mglru workload` lists them)
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    workload: Option<String>,
    /// The LRU to run: classic or mglru (default: what the trace's `sysctl lru_gen.enabled`
    /// says, else mglru, as Debian's 6.12 kernel boots); `compare` runs both unless another
    /// axis is compared (`--policy A,B` sets their order)
    #[arg(long, value_name = "POLICY[,POLICY]", value_parser = policies_arg)]
    policy: Option<Values<PolicyArg>>,
    /// RAM size (overrides the trace's `memory`), e.g. 512M, 4G; less than 1T. The model
    /// takes about 32 bytes of host memory per 4 KiB page (530 MB for 64G). `compare
    /// --memory A,B` compares two sizes
    #[arg(long, value_name = "SIZE[,SIZE]", value_parser = sizes_arg)]
    memory: Option<Values<u64>>,
    /// Swap size (overrides the trace's `swap`; `compare --swap A,B` compares two)
    #[arg(long, value_name = "SIZE[,SIZE]", value_parser = sizes_arg)]
    swap: Option<Values<u64>>,
    /// Number of CPUs (overrides the trace's `cpus`; default 1): each has its own folio
    /// batches and charge stock, tasks are placed round-robin unless pinned with
    /// `task ID cpu=K` (docs/TRACE_FORMAT.md)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=mglru_trace::MAX_CPUS as i64))]
    cpus: Option<u32>,
    /// How kswapd runs: `instant` (default) or `thread` (docs/FIDELITY.md simplification 2)
    #[arg(long, value_enum, default_value_t = KswapdArg::Instant)]
    kswapd: KswapdArg,
    /// Group pages by mobility: page tables and brd's pages Unmovable, per-type per-CPU
    /// lists, fallbacks between pageblock types and the watermark boosts they cause
    /// (off by default: docs/FIDELITY.md simplification 3)
    #[arg(long)]
    migratetypes: bool,
    /// How tasks run: `serial` (default: one operation at a time in trace order) or
    /// `parallel` (tasks side by side on their CPUs; docs/TRACE_FORMAT.md "Scheduling");
    /// with --guest-clock, default: how that result was replayed
    #[arg(long, value_enum)]
    schedule: Option<ScheduleArg>,
    /// A sysctl applied after the trace's setup section (repeatable): vm.swappiness,
    /// vm.page-cluster, vm.min_free_kbytes, vm.watermark_scale_factor, vm.watermark_boost_factor, vm.dirty_ratio,
    /// vm.dirty_background_ratio, vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs,
    /// lru_gen.enabled, lru_gen.min_ttl_ms. `compare --sysctl NAME=A,B` compares two values
    #[arg(long, value_name = "NAME=VALUE[,VALUE]", value_parser = sysctl_arg)]
    sysctl: Vec<(mglru_trace::Sysctl, Values<u64>)>,
    /// A cost-model value in simulated ns (repeatable): op, op_sys, op_wait, task_switch,
    /// mem_access, page_copy, minor_fault, write_new, disk_read, disk_read_sys, disk_write,
    /// disk_write_delay, swap_read, swap_write, scan, rmap, pte, pageout, lruvec
    #[arg(long, value_name = "NAME=NS")]
    cost: Vec<String>,
    /// The seed: of the model's random choices, and a generated workload's seed=N becomes
    /// seed=N+SEED (0: the spec as written; docs/SWEEP.md "Replicates")
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Run N times, under seeds SEED, SEED+1, ...: the summary shows mean ± the 95 % interval
    /// (Student's t); `compare` judges each change by the spread of the replicates' changes;
    /// --json has every replicate
    #[arg(long, value_name = "N")]
    replicates: Option<u64>,
    /// Leave the start of the run out of the summary: TIME of simulated time (30s, 500ms),
    /// N% of the input's page accesses (20%) or N page accesses (2000000accesses, 2Maccesses).
    /// The summary is then the counters' change after it, the whole run's figures beside;
    /// the raw counters stay the whole run's (docs/SWEEP.md "Steady state")
    #[arg(long, value_name = "TIME|N%|Naccesses")]
    warmup: Option<String>,
    /// A change on top of the kernel version (`compare`: two, comma-separated, to compare
    /// them); docs/VARIANTS.md
    #[arg(long, value_name = "NAME[,NAME]", long_help = variant_help())]
    variant: Option<String>,
    /// The kernel version to model (`compare`: two, comma-separated, to compare them);
    /// docs/KERNELS.md
    #[arg(long, value_name = "VERSION[,VERSION]", long_help = kernel_help())]
    kernel: Option<String>,
    /// Also write the report as JSON to PATH (`-` = standard output, then no table);
    /// the schema is in docs/CLI.md
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Print every counter, not only the non-zero ones
    #[arg(long)]
    all: bool,
    /// Verify the model's accounting invariants at the end
    #[arg(long)]
    check: bool,
    /// Write a CSV time series every MS simulated ms (default 100): key vmstat counters,
    /// each memcg's usage, and MGLRU generation sizes (youngest first); `run` only
    #[arg(long, value_name = "PATH[:MS]")]
    timeseries: Option<String>,
    /// Make the simulated clock follow a real-kernel run's: RESULT is what
    /// validation/run-kernel.sh wrote for this trace (its time_profile); `run` only
    #[arg(long, value_name = "RESULT.json")]
    guest_clock: Option<PathBuf>,
    /// Start the machine as a real-kernel run's guest started: each zone's managed pages,
    /// watermarks, lowmem reserve, free and per-CPU pages from RESULT's start_zones (as
    /// `mglru validate` starts its global-pressure traces); instead of --memory; `run` only
    #[arg(long, value_name = "RESULT.json")]
    start_zones: Option<PathBuf>,
    /// Print /sys/kernel/debug/lru_gen at the end (a trace's `dump` statement prints it at
    /// that point, always); `run` only
    #[arg(long)]
    lru_gen_dump: bool,
    /// No table on standard output
    #[arg(long, short)]
    quiet: bool,
    /// No progress bar (it shows only on a terminal, after one second)
    #[arg(long)]
    no_progress: bool,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// The validation suite
    #[arg(long, value_name = "DIR", default_value = "validation")]
    suite: PathBuf,
    /// The folder of kernel results in DIR (default: `results` for 6.12, `results-6.1`,
    /// `results-7.2`; results-repeat is a second run of 6.12's)
    #[arg(long, value_name = "SUB")]
    results: Option<String>,
    /// The kernel version whose real-kernel results to hold the model against (default
    /// 6.12); the model follows the version each result was measured on
    #[arg(long, value_name = "VERSION", value_parser = kernel_arg)]
    kernel: Option<mglru_core::kernel::KernelVersion>,
    /// The change between two versions, A:B (e.g. 6.1:6.12, 6.12:7.2): per trace, policy and
    /// counter the real kernels' change (results-A -> results-B) beside the model's, and
    /// whether they agree (docs/FIDELITY.md "Other kernels")
    #[arg(long, value_name = "A:B")]
    delta: Option<String>,
    /// The gate of `--delta A:B --check` (default: DIR/delta-thresholds.json): per version
    /// pair the fewest agreeing changes per policy and the known OPPOSITE rows (docs/CLI.md)
    #[arg(long, value_name = "FILE")]
    delta_thresholds: Option<PathBuf>,
    /// How the model's kswapd runs: `instant` (default) or `thread`
    #[arg(long, value_enum, default_value_t = KswapdArg::Instant)]
    kswapd: KswapdArg,
    /// Group pages by mobility (page tables and brd's pages Unmovable,
    /// fallbacks, watermark boosting), the global-pressure traces' zones
    /// laid out as the guest's /proc/pagetypeinfo was at the start where
    /// the result recorded it (docs/FIDELITY.md simplification 3; not
    /// what the thresholds are set for)
    #[arg(long)]
    migratetypes: bool,
    /// Only this trace of the suite
    #[arg(long, value_name = "NAME")]
    trace: Option<String>,
    /// Also write the comparison as JSON (`-` = standard output)
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Enforce DIR/thresholds.json (exit status 4 when a counter is off); with --delta,
    /// DIR/delta-thresholds.json (exit status 4 on an unlisted OPPOSITE row or too few
    /// agreeing changes)
    #[arg(long)]
    check: bool,
    /// The model's clock follows the cost model alone, not the guest's time profile
    #[arg(long)]
    cost_model_clock: bool,
    /// Also show these vmstat counters (not checked), e.g. pgalloc_dma,pgscan_direct
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    extra: Vec<String>,
    /// The kernel's counters along the run (sampled every 100 ms by the replayer) beside the
    /// model's at the same trace lines, a row every MS ms (default 500); needs --trace
    #[arg(long, value_name = "default|NAME,...[:MS]")]
    timeline: Option<String>,
}

#[derive(Args, Debug)]
struct WorkloadArgs {
    /// The generator and its parameters, e.g. ebizzy:seq=16,loops=1 (none: list the generators)
    spec: Option<String>,
    /// Write the generated trace to FILE (`-` = standard output)
    #[arg(long, value_name = "FILE")]
    emit_trace: Option<String>,
}

#[derive(Args, Debug)]
struct ImportArgs {
    /// fio-iolog, blkparse, strace, lackey, oracle-general or cachesim-csv
    format: String,
    /// The file to import
    input: PathBuf,
    /// Write the trace to FILE (`-` = standard output)
    #[arg(long, value_name = "FILE")]
    emit_trace: String,
}

#[derive(Subcommand, Debug)]
enum TraceCmd {
    /// Write the compact binary form of a trace (IN `-` = standard input, OUT `-` = standard output)
    Convert { input: String, output: String },
}

/// The values of an option that `run` takes once and `compare` twice
/// (`--memory 1G,2G`): one or two, comma-separated.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Values<T>(pub Vec<T>);

fn values<T>(s: &str, mut parse: impl FnMut(&str) -> Result<T, String>) -> Result<Values<T>, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 2 || parts.iter().any(|p| p.trim().is_empty()) {
        return Err(format!("`{s}`: give one value, or two comma-separated ones for `compare` (A,B)"));
    }
    parts.into_iter().map(|p| parse(p.trim())).collect::<Result<Vec<T>, String>>().map(Values)
}

fn sizes_arg(s: &str) -> Result<Values<u64>, String> {
    values(s, mglru_trace::parse_size)
}

fn policies_arg(s: &str) -> Result<Values<PolicyArg>, String> {
    values(s, |p| PolicyArg::from_str(p, true).map_err(|_| format!("`{p}` is not a policy: expected classic or mglru")))
}

fn sysctl_arg(s: &str) -> Result<(mglru_trace::Sysctl, Values<u64>), String> {
    let (n, v) = s.split_once('=').ok_or_else(|| format!("`{s}`: expected NAME=VALUE, e.g. vm.swappiness=100"))?;
    let mut name = None;
    let vals = values(v, |x| {
        let (k, val) = mglru_trace::parse_sysctl(n, x)?;
        name = Some(k);
        Ok(val)
    })?;
    Ok((name.expect("at least one value was parsed"), vals))
}

/// `--variant`'s manual, from the registry (crate mglru_core::profiles).
fn variant_help() -> String {
    let mut h = String::from(
        "A change on top of the kernel version (default: none). `compare --variant A,B` compares two.\n",
    );
    for e in mglru_core::profiles::VARIANTS.iter() {
        h.push_str(&format!("\n  {:<14} {}", e.names.join(", "), e.summary));
    }
    h.push_str("\n\nVariants change the multi-gen LRU only (docs/VARIANTS.md).");
    h
}

/// `--kernel`'s manual, from the registry.
fn kernel_help() -> String {
    let mut h = String::from(
        "The kernel version to model (default: 6.12). `compare --kernel X,Y` compares two with the same trace and knobs.\n",
    );
    for e in mglru_core::profiles::VERSIONS.iter() {
        h.push_str(&format!("\n  {:<6} {} [{}]", e.names[0], e.summary, e.debian));
    }
    h.push_str("\n\nEach version's differences from 6.12 are listed in docs/KERNELS.md (`mglru kernels`).");
    h
}

fn fail(f: Failure) -> ExitCode {
    eprintln!("mglru: {}", f.msg);
    ExitCode::from(f.code)
}

fn done(r: Result<(), Failure>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => fail(f),
    }
}

/// `mglru workload SPEC --emit-trace FILE` and `mglru import ... --emit-trace FILE`:
/// the trace appears at FILE only when complete (output.rs), and never over `input`.
fn emit(lines: mglru_workload::Lines, out: &str, input: Option<&Path>) -> Result<(), Failure> {
    use std::io::Write;
    let o = Output::open("--emit-trace", out)?;
    let inputs: Vec<(&str, &Path)> = input.map(|p| ("file", p)).into_iter().collect();
    output::distinct(&[&o], &inputs)?;
    let to = if o.is_stdout() { "standard output".to_string() } else { out.to_string() };
    let mut w = std::io::BufWriter::new(o.into_writer()?);
    let mut n = 0u64;
    let wrote = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        Failure::io(format!("writing {out}: {e}"))
    };
    for l in lines {
        let l = l.map_err(Failure::input)?;
        writeln!(w, "{l}").map_err(wrote)?;
        n += 1;
    }
    w.flush().map_err(wrote)?;
    w.into_inner().map_err(|e| Failure::io(format!("writing {out}: {}", e.error())))?.commit()?;
    eprintln!("mglru: wrote {n} lines to {to}");
    Ok(())
}

fn cmd_workload(a: WorkloadArgs) -> Result<(), Failure> {
    match (a.spec, a.emit_trace) {
        (Some(spec), Some(out)) => {
            let lines = mglru_workload::workload(&spec)
                .map_err(|e| Failure::input(format!("workload {spec}: {e}{}", mglru_sweep::input::fio_hint(&spec))))?;
            emit(lines, &out, None)
        }
        (None, None) => {
            let mut o = String::from("usage: mglru workload SPEC --emit-trace FILE   (or mglru run --workload SPEC)\ngenerators:\n");
            for (n, d) in mglru_workload::workload_names() {
                o.push_str(&format!("  {n:<16} {d}\n"));
            }
            output::print(&o)
        }
        (Some(spec), None) => Err(Failure::input(format!(
            "workload {spec}: say where the trace goes with --emit-trace FILE (`-` = standard output), or run it with `mglru run --workload '{spec}'`"
        ))),
        (None, Some(_)) => Err(Failure::input("workload: --emit-trace needs a SPEC (`mglru workload` lists the generators)")),
    }
}

fn cmd_import(a: ImportArgs) -> Result<(), Failure> {
    let opts = mglru_workload::ImportOptions::default();
    let lines = mglru_workload::import(&a.format, &a.input, &opts)
        .map_err(|e| Failure::input(format!("import {} {}: {e}", a.format, a.input.display())))?;
    emit(lines, &a.emit_trace, Some(&a.input))
}

fn cmd_trace(c: TraceCmd) -> Result<(), Failure> {
    let TraceCmd::Convert { input, output } = c;
    let out = Output::open("OUT", &output)?;
    output::distinct(&[&out], &[("IN", Path::new(&input))])?;
    let mut reader: TraceReader = Source::new(Some(&input), None)?.open()?;
    let to = if out.is_stdout() { "standard output".to_string() } else { output.clone() };
    let mut w = std::io::BufWriter::new(out.into_writer()?);
    let n = mglru_trace::write_binary(&mut reader, &mut w).map_err(|e| Failure::input(e.to_string()))?;
    std::io::Write::flush(&mut w).map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        Failure::io(format!("writing {output}: {e}"))
    })?;
    w.into_inner().map_err(|e| Failure::io(format!("writing {output}: {}", e.error())))?.commit()?;
    eprintln!("mglru: wrote {n} operations to {to}");
    Ok(())
}

/// `--timeline NAMES[:MS]`: `default` or counter names, and the spacing
/// of the rows in guest milliseconds.
fn parse_timeline_arg(v: &str) -> Result<(Vec<String>, u64), String> {
    let (names, ms) = match v.rsplit_once(':') {
        Some((n, m)) => match m.parse::<u64>() {
            Ok(ms) if ms > 0 => (n, ms),
            _ => return Err(format!("--timeline {v}: after `:` comes the row spacing in whole milliseconds, at least 1")),
        },
        None => (v, 500),
    };
    let names: Vec<String> = if names == "default" {
        timeline::DEFAULT_COUNTERS.iter().map(|s| s.to_string()).collect()
    } else {
        names.split(',').map(str::to_string).collect()
    };
    if names.iter().any(|n| n.is_empty()) {
        return Err(format!("--timeline {v}: an empty counter name (separate names with single commas)"));
    }
    Ok((names, ms))
}

/// `validate --delta A:B`, and with `--check` its gate.
fn validate_delta(dir: &std::path::Path, spec: &str, a: &ValidateArgs) -> ExitCode {
    let (x, y) = match spec.split_once(':') {
        Some(v) => v,
        None => return fail(Failure::input(format!("--delta {spec}: expected A:B, e.g. 6.12:7.2"))),
    };
    let parse = |v: &str| kernel_arg(v).map_err(|e| Failure::input(format!("--delta: {e}")));
    let (ka, kb) = match (parse(x), parse(y)) {
        (Ok(ka), Ok(kb)) => (ka, kb),
        (Err(f), _) | (_, Err(f)) => return fail(f),
    };
    if ka == kb {
        return fail(Failure::input(format!("--delta {spec}: give two different versions")));
    }
    if a.json.is_some() || a.timeline.is_some() {
        return fail(Failure::input("--delta prints a table: run --json and --timeline without it"));
    }
    if a.check && a.trace.is_some() {
        return fail(Failure::input(
            "--delta --check holds the whole suite to its gate (min_agree counts every trace): run --check without --trace",
        ));
    }
    if a.delta_thresholds.is_some() && !a.check {
        return fail(Failure::input("--delta-thresholds is the gate of --delta A:B --check: add --check, or drop it"));
    }
    // The gate first: a malformed file fails before the model runs.
    let gate_file = a.delta_thresholds.clone().unwrap_or_else(|| dir.join("delta-thresholds.json"));
    let gate = if a.check {
        match validate::load_delta_gate(&gate_file, dir, ka, kb) {
            Ok(g) => Some(g),
            Err(e) => return fail(Failure::input(e)),
        }
    } else {
        None
    };
    let cmp = |k| {
        validate::compare_suite(dir, &results_of(k), Some(k), a.trace.as_deref(), !a.cost_model_clock, &a.extra, a.kswapd.into(), a.migratetypes)
            .map_err(Failure::input)
    };
    let (ca, cb) = match (cmp(ka), cmp(kb)) {
        (Ok(ca), Ok(cb)) => (ca, cb),
        (Err(f), _) | (_, Err(f)) => return fail(f),
    };
    let rows = validate::delta_rows(&ca, &cb);
    if rows.is_empty() {
        return fail(Failure::input(format!("--delta {spec}: no trace has results on both kernels")));
    }
    if let Err(f) = output::print(&validate::render_delta(&rows, ka, kb)) {
        return fail(f);
    }
    let Some(gate) = gate else {
        return ExitCode::SUCCESS;
    };
    let (an, bn) = (ka.name(), kb.name());
    let at = format!("{} pairs.\"{an}:{bn}\"", gate_file.display());
    let c = validate::check_delta(&rows, &gate, &at, an, bn);
    for n in &c.notes {
        eprintln!("mglru: note: {n}");
    }
    if !c.failures.is_empty() {
        eprintln!("mglru: validation failed (--delta {an}:{bn}):\n{}", c.failures.join("\n"));
        return ExitCode::from(4);
    }
    let counts: Vec<String> = c.agree.iter().map(|(p, n, min)| format!("{p} {n} changes agree (min_agree {min})")).collect();
    let opposite = match rows.iter().filter(|r| r.verdict == "OPPOSITE").count() {
        0 => "no OPPOSITE row".to_string(),
        n => format!("{n} OPPOSITE row(s), each in known_opposite"),
    };
    eprintln!("mglru: --delta {an}:{bn} within {at}: {}; {opposite}", counts.join(", "));
    ExitCode::SUCCESS
}

/// `mglru kernels`: the registry as Markdown, or as plain lines.
fn kernels_text(markdown: bool) -> String {
    use mglru_core::profiles::{KernelVersion, Variant, DIFFERENCES};
    if markdown {
        return mglru_core::profiles::markdown();
    }
    let mut o = String::from("kernel versions (--kernel)\n");
    for v in KernelVersion::ALL {
        let e = v.entry();
        o.push_str(&format!("  {:<6} {}\n         differences: {}\n", e.names[0], e.summary, if e.differences.is_empty() { "none (the reference)".to_string() } else { e.differences.join(", ") }));
    }
    o.push_str("\nvariants (--variant, on top of the version)\n");
    for v in Variant::all() {
        let e = v.entry();
        o.push_str(&format!("  {:<14} {}\n", e.names.join(", "), e.summary));
    }
    o.push_str("\ndifferences\n");
    for d in DIFFERENCES {
        o.push_str(&format!("  {:<24} [{}] {}\n  {:<24} {}\n", d.name, d.fidelity.name(), d.summary, "", d.source));
    }
    o
}

fn kernel_arg(s: &str) -> Result<mglru_core::kernel::KernelVersion, String> {
    mglru_core::kernel::KernelVersion::parse(s)
}

/// The results folder of a kernel version in the suite.
fn results_of(k: mglru_core::kernel::KernelVersion) -> String {
    match k {
        mglru_core::kernel::KernelVersion::V6_12 => "results".into(),
        k => format!("results-{}", k.name()),
    }
}

fn cmd_validate(mut a: ValidateArgs) -> ExitCode {
    let dir = a.suite.clone();
    if a.delta.is_some() && (a.results.is_some() || a.kernel.is_some()) {
        return fail(Failure::input(
            "--delta A:B reads each version's own results (results-A, results-B; 6.12's: results): drop --results and --kernel",
        ));
    }
    let results = a.results.take().unwrap_or_else(|| results_of(a.kernel.unwrap_or_default()));
    let a = ValidateArgs { results: Some(results.clone()), ..a };
    if let Some(d) = &a.delta {
        return validate_delta(&dir, d, &a);
    }
    if a.delta_thresholds.is_some() {
        return fail(Failure::input("--delta-thresholds is the gate of --delta A:B --check: add those, or drop it"));
    }
    if a.extra.iter().any(|n| n.is_empty()) {
        return fail(Failure::input("--extra needs vmstat counter names separated by commas, e.g. pgalloc_dma,pgscan_direct"));
    }
    if let Some(t) = &a.timeline {
        let (names, every_ms) = match parse_timeline_arg(t) {
            Ok(x) => x,
            Err(e) => return fail(Failure::input(e)),
        };
        let Some(trace) = a.trace else {
            return fail(Failure::input("--timeline needs --trace NAME (one trace at a time)"));
        };
        if a.check || a.json.is_some() || !a.extra.is_empty() {
            return fail(Failure::input("--timeline shows one trace along its run; run --check, --json and --extra without it"));
        }
        return match timeline::build(&dir, &results, &trace, &names, !a.cost_model_clock, a.kswapd.into(), a.migratetypes) {
            Ok(tls) => done(output::print(&timeline::render(&trace, &names, &tls, every_ms))),
            Err(e) => fail(Failure::input(e)),
        };
    }
    let json = match a.json.as_deref().map(|p| Output::open("--json", p)).transpose() {
        Ok(j) => j,
        Err(f) => return fail(f),
    };
    let cmp = match validate::compare_suite(&dir, &results, a.kernel, a.trace.as_deref(), !a.cost_model_clock, &a.extra, a.kswapd.into(), a.migratetypes) {
        Ok(c) => c,
        Err(e) => return fail(Failure::input(e)),
    };
    let th = validate::load_thresholds_for(&dir, &results);
    let th_err = th.as_ref().err().cloned();
    let th = th.ok();
    // The figures that vary from boot to boot, over the kernel's runs of
    // the reference results (not for another results folder, which has
    // its own runs, nor for one trace outside the list).
    let spread_spec = if results == "results" {
        match spread::load_spec(&dir) {
            Ok(s) => s,
            Err(e) => return fail(Failure::input(e)),
        }
    } else {
        None
    };
    let spread_spec = spread_spec.map(|mut s| {
        s.runs.retain(|(t, _)| a.trace.as_deref().is_none_or(|o| o == t));
        s
    });
    let spread_rows = match &spread_spec {
        Some(s) if !s.runs.is_empty() => match spread::spread_rows(&dir, s, a.kswapd.into(), a.migratetypes) {
            Ok(r) => r,
            Err(e) => return fail(Failure::input(e)),
        },
        _ => Vec::new(),
    };
    if json.as_ref().map_or(true, |j| !j.is_stdout()) {
        let mut text = validate::render(&cmp, th.as_ref());
        if let Some(s) = spread_spec.as_ref().filter(|_| !spread_rows.is_empty()) {
            text.push_str(&spread::render(&spread_rows, s, a.kswapd.into()));
        }
        if let Err(f) = output::print(&text) {
            return fail(f);
        }
    }
    if let Some(j) = json {
        if let Err(f) = j.write(validate::to_json(&cmp, &spread_rows).as_bytes()) {
            return fail(f);
        }
    }
    if a.check {
        let Some(th) = th else {
            return fail(Failure::input(format!("the thresholds are missing or invalid: {}", th_err.unwrap_or_default())));
        };
        // A results folder with its own thresholds covers only its traces.
        let mut cmp = cmp;
        if let Some(c) = &th.covers {
            cmp.missing.retain(|m| c.contains(m));
        }
        if cmp.rows.is_empty() {
            return fail(Failure::input(format!("no kernel results to check in {}/{results}", dir.display())));
        }
        if !cmp.missing.is_empty() {
            // A suite trace without kernel results would escape the check.
            eprintln!(
                "mglru: no kernel results for {} in {}/{}: measure them (validation/run-suite.sh NAME) or remove the trace",
                cmp.missing.join(", "),
                dir.display(),
                results
            );
            return ExitCode::from(4);
        }
        let mut errs: Vec<String> = validate::check(&cmp, &th).err().into_iter().collect();
        errs.extend(spread::check(&spread_rows));
        if !errs.is_empty() {
            eprintln!("mglru: validation failed:\n{}", errs.join("\n"));
            return ExitCode::from(4);
        }
        eprintln!("mglru: validation within the thresholds in force");
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version print to stdout and succeed; a usage
            // error is an invalid option: status 1, as documented.
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.cmd {
        None => {
            let help = Cli::command().render_long_help().to_string();
            done(output::print(&help))
        }
        Some(Cmd::Run(a)) => run::cmd_run(a),
        Some(Cmd::Compare(a)) => run::cmd_compare(a),
        Some(Cmd::Sweep(a)) => done(sweep::cmd_sweep(a)),
        Some(Cmd::Validate(a)) => cmd_validate(a),
        Some(Cmd::Workload(a)) => done(cmd_workload(a)),
        Some(Cmd::Import(a)) => done(cmd_import(a)),
        Some(Cmd::Trace(c)) => done(cmd_trace(c)),
        Some(Cmd::DefaultTrace) => done(output::print(&mglru_sweep::default_workload::default_trace())),
        Some(Cmd::Kernels { markdown }) => done(output::print(&kernels_text(markdown))),
        Some(Cmd::Completions { shell }) => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mglru", &mut buf);
            done(output::print(&String::from_utf8_lossy(&buf)))
        }
        Some(Cmd::Man) => {
            let mut buf = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut buf) {
                Ok(()) => done(output::print(&String::from_utf8_lossy(&buf))),
                Err(e) => fail(Failure::io(format!("rendering the man page: {e}"))),
            }
        }
    }
}

/// Used by run.rs: whether a path names standard input/output.
pub fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}
