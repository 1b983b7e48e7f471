// SPDX-License-Identifier: GPL-2.0-only
//! Validates a trace and prints its op count (or the first error).
//!
//! `cargo run -p mglru-trace --release --example check_trace -- FILE`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: check_trace FILE");
        return ExitCode::from(2);
    };
    let mut r = match mglru_trace::TraceReader::open(std::path::Path::new(&path)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let start = std::time::Instant::now();
    let mut n: u64 = 0;
    loop {
        match r.next_op() {
            Ok(Some(_)) => n += 1,
            Ok(None) => break,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{}: {n} ops, {} lines/records, {:.1} M ops/s",
        r.name(),
        r.line(),
        n as f64 / secs.max(1e-9) / 1e6
    );
    ExitCode::SUCCESS
}
