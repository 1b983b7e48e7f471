// SPDX-License-Identifier: GPL-2.0-only
//! Where a run's operations come from, and the decoded form a sweep
//! shares between its configurations.
//!
//! A single `mglru run` streams its input: memory stays flat however long
//! the trace. A sweep runs the same operations many times, so it decodes
//! them once into an [`Input`] (a plain vector of resolved operations and
//! the names they refer to) and every configuration reads that vector;
//! nothing in it changes after decoding, so threads share it by reference.

use std::io::Read;
use std::path::PathBuf;

use mglru_core::report::Names;
use mglru_trace::{Location, Op, TraceReader};

use crate::default_workload::default_trace;

/// An error with the exit status it deserves: 1 for bad input or options,
/// 2 for I/O.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub msg: String,
    pub code: u8,
}

impl Failure {
    pub fn input(msg: impl Into<String>) -> Failure {
        Failure { msg: msg.into(), code: 1 }
    }
    pub fn io(msg: impl Into<String>) -> Failure {
        Failure { msg: msg.into(), code: 2 }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

/// The input of a run: a trace (a path, or `-` for standard input), a
/// workload generator's spec, or the built-in workload.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Builtin,
    /// The built-in workload with its draws moved by a seed (not 0;
    /// crate::replicate).
    BuiltinSeeded(u64),
    Trace(PathBuf),
    Workload(String),
}

impl Source {
    /// From the command line's TRACE and `--workload`, at most one of them.
    pub fn new(trace: Option<&str>, workload: Option<&str>) -> Result<Source, Failure> {
        match (trace, workload) {
            (Some(t), Some(w)) => Err(Failure::input(format!(
                "give either a TRACE (`{t}`) or --workload (`{w}`), not both"
            ))),
            (Some(t), None) => Ok(Source::Trace(PathBuf::from(t))),
            (None, Some(w)) => Ok(Source::Workload(w.to_string())),
            (None, None) => Ok(Source::Builtin),
        }
    }

    /// A short description for the configuration echo.
    pub fn describe(&self) -> String {
        match self {
            Source::Builtin => crate::default_workload::DESCRIPTION.into(),
            Source::BuiltinSeeded(s) => format!("{} (its draws moved by seed {s})", crate::default_workload::DESCRIPTION),
            Source::Trace(p) if p.as_os_str() == "-" => "a trace on standard input".into(),
            Source::Trace(p) => format!("trace {}", p.display()),
            Source::Workload(w) => format!("workload {w}"),
        }
    }

    /// A streaming reader over the input.
    pub fn open(&self) -> Result<TraceReader, Failure> {
        match self {
            Source::Builtin => Ok(TraceReader::from_str("<built-in workload>", &default_trace())),
            Source::BuiltinSeeded(s) => Ok(TraceReader::from_str("<built-in workload>", &crate::default_workload::default_trace_seeded(*s))),
            Source::Trace(p) if p.as_os_str() == "-" => {
                let stdin: Box<dyn Read + Send> = Box::new(std::io::stdin());
                TraceReader::from_reader("<stdin>", stdin).map_err(open_failure)
            }
            Source::Trace(p) => TraceReader::open(p).map_err(open_failure),
            Source::Workload(spec) => {
                // Statements: the generator's accesses reach the model
                // without being formatted and parsed again.
                let stmts = mglru_workload::workload_statements(spec)
                    .map_err(|e| Failure::input(format!("--workload {spec}: {e}{}", fio_hint(spec))))?;
                Ok(TraceReader::from_statements(&format!("<workload {spec}>"), stmts))
            }
        }
    }
}

/// A trace that cannot be opened is an I/O error (exit status 2); one whose
/// compressed data is corrupt from its first block is an invalid trace
/// (status 1), as it is when the damage comes later in the file.
fn open_failure(e: mglru_trace::TraceError) -> Failure {
    match e.kind() {
        mglru_trace::TraceErrorKind::Io => Failure::io(e.to_string()),
        _ => Failure::input(e.to_string()),
    }
}

/// A fio command line pasted without the `fio:` prefix gets the spec it
/// should have been.
pub fn fio_hint(spec: &str) -> String {
    let s = spec.trim();
    let body = s.strip_prefix("fio ").map(str::trim_start).unwrap_or(s);
    let looks_like_fio = body.starts_with('-')
        && ["--rw=", "-rw=", "--name=", "-name=", "--size=", "--filename=", "--ioengine="].iter().any(|k| body.contains(k));
    if looks_like_fio && !s.starts_with("fio:") {
        format!("\nhint: that looks like a fio command line; generators take it after `fio:`, e.g. --workload 'fio:{body}'")
    } else {
        String::new()
    }
}

/// One memcg as the trace defined it.
#[derive(Clone, Debug)]
struct MemcgName {
    name: String,
    parent: Option<u16>,
}

/// A decoded input: every operation, resolved, with its line (or record)
/// for error messages, and the names behind the ids.
#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    pub binary: bool,
    pub ops: Vec<Op>,
    pub lines: Vec<u64>,
    memcgs: Vec<MemcgName>,
    tasks: Vec<String>,
}

impl Input {
    /// Read the whole input. `progress` is told the bytes read so far now
    /// and then. An input without a single statement is an error: it would
    /// give a report of an idle machine that looks like a result.
    pub fn decode(reader: &mut TraceReader, progress: &dyn Fn(u64)) -> Result<Input, Failure> {
        let mut ops = Vec::new();
        let mut lines = Vec::new();
        while let Some(op) = reader.next_op().map_err(|e| Failure::input(e.to_string()))? {
            ops.push(op);
            lines.push(reader.line());
            if ops.len() & 0xffff == 0 {
                progress(reader.bytes_read());
            }
        }
        if ops.is_empty() {
            return Err(Failure::input(format!("{}: the trace is empty (no statements): nothing to simulate", reader.name())));
        }
        let memcgs = (0..reader.memcg_count() as u16)
            .map(|id| MemcgName { name: reader.memcg_name(id).to_string(), parent: reader.memcg_parent(id) })
            .collect();
        let tasks = (0..reader.task_count() as u32).map(|id| reader.task_name(id).to_string()).collect();
        Ok(Input { name: reader.name().to_string(), binary: reader.is_binary(), ops, lines, memcgs, tasks })
    }

    /// The place of operation `i`, as trace errors print it.
    pub fn location(&self, i: usize) -> String {
        Location { file: &self.name, line: self.lines.get(i).copied().unwrap_or(0), binary: self.binary }.to_string()
    }

    /// The id of the memcg the trace calls `name`.
    pub fn memcg_id(&self, name: &str) -> Option<u16> {
        self.memcgs.iter().position(|m| m.name == name).map(|i| i as u16)
    }

    /// The memcgs' names, root first.
    pub fn memcg_names(&self) -> Vec<&str> {
        self.memcgs.iter().map(|m| m.name.as_str()).collect()
    }

    /// The cgroup path of a memcg, as `cgroup_path()` prints it.
    pub fn cgroup_path(&self, id: u16) -> String {
        let mut parts = Vec::new();
        let mut m = id;
        while m != 0 {
            let Some(c) = self.memcgs.get(m as usize) else { break };
            parts.push(c.name.clone());
            m = c.parent.unwrap_or(0);
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// The page accesses the statements ask for.
    pub fn page_accesses(&self) -> u64 {
        self.ops.iter().map(crate::warmup::op_accesses).sum()
    }

    /// Statements that access pages (read, write, load, store).
    pub fn access_ops(&self) -> u64 {
        self.ops.iter().filter(|o| o.is_access()).count() as u64
    }
}

impl Names for Input {
    fn memcg(&self, id: u16) -> String {
        self.memcgs.get(id as usize).map_or_else(|| format!("memcg{id}"), |m| m.name.clone())
    }
    fn task(&self, id: u32) -> String {
        self.tasks.get(id as usize).cloned().unwrap_or_else(|| format!("task{id}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_fio_line_gets_the_fio_prefix() {
        assert!(fio_hint("--name=j --rw=randread --size=1G").contains("--workload 'fio:--name=j --rw=randread --size=1G'"));
        assert!(fio_hint("fio --name=j --rw=read").contains("'fio:--name=j --rw=read'"));
        assert_eq!(fio_hint("ebizzy:seq=16"), "");
        assert_eq!(fio_hint("fio:--name=j --rw=read"), "");
    }

    #[test]
    fn decoding_keeps_every_operation_and_the_names() {
        let text = "memory 64M\nmemcg app max=16M\nfile f size=1M\ntask t memcg=app\nread t f 0 4\nsleep 1ms\n";
        let mut r = TraceReader::from_str("x", text);
        let input = Input::decode(&mut r, &|_| {}).unwrap();
        assert_eq!(input.ops.len(), 6);
        assert_eq!(input.lines, vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(input.memcg_id("app"), Some(1));
        assert_eq!(input.cgroup_path(1), "/app");
        assert_eq!(input.task(0), "t");
        assert_eq!(input.access_ops(), 1);
        assert_eq!(input.location(4), "x:5");
    }

    #[test]
    fn an_empty_trace_is_an_error() {
        let mut r = TraceReader::from_str("empty.trace", "# only a comment\n");
        let e = Input::decode(&mut r, &|_| {}).unwrap_err();
        assert_eq!(e.code, 1);
        assert!(e.msg.contains("empty.trace") && e.msg.contains("empty"), "{}", e.msg);
    }
}
