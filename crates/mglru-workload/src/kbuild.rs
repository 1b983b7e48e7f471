// SPDX-License-Identifier: GPL-2.0-only
//! A parallel kernel build on tmpfs (`make -jN`), as in seed 004's
//! no-regression check: the source tree lives on a tmpfs, every
//! compilation unit is a fresh compiler process in the build's memcg that
//! reads its source file and a skewed choice of the shared headers,
//! grows and revisits its anonymous heap, writes its object file to the
//! tmpfs and exits. See docs/WORKLOADS.md, section "kbuild".
//!
//! The seed gives the setting (make -j96 defconfig, tmpfs, zram, a 3G
//! memcg) and the result (system time), not the shape of one compile;
//! the defaults below are assumptions about a defconfig build of a 6.x
//! tree, written down in docs/WORKLOADS.md.

use std::collections::VecDeque;

use crate::rng::{derive, Rng, Zipf};
use crate::stream::{lines, Source};
use crate::util::{check_tasks, fmt_size, pages_for, scaled, scaled_size, Machine, Params, GIB, MIB, PAGE};
use crate::Lines;

/// Pages of one header file as the compiler reads it (headers are small:
/// most fit in one or two pages).
const HEADER_PAGES: u64 = 2;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Take the next unit, or finish.
    Next,
    /// Read the unit's own source file.
    Source,
    /// Read header files; `left` more to read.
    Headers { left: u64 },
    /// Grow the heap: store `page..`, revisiting earlier pages.
    Heap { page: u64 },
    /// Write the object file, then exit.
    Write,
    Done,
}

struct Job {
    phase: Phase,
    unit: u64,
    rng: Rng,
}

struct Kbuild {
    jobs: Vec<Job>,
    next_job: usize,
    next_unit: u64,
    units: u64,
    cpus: u64,
    unit_src_pages: u64,
    headers: Zipf,
    includes: u64,
    heap_pages: u64,
    batch: u64,
    reuse: u64,
    obj_pages: u64,
    /// Setup still to write: the tree's population, a line per step.
    setup: VecDeque<String>,
    done: bool,
}

impl Kbuild {
    fn job_step(&mut self, j: usize, out: &mut VecDeque<String>) {
        let job = &mut self.jobs[j];
        let u = job.unit;
        match job.phase {
            Phase::Next => {
                if self.next_unit >= self.units {
                    job.phase = Phase::Done;
                    return;
                }
                job.unit = self.next_unit;
                self.next_unit += 1;
                let u = job.unit;
                // make forks and execs a compiler for the unit on this
                // job's CPU; its heap is a fresh anonymous mapping.
                out.push_back(format!("task cc{} memcg=build cpu={}", u, j as u64 % self.cpus));
                out.push_back(format!("anon cc{} heap size={}", u, fmt_size(self.heap_pages * PAGE)));
                job.phase = Phase::Source;
            }
            Phase::Source => {
                out.push_back(format!("read cc{} src {} {}", u, u * self.unit_src_pages, self.unit_src_pages));
                job.phase = if self.includes > 0 { Phase::Headers { left: self.includes } } else { Phase::Heap { page: 0 } };
            }
            Phase::Headers { left } => {
                let h = self.headers.sample(&mut job.rng);
                out.push_back(format!("read cc{} headers {} {}", u, h * HEADER_PAGES, HEADER_PAGES));
                job.phase = if left > 1 { Phase::Headers { left: left - 1 } } else { Phase::Heap { page: 0 } };
            }
            Phase::Heap { page } => {
                let c = self.batch.min(self.heap_pages - page);
                if c == 1 {
                    out.push_back(format!("store cc{} heap {}", u, page));
                } else {
                    out.push_back(format!("store cc{} heap {} {}", u, page, c));
                }
                // The compiler walks what it built so far (syntax trees,
                // symbol tables): `reuse` loads of earlier pages per batch.
                let grown = page + c;
                for _ in 0..self.reuse {
                    out.push_back(format!("load cc{} heap {}", u, job.rng.below(grown)));
                }
                job.phase = if grown >= self.heap_pages { Phase::Write } else { Phase::Heap { page: grown } };
            }
            Phase::Write => {
                out.push_back(format!("write cc{} obj {} {}", u, u * self.obj_pages, self.obj_pages));
                out.push_back(format!("exit cc{}", u));
                job.phase = Phase::Next;
            }
            Phase::Done => {}
        }
    }
}

impl Source for Kbuild {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.done {
            return Ok(false);
        }
        if let Some(l) = self.setup.pop_front() {
            out.push_back(l);
            return Ok(true);
        }
        let n = self.jobs.len();
        for _ in 0..n {
            let j = self.next_job;
            self.next_job = (self.next_job + 1) % n;
            if self.jobs[j].phase != Phase::Done {
                self.job_step(j, out);
                return Ok(true);
            }
        }
        self.done = true;
        Ok(false)
    }
}

/// `kbuild:k=v,...`.
pub(crate) fn generator(rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse("kbuild", rest)?;
    let scale = p.count("scale", 1)?;
    let jobs = p.tasks("jobs", 96)?;
    let units = p.count("units", scaled(2700, scale, 1))?;
    let unit_src = p.size("unit_src", 32 * 1024)?;
    let header_tree = p.size("header_tree", scaled_size(128 * MIB, scale, 4 * PAGE))?;
    let includes = p.u64("includes", 400)?;
    let header_skew = p.f64("header_skew", 0.9)?;
    let heap = p.size("heap", scaled_size(100 * MIB, scale, PAGE))?;
    let batch = p.count("batch", 16)?;
    let reuse = p.u64("reuse", 4)?;
    let obj = p.size("obj", 160 * 1024)?;
    let cpus = p.count("cpus", jobs)?;
    let tree_in_memcg = p.bool("tree_in_memcg", false)?;
    let zram_ratio = p.f64("zram_ratio", 3.0)?;
    let m = Machine::from_params(
        &mut p,
        scaled_size(64 * GIB, scale, mglru_trace::MIN_MEMORY),
        Some(scaled_size(32 * GIB, scale, PAGE)),
        true,
        Some(scaled_size(3 * GIB, scale, PAGE)),
    )?;
    p.finish()?;
    check_tasks("kbuild: units=", units)?;
    if cpus > mglru_trace::MAX_CPUS as u64 {
        return Err(format!("kbuild: cpus={} is more than trace v1 allows ({}): lower cpus=", cpus, mglru_trace::MAX_CPUS));
    }
    if !(1.0..=1000.0).contains(&zram_ratio) {
        return Err(format!("kbuild: zram_ratio={} is out of range: give a number from 1 to 1000", zram_ratio));
    }
    if !(header_skew > 0.0 && header_skew < 10.0) || header_skew == 1.0 {
        return Err(format!(
            "kbuild: header_skew={} is out of range: give a Zipf exponent above 0 and below 10, not 1 (e.g. 0.9)",
            header_skew
        ));
    }
    let unit_src_pages = pages_for(unit_src).max(1);
    let obj_pages = pages_for(obj).max(1);
    let heap_pages = pages_for(heap).max(1);
    let header_files = (pages_for(header_tree) / HEADER_PAGES).max(1);
    // Every file of the trace together must fit trace v1.
    let total = (unit_src_pages as u128 + obj_pages as u128) * units as u128 + (header_files * HEADER_PAGES) as u128;
    crate::util::check_total_files("kbuild", total)?;

    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload kbuild: make -j{} of {} units on tmpfs; each a compiler: its {} source, {} of {} header files, a {} heap, a {} object",
        jobs,
        units,
        fmt_size(unit_src_pages * PAGE),
        includes,
        header_files,
        fmt_size(heap_pages * PAGE),
        fmt_size(obj_pages * PAGE)
    ));
    out.push_back(format!("memory {}", fmt_size(m.memory)));
    if let Some(s) = m.swap {
        if m.swap_sync {
            out.push_back(format!("swap {} zram=y ratio={:.2}", fmt_size(s.max(PAGE)), zram_ratio));
        } else {
            out.push_back(format!("swap {} sync=n", fmt_size(s.max(PAGE))));
        }
    }
    out.push_back(format!("cpus {}", cpus));
    out.push_back(Machine::memcg_line("build", m.memcg_max));
    out.push_back(format!("file headers size={} tmpfs=y", fmt_size(header_files * HEADER_PAGES * PAGE)));
    out.push_back(format!("file src size={} tmpfs=y", fmt_size(units * unit_src_pages * PAGE)));
    out.push_back(format!("file obj size={} tmpfs=y", fmt_size(units * obj_pages * PAGE)));
    // The tree is unpacked before the build: by a task in the root memcg
    // (the default) or in the build's memcg (tree_in_memcg=y).
    let mut setup = VecDeque::new();
    setup.push_back(if tree_in_memcg { "task untar memcg=build".to_string() } else { "task untar".to_string() });
    setup.push_back(format!("write untar headers 0 {}", header_files * HEADER_PAGES));
    setup.push_back(format!("write untar src 0 {}", units * unit_src_pages));
    setup.push_back("exit untar".to_string());
    let gen = Kbuild {
        jobs: (0..jobs).map(|j| Job { phase: Phase::Next, unit: 0, rng: Rng::new(derive(m.seed, j)) }).collect(),
        next_job: 0,
        next_unit: 0,
        units,
        cpus,
        unit_src_pages,
        headers: Zipf::new(header_files, header_skew),
        includes,
        heap_pages,
        batch,
        reuse,
        obj_pages,
        setup,
        done: false,
    };
    Ok(lines(out, gen))
}
