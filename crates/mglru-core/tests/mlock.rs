// SPDX-License-Identifier: GPL-2.0-only
//! mlock, munlock and MAP_POPULATE (mm/mlock.c, mm/gup.c
//! `populate_vma_page_range`): the unevictable LRU and its
//! `unevictable_pgs_*` counters, worked out by hand, under both policies.

mod common;
use common::T;
use mglru_core::Policy;

const POLICIES: [Policy; 2] = [Policy::Classic, Policy::Mglru];

fn stat(t: &mut T, memcg: &str, name: &str) -> u64 {
    let m = t.memcg_id(memcg);
    t.k().memory_stat(m).iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no memory.stat {name}")).1
}

/// The unevictable counters: culled, scanned, rescued, mlocked,
/// munlocked, cleared, stranded.
fn unev(t: &mut T) -> [u64; 7] {
    ["culled", "scanned", "rescued", "mlocked", "munlocked", "cleared", "stranded"]
        .map(|n| t.vm(&format!("unevictable_pgs_{n}")))
}

/// mlock of 256 written anon pages: each is mlocked and culled to the
/// unevictable list (256 and 256; the walk runs between two drains, so
/// its batch is applied at the end); populate only touches them. Reclaim
/// then finds nothing to scan. munlock brings each back: munlocked 256,
/// rescued 256.
#[test]
fn mlock_of_present_anon_pages_and_munlock() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 256\nmlock t heap\n");
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 0, 256, 0, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable")), (256, 256), "{policy:?}");
        assert_eq!(stat(&mut t, "app", "unevictable"), 256 * 4096, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 256 * 4096, "{policy:?}");
        t.run("reclaim app 1M\n");
        t.check();
        // Nothing evictable: nothing scanned, nothing taken.
        assert_eq!((t.vm("pgscan_anon"), t.vm("pgsteal_anon"), t.vm("pswpout")), (0, 0, 0), "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 256, "{policy:?}");
        t.run("munlock t heap\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 256, 256, 256, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable")), (0, 0), "{policy:?}");
        assert_eq!(t.vm("nr_inactive_anon") + t.vm("nr_active_anon"), 256, "{policy:?}");
        // Now evictable: reclaim scans them.
        t.run("reclaim app 1M\n");
        t.check();
        assert!(t.vm("pgscan_anon") > 0, "{policy:?}");
    }
}

/// mlock of an untouched region populates it with write faults: 256
/// faults, each a new anon folio mlocked and culled at once
/// (`mlock_new_folio`). munmap then munlocks each (munlocked, rescued)
/// before freeing it: nothing is left mlocked, nothing is cleared.
#[test]
fn mlock_populates_and_munmap_munlocks() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t heap size=1M\n");
        let faults0 = t.vm("pgfault");
        t.run("mlock t heap\n");
        t.check();
        assert_eq!(t.vm("pgfault") - faults0, 256, "{policy:?}");
        assert_eq!(unev(&mut t), [256, 0, 0, 256, 0, 0, 0], "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 256, "{policy:?}");
        t.run("munmap t heap\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 256, 256, 256, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable"), t.vm("nr_anon_pages")), (0, 0, 0), "{policy:?}");
    }
}

/// `populate=y` without mlock: 256 write faults, evictable anon pages.
#[test]
fn map_populate_faults_every_page_in() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\n");
        let faults0 = t.vm("pgfault");
        t.run("anon t heap size=1M populate=y\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("pgfault") - faults0, 256, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 256 * 4096, "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 0, "{policy:?}");
        // A shared file mapping populates with read faults: with
        // readahead off, one major fault per page.
        t.run("file f size=64K readahead=0\nmmap t m file=f populate=y\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("pgmajfault"), 16, "{policy:?}");
        assert_eq!(t.vm("nr_mapped"), 16, "{policy:?}");
        assert_eq!(t.vm("nr_dirty"), 0, "{policy:?}");
    }
}

/// A file mapped and locked by two tasks: the first lock faults the 256
/// pages in, each mlocked while still in the add batch: the add batch
/// culls it (mlock_count 0), then its mlock batch entry counts it (1);
/// the second lock raises each folio's mlock_count to 2 without
/// counting. Unlocking one leaves them locked; unlocking both
/// brings them back (munlocked 256, rescued 256).
#[test]
fn mlock_count_of_a_file_locked_twice() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\ntask u memcg=app\nmmap t m file=f\nmlock t m\n");
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 0, 256, 0, 0, 0], "{policy:?}");
        assert_eq!(t.vm("pgmajfault"), 256, "{policy:?}");
        t.run("mmap u m file=f\nmlock u m\n");
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 0, 256, 0, 0, 0], "{policy:?}");
        assert_eq!(t.vm("nr_mapped"), 256, "{policy:?}");
        assert!((0..256).all(|p| {
            let pfn = t.folio_of("f", p).unwrap();
            t.k().mlock_count.get(&pfn) == Some(&2)
        }), "{policy:?}");
        t.run("munlock t m\n");
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 0, 256, 0, 0, 0], "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 256, "{policy:?}");
        t.run("munlock u m\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [256, 0, 256, 256, 256, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable")), (0, 0), "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 256 * 4096, "{policy:?}");
    }
}

/// Under memcg pressure the locked file pages stay: a 1 MiB file mapped
/// and locked beside a 16 MiB file read through a 4 MiB memcg. Reclaim
/// takes from the read file only; every locked page is still cached.
#[test]
fn mlocked_pages_are_not_reclaimed() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        let mut text = "memory 256M\nmemcg app max=4M\nfile lk size=1M readahead=0\nfile big size=16M readahead=0\ntask t memcg=app\nmmap t m file=lk\nmlock t m\n".to_string();
        text.extend((0..4096).map(|p| format!("read t big {p}\n")));
        t.run(&text);
        t.drain();
        t.check();
        assert!(t.vm("pgsteal_file") >= 4096 - 1024, "{policy:?}: {}", t.vm("pgsteal_file"));
        assert!((0..256).all(|p| t.folio_of("lk", p).is_some()), "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 256, "{policy:?}");
        assert_eq!(t.vm("nr_mlock"), 256, "{policy:?}");
    }
}

/// Truncating a locked, mapped file: the zap munlocks each page
/// (munlocked, rescued) before it leaves the page cache.
#[test]
fn truncate_of_a_locked_file() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=64K readahead=0\ntask t memcg=app\nmmap t m file=f\nmlock t m\ntruncate f 32K\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [16, 0, 8, 16, 8, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable")), (8, 8), "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 8 * 4096, "{policy:?}");
    }
}

/// mlock of a file mapping that reaches beyond the file's end (truncated
/// after the mapping was made): the populate stops at the end of the
/// file (the fault beyond it fails), so only its 8 pages are faulted in
/// and locked.
#[test]
fn mlock_populates_only_up_to_the_end_of_the_file() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=64K readahead=0\ntask t memcg=app\nmmap t m file=f\ntruncate f 32K\nmlock t m\n");
        t.check();
        assert_eq!(t.vm("pgmajfault"), 8, "{policy:?}");
        assert_eq!(unev(&mut t), [8, 0, 0, 8, 0, 0, 0], "{policy:?}");
        assert_eq!(t.k().files[0].nrpages, 8, "{policy:?}");
    }
}

/// MADV_DONTNEED of a locked region is refused (EINVAL: nothing is
/// zapped); after munlock it zaps as usual.
#[test]
fn dontneed_of_a_locked_region_does_nothing() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t heap size=64K\nmlock t heap\nadvise t heap dontneed\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "anon"), 16 * 4096, "{policy:?}");
        assert_eq!(t.vm("nr_unevictable"), 16, "{policy:?}");
        t.run("munlock t heap\nadvise t heap dontneed\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "anon"), 0, "{policy:?}");
        assert_eq!(unev(&mut t), [16, 0, 16, 16, 16, 0, 0], "{policy:?}");
    }
}

/// mlock of a region whose pages a fork shares breaks the sharing: the
/// parent's 16 written pages are mapped by the child too (mapcount 2,
/// write-protected). `mlock_vma_pages_range` mlocks the 16 present folios
/// (mlocked 16; culled 16 when the batch is applied), then populating a
/// private writable mapping faults each page for writing
/// (`populate_vma_page_range` sets FOLL_WRITE): 16 write-protect faults,
/// and as the child still maps each folio the parent gets a copy
/// (`wp_page_copy`), which `folio_add_lru_vma` mlocks as a new folio
/// (mlocked, culled: 16 more each), while removing the parent's mapping
/// of the original munlocks it (`munlock_vma_folio`): its mlock_count
/// drops to 0, PG_mlocked is cleared and it goes back to an evictable
/// list (munlocked 16, rescued 16). The child keeps the 16 originals,
/// evictable; the parent's 16 copies are locked: nr_mlock 16, 32 anon
/// folios, no reuse.
#[test]
fn mlock_after_fork_breaks_the_shared_pages() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M\nmemcg app\ntask p memcg=app\nanon p heap size=64K\nstore p heap 0 16\nfork p c\n");
        t.drain();
        t.check();
        let faults = t.vm("pgfault");
        assert_eq!(t.vm("nr_anon_pages"), 16, "{policy:?}");
        t.run("mlock p heap\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [32, 0, 16, 32, 16, 0, 0], "{policy:?}");
        assert_eq!((t.vm("nr_mlock"), t.vm("nr_unevictable")), (16, 16), "{policy:?}");
        assert_eq!((t.vm("pgfault") - faults, t.vm("pgreuse"), t.vm("nr_anon_pages")), (16, 0, 32), "{policy:?}");
        // The child's originals are evictable again and mapped once.
        assert_eq!(t.vm("nr_inactive_anon") + t.vm("nr_active_anon"), 16, "{policy:?}");
        // Its exit frees them; the parent's locked copies stay.
        t.run("exit c\n");
        t.drain();
        t.check();
        assert_eq!((t.vm("nr_anon_pages"), t.vm("nr_mlock")), (16, 16), "{policy:?}");
        assert_eq!(unev(&mut t), [32, 0, 16, 32, 16, 0, 0], "{policy:?}");
    }
}

/// populate touches the pages it faults in, not only those it finds
/// mapped: after `faultin_page` __get_user_pages goes back to `retry:`,
/// and follow_page_pte's `FOLL_TOUCH` marks the now-mapped page accessed.
/// 16 pages of a file mapped with populate=y (readahead off): 16 major
/// faults. Classic: every folio leaves with PG_referenced (the touch is
/// its first access; the fault marks nothing), so a read(2) of the 16
/// pages is each one's second access and queues it for activation
/// (pgactivate 16 when the batch drains). MGLRU: the fault adds the folio
/// with PG_active (`lru_gen_in_fault`), the touch sets PG_referenced while
/// it waits in the add batch (16 < 31: no drain before the end), and
/// `lru_gen_add_folio` clears both as it puts an active folio in the
/// youngest generation; the read then is its first access again.
/// Before the touch was modelled classic's read was the first access
/// (nothing activated), and mlock-under-pressure's classic LRU scanned
/// 14.7 % too few anon pages (the next test).
#[test]
fn populate_touches_the_pages_it_faults_in() {
    use mglru_core::folio::pg;
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=64K readahead=0\ntask t memcg=app\nmmap t m file=f populate=y\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("pgmajfault"), 16, "{policy:?}");
        for p in 0..16 {
            let pfn = t.folio_of("f", p).expect("populated");
            let f = *t.k().folios.get(pfn);
            assert!(!f.test(pg::ACTIVE) && f.refs_field() == 0, "{policy:?} page {p} flags {:#x}", f.flags);
            assert_eq!(f.test(pg::REFERENCED), policy == Policy::Classic, "{policy:?} page {p}");
        }
        assert_eq!(t.vm("pgactivate"), 0, "{policy:?}");
        t.run("read t f 0 16\n");
        t.drain();
        t.check();
        for p in 0..16 {
            let pfn = t.folio_of("f", p).unwrap();
            let f = *t.k().folios.get(pfn);
            match policy {
                Policy::Classic => assert!(f.test(pg::ACTIVE) && !f.test(pg::REFERENCED), "page {p}"),
                Policy::Mglru => assert!(f.test(pg::REFERENCED) && !f.test(pg::WORKINGSET), "page {p}"),
            }
        }
        let want = if policy == Policy::Classic { 16 } else { 0 };
        assert_eq!(t.vm("pgactivate"), want, "{policy:?}");
    }
}

/// The same through mlock, as mlock-under-pressure does to its file
/// mapping: the lock's populate faults each page in and touches it; the
/// add batch culls it to the unevictable list (`lru_add`: not evictable,
/// PG_active cleared) and munlock rescues it to the inactive list with
/// PG_referenced kept. Classic marks even an unevictable folio referenced,
/// so all 64 come back referenced and a read(2) activates each
/// (pgactivate 64); on the classic LRU's first reclaim scan their young
/// PTEs and PG_referenced would activate them the same way
/// (`folio_check_references`). MGLRU's `folio_inc_refs` leaves an
/// unevictable folio alone: pages 30 and 61 filled the add batch (31
/// entries), were culled before their touch and come back unreferenced;
/// the other 62 are referenced, so the read is their second access
/// (PG_workingset) and 30 and 61's first (PG_referenced).
#[test]
fn unlocked_populated_file_pages_come_back_referenced() {
    use mglru_core::folio::pg;
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=256K readahead=0\ntask t memcg=app\nmmap t m file=f\nmlock t m\nmunlock t m\n");
        t.drain();
        t.check();
        assert_eq!(unev(&mut t), [64, 0, 64, 64, 64, 0, 0], "{policy:?}");
        let batch_end = |p: u64| p == 30 || p == 61;
        for p in 0..64 {
            let pfn = t.folio_of("f", p).unwrap();
            let f = *t.k().folios.get(pfn);
            assert!(!f.test(pg::ACTIVE) && !f.test(pg::UNEVICTABLE), "{policy:?} page {p}");
            let want = policy == Policy::Classic || !batch_end(p);
            assert_eq!(f.test(pg::REFERENCED), want, "{policy:?} page {p}");
        }
        t.run("read t f 0 64\n");
        t.drain();
        t.check();
        let want = if policy == Policy::Classic { 64 } else { 0 };
        assert_eq!(t.vm("pgactivate"), want, "{policy:?}");
        if policy == Policy::Mglru {
            for p in 0..64 {
                let pfn = t.folio_of("f", p).unwrap();
                let f = *t.k().folios.get(pfn);
                assert!(f.test(pg::REFERENCED), "page {p}");
                assert_eq!(f.test(pg::WORKINGSET), !batch_end(p), "page {p}");
            }
        }
    }
}

