// SPDX-License-Identifier: GPL-2.0-only
//! Multi-gen LRU mechanisms, one group of tests each: look-around, the
//! page-table walk capabilities, the memcg LRU under global reclaim, the
//! clean-folio retry of `evict_folios`, type selection, restore in a fault,
//! switching `lru_gen.enabled` at run time and mappings without recency.
//! Every expectation is worked out by hand from Linux 6.12's rules
//! (mm/vmscan.c, mm/workingset.c, mm/swap.c, mm/rmap.c,
//! include/linux/mm_inline.h); the reasoning is written above each
//! assertion.

mod common;
use common::T;
use mglru_core::folio::pg;
use mglru_core::lru_gen::LruGen;
use mglru_core::mm::pte;
use mglru_core::stat::Ev;
use mglru_core::{Policy, RunOptions};

const ANON: usize = 0;
const FILE: usize = 1;

fn mglru() -> T {
    T::new(Policy::Mglru)
}

/// A model whose `lru_gen.enabled` comes from the trace's own setup
/// section (no policy override on top of it).
fn from_trace() -> T {
    T::with_options(RunOptions::default())
}

fn lg(t: &mut T, memcg: &str) -> LruGen {
    let m = t.memcg_id(memcg) as usize;
    t.k().memcgs[m].lruvec.lrugen.clone()
}

/// The PTE of page `page` of region `region` (regions are numbered in
/// the order the trace defines them, over all tasks).
fn pte_of(t: &mut T, region: u32, page: u64) -> u32 {
    let k = t.k();
    let v = &k.vmas[region as usize];
    let pgd = k.tasks[v.task as usize].pgd;
    k.pt.get(pgd, v.va(page))
}

/// The folio mapped at page `page` of `region`.
fn pfn_at(t: &mut T, region: u32, page: u64) -> u32 {
    let e = pte_of(t, region, page);
    assert!(e & pte::PRESENT != 0 && e & pte::VALUE != pte::ZERO_PFN, "region {region} page {page} not mapped: {e:#x}");
    e & pte::VALUE
}

fn young(t: &mut T, region: u32, page: u64) -> bool {
    pte_of(t, region, page) & pte::YOUNG != 0
}

/// The sequence number of the generation a folio is in (its gen field,
/// which lazy promotion may have moved ahead of the list it sits on).
fn seq_of(t: &mut T, pfn: u32) -> u64 {
    let k = t.k();
    let f = *k.folios.get(pfn);
    assert!(f.gen_field() != 0, "pfn {pfn} is not on a generation list: {f:?}");
    let g = &k.memcgs[f.memcg as usize].lruvec.lrugen;
    let gen = (f.gen_field() - 1) as u64;
    (g.min_seq[f.lru_type()]..=g.max_seq).find(|s| s % 4 == gen).expect("gen outside the window")
}

/// Pages of generation `seq` of one type in a memcg.
fn nr_in(t: &mut T, memcg: &str, seq: u64, type_: usize) -> i64 {
    lg(t, memcg).nr_pages[(seq % 4) as usize][type_]
}

fn memcg_ev(t: &mut T, memcg: &str, e: Ev) -> u64 {
    let m = t.memcg_id(memcg) as usize;
    t.k().memcgs[m].ev.get(e)
}

// ---- 1. look-around ------------------------------------------------------------

/// `lru_gen_look_around` with a walk in progress (the debugfs writer
/// allocates one: `set_mm_walk(NULL, true)` in `lru_gen_seq_write`).
///
/// X = page 0 sits alone in the oldest generation with a young PTE; its
/// neighbours N = pages 1..=7 sit in the next generation, young too; F =
/// pages 100..=106 are young as well but outside the look-around window.
/// Evicting the oldest generation runs rmap on X: `folio_referenced_one`
/// calls `lru_gen_look_around`, which clears X's young bit, then scans
/// the window: the VMA (1 MiB, PMD-aligned) is wider than
/// `MIN_LRU_BATCH` pages and X is within half a window of its start, so
/// the window is [start, start + 64 pages). N's PTEs are young: cleared,
/// and as `walk` is set, `folio_update_gen` moves N to `max_seq` lazily
/// (no `folio_activate`, so no `pgactivate`). F is outside: untouched.
#[test]
fn look_around_promotes_young_neighbours_with_a_walk() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=1M");
    // X faulted at max_seq 3; the first aging's walk (forced: the
    // debugfs default) clears its young bit and opens seq 4.
    t.run("store t heap 0").drain();
    t.run("lru_gen + app 0 3");
    // N and F faulted now: PG_active at fault -> max_seq 4. The second
    // aging clears their young bits (they stay in seq 4) and opens seq 5;
    // inc_max_seq retires seq 1 (empty), so min_seq = 2.
    t.run("store t heap 1 7\nstore t heap 100 7").drain();
    t.run("lru_gen + app 0 4");
    let x = pfn_at(&mut t, 0, 0);
    let n: Vec<u32> = (1..8).map(|p| pfn_at(&mut t, 0, p)).collect();
    let f: Vec<u32> = (100..107).map(|p| pfn_at(&mut t, 0, p)).collect();
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq, g.max_seq), ([2, 2], 5));
    assert_eq!(seq_of(&mut t, x), 3);
    assert!(n.iter().chain(f.iter()).all(|&p| t.k().folios.get(p).gen_field() as u64 - 1 == 4 % 4));
    // Touch X, N and F: their PTEs become young.
    t.run("load t heap 0 8\nload t heap 100 7");
    let pgactivate = t.ev(Ev::Pgactivate);
    // Evict up to seq 3. First evict_folios: seq 2 is empty, so
    // try_to_inc_min_seq moves min_seq to 3. Second: only X is in seq 3;
    // it is isolated, rmap finds it young (referenced_ptes = 1, no
    // PG_referenced) -> FOLIOREF_KEEP, PG_referenced set; evict_folios
    // then puts the referenced folio back with PG_active: max_seq.
    t.run("lru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 0, "nothing evicted: X was young");
    assert_eq!(t.ev(Ev::PgstealAnon), 0);
    let max = lg(&mut t, "app").max_seq;
    assert_eq!(max, 5);
    assert_eq!(seq_of(&mut t, x), 5, "X kept and activated: max_seq");
    // N promoted by look-around (folio_update_gen to max_seq), young bits
    // cleared; no pgactivate because the walk path promotes lazily.
    for (i, &p) in n.iter().enumerate() {
        assert_eq!(seq_of(&mut t, p), 5, "neighbour page {} promoted", i + 1);
        assert!(!young(&mut t, 0, i as u64 + 1), "neighbour page {} young bit cleared", i + 1);
    }
    assert_eq!(t.ev(Ev::Pgactivate), pgactivate, "lazy promotion counts no pgactivate");
    // F: outside the 64-page window, still young and still in seq 4.
    for (i, &p) in f.iter().enumerate() {
        assert_eq!(seq_of(&mut t, p), 4, "page {} outside the window", 100 + i);
        assert!(young(&mut t, 0, 100 + i as u64));
    }
    // Sizes follow: seq 5 holds X and N, seq 4 only F.
    assert_eq!(nr_in(&mut t, "app", 5, ANON), 8);
    assert_eq!(nr_in(&mut t, "app", 4, ANON), 7);
    t.check();
}

/// `lru_gen_look_around` without a walk: memcg reclaim that is not
/// proactive (`set_mm_walk(NULL, sc->proactive)` leaves it NULL) and has
/// not aged. The neighbours are then activated through the activate
/// batch: `folio_clear_lru_refs` + `folio_activate`, and `lru_activate`
/// counts `pgactivate` when the batch drains.
///
/// Layout: X = page 0 and C = pages 8..=47 (40 pages) in seq 3 with old
/// PTEs; N = pages 1..=7 in seq 4; max_seq = 5, min_seq = 2. X and N are
/// then touched. A page charged by another memcg takes over the per-CPU
/// charge stock (`refill_stock` drains app's), so app's usage is its 48
/// pages and the heap's 3 page tables (PTE, PMD, PUD), 51. Writing
/// memory.high = 11 pages then makes `memory_high_write` call
/// try_to_free_mem_cgroup_pages(app, 40): nr_to_reclaim =
/// max(40, SWAP_CLUSTER_MAX) = 40.
#[test]
fn look_around_activates_neighbours_without_a_walk() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\nmemcg other\ntask t memcg=app\ntask o memcg=other\nanon t heap size=1M\nanon o x size=4K");
    t.run("store t heap 0\nstore t heap 8 40").drain();
    t.run("lru_gen + app 0 3");
    t.run("store t heap 1 7").drain();
    t.run("lru_gen + app 0 4");
    t.run("load t heap 0 8\nstore o x 0");
    let app = t.memcg_id("app") as usize;
    assert_eq!(t.k().memcgs[app].usage, 51);
    let x = pfn_at(&mut t, 0, 0);
    let n: Vec<u32> = (1..8).map(|p| pfn_at(&mut t, 0, p)).collect();
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq, g.max_seq), ([2, 2], 5));
    assert_eq!((nr_in(&mut t, "app", 3, ANON), nr_in(&mut t, "app", 4, ANON)), (41, 7));
    let pgactivate = t.ev(Ev::Pgactivate);
    // do_try_to_free_pages from priority 12 down. At each priority
    // get_nr_to_scan: four generations (min_seq + 2 < max_seq) so
    // should_run_aging is false and nr_to_scan = 48 >> priority; nothing
    // happens until priority 5 (48 >> 5 = 1): evict_folios finds seq 2
    // empty and only moves min_seq to 3 (scanned 1 >= 1, stop). Priority
    // 4: three generations, but still no aging (the youngest, seq 5, is
    // empty; the oldest holds 41 of 48 pages, more than a quarter), so
    // nr_to_scan = 48 >> 4 = 3: X and C (41 folios) are isolated; look-around on
    // X clears X and N, finds N in seq 4 != max_seq 5 and activates them
    // through the batch (7 folios, below PAGEVEC_SIZE: not drained); X is
    // kept (FOLIOREF_KEEP) and goes back with PG_active; C's PTEs are old:
    // 40 folios swapped out, which meets nr_to_reclaim. Usage is then 11 =
    // memory.high: the write returns.
    t.run("memcg app high=44K");
    assert_eq!(t.ev(Ev::Pswpout), 40);
    assert_eq!(t.ev(Ev::PgstealAnon), 40);
    // No walk: nothing was promoted lazily; N still counts in seq 4 and
    // their young bits are gone.
    for (i, &p) in n.iter().enumerate() {
        assert_eq!(seq_of(&mut t, p), 4, "page {} waits in the activate batch", i + 1);
        assert!(t.k().folios.get(p).test(pg::IN_BATCH));
        assert!(!young(&mut t, 0, i as u64 + 1));
    }
    assert_eq!(seq_of(&mut t, x), 5, "X kept, back with PG_active: max_seq");
    assert_eq!(t.ev(Ev::Pgactivate), pgactivate, "KEEP is not activate_locked: no pgactivate yet");
    // Draining the batch runs lru_activate on each: max_seq, pgactivate.
    t.drain();
    for &p in &n {
        assert_eq!(seq_of(&mut t, p), 5);
    }
    assert_eq!(t.ev(Ev::Pgactivate), pgactivate + 7);
    assert_eq!(memcg_ev(&mut t, "app", Ev::Pgactivate), 7);
    t.check();
}

// ---- 2. page-table walk capabilities -----------------------------------------

/// `lru_gen.enabled` 0x0001 against 0x0003: without `LRU_GEN_MM_WALK`
/// (`should_walk_mmu()` false) `try_to_inc_max_seq` takes
/// `iterate_mm_list_nowalk`: max_seq advances but no PTE is looked at, so
/// accessed anon pages are not promoted and their young bits stay set.
///
/// Eight anon pages fault in at max_seq 3. Aging (the debugfs `+`, forced
/// scan) to seq 4, a touch of pages 0..=3, aging to seq 5, then eviction
/// of seq 3 (seq 2 is empty, so min_seq first moves to 3).
fn walk_caps_anon(mask: &str) -> (T, Vec<u32>) {
    let mut t = from_trace();
    t.run(&format!(
        "memory 256M\nswap 64M sync=y\nsysctl lru_gen.enabled={mask}\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 8"
    ))
    .drain();
    t.run("lru_gen + app 0 3\nload t heap 0 4\nlru_gen + app 0 4");
    let pfns = (0..8).map(|p| pfn_at(&mut t, 0, p)).collect();
    (t, pfns)
}

#[test]
fn walk_cap_0x3_promotes_accessed_anon_0x1_does_not() {
    // 0x0003: the first walk clears every young bit (all were set at
    // fault; folio_update_gen to seq 3 changes nothing). The second walk
    // finds pages 0..=3 young again and moves them to seq 4; pages 4..=7
    // stay in seq 3.
    let (mut t, pfns) = walk_caps_anon("0x0003");
    assert_eq!(lg(&mut t, "app").max_seq, 5);
    for (p, &pfn) in pfns.iter().enumerate() {
        assert_eq!(seq_of(&mut t, pfn), if p < 4 { 4 } else { 3 }, "0x3: page {p}");
        assert!(!young(&mut t, 0, p as u64), "0x3: the walk cleared page {p}");
    }
    assert_eq!((nr_in(&mut t, "app", 3, ANON), nr_in(&mut t, "app", 4, ANON)), (4, 4));
    // Evicting seq 3 takes pages 4..=7: old PTEs, so rmap finds nothing
    // and they are swapped out; the promoted pages are not in seq 3.
    t.run("lru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 4);
    for p in 0..4 {
        assert!(pte_of(&mut t, 0, p) & pte::PRESENT != 0, "0x3: promoted page {p} stays");
    }
    for p in 4..8 {
        assert!(pte_of(&mut t, 0, p) & pte::SWAP != 0, "0x3: page {p} swapped");
    }
    t.check();

    // 0x0001: both agings skip the walk: all eight pages stay in seq 3
    // (no promotion) and keep the young bits from the fault and touch.
    let (mut t, pfns) = walk_caps_anon("0x0001");
    assert_eq!(lg(&mut t, "app").max_seq, 5, "max_seq advances without a walk");
    for (p, &pfn) in pfns.iter().enumerate() {
        assert_eq!(seq_of(&mut t, pfn), 3, "0x1: page {p} not promoted");
        assert!(young(&mut t, 0, p as u64), "0x1: page {p} still young");
    }
    assert_eq!((nr_in(&mut t, "app", 3, ANON), nr_in(&mut t, "app", 4, ANON)), (8, 0));
    // Evicting seq 3 isolates all eight (oldest first: page 0). rmap on
    // page 0: look-around (the debugfs writer has a walk) clears its
    // young bit and those of pages 1..=7, which are isolated too, so
    // folio_update_gen only sets PG_referenced on them; page 0 gets
    // FOLIOREF_KEEP, pages 1..=7 are kept by shrink_folio_list's MGLRU
    // rule (mapped and PG_referenced). Nothing is swapped; all eight go
    // back with PG_active to max_seq.
    t.run("lru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    for &pfn in &pfns {
        assert_eq!(seq_of(&mut t, pfn), 5);
    }
    t.check();
}

/// `lru_gen.enabled` 0x0003 against 0x0007: with `LRU_GEN_NONLEAF_YOUNG`
/// a walk that is not forced clears the accessed bit of each PMD entry
/// and skips the PTE table when it was not set (`walk_pmd_range`); with
/// 0x0003 only the Bloom filter decides. The difference shows in the
/// `MM_NONLEAF_FOUND` count (PTE tables walked) and in the PMD bits.
///
/// Two 2 MiB file mappings a and b, one PMD each. W1 (forced, first round
/// of the mm list) walks both and, all 512 PTEs being young, puts both
/// PMDs into the Bloom filter for seq 4. After touching everything, W2
/// (not forced: `lru_gen + app 0 4 0 0`) walks both again (both PMDs
/// young, both in the filter): NONLEAF_FOUND += 2, and both go into the
/// filter for seq 5; with 0x7 W2 clears both PMD bits. Then only b is
/// touched and W3 (not forced) runs:
/// - 0x7: PMD a not young -> skipped; PMD b young -> walked: +1;
/// - 0x3: a is in the filter -> walked (nothing young); b walked: +2.
fn walk_caps_nonleaf(mask: &str) -> (T, u64, u64) {
    let mut t = from_trace();
    t.run(&format!(
        "memory 256M\nsysctl lru_gen.enabled={mask}\nmemcg app\nfile fa size=2M readahead=0\nfile fb size=2M readahead=0\ntask t memcg=app\nmmap t a file=fa\nmmap t b file=fb\nload t a 0 512\nload t b 0 512"
    ))
    .drain();
    let m = t.memcg_id("app") as usize;
    // W1, forced; then drop the empty seqs 1 and 2 (gens 1..=2 hold
    // nothing, so try_to_inc_min_seq moves min_seq to 3) so that a
    // non-forced aging is allowed (fewer than MAX_NR_GENS generations).
    t.run("lru_gen + app 0 3\nlru_gen - app 0 1");
    assert_eq!(lg(&mut t, "app").min_seq[FILE], 3);
    t.run("load t a 0 512\nload t b 0 512\nlru_gen + app 0 4 0 0\nload t b 0 512");
    let found_before = t.k().memcgs[m].lruvec.mm_state.stats[2];
    t.run("lru_gen + app 0 5 0 0");
    let found = t.k().memcgs[m].lruvec.mm_state.stats[2] - found_before;
    // Every folio of a was promoted by W2 to seq 4, every folio of b by
    // W3 to seq 5, whatever the mask: the PMD test only saves work here.
    assert_eq!(lg(&mut t, "app").max_seq, 6);
    assert_eq!(nr_in(&mut t, "app", 4, FILE), 512, "{mask}: a in seq 4");
    assert_eq!(nr_in(&mut t, "app", 5, FILE), 512, "{mask}: b in seq 5");
    // The PMD accessed bits, read (and cleared) at the end.
    let pmd_young = |t: &mut T, region: u32| {
        let k = t.k();
        let v = &k.vmas[region as usize];
        let (_, tbl, slot) = k.pt.lookup_leaf(k.tasks[v.task as usize].pgd, v.start).unwrap();
        k.pt.pmd_test_clear_young(tbl, slot)
    };
    let (ya, yb) = (pmd_young(&mut t, 0) as u64, pmd_young(&mut t, 1) as u64);
    t.check();
    (t, found, ya * 2 + yb)
}

#[test]
fn walk_cap_0x7_skips_pmds_not_accessed_0x3_does_not() {
    let (_, found7, pmds7) = walk_caps_nonleaf("0x0007");
    // 0x7: W3 walked only b's table; W2 and W3 cleared both PMD bits
    // (a's by W2, b's by W3 after the last touch).
    assert_eq!(found7, 1, "0x7: the PMD of a was not accessed since W2");
    assert_eq!(pmds7, 0, "0x7: both PMD accessed bits cleared");
    let (_, found3, pmds3) = walk_caps_nonleaf("0x0003");
    // 0x3: both tables walked; PMD accessed bits never cleared.
    assert_eq!(found3, 2, "0x3: the Bloom filter alone lets a through");
    assert_eq!(pmds3, 3, "0x3: both PMD accessed bits still set");
}

// ---- 3. memcg LRU under global reclaim -------------------------------------------

/// kswapd under the MGLRU reclaims through `shrink_many`: one pass walks
/// the bins of the oldest memcg generation and calls `shrink_one` on each
/// memcg; `memory.min` makes `shrink_one` return MEMCG_LRU_YOUNG before
/// any reclaim (`mem_cgroup_below_min`, with the protection that
/// `lru_gen_age_node` computed).
///
/// 128 MiB = 32768 pages: min_free_kbytes = int_sqrt(131072 * 16) = 1448,
/// so the watermarks are min 362, low 452, high 542 pages. Memcgs a, b, c
/// each read a 24 MiB file (6144 clean pages at seq 1 = min_seq + 1); p
/// (memory.min = max) reads 4 MiB; a hog in memcg h (no swap: its anon is
/// not reclaimable) stores 64 MiB. Allocations wake kswapd when free
/// pages drop to the low watermark (452).
///
/// The first kswapd run: `set_initial_priority` gives
/// fls(19456) - 1 - fls(541) = 15 - 1 - 10 = 4, clamped to 6. No memcg
/// needs aging (min_seq + 2 < max_seq), so each visit scans
/// nr_to_scan = 6144 >> 6 = 96: one evict_folios that only moves min_seq
/// past the empty seq 0 (scanned 1), then batches of 64 until scanned >=
/// 96, i.e. at most 2 x 64 = 128 pages. kswapd stops only above high +
/// MIN_LRU_BATCH = 606 free pages (or at 542 reclaimed): at least 155 pages
/// from 452, more than one visit gives. Each memcg is visited once per
/// pass (it stays in place, MEMCG_LRU_NOP), so that first pass already
/// reclaims from at least two of a, b, c.
#[test]
fn memcg_lru_global_reclaim_spreads_and_honours_memory_min() {
    let mut t = mglru();
    t.run("memory 128M\nmemcg a\nmemcg b\nmemcg c\nmemcg p min=max\nmemcg h\nfile fa size=24M\nfile fb size=24M\nfile fc size=24M\nfile fp size=4M");
    t.run("task ta memcg=a\ntask tb memcg=b\ntask tc memcg=c\ntask tp memcg=p\ntask th memcg=h\nanon th big size=64M");
    t.run("read ta fa 0 6144\nread tb fb 0 6144\nread tc fc 0 6144\nread tp fp 0 1024");
    assert_eq!(t.ev(Ev::Pageoutrun), 0, "no pressure yet");
    t.run("store th big 0 16384");
    assert!(t.ev(Ev::Pageoutrun) >= 1, "kswapd ran");
    let reclaimed: Vec<u64> = ["a", "b", "c"].iter().map(|m| memcg_ev(&mut t, m, Ev::PgstealKswapd) + memcg_ev(&mut t, m, Ev::PgstealDirect)).collect();
    assert!(reclaimed.iter().filter(|&&r| r > 0).count() >= 2, "global reclaim took pages from several memcgs: {reclaimed:?}");
    // The global total is the memcgs' sum (nothing else is reclaimable).
    let total = t.ev(Ev::PgstealKswapd) + t.ev(Ev::PgstealDirect);
    assert_eq!(reclaimed.iter().sum::<u64>(), total);
    // memory.min = max: p is never reclaimed; its 1024 pages stay cached.
    assert_eq!(memcg_ev(&mut t, "p", Ev::PgstealKswapd) + memcg_ev(&mut t, "p", Ev::PgstealDirect), 0);
    let fp = t.file_id("fp") as usize;
    assert_eq!(t.k().files[fp].nrpages, 1024);
    // The hog's anon pages cannot go anywhere (no swap) and it was not
    // killed: file pages were enough.
    assert_eq!(t.ev(Ev::OomKill), 0);
    assert_eq!(t.k().tasks[4].rss_anon, 16384);
    t.check();
}

/// `memory.low` under the MGLRU's global reclaim is a deferral, not a
/// wall: `shrink_one` returns MEMCG_LRU_TAIL for a memcg below its low
/// protection the first time (no reclaim, seg = TAIL), and on a later
/// visit with seg == TAIL counts MEMCG_LOW in memory.events and reclaims
/// it. With l the only reclaimable memcg, kswapd must reclaim l, and each
/// time it does so through that branch.
#[test]
fn memcg_lru_global_reclaim_defers_memory_low_then_counts_low_events() {
    let mut t = mglru();
    t.run("memory 64M\nmemcg l low=max\nfile fl size=32M\ntask tl memcg=l\ntask hog\nanon hog big size=40M");
    t.run("read tl fl 0 8192");
    let l = t.memcg_id("l") as usize;
    assert_eq!(t.k().memcgs[l].mem_events[0], 0);
    t.run("store hog big 0 10240");
    let stolen = memcg_ev(&mut t, "l", Ev::PgstealKswapd) + memcg_ev(&mut t, "l", Ev::PgstealDirect);
    assert!(stolen > 0, "l is reclaimed despite memory.low");
    let low_events = t.k().memcgs[l].mem_events[0];
    assert!(low_events > 0, "reclaiming a memcg below memory.low counts MEMCG_LOW");
    assert_eq!(t.ev(Ev::OomKill), 0);
    t.check();
}

// ---- 4. evict_folios: the one retry of clean folios ------------------------------

/// After `shrink_folio_list`, `evict_folios` sorts what is left: folios
/// with PG_reclaim that are still dirty or under writeback keep their
/// flags (they wait for `folio_rotate_reclaimable`); the others go back
/// with PG_active (so to max_seq) unless they are clean, unmapped and
/// unreferenced: those are retried once, and only on the retry
/// (`skip_retry`) are they put back with PG_active.
///
/// Case 1, a clean folio that cannot be freed: page 3 of a file is held
/// by an extra reference (the model's PG_pinned, the kernel's elevated
/// refcount that makes `__remove_mapping`'s `folio_ref_freeze` fail) while
/// its generation is evicted. Pass 1 keeps it (clean, unmapped, no
/// PG_referenced: it goes to the `clean` list), the retry keeps it again,
/// and then it gets PG_active: max_seq. The seven others are freed in
/// pass 1. Without the retry rule it would have been put back inactive,
/// at min_seq (only two generations are left).
#[test]
fn evict_retries_clean_folios_once_then_activates_them() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nread t f 0 8").drain();
    // read() -> seq 1 (min_seq + 1 while four generations exist). Aging
    // twice: seq 1 becomes the oldest and is retired by inc_min_seq, its
    // folios moved to seq 2 (folio_inc_gen clears their refs).
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4");
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq[FILE], g.max_seq), (2, 5));
    assert_eq!(nr_in(&mut t, "app", 2, FILE), 8);
    let held = t.folio_of("f", 3).unwrap();
    t.k().folios.get_mut(held).set(pg::PINNED);
    let pgactivate = t.ev(Ev::Pgactivate);
    // No swap: swappiness 0, file only. evict_folios isolates all eight;
    // try_to_inc_min_seq then moves min_seq to 4 (seqs 2 and 3 empty).
    t.run("lru_gen - app 0 2");
    assert_eq!(t.ev(Ev::PgstealFile), 7, "the other seven are freed in pass 1");
    assert_eq!(t.folio_of("f", 3), Some(held), "the held folio survives both passes");
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq[FILE], g.max_seq), (4, 5));
    assert_eq!(seq_of(&mut t, held), 5, "retried, then put back with PG_active: max_seq");
    // set_mask_bits(..., BIT(PG_active)) is not activate_locked: no
    // pgactivate; lru_gen_add_folio cleared PG_active again.
    assert_eq!(t.ev(Ev::Pgactivate), pgactivate);
    let f = *t.k().folios.get(held);
    assert!(!f.test(pg::ACTIVE) && !f.test(pg::REFERENCED) && !f.test(pg::WORKINGSET));
    t.k().folios.get_mut(held).clear(pg::PINNED);
    t.check();
}

/// Case 2, the dirty/writeback branch, which is not retried: an anon
/// folio swapped out to a block device (sync=n, writeback completes 10 us
/// later) is under writeback with PG_reclaim when `shrink_folio_list`
/// returns (`pageout` -> PAGE_SUCCESS -> writeback -> keep). evict_folios
/// leaves its flags alone, and `lru_gen_add_folio` puts a PG_reclaim
/// folio under writeback in max_seq - 1. When writeback ends,
/// `folio_end_writeback` clears PG_reclaim and `folio_rotate_reclaimable`
/// queues it for `lru_move_tail`: it goes to the tail of min_seq
/// (`lru_gen_add_folio` with reclaiming = true), counted in pgrotated.
/// The next eviction frees it: it is clean and in the swap cache.
#[test]
fn evict_keeps_writeback_folios_for_rotation_not_retry() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0").drain();
    let pfn = pfn_at(&mut t, 0, 0);
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4\nlru_gen - app 0 3");
    // Isolating the folio emptied seq 3: min_seq moved to 4 before
    // shrink_folio_list ran; max_seq is 5.
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq, g.max_seq), ([4, 4], 5));
    assert_eq!(t.ev(Ev::Pswpout), 1, "written to swap");
    assert_eq!(t.ev(Ev::PgstealAnon), 0, "not freed: under writeback");
    let f = *t.k().folios.get(pfn);
    assert!(f.test(pg::WRITEBACK) && f.test(pg::RECLAIM) && f.test(pg::SWAPCACHE));
    assert!(!f.test(pg::ACTIVE));
    assert_eq!(seq_of(&mut t, pfn), 4, "PG_reclaim + writeback: max_seq - 1");
    // Writeback completes; the rotation batch is drained.
    t.run("sleep 1ms").drain();
    let f = *t.k().folios.get(pfn);
    assert!(!f.test(pg::WRITEBACK) && !f.test(pg::RECLAIM));
    assert_eq!(t.ev(Ev::Pgrotated), 1);
    assert_eq!(seq_of(&mut t, pfn), 4, "rotated to min_seq (= 4)");
    let m = t.memcg_id("app") as usize;
    let zone = t.k().folios.zone_of(pfn);
    assert_eq!(t.k().memcgs[m].lruvec.lrugen.folios[0][ANON][zone].tail, pfn, "at the tail of seq 4 (gen 0)");
    // One more aging (max_seq 6) makes seq 4 evictable: freed.
    t.run("lru_gen + app 0 5\nlru_gen - app 0 4");
    assert_eq!(t.ev(Ev::PgstealAnon), 1);
    assert_eq!(t.ev(Ev::Pswpout), 1, "no second write: it was clean");
    assert!(pte_of(&mut t, 0, 0) & pte::SWAP != 0);
    t.check();
}

// ---- 5. type selection -----------------------------------------------------------

/// 32 anon pages (faulted: max_seq 3) and 32 file pages (read(): seq 1)
/// in memcg app, then three agings: the file pages are carried along by
/// inc_min_seq (seq 1 -> 2 -> 3), the anon pages stay in seq 3 (the walk
/// finds them young once, at seq 3, and never again). Both types then
/// share the oldest generation: min_seq = [3, 3], max_seq = 6.
fn two_types(extra_setup: &str) -> T {
    let mut t = mglru();
    t.run(&format!(
        "memory 256M\nswap 64M sync=y\n{extra_setup}memcg app\nfile f size=1M readahead=0\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 32\nread t f 0 32"
    ))
    .drain();
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4\nlru_gen + app 0 5");
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq, g.max_seq), ([3, 3], 6));
    assert_eq!((nr_in(&mut t, "app", 3, ANON), nr_in(&mut t, "app", 3, FILE)), (32, 32));
    t
}

/// `isolate_folios` with anon and file in the same oldest generation:
/// swappiness 200 (MAX_SWAPPINESS) picks anon outright; any other value
/// asks `get_type_to_scan`, whose PID comparison declares file
/// evictable as long as its first tier has fewer than MIN_LRU_BATCH
/// refaults (`positive_ctrl_err`) — so 199 takes file first. The eviction
/// stops after the first evict_folios (NR_TO_RECLAIM = 1): 32 of one type.
#[test]
fn swappiness_200_scans_anon_first_199_file_first() {
    let mut t = two_types("");
    t.run("lru_gen - app 0 3 200 1");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (32, 0), "200: anon only");
    assert_eq!(t.ev(Ev::Pswpout), 32);
    // Anon's oldest generation is now empty (min_seq[anon] cannot pass
    // min_seq[file], so it stays at 3): with 200 the anon scan finds
    // nothing and the second pass of the loop in isolate_folios turns to
    // file.
    assert_eq!(lg(&mut t, "app").min_seq, [3, 3]);
    t.run("lru_gen - app 0 3 200 1");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (32, 32), "200: file when anon is out");
    t.check();

    let mut t = two_types("");
    t.run("lru_gen - app 0 3 199 1");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (0, 32), "199: file first");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    t.check();
}

/// The same choice made with `vm.swappiness` = 200 through memory.reclaim
/// (cgroup v2: `mem_cgroup_swappiness` is vm_swappiness). memory.reclaim
/// of 128K: batch = 32 / 4 = 8, nr_to_reclaim = max(8, 32) = 32. Four
/// generations, so no aging: nr_to_scan = 64 >> priority is 0 down to
/// priority 6, where one evict_folios reclaims a whole type (32 pages)
/// and that meets the target.
#[test]
fn vm_swappiness_200_reclaims_anon_first_through_memory_reclaim() {
    let mut t = two_types("sysctl vm.swappiness=200\n");
    t.run("reclaim app 128K");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (32, 0));
    t.check();
    let mut t = two_types("sysctl vm.swappiness=199\n");
    t.run("reclaim app 128K");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (0, 32));
    t.check();
}

/// `get_swappiness` returns 0 when `mem_cgroup_get_nr_swap_pages` (free
/// swap, bounded by each ancestor's swap.max - swap usage) is below
/// MIN_LRU_BATCH = 64. Then `isolate_folios` scans file only (its loop
/// starts at i = !swappiness = 1: one type) and the eviction loop stops
/// once min_seq[file] passes the target. With memory.swap.max = 252K (63
/// pages) anon is never scanned; with 256K (64 pages) it is: file first
/// (get_type_to_scan, as above), then anon, whose 32 pages fit in the 64.
#[test]
fn swap_with_fewer_than_64_free_pages_is_not_used() {
    let mut t = two_types("");
    t.run("memcg app swap.max=252K\nlru_gen - app 0 3");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (0, 32), "63 free swap pages: file only");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    assert!((0..32).all(|p| pte_of(&mut t, 0, p) & pte::PRESENT != 0), "anon untouched");
    // Swappiness 0 also keeps aging away from anon (can_swap = false:
    // should_skip_vma skips the anon VMA and inc_min_seq only moves anon's
    // counter): a non-forced aging leaves anon's young bits alone.
    t.run("load t heap 0 32\nlru_gen + app 0 6 0 0");
    assert!((0..32).all(|p| young(&mut t, 0, p)), "anon VMA not walked");
    t.check();

    let mut t = two_types("");
    t.run("memcg app swap.max=256K\nlru_gen - app 0 3");
    assert_eq!((t.ev(Ev::PgstealAnon), t.ev(Ev::PgstealFile)), (32, 32), "64 free swap pages: both types");
    assert_eq!(t.ev(Ev::Pswpout), 32);
    t.check();
}

// ---- 6. restore inside a fault --------------------------------------------------

/// `lru_gen_refault`: a refault is counted (`workingset_refault_*`); if
/// the shadow's min_seq is the current one it is recent: counted in
/// `workingset_activate_*` and in `refaulted[]`; and if the task is in a
/// fault on a VMA with recency (`lru_gen_in_fault()`) or the folio had
/// refs >= 3, it is restored: refs saturated + PG_workingset,
/// `workingset_restore_*`. The fault then adds the folio with PG_active
/// (`folio_add_lru` in a fault): max_seq, and `lru_gen_add_folio` clears
/// refs and PG_referenced but keeps PG_workingset.
///
/// Anon: eight pages faulted at seq 3, aged twice (seq 5), evicted to a
/// synchronous swap device. Isolating them empties seq 3, so min_seq is
/// already 4 when `lru_gen_eviction` writes the token (min_seq 4, refs
/// 0). Touching page 0 swaps it in while min_seq[anon] is still 4.
#[test]
fn anon_refault_in_a_fault_is_restored() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 8").drain();
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4\nlru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 8);
    assert_eq!(lg(&mut t, "app").min_seq[ANON], 4);
    t.run("load t heap 0").drain();
    assert_eq!(t.ev(Ev::Pswpin), 1);
    assert_eq!(t.ev(Ev::WorkingsetRefaultAnon), 1);
    assert_eq!(t.ev(Ev::WorkingsetActivateAnon), 1, "same min_seq: recent");
    assert_eq!(t.ev(Ev::WorkingsetRestoreAnon), 1, "in a fault: restored although refs = 0");
    assert_eq!(lg(&mut t, "app").refaulted[ANON][0], 1, "refs 0 -> tier 0");
    let pfn = pfn_at(&mut t, 0, 0);
    let f = *t.k().folios.get(pfn);
    assert!(f.test(pg::WORKINGSET), "PG_workingset kept by lru_gen_add_folio");
    assert_eq!(f.refs_field(), 0, "refs cleared by the active add");
    assert_eq!(seq_of(&mut t, pfn), lg(&mut t, "app").max_seq, "faulted: max_seq");
    t.check();
}

/// File: the same for a page-cache refault. Eight pages of a mapped file
/// are faulted in, aged twice and evicted (no swap: swappiness 0, file
/// only; token min_seq[file] = 4). Then three refaults of recent shadows:
/// - page 0 by a fault on the mapping: restored;
/// - page 1 by read(): not in a fault, and the folio had refs = 0 (only
///   mapped, never read through the file descriptor): activated, not
///   restored;
/// - page 2 by a fault after MADV_RANDOM: `lru_gen_enter_fault` sets
///   in_lru_fault = vma_has_recency() = false: activated, not restored.
#[test]
fn file_refault_is_restored_only_in_a_fault_with_recency() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nmmap t m file=f\nload t m 0 8").drain();
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4\nlru_gen - app 0 3");
    assert_eq!(t.ev(Ev::PgstealFile), 8);
    assert_eq!(lg(&mut t, "app").min_seq[FILE], 4);
    t.run("load t m 0");
    assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 1);
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), 1);
    assert_eq!(t.ev(Ev::WorkingsetRestoreFile), 1, "fault on a VMA with recency");
    t.run("read t f 1");
    assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 2);
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), 2);
    assert_eq!(t.ev(Ev::WorkingsetRestoreFile), 1, "read(): not in a fault, refs < 3");
    t.run("advise t m random\nload t m 2");
    assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 3);
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), 3);
    assert_eq!(t.ev(Ev::WorkingsetRestoreFile), 1, "fault without recency: no restore");
    t.drain();
    let restored = t.folio_of("f", 0).unwrap();
    assert!(t.k().folios.get(restored).test(pg::WORKINGSET));
    for p in [1, 2] {
        let pfn = t.folio_of("f", p).unwrap();
        assert!(!t.k().folios.get(pfn).test(pg::WORKINGSET), "page {p} not restored");
    }
    t.check();
}

// ---- 7. switching lru_gen.enabled at run time -----------------------------------

/// Folios of memcg app spread over generations, max_seq = 5, min_seq =
/// [2, 2]: anon A1 (heap 0..=7) in seq 3, anon A2 (heap 8..=15) in seq 4,
/// file F1 + F2 (f 0..=15, read()) in seq 2, file G (mapped g 0..=3,
/// faulted) in seq 5.
fn spread_over_generations(mask: &str) -> T {
    let mut t = from_trace();
    t.run(&format!(
        "memory 256M\nswap 64M sync=y\nsysctl lru_gen.enabled={mask}\nmemcg app\nfile f size=1M readahead=0\nfile g size=1M readahead=0\ntask t memcg=app\nanon t heap size=1M\nmmap t m file=g"
    ));
    // A1 faulted at seq 3, F1 read into seq 1 (min_seq + 1).
    t.run("store t heap 0 8\nread t f 0 8").drain();
    // Aging 1 (max 4): the walk keeps A1 in seq 3; seq 0 (empty) retired.
    // A2 faulted at seq 4; F2 read into seq 2 (min_seq 1 + 1).
    t.run("lru_gen + app 0 3\nstore t heap 8 8\nread t f 8 8").drain();
    // Aging 2 (max 5): A2 stays in seq 4; inc_min_seq retires seq 1,
    // moving F1 to seq 2. G faulted at seq 5.
    t.run("lru_gen + app 0 4\nload t m 0 4").drain();
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq, g.max_seq), ([2, 2], 5));
    let sizes = |t: &mut T| [3, 4].map(|s| nr_in(t, "app", s, ANON)).into_iter().chain([2, 5].map(|s| nr_in(t, "app", s, FILE))).collect::<Vec<_>>();
    assert_eq!(sizes(&mut t), vec![8, 8, 16, 4]);
    t
}

fn classic_sizes(t: &mut T) -> [u64; 4] {
    ["nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file"].map(|n| t.vm(n))
}

/// `lru_gen_change_state(false)` (`sysctl lru_gen.enabled=n`):
/// `drain_evictable` takes every folio off the generations with
/// `lru_gen_del_folio(.., reclaiming = false)`, which sets PG_active for
/// the two youngest generations (`lru_gen_is_active`: max_seq and
/// max_seq - 1), and adds it to the classic lists (lrugen->enabled is
/// false now). `lru_gen_change_state(true)` (`=y`): `fill_evictable`
/// walks the classic lists (inactive anon, active anon, inactive file,
/// active file) and `lru_gen_add_folio` places each: PG_active ->
/// max_seq; inactive anon not in the swap cache -> max_seq - 1; inactive
/// file -> min_seq + 1 (four generations left). max_seq and min_seq are
/// kept across the switch.
#[test]
fn lru_gen_enabled_switch_moves_folios_between_generations_and_lists() {
    let mut t = spread_over_generations("0x0007");
    t.run("sysctl lru_gen.enabled=n");
    // A2 (seq 4) and G (seq 5) are in the two youngest generations.
    assert_eq!(classic_sizes(&mut t), [8, 8, 16, 4], "A1 inactive, A2 active, F inactive, G active");
    let g = lg(&mut t, "app");
    assert!(!g.enabled);
    assert_eq!(g.nr_pages, [[0; 2]; 4], "generations empty");
    assert_eq!((g.min_seq, g.max_seq), ([2, 2], 5));
    let m = t.memcg_id("app") as usize;
    assert_eq!(t.k().memcgs[m].lruvec.lists[1].len, 8, "on the classic active anon list itself");
    t.check();
    // Classic operation meanwhile: 4 new anon pages start on the inactive
    // list (no PG_active at fault without the MGLRU), 4 new file pages too.
    t.run("store t heap 16 4\nread t f 16 4").drain();
    assert_eq!(classic_sizes(&mut t), [12, 8, 20, 4]);
    t.run("sysctl lru_gen.enabled=y");
    let g = lg(&mut t, "app");
    assert!(g.enabled);
    assert_eq!(t.k().memcgs[m].lruvec.lists.iter().take(4).map(|l| l.len).sum::<u64>(), 0, "classic lists empty");
    assert_eq!((nr_in(&mut t, "app", 4, ANON), nr_in(&mut t, "app", 5, ANON)), (12, 8), "inactive anon -> max_seq - 1, active -> max_seq");
    assert_eq!((nr_in(&mut t, "app", 3, FILE), nr_in(&mut t, "app", 5, FILE)), (20, 4), "inactive file -> min_seq + 1, active -> max_seq");
    // The compatibility sizes: seqs 4 and 5 count as active.
    assert_eq!(classic_sizes(&mut t), [0, 20, 20, 4]);
    t.check();
    // And the MGLRU works on: evicting up to seq 3 frees the 20 file
    // pages (seq 2 empty -> min_seq 3; get_type_to_scan picks file; clean
    // and unmapped) and nothing else.
    t.run("lru_gen - app 0 3");
    assert_eq!((t.ev(Ev::PgstealFile), t.ev(Ev::PgstealAnon)), (20, 0));
    t.check();
}

/// The core switch is bit 0 of the mask: `enabled_store` calls
/// `lru_gen_change_state(caps & BIT(LRU_GEN_CORE))` whatever the other
/// bits say. 0x0007 -> 0x0006 turns the MGLRU off (drain_evictable) with
/// the walk capabilities on; 0x0006 -> 0x0007 turns it back on.
#[test]

fn lru_gen_enabled_core_bit_alone_switches_state() {
    let mut t = spread_over_generations("0x0007");
    t.run("sysctl lru_gen.enabled=0x0006");
    let g = lg(&mut t, "app");
    assert!(!g.enabled, "bit 0 clear: lrugen->enabled = false");
    assert_eq!(g.nr_pages, [[0; 2]; 4], "drained off the generations");
    assert_eq!(classic_sizes(&mut t), [8, 8, 16, 4]);
    t.check();
    t.run("sysctl lru_gen.enabled=0x0007");
    assert!(lg(&mut t, "app").enabled);
    assert_eq!((nr_in(&mut t, "app", 4, ANON), nr_in(&mut t, "app", 5, ANON)), (8, 8));
    t.check();
}

// ---- 8. MADV_SEQUENTIAL / MADV_RANDOM: no recency -------------------------------

/// `vma_has_recency()` is false for a VMA with VM_SEQ_READ or VM_RAND_READ.
/// Under the MGLRU such a mapping's accessed bits are ignored twice:
/// `should_skip_vma` keeps the page-table walk out of it (no promotion by
/// aging), and `invalid_folio_referenced_vma` keeps rmap out of it (no
/// look-around, `folio_referenced` = 0), so reclaim evicts the pages
/// however often they are touched.
///
/// Regions n (normal) and s, eight anon pages each, faulted while both
/// were normal (seq 3), then s gets the advice. Aging 1 clears n's young
/// bits (s skipped: its young bits from the fault stay). Both are touched,
/// aging 2 promotes n to seq 4 lazily and skips s. Evicting seq 3: n's
/// folios still sit on seq 3's list but are promoted: sort_folio moves
/// them (pgrefill 8). s's eight are isolated: rmap skips the VMA, so they
/// are swapped out, young bits and all.
fn no_recency(advice: &str, mask: &str) -> T {
    let mut t = from_trace();
    t.run(&format!(
        "memory 256M\nswap 64M sync=y\nsysctl lru_gen.enabled={mask}\nmemcg app\ntask t memcg=app\nanon t n size=1M\nanon t s size=1M\nstore t n 0 8\nstore t s 0 8"
    ))
    .drain();
    t.run(&format!("advise t s {advice}\nlru_gen + app 0 3\nload t n 0 8\nload t s 0 8\nlru_gen + app 0 4"));
    t
}

#[test]
fn madvise_sequential_and_random_pages_get_no_protection_from_accesses() {
    for advice in ["sequential", "random"] {
        let mut t = no_recency(advice, "0x0007");
        // Before eviction: n promoted to seq 4 by the walk, s not walked.
        for p in 0..8 {
            let (pn, ps) = (pfn_at(&mut t, 0, p), pfn_at(&mut t, 1, p));
            assert_eq!((seq_of(&mut t, pn), seq_of(&mut t, ps)), (4, 3), "{advice}: page {p}");
            assert!(!young(&mut t, 0, p), "{advice}: walk cleared n");
            assert!(young(&mut t, 1, p), "{advice}: walk skipped s");
        }
        let refill = t.ev(Ev::Pgrefill);
        t.run("lru_gen - app 0 3");
        assert_eq!(t.ev(Ev::Pswpout), 8, "{advice}: all of s swapped out although just touched");
        assert_eq!(t.ev(Ev::Pgrefill) - refill, 8, "{advice}: n's promoted folios sorted");
        for p in 0..8 {
            assert!(pte_of(&mut t, 1, p) & pte::SWAP != 0, "{advice}: s page {p}");
            assert!(pte_of(&mut t, 0, p) & pte::PRESENT != 0, "{advice}: n page {p}");
        }
        t.check();
    }
    // Control: without advice, s is walked like n, promoted, and kept.
    let mut t = no_recency("normal", "0x0007");
    t.run("lru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 0, "normal: touched pages are protected");
    t.check();
}

/// The rmap half on its own: with 0x0001 there is no walk, so neither
/// region is promoted and both sit in seq 3 with young PTEs. Evicting seq
/// 3 isolates all sixteen (n's first: they faulted first). rmap on n's
/// first folio: look-around clears n's young bits (its neighbours are
/// isolated too: PG_referenced) -> n kept. s: the VMA is skipped by
/// `invalid_folio_referenced_vma`, referenced = 0 -> swapped out.
#[test]
fn madvise_random_pages_are_not_referenced_by_rmap() {
    let mut t = no_recency("random", "0x0001");
    for p in 0..8 {
        let (pn, ps) = (pfn_at(&mut t, 0, p), pfn_at(&mut t, 1, p));
        assert_eq!((seq_of(&mut t, pn), seq_of(&mut t, ps)), (3, 3));
    }
    t.run("lru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 8, "s swapped out");
    for p in 0..8 {
        assert!(pte_of(&mut t, 0, p) & pte::PRESENT != 0, "n page {p} kept");
        assert!(pte_of(&mut t, 1, p) & pte::SWAP != 0, "s page {p} gone");
    }
    let max = lg(&mut t, "app").max_seq;
    let n0 = pfn_at(&mut t, 0, 0);
    assert_eq!(seq_of(&mut t, n0), max, "kept with PG_active");
    t.check();
}

/// Pages faulted on a VMA without recency are not added as active: no
/// `in_lru_fault`, so `folio_add_lru` leaves PG_active clear and anon not
/// in the swap cache goes to max_seq - 1 (`lru_gen_add_folio`), where a
/// normal fault puts it in max_seq.
#[test]
fn faults_on_a_vma_without_recency_are_not_active() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t n size=1M\nanon t s size=1M\nadvise t s sequential\nstore t n 0\nstore t s 0").drain();
    let (pn, ps) = (pfn_at(&mut t, 0, 0), pfn_at(&mut t, 1, 0));
    assert_eq!((seq_of(&mut t, pn), seq_of(&mut t, ps)), (3, 2));
    t.check();
}

// ---- a side finding: memory.high and the charge stock ------------------------------

/// `memory_high_write` (mm/memcontrol.c): the first time usage is above
/// the new high it drains the per-CPU charge stock and `continue`s, so
/// the amount it asks try_to_free_mem_cgroup_pages for is read after the
/// drain. Same layout as `look_around_activates_neighbours_without_a_walk`
/// but app's 13 stocked pages are left in place: usage 64 = 48 folios + 3
/// page tables + 13 stocked. After the drain usage is 51, the request is
/// 51 - 11 = 40, and the reclaim goes exactly as in that test: 40 pages
/// swapped out.
#[test]

fn memory_high_write_reads_usage_after_draining_the_stock() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=1M");
    t.run("store t heap 0\nstore t heap 8 40").drain();
    t.run("lru_gen + app 0 3");
    t.run("store t heap 1 7").drain();
    t.run("lru_gen + app 0 4");
    t.run("load t heap 0 8");
    let app = t.memcg_id("app") as usize;
    assert_eq!((t.k().memcgs[app].usage, t.k().cpus[0].stock.nr_pages), (64, 13));
    t.run("memcg app high=44K");
    assert_eq!(t.ev(Ev::Pswpout), 40);
    assert_eq!(t.k().memcgs[app].usage, 11);
    t.check();
}
