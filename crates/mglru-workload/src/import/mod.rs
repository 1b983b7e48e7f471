// SPDX-License-Identifier: GPL-2.0-only
//! Importers: traces of real programs turned into trace v1.
//!
//! Each importer reads its input twice: a lenient first pass collects what
//! the setup statements need (files and their sizes, tasks, regions), the
//! second pass streams the operations and reports malformed input as
//! `FILE:LINE: what was expected`. So the input must be a regular file (a
//! pipe or FIFO would be empty, or wait, on the second pass: [`check_input`]).
//! Memory is bounded by the number of files, tasks, regions or objects,
//! never by the number of requests, and a line by [`MAX_LINE`].

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

/// The longest input line, as the trace reader's: no importer's format has
/// lines near it, and a file without line ends (`/dev/zero`, a binary file
/// given to a text importer) stops here instead of filling memory.
pub const MAX_LINE: usize = 64 << 10;

/// Refuse an input that cannot be read twice, before reading it: a FIFO is
/// not even opened (its open would wait for a writer).
pub(crate) fn check_input(path: &Path) -> Result<(), String> {
    let name = path.display();
    let regular = if path.as_os_str() == "-" {
        false
    } else {
        match std::fs::metadata(path) {
            Ok(m) => m.is_file(),
            Err(e) => return Err(format!("{name}: cannot open: {e}")),
        }
    };
    if regular {
        return Ok(());
    }
    Err(format!(
        "{name} is not a regular file (standard input, a pipe, a FIFO or a device): an importer reads its input twice (a sizing pass, then the accesses); save it to a file first (`... > input.log`) and import that"
    ))
}

/// At most the first 80 characters of `s` for a message, saying how long
/// the rest is: an error never quotes a whole 64 KiB line.
pub(crate) fn excerpt(s: &str) -> String {
    const SHOWN: usize = 80;
    match s.char_indices().nth(SHOWN) {
        None => s.to_string(),
        Some((at, _)) => format!("{}... ({} bytes in all)", &s[..at], s.len()),
    }
}

/// `msg` with every `quoted` part longer than [`excerpt`] shows cut to its
/// excerpt (importers quote the line or the field they could not read).
pub(crate) fn shorten_quotes(msg: &str) -> String {
    if msg.len() <= 400 {
        return msg.to_string();
    }
    let mut out = String::new();
    let mut parts = msg.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (i, part) in parts.enumerate() {
        out.push('`');
        // Odd parts (0-based even after the first) are inside backquotes.
        out.push_str(&if i % 2 == 0 { excerpt(part) } else { part.to_string() });
    }
    out
}

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
        match std::io::Read::take(&mut self.r, MAX_LINE as u64 + 1).read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                self.lineno += 1;
                if self.buf.len() > MAX_LINE && self.buf.last() != Some(&b'\n') {
                    self.failed = true;
                    return Some(Err(format!(
                        "{}:{}: the line is longer than {} bytes (64 KiB), the longest an importer reads: is this a file of the format imported?",
                        self.name, self.lineno, MAX_LINE
                    )));
                }
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
    // `import` checked the machine size (check_options).
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
/// The idle time is bounded like a trace's (`mglru_trace::MAX_SLEEP_NS`
/// for one gap and for all of them): a gap beyond it is an error, which
/// the caller places at the input line, never a silent cap.
pub(crate) struct Timer {
    last: Option<u64>,
    on: bool,
    /// The sum of the sleeps emitted so far.
    total: u64,
}

impl Timer {
    pub fn new(on: bool) -> Timer {
        Timer { last: None, on, total: 0 }
    }

    pub fn at(&mut self, t: u64, out: &mut VecDeque<String>) -> Result<(), String> {
        if !self.on {
            return Ok(());
        }
        if let Some(l) = self.last {
            if t >= l.saturating_add(1_000_000) {
                self.sleep(t - l, "the timestamp jumps", out)?;
            }
            if t > l {
                self.last = Some(t);
            }
        } else {
            self.last = Some(t);
        }
        Ok(())
    }

    /// Adds a wait of `ns` (fio v2 `wait`).
    pub fn wait(&mut self, ns: u64, out: &mut VecDeque<String>) -> Result<(), String> {
        if self.on && ns >= 1_000_000 {
            self.sleep(ns, "the wait is", out)?;
        }
        Ok(())
    }

    fn sleep(&mut self, ns: u64, what: &str, out: &mut VecDeque<String>) -> Result<(), String> {
        let max = mglru_trace::MAX_SLEEP_NS;
        if ns > max {
            return Err(format!(
                "{what} {}: a longer idle period than trace v1 allows (365 days); import with timing=0 to drop the gaps",
                fmt_ns(ns)
            ));
        }
        if self.total + ns > max {
            return Err(format!(
                "the gaps between requests add up to more than trace v1 allows for a trace's idle time (365 days); import with timing=0 to drop them, or split the input"
            ));
        }
        self.total += ns;
        out.push_back(format!("sleep {}", fmt_ns(ns)));
        Ok(())
    }
}

/// The pages of a request of `len` bytes at byte `off` (`page_span`), or
/// an error when the request ends beyond the largest file trace v1 allows
/// (offsets were capped silently near 2^64).
pub(crate) fn span(off: u64, len: u64) -> Result<(u64, u64), String> {
    let end = off as u128 + len.max(1) as u128;
    if end > mglru_trace::MAX_FILE_SIZE as u128 {
        return Err(format!(
            "bytes {}..{} lie beyond {}, the largest file trace v1 allows",
            off,
            end,
            fmt_size(mglru_trace::MAX_FILE_SIZE)
        ));
    }
    Ok(crate::util::page_span(off, len))
}

/// The byte size a file needs for the request at (`off`, `len`): its end,
/// where a zero-length request counts as one byte (it touches the page at
/// its offset, which the file must therefore hold).
pub(crate) fn span_end(off: u64, len: u64) -> Result<u64, String> {
    span(off, len)?;
    Ok(off + len.max(1))
}

/// Refuses files that add up to more than trace v1 allows; `name` is the
/// input.
pub(crate) fn check_files(name: &str, files: &[(String, u64)]) -> Result<(), String> {
    let pages: u128 = files.iter().map(|(_, b)| crate::util::pages_for(*b) as u128).sum();
    crate::util::check_total_files(&format!("{name}: the offsets of the input"), pages)
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

/// Refuses import options outside trace v1's bounds.
pub(crate) fn check_options(opts: &ImportOptions) -> Result<(), String> {
    if let Some(m) = opts.memory {
        crate::util::check_memory("import: memory", m)?;
    }
    Ok(())
}

/// A note for formats that do not use `block_size`.
pub(crate) fn note_block_size(opts: &ImportOptions, out: &mut VecDeque<String>) {
    if opts.block_size.is_some() {
        out.push_back("# note: block_size is not used by this format (offsets are in bytes)".to_string());
    }
}
