// SPDX-License-Identifier: GPL-2.0-only
//! Issue 15's reproducers in the generators and importers: each one
//! panicked, aborted, wrapped silently or wrote a trace the reader then
//! rejected. Each now gives a clean error naming the input and the limit,
//! or a trace the reader accepts.

mod common;

use std::time::{Duration, Instant};

use common::{all, gen_err, must_parse, tmp};
use mglru_workload::{import, workload, ImportOptions};

/// The whole stream of an import; `Err` with the first error.
fn import_all(format: &str, content: &[u8]) -> Result<Vec<String>, String> {
    let p = tmp("input", content);
    let lines = import(format, &p, &ImportOptions::default())?;
    lines.collect()
}

fn import_err(format: &str, content: &[u8]) -> String {
    match import_all(format, content) {
        Ok(l) => panic!("{format}: expected an error, got {} lines", l.len()),
        Err(e) => e,
    }
}

#[test]
fn fio_empty_filename_is_an_error() {
    // Index out of bounds in fio.rs.
    let e = gen_err("fio:--name=x --filesize=1m --filename=");
    assert_eq!(e, "fio job `x`: --filename= names no file: give a file name (several are separated by `:`)");
    let e = gen_err("fio:--name=x --filesize=1m --filename=::");
    assert!(e.contains("names no file"), "{e}");
}

#[test]
fn fio_file_sizes_are_bounded() {
    let e = gen_err("fio:--name=x --filesize=5t");
    assert!(e.starts_with("fio job `x`: --filesize makes a file of 5497558138880 bytes, larger than trace v1 allows (4T per file"), "{e}");
    let e = gen_err("fio:--name=x --size=4t --numjobs=5");
    assert!(e.contains("16T for all files together"), "{e}");
    let e = gen_err("fio:--name=x --size=1g --nrfiles=2000000");
    assert!(e.contains("--nrfiles=2000000 is more files"), "{e}");
}

#[test]
fn memtier_huge_data_size_is_an_error() {
    // The slab region's size wrapped; the reader rejected the trace.
    let e = gen_err("memtier:-n 1 -c 1 -t 1 -d 100000000000");
    assert!(e.contains("-d 100000000000 is larger than memcached's largest item (1G"), "{e}");
    let e = gen_err("memtier:-n 1 -c 1 -t 1 -d 1000000000 --key-maximum=100000");
    assert!(e.contains("larger than trace v1 allows for a region (16T)"), "{e}");
}

#[test]
fn ebizzy_region_does_not_wrap() {
    // 16T x 2^20 chunks = 2^64 bytes: a region of size 0 was emitted.
    let e = gen_err("ebizzy:chunk_size=16T,chunks=1048576");
    assert!(e.starts_with("ebizzy: chunks=1048576 of chunk_size=16T make a region of 18446744073709551616 bytes"), "{e}");
}

#[test]
fn ebizzy_streams_its_setup() {
    // ebizzy built every chunk's fill before writing the first line (862
    // MB for chunks=10000000); the fills are now written one per step.
    let t = Instant::now();
    let lines = workload("ebizzy:chunks=10000000,chunk_size=4K,threads=4194304").unwrap();
    let first: Vec<String> = lines.take(50).map(|l| l.unwrap()).collect();
    assert!(first.iter().any(|l| l.starts_with("anon ebizzy copy0 ")), "{first:?}");
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // Output unchanged: the setup still comes in the same order.
    let got = common::gen("ebizzy:chunk_size=8K,chunks=10,threads=2,loops=1,scale=1");
    let i = got.iter().position(|l| l == "anon ebizzy copy1 size=8K").unwrap();
    assert_eq!(got[i + 1], "store ebizzy chunks 0 2");
    assert_eq!(got[i + 10], "store ebizzy chunks 18 2");
}

#[test]
fn ycsb_cache_is_bounded() {
    // Aborted on allocation failure (a slot per leaf of 2^64 bytes).
    let e = gen_err("ycsb:cache=14294967296M");
    assert!(e.contains("more than the generator models (16777216)"), "{e}");
}

#[test]
fn generated_memory_respects_the_model() {
    // Scaled defaults used to go below the 16M the model needs.
    let lines = all(workload("ebizzy:scale=400").unwrap());
    assert!(lines.contains(&"memory 16M".to_string()));
    must_parse("ebizzy:scale=400", &lines);
    let e = gen_err("fio:--name=x --size=1m;memory=4M");
    assert!(e.contains("memory= must be at least 16M"), "{e}");
}

#[test]
fn iolog_zero_length_is_inside_the_file() {
    // A zero-length request touches the page at its offset; the file was
    // sized to the offset only, and the reader rejected the trace.
    let lines = import_all("fio-iolog", b"fio version 2 iolog\nf add\nf read 8192 0\n").unwrap();
    must_parse("iolog", &lines);
    assert!(lines.contains(&"file f size=8193".to_string()), "{lines:?}");
    assert!(lines.contains(&"read fio f 2".to_string()), "{lines:?}");
}

#[test]
fn iolog_and_blkparse_offsets_are_not_capped() {
    let e = import_err("fio-iolog", b"fio version 2 iolog\nf add\nf read 18446744073709551000 4096\n");
    assert!(e.ends_with(":3: bytes 18446744073709551000..18446744073709555096 lie beyond 4T, the largest file trace v1 allows"), "{e}");
    let e = import_err("blkparse", b"  8,0    3        1     0.000000000   697  Q   R 36028797018963968 + 8 [kjournald]\n");
    assert!(e.contains(":1: sectors 36028797018963968 + 8 of 512 bytes:"), "{e}");
    assert!(e.contains("beyond 4T"), "{e}");
}

#[test]
fn cachesim_csv_large_object_sizes() {
    // A 64-bit object size overflowed the layout.
    let e = import_err("cachesim-csv", b"time,obj_id,obj_size\n1,a,18446744073709551615\n");
    assert!(e.contains(":2: column 3 (obj_size): 18446744073709551615 bytes is larger than the largest file trace v1 allows (4T)"), "{e}");
    // Objects that each fit but add up past 4T: the layout names one.
    let e = import_err("cachesim-csv", b"time,obj_id,obj_size\n1,1,4398046511104\n1,2,4096\n");
    assert!(e.contains("object 2 (4096 bytes) takes the objects past 4T"), "{e}");
}

#[test]
fn lackey_ranges_do_not_wrap() {
    // An address near the top of the space: the range wrapped.
    let e = import_err("lackey", b" L fffffffffffffff0,32\n");
    assert!(e.ends_with(":1: the access 0xfffffffffffffff0,32 runs past the top of the 64-bit address space"), "{e}");
    // The last byte of the space is fine, as its own region.
    let lines = import_all("lackey", b" L ffffffffffffffff,1\n S 1000,8\n").unwrap();
    must_parse("lackey", &lines);
    // A huge gap joins everything into one region beyond trace v1.
    let p = tmp("lackey.out", b" L 0,8\n L f0000000000,8\n L 1e0000000000,8\n");
    let e = match import("lackey:gap=16T", &p, &ImportOptions::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert!(e.contains("more than trace v1 allows for a region (16T): use a smaller gap="), "{e}");
    let e = match import("lackey:gap=17T", &p, &ImportOptions::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert!(e.contains("gap=17T is larger than the largest region"), "{e}");
}

#[test]
fn oracle_general_timestamp_jump_is_an_error() {
    // One jump of 2^32 - 106 s became `sleep 4294967190s`.
    let rec = |t: u32, id: u64, size: u32| {
        let mut v = t.to_le_bytes().to_vec();
        v.extend_from_slice(&id.to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&(-1i64).to_le_bytes());
        v
    };
    let mut data = rec(100, 1, 4096);
    data.extend(rec(u32::MAX - 5, 2, 4096));
    let e = import_err("oracle-general", &data);
    assert!(e.ends_with(": byte offset 24: the timestamp jumps 4294967190s: a longer idle period than trace v1 allows (365 days); import with timing=0 to drop the gaps"), "{e}");
    let p = tmp("o.bin", &data);
    let lines: Vec<String> = import("oracle-general:timing=0", &p, &ImportOptions::default()).unwrap().map(|l| l.unwrap()).collect();
    must_parse("oracle", &lines);
}

#[test]
fn import_memory_is_bounded() {
    let p = tmp("x.iolog", b"fio version 2 iolog\n");
    let opts = ImportOptions { memory: Some(4096), ..ImportOptions::default() };
    let e = match import("fio-iolog", &p, &opts) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert_eq!(e, "import: memory must be at least 16M (the model's smallest machine), found 4K");
}

#[test]
fn fio_jobs_are_bounded_like_fio() {
    // A million jobs took 16 s and 1.7 GB before the first line; fio
    // itself runs at most 4096 (REAL_MAX_JOBS).
    let e = gen_err("fio:--name=x --size=1m --numjobs=4097");
    assert_eq!(e, "fio job `x`: --numjobs summed over the jobs is 4097, more than fio runs (4096, its REAL_MAX_JOBS): use fewer");
    let e = gen_err("mixed-memcg:scale=4097,jobs=1048576,clients=2");
    assert!(e.contains("jobs=1048576 is more fio jobs than fio runs (4096"), "{e}");
    assert!(gen_err("file-anon-mix:file_workers=65537").contains("more than the generator interleaves (65536"));
}

/// Found by the fuzzer: generators whose work between two lines had no
/// bound. Each must give its first lines at once.
#[test]
fn no_unbounded_silence_between_lines() {
    for spec in [
        // GET-only against an empty memcached: every request missed,
        // nothing was written, 2^63 times.
        "memtier:-n 9223372036854765807 -c 2 -t 2 --ratio=0:10 --key-pattern=G:G --key-maximum=5000 -d 200",
        // One SET per 5M GETs of 10^7 keys: millions of misses per line.
        "memtier:-n 1099511627776 -c 2 -t 2 --ratio=1:5111104",
        // Found by the long run: 510 clients, one SET each, then gaussian
        // GETs (each key drawn up to 64 times): 26 s for 4000 lines with
        // a note per 4096 misses.
        "memtier:-n 9223372036854775807 -c 255 -t 2 --ratio=1:4294967295 --key-pattern=G:G -a\u{fffd}imum=000 -d0200;memcached_mem=2147483648M",
    ] {
        let t = Instant::now();
        let lines: Vec<String> = workload(spec).unwrap().take(2000).map(|l| l.unwrap()).collect();
        assert!(t.elapsed() < Duration::from_secs(10), "{spec}: {:?}", t.elapsed());
        must_parse(spec, &lines);
    }
    // memtier reads --ratio as unsigned ints: the sum overflowed a u64.
    let e = gen_err("memtier:--ratio=18446744073709551615:1");
    assert!(e.contains("each side is at most 4294967295"), "{e}");
    // YCSB set up the index of 2^31 loaded records for more than 10 s
    // before its first line.
    let e = gen_err("ycsb:workload=e,records=2147483648,operations=4097,cache=256K,insert_order=ordered");
    assert!(e.contains("more than the 67108864 records the generator tracks"), "{e}");
}

#[test]
fn strace_timestamp_overflow_is_an_error() {
    // Found by the fuzz smoke run: minutes of 2^31 overflowed (a panic in
    // a debug build, a wrapped time in a release build).
    let e = import_err("strace", b"1000 10:2147483648:01.000000 read(3, \"z\"..., 100) = 100\n");
    assert!(e.contains(":1: bad timestamp `10:2147483648:01.000000`"), "{e}");
}

#[test]
fn long_times_are_errors_not_caps() {
    // Both saturated at 2^64 ns silently.
    let e = gen_err("memtier:--test-time=18446744074 -c 1 -t 1");
    assert!(e.contains("--test-time=18446744074: too long (at most 18446744073 seconds)"), "{e}");
    let e = gen_err("fio:--name=x --size=1m --time_based --runtime=18446744073 --ramp_time=1");
    assert!(e.contains("--ramp_time plus --runtime does not fit in 64 bits"), "{e}");
}

/// Issue 35: values out of range are refused, never capped or raised
/// silently (fio refuses --rwmixread=101 too).
#[test]
fn out_of_range_generator_values_are_refused() {
    for (spec, want) in [
        ("fio:--name=x --size=1m --rw=randrw --rwmixread=101", "--rwmixread=101: a percentage, 0 to 100"),
        ("fio:--name=x --size=1m --rw=randrw --rwmixwrite=150", "--rwmixwrite=150: a percentage, 0 to 100"),
        ("ycsb:cache=0", "cache=0 holds no leaf of leaf=32K"),
        ("ycsb:record_size=0", "record_size= must be at least 1 byte"),
        ("ycsb:index_entry=0", "index_entry= must be at least 1 byte"),
        ("ycsb:journal_size=1K", "journal_size=1K is smaller than a page"),
        ("memtier:-n 10;memcached_mem=0", "memcached_mem=0 is smaller than one slab page"),
        ("memtier:-n 10;memcached_mem=512K", "memcached_mem=512K is smaller than one slab page"),
    ] {
        let e = gen_err(spec);
        assert!(e.contains(want), "{spec}: {e}");
    }
    // The edges stay valid.
    for spec in ["fio:--name=x --size=1m --rw=randrw --rwmixread=100", "ycsb:cache=32K,operations=10,records=100", "memtier:-n 10;memcached_mem=1M"] {
        let lines = workload(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        for l in lines.take(200) {
            l.unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
    }
}

/// Issue 35: an importer's line is bounded like the trace reader's
/// (64 KiB), and a message quotes an excerpt of a long line or field.
#[test]
fn importer_lines_are_bounded_and_quoted_short() {
    let mut long = b" L  0400a000,8\n S  ".to_vec();
    long.extend(std::iter::repeat_n(b'4', 100_000));
    long.extend(b",8\n");
    for format in ["lackey", "strace", "blkparse", "fio-iolog", "cachesim-csv"] {
        let e = import_err(format, &long);
        assert!(e.contains("longer than 65536 bytes") || e.len() < 1000, "{format}: {} bytes: {}", e.len(), &e[..e.len().min(200)]);
        assert!(e.len() < 1000, "{format}: the message quotes {} bytes", e.len());
    }
    let e = import_err("lackey", &long);
    assert!(e.contains(":2: the line is longer than 65536 bytes"), "{e}");
    let mut field = b" L  ".to_vec();
    field.extend(std::iter::repeat_n(b'g', 3000));
    field.extend(b",8\n");
    let e = import_err("lackey", &field);
    assert!(e.contains("bytes in all)") && e.len() < 400, "{} bytes: {}", e.len(), &e[..e.len().min(200)]);
}

/// Issue 35: an importer's input must be a file it can read twice.
#[test]
fn importers_refuse_what_they_cannot_read_twice() {
    for p in ["-", "/dev/null", "/dev/zero"] {
        let e = match import("lackey", std::path::Path::new(p), &ImportOptions::default()) {
            Ok(_) => panic!("{p}: accepted"),
            Err(e) => e,
        };
        assert!(e.contains("is not a regular file") && e.contains("save it to a file first"), "{p}: {e}");
    }
}

/// The fuzzer's finding (2026-12-03, seed 12): a `memtier:` spec holding
/// a newline ended the trace's header comment early and the rest became a
/// bad statement. A control character in any spec is now refused, named.
#[test]
fn a_spec_with_a_control_character_is_refused() {
    for spec in ["memtier:-n 16\nclients=2", "ebizzy:seq=16\u{10}", "fio:--name=j --rw=read\r--size=1M"] {
        let e = match mglru_workload::workload(spec) {
            Ok(_) => panic!("{spec:?} accepted"),
            Err(e) => e,
        };
        assert!(e.contains("control character U+00") && e.contains("one line of text"), "{e}");
        assert!(mglru_workload::workload_statements(spec).is_err(), "{spec:?}");
    }
    assert!(mglru_workload::workload("memtier:-n 16").is_ok());
}
