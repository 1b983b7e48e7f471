// SPDX-License-Identifier: GPL-2.0-only
//! Proactive reclaim of anon only (7.2 `SWAPPINESS_ANON_ONLY`, written
//! `max`: mm/memcontrol.c `memory_reclaim` and mm/vmscan.c
//! `lru_gen_seq_write`/`run_cmd` accept it; `get_scan_count`,
//! `for_each_evictable_type`, `evictable_min_seq`, `inc_min_seq` and
//! `should_skip_vma` act on it). 6.12 takes 0 to `MAX_SWAPPINESS` at both
//! interfaces and has no value that leaves the page cache alone.
//!
//! What the value does is in the shared functions, which take a
//! swappiness from 0 to 201 as 7.2's do: the classic LRU's
//! `get_scan_count` scans anon only (`SCAN_ANON`, after the no-swap and
//! memcg-swappiness-0 tests, so without swap it is still file only); the
//! multi-gen LRU evicts, sizes and ages anon only (the evictable types are
//! anon alone, so `isolate_folios` never falls back to file), its aging
//! moves file's `min_seq` on without sorting file's oldest generation, and
//! the page-table walk skips file mappings. For a swappiness of 0 to 200
//! those functions compute exactly what 6.12's `can_swap` computed; this
//! difference is the interface that lets 201 in.

use super::{Difference, Fidelity, Steps};
use crate::lru_gen::SWAPPINESS_ANON_ONLY;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "swappiness-max-7.2",
    source: "7.2 mm/memcontrol.c: memory_reclaim; mm/vmscan.c: lru_gen_seq_write, run_cmd, get_scan_count, inc_min_seq, should_skip_vma",
    summary: "memory.reclaim swappiness=max and the lru_gen commands' max: proactive reclaim of anon only",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.max_swappiness = SWAPPINESS_ANON_ONLY;
}
