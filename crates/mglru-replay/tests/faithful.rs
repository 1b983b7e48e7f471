// SPDX-License-Identifier: GPL-2.0-only
//! "The replay is faithful": the dry run's access log (which shows the
//! order in which the real run issues its system calls and memory
//! accesses) equals the sequence derived directly from the trace's
//! operations: one line per page for load/store, one line per read/write
//! system call, and one `OP` line for every other statement, in trace
//! order.

use mglru_replay::{dry_run, ErrorKind};
use mglru_trace::{Op, TraceReader};

/// Every statement kind of trace format v1.
const TRACE: &str = "\
# every statement kind
memory 64M
swap 32M sync=y
sysctl vm.swappiness=100
sysctl lru_gen.enabled=y
memcg app max=32M
memcg web parent=app high=16M swap.max=0
file lib size=64K
file data size=1M readahead=0
task a memcg=web
task b
anon a heap size=32K
mmap a libmap file=lib
mmap b lib file=lib
load a libmap 0 4
store a heap 2 3
read b data 0 16
write a data 4 2
read b lib 1
advise a heap dontneed
advise b lib random       # the region shadows the file
advise b data willneed    # a file
advise a data sequential
reclaim app 1M
sleep 10ms
lru_gen + web 0 5
lru_gen - app 0 3 max 10
dump
store b lib 15
exit a
load b lib 0 2
memcg app max=max
sysctl vm.page-cluster=0
file late size=8K
read b late 0 2
exit b
";

fn log_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    dry_run(TraceReader::from_str("t.trace", text), &mut out).expect("dry run");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The expected log, derived from the ops independently of the replayer.
fn expected_from_ops(text: &str) -> Vec<String> {
    let mut r = TraceReader::from_str("t.trace", text);
    let mut v = Vec::new();
    while let Some(op) = r.next_op().expect("valid trace") {
        match op {
            Op::Read {
                task,
                file,
                page,
                count,
            } => v.push(format!(
                "ACCESS {} read {} {page} {count}",
                r.task_name(task),
                r.file_name(file)
            )),
            Op::Write {
                task,
                file,
                page,
                count,
            } => v.push(format!(
                "ACCESS {} write {} {page} {count}",
                r.task_name(task),
                r.file_name(file)
            )),
            Op::Load {
                task,
                region,
                page,
                count,
            } => {
                for p in page..page + count {
                    v.push(format!(
                        "ACCESS {} load {} {p}",
                        r.task_name(task),
                        r.region_name(region).1
                    ));
                }
            }
            Op::Store {
                task,
                region,
                page,
                count,
            } => {
                for p in page..page + count {
                    v.push(format!(
                        "ACCESS {} store {} {p}",
                        r.task_name(task),
                        r.region_name(region).1
                    ));
                }
            }
            other => v.push(format!("OP {}", r.op_to_text(&other))),
        }
    }
    v
}

#[test]
fn replay_is_faithful() {
    let got = log_of(TRACE);
    let want = expected_from_ops(TRACE);
    assert_eq!(got, want);
}

#[test]
fn access_log_is_exact() {
    let got = log_of(TRACE);
    let accesses: Vec<&str> = got
        .iter()
        .filter(|l| l.starts_with("ACCESS "))
        .map(String::as_str)
        .collect();
    assert_eq!(
        accesses,
        [
            "ACCESS a load libmap 0",
            "ACCESS a load libmap 1",
            "ACCESS a load libmap 2",
            "ACCESS a load libmap 3",
            "ACCESS a store heap 2",
            "ACCESS a store heap 3",
            "ACCESS a store heap 4",
            "ACCESS b read data 0 16",
            "ACCESS a write data 4 2",
            "ACCESS b read lib 1 1",
            "ACCESS b store lib 15",
            "ACCESS b load lib 0",
            "ACCESS b load lib 1",
            "ACCESS b read late 0 2",
        ]
    );
    // Every statement appears once, in order: 35 statements, of which 8
    // are accesses expanded above.
    let ops: Vec<&str> = got
        .iter()
        .filter(|l| l.starts_with("OP "))
        .map(String::as_str)
        .collect();
    assert_eq!(ops.len(), 35 - 8);
    assert_eq!(ops[0], "OP memory 67108864");
    assert_eq!(ops[1], "OP swap 33554432 sync=y");
    assert_eq!(ops[4], "OP memcg app parent=root max=33554432");
    assert_eq!(ops[5], "OP memcg web parent=app high=16777216 swap.max=0");
    assert!(ops.contains(&"OP advise b lib random"));
    assert!(ops.contains(&"OP advise b data willneed"));
    assert!(ops.contains(&"OP lru_gen - app 0 3 max 10"));
    assert!(ops.contains(&"OP sleep 10000000ns"));
    assert_eq!(ops[ops.len() - 1], "OP exit b");
    // The order of accesses and other operations is the trace's.
    let idx = |s: &str| got.iter().position(|l| l == s).expect(s);
    assert!(idx("OP dump") < idx("ACCESS b store lib 15"));
    assert!(idx("ACCESS b store lib 15") < idx("OP exit a"));
    assert!(idx("OP exit a") < idx("ACCESS b load lib 0"));
}

#[test]
fn large_counts_expand_per_page_and_reads_stay_one_line() {
    let t = "file f size=8M\ntask t\nanon t h size=8M\nload t h 0 2048\nread t f 0 2048\n";
    let got = log_of(t);
    assert_eq!(got, expected_from_ops(t));
    assert_eq!(
        got.iter()
            .filter(|l| l.starts_with("ACCESS t load h "))
            .count(),
        2048
    );
    assert_eq!(
        got.last().map(String::as_str),
        Some("ACCESS t read f 0 2048")
    );
}

#[test]
fn a_bad_trace_names_the_line() {
    let mut out = Vec::new();
    let e = dry_run(
        TraceReader::from_str("bad.trace", "task t\nload t nowhere 0\n"),
        &mut out,
    )
    .expect_err("invalid trace");
    assert_eq!(e.kind, ErrorKind::Trace);
    assert!(e.msg.starts_with("bad.trace:2:"), "{}", e.msg);
    // What came before the error was logged.
    assert_eq!(String::from_utf8_lossy(&out), "OP task t memcg=root\n");
}

#[test]
fn the_binary_dry_run_prints_the_same_log() {
    let dir = std::env::temp_dir().join(format!("mglru-replay-dry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let trace = dir.join("all.trace");
    std::fs::write(&trace, TRACE).expect("write trace");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mglru-replay"))
        .arg(&trace)
        .arg("--dry-run")
        .output()
        .expect("run mglru-replay");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(got, expected_from_ops(TRACE));
}

#[test]
fn the_binary_reports_errors_without_panicking() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mglru-replay"))
        .arg("/nonexistent/x.trace")
        .arg("--dry-run")
        .output()
        .expect("run mglru-replay");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/x.trace: cannot open"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mglru-replay"))
        .arg("x.trace")
        .output()
        .expect("run mglru-replay");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--data-dir DIR is required"));
}
