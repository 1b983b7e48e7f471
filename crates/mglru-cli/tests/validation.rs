// SPDX-License-Identifier: GPL-2.0-only
//! The model against the committed real-kernel results of the reference
//! suite (validation/results), with the thresholds in force
//! (validation/thresholds.json). No QEMU needed: the kernel side was
//! measured once with validation/run-suite.sh.

use std::process::Command;

#[test]
fn model_is_within_the_thresholds_of_the_kernel_results() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let suite = root.join("validation");
    let n = std::fs::read_dir(suite.join("results")).map(|d| d.count()).unwrap_or(0);
    assert!(n >= 24, "expected the committed kernel results in validation/results, found {n} files");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
    assert!(!out.contains("no kernel results for"), "a suite trace lacks kernel results:\n{out}");
}

/// The same check with kswapd as a thread in simulated time: the
/// counters' thresholds and the spread section's, whose known deviations
/// differ by mode (thresholds.json `spread.exceptions`). The section is
/// there, checked, and its rows name every trace of `spread.runs`.
#[test]
fn thread_mode_is_within_the_thresholds_and_the_kernel_spread() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--kswapd", "thread", "--check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
    let section = out.split("Reclaim by whom").nth(1).expect("the spread section");
    for t in ["global-swap-brd", "two-memcgs-global-pressure", "memcg-high-two-tasks", "two-readers-two-cpus", "writer-beside-reader"] {
        assert!(section.contains(&format!("{t:<28} classic  pgscan_direct")), "{t} missing:\n{section}");
    }
    // Thread mode reclaims directly where the kernel does: the classic
    // LRU's global-swap-brd split is within the kernel's range, not exempt.
    let row = section.lines().find(|l| l.starts_with("global-swap-brd") && l.contains("classic  pgscan_direct")).unwrap();
    assert!(row.ends_with(" ok"), "{row}");
    // Instant mode does none, and says that it is a known deviation.
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--trace", "two-memcgs-global-pressure"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out.lines().find(|l| l.starts_with("two-memcgs-global-pressure") && l.contains("classic  pgscan_direct")).unwrap();
    assert!(row.ends_with("known deviation") && row.contains(" 0 "), "{row}");
    // The same rows in --json, with each kernel run beside the model's.
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--trace", "two-memcgs-global-pressure", "--json", "-"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let rows = v["spread"].as_array().expect("a spread array");
    let r = rows.iter().find(|r| r["policy"] == "classic" && r["figure"] == "pgscan_direct").expect("the row");
    assert_eq!(r["verdict"], "known deviation");
    assert_eq!(r["runs"].as_array().unwrap().len(), 3, "{r}");
    assert!(r["runs"].as_array().unwrap().iter().all(|x| x["model"] == 0 && x["kernel"].as_f64().unwrap() > 0.0), "{r}");
}

/// The parallel replays (validation/results-parallel, mglru-replay
/// --parallel) against the model in parallel, with that folder's own
/// thresholds.json, which covers its four traces; a trace it does not
/// cover is not reported missing.
#[test]
fn parallel_replays_are_within_their_thresholds() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--results", "results-parallel", "--check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{out}");
    assert!(!out.contains("no kernel results for"), "{out}");
    for t in ["two-readers-two-cpus", "memcg-high-two-tasks", "writer-beside-reader", "two-reclaimers-one-memcg"] {
        assert!(out.contains(&format!("{t:<30} mglru ")) && out.contains(&format!("{t:<30} classic ")), "{t} missing:\n{out}");
    }
}

/// `--extra` shows more vmstat counters beside the checked ones, with
/// the kernel's value read from the committed result, and rejects a name
/// neither side knows.
#[test]
fn validate_extra_counters_are_shown_and_checked_for_names() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let run = |extra: &str| {
        Command::new(env!("CARGO_BIN_EXE_mglru"))
            .args(["validate", "--suite", root.to_str().unwrap(), "--trace", "two-memcgs-global-pressure", "--extra", extra])
            .output()
            .unwrap()
    };
    let o = run("pgalloc_dma,pgalloc_dma32");
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let text = std::fs::read_to_string(root.join("results/two-memcgs-global-pressure.classic.json")).unwrap();
    let at = text.find("\"pgalloc_dma\": ").unwrap() + 15;
    let kernel: u64 = text[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
    let line = out.lines().find(|l| l.contains("classic") && l.contains("pgalloc_dma ")).expect("an extra row");
    assert_eq!(line.split_whitespace().nth(3), Some(kernel.to_string().as_str()), "{line}");
    assert!(out.contains("Extra counters (--extra; shown, not checked):"));
    let o = run("pgalloc_dma,no_such_counter");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--extra no_such_counter: neither the kernel result"));
}

/// kswapd's CPU time is shown beside the guest's (`kswapd_cpu_seconds` of
/// the committed result) and the model's (`cpu.kswapd_ns` of a run with the
/// platform's costs), for the traces where kswapd worked.
#[test]
fn validate_shows_kswapd_cpu_time_beside_the_guests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = validate_in(&root, &["--trace", "two-memcgs-global-pressure"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let head = "kswapd CPU time, guest (kswapd_cpu_seconds) vs model (its reclaim steps x their costs), s (shown, not checked):";
    let at = out.find(head).expect("the kswapd section");
    let text = std::fs::read_to_string(root.join("results/two-memcgs-global-pressure.mglru.json")).unwrap();
    let k = text.find("\"kswapd_cpu_seconds\": ").unwrap() + 22;
    let kernel: f64 = text[k..].split(|c: char| c != '.' && !c.is_ascii_digit()).next().unwrap().parse().unwrap();
    let line = out[at..].lines().find(|l| l.starts_with("two-memcgs-global-pressure") && l.contains("mglru")).unwrap();
    let cols: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cols[2], format!("{kernel:.2}"), "{line}");
    // The model: pages kswapd scanned (pgscan_kswapd and its share of
    // pgrefill) at the platform's scan cost, a positive time.
    assert!(cols[3].parse::<f64>().unwrap() > 0.0, "{line}");
}

/// `--json -` writes the comparison alone to standard output, and it
/// reads back: a row per policy and checked counter, a sign row per
/// counter, the extra counters; counters as whole numbers, each relative
/// error the floored one to six places.
#[test]
fn validate_json_reads_back() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", root.to_str().unwrap(), "--trace", "two-memcgs-global-pressure", "--extra", "pgalloc_dma32"])
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("standard output is the JSON document alone");
    let list = |k: &str| doc[k].as_array().unwrap_or_else(|| panic!("no array {k}")).clone();
    let (rows, signs, extra) = (list("rows"), list("signs"), list("extra"));
    assert_eq!((rows.len(), signs.len(), extra.len()), (2 * 11, 11, 2));
    let floor = |c: &str| match c {
        "pgpgin" => 1024.0,
        "workingset_nodereclaim" => 16.0,
        _ => 256.0,
    };
    for r in rows.iter().chain(&extra) {
        let obj = r.as_object().unwrap();
        assert_eq!(obj.len(), 6, "{r}");
        assert_eq!(r["trace"], "two-memcgs-global-pressure");
        let (k, m) = (r["kernel"].as_u64().expect("a whole kernel count"), r["model"].as_u64().expect("a whole model count"));
        let want = (m as f64 - k as f64).abs() / (k as f64).max(floor(r["counter"].as_str().unwrap()));
        assert_eq!(r["rel_err"].as_f64().unwrap(), format!("{want:.6}").parse::<f64>().unwrap(), "{r}");
    }
    assert!(rows.iter().any(|r| r["policy"] == "mglru") && rows.iter().any(|r| r["policy"] == "classic"));
    assert!(extra.iter().all(|r| r["counter"] == "pgalloc_dma32"));
    for s in &signs {
        assert_eq!(s.as_object().unwrap().len(), 5, "{s}");
        assert!(s["kernel_diff"].is_i64() && s["model_diff"].is_i64(), "{s}");
        assert!(s["agree"].is_null() || s["agree"].is_boolean(), "{s}");
        // The difference is mglru's row minus classic's.
        let row = |p: &str| rows.iter().find(|r| r["policy"] == p && r["counter"] == s["counter"]).unwrap()["kernel"].as_i64().unwrap();
        assert_eq!(s["kernel_diff"].as_i64().unwrap(), row("mglru") - row("classic"), "{s}");
    }
}

/// The model's lru_gen dump has the same line shapes as the real
/// kernel's (read from a committed kernel result): `memcg %5hu %s`,
/// ` node %5d`, and 46-character generation lines with trailing spaces.
#[test]
fn lru_gen_dump_lines_have_the_kernels_shapes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let text = std::fs::read_to_string(root.join("results/anon-zipf-swap.mglru.json")).unwrap();
    let start = text.find("\"lru_gen\": \"").expect("kernel dump in the result") + 12;
    let end = start + text[start..].find("\"").unwrap();
    let kernel = text[start..end].replace("\\n", "\n");
    let shape = |l: &str| -> String {
        if l.starts_with("memcg ") {
            format!("memcg-id-width {}", l[6..].find(' ').unwrap())
        } else if l.starts_with(" node ") {
            format!("node {}", l.len())
        } else {
            format!("gen {} {}", l.len(), l.ends_with(' '))
        }
    };
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["run", root.join("traces/anon-zipf-swap.trace.gz").to_str().unwrap(), "--quiet", "--lru-gen-dump"])
        .output()
        .unwrap();
    let model = String::from_utf8(o.stdout).unwrap();
    let mut k: Vec<String> = kernel.lines().map(shape).collect();
    let mut m: Vec<String> = model.lines().filter(|l| !l.starts_with('#')).map(shape).collect();
    k.sort();
    k.dedup();
    m.sort();
    m.dedup();
    assert_eq!(k, m);
}

/// `validate` uses the platform's costs from DIR/platform.json and says
/// so; a malformed cost is an error naming the file and the fix.
#[test]
fn validate_runs_the_model_with_the_platform_costs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = validate_in(&root, &["--trace", "file-zipf-1.2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(out.starts_with("model costs (ns) of the ground-truth platform, from platform.json: op="), "{out}");
    assert!(out.contains("Workload time, guest wall clock vs model simulated clock"), "{out}");

    let dir = temp_suite("platform", None);
    std::fs::write(dir.join("platform.json"), r#"{"cost": {"op": 1.5}}"#).unwrap();
    let o = validate_in(&dir, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("platform.json: cost \"op\" must be a whole number of ns"), "{err}");
    std::fs::write(dir.join("platform.json"), r#"{"cost": {"warp": 3}}"#).unwrap();
    let o = validate_in(&dir, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown cost 'warp'"), "{err}");
    // A cost the platform file leaves out is not taken from the defaults
    // (a native CPU's figures): the file must be measured again.
    std::fs::write(dir.join("platform.json"), r#"{"cost": {"op": 3}}"#).unwrap();
    let o = validate_in(&dir, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no cost \"op_sys\"") && err.contains("calibrate_split.py --apply"), "{err}");
    std::fs::write(dir.join("platform.json"), r#"{"cost": {"op": 3, "op_sys": 4, "op_wait": 5, "task_switch": 8, "disk_read_sys": 6, "write_new": 7}}"#).unwrap();
    let o = validate_in(&dir, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no cost \"mem_access\"") && err.contains("calibrate.py"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With a result's time profile, the model's clock follows the guest's:
/// the run lasts at least as long as the guest's last sample says, and
/// the statistics flush (every 2 s) then falls where the guest's did.
/// `--cost-model-clock` ignores the profile; a malformed one is an error.
#[test]
fn validate_follows_the_guest_clock() {
    let trace = "memory 256M\nmemcg app max=16M\nfile f size=32M readahead=0\ntask t memcg=app\n\
                 read t f 0 1024\nread t f 1024 1024\nread t f 2048 1024\n";
    let dir = temp_suite("profile", Some(trace));
    let result = |profile: &str| {
        format!(r#"{{"policy": "classic", "kernel": "6.12", "vmstat": {{"pgpgin": 0}}, "wall_seconds": 7.5, {profile}"meta": {{"date": "d"}}}}"#)
    };
    let run = |extra: &[&str]| validate_in(&dir, extra);
    let model_time = |out: &str| -> f64 {
        let l = out
            .lines()
            .skip_while(|l| !l.starts_with("Workload time"))
            .find(|l| l.starts_with("t "))
            .unwrap_or_else(|| panic!("no workload time in {out}"));
        l.split_whitespace().last().unwrap().parse().unwrap()
    };
    std::fs::write(
        dir.join("results/t.classic.json"),
        result(r#""time_profile": {"every_ns": 10000000, "lines": [5, 6, 7], "ns": [0, 3000000000, 7000000000]}, "#),
    )
    .unwrap();
    let o = run(&[]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let followed = model_time(&out);
    assert!(followed >= 7.0, "{out}");
    let o = run(&["--cost-model-clock"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(model_time(&out) < 7.0, "{out}");

    std::fs::write(
        dir.join("results/t.classic.json"),
        result(r#""time_profile": {"every_ns": 10000000, "lines": [5, 7, 6], "ns": [0, 1, 2]}, "#),
    )
    .unwrap();
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("time_profile is not in line and time order"), "{err}");
    std::fs::write(dir.join("results/t.classic.json"), result(r#""time_profile": {"lines": [5]}, "#)).unwrap();
    let err = String::from_utf8_lossy(&run(&[]).stderr).into_owned();
    assert!(err.contains("time_profile has no array \"ns\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--timeline` sets the kernel's sampled counters beside the model's at
/// the same trace lines, taken before each line's operation: events as
/// growth since the first sample. Reading 1,024, 512 and 256 uncached
/// pages adds 4,096, 2,048 and 1,024 KiB to `pgpgin` (sampling after the
/// operations, or a line late, would show other growths). With a time
/// profile, the model's clock is the guest's at each sampled line, a
/// `sleep` between two samples counted once: the guest took 1.5 s from
/// line 5 to line 8, 1 s of it in the sleep on line 7, so the model is at
/// 1.50 s at line 8 (2.00 if the sleep were counted twice). It needs
/// `--trace`, a result with a `vmstat_profile` whose lines are the
/// trace's, a counter the replayer sampled, and nothing of the table.
#[test]
fn validate_timeline_shows_kernel_and_model_along_the_run() {
    let trace = "memory 256M\nmemcg app max=16M\nfile f size=32M readahead=0\ntask t memcg=app\n\
                 read t f 0 1024\nread t f 1024 512\nsleep 1s\nread t f 2048 256\n";
    let dir = temp_suite("timeline", Some(trace));
    let result = |extra: &str| {
        format!(r#"{{"policy": "classic", "kernel": "6.12", "vmstat": {{"pgpgin": 7168}}, "wall_seconds": 1.0, {extra}"meta": {{"date": "d"}}}}"#)
    };
    let profile = r#""time_profile": {"every_ns": 10000000, "lines": [5, 8], "ns": [0, 1500000000]},
        "vmstat_profile": {"every_ns": 100000000, "lines": [5, 6, 8], "ns": [0, 100000000, 1500000000],
        "counters": {"pgpgin": [100, 4196, 6244], "nr_free_pages": [60000, 59000, 58000]}}, "#;
    std::fs::write(dir.join("results/t.classic.json"), result(profile)).unwrap();
    let run = |extra: &[&str]| validate_in(&dir, extra);
    let o = run(&["--trace", "t", "--timeline", "pgpgin,nr_free_pages:1"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Vec<&str>> = out.lines().skip(2).filter(|l| !l.trim().is_empty()).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 3, "{out}");
    // t, model t, line, kernel | model (pgpgin), kernel | model (nr_free_pages)
    assert_eq!(&rows[0][..6], ["0.00", "0.00", "5", "0", "|", "0"], "{out}");
    assert_eq!(&rows[1][2..6], ["6", "4096", "|", "4096"], "{out}");
    assert_eq!(&rows[2][..6], ["1.50", "1.50", "8", "6144", "|", "6144"], "{out}");
    assert_eq!(rows[2][6], "58000", "{out}");

    let err = |a: &[&str]| String::from_utf8_lossy(&run(a).stderr).into_owned();
    assert!(err(&["--timeline", "default"]).contains("--timeline needs --trace NAME"));
    assert!(err(&["--trace", "t", "--timeline", "pgpgin", "--check"]).contains("without it"));
    assert!(err(&["--trace", "t", "--timeline", "pgpgin,pswpout"]).contains("--timeline pswpout: "));
    assert!(err(&["--trace", "t", "--timeline", "pgpgin:0"]).contains("row spacing"));
    let past = profile.replace(r#""lines": [5, 6, 8], "ns""#, r#""lines": [5, 6, 80], "ns""#);
    std::fs::write(dir.join("results/t.classic.json"), result(&past)).unwrap();
    assert!(err(&["--trace", "t", "--timeline", "pgpgin"]).contains("past the trace's last operation"));
    std::fs::write(dir.join("results/t.classic.json"), result("")).unwrap();
    assert!(err(&["--trace", "t", "--timeline", "default"]).contains("without a vmstat_profile"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh suite folder in the temporary directory, named by `tag` and
/// this process: an empty `results/` and `traces/`, with `t.trace.gz`
/// holding `trace` if one is given.
fn temp_suite(tag: &str, trace: Option<&str>) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mglru-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    std::fs::create_dir_all(dir.join("results")).unwrap();
    if let Some(t) = trace {
        std::fs::write(dir.join("traces/t.trace.gz"), flate2_free_gzip(t.as_bytes())).unwrap();
    }
    dir
}

/// `mglru validate --suite DIR` and `args`.
fn validate_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut a = vec!["validate", "--suite", dir.to_str().unwrap()];
    a.extend_from_slice(args);
    Command::new(env!("CARGO_BIN_EXE_mglru")).args(a).output().unwrap()
}

/// A gzip member with stored (uncompressed) deflate blocks, so the test
/// needs no compression crate.
fn flate2_free_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let chunks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, c) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let n = c.len() as u16;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(c);
    }
    let mut crc: u32 = !0;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    out.extend_from_slice(&(!crc).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// Every trace of the reference suite, under both policies: the model's
/// accounting invariants hold at the end (`--check`), and a second run
/// gives the same counters, bit for bit (everything but the wall clock).
#[test]
fn every_reference_trace_keeps_the_invariants_and_repeats() {
    let traces = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/traces");
    let mut names: Vec<_> = std::fs::read_dir(&traces).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for t in &names {
        for policy in ["classic", "mglru"] {
            let once = || {
                let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
                    .args(["run", t.to_str().unwrap(), "--policy", policy, "--check", "--quiet", "--json", "-"])
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{} {policy}: {}", t.display(), String::from_utf8_lossy(&o.stderr));
                let text = String::from_utf8(o.stdout).unwrap();
                // The trace's `dump` statements print first; the JSON follows.
                let json = &text[text.find("{\n").unwrap_or_else(|| panic!("no JSON: {text}"))..];
                json.lines().filter(|l| !l.contains("wall_seconds")).collect::<Vec<_>>().join("\n")
            };
            let (a, b) = (once(), once());
            assert!(a.contains("\"vmstat\""), "{a}");
            assert_eq!(a, b, "{} {policy}: two runs differ", t.display());
        }
    }
}

/// `mglru run --guest-clock RESULT` moves the simulated clock up to the
/// guest's (at each line, linear between the samples); a result without a profile is an error
/// that says how to get one.
#[test]
fn run_follows_a_guest_clock() {
    let dir = std::env::temp_dir().join(format!("mglru-guest-clock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "memory 64M\nfile f size=1M readahead=0\ntask t\nread t f 0\nread t f 1\nread t f 2\n").unwrap();
    let with = dir.join("with.json");
    std::fs::write(
        &with,
        r#"{"policy": "mglru", "vmstat": {}, "time_profile": {"every_ns": 10000000, "lines": [4, 6], "ns": [0, 5000000000]}}"#,
    )
    .unwrap();
    let without = dir.join("without.json");
    std::fs::write(&without, r#"{"policy": "mglru", "vmstat": {}}"#).unwrap();
    let sim_ns = |extra: &[&str]| -> u64 {
        let mut a = vec!["run", trace.to_str().unwrap(), "--quiet", "--json", "-"];
        a.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_mglru")).args(a).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        let l = out.lines().find(|l| l.contains("\"simulated_ns\"")).unwrap();
        l.trim().trim_start_matches("\"simulated_ns\":").trim().trim_end_matches(',').parse().unwrap()
    };
    assert!(sim_ns(&[]) < 5_000_000_000);
    assert!(sim_ns(&["--guest-clock", with.to_str().unwrap()]) >= 5_000_000_000);
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["run", trace.to_str().unwrap(), "--guest-clock", without.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no time_profile"), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mglru run --start-zones RESULT` starts the machine with the guest's
/// zones (managed pages, watermarks, lowmem reserve, free pages) instead of
/// a layout made from --memory; with --memory, or with a result without
/// start_zones, it is an error that names the fix.
#[test]
fn run_starts_with_a_guests_zones() {
    let dir = std::env::temp_dir().join(format!("mglru-start-zones-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.trace");
    std::fs::write(&trace, "memory 64M\nfile f size=1M readahead=0\ntask t\nread t f 0 4\n").unwrap();
    let zone = |name: &str, free: u64, managed: u64, w: [u64; 3], prot: &str| {
        format!(
            r#"{{"name": "{name}", "free": {free}, "managed": {managed}, "min": {}, "low": {}, "high": {}, "protection": [{prot}], "pcp": 0}}"#,
            w[0], w[1], w[2]
        )
    };
    let with = dir.join("with.json");
    std::fs::write(
        &with,
        format!(
            r#"{{"policy": "mglru", "vmstat": {{}}, "start_zones": [{}, {}]}}"#,
            zone("DMA", 3000, 3840, [31, 38, 45], "0, 204, 204, 204, 204"),
            zone("DMA32", 20000, 55551, [452, 565, 678], "0, 0, 0, 0, 0")
        ),
    )
    .unwrap();
    let without = dir.join("without.json");
    std::fs::write(&without, r#"{"policy": "mglru", "vmstat": {}}"#).unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["run", trace.to_str().unwrap(), "--quiet", "--json", "-"];
        a.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_mglru")).args(a).output().unwrap()
    };
    let o = run(&["--start-zones", with.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    // The report's zones: the guest's managed pages and watermarks, and its
    // free pages less the four the read took.
    let zones = &out[out.find("\"zones\"").unwrap()..];
    let dma32 = &zones[zones.find("\"DMA32\"").unwrap()..];
    let dma32 = &dma32[..dma32.find('}').unwrap()];
    for want in ["\"managed\": 55551", "\"low\": 565", "\"high\": 678"] {
        assert!(dma32.contains(want), "{want} not in {dma32}");
    }
    let o = run(&["--start-zones", with.to_str().unwrap(), "--memory", "64M"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("drop --memory"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["--start-zones", without.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no start_zones"), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The 6.1 model against the real 6.1 (validation/results-6.1, with that
/// folder's thresholds: where the model stands, known deviations per
/// trace), and `--delta 6.1:6.12` over both kernels' results: every trace
/// with results on both, and a summary per policy.
#[test]
fn linux_6_1_is_within_its_thresholds_and_the_delta_table_covers_the_suite() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--kernel", "6.1", "--check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
    assert!(!out.contains("no kernel results for"), "{out}");
    // A result of another kernel under --kernel is refused, naming it.
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--kernel", "6.1", "--results", "results"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("measured on Linux 6.12, not 6.1"));
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--delta", "6.1:6.12", "--trace", "anon-zipf-swap"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("anon-zipf-swap                 mglru    workingset_refault_anon"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("mglru: ") && l.contains("changes agree")), "{out}");
}

/// The 7.2 model against the real 7.2 (validation/results-7.2, with that
/// folder's thresholds), as the 6.1 test above: within them, no trace
/// without results, and a result of another kernel refused, naming it.
#[test]
fn linux_7_2_is_within_its_thresholds() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    assert!(suite.join("results-7.2/thresholds.json").exists(), "validation/results-7.2 has its own thresholds.json");
    let o = validate_in(&suite, &["--kernel", "7.2", "--check"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
    assert!(err.contains("validation within the thresholds in force"), "{err}");
    assert!(!out.contains("no kernel results for"), "{out}");
    let o = validate_in(&suite, &["--kernel", "7.2", "--results", "results"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("measured on Linux 6.12, not 7.2"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--delta A:B --check` holds both committed pairs to
/// validation/delta-thresholds.json: the table is printed, every OPPOSITE
/// row is a known one, and each policy has its agreeing rows.
#[test]
fn the_version_changes_are_within_the_delta_gate() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    for pair in ["6.12:7.2", "6.1:6.12"] {
        let o = validate_in(&suite, &["--delta", pair, "--check"]);
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "--delta {pair} --check failed:\n{err}");
        assert!(out.lines().any(|l| l.starts_with("classic: ") && l.contains("changes agree")), "{out}");
        assert!(err.contains(&format!("--delta {pair} within ")) && err.contains("delta-thresholds.json"), "{err}");
    }
}

/// The gate fails (status 4) naming an OPPOSITE row its file no longer
/// lists and both numbers of a min_agree above the count, with the file
/// named by --delta-thresholds; a malformed file is refused before the
/// model runs, naming the file and the key; the option alone, or with
/// --trace, is refused.
#[test]
fn the_delta_gate_names_what_fails() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    let text = std::fs::read_to_string(suite.join("delta-thresholds.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    // The pair with a known OPPOSITE row to remove (the one with most).
    let pairs = doc["pairs"].as_object().unwrap();
    let (pair, gate) = pairs.iter().max_by_key(|(_, g)| g["known_opposite"].as_array().unwrap().len()).unwrap();
    let known = gate["known_opposite"].as_array().unwrap();
    assert!(!known.is_empty(), "no known_opposite left in validation/delta-thresholds.json: test the failure on another row");
    let gone = format!("{} {} {}", known[0]["trace"].as_str().unwrap(), known[0]["policy"].as_str().unwrap(), known[0]["counter"].as_str().unwrap());
    let min = gate["min_agree"]["classic"].as_u64().unwrap();
    let mut cut = doc.clone();
    cut["pairs"][pair]["known_opposite"].as_array_mut().unwrap().remove(0);
    cut["pairs"][pair]["min_agree"]["classic"] = serde_json::json!(min + 1);
    let dir = temp_suite("delta-gate", None);
    let file = dir.join("gate.json");
    std::fs::write(&file, serde_json::to_string_pretty(&cut).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    let o = validate_in(&suite, &["--delta", pair, "--check", "--delta-thresholds", f]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains(&format!("{gone}: the model's change is OPPOSITE the kernel's")), "{err}");
    assert!(err.contains(&format!("does not list it in known_opposite")) && err.contains(f), "{err}");
    assert!(err.contains(&format!("classic: {min} changes agree, fewer than min_agree.classic {}", min + 1)), "{err}");
    // A malformed gate: the file and the key, and no table (the model did not run).
    std::fs::write(&file, text.replacen("\"known_opposite\"", "\"known_opposites\"", 1)).unwrap();
    let o = validate_in(&suite, &["--delta", pair, "--check", "--delta-thresholds", f]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with(&format!("mglru: {f}: unknown field `known_opposites`")), "{err}");
    assert!(o.stdout.is_empty());
    std::fs::write(&file, text.replacen("\"policy\": \"", "\"policy\": \"x", 1)).unwrap();
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", pair, "--check", "--delta-thresholds", f]).stderr).into_owned();
    assert!(err.contains(f) && err.contains(".policy: `x") && err.contains("the policy must be mglru or classic"), "{err}");
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", "6.1:7.2", "--check"]).stderr).into_owned();
    assert!(err.contains("delta-thresholds.json: no entry for the pair `6.1:7.2`"), "{err}");
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", pair, "--delta-thresholds", f]).stderr).into_owned();
    assert!(err.contains("--delta-thresholds is the gate of --delta A:B --check"), "{err}");
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", pair, "--check", "--trace", "anon-and-file"]).stderr).into_owned();
    assert!(err.contains("run --check without --trace"), "{err}");
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", pair, "--json", "-"]).stderr).into_owned();
    assert!(err.contains("--delta prints a table"), "{err}");
    let err = String::from_utf8_lossy(&validate_in(&suite, &["--delta", pair, "--results", "results-7.2"]).stderr).into_owned();
    assert!(err.contains("--delta A:B reads each version's own results"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The repeat runs of the timing-sensitive traces on the real 6.1 and
/// 7.2 (validation/results-spread-X/run2, run3), each with its own
/// thresholds.json written by validation/make_gate.py from the kernel's
/// spread over its three runs: the model passes against every run, not
/// only the suite's first.
#[test]
fn repeat_runs_of_6_1_and_7_2_are_within_their_gates() {
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation");
    for kernel in ["6.1", "7.2"] {
        for run in ["run2", "run3"] {
            let results = format!("results-spread-{kernel}/{run}");
            let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
                .args(["validate", "--suite", suite.to_str().unwrap(), "--kernel", kernel, "--results", &results, "--check"])
                .output()
                .unwrap();
            let out = String::from_utf8_lossy(&o.stdout);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{results}: validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
            assert!(!out.contains("no kernel results for"), "{results}: {out}");
        }
    }
}
