// SPDX-License-Identifier: GPL-2.0-only
//! The hot statements (read/write/load/store, and sleep) must not allocate,
//! in text and in binary form.

use mglru_trace::{write_binary, Op, TraceReader};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(|c| c.get())
}

fn trace() -> String {
    let mut t = String::from(
        "memory 1G\nfile data.db size=64M\ntask worker-1\ntask 2\nanon worker-1 heap size=64M\nmmap 2 map file=data.db\n",
    );
    for i in 0..20_000u64 {
        t.push_str(&match i % 8 {
            0 => format!("read worker-1 data.db {}\n", i % 16000),
            1 => format!("write 2 data.db {} 4\n", i % 16000),
            2 => format!("load worker-1 heap {} 2  # with a comment\n", i % 16000),
            3 => format!("store\t2\tmap\t{}\n", i % 16000),
            4 => format!("  load 2 map {}\r\n", i % 16000),
            5 => format!("sleep {}us\n", i),
            6 => "# just a comment\n\n".to_string(),
            _ => format!("store worker-1 heap {} 16\n", i % 16000),
        });
    }
    t
}

/// Reads the 6 setup ops, then counts allocations while reading the rest.
fn hot_allocs(mut r: TraceReader) -> (u64, u64) {
    for _ in 0..6 {
        assert!(r.next_op().unwrap().is_some());
    }
    let before = allocs();
    let mut n = 0;
    while let Some(op) = r.next_op().unwrap() {
        assert!(op.is_access() || matches!(op, Op::Sleep { .. }));
        n += 1;
    }
    (allocs() - before, n)
}

#[test]
fn hot_statements_do_not_allocate() {
    let text = trace();
    let (a, n) = hot_allocs(TraceReader::from_str("t", &text));
    assert_eq!(n, 17_500);
    assert_eq!(a, 0, "text: {a} allocations for {n} ops");

    let mut bin = Vec::new();
    write_binary(&mut TraceReader::from_str("t", &text), &mut bin).unwrap();
    let r = TraceReader::from_reader("b", Box::new(Cursor::new(bin))).unwrap();
    let (a, n) = hot_allocs(r);
    assert_eq!(n, 17_500);
    assert_eq!(a, 0, "binary: {a} allocations for {n} ops");
}

#[test]
fn reader_is_send() {
    fn send<T: Send>() {}
    send::<TraceReader>();
    send::<mglru_trace::TraceError>();
}
