// SPDX-License-Identifier: GPL-2.0-only
//! Mechanisms around the classic active/inactive LRU — memory.high,
//! memory.low/min, memory.swap.max, swap readahead, direct reclaim, PTE
//! references at reclaim, the cost model and the flusher, refaults of a
//! re-read file — with the expected numbers worked out by hand from
//! Linux 6.12's rules. The comment above each assertion says how.
//!
//! Rules used again and again below (6.12):
//! - `try_charge_memcg` charges `MEMCG_CHARGE_BATCH` = 64 pages at once
//!   and keeps the rest in the per-CPU stock; once a 64-page charge fails
//!   it retries with `batch = nr_pages` (1) for the rest of that call.
//! - Limit reclaim asks for `max(nr_pages, SWAP_CLUSTER_MAX)` = 32 pages;
//!   `do_try_to_free_pages` walks priority 12 → 0 and stops after the
//!   first priority at which the total reached the target.
//!   `get_scan_count` scans `list size >> priority` (sizes read before
//!   the drain); `shrink_lruvec` works in chunks of 32 and stops once its
//!   own reclaimed count reaches the target; `shrink_inactive_list` first
//!   drains the per-CPU add batch (31 folios, shared by all memcgs).
//! - A clean, unmapped page-cache folio read once (`PG_referenced`, no
//!   PTE) is `FOLIOREF_RECLAIM_CLEAN` and is freed when scanned.
//! - Without swap (or with no swap left for the memcg) `get_scan_count`
//!   is `SCAN_FILE`.
//! - Nothing here runs for 2 s of simulated time unless a test sleeps,
//!   so the memcg statistics reclaim reads (flushed every 2 s) are zero:
//!   `inactive_is_low` is false and nothing is deactivated, refaults are
//!   never "recent", and the shadow-node shrinker's limit is 0 nodes.
//!
//! Page-cache xarray nodes are kmem, charged (`XA_FLAGS_ACCOUNT`) to the
//! memcg of the task whose insertion allocates them: a reader in a memcg
//! pays about one page per seven 64-slot nodes, through the same page
//! stock. To keep the memcg counts below to folios alone, the tests that
//! count pages exactly first let a root task (`warm`; cgroup v2 charges
//! nothing to the root) read page 64k + 63 of every 64-page block of the
//! file (`keeper_reads`): every node of the tree then exists, charged to
//! the root and held by a resident root page, so the memcg's reads only
//! fill slots. The memcg readers' reads of those pages are cache hits.
//!
//! Where a recurrence runs over thousands of pages the comment gives the
//! recurrence (the rules above, applied page by page) and its result.

mod common;
use common::T;
use mglru_core::folio::pg;
use mglru_core::kernel::{ZoneSpec, ZONE_DMA32};
use mglru_core::memcontrol::MemcgEvent;
use mglru_core::mm::pte;
use mglru_core::stat::Ev;
use mglru_core::swapfile::{SLOT_CACHED, SLOT_VALUE};
use mglru_core::{CostModel, Policy, RunOptions};

fn usage(t: &mut T, m: &str) -> u64 {
    let id = t.memcg_id(m) as usize;
    t.k().memcgs[id].usage
}
fn mem_event(t: &mut T, m: &str, e: MemcgEvent) -> u64 {
    let id = t.memcg_id(m) as usize;
    t.k().memcgs[id].mem_events[e as usize]
}
/// An event counted for this memcg itself (leaf memcgs only here).
fn memcg_ev(t: &mut T, m: &str, e: Ev) -> u64 {
    let id = t.memcg_id(m) as usize;
    t.k().memcgs[id].ev.get(e)
}
fn elow(t: &mut T, m: &str) -> u64 {
    let id = t.memcg_id(m) as usize;
    t.k().memcgs[id].elow
}
fn resident(t: &mut T, file: &str, pages: std::ops::Range<u64>) -> u64 {
    let f = t.file_id(file) as usize;
    let k = t.k();
    pages.filter(|&p| k.files[f].folio_at(p).is_some()).count() as u64
}
fn classic_with_cost(cost: CostModel) -> T {
    T::with_options(RunOptions { policy: Some(Policy::Classic), cost: Some(cost), ..Default::default() })
}
/// The root task `warm` reads page 64k + 63 of each 64-page block of
/// `file` (`pages` a multiple of 64; readahead off, so one page each).
fn keeper_reads(file: &str, pages: u64) -> String {
    (0..pages / 64).map(|k| format!("read warm {file} {}\n", 64 * k + 63)).collect()
}

// ---- 1. memory.high ---------------------------------------------------------

const HIGH_SETUP: &str = "memory 256M\nmemcg app high=4M\nfile f size=16M readahead=0\ntask warm\ntask t memcg=app";

/// A reader in a memcg with memory.high = 4M (1024 pages), no max, reads a
/// 4096-page file one page per read (readahead off: one page-cache miss
/// and one allocation per read, except the 64 keeper pages, which hit).
#[test]
fn memory_high_reclaims_back_to_high() {
    let mut t = T::classic();
    t.run(HIGH_SETUP);
    t.run(&keeper_reads("f", 4096));
    // 64 root folios: two full add batches, 2 left in the batch.
    for p in 0..1040 {
        t.run(&format!("read t f {p}"));
    }
    // Pages 0..1039 hold 16 keepers: 1024 allocations = 16 charges of 64.
    // Usage is exactly high, not above it (the check is `usage > high`).
    assert_eq!(usage(&mut t, "app"), 1024);
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::High), 0);

    t.run("read t f 1040");
    // The 1025th folio finds the stock empty and charges 64: usage 1088 >
    // 1024, so try_charge_memcg adds the batch (64) to
    // memcg_nr_pages_over_high; 64 is not > MEMCG_CHARGE_BATCH, so the
    // reclaim waits for the return to user space, where
    // mem_cgroup_handle_over_high → reclaim_high counts one `high` event
    // and reclaims 64 pages (nr_to_reclaim = 64). 2 + 1025 folios went
    // through the add batch: 4 of the memcg's are still queued, 1021 on
    // the list. Priority 12..10: 1021 >> p = 0; 9: 1 (drain: 1025);
    // 8: 1024 >> 8 = 4 (5); 7: 1020 >> 7 = 7 (12); 6: 1013 >> 6 = 15 (27);
    // 5: 998 >> 5 = 31 (58); 4: 967 >> 4 = 60 in chunks 32 + 28 (local 32
    // < 64, so the second runs) → 118 reclaimed; usage 1088 - 118 = 970
    // (63 of it the stock) ≤ high: calculate_high_delay is 0, no sleep.
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::High), 1);
    assert_eq!(usage(&mut t, "app"), 970);
    assert_eq!(t.ev(Ev::PgstealFile), 118);

    let mut prev = usage(&mut t, "app");
    let mut reclaims = 1;
    for p in 1041..4096 {
        t.run(&format!("read t f {p}"));
        let u = usage(&mut t, "app");
        // Each crossing charges one batch (≤ 64 over high) and reclaims at
        // least nr_to_reclaim = 64 before returning to user space, and
        // every page here is reclaimable: usage is back at or below high
        // after every read, so there is never a penalty sleep.
        assert!(u <= 1024, "page {p}: usage {u} above high after returning to user space");
        if u < prev {
            reclaims += 1;
        }
        prev = u;
    }
    // Reads only add pages, so usage drops exactly when reclaim_high ran,
    // and each such run counts one `high` event.
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::High), reclaims);
    // The recurrence (63 pages of stock after each crossing, the add
    // batch, the priority walk above) over the 4032 allocations gives 27
    // crossings reclaiming 118, 112, 114, 115, 115, 110, 112, 114, 115,
    // 117, ... = 3073 pages and leaves usage at 959.
    assert_eq!(reclaims, 27);
    assert_eq!(usage(&mut t, "app"), 959);
    // The stock is empty at the end: 959 of the reader's folios plus the
    // 64 keepers are cached.
    assert_eq!(resident(&mut t, "f", 0..4096), 959 + 64);
    assert_eq!(t.ev(Ev::PgstealFile), 3073);
    // Every scanned page was a clean read-once page: scanned = stolen.
    assert_eq!(t.ev(Ev::PgscanFile), 3073);
    // memory.peak: at most one batch above high, reached at the first crossing.
    let id = t.memcg_id("app") as usize;
    assert_eq!(t.k().memcgs[id].watermark, 1088);
    // memory.high never fails a charge: no max events, no OOM.
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::Max), 0);
    assert_eq!(t.ev(Ev::OomKill), 0);
    // No penalty sleep: the clock is exactly the 4096 misses (64 keepers
    // and 4032 of the reader; 500 ns copy + 100 µs disk each), the
    // reader's 64 hits (500 ns), 50 ns per page scanned and 44 ns per
    // lruvec visit: each crossing's reclaim_high visits `app` once per
    // priority it walks, at least one and at most the 13 of one call
    // (each call reclaims, so none retries).
    let visits = t.k().sim.reclaim_work.lruvecs;
    assert!((27..=27 * 13).contains(&visits), "{visits} visits");
    assert_eq!(t.k().now, 4096 * 100_500 + 64 * 500 + 50 * 3073 + 44 * visits);
    t.check();
}

/// More than one batch over high inside one operation: the second batch
/// takes memcg_nr_pages_over_high to 128 > 64, and try_charge_memcg calls
/// mem_cgroup_handle_over_high at once instead of at the return to user.
#[test]
fn memory_high_two_batches_over_reclaims_synchronously() {
    let mut t = T::classic();
    t.run(HIGH_SETUP);
    t.run(&keeper_reads("f", 4096));
    t.run("read t f 0 1040");
    assert_eq!(usage(&mut t, "app"), 1024);
    // Pages 1040..1169: 128 allocations (keepers 1087 and 1151 hit).
    t.run("read t f 1040 130");
    // Folio 1025 charges 64 (usage 1088, over_high 64: wait). 1026..1088
    // use the stock. Folio 1089 charges 64 more: usage 1152, over_high
    // 128 > 64 → reclaim_high(128) now: one `high` event, nr_to_reclaim
    // 128. 2 + 1088 folios were queued: 1085 on the list, 5 in the batch.
    // Priority 10: 1085 >> 10 = 1 (drain: 1089); 9: 1088 >> 9 = 2 (3);
    // 8: 4 (7); 7: 8 (15); 6: 16 (31); 5: 1058 >> 5 = 33 (64); 4:
    // 1025 >> 4 = 64 in two chunks of 32 (local 64 < 128) → 128. Usage
    // 1152 - 128 = 1024, no penalty. Folios 1090..1152 come from the stock
    // (63) and the counter was reset, so the return to user space does
    // nothing more.
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::High), 1);
    assert_eq!(t.ev(Ev::PgstealFile), 128);
    assert_eq!(usage(&mut t, "app"), 1024);
    t.check();
}

/// Writing memory.high below the usage reclaims down to it
/// (memory_high_write): drain the stock, then reclaim usage - high.
#[test]
fn memory_high_write_reclaims_to_new_high() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app\nfile f size=16M readahead=0\ntask warm\ntask t memcg=app");
    t.run(&keeper_reads("f", 4096));
    t.run("read t f 0 2031");
    // 31 keepers below 2031: 2000 allocations = 31 batches of 64 + 16:
    // 32 charges, usage 2048, stock 48.
    assert_eq!(usage(&mut t, "app"), 2048);
    t.run("memcg app high=4M");
    // drain_all_stock: usage 2000; reclaim 2000 - 1024 = 976 pages. 1982
    // on the list, 18 queued ((2 + 2000) mod 31). Priority 10: 1 (drain);
    // 9: 3 (4); 8: 7 (11); 7: 15 (26); 6: 30 (56); 5: 60 (116); 4: 117
    // (233); 3: 1767 >> 3 = 220 (453); 2: 1547 >> 2 = 386 (839); 1:
    // 1161 >> 1 = 580 (local never reaches 976) → 1419 ≥ 976. Usage
    // 2000 - 1419 = 581 ≤ high: done. Writing high is not a `high` event.
    assert_eq!(t.ev(Ev::PgstealFile), 1419);
    assert_eq!(usage(&mut t, "app"), 581);
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::High), 0);
    t.check();
}

/// memory_high_write drains the stock and re-reads the usage before it
/// reclaims (`continue` after drain_all_stock, mm/memcontrol.c:4118-4122):
/// when the stock alone was the excess, nothing is reclaimed.
#[test]
fn memory_high_write_drains_stock_first() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app\nfile f size=16M readahead=0\ntask warm\ntask t memcg=app");
    t.run(&keeper_reads("f", 4096));
    t.run("read t f 0 1015");
    // 15 keepers below 1015: 1000 allocations = 15 × 64 + 40: 16 charges,
    // usage 1024, stock 24.
    assert_eq!(usage(&mut t, "app"), 1024);
    t.run("memcg app high=4000K");
    // high = 4096000 B = 1000 pages. usage 1024 > 1000 → drain the stock
    // → usage 1000 → the loop reads it again: 1000 ≤ 1000, done. The
    // 1000 folios stay.
    assert_eq!(usage(&mut t, "app"), 1000);
    assert_eq!(t.ev(Ev::PgstealFile), 0);
    assert_eq!(resident(&mut t, "f", 0..1015), 1015);
    t.check();
}

// ---- 2. memory.low and memory.min ---------------------------------------------

/// `top` (max 8M = 2048 pages) with a protected child `a` (low or min
/// 4M = 1024 pages) and an unprotected child `b`.
fn protected_child_under_parent_limit(prot: &str) {
    let mut t = T::classic();
    t.run(&format!(
        "memory 256M\nmemcg top max=8M\nmemcg a parent=top {prot}=4M\nmemcg b parent=top\n\
         file fa size=4352K readahead=0\nfile fb size=16M readahead=0\ntask warm\ntask ta memcg=a\ntask tb memcg=b"
    ));
    t.run(&keeper_reads("fa", 1088));
    t.run(&keeper_reads("fb", 4096));
    t.run("read ta fa 0 1040");
    // 16 keepers below 1040: 1024 allocations, 16 charges: a uses exactly
    // 1024 pages, stock 0.
    assert_eq!(usage(&mut t, "a"), 1024);
    t.run("read tb fb 0 4096");
    // Every reclaim targets `top` (b's charges hit top's max). a's parent
    // is the target, so page_counter_calculate_protection gives it its
    // own setting: emin/elow = 1024 ≥ usage 1024 → mem_cgroup_below_min
    // (or _low) → a is skipped (for low: memcg_low_skipped, but b always
    // has reclaimable pages, so the low-reclaim retry never runs). a keeps
    // every page and no `low` event is counted.
    assert_eq!(usage(&mut t, "a"), 1024);
    assert_eq!(resident(&mut t, "fa", 0..1040), 1040);
    assert_eq!(memcg_ev(&mut t, "a", Ev::PgstealDirect), 0);
    assert_eq!(mem_event(&mut t, "a", MemcgEvent::Low), 0);
    // b is reclaimed like a memcg of 1024 pages on its own: each reclaim
    // is 32-target from b's list alone and frees at most 57 pages, so the
    // 64-page charge after it fails and b charges one page at a time at
    // the limit. That recurrence over b's 4032 allocations (starting with
    // 20 of a's folios in the add batch: 81 keepers + 1024) gives 53
    // reclaims, 3021 pages stolen, 1011 resident, stock 0.
    assert_eq!(memcg_ev(&mut t, "b", Ev::PgstealDirect), 3021);
    assert_eq!(usage(&mut t, "b"), 1011);
    assert_eq!(resident(&mut t, "fb", 0..4096), 1011 + 64);
    // Limit reclaim is cgroup reclaim: no global pgsteal_direct.
    assert_eq!(t.ev(Ev::PgstealDirect), 0);
    assert_eq!(t.ev(Ev::OomKill), 0);
    t.check();
}

#[test]
fn memory_low_protects_child_under_parent_limit() {
    protected_child_under_parent_limit("low");
}

#[test]
fn memory_min_protects_child_under_parent_limit() {
    protected_child_under_parent_limit("min");
}

/// b holds only anonymous memory and there is no swap, so nothing outside
/// a is reclaimable. memory.low then gives way (the memcg_low_reclaim
/// retry of do_try_to_free_pages), memory.min never does (OOM instead).
#[test]
fn memory_low_gives_way_memory_min_does_not() {
    for prot in ["low", "min"] {
        let mut t = T::classic();
        t.run(&format!(
            "memory 256M\nmemcg top max=8M\nmemcg a parent=top {prot}=4M\nmemcg b parent=top\n\
             file fa size=4352K readahead=0\ntask warm\ntask ta memcg=a\ntask tb memcg=b\nanon tb heap size=8M"
        ));
        t.run(&keeper_reads("fa", 1088));
        t.run("read ta fa 0 1040");
        assert_eq!(usage(&mut t, "a"), 1024);
        t.run("store tb heap 0 1536");
        if prot == "low" {
            // The first pass skips a (below low) and finds nothing in b
            // (SCAN_FILE, no file pages): 0 reclaimed with
            // memcg_low_skipped → retry with memcg_low_reclaim, where a is
            // reclaimed and memory.events `low` is counted.
            assert!(mem_event(&mut t, "a", MemcgEvent::Low) >= 1);
            assert_eq!(t.ev(Ev::OomKill), 0);
            // b filled its first pages with 64-page batches (stock 0) and
            // then charges one page at a time: each reclaim frees at most
            // 63 pages (less than 32 before its last priority plus at most
            // one chunk of 32), so the 64-page charge never fits again. b's
            // usage is its 1536 pages and the 5 page tables they need (3
            // PTE tables, a PMD and a PUD, charged to b).
            assert_eq!(usage(&mut t, "b"), 1541);
            // a ends at most at 2048 - 1541 = 507; the last reclaim ran
            // with b at ≤ 1540 pages and freed ≤ 63, so a ≥ 2048 - 1540 -
            // 63 = 445. Where in between depends on the last overshoot.
            let a = usage(&mut t, "a");
            assert!((445..=507).contains(&a), "a kept {a} pages");
            // Everything a lost was reclaimed (a's stock is empty).
            assert_eq!(memcg_ev(&mut t, "a", Ev::PgstealDirect), 1024 - a);
        } else {
            // emin = 1024 ≥ usage: a is skipped even by the low-reclaim
            // retry. Nothing is reclaimable, 16 retries fail, the memcg OOM
            // killer picks the largest task in top: tb (1024 anon pages;
            // ta maps nothing).
            assert_eq!(t.ev(Ev::OomKill), 1);
            assert!(!t.k().tasks[2].alive && t.k().tasks[1].alive);
            assert_eq!(mem_event(&mut t, "top", MemcgEvent::OomKill), 1);
            assert_eq!(usage(&mut t, "a"), 1024);
            assert_eq!(memcg_ev(&mut t, "a", Ev::PgstealDirect), 0);
            assert_eq!(mem_event(&mut t, "a", MemcgEvent::Low), 0);
        }
        t.check();
    }
}

/// Effective protection below an intermediate memcg
/// (page_counter_calculate_protection / effective_protection, without
/// memory_recursiveprot): `mid` (low = mid_low) has children a1, a2 with
/// low = 2M each, each using 256 pages; b streams beside mid under top.
/// Their claims are min(usage, low) = 256 each, 512 together. If mid
/// affords that (low 2M = 512) each keeps min(usage, low); if not (low
/// 1M = 256) each gets 256 × 256 / 512 = 128.
#[test]
fn effective_low_is_shared_among_siblings() {
    for (mid_low, expect_elow) in [("2M", 256u64), ("1M", 128)] {
        let mut t = T::classic();
        t.run(&format!(
            "memory 256M\nmemcg top max=8M\nmemcg mid parent=top low={mid_low}\n\
             memcg a1 parent=mid low=2M\nmemcg a2 parent=mid low=2M\nmemcg b parent=top\n\
             file f1 size=1280K readahead=0\nfile f2 size=1280K readahead=0\nfile fb size=40M readahead=0\n\
             task warm\ntask t1 memcg=a1\ntask t2 memcg=a2\ntask tb memcg=b"
        ));
        t.run(&keeper_reads("f1", 320));
        t.run(&keeper_reads("f2", 320));
        t.run(&keeper_reads("fb", 10240));
        // 256 allocations each for a1 and a2 (pages 0..259, four keepers),
        // 1536 for b (pages 0..1559, 24 keepers): top is full.
        t.run("read t1 f1 0 260\nread t2 f2 0 260\nread tb fb 0 1560");
        assert_eq!(usage(&mut t, "top"), 2048);
        // One more folio for b: exactly one reclaim of top (target 32).
        // Walk order top, mid, a1, a2, b at every priority. 170 keepers +
        // 2048 folios went through the add batch: 17 of b's are queued,
        // 1519 on b's list.
        t.run("read tb fb 1560");
        assert_eq!(elow(&mut t, "mid"), if mid_low == "2M" { 512 } else { 256 });
        assert_eq!(elow(&mut t, "a1"), expect_elow);
        assert_eq!(elow(&mut t, "a2"), expect_elow);
        // b: priority 10: 1519 >> 10 = 1 (drain: 1536); 9: 1535 >> 9 = 2;
        // 8: 1533 >> 8 = 5; 7: 1528 >> 7 = 11; 6: 1517 >> 6 = 23 → 42.
        assert_eq!(memcg_ev(&mut t, "b", Ev::PgstealDirect), 42);
        if mid_low == "2M" {
            // elow 256 ≥ usage 256: a1 and a2 are skipped.
            assert_eq!((usage(&mut t, "a1"), usage(&mut t, "a2")), (256, 256));
        } else {
            // elow 128 < 256: not below low, scanned with get_scan_count's
            // protection scaling: 256 - 256 × 128 / 257 = 129 (≥ 32),
            // >> priority: 1 page each at priority 7, then at 6 (usage 255:
            // elow 255 × 256 / 510 = 128, 255 - 127 = 128 >> 6) 2 each;
            // after b's 42 the walk ends at priority 6.
            assert_eq!((usage(&mut t, "a1"), usage(&mut t, "a2")), (253, 253));
        }
        // b streams 8000 more pages.
        t.run("read tb fb 1561 8000");
        if mid_low == "2M" {
            assert_eq!((usage(&mut t, "a1"), usage(&mut t, "a2")), (256, 256));
            assert_eq!(memcg_ev(&mut t, "a1", Ev::PgstealDirect), 0);
        } else {
            // a1 and a2 shrink in step, so each elow stays
            // ⌊u × 256 / (2u)⌋ = 128. b holds 1500..1670 pages: its scans
            // at priorities 10..7 add up to less than 32 (1 + 2 + 5 + 11
            // at 1519 pages, 1 + 3 + 6 + 13 at 1670) and with priority 6
            // to more, so every reclaim reaches priority 6 and ends there
            // (a1 and a2 come before b in the walk). At priority 6 a1 gives
            // (u - ⌊128u / (u + 1)⌋) >> 6 pages: 1 while u ≥ 191, 0 at
            // u = 190 (190 - 127 = 63). Both stop at 190, above their
            // effective low of 128: the proportional scan of a protected
            // memcg dries up before its protection is reached.
            assert_eq!((usage(&mut t, "a1"), usage(&mut t, "a2")), (190, 190));
            assert_eq!(memcg_ev(&mut t, "a1", Ev::PgstealDirect), 66);
            assert_eq!(elow(&mut t, "a1"), 128);
        }
        // Plenty to reclaim in b: the low-reclaim pass never ran.
        assert_eq!(mem_event(&mut t, "a1", MemcgEvent::Low), 0);
        t.check();
    }
}

// ---- 3. memory.swap.max ---------------------------------------------------------

/// swap.max = 0: mem_cgroup_get_nr_swap_pages is 0, so
/// can_reclaim_anon_pages is false and get_scan_count is SCAN_FILE: anon
/// is never even scanned; file is reclaimed.
#[test]
fn swap_max_zero_never_swaps() {
    let mut t = T::classic();
    t.run("memory 256M\nswap 64M\nmemcg app max=4M swap.max=0\nfile f size=16M readahead=0\ntask warm\ntask t memcg=app\nanon t heap size=2M");
    t.run(&keeper_reads("f", 4096));
    t.run("store t heap 0 512");
    t.run("read t f 0 4096");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    assert_eq!(t.ev(Ev::PgscanAnon), 0);
    assert_eq!(t.ev(Ev::PgstealAnon), 0);
    let id = t.memcg_id("app") as usize;
    assert_eq!(t.k().memcgs[id].swap_usage, 0);
    // All 512 anon pages are still mapped.
    assert_eq!(t.k().tasks[1].rss_anon, 512);
    // The file gets the other 512 pages of the limit: the one-page-at-a-
    // time recurrence of the previous section over 4032 allocations, with
    // 18 anon folios in the add batch at the start ((64 + 512) mod 31),
    // gives 63 reclaims, 3528 pages stolen, 504 resident, stock 0.
    assert_eq!(t.ev(Ev::PgstealFile), 3528);
    assert_eq!(resident(&mut t, "f", 0..4096), 504 + 64);
    // ... and the heap's 3 page tables (PTE, PMD, PUD), charged to app.
    assert_eq!(usage(&mut t, "app"), 512 + 504 + 3);
    // Anon aging needs inactive_is_low on the flushed (zero) sizes: no pgrefill.
    assert_eq!(t.ev(Ev::Pgrefill), 0);
    assert_eq!(t.ev(Ev::OomKill), 0);
    t.check();
}

/// swap.max = 1M (256 pages), memory.max = 4M (1024), anon pages stored
/// one by one (a synchronous swap device, so each swap-out completes at
/// once).
#[test]
fn small_swap_max_caps_swap_out() {
    let mut t = T::classic();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app max=4M swap.max=1M\ntask t memcg=app\nanon t heap size=8M");
    let id = t.memcg_id("app") as usize;
    for p in 0..1275u64 {
        t.run(&format!("store t heap {p}"));
        // mem_cgroup_try_charge_swap refuses a slot beyond swap.max.
        assert!(t.k().memcgs[id].swap_usage <= 256);
    }
    // 1275 pages exist, and 5 page tables (3 PTE tables for 1275 pages, a
    // PMD, a PUD) charged to app: at most 1024 pages in memory (usage ≤
    // max), at most 256 in swap, so exactly 1019 + 5 + 256 and the stock
    // is empty. Nothing is swapped in or freed, so each slot was written
    // once.
    let k = t.k();
    assert_eq!(k.memcgs[id].swap_usage, 256);
    assert_eq!(k.memcgs[id].usage, 1024);
    assert_eq!((k.tasks[0].rss_anon, k.tasks[0].swapents), (1019, 256));
    assert_eq!(k.ev.get(Ev::Pswpout), 256);
    assert_eq!(k.ev.get(Ev::OomKill), 0);
    t.run("store t heap 1275");
    // Page 1276 needs a charge; anon cannot be reclaimed any more (no swap
    // left for the memcg → SCAN_FILE) and there is no file: 16 failed
    // retries, memcg OOM, the task is killed.
    assert_eq!(t.ev(Ev::OomKill), 1);
    assert_eq!(t.ev(Ev::Pswpout), 256);
    assert_eq!(mem_event(&mut t, "app", MemcgEvent::Oom), 1);
    assert!(!t.k().tasks[0].alive);
    assert_eq!(t.k().memcgs[id].swap_usage, 0, "the victim's slots are freed");
    t.check();
}

// ---- 4. vm.page-cluster: VMA-based swap readahead ------------------------------

/// What the PTE of `page` of the task's first region says: "P" mapped,
/// "C" in the swap cache (with "+ra" for PG_readahead), "S" swapped out.
fn swap_pte(t: &mut T, page: u64) -> &'static str {
    let k = t.k();
    let v = &k.vmas[0];
    let e = k.pt.get(k.tasks[v.task as usize].pgd, v.va(page));
    if e & pte::PRESENT != 0 {
        return "P";
    }
    assert!(e & pte::SWAP != 0);
    let se = k.swap.as_ref().unwrap().entry(e & pte::VALUE);
    if se & SLOT_CACHED == 0 {
        return "S";
    }
    if k.folios.get((se & SLOT_VALUE) as u32).test(pg::READAHEAD) {
        "C+ra"
    } else {
        "C"
    }
}
/// The folio mapped at `page` of the task's first region.
fn mapped_folio(t: &mut T, page: u64) -> u32 {
    let k = t.k();
    let v = &k.vmas[0];
    let e = k.pt.get(k.tasks[v.task as usize].pgd, v.va(page));
    assert!(e & pte::PRESENT != 0);
    e & pte::VALUE
}

/// 64 anon pages all swapped out through memory.reclaim (a block swap
/// device, not SWP_SYNCHRONOUS_IO, so swap-in goes through the swap cache
/// and readahead; swap_write = 0 so the writes complete at once).
fn swapped_out_region(page_cluster: u32) -> T {
    let mut t = classic_with_cost(CostModel { swap_write: 0, ..Default::default() });
    t.run(&format!("memory 256M\nswap 64M\nsysctl vm.page-cluster={page_cluster}\nmemcg app\ntask t memcg=app\nanon t heap size=256K"));
    t.run("store t heap 0 64\nreclaim app 1M");
    // memory.reclaim asks for 256 pages; there are 64, each kept once for
    // its young PTE and swapped out the next time it is scanned, until
    // 17 rounds reclaim nothing. Every page ends in swap.
    assert_eq!(t.ev(Ev::Pswpout), 64);
    assert_eq!(t.k().tasks[0].rss_anon, 0);
    assert!((0..64).all(|p| swap_pte(&mut t, p) == "S"));
    t
}

#[test]
fn swap_readahead_window_starts_at_one_page() {
    let mut t = swapped_out_region(3);
    let faults = t.ev(Ev::Pgfault);
    // First fault: vma->swap_readahead_info is 0 (prev address 0, win 0,
    // hits 0). __swapin_nr_pages: hits + 2 = 2, and the fault is not next
    // to address 0, so 1 page; max_win = 1 << 3 = 8 does not matter:
    // swap_vma_ra_win returns 1 and swap_vma_readahead reads only the
    // faulting page. One major fault, one pswpin, no swap_ra.
    t.run("load t heap 10");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRa)), (1, 1, 0));
    assert_eq!(swap_pte(&mut t, 11), "S");
    // A read fault with swap far from half full keeps the slot
    // (should_try_to_free_swap is false): the folio stays in the swap cache.
    let f10 = mapped_folio(&mut t, 10);
    assert!(t.k().folios.get(f10).test(pg::SWAPCACHE));

    // Second fault, on the next page: hits 0, adjacent to the previous
    // fault → 2 pages; prev_win / 2 = 0 → win 2. faddr == prev + 1 page,
    // so the window starts at the fault: pages 11 and 12. 12 is read
    // ahead: in the swap cache with PG_readahead, still unmapped.
    t.run("load t heap 11");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRa)), (3, 2, 1));
    assert_eq!(swap_pte(&mut t, 12), "C+ra");
    assert_eq!(swap_pte(&mut t, 13), "S");

    // Fault on 12: swap_cache_get_folio finds it (readahead hit): no I/O,
    // a minor fault, swap_ra_hit.
    t.run("load t heap 12");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRaHit)), (3, 2, 1));
    assert_eq!(t.ev(Ev::Pgfault) - faults, 3);
    t.check();

    // page-cluster = 0: max_win = 1, every fault reads one page, even
    // sequential ones.
    let mut t = swapped_out_region(0);
    t.run("load t heap 10\nload t heap 11\nload t heap 12");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRa)), (3, 3, 0));
    assert_eq!(swap_pte(&mut t, 13), "S");
    t.check();
}

/// A readahead hit moves the window: swap_cache_get_folio stores
/// SWAP_RA_VAL(addr, win, hits + 1) — the hit's own address
/// (mm/swap_state.c:369-380) — so the next miss, one page further, is
/// "faddr == prev_faddr + PAGE_SIZE" and reads forward.
#[test]

fn swap_readahead_hit_moves_window_forward() {
    let mut t = swapped_out_region(3);
    t.run("load t heap 10\nload t heap 11\nload t heap 12");
    // After the hit on 12: prev 12, win 2, hits 1. Fault 13: hits + 2 = 3
    // → rounded up to 4; prev_win / 2 = 1 → win 4; 13 == 12 + 1 → forward:
    // pages 13..16, three of them read ahead.
    t.run("load t heap 13");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRa)), (7, 3, 4));
    assert_eq!([14, 15, 16].map(|p| swap_pte(&mut t, p)), ["C+ra"; 3]);
    // Hits on 14, 15, 16: prev 16, win 4, hits 3. Fault 17: 3 + 2 = 5 →
    // 8, capped at max_win 8 → pages 17..24, seven read ahead.
    t.run("load t heap 14\nload t heap 15\nload t heap 16\nload t heap 17");
    assert_eq!((t.ev(Ev::Pswpin), t.ev(Ev::Pgmajfault), t.ev(Ev::SwapRa), t.ev(Ev::SwapRaHit)), (15, 4, 11, 4));
    assert_eq!(swap_pte(&mut t, 24), "C+ra");
    assert_eq!(swap_pte(&mut t, 25), "S");
    t.check();
}

/// swap_vma_readahead reads the target inside its address-order loop and
/// then calls lru_add_drain(); with a window of 1 it skips both
/// (`if (win == 1) goto skip`, mm/swap_state.c:813). So after a one-page
/// swap-in an earlier folio stays in the per-CPU add batch, and after a
/// larger window the target is on the LRU.
#[test]

fn swap_readahead_drains_only_after_a_window() {
    let mut t = swapped_out_region(0);
    t.run("load t heap 10\nload t heap 20");
    let f10 = mapped_folio(&mut t, 10);
    let f = *t.k().folios.get(f10);
    assert!(f.test(pg::IN_BATCH) && !f.test(pg::LRU), "no drain for a one-page window");

    let mut t = swapped_out_region(3);
    t.run("load t heap 10\nload t heap 11");
    // Window 11..12: 11 and 12 are read in the loop, then drained.
    let f11 = mapped_folio(&mut t, 11);
    let f = *t.k().folios.get(f11);
    assert!(f.test(pg::LRU) && !f.test(pg::IN_BATCH), "the target is drained with the window");
    t.check();
}

// ---- 5. direct reclaim ------------------------------------------------------------

/// Direct reclaim, made deterministic by making kswapd give up first:
/// pgdat->kswapd_failures reaches MAX_RECLAIM_RETRIES (16), after which
/// wakeup_kswapd leaves the node to direct reclaim ("hopeless node").
/// kswapd fails because everything is anonymous and there is no swap.
/// In the kernel kswapd is a thread, and how many of its runs happen
/// before the allocator reaches the min watermark depends on scheduling;
/// the model runs balance_pgdat to completion at each wake-up
/// (docs/FIDELITY.md, simplification 2), which makes it one failed run per
/// allocation below low until the 16th. What follows — every allocation
/// above min succeeds without kswapd, the one at min enters direct
/// reclaim — is the kernel's rule either way.
#[test]
fn direct_reclaim_when_kswapd_is_hopeless() {
    let mut t = T::classic();
    // One zone (DMA32) holding all 16384 pages, so the arithmetic below is
    // about the node's watermarks alone (zones: zone_fallback_* tests).
    let dma32 = ZoneSpec { pages: 16384, managed: 16384, wmark: None, lowmem_reserve: None, pcp: 0, layout: None };
    t.sim = mglru_core::Simulator::new(RunOptions {
        policy: Some(Policy::Classic),
        zones: Some([ZoneSpec::default(), dma32, ZoneSpec::default()]),
        ..Default::default()
    });
    t.run("memory 64M\nfile f size=1M readahead=0\ntask t\nanon t heap size=64M");
    // 16384 pages; min_free_kbytes = int_sqrt(65536 × 16) = 1024 →
    // min 256 pages; tmp = max(256 / 4, 16384 × 10 / 10000) = 64 → low
    // 320, high 384.
    assert_eq!(t.k().zones[ZONE_DMA32].wmark, [256, 320, 384]);
    assert_eq!(t.k().nr_free_pages(), 16384);
    t.run("store t heap 0 16050");
    // 16050 heap pages and 34 page-table pages (a PUD, a PMD and 32 PTE
    // tables: 16050 PTEs from a PMD-aligned start): 16084 allocations,
    // served from the CPU's list (crate::page_alloc; one CPU: batch 3,
    // high_min 320, high_max 2048), which takes pages from the zone in
    // refills of 3, 6, 12, 24, 48 (93 by the 93rd allocation), then 96 at
    // the 94th, 190th, ...: the zone's free count is 16291 - 96 k after
    // the k-th of those. The 166th (allocation 15934) leaves 355: the next
    // allocation finds the zone below high (ZONE_BELOW_HIGH), still above
    // low. The 167th (allocation 16030, at 355 > low) leaves 259. From
    // allocation 16031 on, each finds 259 <= low: the slow path wakes
    // kswapd, which finds nothing (SCAN_FILE, no file) from priority 12 to
    // 1 and counts a failure; 16 runs (pageoutrun 16); then wakeup_kswapd
    // returns at once. 259 > min: no direct reclaim; the last 54
    // allocations come from the list, which keeps 95 - 54 = 41.
    let k = t.k();
    assert_eq!((k.nr_free_pages(), k.kswapd_failures, k.ev.get(Ev::Pageoutrun)), (259, 16, 16));
    assert_eq!(k.cpus[0].pcp[ZONE_DMA32].count(), 41);
    assert_eq!(k.ev.get(Ev::AllocstallMovable), 0);
    t.run("read t f 0 43");
    // Pages 0..40 come from the list (259 > min). Page 41: the list is
    // empty, the refill takes 96 (alloc_factor still 5) whatever the
    // watermark: the zone keeps 163. Page 42: 163 is not above min:
    // try_to_free_pages (allocstall_movable), nr_to_reclaim 32, SCAN_FILE.
    // The add batch (shared with the anon pages: 16050 = 517 x 31 + 23)
    // flushed after 8 file pages and again after 31 more: 39 on the list,
    // 3 queued. Priority escalation: 12..6: 39 >> p = 0; 5: 1 (drain: 42);
    // 4: 41 >> 4 = 2 (3); 3: 39 >> 3 = 4 (7); 2: 35 >> 2 = 8 (15);
    // 1: 27 >> 1 = 13 (28); 0: 14 -> 42 >= 32. All 42 are clean read-once
    // pages. They go to the CPU's list (95 + 42 = 137, under high_min: no
    // flush while the zone is below high); the retry at min fails on the
    // zone's 163, drain_all_pages gives the 137 back (300), and the retry
    // refills 3 (alloc_factor 0 after the frees): 297 free, 2 on the list.
    // (A page after it would find 297 <= low and wake kswapd, no longer
    // hopeless after this progress.)
    assert_eq!(t.ev(Ev::AllocstallMovable), 1);
    assert_eq!(t.ev(Ev::PgscanDirect), 42);
    assert_eq!(t.ev(Ev::PgstealDirect), 42);
    assert_eq!((t.ev(Ev::PgscanKswapd), t.ev(Ev::PgstealKswapd)), (0, 0));
    assert_eq!(t.k().nr_free_pages(), 297);
    assert_eq!(t.k().cpus[0].pcp[ZONE_DMA32].count(), 2);
    assert_eq!(resident(&mut t, "f", 0..256), 1);
    // Progress in shrink_node resets kswapd_failures.
    assert_eq!(t.k().kswapd_failures, 0);
    t.check();
}

// ---- 6. a young PTE protects a mapped page at reclaim -----------------------------

/// folio_check_references: a mapped page whose PTE is young is kept
/// (FOLIOREF_KEEP, PG_referenced set) the first time and activated the
/// second time it is found young; an unmapped read-once page is reclaimed.
#[test]
fn young_pte_protects_mapped_page_at_reclaim() {
    let mut t = T::classic();
    t.run(
        "memory 256M\nmemcg app max=1M\nfile mf size=64K readahead=0\nfile g size=4M readahead=0\n\
         task t memcg=app\nmmap t m file=mf",
    );
    // M = mf:0 (touched again after every chunk), N = mf:1 (mapped once),
    // U = g:0 (read once). Both faults are major (nothing cached, no
    // read-around with readahead off).
    t.run("load t m 0\nload t m 1\nread t g 0");
    assert_eq!(t.ev(Ev::Pgmajfault), 2);
    let m = t.folio_of("mf", 0).unwrap();
    let mut kept_at = None;
    let mut activated_at = None;
    // Stream g:1..768 through the 256-page memcg: its inactive list turns
    // over about three times, so limit reclaim reaches M at least twice.
    for c in 0..96u64 {
        t.run(&format!("read t g {} 8\nload t m 0", 1 + c * 8));
        let f = *t.k().folios.get(m);
        if kept_at.is_none() && f.test(pg::REFERENCED) {
            // First encounter: one young PTE, PG_referenced clear →
            // FOLIOREF_KEEP: it stays inactive, now PG_referenced.
            assert!(!f.test(pg::ACTIVE) && f.mapcount == 1);
            kept_at = Some(c);
        }
        if activated_at.is_none() && f.test(pg::ACTIVE) {
            activated_at = Some(c);
        }
    }
    // Second encounter: young again (the loads) and PG_referenced →
    // FOLIOREF_ACTIVATE, a later chunk than the first.
    assert!(kept_at.unwrap() < activated_at.expect("M was activated"));
    assert!(t.k().folios.get(m).test(pg::ACTIVE));
    assert_eq!(t.folio_of("mf", 0), Some(m), "M is still resident");
    // U: PG_referenced without PTE → FOLIOREF_RECLAIM_CLEAN: gone.
    assert_eq!(t.folio_of("g", 0), None);
    // N: kept once for its young fault PTE, found old the second time
    // (PG_referenced only, a file page → reclaim): unmapped and freed.
    assert_eq!(t.folio_of("mf", 1), None);
    // M's activation is the only one (each g page is read once; the active
    // list is never scanned because nothing deactivates on zero flushed
    // sizes). Every scanned page was reclaimed except N's keep, M's keep
    // and M's activation.
    assert_eq!(t.ev(Ev::Pgactivate), 1);
    assert_eq!(t.ev(Ev::PgscanFile) - t.ev(Ev::PgstealFile), 3);
    t.check();
}

// ---- 7. the cost model and the flusher's clock --------------------------------------

/// Reads cost page_copy per page plus disk_read per synchronous miss
/// (docs/COST_MODEL.md): 100 one-page misses (readahead off) and one
/// 64-page read with the default 32-page readahead.
#[test]
fn cost_disk_read_is_charged_per_synchronous_miss() {
    for disk_read in [100_000u64, 0, 7] {
        let mut t = classic_with_cost(CostModel { disk_read, ..Default::default() });
        t.run("memory 256M\nfile f size=1M readahead=0\nfile g size=256K\ntask t");
        t.run("read t f 0 100");
        // Readahead off: page_cache_sync_ra reads one page per miss, 100
        // misses, each waited for.
        assert_eq!(t.k().now, 100 * (500 + disk_read));
        let before = t.k().now;
        t.run("read t g 0 64");
        // One synchronous miss at page 0 (initial window 32, marker at
        // 16); the async readahead of 32..63 at the marker does not wait.
        assert_eq!(t.k().now - before, 64 * 500 + disk_read);
        // No sleeps: all of it is task time.
        let k = t.k();
        assert_eq!(k.sim.task_ns, k.now);
        t.check();
    }
}

/// The flusher writes an inode at the first periodic wake-up
/// (dirty_writeback_centisecs after the dirtying, then every interval)
/// at which it was dirtied at least dirty_expire_centisecs ago
/// (wb_check_old_data_flush → kupdate with dirtied_before = now - expire).
#[test]
fn flusher_writes_expired_inode_at_periodic_wakeup() {
    for (writeback_cs, written_at_s) in [(500u64, 31u64), (700, 36)] {
        let mut t = T::classic();
        t.run(&format!("memory 256M\nsysctl vm.dirty_writeback_centisecs={writeback_cs}\nfile f size=1M\ntask t"));
        // Dirtied at exactly 1 s; the write's copy takes 500 ns.
        t.run("sleep 1s\nwrite t f 0");
        assert_eq!(t.k().nr_dirty, 1);
        // Wake-ups at 1 s + k × interval: 6, 11, ..., 31 s for 5 s; 8, 15,
        // ..., 36 s for 7 s. Expired once now - 30 s ≥ 1 s: 31 s and 36 s.
        // Just before that wake-up the page is still dirty.
        let before_ms = (written_at_s - 1) * 1000 - 1;
        t.run(&format!("sleep {before_ms}ms"));
        assert!(t.k().now < written_at_s * 1_000_000_000);
        assert_eq!((t.k().nr_dirty, t.k().nr_writeback, t.ev(Ev::NrWritten)), (1, 0, 0));
        t.run("sleep 1ms");
        // At the wake-up writeback starts; the disk takes disk_write =
        // 10 µs, so it is still under writeback 500 ns later.
        assert_eq!((t.k().nr_dirty, t.k().nr_writeback, t.ev(Ev::NrWritten)), (0, 1, 0));
        assert_eq!(t.ev(Ev::Pgpgout), 4);
        t.run("sleep 10us");
        assert_eq!((t.k().nr_writeback, t.ev(Ev::NrWritten)), (0, 1));
        t.check();
    }
}

/// An inode dirtied at boot (time 0) is not expired at the first wake-up
/// at 5 s: dirtied_before = jiffies - 30 s lies before it
/// (fs/fs-writeback.c:2199, time_after on wrapping jiffies). It is
/// written at 30 s.
#[test]

fn flusher_keeps_inode_dirtied_at_boot_until_expiry() {
    let mut t = T::classic();
    t.run("memory 256M\nfile f size=1M\ntask t\nwrite t f 0");
    t.run("sleep 29999ms");
    assert_eq!((t.k().nr_dirty, t.ev(Ev::NrWritten)), (1, 0), "written before it expired");
    t.run("sleep 1ms\nsleep 10us");
    assert_eq!((t.k().nr_dirty, t.ev(Ev::NrWritten)), (0, 1));
    t.check();
}

// ---- 8. a file twice the memcg limit, read twice --------------------------------------

/// 4096-page file, memcg max 8M (2048 pages), read sequentially twice.
/// Refaults: the inactive list is FIFO for read-once pages (each is
/// PG_referenced, unmapped: reclaimed when it reaches the tail), so the
/// cache holds at most the last ~2048 pages inserted and every read of
/// the second pass is a miss 4096 insertions after the page's previous
/// one — and finds its shadow. The shadows survive: the file has 64 leaf
/// nodes; with no statistics flush the shrinker's limit is 0, so at most
/// 64 are freeable, delta = freeable / 2 and total_scan = (deferred >>
/// priority) + delta with deferred ≤ 2 × freeable; limit reclaim of 32
/// pages from a ~2000-page list never goes below priority 6, where
/// deferred >> 6 ≤ 2, so total_scan < freeable and < 128 (SHRINK_BATCH):
/// do_shrink_slab never scans. With a flush that saw the full memcg the
/// limit is ~2040 / 8 = 255 nodes > 64: nothing to scan either. (256 or
/// more shadow-only nodes would be another matter: freeable / 2 alone
/// reaches SHRINK_BATCH, and before the first flush the shrinker trims
/// at any priority.) So every second-pass page refaults: exactly 4096. None is activated: the
/// workingset size (flushed active file, no swap) is 0, and every refault
/// distance is ≥ 1.
#[test]
fn read_twice_file_twice_the_memcg_refaults_every_page() {
    // The reader of classic.rs (32-page reads, 128K readahead), and the
    // reference suite's shape (readahead off, a 2.5 s pause once the memcg
    // is full, so the 2 s flush happens with the memcg full).
    for (readahead, pause) in [("", false), (" readahead=0", true)] {
        let mut t = T::classic();
        t.run(&format!("memory 256M\nmemcg app max=8M\nfile big size=16M{readahead}\ntask t memcg=app"));
        for pass in 0..2 {
            for c in 0..128u64 {
                t.run(&format!("read t big {} 32", c * 32));
                if pause && pass == 0 && c == 63 {
                    t.run("sleep 2500ms");
                }
            }
        }
        t.drain();
        assert_eq!(t.ev(Ev::Pgpgin), 2 * 4096 * 4, "every page read from disk twice (KiB)");
        assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 4096);
        assert_eq!(t.ev(Ev::WorkingsetActivateFile), 0);
        assert_eq!((t.ev(Ev::WorkingsetNodereclaim), t.ev(Ev::SlabsScanned)), (0, 0));
        let id = t.memcg_id("app") as usize;
        assert!(t.k().memcgs[id].watermark <= 2048, "never above memory.max");
        t.check();
    }
}

// ---- the charge retry batch -----------------------------------------------------------

/// try_charge_memcg: once the 64-page batch failed, `batch = nr_pages`
/// holds for every later `goto retry` of the same call
/// (mm/memcontrol.c:2199-2201): after reclaim or an OOM kill makes room,
/// only the one page is charged and nothing is stocked.
#[test]

fn charge_retry_keeps_single_page_batch() {
    let mut t = T::classic();
    // The limit sits on the parent; the two tasks are in sibling memcgs so
    // that the victim's page tables, uncharged into the per-CPU stock when
    // it exits (obj_cgroup_uncharge_pages refills it), are stocked for its
    // memcg, not for the one that retries.
    t.run(
        "memory 256M\nmemcg top max=1M\nmemcg a parent=top\nmemcg b parent=top\ntask big memcg=a\ntask small memcg=b\n\
         anon big heap size=1M\nanon small heap size=1M",
    );
    // Each heap's first store allocates a PUD, a PMD and a PTE table, charged
    // to the task's memcg (the pgd came with the task): 189 + 3 and 61 + 3.
    t.run("store big heap 0 189\nstore small heap 0 61");
    assert_eq!(usage(&mut t, "top"), 256);
    // The next page: 64 fails, 1 fails, no swap and no file → nothing
    // reclaimable → OOM kills big (189 pages + 4 tables vs 61 + 4) → retry
    // with batch 1.
    t.run("store small heap 61");
    assert_eq!(t.ev(Ev::OomKill), 1);
    assert!(!t.k().tasks[0].alive && t.k().tasks[1].alive);
    assert_eq!(usage(&mut t, "b"), 65, "small's 62 pages and 3 tables, nothing stocked for b");
    t.check();
}

/// kswapd meets a dirty page-cache folio it has seen before (PG_reclaim)
/// with the node tagged PGDAT_DIRTY: shrink_folio_list calls pageout, and
/// ext4's mapping has no ->writepage in 6.12, so pageout returns
/// PAGE_ACTIVATE: the folio is activated, still dirty and marked for
/// reclaim, nothing is written by reclaim (`nr_vmscan_write` 0, no
/// `nr_pageout`), and the flusher writes it later.
#[test]
fn kswapd_does_not_write_file_folios_without_writepage() {
    use mglru_core::vmscan::{ReclaimStat, ScanControl};
    let mut t = T::classic();
    t.run("memory 256M\nsysctl vm.dirty_ratio=90\nsysctl vm.dirty_background_ratio=80\nsysctl vm.dirty_writeback_centisecs=0\n\
           file f size=1M readahead=0\ntask w\nwrite w f 0 1\n");
    t.drain();
    let pfn = t.folio_of("f", 0).unwrap();
    let k = t.k();
    assert!(k.folios.get(pfn).test(pg::DIRTY) && k.folios.get(pfn).test(pg::LRU));
    // isolate_lru_folios, by hand, and what the earlier scan left behind.
    k.lruvec_del_folio(pfn);
    let f = k.folios.get_mut(pfn);
    f.clear(pg::LRU);
    f.set(pg::ISOLATED | pg::RECLAIM);
    k.in_kswapd = true;
    k.pgdat_dirty = true;
    let mut sc = ScanControl::new(32, None);
    let mut stat = ReclaimStat::default();
    let mut list = vec![pfn];
    let freed = k.shrink_folio_list(&mut list, &mut sc, &mut stat);
    assert_eq!((freed, list.as_slice()), (0, &[pfn][..]));
    let f = *k.folios.get(pfn);
    assert!(f.test(pg::ACTIVE) && f.test(pg::DIRTY) && f.test(pg::RECLAIM) && !f.test(pg::WRITEBACK));
    assert_eq!(stat.nr_pageout, 0);
    assert_eq!(k.ev.get(Ev::NrVmscanWrite), 0);
    assert_eq!(k.ev.get(Ev::Pgactivate), 1);
    k.move_folios_to_lru(&list);
    k.in_kswapd = false;
    k.pgdat_dirty = false;
    t.check();
}

/// activate_locked frees the swap slot of an mlocked folio it keeps
/// (`mem_cgroup_swap_full || folio_test_mlocked`), not only when swap is
/// full. A page swapped out to a block device (sync=n) and read back by a
/// load keeps its slot in the swap cache (swap far from half full); mlock
/// then locks the present page. Reclaim meeting it (isolated here by hand)
/// finds it unevictable, goes to activate_locked, and frees the slot: the
/// memcg holds no swap after.
#[test]
fn activate_locked_frees_the_swap_of_an_mlocked_folio() {
    use mglru_core::vmscan::{ReclaimStat, ScanControl};
    let mut t = T::classic();
    t.run("memory 256M\nswap 64M\nmemcg app\ntask t memcg=app\nanon t heap size=4K\nstore t heap 0 1\nreclaim app 4K\nsleep 1s\nload t heap 0\nmlock t heap\n");
    t.drain();
    let app = t.memcg_id("app");
    let k = t.k();
    let v = &k.vmas[0];
    let e = k.pt.get(k.tasks[v.task as usize].pgd, v.va(0));
    assert!(e & pte::PRESENT != 0);
    let pfn = e & pte::VALUE;
    assert!(k.folios.get(pfn).test(pg::MLOCKED));
    assert!(k.folios.get(pfn).test(pg::SWAPCACHE), "the read fault kept the slot");
    assert_eq!(k.memcgs[app as usize].swap_usage, 1);
    k.lruvec_del_folio(pfn);
    let f = k.folios.get_mut(pfn);
    f.clear(pg::LRU);
    f.set(pg::ISOLATED);
    let mut sc = ScanControl::new(32, Some(app));
    let mut stat = ReclaimStat::default();
    let mut list = vec![pfn];
    assert_eq!(k.shrink_folio_list(&mut list, &mut sc, &mut stat), 0);
    assert!(!k.folios.get(pfn).test(pg::SWAPCACHE));
    assert_eq!(k.memcgs[app as usize].swap_usage, 0);
    k.move_folios_to_lru(&list);
    t.drain();
    t.check();
}

/// POSIX_FADV_DONTNEED clears the shadow entries in its range
/// (`mapping_try_invalidate` → `clear_shadow_entries`): pages reclaimed
/// from a file (half of it, each leaving a shadow; the file keeps pages,
/// so the inode and its shadows stay) and read again after the advice
/// are new pages, not refaults. Without the advice the same reads are
/// refaults. Both policies.
#[test]
fn fadvise_dontneed_clears_the_shadows() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let run = |advise: bool| {
            let mut t = T::with_options(RunOptions { policy: Some(policy), ..Default::default() });
            t.run("memory 256M\nmemcg app\ntask t memcg=app\nfile f size=1M readahead=0\nread t f 0 256\nreclaim app 512K\n");
            if advise {
                t.run("advise t f dontneed\n");
            }
            t.run("read t f 0 256\n");
            t.check();
            (t.ev(Ev::PgstealFile), t.ev(Ev::WorkingsetRefaultFile), t.k().files[0].nrpages)
        };
        let (stolen, refaults, cached) = run(false);
        assert!(stolen > 0 && refaults == stolen && cached == 256, "{policy:?}: {stolen} {refaults}");
        let (stolen, refaults, cached) = run(true);
        assert!(stolen > 0 && cached == 256, "{policy:?}");
        assert_eq!(refaults, 0, "{policy:?}");
    }
}

/// A swap device of N pages has N - 1 slots: mkswap's header takes the
/// first page and swapon marks it bad (SwapTotal of a 64 MiB device is
/// 65,532 kB on the guest). A one-page device has none: no swap.
#[test]
fn the_swap_header_takes_one_page() {
    let mut t = T::classic();
    t.run("memory 256M\nswap 64M\n");
    assert_eq!(t.k().swap.as_ref().unwrap().nr_pages(), 16_383);
    let mut t = T::classic();
    t.run("memory 256M\nswap 4K\nmemcg app\ntask t memcg=app\nanon t heap size=64K\nstore t heap 0 16\nreclaim app 64K\n");
    assert_eq!(t.k().swap.as_ref().unwrap().nr_pages(), 0);
    assert_eq!(t.vm("pswpout"), 0);
    t.check();
}

/// MADV_WILLNEED on anon memory reads every swapped-out page into the swap
/// cache (`read_swap_cache_async`), on a synchronous device (brd, zram)
/// too: 64 pages swapped out to a `sync=y` device come back at the advice
/// (64 `pswpin`), and the loads after it are minor faults on swap-cache
/// folios (no `pgmajfault`).
#[test]
fn madv_willneed_swaps_in_from_a_synchronous_device() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::with_options(RunOptions { policy: Some(policy), ..Default::default() });
        t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=256K\nstore t heap 0 64\nreclaim app 256K\n");
        assert_eq!(t.vm("pswpout"), 64, "{policy:?}");
        let major = t.vm("pgmajfault");
        t.run("advise t heap willneed\n");
        assert_eq!(t.vm("pswpin"), 64, "{policy:?}");
        t.run("load t heap 0 64\n");
        assert_eq!(t.vm("pgmajfault"), major, "{policy:?}");
        assert_eq!(t.vm("pswpin"), 64, "{policy:?}");
        t.check();
    }
}

/// `swap_reclaim_full_clusters`: while swap is over half full, each slot
/// allocation first gives back the slots of one full cluster (512 slots)
/// that only the swap cache holds. An 8M device (2,047 slots): memcg `a`
/// swaps 800 pages out (slots 0..799) and reads them back on the block
/// device, which keeps the slots (swap under half full); memcg `b` then
/// swaps 1,000 pages out. Past 1,023 slots in use, the next allocation
/// reclaims cluster 0 (slots 0..511, all `a`'s and cache-only), and when
/// swap is over half full again cluster 1 is full and gives back 512..799:
/// `a` ends with no swap, `b` has its 1,000 slots. Without it `a` kept 800.
#[test]
fn full_swap_clusters_give_back_swap_cache_only_slots() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::with_options(RunOptions { policy: Some(policy), ..Default::default() });
        t.run("memory 256M\nswap 8M\nmemcg a\nmemcg b\ntask t memcg=a\nanon t heap size=4M\nstore t heap 0 800\nreclaim a 4M\nsleep 1s\nload t heap 0 800\n");
        let (a, b) = (t.memcg_id("a"), t.memcg_id("b"));
        assert_eq!(t.k().memcgs[a as usize].swap_usage, 800, "{policy:?}: read faults kept the slots");
        t.run("task u memcg=b\nanon u big size=4M\nstore u big 0 1000\nreclaim b 4M\nsleep 1s\n");
        let k = t.k();
        assert_eq!((k.memcgs[a as usize].swap_usage, k.memcgs[b as usize].swap_usage), (0, 1000), "{policy:?}");
        t.check();
    }
}

/// PG_readahead is PG_reclaim in 6.12 (one bit): a folio that readahead
/// marked, then dirtied by a write and written back by the flusher, ends
/// its writeback as if reclaim had marked it (`folio_end_writeback`: the
/// mark is cleared and the folio rotated to the inactive tail,
/// `pgrotated`). With two bits it would keep its readahead mark and stay
/// where it was.
#[test]
fn a_readahead_mark_is_a_reclaim_mark_at_writeback_end() {
    use mglru_core::folio::pg;
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::with_options(RunOptions { policy: Some(policy), ..Default::default() });
        t.run("memory 256M\ntask t\nfile f size=4M readahead=128K\nread t f 0 1\n");
        let marked: Vec<u64> =
            (0..1024).filter(|&p| t.folio_of("f", p).is_some_and(|pfn| t.k().folios.get(pfn).test(pg::READAHEAD))).collect();
        assert_eq!(marked.len(), 1, "{policy:?}: the sync readahead marks one folio");
        let p = marked[0];
        // (On its LRU list, not in the CPU's lru_add batch: a folio off
        // the lists is not rotated.)
        t.drain();
        let rotated = t.ev(Ev::Pgrotated);
        // Dirty it, and let the flusher write it back (dirty_expire 30 s).
        t.run(&format!("write t f {p} 1\nsleep 40s\n"));
        // (The rotation waits in the CPU's move-tail batch: counted when
        // the batch moves.)
        t.drain();
        t.check();
        let pfn = t.folio_of("f", p).expect("still cached");
        let f = *t.k().folios.get(pfn);
        assert!(!f.test(pg::DIRTY) && !f.test(pg::WRITEBACK), "{policy:?}: written back");
        assert!(!f.test(pg::READAHEAD), "{policy:?}: writeback's end cleared the mark");
        assert_eq!(t.ev(Ev::Pgrotated), rotated + 1, "{policy:?}: and rotated the folio");
    }
}
