// SPDX-License-Identifier: GPL-2.0-only
//! `munmap`, `truncate` and `unlink` (mm/vma.c `unmap_region`,
//! mm/memory.c `zap_pte_range`, mm/truncate.c, fs/inode.c `evict`): what
//! goes and which counters move, worked out by hand, under both policies.

mod common;
use common::T;
use mglru_core::Policy;

const POLICIES: [Policy; 2] = [Policy::Classic, Policy::Mglru];

fn stat(t: &mut T, memcg: &str, name: &str) -> u64 {
    let m = t.memcg_id(memcg);
    t.k().memory_stat(m).iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no memory.stat {name}")).1
}

/// One anon region of 256 pages, written: 256 anon pages and three page
/// tables below the pgd (a PUD table, a PMD table, a leaf table: the
/// region is the only mapping); memory.stat's `pagetables` counts those
/// three (not the pgd: x86's pgd_alloc has no page-table constructor).
/// munmap frees every page and every table: the leaf table lies inside
/// the range, and no other mapping shares the span of the PMD table
/// (1 GiB) or of the PUD table (512 GiB).
#[test]
fn munmap_of_anon_frees_pages_and_page_tables() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 256\n");
        assert_eq!(stat(&mut t, "app", "anon"), 256 * 4096, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "pagetables"), 3 * 4096, "{policy:?}");
        let free0 = t.k().nr_free_and_pcp_pages();
        let pgfree0 = t.vm("pgfree");
        t.run("munmap t heap\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "anon"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "pagetables"), 0, "{policy:?}");
        assert_eq!(t.vm("nr_anon_pages"), 0, "{policy:?}");
        assert_eq!(t.k().nr_free_and_pcp_pages() - free0, 256 + 3, "{policy:?}");
        assert_eq!(t.vm("pgfree") - pgfree0, 256 + 3, "{policy:?}");
        let tid = 0;
        let task = &t.k().tasks[tid];
        assert_eq!((task.rss_anon, task.pgtables()), (0, 0), "{policy:?}: no table left");
    }
}

/// Two adjacent 1 MiB regions (each in its own 2 MiB-aligned slot, both
/// under one PMD table): 4 tables below the pgd. Unmapping the first
/// frees its leaf table only, the PMD and PUD tables still serve the
/// second; unmapping the second frees the rest.
#[test]
fn munmap_keeps_page_tables_a_neighbour_uses() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\ntask t memcg=app\nanon t a size=1M\nanon t b size=1M\nstore t a 0 1\nstore t b 0 1\n");
        assert_eq!(stat(&mut t, "app", "pagetables"), 4 * 4096, "{policy:?}");
        t.run("munmap t a\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "pagetables"), 3 * 4096, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 4096, "{policy:?}");
        t.run("munmap t b\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "pagetables"), 0, "{policy:?}");
        // The name may be mapped again, and used.
        t.run("anon t a size=1M\nstore t a 0 2\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "pagetables"), 3 * 4096, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon"), 2 * 4096, "{policy:?}");
    }
}

/// Anon pages pushed to swap by memory.reclaim: once their writeback is
/// over (a second later), munmap frees their swap slots and the
/// swap-cache folios (`free_swap_and_cache`), whatever the policy chose
/// to swap. (A folio still under writeback keeps its slot until it
/// leaves the swap cache, as in the kernel.)
#[test]
fn munmap_frees_swap_slots() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 256\nreclaim app 512K\nsleep 1s\n");
        let app = t.memcg_id("app");
        let swapped = t.k().memcgs[app as usize].swap_usage;
        assert!(swapped > 0, "{policy:?}: reclaim swapped nothing");
        t.run("munmap t heap\n");
        t.drain();
        t.check();
        assert_eq!(t.k().memcgs[app as usize].swap_usage, 0, "{policy:?}");
        assert_eq!({ let s = t.k().swap.as_ref().unwrap(); s.nr_pages() - s.nr_free }, 0, "{policy:?}");
        assert_eq!(t.k().tasks[0].swapents, 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "anon") + stat(&mut t, "app", "swapcached"), 0, "{policy:?}");
    }
}

/// A file mapping: munmap takes the PTEs (nr_mapped, file_mapped, rss
/// go to 0) but the page cache stays.
#[test]
fn munmap_of_a_file_mapping_keeps_the_page_cache() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M\ntask t memcg=app\nmmap t m file=f\nload t m 0 256\n");
        assert_eq!(t.vm("nr_mapped"), 256, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 256 * 4096, "{policy:?}");
        t.run("munmap t m\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("nr_mapped"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file_mapped"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 256 * 4096, "{policy:?}");
        assert_eq!(t.k().tasks[0].rss_file, 0, "{policy:?}");
    }
}

/// truncate to a smaller size: the pages at and beyond the new size go;
/// a partial last page stays (98305 bytes = 24 pages and one byte: 25
/// pages stay).
#[test]
fn truncate_removes_the_pages_beyond_the_new_size() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nread t f 0 256\n");
        assert_eq!(stat(&mut t, "app", "file"), 256 * 4096, "{policy:?}");
        t.run("truncate f 512K\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 128 * 4096, "{policy:?}");
        assert!(t.folio_of("f", 127).is_some() && t.folio_of("f", 128).is_none(), "{policy:?}");
        t.run("truncate f 98305\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 25 * 4096, "{policy:?}");
        assert_eq!(t.k().files[0].nrpages, 25, "{policy:?}");
        // Growing it back brings nothing in; reading does.
        t.run("truncate f 1M\nread t f 200 10\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 35 * 4096, "{policy:?}");
    }
}

/// Dirty pages truncated away are cleaned without being written:
/// nr_dirty and file_dirty go to 0, nr_dirtied keeps its 256, nothing is
/// written, and the buffer heads (112 bytes a page) leave the slab.
#[test]
fn truncate_cancels_dirty_pages_without_writing_them() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M\ntask t memcg=app\nwrite t f 0 256\n");
        assert_eq!(t.vm("nr_dirty"), 256, "{policy:?}");
        let slab0 = stat(&mut t, "app", "slab");
        t.run("truncate f 0\n");
        t.check();
        assert_eq!(t.vm("nr_dirty"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file_dirty"), 0, "{policy:?}");
        assert_eq!(t.vm("nr_dirtied"), 256, "{policy:?}");
        assert_eq!(t.vm("nr_written"), 0, "{policy:?}");
        // 256 buffer heads and the file's 4 xarray nodes (584 bytes).
        assert_eq!(slab0, 256 * 112 + 4 * 584, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "slab"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 0, "{policy:?}");
    }
}

/// Truncating a mapped file zaps the PTEs beyond the new end first
/// (`unmap_mapping_range`): nr_mapped and the task's rss drop with the
/// page cache.
#[test]
fn truncate_unmaps_the_mapped_pages_beyond_the_end() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M\ntask t memcg=app\nmmap t m file=f\nload t m 0 256\ntruncate f 512K\n");
        t.drain();
        t.check();
        assert_eq!(t.vm("nr_mapped"), 128, "{policy:?}");
        assert_eq!(t.k().tasks[0].rss_file, 128, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 128 * 4096, "{policy:?}");
    }
}

/// The nodes (64 pages) of file `f` that hold no resident page.
fn nodes_without_pages(t: &mut T, from_page: u64, to_page: u64) -> u64 {
    (from_page / 64..to_page / 64).filter(|n| (n * 64..(n + 1) * 64).all(|p| t.folio_of("f", p).is_none())).count() as u64
}

/// Shadow entries: an 8 MiB file read a page at a time through a 1 MiB
/// memcg leaves shadows in every page but the last ~250 (setup as in
/// tests/shadow.rs: nothing is trimmed). Truncating to 4 MiB removes the
/// second half, resident pages and shadows alike: the 16 nodes of the
/// first half, all shadow-only, are what is left — workingset_nodes 16,
/// and the memcg's slab is those 16 nodes (584 bytes each). Unlinking the
/// file then takes the rest: no node, no shadow, no slab.
#[test]
fn truncate_and_unlink_remove_shadow_entries() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        let mut text = "memory 256M\nmemcg app max=1M\nfile f size=8M readahead=0\ntask t memcg=app\n".to_string();
        text.extend((0..256).map(|p| format!("read t f {p} 1\n")));
        text.push_str("sleep 2500ms\n");
        text.extend((256..2048).map(|p| format!("read t f {p} 1\n")));
        t.run(&text);
        t.drain();
        let before = nodes_without_pages(&mut t, 0, 2048);
        assert!((28..=29).contains(&before), "{policy:?}: {before}");
        assert_eq!(t.vm("workingset_nodes"), before, "{policy:?}");
        assert_eq!(nodes_without_pages(&mut t, 0, 1024), 16, "{policy:?}");
        t.run("truncate f 4M\n");
        t.check();
        assert_eq!(t.vm("workingset_nodes"), 16, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "slab"), 16 * 584, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "file"), 0, "{policy:?}");
        t.run("unlink f\n");
        t.check();
        assert_eq!(t.vm("workingset_nodes"), 0, "{policy:?}");
        assert_eq!(stat(&mut t, "app", "slab"), 0, "{policy:?}");
        assert!((0..2048).all(|p| t.k().files[0].cache.get(p) == 0), "{policy:?}");
    }
}

/// unlink of a mapped file: the page cache lives while the mapping does
/// (the mapping still works), and goes with the munmap; a new file of the
/// same name is a new file.
#[test]
fn unlink_of_a_mapped_file_waits_for_the_last_mapping() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app\nmmap t m file=f\nload t m 0 64\nunlink f\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 64 * 4096, "{policy:?}");
        t.run("load t m 64 64\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 128 * 4096, "{policy:?}");
        t.run("munmap t m\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 0, "{policy:?}");
        assert_eq!(t.vm("nr_mapped"), 0, "{policy:?}");
        t.run("file f size=64K\nread t f 0 16\n");
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 16 * 4096, "{policy:?}");
        assert_eq!(t.file_id("f"), 1, "{policy:?}");
    }
}

/// The last mapping can also go with the task's exit.
#[test]
fn unlink_then_exit_evicts_the_file() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app\nfile f size=1M\ntask t memcg=app\nmmap t m file=f\nstore t m 0 8\nunlink f\n");
        assert_eq!(t.vm("nr_dirty"), 8, "{policy:?}");
        t.run("exit t\n");
        t.drain();
        t.check();
        assert_eq!(stat(&mut t, "app", "file"), 0, "{policy:?}");
        assert_eq!(t.vm("nr_dirty"), 0, "{policy:?}");
        assert!(t.k().dirty_inodes.is_empty(), "{policy:?}");
    }
}
