// SPDX-License-Identifier: GPL-2.0-only
//! Issue 35, "nothing lost, nothing unbounded": outputs never destroy an
//! input or each other, a failed run leaves the previous result, pipes and
//! FIFOs are written as streams and read at most once, and inputs that
//! never end (/dev/zero, /dev/urandom) are refused by their bound.
//!
//! No test here writes to a device node: run as root, the binary of
//! 670239f replaced /dev/stdout and /dev/full with regular files. FIFOs in
//! the test's own folder stand in for every stream.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mglru"))
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("mglru-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).stdin(Stdio::null()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small trace with accesses.
fn trace_text() -> String {
    let mut t = String::from("memory 64M\ntask t\nanon t r size=1M\n");
    for i in 0..64 {
        t.push_str(&format!("store t r {i}\n"));
    }
    t
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success(), "mkfifo {}", p.display());
}

/// Wait for a child, killing it after `polls` polls of 10 ms (a hang is a
/// failure, not a stuck test run); its output if it ended by itself.
fn wait_bounded(mut c: std::process::Child, polls: u32) -> Option<Output> {
    for _ in 0..polls {
        if c.try_wait().unwrap().is_some() {
            return Some(c.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = c.kill();
    let _ = c.wait();
    None
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let text = trace_text();
    let lackey = "==1== x\n L  0400a000,8\n S  0400b000,8\n";
    let t = tmp("in.trace", &text);
    let l = tmp("in.lackey", lackey);
    let link = dir().join("link.trace");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&t, &link).unwrap();
    let dotted = format!("{}/./in.trace", dir().display());
    for args in [
        vec!["run", s(&t), "--json", s(&t), "--quiet"],
        vec!["run", s(&t), "--json", s(&link), "--quiet"],
        vec!["run", s(&t), "--timeseries", &dotted, "--quiet"],
        vec!["compare", s(&t), "--json", s(&t), "--quiet"],
        vec!["sweep", s(&t), "--memory", "32M,64M", "--csv", s(&t)],
        vec!["sweep", s(&t), "--memory", "32M,64M", "--json", s(&link)],
        vec!["trace", "convert", s(&t), s(&t)],
        vec!["import", "lackey", s(&l), "--emit-trace", s(&l)],
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains("would destroy the input"), "{args:?}: {e}");
        assert_eq!(std::fs::read_to_string(&t).unwrap(), text, "{args:?} changed the trace");
        assert_eq!(std::fs::read_to_string(&l).unwrap(), lackey, "{args:?} changed the lackey log");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{args:?} replaced the link");
    }
}

#[test]
fn two_outputs_naming_one_file_are_refused() {
    let t = tmp("two.trace", &trace_text());
    let f = dir().join("both.out");
    let _ = std::fs::remove_file(&f);
    for args in [
        vec!["run", s(&t), "--json", s(&f), "--timeseries", s(&f), "--quiet"],
        vec!["sweep", s(&t), "--memory", "32M,64M", "--json", s(&f), "--csv", s(&f)],
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains("name the same file"), "{args:?}: {e}");
        assert!(!f.exists(), "{args:?} wrote {}", f.display());
    }
}

#[test]
fn a_failed_run_leaves_the_previous_time_series_alone() {
    let good = tmp("good.trace", &trace_text());
    let bad = tmp("bad.trace", &format!("{}bogus line\n", trace_text()));
    let ts = dir().join("series.csv");
    let o = run(&["run", s(&good), "--timeseries", &format!("{}:1", s(&ts)), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read_to_string(&ts).unwrap();
    assert!(before.lines().count() >= 2, "{before}");
    let o = run(&["run", s(&bad), "--timeseries", &format!("{}:1", s(&ts)), "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&ts).unwrap(), before, "the failed run replaced the series");
    let left: Vec<_> = std::fs::read_dir(dir()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(".series.csv.mglru-")).collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// A FIFO output is written in a stream: it stays a FIFO and its reader
/// gets the whole result (a rename would put a regular file in its place).
#[test]
fn an_output_to_a_fifo_is_streamed_not_replaced() {
    let t = tmp("fifo-in.trace", &trace_text());
    let fifo = dir().join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let f = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(f).unwrap())
    };
    let c = bin().args(["run", s(&t), "--json", s(&fifo), "--quiet"]).stdin(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let st = wait_bounded(c, 3000).map(|o| o.status);
    // (A replaced FIFO leaves the reader thread waiting in its open for
    // good: it is not joined then, and ends with the test process.)
    let is_fifo = std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo).unwrap().file_type());
    assert!(is_fifo, "the FIFO was replaced by a file");
    let got = reader.join().unwrap();
    assert!(st.is_some_and(|s| s.success()), "exit {st:?}");
    let j: serde_json::Value = serde_json::from_str(&got).expect("the whole JSON came through the FIFO");
    assert_eq!(j["schema_version"], 1);
}

#[test]
fn an_importer_refuses_a_pipe_and_a_fifo_without_waiting() {
    let log = "==1== x\n L  0400a000,8\n S  0400b000,8\n";
    let out = dir().join("piped.trace");
    let mut c = bin()
        .args(["import", "lackey", "/dev/stdin", "--emit-trace", s(&out)])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It may refuse before reading: a broken pipe here is expected.
    let _ = c.stdin.take().unwrap().write_all(log.as_bytes());
    let o = c.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("not a regular file") && e.contains("save it to a file first"), "{e}");
    assert!(!out.exists(), "a trace without accesses was written");
    // A FIFO no one writes to: refused at once, not opened.
    let fifo = dir().join("in.fifo");
    mkfifo(&fifo);
    let c = bin().args(["import", "lackey", s(&fifo), "--emit-trace", s(&out)]).stderr(Stdio::piped()).spawn().unwrap();
    let o = wait_bounded(c, 3000).expect("a FIFO input hung");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn compare_refuses_standard_input_it_would_read_twice() {
    let mut c = bin().args(["compare", "-", "--quiet"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = c.stdin.take().unwrap().write_all(trace_text().as_bytes());
    let o = c.wait_with_output().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("can be read only once") && !e.contains("empty"), "{e}");
}

#[test]
fn inputs_without_an_end_are_refused_by_their_bound() {
    let t = tmp("endless.trace", &trace_text());
    for (args, want) in [
        (vec!["import", "lackey", "/dev/zero", "--emit-trace", "-"], "not a regular file"),
        (vec!["run", s(&t), "--guest-clock", "/dev/zero", "--quiet"], "larger than 64 MiB"),
        (vec!["run", "--workload", "fio-job:/dev/zero", "--quiet"], "larger than 1 MiB"),
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
    }
    // A line without an end in a regular file: the line bound, and a
    // message that quotes no more than an excerpt.
    let long = tmp("long.lackey", &format!(" L  0400a000,8\n S  {},8\n", "4".repeat(200_000)));
    let o = run(&["import", "lackey", s(&long), "--emit-trace", "-"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains(":2: the line is longer than 65536 bytes"), "{e}");
    assert!(e.len() < 1000, "the message quotes {} bytes", e.len());
    let field = tmp("field.lackey", &format!(" L  {},8\n", "g".repeat(5000)));
    let o = run(&["import", "lackey", s(&field), "--emit-trace", "-"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("bytes in all") && e.len() < 1000, "the message quotes {} bytes: {}", e.len(), &e[..e.len().min(300)]);
}

#[test]
fn a_font_that_is_not_one_is_an_error_not_ignored() {
    let t = tmp("font.trace", &trace_text());
    let plots = dir().join("plots-font");
    let o = bin()
        .args(["sweep", s(&t), "--memory", "32M,64M", "--plot", s(&plots)])
        .env("MGLRU_FONT", "/dev/zero")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{e}");
    assert!(e.contains("MGLRU_FONT=/dev/zero"), "{e}");
    assert!(!plots.exists(), "an empty plot folder was left");
}

#[test]
fn a_sysctl_given_twice_as_an_axis_is_refused() {
    let t = tmp("axes.trace", &trace_text());
    let o = run(&["sweep", s(&t), "--memory", "32M,64M", "--sysctl", "vm.swappiness=10,20", "--sysctl", "vm.swappiness=30,40"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("sets vm.swappiness twice"), "{e}");
}

#[test]
fn jobs_beyond_the_limit_are_refused() {
    let t = tmp("jobs.trace", &trace_text());
    // (670239f tried to start them all, and did not stop on SIGTERM.)
    let c = bin().args(["sweep", s(&t), "--memory", "32M,64M", "--jobs", "100000"]).stdin(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let o = wait_bounded(c, 3000).expect("--jobs 100000 hung");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("at most 1024 threads"), "{e}");
}

#[test]
fn validate_names_an_unknown_trace() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = run(&["validate", "--suite", s(&suite), "--trace", "no-such-trace"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("--trace no-such-trace: not a trace of the suite") && e.contains("file-zipf-0.8"), "{e}");
}

#[test]
fn a_guest_clock_of_another_trace_or_policy_is_refused() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let result = suite.join("results/file-zipf-0.8.mglru.json");
    let t = tmp("short.trace", &trace_text());
    let o = run(&["run", s(&t), "--guest-clock", s(&result), "--quiet"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("the result of another trace"), "{e}");
    let o = run(&["run", s(&t), "--guest-clock", s(&result), "--policy", "classic", "--quiet"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("is of a mglru run and --policy asks for classic"), "{e}");
}

/// Corrupt compressed data is an invalid trace (exit status 1) wherever
/// the damage is: 670239f gave 2 (an I/O error) for damage in the first
/// block and 1 for damage later.
#[test]
fn corrupt_compressed_data_has_one_exit_status() {
    let mut text = String::from("memory 64M\ntask t\nanon t r size=4M\n");
    for i in 0..20_000u32 {
        text.push_str(&format!("store t r {}\n", (i.wrapping_mul(2_654_435_761)) % 1024));
    }
    let plain = tmp("c.trace", &text);
    let gz = dir().join("c.trace.gz");
    assert!(Command::new("gzip").args(["-kf", s(&plain)]).status().unwrap().success());
    let data = std::fs::read(&gz).unwrap();
    let mut early = data.clone();
    early[20] ^= 0xff;
    let truncated = &data[..data.len() / 2];
    for (name, bytes) in [("early.trace.gz", &early[..]), ("truncated.trace.gz", truncated)] {
        let p = dir().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = run(&["run", s(&p), "--quiet"]);
        let e = stderr(&o);
        assert!(e.contains("cannot decompress gzip data"), "{name}: {e}");
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
    }
}

/// An invisible character in a value is named, not quoted invisibly.
#[test]
fn an_invisible_character_in_an_option_is_named() {
    let t = tmp("nbsp.trace", &trace_text());
    let o = run(&["run", s(&t), "--memory", "64\u{a0}M", "--quiet"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("a no-break space (U+00A0)"), "{e}");
    let bad = tmp("nbsp-in.trace", "memory 64\u{a0}M\ntask t\n");
    let o = run(&["run", s(&bad), "--quiet"]);
    let e = stderr(&o);
    assert!(e.contains("nbsp-in.trace:1:") && e.contains("U+00A0"), "{e}");
}
