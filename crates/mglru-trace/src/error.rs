// SPDX-License-Identifier: GPL-2.0-only
//! The error type of the trace reader.

use std::fmt;

/// The broad class of a [`TraceError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TraceErrorKind {
    /// The input could not be opened or read (or the binary output could
    /// not be written).
    Io,
    /// A compressed (gzip/zstd) or binary stream is truncated or corrupt.
    Corrupt,
    /// The trace is well-formed data but not a valid trace: a syntax error,
    /// an undefined name, a value out of range, a rule violation.
    Invalid,
}

/// Where in the input an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Pos {
    /// No position (e.g. the file could not be opened).
    None,
    /// A text line (1-based) and column (1-based, in characters).
    Text { line: u64, col: u64 },
    /// A byte offset in the (decompressed) binary stream.
    Binary { offset: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    file: String,
    pos: Pos,
    kind: TraceErrorKind,
    msg: String,
}

/// An error reading a trace.
///
/// `Display` gives `FILE:LINE:COL: MESSAGE` for errors in a text trace
/// (`COL` is the 1-based column, in characters, of the offending token, or
/// of the place where a missing token was expected; 1 when the error is
/// about the whole line), `FILE: byte offset N: MESSAGE` for errors in a
/// binary trace (the offset counts bytes of the decompressed binary stream,
/// magic included) and `FILE: MESSAGE` when there is no position (e.g. the
/// file cannot be opened).
///
/// The message says what was expected and, where possible, how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError(Box<Inner>);

impl TraceError {
    pub(crate) fn new(file: &str, pos: Pos, kind: TraceErrorKind, msg: String) -> TraceError {
        TraceError(Box::new(Inner {
            file: file.to_string(),
            pos,
            kind,
            msg,
        }))
    }

    /// The name of the input file (as given to the reader).
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// The 1-based line of a text trace, if the error has one.
    pub fn line(&self) -> Option<u64> {
        match self.0.pos {
            Pos::Text { line, .. } => Some(line),
            _ => None,
        }
    }

    /// The 1-based column (in characters) of a text trace, if the error
    /// has a line.
    pub fn column(&self) -> Option<u64> {
        match self.0.pos {
            Pos::Text { col, .. } => Some(col),
            _ => None,
        }
    }

    /// The byte offset in a binary trace, if the error is in one.
    pub fn byte_offset(&self) -> Option<u64> {
        match self.0.pos {
            Pos::Binary { offset } => Some(offset),
            _ => None,
        }
    }

    /// The message without the position prefix.
    pub fn message(&self) -> &str {
        &self.0.msg
    }

    /// The class of the error.
    pub fn kind(&self) -> TraceErrorKind {
        self.0.kind
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        match i.pos {
            Pos::None => write!(f, "{}: {}", i.file, i.msg),
            Pos::Text { line, col } => write!(f, "{}:{}:{}: {}", i.file, line, col, i.msg),
            Pos::Binary { offset } => write!(f, "{}: byte offset {}: {}", i.file, offset, i.msg),
        }
    }
}

impl std::error::Error for TraceError {}
