// SPDX-License-Identifier: GPL-2.0-only
//! strace output (`strace -f -tt -e trace=read,pread64,write,pwrite64,
//! mmap,munmap,openat,lseek,close,ftruncate,truncate,unlink,unlinkat,
//! mlock,mlock2,munlock,clone,clone3,fork,vfork,execve,memfd_create`): file I/O by file
//! descriptor, per process, what removes pages from the page cache or a
//! process (munmap of a whole file mapping, truncate, unlink), and the
//! processes themselves (fork, threads, exec). Files under a tmpfs mount
//! (`tmpfs=` dirs, default /dev/shm) and memfds are shmem files;
//! `MAP_SHARED|MAP_ANONYMOUS` is a shared anonymous region; a private
//! anonymous mapping is a region when its pages are faulted in where
//! strace sees it (`MAP_POPULATE`, or an `mlock` of the whole of it). See
//! docs/WORKLOADS.md, section "strace".

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use super::{access, file_lines, note_block_size, parse_secs, setup, LineReader, Timer};
use crate::stream::{lines, Source};
use crate::util::{sanitize, Params};
use crate::{ImportOptions, Lines};

/// What one line means.
enum Event {
    Access { task: String, file: String, off: u64, len: u64, write: bool },
    Mmap { task: String, file: String, end: u64, region: String, populate: bool },
    /// An anonymous mapping of `len` bytes: `MAP_SHARED|MAP_ANONYMOUS`
    /// (shmem, `shared`), or a private one the trace holds (`MAP_POPULATE`,
    /// or made just before an `mlock` of it).
    Anon { task: String, region: String, len: u64, populate: bool, shared: bool },
    /// `mlock`/`munlock` of a whole file mapping the trace made.
    Mlock { task: String, region: String, lock: bool },
    Exit { task: String },
    /// `munmap` of a whole file mapping the trace made.
    Munmap { task: String, region: String },
    /// `ftruncate`/`truncate` of a file to `size` bytes.
    Truncate { file: String, size: u64 },
    /// `unlink`/`unlinkat` of a file's path.
    Unlink { file: String },
    /// `fork`/`vfork`/`clone` without `CLONE_VM` (or with `CLONE_VFORK`):
    /// a new process with a copy of the parent's.
    Fork { parent: String, child: String },
    /// A successful `execve`: the process's mappings go (a new program).
    Exec { task: String, regions: Vec<String> },
}

/// Where a PID that a clone made comes from (found in the first pass, so
/// that the second can apply it at the child's first line, which strace
/// may print before the parent's clone returns).
#[derive(Clone, Copy)]
enum Origin {
    /// A new process, forked from this PID (its process's).
    Fork { parent: u64 },
    /// A thread of this PID's process: same mm, same task.
    Thread { leader: u64 },
}

/// A complete system call: name, top-level arguments, return value.
struct Call {
    name: String,
    args: Vec<String>,
    ret: Option<i64>,
}

/// Splits `name(args) = ret` into its parts, respecting quoted strings
/// (with backslash escapes) and nested `()[]{}`.
fn parse_call(body: &str) -> Option<Call> {
    let open = body.find('(')?;
    let name = body[..open].trim().to_string();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let bytes = body.as_bytes();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    let mut args = Vec::new();
    let mut start = open + 1;
    let mut close = None;
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => {
                close = Some(i);
                break;
            }
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                args.push(body[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    let close = close?;
    let last = body[start..close].trim();
    if !last.is_empty() || !args.is_empty() {
        args.push(last.to_string());
    }
    let rest = body[close + 1..].trim_start();
    let ret = rest.strip_prefix('=').and_then(|r| {
        let tok = r.split_whitespace().next()?;
        if let Some(h) = tok.strip_prefix("0x") {
            u64::from_str_radix(h, 16).ok().map(|v| v as i64)
        } else {
            tok.parse::<i64>().ok()
        }
    });
    Some(Call { name, args, ret })
}

/// The string inside the first `"..."` of an argument, unescaped.
fn unquote(arg: &str) -> Option<String> {
    let s = arg.find('"')?;
    let mut out = String::new();
    let mut chars = arg[s + 1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
}

fn int_arg(a: &str) -> Option<i64> {
    let t = a.trim();
    if let Some(h) = t.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(|v| v as i64);
    }
    t.parse::<i64>().ok()
}

/// Time of day `HH:MM:SS[.ffffff]` or epoch `SSSS.ffffff` in ns.
fn parse_time(tok: &str) -> Option<u64> {
    if tok.contains(':') {
        let mut it = tok.splitn(3, ':');
        let h: u64 = it.next()?.parse().ok()?;
        let m: u64 = it.next()?.parse().ok()?;
        let s = parse_secs(it.next()?)?;
        // Checked: a mutated `10:2147483648:01` overflowed.
        h.checked_mul(3600)?.checked_add(m.checked_mul(60)?)?.checked_mul(1_000_000_000)?.checked_add(s)
    } else if tok.contains('.') {
        parse_secs(tok)
    } else {
        None
    }
}

/// The strace state machine: fd tables per process, file positions,
/// unfinished calls; shared by both passes.
struct State {
    name: String,
    /// (pid, fd) -> (file, position)
    fds: HashMap<(u64, i64), (String, u64)>,
    /// fd -> file of the most recent open by any process (threads and
    /// forked children use descriptors they did not open themselves).
    last_open: HashMap<i64, String>,
    pending: HashMap<u64, String>,
    generation: HashMap<u64, u32>,
    regions: u64,
    /// read/write calls on descriptors the trace never opened.
    unknown_fd: u64,
    /// File mappings by (pid, address): (region, length in bytes).
    maps: HashMap<(u64, u64), (String, u64)>,
    /// Private anonymous mappings the trace does not hold (yet), by (pid,
    /// address): their length. Strace sees no access to them; one becomes
    /// a region when it is mlocked whole (mlock faults every page in).
    anon_maps: HashMap<(u64, u64), u64>,
    /// munmap calls that do not unmap exactly one whole mapping of the
    /// trace (partial unmaps, anonymous memory): not imported.
    partial_munmaps: u64,
    /// mlock/munlock calls that do not cover exactly one whole mapping of
    /// the trace: not imported.
    partial_mlocks: u64,
    /// How many times each path was unlinked: a path opened again after
    /// an unlink is a new file, named `PATH.genN`.
    unlinks: HashMap<String, u32>,
    /// The PIDs clones made, by (PID, generation): what each is.
    origins: HashMap<(u64, u32), Origin>,
    /// The origins already applied in this pass.
    applied: HashSet<(u64, u32)>,
    /// A thread's PID -> its process's PID (whose task it is).
    leader: HashMap<u64, u64>,
    /// Events that go before the current line's own (a fork found at the
    /// child's first line).
    pre: Vec<Event>,
    /// The task names of forked children and threads: not defined by
    /// `task` statements (a fork makes the first; the second is its
    /// process's).
    spawned: HashSet<String>,
    /// Directories whose files are on tmpfs (`tmpfs=`), each ending in `/`.
    tmpfs_dirs: Vec<String>,
    /// The shmem files by trace name: `tmpfs=y` or `memfd=y`.
    shmem: HashMap<String, &'static str>,
    /// memfd_create calls seen (numbering the memfds' names).
    memfds: u64,
}

impl State {
    fn new(name: &str, tmpfs_dirs: &[String]) -> State {
        State {
            tmpfs_dirs: tmpfs_dirs.to_vec(),
            shmem: HashMap::new(),
            memfds: 0,
            name: name.to_string(),
            fds: HashMap::new(),
            last_open: HashMap::new(),
            pending: HashMap::new(),
            generation: HashMap::new(),
            regions: 0,
            unknown_fd: 0,
            maps: HashMap::new(),
            anon_maps: HashMap::new(),
            partial_munmaps: 0,
            partial_mlocks: 0,
            unlinks: HashMap::new(),
            origins: HashMap::new(),
            applied: HashSet::new(),
            leader: HashMap::new(),
            pre: Vec::new(),
            spawned: HashSet::new(),
        }
    }

    fn gen(&self, pid: u64) -> u32 {
        self.generation.get(&pid).copied().unwrap_or(0)
    }

    /// Applies what a clone made `pid` (once per PID generation): a thread
    /// joins its process's task; a forked child gets copies of its
    /// parent's descriptors and mappings, and a `fork` goes out first.
    fn apply_origin(&mut self, pid: u64) {
        let key = (pid, self.gen(pid));
        let Some(&origin) = self.origins.get(&key) else { return };
        if !self.applied.insert(key) {
            return;
        }
        match origin {
            Origin::Thread { leader } => {
                self.spawned.insert(self.task(pid));
                self.leader.insert(pid, leader);
            }
            Origin::Fork { parent } => {
                let fds: Vec<(i64, (String, u64))> =
                    self.fds.iter().filter(|((p, _), _)| *p == parent).map(|((_, fd), e)| (*fd, e.clone())).collect();
                for (fd, e) in fds {
                    self.fds.insert((pid, fd), e);
                }
                let maps: Vec<(u64, (String, u64))> =
                    self.maps.iter().filter(|((p, _), _)| *p == parent).map(|((_, a), e)| (*a, e.clone())).collect();
                for (a, e) in maps {
                    self.maps.insert((pid, a), e);
                }
                let anon: Vec<(u64, u64)> =
                    self.anon_maps.iter().filter(|((p, _), _)| *p == parent).map(|((_, a), l)| (*a, *l)).collect();
                for (a, l) in anon {
                    self.anon_maps.insert((pid, a), l);
                }
                let child = self.task(pid);
                self.spawned.insert(child.clone());
                self.pre.push(Event::Fork { parent: self.task(parent), child });
            }
        }
    }

    /// The trace's name of the file at `path` now: the sanitized path, or
    /// after an unlink of it, a new name per generation.
    fn file_name(&self, path: &str) -> String {
        let f = sanitize(path, true);
        match self.unlinks.get(&f) {
            None => f,
            Some(g) => format!("{f}.gen{}", g + 1),
        }
    }

    fn task(&self, pid: u64) -> String {
        let base = if pid == 0 { "main".to_string() } else { format!("pid{}", pid) };
        match self.generation.get(&pid) {
            None | Some(0) => base,
            Some(g) => format!("{}.{}", base, g + 1),
        }
    }

    fn file_of(&mut self, pid: u64, fd: i64) -> Option<(String, u64)> {
        if let Some(e) = self.fds.get(&(pid, fd)) {
            return Some(e.clone());
        }
        let f = self.last_open.get(&fd)?.clone();
        self.fds.insert((pid, fd), (f.clone(), 0));
        Some((f, 0))
    }

    fn set_pos(&mut self, pid: u64, fd: i64, pos: u64) {
        if let Some(e) = self.fds.get_mut(&(pid, fd)) {
            e.1 = pos;
        }
    }

    /// Processes one line: its timestamp and event, if any.
    fn line(&mut self, lineno: u64, line: &str) -> Result<(Option<u64>, Option<Event>), String> {
        let mut rest = line.trim();
        if rest.is_empty() || rest.starts_with("strace:") || rest.starts_with("Process ") {
            return Ok((None, None));
        }
        // Lines without a PID prefix belong to the first process, `main`.
        let mut pid = 0;
        if let Some(r) = rest.strip_prefix("[pid") {
            let end = r.find(']').ok_or_else(|| format!("{}:{}: expected `[pid N]`, found `{}`", self.name, lineno, super::excerpt(line)))?;
            pid = r[..end].trim().parse().map_err(|_| format!("{}:{}: bad PID in `[pid{}]`", self.name, lineno, &r[..end]))?;
            rest = r[end + 1..].trim_start();
        } else if let Some((first, r)) = rest.split_once(char::is_whitespace) {
            if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
                pid = first.parse().map_err(|_| format!("{}:{}: bad PID `{}`", self.name, lineno, first))?;
                rest = r.trim_start();
            }
        }
        // What a clone made this PID, if this is its first line; then a
        // thread's lines are its process's.
        self.apply_origin(pid);
        let raw = pid;
        let pid = self.leader.get(&raw).copied().unwrap_or(raw);
        let mut ts = None;
        if let Some((first, r)) = rest.split_once(char::is_whitespace) {
            if first.starts_with(|c: char| c.is_ascii_digit()) {
                ts = Some(parse_time(first).ok_or_else(|| {
                    format!("{}:{}: bad timestamp `{}`: expected HH:MM:SS.ffffff (strace -tt) or SECONDS.ffffff (-ttt)", self.name, lineno, first)
                })?);
                rest = r.trim_start();
            }
        }
        if rest.starts_with("+++") {
            if rest.contains("exited with") || rest.contains("killed by") {
                if self.leader.remove(&raw).is_some() {
                    // A thread ends; its process goes on.
                    *self.generation.entry(raw).or_insert(0) += 1;
                    return Ok((ts, None));
                }
                self.leader.retain(|_, l| *l != pid);
                let task = self.task(pid);
                *self.generation.entry(pid).or_insert(0) += 1;
                self.fds.retain(|(p, _), _| *p != pid);
                self.maps.retain(|(p, _), _| *p != pid);
                self.anon_maps.retain(|(p, _), _| *p != pid);
                return Ok((ts, Some(Event::Exit { task })));
            }
            return Ok((ts, None));
        }
        if rest.starts_with("---") {
            return Ok((ts, None));
        }
        let body: String = if let Some(r) = rest.strip_prefix("<...") {
            let end = r.find("resumed>").ok_or_else(|| {
                format!("{}:{}: expected `<... NAME resumed> ...`, found `{}`", self.name, lineno, rest)
            })?;
            let tail = &r[end + "resumed>".len()..];
            match self.pending.remove(&pid) {
                Some(head) => format!("{}{}", head, tail),
                None => return Ok((ts, None)),
            }
        } else if let Some(head) = rest.strip_suffix("<unfinished ...>") {
            self.pending.insert(pid, head.to_string());
            return Ok((ts, None));
        } else {
            rest.to_string()
        };
        let call = parse_call(&body).ok_or_else(|| {
            format!(
                "{}:{}: expected a system call `NAME(ARGS) = RESULT` (strace -f -tt output), found `{}`",
                self.name, lineno, body
            )
        })?;
        let ret = call.ret.unwrap_or(-1);
        let arg = |i: usize| -> Result<&str, String> {
            call.args.get(i).map(|s| s.as_str()).ok_or_else(|| {
                format!("{}:{}: `{}` needs at least {} arguments", self.name, lineno, call.name, i + 1)
            })
        };
        let fd_arg = |i: usize| -> Result<i64, String> {
            let a = arg(i)?;
            int_arg(a).ok_or_else(|| format!("{}:{}: `{}`: bad file descriptor `{}`", self.name, lineno, call.name, a))
        };
        let ev = match call.name.as_str() {
            "openat" | "open" | "creat" => {
                let pi = if call.name == "openat" { 1 } else { 0 };
                let path = unquote(arg(pi)?).ok_or_else(|| {
                    format!("{}:{}: `{}`: expected a quoted path", self.name, lineno, call.name)
                })?;
                if ret >= 0 {
                    let f = self.file_name(&path);
                    if self.tmpfs_dirs.iter().any(|d| path.starts_with(d.as_str())) {
                        self.shmem.insert(f.clone(), "tmpfs=y");
                    }
                    self.fds.insert((pid, ret), (f.clone(), 0));
                    self.last_open.insert(ret, f);
                }
                None
            }
            "memfd_create" => {
                let name = unquote(arg(0)?).ok_or_else(|| {
                    format!("{}:{}: `memfd_create`: expected a quoted name", self.name, lineno)
                })?;
                if ret >= 0 {
                    // Its own file whatever the name (memfd names need not
                    // be unique): memfdN-NAME.
                    self.memfds += 1;
                    let f = sanitize(&format!("memfd{}-{}", self.memfds, name), true);
                    self.shmem.insert(f.clone(), "memfd=y");
                    self.fds.insert((pid, ret), (f.clone(), 0));
                    self.last_open.insert(ret, f);
                }
                None
            }
            "close" => {
                let fd = fd_arg(0)?;
                self.fds.remove(&(pid, fd));
                None
            }
            "dup" | "dup2" | "dup3" => {
                let fd = fd_arg(0)?;
                if ret >= 0 {
                    if let Some((f, pos)) = self.file_of(pid, fd) {
                        self.fds.insert((pid, ret), (f, pos));
                    }
                }
                None
            }
            "lseek" => {
                let fd = fd_arg(0)?;
                if ret >= 0 {
                    self.file_of(pid, fd);
                    self.set_pos(pid, fd, ret as u64);
                }
                None
            }
            "read" | "write" | "pread64" | "pwrite64" => {
                let fd = fd_arg(0)?;
                let write = call.name.starts_with('w') || call.name.starts_with("pw");
                let positional = call.name.starts_with('p');
                let off_arg = if positional {
                    let a = arg(3)?;
                    Some(int_arg(a).filter(|v| *v >= 0).ok_or_else(|| {
                        format!("{}:{}: `{}`: bad offset `{}`", self.name, lineno, call.name, a)
                    })? as u64)
                } else {
                    None
                };
                match (self.file_of(pid, fd), ret > 0) {
                    (Some((file, pos)), true) => {
                        let off = off_arg.unwrap_or(pos);
                        super::span(off, ret as u64)
                            .map_err(|e| format!("{}:{}: `{}`: {}", self.name, lineno, call.name, e))?;
                        if !positional {
                            self.set_pos(pid, fd, pos + ret as u64);
                        }
                        Some(Event::Access { task: self.task(pid), file, off, len: ret as u64, write })
                    }
                    (None, true) => {
                        self.unknown_fd += 1;
                        None
                    }
                    _ => None,
                }
            }
            "mmap" | "mmap2" => {
                let len = int_arg(arg(1)?).unwrap_or(0).max(0) as u64;
                let populate = arg(3)?.contains("MAP_POPULATE");
                let fd = int_arg(arg(4)?).unwrap_or(-1);
                let off = int_arg(arg(5)?).unwrap_or(0).max(0) as u64;
                let flags = arg(3)?;
                if fd < 0 && ret != -1 && flags.contains("MAP_SHARED") && flags.contains("MAP_ANONYMOUS") {
                    // Shared anonymous memory: shmem behind the mapping.
                    let region = format!("m{}", self.regions);
                    self.regions += 1;
                    super::span_end(0, len).map_err(|e| format!("{}:{}: `{}`: {}", self.name, lineno, call.name, e))?;
                    self.maps.insert((pid, ret as u64), (region.clone(), len));
                    Some(Event::Anon { task: self.task(pid), region, len: len.max(1), populate, shared: true })
                } else if fd < 0 && ret != -1 && flags.contains("MAP_ANONYMOUS") {
                    // Private anonymous memory: the trace holds it when
                    // its pages are faulted in at once (MAP_POPULATE);
                    // otherwise only if an mlock of it comes.
                    super::span_end(0, len).map_err(|e| format!("{}:{}: `{}`: {}", self.name, lineno, call.name, e))?;
                    self.maps.remove(&(pid, ret as u64));
                    if populate {
                        let region = format!("m{}", self.regions);
                        self.regions += 1;
                        self.anon_maps.remove(&(pid, ret as u64));
                        self.maps.insert((pid, ret as u64), (region.clone(), len));
                        Some(Event::Anon { task: self.task(pid), region, len: len.max(1), populate, shared: false })
                    } else {
                        self.anon_maps.insert((pid, ret as u64), len);
                        None
                    }
                } else if fd >= 0 && ret != -1 {
                    match self.file_of(pid, fd) {
                        Some((file, _)) => {
                            let region = format!("m{}", self.regions);
                            self.regions += 1;
                            let end = super::span_end(off, len)
                                .map_err(|e| format!("{}:{}: `{}`: {}", self.name, lineno, call.name, e))?;
                            self.maps.insert((pid, ret as u64), (region.clone(), len));
                            Some(Event::Mmap { task: self.task(pid), file, end, region, populate })
                        }
                        None => None,
                    }
                } else {
                    None
                }
            }
            "munmap" => {
                let addr = int_arg(arg(0)?).unwrap_or(-1) as u64;
                let len = int_arg(arg(1)?).unwrap_or(0).max(0) as u64;
                if ret != 0 {
                    None
                } else {
                    match self.maps.get(&(pid, addr)) {
                        // The trace's regions go whole (a length rounded
                        // up to pages unmaps the same pages).
                        Some((region, mlen)) if len.div_ceil(4096) == mlen.div_ceil(4096) => {
                            let region = region.clone();
                            self.maps.remove(&(pid, addr));
                            Some(Event::Munmap { task: self.task(pid), region })
                        }
                        _ => {
                            if self.anon_maps.get(&(pid, addr)).is_some_and(|l| l.div_ceil(4096) == len.div_ceil(4096)) {
                                self.anon_maps.remove(&(pid, addr));
                            }
                            self.partial_munmaps += 1;
                            None
                        }
                    }
                }
            }
            "mlock" | "munlock" | "mlock2" => {
                let addr = int_arg(arg(0)?).unwrap_or(-1) as u64;
                let len = int_arg(arg(1)?).unwrap_or(0).max(0) as u64;
                // mlock2 with MLOCK_ONFAULT does not populate: not modelled.
                let onfault = call.name == "mlock2" && call.args.get(2).is_some_and(|f| f.contains("MLOCK_ONFAULT"));
                if ret != 0 {
                    None
                } else {
                    match self.maps.get(&(pid, addr)) {
                        Some((region, mlen)) if !onfault && len.div_ceil(4096) == mlen.div_ceil(4096) => {
                            let region = region.clone();
                            Some(Event::Mlock { task: self.task(pid), region, lock: call.name != "munlock" })
                        }
                        // mlock of the whole of a private anonymous
                        // mapping: it faults every page in, so the trace
                        // maps it now (nothing the trace saw touched it
                        // before) and locks it.
                        None if !onfault
                            && call.name != "munlock"
                            && self.anon_maps.get(&(pid, addr)).is_some_and(|l| l.div_ceil(4096) == len.div_ceil(4096)) =>
                        {
                            let mlen = self.anon_maps.remove(&(pid, addr)).unwrap_or(len);
                            let region = format!("m{}", self.regions);
                            self.regions += 1;
                            self.maps.insert((pid, addr), (region.clone(), mlen));
                            let task = self.task(pid);
                            self.pre.push(Event::Anon { task: task.clone(), region: region.clone(), len: mlen.max(1), populate: false, shared: false });
                            Some(Event::Mlock { task, region, lock: true })
                        }
                        _ => {
                            self.partial_mlocks += 1;
                            None
                        }
                    }
                }
            }
            "clone" | "clone3" | "fork" | "vfork" if ret > 0 => {
                // clone with CLONE_VM shares the mm: a thread, unless it is
                // CLONE_VFORK (posix_spawn), whose child execs.
                let flags = call.args.join(",");
                let thread = call.name.starts_with("clone") && flags.contains("CLONE_VM") && !flags.contains("CLONE_VFORK");
                let child = ret as u64;
                let origin = if thread { Origin::Thread { leader: pid } } else { Origin::Fork { parent: pid } };
                self.origins.entry((child, self.gen(child))).or_insert(origin);
                self.apply_origin(child);
                None
            }
            "execve" | "execveat" if ret == 0 => {
                let mut regions: Vec<(u64, String)> =
                    self.maps.iter().filter(|((p, _), _)| *p == pid).map(|((_, a), (r, _))| (*a, r.clone())).collect();
                regions.sort();
                self.maps.retain(|(p, _), _| *p != pid);
                self.anon_maps.retain(|(p, _), _| *p != pid);
                // The other threads of the process are gone.
                self.leader.retain(|_, l| *l != pid);
                Some(Event::Exec { task: self.task(pid), regions: regions.into_iter().map(|(_, r)| r).collect() })
            }
            "ftruncate" | "truncate" => {
                let a = arg(1)?;
                let size = int_arg(a).filter(|v| *v >= 0).ok_or_else(|| {
                    format!("{}:{}: `{}`: bad length `{}`", self.name, lineno, call.name, a)
                })? as u64;
                super::span(size, 0).map_err(|e| format!("{}:{}: `{}`: {}", self.name, lineno, call.name, e))?;
                let file = if call.name == "ftruncate" {
                    let fd = fd_arg(0)?;
                    self.file_of(pid, fd).map(|(f, _)| f)
                } else {
                    let path = unquote(arg(0)?).ok_or_else(|| {
                        format!("{}:{}: `truncate`: expected a quoted path", self.name, lineno)
                    })?;
                    Some(self.file_name(&path))
                };
                match file {
                    Some(file) if ret == 0 => Some(Event::Truncate { file, size }),
                    _ => None,
                }
            }
            "unlink" | "unlinkat" => {
                let pi = if call.name == "unlinkat" { 1 } else { 0 };
                let path = unquote(arg(pi)?).ok_or_else(|| {
                    format!("{}:{}: `{}`: expected a quoted path", self.name, lineno, call.name)
                })?;
                let rmdir = call.name == "unlinkat" && call.args.get(2).is_some_and(|f| f.contains("AT_REMOVEDIR"));
                if ret != 0 || rmdir {
                    None
                } else {
                    let file = self.file_name(&path);
                    *self.unlinks.entry(sanitize(&path, true)).or_insert(0) += 1;
                    // Descriptors of it stay usable (the model keeps the
                    // file while a mapping holds it; reads through an open
                    // descriptor after the unlink are not modelled).
                    Some(Event::Unlink { file })
                }
            }
            _ => None,
        };
        Ok((ts, ev))
    }
}

struct Gen {
    reader: LineReader,
    state: State,
    timer: Timer,
    /// The files the trace defines, with their size in bytes now (a
    /// truncate changes it; a write beyond it grows it back first).
    size: HashMap<String, u64>,
}

impl Source for Gen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        let (lineno, line) = match self.reader.next_line() {
            None => return Ok(false),
            Some(r) => r?,
        };
        let (ts, ev) = self.state.line(lineno, &line)?;
        let pre = std::mem::take(&mut self.state.pre);
        if ev.is_some() || !pre.is_empty() {
            if let Some(t) = ts {
                self.timer.at(t, out).map_err(|e| format!("{}:{}: {}", self.reader.name, lineno, e))?;
            }
        }
        for ev in pre.into_iter().chain(ev) {
            self.event(lineno, ev, out)?;
        }
        Ok(true)
    }
}

impl Gen {
    fn event(&mut self, lineno: u64, ev: Event, out: &mut VecDeque<String>) -> Result<(), String> {
        match Some(ev) {
            None => {}
            Some(Event::Access { task, file, off, len, write }) => {
                let (p, c) = super::span(off, len)?;
                if let Some(cur) = self.size.get_mut(&file) {
                    let end = off + len;
                    if write && end > *cur {
                        // The write extends the file: its new pages exist
                        // for the trace once the size says so.
                        if end.div_ceil(4096) > cur.div_ceil(4096) {
                            out.push_back(format!("truncate {} {}", file, end));
                        }
                        *cur = end;
                    }
                }
                out.push_back(access(if write { "write" } else { "read" }, &task, &file, p, c));
            }
            Some(Event::Mmap { task, file, region, populate, .. }) => {
                out.push_back(format!("# line {}: accesses through this mapping are invisible to strace", lineno));
                let p = if populate { " populate=y" } else { "" };
                out.push_back(format!("mmap {} {} file={}{}", task, region, file, p));
            }
            Some(Event::Anon { task, region, len, populate, shared }) => {
                let kind = if shared { "shared" } else { "private" };
                out.push_back(format!("# line {}: loads and stores through this {} anonymous mapping are invisible to strace", lineno, kind));
                let p = if populate { " populate=y" } else { "" };
                let sh = if shared { " shared=y" } else { "" };
                out.push_back(format!("anon {} {} size={}{}{}", task, region, len, sh, p));
            }
            Some(Event::Mlock { task, region, lock }) => {
                out.push_back(format!("{} {} {}", if lock { "mlock" } else { "munlock" }, task, region));
            }
            Some(Event::Exit { task }) => out.push_back(format!("exit {}", task)),
            Some(Event::Munmap { task, region }) => out.push_back(format!("munmap {} {}", task, region)),
            Some(Event::Truncate { file, size }) => {
                // Only files the trace defines (ones it reads, writes or maps).
                if let Some(cur) = self.size.get_mut(&file) {
                    *cur = size;
                    out.push_back(format!("truncate {} {}", file, size));
                }
            }
            Some(Event::Unlink { file }) => {
                if self.size.remove(&file).is_some() {
                    out.push_back(format!("unlink {}", file));
                }
            }
            Some(Event::Fork { parent, child }) => out.push_back(format!("fork {} {}", parent, child)),
            Some(Event::Exec { task, regions }) => {
                for r in regions {
                    out.push_back(format!("munmap {} {}", task, r));
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn import(path: &Path, fopts: &str, opts: &ImportOptions) -> Result<Lines, String> {
    let mut p = Params::parse("strace", fopts)?;
    let timing = p.bool("timing", true)?;
    let tmpfs = p.string("tmpfs", "/dev/shm");
    p.finish()?;
    let mut tmpfs_dirs = Vec::new();
    for d in tmpfs.split(':').filter(|d| !d.is_empty()) {
        if !d.starts_with('/') {
            return Err(format!(
                "strace: tmpfs={d}: the tmpfs directories must be absolute paths, separated by `:` (e.g. tmpfs=/dev/shm:/tmp)"
            ));
        }
        tmpfs_dirs.push(format!("{}/", d.trim_end_matches('/')));
    }
    let mut r = LineReader::open(path)?;
    let mut st = State::new(&r.name, &tmpfs_dirs);
    let mut tasks: Vec<String> = Vec::new();
    let mut task_seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut fidx: HashMap<String, usize> = HashMap::new();
    let mut mmaps = 0u64;
    let mut accesses = 0u64;
    let mut forks = 0u64;
    // The largest size each file is truncated to (a truncate may grow it).
    let mut truncated: HashMap<String, u64> = HashMap::new();
    let mut events = Vec::new();
    while let Some(Ok((lineno, line))) = r.next_line() {
        let own = st.line(lineno, &line).ok().and_then(|(_, ev)| ev);
        events.clear();
        events.append(&mut st.pre);
        events.extend(own);
      for ev in events.drain(..) {
        let (task, file, end) = match &ev {
            Event::Access { task, file, off, len, .. } => {
                accesses += 1;
                let Ok(end) = super::span_end(*off, *len) else { continue };
                (task.clone(), Some(file.clone()), end)
            }
            Event::Mmap { task, file, end, .. } => {
                mmaps += 1;
                (task.clone(), Some(file.clone()), *end)
            }
            Event::Exit { task } => (task.clone(), None, 0),
            Event::Anon { task, .. } => {
                mmaps += 1;
                (task.clone(), None, 0)
            }
            Event::Truncate { file, size } => {
                let t = truncated.entry(file.clone()).or_insert(0);
                *t = (*t).max(*size);
                continue;
            }
            Event::Fork { parent, .. } => {
                forks += 1;
                (parent.clone(), None, 0)
            }
            Event::Munmap { .. } | Event::Unlink { .. } | Event::Mlock { .. } | Event::Exec { .. } => continue,
        };
        if task_seen.insert(task.clone()) {
            tasks.push(task);
        }
        if let Some(f) = file {
            match fidx.get(&f) {
                Some(&i) => files[i].1 = files[i].1.max(end),
                None => {
                    fidx.insert(f.clone(), files.len());
                    files.push((f, end));
                }
            }
        }
      }
    }
    // Forked children are made by their `fork`, threads are their
    // process's task: neither has a `task` statement.
    tasks.retain(|t| !st.spawned.contains(t));
    for (f, size) in files.iter_mut() {
        if let Some(&t) = truncated.get(f) {
            *size = (*size).max(t);
        }
    }
    super::check_files(&r.name, &files)?;
    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload import strace: {}; {} read/write calls, {} mappings, {} task(s) (one per process), {} fork(s), {} file(s) sized to the largest offset seen",
        r.name,
        accesses,
        mmaps,
        tasks.len() + forks as usize,
        forks,
        files.len()
    ));
    if st.unknown_fd > 0 {
        out.push_back(format!(
            "# skipped: {} read/write calls on descriptors not opened in the trace (stdin, pipes, sockets, ...)",
            st.unknown_fd
        ));
    }
    if mmaps > 0 {
        out.push_back("# note: strace does not see loads and stores through mmap; the mappings are created but not accessed".to_string());
    }
    if st.partial_mlocks > 0 {
        out.push_back(format!(
            "# skipped: {} mlock/munlock calls that do not cover one whole mapping of the trace (or MLOCK_ONFAULT)",
            st.partial_mlocks
        ));
    }
    if st.partial_munmaps > 0 {
        out.push_back(format!(
            "# skipped: {} munmap calls that do not unmap one whole mapping of the trace (partial unmaps, private anonymous memory the trace does not hold)",
            st.partial_munmaps
        ));
    }
    if !st.shmem.is_empty() {
        out.push_back(format!(
            "# shmem: files under {} (tmpfs=) are tmpfs=y, memfd_create's are memfd=y; they need swap to be reclaimed",
            tmpfs_dirs.iter().map(|d| d.trim_end_matches('/')).collect::<Vec<_>>().join(", ")
        ));
    }
    note_block_size(opts, &mut out);
    setup(opts, &tasks, &mut out);
    for (name, bytes) in &files {
        match st.shmem.get(name) {
            Some(kind) => out.push_back(format!("file {} size={} {}", name, crate::util::fmt_size((*bytes).max(4096)), kind)),
            None => file_lines(std::slice::from_ref(&(name.clone(), *bytes)), &mut out),
        }
    }
    let mut state = State::new(&r.name, &tmpfs_dirs);
    // What the first pass learnt of the clones, for children whose lines
    // come before their parent's clone returns.
    state.origins = std::mem::take(&mut st.origins);
    // The sizes file_lines defines the files with.
    let size = files.iter().map(|(f, b)| (f.clone(), (*b).max(4096))).collect();
    Ok(lines(out, Gen { reader: LineReader::open(path)?, state, timer: Timer::new(timing), size }))
}
