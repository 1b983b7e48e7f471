// SPDX-License-Identifier: GPL-2.0-only
//! `Simulator::apply_cached_reads` (the replay loop's runs of one-page
//! reads of cached pages) does what `apply` does on each of them: the
//! same report, counter for counter, whatever the length of the runs it
//! is given, on a trace that keeps interrupting them (misses, reclaim
//! under memory.high and kswapd, readahead marks, dirty pages and their
//! flusher, another task, sleeps past statistics flushes and psi's
//! averaging, multi-page reads).

use mglru_core::kswapd::KswapdMode;
use mglru_core::sched::Schedule;
use mglru_core::{CostModel, Policy, RunOptions, Simulator};
use mglru_trace::{Op, TraceReader};

fn trace() -> String {
    let mut t = String::from(
        "memory 20M\nswap 64M\nmemcg app high=12M\nfile f size=40M readahead=0\nfile g size=4M\nfile h size=16M\ntask a memcg=app\ntask b\n",
    );
    let mut x: u64 = 99;
    let mut next = |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for i in 0..60_000u64 {
        // Skewed pages of f (10,240 pages, more than RAM): mostly hits
        // on the hot ones, misses on the rest.
        let r = next(1 << 20);
        let page = ((r * r >> 20) * r >> 20) * 10_239 >> 20;
        // Stretches of 1,000 operations of task a, then 250 of task b.
        let b = i % 1_250 >= 1_000;
        match next(100) {
            0..=59 if b => t.push_str(&format!("read b h {}\n", next(4096))),
            60..=79 if b => t.push_str(&format!("write b g {}\n", next(1024))),
            _ if b => t.push_str(&format!("read b g {}\n", next(1024))),
            0..=1 => t.push_str(&format!("read a f {page} 3\n")),
            _ => t.push_str(&format!("read a f {page}\n")),
        }
        if i % 2_000 == 1_999 {
            t.push_str("sleep 120ms\n");
        }
    }
    t
}

fn ops(text: &str) -> Vec<Op> {
    let mut r = TraceReader::from_str("t", text);
    let mut v = Vec::new();
    while let Some(op) = r.next_op().unwrap() {
        v.push(op);
    }
    v
}

/// The JSON report after `ops`, applied by `step` (which returns how many
/// it applied).
fn report(text: &str, opts: &RunOptions, mut step: impl FnMut(&mut Simulator, &[Op]) -> usize) -> String {
    let ops = ops(text);
    let mut sim = Simulator::new(opts.clone());
    let mut i = 0;
    while i < ops.len() {
        i += step(&mut sim, &ops[i..]);
    }
    let k = sim.finish().unwrap();
    k.check_invariants().unwrap();
    let r = TraceReader::from_str("t", text);
    mglru_core::json::report_json(&k.report(&r))
}

#[test]
fn runs_of_cached_reads_give_the_reports_of_one_by_one() {
    let text = trace();
    for policy in [Policy::Classic, Policy::Mglru] {
        // kswapd instant (the default) and as a thread, whose wake-up
        // time a run checks per read; two CPUs; parallel scheduling,
        // where runs apply nothing.
        let plain = RunOptions { policy: Some(policy), ..Default::default() };
        let setups = [
            ("default", plain.clone()),
            ("kswapd thread", RunOptions { kswapd: KswapdMode::Thread, ..plain.clone() }),
            ("2 CPUs", RunOptions { cpus: Some(2), ..plain.clone() }),
            ("parallel", RunOptions { cpus: Some(2), schedule: Schedule::Parallel, ..plain.clone() }),
            // Reads that take long (an operation's cost, a slow copy), so
            // statistics flushes, psi's averaging and the flusher's timer
            // fall due inside runs.
            ("slow reads", RunOptions { cost: Some(CostModel { op: 30_000, page_copy: 200_000, ..Default::default() }), ..plain.clone() }),
        ];
        for (what, opts) in &setups {
            let want = report(&text, opts, |sim, ops| {
                sim.apply(&ops[0]).unwrap();
                1
            });
            assert!(want.contains("\"pgpgin\"") && want.contains("\"pgsteal_kswapd\""), "{want}");
            for limits in [&[1usize][..], &[2, 7], &[256], &[100_000], &[5, 300, 1, 64]] {
                let (mut by_runs, mut call, mut one_by_one) = (0, 0, 0);
                let got = report(&text, opts, |sim, ops| {
                    let n = sim.apply_cached_reads(ops, limits[call % limits.len()]);
                    call += 1;
                    if n > 0 {
                        by_runs += n;
                        return n;
                    }
                    one_by_one += usize::from(matches!(ops[0], Op::Read { count: 1, .. }));
                    sim.apply(&ops[0]).unwrap();
                    1
                });
                assert!(got == want, "{policy:?} {what}, limits {limits:?}: the reports differ:\n{}", first_difference(&got, &want));
                if *what == "parallel" {
                    assert_eq!(by_runs, 0, "parallel scheduling takes the general path");
                } else {
                    // Both paths were taken often: most one-page reads
                    // went through the runs, thousands (misses, readahead
                    // marks, the reads while kswapd or an event was due)
                    // not.
                    assert!(by_runs > 20_000 && one_by_one > 2_000, "{policy:?} {what} {limits:?}: {by_runs} reads in runs, {one_by_one} not");
                }
            }
        }
    }
}

fn first_difference(a: &str, b: &str) -> String {
    for (x, y) in a.lines().zip(b.lines()) {
        if x != y {
            return format!("runs: {x}\none by one: {y}");
        }
    }
    format!("{} lines against {}", a.lines().count(), b.lines().count())
}
