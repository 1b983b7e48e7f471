// SPDX-License-Identifier: GPL-2.0-only
//! gzip and zstd input, including truncated and corrupt streams.
//!
//! The zstd fixtures in tests/data were made with the zstd command-line
//! tool (ruzstd 0.7 only decodes):
//!   zstd -19 all.trace -o all.trace.zst
//!   (zstd -c -3 first-20-lines; zstd -c --no-check the-rest) > all.trace.2frames.zst
//!   zstd -19 all.bin -o all.bin.zst

mod common;

use common::*;
use flate2::write::GzEncoder;
use mglru_trace::{Compression, TraceErrorKind, TraceReader};
use std::io::{Cursor, Write};
use std::path::PathBuf;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn from_bytes(name: &str, b: Vec<u8>) -> Result<TraceReader, mglru_trace::TraceError> {
    TraceReader::from_reader(name, Box::new(Cursor::new(b)))
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Reads everything, returning the first error.
fn read_all(b: Vec<u8>) -> Result<usize, mglru_trace::TraceError> {
    let mut r = from_bytes("t.gz", b)?;
    Ok(collect(&mut r)?.len())
}

#[test]
fn gzip_round_trip() {
    let text = all_trace_text();
    let gz = gzip(text.as_bytes());
    let mut r = from_bytes("x.gz", gz.clone()).unwrap();
    assert_eq!(r.compression(), Compression::Gzip);
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());

    // Through a file, with a misleading name: detection is by content.
    let path = tmp("gzip_round_trip.txt");
    std::fs::write(&path, &gz).unwrap();
    let mut r = TraceReader::open(&path).unwrap();
    assert_eq!(r.compression(), Compression::Gzip);
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());
    assert_eq!(r.total_bytes(), Some(gz.len() as u64));
    assert_eq!(r.bytes_read(), gz.len() as u64);
}

#[test]
fn gzip_multi_member() {
    let text = all_trace_text();
    let (a, b) = text.split_at(text.len() / 2);
    let mut gz = gzip(a.as_bytes());
    gz.extend(gzip(b.as_bytes()));
    let mut r = from_bytes("x.gz", gz).unwrap();
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());
}

#[test]
fn gzip_truncated() {
    let gz = gzip(all_trace_text().as_bytes());
    for cut in [gz.len() - 1, gz.len() - 8, gz.len() / 2, 12] {
        let e = read_all(gz[..cut].to_vec()).unwrap_err();
        assert_eq!(e.kind(), TraceErrorKind::Corrupt, "cut {cut}: {e}");
        assert!(e.to_string().starts_with("t.gz"), "{e}");
        assert!(e.message().contains("gzip"), "{e}");
    }
}

#[test]
fn gzip_corrupt() {
    let gz = gzip(all_trace_text().as_bytes());
    // A flipped bit in the CRC, in the length and in the deflate data.
    for at in [gz.len() - 6, gz.len() - 2, gz.len() / 2] {
        let mut bad = gz.clone();
        bad[at] ^= 0x10;
        match read_all(bad) {
            Err(e) => assert!(
                e.kind() == TraceErrorKind::Corrupt || e.kind() == TraceErrorKind::Invalid,
                "{e}"
            ),
            Ok(n) => panic!("corruption at {at} not detected ({n} ops)"),
        }
    }
}

#[test]
fn zstd_fixture() {
    let mut r = TraceReader::open(&data("all.trace.zst")).unwrap();
    assert_eq!(r.compression(), Compression::Zstd);
    assert!(!r.is_binary());
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());
    assert_eq!(r.bytes_read(), r.total_bytes().unwrap());
}

#[test]
fn zstd_multi_frame_and_skippable() {
    let mut r = TraceReader::open(&data("all.trace.2frames.zst")).unwrap();
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());

    // A skippable frame in front of and between frames.
    let z = std::fs::read(data("all.trace.zst")).unwrap();
    let mut skip = Vec::new();
    skip.extend_from_slice(&0x184D2A50u32.to_le_bytes());
    skip.extend_from_slice(&5u32.to_le_bytes());
    skip.extend_from_slice(b"hello");
    let mut b = skip.clone();
    b.extend_from_slice(&z);
    b.extend_from_slice(&skip);
    let mut r = from_bytes("x.zst", b).unwrap();
    assert_eq!(r.compression(), Compression::Zstd);
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());
}

#[test]
fn zstd_truncated() {
    let z = std::fs::read(data("all.trace.zst")).unwrap();
    for cut in [z.len() - 1, z.len() - 4, z.len() / 2, 6] {
        let e = read_all(z[..cut].to_vec()).unwrap_err();
        assert_eq!(e.kind(), TraceErrorKind::Corrupt, "cut {cut}: {e}");
        assert!(e.message().contains("zstd"), "{e}");
    }
}

#[test]
fn zstd_corrupt() {
    let z = std::fs::read(data("all.trace.zst")).unwrap();
    let mut detected = 0;
    for at in 4..z.len() {
        let mut bad = z.clone();
        bad[at] ^= 0x01;
        // Must never panic; the checksum catches almost everything.
        if read_all(bad).is_err() {
            detected += 1;
        }
    }
    assert!(
        detected > (z.len() - 4) * 9 / 10,
        "{detected} of {}",
        z.len() - 4
    );
}

#[test]
fn binary_inside_zstd_fixture() {
    let mut r = TraceReader::open(&data("all.bin.zst")).unwrap();
    assert_eq!(r.compression(), Compression::Zstd);
    assert!(r.is_binary());
    assert_eq!(collect(&mut r).unwrap(), all_trace_ops());
}
