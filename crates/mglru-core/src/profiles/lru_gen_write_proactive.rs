// SPDX-License-Identifier: GPL-2.0-only
//! The debugfs `lru_gen` commands as proactive memcg reclaim (7.2): 7.2's
//! `lru_gen_seq_write` builds its scan_control with `.proactive = true`
//! and `run_cmd` sets `sc->target_mem_cgroup` to the command's memcg, so
//! an eviction command is cgroup reclaim that counts under
//! `pgscan_proactive`/`pgsteal_proactive` (with 7.2's node-stat counters).
//! 6.12 gave it no target memcg and no proactive flag: global direct
//! reclaim in the counters.

use super::{Difference, Fidelity, Steps};
use crate::vmscan::ScanControl;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "lru-gen-write-proactive",
    source: "7.2 mm/vmscan.c: lru_gen_seq_write, run_cmd",
    summary: "debugfs lru_gen commands reclaim as proactive reclaim of their memcg",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.lru_gen_seq_write_sc = seq_write_sc;
}

fn seq_write_sc(memcg: u16) -> ScanControl {
    let mut sc = ScanControl::new(0, Some(memcg));
    // The fields lru_gen_seq_write does not name are zero: priority too.
    sc.priority = 0;
    sc.proactive = true;
    sc
}
