// SPDX-License-Identifier: GPL-2.0-only
//! Build script: make the static build a classic static executable.
//!
//! With `RUSTFLAGS="-C target-feature=+crt-static"` rustc links a glibc
//! target as a *static PIE* (`file` says "static-pie linked", and `ldd`
//! exits 0 printing "statically linked", which the validation harness
//! takes for a dynamic binary). Appending `-no-pie -static` to the link of
//! the binary makes gcc pick the non-PIE static start files instead: the
//! result is an `ET_EXEC` "statically linked" executable without an
//! interpreter. The position-independent code rustc generated links fine
//! at a fixed address. Nothing changes for a normal (dynamic) build.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if crt_static && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        println!("cargo:rustc-link-arg-bins=-static");
    }
}
