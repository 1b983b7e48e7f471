// SPDX-License-Identifier: GPL-2.0-only
//! `--ftrace FUNC,...` and `--ftrace-event GROUP/EVENT,...`: how long
//! chosen kernel functions take during the workload (the function_graph
//! tracer limited to them by `set_ftrace_filter`) and the tracepoints
//! fired inside them — the per-stage timings the cost model's
//! calibration needs (docs/COST_MODEL.md, "The lru_lock").
//!
//! Before the workload the replayer checks each function against
//! `available_filter_functions` (a function the compiler inlined is not
//! there; it is listed in the result as `missing`, not an error unless
//! nothing is left to trace), sets the buffer, the filter and the tracer;
//! at the start it clears the buffer and turns tracing on; after the end
//! snapshot it reads the `trace` file and keeps, per function, its calls
//! and their total duration with the sums of the events' counts inside
//! them, and a record per return and per event (capped).
//!
//! Under QEMU's instruction counter (`run-kernel.sh --icount 0`) the
//! guest's nanosecond is one instruction, so durations are instruction
//! counts, whatever the host's load. That clock counts the instructions
//! of every vCPU: a function's duration includes what the other CPU ran
//! meanwhile, so a measurement wants the other CPU idle (one task).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::sysfs::{self, Json, Sys};
use crate::ReplayError;

/// Per-CPU trace buffer (KiB). A function_graph line is about 40 bytes
/// in the ring buffer; an overflow overwrites the oldest and shows in
/// the result's `overrun`.
pub const BUFFER_KB: u64 = 8192;

/// Records (returns and events) kept in the result.
pub const MAX_RECORDS: usize = 60_000;

/// Event fields summed per function (the vmscan events' counts).
const FIELDS: [&str; 4] = ["nr_scanned", "nr_taken", "nr_reclaimed", "nr_requested"];

/// One parsed line of function_graph output.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// `name() {`
    Open { cpu: u32, t_us: f64, name: String },
    /// `} /* name */` or a leaf `name();`, with its duration.
    Return { cpu: u32, t_us: f64, name: String, dur_ns: u64, leaf: bool },
    /// `/* event: fields */`
    Event { cpu: u32, t_us: f64, name: String, fields: Vec<(String, i64)> },
}

/// The duration column, e.g. `+ 12.345 us` (markers `+!#*@$` for long
/// ones): nanoseconds.
fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim().trim_start_matches(['+', '!', '#', '*', '@', '$']).trim();
    let num = s.strip_suffix("us")?.trim();
    let (whole, frac) = num.split_once('.').unwrap_or((num, "0"));
    let whole: u64 = whole.parse().ok()?;
    // 6.12 prints up to three decimals (fewer for long durations).
    if frac.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ns = frac.parse::<u64>().ok()? * 10u64.pow(3 - frac.len() as u32);
    whole.checked_mul(1000)?.checked_add(ns)
}

/// Parses a line printed with the options `funcgraph-abstime`,
/// `funcgraph-cpu`, `funcgraph-duration` and `funcgraph-tail` on:
/// `  123.456789 |   0) + 12.345 us   |  } /* shrink_folio_list */`.
pub fn parse_line(line: &str) -> Option<Line> {
    let mut parts = line.splitn(3, '|');
    let t_us = parts.next()?.trim().parse::<f64>().ok()? * 1e6;
    let mid = parts.next()?;
    let body = parts.next()?.trim();
    let (cpu, dur) = mid.split_once(')')?;
    let cpu: u32 = cpu.trim().parse().ok()?;
    if let Some(ev) = body.strip_prefix("/*") {
        let ev = ev.trim().trim_end_matches("*/").trim();
        let (name, rest) = ev.split_once(':').unwrap_or((ev, ""));
        let fields = rest
            .split_whitespace()
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                FIELDS.contains(&k).then(|| Some((k.to_string(), v.parse().ok()?)))?
            })
            .collect();
        return Some(Line::Event { cpu, t_us, name: name.trim().to_string(), fields });
    }
    if let Some(name) = body.strip_suffix("() {") {
        return Some(Line::Open { cpu, t_us, name: name.trim().to_string() });
    }
    let dur_ns = parse_duration(dur)?;
    if let Some(name) = body.strip_suffix("();") {
        return Some(Line::Return { cpu, t_us, name: name.trim().to_string(), dur_ns, leaf: true });
    }
    let tail = body.strip_prefix('}')?.trim();
    let name = tail.strip_prefix("/*")?.trim_end_matches("*/").trim();
    Some(Line::Return { cpu, t_us, name: name.to_string(), dur_ns, leaf: false })
}

/// A function's totals over the workload.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FuncTotals {
    pub calls: u64,
    pub total_ns: u64,
    /// Sums of the event fields seen while it was the innermost traced
    /// function on its CPU.
    pub fields: BTreeMap<String, i64>,
}

/// The trace file digested.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Digest {
    pub funcs: BTreeMap<String, FuncTotals>,
    /// Events seen outside every traced function, by name: count and
    /// field sums.
    pub events: BTreeMap<String, (u64, BTreeMap<String, i64>)>,
    /// `cpu t_us R name dur_ns k=v...` per return, `cpu t_us E name
    /// k=v...` per event, in the file's order, at most MAX_RECORDS.
    pub records: Vec<String>,
    pub records_dropped: u64,
    /// Lines that parsed as nothing known (banners, lost-event notes).
    pub other_lines: u64,
}

fn fields_text(f: &[(String, i64)]) -> String {
    f.iter().map(|(k, v)| format!(" {k}={v}")).collect()
}

/// Digests the `trace` file's text.
pub fn digest(text: &str) -> Digest {
    let mut d = Digest::default();
    // Per CPU: the open functions, innermost last, each with the event
    // fields seen inside it.
    let mut stacks: BTreeMap<u32, Vec<(String, BTreeMap<String, i64>)>> = BTreeMap::new();
    let push = |d: &mut Digest, r: String| {
        if d.records.len() < MAX_RECORDS {
            d.records.push(r);
        } else {
            d.records_dropped += 1;
        }
    };
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            None => d.other_lines += 1,
            Some(Line::Open { cpu, name, .. }) => {
                stacks.entry(cpu).or_default().push((name, BTreeMap::new()));
            }
            Some(Line::Event { cpu, t_us, name, fields }) => {
                let rec = format!("{cpu} {t_us:.0} E {name}{}", fields_text(&fields));
                push(&mut d, rec);
                let stack = stacks.entry(cpu).or_default();
                let sums = match stack.last_mut() {
                    Some((_, sums)) => sums,
                    None => {
                        let e = d.events.entry(name).or_default();
                        e.0 += 1;
                        &mut e.1
                    }
                };
                for (k, v) in fields {
                    *sums.entry(k).or_default() += v;
                }
            }
            Some(Line::Return { cpu, t_us, name, dur_ns, leaf }) => {
                let mut inner = BTreeMap::new();
                if !leaf {
                    let stack = stacks.entry(cpu).or_default();
                    // The trace may have lost the opening (buffer wrap):
                    // close up to the matching name, if it is there.
                    if let Some(pos) = stack.iter().rposition(|(n, _)| *n == name) {
                        for (_, sums) in stack.drain(pos..) {
                            for (k, v) in sums {
                                *inner.entry(k).or_default() += v;
                            }
                        }
                    }
                }
                let list: Vec<(String, i64)> = inner.iter().map(|(k, v)| (k.clone(), *v)).collect();
                push(&mut d, format!("{cpu} {t_us:.0} R {name} {dur_ns}{}", fields_text(&list)));
                let f = d.funcs.entry(name).or_default();
                f.calls += 1;
                f.total_ns += dur_ns;
                for (k, v) in inner {
                    *f.fields.entry(k).or_default() += v;
                }
            }
        }
    }
    d
}

/// What was asked for.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub funcs: Vec<String>,
    pub events: Vec<String>,
}

/// Set up before the start snapshot.
pub struct Tracer {
    dir: PathBuf,
    sys: Sys,
    traced: Vec<String>,
    missing: Vec<String>,
    events: Vec<String>,
}

/// What the tracer found, for the result.
pub struct Report {
    traced: Vec<String>,
    missing: Vec<String>,
    events: Vec<String>,
    overrun: Vec<(u32, u64)>,
    digest: Digest,
    /// Why the trace could not be read (the result then has no records).
    error: Option<String>,
}

impl Tracer {
    pub fn setup(sys: &Sys, req: &Request) -> Result<Tracer, ReplayError> {
        let dir = crate::extfrag::find_tracefs(sys, "--ftrace")?;
        let w = |rel: &str, v: &str| crate::extfrag::write_traced(sys, &dir, rel, v);
        w("tracing_on", "0")?;
        w("current_tracer", "nop")?;
        w("trace_clock", "local")?;
        w("buffer_size_kb", &BUFFER_KB.to_string())?;
        let avail = sysfs::read_opt(&dir.join("available_filter_functions"))?.unwrap_or_default();
        let avail: std::collections::HashSet<&str> =
            avail.lines().filter_map(|l| l.split_whitespace().next()).collect();
        let (traced, missing): (Vec<String>, Vec<String>) =
            req.funcs.iter().cloned().partition(|f| avail.contains(f.as_str()));
        for e in &req.events {
            if !dir.join("events").join(e).is_dir() {
                return Err(ReplayError::usage(format!(
                    "--ftrace-event {e}: no such event under {}/events (give GROUP/EVENT, e.g. vmscan/mm_vmscan_lru_isolate)",
                    dir.display()
                )));
            }
        }
        if traced.is_empty() {
            // The events are read from the function_graph tracer's output.
            return Err(ReplayError::usage(if req.funcs.is_empty() {
                "--ftrace-event needs --ftrace FUNC,... (the events are recorded with the function_graph tracer)".to_string()
            } else {
                format!(
                    "--ftrace: none of {} is in available_filter_functions (inlined or not traceable)",
                    req.funcs.join(",")
                )
            }));
        }
        // The filter parser takes one name per write (a longer write
        // comes back short); opened with truncation the old filter goes.
        let path = dir.join("set_ftrace_filter");
        if sys.is_fake() {
            sys.write_or_err(&path, &traced.join(" "))?;
        } else {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&path)
                .and_then(|mut f| f.write_all(traced.join(" ").as_bytes()))
                .map_err(|e| ReplayError::system(format!("cannot write the filter to {}: {e}", path.display())))?;
        }
        for (opt, v) in [
            ("funcgraph-abstime", "1"),
            ("funcgraph-cpu", "1"),
            ("funcgraph-duration", "1"),
            ("funcgraph-overhead", "1"),
            ("funcgraph-tail", "1"),
            ("funcgraph-proc", "0"),
            ("funcgraph-irqs", "0"),
            // A function's time without the time its task was
            // scheduled out (the functions timed so far never sleep).
            ("sleep-time", "0"),
        ] {
            w(&format!("options/{opt}"), v)?;
        }
        w("current_tracer", "function_graph")?;
        Ok(Tracer { dir, sys: sys.clone(), traced, missing, events: req.events.clone() })
    }

    /// At the workload's start: an empty buffer, the events on, tracing on.
    pub fn start(&mut self) -> Result<(), ReplayError> {
        crate::extfrag::clear_trace(&self.sys, &self.dir)?;
        let w = |rel: &str, v: &str| crate::extfrag::write_traced(&self.sys, &self.dir, rel, v);
        for e in &self.events {
            w(&format!("events/{e}/enable"), "1")?;
        }
        w("tracing_on", "1")
    }

    /// After the end snapshot: stop, read, put the tracer back.
    pub fn stop(&mut self) -> Report {
        let w = |rel: &str, v: &str| {
            let _ = self.sys.write(&self.dir.join(rel), v);
        };
        w("tracing_on", "0");
        for e in &self.events {
            w(&format!("events/{e}/enable"), "0");
        }
        // Bytes, not text: a task name may hold anything.
        let (digest, error) = match std::fs::read(self.dir.join("trace")) {
            Ok(bytes) => (digest(&String::from_utf8_lossy(&bytes)), None),
            Err(e) => (Digest::default(), Some(format!("cannot read {}/trace: {e}", self.dir.display()))),
        };
        let overrun = crate::extfrag::read_cpu_overruns(&self.dir).into_iter().map(|(cpu, o, _)| (cpu, o)).collect();
        w("current_tracer", "nop");
        w("set_ftrace_filter", "");
        Report {
            traced: self.traced.clone(),
            missing: self.missing.clone(),
            events: self.events.clone(),
            overrun,
            digest,
            error,
        }
    }
}

impl Report {
    /// Writes the `ftrace` member of the result.
    pub fn json(&self, j: &mut Json) {
        j.begin_obj(Some("ftrace"));
        j.int("buffer_size_kb", BUFFER_KB);
        if let Some(e) = &self.error {
            j.str("error", e);
        }
        for (k, v) in [("functions", &self.traced), ("missing", &self.missing), ("events", &self.events)] {
            j.begin_arr(k);
            for s in v {
                j.elem_str(s);
            }
            j.end_arr();
        }
        j.begin_arr("overrun");
        for (cpu, n) in &self.overrun {
            j.begin_obj(None);
            j.int("cpu", *cpu);
            j.int("overrun", *n);
            j.end_obj();
        }
        j.end_arr();
        j.begin_obj(Some("totals"));
        for (name, f) in &self.digest.funcs {
            j.begin_obj(Some(name));
            j.int("calls", f.calls);
            j.int("total_ns", f.total_ns);
            for (k, v) in &f.fields {
                j.int(k, *v);
            }
            j.end_obj();
        }
        j.end_obj();
        j.begin_obj(Some("events_outside"));
        for (name, (n, sums)) in &self.digest.events {
            j.begin_obj(Some(name));
            j.int("count", *n);
            for (k, v) in sums {
                j.int(k, *v);
            }
            j.end_obj();
        }
        j.end_obj();
        j.int("other_lines", self.digest.other_lines);
        j.int("records_dropped", self.digest.records_dropped);
        j.begin_arr("records");
        for r in &self.digest.records {
            j.elem_str(r);
        }
        j.end_arr();
        j.end_obj();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_keep_nanoseconds_and_markers() {
        assert_eq!(parse_duration("   3.427 us "), Some(3427));
        assert_eq!(parse_duration(" + 12.3 us"), Some(12300));
        assert_eq!(parse_duration(" ! 1234.567 us"), Some(1_234_567));
        assert_eq!(parse_duration("               "), None);
        assert_eq!(parse_duration(" 12345.67 us"), Some(12_345_670));
        assert_eq!(parse_duration(" 1.2é us"), None);
        assert_eq!(parse_duration(" 99999999999999999999.1 us"), None);
        assert_eq!(parse_duration(" 18446744073709552.1 us"), None);
    }

    #[test]
    fn nested_returns_carry_their_events() {
        let text = "\
# tracer: function_graph
  10.000001 |   0)               |  evict_folios() {
  10.000009 |   0)               |  /* mm_vmscan_lru_isolate: isolate_mode=0 classzone=3 order=0 nr_requested=64 nr_scanned=70 nr_skipped=0 nr_taken=60 lru=inactive_file */
  10.000010 |   0)   5.500 us    |  shrink_folio_list();
  10.000020 |   1)   1.000 us    |  move_folios_to_lru();
  10.000030 |   0) + 25.250 us   |  } /* evict_folios */
  10.000040 |   0)               |  /* mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=70 nr_reclaimed=50 */
 ------------------------------------------
";
        let d = digest(text);
        let e = &d.funcs["evict_folios"];
        assert_eq!((e.calls, e.total_ns), (1, 25_250));
        assert_eq!(e.fields["nr_scanned"], 70);
        assert_eq!(e.fields["nr_taken"], 60);
        assert_eq!(d.funcs["shrink_folio_list"].total_ns, 5_500);
        assert!(d.funcs["shrink_folio_list"].fields.is_empty());
        assert_eq!(d.funcs["move_folios_to_lru"].calls, 1);
        let (n, sums) = &d.events["mm_vmscan_lru_shrink_inactive"];
        assert_eq!((*n, sums["nr_reclaimed"]), (1, 50));
        assert_eq!(d.records.len(), 5);
        assert_eq!(d.records[0], "0 10000009 E mm_vmscan_lru_isolate nr_requested=64 nr_scanned=70 nr_taken=60");
        assert_eq!(d.records[4], "0 10000040 E mm_vmscan_lru_shrink_inactive nr_scanned=70 nr_reclaimed=50");
        assert_eq!(d.other_lines, 1);
    }
}
