// SPDX-License-Identifier: GPL-2.0-only
//! A statement stream (TraceReader::from_statements) reads exactly as the
//! text trace it stands for: the same ops at the same lines, the same
//! errors at the same places.

use mglru_trace::{AccessKind, Op, Statement, Statements, TraceReader};

fn text(s: &str) -> Statement {
    Statement::Text(s.to_string())
}

fn names(id: u32, task: &str, target: &str) -> Statement {
    Statement::Names { id, task: task.to_string(), target: target.to_string() }
}

fn acc(kind: AccessKind, names: u32, page: u64, count: u64) -> Statement {
    Statement::Access { kind, names, page, count }
}

/// The text trace the statements stand for (a `Names` is no line).
fn as_text(st: &[Result<Statement, String>]) -> String {
    let mut table: Vec<(String, String)> = Vec::new();
    let mut out = String::new();
    for s in st {
        match s {
            Ok(Statement::Text(l)) => {
                out.push_str(l);
                out.push('\n');
            }
            Ok(Statement::Names { task, target, .. }) => table.push((task.clone(), target.clone())),
            Ok(Statement::Access { kind, names, page, count }) => {
                let (t, g) = &table[*names as usize];
                out.push_str(&Statement::access_text(*kind, t, g, *page, *count));
                out.push('\n');
            }
            Ok(Statement::Pages { kind, names, pages }) => {
                let (t, g) = &table[*names as usize];
                for &page in pages {
                    out.push_str(&Statement::access_text(*kind, t, g, page, 1));
                    out.push('\n');
                }
            }
            Err(_) => break,
        }
    }
    out
}

/// Every op with its line, then the error if any, read one at a time
/// (`next_op`) and in blocks of 3 (`next_ops`): both ways must agree.
fn read_all(mut r: TraceReader) -> (Vec<(Op, u64)>, Option<String>) {
    let mut v = Vec::new();
    loop {
        match r.next_op() {
            Ok(Some(op)) => v.push((op, r.line())),
            Ok(None) => return (v, None),
            Err(e) => return (v, Some(e.to_string())),
        }
    }
}

fn read_blocks(mut r: TraceReader) -> (Vec<(Op, u64)>, Option<String>) {
    let mut v = Vec::new();
    loop {
        let (mut ops, mut lines) = (Vec::new(), Vec::new());
        match r.next_ops(&mut ops, &mut lines, 3) {
            Ok(0) => return (v, None),
            Ok(_) => v.extend(ops.into_iter().zip(lines)),
            Err(e) => return (v, Some(e.to_string())),
        }
    }
}

fn stream(st: &[Result<Statement, String>]) -> Statements {
    Box::new(st.to_vec().into_iter())
}

/// The statements read one at a time and in blocks agree.
fn check_alone(st: &[Result<Statement, String>]) -> (Vec<(Op, u64)>, Option<String>) {
    let one = read_all(TraceReader::from_statements("g", stream(st)));
    let blocks = read_blocks(TraceReader::from_statements("g", stream(st)));
    assert_eq!(blocks, one);
    one
}

/// The statements and their text give the same ops, lines and error.
fn check(st: Vec<Result<Statement, String>>) -> (Vec<(Op, u64)>, Option<String>) {
    let t = as_text(&st);
    let from_text = read_all(TraceReader::from_str("g", &t));
    let one = check_alone(&st);
    assert_eq!(one, from_text, "statements against their text:\n{t}");
    one
}

#[test]
fn accesses_read_as_their_lines() {
    use AccessKind::*;
    let (ops, err) = check(vec![
        Ok(text("# a generated trace")),
        Ok(text("memory 64M")),
        Ok(text("file f size=1M")),
        Ok(text("task t")),
        Ok(text("anon t heap size=64K")),
        Ok(names(0, "t", "f")),
        Ok(acc(Read, 0, 5, 1)),
        Ok(acc(Read, 0, 6, 1)),
        // Another kind on the same names, then back.
        Ok(acc(Write, 0, 7, 3)),
        Ok(acc(Read, 0, 255, 1)),
        Ok(names(1, "t", "heap")),
        Ok(acc(Load, 1, 0, 16)),
        Ok(acc(Store, 1, 15, 1)),
        // A text line between (it could have ended the task): resolved again.
        Ok(text("")),
        Ok(acc(Read, 0, 0, 256)),
        Ok(text("sleep 1ms")),
        Ok(acc(Load, 1, 3, 1)),
    ]);
    assert_eq!(err, None);
    // Worked by hand: file f is 256 pages (id 0), task t id 0, region heap
    // 16 pages (id 0); lines count comments and blank lines.
    let want = vec![
        (Op::Memory { bytes: 64 << 20 }, 2),
        (Op::File { id: 0, pages: 256, readahead_pages: 32, kind: mglru_trace::FileKind::Disk, zram_ratio: None }, 3),
        (Op::Task { id: 0, memcg: 0, cpu: None, oom_score_adj: 0 }, 4),
        (Op::Anon { task: 0, region: 0, pages: 16, populate: false, shared: false }, 5),
        (Op::Read { task: 0, file: 0, page: 5, count: 1 }, 6),
        (Op::Read { task: 0, file: 0, page: 6, count: 1 }, 7),
        (Op::Write { task: 0, file: 0, page: 7, count: 3 }, 8),
        (Op::Read { task: 0, file: 0, page: 255, count: 1 }, 9),
        (Op::Load { task: 0, region: 0, page: 0, count: 16 }, 10),
        (Op::Store { task: 0, region: 0, page: 15, count: 1 }, 11),
        (Op::Read { task: 0, file: 0, page: 0, count: 256 }, 13),
        (Op::Sleep { ns: 1_000_000 }, 14),
        (Op::Load { task: 0, region: 0, page: 3, count: 1 }, 15),
    ];
    assert_eq!(ops, want);
}

#[test]
fn errors_are_those_of_the_lines() {
    use AccessKind::*;
    let head = || vec![Ok(text("file f size=16K")), Ok(text("task t")), Ok(names(0, "t", "f")), Ok(acc(Read, 0, 1, 1))];
    // Past the end of the file, after the names were resolved: the
    // text's message at the text's line (5).
    let mut st = head();
    st.push(Ok(acc(Read, 0, 3, 2)));
    let (ops, err) = check(st.clone());
    assert_eq!(ops.len(), 3);
    let from_text = read_all(TraceReader::from_str("g", &as_text(&st))).1;
    assert_eq!(err, from_text);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:4:")), "{err:?}");
    // Count 0.
    let mut st = head();
    st.push(Ok(acc(Read, 0, 1, 0)));
    let (_, err) = check(st.clone());
    assert_eq!(err, read_all(TraceReader::from_str("g", &as_text(&st))).1);
    assert!(err.is_some());
    // A task that exited: the text line between forgets the resolution.
    let mut st = head();
    st.push(Ok(text("exit t")));
    st.push(Ok(acc(Read, 0, 2, 1)));
    let (ops, err) = check(st.clone());
    assert_eq!(ops.len(), 4);
    assert_eq!(err, read_all(TraceReader::from_str("g", &as_text(&st))).1);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:5:")), "{err:?}");
    // Unknown names in the first use.
    let st = vec![Ok(text("file f size=16K")), Ok(names(0, "nosuch", "f")), Ok(acc(Read, 0, 0, 1))];
    let (_, err) = check(st.clone());
    assert_eq!(err, read_all(TraceReader::from_str("g", &as_text(&st))).1);
}

#[test]
fn producer_errors_and_bad_streams() {
    use AccessKind::*;
    // The producer's error ends the stream after the statements before it,
    // at the next line, as a read error.
    let st = vec![Ok(text("file f size=16K")), Ok(text("task t")), Err("disk on fire".to_string()), Ok(text("task u"))];
    let (ops, err) = check_alone(&st);
    assert_eq!(ops.len(), 2);
    assert_eq!(err.as_deref(), Some("g:3:1: read error: disk on fire"));
    // Names used before being defined, or defined out of order.
    let st = vec![Ok(text("file f size=16K")), Ok(text("task t")), Ok(acc(Read, 7, 0, 1))];
    let (_, err) = check_alone(&st);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:3:1: ") && e.contains("never defined")), "{err:?}");
    let st = vec![Ok(text("file f size=16K")), Ok(names(1, "t", "f"))];
    let (_, err) = check_alone(&st);
    assert!(err.as_deref().is_some_and(|e| e.contains("out of order")), "{err:?}");
    // A text statement of two lines.
    let st = vec![Ok(text("file f size=16K\ntask t"))];
    let (_, err) = check_alone(&st);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:1:1: ") && e.contains("newline")), "{err:?}");
}

fn pages(kind: AccessKind, names: u32, pages: &[u64]) -> Statement {
    Statement::Pages { kind, names, pages: pages.to_vec() }
}

/// A `Pages` statement reads as one one-page access per page: the same
/// ops at the same lines as its text, in blocks (of 3, so runs are split
/// across blocks) and one at a time, and the same as `Access` statements.
#[test]
fn pages_read_as_their_accesses() {
    use AccessKind::*;
    let head = || {
        vec![
            Ok(text("file f size=64K")),
            Ok(text("task t")),
            Ok(text("anon t heap size=16K")),
            Ok(names(0, "t", "f")),
            Ok(names(1, "t", "heap")),
        ]
    };
    let mut st = head();
    // A first use inside a run, runs of every kind, an empty run, a run
    // after a text line (resolved again), runs of two names in turn.
    st.push(Ok(pages(Read, 0, &[3, 1, 4, 1, 5, 9, 2, 6])));
    st.push(Ok(pages(Write, 0, &[15])));
    st.push(Ok(pages(Load, 1, &[0, 3, 2])));
    st.push(Ok(pages(Store, 1, &[])));
    st.push(Ok(pages(Store, 1, &[1, 1])));
    st.push(Ok(text("# a comment")));
    st.push(Ok(pages(Read, 0, &[0, 15, 7])));
    st.push(Ok(acc(Read, 0, 2, 4)));
    st.push(Ok(pages(Read, 0, &[8, 8])));
    let (ops, err) = check(st.clone());
    assert_eq!(err, None);
    assert_eq!(ops.len(), 3 + 8 + 1 + 3 + 2 + 3 + 1 + 2);
    assert_eq!(ops[3], (Op::Read { task: 0, file: 0, page: 3, count: 1 }, 4));
    assert_eq!(ops[ops.len() - 1], (Op::Read { task: 0, file: 0, page: 8, count: 1 }, 24));
    // The same accesses one statement each.
    let single: Vec<Result<Statement, String>> = st
        .iter()
        .flat_map(|s| match s {
            Ok(Statement::Pages { kind, names, pages }) => pages.iter().map(|&p| Ok(acc(*kind, *names, p, 1))).collect(),
            other => vec![other.clone()],
        })
        .collect();
    assert_eq!(check(single), (ops, None));
    // A page past the end in the middle of a run: the run's accesses
    // before it, then the text's error at its line.
    let mut st = head();
    st.push(Ok(pages(Read, 0, &[1, 2, 16, 3])));
    let (ops, err) = check(st);
    assert_eq!(ops.len(), 5);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:6:")), "{err:?}");
    // A run whose task exited (the `exit` is an op, line 5).
    let mut st = head();
    st.push(Ok(pages(Read, 0, &[1])));
    st.push(Ok(text("exit t")));
    st.push(Ok(pages(Read, 0, &[2, 3])));
    let (ops, err) = check(st);
    assert_eq!(ops.len(), 5);
    assert!(err.as_deref().is_some_and(|e| e.starts_with("g:6:")), "{err:?}");
}
