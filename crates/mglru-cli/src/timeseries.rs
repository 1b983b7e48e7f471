// SPDX-License-Identifier: GPL-2.0-only
//! `--timeseries`: counters sampled on the simulated clock, as CSV.

use std::io::Write;

use mglru_core::stat::Ev;
use mglru_core::Kernel;

const EVENTS: [Ev; 12] = [
    Ev::WorkingsetRefaultFile,
    Ev::WorkingsetRefaultAnon,
    Ev::WorkingsetActivateFile,
    Ev::Pgpgin,
    Ev::Pswpin,
    Ev::Pswpout,
    Ev::PgstealFile,
    Ev::PgstealAnon,
    Ev::PgscanFile,
    Ev::PgscanAnon,
    Ev::OomKill,
    Ev::WorkingsetNodereclaim,
];

pub struct Series {
    out: std::io::BufWriter<Box<dyn Write>>,
    path: String,
    interval_ns: u64,
    next: u64,
    header_for: usize,
}

impl Series {
    pub fn create(path: &str, interval_ms: u64) -> Result<Series, String> {
        // `-` is standard output, like every other output.
        let f: Box<dyn Write> = if path == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::fs::File::create(path).map_err(|e| format!("--timeseries {path}: cannot write there: {e}"))?)
        };
        Ok(Series { out: std::io::BufWriter::new(f), path: path.to_string(), interval_ns: interval_ms * 1_000_000, next: 0, header_for: 0 })
    }

    /// Write rows for every interval boundary the clock has passed.
    pub fn sample(&mut self, k: &Kernel, name: &dyn Fn(u16) -> String) -> Result<(), String> {
        // Start with the first access: the setup section (memcgs, files,
        // tasks) is complete by then, so the header names every memcg.
        if k.now < self.next || k.sim.access_ops == 0 {
            return Ok(());
        }
        self.row(k, name)?;
        self.next = (k.now / self.interval_ns + 1) * self.interval_ns;
        Ok(())
    }

    pub fn finish(&mut self, k: &Kernel, name: &dyn Fn(u16) -> String) -> Result<(), String> {
        self.row(k, name)?;
        self.out.flush().map_err(|e| format!("writing {}: {e}", self.path))
    }

    fn row(&mut self, k: &Kernel, name: &dyn Fn(u16) -> String) -> Result<(), String> {
        let err = |e: std::io::Error| format!("writing {}: {e}", "timeseries");
        if self.header_for != k.memcgs.len() {
            // (Re)write a header when memcgs appear: a new header line starts a new block.
            let mut h = String::from("time_s");
            for e in EVENTS {
                h.push(',');
                h.push_str(e.name());
            }
            for m in 0..k.memcgs.len() as u16 {
                let n = name(m);
                h.push_str(&format!(",{n}:current_bytes"));
                for g in 0..4 {
                    h.push_str(&format!(",{n}:gen{g}_anon,{n}:gen{g}_file"));
                }
            }
            writeln!(self.out, "{h}").map_err(err)?;
            self.header_for = k.memcgs.len();
        }
        let mut r = format!("{:.3}", k.now as f64 / 1e9);
        for e in EVENTS {
            r.push_str(&format!(",{}", k.ev.get(e)));
        }
        for m in &k.memcgs {
            r.push_str(&format!(",{}", m.usage * 4096));
            let lg = &m.lruvec.lrugen;
            for g in 0..4u64 {
                // g = 0 is the youngest generation (max_seq).
                if lg.max_seq >= g && lg.max_seq - g >= lg.min_seq[0].min(lg.min_seq[1]) {
                    let gen = ((lg.max_seq - g) % 4) as usize;
                    r.push_str(&format!(",{},{}", lg.nr_pages[gen][0].max(0), lg.nr_pages[gen][1].max(0)));
                } else {
                    r.push_str(",0,0");
                }
            }
        }
        writeln!(self.out, "{r}").map_err(err)
    }
}
