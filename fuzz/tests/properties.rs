// SPDX-License-Identifier: GPL-2.0-only
//! Property tests: random generator parameters and random importer inputs,
//! drawn over wide ranges (boundary values included), and every output
//! read back by the trace reader. A specification may be refused with an
//! error; what a generator or importer writes must always be a trace the
//! reader accepts (`mglru_fuzz::exec` reads the first lines back and
//! reports a rejection as a violation).

use mglru_fuzz::{exec, scratch_dir, Outcome};
use proptest::prelude::*;

/// Sizes from a page to far past every limit, with the boundaries.
fn size() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u64..4096).prop_map(|k| format!("{k}K")),
        (1u64..2048).prop_map(|m| format!("{m}M")),
        (1u64..5).prop_map(|t| format!("{t}T")),
        Just("16T".to_string()),
        Just("17T".to_string()),
        Just("18446744073709551615".to_string()),
        (0u64..u64::MAX).prop_map(|b| b.to_string()),
    ]
}

/// Counts from 0 to 2^64-1, weighted to the small.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..16, 0u64..100_000, Just(4096u64), Just(65536), Just(1 << 32), any::<u64>()]
}

fn check(target: &str, input: &[u8]) -> Result<Outcome, TestCaseError> {
    let scratch = scratch_dir("props").join(target);
    let r = exec(target, input, &scratch).map_err(|e| TestCaseError::fail(format!("{target}: {e}")));
    mglru_fuzz::remove_scratch(&scratch);
    if std::env::var_os("MGLRU_PROPS_VERBOSE").is_some() {
        eprintln!("{target}: {r:?}");
    }
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fio_specs(size in size(), bs in size(), jobs in 1u64..8, nrfiles in 1u64..4, ios in count(), rw in 0usize..6, mmap in any::<bool>(), memory in size()) {
        let rw = ["read", "write", "randread", "randwrite", "rw", "randrw"][rw];
        let spec = format!(
            "fio:--name=j --size={size} --bs={bs} --numjobs={jobs} --nrfiles={nrfiles} --number_ios={ios} --rw={rw}{};memory={memory}",
            if mmap { " --ioengine=mmap" } else { "" }
        );
        check("workload", spec.as_bytes())?;
    }

    #[test]
    fn memtier_specs(n in count(), c in 1u64..4, t in 1u64..4, s in 0u64..4, g in 0u64..12, d in count(), kmax in count(), pat in 0usize..4, mem in size()) {
        let pat = ["R:R", "S:S", "G:G", "P:P"][pat];
        let spec = format!("memtier:-n {n} -c {c} -t {t} --ratio={s}:{g} -d {d} --key-maximum={kmax} --key-pattern={pat};memcached_mem={mem}");
        check("workload", spec.as_bytes())?;
    }

    #[test]
    fn ycsb_specs(w in 0usize..6, records in count(), ops in count(), cache in size(), leaf in 1u64..64, record in count(), scale in 1u64..100_000) {
        let w = ["a", "b", "c", "d", "e", "f"][w];
        let spec = format!("ycsb:workload={w},records={records},operations={ops},cache={cache},leaf={}K,record_size={record},scale={scale}", leaf * 4);
        check("workload", spec.as_bytes())?;
    }

    #[test]
    fn other_generators(case in 0usize..6, a in count(), b in count(), sz in size(), scale in 1u64..1_000_000) {
        let spec = match case {
            0 => format!("ebizzy:chunks={},chunk_size={sz},threads={},loops={b},scale={scale}", a % 1000 + 10, a % 64 + 1),
            1 => format!("lru-file-readtwice:nr_task={},size={sz},scale={scale}", a % 64),
            2 => format!("mmap-xread-seq-mt:nr_task={a},size={sz},chunk={b}"),
            3 => format!("file-anon-mix:scale={scale},file={sz},iterations={},reader_page_ns={a},anon_wait={b}ns", a % 50 + 1),
            4 => format!("mixed-memcg:scale={scale},jobs={},clients={},keys={b}", a % 64 + 1, b % 64 + 1),
            _ => format!("lru-file-mmap-read:nr_task={},size={sz},memory={sz}", a % 1000),
        };
        check("workload", spec.as_bytes())?;
    }

    #[test]
    fn iolog_inputs(reqs in prop::collection::vec((0u64..3, count(), count(), count(), 0usize..5), 1..40), v3 in any::<bool>()) {
        let mut text = format!("\nfio version {} iolog\n", if v3 { 3 } else { 2 });
        for (f, off, len, t, act) in reqs {
            let act = ["read", "write", "add", "wait", "sync"][act];
            let ts = if v3 { format!("{t} ") } else { String::new() };
            match act {
                "read" | "write" => text += &format!("{ts}f{f} {act} {off} {len}\n"),
                "wait" => text += &format!("{ts}f{f} wait {}\n", t % 100_000_000_000),
                _ => text += &format!("{ts}f{f} {act}\n"),
            }
        }
        check("import-fio-iolog", text.as_bytes())?;
    }

    #[test]
    fn blkparse_inputs(reqs in prop::collection::vec((0u64..2, count(), count(), 0u64..1_000_000_000, 0usize..4), 1..40)) {
        let mut text = String::from("\n");
        let mut now = 0u64;
        for (dev, sector, n, dt, rwbs) in reqs {
            now = now.saturating_add(dt);
            let rwbs = ["R", "W", "WS", "D"][rwbs];
            text += &format!("  8,{} 0 1 {}.{:09} 7 Q {rwbs} {sector} + {n} [x]\n", dev * 16, now / 1_000_000_000, now % 1_000_000_000);
        }
        check("import-blkparse", text.as_bytes())?;
    }

    #[test]
    fn lackey_inputs(reqs in prop::collection::vec((0usize..4, any::<u64>(), count()), 1..40), gap in size()) {
        let mut text = format!("gap={gap}\n");
        for (k, addr, size) in reqs {
            text += &format!("{}{:x},{}\n", [" L ", " S ", " M ", "I  "][k], addr >> (k * 8), size % 1_000_000);
        }
        check("import-lackey", text.as_bytes())?;
    }

    #[test]
    fn cachesim_inputs(reqs in prop::collection::vec((count(), count(), count()), 1..40), unit in 0usize..4) {
        let unit = ["s", "ms", "us", "ns"][unit];
        let mut text = format!("time_unit={unit}\ntime,obj_id,obj_size\n");
        for (t, id, size) in reqs {
            text += &format!("{t},{id},{size}\n");
        }
        check("import-cachesim-csv", text.as_bytes())?;
    }

    #[test]
    fn oracle_inputs(reqs in prop::collection::vec((any::<u32>(), 0u64..64, any::<u32>()), 1..40), timing in any::<bool>()) {
        let mut data = if timing { b"\n".to_vec() } else { b"timing=0\n".to_vec() };
        for (t, id, size) in reqs {
            data.extend_from_slice(&t.to_le_bytes());
            data.extend_from_slice(&id.to_le_bytes());
            data.extend_from_slice(&size.to_le_bytes());
            data.extend_from_slice(&(-1i64).to_le_bytes());
        }
        check("import-oracle-general", &data)?;
    }

    #[test]
    fn strace_inputs(reqs in prop::collection::vec((0usize..5, 1u64..4, count(), count()), 1..40)) {
        let mut text = String::from("\n");
        for (call, pid, a, b) in reqs {
            text += &match call {
                0 => format!("{pid} openat(AT_FDCWD, \"/f{}\", O_RDONLY) = 3\n", a % 3),
                1 => format!("{pid} read(3, \"\"..., {a}) = {}\n", b % (1 << 40)),
                2 => format!("{pid} pread64(3, \"\"..., {a}, {b}) = {}\n", a % (1 << 30)),
                3 => format!("{pid} lseek(3, {a}, SEEK_SET) = {}\n", a as i64),
                _ => format!("{pid} mmap(NULL, {a}, PROT_READ, MAP_SHARED, 3, {b}) = 0x7f00\n"),
            };
        }
        check("import-strace", text.as_bytes())?;
    }
}
