// SPDX-License-Identifier: GPL-2.0-only
//! `NR_FREE_PAGES` as mm/vmstat.c keeps it: each CPU gathers the changes
//! it makes to a zone's free pages in a per-CPU difference
//! (`vm_stat_diff`) and adds it to the zone's counter only when it grows
//! past the zone's `stat_threshold`, or when `vmstat_update` folds it
//! (every second, crate::kernel `next_vmstat`). So `zone_page_state` — what
//! the allocator's watermark checks, `should_abort_scan`, the dirty limits
//! and `file_is_tiny` read — lags the free lists by up to a threshold per
//! CPU, while `zone_page_state_snapshot` (the direct-reclaim and OOM
//! decisions, and kswapd's `zone_watermark_ok_safe` below the zone's
//! `percpu_drift_mark`) adds the differences back.
//!
//! The thresholds: `calculate_normal_threshold` (2 × fls(CPUs) ×
//! (1 + fls(managed / 128 MiB)), at most 125) from boot and while kswapd
//! sleeps for good; `calculate_pressure_threshold` ((low − min) / CPUs, at
//! least 1, at most 125) while kswapd is awake (`set_pgdat_percpu_threshold`
//! around its long sleep), in the zones with a drift mark only. The buddy allocator counts one page at a time
//! (`account_freepages` in `page_del_and_expand` and `__free_one_page`),
//! so a bulk of n pages crosses the threshold as n single steps would.

use crate::folio::NR_ZONES;
use crate::kernel::{Kernel, PAGE_SHIFT};
use crate::page_alloc::{WMARK_HIGH, WMARK_LOW, WMARK_MIN};

/// The zones' `NR_FREE_PAGES` bookkeeping beside the free lists.
#[derive(Clone, Debug, Default)]
pub struct FreeStat {
    /// The free-list count of each zone when the differences were last
    /// brought up to date (`vmstat_account_free`).
    pub seen: [u64; NR_ZONES],
    /// Per CPU, per zone: changes not yet added to the zone's counter.
    pub diff: Vec<[i64; NR_ZONES]>,
    /// Each zone's `stat_threshold` (the same on every CPU).
    pub threshold: [i64; NR_ZONES],
    /// `zone->percpu_drift_mark` (0: none).
    pub drift_mark: [u64; NR_ZONES],
    /// kswapd is awake: the pressure thresholds are in force.
    pub pressure: bool,
}

/// `fls`: the position of the highest set bit, 1-based; 0 for 0.
fn fls(x: u64) -> i64 {
    64 - x.leading_zeros() as i64
}

/// A per-CPU difference `x` after `n` single-page changes of sign `s`,
/// each folded into the zone (`x` back to 0) once it passes `t`
/// (`__mod_zone_page_state`); returns the new difference.
fn step_units(x: i64, s: i64, n: i64, t: i64) -> i64 {
    if n == 0 {
        return x;
    }
    // Steps until the first fold: |x + s·k| passes t (at the first step
    // already when a lowered threshold left |x| above it).
    let to_first = if (x + s).abs() > t { 1 } else { t + 1 - s * x };
    if n < to_first {
        return x + s * n;
    }
    // From 0 after the fold, one more every t + 1 steps.
    s * ((n - to_first) % (t + 1))
}

impl Kernel {
    /// `calculate_normal_threshold`.
    fn calculate_normal_threshold(&self, z: usize) -> i64 {
        let cpus = self.cpus.len() as u64;
        let mem = self.zones[z].managed >> (27 - PAGE_SHIFT);
        (2 * fls(cpus) * (1 + fls(mem))).min(125)
    }

    /// `calculate_pressure_threshold`.
    fn calculate_pressure_threshold(&self, z: usize) -> i64 {
        let w = &self.zones[z].wmark;
        let distance = w[WMARK_LOW].saturating_sub(w[WMARK_MIN]);
        ((distance / self.cpus.len() as u64) as i64).clamp(1, 125)
    }

    /// `refresh_zone_stat_thresholds` (boot): the normal thresholds and
    /// each zone's drift mark; the free lists as they are now are the
    /// zones' counters.
    pub(crate) fn refresh_zone_stat_thresholds(&mut self) {
        let cpus = self.cpus.len();
        self.free_stat.diff = vec![[0; NR_ZONES]; cpus];
        for z in 0..NR_ZONES {
            let t = self.calculate_normal_threshold(z);
            self.free_stat.threshold[z] = t;
            let tolerate = self.wmark_pages(z, WMARK_LOW).saturating_sub(self.wmark_pages(z, WMARK_MIN));
            let max_drift = cpus as u64 * t as u64;
            self.free_stat.drift_mark[z] = if max_drift > tolerate { self.wmark_pages(z, WMARK_HIGH) + max_drift } else { 0 };
            self.free_stat.seen[z] = self.folios.nr_free_zone(z);
        }
        self.free_stat.pressure = false;
    }

    /// `set_pgdat_percpu_threshold` with the pressure (kswapd awake,
    /// `true`) or the normal thresholds.
    pub(crate) fn set_pgdat_percpu_threshold(&mut self, pressure: bool) {
        if self.free_stat.pressure == pressure {
            return;
        }
        self.free_stat.pressure = pressure;
        for z in 0..NR_ZONES {
            // Only zones whose drift could breach their watermarks.
            if self.zones[z].managed > 0 && self.free_stat.drift_mark[z] > 0 {
                self.free_stat.threshold[z] =
                    if pressure { self.calculate_pressure_threshold(z) } else { self.calculate_normal_threshold(z) };
            }
        }
    }

    /// Zone `z`'s free lists changed, on CPU `cpu`, since the last call:
    /// the change goes to that CPU's difference, page by page
    /// (`account_freepages`). Called after every allocation from and free
    /// to the buddy lists.
    #[inline]
    pub(crate) fn vmstat_account_free(&mut self, cpu: usize, z: usize) {
        // Pages kswapd holds back (its frees its clock has not reached,
        // crate::kswapd) are not freed yet for the counters either: they
        // count when they are released, on kswapd's CPU.
        let now = self.folios.nr_free_zone(z).saturating_sub(self.kswapd.held[z]);
        let seen = self.free_stat.seen[z];
        if now != seen {
            self.vmstat_mod_free(cpu, z, now as i64 - seen as i64);
            self.free_stat.seen[z] = now;
        }
    }

    fn vmstat_mod_free(&mut self, cpu: usize, z: usize, d: i64) {
        let t = self.free_stat.threshold[z];
        let x = self.free_stat.diff[cpu][z];
        let nx = step_units(x, d.signum(), d.abs(), t);
        self.free_stat.diff[cpu][z] = nx;
        if nx != 0 {
            // The CPU has statistics to fold: vmstat_update will run.
            self.arm_vmstat();
        }
    }

    /// `zone_page_state(zone, NR_FREE_PAGES)`: the zone's counter, without
    /// the CPUs' differences not yet folded (at least 0).
    #[inline]
    pub fn zone_free_state(&self, z: usize) -> u64 {
        let pending: i64 = self.free_stat.diff.iter().map(|d| d[z]).sum();
        (self.free_stat.seen[z] as i64 - pending).max(0) as u64
    }

    /// `zone_page_state_snapshot(zone, NR_FREE_PAGES)`: with them. (Both
    /// leave out the pages kswapd holds back.)
    #[inline]
    pub fn zone_free_snapshot(&self, z: usize) -> u64 {
        self.free_stat.seen[z]
    }

    /// `vmstat_update` → `refresh_cpu_vm_stats`: every CPU's differences
    /// go to the zones (the model folds all CPUs at one instant).
    pub(crate) fn vmstat_fold_all(&mut self) {
        for d in &mut self.free_stat.diff {
            *d = [0; NR_ZONES];
        }
    }

    /// Some CPU still has differences to fold.
    pub(crate) fn vmstat_pending(&self) -> bool {
        self.free_stat.diff.iter().any(|d| d.iter().any(|&x| x != 0))
    }

    /// `zone_watermark_ok_safe` for an order-0 request: below the zone's
    /// drift mark the exact count is read.
    pub fn zone_watermark_ok_safe(&self, z: usize, mark: u64) -> bool {
        let mut free = self.zone_free_state(z);
        let dm = self.free_stat.drift_mark[z];
        if dm > 0 && free < dm {
            free = self.zone_free_snapshot(z);
        }
        self.held_back(z, free) > mark + self.zones[z].lowmem_reserve
    }

    /// A count of zone `z`'s free pages as the current context sees it:
    /// kswapd also sees those it holds back (crate::kswapd), which the
    /// counters leave out until they are released.
    #[inline]
    pub(crate) fn held_back(&self, z: usize, free: u64) -> u64 {
        if self.in_kswapd {
            free + self.kswapd.held[z]
        } else {
            free
        }
    }

    /// `global_zone_page_state(NR_FREE_PAGES)`: the zones' counters.
    pub fn global_free_state(&self) -> u64 {
        (0..NR_ZONES).map(|z| self.held_back(z, self.zone_free_state(z))).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::step_units;

    #[test]
    fn single_steps_fold_past_the_threshold() {
        // Threshold 3: +1 five times from 0 folds at the fourth (x = 4 >
        // 3), leaving 1.
        let mut x = 0;
        for _ in 0..5 {
            x += 1;
            if x > 3 {
                x = 0;
            }
        }
        assert_eq!(step_units(0, 1, 5, 3), x);
        // From -2, eleven frees: fold at +4 (6 steps), then 5 more: 1.
        assert_eq!(step_units(-2, 1, 11, 3), 1);
        // From 2, two allocations: 0, no fold.
        assert_eq!(step_units(2, -1, 2, 3), 0);
        // Exactly to the fold.
        assert_eq!(step_units(0, -1, 4, 3), 0);
        assert_eq!(step_units(0, -1, 3, 3), -3);
        // A difference left above a lowered threshold folds at the first
        // step (6.12: abs(x) > t after adding).
        assert_eq!(step_units(-40, 1, 1, 5), 0);
        assert_eq!(step_units(-40, 1, 3, 5), 2);
        assert_eq!(step_units(40, 1, 1, 5), 0);
        for x0 in -9i64..=9 {
            for n in 0..20 {
                let mut x = x0;
                for _ in 0..n {
                    x -= 1;
                    if x.abs() > 3 {
                        x = 0;
                    }
                }
                assert_eq!(step_units(x0, -1, n, 3), x, "{x0} {n}");
                let mut x = x0;
                for _ in 0..n {
                    x += 1;
                    if x.abs() > 3 {
                        x = 0;
                    }
                }
                assert_eq!(step_units(x0, 1, n, 3), x, "{x0} +{n}");
            }
        }
    }
}
