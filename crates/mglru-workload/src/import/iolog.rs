// SPDX-License-Identifier: GPL-2.0-only
//! fio iolog versions 2 and 3 (`write_iolog=` output, `read_iolog=`
//! input). See docs/WORKLOADS.md, section "fio-iolog".

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use super::{access, file_lines, note_block_size, setup, LineReader, Timer};
use crate::stream::{lines, Source};
use crate::util::{sanitize, Params};
use crate::{ImportOptions, Lines};

const TASK: &str = "fio";

enum Act {
    /// add/open/close: nothing to simulate, but the file exists.
    File(String),
    Access { file: String, off: u64, len: u64, write: bool },
    Wait(u64),
    /// sync, datasync, trim: counted and skipped.
    Skip(&'static str),
}

struct Parser {
    name: String,
    v3: bool,
    unit_ns: u64,
}

impl Parser {
    fn parse(&self, lineno: u64, line: &str) -> Result<Option<(Option<u64>, Act)>, String> {
        let t = line.trim();
        if t.is_empty() {
            return Ok(None);
        }
        let mut tok: Vec<&str> = t.split_whitespace().collect();
        let what = if self.v3 { "TIME FILE ACTION [OFFSET LENGTH]" } else { "FILE ACTION [OFFSET LENGTH]" };
        let mut ts = None;
        if self.v3 {
            let first = tok.first().copied().unwrap_or("");
            let v: u64 = first.parse().map_err(|_| {
                format!("{}:{}: expected `{}` with a numeric TIME, found `{}`", self.name, lineno, what, first)
            })?;
            ts = Some(v.checked_mul(self.unit_ns).ok_or_else(|| {
                format!("{}:{}: TIME `{}` is too large: it must fit in 64 bits of nanoseconds", self.name, lineno, first)
            })?);
            tok.remove(0);
        }
        if tok.len() < 2 {
            return Err(format!("{}:{}: expected `{}`, found `{}`", self.name, lineno, what, t));
        }
        let file = tok[0].to_string();
        let num = |i: usize, field: &str| -> Result<u64, String> {
            let s = tok.get(i).ok_or_else(|| {
                format!("{}:{}: `{}` needs {}: expected `{}`", self.name, lineno, tok[1], field, what)
            })?;
            s.parse::<u64>().map_err(|_| {
                format!("{}:{}: {} `{}` is not a non-negative integer", self.name, lineno, field, s)
            })
        };
        let act = match tok[1] {
            "add" | "open" | "close" => Act::File(file),
            "read" | "write" => {
                let off = num(2, "OFFSET")?;
                let len = num(3, "LENGTH")?;
                super::span(off, len).map_err(|e| format!("{}:{}: {}", self.name, lineno, e))?;
                Act::Access { file, off, len, write: tok[1] == "write" }
            }
            "wait" => {
                let us = num(2, "a wait time")?;
                Act::Wait(us.checked_mul(1000).ok_or_else(|| {
                    format!("{}:{}: wait `{}` is too large: it must fit in 64 bits of nanoseconds", self.name, lineno, us)
                })?)
            }
            "sync" => Act::Skip("sync"),
            "datasync" => Act::Skip("datasync"),
            "trim" => Act::Skip("trim"),
            other => {
                return Err(format!(
                    "{}:{}: unknown action `{}`: expected add, open, close, read, write, sync, datasync, trim or wait",
                    self.name, lineno, other
                ))
            }
        };
        Ok(Some((ts, act)))
    }
}

struct Gen {
    reader: LineReader,
    parser: Parser,
    names: HashMap<String, String>,
    timer: Timer,
}

impl Source for Gen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        let (lineno, line) = match self.reader.next_line() {
            None => return Ok(false),
            Some(r) => r?,
        };
        if let Some((ts, act)) = self.parser.parse(lineno, &line)? {
            match act {
                Act::Access { file, off, len, write } => {
                    let at = |e: String| format!("{}:{}: {}", self.reader.name, lineno, e);
                    if let Some(t) = ts {
                        self.timer.at(t, out).map_err(at)?;
                    }
                    let (p, c) = super::span(off, len).map_err(at)?;
                    let name = &self.names[&file];
                    out.push_back(access(if write { "write" } else { "read" }, TASK, name, p, c));
                }
                Act::Wait(ns) => self.timer.wait(ns, out).map_err(|e| format!("{}:{}: {}", self.reader.name, lineno, e))?,
                Act::File(_) | Act::Skip(_) => {}
            }
        }
        Ok(true)
    }
}

pub(crate) fn import(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("fio-iolog", fopts)?;
    let timing = p.bool("timing", true)?;
    let unit = p.string("time_unit", "us");
    p.finish()?;
    let unit_ns = match unit.as_str() {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        other => return Err(format!("fio-iolog: time_unit={}: use ns, us or ms", other)),
    };
    let mut r = LineReader::open(path)?;
    let header = match r.next_line() {
        None => return Err(format!("{}:1: empty file: expected `fio version 2 iolog` or `fio version 3 iolog`", r.name)),
        Some(h) => h?.1,
    };
    let v3 = match header.trim() {
        "fio version 2 iolog" => false,
        "fio version 3 iolog" => true,
        other => {
            return Err(format!(
                "{}:1: expected the header `fio version 2 iolog` or `fio version 3 iolog`, found `{}`",
                r.name, other
            ))
        }
    };
    let parser = Parser { name: r.name.clone(), v3, unit_ns };
    // First pass: files and sizes.
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut skipped: Vec<(&'static str, u64)> = Vec::new();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    while let Some(Ok((lineno, line))) = r.next_line() {
        let Ok(Some((_, act))) = parser.parse(lineno, &line) else { continue };
        let (file, end) = match act {
            Act::File(f) => (f, 0),
            // The end of the last page the access touches (a zero-length
            // request touches the page at its offset): the file must hold
            // it, or the trace is rejected.
            Act::Access { file, off, len, .. } => match super::span_end(off, len) {
                Ok(end) => (file, end),
                Err(_) => continue,
            },
            Act::Skip(k) => {
                match skipped.iter_mut().find(|(n, _)| *n == k) {
                    Some(e) => e.1 += 1,
                    None => skipped.push((k, 1)),
                }
                continue;
            }
            Act::Wait(_) => continue,
        };
        match index.get(&file) {
            Some(&i) => files[i].1 = files[i].1.max(end),
            None => {
                let mut t = sanitize(&file, true);
                while !taken.insert(t.clone()) {
                    t.push('_');
                }
                index.insert(file.clone(), files.len());
                names.insert(file, t.clone());
                files.push((t, end));
            }
        }
    }
    super::check_files(&r.name, &files)?;
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload import fio-iolog (version {}): {}; one task `{}`, {} file(s) sized to the largest offset seen",
        if v3 { 3 } else { 2 },
        r.name,
        TASK,
        files.len()
    ));
    if !skipped.is_empty() {
        out.push_back(format!(
            "# skipped: {}",
            skipped.iter().map(|(k, n)| format!("{} {}", n, k)).collect::<Vec<_>>().join(", ")
        ));
    }
    note_block_size(opts, &mut out);
    setup(opts, &[TASK.to_string()], &mut out);
    file_lines(&files, &mut out);
    let mut reader = LineReader::open(path)?;
    reader.next_line();
    Ok(lines(out, Gen { reader, parser, names, timer: Timer::new(timing) }))
}
