// SPDX-License-Identifier: GPL-2.0-only
//! fork and copy-on-write (kernel/fork.c `dup_mmap`, mm/memory.c
//! `copy_page_range`, `do_wp_page`, `do_swap_page`, mm/rmap.c): shared
//! anon pages, their mapcounts and swap counts, the rmap walk over both
//! processes, and the counters worked out by hand from 6.12's rules, under
//! both policies.

mod common;
use common::T;
use mglru_core::mm::pte;
use mglru_core::Policy;

const POLICIES: [Policy; 2] = [Policy::Classic, Policy::Mglru];
const PAGE: u64 = 4096;

fn stat(t: &mut T, memcg: &str, name: &str) -> u64 {
    let m = t.memcg_id(memcg);
    t.k().memory_stat(m).iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no memory.stat {name}")).1
}

/// The PTE of page `page` of region `region`.
fn pte_of(t: &mut T, region: u32, page: u64) -> u32 {
    let k = t.k();
    let v = &k.vmas[region as usize];
    let pgd = k.tasks[v.task as usize].pgd;
    k.pt.get(pgd, v.va(page))
}

/// (rss_anon, swapents) of task `task`.
fn rss(t: &mut T, task: u32) -> (u64, u64) {
    let k = t.k();
    (k.tasks[task as usize].rss_anon, k.tasks[task as usize].swapents)
}

/// Swap PTE references over all slots, and slots in use.
fn swap_refs(t: &mut T) -> (u64, u64) {
    let sw = t.k().swap.as_ref().unwrap();
    (sw.count.iter().map(|&c| u64::from(c)).sum(), sw.nr_pages() - sw.nr_free)
}

const SETUP: &str = "memory 256M\nswap 64M sync=y\nsysctl vm.page-cluster=0\nmemcg app\ntask p memcg=app\nanon p heap size=64K\nstore p heap 0 16\n";

/// Fork shares the parent's 16 written pages: no fault, no new page; each
/// folio is mapped twice (both PTEs write-protected, the child's old),
/// `nr_anon_pages` still counts 16 folios, and each task's rss is 16.
/// A store by the child then takes a write-protect fault per page
/// (pgfault +16) and copies each (16 new pages, charged to the child's
/// memcg, here another one: `task c memcg=other` moved it after the
/// fork); the parent's pages are left with one mapping each. The
/// parent's store faults too (its PTEs are still write-protected): each
/// page has one reference (the parent's mapping; the batch that held the
/// new folios was drained when the child's copies filled it), so it is
/// reused, not copied: pgreuse +16, no new page. A second store faults
/// no more.
#[test]
fn both_sides_store_after_fork() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run(SETUP);
        let (faults, pages) = (t.vm("pgfault"), t.vm("nr_anon_pages"));
        assert_eq!(pages, 16, "{policy:?}");
        t.run("memcg other\nfork p c\ntask c memcg=other\n");
        t.check();
        assert_eq!((t.vm("pgfault"), t.vm("nr_anon_pages")), (faults, 16), "{policy:?}");
        assert_eq!((rss(&mut t, 0), rss(&mut t, 1)), ((16, 0), (16, 0)), "{policy:?}");
        for page in [0, 7, 15] {
            let (pp, cp) = (pte_of(&mut t, 0, page), pte_of(&mut t, 1, page));
            assert_eq!(pp & pte::VALUE, cp & pte::VALUE, "{policy:?}: the same folio");
            assert_eq!((pp & pte::WRPROT, cp & pte::WRPROT), (pte::WRPROT, pte::WRPROT), "{policy:?}");
            assert_eq!((pp & pte::YOUNG, cp & pte::YOUNG), (pte::YOUNG, 0), "{policy:?}: the copy is old");
            assert_eq!(t.k().folios.get(pp & pte::VALUE).mapcount, 2, "{policy:?}");
        }
        assert_eq!(stat(&mut t, "app", "anon"), 16 * PAGE, "{policy:?}");

        t.run("store c heap 0 16\n");
        t.check();
        assert_eq!(t.vm("pgfault") - faults, 16, "{policy:?}");
        assert_eq!((t.vm("nr_anon_pages"), t.vm("pgreuse")), (32, 0), "{policy:?}");
        assert_eq!((stat(&mut t, "app", "anon"), stat(&mut t, "other", "anon")), (16 * PAGE, 16 * PAGE), "{policy:?}");
        let (pp, cp) = (pte_of(&mut t, 0, 3), pte_of(&mut t, 1, 3));
        assert_ne!(pp & pte::VALUE, cp & pte::VALUE, "{policy:?}");
        assert_eq!(cp & (pte::WRPROT | pte::DIRTY), pte::DIRTY, "{policy:?}: the copy is writable and dirty");
        assert_eq!(t.k().folios.get(pp & pte::VALUE).mapcount, 1, "{policy:?}");

        t.run("store p heap 0 16\n");
        t.check();
        assert_eq!(t.vm("pgfault") - faults, 32, "{policy:?}");
        assert_eq!((t.vm("nr_anon_pages"), t.vm("pgreuse")), (32, 16), "{policy:?}");
        assert_eq!(pte_of(&mut t, 0, 3), (pp & !pte::WRPROT) | pte::YOUNG | pte::DIRTY, "{policy:?}: reused in place, writable, young and dirty");
        t.run("store p heap 0 16\nstore c heap 0 16\n");
        assert_eq!(t.vm("pgfault") - faults, 32, "{policy:?}");
    }
}

/// Fork, then reclaim everything: each shared folio is unmapped from both
/// processes before it is written, once (pswpout 16, not 32); both PTEs
/// become swap entries for its slot (swap count 2: 32 references on 16
/// slots; swapents 16 each); `nr_anon_pages` drops to 0.
///
/// With `vm.page-cluster=0` each swap-in reads one page. The child loads
/// the 16 pages: 16 major faults, pswpin 16; each folio stays in the swap
/// cache and its slot stays used (the parent's swap PTE still refers to
/// it: 16 references left), and the child maps it read-only (not
/// exclusive, and the swap cache holds a reference). The child's stores
/// then copy (the swap copy cannot go while the parent refers to the
/// slot): 16 new pages, no reuse; the old folios stay in the swap cache,
/// unmapped. The parent's loads find them there (no major fault, no
/// pswpin) and map them read-only; its stores drop the swap copies (no
/// reference left) and reuse the folios: pgreuse 16, every slot free.
#[test]
fn reclaim_after_fork_swaps_each_page_once_and_keeps_shared_slots() {
    for policy in POLICIES {
        for zram in [false, true] {
            let mut t = T::new(policy);
            let setup = if zram { SETUP.replace("swap 64M sync=y", "swap 64M zram=y ratio=4") } else { SETUP.to_string() };
            t.run(&setup);
            t.run("fork p c\nreclaim app 1M\n");
            t.check();
            let what = format!("{policy:?} zram={zram}");
            assert_eq!((t.vm("pswpout"), t.vm("nr_anon_pages")), (16, 0), "{what}");
            assert_eq!((rss(&mut t, 0), rss(&mut t, 1)), ((0, 16), (0, 16)), "{what}");
            assert_eq!(swap_refs(&mut t), (32, 16), "{what}");
            let (pp, cp) = (pte_of(&mut t, 0, 5), pte_of(&mut t, 1, 5));
            assert!(pte::is_swap(pp) && pp == cp && pp & pte::SWP_EXCLUSIVE == 0, "{what}: {pp:#x} {cp:#x}");
            let stored = |t: &mut T| t.k().swap.as_ref().unwrap().nr_stored;
            if zram {
                assert_eq!(stored(&mut t), 16, "{what}");
            }

            let (faults, maj) = (t.vm("pgfault"), t.vm("pgmajfault"));
            t.run("load c heap 0 16\n");
            t.check();
            assert_eq!((t.vm("pgfault") - faults, t.vm("pgmajfault") - maj, t.vm("pswpin")), (16, 16, 16), "{what}");
            assert_eq!(swap_refs(&mut t), (16, 16), "{what}: the slots stay");
            assert_eq!((t.vm("nr_swapcached"), t.vm("nr_anon_pages")), (16, 16), "{what}");
            assert_eq!((rss(&mut t, 0), rss(&mut t, 1)), ((0, 16), (16, 0)), "{what}");
            assert_eq!(pte_of(&mut t, 1, 5) & pte::WRPROT, pte::WRPROT, "{what}");
            if zram {
                assert_eq!(stored(&mut t), 16, "{what}: zram keeps the data while a PTE refers to the slot");
            }

            t.run("store c heap 0 16\n");
            t.check();
            assert_eq!((t.vm("pgfault") - faults, t.vm("pgreuse")), (32, 0), "{what}");
            assert_eq!((t.vm("nr_swapcached"), t.vm("nr_anon_pages"), swap_refs(&mut t)), (16, 16, (16, 16)), "{what}");

            t.run("load p heap 0 16\n");
            t.check();
            assert_eq!((t.vm("pgfault") - faults, t.vm("pgmajfault") - maj, t.vm("pswpin")), (48, 16, 16), "{what}");
            assert_eq!((t.vm("nr_anon_pages"), swap_refs(&mut t)), (32, (0, 16)), "{what}");

            t.run("store p heap 0 16\n");
            t.check();
            assert_eq!((t.vm("pgfault") - faults, t.vm("pgreuse")), (64, 16), "{what}");
            assert_eq!((t.vm("nr_swapcached"), t.vm("nr_anon_pages"), swap_refs(&mut t)), (0, 32, (0, 0)), "{what}");
            if zram {
                assert_eq!(stored(&mut t), 0, "{what}");
            }
        }
    }
}

/// The parent's exit frees nothing the child maps: the 16 shared folios
/// lose one mapping each (nr_anon_pages stays 16) and pgfree counts only
/// the parent's page tables (PUD, PMD and PTE table: 3). The child's
/// stores then find itself the only user: 16 write-protect faults, all
/// reused, no new page. Likewise after a reclaim: the parent's exit drops
/// one reference per slot and the slots stay (16) until the child exits.
#[test]
fn exit_of_either_side_unmaps_only_its_own() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run(SETUP);
        t.run("fork p c\n");
        let free0 = t.vm("pgfree");
        t.run("exit p\n");
        t.check();
        assert_eq!((t.vm("pgfree") - free0, t.vm("nr_anon_pages")), (3, 16), "{policy:?}");
        let faults = t.vm("pgfault");
        t.run("store c heap 0 16\n");
        t.check();
        assert_eq!((t.vm("pgfault") - faults, t.vm("pgreuse"), t.vm("nr_anon_pages")), (16, 16, 16), "{policy:?}");

        let mut t = T::new(policy);
        t.run(SETUP);
        t.run("fork p c\nreclaim app 1M\n");
        assert_eq!(swap_refs(&mut t), (32, 16), "{policy:?}");
        t.run("exit p\n");
        t.check();
        assert_eq!(swap_refs(&mut t), (16, 16), "{policy:?}");
        t.run("exit c\n");
        t.check();
        assert_eq!(swap_refs(&mut t), (0, 0), "{policy:?}");
    }
}

/// A slot's last swap PTE goes with the parent's exit while the child
/// maps the page it swapped in (the folio in the swap cache, the slot
/// kept for the parent's swap PTE). 6.12's `free_swap_and_cache_nr` then
/// tries `__try_to_reclaim_swap(TTRS_UNMAPPED | TTRS_FULL)`: the folio is
/// mapped, so it leaves the swap cache only when swap is full for its
/// memcg (`mem_cgroup_swap_full`: `app`'s swap usage × 2 ≥ its swap.max,
/// here 64K, 16 pages). The exit zaps pages 0 to 15 in order: at usage
/// 16, 15, ..., 8 swap is full and the folio leaves the swap cache, its
/// slot freed (uncharged: usage one less), the child keeping the page,
/// dirty (a later reclaim writes it out again); at usage 7 (14 < 16) it is
/// not, and the last 7 folios stay cached with their slots, no PTE
/// referring to them. Without a swap.max all 16 stay. (The classic LRU:
/// the multi-gen LRU does not swap at all with fewer than MIN_LRU_BATCH,
/// 64, swap pages left to the memcg — `get_swappiness` is 0 — which the
/// last lines check; the zap path is the same for both.)
#[test]
fn the_last_swap_pte_drops_a_mapped_folio_from_the_swap_cache_when_swap_is_full() {
    let mut t = T::new(Policy::Mglru);
    t.run(&SETUP.replace("memcg app\n", "memcg app swap.max=64K\n"));
    t.run("fork p c\nreclaim app 1M\n");
    assert_eq!((t.vm("pswpout"), t.vm("nr_anon_pages")), (0, 16), "MGLRU: 16 swap pages < MIN_LRU_BATCH");
    for policy in [Policy::Classic] {
        for (max, full) in [("64K", true), ("max", false)] {
            let mut t = T::new(policy);
            t.run(&SETUP.replace("memcg app\n", &format!("memcg app swap.max={max}\n")));
            t.run("fork p c\nreclaim app 1M\nload c heap 0 16\n");
            t.check();
            let what = format!("{policy:?} swap.max={max}");
            assert_eq!((t.vm("nr_swapcached"), swap_refs(&mut t)), (16, (16, 16)), "{what}");
            t.run("exit p\n");
            t.check();
            assert_eq!(rss(&mut t, 1), (16, 0), "{what}");
            if full {
                assert_eq!((t.vm("nr_swapcached"), swap_refs(&mut t)), (7, (0, 7)), "{what}");
                let e = pte_of(&mut t, 1, 5);
                assert!(e & pte::PRESENT != 0, "{what}");
                let dirty = t.k().folios.get(e & pte::VALUE).test(mglru_core::folio::pg::DIRTY);
                assert!(dirty, "{what}: the folio is dirty, its only copy in memory");
            } else {
                assert_eq!((t.vm("nr_swapcached"), swap_refs(&mut t)), (16, (0, 16)), "{what}");
            }
        }
    }
}

/// folio_referenced walks every mapping: after the fork the parent's PTE
/// is young (its store) and the child's old; once the child loads the
/// page both are young, and the walk finds 2 and clears both; a second
/// walk finds none. try_to_unmap (through reclaim, above) takes both.
#[test]
fn the_rmap_walk_visits_parent_and_child() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run(SETUP);
        t.run("fork p c\n");
        let pfn = pte_of(&mut t, 0, 2) & pte::VALUE;
        assert_eq!(t.k().folio_referenced(pfn, None), 1, "{policy:?}");
        t.run("load p heap 2\nload c heap 2\n");
        assert_eq!(t.k().folio_referenced(pfn, None), 2, "{policy:?}");
        assert_eq!((pte_of(&mut t, 0, 2) & pte::YOUNG, pte_of(&mut t, 1, 2) & pte::YOUNG), (0, 0), "{policy:?}");
        assert_eq!(t.k().folio_referenced(pfn, None), 0, "{policy:?}");
    }
}

/// A fork of a fork: the grandchild is linked to both anon_vmas above it,
/// so a page all three share is found in all three (mapcount 3), and one
/// reclaim unmaps all three PTEs (swap count 3). A page the child wrote
/// after the first fork is its own (its anon_vma): the grandchild shares
/// it (mapcount 2), the parent does not.
#[test]
fn a_fork_of_a_fork_shares_with_both() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run(SETUP);
        t.run("fork p c\nstore c heap 0\nfork c g\n");
        t.check();
        let shared = pte_of(&mut t, 0, 1) & pte::VALUE;
        assert_eq!(t.k().folios.get(shared).mapcount, 3, "{policy:?}");
        let own = pte_of(&mut t, 1, 0) & pte::VALUE;
        assert_eq!(pte_of(&mut t, 2, 0) & pte::VALUE, own, "{policy:?}");
        assert_eq!(t.k().folios.get(own).mapcount, 2, "{policy:?}");
        t.run("reclaim app 1M\n");
        t.check();
        // 15 pages shared by three, page 0 in the parent alone (its
        // original) and page 0 shared by child and grandchild: 17 folios.
        assert_eq!(t.vm("pswpout"), 17, "{policy:?}");
        assert_eq!(swap_refs(&mut t), (15 * 3 + 1 + 2, 17), "{policy:?}");
    }
}

/// Fork copies no PTE of a shared file mapping (no anon_vma: the child
/// faults its pages in itself) and none of an anon region that only
/// ever read the zero page.
#[test]
fn file_mappings_and_untouched_regions_are_not_copied() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\nfile f size=64K\ntask p\nmmap p m file=f\nanon p z size=64K\nload p m 0 16\nload p z 0 16\nfork p c\n");
        t.check();
        assert_eq!((pte_of(&mut t, 2, 3), pte_of(&mut t, 3, 3)), (0, 0), "{policy:?}");
        let faults = t.vm("pgfault");
        t.run("load c m 0 16\n");
        t.check();
        // Fault-around maps all 16 cached pages on the first fault.
        assert_eq!(t.vm("pgfault") - faults, 1, "{policy:?}");
        assert_eq!(t.vm("nr_mapped"), 16, "{policy:?}");
    }
}

/// Shared mappings of shmem are shared, not copied: a
/// MAP_SHARED|MAP_ANONYMOUS region (region 0, its shmem file behind it)
/// and a mapping of a tmpfs file (region 1), 16 pages written through
/// each (32 write faults, 32 shmem pages). The fork copies no PTE of
/// either (`vma_needs_copy`: no anon_vma), so the child's regions 2 and 3
/// start empty. The child's 16 stores to its copy of the shared anonymous
/// region fault each page in from the same shmem file (16 write faults,
/// no fault-around on a write, no copy: no new page, no pgreuse, each
/// folio now mapped twice); its load of the tmpfs mapping is one read
/// fault whose fault-around maps all 16 cached pages. The parent's exit
/// frees nothing (the child maps both); the child's exit takes the last
/// mapping of the anonymous region's shmem file, whose 16 pages go, while
/// the tmpfs file keeps its 16 unmapped.
#[test]
fn shared_shmem_mappings_are_shared_by_fork() {
    for policy in POLICIES {
        let mut t = T::new(policy);
        t.run("memory 256M\ntask p\nanon p s size=64K shared=y\nfile t size=64K tmpfs=y\nmmap p m file=t\nstore p s 0 16\nstore p m 0 16\n");
        assert_eq!((t.vm("pgfault"), t.vm("nr_shmem"), t.vm("nr_anon_pages")), (32, 32, 0), "{policy:?}");
        t.run("fork p c\n");
        t.check();
        assert_eq!((pte_of(&mut t, 2, 0), pte_of(&mut t, 3, 0)), (0, 0), "{policy:?}");
        t.run("store c s 0 16\nload c m 0 16\n");
        t.drain();
        t.check();
        assert_eq!((t.vm("pgfault"), t.vm("pgreuse")), (32 + 16 + 1, 0), "{policy:?}");
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_anon_pages"), t.vm("nr_mapped")), (32, 32, 0, 32), "{policy:?}");
        let pp = pte_of(&mut t, 0, 5);
        let pc = pte_of(&mut t, 2, 5);
        assert_eq!(pp & pte::VALUE, pc & pte::VALUE, "{policy:?}: both map one folio");
        assert_eq!(t.k().folios.get(pp & pte::VALUE).mapcount, 2, "{policy:?}");
        t.run("exit p\n");
        t.check();
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_mapped")), (32, 32), "{policy:?}");
        t.run("exit c\n");
        t.check();
        assert_eq!((t.vm("nr_shmem"), t.vm("nr_file_pages"), t.vm("nr_mapped")), (16, 16, 0), "{policy:?}");
    }
}

/// The child is in the parent's memcg with its oom_score_adj; a pinned
/// parent's child runs on the parent's CPU (inherited affinity), an
/// unpinned parent's is placed like any new task (ids round-robin over
/// the CPUs: task 1 on CPU 1).
#[test]
fn the_child_inherits_memcg_adj_and_affinity() {
    let mut t = T::classic();
    t.run("memory 256M\ncpus 2\nmemcg app\ntask p memcg=app cpu=0 oom_score_adj=300\ntask q\nfork p c\nfork q d\n");
    t.check();
    let app = t.memcg_id("app");
    let k = t.k();
    let (c, d) = (&k.tasks[2], &k.tasks[3]);
    assert_eq!((c.memcg, c.oom_score_adj, c.cpu, c.pinned), (app, 300, 0, true));
    assert_eq!((d.memcg, d.oom_score_adj, d.cpu, d.pinned), (0, 0, 1, false));
}

/// Random traces of forks, stores, loads, reclaim, munmap, dontneed,
/// mlock, task moves and exits over a small machine with each kind of
/// swap device: the accounting invariants (mapcounts, swap counts,
/// rss and swap entries per task, charges) hold after every line, under
/// both policies, and a run repeats bit for bit.
#[test]
fn random_fork_traces_keep_the_invariants() {
    struct Rng(mglru_core::rng::Rng);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0.next_u64() % n
        }
    }
    for seed in 1..=12u64 {
        let mut r = Rng(mglru_core::rng::Rng::from_state(seed * 7919));
        let mut t = String::from("memory 32M\n");
        t.push_str(["", "swap 16M\n", "swap 16M sync=y\n", "swap 16M zram=y ratio=3\n"][r.below(4) as usize]);
        t.push_str(&format!("sysctl vm.page-cluster={}\n", r.below(4)));
        t.push_str(&format!("memcg a max={}M\nmemcg b max={}M\n", 2 + r.below(6), 2 + r.below(6)));
        // Per task: alive, heap pages (0: unmapped).
        let mut tasks: Vec<(bool, u64)> = vec![(true, 256 + r.below(1024))];
        t.push_str(&format!("task t0 memcg=a\nanon t0 heap size={}K\n", tasks[0].1 * 4));
        for _ in 0..250 {
            let k = r.below(tasks.len() as u64) as usize;
            if !tasks[k].0 {
                continue;
            }
            let pages = tasks[k].1;
            let range = |r: &mut Rng| {
                let p = r.below(pages);
                (p, 1 + r.below((pages - p).min(256)))
            };
            match r.below(100) {
                0..=34 if pages > 0 => {
                    let (p, c) = range(&mut r);
                    t.push_str(&format!("store t{k} heap {p} {c}\n"));
                }
                35..=59 if pages > 0 => {
                    let (p, c) = range(&mut r);
                    t.push_str(&format!("load t{k} heap {p} {c}\n"));
                }
                60..=69 if tasks.len() < 12 => {
                    let c = tasks.len();
                    t.push_str(&format!("fork t{k} t{c}\n"));
                    tasks.push((true, pages));
                }
                70..=74 => t.push_str(&format!("reclaim {} {}K\n", ["a", "b", "root"][r.below(3) as usize], 4 * (1 + r.below(512)))),
                75..=77 => {
                    t.push_str(&format!("exit t{k}\n"));
                    tasks[k].0 = false;
                }
                78..=79 if pages > 0 => {
                    t.push_str(&format!("munmap t{k} heap\n"));
                    tasks[k].1 = 0;
                }
                80..=81 if pages == 0 => {
                    let n = 64 + r.below(512);
                    t.push_str(&format!("anon t{k} heap size={}K\n", n * 4));
                    tasks[k].1 = n;
                }
                82..=84 if pages > 0 => t.push_str(&format!("advise t{k} heap dontneed\n")),
                85..=86 if pages > 0 => t.push_str(&format!("mlock t{k} heap\n")),
                87..=89 if pages > 0 => t.push_str(&format!("munlock t{k} heap\n")),
                90..=92 => t.push_str(&format!("task t{k} memcg={}\n", ["a", "b", "root"][r.below(3) as usize])),
                _ => {}
            }
        }
        for policy in POLICIES {
            let mut runs = Vec::new();
            for _ in 0..2 {
                let mut sim = mglru_core::Simulator::new(mglru_core::RunOptions { policy: Some(policy), ..Default::default() });
                let mut rd = mglru_trace::TraceReader::from_str("fork-prop", &t);
                let mut line = 0;
                while let Some(op) = rd.next_op().unwrap_or_else(|e| panic!("seed {seed}: {e}\n{t}")) {
                    line += 1;
                    sim.apply(&op).unwrap_or_else(|e| panic!("seed {seed} {policy:?} op {line}: {e}"));
                    if op.is_setup() {
                        continue;
                    }
                    if let Ok(k) = sim.boot() {
                        k.check_invariants().unwrap_or_else(|e| panic!("seed {seed} {policy:?} after op {line} ({op:?}): {e}\n{}", t.lines().take(line + 4).collect::<Vec<_>>().join("\n")));
                    }
                }
                let k = sim.finish().unwrap();
                k.check_invariants().unwrap();
                runs.push(k.vmstat());
            }
            assert_eq!(runs[0], runs[1], "seed {seed} {policy:?}: not deterministic");
        }
    }
}
