// SPDX-License-Identifier: GPL-2.0-only
//! The simulated clock: idle time costs work in proportion to the events
//! in it, not to its length, and the clock saturates instead of wrapping.

mod common;
use common::T;
use mglru_core::Policy;

/// 300 days of sleep with nothing happening in it: one statistics flush
/// (the first one due), not one every two seconds (13 million).
#[test]
fn a_long_idle_period_runs_no_periodic_work_in_proportion_to_its_length() {
    let mut t = T::new(Policy::Mglru);
    t.run("memory 64M\ntask t\nanon t r size=4K\nload t r 0");
    let before = t.k().sim.stats_flushes;
    t.run("sleep 25920000s");
    let k = t.k();
    assert_eq!(k.now, 25_920_000_000_000_000 + k.sim.task_ns);
    assert_eq!(k.sim.stats_flushes - before, 1);
    // Work after it still sees the flush period's phase: the next flush is
    // at the first multiple of 2 s after the sleep's end.
    t.run("load t r 0\nsleep 3s");
    assert_eq!(t.k().sim.stats_flushes - before, 2);
    t.check();
}

/// Pending events in an idle period are kept: a dirty page written back
/// by the flusher's periodic timer during a long sleep.
#[test]
fn events_inside_a_long_idle_period_still_happen() {
    let mut t = T::new(Policy::Classic);
    t.run("memory 64M\nfile f size=1M\ntask t\nwrite t f 0 4");
    assert_eq!(t.k().nr_dirty, 4);
    t.run("sleep 86400s");
    assert_eq!(t.k().nr_dirty, 0);
    t.check();
}

/// A time profile (`mglru validate`, `--guest-clock`) cannot move the
/// clock by more than a trace may sleep: a busy stretch runs psi's
/// averaging every 2 s, so an unbounded jump was unbounded work.
#[test]
fn a_clock_jump_beyond_a_year_is_an_error() {
    let mut t = T::new(Policy::Classic);
    t.run("memory 64M\nfile f size=1M\ntask t\nread t f 0");
    let now = t.k().now;
    let e = t.sim.clock_at_least(u64::MAX - 5).unwrap_err();
    assert!(e.0.contains("365 days"), "{e}");
    assert_eq!(t.k().now, now);
    t.sim.clock_at_least(now + 1_000_000_000).unwrap();
    assert_eq!(t.k().now, now + 1_000_000_000);
}
