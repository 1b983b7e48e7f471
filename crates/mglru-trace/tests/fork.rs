// SPDX-License-Identifier: GPL-2.0-only
//! `fork ID CHILD`: the op it gives (the child's task id and the ids of
//! its copies of the parent's regions), its text and binary forms, and
//! the errors of a bad fork.

mod common;

use common::*;
use mglru_trace::{write_binary, MemcgOp, Op, TraceErrorKind, TraceReader};
use std::io::Cursor;

const TEXT: &str = "\
memcg m
file f size=16K
task p memcg=m oom_score_adj=-5
anon p heap size=8K
mmap p map file=f
anon p gone size=4K
munmap p gone
fork p c
store c heap 1
load c map 3
fork c g
exit p
store g heap 0
";

fn expected() -> Vec<Op> {
    vec![
        Op::Memcg(Box::new(MemcgOp { id: 1, parent: 0, new: true, max: None, high: None, low: None, min: None, swap_max: None, oom_group: None, reset_peak: false, reset_swap_peak: false })),
        Op::File { id: 0, pages: 4, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None },
        Op::Task { id: 0, memcg: 1, cpu: None, oom_score_adj: -5 },
        Op::Anon { task: 0, region: 0, pages: 2, populate: false, shared: false },
        Op::Mmap { task: 0, region: 1, file: 0, populate: false },
        Op::Anon { task: 0, region: 2, pages: 1, populate: false, shared: false },
        Op::Munmap { task: 0, region: 2 },
        // The child is task 1; its copies of `heap` and `map` (not of the
        // unmapped `gone`) are regions 3 and 4, in the parent's order.
        Op::Fork { task: 0, child: 1, first_region: 3 },
        Op::Store { task: 1, region: 3, page: 1, count: 1 },
        Op::Load { task: 1, region: 4, page: 3, count: 1 },
        Op::Fork { task: 1, child: 2, first_region: 5 },
        Op::Exit { task: 0 },
        Op::Store { task: 2, region: 5, page: 0, count: 1 },
    ]
}

#[test]
fn fork_gives_the_child_and_its_regions() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    assert_eq!(collect(&mut r).unwrap(), expected());
    assert_eq!(r.task_id("c"), Some(1));
    assert_eq!(r.region_id("c", "heap"), Some(3));
    assert_eq!(r.region_id("c", "map"), Some(4));
    assert_eq!(r.region_id("c", "gone"), None);
    assert_eq!(r.region_id("g", "map"), Some(6));
}

#[test]
fn text_and_binary_forms_round_trip() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    let mut text = String::new();
    while let Some(op) = r.next_op().unwrap() {
        text.push_str(&r.op_to_text(&op));
        text.push('\n');
    }
    assert!(text.contains("fork p c\n") && text.contains("fork c g\n"), "{text}");
    assert_eq!(collect(&mut TraceReader::from_str("again", &text)).unwrap(), expected());
    let mut bin = Vec::new();
    write_binary(&mut TraceReader::from_str("t.trace", TEXT), &mut bin).unwrap();
    let mut b = TraceReader::from_reader("t.bin", Box::new(Cursor::new(bin))).unwrap();
    assert_eq!(collect(&mut b).unwrap(), expected());
}

fn check(text: &str, line: u64, col: u64, needles: &[&str]) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!((e.line(), e.column()), (Some(line), Some(col)), "{shown}");
    assert_eq!(e.kind(), TraceErrorKind::Invalid, "{shown}");
    for n in needles {
        assert!(shown.contains(n), "missing {n:?} in: {shown}");
    }
}

#[test]
fn errors_name_the_place_and_the_fix() {
    check("task p\nfork p\n", 2, 8, &["missing CHILD task ID", "usage: fork ID CHILD"]);
    check("task p\nfork p c d\n", 2, 10, &["unexpected extra token `d`", "usage: fork ID CHILD"]);
    check("fork p c\n", 1, 6, &["undefined task `p`"]);
    check("task p\nexit p\nfork p c\n", 3, 6, &["task `p` exited at line 2"]);
    check("task p\ntask c\nfork p c\n", 3, 8, &["the child `c` of a fork must be a new task", "defined at line 2", "new ID"]);
    check("task p\nfork p p\n", 2, 8, &["must be a new task"]);
    check("task p\ntask c\nexit c\nfork p c\n", 4, 8, &["task `c` exited at line 3", "cannot be reused"]);
    check("task p\nfork p c=1\n", 2, 8, &["expected CHILD task ID, found option `c=1`"]);
    check("task p\nfork p c$\n", 2, 9, &["invalid character `$`"]);
    // The child's regions belong to the child: the parent's names are its own.
    check("task p\nfork p c\nanon p r size=4K\nload c r 0\n", 4, 8, &["task `c` has no region `r`"]);
    // A region the child unmaps is gone for the child only.
    let mut r = TraceReader::from_str("t", "task p\nanon p r size=4K\nfork p c\nmunmap c r\nload p r 0\n");
    assert!(collect(&mut r).is_ok());
    check("task p\nanon p r size=4K\nfork p c\nmunmap c r\nload c r 0\n", 5, 8, &["region `r` of task `c` was unmapped at line 4"]);
}
