// SPDX-License-Identifier: GPL-2.0-only
//! Streaming a long trace generated lazily (never held in memory).

use mglru_trace::{write_binary, Op, TraceReader};
use std::io::{self, Read};

/// Generates a trace of `lines` access lines after a small header, one
/// line at a time, as a `Read` stream.
struct Generator {
    header: &'static [u8],
    header_pos: usize,
    next: u64,
    lines: u64,
    pending: Vec<u8>,
    pending_pos: usize,
}

impl Generator {
    fn new(lines: u64) -> Generator {
        Generator {
            header: b"memory 4G\nfile f size=1G\ntask t\nanon t heap size=256M\n",
            header_pos: 0,
            next: 0,
            lines,
            pending: Vec::new(),
            pending_pos: 0,
        }
    }

    fn fill(&mut self) {
        use std::io::Write;
        self.pending.clear();
        self.pending_pos = 0;
        let i = self.next;
        self.next += 1;
        let _ = match i % 4 {
            0 => writeln!(self.pending, "read t f {}", i % 262_144),
            1 => writeln!(self.pending, "load t heap {} 2", (i * 31) % 65_535),
            2 => writeln!(
                self.pending,
                "store\tt heap {}  # comment",
                (i * 17) % 65_536
            ),
            _ => writeln!(self.pending, "sleep {}us", i % 1000),
        };
    }
}

impl Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.header_pos < self.header.len() {
            let n = buf.len().min(self.header.len() - self.header_pos);
            buf[..n].copy_from_slice(&self.header[self.header_pos..self.header_pos + n]);
            self.header_pos += n;
            return Ok(n);
        }
        let mut done = 0;
        while done < buf.len() {
            if self.pending_pos == self.pending.len() {
                if self.next == self.lines {
                    break;
                }
                self.fill();
            }
            let n = (buf.len() - done).min(self.pending.len() - self.pending_pos);
            buf[done..done + n]
                .copy_from_slice(&self.pending[self.pending_pos..self.pending_pos + n]);
            self.pending_pos += n;
            done += n;
        }
        Ok(done)
    }
}

const LINES: u64 = 1_000_000;

#[test]
fn million_lines_text() {
    let mut r = TraceReader::from_reader("gen", Box::new(Generator::new(LINES))).unwrap();
    let mut counts = [0u64; 5];
    while let Some(op) = r.next_op().unwrap() {
        let k = match op {
            Op::Read { .. } => 0,
            Op::Load { .. } => 1,
            Op::Store { .. } => 2,
            Op::Sleep { .. } => 3,
            _ => 4,
        };
        counts[k] += 1;
    }
    assert_eq!(counts, [LINES / 4, LINES / 4, LINES / 4, LINES / 4, 4]);
    assert_eq!(r.line(), LINES + 4);
    assert!(r.bytes_read() > 10 * LINES, "{}", r.bytes_read());
}

#[test]
fn million_lines_binary() {
    // Convert the lazily generated text to binary and read it back,
    // comparing op by op with a second lazily generated text stream.
    let mut r = TraceReader::from_reader("gen", Box::new(Generator::new(LINES))).unwrap();
    let mut bin = Vec::new();
    let n = write_binary(&mut r, &mut bin).unwrap();
    assert_eq!(n, LINES + 4);
    // Far smaller than the text (about 25 bytes a line).
    assert!((bin.len() as u64) < 5 * LINES, "{} bytes", bin.len());
    let mut b = TraceReader::from_reader("bin", Box::new(io::Cursor::new(bin))).unwrap();
    let mut t = TraceReader::from_reader("gen", Box::new(Generator::new(LINES))).unwrap();
    loop {
        let x = t.next_op().unwrap();
        assert_eq!(b.next_op().unwrap(), x);
        if x.is_none() {
            break;
        }
    }
}
