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
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{}", line(done, self.total, ops, secs));
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

/// One state of the bar: with the input's size known, the share read, a
/// 30-column bar and an estimate of the time left; else just the counts.
pub fn line(done: u64, total: Option<u64>, ops: u64, secs: f64) -> String {
    let rate = if secs > 0.0 { ops as f64 / secs } else { 0.0 };
    match total {
        Some(t) if t > 0 => {
            let frac = (done as f64 / t as f64).min(1.0);
            let width = 30;
            let fill = (frac * width as f64) as usize;
            let eta = if frac > 0.0 { secs / frac - secs } else { 0.0 };
            format!(
                "[{}{}] {:5.1}%  {:.2}M ops  {:.1}M ops/s  eta {:.0}s ",
                "#".repeat(fill),
                " ".repeat(width - fill),
                frac * 100.0,
                ops as f64 / 1e6,
                rate / 1e6,
                eta
            )
        }
        _ => format!("{:.2}M ops  {:.1}M ops/s ", ops as f64 / 1e6, rate / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn bar_shows_share_rate_and_time_left() {
        // A quarter of 1000 bytes read, 2M operations in 2 s: 7 of 30
        // columns, 1M ops/s, 6 s left at that pace.
        assert_eq!(line(250, Some(1000), 2_000_000, 2.0), format!("[{}{}]  25.0%  2.00M ops  1.0M ops/s  eta 6s ", "#".repeat(7), " ".repeat(23)));
        // Past the end (a compressed input's estimate): clamped to 100 %.
        assert!(line(2000, Some(1000), 10, 1.0).starts_with(&format!("[{}] 100.0%", "#".repeat(30))));
        // Unknown size (a pipe): only the counts.
        assert_eq!(line(5, None, 3_500_000, 1.0), "3.50M ops  3.5M ops/s ");
    }
}
