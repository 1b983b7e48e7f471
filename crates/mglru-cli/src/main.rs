// SPDX-License-Identifier: GPL-2.0-only
//! `mglru`: replay page-access traces on a model of Linux 6.12 reclaim.

mod default_workload;
mod lines;
mod progress;
mod timeline;
mod timeseries;
mod validate;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mglru_core::report::Report;
use mglru_core::{CostModel, Policy, RunOptions, Simulator};
use mglru_trace::{parse_size, parse_sysctl, TraceReader};

const HELP: &str = "\
mglru — a model of Linux 6.12 memory reclaim (classic LRU and multi-gen LRU)

USAGE:
    mglru run [TRACE] [OPTIONS]        replay TRACE (or the built-in workload) and report counters
    mglru compare [TRACE] [OPTIONS]    run both policies on the same input; one table, both results
    mglru validate [--suite DIR] [--results SUB] [--trace NAME] [--json PATH] [--check]
                   [--cost-model-clock] [--extra NAME,...]
                                       hold the model against the real-kernel results in
                                       DIR/SUB (default validation/results; results-repeat is a
                                       second run); --check enforces DIR/thresholds.json. The model's clock follows the
                                       guest's where a result has a time profile;
                                       --cost-model-clock uses the cost model alone;
                                       --extra also shows these vmstat counters (not checked)
    mglru validate --trace NAME --timeline default|NAME,...[:MS]
                                       the kernel's counters along the run (sampled every
                                       100 ms by the replayer) beside the model's at the same
                                       trace lines, a row every MS ms (default 500)
    mglru workload [SPEC --emit-trace FILE]   list generators, or write one's trace (docs/WORKLOADS.md);
                                       FILE `-` is standard output
    mglru import FORMAT IN --emit-trace FILE  convert fio-iolog, blkparse, strace, lackey,
                                       oracle-general or cachesim-csv input to trace v1
    mglru trace convert IN OUT         write the compact binary form of a text trace
    mglru default-trace                print the built-in workload as trace v1 text
    mglru help                         this text

RUN OPTIONS:
    --workload SPEC            run a generated workload instead of TRACE, e.g.
                               'ebizzy:seq=16,loops=4' (`mglru workload` lists them)
    --policy classic|mglru     the LRU to run (default: what the trace's `sysctl lru_gen.enabled` says,
                               else mglru, as Debian's 6.12 kernel boots); `run` only
    --memory SIZE              RAM size (overrides the trace's `memory`), e.g. 512M, 4G
    --swap SIZE                swap size (overrides the trace's `swap`)
    --sysctl NAME=VALUE        a sysctl applied after the trace's setup section (repeatable):
                               vm.swappiness, vm.page-cluster, vm.min_free_kbytes,
                               vm.watermark_scale_factor, vm.dirty_ratio, vm.dirty_background_ratio,
                               vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs,
                               lru_gen.enabled, lru_gen.min_ttl_ms
    --cost NAME=NS             a cost-model value in simulated ns (repeatable): op, mem_access,
                               page_copy, minor_fault, disk_read, disk_write, swap_read, swap_write,
                               scan
    --seed N                   seed of the model's random choices (default 0)
    --variant NAME             6.12 (default), or a seed's change to it: batch-aging (seed 000),
                               reclaim-loop (seed 004); see docs/VARIANTS.md
    --json PATH|-              also write the report as JSON to PATH (or stdout with -)
    --all                      print every counter, not only the non-zero ones
    --check                    verify the model's accounting invariants at the end
    --timeseries PATH[:MS]     write a CSV time series every MS simulated ms (default 100): key
                               vmstat counters, each memcg's usage, and MGLRU generation sizes
                               (youngest first)
    --guest-clock RESULT.json  make the simulated clock follow a real-kernel run's: RESULT is what
                               validation/run-kernel.sh wrote for this trace (its time_profile);
                               before each line the clock moves up to the guest's time (linear
                               between its samples) and the workload's own costs (op, mem_access,
                               page_copy, minor_fault, disk_read, swap_read, scan) are not added
    --lru-gen-dump             print /sys/kernel/debug/lru_gen at the end (a trace's `dump`
                               statement prints it at that point, always)
    --quiet                    no table on stdout
    --no-progress              no progress bar (it shows only on a terminal, after 1 s)

TRACE is trace format v1 text (docs/TRACE_FORMAT.md), optionally gzip- or zstd-compressed, or
the binary form written by `mglru trace convert`. Units: /proc/vmstat names and units (pages,
pgpgin/pgpgout in KiB); memory.stat byte fields in bytes.

EXIT STATUS: 0 on success, 1 when the trace or an option is invalid, 2 on I/O errors.
";

struct RunArgs {
    trace: Option<PathBuf>,
    workload: Option<String>,
    timeseries: Option<(String, u64)>,
    /// `--guest-clock RESULT`: the time profile of a real-kernel run.
    guest_clock: Vec<(u64, u64)>,
    lru_gen_dump: bool,
    opts: RunOptions,
    json: Option<String>,
    all: bool,
    check: bool,
    quiet: bool,
    progress: bool,
}

fn usage_err(msg: String) -> ExitCode {
    eprintln!("mglru: {msg}\n(run `mglru help` for the options)");
    ExitCode::from(1)
}

fn parse_run(args: &[String]) -> Result<RunArgs, String> {
    let mut r = RunArgs {
        trace: None,
        workload: None,
        timeseries: None,
        guest_clock: Vec::new(),
        lru_gen_dump: false,
        opts: RunOptions::default(),
        json: None,
        all: false,
        check: false,
        quiet: false,
        progress: true,
    };
    let mut cost = CostModel::default();
    let mut cost_set = false;
    let mut i = 0;
    let value = |i: &mut usize, name: &str| -> Result<String, String> {
        *i += 1;
        args.get(*i).cloned().ok_or_else(|| format!("{name} needs a value"))
    };
    while i < args.len() {
        let a = args[i].as_str();
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let val = |i: &mut usize| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(i, flag),
            }
        };
        match flag {
            "--policy" => {
                r.opts.policy = Some(match val(&mut i)?.as_str() {
                    "classic" => Policy::Classic,
                    "mglru" => Policy::Mglru,
                    other => return Err(format!("--policy {other}: expected `classic` or `mglru`")),
                })
            }
            "--memory" => {
                let v = val(&mut i)?;
                r.opts.memory = Some(parse_size(&v).map_err(|e| format!("--memory {v}: {e}"))?);
            }
            "--swap" => {
                let v = val(&mut i)?;
                r.opts.swap = Some(parse_size(&v).map_err(|e| format!("--swap {v}: {e}"))?);
            }
            "--sysctl" => {
                let v = val(&mut i)?;
                let (n, x) = v.split_once('=').ok_or_else(|| format!("--sysctl {v}: expected NAME=VALUE"))?;
                let s = parse_sysctl(n, x).map_err(|e| format!("--sysctl {v}: {e}"))?;
                r.opts.sysctls.push(s);
            }
            "--cost" => {
                let v = val(&mut i)?;
                let (n, x) = v.split_once('=').ok_or_else(|| format!("--cost {v}: expected NAME=NS"))?;
                let ns: u64 = x.parse().map_err(|_| format!("--cost {v}: `{x}` is not a whole number of ns"))?;
                cost.set(n, ns).map_err(|e| format!("--cost {v}: {e}"))?;
                cost_set = true;
            }
            "--variant" => {
                let v = val(&mut i)?;
                r.opts.variant = mglru_core::kernel::Variant::parse(&v).map_err(|e| format!("--variant: {e}"))?;
            }
            "--seed" => {
                let v = val(&mut i)?;
                r.opts.seed = v.parse().map_err(|_| format!("--seed {v}: expected a whole number"))?;
            }
            "--json" => r.json = Some(val(&mut i)?),
            "--workload" => r.workload = Some(val(&mut i)?),
            "--timeseries" => {
                let v = val(&mut i)?;
                // PATH or PATH:INTERVAL_MS
                let (path, ms) = match v.rsplit_once(':') {
                    Some((p, m)) if m.chars().all(|c| c.is_ascii_digit()) && !m.is_empty() => {
                        (p.to_string(), m.parse::<u64>().map_err(|_| format!("--timeseries {v}: bad interval"))?)
                    }
                    _ => (v.clone(), 100),
                };
                if ms == 0 {
                    return Err(format!("--timeseries {v}: the interval must be at least 1 ms"));
                }
                r.timeseries = Some((path, ms));
            }
            "--guest-clock" => {
                let v = val(&mut i)?;
                let kr = validate::load_kernel_result(std::path::Path::new(&v)).map_err(|e| format!("--guest-clock: {e}"))?;
                if kr.profile.is_empty() {
                    return Err(format!(
                        "--guest-clock {v}: the result has no time_profile (record it with the current mglru-replay, validation/run-kernel.sh)"
                    ));
                }
                r.guest_clock = kr.profile;
            }
            "--all" => r.all = true,
            "--check" => r.check = true,
            "--lru-gen-dump" => r.lru_gen_dump = true,
            "--quiet" => r.quiet = true,
            "--no-progress" => r.progress = false,
            _ if a.starts_with('-') && a != "-" => return Err(format!("unknown option `{a}`")),
            _ => {
                if r.trace.is_some() {
                    return Err(format!("unexpected argument `{a}`: only one TRACE may be given"));
                }
                r.trace = Some(PathBuf::from(a));
            }
        }
        i += 1;
    }
    if cost_set {
        r.opts.cost = Some(cost);
    }
    Ok(r)
}

/// Replay a trace; Err(message, exit code).
/// The cgroup path of a memcg, as `cgroup_path` prints it.
fn cgroup_path(reader: &TraceReader, id: u16) -> String {
    let mut parts = Vec::new();
    let mut m = id;
    while m != 0 {
        parts.push(reader.memcg_name(m).to_string());
        m = reader.memcg_parent(m).unwrap_or(0);
    }
    parts.reverse();
    format!("/{}", parts.join("/"))
}

/// Where `dump` output goes: stdout for `run`, nowhere for `compare`.
#[derive(Clone, Copy, PartialEq)]
enum Dumps {
    Print,
    Discard,
}

fn simulate(
    reader: &mut TraceReader,
    opts: &RunOptions,
    show_progress: bool,
    check: bool,
    dumps: Dumps,
    final_dump: bool,
    timeseries: Option<&(String, u64)>,
    mut clock: validate::GuestClock<'_>,
) -> Result<Report, (String, u8)> {
    let start = Instant::now();
    let mut opts = opts.clone();
    if !clock.is_empty() {
        // The guest's clock holds the workload's own time (validate.rs).
        opts.cost = Some(validate::guest_clock_costs(opts.cost.unwrap_or_default()));
    }
    let mut sim = Simulator::new(opts);
    let mut bar = progress::Progress::new(show_progress, reader.total_bytes());
    let mut n: u64 = 0;
    let mut dumped = 0;
    let mut ts = match timeseries {
        Some((path, ms)) => Some(timeseries::Series::create(path, *ms).map_err(|e| (e, 2))?),
        None => None,
    };
    // Software pipelining: decode two operations ahead and prefetch the
    // memory they will touch (the model's work is mostly cache misses).
    // Errors are reported at the operation they belong to: a decode error
    // surfaces only after the operations before it ran, and the location
    // printed for a model error is that of the operation applied.
    const AHEAD: usize = 8; // page-cache entries are prefetched this many operations ahead,
    const FOLIO_AHEAD: usize = 4; // and folios this many (their entry arrived meanwhile).
    // (operation, its line or record): the location is formatted only
    // when an error or a dump needs it.
    let mut queue: std::collections::VecDeque<(mglru_trace::Op, u64)> = std::collections::VecDeque::with_capacity(AHEAD);
    let (name, binary) = (reader.name().to_string(), reader.is_binary());
    let at = |line: u64| mglru_trace::Location { file: &name, line, binary }.to_string();
    let mut pending_err: Option<(String, u8)> = None;
    let mut eof = false;
    loop {
        while !eof && pending_err.is_none() && queue.len() < AHEAD {
            match reader.next_op() {
                Ok(Some(op)) => {
                    sim.prefetch(&op, 0);
                    if queue.len() >= FOLIO_AHEAD {
                        sim.prefetch(&queue[queue.len() - FOLIO_AHEAD].0, 1);
                    }
                    queue.push_back((op, reader.line()));
                }
                Ok(None) => eof = true,
                Err(e) => pending_err = Some((format!("{e}"), 1)),
            }
        }
        let Some((op, line)) = queue.pop_front() else {
            if let Some(e) = pending_err {
                return Err(e);
            }
            break;
        };
        // --guest-clock: the model's clock catches up with the guest's
        // before each sampled line (as `mglru validate` does).
        if let Some(ns) = clock.target(line) {
            sim.clock_at_least(ns).map_err(|e| (format!("{}: {e}", reader.name()), 1))?;
        }
        if let Err(e) = sim.apply(&op) {
            return Err((format!("{}: {e}", at(line)), 1));
        }
        if let (Some(t), Some(k)) = (ts.as_mut(), sim.kernel()) {
            t.sample(k, &|m| reader.memcg_name(m).to_string()).map_err(|e| (e, 2))?;
        }
        if let Some(k) = sim.kernel() {
            if k.dump_requests != dumped {
                dumped = k.dump_requests;
                if dumps == Dumps::Print {
                    let text = k.lru_gen_debugfs(&|m| cgroup_path(reader, m));
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "# lru_gen at {} ({:.3} s simulated)", at(line), k.now as f64 / 1e9);
                    let _ = out.write_all(text.as_bytes());
                }
            }
        }
        n += 1;
        if n & 0xffff == 0 {
            bar.tick(reader.bytes_read(), n);
        }
    }
    bar.finish();
    let k = sim.finish().map_err(|e| (format!("{}: {e}", reader.name()), 1))?;
    if let Some(t) = ts.as_mut() {
        t.finish(k, &|m| reader.memcg_name(m).to_string()).map_err(|e| (e, 2))?;
    }
    if check {
        k.check_invariants().map_err(|e| (format!("internal error: accounting invariant broken: {e}"), 3))?;
    }
    if final_dump {
        let text = k.lru_gen_debugfs(&|m| cgroup_path(reader, m));
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "# /sys/kernel/debug/lru_gen at the end ({:.3} s simulated)", k.now as f64 / 1e9);
        let _ = out.write_all(text.as_bytes());
    }
    let mut rep = k.report(reader);
    rep.sim.wall_seconds = start.elapsed().as_secs_f64();
    Ok(rep)
}

fn print_table(r: &Report, all: bool) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "policy {}  (Linux {} model)", r.policy, r.kernel);
    let _ = writeln!(out, "\n/proc/vmstat");
    for (k, v) in &r.vmstat {
        if all || *v != 0 {
            let _ = writeln!(out, "  {k:<34} {v:>14}");
        }
    }
    for m in &r.memcg {
        let _ = writeln!(out, "\nmemcg {}", m.name);
        let _ = writeln!(out, "  {:<34} {:>14}", "memory.current", m.current);
        let _ = writeln!(out, "  {:<34} {:>14}", "memory.peak", m.peak);
        let _ = writeln!(out, "  {:<34} {:>14}", "memory.swap.current", m.swap_current);
        for (k, v) in &m.events {
            if all || *v != 0 {
                let _ = writeln!(out, "  {:<34} {v:>14}", format!("memory.events:{k}"));
            }
        }
        for (k, v) in &m.stat {
            if all || *v != 0 {
                let _ = writeln!(out, "  {:<34} {v:>14}", format!("memory.stat:{k}"));
            }
        }
    }
    for o in &r.oom_kills {
        let _ = writeln!(
            out,
            "\noom-kill at {:.3}s: constraint={} task={} memcg={} pages={}",
            o.time_ns as f64 / 1e9,
            o.constraint,
            o.victim_task,
            o.victim_memcg,
            o.victim_pages
        );
    }
    let s = &r.sim;
    let _ = writeln!(out, "\nsimulation");
    let _ = writeln!(out, "  {:<34} {:>14}", "operations", s.operations);
    let _ = writeln!(out, "  {:<34} {:>14}", "page_accesses", s.page_accesses);
    if s.dropped_accesses > 0 {
        let _ = writeln!(out, "  {:<34} {:>14}", "dropped_accesses (killed tasks)", s.dropped_accesses);
    }
    let _ = writeln!(out, "  {:<34} {:>14.3}", "simulated_seconds", s.simulated_ns as f64 / 1e9);
    let _ = writeln!(out, "  {:<34} {:>14.0}", "throughput_ops_per_s (cost model)", s.throughput());
    let _ = writeln!(out, "  {:<34} {:>14.3}", "wall_seconds", s.wall_seconds);
    if s.wall_seconds > 0.0 {
        let _ = writeln!(out, "  {:<34} {:>14.0}", "accesses_per_second", s.page_accesses as f64 / s.wall_seconds);
    }
    if s.simulated_pages > 0 {
        let _ = writeln!(out, "  {:<34} {:>14.2}", "model_bytes_per_page", s.model_bytes as f64 / s.simulated_pages as f64);
    }
}

fn write_json(path: &str, text: &str) -> Result<(), String> {
    if path == "-" {
        let mut o = std::io::stdout().lock();
        o.write_all(text.as_bytes()).map_err(|e| format!("writing JSON to stdout: {e}"))
    } else {
        std::fs::write(path, text).map_err(|e| format!("writing JSON to {path}: {e}"))
    }
}

/// A generated workload as a trace stream (docs/WORKLOADS.md).
fn open_workload(spec: &str) -> Result<TraceReader, (String, u8)> {
    let lines = mglru_workload::workload(spec).map_err(|e| (format!("--workload {spec}: {e}"), 1))?;
    TraceReader::from_reader(&format!("<workload {spec}>"), Box::new(lines::LinesReader::new(lines))).map_err(|e| (format!("{e}"), 1))
}

fn open_input(r: &RunArgs) -> Result<TraceReader, (String, u8)> {
    match (&r.workload, &r.trace) {
        (Some(_), Some(_)) => Err(("give either TRACE or --workload, not both".into(), 1)),
        (Some(w), None) => open_workload(w),
        _ => open_trace(&r.trace),
    }
}

fn open_trace(path: &Option<PathBuf>) -> Result<TraceReader, (String, u8)> {
    match path {
        Some(p) => TraceReader::open(p).map_err(|e| (format!("{e}"), 2)),
        None => Ok(TraceReader::from_str("<built-in workload>", &default_workload::default_trace())),
    }
}

fn cmd_run(args: &[String]) -> ExitCode {
    let r = match parse_run(args) {
        Ok(r) => r,
        Err(e) => return usage_err(e),
    };
    let mut reader = match open_input(&r) {
        Ok(x) => x,
        Err((m, c)) => {
            eprintln!("mglru: {m}");
            return ExitCode::from(c);
        }
    };
    let show = r.progress && std::io::stderr().is_terminal();
    let json_to_stdout = r.json.as_deref() == Some("-");
    let dumps = if json_to_stdout { Dumps::Discard } else { Dumps::Print };
    // The trace's sleeps, for the guest's clock (validate::GuestClock).
    let sleeps = if r.guest_clock.is_empty() {
        Vec::new()
    } else {
        match open_input(&r).and_then(|mut rd| validate::trace_sleeps(&mut rd).map_err(|e| (e, 1))) {
            Ok(s) => s,
            Err((m, c)) => {
                eprintln!("mglru: {m}");
                return ExitCode::from(c);
            }
        }
    };
    let rep = match simulate(&mut reader, &r.opts, show, r.check, dumps, r.lru_gen_dump && !json_to_stdout, r.timeseries.as_ref(), validate::GuestClock::new(&r.guest_clock, &sleeps)) {
        Ok(x) => x,
        Err((m, c)) => {
            eprintln!("mglru: {m}");
            return ExitCode::from(c);
        }
    };
    if !r.quiet && !json_to_stdout {
        print_table(&rep, r.all);
    }
    if let Some(p) = &r.json {
        if let Err(e) = write_json(p, &mglru_core::json::report_json(&rep)) {
            eprintln!("mglru: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// `mglru compare`: the same input under both policies.
fn cmd_compare(args: &[String]) -> ExitCode {
    let r = match parse_run(args) {
        Ok(r) => r,
        Err(e) => return usage_err(e),
    };
    if r.opts.policy.is_some() {
        return usage_err("compare runs both policies: drop --policy".into());
    }
    let show = r.progress && std::io::stderr().is_terminal();
    let mut reps = Vec::new();
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut reader = match open_input(&r) {
            Ok(x) => x,
            Err((m, c)) => {
                eprintln!("mglru: {m}");
                return ExitCode::from(c);
            }
        };
        let opts = RunOptions { policy: Some(policy), ..r.opts.clone() };
        match simulate(&mut reader, &opts, show, r.check, Dumps::Discard, false, None, validate::GuestClock::new(&[], &[])) {
            Ok(x) => reps.push(x),
            Err((m, c)) => {
                eprintln!("mglru: {m}");
                return ExitCode::from(c);
            }
        }
    }
    let (a, b) = (&reps[0], &reps[1]);
    let json_to_stdout = r.json.as_deref() == Some("-");
    if !r.quiet && !json_to_stdout {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{:<36} {:>14} {:>14} {:>14}", "counter", "classic", "mglru", "difference");
        let mut row = |name: String, x: u64, y: u64| {
            if r.all || x != 0 || y != 0 {
                let d = y as i128 - x as i128;
                let pct = if x != 0 { format!(" ({:+.1}%)", d as f64 * 100.0 / x as f64) } else { String::new() };
                let _ = writeln!(out, "{name:<36} {x:>14} {y:>14} {:>14}{pct}", format!("{d:+}"));
            }
        };
        for ((k, x), (_, y)) in a.vmstat.iter().zip(b.vmstat.iter()) {
            row(k.to_string(), *x, *y);
        }
        for (ma, mb) in a.memcg.iter().zip(b.memcg.iter()) {
            row(format!("{}/memory.current", ma.name), ma.current, mb.current);
            row(format!("{}/memory.peak", ma.name), ma.peak, mb.peak);
            for ((k, x), (_, y)) in ma.events.iter().zip(mb.events.iter()) {
                row(format!("{}/memory.events:{k}", ma.name), *x, *y);
            }
        }
        row("sim/simulated_ns".into(), a.sim.simulated_ns, b.sim.simulated_ns);
        row("sim/task_ns".into(), a.sim.task_ns, b.sim.task_ns);
        row("sim/throughput_ops_per_s".into(), a.sim.throughput() as u64, b.sim.throughput() as u64);
        let _ = writeln!(out, "\nNote: pgscan_* and pgrefill mean different things under the two policies \
             (classic: pages walked on the inactive/active lists; MGLRU: pages isolated / sorted).");
    }
    if let Some(p) = &r.json {
        let text = format!(
            "{{\n\"classic\": {},\n\"mglru\": {}}}\n",
            mglru_core::json::report_json(a).trim_end(),
            mglru_core::json::report_json(b).trim_end()
        );
        if let Err(e) = write_json(p, &text) {
            eprintln!("mglru: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
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

/// `mglru validate [--suite DIR] [--results SUB] [--trace NAME] [--json PATH] [--check] [--cost-model-clock] [--extra NAMES] [--timeline NAMES[:MS]]`.
fn cmd_validate(args: &[String]) -> ExitCode {
    let mut dir = PathBuf::from("validation");
    let mut only: Option<String> = None;
    let mut json: Option<String> = None;
    let mut check = false;
    let mut follow_guest_clock = true;
    let mut results = String::from("results");
    let mut extra: Vec<String> = Vec::new();
    let mut timeline: Option<(Vec<String>, u64)> = None;
    let mut i = 0;
    while i < args.len() {
        let need = |i: &mut usize| -> Option<String> {
            *i += 1;
            args.get(*i).cloned()
        };
        match args[i].as_str() {
            "--cost-model-clock" => follow_guest_clock = false,
            "--results" => match need(&mut i) {
                Some(v) => results = v,
                None => return usage_err("--results needs a folder name".into()),
            },
            "--suite" => match need(&mut i) {
                Some(v) => dir = PathBuf::from(v),
                None => return usage_err("--suite needs a directory".into()),
            },
            "--trace" => only = need(&mut i),
            "--extra" => match need(&mut i) {
                Some(v) if v.split(',').all(|n| !n.is_empty()) => extra.extend(v.split(',').map(str::to_string)),
                _ => return usage_err("--extra needs vmstat counter names separated by commas, e.g. pgalloc_dma,pgscan_direct".into()),
            },
            "--json" => json = need(&mut i),
            "--check" => check = true,
            "--timeline" => match need(&mut i).as_deref().map(parse_timeline_arg) {
                Some(Ok(t)) => timeline = Some(t),
                Some(Err(e)) => return usage_err(e),
                None => return usage_err("--timeline needs `default` or vmstat counter names separated by commas, optionally :MS (rows at least MS ms of guest time apart, default 500)".into()),
            },
            other => {
                return usage_err(format!(
                    "validate: unknown option `{other}` (expected --suite, --results, --trace, --json, --check, --cost-model-clock, --extra, --timeline)"
                ))
            }
        }
        i += 1;
    }
    if let Some((names, every_ms)) = timeline {
        let Some(trace) = only else {
            return usage_err("--timeline needs --trace NAME (one trace at a time)".into());
        };
        if check || json.is_some() || !extra.is_empty() {
            return usage_err("--timeline shows one trace along its run; run --check, --json and --extra without it".into());
        }
        return match timeline::build(&dir, &results, &trace, &names, follow_guest_clock) {
            Ok(tls) => {
                print!("{}", timeline::render(&trace, &names, &tls, every_ms));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("mglru: {e}");
                ExitCode::from(1)
            }
        };
    }
    let cmp = match validate::compare_suite(&dir, &results, only.as_deref(), follow_guest_clock, &extra) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mglru: {e}");
            return ExitCode::from(1);
        }
    };
    let th = validate::load_thresholds(&dir).ok();
    print!("{}", validate::render(&cmp, th.as_ref()));
    if let Some(p) = json {
        if let Err(e) = write_json(&p, &validate::to_json(&cmp)) {
            eprintln!("mglru: {e}");
            return ExitCode::from(2);
        }
    }
    if check {
        let Some(th) = th else {
            eprintln!("mglru: {}/thresholds.json is missing or invalid", dir.display());
            return ExitCode::from(1);
        };
        if cmp.rows.is_empty() {
            eprintln!("mglru: no kernel results to check in {}/results", dir.display());
            return ExitCode::from(1);
        }
        if !cmp.missing.is_empty() {
            // A suite trace without kernel results would escape the check.
            eprintln!(
                "mglru: no kernel results for {} in {}/{results}: measure them (validation/run-suite.sh NAME) or remove the trace",
                cmp.missing.join(", "),
                dir.display()
            );
            return ExitCode::from(4);
        }
        if let Err(e) = validate::check(&cmp, &th) {
            eprintln!("mglru: validation failed:\n{e}");
            return ExitCode::from(4);
        }
        eprintln!("mglru: validation within the thresholds in force");
    }
    ExitCode::SUCCESS
}

/// `mglru workload SPEC --emit-trace FILE` and `mglru import FORMAT IN --emit-trace FILE`.
fn emit(lines: mglru_workload::Lines, out: &str) -> ExitCode {
    // `-` is standard output, as for --json.
    let sink: Box<dyn Write> = if out == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        match std::fs::File::create(out) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("mglru: creating {out}: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let mut w = std::io::BufWriter::new(sink);
    let mut n = 0u64;
    for l in lines {
        match l {
            Ok(l) => {
                if writeln!(w, "{l}").is_err() {
                    eprintln!("mglru: writing {out} failed");
                    return ExitCode::from(2);
                }
                n += 1;
            }
            Err(e) => {
                eprintln!("mglru: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if w.flush().is_err() {
        eprintln!("mglru: writing {out} failed");
        return ExitCode::from(2);
    }
    let to = if out == "-" { "standard output" } else { out };
    eprintln!("mglru: wrote {n} lines to {to}");
    ExitCode::SUCCESS
}

fn cmd_workload(args: &[String]) -> ExitCode {
    match args {
        [spec, flag, out] if flag == "--emit-trace" => match mglru_workload::workload(spec) {
            Ok(l) => emit(l, out),
            Err(e) => usage_err(format!("workload {spec}: {e}")),
        },
        [] | [_] => {
            let mut o = String::from("usage: mglru workload SPEC --emit-trace FILE   (or mglru run --workload SPEC)\ngenerators:\n");
            for (n, d) in mglru_workload::workload_names() {
                o.push_str(&format!("  {n:<16} {d}\n"));
            }
            print!("{o}");
            if args.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        _ => usage_err("usage: mglru workload SPEC --emit-trace FILE".into()),
    }
}

fn cmd_import(args: &[String]) -> ExitCode {
    match args {
        [fmt, input, flag, out] if flag == "--emit-trace" => {
            let opts = mglru_workload::ImportOptions::default();
            match mglru_workload::import(fmt, std::path::Path::new(input), &opts) {
                Ok(l) => emit(l, out),
                Err(e) => usage_err(format!("import {fmt} {input}: {e}")),
            }
        }
        _ => usage_err("usage: mglru import FORMAT INPUT --emit-trace FILE (formats: fio-iolog, blkparse, strace, lackey, oracle-general, cachesim-csv; see docs/WORKLOADS.md)".into()),
    }
}

fn cmd_trace(args: &[String]) -> ExitCode {
    match args.first().map(|s| s.as_str()) {
        Some("convert") if args.len() == 3 => {
            let mut reader = match TraceReader::open(std::path::Path::new(&args[1])) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("mglru: {e}");
                    return ExitCode::from(2);
                }
            };
            let f = match std::fs::File::create(&args[2]) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("mglru: creating {}: {e}", args[2]);
                    return ExitCode::from(2);
                }
            };
            let mut w = std::io::BufWriter::new(f);
            match mglru_trace::write_binary(&mut reader, &mut w) {
                Ok(n) => {
                    if let Err(e) = w.flush() {
                        eprintln!("mglru: writing {}: {e}", args[2]);
                        return ExitCode::from(2);
                    }
                    eprintln!("mglru: wrote {n} operations to {}", args[2]);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("mglru: {e}");
                    ExitCode::from(1)
                }
            }
        }
        _ => usage_err("usage: mglru trace convert IN OUT".into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(|s| s.as_str()) {
        Some("run") => cmd_run(&args[1..]),
        Some("compare") => cmd_compare(&args[1..]),
        Some("validate") => cmd_validate(&args[1..]),
        Some("workload") => cmd_workload(&args[1..]),
        Some("import") => cmd_import(&args[1..]),
        Some("trace") => cmd_trace(&args[1..]),
        Some("default-trace") => {
            print!("{}", default_workload::default_trace());
            ExitCode::SUCCESS
        }
        Some("help") | Some("--help") | Some("-h") | None => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some(other) => usage_err(format!("unknown command `{other}`: expected run, compare, validate, workload, import, trace, default-trace or help")),
    }
}
