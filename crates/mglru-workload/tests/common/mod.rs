// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use mglru_workload::Lines;

/// All lines of a stream; panics on an error.
pub fn all(lines: Lines) -> Vec<String> {
    lines.map(|l| l.unwrap_or_else(|e| panic!("unexpected error: {}", e))).collect()
}

/// The lines of a stream that are not comments.
pub fn statements(lines: Lines) -> Vec<String> {
    all(lines).into_iter().filter(|l| !l.starts_with('#')).collect()
}

/// The generated trace of `spec` without comments.
pub fn gen(spec: &str) -> Vec<String> {
    statements(mglru_workload::workload(spec).unwrap_or_else(|e| panic!("{}: {}", spec, e)))
}

/// The error of a specification that must be rejected.
pub fn gen_err(spec: &str) -> String {
    match mglru_workload::workload(spec) {
        Ok(_) => panic!("{}: expected an error", spec),
        Err(e) => e,
    }
}

/// Lines of `expected` as owned strings (for comparisons).
pub fn lines(expected: &str) -> Vec<String> {
    expected.lines().map(|l| l.trim()).filter(|l| !l.is_empty()).map(|l| l.to_string()).collect()
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `content` to a fresh temporary file and returns its path.
pub fn tmp(name: &str, content: &[u8]) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mglru-workload-tests-{}-{}", std::process::id(), n));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, content).expect("write temp file");
    p
}

/// Runs a trace through the mglru-trace reader; panics with the reader's
/// message if it does not parse.
pub fn must_parse(name: &str, lines: &[String]) -> usize {
    let mut text = lines.join("\n");
    text.push('\n');
    let mut r = mglru_trace::TraceReader::from_str(name, &text);
    let mut n = 0;
    loop {
        match r.next_op() {
            Ok(Some(_)) => n += 1,
            Ok(None) => break,
            Err(e) => panic!("{} does not parse: {}\n{}", name, e, text.lines().take(60).collect::<Vec<_>>().join("\n")),
        }
    }
    n
}
