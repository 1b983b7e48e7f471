// SPDX-License-Identifier: GPL-2.0-only
//! The lazy line stream behind [`crate::Lines`]: a [`Source`] produces a
//! few lines per step into a small queue; the iterator drains it. Memory
//! is bounded by what one step produces, never by the number of steps.

use std::collections::VecDeque;

use mglru_trace::{AccessKind, Statement};

use crate::{Lines, Statements};

/// A step-wise producer of trace lines.
pub(crate) trait Source: Send {
    /// Appends the next lines to `out`. Returns `Ok(false)` once finished
    /// (lines pushed by that last call are still emitted). An `Err` ends
    /// the stream after the lines already pushed.
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String>;

    /// [`step`](Source::step) as statements: the same lines, in the same
    /// order, accesses possibly as [`Statement::Access`]. By default the
    /// lines of `step` as text.
    fn step_statements(&mut self, out: &mut Out) -> Result<bool, String> {
        let mut lines = VecDeque::new();
        let r = self.step(&mut lines);
        for l in lines {
            out.line(l);
        }
        r
    }
}

/// Where a generator puts its lines: text lines, or accesses given by
/// their parts.
pub(crate) trait Emit {
    fn line(&mut self, l: String);
    /// `KIND TASK TARGET PAGE [COUNT]` (COUNT written when not 1).
    fn access(&mut self, kind: AccessKind, task: &str, target: &str, page: u64, count: u64);
    /// [`access`](Emit::access) by a caller that always emits into the
    /// same `Emit` and keeps `id` for this (task, target): None at first;
    /// an emitter with names ids stores the id there and takes it from
    /// there next time instead of comparing the names again.
    #[inline]
    fn access_cached(&mut self, id: &mut Option<u32>, kind: AccessKind, task: &str, target: &str, page: u64, count: u64) {
        let _ = id;
        self.access(kind, task, target, page, count);
    }

    /// `n` one-page accesses `KIND TASK TARGET PAGE`, their PAGEs written
    /// in order by `fill` into the slices it is handed (at most `n` pages
    /// in all, in as many calls as the emitter likes): the same as `n`
    /// calls of [`access_cached`](Emit::access_cached) with count 1. A
    /// loop inside `fill` keeps the caller's per-page work out of a call
    /// per page.
    #[inline]
    fn pages_cached(&mut self, id: &mut Option<u32>, kind: AccessKind, task: &str, target: &str, n: usize, mut fill: impl FnMut(&mut [u64])) {
        let mut buf = [0u64; 64];
        let mut left = n;
        while left > 0 {
            let m = left.min(buf.len());
            fill(&mut buf[..m]);
            for &p in &buf[..m] {
                self.access_cached(id, kind, task, target, p, 1);
            }
            left -= m;
        }
    }
}

impl Emit for VecDeque<String> {
    fn line(&mut self, l: String) {
        self.push_back(l);
    }
    fn access(&mut self, kind: AccessKind, task: &str, target: &str, page: u64, count: u64) {
        self.push_back(Statement::access_text(kind, task, target, page, count));
    }
}

/// Statements of one step: a text line as it is, an access as a
/// [`Statement::Access`] of the names it uses (defined once each), and
/// consecutive one-page accesses of the same kind and names gathered into
/// one [`Statement::Pages`].
pub(crate) struct Out {
    q: VecDeque<Statement>,
    names: Vec<(String, String)>,
    /// The names id of the last access, a guess for the next.
    last: usize,
    /// One-page accesses not queued yet: all of kind and names `run`
    /// (meaningless while `pages` is empty).
    run: (AccessKind, u32),
    pages: Vec<u64>,
}

/// At most this many pages in one [`Statement::Pages`]: a step's
/// statements are queued whole, so this bounds nothing but the size of one
/// allocation, and the reader's blocks are of 256 ops.
const RUN_PAGES: usize = 256;

impl Out {
    fn new(header: VecDeque<String>) -> Out {
        Out {
            q: header.into_iter().map(Statement::Text).collect(),
            names: Vec::new(),
            last: 0,
            run: (AccessKind::Read, 0),
            pages: Vec::new(),
        }
    }

    /// Queues the gathered one-page accesses, before anything else is
    /// queued (and at the end of each step), so that the order stays that
    /// of the emits.
    #[inline]
    fn flush(&mut self) {
        if !self.pages.is_empty() {
            let (kind, names) = self.run;
            let pages = std::mem::replace(&mut self.pages, Vec::with_capacity(RUN_PAGES));
            self.q.push_back(Statement::Pages { kind, names, pages });
        }
    }

    /// Queues the access: a one-page one joins the gathered run if it has
    /// the run's kind and names.
    #[inline]
    fn push_access(&mut self, kind: AccessKind, names: u32, page: u64, count: u64) {
        if count == 1 {
            if self.pages.is_empty() || self.run != (kind, names) {
                self.flush();
                self.run = (kind, names);
            }
            self.pages.push(page);
            if self.pages.len() >= RUN_PAGES {
                self.flush();
            }
        } else {
            self.flush();
            self.q.push_back(Statement::Access { kind, names, page, count });
        }
    }

    /// The names id of (task, target), defining it if new.
    #[inline]
    fn names(&mut self, task: &str, target: &str) -> u32 {
        let hit = |n: &(String, String)| n.0 == task && n.1 == target;
        if self.names.get(self.last).is_some_and(hit) {
            return self.last as u32;
        }
        let id = match self.names.iter().position(hit) {
            Some(i) => i,
            None => {
                self.flush();
                let id = self.names.len();
                self.names.push((task.to_string(), target.to_string()));
                self.q.push_back(Statement::Names { id: id as u32, task: task.to_string(), target: target.to_string() });
                id
            }
        };
        self.last = id;
        id as u32
    }
}

impl Emit for Out {
    fn line(&mut self, l: String) {
        self.flush();
        self.q.push_back(Statement::Text(l));
    }
    #[inline]
    fn access(&mut self, kind: AccessKind, task: &str, target: &str, page: u64, count: u64) {
        let names = self.names(task, target);
        self.push_access(kind, names, page, count);
    }
    #[inline]
    fn access_cached(&mut self, id: &mut Option<u32>, kind: AccessKind, task: &str, target: &str, page: u64, count: u64) {
        let names = self.names_cached(id, task, target);
        self.push_access(kind, names, page, count);
    }

    #[inline]
    fn pages_cached(&mut self, id: &mut Option<u32>, kind: AccessKind, task: &str, target: &str, n: usize, mut fill: impl FnMut(&mut [u64])) {
        if n == 0 {
            return;
        }
        let names = self.names_cached(id, task, target);
        if self.pages.is_empty() || self.run != (kind, names) {
            self.flush();
            self.run = (kind, names);
        }
        // Straight into the run, up to RUN_PAGES at a time (the run is
        // queued whenever it holds RUN_PAGES, so there is room).
        let mut left = n;
        while left > 0 {
            let len = self.pages.len();
            let m = left.min(RUN_PAGES - len);
            self.pages.resize(len + m, 0);
            fill(&mut self.pages[len..]);
            left -= m;
            if self.pages.len() >= RUN_PAGES {
                self.flush();
            }
        }
    }
}

impl Out {
    /// The names id of (task, target) for a caller that keeps it in `id`
    /// (see [`Emit::access_cached`]).
    #[inline]
    fn names_cached(&mut self, id: &mut Option<u32>, task: &str, target: &str) -> u32 {
        match *id {
            Some(n) => {
                debug_assert!(self.names.get(n as usize).is_some_and(|x| x.0 == task && x.1 == target));
                n
            }
            None => {
                let n = self.names(task, target);
                *id = Some(n);
                n
            }
        }
    }
}

struct Stream<S: Source> {
    src: S,
    buf: VecDeque<String>,
    done: bool,
    err: Option<String>,
}

impl<S: Source> Iterator for Stream<S> {
    type Item = Result<String, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(l) = self.buf.pop_front() {
                return Some(Ok(l));
            }
            if let Some(e) = self.err.take() {
                self.done = true;
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            match self.src.step(&mut self.buf) {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(e) => {
                    self.err = Some(e);
                }
            }
        }
    }
}

struct StatementStream<S: Source> {
    src: S,
    out: Out,
    done: bool,
    err: Option<String>,
}

impl<S: Source> Iterator for StatementStream<S> {
    type Item = Result<Statement, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(s) = self.out.q.pop_front() {
                return Some(Ok(s));
            }
            if let Some(e) = self.err.take() {
                self.done = true;
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            let r = self.src.step_statements(&mut self.out);
            // What the step gathered goes out before anything after it.
            self.out.flush();
            match r {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(e) => {
                    self.err = Some(e);
                }
            }
        }
    }
}

/// Wraps `src` into [`Statements`], emitting `header` first.
pub(crate) fn statements<S: Source + 'static>(header: VecDeque<String>, src: S) -> Statements {
    Box::new(StatementStream { src, out: Out::new(header), done: false, err: None })
}

/// Wraps `src` into [`Lines`], emitting `header` first.
pub(crate) fn lines<S: Source + 'static>(header: VecDeque<String>, src: S) -> Lines {
    Box::new(Stream { src, buf: header, done: false, err: None })
}
