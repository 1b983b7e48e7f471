// SPDX-License-Identifier: GPL-2.0-only
//! The CI check that a change meant to keep the model's results (speed,
//! refactoring) kept every counter of the reference suite.

use std::process::Command;

/// Every counter of the reference suite stays what it was: `mglru
/// validate`'s whole output (every trace, both policies, the model's value
/// of each checked counter, the CPU-time rows) is byte for byte the
/// committed docs/VALIDATE-OUTPUT.txt. A change meant to move the model's
/// results regenerates that file in the same commit, with
/// `target/release/mglru validate > docs/VALIDATE-OUTPUT.txt`; any other
/// change (speed, refactoring) must leave it alone.
#[test]
fn validate_output_is_the_committed_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let want = std::fs::read_to_string(root.join("docs/VALIDATE-OUTPUT.txt")).expect("docs/VALIDATE-OUTPUT.txt");
    let suite = root.join("validation");
    let o = Command::new(env!("CARGO_BIN_EXE_mglru")).args(["validate", "--suite", suite.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = String::from_utf8_lossy(&o.stdout);
    if got != want {
        let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
        let at = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
        panic!(
            "mglru validate's output differs from docs/VALIDATE-OUTPUT.txt from line {}:\n  committed: {}\n  now:       {}\n\
             ({} lines now, {} committed). If the change is meant to move the model's results, regenerate the file with \
             `target/release/mglru validate > docs/VALIDATE-OUTPUT.txt` and say why in the commit.",
            at + 1,
            w.get(at).unwrap_or(&"(end)"),
            g.get(at).unwrap_or(&"(end)"),
            g.len(),
            w.len()
        );
    }
}
