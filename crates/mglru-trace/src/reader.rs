// SPDX-License-Identifier: GPL-2.0-only
//! The streaming trace reader.

use crate::binary::{BinState, BINARY_MAGIC};
use crate::decompress::{decompress, peek, Counting, Input};
use crate::error::{Pos, TraceError, TraceErrorKind};
use crate::parse::{parse_access, parse_access_simple, parse_line, AccessKind, PErr};
use crate::resolve::Resolver;
use crate::Op;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use crate::decompress::Compression;

/// Longest accepted line (and text record of a binary trace), in bytes.
pub(crate) const MAX_LINE: usize = 64 << 10;

/// Size of the buffer between decompression and parsing.
const BUF_SIZE: usize = 256 << 10;

/// A position in a trace, for messages: `FILE:LINE` for a text trace,
/// `FILE:record N` for a binary one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    /// The name of the input.
    pub file: &'a str,
    /// The 1-based line (text) or record (binary) of the last statement
    /// returned; 0 before the first.
    pub line: u64,
    /// True for a binary trace.
    pub binary: bool,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.binary {
            write!(f, "{}:record {}", self.file, self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// Reads a trace (text or binary, optionally gzip- or zstd-compressed) and
/// streams resolved [`Op`]s.
///
/// The reader keeps only a fixed-size input buffer, one line and the name
/// tables in memory, so traces of any length can be replayed. Accesses
/// (`read`, `write`, `load`, `store`) are parsed without allocating.
///
/// After an error the reader is done: further calls to
/// [`next_op`](TraceReader::next_op) return the same error again.
///
/// The name tables map the ids in ops back to the names in the trace
/// (e.g. [`task_name`](TraceReader::task_name)); they grow as definitions
/// are read, so an id is known once the op defining it has been returned.
pub struct TraceReader {
    pub(crate) name: String,
    pub(crate) input: BufReader<Input>,
    pub(crate) compression: Compression,
    pub(crate) binary: bool,
    /// Text: the current line number. Binary: the current record number.
    pub(crate) line: u64,
    pub(crate) buf: Vec<u8>,
    pub(crate) res: Resolver,
    count: Arc<AtomicU64>,
    total: Option<u64>,
    pub(crate) failed: Option<TraceError>,
    pub(crate) bin: BinState,
    /// The last access line in the simple form, for the next ones.
    last: LastAccess,
    /// A statement stream in place of input ([`TraceReader::from_statements`]).
    pub(crate) stmts: Option<crate::statement::StmtState>,
}

/// The start of the last access line accepted in the simple form (keyword,
/// task and target, up to the space before PAGE) and what it resolved to.
/// A line that starts with the same bytes names the same task and target,
/// so only its PAGE and COUNT need reading and its range checking. Names
/// keep their meaning from one access to the next; a task stops being
/// usable only at an `exit` line, and every line that is not such an
/// access clears this.
struct LastAccess {
    valid: bool,
    prefix: Vec<u8>,
    kind: AccessKind,
    task: u32,
    target: u32,
    pages: u64,
}

/// Longest prefix kept in [`LastAccess`].
const MAX_PREFIX: usize = 128;

impl LastAccess {
    /// The op of `line` if it starts with the prefix and the rest is
    /// `PAGE` or `PAGE COUNT` in the simple form, in range; `None` for
    /// anything else (the full parser then reads the line).
    #[inline(always)]
    fn op(&self, line: &[u8]) -> Option<Op> {
        let n = self.prefix.len();
        if !self.valid || line.len() <= n || line[..n] != self.prefix[..] {
            return None;
        }
        let b = &line[n..];
        let (page, i) = decimal(b, 0)?;
        let count = if i == b.len() {
            1
        } else {
            if b[i] != b' ' {
                return None;
            }
            let (c, j) = decimal(b, i + 1)?;
            if j != b.len() || c == 0 {
                return None;
            }
            c
        };
        let end = page.checked_add(count)?;
        if end > self.pages {
            return None;
        }
        let (task, t) = (self.task, self.target);
        Some(match self.kind {
            AccessKind::Read => Op::Read { task, file: t, page, count },
            AccessKind::Write => Op::Write { task, file: t, page, count },
            AccessKind::Load => Op::Load { task, region: t, page, count },
            AccessKind::Store => Op::Store { task, region: t, page, count },
        })
    }
}

/// A decimal of 1 to 19 digits at `b[i..]` and the index after it.
#[inline(always)]
fn decimal(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let start = i;
    let mut v: u64 = 0;
    while i < b.len() {
        let d = b[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if i - start == 19 {
            // A 20th digit: left to the full parser (19 digits cannot
            // overflow a u64; a 20th could, before a check after it).
            return None;
        }
        v = v * 10 + u64::from(d);
        i += 1;
    }
    if i == start {
        return None;
    }
    Some((v, i))
}

/// The loop of [`TraceReader::text_access_block`]: access lines of one
/// kind, task and target (`prefix`, `pages` of [`LastAccess`]) from the
/// front of `buf`.
struct TextRun<'a> {
    buf: &'a [u8],
    prefix: &'a [u8],
    /// The size of the target, in pages.
    pages: u64,
    /// The next line's offset in `buf`.
    pos: usize,
    /// The line number of the last line decoded.
    line: u64,
    /// Slots of the output written so far.
    k: usize,
}

impl TextRun<'_> {
    /// Decodes lines while they start with the prefix, then `PAGE` or
    /// `PAGE COUNT` and a newline within `buf`, in range; stops at any
    /// other line (left for the full parser); `op` builds the operation.
    /// Not inlined: on its own the loop keeps its state in registers,
    /// which inside `next_ops` it spilled to the stack.
    #[inline(never)]
    fn decode(&mut self, out_ops: &mut [MaybeUninit<Op>], out_lines: &mut [MaybeUninit<u64>], op: impl Fn(u64, u64) -> Op) {
        let (buf, prefix, pages) = (self.buf, self.prefix, self.pages);
        let n = prefix.len();
        let (mut pos, mut line, mut k) = (self.pos, self.line, self.k);
        let room = out_ops.len().min(out_lines.len());
        // The common line first: a prefix of 9 to 16 bytes (`read T F `
        // with short names: two 8-byte words, the second overlapping),
        // then one to seven digits and a newline (a count of 1), all
        // within one window of n + 9 bytes. Any other line, and the end
        // of the buffer, go to the general loop below, which reads the
        // same line again from its start (so the ops are the same).
        if (9..=16).contains(&n) {
            let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
            let (head, tail) = (word(prefix, 0), word(prefix, n - 8));
            while k < room {
                let Some(w) = buf.get(pos..pos + n + 9) else { break };
                if word(w, 0) != head || word(w, n - 8) != tail {
                    break;
                }
                // decimal8 without its fallbacks: digits are bytes whose
                // XOR with '0' is 0..=9.
                let t = word(w, n) ^ 0x3030_3030_3030_3030;
                let non_digit = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
                let len = (non_digit.trailing_zeros() / 8) as usize;
                if len == 0 || len == 8 || w[n + len] != b'\n' {
                    break;
                }
                let d = (t & ((1u64 << (8 * len)) - 1)) << (8 * (8 - len));
                let d = (d.wrapping_mul(10 * 256 + 1) >> 8) & 0x00ff_00ff_00ff_00ff;
                let d = (d.wrapping_mul(100 * 65536 + 1) >> 16) & 0x0000_ffff_0000_ffff;
                let page = d.wrapping_mul(10000 * (1 << 32) + 1) >> 32;
                // At most seven digits: page + 1 cannot overflow.
                if page + 1 > pages {
                    break;
                }
                out_ops[k].write(op(page, 1));
                line += 1;
                out_lines[k].write(line);
                k += 1;
                pos += n + len + 1;
            }
        }
        while k < room {
            let b = &buf[pos..];
            if b.len() <= n || !starts_with(b, prefix) {
                break;
            }
            // PAGE, then a newline or ` COUNT` and a newline; within the
            // buffer. `decimal` stops at the first non-digit (or after
            // 19 digits: longer numbers are the full parser's).
            let Some((page, i)) = decimal8(b, n) else { break };
            let (count, i) = match b.get(i) {
                Some(b'\n') => (1, i),
                Some(b' ') => match decimal(b, i + 1) {
                    Some((c, j)) if c != 0 && b.get(j) == Some(&b'\n') => (c, j),
                    _ => break,
                },
                _ => break,
            };
            match page.checked_add(count) {
                Some(end) if end <= pages => {}
                _ => break,
            }
            out_ops[k].write(op(page, count));
            line += 1;
            out_lines[k].write(line);
            k += 1;
            pos += i + 1;
        }
        (self.pos, self.line, self.k) = (pos, line, k);
    }
}

/// [`decimal`] for the text block decoder, eight bytes at a time: where
/// at least eight bytes follow `i`, the digits among them are found and
/// combined without a branch per digit (SWAR: the bytes as one u64, the
/// first character in the low byte). Page numbers of a trace are mostly
/// 4 to 7 digits, whose varying length made the per-digit loop's exit a
/// mispredicted branch. Eight digits in a row, or fewer than eight bytes
/// left, go to `decimal` itself; the result is always `decimal`'s.
#[inline(always)]
fn decimal8(b: &[u8], i: usize) -> Option<(u64, usize)> {
    let Some(w) = b.get(i..i + 8) else { return decimal(b, i) };
    let x = u64::from_le_bytes(w.try_into().unwrap());
    // A byte is a digit iff it XOR '0' is 0..=9: then adding 0x76 leaves
    // its top bit clear (and carries nothing into the next byte).
    let t = x ^ 0x3030_3030_3030_3030;
    let non_digit = (t.wrapping_add(0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080;
    // The lowest flagged byte is exact (only a non-digit byte can carry).
    let len = (non_digit.trailing_zeros() / 8) as usize;
    if len == 0 {
        return None;
    }
    if len == 8 {
        return decimal(b, i);
    }
    // The digits' values, moved to the top so the number reads as eight
    // digits with leading zeros, then combined pairwise: 2, 4, 8 digits.
    let d = (t & ((1u64 << (8 * len)) - 1)) << (8 * (8 - len));
    let d = (d.wrapping_mul(10 * 256 + 1) >> 8) & 0x00ff_00ff_00ff_00ff;
    let d = (d.wrapping_mul(100 * 65536 + 1) >> 16) & 0x0000_ffff_0000_ffff;
    let v = d.wrapping_mul(10000 * (1 << 32) + 1) >> 32;
    Some((v, i + len))
}

/// Whether `b` starts with `prefix` (no longer than `b`). The prefix of
/// an access line (`read TASK FILE `) is typically 8 to 24 bytes: compared
/// in 8-byte words, the last one overlapping, instead of by a call to
/// memcmp (which cost some 18 instructions a line).
#[inline(always)]
fn starts_with(b: &[u8], prefix: &[u8]) -> bool {
    let n = prefix.len();
    if n < 8 || n > 32 || b.len() < n {
        return b.len() >= n && b[..n] == *prefix;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    let mut at = 0;
    while at + 8 < n {
        if word(b, at) != word(prefix, at) {
            return false;
        }
        at += 8;
    }
    word(b, n - 8) == word(prefix, n - 8)
}

/// 1-based column (in characters) of byte offset `off` in `line`; offsets
/// past the end count as spaces.
pub(crate) fn column(line: &str, off: usize) -> u64 {
    if off > line.len() {
        return line.chars().count() as u64 + 1 + (off - line.len()) as u64;
    }
    match line.get(..off) {
        Some(p) => p.chars().count() as u64 + 1,
        None => off as u64 + 1,
    }
}

/// The spare room of `ops` and `lines` for the ops a block decoder may
/// add (up to `max` in `ops` in all): the block writes its ops and their
/// line numbers there and sets both lengths once at the end
/// ([`commit_room`]), so that its loop keeps its state in registers
/// instead of spilling it at every push.
#[inline]
pub(crate) fn spare_room<'a>(
    ops: &'a mut Vec<Op>,
    lines: &'a mut Vec<u64>,
    max: usize,
) -> (&'a mut [MaybeUninit<Op>], &'a mut [MaybeUninit<u64>]) {
    let room = max.saturating_sub(ops.len());
    ops.reserve(room);
    lines.reserve(room);
    (&mut ops.spare_capacity_mut()[..room], &mut lines.spare_capacity_mut()[..room])
}

/// Takes the first `k` slots of [`spare_room`]'s two slices into `ops` and
/// `lines`.
///
/// # Safety
/// Those `k` slots of both must have been written.
#[inline]
pub(crate) unsafe fn commit_room(ops: &mut Vec<Op>, lines: &mut Vec<u64>, k: usize) {
    ops.set_len(ops.len() + k);
    lines.set_len(lines.len() + k);
}

impl TraceReader {
    /// Opens a trace file. Compression (gzip: magic `1f 8b`, zstd: magic
    /// `28 b5 2f fd`) and the binary form (magic `MGLRUTB1`, also inside
    /// gzip/zstd) are detected from the content, not the file name.
    pub fn open(path: &Path) -> Result<TraceReader, TraceError> {
        let name = path.display().to_string();
        let f = File::open(path).map_err(|e| {
            TraceError::new(
                &name,
                Pos::None,
                TraceErrorKind::Io,
                format!("cannot open: {e}"),
            )
        })?;
        let total = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        TraceReader::build(name, Box::new(f), total)
    }

    /// Reads a trace from any reader (e.g. standard input), detecting
    /// compression and the binary form like [`open`](TraceReader::open).
    /// `name` is used in error messages. The reader must be `Send` so that
    /// a `TraceReader` can be moved to another thread.
    pub fn from_reader(name: &str, r: Box<dyn Read + Send>) -> Result<TraceReader, TraceError> {
        TraceReader::build(name.to_string(), r, None)
    }

    /// A reader over an uncompressed text trace held in a string (for tests
    /// and small generated traces). No format detection is done.
    pub fn from_str(name: &str, text: &str) -> TraceReader {
        let count = Arc::new(AtomicU64::new(0));
        let raw: Input = Box::new(Counting {
            inner: Box::new(Cursor::new(text.as_bytes().to_vec())),
            count: count.clone(),
        });
        TraceReader::with_input(
            name.to_string(),
            raw,
            Compression::None,
            false,
            count,
            Some(text.len() as u64),
        )
    }

    fn with_input(
        name: String,
        input: Input,
        compression: Compression,
        binary: bool,
        count: Arc<AtomicU64>,
        total: Option<u64>,
    ) -> TraceReader {
        let mut res = Resolver::new("line");
        let mut bin = BinState::default();
        if binary {
            res.set_unit("record");
            bin.offset = BINARY_MAGIC.len() as u64;
        }
        TraceReader {
            name,
            input: BufReader::with_capacity(BUF_SIZE, input),
            compression,
            binary,
            line: 0,
            buf: Vec::with_capacity(256),
            res,
            count,
            total,
            failed: None,
            bin,
            last: LastAccess {
                valid: false,
                prefix: Vec::with_capacity(MAX_PREFIX),
                kind: AccessKind::Read,
                task: 0,
                target: 0,
                pages: 0,
            },
            stmts: None,
        }
    }

    /// A reader over statements a program hands over instead of text (a
    /// workload generator: [`Statement`](crate::Statement)); it reads them
    /// exactly as the text trace they stand for, line numbers included.
    /// An access whose names and kind were resolved since the last line of
    /// text becomes its op without formatting or parsing.
    pub fn from_statements(name: &str, src: crate::Statements) -> TraceReader {
        let mut r = TraceReader::from_str(name, "");
        r.total = None;
        r.stmts = Some(crate::statement::StmtState::new(src));
        r
    }

    fn build(name: String, raw: Input, total: Option<u64>) -> Result<TraceReader, TraceError> {
        let count = Arc::new(AtomicU64::new(0));
        let counted: Input = Box::new(Counting {
            inner: raw,
            count: count.clone(),
        });
        let (compression, dec) = decompress(counted).map_err(|e| {
            TraceError::new(
                &name,
                Pos::None,
                TraceErrorKind::Io,
                format!("cannot read: {e}"),
            )
        })?;
        let (head, mut again) = peek(dec, BINARY_MAGIC.len()).map_err(|e| {
            let (kind, msg) = read_error_text(compression, &e);
            TraceError::new(&name, Pos::None, kind, msg)
        })?;
        let binary = head == BINARY_MAGIC;
        if binary {
            // The magic comes back from the in-memory head; drop it.
            let mut skip = [0u8; 8];
            again.read_exact(&mut skip).map_err(|e| {
                TraceError::new(
                    &name,
                    Pos::None,
                    TraceErrorKind::Io,
                    format!("cannot read: {e}"),
                )
            })?;
        }
        Ok(TraceReader::with_input(
            name,
            again,
            compression,
            binary,
            count,
            total,
        ))
    }

    /// Returns the next operation, `Ok(None)` at the end of the trace.
    #[inline]
    pub fn next_op(&mut self) -> Result<Option<Op>, TraceError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let r = if self.binary {
            self.next_binary()
        } else if self.stmts.is_some() {
            self.next_statement_op()
        } else {
            self.next_text()
        };
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    /// Appends the next operations to `ops`, and the line (text) or record
    /// (binary) of each to `lines`, until `ops` holds `max` of them or the
    /// trace ends; returns how many it appended, 0 at the end of the trace.
    ///
    /// The same operations as [`next_op`](Self::next_op) would return one
    /// by one, decoded in blocks (access records of a binary trace straight
    /// from the input buffer). An error after at least one operation of
    /// the block is held back: this call returns the operations before it,
    /// the next call the error (as `next_op` would have, in order).
    pub fn next_ops(&mut self, ops: &mut Vec<Op>, lines: &mut Vec<u64>, max: usize) -> Result<usize, TraceError> {
        if self.stmts.is_some() {
            return self.next_statement_ops(ops, lines, max);
        }
        let start = ops.len();
        while ops.len() < max {
            if self.failed.is_some() {
                break;
            }
            if self.binary {
                self.bin_access_block(ops, lines, max);
            } else {
                self.text_access_block(ops, lines, max);
            }
            if ops.len() >= max {
                break;
            }
            let r = if self.binary { self.next_binary() } else { self.next_text() };
            match r {
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

    /// Appends the access lines at the front of the input buffer that
    /// the shortcut of [`LastAccess`] reads (the last simple access's
    /// bytes up to PAGE, then `PAGE` or `PAGE COUNT` and a newline) to
    /// `ops` (and their line numbers to `lines`) until `ops` holds `max`,
    /// reading each line once, without looking for its end first. Stops,
    /// leaving the line for [`next_text`](Self::next_text), at any other
    /// line and at one that ends past the buffer; decodes the same ops
    /// as `next_text` would, one by one.
    fn text_access_block(&mut self, ops: &mut Vec<Op>, lines: &mut Vec<u64>, max: usize) {
        let last = &self.last;
        if !last.valid {
            return;
        }
        // As bin_access_block: the ops are written into the vectors' spare
        // room and their lengths set once at the end, and the loop is
        // instantiated per access kind, so that it keeps its state in
        // registers (pushing each op spilled and reloaded it, some 120
        // instructions a line in all).
        let (out_ops, out_lines) = spare_room(ops, lines, max);
        let mut run = TextRun { buf: self.input.buffer(), prefix: &last.prefix, pages: last.pages, pos: 0, line: self.line, k: 0 };
        let (task, t) = (last.task, last.target);
        match last.kind {
            AccessKind::Read => run.decode(out_ops, out_lines, |page, count| Op::Read { task, file: t, page, count }),
            AccessKind::Write => run.decode(out_ops, out_lines, |page, count| Op::Write { task, file: t, page, count }),
            AccessKind::Load => run.decode(out_ops, out_lines, |page, count| Op::Load { task, region: t, page, count }),
            AccessKind::Store => run.decode(out_ops, out_lines, |page, count| Op::Store { task, region: t, page, count }),
        }
        let (pos, line, k) = (run.pos, run.line, run.k);
        // SAFETY: the first `k` slots of both spare rooms were written
        // (TextRun::decode writes slot k, then counts it).
        unsafe { commit_room(ops, lines, k) };
        self.input.consume(pos);
        self.line = line;
    }

    #[inline]
    fn next_text(&mut self) -> Result<Option<Op>, TraceError> {
        // Blank and comment lines in a row, all read in this call: bounded
        // by MAX_EMPTY_RUN (a small gzip of 10 GB of newlines ran for minutes).
        let mut empty_run: u64 = 0;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) => {
                    return Err(self.read_error(
                        &e,
                        Pos::Text {
                            line: self.line + 1,
                            col: 1,
                        },
                    ))
                }
            };
            if avail.is_empty() {
                return Ok(None);
            }
            // Fast path: the whole line is in the buffer; parse it in place.
            if let Some((len, non_ascii)) = find_newline(avail) {
                self.line += 1;
                if len > MAX_LINE {
                    return Err(self.long_line_error());
                }
                if let Some(op) = self.last.op(&avail[..len]) {
                    self.input.consume(len + 1);
                    return Ok(Some(op));
                }
                let r = process_line(
                    &mut self.res,
                    &mut self.last,
                    &self.name,
                    self.line,
                    &avail[..len],
                    non_ascii,
                );
                let empty = r.as_ref().is_ok_and(|o| o.is_none()) && is_empty_line(&avail[..len]);
                self.input.consume(len + 1);
                match r {
                    Ok(None) => {
                        if empty {
                            empty_run += 1;
                            if empty_run > MAX_EMPTY_RUN {
                                return Err(self.empty_run_error());
                            }
                        }
                        continue;
                    }
                    other => return other,
                }
            }
            // Slow path: the line continues past the buffer (or is the last
            // line and has no newline): collect it in `buf`.
            self.buf.clear();
            if let Err(e) = (&mut self.input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
            {
                return Err(self.read_error(
                    &e,
                    Pos::Text {
                        line: self.line + 1,
                        col: 1,
                    },
                ));
            }
            self.line += 1;
            let mut end = self.buf.len();
            if self.buf.last() == Some(&b'\n') {
                end -= 1;
            } else if end > MAX_LINE {
                return Err(self.long_line_error());
            }
            let non_ascii = !self.buf[..end].is_ascii();
            match process_line(
                &mut self.res,
                &mut self.last,
                &self.name,
                self.line,
                &self.buf[..end],
                non_ascii,
            ) {
                Ok(None) => {
                    if is_empty_line(&self.buf[..end]) {
                        empty_run += 1;
                        if empty_run > MAX_EMPTY_RUN {
                            return Err(self.empty_run_error());
                        }
                    }
                    continue;
                }
                other => return other,
            }
        }
    }

    /// One line of text (no newline) at line `self.line`, as a text
    /// trace reads it.
    pub(crate) fn process_text_line(&mut self, bytes: &[u8], non_ascii: bool) -> Result<Option<Op>, TraceError> {
        process_line(&mut self.res, &mut self.last, &self.name, self.line, bytes, non_ascii)
    }

    #[cold]
    fn empty_run_error(&self) -> TraceError {
        self.error(
            Pos::Text { line: self.line, col: 1 },
            TraceErrorKind::Invalid,
            format!("{MAX_EMPTY_RUN} blank or comment lines in a row, up to this one (is this really a trace file?)"),
        )
    }

    #[cold]
    pub(crate) fn long_line_error(&self) -> TraceError {
        self.error(
            Pos::Text {
                line: self.line,
                col: 1,
            },
            TraceErrorKind::Invalid,
            format!("line is longer than {MAX_LINE} bytes (is this really a trace file?)"),
        )
    }

    pub(crate) fn error(&self, pos: Pos, kind: TraceErrorKind, msg: String) -> TraceError {
        TraceError::new(&self.name, pos, kind, msg)
    }

    pub(crate) fn read_error(&self, e: &io::Error, pos: Pos) -> TraceError {
        let (kind, msg) = read_error_text(self.compression, e);
        self.error(pos, kind, msg)
    }

    /// The input name used in messages (the path for [`open`](Self::open)).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The 1-based number of the line (text) or record (binary) of the
    /// last statement read; 0 before the first.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The current position, displayed as `FILE:LINE` (text) or
    /// `FILE:record N` (binary).
    pub fn location(&self) -> Location<'_> {
        Location {
            file: &self.name,
            line: self.line,
            binary: self.binary,
        }
    }

    /// Bytes consumed so far from the underlying input (compressed bytes
    /// for a compressed file). Input is read ahead in blocks, so this runs
    /// ahead of the parser by up to a few hundred KiB.
    pub fn bytes_read(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The size of the input in bytes when known (a regular file opened
    /// with [`open`](Self::open), or [`from_str`](Self::from_str)), for
    /// progress as `bytes_read() / total_bytes()`.
    pub fn total_bytes(&self) -> Option<u64> {
        self.total
    }

    /// The detected compression.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// True if the input is the binary form.
    pub fn is_binary(&self) -> bool {
        self.binary
    }

    /// The name of memcg `id` (`"root"` for 0); `"?"` for an unknown id.
    pub fn memcg_name(&self, id: u16) -> &str {
        self.res.memcg_name(id).unwrap_or("?")
    }

    /// The name (ID token) of task `id`; `"?"` for an unknown id.
    pub fn task_name(&self, id: u32) -> &str {
        self.res.task_name(id).unwrap_or("?")
    }

    /// The name of file `id`; `"?"` for an unknown id.
    pub fn file_name(&self, id: u32) -> &str {
        self.res.file_name(id).unwrap_or("?")
    }

    /// The (task name, region name) of region `id`; `("?", "?")` for an
    /// unknown id.
    pub fn region_name(&self, id: u32) -> (&str, &str) {
        self.res.region_name(id).unwrap_or(("?", "?"))
    }

    /// Number of memcgs defined so far, root included.
    pub fn memcg_count(&self) -> usize {
        self.res.memcg_count()
    }

    /// Number of tasks defined so far (exited ones included).
    pub fn task_count(&self) -> usize {
        self.res.task_count()
    }

    /// Number of files defined so far.
    pub fn file_count(&self) -> usize {
        self.res.file_count()
    }

    /// Number of regions defined so far (over all tasks).
    pub fn region_count(&self) -> usize {
        self.res.region_count()
    }

    /// The id of the memcg called `name`, if defined (`root` is 0).
    pub fn memcg_id(&self, name: &str) -> Option<u16> {
        self.res.memcg_id(name)
    }

    /// The id of the task called `name`, if defined.
    pub fn task_id(&self, name: &str) -> Option<u32> {
        self.res.task_id(name)
    }

    /// The id of the file called `name`, if defined.
    pub fn file_id(&self, name: &str) -> Option<u32> {
        self.res.file_id(name)
    }

    /// The id of region `region` of task `task`, if defined.
    pub fn region_id(&self, task: &str, region: &str) -> Option<u32> {
        self.res.region_id(task, region)
    }

    /// The parent of memcg `id` (root is its own parent).
    pub fn memcg_parent(&self, id: u16) -> Option<u16> {
        self.res.memcg_parent(id)
    }

    /// The memcg of task `id`.
    pub fn task_memcg(&self, id: u32) -> Option<u16> {
        self.res.task_memcg(id)
    }

    /// The size of file `id` in pages.
    pub fn file_pages(&self, id: u32) -> Option<u64> {
        self.res.file_pages(id)
    }

    /// The task owning region `id`.
    pub fn region_task(&self, id: u32) -> Option<u32> {
        self.res.region_task(id)
    }

    /// The size of region `id` in pages.
    pub fn region_pages(&self, id: u32) -> Option<u64> {
        self.res.region_pages(id)
    }

    /// The file mapped by region `id` (`None` for an anonymous region or an
    /// unknown id).
    pub fn region_file(&self, id: u32) -> Option<u32> {
        self.res.region_file(id)
    }

    /// Formats `op` as a trace statement using the current name tables
    /// (e.g. for messages). Fed back at the same point of a trace it
    /// resolves to the same op. Sizes are written in bytes, durations in
    /// ns. (An `LruGenAge` with `swappiness: None` is written without its
    /// optional arguments, i.e. with the default `force_scan`; likewise for
    /// `LruGenEvict` and `nr_to_reclaim`: the text format cannot express
    /// other combinations, and the reader never produces them.)
    pub fn op_to_text(&self, op: &Op) -> String {
        self.res.op_to_text(op)
    }
}

/// Finds the first `\n` in `b`: its index and whether any byte before it
/// is not ASCII. Scans 8 bytes at a time.
#[inline(always)]
fn find_newline(b: &[u8]) -> Option<(usize, bool)> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut hi: u64 = 0;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(a);
        let x = w ^ NL;
        let z = x.wrapping_sub(ONES) & !x & HIGH;
        if z != 0 {
            // The lowest flagged byte is exact (borrows only propagate
            // upwards from a real zero byte).
            let k = (z.trailing_zeros() / 8) as usize;
            let below = if k == 0 { 0 } else { u64::MAX >> (64 - 8 * k) };
            hi |= w & below;
            return Some((i + k, hi & HIGH != 0));
        }
        hi |= w;
        i += 8;
    }
    let mut h = (hi & HIGH) != 0;
    while i < b.len() {
        if b[i] == b'\n' {
            return Some((i, h));
        }
        h |= b[i] >= 0x80;
        i += 1;
    }
    None
}

/// The most blank or comment lines in a row a text trace may have: no
/// generator writes more than a few, and reading 2^24 of them takes well
/// under a second, where 10 GB of newlines (a 43 MB gzip) took minutes.
pub const MAX_EMPTY_RUN: u64 = 1 << 24;

/// A line with no statement: only spaces and tabs, or a comment.
fn is_empty_line(b: &[u8]) -> bool {
    match b.iter().position(|&c| c != b' ' && c != b'\t' && c != b'\r') {
        None => true,
        Some(i) => b[i] == b'#',
    }
}

/// Parses and resolves one line (without its newline). `Ok(None)` for a
/// blank or comment line.
#[inline(always)]
fn process_line(
    res: &mut Resolver,
    last: &mut LastAccess,
    name: &str,
    lineno: u64,
    bytes: &[u8],
    non_ascii: bool,
) -> Result<Option<Op>, TraceError> {
    last.valid = false;
    let line: &str = if non_ascii {
        match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => return Err(utf8_error(name, lineno, bytes, e)),
        }
    } else {
        // SAFETY: every byte is below 0x80 (checked by the caller), and a
        // sequence of ASCII bytes is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    };
    if let Some(a) = parse_access_simple(line) {
        let (kind, prefix) = (a.kind, a.page_off);
        return match res.resolve_access(a, lineno) {
            Ok(op) => {
                if prefix <= MAX_PREFIX {
                    let (task, target) = match op {
                        Op::Read { task, file, .. } | Op::Write { task, file, .. } => (task, file),
                        Op::Load { task, region, .. } | Op::Store { task, region, .. } => (task, region),
                        _ => unreachable!("an access resolves to an access"),
                    };
                    last.prefix.clear();
                    last.prefix.extend_from_slice(&bytes[..prefix]);
                    *last = LastAccess {
                        valid: true,
                        prefix: std::mem::take(&mut last.prefix),
                        kind,
                        task,
                        target,
                        pages: res.target_pages(kind.is_region(), u64::from(target)),
                    };
                }
                Ok(Some(op))
            }
            Err(e) => Err(line_error(name, lineno, line, e)),
        };
    }
    let r = match parse_access(line) {
        Some(Ok(a)) => res.resolve_access(a, lineno),
        Some(Err(e)) => Err(e),
        None => match parse_line(line) {
            Ok(None) => return Ok(None),
            Ok(Some((kw, st))) => res.resolve(kw, st, lineno),
            Err(e) => Err(e),
        },
    };
    match r {
        Ok(op) => Ok(Some(op)),
        Err(e) => Err(line_error(name, lineno, line, e)),
    }
}

#[cold]
fn line_error(name: &str, lineno: u64, line: &str, e: PErr) -> TraceError {
    let col = column(line, e.off);
    TraceError::new(
        name,
        Pos::Text { line: lineno, col },
        TraceErrorKind::Invalid,
        e.msg,
    )
}

#[cold]
fn utf8_error(name: &str, lineno: u64, bytes: &[u8], e: std::str::Utf8Error) -> TraceError {
    let good = e.valid_up_to();
    let prefix = std::str::from_utf8(&bytes[..good]).unwrap_or("");
    let col = prefix.chars().count() as u64 + 1;
    let hint = if lineno == 1 {
        " (is this a compressed file in an unsupported format?)"
    } else {
        ""
    };
    let bad = bytes.get(good).copied().unwrap_or(0);
    TraceError::new(
        name,
        Pos::Text { line: lineno, col },
        TraceErrorKind::Invalid,
        format!("invalid UTF-8 (byte 0x{bad:02x}): a trace must be UTF-8 text{hint}"),
    )
}

/// Kind and message for an error while reading the (decompressed) input.
fn read_error_text(c: Compression, e: &io::Error) -> (TraceErrorKind, String) {
    match c {
        Compression::None => (TraceErrorKind::Io, format!("read error: {e}")),
        _ => (
            TraceErrorKind::Corrupt,
            format!(
                "cannot decompress {} data (the file is truncated or corrupt): {e}",
                c.name()
            ),
        ),
    }
}

impl Iterator for TraceReader {
    type Item = Result<Op, TraceError>;

    /// Yields ops until the end of the trace; an error is yielded once and
    /// ends the iteration.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed.is_some() {
            return None;
        }
        self.next_op().transpose()
    }
}

impl fmt::Debug for TraceReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceReader")
            .field("name", &self.name)
            .field("line", &self.line)
            .field("binary", &self.binary)
            .field("compression", &self.compression)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod fast_text_tests {
    use super::{decimal, decimal8, starts_with};

    /// A small deterministic generator (xorshift) for the cases below.
    fn next(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    #[test]
    fn decimal8_agrees_with_decimal() {
        let alphabet = b"0123456789 \n/:a\xff";
        let mut s = 0x9e37_79b9_7f4a_7c15;
        for case in 0..200_000 {
            let len = (next(&mut s) % 26) as usize;
            // Mostly digits, so that every length of number is common.
            let b: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next(&mut s);
                    if r % 4 != 0 { b'0' + (r / 4 % 10) as u8 } else { alphabet[(r / 4 % alphabet.len() as u64) as usize] }
                })
                .collect();
            let i = if len == 0 { 0 } else { (next(&mut s) % len as u64) as usize };
            assert_eq!(decimal8(&b, i), decimal(&b, i), "case {case}: {:?} at {i}", String::from_utf8_lossy(&b));
        }
        for v in [0u64, 7, 10, 99, 1_000_000, 9_999_999, 12_345_678, u64::MAX / 10] {
            let t = format!("{v}\n........................");
            assert_eq!(decimal8(t.as_bytes(), 0), Some((v, v.to_string().len())));
        }
    }

    #[test]
    fn starts_with_agrees_with_slices() {
        let mut s = 0x2545_f491_4f6c_dd1d;
        for _ in 0..100_000 {
            let n = (next(&mut s) % 40) as usize;
            let prefix: Vec<u8> = (0..n).map(|_| b"ab "[(next(&mut s) % 3) as usize]).collect();
            let mut b = prefix.clone();
            if n > 0 && next(&mut s) % 2 == 0 {
                let k = (next(&mut s) % n as u64) as usize;
                b[k] = b'x';
            }
            b.extend((0..next(&mut s) % 4).map(|_| b'7'));
            if next(&mut s) % 5 == 0 {
                b.truncate((next(&mut s) % (b.len() as u64 + 1)) as usize);
            }
            assert_eq!(starts_with(&b, &prefix), b.len() >= n && b[..n] == prefix[..]);
        }
    }
}
