// SPDX-License-Identifier: GPL-2.0-only
//! Anon and file `min_seq` decoupled (7.2 mm/vmscan.c `try_to_inc_min_seq`,
//! `seq_is_valid`, `evictable_min_seq`). 6.12 kept anon's oldest
//! generation at or below file's (`min_seq[ANON] = min(anon, file)`, file's
//! at least anon's): when reclaim had emptied file's oldest generation
//! while anon's still held folios, file's `min_seq` could not move on, and
//! 6.12's `isolate_folios` scanned anon first whenever anon's was the
//! older. 7.2 lets each evictable type's `min_seq` move on past its empty
//! generations on its own, keeping each type at least `MIN_NR_GENS`
//! generations deep; with both types evictable (swappiness 1..=200), a
//! type that moved past `max_seq - MIN_NR_GENS` while the other is below
//! it is held back to it. A type is evictable from `min_type` (file only
//! at swappiness 0) to `max_type` (anon only above 200). Each type then
//! has two to four generations (`seq_is_valid`), and the evictable minimum
//! is the smaller of the evictable types' `min_seq`.
//!
//! The debugfs file follows: its listing starts at the evictable minimum
//! (`lru_gen_seq_show`), and the aging command (`run_aging`) no longer
//! refuses a lruvec already four generations deep (6.12's -ERANGE without
//! `force_scan`) nor skips a generation below `max_seq`: it always tries
//! to age `max_seq`, `inc_max_seq` moving the oldest generation on as
//! needed, and says -EEXIST when the page-table walk of that generation
//! was already done.

use super::{Difference, Fidelity, Steps};
use crate::kernel::Kernel;
use crate::lru_gen::{evictable_min_seq, evictable_types, LruGen, MAX_NR_GENS, MAX_SWAPPINESS, MIN_NR_GENS};
use crate::lruvec::{ANON, FILE};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "min-seq-7.2",
    source: "7.2 mm/vmscan.c: try_to_inc_min_seq, seq_is_valid, evictable_min_seq, lruvec_is_reclaimable, lru_gen_seq_show, run_aging",
    summary: "anon and file min_seq move on independently (each type two to four generations deep, held back to max_seq - 2 while the other is older)",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.try_to_inc_min_seq = try_to_inc_min_seq;
    s.seq_is_valid = seq_is_valid;
    // lruvec_is_reclaimable: the birth of the oldest evictable generation
    // (6.12 read file's, which was never younger than anon's).
    s.reclaimable_seq = |lg, swappiness| evictable_min_seq(lg.min_seq, swappiness);
    s.run_aging = run_aging;
}

/// 7.2 `run_aging` past the caller's -EINVAL check (a generation above
/// `max_seq`, the only one 7.2 refuses): `max_seq` is aged whatever
/// generation was given.
fn run_aging(k: &mut Kernel, memcg: u16, _max_gen: u64, swappiness: u32, force_scan: bool) -> Result<(), String> {
    let max_seq = k.memcgs[memcg as usize].lruvec.lrugen.max_seq;
    if k.try_to_inc_max_seq(memcg, max_seq, swappiness, force_scan) {
        Ok(())
    } else {
        Err(format!("lru_gen +: generation {max_seq} is already being aged (-EEXIST)"))
    }
}

/// 7.2 `try_to_inc_min_seq`.
fn try_to_inc_min_seq(k: &mut Kernel, memcg: u16, swappiness: u32) -> bool {
    let m = memcg as usize;
    let lg = &k.memcgs[m].lruvec.lrugen;
    let max_seq = lg.max_seq;
    let mut min_seq = lg.min_seq;
    for type_ in evictable_types(swappiness) {
        min_seq[type_] = lg.oldest_populated(type_);
    }
    if min_seq == lg.min_seq {
        return false;
    }
    if swappiness != 0 && swappiness <= MAX_SWAPPINESS {
        let seq = max_seq - MIN_NR_GENS;
        if min_seq[ANON] > seq && min_seq[FILE] < seq {
            min_seq[ANON] = seq;
        } else if min_seq[FILE] > seq && min_seq[ANON] < seq {
            min_seq[FILE] = seq;
        }
    }
    let mut success = false;
    for type_ in evictable_types(swappiness) {
        if min_seq[type_] <= k.memcgs[m].lruvec.lrugen.min_seq[type_] {
            continue;
        }
        k.reset_ctrl_pos(memcg, type_, true);
        k.memcgs[m].lruvec.lrugen.min_seq[type_] = min_seq[type_];
        success = true;
    }
    success
}

/// 7.2 `seq_is_valid`: each type two to four generations deep.
fn seq_is_valid(lg: &LruGen) -> bool {
    (0..2).all(|t| {
        let n = lg.max_seq + 1 - lg.min_seq[t].min(lg.max_seq + 1);
        (MIN_NR_GENS..=MAX_NR_GENS).contains(&n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{KernelVersion, MachineConfig};
    use crate::lru_gen::gen_from_seq;

    /// A kernel whose root lruvec has generations `min_seq..=max_seq` and
    /// folios only in the generations listed per type (the lists' lengths
    /// are all `try_to_inc_min_seq` reads).
    fn lruvec(version: KernelVersion, min_seq: [u64; 2], max_seq: u64, full: [&[u64]; 2]) -> Kernel {
        let mut k = Kernel::new(&MachineConfig { kernel: version, ..Default::default() });
        let lg = &mut k.memcgs[0].lruvec.lrugen;
        lg.min_seq = min_seq;
        lg.max_seq = max_seq;
        for (type_, seqs) in full.iter().enumerate() {
            for &seq in seqs.iter() {
                lg.folios[gen_from_seq(seq)][type_][1].len = 1;
            }
        }
        k
    }

    /// max_seq 3, anon's folios in generation 2 only, file's in 1 only,
    /// swappiness 60. Both types' empty generations go: anon to 2, file
    /// to 1. 6.12 then holds anon at file's (min(2, 1)): [1, 1]. 7.2
    /// keeps [2, 1]: anon is past max_seq - 2 = 1, but file is not below
    /// it, so neither is held back.
    #[test]
    fn each_type_moves_past_its_own_empty_generations() {
        let mut k = lruvec(KernelVersion::V7_2, [0, 0], 3, [&[2], &[1]]);
        assert!(try_to_inc_min_seq(&mut k, 0, 60));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [2, 1]);
        let mut k = lruvec(KernelVersion::V6_12, [0, 0], 3, [&[2], &[1]]);
        assert!(k.try_to_inc_min_seq_6_12(0, 60));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [1, 1]);
    }

    /// Generations 1..=4, anon's folios in generation 4 only, file's in
    /// 1: anon's empty generations would take it to 3 (it stops where
    /// 3 + 2 > 4), past max_seq - 2 = 2 while file stays at 1 below it, so
    /// 7.2 holds anon back to 2; 6.12 holds it at file's 1, where it was.
    #[test]
    fn a_type_that_runs_ahead_is_held_to_max_seq_less_two() {
        let mut k = lruvec(KernelVersion::V7_2, [1, 1], 4, [&[4], &[1]]);
        assert!(try_to_inc_min_seq(&mut k, 0, 60));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [2, 1]);
        assert!(seq_is_valid(&k.memcgs[0].lruvec.lrugen));
        let mut k = lruvec(KernelVersion::V6_12, [1, 1], 4, [&[4], &[1]]);
        assert!(!k.try_to_inc_min_seq_6_12(0, 60));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [1, 1]);
    }

    /// Swappiness 0: only file is evictable, and only file moves (and
    /// there is no clamp); above 200 only anon.
    #[test]
    fn only_the_evictable_types_move() {
        let mut k = lruvec(KernelVersion::V7_2, [0, 0], 3, [&[], &[]]);
        assert!(try_to_inc_min_seq(&mut k, 0, 0));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [0, 2]);
        let mut k = lruvec(KernelVersion::V7_2, [0, 0], 3, [&[], &[]]);
        assert!(try_to_inc_min_seq(&mut k, 0, MAX_SWAPPINESS + 1));
        assert_eq!(k.memcgs[0].lruvec.lrugen.min_seq, [2, 0]);
    }

    /// 7.2's window: each type two to four generations deep, in either
    /// order; 6.12's also wants file's `min_seq` at or above anon's.
    #[test]
    fn the_window_allows_anon_ahead_of_file_in_7_2_only() {
        let mut lg = Kernel::new(&MachineConfig::default()).memcgs[0].lruvec.lrugen.clone();
        lg.max_seq = 4;
        lg.min_seq = [2, 1];
        assert!(seq_is_valid(&lg));
        assert!(!crate::lru_gen::seq_is_valid_6_12(&lg));
        lg.min_seq = [0, 1];
        assert!(!seq_is_valid(&lg), "anon five generations deep");
        lg.min_seq = [2, 4];
        assert!(!seq_is_valid(&lg), "file one generation deep");
    }
}
