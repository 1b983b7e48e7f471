// SPDX-License-Identifier: GPL-2.0-only
//! Trace format v1 for the mglru reclaim simulator.
//!
//! A trace describes a workload: the machine (`memory`, `swap`, `sysctl`),
//! the cgroup tree (`memcg`), files on disk (`file`), tasks and their
//! mappings (`task`, `anon`, `mmap`) and then a stream of page accesses
//! (`read`, `write`, `load`, `store`) interleaved with control statements
//! (`advise`, `reclaim`, `sleep`, `exit`, `dump`, `lru_gen`).
//!
//! This crate reads a trace, validates it, resolves every name to a dense
//! numeric id and hands the simulator a stream of [`Op`]s through
//! [`TraceReader::next_op`]. Input is streamed: memory use does not depend
//! on the length of the trace, only on the number of defined names.
//!
//! The full format is specified in `docs/TRACE_FORMAT.md` of the workspace;
//! a short summary (one statement per line, `#` starts a comment):
//!
//! ```text
//! memory SIZE                         total RAM (default 1G)
//! swap SIZE [sync=y|n] [ram=y|n] [zram=y [ratio=R]]   a swap device (default none)
//! sysctl NAME=VALUE                   see parse_sysctl
//! memcg NAME [parent=NAME] [max=SIZE|max] [high=SIZE|max] [low=SIZE|max] [min=SIZE|max] [swap.max=SIZE|max]
//!            [oom.group=0|1] [peak=reset] [swap.peak=reset]
//! file NAME size=SIZE [readahead=SIZE] [tmpfs=y|n] [memfd=y|n] [zram_ratio=R]
//! task ID [memcg=NAME] [cpu=K] [oom_score_adj=N]
//! anon ID REGION size=SIZE [populate=y|n] [shared=y|n]
//! mmap ID REGION file=NAME [populate=y|n]
//! read ID FILE PAGE [COUNT]
//! write ID FILE PAGE [COUNT]
//! load ID REGION PAGE [COUNT]
//! store ID REGION PAGE [COUNT]
//! advise ID FILE|REGION normal|random|sequential|dontneed|willneed|noreuse
//! reclaim MEMCG SIZE [swappiness=N|max]
//! stat MEMCG
//! sleep DURATION
//! exit ID
//! munmap ID REGION
//! mlock ID REGION
//! munlock ID REGION
//! unlink FILE
//! truncate FILE SIZE
//! dump
//! lru_gen + MEMCG NODE MAX_GEN [SWAPPINESS [FORCE_SCAN]]
//! lru_gen - MEMCG NODE MIN_GEN [SWAPPINESS [NR_TO_RECLAIM]]
//! ```
//!
//! Inputs may be gzip- or zstd-compressed (detected from the content) and
//! may be in the compact binary form written by [`write_binary`] (magic
//! `MGLRUTB1`), which decodes to exactly the same [`Op`] sequence.
//!
//! ```
//! use mglru_trace::{FileKind, Op, TraceReader};
//! let mut r = TraceReader::from_str("example", "file f size=1M\ntask 1\nread 1 f 0 4\n");
//! assert_eq!(r.next_op().unwrap(), Some(Op::File { id: 0, pages: 256, readahead_pages: 32, kind: FileKind::Disk, zram_ratio: None }));
//! assert_eq!(r.next_op().unwrap(), Some(Op::Task { id: 0, memcg: 0, cpu: None, oom_score_adj: 0 }));
//! assert_eq!(r.next_op().unwrap(), Some(Op::Read { task: 0, file: 0, page: 0, count: 4 }));
//! assert_eq!(r.next_op().unwrap(), None);
//! ```

mod binary;
mod decompress;
mod error;
mod hash;
mod limits;
mod parse;
mod reader;
mod resolve;
mod size;
mod suggest;
mod statement;
mod sysctl;

pub use binary::{write_binary, BINARY_MAGIC};
pub use error::{TraceError, TraceErrorKind};
pub use limits::{
    MAX_FILE_SIZE, MAX_MEMORY, MAX_PAGES, MAX_REGION_SIZE, MAX_SLEEP_NS, MAX_SWAP, MAX_TASKS, MAX_TOTAL_FILE_SIZE, MIN_MEMORY,
};
pub use parse::{AccessKind, DEFAULT_ZRAM_RATIO, MAX_CPUS, OOM_SCORE_ADJ_MAX, OOM_SCORE_ADJ_MIN, ZRAM_RATIO_MAX, ZRAM_RATIO_MIN};
pub use reader::{Compression, Location, TraceReader, MAX_EMPTY_RUN};
pub use size::{parse_duration_ns, parse_size};
pub use statement::{Statement, Statements};
pub use sysctl::{parse_sysctl, Sysctl};

/// The page size of the simulated machine in bytes. `PAGE` and `COUNT`
/// arguments of the trace are in units of this size.
pub const PAGE_SIZE: u64 = 4096;

/// Total RAM when the trace has no `memory` statement (1 GiB). The reader
/// does not synthesize an [`Op::Memory`] for the default: the consumer
/// applies it when the first op that is not `Memory`/`Swap`/`Sysctl`
/// arrives without a preceding `Op::Memory`.
pub const DEFAULT_MEMORY: u64 = 1 << 30;

/// Readahead window of a `file` without `readahead=` (128 KiB), in bytes.
pub const DEFAULT_READAHEAD: u64 = 128 << 10;

/// The name of the implicit root memcg (id 0).
pub const ROOT_MEMCG: &str = "root";

/// `SWAPPINESS` value of the `lru_gen` commands meaning "anon only"
/// (written `max` in a trace), as in the kernel's `SWAPPINESS_ANON_ONLY`.
pub const SWAPPINESS_ANON_ONLY: u32 = 201;

/// The advice of an `advise` statement (`madvise(2)`/`fadvise(2)` style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Advice {
    /// `normal`: default readahead and reclaim behaviour.
    Normal,
    /// `random`: no readahead; accesses are not expected to be sequential.
    Random,
    /// `sequential`: aggressive readahead; pages may be reclaimed early.
    Sequential,
    /// `dontneed`: the pages are not needed any more (drop them).
    DontNeed,
    /// `willneed`: the pages will be needed soon (prefetch them).
    WillNeed,
    /// `noreuse`: `POSIX_FADV_NOREUSE` on a file (files only): its
    /// mappings lose recency (6.12 `vma_has_recency`).
    NoReuse,
}

impl Advice {
    /// All advice values, in the order of the enum.
    pub const ALL: [Advice; 6] = [
        Advice::Normal,
        Advice::Random,
        Advice::Sequential,
        Advice::DontNeed,
        Advice::WillNeed,
        Advice::NoReuse,
    ];

    /// The keyword used in a trace (`normal`, `random`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Advice::Normal => "normal",
            Advice::Random => "random",
            Advice::Sequential => "sequential",
            Advice::DontNeed => "dontneed",
            Advice::WillNeed => "willneed",
            Advice::NoReuse => "noreuse",
        }
    }

    /// Parses the keyword used in a trace.
    pub fn from_name(s: &str) -> Option<Advice> {
        Advice::ALL.iter().copied().find(|a| a.name() == s)
    }
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a `file` lives: on disk (page cache written back to the file
/// system) or in shmem (swap-backed page cache: a tmpfs file or a memfd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FileKind {
    /// A file of a disk file system (the default).
    #[default]
    Disk,
    /// `tmpfs=y`: a file on a tmpfs mount (mm/shmem.c).
    Tmpfs,
    /// `memfd=y`: a `memfd_create` file, a tmpfs file no directory names.
    Memfd,
}

impl FileKind {
    /// Swap-backed page cache (tmpfs or memfd).
    pub fn is_shmem(self) -> bool {
        self != FileKind::Disk
    }
}

/// What an `advise` statement applies to.
///
/// `advise ID X ...` looks `X` up first as a region of task `ID` and only
/// then as a file, so a region shadows a file of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A file id (advice on the page cache of the file, like `fadvise`).
    File(u32),
    /// A region id (advice on a mapping, like `madvise`).
    Region(u32),
}

/// The fields of a `memcg NAME ...` statement ([`Op::Memcg`]). `new` is
/// true for the definition of a new memcg and false for a later statement
/// on an existing memcg, which updates only the limits that are `Some`
/// (like writing `memory.max` at run time). `parent` is the parent's id in
/// both cases. Limits are in bytes as written (not rounded); `u64::MAX`
/// means `max`. `oom_group` writes `memory.oom.group`; `reset_peak` and
/// `reset_swap_peak` write to `memory.peak` / `memory.swap.peak`
/// (`peak=reset`, `swap.peak=reset`: only on an existing memcg).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemcgOp {
    pub id: u16,
    pub parent: u16,
    pub new: bool,
    pub max: Option<u64>,
    pub high: Option<u64>,
    pub low: Option<u64>,
    pub min: Option<u64>,
    pub swap_max: Option<u64>,
    pub oom_group: Option<bool>,
    pub reset_peak: bool,
    pub reset_swap_peak: bool,
}

/// One resolved trace statement.
///
/// Ids are dense and assigned in order of definition, starting at 0:
/// memcg 0 is the implicit `root` (the first user memcg is 1), tasks,
/// files and regions count from 0 (region ids are global across all
/// tasks). Sizes are in bytes unless the field name says `pages`
/// (units of [`PAGE_SIZE`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `memory SIZE`: total RAM in bytes (at most once, before any op other
    /// than `Memory`, `Swap` and `Sysctl`). See [`DEFAULT_MEMORY`].
    Memory { bytes: u64 },
    /// `swap SIZE [sync=y|n] [ram=y|n] [zram=y [ratio=R]]`: a swap device
    /// of `bytes` bytes; `sync_io` means a synchronous device like zram or
    /// brd, `ram` a device that keeps what is written to it in RAM (brd:
    /// one page of memory per slot ever written). `zram` is a zram device
    /// (always `sync_io`) whose stored pages compress by the ratio given in
    /// hundredths (`ratio=2.5` is `Some(250)`); its memory comes and goes
    /// with the slots. At most once, in the setup section like `Memory`.
    Swap { bytes: u64, sync_io: bool, ram: bool, zram: Option<u32> },
    /// `sysctl NAME=VALUE` with the value normalised by [`parse_sysctl`].
    /// May appear anywhere in the trace (a run-time change).
    Sysctl { name: Sysctl, value: u64 },
    /// `memcg NAME ...` (see [`MemcgOp`]). Boxed: its limits would
    /// otherwise make every op, accesses included, 88 bytes instead of 32.
    Memcg(Box<MemcgOp>),
    /// `file NAME size=SIZE [readahead=SIZE] [tmpfs=y] [memfd=y]`: size
    /// rounded up to whole pages (at least 1), readahead rounded down (0 =
    /// readahead off; always 0 for shmem, which has no readahead). `kind`
    /// says whether the file is on disk or in shmem. `zram_ratio`
    /// (`zram_ratio=R`, hundredths; shmem only): how well the file's data
    /// compresses when its pages are swapped to zram, where the device's
    /// `ratio=` is for every other page.
    File {
        id: u32,
        pages: u64,
        readahead_pages: u64,
        kind: FileKind,
        zram_ratio: Option<u32>,
    },
    /// `task ID [memcg=NAME] [cpu=K] [oom_score_adj=N]`: a new task in
    /// memcg `memcg` (root if not given), pinned to CPU `cpu` if given
    /// (else the model's default placement), with `oom_score_adj` (-1000..=1000,
    /// default 0).
    Task { id: u32, memcg: u16, cpu: Option<u32>, oom_score_adj: i16 },
    /// `task ID [memcg=NAME] [oom_score_adj=N]` on a live task: moves it
    /// to memcg `memcg` (writing its pid to `cgroup.procs`: new charges go
    /// to the new memcg, old ones stay) and/or sets its `oom_score_adj`.
    TaskSet { id: u32, memcg: Option<u16>, oom_score_adj: Option<i16> },
    /// `stat MEMCG`: record the memcg's files (memory.current, memory.peak,
    /// memory.swap.current, memory.swap.peak, memory.events, memory.stat)
    /// at this point into the report.
    Stat { memcg: u16 },
    /// `cpus N`: the machine's number of CPUs (setup section; default 1).
    Cpus { n: u32 },
    /// `anon ID REGION size=SIZE [populate=y] [shared=y]`: an anonymous
    /// mapping of `pages` pages (size rounded up, at least 1) of task
    /// `task`; `populate` is `MAP_POPULATE` (every page faulted in for
    /// writing). `shared` is `MAP_SHARED|MAP_ANONYMOUS`: the kernel sets
    /// up a shmem file behind such a mapping (`shmem_zero_setup`); it
    /// takes the next file id (files are numbered in order of
    /// definition), has no name a statement can use, and goes when the
    /// mapping goes.
    Anon { task: u32, region: u32, pages: u64, populate: bool, shared: bool },
    /// `mmap ID REGION file=NAME [populate=y]`: a shared mapping of the
    /// whole file; the region has as many pages as the file. `populate`
    /// is `MAP_POPULATE` (every page faulted in for reading).
    Mmap { task: u32, region: u32, file: u32, populate: bool },
    /// `read ID FILE PAGE [COUNT]`: buffered read of pages
    /// `page..page+count` of the file (`count >= 1`, in range).
    Read {
        task: u32,
        file: u32,
        page: u64,
        count: u64,
    },
    /// `write ID FILE PAGE [COUNT]`: buffered write.
    Write {
        task: u32,
        file: u32,
        page: u64,
        count: u64,
    },
    /// `load ID REGION PAGE [COUNT]`: CPU loads through the page table of
    /// pages `page..page+count` of the region (a region of `task`).
    Load {
        task: u32,
        region: u32,
        page: u64,
        count: u64,
    },
    /// `store ID REGION PAGE [COUNT]`: CPU stores through the page table.
    Store {
        task: u32,
        region: u32,
        page: u64,
        count: u64,
    },
    /// `advise ID X ADVICE`.
    Advise {
        task: u32,
        target: Target,
        advice: Advice,
    },
    /// `reclaim MEMCG SIZE [swappiness=N]`: write `bytes` (> 0) to
    /// `memory.reclaim`, with `swappiness=N` (0 to 200, or
    /// [`SWAPPINESS_ANON_ONLY`] for `max`) when given.
    Reclaim { memcg: u16, bytes: u64, swappiness: Option<u32> },
    /// `sleep DURATION`: advance simulated time by `ns` nanoseconds.
    Sleep { ns: u64 },
    /// `exit ID`: the task exits; its id is never used again.
    Exit { task: u32 },
    /// `munmap ID REGION`: the task unmaps the whole region (`munmap(2)`);
    /// the region id is never used again (its name may be defined anew).
    Munmap { task: u32, region: u32 },
    /// `fork ID CHILD`: task `task` forks a new task `child` (`fork(2)`),
    /// in the parent's memcg with the parent's `oom_score_adj`. The child
    /// gets a copy of each mapping the parent has, under the same name and
    /// size: regions `first_region`, `first_region + 1`, ... in the order
    /// of the parent's region ids. Private anonymous pages are shared
    /// copy-on-write; shared file mappings map the same file.
    Fork { task: u32, child: u32, first_region: u32 },
    /// `mlock ID REGION`: the whole region becomes `VM_LOCKED` and is
    /// populated (`mlock(2)`): its pages go to the unevictable LRU.
    Mlock { task: u32, region: u32 },
    /// `munlock ID REGION`: `munlock(2)` of the whole region.
    Munlock { task: u32, region: u32 },
    /// `unlink FILE`: the file's name goes (`unlink(2)`); its page cache
    /// goes when no mapping of it is left. The file id is never used
    /// again by `read`/`write`/`mmap` (the name may be defined anew);
    /// existing mappings keep working.
    Unlink { file: u32 },
    /// `truncate FILE SIZE`: the file's size becomes `pages` pages (SIZE
    /// rounded up; `ftruncate(2)`), at most the size it was defined with.
    /// Pages and shadow entries at and beyond `pages` leave the page cache.
    Truncate { file: u32, pages: u64 },
    /// `dump`: print the lru_gen debugfs file at this point.
    Dump,
    /// `lru_gen + MEMCG NODE MAX_GEN [SWAPPINESS [FORCE_SCAN]]` (node is
    /// always 0). `swappiness` `None` means the memcg's default;
    /// [`SWAPPINESS_ANON_ONLY`] (201) means `max`. `force_scan` defaults to
    /// true.
    LruGenAge {
        memcg: u16,
        max_gen: u64,
        swappiness: Option<u32>,
        force_scan: bool,
    },
    /// `lru_gen - MEMCG NODE MIN_GEN [SWAPPINESS [NR_TO_RECLAIM]]`.
    /// `nr_to_reclaim` is in pages and defaults to `u64::MAX` (unlimited).
    LruGenEvict {
        memcg: u16,
        min_gen: u64,
        swappiness: Option<u32>,
        nr_to_reclaim: u64,
    },
}

impl Op {
    /// True for the page-access ops `Read`, `Write`, `Load` and `Store`.
    pub fn is_access(&self) -> bool {
        matches!(
            self,
            Op::Read { .. } | Op::Write { .. } | Op::Load { .. } | Op::Store { .. }
        )
    }

    /// True for the ops allowed in the setup section (`Memory`, `Swap`,
    /// `Sysctl`); the first other op ends the setup section.
    pub fn is_setup(&self) -> bool {
        matches!(
            self,
            Op::Memory { .. } | Op::Swap { .. } | Op::Sysctl { .. } | Op::Cpus { .. }
        )
    }
}

#[cfg(test)]
mod size_tests {
    /// Every op is stored and moved by value in the replay loop's blocks
    /// and a sweep's decoded trace: keep them small. A new variant with
    /// more than 24 bytes of fields belongs in a box, like `Memcg`.
    #[test]
    fn an_op_is_32_bytes() {
        assert_eq!(std::mem::size_of::<super::Op>(), 32);
    }
}
