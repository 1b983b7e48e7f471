// SPDX-License-Identifier: GPL-2.0-only
//! Test helpers: feed trace text to the model line by line.
#![allow(dead_code)]

use mglru_core::kernel::Kernel;
use mglru_core::stat::Ev;
use mglru_core::{CostModel, Policy, RunOptions, Simulator};
use mglru_trace::TraceReader;

pub struct T {
    pub sim: Simulator,
    reader: TraceReader,
    text: String,
    consumed: usize,
}

impl T {
    pub fn new(policy: Policy) -> T {
        Self::with_options(RunOptions { policy: Some(policy), ..Default::default() })
    }
    pub fn with_options(opts: RunOptions) -> T {
        T {
            sim: Simulator::new(opts),
            reader: TraceReader::from_str("test", ""),
            text: String::new(),
            consumed: 0,
        }
    }
    pub fn classic() -> T {
        Self::new(Policy::Classic)
    }
    /// Append trace lines and apply everything not applied yet.
    pub fn run(&mut self, lines: &str) -> &mut Self {
        self.text.push_str(lines);
        if !lines.ends_with('\n') {
            self.text.push('\n');
        }
        // Re-read the whole text (names must resolve), skipping what ran.
        self.reader = TraceReader::from_str("test", &self.text);
        let mut i = 0;
        while let Some(op) = self.reader.next_op().unwrap_or_else(|e| panic!("trace error: {e}")) {
            if i >= self.consumed {
                self.sim.apply(&op).unwrap_or_else(|e| panic!("sim error at op {i}: {e}"));
                self.consumed += 1;
            }
            i += 1;
        }
        self
    }
    pub fn k(&mut self) -> &mut Kernel {
        self.sim.boot().unwrap()
    }
    pub fn ev(&mut self, e: Ev) -> u64 {
        self.k().ev.get(e)
    }
    pub fn vm(&mut self, name: &str) -> u64 {
        self.k().vmstat().iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no vmstat {name}")).1
    }
    pub fn drain(&mut self) -> &mut Self {
        self.k().lru_add_drain();
        self
    }
    pub fn check(&mut self) {
        self.k().check_invariants().unwrap_or_else(|e| panic!("invariant: {e}"));
    }
    pub fn memcg_id(&self, name: &str) -> u16 {
        self.reader.memcg_id(name).unwrap()
    }
    pub fn file_id(&self, name: &str) -> u32 {
        self.reader.file_id(name).unwrap()
    }
    pub fn folio_of(&mut self, file: &str, page: u64) -> Option<u32> {
        let f = self.file_id(file);
        self.k().files[f as usize].folio_at(page)
    }
}

/// A cost model where every cost is 0 but the named ones: the test's
/// clock and CPU times then come from those steps alone.
pub fn only_costs(set: &[(&str, u64)]) -> CostModel {
    let mut c = CostModel::default();
    for n in CostModel::NAMES {
        c.set(n, 0).unwrap();
    }
    for &(n, v) in set {
        c.set(n, v).unwrap();
    }
    c
}
