// SPDX-License-Identifier: GPL-2.0-only
//! Several CPUs (`cpus N`, `task ... cpu=K`): each CPU has its own folio
//! batches and charge stock, a task's folios queue on its CPU, reclaim
//! drains only the local CPU's batches (`lru_add_drain`) except where 6.12
//! drains them all (`lru_add_drain_all`: memory.reclaim's last try, the end
//! of a run), and `drain_all_stock` gives back only the stocks of the memcg
//! being reclaimed. Expected numbers are worked out in the comments.

mod common;
use common::T;
use mglru_core::folio::pg;
use mglru_core::lruvec::{LRU_ACTIVE_FILE, LRU_INACTIVE_FILE};
use mglru_core::memcontrol::NO_MEMCG;
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

const B_ADD: usize = mglru_core::swap::B_ADD;

fn queued(t: &mut T, cpu: usize) -> usize {
    t.k().cpus[cpu].batch[B_ADD].len()
}

#[test]
fn two_tasks_on_two_cpus_fill_their_own_batches() {
    for (cpus, want) in [(1, [9, 0]), (2, [20, 20])] {
        let mut t = T::classic();
        t.run(&format!("cpus {cpus}\nmemory 256M\nfile f size=1M readahead=0\ntask a\ntask b"));
        // Default placement: task ids round-robin, a on CPU 0, b on CPU 1
        // when there are two.
        let (ca, cb) = (t.k().tasks[0].cpu, t.k().tasks[1].cpu);
        assert_eq!((ca, cb), (0, (cpus - 1) as u32));
        t.run("read a f 0 20\nread b f 20 20");
        // One CPU: 40 folios into one batch of 31 — flushed at the 31st,
        // 9 left queued. Two CPUs: 20 in each, none flushed.
        assert_eq!(queued(&mut t, 0), want[0]);
        if cpus == 2 {
            assert_eq!(queued(&mut t, 1), want[1]);
        }
        let on_lru = t.k().memcgs[0].lruvec.size(LRU_INACTIVE_FILE);
        assert_eq!(on_lru, if cpus == 1 { 31 } else { 0 });
        t.check();
    }
}

#[test]
fn a_pinned_task_queues_on_its_cpu_and_a_bad_pin_is_an_error() {
    let mut t = T::classic();
    t.run("cpus 4\nmemory 256M\nfile f size=1M readahead=0\ntask a cpu=3\ntask b\ntask c");
    // a pinned to 3; b and c by default placement: ids 1 and 2.
    let cpus: Vec<u32> = t.k().tasks.iter().map(|x| x.cpu).collect();
    assert_eq!(cpus, vec![3, 1, 2]);
    t.run("read a f 0 5");
    assert_eq!((queued(&mut t, 3), queued(&mut t, 0)), (5, 0));

    let mut sim = mglru_core::Simulator::new(RunOptions { policy: Some(Policy::Classic), ..Default::default() });
    let mut r = mglru_trace::TraceReader::from_str("t", "cpus 2\nmemory 64M\ntask a cpu=2\n");
    let mut err = None;
    while let Some(op) = r.next_op().unwrap() {
        if let Err(e) = sim.apply(&op) {
            err = Some(e.0);
            break;
        }
    }
    let e = err.expect("cpu=2 on a two-CPU machine must fail");
    assert!(e.contains("cpu=2") && e.contains("2 CPUs"), "{e}");
    // --cpus overrides the trace.
    let mut sim = mglru_core::Simulator::new(RunOptions { cpus: Some(3), ..Default::default() });
    let mut r = mglru_trace::TraceReader::from_str("t", "cpus 2\nmemory 64M\ntask a cpu=2\n");
    while let Some(op) = r.next_op().unwrap() {
        sim.apply(&op).unwrap();
    }
    assert_eq!(sim.kernel().unwrap().cpus.len(), 3);
}

/// __lru_cache_activate_folio searches only this CPU's add batch: a second
/// access from another CPU to a folio still queued on the first CPU clears
/// PG_referenced without activating it; from the same CPU it activates.
#[test]
fn a_second_access_activates_only_a_folio_queued_on_this_cpu() {
    for (second, active) in [("a", true), ("b", false)] {
        let mut t = T::classic();
        t.run("cpus 2\nmemory 256M\nfile f size=1M readahead=0\ntask a\ntask b");
        // a reads page 0 (PG_referenced set, queued on CPU 0), then page 5
        // so that the next read of page 0 does not continue the last one.
        t.run(&format!("read a f 0\nread a f 5\nread {second} f 0"));
        let pfn = t.folio_of("f", 0).unwrap();
        let f = *t.k().folios.get(pfn);
        assert_eq!(f.test(pg::ACTIVE), active, "second access from {second}");
        assert!(!f.test(pg::REFERENCED));
        t.k().lru_add_drain_all();
        let lv = &t.k().memcgs[0].lruvec;
        assert_eq!(lv.size(LRU_ACTIVE_FILE), active as u64);
        assert_eq!(lv.size(LRU_INACTIVE_FILE), 2 - active as u64);
        t.check();
    }
}

/// Limit reclaim by a task on CPU 0 drains CPU 0's batches only: the 30
/// folios task b (CPU 1) read into the same memcg stay in CPU 1's batch,
/// out of reclaim's reach. memory.reclaim's final attempt
/// (`nr_retries == 0`) calls lru_add_drain_all and gets them.
#[test]
fn reclaim_drains_the_local_batches_and_memory_reclaim_at_last_all() {
    let mut t = T::classic();
    t.run("cpus 2\nmemory 256M\nmemcg app\nfile f size=1M readahead=0\ntask a memcg=app\ntask b memcg=app");
    t.run("read b f 0 30");
    assert_eq!(queued(&mut t, 1), 30);
    // A write to memory.reclaim runs on the last task's CPU (b's: 1).
    // Let a run last, so it runs on CPU 0.
    t.run("read a f 100 1");
    assert_eq!(t.k().cpu, 0);
    // memory.reclaim of 30 pages: a's one folio is in CPU 0's batch,
    // drained by the first shrink (1 page reclaimed); b's 30 stay queued
    // on CPU 1 through 16 calls without progress; the 17th (retries 0)
    // drains every CPU first. Each call asks for at least
    // SWAP_CLUSTER_MAX = 32 pages, so it takes all 30 of b's: 31 in all.
    t.run("reclaim app 120K");
    assert_eq!(queued(&mut t, 1), 0);
    assert_eq!(t.ev(Ev::PgstealDirect), 0, "memory.reclaim is cgroup reclaim: no global count");
    let app = t.memcg_id("app") as usize;
    let stolen = t.k().memcgs[app].ev.get(Ev::PgstealDirect);
    assert_eq!(stolen, 31);
    t.check();
}

/// drain_all_stock(memcg): the stocks of every CPU caching a memcg in the
/// subtree being reclaimed are given back; another memcg's stock stays.
#[test]
fn drain_all_stock_drains_the_reclaimed_memcgs_stocks_only() {
    let mut t = T::classic();
    t.run(
        "cpus 3\nmemory 256M\nmemcg app max=4M\nmemcg other\nfile f size=8M readahead=0\n\
         task a memcg=app\ntask b memcg=app\ntask o memcg=other",
    );
    // b (CPU 1) reads page 0: the folio's charge takes a 64-page batch
    // (1 used, 63 in CPU 1's stock); the page cache's two new xarray nodes
    // (a root and a leaf, 2 × 584 bytes) take one slab page from the
    // stock: 62 left. o (CPU 2) reads page 2000: a new leaf, likewise 62.
    t.run("read b f 0\nread o f 2000");
    let (app, other) = (t.memcg_id("app"), t.memcg_id("other"));
    let stock = |t: &mut T, c: usize| (t.k().cpus[c].stock.memcg, t.k().cpus[c].stock.nr_pages);
    assert_eq!(stock(&mut t, 1), (app, 62));
    assert_eq!(stock(&mut t, 2), (other, 62));
    // a (CPU 0) stores into anon memory past app's 1,024-page limit, with
    // no swap: limit reclaim finds nothing (b's folio is in CPU 1's batch),
    // the margin stays 0, and try_charge_memcg calls drain_all_stock(app)
    // — CPU 1's stock goes back, CPU 2's (other) stays.
    t.run("anon a heap size=8M\nstore a heap 0 1100");
    assert!(t.k().memcgs[app as usize].mem_events[mglru_core::memcontrol::MemcgEvent::Max as usize] > 0);
    assert_eq!(stock(&mut t, 1), (NO_MEMCG, 0));
    assert_eq!(stock(&mut t, 2), (other, 62));
    t.check();
}

/// CPU time from the cost model, as /proc/PID/stat splits it: loads and
/// stores to mapped pages are user time, faults and read()'s copies system
/// time, waiting for the disk neither.
#[test]
fn cpu_time_splits_user_and_system_per_task() {
    let mut c = mglru_core::CostModel::default();
    for (n, v) in [("op", 0), ("mem_access", 100), ("minor_fault", 1_000), ("page_copy", 500), ("disk_read", 100_000)] {
        c.set(n, v).unwrap();
    }
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), ..Default::default() });
    t.run("cpus 2\nmemory 256M\nfile f size=1M readahead=0\ntask a\ntask b\nanon a heap size=40K");
    // 10 stores to absent pages: 10 faults (system, 1 µs each); 10 loads
    // of the now-mapped pages: user, 100 ns each; a 5-page read: 5 copies
    // of 500 ns (system) and one 100 µs wait for the disk (neither).
    t.run("store a heap 0 10\nload a heap 0 10\nread a f 0 5");
    let k = t.k();
    assert_eq!((k.tasks[0].utime_ns, k.tasks[0].stime_ns), (1_000, 12_500));
    assert_eq!((k.tasks[1].utime_ns, k.tasks[1].stime_ns), (0, 0));
    assert_eq!(k.sim.kswapd_ns, 0);
    let rep = k.report(&TaskNames);
    assert_eq!(rep.cpu.cpus, 2);
    assert_eq!((rep.cpu.tasks[0].cpu, rep.cpu.tasks[0].utime_ns, rep.cpu.tasks[0].stime_ns), (0, 1_000, 12_500));
    assert_eq!(rep.cpu.tasks[1].cpu, 1);
}

/// The operation's own cost in three parts (the ground-truth platform's
/// replayer: docs/COST_MODEL.md "The ground-truth platform"): `op` user
/// time, `op_sys` system time, `op_wait` time without the task's CPU; and
/// a file disk that reads in the reader's context (brd): `disk_read_sys`
/// is system time, `disk_read` a wait. Each operation moves the clock by all three parts,
/// also on the one-step paths of cached one-page reads.
#[test]
fn op_parts_and_a_synchronous_disk_split_cpu_time() {
    for disk_sys in [0, 7_000] {
        let mut c = mglru_core::CostModel::default();
        for n in mglru_core::CostModel::NAMES {
            c.set(n, 0).unwrap();
        }
        for (n, v) in [("op", 1), ("op_sys", 20), ("op_wait", 300), ("page_copy", 4_000), ("disk_read", 50_000), ("disk_read_sys", disk_sys)] {
            c.set(n, v).unwrap();
        }
        let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), ..Default::default() });
        t.run("memory 256M\nfile f size=1M readahead=0\ntask a\nanon a heap size=40K");
        // 10 loads of absent pages: 10 operations, no faults charged
        // (minor_fault 0); 2 one-page reads of page 0 (the first misses and
        // reads from the disk, the second is cached: the one-step path);
        // 8 more cached one-page reads in a run (the batched path).
        t.run("load a heap 0 10\nread a f 0 1\nread a f 0 1");
        let ops = vec![mglru_trace::Op::Read { task: 0, file: 0, page: 0, count: 1 }; 8];
        assert_eq!(t.sim.apply_cached_reads(&ops, ops.len()), 8, "the batched path takes all eight");
        let k = t.k();
        // 1 load run + 10 reads = 11 operations; 10 copies; 1 disk read.
        // (The writes below are checked apart.)
        assert_eq!(k.tasks[0].utime_ns, 11, "op is user time");
        assert_eq!(k.tasks[0].stime_ns, 11 * 20 + 10 * 4_000 + disk_sys, "op_sys, the copies and the disk read's own part are system time");
        assert_eq!(k.now, 11 * 321 + 10 * 4_000 + 50_000 + disk_sys, "the clock moves by every part");
    }
}

/// A buffered write of a page not cached costs `write_new` (write_begin's
/// new folio) on top of its copy, as system time; a write to a cached page
/// only its copy.
#[test]
fn a_write_of_an_uncached_page_costs_write_new() {
    let mut c = mglru_core::CostModel::default();
    for n in mglru_core::CostModel::NAMES {
        c.set(n, 0).unwrap();
    }
    c.set("page_copy", 4_000).unwrap();
    c.set("write_new", 30_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), ..Default::default() });
    t.run("memory 256M\nfile f size=1M readahead=0\ntask a");
    // 3 new pages, then 2 of them again (cached: copies only).
    t.run("write a f 0 3\nwrite a f 0 2");
    let k = t.k();
    assert_eq!(k.tasks[0].stime_ns, 5 * 4_000 + 3 * 30_000);
    assert_eq!(k.tasks[0].utime_ns, 0);
}

/// A line of another task than the last task's line costs `task_switch`
/// of time and nobody's CPU time; lines of one task in a row do not.
#[test]
fn a_line_of_another_task_costs_task_switch() {
    let mut c = mglru_core::CostModel::default();
    for n in mglru_core::CostModel::NAMES {
        c.set(n, 0).unwrap();
    }
    c.set("op", 100).unwrap();
    c.set("task_switch", 5_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), ..Default::default() });
    t.run("cpus 2\nmemory 256M\ntask a\ntask b\nanon a x size=40K\nanon b y size=40K");
    let t0 = t.k().now;
    // a a b a b b: switches at the 3rd, 4th and 5th line (the first line
    // is a's, the task that ran last: none before it ran any).
    t.run("load a x 0 1\nload a x 1 1\nload b y 0 1\nload a x 2 1\nload b y 1 1\nload b y 2 1");
    let k = t.k();
    assert_eq!(k.now - t0, 6 * 100 + 3 * 5_000);
    assert_eq!(k.tasks[0].utime_ns + k.tasks[1].utime_ns, 6 * 100);
    assert_eq!(k.tasks[0].stime_ns + k.tasks[1].stime_ns, 0);
}

/// kswapd's scanning is its own CPU time (pages scanned × `scan`), and
/// does not move the workload's clock.
#[test]
fn kswapd_cpu_time_is_its_pages_scanned_times_the_scan_cost() {
    let mut c = mglru_core::CostModel::default();
    for n in mglru_core::CostModel::NAMES {
        c.set(n, 0).unwrap();
    }
    c.set("scan", 7_000).unwrap();
    let mut t = T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(c), ..Default::default() });
    t.run("memory 64M\nfile f size=128M readahead=0\ntask a\nread a f 0 20000");
    let k = t.k();
    let scanned = k.ev.get(Ev::PgscanKswapd) + k.ev.get(Ev::Pgrefill);
    assert!(k.ev.get(Ev::PgscanKswapd) > 0, "a 80 MiB read in 64 MiB wakes kswapd");
    assert_eq!(k.sim.kswapd_ns, scanned * 7_000);
    // Direct reclaim, if any, is the task's system time; nothing else costs.
    let direct = k.ev.get(Ev::PgscanDirect);
    assert_eq!(k.tasks[0].stime_ns, direct * 7_000);
    assert_eq!(k.now, direct * 7_000);
}

struct TaskNames;
impl mglru_core::report::Names for TaskNames {
    fn memcg(&self, id: u16) -> String {
        format!("m{id}")
    }
    fn task(&self, id: u32) -> String {
        format!("t{id}")
    }
}
