// SPDX-License-Identifier: GPL-2.0-only
//! From trace operations to an ordered stream of actions.
//!
//! The [`Planner`] reads the trace and yields [`Step`]s in the order the
//! real run performs them. Both the dry run and the real run consume this
//! stream, so what the dry run prints is what the real run does.
//!
//! Besides one [`Step::Op`] per trace operation the planner inserts one
//! [`Step::Begin`]: before the first operation that is not a definition
//! (`memory`, `swap`, `sysctl`, `memcg`, `file`, `task`, `anon`, `mmap`),
//! i.e. normally before the first access. There the real run writes back
//! and drops the page cache, so the files start uncached, and takes the
//! start snapshot of the counters.

use mglru_trace::{Advice, MemcgOp, Op, Sysctl, Target, TraceError, TraceReader, PAGE_SIZE};

/// One memcg limit write: the cgroup file and the value to write.
pub type LimitWrite = (&'static str, String);

/// Arguments of a `lru_gen` debugfs command, without the memcg id (the
/// kernel's id is only known on the running system).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LruGenCmd {
    /// `+` (aging) or `-` (eviction).
    pub cmd: char,
    /// MAX_GEN for `+`, MIN_GEN for `-`.
    pub seq: u64,
    /// SWAPPINESS (201 for the trace's `max`), `None` to leave it out.
    pub swappiness: Option<u32>,
    /// FORCE_SCAN (0/1) for `+`, NR_TO_RECLAIM for `-`; `None` to leave it
    /// out (the kernel's default: force scan, unlimited).
    pub opt: Option<u64>,
}

impl LruGenCmd {
    /// The command line for `/sys/kernel/debug/lru_gen` with the kernel's
    /// memcg id `memcg_id` (node 0), e.g. `+ 5 0 7 100 1`.
    ///
    /// 6.12's `lru_gen_seq_write` parses `%c %u %u %lu %u %lu`, so a
    /// swappiness of 201 (the trace's `max`) is written as the number and
    /// rejected by the kernel with `EINVAL` (`MAX_SWAPPINESS` is 200; the
    /// `max` keyword only exists from 6.15 on).
    pub fn text(&self, memcg_id: u32) -> String {
        let mut s = format!("{} {memcg_id} 0 {}", self.cmd, self.seq);
        if let Some(sw) = self.swappiness {
            s.push_str(&format!(" {sw}"));
            if let Some(o) = self.opt {
                s.push_str(&format!(" {o}"));
            }
        }
        s
    }
}

/// What the real run does for one trace operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `memory`/`swap`: not applied (the harness sizes the VM and the swap
    /// ramdisk), only reported.
    Machine,
    /// `sysctl`: write `value` to the kernel file `path`.
    Knob { path: &'static str, value: String },
    /// A new memcg: enable `+memory` in the parent's
    /// `cgroup.subtree_control`, `mkdir` `rel` (the path below the cgroup
    /// root, e.g. `app/web`), then write the limits.
    CreateMemcg {
        id: u16,
        parent: u16,
        rel: String,
        limits: Vec<LimitWrite>,
    },
    /// Limits of an existing memcg.
    SetLimits { id: u16, limits: Vec<LimitWrite> },
    /// The limits of an existing memcg, then resets of its peak files
    /// (`memory.peak`, `memory.swap.peak`) written through the replayer's
    /// one open file for each, which later `stat` reads use too (the
    /// kernel keeps a reset per open file).
    ResetPeaks {
        id: u16,
        limits: Vec<LimitWrite>,
        files: Vec<&'static str>,
    },
    /// A later `task` statement: move the worker to another memcg
    /// (`cgroup.procs`) and/or write its `oom_score_adj`.
    TaskSet {
        task: u32,
        memcg: Option<u16>,
        oom_score_adj: Option<i16>,
    },
    /// `stat MEMCG`: read the memcg's files and print them.
    Stat { memcg: u16 },
    /// Create a file of `pages` pages filled with non-zero data; a shmem
    /// file (`kind` tmpfs or memfd) is created empty, `pages` long.
    CreateFile {
        id: u32,
        pages: u64,
        readahead_pages: u64,
        kind: mglru_trace::FileKind,
    },
    /// Fork a worker for `task` in `memcg`, pinned to `cpu` if given,
    /// with `oom_score_adj`.
    Spawn {
        task: u32,
        memcg: u16,
        cpu: Option<u32>,
        oom_score_adj: i16,
    },
    /// `mmap(MAP_PRIVATE|MAP_ANONYMOUS)` of `pages` pages;
    /// `MAP_SHARED|MAP_ANONYMOUS` if `shared`.
    MapAnon { task: u32, region: u32, pages: u64, populate: bool, shared: bool },
    /// `mmap(MAP_SHARED)` of the whole file (`pages` pages).
    MapFile {
        task: u32,
        region: u32,
        file: u32,
        pages: u64,
        populate: bool,
    },
    /// One `pread` of `count` pages at page `page`.
    Read {
        task: u32,
        file: u32,
        page: u64,
        count: u64,
    },
    /// One `pwrite` of `count` pages at page `page`.
    Write {
        task: u32,
        file: u32,
        page: u64,
        count: u64,
    },
    /// An 8-byte volatile load at the start of each page.
    Load {
        task: u32,
        region: u32,
        page: u64,
        count: u64,
    },
    /// An 8-byte volatile store at the start of each page.
    Store {
        task: u32,
        region: u32,
        page: u64,
        count: u64,
    },
    /// `madvise` on the whole region.
    Madvise {
        task: u32,
        region: u32,
        advice: Advice,
    },
    /// `posix_fadvise` on the whole file.
    Fadvise {
        task: u32,
        file: u32,
        advice: Advice,
    },
    /// Write `bytes` to `memory.reclaim` (with ` swappiness=N`).
    Reclaim { memcg: u16, bytes: u64, swappiness: Option<u32> },
    /// `nanosleep` in the controller.
    Sleep { ns: u64 },
    /// The worker exits.
    Exit { task: u32 },
    /// `mlock` of the whole region by its worker.
    Mlock { task: u32, region: u32 },
    /// `munlock` of the whole region by its worker.
    Munlock { task: u32, region: u32 },
    /// `munmap` of the whole region by its worker.
    Munmap { task: u32, region: u32 },
    /// `fork`: the parent's worker forks a worker for `child`, whose
    /// regions `first_region..` are the parent's at the same addresses.
    Fork { task: u32, child: u32, first_region: u32 },
    /// `unlink` the data file and close every descriptor of it (the
    /// controller's and the workers'), so that the inode goes with its
    /// last mapping, as the trace's `unlink` says.
    Unlink { file: u32 },
    /// `ftruncate` of the controller's descriptor to `pages` pages.
    Truncate { file: u32, pages: u64 },
    /// Print `/sys/kernel/debug/lru_gen`.
    Dump,
    /// Write a command to `/sys/kernel/debug/lru_gen`.
    LruGen { memcg: u16, cmd: LruGenCmd },
}

/// One step of the replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Before the first non-definition operation: write back and drop the
    /// page cache, take the start snapshot.
    Begin,
    /// A trace operation.
    Op {
        /// The line (text) or record (binary) of the statement.
        line: u64,
        /// The operation as read.
        op: Op,
        /// What to do for it.
        action: Action,
    },
}

/// The kernel file written for a sysctl.
pub fn knob_path(s: Sysctl) -> &'static str {
    match s {
        Sysctl::Swappiness => "/proc/sys/vm/swappiness",
        Sysctl::PageCluster => "/proc/sys/vm/page-cluster",
        Sysctl::MinFreeKbytes => "/proc/sys/vm/min_free_kbytes",
        Sysctl::WatermarkScaleFactor => "/proc/sys/vm/watermark_scale_factor",
        Sysctl::WatermarkBoostFactor => "/proc/sys/vm/watermark_boost_factor",
        Sysctl::DirtyRatio => "/proc/sys/vm/dirty_ratio",
        Sysctl::DirtyBackgroundRatio => "/proc/sys/vm/dirty_background_ratio",
        Sysctl::DirtyExpireCentisecs => "/proc/sys/vm/dirty_expire_centisecs",
        Sysctl::DirtyWritebackCentisecs => "/proc/sys/vm/dirty_writeback_centisecs",
        Sysctl::LruGenEnabled => "/sys/kernel/mm/lru_gen/enabled",
        Sysctl::LruGenMinTtlMs => "/sys/kernel/mm/lru_gen/min_ttl_ms",
    }
}

/// The text written for a sysctl value: decimal, except `lru_gen.enabled`
/// (`y` for 7, `n` for 0, else `0x000N`, which the kernel's
/// `enabled_store` parses with `kstrtouint(buf, 0, ...)`).
pub fn knob_value(s: Sysctl, v: u64) -> String {
    match s {
        Sysctl::LruGenEnabled => match v {
            0 => "n".to_string(),
            7 => "y".to_string(),
            _ => format!("0x{v:04x}"),
        },
        _ => v.to_string(),
    }
}

/// A memcg limit as written to a cgroup file: bytes, or `max`.
pub fn limit_text(v: u64) -> String {
    if v == u64::MAX {
        "max".to_string()
    } else {
        v.to_string()
    }
}

/// The limit writes of a `memcg` statement, in the order max, high, low,
/// min, swap.max (only the limits given).
pub fn limit_writes(
    max: Option<u64>,
    high: Option<u64>,
    low: Option<u64>,
    min: Option<u64>,
    swap_max: Option<u64>,
) -> Vec<LimitWrite> {
    [
        ("memory.max", max),
        ("memory.high", high),
        ("memory.low", low),
        ("memory.min", min),
        ("memory.swap.max", swap_max),
    ]
    .into_iter()
    .filter_map(|(f, v)| v.map(|v| (f, limit_text(v))))
    .collect()
}

/// True for the operations that only define things (the real run performs
/// them before the start snapshot when they come first).
pub fn is_definition(op: &Op) -> bool {
    matches!(
        op,
        Op::Memory { .. }
            | Op::Swap { .. }
            | Op::Cpus { .. }
            | Op::Sysctl { .. }
            | Op::Memcg(_)
            | Op::File { .. }
            | Op::Task { .. }
            | Op::Anon { .. }
            | Op::Mmap { .. }
    )
}

/// A file name usable in the data directory: `fNNNNNN-` and the trace's
/// name with `/` replaced by `_` (the id keeps names unique), cut to stay
/// below the 255-byte limit of a file name.
pub fn data_file_name(id: u32, name: &str) -> String {
    let mut s = format!("f{id:06}-");
    for c in name.chars() {
        if s.len() + c.len_utf8() > 240 {
            break;
        }
        s.push(if c == '/' { '_' } else { c });
    }
    s
}

/// Reads a trace and yields the replay's steps in order.
pub struct Planner {
    reader: TraceReader,
    /// Relative cgroup directory of each memcg ("" for root).
    memcg_dirs: Vec<String>,
    /// Distinct non-zero readahead windows of the files, in pages.
    readaheads: Vec<u64>,
    /// A file's `zram_ratio=` was warned about.
    warned_zram_ratio: bool,
    warnings: Vec<String>,
    begun: bool,
    pending: Option<Step>,
    memory: Option<u64>,
    swap: Option<(u64, bool)>,
}

impl Planner {
    /// A planner over `reader` (positioned at the start of the trace).
    pub fn new(reader: TraceReader) -> Planner {
        Planner {
            reader,
            memcg_dirs: vec![String::new()],
            readaheads: Vec::new(),
            warned_zram_ratio: false,
            warnings: Vec::new(),
            begun: false,
            pending: None,
            memory: None,
            swap: None,
        }
    }

    /// The trace reader, for its name tables.
    pub fn reader(&self) -> &TraceReader {
        &self.reader
    }

    /// The relative cgroup directory of memcg `id` (`""` for root, else
    /// e.g. `app/web`).
    pub fn memcg_dir(&self, id: u16) -> &str {
        self.memcg_dirs
            .get(usize::from(id))
            .map_or("", String::as_str)
    }

    /// The trace's `memory` value, if given.
    pub fn memory(&self) -> Option<u64> {
        self.memory
    }

    /// The trace's `swap` (bytes, sync), if given.
    pub fn swap(&self) -> Option<(u64, bool)> {
        self.swap
    }

    /// True once [`Step::Begin`] has been returned.
    pub fn begun(&self) -> bool {
        self.begun
    }

    /// Warnings found so far (e.g. files with different readahead), each
    /// returned once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// The distinct non-zero readahead windows of the files so far, in
    /// pages, in order of first appearance.
    pub fn readaheads(&self) -> &[u64] {
        &self.readaheads
    }

    /// The next step, `None` at the end of the trace.
    pub fn next_step(&mut self) -> Result<Option<Step>, TraceError> {
        if let Some(s) = self.pending.take() {
            return Ok(Some(s));
        }
        let Some(op) = self.reader.next_op()? else {
            return Ok(None);
        };
        let line = self.reader.line();
        let action = self.action(&op);
        let begin = !self.begun && !is_definition(&op);
        let step = Step::Op { line, op, action };
        if begin {
            self.begun = true;
            self.pending = Some(step);
            return Ok(Some(Step::Begin));
        }
        Ok(Some(step))
    }

    fn action(&mut self, op: &Op) -> Action {
        match *op {
            Op::Memory { bytes } => {
                self.memory = Some(bytes);
                Action::Machine
            }
            // The harness's swap is always a brd ramdisk (`ram=y`).
            Op::Swap { bytes, sync_io, .. } => {
                self.swap = Some((bytes, sync_io));
                Action::Machine
            }
            Op::Sysctl { name, value } => Action::Knob {
                path: knob_path(name),
                value: knob_value(name, value),
            },
            Op::Memcg(ref m) => {
                let MemcgOp { id, parent, new, max, high, low, min, swap_max, oom_group, reset_peak, reset_swap_peak } = **m;
                let mut limits = limit_writes(max, high, low, min, swap_max);
                if let Some(g) = oom_group {
                    limits.push(("memory.oom.group", if g { "1" } else { "0" }.to_string()));
                }
                let files: Vec<&'static str> = [(reset_peak, "memory.peak"), (reset_swap_peak, "memory.swap.peak")]
                    .into_iter()
                    .filter_map(|(on, f)| on.then_some(f))
                    .collect();
                if !files.is_empty() {
                    // The resolver allows resets only on an existing memcg.
                    return Action::ResetPeaks { id, limits, files };
                }
                if new {
                    let name = self.reader.memcg_name(id);
                    let pdir = self.memcg_dir(parent);
                    let rel = if pdir.is_empty() {
                        name.to_string()
                    } else {
                        format!("{pdir}/{name}")
                    };
                    let idx = usize::from(id);
                    if self.memcg_dirs.len() <= idx {
                        self.memcg_dirs.resize(idx + 1, String::new());
                    }
                    self.memcg_dirs[idx] = rel.clone();
                    Action::CreateMemcg {
                        id,
                        parent,
                        rel,
                        limits,
                    }
                } else {
                    Action::SetLimits { id, limits }
                }
            }
            Op::File {
                id,
                pages,
                readahead_pages,
                kind,
                zram_ratio,
            } => {
                // The guest's zram compresses what the replayer writes
                // (its own pattern, as for every page): the ratio is the
                // model's only, said once.
                if zram_ratio.is_some() && !self.warned_zram_ratio {
                    self.warned_zram_ratio = true;
                    self.warnings.push(format!(
                        "file `{}` has zram_ratio=: the model compresses its pages by it; on the kernel zram compresses the replayer's data, whatever the trace says",
                        self.reader.file_name(id)
                    ));
                }
                if readahead_pages != 0 && !self.readaheads.contains(&readahead_pages) {
                    self.readaheads.push(readahead_pages);
                    if self.readaheads.len() == 2 {
                        let kib: Vec<String> = self
                            .readaheads
                            .iter()
                            .map(|p| format!("{} KiB", p * PAGE_SIZE / 1024))
                            .collect();
                        self.warnings.push(format!(
                            "files have different non-zero readahead windows ({}; file `{}` is the first \
                             to differ): the device's read_ahead_kb is one value for all files \
                             (use --per-file-readahead)",
                            kib.join(", "),
                            self.reader.file_name(id)
                        ));
                    }
                }
                Action::CreateFile {
                    id,
                    pages,
                    readahead_pages,
                    kind,
                }
            }
            Op::Task { id, memcg, cpu, oom_score_adj } => Action::Spawn { task: id, memcg, cpu, oom_score_adj },
            Op::TaskSet { id, memcg, oom_score_adj } => Action::TaskSet { task: id, memcg, oom_score_adj },
            Op::Stat { memcg } => Action::Stat { memcg },
            // The harness gives the guest its CPUs (`-smp`); only reported.
            Op::Cpus { .. } => Action::Machine,
            Op::Anon {
                task,
                region,
                pages,
                populate,
                shared,
            } => Action::MapAnon {
                task,
                region,
                pages,
                populate,
                shared,
            },
            Op::Mmap { task, region, file, populate } => Action::MapFile {
                task,
                region,
                file,
                pages: self.reader.file_pages(file).unwrap_or(0),
                populate,
            },
            Op::Mlock { task, region } => Action::Mlock { task, region },
            Op::Munlock { task, region } => Action::Munlock { task, region },
            Op::Read {
                task,
                file,
                page,
                count,
            } => Action::Read {
                task,
                file,
                page,
                count,
            },
            Op::Write {
                task,
                file,
                page,
                count,
            } => Action::Write {
                task,
                file,
                page,
                count,
            },
            Op::Load {
                task,
                region,
                page,
                count,
            } => Action::Load {
                task,
                region,
                page,
                count,
            },
            Op::Store {
                task,
                region,
                page,
                count,
            } => Action::Store {
                task,
                region,
                page,
                count,
            },
            Op::Advise {
                task,
                target,
                advice,
            } => match target {
                Target::Region(region) => Action::Madvise {
                    task,
                    region,
                    advice,
                },
                Target::File(file) => Action::Fadvise { task, file, advice },
            },
            Op::Reclaim { memcg, bytes, swappiness } => Action::Reclaim { memcg, bytes, swappiness },
            Op::Sleep { ns } => Action::Sleep { ns },
            Op::Exit { task } => Action::Exit { task },
            Op::Munmap { task, region } => Action::Munmap { task, region },
            Op::Fork { task, child, first_region } => Action::Fork { task, child, first_region },
            Op::Unlink { file } => Action::Unlink { file },
            Op::Truncate { file, pages } => Action::Truncate { file, pages },
            Op::Dump => Action::Dump,
            Op::LruGenAge {
                memcg,
                max_gen,
                swappiness,
                force_scan,
            } => Action::LruGen {
                memcg,
                cmd: LruGenCmd {
                    cmd: '+',
                    seq: max_gen,
                    swappiness,
                    opt: Some(u64::from(force_scan)),
                },
            },
            Op::LruGenEvict {
                memcg,
                min_gen,
                swappiness,
                nr_to_reclaim,
            } => Action::LruGen {
                memcg,
                cmd: LruGenCmd {
                    cmd: '-',
                    seq: min_gen,
                    swappiness,
                    opt: (nr_to_reclaim != u64::MAX).then_some(nr_to_reclaim),
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<Step> {
        let mut p = Planner::new(TraceReader::from_str("t", text));
        let mut v = Vec::new();
        while let Some(s) = p.next_step().expect("valid trace") {
            v.push(s);
        }
        v
    }

    fn actions(text: &str) -> Vec<Action> {
        steps(text)
            .into_iter()
            .filter_map(|s| match s {
                Step::Op { action, .. } => Some(action),
                Step::Begin => None,
            })
            .collect()
    }

    #[test]
    fn begin_comes_before_the_first_non_definition() {
        let s =
            steps("memory 1G\nfile f size=8K\ntask t\nanon t h size=8K\nstore t h 0\nload t h 1\n");
        assert_eq!(s.len(), 7);
        assert_eq!(s[4], Step::Begin);
        assert!(matches!(s[5], Step::Op { line: 5, .. }));
        // Only one Begin.
        assert_eq!(s.iter().filter(|x| **x == Step::Begin).count(), 1);
        // Advise before any access also starts the measured part.
        let s = steps("file f size=8K\ntask t\nadvise t f willneed\n");
        assert_eq!(s[2], Step::Begin);
        // No Begin without a non-definition.
        let s = steps("file f size=8K\ntask t\n");
        assert!(!s.contains(&Step::Begin));
    }

    #[test]
    fn sysctls_map_to_kernel_files() {
        let a = actions(
            "sysctl vm.page-cluster=0\nsysctl lru_gen.enabled=y\nsysctl lru_gen.enabled=0x0003\n\
             sysctl lru_gen.enabled=n\nsysctl lru_gen.min_ttl_ms=1000\nsysctl vm.swappiness=200\n",
        );
        let want = [
            ("/proc/sys/vm/page-cluster", "0"),
            ("/sys/kernel/mm/lru_gen/enabled", "y"),
            ("/sys/kernel/mm/lru_gen/enabled", "0x0003"),
            ("/sys/kernel/mm/lru_gen/enabled", "n"),
            ("/sys/kernel/mm/lru_gen/min_ttl_ms", "1000"),
            ("/proc/sys/vm/swappiness", "200"),
        ];
        for (a, (p, v)) in a.iter().zip(want) {
            assert_eq!(
                *a,
                Action::Knob {
                    path: p,
                    value: v.to_string()
                }
            );
        }
        for s in Sysctl::ALL {
            let p = knob_path(s);
            let n = s.name();
            if let Some(rest) = n.strip_prefix("vm.") {
                assert_eq!(p, format!("/proc/sys/vm/{rest}"));
            } else {
                let rest = n.strip_prefix("lru_gen.").expect("lru_gen.*");
                assert_eq!(p, format!("/sys/kernel/mm/lru_gen/{rest}"));
            }
        }
    }

    #[test]
    fn memcgs_nest_and_write_limits() {
        let a = actions(
            "memcg app max=1G\nmemcg web parent=app high=512M swap.max=0 low=1M\nmemcg app max=max\n",
        );
        assert_eq!(
            a[0],
            Action::CreateMemcg {
                id: 1,
                parent: 0,
                rel: "app".into(),
                limits: vec![("memory.max", "1073741824".into())]
            }
        );
        assert_eq!(
            a[1],
            Action::CreateMemcg {
                id: 2,
                parent: 1,
                rel: "app/web".into(),
                limits: vec![
                    ("memory.high", "536870912".into()),
                    ("memory.low", "1048576".into()),
                    ("memory.swap.max", "0".into()),
                ]
            }
        );
        assert_eq!(
            a[2],
            Action::SetLimits {
                id: 1,
                limits: vec![("memory.max", "max".into())]
            }
        );
    }

    #[test]
    fn lru_gen_commands() {
        let a = actions(
            "memcg w\nlru_gen + w 0 5\nlru_gen + w 0 5 100 0\nlru_gen + root 0 5 max\n\
             lru_gen - w 0 4\nlru_gen - w 0 4 max 1000\nlru_gen - w 0 4 10\n",
        );
        let texts: Vec<String> = a[1..]
            .iter()
            .map(|x| match x {
                Action::LruGen { cmd, .. } => cmd.text(9),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "+ 9 0 5",
                "+ 9 0 5 100 0",
                "+ 9 0 5 201 1",
                "- 9 0 4",
                "- 9 0 4 201 1000",
                "- 9 0 4 10",
            ]
        );
    }

    #[test]
    fn readahead_warning() {
        let mut p = Planner::new(TraceReader::from_str(
            "t",
            "file a size=1M\nfile b size=1M readahead=0\nfile c size=1M readahead=128K\nfile d size=1M readahead=256K\n",
        ));
        while p.next_step().expect("valid").is_some() {}
        let w = p.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("128 KiB, 256 KiB"), "{}", w[0]);
        assert!(w[0].contains("`d`"), "{}", w[0]);
        assert_eq!(p.readaheads(), &[32, 64]);
    }

    #[test]
    fn data_file_names() {
        assert_eq!(
            data_file_name(3, "/usr/lib/libc.so.6"),
            "f000003-_usr_lib_libc.so.6"
        );
        assert_eq!(data_file_name(0, ".."), "f000000-..");
        let long = "x".repeat(1000);
        assert!(data_file_name(1, &long).len() <= 240);
    }

    #[test]
    fn memcg_files_tasks_and_stat() {
        let a = actions(
            "memcg a max=1M oom.group=1
memcg b
task t memcg=a oom_score_adj=-500
             memcg a peak=reset swap.peak=reset oom.group=0
task t memcg=b
task t oom_score_adj=7
stat a
",
        );
        assert_eq!(
            a[0],
            Action::CreateMemcg {
                id: 1,
                parent: 0,
                rel: "a".into(),
                limits: vec![("memory.max", "1048576".into()), ("memory.oom.group", "1".into())]
            }
        );
        assert_eq!(a[2], Action::Spawn { task: 0, memcg: 1, cpu: None, oom_score_adj: -500 });
        assert_eq!(
            a[3],
            Action::ResetPeaks {
                id: 1,
                limits: vec![("memory.oom.group", "0".into())],
                files: vec!["memory.peak", "memory.swap.peak"]
            }
        );
        assert_eq!(a[4], Action::TaskSet { task: 0, memcg: Some(2), oom_score_adj: None });
        assert_eq!(a[5], Action::TaskSet { task: 0, memcg: None, oom_score_adj: Some(7) });
        assert_eq!(a[6], Action::Stat { memcg: 1 });
    }
}
