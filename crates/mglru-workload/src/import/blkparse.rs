// SPDX-License-Identifier: GPL-2.0-only
//! blkparse's default text output: the queued (`Q`) events, one file per
//! device. See docs/WORKLOADS.md, section "blkparse".

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use super::{access, file_lines, parse_secs, setup, LineReader, Timer};
use crate::stream::{lines, Source};
use crate::util::Params;
use crate::{ImportOptions, Lines};

struct Event {
    dev: String,
    time: u64,
    pid: u64,
    /// None: a Q event that touches no data (flush, discard, ...).
    io: Option<(u64, u64, bool)>,
}

enum Parsed {
    /// Not a queued data event (other actions, blank lines).
    Nothing,
    /// The summary that ends blkparse's output.
    Summary,
    Q(Event),
}

fn parse(name: &str, lineno: u64, line: &str, sector: u64) -> Result<Parsed, String> {
    let t = line.trim();
    if t.is_empty() {
        return Ok(Parsed::Nothing);
    }
    if t.starts_with("CPU") || t.starts_with("Total") {
        return Ok(Parsed::Summary);
    }
    let tok: Vec<&str> = t.split_whitespace().collect();
    let expected = "expected a blkparse event `MAJ,MIN CPU SEQ TIME PID ACTION RWBS ...` (e.g. `8,0 3 1 0.000000000 697 Q R 223490 + 8 [kjournald]`)";
    let dev_ok = tok
        .first()
        .and_then(|d| d.split_once(','))
        .map(|(a, b)| !a.is_empty() && !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()))
        .unwrap_or(false);
    if !dev_ok || tok.len() < 7 {
        return Err(format!("{}:{}: {}, found `{}`", name, lineno, expected, t));
    }
    if tok[5] != "Q" {
        return Ok(Parsed::Nothing);
    }
    let time = parse_secs(tok[3])
        .ok_or_else(|| format!("{}:{}: bad TIME `{}`: expected seconds like 0.000000000", name, lineno, tok[3]))?;
    let pid = tok[4]
        .parse::<u64>()
        .map_err(|_| format!("{}:{}: bad PID `{}`: expected a number", name, lineno, tok[4]))?;
    let rwbs = tok[6];
    let (maj, min) = tok[0].split_once(',').unwrap_or(("0", "0"));
    let dev = format!("blk{}_{}", maj, min);
    let write = rwbs.contains('W');
    let data = !rwbs.contains('D') && (write || rwbs.contains('R'));
    if !data {
        return Ok(Parsed::Q(Event { dev, time, pid, io: None }));
    }
    if tok.len() < 10 && tok.get(7).map(|t| t.starts_with('[')).unwrap_or(true) {
        // No `SECTOR + COUNT`: a flush (`Q FWS [proc]`) or a request
        // without data.
        return Ok(Parsed::Q(Event { dev, time, pid, io: None }));
    }
    if tok.len() < 10 || tok[8] != "+" {
        return Err(format!(
            "{}:{}: a Q event needs `SECTOR + COUNT` after RWBS (e.g. `Q R 223490 + 8 [proc]`), found `{}`",
            name, lineno, t
        ));
    }
    let start = tok[7]
        .parse::<u64>()
        .map_err(|_| format!("{}:{}: bad SECTOR `{}`: expected a number", name, lineno, tok[7]))?;
    let count = tok[9]
        .parse::<u64>()
        .map_err(|_| format!("{}:{}: bad sector COUNT `{}`: expected a number", name, lineno, tok[9]))?;
    if count == 0 {
        return Ok(Parsed::Q(Event { dev, time, pid, io: None }));
    }
    // Sectors beyond trace v1's largest file are an error (they were
    // capped silently near 2^64).
    let (off, len) = match (start.checked_mul(sector), count.checked_mul(sector)) {
        (Some(o), Some(l)) => (o, l),
        _ => (u64::MAX, u64::MAX),
    };
    super::span(off, len).map_err(|e| {
        format!("{}:{}: sectors {} + {} of {} bytes: {}", name, lineno, start, count, sector, e)
    })?;
    Ok(Parsed::Q(Event { dev, time, pid, io: Some((off, len, write)) }))
}

struct Gen {
    reader: LineReader,
    sector: u64,
    per_pid: bool,
    timer: Timer,
    summary: bool,
}

impl Source for Gen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.summary {
            return Ok(false);
        }
        let (lineno, line) = match self.reader.next_line() {
            None => return Ok(false),
            Some(r) => r?,
        };
        match parse(&self.reader.name, lineno, &line, self.sector)? {
            Parsed::Nothing => {}
            Parsed::Summary => self.summary = true,
            Parsed::Q(e) => {
                if let Some((off, len, write)) = e.io {
                    self.timer.at(e.time, out).map_err(|m| format!("{}:{}: {}", self.reader.name, lineno, m))?;
                    let task = if self.per_pid { format!("pid{}", e.pid) } else { "blk".to_string() };
                    let (p, c) = super::span(off, len)?;
                    out.push_back(access(if write { "write" } else { "read" }, &task, &e.dev, p, c));
                }
            }
        }
        Ok(true)
    }
}

pub(crate) fn import(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("blkparse", fopts)?;
    let timing = p.bool("timing", true)?;
    let per_pid = match p.string("tasks", "single").as_str() {
        "single" => false,
        "pid" => true,
        other => return Err(format!("blkparse: tasks={}: use single (one task `blk`) or pid (one task per PID)", other)),
    };
    p.finish()?;
    let sector = opts.block_size.unwrap_or(512);
    let mut r = LineReader::open(path)?;
    let mut devs: Vec<(String, u64)> = Vec::new();
    let mut dev_idx: HashMap<String, usize> = HashMap::new();
    let mut pids: Vec<u64> = Vec::new();
    let mut pid_seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let mut events = 0u64;
    while let Some(Ok((lineno, line))) = r.next_line() {
        match parse(&r.name, lineno, &line, sector) {
            Ok(Parsed::Summary) => break,
            Ok(Parsed::Q(e)) => {
                if let Some((off, len, _)) = e.io {
                    events += 1;
                    let Ok(end) = super::span_end(off, len) else { continue };
                    match dev_idx.get(&e.dev) {
                        Some(&i) => devs[i].1 = devs[i].1.max(end),
                        None => {
                            dev_idx.insert(e.dev.clone(), devs.len());
                            devs.push((e.dev, end));
                        }
                    }
                    if per_pid && pid_seen.insert(e.pid) {
                        pids.push(e.pid);
                    }
                }
            }
            _ => {}
        }
    }
    super::check_files(&r.name, &devs)?;
    let tasks: Vec<String> = if per_pid { pids.iter().map(|p| format!("pid{}", p)).collect() } else { vec!["blk".to_string()] };
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload import blkparse: {}; {} queued data requests on {} device(s) (one file per device, {}-byte sectors)",
        r.name,
        events,
        devs.len(),
        sector
    ));
    setup(opts, &tasks, &mut out);
    file_lines(&devs, &mut out);
    Ok(lines(out, Gen { reader: LineReader::open(path)?, sector, per_pid, timer: Timer::new(timing), summary: false }))
}
