// SPDX-License-Identifier: GPL-2.0-only
//! Valid traces and the ops they resolve to.

mod common;

use common::*;
use mglru_trace::{Advice, Compression, MemcgOp, Op, Target, TraceReader};

#[test]
fn every_statement_kind() {
    let mut r = TraceReader::open(&data("all.trace")).unwrap();
    assert_eq!(r.compression(), Compression::None);
    assert!(!r.is_binary());
    let ops = collect(&mut r).unwrap();
    assert_eq!(ops, all_trace_ops());
    // Name tables.
    assert_eq!(r.memcg_name(0), "root");
    assert_eq!(r.memcg_name(1), "top");
    assert_eq!(r.memcg_name(2), "work");
    assert_eq!(r.memcg_name(3), "?");
    assert_eq!(r.memcg_parent(2), Some(1));
    assert_eq!(r.task_name(0), "1");
    assert_eq!(r.task_name(1), "db");
    assert_eq!(r.task_memcg(0), Some(2));
    assert_eq!(r.file_name(0), "data.db");
    assert_eq!(r.file_name(1), "/usr/lib/libc.so.6");
    assert_eq!(r.file_pages(0), Some(2560));
    assert_eq!(r.region_name(0), ("1", "heap"));
    assert_eq!(r.region_name(1), ("db", "code"));
    assert_eq!(r.region_name(2), ("1", "shared"));
    assert_eq!(r.region_file(2), Some(0));
    assert_eq!(r.region_file(0), None);
    assert_eq!(r.region_task(1), Some(1));
    assert_eq!(r.region_pages(1), Some(512));
    assert_eq!(r.memcg_id("work"), Some(2));
    assert_eq!(r.task_id("db"), Some(1));
    assert_eq!(r.file_id("data.db"), Some(0));
    assert_eq!(r.region_id("1", "shared"), Some(2));
    assert_eq!(r.region_id("db", "shared"), None);
    assert_eq!(
        (
            r.memcg_count(),
            r.task_count(),
            r.file_count(),
            r.region_count()
        ),
        (3, 2, 2, 3)
    );
    assert_eq!(
        r.location().to_string(),
        format!("{}:39", data("all.trace").display())
    );
    assert_eq!(r.bytes_read(), r.total_bytes().unwrap());
    // Fused after the end.
    assert_eq!(r.next_op().unwrap(), None);
}

#[test]
fn iterator_and_line_numbers() {
    let mut r = TraceReader::from_str("x", "\n# c\n  task a # t\n\n\tdump\n");
    assert_eq!(r.line(), 0);
    assert_eq!(r.next().unwrap().unwrap(), Op::Task { id: 0, memcg: 0, cpu: None, oom_score_adj: 0 });
    assert_eq!(r.line(), 3);
    assert_eq!(r.location().to_string(), "x:3");
    assert_eq!(r.next().unwrap().unwrap(), Op::Dump);
    assert_eq!(r.line(), 5);
    assert!(r.next().is_none());
}

#[test]
fn defaults_and_rounding() {
    let mut r = TraceReader::from_str(
        "x",
        "file f size=1\nfile g size=4097 readahead=5000\nfile h size=4K readahead=0\ntask t\nanon t a size=1\nread t f 0\n",
    );
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[0],
        Op::File {
            id: 0,
            pages: 1,
            readahead_pages: 32,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        }
    );
    assert_eq!(
        ops[1],
        Op::File {
            id: 1,
            pages: 2,
            readahead_pages: 1,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        }
    );
    assert_eq!(
        ops[2],
        Op::File {
            id: 2,
            pages: 1,
            readahead_pages: 0,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        }
    );
    assert_eq!(
        ops[4],
        Op::Anon {
            task: 0,
            region: 0,
            pages: 1,
            populate: false,
            shared: false,
        }
    );
    assert_eq!(
        ops[5],
        Op::Read {
            task: 0,
            file: 0,
            page: 0,
            count: 1
        }
    );
}

#[test]
fn region_shadows_file_in_advise() {
    let mut r = TraceReader::from_str(
        "x",
        "file x size=1M\ntask t\nadvise t x dontneed\nanon t x size=1M\nadvise t x normal\ntask u\nadvise u x random\n",
    );
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[2],
        Op::Advise {
            task: 0,
            target: Target::File(0),
            advice: Advice::DontNeed
        }
    );
    assert_eq!(
        ops[4],
        Op::Advise {
            task: 0,
            target: Target::Region(0),
            advice: Advice::Normal
        }
    );
    assert_eq!(
        ops[6],
        Op::Advise {
            task: 1,
            target: Target::File(0),
            advice: Advice::Random
        }
    );
}

#[test]
fn memcg_redefinition() {
    let mut r = TraceReader::from_str(
        "x",
        "memcg a\nmemcg b parent=a\nmemcg b parent=a high=1M\nmemcg b\nmemcg a low=max\n",
    );
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[2],
        Op::Memcg(Box::new(MemcgOp {
            id: 2,
            parent: 1,
            new: false,
            max: None,
            high: Some(1 << 20),
            low: None,
            min: None,
            swap_max: None,
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false
        }))
    );
    assert_eq!(
        ops[3],
        Op::Memcg(Box::new(MemcgOp {
            id: 2,
            parent: 1,
            new: false,
            max: None,
            high: None,
            low: None,
            min: None,
            swap_max: None,
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false
        }))
    );
    assert_eq!(
        ops[4],
        Op::Memcg(Box::new(MemcgOp {
            id: 1,
            parent: 0,
            new: false,
            max: None,
            high: None,
            low: Some(u64::MAX),
            min: None,
            swap_max: None,
            oom_group: None,
            reset_peak: false,
            reset_swap_peak: false
        }))
    );
}

#[test]
fn sysctl_anywhere_and_setup_order() {
    // sysctl may come before memory/swap and after ops.
    let mut r = TraceReader::from_str(
        "x",
        "sysctl vm.swappiness=0\nswap 1G\nmemory 4G\ntask t\nsysctl vm.swappiness=200\n",
    );
    assert_eq!(collect(&mut r).unwrap().len(), 5);
}

#[test]
fn crlf_and_tabs() {
    let mut r = TraceReader::from_str("x", "task\tt\r\nfile f size=8K\r\nread t f 1\r\n");
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[2],
        Op::Read {
            task: 0,
            file: 0,
            page: 1,
            count: 1
        }
    );
}

#[test]
fn last_line_without_newline_and_empty_input() {
    let mut r = TraceReader::from_str("x", "dump");
    assert_eq!(collect(&mut r).unwrap(), vec![Op::Dump]);
    let mut r = TraceReader::from_str("x", "");
    assert_eq!(collect(&mut r).unwrap(), vec![]);
    let mut r = TraceReader::from_reader("x", Box::new(std::io::empty())).unwrap();
    assert_eq!(collect(&mut r).unwrap(), vec![]);
}

#[test]
fn op_to_text_reparses() {
    let text = all_trace_text();
    let mut r = TraceReader::from_str("x", &text);
    let mut regenerated = String::new();
    while let Some(op) = r.next_op().unwrap() {
        regenerated.push_str(&r.op_to_text(&op));
        regenerated.push('\n');
    }
    let mut r2 = TraceReader::from_str("y", &regenerated);
    assert_eq!(collect(&mut r2).unwrap(), all_trace_ops(), "{regenerated}");
}

#[test]
fn swap_ram_option() {
    let mut r = TraceReader::from_str("x", "swap 8M ram=y sync=y\n");
    let op = r.next_op().unwrap().unwrap();
    assert_eq!(op, Op::Swap { bytes: 8 << 20, sync_io: true, ram: true, zram: None });
    assert_eq!(r.op_to_text(&op), "swap 8388608 sync=y ram=y");
    let mut r = TraceReader::from_str("x", "swap 8M ram=n\n");
    let op = r.next_op().unwrap().unwrap();
    assert_eq!(op, Op::Swap { bytes: 8 << 20, sync_io: false, ram: false, zram: None });
    assert_eq!(r.op_to_text(&op), "swap 8388608 sync=n", "the canonical form leaves out ram=n");
}

#[test]
fn huge_sizes() {
    let mut r = TraceReader::from_str(
        "x",
        "file f size=4398046511103\ntask t\nread t f 1073741823\n",
    );
    let ops = collect(&mut r).unwrap();
    assert_eq!(
        ops[0],
        Op::File {
            id: 0,
            pages: 1 << 30,
            readahead_pages: 32,
            kind: mglru_trace::FileKind::Disk,
            zram_ratio: None,
        }
    );
    let text = r.op_to_text(&ops[0]);
    let mut r2 = TraceReader::from_str("y", &text);
    assert_eq!(r2.next_op().unwrap(), Some(ops[0].clone()));
}

#[test]
fn noreuse_is_file_advice_only() {
    let mut r = TraceReader::from_str("x", "file f size=1M\ntask t\nadvise t f noreuse\n");
    let ops = collect(&mut r).unwrap();
    assert_eq!(ops[2], Op::Advise { task: 0, target: Target::File(0), advice: Advice::NoReuse });
    let mut r = TraceReader::from_str("x", "task t\nanon t heap size=1M\nadvise t heap noreuse\n");
    let e = collect(&mut r).unwrap_err().to_string();
    assert!(e.contains("x:3:10"), "{e}");
    assert!(e.contains("`noreuse` is POSIX_FADV_NOREUSE, advice for a file, but `heap` is a region of task `t`"), "{e}");
}
