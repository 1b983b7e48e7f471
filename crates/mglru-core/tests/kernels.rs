// SPDX-License-Identifier: GPL-2.0-only
//! Kernel versions (crate::profiles): each version's differences from
//! 6.12, worked out by hand from that version's source.

mod common;
use common::T;
use mglru_core::kernel::{KernelVersion, Variant};
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions, Simulator};
use mglru_trace::TraceReader;

fn on(kernel: KernelVersion, policy: Option<Policy>) -> T {
    T::with_options(RunOptions { kernel, policy, ..Default::default() })
}

/// The simulator's first error on `text` under `kernel`, if any.
fn first_error(kernel: KernelVersion, text: &str) -> Option<String> {
    let mut reader = TraceReader::from_str("t", text);
    let mut sim = Simulator::new(RunOptions { kernel, ..Default::default() });
    while let Some(op) = reader.next_op().unwrap() {
        if let Err(e) = sim.apply(&op) {
            return Some(e.0);
        }
    }
    None
}

/// Memcg-limit reclaim in a 256 MiB machine: a task in a memcg limited to
/// 8 MiB (2,048 pages) reads a 32 MiB file (8,192 pages) once, so at least
/// 8,192 - 2,048 = 6,144 pages are reclaimed by the task's own memcg
/// reclaim. 6.12 counts them in the memcg only (`if (!cgroup_reclaim(sc))`
/// keeps them out of /proc/vmstat); 7.2 counts them as node stats, in
/// /proc/vmstat too, and reclaims the same pages (nothing else differs on
/// this path under the classic LRU).
#[test]
fn memcg_limit_reclaim_reaches_proc_vmstat_in_7_2_only() {
    let trace = "memory 256M\nmemcg app max=8M\nfile f size=32M readahead=0\ntask t memcg=app\nread t f 0 8192\n";
    let run = |kernel| {
        let mut t = on(kernel, Some(Policy::Classic));
        t.run(trace);
        t.check();
        let app = t.memcg_id("app") as usize;
        let k = t.k();
        let m = &k.memcgs[app].ev;
        (k.ev.get(Ev::PgstealDirect), k.ev.get(Ev::PgscanDirect), m.get(Ev::PgstealDirect), m.get(Ev::PgscanDirect))
    };
    let (node_steal, node_scan, memcg_steal, memcg_scan) = run(KernelVersion::V6_12);
    assert_eq!((node_steal, node_scan), (0, 0), "6.12: memcg reclaim is not in /proc/vmstat");
    assert!(memcg_steal >= 6144, "the memcg gave at least 6,144 pages: {memcg_steal}");
    let (n72_steal, n72_scan, m72_steal, m72_scan) = run(KernelVersion::V7_2);
    assert_eq!((m72_steal, m72_scan), (memcg_steal, memcg_scan), "the same reclaim");
    assert_eq!((n72_steal, n72_scan), (m72_steal, m72_scan), "7.2: the node counts what the memcg counts");
}

/// memory.reclaim of 2 MiB (512 pages) from a memcg holding 1,024 clean
/// pages of a file it read once. `memory_reclaim` loops until it has 512;
/// 6.12 counts them as the memcg's `pgsteal_direct` (a proactive reclaimer
/// is direct to 6.12's counters, and cgroup reclaim stays out of
/// /proc/vmstat, which has no `pgsteal_proactive`); 7.2's
/// `reclaimer_offset` counts them as `pgsteal_proactive`, node and memcg.
#[test]
fn memory_reclaim_counts_as_proactive_in_7_2() {
    let trace = "memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nreclaim app 2M\n";
    let mut t = on(KernelVersion::V6_12, Some(Policy::Classic));
    t.run(trace);
    let app = t.memcg_id("app") as usize;
    let steal_6_12 = t.k().memcgs[app].ev.get(Ev::PgstealDirect);
    assert!(steal_6_12 >= 512, "{steal_6_12}");
    assert_eq!(t.vm("pgsteal_direct"), 0);
    assert!(t.k().vmstat().iter().all(|(n, _)| *n != "pgsteal_proactive"), "6.12 has no pgsteal_proactive");
    let mut t = on(KernelVersion::V7_2, Some(Policy::Classic));
    t.run(trace);
    t.check();
    let k = t.k();
    assert_eq!(k.memcgs[app].ev.get(Ev::PgstealProactive), steal_6_12);
    assert_eq!(k.memcgs[app].ev.get(Ev::PgstealDirect), 0);
    assert_eq!(t.vm("pgsteal_proactive"), steal_6_12);
    assert_eq!(t.vm("pgsteal_direct"), 0);
    let stat = t.k().memory_stat(app as u16);
    let get = |n: &str| stat.iter().find(|(k, _)| *k == n).map(|&(_, v)| v);
    assert_eq!(get("pgsteal_proactive"), Some(steal_6_12));
    assert_eq!(get("pgsteal"), Some(steal_6_12), "memory.stat's pgsteal sums the proactive ones in 7.2");
}

/// Debian's 6.1 config leaves `CONFIG_LRU_GEN_ENABLED` unset: with no
/// `--policy` and no `lru_gen.enabled` in the trace, 6.1 runs the classic
/// LRU, 6.12 and 7.2 the multi-gen one. 6.1 has no memory.swap.peak (a
/// trace that resets it is an error naming the file) and a read-only
/// memory.peak, and prints neither 6.12's khugepaged reclaim counters nor
/// its zero-page swap counters.
#[test]
fn linux_6_1_boots_classic_and_lacks_6_12_files() {
    for (kernel, want) in [(KernelVersion::V6_1, Policy::Classic), (KernelVersion::V6_12, Policy::Mglru), (KernelVersion::V7_2, Policy::Mglru)] {
        let mut t = on(kernel, None);
        t.run("memory 64M\ntask t\nanon t a size=1M\nstore t a 0 16\n");
        assert_eq!(t.k().policy(), want, "{kernel:?}");
    }
    for (option, file) in [("swap.peak=reset", "memory.swap.peak"), ("peak=reset", "memory.peak is read-only")] {
        let text = format!("memory 64M\nmemcg app\ntask t memcg=app\nanon t a size=1M\nstore t a 0 16\nmemcg app {option}\n");
        let err = first_error(KernelVersion::V6_1, &text).unwrap_or_else(|| panic!("6.1 accepted {option}"));
        assert!(err.contains(file) && err.contains("6.1"), "{err}");
    }
    let mut t = on(KernelVersion::V6_1, None);
    let text = "memory 64M\nmemcg app\ntask t memcg=app\nanon t a size=1M\nstore t a 0 16\n";
    t.run(text);
    let k = t.k();
    assert!(k.vmstat().iter().all(|(n, _)| *n != "pgscan_khugepaged"));
    assert!(k.memory_stat(1).iter().all(|(n, _)| *n != "swpin_zero"));
    let rep = k.report(&TraceReader::from_str("t", text));
    assert!(!rep.has_swap_peak());
    assert!(!mglru_core::json::report_json(&rep).contains("swap_peak"));
}

/// 6.1 has no memcg LRU (no `lru_gen_shrink_node`/`shrink_many`): global
/// reclaim under the multi-gen LRU walks the memcgs with the iterator, the
/// same module as seed 003's `memcg-lru-off` variant. On the trace of
/// tests/mglru.rs `memcg_lru_off_variant_makes_global_reclaim_walk_memcgs_in_order`
/// (two memcgs' single-use pages, then a root task streaming through a
/// 64 MiB machine, kswapd reclaiming), 6.12 takes a's and b's pages
/// alike; without the memcg LRU — 6.1, or 6.12 with the variant — the
/// root's lruvec, first in iterator order, pays, and a and b lose a batch
/// or so each. The variant carries only that difference: its swap
/// accounting stays 6.12's (pgpgin counts swap-ins), 6.1's does not.
#[test]
fn linux_6_1_global_reclaim_walks_memcgs_like_the_memcg_lru_off_variant() {
    let trace = "memory 64M\nmemcg a\nmemcg b\nfile fa size=16M readahead=0\nfile fb size=16M readahead=0\n\
                 file fr size=128M readahead=0\ntask ta memcg=a\ntask tb memcg=b\ntask r\n\
                 read ta fa 0 4096\nread tb fb 0 4096\nread r fr 0 20000";
    let run = |kernel, variant| {
        let mut t = T::with_options(RunOptions { kernel, variant, policy: Some(Policy::Mglru), ..Default::default() });
        t.run(trace);
        t.check();
        let (a, b) = (t.memcg_id("a") as usize, t.memcg_id("b") as usize);
        let k = t.k();
        [a, b, 0].map(|m| k.memcgs[m].ev.get(Ev::PgstealKswapd))
    };
    let [a, b, root] = run(KernelVersion::V6_12, Variant::PLAIN);
    assert!(a == b && a > 2000, "6.12 takes a's and b's cold pages: {a} {b}");
    for (kernel, variant) in [(KernelVersion::V6_12, Variant::parse("memcg-lru-off").unwrap()), (KernelVersion::V6_1, Variant::PLAIN)] {
        let [a2, b2, root2] = run(kernel, variant);
        assert!(a2 <= 128 && b2 <= 128 && root2 > root, "{kernel:?} {variant:?}: {a2} {b2} {root2} (6.12: {root})");
    }
    let swap = "memory 256M\nswap 64M sync=y ram=y\nmemcg app max=8M\ntask t memcg=app\nanon t a size=16M\nstore t a 0 4096\nload t a 0 4096\n";
    for (kernel, variant, counted) in [(KernelVersion::V6_12, Variant::parse("memcg-lru-off").unwrap(), true), (KernelVersion::V6_1, Variant::PLAIN, false)] {
        let mut t = T::with_options(RunOptions { kernel, variant, policy: Some(Policy::Mglru), ..Default::default() });
        t.run(swap);
        let (pswpin, pgpgin) = (t.vm("pswpin"), t.vm("pgpgin"));
        assert!(pswpin > 0);
        assert_eq!(pgpgin, if counted { 4 * pswpin } else { 0 }, "{kernel:?}");
    }
}

/// The debugfs eviction command in 7.2 is proactive reclaim of its memcg
/// (`lru_gen_seq_write`: `.proactive = true`; `run_cmd`:
/// `sc->target_mem_cgroup = memcg`): counted as `pgsteal_proactive` in the
/// node and the memcg. 6.12 runs it with no target memcg: global direct
/// reclaim to the counters, the memcg's too.
#[test]
fn lru_gen_eviction_command_is_proactive_in_7_2() {
    // 1,024 pages read once sit in the oldest generations; `lru_gen - app 0
    // 1` evicts generations up to 1 (min_gen + MIN_NR_GENS <= max_seq 3).
    let trace = "memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nlru_gen - app 0 1\n";
    let mut t = on(KernelVersion::V6_12, Some(Policy::Mglru));
    t.run(trace);
    let app = t.memcg_id("app") as usize;
    let n = t.vm("pgsteal_direct");
    assert!(n > 0, "the command evicted nothing");
    assert_eq!(t.k().memcgs[app].ev.get(Ev::PgstealDirect), n);
    let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
    t.run(trace);
    t.check();
    assert_eq!((t.vm("pgsteal_direct"), t.vm("pgsteal_proactive")), (0, n));
    assert_eq!(t.k().memcgs[app].ev.get(Ev::PgstealProactive), n);
}

/// memcg reclaim that stops at its target in 7.2 and goes on in 6.12: one
/// memory.reclaim of 128K (32 pages) from a memcg holding 524,288 clean
/// file pages read once (2 GiB, generation 1; generation 0 empty; no swap).
/// At priority 12 both budget 524,288 >> 12 = 128. 6.12's loop runs until
/// it has scanned that much, whatever it reclaimed (memcg reclaim never
/// aborts: "don't abort memcg reclaim to ensure fairness"): the first
/// `evict_folios` flushes the empty generation 0 (counted as 1 scanned),
/// then two batches of `MIN_LRU_BATCH` go: 128 pages. 7.2 flushes
/// generation 0 the same way, evicts one batch of 64 and stops:
/// `should_abort_scan` sees 64 >= 32 for memcg reclaim too.
#[test]
fn memcg_reclaim_stops_at_its_target_in_7_2() {
    let trace = "memory 4G\nmemcg app\nfile f size=2G readahead=0\ntask t memcg=app\nread t f 0 524288\nreclaim app 128K\n";
    let run = |kernel| {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run(trace);
        t.check();
        (t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile))
    };
    assert_eq!(run(KernelVersion::V6_12), (128, 128));
    assert_eq!(run(KernelVersion::V7_2), (64, 64));
}

fn lg(t: &mut T, memcg: &str) -> (u64, u64) {
    let id = t.memcg_id(memcg) as usize;
    let g = &t.k().memcgs[id].lruvec.lrugen;
    (g.min_seq[1], g.max_seq)
}

/// 6.1's `lru_gen_refault` counts a refault only when it is recent and
/// counts no activation for it; 6.12 counts every refault and activates
/// the recent ones. 256 pages read once, aged twice, at least 100 of them
/// evicted by the debugfs command, then read again while min_seq has not
/// moved: every refault is recent. (tests/mglru.rs
/// `recent_refault_is_activated_and_counted` is the 6.12 side.)
#[test]
fn linux_6_1_counts_recent_refaults_without_activating_them() {
    for kernel in [KernelVersion::V6_12, KernelVersion::V6_1] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app");
        for p in 0..256 {
            t.run(&format!("read t f {p}"));
        }
        t.run("lru_gen + app 0 3\nlru_gen + app 0 4");
        let (_, max_seq) = lg(&mut t, "app");
        t.run(&format!("lru_gen - app 0 {} 0 100", max_seq - 2));
        let evicted = t.ev(Ev::PgstealFile);
        assert!(evicted >= 100);
        let (min_before, _) = lg(&mut t, "app");
        for p in 0..256 {
            t.run(&format!("read t f {p}"));
        }
        assert_eq!(lg(&mut t, "app").0, min_before);
        let activated = if kernel == KernelVersion::V6_1 { 0 } else { evicted };
        assert_eq!((t.ev(Ev::WorkingsetRefaultFile), t.ev(Ev::WorkingsetActivateFile)), (evicted, activated), "{kernel:?}");
        t.check();
    }
}

/// A refault after min_seq moved on is not recent: 6.12 counts it as a
/// refault (not activated), 6.1 not at all. 200 pages of f evicted, then
/// 200 of g read and evicted the same way, which moves min_seq past f's
/// tokens; then f is read again. (tests/mglru.rs
/// `old_refault_is_not_activated` is the 6.12 side.)
#[test]
fn linux_6_1_does_not_count_an_old_refault() {
    for (kernel, want) in [(KernelVersion::V6_12, 200), (KernelVersion::V6_1, 0)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\nfile g size=4M readahead=0\ntask t memcg=app");
        for p in 0..200 {
            t.run(&format!("read t f {p}"));
        }
        t.drain().run("lru_gen + app 0 3\nlru_gen + app 0 4");
        let (_, max_seq) = lg(&mut t, "app");
        t.run(&format!("lru_gen - app 0 {} 0 1000", max_seq - 2));
        assert_eq!(t.ev(Ev::PgstealFile), 200);
        for p in 0..200 {
            t.run(&format!("read t g {p}"));
        }
        t.drain().run("lru_gen + app 0 5\nlru_gen + app 0 6");
        let (_, max_seq) = lg(&mut t, "app");
        t.run(&format!("lru_gen - app 0 {} 0 1000", max_seq - 2));
        for p in 0..200 {
            t.run(&format!("read t f {p}"));
        }
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), want, "{kernel:?}");
        assert_eq!(t.ev(Ev::WorkingsetActivateFile), 0);
        t.check();
    }
}

/// 6.1 counts `workingset_activate` where `sort_folio` protects a folio.
/// 100 pages read once and 10 of them read five more times: those 10 have
/// PG_referenced, PG_workingset and a saturated counter (refs =
/// BIT(LRU_REFS_WIDTH)), which `sort_folio` always protects. All 100 sit
/// in generation 1 (min_seq 0, max_seq 3). Aged once (max_seq 4): the
/// aging retires the empty generation 0 (min_seq 1) without touching them
/// (an aging that moved them would clear their refs, `folio_inc_gen`).
/// The eviction command then evicts up to generation 1: the 90 go, the 10
/// are protected into generation 2, beyond the command's reach. 6.1 counts
/// the 10 as activations; 6.12 counts none (no refault happened).
#[test]
fn linux_6_1_counts_activations_where_sort_folio_protects() {
    for (kernel, want) in [(KernelVersion::V6_12, 0), (KernelVersion::V6_1, 10)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 100");
        for _ in 0..5 {
            t.run("read t f 0 10");
        }
        t.drain().run("lru_gen + app 0 3");
        assert_eq!(lg(&mut t, "app"), (1, 4));
        t.run("lru_gen - app 0 1 0 1000");
        assert_eq!(t.ev(Ev::PgstealFile), 90, "{kernel:?}");
        assert_eq!(t.ev(Ev::WorkingsetActivateFile), want, "{kernel:?}");
        t.check();
    }
}

/// 6.1 swaps to a synchronous device through `rw_page`, without a bio, so
/// `pgpgin`/`pgpgout` do not move for it: 16 MiB of anon stored in a memcg
/// of 8 MiB with 64 MiB of swap on a synchronous device (brd), then read
/// back. Every page swapped out (`pswpout`) or in (`pswpin`) adds 4 KiB to
/// pgpgout / pgpgin under 6.12, nothing under 6.1 (which has no file I/O
/// here). (How much is swapped differs a little: 6.1's classic LRU weighs
/// reclaim cost differently, `lru-note-cost-6.1`.)
#[test]
fn linux_6_1_swap_on_a_synchronous_device_moves_no_pgpgin() {
    let trace = "memory 256M\nswap 64M sync=y ram=y\nmemcg app max=8M\ntask t memcg=app\nanon t a size=16M\n\
                 store t a 0 4096\nload t a 0 4096\n";
    let run = |kernel| {
        let mut t = on(kernel, Some(Policy::Classic));
        t.run(trace);
        t.check();
        (t.vm("pswpin"), t.vm("pswpout"), t.vm("pgpgin"), t.vm("pgpgout"))
    };
    let (i, o, pgin, pgout) = run(KernelVersion::V6_12);
    assert!(i > 0 && o >= 2048, "{i} {o}");
    assert_eq!((pgin, pgout), (4 * i, 4 * o));
    let (i, o, pgin, pgout) = run(KernelVersion::V6_1);
    assert!(i > 0 && o >= 2048, "{i} {o}");
    assert_eq!((pgin, pgout), (0, 0));
}

/// memory.reclaim in 6.1 asks for the whole remainder each round; 6.12
/// for a quarter of it (at least 32). 1 MiB (256 pages) from a memcg of
/// 1,024 clean file pages read once (generation 1, generation 0 empty, no
/// swap), under the multi-gen LRU (6.12's reclaim loop in both). 6.12's
/// rounds ask 64, 48, 32 and 32 pages; each runs priorities 12 to 9 (4
/// lruvec visits): at 12 to 10 the budget `evictable >> priority` is 0 (or
/// 1 at 10 in the first round, where `evict_folios` only flushes the empty
/// generation 0), at 9 it is 1 or 2, and one `scan_folios` isolates
/// `MIN_LRU_BATCH` = 64: 4 rounds x 64 = 256 pages in 16 visits. 6.1 asks
/// 256 at once: priorities 12 to 9 as before (64 pages), then 8 (960 >> 8
/// = 3: 64 more), 7 (896 >> 7 = 7: 64) and 6 (832 >> 6 = 13: 64): the same
/// 256 pages in one round of 7 visits.
#[test]
fn linux_6_1_memory_reclaim_asks_for_the_whole_remainder() {
    let trace = "memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nreclaim app 1M\n";
    let run = |kernel| {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run(trace);
        t.check();
        (t.ev(Ev::PgstealFile), t.k().sim.reclaim_work.lruvecs)
    };
    assert_eq!(run(KernelVersion::V6_12), (256, 16));
    assert_eq!(run(KernelVersion::V6_1), (256, 7));
}

/// 6.1's direct and memcg reclaim age the lruvec and keep evicting in the
/// same call; 6.12's age and leave it. 1,024 anon pages stored once sit in
/// the youngest generation (faulted: active, max_seq 3; min_seq 0), with
/// swap; then memory.reclaim of 128K (32 pages; 6.1 and 6.12 both ask 32
/// in the first round). Priorities 12 and 11: budget 1,024 >> p = 0. At 10
/// the budget is 1: `evict_folios` finds generations 0 and 1 empty and
/// flushes them (min_seq 2), which leaves MIN_NR_GENS generations: nothing
/// scanned. At 9 the two generations left ask for aging (min_seq +
/// MIN_NR_GENS > max_seq): both age (max_seq 4). 6.12 then leaves the
/// lruvec. 6.1 goes on with its budget 1,024 >> 9 = 2, but the oldest
/// generation (2) is empty: flushed (min_seq 3), again two generations,
/// nothing scanned. At 8: 6.12 sees three generations with the oldest empty
/// (old * (MIN_NR_GENS + 2) < total) and ages again (max_seq 5), leaving
/// the lruvec; 6.1 ages (max_seq 5) and evicts in the same call: one
/// `scan_folios` isolates MIN_LRU_BATCH = 64 of generation 3, all swapped
/// out. 6.12 evicts its 64 at priority 7. Both end with max_seq 5 and 64
/// pages reclaimed, 6.1 after 5 lruvec visits (priorities 12 to 8), 6.12
/// after 6.
#[test]
fn linux_6_1_memcg_reclaim_ages_and_keeps_evicting() {
    let trace = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\ntask t memcg=app\nanon t a size=4M\nstore t a 0 1024\nreclaim app 128K\n";
    let run = |kernel| {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run(trace);
        t.check();
        let app = t.memcg_id("app") as usize;
        let max_seq = t.k().memcgs[app].lruvec.lrugen.max_seq;
        (t.ev(Ev::PgstealAnon), max_seq, t.k().sim.reclaim_work.lruvecs)
    };
    assert_eq!(run(KernelVersion::V6_12), (64, 5, 6));
    assert_eq!(run(KernelVersion::V6_1), (64, 5, 5));
}

/// 7.2's refault window: a refault is recent while `max_seq` is fewer
/// than MAX_NR_GENS generations past the min_seq the folio was evicted at;
/// 6.12 wants min_seq unchanged. 256 pages read once (generation 1), aged
/// once (min_seq 1, max_seq 4), then evicted by two commands: 128 (two
/// batches of 64: `scan_folios` stops at MIN_LRU_BATCH isolated) and the
/// other 128, whose last batch of 64 empties
/// generation 1, so that its shadows carry the min_seq reached after it
/// (3). Read again (with `read()`: no fault), all 256 refault. 6.12: only
/// the last batch's 64 are recent (token 3 = min_seq 3), and it counts
/// them as activations. 7.2: max_seq 4 is 3 past token 1 and 1 past
/// token 3: all 256 recent (in tier 0: read once, no PG_workingset), and
/// none counted as an activation or a restore (not workingset folios).
#[test]
fn linux_7_2_refault_window_is_max_nr_gens_from_max_seq() {
    for (kernel, recent, activated) in [(KernelVersion::V6_12, 64, 64), (KernelVersion::V7_2, 256, 0)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app");
        for p in 0..256 {
            t.run(&format!("read t f {p}"));
        }
        t.drain().run("lru_gen + app 0 3\nlru_gen - app 0 1 0 128");
        assert_eq!(t.ev(Ev::PgstealFile), 128);
        t.run("lru_gen - app 0 1");
        assert_eq!((t.ev(Ev::PgstealFile), lg(&mut t, "app")), (256, (3, 4)));
        for p in 0..256 {
            t.run(&format!("read t f {p}"));
        }
        let app = t.memcg_id("app") as usize;
        let refaulted: u64 = t.k().memcgs[app].lruvec.lrugen.refaulted[1].iter().sum();
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 256, "{kernel:?}");
        assert_eq!((refaulted, t.ev(Ev::WorkingsetActivateFile), t.ev(Ev::WorkingsetRestoreFile)), (recent, activated, 0), "{kernel:?}");
        t.check();
    }
}

/// 7.2's refs: PG_referenced first, then the counter to 3, then
/// PG_workingset (6.12: PG_referenced, PG_workingset, then the counter).
/// Page 0 read six times, each read after one of page 1 (`filemap_read`
/// marks a folio accessed only when the read does not continue on the page
/// the last one ended on). 6.12: the first read sets PG_referenced, the
/// second PG_workingset, the next three count 1, 2, 3. 7.2: PG_referenced,
/// then 1, 2, 3, and the fifth finds the counter full and sets
/// PG_workingset. After two reads only 6.12 has PG_workingset; after six
/// both have all three.
#[test]
fn linux_7_2_sets_pg_workingset_only_at_saturation() {
    use mglru_core::folio::pg;
    for (kernel, after_two) in [(KernelVersion::V6_12, true), (KernelVersion::V7_2, false)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 1\nread t f 0\nread t f 1\nread t f 0");
        let pfn = t.folio_of("f", 0).unwrap();
        assert_eq!(t.k().folios.get(pfn).test(pg::WORKINGSET), after_two, "{kernel:?}");
        for _ in 0..4 {
            t.run("read t f 1\nread t f 0");
        }
        let f = *t.k().folios.get(pfn);
        assert!(f.test(pg::REFERENCED) && f.test(pg::WORKINGSET) && f.refs_field() == 3, "{kernel:?}");
    }
}

/// The folio mapped at page `page` of the first region the trace defined.
fn anon_pfn(t: &mut T, page: u64) -> u32 {
    use mglru_core::mm::pte;
    let k = t.k();
    let v = &k.vmas[0];
    let pgd = k.tasks[v.task as usize].pgd;
    let e = k.pt.get(pgd, v.va(page));
    assert!(e & pte::PRESENT != 0, "page {page} not mapped");
    e & pte::VALUE
}

/// Where a fault's folio enters the generations (7.2 `lru_gen_folio_seq`
/// and `folio_add_lru`). A new memcg has generations 0..=3 (max_seq 3).
/// 6.12 makes every folio added in a fault active: it goes to max_seq
/// with its flags cleared. 7.2 marks it accessed instead (PG_referenced):
/// a new anon folio goes to max_seq - 1 (anon outside the swap cache), a
/// page-cache folio faulted through a mapping to max_seq - 2 (referenced,
/// not workingset).
#[test]
fn linux_7_2_places_faulted_folios_by_their_flags() {
    use mglru_core::folio::pg;
    for (kernel, anon_gen, file_gen, referenced) in [(KernelVersion::V6_12, 3, 3, false), (KernelVersion::V7_2, 2, 1, true)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nanon t a size=1M\nmmap t m file=f\nstore t a 0 4\nload t m 0 4");
        t.drain();
        assert_eq!(lg(&mut t, "app").1, 3, "{kernel:?}: max_seq");
        let apfn = anon_pfn(&mut t, 0);
        let a = *t.k().folios.get(apfn);
        assert_eq!((a.gen_field() - 1, a.test(pg::REFERENCED), a.test(pg::ACTIVE)), (anon_gen, referenced, false), "{kernel:?}: anon");
        let pfn = t.folio_of("f", 0).unwrap();
        let f = *t.k().folios.get(pfn);
        assert_eq!((f.gen_field() - 1, f.test(pg::REFERENCED)), (file_gen, referenced), "{kernel:?}: file");
        t.check();
    }
}

/// 7.2 keeps the swap cache in the swap clusters' tables, not an xarray:
/// an anon shadow sits in no node, so none goes on the shadow-node list,
/// and the refault is still found. 2 MiB of anon stored in a 1 MiB memcg
/// with swap: at least half is swapped out, one shadow per slot. 6.12's
/// swap cache xarray holds them in nodes of 64 slots: the slots are
/// handed out in order, so every node whose 64 slots hold only shadows is
/// on the list (`workingset_nodes` > 0); 7.2 lists none. Reading the heap
/// again swaps pages in; both versions count their refaults.
#[test]
fn linux_7_2_anon_shadows_are_in_no_xarray_node() {
    for (kernel, listed) in [(KernelVersion::V6_12, true), (KernelVersion::V7_2, false)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nswap 64M\nmemcg app max=1M\ntask t memcg=app\nanon t a size=2M\nstore t a 0 512");
        t.drain();
        assert!(t.ev(Ev::Pswpout) >= 256, "{kernel:?}: {}", t.ev(Ev::Pswpout));
        assert_eq!(t.vm("workingset_nodes") > 0, listed, "{kernel:?}: {}", t.vm("workingset_nodes"));
        t.run("load t a 0 512");
        assert!(t.ev(Ev::WorkingsetRefaultAnon) > 0, "{kernel:?}");
        assert_eq!(t.ev(Ev::WorkingsetNodereclaim), 0, "{kernel:?}");
        t.check();
    }
}

/// The shadow-node limit of 7.2's `count_shadow_nodes` reads the memcg's
/// `lru_zone_size[]`, which the multi-gen LRU does not keep: under MGLRU
/// only the slab counts. A 16 MiB memcg (4,096 pages) reads a 96 MiB file
/// (384 nodes of 64 pages) once: the pages of all but the last few
/// nodes are evicted, some 360 nodes hold only shadows. 6.12's limit,
/// (LRU + slab pages) / 8, is over 500 nodes: none is freed, and every
/// node without a page is on the list. 7.2 under the classic LRU has the
/// same limit (its lists are in `lru_zone_size[]`). 7.2 under MGLRU: the
/// limit is the slab's 55 or so pages / 8, so the excess is over 300 and
/// `do_shrink_slab` frees a batch of 128 nodes at a time while half the
/// excess is 128 or more; every freed node leaves the list.
#[test]
fn linux_7_2_mglru_shadow_limit_counts_no_lru_pages() {
    use mglru_core::shadow::XA_CHUNK_SHIFT;
    for (kernel, policy, trimmed) in [
        (KernelVersion::V6_12, Policy::Mglru, false),
        (KernelVersion::V7_2, Policy::Classic, false),
        (KernelVersion::V7_2, Policy::Mglru, true),
    ] {
        let mut t = on(kernel, Some(policy));
        let mut text = String::from("memory 256M\nmemcg app max=16M\nfile f size=96M readahead=0\ntask t memcg=app\n");
        for p in 0..4096 {
            text.push_str(&format!("read t f {p}\n"));
        }
        // Past the statistics flush, so the 6.12 limit sees the LRU.
        text.push_str("sleep 2500ms\n");
        for p in 4096..24576 {
            text.push_str(&format!("read t f {p}\n"));
        }
        t.run(&text);
        t.drain();
        let nodes = 24576u64 >> XA_CHUNK_SHIFT;
        let without_pages = (0..nodes).filter(|n| (n * 64..(n + 1) * 64).all(|p| t.folio_of("f", p).is_none())).count() as u64;
        assert!(without_pages >= 300, "{kernel:?} {policy:?}: {without_pages}");
        let freed = t.ev(Ev::WorkingsetNodereclaim);
        assert_eq!(freed >= 128, trimmed, "{kernel:?} {policy:?}: {freed} freed");
        if !trimmed {
            assert_eq!(freed, 0, "{kernel:?} {policy:?}");
        }
        assert_eq!(t.vm("workingset_nodes"), without_pages - freed, "{kernel:?} {policy:?}");
        t.check();
    }
}

/// A page-table walk promotes a young folio (`folio_update_gen`): 6.12
/// at once with its flags cleared, 7.2 only a folio already referenced
/// (the fault marked it accessed), and with PG_workingset. A page of a
/// file mapping faulted in (6.12: to max_seq, active; 7.2: to max_seq - 2,
/// PG_referenced), then aging with a forced walk of the page tables
/// (`lru_gen + app 0 3 60 1`): the walk runs for max_seq 3 and promotes
/// young folios to that generation before max_seq becomes 4, so both
/// versions leave the page in generation 3 without PG_referenced, and
/// only 7.2 gives it PG_workingset, which puts its shadow in the top tier
/// if it is evicted later. (6.12 had it there already; 7.2 moved it up
/// from generation 1.)
#[test]
fn linux_7_2_walk_promotion_sets_pg_workingset() {
    use mglru_core::folio::pg;
    for (kernel, workingset) in [(KernelVersion::V6_12, false), (KernelVersion::V7_2, true)] {
        let mut t = on(kernel, Some(Policy::Mglru));
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nmmap t m file=f\nload t m 0 4");
        t.drain();
        t.run("lru_gen + app 0 3 60 1");
        assert_eq!(lg(&mut t, "app").1, 4, "{kernel:?}");
        let pfn = t.folio_of("f", 0).unwrap();
        let f = *t.k().folios.get(pfn);
        assert_eq!((f.gen_field() - 1, f.test(pg::WORKINGSET), f.test(pg::REFERENCED)), (3, workingset, false), "{kernel:?}");
        t.check();
    }
}

/// 6.1 has no `vma_has_recency`: reclaim's rmap walk counts young PTEs
/// of a `MADV_RANDOM` mapping, and `POSIX_FADV_NOREUSE` does nothing.
/// A 1 MiB memcg maps a 2 MiB file and loads its 512 pages twice in turn,
/// so memcg reclaim runs all along and finds recently loaded pages. 6.12
/// leaves a MADV_RANDOM mapping (and a NOREUSE file's) out of the rmap
/// walk: every page it scans it reclaims. 6.1 sees the young PTEs and
/// keeps those pages, so it scans more than it reclaims. The multi-gen
/// LRU's page-table walk skips a MADV_RANDOM mapping in both versions, so
/// its PTEs are still young when reclaim looks; a NOREUSE file's plain
/// mapping is walked on 6.1 (which promotes its young pages before
/// reclaim sees them), so NOREUSE is compared under the classic LRU.
#[test]
fn linux_6_1_counts_references_of_random_mappings() {
    let scan_steal = |kernel, policy, advice: &str| {
        let mut t = on(kernel, Some(policy));
        let mut text = format!("memory 256M\nmemcg app max=1M\nfile f size=2M readahead=0\ntask t memcg=app\nmmap t m file=f\n{advice}\n");
        for _ in 0..2 {
            text.push_str("load t m 0 512\n");
        }
        t.run(&text);
        t.check();
        (t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile))
    };
    for (policy, advice) in [(Policy::Classic, "advise t m random"), (Policy::Mglru, "advise t m random"), (Policy::Classic, "advise t f noreuse")] {
        let (scan, steal) = scan_steal(KernelVersion::V6_12, policy, advice);
        assert!(scan >= 512 && scan == steal, "6.12 {policy:?} {advice}: scanned {scan}, reclaimed {steal}");
        let (scan, steal) = scan_steal(KernelVersion::V6_1, policy, advice);
        assert!(scan > steal, "6.1 {policy:?} {advice}: scanned {scan}, reclaimed {steal}");
    }
    for kernel in [KernelVersion::V6_12, KernelVersion::V6_1] {
        let (scan, steal) = scan_steal(kernel, Policy::Classic, "");
        assert!(scan > steal, "{kernel:?}: a plain mapping's young pages are kept (classic)");
    }
}

/// 6.1's `lruvec_page_state_local` sums the per-CPU counters, so the
/// shadow-node limit sees a memcg's LRU at once; 6.12's reads the state
/// the statistics flush (every 2 s from boot) last brought up to date.
/// The 16 MiB memcg of `linux_7_2_mglru_shadow_limit_counts_no_lru_pages`
/// reads its 96 MiB file (some 360 shadow-only nodes) with every cost
/// zero, so simulated time stays at 0, before the first flush: 6.12's
/// limit is then 0 pages / 8, it frees
/// batches of 128 nodes while half the excess is at least 128; 6.1's is
/// the memcg's 4,096 pages / 8 = 512 nodes, over the ~360, and it frees
/// none. Under both policies (the multi-gen LRU keeps `NR_LRU_BASE` too).
#[test]
fn linux_6_1_shadow_limit_reads_exact_sizes() {
    for policy in [Policy::Classic, Policy::Mglru] {
        for (kernel, trimmed) in [(KernelVersion::V6_12, true), (KernelVersion::V6_1, false)] {
            let mut t = T::with_options(RunOptions { kernel, policy: Some(policy), cost: Some(common::only_costs(&[])), ..Default::default() });
            let mut text = String::from("memory 256M\nmemcg app max=16M\nfile f size=96M readahead=0\ntask t memcg=app\n");
            for p in 0..24576 {
                text.push_str(&format!("read t f {p}\n"));
            }
            t.run(&text);
            assert!(t.k().now < 2_000_000_000, "{kernel:?} {policy:?}: the reads took {} ns, past the first flush", t.k().now);
            let freed = t.ev(Ev::WorkingsetNodereclaim);
            if trimmed {
                assert!(freed >= 128, "{kernel:?} {policy:?}: {freed} freed");
            } else {
                assert_eq!(freed, 0, "{kernel:?} {policy:?}");
            }
            t.check();
        }
    }
}

/// 6.1's classic `shrink_node` flushes the memcg statistics before it
/// reads them for the scan balance whenever enough updates are pending
/// (`prepare_scan_count` → `mem_cgroup_flush_stats`); 6.12 only when the
/// periodic 2-s flush is late. With every cost zero simulated time stays
/// at 0, so the periodic flush never runs: a 4 MiB memcg reading a 16 MiB
/// file once reclaims from its first 1,024 pages on. 6.12's flushed LRU
/// sizes stay those of boot (0); 6.1's are the memcg's at one of its
/// reclaims: more than the 64 x 2 updates the threshold asks of two CPUs,
/// and no more than its 1,024 pages. Under MGLRU neither flushes there.
#[test]
fn linux_6_1_flushes_before_the_classic_scan_balance() {
    for (kernel, policy, flushed) in [
        (KernelVersion::V6_12, Policy::Classic, false),
        (KernelVersion::V6_1, Policy::Classic, true),
        (KernelVersion::V6_1, Policy::Mglru, false),
    ] {
        let mut t = T::with_options(RunOptions { kernel, policy: Some(policy), cost: Some(common::only_costs(&[])), ..Default::default() });
        let mut text = String::from("memory 256M\ncpus 2\nmemcg app max=4M\nfile f size=16M readahead=0\ntask t memcg=app\n");
        for p in 0..4096 {
            text.push_str(&format!("read t f {p}\n"));
        }
        t.run(&text);
        assert!(t.ev(Ev::PgstealFile) >= 3072, "{kernel:?} {policy:?}: reclaim ran");
        let app = t.memcg_id("app") as usize;
        let lru: u64 = t.k().memcgs[app].flushed.lru_local.iter().sum();
        if flushed {
            assert!(lru > 128 && lru <= 1024, "{kernel:?} {policy:?}: flushed LRU {lru}");
        } else {
            assert_eq!(lru, 0, "{kernel:?} {policy:?}");
        }
        t.check();
    }
}

/// A writer in a 64 MiB memcg (16,384 pages) of a 1 GiB machine dirties
/// 4,096 pages of a file with every cost zero, so simulated time stays at
/// 0 and neither the periodic statistics flush nor the flusher's kupdate
/// runs. The memcg's dirty domain: its file pages are all dirty, so
/// `mdtc_calc_avail` gives filepages + headroom = 16,384 (the clean page
/// cache outside it is far larger), whose 10 % background threshold is
/// 1,636 pages (409/4,096 parts) and 20 % hard threshold 3,276, while the
/// global domain's are out of reach. 6.1's `mem_cgroup_wb_stats` flushes
/// whenever enough updates are pending, so the writer sees its memcg's
/// dirty pages and starts background writeback each time they pass 1,636:
/// one chunk of MIN_WRITEBACK_PAGES (1,024) at about 1,637, 2,661 and 3,685
/// pages dirtied, a fourth would need 4,709. That is 3,072 pages written
/// and 1,024 left dirty. 6.12 reads the last periodic flush (none yet):
/// the domain sees no dirty page and nothing is written.
#[test]
fn linux_6_1_memcg_writer_reads_fresh_dirty_statistics() {
    let trace = "memory 1G\nmemcg app max=64M\nfile f size=32M readahead=0\ntask t memcg=app\nwrite t f 0 4096\n";
    for (kernel, written, dirty) in [(KernelVersion::V6_12, 0, 4096), (KernelVersion::V6_1, 3072, 1024)] {
        let mut t = T::with_options(RunOptions { kernel, policy: Some(Policy::Classic), cost: Some(common::only_costs(&[])), ..Default::default() });
        t.run(trace);
        assert_eq!(t.k().now, 0, "every cost zero");
        assert_eq!(t.ev(Ev::NrWritten), written, "{kernel:?}");
        assert_eq!(t.vm("nr_dirty"), dirty, "{kernel:?}");
        t.check();
    }
}

/// 6.1's multi-gen `sort_folio` keeps folios under writeback and dirty
/// page-cache folios out of reclaim ("waiting for writeback": the next
/// generation, PG_reclaim set), so `shrink_folio_list` never sees one:
/// no `nr_vmscan_immediate_reclaim`, no activation. 6.12's lets them
/// through, and `shrink_folio_list` activates each dirty one it cannot
/// write (counted as immediate reclaim). An 8 MiB memcg (2,048 pages)
/// writing 8,192 pages of a file, with the default costs (an
/// asynchronous disk): 6.12 reclaim meets dirty folios; 6.1 meets none,
/// and its writer, throttled at its memcg's dirty limit with fresh
/// statistics (`wb-stats-6.1`), is not OOM-killed.
#[test]
fn linux_6_1_mglru_eviction_leaves_dirty_folios_to_writeback() {
    let trace = "memory 1G\nmemcg app max=8M\nfile f size=32M readahead=0\ntask t memcg=app\nwrite t f 0 8192\n";
    let mut t = on(KernelVersion::V6_12, Some(Policy::Mglru));
    t.run(trace);
    assert!(t.vm("nr_vmscan_immediate_reclaim") > 0, "6.12: reclaim meets dirty folios");
    let mut t = on(KernelVersion::V6_1, Some(Policy::Mglru));
    t.run(trace);
    let app = t.memcg_id("app") as usize;
    assert!(t.k().memcgs[app].ev.get(Ev::PgstealDirect) >= 8192 - 2048, "the memcg reclaimed");
    assert_eq!(t.vm("nr_vmscan_immediate_reclaim"), 0);
    assert_eq!(t.vm("pgactivate"), 0);
    assert_eq!(t.vm("oom_kill"), 0);
    assert_eq!(t.vm("nr_dirtied"), 8192, "every page written");
    t.check();
}

/// `reclaim MEMCG SIZE swappiness=N` (memory.reclaim's `swappiness=`,
/// 6.12 on): the proactive reclaim balances anon against file with N.
/// A memcg holding 1,024 anon pages (swap on a synchronous device) and
/// 1,024 clean page-cache pages asked for 2 MiB (512 pages), classic LRU:
/// at swappiness 0 cgroup reclaim scans file only (`get_scan_count`'s
/// SCAN_FILE: "memcg users want to use this knob to disable swapping"),
/// so nothing is swapped out; at 200 the file fraction is
/// `(200 - swappiness)` = 0 and anon pays most. 6.1's memory.reclaim takes
/// no option: the statement is an error naming the version.
#[test]
fn memory_reclaim_swappiness_overrides_the_sysctl_from_6_12_on() {
    let base = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nanon t a size=4M\nstore t a 0 1024\nread t f 0 1024\n";
    for kernel in [KernelVersion::V6_12, KernelVersion::V7_2] {
        let run = |n: u32| {
            let mut t = on(kernel, Some(Policy::Classic));
            t.run(&format!("{base}reclaim app 2M swappiness={n}\n"));
            t.check();
            let r = t.k().reclaim_results[0].reclaimed;
            (t.vm("pswpout"), t.ev(Ev::PgstealFile), r)
        };
        let (swapped, file, reclaimed) = run(0);
        assert_eq!(swapped, 0, "{kernel:?}: swappiness=0 swaps nothing");
        assert!(file >= 512 && reclaimed >= 512, "{kernel:?}: {file} file pages, {reclaimed} reclaimed");
        // At 200 the fraction gives file nothing; file pages go only where
        // it is not used (cache trim mode, the equal scan at priority 0).
        let (swapped, file, reclaimed) = run(200);
        assert!(swapped >= 256, "{kernel:?}: swappiness=200 reclaims mostly anon: {swapped}");
        assert!(file < 256, "{kernel:?}: {file} file pages");
        assert!(reclaimed >= 512, "{kernel:?}");
    }
    let err = first_error(KernelVersion::V6_1, &format!("{base}reclaim app 2M swappiness=60\n")).expect("6.1 accepted swappiness=");
    assert!(err.contains("swappiness") && err.contains("6.1"), "{err}");
}

/// 7.2's `memory.reclaim swappiness=max` (`SWAPPINESS_ANON_ONLY`) reclaims
/// anon only. A memcg holding 1,024 stored anon pages and 1,024 file pages
/// read once, with swap: `get_scan_count` picks `SCAN_ANON` (classic) and
/// the multi-gen LRU's only evictable type is anon, so no file page is
/// scanned and every page reclaimed is swapped out (at least the 512 of
/// 2 MiB). A memcg of file pages only: nothing can be reclaimed (-EAGAIN,
/// nothing scanned), where swappiness=200 still reclaims file (the classic
/// LRU's equal scan at priority 0; the multi-gen LRU's fall-back to the
/// other evictable type). 6.12 and 6.1 refuse the value, naming 7.2.
#[test]
fn linux_7_2_memory_reclaim_swappiness_max_reclaims_anon_only() {
    let head = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\n";
    let both = format!("{head}anon t a size=4M\nstore t a 0 1024\nread t f 0 1024\nreclaim app 2M swappiness=max\n");
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = on(KernelVersion::V7_2, Some(policy));
        t.run(&both);
        t.check();
        let r = t.k().reclaim_results[0].reclaimed;
        assert_eq!((t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile)), (0, 0), "{policy:?}: file scanned");
        assert!(r >= 512, "{policy:?}: {r} reclaimed");
        assert_eq!(t.vm("pswpout"), r, "{policy:?}: every reclaimed page is anon");
        for (swappiness, reclaims) in [("max", false), ("200", true)] {
            let mut t = on(KernelVersion::V7_2, Some(policy));
            t.run(&format!("{head}read t f 0 1024\nreclaim app 2M swappiness={swappiness}\n"));
            t.check();
            let res = &t.k().reclaim_results[0];
            let (r, eagain) = (res.reclaimed, res.result == -11);
            if reclaims {
                assert!(r >= 512 && t.ev(Ev::PgstealFile) == r, "{policy:?} {swappiness}: {r} reclaimed");
            } else {
                assert_eq!((r, eagain, t.ev(Ev::PgscanFile), t.ev(Ev::PgscanAnon)), (0, true, 0, 0), "{policy:?} {swappiness}");
            }
        }
    }
    for kernel in [KernelVersion::V6_12, KernelVersion::V6_1] {
        let err = first_error(kernel, &both).expect("swappiness=max accepted");
        assert!(err.contains(kernel.name()) && err.contains("7.2"), "{err}");
    }
}

/// The debugfs commands' `max` on 7.2. 1,024 file pages read once into a
/// new memcg (generations 0..=3): `lru_gen - app 0 1 max` evicts nothing,
/// for anon is the only evictable type and holds nothing (with `200` the
/// same command evicts file pages). `lru_gen + app 0 3 max 1` ages: both
/// types have `MAX_NR_GENS` generations, so `inc_min_seq` retires each
/// type's oldest; for file at `max` it only moves the counter, so a file
/// folio in generation 0's slot stays there, which is now the youngest
/// generation (4); with 200 it is moved to generation 1. 6.12 refuses
/// `max` (-EINVAL), naming 7.2.
#[test]
fn linux_7_2_lru_gen_commands_take_max_for_anon_only() {
    let head = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\n";
    for (swappiness, evicts) in [("max", false), ("200", true)] {
        let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
        t.run(&format!("{head}lru_gen - app 0 1 {swappiness}\n"));
        t.check();
        assert_eq!(t.ev(Ev::PgstealFile) > 0, evicts, "{swappiness}");
    }
    for (swappiness, moved) in [("max", false), ("200", true)] {
        let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
        t.run(head);
        t.drain();
        let app = t.memcg_id("app") as usize;
        // The file folios in generation 0's slot.
        let pfns: Vec<u32> = (0..1024).filter_map(|p| t.folio_of("f", p)).collect();
        let in_gen0: Vec<u32> = pfns.into_iter().filter(|&pfn| t.k().folios.get(pfn).gen_field() == 1).collect();
        assert!(!in_gen0.is_empty(), "no file folio in generation 0");
        t.run(&format!("lru_gen + app 0 3 {swappiness} 1\n"));
        t.drain();
        t.check();
        let lg = &t.k().memcgs[app].lruvec.lrugen;
        assert_eq!((lg.max_seq, lg.min_seq[1]), (4, 1), "{swappiness}");
        let want = if moved { 2 } else { 1 };
        for &pfn in &in_gen0 {
            assert_eq!(t.k().folios.get(pfn).gen_field(), want, "{swappiness}: pfn {pfn}");
        }
    }
    let err = first_error(KernelVersion::V6_12, &format!("{head}lru_gen - app 0 1 max\n")).expect("6.12 took max");
    assert!(err.contains("6.12") && err.contains("7.2") && err.contains("EINVAL"), "{err}");
}

/// 7.2's debugfs listing starts at the older type's `min_seq`
/// (`lru_gen_seq_show`: `evictable_min_seq(min_seq, MAX_SWAPPINESS / 2)`),
/// 6.12's at anon's. Eviction at `max` with no anon folio moves only
/// anon's `min_seq` on (`try_to_inc_min_seq` over the evictable types:
/// anon's empty generations 0 and 1 dropped while `min_seq + MIN_NR_GENS
/// <= max_seq` = 3, so to 2), file's stays 0: 7.2 lists generations 0 to
/// 3, the file's 1,024 folios among them (as the real 7.2.13 did).
#[test]
fn linux_7_2_lru_gen_listing_starts_at_the_older_type() {
    let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
    t.run("memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nlru_gen - app 0 1 max\n");
    t.drain();
    t.check();
    let app = t.memcg_id("app");
    assert_eq!(t.k().memcgs[app as usize].lruvec.lrugen.min_seq, [2, 0]);
    let text = t.k().lru_gen_debugfs(&|m| if m == app { "/app".into() } else { "/".into() });
    let listing = &text[text.find("/app").expect("no /app")..];
    let rows: Vec<Vec<u64>> = listing.lines().skip(2).map(|l| l.split_whitespace().map(|f| f.parse().unwrap()).collect()).collect();
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), [0, 1, 2, 3]);
    assert_eq!(rows.iter().map(|r| r[3]).sum::<u64>(), 1024, "{listing}");
}

/// 7.2's `run_aging` ages `max_seq` whatever generation it is given up to
/// it and has no -ERANGE: with four generations (0..=3) and no
/// force_scan (given as 0: an omitted field is -1, which forces),
/// `lru_gen + app 0 3 60 0` moves the oldest generation on first
/// (`inc_max_seq` → `inc_min_seq`), giving 1..=4; `lru_gen + app 0 2`
/// (below max_seq) ages too. 6.12 refuses the first (-ERANGE) and does
/// nothing for the second.
#[test]
fn linux_7_2_lru_gen_aging_has_no_range_refusal() {
    let head = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\n";
    for gen in [3, 2] {
        let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
        t.run(&format!("{head}lru_gen + app 0 {gen} 60 0\n"));
        t.drain();
        t.check();
        let app = t.memcg_id("app") as usize;
        let lg = &t.k().memcgs[app].lruvec.lrugen;
        assert_eq!((lg.min_seq, lg.max_seq), ([1, 1], 4), "gen {gen}");
    }
    let err = first_error(KernelVersion::V6_12, &format!("{head}lru_gen + app 0 3 60 0\n")).expect("6.12 aged at four generations");
    assert!(err.contains("ERANGE"), "{err}");
    let mut t = on(KernelVersion::V6_12, Some(Policy::Mglru));
    t.run(&format!("{head}lru_gen + app 0 2 60 0\n"));
    let app = t.memcg_id("app") as usize;
    let lg = &t.k().memcgs[app].lruvec.lrugen;
    assert_eq!((lg.min_seq, lg.max_seq), ([0, 0], 3));
}

/// 7.2's `run_eviction` gives each `evict_folios` what is left of
/// NR_TO_RECLAIM, at most MAX_LRU_BATCH ("relocate the LRU scan batch
/// limit to callers"): asked for 32 pages of a 1,024-folio file, it scans
/// and reclaims 32 clean folios and stops. 6.12's `scan_folios` takes up
/// to MAX_LRU_BATCH (4,096) from the oldest generation at once, so it
/// reclaims more than asked; `--variant reclaim-loop` on 6.12 is 7.2's
/// code.
#[test]
fn linux_7_2_lru_gen_eviction_batch_is_what_is_left() {
    let trace = "memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nlru_gen - app 0 1 0 32\n";
    let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
    t.run(trace);
    t.check();
    assert_eq!((t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile)), (32, 32));
    let mut t = on(KernelVersion::V6_12, Some(Policy::Mglru));
    t.run(trace);
    assert!(t.ev(Ev::PgstealFile) > 32, "6.12 reclaimed {}", t.ev(Ev::PgstealFile));
    let variant = Variant::parse("reclaim-loop").unwrap();
    let mut t = T::with_options(RunOptions { kernel: KernelVersion::V6_12, variant, policy: Some(Policy::Mglru), ..Default::default() });
    t.run(trace);
    assert_eq!((t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile)), (32, 32), "6.12 with reclaim-loop");
}

/// 7.2's page-table walk at `max` skips file mappings (`should_skip_vma`:
/// `walk->swappiness > MAX_SWAPPINESS`); anon mappings are skipped only at
/// swappiness 0, as in 6.12.
#[test]
fn linux_7_2_walk_skips_file_mappings_for_anon_only_aging() {
    let mut t = on(KernelVersion::V7_2, Some(Policy::Mglru));
    t.run("memory 256M\nswap 64M sync=y ram=y\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nanon t a size=1M\nmmap t m file=f\nstore t a 0 4\nload t m 0 4\n");
    let k = t.k();
    let skips = |region: u32| [0, 60, 200, 201].map(|s| k.should_skip_vma(region, s));
    assert_eq!(skips(0), [true, false, false, false], "anon");
    assert_eq!(skips(1), [false, false, false, true], "file");
}
