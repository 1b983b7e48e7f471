// SPDX-License-Identifier: GPL-2.0-only
//! `--timeseries`: counters sampled on the simulated clock, as CSV. Each
//! row starts with the page accesses so far, the accesses that found their
//! page in memory (`hits`) and the cold misses (mglru_sweep::figures), so
//! the hit ratio of any window is the difference of two rows.

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
    /// Flexible: a header line is written again when memcgs appear, and
    /// the rows after it are longer.
    out: csv::Writer<crate::output::Committed>,
    path: String,
    interval_ns: u64,
    next: u64,
    header_for: usize,
}

impl Series {
    /// Rows go to `out` (checked before the run): a file's appear at its
    /// path only when [`Series::finish`] has written the last one.
    pub fn create(out: crate::output::Output, interval_ms: u64) -> Result<Series, mglru_sweep::Failure> {
        let path = out.name();
        let out = csv::WriterBuilder::new().flexible(true).from_writer(out.into_writer()?);
        Ok(Series { out, path, interval_ns: interval_ms * 1_000_000, next: 0, header_for: 0 })
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

    /// The last row, then the file in place.
    pub fn finish(mut self, k: &Kernel, name: &dyn Fn(u16) -> String) -> Result<(), mglru_sweep::Failure> {
        self.row(k, name).map_err(mglru_sweep::Failure::io)?;
        let path = self.path.clone();
        let w = self.out.into_inner().map_err(|e| mglru_sweep::Failure::io(format!("writing {path}: {}", e.error())))?;
        w.commit()
    }

    fn row(&mut self, k: &Kernel, name: &dyn Fn(u16) -> String) -> Result<(), String> {
        let path = self.path.clone();
        let err = move |e: csv::Error| format!("writing {path}: {e}");
        if self.header_for != k.memcgs.len() {
            // (Re)write a header when memcgs appear: a new header line starts a new block.
            let mut h = vec!["time_s".to_string()];
            h.extend(mglru_sweep::exec::SERIES_ACCESS_COLUMNS.iter().map(|c| c.to_string()));
            h.extend(EVENTS.iter().map(|e| e.name().to_string()));
            for m in 0..k.memcgs.len() as u16 {
                let n = name(m);
                h.push(format!("{n}:current_bytes"));
                for g in 0..4 {
                    h.push(format!("{n}:gen{g}_anon"));
                    h.push(format!("{n}:gen{g}_file"));
                }
            }
            self.out.write_record(&h).map_err(&err)?;
            self.header_for = k.memcgs.len();
        }
        let mut r = vec![format!("{:.3}", k.now as f64 / 1e9)];
        let d = &k.sim.demand;
        let accesses = k.sim.page_accesses;
        r.extend([accesses, accesses.saturating_sub(d.file_misses + d.swap_misses), d.cold_misses].iter().map(u64::to_string));
        r.extend(EVENTS.iter().map(|&e| k.ev.get(e).to_string()));
        for m in &k.memcgs {
            r.push((m.usage * 4096).to_string());
            let lg = &m.lruvec.lrugen;
            for g in 0..4u64 {
                // g = 0 is the youngest generation (max_seq).
                if lg.max_seq >= g && lg.max_seq - g >= lg.min_seq[0].min(lg.min_seq[1]) {
                    let gen = ((lg.max_seq - g) % 4) as usize;
                    r.push(lg.nr_pages[gen][0].max(0).to_string());
                    r.push(lg.nr_pages[gen][1].max(0).to_string());
                } else {
                    r.push("0".into());
                    r.push("0".into());
                }
            }
        }
        self.out.write_record(&r).map_err(&err)
    }
}
