// SPDX-License-Identifier: GPL-2.0-only
//! `--warmup`: the part of a run left out of its headline figures.
//!
//! A run starts with an empty page cache, so its first accesses miss
//! whatever the memory size; a short run's miss ratio is mostly that.
//! The warm-up ends at the first operation after which the simulated
//! clock has reached a time (`30s`, `500ms`), the run has made a number of
//! page accesses (`2000000accesses`, `2Maccesses`), or a share of the
//! input's page accesses (`20%`). The figures are then the counters' change
//! from that point to the end (crate::figures, `Figures::between`).

use mglru_core::Kernel;
use mglru_trace::Op;

use crate::input::Failure;

/// A warm-up as written on the command line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Warmup {
    /// Simulated nanoseconds.
    Time(u64),
    /// Page accesses.
    Accesses(u64),
    /// Hundredths of a percent of the input's page accesses (1250 = 12.5 %).
    Share(u32),
}

/// Where a warm-up ends, once the input is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarmupEnd {
    Time(u64),
    Accesses(u64),
}

const EXAMPLES: &str = "e.g. --warmup 30s (simulated time), --warmup 20% (of the input's page accesses) or --warmup 2000000accesses";

impl Warmup {
    /// `--warmup`'s text.
    pub fn parse(s: &str) -> Result<Warmup, Failure> {
        let bad = |why: &str| Failure::input(format!("--warmup {s}: {why}; {EXAMPLES}"));
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            let (whole, frac) = p.split_once('.').unwrap_or((p, ""));
            if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 2 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("a share is a number of percent with at most two decimals"));
            }
            let w: u32 = whole.parse().map_err(|_| bad("the share is too large"))?;
            let f: u32 = if frac.is_empty() { 0 } else { format!("{frac:0<2}").parse().unwrap_or(0) };
            let h = w.checked_mul(100).and_then(|x| x.checked_add(f)).ok_or_else(|| bad("the share is too large"))?;
            if h == 0 || h >= 10_000 {
                return Err(bad("the share must be more than 0 % and less than 100 % (the figures are those of the rest of the run)"));
            }
            return Ok(Warmup::Share(h));
        }
        if let Some(n) = t.strip_suffix("accesses") {
            let n = n.trim_end();
            let (digits, mul) = match n.as_bytes().last() {
                Some(b'K' | b'k') => (&n[..n.len() - 1], 1_000),
                Some(b'M') => (&n[..n.len() - 1], 1_000_000),
                Some(b'G') => (&n[..n.len() - 1], 1_000_000_000),
                _ => (n, 1u64),
            };
            let v: u64 = digits.parse().map_err(|_| bad("a count of accesses is a whole number, optionally with K, M or G (thousands, millions, billions)"))?;
            let v = v.checked_mul(mul).ok_or_else(|| bad("the count is too large"))?;
            if v == 0 {
                return Err(bad("a warm-up of no accesses is no warm-up: leave --warmup out"));
            }
            return Ok(Warmup::Accesses(v));
        }
        match mglru_trace::parse_duration_ns(t) {
            Ok(0) => Err(bad("a warm-up of no time is no warm-up: leave --warmup out")),
            Ok(ns) => Ok(Warmup::Time(ns)),
            Err(e) => Err(bad(&format!("not a share (N%), a count (Naccesses) or a time ({e})"))),
        }
    }

    /// Where the warm-up ends for an input of `total_accesses` page
    /// accesses (None when they are not known ahead, e.g. a streamed trace).
    pub fn end(self, total_accesses: Option<u64>) -> Result<WarmupEnd, Failure> {
        Ok(match self {
            Warmup::Time(ns) => WarmupEnd::Time(ns),
            Warmup::Accesses(n) => WarmupEnd::Accesses(n),
            Warmup::Share(h) => {
                let Some(total) = total_accesses else {
                    return Err(Failure::input(
                        "--warmup N% needs the input's page accesses counted first, which standard input cannot be read twice for: give a file, or --warmup TIME or Naccesses",
                    ));
                };
                WarmupEnd::Accesses((total as u128 * h as u128 / 10_000) as u64)
            }
        })
    }

    /// The text a report shows for it.
    pub fn describe(self) -> String {
        match self {
            Warmup::Time(ns) => format!("the first {}", fmt_ns(ns)),
            Warmup::Accesses(n) => format!("the first {} page accesses", crate::figures::thousands(n)),
            Warmup::Share(h) => format!("the first {} % of the page accesses", share(h)),
        }
    }
}

/// Hundredths of a percent as a person writes them: 2000 → 20, 1250 → 12.5.
fn share(h: u32) -> String {
    match h % 100 {
        0 => (h / 100).to_string(),
        f if f % 10 == 0 => format!("{}.{}", h / 100, f / 10),
        f => format!("{}.{f:02}", h / 100),
    }
}

fn fmt_ns(ns: u64) -> String {
    for (d, u) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if ns % d == 0 {
            return format!("{} {u} of simulated time", ns / d);
        }
    }
    format!("{ns} ns of simulated time")
}

impl WarmupEnd {
    /// Whether the warm-up is over at this point of the run.
    #[inline]
    pub fn reached(self, k: &Kernel) -> bool {
        match self {
            WarmupEnd::Time(ns) => k.now >= ns,
            WarmupEnd::Accesses(n) => k.sim.page_accesses >= n,
        }
    }

    /// The error of a run that ended before its warm-up did.
    pub fn not_reached(self, w: Warmup, k: &Kernel) -> Failure {
        let (asked, had) = match self {
            WarmupEnd::Time(ns) => (fmt_ns(ns), format!("{:.3} s of simulated time", k.now as f64 / 1e9)),
            WarmupEnd::Accesses(n) => (format!("{} page accesses", crate::figures::thousands(n)), format!("{} page accesses", crate::figures::thousands(k.sim.page_accesses))),
        };
        Failure::input(format!(
            "--warmup {}: the run ended before the warm-up did (it asked for {asked}, the run had {had}): give a shorter warm-up or a longer run",
            w.text()
        ))
    }
}

impl Warmup {
    /// As the command line would write it.
    pub fn text(self) -> String {
        match self {
            Warmup::Time(ns) => {
                let (d, u) = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"), (1, "ns")].into_iter().find(|(d, _)| ns % d == 0).unwrap_or((1, "ns"));
                format!("{}{u}", ns / d)
            }
            Warmup::Accesses(n) => format!("{n}accesses"),
            Warmup::Share(h) => format!("{}%", share(h)),
        }
    }
}

/// The page accesses an operation asks for.
pub fn op_accesses(op: &Op) -> u64 {
    match *op {
        Op::Read { count, .. } | Op::Write { count, .. } | Op::Load { count, .. } | Op::Store { count, .. } => count,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_parse() {
        assert_eq!(Warmup::parse("30s").unwrap(), Warmup::Time(30_000_000_000));
        assert_eq!(Warmup::parse("500ms").unwrap(), Warmup::Time(500_000_000));
        assert_eq!(Warmup::parse("20%").unwrap(), Warmup::Share(2000));
        assert_eq!(Warmup::parse("12.5%").unwrap(), Warmup::Share(1250));
        assert_eq!(Warmup::parse("2000accesses").unwrap(), Warmup::Accesses(2000));
        assert_eq!(Warmup::parse("3Maccesses").unwrap(), Warmup::Accesses(3_000_000));
        assert_eq!(Warmup::Share(1250).end(Some(1000)).unwrap(), WarmupEnd::Accesses(125));
        for s in ["30s", "1500ms", "7us", "12.5%", "20%", "2000accesses"] {
            assert_eq!(Warmup::parse(s).unwrap().text(), s);
        }
    }

    #[test]
    fn bad_warmups_say_what_to_write() {
        for (s, why) in [
            ("100%", "less than 100 %"),
            ("0%", "more than 0 %"),
            ("x%", "number of percent"),
            ("1.234%", "two decimals"),
            ("0s", "no time"),
            ("10", "no unit"),
            ("tenaccesses", "whole number"),
            ("0accesses", "no accesses"),
        ] {
            let e = Warmup::parse(s).unwrap_err();
            assert!(e.msg.starts_with(&format!("--warmup {s}: ")) && e.msg.contains(why) && e.msg.contains("e.g. --warmup 30s"), "{s}: {}", e.msg);
        }
        assert!(Warmup::Share(10).end(None).unwrap_err().msg.contains("give a file"));
    }
}
