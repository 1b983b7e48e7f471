// SPDX-License-Identifier: GPL-2.0-only
//! The fuzz smoke run of `cargo test --workspace`: every target, from its
//! committed seed corpus, a bounded number of mutated inputs with a fixed
//! seed (the same inputs on every run). Any panic, hang, reader rejection
//! of generated output, broken model invariant or allocation past 4 GiB
//! fails the test and prints the input. `MGLRU_FUZZ_SMOKE=N` scales the
//! counts (N per cent of the defaults).

#[global_allocator]
static ALLOC: mglru_fuzz::PeakAlloc = mglru_fuzz::PeakAlloc;

use mglru_fuzz::{corpus, exec, fuzz, Outcome, TARGETS};

/// Inputs per target in the smoke run: the fast parsers get many, the
/// generators and whole runs fewer (they do more per input).
fn budget(target: &str) -> u64 {
    let base = match target {
        "trace-text" | "trace-binary" => 150_000,
        "workload" => 10_000,
        "run" => 4_000,
        _ => 30_000,
    };
    let pct: u64 = std::env::var("MGLRU_FUZZ_SMOKE").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    (base * pct / 100).max(1)
}

fn scratch(target: &str) -> std::path::PathBuf {
    mglru_fuzz::scratch_dir("smoke").join(target)
}

#[test]
fn every_seed_is_valid_input() {
    // The seeds are real inputs of each parser: if the harness rejected
    // them, the mutants would never get past the first error.
    for t in TARGETS {
        let seeds = corpus(t);
        assert!(!seeds.is_empty(), "{t}: no seed corpus");
        for (i, s) in seeds.iter().enumerate() {
            let r = exec(t, s, &scratch(t));
            mglru_fuzz::remove_scratch(&scratch(t));
            assert_eq!(r, Ok(Outcome::Valid), "{t}: seed {i}: {:?}", String::from_utf8_lossy(s));
        }
    }
}

fn smoke(target: &str) {
    let n = budget(target);
    let t = std::time::Instant::now();
    let s = fuzz(target, n, 1, &scratch(target), |_| {});
    eprintln!(
        "{target}: {} execs ({} valid, {} rejected, {} over budget), slowest {} ms, {:.1} s",
        s.execs,
        s.valid,
        s.rejected,
        s.over_budget,
        s.slowest_ms,
        t.elapsed().as_secs_f64()
    );
    assert_eq!(s.execs, n);
    if let Some(f) = s.findings.first() {
        panic!(
            "{target}: {} finding(s); first at iteration {}: {}\ninput: {:?}",
            s.findings.len(),
            f.iteration,
            f.what,
            String::from_utf8_lossy(&f.input)
        );
    }
    // The mutants must reach both sides: some valid, some rejected.
    assert!(s.valid > 0 && s.rejected > 0, "{target}: {} valid, {} rejected", s.valid, s.rejected);
}

#[test]
fn fuzz_trace_text() {
    smoke("trace-text");
}
#[test]
fn fuzz_trace_binary() {
    smoke("trace-binary");
}
#[test]
fn fuzz_import_fio_iolog() {
    smoke("import-fio-iolog");
}
#[test]
fn fuzz_import_blkparse() {
    smoke("import-blkparse");
}
#[test]
fn fuzz_import_strace() {
    smoke("import-strace");
}
#[test]
fn fuzz_import_lackey() {
    smoke("import-lackey");
}
#[test]
fn fuzz_import_oracle_general() {
    smoke("import-oracle-general");
}
#[test]
fn fuzz_import_cachesim_csv() {
    smoke("import-cachesim-csv");
}
#[test]
fn fuzz_workload() {
    smoke("workload");
}
#[test]
fn fuzz_run() {
    smoke("run");
}
