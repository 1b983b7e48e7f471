// SPDX-License-Identifier: GPL-2.0-only
//! One test per class of error: position and message.

mod common;

use common::*;
use mglru_trace::{TraceErrorKind, TraceReader};

/// Asserts the error is at `line:col` and its message contains every
/// string of `needles`.
fn check(text: &str, line: u64, col: u64, needles: &[&str]) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!(e.line(), Some(line), "{shown}");
    assert_eq!(e.column(), Some(col), "{shown}");
    assert!(
        shown.starts_with(&format!("t.trace:{line}:{col}: ")),
        "{shown}"
    );
    for n in needles {
        assert!(shown.contains(n), "missing {n:?} in: {shown}");
    }
    assert_eq!(e.kind(), TraceErrorKind::Invalid, "{shown}");
}

const SETUP: &str = "file f size=16K\ntask t\nanon t r size=8K\n";

#[test]
fn unknown_statement() {
    check(
        "dump\n  raed t f 0\n",
        2,
        3,
        &[
            "unknown statement `raed`",
            "did you mean `read`",
            "valid statements: memory, swap",
        ],
    );
}

#[test]
fn bad_size() {
    check(
        "file f size=12Q\n",
        1,
        13,
        &["bad file size", "12Q", "K, M, G"],
    );
    check("memory 1.5G\n", 1, 8, &["1536M"]);
    check("file f size=0\n", 1, 13, &["greater than 0"]);
    check("memory 99999999999999999999\n", 1, 8, &["too large"]);
    check("memory 1023G\nswap 99999999T\n", 2, 6, &["too large"]);
    check(
        "memcg a max=lots\n",
        1,
        13,
        &["bad value for max=", "`max`"],
    );
    check("reclaim root 0\n", 1, 14, &["greater than 0"]);
    // memory.reclaim's swappiness=: 0 to 200, or `max` (7.2; which kernel
    // takes it is the simulator's test, crates/mglru-core/tests/kernels.rs).
    check("reclaim root 1M swappiness=201\n", 1, 28, &["invalid swappiness `201`", "0 to 200", "or max"]);
    check("reclaim root 1M swapiness=10\n", 1, 17, &["unknown option `swapiness=`", "did you mean", "swappiness="]);
}

#[test]
fn bad_numbers_and_durations() {
    check(&format!("{SETUP}read t f x\n"), 4, 10, &["expected PAGE"]);
    check(
        &format!("{SETUP}read t f 99999999999999999999\n"),
        4,
        10,
        &["too large"],
    );
    check(
        &format!("{SETUP}read t f 18446744073709551615 2\n"),
        4,
        10,
        &["overflows"],
    );
    check("sleep 1.5s\n", 1, 7, &["1500ms"]);
    check("sleep 10\n", 1, 7, &["no unit"]);
}

#[test]
fn missing_argument() {
    check(
        &format!("{SETUP}read t f\n"),
        4,
        10,
        &["missing PAGE", "usage: read ID FILE PAGE [COUNT]"],
    );
    check("file f\n", 1, 8, &["missing size="]);
    check("task\n", 1, 6, &["missing task ID"]);
    check(
        "file size=1M\n",
        1,
        6,
        &["expected file NAME, found option `size=1M`"],
    );
}

#[test]
fn undefined_task() {
    check(
        &format!("{SETUP}read u f 0\n"),
        4,
        6,
        &["undefined task `u`", "task u"],
    );
    check("anon x r size=1M\n", 1, 6, &["undefined task `x`"]);
}

#[test]
fn undefined_file() {
    check(
        &format!("{SETUP}write t g 0\n"),
        4,
        9,
        &["undefined file `g`", "file g size=SIZE"],
    );
    check(
        &format!("{SETUP}read t r 0\n"),
        4,
        8,
        &["undefined file `r`", "region of task `t`", "load/store"],
    );
    check(
        "task t\nmmap t m file=nope\n",
        2,
        15,
        &["undefined file `nope`"],
    );
}

#[test]
fn undefined_region() {
    check(
        &format!("{SETUP}load t q 0\n"),
        4,
        8,
        &["undefined region", "no region `q`", "anon t q size=SIZE"],
    );
    check(
        &format!("{SETUP}store t f 0\n"),
        4,
        9,
        &["no region `f`", "`f` is a file"],
    );
    check(
        &format!("{SETUP}task u\nload u r 0\n"),
        5,
        8,
        &["task `u` has no region `r`"],
    );
    check(
        &format!("{SETUP}advise t zz normal\n"),
        4,
        10,
        &["neither a region of task `t` nor a file"],
    );
}

#[test]
fn undefined_memcg() {
    check(
        "task t memcg=m\n",
        1,
        14,
        &["undefined memcg `m`", "memcg m"],
    );
    check("memcg a parent=b\n", 1, 16, &["undefined parent memcg `b`"]);
    check("reclaim nope 1M\n", 1, 9, &["undefined memcg `nope`"]);
}

#[test]
fn page_out_of_range() {
    check(
        &format!("{SETUP}read t f 3 2\n"),
        4,
        10,
        &["page out of range: file f has 4 pages, PAGE+COUNT = 5"],
    );
    check(
        &format!("{SETUP}read t f 4\n"),
        4,
        10,
        &["page out of range: file f has 4 pages, PAGE+COUNT = 5"],
    );
    check(
        &format!("{SETUP}store t r 1 2\n"),
        4,
        11,
        &["page out of range: region r of task t has 2 pages, PAGE+COUNT = 3"],
    );
    check(
        &format!("{SETUP}mmap t m file=f\nload t m 4\n"),
        5,
        10,
        &["region m of task t has 4 pages"],
    );
}

#[test]
fn count_zero() {
    check(
        &format!("{SETUP}read t f 0 0\n"),
        4,
        12,
        &["COUNT must be at least 1"],
    );
    check(
        &format!("{SETUP}load t r 0 0\n"),
        4,
        12,
        &["COUNT must be at least 1"],
    );
}

#[test]
fn duplicate_task() {
    check(
        "task a\n\ntask a\n",
        3,
        6,
        &["duplicate task", "already defined at line 1"],
    );
}

#[test]
fn duplicate_region() {
    check(
        &format!("{SETUP}mmap t r file=f\n"),
        4,
        8,
        &["duplicate region", "already has a region `r`"],
    );
    // The same name in another task is fine.
    let mut r = TraceReader::from_str("x", &format!("{SETUP}task u\nanon u r size=4K\n"));
    assert!(collect(&mut r).is_ok());
}

#[test]
fn duplicate_file() {
    check(
        "file f size=1M\nfile f size=2M\n",
        2,
        6,
        &["file `f` is already defined at line 1"],
    );
}

#[test]
fn use_after_exit() {
    check(
        &format!("{SETUP}exit t\nload t r 0\n"),
        5,
        6,
        &["task `t` exited at line 4"],
    );
    check(
        &format!("{SETUP}exit t\nexit t\n"),
        5,
        6,
        &["exited at line 4"],
    );
    check(
        &format!("{SETUP}exit t\nread t f 0\n"),
        5,
        6,
        &["exited at line 4"],
    );
    check(
        &format!("{SETUP}exit t\ntask t\n"),
        5,
        6,
        &["exited at line 4", "cannot be reused"],
    );
}

#[test]
fn memory_after_ops() {
    check(
        "memory 1G\ntask t\nmemory 2G\n",
        3,
        1,
        &["memory must be set before", "`task` at line 2"],
    );
    check("task t\n  swap 1G\n", 2, 3, &["swap must be set before"]);
    check("memory 1G\nmemory 2G\n", 2, 1, &["already set at line 1"]);
    check("swap 1G\nswap 2G\n", 2, 1, &["already set at line 1"]);
}

#[test]
fn unknown_option() {
    check(
        "file f size=1M readahaed=4K\n",
        1,
        16,
        &[
            "unknown option `readahaed=`",
            "did you mean `readahead`",
            "size=, readahead=",
        ],
    );
    check("swap 1G sync=maybe\n", 1, 14, &["sync=y or sync=n"]);
    check("swap 1G sync=y ram=yes\n", 1, 20, &["ram=y or ram=n", "found ram=yes"]);
    check("task t memcg=root memcg=root\n", 1, 19, &["given twice"]);
    check(
        "memcg a bogus=1\n",
        1,
        9,
        &[
            "unknown option `bogus=`",
            "parent=, max=, high=, low=, min=, swap.max=",
        ],
    );
}

#[test]
fn trailing_tokens() {
    check(
        &format!("{SETUP}read t f 0 1 extra\n"),
        4,
        14,
        &["unexpected extra token `extra`", "usage: read"],
    );
    check("dump now\n", 1, 6, &["unexpected extra token `now`"]);
    check(
        "file f size=1M junk\n",
        1,
        16,
        &["unexpected extra token `junk`"],
    );
    check("sleep 1s 2s\n", 1, 10, &["unexpected extra token"]);
}

#[test]
fn bad_sysctl() {
    check(
        "sysctl vm.page_cluster=3\n",
        1,
        8,
        &[
            "unknown sysctl `vm.page_cluster`",
            "did you mean `vm.page-cluster`",
        ],
    );
    check(
        "sysctl vm.swappiness=300\n",
        1,
        22,
        &["vm.swappiness must be between 0 and 200"],
    );
    check("sysctl vm.swappiness = 3\n", 1, 8, &["without spaces"]);
    check("sysctl vm.swappiness= 3\n", 1, 23, &["without spaces"]);
    check("sysctl lru_gen.enabled=0x1ffffffff\n", 1, 24, &["lru_gen.enabled"]);
}

#[test]
fn bad_lru_gen() {
    check("lru_gen + root 1 5\n", 1, 16, &["only node 0 exists"]);
    check(
        "lru_gen * root 0 5\n",
        1,
        9,
        &["expected `+` (aging) or `-` (eviction)"],
    );
    check("lru_gen + nope 0 5\n", 1, 11, &["undefined memcg `nope`"]);
    check(
        "lru_gen + root 0 5 201\n",
        1,
        20,
        &["SWAPPINESS must be between 0 and 200", "max"],
    );
    check(
        "lru_gen + root 0 5 10 2\n",
        1,
        23,
        &["FORCE_SCAN must be 0 or 1"],
    );
    check(
        "lru_gen - root 0 5 10 1 9\n",
        1,
        25,
        &["unexpected extra token"],
    );
    check("lru_gen - root 0\n", 1, 18, &["missing MIN_GEN"]);
}

#[test]
fn root_memcg_limits() {
    check("memcg root max=1G\n", 1, 7, &["root memcg", "no limits"]);
}

#[test]
fn memcg_parent_change() {
    check(
        "memcg a\nmemcg b\nmemcg c parent=a\nmemcg c parent=b max=1G\n",
        4,
        16,
        &["parent cannot change", "parent `a`"],
    );
}

#[test]
fn bad_names_and_advice() {
    check("task a=b\n", 1, 6, &["expected task ID, found option"]);
    check("task a,b\n", 1, 7, &["invalid character `,`"]);
    check("file a:b size=1M\n", 1, 7, &["invalid character `:`"]);
    check(
        &format!("{SETUP}advise t f dontned\n"),
        4,
        12,
        &["unknown advice `dontned`", "did you mean `dontneed`"],
    );
}

#[test]
fn non_utf8_line() {
    let mut bytes = b"task t\n# fine\ntask \xff\xfe\n".to_vec();
    bytes.extend_from_slice(b"dump\n");
    let mut r = TraceReader::from_reader("t.trace", Box::new(std::io::Cursor::new(bytes))).unwrap();
    assert!(r.next_op().is_ok());
    let e = r.next_op().unwrap_err();
    assert_eq!(e.line(), Some(3));
    assert_eq!(e.column(), Some(6));
    assert!(
        e.to_string().starts_with("t.trace:3:6: invalid UTF-8"),
        "{e}"
    );
    // The reader stays failed.
    assert_eq!(r.next_op().unwrap_err(), e);
    // Non-ASCII UTF-8 is fine and columns count characters.
    let e = err("# ünïcödé\ntask ä\nread ä f 0\n");
    assert_eq!((e.line(), e.column()), (Some(3), Some(8)), "{e}");
}

#[test]
fn overlong_line() {
    let text = format!("dump\n{}\n", "x".repeat(100_000));
    let e = err(&text);
    assert_eq!(e.line(), Some(2));
    assert!(e.message().contains("longer than"), "{e}");
}

#[test]
fn open_missing_file() {
    let e = TraceReader::open(std::path::Path::new("/nonexistent/x.trace")).unwrap_err();
    assert_eq!(e.kind(), TraceErrorKind::Io);
    assert!(
        e.to_string()
            .starts_with("/nonexistent/x.trace: cannot open"),
        "{e}"
    );
}

#[test]
fn no_panic_on_garbage() {
    // Pseudo-random byte soup and token soup: errors, never panics.
    let words = [
        "read",
        "write",
        "load",
        "store",
        "task",
        "file",
        "anon",
        "mmap",
        "memcg",
        "lru_gen",
        "+",
        "-",
        "0",
        "1",
        "99999999999999999999",
        "size=1M",
        "size=",
        "=",
        "max",
        "t",
        "f",
        "r",
        "#",
        "sysctl",
        "vm.swappiness=",
        "advise",
        "exit",
        "memory",
        "swap",
        "1G",
        "\t",
        "é",
        "parent=t",
        "file=f",
    ];
    let mut seed: u64 = 0x1234_5678;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..2000 {
        let mut text = String::from("task t\nfile f size=1M\nanon t r size=1M\n");
        for _ in 0..(rnd() % 12) {
            text.push_str(words[(rnd() % words.len() as u64) as usize]);
            text.push(if rnd() % 5 == 0 { '\n' } else { ' ' });
        }
        let mut r = TraceReader::from_str("soup", &text);
        let _ = collect(&mut r);
        let bytes: Vec<u8> = (0..(rnd() % 64)).map(|_| rnd() as u8).collect();
        if let Ok(mut r) = TraceReader::from_reader("bytes", Box::new(std::io::Cursor::new(bytes)))
        {
            let _ = collect(&mut r);
        }
    }
}

/// Everything a reader returns: the ops, then the error's text.
fn outcome(text: &str) -> (Vec<mglru_trace::Op>, Option<String>) {
    let mut r = TraceReader::from_str("t.trace", text);
    let mut ops = Vec::new();
    loop {
        match r.next_op() {
            Ok(Some(op)) => ops.push(op),
            Ok(None) => return (ops, None),
            Err(e) => return (ops, Some(e.to_string())),
        }
    }
}

/// An access line right after one with the same keyword, task and target
/// (read by the reader's shortcut, which reads only PAGE and COUNT) is
/// accepted or rejected exactly as after a line that does not share its
/// start (a `dump`, which the shortcut does not follow).
#[test]
fn repeated_access_prefix_reads_like_any_line() {
    let setup = "file f size=16K\nfile g size=16K\ntask t\ntask u\nanon t r size=8K\n";
    let lines = [
        "read t f 3", "read t f 3 1", "read t f 0 4", "read t f 4", "read t f 3 2", "read t f 0 0", "read t f 2 ",
        "read t f 2  1", "read t f 2 1 ", "read t f 2 # c", "read t f 18446744073709551615",
        "read t f 99999999999999999999", "read t f 00000000000000000000", "read t f 0000000000000000003",
        "read t f 1 18446744073709551615", "read t f 340282366920938463463374607431768211456 7",
        "read t f 1 340282366920938463463374607431768211456", "read t f x", "read t f 1x", "read t f 1 x", "read t f -1", "read t f ",
        "read t f", "read t f 1 2 3", "read t g 1", "read u f 1", "write t f 1", "load t r 1", "load t r 2",
        "load t r 1 1", "store t r 0 2", "read t f 1\u{e9}", "read t f 1\t2",
    ];
    for prev in ["read t f 1", "load t r 1", "write t f 1 2", "read t g 0"] {
        for l in lines {
            let after_prev = outcome(&format!("{setup}{prev}\n{l}\n"));
            let fresh = outcome(&format!("{setup}dump\n{l}\n"));
            assert_eq!(after_prev.1, fresh.1, "`{l}` after `{prev}`");
            assert_eq!(after_prev.0[6..], fresh.0[6..], "`{l}` after `{prev}`");
        }
    }
    // A task that exited cannot be used, though the line before used it.
    let e = outcome(&format!("{setup}read u f 1\nexit u\nread u f 1\n")).1.unwrap();
    assert!(e.contains("t.trace:8:") && e.contains("exited"), "{e}");
    let e = outcome(&format!("{setup}read u f 1\nread u f 1\nexit u\nread u f 2\n")).1.unwrap();
    assert!(e.contains("t.trace:9:") && e.contains("exited"), "{e}");
}
