// SPDX-License-Identifier: GPL-2.0-only
//! Prints a generated or imported trace:
//!
//! ```text
//! cargo run -p mglru-workload --example workload -- 'SPEC' [MAX_LINES]
//! cargo run -p mglru-workload --example workload -- --import FORMAT PATH [MAX_LINES]
//! ```

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (lines, max) = if args.first().map(|a| a == "--import").unwrap_or(false) {
        if args.len() < 3 {
            eprintln!("usage: workload --import FORMAT PATH [MAX_LINES]");
            std::process::exit(2);
        }
        let opts = mglru_workload::ImportOptions::default();
        (mglru_workload::import(&args[1], std::path::Path::new(&args[2]), &opts), args.get(3))
    } else if let Some(spec) = args.first() {
        (mglru_workload::workload(spec), args.get(1))
    } else {
        eprintln!("usage: workload SPEC [MAX_LINES]; generators:");
        for (n, d) in mglru_workload::workload_names() {
            eprintln!("  {:<20} {}", n, d);
        }
        std::process::exit(2);
    };
    let max: usize = max.and_then(|m| m.parse().ok()).unwrap_or(usize::MAX);
    let lines = match lines {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}", e);
            std::process::exit(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for l in lines.take(max) {
        match l {
            Ok(l) => {
                if writeln!(out, "{}", l).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: {}", e);
                std::process::exit(1);
            }
        }
    }
}
