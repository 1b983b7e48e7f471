// SPDX-License-Identifier: GPL-2.0-only
//! `mglru-replay`: run an mglru trace on the real kernel (command line).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use mglru_replay::exec::{self, Config};
use mglru_replay::sysfs::Sys;
use mglru_replay::{dry_run, ReplayError};
use mglru_trace::TraceReader;

const HELP: &str = "\
mglru-replay — execute an mglru trace (format v1) on the running Linux kernel

USAGE:
    mglru-replay TRACE --data-dir DIR [OPTIONS]
    mglru-replay TRACE --dry-run

TRACE is a trace file (text or binary, optionally gzip/zstd), or - for standard input.

OPTIONS:
    --data-dir DIR          where the trace's files are created (an ext4 filesystem on a ramdisk);
                            required unless --dry-run
    --tmpfs-dir DIR         where `file ... tmpfs=y` files are created: a directory on a tmpfs
                            mount (default /dev/shm); `memfd=y` files come from memfd_create
    --dry-run               touch nothing: print the access log, one line per page access
                            (`ACCESS <task> load|store <region> <page>`), one per read/write system
                            call (`ACCESS <task> read|write <file> <page> <count>`) and `OP <statement>`
                            for every other operation, in the order the real run issues them
    --cgroup-root DIR       the cgroup2 directory standing for the trace's root memcg
                            (default /sys/fs/cgroup); the replayer moves itself to DIR/mglru-replayer
    --quiet                 no progress or information lines (warnings, the trace's machine line,
                            dumps and the result line are still printed)
    --per-file-readahead    give every file its own readahead window by setting the data device's
                            read_ahead_kb while the file is opened (restored afterwards); without it
                            readahead=0 is emulated with POSIX_FADV_RANDOM and other values need the
                            device's read_ahead_kb set by the harness
    --settle-ms MS          wait MS milliseconds before each snapshot (memcg statistics are flushed
                            at least every 2 s: 2100 makes memory.stat exact; default 0)
    --sync-stats-flush      start the workload right after the kernel's periodic memcg statistics
                            flush (seen through a probe memcg), so later flushes fall 2 s, 4 s, ...
                            into the run as in the model (waits up to 2 s; result field
                            stats_flush_synced_after_seconds)
    --parallel              run the tasks' accesses side by side (the model's --schedule parallel):
                            an access goes to its task's worker once the line above it has started,
                            without waiting for other tasks' accesses to end; any other line waits
                            for every worker first (result field replay_schedule)
    --extfrag               record the workload's migratetype fallbacks (tracepoint
                            kmem/mm_page_alloc_extfrag: each event's time and fields, counts by
                            kind and by kernel stack), its non-movable page allocations by GFP
                            flags and order (kmem/mm_page_alloc histogram) and /proc/pagetypeinfo
                            at both ends (result field extfrag; needs tracefs)
    --ftrace FUNC[,FUNC...] time these kernel functions over the workload with the function_graph
                            tracer (set_ftrace_filter): calls and total duration per function, the
                            sums of the --ftrace-event counts inside each, and a record per return
                            and event (result field ftrace; a function not in
                            available_filter_functions, e.g. inlined, is listed as missing)
    --ftrace-event GROUP/EVENT[,...]
                            tracepoints to record beside --ftrace (e.g.
                            vmscan/mm_vmscan_lru_isolate)
    -h, --help              this text

OUTPUT (real run, standard output):
    MGLRU-REPLAY: ...                 diagnostics (warnings start with `warning:`, non-fatal results
                                      such as memory.reclaim EAGAIN with `result:`)
    MGLRU-REPLAY-DUMP-BEGIN N LOC     the `dump` statements' /sys/kernel/debug/lru_gen text,
    MGLRU-REPLAY-DUMP-END N           between these lines
    MGLRU-REPLAY-RESULT {json}        one line at the end (see README.md)

EXIT STATUS: 0 on success, 1 for a bad command line or trace, 2 when a system call or kernel file
fails (the message on standard error names the trace line and the path or system call).
";

struct Args {
    trace: String,
    data_dir: Option<PathBuf>,
    dry_run: bool,
    cgroup_root: PathBuf,
    quiet: bool,
    per_file_readahead: bool,
    tmpfs_dir: PathBuf,
    settle_ms: u64,
    sync_stats_flush: bool,
    parallel: bool,
    extfrag: bool,
    ftrace: mglru_replay::funcgraph::Request,
    sys_root: Option<PathBuf>,
}

fn parse_args(args: &[String]) -> Result<Option<Args>, ReplayError> {
    let mut a = Args {
        trace: String::new(),
        data_dir: None,
        dry_run: false,
        cgroup_root: PathBuf::from("/sys/fs/cgroup"),
        quiet: false,
        per_file_readahead: false,
        tmpfs_dir: PathBuf::from("/dev/shm"),
        settle_ms: 0,
        sync_stats_flush: false,
        parallel: false,
        extfrag: false,
        ftrace: Default::default(),
        sys_root: None,
    };
    let mut trace = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let value = |i: &mut usize| -> Result<String, ReplayError> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| ReplayError::usage(format!("{flag} needs a value")))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--data-dir" => a.data_dir = Some(PathBuf::from(value(&mut i)?)),
            "--cgroup-root" => a.cgroup_root = PathBuf::from(value(&mut i)?),
            "--dry-run" => a.dry_run = true,
            "--quiet" => a.quiet = true,
            "--per-file-readahead" => a.per_file_readahead = true,
            "--tmpfs-dir" => a.tmpfs_dir = PathBuf::from(value(&mut i)?),
            "--sync-stats-flush" => a.sync_stats_flush = true,
            "--parallel" => a.parallel = true,
            "--extfrag" => a.extfrag = true,
            "--ftrace" | "--ftrace-event" => {
                let v = value(&mut i)?;
                let names: Vec<String> =
                    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
                if names.is_empty() {
                    return Err(ReplayError::usage(format!("{flag} needs at least one name")));
                }
                if flag == "--ftrace" {
                    a.ftrace.funcs.extend(names);
                } else {
                    a.ftrace.events.extend(names);
                }
            }
            "--settle-ms" => {
                let v = value(&mut i)?;
                a.settle_ms = v.parse().map_err(|_| {
                    ReplayError::usage(format!(
                        "--settle-ms {v}: expected a whole number of milliseconds"
                    ))
                })?;
            }
            // For tests: prefix of the procfs/sysfs/debugfs paths (a
            // directory of ordinary files instead of the kernel's).
            "--sys-root" => a.sys_root = Some(PathBuf::from(value(&mut i)?)),
            _ if arg.starts_with('-') && arg != "-" => {
                return Err(ReplayError::usage(format!("unknown option `{arg}`")))
            }
            _ => {
                if trace.is_some() {
                    return Err(ReplayError::usage(format!(
                        "unexpected argument `{arg}`: only one TRACE may be given"
                    )));
                }
                trace = Some(arg.to_string());
            }
        }
        i += 1;
    }
    a.trace = trace.ok_or_else(|| ReplayError::usage("no TRACE given"))?;
    if !a.dry_run && a.data_dir.is_none() {
        return Err(ReplayError::usage(
            "--data-dir DIR is required (unless --dry-run)",
        ));
    }
    Ok(Some(a))
}

fn open_trace(name: &str) -> Result<TraceReader, ReplayError> {
    if name == "-" {
        Ok(TraceReader::from_reader("<stdin>", Box::new(io::stdin()))?)
    } else {
        Ok(TraceReader::open(std::path::Path::new(name))?)
    }
}

fn run(a: Args) -> Result<(), ReplayError> {
    let reader = open_trace(&a.trace)?;
    if a.dry_run {
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        dry_run(reader, &mut out)?;
        out.flush()
            .map_err(|e| ReplayError::system(format!("cannot write the access log: {e}")))?;
        return Ok(());
    }
    let cfg = Config {
        trace_name: reader.name().to_string(),
        data_dir: a.data_dir.unwrap_or_default(),
        cgroup_root: a.cgroup_root,
        quiet: a.quiet,
        per_file_readahead: a.per_file_readahead,
        tmpfs_dir: a.tmpfs_dir,
        settle_ms: a.settle_ms,
        sync_stats_flush: a.sync_stats_flush,
        parallel: a.parallel,
        extfrag: a.extfrag,
        ftrace: a.ftrace,
        sys: match &a.sys_root {
            Some(r) => Sys::fake(r),
            None => Sys::real(),
        },
    };
    exec::run(cfg, reader)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = match parse_args(&args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("mglru-replay: {e}\n(run `mglru-replay --help` for the options)");
            return ExitCode::from(e.exit_code());
        }
    };
    match run(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = io::stdout().flush();
            eprintln!("mglru-replay: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
