// SPDX-License-Identifier: GPL-2.0-only
//! Accounting invariants, checked on demand (tests call it after every
//! trace; debug builds could call it after every operation). These are
//! the things the kernel guards with `VM_BUG_ON`: every folio is on
//! exactly one list, isolated, in a per-CPU batch, or free; list sizes,
//! mapcounts, page-cache counts and memcg charges add up.

use crate::file::{ENT_FOLIO, ENT_SHADOW};
use crate::folio::{pg, NIL};
use crate::kernel::Kernel;
use crate::memcontrol::ROOT_MEMCG;
use crate::mm::pte;
use crate::stat::St;

impl Kernel {
    /// Nothing is checked while a task's operation is paused inside the
    /// kernel (parallel scheduling, crate::sched `paused_inside`): the
    /// folios it holds (a batch it isolated, a page allocated and not yet
    /// charged or added to a list) are placed only by its own stack, as the
    /// kernel's are by the reference its task holds. Between pages, and
    /// once every operation has ended, everything is checked.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.sched.paused_inside > 0 {
            return Ok(());
        }
        let n = self.folios.nr_pages() as usize;
        let mut on_list = vec![0u8; n];
        // Lists: links, sizes, flags.
        for (mi, m) in self.memcgs.iter().enumerate() {
            for (lru, list) in m.lruvec.lists.iter().enumerate() {
                let mut count = 0u64;
                let mut prev = NIL;
                let mut p = list.head;
                while p != NIL {
                    let f = self.folios.get(p);
                    if f.prev != prev {
                        return Err(format!("memcg {mi} list {lru}: broken prev link at pfn {p}"));
                    }
                    if f.memcg as usize != mi {
                        return Err(format!("pfn {p} on memcg {mi}'s list but charged to {}", f.memcg));
                    }
                    if f.list_field() as usize != lru + 1 {
                        return Err(format!("pfn {p} on list {lru} but says {}", f.list_field()));
                    }
                    if !f.test(pg::LRU) {
                        return Err(format!("pfn {p} on a list without PG_lru"));
                    }
                    on_list[p as usize] += 1;
                    count += 1;
                    prev = p;
                    p = f.next;
                    if count > n as u64 {
                        return Err(format!("memcg {mi} list {lru}: cycle"));
                    }
                }
                if prev != list.tail || count != list.len {
                    return Err(format!("memcg {mi} list {lru}: len {} but {count} linked", list.len));
                }
            }
        }
        // MGLRU lists: physical membership in the list field, generation
        // numbers (possibly ahead, by lazy promotion) in the gen field;
        // nr_pages counts by generation number.
        for (mi, m) in self.memcgs.iter().enumerate() {
            let lg = &m.lruvec.lrugen;
            let mut by_gen = [[0i64; 2]; 4];
            for gen in 0..4 {
                for (t, zone) in (0..2).flat_map(|t| (0..crate::folio::NR_ZONES).map(move |z| (t, z))) {
                    let list = &lg.folios[gen][t][zone];
                    let mut count = 0u64;
                    let mut prev = NIL;
                    let mut p = list.head;
                    while p != NIL {
                        let f = self.folios.get(p);
                        if f.prev != prev || f.memcg as usize != mi || f.lru_type() != t {
                            return Err(format!("memcg {mi} gen {gen} type {t}: bad folio {p}: {f:?}"));
                        }
                        if f.list_field() as usize != gen + 1 || f.gen_field() == 0 || !f.test(pg::LRU) || self.folios.zone_of(p) != zone {
                            return Err(format!("memcg {mi} gen {gen} type {t}: folio {p} fields {f:?}"));
                        }
                        on_list[p as usize] += 1;
                        by_gen[(f.gen_field() - 1) as usize][t] += 1;
                        count += 1;
                        prev = p;
                        p = f.next;
                        if count > n as u64 {
                            return Err(format!("memcg {mi} gen {gen}: cycle"));
                        }
                    }
                    if prev != list.tail || count != list.len {
                        return Err(format!("memcg {mi} gen {gen} type {t}: len {} but {count} linked", list.len));
                    }
                }
            }
            if by_gen != lg.nr_pages {
                return Err(format!("memcg {mi}: nr_pages {:?} but folios say {by_gen:?}", lg.nr_pages));
            }
            // Compatibility sizes: the two youngest generations are active.
            let mut want = [0i64; 5];
            for seq in lg.max_seq.saturating_sub(3)..=lg.max_seq {
                let g = (seq % 4) as usize;
                let active = seq + 1 >= lg.max_seq;
                for t in 0..2 {
                    want[2 * t + active as usize] += by_gen[g][t];
                }
            }
            for l in 0..4 {
                if want[l] != m.lruvec.gen_size[l] {
                    return Err(format!("memcg {mi}: compat size {l} is {} but generations say {}", m.lruvec.gen_size[l], want[l]));
                }
            }
            if !(self.steps.seq_is_valid)(lg) {
                return Err(format!("memcg {mi}: bad window min {:?} max {}", lg.min_seq, lg.max_seq));
            }
        }
        // The zones' LRU counts (`NR_ZONE_*` by type) are what the lists hold.
        let mut zone_lru = [[0u64; 2]; crate::folio::NR_ZONES];
        for m in &self.memcgs {
            for (lru, list) in m.lruvec.lists.iter().enumerate().take(crate::lruvec::LRU_UNEVICTABLE) {
                let mut p = list.head;
                while p != NIL {
                    zone_lru[self.folios.zone_of(p)][lru / 2] += 1;
                    p = self.folios.get(p).next;
                }
            }
            for gen in m.lruvec.lrugen.folios.iter() {
                for (t, zones) in gen.iter().enumerate() {
                    for (z, list) in zones.iter().enumerate() {
                        zone_lru[z][t] += list.len;
                    }
                }
            }
        }
        if zone_lru != self.zone_lru {
            return Err(format!("zone LRU counts {:?} but the lists hold {zone_lru:?}", self.zone_lru));
        }
        let mut pcp_pages = Vec::new();
        for (c, cpu) in self.cpus.iter().enumerate() {
            for (z, p) in cpu.pcp.iter().enumerate() {
                for pfn in p.pages() {
                    if self.folios.zone_of(pfn) != z {
                        return Err(format!("CPU {c}'s per-CPU list of zone {z} holds pfn {pfn} of zone {}", self.folios.zone_of(pfn)));
                    }
                    pcp_pages.push(pfn);
                }
            }
        }
        self.folios.check_free_lists(&pcp_pages)?;
        let mut in_batch = vec![false; n];
        for cpu in &self.cpus {
            for b in &cpu.batch {
                for &p in b {
                    in_batch[p as usize] = true;
                }
            }
            for &e in &cpu.mlock {
                in_batch[(e & crate::mlock::MLOCK_PFN) as usize] = true;
            }
        }
        // Per-folio state.
        let mut charged = vec![0u64; self.memcgs.len()];
        let mut anon_mapped = vec![0i64; self.memcgs.len()];
        let mut file_pages = vec![0i64; self.memcgs.len()];
        let mut shmem_pages = vec![0i64; self.memcgs.len()];
        let mut nr_dirty = 0;
        let mut nr_wb = 0;
        let mut nr_device = 0u64;
        let mut nr_pgtable = 0u64;
        let mut nr_mlock = 0u64;
        for pfn in 0..n {
            let f = self.folios.get(pfn as u32);
            if !f.test(pg::ALLOCATED) {
                // (A free chunk's head carries PageBuddy and its list
                // links: checked with the free lists above.)
                if (f.flags != 0 && f.flags != pg::BUDDY) || on_list[pfn] != 0 || in_batch[pfn] {
                    return Err(format!("free pfn {pfn} has state {:?}", f));
                }
                continue;
            }
            if f.test(pg::DEVICE) {
                // A RAM-backed swap device's page: on nothing, charged to nobody.
                if f.flags != pg::ALLOCATED | pg::DEVICE || on_list[pfn] != 0 || in_batch[pfn] {
                    return Err(format!("device pfn {pfn} has state {:?}", f));
                }
                nr_device += 1;
                continue;
            }
            if f.test(pg::KERNEL) {
                // The boot's memory (a laid-out zone): on nothing, never freed.
                if f.flags != pg::ALLOCATED | pg::KERNEL || on_list[pfn] != 0 || in_batch[pfn] {
                    return Err(format!("boot-time pfn {pfn} has state {:?}", f));
                }
                continue;
            }
            if f.test(pg::PGTABLE) {
                // A page-table page: on nothing, its charge in pgtable_pages.
                if f.flags != pg::ALLOCATED | pg::PGTABLE || on_list[pfn] != 0 || in_batch[pfn] {
                    return Err(format!("page-table pfn {pfn} has state {:?}", f));
                }
                nr_pgtable += 1;
                continue;
            }
            charged[f.memcg as usize] += 1;
            if f.test(pg::MLOCKED) {
                nr_mlock += 1;
            }
            if f.test(pg::UNEVICTABLE) && f.test(pg::LRU) && f.list_field() as usize != crate::lruvec::LRU_UNEVICTABLE + 1 {
                return Err(format!("unevictable pfn {pfn} on list {}", f.list_field()));
            }
            let lru = f.test(pg::LRU);
            let isolated = f.test(pg::ISOLATED);
            let batched = f.test(pg::IN_BATCH);
            if lru && on_list[pfn] != 1 {
                return Err(format!("pfn {pfn} has PG_lru but is on {} lists", on_list[pfn]));
            }
            if !lru && on_list[pfn] != 0 {
                return Err(format!("pfn {pfn} is on a list without PG_lru"));
            }
            if (lru as u8 + isolated as u8) + (batched && !lru) as u8 != 1 {
                return Err(format!("pfn {pfn}: lru={lru} isolated={isolated} batched={batched}"));
            }
            // Every reclaimer (a task's, kswapd's pass) puts back or frees
            // what it isolated within the step that isolated it, so no two
            // reclaimers ever hold the same folio and none is isolated
            // between operations (docs/FIDELITY.md simplification 2).
            if isolated {
                return Err(format!("pfn {pfn} is still isolated between operations"));
            }
            if batched != in_batch[pfn] {
                return Err(format!("pfn {pfn}: IN_BATCH flag disagrees with the batches"));
            }
            if f.test(pg::ANON) {
                if f.mapcount > 0 {
                    anon_mapped[f.memcg as usize] += 1;
                }
                if !f.test(pg::SWAPCACHE) && f.mapcount == 0 {
                    return Err(format!("anon pfn {pfn} neither mapped nor in swap cache"));
                }
                if f.test(pg::SWAPCACHE) {
                    file_pages[f.memcg as usize] += 1;
                    let e = self.swap.as_ref().unwrap().entry(f.swap - 1);
                    if e & crate::swapfile::SLOT_CACHED == 0 || (e & crate::swapfile::SLOT_VALUE) as usize != pfn {
                        return Err(format!("swap cache slot {} does not point at pfn {pfn}", f.swap - 1));
                    }
                }
                if f.test(pg::WRITEBACK) {
                    nr_wb += 1;
                }
            } else if f.is_shmem() && f.test(pg::SWAPCACHE) {
                // A shmem folio written out to swap: in the swap cache,
                // its page-cache slot holds the swap entry (or nothing,
                // once truncated while the folio was busy).
                file_pages[f.memcg as usize] += 1;
                let slot = f.swap - 1;
                let e = self.swap.as_ref().unwrap().entry(slot);
                if e & crate::swapfile::SLOT_CACHED == 0 || (e & crate::swapfile::SLOT_VALUE) as usize != pfn {
                    return Err(format!("swap cache slot {slot} does not point at shmem pfn {pfn}"));
                }
                let c = self.files[f.mapping as usize].cache.get(f.index as u64);
                if e & crate::swapfile::SLOT_ORPHAN == 0 && c != crate::file::ENT_SWAP | u64::from(slot) {
                    return Err(format!("shmem pfn {pfn} in swap cache slot {slot}, but its file's slot holds {c:#x}"));
                }
                if f.mapcount > 0 || f.test(pg::BUFFERS) {
                    return Err(format!("shmem pfn {pfn} in the swap cache is mapped or has buffers"));
                }
                if f.test(pg::WRITEBACK) {
                    nr_wb += 1;
                }
            } else {
                file_pages[f.memcg as usize] += 1;
                let fl = &self.files[f.mapping as usize];
                if fl.folio_at(f.index as u64) != Some(pfn as u32) {
                    return Err(format!("file pfn {pfn} not in its page cache slot"));
                }
                if f.is_shmem() != fl.shmem {
                    return Err(format!("pfn {pfn}: PG_swapbacked {} in a file whose shmem is {}", f.is_shmem(), fl.shmem));
                }
                if f.is_shmem() {
                    shmem_pages[f.memcg as usize] += 1;
                    if f.test(pg::WRITEBACK) || f.test(pg::BUFFERS) {
                        return Err(format!("shmem pfn {pfn} in the page cache is under writeback or has buffers"));
                    }
                } else if f.test(pg::DIRTY) {
                    nr_dirty += 1;
                }
                if f.test(pg::WRITEBACK) {
                    nr_wb += 1;
                }
            }
        }
        let stored = self.swap.as_ref().map_or(0, |s| s.device_pages());
        if nr_device != stored || self.swap.as_ref().is_some_and(|s| !s.stored.is_empty() && s.stored.iter().filter(|&&x| x).count() as u64 != s.nr_stored) {
            return Err(format!("{nr_device} device pages but the swap device stores {stored}"));
        }
        if let Some(s) = &self.swap {
            if let Some(z) = &s.zram {
                // Each class is packed, the classes hold every stored slot
                // (each by its kind's class), and a stored slot is a used one.
                let mut held = vec![0u64; z.classes.len()];
                let mut bytes = 0u64;
                for j in (0..s.stored.len()).filter(|&j| s.stored[j]) {
                    let k = &z.kinds[z.slot_kind[j] as usize];
                    held[k.class as usize] += 1;
                    bytes += u64::from(k.comp_len);
                }
                for (i, c) in z.classes.iter().enumerate() {
                    if c.pfns.len() as u64 != c.pages_for(c.objects) {
                        return Err(format!("zram class {} ({} bytes) has {} pages for {} objects", i, c.class_size, c.pfns.len(), c.objects));
                    }
                    if held[i] != c.objects {
                        return Err(format!("zram class {} counts {} objects, its stored slots are {}", i, c.objects, held[i]));
                    }
                }
                if bytes != z.compr_bytes {
                    return Err(format!("zram counts {} compressed bytes, its stored objects hold {}", z.compr_bytes, bytes));
                }
                if let Some(slot) = (0..s.stored.len()).find(|&i| s.stored[i] && s.slots[i] & crate::swapfile::SLOT_USED == 0) {
                    return Err(format!("zram holds free slot {slot}"));
                }
            }
        }
        let tasks_tables: u64 = self.tasks.iter().map(|t| t.pgtable_pfns.len() as u64).sum();
        if nr_pgtable != tasks_tables {
            return Err(format!("{nr_pgtable} page-table pages, but the tasks hold {tasks_tables}"));
        }
        if nr_mlock != self.nr_mlock {
            return Err(format!("nr_mlock {} but {nr_mlock} folios are mlocked", self.nr_mlock));
        }
        if let Some((&p, &c)) = self.mlock_count.iter().find(|(&p, &c)| {
            let f = self.folios.get(p);
            c == 0 || !f.test(pg::UNEVICTABLE) || !f.test(pg::ALLOCATED)
        }) {
            return Err(format!("pfn {p} has mlock_count {c} but is not on the unevictable list"));
        }
        if nr_dirty != self.nr_dirty || nr_wb != self.nr_writeback {
            return Err(format!(
                "dirty/writeback gauges {}/{} but folios say {nr_dirty}/{nr_wb}",
                self.nr_dirty, self.nr_writeback
            ));
        }
        for (m, c) in self.memcgs.iter().enumerate() {
            if c.st.get(St::Anon) != anon_mapped[m] {
                return Err(format!("memcg {m}: anon state {} but {} mapped anon folios", c.st.get(St::Anon), anon_mapped[m]));
            }
            if c.st.get(St::FilePages) != file_pages[m] {
                return Err(format!("memcg {m}: file state {} but {} folios", c.st.get(St::FilePages), file_pages[m]));
            }
            if c.st.get(St::Shmem) != shmem_pages[m] {
                return Err(format!("memcg {m}: shmem state {} but {} shmem folios in page caches", c.st.get(St::Shmem), shmem_pages[m]));
            }
        }
        // Page cache counts.
        for (i, fl) in self.files.iter().enumerate() {
            let mut cnt = 0;
            let mut swapped = 0;
            for idx in 0..fl.pages {
                let e = fl.cache.get(idx);
                if e & ENT_FOLIO != 0 {
                    cnt += 1;
                    let pfn = e as u32;
                    let f = self.folios.get(pfn);
                    if !f.test(pg::ALLOCATED) || f.test(pg::ANON) || f.mapping != i as u32 || f.index as u64 != idx {
                        return Err(format!("file {i} page {idx} points at a foreign folio {pfn}"));
                    }
                } else if e & crate::file::ENT_SWAP != 0 {
                    // A shmem page out on swap: a used slot owned by it.
                    swapped += 1;
                    let slot = (e & crate::swapfile::SLOT_VALUE) as u32;
                    let sw = self.swap.as_ref().ok_or_else(|| format!("file {i} page {idx}: swap entry without swap"))?;
                    let owner = (i as u32 | crate::shmem::OWNER_SHMEM, idx as u32);
                    if !fl.shmem || sw.entry(slot) & crate::swapfile::SLOT_USED == 0 || sw.owner[slot as usize] != owner {
                        return Err(format!("file {i} page {idx}: swap entry {slot} not a used slot it owns"));
                    }
                } else if e != 0 && (e & ENT_SHADOW == 0 || fl.shmem) {
                    return Err(format!("file {i} page {idx}: bad entry {e:#x}"));
                }
            }
            if cnt != fl.nrpages {
                return Err(format!("file {i}: nrpages {} but {cnt} folios", fl.nrpages));
            }
            if swapped != fl.swapped {
                return Err(format!("file {i}: swapped {} but {swapped} swap entries", fl.swapped));
            }
        }
        // Mapcounts and swap counts from the page tables. An anon folio is
        // mapped only by regions its anon_vma's rmap walk visits; a PTE a
        // fork write-protected maps an anon folio; a swap entry refers to
        // a used slot, and each slot's count is its swap PTEs.
        let mut maps = vec![0u32; n];
        let mut swap_refs = vec![0u32; self.swap.as_ref().map_or(0, |s| s.nr_pages() as usize)];
        let mut task_ptes = vec![(0u64, 0u64); self.tasks.len()];
        for (r, v) in self.vmas.iter().enumerate() {
            if v.dead {
                continue;
            }
            let pgd = self.tasks[v.task as usize].pgd;
            for idx in 0..v.pages {
                let e = self.pt.get(pgd, v.va(idx));
                if e & pte::PRESENT != 0 && e & pte::VALUE != pte::ZERO_PFN {
                    let pfn = (e & pte::VALUE) as usize;
                    maps[pfn] += 1;
                    let f = self.folios.get(pfn as u32);
                    let ok = match v.file {
                        Some(fi) => !f.test(pg::ANON) && f.mapping == fi && f.index as u64 == idx && e & pte::WRPROT == 0,
                        None => f.test(pg::ANON) && self.anon_vmas.covers(f.mapping, r as u32) && f.index as u64 == idx,
                    };
                    if !ok {
                        return Err(format!("region {r} page {idx} maps an unrelated folio {pfn}"));
                    }
                    if v.file.is_none() {
                        task_ptes[v.task as usize].0 += 1;
                    }
                } else if pte::is_swap(e) {
                    let slot = (e & pte::VALUE) as usize;
                    match self.swap.as_ref() {
                        Some(sw) if slot < swap_refs.len() && sw.entry(slot as u32) & crate::swapfile::SLOT_USED != 0 => swap_refs[slot] += 1,
                        _ => return Err(format!("region {r} page {idx}: swap entry for slot {slot}, which is not in use")),
                    }
                    task_ptes[v.task as usize].1 += 1;
                }
            }
        }
        // A shmem file's swap entry holds a reference too
        // (swap_shmem_alloc).
        for fl in &self.files {
            for idx in 0..fl.pages {
                let e = fl.cache.get(idx);
                if e & crate::file::ENT_SWAP != 0 && e & ENT_FOLIO == 0 {
                    swap_refs[(e & crate::swapfile::SLOT_VALUE) as usize] += 1;
                }
            }
        }
        for pfn in 0..n {
            let f = self.folios.get(pfn as u32);
            if maps[pfn] != f.mapcount as u32 {
                return Err(format!("pfn {pfn}: mapcount {} but {} PTEs", f.mapcount, maps[pfn]));
            }
            if f.test(pg::ANON_EXCLUSIVE) && f.mapcount > 1 {
                return Err(format!("pfn {pfn}: exclusive but mapped {} times", f.mapcount));
            }
        }
        if let Some(sw) = &self.swap {
            for (slot, &refs) in swap_refs.iter().enumerate() {
                if u32::from(sw.count[slot]) != refs {
                    return Err(format!("swap slot {slot}: swap count {} but {refs} swap PTEs and shmem entries", sw.count[slot]));
                }
                if sw.slots[slot] & crate::swapfile::SLOT_ORPHAN != 0 && refs > 0 {
                    return Err(format!("swap slot {slot}: marked unreferenced but {refs} swap PTEs refer to it"));
                }
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            if task.alive && (task.rss_anon, task.swapents) != task_ptes[t] {
                return Err(format!(
                    "task {t}: rss_anon {} and swapents {} but its PTEs say {} and {}",
                    task.rss_anon, task.swapents, task_ptes[t].0, task_ptes[t].1
                ));
            }
        }
        // Charges: each memcg's usage is its subtree's folios, slab pages
        // and the stock; slab bytes fill the slab pages.
        let slab_pages = |m: u16| {
            if m == ROOT_MEMCG {
                0
            } else {
                self.memcgs[m as usize].slab_pages + self.memcgs[m as usize].pgtable_pages
            }
        };
        for m in 1..self.memcgs.len() as u16 {
            // Every table but the pgd (allocated before the task joined).
            // Each table counts where it was charged (tasks may have moved).
            let tables: u64 = self
                .tasks
                .iter()
                .filter(|t| t.alive)
                .flat_map(|t| t.pgtable_pfns.iter())
                .filter(|&&p| self.folios.get(p).memcg == m)
                .count() as u64;
            if tables != self.memcgs[m as usize].pgtable_pages {
                return Err(format!("memcg {m}: {} page-table pages charged but its tasks have {tables}", self.memcgs[m as usize].pgtable_pages));
            }
        }
        for m in 0..self.memcgs.len() as u16 {
            let c = &self.memcgs[m as usize];
            if m != ROOT_MEMCG && c.slab_pages != c.slab_bytes.div_ceil(crate::kernel::PAGE_SIZE) {
                return Err(format!("memcg {m}: {} slab pages for {} slab bytes", c.slab_pages, c.slab_bytes));
            }
            let sub = self.memcg_subtree(m);
            let mut expect: u64 = sub.iter().map(|&s| charged[s as usize] + slab_pages(s)).sum();
            for cpu in &self.cpus {
                if cpu.stock.nr_pages > 0 && sub.contains(&cpu.stock.memcg) {
                    expect += cpu.stock.nr_pages;
                }
            }
            if m == ROOT_MEMCG {
                expect = charged.iter().sum::<u64>()
                    + self.cpus.iter().map(|c| c.stock.nr_pages).sum::<u64>()
                    + (0..self.memcgs.len() as u16).map(slab_pages).sum::<u64>();
            }
            if self.memcgs[m as usize].usage != expect {
                return Err(format!("memcg {m}: usage {} but {expect} charged pages", self.memcgs[m as usize].usage));
            }
        }
        self.check_xa_nodes()
    }

    /// Shadow-node accounting: each node's counts match its slots, a node
    /// is on its memcg's list exactly when it holds only shadows, and the
    /// per-memcg node and list counts add up.
    fn check_xa_nodes(&self) -> Result<(), String> {
        use crate::shadow::{XaNodes, SPACE_SWAP, XA_CHUNK_SHIFT};
        let mut charged = vec![0u64; self.memcgs.len()];
        let mut listed = vec![0u64; self.memcgs.len()];
        // Slab bytes: page-cache nodes and buffer heads (swap-cache nodes
        // are not accounted).
        let mut slab = vec![0u64; self.memcgs.len()];
        for pfn in 0..self.folios.nr_pages() as u32 {
            let f = self.folios.get(pfn);
            if f.test(pg::BUFFERS) {
                if !f.test(pg::ALLOCATED) || f.test(pg::ANON) {
                    return Err(format!("pfn {pfn}: buffers on a folio that is not in the page cache"));
                }
                slab[f.memcg as usize] += crate::filemap::BUFFER_HEAD_BYTES;
            }
        }
        let mut spaces: Vec<(u32, &XaNodes, u64)> =
            self.files.iter().enumerate().map(|(i, f)| (i as u32, &f.xa, f.pages)).collect();
        if let Some(sw) = &self.swap {
            spaces.push((SPACE_SWAP, &sw.xa, sw.nr_pages()));
        }
        for (space, xa, len) in spaces {
            for (n, node) in xa.nodes.iter().enumerate() {
                let base = (n as u64) << XA_CHUNK_SHIFT;
                let (mut count, mut values) = (0u8, 0u8);
                for i in base..(base + (1 << XA_CHUNK_SHIFT)).min(len) {
                    let (page, shadow) = if space == SPACE_SWAP {
                        let e = self.swap.as_ref().unwrap().entry(i as u32);
                        (e & crate::swapfile::SLOT_CACHED != 0, e & crate::swapfile::SLOT_SHADOW != 0)
                    } else {
                        // A shmem swap entry holds its slot like a page
                        // (shmem keeps no shadow-node list).
                        let e = self.files[space as usize].cache.get(i);
                        (e & (ENT_FOLIO | crate::file::ENT_SWAP) != 0, e & ENT_SHADOW != 0)
                    };
                    count += (page || shadow) as u8;
                    values += shadow as u8;
                }
                if (count, values) != (node.count, node.values) {
                    return Err(format!("space {space} node {n}: counts {}/{} but slots hold {count}/{values}", node.count, node.values));
                }
                if (count == 0) != (node.memcg == crate::memcontrol::NO_MEMCG) {
                    return Err(format!("space {space} node {n}: {count} slots but charged to {}", node.memcg));
                }
                if count == 0 {
                    continue;
                }
                charged[node.memcg as usize] += 1;
                if space != SPACE_SWAP {
                    slab[node.memcg as usize] += crate::shadow::XA_NODE_BYTES;
                }
                let shadow_only = count == values;
                if shadow_only != (node.lru_seq != 0) {
                    return Err(format!("space {space} node {n}: shadow-only {shadow_only} but list seq {}", node.lru_seq));
                }
                if shadow_only {
                    listed[node.memcg as usize] += 1;
                    if self.memcgs[node.memcg as usize].shadow_nodes.get(&node.lru_seq) != Some(&(space, n as u32)) {
                        return Err(format!("space {space} node {n}: not on memcg {}'s shadow list", node.memcg));
                    }
                }
            }
        }
        for (m, c) in self.memcgs.iter().enumerate() {
            if c.slab_bytes != slab[m] {
                return Err(format!("memcg {m}: slab {} bytes but its nodes and buffer heads make {}", c.slab_bytes, slab[m]));
            }
            if c.xa_nodes != charged[m] || c.shadow_nodes.len() as u64 != listed[m] {
                return Err(format!(
                    "memcg {m}: {} nodes and {} listed, but {} and {} found",
                    c.xa_nodes,
                    c.shadow_nodes.len(),
                    charged[m],
                    listed[m]
                ));
            }
        }
        if listed.iter().sum::<u64>() != self.nr_workingset_nodes {
            return Err(format!("workingset_nodes {} but {} listed", self.nr_workingset_nodes, listed.iter().sum::<u64>()));
        }
        Ok(())
    }
}
