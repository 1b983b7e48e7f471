// SPDX-License-Identifier: GPL-2.0-only
//! Shmem in the trace: `file ... tmpfs=y`, `file ... memfd=y` and
//! `anon ... shared=y` (MAP_SHARED|MAP_ANONYMOUS): the ops they give,
//! their text and binary forms, and their errors.

mod common;

use common::*;
use mglru_trace::{write_binary, FileKind, Op, TraceErrorKind, TraceReader};
use std::io::Cursor;

const TEXT: &str = "\
file d size=8K
file shm/buf size=16K tmpfs=y
file fd size=5000 memfd=y tmpfs=n zram_ratio=1.8
task t
anon t heap size=8K
anon t sh size=12K shared=y populate=y
mmap t m file=shm/buf
write t shm/buf 0 4
read t fd 1
store t sh 2
unlink fd
file e size=4K
";

fn expected() -> Vec<Op> {
    vec![
        Op::File { id: 0, pages: 2, readahead_pages: 32, kind: FileKind::Disk, zram_ratio: None },
        // Shmem has no readahead.
        Op::File { id: 1, pages: 4, readahead_pages: 0, kind: FileKind::Tmpfs, zram_ratio: None },
        // zram_ratio= in hundredths.
        Op::File { id: 2, pages: 2, readahead_pages: 0, kind: FileKind::Memfd, zram_ratio: Some(180) },
        Op::Task { id: 0, memcg: 0, cpu: None, oom_score_adj: 0 },
        Op::Anon { task: 0, region: 0, pages: 2, populate: false, shared: false },
        // The shared anonymous mapping's shmem file takes the next file id.
        Op::Anon { task: 0, region: 1, pages: 3, populate: true, shared: true },
        Op::Mmap { task: 0, region: 2, file: 1, populate: false },
        Op::Write { task: 0, file: 1, page: 0, count: 4 },
        Op::Read { task: 0, file: 2, page: 1, count: 1 },
        Op::Store { task: 0, region: 1, page: 2, count: 1 },
        Op::Unlink { file: 2 },
        Op::File { id: 4, pages: 1, readahead_pages: 32, kind: FileKind::Disk, zram_ratio: None },
    ]
}

#[test]
fn statements_give_their_ops() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    assert_eq!(collect(&mut r).unwrap(), expected());
    assert_eq!(r.file_id("shm/buf"), Some(1));
    assert_eq!(r.file_id("e"), Some(4));
    // The hidden file has a name no statement can spell.
    assert_eq!(r.file_name(3), "anon:t:sh");
    assert_eq!(r.file_id("anon:t:sh"), None);
}

#[test]
fn text_and_binary_forms_round_trip() {
    let mut r = TraceReader::from_str("t.trace", TEXT);
    let mut text = String::new();
    while let Some(op) = r.next_op().unwrap() {
        text.push_str(&r.op_to_text(&op));
        text.push('\n');
    }
    for line in ["file shm/buf size=16384 tmpfs=y\n", "file fd size=8192 memfd=y zram_ratio=1.80\n", "anon t sh size=12288 populate=y shared=y\n"] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
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

#[test]
fn errors_name_the_place_and_the_fix() {
    check("file f size=4K tmpfs=yes\n", 1, 22, &["expected tmpfs=y or tmpfs=n"]);
    check("file f size=4K memfd=1\n", 1, 22, &["expected memfd=y or memfd=n"]);
    check("file f size=4K tmpfs=y memfd=y\n", 1, 24, &["tmpfs=y and memfd=y together", "give one of them"]);
    check("file f size=4K tmpfs=y readahead=64K\n", 1, 24, &["readahead= on a tmpfs or memfd file", "leave readahead= out"]);
    check("file f size=4K tmpfs=y tmpfs=y\n", 1, 24, &["option `tmpfs=` is given twice"]);
    check("file f size=4K zram_ratio=2\n", 1, 16, &["zram_ratio= is how well a shmem file's data compresses", "needs tmpfs=y or memfd=y"]);
    check("file f size=4K tmpfs=y zram_ratio=0.5\n", 1, 35, &["zram_ratio=0.5 is out of range", "at least 1"]);
    check("file f size=4K tmpfs=y zram_ratio=2.125\n", 1, 35, &["zram_ratio= expects zram's compression ratio", "at most two decimals"]);
    check("file f size=4K tmpf=y\n", 1, 16, &["unknown option `tmpf=`", "did you mean `tmpfs`", "[tmpfs=y|n] [memfd=y|n]"]);
    check("task t\nanon t r size=4K shared=1\n", 2, 25, &["expected shared=y or shared=n"]);
    check("task t\nanon t r size=5T shared=y\n", 2, 8, &["shared anonymous region `r`", "the limit is 4T per file"]);
    check(
        "file a size=4T\nfile b size=4T\nfile c size=4T\nfile d size=3T\ntask t\nanon t r size=2T shared=y\n",
        6,
        8,
        &["takes the files of this trace to", "16T"],
    );
    // A region name taken by a shared mapping is a duplicate like any other.
    check("task t\nanon t r size=4K shared=y\nanon t r size=4K\n", 3, 8, &["duplicate region"]);
    // A shared mapping of unmapped task.
    check("task t\nexit t\nanon t r size=4K shared=y\n", 3, 6, &["exited at line 2"]);
}
