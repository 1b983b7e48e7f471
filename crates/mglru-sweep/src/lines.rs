// SPDX-License-Identifier: GPL-2.0-only
//! Feed a generator's or importer's line stream to the trace reader.

use std::io::Read;

/// A `Read` over a stream of trace lines; a generator error becomes an
/// I/O error carrying its message.
pub struct LinesReader {
    lines: mglru_workload::Lines,
    buf: Vec<u8>,
    pos: usize,
}

impl LinesReader {
    pub fn new(lines: mglru_workload::Lines) -> LinesReader {
        LinesReader { lines, buf: Vec::new(), pos: 0 }
    }
}

impl Read for LinesReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            // Refill with up to 64 KiB of lines.
            while self.buf.len() < 1 << 16 {
                match self.lines.next() {
                    Some(Ok(l)) => {
                        self.buf.extend_from_slice(l.as_bytes());
                        self.buf.push(b'\n');
                    }
                    Some(Err(e)) => return Err(std::io::Error::other(e)),
                    None => break,
                }
            }
            if self.buf.is_empty() {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
