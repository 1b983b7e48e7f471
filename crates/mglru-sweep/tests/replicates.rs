// SPDX-License-Identifier: GPL-2.0-only
//! Replicates (crate::replicate): seeds change a generated workload, one
//! seed reproduces bit for bit, and the sweep runs every seed.

use std::sync::atomic::AtomicBool;

use mglru_sweep::{replicate_row, seeded, sweep_replicates, Input, Source, SweepSpec};

const FIO: &str = "fio:--name=j --rw=randread --size=32M --buffered=1 --random_distribution=zipf:0.8 --number_ios=60000;memory=24M";

fn decode(source: &Source) -> Input {
    Input::decode(&mut source.open().unwrap(), &|_| {}).unwrap()
}

fn rows(spec: &SweepSpec) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let source = Source::Workload(FIO.into());
    let seeds = mglru_sweep::seeds(spec.seed.as_deref(), spec.replicates).unwrap();
    let first = decode(&seeded(&source, seeds[0]).unwrap());
    let never = AtomicBool::new(false);
    let reps = sweep_replicates(&source, first, spec, &seeds, None, 2, true, &|_| {}, &never, &|_, _| {}).unwrap();
    let mut out = Vec::new();
    for (r, rep) in reps.iter().enumerate() {
        for (c, o) in rep.configs.iter().zip(&rep.outcomes) {
            out.push(replicate_row(c, o.as_ref().unwrap(), r));
        }
    }
    out
}

#[test]
fn replicates_differ_and_one_seed_reproduces_bit_for_bit() {
    let spec = SweepSpec { memory: Some("20M,24M".into()), replicates: Some(3), ..Default::default() };
    let a = rows(&spec);
    assert_eq!(a.len(), 6);
    // Replicate-major: seeds 0, 0, 1, 1, 2, 2.
    let seeds: Vec<u64> = a.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [0, 0, 1, 1, 2, 2]);
    // The same configuration under different seeds: different counters.
    let misses = |i: usize| a[i]["misses"].as_u64().unwrap() + a[i]["cold_misses"].as_u64().unwrap();
    assert!(misses(0) != misses(2) && misses(2) != misses(4), "{} {} {}", misses(0), misses(2), misses(4));
    // The whole sweep again: every row, bit for bit.
    assert_eq!(a, rows(&spec));
    // Seed 1 alone is replicate 1 of the sweep above.
    let one = rows(&SweepSpec { memory: Some("20M,24M".into()), seed: Some("1".into()), ..Default::default() });
    for (x, y) in one.iter().zip(&a[2..4]) {
        let strip = |m: &serde_json::Map<String, serde_json::Value>| {
            let mut m = m.clone();
            m.remove("replicate");
            m
        };
        assert_eq!(strip(x), strip(y));
    }
}

#[test]
fn seed_zero_is_the_spec_as_written() {
    let source = Source::Workload(FIO.into());
    let a = decode(&seeded(&source, 0).unwrap());
    let b = decode(&source);
    assert_eq!(a.ops, b.ops);
    let c = decode(&seeded(&source, 1).unwrap());
    assert_ne!(a.ops, c.ops, "seed 1 must change the generator's stream");
}
