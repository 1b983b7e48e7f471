// SPDX-License-Identifier: GPL-2.0-only
//! YCSB core workloads A-F against a store shaped like MongoDB with
//! WiredTiger (seed 004): an anonymous cache of B-tree leaves, a
//! collection file and an `_id` index file read through the page cache,
//! dirty leaves written back at eviction and at checkpoints, and a
//! journal. See docs/WORKLOADS.md, section "ycsb".

use std::collections::VecDeque;

use crate::lru::Lru;
use crate::rng::{derive, fnv1a64, mix64, zeta, Rng, Zipf};
use crate::stream::{lines, Source};
use crate::util::{fmt_size, fmt_secs, page_span, scaled, scaled_size, Machine, Params, GIB, MIB, NS_PER_SEC, PAGE};
use crate::Lines;

/// YCSB's zipfian constant.
const ZIPF_THETA: f64 = 0.99;
/// The item count YCSB's ScrambledZipfianGenerator draws ranks from.
const SCRAMBLED_ITEMS: u64 = 10_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Read,
    Update,
    Insert,
    Scan,
    Rmw,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dist {
    Scrambled,
    Zipfian,
    Uniform,
    Latest,
}

struct Mix {
    ops: Vec<(Op, f64)>,
    dist: Dist,
}

fn core_workload(w: &str) -> Result<Mix, String> {
    use Op::*;
    Ok(match w.to_ascii_lowercase().as_str() {
        "a" => Mix { ops: vec![(Read, 0.5), (Update, 0.5)], dist: Dist::Scrambled },
        "b" => Mix { ops: vec![(Read, 0.95), (Update, 0.05)], dist: Dist::Scrambled },
        "c" => Mix { ops: vec![(Read, 1.0)], dist: Dist::Scrambled },
        "d" => Mix { ops: vec![(Read, 0.95), (Insert, 0.05)], dist: Dist::Latest },
        "e" => Mix { ops: vec![(Scan, 0.95), (Insert, 0.05)], dist: Dist::Scrambled },
        "f" => Mix { ops: vec![(Read, 0.5), (Rmw, 0.5)], dist: Dist::Scrambled },
        other => return Err(format!("ycsb: unknown workload `{}`; the core workloads are a, b, c, d, e and f", other)),
    })
}

const COLL: u64 = 0;
const INDEX: u64 = 1;

struct Store {
    task: String,
    files: [String; 2],
    leaf: u64,
    leaf_pages: u64,
    slots: u64,
    lru: Lru,
    dirty: Vec<bool>,
    record: u64,
    per_leaf: u64,
    index_entry: u64,
    index_slots: u64,
    hashed: bool,
    journal: Option<(u64, u64)>,
    /// Per file (collection, index), the leaves that exist on disk: those
    /// of the records already there, and those written since. A leaf
    /// that does not exist yet (a new one made by inserts) is created in
    /// the cache, not read from the file.
    on_disk: [Bits; 2],
}

/// A bitmap (one bit per leaf).
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: u64) -> Bits {
        Bits(vec![0; n.div_ceil(64) as usize])
    }
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 != 0
    }
    fn set(&mut self, i: u64) {
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }
}

/// The most records (loaded plus inserted) the generator tracks: its
/// on-disk bitmaps take one bit per leaf, and setting up the index of the
/// records already on disk visits each (about 5 ns a record: 2^31
/// records took more than 10 s before the first line), so the bound is
/// 2^26, three times seed 004's 20M.
const MAX_RECORDS: u64 = 1 << 26;

impl Store {
    fn file_of(&self, key: u64) -> (&str, u64) {
        let f = (key >> 48) as usize;
        (&self.files[f], key & ((1 << 48) - 1))
    }

    /// Accesses `count` pages at page `page` of leaf `leaf` of `file`
    /// through the WiredTiger cache.
    fn access(&mut self, file: u64, leaf: u64, page: u64, count: u64, write: bool, out: &mut VecDeque<String>) {
        let key = (file << 48) | leaf;
        let lp = self.leaf_pages;
        let verb = if write { "store" } else { "load" };
        let slot = match self.lru.touch(key) {
            Some(s) => {
                out.push_back(span_line(verb, &self.task, "wtcache", s as u64 * lp + page, count));
                s
            }
            None => {
                let (s, evicted) = self.lru.insert(key, self.slots);
                if let Some(old) = evicted {
                    if self.dirty[s as usize] {
                        self.write_leaf(old, out);
                        self.dirty[s as usize] = false;
                    }
                }
                if self.on_disk[file as usize].get(leaf) {
                    out.push_back(span_line("read", &self.task, &self.files[file as usize], leaf * lp, lp));
                }
                out.push_back(span_line("store", &self.task, "wtcache", s as u64 * lp, lp));
                if write {
                    out.push_back(span_line(verb, &self.task, "wtcache", s as u64 * lp + page, count));
                }
                s
            }
        };
        if write {
            self.dirty[slot as usize] = true;
        }
    }

    fn record(&mut self, r: u64, write: bool, out: &mut VecDeque<String>) {
        let leaf = r / self.per_leaf;
        let (p, c) = page_span((r % self.per_leaf) * self.record, self.record);
        self.access(COLL, leaf, p, c.min(self.leaf_pages - p), write, out);
    }

    /// The position of key `k` among the index entries.
    fn index_slot(&self, k: u64) -> u64 {
        if self.hashed {
            ((mix64(fnv1a64(k)) as u128 * self.index_slots as u128) >> 64) as u64
        } else {
            k.min(self.index_slots - 1)
        }
    }

    fn index_page(&self, slot: u64) -> (u64, u64) {
        let off = slot * self.index_entry;
        (off / self.leaf, (off % self.leaf) / PAGE)
    }

    fn index(&mut self, k: u64, write: bool, out: &mut VecDeque<String>) {
        let (leaf, page) = self.index_page(self.index_slot(k));
        self.access(INDEX, leaf, page, 1, write, out);
    }

    fn journal(&mut self, out: &mut VecDeque<String>) {
        if let Some((pos, size)) = self.journal.as_mut() {
            let len = self.record + 64;
            if *pos + len > *size {
                *pos = 0;
            }
            let (p, c) = page_span(*pos, len);
            *pos += len;
            out.push_back(span_line("write", &self.task, "journal", p, c));
        }
    }

    /// Writes the leaf `key` (file and leaf number) back to its file; it
    /// exists on disk from now on.
    fn write_leaf(&mut self, key: u64, out: &mut VecDeque<String>) {
        let lp = self.leaf_pages;
        let (name, l) = self.file_of(key);
        out.push_back(span_line("write", &self.task, name, l * lp, lp));
        self.on_disk[(key >> 48) as usize].set(l);
    }

    fn checkpoint(&mut self, out: &mut VecDeque<String>) {
        for s in 0..self.dirty.len() {
            if self.dirty[s] {
                self.write_leaf(self.lru.key_of(s as u32), out);
                self.dirty[s] = false;
            }
        }
    }
}

fn span_line(verb: &str, task: &str, target: &str, page: u64, count: u64) -> String {
    if count == 1 {
        format!("{} {} {} {}", verb, task, target, page)
    } else {
        format!("{} {} {} {} {}", verb, task, target, page, count)
    }
}

struct Ycsb {
    store: Store,
    rng: Rng,
    mix: Mix,
    dist: Dist,
    zipf: Zipf,
    key_space: u64,
    count: u64,
    load_left: u64,
    ops_left: u64,
    scan_max: u64,
    ckpt_every: u64,
    since_ckpt: u64,
    salt: u64,
}

impl Ycsb {
    fn choose_key(&mut self) -> u64 {
        let n = self.count.max(1);
        match self.dist {
            Dist::Uniform => self.rng.below(n),
            Dist::Latest => {
                self.zipf.grow(n);
                let r = self.zipf.sample(&mut self.rng).min(n - 1);
                n - 1 - r
            }
            Dist::Zipfian => {
                for _ in 0..100 {
                    let k = self.zipf.sample(&mut self.rng);
                    if k < n {
                        return k;
                    }
                }
                self.rng.below(n)
            }
            Dist::Scrambled => {
                for _ in 0..100 {
                    let r = self.zipf.sample(&mut self.rng);
                    let k = fnv1a64(r) % self.key_space;
                    if k < n {
                        return k;
                    }
                }
                self.rng.below(n)
            }
        }
    }

    fn insert(&mut self, out: &mut VecDeque<String>) {
        let k = self.count;
        self.count += 1;
        self.store.record(k, true, out);
        self.store.index(k, true, out);
        self.store.journal(out);
    }

    fn op(&mut self, out: &mut VecDeque<String>) {
        let u = self.rng.next_f64();
        let mut acc = 0.0;
        let mut op = self.mix.ops[self.mix.ops.len() - 1].0;
        for &(o, w) in &self.mix.ops {
            acc += w;
            if u < acc {
                op = o;
                break;
            }
        }
        match op {
            Op::Read => {
                let k = self.choose_key();
                self.store.index(k, false, out);
                self.store.record(k, false, out);
            }
            Op::Update => {
                let k = self.choose_key();
                self.store.index(k, false, out);
                self.store.record(k, true, out);
                self.store.journal(out);
            }
            Op::Rmw => {
                let k = self.choose_key();
                self.store.index(k, false, out);
                self.store.record(k, false, out);
                self.store.index(k, false, out);
                self.store.record(k, true, out);
                self.store.journal(out);
            }
            Op::Insert => self.insert(out),
            Op::Scan => {
                let k = self.choose_key();
                let len = 1 + self.rng.below(self.scan_max);
                let first = self.store.index_slot(k);
                let mut last_page = None;
                for j in 0..len {
                    let slot = first + j;
                    if slot >= self.store.index_slots {
                        break;
                    }
                    let r = if self.store.hashed {
                        // Keys adjacent in the index belong to records
                        // inserted at unrelated times.
                        if j == 0 {
                            k
                        } else {
                            mix64(k ^ mix64(j ^ self.salt)) % self.count.max(1)
                        }
                    } else if k + j < self.count {
                        k + j
                    } else {
                        // Past the last inserted key: the scan returns
                        // fewer records, as YCSB's scan does.
                        break;
                    };
                    let pg = self.store.index_page(slot);
                    if last_page != Some(pg) {
                        self.store.access(INDEX, pg.0, pg.1, 1, false, out);
                        last_page = Some(pg);
                    }
                    self.store.record(r, false, out);
                }
            }
        }
    }
}

impl Source for Ycsb {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        if self.load_left > 0 {
            self.load_left -= 1;
            self.insert(out);
            if self.load_left == 0 {
                self.store.checkpoint(out);
            }
            return Ok(true);
        }
        if self.ops_left == 0 {
            return Ok(false);
        }
        self.ops_left -= 1;
        self.op(out);
        self.since_ckpt += 1;
        if self.since_ckpt >= self.ckpt_every {
            self.since_ckpt = 0;
            self.store.checkpoint(out);
        }
        Ok(true)
    }
}

/// The most cache leaves the generator models (its LRU and dirty bits take
/// memory per leaf): 2^24, a 512G cache of 32K leaves.
pub(crate) const MAX_CACHE_LEAVES: u64 = 1 << 24;

/// `ycsb:k=v,...`.
pub(crate) fn generator(rest: &str) -> Result<Lines, String> {
    let mut p = Params::parse("ycsb", rest)?;
    let scale = p.count("scale", 1)?;
    let workload = p.string("workload", "b");
    let mix = core_workload(&workload)?;
    let records = p.count("records", scaled(20_000_000, scale, 1))?;
    let operations = p.u64("operations", scaled(6_000_000, scale, 1))?;
    let cache = p.size("cache", scaled_size(4608 * MIB, scale, 64 * 1024))?;
    let record = p.size("record_size", 1100)?;
    let index_entry = p.size("index_entry", 32)?;
    // Never raised silently to something that works.
    if record == 0 || index_entry == 0 {
        return Err(format!("ycsb: {} must be at least 1 byte", if record == 0 { "record_size=" } else { "index_entry=" }));
    }
    let leaf = p.size("leaf", 32 * 1024)?;
    if leaf < PAGE || leaf % PAGE != 0 {
        return Err("ycsb: leaf= must be a multiple of 4K".to_string());
    }
    if record > leaf {
        return Err(format!("ycsb: record_size={} is larger than a leaf ({}): raise leaf=", record, leaf));
    }
    let dist = match p.take("distribution") {
        None => mix.dist,
        Some(d) => match d.as_str() {
            "zipfian" | "scrambled" => Dist::Scrambled,
            "zipfian_unscrambled" => Dist::Zipfian,
            "uniform" => Dist::Uniform,
            "latest" => Dist::Latest,
            other => {
                return Err(format!(
                    "ycsb: distribution={}: use zipfian (YCSB's scrambled zipfian), zipfian_unscrambled, uniform or latest",
                    other
                ))
            }
        },
    };
    let theta = p.f64("zipf_constant", ZIPF_THETA)?;
    if theta <= 0.0 || (theta - 1.0).abs() < 1e-9 {
        return Err("ycsb: zipf_constant must be > 0 and not 1".to_string());
    }
    let hashed = match p.string("insert_order", "hashed").as_str() {
        "hashed" => true,
        "ordered" => false,
        other => return Err(format!("ycsb: insert_order={}: use hashed or ordered", other)),
    };
    let scan_max = p.count("scan_max", 100)?;
    let load = p.bool("load", false)?;
    let checkpoint = p.duration("checkpoint", 60 * NS_PER_SEC / scale)?;
    let rate = p.count("rate_ops", 60_000)?;
    let journal = p.bool("journal", true)?;
    let journal_size = p.size("journal_size", 100 * MIB)?;
    if journal_size < PAGE {
        return Err(format!("ycsb: journal_size={} is smaller than a page: at least 4K", fmt_size(journal_size)));
    }
    let m = Machine::from_params(&mut p, scaled_size(128 * GIB, scale, 16 * MIB), None, false, Some(scaled_size(10 * GIB, scale, 16 * MIB)))?;
    p.finish()?;

    let has_inserts = mix.ops.iter().any(|(o, _)| *o == Op::Insert);
    let insert_prop: f64 = mix.ops.iter().filter(|(o, _)| *o == Op::Insert).map(|(_, w)| *w).sum();
    let max_records = records
        .checked_add(if has_inserts { operations } else { 0 })
        .filter(|&n| n <= MAX_RECORDS)
        .ok_or_else(|| {
            format!(
                "ycsb: records={}{} is more than the {} records the generator tracks: use fewer, or scale=",
                records,
                if has_inserts { format!(" + operations={} (workload {} inserts)", operations, workload) } else { String::new() },
                MAX_RECORDS
            )
        })?;
    let per_leaf = leaf / record;
    let leaf_pages = leaf / PAGE;
    let coll_leaves = max_records.div_ceil(per_leaf);
    let index_slots = max_records;
    let index_bytes = index_slots
        .checked_mul(index_entry)
        .map(|b| b.div_ceil(leaf) * leaf)
        .filter(|&b| b <= u64::MAX / 2)
        .ok_or_else(|| format!("ycsb: index_entry={} for {} records overflows the index file's size: give a smaller index_entry=", index_entry, max_records))?;
    if cache < leaf {
        return Err(format!("ycsb: cache={} holds no leaf of leaf={}: give a cache of at least one leaf", fmt_size(cache), fmt_size(leaf)));
    }
    let slots = cache / leaf;
    // The cache is one region, and the generator keeps a slot per leaf of
    // it (an LRU and a dirty bit): both bounded (a cache of 2^64 bytes
    // aborted on allocation failure).
    if slots > MAX_CACHE_LEAVES {
        return Err(format!(
            "ycsb: cache={} holds {} leaves of leaf={}, more than the generator models ({}): use a smaller cache= or a larger leaf=",
            fmt_size(cache),
            slots,
            fmt_size(leaf),
            MAX_CACHE_LEAVES
        ));
    }
    let coll_bytes = coll_leaves as u128 * leaf as u128;
    let journal_bytes = if journal { journal_size as u128 } else { 0 };
    for (what, bytes) in [
        ("records= x record_size= (collection.wt)", coll_bytes),
        ("records= x index_entry= (index.wt)", index_bytes as u128),
        ("journal_size=", journal_bytes),
    ] {
        crate::util::check_file_size(&format!("ycsb: {what}"), bytes.min(u64::MAX as u128) as u64)?;
    }
    crate::util::check_total_files(
        "ycsb: records=, record_size=, index_entry= and journal_size=",
        (coll_bytes + index_bytes as u128 + journal_bytes).div_ceil(PAGE as u128),
    )?;
    // YCSB draws keys from insertcount + 2 x expected inserts.
    let expected_new = (operations as f64 * insert_prop * 2.0) as u64;
    let key_space = records + expected_new;
    let zipf = match dist {
        Dist::Scrambled => Zipf::with_zeta(SCRAMBLED_ITEMS, theta, zeta(SCRAMBLED_ITEMS, theta)),
        Dist::Zipfian => Zipf::new(key_space, theta),
        Dist::Latest | Dist::Uniform => Zipf::new(records.max(1), theta),
    };
    let ckpt_every = ((rate as u128 * checkpoint as u128) / NS_PER_SEC as u128).max(1) as u64;

    let mut out = VecDeque::new();
    out.push_back(format!(
        "# mglru-workload ycsb: workload {} ({}), {} records of {} B, {} operations, distribution {:?}",
        workload,
        mix.ops.iter().map(|(o, w)| format!("{:?} {}%", o, (w * 100.0).round())).collect::<Vec<_>>().join(" / "),
        records,
        record,
        operations,
        dist
    ));
    out.push_back(format!(
        "# WiredTiger model: {} cache = {} leaves of {}; collection.wt {} ({} records/leaf), index.wt {} ({} B entries); checkpoint every {} ops ({} at {} ops/s){}",
        fmt_size(cache),
        slots,
        fmt_size(leaf),
        fmt_size(coll_leaves * leaf),
        per_leaf,
        fmt_size(index_bytes),
        index_entry,
        ckpt_every,
        fmt_secs(checkpoint),
        rate,
        if load { "; load phase included" } else { "; no load phase (data already on disk, cache cold)" }
    ));
    m.setup_lines(&mut out);
    let task = "mongod".to_string();
    match m.memcg_max {
        Some(_) => {
            out.push_back(Machine::memcg_line("mongodb", m.memcg_max));
            out.push_back(format!("task {} memcg=mongodb", task));
        }
        None => out.push_back(format!("task {}", task)),
    }
    out.push_back(format!("file collection.wt size={}", fmt_size(coll_leaves * leaf)));
    out.push_back(format!("file index.wt size={}", fmt_size(index_bytes)));
    if journal {
        out.push_back(format!("file journal size={}", fmt_size(journal_size)));
    }
    out.push_back(format!("anon {} wtcache size={}", task, fmt_size(slots * leaf)));
    let mut store = Store {
        task,
        files: ["collection.wt".to_string(), "index.wt".to_string()],
        leaf,
        leaf_pages,
        slots,
        lru: Lru::new(),
        dirty: vec![false; slots as usize],
        record,
        per_leaf,
        index_entry,
        index_slots,
        hashed,
        journal: if journal { Some((0, journal_size)) } else { None },
        on_disk: [Bits::new(coll_leaves), Bits::new(index_bytes / leaf)],
    };
    if !load {
        // The data is on disk already: the leaves of records 0..records
        // and the index leaves holding their entries.
        for l in 0..records.div_ceil(per_leaf) {
            store.on_disk[COLL as usize].set(l);
        }
        for k in 0..records {
            let (l, _) = store.index_page(store.index_slot(k));
            store.on_disk[INDEX as usize].set(l);
        }
    }
    let gen = Ycsb {
        store,
        rng: Rng::new(derive(m.seed, 1)),
        mix,
        dist,
        zipf,
        key_space,
        count: if load { 0 } else { records },
        load_left: if load { records } else { 0 },
        ops_left: operations,
        scan_max,
        ckpt_every,
        since_ckpt: 0,
        salt: derive(m.seed, 2),
    };
    Ok(lines(out, gen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ycsb_zeta_constant() {
        // YCSB's precomputed ZETAN for 10^10 items, theta 0.99.
        let z = zeta(SCRAMBLED_ITEMS, 0.99);
        assert!((z - 26.46902820178302).abs() < 1e-6, "{}", z);
    }
}
