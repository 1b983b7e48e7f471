// SPDX-License-Identifier: GPL-2.0-only
//! Generators: hand-checked page streams on small inputs, determinism,
//! streaming, and errors that name the bad part.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::{all, gen, gen_err, lines, statements, tmp};

// ---------------------------------------------------------------- fio ---

#[test]
fn fio_sequential_read_with_loops() {
    // 16K file, 8K blocks: two 2-page reads per loop; the second loop
    // reopens the file, which invalidates its cache.
    let got = gen("fio:--name=seq --size=16k --bs=8k --rw=read --loops=2;memory=64M");
    let want = lines(
        "
        memory 64M
        file seq.0.0 size=16K
        task seq.0
        advise seq.0 seq.0.0 sequential
        read seq.0 seq.0.0 0 2
        read seq.0 seq.0.0 2 2
        advise seq.0 seq.0.0 dontneed
        read seq.0 seq.0.0 0 2
        read seq.0 seq.0.0 2 2
        exit seq.0
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn fio_mmap_time_based_unaligned_blocks_wrap() {
    // 6K blocks over an 18K file: [0,6K) pages 0-1, [6K,12K) pages 1-2,
    // [12K,18K) pages 3-4; the 4th I/O wraps with an invalidation. Rate
    // model: 4 I/Os/s x 1 s.
    let got = gen("fio:--name=w --rw=write --bs=6k --size=18k --time_based --runtime=1 --ioengine=mmap;rate_iops=4");
    let want = lines(
        "
        memory 1G
        file w.0.0 size=18K
        task w.0
        mmap w.0 f0 file=w.0.0
        advise w.0 w.0.0 sequential
        advise w.0 f0 sequential
        store w.0 f0 0 2
        store w.0 f0 1 2
        store w.0 f0 3 2
        advise w.0 f0 dontneed
        store w.0 f0 0 2
        exit w.0
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn fio_jobs_round_robin_and_shared_files() {
    // Two clones sharing one file through filename_format (no $jobnum),
    // interleaved one I/O per job per round; fadvise_hint=0: no advice;
    // ramp_time counts in the rate model (1 s + 1 s at 2 I/Os/s).
    let got = gen(
        "fio:fio --name=j --numjobs=2 --directory=/mnt --filename_format='data.$filenum' --size=8k \
         --rw=read --fadvise_hint=0 --time_based --ramp_time=1 --runtime=1 --iodepth=64 --thread;rate_iops=2,memcg_max=1G",
    );
    let want = lines(
        "
        memory 1G
        memcg fio max=1G
        file /mnt/data.0 size=8K
        task j.0 memcg=fio
        task j.1 memcg=fio
        read j.0 /mnt/data.0 0
        read j.1 /mnt/data.0 0
        read j.0 /mnt/data.0 1
        read j.1 /mnt/data.0 1
        advise j.0 /mnt/data.0 dontneed
        read j.0 /mnt/data.0 0
        advise j.1 /mnt/data.0 dontneed
        read j.1 /mnt/data.0 0
        read j.0 /mnt/data.0 1
        exit j.0
        read j.1 /mnt/data.0 1
        exit j.1
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn fio_ignored_options_are_listed() {
    let all = common::all(
        mglru_workload::workload(
            "fio:-name=mglru --numjobs=1 --size=16k --buffered=1 --ioengine=io_uring --iodepth=128 \
             --iodepth_batch_submit=32 --iodepth_batch_complete=32 --rw=randread --norandommap --group_reporting --number_ios=1",
        )
        .unwrap(),
    );
    assert!(all.iter().any(|l| l == "# ignored: iodepth=128 iodepth_batch_submit=32 iodepth_batch_complete=32 group_reporting"), "{:?}", all);
}

/// Pages read by the statements `read TASK FILE PAGE` of a trace.
fn read_pages(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .filter(|l| l.starts_with("read ") || l.starts_with("load "))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn fio_randread_visits_every_block_once_per_pass() {
    // Without --norandommap each pass is a permutation of the 16 blocks;
    // passes are separated by an invalidation and differ from each other.
    let got = gen("fio:--name=r --size=64k --rw=randread --loops=3");
    let mut passes: Vec<Vec<u64>> = vec![Vec::new()];
    for l in &got {
        if l.contains("dontneed") {
            passes.push(Vec::new());
        } else if l.starts_with("read ") {
            passes.last_mut().unwrap().push(l.split_whitespace().nth(3).unwrap().parse().unwrap());
        }
    }
    assert_eq!(passes.len(), 3);
    for p in &passes {
        let mut s = p.clone();
        s.sort_unstable();
        assert_eq!(s, (0..16).collect::<Vec<u64>>());
    }
    assert_ne!(passes[0], passes[1]);
    assert_ne!(passes[0], (0..16).collect::<Vec<u64>>());
}

#[test]
fn fio_zipf_is_skewed_and_scattered() {
    let got = gen("fio:--name=z --size=4m --rw=randread --random_distribution=zipf:1.2 --norandommap --io_size=1g --number_ios=20000");
    let pages = read_pages(&got);
    assert_eq!(pages.len(), 20000);
    let mut hist: HashMap<u64, u64> = HashMap::new();
    for p in &pages {
        assert!(*p < 1024);
        *hist.entry(*p).or_default() += 1;
    }
    let (&hot, &n) = hist.iter().max_by_key(|(_, n)| **n).unwrap();
    // zipf 1.2 over 1024 blocks: the top block takes about 1/zeta ~ 20%.
    assert!(n > 2000, "top block has only {} hits", n);
    // fio scatters the ranks over the file; the hottest block is not
    // simply block 0 (seeded bijection).
    let _ = hot;
    assert!(hist.len() > 200, "only {} distinct blocks", hist.len());
}

#[test]
fn fio_zipf_with_center_is_not_scattered() {
    // With a center the ranks are not hashed: rank 0 sits at center*n.
    let got = gen("fio:--name=z --size=4m --rw=randread --random_distribution=zipf:1.5:0.5 --norandommap --io_size=1g --number_ios=5000");
    let pages = read_pages(&got);
    let hot = pages.iter().filter(|&&p| p == 512).count();
    assert!(hot > 1000, "block 512 has {} hits", hot);
}

#[test]
fn fio_pareto_and_normal() {
    let pages = read_pages(&gen(
        "fio:--name=p --size=4m --rw=randread --random_distribution=pareto:0.2:0 --norandommap --io_size=1g --number_ios=20000",
    ));
    // 80/20: with center 0 the hot 20% are blocks 0..204.
    let hot = pages.iter().filter(|&&p| p < 205).count() as f64 / pages.len() as f64;
    assert!((hot - 0.8).abs() < 0.03, "pareto hot share {}", hot);
    let pages = read_pages(&gen(
        "fio:--name=n --size=4m --rw=randread --random_distribution=normal:5:0 --norandommap --io_size=1g --number_ios=20000",
    ));
    // normal, sigma 5% of 1024 blocks, centered on block 512 (+0 offset):
    // ~68% within one sigma.
    let near = pages.iter().filter(|&&p| (p as i64 - 512).abs() <= 51).count() as f64 / pages.len() as f64;
    assert!((near - 0.68).abs() < 0.04, "normal share within 1 sigma {}", near);
}

#[test]
fn fio_randrw_mix() {
    let got = gen("fio:--name=m --size=1m --rw=randrw --rwmixread=70 --norandommap --io_size=1g --number_ios=10000");
    let reads = got.iter().filter(|l| l.starts_with("read ")).count() as f64;
    let writes = got.iter().filter(|l| l.starts_with("write ")).count() as f64;
    assert_eq!(reads + writes, 10000.0);
    assert!((reads / 10000.0 - 0.7).abs() < 0.03, "read share {}", reads / 10000.0);
}

#[test]
fn fio_job_file() {
    let path = tmp(
        "jobs.fio",
        b"; a job file\n[global]\ndirectory=/data\nsize=8k\nrw=read\nfadvise_hint=0\niodepth=8\n\n[a]\nbs=8k\n\n[b]\nrw=write\nnumjobs=1\n",
    );
    let got = gen(&format!("fio-job:{};memory=16M", path.display()));
    let want = lines(
        "
        memory 16M
        file /data/a.0.0 size=8K
        file /data/b.0.0 size=8K
        task a.0
        task b.0
        read a.0 /data/a.0.0 0 2
        exit a.0
        write b.0 /data/b.0.0 0
        write b.0 /data/b.0.0 1
        exit b.0
        ",
    );
    assert_eq!(got, want);
    let e = gen_err("fio-job:/nonexistent/job.fio");
    assert!(e.contains("cannot read `/nonexistent/job.fio`"), "{}", e);
    let bad = tmp("bad.fio", b"[global]\nsize=1m\n[job\nrw=read\n");
    let e = gen_err(&format!("fio-job:{}", bad.display()));
    assert!(e.contains("bad.fio:3:") && e.contains("section header"), "{}", e);
}

#[test]
fn fio_errors_name_the_problem() {
    let e = gen_err("fio:--name=d --size=1m --direct=1");
    assert!(e.contains("O_DIRECT") && e.contains("--buffered=1"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --frobnicate=3");
    assert!(e.contains("unknown fio option `frobnicate`"), "{}", e);
    let e = gen_err("fio:--name=d --rw=read");
    assert!(e.contains("--size is required"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --rw=readrandom");
    assert!(e.contains("unknown --rw=readrandom"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --rw=randread --random_distribution=zipf:1");
    assert!(e.contains("zipf theta"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --time_based");
    assert!(e.contains("--time_based needs --runtime"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --ioengine=splice");
    assert!(e.contains("--ioengine=splice is not modelled"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --verify=md5");
    assert!(e.contains("`verify`"), "{}", e);
    let e = gen_err("fio:--size=1m");
    assert!(e.contains("--name"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m;memroy=1G");
    assert!(e.contains("unknown parameter `memroy`") && e.contains("memory"), "{}", e);
    let e = gen_err("fio:--name=d --size=1m --bs=4k --size=1.5g");
    assert!(e.contains("fractions"), "{}", e);
}

#[test]
fn fio_job_file_errors_name_the_line() {
    // An error about an option names the line that set it; an inherited
    // option is named at its [global] line; an error about the job as a
    // whole names its section header.
    let path = tmp(
        "job.fio",
        b"; rw is misspelt in job1\n[global]\ndirectory=/data\nsize=1m\n\n[job1]\nrw=randred\n",
    );
    let e = gen_err(&format!("fio-job:{}", path.display()));
    assert_eq!(
        e,
        format!(
            "{}:7: job `job1`: unknown --rw=randred; use read, write, randread, randwrite, rw/readwrite or randrw",
            path.display()
        )
    );
    // Inherited from [global] (line 3); `readwrite` is fio's alias of rw.
    let path = tmp("global.fio", b"[global]\nsize=1m\nreadwrite=randred\n[a]\n[b]\n");
    let e = gen_err(&format!("fio-job:{}", path.display()));
    assert_eq!(
        e,
        format!(
            "{}:3: job `a`: unknown --rw=randred; use read, write, randread, randwrite, rw/readwrite or randrw",
            path.display()
        )
    );
    // A job overriding a global option is named at its own line (8), and
    // errors in a later job name that job.
    let path = tmp("later.fio", b"[global]\nsize=1m\nbs=4k\n[a]\nrw=read\n[b]\nrw=write\nbs=0\n");
    let e = gen_err(&format!("fio-job:{}", path.display()));
    assert_eq!(e, format!("{}:8: job `b`: --bs must be greater than 0", path.display()));
    // Values, unknown and unsupported options, O_DIRECT.
    for (text, want) in [
        (&b"[j]\nsize=1m\nnumjobs=two\n"[..], "3: job `j`: --numjobs=two is not a non-negative integer"),
        (b"[j]\nsize=1.5g\n", "2: job `j`: --size: size `1.5g`: fractions are not supported; write e.g. 1536m instead of 1.5g"),
        (
            b"[j]\nsize=1m\nfrobnicate=3\n",
            "3: job `j`: unknown fio option `frobnicate`; if it does not change which file pages are accessed, \
             report it so it can be added to the ignored list, otherwise remove it",
        ),
        (b"[j]\nsize=1m\n\nverify=md5\n", "4: job `j`: fio option `verify` is not supported by the generator: verification reads change the stream"),
        (
            b"[global]\ndirect=1\n[j]\nsize=1m\n",
            "2: job `j`: O_DIRECT (--direct=1 / --buffered=0) bypasses the page cache; nothing to simulate: use --buffered=1",
        ),
        (
            b"[j]\nsize=1m\nrw=randread\nrandom_distribution=zipf:1\n",
            "4: job `j`: --random_distribution=zipf:1: zipf theta must be > 0 and not 1",
        ),
        (b"[j]\nsize=1m\ntime_based\n", "3: job `j`: --time_based needs --runtime"),
        (b"[j]\nsize=4k\nbs=8k\n", "3: job `j`: the file size 4096 is smaller than --bs=8192: raise --size"),
        // No option to blame: the section header.
        (b"[global]\nrw=read\n\n[j]\nbs=4k\n", "4: job `j`: --size is required (the generator cannot look at existing files)"),
    ] {
        let path = tmp("j.fio", text);
        let e = gen_err(&format!("fio-job:{}", path.display()));
        assert_eq!(e, format!("{}:{}", path.display(), want));
    }
    // The command line keeps its form: there are no lines.
    let e = gen_err("fio:--name=job1 --size=1m --rw=randred");
    assert_eq!(e, "fio job `job1`: unknown --rw=randred; use read, write, randread, randwrite, rw/readwrite or randrw");
    let e = gen_err("fio:--name=d --size=1m --bs=0");
    assert_eq!(e, "fio job `d`: --bs must be greater than 0");
}

// ------------------------------------------------------------ memtier ---

#[test]
fn memtier_parallel_load_then_sequential_gets() {
    // keys 1..4, -d 2000: item 56 + 9 (key) + 1 + 2002 = 2068 B in 2320 B
    // chunks: slot 0 = [0, 2068) page 0, slot 1 = [2320, 4388) pages 0-1,
    // slot 2 = [4640, 6708) page 1, slot 3 = [6960, 9028) pages 1-2.
    // P:P splits the keys between the two clients (1-2 and 3-4).
    let got = gen(
        "memtier:memtier_benchmark -S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys \
         --key-minimum=1 --key-maximum=4 --key-pattern=P:P -c 1 -t 2 --ratio 1:0 --pipeline 8 -d 2000 \
         && -n 2 -c 1 -t 1 --ratio 0:1 --key-pattern=S:S --key-minimum=1 --key-maximum=4",
    );
    let want = lines(
        "
        memory 1G
        task memcached
        anon memcached items size=1M
        store memcached items 0
        store memcached items 1
        store memcached items 0 2
        store memcached items 1 2
        load memcached items 0
        load memcached items 0 2
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn memtier_memcached_lru_reuses_slots() {
    // -d 400000: 400068 B items in 493552 B chunks, 2 per 1 MiB slab;
    // -m 1M holds 2 of the 3 keys: memcached's LRU reuses slots.
    let got = gen(
        "memtier:-n 4 -c 1 -t 1 --ratio=1:0 --key-pattern=S:S --key-minimum=1 --key-maximum=3 -d 400000 \
         && -n 3 -c 1 -t 1 --ratio=0:1 --key-pattern=S:S --key-minimum=1 --key-maximum=3;memcached_mem=1M",
    );
    let want = lines(
        "
        memory 1G
        task memcached
        anon memcached items size=1M
        store memcached items 0 98
        store memcached items 120 99
        store memcached items 0 98
        store memcached items 120 99
        load memcached items 120 99
        load memcached items 0 98
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn memtier_ratio_and_random_keys() {
    // --ratio 1:3: one SET then three GETs per cycle; R:R keys uniform.
    let got = gen("memtier:-n 4000 -c 2 -t 2 --ratio=1:3 --key-pattern=R:R --key-minimum=0 --key-maximum=99 -d 100");
    let sets = got.iter().filter(|l| l.starts_with("store ")).count();
    assert_eq!(sets, 4 * 1000);
    // GETs of keys never SET miss and touch nothing: fewer loads than GETs.
    let loads = got.iter().filter(|l| l.starts_with("load ")).count();
    assert!(loads > 10000 && loads < 12000, "{}", loads);
}

#[test]
fn memtier_gaussian_keys_cluster_around_the_median() {
    let got = gen("memtier:-n 3000 -c 1 -t 1 --ratio=1:0 --key-pattern=G:G --key-minimum=0 --key-maximum=999999 -d 4000");
    // item 4073 B in 4544 B chunks, 230 per 1 MiB slab: key k starts near
    // page k * 1.113. stddev = range/6; +-1 sigma around the median
    // (keys 333333..666667, pages ~371035..742076) holds ~68%.
    let pages = read_pages(&got.iter().map(|l| l.replacen("store", "load", 1)).collect::<Vec<_>>());
    let mid = pages.iter().filter(|&&p| p > 371_035 && p < 742_076).count() as f64 / pages.len() as f64;
    assert!(mid > 0.63 && mid < 0.73, "{}", mid);
}

#[test]
fn memtier_errors() {
    let e = gen_err("memtier:--frob=1");
    assert!(e.contains("unknown option --frob"), "{}", e);
    let e = gen_err("memtier:--key-pattern=Z:Z");
    assert!(e.contains("Z (zipf)"), "{}", e);
    let e = gen_err("memtier:--ratio=0:0");
    assert!(e.contains("0:0"), "{}", e);
    let e = gen_err("memtier:--ratio=1:0 -d 10 && --ratio=1:0 -d 20");
    assert!(e.contains("-d differs"), "{}", e);
    let e = gen_err("memtier:--key-minimum=10 --key-maximum=5");
    assert!(e.contains("--key-maximum=5"), "{}", e);
    let e = gen_err("memtier:-n");
    assert!(e.contains("needs a value"), "{}", e);
}

// --------------------------------------------------------------- ycsb ---

#[test]
fn ycsb_reads_through_the_wiredtiger_cache() {
    // One record: every read finds key 0. The first read misses the
    // cache for the index leaf and the collection leaf (pread of the
    // 8K leaf, then the leaf is copied into the cache); later reads hit.
    let got = gen("ycsb:workload=c,records=1,operations=3,leaf=8K,cache=16K,record_size=100,journal=0,memory=1G,memcg_max=none");
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=8K
        file index.wt size=8K
        anon mongod wtcache size=16K
        read mongod index.wt 0 2
        store mongod wtcache 0 2
        read mongod collection.wt 0 2
        store mongod wtcache 2 2
        load mongod wtcache 0
        load mongod wtcache 2
        load mongod wtcache 0
        load mongod wtcache 2
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn ycsb_updates_dirty_leaves_and_checkpoint_writes_them() {
    // workload a: half updates; a checkpoint every 10 ops writes the dirty
    // collection leaf back; updates append to the journal sequentially.
    let got = gen("ycsb:workload=a,records=1,operations=100,leaf=8K,cache=16K,record_size=100,checkpoint=1s,rate_ops=10");
    let stores = got.iter().filter(|l| *l == "store mongod wtcache 2").count();
    let journal: Vec<u64> = got
        .iter()
        .filter(|l| l.starts_with("write mongod journal"))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect();
    assert!(stores > 30 && stores < 70, "{} updates", stores);
    assert_eq!(journal.len(), stores);
    assert!(journal.windows(2).all(|w| w[1] >= w[0]), "journal is appended");
    let ckpt = got.iter().filter(|l| *l == "write mongod collection.wt 0 2").count();
    assert!((5..=10).contains(&ckpt), "{} checkpoints wrote the leaf", ckpt);
}

#[test]
fn ycsb_workloads_run_and_inserts_grow() {
    for w in ["a", "b", "c", "d", "e", "f"] {
        let got = gen(&format!("ycsb:workload={},records=1000,operations=500,cache=256K,scan_max=10", w));
        assert!(got.len() > 500, "workload {}: {} lines", w, got.len());
        common::must_parse(&format!("ycsb-{}", w), &got);
    }
    let got = gen("ycsb:workload=d,records=1000,operations=2000,cache=1M,load=1");
    assert!(got.iter().filter(|l| l.starts_with("write mongod journal")).count() >= 1000);
}

#[test]
fn ycsb_errors() {
    let e = gen_err("ycsb:workload=g");
    assert!(e.contains("unknown workload `g`"), "{}", e);
    let e = gen_err("ycsb:record_size=64K");
    assert!(e.contains("record_size"), "{}", e);
    let e = gen_err("ycsb:records=0");
    assert!(e.contains("records= must be at least 1"), "{}", e);
    let e = gen_err("ycsb:distribution=hotspot");
    assert!(e.contains("distribution=hotspot"), "{}", e);
    let e = gen_err("ycsb:workload=a,opertions=5");
    assert!(e.contains("unknown parameter `opertions`"), "{}", e);
}

// The YCSB tests below fix `seed=` and read the random part of the stream
// (which operation each draw picks, and which key) off the lines
// themselves: with one or two records every key is visible in the pages
// it touches. Everything else is worked out from the rules of
// docs/WORKLOADS.md §3.3: the cache holds `cache/leaf` slots filled in
// order 0, 1, ...; slot s is wtcache pages s*leaf/4K..; a miss is `read`
// of the leaf from its file then `store` of the whole slot; a hit is a
// `load`/`store` of the entry's page in the slot.

/// Number of lines equal to `want`.
fn count(lines: &[String], want: &str) -> usize {
    lines.iter().filter(|l| *l == want).count()
}

#[test]
fn ycsb_b_mixes_reads_and_updates() {
    // One record: every operation is on key 0. record_size=4032: record
    // 0 is bytes [0, 4032) of collection leaf 0, its page 0; its index
    // entry (32 B at position 0 of 1) is page 0 of index leaf 0. A
    // journal append is 4032 + 64 = 4096 B: append i is journal page i.
    // collection.wt and index.wt are one 8K leaf each (no inserts in b).
    // Checkpoint every 1 s x 5 ops/s = 5 ops.
    // seed=720 draws: read, read, update, read, update.
    let spec = "ycsb:workload=b,records=1,operations=5,leaf=8K,record_size=4032,checkpoint=1s,rate_ops=5,\
                memory=1G,memcg_max=none,seed=720";
    // Two slots (16K): index leaf -> slot 0 (pages 0-1), collection leaf
    // -> slot 1 (pages 2-3); after the first read everything hits.
    let got = gen(&format!("{},cache=16K", spec));
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=8K
        file index.wt size=8K
        file journal size=100M
        anon mongod wtcache size=16K
        read mongod index.wt 0 2
        store mongod wtcache 0 2
        read mongod collection.wt 0 2
        store mongod wtcache 2 2
        load mongod wtcache 0
        load mongod wtcache 2
        load mongod wtcache 0
        store mongod wtcache 2
        write mongod journal 0
        load mongod wtcache 0
        load mongod wtcache 2
        load mongod wtcache 0
        store mongod wtcache 2
        write mongod journal 1
        write mongod collection.wt 0 2
        ",
    );
    // op 1 read: both leaves miss. op 2 read: index entry + record, hits.
    // op 3 update: index entry read, record stored (the collection leaf
    // in slot 1 is now dirty), journal page 0. op 4 read. op 5 update,
    // journal page 1. The checkpoint after op 5 writes the dirty
    // collection leaf back once; the index leaf is clean.
    assert_eq!(got, want);

    // One slot (8K): the index leaf and the collection leaf evict each
    // other, so every access misses. The update's record store dirties
    // the slot; the next miss (op 4's index lookup) first writes the
    // dirty collection leaf back. After op 5 the checkpoint writes it.
    let got = gen(&format!("{},cache=8K", spec));
    let miss_read = ["read mongod index.wt 0 2", "store mongod wtcache 0 2", "read mongod collection.wt 0 2", "store mongod wtcache 0 2"];
    let mut want: Vec<String> = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=8K
        file index.wt size=8K
        file journal size=100M
        anon mongod wtcache size=8K
        ",
    );
    let push = |w: &mut Vec<String>, ls: &[&str]| w.extend(ls.iter().map(|l| l.to_string()));
    push(&mut want, &miss_read); // op 1 read
    push(&mut want, &miss_read); // op 2 read
    push(&mut want, &miss_read); // op 3 update: ...
    push(&mut want, &["store mongod wtcache 0", "write mongod journal 0"]);
    push(&mut want, &["write mongod collection.wt 0 2"]); // op 4 read: write-back first
    push(&mut want, &miss_read);
    push(&mut want, &miss_read); // op 5 update
    push(&mut want, &["store mongod wtcache 0", "write mongod journal 1"]);
    push(&mut want, &["write mongod collection.wt 0 2"]); // checkpoint
    assert_eq!(got, want);

    // The mix over 4000 operations (default seed, two slots): every
    // operation looks its index entry up once (`load ... 0`, or the cold
    // miss of the first one); every update appends to the journal once.
    // Updates are 5%: 200 expected, binomial sd 13.8; the bounds are 3 sd.
    let got = gen("ycsb:workload=b,records=1,operations=4000,leaf=8K,record_size=4032,cache=16K");
    assert_eq!(count(&got, "load mongod wtcache 0") + 1, 4000);
    let updates = got.iter().filter(|l| l.starts_with("write mongod journal")).count();
    assert!((160..=240).contains(&updates), "{} updates in 4000 operations", updates);
    assert_eq!(count(&got, "store mongod wtcache 2"), updates, "each update stores the record once");
    // The other operations read the record: loads of page 2, except the
    // first operation (a read with the default seed), which copies the
    // cold leaf instead.
    assert_eq!(count(&got, "load mongod wtcache 2") + updates + 1, 4000, "the other operations read the record");
}

#[test]
fn ycsb_d_reads_favour_the_latest_inserts() {
    // record_size=4K, leaf=4K: record r is collection leaf r, one page;
    // the cache has 8 one-page slots (no eviction). With inserts, the
    // files hold records + operations = 7 records: collection.wt 28K;
    // the 7 index entries (32 B) all sit on index page 0. A journal
    // append is 4096 + 64 = 4160 B: [0, 4160) is pages 0-1, [4160, 8320)
    // pages 1-2.
    // `latest`: key = newest - rank, rank zipfian over the record count.
    // seed=136 draws: insert, read, read, read, insert, read.
    let got = gen("ycsb:workload=d,records=1,operations=6,leaf=4K,record_size=4K,cache=32K,memory=1G,memcg_max=none,seed=136");
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=28K
        file index.wt size=4K
        file journal size=100M
        anon mongod wtcache size=32K
        store mongod wtcache 0
        store mongod wtcache 0
        read mongod index.wt 0
        store mongod wtcache 1
        store mongod wtcache 1
        write mongod journal 0 2
        load mongod wtcache 1
        load mongod wtcache 0
        load mongod wtcache 1
        read mongod collection.wt 0
        store mongod wtcache 2
        load mongod wtcache 1
        load mongod wtcache 0
        store mongod wtcache 3
        store mongod wtcache 3
        store mongod wtcache 1
        write mongod journal 1 2
        load mongod wtcache 1
        load mongod wtcache 3
        ",
    );
    // op 1 insert: the next record number, 1: its leaf misses (slot 0),
    // but leaf 1 is not on disk (only record 0's leaf is): it is made in
    // the cache, not read; the record is stored; its index entry's leaf
    // (index page 0, on disk: it holds record 0's entry) misses, is read
    // into slot 1 and stored; journal append 0.
    // op 2 read of record 1 (rank 0, the newest): index hit, slot 0.
    // op 3 read of record 0 (rank 1): leaf 0 misses into slot 2.
    // op 4 read of record 1 again. op 5 insert of record 2 (a new leaf
    // again: slot 3, not read),
    // index entry stored in slot 1, journal append 1. op 6 read of
    // record 2, the newest again (slot 3): 3 of the 4 reads are of the
    // latest insert.
    assert_eq!(got, want);

    // At scale: one one-page slot, so every record access misses and
    // shows the record as `read mongod collection.wt R`. Inserts are the
    // next number N (= 1000 + inserts so far) and make a new leaf, which
    // is not read: it shows as `write mongod collection.wt N` when the
    // index access evicts it. A read of R has age N-1-R. With a zipfian rank over ~1000-1200 records (theta 0.99),
    // P(age 0) = 1/zeta(n) = 0.126..0.129 and P(age < 10) =
    // zeta(10)/zeta(n) = 0.373..0.382; a uniform choice would give
    // 0.001 and 0.01. Bounds: about 3 sd over ~3800 reads.
    let got = gen("ycsb:workload=d,records=1000,operations=4000,leaf=4K,record_size=4K,cache=4K");
    let mut n = 1000u64;
    let (mut inserted, mut ages) = (Vec::new(), Vec::new());
    for l in &got {
        if l.starts_with("write mongod journal") {
            n += 1;
        } else if let Some(r) = l.strip_prefix("write mongod collection.wt ") {
            inserted.push(r.parse::<u64>().unwrap());
        } else if let Some(r) = l.strip_prefix("read mongod collection.wt ") {
            let r: u64 = r.parse().unwrap();
            assert!(r < n, "read of record {} that is not inserted yet ({})", r, n);
            ages.push(n - 1 - r);
        }
    }
    assert_eq!(inserted, (1000..n).collect::<Vec<u64>>(), "inserts append consecutive record numbers");
    assert_eq!(ages.len() as u64 + (n - 1000), 4000);
    let share = |f: &dyn Fn(u64) -> bool| ages.iter().filter(|&&a| f(a)).count() as f64 / ages.len() as f64;
    let newest = share(&|a| a == 0);
    let recent = share(&|a| a < 10);
    assert!((0.11..0.15).contains(&newest), "share of reads of the newest record {}", newest);
    assert!((0.34..0.42).contains(&recent), "share of reads of the 10 newest records {}", recent);
}

#[test]
fn ycsb_e_scans_consecutive_keys() {
    // insert_order=ordered: key k is record k and index entry k.
    // record_size=4K, leaf=4K: record r is collection leaf r (one page);
    // index_entry=2K: entries 2j and 2j+1 share index leaf j. 8 records
    // + 3 operations: collection.wt 11 leaves = 44K; index 11 x 2K = 22K
    // in 6 leaves = 24K. 16 one-page cache slots: no eviction. A scan
    // looks at each index leaf once while it stays on it, and reads the
    // record of every entry.
    // seed=12 draws: scans from keys 7, 0 (length 4) and 5.
    let got = gen(
        "ycsb:workload=e,records=8,operations=3,insert_order=ordered,leaf=4K,record_size=4K,index_entry=2K,\
         scan_max=5,cache=64K,journal=0,memory=1G,memcg_max=none,seed=12",
    );
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=44K
        file index.wt size=24K
        anon mongod wtcache size=64K
        read mongod index.wt 3
        store mongod wtcache 0
        read mongod collection.wt 7
        store mongod wtcache 1
        read mongod index.wt 0
        store mongod wtcache 2
        read mongod collection.wt 0
        store mongod wtcache 3
        read mongod collection.wt 1
        store mongod wtcache 4
        read mongod index.wt 1
        store mongod wtcache 5
        read mongod collection.wt 2
        store mongod wtcache 6
        read mongod collection.wt 3
        store mongod wtcache 7
        read mongod index.wt 2
        store mongod wtcache 8
        read mongod collection.wt 5
        store mongod wtcache 9
        load mongod wtcache 0
        read mongod collection.wt 6
        store mongod wtcache 10
        load mongod wtcache 1
        ",
    );
    // Scan 1 from key 7 (index leaf 3 -> slot 0, record 7 -> slot 1)
    // stops there: 7 is the last record. Scan 2 reads entries 0-1 (index
    // leaf 0 -> slot 2) with records 0, 1 (slots 3, 4), then entries 2-3
    // (index leaf 1 -> slot 5) with records 2, 3 (slots 6, 7). Scan 3:
    // entry 5 (index leaf 2 -> slot 8), record 5 (slot 9); entry 6 on
    // index leaf 3, cached in slot 0; record 6 (slot 10); entry 7 on the
    // same leaf; record 7 cached in slot 1; the end of the records.
    assert_eq!(got, want);

    // One record: whatever the drawn length (1..100), the scan reads
    // index entry 0 and record 0 and stops: there is no key 1 yet (the
    // index has room for 2 entries, records + operations).
    let got = gen("ycsb:workload=e,records=1,operations=1,insert_order=ordered,leaf=4K,record_size=4K,cache=64K,journal=0,memory=1G,memcg_max=none");
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=8K
        file index.wt size=4K
        anon mongod wtcache size=64K
        read mongod index.wt 0
        store mongod wtcache 0
        read mongod collection.wt 0
        store mongod wtcache 1
        ",
    );
    assert_eq!(got, want);

    // At scale, with one index entry per 4K leaf and a one-slot cache,
    // every scan step shows as `read index.wt S` then `read collection.wt
    // S` (ordered: entry S points to record S). An insert (5%) reads the
    // leaf of record N (= 100000 + inserts so far) first, then its index
    // leaf. Scan lengths are uniform in 1..10: mean 5.5, sd 2.87; over
    // ~1900 scans the mean is within 5.5 +- 0.2 (3 sd). 100000 records:
    // scans almost never reach the end.
    let got = gen(
        "ycsb:workload=e,records=100000,operations=2000,insert_order=ordered,leaf=4K,record_size=4K,index_entry=4K,\
         scan_max=10,cache=4K",
    );
    let (mut n, mut steps, mut index) = (100_000u64, 0u64, None);
    for l in &got {
        if l.starts_with("write mongod journal") {
            n += 1;
        } else if let Some(s) = l.strip_prefix("read mongod index.wt ") {
            index = Some(s.parse::<u64>().unwrap());
        } else if let Some(r) = l.strip_prefix("read mongod collection.wt ") {
            let r: u64 = r.parse().unwrap();
            if r != n {
                assert!(r < n, "a scan reads record {} that is not inserted yet", r);
                assert_eq!(index.take(), Some(r), "a scan step reads the record its index entry points to");
                steps += 1;
            }
        }
    }
    let inserts = n - 100_000;
    let mean = steps as f64 / (2000 - inserts) as f64;
    assert!((5.3..5.7).contains(&mean), "mean scan length {}", mean);
}

#[test]
fn ycsb_f_read_modify_write_reads_before_writing() {
    // Two records of 4K in one 8K leaf: record k is page k of collection
    // leaf 0. Their index entries (32 B, positions 0 and 1 of 2) are on
    // page 0 of index leaf 0. Two slots: index leaf -> slot 0 (pages
    // 0-1), collection leaf -> slot 1, so record k is wtcache page 2+k.
    // A journal append is 4096 + 64 = 4160 B: [0, 4160) is pages 0-1,
    // [4160, 8320) pages 1-2.
    // seed=8 draws: rmw 0, rmw 1, read 0, read 0, read 1.
    let got = gen("ycsb:workload=f,records=2,operations=5,leaf=8K,record_size=4K,cache=16K,memory=1G,memcg_max=none,seed=8");
    let want = lines(
        "
        memory 1G
        task mongod
        file collection.wt size=8K
        file index.wt size=8K
        file journal size=100M
        anon mongod wtcache size=16K
        read mongod index.wt 0 2
        store mongod wtcache 0 2
        read mongod collection.wt 0 2
        store mongod wtcache 2 2
        load mongod wtcache 0
        store mongod wtcache 2
        write mongod journal 0 2
        load mongod wtcache 0
        load mongod wtcache 3
        load mongod wtcache 0
        store mongod wtcache 3
        write mongod journal 1 2
        load mongod wtcache 0
        load mongod wtcache 2
        load mongod wtcache 0
        load mongod wtcache 2
        load mongod wtcache 0
        load mongod wtcache 3
        ",
    );
    // op 1 read-modify-write of record 0: the read misses both leaves
    // (the record arrives with the leaf copy), then the update looks the
    // index entry up again and stores record 0 (page 2), journal 0-1.
    // op 2 on record 1: index, load page 3, index, store page 3, journal
    // 1-2. ops 3-5 read records 0, 0, 1.
    assert_eq!(got, want);

    // Over 2000 operations (default seed): each read-modify-write is
    // `load 0, load P, load 0, store P, journal` for the same record
    // page P, except a first one on cold leaves whose read is the leaf
    // copy `store mongod wtcache 2 2`. They are 50%: 1000 expected,
    // sd 22.4; bounds 4.5 sd.
    let got = gen("ycsb:workload=f,records=2,operations=2000,leaf=8K,record_size=4K,cache=16K");
    let mut rmw = 0;
    for (i, l) in got.iter().enumerate() {
        if !l.starts_with("write mongod journal") {
            continue;
        }
        rmw += 1;
        let store = &got[i - 1];
        let page = store.strip_prefix("store mongod wtcache ").unwrap_or_else(|| panic!("line {}: {}", i, store));
        assert!(page == "2" || page == "3", "line {}: {}", i - 1, store);
        assert_eq!(got[i - 2], "load mongod wtcache 0", "line {}", i - 2);
        let read = &got[i - 3];
        assert!(*read == format!("load mongod wtcache {}", page) || *read == "store mongod wtcache 2 2", "line {}: {}", i - 3, read);
    }
    assert!((900..=1100).contains(&rmw), "{} read-modify-writes in 2000 operations", rmw);
    assert_eq!(count(&got, "load mongod wtcache 0") + 1, 2000 + rmw, "a read looks its entry up once, a rmw twice");
}

// ----------------------------------------------------- vm-scalability ---

#[test]
fn vm_scalability_readtwice() {
    let got = gen("lru-file-readtwice:nr_task=2,size=8K,memory=1G");
    let want = lines(
        "
        memory 1G
        file sparse-lru-file-readtwice-1 size=8K
        task dd-1-1
        task dd-2-1
        file sparse-lru-file-readtwice-2 size=8K
        task dd-1-2
        task dd-2-2
        read dd-1-1 sparse-lru-file-readtwice-1 0
        read dd-2-1 sparse-lru-file-readtwice-1 0
        read dd-1-2 sparse-lru-file-readtwice-2 0
        read dd-2-2 sparse-lru-file-readtwice-2 0
        read dd-1-1 sparse-lru-file-readtwice-1 1
        exit dd-1-1
        read dd-2-1 sparse-lru-file-readtwice-1 1
        exit dd-2-1
        read dd-1-2 sparse-lru-file-readtwice-2 1
        exit dd-1-2
        read dd-2-2 sparse-lru-file-readtwice-2 1
        exit dd-2-2
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn vm_scalability_mmap_cases() {
    let got = gen("lru-file-mmap-read:nr_task=2,size=8K,memory=1G,chunk=2");
    let want = lines(
        "
        memory 1G
        file sparse-lru-file-mmap-read-1 size=8K
        task usemem-1
        mmap usemem-1 map file=sparse-lru-file-mmap-read-1
        file sparse-lru-file-mmap-read-2 size=8K
        task usemem-2
        mmap usemem-2 map file=sparse-lru-file-mmap-read-2
        load usemem-1 map 0 2
        exit usemem-1
        load usemem-2 map 0 2
        exit usemem-2
        ",
    );
    assert_eq!(got, want);
    let got = gen("mmap-pread-seq:nr_task=2,size=8K,memory=1G");
    let want = lines(
        "
        memory 1G
        file sparse-mmap-pread-seq size=8K
        task usemem-1
        mmap usemem-1 map file=sparse-mmap-pread-seq
        task usemem-2
        mmap usemem-2 map file=sparse-mmap-pread-seq
        load usemem-1 map 0
        load usemem-2 map 0
        load usemem-1 map 1
        exit usemem-1
        load usemem-2 map 1
        exit usemem-2
        ",
    );
    assert_eq!(got, want);
    let got = gen("mmap-xread-seq-mt:nr_task=2,size=8K,memory=1G,memcg_max=512M");
    let want = lines(
        "
        memory 1G
        memcg vm-scalability max=512M
        file sparse-mmap-xread-seq-mt size=8K
        task usemem memcg=vm-scalability
        mmap usemem map file=sparse-mmap-xread-seq-mt
        load usemem map 0
        load usemem map 0
        load usemem map 1
        load usemem map 1
        exit usemem
        ",
    );
    assert_eq!(got, want);
    // Default size: twice the memory in total.
    let all = common::all(Box::new(mglru_workload::workload("lru-file-readtwice:memory=64M").unwrap().take(40)));
    assert!(all.iter().any(|l| l == "file sparse-lru-file-readtwice-1 size=16M"), "{:?}", &all[..6]);
}

#[test]
fn vm_scalability_errors_name_the_parameter() {
    // Parameters are `k=v`; the four cases take nr_task, size, chunk,
    // scale and the machine parameters, and reject anything else with the
    // list of valid names (sorted).
    let e = gen_err("lru-file-readtwice:nr_tasks=2");
    assert_eq!(
        e,
        "lru-file-readtwice: unknown parameter `nr_tasks`; valid parameters: chunk, memcg_max, memory, nr_task, scale, seed, size, swap, swap_sync"
    );
    // nr_task and chunk are counts: integers of at least 1.
    let e = gen_err("lru-file-mmap-read:nr_task=two");
    assert_eq!(e, "lru-file-mmap-read: parameter nr_task=: `two` is not a non-negative integer");
    let e = gen_err("mmap-pread-seq:chunk=0");
    assert_eq!(e, "mmap-pread-seq: parameter chunk= must be at least 1");
    let e = gen_err("mmap-pread-seq:nr_task");
    assert_eq!(e, "mmap-pread-seq: parameter `nr_task` has no value: write it as key=value");
    // Sizes: trace v1 syntax (powers of 1024, no fractions, no KB), not 0.
    let e = gen_err("mmap-pread-seq:size=0");
    assert_eq!(e, "mmap-pread-seq: size= must be greater than 0");
    let e = gen_err("mmap-xread-seq-mt:size=1.5G");
    assert_eq!(e, "mmap-xread-seq-mt: parameter size=: bad size `1.5G`: fractions are not allowed; write e.g. `1536M` instead of `1.5G`");
    let e = gen_err("mmap-xread-seq-mt:size=8KB");
    assert_eq!(e, "mmap-xread-seq-mt: parameter size=: bad size `8KB`: `KB` is ambiguous; use K/M/G/T (powers of 1024)");
    let e = gen_err("lru-file-readtwice:size=99999999999T");
    assert_eq!(e, "lru-file-readtwice: parameter size=: bad size `99999999999T`: too large");
    let e = gen_err("lru-file-readtwice:memory=1K");
    assert_eq!(e, "lru-file-readtwice: memory= must be at least 16M (the model's smallest machine), found 1K");
    let e = gen_err("lru-file-readtwice:memcg_max=lots");
    assert_eq!(e, "lru-file-readtwice: parameter memcg_max=: bad size `lots`: expected a number (memcg_max= takes a size, max or none)");
    // memory= is bounded by trace v1 (1T less two pages) before the default size
    // (twice the memory) is computed; an explicit size= is used as given.
    let e = gen_err("mmap-pread-seq:memory=9000000T");
    assert_eq!(e, "mmap-pread-seq: memory= must be below 1T (the model's largest machine is 1T less two 4K pages; 1023G fits), found 9000000T");
    let e = gen_err("lru-file-readtwice:memory=2T,nr_task=1");
    assert!(e.starts_with("lru-file-readtwice: memory= must be below 1T"), "{}", e);
    assert!(gen_err("mmap-pread-seq:memory=1T").contains("must be below 1T"));
    let got = gen("mmap-pread-seq:memory=1023G,size=4K,nr_task=1");
    assert_eq!(got[..3], lines("memory 1023G\nfile sparse-mmap-pread-seq size=4K\ntask usemem-1")[..]);
}

// ------------------------------------------------------------- ebizzy ---

#[test]
fn ebizzy_copy_search_free() {
    // 2-page chunks of one 8K record: memcpy loads the chunk's pages and
    // stores the copy's; bsearch probes the one record; free is
    // MADV_DONTNEED. Barry Song's sequence starts 2, 2.
    let got = gen("ebizzy:chunk_size=8K,threads=1,loops=2,record_size=8K");
    let want = lines(
        "
        memory 2560M
        swap 2G sync=y
        task ebizzy
        anon ebizzy chunks size=80K
        anon ebizzy copy0 size=8K
        store ebizzy chunks 0 2
        store ebizzy chunks 2 2
        store ebizzy chunks 4 2
        store ebizzy chunks 6 2
        store ebizzy chunks 8 2
        store ebizzy chunks 10 2
        store ebizzy chunks 12 2
        store ebizzy chunks 14 2
        store ebizzy chunks 16 2
        store ebizzy chunks 18 2
        load ebizzy chunks 4
        store ebizzy copy0 0
        load ebizzy chunks 5
        store ebizzy copy0 1
        load ebizzy copy0 0
        advise ebizzy copy0 dontneed
        load ebizzy chunks 4
        store ebizzy copy0 0
        load ebizzy chunks 5
        store ebizzy copy0 1
        load ebizzy copy0 0
        advise ebizzy copy0 dontneed
        exit ebizzy
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn ebizzy_sequences_and_threads() {
    // Yu Zhao's 160-entry sequence starts 2, 4, 7; the pick counter is
    // shared by the threads (a `static int` in rand_chunk()).
    let got = gen("ebizzy:seq=160,chunk_size=4K,threads=3,loops=1,batch=1");
    let srcs: Vec<&String> = got.iter().filter(|l| l.starts_with("load ebizzy chunks")).collect();
    assert_eq!(srcs, vec!["load ebizzy chunks 2", "load ebizzy chunks 4", "load ebizzy chunks 7"]);
    let got = gen("ebizzy:seq=16,chunk_size=4K,threads=1,loops=16");
    let picks: Vec<u64> = got
        .iter()
        .filter(|l| l.starts_with("load ebizzy chunks"))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse().unwrap())
        .collect();
    assert_eq!(picks, vec![2, 2, 3, 4, 5, 2, 6, 7, 9, 2, 8, 3, 7, 2, 2, 4]);
    let e = gen_err("ebizzy:seq=32");
    assert!(e.contains("seq=32"), "{}", e);
    let e = gen_err("ebizzy:chunks=5");
    assert!(e.contains("chunks must be at least 10"), "{}", e);
}

// ------------------------------------------------------------- kbuild ---

#[test]
fn kbuild_units_in_turn() {
    // Two slots, three units: the tree is unpacked in the root memcg
    // first; each unit is a fresh compiler task in `build` on its slot's
    // CPU that reads its source page and the one header file (2 pages),
    // stores its 2-page heap in one step, writes its object page and
    // exits; the slots alternate step by step and slot 0 takes unit 2.
    let got = gen(
        "kbuild:jobs=2,units=3,unit_src=4K,header_tree=8K,includes=1,heap=8K,batch=2,reuse=0,obj=4K,\
         memory=64M,swap=16M,memcg_max=32M",
    );
    let want = lines(
        "
        memory 64M
        swap 16M zram=y ratio=3.00
        cpus 2
        memcg build max=32M
        file headers size=8K tmpfs=y
        file src size=12K tmpfs=y
        file obj size=12K tmpfs=y
        task untar
        write untar headers 0 2
        write untar src 0 3
        exit untar
        task cc0 memcg=build cpu=0
        anon cc0 heap size=8K
        task cc1 memcg=build cpu=1
        anon cc1 heap size=8K
        read cc0 src 0 1
        read cc1 src 1 1
        read cc0 headers 0 2
        read cc1 headers 0 2
        store cc0 heap 0 2
        store cc1 heap 0 2
        write cc0 obj 0 1
        exit cc0
        write cc1 obj 1 1
        exit cc1
        task cc2 memcg=build cpu=0
        anon cc2 heap size=8K
        read cc2 src 2 1
        read cc2 headers 0 2
        store cc2 heap 0 2
        write cc2 obj 2 1
        exit cc2
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn kbuild_heap_revisits_and_headers_stay_in_range() {
    // A 5-page heap in steps of 2: stores at 0, 2, 4 (the last one page),
    // each followed by `reuse` loads below the heap grown so far; every
    // header read is a whole 2-page header file inside the tree.
    let got = gen("kbuild:jobs=1,units=2,header_tree=64K,includes=50,heap=20K,batch=2,reuse=3,memory=64M,memcg_max=none");
    let stores: Vec<&String> = got.iter().filter(|l| l.starts_with("store cc0 ")).collect();
    assert_eq!(stores, vec!["store cc0 heap 0 2", "store cc0 heap 2 2", "store cc0 heap 4"]);
    let mut grown = 0;
    let mut loads = 0;
    for l in got.iter().filter(|l| l.starts_with("store cc0 ") || l.starts_with("load cc0 ")) {
        let w: Vec<&str> = l.split_whitespace().collect();
        let page: u64 = w[3].parse().unwrap();
        if w[0] == "store" {
            grown = page + w.get(4).map_or(1, |c| c.parse().unwrap());
        } else {
            assert!(page < grown, "{l} loads beyond the {grown} pages grown");
            loads += 1;
        }
    }
    assert_eq!(loads, 9);
    let headers: Vec<u64> = got
        .iter()
        .filter(|l| l.starts_with("read cc1 headers"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[4], "2", "{l}");
            w[3].parse().unwrap()
        })
        .collect();
    assert_eq!(headers.len(), 50);
    assert!(headers.iter().all(|&p| p % 2 == 0 && p + 2 <= 16), "{headers:?}");
    // Zipf: the most popular header file is read more than a uniform
    // choice of 8 files would (50 / 8).
    let first = headers.iter().filter(|&&p| p == 0).count();
    assert!(first > 7, "{first} reads of the hottest header");
    assert_eq!(got.last().map(String::as_str), Some("exit cc1"));
    // Same spec, same trace; another seed, another header choice.
    assert_eq!(got, gen("kbuild:jobs=1,units=2,header_tree=64K,includes=50,heap=20K,batch=2,reuse=3,memory=64M,memcg_max=none"));
    assert_ne!(got, gen("kbuild:jobs=1,units=2,header_tree=64K,includes=50,heap=20K,batch=2,reuse=3,memory=64M,memcg_max=none,seed=7"));
}

#[test]
fn kbuild_errors_name_the_parameter() {
    assert!(gen_err("kbuild:header_skew=1").contains("header_skew=1"));
    assert!(gen_err("kbuild:header_skew=0").contains("header_skew=0"));
    assert!(gen_err("kbuild:zram_ratio=0.5").contains("zram_ratio=0.5"));
    assert!(gen_err("kbuild:cpus=2000").contains("cpus=2000"));
    assert!(gen_err("kbuild:jobs=0").contains("jobs"));
    assert!(gen_err("kbuild:bogus=1").contains("bogus"));
}

// ------------------------------------------------------ file-anon-mix ---

#[test]
fn file_anon_mix_timeline() {
    // One reader, one anon thread, one round. The reader's first pass
    // (2 pages, 2 us) gates the anon round; the round ends with munmap
    // (MADV_DONTNEED); the reader pauses 20 ms after each pass and the
    // anon side waits 10 ms: an idle gap of 10 ms becomes `sleep`.
    let got = gen(
        "file-anon-mix:file=8K,anon=8K,file_workers=1,anon_workers=1,iterations=1,chunk=2,reader_sleep=20ms,\
         anon_wait=10ms,reader_page_ns=1000,anon_page_ns=1000,memory=64M,memcg_max=none",
    );
    let want = lines(
        "
        memory 64M
        file testfile size=8K
        task reader0
        mmap reader0 data file=testfile
        task pressure
        anon pressure anon size=8K
        load reader0 data 0 2
        store pressure anon 0 2
        advise pressure anon dontneed
        sleep 10ms
        exit reader0
        exit pressure
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn file_anon_mix_defaults_follow_the_seed() {
    let all = common::all(Box::new(mglru_workload::workload("file-anon-mix").unwrap().take(40)));
    let setup: Vec<&String> = all.iter().filter(|l| !l.starts_with('#')).take(4).collect();
    assert_eq!(setup, vec!["memory 128G", "memcg demo max=48G", "file testfile size=8G", "task reader0 memcg=demo"]);
    assert!(all.iter().any(|l| l == "anon pressure anon size=44G"));
}

#[test]
fn file_anon_mix_errors_name_the_parameter() {
    let e = gen_err("file-anon-mix:iteration=3");
    assert_eq!(
        e,
        "file-anon-mix: unknown parameter `iteration`; valid parameters: anon, anon_page_ns, anon_wait, anon_workers, chunk, file, \
         file_workers, iterations, memcg_max, memory, reader_page_ns, reader_sleep, scale, seed, swap, swap_sync"
    );
    // Durations: digits with ns/us/ms/s/m/h, a bare number is seconds.
    let e = gen_err("file-anon-mix:reader_sleep=fast");
    assert_eq!(e, "file-anon-mix: parameter reader_sleep=: bad duration `fast`: expected a number");
    let e = gen_err("file-anon-mix:anon_wait=5x");
    assert_eq!(e, "file-anon-mix: parameter anon_wait=: bad duration `5x`: unknown unit `x` (use ns, us, ms, s, m or h)");
    let e = gen_err("file-anon-mix:reader_page_ns=1.5");
    assert_eq!(e, "file-anon-mix: parameter reader_page_ns=: `1.5` is not a non-negative integer");
    let e = gen_err("file-anon-mix:iterations=0");
    assert_eq!(e, "file-anon-mix: parameter iterations= must be at least 1");
    // Impossible sizes: 4K of anon over 2 threads is half a page each;
    // a file of 0 bytes cannot be mapped and read.
    let e = gen_err("file-anon-mix:anon=4K,anon_workers=2");
    assert_eq!(e, "file-anon-mix: anon= is too small for anon_workers= (each thread needs at least one page)");
    let e = gen_err("file-anon-mix:file=0");
    assert_eq!(e, "file-anon-mix: parameter file= must be greater than 0: the readers map the file and read it (default 8G)");
    // Readers that cost no time and never pause would keep simulated time
    // at 0 forever: the anon rounds (and the end) would never come.
    let e = gen_err("file-anon-mix:reader_page_ns=0,reader_sleep=0");
    assert_eq!(
        e,
        "file-anon-mix: reader_page_ns=0 with reader_sleep=0 lets the readers loop without simulated time passing, \
         so the anon rounds never start: give reader_page_ns= or reader_sleep= a positive value"
    );
    // Either one alone is fine: free page touches with a pause, as here
    // (one reader, one 1-page round: the reader's pass at t=0 gates it).
    let got = gen(
        "file-anon-mix:file=4K,anon=4K,file_workers=1,anon_workers=1,iterations=1,reader_page_ns=0,reader_sleep=1s,\
         anon_wait=0,memory=64M,memcg_max=none",
    );
    assert_eq!(
        got,
        lines(
            "
            memory 64M
            file testfile size=4K
            task reader0
            mmap reader0 data file=testfile
            task pressure
            anon pressure anon size=4K
            load reader0 data 0
            store pressure anon 0
            advise pressure anon dontneed
            exit reader0
            exit pressure
            "
        )
    );
}

// -------------------------------------------------------- mixed-memcg ---

#[test]
fn mixed_memcg_timeline() {
    // memtier loads the one key (1 us); fio starts at 1 us and reads at
    // 1, 2, 3 us; memtier reads after the 3 us delay (at 4 us, before
    // fio's 4 us I/O); memtier's end stops fio.
    let got = gen(
        "mixed-memcg:keys=1,clients=1,jobs=1,fio_size=4K,delay=3us,fio_iops=1000000,memtier_ops=1000000,memory=64M,swap=none",
    );
    let want = lines(
        "
        memory 64M
        memcg memcached
        memcg fio
        task memcached memcg=memcached
        anon memcached items size=1M
        file /mnt/mglru.0.0 size=4K
        task mglru.0 memcg=fio
        advise mglru.0 /mnt/mglru.0.0 random
        store memcached items 0
        read mglru.0 /mnt/mglru.0.0 0
        read mglru.0 /mnt/mglru.0.0 0
        read mglru.0 /mnt/mglru.0.0 0
        load memcached items 0
        read mglru.0 /mnt/mglru.0.0 0
        exit mglru.0
        ",
    );
    assert_eq!(got, want);
}

#[test]
fn mixed_memcg_scaled_parses() {
    let got = gen("mixed-memcg:scale=20000,jobs=4,clients=4");
    let n = common::must_parse("mixed-memcg", &got);
    assert!(n > 1000);
    assert!(got.iter().any(|l| l.starts_with("load memcached items")));
    assert!(got.iter().any(|l| l.starts_with("store memcached items")));
}

#[test]
fn mixed_memcg_errors_name_the_parameter() {
    let e = gen_err("mixed-memcg:key=5");
    assert_eq!(
        e,
        "mixed-memcg: unknown parameter `key`; valid parameters: clients, data_size, delay, fio_iops, fio_max, fio_size, jobs, keys, \
         memcached_max, memcg_max, memory, memtier_ops, scale, seed, swap, swap_sync"
    );
    let e = gen_err("mixed-memcg:data_size=big");
    assert_eq!(e, "mixed-memcg: parameter data_size=: `big` is not a non-negative integer");
    let e = gen_err("mixed-memcg:jobs=0");
    assert_eq!(e, "mixed-memcg: parameter jobs= must be at least 1");
    let e = gen_err("mixed-memcg:delay=5parsecs");
    assert_eq!(e, "mixed-memcg: parameter delay=: bad duration `5parsecs`: unknown unit `parsecs` (use ns, us, ms, s, m or h)");
    let e = gen_err("mixed-memcg:fio_max=1GB");
    assert_eq!(e, "mixed-memcg: parameter fio_max=: bad size `1GB`: `GB` is ambiguous; use K/M/G/T (powers of 1024)");
    let e = gen_err("mixed-memcg:swap=lots");
    assert_eq!(e, "mixed-memcg: parameter swap=: bad size `lots`: expected a number (swap= takes a size or none)");
    // Impossible sizes: fio's files must hold one 4K block; the memcached
    // model keeps a bit per key, at most 2^32 keys (keys 1..=keys).
    let e = gen_err("mixed-memcg:fio_size=2K");
    assert_eq!(e, "mixed-memcg: fio_size= must be at least 4K");
    let e = gen_err("mixed-memcg:keys=4294967297");
    assert_eq!(
        e,
        "mixed-memcg: keys=4294967297 is too many: the memcached model keeps a bit per key and takes at most 4294967296 keys; \
         lower keys= (or raise scale=)"
    );
    // Rates are turned into whole-nanosecond intervals: above 10^9 per
    // second the interval would be 0.
    let e = gen_err("mixed-memcg:fio_iops=2000000000");
    assert_eq!(e, "mixed-memcg: fio_iops=2000000000 is above 1000000000 per second: events are timed in whole nanoseconds; give at most 1000000000");
    let e = gen_err("mixed-memcg:memtier_ops=1000000001");
    assert_eq!(e, "mixed-memcg: memtier_ops=1000000001 is above 1000000000 per second: events are timed in whole nanoseconds; give at most 1000000000");
}

// ------------------------------------------------------------- common ---

#[test]
fn determinism_and_seeds() {
    let specs = [
        "fio:--name=r --size=1m --rw=randrw --random_distribution=zipf:0.9 --norandommap --io_size=1g --number_ios=2000",
        "fio:--name=r --size=1m --rw=randread --number_ios=2000",
        "memtier:-n 500 -c 2 -t 2 --ratio=1:1 --key-pattern=G:R --key-maximum=10000",
        "ycsb:workload=e,records=5000,operations=300,cache=512K",
        "ebizzy:chunk_size=64K,threads=2,loops=3",
        "mixed-memcg:scale=50000,jobs=2,clients=2",
    ];
    for s in specs {
        assert_eq!(gen(s), gen(s), "{} is not deterministic", s);
        let sep = if s.starts_with("fio:") || s.starts_with("memtier:") { ";" } else { "," };
        let other = gen(&format!("{}{}seed=7", s, sep));
        assert_ne!(gen(s), other, "{}: seed= changes nothing", s);
    }
}

#[test]
fn generators_stream() {
    // 10^12 operations each: the first lines must come at once.
    let specs = [
        "fio:--name=x --size=1g --rw=randread --time_based --runtime=100000000;rate_iops=10000",
        "fio:--name=x --size=1g --rw=randread --random_distribution=zipf:1.2 --norandommap --io_size=4p --number_ios=1000000000000",
        "memtier:-n 1000000000000 -c 1 -t 1 --ratio=1:1",
        "ycsb:workload=a,records=1000000,operations=1000000000000,cache=64M",
        "lru-file-readtwice:size=4T,nr_task=1",
        "ebizzy:loops=1000000000000",
        "file-anon-mix:iterations=1000000000000,scale=64",
        "mixed-memcg:scale=1000",
    ];
    for s in specs {
        let t = Instant::now();
        let lines = mglru_workload::workload(s).unwrap_or_else(|e| panic!("{}: {}", s, e));
        let n = statements(Box::new(lines.take(5000))).len();
        assert!(n > 100, "{}", s);
        assert!(t.elapsed() < Duration::from_secs(20), "{} took {:?}", s, t.elapsed());
    }
}

#[test]
fn workload_names_and_unknown() {
    let names: Vec<&str> = mglru_workload::workload_names().iter().map(|(n, _)| *n).collect();
    for n in ["fio", "fio-job", "memtier", "ycsb", "lru-file-readtwice", "lru-file-mmap-read", "mmap-pread-seq", "mmap-xread-seq-mt", "ebizzy", "file-anon-mix", "mixed-memcg"] {
        assert!(names.contains(&n), "{}", n);
    }
    let e = gen_err("ebizy:seq=16");
    assert!(e.contains("unknown workload `ebizy`") && e.contains("did you mean `ebizzy`"), "{}", e);
    let e = gen_err("ycsb:workload");
    assert!(e.contains("key=value"), "{}", e);
}

/// Task counts beyond Linux's PID_MAX_LIMIT (4,194,304) are refused with
/// the parameter named, for every generator that creates tasks by count,
/// counting the tasks each really makes (two dd per file, memcached beside
/// the fio jobs); memtier's connections have the same bound. (Job `a`
/// with exactly 4,194,304 jobs passes its own check: the error is the sum.)
#[test]
fn task_counts_above_pid_max_limit_are_errors() {
    let limit = "more than Linux can run (PID_MAX_LIMIT, 4194304): use fewer";
    for (spec, what) in [
        ("ebizzy:threads=4194305", "ebizzy: parameter threads=4194305 asks for 4194305 tasks"),
        ("lru-file-readtwice:nr_task=100000000000", "lru-file-readtwice: parameter nr_task=100000000000 asks for 100000000000 tasks"),
        ("file-anon-mix:file_workers=4194305", "file-anon-mix: parameter file_workers=4194305 asks for 4194305 tasks"),
        ("mixed-memcg:clients=4194305", "mixed-memcg: parameter clients=4194305 asks for 4194305 tasks"),
        ("lru-file-readtwice:nr_task=2097153", "lru-file-readtwice: parameter nr_task=2097153 (two dd tasks per file) asks for 4194306 tasks"),
        ("mixed-memcg:jobs=4194304", "mixed-memcg: parameter jobs=4194304 (plus the memcached task) asks for 4194305 tasks"),
        ("fio:--name=j --rw=read --size=1M --numjobs=4194305", "fio job `j`: --numjobs=4194305 asks for 4194305 tasks"),
        (
            "fio:--name=a --rw=read --size=1M --numjobs=4194304 --name=b --rw=read --size=1M --numjobs=1",
            "fio job `b`: --numjobs summed over the jobs so far asks for 4194305 tasks",
        ),
    ] {
        let e = gen_err(spec);
        assert_eq!(e, format!("{what}, {limit}"), "{spec}");
    }
    let e = gen_err("memtier:--clients=100000 --threads=100000");
    assert_eq!(
        e,
        "memtier: --clients=100000 x --threads=100000 is 10000000000 connections, more than the 4194304 the generator keeps state for: use fewer"
    );
}

/// With the load phase the files start empty: every leaf the inserts fill
/// is made in the cache, so nothing is read; the checkpoint at the end of
/// the load writes each leaf once. record_size=4K, leaf=4K: 6 records are
/// 6 collection leaves; ordered index entries of 2K: 2 per index leaf, 3
/// index leaves. 16 one-page cache slots hold all 9 (no eviction).
#[test]
fn ycsb_load_phase_makes_new_leaves_without_reading() {
    let got = gen(
        "ycsb:workload=c,records=6,operations=0,load=1,insert_order=ordered,leaf=4K,record_size=4K,index_entry=2K,\
         cache=64K,journal=0,memory=1G,memcg_max=none",
    );
    assert!(!got.iter().any(|l| l.starts_with("read ")), "no reads: {got:?}");
    let writes: Vec<&str> = got.iter().filter(|l| l.starts_with("write ")).map(|s| s.as_str()).collect();
    let mut want: Vec<String> = (0..6).map(|l| format!("write mongod collection.wt {l}")).collect();
    want.extend((0..3).map(|l| format!("write mongod index.wt {l}")));
    let mut writes_sorted: Vec<String> = writes.iter().map(|s| s.to_string()).collect();
    writes_sorted.sort();
    want.sort();
    assert_eq!(writes_sorted, want);
    // Without the load phase the same 6 records are on disk: a read-only
    // run reads each leaf it misses.
    let got = gen(
        "ycsb:workload=c,records=6,operations=40,insert_order=ordered,leaf=4K,record_size=4K,index_entry=2K,\
         cache=64K,journal=0,memory=1G,memcg_max=none",
    );
    assert!(got.iter().any(|l| l.starts_with("read mongod collection.wt ")));
    assert!(got.iter().any(|l| l.starts_with("read mongod index.wt ")));
}

/// Without the load phase only the records already there are on disk:
/// with one record, the hashed index's only leaf on disk is the one
/// holding key 0's entry, and the collection's only one is leaf 0. With a
/// cache that never evicts (nothing is written back), every read of a
/// file is of those leaves; the leaves inserts fill are never read.
/// record_size=4K, leaf=4K: a record per leaf; index_entry=2K: two
/// entries per index leaf, 1 + 2000 slots in 1001 leaves.
#[test]
fn ycsb_hashed_index_reads_only_the_leaves_on_disk() {
    let got = gen(
        "ycsb:workload=d,records=1,operations=2000,leaf=4K,record_size=4K,index_entry=2K,cache=16M,journal=0,\
         memory=1G,memcg_max=none,checkpoint=1h",
    );
    let reads = |file: &str| -> std::collections::BTreeSet<String> {
        let p = format!("read mongod {file} ");
        got.iter().filter_map(|l| l.strip_prefix(&p).map(|s| s.to_string())).collect()
    };
    assert_eq!(reads("collection.wt").into_iter().collect::<Vec<_>>(), vec!["0".to_string()], "{got:?}");
    assert_eq!(reads("index.wt").len(), 1, "only key 0's index leaf is on disk: {got:?}");
    // Each leaf gets a cache slot of its own (4096 one-page slots, no
    // eviction): ~5 % inserts of 2000 operations made ~100 collection
    // leaves and many index leaves, in slots, without a read.
    let slots: std::collections::BTreeSet<&str> =
        got.iter().filter_map(|l| l.strip_prefix("store mongod wtcache ")).collect();
    assert!(slots.len() > 100, "leaves made in the cache: {}", slots.len());
    let e = gen_err("ycsb:workload=d,records=67108864,operations=1");
    assert_eq!(
        e,
        "ycsb: records=67108864 + operations=1 (workload d inserts) is more than the 67108864 records the generator tracks: use fewer, or scale="
    );
}

// ------------------------------------------------ statements (issue 14) ---

/// `workload_statements` stands for exactly the lines of `workload`: the
/// same text once accesses are written out with their names, and the
/// same ops at the same lines through the trace reader. Returns the
/// number of accesses handed over without text.
fn statements_match_lines(spec: &str) -> usize {
    use mglru_trace::{Statement, TraceReader};
    let text = all(mglru_workload::workload(spec).unwrap());
    let mut names: Vec<(String, String)> = Vec::new();
    let mut got = Vec::new();
    let mut direct = 0;
    for s in mglru_workload::workload_statements(spec).unwrap() {
        match s.unwrap() {
            Statement::Text(l) => got.push(l),
            Statement::Names { id, task, target } => {
                assert_eq!(id as usize, names.len(), "{spec}: names in order");
                names.push((task, target));
            }
            Statement::Access { kind, names: n, page, count } => {
                let (t, g) = &names[n as usize];
                got.push(Statement::access_text(kind, t, g, page, count));
                direct += 1;
            }
            Statement::Pages { kind, names: n, pages } => {
                assert!(!pages.is_empty(), "{spec}: an empty run");
                let (t, g) = &names[n as usize];
                for page in pages {
                    got.push(Statement::access_text(kind, t, g, page, 1));
                    direct += 1;
                }
            }
        }
    }
    assert_eq!(got, text, "{spec}");
    let mut joined = text.join("\n");
    joined.push('\n');
    let mut a = TraceReader::from_str("w", &joined);
    let mut b = TraceReader::from_statements("w", mglru_workload::workload_statements(spec).unwrap());
    loop {
        let (x, y) = (a.next_op().unwrap(), b.next_op().unwrap());
        assert_eq!(x, y, "{spec}");
        assert_eq!(a.line(), b.line(), "{spec}");
        if x.is_none() {
            break;
        }
    }
    direct
}

#[test]
fn fio_statements_stand_for_its_lines() {
    for spec in [
        // Loops with invalidation between them, sequential blocks of 2 pages.
        "fio:--name=seq --size=16k --bs=8k --rw=read --loops=2;memory=64M",
        // mmap: loads and stores on the region, wrap-around invalidation.
        "fio:--name=w --rw=randrw --bs=6k --size=18k --time_based --runtime=1 --ioengine=mmap;rate_iops=40",
        // Two jobs round-robin, reads and writes of each (names and kinds alternate).
        "fio:--name=m --numjobs=2 --size=1m --rw=randrw --rwmixread=70 --norandommap --io_size=1g --number_ios=3000",
        // The benchmark's shape: zipf random reads, one page each, in a memcg.
        "fio:--name=z --size=4m --rw=randread --random_distribution=zipf:1.2 --norandommap --number_ios=5000;memory=64M,memcg_max=32M",
        // One job whose offsets are drawn (fio::JobRun::sampled_ios, in
        // batches, against next_io one by one in the text): writes of 3
        // pages, loops ended by io_size with invalidation between them.
        "fio:--name=p --rw=randwrite --size=4m --bs=12k --random_distribution=pareto:0.2 --norandommap --io_size=1m --loops=3 --invalidate=1;memory=64M",
        // Loads of a mapping at normally distributed offsets, ended by a count.
        "fio:--name=n --rw=randread --ioengine=mmap --size=2m --random_distribution=normal:10 --norandommap --number_ios=3000;memory=64M",
        // Zipf reads ended by time, two files in turn (not batched).
        "fio:--name=t --rw=randread --size=1m --nrfiles=2 --random_distribution=zipf:0.9 --norandommap --time_based --runtime=1;memory=64M,rate_iops=2000",
    ] {
        assert!(statements_match_lines(spec) > 0, "{spec}: accesses handed over as statements");
    }
    // Other generators hand over their lines as text.
    assert_eq!(statements_match_lines("ebizzy:seq=16,loops=1"), 0);
}

/// The ops of `workload_statements(spec)` against those of its text
/// (`workload(spec)`, read as text lines by the same reader), in lockstep,
/// in blocks of 256 like the replay loop: O(1) memory however long.
/// Returns the number of ops.
fn statement_ops_match_text(spec: &str) -> u64 {
    use mglru_trace::{Statement, TraceReader};
    let text = mglru_workload::workload(spec).unwrap().map(|l| l.map(Statement::Text));
    let mut a = TraceReader::from_statements("w", Box::new(text));
    let mut b = TraceReader::from_statements("w", mglru_workload::workload_statements(spec).unwrap());
    let (mut n, mut pos) = (0u64, 0usize);
    let (mut xa, mut la, mut xb, mut lb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    loop {
        if pos == xa.len() {
            xa.clear();
            la.clear();
            xb.clear();
            lb.clear();
            let ka = a.next_ops(&mut xa, &mut la, 256).unwrap();
            // The statement reader's blocks may be cut elsewhere: fill it
            // up to the same count.
            while xb.len() < ka {
                if b.next_ops(&mut xb, &mut lb, ka).unwrap() == 0 {
                    break;
                }
            }
            assert_eq!(xb.len(), ka, "{spec}: op count after {n} ops");
            if ka == 0 {
                return n;
            }
            pos = 0;
        }
        assert_eq!((&xa[pos], la[pos]), (&xb[pos], lb[pos]), "{spec}: op {n}");
        pos += 1;
        n += 1;
    }
}

/// The benchmark's fio job (bench/zipf_bench.py's generator row) at a
/// tenth of the benchmark's length: its I/Os go through the batched lane
/// and the zipf table of blocks (fio::JobRun::sampled_ios, rng::ZipfTable),
/// and must give the ops of the text, which draws every I/O one by one.
#[test]
fn fio_bench_job_batched_ops_are_its_text_ops() {
    let spec = "fio:--name=j --rw=randread --bs=4k --size=4294967296 --buffered=1 --random_distribution=zipf:1.2 \
                --norandommap --io_size=819200000 --number_ios=200000;memory=214749184";
    assert_eq!(statement_ops_match_text(spec), 200_000 + 5);
    // A small file (most slots of the table span one block), zipf < 1,
    // ended by io_size in the middle of a batch.
    let spec = "fio:--name=k --rw=randread --size=1m --random_distribution=zipf:0.7 --norandommap --io_size=3000k --loops=2;memory=64M";
    assert!(statement_ops_match_text(spec) > 1500);
}

/// The same at the benchmark's full length (10 M I/Os; a few seconds in a
/// release build): `cargo test --release -p mglru-workload --test
/// generators -- --ignored bench_job_full`.
#[test]
#[ignore]
fn fio_bench_job_full_batched_ops_are_its_text_ops() {
    let spec = "fio:--name=j --rw=randread --bs=4k --size=4294967296 --buffered=1 --random_distribution=zipf:1.2 \
                --norandommap --io_size=40960000000 --number_ios=10000000;memory=214749184";
    assert_eq!(statement_ops_match_text(spec), 10_000_000 + 5);
}
