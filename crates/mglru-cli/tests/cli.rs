// SPDX-License-Identifier: GPL-2.0-only
//! End-to-end tests of the `mglru` binary: bad input gets a clear error
//! naming the place, runs are deterministic, JSON has the promised shape.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mglru"))
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mglru-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const HEAD: &str = "memory 64M\nfile f size=1M\ntask t\nanon t heap size=1M\n";

/// Each class of bad input: exit status 1 and a message with file:line.
#[test]
fn bad_traces_name_the_line() {
    let cases = [
        ("unknown", "frobnicate t f 0\n", ":5:", "unknown statement"),
        ("badsize", "file g size=12Q\n", ":5:", "size"),
        ("undeftask", "read nobody f 0\n", ":5:", "task"),
        ("undeffile", "read t nofile 0\n", ":5:", "file"),
        ("undefregion", "load t noregion 0\n", ":5:", "region"),
        ("range", "read t f 250 10\n", ":5:", "out of range"),
        ("anonrange", "store t heap 256\n", ":5:", "out of range"),
    ];
    for (name, line, place, what) in cases {
        let p = tmp(&format!("{name}.trace"), &format!("{HEAD}{line}"));
        let o = run(&["run", p.to_str().unwrap(), "--quiet"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: exit status, stderr: {e}");
        assert!(e.contains(&format!("{name}.trace{place}")), "{name}: message must name the line: {e}");
        assert!(e.to_lowercase().contains(what), "{name}: message must say what is wrong ({what}): {e}");
        assert!(o.stdout.is_empty(), "{name}: no partial result on stdout");
    }
}

#[test]
fn bad_options_are_errors() {
    for (args, what) in [
        (vec!["run", "--frob"], "unexpected argument '--frob'"),
        (vec!["run", "--memroy", "1G"], "similar argument exists: '--memory'"),
        (vec!["run", "--memory", "12X"], "--memory"),
        (vec!["run", "--sysctl", "vm.swappiness=300"], "vm.swappiness"),
        (vec!["run", "--sysctl", "vm.nosuch=1"], "vm.nosuch"),
        (vec!["run", "--policy", "lru"], "--policy"),
        (vec!["run", "--cost", "warp=1"], "warp"),
        (vec!["frob"], "unrecognized subcommand 'frob'"),
        (vec!["run", "--memory", "1T"], "--memory 1T: the model holds at most"),
        (vec!["run", "--memory", "8M"], "--memory 8M: the model needs at least 16M of RAM"),
        (vec!["sweep", "--memory", "8M,64M"], "--memory 8M: the model needs at least 16M of RAM"),
        (vec!["compare", "--memory", "8M,64M"], "--memory 8M: the model needs at least 16M of RAM"),
        (vec!["run", "--swap", "2T"], "--swap 2T: the model holds at most"),
        (vec!["run", "--variant", "batch-aging", "--policy", "classic"], "multi-gen LRU only"),
        (vec!["run", "--workload", "--name=j --rw=randread --size=1G"], "--workload 'fio:--name=j --rw=randread --size=1G'"),
        (vec!["run", "--workload", "x", "--timeseries", "-", "--json", "-"], "standard output"),
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains(what), "{args:?}: {e}");
    }
    let o = run(&["run", "/nonexistent/trace"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/trace"));
}

#[test]
fn compare_runs_both_policies() {
    let o = run(&["compare", "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8(o.stdout).unwrap();
    assert!(s.contains("\"classic\": {") && s.contains("\"mglru\": {"));
    assert!(s.contains("\"policy\": \"classic\"") && s.contains("\"policy\": \"mglru\""));
    let o = run(&["compare", "--policy", "mglru"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["compare"]);
    assert!(o.status.success());
    let t = String::from_utf8(o.stdout).unwrap();
    assert!(t.starts_with("configuration") && t.contains("\ncounter ") && t.contains("workingset_refault_file"));
}

#[test]
fn lru_gen_enabled_in_the_trace_selects_the_policy() {
    let p = tmp("sel.trace", &format!("sysctl lru_gen.enabled=n\n{HEAD}read t f 0\n"));
    let o = run(&["run", p.to_str().unwrap(), "--json", "-"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"policy\": \"classic\""));
    let o = run(&["run", "--json", "-"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"policy\": \"mglru\""), "6.12's default is the MGLRU");
}

fn json_without_wall_clock(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap().lines().filter(|l| !l.contains("wall_seconds")).collect::<Vec<_>>().join("\n")
}

#[test]
fn default_run_is_deterministic_and_json_has_the_shape() {
    let a = json_without_wall_clock(&["run", "--json", "-"]);
    let b = json_without_wall_clock(&["run", "--json", "-"]);
    assert_eq!(a, b);
    for key in ["\"policy\": \"mglru\"", "\"kernel\": \"6.12\"", "\"vmstat\"", "\"workingset_refault_file\"", "\"memcg\"", "\"app\"", "\"stat\"", "\"current\"", "\"peak\"", "\"events\"", "\"sim\"", "\"operations\"", "\"page_accesses\"", "\"simulated_ns\""] {
        assert!(a.contains(key), "JSON lacks {key}");
    }
}

#[test]
fn binary_trace_gives_the_same_counters() {
    let text = tmp("conv.trace", &format!("{HEAD}read t f 0 64\nstore t heap 0 100\nload t heap 0 200\nsleep 1s\n"));
    let bin_path = text.with_extension("bin");
    let o = run(&["trace", "convert", text.to_str().unwrap(), bin_path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = json_without_wall_clock(&["run", text.to_str().unwrap(), "--json", "-"]);
    let b = json_without_wall_clock(&["run", bin_path.to_str().unwrap(), "--json", "-"]);
    assert_eq!(a, b);
}

#[test]
fn workload_generators_run_and_emit_traces() {
    let o = run(&["run", "--workload", "ebizzy:seq=16,loops=1", "--json", "-", "--policy", "classic"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"page_accesses\""));
    let out = std::env::temp_dir().join(format!("mglru-cli-test-{}-w.trace", std::process::id()));
    let o = run(&["workload", "ebizzy:seq=16,loops=1", "--emit-trace", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = json_without_wall_clock(&["run", out.to_str().unwrap(), "--json", "-"]);
    let b = json_without_wall_clock(&["run", "--workload", "ebizzy:seq=16,loops=1", "--json", "-"]);
    // Same operations either way (names of the input differ only).
    assert_eq!(a, b);
    let o = run(&["run", "--workload", "nosuch:x=1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nosuch"));
}

/// The progress bar: on a terminal (a pseudo-terminal made by util-linux
/// `script`), a run longer than a second draws it on stderr; with stderr
/// a pipe, nothing is drawn. Both runs last more than a second (the job's
/// length doubled on 2026-11-27, when the generator became twice as fast
/// and a release build's run fell to about 1.1 s).
#[test]
fn progress_bar_only_on_a_terminal() {
    let spec = "fio:--name=j --rw=randread --size=64M --buffered=1 --time_based --runtime=600s;memory=256M";
    let bin = env!("CARGO_BIN_EXE_mglru");
    let cmd = format!("{bin} run --workload '{spec}' --quiet");
    let t0 = std::time::Instant::now();
    let o = Command::new("script").args(["-qec", &cmd, "/dev/null"]).output().expect("util-linux script");
    let secs = t0.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tty = String::from_utf8_lossy(&o.stdout);
    assert!(secs > 1.2, "the run took only {secs:.2} s: make it longer");
    assert!(tty.contains("M ops/s"), "no progress bar on the terminal: {tty:?}");
    let o = run(&["run", "--workload", spec, "--quiet"]);
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ops/s"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--emit-trace -` writes the trace to standard output (no file named `-`).
#[test]
fn emit_trace_to_standard_output() {
    let o = run(&["workload", "ebizzy:seq=16,loops=1", "--emit-trace", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("# mglru-workload ebizzy"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("memory ")), "{out}");
    assert!(stderr(&o).contains("to standard output"), "{}", stderr(&o));
}

/// Every subcommand has its own help; `--version`, `help` (the old
/// spelling), completions and the man page work.
#[test]
fn help_version_completions_and_man() {
    for args in [vec!["--help"], vec!["-h"], vec!["help"], vec!["help", "run"], vec!["run", "--help"], vec!["compare", "-h"], vec!["validate", "--help"], vec!["trace", "convert", "--help"], vec![]] {
        let o = run(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(out.contains("Usage: mglru"), "{args:?}: {out}");
    }
    let o = run(&["run", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("--memory <SIZE[,SIZE]>") && out.contains("Exit status"), "{out}");
    let o = run(&["--version"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), format!("mglru {}", env!("CARGO_PKG_VERSION")));
    let o = run(&["completions", "bash"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("_mglru()"));
    let o = run(&["man"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains(".TH mglru"));
    // The built-in workload's first line points at a help that exists.
    let o = run(&["default-trace"]);
    let first = String::from_utf8_lossy(&o.stdout).lines().next().unwrap().to_string();
    assert!(first.contains("`mglru run --help`"), "{first}");
}

/// A reader that closes the pipe early ends mglru quietly.
#[test]
fn a_closed_pipe_is_no_error() {
    let bin = env!("CARGO_BIN_EXE_mglru");
    for sub in ["default-trace", "run", "compare"] {
        let o = Command::new("bash").args(["-c", &format!("set -o pipefail; {bin} {sub} | head -1")]).output().unwrap();
        assert!(o.status.success(), "{sub}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{sub}");
        assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    }
}

/// `-` is standard input for a trace and standard output for outputs.
#[test]
fn dash_is_stdin_and_stdout() {
    use std::io::Write;
    let text = format!("{HEAD}read t f 0 64\nstore t heap 0 100\n");
    let mut c = bin().args(["run", "-", "--json", "-"]).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let from_stdin: String = String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.contains("wall_seconds")).collect::<Vec<_>>().join("\n");
    let p = tmp("dash.trace", &text);
    let from_file = json_without_wall_clock(&["run", p.to_str().unwrap(), "--json", "-"]);
    assert_eq!(from_stdin, from_file);
    assert!(from_file.contains("\"schema_version\": 1"));
    // --timeseries - writes the CSV to standard output instead of the table.
    let o = run(&["run", p.to_str().unwrap(), "--timeseries", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("time_s,page_accesses,hits,cold_misses,workingset_refault_file"));
}

/// An output that cannot be written fails before the run, not after.
#[test]
fn an_unwritable_json_fails_first() {
    let o = run(&["run", "--json", "/nonexistent-dir/x.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--json /nonexistent-dir/x.json: cannot write there"), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the run must not have happened");
}

/// An empty trace is an error; a trace without accesses gets a warning.
#[test]
fn empty_traces_are_not_silent() {
    let p = tmp("empty.trace", "# nothing\n");
    let o = run(&["run", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("empty.trace: the trace is empty"), "{}", stderr(&o));
    let p = tmp("setup-only.trace", HEAD);
    let o = run(&["run", p.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("warning") && stderr(&o).contains("no page accesses"), "{}", stderr(&o));
}

fn vm(j: &serde_json::Value, n: &str) -> u64 {
    j["vmstat"][n].as_u64().unwrap_or_else(|| panic!("no {n}"))
}

/// The summary leads the table and is arithmetic on the counters the
/// JSON report carries; compare ends with a verdict that agrees with them.
#[test]
fn the_summary_and_verdict_follow_the_counters() {
    let dir = std::env::temp_dir().join(format!("mglru-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jp = dir.join("summary.json");
    let o = run(&["run", "--json", jp.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8(o.stdout).unwrap();
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&jp).unwrap()).unwrap();
    let acc = j["sim"]["page_accesses"].as_u64().unwrap() as f64;
    assert!(acc > 0.0);
    let refaults = (vm(&j, "workingset_refault_anon") + vm(&j, "workingset_refault_file")) as f64;
    let f = &j["figures"];
    let n = |k: &str| f[k].as_u64().unwrap_or_else(|| panic!("no figures.{k}"));
    let hit = 100.0 * (1.0 - (n("misses") + n("cold_misses")) as f64 / acc);
    // 6.12 counts swap bios in pgpgin: the pages read are pgpgin / 4.
    assert_eq!(n("pages_read"), vm(&j, "pgpgin") / 4);
    assert!(n("readahead_pages") + n("misses") + n("cold_misses") == n("pages_read"), "{f}");
    let line = |label: &str| t.lines().find(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("no {label} in {t}")).to_string();
    assert!(line("refaults per 1,000 accesses").ends_with(&format!(" {:.2}", refaults * 1000.0 / acc)), "{}", line("refaults per"));
    assert!(line("hit ratio").ends_with(&format!(" {hit:.1} %")), "{}", line("hit ratio"));
    assert!(line("OOM kills").ends_with(&format!(" {}", vm(&j, "oom_kill"))));
    let stall_us = j["memcg"]["root"]["pressure"]["some"]["total"].as_u64().unwrap();
    let sim_s = j["sim"]["simulated_ns"].as_u64().unwrap() as f64 / 1e9;
    let want = format!(" {:.3} s ({:.1} % of the time)", stall_us as f64 / 1e6, stall_us as f64 / 1e6 / sim_s * 100.0);
    assert!(line("memory stall (PSI some)").ends_with(&want), "{} (want {want})", line("memory stall"));
    assert!(t.starts_with("configuration\n  input") && t.contains("  RAM        512M (the trace)"), "{t}");
    assert!(t.find("summary").unwrap() < t.find("/proc/vmstat").unwrap(), "figures come before the raw counters");

    let jp = dir.join("verdict.json");
    let o = run(&["compare", "--json", jp.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8(o.stdout).unwrap();
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&jp).unwrap()).unwrap();
    let r = |p: &str| vm(&j[p], "workingset_refault_anon") + vm(&j[p], "workingset_refault_file");
    let (c, m) = (r("classic") as f64, r("mglru") as f64);
    let last = t.lines().last().unwrap();
    assert!(last.starts_with("Verdict: MGLRU against classic: "), "{last}");
    let pct = ((m - c) / c * 100.0).abs();
    let want = if pct < 0.5 { "about as many refaults".to_string() } else { format!("{pct:.0} % {} refaults", if m < c { "fewer" } else { "more" }) };
    assert!(last.contains(&want), "{last} (want {want})");
}

/// `mglru sweep`: the CSV is the same whatever --jobs, each row holds the
/// counters a lone `mglru run` of that configuration reports, and the
/// plots are real PNG and SVG files.
#[test]
fn sweep_rows_equal_single_runs_whatever_the_threads() {
    let dir = std::env::temp_dir().join(format!("mglru-cli-test-{}-sweep", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = "fio:--name=j --rw=randread --size=256M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=4s";
    let grid = ["--memory", "32M..160M/3", "--policy", "classic,mglru"];
    let csv = |jobs: &str| {
        let p = dir.join(format!("j{jobs}.csv"));
        let mut args = vec!["sweep", "--workload", spec, "--jobs", jobs, "--csv", p.to_str().unwrap(), "--quiet"];
        args.extend(grid);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(p).unwrap()
    };
    let one = csv("1");
    assert_eq!(one, csv("2"));
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(lines.len(), 7, "{one}");
    assert!(lines[0].starts_with("policy,memory,policy_run,page_accesses,hit_ratio,misses,miss_ratio,cold_misses,cold_miss_ratio,pages_read,readahead_pages,refaults"), "{}", lines[0]);
    assert!(lines[1].starts_with("classic,32M,classic,") && lines[6].starts_with("mglru,160M,mglru,"), "{one}");
    // Row 5 (mglru, 96M) against a lone run.
    let head: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[5].split(',').collect();
    let jp = dir.join("lone.json");
    let o = run(&["run", "--workload", spec, "--memory", "96M", "--policy", "mglru", "--json", jp.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&jp).unwrap()).unwrap();
    for c in ["pgpgin", "pswpin", "workingset_refault_file", "pgscan_file", "pgsteal_file", "oom_kill"] {
        let i = head.iter().position(|h| *h == c).unwrap();
        assert_eq!(row[i].parse::<u64>().unwrap(), vm(&j, c), "{c}");
    }
    assert!(vm(&j, "workingset_refault_file") > 0, "the grid must put the workload under pressure");
    // The table, and JSON on standard output.
    let mut args = vec!["sweep", "--workload", spec, "--json", "-"];
    args.extend(grid);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["schema_version"], 1);
    assert_eq!(j["rows"].as_array().unwrap().len(), 6);
    assert_eq!(j["rows"][4]["pgpgin"].as_u64().unwrap().to_string(), row[head.iter().position(|h| *h == "pgpgin").unwrap()]);
    // Plots.
    let plots = dir.join("plots");
    let mut args = vec!["sweep", "--workload", spec, "--plot", plots.to_str().unwrap()];
    args.extend(grid);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains(" policy  memory  hit %") && t.lines().count() >= 8, "{t}");
    for stem in ["miss_ratio", "refaults", "heatmap_miss_ratio"] {
        let png = std::fs::read(plots.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png");
        let svg = std::fs::read_to_string(plots.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("memory"), "{stem}.svg");
    }
}

#[test]
fn bad_sweeps_fail_before_running() {
    for (args, what) in [
        (vec!["sweep", "--memory", "256M..1G"], "A..B/N"),
        (vec!["sweep", "--memory", "1T,2T"], "--memory 1T: the model holds at most"),
        (vec!["sweep", "--policy", "classic", "--variant", "batch-aging"], "multi-gen LRU only"),
        (vec!["sweep", "--memcg", "web.max=1G"], "no memcg `web`"),
        (vec!["sweep", "--sysctl", "vm.swappiness=0,60,300"], "vm.swappiness"),
        (vec!["sweep", "--policy", "classic", "--plot", "/tmp/mglru-never"], "--plot draws curves"),
        (vec!["sweep", "--csv", "-", "--json", "-"], "standard output"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    let o = run(&["sweep", "--memory", "256M,512M", "--csv", "/nonexistent-dir/x.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--csv /nonexistent-dir/x.csv: cannot write there"));
}

/// `--cpus N` (the README's example): two tasks, the second defined on
/// CPU 1 by the round-robin placement; the JSON has the CPU count, each
/// task's CPU and CPU time, and each memcg's memory.pressure; the trace's
/// own `cpu=` beyond `--cpus` is an error naming the fix.
#[test]
fn cpus_option_places_tasks_and_reports_cpu_time_and_pressure() {
    let t = tmp("cpus.trace", "memory 64M\nfile f size=1M readahead=0\ntask a\ntask b\nread a f 0 8\nread b f 8 8\n");
    let o = run(&["run", t.to_str().unwrap(), "--cpus", "2", "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cpu"]["cpus"], 2);
    assert_eq!(v["cpu"]["tasks"]["a"]["cpu"], 0);
    assert_eq!(v["cpu"]["tasks"]["b"]["cpu"], 1);
    // 8 pages copied by read() each at the default page_copy (500 ns).
    assert_eq!(v["cpu"]["tasks"]["a"]["stime_ns"], 4000);
    assert_eq!(v["memcg"]["root"]["pressure"]["some"]["total"], 0);
    let t = tmp("cpus-bad.trace", "memory 64M\ntask a cpu=3\n");
    let o = run(&["run", t.to_str().unwrap(), "--cpus", "2"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cpu=3") && stderr(&o).contains("2 CPUs"), "{}", stderr(&o));
}

/// `--kswapd thread` (the README's example): on a 16M machine reading a
/// 64M file, kswapd is woken and, as a thread, sleeps short between its
/// runs, so a wake-up in the short sleep counts a low watermark hit
/// quickly; the default (`instant`) never sleeps short. A wrong value
/// names the valid ones.
#[test]
fn kswapd_option_selects_the_thread_model() {
    let t = tmp("kswapd.trace", "memory 16M\nfile f size=64M readahead=0\ntask t\nread t f 0 12000\n");
    let vm = |mode: &str| -> serde_json::Value {
        let o = run(&["run", t.to_str().unwrap(), "--kswapd", mode, "--policy", "classic", "--json", "-"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["vmstat"].clone()
    };
    let (thread, instant) = (vm("thread"), vm("instant"));
    assert!(thread["pageoutrun"].as_u64().unwrap() > 0);
    assert!(thread["kswapd_low_wmark_hit_quickly"].as_u64().unwrap() > 0, "{thread}");
    assert!(instant["pageoutrun"].as_u64().unwrap() > 0);
    assert_eq!(instant["kswapd_low_wmark_hit_quickly"], 0);
    let o = run(&["run", t.to_str().unwrap(), "--kswapd", "fast"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("instant") && stderr(&o).contains("thread"), "{}", stderr(&o));
}

/// `--schedule parallel`: two tasks on two CPUs whose lines alternate run
/// side by side, so the run is shorter in simulated time than serially
/// while each task's CPU time is the same; the JSON says which schedule
/// ran, the text echoes it; a wrong value names the valid ones.
#[test]
fn schedule_option_runs_tasks_side_by_side() {
    let mut text = String::from("memory 64M\ncpus 2\nfile f size=4M\ntask a cpu=0\ntask b cpu=1\nanon b r size=4M\n");
    for i in 0..8 {
        text += &format!("read a f {} 128\nstore b r {} 128\n", i * 128, i * 128);
    }
    let t = tmp("schedule.trace", &text);
    let json = |mode: &str| -> serde_json::Value {
        let o = run(&["run", t.to_str().unwrap(), "--schedule", mode, "--check", "--json", "-"]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (serial, par) = (json("serial"), json("parallel"));
    assert_eq!(serial["cpu"]["schedule"], "serial");
    assert_eq!(par["cpu"]["schedule"], "parallel");
    assert_eq!(serial["cpu"]["tasks"], par["cpu"]["tasks"], "the same CPU time per task");
    let ns = |v: &serde_json::Value| v["sim"]["simulated_ns"].as_u64().unwrap();
    assert!(ns(&par) < ns(&serial), "parallel {} < serial {}", ns(&par), ns(&serial));
    let o = run(&["run", t.to_str().unwrap(), "--schedule", "parallel"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("schedule   parallel"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(&["run", t.to_str().unwrap(), "--schedule", "concurrent"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("serial") && stderr(&o).contains("parallel"), "{}", stderr(&o));
}

/// `--guest-clock` of a result replayed with `mglru-replay --parallel`
/// runs the model in parallel unless `--schedule` says otherwise.
#[test]
fn a_parallel_replays_clock_runs_the_model_in_parallel() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let trace = root.join("traces/two-readers-two-cpus.trace.gz");
    let result = root.join("results-parallel/two-readers-two-cpus.mglru.json");
    let schedule = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["run", trace.to_str().unwrap(), "--policy", "mglru", "--guest-clock", result.to_str().unwrap(), "--json", "-"];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["cpu"]["schedule"].clone()
    };
    assert_eq!(schedule(&[]), "parallel");
    assert_eq!(schedule(&["--schedule", "serial"]), "serial");
}

/// A swap-in whose allocation OOM-kills the faulting task (a 64M memcg of
/// a 96M heap on a 128M machine whose swap is kept in RAM): the task's exit
/// freed the slot, so the new folio is put back, not left unmapped and out
/// of the swap cache (`--check` found such a folio before).
#[test]
fn swap_in_that_kills_its_own_task_leaves_no_stray_folio() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/traces/anon-uniform-swap.trace.gz");
    for policy in ["classic", "mglru"] {
        let o = run(&["run", root.to_str().unwrap(), "--memory", "128M", "--policy", policy, "--check", "--json", "-"]);
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["vmstat"]["oom_kill"].as_u64().unwrap() > 0, "{policy}: the scenario needs an OOM kill");
    }
}

/// `stat`, `reclaim` and zram in the report, JSON and text. The counts
/// are worked out in crates/mglru-core/tests/memcg_files.rs
/// (peak_reset_reads_the_peak_since_the_write): 256 stored pages plus
/// three page tables charged in batches of 64 make memory.current 320
/// pages; after a reset and the task's exit the file reads 64, a new open
/// still 320. A reclaim of 1M from 256 anon pages without swap answers
/// -EAGAIN (-11) having reclaimed nothing.
#[test]
fn stat_and_reclaim_results_in_the_report() {
    let p = tmp(
        "stat.trace",
        "memory 256M\nmemcg cg\ntask a memcg=cg\nanon a buf size=1M\nstore a buf 0 256\nstat cg\n\
         reclaim cg 1M\nmemcg cg peak=reset\nexit a\nmemcg cg peak=reset\nstat cg\n",
    );
    let o = run(&["run", p.to_str().unwrap(), "--json", "-", "--policy", "classic"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let stats = v["stats"].as_array().unwrap();
    assert_eq!(stats.len(), 2);
    assert_eq!(stats[0]["memcg"], "cg");
    assert_eq!(stats[0]["current"], 320 * 4096);
    assert_eq!(stats[0]["stat"]["anon"], 256 * 4096);
    assert_eq!(stats[1]["current"], 64 * 4096);
    assert_eq!(stats[1]["peak"], 320 * 4096);
    assert_eq!(stats[1]["peak_since_reset"], 64 * 4096);
    assert_eq!(stats[1]["events"]["oom_kill"], 0);
    let r = v["reclaims"].as_array().unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0]["memcg"].as_str(), r[0]["bytes"].as_u64(), r[0]["result"].as_i64(), r[0]["reclaimed_pages"].as_u64()), (Some("cg"), Some(1 << 20), Some(-11), Some(0)));
    assert!(v["zram"].is_null());
    assert_eq!(v["memcg"]["cg"]["swap_peak"], 0);

    let o = run(&["run", p.to_str().unwrap(), "--policy", "classic"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\nstat cg #2 at "), "{text}");
    assert!(text.contains(&format!("  {:<34} {:>14}\n", "memory.peak (since reset)", 64 * 4096)), "{text}");
    assert!(text.contains("bytes=1048576      reclaimed_pages=0          result=-11"), "{text}");
    assert!(text.contains("memory.swap.peak"), "{text}");
}

/// A zram device's memory in the report: ratio 4 stores a page in 1024
/// bytes, 31 to a zspage of 8 pages.
#[test]
fn zram_in_the_report() {
    let p = tmp(
        "zram.trace",
        "memory 256M\nswap 64M zram=y ratio=4\nmemcg cg\ntask a memcg=cg\nanon a buf size=2M\nstore a buf 0 512\nreclaim cg 2M\nstat cg\n",
    );
    let o = run(&["run", p.to_str().unwrap(), "--json", "-", "--policy", "mglru", "--check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let x = v["stats"][0]["swap_current"].as_u64().unwrap() / 4096;
    assert!(x > 0);
    assert_eq!(v["zram"]["orig_data_size"].as_u64(), Some(x * 4096));
    assert_eq!(v["zram"]["compr_data_size"].as_u64(), Some(x * 1024));
    assert_eq!(v["zram"]["mem_used_total"].as_u64(), Some(x.div_ceil(31) * 8 * 4096));
    assert_eq!(v["zram"]["ratio"].as_f64(), Some(4.0));
    let o = run(&["run", p.to_str().unwrap(), "--policy", "mglru"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("zram (ratio 4.00)"), "{text}");
    assert!(text.contains("zram (compression ratio 4.00)"), "{text}");
}

/// `--kernel`: the report names the version; `compare --kernel X,Y` and
/// `--variant A,B` set two versions or variants side by side with a verdict
/// naming them, the JSON keyed by their names; bad lists are errors naming
/// the option; `mglru kernels` lists every version and difference.
#[test]
fn kernel_versions_and_variant_pairs_compare() {
    let t = tmp("kernels.trace", "memory 64M\nswap 32M\nmemcg app max=8M\nfile f size=16M readahead=0\ntask t memcg=app\nread t f 0 4096\nreclaim app 1M\n");
    let t = t.to_str().unwrap();
    let o = run(&["run", t, "--kernel", "6.1", "--json", "-", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["kernel"].as_str(), v["policy"].as_str()), (Some("6.1"), Some("classic")));
    let o = run(&["compare", t, "--kernel", "6.12,7.2", "--policy", "mglru", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Verdict: Linux 7.2 against Linux 6.12:") || out.contains("under either kernel"), "{out}");
    assert!(out.contains("count memcg-limit reclaim too"), "the 7.2 counting note: {out}");
    let o = run(&["compare", t, "--variant", "plain,reclaim-loop", "--json", "-", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["plain"]["vmstat"].is_object() && v["reclaim-loop"]["vmstat"].is_object(), "{v}");
    for (args, msg) in [
        (vec!["run", t, "--kernel", "6.12,7.2"], "compares two"),
        (vec!["run", t, "--kernel", "5.15"], "expected one of 6.1, 6.12, 7.2"),
        (vec!["compare", t, "--kernel", "6.12,6.12"], "two different versions"),
        (vec!["compare", t, "--kernel", "6.1,6.12,7.2"], "exactly two values"),
        (vec!["compare", t, "--kernel", "6.1,6.12", "--variant", "plain,reclaim-loop"], "one thing at a time"),
        (vec!["compare", t, "--variant", "plain,reclaim-loop", "--policy", "classic"], "multi-gen LRU only"),
        (vec!["validate", "--delta", "6.12"], "expected A:B"),
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["sweep", "--help"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("memcg-lru-off"), "sweep --help lists every variant");
    let o = run(&["kernels"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for n in ["6.1", "6.12", "7.2", "reclaim-loop", "node-stat-counters", "workingset-6.1", "memcg-lru-off"] {
        assert!(out.contains(n), "{n} missing:\n{out}");
    }
}

/// `--warmup`: the summary is the rest of the run, the whole run beside;
/// a warm-up the run does not reach, or a share of standard input, is an
/// error that says what to give instead.
#[test]
fn warmup_leaves_the_start_of_the_run_out() {
    let o = run(&["run", "--warmup", "50%", "--json", "-", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let acc = j["sim"]["page_accesses"].as_u64().unwrap();
    assert_eq!(j["figures"]["page_accesses"].as_u64(), Some(acc - acc / 2));
    assert_eq!(j["whole_run_figures"]["page_accesses"].as_u64(), Some(acc));
    assert_eq!(j["warmup"]["end_accesses"].as_u64(), Some(acc / 2));
    assert_eq!(j["warmup"]["spec"], "50%");
    let o = run(&["run", "--warmup", "2s", "--no-progress"]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("  warm-up    the first 2 s of simulated time (ended at 2.0"), "{t}");
    assert!(t.contains("after the warm-up   whole run"), "{t}");
    let o = run(&["compare", "--warmup", "2s", "--no-progress"]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("summary after the warm-up") && t.contains("Verdict: MGLRU against classic"), "{t}");
    let dir = std::env::temp_dir().join(format!("mglru-cli-test-{}-warmup", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("w.csv");
    let o = run(&["sweep", "--warmup", "2s", "--memory", "256M,512M", "--csv", csv.to_str().unwrap(), "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let head = std::fs::read_to_string(&csv).unwrap().lines().next().unwrap().to_string();
    for c in ["miss_ratio", "cold_miss_ratio", "readahead_pages", "warmup_end_seconds", "whole_run_hit_ratio", "whole_run_miss_ratio"] {
        assert!(head.split(',').any(|h| h == c), "{c} missing: {head}");
    }
    let ts = dir.join("ts.csv");
    let o = run(&["run", "--timeseries", ts.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let head = std::fs::read_to_string(&ts).unwrap().lines().next().unwrap().to_string();
    assert!(head.starts_with("time_s,page_accesses,hits,cold_misses,"), "{head}");
    for (args, msg) in [
        (vec!["run", "--warmup", "1000s"], "the run ended before the warm-up did"),
        (vec!["sweep", "--warmup", "1000s", "--memory", "256M,512M"], "the run ended before the warm-up did"),
        (vec!["run", "--warmup", "100%"], "less than 100 %"),
        (vec!["run", "--warmup", "5"], "no unit"),
        (vec!["run", "-", "--warmup", "10%"], "give a file"),
    ] {
        let o = bin().args(&args).stdin(std::process::Stdio::null()).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg) && stderr(&o).contains("--warmup"), "{args:?}: {}", stderr(&o));
    }
}

/// `compare` takes any one option with two values; its verdict names what
/// was compared and gives rates per 1,000 accesses and counts.
#[test]
fn compare_any_one_option_with_two_values() {
    let fio = "fio:--name=j --rw=randread --size=64M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=4s";
    let o = run(&["compare", "--workload", fio, "--memory", "24M,96M", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("  RAM        24M and 96M (compared)") && t.contains("  compared   memory: 24M (left) against 96M (right)"), "{t}");
    let last = t.lines().last().unwrap();
    assert!(last.starts_with("Verdict: memory 96M against memory 24M: "), "{last}");
    // The refaults' rates and counts, as the JSON's figures have them.
    let o = run(&["compare", "--workload", fio, "--memory", "24M,96M", "--json", "-", "--no-progress"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (a, b) = (&j["24M"]["figures"], &j["96M"]["figures"]);
    let n = |f: &serde_json::Value, k: &str| f[k].as_u64().unwrap();
    let (ra, rb) = (n(a, "refaults"), n(b, "refaults"));
    assert!(ra > rb, "more memory, fewer refaults: {ra} vs {rb}");
    let rate = |r: u64, f: &serde_json::Value| r as f64 * 1000.0 / n(f, "page_accesses") as f64;
    let fmt = |x: f64| if x >= 10.0 { format!("{x:.1}") } else { format!("{x:.2}") };
    let want = format!("fewer refaults ({} → {} per 1,000 accesses; ", fmt(rate(ra, a)), fmt(rate(rb, b)));
    assert!(last.contains(&want), "{last} (want {want})");
    assert_eq!(j["24M"]["vmstat"]["pgpgin"].as_u64().unwrap() / 4, n(a, "pages_read"));

    let o = run(&["compare", "--sysctl", "vm.swappiness=0,200", "--policy", "classic", "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.lines().last().unwrap().starts_with("Verdict: vm.swappiness=200 against vm.swappiness=0: "), "{t}");
    assert!(t.contains("  compared   vm.swappiness: vm.swappiness=0 (left) against vm.swappiness=200 (right)"), "{t}");
    let o = run(&["compare", "--policy", "mglru,classic", "--no-progress"]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.lines().last().unwrap().starts_with("Verdict: classic against MGLRU: "), "{t}");
    let o = run(&["compare", "--variant", "6.12,reclaim-loop", "--no-progress"]);
    let t = String::from_utf8_lossy(&o.stdout);
    let one = run(&["run", "--no-progress"]);
    let one = String::from_utf8_lossy(&one.stdout);
    assert_eq!(one.matches("(Linux 6.12 model").count(), 1, "run names the policy and kernel once: {one}");
    assert!(t.lines().last().unwrap().starts_with("Verdict: variant reclaim-loop against the plain kernel: "), "{t}");
    // Every summary row's columns line up.
    let rows: Vec<&str> = t.lines().skip_while(|l| !l.starts_with("summary")).take_while(|l| !l.is_empty()).collect();
    let ends: std::collections::BTreeSet<usize> = rows.iter().map(|l| l.chars().count()).collect();
    assert_eq!(ends.len(), 1, "ragged summary:\n{}", rows.join("\n"));

    for (args, msg) in [
        (vec!["compare", "--memory", "1G,2G", "--swap", "0,1G"], "compare one thing at a time: --memory, --swap each have two values"),
        (vec!["compare", "--memory", "1G,1G"], "give two different sizes"),
        (vec!["compare", "--memory", "1G,2G,4G"], "give one value, or two"),
        (vec!["compare", "--sysctl", "vm.swappiness=60,60"], "give two different values"),
        (vec!["compare", "--policy", "classic"], "give it two (--policy mglru,classic)"),
        (vec!["run", "--memory", "1G,2G"], "`run` takes one value; `mglru compare --memory 1G,2G` compares two"),
        (vec!["run", "--sysctl", "vm.swappiness=0,200"], "`mglru compare --sysctl vm.swappiness 0,200`"),
        (vec!["run", "--policy", "classic,mglru"], "`run` takes one value"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
}

/// SIGINT or SIGTERM during a sweep: the finished rows are written (CSV
/// and JSON, whole, under their names), the run says how far it got and
/// exits 130 or 143; no temporary file is left beside the outputs.
#[test]
fn an_interrupted_sweep_writes_the_finished_rows() {
    let fio = "fio:--name=j --rw=randread --size=256M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=120s";
    for (sig, code) in [("-INT", 130), ("-TERM", 143)] {
        let dir = std::env::temp_dir().join(format!("mglru-cli-test-{}-interrupt{sig}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (csv, json) = (dir.join("rows.csv"), dir.join("rows.json"));
        let child = bin()
            .args(["sweep", "--workload", fio, "--memory", "64M..256M/24", "--jobs", "1", "--no-progress", "--quiet"])
            .args(["--csv", csv.to_str().unwrap(), "--json", json.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2500));
        let k = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
        assert!(k.success());
        let o = child.wait_with_output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{sig}: {e}");
        let name = if code == 130 { "SIGINT" } else { "SIGTERM" };
        let done: usize = e
            .split(&format!("interrupted ({name}) after "))
            .nth(1)
            .and_then(|r| r.split(" of 24 configurations").next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{sig}: no count in {e}"));
        assert!(done < 24, "{sig}: the sweep finished before the signal: {e}");
        let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|_| panic!("{sig}: no JSON: {e}"))).unwrap();
        assert_eq!(j["rows"].as_array().unwrap().len(), done, "{sig}: {e}");
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().count(), if done == 0 { 0 } else { done + 1 }, "{sig}: {text}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|d| d.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains(".tmp")).collect();
        assert!(left.is_empty(), "{sig}: temporary files left: {left:?}");
        // The rows are those of the grid's first configurations, in order.
        let mem: Vec<&str> = j["rows"].as_array().unwrap().iter().map(|r| r["memory"].as_str().unwrap()).collect();
        assert_eq!(mem.first().copied(), if done == 0 { None } else { Some("64M") });
    }
}

const REPLICATED: &str = "fio:--name=j --rw=randread --size=32M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=5s;memory=24M";

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// `--replicates`: every replicate in the CSV, mean ± interval in the
/// table, replicates that differ, and one seed reproducing its replicate
/// bit for bit.
#[test]
fn sweep_replicates_give_intervals_and_every_replicate() {
    let csv = tmp("replicates.csv", "");
    let o = run(&["sweep", "--workload", REPLICATED, "--memory", "16M,20M", "--replicates", "3", "--csv", csv.to_str().unwrap(), "--no-progress"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("3 replicates of each (seeds 0, 1, 2)") && table.contains(" ± "), "{table}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = csv_rows(&text);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}: {:?}", rows[0]));
    assert_eq!(rows.len(), 1 + 6);
    let (rep, seed, misses, mem) = (col("replicate"), col("seed"), col("misses"), col("memory"));
    let seen: Vec<(&str, &str, &str)> = rows[1..].iter().map(|r| (r[mem].as_str(), r[rep].as_str(), r[seed].as_str())).collect();
    assert_eq!(seen, [("16M", "0", "0"), ("16M", "1", "1"), ("16M", "2", "2"), ("20M", "0", "0"), ("20M", "1", "1"), ("20M", "2", "2")]);
    let m: Vec<&str> = rows[1..4].iter().map(|r| r[misses].as_str()).collect();
    assert!(m[0] != m[1] && m[1] != m[2], "replicates must differ: {m:?}");
    // Again: the same file, byte for byte; seed 1 alone: replicate 1's rows.
    let again = tmp("replicates2.csv", "");
    assert!(run(&["sweep", "--workload", REPLICATED, "--memory", "16M,20M", "--replicates", "3", "--csv", again.to_str().unwrap(), "--quiet"]).status.success());
    assert_eq!(text, std::fs::read_to_string(&again).unwrap());
    let one = tmp("seed1.csv", "");
    assert!(run(&["sweep", "--workload", REPLICATED, "--memory", "16M,20M", "--seed", "1", "--csv", one.to_str().unwrap(), "--quiet"]).status.success());
    let one = csv_rows(&std::fs::read_to_string(&one).unwrap());
    assert_eq!(one[1][misses], rows[2][misses]);
    assert_eq!(one[2][misses], rows[5][misses]);
    // `mglru run --seed 1` gives the same counters as that replicate.
    let j = json_without_wall_clock(&["run", "--workload", REPLICATED, "--memory", "16M", "--seed", "1", "--json", "-"]);
    let j: serde_json::Value = serde_json::from_str(&j).unwrap();
    assert_eq!(j["figures"]["misses"].to_string(), rows[2][misses]);
}

/// compare --replicates: means with intervals, and a verdict judged by the
/// spread of the paired changes.
#[test]
fn compare_replicates_judge_changes_by_their_spread() {
    let o = run(&["compare", "--workload", REPLICATED, "--memory", "16M,20M", "--replicates", "3", "--no-progress"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("3 replicates of each side, seeds 0, 1, 2"), "{out}");
    let verdict = out.lines().find(|l| l.starts_with("Verdict:")).unwrap();
    assert!(verdict.starts_with("Verdict: memory 20M against memory 16M (means of 3 replicates): "), "{verdict}");
    assert!(verdict.contains("95 % interval of the change"), "{verdict}");
    // A trace file has nothing the seed varies: the sweep says so.
    let t = tmp("noseed.trace", "memory 64M\nfile f size=8M\ntask t\nread t f 0 2048\nread t f 0 2048\n");
    let o = run(&["sweep", t.to_str().unwrap(), "--memory", "16M,32M", "--replicates", "2", "--quiet"]);
    assert!(o.status.success() && stderr(&o).contains("the 2 replicates came out identical"), "{}", stderr(&o));
    // The flags that follow one run are refused with replicates.
    let e = run(&["run", "--replicates", "2", "--timeseries", "-"]);
    assert!(stderr(&e).contains("--timeseries follows one run"), "{}", stderr(&e));
}
