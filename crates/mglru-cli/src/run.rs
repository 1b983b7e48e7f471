// SPDX-License-Identifier: GPL-2.0-only
//! `mglru run` (one streaming replay) and `mglru compare` (both policies).

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use mglru_core::report::Report;
use mglru_core::folio::NR_ZONES;
use mglru_core::kernel::{KernelVersion, Variant, ZoneSpec};
use mglru_core::{Policy, RunOptions, Simulator};
use mglru_sweep::grid::{check_size, check_variant_policy, parse_costs};
use mglru_sweep::{seeded, seeds, spread_rows, spread_summary, verdict, verdict_between, verdict_replicates, Failure, Figures, Setup, Source, Warmup, WarmupEnd};
use mglru_trace::TraceReader;

use crate::output::{self, Output};
use crate::progress::Progress;
use crate::{fail, timeseries, validate, PolicyArg, RunArgs};

/// The input and the run options the flags describe, checked before
/// anything runs.
fn options(a: &RunArgs) -> Result<(Source, RunOptions), Failure> {
    let source = Source::new(a.trace.as_deref(), a.workload.as_deref())?;
    let memory = one("--memory", a.memory.as_ref(), |&b| mglru_sweep::grid::fmt_size(b))?;
    let swap = one("--swap", a.swap.as_ref(), |&b| mglru_sweep::grid::fmt_size(b))?;
    if let Some(b) = memory {
        check_size("--memory", b)?;
    }
    if let Some(b) = swap {
        check_size("--swap", b)?;
    }
    let policy = one("--policy", a.policy.as_ref(), |p| format!("{p:?}").to_lowercase())?.map(|p| match p {
        PolicyArg::Classic => Policy::Classic,
        PolicyArg::Mglru => Policy::Mglru,
    });
    let mut sysctls = Vec::new();
    for (n, v) in &a.sysctl {
        if let Some(x) = one(&format!("--sysctl {}", n.name()), Some(v), |x| x.to_string())? {
            sysctls.push((*n, x));
        }
    }
    let variant = match a.variant.as_deref() {
        Some(v) if v.contains(',') => {
            return Err(Failure::input(format!("--variant {v}: `run` takes one variant; `mglru compare --variant A,B` compares two")))
        }
        Some(v) => Variant::parse(v).map_err(|e| Failure::input(format!("--variant: {e}")))?,
        None => Variant::PLAIN,
    };
    let kernel = match a.kernel.as_deref() {
        Some(v) if v.contains(',') => {
            return Err(Failure::input(format!("--kernel {v}: `run` takes one version; `mglru compare --kernel X,Y` compares two")))
        }
        Some(v) => KernelVersion::parse(v).map_err(|e| Failure::input(format!("--kernel: {e}")))?,
        None => KernelVersion::V6_12,
    };
    check_variant_policy(variant, policy)?;
    let opts = RunOptions {
        memory,
        swap,
        sysctls,
        policy,
        cost: parse_costs(&a.cost)?,
        seed: a.seed,
        kernel,
        variant,
        cpus: a.cpus,
        kswapd: a.kswapd.into(),
        schedule: a.schedule.map(Into::into).unwrap_or_default(),
        migratetypes: a.migratetypes,
        ..Default::default()
    };
    Ok((source, opts))
}

/// The one value of an option `run` takes once (`compare` takes two of
/// one option, which it has taken out of the flags before this).
fn one<T: Clone>(flag: &str, v: Option<&crate::Values<T>>, show: impl Fn(&T) -> String) -> Result<Option<T>, Failure> {
    match v.map(|v| v.0.as_slice()) {
        None | Some([]) => Ok(None),
        Some([x]) => Ok(Some(x.clone())),
        Some(xs) => {
            let shown: Vec<String> = xs.iter().map(show).collect();
            let list = shown.join(",");
            Err(Failure::input(format!(
                "{flag} {list}: `run` takes one value; `mglru compare {flag} {list}` compares two (and compares one thing at a time)"
            )))
        }
    }
}

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

/// What a streaming run does besides simulating.
struct Extras<'a> {
    /// Print `dump` statements' output (not when stdout carries JSON).
    dumps: bool,
    final_dump: bool,
    check: bool,
    progress: bool,
    timeseries: Option<(Output, u64)>,
    clock: validate::GuestClock<'a>,
    warmup: Option<(Warmup, WarmupEnd)>,
}

/// A run's reports: at the end, and at the end of its warm-up if it had one.
struct Reports {
    end: Report,
    warm: Option<Report>,
    warmup: Option<Warmup>,
}

impl Reports {
    /// The headline figures: after the warm-up.
    fn figures(&self) -> Figures {
        Figures::between(self.warm.as_ref(), &self.end)
    }
}

/// Replay a trace as it is read: memory stays flat however long it is.
fn simulate(reader: &mut TraceReader, opts: &RunOptions, mut x: Extras<'_>) -> Result<(Reports, Setup), Failure> {
    let mut setup = Setup::default();
    let start = Instant::now();
    let mut opts = opts.clone();
    if !x.clock.is_empty() {
        // The guest's clock holds the workload's own time (validate.rs).
        opts.cost = Some(validate::guest_clock_costs(opts.cost.unwrap_or_default()));
    }
    let mut sim = Simulator::new(opts);
    let bar = Progress::new(x.progress, reader.total_bytes());
    let mut n: u64 = 0;
    let mut dumped = 0;
    let mut ts = match x.timeseries.take() {
        Some((out, ms)) => Some(timeseries::Series::create(out, ms)?),
        None => None,
    };
    // Software pipelining: decode operations in blocks, ahead of the one
    // applied, and prefetch the memory they will touch (the model's work
    // is mostly cache misses). Errors are reported at the operation they
    // belong to: a decode error surfaces only after the operations before
    // it ran, and the location printed for a model error is that of the
    // operation applied.
    const AHEAD: usize = mglru_core::sim::PREFETCH_ENTRY_AHEAD; // page-cache entries are prefetched this many operations ahead,
    const FOLIO_AHEAD: usize = mglru_core::sim::PREFETCH_FOLIO_AHEAD; // and folios this many (their entry arrived meanwhile).
    const BLOCK: usize = 256; // operations decoded at a time
    let mut ops: Vec<mglru_trace::Op> = Vec::with_capacity(BLOCK);
    let mut lines: Vec<u64> = Vec::with_capacity(BLOCK);
    let mut i = 0;
    let (name, binary) = (reader.name().to_string(), reader.is_binary());
    let at = |line: u64| mglru_trace::Location { file: &name, line, binary }.to_string();
    let mut pending_err: Option<Failure> = None;
    let mut eof = false;
    let clock = !x.clock.is_empty();
    // Without a guest clock to follow or a time series to sample after
    // each operation, a one-page read of a cached page is applied with the
    // ones after it (Simulator::apply_cached_reads): what the loop below
    // would do for each, which for such a read is apply and count.
    let runs = !clock && ts.is_none();
    // The warm-up is checked after each operation, as a sweep does, so the
    // batched cached reads wait until it is over (they give the same
    // counters, in bigger steps).
    let mut warm: Option<Report> = None;
    loop {
        if let (Some((_, end)), None, Some(k)) = (x.warmup, &warm, sim.kernel()) {
            if end.reached(k) {
                warm = Some(k.report(reader));
            }
        }
        let runs = runs && (x.warmup.is_none() || warm.is_some());
        if i + AHEAD >= ops.len() && !eof && pending_err.is_none() {
            // Keep the operations not applied yet, then top the block up.
            ops.drain(..i);
            lines.drain(..i);
            i = 0;
            let before = ops.len();
            match reader.next_ops(&mut ops, &mut lines, BLOCK) {
                Ok(0) => eof = true,
                Ok(_) => {}
                Err(e) => pending_err = Some(Failure::input(e.to_string())),
            }
            // The first AHEAD operations of a fresh block get their
            // page-cache entries now; later ones as their turn nears.
            for op in &ops[before.min(AHEAD)..ops.len().min(AHEAD)] {
                sim.prefetch(op, 0);
            }
        }
        if runs {
            // Leave AHEAD operations for the next pass (the top of the loop
            // tops the block up first) unless the block is the last.
            let limit = if eof || pending_err.is_some() { ops.len() - i } else { ops.len().saturating_sub(i + AHEAD).max(1) };
            let k = sim.apply_cached_reads(&ops[i..], limit);
            if k > 0 {
                i += k;
                let before = n;
                n += k as u64;
                if (before ^ n) >> 16 != 0 {
                    bar.set(reader.bytes_read(), n);
                }
                continue;
            }
        }
        let Some(op) = ops.get(i) else {
            if let Some(e) = pending_err {
                return Err(e);
            }
            break;
        };
        let line = lines[i];
        if let Some(o) = ops.get(i + AHEAD) {
            sim.prefetch(o, 0);
        }
        if let Some(o) = ops.get(i + FOLIO_AHEAD) {
            sim.prefetch(o, 1);
        }
        i += 1;
        // --guest-clock: the model's clock catches up with the guest's
        // before each sampled line (as `mglru validate` does).
        if clock {
            if let Some(ns) = x.clock.target(line) {
                sim.clock_at_least(ns).map_err(|e| Failure::input(format!("{}: {e}", reader.name())))?;
            }
        }
        sim.apply(op).map_err(|e| Failure::input(format!("{}: {e}", at(line))))?;
        let access = op.is_access();
        if !access {
            // Accesses describe no part of the machine.
            setup.observe(op);
        }
        if let (Some(t), Some(k)) = (ts.as_mut(), sim.kernel()) {
            t.sample(k, &|m| reader.memcg_name(m).to_string()).map_err(Failure::io)?;
        }
        // Only a `dump` statement asks for a dump; accesses cannot.
        if let (false, Some(k)) = (access, sim.kernel()) {
            if k.dump_requests != dumped {
                dumped = k.dump_requests;
                if x.dumps {
                    let mut text = format!("# lru_gen at {} ({:.3} s simulated)\n", at(line), k.now as f64 / 1e9);
                    text.push_str(&k.lru_gen_debugfs(&|m| cgroup_path(reader, m)));
                    output::print(&text)?;
                }
            }
        }
        n += 1;
        if n & 0xffff == 0 {
            bar.set(reader.bytes_read(), n);
        }
    }
    bar.finish();
    if n == 0 {
        return Err(Failure::input(format!("{}: the trace is empty (no statements): nothing to simulate", reader.name())));
    }
    let k = sim.finish().map_err(|e| Failure::input(format!("{}: {e}", reader.name())))?;
    if x.check {
        k.check_invariants().map_err(|e| Failure { msg: format!("internal error: accounting invariant broken: {e}"), code: 3 })?;
    }
    if x.final_dump {
        let mut text = format!("# /sys/kernel/debug/lru_gen at the end ({:.3} s simulated)\n", k.now as f64 / 1e9);
        text.push_str(&k.lru_gen_debugfs(&|m| cgroup_path(reader, m)));
        output::print(&text)?;
    }
    if let (Some((w, end)), None) = (x.warmup, &warm) {
        if end.reached(k) {
            warm = Some(k.report(reader));
        } else {
            return Err(end.not_reached(w, k));
        }
    }
    // The series is complete: put it in place (a failed run left the
    // previous one alone).
    if let Some(t) = ts {
        t.finish(k, &|m| reader.memcg_name(m).to_string())?;
    }
    let mut rep = k.report(reader);
    rep.sim.wall_seconds = start.elapsed().as_secs_f64();
    if rep.sim.access_ops == 0 {
        eprintln!("mglru: warning: {} has no page accesses (read, write, load, store): the counters show the setup only", reader.name());
    }
    Ok((Reports { end: rep, warm, warmup: x.warmup.map(|w| w.0) }, setup))
}

/// What a person reads first: the machine simulated, then the derived
/// figures (mglru_sweep::figures says how each is computed).
fn head(setup: &Setup, opts: &RunOptions, reader_names: &dyn Fn(u16) -> String, reps: &Reports, input: &str) -> String {
    let rep = &reps.end;
    let mut out = String::from("configuration\n");
    out.push_str(&setup.describe(opts, &[], reader_names, rep.policy, input));
    match (reps.warmup, &reps.warm) {
        (Some(w), Some(at)) => {
            let _ = writeln!(
                out,
                "  {:<10} {} (ended at {:.3} s, after {} page accesses)",
                "warm-up",
                w.describe(),
                at.sim.simulated_ns as f64 / 1e9,
                mglru_sweep::figures::thousands(at.sim.page_accesses)
            );
            let _ = writeln!(out, "\nsummary{:<33} {:>30}   {}", "", "after the warm-up", "whole run");
            for ((k, v), (_, w)) in reps.figures().rows().into_iter().zip(Figures::of(rep).rows()) {
                let _ = writeln!(out, "  {k:<38} {v:>30}   {w}");
            }
        }
        _ => {
            out.push_str("\nsummary\n");
            for (k, v) in Figures::of(rep).rows() {
                let _ = writeln!(out, "  {k:<38} {v}");
            }
        }
    }
    out.push('\n');
    out
}

/// The report `mglru run --json` writes (schema in docs/CLI.md), with the
/// derived figures after it: `figures` (after the warm-up, if any), and
/// with a warm-up `warmup` (where it ended) and `whole_run_figures`.
fn report_with_figures(r: &Reports) -> Result<serde_json::Value, Failure> {
    let err = |e: serde_json::Error| Failure::io(e.to_string());
    let mut v = serde_json::to_value(mglru_core::json::report_value(&r.end)).map_err(err)?;
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("figures".into(), serde_json::to_value(r.figures()).map_err(err)?);
        if let (Some(w), Some(at)) = (r.warmup, &r.warm) {
            m.insert(
                "warmup".into(),
                serde_json::json!({ "spec": w.text(), "end_seconds": at.sim.simulated_ns as f64 / 1e9, "end_accesses": at.sim.page_accesses }),
            );
            m.insert("whole_run_figures".into(), serde_json::to_value(Figures::of(&r.end)).map_err(err)?);
        }
    }
    Ok(v)
}

/// `--warmup`, checked, and where it ends in this input: a share of the
/// accesses needs them counted first, which reads the input once more.
fn warmup_of(a: &RunArgs, source: &Source) -> Result<Option<(Warmup, WarmupEnd)>, Failure> {
    let Some(text) = a.warmup.as_deref() else { return Ok(None) };
    let w = Warmup::parse(text)?;
    let total = match (w, source) {
        (Warmup::Share(_), Source::Trace(p)) if crate::is_dash(p) => None,
        (Warmup::Share(_), _) => {
            rereadable(source, "--warmup N% counts the trace's accesses before the run")?;
            let mut r = source.open()?;
            let mut n = 0u64;
            while let Some(op) = r.next_op().map_err(|e| Failure::input(e.to_string()))? {
                n += mglru_sweep::warmup::op_accesses(&op);
            }
            Some(n)
        }
        _ => None,
    };
    Ok(Some((w, w.end(total)?)))
}

/// The raw counters, with the kernel's names, as before.
fn counters_table(r: &Report, all: bool) -> String {
    let mut out = String::new();
    // (The policy and the kernel are in the configuration above.)
    let _ = writeln!(out, "/proc/vmstat");
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
        if r.has_swap_peak() {
            let _ = writeln!(out, "  {:<34} {:>14}", "memory.swap.peak", m.swap_peak);
        }
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
    for (i, p) in r.stats.iter().enumerate() {
        let _ = writeln!(out, "\nstat {} #{} at {:.3}s", p.memcg, i + 1, p.time_ns as f64 / 1e9);
        for (k, v) in [
            ("memory.current", p.current),
            ("memory.peak", p.peak),
            ("memory.swap.current", p.swap_current),
            ("memory.swap.peak", p.swap_peak),
            ("memory.peak (since reset)", p.peak_since_reset),
            ("memory.swap.peak (since reset)", p.swap_peak_since_reset),
        ] {
            if k.starts_with("memory.swap.peak") && !r.has_swap_peak() {
                continue;
            }
            let _ = writeln!(out, "  {k:<34} {v:>14}");
        }
        for (k, v) in &p.events {
            if all || *v != 0 {
                let _ = writeln!(out, "  {:<34} {v:>14}", format!("memory.events:{k}"));
            }
        }
        for (k, v) in &p.stat {
            if all || *v != 0 {
                let _ = writeln!(out, "  {:<34} {v:>14}", format!("memory.stat:{k}"));
            }
        }
    }
    if !r.reclaims.is_empty() {
        let _ = writeln!(out, "\nmemory.reclaim writes (result: 0 or -11 = -EAGAIN)");
        for (i, c) in r.reclaims.iter().enumerate() {
            let _ = writeln!(
                out,
                "  #{:<4} {:<20} bytes={:<12} reclaimed_pages={:<10} result={}",
                i + 1,
                c.memcg,
                c.bytes,
                c.reclaimed_pages,
                c.result
            );
        }
    }
    if let Some(z) = &r.zram {
        let _ = writeln!(out, "\nzram (ratio {}.{:02})", z.ratio / 100, z.ratio % 100);
        let _ = writeln!(out, "  {:<34} {:>14}", "orig_data_size", z.orig_data_size);
        let _ = writeln!(out, "  {:<34} {:>14}", "compr_data_size", z.compr_data_size);
        let _ = writeln!(out, "  {:<34} {:>14}", "mem_used_total", z.mem_used_total);
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
    out
}

/// `--timeseries PATH[:MS]`.
fn parse_timeseries(v: &str) -> Result<(String, u64), Failure> {
    let (path, ms) = match v.rsplit_once(':') {
        Some((p, m)) if !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) => {
            (p.to_string(), m.parse::<u64>().map_err(|_| Failure::input(format!("--timeseries {v}: bad interval")))?)
        }
        _ => (v.to_string(), 100),
    };
    if ms == 0 {
        return Err(Failure::input(format!("--timeseries {v}: the interval must be at least 1 ms")));
    }
    Ok((path, ms))
}

pub fn cmd_run(a: RunArgs) -> ExitCode {
    match run(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => fail(f),
    }
}

/// The files a command reads, for output::distinct: the trace and a
/// `--guest-clock` result.
pub fn inputs_of<'a>(source: &'a Source, guest_clock: Option<&'a Path>) -> Vec<(&'static str, &'a Path)> {
    let mut v = Vec::new();
    if let Source::Trace(p) = source {
        v.push(("trace", p.as_path()));
    }
    if let Some(g) = guest_clock {
        v.push(("--guest-clock", g));
    }
    v
}

/// Refuse a trace that cannot be read a second time (standard input, a
/// pipe, a FIFO, a device) where `why` needs two passes: the second would
/// find nothing, or wait for ever on a FIFO.
pub fn rereadable(source: &Source, why: &str) -> Result<(), Failure> {
    if let Source::Trace(p) = source {
        let stream = crate::is_dash(p) || std::fs::metadata(p).is_ok_and(|m| !m.is_file());
        if stream {
            return Err(Failure::input(format!(
                "{}: {why}, and a pipe, FIFO, device or standard input can be read only once: save the trace to a file first (`... > t.trace`) and give that",
                if crate::is_dash(p) { "-".to_string() } else { p.display().to_string() }
            )));
        }
    }
    Ok(())
}

/// The seeds `--seed` and `--replicates` give (one without --replicates).
fn seeds_of(a: &RunArgs) -> Result<Vec<u64>, Failure> {
    seeds(Some(&a.seed.to_string()), a.replicates)
}

/// Refuse the options that follow one run when there are several.
fn single_run_only(a: &RunArgs, cmd: &str) -> Result<(), Failure> {
    for (flag, given) in [("--timeseries", a.timeseries.is_some()), ("--guest-clock", a.guest_clock.is_some()), ("--lru-gen-dump", a.lru_gen_dump)] {
        if given {
            return Err(Failure::input(format!("{flag} follows one run; {cmd} --replicates runs several: drop one of them (or give --seed N for one replicate)")));
        }
    }
    Ok(())
}

/// The replicates of one configuration: one streaming run per seed.
fn run_replicates(a: &RunArgs, source: &Source, opts: &RunOptions, seeds: &[u64], progress: bool) -> Result<(Vec<Reports>, Setup, Vec<String>), Failure> {
    let mut reps = Vec::new();
    let mut setup = Setup::default();
    let mut names = Vec::new();
    for &seed in seeds {
        let src = seeded(source, seed)?;
        let mut o = opts.clone();
        o.seed = seed;
        let mut reader = src.open()?;
        let extras = Extras {
            dumps: false,
            final_dump: false,
            check: a.check,
            progress,
            timeseries: None,
            clock: validate::GuestClock::new(&[], &[]),
            warmup: warmup_of(a, &src)?,
        };
        let (r, s) = simulate(&mut reader, &o, extras)?;
        reps.push(r);
        setup = s;
        names = (0..reader.memcg_count() as u16).map(|m| reader.memcg_name(m).to_string()).collect();
    }
    Ok((reps, setup, names))
}

/// "seeds 0, 1, 2".
fn seed_list(seeds: &[u64]) -> String {
    format!("seed{} {}", if seeds.len() == 1 { "" } else { "s" }, seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
}

/// The JSON of replicates (docs/CLI.md): the seeds, each figure's mean
/// and 95 % half width, and every replicate's report with its index and seed.
fn replicates_json(reps: &[Reports], seeds: &[u64], figs: &[Figures]) -> Result<serde_json::Value, Failure> {
    let runs: Vec<serde_json::Value> = reps
        .iter()
        .zip(seeds)
        .enumerate()
        .map(|(i, (r, s))| {
            let mut v = report_with_figures(r)?;
            v["replicate"] = serde_json::Value::from(i);
            v["seed"] = serde_json::Value::from(*s);
            Ok(v)
        })
        .collect::<Result<_, Failure>>()?;
    Ok(serde_json::json!({"seeds": seeds, "summary": spread_summary(figs), "replicates": runs}))
}

/// `mglru run --replicates N`.
fn run_replicated(a: &RunArgs, source: &Source, opts: &RunOptions) -> Result<(), Failure> {
    single_run_only(a, "run")?;
    let seeds = seeds_of(a)?;
    if seeds.len() > 1 {
        rereadable(source, "run --replicates reads the trace once per replicate")?;
    }
    let json = a.json.as_deref().map(|p| Output::open("--json", p)).transpose()?;
    output::distinct(&json.iter().collect::<Vec<_>>(), &inputs_of(source, None))?;
    let stdout_taken = json.as_ref().is_some_and(|j| j.is_stdout());
    let (reps, setup, names) = run_replicates(a, source, opts, &seeds, !a.no_progress)?;
    let figs: Vec<Figures> = reps.iter().map(Reports::figures).collect();
    if !a.quiet && !stdout_taken {
        let name = |m: u16| names.get(m as usize).cloned().unwrap_or_default();
        let mut out = String::from("configuration\n");
        out.push_str(&setup.describe(opts, &[], &name, reps[0].end.policy, &source.describe()));
        let _ = writeln!(out, "  {:<10} {} replicates, {} (docs/SWEEP.md \"Replicates\")", "replicates", seeds.len(), seed_list(&seeds));
        if let (Some(w), Some(at)) = (reps[0].warmup, &reps[0].warm) {
            let _ = writeln!(out, "  {:<10} {} (the first replicate's ended at {:.3} s)", "warm-up", w.describe(), at.sim.simulated_ns as f64 / 1e9);
        }
        let title = if reps[0].warmup.is_some() { "summary after the warm-up" } else { "summary" };
        let _ = writeln!(out, "\n{title}: mean ± 95 % interval (Student's t) over the replicates");
        for (k, v) in spread_rows(&figs) {
            let _ = writeln!(out, "  {k:<38} {v}");
        }
        let _ = writeln!(out, "\ncounters of the first replicate ({}); --json has every replicate's", seed_list(&seeds[..1]));
        out.push_str(&counters_table(&reps[0].end, a.all));
        output::print(&out)?;
    }
    if let Some(j) = json {
        let doc = replicates_json(&reps, &seeds, &figs)?;
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| Failure::io(e.to_string()))?;
        text.push('\n');
        j.write(text.as_bytes())?;
    }
    Ok(())
}

/// `--start-zones RESULT`: the zones RESULT's guest had when its workload
/// began (validate.rs `parse_start_zones`), laid out from its
/// pagetypeinfo only with `--migratetypes`, as `mglru validate` does.
fn start_zones_of(p: &std::path::Path, memory_given: bool, migratetypes: bool) -> Result<[ZoneSpec; NR_ZONES], Failure> {
    if memory_given {
        return Err(Failure::input(format!("--start-zones {} gives the memory (the guest's zones): drop --memory", p.display())));
    }
    let kr = validate::load_kernel_result(p).map_err(|e| Failure::input(format!("--start-zones: {e}")))?;
    let Some(zones) = kr.start_zones else {
        return Err(Failure::input(format!(
            "--start-zones {}: the result has no start_zones (record it with the current validation/run-kernel.sh), or give --memory",
            p.display()
        )));
    };
    Ok(validate::zones_for_run(zones, migratetypes))
}

fn run(a: RunArgs) -> Result<(), Failure> {
    let (source, mut opts) = options(&a)?;
    if let Some(p) = &a.start_zones {
        opts.zones = Some(start_zones_of(p, opts.memory.is_some(), opts.migratetypes)?);
    }
    if a.replicates.is_some() {
        return run_replicated(&a, &source, &opts);
    }
    let source = seeded(&source, a.seed)?;
    let timeseries = a.timeseries.as_deref().map(parse_timeseries).transpose()?;
    output::one_stdout(&[("--json", a.json.as_deref()), ("--timeseries", timeseries.as_ref().map(|t| t.0.as_str()))])?;
    let json = a.json.as_deref().map(|p| Output::open("--json", p)).transpose()?;
    let timeseries = timeseries.map(|(p, ms)| Output::open("--timeseries", &p).map(|o| (o, ms))).transpose()?;
    let stdout_taken = json.as_ref().is_some_and(|j| j.is_stdout()) || timeseries.as_ref().is_some_and(|t| t.0.is_stdout());
    let outs: Vec<&Output> = json.iter().chain(timeseries.iter().map(|t| &t.0)).collect();
    output::distinct(&outs, &inputs_of(&source, a.guest_clock.as_deref()))?;
    let mut guest_policy = None;
    let guest_clock = match &a.guest_clock {
        None => Vec::new(),
        Some(p) => {
            let kr = validate::load_kernel_result(p).map_err(|e| Failure::input(format!("--guest-clock: {e}")))?;
            if kr.profile.is_empty() {
                return Err(Failure::input(format!(
                    "--guest-clock {}: the result has no time_profile (record it with the current mglru-replay, validation/run-kernel.sh)",
                    p.display()
                )));
            }
            // Its clock is a guest's time: bounded like a trace's sleeps.
            if let Some(&(line, ns)) = kr.profile.iter().find(|&&(_, ns)| ns > mglru_trace::MAX_SLEEP_NS) {
                return Err(Failure::input(format!(
                    "--guest-clock {}: the time profile reaches {} s at line {line}, beyond the 365 days a trace's time may span: is it a result of validation/run-kernel.sh?",
                    p.display(),
                    ns / 1_000_000_000
                )));
            }
            if let Some(want) = opts.policy.filter(|&w| w != kr.policy) {
                return Err(Failure::input(format!(
                    "--guest-clock {}: the result is of a {} run and --policy asks for {}: the guest's clock follows its own policy's run; give --policy {} (or a result of the other policy)",
                    p.display(),
                    validate::policy_name(kr.policy),
                    validate::policy_name(want),
                    validate::policy_name(kr.policy)
                )));
            }
            // A parallel replay's clock drives a parallel run (unless
            // --schedule says otherwise).
            if a.schedule.is_none() {
                opts.schedule = kr.schedule;
            }
            guest_policy = Some(kr.policy);
            kr.profile
        }
    };
    // The trace's sleeps, for the guest's clock (validate::GuestClock).
    let sleeps = if guest_clock.is_empty() {
        Vec::new()
    } else {
        rereadable(&source, "--guest-clock reads the trace twice (its sleeps, then the run)")?;
        let mut r = source.open()?;
        let sleeps = validate::trace_sleeps(&mut r).map_err(Failure::input)?;
        let (last, gc) = (r.line(), a.guest_clock.as_deref().expect("a profile comes from --guest-clock"));
        if let Some(&(line, _)) = guest_clock.last().filter(|&&(l, _)| l > last) {
            return Err(Failure::input(format!(
                "--guest-clock {}: its time profile reaches line {line}, and {} has {last}: it is the result of another trace; give the result of this one",
                gc.display(),
                r.name()
            )));
        }
        sleeps
    };
    let mut reader = source.open()?;
    let extras = Extras {
        dumps: !stdout_taken,
        final_dump: a.lru_gen_dump && !stdout_taken,
        check: a.check,
        progress: !a.no_progress,
        timeseries,
        clock: validate::GuestClock::new(&guest_clock, &sleeps),
        warmup: warmup_of(&a, &source)?,
    };
    let (reps, setup) = simulate(&mut reader, &opts, extras)?;
    let rep = &reps.end;
    if let (Some(gc), Some(theirs)) = (a.guest_clock.as_deref(), guest_policy) {
        let theirs = validate::policy_name(theirs);
        if rep.policy != theirs {
            return Err(Failure::input(format!(
                "--guest-clock {}: the result is of a {} run, and this one ran {} (the trace's or the kernel's default): the guest's clock follows its own policy's run; give --policy {}",
                gc.display(),
                theirs,
                rep.policy,
                theirs
            )));
        }
    }
    if opts.variant != Variant::PLAIN && rep.policy == "classic" {
        eprintln!("mglru: warning: the trace selected the classic LRU (lru_gen.enabled); --variant changes the multi-gen LRU only and had no effect");
    }
    if !a.quiet && !stdout_taken {
        let names = |m: u16| reader.memcg_name(m).to_string();
        let mut text = head(&setup, &opts, &names, &reps, &source.describe());
        text.push_str(&counters_table(rep, a.all));
        output::print(&text)?;
    }
    if let Some(j) = json {
        let mut text = serde_json::to_string_pretty(&report_with_figures(&reps)?).map_err(|e| Failure::io(e.to_string()))?;
        text.push('\n');
        j.write(text.as_bytes())?;
    }
    Ok(())
}

pub fn cmd_compare(a: RunArgs) -> ExitCode {
    match compare(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => fail(f),
    }
}

/// What `compare` sets side by side: one option with two values. The
/// two policies when no option has two.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Policy([Policy; 2]),
    Kernel([KernelVersion; 2]),
    Variant([Variant; 2]),
    Memory([u64; 2]),
    Swap([u64; 2]),
    Sysctl(mglru_trace::Sysctl, [u64; 2]),
}

impl Axis {
    /// The option as the verdict and the configuration name it.
    fn what(self) -> String {
        match self {
            Axis::Policy(_) => "policy".into(),
            Axis::Kernel(_) => "kernel".into(),
            Axis::Variant(_) => "variant".into(),
            Axis::Memory(_) => "memory".into(),
            Axis::Swap(_) => "swap".into(),
            Axis::Sysctl(n, _) => n.name().to_string(),
        }
    }

    /// The two columns' names.
    fn names(self) -> [String; 2] {
        let size = mglru_sweep::grid::fmt_size;
        match self {
            Axis::Policy(p) => p.map(|p| if p == Policy::Classic { "classic".to_string() } else { "mglru".to_string() }),
            Axis::Kernel(k) => k.map(|k| k.name().to_string()),
            Axis::Variant(v) => v.map(|v| v.name().to_string()),
            Axis::Memory(m) | Axis::Swap(m) => m.map(size),
            Axis::Sysctl(n, v) => v.map(|x| format!("{}={x}", n.name())),
        }
    }

    /// How the verdict names one side: "MGLRU", "Linux 7.2", "memory 2G".
    fn label(self, i: usize) -> String {
        let n = &self.names()[i];
        match self {
            Axis::Policy(p) => if p[i] == Policy::Mglru { "MGLRU".into() } else { "classic".into() },
            Axis::Kernel(_) => format!("Linux {n}"),
            Axis::Variant(v) if v[i] == Variant::PLAIN => "the plain kernel".into(),
            Axis::Variant(_) => format!("variant {n}"),
            Axis::Memory(_) => format!("memory {n}"),
            Axis::Swap(_) => format!("swap {n}"),
            Axis::Sysctl(..) => n.clone(),
        }
    }

    /// The run options of side `i`.
    fn apply(self, i: usize, base: &RunOptions) -> RunOptions {
        let mut o = base.clone();
        match self {
            Axis::Policy(p) => {
                o.policy = Some(p[i]);
                if p[i] == Policy::Classic {
                    o.variant = Variant::PLAIN;
                }
            }
            Axis::Kernel(k) => o.kernel = k[i],
            Axis::Variant(v) => o.variant = v[i],
            Axis::Memory(m) => o.memory = Some(m[i]),
            Axis::Swap(m) => o.swap = Some(m[i]),
            Axis::Sysctl(n, v) => o.sysctls.push((n, v[i])),
        }
        o
    }
}

/// The two values of a comma-separated `flag`, parsed by `parse`.
fn two<T>(flag: &str, v: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Option<[T; 2]>, Failure> {
    if !v.contains(',') {
        return Ok(None);
    }
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
        return Err(Failure::input(format!("{flag} {v}: compare takes exactly two values, e.g. {flag} A,B")));
    }
    let a = parse(parts[0]).map_err(|e| Failure::input(format!("{flag}: {e}")))?;
    let b = parse(parts[1]).map_err(|e| Failure::input(format!("{flag}: {e}")))?;
    Ok(Some([a, b]))
}

/// The pair of a `Values` option given two values.
fn pair<T: Copy>(v: Option<&crate::Values<T>>) -> Option<[T; 2]> {
    match v.map(|v| v.0.as_slice()) {
        Some(&[a, b]) => Some([a, b]),
        _ => None,
    }
}

/// The one option of `a` that has two values, taken out of `a` (so the
/// rest of the options describe what both sides share).
fn compared_axis(a: &mut RunArgs) -> Result<Axis, Failure> {
    let mut found: Vec<(String, Axis)> = Vec::new();
    if let Some(k) = a.kernel.as_deref().map(|v| two("--kernel", v, KernelVersion::parse)).transpose()?.flatten() {
        if k[0] == k[1] {
            return Err(Failure::input(format!("--kernel {0},{0}: give two different versions", k[0].name())));
        }
        a.kernel = None;
        found.push(("--kernel".into(), Axis::Kernel(k)));
    }
    if let Some(v) = a.variant.as_deref().map(|v| two("--variant", v, Variant::parse)).transpose()?.flatten() {
        if v[0] == v[1] {
            return Err(Failure::input(format!("--variant {0},{0}: give two different variants", v[0].name())));
        }
        a.variant = None;
        found.push(("--variant".into(), Axis::Variant(v)));
    }
    if let Some(p) = pair(a.policy.as_ref()) {
        if p[0] == p[1] {
            return Err(Failure::input("--policy: give two different policies (classic,mglru or mglru,classic)"));
        }
        let p = p.map(|p| if p == PolicyArg::Classic { Policy::Classic } else { Policy::Mglru });
        a.policy = None;
        found.push(("--policy".into(), Axis::Policy(p)));
    }
    for (flag, v, mk) in [("--memory", &mut a.memory, Axis::Memory as fn([u64; 2]) -> Axis), ("--swap", &mut a.swap, Axis::Swap)] {
        if let Some(m) = pair(v.as_ref()) {
            if m[0] == m[1] {
                return Err(Failure::input(format!("{flag} {0},{0}: give two different sizes", mglru_sweep::grid::fmt_size(m[0]))));
            }
            *v = None;
            found.push((flag.into(), mk(m)));
        }
    }
    let mut keep = Vec::new();
    for (n, v) in std::mem::take(&mut a.sysctl) {
        match pair(Some(&v)) {
            Some(x) if x[0] == x[1] => return Err(Failure::input(format!("--sysctl {}={1},{1}: give two different values", n.name(), x[0]))),
            Some(x) => found.push((format!("--sysctl {}", n.name()), Axis::Sysctl(n, x))),
            None => keep.push((n, v)),
        }
    }
    a.sysctl = keep;
    match found.len() {
        0 => {}
        1 => return Ok(found[0].1),
        _ => {
            let flags: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
            return Err(Failure::input(format!(
                "compare one thing at a time: {} each have two values; give two values to one of them",
                flags.join(", ")
            )));
        }
    }
    if a.policy.is_some() {
        return Err(Failure::input(
            "compare runs both policies: drop --policy, or give it two (--policy mglru,classic), or compare two values of another option under one policy (--kernel X,Y, --variant A,B, --memory A,B, --swap A,B, --sysctl NAME=A,B)",
        ));
    }
    Ok(Axis::Policy([Policy::Classic, Policy::Mglru]))
}

fn compare(mut a: RunArgs) -> Result<(), Failure> {
    let axis = compared_axis(&mut a)?;
    if matches!(axis, Axis::Variant(_)) && matches!(a.policy.as_ref().map(|p| p.0.as_slice()), Some([PolicyArg::Classic])) {
        return Err(Failure::input("--variant changes the multi-gen LRU only: compare variants without --policy classic"));
    }
    for (flag, given) in [("--timeseries", a.timeseries.is_some()), ("--guest-clock", a.guest_clock.is_some()), ("--lru-gen-dump", a.lru_gen_dump), ("--start-zones", a.start_zones.is_some())] {
        if given {
            return Err(Failure::input(format!("{flag} is for `mglru run` (one configuration at a time): run it once per configuration")));
        }
    }
    if matches!(axis, Axis::Policy(_)) && a.variant.as_deref().is_some_and(|v| Variant::parse(v).is_ok_and(|v| v != Variant::PLAIN)) {
        eprintln!("mglru: note: --variant changes the multi-gen LRU only; the classic column is the plain kernel");
    }
    let (source, opts) = options(&a)?;
    rereadable(&source, "compare reads the trace once per column")?;
    let json = a.json.as_deref().map(|p| Output::open("--json", p)).transpose()?;
    output::distinct(&json.iter().collect::<Vec<_>>(), &inputs_of(&source, None))?;
    // The two configurations and their column names.
    let names = axis.names();
    let configs: Vec<(String, RunOptions)> = (0..2).map(|i| (names[i].clone(), axis.apply(i, &opts))).collect();
    for (_, o) in &configs {
        if let Some(b) = o.memory {
            check_size("--memory", b)?;
        }
        if let Some(b) = o.swap {
            check_size("--swap", b)?;
        }
    }
    if a.replicates.is_some() {
        single_run_only(&a, "compare")?;
    }
    let seeds = seeds_of(&a)?;
    let warmup = warmup_of(&a, &seeded(&source, seeds[0])?)?;
    // Each side under every seed; side i's replicate r and the other
    // side's ran on the same input (the same seed).
    let mut sides: Vec<Vec<Reports>> = Vec::new();
    let mut setup = Setup::default();
    let mut memcg_names: Vec<String> = Vec::new();
    for (_, o) in &configs {
        let (r, s, n) = run_replicates(&a, &source, o, &seeds, !a.no_progress)?;
        sides.push(r);
        setup = s;
        memcg_names = n;
    }
    let replicated = seeds.len() > 1;
    let figs: Vec<Vec<Figures>> = sides.iter().map(|s| s.iter().map(Reports::figures).collect()).collect();
    let reps: Vec<&Reports> = sides.iter().map(|s| &s[0]).collect();
    let (ln, rn) = (configs[0].0.as_str(), configs[1].0.as_str());
    let (x, y) = (&reps[0].end, &reps[1].end);
    let (fx, fy) = (reps[0].figures(), reps[1].figures());
    let json_to_stdout = json.as_ref().is_some_and(|j| j.is_stdout());
    if !a.quiet && !json_to_stdout {
        let mut out = String::from("configuration\n");
        let names = |m: u16| memcg_names.get(m as usize).cloned().unwrap_or_default();
        let policies = if x.policy == y.policy { x.policy.to_string() } else { format!("{} and {}", x.policy, y.policy) };
        let what = match axis {
            Axis::Policy(_) => format!("{ln} and {rn}"),
            Axis::Kernel(_) => format!("{policies} (Linux {ln} and Linux {rn})"),
            Axis::Variant(_) => format!("{policies} (variants {ln} and {rn})"),
            _ => policies,
        };
        let shared = setup.describe(&opts, &[], &names, &what, &source.describe());
        // The compared option's row says both values.
        let both = format!("{ln} and {rn} (compared)");
        for line in shared.lines() {
            let key = line.split_whitespace().next().unwrap_or("");
            let v = match (axis, key) {
                (Axis::Memory(_), "RAM") | (Axis::Swap(_), "swap") => both.clone(),
                _ => {
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
            };
            let _ = writeln!(out, "  {key:<10} {v}");
        }
        let _ = writeln!(out, "  {:<10} {}: {ln} (left) against {rn} (right)", "compared", axis.what());
        let title = match warmup {
            Some((w, _)) => {
                let _ = writeln!(out, "  {:<10} {} (the raw counters below are the whole run's)", "warm-up", w.describe());
                "summary after the warm-up"
            }
            None => "summary",
        };
        // Columns as wide as their widest value, so every row lines up.
        if replicated {
            let _ = writeln!(out, "  {:<10} {} replicates of each side, {}: mean ± 95 % interval (Student's t)", "replicates", seeds.len(), seed_list(&seeds));
        }
        let (rx, ry) = if replicated { (spread_rows(&figs[0]), spread_rows(&figs[1])) } else { (fx.rows(), fy.rows()) };
        let kw = rx.iter().map(|r| r.0.len()).max().unwrap_or(0).max(title.len() - 2);
        let w = |rows: &[(&str, String)], head: &str| rows.iter().map(|r| r.1.chars().count()).chain([head.len()]).max().unwrap_or(0);
        let (wl, wr) = (w(&rx, ln), w(&ry, rn));
        let _ = writeln!(out, "\n{title:<k$}   {ln:>wl$}   {rn:>wr$}", k = kw + 2);
        for ((k, p), (_, q)) in rx.iter().zip(&ry) {
            let _ = writeln!(out, "  {k:<kw$}   {p:>wl$}   {q:>wr$}");
        }
        out.push('\n');
        if replicated {
            let _ = writeln!(out, "counters of the first replicate ({}); --json has every replicate's", seed_list(&seeds[..1]));
        }
        let _ = writeln!(out, "{:<36} {:>14} {:>14} {:>14}", "counter", ln, rn, "difference");
        let mut row = |name: String, p: u64, q: u64| {
            if a.all || p != 0 || q != 0 {
                let d = q as i128 - p as i128;
                let pct = if p != 0 { format!(" ({:+.1}%)", d as f64 * 100.0 / p as f64) } else { String::new() };
                let _ = writeln!(out, "{name:<36} {p:>14} {q:>14} {:>14}{pct}", format!("{d:+}"));
            }
        };
        for ((k, p), (_, q)) in x.vmstat.iter().zip(y.vmstat.iter()) {
            row(k.to_string(), *p, *q);
        }
        for (ma, mb) in x.memcg.iter().zip(y.memcg.iter()) {
            row(format!("{}/memory.current", ma.name), ma.current, mb.current);
            row(format!("{}/memory.peak", ma.name), ma.peak, mb.peak);
            for ((k, p), (_, q)) in ma.events.iter().zip(mb.events.iter()) {
                row(format!("{}/memory.events:{k}", ma.name), *p, *q);
            }
        }
        row("sim/simulated_ns".into(), x.sim.simulated_ns, y.sim.simulated_ns);
        row("sim/task_ns".into(), x.sim.task_ns, y.sim.task_ns);
        row("sim/throughput_ops_per_s".into(), x.sim.throughput() as u64, y.sim.throughput() as u64);
        if x.policy != y.policy {
            let _ = writeln!(
                out,
                "\nNote: pgscan_* and pgrefill mean different things under the two policies \
                 (classic: pages walked on the inactive/active lists; MGLRU: pages isolated / sorted)."
            );
        }
        if let Axis::Kernel(k) = axis {
            if k.contains(&KernelVersion::V7_2) {
                let _ = writeln!(
                    out,
                    "\nNote: in 7.2 /proc/vmstat's pgscan_*, pgsteal_* and pgrefill count memcg-limit reclaim too \
                     (node stats), and memory.reclaim counts as *_proactive (docs/KERNELS.md)."
                );
            }
        }
        let verdict_line = match axis {
            _ if replicated => verdict_replicates(&axis.label(1), &axis.label(0), &axis.what(), &figs[0], &figs[1]),
            Axis::Policy([Policy::Classic, Policy::Mglru]) => verdict(&fx, &fy),
            _ => verdict_between(&axis.label(1), &axis.label(0), &axis.what(), &fx, &fy),
        };
        let _ = writeln!(out, "\n{verdict_line}");
        output::print(&out)?;
    }
    if let Some(j) = json {
        // One object, keyed by the two columns' names ({"classic", "mglru"}
        // for the policies), each the report `mglru run --json` writes.
        struct Columns<T>(Vec<(String, T)>);
        impl<T: serde::Serialize> serde::Serialize for Columns<T> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in &self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        // With replicates each column is {"seeds", "summary", "replicates"},
        // as `mglru run --replicates` writes.
        let column = |side: &Vec<Reports>, f: &[Figures]| -> Result<serde_json::Value, Failure> {
            if !replicated {
                return report_with_figures(&side[0]);
            }
            replicates_json(side, &seeds, f)
        };
        let both = Columns(configs.iter().zip(sides.iter().zip(&figs)).map(|((name, _), (side, f))| Ok((name.clone(), column(side, f)?))).collect::<Result<_, Failure>>()?);
        let mut text = serde_json::to_string_pretty(&both).map_err(|e| Failure::io(e.to_string()))?;
        text.push('\n');
        j.write(text.as_bytes())?;
    }
    let _ = std::io::stdout().flush();
    Ok(())
}
