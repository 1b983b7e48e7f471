// SPDX-License-Identifier: GPL-2.0-only
//! A progress bar on stderr (indicatif): only on a terminal, and only once
//! a run has lasted a second, so short runs and pipes stay clean.
//!
//! Thread-safe: a sweep's workers all report to one bar.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    shown: AtomicBool,
    start: Instant,
    ops: AtomicU64,
}

impl Progress {
    /// `total` is the work in the unit of [`Progress::set`]/[`Progress::inc`]
    /// (bytes of input, or operations of a sweep); `None` = unknown.
    /// `wanted` false (`--no-progress`) or a stderr that is no terminal
    /// keep it hidden.
    pub fn new(wanted: bool, total: Option<u64>) -> Progress {
        let enabled = wanted && std::io::stderr().is_terminal();
        let bar = match total {
            Some(t) if t > 0 => {
                let b = ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::hidden());
                b.set_style(
                    ProgressStyle::with_template("[{bar:30}] {percent:>3}%  {msg}  eta {eta}")
                        .expect("a fixed template")
                        .progress_chars("#> "),
                );
                b
            }
            _ => {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
                b.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a fixed template"));
                b
            }
        };
        Progress { bar, enabled, shown: AtomicBool::new(false), start: Instant::now(), ops: AtomicU64::new(0) }
    }

    fn refresh(&self, ops: u64) {
        if !self.enabled {
            return;
        }
        let secs = self.start.elapsed();
        if secs < DELAY {
            return;
        }
        if !self.shown.swap(true, Ordering::Relaxed) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
        let rate = ops as f64 / secs.as_secs_f64();
        self.bar.set_message(format!("{:.2}M ops  {:.1}M ops/s", ops as f64 / 1e6, rate / 1e6));
    }

    /// A streaming run: `done` units of the total, `ops` operations so far.
    pub fn set(&self, done: u64, ops: u64) {
        self.bar.set_position(done);
        self.ops.store(ops, Ordering::Relaxed);
        self.refresh(ops);
    }

    /// A sweep: `n` more operations done (the total counts operations).
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        let ops = self.ops.fetch_add(n, Ordering::Relaxed) + n;
        self.refresh(ops);
    }

    /// Erase the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
