// SPDX-License-Identifier: GPL-2.0-only
//! Importers: hand-checked page streams on small inputs, determinism, and
//! errors that name the file and line.

mod common;

use std::path::Path;

use common::{lines, statements, tmp};
use mglru_workload::{import, ImportOptions, Lines};

fn imp(format: &str, path: &Path) -> Vec<String> {
    imp_with(format, path, &ImportOptions::default())
}

fn imp_with(format: &str, path: &Path, opts: &ImportOptions) -> Vec<String> {
    statements(import(format, path, opts).unwrap_or_else(|e| panic!("{}: {}", format, e)))
}

/// The lines before the first error, and the error.
fn until_err(l: Lines) -> (Vec<String>, String) {
    let mut ok = Vec::new();
    for x in l {
        match x {
            Ok(s) => ok.push(s),
            Err(e) => return (ok.into_iter().filter(|s| !s.starts_with('#')).collect(), e),
        }
    }
    panic!("expected an error after {:?}", ok);
}

// ---------------------------------------------------------- fio-iolog ---

const IOLOG2: &str = "fio version 2 iolog
/dev/sdb add
/dev/sdb open
/dev/sdb read 0 4096
/dev/sdb write 6144 4096
/dev/sdb sync 0 0
/dev/sdb trim 0 4096
data.bin add
data.bin read 1048576 512
/dev/sdb wait 5000
/dev/sdb read 8192 8192
/dev/sdb close
";

#[test]
fn iolog_v2() {
    // 6144+4096 covers pages 1-2; 1048576+512 is page 256; `wait 5000`
    // (microseconds) becomes a 5 ms sleep; sync and trim are skipped.
    let p = tmp("log2", IOLOG2.as_bytes());
    let all = common::all(import("fio-iolog", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l == "# skipped: 1 sync, 1 trim"), "{:?}", all);
    let want = lines(
        "
        memory 1G
        task fio
        file /dev/sdb size=16K
        file data.bin size=1049088
        read fio /dev/sdb 0
        write fio /dev/sdb 1 2
        read fio data.bin 256
        sleep 5ms
        read fio /dev/sdb 2 2
        ",
    );
    assert_eq!(imp("fio-iolog", &p), want);
}

#[test]
fn iolog_v3_timestamps_become_sleeps() {
    // Timestamps in microseconds: a gap of 2000 us before the write.
    let p = tmp(
        "log3",
        b"fio version 3 iolog\n0 /dev/nvme0n1 add\n0 /dev/nvme0n1 open\n100 /dev/nvme0n1 read 0 4096\n600 /dev/nvme0n1 read 4096 4096\n2600 /dev/nvme0n1 write 0 4096\n5000000 /dev/nvme0n1 close\n",
    );
    let want = lines(
        "
        memory 1G
        task fio
        file /dev/nvme0n1 size=8K
        read fio /dev/nvme0n1 0
        read fio /dev/nvme0n1 1
        sleep 2ms
        write fio /dev/nvme0n1 0
        ",
    );
    assert_eq!(imp("fio-iolog", &p), want);
    let no_sleep = imp("fio-iolog:timing=0", &p);
    assert!(!no_sleep.iter().any(|l| l.starts_with("sleep")));
    let opts = ImportOptions { memory: Some(64 << 20), memcg_max: Some(32 << 20), ..ImportOptions::default() };
    let got = imp_with("fio-iolog", &p, &opts);
    assert_eq!(&got[..3], &["memory 64M", "memcg trace max=32M", "task fio memcg=trace"]);
}

#[test]
fn iolog_errors() {
    let p = tmp("bad", b"fio version 4 iolog\n");
    let e = import("fio-iolog", &p, &ImportOptions::default()).err().unwrap();
    assert!(e.ends_with("bad:1: expected the header `fio version 2 iolog` or `fio version 3 iolog`, found `fio version 4 iolog`"), "{}", e);
    let p = tmp("bad2", b"fio version 2 iolog\n/dev/sda read 0 4096\n/dev/sda read abc 4096\n/dev/sda read 0 4096\n");
    let (ok, e) = until_err(import("fio-iolog", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "read fio /dev/sda 0");
    assert!(e.ends_with("bad2:3: OFFSET `abc` is not a non-negative integer"), "{}", e);
    let p = tmp("bad3", b"fio version 3 iolog\n/dev/sda read 0 4096\n");
    let (_, e) = until_err(import("fio-iolog", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("bad3:2: expected `TIME FILE ACTION [OFFSET LENGTH]` with a numeric TIME"), "{}", e);
    let p = tmp("bad4", b"fio version 2 iolog\n/dev/sda frob 0 4096\n");
    let (_, e) = until_err(import("fio-iolog", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("bad4:2: unknown action `frob`"), "{}", e);
    let e = import("fio-iolog", Path::new("/nonexistent/log"), &ImportOptions::default()).err().unwrap();
    assert!(e.contains("/nonexistent/log: cannot open"), "{}", e);
    let e = import("fio-iolog:timeunit=ns", &p, &ImportOptions::default()).err().unwrap();
    assert!(e.contains("unknown parameter `timeunit`"), "{}", e);
}

// ----------------------------------------------------------- blkparse ---

const BLK: &str = "  8,0    3        1     0.000000000   697  Q   R 223490 + 8 [kjournald]
  8,0    3        2     0.000001000   697  G   R 223490 + 8 [kjournald]
  8,0    3        3     0.000100000   697  Q  WS 223498 + 16 [kjournald]
  8,16   0        1     0.005000000  1234  Q  RA 0 + 8 [cat]
  8,0    3        4     0.005100000   697  Q FWS [kjournald]
  8,0    1        5     0.006000000   697  Q   D 100 + 8 [fstrim]
  8,0    3        6     0.006000000   697  C   R 223490 + 8 [0]

CPU0 (8,0):
 Reads Queued:           1,        4KiB\t Writes Queued:           1,        8KiB
";

#[test]
fn blkparse_queued_events() {
    // Sector 223490 * 512 = page 27936.25: 8 sectors cover pages
    // 27936-27937; 16 sectors at 223498 cover 27937-27939. Discards,
    // flushes and non-Q events are skipped; the summary ends the trace.
    let p = tmp("blk.txt", BLK.as_bytes());
    let want = lines(
        "
        memory 1G
        task blk
        file blk8_0 size=111757K
        file blk8_16 size=4K
        read blk blk8_0 27936 2
        write blk blk8_0 27937 3
        sleep 4900us
        read blk blk8_16 0
        ",
    );
    assert_eq!(imp("blkparse", &p), want);
    let got = imp("blkparse:tasks=pid,timing=0", &p);
    assert_eq!(&got[1..3], &["task pid697", "task pid1234"]);
    assert!(got.contains(&"read pid1234 blk8_16 0".to_string()));
    // 4K sectors: sector 0 + 8 = 32K.
    let opts = ImportOptions { block_size: Some(4096), ..ImportOptions::default() };
    assert!(imp_with("blkparse", &p, &opts).contains(&"read blk blk8_16 0 8".to_string()));
}

#[test]
fn blkparse_errors() {
    let p = tmp("blk-bad.txt", b"  8,0 3 1 0.0 697 Q R 10 + 8 [a]\n  8,0 3 2 0.0 697 Q R abc + 8 [a]\n");
    let (ok, e) = until_err(import("blkparse", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "read blk blk8_0 1 2");
    assert!(e.ends_with("blk-bad.txt:2: bad SECTOR `abc`: expected a number"), "{}", e);
    let p = tmp("blk-bad2.txt", b"hello world\n");
    let (_, e) = until_err(import("blkparse", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("blk-bad2.txt:1: expected a blkparse event"), "{}", e);
    let p = tmp("blk-bad3.txt", b"  8,0 3 1 0.0 697 Q R 10 8 [a]\n");
    let (_, e) = until_err(import("blkparse", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("blk-bad3.txt:1: a Q event needs `SECTOR + COUNT`"), "{}", e);
}

// ------------------------------------------------------------- strace ---

const STRACE: &str = r#"1000  10:00:00.000000 openat(AT_FDCWD, "/etc/data.db", O_RDONLY) = 3
1000  10:00:00.000100 read(3, "abc\"def", 4096) = 4096
1000  10:00:00.000200 read(3, ""..., 4096) = 100
1000  10:00:00.000300 lseek(3, 8192, SEEK_SET) = 8192
1000  10:00:00.000400 pread64(3, "x"..., 8192, 65536) = 8192
1001  10:00:00.010000 openat(AT_FDCWD, "out.log", O_WRONLY|O_CREAT, 0644) = 4
1001  10:00:00.010100 write(4, "hello, world", 12 <unfinished ...>
1000  10:00:00.010150 read(3, "y", 1) = 1
1001  10:00:00.010200 <... write resumed>) = 12
1001  10:00:00.010300 pwrite64(4, "z", 1, 4095) = 1
1000  10:00:00.010400 mmap(NULL, 16384, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
1000  10:00:00.010500 read(5, "q", 1) = 1
1001  10:00:00.010600 close(4) = 0
1000  10:00:00.010700 openat(AT_FDCWD, "/missing", O_RDONLY) = -1 ENOENT (No such file or directory)
1001  10:00:00.020000 +++ exited with 0 +++
1000  10:00:00.020100 read(0, "", 10) = 0
1000  10:00:00.020200 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---
"#;

#[test]
fn strace_file_io_per_pid() {
    // read() advances the file position, lseek() sets it, pread64() and
    // pwrite64() use their offset; an unfinished write is completed by its
    // resumed line; fd 5 was never opened: skipped. The mapping is created
    // but its accesses are invisible.
    let p = tmp("strace.txt", STRACE.as_bytes());
    let want = lines(
        "
        memory 1G
        task pid1000
        task pid1001
        file /etc/data.db size=72K
        file out.log size=4K
        read pid1000 /etc/data.db 0
        read pid1000 /etc/data.db 1
        read pid1000 /etc/data.db 16 2
        sleep 9750us
        read pid1000 /etc/data.db 2
        write pid1001 out.log 0
        write pid1001 out.log 0
        mmap pid1000 m0 file=/etc/data.db
        sleep 9600us
        exit pid1001
        ",
    );
    assert_eq!(imp("strace", &p), want);
    let all = common::all(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l.contains("invisible to strace")));
}

#[test]
fn strace_pid_prefix_and_threads() {
    // `[pid N]` prefixes (strace -f to a terminal), unprefixed lines of the
    // first process (`main`), -ttt timestamps, and a thread using a
    // descriptor its sibling opened.
    let text = r#"1700000000.000000 openat(AT_FDCWD, "f", O_RDONLY) = 3
1700000000.000001 read(3, "a", 5000) = 5000
[pid  42] 1700000000.000002 read(3, "b", 4096) = 4096
[pid  42] 1700000000.000003 exit_group(0) = ?
[pid  42] 1700000000.000004 +++ exited with 0 +++
"#;
    let p = tmp("strace2.txt", text.as_bytes());
    let want = lines(
        "
        memory 1G
        task main
        task pid42
        file f size=5000
        read main f 0 2
        read pid42 f 0
        exit pid42
        ",
    );
    assert_eq!(imp("strace", &p), want);
}

#[test]
fn strace_munmap_truncate_unlink() {
    // munmap of the whole mapping unmaps its region; one of memory the
    // trace never mapped is skipped and counted. ftruncate shrinks the
    // file; the write at 12288 lies beyond the 5000 bytes left, so the file
    // grows back first (16384 bytes end its 4 pages). unlink removes the
    // name: the same path opened again is a new file `d.gen2`. Removing a
    // directory, or a file the trace never uses, gives nothing.
    let text = r#"1 10:00:00.000000 openat(AT_FDCWD, "d", O_RDWR) = 3
1 10:00:00.000001 pwrite64(3, "x", 16384, 0) = 16384
1 10:00:00.000002 mmap(NULL, 16384, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
1 10:00:00.000003 ftruncate(3, 5000) = 0
1 10:00:00.000004 pwrite64(3, "y", 4096, 12288) = 4096
1 10:00:00.000005 munmap(0x7f0000000000, 16384) = 0
1 10:00:00.000006 munmap(0x7f0000100000, 4096) = 0
1 10:00:00.000007 unlink("d") = 0
1 10:00:00.000008 openat(AT_FDCWD, "d", O_RDWR|O_CREAT, 0644) = 4
1 10:00:00.000009 write(4, "z", 100) = 100
1 10:00:00.000010 unlinkat(AT_FDCWD, "dir", AT_REMOVEDIR) = 0
1 10:00:00.000011 unlink("never-used") = 0
1 10:00:00.000012 truncate("d", 0) = 0
"#;
    let p = tmp("strace-unmap.txt", text.as_bytes());
    let want = lines(
        "
        memory 1G
        task pid1
        file d size=16K
        file d.gen2 size=4K
        write pid1 d 0 4
        mmap pid1 m0 file=d
        truncate d 5000
        truncate d 16384
        write pid1 d 3
        munmap pid1 m0
        unlink d
        write pid1 d.gen2 0
        truncate d.gen2 0
        ",
    );
    let got = imp("strace", &p);
    assert_eq!(got, want);
    common::must_parse("strace-unmap", &got);
    let all = common::all(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l.starts_with("# skipped: 1 munmap calls")), "{all:?}");
}

#[test]
fn strace_mlock_and_map_populate() {
    // MAP_POPULATE on a file mapping -> populate=y; mlock/munlock of the
    // whole mapping (length rounded to pages) -> mlock/munlock; a lock of
    // part of it, or MLOCK_ONFAULT, is skipped and counted.
    let text = r#"1 10:00:00.000000 openat(AT_FDCWD, "d", O_RDONLY) = 3
1 10:00:00.000001 mmap(NULL, 8000, PROT_READ, MAP_SHARED|MAP_POPULATE, 3, 0) = 0x7f0000000000
1 10:00:00.000002 mlock(0x7f0000000000, 8192) = 0
1 10:00:00.000003 mlock(0x7f0000000000, 4096) = 0
1 10:00:00.000004 mlock2(0x7f0000000000, 8192, MLOCK_ONFAULT) = 0
1 10:00:00.000005 munlock(0x7f0000000000, 8000) = 0
"#;
    let p = tmp("strace-mlock.txt", text.as_bytes());
    let want = lines(
        "
        memory 1G
        task pid1
        file d size=8000
        mmap pid1 m0 file=d populate=y
        mlock pid1 m0
        munlock pid1 m0
        ",
    );
    let got = imp("strace", &p);
    assert_eq!(got, want);
    common::must_parse("strace-mlock", &got);
    let all = common::all(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l.starts_with("# skipped: 2 mlock/munlock calls")), "{all:?}");
}

#[test]
fn strace_fork_threads_and_exec() {
    // 1 maps d, then forks 2 (clone without CLONE_VM): the child is made by
    // `fork`, not `task`, and inherits fd 3 and the mapping m0 (its munmap
    // of it is whole). A clone with CLONE_VM is a thread (3): its read is
    // its process's. 4 is forked by vfork and its first line comes before
    // the vfork returns (strace -f can print it so): the fork goes out at
    // that line. 2's execve drops its mappings: m0 only (m1, which 1 maps
    // after the fork, is not 2's). The thread's exit ends nothing, 1's
    // does.
    let text = r#"1 10:00:00.000000 openat(AT_FDCWD, "d", O_RDONLY) = 3
1 10:00:00.000001 mmap(NULL, 8192, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000000000
1 10:00:00.000002 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f1) = 2
2 10:00:00.000003 read(3, "a", 4096) = 4096
1 10:00:00.000004 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, child_tid=0x7f2}, 88) = 3
3 10:00:00.000005 pread64(3, "b", 4096, 4096) = 4096
4 10:00:00.000006 read(3, "c", 4096) = 4096
1 10:00:00.000007 vfork() = 4
1 10:00:00.000008 mmap(NULL, 4096, PROT_READ, MAP_SHARED, 3, 0) = 0x7f0000100000
2 10:00:00.000009 execve("/bin/true", ["true"], 0x7ff /* 1 var */) = 0
3 10:00:00.000010 +++ exited with 0 +++
2 10:00:00.000011 +++ exited with 0 +++
4 10:00:00.000012 munmap(0x7f0000000000, 8192) = 0
1 10:00:00.000013 +++ exited with 0 +++
"#;
    let p = tmp("strace-fork.txt", text.as_bytes());
    let want = lines(
        "
        memory 1G
        task pid1
        file d size=8K
        mmap pid1 m0 file=d
        fork pid1 pid2
        read pid2 d 0
        read pid1 d 1
        fork pid1 pid4
        read pid4 d 0
        mmap pid1 m1 file=d
        munmap pid2 m0
        exit pid2
        munmap pid4 m0
        exit pid1
        ",
    );
    let got = imp("strace", &p);
    assert_eq!(got, want);
    common::must_parse("strace-fork", &got);
}

#[test]
fn strace_shmem_memfd_and_shared_anonymous() {
    // A file under /dev/shm (the default tmpfs= directory) is tmpfs=y; one
    // under /tmp only when tmpfs= names it; memfd_create gives a memfd=y
    // file of its own (memfdN-NAME, N counting the calls); an mmap with
    // MAP_SHARED|MAP_ANONYMOUS is a shared anonymous region, which a
    // munmap of the whole of it unmaps. A private anonymous mmap is not
    // imported.
    let text = r#"1 10:00:00.000000 openat(AT_FDCWD, "/dev/shm/seg", O_RDWR|O_CREAT, 0600) = 3
1 10:00:00.000001 pwrite64(3, "x", 8192, 0) = 8192
1 10:00:00.000002 memfd_create("ring", MFD_CLOEXEC) = 4
1 10:00:00.000003 write(4, "y", 4096) = 4096
1 10:00:00.000004 openat(AT_FDCWD, "/tmp/t", O_RDWR|O_CREAT, 0600) = 5
1 10:00:00.000005 write(5, "z", 4096) = 4096
1 10:00:00.000006 mmap(NULL, 12288, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
1 10:00:00.000007 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000100000
1 10:00:00.000008 munmap(0x7f0000000000, 12288) = 0
1 10:00:00.000009 read(4, "y", 4096) = 0
"#;
    let p = tmp("strace-shmem.txt", text.as_bytes());
    let want = |tmp_kind: &str| {
        lines(&format!(
            "
        memory 1G
        task pid1
        file /dev/shm/seg size=8K tmpfs=y
        file memfd1-ring size=4K memfd=y
        file /tmp/t size=4K{tmp_kind}
        write pid1 /dev/shm/seg 0 2
        write pid1 memfd1-ring 0
        write pid1 /tmp/t 0
        anon pid1 m0 size=12288 shared=y
        munmap pid1 m0
        "
        ))
    };
    let got = imp("strace", &p);
    assert_eq!(got, want(""));
    common::must_parse("strace-shmem", &got);
    let got = imp("strace:tmpfs=/dev/shm:/tmp/", &p);
    assert_eq!(got, want(" tmpfs=y"));
    common::must_parse("strace-shmem-tmp", &got);
    let all = common::all(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l.starts_with("# shmem: files under /dev/shm")), "{all:?}");
    let e = import("strace:tmpfs=tmp", &p, &ImportOptions::default()).err().expect("relative tmpfs dir");
    assert!(e.contains("absolute paths"), "{e}");
}

#[test]
fn strace_private_anonymous_populate_and_mlock() {
    // A private anonymous mmap with MAP_POPULATE faults every page in:
    // `anon ... populate=y`. One without it is not imported (strace sees
    // no access to it), unless an mlock of the whole of it comes, which
    // faults it in: the region is made just before the mlock, and a later
    // munlock and munmap of it are the region's. Its fork copy is the
    // child's own: the child's mlock makes the child's region. An mlock of
    // part of one, a munlock of one never locked, and the munmap of one
    // never imported are skipped and counted, as before.
    let text = r#"1 10:00:00.000000 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE, -1, 0) = 0x7f0000000000
1 10:00:00.000001 mmap(NULL, 12288, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000100000
1 10:00:00.000002 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000200000
1 10:00:00.000003 fork() = 2
1 10:00:00.000004 mlock(0x7f0000100000, 4096) = 0
1 10:00:00.000005 munlock(0x7f0000200000, 4096) = 0
1 10:00:00.000006 mlock(0x7f0000100000, 12288) = 0
2 10:00:00.000007 mlock(0x7f0000100000, 12288) = 0
1 10:00:00.000008 munlock(0x7f0000100000, 12288) = 0
1 10:00:00.000009 munmap(0x7f0000100000, 12288) = 0
1 10:00:00.000010 munmap(0x7f0000200000, 4096) = 0
1 10:00:00.000011 munmap(0x7f0000000000, 8192) = 0
"#;
    let p = tmp("strace-private-anon.txt", text.as_bytes());
    let want = lines(
        "
        memory 1G
        task pid1
        anon pid1 m0 size=8192 populate=y
        fork pid1 pid2
        anon pid1 m1 size=12288
        mlock pid1 m1
        anon pid2 m2 size=12288
        mlock pid2 m2
        munlock pid1 m1
        munmap pid1 m1
        munmap pid1 m0
        ",
    );
    let got = imp("strace", &p);
    assert_eq!(got, want);
    common::must_parse("strace-private-anon", &got);
    let all = common::all(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(all.iter().any(|l| l.starts_with("# skipped: 2 mlock/munlock calls")), "{all:?}");
    assert!(all.iter().any(|l| l.starts_with("# skipped: 1 munmap calls")), "{all:?}");
}

#[test]
fn strace_errors() {
    let p = tmp("strace-bad.txt", b"1 10:00:00.000000 openat(AT_FDCWD, \"f\", O_RDONLY) = 3\n1 10:00:00.000001 read(3, \"a\", 1) = 1\n1 10:00:00.000002 this is not a syscall\n");
    let (ok, e) = until_err(import("strace", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "read pid1 f 0");
    assert!(e.contains("strace-bad.txt:3: expected a system call `NAME(ARGS) = RESULT`"), "{}", e);
    let p = tmp("strace-bad2.txt", b"1 99:99 read(3, \"a\", 1) = 1\n");
    let (_, e) = until_err(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("strace-bad2.txt:1: bad timestamp `99:99`"), "{}", e);
    let p = tmp("strace-bad3.txt", b"1 pread64(3, \"a\", 1) = 1\n");
    let (_, e) = until_err(import("strace", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("strace-bad3.txt:1: `pread64` needs at least 4 arguments"), "{}", e);
}

// ------------------------------------------------------------- lackey ---

const LACKEY: &str = "==12345== Lackey, an example Valgrind tool
==12345== Command: ./a.out
I  04000000,3
 L 04000100,8
 S 04001ff8,16
 M 04300000,4
 L 7ff000ff0,8
 L 7ff000ff0,8
 S 04000100,8
==12345==
";

#[test]
fn lackey_regions_and_accesses() {
    // Pages 0x4000-0x4002 form one region; 0x4300 is 3 MiB away (a new
    // region), the stack another. The 16-byte store at 0x4001ff8 crosses
    // into the next page; M is a load and a store; the repeated load is
    // collapsed; instruction fetches are skipped.
    let p = tmp("lackey.out", LACKEY.as_bytes());
    let want = lines(
        "
        memory 1G
        task lackey
        anon lackey r0 size=12K
        anon lackey r1 size=4K
        anon lackey r2 size=4K
        load lackey r0 0
        store lackey r0 1 2
        load lackey r1 0
        store lackey r1 0
        load lackey r2 0
        store lackey r0 0
        ",
    );
    assert_eq!(imp("lackey", &p), want);
    let got = imp("lackey:instructions=1,collapse=0", &p);
    let ops: Vec<&String> = got.iter().skip(5).collect();
    assert_eq!(
        ops,
        vec![
            "load lackey r0 0",
            "load lackey r0 0",
            "store lackey r0 1 2",
            "load lackey r1 0",
            "store lackey r1 0",
            "load lackey r2 0",
            "load lackey r2 0",
            "store lackey r0 0"
        ]
    );
    // A 4 MiB gap: 0x4000 and 0x4300 merge into one region.
    let got = imp("lackey:gap=4M", &p);
    assert_eq!(got[2], "anon lackey r0 size=3076K");
}

#[test]
fn lackey_errors() {
    let p = tmp("lackey-bad.out", b" L 1000,4\n X 1000,4\n");
    let (ok, e) = until_err(import("lackey", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "load lackey r0 0");
    assert!(e.contains("lackey-bad.out:2: expected a lackey access"), "{}", e);
    let p = tmp("lackey-bad2.out", b" L zz,4\n");
    let (_, e) = until_err(import("lackey", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("lackey-bad2.out:1: bad address `zz`"), "{}", e);
}

// ------------------------------------------------------- libCacheSim ---

fn oracle(records: &[(u32, u64, u32)]) -> Vec<u8> {
    let mut b = Vec::new();
    for &(t, id, size) in records {
        b.extend_from_slice(&t.to_le_bytes());
        b.extend_from_slice(&id.to_le_bytes());
        b.extend_from_slice(&size.to_le_bytes());
        b.extend_from_slice(&(-1i64).to_le_bytes());
    }
    b
}

const RECS: [(u32, u64, u32); 5] = [(100, 7, 5000), (100, 9, 100), (101, 7, 5000), (105, 42, 0), (105, 9, 9000)];

#[test]
fn oracle_general_layout_by_first_appearance() {
    // Object 7: 5000 B -> 2 pages (0-1); object 9: largest size 9000 B ->
    // 3 pages (2-4); object 42: size 0 -> 1 page (5). Timestamps are
    // seconds.
    let p = tmp("trace.oracleGeneral", &oracle(&RECS));
    let want = lines(
        "
        memory 1G
        task cache
        file objects size=24K
        read cache objects 0 2
        read cache objects 2 3
        sleep 1s
        read cache objects 0 2
        sleep 4s
        read cache objects 5
        read cache objects 2 3
        ",
    );
    assert_eq!(imp("oracle-general", &p), want);
    // Block mode: id N is block N.
    let opts = ImportOptions { block_size: Some(4096), ..ImportOptions::default() };
    let got = imp_with("oracle-general:timing=0", &p, &opts);
    assert_eq!(
        got,
        lines(
            "
            memory 1G
            task cache
            file objects size=172K
            read cache objects 7
            read cache objects 9
            read cache objects 7
            read cache objects 42
            read cache objects 9
            "
        )
    );
}

#[test]
fn oracle_general_truncated() {
    let mut b = oracle(&RECS[..2]);
    b.extend_from_slice(&[1, 2, 3, 4, 5]);
    let p = tmp("cut.oracleGeneral", &b);
    let (ok, e) = until_err(import("oracle-general", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "read cache objects 2");
    assert!(e.contains("cut.oracleGeneral: byte offset 48: truncated record: 5 of 24 bytes"), "{}", e);
}

#[test]
fn cachesim_csv() {
    let p = tmp("trace.csv", b"time,obj_id,obj_size,next_access\n1,a,4096,0\n1,b,10000,0\n3,a,4096,0\n");
    let want = lines(
        "
        memory 1G
        task cache
        file objects size=16K
        read cache objects 0
        read cache objects 1 3
        sleep 2s
        read cache objects 0
        ",
    );
    assert_eq!(imp("cachesim-csv", &p), want);
    // No header, tab-separated, columns named by position.
    let p = tmp("trace.tsv", b"7\t1\t100\n7\t2\t5000\n8\t1\t100\n");
    let got = imp("cachesim-csv:header=0,delimiter=tab,time=1,obj_id=2,obj_size=3,timing=0", &p);
    assert_eq!(&got[3..], &["read cache objects 0", "read cache objects 1 2", "read cache objects 0"]);
    // Columns named through the header.
    let p = tmp("named.csv", b"ts,key,bytes\n0,k1,1\n0,k2,1\n");
    let got = imp("cachesim-csv:time=ts,obj_id=key,obj_size=bytes", &p);
    assert_eq!(&got[3..], &["read cache objects 0", "read cache objects 1"]);
}

#[test]
fn cachesim_csv_errors() {
    let p = tmp("bad.csv", b"time,obj_id,obj_size\n1,a,4096\n2,b\n");
    let (ok, e) = until_err(import("cachesim-csv", &p, &ImportOptions::default()).unwrap());
    assert_eq!(ok.last().unwrap(), "read cache objects 0");
    assert!(e.contains("bad.csv:3: expected at least 3 columns separated by `,`, found 2"), "{}", e);
    let p = tmp("bad2.csv", b"time,obj_id,obj_size\n1,a,big\n");
    let (_, e) = until_err(import("cachesim-csv", &p, &ImportOptions::default()).unwrap());
    assert!(e.contains("bad2.csv:2: column 3 (obj_size): `big` is not a non-negative integer"), "{}", e);
    let p = tmp("bad3.csv", b"when,what\n1,a\n");
    let e = import("cachesim-csv", &p, &ImportOptions::default()).err().unwrap();
    assert!(e.contains("has no obj_id column") && e.contains("obj_id=COLUMN"), "{}", e);
}

// ------------------------------------------------------------- common ---

#[test]
fn import_option_errors() {
    let p = tmp("x", b"fio version 2 iolog\n");
    let e = import("fio-ilog", &p, &ImportOptions::default()).err().unwrap();
    assert!(e.contains("unknown import format `fio-ilog`") && e.contains("did you mean `fio-iolog`"), "{}", e);
    let opts = ImportOptions { page_size: 8192, ..ImportOptions::default() };
    let e = import("fio-iolog", &p, &opts).err().unwrap();
    assert!(e.contains("page_size 8192"), "{}", e);
}

#[test]
fn importers_are_deterministic_and_parse() {
    let cases: Vec<(&str, std::path::PathBuf)> = vec![
        ("fio-iolog", tmp("d1", IOLOG2.as_bytes())),
        ("blkparse", tmp("d2", BLK.as_bytes())),
        ("strace", tmp("d3", STRACE.as_bytes())),
        ("lackey", tmp("d4", LACKEY.as_bytes())),
        ("oracle-general", tmp("d5", &oracle(&RECS))),
        ("cachesim-csv", tmp("d6", b"time,obj_id,obj_size\n1,a,4096\n1,b,10000\n")),
    ];
    for (f, p) in &cases {
        let a = common::all(import(f, p, &ImportOptions::default()).unwrap());
        let b = common::all(import(f, p, &ImportOptions::default()).unwrap());
        assert_eq!(a, b, "{}", f);
        common::must_parse(f, &a);
    }
}
