// SPDX-License-Identifier: GPL-2.0-only
//! libCacheSim traces: the binary oracleGeneral format and CSV. Objects
//! become page ranges of one big file. See docs/WORKLOADS.md, sections
//! "oracle-general" and "cachesim-csv".

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::{access, file_lines, setup, LineReader, Timer};
use crate::rng::fnv1a64_bytes;
use crate::stream::{lines, Source};
use crate::util::{fmt_size, pages_for, Params, PAGE};
use crate::{ImportOptions, Lines};

const TASK: &str = "cache";
const FILE: &str = "objects";
const RECORD: usize = 24;

/// Where objects live in the file.
enum Layout {
    /// Object id -> (first page, pages), in order of first appearance.
    Objects(HashMap<u64, (u64, u64)>),
    /// Block mode: id is a block number of `block_size` bytes.
    Blocks(u64),
}

impl Layout {
    fn span(&self, id: u64) -> Option<(u64, u64)> {
        match self {
            Layout::Objects(m) => m.get(&id).copied(),
            Layout::Blocks(bs) => super::span(id.checked_mul(*bs)?, *bs).ok(),
        }
    }
}

/// First-pass bookkeeping: objects in order of first appearance with the
/// largest size seen.
struct Collect {
    block: Option<u64>,
    order: Vec<(u64, u64)>,
    index: HashMap<u64, usize>,
    max_id: u64,
    requests: u64,
}

impl Collect {
    fn new(block: Option<u64>) -> Collect {
        Collect { block, order: Vec::new(), index: HashMap::new(), max_id: 0, requests: 0 }
    }

    fn add(&mut self, id: u64, size: u64) {
        self.requests += 1;
        if self.block.is_some() {
            self.max_id = self.max_id.max(id);
            return;
        }
        match self.index.get(&id) {
            Some(&i) => self.order[i].1 = self.order[i].1.max(size),
            None => {
                self.index.insert(id, self.order.len());
                self.order.push((id, size));
            }
        }
    }

    /// The layout and the file size in bytes, or an error (naming the
    /// input `name`) when the objects need a larger file than trace v1
    /// allows.
    fn finish(self, name: &str) -> Result<(Layout, u64, u64), String> {
        let max = mglru_trace::MAX_FILE_SIZE;
        match self.block {
            Some(bs) => {
                let bytes = if self.requests == 0 { PAGE as u128 } else { (self.max_id as u128 + 1) * bs as u128 };
                if bytes > max as u128 {
                    return Err(format!(
                        "{}: block {} of {} bytes lies beyond {}, the largest file trace v1 allows: use a larger block_size only if the ids are smaller",
                        name,
                        self.max_id,
                        bs,
                        fmt_size(max)
                    ));
                }
                Ok((Layout::Blocks(bs), bytes as u64, self.max_id + 1))
            }
            None => {
                let mut m = HashMap::with_capacity(self.order.len());
                let mut next = 0u64;
                let n = self.order.len() as u64;
                for (id, size) in self.order {
                    let pages = pages_for(size);
                    if (next as u128 + pages as u128) * PAGE as u128 > max as u128 {
                        return Err(format!(
                            "{}: object {} ({} bytes) takes the objects past {}, the largest file trace v1 allows (objects are laid out one after another): import a part of the trace, or use block mode",
                            name,
                            id,
                            size,
                            fmt_size(max)
                        ));
                    }
                    m.insert(id, (next, pages));
                    next += pages;
                }
                Ok((Layout::Objects(m), next.max(1) * PAGE, n))
            }
        }
    }
}

fn header_lines(kind: &str, name: &str, requests: u64, objects: u64, bytes: u64, block: Option<u64>, opts: &ImportOptions) -> VecDeque<String> {
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload import {}: {}; {} requests, {} {}; file `{}` of {}; task `{}` reads all pages of an object per request",
        kind,
        name,
        requests,
        objects,
        if block.is_some() { "blocks" } else { "objects" },
        FILE,
        fmt_size(bytes),
        TASK
    ));
    match block {
        Some(bs) => out.push_back(format!("# block mode: object id N is bytes N*{}..(N+1)*{} of the file", bs, bs)),
        None => out.push_back("# layout: each object takes ceil(size/4K) consecutive pages (its largest size), in order of first appearance".to_string()),
    }
    setup(opts, &[TASK.to_string()], &mut out);
    file_lines(&[(FILE.to_string(), bytes)], &mut out);
    out
}

// ---------------------------------------------------------------------
// oracleGeneral

struct Records {
    r: BufReader<File>,
    offset: u64,
    name: String,
}

impl Records {
    fn open(path: &Path) -> Result<Records, String> {
        let name = path.display().to_string();
        let f = File::open(path).map_err(|e| format!("{}: cannot open: {}", name, e))?;
        Ok(Records { r: BufReader::with_capacity(256 * 1024, f), offset: 0, name })
    }

    /// (timestamp s, obj_id, obj_size) of the next record.
    fn next(&mut self) -> Option<Result<(u64, u64, u64), String>> {
        let mut buf = [0u8; RECORD];
        let mut got = 0;
        while got < RECORD {
            match self.r.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Some(Err(format!("{}: byte offset {}: read error: {}", self.name, self.offset, e))),
            }
        }
        if got == 0 {
            return None;
        }
        if got < RECORD {
            return Some(Err(format!(
                "{}: byte offset {}: truncated record: {} of 24 bytes (oracleGeneral records are u32 time, u64 obj_id, u32 obj_size, i64 next_access_vtime)",
                self.name, self.offset, got
            )));
        }
        self.offset += RECORD as u64;
        let t = u32::from_le_bytes(buf[0..4].try_into().expect("4 bytes")) as u64;
        let id = u64::from_le_bytes(buf[4..12].try_into().expect("8 bytes"));
        let size = u32::from_le_bytes(buf[12..16].try_into().expect("4 bytes")) as u64;
        Some(Ok((t, id, size)))
    }
}

struct OracleGen {
    recs: Records,
    layout: Layout,
    timer: Timer,
    failed: bool,
}

impl Source for OracleGen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.failed {
            return Ok(false);
        }
        match self.recs.next() {
            None => Ok(false),
            Some(Err(e)) => {
                self.failed = true;
                Err(e)
            }
            Some(Ok((t, id, _))) => {
                let at = self.recs.offset - RECORD as u64;
                self.timer
                    .at(t * 1_000_000_000, out)
                    .map_err(|e| format!("{}: byte offset {}: {}", self.recs.name, at, e))?;
                let (p, c) = self.layout.span(id).ok_or_else(|| {
                    format!("{}: byte offset {}: object {} was not seen in the first pass (did the file change?)", self.recs.name, self.recs.offset - RECORD as u64, id)
                })?;
                out.push_back(access("read", TASK, FILE, p, c));
                Ok(true)
            }
        }
    }
}

pub(crate) fn import_oracle(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("oracle-general", fopts)?;
    let timing = p.bool("timing", true)?;
    p.finish()?;
    let mut recs = Records::open(path)?;
    let mut c = Collect::new(opts.block_size);
    while let Some(Ok((_, id, size))) = recs.next() {
        c.add(id, size);
    }
    let requests = c.requests;
    let (layout, bytes, objects) = c.finish(&recs.name)?;
    let out = header_lines("oracle-general", &recs.name, requests, objects, bytes, opts.block_size, opts);
    Ok(lines(out, OracleGen { recs: Records::open(path)?, layout, timer: Timer::new(timing), failed: false }))
}

// ---------------------------------------------------------------------
// CSV

struct Csv {
    delim: char,
    header: bool,
    time: Option<usize>,
    id: usize,
    size: Option<usize>,
    time_unit: f64,
    numeric_ids: bool,
}

impl Csv {
    fn fields<'a>(&self, line: &'a str) -> Vec<&'a str> {
        if self.delim == ' ' {
            line.split_whitespace().collect()
        } else {
            line.split(self.delim).map(|f| f.trim()).collect()
        }
    }

    /// (time ns, id, size) of a data line; None for blank lines.
    fn parse(&self, name: &str, lineno: u64, line: &str) -> Result<Option<(Option<u64>, u64, u64)>, String> {
        if line.trim().is_empty() {
            return Ok(None);
        }
        let f = self.fields(line);
        let need = [Some(self.id), self.time, self.size].iter().flatten().max().copied().unwrap_or(0) + 1;
        if f.len() < need {
            return Err(format!(
                "{}:{}: expected at least {} columns separated by `{}`, found {}: `{}`",
                name,
                lineno,
                need,
                if self.delim == '\t' { "\\t".to_string() } else { self.delim.to_string() },
                f.len(),
                line
            ));
        }
        let raw_id = f[self.id].trim_matches('"');
        if raw_id.is_empty() {
            return Err(format!("{}:{}: column {} (obj_id) is empty", name, lineno, self.id + 1));
        }
        let id = if self.numeric_ids {
            raw_id.parse::<u64>().map_err(|_| {
                format!("{}:{}: column {} (obj_id): `{}` is not a number (block mode needs numeric ids)", name, lineno, self.id + 1, raw_id)
            })?
        } else {
            match raw_id.parse::<u64>() {
                Ok(v) => v,
                Err(_) => fnv1a64_bytes(raw_id.as_bytes()),
            }
        };
        let size = match self.size {
            None => PAGE,
            Some(c) => {
                let v = f[c].parse::<u64>().map_err(|_| {
                    format!("{}:{}: column {} (obj_size): `{}` is not a non-negative integer", name, lineno, c + 1, f[c])
                })?;
                if v > mglru_trace::MAX_FILE_SIZE {
                    return Err(format!(
                        "{}:{}: column {} (obj_size): {} bytes is larger than the largest file trace v1 allows ({})",
                        name,
                        lineno,
                        c + 1,
                        v,
                        fmt_size(mglru_trace::MAX_FILE_SIZE)
                    ));
                }
                v
            }
        };
        let time = match self.time {
            None => None,
            Some(c) => {
                let v = f[c].parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| {
                    format!("{}:{}: column {} (time): `{}` is not a non-negative number", name, lineno, c + 1, f[c])
                })?;
                let ns = v * self.time_unit;
                // 2^64 ns: `as` would saturate silently.
                if ns >= 18_446_744_073_709_551_616.0 {
                    return Err(format!("{}:{}: column {} (time): `{}` is too large: it must fit in 64 bits of nanoseconds", name, lineno, c + 1, f[c]));
                }
                Some(ns as u64)
            }
        };
        Ok(Some((time, id, size)))
    }
}

fn resolve(key: &str, given: Option<String>, header: Option<&[String]>, defaults: &[&str], position: usize, optional: bool) -> Result<Option<usize>, String> {
    match given {
        Some(v) if v == "none" => {
            if optional {
                Ok(None)
            } else {
                Err(format!("cachesim-csv: {}=none: the obj_id column is required", key))
            }
        }
        Some(v) => {
            if let Ok(i) = v.parse::<usize>() {
                if i == 0 {
                    return Err(format!("cachesim-csv: {}=0: columns count from 1", key));
                }
                return Ok(Some(i - 1));
            }
            let h = header.ok_or_else(|| format!("cachesim-csv: {}={}: naming a column needs header=1", key, v))?;
            h.iter()
                .position(|c| c.eq_ignore_ascii_case(&v))
                .map(Some)
                .ok_or_else(|| format!("cachesim-csv: {}={}: no such column in the header ({})", key, v, h.join(", ")))
        }
        None => match header {
            Some(h) => match h.iter().position(|c| defaults.iter().any(|d| c.eq_ignore_ascii_case(d))) {
                Some(i) => Ok(Some(i)),
                None if optional => Ok(None),
                None => Err(format!(
                    "cachesim-csv: the header ({}) has no {} column: name it with {}=COLUMN (a name or a 1-based index)",
                    h.join(", "),
                    defaults[0],
                    key
                )),
            },
            None => Ok(Some(position)),
        },
    }
}

struct CsvGen {
    reader: LineReader,
    csv: Csv,
    layout: Layout,
    timer: Timer,
}

impl Source for CsvGen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        let (lineno, line) = match self.reader.next_line() {
            None => return Ok(false),
            Some(r) => r?,
        };
        if lineno == 1 && self.csv.header {
            return Ok(true);
        }
        if let Some((t, id, _)) = self.csv.parse(&self.reader.name, lineno, &line)? {
            if let Some(t) = t {
                self.timer.at(t, out).map_err(|e| format!("{}:{}: {}", self.reader.name, lineno, e))?;
            }
            let (p, c) = self.layout.span(id).ok_or_else(|| {
                format!("{}:{}: object `{}` was not seen in the first pass (did the file change?)", self.reader.name, lineno, id)
            })?;
            out.push_back(access("read", TASK, FILE, p, c));
        }
        Ok(true)
    }
}

pub(crate) fn import_csv(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("cachesim-csv", fopts)?;
    let timing = p.bool("timing", true)?;
    let header = p.bool("header", true)?;
    let delim = match p.string("delimiter", "comma").as_str() {
        "comma" | "," => ',',
        "tab" | "\\t" => '\t',
        "space" | " " => ' ',
        "semicolon" => ';',
        "pipe" | "|" => '|',
        other => return Err(format!("cachesim-csv: delimiter={}: use comma, tab, space, semicolon or pipe", other)),
    };
    let time_unit = match p.string("time_unit", "s").as_str() {
        "s" => 1e9,
        "ms" => 1e6,
        "us" => 1e3,
        "ns" => 1.0,
        other => return Err(format!("cachesim-csv: time_unit={}: use s, ms, us or ns", other)),
    };
    let (time_opt, id_opt, size_opt) = (p.take("time"), p.take("obj_id"), p.take("obj_size"));
    p.finish()?;
    let mut r = LineReader::open(path)?;
    let header_fields: Option<Vec<String>> = if header {
        match r.next_line() {
            None => return Err(format!("{}:1: empty file: expected a header line (or give header=0)", r.name)),
            Some(l) => {
                let (_, l) = l?;
                let tmp = Csv { delim, header, time: None, id: 0, size: None, time_unit, numeric_ids: false };
                Some(tmp.fields(&l).iter().map(|s| s.trim_matches('"').to_string()).collect())
            }
        }
    } else {
        None
    };
    let h = header_fields.as_deref();
    let time = resolve("time", time_opt, h, &["time", "timestamp", "ts"], 0, true)?;
    let id = resolve("obj_id", id_opt, h, &["obj_id", "id", "key", "obj"], 1, false)?.unwrap_or(1);
    let size = resolve("obj_size", size_opt, h, &["obj_size", "size"], 2, true)?;
    let csv = Csv { delim, header, time, id, size, time_unit, numeric_ids: opts.block_size.is_some() };
    let mut c = Collect::new(opts.block_size);
    while let Some(Ok((lineno, line))) = r.next_line() {
        if let Ok(Some((_, id, size))) = csv.parse(&r.name, lineno, &line) {
            c.add(id, size);
        }
    }
    let requests = c.requests;
    let (layout, bytes, objects) = c.finish(&r.name)?;
    let out = header_lines("cachesim-csv", &r.name, requests, objects, bytes, opts.block_size, opts);
    Ok(lines(out, CsvGen { reader: LineReader::open(path)?, csv, layout, timer: Timer::new(timing && time.is_some()) }))
}
