// SPDX-License-Identifier: GPL-2.0-only
//! Running configurations over a decoded input.
//!
//! Each configuration gets its own simulator and reads the shared,
//! immutable operation vector; nothing else is shared, so a thread pool
//! can run them in any order and the counters are those of a lone run.
//! Results come back in grid order whatever the number of threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mglru_core::report::Report;
use mglru_core::stat::Ev;
use mglru_core::Simulator;
use mglru_trace::Op;
use rayon::prelude::*;

use crate::figures::Figures;
use crate::grid::{Config, MemcgKnob};
use crate::input::{Failure, Input};

/// What one configuration produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub report: Report,
    /// The figures after the warm-up (the whole run without one).
    pub figures: Figures,
    /// With a warm-up: the whole run's figures, and where the warm-up
    /// ended (simulated seconds, page accesses).
    pub whole: Option<Figures>,
    pub warmup_end: Option<(f64, u64)>,
    /// `--timeseries`-like samples, when asked for.
    pub series: Option<Series>,
}

/// Counters sampled every `interval` of simulated time: page accesses,
/// the accesses that found their page in memory and the cold misses
/// (crate::figures), then [`SERIES_EVENTS`], so any window's ratios are
/// two rows' difference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub columns: Vec<&'static str>,
    /// (simulated seconds, one value per column).
    pub rows: Vec<(f64, Vec<u64>)>,
}

/// The `/proc/vmstat` events a series samples.
pub const SERIES_EVENTS: [Ev; 12] = [
    Ev::WorkingsetRefaultFile,
    Ev::WorkingsetRefaultAnon,
    Ev::WorkingsetActivateFile,
    Ev::Pgpgin,
    Ev::Pswpin,
    Ev::Pswpout,
    Ev::PgstealFile,
    Ev::PgstealAnon,
    Ev::PgscanFile,
    Ev::PgscanAnon,
    Ev::OomKill,
    Ev::WorkingsetNodereclaim,
];

/// The columns a series has before [`SERIES_EVENTS`].
pub const SERIES_ACCESS_COLUMNS: [&str; 3] = ["page_accesses", "hits", "cold_misses"];

/// One series row's values.
pub fn series_values(k: &mglru_core::Kernel) -> Vec<u64> {
    let d = &k.sim.demand;
    let misses = d.file_misses + d.swap_misses;
    let mut v = vec![k.sim.page_accesses, k.sim.page_accesses.saturating_sub(misses), d.cold_misses];
    v.extend(SERIES_EVENTS.iter().map(|&e| k.ev.get(e)));
    v
}

/// Operations between two calls of the progress callback.
pub const TICK_OPS: u64 = 1 << 16;

/// A memcg definition with the sweep's limits in place of the trace's.
fn with_limits(op: &Op, limits: &[(u16, MemcgKnob, u64)]) -> Option<Op> {
    let Op::Memcg(m) = op else { return None };
    if !m.new {
        return None;
    }
    let mine: Vec<_> = limits.iter().filter(|l| l.0 == m.id).collect();
    if mine.is_empty() {
        return None;
    }
    let mut op = op.clone();
    if let Op::Memcg(m) = &mut op {
        let mglru_trace::MemcgOp { max, high, low, min, swap_max, .. } = &mut **m;
        for &&(_, k, v) in &mine {
            let slot = match k {
                MemcgKnob::Max => &mut *max,
                MemcgKnob::High => &mut *high,
                MemcgKnob::Low => &mut *low,
                MemcgKnob::Min => &mut *min,
                MemcgKnob::SwapMax => &mut *swap_max,
            };
            *slot = Some(v);
        }
    }
    Some(op)
}

/// Run one configuration. `tick(n)` is called with the operations done
/// since the last call, every [`TICK_OPS`]; `sample_ms` asks for a series;
/// `check` verifies the accounting invariants at the end.
pub fn run_config(input: &Input, cfg: &Config, check: bool, sample_ms: Option<u64>, tick: &(dyn Fn(u64) + Sync)) -> Result<Outcome, Failure> {
    let never = AtomicBool::new(false);
    Ok(run_config_until(input, cfg, check, sample_ms, tick, &never)?.expect("not stopped"))
}

/// [`run_config`] that gives up, returning `None`, when `stop` is set
/// (checked every [`TICK_OPS`] operations: an interrupted sweep).
pub fn run_config_until(
    input: &Input,
    cfg: &Config,
    check: bool,
    sample_ms: Option<u64>,
    tick: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<Option<Outcome>, Failure> {
    let start = Instant::now();
    let mut sim = Simulator::new(cfg.opts.clone());
    let mut series = sample_ms.map(|_| Series { columns: SERIES_ACCESS_COLUMNS.iter().copied().chain(SERIES_EVENTS.iter().map(|e| e.name())).collect(), rows: Vec::new() });
    let mut warm: Option<Report> = None;
    let interval = sample_ms.unwrap_or(0).max(1) * 1_000_000;
    let mut next_sample = 0;
    // Prefetch operations ahead (page-cache entries, then folios) at the
    // streaming run's distances: the model's time is mostly cache misses.
    const AHEAD: usize = mglru_core::sim::PREFETCH_ENTRY_AHEAD;
    const FOLIO_AHEAD: usize = mglru_core::sim::PREFETCH_FOLIO_AHEAD;
    let ops = &input.ops;
    for (i, op) in ops.iter().enumerate() {
        if let Some(o) = ops.get(i + AHEAD) {
            sim.prefetch(o, 0);
        }
        if let Some(o) = ops.get(i + FOLIO_AHEAD) {
            sim.prefetch(o, 1);
        }
        let changed = if cfg.memcg_limits.is_empty() { None } else { with_limits(op, &cfg.memcg_limits) };
        sim.apply(changed.as_ref().unwrap_or(op)).map_err(|e| Failure::input(format!("{}: {e}", input.location(i))))?;
        if let (Some(s), Some(k)) = (series.as_mut(), sim.kernel()) {
            if k.now >= next_sample && k.sim.access_ops > 0 {
                s.rows.push((k.now as f64 / 1e9, series_values(k)));
                next_sample = (k.now / interval + 1) * interval;
            }
        }
        if let (Some((_, end)), None, Some(k)) = (cfg.warmup, &warm, sim.kernel()) {
            if end.reached(k) {
                warm = Some(k.report(input));
            }
        }
        if (i as u64 + 1) % TICK_OPS == 0 {
            tick(TICK_OPS);
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
        }
    }
    tick(ops.len() as u64 % TICK_OPS);
    let k = sim.finish().map_err(|e| Failure::input(format!("{}: {e}", input.name)))?;
    if let Some(s) = series.as_mut() {
        s.rows.push((k.now as f64 / 1e9, series_values(k)));
    }
    if let (Some((w, end)), None) = (cfg.warmup, &warm) {
        return Err(end.not_reached(w, k));
    }
    if check {
        k.check_invariants().map_err(|e| Failure { msg: format!("internal error: accounting invariant broken: {e}"), code: 3 })?;
    }
    let mut report = k.report(input);
    report.sim.wall_seconds = start.elapsed().as_secs_f64();
    let figures = Figures::between(warm.as_ref(), &report);
    let whole = warm.as_ref().map(|_| Figures::of(&report));
    let warmup_end = warm.as_ref().map(|w| (w.sim.simulated_ns as f64 / 1e9, w.sim.page_accesses));
    Ok(Some(Outcome { report, figures, whole, warmup_end, series }))
}

/// The most threads a sweep starts (`--jobs`, Python's `jobs=`): each is a
/// whole simulator, so more than a machine's cores buys nothing; above this
/// is refused rather than trying to start them.
pub const MAX_JOBS: usize = 1024;

/// Run every configuration on a pool of `threads` threads (0 = one per
/// core). The first failure stops the configurations not yet started and
/// is returned; otherwise the outcomes come in the order of `configs`.
pub fn sweep(input: &Input, configs: &[Config], threads: usize, check: bool, tick: &(dyn Fn(u64) + Sync)) -> Result<Vec<Outcome>, Failure> {
    let never = AtomicBool::new(false);
    Ok(sweep_until(input, configs, threads, check, tick, &never)?.into_iter().map(|o| o.expect("not stopped")).collect())
}

/// [`sweep`] that stops when `stop` is set (a signal): the configurations
/// running give up, those not started are not started, and the result has
/// `None` for each of them, the finished ones' outcomes in grid order.
pub fn sweep_until(
    input: &Input,
    configs: &[Config],
    threads: usize,
    check: bool,
    tick: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<Vec<Option<Outcome>>, Failure> {
    if threads > MAX_JOBS {
        return Err(Failure::input(format!("--jobs {threads}: at most {MAX_JOBS} threads (a sweep runs one configuration per thread; 0 = one per core)")));
    }
    // No more threads than configurations: the rest would start and idle.
    let threads = if threads == 0 { 0 } else { threads.min(configs.len().max(1)) };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::io(format!("starting {threads} threads: {e}")))?;
    let failed = AtomicBool::new(false);
    let results: Vec<Option<Result<Option<Outcome>, Failure>>> = pool.install(|| {
        configs
            .par_iter()
            .map(|c| {
                if failed.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed) {
                    return None;
                }
                let r = run_config_until(input, c, check, None, tick, stop);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                Some(r)
            })
            .collect()
    });
    // The earliest failing configuration in grid order, so the message
    // does not depend on which thread got there first.
    let mut out = Vec::with_capacity(configs.len());
    for (r, c) in results.into_iter().zip(configs) {
        match r {
            Some(Ok(o)) => out.push(o),
            Some(Err(e)) => {
                let at: Vec<String> = c.labels.iter().map(|(a, v)| format!("{a}={v}")).collect();
                return Err(Failure { msg: format!("configuration {}: {}", at.join(" "), e.msg), code: e.code });
            }
            None if stop.load(Ordering::Relaxed) => out.push(None),
            // Only reachable if a failure was flagged; keep it an error.
            None => return Err(Failure::input("the sweep stopped early")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{expand, SweepSpec};
    use mglru_trace::TraceReader;

    fn input() -> Input {
        let mut r = TraceReader::from_str("<built-in workload>", &crate::default_workload::default_trace());
        Input::decode(&mut r, &|_| {}).unwrap()
    }

    fn counters(o: &[Outcome]) -> Vec<(Vec<(&'static str, u64)>, u64, u64)> {
        o.iter().map(|o| (o.report.vmstat.clone(), o.report.sim.simulated_ns, o.report.sim.page_accesses)).collect()
    }

    /// The same grid on one thread and on four gives the same counters in
    /// the same order, and each equals a lone run of that configuration.
    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let input = input();
        let spec = SweepSpec { policy: Some("classic,mglru".into()), memcg: vec!["app.max=64M,128M".into()], ..Default::default() };
        let configs = expand(&spec, &input).unwrap();
        assert_eq!(configs.len(), 4);
        let one = sweep(&input, &configs, 1, true, &|_| {}).unwrap();
        let four = sweep(&input, &configs, 4, true, &|_| {}).unwrap();
        assert_eq!(counters(&one), counters(&four));
        let alone = run_config(&input, &configs[3], false, None, &|_| {}).unwrap();
        assert_eq!(counters(&[alone]), counters(&one[3..]));
        // The memcg limit is in force: a smaller limit, more refaults.
        let refaults = |o: &Outcome| o.figures.refaults;
        assert!(refaults(&one[0]) > refaults(&one[1]), "64M {} vs 128M {}", refaults(&one[0]), refaults(&one[1]));
        let peak = |o: &Outcome| o.report.memcg("app").map(|m| m.peak).unwrap();
        assert!(peak(&one[0]) < peak(&one[1]));
    }

    /// A stop flag set before the sweep finishes nothing; set part way
    /// (here: by the progress callback after the first configuration's
    /// operations on one thread), it keeps the finished configurations,
    /// which equal those of a whole sweep.
    #[test]
    fn a_stopped_sweep_keeps_what_finished() {
        let input = input();
        let spec = SweepSpec { memcg: vec!["app.max=64M,96M,128M".into()], ..Default::default() };
        let configs = expand(&spec, &input).unwrap();
        let stop = AtomicBool::new(true);
        let none = sweep_until(&input, &configs, 1, false, &|_| {}, &stop).unwrap();
        assert!(none.iter().all(Option::is_none));
        let stop = AtomicBool::new(false);
        let per = input.ops.len() as u64;
        let seen = std::sync::atomic::AtomicU64::new(0);
        let part = sweep_until(
            &input,
            &configs,
            1,
            false,
            &|n| {
                if seen.fetch_add(n, Ordering::Relaxed) + n >= per {
                    stop.store(true, Ordering::Relaxed);
                }
            },
            &stop,
        )
        .unwrap();
        assert!(part[0].is_some() && part[1..].iter().all(Option::is_none), "{:?}", part.iter().map(Option::is_some).collect::<Vec<_>>());
        let whole = sweep(&input, &configs, 1, false, &|_| {}).unwrap();
        assert_eq!(counters(&[part[0].clone().unwrap()]), counters(&whole[..1]));
    }

    /// Progress ticks add up to every operation of every configuration.
    #[test]
    fn ticks_count_every_operation() {
        let input = input();
        let spec = SweepSpec { policy: Some("classic,mglru".into()), ..Default::default() };
        let configs = expand(&spec, &input).unwrap();
        let n = std::sync::atomic::AtomicU64::new(0);
        sweep(&input, &configs, 2, false, &|k| {
            n.fetch_add(k, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(n.into_inner(), 2 * input.ops.len() as u64);
    }

    /// A configuration that fails names itself and the line.
    #[test]
    fn a_failing_configuration_is_named() {
        let mut r = TraceReader::from_str("t", "memory 64M\ncpus 2\nfile f size=1M\ntask t cpu=1\nread t f 0\n");
        let input = Input::decode(&mut r, &|_| {}).unwrap();
        let spec = SweepSpec { cpus: Some("1,2".into()), ..Default::default() };
        let configs = expand(&spec, &input).unwrap();
        let e = sweep(&input, &configs, 2, false, &|_| {}).unwrap_err();
        assert!(e.msg.starts_with("configuration cpus=1: t:4: "), "{}", e.msg);
    }
}
