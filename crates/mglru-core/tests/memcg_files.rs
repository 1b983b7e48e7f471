// SPDX-License-Identifier: GPL-2.0-only
//! The memcg v2 files of issue 16 (memory.oom.group, oom_score_adj,
//! memory.peak and memory.swap.peak with their resets, memory.reclaim's
//! answer, `stat`), moving a task to another memcg, and zram as the swap
//! device. Each scenario runs under both policies with the accounting
//! invariants checked; the expected counters are worked out from 6.12's
//! rules in the comments.
//!
//! Twelve scenarios are the kernel's own cgroup selftests
//! (tools/testing/selftests/cgroup/test_memcontrol.c of 6.12) written as
//! traces, held to the assertions those tests make: every memory test of
//! that file but test_memcg_subtree_control (cgroup plumbing),
//! test_memcg_sock (sockets) and the fd-local memory.peak half of
//! test_memcg_current_peak (`peak_reset_reads_the_peak_since_the_write`).
//! test_memcg_high_sync reads memory.events at its first change during one
//! 200M mlock, an instant a trace line cannot stop at: it is shown by two
//! runs (`selftest_memcg_high_sync`).

use mglru_core::report::{Report, StatReport};
use mglru_core::{Policy, RunOptions, Simulator};
use mglru_trace::TraceReader;

mod common;
use common::T;

const MB: u64 = 1 << 20;
const PAGE: u64 = 4096;

/// Runs a whole trace, checking the invariants after every operation.
fn run(policy: Policy, text: &str) -> (Report, Simulator) {
    let mut r = TraceReader::from_str("t", text);
    let mut sim = Simulator::new(RunOptions { policy: Some(policy), ..Default::default() });
    while let Some(op) = r.next_op().unwrap_or_else(|e| panic!("trace error: {e}")) {
        sim.apply(&op).unwrap_or_else(|e| panic!("sim error: {e}"));
        if let Some(k) = sim.kernel() {
            k.check_invariants().unwrap_or_else(|e| panic!("{policy:?}: invariant after {op:?}: {e}"));
        }
    }
    let k = sim.finish().unwrap();
    k.check_invariants().unwrap_or_else(|e| panic!("{policy:?}: invariant at the end: {e}"));
    let rep = k.report(&r);
    (rep, sim)
}

fn both(f: impl Fn(Policy)) {
    for p in [Policy::Classic, Policy::Mglru] {
        f(p);
    }
}

fn alive(sim: &Simulator, task: u32) -> bool {
    sim.kernel().unwrap().tasks[task as usize].alive
}

/// `values_close` of the selftests' cgroup_util.h: |a - b| within `err`
/// percent of a + b (integer arithmetic, as there).
fn values_close(a: i64, b: i64, err: i64) -> bool {
    (a - b).abs() <= (a + b) / 100 * err
}

// ---- the kernel's selftests ------------------------------------------------

/// test_memcg_oom_group_score_events: a memcg of 50M without swap and
/// with memory.oom.group; a 1M task at oom_score_adj -1000, another 1M
/// task, and a task allocating 100M. The allocator is the OOM victim; the
/// group kill then counts it again (its mm is still there), kills the
/// other 1M task and spares the -1000 one: memory.events oom_kill is 3,
/// and the safe task can still be signalled (is alive).
#[test]
fn selftest_oom_group_score_events() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 1G\n\
             memcg cg max=50M swap.max=0 oom.group=1\n\
             task safe memcg=cg oom_score_adj=-1000\n\
             anon safe buf size=1M\n\
             store safe buf 0 256\n\
             task other memcg=cg\n\
             anon other buf size=1M\n\
             store other buf 0 256\n\
             task alloc memcg=cg\n\
             anon alloc buf size=100M\n\
             store alloc buf 0 25600\n",
        );
        let cg = rep.memcg("cg").unwrap();
        // cg_read_key_long(memcg, "memory.events", "oom_kill ") != 3 fails the test.
        assert_eq!(cg.event("oom_kill"), Some(3), "{p:?}");
        // kill(safe_pid, SIGKILL) must succeed: the safe task lives.
        assert!(alive(&sim, 0), "{p:?}");
        // !cg_run(memcg, alloc_anon, 100M) fails the test: the allocator died.
        assert!(!alive(&sim, 2) && !alive(&sim, 1), "{p:?}");
        // One group kill, one OOM; the machine counts every __oom_kill_process.
        assert_eq!(cg.event("oom_group_kill"), Some(1), "{p:?}");
        assert_eq!(cg.event("oom"), Some(1), "{p:?}");
        assert_eq!(rep.vmstat("oom_kill"), Some(3), "{p:?}");
        // Two tasks were killed (the report lists tasks, not the recount).
        assert_eq!(rep.oom_kills.len(), 2, "{p:?}");
        assert_eq!(rep.oom_kills[0].victim_task, "alloc");
        assert_eq!(rep.oom_kills[1].victim_task, "other");
    });
}

/// test_memcg_oom_group_leaf_events: the leaf (50M, no swap, oom.group)
/// holds two 1M tasks and the 100M allocator; its parent a 60M task. The
/// leaf's tasks all die (cg_test_proc_killed), the leaf's memory.events
/// oom_kill is positive, and so is the parent's (memory.events is
/// hierarchical without memory_localevents). The parent's task, outside
/// the group, lives.
#[test]
fn selftest_oom_group_leaf_events() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 1G\n\
             memcg parent\n\
             memcg child parent=parent max=50M swap.max=0 oom.group=1\n\
             task big memcg=parent\n\
             anon big buf size=60M\n\
             store big buf 0 15360\n\
             task c1 memcg=child\n\
             anon c1 buf size=1M\n\
             store c1 buf 0 256\n\
             task c2 memcg=child\n\
             anon c2 buf size=1M\n\
             store c2 buf 0 256\n\
             task alloc memcg=child\n\
             anon alloc buf size=100M\n\
             store alloc buf 0 25600\n",
        );
        assert!(!alive(&sim, 1) && !alive(&sim, 2) && !alive(&sim, 3), "{p:?}: the child's tasks are killed");
        assert!(rep.memcg("child").unwrap().event("oom_kill").unwrap() > 0, "{p:?}");
        assert!(rep.memcg("parent").unwrap().event("oom_kill").unwrap() > 0, "{p:?}");
        assert!(alive(&sim, 0), "{p:?}: the parent's own task is outside the group");
        // victim + its recount + c1 + c2.
        assert_eq!(rep.memcg("child").unwrap().event("oom_kill"), Some(4), "{p:?}");
        assert_eq!(rep.memcg("parent").unwrap().event("oom_group_kill"), Some(1), "{p:?}");
    });
}

/// test_memcg_oom_group_parent_events: oom.group on the parent (80M, no
/// swap); the OOM is the parent's (its limit fails first: 60M + 2M + the
/// allocator) and the whole parent subtree dies, the parent's 60M task
/// included.
#[test]
fn selftest_oom_group_parent_events() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 1G\n\
             memcg parent max=80M swap.max=0 oom.group=1\n\
             memcg child parent=parent\n\
             task big memcg=parent\n\
             anon big buf size=60M\n\
             store big buf 0 15360\n\
             task c1 memcg=child\n\
             anon c1 buf size=1M\n\
             store c1 buf 0 256\n\
             task c2 memcg=child\n\
             anon c2 buf size=1M\n\
             store c2 buf 0 256\n\
             task alloc memcg=child\n\
             anon alloc buf size=100M\n\
             store alloc buf 0 25600\n",
        );
        // cg_test_proc_killed(child) and cg_test_proc_killed(parent).
        for t in 0..4 {
            assert!(!alive(&sim, t), "{p:?}: task {t} lives");
        }
        assert_eq!(rep.memcg("parent").unwrap().event("oom_group_kill"), Some(1), "{p:?}");
    });
}

/// test_memcg_swap_max_peak, step by step: the peaks start at 0; the
/// trace's files are reset; with memory.max = swap.max = 30M a 100M
/// allocation is OOM-killed (one oom, one oom_kill) after both peaks
/// passed 29M; after resetting the files of the now empty memcg they read
/// at most 1M (memory) and 10M (swap) while new opens still read >= 29M;
/// a 50M allocation then fits (a second passes after each task's death, for
/// the swap device to finish the writes of its folios, as it does on a
/// real machine while the test reads the files) (memory.current close to 30M, with swap the
/// rest, within 3 %), memory.events max is positive and the files' peaks
/// are >= 29M and >= 19M. The swap device is synchronous (like zram or
/// brd): with the model's slow asynchronous device the allocation runs
/// ahead of the writes, and the killed task's folios still under
/// writeback would stay in the swap cache, charged, after its death (as
/// the kernel keeps a zapped folio under writeback), which the selftest's
/// "at most 1M" after the kill does not expect.
#[test]
fn selftest_swap_max_peak() {
    both(|p| {
        let (rep, _) = run(
            p,
            "memory 1G\n\
             swap 1G sync=y\n\
             memcg cg\n\
             stat cg\n\
             memcg cg swap.peak=reset\n\
             stat cg\n\
             memcg cg peak=reset\n\
             stat cg\n\
             memcg cg swap.max=30M max=30M\n\
             task a memcg=cg\n\
             anon a buf size=100M\n\
             store a buf 0 25600\n\
             sleep 1s\n\
             stat cg\n\
             memcg cg swap.peak=reset peak=reset\n\
             stat cg\n\
             task b memcg=cg\n\
             anon b buf size=50M\n\
             store b buf 0 12800\n\
             stat cg\n\
             exit b\n\
             sleep 1s\n\
             stat cg\n",
        );
        let s: &[StatReport] = &rep.stats;
        assert_eq!(s.len(), 7);
        // cg_read_long(memcg, "memory.swap.peak") and the fd read: 0.
        assert_eq!((s[0].swap_peak, s[1].swap_peak_since_reset), (0, 0), "{p:?}");
        assert_eq!((s[1].peak, s[2].peak_since_reset), (0, 0), "{p:?}");
        // After the OOM kill of the 100M allocation.
        let after_oom = &s[3];
        assert_eq!(after_oom.event("oom"), Some(1), "{p:?}");
        assert_eq!(after_oom.event("oom_kill"), Some(1), "{p:?}");
        for v in [after_oom.peak, after_oom.swap_peak, after_oom.peak_since_reset, after_oom.swap_peak_since_reset] {
            assert!(v >= 29 * MB, "{p:?}: {after_oom:?}");
        }
        // The files reset on the empty memcg; new opens keep the peaks.
        let reset = &s[4];
        assert!(reset.swap_peak_since_reset <= 10 * MB, "{p:?}: {reset:?}");
        assert!(reset.peak_since_reset <= MB, "{p:?}: {reset:?}");
        assert!(reset.peak >= 29 * MB && reset.swap_peak >= 29 * MB, "{p:?}: {reset:?}");
        // alloc_anon_50M_check_swap's own checks, while the task holds 50M.
        let inside = &s[5];
        assert!(inside.current > 0 && values_close(inside.current as i64, (30 * MB) as i64, 3), "{p:?}: {inside:?}");
        assert!(inside.swap_current > 0 && values_close((inside.current + inside.swap_current) as i64, (50 * MB) as i64, 3), "{p:?}: {inside:?}");
        let end = &s[6];
        assert!(end.event("max").unwrap() > 0, "{p:?}");
        assert!(end.peak >= 29 * MB && end.swap_peak >= 29 * MB, "{p:?}: {end:?}");
        assert!(end.peak_since_reset >= 29 * MB, "{p:?}: {end:?}");
        assert!(end.swap_peak_since_reset >= 19 * MB, "{p:?}: {end:?}");
    });
}

/// test_memcg_min and test_memcg_low (`test_memcg_protection`): under
/// memcg_test_0 (max 200M, swap.max 0), memcg_test_1 with protection 50M
/// has children C, D, E, F with 75M, 25M, 0 and 500M; C, D and E each
/// bring 50M of one shared file into the page cache (6.12's
/// `alloc_pagecache`: ftruncate the file 50M longer and read on from the
/// shared offset, so each reads its own 50M, clean) and stay. A task in
/// memcg_test_2 then allocates 148M of anon: memcg_test_1 is reclaimed to
/// about 50M (within 3 %), C to about 29M and D to about 21M (10 %; the
/// selftest's memcg_protection.m), F holds nothing. An allocation of 170M
/// must fail with memory.min (OOM-killed) and succeed with memory.low,
/// leaving memcg_test_1 at about 50M or 30M. reclaim_until: memory.reclaim
/// of C's usage less 10M succeeds and C ends at or below 10M. With
/// memory.low, C and D have low events, E and F none, and no child saw
/// an OOM.
#[test]
fn selftest_memcg_min_and_low() {
    for attr in ["min", "low"] {
        both(|p| {
            let mut t = T::with_options(RunOptions { policy: Some(p), ..Default::default() });
            t.run(&format!(
                "memory 2G\n\
                 memcg memcg_test_0 max=200M swap.max=0\n\
                 memcg memcg_test_1 parent=memcg_test_0 {attr}=50M\n\
                 memcg memcg_test_2 parent=memcg_test_0\n\
                 memcg child_memcg_0 parent=memcg_test_1 {attr}=75M\n\
                 memcg child_memcg_1 parent=memcg_test_1 {attr}=25M\n\
                 memcg child_memcg_2 parent=memcg_test_1 {attr}=0\n\
                 memcg child_memcg_3 parent=memcg_test_1 {attr}=500M\n\
                 file tmp size=150M\n\
                 task c0 memcg=child_memcg_0\ntask c1 memcg=child_memcg_1\ntask c2 memcg=child_memcg_2\n\
                 read c0 tmp 0 12800\nread c1 tmp 12800 12800\nread c2 tmp 25600 12800\n"
            ));
            let current = |t: &mut T, name: &str| {
                let m = t.memcg_id(name) as usize;
                (t.k().memcgs[m].usage * PAGE) as i64
            };
            let mb = |n: i64| n * MB as i64;
            assert!(values_close(current(&mut t, "memcg_test_1"), mb(150), 3), "{attr} {p:?}");
            t.run("task a1 memcg=memcg_test_2\nanon a1 buf size=148M\nstore a1 buf 0 37888\n");
            assert_eq!(t.vm("oom_kill"), 0, "{attr} {p:?}: the 148M allocation must succeed");
            t.run("exit a1\n");
            let c: Vec<i64> = (0..4).map(|i| current(&mut t, &format!("child_memcg_{i}"))).collect();
            assert!(values_close(current(&mut t, "memcg_test_1"), mb(50), 3), "{attr} {p:?}: {c:?}");
            assert!(values_close(c[0], mb(29), 10), "{attr} {p:?}: {c:?}");
            assert!(values_close(c[1], mb(21), 10), "{attr} {p:?}: {c:?}");
            assert_eq!(c[3], 0, "{attr} {p:?}");
            t.run("task a2 memcg=memcg_test_2\nanon a2 buf size=170M\nstore a2 buf 0 43520\n");
            let killed = t.vm("oom_kill") > 0;
            assert_eq!(killed, attr == "min", "{attr} {p:?}: memory.min refuses the 170M, memory.low lets it in");
            t.run("exit a2\n");
            let want = if attr == "min" { mb(50) } else { mb(30) };
            assert!(values_close(current(&mut t, "memcg_test_1"), want, 3), "{attr} {p:?}");
            let c0 = current(&mut t, "child_memcg_0");
            t.run(&format!("reclaim child_memcg_0 {}\n", (c0 - mb(10)) as u64));
            assert!(current(&mut t, "child_memcg_0") <= mb(10), "{attr} {p:?}");
            t.check();
            if attr == "low" {
                for i in 0..4 {
                    let m = t.memcg_id(&format!("child_memcg_{i}")) as usize;
                    let ev = t.k().memcgs[m].mem_events;
                    let (low, oom) = (ev[0], ev[3]);
                    assert_eq!(oom, 0, "{p:?}: child {i}");
                    assert_eq!(low > 0, i <= 1, "{p:?}: child {i} low events {low}");
                }
            }
        });
    }
}

/// The memcg's memory.current, in bytes.
fn current_of(t: &mut T, name: &str) -> i64 {
    let m = t.memcg_id(name) as usize;
    (t.k().memcgs[m].usage * PAGE) as i64
}

/// A memory.stat value of the memcg, in bytes.
fn stat_of(t: &mut T, name: &str, key: &str) -> i64 {
    let m = t.memcg_id(name);
    t.k().memory_stat(m).iter().find(|(n, _)| *n == key).unwrap_or_else(|| panic!("no memory.stat {key}")).1 as i64
}

fn mem_event(t: &mut T, name: &str, e: usize) -> u64 {
    let m = t.memcg_id(name) as usize;
    t.k().memcgs[m].mem_events[e]
}

const LOW: usize = 0;
const HIGH: usize = 1;
const MAX: usize = 2;
const OOM: usize = 3;
const OOM_KILL: usize = 4;

/// test_memcg_current_peak, its first half (the fd-local peak resets are
/// `peak_reset_reads_the_peak_since_the_write` below): a new memcg reads
/// current and peak 0; alloc_anon_50M_check touches 50M of anon and, while
/// it holds it, reads current >= 50M and within 3 % of it, and anon
/// within 3 % of current; peak is >= 50M after it exits;
/// alloc_pagecache_50M_check brings 50M of a new file into the page cache
/// (ftruncate, then read) and reads current >= 50M and file within 10 % of
/// it.
#[test]
fn selftest_memcg_current_peak() {
    both(|p| {
        let mut t = T::new(p);
        t.run("memory 1G\nmemcg memcg_test\ntask a memcg=memcg_test\n");
        let m = t.memcg_id("memcg_test") as usize;
        assert_eq!((current_of(&mut t, "memcg_test"), t.k().memcgs[m].watermark), (0, 0), "{p:?}");
        t.run("anon a buf size=50M\nstore a buf 0 12800\n");
        let (cur, anon) = (current_of(&mut t, "memcg_test"), stat_of(&mut t, "memcg_test", "anon"));
        assert!(cur >= (50 * MB) as i64 && values_close((50 * MB) as i64, cur, 3), "{p:?}: {cur}");
        assert!(values_close(anon, cur, 3), "{p:?}: anon {anon} current {cur}");
        t.run("exit a\n");
        assert!(t.k().memcgs[m].watermark * PAGE >= 50 * MB, "{p:?}");
        t.run("task b memcg=memcg_test\nfile f size=50M\nread b f 0 12800\n");
        let (cur, file) = (current_of(&mut t, "memcg_test"), stat_of(&mut t, "memcg_test", "file"));
        assert!(cur >= (50 * MB) as i64, "{p:?}: {cur}");
        assert!(values_close(file, cur, 10), "{p:?}: file {file} current {cur}");
        t.check();
    });
}

/// test_memcg_high: memory.high 30M, no swap. Touching 31M of anon
/// succeeds (memory.high never kills); bringing 50M into the page cache
/// leaves current below 50M (alloc_pagecache_50M_check fails, as the
/// test wants); alloc_pagecache_max_30M then reads current within 5 % of
/// 30M after 50M of page cache; memory.events high is positive. Each
/// helper's temporary file goes with its descriptor (`unlink`).
#[test]
fn selftest_memcg_high() {
    both(|p| {
        let mut t = T::new(p);
        t.run("memory 1G\nswap 1G\nmemcg memcg_test swap.max=0 high=30M\n\
               task a memcg=memcg_test\nanon a buf size=31M\nstore a buf 0 7936\n");
        assert_eq!(t.vm("oom_kill"), 0, "{p:?}");
        t.run("exit a\ntask b memcg=memcg_test\nfile f1 size=50M\nread b f1 0 12800\n");
        assert!(current_of(&mut t, "memcg_test") < (50 * MB) as i64, "{p:?}");
        t.run("exit b\nunlink f1\ntask c memcg=memcg_test\nfile f2 size=50M\nread c f2 0 12800\n");
        let cur = current_of(&mut t, "memcg_test");
        assert!(values_close(cur, (30 * MB) as i64, 5), "{p:?}: {cur}");
        t.run("exit c\nunlink f2\n");
        assert!(mem_event(&mut t, "memcg_test", HIGH) > 0, "{p:?}");
        t.check();
    });
}

/// test_memcg_high_sync: memory.high 30M, memory.max 140M, no swap; one
/// mlock of a 200M mapping (one kernel entry that faults in every page)
/// must change memory.events first by a `high` event, with `max` still
/// where it was. A trace line cannot stop at the file's first change, so
/// the order is shown by two runs: an mlock of 130M, which ends below
/// memory.max, already counts high events (each charge batch over high is
/// throttled inside the mlock, `mem_cgroup_handle_over_high` after every
/// MEMCG_CHARGE_BATCH pages over high: the task sleeps, a memory stall)
/// and no max event; the selftest's 200M then meets memory.max only after
/// usage has passed those 130M, and (mlocked, no swap) is OOM-killed.
#[test]
fn selftest_memcg_high_sync() {
    both(|p| {
        let setup = "memory 1G\nswap 1G\nmemcg memcg_test swap.max=0 high=30M max=140M\ntask a memcg=memcg_test\n";
        let mut t = T::new(p);
        t.run(&format!("{setup}anon a buf size=130M\nmlock a buf\n"));
        let memcg = t.memcg_id("memcg_test");
        assert!(mem_event(&mut t, "memcg_test", HIGH) > 0, "{p:?}");
        assert_eq!(mem_event(&mut t, "memcg_test", MAX), 0, "{p:?}");
        assert_eq!(t.vm("oom_kill"), 0, "{p:?}");
        assert!(t.k().psi_read(memcg).total[0] > 0, "{p:?}: the throttling sleeps are memory stalls");
        t.check();

        let mut t = T::new(p);
        t.run(&format!("{setup}anon a buf size=200M\nmlock a buf\n"));
        assert!(mem_event(&mut t, "memcg_test", HIGH) > 0, "{p:?}");
        assert!(mem_event(&mut t, "memcg_test", MAX) > 0, "{p:?}");
        assert_eq!(t.vm("oom_kill"), 1, "{p:?}");
        t.check();
    });
}

/// test_memcg_max: memory.max 30M, no swap. Touching 100M of anon is
/// OOM-killed; alloc_pagecache_max_30M reads current within 5 % of 30M
/// after 50M of page cache; afterwards current is positive and at most
/// 30M, and memory.events max is positive.
#[test]
fn selftest_memcg_max() {
    both(|p| {
        let mut t = T::new(p);
        t.run("memory 1G\nswap 1G\nmemcg memcg_test swap.max=0 max=30M\n\
               task a memcg=memcg_test\nanon a buf size=100M\nstore a buf 0 25600\n");
        assert_eq!(t.vm("oom_kill"), 1, "{p:?}");
        t.run("task c memcg=memcg_test\nfile f size=50M\nread c f 0 12800\n");
        let cur = current_of(&mut t, "memcg_test");
        assert!(values_close(cur, (30 * MB) as i64, 5), "{p:?}: {cur}");
        t.run("exit c\n");
        let cur = current_of(&mut t, "memcg_test");
        assert!(cur > 0 && cur <= (30 * MB) as i64, "{p:?}: {cur}");
        assert!(mem_event(&mut t, "memcg_test", MAX) > 0, "{p:?}");
        t.check();
    });
}

/// test_memcg_oom_events: memory.max 30M, no swap; touching 100M of anon
/// is OOM-killed; the memcg is left without tasks and memory.events
/// counts one oom and one oom_kill.
#[test]
fn selftest_memcg_oom_events() {
    both(|p| {
        let mut t = T::new(p);
        t.run("memory 1G\nswap 1G\nmemcg memcg_test max=30M swap.max=0\n\
               task a memcg=memcg_test\nanon a buf size=100M\nstore a buf 0 25600\n");
        assert!(!t.k().tasks[0].alive, "{p:?}");
        assert_eq!((mem_event(&mut t, "memcg_test", OOM), mem_event(&mut t, "memcg_test", OOM_KILL)), (1, 1), "{p:?}");
        assert_eq!(mem_event(&mut t, "memcg_test", LOW), 0, "{p:?}");
        t.check();
    });
}

/// test_memcg_reclaim, with swap and without: a memcg without limits
/// holds 50M of page cache and, with swap, 50M of anon (tasks that stay);
/// current is within 10 % of 100M (50M); reclaim_until 30M writes
/// current - 30M to memory.reclaim, which must return 0 and leave current
/// below 30M or within 3 % of it.
#[test]
fn selftest_memcg_reclaim() {
    for swap in [true, false] {
        both(|p| {
            let mut t = T::new(p);
            let sw = if swap { "swap 1G\n" } else { "" };
            t.run(&format!("memory 1G\n{sw}memcg memcg_test\ntask c memcg=memcg_test\nfile f size=50M\nread c f 0 12800\n"));
            let expected = if swap {
                t.run("task a memcg=memcg_test\nanon a buf size=50M\nstore a buf 0 12800\n");
                100 * MB
            } else {
                50 * MB
            };
            let cur = current_of(&mut t, "memcg_test");
            assert!(values_close(cur, expected as i64, 10), "{p:?} swap {swap}: {cur}");
            let goal = (30 * MB) as i64;
            t.run(&format!("reclaim memcg_test {}\n", cur - goal));
            let r = t.k().reclaim_results.last().unwrap().result;
            assert_eq!(r, 0, "{p:?} swap {swap}: memory.reclaim failed");
            let cur = current_of(&mut t, "memcg_test");
            assert!(cur < goal || values_close(cur, goal, 3), "{p:?} swap {swap}: {cur}");
            t.check();
        });
    }
}

// ---- hand-derived counters -------------------------------------------------

/// memory.peak with its resets, counted with the per-CPU charge stock.
/// Task a stores 256 pages into a new region: three page-table pages
/// (pud, pmd, pte below the pgd) are charged first — a batch of 64, 61
/// left in the stock — then 256 folios: 61 from the stock, then three
/// more batches (64 + 64 + 64 = 192 > 195? no: 61 + 3 * 64 = 253 < 256,
/// so four batches): 5 batches in all, usage 320 pages, stock 320 - 259 = 61.
/// The reset makes the file read 320. Exit: 256 folios uncharged, the
/// three tables return through the stock (61 + 3 = 64, not above the
/// batch, so it stays): usage 64. A second reset reads 64; task b then
/// stores 100 pages in a new region: 3 tables and 61 folios from the
/// stock (64), then 39 folios need one batch: usage 128, the file reads
/// 128, while a new open still reads the global 320.
#[test]
fn peak_reset_reads_the_peak_since_the_write() {
    both(|p| {
        let (rep, _) = run(
            p,
            "memory 256M\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=1M\n\
             store a buf 0 256\n\
             stat cg\n\
             memcg cg peak=reset\n\
             stat cg\n\
             exit a\n\
             stat cg\n\
             memcg cg peak=reset\n\
             stat cg\n\
             task b memcg=cg\n\
             anon b buf size=1M\n\
             store b buf 0 100\n\
             stat cg\n",
        );
        let s = &rep.stats;
        let pages = |v: u64| v / PAGE;
        assert_eq!((pages(s[0].current), pages(s[0].peak), pages(s[0].peak_since_reset)), (320, 320, 320), "{p:?}");
        assert_eq!((pages(s[1].current), pages(s[1].peak), pages(s[1].peak_since_reset)), (320, 320, 320), "{p:?}");
        assert_eq!((pages(s[2].current), pages(s[2].peak), pages(s[2].peak_since_reset)), (64, 320, 320), "{p:?}");
        assert_eq!((pages(s[3].current), pages(s[3].peak), pages(s[3].peak_since_reset)), (64, 320, 64), "{p:?}");
        assert_eq!((pages(s[4].current), pages(s[4].peak), pages(s[4].peak_since_reset)), (128, 320, 128), "{p:?}");
        // The end-of-run report shows what a new open reads: the global peak.
        assert_eq!(rep.memcg("cg").unwrap().peak, 320 * PAGE);
        // memory.stat at the first read: 256 anon pages, 3 tables (the
        // pgd is not in NR_PAGETABLE: x86's pgd_alloc has no page-table
        // constructor).
        assert_eq!(s[0].stat("anon"), Some(256 * PAGE));
        assert_eq!(s[0].stat("pagetables"), Some(3 * PAGE));
    });
}

/// memory.swap.peak follows the swap counter: after a proactive reclaim
/// of the memcg swapped X pages out, swap.current = swap.peak = X; once
/// the task exits its slots are freed (swap.current 0) while the peak
/// stays X; a reset then reads 0 through the written file. (The sleeps
/// let the swap device finish its writes: a slot under writeback stays
/// until the write completes.)
#[test]
fn swap_peak_and_its_reset() {
    both(|p| {
        let (rep, _) = run(
            p,
            "memory 256M\n\
             swap 64M\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=1M\n\
             store a buf 0 256\n\
             reclaim cg 1M\n\
             sleep 1s\n\
             stat cg\n\
             exit a\n\
             sleep 1s\n\
             stat cg\n\
             memcg cg swap.peak=reset\n\
             stat cg\n",
        );
        let s = &rep.stats;
        let x = s[0].swap_current;
        assert!(x > 0, "{p:?}: reclaim swapped nothing");
        assert_eq!(x, rep.vmstat("pswpout").unwrap() * PAGE, "{p:?}: every page written out is still in swap");
        assert_eq!((s[0].swap_peak, s[0].swap_peak_since_reset), (x, x), "{p:?}");
        assert_eq!((s[1].swap_current, s[1].swap_peak, s[1].swap_peak_since_reset), (0, x, x), "{p:?}");
        assert_eq!((s[2].swap_current, s[2].swap_peak, s[2].swap_peak_since_reset), (0, x, 0), "{p:?}");
        assert_eq!(rep.memcg("cg").unwrap().swap_peak, x);
    });
}

/// Each write to memory.reclaim answers in order: 256 anon pages without
/// a swap device cannot be reclaimed (16 retries reclaim nothing:
/// -EAGAIN); of 256 clean file pages a request for 128 gets them (0: at
/// least 128, as reclaim works in batches of at least SWAP_CLUSTER_MAX
/// and may pass the goal); a request for 256 then finds only the rest,
/// fewer than 256 (-EAGAIN), and one more request finds nothing (-EAGAIN).
#[test]
fn reclaim_results_in_order() {
    both(|p| {
        let (rep, _) = run(
            p,
            "memory 256M\n\
             memcg anon\n\
             memcg files\n\
             file f size=1M\n\
             task a memcg=anon\n\
             anon a buf size=1M\n\
             store a buf 0 256\n\
             task r memcg=files\n\
             read r f 0 256\n\
             reclaim anon 1M\n\
             reclaim files 512K\n\
             reclaim files 1M\n\
             reclaim files 4K\n",
        );
        let r = &rep.reclaims;
        assert_eq!(r.len(), 4);
        assert_eq!((r[0].memcg.as_str(), r[0].bytes, r[0].reclaimed_pages, r[0].result), ("anon", MB, 0, -11), "{p:?}");
        assert_eq!((r[1].memcg.as_str(), r[1].result), ("files", 0), "{p:?}");
        assert!(r[1].reclaimed_pages >= 128, "{p:?}: {:?}", r[1]);
        assert_eq!((r[2].reclaimed_pages, r[2].result), (256 - r[1].reclaimed_pages, -11), "{p:?}: {:?}", r[2]);
        assert_eq!((r[3].reclaimed_pages, r[3].result), (0, -11), "{p:?}: {:?}", r[3]);
        assert_eq!(rep.memcg("files").unwrap().stat("file"), Some(0), "{p:?}: all reclaimed");
    });
}

/// The swap cache is file pages of the node, not of the memcg: 6.12's
/// add_to_swap_cache counts NR_FILE_PAGES with __node_stat_mod_folio and
/// NR_SWAPCACHE with __lruvec_stat_mod_folio, so /proc/vmstat's
/// nr_file_pages holds swap-cached folios and memory.stat's `file` does
/// not (it holds `swapcached` instead). 64 stored pages, all reclaimed
/// (memory.reclaim of 1M: 64 pages, -EAGAIN for the rest) to a synchronous
/// device; a fork makes each slot's count 2, so the parent's loads swap
/// the 64 pages in through the swap cache (do_swap_page bypasses it only
/// for a slot of count 1), where they stay while the child's swap PTEs
/// refer to the slots. No file in the trace: nr_file_pages is those 64.
#[test]
fn swap_cache_is_no_file_page_of_the_memcg() {
    both(|p| {
        let (rep, _) = run(
            p,
            "memory 256M\n\
             swap 64M sync=y ram=y\n\
             sysctl vm.page-cluster=0\n\
             memcg app\n\
             task a memcg=app\n\
             anon a buf size=256K\n\
             store a buf 0 64\n\
             reclaim app 1M\n\
             fork a c\n\
             load a buf 0 64\n",
        );
        assert_eq!((rep.reclaims[0].reclaimed_pages, rep.reclaims[0].result), (64, -11), "{p:?}");
        assert_eq!((rep.vmstat("pswpout"), rep.vmstat("pswpin")), (Some(64), Some(64)), "{p:?}");
        assert_eq!((rep.vmstat("nr_swapcached"), rep.vmstat("nr_file_pages")), (Some(64), Some(64)), "{p:?}");
        let m = rep.memcg("app").unwrap();
        assert_eq!((m.stat("swapcached"), m.stat("file")), (Some(64 * PAGE), Some(0)), "{p:?}");
    });
}

/// oom_score_adj in the choice of the victim. In a memcg of 4M (1024
/// pages) without swap, totalpages is 1024, so each point of adj is 1024
/// / 1000 = 1 page. The small task holds 100 pages and 3 tables; the
/// large one wants 1000 pages and 3 tables, which fit alone (1003 <=
/// 1024) but not beside the small one's 103: the OOM comes when the
/// large task holds about 918 pages (badness ~921 with its tables; the
/// pgd is not counted). At adj 1000 the small task scores 100 + 3 + 1000
/// = 1103 and dies, and the large one then gets all its pages; at adj 0
/// the small task's 103 lose to the large one's ~921 and the large task
/// dies. With every task at
/// -1000 nothing can be killed: the charge fails, the access is dropped,
/// and memory.events counts the oom without an oom_kill.
#[test]
fn oom_score_adj_picks_the_victim() {
    both(|p| {
        let trace = |adj: i32| {
            format!(
                "memory 256M\n\
                 memcg cg max=4M\n\
                 task small memcg=cg oom_score_adj={adj}\n\
                 anon small buf size=400K\n\
                 store small buf 0 100\n\
                 task large memcg=cg\n\
                 anon large buf size=4M\n\
                 store large buf 0 1000\n"
            )
        };
        let (rep, sim) = run(p, &trace(1000));
        assert!(!alive(&sim, 0) && alive(&sim, 1), "{p:?}");
        assert_eq!(rep.oom_kills.len(), 1);
        assert_eq!(rep.oom_kills[0].victim_task, "small");
        assert_eq!(rep.memcg("cg").unwrap().event("oom_kill"), Some(1));
        assert_eq!(rep.memcg("cg").unwrap().stat("anon"), Some(1000 * PAGE), "{p:?}");
        let (rep, sim) = run(p, &trace(0));
        assert!(alive(&sim, 0) && !alive(&sim, 1), "{p:?}");
        assert_eq!(rep.oom_kills[0].victim_task, "large");

        let (rep, sim) = run(
            p,
            "memory 256M\n\
             memcg cg max=1M\n\
             task a memcg=cg oom_score_adj=-1000\n\
             anon a buf size=2M\n\
             task b memcg=cg\n\
             task b oom_score_adj=-1000\n\
             store a buf 0 512\n",
        );
        assert!(alive(&sim, 0) && alive(&sim, 1), "{p:?}");
        assert!(rep.oom_kills.is_empty());
        assert!(rep.memcg("cg").unwrap().event("oom").unwrap() > 0);
        assert_eq!(rep.memcg("cg").unwrap().event("oom_kill"), Some(0));
        assert!(rep.sim.failed_allocations > 0 && rep.sim.dropped_accesses > 0);
    });
}

/// Moving a task (cgroup v2): its 100 pages and the three page-table
/// pages under its region stay charged to A; the 50 pages it stores after
/// the move (same region, same page table: no new table) are B's. A's
/// memory.stat keeps the tables (3 pages), B's has none (the pgd is in
/// no NR_PAGETABLE). Charges: A took
/// 103 pages in two batches (128, 25 left in the CPU's stock); B's first
/// charge misses the stock, charges a batch of 64 and refills the stock
/// with the 63 it does not use — and refill_stock, finding A's pages
/// there, drains them back to A first: A 103, B 64. At exit each memcg
/// gets its own back: no anon left anywhere.
#[test]
fn a_moved_task_charges_its_new_memcg() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 256M\n\
             memcg A\n\
             memcg B\n\
             task t memcg=A\n\
             anon t buf size=1M\n\
             store t buf 0 100\n\
             task t memcg=B\n\
             store t buf 100 50\n\
             stat A\n\
             stat B\n\
             exit t\n\
             stat A\n\
             stat B\n",
        );
        let s = &rep.stats;
        assert_eq!(s[0].stat("anon"), Some(100 * PAGE), "{p:?}");
        assert_eq!(s[1].stat("anon"), Some(50 * PAGE), "{p:?}");
        // The tables stay where they were charged; the pgd counts nowhere.
        assert_eq!(s[0].stat("pagetables"), Some(3 * PAGE), "{p:?}");
        assert_eq!(s[1].stat("pagetables"), Some(0), "{p:?}");
        assert_eq!((s[0].current / PAGE, s[1].current / PAGE), (103, 64), "{p:?}");
        assert_eq!((s[2].stat("anon"), s[3].stat("anon")), (Some(0), Some(0)), "{p:?}");
        assert_eq!((s[2].stat("pagetables"), s[3].stat("pagetables")), (Some(0), Some(0)), "{p:?}");
        let k = sim.kernel().unwrap();
        assert_eq!(k.tasks[0].memcg, 2);
        assert!(k.memcgs[1].mm_list.is_empty() && k.memcgs[2].mm_list.is_empty());
    });
}

/// memory.oom.group set later, and cleared: a group kill needs it at the
/// time of the OOM.
#[test]
fn oom_group_is_read_at_the_oom() {
    both(|p| {
        let trace = |group: &str| {
            format!(
                "memory 256M\n\
                 memcg cg max=4M\n\
                 memcg cg oom.group=1\n\
                 memcg cg oom.group={group}\n\
                 task small memcg=cg\n\
                 anon small buf size=400K\n\
                 store small buf 0 100\n\
                 task large memcg=cg\n\
                 anon large buf size=8M\n\
                 store large buf 0 2048\n"
            )
        };
        let (rep, sim) = run(p, &trace("0"));
        assert!(alive(&sim, 0) && !alive(&sim, 1), "{p:?}");
        assert_eq!(rep.memcg("cg").unwrap().event("oom_group_kill"), Some(0));
        let (rep, sim) = run(p, &trace("1"));
        assert!(!alive(&sim, 0) && !alive(&sim, 1), "{p:?}");
        assert_eq!(rep.memcg("cg").unwrap().event("oom_group_kill"), Some(1));
    });
}

// ---- zram ----------------------------------------------------------------

/// zram at ratio 4: a page compresses to 1024 bytes, 1032 with the
/// handle, zsmalloc's class of 1040 bytes (32 + 63 * 16), whose zspages
/// are 8 pages (the chain size wasting least: 8 * 4096 mod 1040 = 528)
/// holding 31 objects. X pages swapped out by a proactive reclaim take
/// ceil(X / 31) * 8 pages of RAM, outside every memcg; they come back as
/// the slots are freed: swapping every page in again (zram is
/// synchronous, so a swap-in frees the slot at once) leaves the pool
/// empty.
#[test]
fn zram_pool_grows_and_shrinks_with_its_slots() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 256M\n\
             swap 64M zram=y ratio=4\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=2M\n\
             store a buf 0 512\n\
             reclaim cg 2M\n\
             stat cg\n",
        );
        let x = rep.stats[0].swap_current / PAGE;
        assert!(x > 0);
        let z = rep.zram.unwrap();
        assert_eq!(z.orig_data_size, x * PAGE, "{p:?}");
        assert_eq!(z.compr_data_size, x * 1024, "{p:?}");
        assert_eq!(z.mem_used_total, x.div_ceil(31) * 8 * PAGE, "{p:?}");
        // /proc/vmstat's nr_zspages counts the same pool pages.
        assert_eq!(rep.vmstat("nr_zspages"), Some(x.div_ceil(31) * 8), "{p:?}");
        // The pool is no memcg's: cg's usage holds its folios only.
        let zr = sim.kernel().unwrap().swap.as_ref().unwrap().zram.as_ref().unwrap().clone();
        let c = &zr.classes[0];
        assert_eq!((c.class_size, c.pages_per_zspage, c.objs_per_zspage), (1040, 8, 31));

        let (rep, _) = run(
            p,
            "memory 256M\n\
             swap 64M zram=y ratio=4\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=2M\n\
             store a buf 0 512\n\
             reclaim cg 2M\n\
             load a buf 0 512\n\
             stat cg\n",
        );
        assert_eq!(rep.stats[0].swap_current, 0, "{p:?}");
        assert_eq!(rep.zram.unwrap().mem_used_total, 0, "{p:?}");
        assert!(rep.vmstat("pswpin").unwrap() > 0);
        assert_eq!(rep.vmstat("nr_zspages"), Some(0), "{p:?}");
        // Exit frees whatever is left.
        let (rep, _) = run(
            p,
            "memory 256M\n\
             swap 64M zram=y ratio=1.5\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=2M\n\
             store a buf 0 512\n\
             reclaim cg 2M\n\
             exit a\n",
        );
        assert_eq!(rep.zram.unwrap().mem_used_total, 0, "{p:?}");
    });
}

/// A tmpfs file's `zram_ratio=` sizes its pages' objects, the device's
/// ratio every other page's, and each size class packs its own zspages.
/// Device ratio 4: 1,024-byte objects, class 1040 (8 pages, 31 objects);
/// the file's 2: 2,048 bytes, 2,056 with the handle, class 2064, whose
/// least waste is 8 pages for 15 objects (32768 - 15 * 2064 = 1808).
#[test]
fn a_tmpfs_files_zram_ratio_sizes_its_objects() {
    both(|p| {
        let (rep, sim) = run(
            p,
            "memory 256M\n\
             swap 64M zram=y ratio=4\n\
             memcg cg\n\
             task a memcg=cg\n\
             anon a buf size=2M\n\
             store a buf 0 512\n\
             file t size=2M tmpfs=y zram_ratio=2\n\
             write a t 0 512\n\
             reclaim cg 3M\n\
             stat cg\n",
        );
        let st = &rep.stats[0].stat;
        let get = |k: &str| st.iter().find(|(n, _)| *n == k).map(|(_, v)| *v).unwrap();
        // Swapped out: what is no longer resident of each (a zram write
        // completes at once, the folio is freed).
        let shmem_out = 512 - get("shmem") / PAGE;
        let anon_out = 512 - get("anon") / PAGE;
        assert!(shmem_out > 0 && anon_out > 0, "{p:?}: {shmem_out} shmem, {anon_out} anon pages out");
        assert_eq!(rep.stats[0].swap_current / PAGE, shmem_out + anon_out, "{p:?}");
        let z = rep.zram.unwrap();
        assert_eq!(z.orig_data_size, (shmem_out + anon_out) * PAGE, "{p:?}");
        assert_eq!(z.compr_data_size, anon_out * 1024 + shmem_out * 2048, "{p:?}");
        assert_eq!(z.mem_used_total / PAGE, anon_out.div_ceil(31) * 8 + shmem_out.div_ceil(15) * 8, "{p:?}");
        let zr = sim.kernel().unwrap().swap.as_ref().unwrap().zram.as_ref().unwrap().clone();
        let classes: Vec<(u32, u32, u32)> = zr.classes.iter().map(|c| (c.class_size, c.pages_per_zspage, c.objs_per_zspage)).collect();
        assert_eq!(classes, vec![(1040, 8, 31), (2064, 8, 15)], "{p:?}");

        // Without zram_ratio= the file's pages take the device's ratio.
        let (rep, _) = run(
            p,
            "memory 256M\n\
             swap 64M zram=y ratio=4\n\
             memcg cg\n\
             task a memcg=cg\n\
             file t size=2M tmpfs=y\n\
             write a t 0 512\n\
             reclaim cg 1M\n\
             stat cg\n",
        );
        let out = rep.stats[0].swap_current / PAGE;
        assert!(out > 0);
        assert_eq!(rep.zram.unwrap().compr_data_size, out * 1024, "{p:?}");
    });
}

/// The pool's pages are RAM the zones no longer have: with the same
/// trace on zram and on a plain synchronous device, the free pages differ
/// by exactly the pool.
#[test]
fn zram_pages_come_out_of_free_memory() {
    both(|p| {
        let trace = |swap: &str| {
            format!(
                "memory 256M\n\
                 {swap}\n\
                 memcg cg\n\
                 task a memcg=cg\n\
                 anon a buf size=2M\n\
                 store a buf 0 512\n\
                 reclaim cg 1M\n"
            )
        };
        let (plain, _) = run(p, &trace("swap 64M sync=y"));
        let (zram, _) = run(p, &trace("swap 64M zram=y ratio=2"));
        assert_eq!(plain.vmstat("pswpout"), zram.vmstat("pswpout"), "{p:?}: the same pages went out");
        let pool = zram.zram.unwrap().mem_used_total / PAGE;
        assert!(pool > 0);
        // Free pages, the per-CPU lists' included (the report's zones).
        let free = |r: &mglru_core::report::Report| r.zones.iter().map(|z| z.free + z.pcp).sum::<u64>();
        assert_eq!(free(&plain) - free(&zram), pool, "{p:?}");
    });
}

/// Reading memory.stat flushes the memcg's subtree when enough updates
/// are pending (memory_stat_format → mem_cgroup_flush_stats), and reclaim
/// reads the flushed sizes from then on. One CPU, so the bar is
/// `stats_updates` > 64. Task a reads 64 pages of a file without
/// readahead in the child memcg cg of p, well before the first periodic
/// flush at 2 s. Each page is an `NR_FILE_PAGES` update and the lru_add
/// batch of 31 put 62 of them on the LRU (62 lru-size updates; 2 wait in
/// the batch); the file's xarray node (584 bytes of slab) waits in the
/// CPU's object stock, which hands slab on only past a page: 126. The CPU
/// hands its count on in lots of 64 (`memcg_rstat_updated`): 64 reached
/// the memcg's count, 62 wait on the CPU, and 64 is not above 64: no
/// flush, reclaim still sees an empty memcg. A write of page 0 dirties it
/// (`NR_FILE_DIRTY`, update 127; its buffer head's 112 bytes join the
/// stock): still no flush. A write of page 1 is update 128: the CPU's
/// second lot makes the count 128, the read flushes cg, whose LRU then reads 62 pages — but not its
/// parent p, which reads nothing until a read of p's own memory.stat
/// flushes it.
#[test]
fn stat_flushes_when_updates_are_pending() {
    use mglru_core::lruvec::{LRU_ACTIVE_FILE, LRU_INACTIVE_FILE};
    both(|pol| {
        let mut r = TraceReader::from_str(
            "t",
            "memory 256M\n\
             memcg p\n\
             memcg cg parent=p\n\
             task a memcg=cg\n\
             file f size=1M readahead=0\n\
             read a f 0 64\n\
             stat cg\n\
             write a f 0\n\
             stat cg\n\
             write a f 1\n\
             stat cg\n\
             stat p\n",
        );
        let mut sim = Simulator::new(RunOptions { policy: Some(pol), ..Default::default() });
        let mut seen: Vec<(u64, u64, u64, u64)> = Vec::new();
        let mut pending = Vec::new();
        while let Some(op) = r.next_op().unwrap_or_else(|e| panic!("trace error: {e}")) {
            sim.apply(&op).unwrap_or_else(|e| panic!("sim error: {e}"));
            let Some(k) = sim.kernel() else { continue };
            k.check_invariants().unwrap_or_else(|e| panic!("{pol:?}: invariant after {op:?}: {e}"));
            if let mglru_trace::Op::Stat { .. } = op {
                let file = |m: &str| {
                    let f = k.memcgs[r.memcg_id(m).unwrap() as usize].flushed;
                    (f.lru[LRU_INACTIVE_FILE] + f.lru[LRU_ACTIVE_FILE], f.lru_local[LRU_INACTIVE_FILE] + f.lru_local[LRU_ACTIVE_FILE])
                };
                let (cg, p) = (file("cg"), file("p"));
                assert!(k.now < 2_000_000_000, "{pol:?}: the periodic flush came first");
                seen.push((cg.0, cg.1, p.0, p.1));
                pending.push((k.memcg_stats_pending(r.memcg_id("cg").unwrap()), k.memcg_stats_pending(r.memcg_id("p").unwrap())));
            }
        }
        assert_eq!(seen, vec![(0, 0, 0, 0), (0, 0, 0, 0), (62, 62, 0, 0), (62, 62, 62, 0)], "{pol:?}");
        // The updates each read left pending: 126 before the writes, 127
        // after the first, none
        // in a flushed subtree (p's count still holds cg's 128 until p's
        // own read).
        assert_eq!(pending, vec![(126, 126), (127, 127), (0, 128), (0, 0)], "{pol:?}");
        // The values read are the counters' own in every case.
        let rep = sim.finish().unwrap().report(&r);
        assert_eq!(rep.stats[0].stat("file"), Some(64 * PAGE), "{pol:?}");
        assert_eq!(rep.stats[1].stat("file_dirty"), Some(PAGE), "{pol:?}");
        assert_eq!(rep.stats[2].stat("file_dirty"), Some(2 * PAGE), "{pol:?}");
    });
}

/// zram keeps a stored page until its slot is freed, also when a fork
/// shares the slot. 31 written pages of the parent, shared with a child,
/// are reclaimed (memory.reclaim of 124K: each is swapped out once, when
/// unmapped from both): 31 objects of 1040 bytes at ratio 4, one zspage
/// of 8 pages. The child's swap-in of a slot the parent's swap PTE still
/// refers to goes through the swap cache and keeps the slot (swap count
/// 2: no bypass even on a synchronous device): the pool keeps its 8
/// pages. The parent's exit drops its references, but each slot is still
/// the swap cache's for a folio the child maps (`free_swap_and_cache`
/// frees the cache only for an unmapped folio or a full device): nothing
/// leaves the pool. The child's exit frees the folios and with them the
/// slots: `zram_free_page` for each, and the zspage goes.
#[test]
fn zram_slots_a_fork_shares_stay_until_both_let_go() {
    both(|p| {
        let base = "memory 256M\n\
                    swap 64M zram=y ratio=4\n\
                    memcg app\n\
                    task p memcg=app\n\
                    anon p heap size=124K\n\
                    store p heap 0 31\n\
                    fork p c\n\
                    reclaim app 124K\n";
        let zram = |extra: &str| {
            let (rep, _) = run(p, &format!("{base}{extra}"));
            let z = rep.zram.unwrap();
            (rep.vmstat("pswpout").unwrap(), rep.vmstat("pswpin").unwrap(), z.orig_data_size / PAGE, z.mem_used_total / PAGE)
        };
        assert_eq!(zram(""), (31, 0, 31, 8), "{p:?}");
        assert_eq!(zram("load c heap 0 31\n"), (31, 31, 31, 8), "{p:?}");
        assert_eq!(zram("load c heap 0 31\nexit p\n"), (31, 31, 31, 8), "{p:?}");
        assert_eq!(zram("load c heap 0 31\nexit p\nexit c\n"), (31, 31, 0, 0), "{p:?}");
        // Without the swap-in, the slots go when the last swap PTE does.
        assert_eq!(zram("exit p\n"), (31, 0, 31, 8), "{p:?}");
        assert_eq!(zram("exit c\n"), (31, 0, 31, 8), "{p:?}");
        assert_eq!(zram("exit c\nexit p\n"), (31, 0, 0, 0), "{p:?}");
    });
}

/// Lowering memory.max below what an unreclaimable memcg holds (anon, no
/// swap): memory_max_write counts one MEMCG_OOM per OOM-killer call
/// (the kill then brings usage under the limit), and the kill its
/// oom_kill event. A write to memory.reclaim of less than a page asks for
/// nothing (`memparse(buf) / PAGE_SIZE`): it reclaims nothing, scans
/// nothing and returns 0.
#[test]
fn max_write_counts_one_oom_and_reclaim_rounds_down() {
    both(|p| {
        let mut t = T::new(p);
        t.run("memory 1G\nmemcg app\ntask t memcg=app\nanon t heap size=20M\nstore t heap 0 5120\nmemcg app max=10M\n");
        assert_eq!((mem_event(&mut t, "app", OOM), mem_event(&mut t, "app", OOM_KILL)), (1, 1), "{p:?}");
        assert_eq!(t.vm("oom_kill"), 1, "{p:?}");
        t.run("task u memcg=app\nfile f size=4M\nread u f 0 1024\nreclaim app 1000\n");
        let r = t.k().reclaim_results.last().copied().unwrap();
        assert_eq!((r.reclaimed, r.result), (0, 0), "{p:?}");
        assert_eq!(stat_of(&mut t, "app", "pgscan"), 0, "{p:?}");
        t.check();
    });
}
