// SPDX-License-Identifier: GPL-2.0-only
//! The real run: a controller process and one worker process per task.
//!
//! The controller reads the trace through the [`Planner`], performs the
//! control operations itself (sysctls, memcgs, files, `memory.reclaim`,
//! `lru_gen` commands, sleeps, dumps) and sends every operation of a task
//! to that task's worker (see [`worker`]), waiting for the acknowledgement
//! before it moves on to anything else, so the kernel sees the trace's
//! order.
//!
//! Consecutive accesses of the same task are pipelined (up to
//! [`PIPELINE`] commands in flight): the worker still performs them one
//! after the other in trace order, and all of them are acknowledged before
//! the controller does anything else or talks to another worker.
//!
//! Keeping the replayer out of the measured memcgs: at start the
//! controller creates `<cgroup-root>/mglru-replayer`, moves itself there
//! (cgroup v2 does not move already charged pages, and everything it
//! allocates from then on is charged there), enables `+memory` in the
//! root's `cgroup.subtree_control` and locks its memory
//! (`mlockall(MCL_CURRENT|MCL_FUTURE|MCL_ONFAULT)`) so reclaim never scans
//! or swaps it; from the start of the measured part on its
//! `oom_score_adj` is -1000. A worker is forked from the controller,
//! writes its own pid to the `cgroup.procs` of its task's memcg as its
//! first action, resets `oom_score_adj` to 0 and locks its own few pages;
//! only then does it acknowledge that it is ready. The buffer used by
//! `pread`/`pwrite` is a shared anonymous mapping made and filled by the
//! controller (charged to `mglru-replayer`, locked), so the copy in and
//! out of user space allocates nothing in the task's memcg.

pub mod worker;

use std::collections::{BTreeSet, VecDeque};
use std::ffi::CString;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::ptr;
use std::time::{Duration, Instant};

use mglru_trace::{Advice, Op, TraceReader, PAGE_SIZE};

use crate::plan::{data_file_name, Action, LimitWrite, Planner, Step};
use crate::sysfs::{self, errno_name, errno_text, strerror, Json, MemcgSnap, Sys};
use crate::{ReplayError, DIAG, RESULT};
use worker::{Ack, Cmd};

/// The replayer's own cgroup, below the cgroup root.
pub const REPLAYER_CGROUP: &str = "mglru-replayer";

/// Commands of one worker in flight at most (bounded so that neither side
/// can fill the other's socket buffer).
pub const PIPELINE: usize = 32;

/// The kernel's `MAX_RW_COUNT`: one `read`/`write` moves at most this many
/// bytes.
pub const MAX_RW_COUNT: u64 = (i32::MAX as u64) & !(PAGE_SIZE - 1);

/// Virtual size of the shared I/O buffer; pages are filled (and charged)
/// only up to the largest request seen.
const BUF_WINDOW: u64 = MAX_RW_COUNT;

/// Bytes of the shared I/O buffer filled at start (it grows to the largest
/// request).
const BUF_PREFILL: u64 = 1 << 20;

/// Seconds between progress lines.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// A memcg's files the replayer reads or a trace line writes; the result
/// lists those a kernel lacks.
const MEMCG_FILES: &[&str] = &[
    "memory.stat",
    "memory.current",
    "memory.peak",
    "memory.events",
    "memory.swap.current",
    "memory.swap.peak",
    "memory.swap.max",
    "memory.max",
    "memory.high",
    "memory.low",
    "memory.min",
    "memory.oom.group",
    "memory.reclaim",
    "memory.pressure",
];

/// Of those, the ones trace lines write besides the limits: a kernel
/// where one exists without a write bit has it in `read_only_files`.
const MEMCG_WRITTEN: &[&str] = &["memory.peak", "memory.swap.peak", "memory.reclaim"];

/// Soft errors kept for the JSON result (all are counted).
const MAX_SOFT: usize = 1000;

/// How the real run is configured.
#[derive(Debug, Clone)]
pub struct Config {
    /// The trace's name, for messages.
    pub trace_name: String,
    /// Where the trace's files are created (the ext4 ramdisk).
    pub data_dir: PathBuf,
    /// The cgroup2 directory standing for the trace's `root` memcg.
    pub cgroup_root: PathBuf,
    /// No progress or information lines (warnings, the header, dumps and
    /// the result are still printed).
    pub quiet: bool,
    /// Give each file its own readahead window by setting the device's
    /// `read_ahead_kb` while the file is opened.
    pub per_file_readahead: bool,
    /// Where `file ... tmpfs=y` files are created (a tmpfs mount).
    pub tmpfs_dir: PathBuf,
    /// Wait this long before each snapshot (memcg statistics are flushed
    /// at least every 2 s; 2100 gives exact `memory.stat` values).
    pub settle_ms: u64,
    /// Start the workload right after a periodic memcg statistics flush
    /// (`flush_memcg_stats_dwork`), so the flushes fall 2 s, 4 s, ... into
    /// the run, as in the model.
    pub sync_stats_flush: bool,
    /// Run the tasks' accesses side by side (`--parallel`, the model's
    /// `--schedule parallel`): an access goes to its task's worker without
    /// waiting for other tasks' accesses to end, but only once the line
    /// above it has started; any other line waits for every worker.
    pub parallel: bool,
    /// `--extfrag`: trace the migratetype fallbacks (and non-movable page
    /// allocations) over the workload; result field `extfrag`.
    pub extfrag: bool,
    /// `--ftrace`/`--ftrace-event`: functions timed by the function_graph
    /// tracer and tracepoints over the workload; result field `ftrace`.
    pub ftrace: crate::funcgraph::Request,
    /// The kernel files.
    pub sys: Sys,
}

fn sys_err(what: impl std::fmt::Display, e: &io::Error) -> ReplayError {
    ReplayError::system(format!("{what}: {}", errno_text(e)))
}

fn last_err() -> io::Error {
    io::Error::last_os_error()
}

fn madvice(a: Advice) -> u64 {
    (match a {
        Advice::Normal => libc::MADV_NORMAL,
        Advice::Random => libc::MADV_RANDOM,
        Advice::Sequential => libc::MADV_SEQUENTIAL,
        Advice::DontNeed => libc::MADV_DONTNEED,
        Advice::WillNeed => libc::MADV_WILLNEED,
        // The trace resolver rejects `noreuse` for a region.
        Advice::NoReuse => unreachable!("noreuse on a region"),
    }) as u64
}

fn fadvice(a: Advice) -> u64 {
    (match a {
        Advice::Normal => libc::POSIX_FADV_NORMAL,
        Advice::Random => libc::POSIX_FADV_RANDOM,
        Advice::Sequential => libc::POSIX_FADV_SEQUENTIAL,
        Advice::DontNeed => libc::POSIX_FADV_DONTNEED,
        Advice::WillNeed => libc::POSIX_FADV_WILLNEED,
        Advice::NoReuse => libc::POSIX_FADV_NOREUSE,
    }) as u64
}

fn advice_name(op: u64, a: u64) -> String {
    let m = if op == worker::CMD_MADVISE {
        "madvise"
    } else {
        "posix_fadvise"
    };
    format!("{m}(advice {a})")
}

fn cstring(p: &Path) -> Result<CString, ReplayError> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| ReplayError::system(format!("path {} contains a NUL byte", p.display())))
}

/// A worker process.
struct Worker {
    pid: i32,
    sock: OwnedFd,
    /// The worker's descriptor for each file id (-1: not installed yet).
    fds: Vec<i32>,
    /// Trace lines of the commands in flight.
    inflight: VecDeque<(u64, u64)>,
    /// Commands sent so far (the worker counts those it has started on the
    /// start board, `--parallel`).
    sent: u32,
    /// The worker's utime and stime (clock ticks) when the workload began
    /// (None: spawned later, counted from 0).
    cpu_start: Option<(u64, u64)>,
}

enum TaskState {
    Alive(Worker),
    Exited,
    Killed,
}

struct MemcgInfo {
    name: String,
    dir: PathBuf,
    cg_path: String,
    kernel_id: Option<u32>,
    start: Option<MemcgSnap>,
    /// The open `memory.peak` / `memory.swap.peak` files a `peak=reset`
    /// wrote to: the kernel keeps the reset per open file, so `stat`
    /// reads through the same one.
    peak_files: Vec<(&'static str, std::fs::File)>,
}

/// What a `stat MEMCG` statement read.
struct StatRec {
    line: u64,
    memcg: String,
    snap: MemcgSnap,
    /// `memory.swap.peak` as a new open file reads it, and both peaks as
    /// the files a reset wrote to read them.
    swap_peak: Option<u64>,
    peak_since_reset: Option<u64>,
    swap_peak_since_reset: Option<u64>,
}

/// What a `reclaim` statement's write returned (0 or -errno).
struct ReclaimRec {
    line: u64,
    memcg: String,
    bytes: u64,
    result: i64,
}

struct FileInfo {
    /// The controller's descriptor; `None` once the file is unlinked.
    fd: Option<OwnedFd>,
    pages: u64,
    readahead_pages: u64,
    mmap_noted: bool,
    /// On disk, in `--tmpfs-dir`, or a memfd.
    kind: mglru_trace::FileKind,
}

struct RegionInfo {
    task: u32,
    addr: u64,
    pages: u64,
    /// mlocked (`mlock` without a later `munlock`).
    locked: bool,
    /// Gone with the trace's `munmap` (a fork does not copy it).
    unmapped: bool,
}

/// The shared anonymous buffer of `pread`/`pwrite`.
struct SharedBuf {
    ptr: *mut u8,
    cap: u64,
    filled: u64,
}

impl SharedBuf {
    fn new() -> Result<SharedBuf, ReplayError> {
        // SAFETY: a fresh shared anonymous mapping chosen by the kernel.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                BUF_WINDOW as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(sys_err(
                format!("mmap of the {BUF_WINDOW}-byte shared I/O buffer"),
                &last_err(),
            ));
        }
        // SAFETY: p..p+BUF_WINDOW is the mapping just made.
        unsafe { libc::madvise(p, BUF_WINDOW as usize, libc::MADV_NOHUGEPAGE) };
        Ok(SharedBuf {
            ptr: p.cast(),
            cap: BUF_WINDOW,
            filled: 0,
        })
    }

    /// Makes sure the first `len` bytes (at most the capacity) are present
    /// and hold non-zero data.
    fn ensure(&mut self, len: u64) {
        let want = len.min(self.cap);
        if want <= self.filled {
            return;
        }
        let want = (want.div_ceil(64 << 10) * (64 << 10)).min(self.cap);
        // SAFETY: filled..want lies inside the mapping.
        unsafe {
            ptr::write_bytes(
                self.ptr.add(self.filled as usize),
                0x5a,
                (want - self.filled) as usize,
            )
        };
        self.filled = want;
    }
}

impl Drop for SharedBuf {
    fn drop(&mut self) {
        // SAFETY: the mapping made in new().
        unsafe { libc::munmap(self.ptr.cast(), self.cap as usize) };
    }
}

/// `--parallel`: a shared page of one `u32` per task, the number of
/// commands its worker has started; the controller waits on it (futex)
/// before it releases the next line.
struct StartBoard {
    ptr: *mut u32,
}

/// Tasks a start board holds (one 4 KiB page of counters).
const BOARD_TASKS: u32 = 1024;

impl StartBoard {
    fn new() -> Result<StartBoard, ReplayError> {
        // SAFETY: a fresh shared anonymous page chosen by the kernel.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(sys_err("mmap of the --parallel start board", &last_err()));
        }
        // Touch it now: the page is charged where the controller runs.
        // SAFETY: p is a 4096-byte writable mapping.
        unsafe { ptr::write_bytes(p.cast::<u8>(), 0, 4096) };
        Ok(StartBoard { ptr: p.cast() })
    }

    /// The address of `task`'s counter.
    fn slot(&self, task: u32) -> Result<u64, ReplayError> {
        if task >= BOARD_TASKS {
            return Err(ReplayError::system(format!(
                "--parallel replays at most {BOARD_TASKS} tasks; this trace has more: replay it without --parallel"
            )));
        }
        // SAFETY: task < 1024 keeps the address inside the page.
        Ok(unsafe { self.ptr.add(task as usize) } as u64)
    }
}

impl Drop for StartBoard {
    fn drop(&mut self) {
        // SAFETY: the mapping made in new().
        unsafe { libc::munmap(self.ptr.cast(), 4096) };
    }
}

struct Soft {
    line: u64,
    op: String,
    error: String,
}

struct Killed {
    task: String,
    pid: i32,
    signal: i32,
    line: u64,
}

struct Start {
    vmstat: Vec<(String, u64)>,
    /// `/proc/zoneinfo` at the start (empty where it cannot be read).
    zones: Vec<sysfs::ZoneInfo>,
    /// `/proc/meminfo` at the start (empty where it cannot be read).
    meminfo: Vec<(String, u64)>,
    /// kswapd0's CPU ticks at the start (None where it cannot be read).
    kswapd_ticks: Option<u64>,
    /// PSI memory totals at the start: the system's first, then each
    /// memcg's `memory.pressure` in `memcgs` order from the second on
    /// (None where the kernel has no PSI, or for the root memcg).
    psi: Vec<Option<sysfs::PsiTotals>>,
    /// `/proc/pagetypeinfo` at the start: the pageblocks of each migratetype
    /// and their free chunks per order (None where it cannot be read).
    pagetypeinfo: Option<crate::extfrag::Pagetypeinfo>,
    at: Instant,
}

/// The guest's clock along the trace: the time since the workload started
/// at which the operation of a line was issued, sampled at most every
/// `PROFILE_EVERY` and bounded to `PROFILE_MAX` samples (then every other
/// sample is dropped and the period doubles). `mglru validate` makes the
/// model's clock follow it, so time-driven mechanisms (the 2 s statistics
/// flush, the flusher, `min_ttl_ms`) meet the workload where the guest's
/// did, whatever the emulated platform's speed.
#[derive(Default)]
struct TimeProfile {
    lines: Vec<u64>,
    ns: Vec<u64>,
    every_ns: u64,
}

const PROFILE_EVERY: Duration = Duration::from_millis(10);
const PROFILE_MAX: usize = 8192;

impl TimeProfile {
    fn note(&mut self, line: u64, ns: u64) {
        if self.every_ns == 0 {
            self.every_ns = PROFILE_EVERY.as_nanos() as u64;
        }
        if self.ns.last().is_some_and(|&t| ns < t + self.every_ns) {
            return;
        }
        if self.ns.len() == PROFILE_MAX {
            drop_every_other(&mut self.lines);
            drop_every_other(&mut self.ns);
            self.every_ns *= 2;
        }
        self.lines.push(line);
        self.ns.push(ns);
    }
}

/// Keep the first, third, fifth... element of a full profile.
fn drop_every_other<T>(v: &mut Vec<T>) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        i % 2 == 1
    });
}

/// A few `/proc/vmstat` counters along the run, sampled at most every
/// `VMSTAT_EVERY` of the guest's time and bounded to `VMSTAT_MAX` samples
/// (then every other sample is dropped and the period doubles), with the
/// trace line each sample was taken before. `mglru validate --timeline`
/// sets the model's counters at the same lines beside them, to find where
/// in a run the two part. Each sample is one read of `/proc/vmstat` by the
/// controller between two operations (its cost is the workload's).
#[derive(Default)]
struct VmstatProfile {
    lines: Vec<u64>,
    ns: Vec<u64>,
    values: Vec<[u64; VMSTAT_PROFILED.len()]>,
    /// `/proc/zoneinfo` at the same samples (empty where unreadable): each
    /// zone's free pages and its per-CPU lists' count and high.
    zones: Vec<Vec<sysfs::ZoneInfo>>,
    every_ns: u64,
    /// Per counter: whether any sample found it in `/proc/vmstat` (a
    /// counter this kernel lacks is left out of the result, not written
    /// as zeros).
    seen: [bool; VMSTAT_PROFILED.len()],
}

const VMSTAT_EVERY: Duration = Duration::from_millis(100);
const VMSTAT_MAX: usize = 2048;

/// The counters a `VmstatProfile` keeps.
pub const VMSTAT_PROFILED: [&str; 28] = [
    "nr_free_pages",
    "nr_inactive_anon",
    "nr_active_anon",
    "nr_inactive_file",
    "nr_active_file",
    "workingset_refault_anon",
    "workingset_refault_file",
    "workingset_activate_anon",
    "workingset_activate_file",
    "pswpin",
    "pswpout",
    "pgactivate",
    "pgdeactivate",
    "pgrefill",
    "pgscan_kswapd",
    "pgscan_direct",
    "pgsteal_kswapd",
    "pgsteal_direct",
    "pgscan_anon",
    "pgscan_file",
    "pageoutrun",
    "allocstall_movable",
    "nr_dirty",
    "nr_writeback",
    "nr_dirtied",
    "nr_written",
    "nr_vmscan_immediate_reclaim",
    "pgrotated",
];

impl VmstatProfile {
    fn due(&self, ns: u64) -> bool {
        self.ns.last().is_none_or(|&t| ns >= t + self.every_ns.max(VMSTAT_EVERY.as_nanos() as u64))
    }

    fn note(&mut self, line: u64, ns: u64, vmstat: &[(String, u64)], zones: Vec<sysfs::ZoneInfo>) {
        if self.every_ns == 0 {
            self.every_ns = VMSTAT_EVERY.as_nanos() as u64;
        }
        if self.ns.len() == VMSTAT_MAX {
            drop_every_other(&mut self.lines);
            drop_every_other(&mut self.ns);
            drop_every_other(&mut self.values);
            drop_every_other(&mut self.zones);
            self.every_ns *= 2;
        }
        self.zones.push(zones);
        let mut row = [0u64; VMSTAT_PROFILED.len()];
        for ((slot, seen), name) in row.iter_mut().zip(self.seen.iter_mut()).zip(VMSTAT_PROFILED) {
            if let Some((_, v)) = vmstat.iter().find(|(k, _)| k == name) {
                *slot = *v;
                *seen = true;
            }
        }
        self.lines.push(line);
        self.ns.push(ns);
        self.values.push(row);
    }
}

/// Writes to `/proc/sys/vm/stat_refresh`, which folds every CPU's
/// pending vmstat differences into the global counters. The start and end
/// snapshots are taken after one on every kernel that has the file. Where
/// the reclaim counters (`pgscan_*`, `pgsteal_*`, `pgrefill`) are node
/// statistics (7.2: `/proc/vmstat` then prints them among the node items,
/// before `nr_dirty_threshold`, and reads them without folding the CPUs'
/// differences), every `vmstat_profile` sample is taken after one too; on
/// 6.1 and 6.12 they are events, summed over the CPUs when read, and the
/// samples are left as they were (a fold every 100 ms would change when
/// kswapd sees the free pages' CPU differences).
#[derive(Debug, Default)]
struct StatRefresh {
    /// The kernel has the file.
    file: bool,
    /// Samples are refreshed too (the reclaim counters are node stats).
    samples: bool,
    /// Where the start snapshot puts the reclaim counters: Some(true)
    /// among the node statistics, Some(false) among the events, None if
    /// `/proc/vmstat` does not say.
    node_stats: Option<bool>,
    writes: u64,
    failed: u64,
    last_error: Option<String>,
}

/// The controller.
struct Exec {
    cfg: Config,
    sys: Sys,
    out: io::Stdout,
    kernel: String,
    lru_gen_enabled: Option<String>,
    memcgs: Vec<MemcgInfo>,
    files: Vec<FileInfo>,
    tasks: Vec<TaskState>,
    regions: Vec<RegionInfo>,
    buf: SharedBuf,
    /// The worker with commands in flight (serial replay).
    busy: Option<u32>,
    /// `--parallel`: one counter per task of the commands its worker has
    /// started, in a shared page.
    board: Option<StartBoard>,
    /// Per task: user and system CPU seconds over the workload (from
    /// /proc/PID/stat when it exited or at the end; None where unknown:
    /// killed, or no /proc).
    task_cpu: Vec<Option<(f64, f64)>>,
    start: Option<Start>,
    /// Seconds waited for the statistics flush the run started after.
    flush_synced: Option<f64>,
    setup_at: Instant,
    ops: u64,
    soft: Vec<Soft>,
    soft_count: u64,
    killed: Vec<Killed>,
    skipped: u64,
    dumps: u64,
    stats: Vec<StatRec>,
    reclaims: Vec<ReclaimRec>,
    ra_path: Option<PathBuf>,
    ra_kb: Option<u64>,
    memory_reported: bool,
    last_progress: Instant,
    profile: TimeProfile,
    vmstat_profile: VmstatProfile,
    /// Kernel files the replayer looked for and this kernel does not
    /// have (absolute paths; a memcg's files by name, e.g.
    /// `memory.swap.peak` on 6.1), and those it has without a write bit
    /// (6.1's `memory.peak`): the result's `absent_files` and
    /// `read_only_files`.
    absent: BTreeSet<String>,
    read_only: BTreeSet<String>,
    refresh: StatRefresh,
    /// `--extfrag`'s tracing, set up by `begin`.
    extfrag: Option<crate::extfrag::Tracer>,
    /// `--ftrace`'s tracer, set up by `begin`.
    ftrace: Option<crate::funcgraph::Tracer>,
}

/// Runs `reader`'s trace on the running kernel and prints the result line.
pub fn run(cfg: Config, reader: TraceReader) -> Result<(), ReplayError> {
    let mut planner = Planner::new(reader);
    let mut ex = Exec::setup(cfg)?;
    let r = ex.replay(&mut planner).and_then(|()| ex.finish(&planner));
    if r.is_err() {
        ex.kill_all();
    }
    r
}

impl Exec {
    fn info(&mut self, msg: &str) {
        if !self.cfg.quiet {
            self.say(msg);
        }
    }

    fn say(&mut self, msg: &str) {
        let _ = writeln!(self.out, "{DIAG}{msg}");
        let _ = self.out.flush();
    }

    fn warn(&mut self, msg: &str) {
        self.say(&format!("warning: {msg}"));
    }

    fn setup(cfg: Config) -> Result<Exec, ReplayError> {
        let sys = cfg.sys.clone();
        let setup_at = Instant::now();
        match std::fs::metadata(&cfg.data_dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(ReplayError::system(format!(
                    "--data-dir {} is not a directory",
                    cfg.data_dir.display()
                )))
            }
            Err(e) => {
                return Err(sys_err(
                    format!("--data-dir {}", cfg.data_dir.display()),
                    &e,
                ))
            }
        }
        let lru_gen_enabled =
            sysfs::read_opt(&sys.path(sysfs::LRU_GEN_ENABLED))?.map(|s| s.trim().to_string());
        // Mapped now, filled once the replayer is in its own cgroup.
        let buf = SharedBuf::new()?;
        let mut ex = Exec {
            sys,
            out: io::stdout(),
            kernel: sysfs::kernel_release(),
            lru_gen_enabled,
            memcgs: Vec::new(),
            files: Vec::new(),
            tasks: Vec::new(),
            regions: Vec::new(),
            buf,
            busy: None,
            board: None,
            task_cpu: Vec::new(),
            start: None,
            flush_synced: None,
            setup_at,
            ops: 0,
            soft: Vec::new(),
            soft_count: 0,
            killed: Vec::new(),
            skipped: 0,
            dumps: 0,
            stats: Vec::new(),
            reclaims: Vec::new(),
            ra_path: None,
            ra_kb: None,
            memory_reported: false,
            last_progress: Instant::now(),
            profile: TimeProfile::default(),
            vmstat_profile: VmstatProfile::default(),
            absent: BTreeSet::new(),
            read_only: BTreeSet::new(),
            refresh: StatRefresh::default(),
            extfrag: None,
            ftrace: None,
            cfg,
        };
        let meminfo = sysfs::read_opt(&ex.sys.path(sysfs::MEMINFO))?.unwrap_or_default();
        let field = |k: &str| {
            meminfo
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .map_or("?".to_string(), |v| v.trim().to_string())
        };
        let msg = format!(
            "kernel {} lru_gen {} MemTotal {} SwapTotal {}",
            ex.kernel,
            ex.lru_gen_enabled.as_deref().unwrap_or("(missing)"),
            field("MemTotal:"),
            field("SwapTotal:")
        );
        ex.say(&msg);
        // The kernel files read or written on some path of the run that
        // not every kernel has: recorded, not guessed (`absent_files`).
        for f in [
            sysfs::LRU_GEN_ENABLED,
            "/sys/kernel/mm/lru_gen/min_ttl_ms",
            sysfs::LRU_GEN_DEBUGFS,
            sysfs::STAT_REFRESH,
            sysfs::PSI_MEMORY,
            sysfs::ZONEINFO,
            "/proc/pagetypeinfo",
        ] {
            if !ex.sys.has_file(&ex.sys.path(f)) {
                ex.absent.insert(f.to_string());
            }
        }
        ex.refresh.file = ex.sys.has_file(&ex.sys.path(sysfs::STAT_REFRESH));
        if !ex.absent.is_empty() {
            let list: Vec<&str> = ex.absent.iter().map(String::as_str).collect();
            let msg = format!("this kernel lacks {}", list.join(" "));
            ex.info(&msg);
        }
        ex.enter_own_cgroup()?;
        ex.protect_self();
        // Most traces read and write at most a few dozen pages at a time:
        // fill that much of the I/O buffer now, outside the measured part
        // of the run (charged to mglru-replayer, locked).
        ex.buf.ensure(BUF_PREFILL);
        if ex.cfg.parallel {
            // Mapped and touched here, in the replayer's own cgroup, so no
            // worker's memcg is charged for it.
            ex.board = Some(StartBoard::new()?);
        }
        // Readahead of the data device.
        match sysfs::device_of(&ex.cfg.data_dir) {
            Ok(dev) => {
                ex.ra_path = sysfs::read_ahead_kb_path(&ex.sys, dev);
                if let Some(p) = ex.ra_path.clone() {
                    ex.ra_kb = sysfs::read_opt(&p)?.as_deref().and_then(sysfs::parse_num);
                }
                let msg = format!(
                    "data device {}:{} read_ahead_kb {}",
                    dev.0,
                    dev.1,
                    ex.ra_kb.map_or("(unknown)".to_string(), |v| v.to_string())
                );
                ex.info(&msg);
            }
            Err(e) => {
                let msg = format!(
                    "cannot stat --data-dir {}: {}",
                    ex.cfg.data_dir.display(),
                    errno_text(&e)
                );
                ex.warn(&msg);
            }
        }
        if ex.cfg.per_file_readahead && ex.ra_path.is_none() {
            return Err(ReplayError::system(format!(
                "--per-file-readahead: no read_ahead_kb file found for the device of {}",
                ex.cfg.data_dir.display()
            )));
        }
        Ok(ex)
    }

    /// Moves the controller into `<cgroup-root>/mglru-replayer` and enables
    /// the memory controller below the root; registers the root memcg.
    fn enter_own_cgroup(&mut self) -> Result<(), ReplayError> {
        let root = self.cfg.cgroup_root.clone();
        let own = root.join(REPLAYER_CGROUP);
        match std::fs::create_dir(&own) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(sys_err(format!("mkdir {}", own.display()), &e)),
        }
        let procs = own.join("cgroup.procs");
        self.sys
            .write_or_err(&procs, &std::process::id().to_string())
            .map_err(|e| {
                ReplayError::system(format!("{e} (moving the replayer into its own cgroup)"))
            })?;
        let sc = root.join("cgroup.subtree_control");
        if let Err(e) = self.sys.write(&sc, "+memory") {
            return Err(ReplayError::system(format!(
                "cannot write `+memory` to {}: {}{}",
                sc.display(),
                errno_text(&e),
                ebusy_hint(&e)
            )));
        }
        // The cgroup2 path of the cgroup root, as the lru_gen debugfs file
        // prints paths (e.g. "" for the root of the hierarchy).
        let me = sysfs::read_req(&self.sys.path(sysfs::SELF_CGROUP))?;
        let mine = sysfs::own_cgroup_path(&me).ok_or_else(|| {
            ReplayError::system(format!(
                "{} has no cgroup2 line (`0::PATH`): is cgroup2 mounted at {}?",
                sysfs::SELF_CGROUP,
                root.display()
            ))
        })?;
        let base = mine
            .strip_suffix(&format!("/{REPLAYER_CGROUP}"))
            .ok_or_else(|| {
                ReplayError::system(format!(
                    "after moving into {} the replayer is in cgroup {mine}: --cgroup-root must be a cgroup2 directory",
                    own.display()
                ))
            })?
            .to_string();
        let cg_path = if base.is_empty() {
            "/".to_string()
        } else {
            base
        };
        self.memcgs.push(MemcgInfo {
            name: mglru_trace::ROOT_MEMCG.to_string(),
            dir: root,
            cg_path,
            kernel_id: None,
            start: None,
            peak_files: Vec::new(),
        });
        let msg = format!(
            "replayer pid {} in cgroup {}",
            std::process::id(),
            own.display()
        );
        self.info(&msg);
        Ok(())
    }

    /// oom_score_adj -1000 for the controller, so that the OOM killer only
    /// ever picks the trace's tasks. Set at the start of the measured part:
    /// while the files are created there is no task, and an OOM (files that
    /// do not fit on the ramdisk, whose pages come out of RAM) should kill
    /// the replayer rather than panic the kernel with "System is deadlocked
    /// on memory".
    fn shield_from_oom(&mut self) {
        if let Err(e) = self
            .sys
            .write(&self.sys.path(sysfs::SELF_OOM_SCORE_ADJ), "-1000")
        {
            let msg = format!(
                "cannot set the replayer's oom_score_adj: {}",
                errno_text(&e)
            );
            self.warn(&msg);
        }
    }

    /// Locked memory for the controller.
    fn protect_self(&mut self) {
        if self.sys.is_fake() {
            return;
        }
        // SAFETY: plain system call.
        let r = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE | libc::MCL_ONFAULT) };
        if r != 0 {
            let msg = format!(
                "mlockall failed ({}): the replayer's own pages may be reclaimed",
                errno_text(&last_err())
            );
            self.warn(&msg);
        }
    }

    fn loc(&self, p: &Planner) -> String {
        p.reader().location().to_string()
    }

    fn replay(&mut self, p: &mut Planner) -> Result<(), ReplayError> {
        while let Some(step) = p.next_step()? {
            for w in p.take_warnings() {
                self.warn(&w);
            }
            match step {
                Step::Begin => {
                    self.report_machine(p);
                    self.drain(p)?;
                    self.begin().map_err(|e| e.at(&self.loc(p)))?;
                }
                Step::Op { line, op, action } => {
                    self.ops += 1;
                    if !op.is_setup() {
                        self.report_machine(p);
                    }
                    if let Some(st) = &self.start {
                        let ns = st.at.elapsed().as_nanos() as u64;
                        self.profile.note(line, ns);
                        if !op.is_setup() && self.vmstat_profile.due(ns) {
                            if self.refresh.samples {
                                self.refresh_vmstat();
                            }
                            let v = self.read_vmstat().map_err(|e| e.at(&self.loc(p)))?;
                            let z = self.read_zones().map_err(|e| e.at(&self.loc(p)))?;
                            self.vmstat_profile.note(line, ns, &v, z);
                        }
                    }
                    if let Err(e) = self.perform(p, line, &op, action) {
                        let text = p.reader().op_to_text(&op);
                        return Err(e.at(&format!("{}: `{text}`", self.loc(p))));
                    }
                    if self.ops & 4095 == 0
                        && !self.cfg.quiet
                        && self.last_progress.elapsed() >= PROGRESS_EVERY
                    {
                        self.last_progress = Instant::now();
                        let msg = format!("progress: {} ({} operations)", self.loc(p), self.ops);
                        self.info(&msg);
                    }
                }
            }
        }
        Ok(())
    }

    /// Prints the trace's machine (memory, swap) once, at the end of the
    /// setup section; it is not applied.
    fn report_machine(&mut self, p: &Planner) {
        if self.memory_reported {
            return;
        }
        self.memory_reported = true;
        let mem = match p.memory() {
            Some(m) => format!("{m}"),
            None => format!("{} (default)", mglru_trace::DEFAULT_MEMORY),
        };
        let swap = match p.swap() {
            Some((b, s)) => format!("{b} sync={}", if s { "y" } else { "n" }),
            None => "none".to_string(),
        };
        self.say(&format!(
            "trace machine: memory {mem} swap {swap} (not applied: the harness sizes the VM and the swap device)"
        ));
    }

    fn perform(
        &mut self,
        p: &Planner,
        line: u64,
        op: &Op,
        action: Action,
    ) -> Result<(), ReplayError> {
        // Accesses of the task with commands in flight join the pipeline;
        // anything else waits until all of them are acknowledged.
        let task_of_access = match action {
            Action::Read { task, .. }
            | Action::Write { task, .. }
            | Action::Load { task, .. }
            | Action::Store { task, .. } => Some(task),
            _ => None,
        };
        if task_of_access.is_none() || (!self.cfg.parallel && task_of_access != self.busy) {
            self.drain(p)?;
        }
        match action {
            Action::Machine => Ok(()),
            Action::Knob { path, value } => {
                let path = self.sys.path(path);
                self.sys.write_or_err(&path, &value)?;
                let msg = format!("{}: wrote {value} to {}", self.loc(p), path.display());
                self.info(&msg);
                Ok(())
            }
            Action::CreateMemcg {
                id,
                parent,
                rel,
                limits,
            } => self.create_memcg(p, id, parent, &rel, &limits),
            Action::SetLimits { id, limits } => {
                let dir = self.memcg(id)?.dir.clone();
                self.write_limits(&dir, &limits)
            }
            Action::CreateFile {
                id,
                pages,
                readahead_pages,
                kind,
            } => {
                if kind.is_shmem() {
                    self.create_shmem_file(p, id, pages, kind)
                } else {
                    self.create_file(p, id, pages, readahead_pages)
                }
            }
            Action::Spawn { task, memcg, cpu, oom_score_adj } => self.spawn(p, task, memcg, cpu, oom_score_adj),
            Action::ResetPeaks { id, limits, files } => {
                let dir = self.memcg(id)?.dir.clone();
                self.write_limits(&dir, &limits)?;
                for f in files {
                    self.reset_peak(id, f)?;
                }
                Ok(())
            }
            Action::TaskSet { task, memcg, oom_score_adj } => self.task_set(p, task, memcg, oom_score_adj),
            Action::Stat { memcg } => self.stat_memcg(p, line, memcg),
            Action::MapAnon {
                task,
                region,
                pages,
                populate,
                shared,
            } => {
                let len = pages_bytes(pages)?;
                let cmd = Cmd {
                    op: worker::CMD_MAP_ANON,
                    a: len,
                    b: u64::from(shared),
                    c: u64::from(populate),
                    ..Cmd::default()
                };
                let what = if shared { "mmap(MAP_SHARED|MAP_ANONYMOUS)" } else { "mmap(MAP_PRIVATE|MAP_ANONYMOUS)" };
                if shared {
                    // The mapping's shmem file has a file id of its own
                    // (the trace's next one) but nothing to open: keep
                    // the ids of the files after it in step.
                    self.files.push(FileInfo { fd: None, pages, readahead_pages: 0, mmap_noted: true, kind: mglru_trace::FileKind::Tmpfs });
                }
                let addr = self.call(p, task, line, cmd, None, what)?;
                self.add_region(region, task, addr.unwrap_or(0), pages)
            }
            Action::MapFile {
                task,
                region,
                file,
                pages,
                populate,
            } => {
                if !self.cfg.per_file_readahead {
                    let f = self.file(file)?;
                    if f.readahead_pages == 0 && !f.mmap_noted {
                        self.files[file as usize].mmap_noted = true;
                        let msg = format!(
                            "file `{}` has readahead=0, emulated with POSIX_FADV_RANDOM, which does not stop \
                             mmap read-around (use --per-file-readahead for ra_pages = 0)",
                            p.reader().file_name(file)
                        );
                        self.warn(&msg);
                    }
                }
                let len = pages_bytes(pages)?;
                let Some(fd) = self.worker_fd(p, task, file, line)? else {
                    return self.add_region(region, task, 0, pages);
                };
                let cmd = Cmd {
                    op: worker::CMD_MAP_FILE,
                    a: fd as u64,
                    b: len,
                    c: u64::from(populate),
                    ..Cmd::default()
                };
                let addr = self.call(p, task, line, cmd, None, "mmap(MAP_SHARED)")?;
                self.add_region(region, task, addr.unwrap_or(0), pages)
            }
            Action::Read {
                task,
                file,
                page,
                count,
            }
            | Action::Write {
                task,
                file,
                page,
                count,
            } => {
                let write = matches!(op, Op::Write { .. });
                let fp = self.file(file)?.pages;
                match page.checked_add(count) {
                    Some(e) if e <= fp => {}
                    _ => {
                        return Err(ReplayError::system(format!(
                            "pages {page}+{count} out of the file's {fp} pages"
                        )));
                    }
                }
                let Some(fd) = self.worker_fd(p, task, file, line)? else {
                    return Ok(());
                };
                let len = pages_bytes(count)?;
                let off = pages_bytes(page)?;
                if len > MAX_RW_COUNT {
                    let msg = format!(
                        "{}: a {} of {len} bytes exceeds the kernel's MAX_RW_COUNT ({MAX_RW_COUNT}): \
                         issued as several system calls",
                        self.loc(p),
                        if write { "write" } else { "read" }
                    );
                    self.warn(&msg);
                }
                self.buf.ensure(len);
                let cmd = Cmd {
                    op: if write {
                        worker::CMD_PWRITE
                    } else {
                        worker::CMD_PREAD
                    },
                    a: fd as u64,
                    b: self.buf.ptr as u64,
                    c: len,
                    d: off,
                    e: self.buf.cap,
                };
                self.pipelined(p, task, line, cmd)
            }
            Action::Load {
                task,
                region,
                page,
                count,
            }
            | Action::Store {
                task,
                region,
                page,
                count,
            } => {
                let r = self.region(region)?;
                if r.task != task {
                    return Err(ReplayError::system(format!(
                        "internal: region {region} does not belong to task {task}"
                    )));
                }
                if r.addr == 0 {
                    return self.skip(p, task);
                }
                match page.checked_add(count) {
                    Some(e) if e <= r.pages => {}
                    _ => {
                        return Err(ReplayError::system(format!(
                            "pages {page}+{count} out of the region's {} pages",
                            r.pages
                        )));
                    }
                }
                let addr = r.addr + page * PAGE_SIZE;
                let cmd = Cmd {
                    op: if matches!(op, Op::Store { .. }) {
                        worker::CMD_STORE
                    } else {
                        worker::CMD_LOAD
                    },
                    a: addr,
                    b: count,
                    c: 0x6d67_6c72_0000_0000 | (page << 1),
                    ..Cmd::default()
                };
                self.pipelined(p, task, line, cmd)
            }
            Action::Madvise {
                task,
                region,
                advice,
            } => {
                let r = self.region(region)?;
                if r.addr == 0 {
                    return self.skip(p, task);
                }
                if r.locked && advice == Advice::DontNeed {
                    // madvise_dontneed_free_valid_vma: EINVAL on a VM_LOCKED
                    // mapping, nothing done (the model does nothing either).
                    self.soft_error(p, line, op, "MADV_DONTNEED of a locked mapping: EINVAL (not sent)");
                    return Ok(());
                }
                let cmd = Cmd {
                    op: worker::CMD_MADVISE,
                    a: r.addr,
                    b: pages_bytes(r.pages)?,
                    c: madvice(advice),
                    ..Cmd::default()
                };
                let what = advice_name(cmd.op, cmd.c);
                self.call(p, task, line, cmd, None, &what).map(|_| ())
            }
            Action::Fadvise { task, file, advice } => {
                let Some(fd) = self.worker_fd(p, task, file, line)? else {
                    return Ok(());
                };
                let cmd = Cmd {
                    op: worker::CMD_FADVISE,
                    a: fd as u64,
                    c: fadvice(advice),
                    ..Cmd::default()
                };
                let what = advice_name(cmd.op, cmd.c);
                self.call(p, task, line, cmd, None, &what).map(|_| ())
            }
            Action::Reclaim { memcg, bytes, swappiness } => {
                let path = self.memcg(memcg)?.dir.join("memory.reclaim");
                let text = match swappiness {
                    // 7.2 spells SWAPPINESS_ANON_ONLY `max` (it refuses 201).
                    Some(mglru_trace::SWAPPINESS_ANON_ONLY) => format!("{bytes} swappiness=max"),
                    Some(n) => format!("{bytes} swappiness={n}"),
                    None => bytes.to_string(),
                };
                let res = self.sys.write(&path, &text);
                let result = match &res {
                    Ok(()) => 0,
                    Err(e) => -i64::from(e.raw_os_error().unwrap_or(0)),
                };
                let name = self.memcg(memcg)?.name.clone();
                self.reclaims.push(ReclaimRec { line, memcg: name, bytes, result });
                match res {
                    Ok(()) => {
                        let msg = format!(
                            "{}: reclaim {bytes} bytes from {}: ok",
                            self.loc(p),
                            path.display()
                        );
                        self.info(&msg);
                        Ok(())
                    }
                    Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {
                        self.soft_error(p, line, op, &errno_text(&e));
                        Ok(())
                    }
                    Err(e) => Err(sys_err(format!("write {bytes} to {}", path.display()), &e)),
                }
            }
            Action::Sleep { ns } => {
                sleep_ns(ns);
                Ok(())
            }
            Action::Exit { task } => self.exit_task(p, task, line),
            Action::Munmap { task, region } => {
                let r = self.region(region)?;
                if r.addr == 0 {
                    return self.skip(p, task);
                }
                let cmd = Cmd {
                    op: worker::CMD_MUNMAP,
                    a: r.addr,
                    b: pages_bytes(r.pages)?,
                    ..Cmd::default()
                };
                self.regions[region as usize].unmapped = true;
                self.call(p, task, line, cmd, None, "munmap").map(|_| ())
            }
            Action::Fork { task, child, first_region } => self.fork_task(p, task, child, first_region, line),
            Action::Unlink { file } => self.unlink_file(p, file, line),
            Action::Mlock { task, region } | Action::Munlock { task, region } => {
                let lock = matches!(op, Op::Mlock { .. });
                let r = self.region(region)?;
                if r.addr == 0 {
                    return self.skip(p, task);
                }
                let cmd = Cmd {
                    op: if lock { worker::CMD_MLOCK } else { worker::CMD_MUNLOCK },
                    a: r.addr,
                    b: pages_bytes(r.pages)?,
                    ..Cmd::default()
                };
                let done = self.call(p, task, line, cmd, None, if lock { "mlock" } else { "munlock" })?;
                if done.is_some() {
                    self.regions[region as usize].locked = lock;
                }
                Ok(())
            }
            Action::Truncate { file, pages } => {
                let f = self.file(file)?;
                let fd = f
                    .fd
                    .as_ref()
                    .ok_or_else(|| ReplayError::system(format!("internal: truncate of file {file} after its unlink")))?
                    .as_raw_fd();
                let len = pages_bytes(pages)?;
                // SAFETY: plain system call on our descriptor.
                let r = unsafe { libc::ftruncate(fd, len as libc::off_t) };
                if r != 0 {
                    return Err(sys_err(format!("ftruncate of file `{}` to {len} bytes", p.reader().file_name(file)), &last_err()));
                }
                self.files[file as usize].pages = pages;
                Ok(())
            }
            Action::Dump => {
                let path = self.sys.path(sysfs::LRU_GEN_DEBUGFS);
                let text = sysfs::read_req(&path)?;
                self.dumps += 1;
                let n = self.dumps;
                let loc = self.loc(p);
                let _ = writeln!(self.out, "MGLRU-REPLAY-DUMP-BEGIN {n} {loc}");
                let _ = self.out.write_all(text.as_bytes());
                if !text.ends_with('\n') && !text.is_empty() {
                    let _ = writeln!(self.out);
                }
                let _ = writeln!(self.out, "MGLRU-REPLAY-DUMP-END {n}");
                let _ = self.out.flush();
                Ok(())
            }
            Action::LruGen { memcg, cmd } => {
                let path = self.sys.path(sysfs::LRU_GEN_DEBUGFS);
                let id = self.kernel_memcg_id(memcg, &path)?;
                let text = cmd.text(id);
                match self.sys.write(&path, &text) {
                    Ok(()) => {
                        let msg = format!("{}: lru_gen `{text}`: ok", self.loc(p));
                        self.info(&msg);
                    }
                    Err(e) => {
                        self.soft_error(p, line, op, &format!("`{text}`: {}", errno_text(&e)));
                    }
                }
                Ok(())
            }
        }
    }

    fn soft_error(&mut self, p: &Planner, line: u64, op: &Op, error: &str) {
        let text = p.reader().op_to_text(op);
        let msg = format!("{}: `{text}`: {error}", self.loc(p));
        self.say(&format!("result: {msg}"));
        self.soft_count += 1;
        if self.soft.len() < MAX_SOFT {
            self.soft.push(Soft {
                line,
                op: text,
                error: error.to_string(),
            });
        }
    }

    fn memcg(&self, id: u16) -> Result<&MemcgInfo, ReplayError> {
        self.memcgs
            .get(usize::from(id))
            .ok_or_else(|| ReplayError::system(format!("internal: unknown memcg id {id}")))
    }

    fn file(&self, id: u32) -> Result<&FileInfo, ReplayError> {
        self.files
            .get(id as usize)
            .ok_or_else(|| ReplayError::system(format!("internal: unknown file id {id}")))
    }

    fn region(&self, id: u32) -> Result<&RegionInfo, ReplayError> {
        self.regions
            .get(id as usize)
            .ok_or_else(|| ReplayError::system(format!("internal: unknown region id {id}")))
    }

    fn add_region(&mut self, id: u32, task: u32, addr: u64, pages: u64) -> Result<(), ReplayError> {
        if id as usize != self.regions.len() {
            return Err(ReplayError::system(format!(
                "internal: region id {id} out of order"
            )));
        }
        self.regions.push(RegionInfo { task, addr, pages, locked: false, unmapped: false });
        Ok(())
    }

    fn write_limits(&mut self, dir: &Path, limits: &[LimitWrite]) -> Result<(), ReplayError> {
        for (f, v) in limits {
            self.sys.write_or_err(&dir.join(f), v)?;
        }
        Ok(())
    }

    fn create_memcg(
        &mut self,
        p: &Planner,
        id: u16,
        parent: u16,
        rel: &str,
        limits: &[LimitWrite],
    ) -> Result<(), ReplayError> {
        if usize::from(id) != self.memcgs.len() {
            return Err(ReplayError::system(format!(
                "internal: memcg id {id} out of order"
            )));
        }
        let pdir = self.memcg(parent)?.dir.clone();
        let sc = pdir.join("cgroup.subtree_control");
        if let Err(e) = self.sys.write(&sc, "+memory") {
            return Err(ReplayError::system(format!(
                "cannot write `+memory` to {}: {}{}",
                sc.display(),
                errno_text(&e),
                ebusy_hint(&e)
            )));
        }
        let dir = self.cfg.cgroup_root.join(rel);
        if let Err(e) = std::fs::create_dir(&dir) {
            let hint = if e.kind() == io::ErrorKind::AlreadyExists {
                " (left over from an earlier run? its counters would not start at zero: remove it or reboot the VM)"
            } else {
                ""
            };
            return Err(ReplayError::system(format!(
                "mkdir {}: {}{hint}",
                dir.display(),
                errno_text(&e)
            )));
        }
        if self.sys.is_fake() {
            // A fake cgroup directory has no files; the workers need this one.
            self.sys.write_or_err(&dir.join("cgroup.procs"), "")?;
        }
        self.write_limits(&dir, limits)?;
        // The memcg files a result or a trace line may use that differ
        // between kernels (6.1: no memory.swap.peak, memory.peak 0444).
        for f in MEMCG_FILES {
            match self.sys.kernel_file(&dir.join(f)) {
                sysfs::FileState::Missing => {
                    self.absent.insert((*f).to_string());
                }
                sysfs::FileState::ReadOnly if MEMCG_WRITTEN.contains(f) => {
                    self.read_only.insert((*f).to_string());
                }
                _ => {}
            }
        }
        let root_path = &self.memcgs[0].cg_path;
        let cg_path = if root_path == "/" {
            format!("/{rel}")
        } else {
            format!("{root_path}/{rel}")
        };
        let msg = format!(
            "memcg {} = {} ({cg_path})",
            p.reader().memcg_name(id),
            dir.display()
        );
        self.info(&msg);
        self.memcgs.push(MemcgInfo {
            name: p.reader().memcg_name(id).to_string(),
            dir,
            cg_path,
            kernel_id: None,
            start: None,
            peak_files: Vec::new(),
        });
        Ok(())
    }

    fn create_file(
        &mut self,
        p: &Planner,
        id: u32,
        pages: u64,
        ra_pages: u64,
    ) -> Result<(), ReplayError> {
        if id as usize != self.files.len() {
            return Err(ReplayError::system(format!(
                "internal: file id {id} out of order"
            )));
        }
        let name = p.reader().file_name(id);
        let path = self.cfg.data_dir.join(data_file_name(id, name));
        let ra_kb = ra_pages * PAGE_SIZE / 1024;
        // The readahead window (f_ra.ra_pages) is copied from the device
        // when the file is opened.
        let restore = if self.cfg.per_file_readahead {
            let rp = self
                .ra_path
                .clone()
                .ok_or_else(|| ReplayError::system("no read_ahead_kb file"))?;
            self.sys.write_or_err(&rp, &ra_kb.to_string())?;
            Some(rp)
        } else {
            if ra_pages != 0 && self.ra_kb.is_some_and(|d| d != ra_kb) {
                let msg = format!(
                    "file `{name}` has readahead={ra_kb} KiB but the data device's read_ahead_kb is {}: \
                     set it before the run or use --per-file-readahead",
                    self.ra_kb.unwrap_or(0)
                );
                self.warn(&msg);
            }
            None
        };
        if !self.sys.is_fake() {
            self.check_room(name, pages)?;
        }
        let opened = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path);
        if let Some(rp) = restore {
            let v = self.ra_kb.unwrap_or(128).to_string();
            self.sys.write_or_err(&rp, &v)?;
        }
        let f = opened.map_err(|e| sys_err(format!("create {}", path.display()), &e))?;
        // Non-zero data: every byte 0xa5, and the first 8 bytes of each
        // page tell the file and page.
        const CHUNK: u64 = 256;
        let mut chunk = vec![0xa5u8; (CHUNK * PAGE_SIZE) as usize];
        let mut page = 0;
        while page < pages {
            let n = CHUNK.min(pages - page);
            for i in 0..n {
                let tag = (1u64 << 63) | (u64::from(id) << 40) | (page + i);
                let o = (i * PAGE_SIZE) as usize;
                chunk[o..o + 8].copy_from_slice(&tag.to_le_bytes());
            }
            f.write_all_at(&chunk[..(n * PAGE_SIZE) as usize], page * PAGE_SIZE)
                .map_err(|e| sys_err(format!("write {}", path.display()), &e))?;
            page += n;
        }
        f.sync_all()
            .map_err(|e| sys_err(format!("fsync {}", path.display()), &e))?;
        let fd = OwnedFd::from(f);
        // Written pages are clean now: drop them so the file starts
        // uncached (also for a file defined in the middle of the run).
        // SAFETY: plain system call on our descriptor.
        let r = unsafe { libc::posix_fadvise(fd.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if r != 0 {
            return Err(ReplayError::system(format!(
                "posix_fadvise(POSIX_FADV_DONTNEED) on {}: {} ({})",
                path.display(),
                errno_name(r),
                strerror(r)
            )));
        }
        if ra_pages == 0 && !self.cfg.per_file_readahead {
            // SAFETY: plain system call on our descriptor.
            let r = unsafe { libc::posix_fadvise(fd.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM) };
            if r != 0 {
                return Err(ReplayError::system(format!(
                    "posix_fadvise(POSIX_FADV_RANDOM) on {}: {} ({})",
                    path.display(),
                    errno_name(r),
                    strerror(r)
                )));
            }
        }
        let msg = format!(
            "file {name} = {} ({pages} pages, readahead {ra_kb} KiB{})",
            path.display(),
            if ra_pages == 0 && !self.cfg.per_file_readahead {
                ", POSIX_FADV_RANDOM"
            } else {
                ""
            }
        );
        self.info(&msg);
        self.files.push(FileInfo {
            fd: Some(fd),
            pages,
            readahead_pages: ra_pages,
            mmap_noted: false,
            kind: mglru_trace::FileKind::Disk,
        });
        Ok(())
    }

    /// A shmem file: a tmpfs file of `pages` pages in `--tmpfs-dir`, or a
    /// memfd (`memfd_create`), created empty with ftruncate: nothing is
    /// allocated until a task writes or faults its pages, which are then
    /// charged to that task's memcg, as the model does.
    fn create_shmem_file(&mut self, p: &Planner, id: u32, pages: u64, kind: mglru_trace::FileKind) -> Result<(), ReplayError> {
        if id as usize != self.files.len() {
            return Err(ReplayError::system(format!("internal: file id {id} out of order")));
        }
        let name = p.reader().file_name(id).to_string();
        let len = pages_bytes(pages)?;
        let (fd, place) = if kind == mglru_trace::FileKind::Memfd {
            let cname = std::ffi::CString::new(data_file_name(id, &name))
                .map_err(|_| ReplayError::system(format!("file name `{name}` holds a NUL byte")))?;
            // SAFETY: plain system call with a NUL-terminated name.
            let r = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
            if r < 0 {
                return Err(sys_err(format!("memfd_create for file `{name}`"), &last_err()));
            }
            // SAFETY: a descriptor just returned to us and owned by nobody else.
            (unsafe { OwnedFd::from_raw_fd(r) }, "memfd".to_string())
        } else {
            let path = self.cfg.tmpfs_dir.join(data_file_name(id, &name));
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .map_err(|e| sys_err(format!("create {} (a tmpfs file; --tmpfs-dir)", path.display()), &e))?;
            (OwnedFd::from(f), path.display().to_string())
        };
        // SAFETY: plain system call on our descriptor.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
            return Err(sys_err(format!("ftruncate of shmem file `{name}` to {len} bytes"), &last_err()));
        }
        let msg = format!("file {name} = {place} ({pages} pages, shmem)");
        self.info(&msg);
        self.files.push(FileInfo { fd: Some(fd), pages, readahead_pages: 0, mmap_noted: true, kind });
        Ok(())
    }

    /// Warns when a file is larger than the memory available: the
    /// ramdisk's pages come out of RAM, so it cannot be created.
    fn check_room(&mut self, name: &str, pages: u64) -> Result<(), ReplayError> {
        let avail_kb = self
            .read_meminfo()?
            .into_iter()
            .find_map(|(k, v)| (k == "MemAvailable").then_some(v));
        if let Some(kb) = avail_kb {
            let need_kb = pages.saturating_mul(PAGE_SIZE / 1024);
            if need_kb > kb {
                let msg = format!(
                    "file `{name}` ({need_kb} KiB) is larger than MemAvailable ({kb} KiB): if the data \
                     directory is on a RAM disk (brd), its pages come out of RAM and the file cannot be \
                     created; give the VM more memory"
                );
                self.warn(&msg);
            }
        }
        Ok(())
    }

    /// `peak=reset` / `swap.peak=reset`: write to the memcg's one open
    /// peak file (opened at the first reset and kept).
    fn reset_peak(&mut self, id: u16, file: &'static str) -> Result<(), ReplayError> {
        let dir = self.memcg(id)?.dir.clone();
        let path = dir.join(file);
        match self.sys.kernel_file(&path) {
            sysfs::FileState::Writable => {}
            sysfs::FileState::Missing => {
                return Err(ReplayError::system(format!(
                    "cannot reset {file}: kernel {} has no {} (6.1 has no memory.swap.peak; 6.12 and 7.2 have it)",
                    self.kernel,
                    path.display()
                )));
            }
            sysfs::FileState::ReadOnly => {
                return Err(ReplayError::system(format!(
                    "cannot reset {file}: on kernel {} {} is read-only (6.1 has no write handler for it; 6.12 and 7.2 reset it per open file)",
                    self.kernel,
                    path.display()
                )));
            }
        }
        if !self.memcgs[usize::from(id)].peak_files.iter().any(|(f, _)| *f == file) {
            // A fake system's files are created on first use.
            let fake = self.sys.is_fake();
            let f = OpenOptions::new().read(true).write(true).create(fake).truncate(false).open(&path).map_err(|e| sys_err(format!("open {}", path.display()), &e))?;
            self.memcgs[usize::from(id)].peak_files.push((file, f));
        }
        let m = &self.memcgs[usize::from(id)];
        let f = &m.peak_files.iter().find(|(n, _)| *n == file).expect("opened above").1;
        f.write_at(b"reset\n", 0).map_err(|e| sys_err(format!("write reset to {}", path.display()), &e))?;
        Ok(())
    }

    /// A peak file's value: through the file a reset wrote to (if
    /// `kept`), else a fresh read (the global peak). None where the file
    /// does not exist.
    fn read_peak(&self, id: u16, file: &'static str, kept: bool) -> Result<Option<u64>, ReplayError> {
        let m = self.memcg(id)?;
        if let Some((_, f)) = m.peak_files.iter().find(|(n, _)| kept && *n == file) {
            let mut buf = [0u8; 64];
            let n = f.read_at(&mut buf, 0).map_err(|e| sys_err(format!("read {}", m.dir.join(file).display()), &e))?;
            return Ok(sysfs::parse_num(&String::from_utf8_lossy(&buf[..n])));
        }
        Ok(sysfs::read_opt(&m.dir.join(file))?.as_deref().and_then(sysfs::parse_num))
    }

    /// `stat MEMCG`: the memcg's files now, kept for the result and
    /// printed between markers.
    fn stat_memcg(&mut self, p: &Planner, line: u64, memcg: u16) -> Result<(), ReplayError> {
        let dir = self.memcg(memcg)?.dir.clone();
        let snap = sysfs::memcg_snapshot(&dir)?;
        let swap_peak = self.read_peak(memcg, "memory.swap.peak", false)?;
        let peak_since_reset = self.read_peak(memcg, "memory.peak", true)?;
        let swap_peak_since_reset = self.read_peak(memcg, "memory.swap.peak", true)?;
        let name = self.memcg(memcg)?.name.clone();
        let n = self.stats.len() + 1;
        let loc = self.loc(p);
        let _ = writeln!(self.out, "MGLRU-REPLAY-STAT-BEGIN {n} {name} {loc}");
        for (k, v) in [
            ("memory.current", snap.current),
            ("memory.peak", snap.peak),
            ("memory.swap.current", snap.swap_current),
            ("memory.swap.peak", swap_peak),
            ("memory.peak.since_reset", peak_since_reset),
            ("memory.swap.peak.since_reset", swap_peak_since_reset),
        ] {
            if let Some(v) = v {
                let _ = writeln!(self.out, "{k} {v}");
            }
        }
        let _ = writeln!(self.out, "MGLRU-REPLAY-STAT-END {n}");
        let _ = self.out.flush();
        self.stats.push(StatRec { line, memcg: name, snap, swap_peak, peak_since_reset, swap_peak_since_reset });
        Ok(())
    }

    /// A later `task` statement: the worker's pid goes to the new memcg's
    /// `cgroup.procs`, and its `oom_score_adj` is written.
    fn task_set(&mut self, p: &Planner, task: u32, memcg: Option<u16>, oom_score_adj: Option<i16>) -> Result<(), ReplayError> {
        if !matches!(self.tasks.get(task as usize), Some(TaskState::Alive(_))) {
            return self.skip(p, task);
        }
        let pid = self.pid(task);
        if let Some(m) = memcg {
            let procs = self.memcg(m)?.dir.join("cgroup.procs");
            self.sys.write_or_err(&procs, &pid.to_string())?;
        }
        if let Some(a) = oom_score_adj {
            let path = self.sys.path(&format!("/proc/{pid}/oom_score_adj"));
            if self.sys.is_fake() {
                if let Some(d) = path.parent() {
                    let _ = std::fs::create_dir_all(d);
                }
            }
            self.sys.write_or_err(&path, &a.to_string())?;
        }
        let msg = format!("{}: task {} (pid {pid}) updated", self.loc(p), p.reader().task_name(task));
        self.info(&msg);
        Ok(())
    }

    fn spawn(&mut self, p: &Planner, task: u32, memcg: u16, cpu: Option<u32>, oom_score_adj: i16) -> Result<(), ReplayError> {
        if task as usize != self.tasks.len() {
            return Err(ReplayError::system(format!(
                "internal: task id {task} out of order"
            )));
        }
        let procs_path = self.memcg(memcg)?.dir.join("cgroup.procs");
        let procs = cstring(&procs_path)?;
        let oom = cstring(&self.sys.path(sysfs::SELF_OOM_SCORE_ADJ))?;
        let mut sv = [-1i32; 2];
        // SAFETY: sv is a valid array of two ints.
        if unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                sv.as_mut_ptr(),
            )
        } != 0
        {
            return Err(sys_err("socketpair(AF_UNIX, SOCK_SEQPACKET)", &last_err()));
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (mine, theirs) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
        let mut close: Vec<i32> = self
            .tasks
            .iter()
            .filter_map(|t| match t {
                TaskState::Alive(w) => Some(w.sock.as_raw_fd()),
                _ => None,
            })
            .collect();
        close.push(mine.as_raw_fd());
        let setup = worker::Setup {
            sock: theirs.as_raw_fd(),
            close,
            procs: Some(procs),
            oom_score_adj: Some(oom),
            oom_score_adj_value: oom_score_adj.to_string().into_bytes(),
            mlock: !self.sys.is_fake(),
            prefault: (self.buf.ptr as u64, self.buf.filled),
            cpu,
            started: match &self.board {
                Some(b) => b.slot(task)?,
                None => 0,
            },
        };
        // Files open now are inherited with the same descriptor numbers
        // (and the same open file descriptions).
        let fds: Vec<i32> = self.files.iter().map(|f| f.fd.as_ref().map_or(-1, |d| d.as_raw_fd())).collect();
        let _ = self.out.flush();
        // SAFETY: fork; the child only runs worker::main, which makes
        // system calls and never returns.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(sys_err("fork", &last_err()));
        }
        if pid == 0 {
            worker::main(&setup);
        }
        drop(theirs);
        let mut w = Worker {
            pid,
            sock: mine,
            fds,
            inflight: VecDeque::new(),
            sent: 0,
            cpu_start: None,
        };
        // The worker's first answer tells whether it joined its memcg.
        match recv_ack(&w.sock) {
            Ok(Some(a)) if a.res == 0 => {}
            Ok(Some(a)) if a.val == worker::STAGE_AFFINITY => {
                reap(w.pid);
                let e = io::Error::from_raw_os_error((-a.res) as i32);
                return Err(ReplayError::system(format!(
                    "worker (pid {pid}) cannot pin itself to cpu={} (sched_setaffinity): {}; the trace's `task ... cpu=K` needs that CPU online in the guest",
                    cpu.unwrap_or(0),
                    errno_text(&e)
                )));
            }
            Ok(Some(a)) => {
                reap(w.pid);
                let e = io::Error::from_raw_os_error((-a.res) as i32);
                return Err(ReplayError::system(format!(
                    "worker (pid {pid}) cannot write its pid to {}: {}{}",
                    procs_path.display(),
                    errno_text(&e),
                    ebusy_hint(&e)
                )));
            }
            Ok(None) | Err(_) => {
                let st = reap(w.pid);
                return Err(ReplayError::system(format!(
                    "worker (pid {pid}) died while starting ({st})"
                )));
            }
        }
        w.fds.resize(self.files.len(), -1);
        let msg = format!(
            "task {} = pid {pid} in {}",
            p.reader().task_name(task),
            procs_path.display()
        );
        self.info(&msg);
        self.tasks.push(TaskState::Alive(w));
        Ok(())
    }

    /// The trace's `fork`: the parent's worker forks (a real `fork()`, so
    /// the child shares its anon pages copy-on-write, in its cgroup, with
    /// its affinity and oom_score_adj) and the child serves the controller
    /// on a socket of its own. The child's regions are the parent's live
    /// ones at the same addresses, in the parent's order, as the trace
    /// numbers them. The child's own pages (its stack) are not mlocked:
    /// mlockall is not inherited, and locking them again would lock the
    /// trace's pages the child shares.
    fn fork_task(&mut self, p: &Planner, task: u32, child: u32, first_region: u32, line: u64) -> Result<(), ReplayError> {
        if child as usize != self.tasks.len() {
            return Err(ReplayError::system(format!("internal: task id {child} out of order")));
        }
        let copies: Vec<(u64, u64)> = self
            .regions
            .iter()
            .filter(|r| r.task == task && !r.unmapped)
            .map(|r| (r.addr, r.pages))
            .collect();
        let alive = matches!(self.tasks.get(task as usize), Some(TaskState::Alive(_)));
        let mut pid = None;
        if alive {
            let mut sv = [-1i32; 2];
            // SAFETY: sv is a valid array of two ints.
            if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, sv.as_mut_ptr()) } != 0 {
                return Err(sys_err("socketpair(AF_UNIX, SOCK_SEQPACKET)", &last_err()));
            }
            // SAFETY: both descriptors were just created and are owned here.
            let (mine, theirs) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
            let started = match &self.board {
                Some(b) => b.slot(child)?,
                None => 0,
            };
            let cmd = Cmd { op: worker::CMD_FORK, a: started, ..Cmd::default() };
            let got = self.call(p, task, line, cmd, Some(theirs.as_raw_fd()), "fork")?;
            drop(theirs);
            if let Some(cpid) = got {
                match recv_ack(&mine) {
                    Ok(Some(a)) if a.res == 0 => {}
                    _ => {
                        return Err(ReplayError::system(format!(
                            "the forked worker of task {} (pid {cpid}) died while starting",
                            p.reader().task_name(child)
                        )))
                    }
                }
                let fds = match self.tasks.get(task as usize) {
                    Some(TaskState::Alive(w)) => w.fds.clone(),
                    _ => Vec::new(),
                };
                self.tasks.push(TaskState::Alive(Worker {
                    pid: cpid as i32,
                    sock: mine,
                    fds,
                    inflight: VecDeque::new(),
                    sent: 0,
                    cpu_start: None,
                }));
                pid = Some(cpid);
            }
        }
        if pid.is_none() {
            // The parent is dead: so is the child the trace forks from it.
            self.tasks.push(TaskState::Killed);
        }
        for (i, (addr, pages)) in copies.into_iter().enumerate() {
            self.add_region(first_region + i as u32, child, if pid.is_some() { addr } else { 0 }, pages)?;
        }
        let msg = match pid {
            Some(cpid) => format!("{}: task {} = pid {cpid}, forked by task {}", self.loc(p), p.reader().task_name(child), p.reader().task_name(task)),
            None => format!("{}: task {} is not forked: its parent {} is dead", self.loc(p), p.reader().task_name(child), p.reader().task_name(task)),
        };
        self.info(&msg);
        Ok(())
    }

    /// The worker's descriptor for `file`, installing it first if needed.
    /// `None` when the task is dead (the operation is skipped).
    fn worker_fd(
        &mut self,
        p: &Planner,
        task: u32,
        file: u32,
        line: u64,
    ) -> Result<Option<i32>, ReplayError> {
        let cfd = self
            .file(file)?
            .fd
            .as_ref()
            .ok_or_else(|| ReplayError::system(format!("internal: file {file} is used after its unlink")))?
            .as_raw_fd();
        let fi = file as usize;
        match self.tasks.get_mut(task as usize) {
            Some(TaskState::Alive(w)) => {
                if w.fds.len() <= fi {
                    w.fds.resize(fi + 1, -1);
                }
                if w.fds[fi] >= 0 {
                    return Ok(Some(w.fds[fi]));
                }
            }
            Some(_) => {
                self.skip(p, task)?;
                return Ok(None);
            }
            None => {
                return Err(ReplayError::system(format!(
                    "internal: unknown task id {task}"
                )))
            }
        }
        let cmd = Cmd {
            op: worker::CMD_INSTALL,
            ..Cmd::default()
        };
        let Some(fd) = self.call(
            p,
            task,
            line,
            cmd,
            Some(cfd),
            "install a file descriptor (SCM_RIGHTS)",
        )?
        else {
            return Ok(None);
        };
        if let Some(TaskState::Alive(w)) = self.tasks.get_mut(task as usize) {
            w.fds[fi] = fd as i32;
        }
        Ok(Some(fd as i32))
    }

    fn skip(&mut self, p: &Planner, task: u32) -> Result<(), ReplayError> {
        self.skipped += 1;
        if self.skipped == 1 {
            let msg = format!(
                "{}: task {} is dead: its operations are skipped",
                self.loc(p),
                p.reader().task_name(task)
            );
            self.say(&msg);
        }
        Ok(())
    }

    /// Sends a command and waits for its answer. `Ok(None)` if the worker
    /// died (recorded as killed).
    fn call(
        &mut self,
        p: &Planner,
        task: u32,
        line: u64,
        cmd: Cmd,
        fd: Option<i32>,
        what: &str,
    ) -> Result<Option<u64>, ReplayError> {
        // The worker answers its commands in order on one socket: the
        // answers of the task's accesses still in flight come before this
        // command's. `perform` drains before a non-access line, but an
        // access may need a call of its own first (the descriptor of a
        // file the task has not used yet, `worker_fd`) while the task's
        // earlier accesses are in the pipeline.
        while matches!(self.tasks.get(task as usize), Some(TaskState::Alive(w)) if !w.inflight.is_empty()) {
            self.collect_one(p, task)?;
        }
        let sent = match self.tasks.get_mut(task as usize) {
            Some(TaskState::Alive(w)) => {
                w.sent = w.sent.wrapping_add(1);
                send_cmd(&w.sock, &cmd, fd)
            }
            Some(_) => {
                self.skip(p, task)?;
                return Ok(None);
            }
            None => {
                return Err(ReplayError::system(format!(
                    "internal: unknown task id {task}"
                )))
            }
        };
        if sent.is_err() {
            self.worker_died(p, task, line);
            return Ok(None);
        }
        let ack = match self.tasks.get(task as usize) {
            Some(TaskState::Alive(w)) => recv_ack(&w.sock),
            _ => Ok(None),
        };
        match ack {
            Ok(Some(a)) if a.res >= 0 => Ok(Some(a.val)),
            Ok(Some(a)) => {
                let e = io::Error::from_raw_os_error((-a.res) as i32);
                Err(ReplayError::system(format!(
                    "task {} (pid {}): {what} failed: {}",
                    p.reader().task_name(task),
                    self.pid(task),
                    errno_text(&e)
                )))
            }
            Ok(None) | Err(_) => {
                self.worker_died(p, task, line);
                Ok(None)
            }
        }
    }

    fn pid(&self, task: u32) -> i32 {
        match self.tasks.get(task as usize) {
            Some(TaskState::Alive(w)) => w.pid,
            _ => -1,
        }
    }

    /// Sends an access command without waiting (at most [`PIPELINE`] in
    /// flight).
    fn pipelined(
        &mut self,
        p: &Planner,
        task: u32,
        line: u64,
        cmd: Cmd,
    ) -> Result<(), ReplayError> {
        let full = match self.tasks.get(task as usize) {
            Some(TaskState::Alive(w)) => w.inflight.len() >= PIPELINE,
            Some(_) => return self.skip(p, task),
            None => {
                return Err(ReplayError::system(format!(
                    "internal: unknown task id {task}"
                )))
            }
        };
        if full {
            self.collect_one(p, task)?;
        }
        let sent = match self.tasks.get_mut(task as usize) {
            Some(TaskState::Alive(w)) => {
                w.sent = w.sent.wrapping_add(1);
                let r = send_cmd(&w.sock, &cmd, None);
                if r.is_ok() {
                    w.inflight.push_back((line, cmd.op));
                }
                r
            }
            _ => return self.skip(p, task),
        };
        if sent.is_err() {
            self.worker_died(p, task, line);
            return Ok(());
        }
        if self.cfg.parallel {
            // The next line may start only once this one has.
            self.wait_started(p, task, line);
        } else {
            self.busy = Some(task);
        }
        Ok(())
    }

    /// Receives the oldest in-flight answer of `task`.
    fn collect_one(&mut self, p: &Planner, task: u32) -> Result<(), ReplayError> {
        let (ack, line, op) = match self.tasks.get_mut(task as usize) {
            Some(TaskState::Alive(w)) => {
                let Some((line, op)) = w.inflight.pop_front() else {
                    return Ok(());
                };
                (recv_ack(&w.sock), line, op)
            }
            _ => return Ok(()),
        };
        match ack {
            Ok(Some(a)) => {
                if a.res < 0 {
                    let e = io::Error::from_raw_os_error((-a.res) as i32);
                    let what = match op {
                        worker::CMD_PREAD => "pread",
                        worker::CMD_PWRITE => "pwrite",
                        worker::CMD_LOAD => "load",
                        _ => "store",
                    };
                    return Err(ReplayError::system(format!(
                        "{}:{line}: task {} (pid {}): {what} failed: {}",
                        p.reader().name(),
                        p.reader().task_name(task),
                        self.pid(task),
                        errno_text(&e)
                    )));
                }
                Ok(())
            }
            Ok(None) | Err(_) => {
                self.worker_died(p, task, line);
                Ok(())
            }
        }
    }

    /// Waits until every command in flight is acknowledged.
    fn drain(&mut self, p: &Planner) -> Result<(), ReplayError> {
        if let Some(t) = self.busy.take() {
            while matches!(self.tasks.get(t as usize), Some(TaskState::Alive(w)) if !w.inflight.is_empty())
            {
                self.collect_one(p, t)?;
            }
        }
        if self.cfg.parallel {
            for t in 0..self.tasks.len() as u32 {
                while matches!(self.tasks.get(t as usize), Some(TaskState::Alive(w)) if !w.inflight.is_empty())
                {
                    self.collect_one(p, t)?;
                }
            }
        }
        Ok(())
    }

    /// `--parallel`: waits until `task`'s worker has started the last
    /// command sent to it (its counter on the start board reaches the
    /// commands sent). A worker that dies first is reaped and recorded.
    fn wait_started(&mut self, p: &Planner, task: u32, line: u64) {
        let Some(board) = &self.board else { return };
        let (want, fd) = match self.tasks.get(task as usize) {
            Some(TaskState::Alive(w)) => (w.sent, w.sock.as_raw_fd()),
            _ => return,
        };
        let Ok(slot) = board.slot(task) else { return };
        loop {
            // SAFETY: slot is a u32 in the board's live shared mapping.
            let at = unsafe { &*(slot as *const std::sync::atomic::AtomicU32) };
            let v = at.load(std::sync::atomic::Ordering::Acquire);
            if v.wrapping_sub(want) as i32 >= 0 {
                return;
            }
            let ts = libc::timespec { tv_sec: 0, tv_nsec: 50_000_000 };
            // SAFETY: FUTEX_WAIT on a u32 of a shared mapping (not
            // private: the worker is another process); returns when woken,
            // when the value differs from v, or after the timeout.
            unsafe {
                libc::syscall(libc::SYS_futex, slot as *const u32, libc::FUTEX_WAIT, v, &ts as *const libc::timespec)
            };
            // A worker that died never starts its command: its socket hangs up.
            let mut pfd = libc::pollfd { fd, events: 0, revents: 0 };
            // SAFETY: one valid pollfd, no wait.
            let n = unsafe { libc::poll(&mut pfd, 1, 0) };
            if n > 0 && pfd.revents & (libc::POLLHUP | libc::POLLERR) != 0 {
                self.worker_died(p, task, line);
                return;
            }
        }
    }

    /// A worker's socket broke: reap it and record how it died.
    fn worker_died(&mut self, p: &Planner, task: u32, line: u64) {
        let Some(TaskState::Alive(w)) = self.tasks.get_mut(task as usize) else {
            return;
        };
        let pid = w.pid;
        let first = w.inflight.front().map_or(line, |x| x.0);
        self.tasks[task as usize] = TaskState::Killed;
        if self.busy == Some(task) {
            self.busy = None;
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        let signal = if r == pid && libc::WIFSIGNALED(status) {
            libc::WTERMSIG(status)
        } else {
            0
        };
        let how = if signal != 0 {
            format!(
                "killed by signal {signal}{}",
                if signal == libc::SIGKILL {
                    " (OOM killer?)"
                } else {
                    ""
                }
            )
        } else if r == pid && libc::WIFEXITED(status) {
            format!("exited with status {}", libc::WEXITSTATUS(status))
        } else {
            "gone".to_string()
        };
        let name = p.reader().task_name(task).to_string();
        let msg = format!(
            "{}:{first}..{line}: task {name} (pid {pid}) {how}; its further operations are skipped",
            p.reader().name()
        );
        self.say(&format!("result: {msg}"));
        self.killed.push(Killed {
            task: name,
            pid,
            signal,
            line: first,
        });
    }

    /// `unlink` of a data file: the name goes, then every descriptor of
    /// it (the workers' first, then the controller's), so that only the
    /// mappings keep the inode.
    fn unlink_file(&mut self, p: &Planner, file: u32, line: u64) -> Result<(), ReplayError> {
        let name = p.reader().file_name(file).to_string();
        // A memfd has no name: its `unlink` closes the descriptors only.
        let path = match self.file(file)?.kind {
            mglru_trace::FileKind::Disk => self.cfg.data_dir.join(data_file_name(file, &name)),
            mglru_trace::FileKind::Tmpfs => self.cfg.tmpfs_dir.join(data_file_name(file, &name)),
            mglru_trace::FileKind::Memfd => PathBuf::from("memfd"),
        };
        if self.file(file)?.kind != mglru_trace::FileKind::Memfd {
            std::fs::remove_file(&path).map_err(|e| sys_err(format!("unlink {}", path.display()), &e))?;
        }
        let fi = file as usize;
        for t in 0..self.tasks.len() {
            let fd = match &self.tasks[t] {
                TaskState::Alive(w) => w.fds.get(fi).copied().unwrap_or(-1),
                _ => -1,
            };
            if fd < 0 {
                continue;
            }
            let cmd = Cmd {
                op: worker::CMD_CLOSE,
                a: fd as u64,
                ..Cmd::default()
            };
            self.call(p, t as u32, line, cmd, None, "close")?;
            if let Some(TaskState::Alive(w)) = self.tasks.get_mut(t) {
                w.fds[fi] = -1;
            }
        }
        self.files[fi].fd = None;
        let msg = format!("{}: unlinked {}", self.loc(p), path.display());
        self.info(&msg);
        Ok(())
    }

    fn exit_task(&mut self, p: &Planner, task: u32, line: u64) -> Result<(), ReplayError> {
        if !matches!(self.tasks.get(task as usize), Some(TaskState::Alive(_))) {
            return self.skip(p, task);
        }
        self.note_task_cpu(task);
        let cmd = Cmd {
            op: worker::CMD_EXIT,
            ..Cmd::default()
        };
        if self.call(p, task, line, cmd, None, "exit")?.is_none() {
            return Ok(());
        }
        let pid = self.pid(task);
        // exit_mmap runs before the worker becomes a zombie: once waitpid
        // returns its memory is freed.
        let st = reap(pid);
        if let Some(t) = self.tasks.get_mut(task as usize) {
            *t = TaskState::Exited;
        }
        let msg = format!("task {} (pid {pid}) {st}", p.reader().task_name(task));
        self.info(&msg);
        Ok(())
    }

    fn kernel_memcg_id(&mut self, memcg: u16, path: &Path) -> Result<u32, ReplayError> {
        if let Some(id) = self.memcg(memcg)?.kernel_id {
            return Ok(id);
        }
        let dump = sysfs::read_req(path)?;
        let m = self.memcg(memcg)?;
        let id = sysfs::lru_gen_memcg_id(&dump, &m.cg_path).ok_or_else(|| {
            ReplayError::system(format!(
                "memcg {} ({}) has no `memcg ID {}` line in {}",
                m.name,
                m.dir.display(),
                m.cg_path,
                path.display()
            ))
        })?;
        self.memcgs[usize::from(memcg)].kernel_id = Some(id);
        Ok(id)
    }

    fn settle(&self) {
        if self.cfg.settle_ms > 0 {
            sleep_ns(self.cfg.settle_ms.saturating_mul(1_000_000));
        }
    }

    /// Folds the per-CPU differences into /proc/vmstat where the kernel
    /// has `stat_refresh` (a failed write is counted, not fatal).
    fn refresh_vmstat(&mut self) {
        if !self.refresh.file {
            return;
        }
        self.refresh.writes += 1;
        if let Err(e) = self.sys.write(&self.sys.path(sysfs::STAT_REFRESH), "1") {
            self.refresh.failed += 1;
            self.refresh.last_error = Some(errno_text(&e));
        }
    }

    /// kswapd0's CPU time in clock ticks (`/proc/PID/stat`), found by
    /// its `comm`; None on a fake system or where /proc cannot say.
    /// A worker's utime and stime in clock ticks (None without /proc).
    fn worker_ticks(&self, pid: i32) -> Option<(u64, u64)> {
        if self.sys.is_fake() || pid <= 0 {
            return None;
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        sysfs::parse_stat_times(&stat)
    }

    /// Records `task`'s CPU seconds over the workload so far (at its exit
    /// or at the end of the run).
    fn note_task_cpu(&mut self, task: u32) {
        let Some(TaskState::Alive(w)) = self.tasks.get(task as usize) else { return };
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let v = match (self.worker_ticks(w.pid), w.cpu_start.unwrap_or((0, 0))) {
            (Some((u, s)), (u0, s0)) if hz > 0 && u >= u0 && s >= s0 => {
                Some(((u - u0) as f64 / hz as f64, (s - s0) as f64 / hz as f64))
            }
            _ => None,
        };
        if self.task_cpu.len() <= task as usize {
            self.task_cpu.resize(task as usize + 1, None);
        }
        self.task_cpu[task as usize] = v;
    }

    fn kswapd_cpu_ticks(&self) -> Option<u64> {
        if self.sys.is_fake() {
            return None;
        }
        for e in std::fs::read_dir("/proc").ok()?.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_digit())) else { continue };
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim() == "kswapd0" {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                return sysfs::parse_stat_cpu_ticks(&stat);
            }
        }
        None
    }

    /// The PSI memory totals now: `/proc/pressure/memory`, then each
    /// trace memcg's `memory.pressure` (the root memcg, first in `memcgs`,
    /// is the system's and gets None).
    fn read_psi_all(&self) -> Vec<Option<sysfs::PsiTotals>> {
        let mut v = vec![sysfs::read_psi(&self.sys.path(sysfs::PSI_MEMORY))];
        for m in self.memcgs.iter().skip(1) {
            v.push(sysfs::read_psi(&m.dir.join("memory.pressure")));
        }
        v
    }

    fn read_vmstat(&self) -> Result<Vec<(String, u64)>, ReplayError> {
        Ok(sysfs::parse_kv(&sysfs::read_req(
            &self.sys.path(sysfs::VMSTAT),
        )?))
    }

    fn read_zones(&self) -> Result<Vec<sysfs::ZoneInfo>, ReplayError> {
        Ok(sysfs::read_opt(&self.sys.path(sysfs::ZONEINFO))?
            .map(|t| sysfs::parse_zoneinfo(&t))
            .unwrap_or_default())
    }

    fn read_meminfo(&self) -> Result<Vec<(String, u64)>, ReplayError> {
        Ok(sysfs::read_opt(&self.sys.path(sysfs::MEMINFO))?
            .map(|t| sysfs::parse_meminfo(&t))
            .unwrap_or_default())
    }

    /// Before the first non-definition operation: clean, uncached files
    /// and the start snapshot.
    fn begin(&mut self) -> Result<(), ReplayError> {
        if self.cfg.extfrag {
            // The trace buffer is allocated here, before the start
            // snapshot (its pages are not the workload's).
            self.extfrag = Some(crate::extfrag::Tracer::setup(&self.sys)?);
        }
        if !self.cfg.ftrace.funcs.is_empty() || !self.cfg.ftrace.events.is_empty() {
            self.ftrace = Some(crate::funcgraph::Tracer::setup(&self.sys, &self.cfg.ftrace)?);
        }
        // SAFETY: plain system call.
        unsafe { libc::sync() };
        let dc = self.sys.path(sysfs::DROP_CACHES);
        self.sys.write_or_err(&dc, "3")?;
        self.settle();
        self.refresh_vmstat();
        let vmstat = self.read_vmstat()?;
        self.refresh.node_stats = sysfs::reclaim_counters_are_node_stats(&vmstat);
        self.refresh.samples = self.refresh.file && self.refresh.node_stats == Some(true);
        let zones = self.read_zones()?;
        let meminfo = self.read_meminfo()?;
        let pagetypeinfo = crate::extfrag::read_pagetypeinfo(&self.sys);
        for i in 0..self.memcgs.len() {
            let s = sysfs::memcg_snapshot(&self.memcgs[i].dir)?;
            self.memcgs[i].start = Some(s);
        }
        self.shield_from_oom();
        self.info("start: page cache written back and dropped, start snapshot taken");
        if self.cfg.sync_stats_flush {
            self.sync_stats_flush()?;
        }
        let kswapd_ticks = self.kswapd_cpu_ticks();
        let psi = self.read_psi_all();
        for t in 0..self.tasks.len() {
            let ticks = match &self.tasks[t] {
                TaskState::Alive(w) => self.worker_ticks(w.pid),
                _ => None,
            };
            if let TaskState::Alive(w) = &mut self.tasks[t] {
                w.cpu_start = ticks;
            }
        }
        if let Some(t) = self.extfrag.as_mut() {
            t.start()?;
        }
        if let Some(t) = self.ftrace.as_mut() {
            t.start()?;
        }
        self.start = Some(Start {
            vmstat,
            zones,
            meminfo,
            kswapd_ticks,
            psi,
            pagetypeinfo,
            at: Instant::now(),
        });
        Ok(())
    }

    /// Wait for the kernel's periodic memcg statistics flush. A probe memcg
    /// gets a few anonymous pages charged — far fewer updates than the
    /// `MEMCG_CHARGE_BATCH * nr_cpus` that would let reading its
    /// `memory.stat` flush it — so its `anon` stays 0 until the periodic
    /// flush, which flushes every memcg with updates. The moment `anon`
    /// turns non-zero is a flush; the next comes `FLUSH_TIME` (2 s) later.
    fn sync_stats_flush(&mut self) -> Result<(), ReplayError> {
        const PROBE_PAGES: usize = 4;
        const PAGE: usize = 4096;
        let root = self.cfg.cgroup_root.clone();
        let probe = root.join("mglru-replay-flush-probe");
        let own = root.join(REPLAYER_CGROUP);
        match std::fs::create_dir(&probe) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(sys_err(format!("mkdir {}", probe.display()), &e)),
        }
        let pid = std::process::id().to_string();
        self.sys.write_or_err(&probe.join("cgroup.procs"), &pid)?;
        // SAFETY: a fresh private anonymous mapping, unmapped below.
        let mem = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                PROBE_PAGES * PAGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if mem == libc::MAP_FAILED {
            let e = last_err();
            let _ = self.sys.write(&own.join("cgroup.procs"), &pid);
            return Err(sys_err("mmap (statistics flush probe)", &e));
        }
        for i in 0..PROBE_PAGES {
            // SAFETY: inside the mapping just made.
            unsafe { std::ptr::write_volatile((mem as *mut u8).add(i * PAGE), 1) };
        }
        self.sys.write_or_err(&own.join("cgroup.procs"), &pid)?;
        let stat = probe.join("memory.stat");
        let t0 = Instant::now();
        let mut seen = false;
        while t0.elapsed() < Duration::from_secs(6) {
            let anon = sysfs::read_req(&stat)
                .map(|s| sysfs::parse_kv(&s).into_iter().find(|(k, _)| k == "anon").map_or(0, |(_, v)| v))
                .unwrap_or(0);
            if anon > 0 {
                seen = true;
                break;
            }
            sleep_ns(500_000);
        }
        let waited = t0.elapsed().as_secs_f64();
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(mem, PROBE_PAGES * PAGE) };
        let _ = std::fs::remove_dir(&probe);
        if seen {
            self.info(&format!("start: a memcg statistics flush seen after {waited:.3} s"));
            self.flush_synced = Some(waited);
            Ok(())
        } else {
            self.warn("no periodic memcg statistics flush seen in 6 s: the run starts unsynchronised");
            Ok(())
        }
    }

    fn finish(&mut self, p: &Planner) -> Result<(), ReplayError> {
        self.drain(p)?;
        for t in 0..self.tasks.len() as u32 {
            self.note_task_cpu(t);
        }
        self.report_machine(p);
        if self.start.is_none() {
            self.begin()?;
        }
        self.settle();
        self.refresh_vmstat();
        let end = self.read_vmstat()?;
        let end_psi = self.read_psi_all();
        let end_meminfo = self.read_meminfo()?;
        let end_zones = self.read_zones()?;
        let end_pagetypeinfo = crate::extfrag::read_pagetypeinfo(&self.sys);
        let extfrag = self.extfrag.as_mut().map(|t| t.stop());
        let ftrace = self.ftrace.as_mut().map(|t| t.stop());
        let wall = self
            .start
            .as_ref()
            .map_or(0.0, |s| s.at.elapsed().as_secs_f64());
        let setup = self
            .start
            .as_ref()
            .map_or(0.0, |s| s.at.duration_since(self.setup_at).as_secs_f64());
        let mut ends = Vec::new();
        for m in &self.memcgs {
            ends.push(sysfs::memcg_snapshot(&m.dir)?);
        }
        let lru_gen = sysfs::read_opt(&self.sys.path(sysfs::LRU_GEN_DEBUGFS))?;
        let start_vm = self
            .start
            .as_ref()
            .map(|s| s.vmstat.clone())
            .unwrap_or_default();

        let mut j = Json::new();
        j.begin_obj(None);
        j.str("kernel", &self.kernel);
        match &self.lru_gen_enabled {
            Some(v) => j.str("lru_gen_enabled", v),
            None => j.null("lru_gen_enabled"),
        }
        j.str("trace", p.reader().name());
        j.int("memory", p.memory().unwrap_or(mglru_trace::DEFAULT_MEMORY));
        match p.swap() {
            Some((b, s)) => {
                j.begin_obj(Some("swap"));
                j.int("bytes", b);
                j.bool("sync", s);
                j.end_obj();
            }
            None => j.null("swap"),
        }
        j.begin_obj(Some("vmstat"));
        for (k, v) in sysfs::vmstat_delta(&start_vm, &end) {
            j.int(&k, v);
        }
        j.end_obj();
        j.begin_obj(Some("memcg"));
        for (m, s) in self.memcgs.iter().zip(&ends) {
            sysfs::json_memcg(&mut j, &m.name, s);
        }
        j.end_obj();
        j.begin_obj(Some("memcg_start"));
        for m in &self.memcgs {
            if let Some(s) = &m.start {
                sysfs::json_memcg(&mut j, &m.name, s);
            }
        }
        j.end_obj();
        match &lru_gen {
            Some(t) => j.str("lru_gen", t),
            None => j.null("lru_gen"),
        }
        // Free pages when the workload started (after the files were
        // created and the caches dropped): what a trace without a memcg
        // limit really had to work with.
        if let Some((_, v)) = start_vm.iter().find(|(k, _)| k == "nr_free_pages") {
            j.int("start_nr_free_pages", *v);
        }
        // The gauges (`nr_*`) at the start, beside their end values in
        // `vmstat`, and `/proc/meminfo` at both ends (kB): where the
        // guest's memory went during the run, including pages no counter
        // names (a RAM disk's, for one).
        j.begin_obj(Some("start_vmstat_gauges"));
        for (k, v) in start_vm.iter().filter(|(k, _)| k.starts_with("nr_")) {
            j.int(k, *v);
        }
        j.end_obj();
        for (name, m) in [
            ("meminfo_start", self.start.as_ref().map_or(&[][..], |s| &s.meminfo[..])),
            ("meminfo_end", &end_meminfo[..]),
        ] {
            j.begin_obj(Some(name));
            for (k, v) in m {
                j.int(k, *v);
            }
            j.end_obj();
        }
        // The zones at the start: how the free memory was split between
        // them, and their watermarks and lowmem reserves (the model's
        // zones are set from these for the traces that use the start's
        // free memory).
        let zones: &[sysfs::ZoneInfo] = self.start.as_ref().map_or(&[], |s| &s.zones);
        json_zones(&mut j, "start_zones", zones);
        json_zones(&mut j, "end_zones", &end_zones);
        // The migratetypes of the pageblocks and their free chunks at both
        // ends (watermark boosting's start layout: validation/README.md
        // "Migratetype fallbacks").
        let start_pti = self.start.as_ref().map_or(&None, |s| &s.pagetypeinfo);
        crate::extfrag::json_pagetypeinfo(&mut j, "pagetypeinfo_start", start_pti);
        crate::extfrag::json_pagetypeinfo(&mut j, "pagetypeinfo_end", &end_pagetypeinfo);
        // kswapd0's CPU time over the workload (clock ticks, USER_HZ):
        // how fast the guest's kswapd reclaims, for the model's kswapd.
        // SAFETY: plain libc call without pointers.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        match (self.start.as_ref().and_then(|s| s.kswapd_ticks), self.kswapd_cpu_ticks()) {
            (Some(a), Some(b)) if b >= a && hz > 0 => j.float("kswapd_cpu_seconds", (b - a) as f64 / hz as f64),
            _ => j.null("kswapd_cpu_seconds"),
        }
        // Memory pressure over the workload (PSI, microseconds stalled:
        // `some` = at least one task, `full` = every non-idle task), from
        // the start snapshot to the end one (after the settle): the
        // system's and each trace memcg's. null without PSI.
        let start_psi: &[Option<sysfs::PsiTotals>] = self.start.as_ref().map_or(&[], |s| &s.psi);
        let psi: Vec<Option<sysfs::PsiTotals>> = (0..end_psi.len())
            .map(|i| sysfs::psi_delta(start_psi.get(i).copied().flatten(), end_psi[i]))
            .collect();
        if psi.iter().all(Option::is_none) {
            j.null("psi");
        } else {
            let put = |j: &mut Json, k: &str, v: Option<sysfs::PsiTotals>| match v {
                Some(t) => {
                    j.begin_obj(Some(k));
                    j.int("some_us", t.some_us);
                    j.int("full_us", t.full_us);
                    j.end_obj();
                }
                None => j.null(k),
            };
            j.begin_obj(Some("psi"));
            put(&mut j, "system", psi[0]);
            j.begin_obj(Some("memcg"));
            for (m, v) in self.memcgs.iter().skip(1).zip(psi.iter().skip(1)) {
                put(&mut j, &m.name, *v);
            }
            j.end_obj();
            j.end_obj();
        }
        j.float("wall_seconds", wall);
        j.float("setup_seconds", setup);
        j.str("replay_schedule", if self.cfg.parallel { "parallel" } else { "serial" });
        // Each task's CPU time over the workload (/proc/PID/stat of its
        // worker), in seconds; null where unknown (killed, no /proc).
        j.begin_obj(Some("task_cpu_seconds"));
        for t in 0..self.tasks.len() {
            let name = p.reader().task_name(t as u32).to_string();
            match self.task_cpu.get(t).copied().flatten() {
                Some((u, s)) => {
                    j.begin_obj(Some(&name));
                    j.float("utime", u);
                    j.float("stime", s);
                    j.end_obj();
                }
                None => j.null(&name),
            }
        }
        j.end_obj();
        match self.flush_synced {
            Some(w) => j.float("stats_flush_synced_after_seconds", w),
            None => j.null("stats_flush_synced_after_seconds"),
        }
        j.begin_obj(Some("time_profile"));
        j.int("every_ns", self.profile.every_ns);
        j.int_arr("lines", self.profile.lines.iter().copied());
        j.int_arr("ns", self.profile.ns.iter().copied());
        j.end_obj();
        j.begin_obj(Some("vmstat_profile"));
        j.int("every_ns", self.vmstat_profile.every_ns);
        j.int_arr("lines", self.vmstat_profile.lines.iter().copied());
        j.int_arr("ns", self.vmstat_profile.ns.iter().copied());
        j.begin_obj(Some("counters"));
        let sampled = !self.vmstat_profile.ns.is_empty();
        for (i, name) in VMSTAT_PROFILED.iter().enumerate() {
            if sampled && !self.vmstat_profile.seen[i] {
                // not in this kernel's /proc/vmstat: left out, not zeros
                self.absent.insert(format!("/proc/vmstat:{name}"));
                continue;
            }
            j.int_arr(name, self.vmstat_profile.values.iter().map(|row| row[i]));
        }
        j.end_obj();
        // Per populated zone (as the first sample had them): free pages,
        // and per CPU its list's count and high, one value per sample.
        j.begin_obj(Some("zones"));
        let first: Vec<(String, usize)> = self.vmstat_profile.zones.first().map_or(Vec::new(), |z| {
            z.iter().filter(|z| z.managed > 0).map(|z| (z.name.clone(), z.pcp_cpu.len())).collect()
        });
        for (name, ncpu) in &first {
            let zone_at = |s: &Vec<sysfs::ZoneInfo>| s.iter().find(|z| &z.name == name).cloned().unwrap_or_default();
            j.begin_obj(Some(name));
            j.int_arr("free", self.vmstat_profile.zones.iter().map(|s| zone_at(s).free));
            for c in 0..*ncpu {
                j.int_arr(
                    &format!("pcp_count_cpu{c}"),
                    self.vmstat_profile.zones.iter().map(|s| zone_at(s).pcp_cpu.get(c).map_or(0, |x| x.0)),
                );
                j.int_arr(
                    &format!("pcp_high_cpu{c}"),
                    self.vmstat_profile.zones.iter().map(|s| zone_at(s).pcp_cpu.get(c).map_or(0, |x| x.1)),
                );
            }
            j.end_obj();
        }
        j.end_obj();
        j.end_obj();
        j.int("operations", self.ops);
        j.int("skipped_operations", self.skipped);
        j.int("soft_error_count", self.soft_count);
        j.begin_arr("soft_errors");
        for s in &self.soft {
            j.begin_obj(None);
            j.int("line", s.line);
            j.str("op", &s.op);
            j.str("error", &s.error);
            j.end_obj();
        }
        j.end_arr();
        // A zram swap device's mm_stat at the end (orig_data_size,
        // compr_data_size, mem_used_total, mem_limit, mem_used_max,
        // same_pages, pages_compacted, huge_pages, huge_pages_since).
        if let Some(t) = sysfs::read_opt(&self.sys.path("/sys/block/zram0/mm_stat"))? {
            let v: Vec<u64> = t.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            j.int_arr("zram_mm_stat", v);
        }
        // `stat` statements' reads and `reclaim` statements' results.
        j.begin_arr("stats");
        for s in &self.stats {
            j.begin_obj(None);
            j.int("line", s.line);
            j.str("memcg", &s.memcg);
            for (k, v) in [
                ("current", s.snap.current),
                ("peak", s.snap.peak),
                ("swap_current", s.snap.swap_current),
                ("swap_peak", s.swap_peak),
                ("peak_since_reset", s.peak_since_reset),
                ("swap_peak_since_reset", s.swap_peak_since_reset),
            ] {
                if let Some(v) = v {
                    j.int(k, v);
                }
            }
            if let Some(ev) = &s.snap.events {
                j.counters("events", ev);
            }
            if let Some(st) = &s.snap.stat {
                j.counters("stat", st);
            }
            j.end_obj();
        }
        j.end_arr();
        j.begin_arr("reclaims");
        for r in &self.reclaims {
            j.begin_obj(None);
            j.int("line", r.line);
            j.str("memcg", &r.memcg);
            j.int("bytes", r.bytes);
            j.int("result", r.result);
            j.end_obj();
        }
        j.end_arr();
        j.begin_arr("killed_tasks");
        for k in &self.killed {
            j.begin_obj(None);
            j.str("task", &k.task);
            j.int("pid", k.pid);
            j.int("signal", k.signal);
            j.int("line", k.line);
            j.end_obj();
        }
        j.end_arr();
        // What this kernel lacks or has read-only of the files the
        // replayer uses (the 6.12 reference has all of them), and how
        // /proc/vmstat was made exact.
        j.begin_arr("absent_files");
        for f in &self.absent {
            j.elem_str(f);
        }
        j.end_arr();
        j.begin_arr("read_only_files");
        for f in &self.read_only {
            j.elem_str(f);
        }
        j.end_arr();
        j.begin_obj(Some("stat_refresh"));
        j.bool("file", self.refresh.file);
        j.bool("before_snapshots", self.refresh.file);
        j.bool("before_profile_samples", self.refresh.samples);
        match self.refresh.node_stats {
            Some(v) => j.bool("reclaim_counters_node_stats", v),
            None => j.null("reclaim_counters_node_stats"),
        }
        j.int("writes", self.refresh.writes);
        j.int("failed_writes", self.refresh.failed);
        match &self.refresh.last_error {
            Some(e) => j.str("last_error", e),
            None => j.null("last_error"),
        }
        j.end_obj();
        if let Some(r) = &extfrag {
            r.json(&mut j);
        }
        if let Some(r) = &ftrace {
            r.json(&mut j);
        }
        j.end_obj();
        let text = j.finish();
        let _ = writeln!(self.out, "{RESULT}{text}");
        let _ = self.out.flush();

        // The tasks still alive exit after the end snapshot.
        for t in 0..self.tasks.len() {
            if let TaskState::Alive(w) = &self.tasks[t] {
                let cmd = Cmd {
                    op: worker::CMD_EXIT,
                    ..Cmd::default()
                };
                let _ = send_cmd(&w.sock, &cmd, None);
                let _ = recv_ack(&w.sock);
                reap(w.pid);
                self.tasks[t] = TaskState::Exited;
            }
        }
        Ok(())
    }

    /// After a fatal error: SIGKILL and reap every worker.
    fn kill_all(&mut self) {
        for t in &mut self.tasks {
            if let TaskState::Alive(w) = t {
                // SAFETY: signalling our own child.
                unsafe { libc::kill(w.pid, libc::SIGKILL) };
                reap(w.pid);
                *t = TaskState::Killed;
            }
        }
    }
}

fn ebusy_hint(e: &io::Error) -> &'static str {
    if e.raw_os_error() == Some(libc::EBUSY) {
        " (cgroup v2 forbids processes in a memcg that has child memcgs with the memory controller: \
         a trace task cannot live in a memcg that is also a parent)"
    } else {
        ""
    }
}

fn pages_bytes(pages: u64) -> Result<u64, ReplayError> {
    pages
        .checked_mul(PAGE_SIZE)
        .ok_or_else(|| ReplayError::system(format!("{pages} pages do not fit in 64-bit bytes")))
}

fn sleep_ns(ns: u64) {
    let mut ts = libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        let mut rem = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: valid timespec pointers.
        let r = unsafe { libc::nanosleep(&ts, &mut rem) };
        if r == 0 || last_err().raw_os_error() != Some(libc::EINTR) {
            return;
        }
        ts = rem;
    }
}

/// Waits for a child and describes how it ended.
/// Waits for a process that is not our child to exit (`pidfd_open` and
/// `poll`).
fn wait_exit(pid: i32) -> String {
    // SAFETY: plain system call.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        // ESRCH: already gone.
        return "exited".to_string();
    }
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: pfd is valid for the call; fd is ours and closed after.
    unsafe {
        while libc::poll(&mut pfd, 1, -1) < 0 && last_err().raw_os_error() == Some(libc::EINTR) {}
        libc::close(fd);
    }
    "exited".to_string()
}

fn reap(pid: i32) -> String {
    let mut status = 0;
    loop {
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        if r < 0 && last_err().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if r < 0 && last_err().raw_os_error() == Some(libc::ECHILD) {
            // A worker a worker forked: not ours to wait for (its parent
            // ignores SIGCHLD, so the kernel reaps it). Its pidfd becomes
            // readable when it has exited, after its memory is gone.
            return wait_exit(pid);
        }
        return "could not be waited for".to_string();
    }
    if libc::WIFSIGNALED(status) {
        format!("was killed by signal {}", libc::WTERMSIG(status))
    } else {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    }
}

/// Sends one command, with `fd` attached as `SCM_RIGHTS` if given.
fn send_cmd(sock: &OwnedFd, cmd: &Cmd, fd: Option<i32>) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: (cmd as *const Cmd).cast_mut().cast(),
        iov_len: size_of::<Cmd>(),
    };
    let mut cbuf = [0u64; 8];
    // SAFETY: msghdr is plain old data.
    let mut msg: libc::msghdr = unsafe { zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if let Some(fd) = fd {
        // SAFETY: cbuf holds CMSG_SPACE(4) bytes (64 >= 24); the header is
        // written through the CMSG macros inside it.
        unsafe {
            msg.msg_control = cbuf.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(size_of::<i32>() as u32) as _;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(size_of::<i32>() as u32) as _;
            ptr::write_unaligned(libc::CMSG_DATA(c).cast::<i32>(), fd);
        }
    }
    loop {
        // SAFETY: msg points at valid buffers that outlive the call.
        let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n == size_of::<Cmd>() as isize {
            return Ok(());
        }
        let e = last_err();
        if n < 0 && e.raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return Err(if n < 0 {
            e
        } else {
            io::Error::new(io::ErrorKind::WriteZero, "short send")
        });
    }
}

/// Receives one answer; `Ok(None)` when the worker is gone.
fn recv_ack(sock: &OwnedFd) -> io::Result<Option<Ack>> {
    let mut ack = Ack::default();
    loop {
        // SAFETY: ack is a valid buffer of the given size.
        let n = unsafe {
            libc::recv(
                sock.as_raw_fd(),
                (&mut ack as *mut Ack).cast(),
                size_of::<Ack>(),
                0,
            )
        };
        if n == size_of::<Ack>() as isize {
            return Ok(Some(ack));
        }
        if n == 0 {
            return Ok(None);
        }
        let e = last_err();
        if n < 0 && e.raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n < 0 && e.raw_os_error() == Some(libc::ECONNRESET) {
            return Ok(None);
        }
        return Err(if n < 0 {
            e
        } else {
            io::Error::new(io::ErrorKind::UnexpectedEof, "short answer")
        });
    }
}

/// The zones of `/proc/zoneinfo` as a JSON array (omitted when empty).
fn json_zones(j: &mut Json, key: &str, zones: &[sysfs::ZoneInfo]) {
    if zones.is_empty() {
        return;
    }
    j.begin_arr(key);
    for z in zones {
        j.begin_obj(None);
        j.str("name", &z.name);
        j.int("free", z.free);
        j.int("min", z.min);
        j.int("low", z.low);
        j.int("high", z.high);
        j.int("managed", z.managed);
        j.int_arr("protection", z.protection.iter().copied());
        j.int("pcp", z.pcp);
        j.end_obj();
    }
    j.end_arr();
}

#[cfg(test)]
mod time_profile_tests {
    use super::*;

    #[test]
    fn samples_are_spaced_and_bounded() {
        let ms = 1_000_000;
        let mut p = TimeProfile::default();
        // One sample per 10 ms at most: lines 1..=3 within 10 ms give one.
        p.note(1, 0);
        p.note(2, 5 * ms);
        p.note(3, 9 * ms);
        p.note(4, 10 * ms);
        assert_eq!(p.lines, vec![1, 4]);
        assert_eq!(p.ns, vec![0, 10 * ms]);
        // Filling it up halves the samples and doubles the period.
        let mut q = TimeProfile::default();
        for i in 0..=PROFILE_MAX as u64 {
            q.note(i, i * 10 * ms);
        }
        assert_eq!(q.lines.len(), PROFILE_MAX / 2 + 1);
        assert_eq!(q.every_ns, 20 * ms);
        assert_eq!(q.lines[..3], [0, 2, 4]);
        assert_eq!(*q.lines.last().unwrap(), PROFILE_MAX as u64);
        assert!(q.ns.windows(2).all(|w| w[1] >= w[0] + 20 * ms));
    }

    #[test]
    fn vmstat_samples_keep_the_named_counters_spaced_and_bounded() {
        let ms = 1_000_000;
        let vm = |free: u64, scan: u64| {
            vec![("nr_free_pages".to_string(), free), ("pgscan_kswapd".to_string(), scan), ("pgfault".to_string(), 7)]
        };
        let mut p = VmstatProfile::default();
        assert!(p.due(0));
        p.note(5, 0, &vm(100, 1), Vec::new());
        assert!(!p.due(99 * ms));
        assert!(p.due(100 * ms));
        p.note(9, 100 * ms, &vm(90, 3), Vec::new());
        let free = VMSTAT_PROFILED.iter().position(|&n| n == "nr_free_pages").unwrap();
        let scan = VMSTAT_PROFILED.iter().position(|&n| n == "pgscan_kswapd").unwrap();
        let direct = VMSTAT_PROFILED.iter().position(|&n| n == "pgscan_direct").unwrap();
        assert_eq!(p.lines, vec![5, 9]);
        assert_eq!((p.values[1][free], p.values[1][scan], p.values[1][direct]), (90, 3, 0));
        let mut q = VmstatProfile::default();
        for i in 0..=VMSTAT_MAX as u64 {
            q.note(i, i * 100 * ms, &vm(i, 2 * i), Vec::new());
        }
        assert_eq!(q.values.len(), VMSTAT_MAX / 2 + 1);
        assert_eq!(q.every_ns, 200 * ms);
        assert!(!q.due(VMSTAT_MAX as u64 * 100 * ms + 150 * ms));
        assert_eq!(q.lines[..3], [0, 2, 4]);
        assert_eq!(q.values[2][scan], 8);
    }
}
