// SPDX-License-Identifier: GPL-2.0-only
//! `--extfrag`: which allocations fall back to another migratetype's
//! free lists during the workload — the trigger of watermark boosting
//! (mm/page_alloc.c: `try_to_steal_block()` calls `boost_watermark()`).
//!
//! Before the workload the replayer enlarges the trace buffer, switches the
//! trace clock to `mono` (CLOCK_MONOTONIC, so an event's time can be set
//! against the workload's start) and attaches paused histogram triggers;
//! at the start it clears the buffer, resumes the triggers and enables
//! `kmem/mm_page_alloc_extfrag`. After the workload it reads the events
//! (each one's time, task and fields), the histograms (lossless counts,
//! also of events the buffer may have dropped), the buffer's per-CPU
//! `overrun`, and `/proc/pagetypeinfo` at both ends.
//!
//! Histograms kept: the fallbacks by their fields; the fallbacks by kernel
//! stack (who allocated); and every non-movable page allocation
//! (`kmem/mm_page_alloc` with `migratetype != 1`) by GFP flags, order and
//! migratetype — slab, page tables, brd's backing pages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::sysfs::{self, Json, Sys};
use crate::ReplayError;

/// Per-CPU trace buffer size written to `buffer_size_kb` (an extfrag
/// event takes about 48 bytes: some 10,000 events per CPU; an overflow
/// overwrites the oldest and shows as `overrun`). The buffer and the
/// histograms' maps are unmovable guest memory: with 2048 KiB and maps of
/// 2048 entries the two-memcgs MGLRU runs had 2,078-7,792 fallbacks and
/// kswapd ran 356-407 times, against 110-221 untraced; with these sizes
/// 11,526-21,993 and 146-295 (validation/README.md, "Migratetype fallbacks").
pub const BUFFER_KB: u64 = 512;

/// Entries of each histogram's map (`size=`; the key sets seen are far
/// smaller; an overflow shows as `dropped`).
pub const HIST_SIZE: u64 = 256;

/// Events whose time and fields go into the result (all are counted).
pub const MAX_EVENTS: usize = 50_000;

/// Entries of a histogram kept in the result (the most frequent).
pub const MAX_HIST_ENTRIES: usize = 200;

/// Stack entries kept in the result (the most frequent).
pub const MAX_STACKS: usize = 40;

const PAGETYPEINFO: &str = "/proc/pagetypeinfo";
const EXTFRAG_EVENT: &str = "events/kmem/mm_page_alloc_extfrag";
const PAGE_ALLOC_EVENT: &str = "events/kmem/mm_page_alloc";
const WAKEUP_EVENT: &str = "events/vmscan/mm_vmscan_wakeup_kswapd";
// kswapd woken because a fallback boosted the watermark: rmqueue() calls
// wakeup_kswapd(zone, 0, 0, ...), gfp_flags 0 (shown as `none`); other
// wake-ups pass the allocation's flags.
const WAKEUP_KEYS: &str = "hist:keys=gfp_flags,order,zid:vals=hitcount:sort=hitcount.descending";
// A histogram has at most three keys (tracing_map.h: TRACING_MAP_KEYS_MAX):
// one by migratetypes, one by orders.
const TYPE_KEYS: &str =
    "hist:keys=alloc_migratetype,fallback_migratetype,change_ownership:vals=hitcount:sort=hitcount.descending";
const ORDER_KEYS: &str =
    "hist:keys=alloc_order,fallback_order,change_ownership:vals=hitcount:sort=hitcount.descending";
const STACK_KEYS: &str = "hist:keys=common_stacktrace:vals=hitcount:sort=hitcount.descending";
const ALLOC_KEYS: &str =
    "hist:keys=gfp_flags,order,migratetype:vals=hitcount:sort=hitcount.descending";
const ALLOC_FILTER: &str = " if migratetype != 1";

/// One `mm_page_alloc_extfrag` event as the trace file shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtfragEvent {
    /// The task's name (`comm`, without the pid).
    pub comm: String,
    /// The CPU it ran on.
    pub cpu: u32,
    /// The trace clock's time in nanoseconds (microsecond resolution).
    pub ts_ns: u64,
    pub alloc_order: i64,
    pub fallback_order: i64,
    pub alloc_migratetype: i64,
    pub fallback_migratetype: i64,
    pub change_ownership: i64,
}

/// The group key of a fallback: (alloc_migratetype, fallback_migratetype,
/// alloc_order, fallback_order, change_ownership).
pub type GroupKey = (i64, i64, i64, i64, i64);

impl ExtfragEvent {
    /// Its group.
    pub fn key(&self) -> GroupKey {
        (
            self.alloc_migratetype,
            self.fallback_migratetype,
            self.alloc_order,
            self.fallback_order,
            self.change_ownership,
        )
    }
}

/// One `mm_vmscan_wakeup_kswapd` event (kswapd woken from its sleep).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WakeupEvent {
    pub comm: String,
    pub cpu: u32,
    pub ts_ns: u64,
    pub order: i64,
    /// The GFP flags as printed (`none` for a boosted watermark's wake-up).
    pub gfp_flags: String,
}

/// Parses one line of the `trace` file; None for comments and other
/// events. The line looks like
/// `  kswapd0-45  [001] d..2.  12.345678: mm_page_alloc_extfrag: page=... alloc_order=0 ...`.
pub fn parse_extfrag_line(line: &str) -> Option<ExtfragEvent> {
    let (head, fields) = line.split_once(": mm_page_alloc_extfrag: ")?;
    let (comm, cpu, ts_ns) = parse_head(head)?;
    let mut ev = ExtfragEvent {
        comm,
        cpu,
        ts_ns,
        ..ExtfragEvent::default()
    };
    let mut seen = 0;
    for kv in fields.split_whitespace() {
        let Some((k, v)) = kv.split_once('=') else { continue };
        let slot = match k {
            "alloc_order" => &mut ev.alloc_order,
            "fallback_order" => &mut ev.fallback_order,
            "alloc_migratetype" => &mut ev.alloc_migratetype,
            "fallback_migratetype" => &mut ev.fallback_migratetype,
            "change_ownership" => &mut ev.change_ownership,
            _ => continue,
        };
        *slot = v.parse().ok()?;
        seen += 1;
    }
    (seen == 5).then_some(ev)
}

/// Parses a `mm_vmscan_wakeup_kswapd` line (`nid=0 order=0 gfp_flags=none`).
pub fn parse_wakeup_line(line: &str) -> Option<WakeupEvent> {
    let (head, fields) = line.split_once(": mm_vmscan_wakeup_kswapd: ")?;
    let (comm, cpu, ts_ns) = parse_head(head)?;
    let mut order = None;
    let mut gfp = None;
    for kv in fields.split_whitespace() {
        match kv.split_once('=') {
            Some(("order", v)) => order = v.parse().ok(),
            Some(("gfp_flags", v)) => gfp = Some(v.to_string()),
            _ => {}
        }
    }
    Some(WakeupEvent {
        comm,
        cpu,
        ts_ns,
        order: order?,
        gfp_flags: gfp?,
    })
}

/// The part of a trace line before the event name: task, CPU, time.
fn parse_head(head: &str) -> Option<(String, u32, u64)> {
    let open = head.find(" [")?;
    let task = head[..open].trim();
    let comm = task.rsplit_once('-').map_or(task, |(c, _)| c).to_string();
    let rest = &head[open + 2..];
    let close = rest.find(']')?;
    let cpu = rest[..close].trim().parse().ok()?;
    let ts = rest[close + 1..].split_whitespace().last()?.trim_end_matches(':');
    let (sec, frac) = ts.split_once('.').unwrap_or((ts, "0"));
    let mut frac_ns: u64 = 0;
    for (i, c) in frac.bytes().take(9).enumerate() {
        if !c.is_ascii_digit() {
            return None;
        }
        frac_ns += u64::from(c - b'0') * 10u64.pow(8 - i as u32);
    }
    let ts_ns = sec.parse::<u64>().ok()?.checked_mul(1_000_000_000)? + frac_ns;
    Some((comm, cpu, ts_ns))
}

/// One entry of a histogram trigger's `hist` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistEntry {
    /// The keys and their values as printed (numbers in decimal).
    pub keys: Vec<(String, String)>,
    /// A `common_stacktrace` key's frames (`func+0x../0x..` as printed).
    pub stack: Vec<String>,
    pub hitcount: u64,
}

/// A histogram: its entries and the `Totals:` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hist {
    /// The `# trigger info:` line's text.
    pub trigger: String,
    pub entries: Vec<HistEntry>,
    pub hits: u64,
    pub dropped: u64,
}

/// Parses a `hist` file (kernel/trace/trace_events_hist.c's format:
/// `{ key: value, ... } hitcount: N`, a stacktrace key spreading over
/// several lines, then `Totals:` with `Hits:`, `Entries:`, `Dropped:`).
pub fn parse_hist(text: &str) -> Hist {
    let mut h = Hist::default();
    let mut cur: Option<HistEntry> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("# trigger info:") {
            h.trigger = v.trim().to_string();
            continue;
        }
        if t.starts_with('#') || t.is_empty() {
            continue;
        }
        if let Some(v) = t.strip_prefix("Hits:") {
            h.hits = v.trim().parse().unwrap_or(0);
            continue;
        }
        if let Some(v) = t.strip_prefix("Dropped:") {
            h.dropped = v.trim().parse().unwrap_or(0);
            continue;
        }
        let body = if let Some(b) = t.strip_prefix('{') {
            cur = Some(HistEntry::default());
            b
        } else {
            t
        };
        let Some(e) = cur.as_mut() else { continue };
        let (keys, count) = match body.split_once('}') {
            Some((k, rest)) => (k, Some(rest)),
            None => (body, None),
        };
        let keys = keys.trim();
        if !keys.is_empty() {
            if keys.ends_with(':') && !keys.contains(',') {
                // `common_stacktrace:`: the frames follow on their own lines.
            } else if keys.contains(": ") {
                for kv in keys.split(',') {
                    if let Some((k, v)) = kv.split_once(':') {
                        e.keys.push((k.trim().to_string(), v.trim().to_string()));
                    }
                }
            } else {
                e.stack.push(keys.to_string());
            }
        }
        if let Some(rest) = count {
            if let Some(n) = rest.trim().strip_prefix("hitcount:") {
                e.hitcount = n.split_whitespace().next().and_then(|x| x.parse().ok()).unwrap_or(0);
            }
            h.entries.push(cur.take().unwrap_or_default());
        }
    }
    h
}

/// One zone of `/proc/pagetypeinfo`: free blocks per migratetype and
/// order, and pageblocks per migratetype.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PagetypeZone {
    pub node: u32,
    pub zone: String,
    /// Per migratetype: free blocks of each order (a count the kernel
    /// caps, printed `>100000`, is kept as 100000).
    pub free: Vec<(String, Vec<u64>)>,
    /// Per migratetype: pageblocks.
    pub blocks: Vec<(String, u64)>,
}

/// `/proc/pagetypeinfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pagetypeinfo {
    pub pageblock_order: Option<u32>,
    pub zones: Vec<PagetypeZone>,
}

/// Parses `/proc/pagetypeinfo` (mm/vmstat.c: `pagetypeinfo_show`).
pub fn parse_pagetypeinfo(text: &str) -> Pagetypeinfo {
    let mut p = Pagetypeinfo::default();
    let mut block_types: Vec<String> = Vec::new();
    let zone_of = |p: &mut Pagetypeinfo, node: u32, zone: &str| -> usize {
        if let Some(i) = p.zones.iter().position(|z| z.node == node && z.zone == zone) {
            return i;
        }
        p.zones.push(PagetypeZone {
            node,
            zone: zone.to_string(),
            ..PagetypeZone::default()
        });
        p.zones.len() - 1
    };
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("Page block order:") {
            p.pageblock_order = v.trim().parse().ok();
        } else if let Some(v) = line.strip_prefix("Number of blocks type") {
            block_types = v.split_whitespace().map(str::to_string).collect();
        } else if let Some(rest) = line.strip_prefix("Node") {
            // `Node    0, zone      DMA, type    Unmovable  c0 c1 ...` or
            // `Node 0, zone      DMA   b0 b1 ...` (the block counts).
            let mut parts = rest.splitn(3, ',');
            let Some(node) = parts.next().and_then(|n| n.trim().parse::<u32>().ok()) else { continue };
            let Some(zpart) = parts.next() else { continue };
            let zpart = zpart.trim();
            let Some(zrest) = zpart.strip_prefix("zone") else { continue };
            match parts.next() {
                Some(tpart) => {
                    let mut w = tpart.split_whitespace();
                    if w.next() != Some("type") {
                        continue;
                    }
                    let Some(mt) = w.next() else { continue };
                    let counts: Vec<u64> =
                        w.map(|x| x.trim_start_matches('>').parse().unwrap_or(0)).collect();
                    let i = zone_of(&mut p, node, zrest.trim());
                    p.zones[i].free.push((mt.to_string(), counts));
                }
                None => {
                    let mut w = zrest.split_whitespace();
                    let Some(zone) = w.next() else { continue };
                    let counts: Vec<u64> = w.filter_map(|x| x.parse().ok()).collect();
                    if counts.is_empty() {
                        continue;
                    }
                    let i = zone_of(&mut p, node, zone);
                    p.zones[i].blocks = block_types.iter().cloned().zip(counts).collect();
                }
            }
        }
    }
    p
}

/// The tracing set-up of a run with `--extfrag`.
pub struct Tracer {
    dir: PathBuf,
    sys: Sys,
    /// `/proc/pagetypeinfo` at the start (None where unreadable).
    pagetypeinfo_start: Option<Pagetypeinfo>,
    /// CLOCK_MONOTONIC at the workload's start, nanoseconds.
    start_mono_ns: u64,
}

/// What the tracer found, for the result.
pub struct Report {
    tracefs: String,
    events: Vec<ExtfragEvent>,
    wakeups: Vec<WakeupEvent>,
    wakeup_hist: Option<Hist>,
    overrun: Vec<(u32, u64, u64)>,
    type_hist: Option<Hist>,
    order_hist: Option<Hist>,
    stack_hist: Option<Hist>,
    alloc_hist: Option<Hist>,
    pagetypeinfo_start: Option<Pagetypeinfo>,
    pagetypeinfo_end: Option<Pagetypeinfo>,
    start_mono_ns: u64,
}

/// A histogram trigger's text: its keys, map size, command (`pause`,
/// `cont`) and filter — the same text each time, as the kernel matches a
/// `pause`/`cont` to its trigger by keys, sort, size and filter.
fn trigger(keys: &str, cmd: &str, filter: &str) -> String {
    format!("{keys}:size={HIST_SIZE}:{cmd}{filter}")
}

/// Writes a tracefs file; a failure's message carries the kernel's
/// `error_log` (where a rejected trigger is explained).
pub(crate) fn write_traced(sys: &Sys, dir: &Path, rel: &str, v: &str) -> Result<(), ReplayError> {
    sys.write_or_err(&dir.join(rel), v).map_err(|e| {
        let log = sysfs::read_opt(&dir.join("error_log")).ok().flatten().unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect();
        ReplayError::system(format!("{}; tracing error_log: {}", e.msg, tail.join(" | ")))
    })
}

fn mono_ns() -> u64 {
    // SAFETY: clock_gettime writes the timespec it is given.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Each CPU's ring-buffer losses, from `per_cpu/cpuN/stats`: (cpu,
/// `overrun`: events overwritten, `dropped events`), 0 where unreadable.
pub(crate) fn read_cpu_overruns(dir: &Path) -> Vec<(u32, u64, u64)> {
    let mut out = Vec::new();
    for cpu in 0..1024u32 {
        let Some(t) = sysfs::read_opt(&dir.join(format!("per_cpu/cpu{cpu}/stats"))).ok().flatten() else { break };
        let field = |k: &str| t.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
        out.push((cpu, field("overrun:"), field("dropped events:")));
    }
    out
}

/// Empties the trace buffer: opening `trace` for writing with truncation
/// clears it.
pub(crate) fn clear_trace(sys: &Sys, dir: &Path) -> Result<(), ReplayError> {
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .create(sys.is_fake())
        .open(dir.join("trace"))
        .map(|_| ())
        .map_err(|e| ReplayError::system(format!("cannot clear {}/trace: {e}", dir.display())))
}

/// Finds (or mounts) tracefs: `/sys/kernel/tracing`, else debugfs'
/// `tracing` directory.
pub(crate) fn find_tracefs(sys: &Sys, option: &str) -> Result<PathBuf, ReplayError> {
    let candidates = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];
    for c in candidates {
        let p = sys.path(c);
        if p.join("events").is_dir() {
            return Ok(p);
        }
    }
    if !sys.is_fake() {
        let target = sys.path(candidates[0]);
        let src = std::ffi::CString::new("tracefs").unwrap_or_default();
        let dst = std::ffi::CString::new(target.to_string_lossy().as_bytes()).unwrap_or_default();
        // SAFETY: NUL-terminated strings that outlive the call.
        let rc = unsafe {
            libc::mount(src.as_ptr(), dst.as_ptr(), src.as_ptr(), 0, std::ptr::null())
        };
        if rc == 0 && target.join("events").is_dir() {
            return Ok(target);
        }
    }
    Err(ReplayError::system(format!(
        "{option}: no tracefs (tried /sys/kernel/tracing, /sys/kernel/debug/tracing and mounting tracefs)"
    )))
}

impl Tracer {
    /// Before the start snapshot: buffer size, clock and paused triggers.
    pub fn setup(sys: &Sys) -> Result<Tracer, ReplayError> {
        let dir = find_tracefs(sys, "--extfrag")?;
        let w = |rel: &str, v: &str| write_traced(sys, &dir, rel, v);
        w("tracing_on", "0")?;
        w(&format!("{EXTFRAG_EVENT}/enable"), "0")?;
        w("trace_clock", "mono")?;
        w("buffer_size_kb", &BUFFER_KB.to_string())?;
        for keys in [TYPE_KEYS, ORDER_KEYS, STACK_KEYS] {
            w(&format!("{EXTFRAG_EVENT}/trigger"), &trigger(keys, "pause", ""))?;
        }
        w(&format!("{PAGE_ALLOC_EVENT}/trigger"), &trigger(ALLOC_KEYS, "pause", ALLOC_FILTER))?;
        w(&format!("{WAKEUP_EVENT}/enable"), "0")?;
        w(&format!("{WAKEUP_EVENT}/trigger"), &trigger(WAKEUP_KEYS, "pause", ""))?;
        Ok(Tracer {
            dir,
            sys: sys.clone(),
            pagetypeinfo_start: None,
            start_mono_ns: 0,
        })
    }

    fn read_pagetypeinfo(&self) -> Option<Pagetypeinfo> {
        read_pagetypeinfo(&self.sys)
    }

    /// At the workload's start: `/proc/pagetypeinfo`, an empty buffer,
    /// the triggers resumed and the event on.
    pub fn start(&mut self) -> Result<(), ReplayError> {
        self.pagetypeinfo_start = self.read_pagetypeinfo();
        let w = |rel: &str, v: &str| write_traced(&self.sys, &self.dir, rel, v);
        clear_trace(&self.sys, &self.dir)?;
        for keys in [TYPE_KEYS, ORDER_KEYS, STACK_KEYS] {
            w(&format!("{EXTFRAG_EVENT}/trigger"), &trigger(keys, "cont", ""))?;
        }
        w(&format!("{PAGE_ALLOC_EVENT}/trigger"), &trigger(ALLOC_KEYS, "cont", ALLOC_FILTER))?;
        w(&format!("{WAKEUP_EVENT}/trigger"), &trigger(WAKEUP_KEYS, "cont", ""))?;
        w(&format!("{EXTFRAG_EVENT}/enable"), "1")?;
        w(&format!("{WAKEUP_EVENT}/enable"), "1")?;
        w("tracing_on", "1")?;
        self.start_mono_ns = mono_ns();
        Ok(())
    }

    /// After the end snapshot: stop, read everything.
    pub fn stop(&mut self) -> Report {
        let w = |rel: &str, v: &str| {
            let _ = self.sys.write(&self.dir.join(rel), v);
        };
        w("tracing_on", "0");
        w(&format!("{EXTFRAG_EVENT}/enable"), "0");
        for keys in [TYPE_KEYS, ORDER_KEYS, STACK_KEYS] {
            w(&format!("{EXTFRAG_EVENT}/trigger"), &trigger(keys, "pause", ""));
        }
        w(&format!("{PAGE_ALLOC_EVENT}/trigger"), &trigger(ALLOC_KEYS, "pause", ALLOC_FILTER));
        w(&format!("{WAKEUP_EVENT}/enable"), "0");
        w(&format!("{WAKEUP_EVENT}/trigger"), &trigger(WAKEUP_KEYS, "pause", ""));
        let pagetypeinfo_end = self.read_pagetypeinfo();
        let read = |p: &Path| sysfs::read_opt(p).ok().flatten();
        let text = read(&self.dir.join("trace")).unwrap_or_default();
        let events: Vec<ExtfragEvent> = text.lines().filter_map(parse_extfrag_line).collect();
        let wakeups: Vec<WakeupEvent> = text.lines().filter_map(parse_wakeup_line).collect();
        drop(text);
        let overrun = read_cpu_overruns(&self.dir);
        // Several triggers on one event share its `hist` file, one
        // histogram after the other, each starting with `# event histogram`.
        let hists = |ev: &str| -> Vec<Hist> {
            read(&self.dir.join(ev).join("hist"))
                .map(|t| t.split("# event histogram").filter(|s| s.contains("Totals:")).map(parse_hist).collect())
                .unwrap_or_default()
        };
        let (mut type_hist, mut order_hist, mut stack_hist) = (None, None, None);
        for h in hists(EXTFRAG_EVENT) {
            let slot = if h.trigger.contains("common_stacktrace") {
                &mut stack_hist
            } else if h.trigger.contains("fallback_migratetype") {
                &mut type_hist
            } else {
                &mut order_hist
            };
            *slot = Some(h);
        }
        let alloc_hist = hists(PAGE_ALLOC_EVENT).into_iter().next();
        let wakeup_hist = hists(WAKEUP_EVENT).into_iter().next();
        Report {
            wakeups,
            wakeup_hist,
            tracefs: self.dir.display().to_string(),
            events,
            overrun,
            type_hist,
            order_hist,
            stack_hist,
            alloc_hist,
            pagetypeinfo_start: self.pagetypeinfo_start.take(),
            pagetypeinfo_end,
            start_mono_ns: self.start_mono_ns,
        }
    }
}

/// `/proc/pagetypeinfo`, parsed; None where it cannot be read.
pub fn read_pagetypeinfo(sys: &Sys) -> Option<Pagetypeinfo> {
    sysfs::read_opt(&sys.path(PAGETYPEINFO)).ok().flatten().map(|t| parse_pagetypeinfo(&t))
}

/// `key`: a parsed `/proc/pagetypeinfo` (null where it was unreadable).
pub fn json_pagetypeinfo(j: &mut Json, key: &str, p: &Option<Pagetypeinfo>) {
    let Some(p) = p else {
        j.null(key);
        return;
    };
    j.begin_obj(Some(key));
    if let Some(o) = p.pageblock_order {
        j.int("pageblock_order", o);
    }
    j.begin_obj(Some("zones"));
    for z in &p.zones {
        j.begin_obj(Some(&z.zone));
        j.int("node", z.node);
        j.begin_obj(Some("blocks"));
        for (mt, n) in &z.blocks {
            j.int(mt, *n);
        }
        j.end_obj();
        j.begin_obj(Some("free"));
        for (mt, v) in &z.free {
            j.int_arr(mt, v.iter().copied());
        }
        j.end_obj();
        j.end_obj();
    }
    j.end_obj();
    j.end_obj();
}

fn json_hist(j: &mut Json, key: &str, h: &Option<Hist>, keep: usize) {
    let Some(h) = h else {
        j.null(key);
        return;
    };
    j.begin_obj(Some(key));
    j.int("hits", h.hits);
    j.int("entries", h.entries.len() as u64);
    j.int("dropped", h.dropped);
    let mut v: Vec<&HistEntry> = h.entries.iter().collect();
    v.sort_by(|a, b| b.hitcount.cmp(&a.hitcount).then_with(|| a.keys.cmp(&b.keys)).then_with(|| a.stack.cmp(&b.stack)));
    j.begin_arr("top");
    for e in v.into_iter().take(keep) {
        j.begin_obj(None);
        for (k, val) in &e.keys {
            match val.parse::<i128>() {
                Ok(n) => j.int(k, n),
                Err(_) => j.str(k, val),
            }
        }
        if !e.stack.is_empty() {
            j.begin_arr("stack");
            for f in &e.stack {
                j.elem_str(f);
            }
            j.end_arr();
        }
        j.int("hitcount", e.hitcount);
        j.end_obj();
    }
    j.end_arr();
    j.end_obj();
}

impl Report {
    /// Writes the `extfrag` member of the result.
    pub fn json(&self, j: &mut Json) {
        j.begin_obj(Some("extfrag"));
        j.str("tracefs", &self.tracefs);
        j.int("buffer_size_kb", BUFFER_KB);
        j.int("hist_size", HIST_SIZE);
        j.int("events", self.events.len() as u64);
        j.begin_arr("per_cpu");
        for (cpu, over, dropped) in &self.overrun {
            j.begin_obj(None);
            j.int("cpu", *cpu);
            j.int("overrun", *over);
            j.int("dropped_events", *dropped);
            j.end_obj();
        }
        j.end_arr();
        let mut groups: BTreeMap<GroupKey, u64> = BTreeMap::new();
        let mut comms: BTreeMap<&str, u64> = BTreeMap::new();
        for e in &self.events {
            *groups.entry(e.key()).or_default() += 1;
            *comms.entry(e.comm.as_str()).or_default() += 1;
        }
        let index: BTreeMap<GroupKey, usize> = groups.keys().enumerate().map(|(i, k)| (*k, i)).collect();
        j.begin_arr("groups");
        for (k, n) in &groups {
            j.begin_obj(None);
            j.int("alloc_migratetype", k.0);
            j.int("fallback_migratetype", k.1);
            j.int("alloc_order", k.2);
            j.int("fallback_order", k.3);
            j.int("change_ownership", k.4);
            j.int("count", *n);
            j.end_obj();
        }
        j.end_arr();
        j.counters("by_comm", &comms.iter().map(|(k, v)| (k.to_string(), *v)).collect::<Vec<_>>());
        // Each event (the first MAX_EVENTS): nanoseconds since the
        // workload's start (negative: before it), its group's index in
        // `groups`, its CPU and its task's index in `by_comm`.
        let comm_index: BTreeMap<&str, usize> = comms.keys().enumerate().map(|(i, k)| (*k, i)).collect();
        let kept = &self.events[..self.events.len().min(MAX_EVENTS)];
        j.int_arr("event_ns", kept.iter().map(|e| i128::from(e.ts_ns) - i128::from(self.start_mono_ns)));
        j.int_arr("event_group", kept.iter().map(|e| index[&e.key()] as u64));
        j.int_arr("event_cpu", kept.iter().map(|e| e.cpu));
        j.int_arr("event_comm", kept.iter().map(|e| comm_index[e.comm.as_str()] as u64));
        json_hist(j, "hist_types", &self.type_hist, MAX_HIST_ENTRIES);
        json_hist(j, "hist_orders", &self.order_hist, MAX_HIST_ENTRIES);
        json_hist(j, "hist_stacks", &self.stack_hist, MAX_STACKS);
        json_hist(j, "page_alloc_nonmovable", &self.alloc_hist, MAX_HIST_ENTRIES);
        // kswapd's wake-ups (vmscan/mm_vmscan_wakeup_kswapd): each one's
        // time since the start, order, GFP flags as printed (`none`: woken
        // for a boosted watermark) and task; and the lossless histogram.
        j.int("kswapd_wakeups", self.wakeups.len() as u64);
        let kept = &self.wakeups[..self.wakeups.len().min(MAX_EVENTS)];
        j.int_arr("wakeup_ns", kept.iter().map(|e| i128::from(e.ts_ns) - i128::from(self.start_mono_ns)));
        j.int_arr("wakeup_order", kept.iter().map(|e| e.order));
        j.begin_arr("wakeup_gfp_flags");
        for e in kept {
            j.elem_str(&e.gfp_flags);
        }
        j.end_arr();
        j.begin_arr("wakeup_comm");
        for e in kept {
            j.elem_str(&e.comm);
        }
        j.end_arr();
        json_hist(j, "hist_kswapd_wakeups", &self.wakeup_hist, MAX_HIST_ENTRIES);
        json_pagetypeinfo(j, "pagetypeinfo_start", &self.pagetypeinfo_start);
        json_pagetypeinfo(j, "pagetypeinfo_end", &self.pagetypeinfo_end);
        j.end_obj();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extfrag_lines_are_parsed() {
        let line = "         kswapd0-45      [001] d..2.    12.345678: mm_page_alloc_extfrag: page=00000000a1b2c3d4 pfn=0x1a200 alloc_order=0 fallback_order=3 pageblock_order=9 alloc_migratetype=0 fallback_migratetype=1 fragmenting=1 change_ownership=1";
        let e = parse_extfrag_line(line).expect("an event");
        assert_eq!(e.comm, "kswapd0");
        assert_eq!(e.cpu, 1);
        assert_eq!(e.ts_ns, 12_345_678_000);
        assert_eq!(e.key(), (0, 1, 0, 3, 1));
        // A task name with a dash keeps it; the pid goes.
        let line2 = " kworker/u4:2-mm-12  [000] ..... 3.000001: mm_page_alloc_extfrag: page=x pfn=0x1 alloc_order=2 fallback_order=9 pageblock_order=9 alloc_migratetype=2 fallback_migratetype=0 fragmenting=0 change_ownership=0";
        let e2 = parse_extfrag_line(line2).expect("an event");
        assert_eq!(e2.comm, "kworker/u4:2-mm");
        assert_eq!(e2.ts_ns, 3_000_001_000);
        assert_eq!(e2.key(), (2, 0, 2, 9, 0));
        assert_eq!(parse_extfrag_line("# tracer: nop"), None);
        let w = " mglru-replay-170  [000] d..1.  4.500000: mm_vmscan_wakeup_kswapd: nid=0 order=0 gfp_flags=none";
        let e3 = parse_wakeup_line(w).expect("a wake-up");
        assert_eq!((e3.comm.as_str(), e3.cpu, e3.ts_ns, e3.order), ("mglru-replay", 0, 4_500_000_000, 0));
        assert_eq!(e3.gfp_flags, "none");
        assert_eq!(parse_wakeup_line(line), None);
        assert_eq!(parse_extfrag_line(w), None);
        assert_eq!(
            parse_extfrag_line(" a-1 [000] ..... 1.0: mm_page_alloc: page=x pfn=0x1 order=0 migratetype=0 gfp_flags=GFP_KERNEL"),
            None
        );
        // A field missing: not an event of this format.
        assert_eq!(
            parse_extfrag_line(" a-1 [000] ..... 1.0: mm_page_alloc_extfrag: alloc_order=0 fallback_order=1"),
            None
        );
    }

    #[test]
    fn hist_files_are_parsed() {
        let text = "\
# event histogram
#
# trigger info: hist:keys=gfp_flags,order,migratetype:vals=hitcount:sort=hitcount:size=2048 if migratetype != 1 [paused]
#

{ gfp_flags:       3136, order:          0, migratetype:          0 } hitcount:       1500
{ gfp_flags:    1051840, order:          1, migratetype:          2 } hitcount:         12

Totals:
    Hits: 1512
    Entries: 2
    Dropped: 0
";
        let h = parse_hist(text);
        assert!(h.trigger.starts_with("hist:keys=gfp_flags,order,migratetype:"));
        assert!(h.trigger.ends_with("[paused]"));
        assert_eq!(h.hits, 1512);
        assert_eq!(h.dropped, 0);
        assert_eq!(h.entries.len(), 2);
        assert_eq!(
            h.entries[0].keys,
            vec![
                ("gfp_flags".to_string(), "3136".to_string()),
                ("order".to_string(), "0".to_string()),
                ("migratetype".to_string(), "0".to_string())
            ]
        );
        assert_eq!(h.entries[0].hitcount, 1500);
        assert_eq!(h.entries[1].hitcount, 12);
        let stacks = "\
# event histogram
#

{ common_stacktrace:
         __rmqueue_pcplist+0x2b1/0x8e0
         get_page_from_freelist+0x3de/0x1510
         __alloc_pages_noprof+0x1a2/0x350
} hitcount:         77
{ common_stacktrace:
         rmqueue_bulk+0x10/0x20
} hitcount:          3

Totals:
    Hits: 80
    Entries: 2
    Dropped: 1
";
        let h = parse_hist(stacks);
        assert_eq!(h.entries.len(), 2);
        assert!(h.entries[0].keys.is_empty());
        assert_eq!(
            h.entries[0].stack,
            vec![
                "__rmqueue_pcplist+0x2b1/0x8e0",
                "get_page_from_freelist+0x3de/0x1510",
                "__alloc_pages_noprof+0x1a2/0x350"
            ]
        );
        assert_eq!(h.entries[0].hitcount, 77);
        assert_eq!(h.entries[1].stack, vec!["rmqueue_bulk+0x10/0x20"]);
        assert_eq!((h.hits, h.dropped), (80, 1));
    }

    #[test]
    fn pagetypeinfo_is_parsed() {
        let text = "\
Page block order: 9
Pages per block:  512

Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 
Node    0, zone      DMA, type    Unmovable      0      0      0      0      0      0      0      0      0      0      0 
Node    0, zone      DMA, type      Movable      1      1      2      1      1      1      0      1      0      1      3 
Node    0, zone      DMA, type  Reclaimable      0      0      0      0      0      0      0      0      0      0      0 
Node    0, zone      DMA, type   HighAtomic      0      0      0      0      0      0      0      0      0      0      0 
Node    0, zone      DMA, type      Isolate      0      0      0      0      0      0      0      0      0      0      0 
Node    0, zone    DMA32, type    Unmovable     12      8      4 >100000      0      0      0      0      0      0      0 
Node    0, zone    DMA32, type      Movable    300    200    100     50     20     10      5      2      1      0     80 

Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate 
Node 0, zone      DMA            1            7            0            0            0 
Node 0, zone    DMA32           30          180            4            0            0 
";
        let p = parse_pagetypeinfo(text);
        assert_eq!(p.pageblock_order, Some(9));
        assert_eq!(p.zones.len(), 2);
        let dma = &p.zones[0];
        assert_eq!((dma.node, dma.zone.as_str()), (0, "DMA"));
        assert_eq!(dma.free.len(), 5);
        assert_eq!(dma.free[1], ("Movable".to_string(), vec![1, 1, 2, 1, 1, 1, 0, 1, 0, 1, 3]));
        assert_eq!(
            dma.blocks,
            vec![
                ("Unmovable".to_string(), 1),
                ("Movable".to_string(), 7),
                ("Reclaimable".to_string(), 0),
                ("HighAtomic".to_string(), 0),
                ("Isolate".to_string(), 0)
            ]
        );
        let dma32 = &p.zones[1];
        assert_eq!(dma32.free[0].1[3], 100_000);
        assert_eq!(dma32.blocks[1], ("Movable".to_string(), 180));
    }
}
