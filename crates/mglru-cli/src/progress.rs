// SPDX-License-Identifier: GPL-2.0-only
//! A progress bar on stderr: only on a terminal, only after one second.

use std::io::Write;
use std::time::{Duration, Instant};

pub struct Progress {
    enabled: bool,
    start: Instant,
    last: Instant,
    total: Option<u64>,
    shown: bool,
}

impl Progress {
    pub fn new(enabled: bool, total: Option<u64>) -> Progress {
        let now = Instant::now();
        Progress { enabled, start: now, last: now, total, shown: false }
    }

    pub fn tick(&mut self, done: u64, ops: u64) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < Duration::from_secs(1) || now.duration_since(self.last) < Duration::from_millis(200) {
            return;
        }
        self.last = now;
        self.shown = true;
        let secs = now.duration_since(self.start).as_secs_f64();
        let rate = ops as f64 / secs;
        let mut err = std::io::stderr().lock();
        match self.total {
            Some(t) if t > 0 => {
                let frac = (done as f64 / t as f64).min(1.0);
                let width = 30;
                let fill = (frac * width as f64) as usize;
                let eta = if frac > 0.0 { secs / frac - secs } else { 0.0 };
                let _ = write!(
                    err,
                    "\r[{}{}] {:5.1}%  {:.2}M ops  {:.1}M ops/s  eta {:.0}s ",
                    "#".repeat(fill),
                    " ".repeat(width - fill),
                    frac * 100.0,
                    ops as f64 / 1e6,
                    rate / 1e6,
                    eta
                );
            }
            _ => {
                let _ = write!(err, "\r{:.2}M ops  {:.1}M ops/s ", ops as f64 / 1e6, rate / 1e6);
            }
        }
        let _ = err.flush();
    }

    pub fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(78));
            let _ = err.flush();
        }
    }
}
