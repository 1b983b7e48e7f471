// SPDX-License-Identifier: GPL-2.0-only
//! `mglru-replay`: executes an mglru trace (format v1) on a real Linux
//! kernel, so that the kernel sees the same page-access sequence as the
//! simulator, and reports the kernel's counters.
//!
//! The crate is split in three parts:
//!
//! - [`plan`] turns the trace's [`Op`](mglru_trace::Op)s into an ordered
//!   stream of [`plan::Step`]s (what to do, in which order). The dry run and
//!   the real run consume the same stream, so the dry run's access log shows
//!   exactly the order in which the real run issues its system calls.
//! - [`exec`] is the real run: a controller process that creates memcgs and
//!   files, forks one worker process per trace task and drives the workers
//!   over sockets, one command at a time.
//! - [`sysfs`] reads and writes kernel files (cgroup, procfs, sysfs,
//!   debugfs), takes the counter snapshots and formats the JSON result.
//!
//! [`dry_run`] prints the canonical access log without touching the system.

pub mod exec;
pub mod extfrag;
pub mod funcgraph;
pub mod plan;
pub mod sysfs;

use std::fmt;
use std::io::{self, Write};

use mglru_trace::{Op, TraceError, TraceReader};

use plan::{Planner, Step};

/// Prefix of the diagnostic lines on standard output.
pub const DIAG: &str = "MGLRU-REPLAY: ";

/// Prefix of the one result line on standard output.
pub const RESULT: &str = "MGLRU-REPLAY-RESULT ";

/// The class of a [`ReplayError`], which decides the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bad command line (exit status 1).
    Usage,
    /// The trace is invalid or cannot be read (exit status 1).
    Trace,
    /// A system call or kernel file failed (exit status 2).
    System,
}

/// A fatal error of the replayer: a message naming the trace line and the
/// failing path or system call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// What kind of failure this is.
    pub kind: ErrorKind,
    /// The full message (without a trailing newline).
    pub msg: String,
}

impl ReplayError {
    /// A system error.
    pub fn system(msg: impl Into<String>) -> ReplayError {
        ReplayError {
            kind: ErrorKind::System,
            msg: msg.into(),
        }
    }

    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> ReplayError {
        ReplayError {
            kind: ErrorKind::Usage,
            msg: msg.into(),
        }
    }

    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::Usage | ErrorKind::Trace => 1,
            ErrorKind::System => 2,
        }
    }

    /// Prefixes the message with a location (e.g. `w.trace:12`).
    pub fn at(mut self, loc: &str) -> ReplayError {
        self.msg = format!("{loc}: {}", self.msg);
        self
    }
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for ReplayError {}

impl From<TraceError> for ReplayError {
    fn from(e: TraceError) -> ReplayError {
        ReplayError {
            kind: ErrorKind::Trace,
            msg: e.to_string(),
        }
    }
}

/// What a dry run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DryRunSummary {
    /// Trace operations replayed.
    pub operations: u64,
    /// `ACCESS` lines written.
    pub access_lines: u64,
}

fn out_err(e: io::Error) -> ReplayError {
    ReplayError::system(format!("cannot write the access log: {e}"))
}

/// The dry run: writes the canonical access log of `reader`'s trace to
/// `out` without touching the system.
///
/// One line per page for `load`/`store` (`ACCESS <task> load <region>
/// <page>`), one line per system call for `read`/`write` (`ACCESS <task>
/// read <file> <page> <count>`), and `OP <statement>` for every other
/// operation (the statement as [`TraceReader::op_to_text`] formats it), in
/// the order in which the real run issues them.
pub fn dry_run(reader: TraceReader, out: &mut dyn Write) -> Result<DryRunSummary, ReplayError> {
    let mut planner = Planner::new(reader);
    let mut sum = DryRunSummary::default();
    while let Some(step) = planner.next_step()? {
        let Step::Op { op, .. } = step else {
            continue;
        };
        sum.operations += 1;
        sum.access_lines += write_log(planner.reader(), &op, out).map_err(out_err)?;
    }
    Ok(sum)
}

/// Writes the access-log lines of one operation; returns the number of
/// `ACCESS` lines.
pub fn write_log(r: &TraceReader, op: &Op, out: &mut dyn Write) -> io::Result<u64> {
    match *op {
        Op::Read {
            task,
            file,
            page,
            count,
        }
        | Op::Write {
            task,
            file,
            page,
            count,
        } => {
            let kind = if matches!(op, Op::Read { .. }) {
                "read"
            } else {
                "write"
            };
            writeln!(
                out,
                "ACCESS {} {kind} {} {page} {count}",
                r.task_name(task),
                r.file_name(file)
            )?;
            Ok(1)
        }
        Op::Load {
            task,
            region,
            page,
            count,
        }
        | Op::Store {
            task,
            region,
            page,
            count,
        } => {
            let kind = if matches!(op, Op::Load { .. }) {
                "load"
            } else {
                "store"
            };
            let t = r.task_name(task);
            let g = r.region_name(region).1;
            for p in page..page.saturating_add(count) {
                writeln!(out, "ACCESS {t} {kind} {g} {p}")?;
            }
            Ok(count)
        }
        _ => {
            writeln!(out, "OP {}", r.op_to_text(op))?;
            Ok(0)
        }
    }
}
