// SPDX-License-Identifier: GPL-2.0-only
//! Multi-gen LRU scenarios; expectations worked out from 6.12's rules.

mod common;
use common::T;
use mglru_core::folio::pg;
use mglru_core::lru_gen::lru_tier_from_refs;
use mglru_core::stat::Ev;
use mglru_core::Policy;

fn mglru() -> T {
    T::new(Policy::Mglru)
}

fn lg(t: &mut T, memcg: &str) -> mglru_core::lru_gen::LruGen {
    let m = t.memcg_id(memcg) as usize;
    t.k().memcgs[m].lruvec.lrugen.clone()
}

/// A page faulted in starts in the youngest generation (PG_active at
/// fault, `lru_gen_add_folio` puts it at `max_seq`). Eviction only takes
/// the oldest generation and keeps at least two, so the page survives
/// one aging without being touched; after a second aging it is in the
/// oldest generation and goes (to swap; a synchronous swap device, so
/// the swap-out completes at once).
#[test]
fn freshly_faulted_page_gets_a_second_chance() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0").drain();
    let pfn = {
        let k = t.k();
        let pgd = k.tasks[0].pgd;
        let va = k.vmas[0].va(0);
        (k.pt.get(pgd, va) & mglru_core::mm::pte::VALUE) as u32
    };
    let g = lg(&mut t, "app");
    assert_eq!(g.max_seq, 3);
    assert_eq!(t.k().folios.get(pfn).gen_field() as u64 - 1, g.max_seq % 4, "fault -> youngest generation");
    // Evicting generation 1 and below removes nothing: the page is younger.
    t.run("lru_gen - app 0 1");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    // First aging: the walk sees the young PTE (set at fault) and keeps the
    // page in the (then) youngest generation; max_seq becomes 4.
    t.run("lru_gen + app 0 3");
    let g = lg(&mut t, "app");
    assert_eq!(g.max_seq, 4);
    assert_eq!(t.k().folios.get(pfn).gen_field() as u64 - 1, 3, "still in seq 3, now second youngest");
    t.run("lru_gen - app 0 2");
    assert_eq!(t.ev(Ev::Pswpout), 0, "second chance: not evictable yet");
    // Second aging without an access: the page ages into the oldest
    // evictable generation, and eviction of it swaps it out.
    t.run("lru_gen + app 0 4\nlru_gen - app 0 3");
    assert_eq!(t.ev(Ev::Pswpout), 1);
    assert_eq!(t.ev(Ev::PgstealAnon), 1);
    t.check();
}

/// Touching the page between agings keeps it young: the walk moves it to
/// the new youngest generation each time, so it is never evicted.
#[test]
fn accessed_page_is_promoted_by_the_walk() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M sync=y\nmemcg app\ntask t memcg=app\nanon t heap size=1M\nstore t heap 0 8").drain();
    for seq in 3..9 {
        t.run(&format!("load t heap 0\nlru_gen + app 0 {seq}"));
        let g = lg(&mut t, "app");
        t.run(&format!("lru_gen - app 0 {}", g.max_seq - 2));
    }
    assert_eq!(t.ev(Ev::Pswpout), 7, "the seven untouched pages went, page 0 stayed");
    let k = t.k();
    let pgd = k.tasks[0].pgd;
    assert!(k.pt.get(pgd, k.vmas[0].va(0)) & mglru_core::mm::pte::PRESENT != 0);
    t.check();
}

/// File-descriptor accesses climb the tiers: PG_referenced, then
/// PG_workingset, then the 2-bit counter; tier = order_base_2(refs + 1)
/// with refs = counter + workingset. Five reads reach the top tier.
#[test]
fn fd_reads_climb_the_tiers() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app");
    let mut tiers = Vec::new();
    for _ in 0..6 {
        // Alternate pages: a re-read of the page the last read ended in
        // does not count.
        t.run("read t f 0\nread t f 1");
        let pfn = t.folio_of("f", 0).unwrap();
        let refs = t.k().folio_lru_refs(pfn);
        tiers.push(lru_tier_from_refs(refs));
    }
    // reads: 1 -> ref (tier 0), 2 -> +ws (1), 3 -> cnt 1 (2), 4 -> cnt 2
    // (2), 5 -> cnt 3 (3), 6 -> saturated (3).
    assert_eq!(tiers, vec![0, 1, 2, 2, 3, 3]);
}

/// Pages read through read() go to min_seq + 1 while four generations
/// exist (min_seq itself once only three are left), faulted pages to the
/// youngest. Read-around pages brought in by a page fault are added to
/// the LRU while the task is in that fault (`current->in_lru_fault`), so
/// `folio_add_lru` marks them active too: the youngest generation.
#[test]
fn placement_of_read_and_faulted_pages() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\nfile g size=1M\ntask t memcg=app\nmmap t m file=g\nread t f 3\nload t m 5\n").drain();
    let g = lg(&mut t, "app");
    let read_pfn = t.folio_of("f", 3).unwrap();
    let map_pfn = t.folio_of("g", 5).unwrap();
    assert_eq!((g.min_seq[1], g.max_seq), (0, 3), "four generations at start");
    let k = t.k();
    assert_eq!(k.folios.get(read_pfn).gen_field() as u64 - 1, 1, "min_seq + 1");
    assert_eq!(k.folios.get(map_pfn).gen_field() as u64 - 1, 3, "max_seq");
    let ra_pfn = t.folio_of("g", 6).unwrap();
    assert_eq!(t.k().folios.get(ra_pfn).gen_field() as u64 - 1, 3, "read-around in a fault: max_seq");
    // With three generations left, read() pages go to min_seq itself.
    t.run("lru_gen - app 0 0\nread t f 9").drain();
    let g = lg(&mut t, "app");
    assert_eq!(g.min_seq[1] + 2, g.max_seq);
    let pfn = t.folio_of("f", 9).unwrap();
    assert_eq!(t.k().folios.get(pfn).gen_field() as u64 - 1, g.min_seq[1] % 4);
}

/// A refault is recent when it happens while min_seq is still the one the
/// page was evicted from: workingset_activate counts it; outside a fault
/// and with fewer than 3 refs no restore.
#[test]
fn recent_refault_is_activated_and_counted() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app");
    for p in 0..256 {
        t.run(&format!("read t f {p}"));
    }
    // Age twice so the pages are in an evictable generation, then evict.
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4");
    let g = lg(&mut t, "app");
    t.run(&format!("lru_gen - app 0 {} 0 100", g.max_seq - 2));
    let evicted = t.ev(Ev::PgstealFile);
    assert!(evicted >= 100);
    let min_before = lg(&mut t, "app").min_seq[1];
    // Re-read everything: evicted pages refault; min_seq has not moved.
    for p in 0..256 {
        t.run(&format!("read t f {p}"));
    }
    assert_eq!(lg(&mut t, "app").min_seq[1], min_before);
    assert_eq!(t.ev(Ev::WorkingsetRefaultFile), evicted);
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), evicted, "all recent");
    assert_eq!(t.ev(Ev::WorkingsetRestoreFile), 0, "read(): not in a fault, refs < 3");
    t.check();
}

/// A refault after min_seq moved on is not recent: counted as a refault,
/// not activated. (Note that a folio's token is the min_seq at the moment
/// it is written: `evict_folios` advances min_seq right after isolating
/// the last batch of a generation, so that batch carries the next
/// min_seq; the second round of eviction below moves min_seq past it.)
#[test]
fn old_refault_is_not_activated() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\nfile g size=4M readahead=0\ntask t memcg=app");
    for p in 0..200 {
        t.run(&format!("read t f {p}"));
    }
    t.drain().run("lru_gen + app 0 3\nlru_gen + app 0 4");
    let g = lg(&mut t, "app");
    t.run(&format!("lru_gen - app 0 {} 0 1000", g.max_seq - 2));
    assert_eq!(t.ev(Ev::PgstealFile), 200);
    let after_f = lg(&mut t, "app").min_seq[1];
    for p in 0..200 {
        t.run(&format!("read t g {p}"));
    }
    t.drain().run("lru_gen + app 0 5\nlru_gen + app 0 6");
    let g = lg(&mut t, "app");
    t.run(&format!("lru_gen - app 0 {} 0 1000", g.max_seq - 2));
    assert!(lg(&mut t, "app").min_seq[1] > after_f);
    for p in 0..200 {
        t.run(&format!("read t f {p}"));
    }
    assert_eq!(t.ev(Ev::WorkingsetRefaultFile), 200);
    assert_eq!(t.ev(Ev::WorkingsetActivateFile), 0);
}

/// `lru_gen -` with NR_TO_RECLAIM stops once that many were reclaimed:
/// evict_folios works in batches of at most MIN_LRU_BATCH (64), so the
/// overshoot is under one batch.
#[test]
fn lru_gen_evict_reclaims_what_it_asked() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nfile f size=16M readahead=0\ntask t memcg=app");
    for p in 0..2048 {
        t.run(&format!("read t f {p}"));
    }
    t.run("lru_gen + app 0 3\nlru_gen + app 0 4");
    let g = lg(&mut t, "app");
    t.run(&format!("lru_gen - app 0 {} 0 100", g.max_seq - 2));
    let got = t.ev(Ev::PgstealFile);
    assert!((100..164).contains(&got), "asked 100, got {got}");
    // The debugfs write is not memcg reclaim: it counts as global direct.
    assert_eq!(t.ev(Ev::PgstealDirect), got);
    t.check();
}

#[test]
fn lru_gen_command_errors_follow_the_kernel() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\ntask t memcg=app");
    // Asking for a generation above max_seq is -EINVAL.
    let k = t.k();
    assert!(k.lru_gen_debugfs_age(1, 9, None, true).unwrap_err().contains("EINVAL"));
    // Below max_seq: nothing to do, no error.
    assert!(k.lru_gen_debugfs_age(1, 1, None, true).is_ok());
    // Eviction of one of the two youngest generations: -EINVAL.
    assert!(k.lru_gen_debugfs_evict(1, 2, None, 10).unwrap_err().contains("EINVAL"));
    // Without force_scan, aging with 4 generations left is -ERANGE.
    k.lru_gen_debugfs_age(1, 3, Some(0), true).unwrap();
    let e = k.lru_gen_debugfs_age(1, 4, Some(0), false).unwrap_err();
    assert!(e.contains("ERANGE"), "{e}");
}

/// With swappiness 0 the MGLRU only evicts file pages, whatever the
/// pressure: when file runs out the memcg OOMs instead of swapping.
#[test]
fn swappiness_zero_never_swaps() {
    let mut t = mglru();
    t.run("memory 256M\nswap 64M\nsysctl vm.swappiness=0\nmemcg app max=8M\nfile f size=16M\ntask t memcg=app\nanon t heap size=16M");
    t.run("store t heap 0 1024");
    for p in 0..(16 * 256 / 32) {
        t.run(&format!("read t f {} 32", p * 32));
    }
    t.run("store t heap 1024 3072");
    assert_eq!(t.ev(Ev::Pswpout), 0);
    assert!(t.ev(Ev::OomKill) >= 1, "anon cannot go anywhere: OOM");
    t.check();
}

/// `min_ttl_ms`: when kswapd finds every memcg's oldest file generation
/// younger than min_ttl, lru_gen_age_node calls the OOM killer instead of
/// letting the working set thrash. Without it the same workload thrashes.
#[test]
fn min_ttl_turns_thrashing_into_an_oom_kill() {
    let run = |ttl: u32| {
        let mut t = mglru();
        t.run(&format!(
            "memory 64M\nsysctl lru_gen.min_ttl_ms={ttl}\nfile f size=96M\ntask reader\ntask hog\nanon hog big size=24M\nstore hog big 0 6144\nmmap reader m file=f"
        ));
        for _ in 0..3 {
            for p in 0..(96 * 256 / 64) {
                t.run(&format!("load reader m {} 64", p * 64));
            }
        }
        let oom = t.ev(Ev::OomKill);
        let hog_alive = t.k().tasks[1].alive;
        t.check();
        (oom, hog_alive, t.ev(Ev::Pgmajfault))
    };
    let (oom0, hog0, _) = run(0);
    assert_eq!(oom0, 0, "no min_ttl: thrashing but no OOM");
    assert!(hog0);
    let (oom1, hog1, _) = run(5000);
    assert!(oom1 >= 1, "min_ttl 5s: the OOM killer fires");
    assert!(!hog1, "the largest task (the anon hog) is the victim");
}

/// The lru_gen dump in 6.12's format: `memcg %5hu %s`, ` node %5d`, then
/// per generation ` %10lu %10u` and per type ` %10lu%c`.
#[test]
fn lru_gen_dump_has_the_kernel_format() {
    let mut t = mglru();
    t.run("memory 256M\nmemcg app\nmemcg web parent=app\nfile f size=4M readahead=0\ntask t memcg=web\nread t f 0 64\nsleep 1500ms\n").drain();
    let names = |m: u16| match m {
        0 => "/".to_string(),
        1 => "/app".to_string(),
        _ => "/app/web".to_string(),
    };
    let text = t.k().lru_gen_debugfs(&names);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "memcg     1 /");
    assert_eq!(lines[1], " node     0");
    // Root: gens 0..=3, all born at boot, empty; ages in ms of jiffies.
    let age = t.k().now / 4_000_000 * 4;
    assert!(age >= 1500);
    assert_eq!(lines[2], format!(" {:>10} {:>10} {:>10}  {:>10} ", 0, age, 0, 0));
    let web = lines.iter().position(|l| *l == "memcg     3 /app/web").unwrap();
    assert_eq!(lines[web + 1], " node     0");
    for l in &lines[web + 2..] {
        assert_eq!(l.len(), 1 + 10 + 1 + 10 + 2 * 12, "line {l:?}");
        assert!(l.ends_with(' '));
    }
    let sizes: u64 = lines[web + 2..].iter().map(|l| l.split_whitespace().nth(3).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sizes, 64, "the 64 file pages");
}

/// Seed 001, Johannes Weiner: use-once mmapped pages flooding a hot
/// working set. In 6.12 faulted pages start in the youngest generation
/// while a read() hot set earns protection only through tiers, which the
/// PID controller grants after refaults; the classic LRU keeps the hot
/// set on the active list and gives use-once mapped pages one trip
/// through the inactive list.
#[test]
fn seed001_use_once_mmap_flood_vs_hot_set() {
    let run = |policy: Policy| {
        let mut t = T::new(policy);
        t.run("memory 256M\nmemcg app max=16M\nfile hot size=8M readahead=0\nfile stream size=64M\ntask t memcg=app\nmmap t s file=stream");
        for _ in 0..3 {
            for p in 0..2048 {
                t.run(&format!("read t hot {p}"));
            }
        }
        let before = t.ev(Ev::Pgpgin);
        for p in 0..(64 * 256 / 64) {
            t.run(&format!("load t s {} 64", p * 64));
        }
        let stream_io = t.ev(Ev::Pgpgin) - before;
        let before = t.ev(Ev::Pgpgin);
        for p in 0..2048 {
            t.run(&format!("read t hot {p}"));
        }
        let hot_misses = (t.ev(Ev::Pgpgin) - before) / 4;
        t.check();
        (hot_misses, stream_io)
    };
    let (classic, _) = run(Policy::Classic);
    let (mglru, _) = run(Policy::Mglru);
    // Classic: the hot set was read three times, so it is active; the
    // stream's pages enter the inactive list and limit reclaim takes them
    // from there (the active file list is not low against an inactive list
    // that keeps filling), so the hot set is never touched: 0 misses.
    // 6.12 MGLRU: every faulted stream page is placed in max_seq (PG_active
    // in a fault on a VMA with recency) and the walk keeps promoting the
    // young ones, while the hot set — file-descriptor reads, never young in
    // a page table — ages into the oldest generation and is evicted whole:
    // all 2048 pages miss. This is the regression Johannes Weiner raised.
    assert_eq!((classic, mglru), (0, 2048), "hot-set misses after the flood (classic, MGLRU)");
}

/// Seed 001, Kim/Barry: 500 hot anon pages (re-touched between waves) and
/// two waves of 500 used-once anon pages in a memcg of 1000 pages. Under
/// the classic LRU (anon starts inactive) the used-once pages go first;
/// under 6.12's MGLRU the hot pages' young PTEs get them promoted by each
/// aging walk, so they are kept too.
#[test]
fn seed001_hot_anon_vs_used_once_waves() {
    let run = |policy: Policy| {
        let mut t = T::new(policy);
        t.run("memory 256M\nswap 64M\nmemcg app max=4000K\ntask t memcg=app\nanon t hot size=2000K\nanon t once size=4000K");
        t.run("store t hot 0 500\nload t hot 0 500");
        for wave in 0..2 {
            for p in 0..500 {
                t.run(&format!("store t once {}", wave * 500 + p));
                if p % 50 == 0 {
                    t.run("load t hot 0 500");
                }
            }
        }
        let before = t.ev(Ev::Pgmajfault);
        t.run("load t hot 0 500");
        let hot_swapins = t.ev(Ev::Pgmajfault) - before;
        t.check();
        (hot_swapins, t.ev(Ev::Pswpout))
    };
    let (c_in, c_out) = run(Policy::Classic);
    let (m_in, m_out) = run(Policy::Mglru);
    assert!(c_out >= 400 && m_out >= 400, "both had to swap the used-once pages: {c_out} {m_out}");
    eprintln!("hot swap-ins: classic {c_in}, mglru {m_in}; swap-outs classic {c_out}, mglru {m_out}");
    assert_eq!(c_in, 0, "classic keeps the hot set (active) and swaps the inactive used-once pages");
    assert!(m_in * 10 < m_out, "MGLRU mostly keeps the re-touched hot set: {m_in} swap-ins vs {m_out} swap-outs");
}

/// Seed 003: under global pressure, the memcg LRU lets reclaim pick the
/// memcg with clean single-use file pages and spare the one with a heavy
/// anon working set (no swapping while cheap file pages exist).
#[test]
fn seed003_mixed_memcgs_clean_file_first() {
    // Global pressure (kswapd) with an anon memcg (db, 48 MiB heap touched
    // now and then) and a memcg streaming a 256 MiB file three times (io)
    // in 128 MiB of RAM. The classic LRU's shrink_node_memcgs visits every
    // memcg on each pass and get_scan_count gives db's anon lists their
    // share (swappiness 60), so anon is scanned — though the referenced
    // heap pages are not stolen. MGLRU's memcg LRU (shrink_many) takes the
    // lruvecs in generation order and should_abort_scan stops kswapd as
    // soon as the watermark is met: io's clean, used-once page cache meets
    // it every time, and db is never scanned.
    let run = |policy: Policy| {
        let mut t = T::new(policy);
        t.run("memory 128M\nswap 128M\nmemcg db\nmemcg io\nfile log size=256M\ntask d memcg=db\ntask w memcg=io\nanon d heap size=48M\nstore d heap 0 12288");
        for round in 0..3 {
            for p in 0..(256 * 256 / 32) {
                t.run(&format!("read w log {} 32", p * 32));
                if p % 64 == 0 {
                    t.run(&format!("load d heap {} 512", (p / 64 * 512 + round) % (12288 - 512)));
                }
            }
        }
        t.check();
        let db = t.memcg_id("db");
        let db_usage = t.k().memcgs[db as usize].usage;
        (t.ev(Ev::PgstealFile), t.ev(Ev::PgscanAnon), t.ev(Ev::Pswpout), db_usage)
    };
    let (c_file, c_scan_anon, c_swap, c_db) = run(Policy::Classic);
    let (m_file, m_scan_anon, m_swap, m_db) = run(Policy::Mglru);
    // The streaming memcg gives all the memory: 3 passes of 65536 pages
    // through what is left of 128 MiB (~20,000 pages): ~176,000 steals
    // if nothing survives a pass. Under MGLRU the file pages that fell
    // back to the 16 MiB DMA zone survive (scan_folios takes each
    // generation's DMA32 list first, and the stream keeps refilling it),
    // so up to ~4,000 fewer per pass after the first are stolen — what
    // the kernel does on two-memcgs-global-pressure (docs/FIDELITY.md).
    assert!(c_file > 170_000, "the streaming memcg was reclaimed: {c_file}");
    assert!(m_file > 160_000 && m_file < c_file, "the streaming memcg was reclaimed, minus the DMA zone's pages: {m_file} vs {c_file}");
    assert!(c_scan_anon > 0, "classic scans db's anon ({c_scan_anon})");
    assert_eq!(m_scan_anon, 0, "MGLRU never reaches db");
    assert_eq!((c_swap, m_swap), (0, 0), "no anon page is stolen under either policy");
    assert_eq!(c_db, m_db, "db keeps its whole heap under both");
    assert!(m_db >= 12288, "db keeps its 12288 heap pages ({m_db})");
}


/// Seed 000's variant: aging moves a generation's folios one by one to
/// the tail of the next (6.12), reversing their order; the batch-aging
/// variant keeps it.
#[test]
fn batch_aging_variant_keeps_lru_order() {
    use mglru_core::kernel::Variant;
    let order = |variant: Variant| {
        let mut t = T::new(Policy::Mglru);
        t.sim = mglru_core::Simulator::new(mglru_core::RunOptions { policy: Some(Policy::Mglru), variant, ..Default::default() });
        t.run("memory 256M\nmemcg app\nfile f size=1M readahead=0\ntask t memcg=app");
        for p in 0..10 {
            t.run(&format!("read t f {p}"));
        }
        t.drain().run("lru_gen + app 0 3\nlru_gen + app 0 4");
        let m = t.memcg_id("app") as usize;
        let k = t.k();
        let lg = &k.memcgs[m].lruvec.lrugen;
        let gen = (lg.min_seq[1] % 4) as usize;
        let mut out = Vec::new();
        let mut p = lg.folios[gen][1][mglru_core::kernel::ZONE_DMA32].tail;
        while p != mglru_core::folio::NIL {
            out.push(k.folios.get(p).index);
            p = k.folios.get(p).prev;
        }
        out
    };
    assert_eq!(order(Variant::PLAIN), vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0], "6.12 reverses: the youngest ends at the tail");
    assert_eq!(order(Variant::parse("batch-aging").unwrap()), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "bulk move keeps the oldest at the tail");
}

/// `advise ID FILE noreuse` is POSIX_FADV_NOREUSE: 6.12's generic_fadvise
/// sets FMODE_NOREUSE, and `vma_has_recency` is false for every mapping of
/// that file. So a fault on such a mapping is not "in an LRU fault"
/// (`lru_gen_enter_fault`): `folio_add_lru` does not mark the page active
/// and it goes to min_seq + 1 like a read() page, where a fault on an
/// ordinary mapping places it in max_seq. The aging walk skips the VMA
/// (`should_skip_vma`), so the young PTE it left is not harvested, where
/// the ordinary mapping's young PTE is cleared by the walk.
#[test]
fn fadvise_noreuse_takes_recency_from_the_files_mappings() {
    let mut t = mglru();
    t.run(
        "memory 256M\nmemcg app\nfile g size=1M readahead=0\nfile h size=1M readahead=0\ntask t memcg=app\n\
         mmap t m file=g\nmmap t n file=h\nadvise t h noreuse\nload t m 5\nload t n 5\n",
    )
    .drain();
    let g = lg(&mut t, "app");
    assert_eq!((g.min_seq[1], g.max_seq), (0, 3));
    let (pg, ph) = (t.folio_of("g", 5).unwrap(), t.folio_of("h", 5).unwrap());
    assert_eq!(t.k().folios.get(pg).gen_field() as u64 - 1, 3, "recency: fault places in max_seq");
    assert_eq!(t.k().folios.get(ph).gen_field() as u64 - 1, 1, "noreuse: min_seq + 1");
    let young = |t: &mut T, vma: usize| {
        let k = t.k();
        let pgd = k.tasks[0].pgd;
        k.pt.get(pgd, k.vmas[vma].va(5)) & mglru_core::mm::pte::YOUNG != 0
    };
    assert!(young(&mut t, 0) && young(&mut t, 1), "both PTEs young after the faults");
    t.run("lru_gen + app 0 3");
    assert!(!young(&mut t, 0), "the walk harvested the ordinary mapping's accessed bit");
    assert!(young(&mut t, 1), "the walk skipped the noreuse mapping");
    // `normal` clears FMODE_NOREUSE again: the next fault is in an LRU fault.
    t.run("advise t h normal\nload t n 9").drain();
    let p9 = t.folio_of("h", 9).unwrap();
    let g = lg(&mut t, "app");
    assert_eq!(t.k().folios.get(p9).gen_field() as u64 - 1, g.max_seq % 4);
    t.check();
}

/// Seed 004's reclaim loop (7.2's `try_to_shrink_lruvec`, the variant
/// `reclaim-loop`) against 6.12, on one memory.reclaim of 128K (32 pages)
/// from a memcg of 1,024 clean, cold file pages, read once into generation
/// 1 (min_seq 0, max_seq 3; no swap, so swappiness 0: file only).
/// `memory_reclaim` asks try_to_free_mem_cgroup_pages for 32 pages.
/// 6.12: at priorities 12 and 11 `get_nr_to_scan` gives 1024 >> priority
/// = 0; at 10 it gives 1, and `evict_folios` finds generation 0 empty,
/// flushes it (min_seq 1) and counts that as the 1 scanned; at 9 it gives
/// 2, and one `scan_folios` isolates until `MIN_LRU_BATCH` (64): all 64 go
/// — twice what was asked. 7.2 scans what it budgets, in batches of at
/// most that budget: priority 10 flushes generation 0 as before; at 9 the
/// budget is 1,024 >> 9 = 2 (and only 3 generations are left, so it ages
/// first: max_seq 4) and 2 go; then the budget is the evictable folios left
/// shifted by the priority: 1,022 >> 8 = 3, 1,019 >> 7 = 7, 1,012 >> 6 = 15
/// (27 reclaimed, still under 32), 997 >> 5 = 31: 2 + 3 + 7 + 15 + 31 = 58,
/// in five priorities instead of one.
#[test]
fn reclaim_loop_variant_takes_the_smaller_batch() {
    let run = |variant| {
        let mut t = T::with_options(mglru_core::RunOptions { policy: Some(Policy::Mglru), variant, ..Default::default() });
        t.run("memory 256M\nmemcg app\nfile f size=4M readahead=0\ntask t memcg=app\nread t f 0 1024\nreclaim app 128K\n");
        t.check();
        (t.ev(Ev::PgscanFile), t.ev(Ev::PgstealFile))
    };
    assert_eq!(run(mglru_core::kernel::Variant::PLAIN), (64, 64));
    assert_eq!(run(mglru_core::kernel::Variant::parse("reclaim-loop").unwrap()), (58, 58));
}

/// Seed 003's memcg selection (in 6.12 the memcg LRU of `shrink_many`)
/// against the variant without it. Two memcgs each read 4,096 pages of
/// their own file once; then a root task streams 20,000 pages through a
/// 64 MiB machine, and kswapd reclaims. 6.12 picks memcgs from the memcg
/// LRU, whose oldest generation holds a's and b's older, single-use pages:
/// both give up the same large share. Without it, kswapd's global reclaim
/// walks the memcgs in iterator order, the root's own lruvec (the stream)
/// first, and each run stops (`should_abort_scan`) as soon as the zones are
/// safe: a and b lose a batch or so, the stream pays for itself.
#[test]
fn memcg_lru_off_variant_makes_global_reclaim_walk_memcgs_in_order() {
    let run = |variant| {
        let mut t = T::with_options(mglru_core::RunOptions { policy: Some(Policy::Mglru), variant, ..Default::default() });
        t.run(
            "memory 64M\nmemcg a\nmemcg b\nfile fa size=16M readahead=0\nfile fb size=16M readahead=0\n\
             file fr size=128M readahead=0\ntask ta memcg=a\ntask tb memcg=b\ntask r\n\
             read ta fa 0 4096\nread tb fb 0 4096\nread r fr 0 20000",
        );
        t.check();
        let (a, b) = (t.memcg_id("a") as usize, t.memcg_id("b") as usize);
        let k = t.k();
        assert_eq!(k.ev.get(Ev::PgstealDirect), 0, "kswapd does all the reclaim");
        let stolen = |m: usize| k.memcgs[m].ev.get(Ev::PgstealKswapd);
        (stolen(a), stolen(b), k.memcgs[0].ev.get(Ev::PgstealKswapd))
    };
    let (a, b, root) = run(mglru_core::kernel::Variant::PLAIN);
    assert_eq!(a, b);
    assert!(a > 2000, "6.12 takes a's and b's cold pages: {a}");
    let (a2, b2, root2) = run(mglru_core::kernel::Variant::parse("memcg-lru-off").unwrap());
    assert!(a2 <= 128 && b2 <= 128, "without the memcg LRU a and b lose little: {a2}, {b2}");
    assert!(root2 > root, "the root's stream pays instead: {root2} vs {root}");
}

/// Seed 004's last patch, "unify writeback reclaim statistic and
/// throttling", on its own reproducer at a quarter of its size: a task in
/// a 32 MiB memcg writes a 48 MiB file in 1 MiB writes (the patch: dd
/// bs=1M count=192 into 128M) to a disk that delays every write by 1 s
/// (`disk_write_delay`, the patch's dm-delay target). Once the memcg is
/// full its pages are dirty or under writeback, and none completes within
/// the first second. Limit reclaim of 6.12's multi-gen LRU adds no
/// writeback statistics to the scan control, so nothing marks the memcg
/// congested: the charge's reclaim retries find nothing to free, take no
/// time that lets a write complete, and the task is OOM-killed well inside
/// the first second ("dd will get OOM killed immediately if MGLRU is
/// enabled. Classic LRU is fine."). The variant counts its batches like
/// the classic LRU: the second time reclaim meets folios it tagged under
/// writeback they count as congested, `shrink_node` marks the memcg
/// congested and its reclaimers stall a jiffy at a time until the writes
/// complete and their folios can go: no OOM, and the write runs past the
/// first second. The classic LRU throttles the same way in 6.12 itself.
#[test]
fn reclaim_loop_variant_throttles_memcg_reclaim_on_writeback() {
    let mut trace = String::from("memory 256M\nmemcg app max=32M\nfile f size=48M readahead=0\ntask t memcg=app\n");
    for i in 0..48 {
        trace += &format!("write t f {} 256\n", i * 256);
    }
    let run = |policy, variant| {
        let mut cost = mglru_core::CostModel::default();
        cost.set("disk_write_delay", 1_000_000_000).unwrap();
        let mut t = T::with_options(mglru_core::RunOptions { policy: Some(policy), variant, cost: Some(cost), ..Default::default() });
        t.run(&trace);
        t.check();
        (t.vm("oom_kill"), t.k().now >= 1_000_000_000)
    };
    assert_eq!(run(Policy::Mglru, mglru_core::kernel::Variant::PLAIN), (1, false), "6.12: OOM-killed within the first second");
    assert_eq!(run(Policy::Mglru, mglru_core::kernel::Variant::parse("reclaim-loop").unwrap()), (0, true), "the variant waits for the writes");
    assert_eq!(run(Policy::Classic, mglru_core::kernel::Variant::PLAIN), (0, true), "the classic LRU throttles in 6.12 already");
}

/// `min_ttl_ms` is kept in jiffies rounded up (`msecs_to_jiffies`, HZ=250:
/// 4 ms a jiffy): 1 ms is one jiffy, so the guard stays on; 4 ms one, 5 ms
/// two, 5 s 1,250.
#[test]
fn min_ttl_ms_rounds_up_to_jiffies() {
    for (ms, jiffies) in [(0, 0), (1, 1), (4, 1), (5, 2), (5000, 1250)] {
        let mut t = mglru();
        t.run(&format!("memory 64M\nsysctl lru_gen.min_ttl_ms={ms}\n"));
        assert_eq!(t.k().lru_gen_min_ttl(), jiffies, "{ms} ms");
    }
}

/// `should_skip_vma`: the aging walk skips an anon VMA and a shmem
/// mapping (tmpfs, memfd, shared anonymous) when it cannot swap, and walks
/// a regular file's mapping either way.
#[test]
fn the_walk_skips_shmem_mappings_without_swap() {
    let mut t = mglru();
    t.run("memory 64M\nfile f size=1M\nfile shm size=1M tmpfs=y\ntask t\nanon t heap size=1M\nmmap t m file=f\nmmap t s file=shm\n");
    let k = t.k();
    let [heap, m, s] = [0u32, 1, 2];
    assert_eq!([heap, m, s].map(|r| k.should_skip_vma(r, 0)), [true, false, true]);
    assert_eq!([heap, m, s].map(|r| k.should_skip_vma(r, 60)), [false, false, false]);
}

/// `lru_deactivate_file` adds the folio back before it sets PG_reclaim, so
/// `lru_gen_add_folio` places a dirty folio as any inactive file folio
/// (the second oldest generation, min_seq + 1, with four generations),
/// not where it puts folios already marked for reclaim (max_seq - 1).
#[test]
fn a_deactivated_dirty_file_folio_goes_to_the_second_oldest_generation() {
    let mut t = mglru();
    t.run("memory 256M\nsysctl vm.dirty_ratio=90\nsysctl vm.dirty_background_ratio=80\nfile f size=1M readahead=0\ntask w\nwrite w f 0 1\n");
    t.drain();
    let pfn = t.folio_of("f", 0).unwrap();
    let k = t.k();
    let lg = &k.memcgs[0].lruvec.lrugen;
    let (min_seq, max_seq) = (lg.min_seq[1], lg.max_seq);
    assert_eq!(max_seq - min_seq, 3, "four generations");
    assert!(k.folios.get(pfn).test(pg::DIRTY));
    k.deactivate_file_folio(pfn);
    k.lru_add_drain();
    let f = *k.folios.get(pfn);
    assert!(f.test(pg::RECLAIM) && f.test(pg::DIRTY));
    assert_eq!(f.gen_field() as u64 - 1, (min_seq + 1) % 4);
    t.check();
}
