// SPDX-License-Identifier: GPL-2.0-only
//! Barry Song's ebizzy variant from the MGLRU v7 review (seed 001): hot
//! and cold chunks picked from a fixed sequence, each search working on a
//! freshly allocated, used-once copy of the chunk. See docs/WORKLOADS.md,
//! section "ebizzy".

use std::collections::VecDeque;

use crate::rng::{derive, Rng};
use crate::stream::{lines, Source};
use crate::util::{fmt_size, pages_for, scaled_size, Machine, Params, MIB, PAGE};
use crate::Lines;

/// Barry Song's `rand_chunk()` sequence (seed 001): chunk 2 hottest,
/// 3, 7 and 4 warmer, repeating every 16 picks.
pub(crate) const SEQ16: [u32; 16] = [2, 2, 3, 4, 5, 2, 6, 7, 9, 2, 8, 3, 7, 2, 2, 4];

/// Yu Zhao's 160-entry sequence (seed 001): the same proportions at
/// random positions.
pub(crate) const SEQ160: [u32; 160] = [
    2, 4, 7, 3, 4, 2, 7, 2, 7, 8, 6, 9, 7, 6, 5, 4,
    6, 2, 6, 4, 2, 9, 2, 5, 5, 4, 7, 2, 7, 7, 5, 2,
    4, 4, 3, 3, 2, 4, 2, 2, 5, 2, 4, 2, 8, 2, 2, 3,
    2, 2, 2, 2, 2, 8, 4, 2, 2, 4, 2, 2, 2, 2, 3, 2,
    8, 5, 2, 2, 3, 2, 8, 2, 6, 2, 4, 8, 5, 2, 9, 2,
    8, 7, 9, 2, 4, 4, 3, 3, 2, 8, 2, 2, 3, 3, 2, 7,
    7, 5, 2, 2, 8, 2, 2, 2, 5, 2, 4, 3, 2, 3, 6, 3,
    3, 3, 9, 4, 2, 3, 9, 7, 7, 6, 2, 2, 4, 2, 6, 2,
    9, 7, 7, 7, 9, 3, 4, 2, 3, 2, 7, 3, 2, 2, 2, 6,
    8, 3, 7, 6, 2, 2, 2, 4, 7, 2, 5, 7, 4, 7, 9, 9,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Pick,
    Copy { chunk: u64, page: u64 },
    Search,
    Free,
    Done,
}

struct Thread {
    phase: Phase,
    loops_left: u64,
    rng: Rng,
}

struct Ebizzy {
    /// Setup still to write: the next thread's `anon copyT`, then the
    /// next chunk's fill (`store`), one line per step, so that memory
    /// does not grow with `threads` or `chunks`.
    next_copy: u64,
    next_fill: u64,
    chunks: u64,
    seq: &'static [u32],
    nr: usize,
    threads: Vec<Thread>,
    next: usize,
    chunk_pages: u64,
    records: u64,
    record_size: u64,
    batch: u64,
    done: bool,
}

impl Ebizzy {
    fn thread_step(&mut self, t: usize, out: &mut VecDeque<String>) {
        let th = &mut self.threads[t];
        match th.phase {
            Phase::Pick => {
                // `static int nr` in rand_chunk() is shared by all threads.
                let chunk = self.seq[self.nr % self.seq.len()] as u64;
                self.nr += 1;
                th.phase = Phase::Copy { chunk, page: 0 };
                self.thread_step(t, out);
            }
            Phase::Copy { chunk, page } => {
                let c = self.batch.min(self.chunk_pages - page);
                let src = chunk * self.chunk_pages + page;
                if c == 1 {
                    out.push_back(format!("load ebizzy chunks {}", src));
                    out.push_back(format!("store ebizzy copy{} {}", t, page));
                } else {
                    out.push_back(format!("load ebizzy chunks {} {}", src, c));
                    out.push_back(format!("store ebizzy copy{} {} {}", t, page, c));
                }
                th.phase = if page + c >= self.chunk_pages { Phase::Search } else { Phase::Copy { chunk, page: page + c } };
            }
            Phase::Search => {
                // bsearch() of a random key over the sorted records of the
                // copy: the pages of the probes, in probe order.
                let key = th.rng.below(self.records);
                let (mut lo, mut hi) = (0u64, self.records);
                let mut last = u64::MAX;
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    let pg = mid * self.record_size / PAGE;
                    if pg != last {
                        out.push_back(format!("load ebizzy copy{} {}", t, pg));
                        last = pg;
                    }
                    if key < mid {
                        hi = mid;
                    } else if key > mid {
                        lo = mid + 1;
                    } else {
                        break;
                    }
                }
                th.phase = Phase::Free;
            }
            Phase::Free => {
                out.push_back(format!("advise ebizzy copy{} dontneed", t));
                th.loops_left -= 1;
                th.phase = if th.loops_left == 0 { Phase::Done } else { Phase::Pick };
            }
            Phase::Done => {}
        }
    }
}

impl Source for Ebizzy {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.done {
            return Ok(false);
        }
        if self.next_copy < self.threads.len() as u64 {
            out.push_back(format!("anon ebizzy copy{} size={}", self.next_copy, fmt_size(self.chunk_pages * PAGE)));
            self.next_copy += 1;
            return Ok(true);
        }
        if self.next_fill < self.chunks {
            let c = self.next_fill;
            out.push_back(format!("store ebizzy chunks {} {}", c * self.chunk_pages, self.chunk_pages));
            self.next_fill += 1;
            return Ok(true);
        }
        let n = self.threads.len();
        for _ in 0..n {
            let t = self.next;
            self.next = (self.next + 1) % n;
            if self.threads[t].phase != Phase::Done {
                self.thread_step(t, out);
                return Ok(true);
            }
        }
        out.push_back("exit ebizzy".to_string());
        self.done = true;
        Ok(false)
    }
}

/// `ebizzy:k=v,...`.
pub(crate) fn generator(rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse("ebizzy", rest)?;
    let scale = p.count("scale", 1)?;
    let seq: &'static [u32] = match p.string("seq", "16").as_str() {
        "16" => &SEQ16,
        "160" => &SEQ160,
        other => return Err(format!("ebizzy: seq={}: use 16 (Barry Song's sequence) or 160 (Yu Zhao's)", other)),
    };
    let threads = p.tasks("threads", 4)?;
    let chunk_size = p.size("chunk_size", scaled_size(209_715_200, scale, PAGE))?;
    let chunks = p.count("chunks", 10)?;
    let loops = p.count("loops", 160)?;
    let record_size = p.size("record_size", 8)?.max(1);
    let batch = p.count("batch", 1)?;
    let m = Machine::from_params(&mut p, scaled_size(2560 * MIB, scale, mglru_trace::MIN_MEMORY), Some(scaled_size(2048 * MIB, scale, PAGE)), true, None)?;
    p.finish()?;
    let max_idx = *seq.iter().max().unwrap_or(&0) as u64;
    if chunks <= max_idx {
        return Err(format!(
            "ebizzy: chunks={} but the sequence uses chunk {}: chunks must be at least {}",
            chunks,
            max_idx,
            max_idx + 1
        ));
    }
    if chunk_size < record_size {
        return Err("ebizzy: chunk_size must hold at least one record".to_string());
    }
    // The chunks are one region: its size must fit trace v1 (it wrapped
    // around 2^64 silently, e.g. chunk_size=16T,chunks=1048576 gave a
    // region of size 0).
    let region = chunk_size.div_ceil(PAGE) as u128 * chunks as u128 * PAGE as u128;
    if region > mglru_trace::MAX_REGION_SIZE as u128 {
        return Err(format!(
            "ebizzy: chunks={} of chunk_size={} make a region of {} bytes, larger than trace v1 allows ({}): lower chunks= or chunk_size=",
            chunks,
            fmt_size(chunk_size),
            region,
            fmt_size(mglru_trace::MAX_REGION_SIZE)
        ));
    }
    let chunk_pages = pages_for(chunk_size);
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload ebizzy: {} chunks of {}, {} threads x {} loops, {}-entry chunk sequence; each loop: copy = alloc, memcpy(copy, chunk), bsearch(copy), free(copy)",
        chunks,
        fmt_size(chunk_size),
        threads,
        loops,
        seq.len()
    ));
    m.setup_lines(&mut out);
    match m.memcg_max {
        Some(_) => {
            out.push_back(Machine::memcg_line("ebizzy", m.memcg_max));
            out.push_back("task ebizzy memcg=ebizzy".to_string());
        }
        None => out.push_back("task ebizzy".to_string()),
    }
    out.push_back(format!("anon ebizzy chunks size={}", fmt_size(chunk_pages * chunks * PAGE)));
    let gen = Ebizzy {
        next_copy: 0,
        next_fill: 0,
        chunks,
        seq,
        nr: 0,
        threads: (0..threads)
            .map(|t| Thread { phase: Phase::Pick, loops_left: loops, rng: Rng::new(derive(m.seed, t)) })
            .collect(),
        next: 0,
        chunk_pages,
        records: (chunk_size / record_size).max(1),
        record_size,
        batch,
        done: false,
    };
    Ok(lines(out, gen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_have_the_seed_proportions() {
        let count = |s: &[u32], v: u32| s.iter().filter(|&&x| x == v).count();
        // 160 entries: the same proportions of 2s, 3s, ... as 10 x 16.
        assert_eq!(SEQ160.len(), 160);
        for v in 2..=9 {
            assert_eq!(count(&SEQ160, v), 10 * count(&SEQ16, v), "chunk {}", v);
        }
    }
}
