// SPDX-License-Identifier: GPL-2.0-only
//! The zones of the node (DMA below 16 MiB, DMA32 below 4 GiB, Normal
//! above): their watermarks and reserves, the allocator's fallback from
//! zone to zone, and the reclaim rules that look at zones — MGLRU's
//! per-zone generation lists scanned from the highest zone down, kswapd's
//! "some zone is balanced" and MGLRU's "every zone is safe". Expected
//! values are derived by hand from mm/page_alloc.c and mm/vmscan.c
//! (6.12); the derivation is in the comments.

mod common;
use common::T;
use mglru_core::kernel::{ZONE_DMA, ZONE_DMA32, ZONE_NORMAL};
use mglru_core::stat::Ev;
use mglru_core::Policy;

/// 64 MiB: DMA holds pfns 0..4096 (16 MiB), DMA32 the other 12288 pages.
/// calculate_min_free_kbytes: int_sqrt(16384 × 4 × 16) = 1024 KiB →
/// pages_min 256, shared out by size: DMA min = 256 × 4096 / 16384 = 64,
/// tmp = max(64 / 4, 4096 × 10 / 10000) = 16 → low 80, high 96; DMA32 min
/// = 256 × 12288 / 16384 = 192, tmp = max(48, 12) = 48 → low 240, high
/// 288. lowmem_reserve: DMA keeps 12288 / 256 = 48 pages from requests
/// that could use DMA32; DMA32 has nothing above it. totalreserve_pages
/// (the dirty limits' reserve) = (96 + 48) + (288 + 0) = 432.
#[test]
fn layout_watermarks_and_reserves() {
    let mut t = T::classic();
    t.run("memory 64M\ntask t");
    let k = t.k();
    assert_eq!([k.folios.zone_pages(ZONE_DMA), k.folios.zone_pages(ZONE_DMA32), k.folios.zone_pages(ZONE_NORMAL)], [4096, 12288, 0]);
    assert_eq!(k.zones[ZONE_DMA].wmark, [64, 80, 96]);
    assert_eq!(k.zones[ZONE_DMA32].wmark, [192, 240, 288]);
    assert_eq!([k.zones[ZONE_DMA].lowmem_reserve, k.zones[ZONE_DMA32].lowmem_reserve], [48, 0]);
    assert_eq!(k.totalreserve_pages(), 432);
    assert_eq!(k.node_wmark(0), 256);
}

/// get_page_from_freelist walks the zonelist from DMA32 down, every page
/// handed out from the CPU's list of its zone (crate::page_alloc), which
/// is refilled from the zone in batches whatever the watermark: DMA32
/// (batch 12288 >> 10 = 12, / 4 = 3, rounddown(4) - 1 = 3; high_min 240)
/// takes 3, 6, 12, 24, 48 (93 by the 93rd page), then 96 at pages 94,
/// 190, ...: its free count is 12195 - 96 k after the k-th of those. It
/// gives pages while it is above its low watermark (free > 240): the
/// 125th refill (page 11998, found at 291) leaves it 195, so 11998 pages.
/// Then DMA while above low + reserve (free > 80 + 48): its batch is 1
/// (4096 >> 10 = 4, / 4 = 1, rounddown(1) - 1 = 0 -> 1), refills of 1, 2,
/// 4, 8, 16 (31), then 32 at its pages 32, 64, ...: free 4065 - 32 j
/// after the j-th; the 124th (page 3968, found at 129) leaves 97: 3968
/// pages. No kswapd yet, the fast path never wakes it. The next page finds
/// every zone at low: the slow path wakes kswapd (pageoutrun; nothing it
/// could reclaim: anon without swap) and retries at min, where DMA32 (195
/// > 192) gives it from its list. The 15966 pages are 15932 heap pages
/// and the 34 page-table pages they need (a PUD, a PMD and 32 PTE
/// tables), which come from the zones like any other page.
#[test]
fn allocations_fall_back_to_dma_above_its_reserve() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::new(policy);
        t.run("memory 64M\ntask t\nanon t heap size=64M\nstore t heap 0 15932");
        assert_eq!((t.ev(Ev::PgallocDma32), t.ev(Ev::PgallocDma)), (11998, 3968), "{policy:?}");
        assert_eq!((t.k().folios.nr_free_zone(ZONE_DMA32), t.k().folios.nr_free_zone(ZONE_DMA)), (195, 97));
        assert_eq!((t.k().nr_pcp_pages(ZONE_DMA32), t.k().nr_pcp_pages(ZONE_DMA)), (95, 31));
        assert_eq!(t.ev(Ev::Pageoutrun), 0);
        t.run("store t heap 15932");
        assert_eq!((t.ev(Ev::PgallocDma32), t.ev(Ev::PgallocDma)), (11999, 3968), "{policy:?}");
        assert_eq!(t.ev(Ev::Pageoutrun), 1);
        t.check();
    }
}

/// A 96 MiB file read in a loop on a 64 MiB machine: a stream larger
/// than memory. The first pass fills DMA32 to its low watermark and then
/// DMA to low + reserve (3968 pages, as above) before kswapd first runs.
/// Classic: one inactive list per node, all zones mixed, LRU order, so a
/// loop larger than memory misses on every page of every pass, and the
/// DMA zone is emptied and refilled like the rest. MGLRU: scan_folios
/// takes each generation's lists zone by zone from the highest, and
/// stops once it has a batch; every new page-cache folio (a DMA32 one,
/// while DMA32 has pages above low) joins min_seq or min_seq + 1, so the
/// oldest generation's DMA32 list never runs dry and its DMA list is
/// never reached. The 3968 DMA folios stay, and every later pass hits
/// them: 24576 − 3968 = 20608 misses (pgpgin 82432 KiB) instead of 24576.
/// This is what the kernel does on two-memcgs-global-pressure
/// (docs/FIDELITY.md: pgalloc_dma 3,415 under MGLRU, 75,935 classic).
#[test]
fn mglru_never_reaches_the_dma_zone_under_a_stream() {
    for policy in [Policy::Classic, Policy::Mglru] {
        let mut t = T::new(policy);
        t.run("memory 64M\nfile f size=96M readahead=0\ntask t");
        let mut misses = Vec::new();
        for _ in 0..3 {
            let pin = t.vm("pgpgin");
            for p in 0..(96 * 256 / 32) {
                t.run(&format!("read t f {} 32", p * 32));
            }
            misses.push((t.vm("pgpgin") - pin) / 4);
        }
        let dma = t.ev(Ev::PgallocDma);
        match policy {
            Policy::Classic => {
                assert_eq!(misses, [24576, 24576, 24576]);
                assert!(dma > 3 * 3968, "the DMA zone is refilled every pass: {dma}");
            }
            Policy::Mglru => {
                assert_eq!(misses, [24576, 20608, 20608]);
                assert_eq!(dma, 3968, "filled once, never reclaimed");
            }
        }
        t.check();
    }
}

fn device_pages(t: &mut T) -> u64 {
    let k = t.k();
    (0..k.folios.nr_pages() as u32).filter(|&p| k.folios.get(p).test(mglru_core::folio::pg::DEVICE)).count() as u64
}

/// `swap SIZE ram=y` (brd): the first write of each slot takes a page of
/// RAM that the device keeps (`brd_insert_page`; no discard without
/// `swapon --discard`). A 4 MiB memcg stores 2048 pages of a 16 MiB
/// region: limit reclaim swaps out what does not fit, each swap-out to a
/// slot never written before, so the device holds one page per
/// `pswpout`, and the machine has that many fewer free pages than with a
/// disk — the only difference between the two runs.
#[test]
fn ram_backed_swap_keeps_a_page_per_slot_written() {
    let run = |ram: &str| {
        let mut t = T::new(Policy::Classic);
        t.run(&format!("memory 64M\nswap 16M sync=y{ram}\nmemcg app max=4M\ntask t memcg=app\nanon t heap size=16M\nstore t heap 0 2048"));
        t.check();
        let (out, free, dev) = (t.ev(Ev::Pswpout), t.k().nr_free_and_pcp_pages(), device_pages(&mut t));
        let stored = t.k().swap.as_ref().unwrap().nr_stored;
        (out, free, dev, stored)
    };
    let (out_disk, free_disk, dev_disk, stored_disk) = run("");
    let (out_ram, free_ram, dev_ram, stored_ram) = run(" ram=y");
    assert!(out_disk > 1000, "the memcg had to swap: {out_disk}");
    assert_eq!(out_ram, out_disk, "limit reclaim does not see global free memory");
    assert_eq!((dev_disk, stored_disk), (0, 0));
    assert_eq!((dev_ram, stored_ram), (out_ram, out_ram), "one page per slot written, each slot written once");
    assert_eq!(free_disk - free_ram, out_ram);
}

/// Under global pressure a RAM-backed swap device gives nothing back:
/// each page swapped out frees one page and takes another for the device.
/// 32 MiB of RAM and an anon region of 48 MiB with 64 MiB of brd swap:
/// with a disk the region fits after swapping; with brd the machine runs
/// out of memory and the OOM killer takes the task.
#[test]
fn ram_backed_swap_under_global_pressure_ends_in_oom() {
    for (ram, oom) in [("", false), (" ram=y", true)] {
        let mut t = T::new(Policy::Classic);
        t.run(&format!("memory 32M\nswap 64M sync=y{ram}\ntask t\nanon t heap size=48M\nstore t heap 0 12288"));
        t.check();
        assert_eq!(t.ev(Ev::OomKill) > 0, oom, "ram={ram:?}: oom_kill {}", t.ev(Ev::OomKill));
    }
}
