// SPDX-License-Identifier: GPL-2.0-only
//! Statements handed to a reader by a program (a workload generator)
//! instead of text: lines of trace text, and accesses whose task and
//! target are named once and then referred to by a number, so that the
//! common access needs neither formatting nor parsing.

use crate::error::{Pos, TraceError};
use crate::parse::AccessKind;
use crate::reader::{TraceReader, MAX_LINE};
use crate::Op;
use std::io;

/// One statement of a generated trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Statement {
    /// A line of trace text without its newline, read like a line of a
    /// text trace (comments and blank lines included).
    Text(String),
    /// `names` is `(task, target)`: the names the access statements with
    /// this `id` use. Not a line of the trace; `id`s count from 0, each
    /// defined once, before its first use.
    Names { id: u32, task: String, target: String },
    /// The access `VERB TASK TARGET PAGE` (`count` 1) or `VERB TASK TARGET
    /// PAGE COUNT`, TASK and TARGET those of [`Statement::Names`] `names`:
    /// the same statement as that line of text, with the same errors.
    Access { kind: AccessKind, names: u32, page: u64, count: u64 },
    /// One-page accesses `VERB TASK TARGET PAGE` of `names`, one for each
    /// of `pages` in order: the same as a [`Statement::Access`] with
    /// `count` 1 per page (one line each), handed over together so that
    /// the reader turns them into ops in a tight loop.
    Pages { kind: AccessKind, names: u32, pages: Vec<u64> },
}

impl Statement {
    /// The line of text of an access with names `task` and `target`.
    pub fn access_text(kind: AccessKind, task: &str, target: &str, page: u64, count: u64) -> String {
        if count == 1 {
            format!("{} {task} {target} {page}", kind.keyword())
        } else {
            format!("{} {task} {target} {page} {count}", kind.keyword())
        }
    }
}

/// A stream of statements; an `Err` carries the producer's message and
/// ends the stream (like a read error of a text trace).
pub type Statements = Box<dyn Iterator<Item = Result<Statement, String>> + Send>;

/// What a names id resolved to for one kind of access, since the last
/// text line (which may define or end tasks, files and regions).
#[derive(Clone, Copy, Default)]
struct Resolved {
    /// The epoch (count of text lines) in which it was resolved; 0 = never.
    epoch: u64,
    task: u32,
    target: u32,
    pages: u64,
}

/// The [`Statement::Pages`] being read: `pages[next..]` are still to come.
struct PagesRun {
    kind: AccessKind,
    names: u32,
    pages: Vec<u64>,
    next: usize,
}

/// The reader's state for a statement stream.
pub(crate) struct StmtState {
    src: Statements,
    names: Vec<(String, String)>,
    /// By names id and kind of access (`4 * id + kind`).
    resolved: Vec<Resolved>,
    /// Text lines read so far, plus one.
    epoch: u64,
    run: PagesRun,
}

impl StmtState {
    pub(crate) fn new(src: Statements) -> StmtState {
        let run = PagesRun { kind: AccessKind::Read, names: 0, pages: Vec::new(), next: 0 };
        StmtState { src, names: Vec::new(), resolved: Vec::new(), epoch: 1, run }
    }

    /// Appends the ops of the current [`Statement::Pages`] run to `ops`
    /// (and their lines, counting on from `*line`, to `lines`) until
    /// `ops` holds `max`, as long as its names are resolved since the last
    /// text line and its pages lie inside the target; returns how many.
    /// What it leaves (a first use, a page out of range) goes one access at
    /// a time through [`TraceReader::next_statement_op`], which reads it
    /// as its line of text would be read (errors included).
    fn pages_block(&mut self, ops: &mut Vec<Op>, lines: &mut Vec<u64>, line: &mut u64, max: usize) -> usize {
        let run = &mut self.run;
        let rest = &run.pages[run.next..];
        let slot = 4 * run.names as usize + kind_code(run.kind);
        let r = self.resolved.get(slot).copied().unwrap_or_default();
        if rest.is_empty() || r.epoch != self.epoch {
            return 0;
        }
        // For a one-page access, the check of `next_statement_op`
        // (`page + 1 <= pages`, without overflow) is `page < pages`.
        let room = max.saturating_sub(ops.len());
        let k = rest.iter().take(room).take_while(|&&p| p < r.pages).count();
        let (task, t, take) = (r.task, r.target, &rest[..k]);
        // One loop per kind, so that the loop body is a store of the op.
        match run.kind {
            AccessKind::Read => ops.extend(take.iter().map(|&page| Op::Read { task, file: t, page, count: 1 })),
            AccessKind::Write => ops.extend(take.iter().map(|&page| Op::Write { task, file: t, page, count: 1 })),
            AccessKind::Load => ops.extend(take.iter().map(|&page| Op::Load { task, region: t, page, count: 1 })),
            AccessKind::Store => ops.extend(take.iter().map(|&page| Op::Store { task, region: t, page, count: 1 })),
        }
        let first = *line + 1;
        lines.extend(first..first + k as u64);
        *line += k as u64;
        run.next += k;
        k
    }
}

fn kind_code(k: AccessKind) -> usize {
    match k {
        AccessKind::Read => 0,
        AccessKind::Write => 1,
        AccessKind::Load => 2,
        AccessKind::Store => 3,
    }
}

impl TraceReader {
    /// [`TraceReader::next_ops`] of a statement stream.
    #[inline(never)]
    pub(crate) fn next_statement_ops(&mut self, ops: &mut Vec<Op>, lines: &mut Vec<u64>, max: usize) -> Result<usize, TraceError> {
        let start = ops.len();
        while ops.len() < max && self.failed.is_none() {
            let st = self.stmts.as_mut().expect("a statement stream");
            if st.pages_block(ops, lines, &mut self.line, max) > 0 {
                continue;
            }
            match self.next_statement_op() {
                Ok(Some(op)) => {
                    ops.push(op);
                    lines.push(self.line);
                }
                Ok(None) => break,
                Err(e) => self.failed = Some(e),
            }
        }
        let n = ops.len() - start;
        match &self.failed {
            Some(e) if n == 0 => Err(e.clone()),
            _ => Ok(n),
        }
    }

    /// The next operation of a statement stream (`Ok(None)` at its end).
    #[inline]
    pub(crate) fn next_statement_op(&mut self) -> Result<Option<Op>, TraceError> {
        loop {
            let st = self.stmts.as_mut().expect("a statement stream");
            if let Some(&page) = st.run.pages.get(st.run.next) {
                // The next page of a `Pages` statement: its access.
                st.run.next += 1;
                let (kind, names) = (st.run.kind, st.run.names);
                return self.statement_access(kind, names, page, 1).map(Some);
            }
            let item = match st.src.next() {
                None => return Ok(None),
                Some(Err(e)) => {
                    // As a text trace read through a failing reader reports it.
                    let pos = Pos::Text { line: self.line + 1, col: 1 };
                    return Err(self.read_error(&io::Error::other(e), pos));
                }
                Some(Ok(item)) => item,
            };
            match item {
                Statement::Access { kind, names, page, count } => {
                    return self.statement_access(kind, names, page, count).map(Some);
                }
                Statement::Pages { kind, names, pages } => {
                    // Read from the top of the loop (and in blocks by
                    // `pages_block`); an empty one stands for no line.
                    st.run = PagesRun { kind, names, pages, next: 0 };
                }
                Statement::Names { id, task, target } => {
                    if id as usize != st.names.len() {
                        let msg = format!("the generator defined names {id} out of order (expected {}; an internal error of the generator)", st.names.len());
                        return Err(self.read_error(&io::Error::other(msg), Pos::Text { line: self.line + 1, col: 1 }));
                    }
                    st.names.push((task, target));
                }
                Statement::Text(line) => {
                    st.epoch += 1;
                    self.line += 1;
                    if let Some(op) = self.statement_line(&line)? {
                        return Ok(Some(op));
                    }
                }
            }
        }
    }

    /// The access statement `kind names page count` (the next line).
    #[inline]
    fn statement_access(&mut self, kind: AccessKind, names: u32, page: u64, count: u64) -> Result<Op, TraceError> {
        let st = self.stmts.as_mut().expect("a statement stream");
        self.line += 1;
        let slot = 4 * names as usize + kind_code(kind);
        let r = st.resolved.get(slot).copied().unwrap_or_default();
        if r.epoch == st.epoch && count != 0 && page.checked_add(count).is_some_and(|e| e <= r.pages) {
            let (task, t) = (r.task, r.target);
            return Ok(match kind {
                AccessKind::Read => Op::Read { task, file: t, page, count },
                AccessKind::Write => Op::Write { task, file: t, page, count },
                AccessKind::Load => Op::Load { task, region: t, page, count },
                AccessKind::Store => Op::Store { task, region: t, page, count },
            });
        }
        // First use since the last text line, another kind, or out of
        // range: the line of text it stands for, read in full (which
        // reports any error as for that line).
        let Some((task, target)) = st.names.get(names as usize) else {
            let msg = format!("the generator referred to names {names}, which it never defined (an internal error of the generator)");
            return Err(self.read_error(&io::Error::other(msg), Pos::Text { line: self.line, col: 1 }));
        };
        let text = Statement::access_text(kind, task, target, page, count);
        let op = self.statement_line(&text)?.expect("an access line is a statement");
        let st = self.stmts.as_mut().expect("a statement stream");
        let (task, target) = match op {
            Op::Read { task, file, .. } | Op::Write { task, file, .. } => (task, file),
            Op::Load { task, region, .. } | Op::Store { task, region, .. } => (task, region),
            _ => unreachable!("an access line resolves to an access"),
        };
        let pages = self.res.target_pages(kind.is_region(), u64::from(target));
        if st.resolved.len() <= slot {
            st.resolved.resize(slot + 1, Resolved::default());
        }
        st.resolved[slot] = Resolved { epoch: st.epoch, task, target, pages };
        Ok(op)
    }

    /// One line of text of a statement stream, at line `self.line`.
    fn statement_line(&mut self, line: &str) -> Result<Option<Op>, TraceError> {
        if line.len() > MAX_LINE {
            return Err(self.long_line_error());
        }
        if line.contains('\n') {
            return Err(self.error(
                Pos::Text { line: self.line, col: 1 },
                crate::TraceErrorKind::Invalid,
                "a generated statement holds a newline: give each line as its own statement".to_string(),
            ));
        }
        self.process_text_line(line.as_bytes(), !line.is_ascii())
    }
}
