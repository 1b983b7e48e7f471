// SPDX-License-Identifier: GPL-2.0-only
//! kswapd, the node's reclaim thread (the kswapd part of mm/vmscan.c), as
//! a thread in simulated time beside the tasks.
//!
//! 6.12's kswapd loops: `kswapd_try_to_sleep` (a short sleep of HZ/10 if
//! the node is balanced, then a long one until `wakeup_kswapd`), then
//! `balance_pgdat`, whose loop raises the priority pass by pass until the
//! node is balanced. The model keeps that loop's state (`Kswapd`, with
//! balance_pgdat's scan_control off the stack) and runs it on kswapd's own
//! timeline: a pass takes the CPU time of its reclaim steps plus any
//! `reclaim_throttle` sleep, and the next pass starts when it ends.
//!
//! Where it runs: its time is its own (its passes never delay a task), on
//! the CPU it is woken onto: at first the last one, then at each wake-up
//! by a task the one CFS would pick with CPUs idle — its previous CPU if
//! idle, else an idle one (`kswapd_select_cpu`, never the waker's while
//! another is idle). Its per-CPU folio batches and page lists are that
//! CPU's. With one CPU that is the tasks' CPU: its `lru_add_drain`
//! drains the tasks' batches, as kswapd sharing the only CPU would.
//!
//! When its work becomes visible (docs/FIDELITY.md simplification 2):
//! kswapd acts at the first point after its clock where the model lets it
//! in — the start of every operation and of every page of a load/store,
//! the allocator's slow path, and every sleep of a task (`sleep`,
//! `reclaim_throttle`, the memory.high penalty, dirty throttling,
//! `throttle_direct_reclaim`). It then works batch by batch: after each
//! batch of reclaim (a round of `shrink_lruvec`'s `shrink_list` calls, an
//! `evict_folios`) and between two lruvecs, once its CPU time has run past
//! the moment it was let in, it stops there (`kswapd_should_pause`), the
//! pass's state kept (`PassFrame`: balance_pgdat's loop, `shrink_node`'s
//! memcg walk or the memcg LRU's, the lruvec's scan targets), and the
//! tasks go on until its clock; its next batch sees what they did
//! meanwhile (allocations, faults, their own reclaim), as the kernel's
//! kswapd does between two `cond_resched()`s. A batch is applied whole at
//! its start. The pages it frees reach the allocator as its time runs:
//! each is held back from other allocations until kswapd's CPU time
//! reaches the scan that freed it (`held`), as the kernel frees reclaimed
//! folios batch by batch during `shrink_folio_list`. kswapd itself sees
//! them freed, as its watermark checks in the kernel do.

use std::collections::VecDeque;

use crate::folio::NR_ZONES;
use crate::kernel::{Kernel, Policy, DEF_PRIORITY, HZ, MAX_RECLAIM_RETRIES, NSEC_PER_JIFFY, SWAP_CLUSTER_MAX};
use crate::lruvec::LRU_INACTIVE_ANON;
use crate::lruvec::LRU_ACTIVE_ANON;
use crate::memcontrol::ROOT_MEMCG;
use crate::stat::Ev;
use crate::vmscan::{NodeScan, ScanControl};

/// How kswapd runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KswapdMode {
    /// balance_pgdat runs to completion the moment kswapd is woken, its
    /// CPU time counted but taking no simulated time, its frees visible
    /// at once; after it kswapd is asleep (no short sleep). The default:
    /// see docs/FIDELITY.md simplification 2 for why.
    #[default]
    Instant,
    /// A thread in simulated time beside the tasks (this module).
    Thread,
}

impl KswapdMode {
    pub fn parse(s: &str) -> Option<KswapdMode> {
        match s {
            "instant" => Some(KswapdMode::Instant),
            "thread" => Some(KswapdMode::Thread),
            _ => None,
        }
    }
}

/// "Never": kswapd asleep until woken.
pub const KSWAPD_ASLEEP: u64 = u64::MAX;

/// Where kswapd is in its loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KswapdState {
    /// `schedule()` in kswapd_try_to_sleep: asleep until `wakeup_kswapd`.
    Asleep,
    /// `schedule_timeout(HZ/10)` in kswapd_try_to_sleep, ending at `at`;
    /// a wake-up before then is a premature sleep (low watermark hit
    /// quickly).
    ShortSleep,
    /// In `balance_pgdat`; its next pass starts at `at`.
    Balancing,
}

/// What a pass of balance_pgdat's loop came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// balance_pgdat is done.
    Done,
    /// Another pass follows.
    More,
    /// kswapd stopped inside this pass (`Kswapd::frame`).
    Paused,
}

impl Pass {
    fn from_done(done: bool) -> Pass {
        if done {
            Pass::Done
        } else {
            Pass::More
        }
    }
}

/// A pass of balance_pgdat's loop in progress: the policy it runs under,
/// `sc.nr_reclaimed` at its start and at `kswapd_shrink_node`'s, and
/// where `shrink_node` stands.
#[derive(Clone, Debug)]
struct PassFrame {
    policy: Policy,
    nr_reclaimed: u64,
    shrink_from: u64,
    node: NodeScan,
}

/// kswapd0's state.
#[derive(Clone, Debug)]
pub struct Kswapd {
    pub mode: KswapdMode,
    pub state: KswapdState,
    /// When kswapd next acts on its own timeline (KSWAPD_ASLEEP: not
    /// before a wake-up).
    pub at: u64,
    /// balance_pgdat's scan_control while it runs.
    sc: Option<Box<ScanControl>>,
    /// The pass kswapd paused in (KswapdMode::Thread), if any.
    frame: Option<Box<PassFrame>>,
    /// The CPU kswapd runs on.
    pub cpu: usize,
    /// Pages kswapd has freed that other allocations cannot have yet, per
    /// zone, and when they become available (time, pages per zone), in
    /// time order.
    pub held: [u64; NR_ZONES],
    releases: VecDeque<(u64, [u64; NR_ZONES])>,
    /// The pass in progress: its duration so far (CPU time and sleeps),
    /// pages freed since the last scan was costed, and the frees costed so
    /// far (offset in the pass, pages per zone).
    pub(crate) pass_ns: u64,
    pass_frees: [u64; NR_ZONES],
    pass_marks: Vec<(u64, [u64; NR_ZONES])>,
    /// balance_pgdat's `nr_boost_reclaim` (pages of boosted reclaim still
    /// to do; 0 once the node is found imbalanced) and `zone_boosts` (each
    /// zone's boost when it started, taken off at its end).
    nr_boost_reclaim: u64,
    zone_boosts: [u64; NR_ZONES],
}

impl Kswapd {
    pub fn new(cpu: usize, mode: KswapdMode) -> Kswapd {
        Kswapd {
            mode,
            // Long asleep when the workload starts: the machine booted
            // balanced.
            state: KswapdState::Asleep,
            at: KSWAPD_ASLEEP,
            sc: None,
            frame: None,
            cpu,
            held: [0; NR_ZONES],
            releases: VecDeque::new(),
            pass_ns: 0,
            pass_frees: [0; NR_ZONES],
            pass_marks: Vec::new(),
            nr_boost_reclaim: 0,
            zone_boosts: [0; NR_ZONES],
        }
    }

    /// On `kswapd_wait`: asleep, short or long (`waitqueue_active`).
    pub fn waiting(&self) -> bool {
        self.state != KswapdState::Balancing
    }
}

impl Kernel {
    /// kswapd stopped inside a pass of balance_pgdat (it wakes throttled
    /// direct reclaimers only between passes).
    pub fn kswapd_mid_pass(&self) -> bool {
        self.kswapd.frame.is_some()
    }

    /// `pgdat_balanced` for order 0: some zone is above its high
    /// watermark (plus its reserve), or the node has no managed zone.
    pub fn pgdat_balanced(&self) -> bool {
        let mut any_managed = false;
        for z in 0..NR_ZONES {
            if self.zones[z].managed == 0 {
                continue;
            }
            any_managed = true;
            if self.zone_watermark_ok_safe(z, self.wmark_pages(z, 2)) {
                return true;
            }
        }
        !any_managed
    }

    /// `wakeup_kswapd`: wake kswapd if it waits on `kswapd_wait` and the
    /// node is neither hopeless nor balanced with no zone boosted. A
    /// running kswapd is not on the wait queue: the wake-up is lost, as in
    /// the kernel.
    pub fn wakeup_kswapd(&mut self) {
        if self.in_kswapd || self.current.in_reclaim || !self.kswapd.waiting() {
            return;
        }
        if self.kswapd_failures >= MAX_RECLAIM_RETRIES || (self.pgdat_balanced() && !self.pgdat_watermark_boosted()) {
            return;
        }
        self.kswapd_wake();
    }

    /// `wake_up_interruptible(&pgdat->kswapd_wait)` on a waiting kswapd:
    /// out of a short sleep, the sleep was premature (`remaining` > 0:
    /// KSWAPD_LOW_WMARK_HIT_QUICKLY); kswapd starts `balance_pgdat` now.
    pub(crate) fn kswapd_wake(&mut self) {
        match self.kswapd.state {
            KswapdState::Balancing => return,
            KswapdState::ShortSleep => self.ev.add(Ev::KswapdLowWmarkHitQuickly, 1),
            // Out of its long sleep: the pressure thresholds while it is
            // awake (kswapd_try_to_sleep after schedule()).
            KswapdState::Asleep => self.set_pgdat_percpu_threshold(true),
        }
        self.kswapd_select_cpu();
        if self.kswapd.mode == KswapdMode::Instant {
            self.kswapd_balance_at_once();
            return;
        }
        self.kswapd.at = self.now;
        self.balance_pgdat_begin();
    }

    /// The CPU a woken kswapd runs on, as CFS's `select_task_rq_fair`
    /// places a woken task when CPUs are idle (`wake_affine_idle`,
    /// `select_idle_sibling`): its previous CPU if that is idle, otherwise
    /// the first idle CPU after the waker's, otherwise its previous CPU
    /// (it then shares that CPU's per-CPU lists and batches with the task
    /// placed there). A CPU is idle when no operation runs on it: serially
    /// (one operation at a time) every CPU but the waker's; in
    /// `--schedule parallel` also none whose operation has not ended.
    /// (With one CPU nothing changes.)
    fn kswapd_select_cpu(&mut self) {
        let n = self.cpus.len();
        if n <= 1 {
            return;
        }
        let waker = self.cpu;
        let idle = |k: &Kernel, c: usize| c != waker && (!k.parallel() || k.sched.cpu_free.get(c).is_none_or(|&t| t <= k.now));
        if idle(self, self.kswapd.cpu) {
            return;
        }
        if let Some(c) = (1..n).map(|i| (waker + i) % n).find(|&c| idle(self, c)) {
            self.kswapd.cpu = c;
        }
    }

    /// KswapdMode::Instant: the whole of balance_pgdat now, then asleep.
    fn kswapd_balance_at_once(&mut self) {
        let saved = self.kswapd_enter();
        self.balance_pgdat_begin();
        while self.balance_pgdat_pass() != Pass::Done {}
        self.balance_pgdat_end();
        self.prepare_kswapd_sleep();
        self.kswapd.state = KswapdState::Asleep;
        self.kswapd.at = KSWAPD_ASLEEP;
        self.set_pgdat_percpu_threshold(false);
        self.kswapd_leave(saved);
    }

    /// Switch to kswapd's context (PF_MEMALLOC | PF_KSWAPD, its CPU).
    fn kswapd_enter(&mut self) -> (bool, usize, bool, bool) {
        let saved = (self.current.in_reclaim, self.cpu, self.current.in_lru_fault, self.current.mm_walk);
        self.in_kswapd = true;
        self.current.in_reclaim = true;
        self.cpu = self.kswapd.cpu;
        self.current.in_lru_fault = false;
        self.current.mm_walk = false;
        saved
    }

    fn kswapd_leave(&mut self, saved: (bool, usize, bool, bool)) {
        self.in_kswapd = false;
        (self.current.in_reclaim, self.cpu, self.current.in_lru_fault, self.current.mm_walk) = saved;
    }

    /// Let kswapd do what falls due by now: every pass of balance_pgdat
    /// and the end of a short sleep whose time has come, in order. A point
    /// where the model lets kswapd in (see the module comment); nothing
    /// happens inside kswapd itself.
    #[inline]
    pub fn kswapd_run_due(&mut self) {
        if self.kswapd.at <= self.now && !self.in_kswapd {
            self.kswapd_run();
        }
    }

    pub(crate) fn kswapd_run(&mut self) {
        let saved = self.kswapd_enter();
        while self.kswapd.at <= self.now {
            match self.kswapd.state {
                KswapdState::Asleep => break,
                KswapdState::ShortSleep => {
                    // schedule_timeout returned 0: the sleep ran its
                    // course. Balanced (or hopeless) still: sleep for
                    // good; otherwise the high watermark was hit quickly.
                    if self.prepare_kswapd_sleep() {
                        self.kswapd.state = KswapdState::Asleep;
                        self.kswapd.at = KSWAPD_ASLEEP;
                        // The normal thresholds before the long sleep.
                        self.set_pgdat_percpu_threshold(false);
                    } else {
                        self.ev.add(Ev::KswapdHighWmarkHitQuickly, 1);
                        self.balance_pgdat_begin();
                    }
                }
                KswapdState::Balancing => {
                    let start = self.kswapd.at;
                    self.kswapd.pass_ns = 0;
                    let done = self.balance_pgdat_pass() == Pass::Done;
                    let dur = self.kswapd.pass_ns;
                    self.kswapd_pass_end(start, dur);
                    // balance_pgdat runs inside psi_memstall_enter/leave.
                    self.psi_kswapd_stall(self.kswapd.cpu, dur);
                    self.kswapd.at = start.saturating_add(dur);
                    if done {
                        self.balance_pgdat_end();
                        self.kswapd_try_to_sleep();
                    }
                }
            }
        }
        self.kswapd_leave(saved);
        self.kswapd_release_due();
    }

    /// `kswapd_try_to_sleep` after balance_pgdat (order 0): a short sleep
    /// if the node is balanced; otherwise straight back to balance_pgdat
    /// (KSWAPD_HIGH_WMARK_HIT_QUICKLY).
    fn kswapd_try_to_sleep(&mut self) {
        if self.prepare_kswapd_sleep() {
            self.kswapd.state = KswapdState::ShortSleep;
            self.kswapd.at = self.kswapd.at.saturating_add(HZ / 10 * NSEC_PER_JIFFY);
        } else {
            self.ev.add(Ev::KswapdHighWmarkHitQuickly, 1);
            self.balance_pgdat_begin();
        }
    }

    /// `prepare_kswapd_sleep`: kswapd may sleep when the node is hopeless
    /// or balanced; balanced clears the node's congestion flags. (It also
    /// wakes throttled direct reclaimers: they recheck their condition
    /// at every pass of kswapd, `throttle_direct_reclaim`.)
    fn prepare_kswapd_sleep(&mut self) -> bool {
        if self.kswapd_failures >= MAX_RECLAIM_RETRIES {
            return true;
        }
        if self.pgdat_balanced() {
            // clear_pgdat_congested: the root lruvec's flags.
            self.node_congested = false;
            self.memcgs[crate::memcontrol::ROOT_MEMCG as usize].lruvec_congested = false;
            self.pgdat_dirty = false;
            self.pgdat_writeback = false;
            return true;
        }
        false
    }

    /// `kswapd_age_node`, classic part: deactivate anon if it is too active.
    fn kswapd_age_node(&mut self, sc: &mut ScanControl) {
        if self.policy() == Policy::Mglru {
            (self.steps.lru_gen_age_node)(self, sc);
            return;
        }
        if !self.can_age_anon_pages() || !self.inactive_is_low(ROOT_MEMCG, LRU_INACTIVE_ANON) {
            return;
        }
        for m in self.memcg_subtree(ROOT_MEMCG) {
            self.shrink_active_list(SWAP_CLUSTER_MAX, m, LRU_ACTIVE_ANON, sc);
        }
    }

    /// `balance_pgdat` up to its loop (order 0): the zones' boosts are
    /// the boosted reclaim to do (left in place meanwhile, so that
    /// allocations near the watermarks keep waking kswapd or reclaiming).
    fn balance_pgdat_begin(&mut self) {
        self.ev.add(Ev::Pageoutrun, 1);
        let mut boosts = [0; NR_ZONES];
        for (z, b) in boosts.iter_mut().enumerate() {
            if self.zones[z].managed > 0 {
                *b = self.zones[z].watermark_boost;
            }
        }
        self.kswapd.zone_boosts = boosts;
        self.kswapd.nr_boost_reclaim = boosts.iter().sum();
        // set_reclaim_active: the zones' per-CPU lists keep fewer pages
        // while kswapd reclaims (crate::page_alloc `nr_pcp_high`).
        self.update_reclaim_active(true);
        self.kswapd.state = KswapdState::Balancing;
        self.kswapd.sc = Some(Box::new(ScanControl::new(0, None)));
    }

    /// One pass of balance_pgdat's `do { ... } while (sc.priority >= 1)`
    /// loop, with the `restart` for cache trim mode, or the rest of one
    /// that kswapd paused: Done when balance_pgdat is done, More when
    /// another pass follows, Paused when kswapd stopped inside this one
    /// (`kswapd_should_pause`; it goes on from there at its next turn).
    fn balance_pgdat_pass(&mut self) -> Pass {
        let mut sc = self.kswapd.sc.take().expect("balance_pgdat runs");
        let r = match self.kswapd.frame.take() {
            Some(mut f) if f.policy == self.policy() => self.balance_pgdat_resume(&mut f, &mut sc).map_or_else(
                || {
                    self.kswapd.frame = Some(f);
                    Pass::Paused
                },
                Pass::from_done,
            ),
            // A pass left under the other policy (an `lru_gen` switch while
            // kswapd was paused) is dropped; the pass starts again.
            _ => match self.balance_pgdat_begin_pass(&mut sc) {
                Err(done) => Pass::from_done(done),
                Ok(mut f) => match self.balance_pgdat_resume(&mut f, &mut sc) {
                    Some(done) => Pass::from_done(done),
                    None => {
                        self.kswapd.frame = Some(f);
                        Pass::Paused
                    }
                },
            },
        };
        self.kswapd.sc = Some(sc);
        r
    }

    /// A pass up to `shrink_node`'s walk: Err(done) when it ends before
    /// (the node is balanced: `goto out`, no failure counted).
    fn balance_pgdat_begin_pass(&mut self, sc: &mut ScanControl) -> Result<Box<PassFrame>, bool> {
        let balanced = self.pgdat_balanced();
        if !balanced && self.kswapd.nr_boost_reclaim > 0 {
            // An imbalanced node: the boost is left for later, and
            // balance_pgdat restarts as ordinary reclaim.
            self.kswapd.nr_boost_reclaim = 0;
            sc.priority = DEF_PRIORITY;
        }
        let boosting = self.kswapd.nr_boost_reclaim > 0;
        if !boosting && balanced {
            return Err(true);
        }
        let nr_reclaimed = sc.nr_reclaimed;
        // Boosted reclaim neither writes back nor swaps.
        sc.may_writepage = !boosting;
        sc.may_swap = !boosting;
        self.kswapd_age_node(sc);
        if sc.priority < DEF_PRIORITY - 2 {
            sc.may_writepage = true;
        }
        sc.nr_scanned = 0;
        // kswapd_shrink_node: a number of pages proportional to the number
        // of zones.
        sc.nr_to_reclaim = (0..NR_ZONES).filter(|&z| self.zones[z].managed > 0).map(|z| self.wmark_pages(z, 2).max(SWAP_CLUSTER_MAX)).sum();
        let shrink_from = sc.nr_reclaimed;
        let node = self.shrink_node_begin(sc);
        Ok(Box::new(PassFrame { policy: self.policy(), nr_reclaimed, shrink_from, node }))
    }

    /// The rest of a pass from where `f` stands: Some(done) at its end,
    /// None when kswapd pauses.
    fn balance_pgdat_resume(&mut self, f: &mut PassFrame, sc: &mut ScanControl) -> Option<bool> {
        if !self.shrink_node_resume(&mut f.node, sc) {
            return None;
        }
        // Boosted reclaim stays at DEF_PRIORITY - 2 or above; then
        // kswapd_shrink_node's answer: did it scan (or reclaim) its target?
        let boosting = self.kswapd.nr_boost_reclaim > 0;
        let raise_priority = !(boosting && sc.priority == DEF_PRIORITY - 2)
            && sc.nr_scanned.max(sc.nr_reclaimed - f.shrink_from) < sc.nr_to_reclaim;
        // (Throttled direct reclaimers are woken when allow_direct_reclaim
        // holds: they check it at the end of every pass.)
        let delta = sc.nr_reclaimed - f.nr_reclaimed;
        self.kswapd.nr_boost_reclaim -= self.kswapd.nr_boost_reclaim.min(delta);
        // Boosted reclaim that reclaimed nothing stops: it cannot write.
        let stop = self.kswapd.nr_boost_reclaim > 0 && delta == 0;
        if !stop {
            if raise_priority || delta == 0 {
                sc.priority -= 1;
            }
            if sc.priority >= 1 {
                return Some(false);
            }
        }
        if sc.nr_reclaimed == 0 && sc.priority < 1 && !sc.no_cache_trim_mode && sc.cache_trim_mode_failed {
            // restart with cache trim mode off.
            sc.no_cache_trim_mode = true;
            sc.priority = DEF_PRIORITY;
            return Some(false);
        }
        if sc.nr_reclaimed == 0 {
            self.kswapd_failures += 1;
        }
        Some(true)
    }

    /// True when kswapd, in a pass of its thread (KswapdMode::Thread), has
    /// spent past the moment the model let it in: it stops there, between
    /// two batches or two lruvecs, and the tasks go on until its clock
    /// (docs/FIDELITY.md simplification 2). Never for any other reclaimer,
    /// nor with `--kswapd instant`.
    #[inline]
    pub(crate) fn kswapd_should_pause(&mut self) -> bool {
        // (balance_pgdat's scan_control is out of `Kswapd` while a pass
        // runs: present, kswapd is not in one.)
        if !self.in_kswapd || self.kswapd.mode != KswapdMode::Thread || self.kswapd.sc.is_some() {
            return false;
        }
        if self.kswapd.at.saturating_add(self.kswapd.pass_ns) <= self.now {
            return false;
        }
        // Steps done but not yet charged are kswapd's.
        self.spend_reclaim(0);
        // A pause comes between batches: kswapd holds no folio off the
        // lists while the tasks (and their reclaim) go on.
        // (A task paused inside shrink_inactive_list may hold a batch.)
        debug_assert!(self.nr_isolated == [0, 0] || self.sched.direct_reclaimers > 0, "kswapd pauses holding isolated folios");
        true
    }

    /// The tail of balance_pgdat (`out:`): the boosts it started with are
    /// taken off the zones (kcompactd, woken then to defragment, is not
    /// modelled: docs/FIDELITY.md).
    fn balance_pgdat_end(&mut self) {
        for z in 0..NR_ZONES {
            let b = std::mem::take(&mut self.kswapd.zone_boosts[z]);
            self.zones[z].watermark_boost -= self.zones[z].watermark_boost.min(b);
        }
        self.kswapd.nr_boost_reclaim = 0;
        self.update_reclaim_active(false);
        self.kswapd.sc = None;
        self.kswapd.frame = None;
        self.snapshot_refaults(ROOT_MEMCG);
    }

    /// `update_reclaim_active` over every managed zone (order-0 requests
    /// may use any zone: `highest_zoneidx` is the highest).
    fn update_reclaim_active(&mut self, active: bool) {
        for z in self.zones.iter_mut() {
            if z.managed > 0 {
                z.reclaim_active = active;
            }
        }
    }

    // ---- kswapd's time and the pages it frees --------------------------------------

    /// kswapd spends `ns` of CPU time in the pass in progress; the pages
    /// it freed before are available from the end of that time.
    pub(crate) fn kswapd_spend(&mut self, ns: u64) {
        self.sim.kswapd_ns += ns;
        self.kswapd.pass_ns += ns;
        self.kswapd_mark_frees();
    }

    /// kswapd sleeps `ns` inside a pass (`reclaim_throttle`). At once
    /// (KswapdMode::Instant), the clock moves: everything waits for it.
    pub(crate) fn kswapd_sleep(&mut self, ns: u64) {
        if self.kswapd.mode == KswapdMode::Instant {
            self.spend(ns);
            return;
        }
        self.kswapd_mark_frees();
        self.kswapd.pass_ns += ns;
    }

    fn kswapd_mark_frees(&mut self) {
        let k = &mut self.kswapd;
        if k.pass_frees.iter().any(|&n| n > 0) {
            k.pass_marks.push((k.pass_ns, k.pass_frees));
            k.pass_frees = [0; NR_ZONES];
        }
    }

    /// kswapd gave `n` pages of zone `z` back to the zone (from its CPU's
    /// list, crate::page_alloc `free_pcppages_bulk`): held back from
    /// allocations until the pass reaches them.
    #[inline]
    pub(crate) fn kswapd_freed(&mut self, z: usize, n: u64) {
        if self.kswapd.mode == KswapdMode::Instant {
            return;
        }
        self.kswapd.pass_frees[z] += n;
        self.kswapd.held[z] += n;
    }

    /// A pass that started at `start` took `dur`: its frees become
    /// available at their offsets (frees not yet costed at its end).
    fn kswapd_pass_end(&mut self, start: u64, dur: u64) {
        self.kswapd_mark_frees();
        let k = &mut self.kswapd;
        for (off, n) in k.pass_marks.drain(..) {
            k.releases.push_back((start.saturating_add(off.min(dur)), n));
        }
    }

    /// Held pages whose time has come become available.
    #[inline]
    pub(crate) fn kswapd_release_due(&mut self) {
        if self.kswapd.releases.is_empty() {
            return;
        }
        while let Some(&(at, n)) = self.kswapd.releases.front() {
            if at > self.now {
                break;
            }
            self.kswapd.releases.pop_front();
            for z in 0..NR_ZONES {
                self.kswapd.held[z] -= n[z];
                // Freed now for the counters, on kswapd's CPU.
                if n[z] > 0 {
                    self.vmstat_account_free(self.kswapd.cpu, z);
                }
            }
        }
    }

    /// True if pages kswapd holds back are released at or before `t`.
    #[inline]
    pub(crate) fn kswapd_release_by(&self, t: u64) -> bool {
        self.kswapd.releases.front().is_some_and(|r| r.0 <= t)
    }

    /// Every held page becomes available (the end of a run: a reader of
    /// /proc/vmstat a moment later sees them free).
    pub fn kswapd_release_all(&mut self) {
        self.kswapd.releases.clear();
        self.kswapd.held = [0; NR_ZONES];
        for z in 0..NR_ZONES {
            self.vmstat_account_free(self.kswapd.cpu, z);
        }
    }

    /// The free pages of zone `z` the current context can allocate:
    /// kswapd sees all; others not those kswapd holds back.
    #[inline]
    pub fn nr_free_available(&self, z: usize) -> u64 {
        let free = self.folios.nr_free_zone(z);
        if self.in_kswapd {
            free
        } else {
            free.saturating_sub(self.kswapd.held[z])
        }
    }
}
