// SPDX-License-Identifier: GPL-2.0-only
//! NR_FREE_PAGES with per-CPU differences (crate::vmstat): the zones'
//! counters lag the free lists by what each CPU has not folded yet, up to
//! its `stat_threshold`; `vmstat_update` folds them every second; the
//! thresholds follow mm/vmstat.c's formulas and switch to the pressure
//! ones while kswapd is awake.

mod common;
use common::T;
use mglru_core::{Policy, RunOptions};

fn t(cpus: u32) -> T {
    T::with_options(RunOptions { policy: Some(Policy::Classic), cpus: Some(cpus), ..Default::default() })
}

#[test]
fn thresholds_follow_the_kernels_formulas() {
    // 1 GiB: DMA 4,096 pages, DMA32 258,048. calculate_normal_threshold =
    // 2 × fls(CPUs) × (1 + fls(managed >> 15)): DMA32 258,048 >> 15 = 7,
    // fls 3; DMA 0, fls 0. Two CPUs (fls 2): 16 and 4; four (fls 3): 24
    // and 6.
    for (cpus, dma32, dma) in [(2, 16, 4), (4, 24, 6)] {
        let mut t = t(cpus);
        t.run("memory 1G\ntask a\n");
        let k = t.k();
        assert_eq!(k.zones[1].managed, 258_048);
        assert_eq!((k.free_stat.threshold[1], k.free_stat.threshold[0]), (dma32, dma), "{cpus} CPUs");
        // percpu_drift_mark: CPUs × threshold against low − min.
        let (min, low, high) = (k.zones[1].wmark[0], k.zones[1].wmark[1], k.zones[1].wmark[2]);
        let drift = cpus as u64 * dma32 as u64;
        assert_eq!(k.free_stat.drift_mark[1], if drift > low - min { high + drift } else { 0 });
    }
}

#[test]
fn the_zones_counter_lags_by_the_cpus_differences_until_vmstat_update() {
    let mut t = t(2);
    t.run("memory 256M\ntask a cpu=0\ntask b cpu=1\nanon a r size=8M\nanon b s size=8M\n");
    let mut lagged = false;
    for i in 0..64u64 {
        t.run(&format!("store a r {} 32\nstore b s {} 32\n", i * 32, i * 32));
        let k = t.k();
        for z in 0..3 {
            let (state, snap) = (k.zone_free_state(z) as i64, k.zone_free_snapshot(z) as i64);
            let pending: i64 = k.free_stat.diff.iter().map(|d| d[z]).sum();
            assert_eq!(snap - state, pending, "zone {z}");
            // Each CPU's difference stays within the threshold.
            for d in &k.free_stat.diff {
                assert!(d[z].abs() <= k.free_stat.threshold[z], "zone {z}: {} > {}", d[z], k.free_stat.threshold[z]);
            }
            lagged |= pending != 0;
        }
        // The snapshot is the free lists.
        assert_eq!(k.zone_free_snapshot(1), k.folios.nr_free_zone(1));
    }
    assert!(lagged, "some allocation left a difference unfolded");
    // A second later vmstat_update has folded every CPU's differences.
    t.run("sleep 1s\n");
    let k = t.k();
    for z in 0..3 {
        assert_eq!(k.zone_free_state(z), k.zone_free_snapshot(z), "zone {z}");
    }
}

#[test]
fn kswapd_awake_means_the_pressure_thresholds() {
    // --kswapd thread: kswapd wakes, reclaims and sleeps in simulated time.
    // While it is awake the thresholds of the zones with a drift mark are
    // (low − min) / CPUs (at least 1, at most 125); asleep for good, the
    // normal ones again. 1 GiB on 16 CPUs: DMA32's normal threshold is
    // 2 × fls(16) × (1 + 3) = 40, and 16 × 40 is more than low − min, so
    // it has a drift mark.
    let mut t = T::with_options(RunOptions {
        policy: Some(Policy::Classic),
        cpus: Some(16),
        kswapd: mglru_core::kswapd::KswapdMode::Thread,
        ..Default::default()
    });
    t.run("memory 1G\nswap 2G\ntask a\nanon a r size=1536M\n");
    let normal = t.k().free_stat.threshold;
    assert_eq!(normal[1], 40);
    let k = t.k();
    // Only zones with a drift mark switch (set_pgdat_percpu_threshold).
    assert!(k.free_stat.drift_mark[1] > 0);
    let pressure_dma32 = ((k.zones[1].wmark[1] - k.zones[1].wmark[0]) / 16).clamp(1, 125) as i64;
    let mut seen_pressure = false;
    for i in 0..96u64 {
        t.run(&format!("store a r {} 4096\n", i * 4096));
        let k = t.k();
        if k.free_stat.pressure {
            seen_pressure = true;
            assert_eq!(k.free_stat.threshold[1], pressure_dma32);
        } else {
            assert_eq!(k.free_stat.threshold, normal);
        }
    }
    assert!(seen_pressure, "kswapd woke");
    t.run("sleep 10s\n");
    assert!(!t.k().free_stat.pressure, "asleep for good after the short sleep");
    assert_eq!(t.k().free_stat.threshold, normal);
}
