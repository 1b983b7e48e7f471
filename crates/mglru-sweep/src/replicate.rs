// SPDX-License-Identifier: GPL-2.0-only
//! Replicates: one configuration run under several seeds.
//!
//! **The seed rule.** A run with seed S takes it in two places:
//! - the model's own random choices (mglru_core's one seeded generator:
//!   which memcg LRU bin global reclaim starts from) use S;
//! - a generated workload (`--workload`) runs its generator with `seed=N+S`,
//!   N being the spec's own `seed=` (0 when it sets none). Every random
//!   choice of a generator comes from that one seed (docs/WORKLOADS.md
//!   "Determinism"), so a different S gives a different stream; the
//!   built-in workload's draws start from their constant plus S.
//!
//! Seed 0 leaves the spec as written (a spec without `seed=` keeps its
//! generator's built-in constant), so a run without `--seed` is the run it
//! always was. A trace file has no random statements (trace format v1 has
//! none): its replicates differ only where the model's random choices
//! matter, and for most traces not at all.
//!
//! `--replicates N` runs seeds S, S+1, ..., S+N−1 (S = `--seed`, default 0);
//! a sweep's `--seed A,B,C` names the seeds of its replicates directly.
//! The input of a generated workload is generated once per seed and shared
//! by every configuration of that replicate.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::exec::{sweep_until, Outcome};
use crate::grid::{expand, Config, SweepSpec};
use crate::input::{Failure, Input, Source};

/// Most replicates of one configuration.
pub const MAX_REPLICATES: u64 = 1000;

/// Generators whose spec is `NAME:ARGS;PARAMS` (a command line or a path
/// before the parameters); the others are `NAME:PARAMS`.
const COMMAND_LINE_GENERATORS: [&str; 3] = ["fio", "fio-job", "memtier"];

/// The byte offset of the last `sep` outside single or double quotes.
fn rfind_unquoted(s: &str, sep: char) -> Option<usize> {
    let (mut single, mut double, mut escaped, mut last) = (false, false, false, None);
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            c if c == sep && !single && !double => last = Some(i),
            _ => {}
        }
    }
    last
}

/// A workload spec with the generator's seed moved by `seed` (the rule
/// in the module's comment): `seed=N` becomes `seed=N+seed`, a spec
/// without one gets `seed=seed`; seed 0 returns the spec unchanged.
pub fn seeded_spec(spec: &str, seed: u64) -> Result<String, Failure> {
    if seed == 0 {
        return Ok(spec.to_string());
    }
    let trimmed = spec.trim();
    let (name, rest) = match trimmed.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (trimmed, ""),
    };
    let (head, params) = if COMMAND_LINE_GENERATORS.contains(&name) {
        match rfind_unquoted(rest, ';') {
            Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
            None => (Some(rest), ""),
        }
    } else {
        (None, rest)
    };
    // Find `seed=` among the parameters (separated by `,` or `;`).
    let mut found = None;
    let mut start = 0;
    for part in params.split([',', ';']) {
        let end = start + part.len();
        if let Some((k, v)) = part.split_once('=') {
            if k.trim() == "seed" {
                found = Some((start, end, v.trim().to_string()));
            }
        }
        start = end + 1;
    }
    let params = match found {
        Some((s, e, v)) => {
            let n: u64 = v.parse().map_err(|_| {
                Failure::input(format!("--seed {seed}: the workload's seed={v} is not a whole number, so it cannot be varied (--workload {spec})"))
            })?;
            format!("{}seed={}{}", &params[..s], n.wrapping_add(seed), &params[e..])
        }
        None if params.trim().is_empty() => format!("seed={seed}"),
        None => format!("{params},seed={seed}"),
    };
    Ok(match head {
        Some(h) => format!("{name}:{h};{params}"),
        None => format!("{name}:{params}"),
    })
}

/// The input a replicate with `seed` reads: a generated workload with its
/// seed moved, anything else as it is.
pub fn seeded(source: &Source, seed: u64) -> Result<Source, Failure> {
    Ok(match source {
        Source::Workload(w) => Source::Workload(seeded_spec(w, seed)?),
        Source::Builtin | Source::BuiltinSeeded(_) if seed != 0 => Source::BuiltinSeeded(seed),
        Source::BuiltinSeeded(_) => Source::Builtin,
        other => other.clone(),
    })
}

/// The seeds of the replicates: `seed` (one whole number, or a comma-
/// separated list in a sweep) and `replicates` (N seeds from the one seed
/// on). Neither: one run with seed 0.
pub fn seeds(seed: Option<&str>, replicates: Option<u64>) -> Result<Vec<u64>, Failure> {
    let list: Vec<u64> = match seed {
        None => vec![0],
        Some(v) => v
            .split(',')
            .map(|x| x.trim().parse::<u64>().map_err(|_| Failure::input(format!("--seed {v}: `{}` is not a whole number", x.trim()))))
            .collect::<Result<_, _>>()?,
    };
    for (i, s) in list.iter().enumerate() {
        if list[..i].contains(s) {
            return Err(Failure::input(format!("--seed {}: the seed {s} comes twice", seed.unwrap_or(""))));
        }
    }
    match replicates {
        None => Ok(list),
        Some(0) => Err(Failure::input("--replicates 0: give at least 1 (the number of seeds each configuration runs under)")),
        Some(n) if n > MAX_REPLICATES => Err(Failure::input(format!("--replicates {n}: at most {MAX_REPLICATES}"))),
        Some(n) if list.len() > 1 => Err(Failure::input(format!(
            "--seed {} with --replicates {n}: give the seeds as a list or their number with --replicates (from one --seed on), not both",
            seed.unwrap_or("")
        ))),
        Some(n) => {
            let s = list[0];
            if s.checked_add(n - 1).is_none() {
                return Err(Failure::input(format!("--seed {s} --replicates {n}: the seeds would pass {}", u64::MAX)));
            }
            Ok((s..s + n).collect())
        }
    }
}

/// One replicate of a sweep: its seed, its configurations (each with the
/// seed set) and what each produced (None: not run, because the sweep was
/// interrupted or the caller asked for other configurations only).
pub struct Replicate {
    pub seed: u64,
    pub configs: Vec<Config>,
    pub outcomes: Vec<Option<Outcome>>,
}

/// Run the grid of `spec` once per seed. `first` is the input of the
/// first seed, decoded by the caller (who checked the grid on it); a
/// generated workload is generated afresh for every other seed. `only`
/// picks configurations by their flat index, replicate-major
/// (`replicate × grid size + configuration`). `on_input(i, input)` is
/// told each replicate's input before it runs. A set `stop` leaves the
/// rest unrun (None).
#[allow(clippy::too_many_arguments)]
pub fn sweep_replicates(
    source: &Source,
    first: Input,
    spec: &SweepSpec,
    seeds: &[u64],
    only: Option<&[usize]>,
    threads: usize,
    check: bool,
    tick: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
    on_input: &dyn Fn(usize, &Input),
) -> Result<Vec<Replicate>, Failure> {
    let mut out = Vec::with_capacity(seeds.len());
    let mut input = first;
    let mut spec_of_input = seeded(source, seeds.first().copied().unwrap_or(0))?;
    let mut size = None;
    for (r, &seed) in seeds.iter().enumerate() {
        let src = seeded(source, seed)?;
        let mut configs = expand(spec, &input)?;
        let n = *size.get_or_insert(configs.len());
        let picked: Vec<usize> = match only {
            Some(ix) => ix.iter().filter(|&&i| i / n == r).map(|&i| i % n).collect(),
            None => (0..n).collect(),
        };
        if picked.is_empty() || stop.load(Ordering::Relaxed) {
            for c in &mut configs {
                c.opts.seed = seed;
            }
            out.push(Replicate { seed, outcomes: vec![None; n], configs });
            continue;
        }
        if src != spec_of_input {
            input = Input::decode(&mut src.open()?, &|_| {})?;
            spec_of_input = src;
            configs = expand(spec, &input)?;
        }
        for c in &mut configs {
            c.opts.seed = seed;
        }
        on_input(r, &input);
        let subset: Vec<Config> = picked.iter().map(|&i| configs[i].clone()).collect();
        let done = sweep_until(&input, &subset, threads, check, tick, stop)?;
        let mut outcomes = vec![None; n];
        for (i, o) in picked.into_iter().zip(done) {
            outcomes[i] = o;
        }
        out.push(Replicate { seed, configs, outcomes });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_rule_moves_the_generators_seed() {
        assert_eq!(seeded_spec("fio:--name=j --rw=randread", 0).unwrap(), "fio:--name=j --rw=randread");
        assert_eq!(seeded_spec("fio:--name=j --rw=randread", 3).unwrap(), "fio:--name=j --rw=randread;seed=3");
        assert_eq!(seeded_spec("fio:--name=j;memory=48M,seed=5", 3).unwrap(), "fio:--name=j;memory=48M,seed=8");
        assert_eq!(seeded_spec("fio:--name=j;memory=48M", 2).unwrap(), "fio:--name=j;memory=48M,seed=2");
        // A `;` inside quotes is the command line's, not the parameters'.
        assert_eq!(seeded_spec("fio:--name='a;b'", 1).unwrap(), "fio:--name='a;b';seed=1");
        assert_eq!(seeded_spec("ycsb", 4).unwrap(), "ycsb:seed=4");
        assert_eq!(seeded_spec("ycsb:workload=b,seed=10,records=100", 4).unwrap(), "ycsb:workload=b,seed=14,records=100");
        assert_eq!(seeded_spec("memtier:-n 10 && -n 20;memory=1G", 1).unwrap(), "memtier:-n 10 && -n 20;memory=1G,seed=1");
        let e = seeded_spec("ycsb:seed=x", 1).unwrap_err().msg;
        assert!(e.contains("seed=x is not a whole number"), "{e}");
    }

    #[test]
    fn the_built_in_workload_takes_the_seed() {
        let a = seeded(&Source::Builtin, 0).unwrap();
        assert_eq!(a, Source::Builtin);
        let b = seeded(&Source::Builtin, 2).unwrap();
        assert_eq!(b, Source::BuiltinSeeded(2));
        let text = |s: u64| crate::default_workload::default_trace_seeded(s);
        assert_eq!(text(0), crate::default_workload::default_trace());
        assert_ne!(text(0), text(2));
    }

    #[test]
    fn seeds_from_the_flags() {
        assert_eq!(seeds(None, None).unwrap(), vec![0]);
        assert_eq!(seeds(Some("7"), None).unwrap(), vec![7]);
        assert_eq!(seeds(None, Some(3)).unwrap(), vec![0, 1, 2]);
        assert_eq!(seeds(Some("10"), Some(2)).unwrap(), vec![10, 11]);
        assert_eq!(seeds(Some("1,5,9"), None).unwrap(), vec![1, 5, 9]);
        for (s, n, want) in [
            (Some("1,2"), Some(3), "not both"),
            (None, Some(0), "at least 1"),
            (Some("x"), None, "`x` is not a whole number"),
            (Some("1,1"), None, "comes twice"),
            (None, Some(5000), "at most 1000"),
        ] {
            let e = seeds(s, n).unwrap_err();
            assert!(e.msg.contains(want), "{want}: {}", e.msg);
        }
    }
}
