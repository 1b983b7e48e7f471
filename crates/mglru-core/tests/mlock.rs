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
