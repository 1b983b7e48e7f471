// SPDX-License-Identifier: GPL-2.0-only
//! The statements of issue 16 part A: memory.oom.group, oom_score_adj,
//! the peak resets, task moves, `stat` and zram swap. What each parses to,
//! that the text and binary forms give the same ops back, and the errors
//! (line, column and message) for each way to get them wrong.

mod common;

use common::*;
use mglru_trace::{write_binary, MemcgOp, Op, TraceErrorKind, TraceReader};
use std::io::Cursor;

const TRACE: &str = "\
memory 64M
swap 32M zram=y ratio=2.5
memcg a max=50M oom.group=1
memcg b parent=a
task t memcg=a oom_score_adj=-1000
task u memcg=b
anon u heap size=1M
memcg a oom.group=0 peak=reset
memcg b swap.peak=reset max=max
task t oom_score_adj=300
task u memcg=a
task u memcg=root oom_score_adj=1000
stat a
stat root
";

fn memcg(id: u16, parent: u16, new: bool) -> Op {
    Op::Memcg(Box::new(MemcgOp {
        id,
        parent,
        new,
        max: None,
        high: None,
        low: None,
        min: None,
        swap_max: None,
        oom_group: None,
        reset_peak: false,
        reset_swap_peak: false,
    }))
}

fn expected() -> Vec<Op> {
    let mut a = memcg(1, 0, true);
    if let Op::Memcg(m) = &mut a {
        let MemcgOp { max, oom_group, .. } = &mut **m;
        *max = Some(50 << 20);
        *oom_group = Some(true);
    }
    let mut a2 = memcg(1, 0, false);
    if let Op::Memcg(m) = &mut a2 {
        let MemcgOp { oom_group, reset_peak, .. } = &mut **m;
        *oom_group = Some(false);
        *reset_peak = true;
    }
    let mut b2 = memcg(2, 1, false);
    if let Op::Memcg(m) = &mut b2 {
        let MemcgOp { max, reset_swap_peak, .. } = &mut **m;
        *max = Some(u64::MAX);
        *reset_swap_peak = true;
    }
    vec![
        Op::Memory { bytes: 64 << 20 },
        Op::Swap { bytes: 32 << 20, sync_io: true, ram: false, zram: Some(250) },
        a,
        memcg(2, 1, true),
        Op::Task { id: 0, memcg: 1, cpu: None, oom_score_adj: -1000 },
        Op::Task { id: 1, memcg: 2, cpu: None, oom_score_adj: 0 },
        Op::Anon { task: 1, region: 0, pages: 256, populate: false, shared: false },
        a2,
        b2,
        Op::TaskSet { id: 0, memcg: None, oom_score_adj: Some(300) },
        Op::TaskSet { id: 1, memcg: Some(1), oom_score_adj: None },
        Op::TaskSet { id: 1, memcg: Some(0), oom_score_adj: Some(1000) },
        Op::Stat { memcg: 1 },
        Op::Stat { memcg: 0 },
    ]
}

#[test]
fn statements_parse_to_their_ops() {
    let mut r = TraceReader::from_str("x", TRACE);
    assert_eq!(collect(&mut r).unwrap(), expected());
    // The resolver follows the moves: u is in root now.
    assert_eq!(r.task_memcg(1), Some(0));
}

#[test]
fn text_and_binary_forms_round_trip() {
    let mut r = TraceReader::from_str("x", TRACE);
    let mut text = String::new();
    while let Some(op) = r.next_op().unwrap() {
        text.push_str(&r.op_to_text(&op));
        text.push('\n');
    }
    assert!(text.contains("swap 33554432 zram=y ratio=2.50\n"), "{text}");
    assert!(text.contains("task u memcg=a\n"), "{text}");
    let mut r2 = TraceReader::from_str("y", &text);
    assert_eq!(collect(&mut r2).unwrap(), expected(), "{text}");

    let mut bin = Vec::new();
    let mut r = TraceReader::from_str("x", TRACE);
    write_binary(&mut r, &mut bin).unwrap();
    let mut rb = TraceReader::from_reader("x.bin", Box::new(Cursor::new(bin))).unwrap();
    assert_eq!(collect(&mut rb).unwrap(), expected());
}

#[test]
fn zram_ratio_forms() {
    for (text, ratio) in [
        ("swap 8M zram=y\n", 200),
        ("swap 8M zram=y ratio=1\n", 100),
        ("swap 8M zram=y ratio=3.25 sync=y\n", 325),
        ("swap 8M zram=y ratio=1000\n", 100_000),
    ] {
        let mut r = TraceReader::from_str("x", text);
        let op = r.next_op().unwrap().unwrap();
        assert_eq!(op, Op::Swap { bytes: 8 << 20, sync_io: true, ram: false, zram: Some(ratio) }, "{text}");
    }
    // zram=n is the plain device.
    let mut r = TraceReader::from_str("x", "swap 8M zram=n\n");
    assert_eq!(r.next_op().unwrap().unwrap(), Op::Swap { bytes: 8 << 20, sync_io: false, ram: false, zram: None });
}

fn check(text: &str, line: u64, col: u64, needles: &[&str]) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!((e.line(), e.column()), (Some(line), Some(col)), "{shown}");
    for n in needles {
        assert!(shown.contains(n), "missing {n:?} in: {shown}");
    }
    assert_eq!(e.kind(), TraceErrorKind::Invalid, "{shown}");
}

#[test]
fn bad_values() {
    check("memcg a oom.group=yes\n", 1, 19, &["expected oom.group=0 or oom.group=1"]);
    check("memcg a\nmemcg a peak=0\n", 2, 14, &["expected peak=reset"]);
    check("memcg a\nmemcg a swap.peak=\n", 2, 19, &["missing value after `swap.peak=`"]);
    check("task t oom_score_adj=-1001\n", 1, 22, &["out of range", "-1000 (never kill) to 1000"]);
    check("task t oom_score_adj=x\n", 1, 22, &["whole number from -1000 to 1000"]);
    check("swap 8M zram=y ratio=0.5\n", 1, 22, &["out of range", "at least 1"]);
    check("swap 8M zram=y ratio=2.555\n", 1, 22, &["at most two decimals"]);
    check("swap 8M zram=y ratio=2.\n", 1, 22, &["like 2 or 2.5"]);
    check("swap 8M zram=maybe\n", 1, 14, &["expected zram=y or zram=n"]);
    check("stat\n", 1, 6, &["missing MEMCG", "usage: stat MEMCG"]);
    check("stat root extra\n", 1, 11, &["unexpected extra token `extra`"]);
    check("memcg a olm.group=1\n", 1, 9, &["unknown option `olm.group=`", "did you mean `oom.group`"]);
}

#[test]
fn unknown_names() {
    check("stat web\n", 1, 6, &["undefined memcg `web`"]);
    check("task t\ntask t memcg=web\n", 2, 14, &["undefined memcg `web`"]);
}

#[test]
fn wrong_places() {
    // A peak reset needs an existing memcg.
    check("memcg a peak=reset\n", 1, 9, &["peak=reset on the definition of memcg `a`", "later `memcg a peak=reset`"]);
    check("memcg a max=1M swap.peak=reset\n", 1, 16, &["swap.peak=reset on the definition"]);
    // zram's options do not mix with another device's.
    check("swap 8M zram=y sync=n\n", 1, 16, &["zram is always a synchronous device"]);
    check("swap 8M ram=y zram=y\n", 1, 9, &["choose one"]);
    check("swap 8M ratio=2\n", 1, 9, &["ratio= is zram's compression ratio: it needs zram=y"]);
    // A later task statement moves or adjusts; it cannot re-pin or be bare.
    check("cpus 2\ntask t\ntask t cpu=1\n", 3, 8, &["cpu= cannot change", "memcg= and oom_score_adj= only"]);
    check("task t\ntask t\n", 2, 6, &["duplicate task", "give memcg=NAME and/or oom_score_adj=N"]);
    // An exited task cannot be moved.
    check("memcg a\ntask t\nexit t\ntask t memcg=a\n", 4, 6, &["exited at line 3"]);
    // The machine's swap comes first.
    check("task t\nswap 8M zram=y\n", 2, 1, &["swap must be set before"]);
}
