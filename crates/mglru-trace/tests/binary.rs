// SPDX-License-Identifier: GPL-2.0-only
//! The binary form: round trips, compactness and corrupt input.

mod common;

use common::*;
use mglru_trace::{write_binary, Op, TraceErrorKind, TraceReader, BINARY_MAGIC};
use std::io::{Cursor, Write};

fn to_binary(text: &str) -> Vec<u8> {
    let mut r = TraceReader::from_str("in", text);
    let mut out = Vec::new();
    write_binary(&mut r, &mut out).unwrap();
    out
}

fn read_bin(b: Vec<u8>) -> Result<Vec<Op>, mglru_trace::TraceError> {
    let mut r = TraceReader::from_reader("t.bin", Box::new(Cursor::new(b)))?;
    assert!(r.is_binary());
    collect(&mut r)
}

#[test]
fn round_trip_every_statement_kind() {
    let bin = to_binary(&all_trace_text());
    assert!(bin.starts_with(&BINARY_MAGIC));
    let mut r = TraceReader::from_reader("t.bin", Box::new(Cursor::new(bin.clone()))).unwrap();
    let ops = collect(&mut r).unwrap();
    assert_eq!(ops, all_trace_ops());
    // The name tables are rebuilt too.
    assert_eq!(r.region_name(2), ("1", "shared"));
    assert_eq!(r.file_name(1), "/usr/lib/libc.so.6");
    assert_eq!(r.memcg_name(2), "work");
    assert_eq!(
        r.location().to_string(),
        format!("t.bin:record {}", ops.len())
    );

    // binary -> binary is the identity.
    let mut r = TraceReader::from_reader("t.bin", Box::new(Cursor::new(bin.clone()))).unwrap();
    let mut again = Vec::new();
    assert_eq!(write_binary(&mut r, &mut again).unwrap(), ops.len() as u64);
    assert_eq!(again, bin);

    // The committed fixture (also used zstd-compressed) has the same bytes:
    // the layout is stable.
    assert_eq!(std::fs::read(data("all.bin")).unwrap(), bin);
}

#[test]
fn binary_inside_gzip() {
    let bin = to_binary(&all_trace_text());
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&bin).unwrap();
    let gz = e.finish().unwrap();
    assert_eq!(read_bin(gz).unwrap(), all_trace_ops());
}

#[test]
fn compact_accesses() {
    let mut text = String::from("file f size=1G\ntask t\nanon t heap size=1G\n");
    for i in 0..10_000u64 {
        text.push_str(&format!("read t f {i}\n"));
    }
    for i in 0..10_000u64 {
        text.push_str(&format!("store t heap {} 3\n", (i * 7919) % 200_000));
    }
    text.push_str("load t heap 5 1000\n");
    let bin = to_binary(&text);
    // Sequential single-page reads of one file take 2 bytes each.
    assert!(
        bin.len() < 2 * 10_000 + 5 * 10_000 + 200,
        "{} bytes",
        bin.len()
    );
    let mut want = TraceReader::from_str("x", &text);
    assert_eq!(read_bin(bin).unwrap(), collect(&mut want).unwrap());
}

#[test]
fn access_edge_values() {
    // The largest file the format allows (4T = 2^30 pages).
    let text = "file f size=4T\ntask t\ntask u\nanon u a size=64K\n\
                read t f 1073741823\nread t f 0 1073741824\nwrite t f 1073741000 15\n\
                write t f 1073741000 16\nload u a 15 1\nstore u a 0 16\nread t f 0\n";
    let mut want = TraceReader::from_str("x", text);
    assert_eq!(
        read_bin(to_binary(text)).unwrap(),
        collect(&mut want).unwrap()
    );
}

#[test]
fn truncated_binary() {
    let bin = to_binary(&all_trace_text());
    for cut in 8..bin.len() {
        let e = read_bin(bin[..cut].to_vec()).unwrap_err();
        assert_eq!(e.kind(), TraceErrorKind::Corrupt, "cut {cut}: {e}");
        let off = e.byte_offset().unwrap();
        assert!(off <= cut as u64, "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("t.bin: byte offset {off}: ")),
            "{e}"
        );
    }
}

#[test]
fn corrupt_binary() {
    let bin = to_binary(&all_trace_text());
    // Unknown tag right after the magic.
    let mut bad = bin.clone();
    bad[8] = 0x7f;
    let e = read_bin(bad).unwrap_err();
    assert_eq!(e.byte_offset(), Some(8));
    assert!(e.message().contains("unknown record tag 0x7f"), "{e}");
    // Trailing garbage.
    let mut bad = bin.clone();
    bad.push(0);
    let e = read_bin(bad).unwrap_err();
    assert!(e.message().contains("after the end record"), "{e}");
    // An access record naming an undefined task.
    let mut bad = BINARY_MAGIC.to_vec();
    bad.extend_from_slice(&[0x81, 5, 0, 0, 0x00, 1]);
    let e = read_bin(bad).unwrap_err();
    assert_eq!(e.byte_offset(), Some(8));
    assert!(e.message().contains("task id 5 is not defined"), "{e}");
    // A "same as previous" record with no previous access.
    let mut bad = BINARY_MAGIC.to_vec();
    bad.extend_from_slice(&[0x91, 0, 0x00, 1]);
    assert!(read_bin(bad)
        .unwrap_err()
        .message()
        .contains("previous access"));
    // A bad text record reports the statement.
    let mut bad = BINARY_MAGIC.to_vec();
    bad.extend_from_slice(&[0x01, 6]);
    bad.extend_from_slice(b"exit z");
    bad.extend_from_slice(&[0x00, 1]);
    let e = read_bin(bad).unwrap_err();
    assert_eq!(e.kind(), TraceErrorKind::Invalid);
    assert!(
        e.to_string()
            .contains("byte offset 8: in statement `exit z` (column 6): undefined task `z`"),
        "{e}"
    );
    // Wrong record count in the end record.
    let mut bad = BINARY_MAGIC.to_vec();
    bad.extend_from_slice(&[0x02, 1, 0x00, 2]);
    assert!(read_bin(bad)
        .unwrap_err()
        .message()
        .contains("end record counts 2"));
}

#[test]
fn bit_flips_never_panic() {
    let bin = to_binary(&all_trace_text());
    for at in 8..bin.len() {
        for bit in [0x01u8, 0x80] {
            let mut bad = bin.clone();
            bad[at] ^= bit;
            let _ = read_bin(bad);
        }
    }
}

/// Everything `next_op` returns one by one: the ops with their lines, then
/// the error that ended them, if any.
fn one_by_one(b: &[u8]) -> (Vec<(Op, u64)>, Option<String>) {
    let mut r = match TraceReader::from_reader("t.bin", Box::new(Cursor::new(b.to_vec()))) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut out = Vec::new();
    loop {
        match r.next_op() {
            Ok(Some(op)) => out.push((op, r.line())),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// The same through `next_ops`, `max` at a time.
fn in_blocks(b: &[u8], max: usize) -> (Vec<(Op, u64)>, Option<String>) {
    let mut r = match TraceReader::from_reader("t.bin", Box::new(Cursor::new(b.to_vec()))) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let (mut ops, mut lines) = (Vec::new(), Vec::new());
    loop {
        let before = ops.len();
        match r.next_ops(&mut ops, &mut lines, before + max) {
            Ok(0) => break,
            Ok(n) => assert!(n <= max && ops.len() == before + n && lines.len() == ops.len()),
            Err(e) => {
                assert_eq!(ops.len(), before);
                // The error stays: asking again gives it again.
                assert_eq!(r.next_ops(&mut ops, &mut lines, before + max).unwrap_err(), e);
                return (ops.into_iter().zip(lines).collect(), Some(e.to_string()));
            }
        }
    }
    let m = ops.len() + max;
    assert_eq!(r.next_ops(&mut ops, &mut lines, m).unwrap(), 0, "the end stays the end");
    (ops.into_iter().zip(lines).collect(), None)
}

/// A trace whose accesses take every form of access record: both classes,
/// the short `same` form forwards and backwards, counts in the tag and in
/// a varint, large ids and pages, and text and sleep records between them.
fn mixed_text() -> String {
    let mut text = String::from("memory 64M\nfile f size=4T\nfile g size=1M\ntask t\ntask u\nanon u a size=1G\n");
    let mut x: u64 = 12345;
    for i in 0..3000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let page = (x >> 33) % 200_000;
        let count = 1 + (x >> 20) % 40;
        match i % 11 {
            0 | 1 | 2 => text.push_str(&format!("read t f {}\n", (x >> 34) % 1073741000)),
            3 => text.push_str(&format!("read t f {page} {count}\n")),
            4 => text.push_str(&format!("write t g {} 1\n", page % 256)),
            5 => text.push_str(&format!("load u a {page} {count}\n")),
            6 => text.push_str(&format!("store u a {} 3\n", page + 1)),
            7 => text.push_str(&format!("read u f {page}\n")),
            8 if i % 7 == 0 => text.push_str("sleep 1ms\n"),
            9 if i % 13 == 0 => text.push_str(&format!("advise u a {}\n", ["random", "normal"][(i % 2) as usize])),
            _ => text.push_str(&format!("store u a {}\n", page + 2)),
        }
    }
    text.push_str("exit t\nload u a 0 10\n");
    text
}

#[test]
fn blocks_decode_the_same_ops_as_one_by_one() {
    let text = mixed_text();
    let bin = to_binary(&text);
    let want = one_by_one(&bin);
    assert!(want.1.is_none() && want.0.len() > 3000, "{:?}", want.1);
    // The same ops, lines included, as the text trace.
    let mut t = TraceReader::from_str("x", &text);
    let mut from_text = Vec::new();
    while let Some(op) = t.next_op().unwrap() {
        from_text.push(op);
    }
    assert_eq!(want.0.iter().map(|(o, _)| o.clone()).collect::<Vec<_>>(), from_text);
    for max in [1, 2, 7, 64, 256, 100_000] {
        assert_eq!(in_blocks(&bin, max), want, "max {max}");
    }
    // The text form in blocks too.
    let mut t = TraceReader::from_str("x", &text);
    let (mut ops, mut lines) = (Vec::new(), Vec::new());
    loop {
        let m = ops.len() + 100;
        if t.next_ops(&mut ops, &mut lines, m).unwrap() == 0 {
            break;
        }
    }
    assert_eq!(ops, from_text);
    assert_eq!(*lines.last().unwrap(), text.lines().count() as u64);
}

#[test]
fn blocks_report_the_same_errors_as_one_by_one() {
    let bin = to_binary(&mixed_text());
    // Damage one byte at a time, anywhere: the ops before the damage and
    // the error (message, offset) are the same either way.
    let mut cases = 0;
    for at in (8..bin.len()).step_by(7) {
        for flip in [0x01u8, 0x10, 0x80, 0xff] {
            let mut bad = bin.clone();
            bad[at] ^= flip;
            let want = one_by_one(&bad);
            cases += usize::from(want.1.is_some());
            assert_eq!(in_blocks(&bad, 64), want, "byte {at} ^ {flip:#x}");
        }
    }
    assert!(cases > 1000, "{cases} damaged traces were rejected");
    // An access by a task that exited in a text record, after a run of
    // accesses by it that the decoder had already checked.
    let text = "file f size=1M\ntask t\ntask u\n".to_string() + &"read t f 1\n".repeat(100) + "exit t\n";
    let good = to_binary(&text);
    let n = (3 + 100 + 1) as u8; // records before the end record
    let mut bad = good[..good.len() - 2].to_vec(); // without `0x00 n`
    bad.extend_from_slice(&[0x91, 0x00, 0x00, n + 1]); // read, same task and file
    let want = one_by_one(&bad);
    assert!(want.1.as_deref().unwrap().contains("exited"), "{want:?}");
    assert_eq!(in_blocks(&bad, 256), want);
}

/// Long runs of short-form records with one tag (one-page reads, writes,
/// loads, stores of one task and target, pages scattered so the deltas
/// take one to three bytes), longer than the reader's buffer: blocks give
/// the ops one by one gives. A record made out of range, or given another
/// tag, inside a run ends the ops at the same place with the same error.
#[test]
fn same_tag_runs_decode_and_fail_as_one_by_one() {
    let mut text = String::from("memory 64M\nfile f size=4G\nfile g size=1M\ntask t\nanon t a size=16M\n");
    let mut x: u64 = 7;
    let mut next = |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for (stmt, target, pages, n) in [("read", "f", 1u64 << 20, 150_000), ("write", "g", 256, 3000), ("read", "f", 1 << 20, 20), ("load", "a", 4096, 2000), ("store", "a", 4096, 2000), ("read", "f", 64, 5000)] {
        for _ in 0..n {
            text.push_str(&format!("{stmt} t {target} {}\n", next(pages)));
        }
    }
    let bin = to_binary(&text);
    let want = one_by_one(&bin);
    assert!(want.1.is_none() && want.0.len() == 5 + 150_000 + 3000 + 20 + 4000 + 5000, "{:?}", want.1);
    let lines = text.lines().count() as u64;
    assert_eq!(want.0.last().unwrap().1, lines);
    // (Compared without printing 160,000 ops on a failure.)
    let same = |got: &(Vec<(Op, u64)>, Option<String>), want: &(Vec<(Op, u64)>, Option<String>)| {
        let n = got.0.iter().zip(&want.0).take_while(|(a, b)| a == b).count();
        (n, got.0.len(), want.0.len(), got.1.clone(), want.1.clone())
    };
    for max in [1, 3, 256, 1 << 20] {
        let got = in_blocks(&bin, max);
        assert!(got == want, "max {max}: (equal prefix, ops, ops one by one, error, error one by one) {:?}", same(&got, &want));
    }
    // The records of the first run start after the setup records (text);
    // damage the high bits of some page deltas deep in the runs, so the
    // page leaves its target (or the varint grows past its end), and
    // change some tags.
    let mut rejected = 0;
    for at in [bin.len() / 3, bin.len() / 2, bin.len() / 2 + 1, bin.len() - 2_000, bin.len() - 12, 400_000, 450_001] {
        for flip in [0x40u8, 0x7f, 0x80, 0x20] {
            let mut bad = bin.clone();
            bad[at] ^= flip;
            let want = one_by_one(&bad);
            rejected += usize::from(want.1.is_some());
            let got = in_blocks(&bad, 256);
            assert!(got == want, "byte {at} ^ {flip:#x}: {:?}", same(&got, &want));
        }
    }
    assert!(rejected >= 14, "{rejected} damaged traces were rejected");
}

/// memory.reclaim's `swappiness=` survives text -> binary -> text.
#[test]
fn reclaim_swappiness_round_trips() {
    let text = "memcg work\nreclaim work 1M swappiness=0\nreclaim root 4K\nreclaim work 8K swappiness=200\nreclaim work 8K swappiness=max\n";
    let mut r = TraceReader::from_reader("t.bin", Box::new(Cursor::new(to_binary(text)))).unwrap();
    let ops = collect(&mut r).unwrap();
    let reclaims: Vec<Option<u32>> = ops
        .iter()
        .filter_map(|o| match o {
            Op::Reclaim { swappiness, .. } => Some(*swappiness),
            _ => None,
        })
        .collect();
    assert_eq!(reclaims, vec![Some(0), None, Some(200), Some(201)]);
    assert_eq!(r.op_to_text(&ops[1]), "reclaim work 1048576 swappiness=0");
    assert_eq!(r.op_to_text(ops.last().unwrap()), "reclaim work 8192 swappiness=max");
}
