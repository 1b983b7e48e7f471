// SPDX-License-Identifier: GPL-2.0-only
//! The machine a run simulated, as a person checks it first: RAM, swap,
//! memcgs and their limits, sysctls, policy, input. Gathered from the
//! trace's setup statements as they are applied, then overridden by the
//! command line's options, the order the simulator applies them in.

use std::fmt::Write as _;

use mglru_core::RunOptions;
use mglru_trace::{Op, Sysctl, DEFAULT_MEMORY};

use crate::grid::fmt_size;

#[derive(Clone, Debug, Default)]
pub struct Setup {
    memory: Option<u64>,
    cpus: Option<u32>,
    swap: Option<(u64, bool, bool)>,
    sysctls: Vec<(Sysctl, u64)>,
    /// (id, parent, max, high, low, min, swap.max) of each defined memcg.
    memcgs: Vec<(u16, u16, [Option<u64>; 5])>,
    /// zram's compression ratio (hundredths) when the swap device is zram.
    zram: Option<u32>,
}

fn limit(b: u64) -> String {
    if b == u64::MAX {
        "max".into()
    } else {
        fmt_size(b)
    }
}

impl Setup {
    /// Note a statement of the trace (only definitions matter).
    pub fn observe(&mut self, op: &Op) {
        match *op {
            Op::Memory { bytes } => self.memory = Some(bytes),
            Op::Cpus { n } => self.cpus = Some(n),
            Op::Swap { bytes, sync_io, ram, zram } => {
                self.swap = Some((bytes, sync_io, ram));
                self.zram = zram;
            }
            Op::Sysctl { name, value } if self.memcgs.is_empty() => self.sysctls.push((name, value)),
            Op::Memcg(ref m) if m.new => self.memcgs.push((m.id, m.parent, [m.max, m.high, m.low, m.min, m.swap_max])),
            _ => {}
        }
    }

    /// Lines of `key  value`, for a report's head. `names` maps memcg ids
    /// to names; `policy` is the policy the run used.
    pub fn describe(&self, opts: &RunOptions, memcg_limits: &[(u16, crate::grid::MemcgKnob, u64)], names: &dyn Fn(u16) -> String, policy: &str, input: &str) -> String {
        let mut o = String::new();
        let row = |o: &mut String, k: &str, v: String| {
            let _ = writeln!(o, "  {k:<10} {v}");
        };
        // A long description (the built-in workload's) wrapped under itself.
        let mut lines = vec![String::new()];
        for w in input.split(' ') {
            let last = lines.last_mut().expect("one line at least");
            if !last.is_empty() && last.len() + 1 + w.len() > 88 && input.starts_with("the built-in") {
                lines.push(w.to_string());
            } else {
                if !last.is_empty() {
                    last.push(' ');
                }
                last.push_str(w);
            }
        }
        row(&mut o, "input", lines.join(&format!("\n{:13}", "")));
        let variant = if opts.variant == mglru_core::kernel::Variant::PLAIN { String::new() } else { format!(" + variant {}", opts.variant.name()) };
        row(&mut o, "policy", format!("{policy} (Linux {} model{variant})", opts.kernel.name()));
        let (mem, from) = match (opts.memory, self.memory) {
            (Some(b), _) => (b, "--memory"),
            (None, Some(b)) => (b, "the trace"),
            (None, None) => (DEFAULT_MEMORY, "default"),
        };
        row(&mut o, "RAM", format!("{} ({from})", fmt_size(mem)));
        let swap = match (opts.swap, self.swap) {
            (Some(0), _) | (None, None) => "none".to_string(),
            (Some(b), _) => format!("{} (--swap)", fmt_size(b)),
            (None, Some((0, _, _))) => "none".to_string(),
            (None, Some((b, sync, ram))) => {
                let kind = match (sync, ram, self.zram) {
                    (_, _, Some(r)) => format!(", zram (compression ratio {}.{:02})", r / 100, r % 100),
                    (true, true, None) => ", RAM-backed (brd)".to_string(),
                    (true, false, None) => ", synchronous (zram-like)".to_string(),
                    _ => String::new(),
                };
                format!("{}{kind} (the trace)", fmt_size(b))
            }
        };
        row(&mut o, "swap", swap);
        let cpus = match (opts.cpus, self.cpus) {
            (Some(n), _) => format!("{n} (--cpus)"),
            (None, Some(n)) => format!("{n} (the trace)"),
            (None, None) => "1 (default)".into(),
        };
        row(&mut o, "CPUs", cpus);
        if opts.schedule == mglru_core::sched::Schedule::Parallel {
            row(&mut o, "schedule", "parallel: tasks side by side on their CPUs (--schedule)".into());
        }
        if opts.kswapd == mglru_core::kswapd::KswapdMode::Thread {
            row(&mut o, "kswapd", "a thread in simulated time (--kswapd)".into());
        }
        if opts.migratetypes {
            row(&mut o, "mobility", "pages grouped by migrate type (--migratetypes)".into());
        }
        if !self.memcgs.is_empty() {
            let mut parts = Vec::new();
            for &(id, parent, lim) in &self.memcgs {
                let mut lim = lim;
                for &(_, k, v) in memcg_limits.iter().filter(|l| l.0 == id) {
                    lim[k as usize] = Some(v);
                }
                let mut s = names(id);
                if parent != 0 {
                    s = format!("{}/{s}", names(parent));
                }
                let set: Vec<String> = ["max", "high", "low", "min", "swap.max"]
                    .iter()
                    .zip(lim)
                    .filter_map(|(n, v)| v.map(|b| format!("{n}={}", limit(b))))
                    .collect();
                if !set.is_empty() {
                    s.push_str(&format!(" ({})", set.join(" ")));
                }
                parts.push(s);
            }
            row(&mut o, "memcgs", parts.join(", "));
        }
        let sysctls: Vec<String> = self.sysctls.iter().chain(&opts.sysctls).map(|(n, v)| format!("{}={v}", n.name())).collect();
        if !sysctls.is_empty() {
            row(&mut o, "sysctls", sysctls.join(" "));
        }
        if opts.seed != 0 {
            row(&mut o, "seed", opts.seed.to_string());
        }
        o
    }
}
