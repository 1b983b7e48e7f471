// SPDX-License-Identifier: GPL-2.0-only
//! The lazy line stream behind [`crate::Lines`]: a [`Source`] produces a
//! few lines per step into a small queue; the iterator drains it. Memory
//! is bounded by what one step produces, never by the number of steps.

use std::collections::VecDeque;

use crate::Lines;

/// A step-wise producer of trace lines.
pub(crate) trait Source: Send {
    /// Appends the next lines to `out`. Returns `Ok(false)` once finished
    /// (lines pushed by that last call are still emitted). An `Err` ends
    /// the stream after the lines already pushed.
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String>;
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

/// Wraps `src` into [`Lines`], emitting `header` first.
pub(crate) fn lines<S: Source + 'static>(header: VecDeque<String>, src: S) -> Lines {
    Box::new(Stream { src, buf: header, done: false, err: None })
}
