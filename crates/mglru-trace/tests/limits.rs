// SPDX-License-Identifier: GPL-2.0-only
//! Bounds on sizes and durations (issue 15): each is checked where it is
//! read, with an error at the offending token that names the limit, and
//! values at the limit are accepted.

mod common;

use common::*;
use mglru_trace::{
    write_binary, Op, TraceErrorKind, TraceReader, MAX_FILE_SIZE, MAX_MEMORY, MAX_SLEEP_NS,
    MIN_MEMORY,
};

fn check(text: &str, line: u64, col: u64, needles: &[&str]) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!((e.line(), e.column()), (Some(line), Some(col)), "{shown}");
    for n in needles {
        assert!(shown.contains(n), "missing {n:?} in: {shown}");
    }
    assert_eq!(e.kind(), TraceErrorKind::Invalid, "{shown}");
}

fn ops(text: &str) -> Vec<Op> {
    let mut r = TraceReader::from_str("t.trace", text);
    collect(&mut r).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn memory_is_bounded_on_its_own_line() {
    // The model needs 16M: `memory 4K` was accepted here and failed later
    // in the simulator, on the next line or with no line at all.
    check("memory 4K\ntask t\n", 1, 8, &["too small", "at least 16M"]);
    check("memory 16777215\n", 1, 8, &["at least 16M"]);
    check("memory 2T\n", 1, 8, &["too large", "limit is 1T less two 4K pages"]);
    // The model's page tables address 2^28 - 1 pages: `memory 1T` used to
    // pass here and fail in the model on the next line.
    check("memory 1T\n", 1, 8, &["too large", "1023G fits"]);
    assert_eq!(ops("memory 16M\n"), vec![Op::Memory { bytes: MIN_MEMORY }]);
    assert_eq!(ops("memory 1023G\n"), vec![Op::Memory { bytes: 1023 << 30 }]);
    assert_eq!(ops(&format!("memory {MAX_MEMORY}\n")), vec![Op::Memory { bytes: MAX_MEMORY }]);
    check("swap 1T\n", 1, 6, &["too large", "limit is 1T less two 4K pages"]);
}

#[test]
fn file_and_region_sizes_are_bounded() {
    // A 16T file cost the simulator 1 GB for one read; 2^64-1 bytes
    // aborted it.
    check("file f size=18446744073709551615\n", 1, 13, &["too large", "limit is 4T per file"]);
    check("file f size=4097G\n", 1, 13, &["limit is 4T"]);
    assert_eq!(ops("file f size=4T\n")[0], Op::File { id: 0, pages: MAX_FILE_SIZE / 4096, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None });
    // All files together: at most 16T (four of the largest).
    let four = "file a size=4T\nfile b size=4T\nfile c size=4T\nfile d size=4T\n";
    assert_eq!(ops(four).len(), 4);
    check(&format!("{four}file e size=4K\n"), 5, 6, &["file `e`", "limit of 16T for all files"]);
    check("task t\nanon t r size=17T\n", 2, 15, &["region size `17T` is too large", "limit is 16T"]);
    assert_eq!(ops("task t\nanon t r size=16T\n").len(), 2);
}

#[test]
fn sleep_is_bounded_alone_and_in_sum() {
    // `sleep 18446744073709551615ns` was accepted and then ignored by the
    // simulator; a long sleep costs real time in proportion.
    check("sleep 18446744073709551615ns\n", 1, 7, &["too long", "365 days"]);
    check("sleep 31536001s\n", 1, 7, &["too long"]);
    assert_eq!(ops("sleep 31536000s\n"), vec![Op::Sleep { ns: MAX_SLEEP_NS }]);
    check("sleep 31535999s\nsleep 1s\nsleep 1ns\n", 3, 7, &["add up to", "365 days"]);
}

#[test]
fn binary_sleeps_are_bounded_too() {
    // A binary trace written from a valid text trace, with the duration
    // of its sleep record patched past the limit: the reader rejects it
    // at the record.
    let mut r = TraceReader::from_str("t", "sleep 1ns\n");
    let mut bin = Vec::new();
    write_binary(&mut r, &mut bin).unwrap();
    assert_eq!(&bin[8..10], &[0x02, 0x01]);
    let mut patched = bin[..9].to_vec();
    let mut v = MAX_SLEEP_NS + 1;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            patched.push(b);
            break;
        }
        patched.push(b | 0x80);
    }
    patched.extend_from_slice(&bin[10..]);
    let mut r = TraceReader::from_reader("b.bin", Box::new(std::io::Cursor::new(patched))).unwrap();
    let e = r.next_op().unwrap_err();
    assert_eq!(e.byte_offset(), Some(8), "{e}");
    assert!(e.to_string().contains("too long"), "{e}");
}

#[test]
fn invisible_characters_are_named() {
    // A UTF-8 byte-order mark gave "unknown statement `memory` (did you
    // mean `memory`?)"; a control byte gave "unknown statement ``".
    check("\u{feff}memory 1G\n", 1, 1, &["byte-order mark", "without a BOM"]);
    check("dump\n\u{1}\n", 2, 1, &["U+0001", "plain text"]);
    check("dump\n  x\u{200b}y 1\n", 2, 4, &["U+200B"]);
}

/// Issue 35: a run of blank or comment lines is bounded (a 43 MB gzip of
/// 10 GB of newlines ran for minutes); the error names the line and the
/// bound, and a run at the bound is accepted.
#[test]
fn blank_line_runs_are_bounded() {
    let n = mglru_trace::MAX_EMPTY_RUN as usize;
    let mut text = String::with_capacity(n + 64);
    text.push_str("memory 64M\n");
    text.push_str(&"\n".repeat(n / 2));
    text.push_str(&"# c\n".repeat(n / 2));
    text.push_str("task t\n");
    assert_eq!(ops(&text).len(), 2);
    let bad = format!("memory 64M\n{}task t\n", " \n".repeat(n + 1));
    let e = err(&bad);
    assert_eq!(e.line(), Some(n as u64 + 2), "{e}");
    assert!(e.to_string().contains("16777216 blank or comment lines in a row"), "{e}");
}
