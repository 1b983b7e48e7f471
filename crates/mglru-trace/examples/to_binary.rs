// SPDX-License-Identifier: GPL-2.0-only
//! Converts a trace (text or binary, optionally compressed) to the binary
//! form.
//!
//! `cargo run -p mglru-trace --release --example to_binary -- IN OUT`

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    if args.len() != 3 {
        eprintln!("usage: to_binary IN OUT");
        return ExitCode::from(2);
    }
    let mut r = match mglru_trace::TraceReader::open(std::path::Path::new(&args[1])) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = match std::fs::File::create(&args[2]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "{}: cannot create: {e}",
                std::path::Path::new(&args[2]).display()
            );
            return ExitCode::FAILURE;
        }
    };
    match mglru_trace::write_binary(&mut r, &mut out) {
        Ok(n) => {
            println!("{n} ops written");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
