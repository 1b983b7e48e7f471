// SPDX-License-Identifier: GPL-2.0-only
//! `mglru validate`: hold the model against real-kernel results.
//!
//! The reference suite lives in `validation/`: traces in `traces/*.trace.gz`
//! and, for each, the kernel's counters in `results/NAME.POLICY.json`
//! (written by `validation/run-kernel.sh`; POLICY is `mglru` or
//! `classic`, or one file for traces that set `lru_gen.enabled`
//! themselves). This module replays each trace on the model, computes the
//! error per counter and the agreement of the MGLRU-vs-classic
//! difference, and checks them against `thresholds.json`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use mglru_core::report::Report;
use mglru_core::cost::CostModel;
use mglru_core::kswapd::KswapdMode;
use mglru_core::{Policy, RunOptions, Simulator};
use mglru_core::kernel::{KernelVersion, ZoneSpec, ZONE_NAMES};
use mglru_core::folio::NR_ZONES;
use mglru_core::buddy::{ZoneLayout, MIGRATE_PCPTYPES, NR_PAGE_ORDERS, PAGEBLOCK_ORDER};
use mglru_trace::TraceReader;

/// The counters whose error is published and enforced.
pub const COUNTERS: [&str; 11] = [
    "workingset_refault_file",
    "workingset_refault_anon",
    "pgpgin",
    "pswpin",
    "pswpout",
    "pgsteal_file",
    "pgsteal_anon",
    "pgscan_file",
    "pgscan_anon",
    "workingset_activate_file",
    "workingset_nodereclaim",
];

/// The reclaim counters published beside [`COUNTERS`] and not enforced
/// yet (issue 33): the activation family, reclaim by kswapd and direct,
/// major faults, page-outs. A result whose kernel does not print one
/// (6.1 has no `*_proactive`) leaves it out.
pub const PUBLISHED: [&str; 13] = [
    "pgactivate",
    "pgdeactivate",
    "pgrotated",
    "pgrefill",
    "workingset_activate_anon",
    "workingset_restore_anon",
    "workingset_restore_file",
    "pgscan_kswapd",
    "pgscan_direct",
    "pgsteal_kswapd",
    "pgsteal_direct",
    "pgmajfault",
    "pgpgout",
];

/// A JSON value as the comparison code reads it (parsed by serde_json;
/// malformed files are reported with their path, line and column).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    pub fn get(&self, k: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.get(k),
            _ => None,
        }
    }
    pub fn num(&self) -> Option<f64> {
        match self {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }
    pub fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parse with serde_json (errors give the line and column) into the
/// small value type the comparison code walks.
pub fn parse_json(s: &str) -> Result<Json, String> {
    let v: serde_json::Value = serde_json::from_str(s).map_err(|e| e.to_string())?;
    Ok(from_value(v))
}

fn from_value(v: serde_json::Value) -> Json {
    use serde_json::Value as V;
    match v {
        V::Null => Json::Null,
        V::Bool(b) => Json::Bool(b),
        V::Number(n) => Json::Num(n.as_f64().unwrap_or(f64::NAN)),
        V::String(s) => Json::Str(s),
        V::Array(a) => Json::Arr(a.into_iter().map(from_value).collect()),
        V::Object(m) => Json::Obj(m.into_iter().map(|(k, v)| (k, from_value(v))).collect()),
    }
}

/// One kernel result file.
pub struct KernelResult {
    pub policy: Policy,
    /// The kernel version the result was measured on (from its `kernel`
    /// release): the model follows that version.
    pub kernel: KernelVersion,
    pub vmstat: BTreeMap<String, f64>,
    /// Memory the workload had on the guest (for traces without a memcg
    /// limit, the model is run with this much RAM), bytes.
    pub memory_override: Option<u64>,
    /// The guest's zones at the start (`start_zones`: free pages, managed
    /// pages, watermarks, lowmem reserve); used instead of
    /// `memory_override` where the result has them.
    pub start_zones: Option<[ZoneSpec; NR_ZONES]>,
    pub meta: String,
    /// The workload's wall time on the guest, seconds.
    pub wall_seconds: f64,
    /// kswapd0's CPU time over the workload on the guest, seconds (results
    /// recorded since the replayer measures it).
    pub kswapd_cpu_seconds: Option<f64>,
    /// The guest's clock along the trace (the replayer's `time_profile`):
    /// (line, ns since the workload began), in line order; empty for
    /// results recorded without one.
    pub profile: Vec<(u64, u64)>,
    /// Some `/proc/vmstat` counters along the run (the replayer's
    /// `vmstat_profile`); None for results recorded without one.
    pub timeline: Option<crate::timeline::KernelTimeline>,
    /// How the replayer ran the tasks (`replay_schedule`: its `--parallel`
    /// is the model's `--schedule parallel`); serial when not recorded.
    pub schedule: mglru_core::sched::Schedule,
    /// The CPU time and pressure figures, in results recorded since the
    /// replayer measures PSI (a `psi` key, null on a kernel without PSI);
    /// None for older results.
    pub cpu: Option<KernelCpu>,
}

/// PSI memory totals over the workload, microseconds: (some, full).
pub type PsiPair = (f64, f64);

/// What the guest's replayer recorded of CPU time and memory pressure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelCpu {
    /// Per task (trace name): utime and stime, seconds; None where the
    /// replayer could not read them (a killed worker).
    pub tasks: Vec<(String, Option<(f64, f64)>)>,
    /// `/proc/pressure/memory`'s growth; None without PSI.
    pub psi_system: Option<PsiPair>,
    /// Each trace memcg's `memory.pressure` growth.
    pub psi_memcg: Vec<(String, Option<PsiPair>)>,
}

/// Reads `task_cpu_seconds` and `psi` of a result (`Ok(None)` when it has
/// no `psi` key: recorded before the replayer measured PSI).
fn parse_kernel_cpu(j: &Json) -> Result<Option<KernelCpu>, String> {
    let Some(psi) = j.get("psi") else { return Ok(None) };
    let pair = |v: &Json, what: &str| -> Result<Option<PsiPair>, String> {
        match v {
            Json::Null => Ok(None),
            Json::Obj(_) => match (v.get("some_us").and_then(Json::num), v.get("full_us").and_then(Json::num)) {
                (Some(a), Some(b)) if a >= 0.0 && b >= 0.0 => Ok(Some((a, b))),
                _ => Err(format!("psi {what}: needs \"some_us\" and \"full_us\", non-negative numbers (as mglru-replay writes them)")),
            },
            _ => Err(format!("psi {what}: must be an object {{\"some_us\", \"full_us\"}} or null")),
        }
    };
    let mut cpu = KernelCpu::default();
    match psi {
        Json::Null => {}
        Json::Obj(_) => {
            cpu.psi_system = match psi.get("system") {
                Some(v) => pair(v, "system")?,
                None => None,
            };
            match psi.get("memcg") {
                None | Some(Json::Null) => {}
                Some(Json::Obj(m)) => {
                    for (name, v) in m {
                        cpu.psi_memcg.push((name.clone(), pair(v, &format!("memcg {name}"))?));
                    }
                }
                Some(_) => return Err("psi memcg: must be an object of memcg names".into()),
            }
        }
        _ => return Err("psi: must be an object {\"system\", \"memcg\"} or null".into()),
    }
    match j.get("task_cpu_seconds") {
        None | Some(Json::Null) => {}
        Some(Json::Obj(m)) => {
            for (name, v) in m {
                let t = match v {
                    Json::Null => None,
                    _ => match (v.get("utime").and_then(Json::num), v.get("stime").and_then(Json::num)) {
                        (Some(u), Some(st)) if u >= 0.0 && st >= 0.0 => Some((u, st)),
                        _ => {
                            return Err(format!(
                                "task_cpu_seconds {name}: needs \"utime\" and \"stime\", non-negative seconds, or null"
                            ))
                        }
                    },
                };
                cpu.tasks.push((name.clone(), t));
            }
        }
        Some(_) => return Err("task_cpu_seconds: must be an object of task names".into()),
    }
    Ok(Some(cpu))
}

/// The version a kernel release string is ("6.1.0-57-cloud-amd64",
/// "6.12.117+deb12-cloud-amd64 (package ...)", "7.2.13+deb14-...").
pub fn kernel_of_release(release: &str) -> Option<KernelVersion> {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    let (major, minor) = (it.next()?, it.next()?);
    KernelVersion::parse(&format!("{major}.{minor}")).ok()
}

/// The largest kernel result read (the suite's are at most 3 MB): a path
/// such as /dev/urandom is not read for ever.
pub const MAX_RESULT_BYTES: u64 = 64 << 20;

/// A kernel result file as text, at most MAX_RESULT_BYTES.
fn read_result(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    f.take(MAX_RESULT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_RESULT_BYTES {
        return Err(format!("{}: larger than {} MiB, the largest kernel result read: is it a result of validation/run-kernel.sh?", path.display(), MAX_RESULT_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text: is it a result of validation/run-kernel.sh (JSON)?", path.display()))
}

pub fn load_kernel_result(path: &Path) -> Result<KernelResult, String> {
    let text = read_result(path)?;
    let j = parse_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let policy = match j.get("policy").and_then(|p| p.str()) {
        Some("mglru") => Policy::Mglru,
        Some("classic") => Policy::Classic,
        other => return Err(format!("{}: policy must be \"mglru\" or \"classic\", found {other:?}", path.display())),
    };
    let kernel = match j.get("kernel").and_then(|k| k.str()) {
        Some(release) => kernel_of_release(release).ok_or_else(|| {
            format!("{}: kernel {release:?} is none of the versions the model follows ({})", path.display(), KernelVersion::names().join(", "))
        })?,
        // Results recorded before the harness booted other versions.
        None => KernelVersion::V6_12,
    };
    let mut vmstat = BTreeMap::new();
    if let Some(Json::Obj(m)) = j.get("vmstat") {
        for (k, v) in m {
            if let Some(n) = v.num() {
                vmstat.insert(k.clone(), n);
            }
        }
    } else {
        return Err(format!("{}: no \"vmstat\" object", path.display()));
    }
    let meta = j.get("meta");
    // For the traces listed in thresholds.json's "memory_start_free" (no
    // memcg limit: global pressure), the model gets the memory the guest
    // had free when the workload began.
    let memory_override = j.get("start_nr_free_pages").and_then(|v| v.num()).map(|v| v as u64 * 4096);
    let start_zones = parse_start_zones(&j).map_err(|e| format!("{}: {e}", path.display()))?;
    let meta_s = meta
        .map(|m| {
            let k = j.get("kernel").and_then(|k| k.str()).unwrap_or("?");
            let d = m.get("date").and_then(|d| d.str()).unwrap_or("?");
            format!("{k}, {d}")
        })
        .unwrap_or_default();
    let wall_seconds = j.get("wall_seconds").and_then(|v| v.num()).unwrap_or(0.0);
    let kswapd_cpu_seconds = j.get("kswapd_cpu_seconds").and_then(|v| v.num());
    let profile = match j.get("time_profile") {
        None | Some(Json::Null) => Vec::new(),
        Some(tp) => {
            let (lines, ns) = profile_axes(tp, "time_profile").map_err(|e| format!("{}: {e}", path.display()))?;
            lines.into_iter().zip(ns).collect()
        }
    };
    let timeline = crate::timeline::parse_vmstat_profile(&j).map_err(|e| format!("{}: {e}", path.display()))?;
    let schedule = match j.get("replay_schedule") {
        None | Some(Json::Null) => mglru_core::sched::Schedule::Serial,
        Some(v) => v.str().and_then(mglru_core::sched::Schedule::parse).ok_or_else(|| {
            format!("{}: replay_schedule must be \"serial\" or \"parallel\"", path.display())
        })?,
    };
    let cpu = parse_kernel_cpu(&j).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(KernelResult { policy, kernel, vmstat, memory_override, start_zones, meta: meta_s, wall_seconds, kswapd_cpu_seconds, profile, timeline, schedule, cpu })
}

/// The array member `key` of `obj` (`what` names `obj` in errors), every
/// element a non-negative number.
pub fn num_array(obj: &Json, what: &str, key: &str) -> Result<Vec<f64>, String> {
    match obj.get(key) {
        Some(Json::Arr(a)) => a
            .iter()
            .map(|x| x.num().filter(|n| *n >= 0.0))
            .collect::<Option<Vec<f64>>>()
            .ok_or_else(|| format!("{what}.{key} must hold non-negative numbers")),
        _ => Err(format!("{what} has no array \"{key}\"")),
    }
}

/// The `lines` and `ns` arrays of one of the replayer's profiles
/// (`time_profile`, `vmstat_profile`): as long as each other, in line and
/// time order.
pub fn profile_axes(obj: &Json, what: &str) -> Result<(Vec<u64>, Vec<u64>), String> {
    let whole = |k: &str| -> Result<Vec<u64>, String> { Ok(num_array(obj, what, k)?.into_iter().map(|n| n as u64).collect()) };
    let (lines, ns) = (whole("lines")?, whole("ns")?);
    if lines.len() != ns.len() {
        return Err(format!("{what}.lines and .ns differ in length"));
    }
    if lines.windows(2).any(|w| w[1] < w[0]) || ns.windows(2).any(|w| w[1] < w[0]) {
        return Err(format!("{what} is not in line and time order"));
    }
    Ok((lines, ns))
}

/// The `start_zones` array of a kernel result as the model's zones: each
/// zone's free pages at the start become its pages; its managed pages,
/// watermarks and largest lowmem reserve (the reserve against an
/// allocation that may use any zone) are taken as the guest had them.
/// Zones the model does not have (Movable, Device) must be empty.
fn parse_start_zones(j: &Json) -> Result<Option<[ZoneSpec; NR_ZONES]>, String> {
    let Some(Json::Arr(zs)) = j.get("start_zones") else {
        return Ok(None);
    };
    let mut out: [ZoneSpec; NR_ZONES] = Default::default();
    for z in zs {
        let name = z.get("name").and_then(|n| n.str()).ok_or("start_zones: a zone without a \"name\"")?;
        let num = |k: &str| -> Result<u64, String> {
            z.get(k)
                .and_then(|v| v.num())
                .filter(|n| *n >= 0.0)
                .map(|n| n as u64)
                .ok_or_else(|| format!("start_zones: zone {name} has no whole number \"{k}\""))
        };
        let managed = num("managed")?;
        let Some(idx) = ZONE_NAMES.iter().position(|n| *n == name) else {
            if managed > 0 {
                return Err(format!("start_zones: zone {name} has {managed} managed pages, but the model has only {}", ZONE_NAMES.join(", ")));
            }
            continue;
        };
        let reserve = match z.get("protection") {
            Some(Json::Arr(p)) => p.iter().filter_map(|v| v.num()).fold(0.0f64, f64::max) as u64,
            _ => return Err(format!("start_zones: zone {name} has no \"protection\" array")),
        };
        // Pages on the per-CPU free lists are free but not in `free`: the
        // model's zone has both, the lists' pages on its CPUs' lists
        // (results recorded without `pcp` count none).
        out[idx] = ZoneSpec {
            pages: num("free")? + pcp_of(z),
            managed,
            wmark: Some([num("min")?, num("low")?, num("high")?]),
            lowmem_reserve: Some(reserve),
            pcp: pcp_of(z),
            layout: None,
        };
    }
    // The pageblocks and free chunks at the start (/proc/pagetypeinfo,
    // recorded since 2026-11-27), for a model that groups pages by
    // mobility (crate::kernel ZoneSpec `layout`).
    if let Some(layouts) = parse_pagetypeinfo(j.get("pagetypeinfo_start"))? {
        for (idx, l) in layouts.into_iter().enumerate() {
            if let Some(l) = l {
                if out[idx].managed == 0 {
                    return Err(format!("pagetypeinfo_start: zone {} has pageblocks but no managed pages in start_zones", ZONE_NAMES[idx]));
                }
                out[idx].layout = Some(l);
            }
        }
    }
    // The replayer's own pages (mlocked, so the growth of the guest's
    // Unevictable over the run) came out of the same memory; they come
    // out of the highest populated zone, where its allocations went.
    let kb = |m: &str| j.get(m).and_then(|o| o.get("Unevictable")).and_then(|v| v.num());
    if let (Some(a), Some(b)) = (kb("meminfo_start"), kb("meminfo_end")) {
        let grown = ((b - a).max(0.0) / 4.0) as u64;
        if let Some(z) = out.iter_mut().rev().find(|z| z.pages > 0) {
            z.pages = z.pages.saturating_sub(grown);
        }
    }
    Ok(Some(out))
}

/// A result's `pagetypeinfo_start` (the replayer's parse of
/// /proc/pagetypeinfo) as the model's zone layouts; None where the result
/// has none (older results, or null: unreadable). The model has no
/// HighAtomic or Isolate pageblocks: a zone with any is an error.
fn parse_pagetypeinfo(p: Option<&Json>) -> Result<Option<[Option<ZoneLayout>; NR_ZONES]>, String> {
    let Some(p) = p else { return Ok(None) };
    if matches!(p, Json::Null) {
        return Ok(None);
    }
    let what = "pagetypeinfo_start";
    if p.get("pageblock_order").and_then(|v| v.num()) != Some(f64::from(PAGEBLOCK_ORDER)) {
        return Err(format!("{what}: \"pageblock_order\" must be {PAGEBLOCK_ORDER} (x86-64), as the model's"));
    }
    let Some(Json::Obj(zones)) = p.get("zones") else {
        return Err(format!("{what}: no \"zones\" object"));
    };
    let mut out: [Option<ZoneLayout>; NR_ZONES] = Default::default();
    for (name, z) in zones {
        let Some(idx) = ZONE_NAMES.iter().position(|n| n == name) else {
            return Err(format!("{what}: zone {name}: the model has only {}", ZONE_NAMES.join(", ")));
        };
        let mut l = ZoneLayout::default();
        for (t, tname) in ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate"].iter().enumerate() {
            let blocks = z.get("blocks").and_then(|b| b.get(tname)).and_then(|v| v.num()).filter(|n| *n >= 0.0);
            let Some(blocks) = blocks else {
                return Err(format!("{what}: zone {name} has no whole number blocks.{tname}"));
            };
            let free = num_array(z.get("free").unwrap_or(&Json::Null), &format!("{what}: zone {name} free"), tname)?;
            if free.len() != NR_PAGE_ORDERS {
                return Err(format!("{what}: zone {name} free.{tname} has {} orders, not {NR_PAGE_ORDERS}", free.len()));
            }
            if t >= MIGRATE_PCPTYPES {
                if blocks > 0.0 || free.iter().any(|&n| n > 0.0) {
                    return Err(format!("{what}: zone {name} has {tname} pageblocks or free pages; the model has none of that type"));
                }
                continue;
            }
            l.blocks[t] = blocks as u32;
            for (o, n) in free.into_iter().enumerate() {
                l.free[t][o] = n as u32;
            }
        }
        if l.blocks.iter().sum::<u32>() > 0 {
            out[idx] = Some(l);
        }
    }
    Ok(Some(out))
}

/// A zone's `pcp` (pages on its per-CPU free lists), 0 where absent.
fn pcp_of(z: &Json) -> u64 {
    z.get("pcp").and_then(|v| v.num()).map_or(0, |n| n.max(0.0) as u64)
}

/// The ground-truth platform's operation costs (DIR/platform.json, written
/// by validation/calibrate.py), or None (the model's defaults) without it.
pub fn load_platform(dir: &Path) -> Result<Option<CostModel>, String> {
    let p = dir.join("platform.json");
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Ok(None);
    };
    let j = parse_json(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    let Some(Json::Obj(costs)) = j.get("cost") else {
        return Err(format!("{}: no \"cost\" object (rerun validation/calibrate.py)", p.display()));
    };
    let mut c = CostModel::default();
    for (name, v) in costs {
        let ns = v
            .num()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
            .ok_or_else(|| format!("{}: cost \"{name}\" must be a whole number of ns", p.display()))?;
        c.set(name, ns as u64).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(missing) = CostModel::NAMES.iter().find(|n| !costs.contains_key(**n)) {
        // A default cost is a native CPU's figure, not the platform's:
        // running the guest's model with it would mix the two.
        return Err(format!(
            "{}: no cost \"{missing}\" (every cost of the model must be measured on the platform: rerun validation/{})",
            p.display(),
            if matches!(*missing, "op_sys" | "op_wait" | "task_switch" | "disk_read_sys" | "write_new") { "calibrate_split.py --apply" } else { "calibrate.py" }
        ));
    }
    Ok(Some(c))
}

/// The ground-truth platform's number of CPUs (DIR/platform.json
/// `"cpus"`): the model's machine has as many (a trace's own `cpus`
/// statement gives the same number for the guest it was measured on).
/// None without a platform file (the model's default).
pub fn load_platform_cpus(dir: &Path) -> Result<Option<u32>, String> {
    let p = dir.join("platform.json");
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Ok(None);
    };
    let j = parse_json(&text).map_err(|e| format!("{}: {e}", p.display()))?;
    match j.get("cpus").and_then(|v| v.num()) {
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(mglru_trace::MAX_CPUS) => Ok(Some(n as u32)),
        Some(n) => Err(format!("{}: \"cpus\" is {n}: give the guest's number of CPUs, 1 to {}", p.display(), mglru_trace::MAX_CPUS)),
        None => Err(format!("{}: no \"cpus\" (the guest's number of CPUs, e.g. \"cpus\": 2 for run-kernel.sh's -smp 2)", p.display())),
    }
}

/// A cursor over a guest's time profile: for the line about to run, the
/// guest's time then.
pub struct GuestClock<'a> {
    profile: &'a [(u64, u64)],
    /// The trace's `sleep` operations: (line, ns), in line order.
    sleeps: &'a [(u64, u64)],
    next: usize,
}

impl<'a> GuestClock<'a> {
    pub fn new(profile: &'a [(u64, u64)], sleeps: &'a [(u64, u64)]) -> GuestClock<'a> {
        GuestClock { profile, sleeps, next: 0 }
    }

    /// No profile: the model keeps its own clock.
    pub fn is_empty(&self) -> bool {
        self.profile.is_empty()
    }

    /// Total sleep of the `sleep` lines in `[from, to)`.
    fn slept(&self, from: u64, to: u64) -> u64 {
        let i = self.sleeps.partition_point(|&(l, _)| l < from);
        self.sleeps[i..].iter().take_while(|&&(l, _)| l < to).map(|&(_, ns)| ns).sum()
    }

    /// The guest's time at `line` (before its operation): linear between
    /// the samples around it, the last sample's after it; None before the
    /// first. A `sleep` between two samples holds its own time — the
    /// model's sleep adds it — and only the rest of the interval is spread
    /// over the lines.
    pub fn target(&mut self, line: u64) -> Option<u64> {
        while self.next < self.profile.len() && self.profile[self.next].0 <= line {
            self.next += 1;
        }
        if self.next == 0 {
            return None;
        }
        let (l0, t0) = self.profile[self.next - 1];
        Some(match self.profile.get(self.next) {
            Some(&(l1, t1)) if l1 > l0 => {
                let busy = (t1 - t0).saturating_sub(self.slept(l0, l1));
                t0 + self.slept(l0, line) + (busy as u128 * (line - l0) as u128 / (l1 - l0) as u128) as u64
            }
            _ => t0,
        })
    }
}

/// The `sleep` operations of a trace, (line, ns), for `GuestClock`.
pub fn trace_sleeps(reader: &mut TraceReader) -> Result<Vec<(u64, u64)>, String> {
    let mut out = Vec::new();
    while let Some(op) = reader.next_op().map_err(|e| e.to_string())? {
        if let mglru_trace::Op::Sleep { ns } = op {
            out.push((reader.line(), ns));
        }
    }
    Ok(out)
}

/// The costs the model runs with when its clock follows a guest's: the
/// guest's clock already holds the time the workload's own work took
/// (operations, faults, reads, swap-ins, direct reclaim), so those costs
/// are not added again on top of it — where the platform's averages were
/// slower than the guest at some point of a run, they used to put the
/// model's clock up to 0.35 s ahead, and the statistics flush then fell
/// that much earlier in the workload than on the guest. Latencies that are
/// not the workload's own time (writeback completing) are kept.
pub fn guest_clock_costs(c: CostModel) -> CostModel {
    CostModel {
        op: 0,
        op_sys: 0,
        op_wait: 0,
        task_switch: 0,
        mem_access: 0,
        page_copy: 0,
        minor_fault: 0,
        write_new: 0,
        disk_read: 0,
        disk_read_sys: 0,
        swap_read: 0,
        tasks_on_external_clock: true,
        ..c
    }
}

/// Replay `trace` on the model. With a time `profile` (the guest's clock
/// at sampled lines), the model's clock is brought forward to the guest's
/// before each line (linear between samples) and the workload's own costs
/// are not added on top (`guest_clock_costs`), so the time-driven
/// mechanisms (the 2 s statistics flush, the flusher, kswapd's timing
/// against the workload) meet the workload where they met it on the guest;
/// only what the model sleeps (reclaim throttling) can put it later.
pub fn simulate_trace(
    trace: &Path,
    kernel: KernelVersion,
    policy: Option<Policy>,
    memory: Option<u64>,
    zones: Option<[ZoneSpec; NR_ZONES]>,
    cost: Option<CostModel>,
    profile: &[(u64, u64)],
    kswapd: KswapdMode,
    schedule: mglru_core::sched::Schedule,
    cpus: Option<u32>,
    migratetypes: bool,
) -> Result<Report, String> {
    simulate_trace_sampled(trace, kernel, policy, memory, zones, cost, profile, &[], kswapd, schedule, cpus, migratetypes).map(|(r, _)| r)
}

/// The model's clock (ns) and `/proc/vmstat` at one sampled line.
pub type ModelSample = (u64, Vec<(&'static str, u64)>);

/// `simulate_trace`, also taking the model's clock (ns) and its whole
/// `/proc/vmstat` before the operation of each line of `sample_lines`
/// (ascending), as the replayer samples the guest's.
pub fn simulate_trace_sampled(
    trace: &Path,
    kernel: KernelVersion,
    policy: Option<Policy>,
    memory: Option<u64>,
    zones: Option<[ZoneSpec; NR_ZONES]>,
    cost: Option<CostModel>,
    profile: &[(u64, u64)],
    sample_lines: &[u64],
    kswapd: KswapdMode,
    schedule: mglru_core::sched::Schedule,
    cpus: Option<u32>,
    migratetypes: bool,
) -> Result<(Report, Vec<ModelSample>), String> {
    let sleeps = if profile.is_empty() {
        Vec::new()
    } else {
        trace_sleeps(&mut TraceReader::open(trace).map_err(|e| e.to_string())?)?
    };
    let mut reader = TraceReader::open(trace).map_err(|e| e.to_string())?;
    let cost = if profile.is_empty() { cost } else { Some(guest_clock_costs(cost.unwrap_or_default())) };
    let mut sim = Simulator::new(RunOptions { kernel, policy, memory, zones, cost, kswapd, schedule, cpus, migratetypes, ..Default::default() });
    let mut clock = GuestClock::new(profile, &sleeps);
    let mut samples = Vec::with_capacity(sample_lines.len());
    let mut next = 0;
    while let Some(op) = reader.next_op().map_err(|e| e.to_string())? {
        if let Some(ns) = clock.target(reader.line()) {
            sim.clock_at_least(ns).map_err(|e| format!("{}: {e}", reader.location()))?;
        }
        while next < sample_lines.len() && sample_lines[next] <= reader.line() {
            let Some(k) = sim.kernel() else {
                return Err(format!(
                    "{}: a sample before the model's kernel started (the trace's setup): was the result recorded for this trace?",
                    reader.location()
                ));
            };
            samples.push((k.now, k.vmstat()));
            next += 1;
        }
        sim.apply(&op).map_err(|e| format!("{}: {e}", reader.location()))?;
    }
    if let Some(&l) = sample_lines.get(next) {
        return Err(format!(
            "a sample at line {l}, past the trace's last operation (line {}): was the result recorded for this trace?",
            reader.line()
        ));
    }
    let k = sim.finish().map_err(|e| e.to_string())?;
    Ok((k.report(&reader), samples))
}

/// Relative error with a floor: |s - k| / max(k, floor). The floor (in
/// the counter's unit) keeps counters near zero from dominating.
pub fn rel_err(sim: f64, kernel: f64, floor: f64) -> f64 {
    (sim - kernel).abs() / kernel.abs().max(floor)
}

/// The floor for a counter: 256 pages (1 MiB), 1024 for pgpgin (KiB), 16
/// xarray nodes (1024 pages' shadows) for workingset_nodereclaim.
pub fn floor_of(counter: &str) -> f64 {
    match counter {
        "pgpgin" => 1024.0,
        "workingset_nodereclaim" => 16.0,
        _ => 256.0,
    }
}

pub struct Row {
    pub trace: String,
    pub policy: &'static str,
    pub counter: &'static str,
    pub kernel: f64,
    pub sim: f64,
    pub rel: f64,
}

impl Row {
    /// Counters that are (near) zero on both sides say nothing: only rows
    /// where the kernel or the model reached the floor count.
    pub fn counted(&self) -> bool {
        self.kernel.max(self.sim) >= floor_of(self.counter)
    }
}

pub struct SignRow {
    pub trace: String,
    pub counter: &'static str,
    pub kernel_diff: f64,
    pub sim_diff: f64,
    /// None: the kernel's difference is within noise (no sign to match).
    pub agree: Option<bool>,
}

pub struct Comparison {
    /// The costs the model ran with (DIR/platform.json), None = defaults.
    pub platform: Option<CostModel>,
    /// Per trace and policy: the guest's wall time and the model's
    /// simulated time for the workload, seconds.
    pub times: Vec<(String, &'static str, f64, f64)>,
    /// Per trace and policy where kswapd ran on the guest or in the model:
    /// kswapd0's CPU seconds on the guest and the model's (its pages
    /// scanned × `scan`). Shown, not checked: the cost model's `scan` is
    /// not calibrated against it yet (docs/COST_MODEL.md).
    pub kswapd: Vec<(String, &'static str, f64, f64)>,
    pub rows: Vec<Row>,
    pub signs: Vec<SignRow>,
    pub missing: Vec<String>,
    pub meta: Vec<String>,
    /// `--extra` counters, shown and never checked: (trace, policy,
    /// counter, kernel, model, relative error with a 256 floor).
    pub extra: Vec<(String, &'static str, String, f64, f64, f64)>,
    /// [`PUBLISHED`] counters, shown (summarised per counter) and not
    /// checked yet.
    pub published: Vec<Row>,
    /// CPU time and pressure, kernel vs model, for results that record
    /// them (`KernelCpu`); shown, never checked.
    pub cpu: Vec<CpuRow>,
    /// With `--migratetypes`: how each global-pressure trace's zones
    /// start (laid out from the result's /proc/pagetypeinfo, or, for a
    /// result that did not record it, every pageblock Movable).
    pub layouts: Vec<String>,
}

/// One CPU-time or pressure figure of one trace and policy. `kernel` is
/// None where the guest could not measure it (no PSI, a killed worker).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuRow {
    pub trace: String,
    pub policy: &'static str,
    /// `workload_time` (the guest's wall clock, the model's own clock),
    /// `stime TASK`, `kswapd_cpu`, `psi_some GROUP`, `psi_full GROUP`
    /// (seconds; GROUP `system` or a memcg), `allocstall` (every zone's
    /// `allocstall_*` summed), `pgscan_direct`, `pgscan_kswapd`,
    /// `pgsteal_direct`, `pgsteal_kswapd` (pages).
    pub figure: String,
    pub kernel: Option<f64>,
    pub model: f64,
}

/// The vmstat figures of the CPU table: the direct/kswapd split.
pub(crate) const CPU_VMSTAT: [&str; 4] = ["pgscan_direct", "pgscan_kswapd", "pgsteal_direct", "pgsteal_kswapd"];

/// Every `allocstall_*` counter summed (the kernel counts them per zone
/// type the allocation asked for).
pub(crate) fn allocstall_sum<'a>(m: impl Iterator<Item = (&'a str, f64)>) -> f64 {
    m.filter(|(k, _)| k.starts_with("allocstall_")).map(|(_, v)| v).sum()
}

/// The CPU and pressure rows of one trace and policy. `time_rep` is the
/// model's run on its own cost-model clock (where task time and stalls
/// are charged), `rep` the run the counters come from (the vmstat split
/// is taken from it, as the table above).
fn cpu_rows(trace: &str, policy: &'static str, kr: &KernelResult, kc: &KernelCpu, rep: &Report, time_rep: &Report) -> Vec<CpuRow> {
    let mut out = Vec::new();
    let mut row = |figure: String, kernel: Option<f64>, model: f64| {
        out.push(CpuRow { trace: trace.to_string(), policy, figure, kernel, model });
    };
    // The workload's length on each side (the guest's wall clock, the
    // model's own clock): TCG's speed follows the host's load, so the
    // times below are compared per second of workload.
    row("workload_time".into(), Some(kr.wall_seconds), time_rep.sim.simulated_ns as f64 / 1e9);
    for (name, t) in &kc.tasks {
        let model = time_rep.cpu.tasks.iter().find(|m| &m.name == name).map_or(0.0, |m| m.stime_ns as f64 / 1e9);
        row(format!("stime {name}"), t.map(|(_, st)| st), model);
    }
    row("kswapd_cpu".into(), kr.kswapd_cpu_seconds, time_rep.cpu.kswapd_ns as f64 / 1e9);
    for (group, k, (ms, mf)) in psi_groups(kc, time_rep) {
        row(format!("psi_some {group}"), k.map(|(s, _)| s / 1e6), ms);
        row(format!("psi_full {group}"), k.map(|(_, f)| f / 1e6), mf);
    }
    row(
        "allocstall".into(),
        Some(allocstall_sum(kr.vmstat.iter().map(|(k, v)| (k.as_str(), *v)))),
        allocstall_sum(rep.vmstat.iter().map(|(k, v)| (*k, *v as f64))),
    );
    for c in CPU_VMSTAT {
        row(c.into(), Some(kr.vmstat.get(c).copied().unwrap_or(0.0)), rep.vmstat(c).unwrap_or(0) as f64);
    }
    out
}

/// The pressure groups the guest measured (`system`, then each trace
/// memcg): the group, the guest's (some, full) growth in µs, and the
/// model's totals in `rep`, in seconds (0 for a memcg the model lacks).
/// The root memcg's pressure file is the system's.
pub(crate) fn psi_groups<'a>(kc: &'a KernelCpu, rep: &'a Report) -> impl Iterator<Item = (String, Option<PsiPair>, (f64, f64))> + 'a {
    std::iter::once(("system".to_string(), kc.psi_system, rep.memcg(mglru_trace::ROOT_MEMCG)))
        .chain(kc.psi_memcg.iter().map(|(n, v)| (n.clone(), *v, rep.memcg(n))))
        .map(|(group, k, m)| {
            let model = m.map_or((0.0, 0.0), |m| (m.pressure.some.total as f64 / 1e6, m.pressure.full.total as f64 / 1e6));
            (group, k, model)
        })
}

pub fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Mglru => "mglru",
        Policy::Classic => "classic",
    }
}

/// The names of the suite's traces (DIR/traces/NAME.trace.gz), sorted.
fn suite_traces(dir: &Path) -> Result<Vec<String>, String> {
    let traces_dir = dir.join("traces");
    let mut names: Vec<String> = std::fs::read_dir(&traces_dir)
        .map_err(|e| format!("{}: {e}", traces_dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".trace.gz")).map(str::to_string))
        .collect();
    names.sort();
    Ok(names)
}

/// Compare every trace of the suite that has kernel results.
pub fn compare_suite(
    dir: &Path,
    results: &str,
    expect: Option<KernelVersion>,
    only: Option<&str>,
    follow_guest_clock: bool,
    extra: &[String],
    kswapd: KswapdMode,
    migratetypes: bool,
) -> Result<Comparison, String> {
    let start_free = start_free_traces(dir);
    let platform = load_platform(dir)?;
    let platform_cpus = load_platform_cpus(dir)?;
    let traces_dir = dir.join("traces");
    let results_dir = dir.join(results);
    if !results_dir.is_dir() {
        return Err(format!("{}: no such folder of kernel results (--results names a folder in the suite)", results_dir.display()));
    }
    let names = suite_traces(dir)?;
    if let Some(o) = only.filter(|o| !names.iter().any(|n| n == o)) {
        return Err(format!(
            "--trace {o}: not a trace of the suite (the name of a file in {} without .trace.gz); its traces: {}",
            traces_dir.display(),
            names.join(", ")
        ));
    }
    let mut cmp = Comparison {
        platform: platform.clone(),
        times: Vec::new(),
        kswapd: Vec::new(),
        rows: Vec::new(),
        signs: Vec::new(),
        missing: Vec::new(),
        meta: Vec::new(),
        layouts: Vec::new(),
        extra: Vec::new(),
        published: Vec::new(),
        cpu: Vec::new(),
    };
    for name in names {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let trace: PathBuf = traces_dir.join(format!("{name}.trace.gz"));
        let mut by_policy: BTreeMap<&'static str, (f64Map, f64Map)> = BTreeMap::new();
        let mut found = false;
        for pname in ["mglru", "classic", "self"] {
            let rp = results_dir.join(format!("{name}.{pname}.json"));
            if !rp.exists() {
                continue;
            }
            found = true;
            let kr = load_kernel_result(&rp)?;
            if let Some(k) = expect.filter(|&k| k != kr.kernel) {
                return Err(format!(
                    "{}: measured on Linux {}, not {} (--kernel {} reads results-{}/ by default; drop --results or --kernel)",
                    rp.display(),
                    kr.kernel.name(),
                    k.name(),
                    k.name(),
                    k.name()
                ));
            }
            // "self": the trace picks its policy with lru_gen.enabled.
            let policy = if pname == "self" { None } else { Some(kr.policy) };
            let (memory, zones) = model_memory(&start_free, &name, &kr, migratetypes);
            if migratetypes && start_free.iter().any(|n| *n == name) {
                let laid_out = zones.as_ref().is_some_and(|z| z.iter().any(|z| z.layout.is_some()));
                cmp.layouts.push(if laid_out {
                    format!("{name}.{pname}: zones laid out from the result's pagetypeinfo_start")
                } else {
                    format!("{name}.{pname}: the result has no pagetypeinfo_start: every pageblock Movable, free memory in whole chunks")
                });
            }
            let profile: &[(u64, u64)] = if follow_guest_clock { &kr.profile } else { &[] };
            let rep = simulate_trace(&trace, kr.kernel, policy, memory, zones.clone(), platform.clone(), profile, kswapd, kr.schedule, platform_cpus, migratetypes)?;
            cmp.meta.push(format!("{name}.{pname}: {}", kr.meta));
            let sim: f64Map = rep.vmstat.iter().map(|(k, v)| (k.to_string(), *v as f64)).collect();
            let p = policy_name(kr.policy);
            cmp.times.push((name.clone(), p, kr.wall_seconds, rep.sim.simulated_ns as f64 / 1e9));
            let model_kswapd = rep.cpu.kswapd_ns as f64 / 1e9;
            if let Some(k) = kr.kswapd_cpu_seconds {
                if k > 0.0 || model_kswapd > 0.0 {
                    cmp.kswapd.push((name.clone(), p, k, model_kswapd));
                }
            }
            if let Some(kc) = &kr.cpu {
                // Following the guest's clock the model charges the tasks
                // no time of their own (guest_clock_costs), so their CPU
                // time and stalls come from a second run on the model's
                // own cost-model clock.
                let own;
                let time_rep = if follow_guest_clock && !profile.is_empty() {
                    own = simulate_trace(&trace, kr.kernel, policy, memory, zones, platform.clone(), &[], kswapd, kr.schedule, platform_cpus, migratetypes)?;
                    &own
                } else {
                    &rep
                };
                cmp.cpu.extend(cpu_rows(&name, p, &kr, kc, &rep, time_rep));
            }
            let row = |c: &'static str, k: f64| {
                let s = sim.get(c).copied().unwrap_or(0.0);
                Row { trace: name.clone(), policy: p, counter: c, kernel: k, sim: s, rel: rel_err(s, k, floor_of(c)) }
            };
            for c in COUNTERS {
                cmp.rows.push(row(c, kr.vmstat.get(c).copied().unwrap_or(0.0)));
            }
            for c in PUBLISHED {
                if let Some(&k) = kr.vmstat.get(c) {
                    cmp.published.push(row(c, k));
                }
            }
            for c in extra {
                if !kr.vmstat.contains_key(c) && !sim.contains_key(c) {
                    return Err(format!(
                        "--extra {c}: neither the kernel result {} nor the model has a vmstat counter of that name",
                        rp.display()
                    ));
                }
                let k = kr.vmstat.get(c).copied().unwrap_or(0.0);
                let s = sim.get(c).copied().unwrap_or(0.0);
                cmp.extra.push((name.clone(), p, c.clone(), k, s, rel_err(s, k, floor_of(c))));
            }
            by_policy.insert(p, (kr.vmstat, sim));
        }
        if !found {
            cmp.missing.push(name.clone());
            continue;
        }
        if let (Some((km, sm)), Some((kc, sc))) = (by_policy.get("mglru"), by_policy.get("classic")) {
            for c in COUNTERS {
                let g = |m: &f64Map| m.get(c).copied().unwrap_or(0.0);
                let kd = g(km) - g(kc);
                let sd = g(sm) - g(sc);
                let noise = (0.05 * g(km).max(g(kc))).max(floor_of(c));
                let agree = if kd.abs() <= noise { None } else { Some(kd.signum() == sd.signum()) };
                cmp.signs.push(SignRow { trace: name.clone(), counter: c, kernel_diff: kd, sim_diff: sd, agree });
            }
        }
    }
    Ok(cmp)
}

/// The traces thresholds.json lists under "memory_start_free".
pub fn start_free_traces(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("thresholds.json"))
        .ok()
        .and_then(|t| parse_json(&t).ok())
        .and_then(|j| match j.get("memory_start_free") {
            Some(Json::Arr(a)) => Some(a.iter().filter_map(|v| v.str().map(|s| s.to_string())).collect()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The model's memory for a trace's kernel result: the trace's own, or,
/// for the `memory_start_free` traces, the guest's zones at the start
/// (older results without them: the guest's free pages), laid out as its
/// /proc/pagetypeinfo said with `migratetypes` (`--migratetypes`; results
/// that recorded it), else with every page free in a Movable pageblock.
pub fn model_memory(start_free: &[String], name: &str, kr: &KernelResult, migratetypes: bool) -> (Option<u64>, Option<[ZoneSpec; NR_ZONES]>) {
    let use_start = start_free.iter().any(|n| n == name);
    match (use_start, &kr.start_zones) {
        (false, _) => (None, None),
        (true, Some(z)) => (None, Some(zones_for_run(z.clone(), migratetypes))),
        (true, None) => (kr.memory_override, None),
    }
}

/// A result's start zones as a run uses them: laid out from the guest's
/// /proc/pagetypeinfo only with `migratetypes`, else every page free in a
/// Movable pageblock (`mglru validate`, `mglru run --start-zones`).
pub fn zones_for_run(mut zones: [ZoneSpec; NR_ZONES], migratetypes: bool) -> [ZoneSpec; NR_ZONES] {
    if !migratetypes {
        for z in zones.iter_mut() {
            z.layout = None;
        }
    }
    zones
}

#[allow(non_camel_case_types)]
type f64Map = BTreeMap<String, f64>;

/// Thresholds in force and the goal (validation/thresholds.json).
#[derive(Clone, Debug)]
pub struct Thresholds {
    pub median: f64,
    pub max: f64,
    pub goal_median: f64,
    pub goal_max: f64,
    pub require_signs: bool,
    /// Traces held to their own maximum instead of `max` (known
    /// deviations, each explained in docs/FIDELITY.md).
    pub trace_max: Vec<(String, &'static str, f64)>,
    /// (trace, counter) pairs whose MGLRU-vs-classic sign is not enforced.
    pub sign_exceptions: Vec<(String, String)>,
    /// The traces a results folder with its own thresholds.json covers
    /// (`covers`); None: every trace of the suite.
    pub covers: Option<Vec<String>>,
}

impl Thresholds {
    /// The maximum a known deviation (trace, policy) is held to instead.
    pub fn own_limit(&self, trace: &str, policy: &str) -> Option<f64> {
        self.trace_max.iter().find(|(t, p, _)| t == trace && *p == policy).map(|(_, _, m)| *m)
    }
}

/// The thresholds for the kernel results in `dir/results`: that folder's
/// own `thresholds.json` if it has one (e.g. results-parallel, whose kernel
/// spread differs), else the suite's.
pub fn load_thresholds_for(dir: &Path, results: &str) -> Result<Thresholds, String> {
    let own = dir.join(results).join("thresholds.json");
    if own.exists() {
        load_thresholds_file(dir, &own)
    } else {
        load_thresholds(dir)
    }
}

pub fn load_thresholds(dir: &Path) -> Result<Thresholds, String> {
    load_thresholds_file(dir, &dir.join("thresholds.json"))
}

fn load_thresholds_file(dir: &Path, p: &Path) -> Result<Thresholds, String> {
    let p = p.to_path_buf();
    let t = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let j = parse_json(&t).map_err(|e| format!("{}: {e}", p.display()))?;
    let n = |k: &str| j.get(k).and_then(|v| v.num()).ok_or_else(|| format!("{}: missing number \"{k}\"", p.display()));
    // Names in the per-trace entries must be the suite's traces and the
    // published counters: a renamed trace must not leave a stale exemption.
    let traces = suite_traces(dir).unwrap_or_default();
    let known_trace = |k: &str, what: &str| -> Result<(), String> {
        if traces.iter().any(|t| t == k) {
            Ok(())
        } else {
            Err(format!("{}: {what} names `{k}`, which is not a trace in {}/traces: remove or rename the entry", p.display(), dir.display()))
        }
    };
    // An object keyed by suite trace names, or nothing.
    let per_trace = |key: &str, shape: &str| -> Result<Vec<(&String, &Json)>, String> {
        match j.get(key) {
            None => Ok(Vec::new()),
            Some(Json::Obj(m)) => {
                for k in m.keys() {
                    known_trace(k, key)?;
                }
                Ok(m.iter().collect())
            }
            Some(_) => Err(format!("{}: {key} must be an object of {shape}", p.display())),
        }
    };
    let mut trace_max = Vec::new();
    for (k, v) in per_trace("trace_max", "trace: {policy: limit}")? {
        let Json::Obj(per) = v else {
            return Err(format!("{}: trace_max.{k} must be an object of policy: limit, e.g. {{\"mglru\": 0.2}}", p.display()));
        };
        for (pol, lim) in per {
            let pol = match pol.as_str() {
                "mglru" => "mglru",
                "classic" => "classic",
                _ => return Err(format!("{}: trace_max.{k}.{pol}: the policy must be mglru or classic", p.display())),
            };
            // Up to 200 (20,000 %): a counter the kernel left at 0 is
            // measured against its floor (16 nodes for
            // workingset_nodereclaim), so a known deviation of a few
            // thousand against a kernel's 0 is a relative error of 100+.
            let lim = lim
                .num()
                .filter(|x| *x > 0.0 && *x <= 200.0)
                .ok_or_else(|| format!("{}: trace_max.{k}.{pol} must be a relative error above 0 and at most 200 (20000%)", p.display()))?;
            trace_max.push((k.clone(), pol, lim));
        }
    }
    let mut sign_exceptions = Vec::new();
    for (k, v) in per_trace("sign_exceptions", "trace: [counters]")? {
        let Json::Arr(a) = v else {
            return Err(format!("{}: sign_exceptions.{k} must be an array of counter names", p.display()));
        };
        for c in a {
            let c = c.str().ok_or_else(|| format!("{}: sign_exceptions.{k} must hold counter names", p.display()))?;
            if !COUNTERS.contains(&c) {
                return Err(format!("{}: sign_exceptions.{k}: `{c}` is not a published counter ({})", p.display(), COUNTERS.join(", ")));
            }
            sign_exceptions.push((k.clone(), c.to_string()));
        }
    }
    let covers = match j.get("covers") {
        None => None,
        Some(Json::Arr(a)) => {
            let mut v = Vec::new();
            for x in a {
                let t = x.str().ok_or_else(|| format!("{}: covers must hold trace names", p.display()))?;
                known_trace(t, "covers")?;
                v.push(t.to_string());
            }
            Some(v)
        }
        Some(_) => return Err(format!("{}: covers must be an array of trace names", p.display())),
    };
    Ok(Thresholds {
        covers,
        median: n("median_rel_err_max")?,
        max: n("max_rel_err_max")?,
        goal_median: n("goal_median")?,
        goal_max: n("goal_max")?,
        require_signs: j.get("require_sign_agreement") == Some(&Json::Bool(true)),
        trace_max,
        sign_exceptions,
    })
}

pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Per policy: (median, max) relative error over all rows.
pub fn summary(cmp: &Comparison) -> Vec<(&'static str, f64, f64, usize)> {
    let mut out = Vec::new();
    for p in ["mglru", "classic"] {
        let mut v: Vec<f64> = cmp
            .rows
            .iter()
            .filter(|r| r.policy == p && r.counted())
            .map(|r| r.rel)
            .collect();
        if v.is_empty() {
            continue;
        }
        let mx = v.iter().cloned().fold(0.0, f64::max);
        let n = v.len();
        out.push((p, median(&mut v), mx, n));
    }
    out
}

/// The readable report.
pub fn render(cmp: &Comparison, th: Option<&Thresholds>) -> String {
    let mut o = String::new();
    match &cmp.platform {
        Some(c) => {
            let list: Vec<String> =
                CostModel::NAMES.iter().map(|n| format!("{n}={}", c.get(n).unwrap_or(0))).collect();
            let _ = writeln!(o, "model costs (ns) of the ground-truth platform, from platform.json: {}\n", list.join(" "));
        }
        None => {
            let _ = writeln!(o, "model costs: the defaults (no platform.json)\n");
        }
    }
    if !cmp.layouts.is_empty() {
        let _ = writeln!(o, "--migratetypes: the global-pressure traces' zones at the start (the others: every pageblock Movable):");
        for l in &cmp.layouts {
            let _ = writeln!(o, "  {l}");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "{:<30} {:<8} {:<26} {:>12} {:>12} {:>9}", "trace", "policy", "counter", "kernel", "model", "rel.err");
    for r in &cmp.rows {
        let _ = writeln!(o, "{:<30} {:<8} {:<26} {:>12.0} {:>12.0} {:>8.1}%", r.trace, r.policy, r.counter, r.kernel, r.sim, r.rel * 100.0);
    }
    if !cmp.extra.is_empty() {
        let _ = writeln!(o, "\nExtra counters (--extra; shown, not checked):");
        for (t, p, c, k, s, rel) in &cmp.extra {
            let _ = writeln!(o, "{t:<30} {p:<8} {c:<26} {k:>12.0} {s:>12.0} {:>8.1}%", rel * 100.0);
        }
    }
    render_published(&mut o, &cmp.published);
    let _ = writeln!(o, "\nWorkload time, guest wall clock vs model simulated clock (s):");
    for (t, p, k, s) in &cmp.times {
        let _ = writeln!(o, "{t:<30} {p:<8} {k:>12.2} {s:>12.2}");
    }
    if !cmp.kswapd.is_empty() {
        let _ = writeln!(o, "\nkswapd CPU time, guest (kswapd_cpu_seconds) vs model (its reclaim steps x their costs), s (shown, not checked):");
        for (t, p, k, s) in &cmp.kswapd {
            let _ = writeln!(o, "{t:<30} {p:<8} {k:>12.2} {s:>12.2}");
        }
    }
    if !cmp.cpu.is_empty() {
        let _ = writeln!(
            o,
            "\nCPU time (s), memory pressure (PSI totals, s) and reclaim by whom (pages), guest vs model (shown, not checked);\n\
             the model's times from its own cost-model clock, its counts from the run above; '-' = not measured on the guest:"
        );
        for r in &cmp.cpu {
            let k = r.kernel.map_or_else(|| "-".to_string(), |k| fmt_figure(&r.figure, k));
            let _ = writeln!(o, "{:<30} {:<8} {:<26} {k:>12} {:>12}", r.trace, r.policy, r.figure, fmt_figure(&r.figure, r.model));
        }
    }
    let _ = writeln!(o, "\nMGLRU - classic, kernel vs model:");
    for s in &cmp.signs {
        let verdict = match s.agree {
            None => "within noise",
            Some(true) => "same sign",
            Some(false) => "OPPOSITE SIGN",
        };
        let _ = writeln!(o, "{:<30} {:<26} {:>12.0} {:>12.0}  {verdict}", s.trace, s.counter, s.kernel_diff, s.sim_diff);
    }
    let _ = writeln!(o);
    for (p, med, mx, n) in summary(cmp) {
        let _ = write!(o, "{p}: median rel. error {:.1}%, max {:.1}% over {n} counters", med * 100.0, mx * 100.0);
        if let Some(t) = th.filter(|t| t.trace_max.iter().any(|(_, tp, _)| *tp == p)) {
            // The largest error outside the traces held to their own limit.
            let rest = cmp
                .rows
                .iter()
                .filter(|r| r.policy == p && r.counted() && t.own_limit(&r.trace, p).is_none())
                .map(|r| r.rel)
                .fold(0.0, f64::max);
            let _ = write!(o, " ({:.1}% without the known deviations)", rest * 100.0);
        }
        if let Some(t) = th {
            let _ = write!(
                o,
                " (in force: median <= {:.1}%, max <= {:.1}%; goal {:.0}% / {:.0}%)",
                t.median * 100.0,
                t.max * 100.0,
                t.goal_median * 100.0,
                t.goal_max * 100.0
            );
        }
        let _ = writeln!(o);
    }
    if let Some(t) = th {
        for (tr, pol, m) in &t.trace_max {
            let _ = writeln!(o, "known deviation (docs/FIDELITY.md): {tr} ({pol}) is held to max <= {:.1}% instead", m * 100.0);
        }
        for (tr, c) in &t.sign_exceptions {
            let _ = writeln!(o, "known deviation (docs/FIDELITY.md): the sign of {tr} {c} is not enforced");
        }
    }
    for m in &cmp.missing {
        // A results folder with its own thresholds covers only its traces.
        if th.and_then(|t| t.covers.as_ref()).is_some_and(|c| !c.contains(m)) {
            continue;
        }
        let _ = writeln!(o, "no kernel results for {m}");
    }
    o
}

/// A figure of the CPU table: seconds to three places, counts whole.
fn fmt_figure(figure: &str, v: f64) -> String {
    if figure.starts_with("stime") || figure.starts_with("psi") || figure == "kswapd_cpu" || figure == "workload_time" {
        format!("{v:.3}")
    } else {
        format!("{v:.0}")
    }
}

/// Check against the thresholds; Err lists every violation.
pub fn check(cmp: &Comparison, th: &Thresholds) -> Result<(), String> {
    let mut errs = Vec::new();
    for (p, med, _, _) in summary(cmp) {
        if med > th.median + 1e-12 {
            errs.push(format!("{p}: median relative error {:.2}% exceeds {:.2}%", med * 100.0, th.median * 100.0));
        }
    }
    // Every row against its trace's maximum: the general one, or the
    // trace's own for a known deviation.
    for r in &cmp.rows {
        if !r.counted() {
            continue;
        }
        let limit = th.own_limit(&r.trace, r.policy).unwrap_or(th.max);
        if r.rel > limit + 1e-12 {
            errs.push(format!(
                "{}: max relative error {:.2}% exceeds {:.2}% ({} {})",
                r.policy,
                r.rel * 100.0,
                limit * 100.0,
                r.trace,
                r.counter
            ));
        }
    }
    if th.require_signs {
        for s in &cmp.signs {
            if th.sign_exceptions.iter().any(|(t, c)| *t == s.trace && c == s.counter) {
                continue;
            }
            if s.agree == Some(false) {
                errs.push(format!("{} {}: MGLRU-vs-classic difference has the opposite sign", s.trace, s.counter));
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

/// The published counters' summary: per counter and policy, over the
/// traces where the kernel or the model moved it, the median and the
/// largest error (with the trace and both values).
fn render_published(o: &mut String, rows: &[Row]) {
    use std::fmt::Write as _;
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(o, "\nPublished counters, not enforced yet (every row in --json \"published\"): over the traces where either side moved it");
    let _ = writeln!(o, "{:<26} {:<8} {:>6} {:>8} {:>8}  {}", "counter", "policy", "traces", "median", "max", "largest (trace: kernel, model)");
    for c in PUBLISHED {
        for p in ["mglru", "classic"] {
            let moved: Vec<&Row> = rows.iter().filter(|r| r.counter == c && r.policy == p && (r.kernel != 0.0 || r.sim != 0.0)).collect();
            let Some(w) = moved.iter().copied().max_by(|a, b| a.rel.total_cmp(&b.rel)) else {
                continue;
            };
            let n = moved.len();
            let median = median(&mut moved.iter().map(|r| r.rel).collect::<Vec<_>>());
            let _ = writeln!(
                o,
                "{c:<26} {p:<8} {n:>6} {:>7.1}% {:>7.1}%  {}: {:.0}, {:.0}",
                median * 100.0,
                w.rel * 100.0,
                w.trace,
                w.kernel,
                w.sim
            );
        }
    }
}

/// `--json`: the comparison as a document a program reads (a
/// `rows` array of the checked counters, `signs` of the MGLRU-vs-classic
/// differences, `extra` of the `--extra` counters). The structs below are
/// its schema; serde writes it, fields in the order they are declared.
#[derive(Serialize)]
struct ComparisonJson<'a> {
    rows: Vec<RowJson<'a>>,
    signs: Vec<SignJson<'a>>,
    extra: Vec<RowJson<'a>>,
    /// The published, not yet enforced, counters (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    published: Vec<RowJson<'a>>,
    /// Only for results that record CPU time and PSI (absent otherwise,
    /// so older folders' documents are unchanged).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cpu: Vec<CpuJson<'a>>,
    /// The figures held to the kernel's spread over its runs (the
    /// reference results only; absent otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    spread: Vec<SpreadJson<'a>>,
}

/// One row of the spread section (crate::spread::SpreadRow): pages and
/// events whole, times as shares of the workload's time.
#[derive(Serialize)]
struct SpreadJson<'a> {
    trace: &'a str,
    policy: &'a str,
    figure: &'a str,
    /// Per kernel run: the kernel's value and the model's following it.
    runs: Vec<RunJson>,
    #[serde(serialize_with = "count")]
    kernel_median: f64,
    #[serde(serialize_with = "count")]
    model_median: f64,
    #[serde(serialize_with = "count")]
    tolerance: f64,
    /// "ok", "known deviation" or "outside".
    verdict: &'static str,
}

#[derive(Serialize)]
struct RunJson {
    #[serde(serialize_with = "count")]
    kernel: f64,
    #[serde(serialize_with = "count")]
    model: f64,
}

/// One CPU-time or pressure figure (`CpuRow`); `kernel` null where the
/// guest did not measure it.
#[derive(Serialize)]
struct CpuJson<'a> {
    trace: &'a str,
    policy: &'a str,
    figure: &'a str,
    #[serde(serialize_with = "opt_count")]
    kernel: Option<f64>,
    #[serde(serialize_with = "count")]
    model: f64,
}

/// `count` for a value that may be missing (null).
fn opt_count<S: serde::Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => count(v, s),
        None => s.serialize_none(),
    }
}

/// One counter of one trace and policy (a checked row or an extra one).
#[derive(Serialize)]
struct RowJson<'a> {
    trace: &'a str,
    policy: &'a str,
    counter: &'a str,
    #[serde(serialize_with = "count")]
    kernel: f64,
    #[serde(serialize_with = "count")]
    model: f64,
    #[serde(serialize_with = "six_places")]
    rel_err: f64,
}

/// One counter's MGLRU - classic difference on one trace.
#[derive(Serialize)]
struct SignJson<'a> {
    trace: &'a str,
    counter: &'a str,
    #[serde(serialize_with = "count")]
    kernel_diff: f64,
    #[serde(serialize_with = "count")]
    model_diff: f64,
    /// null: the kernel's difference is within noise.
    agree: Option<bool>,
}

/// A counter (or a difference of two) held as f64: a whole value is
/// written as an integer (`8053`, not `8053.0`), as `/proc/vmstat` shows
/// it; any other value as a float.
fn count<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    // Whole f64 values inside i64's range convert exactly.
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if v.fract() == 0.0 && v.abs() < I64_BOUND {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// A relative error to six decimal places (the precision the table's
/// percentages and the thresholds need): the f64 nearest the rounded
/// decimal, which serde_json writes back as that decimal's shortest form
/// (0.002111; 0.0 for 0.000000).
fn six_places<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    let rounded: f64 = format!("{v:.6}").parse().unwrap_or(*v);
    s.serialize_f64(rounded)
}

/// JSON of the comparison (`--json`), pretty-printed, ending in a newline.
pub fn to_json(cmp: &Comparison, spread: &[crate::spread::SpreadRow]) -> String {
    let doc = ComparisonJson {
        rows: cmp
            .rows
            .iter()
            .map(|r| RowJson { trace: &r.trace, policy: r.policy, counter: r.counter, kernel: r.kernel, model: r.sim, rel_err: r.rel })
            .collect(),
        signs: cmp
            .signs
            .iter()
            .map(|s| SignJson { trace: &s.trace, counter: s.counter, kernel_diff: s.kernel_diff, model_diff: s.sim_diff, agree: s.agree })
            .collect(),
        extra: cmp
            .extra
            .iter()
            .map(|(t, p, c, k, m, rel)| RowJson { trace: t, policy: p, counter: c, kernel: *k, model: *m, rel_err: *rel })
            .collect(),
        published: cmp
            .published
            .iter()
            .map(|r| RowJson { trace: &r.trace, policy: r.policy, counter: r.counter, kernel: r.kernel, model: r.sim, rel_err: r.rel })
            .collect(),
        cpu: cmp
            .cpu
            .iter()
            .map(|r| CpuJson { trace: &r.trace, policy: r.policy, figure: &r.figure, kernel: r.kernel, model: r.model })
            .collect(),
        spread: spread
            .iter()
            .map(|r| SpreadJson {
                trace: &r.trace,
                policy: r.policy,
                figure: &r.figure,
                runs: r.runs.iter().map(|&(kernel, model)| RunJson { kernel, model }).collect(),
                kernel_median: r.kernel_median,
                model_median: r.model_median,
                tolerance: r.tolerance,
                verdict: match (r.ok, r.exempt) {
                    (true, _) => "ok",
                    (false, true) => "known deviation",
                    (false, false) => "outside",
                },
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("structs of strings and numbers serialise");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn json_round_trip_of_a_result_shape() {
        let j = parse_json(r#"{"policy": "mglru", "vmstat": {"pgpgin": 1024, "x": -1.5e2}, "s": "a\"b\u00e9", "l": [1, true, null]}"#).unwrap();
        assert_eq!(j.get("policy").unwrap().str(), Some("mglru"));
        assert_eq!(j.get("vmstat").unwrap().get("x").unwrap().num(), Some(-150.0));
        assert_eq!(j.get("s").unwrap().str(), Some("a\"bé"));
        assert!(parse_json("{\"a\": }").is_err());
    }
    #[test]
    fn start_zones_become_the_model_zones() {
        let z = |name: &str, free: u64, managed: u64, prot: &str| {
            format!(r#"{{"name": "{name}", "free": {free}, "min": 23, "low": 28, "high": 33, "managed": {managed}, "protection": [{prot}]}}"#)
        };
        let text = format!(
            r#"{{"start_zones": [{}, {}, {}, {}]}}"#,
            z("DMA", 3808, 3840, "0, 373, 373, 373, 373"),
            z("DMA32", 46220, 98464, "0, 0, 0, 0, 0"),
            z("Normal", 0, 0, "0, 0, 0, 0, 0"),
            z("Movable", 0, 0, "0, 0, 0, 0, 0")
        );
        let zones = parse_start_zones(&parse_json(&text).unwrap()).unwrap().unwrap();
        assert_eq!(zones[0], ZoneSpec { pages: 3808, managed: 3840, wmark: Some([23, 28, 33]), lowmem_reserve: Some(373), pcp: 0, layout: None });
        assert_eq!((zones[1].pages, zones[1].managed, zones[1].lowmem_reserve), (46220, 98464, Some(0)));
        assert_eq!(zones[2].pages, 0);
        // A populated zone the model lacks is an error naming it.
        let bad = format!(r#"{{"start_zones": [{}]}}"#, z("Movable", 10, 100, "0"));
        let e = parse_start_zones(&parse_json(&bad).unwrap()).unwrap_err();
        assert!(e.contains("Movable") && e.contains("100 managed"), "{e}");
        let missing = r#"{"start_zones": [{"name": "DMA", "free": 1, "managed": 2, "protection": []}]}"#;
        let e = parse_start_zones(&parse_json(missing).unwrap()).unwrap_err();
        assert!(e.contains("DMA") && e.contains("\"min\""), "{e}");
        assert_eq!(parse_start_zones(&parse_json("{}").unwrap()).unwrap(), None);
        // The pages on the per-CPU lists at the start are the model's
        // too, on its lists; the replayer's growth (Unevictable) is not.
        let with_pcp = r#"{"start_zones": [
              {"name": "DMA", "free": 3808, "min": 23, "low": 28, "high": 33, "managed": 3840, "protection": [0], "pcp": 0},
              {"name": "DMA32", "free": 46220, "min": 612, "low": 765, "high": 918, "managed": 98464, "protection": [0], "pcp": 1466}],
            "end_zones": [{"name": "DMA", "pcp": 44}, {"name": "DMA32", "pcp": 471}],
            "meminfo_start": {"Unevictable": 11996}, "meminfo_end": {"Unevictable": 12584}}"#;
        let zones = parse_start_zones(&parse_json(with_pcp).unwrap()).unwrap().unwrap();
        assert_eq!((zones[0].pages, zones[0].pcp), (3808, 0));
        assert_eq!((zones[1].pages, zones[1].pcp), (46220 + 1466 - 147, 1466));
    }

    #[test]
    fn migratetypes_runs_say_how_the_zones_start() {
        let mut cmp = Comparison { platform: None, times: vec![], kswapd: vec![], rows: vec![], signs: vec![], missing: vec![], meta: vec![], extra: vec![], published: vec![], cpu: vec![], layouts: vec![] };
        assert!(!render(&cmp, None).contains("--migratetypes"));
        cmp.layouts.push("g.mglru: the result has no pagetypeinfo_start: every pageblock Movable, free memory in whole chunks".into());
        let text = render(&cmp, None);
        assert!(text.contains("--migratetypes: the global-pressure traces' zones at the start"), "{text}");
        assert!(text.contains("  g.mglru: the result has no pagetypeinfo_start"), "{text}");
    }

    #[test]
    fn pagetypeinfo_becomes_the_zones_layout() {
        let free = |v: [u32; 11]| format!("{v:?}");
        let zero = free([0; 11]);
        let zone = |name: &str, blocks: [u32; 5], movable: &str, extra: &str| {
            format!(
                r#""{name}": {{"node": 0, "blocks": {{"Unmovable": {}, "Movable": {}, "Reclaimable": {}, "HighAtomic": {}, "Isolate": {}}},
                   "free": {{"Unmovable": {zero}, "Movable": {movable}, "Reclaimable": {zero}, "HighAtomic": {extra}, "Isolate": {zero}}}}}"#,
                blocks[0], blocks[1], blocks[2], blocks[3], blocks[4]
            )
        };
        let doc = |zones: String| format!(r#"{{"pagetypeinfo_start": {{"pageblock_order": 9, "zones": {{{zones}}}}}}}"#);
        let good = doc(zone("DMA32", [95, 115, 6, 0, 0], &free([1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 43]), &zero));
        let l = parse_pagetypeinfo(parse_json(&good).unwrap().get("pagetypeinfo_start")).unwrap().unwrap();
        let d = l[1].as_ref().unwrap();
        assert_eq!(d.blocks, [95, 115, 6]);
        let m = mglru_core::buddy::MIGRATE_MOVABLE;
        assert_eq!((d.free[m][10], d.free[m][0]), (43, 1));
        assert_eq!(d.free_pages(), 1 + 2 + 8 + 32 + 64 + 128 + 43 * 1024);
        assert!(l[0].is_none() && l[2].is_none());
        // Types the model lacks, zones it lacks, another pageblock order: errors naming them.
        let highatomic = doc(zone("DMA32", [95, 115, 6, 1, 0], &zero, &zero));
        let e = parse_pagetypeinfo(parse_json(&highatomic).unwrap().get("pagetypeinfo_start")).unwrap_err();
        assert!(e.contains("DMA32") && e.contains("HighAtomic"), "{e}");
        let movable_zone = doc(zone("Movable", [0, 1, 0, 0, 0], &zero, &zero));
        let e = parse_pagetypeinfo(parse_json(&movable_zone).unwrap().get("pagetypeinfo_start")).unwrap_err();
        assert!(e.contains("zone Movable"), "{e}");
        let order = good.replace("\"pageblock_order\": 9", "\"pageblock_order\": 10");
        let e = parse_pagetypeinfo(parse_json(&order).unwrap().get("pagetypeinfo_start")).unwrap_err();
        assert!(e.contains("pageblock_order"), "{e}");
        // Absent or null (older results, an unreadable file): no layout.
        assert_eq!(parse_pagetypeinfo(None).unwrap(), None);
        assert_eq!(parse_pagetypeinfo(Some(&Json::Null)).unwrap(), None);
    }
    #[test]
    fn known_deviations_have_their_own_limits() {
        let row = |trace: &str, rel: f64| Row { trace: trace.into(), policy: "mglru", counter: "pswpout", kernel: 10_000.0, sim: 10_000.0 * (1.0 + rel), rel };
        let sign = |trace: &str| SignRow { trace: trace.into(), counter: "pswpout", kernel_diff: -500.0, sim_diff: 100.0, agree: Some(false) };
        let cmp = |rows: Vec<Row>, signs: Vec<SignRow>| Comparison { platform: None, times: vec![], kswapd: vec![], rows, signs, missing: vec![], meta: vec![], extra: vec![], published: vec![], cpu: vec![], layouts: vec![] };
        let mut th = Thresholds { median: 1.0, max: 0.07, goal_median: 0.05, goal_max: 0.15, require_signs: true, trace_max: vec![], sign_exceptions: vec![], covers: None };
        let c = cmp(vec![row("a", 0.01), row("b", 0.20)], vec![sign("b")]);
        let e = check(&c, &th).unwrap_err();
        assert!(e.contains("20.00% exceeds 7.00% (b pswpout)") && e.contains("b pswpout: MGLRU-vs-classic"), "{e}");
        th.trace_max = vec![("b".into(), "mglru", 0.25)];
        th.sign_exceptions = vec![("b".into(), "pswpout".into())];
        assert_eq!(check(&c, &th), Ok(()));
        // The limit is for that trace and policy alone.
        let mut classic_b = row("b", 0.20);
        classic_b.policy = "classic";
        let e = check(&cmp(vec![classic_b], vec![]), &th).unwrap_err();
        assert!(e.contains("classic: max relative error 20.00% exceeds 7.00% (b pswpout)"), "{e}");
        // The exception is for that trace alone.
        let c = cmp(vec![row("a", 0.08), row("b", 0.20)], vec![sign("a")]);
        let e = check(&c, &th).unwrap_err();
        assert!(e.contains("(a pswpout)") && e.contains("a pswpout: MGLRU-vs-classic") && !e.contains("(b pswpout)"), "{e}");
    }
    #[test]
    fn threshold_entries_must_name_suite_traces_and_counters() {
        let dir = std::env::temp_dir().join(format!("mglru-th-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        std::fs::write(dir.join("traces/t1.trace.gz"), b"").unwrap();
        let base = r#""median_rel_err_max": 0.01, "max_rel_err_max": 0.1, "goal_median": 0.05, "goal_max": 0.15"#;
        let load = |extra: &str| {
            std::fs::write(dir.join("thresholds.json"), format!("{{{base}{extra}}}")).unwrap();
            load_thresholds(&dir)
        };
        let th = load(r#", "trace_max": {"t1": {"mglru": 0.2}}, "sign_exceptions": {"t1": ["pswpout"]}"#).unwrap();
        assert_eq!(th.trace_max, vec![("t1".to_string(), "mglru", 0.2)]);
        assert_eq!(th.sign_exceptions, vec![("t1".to_string(), "pswpout".to_string())]);
        let e = load(r#", "trace_max": {"gone": {"mglru": 0.2}}"#).unwrap_err();
        assert!(e.contains("trace_max names `gone`, which is not a trace"), "{e}");
        let e = load(r#", "trace_max": {"t1": {"mglru": 201}}"#).unwrap_err();
        assert!(e.contains("trace_max.t1.mglru must be a relative error above 0 and at most 200 (20000%)"), "{e}");
        let e = load(r#", "trace_max": {"t1": {"lru": 0.2}}"#).unwrap_err();
        assert!(e.contains("the policy must be mglru or classic"), "{e}");
        let e = load(r#", "sign_exceptions": {"t1": ["pgfault"]}"#).unwrap_err();
        assert!(e.contains("`pgfault` is not a published counter"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    #[test]
    fn the_guest_clock_is_linear_between_samples_and_adds_no_workload_costs() {
        let profile = [(10, 1_000), (20, 2_000), (20, 2_500), (40, 4_500), (50, 6_000)];
        // a sleep of 1,000 ns on line 44: lines 40..50 share the other 500 ns
        let sleeps = [(44, 1_000)];
        let mut c = GuestClock::new(&profile, &sleeps);
        assert_eq!(c.target(5), None);
        assert_eq!(c.target(10), Some(1_000));
        assert_eq!(c.target(15), Some(1_500));
        // two samples on one line: the later one counts
        assert_eq!(c.target(20), Some(2_500));
        assert_eq!(c.target(30), Some(3_500));
        assert_eq!(c.target(44), Some(4_700));
        assert_eq!(c.target(45), Some(5_750));
        assert_eq!(c.target(99), Some(6_000));
        let base = CostModel { disk_write: 7, swap_write: 9, scan: 11, op: 3, op_sys: 4, op_wait: 5, task_switch: 9, disk_read_sys: 6, write_new: 8, ..CostModel::default() };
        let g = guest_clock_costs(base);
        assert_eq!((g.op, g.mem_access, g.page_copy, g.minor_fault, g.disk_read, g.swap_read), (0, 0, 0, 0, 0, 0));
        assert_eq!((g.op_sys, g.op_wait, g.task_switch, g.disk_read_sys, g.write_new), (0, 0, 0, 0, 0));
        // kswapd's scanning is not in the guest's task clock: it keeps its
        // cost, and only the tasks' reclaim stops moving the clock.
        assert_eq!((g.disk_write, g.swap_write, g.scan, g.tasks_on_external_clock), (7, 9, 11, true));
    }

    #[test]
    fn the_json_reads_back_with_its_keys_and_numbers() {
        // The document's schema, read back strictly: an unknown or missing
        // key is an error.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Doc {
            rows: Vec<R>,
            signs: Vec<S>,
            extra: Vec<R>,
            #[serde(default)]
            published: Vec<R>,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct R {
            trace: String,
            policy: String,
            counter: String,
            kernel: serde_json::Number,
            model: serde_json::Number,
            rel_err: f64,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct S {
            trace: String,
            counter: String,
            kernel_diff: serde_json::Number,
            model_diff: serde_json::Number,
            agree: Option<bool>,
        }
        let odd = "a \"quoted\" trace\\é";
        let cmp = Comparison {
            platform: None,
            times: vec![],
            kswapd: vec![],
            rows: vec![
                Row { trace: odd.into(), policy: "mglru", counter: "pgpgin", kernel: 95684.0, sim: 95616.0, rel: rel_err(95616.0, 95684.0, 1024.0) },
                Row { trace: "t".into(), policy: "classic", counter: "pswpin", kernel: 0.0, sim: 0.0, rel: 0.0 },
            ],
            signs: vec![
                SignRow { trace: "t".into(), counter: "pgpgin", kernel_diff: -782.0, sim_diff: 12.5, agree: None },
                SignRow { trace: "t".into(), counter: "pswpin", kernel_diff: 300.0, sim_diff: -4.0, agree: Some(false) },
            ],
            missing: vec![],
            meta: vec![],
            layouts: vec!["t.mglru: zones laid out from the result's pagetypeinfo_start".into()],
            extra: vec![("t".into(), "classic", "nr_free_pages".into(), 172989.0, 114822.0, rel_err(114822.0, 172989.0, 256.0))],
            published: vec![Row { trace: "t".into(), policy: "mglru", counter: "pgactivate", kernel: 329.0, sim: 42.0, rel: rel_err(42.0, 329.0, 256.0) }],
            cpu: vec![],
        };
        let text = to_json(&cmp, &[]);
        // The published rows, after the extra ones; the text summarises
        // them per counter: (329 - 42) / 329 = 87.2 %.
        assert!(text.find("\"extra\":").unwrap() < text.find("\"published\":").unwrap(), "{text}");
        assert!(text.contains("\"counter\": \"pgactivate\""), "{text}");
        let rendered = render(&cmp, None);
        assert!(rendered.lines().any(|l| l.starts_with("pgactivate") && l.contains("87.2%") && l.contains("t: 329, 42")), "{rendered}");
        assert!(text.ends_with("}\n"), "{text}");
        let doc: Doc = serde_json::from_str(&text).unwrap();
        assert_eq!((doc.rows.len(), doc.signs.len(), doc.extra.len(), doc.published.len()), (2, 2, 1, 1));
        let pr = &doc.published[0];
        assert_eq!((pr.counter.as_str(), pr.kernel.as_u64(), pr.model.as_u64(), pr.rel_err), ("pgactivate", Some(329), Some(42), 0.87234));
        let r = &doc.rows[0];
        assert_eq!((r.trace.as_str(), r.policy.as_str(), r.counter.as_str()), (odd, "mglru", "pgpgin"));
        // Whole counters stay integers; errors keep six decimal places.
        assert_eq!((r.kernel.as_u64(), r.model.as_u64(), r.rel_err), (Some(95684), Some(95616), 0.000711));
        assert_eq!((doc.rows[1].kernel.as_u64(), doc.rows[1].rel_err), (Some(0), 0.0));
        let (s0, s1) = (&doc.signs[0], &doc.signs[1]);
        assert_eq!((s0.trace.as_str(), s0.counter.as_str()), ("t", "pgpgin"));
        assert_eq!((s0.kernel_diff.as_i64(), s0.model_diff.as_f64(), s0.agree), (Some(-782), Some(12.5), None));
        assert!(!s0.model_diff.is_i64() && !s0.model_diff.is_u64());
        assert_eq!((s1.counter.as_str(), s1.kernel_diff.as_i64(), s1.model_diff.as_i64(), s1.agree), ("pswpin", Some(300), Some(-4), Some(false)));
        let x = &doc.extra[0];
        assert_eq!((x.trace.as_str(), x.policy.as_str(), x.counter.as_str()), ("t", "classic", "nr_free_pages"));
        assert_eq!((x.kernel.as_u64(), x.model.as_u64(), x.rel_err), (Some(172989), Some(114822), 0.336247));
        // The keys in the order the hand-written writer had them.
        let order = |obj: &str, keys: &[&str]| {
            let at: Vec<usize> = keys.iter().map(|k| obj.find(&format!("\"{k}\":")).unwrap_or_else(|| panic!("{k} in {obj}"))).collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{keys:?} out of order in {obj}");
        };
        order(&text, &["rows", "signs", "extra"]);
        let first = |key: &str| {
            let from = text.find(&format!("\"{key}\":")).unwrap();
            let open = from + text[from..].find('{').unwrap();
            text[open..open + text[open..].find('}').unwrap()].to_string()
        };
        order(&first("rows"), &["trace", "policy", "counter", "kernel", "model", "rel_err"]);
        order(&first("signs"), &["trace", "counter", "kernel_diff", "model_diff", "agree"]);
        order(&first("extra"), &["trace", "policy", "counter", "kernel", "model", "rel_err"]);
        // An empty comparison is three empty arrays.
        let empty = Comparison { platform: None, times: vec![], kswapd: vec![], rows: vec![], signs: vec![], missing: vec![], meta: vec![], extra: vec![], published: vec![], cpu: vec![], layouts: vec![] };
        let doc: Doc = serde_json::from_str(&to_json(&empty, &[])).unwrap();
        assert!(doc.rows.is_empty() && doc.signs.is_empty() && doc.extra.is_empty());
    }

    #[test]
    fn cpu_and_psi_figures_of_a_result() {
        let parse = |text: &str| parse_kernel_cpu(&parse_json(text).unwrap());
        // Recorded before the replayer measured PSI: no figures at all.
        assert_eq!(parse(r#"{"task_cpu_seconds": {"t": {"utime": 1, "stime": 2}}}"#), Ok(None));
        // A kernel without PSI: the tasks' times still count.
        assert_eq!(
            parse(r#"{"psi": null, "task_cpu_seconds": {"t": {"utime": 0.5, "stime": 2.25}, "k": null}}"#),
            Ok(Some(KernelCpu { tasks: vec![("k".into(), None), ("t".into(), Some((0.5, 2.25)))], psi_system: None, psi_memcg: vec![] }))
        );
        let full = parse(
            r#"{"psi": {"system": {"some_us": 7106683, "full_us": 6935105}, "memcg": {"db": {"some_us": 5, "full_us": 0}, "io": null}}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(full.psi_system, Some((7106683.0, 6935105.0)));
        assert_eq!(full.psi_memcg, vec![("db".into(), Some((5.0, 0.0))), ("io".into(), None)]);
        assert!(full.tasks.is_empty());
        // Malformed figures are errors that say what is expected.
        let e = parse(r#"{"psi": {"system": {"some_us": 1}}}"#).unwrap_err();
        assert!(e.contains("psi system") && e.contains("full_us"), "{e}");
        let e = parse(r#"{"psi": 3}"#).unwrap_err();
        assert!(e.contains("psi: must be an object"), "{e}");
        let e = parse(r#"{"psi": null, "task_cpu_seconds": {"t": {"utime": -1, "stime": 0}}}"#).unwrap_err();
        assert!(e.contains("task_cpu_seconds t"), "{e}");
    }

    #[test]
    fn allocstall_is_summed_over_zones() {
        let m = [("allocstall_dma32", 3.0), ("allocstall_movable", 189.0), ("allocstall_normal", 0.0), ("pgscan_direct", 7.0)];
        assert_eq!(allocstall_sum(m.iter().map(|&(k, v)| (k, v))), 192.0);
    }

    #[test]
    fn the_cpu_table_is_in_the_json_only_when_recorded() {
        let mut cmp = Comparison { platform: None, times: vec![], kswapd: vec![], rows: vec![], signs: vec![], missing: vec![], meta: vec![], extra: vec![], published: vec![], cpu: vec![], layouts: vec![] };
        assert!(!to_json(&cmp, &[]).contains("\"cpu\""));
        cmp.cpu = vec![
            CpuRow { trace: "t".into(), policy: "mglru", figure: "psi_some system".into(), kernel: None, model: 1.041 },
            CpuRow { trace: "t".into(), policy: "mglru", figure: "allocstall".into(), kernel: Some(189.0), model: 0.0 },
        ];
        let v: serde_json::Value = serde_json::from_str(&to_json(&cmp, &[])).unwrap();
        assert_eq!(v["cpu"][0]["kernel"], serde_json::Value::Null);
        assert_eq!(v["cpu"][0]["model"].as_f64(), Some(1.041));
        assert_eq!(v["cpu"][1]["figure"], "allocstall");
        assert_eq!((v["cpu"][1]["kernel"].as_u64(), v["cpu"][1]["model"].as_u64()), (Some(189), Some(0)));
        let text = render(&cmp, None);
        assert!(text.contains("shown, not checked"), "{text}");
        assert!(text.lines().any(|l| l.contains("psi_some system") && l.contains(" - ") && l.ends_with("1.041")), "{text}");
        assert!(text.lines().any(|l| l.contains("allocstall") && l.contains("189") && l.ends_with(" 0")), "{text}");
    }

    #[test]
    fn relative_error_uses_the_floor() {
        assert_eq!(rel_err(110.0, 100.0, 256.0), 10.0 / 256.0);
        assert_eq!(rel_err(1100.0, 1000.0, 256.0), 0.1);
        let mut v = vec![3.0, 1.0, 2.0, 10.0];
        assert_eq!(median(&mut v), 2.5);
    }
}

/// One row of `mglru validate --delta A:B`: a counter's change from
/// version A to B on the real kernels and in the model.
#[derive(Clone, Debug, PartialEq)]
pub struct DeltaRow {
    pub trace: String,
    pub policy: &'static str,
    pub counter: &'static str,
    pub kernel: (f64, f64),
    pub model: (f64, f64),
    pub verdict: &'static str,
}

/// The noise of a change between two single kernel runs: 5 % of the
/// larger kernel value, at least the counter's floor (256 pages, 1,024 KiB
/// for pgpgin/pgpgout). Fixed before looking at the model; where a
/// kernel's spread over repeated runs is measured it is the better bound
/// (not used yet).
pub fn delta_noise(counter: &str, a: f64, b: f64) -> f64 {
    (0.05 * a.abs().max(b.abs())).max(floor_of(counter))
}

/// Whether the model's change agrees with the kernel's: both inside the
/// noise, or both outside it with the same sign.
pub fn delta_verdict(counter: &str, kernel: (f64, f64), model: (f64, f64)) -> &'static str {
    let noise = delta_noise(counter, kernel.0, kernel.1);
    let (dk, dm) = (kernel.1 - kernel.0, model.1 - model.0);
    match (dk.abs() > noise, dm.abs() > noise) {
        (false, false) => "agree (no change)",
        (true, true) if dk.signum() == dm.signum() => "agree",
        (true, true) => "OPPOSITE",
        (true, false) => "model misses it",
        (false, true) => "model moves alone",
    }
}

/// `--delta A:B`: the suite's rows present in both versions' results.
pub fn delta_rows(a: &Comparison, b: &Comparison) -> Vec<DeltaRow> {
    let mut out = Vec::new();
    for rb in &b.rows {
        let Some(ra) = a.rows.iter().find(|r| r.trace == rb.trace && r.policy == rb.policy && r.counter == rb.counter) else {
            continue;
        };
        let (kernel, model) = ((ra.kernel, rb.kernel), (ra.sim, rb.sim));
        out.push(DeltaRow { trace: rb.trace.clone(), policy: rb.policy, counter: rb.counter, kernel, model, verdict: delta_verdict(rb.counter, kernel, model) });
    }
    out
}

/// The table of `--delta`, then per policy how many changes agree.
pub fn render_delta(rows: &[DeltaRow], a: KernelVersion, b: KernelVersion) -> String {
    let mut o = String::new();
    let (an, bn) = (a.name(), b.name());
    let _ = writeln!(o, "change from Linux {an} to Linux {bn}: the real kernels' (results-{an} -> results-{bn}) beside the model's");
    let _ = writeln!(o, "(noise: 5% of the larger kernel value, at least the counter's floor; one kernel run per version)\n");
    let _ = writeln!(o, "{:<30} {:<8} {:<26} {:>10} {:>10} {:>10} {:>10}  verdict", "trace", "policy", "counter", "kernel", "", "model", "");
    let _ = writeln!(o, "{:<30} {:<8} {:<26} {:>10} {:>10} {:>10} {:>10}", "", "", "", an, bn, an, bn);
    for r in rows {
        let _ = writeln!(
            o,
            "{:<30} {:<8} {:<26} {:>10} {:>10} {:>10} {:>10}  {}",
            r.trace, r.policy, r.counter, r.kernel.0, r.kernel.1, r.model.0, r.model.1, r.verdict
        );
    }
    o.push('\n');
    for p in ["mglru", "classic"] {
        let of: Vec<&DeltaRow> = rows.iter().filter(|r| r.policy == p).collect();
        if of.is_empty() {
            continue;
        }
        let agree = of.iter().filter(|r| r.verdict.starts_with("agree")).count();
        let moved_agree = of.iter().filter(|r| r.verdict == "agree").count();
        let kernel_moved = of.iter().filter(|r| (r.kernel.1 - r.kernel.0).abs() > delta_noise(r.counter, r.kernel.0, r.kernel.1)).count();
        let opposite = of.iter().filter(|r| r.verdict == "OPPOSITE").count();
        let _ = writeln!(
            o,
            "{p}: {agree} of {} changes agree; of the {kernel_moved} the kernel shows beyond noise, the model has {moved_agree} in the same direction, {opposite} opposite",
            of.len()
        );
    }
    o
}

/// The gate of `mglru validate --delta A:B --check`
/// (validation/delta-thresholds.json): per version pair, how many changes
/// must agree per policy and which OPPOSITE rows are known, each with why.
/// A regression gate where the model stands, not the goal.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeltaGateFile {
    #[allow(dead_code)]
    comment: String,
    #[serde(deserialize_with = "gate_pairs")]
    pairs: Vec<(String, DeltaGate)>,
}

/// One version pair's gate.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeltaGate {
    pub min_agree: MinAgree,
    pub known_opposite: Vec<KnownOpposite>,
}

/// The fewest rows per policy whose verdict is `agree` or
/// `agree (no change)`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinAgree {
    pub mglru: usize,
    pub classic: usize,
}

impl MinAgree {
    fn of(&self, policy: &str) -> usize {
        if policy == "mglru" {
            self.mglru
        } else {
            self.classic
        }
    }
}

/// A row whose model change is known to go the other way, and why.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownOpposite {
    pub trace: String,
    pub policy: String,
    pub counter: String,
    pub why: String,
}

/// `pairs` in the file's order, a pair given twice refused (a map would
/// keep the last one silently).
fn gate_pairs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, DeltaGate)>, D::Error> {
    struct Pairs;
    impl<'de> serde::de::Visitor<'de> for Pairs {
        type Value = Vec<(String, DeltaGate)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object of version pairs, e.g. {\"6.12:7.2\": {\"min_agree\": ..., \"known_opposite\": [...]}}")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
            let mut v: Vec<(String, DeltaGate)> = Vec::new();
            while let Some(k) = m.next_key::<String>()? {
                if v.iter().any(|(x, _)| *x == k) {
                    return Err(serde::de::Error::custom(format!("the pair `{k}` is given twice: keep one entry")));
                }
                let g = m.next_value::<DeltaGate>()?;
                v.push((k, g));
            }
            Ok(v)
        }
    }
    d.deserialize_map(Pairs)
}

/// The shape of the gate file, for error messages.
const DELTA_GATE_SHAPE: &str = "{\"comment\": TEXT, \"pairs\": {\"A:B\": {\"min_agree\": {\"mglru\": N, \"classic\": N}, \"known_opposite\": [{\"trace\": T, \"policy\": P, \"counter\": C, \"why\": TEXT}]}}}";

/// The gate of the pair `a:b` in `file`, every pair of which is checked:
/// names are the suite's traces (DIR/traces), `mglru` or `classic`, the
/// published counters; pair keys are two different versions as
/// `--kernel` names them; every `why` says something.
pub fn load_delta_gate(file: &Path, dir: &Path, a: KernelVersion, b: KernelVersion) -> Result<DeltaGate, String> {
    let f = file.display();
    let text = std::fs::read_to_string(file).map_err(|e| {
        format!("{f}: {e} (the gate of --delta A:B --check; write it with validation/make_delta_gate.py, or name another with --delta-thresholds FILE)")
    })?;
    let gate: DeltaGateFile =
        serde_json::from_str(&text).map_err(|e| format!("{f}: {e}: the file must be {DELTA_GATE_SHAPE} (validation/make_delta_gate.py writes it)"))?;
    let traces = suite_traces(dir)?;
    for (key, g) in &gate.pairs {
        let at = format!("{f}: pairs.\"{key}\"");
        let (x, y) = key.split_once(':').ok_or_else(|| format!("{at}: a pair is two versions A:B, e.g. 6.12:7.2"))?;
        let (x, y) = (KernelVersion::parse(x).map_err(|e| format!("{at}: {e}"))?, KernelVersion::parse(y).map_err(|e| format!("{at}: {e}"))?);
        let canonical = format!("{}:{}", x.name(), y.name());
        if x == y {
            return Err(format!("{at}: the two versions are the same: a pair is two different versions"));
        }
        if *key != canonical {
            return Err(format!("{at}: write the pair as `{canonical}`"));
        }
        for (i, k) in g.known_opposite.iter().enumerate() {
            let at = format!("{at}.known_opposite[{i}]");
            if !traces.iter().any(|t| *t == k.trace) {
                return Err(format!("{at}.trace: `{}` is not a trace in {}/traces: remove or rename the entry", k.trace, dir.display()));
            }
            if k.policy != "mglru" && k.policy != "classic" {
                return Err(format!("{at}.policy: `{}`: the policy must be mglru or classic", k.policy));
            }
            if !COUNTERS.contains(&k.counter.as_str()) {
                return Err(format!("{at}.counter: `{}` is not a published counter ({})", k.counter, COUNTERS.join(", ")));
            }
            if k.why.trim().is_empty() {
                return Err(format!("{at}.why is empty: say why the model moves the other way (the mechanism, and where docs/FIDELITY.md lists it)"));
            }
            if g.known_opposite[..i].iter().any(|o| o.trace == k.trace && o.policy == k.policy && o.counter == k.counter) {
                return Err(format!("{at}: {} {} {} is listed twice: keep one entry", k.trace, k.policy, k.counter));
            }
        }
    }
    let want = format!("{}:{}", a.name(), b.name());
    match gate.pairs.into_iter().find(|(k, _)| *k == want) {
        Some((_, g)) => Ok(g),
        None => Err(format!(
            "{f}: no entry for the pair `{want}` in pairs: add one (python3 validation/make_delta_gate.py --pair {want} writes it where the model stands)"
        )),
    }
}

/// What `--delta A:B --check` found: failures (exit status 4), notes
/// (shown, not failing), and per policy the agreeing rows and the least
/// the gate asks.
#[derive(Debug, Default, PartialEq)]
pub struct DeltaCheck {
    pub failures: Vec<String>,
    pub notes: Vec<String>,
    pub agree: Vec<(&'static str, usize, usize)>,
}

/// Hold the rows of `--delta` to the pair's gate (`at` names the file and
/// pair in the messages, `an`/`bn` the versions): every OPPOSITE row must
/// be a known one, and per policy at least `min_agree` rows must agree. A
/// known row that is no longer OPPOSITE, and a count above the minimum,
/// are notes: the gate can be tightened.
pub fn check_delta(rows: &[DeltaRow], gate: &DeltaGate, at: &str, an: &str, bn: &str) -> DeltaCheck {
    let mut c = DeltaCheck::default();
    let known = |r: &DeltaRow| gate.known_opposite.iter().any(|k| k.trace == r.trace && k.policy == r.policy && k.counter == r.counter);
    for r in rows.iter().filter(|r| r.verdict == "OPPOSITE" && !known(r)) {
        c.failures.push(format!(
            "{} {} {}: the model's change is OPPOSITE the kernel's (kernel {an} {} -> {bn} {}, model {} -> {}), and {at} does not list it in known_opposite: \
             fix the model, or add the row there with why",
            r.trace, r.policy, r.counter, r.kernel.0, r.kernel.1, r.model.0, r.model.1
        ));
    }
    for k in &gate.known_opposite {
        let now = rows.iter().find(|r| r.trace == k.trace && r.policy == k.policy && r.counter == k.counter).map(|r| r.verdict);
        match now {
            Some("OPPOSITE") => {}
            Some(v) => c.notes.push(format!("{} {} {}: no longer opposite (now: {v}): remove it from {at} known_opposite", k.trace, k.policy, k.counter)),
            None => c.notes.push(format!("{} {} {}: no row in the table (no results on both kernels): remove it from {at} known_opposite", k.trace, k.policy, k.counter)),
        }
    }
    for p in ["mglru", "classic"] {
        let n = rows.iter().filter(|r| r.policy == p && r.verdict.starts_with("agree")).count();
        let min = gate.min_agree.of(p);
        c.agree.push((p, n, min));
        if n < min {
            c.failures.push(format!(
                "{p}: {n} changes agree, fewer than min_agree.{p} {min} in {at}: a regression (the table shows which rows moved); \
                 if it is meant, lower min_agree with the reason (validation/make_delta_gate.py)"
            ));
        } else if n > min {
            c.notes.push(format!("{p}: {n} changes agree, more than min_agree.{p} {min}: raise it in {at} (validation/make_delta_gate.py)"));
        }
    }
    c
}

#[cfg(test)]
mod delta_tests {
    use super::*;

    #[test]
    fn a_change_agrees_when_both_move_the_same_way_or_neither_moves() {
        assert_eq!(delta_verdict("pswpout", (1000.0, 2000.0), (1100.0, 1900.0)), "agree");
        assert_eq!(delta_verdict("pswpout", (1000.0, 2000.0), (1900.0, 1100.0)), "OPPOSITE");
        // 5 % of 10,000 is 500: a 300 change is noise.
        assert_eq!(delta_verdict("pswpout", (10_000.0, 10_300.0), (9_000.0, 9_100.0)), "agree (no change)");
        assert_eq!(delta_verdict("pswpout", (10_000.0, 10_300.0), (9_000.0, 12_000.0)), "model moves alone");
        assert_eq!(delta_verdict("pswpout", (10_000.0, 20_000.0), (9_000.0, 9_100.0)), "model misses it");
        // Below the 256-page floor nothing counts as a change.
        assert_eq!(delta_verdict("pswpout", (0.0, 200.0), (0.0, 0.0)), "agree (no change)");
    }

    fn drow(trace: &str, policy: &'static str, counter: &'static str, verdict: &'static str) -> DeltaRow {
        DeltaRow { trace: trace.into(), policy, counter, kernel: (1000.0, 2000.0), model: (1900.0, 1100.0), verdict }
    }

    fn known(trace: &str, policy: &str, counter: &str) -> KnownOpposite {
        KnownOpposite { trace: trace.into(), policy: policy.into(), counter: counter.into(), why: "a reason".into() }
    }

    #[test]
    fn the_delta_gate_fails_on_an_unlisted_opposite_and_too_few_agreements() {
        let rows = vec![
            drow("t1", "mglru", "pswpout", "OPPOSITE"),
            drow("t1", "mglru", "pgscan_file", "agree"),
            drow("t1", "mglru", "pgpgin", "agree (no change)"),
            drow("t1", "mglru", "pswpin", "model misses it"),
            drow("t1", "classic", "pswpout", "agree"),
            drow("t1", "classic", "pgpgin", "model moves alone"),
        ];
        let at = "g.json pairs.\"6.12:7.2\"";
        // Where the model stands: the opposite is known, 2 and 1 agree.
        let mut gate = DeltaGate { min_agree: MinAgree { mglru: 2, classic: 1 }, known_opposite: vec![known("t1", "mglru", "pswpout")] };
        let c = check_delta(&rows, &gate, at, "6.12", "7.2");
        assert_eq!(c, DeltaCheck { failures: vec![], notes: vec![], agree: vec![("mglru", 2, 2), ("classic", 1, 1)] });
        // The opposite row unlisted: a failure naming it with its figures.
        gate.known_opposite.clear();
        let c = check_delta(&rows, &gate, at, "6.12", "7.2");
        assert_eq!(c.failures.len(), 1, "{c:?}");
        assert!(c.failures[0].starts_with("t1 mglru pswpout: the model's change is OPPOSITE the kernel's (kernel 6.12 1000 -> 7.2 2000, model 1900 -> 1100)"), "{c:?}");
        assert!(c.failures[0].contains("g.json pairs.\"6.12:7.2\" does not list it in known_opposite"), "{c:?}");
        // Listed under another policy or counter is not listed.
        gate.known_opposite = vec![known("t1", "classic", "pswpout"), known("t1", "mglru", "pswpin")];
        let c = check_delta(&rows, &gate, at, "6.12", "7.2");
        assert_eq!(c.failures.len(), 1, "{c:?}");
        // ... and those two are notes: no longer opposite, not failures.
        assert_eq!(c.notes.len(), 2, "{c:?}");
        assert!(c.notes[0].starts_with("t1 classic pswpout: no longer opposite (now: agree): remove it from g.json"), "{c:?}");
        assert!(c.notes[1].contains("(now: model misses it)"), "{c:?}");
        // Too few agreements: both numbers; more than asked: a note.
        gate.known_opposite = vec![known("t1", "mglru", "pswpout"), known("t2", "mglru", "pswpout")];
        gate.min_agree = MinAgree { mglru: 3, classic: 0 };
        let c = check_delta(&rows, &gate, at, "6.12", "7.2");
        assert_eq!(c.failures.len(), 1, "{c:?}");
        assert!(c.failures[0].starts_with("mglru: 2 changes agree, fewer than min_agree.mglru 3 in g.json"), "{c:?}");
        assert!(c.notes.iter().any(|n| n.starts_with("t2 mglru pswpout: no row in the table")), "{c:?}");
        assert!(c.notes.iter().any(|n| n.starts_with("classic: 1 changes agree, more than min_agree.classic 0")), "{c:?}");
        assert_eq!(c.agree, vec![("mglru", 2, 3), ("classic", 1, 0)]);
    }

    #[test]
    fn the_delta_gate_file_is_checked_name_by_name() {
        let dir = std::env::temp_dir().join(format!("mglru-delta-gate-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        std::fs::write(dir.join("traces/t1.trace.gz"), b"").unwrap();
        let file = dir.join("delta-thresholds.json");
        let (v612, v72) = (KernelVersion::V6_12, KernelVersion::V7_2);
        let load = |text: &str| {
            std::fs::write(&file, text).unwrap();
            load_delta_gate(&file, &dir, v612, v72)
        };
        let ko = |t: &str, p: &str, c: &str, w: &str| format!(r#"{{"trace": "{t}", "policy": "{p}", "counter": "{c}", "why": "{w}"}}"#);
        let doc = |key: &str, known: &str| {
            format!(r#"{{"comment": "c", "pairs": {{"{key}": {{"min_agree": {{"mglru": 5, "classic": 4}}, "known_opposite": [{known}]}}}}}}"#)
        };
        let g = load(&doc("6.12:7.2", &ko("t1", "mglru", "pswpout", "because"))).unwrap();
        assert_eq!(g.min_agree, MinAgree { mglru: 5, classic: 4 });
        assert_eq!(g.known_opposite, vec![KnownOpposite { trace: "t1".into(), policy: "mglru".into(), counter: "pswpout".into(), why: "because".into() }]);
        let err = |text: &str| load(text).unwrap_err();
        let f = file.display().to_string();
        let e = err(&doc("6.12:7.2", &ko("gone", "mglru", "pswpout", "w")));
        assert!(e.starts_with(&format!("{f}: pairs.\"6.12:7.2\".known_opposite[0].trace: `gone` is not a trace in")), "{e}");
        let e = err(&doc("6.12:7.2", &ko("t1", "lru", "pswpout", "w")));
        assert!(e.contains("known_opposite[0].policy: `lru`: the policy must be mglru or classic"), "{e}");
        let e = err(&doc("6.12:7.2", &ko("t1", "mglru", "pgfault", "w")));
        assert!(e.contains("known_opposite[0].counter: `pgfault` is not a published counter"), "{e}");
        let e = err(&doc("6.12:7.2", &ko("t1", "mglru", "pswpout", " ")));
        assert!(e.contains("known_opposite[0].why is empty"), "{e}");
        let two = format!("{}, {}", ko("t1", "mglru", "pswpout", "a"), ko("t1", "mglru", "pswpout", "b"));
        assert!(err(&doc("6.12:7.2", &two)).contains("known_opposite[1]: t1 mglru pswpout is listed twice"));
        assert!(err(&doc("6.12-7.2", "")).contains("pairs.\"6.12-7.2\": a pair is two versions A:B"));
        assert!(err(&doc("6.12:9.9", "")).contains("pairs.\"6.12:9.9\": unknown kernel `9.9`"));
        assert!(err(&doc("7.2:7.2", "")).contains("the two versions are the same"));
        // The pair asked for is not in the file.
        let e = err(&doc("6.1:6.12", ""));
        assert!(e.starts_with(&format!("{f}: no entry for the pair `6.12:7.2` in pairs: add one")), "{e}");
        // Malformed: serde's message (the key, line and column) and the shape.
        let e = err(&doc("6.12:7.2", "").replace("min_agree", "min_agre"));
        assert!(e.starts_with(&format!("{f}: unknown field `min_agre`, expected `min_agree` or `known_opposite` at line 1")), "{e}");
        assert!(e.contains("the file must be {\"comment\": TEXT"), "{e}");
        let e = err(&doc("6.12:7.2", "").replace(r#""classic": 4"#, r#""classic": -4"#));
        assert!(e.contains("invalid value: integer `-4`"), "{e}");
        let e = err(&doc("6.12:7.2", "").replace(r#", "known_opposite": []"#, ""));
        assert!(e.contains("missing field `known_opposite`"), "{e}");
        let e = err(r#"{"comment": "c", "pairs": {"6.12:7.2": {"min_agree": {"mglru": 1, "classic": 1}, "known_opposite": []}, "6.12:7.2": {"min_agree": {"mglru": 1, "classic": 1}, "known_opposite": []}}}"#);
        assert!(e.contains("the pair `6.12:7.2` is given twice"), "{e}");
        let e = err("{\"comment\": \"c\", \"pairs\": {");
        assert!(e.starts_with(&f) && e.contains("EOF"), "{e}");
        let e = load_delta_gate(&dir.join("none.json"), &dir, v612, v72).unwrap_err();
        assert!(e.starts_with(&format!("{}: ", dir.join("none.json").display())) && e.contains("make_delta_gate.py"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
