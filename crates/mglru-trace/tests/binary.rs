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
