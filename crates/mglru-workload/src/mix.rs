// SPDX-License-Identifier: GPL-2.0-only
//! The two multi-program reproducers of the seeds, interleaved in
//! simulated time by a small discrete-event scheduler:
//!
//! * `file-anon-mix`: seed 004's aging-OOM reproducer (mmap readers that
//!   pause between passes, anonymous alloc/free rounds, a memcg limit);
//! * `mixed-memcg`: seed 003's `mixed.sh` (memcached loaded by memtier,
//!   then fio buffered random reads in another memcg, then memtier reads).
//!
//! See docs/WORKLOADS.md.

use std::collections::VecDeque;

use crate::fio::{parse_cli, FioPlan, JobRun};
use crate::memtier::{parse_run, slab_for, Run, Slab};
use crate::rng::derive;
use crate::stream::{lines, Source};
use crate::util::{fmt_ns, fmt_secs, fmt_size, scaled, scaled_size, Machine, Params, GIB, MIB, NS_PER_SEC, PAGE};
use crate::Lines;

const MS: u64 = 1_000_000;

/// Emits `sleep` statements for idle time: when the next event starts
/// more than 1 ms after every earlier event has finished.
/// The idle time is bounded like a trace's (`mglru_trace::MAX_SLEEP_NS`,
/// for one sleep and in sum) and simulated time by 2^64 ns: beyond, the
/// stream ends with an error naming `blame`, the parameters that set the
/// pauses and costs.
struct Idle {
    busy_until: u64,
    slept: u64,
    blame: &'static str,
}

impl Idle {
    fn new(blame: &'static str) -> Idle {
        Idle { busy_until: 0, slept: 0, blame }
    }

    fn at(&mut self, t: u64, cost: u64, out: &mut VecDeque<String>) -> Result<(), String> {
        if t > self.busy_until.saturating_add(MS) {
            let gap = t - self.busy_until;
            if self.slept as u128 + gap as u128 > mglru_trace::MAX_SLEEP_NS as u128 {
                return Err(format!(
                    "{}: the run's idle time passes 365 days, more than trace v1 allows: lower {}",
                    self.blame.split(':').next().unwrap_or(""),
                    self.blame.split(':').nth(1).unwrap_or("").trim()
                ));
            }
            self.slept += gap;
            out.push_back(format!("sleep {}", fmt_ns(gap)));
        }
        let end = t.checked_add(cost).ok_or_else(|| {
            format!(
                "{}: the run's simulated time passes 2^64 ns: lower {}",
                self.blame.split(':').next().unwrap_or(""),
                self.blame.split(':').nth(1).unwrap_or("").trim()
            )
        })?;
        self.busy_until = self.busy_until.max(end);
        Ok(())
    }
}

// ---------------------------------------------------------------------
// file-anon-mix

struct Reader {
    task: String,
    pos: u64,
    t: u64,
    first_pass_end: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pressure {
    /// Waiting for every reader's first pass.
    Warmup,
    /// Round `round` in progress.
    Round,
    /// Sleeping until `t` before the next round (or the end).
    Wait(u64),
    Finished,
}

struct AnonThread {
    pos: u64,
    end: u64,
    t: u64,
}

struct FileAnonMix {
    readers: Vec<Reader>,
    threads: Vec<AnonThread>,
    state: Pressure,
    round: u64,
    rounds: u64,
    file_pages: u64,
    per_thread: u64,
    chunk: u64,
    reader_cost: u64,
    anon_cost: u64,
    reader_sleep: u64,
    anon_wait: u64,
    idle: Idle,
    done: bool,
}

impl FileAnonMix {
    fn start_round(&mut self, t: u64) {
        for (i, th) in self.threads.iter_mut().enumerate() {
            th.pos = i as u64 * self.per_thread;
            th.end = th.pos + self.per_thread;
            th.t = t;
        }
        self.state = Pressure::Round;
    }
}

impl Source for FileAnonMix {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.done {
            return Ok(false);
        }
        // Coordinator transitions that happen without an access.
        match self.state {
            Pressure::Warmup => {
                if self.readers.iter().all(|r| r.first_pass_end.is_some()) {
                    let t = self.readers.iter().filter_map(|r| r.first_pass_end).max().unwrap_or(0);
                    self.start_round(t);
                }
            }
            Pressure::Round => {
                if self.threads.iter().all(|th| th.pos >= th.end) {
                    let t = self.threads.iter().map(|th| th.t).max().unwrap_or(0);
                    self.idle.at(t, 0, out)?;
                    out.push_back("advise pressure anon dontneed".to_string());
                    self.round += 1;
                    self.state = Pressure::Wait(t.saturating_add(self.anon_wait));
                    return Ok(true);
                }
            }
            Pressure::Wait(t) => {
                let next_reader = self.readers.iter().map(|r| r.t).min().unwrap_or(u64::MAX);
                if t <= next_reader {
                    if self.round >= self.rounds {
                        self.idle.at(t, 0, out)?;
                        for r in &self.readers {
                            out.push_back(format!("exit {}", r.task));
                        }
                        out.push_back("exit pressure".to_string());
                        self.state = Pressure::Finished;
                        self.done = true;
                        return Ok(false);
                    }
                    self.start_round(t);
                }
            }
            Pressure::Finished => return Ok(false),
        }
        // The earliest stream acts: a reader, or an anon thread.
        let mut best: Option<(u64, usize, bool)> = None;
        for (i, r) in self.readers.iter().enumerate() {
            if best.map(|b| r.t < b.0).unwrap_or(true) {
                best = Some((r.t, i, true));
            }
        }
        if self.state == Pressure::Round {
            for (i, th) in self.threads.iter().enumerate() {
                if th.pos < th.end && best.map(|b| th.t < b.0).unwrap_or(true) {
                    best = Some((th.t, i, false));
                }
            }
        }
        let Some((t, i, is_reader)) = best else { return Ok(false) };
        if is_reader {
            let c = self.chunk.min(self.file_pages - self.readers[i].pos);
            let cost = c * self.reader_cost;
            self.idle.at(t, cost, out)?;
            let r = &mut self.readers[i];
            out.push_back(span("load", &r.task, "data", r.pos, c));
            r.pos += c;
            r.t = t.saturating_add(cost);
            if r.pos >= self.file_pages {
                r.pos = 0;
                if r.first_pass_end.is_none() {
                    r.first_pass_end = Some(r.t);
                }
                r.t = r.t.saturating_add(self.reader_sleep);
            }
        } else {
            let th = &mut self.threads[i];
            let c = self.chunk.min(th.end - th.pos);
            let cost = c * self.anon_cost;
            let (pos, tt) = (th.pos, th.t);
            th.pos += c;
            th.t = th.t.saturating_add(cost);
            self.idle.at(tt, cost, out)?;
            out.push_back(span("store", "pressure", "anon", pos, c));
        }
        Ok(true)
    }
}

fn span(verb: &str, task: &str, region: &str, page: u64, count: u64) -> String {
    if count == 1 {
        format!("{} {} {} {}", verb, task, region, page)
    } else {
        format!("{} {} {} {} {}", verb, task, region, page, count)
    }
}

/// The most readers or anon threads of file-anon-mix: every step scans
/// all the streams for the earliest.
const MAX_WORKERS: u64 = 1 << 16;

/// `file-anon-mix:k=v,...`.
pub(crate) fn file_anon_mix(rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse("file-anon-mix", rest)?;
    let scale = p.count("scale", 1)?;
    let file = p.size("file", scaled_size(8 * GIB, scale, PAGE))?;
    let anon = p.size("anon", scaled_size(44 * GIB, scale, PAGE))?;
    let file_workers = p.tasks("file_workers", 8)?;
    let anon_workers = p.tasks("anon_workers", 8)?;
    // Each step picks the earliest stream by a scan over all of them.
    for (key, n) in [("file_workers", file_workers), ("anon_workers", anon_workers)] {
        if n > MAX_WORKERS {
            return Err(format!(
                "file-anon-mix: {}={} is more than the generator interleaves ({}; the reproducer uses one per CPU)",
                key, n, MAX_WORKERS
            ));
        }
    }
    let reader_sleep = p.duration("reader_sleep", 120 * MS / scale)?;
    let anon_wait = p.duration("anon_wait", NS_PER_SEC / scale)?;
    let rounds = p.count("iterations", 128)?;
    let chunk = p.count("chunk", 16)?;
    let reader_cost = p.u64("reader_page_ns", 200)?;
    let anon_cost = p.u64("anon_page_ns", 1000)?.max(1);
    let m = Machine::from_params(&mut p, scaled_size(128 * GIB, scale, 16 * MIB), None, false, Some(scaled_size(48 * GIB, scale, 16 * MIB)))?;
    p.finish()?;
    if file == 0 {
        return Err("file-anon-mix: parameter file= must be greater than 0: the readers map the file and read it (default 8G)".to_string());
    }
    crate::util::check_file_size("file-anon-mix: file=", file)?;
    crate::util::check_region_size("file-anon-mix: anon=", anon)?;
    // Bounds that keep the time model's arithmetic within 64 bits: a
    // chunk's cost (chunk x page cost) below 2^63 ns, pauses no longer
    // than trace v1's longest sleep.
    for (key, v, max) in [
        ("reader_page_ns", reader_cost, NS_PER_SEC),
        ("anon_page_ns", anon_cost, NS_PER_SEC),
        ("chunk", chunk, 1 << 32),
        ("reader_sleep", reader_sleep, mglru_trace::MAX_SLEEP_NS),
        ("anon_wait", anon_wait, mglru_trace::MAX_SLEEP_NS),
    ] {
        if v > max {
            return Err(format!("file-anon-mix: {}={} is larger than its limit {}", key, v, max));
        }
    }
    if reader_cost == 0 && reader_sleep == 0 {
        return Err(
            "file-anon-mix: reader_page_ns=0 with reader_sleep=0 lets the readers loop without simulated time passing, \
             so the anon rounds never start: give reader_page_ns= or reader_sleep= a positive value"
                .to_string(),
        );
    }
    let file_pages = file.div_ceil(PAGE);
    let per_thread = (anon / anon_workers) / PAGE;
    if per_thread == 0 {
        return Err("file-anon-mix: anon= is too small for anon_workers= (each thread needs at least one page)".to_string());
    }
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload file-anon-mix: {} file read through mmap by {} processes (pause {} after each pass); {} anon x {} rounds by {} threads (pause {} between rounds)",
        fmt_size(file),
        file_workers,
        fmt_secs(reader_sleep),
        fmt_size(per_thread * anon_workers * PAGE),
        rounds,
        anon_workers,
        fmt_secs(anon_wait)
    ));
    out.push_back(format!(
        "# time model: a reader touches a page in {} ns, an anon thread faults one in {} ns; {} pages per statement",
        reader_cost, anon_cost, chunk
    ));
    m.setup_lines(&mut out);
    let memcg = m.memcg_max.map(|_| "demo");
    if let Some(mc) = memcg {
        out.push_back(Machine::memcg_line(mc, m.memcg_max));
    }
    let task_line = |t: &str| match memcg {
        Some(mc) => format!("task {} memcg={}", t, mc),
        None => format!("task {}", t),
    };
    out.push_back(format!("file testfile size={}", fmt_size(file_pages * PAGE)));
    let mut readers = Vec::new();
    for i in 0..file_workers {
        let t = format!("reader{}", i);
        out.push_back(task_line(&t));
        out.push_back(format!("mmap {} data file=testfile", t));
        readers.push(Reader { task: t, pos: 0, t: 0, first_pass_end: None });
    }
    out.push_back(task_line("pressure"));
    out.push_back(format!("anon pressure anon size={}", fmt_size(per_thread * anon_workers * PAGE)));
    let threads = (0..anon_workers).map(|_| AnonThread { pos: 0, end: 0, t: 0 }).collect();
    Ok(lines(
        out,
        FileAnonMix {
            readers,
            threads,
            state: Pressure::Warmup,
            round: 0,
            rounds,
            file_pages,
            per_thread,
            chunk,
            reader_cost,
            anon_cost,
            reader_sleep,
            anon_wait,
            idle: Idle::new("file-anon-mix: iterations=, anon_wait=, reader_sleep=, reader_page_ns= or anon_page_ns="),
            done: false,
        },
    ))
}

// ---------------------------------------------------------------------
// mixed-memcg

struct MixedMemcg {
    jobs: Vec<JobRun>,
    /// Time of each job's next I/O; None before fio starts.
    job_t: Vec<u64>,
    fio_interval: u64,
    load: Option<Run>,
    read: Option<Run>,
    slab: Slab,
    memtier_interval: u64,
    /// Index of the memtier request being timed.
    memtier_k: u64,
    memtier_t0: u64,
    delay: u64,
    idle: Idle,
    done: bool,
}

impl MixedMemcg {
    fn memtier_time(&self) -> u64 {
        self.memtier_t0 + self.memtier_k * self.memtier_interval
    }
}

impl Source for MixedMemcg {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.done {
            return Ok(false);
        }
        // Phase 1: the load run alone.
        if let Some(run) = self.load.as_mut() {
            let t = self.memtier_t0 + self.memtier_k * self.memtier_interval;
            if run.next_request(&mut self.slab, out) {
                self.memtier_k += 1;
                self.idle.busy_until = self.idle.busy_until.max(t + self.memtier_interval);
                return Ok(true);
            }
            // The load is over: fio starts, the read run `delay` later.
            let t_end = self.memtier_time();
            self.load = None;
            for (j, jt) in self.job_t.iter_mut().enumerate() {
                *jt = t_end + (j as u64 * self.fio_interval) / self.jobs.len().max(1) as u64;
            }
            self.memtier_t0 = t_end + self.delay;
            self.memtier_k = 0;
            return Ok(true);
        }
        let tm = self.memtier_time();
        let (jt, j) = self
            .job_t
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.jobs[*i].finished)
            .map(|(i, t)| (*t, i))
            .min()
            .unwrap_or((u64::MAX, 0));
        if self.read.is_some() && tm <= jt {
            let run = self.read.as_mut().expect("read run");
            self.idle.at(tm, self.memtier_interval, out)?;
            if run.next_request(&mut self.slab, out) {
                self.memtier_k += 1;
                return Ok(true);
            }
            // memtier is done: `kill -INT $pid` stops fio.
            self.read = None;
            for job in &self.jobs {
                if !job.finished {
                    out.push_back(format!("exit {}", job.task));
                }
            }
            self.done = true;
            return Ok(false);
        }
        if jt == u64::MAX {
            self.done = true;
            return Ok(false);
        }
        self.idle.at(jt, self.fio_interval, out)?;
        self.jobs[j].next_io(out);
        self.job_t[j] = jt + self.fio_interval;
        Ok(true)
    }
}

/// `mixed-memcg:k=v,...`.
pub(crate) fn mixed_memcg(rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse("mixed-memcg", rest)?;
    let scale = p.count("scale", 1)?;
    let keys = p.count("keys", scaled(50_000_000, scale, 1))?;
    let fio_size = p.size("fio_size", scaled_size(1408 * MIB, scale, PAGE))?;
    let jobs = p.tasks("jobs", 36)?;
    // The fio jobs and memcached.
    crate::util::check_tasks(&format!("mixed-memcg: parameter jobs={jobs} (plus the memcached task)"), jobs + 1)?;
    if jobs > crate::fio::MAX_JOBS {
        return Err(format!("mixed-memcg: jobs={} is more fio jobs than fio runs ({}, its REAL_MAX_JOBS)", jobs, crate::fio::MAX_JOBS));
    }
    let clients = p.tasks("clients", 36)?;
    let delay = p.duration("delay", 200 * NS_PER_SEC / scale)?;
    let fio_iops = p.count("fio_iops", 62_500)?;
    let memtier_ops = p.count("memtier_ops", 1_900_000)?;
    let data = p.u64("data_size", 2000)?;
    let memcached_max = p.size_opt("memcached_max")?;
    let fio_max = p.size_opt("fio_max")?;
    let m = Machine::from_params(&mut p, scaled_size(128 * GIB, scale, 16 * MIB), Some(scaled_size(54 * GIB, scale, PAGE)), true, None)?;
    p.finish()?;
    if fio_size < PAGE {
        return Err("mixed-memcg: fio_size= must be at least 4K".to_string());
    }
    if delay > mglru_trace::MAX_SLEEP_NS {
        return Err(format!("mixed-memcg: delay={} is longer than trace v1's longest sleep (365 days)", fmt_secs(delay)));
    }
    if keys > 1 << 32 {
        return Err(format!(
            "mixed-memcg: keys={} is too many: the memcached model keeps a bit per key and takes at most 4294967296 keys; lower keys= (or raise scale=)",
            keys
        ));
    }
    for (name, rate) in [("fio_iops", fio_iops), ("memtier_ops", memtier_ops)] {
        if rate > NS_PER_SEC {
            return Err(format!(
                "mixed-memcg: {}={} is above 1000000000 per second: events are timed in whole nanoseconds; give at most 1000000000",
                name, rate
            ));
        }
    }
    let load_cmd = format!(
        "-S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys --key-minimum=1 --key-maximum={} --key-pattern=P:P -c 1 -t {} --ratio 1:0 --pipeline 8 -d {}",
        keys, clients, data
    );
    let read_cmd = format!(
        "-S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys --key-minimum=1 --key-maximum={} --key-pattern=R:R -c 1 -t {} --ratio 0:1 --pipeline 8 --randomize --distinct-client-seed",
        keys, clients
    );
    let fio_cmd = format!(
        "-name=mglru --numjobs={} --directory=/mnt --size={} --buffered=1 --ioengine=io_uring --iodepth=128 --iodepth_batch_submit=32 --iodepth_batch_complete=32 --rw=randread --random_distribution=random --norandommap --time_based --ramp_time=10m --runtime=90m --group_reporting",
        jobs, fio_size
    );
    let load_cfg = parse_run(&load_cmd)?;
    let read_cfg = parse_run(&read_cmd)?;
    let mut slab = slab_for(&[load_cfg.clone(), read_cfg.clone()], None)?;
    slab.task = "memcached".to_string();
    let plan = FioPlan::new(&parse_cli(&fio_cmd)?, Some(fio_iops), derive(m.seed, 3))?;
    let mut out = VecDeque::new();
    out.push_back("# mglru-workload mixed-memcg: seed 003 mixed.sh: memtier loads memcached; fio starts; after the delay memtier reads; memtier's end stops fio".to_string());
    out.push_back(format!("# memtier load: {}", load_cmd));
    out.push_back(format!("# fio: {}", fio_cmd));
    out.push_back(format!("# sleep {}", fmt_secs(delay)));
    out.push_back(format!("# memtier read: {}", read_cmd));
    out.push_back(format!(
        "# time model: memtier {} requests/s in total, fio {} I/Os/s per job",
        memtier_ops, fio_iops
    ));
    out.push_back(slab.describe());
    m.setup_lines(&mut out);
    let parent = if m.memcg_max.is_some() {
        out.push_back(Machine::memcg_line("mixed", m.memcg_max));
        Some("mixed")
    } else {
        None
    };
    let child = |name: &str, max: Option<u64>| -> String {
        let mut l = Machine::memcg_line(name, max);
        if let Some(pa) = parent {
            l.push_str(&format!(" parent={}", pa));
        }
        l
    };
    out.push_back(child("memcached", memcached_max));
    out.push_back(child("fio", fio_max));
    out.push_back("task memcached memcg=memcached".to_string());
    out.push_back(format!("anon memcached items size={}", fmt_size(slab.region_bytes())));
    plan.file_lines(&mut out);
    plan.task_lines(Some("fio"), &mut out);
    for j in &plan.jobs {
        j.start_lines(&mut out);
    }
    let njobs = plan.jobs.len();
    let gen = MixedMemcg {
        jobs: plan.jobs,
        job_t: vec![0; njobs],
        fio_interval: (NS_PER_SEC / fio_iops).max(1),
        load: Some(Run::new(load_cfg, derive(m.seed, 1), memtier_ops)),
        read: Some(Run::new(read_cfg, derive(m.seed, 2), memtier_ops)),
        slab,
        memtier_interval: (NS_PER_SEC / memtier_ops).max(1),
        memtier_k: 0,
        memtier_t0: 0,
        delay,
        idle: Idle::new("mixed-memcg: delay=, keys= or the rates fio_iops=/memtier_ops="),
        done: false,
    };
    Ok(lines(out, gen))
}
