// SPDX-License-Identifier: GPL-2.0-only
//! Every workload generator runs on every kernel version (issue: "three
//! kernels, one model"): `mglru run --workload SPEC --kernel K` succeeds,
//! its report names the version, and carries only the counters that
//! version prints (6.1 has no `pgscan_proactive`; 7.2 has it; 6.1 boots
//! the classic LRU, the others the multi-gen one). The suite's traces run
//! on each version in tests/validation.rs (`validate --kernel K --check`).

use std::process::Command;

/// One small instance of each generator `mglru workload` lists, scaled to
/// run in well under a second (the default scales are the seeds').
const SPECS: &[&str] = &[
    "fio:--name=j --rw=randread --size=64M --buffered=1 --time_based --runtime=2s;memory=256M,memcg_max=32M",
    "memtier:--ratio=1:10 --key-pattern=R:R --requests=2000;memory=64M",
    "ycsb:workload=b,records=2000,operations=5000,cache=4M",
    "lru-file-readtwice:nr_task=2,size=16M",
    "lru-file-mmap-read:nr_task=2,size=16M",
    "mmap-pread-seq:nr_task=2,size=16M",
    "mmap-xread-seq-mt:nr_task=2,size=16M",
    "ebizzy:seq=16,loops=1,chunk_size=20M",
    "kbuild:scale=64",
    "file-anon-mix:scale=4096",
    "mixed-memcg:scale=4096",
];

#[test]
fn every_generator_runs_on_every_kernel() {
    let list = Command::new(env!("CARGO_BIN_EXE_mglru")).arg("workload").output().unwrap();
    let listed = String::from_utf8_lossy(&list.stdout).to_string() + &String::from_utf8_lossy(&list.stderr);
    // Every generator the binary lists has a spec here (fio-job reads a
    // job file: its parser is fio's, run by the fio spec).
    for line in listed.lines().skip_while(|l| !l.starts_with("generators:")).skip(1) {
        let Some(name) = line.split_whitespace().next() else { continue };
        if name == "fio-job" {
            continue;
        }
        assert!(SPECS.iter().any(|s| s.starts_with(&format!("{name}:"))), "generator {name} has no spec in this test");
    }
    let dir = std::env::temp_dir().join(format!("mglru-kernel-generators-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("report.json");
    for spec in SPECS {
        for (kernel, policy) in [("6.1", "classic"), ("6.12", "mglru"), ("7.2", "mglru")] {
            let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
                .args(["run", "--workload", spec, "--kernel", kernel, "--json", out.to_str().unwrap(), "--quiet"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{spec} on {kernel}: {}", String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            assert_eq!((v["kernel"].as_str(), v["policy"].as_str()), (Some(kernel), Some(policy)), "{spec}");
            let has_proactive = v["vmstat"].get("pgscan_proactive").is_some();
            assert_eq!(has_proactive, kernel == "7.2", "{spec} on {kernel}: pgscan_proactive");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
