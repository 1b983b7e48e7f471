// SPDX-License-Identifier: GPL-2.0-only
//! Input plumbing: byte counting, magic detection and transparent gzip and
//! zstd decompression.

use ruzstd::frame::ReadFrameHeaderError;
use ruzstd::frame_decoder::{BlockDecodingStrategy, FrameDecoder, FrameDecoderError};
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;

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
/// checks content checksums.
pub(crate) struct ZstdReader<R: BufRead> {
    src: R,
    dec: FrameDecoder,
    /// A frame has been started and not yet fully drained.
    in_frame: bool,
}

fn zerr(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("zstd: {e}"))
}

/// Frames asking for a larger window are rejected before anything is
/// allocated for them. This is ruzstd's own limit for every frame after the
/// first, applied to all frames for consistency; it covers every standard
/// compression level up to `-21` (`-22 --ultra` and `--long` use 128 MiB).
const MAX_WINDOW: u64 = 100 << 20;

impl<R: BufRead> ZstdReader<R> {
    pub fn new(src: R) -> ZstdReader<R> {
        ZstdReader {
            src,
            dec: FrameDecoder::new(),
            in_frame: false,
        }
    }

    /// Starts the next frame; returns false at a clean end of input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.src.fill_buf()?.is_empty() {
                return Ok(false);
            }
            // Check the window size before the decoder allocates for it.
            {
                let head = self.src.fill_buf()?;
                let mut probe: &[u8] = head;
                if let Ok((frame, _)) = ruzstd::frame::read_frame_header(&mut probe) {
                    match frame.header.window_size() {
                        Ok(w) if w > MAX_WINDOW => return Err(zerr(format!(
                            "frame window of {w} bytes is larger than the supported {MAX_WINDOW}"
                        ))),
                        Err(e) => return Err(zerr(e)),
                        Ok(_) => {}
                    }
                }
            }
            match self.dec.reset(&mut self.src) {
                Ok(()) => {
                    self.in_frame = true;
                    return Ok(true);
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = io::copy(
                        &mut (&mut self.src).take(u64::from(length)),
                        &mut io::sink(),
                    )?;
                    if skipped != u64::from(length) {
                        return Err(zerr("truncated skippable frame"));
                    }
                }
                Err(e) => return Err(zerr(e)),
            }
        }
    }

    fn decode_more(&mut self, want: usize) -> io::Result<()> {
        let dec = &mut self.dec;
        let src = &mut self.src;
        // Guard against a panic inside the decoder on corrupt input: report
        // it as corrupt data instead of unwinding through the reader.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            dec.decode_blocks(src, BlockDecodingStrategy::UptoBytes(want))
        }));
        match r {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(zerr(e)),
            Err(_) => Err(zerr("corrupt compressed data (decoder failure)")),
        }
    }
}

impl<R: BufRead> Read for ZstdReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                continue;
            }
            if self.dec.can_collect() == 0 && self.dec.is_finished() {
                if let (Some(want), Some(got)) = (
                    self.dec.get_checksum_from_data(),
                    self.dec.get_calculated_checksum(),
                ) {
                    if want != got {
                        return Err(zerr("checksum mismatch: the data is corrupt"));
                    }
                }
                self.in_frame = false;
                continue;
            }
            while self.dec.can_collect() < buf.len() && !self.dec.is_finished() {
                let want = buf.len() - self.dec.can_collect();
                self.decode_more(want)?;
            }
            let n = self.dec.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
        }
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
        let r = ZstdReader::new(BufReader::with_capacity(128 << 10, again));
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
