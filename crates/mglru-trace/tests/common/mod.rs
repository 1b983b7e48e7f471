// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the integration tests.
#![allow(dead_code)]

use mglru_trace::{Advice, MemcgOp, Op, Sysctl, Target, TraceError, TraceReader};
use std::path::PathBuf;

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn all_trace_text() -> String {
    std::fs::read_to_string(data("all.trace")).unwrap()
}

pub fn collect(r: &mut TraceReader) -> Result<Vec<Op>, TraceError> {
    let mut v = Vec::new();
    while let Some(op) = r.next_op()? {
        v.push(op);
    }
    Ok(v)
}

/// Reads `text` and returns the error it must produce.
pub fn err(text: &str) -> TraceError {
    let mut r = TraceReader::from_str("t.trace", text);
    match collect(&mut r) {
        Ok(ops) => panic!("expected an error for {text:?}, got {ops:?}"),
        Err(e) => e,
    }
}

/// The ops of tests/data/all.trace.
pub fn all_trace_ops() -> Vec<Op> {
    const M: u64 = 1 << 20;
    vec![
        Op::Memory { bytes: 2 << 30 },
        Op::Swap {
            bytes: 512 * M,
            sync_io: true,
            ram: false,
            zram: None,
        },
        Op::Sysctl {
            name: Sysctl::Swappiness,
            value: 100,
        },
        Op::Sysctl {
            name: Sysctl::LruGenEnabled,
            value: 7,
        },
        Op::Memcg(Box::new(MemcgOp {
            id: 1,
            parent: 0,
            new: true,
            max: Some(1 << 30),
            high: Some(900 * M),
            low: None,
            min: None,
            swap_max: None,
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false,
        })),
        Op::Memcg(Box::new(MemcgOp {
            id: 2,
            parent: 1,
            new: true,
            max: None,
            high: None,
            low: Some(64 * M),
            min: Some(16 * M),
            swap_max: Some(u64::MAX),
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false,
        })),
        Op::Memcg(Box::new(MemcgOp {
            id: 1,
            parent: 0,
            new: false,
            max: Some(u64::MAX),
            high: None,
            low: None,
            min: None,
            swap_max: None,
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false,
        })),
        Op::File {
            id: 0,
            pages: 2560,
            readahead_pages: 64,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        },
        Op::File {
            id: 1,
            pages: 512,
            readahead_pages: 32,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        },
        Op::Task { id: 0, memcg: 2, cpu: None, oom_score_adj: 0 },
        Op::Task { id: 1, memcg: 0, cpu: None, oom_score_adj: 0 },
        Op::Anon {
            task: 0,
            region: 0,
            pages: 2048,
            populate: false,
            shared: false,
        },
        Op::Mmap {
            task: 1,
            region: 1,
            file: 1,
            populate: false,
        },
        Op::Mmap {
            task: 0,
            region: 2,
            file: 0,
            populate: false,
        },
        Op::Read {
            task: 0,
            file: 0,
            page: 0,
            count: 16,
        },
        Op::Read {
            task: 0,
            file: 0,
            page: 16,
            count: 16,
        },
        Op::Write {
            task: 1,
            file: 0,
            page: 100,
            count: 1,
        },
        Op::Load {
            task: 0,
            region: 0,
            page: 0,
            count: 1,
        },
        Op::Load {
            task: 0,
            region: 0,
            page: 1,
            count: 7,
        },
        Op::Store {
            task: 0,
            region: 0,
            page: 2047,
            count: 1,
        },
        Op::Store {
            task: 0,
            region: 2,
            page: 5,
            count: 3,
        },
        Op::Load {
            task: 1,
            region: 1,
            page: 0,
            count: 512,
        },
        Op::Advise {
            task: 0,
            target: Target::Region(0),
            advice: Advice::WillNeed,
        },
        Op::Advise {
            task: 0,
            target: Target::File(0),
            advice: Advice::Sequential,
        },
        Op::Advise {
            task: 1,
            target: Target::Region(1),
            advice: Advice::Random,
        },
        Op::Sleep { ns: 10_000_000 },
        Op::Reclaim { memcg: 2, bytes: M, swappiness: None },
        Op::Reclaim {
            memcg: 0,
            bytes: 4096,
            swappiness: None,
        },
        Op::LruGenAge {
            memcg: 2,
            max_gen: 5,
            swappiness: None,
            force_scan: true,
        },
        Op::LruGenAge {
            memcg: 0,
            max_gen: 7,
            swappiness: Some(201),
            force_scan: false,
        },
        Op::LruGenEvict {
            memcg: 1,
            min_gen: 3,
            swappiness: None,
            nr_to_reclaim: u64::MAX,
        },
        Op::LruGenEvict {
            memcg: 2,
            min_gen: 4,
            swappiness: Some(60),
            nr_to_reclaim: 1000,
        },
        Op::Dump,
        Op::Sysctl {
            name: Sysctl::PageCluster,
            value: 0,
        },
        Op::Exit { task: 0 },
        Op::Read {
            task: 1,
            file: 0,
            page: 0,
            count: 2560,
        },
        Op::Exit { task: 1 },
    ]
}
