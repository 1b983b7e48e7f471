// SPDX-License-Identifier: GPL-2.0-only
//! The long fuzz run: `mglru-fuzz TARGET|all ITERATIONS [SEED]` fuzzes the
//! target(s) with the given number of inputs each and prints the counts;
//! `mglru-fuzz TARGET --input K [SEED]` prints input K of that session (to
//! replay a finding). Exit status 1 if anything was found.

use std::path::PathBuf;

#[global_allocator]
static ALLOC: mglru_fuzz::PeakAlloc = mglru_fuzz::PeakAlloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: mglru-fuzz TARGET|all ITERATIONS [SEED]\n       mglru-fuzz TARGET --input K [SEED]\ntargets: {}", mglru_fuzz::TARGETS.join(", "));
        std::process::exit(2);
    }
    let scratch = mglru_fuzz::scratch_dir("run");
    let file = |t: &str| -> PathBuf { scratch.join(t) };
    if args[1] == "--input" {
        let k: u64 = args.get(2).and_then(|s| s.parse().ok()).expect("K");
        let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
        let input = mglru_fuzz::input_at(&args[0], seed, k, &file(&args[0]));
        use std::io::Write;
        std::io::stdout().write_all(&input).expect("stdout");
        return;
    }
    let iterations: u64 = args[1].parse().expect("ITERATIONS");
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let targets: Vec<&str> = if args[0] == "all" { mglru_fuzz::TARGETS.to_vec() } else { vec![args[0].as_str()] };
    let mut total = 0u64;
    let mut found = 0usize;
    println!("{:<24} {:>10} {:>10} {:>10} {:>8} {:>9} {:>10} {:>8}", "target", "execs", "valid", "rejected", "budget", "findings", "slowest", "peak");
    for t in targets {
        mglru_fuzz::PeakAlloc::reset_peak();
        let start = std::time::Instant::now();
        let s = mglru_fuzz::fuzz(t, iterations, seed, &file(t), |s| {
            eprintln!("  {t}: {} execs, {} findings, {:.0} s", s.execs, s.findings.len(), start.elapsed().as_secs_f64());
        });
        println!(
            "{:<24} {:>10} {:>10} {:>10} {:>8} {:>9} {:>8}ms {:>6}MiB   ({:.1} s)",
            t,
            s.execs,
            s.valid,
            s.rejected,
            s.over_budget,
            s.findings.len(),
            s.slowest_ms,
            mglru_fuzz::PeakAlloc::peak() >> 20,
            start.elapsed().as_secs_f64()
        );
        for f in s.findings.iter().take(5) {
            println!("    iteration {}: {}\n      input: {:?}", f.iteration, f.what, String::from_utf8_lossy(&f.input));
        }
        total += s.execs;
        found += s.findings.len();
    }
    println!("total: {total} execs, {found} findings");
    let _ = std::fs::remove_dir_all(&scratch);
    if found > 0 {
        std::process::exit(1);
    }
}
