// SPDX-License-Identifier: GPL-2.0-only
//! Kernel files: reading and writing procfs, sysfs, cgroup and debugfs
//! files, the counter snapshots and the JSON result.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::ReplayError;

/// The lru_gen debugfs file.
pub const LRU_GEN_DEBUGFS: &str = "/sys/kernel/debug/lru_gen";
/// The lru_gen state file.
pub const LRU_GEN_ENABLED: &str = "/sys/kernel/mm/lru_gen/enabled";
/// Global counters.
pub const VMSTAT: &str = "/proc/vmstat";
/// `echo 3 >` drops clean page cache, dentries and inodes.
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";
/// Writing it folds the per-CPU vmstat differences into the global
/// counters, so `/proc/vmstat` is exact at the snapshot.
pub const STAT_REFRESH: &str = "/proc/sys/vm/stat_refresh";
/// The replayer's cgroup membership.
pub const SELF_CGROUP: &str = "/proc/self/cgroup";
/// The replayer's OOM score adjustment.
pub const SELF_OOM_SCORE_ADJ: &str = "/proc/self/oom_score_adj";
/// Memory sizes of the machine.
pub const MEMINFO: &str = "/proc/meminfo";
/// Per-zone free pages, watermarks and lowmem reserves.
pub const ZONEINFO: &str = "/proc/zoneinfo";
/// The system's memory pressure (PSI); a memcg's is its `memory.pressure`.
pub const PSI_MEMORY: &str = "/proc/pressure/memory";

/// Access to the kernel's files.
///
/// `root` prefixes every absolute kernel path (procfs, sysfs, debugfs);
/// it is `/` on a real system. A test may point it at a directory of
/// ordinary files (`fake`), where writes create missing files, so that the
/// whole real-run machinery can be exercised without touching the system.
/// A fake system stands for an older or newer kernel through the file
/// `absent-files` in its root: one file name (`memory.swap.peak`) or
/// absolute kernel path (`/proc/sys/vm/stat_refresh`) a line, which the
/// fake kernel does not have: writing one fails with ENOENT, and
/// [`kernel_file`](Sys::kernel_file) reports it missing.
#[derive(Debug, Clone)]
pub struct Sys {
    root: PathBuf,
    fake: bool,
    fake_absent: Vec<String>,
}

/// Whether a kernel file can be written (see [`Sys::kernel_file`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// The kernel has the file and it has a write bit.
    Writable,
    /// The file exists but has no write bit (e.g. 6.1's `memory.peak`,
    /// mode 0444: the kernel gives it no write handler).
    ReadOnly,
    /// No such file on this kernel.
    Missing,
}

impl Default for Sys {
    fn default() -> Sys {
        Sys::real()
    }
}

impl Sys {
    /// The real system.
    pub fn real() -> Sys {
        Sys {
            root: PathBuf::from("/"),
            fake: false,
            fake_absent: Vec::new(),
        }
    }

    /// A fake system rooted at `root` (for tests).
    pub fn fake(root: &Path) -> Sys {
        let fake_absent = read_text(&root.join("absent-files"))
            .map(|t| {
                t.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Sys {
            root: root.to_path_buf(),
            fake: true,
            fake_absent,
        }
    }

    /// True if the fake kernel is declared not to have `path` (by its file
    /// name or its kernel path); always false on the real system.
    fn fake_lacks(&self, path: &Path) -> bool {
        if !self.fake {
            return false;
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let kpath = path
            .strip_prefix(&self.root)
            .ok()
            .map(|r| format!("/{}", r.display()));
        self.fake_absent
            .iter()
            .any(|a| Some(a) == name.as_ref() || Some(a) == kpath.as_ref())
    }

    /// Whether this kernel has the file at `path` and lets it be written.
    /// On a fake system a file is missing only if `absent-files` names it
    /// (writes create the others), read-only if it exists without a write
    /// bit.
    pub fn kernel_file(&self, path: &Path) -> FileState {
        use std::os::unix::fs::PermissionsExt;
        if self.fake_lacks(path) {
            return FileState::Missing;
        }
        match std::fs::metadata(path) {
            Ok(m) if m.permissions().mode() & 0o222 == 0 => FileState::ReadOnly,
            Ok(_) => FileState::Writable,
            Err(_) if self.fake => FileState::Writable,
            Err(_) => FileState::Missing,
        }
    }

    /// Whether this kernel has the file at `path` (to read it).
    pub fn has_file(&self, path: &Path) -> bool {
        !self.fake_lacks(path) && path.exists()
    }

    /// True for a fake system.
    pub fn is_fake(&self) -> bool {
        self.fake
    }

    /// The path of the kernel file `abs` (an absolute path such as
    /// `/proc/vmstat`).
    pub fn path(&self, abs: &str) -> PathBuf {
        self.root.join(abs.trim_start_matches('/'))
    }

    /// Writes `value` to `path` with one `write` call (kernel files parse
    /// one write at a time). In a fake system the value and a newline are
    /// appended (a missing file is created), so a test can see every write.
    pub fn write(&self, path: &Path, value: &str) -> io::Result<()> {
        if self.fake_lacks(path) {
            return Err(io::Error::from_raw_os_error(libc::ENOENT));
        }
        if self.fake {
            let mut f = OpenOptions::new().append(true).create(true).open(path)?;
            return f.write_all(format!("{value}\n").as_bytes());
        }
        let mut f = OpenOptions::new().write(true).open(path)?;
        let n = f.write(value.as_bytes())?;
        if n != value.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("short write ({n} of {} bytes)", value.len()),
            ));
        }
        Ok(())
    }

    /// Like [`write`](Sys::write), with an error message naming the path.
    pub fn write_or_err(&self, path: &Path, value: &str) -> Result<(), ReplayError> {
        self.write(path, value).map_err(|e| {
            let hint = if e.kind() == io::ErrorKind::NotFound {
                " (this kernel has no such file)"
            } else {
                ""
            };
            ReplayError::system(format!(
                "cannot write `{}` to {}: {}{hint}",
                value.trim_end(),
                path.display(),
                errno_text(&e)
            ))
        })
    }
}

/// Reads a whole file as text.
pub fn read_text(path: &Path) -> io::Result<String> {
    let mut s = String::new();
    File::open(path)?.read_to_string(&mut s)?;
    Ok(s)
}

/// Reads a file, `Ok(None)` if it does not exist.
pub fn read_opt(path: &Path) -> Result<Option<String>, ReplayError> {
    match read_text(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReplayError::system(format!(
            "cannot read {}: {}",
            path.display(),
            errno_text(&e)
        ))),
    }
}

/// Reads a file that must exist.
pub fn read_req(path: &Path) -> Result<String, ReplayError> {
    read_text(path).map_err(|e| {
        ReplayError::system(format!(
            "cannot read {}: {}",
            path.display(),
            errno_text(&e)
        ))
    })
}

/// The symbolic name of an errno value (`EAGAIN`), or `errno N`.
pub fn errno_name(n: i32) -> String {
    let s = match n {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::ESRCH => "ESRCH",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::E2BIG => "E2BIG",
        libc::EBADF => "EBADF",
        libc::ECHILD => "ECHILD",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::ENOTDIR => "ENOTDIR",
        libc::EINVAL => "EINVAL",
        libc::ENFILE => "ENFILE",
        libc::EMFILE => "EMFILE",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::EPIPE => "EPIPE",
        libc::ERANGE => "ERANGE",
        libc::ENOSYS => "ENOSYS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ECONNRESET => "ECONNRESET",
        _ => return format!("errno {n}"),
    };
    s.to_string()
}

/// An I/O error as `EINVAL (Invalid argument)`, or its text if it has no
/// errno.
pub fn errno_text(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => format!("{} ({})", errno_name(n), strerror(n)),
        None => e.to_string(),
    }
}

/// The C library's description of an errno value.
pub fn strerror(n: i32) -> String {
    let s = io::Error::from_raw_os_error(n).to_string();
    // std formats "Invalid argument (os error 22)": keep the text.
    match s.rfind(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Parses `key value` lines (`/proc/vmstat`, `memory.stat`,
/// `memory.events`). Lines whose value is not a number are skipped.
pub fn parse_kv(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let k = it.next()?;
            let v = it.next()?.parse().ok()?;
            Some((k.to_string(), v))
        })
        .collect()
}

/// Parses `/proc/meminfo` (`Name:   value kB` lines) into (name, value)
/// pairs, the colon dropped; the values stay in the file's unit (kB, or a
/// page count for the `HugePages_*` lines).
pub fn parse_meminfo(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| {
            let (k, rest) = l.split_once(':')?;
            let v = rest.split_whitespace().next()?.parse().ok()?;
            Some((k.trim().to_string(), v))
        })
        .collect()
}

/// One zone of `/proc/zoneinfo`: its name and the numbers reclaim and
/// allocation decide by (pages).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneInfo {
    pub name: String,
    pub free: u64,
    pub min: u64,
    pub low: u64,
    pub high: u64,
    pub managed: u64,
    /// `lowmem_reserve[]`, the `protection:` tuple.
    pub protection: Vec<u64>,
    /// Pages on the zone's per-CPU free lists (the pagesets' `count:`
    /// lines summed): free, usable by allocations, but not in `free`.
    pub pcp: u64,
    /// Per CPU, in `cpu:` order: its list's `count:` and `high:`.
    pub pcp_cpu: Vec<(u64, u64)>,
}

/// Parses `/proc/zoneinfo`: every `Node N, zone NAME` section's `pages
/// free`, `min`, `low`, `high`, `managed` and `protection: (..)` lines.
/// Zones without managed pages are kept (the kernel prints them too).
pub fn parse_zoneinfo(text: &str) -> Vec<ZoneInfo> {
    let mut zones: Vec<ZoneInfo> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Node ") {
            if let Some(name) = t.split_whitespace().last() {
                zones.push(ZoneInfo { name: name.to_string(), ..Default::default() });
            }
            continue;
        }
        let Some(z) = zones.last_mut() else { continue };
        if let Some(rest) = t.strip_prefix("protection:") {
            z.protection = rest
                .trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .split(',')
                .filter_map(|v| v.trim().parse().ok())
                .collect();
            continue;
        }
        let mut it = t.split_whitespace();
        let (Some(k), Some(v)) = (it.next(), it.next()) else { continue };
        let (k, v) = if k == "pages" && v == "free" {
            ("free", it.next())
        } else {
            (k, Some(v))
        };
        let Some(n) = v.and_then(|v| v.parse::<u64>().ok()) else { continue };
        match k {
            "free" => z.free = n,
            "min" => z.min = n,
            "low" => z.low = n,
            "high" => z.high = n,
            "managed" => z.managed = n,
            "cpu:" => z.pcp_cpu.push((0, 0)),
            "count:" => {
                z.pcp += n;
                if let Some(c) = z.pcp_cpu.last_mut() {
                    c.0 = n;
                }
            }
            "high:" => {
                if let Some(c) = z.pcp_cpu.last_mut() {
                    c.1 = n;
                }
            }
            _ => {}
        }
    }
    zones
}

/// The CPU time, in clock ticks (`utime + stime`, fields 14 and 15 of
/// `/proc/PID/stat`), from a stat line; the command name in parentheses
/// may hold spaces, so fields are counted after its closing parenthesis.
pub fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    parse_stat_times(stat).map(|(u, s)| u + s)
}

/// `utime` and `stime` (clock ticks) of a `/proc/PID/stat` line.
pub fn parse_stat_times(stat: &str) -> Option<(u64, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state): utime is field 14, stime 15.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((utime, stime))
}

/// The two stall totals of a PSI file (`/proc/pressure/memory`, a
/// cgroup's `memory.pressure`): microseconds in which some task, and in
/// which every non-idle task, was stalled on memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PsiTotals {
    pub some_us: u64,
    pub full_us: u64,
}

/// Parses a PSI file: a `some` and a `full` line, each
/// `avg10=A avg60=B avg300=C total=N`. None unless both lines carry a
/// `total=` number (a kernel without PSI has no such file; one booted
/// with `psi=0` refuses the read, and the caller passes no text).
pub fn parse_psi_totals(text: &str) -> Option<PsiTotals> {
    let total = |kind: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.split_whitespace().next() == Some(kind))?;
        line.split_whitespace().find_map(|f| f.strip_prefix("total="))?.parse().ok()
    };
    Some(PsiTotals { some_us: total("some")?, full_us: total("full")? })
}

/// Reads a PSI file's totals; None where the file is missing, cannot be
/// read (PSI disabled: `EOPNOTSUPP`) or does not parse.
pub fn read_psi(path: &Path) -> Option<PsiTotals> {
    read_text(path).ok().as_deref().and_then(parse_psi_totals)
}

/// The growth of the totals between two readings; None if either is
/// missing or a total went backwards (not the same group).
pub fn psi_delta(start: Option<PsiTotals>, end: Option<PsiTotals>) -> Option<PsiTotals> {
    let (a, b) = (start?, end?);
    Some(PsiTotals {
        some_us: b.some_us.checked_sub(a.some_us)?,
        full_us: b.full_us.checked_sub(a.full_us)?,
    })
}

/// Parses a file holding one number (`memory.current`).
pub fn parse_num(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// Finds the kernel's memcg id for the cgroup path `path` (e.g. `/app/web`,
/// `/` for the root) in the output of `/sys/kernel/debug/lru_gen`, whose
/// memcg header lines are `memcg %5hu %s`.
pub fn lru_gen_memcg_id(dump: &str, path: &str) -> Option<u32> {
    dump.lines().find_map(|l| {
        let rest = l.strip_prefix("memcg ")?;
        let rest = rest.trim_start();
        let (id, p) = rest.split_once(' ')?;
        (p == path).then(|| id.parse().ok()).flatten()
    })
}

/// The counters of one memcg.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemcgSnap {
    /// `memory.stat` (absent on a root without the file).
    pub stat: Option<Vec<(String, u64)>>,
    /// `memory.current` (absent on the root).
    pub current: Option<u64>,
    /// `memory.peak` (absent on the root).
    pub peak: Option<u64>,
    /// `memory.events` (absent on the root).
    pub events: Option<Vec<(String, u64)>>,
    /// `memory.swap.current` (absent on the root or without swap
    /// accounting).
    pub swap_current: Option<u64>,
}

/// Reads the counters of the memcg in directory `dir`; missing files are
/// left out.
pub fn memcg_snapshot(dir: &Path) -> Result<MemcgSnap, ReplayError> {
    let num = |f: &str| -> Result<Option<u64>, ReplayError> {
        Ok(read_opt(&dir.join(f))?.as_deref().and_then(parse_num))
    };
    Ok(MemcgSnap {
        stat: read_opt(&dir.join("memory.stat"))?.map(|s| parse_kv(&s)),
        current: num("memory.current")?,
        peak: num("memory.peak")?,
        events: read_opt(&dir.join("memory.events"))?.map(|s| parse_kv(&s)),
        swap_current: num("memory.swap.current")?,
    })
}

/// `vmstat` deltas: `end - start` for counters, the end value for names
/// starting with `nr_` (gauges). Names only in `end` count from 0.
pub fn vmstat_delta(start: &[(String, u64)], end: &[(String, u64)]) -> Vec<(String, i128)> {
    end.iter()
        .map(|(k, e)| {
            if k.starts_with("nr_") {
                (k.clone(), i128::from(*e))
            } else {
                let s = start.iter().find(|(k2, _)| k2 == k).map_or(0, |(_, v)| *v);
                (k.clone(), i128::from(*e) - i128::from(s))
            }
        })
        .collect()
}

/// Whether `/proc/vmstat` (in the kernel's order) prints the reclaim
/// counters among the node statistics: `pgscan_kswapd` before
/// `nr_dirty_threshold`, the line that ends the node items (`vmstat_text`:
/// zone, NUMA and node items, the two dirty thresholds, then the events).
pub fn reclaim_counters_are_node_stats(vmstat: &[(String, u64)]) -> Option<bool> {
    let at = |name: &str| vmstat.iter().position(|(k, _)| k == name);
    Some(at("pgscan_kswapd")? < at("nr_dirty_threshold")?)
}

/// A minimal JSON writer producing compact output.
#[derive(Debug, Default)]
pub struct Json {
    out: String,
    /// Per open container: true once it has a member.
    stack: Vec<bool>,
}

impl Json {
    /// An empty writer.
    pub fn new() -> Json {
        Json::default()
    }

    fn sep(&mut self) {
        if let Some(has) = self.stack.last_mut() {
            if *has {
                self.out.push(',');
            }
            *has = true;
        }
    }

    fn key(&mut self, k: &str) {
        self.sep();
        push_str(&mut self.out, k);
        self.out.push(':');
    }

    /// Opens an object (as a member `k` of the enclosing object, or a bare
    /// value when `k` is `None`).
    pub fn begin_obj(&mut self, k: Option<&str>) {
        match k {
            Some(k) => self.key(k),
            None => self.sep(),
        }
        self.out.push('{');
        self.stack.push(false);
    }

    /// Closes an object.
    pub fn end_obj(&mut self) {
        self.stack.pop();
        self.out.push('}');
    }

    /// Opens an array member `k`.
    pub fn begin_arr(&mut self, k: &str) {
        self.key(k);
        self.out.push('[');
        self.stack.push(false);
    }

    /// Closes an array.
    pub fn end_arr(&mut self) {
        self.stack.pop();
        self.out.push(']');
    }

    /// A string member.
    pub fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        push_str(&mut self.out, v);
    }

    /// An integer member.
    pub fn int(&mut self, k: &str, v: impl Into<i128>) {
        self.key(k);
        let _ = write!(self.out, "{}", v.into());
    }

    /// A floating-point member (finite; NaN/inf are written as null).
    pub fn float(&mut self, k: &str, v: f64) {
        self.key(k);
        if v.is_finite() {
            let _ = write!(self.out, "{v:.6}");
        } else {
            self.out.push_str("null");
        }
    }

    /// An array member of integers.
    pub fn int_arr<T: Into<i128>>(&mut self, k: &str, vals: impl IntoIterator<Item = T>) {
        self.begin_arr(k);
        for v in vals {
            self.elem_int(v);
        }
        self.end_arr();
    }

    /// An integer element of an open array.
    pub fn elem_int(&mut self, v: impl Into<i128>) {
        self.sep();
        let _ = write!(self.out, "{}", v.into());
    }

    /// A string element of an open array.
    pub fn elem_str(&mut self, v: &str) {
        self.sep();
        push_str(&mut self.out, v);
    }

    /// A boolean member.
    pub fn bool(&mut self, k: &str, v: bool) {
        self.key(k);
        self.out.push_str(if v { "true" } else { "false" });
    }

    /// A null member.
    pub fn null(&mut self, k: &str) {
        self.key(k);
        self.out.push_str("null");
    }

    /// An object member of integer counters.
    pub fn counters(&mut self, k: &str, kv: &[(String, u64)]) {
        self.begin_obj(Some(k));
        for (n, v) in kv {
            self.int(n, *v);
        }
        self.end_obj();
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        self.out
    }
}

fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes a memcg snapshot as a JSON object member `name`.
pub fn json_memcg(j: &mut Json, name: &str, s: &MemcgSnap) {
    j.begin_obj(Some(name));
    if let Some(st) = &s.stat {
        j.counters("stat", st);
    }
    if let Some(v) = s.current {
        j.int("current", v);
    }
    if let Some(v) = s.peak {
        j.int("peak", v);
    }
    if let Some(ev) = &s.events {
        j.counters("events", ev);
    }
    if let Some(v) = s.swap_current {
        j.int("swap_current", v);
    }
    j.end_obj();
}

/// The running kernel's release (`uname -r`).
pub fn kernel_release() -> String {
    // SAFETY: utsname is plain old data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u is a valid utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown".to_string();
    }
    let bytes: Vec<u8> = u
        .release
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The cgroup path of the process from `/proc/self/cgroup` (the cgroup2
/// line `0::PATH`).
pub fn own_cgroup_path(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|p| p.trim().to_string())
}

/// The `major:minor` of the device holding `dir`.
pub fn device_of(dir: &Path) -> io::Result<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(dir)?.dev();
    Ok((libc::major(dev), libc::minor(dev)))
}

/// The `read_ahead_kb` file of the block device `major:minor` (of the whole
/// disk for a partition), if it exists.
pub fn read_ahead_kb_path(sys: &Sys, dev: (u32, u32)) -> Option<PathBuf> {
    let base = sys.path(&format!("/sys/dev/block/{}:{}", dev.0, dev.1));
    [
        base.join("queue/read_ahead_kb"),
        base.join("../queue/read_ahead_kb"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memcg_ids_from_the_lru_gen_header() {
        let dump = "memcg     1 /\n node     0\n          0      12345      0        10 \n\
                    memcg    37 /app\n node     0\n\
                    memcg    38 /app/web\n node     0\n\
                    memcg 65535 /x y\n";
        assert_eq!(lru_gen_memcg_id(dump, "/"), Some(1));
        assert_eq!(lru_gen_memcg_id(dump, "/app"), Some(37));
        assert_eq!(lru_gen_memcg_id(dump, "/app/web"), Some(38));
        assert_eq!(lru_gen_memcg_id(dump, "/x y"), Some(65535));
        assert_eq!(lru_gen_memcg_id(dump, "/ap"), None);
    }

    #[test]
    fn stat_cpu_ticks() {
        let line = "41 (kswapd0) S 2 0 0 0 -1 2129984 0 0 0 0 7 183 0 0 20 0 1 0 25 0 0 18446744073709551615";
        assert_eq!(parse_stat_cpu_ticks(line), Some(190));
        assert_eq!(parse_stat_cpu_ticks("1 (a b) S 0 0 0 0 0 0 0 0 0 0 3 4"), Some(7));
        assert_eq!(parse_stat_cpu_ticks("garbage"), None);
        assert_eq!(parse_stat_times("1 (a) b) S 0 0 0 0 0 0 0 0 0 0 3 4 5"), Some((3, 4)));
        assert_eq!(parse_stat_times("1 (a) S 0"), None);
    }

    #[test]
    fn psi_totals() {
        // The layout psi_show() prints, two lines.
        let text = "some avg10=1.25 avg60=0.40 avg300=0.08 total=1834567\n\
                    full avg10=0.50 avg60=0.10 avg300=0.02 total=912004\n";
        assert_eq!(parse_psi_totals(text), Some(PsiTotals { some_us: 1_834_567, full_us: 912_004 }));
        // Order of the lines does not matter; a missing line or total does.
        let swapped = "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=9\n";
        assert_eq!(parse_psi_totals(swapped), Some(PsiTotals { some_us: 9, full_us: 7 }));
        assert_eq!(parse_psi_totals("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), None);
        assert_eq!(parse_psi_totals("some avg10=0.00 total=x\nfull total=1\n"), None);
        assert_eq!(parse_psi_totals(""), None);
        // "something" is not "some".
        assert_eq!(parse_psi_totals("something total=1\nfull total=2\n"), None);
        let a = Some(PsiTotals { some_us: 100, full_us: 40 });
        let b = Some(PsiTotals { some_us: 350, full_us: 40 });
        assert_eq!(psi_delta(a, b), Some(PsiTotals { some_us: 250, full_us: 0 }));
        assert_eq!(psi_delta(b, a), None);
        assert_eq!(psi_delta(None, b), None);
        assert_eq!(psi_delta(a, None), None);
    }

    #[test]
    fn psi_files_read_or_absent() {
        let dir = std::env::temp_dir().join(format!("mglru-replay-psi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("memory.pressure");
        std::fs::write(&f, "some avg10=0.00 avg60=0.00 avg300=0.00 total=42\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=3\n").unwrap();
        assert_eq!(read_psi(&f), Some(PsiTotals { some_us: 42, full_us: 3 }));
        assert_eq!(read_psi(&dir.join("absent")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn zoneinfo_sections() {
        let text = "Node 0, zone      DMA\n  per-node stats\n      nr_inactive_anon 5\n  pages free     3968\n        boost    0\n        min      24\n        low      30\n        high     36\n        spanned  4095\n        present  3998\n        managed  3976\n        cma      0\n        protection: (0, 383, 383, 383, 383)\n      nr_free_pages 3968\n  pagesets\n    cpu: 0\n              count: 7\n              high:  0\n              batch: 1\n    cpu: 1\n              count: 5\n              high:  0\nNode 0, zone    DMA32\n  pages free     50000\n        min      615\n        low      768\n        high     921\n        managed  98304\n        protection: (0, 0, 0, 0, 0)\nNode 0, zone   Normal\n  pages free     0\n        min      0\n        managed  0\n        protection: (0, 0, 0, 0, 0)\n";
        let z = parse_zoneinfo(text);
        assert_eq!(z.len(), 3);
        assert_eq!(
            z[0],
            ZoneInfo {
                name: "DMA".into(),
                free: 3968,
                min: 24,
                low: 30,
                high: 36,
                managed: 3976,
                protection: vec![0, 383, 383, 383, 383],
                pcp: 12,
                pcp_cpu: vec![(7, 0), (5, 0)]
            }
        );
        assert_eq!((z[1].name.as_str(), z[1].free, z[1].high, z[1].managed), ("DMA32", 50000, 921, 98304));
        assert_eq!((z[2].name.as_str(), z[2].managed), ("Normal", 0));
    }

    #[test]
    fn meminfo_lines() {
        let m = parse_meminfo("MemTotal:         409216 kB\nMemFree:  1000 kB\nHugePages_Total:       0\nbad line\n");
        assert_eq!(
            m,
            vec![
                ("MemTotal".to_string(), 409216),
                ("MemFree".to_string(), 1000),
                ("HugePages_Total".to_string(), 0)
            ]
        );
    }

    #[test]
    fn key_values_and_deltas() {
        let a = parse_kv("nr_free_pages 100\npgfault 10\nworkingset_nodes 5\nbad line x\n");
        let b = parse_kv("nr_free_pages 90\npgfault 25\nworkingset_nodes 3\npgnew 4\n");
        assert_eq!(a.len(), 3);
        let d = vmstat_delta(&a, &b);
        assert_eq!(
            d,
            vec![
                ("nr_free_pages".to_string(), 90),
                ("pgfault".to_string(), 15),
                ("workingset_nodes".to_string(), -2),
                ("pgnew".to_string(), 4),
            ]
        );
        assert_eq!(parse_num("123\n"), Some(123));
        assert_eq!(parse_num("max\n"), None);
    }

    #[test]
    fn json_is_compact_and_escaped() {
        let mut j = Json::new();
        j.begin_obj(None);
        j.str("a", "x\"y\\\n\u{1}");
        j.int("n", 5u64);
        j.int("m", -3i64);
        j.begin_obj(Some("o"));
        j.end_obj();
        j.begin_arr("l");
        j.begin_obj(None);
        j.bool("t", true);
        j.end_obj();
        j.begin_obj(None);
        j.null("z");
        j.end_obj();
        j.end_arr();
        j.float("f", 1.5);
        j.int_arr("i", [3u64, 0, 7]);
        j.int_arr("e", Vec::<u64>::new());
        j.end_obj();
        assert_eq!(
            j.finish(),
            r#"{"a":"x\"y\\\n\u0001","n":5,"m":-3,"o":{},"l":[{"t":true},{"z":null}],"f":1.500000,"i":[3,0,7],"e":[]}"#
        );
    }

    #[test]
    fn cgroup_and_errno_helpers() {
        assert_eq!(
            own_cgroup_path("0::/mglru-replayer\n").as_deref(),
            Some("/mglru-replayer")
        );
        assert_eq!(own_cgroup_path("1:name=x:/a\n"), None);
        assert_eq!(errno_name(libc::EAGAIN), "EAGAIN");
        let e = io::Error::from_raw_os_error(libc::EINVAL);
        assert!(errno_text(&e).starts_with("EINVAL ("), "{}", errno_text(&e));
    }

    #[test]
    fn memcg_snapshot_leaves_out_missing_files() {
        let d = std::env::temp_dir().join(format!("mglru-replay-snap-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("tmp");
        std::fs::write(d.join("memory.stat"), "anon 4096\nfile 0\n").expect("write");
        std::fs::write(d.join("memory.current"), "8192\n").expect("write");
        let s = memcg_snapshot(&d).expect("snapshot");
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(s.current, Some(8192));
        assert_eq!(s.peak, None);
        assert_eq!(s.events, None);
        let mut j = Json::new();
        j.begin_obj(None);
        json_memcg(&mut j, "root", &s);
        j.end_obj();
        assert_eq!(
            j.finish(),
            r#"{"root":{"stat":{"anon":4096,"file":0},"current":8192}}"#
        );
    }

    #[test]
    fn reclaim_counters_as_node_stats_or_events() {
        // 6.12 (and 6.1): the reclaim counters are events, after the dirty thresholds
        let v612 = parse_kv(
            "nr_free_pages 10\nnr_inactive_file 3\nnr_dirty_threshold 100\n\
             nr_dirty_background_threshold 50\npgpgin 4\npgscan_kswapd 7\npgscan_direct 0\n",
        );
        assert_eq!(reclaim_counters_are_node_stats(&v612), Some(false));
        // 7.2: node items, printed before the thresholds
        let v72 = parse_kv(
            "nr_free_pages 10\npgsteal_kswapd 5\npgscan_kswapd 7\npgscan_proactive 0\n\
             nr_dirty_threshold 100\nnr_dirty_background_threshold 50\npgpgin 4\n",
        );
        assert_eq!(reclaim_counters_are_node_stats(&v72), Some(true));
        // a vmstat without either line cannot say
        assert_eq!(reclaim_counters_are_node_stats(&parse_kv("pgscan_kswapd 1\n")), None);
        // whatever keys the kernel prints are kept, unknown ones included
        let d = vmstat_delta(&v612, &v72);
        assert!(d.iter().any(|(k, v)| k == "pgscan_proactive" && *v == 0));
        assert!(d.iter().any(|(k, v)| k == "pgsteal_kswapd" && *v == 5));
    }

    #[test]
    fn kernel_files_missing_read_only_or_writable() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("mglru-replay-kfile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("cg")).expect("tmp");
        let peak = d.join("cg/memory.peak");
        std::fs::write(&peak, "0\n").expect("write");
        std::fs::set_permissions(&peak, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        std::fs::write(d.join("cg/memory.max"), "max\n").expect("write");
        std::fs::write(d.join("absent-files"), "# a 6.1 kernel\nmemory.swap.peak\n/proc/sys/vm/stat_refresh\n")
            .expect("write");
        let real = Sys::real();
        assert_eq!(real.kernel_file(&peak), FileState::ReadOnly);
        assert_eq!(real.kernel_file(&d.join("cg/memory.max")), FileState::Writable);
        assert_eq!(real.kernel_file(&d.join("cg/memory.swap.peak")), FileState::Missing);
        let fake = Sys::fake(&d);
        // declared absent: missing, by file name anywhere or by kernel path
        assert_eq!(fake.kernel_file(&d.join("cg/memory.swap.peak")), FileState::Missing);
        let refresh = fake.path(STAT_REFRESH);
        assert_eq!(fake.kernel_file(&refresh), FileState::Missing);
        assert!(!fake.has_file(&refresh));
        let e = fake.write(&refresh, "1").expect_err("absent");
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
        let msg = fake.write_or_err(&refresh, "1").expect_err("absent").to_string();
        assert!(msg.contains("ENOENT") && msg.contains("this kernel has no such file"), "{msg}");
        assert!(!refresh.exists(), "a write to an absent file must not create it");
        // any other file of a fake system is created by its first write
        assert_eq!(fake.kernel_file(&fake.path("/proc/sys/vm/swappiness")), FileState::Writable);
        let _ = std::fs::remove_dir_all(&d);
    }
}
