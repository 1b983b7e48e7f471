// SPDX-License-Identifier: GPL-2.0-only
//! Semantics of statements: name tables, dense ids and the rules of the
//! format (definition before use, ranges, exits, the setup section).

use crate::hash::{hash_scoped, hash_str, same, Index};
use crate::limits::{idle_too_long, size_text, MAX_FILE_SIZE, MAX_SLEEP_NS, MAX_TOTAL_FILE_SIZE};
use crate::parse::{perr, Access, AccessKind, PErr, PResult, Stmt, Tok};
use crate::{Advice, MemcgOp, Op, Target, ROOT_MEMCG, SWAPPINESS_ANON_ONLY};
use std::fmt::Write as _;

/// Marks a region that is an anonymous mapping (no file).
const NO_FILE: u32 = u32::MAX;

struct MemcgEnt {
    name: Box<str>,
    parent: u16,
    at: u64,
}

struct TaskEnt {
    name: Box<str>,
    memcg: u16,
    at: u64,
    /// Where the task exited, 0 while it is alive.
    exited: u64,
}

struct FileEnt {
    name: Box<str>,
    /// The file's size now (`truncate` changes it).
    pages: u64,
    /// The size it was defined with: the most `truncate` may set.
    max_pages: u64,
    at: u64,
    /// Where it was last truncated, 0 if never.
    truncated: u64,
    /// Where it was unlinked, 0 while it has its name.
    unlinked: u64,
}

struct RegionEnt {
    task: u32,
    name: Box<str>,
    pages: u64,
    file: u32,
    /// Where it was unmapped, 0 while it is mapped.
    unmapped: u64,
}

/// Name tables and the state needed to validate statements.
pub(crate) struct Resolver {
    /// "line" for text traces, "record" for binary ones (for messages).
    unit: &'static str,
    memcgs: Vec<MemcgEnt>,
    memcg_idx: Index,
    tasks: Vec<TaskEnt>,
    task_idx: Index,
    files: Vec<FileEnt>,
    file_idx: Index,
    regions: Vec<RegionEnt>,
    /// Regions by (task, name).
    region_idx: Index,
    memory_at: u64,
    swap_at: u64,
    /// Pages of all the files defined so far (bounded by
    /// MAX_TOTAL_FILE_SIZE).
    file_pages_total: u64,
    /// Nanoseconds of all the sleeps so far (bounded by MAX_SLEEP_NS).
    sleep_total: u64,
    /// The first statement that is not memory/swap/sysctl: (where, keyword).
    setup_end: Option<(u64, &'static str)>,
    /// One-entry lookup caches (indices into the tables; may be stale or
    /// out of range, they are always checked).
    c_task: usize,
    c_file: usize,
    c_region: usize,
}

impl Resolver {
    pub fn new(unit: &'static str) -> Resolver {
        let mut r = Resolver {
            unit,
            memcgs: Vec::new(),
            memcg_idx: Index::new(),
            tasks: Vec::new(),
            task_idx: Index::new(),
            files: Vec::new(),
            file_idx: Index::new(),
            regions: Vec::new(),
            region_idx: Index::new(),
            memory_at: 0,
            swap_at: 0,
            file_pages_total: 0,
            sleep_total: 0,
            setup_end: None,
            c_task: usize::MAX,
            c_file: usize::MAX,
            c_region: usize::MAX,
        };
        r.memcgs.push(MemcgEnt {
            name: ROOT_MEMCG.into(),
            parent: 0,
            at: 0,
        });
        r.memcg_idx.insert(hash_str(ROOT_MEMCG), 0);
        r
    }

    /// Adds a sleep to the trace's idle time, which must stay within
    /// MAX_SLEEP_NS (a single sleep is checked where it is parsed).
    pub fn add_sleep(&mut self, ns: u64) -> Result<(), String> {
        let total = self.sleep_total as u128 + ns as u128;
        if total > MAX_SLEEP_NS as u128 {
            return Err(idle_too_long(total));
        }
        self.sleep_total = total as u64;
        Ok(())
    }

    pub fn set_unit(&mut self, unit: &'static str) {
        self.unit = unit;
    }

    // ---- name tables -------------------------------------------------

    pub fn memcg_count(&self) -> usize {
        self.memcgs.len()
    }
    pub fn task_count(&self) -> usize {
        self.tasks.len()
    }
    pub fn file_count(&self) -> usize {
        self.files.len()
    }
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    pub fn memcg_name(&self, id: u16) -> Option<&str> {
        self.memcgs.get(usize::from(id)).map(|m| &*m.name)
    }
    pub fn memcg_parent(&self, id: u16) -> Option<u16> {
        self.memcgs.get(usize::from(id)).map(|m| m.parent)
    }
    pub fn task_name(&self, id: u32) -> Option<&str> {
        self.tasks.get(id as usize).map(|t| &*t.name)
    }
    pub fn task_memcg(&self, id: u32) -> Option<u16> {
        self.tasks.get(id as usize).map(|t| t.memcg)
    }
    pub fn file_name(&self, id: u32) -> Option<&str> {
        self.files.get(id as usize).map(|f| &*f.name)
    }
    pub fn file_pages(&self, id: u32) -> Option<u64> {
        self.files.get(id as usize).map(|f| f.pages)
    }
    pub fn region_name(&self, id: u32) -> Option<(&str, &str)> {
        let r = self.regions.get(id as usize)?;
        Some((&*self.tasks[r.task as usize].name, &*r.name))
    }
    pub fn region_task(&self, id: u32) -> Option<u32> {
        self.regions.get(id as usize).map(|r| r.task)
    }
    pub fn region_pages(&self, id: u32) -> Option<u64> {
        self.regions.get(id as usize).map(|r| r.pages)
    }
    pub fn region_file(&self, id: u32) -> Option<u32> {
        let r = self.regions.get(id as usize)?;
        (r.file != NO_FILE).then_some(r.file)
    }
    pub fn memcg_id(&self, name: &str) -> Option<u16> {
        self.lookup_memcg(name)
    }
    pub fn task_id(&self, name: &str) -> Option<u32> {
        self.lookup_task(name)
    }
    pub fn file_id(&self, name: &str) -> Option<u32> {
        self.lookup_file(name)
    }
    pub fn region_id(&self, task: &str, region: &str) -> Option<u32> {
        let t = self.lookup_task(task)?;
        self.lookup_region(t, region)
    }

    #[inline]
    fn lookup_memcg(&self, name: &str) -> Option<u16> {
        self.memcg_idx
            .find(hash_str(name), |id| {
                same(&self.memcgs[id as usize].name, name)
            })
            .map(|id| id as u16)
    }

    #[inline]
    fn lookup_task(&self, name: &str) -> Option<u32> {
        self.task_idx.find(hash_str(name), |id| {
            same(&self.tasks[id as usize].name, name)
        })
    }

    #[inline]
    fn lookup_file(&self, name: &str) -> Option<u32> {
        self.file_idx.find(hash_str(name), |id| {
            let f = &self.files[id as usize];
            f.unlinked == 0 && same(&f.name, name)
        })
    }

    /// The last unlinked file of this name (for messages).
    #[cold]
    fn lookup_unlinked_file(&self, name: &str) -> Option<u32> {
        (0..self.files.len() as u32).rev().find(|&id| {
            let f = &self.files[id as usize];
            f.unlinked != 0 && *f.name == *name
        })
    }

    /// The last unmapped region of this name of `task` (for messages).
    #[cold]
    fn lookup_unmapped_region(&self, task: u32, name: &str) -> Option<u32> {
        (0..self.regions.len() as u32).rev().find(|&id| {
            let r = &self.regions[id as usize];
            r.task == task && r.unmapped != 0 && *r.name == *name
        })
    }

    #[inline]
    fn lookup_region(&self, task: u32, name: &str) -> Option<u32> {
        self.region_idx.find(hash_scoped(task, name), |id| {
            let r = &self.regions[id as usize];
            r.task == task && r.unmapped == 0 && same(&r.name, name)
        })
    }

    // ---- checks used by the binary decoder -----------------------------

    /// Validates a binary access record; returns an error message.
    pub fn check_access(
        &mut self,
        kind: AccessKind,
        task: u64,
        target: u64,
        page: u64,
        count: u64,
        at: u64,
    ) -> Result<(u32, u32), String> {
        self.note_statement(at, kind_name(kind));
        let t = usize::try_from(task)
            .ok()
            .and_then(|i| self.tasks.get(i))
            .ok_or_else(|| format!("task id {task} is not defined"))?;
        if t.exited != 0 {
            return Err(format!(
                "task `{}` exited at {} {} and cannot be used any more",
                t.name, self.unit, t.exited
            ));
        }
        if count == 0 {
            return Err("COUNT is 0".to_string());
        }
        let end = page
            .checked_add(count)
            .ok_or_else(|| "PAGE+COUNT overflows".to_string())?;
        let pages = if kind.is_region() {
            let r = usize::try_from(target)
                .ok()
                .and_then(|i| self.regions.get(i))
                .filter(|r| u64::from(r.task) == task)
                .ok_or_else(|| {
                    format!("region id {target} is not a region of task `{}`", t.name)
                })?;
            if r.unmapped != 0 {
                return Err(format!(
                    "region `{}` of task `{}` was unmapped at {} {}",
                    r.name, t.name, self.unit, r.unmapped
                ));
            }
            if r.file != NO_FILE {
                // A mapped page beyond the end of a truncated file.
                r.pages.min(self.files[r.file as usize].pages)
            } else {
                r.pages
            }
        } else {
            let f = usize::try_from(target)
                .ok()
                .and_then(|i| self.files.get(i))
                .ok_or_else(|| format!("file id {target} is not defined"))?;
            if f.unlinked != 0 {
                return Err(format!(
                    "file `{}` was unlinked at {} {}",
                    f.name, self.unit, f.unlinked
                ));
            }
            f.pages
        };
        if end > pages {
            return Err(format!(
                "page out of range: target has {pages} pages, PAGE+COUNT = {end}"
            ));
        }
        // Both ids index tables whose length is below u32::MAX.
        Ok((task as u32, target as u32))
    }

    /// The size in pages of a target that `check_access` accepted (a region
    /// if `region`, else a file).
    #[inline]
    pub fn target_pages(&self, region: bool, target: u64) -> u64 {
        if region {
            self.regions[target as usize].pages
        } else {
            self.files[target as usize].pages
        }
    }

    /// Records that a statement other than memory/swap/sysctl was seen.
    #[inline]
    pub fn note_statement(&mut self, at: u64, kw: &'static str) {
        if self.setup_end.is_none() && !matches!(kw, "memory" | "swap" | "sysctl" | "cpus") {
            self.setup_end = Some((at, kw));
        }
    }

    // ---- lookups -------------------------------------------------------

    #[cold]
    fn undefined_task(&self, t: Tok<'_>) -> PErr {
        PErr {
            off: t.off,
            msg: format!(
                "undefined task `{}`: define it first with `task {} [memcg=NAME]`",
                t.s, t.s
            ),
        }
    }

    /// A task that is defined and has not exited.
    #[inline(always)]
    fn live_task(&mut self, t: Tok<'_>) -> PResult<u32> {
        let c = self.c_task;
        let id = if c < self.tasks.len() && same(&self.tasks[c].name, t.s) {
            c
        } else {
            match self.lookup_task(t.s) {
                Some(id) => {
                    self.c_task = id as usize;
                    id as usize
                }
                None => return Err(self.undefined_task(t)),
            }
        };
        let task = &self.tasks[id];
        if task.exited != 0 {
            return perr(
                t.off,
                format!(
                    "task `{}` exited at {} {} and cannot be used any more; define a new task for further work",
                    t.s, self.unit, task.exited
                ),
            );
        }
        Ok(id as u32)
    }

    #[inline]
    fn find_file(&mut self, name: &str) -> Option<u32> {
        let c = self.c_file;
        if c < self.files.len() && self.files[c].unlinked == 0 && same(&self.files[c].name, name) {
            return Some(c as u32);
        }
        let id = self.lookup_file(name)?;
        self.c_file = id as usize;
        Some(id)
    }

    #[inline]
    fn find_region(&mut self, task: u32, name: &str) -> Option<u32> {
        let c = self.c_region;
        if c < self.regions.len()
            && self.regions[c].task == task
            && self.regions[c].unmapped == 0
            && same(&self.regions[c].name, name)
        {
            return Some(c as u32);
        }
        let id = self.lookup_region(task, name)?;
        self.c_region = id as usize;
        Some(id)
    }

    #[inline(always)]
    fn file(&mut self, task: Option<u32>, t: Tok<'_>) -> PResult<u32> {
        if let Some(id) = self.find_file(t.s) {
            return Ok(id);
        }
        Err(self.undefined_file(task, t))
    }

    #[cold]
    fn undefined_file(&self, task: Option<u32>, t: Tok<'_>) -> PErr {
        let mut hint = String::new();
        if let Some(id) = self.lookup_unlinked_file(t.s) {
            return PErr {
                off: t.off,
                msg: format!(
                    "file `{}` was unlinked at {} {}: a file must be defined again (`file {} size=SIZE`) before it is used after an unlink",
                    t.s, self.unit, self.files[id as usize].unlinked, t.s
                ),
            };
        }
        if let Some(task) = task {
            if self.lookup_region(task, t.s).is_some() {
                hint = format!(
                    " (`{}` is a region of task `{}`: use load/store to access it)",
                    t.s, self.tasks[task as usize].name
                );
            }
        }
        PErr {
            off: t.off,
            msg: format!(
                "undefined file `{}`: define it first with `file {} size=SIZE`{hint}",
                t.s, t.s
            ),
        }
    }

    #[inline(always)]
    fn region(&mut self, task: u32, t: Tok<'_>) -> PResult<u32> {
        if let Some(id) = self.find_region(task, t.s) {
            return Ok(id);
        }
        Err(self.undefined_region(task, t))
    }

    #[cold]
    fn undefined_region(&self, task: u32, t: Tok<'_>) -> PErr {
        let tn = &self.tasks[task as usize].name;
        if let Some(id) = self.lookup_unmapped_region(task, t.s) {
            return PErr {
                off: t.off,
                msg: format!(
                    "region `{}` of task `{tn}` was unmapped at {} {}: map it again (`anon`/`mmap`) before using it",
                    t.s, self.unit, self.regions[id as usize].unmapped
                ),
            };
        }
        let hint = if self.lookup_file(t.s).is_some() {
            format!(
                " (`{}` is a file: use read/write for buffered I/O, or map it with `mmap {tn} {} file={}`)",
                t.s, t.s, t.s
            )
        } else {
            format!(
                "; define it with `anon {tn} {} size=SIZE` or `mmap {tn} {} file=NAME`",
                t.s, t.s
            )
        };
        PErr {
            off: t.off,
            msg: format!(
                "undefined region: task `{tn}` has no region `{}`{hint}",
                t.s
            ),
        }
    }

    fn memcg(&self, t: Tok<'_>) -> PResult<u16> {
        match self.lookup_memcg(t.s) {
            Some(id) => Ok(id),
            None => perr(
                t.off,
                format!(
                    "undefined memcg `{}`: define it first with `memcg {}` (the root memcg is `{ROOT_MEMCG}`)",
                    t.s, t.s
                ),
            ),
        }
    }

    // ---- statements ----------------------------------------------------

    /// Resolves one parsed statement found at `at` (line or record).
    pub fn resolve(&mut self, kw: Tok<'_>, st: Stmt<'_>, at: u64) -> PResult<Op> {
        match st {
            Stmt::Access(a) => self.resolve_access(a, at),
            st => self.resolve_other(kw, st, at),
        }
    }

    /// Resolves a page access found at `at`.
    #[inline(always)]
    pub fn resolve_access(&mut self, a: Access<'_>, at: u64) -> PResult<Op> {
        let Access {
            kind,
            task,
            target,
            page,
            count,
            page_off,
        } = a;
        if self.setup_end.is_none() {
            self.note_statement(at, kind_name(kind));
        }
        let tid = self.live_task(task)?;
        // `page + count` cannot overflow: checked by the parser.
        let end = page + count;
        if kind.is_region() {
            let rid = self.region(tid, target)?;
            let r = &self.regions[rid as usize];
            let pages = r.pages;
            if end > pages {
                return Err(self.region_range_error(rid, page_off, end));
            }
            if r.file != NO_FILE && end > self.files[r.file as usize].pages {
                return Err(self.mapped_range_error(rid, page_off, end));
            }
            Ok(match kind {
                AccessKind::Load => Op::Load {
                    task: tid,
                    region: rid,
                    page,
                    count,
                },
                _ => Op::Store {
                    task: tid,
                    region: rid,
                    page,
                    count,
                },
            })
        } else {
            let fid = self.file(Some(tid), target)?;
            let pages = self.files[fid as usize].pages;
            if end > pages {
                return Err(self.file_range_error(fid, page_off, end));
            }
            Ok(match kind {
                AccessKind::Read => Op::Read {
                    task: tid,
                    file: fid,
                    page,
                    count,
                },
                _ => Op::Write {
                    task: tid,
                    file: fid,
                    page,
                    count,
                },
            })
        }
    }

    #[cold]
    fn region_range_error(&self, rid: u32, page_off: usize, end: u64) -> PErr {
        let r = &self.regions[rid as usize];
        PErr {
            off: page_off,
            msg: format!(
                "page out of range: region {} of task {} has {} pages, PAGE+COUNT = {end} (pages count from 0)",
                r.name, self.tasks[r.task as usize].name, r.pages
            ),
        }
    }

    #[cold]
    fn mapped_range_error(&self, rid: u32, page_off: usize, end: u64) -> PErr {
        let r = &self.regions[rid as usize];
        let f = &self.files[r.file as usize];
        PErr {
            off: page_off,
            msg: format!(
                "page beyond the end of the file: region {} of task {} maps file {}, truncated to {} pages at {} {}, PAGE+COUNT = {end} (the kernel sends SIGBUS); access pages below {} or truncate the file to a larger size first",
                r.name, self.tasks[r.task as usize].name, f.name, f.pages, self.unit, f.truncated, f.pages
            ),
        }
    }

    #[cold]
    fn file_range_error(&self, fid: u32, page_off: usize, end: u64) -> PErr {
        let f = &self.files[fid as usize];
        PErr {
            off: page_off,
            msg: format!(
                "page out of range: file {} has {} pages, PAGE+COUNT = {end} (pages count from 0){}",
                f.name,
                f.pages,
                if f.truncated != 0 {
                    format!("; it was truncated at {} {}", self.unit, f.truncated)
                } else {
                    String::new()
                }
            ),
        }
    }

    fn setup_stmt(&mut self, kw: Tok<'_>, at: u64, is_memory: bool) -> PResult<()> {
        let what = if is_memory { "memory" } else { "swap" };
        if let Some((end_at, end_kw)) = self.setup_end {
            return perr(
                kw.off,
                format!(
                    "{what} must be set before any statement other than memory, swap and sysctl (the first one is `{end_kw}` at {} {end_at}): move the {what} statement to the top of the trace",
                    self.unit
                ),
            );
        }
        let prev = if is_memory {
            &mut self.memory_at
        } else {
            &mut self.swap_at
        };
        if *prev != 0 {
            return perr(
                kw.off,
                format!(
                    "{what} is already set at {} {}; only one {what} statement is allowed",
                    self.unit, *prev
                ),
            );
        }
        *prev = at;
        Ok(())
    }

    fn resolve_other(&mut self, kw: Tok<'_>, st: Stmt<'_>, at: u64) -> PResult<Op> {
        if self.setup_end.is_none() {
            let kwname = crate::parse::KEYWORDS
                .iter()
                .copied()
                .find(|k| *k == kw.s)
                .unwrap_or("?");
            self.note_statement(at, kwname);
        }
        match st {
            Stmt::Memory { bytes } => {
                self.setup_stmt(kw, at, true)?;
                Ok(Op::Memory { bytes })
            }
            Stmt::Swap { bytes, sync_io, ram, zram } => {
                self.setup_stmt(kw, at, false)?;
                Ok(Op::Swap { bytes, sync_io, ram, zram })
            }
            Stmt::Cpus { n } => {
                if let Some((end_at, end_kw)) = self.setup_end {
                    return perr(
                        kw.off,
                        format!(
                            "cpus must be set before any statement other than memory, swap, cpus and sysctl (the first one is `{end_kw}` at {} {end_at}): move it to the top of the trace",
                            self.unit
                        ),
                    );
                }
                Ok(Op::Cpus { n })
            }
            Stmt::Sysctl { name, value } => Ok(Op::Sysctl { name, value }),
            Stmt::Memcg {
                name,
                parent,
                limits: l,
                oom_group,
                reset_peak,
                reset_swap_peak,
            } => {
                if name.s == ROOT_MEMCG {
                    return perr(
                        name.off,
                        "the root memcg exists implicitly and has no limits; define a child memcg (e.g. `memcg top max=1G`) and put tasks in it".to_string(),
                    );
                }
                let parent_id = match parent {
                    Some(p) => Some(self.memcg(p).map_err(|mut e| {
                        e.msg = format!(
                            "undefined parent memcg `{}`: define it before its children",
                            p.s
                        );
                        e
                    })?),
                    None => None,
                };
                if let Some(id) = self.lookup_memcg(name.s) {
                    let m = &self.memcgs[usize::from(id)];
                    if let (Some(pid), Some(p)) = (parent_id, parent) {
                        if pid != m.parent {
                            return perr(
                                p.off,
                                format!(
                                    "memcg `{}` was defined at {} {} with parent `{}`; the parent cannot change (leave out parent= to update limits)",
                                    name.s,
                                    self.unit,
                                    m.at,
                                    self.memcgs[usize::from(m.parent)].name
                                ),
                            );
                        }
                    }
                    return Ok(Op::Memcg(Box::new(MemcgOp {
                        id,
                        parent: m.parent,
                        new: false,
                        max: l.max,
                        high: l.high,
                        low: l.low,
                        min: l.min,
                        swap_max: l.swap_max,
                        oom_group,
                        reset_peak: reset_peak.is_some(),
                        reset_swap_peak: reset_swap_peak.is_some(),
                    })));
                }
                if let Some(off) = reset_peak.or(reset_swap_peak) {
                    let what = if reset_peak == Some(off) { "peak" } else { "swap.peak" };
                    return perr(
                        off,
                        format!(
                            "{what}=reset on the definition of memcg `{}`: a new memcg's peak starts at 0; reset it in a later `memcg {} {what}=reset`",
                            name.s, name.s
                        ),
                    );
                }
                if self.memcgs.len() > usize::from(u16::MAX) {
                    return perr(
                        name.off,
                        format!(
                            "too many memcgs: at most {} can be defined besides root",
                            u16::MAX
                        ),
                    );
                }
                let id = self.memcgs.len() as u16;
                let parent = parent_id.unwrap_or(0);
                self.memcgs.push(MemcgEnt {
                    name: name.s.into(),
                    parent,
                    at,
                });
                self.memcg_idx.insert(hash_str(name.s), u32::from(id));
                Ok(Op::Memcg(Box::new(MemcgOp {
                    id,
                    parent,
                    new: true,
                    max: l.max,
                    high: l.high,
                    low: l.low,
                    min: l.min,
                    swap_max: l.swap_max,
                    oom_group,
                    reset_peak: false,
                    reset_swap_peak: false,
                })))
            }
            Stmt::File {
                name,
                pages,
                readahead_pages,
                kind,
                zram_ratio,
            } => {
                if let Some(id) = self.lookup_file(name.s) {
                    return perr(
                        name.off,
                        format!(
                            "file `{}` is already defined at {} {}; use a different name",
                            name.s, self.unit, self.files[id as usize].at
                        ),
                    );
                }
                if self.files.len() >= u32::MAX as usize {
                    return perr(name.off, "too many files".to_string());
                }
                let total = self.file_pages_total.saturating_add(pages);
                if total > MAX_TOTAL_FILE_SIZE / crate::PAGE_SIZE {
                    return perr(
                        name.off,
                        format!(
                            "file `{}` takes the files of this trace to {} pages, more than the limit of {} for all files together; make the files smaller",
                            name.s,
                            total,
                            size_text(MAX_TOTAL_FILE_SIZE)
                        ),
                    );
                }
                self.file_pages_total = total;
                let id = self.files.len() as u32;
                self.files.push(FileEnt {
                    name: name.s.into(),
                    pages,
                    max_pages: pages,
                    at,
                    truncated: 0,
                    unlinked: 0,
                });
                let files = &self.files;
                self.file_idx.insert_over(hash_str(name.s), id, |old| {
                    let f = &files[old as usize];
                    f.unlinked != 0 && same(&f.name, name.s)
                });
                Ok(Op::File {
                    id,
                    pages,
                    readahead_pages,
                    kind,
                    zram_ratio,
                })
            }
            Stmt::Task { id, memcg, cpu, oom_score_adj } => {
                let mid = match memcg {
                    Some(m) => Some(self.memcg(m)?),
                    None => None,
                };
                if let Some(old) = self.lookup_task(id.s) {
                    let t = &self.tasks[old as usize];
                    if t.exited != 0 {
                        return perr(
                            id.off,
                            format!(
                                "task `{}` exited at {} {}; task IDs cannot be reused: use a new ID",
                                id.s, self.unit, t.exited
                            ),
                        );
                    }
                    // A later statement on a live task changes it: a move
                    // to another memcg and/or a new oom_score_adj.
                    if let Some((_, off)) = cpu {
                        return perr(
                            off,
                            format!(
                                "task `{}` is already defined at {} {} and its cpu= cannot change (the model does not migrate tasks); a later `task {}` statement takes memcg= and oom_score_adj= only",
                                id.s, self.unit, t.at, id.s
                            ),
                        );
                    }
                    if mid.is_none() && oom_score_adj.is_none() {
                        return perr(
                            id.off,
                            format!(
                                "duplicate task: `{}` is already defined at {} {}; to move it or change its oom_score_adj, give memcg=NAME and/or oom_score_adj=N",
                                id.s, self.unit, t.at
                            ),
                        );
                    }
                    if let Some(m) = mid {
                        self.tasks[old as usize].memcg = m;
                    }
                    return Ok(Op::TaskSet {
                        id: old,
                        memcg: mid,
                        oom_score_adj,
                    });
                }
                let mid = mid.unwrap_or(0);
                let cpu = cpu.map(|c| c.0);
                if self.tasks.len() as u64 >= crate::MAX_TASKS {
                    return perr(id.off, format!("too many tasks: the limit is {} (Linux's PID_MAX_LIMIT)", crate::MAX_TASKS));
                }
                let tid = self.tasks.len() as u32;
                self.tasks.push(TaskEnt {
                    name: id.s.into(),
                    memcg: mid,
                    at,
                    exited: 0,
                });
                self.task_idx.insert(hash_str(id.s), tid);
                Ok(Op::Task {
                    id: tid,
                    memcg: mid,
                    cpu,
                    oom_score_adj: oom_score_adj.unwrap_or(0),
                })
            }
            Stmt::Anon {
                task,
                region,
                pages,
                populate,
                shared,
            } => {
                let tid = self.live_task(task)?;
                // MAP_SHARED|MAP_ANONYMOUS: the kernel puts a shmem file
                // behind the mapping (shmem_zero_setup). It gets a file id
                // but no name a statement could use (`:` is not allowed
                // in names), and counts against the file limits.
                let shared = if shared {
                    if pages > MAX_FILE_SIZE / crate::PAGE_SIZE {
                        return perr(
                            region.off,
                            format!(
                                "shared anonymous region `{}` of {} pages is too large: the kernel backs it with a shmem file, and the limit is {} per file",
                                region.s,
                                pages,
                                size_text(MAX_FILE_SIZE)
                            ),
                        );
                    }
                    let total = self.file_pages_total.saturating_add(pages);
                    if total > MAX_TOTAL_FILE_SIZE / crate::PAGE_SIZE {
                        return perr(
                            region.off,
                            format!(
                                "shared anonymous region `{}` takes the files of this trace to {} pages, more than the limit of {} for all files together (its pages are a shmem file's); make it smaller",
                                region.s,
                                total,
                                size_text(MAX_TOTAL_FILE_SIZE)
                            ),
                        );
                    }
                    if self.files.len() >= u32::MAX as usize {
                        return perr(region.off, "too many files".to_string());
                    }
                    Some(total)
                } else {
                    None
                };
                let rid = self.new_region(tid, region, pages, NO_FILE)?;
                let shared = match shared {
                    Some(total) => {
                        self.file_pages_total = total;
                        let tname = self.tasks[tid as usize].name.clone();
                        self.files.push(FileEnt {
                            name: format!("anon:{}:{}", tname, region.s).into(),
                            pages,
                            max_pages: pages,
                            at,
                            truncated: 0,
                            // Only the mapping holds it (the kernel's fput
                            // after shmem_zero_setup).
                            unlinked: at.max(1),
                        });
                        true
                    }
                    None => false,
                };
                Ok(Op::Anon {
                    task: tid,
                    region: rid,
                    pages,
                    populate,
                    shared,
                })
            }
            Stmt::Mmap { task, region, file, populate } => {
                let tid = self.live_task(task)?;
                let fid = self.file(None, file)?;
                let pages = self.files[fid as usize].pages;
                let rid = self.new_region(tid, region, pages, fid)?;
                Ok(Op::Mmap {
                    task: tid,
                    region: rid,
                    file: fid,
                    populate,
                })
            }
            Stmt::Access(a) => self.resolve_access(a, at),
            Stmt::Advise {
                task,
                target,
                advice,
            } => {
                let tid = self.live_task(task)?;
                let target = if let Some(r) = self.find_region(tid, target.s) {
                    if advice == Advice::NoReuse {
                        return perr(
                            target.off,
                            format!(
                                "`noreuse` is POSIX_FADV_NOREUSE, advice for a file, but `{}` is a region of task `{}` (madvise has no such advice): name a file",
                                target.s, task.s
                            ),
                        );
                    }
                    Target::Region(r)
                } else if let Some(f) = self.find_file(target.s) {
                    Target::File(f)
                } else {
                    return perr(
                        target.off,
                        format!(
                            "`{}` is neither a region of task `{}` nor a file: define it first",
                            target.s, task.s
                        ),
                    );
                };
                Ok(Op::Advise {
                    task: tid,
                    target,
                    advice,
                })
            }
            Stmt::Stat { memcg } => Ok(Op::Stat {
                memcg: self.memcg(memcg)?,
            }),
            Stmt::Reclaim { memcg, bytes, swappiness } => Ok(Op::Reclaim {
                memcg: self.memcg(memcg)?,
                bytes,
                swappiness,
            }),
            Stmt::Sleep { ns, off } => {
                self.add_sleep(ns).map_err(|msg| PErr { off, msg })?;
                Ok(Op::Sleep { ns })
            }
            Stmt::Exit { task } => {
                let tid = self.live_task(task)?;
                self.tasks[tid as usize].exited = at.max(1);
                Ok(Op::Exit { task: tid })
            }
            Stmt::Munmap { task, region } => {
                let tid = self.live_task(task)?;
                let rid = self.region(tid, region)?;
                self.regions[rid as usize].unmapped = at.max(1);
                Ok(Op::Munmap { task: tid, region: rid })
            }
            Stmt::Fork { task, child } => self.resolve_fork(task, child, at),
            Stmt::Mlock { task, region, lock } => {
                let tid = self.live_task(task)?;
                let rid = self.region(tid, region)?;
                Ok(if lock {
                    Op::Mlock { task: tid, region: rid }
                } else {
                    Op::Munlock { task: tid, region: rid }
                })
            }
            Stmt::Unlink { file } => {
                let fid = self.file(None, file)?;
                self.files[fid as usize].unlinked = at.max(1);
                Ok(Op::Unlink { file: fid })
            }
            Stmt::Truncate { file, pages, off } => {
                let fid = self.file(None, file)?;
                let f = &mut self.files[fid as usize];
                if pages > f.max_pages {
                    return perr(
                        off,
                        format!(
                            "truncate would make file `{}` {} pages long, but it was defined with {} pages at {} {}: the model sizes a file's page cache when it is defined, so define it with the largest size it reaches (truncate may shrink it and grow it back)",
                            file.s, pages, f.max_pages, self.unit, f.at
                        ),
                    );
                }
                f.pages = pages;
                f.truncated = at.max(1);
                Ok(Op::Truncate { file: fid, pages })
            }
            Stmt::Dump => Ok(Op::Dump),
            Stmt::LruGen {
                evict,
                memcg,
                gen,
                swappiness,
                extra,
            } => {
                let memcg = self.memcg(memcg)?;
                Ok(if evict {
                    Op::LruGenEvict {
                        memcg,
                        min_gen: gen,
                        swappiness,
                        nr_to_reclaim: extra.unwrap_or(u64::MAX),
                    }
                } else {
                    Op::LruGenAge {
                        memcg,
                        max_gen: gen,
                        swappiness,
                        force_scan: extra != Some(0),
                    }
                })
            }
        }
    }

    /// `fork ID CHILD`: a new task in the parent's memcg with a copy of
    /// each of the parent's live regions (same name, size and file), given
    /// consecutive ids in the order of the parent's region ids.
    fn resolve_fork(&mut self, task: Tok<'_>, child: Tok<'_>, at: u64) -> PResult<Op> {
        let pid = self.live_task(task)?;
        if let Some(old) = self.lookup_task(child.s) {
            let t = &self.tasks[old as usize];
            return perr(
                child.off,
                if t.exited != 0 {
                    format!(
                        "task `{}` exited at {} {}; task IDs cannot be reused: give the child of the fork a new ID",
                        child.s, self.unit, t.exited
                    )
                } else {
                    format!(
                        "the child `{}` of a fork must be a new task, but `{}` is already defined at {} {}: give the child a new ID",
                        child.s, child.s, self.unit, t.at
                    )
                },
            );
        }
        if self.tasks.len() as u64 >= crate::MAX_TASKS {
            return perr(child.off, format!("too many tasks: the limit is {} (Linux's PID_MAX_LIMIT)", crate::MAX_TASKS));
        }
        let copies: Vec<usize> = (0..self.regions.len())
            .filter(|&r| self.regions[r].task == pid && self.regions[r].unmapped == 0)
            .collect();
        if self.regions.len() + copies.len() > u32::MAX as usize {
            return perr(child.off, "too many regions".to_string());
        }
        let cid = self.tasks.len() as u32;
        let memcg = self.tasks[pid as usize].memcg;
        self.tasks.push(TaskEnt {
            name: child.s.into(),
            memcg,
            at,
            exited: 0,
        });
        self.task_idx.insert(hash_str(child.s), cid);
        let first_region = self.regions.len() as u32;
        for r in copies {
            let p = &self.regions[r];
            let copy = RegionEnt {
                task: cid,
                name: p.name.clone(),
                pages: p.pages,
                file: p.file,
                unmapped: 0,
            };
            let rid = self.regions.len() as u32;
            self.region_idx.insert(hash_scoped(cid, &copy.name), rid);
            self.regions.push(copy);
        }
        Ok(Op::Fork {
            task: pid,
            child: cid,
            first_region,
        })
    }

    fn new_region(&mut self, tid: u32, region: Tok<'_>, pages: u64, file: u32) -> PResult<u32> {
        let task = &self.tasks[tid as usize];
        if self.lookup_region(tid, region.s).is_some() {
            return perr(
                region.off,
                format!(
                    "duplicate region: task `{}` already has a region `{}`; use a different name",
                    task.name, region.s
                ),
            );
        }
        if self.regions.len() >= u32::MAX as usize {
            return perr(region.off, "too many regions".to_string());
        }
        let rid = self.regions.len() as u32;
        self.regions.push(RegionEnt {
            task: tid,
            name: region.s.into(),
            pages,
            file,
            unmapped: 0,
        });
        let regions = &self.regions;
        self.region_idx.insert_over(hash_scoped(tid, region.s), rid, |old| {
            let r = &regions[old as usize];
            r.task == tid && r.unmapped != 0 && same(&r.name, region.s)
        });
        Ok(rid)
    }

    // ---- text form of an op --------------------------------------------

    /// Writes `op` as a trace statement that resolves back to the same op
    /// (given the same preceding statements).
    pub fn op_to_text(&self, op: &Op) -> String {
        let mut s = String::new();
        let memcg = |id: u16| self.memcg_name(id).unwrap_or("?");
        let task = |id: u32| self.task_name(id).unwrap_or("?");
        let file = |id: u32| self.file_name(id).unwrap_or("?");
        let region = |id: u32| self.region_name(id).map_or("?", |r| r.1);
        let limit = |v: u64| {
            if v == u64::MAX {
                "max".to_string()
            } else {
                v.to_string()
            }
        };
        let swp = |v: u32| {
            if v == SWAPPINESS_ANON_ONLY {
                "max".to_string()
            } else {
                v.to_string()
            }
        };
        let _ = match op {
            Op::Memory { bytes } => write!(s, "memory {bytes}"),
            Op::Swap { bytes, sync_io, ram, zram } => match zram {
                Some(r) => write!(s, "swap {bytes} zram=y ratio={}.{:02}", r / 100, r % 100),
                None => write!(s, "swap {bytes} sync={}{}", if *sync_io { "y" } else { "n" }, if *ram { " ram=y" } else { "" }),
            },
            Op::Sysctl { name, value } => write!(s, "sysctl {name}={value}"),
            Op::Memcg(m) => {
                let MemcgOp { id, parent, new, max, high, low, min, swap_max, oom_group, reset_peak, reset_swap_peak } = &**m;
                let _ = write!(s, "memcg {}", memcg(*id));
                if *new {
                    let _ = write!(s, " parent={}", memcg(*parent));
                }
                for (k, v) in [
                    ("max", max),
                    ("high", high),
                    ("low", low),
                    ("min", min),
                    ("swap.max", swap_max),
                ] {
                    if let Some(v) = v {
                        let _ = write!(s, " {k}={}", limit(*v));
                    }
                }
                if let Some(g) = oom_group {
                    let _ = write!(s, " oom.group={}", u8::from(*g));
                }
                if *reset_peak {
                    let _ = write!(s, " peak=reset");
                }
                if *reset_swap_peak {
                    let _ = write!(s, " swap.peak=reset");
                }
                Ok(())
            }
            Op::File {
                id,
                pages,
                readahead_pages,
                kind,
                zram_ratio,
            } => {
                let _ = match kind {
                    crate::FileKind::Disk => write!(
                        s,
                        "file {} size={} readahead={}",
                        file(*id),
                        pages_to_size(*pages),
                        pages_to_size(*readahead_pages)
                    ),
                    crate::FileKind::Tmpfs => write!(s, "file {} size={} tmpfs=y", file(*id), pages_to_size(*pages)),
                    crate::FileKind::Memfd => write!(s, "file {} size={} memfd=y", file(*id), pages_to_size(*pages)),
                };
                match zram_ratio {
                    Some(r) => write!(s, " zram_ratio={}.{:02}", r / 100, r % 100),
                    None => Ok(()),
                }
            }
            Op::Task { id, memcg: m, cpu, oom_score_adj } => {
                let _ = write!(s, "task {} memcg={}", task(*id), memcg(*m));
                if let Some(c) = cpu {
                    let _ = write!(s, " cpu={c}");
                }
                if *oom_score_adj != 0 {
                    let _ = write!(s, " oom_score_adj={oom_score_adj}");
                }
                Ok(())
            }
            Op::TaskSet { id, memcg: m, oom_score_adj } => {
                let _ = write!(s, "task {}", task(*id));
                if let Some(m) = m {
                    let _ = write!(s, " memcg={}", memcg(*m));
                }
                if let Some(a) = oom_score_adj {
                    let _ = write!(s, " oom_score_adj={a}");
                }
                Ok(())
            }
            Op::Stat { memcg: m } => write!(s, "stat {}", memcg(*m)),
            Op::Cpus { n } => write!(s, "cpus {n}"),
            Op::Anon {
                task: t,
                region: r,
                pages,
                populate,
                shared,
            } => write!(
                s,
                "anon {} {} size={}{}{}",
                task(*t),
                region(*r),
                pages_to_size(*pages),
                if *populate { " populate=y" } else { "" },
                if *shared { " shared=y" } else { "" }
            ),
            Op::Mmap {
                task: t,
                region: r,
                file: f,
                populate,
            } => write!(
                s,
                "mmap {} {} file={}{}",
                task(*t),
                region(*r),
                file(*f),
                if *populate { " populate=y" } else { "" }
            ),
            Op::Mlock { task: t, region: r } => write!(s, "mlock {} {}", task(*t), region(*r)),
            Op::Munlock { task: t, region: r } => write!(s, "munlock {} {}", task(*t), region(*r)),
            Op::Read {
                task: t,
                file: f,
                page,
                count,
            } => {
                write!(s, "read {} {} {page} {count}", task(*t), file(*f))
            }
            Op::Write {
                task: t,
                file: f,
                page,
                count,
            } => {
                write!(s, "write {} {} {page} {count}", task(*t), file(*f))
            }
            Op::Load {
                task: t,
                region: r,
                page,
                count,
            } => {
                write!(s, "load {} {} {page} {count}", task(*t), region(*r))
            }
            Op::Store {
                task: t,
                region: r,
                page,
                count,
            } => {
                write!(s, "store {} {} {page} {count}", task(*t), region(*r))
            }
            Op::Advise {
                task: t,
                target,
                advice,
            } => {
                let name = match target {
                    Target::File(f) => file(*f),
                    Target::Region(r) => region(*r),
                };
                write!(s, "advise {} {name} {advice}", task(*t))
            }
            Op::Reclaim { memcg: m, bytes, swappiness } => match swappiness {
                Some(n) => write!(s, "reclaim {} {bytes} swappiness={}", memcg(*m), swp(*n)),
                None => write!(s, "reclaim {} {bytes}", memcg(*m)),
            },
            Op::Sleep { ns } => write!(s, "sleep {ns}ns"),
            Op::Exit { task: t } => write!(s, "exit {}", task(*t)),
            Op::Munmap { task: t, region: r } => write!(s, "munmap {} {}", task(*t), region(*r)),
            Op::Fork { task: t, child, .. } => write!(s, "fork {} {}", task(*t), task(*child)),
            Op::Unlink { file: f } => write!(s, "unlink {}", file(*f)),
            Op::Truncate { file: f, pages } => write!(s, "truncate {} {}", file(*f), pages_to_size(*pages)),
            Op::Dump => write!(s, "dump"),
            Op::LruGenAge {
                memcg: m,
                max_gen,
                swappiness,
                force_scan,
            } => {
                let _ = write!(s, "lru_gen + {} 0 {max_gen}", memcg(*m));
                match swappiness {
                    Some(v) => write!(s, " {} {}", swp(*v), u8::from(*force_scan)),
                    None => Ok(()),
                }
            }
            Op::LruGenEvict {
                memcg: m,
                min_gen,
                swappiness,
                nr_to_reclaim,
            } => {
                let _ = write!(s, "lru_gen - {} 0 {min_gen}", memcg(*m));
                match swappiness {
                    Some(v) => write!(s, " {} {nr_to_reclaim}", swp(*v)),
                    None => Ok(()),
                }
            }
        };
        s
    }
}

/// A page count as a size that parses back to the same count.
fn pages_to_size(pages: u64) -> String {
    match pages.checked_mul(crate::PAGE_SIZE) {
        Some(b) => b.to_string(),
        // Only 2^52 pages (a size close to u64::MAX bytes) gets here: any
        // byte count in the last page rounds up to the same page count.
        None => ((pages - 1) * crate::PAGE_SIZE + 1).to_string(),
    }
}

pub(crate) fn kind_name(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
        AccessKind::Load => "load",
        AccessKind::Store => "store",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 35: a region (or file) name defined, unmapped (unlinked) and
    /// defined again N times left N dead entries in one probe run, so each
    /// lookup probed them all; the new definition now takes the dead one's
    /// slot. Bounded by counts: the probes, not a time.
    #[test]
    fn a_name_defined_again_costs_one_probe() {
        let mut text = String::from("memory 64M\ntask t\n");
        for _ in 0..1000 {
            text.push_str("anon t r size=4K\nstore t r 0\nmunmap t r\nfile f size=4K\nread t f 0\nunlink f\n");
        }
        text.push_str("anon t r size=4K\nfile f size=4K\n");
        let mut r = crate::TraceReader::from_str("t", &text);
        while r.next_op().unwrap_or_else(|e| panic!("{e}")).is_some() {}
        let res = &r.res;
        let t = res.lookup_task("t").unwrap();
        assert!(res.region_idx.probes(hash_scoped(t, "r")) <= 2, "{} probes", res.region_idx.probes(hash_scoped(t, "r")));
        assert!(res.file_idx.probes(hash_str("f")) <= 2, "{} probes", res.file_idx.probes(hash_str("f")));
        assert_eq!(res.lookup_region(t, "r"), Some(1000));
        assert_eq!(res.lookup_file("f"), Some(1000));
        assert!(res.lookup_unmapped_region(t, "r").is_some());
    }
}
