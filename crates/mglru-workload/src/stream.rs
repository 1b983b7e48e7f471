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

// ------------------------------------------------------ helper thread ---
//
// A generator's statements cost CPU time (the fio job's draws alone are
// about as much per I/O as the model's work on a cached page), while the
// model mostly waits for memory. On a machine with a second CPU the
// statements are made on a helper thread, a few thousand accesses ahead,
// and handed to the reader in batches through a bounded channel: the
// reader sees exactly the same statements in the same order (nothing the
// model computes depends on when they were made), memory stays bounded by
// the batches in flight, and the generator's work overlaps the model's.

/// The weight of a batch handed from the helper thread to the reader: a
/// `Pages` statement weighs its pages (8 bytes each), any other statement
/// [`LINE_WEIGHT`] (a line of text is some 50 bytes, and costs the reader
/// more).
const BATCH_WEIGHT: usize = 4096;
const LINE_WEIGHT: usize = 8;
/// Batches in flight between the threads: the most the generator runs
/// ahead of the model (about 1 MiB of statements). Far enough ahead that on
/// a busy machine, where the two threads are not always running at once,
/// either can run through a scheduler time slice without waiting for the
/// other (measured: with 4 in flight the generator's rate halved in some
/// runs at load 4-5 on 2 CPUs; with 32 it did not).
const IN_FLIGHT: usize = 32;

type Item = Result<Statement, String>;

/// The reading end of [`on_thread`].
struct Threaded {
    rx: std::sync::mpsc::Receiver<Vec<Item>>,
    cur: std::vec::IntoIter<Item>,
    /// Joined at the end of the stream, to pass a panic of the generator on.
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Iterator for Threaded {
    type Item = Item;

    #[inline]
    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(x) = self.cur.next() {
                return Some(x);
            }
            match self.rx.recv() {
                Ok(batch) => self.cur = batch.into_iter(),
                Err(_) => {
                    // The generator finished, or panicked: then so do we,
                    // as if it had run on this thread.
                    if let Some(h) = self.handle.take() {
                        if let Err(payload) = h.join() {
                            std::panic::resume_unwind(payload);
                        }
                    }
                    return None;
                }
            }
        }
    }
}

/// The helper thread's loop: `src`'s statements in batches into `tx`,
/// until `src` ends or fails (an `Err` is its last statement) or the
/// reader is gone.
fn produce(mut src: Statements, tx: std::sync::mpsc::SyncSender<Vec<Item>>) {
    loop {
        let mut batch = Vec::with_capacity(64);
        let mut weight = 0;
        let mut end = false;
        while weight < BATCH_WEIGHT {
            match src.next() {
                Some(x) => {
                    weight += match &x {
                        Ok(Statement::Pages { pages, .. }) => pages.len().max(1),
                        Ok(_) => LINE_WEIGHT,
                        Err(_) => {
                            end = true;
                            BATCH_WEIGHT
                        }
                    };
                    batch.push(x);
                }
                None => {
                    end = true;
                    break;
                }
            }
        }
        if (!batch.is_empty() && tx.send(batch).is_err()) || end {
            return;
        }
    }
}

/// `src` made on a helper thread when the machine has more than one CPU
/// (see above), else `src` itself. The same statements in the same order
/// either way.
pub(crate) fn on_thread(src: Statements) -> Statements {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return src;
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(IN_FLIGHT);
    match std::thread::Builder::new().name("mglru-workload".into()).spawn(move || produce(src, tx)) {
        Ok(h) => Box::new(Threaded { rx, cur: Vec::new().into_iter(), handle: Some(h) }),
        Err(e) => Box::new(std::iter::once(Err(format!("cannot start the generator's thread: {e}")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(i: usize) -> Item {
        Ok(Statement::Text(format!("# {i}")))
    }

    /// The helper thread hands over the statements in order, batches
    /// larger than one included, and ends the stream at an error.
    #[test]
    fn thread_keeps_order_and_ends_at_an_error() {
        let mut items: Vec<Item> = (0..10_000).map(text).collect();
        items.insert(5_000, Ok(Statement::Pages { kind: AccessKind::Read, names: 0, pages: vec![1; 5_000] }));
        let want = items.clone();
        let got: Vec<Item> = on_thread(Box::new(items.into_iter())).collect();
        assert_eq!(got, want);
        let items: Vec<Item> = vec![text(0), Err("broken".to_string()), text(2)];
        let got: Vec<Item> = on_thread(Box::new(items.into_iter())).collect();
        assert_eq!(got, vec![text(0), Err("broken".to_string())]);
    }

    /// A panic of the generator reaches the reader, as without the thread.
    #[test]
    fn thread_passes_a_panic_on() {
        if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
            return;
        }
        let src = (0..3).map(|i| if i < 2 { text(i) } else { panic!("generator bug") });
        let s = on_thread(Box::new(src));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.count()));
        assert!(r.is_err());
    }
}
