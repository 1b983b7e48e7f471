// SPDX-License-Identifier: GPL-2.0-only
//! Importers: traces of real programs turned into trace v1.
//!
//! Each importer reads its input twice: a lenient first pass collects what
//! the setup statements need (files and their sizes, tasks, regions), the
//! second pass streams the operations and reports malformed input as
//! `FILE:LINE: what was expected`. Memory is bounded by the number of
//! files, tasks, regions or objects, never by the number of requests.

pub(crate) mod blkparse;
pub(crate) mod cachesim;
pub(crate) mod iolog;
pub(crate) mod lackey;
pub(crate) mod strace;

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::util::{fmt_ns, fmt_size, Machine, GIB};
use crate::ImportOptions;

/// Reads a text file line by line with 1-based line numbers.
pub(crate) struct LineReader {
    pub name: String,
    r: BufReader<File>,
    lineno: u64,
    buf: Vec<u8>,
    failed: bool,
}

impl LineReader {
    pub fn open(path: &Path) -> Result<LineReader, String> {
        let name = path.display().to_string();
        let f = File::open(path).map_err(|e| format!("{}: cannot open: {}", name, e))?;
        Ok(LineReader { name, r: BufReader::with_capacity(256 * 1024, f), lineno: 0, buf: Vec::new(), failed: false })
    }

    /// The next line (without the line end), with its number.
    pub fn next_line(&mut self) -> Option<Result<(u64, String), String>> {
        if self.failed {
            return None;
        }
        self.buf.clear();
        match self.r.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.lineno += 1;
                while matches!(self.buf.last(), Some(b'\n') | Some(b'\r')) {
                    self.buf.pop();
                }
                match String::from_utf8(std::mem::take(&mut self.buf)) {
                    Ok(s) => Some(Ok((self.lineno, s))),
                    Err(_) => {
                        self.failed = true;
                        Some(Err(format!("{}:{}: the line is not UTF-8 text", self.name, self.lineno)))
                    }
                }
            }
            Err(e) => {
                self.failed = true;
                Some(Err(format!("{}:{}: read error: {}", self.name, self.lineno + 1, e)))
            }
        }
    }
}

/// The `memory`, `memcg` and `task` statements of an imported trace.
pub(crate) fn setup(opts: &ImportOptions, tasks: &[String], out: &mut VecDeque<String>) {
    let m = Machine {
        memory: opts.memory.unwrap_or(GIB),
        swap: None,
        swap_sync: false,
        memcg_max: opts.memcg_max,
        seed: 0,
    };
    m.setup_lines(out);
    if opts.memcg_max.is_some() {
        out.push_back(Machine::memcg_line("trace", opts.memcg_max));
    }
    for t in tasks {
        if opts.memcg_max.is_some() {
            out.push_back(format!("task {} memcg=trace", t));
        } else {
            out.push_back(format!("task {}", t));
        }
    }
}

/// `file` statements.
pub(crate) fn file_lines(files: &[(String, u64)], out: &mut VecDeque<String>) {
    for (name, bytes) in files {
        out.push_back(format!("file {} size={}", name, fmt_size((*bytes).max(4096))));
    }
}

/// Turns timestamps into `sleep` statements for gaps of 1 ms or more.
pub(crate) struct Timer {
    last: Option<u64>,
    on: bool,
}

impl Timer {
    pub fn new(on: bool) -> Timer {
        Timer { last: None, on }
    }

    pub fn at(&mut self, t: u64, out: &mut VecDeque<String>) {
        if !self.on {
            return;
        }
        if let Some(l) = self.last {
            if t >= l + 1_000_000 {
                out.push_back(format!("sleep {}", fmt_ns(t - l)));
            }
            if t > l {
                self.last = Some(t);
            }
        } else {
            self.last = Some(t);
        }
    }

    /// Adds a wait of `ns` (fio v2 `wait`).
    pub fn wait(&mut self, ns: u64, out: &mut VecDeque<String>) {
        if self.on && ns >= 1_000_000 {
            out.push_back(format!("sleep {}", fmt_ns(ns)));
        }
    }
}

/// A read/write/load/store line, with COUNT only when it is not 1.
pub(crate) fn access(verb: &str, task: &str, target: &str, page: u64, count: u64) -> String {
    if count == 1 {
        format!("{} {} {} {}", verb, task, target, page)
    } else {
        format!("{} {} {} {} {}", verb, task, target, page, count)
    }
}

/// Parses `NNN.FFFFFFFFF` seconds into nanoseconds.
pub(crate) fn parse_secs(s: &str) -> Option<u64> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = int.parse().ok()?;
    let mut ns: u64 = 0;
    for (i, b) in frac.bytes().take(9).enumerate() {
        ns += (b - b'0') as u64 * 10u64.pow(8 - i as u32);
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// A note for formats that do not use `block_size`.
pub(crate) fn note_block_size(opts: &ImportOptions, out: &mut VecDeque<String>) {
    if opts.block_size.is_some() {
        out.push_back("# note: block_size is not used by this format (offsets are in bytes)".to_string());
    }
}
