// SPDX-License-Identifier: GPL-2.0-only
//! The real-run machinery (controller, forked workers, sockets, file
//! descriptor passing, mmap, pread/pwrite, loads and stores) against a
//! fake kernel: `--sys-root` points procfs/sysfs/debugfs at a directory of
//! ordinary files and `--cgroup-root` at an ordinary directory, where every
//! write is appended as a line. Nothing of the host's configuration is
//! touched (apart from a harmless `sync`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Fake {
    top: PathBuf,
    sys: PathBuf,
    cg: PathBuf,
    data: PathBuf,
}

impl Fake {
    fn new(tag: &str) -> Fake {
        let top = std::env::temp_dir().join(format!("mglru-replay-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&top);
        let sys = top.join("sys");
        let cg = top.join("cg");
        let data = top.join("data");
        for d in [
            sys.join("proc/self"),
            sys.join("proc/sys/vm"),
            sys.join("sys/kernel/mm/lru_gen"),
            sys.join("sys/kernel/debug"),
            cg.clone(),
            data.clone(),
        ] {
            fs::create_dir_all(d).expect("mkdir");
        }
        let w = |p: PathBuf, s: &str| fs::write(p, s).expect("write fake file");
        w(sys.join("proc/self/cgroup"), "0::/mglru-replayer\n");
        w(
            sys.join("proc/vmstat"),
            "nr_free_pages 1000\npgfault 5\nworkingset_nodes 3\n",
        );
        w(
            sys.join("proc/meminfo"),
            "MemTotal:        1000 kB\nSwapTotal:       0 kB\n",
        );
        w(sys.join("sys/kernel/mm/lru_gen/enabled"), "0x0007\n");
        w(
            sys.join("sys/kernel/debug/lru_gen"),
            "memcg     1 /\n node     0\nmemcg     7 /app\n node     0\nmemcg     8 /app/web\n node     0\n",
        );
        w(cg.join("cgroup.procs"), "");
        w(cg.join("memory.stat"), "anon 4096\nfile 8192\n");
        Fake { top, sys, cg, data }
    }

    fn run(&self, trace: &str, extra: &[&str]) -> Output {
        let t = self.top.join("t.trace");
        fs::write(&t, trace).expect("write trace");
        Command::new(env!("CARGO_BIN_EXE_mglru-replay"))
            .arg(&t)
            .arg("--data-dir")
            .arg(&self.data)
            .arg("--cgroup-root")
            .arg(&self.cg)
            .arg("--sys-root")
            .arg(&self.sys)
            .args(extra)
            .output()
            .expect("run mglru-replay")
    }

    fn read(&self, p: &Path) -> String {
        fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.top);
    }
}

const TRACE: &str = "\
memory 64M
swap 32M sync=y
sysctl vm.swappiness=100
sysctl lru_gen.enabled=y
sysctl vm.page-cluster=0
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
advise b lib random
advise b data willneed
reclaim app 1M swappiness=30
reclaim app 4K swappiness=max
sleep 1ms
lru_gen + web 0 5
lru_gen - app 0 3 max 10
lru_gen + root 0 4
dump
store b lib 15
exit a
load b lib 0 2
memcg app max=max
file late size=8K
read b late 0 2
store b lib 3 2
";

fn page_word(bytes: &[u8], page: usize) -> u64 {
    let o = page * 4096;
    u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"))
}

#[test]
fn real_run_against_a_fake_kernel() {
    let f = Fake::new("e2e");
    let out = f.run(TRACE, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");

    // The one result line.
    let results: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("MGLRU-REPLAY-RESULT "))
        .collect();
    assert_eq!(results.len(), 1, "{stdout}");
    let r = results[0];
    for want in [
        r#""lru_gen_enabled":"0x0007""#,
        r#""memory":67108864"#,
        r#""swap":{"bytes":33554432,"sync":true}"#,
        r#""vmstat":{"nr_free_pages":1000,"pgfault":0,"workingset_nodes":0}"#,
        r#""root":{"stat":{"anon":4096,"file":8192}}"#,
        r#""app":{}"#,
        r#""operations":36"#,
        r#""skipped_operations":0"#,
        r#""killed_tasks":[]"#,
        // No /proc/pressure/memory and no memory.pressure: a kernel
        // without PSI.
        r#""psi":null"#,
        // The guest clock's first sample is the first operation after the
        // definitions (line 15), taken when the workload began.
        r#""time_profile":{"every_ns":10000000,"lines":[15"#,
    ] {
        assert!(r.contains(want), "missing {want} in {r}");
    }
    // The lru_gen text at the end (the fake file with the commands
    // appended).
    assert!(r.contains(r#""lru_gen":"memcg     1 /\n"#), "{r}");
    assert!(stdout.contains("MGLRU-REPLAY: trace machine: memory 67108864 swap 33554432 sync=y"));
    assert!(stdout.contains("MGLRU-REPLAY-DUMP-BEGIN 1 "));
    assert!(stdout.contains("MGLRU-REPLAY-DUMP-END 1"));

    // Kernel files written, in order.
    let vm = f.sys.join("proc/sys/vm");
    assert_eq!(f.read(&vm.join("swappiness")), "100\n");
    assert_eq!(f.read(&vm.join("page-cluster")), "0\n");
    assert_eq!(f.read(&vm.join("drop_caches")), "3\n");
    assert_eq!(
        f.read(&f.sys.join("sys/kernel/mm/lru_gen/enabled")),
        "0x0007\ny\n"
    );
    let lru = f.read(&f.sys.join("sys/kernel/debug/lru_gen"));
    assert!(lru.ends_with("+ 8 0 5\n- 7 0 3 201 10\n+ 1 0 4\n"), "{lru}");
    // The trace's `max` swappiness (201) is passed on as a number.
    assert_eq!(
        f.read(&f.cg.join("cgroup.subtree_control")),
        "+memory\n+memory\n"
    );
    assert_eq!(
        f.read(&f.cg.join("app/cgroup.subtree_control")),
        "+memory\n"
    );
    assert_eq!(f.read(&f.cg.join("app/memory.max")), "33554432\nmax\n");
    // 7.2 spells anon-only reclaim `max` (it refuses 201).
    assert_eq!(f.read(&f.cg.join("app/memory.reclaim")), "1048576 swappiness=30\n4096 swappiness=max\n");
    assert_eq!(f.read(&f.cg.join("app/web/memory.high")), "16777216\n");
    assert_eq!(f.read(&f.cg.join("app/web/memory.swap.max")), "0\n");
    assert!(!f.cg.join("app/web/memory.low").exists());

    // The replayer and the workers joined their cgroups.
    let pid_in = |p: PathBuf| -> u32 {
        let s = f.read(&p);
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{}: `{s}`", p.display()))
    };
    assert!(pid_in(f.cg.join("mglru-replayer/cgroup.procs")) > 0);
    let a = pid_in(f.cg.join("app/web/cgroup.procs"));
    let b = pid_in(f.cg.join("cgroup.procs"));
    assert!(a > 0 && b > 0 && a != b);
    assert!(
        stdout.contains(&format!("task a = pid {a} in ")),
        "{stdout}"
    );

    // The files, and what the workers' accesses did to them.
    let lib = fs::read(f.data.join("f000000-lib")).expect("lib");
    assert_eq!(lib.len(), 65536);
    // No all-zero page.
    assert!(lib.chunks(4096).all(|pg| pg.iter().any(|&x| x != 0)));
    // `store b lib 15` and `store b lib 3 2` went through the shared
    // mapping into the file.
    let store = |page: u64, i: u64| (0x6d67_6c72_0000_0000u64 | (page << 1)).wrapping_add(i) | 1;
    assert_eq!(page_word(&lib, 15), store(15, 0));
    assert_eq!(page_word(&lib, 3), store(3, 0));
    assert_eq!(page_word(&lib, 4), store(3, 1));
    // Untouched pages keep the creation pattern: bit 63, file 0, page N.
    assert_eq!(page_word(&lib, 5), (1 << 63) | 5);
    let data = fs::read(f.data.join("f000001-data")).expect("data");
    assert_eq!(data.len(), 1 << 20);
    // `write a data 4 2` wrote the shared buffer, which held pages 0 and
    // 1 of `data` from `read b data 0 16`.
    assert_eq!(page_word(&data, 4), (1 << 63) | (1 << 40));
    assert_eq!(page_word(&data, 5), (1 << 63) | (1 << 40) | 1);
    assert_eq!(page_word(&data, 6), (1 << 63) | (1 << 40) | 6);
    let late = fs::read(f.data.join("f000002-late")).expect("late");
    assert_eq!(late.len(), 8192);
}

#[test]
fn a_bad_trace_line_stops_the_run_with_its_location() {
    let f = Fake::new("bad");
    let out = f.run(
        "task t\nanon t h size=8K\nstore t h 0\nload t nowhere 0\n",
        &["--quiet"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.trace:4:"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("MGLRU-REPLAY-RESULT"));
}

#[test]
fn a_failing_kernel_file_names_the_path_and_line() {
    let f = Fake::new("sysfail");
    // A directory where the memcg's memory.max should be: the write fails.
    fs::create_dir_all(f.cg.join("x")).expect("mkdir");
    let out = f.run("memcg x max=1M\n", &["--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("t.trace:1: `memcg x parent=root max=1048576`"),
        "{err}"
    );
    assert!(err.contains("mkdir"), "{err}");
    assert!(err.contains("EEXIST"), "{err}");
}

#[test]
fn a_memcg_missing_from_the_lru_gen_file_is_an_error() {
    let f = Fake::new("lrugen");
    let out = f.run("memcg z\nlru_gen + z 0 4\n", &["--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.trace:2: `lru_gen + z 0 4`"), "{err}");
    assert!(err.contains("has no `memcg ID /z` line"), "{err}");
}

#[test]
fn a_killed_worker_is_reported_and_its_operations_skipped() {
    let f = Fake::new("kill");
    let t = f.top.join("t.trace");
    fs::write(
        &t,
        "memcg m\ntask v memcg=m\ntask w\nanon v h size=64K\nanon w h size=8K\nstore v h 0 4\n\
         sleep 3s\nstore v h 4 4\nload v h 0 16\nstore w h 0 2\nexit v\n",
    )
    .expect("trace");
    let child = Command::new(env!("CARGO_BIN_EXE_mglru-replay"))
        .arg(&t)
        .arg("--data-dir")
        .arg(&f.data)
        .arg("--cgroup-root")
        .arg(&f.cg)
        .arg("--sys-root")
        .arg(&f.sys)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait for v to join memcg m, then kill it as the OOM killer would.
    let procs = f.cg.join("m/cgroup.procs");
    let mut pid = 0;
    for _ in 0..200 {
        if let Ok(s) = fs::read_to_string(&procs) {
            if let Ok(p) = s.trim().parse::<i32>() {
                pid = p;
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(pid > 0, "worker did not join its memcg");
    // The worker joins its memcg during set-up, before the replayer reaches line 6, so how
    // long set-up takes decides which of v's operations first finds it dead: the store on
    // line 6 (slow machine) or the one on line 8 after the 3 s sleep. Either is correct as
    // long as the report names that line and skips exactly the operations after it.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // SAFETY: signalling the worker process found above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("task v (pid {pid}) killed by signal 9")),
        "{stdout}"
    );
    let r = stdout
        .lines()
        .find(|l| l.starts_with("MGLRU-REPLAY-RESULT "))
        .expect("result line");
    let at = |line: u32| {
        format!(r#""killed_tasks":[{{"task":"v","pid":{pid},"signal":9,"line":{line}}}]"#)
    };
    if r.contains(&at(8)) {
        // store v h 4 4 found the worker dead; load v and exit v were skipped.
        assert!(r.contains(r#""skipped_operations":2"#), "{r}");
    } else {
        assert!(r.contains(&at(6)), "{r}");
        // store v h 0 4 found it dead; the two later stores of v and its exit were skipped
        // (the sleep is not a task operation).
        assert!(r.contains(r#""skipped_operations":3"#), "{r}");
    }
    assert!(r.contains(r#""operations":11"#), "{r}");
}

#[test]
fn the_run_starts_after_the_statistics_flush_the_probe_sees() {
    let f = Fake::new("flushsync");
    // Play the kernel's periodic flush: 300 ms after the replayer made its
    // probe memcg, the probe's memory.stat shows the charged pages.
    let probe = f.cg.join("mglru-replay-flush-probe");
    let p2 = probe.clone();
    let flusher = std::thread::spawn(move || {
        for _ in 0..1000 {
            if p2.join("cgroup.procs").exists() {
                std::thread::sleep(std::time::Duration::from_millis(300));
                fs::write(p2.join("memory.stat"), "anon 16384\nfile 0\n").expect("write stat");
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        false
    });
    let out = f.run(
        "memcg m\ntask t memcg=m\nanon t h size=8K\nstore t h 0 2\n",
        &["--sync-stats-flush"],
    );
    assert!(flusher.join().expect("thread"), "the probe memcg was never made");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // The replayer moved itself into the probe and back to its own cgroup.
    let procs = f.read(&probe.join("cgroup.procs"));
    assert_eq!(procs.lines().count(), 1, "{procs}");
    assert!(stdout.contains("start: a memcg statistics flush seen after"), "{stdout}");
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    let waited: f64 = r
        .split("\"stats_flush_synced_after_seconds\":")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no wait in {r}"));
    assert!((0.25..5.0).contains(&waited), "waited {waited} s");
}

#[test]
fn without_a_flush_the_run_starts_unsynchronised_with_a_warning() {
    let f = Fake::new("noflush");
    let out = f.run("memcg m\ntask t memcg=m\nanon t h size=8K\nstore t h 0 2\n", &["--sync-stats-flush"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("warning: no periodic memcg statistics flush seen in 6 s"), "{stdout}");
    assert!(stdout.contains("\"stats_flush_synced_after_seconds\":null"), "{stdout}");
}

/// `--parallel`: two workers on two CPUs get their stores as the lines
/// release them, without waiting for each other's to end; every store
/// lands (distinct pages of one shared file mapping), the non-access lines
/// between them wait for both workers, and the result says which schedule
/// ran.
#[test]
fn a_parallel_run_lands_every_access_of_both_tasks() {
    let f = Fake::new("parallel");
    let mut trace = String::from("memory 64M\ncpus 2\nfile f size=64K\ntask a cpu=0\ntask b cpu=1\nmmap a fa file=f\nmmap b fb file=f\n");
    for i in 0..4 {
        trace += &format!("store a fa {} 1\nstore b fb {} 1\nload a fa {} 1\n", i, 8 + i, 8 + i);
    }
    trace += "advise a fa random\n";
    for i in 4..8 {
        trace += &format!("store b fb {} 1\nstore a fa {} 1\n", 8 + i, i);
    }
    let out = f.run(&trace, &["--parallel"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    assert!(r.contains(r#""replay_schedule":"parallel""#), "{r}");
    // No /proc of the workers in a fake system: their CPU time is unknown.
    assert!(r.contains(r#""task_cpu_seconds":{"a":null,"b":null}"#), "{r}");
    assert!(r.contains(r#""operations":28"#), "{r}");
    assert!(r.contains(r#""skipped_operations":0"#), "{r}");
    let data = fs::read(f.data.join("f000000-f")).expect("f");
    let store = |page: u64| (0x6d67_6c72_0000_0000u64 | (page << 1)) | 1;
    for p in 0..8 {
        assert_eq!(page_word(&data, p), store(p as u64), "page {p}, stored by a");
        assert_eq!(page_word(&data, 8 + p), store(8 + p as u64), "page {}, stored by b", 8 + p);
    }
    // Serially the same trace says so.
    let out = f.run(&trace, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains(r#""replay_schedule":"serial""#), "{stdout}");
}

/// `truncate` sets the data file's length, `unlink` removes it while a
/// worker still maps it (the mapping keeps working), `munmap` unmaps.
#[test]
fn truncate_unlink_and_munmap_reach_the_files_and_the_workers() {
    let f = Fake::new("unlink");
    let trace = "\
memory 64M
file keep size=64K
file gone size=16K
task a
mmap a m file=gone
anon a heap size=32K
store a heap 0 2
load a m 0 1
truncate keep 8195
unlink gone
load a m 1 3
munmap a m
munmap a heap
anon a heap size=8K
store a heap 1
exit a
";
    let out = f.run(trace, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains(r#""skipped_operations":0"#), "{stdout}");
    // 8195 bytes rounds up to 3 pages.
    let keep = fs::metadata(f.data.join("f000000-keep")).expect("keep");
    assert_eq!(keep.len(), 3 * 4096);
    assert!(!f.data.join("f000001-gone").exists());
    assert!(stdout.contains("unlinked "), "{stdout}");
}

/// `populate=y` (MADV_POPULATE_WRITE/READ after the mapping), `mlock`
/// and `munlock` of whole regions reach the worker and succeed.
#[test]
fn populate_mlock_and_munlock_reach_the_worker() {
    let f = Fake::new("mlock");
    let trace = "\
memory 64M
file f size=16K
task a
anon a heap size=8K populate=y
mmap a m file=f populate=y
mlock a heap
mlock a m
advise a heap dontneed
store a heap 1
load a m 3
munlock a heap
munlock a m
exit a
";
    let out = f.run(trace, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains(r#""skipped_operations":0"#), "{stdout}");
    // MADV_DONTNEED of the locked region is EINVAL: recorded, not sent.
    assert!(stdout.contains(r#""soft_error_count":1"#), "{stdout}");
}

/// The memcg files of issue 16 on a fake kernel: memory.oom.group written
/// with the limits, each worker writes its trace's oom_score_adj, a later
/// `task` statement writes the worker's pid to the new memcg's
/// cgroup.procs and its /proc/PID/oom_score_adj, `peak=reset` writes to a
/// kept open memory.peak, `stat` reads the files into the result line, and
/// each `reclaim` leaves its result there.
#[test]
fn memcg_files_task_moves_and_stat() {
    let f = Fake::new("memcg16");
    // The worker opens its oom_score_adj without creating it (a real
    // kernel file): the fake needs it to exist.
    fs::write(f.sys.join("proc/self/oom_score_adj"), "0\n").unwrap();
    let out = f.run(
        "memcg app max=32M oom.group=1\nmemcg web\ntask a memcg=app oom_score_adj=-17\nanon a heap size=8K\n\
         store a heap 0 2\nmemcg app peak=reset\ntask a memcg=web oom_score_adj=250\nreclaim web 4K\nstat web\n",
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let app = f.cg.join("mglru-replay").join("app");
    let app = if app.exists() { app } else { f.cg.join("app") };
    assert_eq!(f.read(&app.join("memory.oom.group")), "1\n");
    assert_eq!(f.read(&app.join("memory.peak")), "reset\n");
    // The worker wrote -17 as its own oom_score_adj when it started.
    let own = f.read(&f.sys.join("proc/self/oom_score_adj"));
    assert!(own.starts_with("-17"), "{own:?}");
    let web = app.parent().unwrap().join("web");
    let pid: i32 = f.read(&web.join("cgroup.procs")).trim().parse().expect("a pid in web's cgroup.procs");
    assert_eq!(f.read(&f.sys.join(format!("proc/{pid}/oom_score_adj"))), "250\n");
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    assert!(r.contains(r#""stats":[{"line":9,"memcg":"web""#), "{r}");
    assert!(r.contains(r#""reclaims":[{"line":8,"memcg":"web","bytes":4096,"result":0}]"#), "{r}");
    assert!(stdout.contains("MGLRU-REPLAY-STAT-BEGIN 1 web "), "{stdout}");
}

/// `fork`: the parent's worker forks the child's (a real fork, so the
/// child has the parent's mappings at the same addresses): the child's
/// stores through its copy of the shared file mapping land in the file,
/// its private anon copy can be loaded, stored and unmapped, and it goes
/// on after its parent exits (the controller waits for a worker it did
/// not fork through a pidfd). Serially and in parallel.
#[test]
fn fork_makes_a_worker_with_the_parents_mappings() {
    let f = Fake::new("fork");
    let trace = "\
memory 64M
cpus 2
file f size=16K
task a
anon a heap size=8K
mmap a m file=f
anon a gone size=4K
store a heap 0 2
munmap a gone
fork a c
store c m 1
load c heap 0 2
store c heap 1
munmap c heap
store a heap 1
exit a
store c m 2
exit c
";
    for flags in [&[][..], &["--parallel"][..]] {
        let out = f.run(trace, flags);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{flags:?} stdout:\n{stdout}\nstderr:\n{stderr}");
        assert!(stdout.contains(r#""skipped_operations":0"#), "{flags:?} {stdout}");
        assert!(stdout.contains("forked by task a"), "{flags:?} {stdout}");
        let data = fs::read(f.data.join("f000000-f")).expect("f");
        let store = |page: u64| (0x6d67_6c72_0000_0000u64 | (page << 1)) | 1;
        assert_eq!((page_word(&data, 1), page_word(&data, 2)), (store(1), store(2)), "{flags:?}: stored by c");
    }
}

/// Shmem: a tmpfs file is created empty (its size, no data written) in
/// `--tmpfs-dir`, a memfd with memfd_create, a shared anonymous mapping
/// with MAP_SHARED|MAP_ANONYMOUS (its hidden file id keeps the next
/// file's id in step); writes, reads, stores and loads reach them, and
/// unlink removes the tmpfs file's name.
#[test]
fn tmpfs_memfd_and_shared_anonymous_mappings() {
    let f = Fake::new("shmem");
    let shm = f.top.join("shm");
    fs::create_dir_all(&shm).expect("mkdir shm");
    let trace = "\
memory 64M
file t size=64K tmpfs=y
file m size=16K memfd=y
task a
anon a sh size=32K shared=y populate=y
file after size=8K
write a t 0 4
read a m 0 4
mmap a mm file=m
store a mm 1
store a sh 0 8
load a sh 7
read a after 0 2
unlink t
unlink m
exit a
";
    let out = f.run(trace, &["--tmpfs-dir", shm.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains(r#""skipped_operations":0"#), "{stdout}");
    assert!(!shm.join("f000000-t").exists(), "unlinked");
    // The file after the shared mapping's hidden one (id 2) has id 3.
    let after = fs::metadata(f.data.join("f000003-after")).expect("after");
    assert_eq!(after.len(), 2 * 4096);
    assert!(stdout.contains("(16 pages, shmem)") && stdout.contains("= memfd (4 pages, shmem)"), "{stdout}");
}

#[test]
fn psi_totals_are_differences_and_missing_groups_null() {
    // A kernel with PSI whose system totals do not move (the fake file is
    // the same at both ends) and memcgs without `memory.pressure` (the
    // fake cgroup directories have no such file).
    let f = Fake::new("psi");
    fs::create_dir_all(f.sys.join("proc/pressure")).expect("mkdir");
    fs::write(
        f.sys.join("proc/pressure/memory"),
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=5000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=2000\n",
    )
    .expect("write");
    let out = f.run("memory 64M\nmemcg app max=32M\nfile d size=64K\ntask t memcg=app\nread t d 0 4\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    let want = r#""psi":{"system":{"some_us":0,"full_us":0},"memcg":{"app":null}}"#;
    assert!(r.contains(want), "missing {want} in {r}");
}

#[test]
fn pagetypeinfo_is_recorded_at_both_ends_and_null_when_unreadable() {
    // Without the file: null at both ends, the run goes on.
    let f = Fake::new("pti0");
    let out = f.run("memory 64M\nfile d size=64K\ntask t\nread t d 0 4\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    assert!(r.contains(r#""pagetypeinfo_start":null"#) && r.contains(r#""pagetypeinfo_end":null"#), "{r}");
    // With it: the pageblocks of each migratetype per zone.
    let f = Fake::new("pti1");
    fs::write(
        f.sys.join("proc/pagetypeinfo"),
        "Page block order: 9\nPages per block:  512\n\n\
         Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 \n\
         Node    0, zone    DMA32, type    Unmovable      3      0      0      0      0      0      0      0      0      0      0 \n\
         Node    0, zone    DMA32, type      Movable      5      1      0      0      0      0      0      0      0      0      2 \n\n\
         Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate \n\
         Node 0, zone    DMA32          116           96            4            0            0 \n",
    )
    .expect("write");
    let out = f.run("memory 64M\nfile d size=64K\ntask t\nread t d 0 4\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    for key in ["pagetypeinfo_start", "pagetypeinfo_end"] {
        let want = format!(r#""{key}":{{"pageblock_order":9,"zones":{{"DMA32":{{"node":0,"blocks":{{"Unmovable":116,"Movable":96,"Reclaimable":4"#);
        assert!(r.contains(&want), "missing {want} in {r}");
    }
}

/// A kernel that lacks files the 6.12 reference has (6.1: no
/// memory.swap.peak; a fake declares them in `absent-files`): the result
/// lists them instead of inventing values, stat_refresh is not written
/// where it does not exist, the vmstat profile leaves out counters the
/// kernel does not print, and a trace line that writes a missing file
/// stops the run with the line.
#[test]
fn files_a_kernel_lacks_are_listed_and_writing_one_stops_the_run() {
    let absent = "memory.swap.peak\n/proc/sys/vm/stat_refresh\n/sys/kernel/mm/lru_gen/min_ttl_ms\n";
    let f = Fake::new("absent");
    fs::write(f.sys.join("absent-files"), absent).unwrap();
    let out = f.run("memcg app max=1M\nstat app\n", &["--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    assert!(r.contains(r#""absent_files":["#), "{r}");
    for f in ["/proc/sys/vm/stat_refresh", "/proc/vmstat:pgscan_kswapd", "memory.swap.peak"] {
        assert!(r.contains(&format!("\"{f}\"")), "{f}: {r}");
    }
    assert!(r.contains(r#""/sys/kernel/mm/lru_gen/min_ttl_ms""#), "{r}");
    assert!(
        r.contains(r#""stat_refresh":{"file":false,"before_snapshots":false,"before_profile_samples":false,"reclaim_counters_node_stats":null,"writes":0,"failed_writes":0,"last_error":null}"#),
        "{r}"
    );
    assert!(!f.sys.join("proc/sys/vm/stat_refresh").exists());
    // the profile has the one profiled counter the fake prints, no zeros for the rest
    assert!(r.contains(r#""counters":{"nr_free_pages":["#), "{r}");
    assert!(!r.contains(r#""pgscan_kswapd":["#), "{r}");
    // the stat line read no swap peak: none is reported
    assert!(!r.contains("swap_peak"), "{r}");

    let f = Fake::new("absent-reset");
    fs::write(f.sys.join("absent-files"), absent).unwrap();
    let out = f.run("memcg app\nmemcg app swap.peak=reset\n", &["--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.trace:2: `memcg app"), "{err}");
    assert!(err.contains("cannot reset memory.swap.peak") && err.contains("has no"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("MGLRU-REPLAY-RESULT"));

    let f = Fake::new("absent-sysctl");
    fs::write(f.sys.join("absent-files"), absent).unwrap();
    let out = f.run("sysctl lru_gen.min_ttl_ms=1000\nmemcg app\nstat app\n", &["--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.trace:1: `sysctl lru_gen.min_ttl_ms=1000`"), "{err}");
    assert!(err.contains("this kernel has no such file"), "{err}");
}

/// On a kernel whose reclaim counters are node statistics (7.2: printed
/// before nr_dirty_threshold), every vmstat sample is taken after a write
/// to stat_refresh, and the result says so.
#[test]
fn node_stat_reclaim_counters_are_refreshed_before_every_sample() {
    let f = Fake::new("nodestat");
    fs::write(
        f.sys.join("proc/vmstat"),
        "nr_free_pages 1000\npgscan_kswapd 0\npgscan_proactive 0\nnr_dirty_threshold 10\npgfault 5\n",
    )
    .unwrap();
    fs::write(f.sys.join("proc/sys/vm/stat_refresh"), "").unwrap();
    let out = f.run("memcg app\nstat app\nsleep 120ms\nstat app\n", &["--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    assert!(r.contains(r#""before_profile_samples":true,"reclaim_counters_node_stats":true"#), "{r}");
    let writes = f.read(&f.sys.join("proc/sys/vm/stat_refresh")).lines().count();
    // start and end snapshots and at least two samples
    assert!(writes >= 4, "{writes} writes");
    assert!(r.contains(&format!(r#""writes":{writes},"failed_writes":0"#)), "{r}");
    // keys the 6.12 reference does not have are carried as printed
    assert!(r.contains(r#""pgscan_proactive":0"#), "{r}");
}

/// A file declared after the task that reads it is not inherited at the
/// fork: its descriptor is passed over the task's socket at the task's
/// first use of it. That use may come while the task's earlier accesses
/// are still in flight (a read of one file, a store, then a read of the
/// other, as YCSB's trace has them): the descriptor's answer must be told
/// from theirs. Before the fix the controller took the oldest in-flight
/// access's answer (its byte count) for the descriptor, and the next
/// pread failed with EBADF (docs/REPRODUCTIONS-KERNEL.md, S4-a).
#[test]
fn a_file_declared_after_its_task_is_read_while_accesses_are_in_flight() {
    let f = Fake::new("late-fd");
    let trace = "memory 64M\nmemcg m max=32M\ntask t memcg=m\nfile a size=64K\nfile b size=64K\n\
                 anon t h size=16K\nread t a 0 1\nstore t h 0 1\nread t b 3 2\nstore t h 1 1\n\
                 read t a 4 1\nload t h 0 2\nread t b 0 1\n";
    let out = f.run(trace, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let r = stdout.lines().find(|l| l.starts_with("MGLRU-REPLAY-RESULT ")).expect("result line");
    for want in [r#""operations":13"#, r#""skipped_operations":0"#, r#""killed_tasks":[]"#] {
        assert!(r.contains(want), "missing {want} in {r}");
    }
    // Declared before the task, the same accesses ran before the fix too.
    let f = Fake::new("early-fd");
    let early = "memory 64M\nmemcg m max=32M\nfile a size=64K\nfile b size=64K\ntask t memcg=m\n\
                 anon t h size=16K\nread t a 0 1\nstore t h 0 1\nread t b 3 2\nstore t h 1 1\n\
                 read t a 4 1\nload t h 0 2\nread t b 0 1\n";
    let out = f.run(early, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(r#""operations":13"#), "{stdout}");
}
