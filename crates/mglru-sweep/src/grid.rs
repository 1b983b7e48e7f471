// SPDX-License-Identifier: GPL-2.0-only
//! The grid of a sweep: axes of values, their cartesian product, and the
//! run options of each point.
//!
//! An axis's values are written as on the command line: a comma-separated
//! list (`0,60,200`, `classic,mglru`) or a range `A..B/N`, N values evenly
//! spaced from A to B, both included (`256M..4G/8`). Sizes in a range are
//! rounded down to whole 4 KiB pages. The first axis varies slowest, memory
//! fastest, so the rows of one policy form a curve over memory.

use mglru_core::kernel::Variant;
use mglru_core::{CostModel, Policy, RunOptions};
use mglru_trace::{parse_size, parse_sysctl, Sysctl};
use serde::Deserialize;

use crate::input::{Failure, Input};

/// Most points one sweep may have: past this it is a typo (`/1000`), not
/// an experiment.
pub const MAX_CONFIGS: usize = 100_000;
/// Most values one range may produce.
pub const MAX_RANGE_POINTS: u64 = 10_000;

/// A sweep as the CLI and the Python package describe it: every field is
/// text in the command line's syntax; absent fields keep the trace's
/// values.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    /// Kernel versions (crate mglru_core::profiles), e.g. "6.12,7.2".
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub swap: Option<String>,
    /// `NAME=VALUES`, one axis each.
    #[serde(default)]
    pub sysctl: Vec<String>,
    /// `MEMCG.KNOB=VALUES` with KNOB one of max, high, low, min, swap.max.
    #[serde(default)]
    pub memcg: Vec<String>,
    /// The seeds of the replicates (crate::replicate): one, or a list;
    /// not an axis of the grid: every configuration runs under each.
    #[serde(default)]
    pub seed: Option<String>,
    /// How many seeds each configuration runs under, from `seed` on.
    #[serde(default)]
    pub replicates: Option<u64>,
    /// The machine's CPU count (`cpus N`).
    #[serde(default)]
    pub cpus: Option<String>,
    /// How kswapd runs: `instant`, `thread`.
    #[serde(default)]
    pub kswapd: Option<String>,
    /// Grouping pages by mobility: `off`, `on` (RunOptions::migratetypes).
    #[serde(default)]
    pub migratetypes: Option<String>,
    /// How tasks are scheduled: `serial`, `parallel` (mglru_core::sched).
    #[serde(default)]
    pub schedule: Option<String>,
    #[serde(default)]
    pub memory: Option<String>,
    /// `NAME=NS`, fixed for every point.
    #[serde(default)]
    pub cost: Vec<String>,
    /// The part of each run left out of the figures (crate::warmup), e.g.
    /// "30s", "20%", "2000000accesses"; the same for every point.
    #[serde(default)]
    pub warmup: Option<String>,
}

/// A memcg limit a sweep sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcgKnob {
    Max,
    High,
    Low,
    Min,
    SwapMax,
}

impl MemcgKnob {
    fn parse(s: &str) -> Option<MemcgKnob> {
        Some(match s {
            "max" => MemcgKnob::Max,
            "high" => MemcgKnob::High,
            "low" => MemcgKnob::Low,
            "min" => MemcgKnob::Min,
            "swap.max" => MemcgKnob::SwapMax,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Setting {
    Policy(Policy),
    Variant(Variant),
    Kernel(mglru_core::kernel::KernelVersion),
    Swap(u64),
    Sysctl(Sysctl, u64),
    Memcg(u16, MemcgKnob, u64),
    Cpus(u32),
    Kswapd(mglru_core::kswapd::KswapdMode),
    Migratetypes(bool),
    Schedule(mglru_core::sched::Schedule),
    Memory(u64),
}

#[derive(Clone, Debug)]
struct Axis {
    name: String,
    values: Vec<(String, Setting)>,
}

/// One point of the grid.
#[derive(Clone, Debug)]
pub struct Config {
    pub opts: RunOptions,
    /// Limits that replace those of the memcg's definition in the trace.
    pub memcg_limits: Vec<(u16, MemcgKnob, u64)>,
    /// (axis, value) in axis order, as the table and the CSV show them.
    pub labels: Vec<(String, String)>,
    /// The warm-up, as given and where it ends in this input.
    pub warmup: Option<(crate::warmup::Warmup, crate::warmup::WarmupEnd)>,
}

/// A size as a person writes it: the largest unit that divides it.
pub fn fmt_size(b: u64) -> String {
    for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if b != 0 && b % (1u64 << shift) == 0 {
            return format!("{}{unit}", b >> shift);
        }
    }
    b.to_string()
}

/// `A..B/N` → (A, B, N), or None for a plain list.
fn split_range<'a>(flag: &str, v: &'a str) -> Result<Option<(&'a str, &'a str, u64)>, Failure> {
    let Some((a, rest)) = v.split_once("..") else { return Ok(None) };
    let bad = || Failure::input(format!("{flag} {v}: a range is A..B/N (N values from A to B, both included), e.g. 256M..4G/8"));
    let (b, n) = rest.split_once('/').ok_or_else(bad)?;
    let n: u64 = n.parse().map_err(|_| bad())?;
    if !(2..=MAX_RANGE_POINTS).contains(&n) {
        return Err(Failure::input(format!("{flag} {v}: N must be 2 to {MAX_RANGE_POINTS} (for one value, write it alone)")));
    }
    Ok(Some((a, b, n)))
}

/// N evenly spaced whole numbers from a to b, both included.
fn spaced(a: u64, b: u64, n: u64) -> Vec<u64> {
    (0..n)
        .map(|i| {
            let (lo, hi) = (a as u128, b as u128);
            if hi >= lo {
                (lo + (hi - lo) * i as u128 / (n - 1) as u128) as u64
            } else {
                (lo - (lo - hi) * i as u128 / (n - 1) as u128) as u64
            }
        })
        .collect()
}

fn no_duplicates(flag: &str, values: &[(String, Setting)]) -> Result<(), Failure> {
    for (i, (l, s)) in values.iter().enumerate() {
        if values[..i].iter().any(|(_, t)| t == s) {
            return Err(Failure::input(format!("{flag}: the value {l} comes twice (a range with more points than distinct values?)")));
        }
    }
    Ok(())
}

fn sizes(flag: &str, v: &str) -> Result<Vec<u64>, Failure> {
    let size = |s: &str| parse_size(s.trim()).map_err(|e| Failure::input(format!("{flag} {v}: {e}")));
    match split_range(flag, v)? {
        Some((a, b, n)) => Ok(spaced(size(a)?, size(b)?, n).into_iter().map(|x| x & !4095).collect()),
        None => v.split(',').map(size).collect(),
    }
}

fn size_axis(flag: &str, name: &str, v: &str, make: impl Fn(u64) -> Setting) -> Result<Axis, Failure> {
    let values: Vec<(String, Setting)> = sizes(flag, v)?.into_iter().map(|b| (fmt_size(b), make(b))).collect();
    no_duplicates(flag, &values)?;
    Ok(Axis { name: name.into(), values })
}

fn sysctl_axis(v: &str) -> Result<Axis, Failure> {
    let flag = "--sysctl";
    let (name, vals) = v.split_once('=').ok_or_else(|| Failure::input(format!("{flag} {v}: expected NAME=VALUES, e.g. vm.swappiness=0,60,200")))?;
    let one = |x: &str| parse_sysctl(name, x.trim()).map_err(|e| Failure::input(format!("{flag} {v}: {e}")));
    let mut values = Vec::new();
    match split_range(flag, vals)? {
        Some((a, b, n)) => {
            let (sa, xa) = one(a)?;
            let (_, xb) = one(b)?;
            for x in spaced(xa, xb, n) {
                let (s, x) = one(&x.to_string())?;
                values.push((x.to_string(), Setting::Sysctl(s, x)));
            }
            let _ = sa;
        }
        None => {
            for x in vals.split(',') {
                let (s, n) = one(x)?;
                values.push((x.trim().to_string(), Setting::Sysctl(s, n)));
            }
        }
    }
    no_duplicates(flag, &values)?;
    Ok(Axis { name: name.into(), values })
}

fn memcg_axis(v: &str, input: &Input) -> Result<Axis, Failure> {
    let flag = "--memcg";
    let usage = || Failure::input(format!("{flag} {v}: expected MEMCG.KNOB=VALUES with KNOB max, high, low, min or swap.max, e.g. app.max=64M..512M/8"));
    let (lhs, vals) = v.split_once('=').ok_or_else(usage)?;
    let (name, knob) = lhs.split_once('.').ok_or_else(usage)?;
    let knob = MemcgKnob::parse(knob).ok_or_else(usage)?;
    let id = match input.memcg_id(name) {
        Some(id) if id != 0 => id,
        Some(_) => return Err(Failure::input(format!("{flag} {v}: the root memcg has no limits; name a memcg the trace defines"))),
        None => {
            let known: Vec<&str> = input.memcg_names().into_iter().skip(1).collect();
            return Err(Failure::input(format!(
                "{flag} {v}: the input defines no memcg `{name}`; it defines: {}",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        }
    };
    let mut values = Vec::new();
    for b in if vals == "max" { vec![u64::MAX] } else { sizes(flag, vals)? } {
        let label = if b == u64::MAX { "max".to_string() } else { fmt_size(b) };
        values.push((label, Setting::Memcg(id, knob, b)));
    }
    no_duplicates(flag, &values)?;
    Ok(Axis { name: lhs.into(), values })
}

fn list_axis(flag: &str, name: &str, v: &str, one: impl Fn(&str) -> Result<Setting, String>) -> Result<Axis, Failure> {
    let mut values = Vec::new();
    for x in v.split(',') {
        let s = one(x.trim()).map_err(|e| Failure::input(format!("{flag} {v}: {e}")))?;
        values.push((x.trim().to_string(), s));
    }
    no_duplicates(flag, &values)?;
    Ok(Axis { name: name.into(), values })
}

pub fn parse_policy(s: &str) -> Result<Policy, String> {
    match s {
        "classic" => Ok(Policy::Classic),
        "mglru" => Ok(Policy::Mglru),
        other => Err(format!("`{other}` is not a policy: expected `classic` or `mglru`")),
    }
}

/// `--cost NAME=NS` values on top of the defaults.
pub fn parse_costs(costs: &[String]) -> Result<Option<CostModel>, Failure> {
    if costs.is_empty() {
        return Ok(None);
    }
    let mut c = CostModel::default();
    for v in costs {
        let (n, x) = v.split_once('=').ok_or_else(|| Failure::input(format!("--cost {v}: expected NAME=NS")))?;
        let ns: u64 = x.parse().map_err(|_| Failure::input(format!("--cost {v}: `{x}` is not a whole number of ns")))?;
        c.set(n, ns).map_err(|e| Failure::input(format!("--cost {v}: {e}")))?;
    }
    Ok(Some(c))
}

/// The largest memory or swap the model holds, in bytes.
pub fn max_bytes() -> u64 {
    mglru_core::sim::MAX_PAGES << 12
}

/// Refuse a size the model cannot hold, naming the flag.
pub fn check_size(flag: &str, b: u64) -> Result<(), Failure> {
    if flag == "--memory" && b < mglru_trace::MIN_MEMORY {
        return Err(Failure::input(format!(
            "--memory {}: the model needs at least {} of RAM (its zones and watermarks); use --memory {} or more",
            fmt_size(b),
            fmt_size(mglru_trace::MIN_MEMORY),
            fmt_size(mglru_trace::MIN_MEMORY)
        )));
    }
    if b > max_bytes() {
        return Err(Failure::input(format!(
            "{flag} {}: the model holds at most {} pages of 4 KiB ({} bytes, {} pages short of 1T); use {flag} 1023G or less",
            fmt_size(b),
            mglru_core::sim::MAX_PAGES,
            max_bytes(),
            ((1u64 << 40) - max_bytes().min(1 << 40)) >> 12
        )));
    }
    Ok(())
}

/// A variant changes the multi-gen LRU only: with the classic LRU it would
/// run 6.12 and print the variant's name beside it.
pub fn check_variant_policy(variant: Variant, policy: Option<Policy>) -> Result<(), Failure> {
    if variant != Variant::PLAIN && policy == Some(Policy::Classic) {
        return Err(Failure::input(format!(
            "--variant {} changes the multi-gen LRU only; with --policy classic it would change nothing: drop one of them (or sweep variants with --policy mglru)",
            variant.name()
        )));
    }
    Ok(())
}

/// The grid's points, first axis slowest. `input` resolves memcg names.
/// The seed is not an axis: crate::replicate runs the grid once per seed
/// (`spec.seed` is checked here, and each point's seed left at 0).
pub fn expand(spec: &SweepSpec, input: &Input) -> Result<Vec<Config>, Failure> {
    let mut axes = Vec::new();
    if let Some(v) = &spec.policy {
        axes.push(list_axis("--policy", "policy", v, |x| parse_policy(x).map(Setting::Policy))?);
    }
    if let Some(v) = &spec.kernel {
        axes.push(list_axis("--kernel", "kernel", v, |x| mglru_core::kernel::KernelVersion::parse(x).map(Setting::Kernel))?);
    }
    if let Some(v) = &spec.variant {
        axes.push(list_axis("--variant", "variant", v, |x| Variant::parse(x).map(Setting::Variant))?);
    }
    if let Some(v) = &spec.swap {
        axes.push(size_axis("--swap", "swap", v, Setting::Swap)?);
    }
    for v in &spec.sysctl {
        axes.push(sysctl_axis(v)?);
    }
    for v in &spec.memcg {
        axes.push(memcg_axis(v, input)?);
    }
    if let Some(v) = &spec.cpus {
        axes.push(list_axis("--cpus", "cpus", v, |x| match x.parse::<u32>() {
            Ok(n) if (1..=mglru_trace::MAX_CPUS).contains(&n) => Ok(Setting::Cpus(n)),
            _ => Err(format!("`{x}` is not a CPU count: expected 1 to {}", mglru_trace::MAX_CPUS)),
        })?);
    }
    if let Some(v) = &spec.kswapd {
        axes.push(list_axis("--kswapd", "kswapd", v, |x| {
            mglru_core::kswapd::KswapdMode::parse(x)
                .map(Setting::Kswapd)
                .ok_or_else(|| format!("`{x}` is not a kswapd mode: expected instant or thread"))
        })?);
    }
    if let Some(v) = &spec.migratetypes {
        axes.push(list_axis("--migratetypes", "migratetypes", v, |x| match x {
            "off" => Ok(Setting::Migratetypes(false)),
            "on" => Ok(Setting::Migratetypes(true)),
            _ => Err(format!("`{x}` is not a migratetypes setting: expected off or on")),
        })?);
    }
    if let Some(v) = &spec.schedule {
        axes.push(list_axis("--schedule", "schedule", v, |x| {
            mglru_core::sched::Schedule::parse(x)
                .map(Setting::Schedule)
                .ok_or_else(|| format!("`{x}` is not a schedule: expected serial or parallel"))
        })?);
    }
    if let Some(v) = &spec.memory {
        axes.push(size_axis("--memory", "memory", v, Setting::Memory)?);
    }
    // One knob, one axis: two would run only the last one's value, under
    // both labels (a duplicated --memory is refused by clap).
    for (i, a) in axes.iter().enumerate() {
        let same = |b: &Axis| match (&a.values[0].1, &b.values[0].1) {
            (Setting::Sysctl(x, _), Setting::Sysctl(y, _)) => x == y,
            (Setting::Memcg(m, k, _), Setting::Memcg(n, l, _)) => m == n && k == l,
            _ => false,
        };
        if let Some(b) = axes[i + 1..].iter().find(|b| same(b)) {
            let flag = if matches!(a.values[0].1, Setting::Sysctl(..)) { "--sysctl" } else { "--memcg" };
            return Err(Failure::input(format!(
                "{flag} sets {} twice ({} and {}): give all its values in one {flag} (e.g. {flag} {}={},{})",
                a.name,
                a.values.iter().map(|v| v.0.as_str()).collect::<Vec<_>>().join(","),
                b.values.iter().map(|v| v.0.as_str()).collect::<Vec<_>>().join(","),
                a.name,
                a.values.iter().map(|v| v.0.as_str()).collect::<Vec<_>>().join(","),
                b.values.iter().map(|v| v.0.as_str()).collect::<Vec<_>>().join(",")
            )));
        }
    }
    for a in &axes {
        for (_, s) in &a.values {
            match s {
                Setting::Memory(b) => check_size("--memory", *b)?,
                Setting::Swap(b) => check_size("--swap", *b)?,
                _ => {}
            }
        }
    }
    crate::replicate::seeds(spec.seed.as_deref(), spec.replicates)?;
    let total = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len()).filter(|&n| n <= MAX_CONFIGS));
    let Some(total) = total else {
        return Err(Failure::input(format!("the grid has more than {MAX_CONFIGS} points: use fewer values")));
    };
    let cost = parse_costs(&spec.cost)?;
    let warmup = match &spec.warmup {
        Some(w) => {
            let w = crate::warmup::Warmup::parse(w)?;
            Some((w, w.end(Some(input.page_accesses()))?))
        }
        None => None,
    };
    let mut out = Vec::with_capacity(total);
    for i in 0..total {
        let mut cfg = Config { opts: RunOptions { cost: cost.clone(), ..Default::default() }, memcg_limits: Vec::new(), labels: Vec::new(), warmup };
        // Mixed radix, last axis fastest.
        let mut rest = i;
        let mut picks = vec![0; axes.len()];
        for (k, a) in axes.iter().enumerate().rev() {
            picks[k] = rest % a.values.len();
            rest /= a.values.len();
        }
        for (a, &p) in axes.iter().zip(&picks) {
            let (label, s) = &a.values[p];
            cfg.labels.push((a.name.clone(), label.clone()));
            match *s {
                Setting::Policy(x) => cfg.opts.policy = Some(x),
                Setting::Variant(x) => cfg.opts.variant = x,
                Setting::Kernel(x) => cfg.opts.kernel = x,
                Setting::Swap(b) => cfg.opts.swap = Some(b),
                Setting::Sysctl(n, x) => cfg.opts.sysctls.push((n, x)),
                Setting::Memcg(id, k, b) => cfg.memcg_limits.push((id, k, b)),
                Setting::Cpus(n) => cfg.opts.cpus = Some(n),
                Setting::Kswapd(m) => cfg.opts.kswapd = m,
                Setting::Migratetypes(b) => cfg.opts.migratetypes = b,
                Setting::Schedule(m) => cfg.opts.schedule = m,
                Setting::Memory(b) => cfg.opts.memory = Some(b),
            }
        }
        check_variant_policy(cfg.opts.variant, cfg.opts.policy).map_err(|e| {
            Failure::input(format!("{} (the grid pairs them)", e.msg.replace("--policy classic", "policy classic")))
        })?;
        out.push(cfg);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mglru_trace::TraceReader;

    fn input() -> Input {
        let mut r = TraceReader::from_str("t", "memory 64M\nmemcg app max=16M\nfile f size=1M\ntask t memcg=app\nread t f 0\n");
        Input::decode(&mut r, &|_| {}).unwrap()
    }

    #[test]
    fn ranges_lists_and_their_product() {
        let spec = SweepSpec {
            policy: Some("classic,mglru".into()),
            memory: Some("256M..1G/4".into()),
            sysctl: vec!["vm.swappiness=0,200".into()],
            ..Default::default()
        };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c.len(), 16);
        let mem: Vec<&str> = c[..4].iter().map(|c| c.labels[2].1.as_str()).collect();
        assert_eq!(mem, ["256M", "512M", "768M", "1G"]);
        assert_eq!(c[0].labels[0], ("policy".to_string(), "classic".to_string()));
        assert_eq!(c[15].labels, vec![("policy".into(), "mglru".into()), ("vm.swappiness".into(), "200".into()), ("memory".into(), "1G".into())]);
        assert_eq!(c[15].opts.memory, Some(1 << 30));
        assert_eq!(c[15].opts.sysctls, vec![(Sysctl::Swappiness, 200)]);
    }

    #[test]
    fn schedules_are_an_axis() {
        use mglru_core::sched::Schedule;
        let spec = SweepSpec { schedule: Some("serial,parallel".into()), ..Default::default() };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c.iter().map(|c| c.opts.schedule).collect::<Vec<_>>(), vec![Schedule::Serial, Schedule::Parallel]);
        assert_eq!(c[1].labels, vec![("schedule".to_string(), "parallel".to_string())]);
        let spec = SweepSpec { schedule: Some("together".into()), ..Default::default() };
        let e = expand(&spec, &input()).unwrap_err().msg;
        assert!(e.contains("--schedule") && e.contains("serial or parallel"), "{e}");
    }

    #[test]
    fn kswapd_modes_are_an_axis() {
        use mglru_core::kswapd::KswapdMode;
        let spec = SweepSpec { kswapd: Some("instant,thread".into()), ..Default::default() };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c.iter().map(|c| c.opts.kswapd).collect::<Vec<_>>(), vec![KswapdMode::Instant, KswapdMode::Thread]);
        assert_eq!(c[1].labels, vec![("kswapd".to_string(), "thread".to_string())]);
        let spec = SweepSpec { kswapd: Some("fast".into()), ..Default::default() };
        let e = expand(&spec, &input()).unwrap_err().msg;
        assert!(e.contains("--kswapd") && e.contains("instant or thread"), "{e}");
    }

    #[test]
    fn migratetypes_is_an_axis() {
        let spec = SweepSpec { migratetypes: Some("off,on".into()), ..Default::default() };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c.iter().map(|c| c.opts.migratetypes).collect::<Vec<_>>(), vec![false, true]);
        assert_eq!(c[1].labels, vec![("migratetypes".to_string(), "on".to_string())]);
        let spec = SweepSpec { migratetypes: Some("yes".into()), ..Default::default() };
        let e = expand(&spec, &input()).unwrap_err().msg;
        assert!(e.contains("--migratetypes") && e.contains("off or on"), "{e}");
    }

    #[test]
    fn cpus_are_an_axis() {
        let spec = SweepSpec { cpus: Some("1,4".into()), ..Default::default() };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c.iter().map(|c| c.opts.cpus).collect::<Vec<_>>(), vec![Some(1), Some(4)]);
        assert_eq!(c[1].labels, vec![("cpus".to_string(), "4".to_string())]);
    }

    #[test]
    fn memcg_limits_resolve_names() {
        let spec = SweepSpec { memcg: vec!["app.max=8M,16M".into()], ..Default::default() };
        let c = expand(&spec, &input()).unwrap();
        assert_eq!(c[1].memcg_limits, vec![(1, MemcgKnob::Max, 16 << 20)]);
        let bad = SweepSpec { memcg: vec!["web.max=8M".into()], ..Default::default() };
        let e = expand(&bad, &input()).unwrap_err().msg;
        assert!(e.contains("no memcg `web`") && e.contains("app"), "{e}");
    }

    #[test]
    fn bad_grids_are_refused_with_the_flag() {
        for (spec, want) in [
            (SweepSpec { memory: Some("1G..256M".into()), ..Default::default() }, "A..B/N"),
            (SweepSpec { memory: Some("256M..1G/1".into()), ..Default::default() }, "N must be"),
            (SweepSpec { memory: Some("2T".into()), ..Default::default() }, "--memory 2T: the model holds at most"),
            (SweepSpec { sysctl: vec!["vm.swappiness=0..300/4".into()], ..Default::default() }, "--sysctl"),
            (SweepSpec { policy: Some("lru".into()), ..Default::default() }, "--policy lru"),
            (SweepSpec { cpus: Some("1,0".into()), ..Default::default() }, "--cpus 1,0: `0` is not a CPU count"),
            (SweepSpec { sysctl: vec!["vm.swappiness=1..2/5".into()], ..Default::default() }, "comes twice"),
            (SweepSpec { sysctl: vec!["vm.swappiness=10,20".into(), "vm.swappiness=30,40".into()], ..Default::default() }, "sets vm.swappiness twice"),
            (SweepSpec { memcg: vec!["app.max=8M".into(), "app.max=16M,32M".into()], ..Default::default() }, "sets app.max twice"),
            (SweepSpec { policy: Some("classic".into()), variant: Some("batch-aging".into()), ..Default::default() }, "multi-gen LRU only"),
        ] {
            let e = expand(&spec, &input()).unwrap_err();
            assert_eq!(e.code, 1);
            assert!(e.msg.contains(want), "{want}: {}", e.msg);
        }
    }

    #[test]
    fn sizes_print_in_their_largest_unit() {
        assert_eq!(fmt_size(3 << 30), "3G");
        assert_eq!(fmt_size(1536 << 20), "1536M");
        assert_eq!(fmt_size(4097), "4097");
    }
}
