// SPDX-License-Identifier: GPL-2.0-only
//! Fuzz harnesses for everything that reads user input: the trace reader
//! (text, binary, compressed), each importer, the workload specifications
//! and whole runs of the model.
//!
//! The toolchain here builds on stable Rust, so this is a small,
//! deterministic mutation fuzzer of its own rather than libFuzzer: inputs
//! start from a committed seed corpus (`fuzz/corpus/TARGET/`), each
//! iteration takes one, applies a few byte- and token-level mutations from
//! a seeded SplitMix64 stream, and runs the target on it. The same seed
//! and iteration count always try the same inputs, so a finding can be
//! replayed exactly (`mglru-fuzz TARGET N SEED --from K` prints input K).
//!
//! The invariant checked for every input is the issue's: a clean error or
//! valid output, never a panic; generated and imported traces are read
//! back by the trace reader, which must accept them; a whole run ends with
//! the model's accounting invariants intact; no input takes longer than
//! [`HANG_MS`]. Memory is watched by the callers (the smoke test and the
//! long-run binary install [`PeakAlloc`] as their allocator).
//!
//! There is no coverage feedback; the mutations know the shape of the
//! inputs instead (a dictionary of keywords, option names, units and
//! boundary numbers), and inputs that ran cleanly join the pool so that
//! mutations stack.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use mglru_trace::{Op, TraceReader};

/// An input that takes longer than this is a hang (the issue's bound is
/// 10 s; the harness is stricter so that a slow case shows up early).
pub const HANG_MS: u128 = 10_000;

/// The most lines of a generated or imported trace a single input reads
/// back: enough to pass the setup and many operations, bounded so that an
/// input that asks for 10^12 operations still ends.
pub const LINE_BUDGET: usize = 2000;

/// The longest input the mutator makes.
pub const MAX_INPUT: usize = 16 << 10;

/// The targets, one per parser or generator.
pub const TARGETS: &[&str] = &[
    "trace-text",
    "trace-binary",
    "import-fio-iolog",
    "import-blkparse",
    "import-strace",
    "import-lackey",
    "import-oracle-general",
    "import-cachesim-csv",
    "workload",
    "run",
];

/// SplitMix64: the fuzzer's one source of randomness.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Tokens the mutator inserts: statement keywords, option names, units,
/// boundary numbers and bytes that parsers must survive.
const DICT: &[&str] = &[
    "memory ", "swap ", "sysctl ", "memcg ", "file ", "task ", "anon ", "mmap ", "read ", "write ",
    "load ", "store ", "advise ", "reclaim ", "sleep ", "exit ", "dump", "lru_gen + ", "lru_gen - ",
    "cpus ", "cpu=",
    "size=", "readahead=", "max=", "high=", "low=", "min=", "swap.max=", "parent=", "memcg=", "file=",
    "sync=y", "ram=y", "zram=y", "ratio=", "tmpfs=y", "memfd=y", "zram_ratio=", "shared=y", "vm.swappiness=", "lru_gen.enabled=", "root", "dontneed", "noreuse", "max",
    "K", "M", "G", "T", "KiB", "ns", "us", "ms", "s", "0", "1", "4095", "4096", "65535", "65536",
    "4294967295", "4294967296", "9223372036854775807", "18446744073709551615",
    "18446744073709551616", "99999999999999999999", "-1", "1.5", "\u{feff}", "\t", "\r", "\0", "#",
    "=", ",", ";", ":", "\n", " && ", "--name=j ", "--size=", "--filesize=", "--filename=",
    "--numjobs=", "--nrfiles=", "--bs=", "--rw=randread ", "--runtime=", "--time_based ",
    "--ioengine=mmap ", "--random_distribution=zipf:", "-d ", "-n ", "-c ", "-t ", "--ratio=",
    "--key-maximum=", "--key-pattern=", "scale=", "chunks=", "chunk_size=", "threads=", "loops=",
    "records=", "operations=", "cache=", "leaf=", "keys=", "jobs=", "clients=", "delay=",
    "iterations=", "nr_task=", "gap=", "timing=0", "time_unit=", "header=0", "obj_size=", "seed=",
    "fio:", "fio-job:", "memtier:", "ycsb:", "ebizzy:", "lru-file-readtwice:", "mmap-pread-seq:",
    "file-anon-mix:", "mixed-memcg:", " Q R ", " + ", "[pid 7] ", "pread64(3, \"\"..., 4096, ",
    ") = 4096", "openat(AT_FDCWD, \"/f\", O_RDONLY) = 3", " L ", " S ", " M ", "I  ", "fff0000",
    "fio version 2 iolog\n", "fio version 3 iolog\n", " add\n", " read ", " wait ",
];

/// Numbers a digit run is replaced with.
const NUMBERS: &[&str] = &[
    "0", "1", "7", "15", "16", "255", "4095", "4096", "4097", "65536", "1048576", "2147483648",
    "4294967295", "4294967296", "1099511627776", "4398046511104", "9223372036854775807",
    "18446744073709551615", "18446744073709551616", "340282366920938463463374607431768211456",
];

/// Applies one to four random mutations to `data`, drawing tokens from the
/// dictionary and material from `pool` (other inputs of the same target).
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>, pool: &[Vec<u8>]) {
    let n = 1 + rng.below(4);
    for _ in 0..n {
        let len = data.len();
        match rng.below(11) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = [0, 0x7f, 0x80, 0xff, b'\n', b' ', b'=', b'#', b'9'][rng.below(9)];
            }
            2 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(16)).min(len);
                data.drain(a..b);
            }
            3 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                let chunk = data[a..b].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, chunk);
            }
            4 | 5 => {
                let tok = DICT[rng.below(DICT.len())].as_bytes();
                let at = rng.below(len + 1);
                data.splice(at..at, tok.iter().copied());
            }
            6 | 7 => {
                // Replace a run of digits with a boundary number.
                let starts: Vec<usize> =
                    (0..len).filter(|&i| data[i].is_ascii_digit() && (i == 0 || !data[i - 1].is_ascii_digit())).collect();
                if starts.is_empty() {
                    continue;
                }
                let a = starts[rng.below(starts.len())];
                let mut b = a;
                while b < len && data[b].is_ascii_digit() {
                    b += 1;
                }
                let num = NUMBERS[rng.below(NUMBERS.len())].as_bytes();
                data.splice(a..b, num.iter().copied());
            }
            8 if !pool.is_empty() => {
                // Splice: our head, another input's tail.
                let other = &pool[rng.below(pool.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            9 => {
                // Swap two lines (order rules: definitions before use).
                let nl: Vec<usize> = (0..len).filter(|&i| data[i] == b'\n').collect();
                if nl.len() >= 3 {
                    let i = rng.below(nl.len() - 1);
                    let (a, b, c) = (nl[i] + 1, nl[i + 1] + 1, *nl.get(i + 2).unwrap_or(&len));
                    if b < c {
                        let mut line = data[a..b].to_vec();
                        let next = data[b..c.min(len)].to_vec();
                        line.splice(0..0, next);
                        data.splice(a..c.min(len), line);
                    }
                }
            }
            _ => {
                let at = rng.below(len + 1);
                let k = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..k).map(|_| rng.next() as u8).collect();
                data.splice(at..at, bytes);
            }
        }
    }
    data.truncate(MAX_INPUT);
}

/// What one input did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Valid input, fully processed (or processed up to the budget).
    Valid,
    /// A clean error.
    Rejected,
    /// Valid, but beyond the whole-run target's budget (not run).
    OverBudget,
}

/// Streams the lines of a generator or importer as the bytes of a trace,
/// so that the trace reader reads them back as they are produced. A line
/// error ends the stream and is kept.
struct LinesReader {
    lines: std::iter::Take<mglru_workload::Lines>,
    pending: Vec<u8>,
    pos: usize,
    error: Option<String>,
}

impl Read for LinesReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.pending.len() {
            self.pending.clear();
            self.pos = 0;
            match self.lines.next() {
                None => return Ok(0),
                Some(Ok(l)) => {
                    self.pending.extend_from_slice(l.as_bytes());
                    self.pending.push(b'\n');
                }
                Some(Err(e)) => {
                    self.error = Some(e);
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.pending.len() - self.pos);
        buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Reads the first [`LINE_BUDGET`] lines of `lines` back with the trace
/// reader. A reader error is a violation: generators and importers must
/// write traces the reader accepts. The stream's own error is clean.
fn read_back(what: &str, lines: mglru_workload::Lines) -> Result<Outcome, String> {
    let src = LinesReader { lines: lines.take(LINE_BUDGET), pending: Vec::new(), pos: 0, error: None };
    // The reader holds the stream; the error it saw comes back through a
    // shared slot.
    let shared = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    struct Tee(LinesReader, std::sync::Arc<std::sync::Mutex<Option<String>>>);
    impl Read for Tee {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.read(buf)?;
            if let Some(e) = self.0.error.take() {
                *self.1.lock().expect("not poisoned") = Some(e);
            }
            Ok(n)
        }
    }
    let mut r = TraceReader::from_reader("generated", Box::new(Tee(src, shared.clone())))
        .map_err(|e| format!("{what}: the reader could not start on the output: {e}"))?;
    // Text input only: a generator writes text.
    loop {
        match r.next_op() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Err(format!("{what}: the output is not a valid trace: {e}")),
        }
    }
    let err = shared.lock().expect("not poisoned").take();
    Ok(if err.is_some() { Outcome::Rejected } else { Outcome::Valid })
}

fn trace(input: &[u8]) -> Result<Outcome, String> {
    let r = TraceReader::from_reader("fuzz", Box::new(io::Cursor::new(input.to_vec())));
    let Ok(mut r) = r else { return Ok(Outcome::Rejected) };
    loop {
        match r.next_op() {
            Ok(Some(op)) => {
                // Every op formats back to a statement that reads as the
                // same op at the same point: ask only that it does not
                // panic (the op_to_text round trip is tested elsewhere).
                let _ = r.op_to_text(&op);
            }
            Ok(None) => return Ok(Outcome::Valid),
            Err(e) => {
                if e.message().is_empty() {
                    return Err(format!("an error without a message: {e:?}"));
                }
                return Ok(Outcome::Rejected);
            }
        }
    }
}

fn import(format: &str, input: &[u8], scratch: &Path) -> Result<Outcome, String> {
    // First line: the format's options (`gap=4K,timing=0`); the rest is
    // the file.
    let (opts, body) = match input.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&input[..i]).into_owned(), &input[i + 1..]),
        None => (String::new(), input),
    };
    std::fs::write(scratch, body).map_err(|e| format!("scratch file {}: {e}", scratch.display()))?;
    let spec = if opts.is_empty() { format.to_string() } else { format!("{format}:{opts}") };
    match mglru_workload::import(&spec, scratch, &mglru_workload::ImportOptions::default()) {
        Err(_) => Ok(Outcome::Rejected),
        Ok(lines) => read_back(&format!("import {spec}"), lines),
    }
}

fn workload(input: &[u8]) -> Result<Outcome, String> {
    let spec = String::from_utf8_lossy(input);
    // A job file path would read whatever file the mutation names.
    if spec.trim_start().starts_with("fio-job") {
        return Ok(Outcome::Rejected);
    }
    match mglru_workload::workload(&spec) {
        Err(_) => Ok(Outcome::Rejected),
        Ok(lines) => read_back(&format!("workload {spec}"), lines),
    }
}

/// Budget of the whole-run target: the model's cost grows with RAM, pages
/// touched and simulated time, so inputs beyond these are not run (they
/// are the benchmark's business, not the fuzzer's).
const RUN_MAX_MEMORY: u64 = 64 << 20;
const RUN_MAX_PAGES: u64 = 1 << 16;
const RUN_MAX_SLEEP_NS: u64 = 10_000_000_000;
const RUN_MAX_OPS: usize = 5000;

fn run(input: &[u8]) -> Result<Outcome, String> {
    // `workload:SPEC` runs the trace a generator writes (its first
    // LINE_BUDGET lines), anything else is a text trace.
    let source: Box<dyn Read + Send> = match input.strip_prefix(b"workload:") {
        Some(spec) => {
            let spec = String::from_utf8_lossy(spec);
            if spec.trim_start().starts_with("fio-job") {
                return Ok(Outcome::Rejected);
            }
            match mglru_workload::workload(&spec) {
                Err(_) => return Ok(Outcome::Rejected),
                Ok(lines) => Box::new(LinesReader { lines: lines.take(LINE_BUDGET), pending: Vec::new(), pos: 0, error: None }),
            }
        }
        None => Box::new(io::Cursor::new(input.to_vec())),
    };
    let Ok(mut r) = TraceReader::from_reader("fuzz", source) else {
        return Ok(Outcome::Rejected);
    };
    let mut ops = Vec::new();
    let (mut pages, mut slept, mut memory) = (0u64, 0u64, mglru_trace::DEFAULT_MEMORY);
    loop {
        match r.next_op() {
            Ok(Some(op)) => {
                match &op {
                    Op::Memory { bytes } => memory = *bytes,
                    Op::Swap { bytes, .. } if *bytes > RUN_MAX_MEMORY => return Ok(Outcome::OverBudget),
                    Op::Read { count, .. } | Op::Write { count, .. } | Op::Load { count, .. } | Op::Store { count, .. } => {
                        pages = pages.saturating_add(*count)
                    }
                    Op::Sleep { ns } => slept = slept.saturating_add(*ns),
                    Op::Reclaim { bytes, .. } => pages = pages.saturating_add(bytes / 4096),
                    _ => {}
                }
                ops.push(op);
                if ops.len() > RUN_MAX_OPS || pages > RUN_MAX_PAGES || slept > RUN_MAX_SLEEP_NS {
                    return Ok(Outcome::OverBudget);
                }
            }
            Ok(None) => break,
            Err(_) => return Ok(Outcome::Rejected),
        }
    }
    if memory > RUN_MAX_MEMORY {
        // Run it in less memory: the model's cost is in RAM, and a trace
        // valid in 1G is valid in 64M.
        ops.retain(|op| !matches!(op, Op::Memory { .. }));
    }
    let policy = if input.len() % 2 == 0 { mglru_core::kernel::Policy::Classic } else { mglru_core::kernel::Policy::Mglru };
    // Half the inputs run with the tasks side by side (their operations
    // interleaving inside the kernel), a quarter of all with kswapd as a
    // thread.
    let schedule = if input.len() % 4 >= 2 { mglru_core::sched::Schedule::Parallel } else { mglru_core::sched::Schedule::Serial };
    let kswapd = if input.len() % 8 >= 4 { mglru_core::kswapd::KswapdMode::Thread } else { mglru_core::kswapd::KswapdMode::Instant };
    let opts = mglru_core::sim::RunOptions {
        memory: Some(memory.min(RUN_MAX_MEMORY)),
        policy: Some(policy),
        seed: input.len() as u64,
        schedule,
        kswapd,
        ..Default::default()
    };
    let mut sim = mglru_core::sim::Simulator::new(opts);
    for op in &ops {
        if sim.apply(op).is_err() {
            return Ok(Outcome::Rejected);
        }
    }
    match sim.finish() {
        Err(_) => Ok(Outcome::Rejected),
        Ok(k) => {
            k.check_invariants().map_err(|e| format!("the model's invariants broke: {e}"))?;
            Ok(Outcome::Valid)
        }
    }
}

/// Runs `target` on one input. `Err` is a violation of the invariant
/// other than a panic (which the caller catches).
pub fn exec(target: &str, input: &[u8], scratch: &Path) -> Result<Outcome, String> {
    match target {
        "trace-text" => trace(input),
        "trace-binary" => {
            let mut v = mglru_trace::BINARY_MAGIC.to_vec();
            v.extend_from_slice(input);
            trace(&v)
        }
        "workload" => workload(input),
        "run" => run(input),
        t => match t.strip_prefix("import-") {
            Some(f) => import(f, input, scratch),
            None => Err(format!("unknown target {t}")),
        },
    }
}

/// A violation: the input and what went wrong.
#[derive(Debug, Clone)]
pub struct Finding {
    pub target: String,
    pub iteration: u64,
    pub input: Vec<u8>,
    pub what: String,
}

/// Counts of one fuzzing session.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub execs: u64,
    pub valid: u64,
    pub rejected: u64,
    pub over_budget: u64,
    pub slowest_ms: u128,
    pub findings: Vec<Finding>,
}

/// The seed corpus of `target` (`fuzz/corpus/TARGET/*`, sorted by name).
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    names.sort();
    names.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// The `i`th input of a session: deterministic in (`seed`, `i`) given
/// the pool, which grows only with inputs that ran cleanly.
fn next_input(rng: &mut Rng, pool: &[Vec<u8>]) -> Vec<u8> {
    let mut data = pool[rng.below(pool.len())].clone();
    mutate(rng, &mut data, pool);
    data
}

/// Fuzzes `target` for `iterations` inputs from `seed`. Panics are caught
/// (and silenced) and recorded as findings with the input; so are hangs
/// and other violations. `progress` is called every 2^16 inputs.
pub fn fuzz(target: &str, iterations: u64, seed: u64, scratch: &Path, mut progress: impl FnMut(&Stats)) -> Stats {
    let mut pool = corpus(target);
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let seeds = pool.len();
    let mut rng = Rng::new(seed ^ fnv(target.as_bytes()));
    let mut stats = Stats::default();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    // A watchdog: an input still running after HANG_MS is reported with
    // the input and ends the process (a hang cannot be caught otherwise).
    let current: std::sync::Arc<std::sync::Mutex<Option<(Instant, u64, Vec<u8>)>>> = Default::default();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (current, stop, target) = (current.clone(), stop.clone(), target.to_string());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let cur = current.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((t, i, input)) = cur.as_ref() {
                    if t.elapsed().as_millis() > HANG_MS {
                        eprintln!(
                            "HANG: {target}: iteration {i} has run for {} ms; input: {:?}",
                            t.elapsed().as_millis(),
                            String::from_utf8_lossy(input)
                        );
                        std::process::exit(3);
                    }
                }
            }
        })
    };
    for i in 0..iterations {
        // The seeds themselves first, then mutants.
        let input = if (i as usize) < seeds { pool[i as usize].clone() } else { next_input(&mut rng, &pool) };
        let t = Instant::now();
        *current.lock().unwrap_or_else(|e| e.into_inner()) = Some((t, i, input.clone()));
        let r = catch_unwind(AssertUnwindSafe(|| exec(target, &input, scratch)));
        *current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let ms = t.elapsed().as_millis();
        stats.execs += 1;
        stats.slowest_ms = stats.slowest_ms.max(ms);
        let finding = |what: String| Finding { target: target.to_string(), iteration: i, input: input.clone(), what };
        match r {
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                stats.findings.push(finding(format!("panic: {msg}")));
            }
            Ok(Err(e)) => stats.findings.push(finding(e)),
            Ok(Ok(o)) => {
                match o {
                    Outcome::Valid => stats.valid += 1,
                    Outcome::Rejected => stats.rejected += 1,
                    Outcome::OverBudget => stats.over_budget += 1,
                }
                // Inputs that got through keep their mutations for later
                // ones (a bounded pool).
                if o == Outcome::Valid && pool.len() < 4096 && rng.below(8) == 0 {
                    pool.push(input.clone());
                }
            }
        }
        if ms > HANG_MS {
            stats.findings.push(finding(format!("hang: {ms} ms")));
        }
        if i % (1 << 16) == (1 << 16) - 1 {
            progress(&stats);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    remove_scratch(scratch);
    std::panic::set_hook(hook);
    stats
}

/// The input a session of (`target`, `seed`) tries at iteration `k`,
/// replaying the pool's growth (for reproducing a finding).
pub fn input_at(target: &str, seed: u64, k: u64, scratch: &Path) -> Vec<u8> {
    let mut pool = corpus(target);
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let seeds = pool.len();
    let mut rng = Rng::new(seed ^ fnv(target.as_bytes()));
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut out = Vec::new();
    for i in 0..=k {
        let input = if (i as usize) < seeds { pool[i as usize].clone() } else { next_input(&mut rng, &pool) };
        if i == k {
            out = input;
            break;
        }
        let r = catch_unwind(AssertUnwindSafe(|| exec(target, &input, scratch)));
        if let Ok(Ok(Outcome::Valid)) = r {
            if pool.len() < 4096 && rng.below(8) == 0 {
                pool.push(input);
            }
        }
    }
    std::panic::set_hook(hook);
    out
}

/// A directory for the importers' input files: in memory (`/dev/shm`)
/// where there is one (writing a file there is about 8 times faster than
/// on this machine's disk), else the system's temporary directory.
pub fn scratch_dir(what: &str) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
    // One directory per process and thread: tests run in parallel, and
    // two threads writing one input file would read each other's input.
    let d = base.join(format!("mglru-fuzz-{what}-{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::create_dir_all(&d).expect("scratch directory");
    d
}

/// Removes an input file written by the importer targets, and its
/// directory if that is then empty (tests leave nothing in /dev/shm).
pub fn remove_scratch(file: &Path) {
    let _ = std::fs::remove_file(file);
    if let Some(d) = file.parent() {
        let _ = std::fs::remove_dir(d);
    }
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| (h ^ c as u64).wrapping_mul(0x0100_0000_01b3))
}

/// A global allocator that counts live bytes and their peak: the harness
/// binaries install it to check the "no input takes more than 4 GiB"
/// rule. Allocations that would take the live total past [`PeakAlloc::CAP`]
/// fail (the process aborts, and the run reports the last iteration).
pub struct PeakAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl PeakAlloc {
    /// The issue's bound: 4 GiB.
    pub const CAP: usize = 4 << 30;

    /// Live bytes now.
    pub fn live() -> usize {
        LIVE.load(Ordering::Relaxed)
    }

    /// The highest live total since the last [`reset_peak`](Self::reset_peak).
    pub fn peak() -> usize {
        PEAK.load(Ordering::Relaxed)
    }

    pub fn reset_peak() {
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator with the same
// layout; the counters do not affect the memory handed out.
unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        if now > Self::CAP {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc(l)
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        if now > Self::CAP {
            LIVE.fetch_sub(l.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        PEAK.fetch_max(now, Ordering::Relaxed);
        System.alloc_zeroed(l)
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + (new - l.size());
            if now > Self::CAP {
                LIVE.fetch_sub(new - l.size(), Ordering::Relaxed);
                return std::ptr::null_mut();
            }
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        System.realloc(p, l, new)
    }
}
