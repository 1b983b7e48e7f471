// SPDX-License-Identifier: GPL-2.0-only
//! The fio generator: a fio command line or job file turned into the page
//! accesses fio's jobs would make. See docs/WORKLOADS.md, section "fio".

use std::collections::{HashSet, VecDeque};

use crate::rng::{derive, Pareto, Perm, Rng, Zipf, ZipfTable};
use crate::stream::{lines, statements, Emit, Out, Source};
use crate::util::{
    check_tasks, fmt_secs, fmt_size, page_span, parse_bool, parse_fio_size, parse_fio_time, sanitize,
    shell_split, Machine, Params, NS_PER_SEC, PAGE,
};
use crate::{Lines, Statements};
use mglru_trace::AccessKind;

/// One job section with its options (global options already merged in).
#[derive(Clone, Debug)]
pub(crate) struct Section {
    pub name: String,
    /// `(key, value, line)`: the line of the job file that set the option
    /// (0 on the command line).
    pub opts: Vec<(String, String, usize)>,
    /// For a section of a job file: the file's path and the line of the
    /// section header. None on the command line.
    pub origin: Option<(String, usize)>,
}

impl Section {
    fn set(&mut self, k: &str, v: &str, line: usize) {
        if let Some(e) = self.opts.iter_mut().find(|(key, _, _)| key == k) {
            e.1 = v.to_string();
            e.2 = line;
        } else {
            self.opts.push((k.to_string(), v.to_string(), line));
        }
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.opts.iter().find(|(key, _, _)| key == k).map(|(_, v, _)| v.as_str())
    }

    /// An error about this job. On the command line: ``fio job `NAME`: MSG``.
    /// From a job file: ``FILE:LINE: job `NAME`: MSG``, LINE being the line
    /// that set the first of `keys` the section has (a `[global]` line for
    /// an inherited option), else the line of the section header.
    fn err(&self, keys: &[&str], msg: impl std::fmt::Display) -> String {
        match &self.origin {
            None => format!("fio job `{}`: {}", self.name, msg),
            Some((path, header)) => {
                let line = keys
                    .iter()
                    .find_map(|k| self.opts.iter().find(|(key, _, _)| key == k).map(|(_, _, l)| *l))
                    .unwrap_or(*header);
                format!("{}:{}: job `{}`: {}", path, line, self.name, msg)
            }
        }
    }
}

/// Options that change nothing in the page-access stream: accepted and
/// listed in the `# ignored:` comment.
const IGNORED: &[&str] = &[
    "iodepth", "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low", "group_reporting",
    "thread", "randrepeat", "randseed", "random_generator", "refill_buffers", "scramble_buffers",
    "zero_buffers", "buffer_compress_percentage", "buffer_compress_chunk", "buffer_pattern",
    "dedupe_percentage", "output", "output_format", "eta", "eta_newline", "eta_interval",
    "status_interval", "minimal", "terse_version", "append_terse", "lat_percentiles",
    "clat_percentiles", "slat_percentiles", "percentile_list", "write_bw_log", "write_lat_log",
    "write_iops_log", "write_hist_log", "log_avg_msec", "log_hist_msec", "per_job_logs",
    "log_offset", "log_compression", "cpus_allowed", "cpus_allowed_policy", "cpumask",
    "numa_cpu_nodes", "numa_mem_policy", "nice", "prio", "prioclass", "ioscheduler",
    "gtod_reduce", "gtod_cpu", "disable_lat", "disable_clat", "disable_slat",
    "disable_bw_measurement", "clocksource", "registerfiles", "fixedbufs", "hipri",
    "sqthread_poll", "sqthread_poll_cpu", "nonvectored", "force_async", "create_serialize",
    "create_fsync", "create_on_open", "allow_file_create", "allow_mounted_write", "unlink",
    "unlink_each_loop", "fallocate", "overwrite", "end_fsync", "fsync_on_close", "fsync",
    "fdatasync", "sync", "write_barrier", "stonewall", "wait_for_previous", "new_group",
    "exitall", "exitall_on_error", "startdelay", "thinktime", "thinktime_blocks",
    "thinktime_spin", "description", "exec_prerun", "exec_postrun", "lockmem", "mem", "iomem",
    "iomem_align", "mem_align", "max_latency", "latency_target", "latency_window",
    "latency_percentile", "continue_on_error", "ignore_error", "error_dump", "cgroup",
    "cgroup_weight", "cgroup_nodelete", "uid", "gid", "write_iolog", "bwavgtime",
    "iopsavgtime", "max_jobs", "alloc_size", "debug", "showcmd", "warnings_fatal", "aux_path",
    "cmdprio_percentage", "cmdprio_class", "cmdprio", "significant_figures", "unit_base",
    "steadystate", "ss", "ss_dur", "ss_ramp", "serialize_overlap", "io_submit_mode",
    "kb_base", "readonly", "bandwidth_log", "clat_percentile", "direct_io_alignment",
];

/// Options fio has but the generator does not model: an error.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("verify", "verification reads change the stream"),
    ("do_verify", "verification reads change the stream"),
    ("bsrange", "give one --bs"),
    ("blocksize_range", "give one --bs"),
    ("bssplit", "give one --bs"),
    ("blockalign", "offsets are aligned to --bs"),
    ("ba", "offsets are aligned to --bs"),
    ("offset", "jobs start at offset 0"),
    ("offset_increment", "jobs start at offset 0"),
    ("offset_align", "jobs start at offset 0"),
    ("zonemode", "zoned I/O is not modelled"),
    ("zonesize", "zoned I/O is not modelled"),
    ("zonerange", "zoned I/O is not modelled"),
    ("zoneskip", "zoned I/O is not modelled"),
    ("percentage_random", "use a purely sequential or random --rw"),
    ("rw_sequencer", "use a plain --rw"),
    ("read_iolog", "import the log with the fio-iolog importer instead"),
    ("pre_read", "pre-reading is not modelled"),
    ("uncached", "RWF_UNCACHED I/O is not modelled"),
    ("fill_device", "give an explicit --size"),
    ("fill_fs", "give an explicit --size"),
    ("file_append", "appending is not modelled"),
    ("size_percentage", "give an absolute --size"),
    ("section", "put the wanted jobs in the file"),
    ("client", "run the job locally"),
    ("server", "run the job locally"),
];

/// Options the generator interprets.
const HANDLED: &[&str] = &[
    "name", "numjobs", "directory", "filename", "filename_format", "nrfiles", "size", "filesize",
    "io_size", "bs", "rw", "rwmixread", "rwmixwrite", "ioengine", "direct", "buffered",
    "random_distribution", "norandommap", "fadvise_hint", "invalidate", "time_based", "runtime",
    "ramp_time", "number_ios", "loops", "rate_iops", "rate", "file_service_type",
];

/// Boolean options that may be given without a value.
const FLAGS: &[&str] = &[
    "norandommap", "time_based", "group_reporting", "thread", "randrepeat", "refill_buffers",
    "scramble_buffers", "zero_buffers", "create_serialize", "unlink", "fsync_on_close",
    "end_fsync", "minimal", "per_job_logs", "disable_lat", "disable_clat", "disable_slat",
    "disable_bw_measurement", "gtod_reduce", "stonewall", "wait_for_previous", "new_group",
    "exitall", "exitall_on_error", "direct", "buffered", "invalidate", "overwrite", "sync",
    "fixedbufs", "registerfiles", "hipri", "sqthread_poll", "nonvectored", "allow_file_create",
    "eta_newline", "showcmd", "warnings_fatal", "readonly", "create_on_open", "create_fsync",
    "lat_percentiles", "clat_percentiles", "slat_percentiles", "write_barrier", "fadvise_hint",
];

fn canon(key: &str) -> String {
    let k = key.replace('-', "_");
    match k.as_str() {
        "blocksize" => "bs".to_string(),
        "readwrite" => "rw".to_string(),
        "io_limit" => "io_size".to_string(),
        "timeout" => "runtime".to_string(),
        "jobname" => "name".to_string(),
        _ => k,
    }
}

fn classify(key: &str) -> Result<bool, String> {
    // Ok(true): handled, Ok(false): ignored.
    if HANDLED.contains(&key) {
        return Ok(true);
    }
    if key.starts_with("trim_") {
        return Err(format!("fio option `{}` is not supported: trims are not modelled", key));
    }
    if IGNORED.contains(&key) {
        return Ok(false);
    }
    if let Some((_, why)) = UNSUPPORTED.iter().find(|(k, _)| *k == key) {
        return Err(format!("fio option `{}` is not supported by the generator: {}", key, why));
    }
    if key.starts_with("verify") {
        return Err(format!("fio option `{}` is not supported: verification reads change the stream", key));
    }
    Err(format!(
        "unknown fio option `{}`; if it does not change which file pages are accessed, report it \
         so it can be added to the ignored list, otherwise remove it",
        key
    ))
}

/// Parses a fio command line (the words after `fio`). Options before the
/// first `--name` are global; each `--name` starts a new job.
pub(crate) fn parse_cli(args: &str) -> Result<Vec<Section>, String> {
    let words = shell_split(args).map_err(|e| format!("fio: {}", e))?;
    let mut words: VecDeque<String> = words.into();
    if words.front().map(|w| w == "fio" || w.ends_with("/fio")).unwrap_or(false) {
        words.pop_front();
    }
    let mut global = Section { name: "global".to_string(), opts: Vec::new(), origin: None };
    let mut jobs: Vec<Section> = Vec::new();
    while let Some(w) = words.pop_front() {
        if w == "&" || w == "\\" {
            continue;
        }
        let stripped = w.trim_start_matches('-');
        if !w.starts_with('-') || stripped.is_empty() {
            return Err(format!(
                "fio: unexpected argument `{}`: the generator takes options only; give a job file as fio-job:PATH",
                w
            ));
        }
        let (key, value) = match stripped.split_once('=') {
            Some((k, v)) => (canon(k), v.to_string()),
            None => {
                let k = canon(stripped);
                let takes_value = !FLAGS.contains(&k.as_str());
                let next_is_value = words.front().map(|n| !n.starts_with('-') && n != "&").unwrap_or(false);
                if takes_value && next_is_value {
                    (k, words.pop_front().unwrap_or_default())
                } else if takes_value && HANDLED.contains(&k.as_str()) {
                    return Err(format!("fio: option --{} needs a value (--{}=VALUE)", k, k));
                } else {
                    (k, "1".to_string())
                }
            }
        };
        if key == "name" {
            let mut s = global.clone();
            s.name = value.clone();
            s.set("name", &value, 0);
            jobs.push(s);
        } else if let Some(j) = jobs.last_mut() {
            j.set(&key, &value, 0);
        } else {
            global.set(&key, &value, 0);
        }
    }
    if jobs.is_empty() {
        return Err("fio: no job: give at least one --name=JOB".to_string());
    }
    Ok(jobs)
}

/// Parses a fio job file: `[global]` and `[job]` sections of `key=value`
/// (or bare boolean keys); `#` and `;` start comment lines. Jobs inherit
/// the global options given before them.
pub(crate) fn parse_jobfile(text: &str, path: &str) -> Result<Vec<Section>, String> {
    let mut global = Section { name: "global".to_string(), opts: Vec::new(), origin: None };
    let mut jobs: Vec<Section> = Vec::new();
    let mut in_global = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let lineno = i + 1;
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| {
                format!("{}:{}: expected a section header `[NAME]`, found `{}`", path, lineno, line)
            })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(format!("{}:{}: empty section name `[]`", path, lineno));
            }
            if name == "global" {
                in_global = true;
            } else {
                in_global = false;
                let mut s = global.clone();
                s.name = name.to_string();
                s.set("name", name, lineno);
                s.origin = Some((path.to_string(), lineno));
                jobs.push(s);
            }
            continue;
        }
        if line.starts_with("include ") {
            return Err(format!("{}:{}: `include` is not supported: paste the included options into the file", path, lineno));
        }
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (canon(k.trim()), v.trim().to_string()),
            None => (canon(line), "1".to_string()),
        };
        if k.is_empty() || k.contains(char::is_whitespace) {
            return Err(format!("{}:{}: expected `key=value`, found `{}`", path, lineno, line));
        }
        let target = if in_global || jobs.is_empty() {
            if !in_global {
                return Err(format!(
                    "{}:{}: option `{}` outside any section: put it under [global] or a [job] section",
                    path, lineno, k
                ));
            }
            &mut global
        } else {
            jobs.last_mut().expect("a job")
        };
        target.set(&k, &v, lineno);
    }
    if jobs.is_empty() {
        return Err(format!("{}: no job section: add a `[NAME]` section after [global]", path));
    }
    Ok(jobs)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dist {
    Uniform,
    Zipf(f64),
    Pareto(f64),
    Normal(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum FileService {
    RoundRobin,
    Sequential,
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fadvise {
    None,
    Auto,
    Sequential,
    Random,
}

#[derive(Clone, Debug)]
enum Sampler {
    Zipf(Zipf),
    Pareto(Pareto),
    Normal { center: u64, sigma: f64 },
}

#[derive(Clone, Debug)]
struct JobFile {
    name: String,
    region: Option<String>,
    bytes: u64,
    /// Blocks of the smallest block size in `bytes`.
    nblocks: u64,
    seq: [u64; 2],
    perm: Option<Perm>,
    perm_idx: u64,
    pass: u64,
    sampler: Option<Sampler>,
    /// The names id of this file's accesses in the statement stream the
    /// job emits into ([`Emit::access_cached`]); set at the first access.
    names_id: Option<u32>,
    scatter: Option<Perm>,
    center_off: Option<u64>,
    loop_bytes: u64,
}

/// One fio job (one clone of a job section) and its position in its
/// access stream.
#[derive(Clone, Debug)]
pub(crate) struct JobRun {
    pub task: String,
    files: Vec<JobFile>,
    /// None: sequential/random by `rw`; Some(p): mixed with p% reads.
    mix_read: Option<u64>,
    read_only: bool,
    random: bool,
    randommap: bool,
    bs: [u64; 2],
    min_bs: u64,
    invalidate: bool,
    time_based: bool,
    io_size: u64,
    loops: u64,
    cap: Option<u64>,
    fsvc: FileService,
    fadvise: Fadvise,
    rng: Rng,
    seed: u64,
    cur_file: usize,
    issued: u64,
    loop_bytes: u64,
    loop_no: u64,
    pub finished: bool,
    /// The zipf sampler's table of blocks ([`ZipfTable`]) of a job with
    /// one file, made at its first batch of I/Os (`sampled_ios`).
    ztable: Option<Box<ZipfTable>>,
}

const READ: usize = 0;
const WRITE: usize = 1;

/// The file after `cur` of `n` in turn: `(cur + 1) % n` for `cur < n`,
/// without a division.
#[inline(always)]
fn next_file(cur: usize, n: usize) -> usize {
    debug_assert!(cur < n);
    if cur + 1 >= n {
        0
    } else {
        cur + 1
    }
}

impl JobRun {
    /// The `mmap` and `advise` statements a job makes when it starts.
    pub fn start_lines(&self, out: &mut VecDeque<String>) {
        for f in &self.files {
            if let Some(r) = &f.region {
                out.push_back(format!("mmap {} {} file={}", self.task, r, f.name));
            }
        }
        let advice = match self.fadvise {
            Fadvise::None => None,
            Fadvise::Auto => Some(if self.random { "random" } else { "sequential" }),
            Fadvise::Sequential => Some("sequential"),
            Fadvise::Random => Some("random"),
        };
        if let Some(a) = advice {
            // posix_fadvise() on the file when fio opens it; the mmap
            // engine also madvise()s its mapping.
            for f in &self.files {
                out.push_back(format!("advise {} {} {}", self.task, f.name, a));
                if let Some(r) = &f.region {
                    out.push_back(format!("advise {} {} {}", self.task, r, a));
                }
            }
        }
    }

    fn invalidate_file(&self, idx: usize, out: &mut impl Emit) {
        if self.invalidate {
            let f = &self.files[idx];
            let target = f.region.as_deref().unwrap_or(&f.name);
            out.line(format!("advise {} {} dontneed", self.task, target));
        }
    }

    fn new_pass(&mut self, idx: usize) {
        let seed = self.seed;
        let f = &mut self.files[idx];
        f.pass += 1;
        f.perm_idx = 0;
        if self.randommap && self.random {
            f.perm = Some(Perm::new(f.nblocks, derive(seed, (idx as u64) << 32 | f.pass)));
        }
    }

    /// Emits the next I/O (and any invalidation or `exit`) into `out`.
    pub fn next_io(&mut self, out: &mut impl Emit) {
        if self.finished {
            return;
        }
        let dir = match self.mix_read {
            Some(p) => {
                if self.rng.below(100) < p {
                    READ
                } else {
                    WRITE
                }
            }
            None => {
                if self.read_only {
                    READ
                } else {
                    WRITE
                }
            }
        };
        let nfiles = self.files.len();
        let fi = match self.fsvc {
            FileService::Random => self.rng.below(nfiles as u64) as usize,
            _ => self.cur_file,
        };
        let bs = self.bs[dir];
        let (off, len) = {
            let min_bs = self.min_bs;
            if !self.random {
                if self.files[fi].seq[dir] + bs > self.files[fi].bytes {
                    // End of the file within a loop: rewind and invalidate
                    // like fio's time_based wrap-around.
                    self.files[fi].seq[dir] = 0;
                    self.invalidate_file(fi, out);
                }
                let f = &mut self.files[fi];
                let off = f.seq[dir];
                f.seq[dir] += bs;
                (off, bs)
            } else if let (Some(s), rng) = (&self.files[fi].sampler, &mut self.rng) {
                let f = &self.files[fi];
                let off = Self::sampled_block(f, s, rng) * min_bs;
                (off, bs.min(f.bytes - off))
            } else if self.randommap {
                if self.files[fi].perm_idx >= self.files[fi].nblocks {
                    self.new_pass(fi);
                    self.invalidate_file(fi, out);
                }
                let f = &mut self.files[fi];
                let block = f.perm.as_ref().map(|p| p.apply(f.perm_idx)).unwrap_or(f.perm_idx);
                f.perm_idx += 1;
                let off = block * min_bs;
                (off, bs.min(f.bytes - off))
            } else {
                let f = &self.files[fi];
                let nb = (f.bytes / bs).max(1);
                let off = self.rng.below(nb) * bs;
                (off, bs.min(f.bytes - off))
            }
        };
        self.issue(fi, dir, off, len, out);
    }

    /// The block of a random I/O of file `f` whose offsets are drawn from
    /// `s` (one draw of `rng`).
    #[inline(always)]
    fn sampled_block(f: &JobFile, s: &Sampler, rng: &mut Rng) -> u64 {
        let rank = match s {
            Sampler::Zipf(z) => z.sample(rng),
            _ => Self::sampled_rank(s, f.nblocks, rng),
        };
        Self::place(f, rank)
    }

    /// A rank drawn from `s` over `n` blocks.
    #[inline(always)]
    fn sampled_rank(s: &Sampler, n: u64, rng: &mut Rng) -> u64 {
        match s {
            Sampler::Zipf(z) => z.sample(rng),
            Sampler::Pareto(p) => p.sample(rng),
            Sampler::Normal { center, sigma } => {
                let v = *center as f64 + rng.normal() * sigma;
                let v = v.round();
                let m = n as f64;
                (((v % m) + m) % m) as u64
            }
        }
    }

    /// The block of file `f` a drawn `rank` stands for.
    #[inline(always)]
    fn place(f: &JobFile, rank: u64) -> u64 {
        let n = f.nblocks;
        match (f.center_off, &f.scatter) {
            (Some(c), _) => (rank + c) % n,
            (None, Some(p)) => p.apply(rank),
            (None, None) => rank,
        }
    }

    /// Up to `max` I/Os, exactly as that many calls of
    /// [`next_io`](Self::next_io) would emit them, for a job of one file
    /// whose I/Os all go one way at offsets drawn from a distribution
    /// (`random_distribution=zipf|pareto|normal`); the choices `next_io`
    /// makes per I/O (direction, file, kind of offset) are made once.
    /// Returns how many I/Os it emitted: 0 for another kind of job (then
    /// use `next_io`) or a finished one.
    pub fn sampled_ios(&mut self, out: &mut impl Emit, max: usize) -> usize {
        if self.finished || !self.random || self.mix_read.is_some() || self.files.len() != 1 {
            return 0;
        }
        // With one file, every file service type picks file 0 without a
        // draw (`Rng::below(1)` draws nothing).
        let dir = if self.read_only { READ } else { WRITE };
        let (bs, min_bs) = (self.bs[dir], self.min_bs);
        let mut k = 0;
        while k < max && !self.finished {
            let f = &self.files[0];
            let Some(s) = &f.sampler else {
                return k;
            };
            // One-page I/Os: every block is a page, and a drawn block
            // (< nblocks) lies whole inside the file, so each I/O is the
            // access of page `block`, count 1, of `bs` bytes. The I/Os
            // before the next one that ends the job or its loop change
            // nothing but the counts below (one file: the file turn stays
            // at file 0), so they are drawn and emitted in a loop of their
            // own; the one that ends goes through `issue`.
            if bs == PAGE && min_bs == PAGE && f.bytes >= f.nblocks * PAGE {
                // `issue` ends the job once `issued` reaches the cap, else
                // the loop once `loop_bytes` reaches io_size.
                let cap_left = self.cap.map_or(u64::MAX, |c| c.saturating_sub(self.issued + 1));
                let loop_left =
                    if self.time_based { u64::MAX } else { self.io_size.saturating_sub(self.loop_bytes).saturating_sub(1) / bs };
                let n = ((max - k) as u64).min(cap_left).min(loop_left) as usize;
                if n > 0 {
                    let (kind, target) = match (&f.region, dir) {
                        (Some(r), READ) => (AccessKind::Load, r.as_str()),
                        (Some(r), _) => (AccessKind::Store, r.as_str()),
                        (None, READ) => (AccessKind::Read, f.name.as_str()),
                        (None, _) => (AccessKind::Write, f.name.as_str()),
                    };
                    let (rng, nblocks) = (&mut self.rng, f.nblocks);
                    let mut id = f.names_id;
                    if let Sampler::Zipf(z) = s {
                        // The zipf ranks through the job's table: the same
                        // blocks, mostly without `pow` or the scatter
                        // permutation (rng.rs). The file's mapping of ranks
                        // to blocks never changes.
                        let t = self.ztable.get_or_insert_with(|| Box::new(ZipfTable::new()));
                        out.pages_cached(&mut id, kind, &self.task, target, n, |pages| {
                            for p in pages {
                                *p = z.sample_mapped(t, rng, |rank| Self::place(f, rank));
                                debug_assert!(*p < nblocks);
                            }
                        });
                    } else {
                        out.pages_cached(&mut id, kind, &self.task, target, n, |pages| {
                            for p in pages {
                                *p = Self::place(f, Self::sampled_rank(s, nblocks, rng));
                                debug_assert!(*p < nblocks);
                            }
                        });
                    }
                    self.files[0].names_id = id;
                    self.issued += n as u64;
                    self.loop_bytes += n as u64 * bs;
                    self.files[0].loop_bytes += n as u64 * bs;
                    k += n;
                    continue;
                }
            }
            let off = Self::sampled_block(f, s, &mut self.rng) * min_bs;
            let len = bs.min(f.bytes - off);
            self.issue(0, dir, off, len, out);
            k += 1;
        }
        k
    }

    /// Emits the I/O of `len` bytes at `off` of file `fi` in direction
    /// `dir`, and moves the job on past it (file, loop, end; with any
    /// invalidation or `exit` that brings).
    #[inline(always)]
    fn issue(&mut self, fi: usize, dir: usize, off: u64, len: u64, out: &mut impl Emit) {
        let nfiles = self.files.len();
        let (page, count) = page_span(off, len);
        let f = &self.files[fi];
        let (verb, target) = match (&f.region, dir) {
            (Some(r), READ) => (AccessKind::Load, r.as_str()),
            (Some(r), _) => (AccessKind::Store, r.as_str()),
            (None, READ) => (AccessKind::Read, f.name.as_str()),
            (None, _) => (AccessKind::Write, f.name.as_str()),
        };
        let mut id = f.names_id;
        out.access_cached(&mut id, verb, &self.task, target, page, count);
        self.files[fi].names_id = id;
        self.issued += 1;
        self.loop_bytes += len;
        self.files[fi].loop_bytes += len;
        match self.fsvc {
            FileService::RoundRobin => self.cur_file = next_file(self.cur_file, nfiles),
            FileService::Sequential => {
                let share = (self.io_size / nfiles as u64).max(1);
                if self.files[fi].loop_bytes >= share {
                    self.cur_file = next_file(self.cur_file, nfiles);
                }
            }
            FileService::Random => {}
        }
        if self.cap.map(|c| self.issued >= c).unwrap_or(false) {
            self.finished = true;
        } else if !self.time_based && self.loop_bytes >= self.io_size {
            // (time_based jobs ignore the byte limit: fio keeps going and
            // only rewinds files, as above.)
            self.loop_no += 1;
            if self.loop_no >= self.loops {
                self.finished = true;
            } else {
                // A new loop: fio closes and reopens the files, which
                // invalidates their cache and resets the positions.
                self.loop_bytes = 0;
                self.cur_file = 0;
                for i in 0..nfiles {
                    self.files[i].seq = [0, 0];
                    self.files[i].loop_bytes = 0;
                    self.new_pass(i);
                    self.invalidate_file(i, out);
                }
            }
        }
        if self.finished {
            out.line(format!("exit {}", self.task));
        }
    }
}

/// Everything the generator derives from the fio options.
pub(crate) struct FioPlan {
    /// Trace files in order of definition, with their sizes.
    pub files: Vec<(String, u64)>,
    pub jobs: Vec<JobRun>,
    /// `key=value` of ignored options, in order of first appearance.
    pub ignored: Vec<String>,
    /// Comment lines describing the rate model.
    pub notes: Vec<String>,
}

fn opt_bool(s: &Section, key: &str, default: bool) -> Result<bool, String> {
    match s.get(key) {
        None => Ok(default),
        Some(v) => parse_bool(v).ok_or_else(|| {
            s.err(&[key], format_args!("--{}={} is not a boolean (use 1 or 0)", key, v))
        }),
    }
}

fn opt_u64(s: &Section, key: &str) -> Result<Option<u64>, String> {
    match s.get(key) {
        None => Ok(None),
        Some(v) => v.trim().parse::<u64>().map(Some).map_err(|_| {
            s.err(&[key], format_args!("--{}={} is not a non-negative integer", key, v))
        }),
    }
}

fn opt_size(s: &Section, key: &str) -> Result<Option<u64>, String> {
    match s.get(key) {
        None => Ok(None),
        Some(v) => parse_fio_size(v).map(Some).map_err(|e| s.err(&[key], format_args!("--{}: {}", key, e))),
    }
}

fn opt_time(s: &Section, key: &str) -> Result<Option<u64>, String> {
    match s.get(key) {
        None => Ok(None),
        Some(v) => parse_fio_time(v).map(Some).map_err(|e| s.err(&[key], format_args!("--{}: {}", key, e))),
    }
}

fn parse_dist(s: &Section) -> Result<(Dist, Option<f64>), String> {
    const RD: &[&str] = &["random_distribution"];
    let v = match s.get("random_distribution") {
        None => return Ok((Dist::Uniform, None)),
        Some(v) => v,
    };
    let mut parts = v.split(':');
    let kind = parts.next().unwrap_or("");
    let arg = parts.next();
    let center = parts.next();
    if parts.next().is_some() {
        return Err(s.err(RD, format_args!("--random_distribution={}: too many `:` fields", v)));
    }
    let num = |x: Option<&str>, default: f64| -> Result<f64, String> {
        match x {
            None => Ok(default),
            Some(t) => t.parse::<f64>().ok().filter(|f| f.is_finite()).ok_or_else(|| {
                s.err(RD, format_args!("--random_distribution={}: `{}` is not a number", v, t))
            }),
        }
    };
    let center = match center {
        None => None,
        Some(c) => {
            let c = num(Some(c), 0.0)?;
            if !(0.0..=1.0).contains(&c) {
                return Err(s.err(RD, format_args!("--random_distribution={}: the center must be in [0, 1]", v)));
            }
            Some(c)
        }
    };
    let d = match kind {
        "random" => {
            if arg.is_some() {
                return Err(s.err(RD, "--random_distribution=random takes no argument"));
            }
            Dist::Uniform
        }
        "zipf" => {
            let t = num(arg, 1.1)?;
            if t <= 0.0 || (t - 1.0).abs() < 1e-9 {
                return Err(s.err(RD, format_args!("--random_distribution={}: zipf theta must be > 0 and not 1", v)));
            }
            Dist::Zipf(t)
        }
        "pareto" => {
            let h = num(arg, 0.2)?;
            if h <= 0.0 || h >= 1.0 {
                return Err(s.err(RD, format_args!("--random_distribution={}: pareto h must be in (0, 1)", v)));
            }
            Dist::Pareto(h)
        }
        "normal" | "gauss" => {
            let p = num(arg, 0.0)?;
            if !(0.0..=100.0).contains(&p) {
                return Err(s.err(RD, format_args!("--random_distribution={}: the deviation is a percentage (0..100)", v)));
            }
            Dist::Normal(p)
        }
        "zoned" | "zoned_abs" => {
            return Err(s.err(RD, format_args!("--random_distribution={} is not supported; use random, zipf:θ, pareto:h or normal:pct", kind)))
        }
        _ => {
            return Err(s.err(RD, format_args!("unknown --random_distribution={}; use random, zipf:θ, pareto:h or normal:pct", v)))
        }
    };
    Ok((d, center))
}

struct JobCfg {
    name: String,
    numjobs: u64,
    dirs: Vec<String>,
    filename: Option<String>,
    filename_format: String,
    nrfiles: u64,
    file_bytes: u64,
    io_size: Option<u64>,
    bs: [u64; 2],
    mmap: bool,
    read_only: bool,
    random: bool,
    mix_read: Option<u64>,
    dist: Dist,
    center: Option<f64>,
    randommap: bool,
    fadvise: Fadvise,
    invalidate: bool,
    time_based: bool,
    runtime: Option<u64>,
    ramp: u64,
    number_ios: Option<u64>,
    loops: u64,
    fio_rate: Option<u64>,
    fsvc: FileService,
}

fn job_cfg(s: &Section, ignored: &mut Vec<String>) -> Result<JobCfg, String> {
    for (k, v, _) in &s.opts {
        // An unsupported feature explicitly turned off (`--pre_read=0`,
        // `--offset=0`, `--verify=none`) changes nothing.
        let off = matches!(v.as_str(), "0" | "none" | "false" | "off");
        let class = if off && UNSUPPORTED.iter().any(|(u, _)| u == k) { Ok(false) } else { classify(k) };
        match class {
            Ok(true) => {}
            Ok(false) => {
                if k == "kb_base" && v != "1024" {
                    return Err(s.err(&["kb_base"], format_args!("--kb_base={} is not supported; sizes are read with kb_base=1024", v)));
                }
                let item = if v == "1" && FLAGS.contains(&k.as_str()) { k.clone() } else { format!("{}={}", k, v) };
                if !ignored.contains(&item) {
                    ignored.push(item);
                }
            }
            Err(e) => return Err(s.err(&[k.as_str()], e)),
        }
    }
    let name = s.name.clone();
    let direct = opt_bool(s, "direct", false)?;
    if direct || !opt_bool(s, "buffered", true)? {
        return Err(s.err(
            if direct { &["direct"] } else { &["buffered"] },
            "O_DIRECT (--direct=1 / --buffered=0) bypasses the page cache; nothing to simulate: use --buffered=1",
        ));
    }
    let numjobs = opt_u64(s, "numjobs")?.unwrap_or(1);
    if numjobs == 0 {
        return Err(s.err(&["numjobs"], "--numjobs must be at least 1"));
    }
    let engine = s.get("ioengine").unwrap_or("psync");
    let mmap = match engine {
        "mmap" => true,
        "psync" | "sync" | "pvsync" | "pvsync2" | "vsync" | "libaio" | "io_uring" | "posixaio" => false,
        other => {
            return Err(s.err(
                &["ioengine"],
                format_args!(
                    "--ioengine={} is not modelled; use psync, sync, pvsync, pvsync2, vsync, libaio, io_uring, posixaio (buffered read/write) or mmap",
                    other
                ),
            ))
        }
    };
    let rw = s.get("rw").unwrap_or("read");
    if rw.contains(':') {
        return Err(s.err(&["rw"], format_args!("--rw={}: the `:N` offset modifier is not supported", rw)));
    }
    let (read_only, random, mixed) = match rw {
        "read" => (true, false, false),
        "write" => (false, false, false),
        "randread" => (true, true, false),
        "randwrite" => (false, true, false),
        "rw" | "readwrite" => (true, false, true),
        "randrw" => (true, true, true),
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => {
            return Err(s.err(&["rw"], format_args!("--rw={}: trims are not modelled", rw)))
        }
        _ => {
            return Err(s.err(
                &["rw"],
                format_args!("unknown --rw={}; use read, write, randread, randwrite, rw/readwrite or randrw", rw),
            ))
        }
    };
    let mut mix = 50u64;
    // A percentage: fio refuses more than 100, and so does the generator
    // (never capped silently).
    if let Some(w) = opt_u64(s, "rwmixwrite")? {
        if w > 100 {
            return Err(s.err(&["rwmixwrite"], format_args!("--rwmixwrite={}: a percentage, 0 to 100", w)));
        }
        mix = 100 - w;
    }
    if let Some(r) = opt_u64(s, "rwmixread")? {
        if r > 100 {
            return Err(s.err(&["rwmixread"], format_args!("--rwmixread={}: a percentage, 0 to 100", r)));
        }
        mix = r;
    }
    let bs = match s.get("bs") {
        None => [4096, 4096],
        Some(v) => {
            let mut it = v.split(',');
            let r = it.next().unwrap_or("");
            let w = it.next().filter(|x| !x.is_empty()).unwrap_or(r);
            if it.next().is_some() {
                return Err(s.err(&["bs"], format_args!("--bs={}: give bs or bs=READ,WRITE (trim sizes are not modelled)", v)));
            }
            let rb = parse_fio_size(r).map_err(|e| s.err(&["bs"], format_args!("--bs: {}", e)))?;
            let wb = parse_fio_size(w).map_err(|e| s.err(&["bs"], format_args!("--bs: {}", e)))?;
            if rb == 0 || wb == 0 {
                return Err(s.err(&["bs"], "--bs must be greater than 0"));
            }
            [rb, wb]
        }
    };
    let filename = s.get("filename").map(|x| x.to_string());
    let mut nrfiles = opt_u64(s, "nrfiles")?.unwrap_or(1).max(1);
    if let Some(f) = &filename {
        nrfiles = f.split(':').filter(|x| !x.is_empty()).count() as u64;
        if nrfiles == 0 {
            return Err(s.err(&["filename"], format_args!("--filename={} names no file: give a file name (several are separated by `:`)", f)));
        }
    }
    if nrfiles > MAX_FILES {
        return Err(s.err(&["nrfiles"], format_args!("--nrfiles={} is more files than the generator makes ({})", nrfiles, MAX_FILES)));
    }
    let size = opt_size(s, "size")?;
    let filesize = opt_size(s, "filesize")?;
    let file_bytes = match (filesize, size) {
        (Some(f), _) => f,
        (None, Some(sz)) => sz / nrfiles,
        (None, None) => {
            return Err(s.err(&[], "--size is required (the generator cannot look at existing files)"))
        }
    };
    if file_bytes == 0 {
        return Err(s.err(&["filesize", "size"], "the file size is 0: raise --size"));
    }
    crate::util::check_file_size(if filesize.is_some() { "--filesize" } else { "--size" }, file_bytes)
        .map_err(|e| s.err(&["filesize", "size"], e))?;
    let (dist, center) = parse_dist(s)?;
    let fadvise = match s.get("fadvise_hint") {
        None => Fadvise::Auto,
        Some(v) => match v {
            "sequential" => Fadvise::Sequential,
            "random" => Fadvise::Random,
            "noreuse" => Fadvise::None,
            other => match parse_bool(other) {
                Some(true) => Fadvise::Auto,
                Some(false) => Fadvise::None,
                None => {
                    return Err(s.err(
                        &["fadvise_hint"],
                        format_args!("--fadvise_hint={}: use 0, 1, sequential, random or noreuse", other),
                    ))
                }
            },
        },
    };
    let fsvc = match s.get("file_service_type") {
        None => FileService::RoundRobin,
        Some(v) => match v.split(':').next().unwrap_or("") {
            "roundrobin" => FileService::RoundRobin,
            "sequential" => FileService::Sequential,
            "random" => FileService::Random,
            other => {
                return Err(s.err(
                    &["file_service_type"],
                    format_args!("--file_service_type={} is not supported; use roundrobin, sequential or random", other),
                ))
            }
        },
    };
    let rate_iops = match s.get("rate_iops") {
        None => None,
        Some(v) => {
            let mut best = 0u64;
            for part in v.split(',').filter(|x| !x.is_empty()) {
                let n = part.trim().parse::<u64>().map_err(|_| {
                    s.err(&["rate_iops"], format_args!("--rate_iops={}: expected integers", v))
                })?;
                best = best.max(n);
            }
            Some(best)
        }
    };
    let rate_bw = match s.get("rate") {
        None => None,
        Some(v) => {
            let first = v.split(',').next().unwrap_or("");
            let b = parse_fio_size(first).map_err(|e| s.err(&["rate"], format_args!("--rate: {}", e)))?;
            Some((b / bs[0].min(bs[1])).max(1))
        }
    };
    let dirs: Vec<String> = match s.get("directory") {
        None => Vec::new(),
        Some(d) => d.split(':').filter(|x| !x.is_empty()).map(|x| x.to_string()).collect(),
    };
    Ok(JobCfg {
        name,
        numjobs,
        dirs,
        filename,
        filename_format: s.get("filename_format").unwrap_or("$jobname.$jobnum.$filenum").to_string(),
        nrfiles,
        file_bytes,
        io_size: opt_size(s, "io_size")?,
        bs,
        mmap,
        read_only,
        random,
        mix_read: if mixed { Some(mix) } else { None },
        dist,
        center,
        randommap: !opt_bool(s, "norandommap", false)?,
        fadvise,
        invalidate: opt_bool(s, "invalidate", true)?,
        time_based: opt_bool(s, "time_based", false)?,
        runtime: opt_time(s, "runtime")?,
        ramp: opt_time(s, "ramp_time")?.unwrap_or(0),
        number_ios: opt_u64(s, "number_ios")?,
        loops: opt_u64(s, "loops")?.unwrap_or(1).max(1),
        fio_rate: rate_iops.or(rate_bw),
        fsvc,
    })
}

fn join_dir(dir: Option<&str>, name: &str) -> String {
    match dir {
        Some(d) if !name.starts_with('/') => format!("{}/{}", d.trim_end_matches('/'), name),
        _ => name.to_string(),
    }
}

/// The most jobs (clones included) fio itself runs: its `REAL_MAX_JOBS`.
/// The generator keeps about 1.6 KB of state per job.
pub(crate) const MAX_JOBS: u64 = 4096;

/// The most files one fio generator makes (over all jobs and clones):
/// each costs the simulator a page-cache index and its name.
pub(crate) const MAX_FILES: u64 = 1 << 20;

/// The default rate model: I/Os per second per job.
pub(crate) const DEFAULT_RATE_IOPS: u64 = 20_000;

impl FioPlan {
    /// Builds the plan. `rate` overrides every job's rate (I/Os per second
    /// per job); otherwise fio's --rate_iops/--rate or the default is used.
    pub fn new(sections: &[Section], rate: Option<u64>, seed: u64) -> Result<FioPlan, String> {
        let mut ignored = Vec::new();
        let mut files: Vec<(String, u64)> = Vec::new();
        // Position of each file in `files` (many jobs: no linear search).
        let mut file_index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut jobs = Vec::new();
        let mut notes = Vec::new();
        let mut tasks: HashSet<String> = HashSet::new();
        // The task count first, before any job's state is built.
        let mut total_jobs = 0u64;
        // Pages of all the files so far (bounded by trace v1).
        let mut total_pages: u128 = 0;
        for s in sections {
            let n = opt_u64(s, "numjobs")?.unwrap_or(1);
            check_tasks(&format!("--numjobs={n}"), n).map_err(|e| s.err(&["numjobs"], e))?;
            total_jobs = total_jobs.saturating_add(n);
            check_tasks("--numjobs summed over the jobs so far", total_jobs).map_err(|e| s.err(&["numjobs"], e))?;
        }
        // Then fio's own limit, which is far lower.
        if let Some(last) = sections.last() {
            if total_jobs > MAX_JOBS {
                return Err(last.err(
                    &["numjobs"],
                    format_args!(
                        "--numjobs summed over the jobs is {}, more than fio runs ({}, its REAL_MAX_JOBS): use fewer",
                        total_jobs, MAX_JOBS
                    ),
                ));
            }
        }
        for (si, s) in sections.iter().enumerate() {
            let c = job_cfg(s, &mut ignored)?;
            let job_rate = rate.or(c.fio_rate).unwrap_or(DEFAULT_RATE_IOPS);
            if job_rate == 0 {
                return Err(s.err(&["rate_iops", "rate"], "the rate must be at least 1 I/O per second"));
            }
            let min_bs = c.bs[0].min(c.bs[1]);
            let max_bs = c.bs[0].max(c.bs[1]);
            if c.file_bytes < max_bs {
                return Err(s.err(
                    &["bs", "filesize", "size"],
                    format_args!("the file size {} is smaller than --bs={}: raise --size", c.file_bytes, max_bs),
                ));
            }
            if c.time_based && c.runtime.is_none() {
                return Err(s.err(&["time_based"], "--time_based needs --runtime"));
            }
            let total_ns = c.ramp.checked_add(c.runtime.unwrap_or(0)).ok_or_else(|| {
                s.err(&["ramp_time", "runtime"], "--ramp_time plus --runtime does not fit in 64 bits of nanoseconds")
            })?;
            let time_cap = c
                .runtime
                .map(|_| ((job_rate as u128 * total_ns as u128) / NS_PER_SEC as u128).min(u64::MAX as u128) as u64);
            let cap = match (time_cap, c.number_ios) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let io_size = c.io_size.unwrap_or(c.file_bytes * c.nrfiles).max(min_bs);
            if c.runtime.is_some() {
                notes.push(format!(
                    "# rate model: job `{}`: {} I/Os/s x (ramp_time {} + runtime {}) = {} I/Os per job{}",
                    c.name,
                    job_rate,
                    fmt_secs(c.ramp),
                    fmt_secs(c.runtime.unwrap_or(0)),
                    time_cap.unwrap_or(0),
                    if c.time_based { "" } else { " at most (not time_based: size-limited)" }
                ));
            }
            for clone in 0..c.numjobs {
                let mut jf = Vec::new();
                let names: Vec<String> = match &c.filename {
                    Some(f) => f
                        .split(':')
                        .filter(|x| !x.is_empty())
                        .map(|x| join_dir(c.dirs.first().map(|d| d.as_str()), x))
                        .collect(),
                    None => (0..c.nrfiles)
                        .map(|k| {
                            let n = c
                                .filename_format
                                .replace("$jobname", &c.name)
                                .replace("$jobnum", &clone.to_string())
                                .replace("$filenum", &k.to_string())
                                .replace("$clientuid", "0");
                            let dir = if c.dirs.is_empty() {
                                None
                            } else {
                                Some(c.dirs[(k as usize) % c.dirs.len()].as_str())
                            };
                            join_dir(dir, &n)
                        })
                        .collect(),
                };
                let job_seed = derive(seed, ((si as u64) << 32) | clone);
                for (k, raw) in names.iter().enumerate() {
                    let name = sanitize(raw, true);
                    match file_index.get(&name) {
                        Some(&i) => {
                            if c.file_bytes > files[i].1 {
                                total_pages += (crate::util::pages_for(c.file_bytes) - crate::util::pages_for(files[i].1)) as u128;
                                files[i].1 = c.file_bytes;
                            }
                        }
                        None => {
                            if files.len() as u64 >= MAX_FILES {
                                return Err(s.err(
                                    &["numjobs", "nrfiles", "filename"],
                                    format_args!("the jobs make more than {} files (--numjobs x --nrfiles): use fewer", MAX_FILES),
                                ));
                            }
                            file_index.insert(name.clone(), files.len());
                            files.push((name.clone(), c.file_bytes));
                            total_pages += crate::util::pages_for(c.file_bytes) as u128;
                        }
                    }
                    crate::util::check_total_files("--size x --nrfiles x --numjobs over the jobs", total_pages)
                        .map_err(|e| s.err(&["size", "filesize", "nrfiles", "numjobs"], e))?;
                    let nblocks = (c.file_bytes / min_bs).max(1);
                    let fseed = derive(job_seed, 1000 + k as u64);
                    let sampler = match c.dist {
                        Dist::Uniform => None,
                        Dist::Zipf(t) => Some(Sampler::Zipf(Zipf::new(nblocks, t))),
                        Dist::Pareto(h) => Some(Sampler::Pareto(Pareto::new(nblocks, h))),
                        Dist::Normal(p) => Some(Sampler::Normal {
                            center: nblocks / 2,
                            sigma: p / 100.0 * nblocks as f64,
                        }),
                    };
                    let scatter = if sampler.is_some() && c.center.is_none() {
                        Some(Perm::new(nblocks, derive(fseed, 7)))
                    } else {
                        None
                    };
                    let center_off = match (c.center, &sampler) {
                        (Some(x), Some(_)) => Some(((x * nblocks as f64) as u64).min(nblocks - 1)),
                        _ => None,
                    };
                    let perm = if c.random && c.randommap && sampler.is_none() {
                        Some(Perm::new(nblocks, derive(fseed, 1)))
                    } else {
                        None
                    };
                    jf.push(JobFile {
                        name,
                        region: if c.mmap { Some(format!("f{}", k)) } else { None },
                        bytes: c.file_bytes,
                        nblocks,
                        seq: [0, 0],
                        perm,
                        perm_idx: 0,
                        pass: 1,
                        sampler,
                        names_id: None,
                        scatter,
                        center_off,
                        loop_bytes: 0,
                    });
                }
                let mut task = sanitize(&format!("{}.{}", c.name, clone), false);
                if tasks.contains(&task) {
                    let mut i = 2;
                    while tasks.contains(&format!("{}-{}", task, i)) {
                        i += 1;
                    }
                    task = format!("{}-{}", task, i);
                }
                tasks.insert(task.clone());
                jobs.push(JobRun {
                    task,
                    files: jf,
                    mix_read: c.mix_read,
                    read_only: c.read_only,
                    random: c.random,
                    randommap: c.randommap,
                    bs: c.bs,
                    min_bs,
                    invalidate: c.invalidate,
                    time_based: c.time_based,
                    io_size,
                    loops: c.loops,
                    cap,
                    fsvc: c.fsvc,
                    fadvise: c.fadvise,
                    rng: Rng::new(job_seed),
                    seed: job_seed,
                    cur_file: 0,
                    issued: 0,
                    loop_bytes: 0,
                    loop_no: 0,
                    finished: false,
                    ztable: None,
                });
            }
        }
        Ok(FioPlan { files, jobs, ignored, notes })
    }

    /// `file` statements.
    pub fn file_lines(&self, out: &mut VecDeque<String>) {
        for (name, bytes) in &self.files {
            out.push_back(format!("file {} size={}", name, fmt_size(*bytes)));
        }
    }

    /// `task` statements, in memcg `memcg` if given.
    pub fn task_lines(&self, memcg: Option<&str>, out: &mut VecDeque<String>) {
        for j in &self.jobs {
            match memcg {
                Some(m) => out.push_back(format!("task {} memcg={}", j.task, m)),
                None => out.push_back(format!("task {}", j.task)),
            }
        }
    }

}

struct RoundRobin {
    jobs: Vec<JobRun>,
    next: usize,
}

impl RoundRobin {
    fn next(&mut self, out: &mut impl Emit) -> bool {
        let n = self.jobs.len();
        for _ in 0..n {
            let i = self.next;
            self.next = next_file(self.next, n);
            if !self.jobs[i].finished {
                self.jobs[i].next_io(out);
                return true;
            }
        }
        false
    }
}

impl Source for RoundRobin {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        Ok(self.next(out))
    }
    fn step_statements(&mut self, out: &mut Out) -> Result<bool, String> {
        // Up to STEP_IOS I/Os per call: the same statements in the same
        // order as one per call, with the stream's per-call work paid once
        // per batch (the queue holds at most a batch).
        const STEP_IOS: usize = 256;
        let mut left = STEP_IOS;
        while left > 0 {
            // One job: no turns to take, so a job whose I/Os are all
            // alike emits them in a loop of its own.
            if self.jobs.len() == 1 {
                let k = self.jobs[0].sampled_ios(out, left);
                if k > 0 {
                    left -= k;
                    continue;
                }
            }
            if !self.next(out) {
                return Ok(false);
            }
            left -= 1;
        }
        Ok(true)
    }
}

/// Splits `fio:ARGS;PARAMS` into ARGS and PARAMS at the last `;` outside
/// quotes.
pub(crate) fn split_args_params(rest: &str) -> (&str, &str) {
    match crate::util::rfind_unquoted(rest, ';') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    }
}

/// `fio:ARGS[;PARAMS]` and `fio-job:PATH[;PARAMS]`.
pub(crate) fn generator(kind: &str, rest: &str) -> Result<Lines, String> {
    let (header, src) = build(kind, rest)?;
    Ok(lines(header, src))
}

/// [`generator`] as statements: the I/Os as accesses without text.
pub(crate) fn generator_statements(kind: &str, rest: &str) -> Result<Statements, String> {
    let (header, src) = build(kind, rest)?;
    Ok(statements(header, src))
}

/// The largest fio job file read: fio's own examples are a few KiB, and a
/// path such as /dev/zero is not read for ever.
pub const MAX_JOB_FILE: u64 = 1 << 20;

/// A job file of at most MAX_JOB_FILE bytes, as text.
fn read_job_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("fio-job: cannot read `{}`: {}", path, e))?;
    let mut bytes = Vec::new();
    f.take(MAX_JOB_FILE + 1).read_to_end(&mut bytes).map_err(|e| format!("fio-job: cannot read `{}`: {}", path, e))?;
    if bytes.len() as u64 > MAX_JOB_FILE {
        return Err(format!("fio-job: `{}` is larger than {} MiB, the largest job file read: is it a fio job file?", path, MAX_JOB_FILE >> 20));
    }
    String::from_utf8(bytes).map_err(|_| format!("fio-job: `{}` is not UTF-8 text: is it a fio job file?", path))
}

/// The setup lines and the I/O source of a fio generator.
fn build(kind: &str, rest: &str) -> Result<(VecDeque<String>, RoundRobin), String> {
    let (body, params) = split_args_params(rest);
    let mut p = Params::parse(kind, params)?;
    let (sections, what) = if kind == "fio-job" {
        let path = body.trim();
        if path.is_empty() {
            return Err("fio-job: give the job file as fio-job:PATH".to_string());
        }
        let text = read_job_file(path)?;
        (parse_jobfile(&text, path)?, format!("job file {}", path))
    } else {
        (parse_cli(body)?, "command line".to_string())
    };
    let m = Machine::from_params(&mut p, crate::util::GIB, None, false, None)?;
    let rate = p.u64_opt("rate_iops")?;
    if rate == Some(0) {
        return Err(format!("{}: rate_iops= must be at least 1", kind));
    }
    p.finish()?;
    let plan = FioPlan::new(&sections, rate, m.seed)?;
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload {}: {} fio job(s) from the {}; {} file(s)",
        kind,
        plan.jobs.len(),
        what,
        plan.files.len()
    ));
    if !plan.ignored.is_empty() {
        out.push_back(format!("# ignored: {}", plan.ignored.join(" ")));
    }
    for n in &plan.notes {
        out.push_back(n.clone());
    }
    m.setup_lines(&mut out);
    let memcg = m.memcg_max.map(|_| "fio");
    if memcg.is_some() {
        out.push_back(Machine::memcg_line("fio", m.memcg_max));
    }
    plan.file_lines(&mut out);
    plan.task_lines(memcg, &mut out);
    for j in &plan.jobs {
        j.start_lines(&mut out);
    }
    Ok((out, RoundRobin { jobs: plan.jobs, next: 0 }))
}
