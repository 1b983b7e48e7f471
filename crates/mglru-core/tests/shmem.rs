// SPDX-License-Identifier: GPL-2.0-only
//! Shmem (mm/shmem.c): tmpfs files, memfds and shared anonymous mappings,
//! their counters worked out by hand from 6.12's rules, under both
//! policies: swap-backed page cache on the anon LRU, charged as `file`
//! and `shmem`, never written back by the flusher, swapped out only by
//! reclaim and read back through the swap cache.

mod common;
use common::T;
use mglru_core::Policy;

const POLICIES: [Policy; 2] = [Policy::Classic, Policy::Mglru];
const PAGE: u64 = 4096;

fn stat(t: &mut T, memcg: &str, name: &str) -> u64 {
    let m = t.memcg_id(memcg);
    t.k().memory_stat(m).iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no memory.stat {name}")).1
}

fn swap_current(t: &mut T, memcg: &str) -> u64 {
    let m = t.memcg_id(memcg);
    t.k().memcgs[m as usize].swap_usage
}

/// 100 pages written to a tmpfs file: 100 shmem folios, in the page
/// cache (`file` and `shmem` 100 pages each, `nr_file_pages` and
/// `nr_shmem` 100), on the anon LRU (`inactive_anon + active_anon` 100,
/// the file lists empty), not `anon` (nothing is mapped), and not dirty
/// for the flusher (`nr_dirty` 0): a minute later nothing was written.
#[test]
fn tmpfs_write_is_swap_backed_page_cache() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M sync=y\nmemcg app\nfile shm size=1M tmpfs=y\ntask t memcg=app\nwrite t shm 0 100\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 100 * PAGE, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "shmem"), 100 * PAGE, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file_dirty"), 0, "{policy:?}");
        let anon_lru = stat(&mut t, "app", "inactive_anon") + stat(&mut t, "app", "active_anon");
        let file_lru = stat(&mut t, "app", "inactive_file") + stat(&mut t, "app", "active_file");
        assert_eq!((anon_lru, file_lru), (100 * PAGE, 0), "{policy:?}");
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_dirty")), (100, 100, 0), "{policy:?}");
        t.run("sleep 60s\n");
        t.check();
        assert_eq!((t.vm("nr_written"), t.vm("pgpgout"), t.vm("pswpout")), (0, 0, 0), "{policy:?}: no flusher for shmem");
        assert_eq!(t.vm("nr_shmem"), 100, "{policy:?}");
    }
}

/// Reading holes of a tmpfs file allocates nothing (`SGP_READ` reads
/// zeroes); a load through a mapping of it faults a folio in for each
/// page (`SGP_CACHE`): 10 minor faults, 10 shmem folios, `file_mapped` 10
/// pages, no major fault. A memfd is the same file without a name.
#[test]
fn holes_read_as_zeroes_and_faults_allocate() {
    for policy in POLICIES {
        for kind in ["tmpfs=y", "memfd=y"] {
            let mut t = T::new(policy);
            t.run(&format!("memory 256M\nmemcg app\nfile shm size=1M {kind}\ntask t memcg=app\nread t shm 0 256\n"));
            t.check();
            assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("pgpgin")), (0, 0, 0), "{policy:?} {kind}");
            let faults = t.vm("pgfault");
            t.run("mmap t m file=shm\nload t m 0 10\n");
            t.drain();
            t.check();
            assert_eq!(t.vm("pgfault") - faults, 10, "{policy:?} {kind}");
            assert_eq!(t.vm("pgmajfault"), 0, "{policy:?} {kind}");
            assert_eq!(t.vm("nr_shmem"), 10, "{policy:?} {kind}");
            assert_eq!(stat(&mut t, "app", "file_mapped"), 10 * PAGE, "{policy:?} {kind}");
            assert_eq!(stat(&mut t, "app", "shmem"), 10 * PAGE, "{policy:?} {kind}");
        }
    }
}

/// MAP_SHARED|MAP_ANONYMOUS is shmem: 100 stored pages are `shmem`,
/// `file` and `file_mapped`, not `anon` (`nr_anon_pages` 0). munmap drops
/// the only reference to its shmem file, whose 100 pages are freed.
#[test]
fn shared_anonymous_mapping_is_shmem() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t sh size=1M shared=y\nstore t sh 0 100\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "shmem"), 100 * PAGE, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 100 * PAGE, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file_mapped"), 100 * PAGE, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 0, "{policy:?}");
        assert_eq!((t.vm("nr_anon_pages"), t.vm("nr_mapped"), t.vm("nr_shmem")), (0, 100, 100), "{policy:?}");
        let free = t.k().nr_free_and_pcp_pages();
        let pgfree = t.vm("pgfree");
        t.run("munmap t sh\n");
        t.check();
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_mapped")), (0, 0, 0), "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 0, "{policy:?}");
        // 100 folios and the three page tables of the only mapping.
        assert_eq!(t.k().nr_free_and_pcp_pages() - free, 103, "{policy:?}");
        assert_eq!(t.vm("pgfree") - pgfree, 103, "{policy:?}");
    }
}

/// memory.reclaim of 100 pages from a memcg whose only pages are 100
/// dirty tmpfs pages, on a synchronous swap device: each goes through
/// shmem_writepage (`nr_vmscan_write`, `pswpout` 100) into the swap
/// cache, is written at once and leaves the swap cache with a shadow:
/// `shmem` and `file` 0, `swapcached` 0, `memory.swap.current` 100 pages.
/// Reading the file back takes every page from swap once (`pswpin` 100;
/// the cluster readahead reads some ahead, each of which the next reads
/// hit: `swap_ra` = `swap_ra_hit`), each with the shadow its eviction
/// left (`workingset_refault_anon` 100: shmem refaults are anon's), and
/// each slot is freed as its page returns to the page cache
/// (`memory.swap.current` 0); read(2) counts no major faults.
#[test]
fn reclaim_swaps_shmem_out_and_a_read_brings_it_back() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M sync=y\nmemcg app\nfile shm size=1M tmpfs=y\ntask t memcg=app\nwrite t shm 0 100\nreclaim app 400K\n");
        t.check();
        assert_eq!((t.vm("pswpout"), t.vm("nr_vmscan_write")), (100, 100), "{policy:?}");
        assert_eq!(t.vm("pgsteal_anon"), 100, "{policy:?}");
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_swapcached")), (0, 0, 0), "{policy:?}");
        assert_eq!(stat(&mut t, "app", "shmem"), 0, "{policy:?}");
        assert_eq!(swap_current(&mut t, "app"), 100, "{policy:?}");
        let fid = t.file_id("shm");
        assert_eq!(t.k().files[fid as usize].swapped, 100, "{policy:?}");
        t.run("read t shm 0 100\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("pswpin"), 100, "{policy:?}");
        assert_eq!(t.vm("workingset_refault_anon"), 100, "{policy:?}");
        assert_eq!(t.vm("workingset_refault_file"), 0, "{policy:?}");
        assert_eq!(t.vm("swap_ra"), t.vm("swap_ra_hit"), "{policy:?}");
        assert_eq!(t.vm("pgmajfault"), 0, "{policy:?}");
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_swapcached")), (100, 0), "{policy:?}");
        assert_eq!(swap_current(&mut t, "app"), 0, "{policy:?}");
        assert_eq!(t.k().files[fid as usize].swapped, 0, "{policy:?}");
    }
}

/// A swapped-out tmpfs file truncated to half frees the swap slots of
/// the pages beyond the end (50); its unlink, with nothing mapping it,
/// frees the rest. A store through a mapping of a swapped page is a
/// major fault that reads it back.
#[test]
fn truncate_and_unlink_free_swap_slots() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M sync=y\nmemcg app\nfile shm size=400K tmpfs=y\ntask t memcg=app\nwrite t shm 0 100\nreclaim app 400K\n");
        assert_eq!(swap_current(&mut t, "app"), 100, "{policy:?}");
        t.run("truncate shm 200K\n");
        t.check();
        assert_eq!(swap_current(&mut t, "app"), 50, "{policy:?}");
        let pswpin = t.vm("pswpin");
        t.run("mmap t m file=shm\nstore t m 7\nmunmap t m\n");
        t.check();
        assert!(t.vm("pswpin") > pswpin, "{policy:?}");
        assert_eq!(t.vm("pgmajfault"), 1, "{policy:?}");
        assert_eq!(t.vm("nr_shmem") + t.vm("nr_swapcached"), t.vm("pswpin") - pswpin, "{policy:?}");
        t.run("unlink shm\n");
        t.check();
        assert_eq!(swap_current(&mut t, "app"), 0, "{policy:?}");
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_swapcached")), (0, 0, 0), "{policy:?}");
    }
}

/// Without swap shmem cannot be reclaimed: memory.reclaim of a memcg
/// holding only tmpfs pages reclaims nothing and returns -EAGAIN.
#[test]
fn without_swap_shmem_stays() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile shm size=1M tmpfs=y\ntask t memcg=app\nwrite t shm 0 100\nreclaim app 400K\n");
        t.check();
        assert_eq!((t.vm("nr_shmem"), t.vm("pswpout")), (100, 0), "{policy:?}");
        let r = t.k().reclaim_results.last().unwrap().clone();
        assert_eq!((r.reclaimed, r.result), (0, -11), "{policy:?}");
    }
}

/// A shmem page faulted in by a load and never stored to is clean (all
/// zeroes): reclaim drops it without swapping it (a hole again, no
/// shadow), so 50 such pages reclaimed write nothing to swap.
#[test]
fn clean_shmem_is_dropped_not_swapped() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M sync=y\nmemcg app\nfile shm size=200K tmpfs=y\ntask t memcg=app\nmmap t m file=shm\nload t m 0 50\nmunmap t m\nreclaim app 200K\n");
        t.check();
        assert_eq!(t.vm("pgsteal_anon"), 50, "{policy:?}");
        assert_eq!((t.vm("pswpout"), t.vm("nr_shmem")), (0, 0), "{policy:?}");
        assert_eq!(swap_current(&mut t, "app"), 0, "{policy:?}");
        // Read again: holes, nothing allocated, no refault.
        t.run("read t shm 0 50\n");
        assert_eq!((t.vm("nr_shmem"), t.vm("workingset_refault_anon")), (0, 0), "{policy:?}");
    }
}

/// A tmpfs file twice the memcg's limit, written on a synchronous swap
/// device: whatever is not resident is on swap, every page exactly once
/// (`nr_shmem` + the file's swap entries = 1024), the memcg's swap charge
/// is those entries, and nothing was OOM-killed.
#[test]
fn tmpfs_under_memcg_pressure_swaps() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M sync=y\nmemcg app max=2M\nfile shm size=4M tmpfs=y\ntask t memcg=app\nwrite t shm 0 1024\n");
        t.drain();
        t.check();
        let fid = t.file_id("shm");
        let swapped = t.k().files[fid as usize].swapped;
        assert_eq!(t.vm("nr_shmem") + swapped, 1024, "{policy:?}");
        assert!(t.vm("nr_shmem") <= 512, "{policy:?}");
        assert_eq!(swap_current(&mut t, "app"), swapped + t.vm("nr_swapcached"), "{policy:?}");
        assert_eq!(t.vm("oom_kill"), 0, "{policy:?}");
    }
}
