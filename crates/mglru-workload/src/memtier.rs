// SPDX-License-Identifier: GPL-2.0-only
//! memtier_benchmark driving memcached: memtier's key patterns and
//! SET:GET ratio, and memcached's item memory modelled as anonymous pages
//! of a `memcached` task (items in slab chunks inside 1 MiB slab pages).
//! See docs/WORKLOADS.md, section "memtier".

use std::collections::VecDeque;

use crate::lru::Lru;
use crate::rng::{derive, Rng};
use crate::stream::{lines, Source};
use crate::util::{fmt_size, page_span, shell_split, Machine, Params, GIB, MIB, NS_PER_SEC};
use crate::Lines;

/// memcached's item header with CAS (`sizeof(item)` 48 + 8).
const ITEM_HEADER: u64 = 56;
/// memcached's smallest slab chunk (48 B header + 48 B `-n` default).
const SMALLEST_CHUNK: u64 = 96;
const GROWTH_FACTOR: f64 = 1.25;
const SLAB_PAGE: u64 = MIB;

/// The chunk size of the slab class an item of `item` bytes lands in.
pub(crate) fn slab_chunk(item: u64) -> u64 {
    let mut size = SMALLEST_CHUNK;
    while size < item && size <= SLAB_PAGE / 2 {
        let next = ((size as f64) * GROWTH_FACTOR) as u64;
        size = next.div_ceil(8) * 8;
    }
    if size >= item && size <= SLAB_PAGE / 2 {
        size
    } else {
        // Larger items are chunked by memcached; model them as whole
        // multiples of half a slab page.
        item.div_ceil(SLAB_PAGE / 2) * (SLAB_PAGE / 2)
    }
}

/// memcached's item memory.
pub(crate) struct Slab {
    pub item: u64,
    pub chunk: u64,
    pub per_slab: u64,
    pub capacity: u64,
    key_min: u64,
    nkeys: u64,
    /// Keys present (direct mode: every key has its own slot).
    present: Vec<u64>,
    lru: Option<Lru>,
    /// True once any key was SET: before, every GET misses and touches
    /// nothing.
    pub ever_set: bool,
    pub task: String,
    pub region: String,
}

impl Slab {
    /// `limit`: memcached's `-m` in bytes (None: room for every key).
    pub fn new(item: u64, key_min: u64, key_max: u64, limit: Option<u64>) -> Slab {
        let chunk = slab_chunk(item);
        let per_slab = (SLAB_PAGE / chunk).max(1);
        let nkeys = key_max - key_min + 1;
        let needed = nkeys;
        let capacity = match limit {
            None => needed,
            Some(m) => {
                let slabs = (m / SLAB_PAGE).max(1);
                let cap = if chunk <= SLAB_PAGE { slabs * per_slab } else { (m / chunk).max(1) };
                cap.min(needed)
            }
        };
        let direct = capacity >= nkeys;
        Slab {
            item,
            chunk,
            per_slab,
            capacity,
            key_min,
            nkeys,
            present: if direct { vec![0; nkeys.div_ceil(64) as usize] } else { Vec::new() },
            lru: if direct { None } else { Some(Lru::new()) },
            ever_set: false,
            task: "memcached".to_string(),
            region: "items".to_string(),
        }
    }

    /// Bytes of the `items` region.
    pub fn region_bytes(&self) -> u64 {
        if self.chunk <= SLAB_PAGE {
            self.capacity.div_ceil(self.per_slab) * SLAB_PAGE
        } else {
            self.capacity * self.chunk
        }
    }

    fn slot_span(&self, slot: u64) -> (u64, u64) {
        let off = if self.chunk <= SLAB_PAGE {
            (slot / self.per_slab) * SLAB_PAGE + (slot % self.per_slab) * self.chunk
        } else {
            slot * self.chunk
        };
        page_span(off, self.item)
    }

    fn emit(&self, verb: &str, slot: u64, out: &mut VecDeque<String>) {
        let (p, c) = self.slot_span(slot);
        if c == 1 {
            out.push_back(format!("{} {} {} {}", verb, self.task, self.region, p));
        } else {
            out.push_back(format!("{} {} {} {} {}", verb, self.task, self.region, p, c));
        }
    }

    /// A SET: the item's pages are stored.
    pub fn set(&mut self, key: u64, out: &mut VecDeque<String>) {
        self.ever_set = true;
        let k = key - self.key_min;
        let slot = match &mut self.lru {
            None => {
                self.present[(k / 64) as usize] |= 1 << (k % 64);
                k
            }
            Some(l) => l.insert(k, self.capacity).0 as u64,
        };
        self.emit("store", slot, out);
    }

    /// A GET: the item's pages are loaded if the key is cached (a miss
    /// touches no item memory).
    pub fn get(&mut self, key: u64, out: &mut VecDeque<String>) {
        let k = key - self.key_min;
        let slot = match &mut self.lru {
            None => {
                if self.present[(k / 64) as usize] & (1 << (k % 64)) == 0 {
                    return;
                }
                Some(k)
            }
            Some(l) => l.touch(k).map(|s| s as u64),
        };
        if let Some(s) = slot {
            self.emit("load", s, out);
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "# memcached slab model: item {} B -> chunk {} B, {} items per 1 MiB slab page; {} keys, room for {} items ({} slab pages, {}){}",
            self.item,
            self.chunk,
            self.per_slab,
            self.nkeys,
            self.capacity,
            self.region_bytes() / SLAB_PAGE,
            fmt_size(self.region_bytes()),
            if self.lru.is_some() { "; fewer slots than keys: memcached's LRU reuses the least recently used slot" } else { "" }
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Pattern {
    Sequential,
    Random,
    Gaussian,
    Parallel,
}

#[derive(Clone, Debug)]
enum KeyGen {
    Seq { next: u64, lo: u64, hi: u64 },
    Rand { lo: u64, hi: u64 },
    Gauss { lo: u64, hi: u64, median: f64, sd: f64 },
}

impl KeyGen {
    fn next(&mut self, rng: &mut Rng) -> u64 {
        match self {
            KeyGen::Seq { next, lo, hi } => {
                let k = *next;
                *next = if k >= *hi { *lo } else { k + 1 };
                k
            }
            KeyGen::Rand { lo, hi } => *lo + rng.below(*hi - *lo + 1),
            KeyGen::Gauss { lo, hi, median, sd } => {
                for _ in 0..64 {
                    let v = (*median + rng.normal() * *sd).round();
                    if v >= *lo as f64 && v <= *hi as f64 {
                        return v as u64;
                    }
                }
                (median.round() as u64).clamp(*lo, *hi)
            }
        }
    }
}

struct Client {
    set_gen: KeyGen,
    get_gen: KeyGen,
    remaining: u64,
    pos: u64,
    rng: Rng,
}

/// One memtier_benchmark run (one command line).
#[derive(Clone, Debug)]
pub(crate) struct RunCfg {
    clients: u64,
    threads: u64,
    requests: Option<u64>,
    allkeys: bool,
    test_time: Option<u64>,
    rate_limit: Option<u64>,
    pub ratio: (u64, u64),
    pattern: (Pattern, Pattern),
    pub data: u64,
    pub key_min: u64,
    pub key_max: u64,
    key_prefix: String,
    median: Option<f64>,
    stddev: Option<f64>,
    runs: u64,
    pub ignored: Vec<String>,
}

impl RunCfg {
    /// Bytes of one item: header, key, terminator, data and CRLF.
    /// Length of the longest key (`--key-prefix` + the largest number).
    pub fn key_len(&self) -> u64 {
        self.key_prefix.len() as u64 + self.key_max.to_string().len() as u64
    }

    pub fn total_clients(&self) -> u64 {
        self.clients * self.threads
    }

    pub fn describe(&self) -> String {
        let pat = |p: Pattern| match p {
            Pattern::Sequential => "S",
            Pattern::Random => "R",
            Pattern::Gaussian => "G",
            Pattern::Parallel => "P",
        };
        format!(
            "{} clients ({} threads x {}), ratio {}:{}, key-pattern {}:{}, keys {}..{}, {}",
            self.total_clients(),
            self.threads,
            self.clients,
            self.ratio.0,
            self.ratio.1,
            pat(self.pattern.0),
            pat(self.pattern.1),
            self.key_min,
            self.key_max,
            match (self.allkeys, self.requests, self.test_time) {
                (true, _, _) => "requests: allkeys".to_string(),
                (_, Some(r), _) => format!("{} requests per client", r),
                (_, None, Some(t)) => format!("test-time {}s", t / NS_PER_SEC),
                _ => "10000 requests per client".to_string(),
            }
        )
    }
}

const VALUE_IGNORED: &[&str] = &[
    "server", "port", "unix-socket", "protocol", "pipeline", "authenticate", "out-file",
    "json-out-file", "client-stats", "select-db", "reconnect-interval", "data-offset",
    "expiry-range", "tls-cert", "tls-key", "tls-cacert", "sni", "print-percentiles",
    "wait-timeout", "num-slaves", "wait-ratio", "data-size-pattern", "hdr-file-prefix", "uri",
    "reconnect-on-error", "max-reconnect-attempts", "reconnect-backoff-factor",
    "connection-timeout", "thread-conn-start-min-jitter-micros",
    "thread-conn-start-max-jitter-micros",
];
const FLAG_IGNORED: &[&str] = &[
    "randomize", "distinct-client-seed", "hide-histogram", "debug", "show-config",
    "cluster-mode", "tls", "tls-skip-verify", "random-data", "data-verify", "verify-only",
    "generate-keys", "print-all-runs", "ipv4", "ipv6", "no-expiry", "help", "version",
];
const UNSUPPORTED: &[&str] = &[
    "data-size-range", "data-size-list", "data-import", "multi-key-get", "command",
    "command-ratio", "command-key-pattern", "key-zipf-exp", "monitor-input", "monitor-pattern",
];
const HANDLED: &[&str] = &[
    "requests", "clients", "threads", "test-time", "ratio", "data-size", "key-minimum",
    "key-maximum", "key-pattern", "key-stddev", "key-median", "key-prefix", "run-count",
    "rate-limiting",
];

fn long_of(short: char) -> Option<&'static str> {
    Some(match short {
        's' => "server",
        'p' => "port",
        'S' => "unix-socket",
        'P' => "protocol",
        'x' => "run-count",
        'D' => "debug",
        'a' => "authenticate",
        'o' => "out-file",
        'n' => "requests",
        'c' => "clients",
        't' => "threads",
        'd' => "data-size",
        'R' => "random-data",
        'h' => "help",
        'v' => "version",
        _ => return None,
    })
}

fn num(key: &str, v: &str) -> Result<u64, String> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| format!("memtier: --{}={}: expected a non-negative integer", key, v))
}

fn pattern(c: char, v: &str) -> Result<Pattern, String> {
    Ok(match c {
        'S' => Pattern::Sequential,
        'R' => Pattern::Random,
        'G' => Pattern::Gaussian,
        'P' => Pattern::Parallel,
        'Z' => return Err(format!("memtier: --key-pattern={}: the Z (zipf) pattern is not supported; use S, R, G or P", v)),
        _ => return Err(format!("memtier: --key-pattern={}: `{}` is not a pattern; use S, R, G or P (e.g. R:R)", v, c)),
    })
}

/// Parses one memtier_benchmark command line.
pub(crate) fn parse_run(cmd: &str) -> Result<RunCfg, String> {
    let words = shell_split(cmd).map_err(|e| format!("memtier: {}", e))?;
    let mut words: VecDeque<String> = words.into();
    if words.front().map(|w| w.ends_with("memtier_benchmark") || w == "memtier").unwrap_or(false) {
        words.pop_front();
    }
    let mut c = RunCfg {
        clients: 50,
        threads: 4,
        requests: None,
        allkeys: false,
        test_time: None,
        rate_limit: None,
        ratio: (1, 10),
        pattern: (Pattern::Random, Pattern::Random),
        data: 32,
        key_min: 0,
        key_max: 10_000_000,
        key_prefix: "memtier-".to_string(),
        median: None,
        stddev: None,
        runs: 1,
        ignored: Vec::new(),
    };
    while let Some(w) = words.pop_front() {
        let (key, inline): (String, Option<String>) = if let Some(long) = w.strip_prefix("--") {
            match long.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (long.to_string(), None),
            }
        } else if let Some(short) = w.strip_prefix('-') {
            let mut it = short.chars();
            let ch = it.next().ok_or_else(|| "memtier: empty option `-`".to_string())?;
            let long = long_of(ch).ok_or_else(|| format!("memtier: unknown option `-{}`", ch))?;
            let rest: String = it.collect();
            let rest = rest.strip_prefix('=').map(|x| x.to_string()).unwrap_or(rest);
            (long.to_string(), if rest.is_empty() { None } else { Some(rest) })
        } else {
            return Err(format!("memtier: unexpected argument `{}`: memtier_benchmark takes options only", w));
        };
        let key = key.as_str();
        let is_flag = FLAG_IGNORED.contains(&key);
        if UNSUPPORTED.contains(&key) {
            return Err(format!("memtier: option --{} is not supported by the generator", key));
        }
        if !is_flag && !VALUE_IGNORED.contains(&key) && !HANDLED.contains(&key) {
            return Err(format!("memtier: unknown option --{}", key));
        }
        let value = if is_flag {
            inline.unwrap_or_else(|| "1".to_string())
        } else {
            match inline {
                Some(v) => v,
                None => words.pop_front().ok_or_else(|| format!("memtier: option --{} needs a value", key))?,
            }
        };
        match key {
            "requests" => {
                if value == "allkeys" {
                    c.allkeys = true;
                } else {
                    c.requests = Some(num(key, &value)?);
                }
            }
            "clients" => c.clients = num(key, &value)?,
            "threads" => c.threads = num(key, &value)?,
            "test-time" => {
                let secs = num(key, &value)?;
                c.test_time = Some(secs.checked_mul(NS_PER_SEC).ok_or_else(|| {
                    format!("memtier: --test-time={}: too long (at most {} seconds)", value, u64::MAX / NS_PER_SEC)
                })?)
            }
            "rate-limiting" => c.rate_limit = Some(num(key, &value)?),
            "ratio" => {
                let (a, b) = value
                    .split_once(':')
                    .ok_or_else(|| format!("memtier: --ratio={}: expected SET:GET, e.g. 1:10", value))?;
                c.ratio = (num(key, a)?, num(key, b)?);
                if c.ratio.0 > u32::MAX as u64 || c.ratio.1 > u32::MAX as u64 {
                    return Err(format!(
                        "memtier: --ratio={}: each side is at most 4294967295 (memtier reads them as unsigned int)",
                        value
                    ));
                }
                if c.ratio.0 + c.ratio.1 == 0 {
                    return Err("memtier: --ratio=0:0 issues no request".to_string());
                }
            }
            "data-size" => c.data = num(key, &value)?,
            "key-minimum" => c.key_min = num(key, &value)?,
            "key-maximum" => c.key_max = num(key, &value)?,
            "key-pattern" => {
                let (a, b) = value
                    .split_once(':')
                    .ok_or_else(|| format!("memtier: --key-pattern={}: expected SET:GET, e.g. R:R", value))?;
                let one = |s: &str| -> Result<Pattern, String> {
                    let mut ch = s.chars();
                    match (ch.next(), ch.next()) {
                        (Some(x), None) => pattern(x, &value),
                        _ => Err(format!("memtier: --key-pattern={}: each side is one letter (S, R, G or P)", value)),
                    }
                };
                c.pattern = (one(a)?, one(b)?);
            }
            "key-stddev" => {
                c.stddev = Some(value.parse::<f64>().map_err(|_| format!("memtier: --key-stddev={}: not a number", value))?)
            }
            "key-median" => {
                c.median = Some(value.parse::<f64>().map_err(|_| format!("memtier: --key-median={}: not a number", value))?)
            }
            "key-prefix" => c.key_prefix = value,
            "run-count" => c.runs = num(key, &value)?.max(1),
            _ => {
                let item = if is_flag && value == "1" { format!("--{}", key) } else { format!("--{}={}", key, value) };
                if !c.ignored.contains(&item) {
                    c.ignored.push(item);
                }
            }
        }
    }
    if c.clients == 0 || c.threads == 0 {
        return Err("memtier: --clients and --threads must be at least 1".to_string());
    }
    // Not tasks (the generator has one), but one client state each: the
    // same bound keeps the generator's memory finite.
    let conns = c.clients.saturating_mul(c.threads);
    if conns > crate::util::MAX_TASKS {
        return Err(format!(
            "memtier: --clients={} x --threads={} is {} connections, more than the {} the generator keeps state for: use fewer",
            c.clients,
            c.threads,
            conns,
            crate::util::MAX_TASKS
        ));
    }
    if c.key_max < c.key_min {
        return Err(format!(
            "memtier: --key-maximum={} is below --key-minimum={}",
            c.key_max, c.key_min
        ));
    }
    Ok(c)
}

/// The requests of one run: clients interleaved round-robin.
pub(crate) struct Run {
    clients: Vec<Client>,
    next: usize,
    ratio: (u64, u64),
    runs_left: u64,
    cfg: RunCfg,
    seed: u64,
    default_rate: u64,
}

impl Run {
    /// `rate`: total requests per second for `--test-time` (memtier's
    /// `--rate-limiting` per client wins).
    pub fn new(cfg: RunCfg, seed: u64, rate: u64) -> Run {
        let mut r = Run { clients: Vec::new(), next: 0, ratio: cfg.ratio, runs_left: cfg.runs, cfg, seed, default_rate: rate };
        r.start();
        r
    }

    fn start(&mut self) {
        let c = &self.cfg;
        let n = c.total_clients();
        let range = c.key_max - c.key_min + 1;
        let rate = c.rate_limit.map(|r| r.saturating_mul(n)).unwrap_or(self.default_rate).max(1);
        let per_client_total = |i: u64| -> u64 {
            if c.allkeys {
                range / n + u64::from(i < range % n)
            } else if let Some(r) = c.requests {
                r
            } else if let Some(t) = c.test_time {
                let total = ((rate as u128 * t as u128) / NS_PER_SEC as u128).min(u64::MAX as u128) as u64;
                total / n + u64::from(i < total % n)
            } else {
                10_000
            }
        };
        let run_no = self.cfg.runs - self.runs_left;
        let median = c.median.unwrap_or((c.key_min as f64 + c.key_max as f64) / 2.0);
        let sd = c.stddev.unwrap_or((c.key_max - c.key_min) as f64 / 6.0);
        let make = |p: Pattern, i: u64| -> KeyGen {
            match p {
                Pattern::Sequential => KeyGen::Seq { next: c.key_min, lo: c.key_min, hi: c.key_max },
                Pattern::Random => KeyGen::Rand { lo: c.key_min, hi: c.key_max },
                Pattern::Gaussian => KeyGen::Gauss { lo: c.key_min, hi: c.key_max, median, sd },
                Pattern::Parallel => {
                    let lo = c.key_min + (range as u128 * i as u128 / n as u128) as u64;
                    let hi = c.key_min + (range as u128 * (i + 1) as u128 / n as u128) as u64;
                    let hi = hi.saturating_sub(1).max(lo);
                    KeyGen::Seq { next: lo, lo, hi }
                }
            }
        };
        self.clients = (0..n)
            .map(|i| Client {
                set_gen: make(c.pattern.0, i),
                get_gen: make(c.pattern.1, i),
                remaining: per_client_total(i),
                pos: 0,
                rng: Rng::new(derive(self.seed, (run_no << 40) | i)),
            })
            .collect();
        self.next = 0;
        self.runs_left -= 1;
    }

    /// Emits the next request into `out`; false when the run is over.
    pub fn next_request(&mut self, slab: &mut Slab, out: &mut VecDeque<String>) -> bool {
        loop {
            let n = self.clients.len();
            for _ in 0..n {
                let i = self.next;
                self.next = (self.next + 1) % n;
                let cl = &mut self.clients[i];
                if cl.remaining == 0 {
                    continue;
                }
                cl.remaining -= 1;
                let cycle = self.ratio.0 + self.ratio.1;
                let is_set = cl.pos % cycle < self.ratio.0;
                cl.pos += 1;
                if is_set {
                    let k = cl.set_gen.next(&mut cl.rng);
                    slab.set(k, out);
                } else {
                    let k = cl.get_gen.next(&mut cl.rng);
                    slab.get(k, out);
                }
                return true;
            }
            if self.runs_left == 0 {
                return false;
            }
            self.start();
        }
    }
}

/// Splits several memtier command lines joined with `&&`.
pub(crate) fn split_runs(s: &str) -> Vec<&str> {
    s.split("&&").map(|x| x.trim()).filter(|x| !x.is_empty()).collect()
}

/// The slab for a set of runs (one item size, the union of key ranges).
pub(crate) fn slab_for(runs: &[RunCfg], limit: Option<u64>) -> Result<Slab, String> {
    // Only SETs create items: runs that only GET (--ratio 0:N) may leave
    // -d at its default.
    let setters: Vec<&RunCfg> = runs.iter().filter(|r| r.ratio.0 > 0).collect();
    let sized: Vec<&RunCfg> = if setters.is_empty() { runs.iter().collect() } else { setters };
    let first = sized[0];
    for r in &sized {
        if r.data != first.data {
            return Err(format!(
                "memtier: -d differs between runs that SET ({} vs {}): the slab model needs one item size",
                first.data, r.data
            ));
        }
    }
    let key_min = runs.iter().map(|r| r.key_min).min().unwrap_or(0);
    let key_max = runs.iter().map(|r| r.key_max).max().unwrap_or(0);
    let key_len = runs.iter().map(|r| r.key_len()).max().unwrap_or(0);
    if first.data > MAX_DATA {
        return Err(format!(
            "memtier: -d {} is larger than memcached's largest item (1G, its -I limit): use a smaller --data-size",
            first.data
        ));
    }
    let item = ITEM_HEADER + key_len + 1 + first.data + 2;
    if key_max - key_min >= 1 << 32 {
        return Err(format!(
            "memtier: the key range {}..{} has more than 2^32 keys; the memcached model keeps a bit per key: narrow --key-minimum/--key-maximum",
            key_min, key_max
        ));
    }
    let slab = Slab::new(item, key_min, key_max, limit);
    check_slab_region(&slab, "memtier: -d and the key range (--key-minimum..--key-maximum), or memcached_mem=,")?;
    Ok(slab)
}

/// memcached's largest item (its `-I` option allows at most 1 GiB).
pub(crate) const MAX_DATA: u64 = 1 << 30;

/// Refuses a slab region larger than trace v1 allows (its size wrapped
/// around 2^64 with a huge -d); `what` names the inputs that size it.
pub(crate) fn check_slab_region(slab: &Slab, what: &str) -> Result<(), String> {
    let bytes = if slab.chunk <= SLAB_PAGE {
        slab.capacity.div_ceil(slab.per_slab) as u128 * SLAB_PAGE as u128
    } else {
        slab.capacity as u128 * slab.chunk as u128
    };
    if bytes > mglru_trace::MAX_REGION_SIZE as u128 {
        return Err(format!(
            "{what} make memcached's item memory {} bytes, larger than trace v1 allows for a region ({}): use fewer keys, a smaller -d or memcached_mem=",
            bytes,
            crate::util::fmt_size(mglru_trace::MAX_REGION_SIZE)
        ));
    }
    Ok(())
}

struct MemtierGen {
    runs: VecDeque<Run>,
    slab: Slab,
    /// Requests since the last line: GET misses touch no item memory, so a
    /// run of them writes nothing; every MISS_NOTE of them in a row a
    /// comment says so, which keeps the time between two lines bounded (a
    /// consumer reading lines never waits on an unbounded run of misses).
    silent: u64,
}

/// Consecutive silent requests per `# ... GET misses` comment.
const MISS_NOTE: u64 = 1 << 10;

impl Source for MemtierGen {
    fn step(&mut self, out: &mut VecDeque<String>) -> Result<bool, String> {
        // A GET miss emits nothing: loop until a line or the end.
        for _ in 0..1024 {
            let Some(run) = self.runs.front_mut() else { return Ok(false) };
            // A run that only GETs from an empty memcached emits nothing:
            // skip it instead of drawing its (up to 2^64) misses one by
            // one without a line to show for them.
            if run.ratio.0 == 0 && !self.slab.ever_set {
                self.runs.pop_front();
                continue;
            }
            if run.next_request(&mut self.slab, out) {
                if !out.is_empty() {
                    self.silent = 0;
                    return Ok(true);
                }
                self.silent += 1;
                if self.silent == MISS_NOTE {
                    self.silent = 0;
                    out.push_back(format!("# {} requests in a row missed (GETs of keys not in memcached touch no item memory)", MISS_NOTE));
                    return Ok(true);
                }
            } else {
                self.runs.pop_front();
            }
        }
        Ok(true)
    }
}

/// The default rate model for --test-time: requests per second, all
/// clients together.
pub(crate) const DEFAULT_RATE_OPS: u64 = 100_000;

/// `memtier:ARGS[ && ARGS...][;PARAMS]`.
pub(crate) fn generator(rest: &str) -> Result<Lines, String> {
    let (body, params) = crate::fio::split_args_params(rest);
    let mut p = Params::parse("memtier", params)?;
    let m = Machine::from_params(&mut p, GIB, None, false, None)?;
    let limit = p.size_opt("memcached_mem")?;
    // memcached's -m below one slab page would be raised to one (never silently).
    if let Some(m) = limit.filter(|&m| m < SLAB_PAGE) {
        return Err(format!("memtier: memcached_mem={} is smaller than one slab page of memcached (1M): at least 1M", fmt_size(m)));
    }
    let rate = p.u64("rate_ops", DEFAULT_RATE_OPS)?.max(1);
    p.finish()?;
    let cmds = split_runs(body);
    if cmds.is_empty() {
        return Err("memtier: give a memtier_benchmark command line, e.g. memtier:--ratio=1:10 --key-pattern=R:R -n 1000".to_string());
    }
    let cfgs = cmds.iter().map(|c| parse_run(c)).collect::<Result<Vec<_>, _>>()?;
    let slab = slab_for(&cfgs, limit)?;
    let mut out = VecDeque::new();
    out.push_back(format!("# mglru-workload memtier: {} run(s) against memcached", cfgs.len()));
    for (i, c) in cfgs.iter().enumerate() {
        out.push_back(format!("# run {}: {}", i + 1, c.describe()));
    }
    let mut ignored: Vec<String> = Vec::new();
    for c in &cfgs {
        for i in &c.ignored {
            if !ignored.contains(i) {
                ignored.push(i.clone());
            }
        }
    }
    if !ignored.is_empty() {
        out.push_back(format!("# ignored: {}", ignored.join(" ")));
    }
    out.push_back(slab.describe());
    m.setup_lines(&mut out);
    let memcg = m.memcg_max.map(|_| "memcached");
    match memcg {
        Some(name) => {
            out.push_back(Machine::memcg_line(name, m.memcg_max));
            out.push_back(format!("task memcached memcg={}", name));
        }
        None => out.push_back("task memcached".to_string()),
    }
    out.push_back(format!("anon memcached items size={}", fmt_size(slab.region_bytes())));
    let runs = cfgs
        .into_iter()
        .enumerate()
        .map(|(i, c)| Run::new(c, derive(m.seed, 77 + i as u64), rate))
        .collect();
    Ok(lines(out, MemtierGen { runs, slab, silent: 0 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_classes() {
        // 96, 120, 152, 192, 240, 304, 384, 480, 600, 752, 944, 1184,
        // 1480, 1856, 2320, ...
        assert_eq!(slab_chunk(50), 96);
        assert_eq!(slab_chunk(100), 120);
        assert_eq!(slab_chunk(2075), 2320);
    }

}
