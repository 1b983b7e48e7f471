// SPDX-License-Identifier: GPL-2.0-only
//! Input plumbing: byte counting, magic detection and transparent gzip and
//! zstd decompression.

use std::io::{self, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use zstd::zstd_safe;

/// A boxed input stream.
pub(crate) type Input = Box<dyn Read + Send>;

pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Counts the bytes read from the underlying (compressed) source.
pub(crate) struct Counting {
    pub inner: Input,
    pub count: Arc<AtomicU64>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Reads up to `n` bytes (fewer only at the end of input), retrying short
/// reads, and returns them together with a reader that yields the whole
/// stream again, those bytes included.
pub(crate) fn peek(mut r: Input, n: usize) -> io::Result<(Vec<u8>, Input)> {
    let mut head = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match r.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(got);
    let again: Input = Box::new(Cursor::new(head.clone()).chain(r));
    Ok((head, again))
}

/// Decodes a stream of zstd frames (skippable frames are skipped) and
/// checks content checksums, with libzstd (through the `zstd` crate).
///
/// The reader keeps its own input buffer so that it sees every frame header
/// before libzstd does: skippable frames are consumed here, and a frame whose
/// window is larger than [`MAX_WINDOW`] is refused before anything is
/// allocated for it. libzstd's own limit (`window_log_max`) backs this up.
pub(crate) struct ZstdReader<R: Read> {
    src: R,
    dctx: zstd_safe::DCtx<'static>,
    /// Compressed input: `buf[pos..len]` is not yet consumed.
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    /// `src` returned end of input.
    eof: bool,
    /// A frame has been started and not yet fully decoded and flushed.
    in_frame: bool,
}

fn zerr(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("zstd: {e}"))
}

/// Frames asking for a larger window are rejected before anything is
/// allocated for them (ruzstd's limit, which this reader used to be built
/// on); it covers every standard compression level up to `-21` (`-22
/// --ultra` and `--long` use 128 MiB).
const MAX_WINDOW: u64 = 100 << 20;

/// How to fix a frame with a larger window.
const RECOMPRESS: &str = "; recompress it without --long or --ultra -22, e.g. `zstd -dc T.zst | zstd -19 -o T2.zst`";

/// libzstd's own window limit, the smallest power of two at or above
/// [`MAX_WINDOW`]: a backstop in case a header escapes the check here.
const WINDOW_LOG_MAX: u32 = 27;

/// Size of the compressed input buffer (libzstd suggests about 128 KiB).
const IN_BUF: usize = 128 << 10;

/// Longest zstd frame header: magic 4, descriptor 1, window 1, dictionary
/// id 4, content size 8.
const MAX_FRAME_HEADER: usize = 18;

fn window_too_large(w: u64) -> io::Error {
    zerr(format!(
        "frame window of {w} bytes is larger than the supported {MAX_WINDOW}{RECOMPRESS}"
    ))
}

/// The window size a zstd frame header asks for, or `None` if `h` is not
/// the start of a complete zstd frame header (libzstd then reports what is
/// wrong with it).
fn frame_window(h: &[u8]) -> Option<u64> {
    if !h.starts_with(&ZSTD_MAGIC) || h.len() < 5 {
        return None;
    }
    let fhd = h[4];
    let single_segment = fhd & 0x20 != 0;
    if !single_segment {
        // Window descriptor: exponent and mantissa.
        let wd = *h.get(5)?;
        let log = 10 + u32::from(wd >> 3);
        let base = 1u64 << log;
        return Some(base + (base / 8) * u64::from(wd & 7));
    }
    // Single segment: the window is the frame content size.
    let did_len = [0, 1, 2, 4][usize::from(fhd & 3)];
    let fcs_len = [1, 2, 4, 8][usize::from(fhd >> 6)];
    let at = 5 + did_len;
    let f = h.get(at..at + fcs_len)?;
    let mut v = [0u8; 8];
    v[..fcs_len].copy_from_slice(f);
    let size = u64::from_le_bytes(v);
    Some(if fcs_len == 2 { size + 256 } else { size })
}

fn is_skippable(h: &[u8]) -> bool {
    h.len() >= 4
        && (0x184D_2A50..=0x184D_2A5F).contains(&u32::from_le_bytes([h[0], h[1], h[2], h[3]]))
}

impl<R: Read> ZstdReader<R> {
    pub fn new(src: R) -> io::Result<ZstdReader<R>> {
        let mut dctx = zstd_safe::DCtx::try_create()
            .ok_or_else(|| zerr("cannot create a decompression context"))?;
        dctx.set_parameter(zstd_safe::DParameter::WindowLogMax(WINDOW_LOG_MAX))
            .map_err(code_err)?;
        Ok(ZstdReader {
            src,
            dctx,
            buf: vec![0u8; IN_BUF].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            in_frame: false,
        })
    }

    /// Reads more input after the unconsumed bytes (moved to the front of
    /// the buffer); returns false at the end of input.
    fn refill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.pos = 0;
        }
        loop {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.len += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes at least `n` unconsumed bytes available, or as many as there
    /// are before the end of input.
    fn want(&mut self, n: usize) -> io::Result<()> {
        while self.len - self.pos < n && self.refill()? {}
        Ok(())
    }

    /// Starts the next frame, skipping skippable frames and checking the
    /// window size; returns false at a clean end of input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            self.want(MAX_FRAME_HEADER)?;
            let head = &self.buf[self.pos..self.len];
            if head.is_empty() {
                return Ok(false);
            }
            if is_skippable(head) {
                if head.len() < 8 {
                    return Err(zerr("truncated skippable frame"));
                }
                let mut length =
                    u64::from(u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
                self.pos += 8;
                while length > 0 {
                    if self.pos == self.len && !self.refill()? {
                        return Err(zerr("truncated skippable frame"));
                    }
                    let k = length.min((self.len - self.pos) as u64);
                    self.pos += k as usize;
                    length -= k;
                }
                continue;
            }
            if let Some(w) = frame_window(head) {
                if w > MAX_WINDOW {
                    return Err(window_too_large(w));
                }
            }
            self.dctx
                .reset(zstd_safe::ResetDirective::SessionOnly)
                .map_err(code_err)?;
            self.in_frame = true;
            return Ok(true);
        }
    }
}

impl<R: Read> Read for ZstdReader<R> {
    /// Decoding errors are sticky: after one, every read fails the same way.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                continue;
            }
            if self.pos == self.len {
                self.refill()?;
            }
            let mut input = zstd_safe::InBuffer::around(&self.buf[self.pos..self.len]);
            let mut output = zstd_safe::OutBuffer::around(&mut *out);
            let hint = self
                .dctx
                .decompress_stream(&mut output, &mut input)
                .map_err(code_err)?;
            let (used, n) = (input.pos(), output.pos());
            self.pos += used;
            if hint == 0 {
                // The frame is decoded, checked and flushed.
                self.in_frame = false;
            }
            if n > 0 {
                return Ok(n);
            }
            if hint != 0 && used == 0 && self.pos == self.len && self.eof {
                return Err(zerr("truncated input: the last frame is incomplete"));
            }
        }
    }
}

/// An io::Error for a libzstd error code.
fn code_err(code: zstd_safe::ErrorCode) -> io::Error {
    use zstd_safe::zstd_sys::ZSTD_ErrorCode as E;
    if zstd_safe::is_error_kind(code, E::ZSTD_error_checksum_wrong) {
        zerr("checksum mismatch: the data is corrupt")
    } else if zstd_safe::is_error_kind(code, E::ZSTD_error_frameParameter_windowTooLarge) {
        zerr(format!(
            "frame window is larger than the supported {MAX_WINDOW} bytes ({}){RECOMPRESS}",
            zstd_safe::get_error_name(code)
        ))
    } else {
        zerr(zstd_safe::get_error_name(code))
    }
}

/// How the input was compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (possibly several concatenated members).
    Gzip,
    /// zstd (possibly several concatenated frames).
    Zstd,
}

impl Compression {
    /// `"none"`, `"gzip"` or `"zstd"`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }
}

/// Detects compression from the first bytes of `raw` and returns the
/// decompressed stream. Decompression runs on a helper thread (see
/// [`Pipelined`]) so that it overlaps with parsing and simulation.
pub(crate) fn decompress(raw: Input) -> io::Result<(Compression, Input)> {
    let (head, again) = peek(raw, 4)?;
    let skippable = head.len() == 4
        && (0x184D_2A50..=0x184D_2A5F)
            .contains(&u32::from_le_bytes([head[0], head[1], head[2], head[3]]));
    if head.starts_with(&ZSTD_MAGIC) || skippable {
        let r = ZstdReader::new(again)?;
        Ok((Compression::Zstd, pipelined(Box::new(r))))
    } else if head.starts_with(&GZIP_MAGIC) {
        let r = flate2::read::MultiGzDecoder::new(again);
        Ok((Compression::Gzip, pipelined(Box::new(r))))
    } else {
        Ok((Compression::None, again))
    }
}

/// Size of the chunks handed from the decompression thread to the reader.
const CHUNK: usize = 256 << 10;

/// Chunks in flight between the threads (bounds memory to a few MiB).
const IN_FLIGHT: usize = 4;

/// The reading end of a decompression thread: `Read` over the chunks it
/// sends. An empty chunk marks the end of the stream. Used buffers go back
/// to the thread for reuse.
pub(crate) struct Pipelined {
    rx: Receiver<io::Result<Vec<u8>>>,
    back: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    done: bool,
}

/// Runs `r` on a helper thread that reads ahead. If the thread cannot be
/// started, reading reports that as an error.
fn pipelined(mut r: Input) -> Input {
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(IN_FLIGHT);
    let (back, back_rx) = sync_channel::<Vec<u8>>(IN_FLIGHT + 2);
    let spawned = std::thread::Builder::new()
        .name("trace-decompress".to_string())
        .spawn(move || loop {
            let mut buf = match back_rx.try_recv() {
                Ok(b) => b,
                Err(TryRecvError::Empty) | Err(TryRecvError::Disconnected) => Vec::new(),
            };
            buf.clear();
            buf.resize(CHUNK, 0);
            let mut n = 0;
            while n < CHUNK {
                match r.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        buf.truncate(n);
                        if n > 0 && tx.send(Ok(buf)).is_err() {
                            return;
                        }
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            buf.truncate(n);
            let end = n == 0;
            if tx.send(Ok(buf)).is_err() || end {
                return;
            }
        });
    let mut p = Pipelined {
        rx,
        back,
        cur: Vec::new(),
        pos: 0,
        done: false,
    };
    if let Err(e) = spawned {
        // `tx` was dropped with the closure: the first read reports this.
        p.cur = Vec::new();
        let msg = format!("cannot start the decompression thread: {e}");
        let (etx, erx) = sync_channel(1);
        let _ = etx.send(Err(io::Error::other(msg)));
        p.rx = erx;
    }
    Box::new(p)
}

impl Read for Pipelined {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            if self.done || out.is_empty() {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    if chunk.is_empty() {
                        self.done = true;
                        return Ok(0);
                    }
                    let old = std::mem::replace(&mut self.cur, chunk);
                    let _ = self.back.try_send(old);
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other(
                        "the decompression thread stopped unexpectedly",
                    ));
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zstd_safe::{CCtx, CParameter};

    /// One zstd frame of `data`, with a content checksum and the given
    /// window log (0: the level's default).
    fn frame(data: &[u8], window_log: u32) -> Vec<u8> {
        let mut c = CCtx::create();
        c.set_parameter(CParameter::ChecksumFlag(true)).unwrap();
        c.set_parameter(CParameter::CompressionLevel(3)).unwrap();
        if window_log != 0 {
            c.set_parameter(CParameter::WindowLog(window_log)).unwrap();
            // Keep the window in the header even though the input is small.
            c.set_parameter(CParameter::ContentSizeFlag(false)).unwrap();
        }
        // Streamed (the size unknown up front), so that the window is the
        // one asked for, not shrunk to the input.
        use zstd_safe::zstd_sys::ZSTD_EndDirective::{ZSTD_e_continue, ZSTD_e_end};
        let mut out: Vec<u8> = Vec::with_capacity(zstd_safe::compress_bound(data.len()) + 64);
        let mut input = zstd_safe::InBuffer::around(data);
        {
            let mut o = zstd_safe::OutBuffer::around(&mut out);
            c.compress_stream2(&mut o, &mut input, ZSTD_e_continue).unwrap();
            assert_eq!(input.pos(), data.len());
            let left = c.compress_stream2(&mut o, &mut input, ZSTD_e_end).unwrap();
            assert_eq!(left, 0);
        }
        out
    }

    fn skippable(payload: &[u8]) -> Vec<u8> {
        let mut v = 0x184D_2A5Au32.to_le_bytes().to_vec();
        v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        v.extend_from_slice(payload);
        v
    }

    /// Reads everything, `step` bytes at a time.
    fn decode(z: &[u8], step: usize) -> io::Result<Vec<u8>> {
        let mut r = ZstdReader::new(z)?;
        let mut out = Vec::new();
        let mut buf = vec![0u8; step];
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    fn text(n: usize) -> Vec<u8> {
        let mut t = Vec::new();
        let mut x: u64 = 1;
        while t.len() < n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            t.extend_from_slice(format!("read f {}\n", (x >> 40) % 5000).as_bytes());
        }
        t
    }

    #[test]
    fn frames_and_skippable_frames() {
        let (a, b) = (text(300_000), text(1000));
        let mut z = skippable(b"front");
        z.extend(frame(&a, 0));
        z.extend(skippable(&[7u8; 200_000]));
        z.extend(frame(b"", 0));
        z.extend(frame(&b, 0));
        z.extend(skippable(b""));
        let mut want = a.clone();
        want.extend_from_slice(&b);
        for step in [1, 7, 4096, CHUNK] {
            assert_eq!(decode(&z, step).unwrap(), want, "step {step}");
        }
        assert_eq!(decode(&skippable(b"only"), 100).unwrap(), b"");
        assert_eq!(decode(b"", 100).unwrap(), b"");
    }

    fn invalid(r: io::Result<Vec<u8>>) -> String {
        let e = match r {
            Ok(d) => panic!("decoded {} bytes, expected an error", d.len()),
            Err(e) => e,
        };
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        let m = e.to_string();
        assert!(m.starts_with("zstd: "), "{m}");
        m
    }

    #[test]
    fn window_limit() {
        let data = text(10_000);
        // 64 MiB: accepted.
        assert_eq!(decode(&frame(&data, 26), 4096).unwrap(), data);
        // 128 MiB, in a later frame too.
        let big = frame(&data, 27);
        let mut two = frame(&data, 0);
        two.extend_from_slice(&big);
        for z in [big, two] {
            let m = invalid(decode(&z, 4096));
            let want = "frame window of 134217728 bytes is larger than the supported 104857600";
            assert!(m.contains(want), "{m}");
            // Issue 35: and how to recompress it.
            assert!(m.contains("recompress it without --long or --ultra -22"), "{m}");
        }
        // 120 MiB (2^26 * 15/8): above 100 MiB though below libzstd's 2^27.
        let m = invalid(decode(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, (16 << 3) | 7, 0, 0, 0], 4096));
        assert!(m.contains("frame window of 125829120 bytes"), "{m}");
        // Single segment: the window is the content size (4-byte field).
        let mut h = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        h.extend_from_slice(&(101u32 << 20).to_le_bytes());
        h.extend_from_slice(&[1, 0, 0]);
        let m = invalid(decode(&h, 4096));
        assert!(m.contains(&format!("frame window of {} bytes", 101u64 << 20)), "{m}");
    }

    #[test]
    fn corrupt_and_truncated() {
        let data = text(50_000);
        let z = frame(&data, 0);
        for cut in [1, 3, 4, 5, 6, z.len() / 2, z.len() - 4, z.len() - 1] {
            invalid(decode(&z[..cut], 4096));
        }
        let m = invalid(decode(&skippable(b"abcdef")[..9], 4096));
        assert!(m.contains("truncated skippable frame"), "{m}");
        // The checksum.
        let mut bad = z.clone();
        let at = bad.len() - 2;
        bad[at] ^= 1;
        let m = invalid(decode(&bad, 4096));
        assert!(m.contains("checksum mismatch"), "{m}");
        // Trailing garbage after a good frame.
        let mut t = z.clone();
        t.extend_from_slice(b"garbage!");
        invalid(decode(&t, 4096));
        // Every single-bit flip: an error or the right data, never a panic.
        let mut caught = 0;
        for at in 0..z.len() {
            for bit in [0x01, 0x80] {
                let mut bad = z.clone();
                bad[at] ^= bit;
                match decode(&bad, 65536) {
                    Ok(d) => assert_eq!(d, data, "flip at {at}"),
                    Err(_) => {
                        invalid(decode(&bad, 65536));
                        caught += 1;
                    }
                }
            }
        }
        assert!(caught > z.len() * 2 * 9 / 10, "{caught}");
    }

    #[test]
    fn errors_are_sticky() {
        let z = frame(&text(10_000), 0);
        let mut r = ZstdReader::new(&z[..z.len() / 2]).unwrap();
        let mut buf = vec![0u8; 1 << 20];
        let mut errs = 0;
        for _ in 0..4 {
            if r.read(&mut buf).is_err() {
                errs += 1;
            }
        }
        assert!(errs >= 3, "{errs}");
    }
}
