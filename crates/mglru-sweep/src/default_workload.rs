// SPDX-License-Identifier: GPL-2.0-only
//! The built-in workload `mglru run` replays when no trace is given: a
//! service in a 128 MiB memcg with a 48 MiB anonymous heap and a 256 MiB
//! data file read with a zipf(0.9) popularity, interrupted by a one-time
//! sequential scan of a 96 MiB log file (a backup job), with swap. It
//! exercises readahead, refaults, anon vs file balance and swap.

use std::fmt::Write;

use mglru_core::rng::Rng;

/// Zipf sampler over 0..n by inverse CDF on a precomputed table.
struct Zipf {
    cdf: Vec<f64>,
}
impl Zipf {
    fn new(n: usize, theta: f64) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut s = 0.0;
        for i in 1..=n {
            s += 1.0 / (i as f64).powf(theta);
            cdf.push(s);
        }
        for c in cdf.iter_mut() {
            *c /= s;
        }
        Zipf { cdf }
    }
    fn sample(&self, r: &mut Rng) -> usize {
        let u = r.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

/// What the built-in workload is and why it reclaims, for the
/// configuration echo of `mglru run` (the numbers are those below).
pub const DESCRIPTION: &str = "the built-in workload: a service in memcg app (max=128M) with a 48M heap, \
reading a 256M file with zipf(0.9) popularity, and a backup job that streams a 96M log once; \
together they touch more than the memcg's 128M, so reclaim runs (`mglru default-trace` prints it)";

/// The built-in workload's trace.
pub fn default_trace() -> String {
    default_trace_seeded(0)
}

/// The built-in workload with its random draws moved by `seed`
/// (crate::replicate's rule; seed 0 is [`default_trace`]).
pub fn default_trace_seeded(seed: u64) -> String {
    let mut t = String::new();
    let data_pages = 65_536; // 256 MiB
    let heap_pages = 12_288; // 48 MiB
    let log_pages = 24_576; // 96 MiB
    t.push_str("# mglru built-in workload (`mglru default-trace` prints it; `mglru run --help` explains the options)\n");
    t.push_str("memory 512M\nswap 256M\n");
    t.push_str("memcg app max=128M\n");
    t.push_str("file data size=256M\nfile log size=96M\n");
    t.push_str("task svc memcg=app\ntask backup memcg=app\n");
    t.push_str("anon svc heap size=48M\n");
    // Warm-up: the heap is written once.
    let _ = writeln!(t, "store svc heap 0 {heap_pages}");
    let mut r = Rng::from_state(42u64.wrapping_add(seed));
    let z = Zipf::new(data_pages, 0.9);
    let hz = Zipf::new(heap_pages, 0.8);
    let mut log_pos = 0;
    for round in 0..40 {
        for _ in 0..5_000 {
            let _ = writeln!(t, "read svc data {}", z.sample(&mut r));
            let p = hz.sample(&mut r);
            if r.next_u64() % 4 == 0 {
                let _ = writeln!(t, "store svc heap {p}");
            } else {
                let _ = writeln!(t, "load svc heap {p}");
            }
        }
        // The backup job streams through the log in 20 rounds.
        if (10..30).contains(&round) {
            let chunk = log_pages / 20;
            for c in 0..chunk / 32 {
                let _ = writeln!(t, "read backup log {} 32", log_pos + c * 32);
            }
            log_pos += chunk;
        }
        t.push_str("sleep 100ms\n");
    }
    t
}
