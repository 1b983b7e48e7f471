// SPDX-License-Identifier: GPL-2.0-only
//! Scenarios for the classic active/inactive LRU whose expected counters
//! are worked out by hand from 6.12's rules (the comments say how).

mod common;
use common::T;
use mglru_core::folio::pg;
use mglru_core::lruvec::{LRU_ACTIVE_FILE, LRU_INACTIVE_FILE};
use mglru_core::stat::Ev;

const SETUP: &str = "memory 64M\nmemcg app max=8M\nfile f size=64M readahead=0\nfile g size=64M readahead=0\ntask t memcg=app\n";

/// folio_mark_accessed: inactive,unreferenced -> inactive,referenced ->
/// active. While the folio still sits in the per-CPU add batch the second
/// access only sets PG_active (no pgactivate event); once on the LRU it
/// goes through the activate batch and counts pgactivate.
#[test]
fn two_step_promotion_in_batch() {
    let mut t = T::classic();
    t.run(SETUP);
    // Read page 0, then 1 (so the next read of 0 is not "the same folio
    // as the previous read"), then 0 again.
    t.run("read t f 0\nread t f 1");
    let p0 = t.folio_of("f", 0).unwrap();
    let f = *t.k().folios.get(p0);
    assert!(f.test(pg::REFERENCED) && !f.test(pg::ACTIVE) && f.test(pg::IN_BATCH));
    t.run("read t f 0");
    let f = *t.k().folios.get(p0);
    assert!(f.test(pg::ACTIVE) && !f.test(pg::REFERENCED), "second access marks it active in the batch");
    t.drain();
    let m = t.memcg_id("app") as usize;
    assert_eq!(t.k().memcgs[m].lruvec.size(LRU_ACTIVE_FILE), 1);
    assert_eq!(t.k().memcgs[m].lruvec.size(LRU_INACTIVE_FILE), 1);
    assert_eq!(t.ev(Ev::Pgactivate), 0, "activation inside the add batch is not an event");
    t.check();
}

#[test]
fn two_step_promotion_on_lru() {
    let mut t = T::classic();
    t.run(SETUP);
    t.run("read t f 0\nread t f 1").drain();
    let p0 = t.folio_of("f", 0).unwrap();
    assert!(t.k().folios.get(p0).test(pg::LRU));
    // Re-reading page 0 right after a read of page 0 is the same folio:
    // not marked. Read page 1 first.
    t.run("read t f 0");
    let f = *t.k().folios.get(p0);
    assert!(!f.test(pg::ACTIVE) && !f.test(pg::REFERENCED), "queued for activation, referenced cleared");
    t.drain();
    assert!(t.k().folios.get(p0).test(pg::ACTIVE));
    assert_eq!(t.ev(Ev::Pgactivate), 1);
    // A third access: active,unreferenced -> active,referenced; no event.
    t.run("read t f 1\nread t f 0").drain();
    assert!(t.k().folios.get(p0).test(pg::REFERENCED));
    assert_eq!(t.ev(Ev::Pgactivate), 2, "page 1 was activated by its second read");
    t.check();
}

#[test]
fn same_folio_reread_is_not_an_access() {
    let mut t = T::classic();
    t.run(SETUP);
    t.run("read t f 5\nread t f 5\nread t f 5").drain();
    let p = t.folio_of("f", 5).unwrap();
    let f = *t.k().folios.get(p);
    assert!(f.test(pg::REFERENCED) && !f.test(pg::ACTIVE), "consecutive reads of one page mark it once");
}

/// A sequential read of a file twice the memcg limit, done twice: LRU
/// order evicts every page before it is read again, so every access of
/// both passes misses; the second pass finds the shadows of the first.
/// The refault distances exceed the (empty) active list, so nothing is
/// activated.
#[test]
fn read_twice_file_larger_than_memcg() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app max=8M\nfile big size=16M\ntask t memcg=app");
    let pages = 4096u64;
    for _ in 0..2 {
        for p in 0..pages / 32 {
            t.run(&format!("read t big {} 32", p * 32));
        }
    }
    t.drain();
    assert_eq!(t.ev(Ev::Pgpgin), 2 * pages * 4, "every page read from disk twice (KiB)");
    let refaults = t.ev(Ev::WorkingsetRefaultFile);
    assert!(refaults >= pages - 2048, "second pass refaults: {refaults}");
    assert!(refaults <= pages, "only second-pass reads can refault: {refaults}");
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), 0);
    let m = t.memcg_id("app") as usize;
    assert!(t.k().memcgs[m].watermark <= 2048, "never above memory.max");
    t.check();
}

/// A hot set read twice (so it is active) survives a one-time stream
/// three times the memcg: without refaults `may_deactivate` stays clear
/// for file, cache_trim_mode scans only the inactive list, and the
/// stream's use-once pages are what gets reclaimed.
#[test]
fn hot_set_survives_one_time_stream() {
    let mut t = T::classic();
    t.run(SETUP);
    for _ in 0..2 {
        for p in 0..500 {
            t.run(&format!("read t f {p}"));
        }
    }
    t.drain();
    let before = t.ev(Ev::Pgpgin);
    assert_eq!(before, 500 * 4);
    for p in 0..6000 {
        t.run(&format!("read t g {p}"));
    }
    let mid = t.ev(Ev::Pgpgin);
    assert_eq!(mid - before, 6000 * 4);
    for p in 0..500 {
        t.run(&format!("read t f {p}"));
    }
    assert_eq!(t.ev(Ev::Pgpgin), mid, "no hot page was evicted by the stream");
    assert!(t.ev(Ev::PgstealFile) > 0);
    t.check();
}

/// Dirty file pages are never reclaimed before writeback: reclaim marks
/// them PG_reclaim and activates them (nr_vmscan_immediate_reclaim) and
/// only clean pages are stolen, so steals never outrun completed writes.
#[test]
fn dirty_pages_not_reclaimed_before_writeback() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app max=4M\nfile f size=64M\ntask t memcg=app\nsysctl vm.dirty_background_ratio=50\nsysctl vm.dirty_ratio=90");
    for p in 0..4000u64 {
        t.run(&format!("write t f {p}"));
        let (steal, written) = (t.ev(Ev::PgstealFile), t.ev(Ev::NrWritten));
        assert!(steal <= written, "after page {p}: stole {steal} file pages but only {written} were written back");
    }
    assert!(t.ev(Ev::NrDirtied) == 4000);
    assert!(t.ev(Ev::PgstealFile) > 0);
    assert_eq!(t.ev(Ev::OomKill), 0);
    t.check();
}

/// Anon pages go to swap while it has room; when swap is full and the
/// memcg is at its limit with nothing else to reclaim, the OOM killer
/// kills the task and frees its memory and swap.
#[test]
fn anon_swaps_until_full_then_oom() {
    let mut t = T::classic();
    t.run("memory 256M\nswap 4M\nmemcg app max=4M\ntask t memcg=app\nanon t heap size=16M");
    for p in 0..4096u64 {
        t.run(&format!("store t heap {p}"));
    }
    let swap_pages = 1024;
    assert!(t.ev(Ev::Pswpout) <= swap_pages, "pswpout {} exceeds the swap device", t.ev(Ev::Pswpout));
    assert!(t.ev(Ev::Pswpout) >= swap_pages - 64, "swap was used: {}", t.ev(Ev::Pswpout));
    assert_eq!(t.ev(Ev::OomKill), 1);
    let m = t.memcg_id("app") as usize;
    let k = t.k();
    assert_eq!(k.memcgs[m].mem_events[mglru_core::memcontrol::MemcgEvent::OomKill as usize], 1);
    assert!(!k.tasks[0].alive);
    assert!(k.sim.dropped_accesses > 0);
    // Folios still under swap writeback when the victim died stay in the
    // swap cache (folio_free_swap refuses them), as in the kernel; once
    // written, reclaim drops them and their slots go too.
    t.check();
    t.run("sleep 1s\nreclaim app 4M");
    let k = t.k();
    assert_eq!(k.memcgs[m].swap_usage, 0, "the victim's swap was freed");
    assert!(k.memcgs[m].usage <= 64, "the victim's memory was freed (stock only): {}", k.memcgs[m].usage);
    t.check();
}

/// Swap-in brings pages back with major faults and pswpin, and a read
/// fault keeps the swap slot (swap under half full), so reclaiming the
/// clean page again needs no new write.
#[test]
fn swap_in_keeps_slot_for_clean_pages() {
    let mut t = T::classic();
    t.run("memory 256M\nswap 64M\nmemcg app max=4M\ntask t memcg=app\nanon t heap size=8M\nsysctl vm.page-cluster=0");
    t.run("store t heap 0 2048");
    let out1 = t.ev(Ev::Pswpout);
    assert!(out1 >= 1024 - 64, "half the heap went to swap: {out1}");
    t.run("load t heap 0 2048");
    let majflt = t.ev(Ev::Pgmajfault);
    assert_eq!(t.ev(Ev::Pswpin), majflt, "each swap-in is one major fault (no readahead)");
    assert!(majflt >= 900);
    t.check();
}

/// memory.reclaim asks for 2M (512 pages) and gets about that: each
/// round asks for a quarter of what is left, at least 32 pages.
#[test]
fn memory_reclaim_reclaims_what_it_asked() {
    let mut t = T::classic();
    t.run("memory 256M\nmemcg app\nfile f size=64M readahead=0\ntask t memcg=app");
    for p in 0..3000 {
        t.run(&format!("read t f {p}"));
    }
    t.drain();
    let m = t.memcg_id("app") as usize;
    let before = t.k().memcgs[m].ev.get(Ev::PgstealDirect);
    t.run("reclaim app 2M");
    let got = t.k().memcgs[m].ev.get(Ev::PgstealDirect) - before;
    assert!((512..=512 + 64).contains(&got), "memory.reclaim 2M reclaimed {got} pages");
    assert_eq!(t.ev(Ev::PgstealDirect), 0, "memcg reclaim does not count in global pgsteal_direct");
    assert_eq!(t.ev(Ev::PgstealFile), got, "but pgsteal_file is counted");
    t.check();
}

/// Global pressure without memcg limits wakes kswapd, which reclaims to
/// the high watermark.
#[test]
fn kswapd_balances_node() {
    let mut t = T::classic();
    t.run("memory 64M\nfile f size=128M\ntask t");
    for p in 0..(128 * 256 / 32) {
        t.run(&format!("read t f {} 32", p * 32));
    }
    assert!(t.ev(Ev::Pageoutrun) > 0);
    assert!(t.ev(Ev::PgstealKswapd) > 0);
    let k = t.k();
    assert!(k.nr_free_pages() > k.node_wmark(0), "free pages stay above min");
    t.check();
}

/// An mmap'ed file: faults map pages (fault-around maps cached
/// neighbours), young PTEs protect pages at reclaim (two references
/// activate), and unmapped pages are reclaimed first.
#[test]
fn mmap_faults_and_fault_around() {
    let mut t = T::classic();
    t.run("memory 256M\nfile f size=1M\ntask t\nmmap t m file=f");
    t.run("load t m 0");
    // Read-around of 32 pages centred on page 0 (start clamps at 0, the
    // PG_readahead marker on page 32 - 32/4 = 24), done with the mmap lock
    // dropped: VM_FAULT_RETRY, and the retried fault's fault-around maps
    // the 16-page block 0..15 (page 0 among them). One fault counted.
    assert_eq!(t.ev(Ev::Pgmajfault), 1);
    assert_eq!(t.ev(Ev::Pgpgin), 32 * 4);
    assert_eq!(t.ev(Ev::Pgfault), 1);
    let mapped = |t: &mut T| -> u32 {
        let k = t.k();
        (0..32).filter_map(|p| k.files[0].folio_at(p)).map(|pfn| k.folios.get(pfn).mapcount as u32).sum()
    };
    assert_eq!(mapped(&mut t), 16, "pages 0..15 by the retried fault's fault-around");
    t.run("load t m 1");
    assert_eq!(t.ev(Ev::Pgfault), 1, "page 1 was mapped by fault-around");
    // Page 16 is cached: a minor fault whose fault-around maps the block
    // 16..31 but for page 24, which carries PG_readahead.
    t.run("load t m 16");
    assert_eq!((t.ev(Ev::Pgmajfault), t.ev(Ev::Pgfault)), (1, 2));
    assert_eq!(mapped(&mut t), 31);
    t.run("load t m 2 14");
    assert_eq!(t.ev(Ev::Pgfault), 2, "already mapped by fault-around");
    t.check();
}

/// Random mmap reads with readahead on: each major fault reads around
/// (32 pages centred on the fault) with the mmap lock dropped and is
/// retried; the retry's fault-around meets the 15 cached pages of the
/// fault's 16-page block that carry no PG_readahead (the marker is on the
/// block's page 8) and takes them off `mmap_miss` (filemap_map_pages), so
/// the miss count never reaches MMAP_LOTSAMISS (100) and every one of 200
/// faults far apart reads around. Without the retry the count rose by one
/// a fault and read-around stopped after the 100th.
#[test]
fn mmap_read_around_keeps_going_on_random_faults() {
    let mut t = T::classic();
    t.run("memory 1G\nfile f size=400M readahead=128K\ntask t\nmmap t m file=f");
    for i in 0..200u64 {
        t.run(&format!("load t m {}", i * 512));
    }
    assert_eq!(t.ev(Ev::Pgmajfault), 200);
    assert_eq!(t.ev(Ev::Pgpgin), 200 * 32 * 4);
    assert_eq!(t.k().files[0].ra.mmap_miss, 0);
    t.check();
}
