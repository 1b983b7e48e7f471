// SPDX-License-Identifier: GPL-2.0-only
//! The vm-scalability cases of seed 002: lru-file-readtwice,
//! lru-file-mmap-read, mmap-pread-seq and mmap-xread-seq-mt. See
//! docs/WORKLOADS.md, section "vm-scalability".

use std::collections::VecDeque;

use crate::stream::{lines, Source};
use crate::util::{fmt_size, pages_for, scaled_size, Machine, Params, GIB};
use crate::Lines;

/// One sequential reader: reads (or loads) `pages` pages of `target`
/// in chunks.
struct Reader {
    verb: &'static str,
    task: String,
    target: String,
    pos: u64,
    pages: u64,
    /// The task to `exit` when this reader is done (the last reader of a
    /// task).
    exit: Option<String>,
}

struct Readers {
    readers: Vec<Reader>,
    next: usize,
    chunk: u64,
    left: usize,
    tail: Vec<String>,
}

impl Source for Readers {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        let n = self.readers.len();
        for _ in 0..n {
            let i = self.next;
            self.next = (self.next + 1) % n;
            let r = &mut self.readers[i];
            if r.pos >= r.pages {
                continue;
            }
            let c = self.chunk.min(r.pages - r.pos);
            if c == 1 {
                out.push_back(format!("{} {} {} {}", r.verb, r.task, r.target, r.pos));
            } else {
                out.push_back(format!("{} {} {} {} {}", r.verb, r.task, r.target, r.pos, c));
            }
            r.pos += c;
            if r.pos >= r.pages {
                self.left -= 1;
                if let Some(t) = &r.exit {
                    out.push_back(format!("exit {}", t));
                }
            }
            return Ok(true);
        }
        for t in self.tail.drain(..) {
            out.push_back(t);
        }
        Ok(false)
    }
}

/// `lru-file-readtwice`, `lru-file-mmap-read`, `mmap-pread-seq`,
/// `mmap-xread-seq-mt` with `k=v` parameters.
pub(crate) fn generator(case: &str, rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse(case, rest)?;
    let scale = p.count("scale", 1)?;
    let nr_task = p.tasks("nr_task", 8)?;
    if case == "lru-file-readtwice" {
        // Two dd tasks per file.
        crate::util::check_tasks(&format!("{case}: parameter nr_task={nr_task} (two dd tasks per file)"), nr_task.saturating_mul(2))?;
    }
    let chunk = p.count("chunk", 1)?;
    let m = Machine::from_params(&mut p, scaled_size(16 * GIB, scale, mglru_trace::MIN_MEMORY), None, false, None)?;
    // Twice the memory in total (in u128: 2 x memory= may not fit in 64 bits).
    let default_size = match case {
        "lru-file-readtwice" | "lru-file-mmap-read" => 2 * m.memory as u128 / nr_task as u128,
        _ => 2 * m.memory as u128,
    };
    let size = match p.size_opt("size")? {
        Some(s) => s,
        None => u64::try_from(default_size).map_err(|_| {
            format!(
                "{}: memory={} is too large for the default size= (twice the memory): give size= or a smaller memory=",
                case,
                fmt_size(m.memory)
            )
        })?,
    };
    p.finish()?;
    if size == 0 {
        return Err(format!("{}: size= must be greater than 0", case));
    }
    crate::util::check_file_size(&format!("{case}: size="), size)?;
    let nfiles: u128 = match case {
        "lru-file-readtwice" | "lru-file-mmap-read" => nr_task as u128,
        _ => 1,
    };
    crate::util::check_total_files(&format!("{case}: size= x nr_task="), nfiles * pages_for(size) as u128)?;
    let pages = pages_for(size);
    let mut out = VecDeque::new();
    let memcg = m.memcg_max.map(|_| "vm-scalability");
    let task_line = |t: &str| match memcg {
        Some(mc) => format!("task {} memcg={}", t, mc),
        None => format!("task {}", t),
    };
    let mut readers = Vec::new();
    let mut tail = Vec::new();
    let mut setup = Vec::new();
    match case {
        "lru-file-readtwice" => {
            out.push_back(format!(
                "# mglru-workload {}: {} files of {}, each read sequentially (4K reads) by two dd processes at once",
                case, nr_task, fmt_size(size)
            ));
            for i in 1..=nr_task {
                let file = format!("sparse-lru-file-readtwice-{}", i);
                setup.push(format!("file {} size={}", file, fmt_size(size)));
                for k in 1..=2 {
                    let t = format!("dd-{}-{}", k, i);
                    setup.push(task_line(&t));
                    readers.push(Reader { verb: "read", task: t.clone(), target: file.clone(), pos: 0, pages, exit: Some(t) });
                }
            }
        }
        "lru-file-mmap-read" => {
            out.push_back(format!(
                "# mglru-workload {}: {} processes, each mmap-reading its own file of {} once (usemem --readonly)",
                case, nr_task, fmt_size(size)
            ));
            for i in 1..=nr_task {
                let file = format!("sparse-lru-file-mmap-read-{}", i);
                let t = format!("usemem-{}", i);
                setup.push(format!("file {} size={}", file, fmt_size(size)));
                setup.push(task_line(&t));
                setup.push(format!("mmap {} map file={}", t, file));
                readers.push(Reader { verb: "load", task: t.clone(), target: "map".to_string(), pos: 0, pages, exit: Some(t) });
            }
        }
        "mmap-pread-seq" => {
            out.push_back(format!(
                "# mglru-workload {}: {} processes mmap-reading one file of {} sequentially (usemem -n)",
                case, nr_task, fmt_size(size)
            ));
            let file = "sparse-mmap-pread-seq".to_string();
            setup.push(format!("file {} size={}", file, fmt_size(size)));
            for i in 1..=nr_task {
                let t = format!("usemem-{}", i);
                setup.push(task_line(&t));
                setup.push(format!("mmap {} map file={}", t, file));
                readers.push(Reader { verb: "load", task: t.clone(), target: "map".to_string(), pos: 0, pages, exit: Some(t) });
            }
        }
        _ => {
            out.push_back(format!(
                "# mglru-workload {}: {} threads of one process reading one shared mapping of {} sequentially (usemem -t --prealloc)",
                case, nr_task, fmt_size(size)
            ));
            let file = "sparse-mmap-xread-seq-mt".to_string();
            setup.push(format!("file {} size={}", file, fmt_size(size)));
            setup.push(task_line("usemem"));
            setup.push(format!("mmap usemem map file={}", file));
            for _ in 0..nr_task {
                readers.push(Reader { verb: "load", task: "usemem".to_string(), target: "map".to_string(), pos: 0, pages, exit: None });
            }
            tail.push("exit usemem".to_string());
        }
    }
    m.setup_lines(&mut out);
    if let Some(mc) = memcg {
        out.push_back(Machine::memcg_line(mc, m.memcg_max));
    }
    out.extend(setup);
    let left = readers.len();
    Ok(lines(out, Readers { readers, next: 0, chunk, left, tail }))
}
