// SPDX-License-Identifier: GPL-2.0-only
//! Reclaim counters as node statistics (7.2): `pgscan_*`, `pgsteal_*` and
//! `pgrefill` moved from `enum vm_event_item` to `enum node_stat_item`
//! (7.2 include/linux/mmzone.h), and every reclaimer counts them with
//! `mod_lruvec_state`, which adds to the node, the memcg and the lruvec
//! alike (7.2 mm/vmscan.c: `scan_folios`, `evict_folios`,
//! `shrink_inactive_list`, `shrink_active_list`). So `/proc/vmstat` counts
//! memcg-limit reclaim too, which 6.12's `if (!cgroup_reclaim(sc))` kept
//! out of the global counters, and a proactive reclaimer (memory.reclaim,
//! the debugfs eviction command) counts under `*_proactive`
//! (`reclaimer_offset`: kswapd, then khugepaged, then `sc->proactive`, else
//! direct), where 6.12 counted it as direct.
//!
//! Simplified: 7.2 reads node statistics without folding the per-CPU
//! differences (`global_node_page_state_pages`); the model counts them
//! exactly, as `/proc/vmstat` shows them after a write to
//! `/proc/sys/vm/stat_refresh` (which the harness does before it samples).

use super::{Difference, Fidelity, ReclaimItem, Steps};
use crate::kernel::Kernel;
use crate::stat::Ev;
use crate::vmscan::ScanControl;

pub(super) const DIFFERENCE: Difference = Difference {
    name: "node-stat-counters",
    source: "7.2 mm/vmscan.c: reclaimer_offset, scan_folios, evict_folios, shrink_inactive_list, shrink_active_list (mod_lruvec_state)",
    summary: "pgscan/pgsteal/pgrefill are node stats: /proc/vmstat counts memcg reclaim too; memory.reclaim counts as *_proactive",
    fidelity: Fidelity::Simplified,
    apply,
};

fn apply(s: &mut Steps) {
    s.count_reclaim = count_reclaim;
}

/// `mod_lruvec_state(lruvec, item + reclaimer_offset(sc), n)`: the node
/// and the memcg, whoever reclaims.
fn count_reclaim(k: &mut Kernel, memcg: u16, sc: &ScanControl, item: ReclaimItem, n: u64) {
    let e = match item {
        ReclaimItem::Refill => Ev::Pgrefill,
        ReclaimItem::Scan if k.in_kswapd => Ev::PgscanKswapd,
        ReclaimItem::Scan if sc.proactive => Ev::PgscanProactive,
        ReclaimItem::Scan => Ev::PgscanDirect,
        ReclaimItem::Steal if k.in_kswapd => Ev::PgstealKswapd,
        ReclaimItem::Steal if sc.proactive => Ev::PgstealProactive,
        ReclaimItem::Steal => Ev::PgstealDirect,
    };
    k.count(memcg, e, n);
}
