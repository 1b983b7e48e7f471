// SPDX-License-Identifier: GPL-2.0-only
//! Reclaim no longer writes page-cache folios in 7.2 (7.2 mm/vmscan.c
//! `shrink_folio_list`, `pageout`: "We no longer attempt to writeback
//! filesystem folios here, other than tmpfs/shmem"). 6.12 let kswapd try
//! `pageout` on a dirty page-cache folio it had already seen dirty
//! (`PG_reclaim`) on a node marked `PGDAT_DIRTY` (all of a batch dirty and
//! not queued for writeback), and ext4's folios then came back activated
//! without being counted; every other dirty page-cache folio was left to
//! the flusher at once, counted in `NR_VMSCAN_IMMEDIATE` with
//! `PG_reclaim` set. 7.2 does the latter for every dirty page-cache folio,
//! kswapd's included; `pageout` writes only shmem and anon folios.
//!
//! Left as in 6.12: the model still sets `PGDAT_DIRTY` (7.2 removed the
//! flag with its last reader, this test).

use super::{Difference, Fidelity, Steps};

pub(super) const DIFFERENCE: Difference = Difference {
    name: "pageout-7.2",
    source: "7.2 mm/vmscan.c: shrink_folio_list (dirty page-cache folios), pageout",
    summary: "every dirty page-cache folio reclaim meets is left to the flusher (NR_VMSCAN_IMMEDIATE, PG_reclaim), kswapd's too; pageout writes only shmem and anon",
    fidelity: Fidelity::Modelled,
    apply,
};

fn apply(s: &mut Steps) {
    s.dirty_file_immediate = |_, _| true;
}

#[cfg(test)]
mod tests {
    use crate::folio::pg;
    use crate::kernel::{Kernel, KernelVersion, MachineConfig};

    /// kswapd meets a dirty page-cache folio it saw dirty before
    /// (PG_reclaim) on a node marked PGDAT_DIRTY: 6.12 tries pageout, 7.2
    /// leaves it to the flusher; anyone else's, or a first sighting, goes
    /// to the flusher in both.
    #[test]
    fn kswapd_no_longer_tries_pageout_on_page_cache() {
        for (version, kswapd_pageout) in [(KernelVersion::V6_12, true), (KernelVersion::V7_2, false)] {
            let mut k = Kernel::new(&MachineConfig { kernel: version, ..Default::default() });
            let mut f = *k.folios.get(0);
            f.set(pg::DIRTY | pg::RECLAIM);
            k.pgdat_dirty = true;
            k.in_kswapd = true;
            assert_eq!((k.steps.dirty_file_immediate)(&k, &f), !kswapd_pageout, "{version:?}");
            k.in_kswapd = false;
            assert!((k.steps.dirty_file_immediate)(&k, &f), "{version:?}: direct reclaim");
            k.in_kswapd = true;
            f.clear(pg::RECLAIM);
            assert!((k.steps.dirty_file_immediate)(&k, &f), "{version:?}: first sighting");
        }
    }
}
