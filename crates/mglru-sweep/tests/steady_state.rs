// SPDX-License-Identifier: GPL-2.0-only
//! Misses, cold misses and the warm-up (crate::figures, crate::warmup).

use mglru_sweep::{expand, run_config, Figures, Input, Outcome, Source, SweepSpec};
use mglru_trace::TraceReader;

fn trace(text: &str) -> Input {
    let mut r = TraceReader::from_str("t", text);
    Input::decode(&mut r, &|_| {}).unwrap()
}

fn run(input: &Input, spec: SweepSpec) -> Outcome {
    let configs = expand(&spec, input).unwrap();
    assert_eq!(configs.len(), 1);
    run_config(input, &configs[0], true, None, &|_| {}).unwrap()
}

/// Every access is a hit, a miss or a cold miss.
fn adds_up(f: &Figures) {
    let hits = (f.hit_ratio * f.page_accesses as f64).round() as u64;
    assert_eq!(hits + f.misses + f.cold_misses, f.page_accesses, "{f:?}");
}

/// A file's first touch is a cold miss; the page readahead brought along
/// is a hit; once the cache is dropped, the page misses again, not cold.
#[test]
fn first_touches_are_cold_and_readahead_is_apart() {
    let input = trace("memory 64M\nfile f size=1M\ntask t\nread t f 0\nread t f 1\nadvise t f dontneed\nread t f 0\n");
    let f = run(&input, SweepSpec::default()).figures;
    assert_eq!((f.page_accesses, f.cold_misses, f.misses), (3, 1, 1), "{f:?}");
    adds_up(&f);
    // The first read's readahead window brought page 1 (a hit) and more;
    // the second miss read again: two demand reads, the rest readahead.
    assert!(f.pages_read > 3, "{f:?}");
    assert_eq!(f.readahead_pages, f.pages_read - 2, "{f:?}");
}

/// Anonymous pages: the first touch is zero-filled (no miss); a page
/// swapped out by its memcg's limit misses when loaded again, never cold.
#[test]
fn swapped_out_pages_miss_and_are_not_cold() {
    let input = trace("memory 256M\nswap 256M\nmemcg app max=8M\ntask t memcg=app\nanon t a size=16M\nstore t a 0 4096\nload t a 0 4096\n");
    let o = run(&input, SweepSpec::default());
    let f = &o.figures;
    assert_eq!(f.page_accesses, 8192);
    assert_eq!(f.cold_misses, 0, "{f:?}");
    // The 4,096 loads find at least the pages beyond the 8M limit swapped
    // out; swap readahead (vm.page-cluster 3: 8 pages a window) reads the
    // rest of each window along, so at least one miss per 8 swap-ins.
    assert!(f.swap_in_pages >= 2048, "{f:?}");
    assert!(f.misses >= f.swap_in_pages / 8, "{f:?}");
    assert_eq!(o.report.sim.swap_misses, f.misses);
    assert_eq!(f.misses + f.readahead_pages, f.swap_in_pages, "{f:?}");
    adds_up(f);
}

/// The warm-up's figures are the whole run's less the warm-up's part.
#[test]
fn figures_after_the_warm_up_are_the_rest_of_the_run() {
    let input = trace("memory 64M\nfile f size=4M\ntask t\nread t f 0 1024\nread t f 0 1024\n");
    let o = run(&input, SweepSpec { warmup: Some("50%".into()), ..Default::default() });
    let (f, w) = (&o.figures, o.whole.as_ref().unwrap());
    assert_eq!(o.warmup_end.unwrap().1, 1024);
    assert_eq!((f.page_accesses, w.page_accesses), (1024, 2048));
    // The second pass finds every page cached: no miss of any kind.
    assert_eq!((f.misses, f.cold_misses, f.pages_read), (0, 0, 0), "{f:?}");
    assert_eq!(f.hit_ratio, 1.0);
    assert!(w.cold_misses > 0 && w.hit_ratio < 1.0, "{w:?}");
    let e = expand(&SweepSpec { warmup: Some("3000accesses".into()), ..Default::default() }, &input).unwrap();
    let err = run_config(&input, &e[0], false, None, &|_| {}).unwrap_err();
    assert!(err.msg.contains("the run ended before the warm-up did") && err.msg.contains("2,048 page accesses"), "{}", err.msg);
}

/// A stationary workload (fio's zipf randread, the classic LRU, which
/// settles within the warm-up): the miss ratio after the warm-up is the
/// same for a run three times as long, within the 95 % interval of three
/// replicates (crate::replicate's seed rule, crate::stats's interval),
/// while the whole run's hit ratio moves with the runtime (the cold start
/// weighs less in a longer run).
#[test]
fn the_miss_ratio_after_the_warm_up_does_not_depend_on_the_runtime() {
    let mut after = Vec::new();
    let mut whole = Vec::new();
    for runtime in ["40s", "120s"] {
        let spec = format!("fio:--name=j --rw=randread --size=64M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime={runtime};memory=48M");
        let source = Source::Workload(spec);
        let (mut a, mut w) = (Vec::new(), Vec::new());
        for seed in mglru_sweep::seeds(None, Some(3)).unwrap() {
            let input = Input::decode(&mut mglru_sweep::seeded(&source, seed).unwrap().open().unwrap(), &|_| {}).unwrap();
            let o = run(&input, SweepSpec { policy: Some("classic".into()), warmup: Some("400Kaccesses".into()), ..Default::default() });
            a.push(o.figures.miss_ratio);
            w.push(o.whole.unwrap().hit_ratio);
        }
        after.push(mglru_sweep::spread(&a));
        whole.push(mglru_sweep::spread(&w));
    }
    // Two means agree when their difference is inside the interval of the
    // difference (the two half widths added in quadrature).
    let within = |p: &mglru_sweep::Spread, q: &mglru_sweep::Spread| {
        (p.mean - q.mean).abs() <= p.half_width.unwrap().hypot(q.half_width.unwrap())
    };
    assert!(after[0].mean > 0.05, "the memory must be short of the working set: {after:?}");
    assert!(after[0].half_width.unwrap() > 0.0, "the replicates must differ: {after:?}");
    assert!(within(&after[0], &after[1]), "after the warm-up: {after:?}");
    assert!(!within(&whole[0], &whole[1]), "the whole run's hit ratio should depend on the runtime: {whole:?}");
}
