// SPDX-License-Identifier: GPL-2.0-only
//! valgrind lackey (`valgrind --tool=lackey --trace-mem=yes`): every data
//! access of one process, as anonymous pages of one task. See
//! docs/WORKLOADS.md, section "lackey".

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use super::{note_block_size, setup, LineReader};
use crate::stream::{lines, Source};
use crate::util::{fmt_size, Params, MIB, PAGE};
use crate::{ImportOptions, Lines};

const TASK: &str = "lackey";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Instr,
    Load,
    Store,
    Modify,
}

/// Parses ` L 04220e78,8` style lines; None for lines to skip.
fn parse(name: &str, lineno: u64, line: &str) -> Result<Option<(Kind, u64, u64)>, String> {
    if line.trim().is_empty() || line.starts_with("==") || line.starts_with("--") {
        return Ok(None);
    }
    let t = line.trim_start();
    let expected = "expected a lackey access `I  ADDR,SIZE`, ` L ADDR,SIZE`, ` S ADDR,SIZE` or ` M ADDR,SIZE` (hexadecimal address)";
    let mut it = t.splitn(2, char::is_whitespace);
    let kind = match it.next() {
        Some("I") => Kind::Instr,
        Some("L") => Kind::Load,
        Some("S") => Kind::Store,
        Some("M") => Kind::Modify,
        _ => return Err(format!("{}:{}: {}, found `{}`", name, lineno, expected, super::excerpt(line))),
    };
    let rest = it.next().unwrap_or("").trim();
    let (a, s) = rest
        .split_once(',')
        .ok_or_else(|| format!("{}:{}: {}, found `{}`", name, lineno, expected, super::excerpt(line)))?;
    let addr = u64::from_str_radix(a.trim().trim_start_matches("0x"), 16)
        .map_err(|_| format!("{}:{}: bad address `{}`: expected hexadecimal digits", name, lineno, super::excerpt(a.trim())))?;
    let size = s
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("{}:{}: bad size `{}`: expected a decimal number", name, lineno, super::excerpt(s.trim())))?;
    if addr as u128 + size.max(1) as u128 > 1u128 << 64 {
        return Err(format!(
            "{}:{}: the access {:#x},{} runs past the top of the 64-bit address space",
            name, lineno, addr, size
        ));
    }
    Ok(Some((kind, addr, size)))
}

/// Address ranges (in pages, end exclusive), merged when closer than
/// `gap` pages.
struct Ranges {
    map: BTreeMap<u64, u64>,
    gap: u64,
}

impl Ranges {
    fn add(&mut self, first: u64, end: u64) {
        // Fast path: inside an existing range.
        if let Some((&s, &e)) = self.map.range(..=first).next_back() {
            if end <= e && first >= s {
                return;
            }
        }
        let (mut lo, mut hi) = (first, end);
        // Ranges are disjoint and more than `gap` apart: only the last one
        // starting before hi + gap can touch [lo, hi); repeat after merging.
        while let Some((&s, &e)) = self.map.range(..=hi.saturating_add(self.gap)).next_back() {
            if e.saturating_add(self.gap) < lo {
                break;
            }
            self.map.remove(&s);
            lo = lo.min(s);
            hi = hi.max(e);
        }
        self.map.insert(lo, hi);
    }
}

struct Gen {
    reader: LineReader,
    /// Region start page -> (region index, end page).
    regions: BTreeMap<u64, (usize, u64)>,
    instructions: bool,
    collapse: bool,
    last: Option<String>,
}

impl Gen {
    fn push(&mut self, line: String, out: &mut VecDeque<String>) {
        if self.collapse && self.last.as_deref() == Some(line.as_str()) {
            return;
        }
        self.last = Some(line.clone());
        out.push_back(line);
    }
}

impl Source for Gen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        let (lineno, line) = match self.reader.next_line() {
            None => return Ok(false),
            Some(r) => r?,
        };
        let Some((kind, addr, size)) = parse(&self.reader.name, lineno, &line)? else { return Ok(true) };
        if kind == Kind::Instr && !self.instructions {
            return Ok(true);
        }
        let first = addr / PAGE;
        let end = ((addr as u128 + size.max(1) as u128).div_ceil(PAGE as u128)) as u64;
        let (start, idx) = match self.regions.range(..=first).next_back() {
            Some((&s, &(i, e))) if end <= e => (s, i),
            _ => {
                return Err(format!(
                    "{}:{}: address {:x} is outside the regions found in the first pass (did the file change?)",
                    self.reader.name, lineno, addr
                ))
            }
        };
        let page = first - start;
        let count = end - first;
        let region = format!("r{}", idx);
        let fmt = |verb: &str| {
            if count == 1 {
                format!("{} {} {} {}", verb, TASK, region, page)
            } else {
                format!("{} {} {} {} {}", verb, TASK, region, page, count)
            }
        };
        match kind {
            Kind::Instr | Kind::Load => {
                let l = fmt("load");
                self.push(l, out);
            }
            Kind::Store => {
                let l = fmt("store");
                self.push(l, out);
            }
            Kind::Modify => {
                let (l, s) = (fmt("load"), fmt("store"));
                self.push(l, out);
                self.push(s, out);
            }
        }
        Ok(true)
    }
}

pub(crate) fn import(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("lackey", fopts)?;
    let instructions = p.bool("instructions", false)?;
    let collapse = p.bool("collapse", true)?;
    let gap = p.size("gap", MIB)?;
    p.finish()?;
    if gap > mglru_trace::MAX_REGION_SIZE {
        return Err(format!(
            "lackey: gap={} is larger than the largest region trace v1 allows ({})",
            fmt_size(gap),
            fmt_size(mglru_trace::MAX_REGION_SIZE)
        ));
    }
    let mut r = LineReader::open(path)?;
    let mut ranges = Ranges { map: BTreeMap::new(), gap: gap / PAGE };
    let mut n = 0u64;
    while let Some(Ok((lineno, line))) = r.next_line() {
        if let Ok(Some((kind, addr, size))) = parse(&r.name, lineno, &line) {
            if kind == Kind::Instr && !instructions {
                continue;
            }
            n += 1;
            ranges.add(addr / PAGE, ((addr as u128 + size.max(1) as u128).div_ceil(PAGE as u128)) as u64);
        }
    }
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload import lackey: {}; {} accesses{} in {} region(s) (address ranges more than {} apart), task `{}`",
        r.name,
        n,
        if instructions { " (instruction fetches included)" } else { " (instruction fetches skipped)" },
        ranges.map.len(),
        fmt_size(gap),
        TASK
    ));
    note_block_size(opts, &mut out);
    setup(opts, &[TASK.to_string()], &mut out);
    let mut regions = BTreeMap::new();
    for (i, (&s, &e)) in ranges.map.iter().enumerate() {
        if (e - s) > mglru_trace::MAX_REGION_SIZE / PAGE {
            return Err(format!(
                "{}: the accessed addresses {:#x}..{:#x} form one range of {} pages (pages closer than gap={} join), more than trace v1 allows for a region ({}): use a smaller gap=",
                r.name,
                s as u128 * PAGE as u128,
                e as u128 * PAGE as u128,
                e - s,
                fmt_size(gap),
                fmt_size(mglru_trace::MAX_REGION_SIZE)
            ));
        }
        out.push_back(format!("# r{}: addresses {:#x}..{:#x}", i, s as u128 * PAGE as u128, e as u128 * PAGE as u128));
        out.push_back(format!("anon {} r{} size={}", TASK, i, fmt_size((e - s) * PAGE)));
        regions.insert(s, (i, e));
    }
    Ok(lines(out, Gen { reader: LineReader::open(path)?, regions, instructions, collapse, last: None }))
}
