// SPDX-License-Identifier: GPL-2.0-only
//! The compact binary form of a trace.
//!
//! Layout (all integers are unsigned LEB128 varints unless noted):
//!
//! ```text
//! file    = magic record* end
//! magic   = "MGLRUTB1"                         8 bytes
//! record  = access | text | sleep
//! access  = tag:u8 [task target] page [count]  tag = 1 k k s c c c c (binary)
//!             k k     : 00 read, 01 write, 10 load, 11 store
//!             s       : 1 = same task and target as the previous access
//!                       record (which must be of the same class: read/write
//!                       use files, load/store regions); task and target are
//!                       then omitted and page is zigzag(page - prev_end),
//!                       where prev_end = previous page + previous count
//!                       (wrapping u64 arithmetic);
//!                       0 = task id, target id (file or region id) and the
//!                       absolute page follow
//!             c c c c : count 1..=15, or 0 = a count varint follows
//! text    = 0x01 len bytes[len]                one statement in text form
//!                                              (UTF-8, no newline)
//! sleep   = 0x02 ns
//! end     = 0x00 n                             n = number of records
//!                                              before it; nothing may follow
//! ```
//!
//! Every op other than the accesses and `sleep` is stored as text (in the
//! canonical form of [`TraceReader::op_to_text`]); the reader resolves
//! those exactly like a text trace, which rebuilds the name tables, so ids
//! in access records refer to the same objects as in the text trace.

use crate::error::{Pos, TraceErrorKind};
use crate::parse::{parse_line, AccessKind, PErr};
use crate::reader::{column, commit_room, spare_room, TraceReader, MAX_LINE};
use crate::{Op, TraceError};
use std::io::{BufRead, BufWriter, Read, Write};
use std::mem::MaybeUninit;

/// The first 8 bytes of a binary trace (after decompression).
pub const BINARY_MAGIC: [u8; 8] = *b"MGLRUTB1";

const TAG_END: u8 = 0x00;
const TAG_TEXT: u8 = 0x01;
const TAG_SLEEP: u8 = 0x02;
const TAG_ACCESS: u8 = 0x80;
const FLAG_SAME: u8 = 0x10;
const COUNT_MASK: u8 = 0x0f;

/// The previous access record, for the `same` short form.
#[derive(Debug, Default, Clone, Copy)]
struct Prev {
    valid: bool,
    region: bool,
    task: u64,
    target: u64,
    end: u64,
}

/// The (class, task, target) of the last access record that passed
/// [`Resolver::check_access`](crate::resolve::Resolver::check_access), and
/// the size of its target: a later record with the same three needs only
/// its page range checked. Names, sizes and live tasks change only through
/// text records, which clear it.
#[derive(Debug, Default, Clone, Copy)]
struct Checked {
    valid: bool,
    region: bool,
    task: u64,
    target: u64,
    pages: u64,
}

/// Decoder state of a binary trace.
#[derive(Debug, Default)]
pub(crate) struct BinState {
    /// Offset of the next byte in the decompressed stream.
    pub offset: u64,
    prev: Prev,
    checked: Checked,
    ended: bool,
}

/// The longest access record: its tag and four varints of at most 10
/// bytes. With this much in the buffer an access record decodes without
/// asking the input for more.
const MAX_ACCESS_RECORD: usize = 1 + 4 * 10;

/// A varint at `b[*pos..]`, which holds at least 10 bytes; `None` if it is
/// longer than 10 bytes or overflows (the slow path reports it).
#[inline(always)]
fn varint_at(b: &[u8], pos: &mut usize) -> Option<u64> {
    let first = b[*pos];
    if first < 0x80 {
        *pos += 1;
        return Some(u64::from(first));
    }
    let s = &b[*pos..*pos + 10];
    match get_varint(s) {
        Ok(Some((v, n))) => {
            *pos += n;
            Some(v)
        }
        _ => None,
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a varint from the start of `b`: `Ok(Some((value, length)))`,
/// `Ok(None)` if `b` ends before the varint does, `Err` if it is too long.
#[inline]
fn get_varint(b: &[u8]) -> Result<Option<(u64, usize)>, ()> {
    let mut v: u64 = 0;
    for (i, &byte) in b.iter().enumerate().take(10) {
        if i == 9 && byte > 1 {
            return Err(());
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Some((v, i + 1)));
        }
    }
    if b.len() >= 10 {
        Err(())
    } else {
        Ok(None)
    }
}

fn kind_of(tag: u8) -> AccessKind {
    match (tag >> 5) & 3 {
        0 => AccessKind::Read,
        1 => AccessKind::Write,
        2 => AccessKind::Load,
        _ => AccessKind::Store,
    }
}

/// A run of access records in the short form (`same` flag set, count in
/// the tag) that share one tag byte, decoded by
/// [`TraceReader::bin_access_block`] after the first of them: the kind,
/// task, target and count are the first one's, and its target passed the
/// check, so a record is its tag, its page delta and a range check.
struct SameRun<'a> {
    buf: &'a [u8],
    /// The next record's offset in `buf`.
    pos: usize,
    /// The record number of the last record decoded.
    line: u64,
    /// The previous record's page + count.
    end: u64,
    count: u64,
    /// The size of the checked target, in pages.
    pages: u64,
    /// Slots of the output written so far.
    k: usize,
    tag: u8,
}

/// The longest record of a [`SameRun`]: its tag and one varint.
const MAX_SAME_RECORD: usize = 1 + 10;

impl SameRun<'_> {
    /// Decodes records while they have the run's tag, fit in the buffer,
    /// and their pages are in range (any other record is left for the
    /// general decoder, which reports what is wrong with it exactly as
    /// before); `op` builds the operation of a page.
    #[inline(always)]
    fn decode(&mut self, out_ops: &mut [MaybeUninit<Op>], out_lines: &mut [MaybeUninit<u64>], op: impl Fn(u64) -> Op) {
        let buf = self.buf;
        let (mut pos, mut line, mut end, mut k) = (self.pos, self.line, self.end, self.k);
        let room = out_ops.len().min(out_lines.len());
        while k < room && buf.len() - pos >= MAX_SAME_RECORD {
            // One bounds check for the record's longest form.
            let r: &[u8; MAX_SAME_RECORD] = buf[pos..pos + MAX_SAME_RECORD].try_into().unwrap();
            if r[0] != self.tag {
                break;
            }
            // Page deltas of up to three bytes (21 bits) inline; longer
            // ones by varint_at.
            let (d, len) = if r[1] < 0x80 {
                (u64::from(r[1]), 1)
            } else if r[2] < 0x80 {
                (u64::from(r[1] & 0x7f) | u64::from(r[2]) << 7, 2)
            } else if r[3] < 0x80 {
                (u64::from(r[1] & 0x7f) | u64::from(r[2] & 0x7f) << 7 | u64::from(r[3]) << 14, 3)
            } else {
                let mut p = pos + 1;
                let Some(d) = varint_at(buf, &mut p) else { break };
                (d, p - pos - 1)
            };
            let p = pos + 1 + len;
            let page = end.wrapping_add(unzigzag(d) as u64);
            let e = page.wrapping_add(self.count);
            // The count is not 0 (it is in the tag): this is the check the
            // loop of bin_access_block makes against the checked target.
            if e < page || e > self.pages {
                break;
            }
            out_ops[k].write(op(page));
            line += 1;
            out_lines[k].write(line);
            k += 1;
            pos = p;
            end = e;
        }
        (self.pos, self.line, self.end, self.k) = (pos, line, end, k);
    }
}

impl TraceReader {
    fn corrupt(&self, offset: u64, msg: String) -> TraceError {
        self.error(Pos::Binary { offset }, TraceErrorKind::Corrupt, msg)
    }

    /// The next byte, `None` at the end of input.
    #[inline]
    fn bin_byte(&mut self) -> Result<Option<u8>, TraceError> {
        let b = match self.input.fill_buf() {
            Ok(b) => b,
            Err(e) => {
                return Err(self.read_error(
                    &e,
                    Pos::Binary {
                        offset: self.bin.offset,
                    },
                ));
            }
        };
        let Some(&v) = b.first() else {
            return Ok(None);
        };
        self.input.consume(1);
        self.bin.offset += 1;
        Ok(Some(v))
    }

    #[inline]
    fn bin_varint(&mut self, what: &str) -> Result<u64, TraceError> {
        let start = self.bin.offset;
        // Fast path: the whole varint is in the buffer.
        match get_varint(self.input.buffer()) {
            Ok(Some((v, n))) => {
                self.input.consume(n);
                self.bin.offset += n as u64;
                return Ok(v);
            }
            Ok(None) => {}
            Err(()) => return Err(self.corrupt(start, format!("{what}: varint is too long"))),
        }
        let mut tmp = [0u8; 10];
        for slot in tmp.iter_mut() {
            let Some(b) = self.bin_byte()? else {
                return Err(self.corrupt(
                    start,
                    format!("truncated binary trace: input ends inside {what}"),
                ));
            };
            *slot = b;
            if b & 0x80 == 0 {
                break;
            }
        }
        match get_varint(&tmp) {
            Ok(Some((v, _))) => Ok(v),
            _ => Err(self.corrupt(start, format!("{what}: varint is too long"))),
        }
    }

    /// Returns the next op of a binary trace.
    pub(crate) fn next_binary(&mut self) -> Result<Option<Op>, TraceError> {
        loop {
            if self.bin.ended {
                return Ok(None);
            }
            let start = self.bin.offset;
            let Some(tag) = self.bin_byte()? else {
                return Err(self.corrupt(
                    start,
                    "truncated binary trace: the end record is missing (was the file cut short?)"
                        .to_string(),
                ));
            };
            self.line += 1;
            if tag & TAG_ACCESS != 0 {
                return self.bin_access(tag, start).map(Some);
            }
            match tag {
                TAG_SLEEP => {
                    let ns = self.bin_varint("sleep duration")?;
                    let limit = if ns > crate::limits::MAX_SLEEP_NS {
                        Err(crate::limits::sleep_too_long(&format!("{ns}ns")))
                    } else {
                        self.res.add_sleep(ns)
                    };
                    if let Err(msg) = limit {
                        return Err(self.error(Pos::Binary { offset: start }, TraceErrorKind::Invalid, msg));
                    }
                    self.res.note_statement(self.line, "sleep");
                    return Ok(Some(Op::Sleep { ns }));
                }
                TAG_TEXT => {
                    self.bin.checked.valid = false;
                    if let Some(op) = self.bin_text(start)? {
                        return Ok(Some(op));
                    }
                }
                TAG_END => {
                    let n = self.bin_varint("end record")?;
                    // The end record is not counted as a record.
                    self.line -= 1;
                    let seen = self.line;
                    if n != seen {
                        return Err(self.corrupt(
                            start,
                            format!("end record counts {n} records but {seen} were read: the trace is corrupt"),
                        ));
                    }
                    match self.input.fill_buf() {
                        Ok([]) => {}
                        Ok(_) => {
                            return Err(self.corrupt(
                                self.bin.offset,
                                "unexpected data after the end record".to_string(),
                            ))
                        }
                        Err(e) => {
                            return Err(self.read_error(&e, Pos::Binary { offset: self.bin.offset }))
                        }
                    }
                    self.bin.ended = true;
                    return Ok(None);
                }
                _ => {
                    return Err(self.corrupt(
                        start,
                        format!("unknown record tag 0x{tag:02x}: the trace is corrupt or from a newer version"),
                    ))
                }
            }
        }
    }

    /// Appends the access records at the front of the input buffer to
    /// `ops` (and their record numbers to `lines`) until `ops` holds `max`,
    /// decoding straight from the buffer. Stops, leaving the record for
    /// [`next_binary`](Self::next_binary), at any other record, at a record
    /// that might not fit in what is buffered, and at anything that is not
    /// a valid access (which `next_binary` then reports exactly as it would
    /// have). Decodes the same ops as `next_binary` would, one by one.
    pub(crate) fn bin_access_block(&mut self, ops: &mut Vec<Op>, lines: &mut Vec<u64>, max: usize) {
        if self.bin.ended {
            return;
        }
        let buf = self.input.buffer();
        let res = &mut self.res;
        let bin = &mut self.bin;
        let mut pos = 0;
        let mut line = self.line;
        // The records are written into the vectors' spare room, their
        // lengths set once at the end.
        let (out_ops, out_lines) = spare_room(ops, lines, max);
        let room = out_ops.len();
        let mut k = 0;
        // The previous and the checked access stay in locals while the
        // block decodes; stored back once after it.
        let mut prev = bin.prev;
        let mut checked = bin.checked;
        while k < room && buf.len() - pos >= MAX_ACCESS_RECORD {
            let tag = buf[pos];
            if tag & TAG_ACCESS == 0 {
                break;
            }
            let mut p = pos + 1;
            let kind = kind_of(tag);
            let region = kind.is_region();
            let (task, target, page) = if tag & FLAG_SAME != 0 {
                if !prev.valid || prev.region != region {
                    break;
                }
                let Some(d) = varint_at(buf, &mut p) else { break };
                (prev.task, prev.target, prev.end.wrapping_add(unzigzag(d) as u64))
            } else {
                let Some(task) = varint_at(buf, &mut p) else { break };
                let Some(target) = varint_at(buf, &mut p) else { break };
                let Some(page) = varint_at(buf, &mut p) else { break };
                (task, target, page)
            };
            let count = match tag & COUNT_MASK {
                0 => {
                    let Some(c) = varint_at(buf, &mut p) else { break };
                    c
                }
                c => u64::from(c),
            };
            let c = checked;
            let end = page.wrapping_add(count);
            if !(c.valid && c.region == region && c.task == task && c.target == target && count != 0 && end >= page && end <= c.pages) {
                // The full check (which also records the end of the setup
                // section); on failure next_binary repeats it and reports.
                if res.check_access(kind, task, target, page, count, line + 1).is_err() {
                    break;
                }
                checked = Checked {
                    valid: true,
                    region,
                    task,
                    target,
                    pages: res.target_pages(region, target),
                };
            }
            // Both ids index tables shorter than u32::MAX (check_access).
            let (t, g) = (task as u32, target as u32);
            prev = Prev {
                valid: true,
                region,
                task,
                target,
                end,
            };
            out_ops[k].write(match kind {
                AccessKind::Read => Op::Read { task: t, file: g, page, count },
                AccessKind::Write => Op::Write { task: t, file: g, page, count },
                AccessKind::Load => Op::Load { task: t, region: g, page, count },
                AccessKind::Store => Op::Store { task: t, region: g, page, count },
            });
            line += 1;
            out_lines[k].write(line);
            k += 1;
            pos = p;
            // The records that follow with the very same tag byte, in the
            // short form with the count in the tag, are of the same kind,
            // task and target as this one, which passed the check: each
            // needs only its page delta decoded and its range checked.
            // (A zipf or random trace of one task is almost all such
            // records.) Stops where the loop above would take another
            // path; it then decodes that record as before.
            if tag & FLAG_SAME != 0 && count != 0 && tag & COUNT_MASK != 0 {
                let mut run = SameRun { buf, pos, line, end, count, pages: checked.pages, k, tag };
                let (t, g) = (t, g);
                match kind {
                    AccessKind::Read => run.decode(out_ops, out_lines, |page| Op::Read { task: t, file: g, page, count }),
                    AccessKind::Write => run.decode(out_ops, out_lines, |page| Op::Write { task: t, file: g, page, count }),
                    AccessKind::Load => run.decode(out_ops, out_lines, |page| Op::Load { task: t, region: g, page, count }),
                    AccessKind::Store => run.decode(out_ops, out_lines, |page| Op::Store { task: t, region: g, page, count }),
                }
                (pos, line, k) = (run.pos, run.line, run.k);
                prev.end = run.end;
            }
        }
        bin.prev = prev;
        bin.checked = checked;
        // SAFETY: the first `k` slots of both spare rooms were written
        // above (each iteration writes slot k, then counts it).
        unsafe { commit_room(ops, lines, k) };
        self.input.consume(pos);
        self.bin.offset += pos as u64;
        self.line = line;
    }

    #[inline]
    fn bin_access(&mut self, tag: u8, start: u64) -> Result<Op, TraceError> {
        let kind = kind_of(tag);
        let region = kind.is_region();
        let prev = self.bin.prev;
        let (task, target, page) = if tag & FLAG_SAME != 0 {
            if !prev.valid || prev.region != region {
                return Err(self.corrupt(
                    start,
                    "access record refers to a previous access of the same kind, but there is none"
                        .to_string(),
                ));
            }
            let d = self.bin_varint("page delta")?;
            (
                prev.task,
                prev.target,
                prev.end.wrapping_add(unzigzag(d) as u64),
            )
        } else {
            let task = self.bin_varint("task id")?;
            let target = self.bin_varint("target id")?;
            let page = self.bin_varint("page")?;
            (task, target, page)
        };
        let count = match tag & COUNT_MASK {
            0 => self.bin_varint("count")?,
            c => u64::from(c),
        };
        let (t, g) = match self
            .res
            .check_access(kind, task, target, page, count, self.line)
        {
            Ok(ids) => ids,
            Err(m) => return Err(self.corrupt(start, format!("invalid access record: {m}"))),
        };
        self.bin.prev = Prev {
            valid: true,
            region,
            task,
            target,
            end: page + count,
        };
        Ok(match kind {
            AccessKind::Read => Op::Read {
                task: t,
                file: g,
                page,
                count,
            },
            AccessKind::Write => Op::Write {
                task: t,
                file: g,
                page,
                count,
            },
            AccessKind::Load => Op::Load {
                task: t,
                region: g,
                page,
                count,
            },
            AccessKind::Store => Op::Store {
                task: t,
                region: g,
                page,
                count,
            },
        })
    }

    fn bin_text(&mut self, start: u64) -> Result<Option<Op>, TraceError> {
        let len = self.bin_varint("text length")?;
        if len > MAX_LINE as u64 {
            return Err(self.corrupt(
                start,
                format!("text record of {len} bytes is longer than the maximum {MAX_LINE}"),
            ));
        }
        self.buf.clear();
        self.buf.resize(len as usize, 0);
        if let Err(e) = self.input.read_exact(&mut self.buf) {
            return Err(if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.corrupt(
                    start,
                    "truncated binary trace: input ends inside a text record".to_string(),
                )
            } else {
                self.read_error(&e, Pos::Binary { offset: start })
            });
        }
        self.bin.offset += len;
        let text = match std::str::from_utf8(&self.buf) {
            Ok(s) => s,
            Err(_) => {
                return Err(self.corrupt(start, "text record is not valid UTF-8".to_string()));
            }
        };
        let r = match parse_line(text) {
            Ok(None) => return Ok(None),
            Ok(Some((kw, st))) => self.res.resolve(kw, st, self.line),
            Err(e) => Err(e),
        };
        match r {
            Ok(op) => Ok(Some(op)),
            Err(PErr { off, msg }) => {
                let col = column(text, off);
                let msg = format!("in statement `{text}` (column {col}): {msg}");
                Err(self.error(Pos::Binary { offset: start }, TraceErrorKind::Invalid, msg))
            }
        }
    }
}

/// Encoder state.
struct Encoder {
    prev: Prev,
    rec: Vec<u8>,
}

impl Encoder {
    fn access(&mut self, kind: AccessKind, task: u32, target: u32, page: u64, count: u64) {
        let region = kind.is_region();
        let (task, target) = (u64::from(task), u64::from(target));
        let k = match kind {
            AccessKind::Read => 0u8,
            AccessKind::Write => 1,
            AccessKind::Load => 2,
            AccessKind::Store => 3,
        };
        let mut tag = TAG_ACCESS | (k << 5);
        let p = self.prev;
        let same = p.valid && p.region == region && p.task == task && p.target == target;
        if same {
            tag |= FLAG_SAME;
        }
        if (1..=15).contains(&count) {
            tag |= count as u8;
        }
        self.rec.push(tag);
        if same {
            put_varint(&mut self.rec, zigzag(page.wrapping_sub(p.end) as i64));
        } else {
            put_varint(&mut self.rec, task);
            put_varint(&mut self.rec, target);
            put_varint(&mut self.rec, page);
        }
        if tag & COUNT_MASK == 0 {
            put_varint(&mut self.rec, count);
        }
        self.prev = Prev {
            valid: true,
            region,
            task,
            target,
            end: page.wrapping_add(count),
        };
    }
}

/// Converts the rest of the trace read by `reader` (text or binary) into
/// the binary form and writes it to `out` (buffered internally; compress
/// the output externally if wanted, e.g. by wrapping `out` in a gzip
/// encoder). Returns the number of ops written.
///
/// Reading the result with [`TraceReader`] yields exactly the same [`Op`]
/// sequence as `reader` would have. Call it on a fresh reader: ops already
/// taken from `reader` are not written, and without them the binary trace
/// would refer to undefined names.
pub fn write_binary(reader: &mut TraceReader, out: &mut dyn Write) -> Result<u64, TraceError> {
    let mut w = BufWriter::with_capacity(256 << 10, out);
    let werr = |reader: &TraceReader, e: std::io::Error| {
        TraceError::new(
            &reader.name,
            Pos::None,
            TraceErrorKind::Io,
            format!(
                "cannot write the binary trace (after {}): {e}",
                reader.location()
            ),
        )
    };
    w.write_all(&BINARY_MAGIC).map_err(|e| werr(reader, e))?;
    let mut enc = Encoder {
        prev: Prev::default(),
        rec: Vec::with_capacity(64),
    };
    let mut n: u64 = 0;
    while let Some(op) = reader.next_op()? {
        enc.rec.clear();
        match op {
            Op::Read {
                task,
                file,
                page,
                count,
            } => enc.access(AccessKind::Read, task, file, page, count),
            Op::Write {
                task,
                file,
                page,
                count,
            } => enc.access(AccessKind::Write, task, file, page, count),
            Op::Load {
                task,
                region,
                page,
                count,
            } => enc.access(AccessKind::Load, task, region, page, count),
            Op::Store {
                task,
                region,
                page,
                count,
            } => enc.access(AccessKind::Store, task, region, page, count),
            Op::Sleep { ns } => {
                enc.rec.push(TAG_SLEEP);
                put_varint(&mut enc.rec, ns);
            }
            other => {
                let text = reader.op_to_text(&other);
                enc.rec.push(TAG_TEXT);
                put_varint(&mut enc.rec, text.len() as u64);
                enc.rec.extend_from_slice(text.as_bytes());
            }
        }
        w.write_all(&enc.rec).map_err(|e| werr(reader, e))?;
        n += 1;
    }
    enc.rec.clear();
    enc.rec.push(TAG_END);
    put_varint(&mut enc.rec, n);
    w.write_all(&enc.rec).map_err(|e| werr(reader, e))?;
    w.flush().map_err(|e| werr(reader, e))?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX - 1, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(get_varint(&b), Ok(Some((v, b.len()))));
            assert_eq!(get_varint(&b[..b.len() - 1]), Ok(None));
        }
        assert_eq!(get_varint(&[0xff; 10]), Err(()));
        assert_eq!(
            get_varint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            Err(())
        );
        for v in [0i64, 1, -1, 1000, -1000, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
