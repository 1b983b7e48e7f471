// SPDX-License-Identifier: GPL-2.0-only
//! The model against the committed real-kernel results of the reference
//! suite (validation/results), with the thresholds in force
//! (validation/thresholds.json). No QEMU needed: the kernel side was
//! measured once with validation/run-suite.sh.

use std::process::Command;

#[test]
fn model_is_within_the_thresholds_of_the_kernel_results() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let suite = root.join("validation");
    let n = std::fs::read_dir(suite.join("results")).map(|d| d.count()).unwrap_or(0);
    assert!(n >= 24, "expected the committed kernel results in validation/results, found {n} files");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru"))
        .args(["validate", "--suite", suite.to_str().unwrap(), "--check"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "validation failed:\n{err}\n{}", out.lines().rev().take(8).collect::<Vec<_>>().join("\n"));
    assert!(!out.contains("no kernel results for"), "a suite trace lacks kernel results:\n{out}");
}
