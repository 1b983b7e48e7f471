// SPDX-License-Identifier: GPL-2.0-only
//! `munmap`, `unlink` and `truncate`: the ops they give, their text and
//! binary forms, and the errors of using what they took away.

mod common;

use common::*;
use mglru_trace::{write_binary, Op, TraceErrorKind, TraceReader};
use std::io::Cursor;

const TEXT: &str = "\
file f size=1M
file g size=64K
task t
anon t heap size=8K
mmap t m file=f
munmap t heap
anon t heap size=16K
truncate f 98305
truncate g 0
truncate f 1M
unlink g
file g size=8K
read t g 0 2
unlink f
load t m 255
munmap t m
";

fn expected() -> Vec<Op> {
    vec![
        Op::File { id: 0, pages: 256, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None },
        Op::File { id: 1, pages: 16, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None },
        Op::Task { id: 0, memcg: 0, cpu: None, oom_score_adj: 0 },
        Op::Anon { task: 0, region: 0, pages: 2, populate: false, shared: false },
        Op::Mmap { task: 0, region: 1, file: 0, populate: false },
        Op::Munmap { task: 0, region: 0 },
        // The name is free again: a new region id.
        Op::Anon { task: 0, region: 2, pages: 4, populate: false, shared: false },
        // 98305 bytes: 24 pages and a byte, 25 pages.
        Op::Truncate { file: 0, pages: 25 },
        Op::Truncate { file: 1, pages: 0 },
        Op::Truncate { file: 0, pages: 256 },
        Op::Unlink { file: 1 },
        // A new file of the unlinked name: a new file id.
        Op::File { id: 2, pages: 2, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None },
        Op::Read { task: 0, file: 2, page: 0, count: 2 },
        Op::Unlink { file: 0 },
        // A mapping of an unlinked file still works.
        Op::Load { task: 0, region: 1, page: 255, count: 1 },
        Op::Munmap { task: 0, region: 1 },
    ]
}

#[test]
fn statements_give_their_ops() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    assert_eq!(collect(&mut r).unwrap(), expected());
    assert_eq!(r.file_id("g"), Some(2));
    assert_eq!(r.file_id("f"), None, "unlinked");
    assert_eq!(r.region_id("t", "heap"), Some(2));
}

#[test]
fn text_and_binary_forms_round_trip() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    let mut text = String::new();
    while let Some(op) = r.next_op().unwrap() {
        text.push_str(&r.op_to_text(&op));
        text.push('\n');
    }
    assert!(text.contains("munmap t heap\n") && text.contains("unlink g\n") && text.contains("truncate f 102400\n"), "{text}");
    let mut again = TraceReader::from_str("again", &text);
    assert_eq!(collect(&mut again).unwrap(), expected());
    let mut r = TraceReader::from_str("t.trace", TEXT);
    let mut bin = Vec::new();
    write_binary(&mut r, &mut bin).unwrap();
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

const SETUP: &str = "file f size=16K\ntask t\nanon t r size=8K\nmmap t m file=f\n";

#[test]
fn errors_name_the_place_and_the_fix() {
    // Syntax.
    check("task t\nmunmap t\n", 2, 10, &["missing REGION", "usage: munmap ID REGION"]);
    check("file f size=4K\nunlink f g\n", 2, 10, &["unexpected extra token `g`", "usage: unlink FILE"]);
    check("file f size=4K\ntruncate f\n", 2, 12, &["missing SIZE", "usage: truncate FILE SIZE"]);
    check("file f size=4K\ntruncate f 1.5K\n", 2, 12, &["bad truncate size"]);
    check("file f size=4K\ntruncate f size=4K\n", 2, 12, &["bad truncate size"]);
    // A region used after its munmap.
    let t = format!("{SETUP}munmap t r\nstore t r 0\n");
    check(&t, 6, 9, &["region `r` of task `t` was unmapped at line 5", "map it again"]);
    let t = format!("{SETUP}munmap t r\nmunmap t r\n");
    check(&t, 6, 10, &["was unmapped at line 5"]);
    check(&format!("{SETUP}munmap t nope\n"), 5, 10, &["task `t` has no region `nope`"]);
    // A file used after its unlink.
    let t = format!("{SETUP}unlink f\nread t f 0\n");
    check(&t, 6, 8, &["file `f` was unlinked at line 5", "file f size=SIZE"]);
    let t = format!("{SETUP}unlink f\nmmap t m2 file=f\n");
    check(&t, 6, 16, &["was unlinked at line 5"]);
    let t = format!("{SETUP}unlink f\ntruncate f 0\n");
    check(&t, 6, 10, &["was unlinked at line 5"]);
    // truncate beyond the defined size.
    let t = format!("{SETUP}truncate f 20K\n");
    check(&t, 5, 12, &["5 pages", "defined with 4 pages at line 1", "largest size"]);
    // Accesses beyond a truncated end.
    let t = format!("{SETUP}truncate f 8K\nread t f 1 2\n");
    check(&t, 6, 10, &["page out of range: file f has 2 pages", "truncated at line 5"]);
    let t = format!("{SETUP}truncate f 8K\nload t m 2\n");
    check(&t, 6, 10, &["beyond the end of the file", "truncated to 2 pages at line 5", "SIGBUS"]);
    // Growing it back makes the pages accessible again.
    let mut r = TraceReader::from_str("t", &format!("{SETUP}truncate f 8K\ntruncate f 16K\nload t m 3\n"));
    assert!(collect(&mut r).is_ok());
}

#[test]
fn mlock_munlock_and_populate() {
    let text = "file f size=8K\ntask t\nanon t heap size=8K populate=y\nmmap t m file=f populate=n\nmlock t heap\nmunlock t heap\nmmap t m2 file=f populate=y\n";
    let mut r = TraceReader::from_str("t.trace", text);
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[2..],
        [
            Op::Anon { task: 0, region: 0, pages: 2, populate: true, shared: false },
            Op::Mmap { task: 0, region: 1, file: 0, populate: false },
            Op::Mlock { task: 0, region: 0 },
            Op::Munlock { task: 0, region: 0 },
            Op::Mmap { task: 0, region: 2, file: 0, populate: true },
        ]
    );
    // Canonical text and the binary form give the same ops.
    let mut r = TraceReader::from_str("t.trace", text);
    let mut canon = String::new();
    while let Some(op) = r.next_op().unwrap() {
        canon.push_str(&r.op_to_text(&op));
        canon.push('\n');
    }
    assert!(canon.contains("anon t heap size=8192 populate=y\n") && canon.contains("mmap t m file=f\n") && canon.contains("mlock t heap\nmunlock t heap\n"), "{canon}");
    assert_eq!(collect(&mut TraceReader::from_str("c", &canon)).unwrap(), ops);
    let mut bin = Vec::new();
    write_binary(&mut TraceReader::from_str("t.trace", text), &mut bin).unwrap();
    let mut b = TraceReader::from_reader("t.bin", Box::new(Cursor::new(bin))).unwrap();
    assert_eq!(collect(&mut b).unwrap(), ops);
    // Errors.
    check("task t\nanon t r size=4K populate=yes\n", 2, 27, &["expected populate=y or populate=n"]);
    check("task t\nmlock t\n", 2, 9, &["missing REGION", "usage: mlock ID REGION"]);
    check("task t\nmunlock t r x\n", 2, 13, &["unexpected extra token `x`"]);
    check("task t\nmlock t r\n", 2, 9, &["task `t` has no region `r`"]);
    check("task t\nanon t r size=4K\nmunmap t r\nmlock t r\n", 4, 9, &["was unmapped at line 3"]);
}

/// A repeated access line (the reader's fast path for the same keyword,
/// task and target) with a 20-digit or larger page is an error naming the
/// place, not an arithmetic overflow (fuzz finding).
#[test]
fn a_huge_page_number_on_a_repeated_access_line_is_an_error() {
    for page in ["99999999999999999999", "340282366920938463463374607431768211456", "18446744073709551616"] {
        let t = format!("task t\nanon t r size=8K\nload t r 0\nload t r {page} 7\n");
        let e = err(&t);
        assert_eq!(e.line(), Some(4), "{e}");
        assert_eq!(e.kind(), TraceErrorKind::Invalid, "{e}");
    }
}
