// SPDX-License-Identifier: GPL-2.0-only
//! Property tests for shmem: random traces whose files are on disk, on
//! tmpfs or memfds and whose anonymous regions are private or shared
//! (MAP_SHARED|MAP_ANONYMOUS), with munmap, truncate, unlink, mlock,
//! populate=y, madvise/fadvise, accesses, reclaim and exits, under memcg
//! pressure with no swap, a block device, a synchronous one or zram; the
//! accounting invariants (shmem's included: page cache or swap cache,
//! swap entries, `shmem` per memcg) are checked along the way, and two
//! runs give the same report.

use mglru_core::json::report_json;
use mglru_core::{Policy, RunOptions, Simulator};
use mglru_trace::TraceReader;

struct Rng(mglru_core::rng::Rng);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
}

/// A region of a task: its name, pages, the file it maps (index) or none,
/// and whether it is mapped.
struct Region {
    task: usize,
    name: String,
    pages: u64,
    file: Option<usize>,
    mapped: bool,
}

/// A file: its name (with a generation after unlinks), defined size and
/// current size in pages.
struct File {
    name: String,
    max: u64,
    cur: u64,
}

/// A file's kind: on disk (with a readahead window), tmpfs or memfd.
fn kind(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!("readahead={}K", [0, 16, 128][r.below(3) as usize]),
        1 | 2 => "tmpfs=y".to_string(),
        _ => "memfd=y".to_string(),
    }
}

fn random_trace(seed: u64, nops: usize) -> String {
    let mut r = Rng(mglru_core::rng::Rng::from_state(seed));
    let mut t = String::new();
    t.push_str("memory 64M\n");
    match r.below(4) {
        0 => {}
        1 => t.push_str("swap 16M\n"),
        2 => t.push_str("swap 16M sync=y\n"),
        _ => t.push_str("swap 16M zram=y ratio=3\n"),
    }
    t.push_str(&format!("memcg m max={}M\n", 4 + r.below(12)));
    let mut files: Vec<File> = Vec::new();
    for f in 0..2 {
        let pages = 256 * (1 + r.below(8));
        t.push_str(&format!("file f{f} size={}K {}\n", pages * 4, kind(&mut r)));
        files.push(File { name: format!("f{f}"), max: pages, cur: pages });
    }
    let ntasks = 2;
    let mut alive = [true; 2];
    let mut regions: Vec<Region> = Vec::new();
    let mut serial = 0;
    for k in 0..ntasks {
        t.push_str(&format!("task t{k} memcg=m\n"));
    }
    for _ in 0..nops {
        let k = r.below(ntasks as u64) as usize;
        if !alive[k] {
            continue;
        }
        let live: Vec<usize> = (0..regions.len()).filter(|&i| regions[i].task == k && regions[i].mapped).collect();
        match r.below(100) {
            // Map: anon or a file, sometimes populated.
            0..=7 => {
                serial += 1;
                let name = format!("r{}", serial % 4);
                if regions.iter().any(|x| x.task == k && x.mapped && x.name == name) {
                    continue;
                }
                let pop = if r.below(3) == 0 { " populate=y" } else { "" };
                if r.below(2) == 0 {
                    let pages = 1 + r.below(1024);
                    let shared = if r.below(2) == 0 { " shared=y" } else { "" };
                    t.push_str(&format!("anon t{k} {name} size={}K{pop}{shared}\n", pages * 4));
                    regions.push(Region { task: k, name, pages, file: None, mapped: true });
                } else {
                    let f = r.below(files.len() as u64) as usize;
                    if files[f].cur == 0 {
                        continue;
                    }
                    t.push_str(&format!("mmap t{k} {name} file={}{pop}\n", files[f].name));
                    regions.push(Region { task: k, name, pages: files[f].cur, file: Some(f), mapped: true });
                }
            }
            8..=9 if !live.is_empty() => {
                let i = live[r.below(live.len() as u64) as usize];
                t.push_str(&format!("munmap t{k} {}\n", regions[i].name));
                regions[i].mapped = false;
            }
            10..=13 if !live.is_empty() => {
                let i = live[r.below(live.len() as u64) as usize];
                let verb = if r.below(2) == 0 { "mlock" } else { "munlock" };
                t.push_str(&format!("{verb} t{k} {}\n", regions[i].name));
            }
            14..=15 => {
                let f = r.below(files.len() as u64) as usize;
                let pages = r.below(files[f].max + 1);
                t.push_str(&format!("truncate {} {}\n", files[f].name, pages * 4096));
                files[f].cur = pages;
            }
            16 if r.below(3) == 0 => {
                let f = r.below(files.len() as u64) as usize;
                t.push_str(&format!("unlink {}\n", files[f].name));
                // Mappings of the old file keep it; it is a new file now.
                let cur = files[f].cur;
                for x in regions.iter_mut().filter(|x| x.file == Some(f)) {
                    x.pages = x.pages.min(cur);
                    x.file = Some(usize::MAX);
                }
                serial += 1;
                let pages = 256 * (1 + r.below(4));
                let name = format!("f{f}");
                t.push_str(&format!("file {name} size={}K {}\n", pages * 4, kind(&mut r)));
                files[f] = File { name, max: pages, cur: pages };
            }
            17..=44 => {
                let f = r.below(files.len() as u64) as usize;
                if files[f].cur == 0 {
                    continue;
                }
                let p = r.below(files[f].cur);
                let c = 1 + r.below(16.min(files[f].cur - p));
                let verb = if r.below(3) == 0 { "write" } else { "read" };
                t.push_str(&format!("{verb} t{k} {} {p} {c}\n", files[f].name));
            }
            45..=89 if !live.is_empty() => {
                let i = live[r.below(live.len() as u64) as usize];
                // A mapped file's pages end at its current size (a
                // mapping of an unlinked file keeps its pages).
                let limit = match regions[i].file {
                    Some(f) if f != usize::MAX => regions[i].pages.min(files[f].cur),
                    _ => regions[i].pages,
                };
                if limit == 0 {
                    continue;
                }
                let p = r.below(limit);
                let c = 1 + r.below(32.min(limit - p));
                let verb = if r.below(3) == 0 { "store" } else { "load" };
                t.push_str(&format!("{verb} t{k} {} {p} {c}\n", regions[i].name));
            }
            90..=93 => t.push_str(&format!("reclaim m {}K\n", 4 * (1 + r.below(256)))),
            94..=95 => t.push_str(&format!("sleep {}ms\n", r.below(1500))),
            97..=98 => {
                let advice = ["dontneed", "willneed", "random", "normal"][r.below(4) as usize];
                if !live.is_empty() && r.below(2) == 0 {
                    let i = live[r.below(live.len() as u64) as usize];
                    t.push_str(&format!("advise t{k} {} {advice}\n", regions[i].name));
                } else {
                    let f = r.below(files.len() as u64) as usize;
                    t.push_str(&format!("advise t{k} {} {advice}\n", files[f].name));
                }
            }
            96 if r.below(8) == 0 => {
                t.push_str(&format!("exit t{k}\n"));
                alive[k] = false;
            }
            _ => {}
        }
    }
    t
}

/// Runs the trace, checking the invariants every 10 lines; returns the
/// report and the most shmem pages seen on swap (swap entries in shmem
/// files) at those points.
fn run(text: &str, policy: Policy, seed: u64) -> (String, u64) {
    let mut most_swapped = 0;
    let mut reader = TraceReader::from_str("random", text);
    let mut sim = Simulator::new(RunOptions { policy: Some(policy), ..Default::default() });
    let mut i = 0;
    while let Some(op) = reader.next_op().unwrap_or_else(|e| panic!("seed {seed}: generator wrote a bad trace: {e}\n{text}")) {
        sim.apply(&op).unwrap_or_else(|e| panic!("seed {seed} {policy:?}, {}: {e}", reader.location()));
        i += 1;
        if i % 10 == 0 {
            if let Some(k) = sim.kernel() {
                k.check_invariants().unwrap_or_else(|e| panic!("seed {seed} {policy:?}, after {}: {e}", reader.location()));
                most_swapped = most_swapped.max(k.files.iter().map(|f| f.swapped).sum::<u64>());
            }
        }
    }
    let k = sim.finish().unwrap();
    k.check_invariants().unwrap_or_else(|e| panic!("seed {seed} {policy:?}, at the end: {e}"));
    let mut rep = k.report(&reader);
    rep.sim.wall_seconds = 0.0;
    (report_json(&rep), most_swapped)
}

#[test]
fn invariants_hold_with_shmem_files_and_shared_anonymous_memory() {
    let mut swapped_runs = 0;
    for seed in 0..40 {
        let text = random_trace(seed, 800);
        for policy in [Policy::Classic, Policy::Mglru] {
            let (a, swapped) = run(&text, policy, seed);
            swapped_runs += u32::from(swapped > 0);
            if seed % 10 == 0 {
                assert_eq!(a, run(&text, policy, seed).0, "seed {seed} {policy:?}: two runs differ");
            }
        }
    }
    // The traces do exercise shmem's swap-out (and so its swap-in paths).
    assert!(swapped_runs >= 10, "only {swapped_runs} of 80 runs swapped shmem out");
}

