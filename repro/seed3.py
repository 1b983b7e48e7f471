# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003's section ("mm: multi-gen LRU: optimize multiple memcgs"): S3, memcached and fio in two memcgs."""

import os
import shlex
import statistics

import kernel
import kernel_runs
from plumbing import (
    ROOT,
    BIN_REL, EST_NOTE, MIB, Prep, RAMDISK, Run, Section, anon_ops_per_s, cmd_block, cmp_row, costs_of,
    file_pages_read, fmt_costs, fmt_num, fmt_pct, kernel_differences, pct, plot, refault_curves, rows_table,
    same_shared_counters, section, usage_curves, verdicts, kernel_row, size_str)

MARKERS = ["read mglru.", "load memcached"]


def marker_line(path, markers, i):
    """The lines of the prefix before marker i (found in order, as plumbing.build_split finds them)."""
    mi = 0
    with open(path) as f:
        for k, line in enumerate(f):
            if line.startswith(markers[mi]):
                if mi == i:
                    return k
                mi += 1
    raise ValueError("%s: marker %r not found" % (path, markers[i]))
# The real kernel's sides (repro/kernel_runs.py's S3 case) and the model's run of each on the same trace.
KSIDES = (("classic", dict(policy="classic")), ("mglru-6.1", dict(policy="mglru", kernel="6.1")),
          ("mglru", dict(policy="mglru")))
KSIDES_I = KSIDES[1:]      # S3-i's: 6.1 and 6.12 MGLRU


# ---- S3: optimize multiple memcgs ---------------------------------------------


@section
class S3(Section):
    id = "S3"
    title = "S3 — memcached and fio in two memcgs under global pressure"
    results = ("S3-a", "S3-b", "S3-c", "S3-d", "S3-e", "S3-f", "S3-g", "S3-h", "S3-i")

    def n(self, ctx):
        return 1024 if ctx.quick else 32

    def spec(self, N):
        return "mixed-memcg:scale=%d" % N

    def trace_path(self, ctx):
        return os.path.join(ctx.work_rel, self.id, "mixed.trace")

    # The variant memcg-lru-off is 6.12 with 6.1's difference no-memcg-lru alone (the variant's entry
    # in crates/mglru-core/src/profiles/mod.rs); `mglru kernels` lists 6.1's differences.
    VARIANT_DIFFS = ("no-memcg-lru",)

    @staticmethod
    def rw_page(run):
        """Whether the run swaps to a synchronous device without a bio (difference swap-rw-page)."""
        return run.kernel == "6.1" and "swap-rw-page" in kernel_differences("6.1")

    def plan(self, ctx):
        N = self.n(ctx)
        out = os.path.join(ctx.work_rel, self.id, "mixed.trace")
        preps = [Prep(self.id, "mixed", "split", out=out, spec=self.spec(N), markers=MARKERS, nomemcg=True)]
        runs = []
        # The model on the trace the real kernels ran (guest scale, repro/kernel_runs.py),
        # on the guest's machine (--start-zones); its prefix up to memtier's first GET (p1) for the
        # swap-ins of memcached's read phase.
        self.kc = None if ctx.quick else kernel.load_case(self.id, "mixed-memcg")
        if self.kc is not None and not self.kc.runs:
            self.kc = None
        if self.kc is not None:
            ktrace = self.kc.guest_trace(os.path.join(ctx.work_rel, self.id))   # the measured trace (SHA-256 checked) with the guest's root fs
            gout = os.path.join(ctx.work_rel, self.id, "guest.trace")
            preps.append(Prep(self.id, "guest", "split", out=gout, spec=self.kc.meta["spec"], markers=MARKERS,
                              src=ktrace))
            for side, kw in KSIDES:
                for suffix, src in (("", gout), ("-p1", gout + ".p1")):
                    runs.append(Run(self.id, "guest-%s%s" % (side, suffix), ("trace", src), costs=RAMDISK,
                                    start_zones=self.kc.machine(os.path.join(ctx.work_rel, self.id)), needs=self.id + "/guest",
                                    ts_ms=None if suffix else 20, **kw))
                # on each kernel run's clock (--guest-clock): the rows' estimates are event counts
                self.clock_plan(ctx, runs, self.kc, side, kw, gout, "guest")
                # the same with kswapd as a thread in simulated time (docs/FIDELITY.md simplification 2): where
                # the model parts from the kernels per memcg (kernel_part)
                runs.append(Run(self.id, "guest-%s-thread" % side, ("trace", gout), costs=RAMDISK, kswapd="thread",
                                start_zones=self.kc.machine(os.path.join(ctx.work_rel, self.id)), needs=self.id + "/guest", **kw))
        # S3-i on the real kernels: the same trace with every task in the root memcg, 6.1 and 6.12 MGLRU.
        self.kci = None if ctx.quick or self.kc is None else kernel.load_case(self.id, "mixed-nomemcg")
        if self.kci is not None and not self.kci.runs:
            self.kci = None
        if self.kci is not None:
            itrace = self.kci.guest_trace(os.path.join(ctx.work_rel, self.id))
            iout = os.path.join(ctx.work_rel, self.id, "guest-i.trace")
            preps.append(Prep(self.id, "guest-i", "split", out=iout, spec=self.kci.meta["spec"], markers=MARKERS,
                              src=itrace))
            for side, kw in KSIDES_I:
                for suffix, src in (("", iout), ("-p1", iout + ".p1")):
                    runs.append(Run(self.id, "guest-i-%s%s" % (side, suffix), ("trace", src), costs=RAMDISK,
                                    start_zones=self.kci.machine(os.path.join(ctx.work_rel, self.id)), needs=self.id + "/guest-i", **kw))
                self.clock_plan(ctx, runs, self.kci, side, kw, iout, "guest-i")
        for pol in ("classic", "mglru"):
            runs.append(Run(self.id, pol, ("trace", out), policy=pol, costs=RAMDISK, ts_ms=20, needs=self.id + "/mixed"))
            for i in (0, 1):
                runs.append(Run(self.id, "%s-p%d" % (pol, i), ("trace", out + ".p%d" % i), policy=pol,
                                costs=RAMDISK, needs=self.id + "/mixed"))
        # patch1-8: the multi-gen LRU without the memcg selection (variant memcg-lru-off).
        runs.append(Run(self.id, "nolru", ("trace", out), policy="mglru", variant="memcg-lru-off", costs=RAMDISK,
                        needs=self.id + "/mixed"))
        for i in (0, 1):
            runs.append(Run(self.id, "nolru-p%d" % i, ("trace", out + ".p%d" % i), policy="mglru",
                            variant="memcg-lru-off", costs=RAMDISK, needs=self.id + "/mixed"))
        # Linux 6.1: the multi-gen LRU without the memcg LRU, as released (no-memcg-lru and 6.1's other
        # differences); its global reclaim beside the variant.
        runs.append(Run(self.id, "v61", ("trace", out), policy="mglru", kernel="6.1", costs=RAMDISK,
                        needs=self.id + "/mixed"))
        for i in (0, 1):
            runs.append(Run(self.id, "v61-p%d" % i, ("trace", out + ".p%d" % i), policy="mglru", kernel="6.1",
                            costs=RAMDISK, needs=self.id + "/mixed"))
        runs.append(Run(self.id, "nomemcg-v61", ("trace", out + ".nomemcg"), policy="mglru", kernel="6.1",
                        costs=RAMDISK, needs=self.id + "/mixed"))
        # S3-i: the same workload with every task in the root memcg (CONFIG_MEMCG=n's closest
        # model), patch1-8 and patch1-9.
        for name, variant in (("nomemcg-mglru", None), ("nomemcg-nolru", "memcg-lru-off")):
            runs.append(Run(self.id, name, ("trace", out + ".nomemcg"), policy="mglru", variant=variant,
                            costs=RAMDISK, needs=self.id + "/mixed"))
        return preps, runs

    def render(self, ctx, R, P):
        N = self.n(ctx)
        cost = costs_of(RAMDISK)
        cnt = P["mixed"]["counts"]
        fio_ios = sum(c.get("mglru", [0, 0])[0] for c in cnt[1:])
        fio_pages = sum(c.get("mglru", [0, 0])[1] for c in cnt[1:])
        mc_ops, mc_pages = cnt[2]["memcached"]
        est = {}
        for pol in ("classic", "mglru", "nolru", "v61"):
            full, p0, p1 = R[pol], R[pol + "-p0"], R[pol + "-p1"]
            # The trace's swap is a ramdisk (`sync=y`): with 6.1's difference swap-rw-page (--kernel 6.1;
            # not --variant memcg-lru-off, which is no-memcg-lru alone) it is swapped to without a bio.
            rd = lambda r: file_pages_read(r, swap_bio=not self.rw_page(r.run))
            reads = rd(full) - rd(p0)
            fio = fio_ios * 1e9 / (fio_pages * cost["page_copy"] + reads * cost["disk_read"])
            mc, f, mj = anon_ops_per_s(mc_ops, mc_pages, full, p1, "memcached", cost)
            est[pol] = (fio, mc, reads, mj, full.throughput)
        c, m, n8 = est["classic"], est["mglru"], est["nolru"]
        rows = [
            cmp_row("S3-a", "fio IOPS, patch1-8 → patch1-9", 1880e3, 2252e3, pct(1880e3, 2252e3), n8[0], m[0]),
            cmp_row("S3-b", "fio BW (MiB/s), patch1-8 → patch1-9", 7343, 8796, pct(7343, 8796),
                    n8[0] * 4096 / MIB, m[0] * 4096 / MIB),
            cmp_row("S3-c", "memcached ops/s, patch1-8 → patch1-9", 862768.65, 1911022.12, pct(862768.65, 1911022.12),
                    n8[1], m[1]),
            cmp_row("S3-d", "memcached KB/s, patch1-8 → patch1-9", 33514.68, 74234.54, pct(33514.68, 74234.54),
                    n8[1] * 74234.54 / 1911022.12, m[1] * 74234.54 / 1911022.12),
            cmp_row("S3-e", "fio IOPS, 5.19-rc1 → patch1-9", 1279e3, 2252e3, pct(1279e3, 2252e3), c[0], m[0]),
            cmp_row("S3-f", "fio BW (MiB/s), 5.19-rc1 → patch1-9", 4996, 8796, pct(4996, 8796), c[0] * 4096 / MIB, m[0] * 4096 / MIB),
            cmp_row("S3-g", "memcached ops/s, 5.19-rc1 → patch1-9", 1673524.04, 1911022.12, pct(1673524.04, 1911022.12), c[1], m[1]),
            cmp_row("S3-h", "memcached KB/s, 5.19-rc1 → patch1-9", 65008.87, 74234.54, pct(65008.87, 74234.54),
                    c[1] * 74234.54 / 1911022.12, m[1] * 74234.54 / 1911022.12),
            cmp_row("S3-i", "client: \"no change (CONFIG_MEMCG=n)\": all tasks' ops/s, every task in the root memcg, "
                    "patch1-8 → patch1-9", None, None, 0.0, R["nomemcg-nolru"].throughput,
                    R["nomemcg-mglru"].throughput, seed_dir="0", seed_change="no change"),
            cmp_row("S3", "derived: memcached 5.19-rc1 → patch1-8", 1673524.04, 862768.65, pct(1673524.04, 862768.65),
                    c[1], n8[1]),
        ]
        ktext = self.kernel_part(ctx, R, P, rows) if self.kc is not None else (
            "**On the real kernel**: not measured yet (`python3 repro/kernel_runs.py --only S3`; "
            "docs/REPRODUCTIONS-KERNEL.md).")
        o = []
        o.append("**Seed** (S3:1-85, digest:514-557): the commit message of \"mm: multi-gen LRU: optimize "
                 "multiple memcgs\" (patch 9 of its series), `mixed.sh`: two 54 GiB brd ramdisks (swap, ext4); "
                 "memtier loads 50M keys of 2000 bytes into memcached; 36 fio jobs read 1408 MiB files at "
                 "random (`--ioengine=io_uring --rw=randread --random_distribution=random --norandommap`, "
                 "buffered); after 200 s memtier reads every key in random order; \"heavy anon workload in "
                 "one memcg and heavy buffered I/O workload in the other\", global pressure. Results against "
                 "patches 1-8 and against 5.19-rc1 (no MGLRU).")
        o.append("")
        o.append("**Model**: the `mixed-memcg` generator (docs/WORKLOADS.md 3.7) with sizes, RAM (128G "
                 "**assumed**: the seed does not give it), swap and the 200 s delay divided by **%d**; memcached "
                 "at 1.9M requests/s and fio at 62,500 I/Os/s per job (the seed's own figures). The trace is "
                 "written once and cut at fio's first read (`p0`) and memtier's first GET (`p1`); fio is "
                 "measured from its start to the end, memcached over its reads. 5.19-rc1 = `--policy "
                 "classic`, patch1-9 = `--policy mglru` (6.12 contains patch 9), patch1-8 = `--policy mglru "
                 "--variant memcg-lru-off` (global reclaim walks every memcg instead of using the memcg LRU, 6.1's "
                 "`no-memcg-lru` alone; docs/VARIANTS.md), and beside it 6.1 itself. Ramdisk costs: %s. KB/s is "
                 "proportional to ops/s for memtier's fixed request mix (the seed's own ratio is used), and BW "
                 "to IOPS (4 KiB reads)." % (N, fmt_costs(RAMDISK)))
        o.append("")
        o.append("```sh")
        o.append("./%s workload %s --emit-trace %s" % (BIN_REL, shlex.quote(self.spec(N)),
                                                      os.path.join(ctx.work_rel, self.id, "mixed.trace")))
        o.append("```")
        o.append("")
        o.append(cmd_block(ctx, [R[k].run for k in ("classic", "classic-p0", "classic-p1", "mglru", "mglru-p0", "mglru-p1",
                                                   "nolru", "nolru-p0", "nolru-p1", "nomemcg-nolru", "nomemcg-mglru",
                                                   "v61", "v61-p0", "v61-p1", "nomemcg-v61")]))
        o.append("")
        o.append(EST_NOTE)
        o.append("")
        o.append(rows_table(rows, "before", "after"))
        o.append("")
        o.append("| run | fio pages read from disk | memcached major faults (reads) | all tasks, ops/s (cost model) |")
        o.append("|---|---:|---:|---:|")
        for pol, label in (("classic", "classic"), ("mglru", "mglru"), ("nolru", "mglru, memcg-lru-off"),
                           ("v61", "6.1, mglru (`--kernel 6.1 --policy mglru`)")):
            o.append("| %s | %s | %s | %s |" % (label, fmt_num(est[pol][2]), fmt_num(est[pol][3]), fmt_num(est[pol][4])))
        o.append("")
        v, nv = R["v61"], R["nolru"]
        same, ncnt = same_shared_counters(v, nv)
        t = ["**Linux 6.1 beside the variant.** `--kernel 6.1 --policy mglru` is the released multi-gen LRU "
             "without the memcg LRU (6.1 boots with the classic LRU; `--policy mglru` turns the multi-gen LRU "
             "on). The variant `memcg-lru-off` is 6.12 with one of 6.1's behaviour differences, %s (the "
             "variant's entry in crates/mglru-core/src/profiles/mod.rs); 6.1 adds its others (%s; `mglru "
             "kernels` for what each does), so the two differ where those do." % (
                 ", ".join("`%s`" % d for d in self.VARIANT_DIFFS),
                 ", ".join("`%s`" % d for d in kernel_differences("6.1") if d not in self.VARIANT_DIFFS))]
        if same:
            t.append("Here the two full runs agree on all %d /proc/vmstat counters both print, and so do the "
                     "estimates (table above): on this trace 6.1's global reclaim is the variant's." % ncnt)
        else:
            t.append("Against the variant: fio IOPS %s → %s (%s), memcached ops/s %s → %s (%s), fio pages read "
                     "from disk %s → %s, memcached major faults %s → %s, all tasks' ops/s %s → %s (%s)."
                     % (fmt_num(n8[0]), fmt_num(est["v61"][0]), fmt_pct(pct(n8[0], est["v61"][0])),
                        fmt_num(n8[1]), fmt_num(est["v61"][1]), fmt_pct(pct(n8[1], est["v61"][1])),
                        fmt_num(n8[2]), fmt_num(est["v61"][2]), fmt_num(n8[3]), fmt_num(est["v61"][3]),
                        fmt_num(n8[4]), fmt_num(est["v61"][4]), fmt_pct(pct(n8[4], est["v61"][4]))))
        t.append("6.1 also counts differently from the variant and 6.12: `swap-rw-page` swaps to the ramdisk "
                 "without a bio, so 6.1's pgpgin has no swap reads (%s KiB with %s swap-ins in the 6.1 run; "
                 "fio's pages read from disk are pgpgin alone for the 6.1 run, pgpgin less pswpin for the "
                 "others: variant %s KiB with %s swap-ins), and `workingset-6.1` changes what "
                 "workingset_refault_* and workingset_activate_* count (6.1 run: workingset_refault_file %s, "
                 "workingset_activate_file %s; variant: %s, %s; 6.12: %s, %s)."
                 % (fmt_num(v.vm["pgpgin"]), fmt_num(v.vm["pswpin"]), fmt_num(nv.vm["pgpgin"]),
                    fmt_num(nv.vm["pswpin"]), fmt_num(v.vm["workingset_refault_file"]),
                    fmt_num(v.vm["workingset_activate_file"]), fmt_num(nv.vm["workingset_refault_file"]),
                    fmt_num(nv.vm["workingset_activate_file"]), fmt_num(R["mglru"].vm["workingset_refault_file"]),
                    fmt_num(R["mglru"].vm["workingset_activate_file"])))
        t.append("With every task in the root memcg (S3-i's case) 6.1's all tasks' ops/s are %s (variant %s, "
                 "6.12 %s). Taken as patch1-8, 6.1 gives 6.1 → 6.12: fio IOPS %s, memcached ops/s %s (the seed's "
                 "patch1-8 → patch1-9: %s and %s)."
                 % (fmt_num(R["nomemcg-v61"].throughput), fmt_num(R["nomemcg-nolru"].throughput),
                    fmt_num(R["nomemcg-mglru"].throughput),
                    fmt_pct(pct(est["v61"][0], m[0])), fmt_pct(pct(est["v61"][1], m[1])),
                    fmt_pct(pct(1880e3, 2252e3)), fmt_pct(pct(862768.65, 1911022.12))))
        o.append(" ".join(t))
        o.append("")
        o.append("Patches 1-8 of the seed's series are modelled by the `memcg-lru-off` variant: 6.12 with its "
                 "global reclaim walking every memcg in iterator order (as before the memcg LRU) instead of "
                 "picking memcgs from the memcg LRU. It is an interpretation (the seed gives the patch's "
                 "description, not its code; docs/VARIANTS.md). S3-i is a claim about kernels built without "
                 "memcg (CONFIG_MEMCG=n); the model always has the root memcg, so its closest case is the "
                 "same trace with every task in the root memcg (`%s.nomemcg`: the `memcg` statements and "
                 "the tasks' `memcg=` dropped), run with and without the memcg LRU: all tasks' ops/s %s "
                 "and %s." % (os.path.basename(str(self.trace_path(ctx))), fmt_num(R["nomemcg-nolru"].throughput),
                              fmt_num(R["nomemcg-mglru"].throughput)))
        o.append("")
        if "no" in verdicts(rows):
            t = ["**Where it differs.**"]
            for r in rows:
                if r["verdict"] == "no":
                    t.append("`%s`: model %s against the seed's %s." % (r["what"], r["model_change"], r["seed_change"]))
            t.append("In the model the two workloads' costs are their misses: fio's page-cache misses and "
                     "memcached's swap-ins (table above). The classic LRU keeps more of fio's file pages and "
                     "swaps memcached (%s major faults during the reads); MGLRU keeps memcached resident "
                     "(%s major faults) and evicts fio's pages instead (%s pages read from disk against %s): "
                     "it trades one workload for the other, where the seed's patch1-9 improved both at once "
                     "against 5.19-rc1. The seed's gains for both also come from CPU: kswapd and direct "
                     "reclaim scanning and swapping under 36 fio jobs and 36 memtier threads, which the cost "
                     "model does not charge (kswapd is free), and from the machine's size, which sets how "
                     "much of the 110 GB memcached fits and is not given (128G assumed)."
                     % (fmt_num(c[3]), fmt_num(m[3]), fmt_num(m[2]), fmt_num(c[2])))
            o.append(" ".join(t))
            o.append("")
        o.append(ktext)
        o.append("")
        o.append(plot(ctx, self.id, "usage", "S3: memory use per memcg", "MiB",
                      usage_curves([("classic", R["classic"]), ("mglru", R["mglru"])], ["memcached", "fio"])))
        o.append("")
        o.append(plot(ctx, self.id, "refaults", "S3: cumulative refaults", "pages",
                      refault_curves([("classic", R["classic"]), ("mglru", R["mglru"])], kinds=("file", "anon"))))
        return "\n".join(o), rows

    # ---- the real kernel (issue 32) ---------------------------------------------------------------

    def estimates(self, P, rd_reads, mj, g="guest"):
        """The section's two estimates from a run's counters on the guest's trace: fio IOPS from its
        pages read from disk (the whole run: nothing reads a file before fio's first read), memcached
        ops/s from the swap-ins of its read phase (after memtier's first GET), each a major fault
        that is also its fault (the kernel's profile has no per-memcg fault counts)."""
        cost = costs_of(RAMDISK)
        cnt = P[g]["counts"]
        fio_ios = sum(c.get("mglru", [0, 0])[0] for c in cnt[1:])
        fio_pages = sum(c.get("mglru", [0, 0])[1] for c in cnt[1:])
        mc_ops, mc_pages = cnt[2]["memcached"]
        fio_ns = fio_pages * cost["page_copy"] + rd_reads * cost["disk_read"]
        fio = fio_ios * 1e9 / fio_ns
        ns = max(0, mc_pages - mj) * cost["mem_access"] + mj * (cost["minor_fault"] + cost["swap_read"])
        # the third: both workloads' operations over both estimated times (S3-i's "all tasks")
        return fio, (mc_ops * 1e9 / ns if ns else 0.0), (fio_ios + mc_ops) * 1e9 / (fio_ns + ns)

    def kernel_estimates(self, P, side, r, g="guest"):
        """The estimates from a real kernel's result: pgpgin less pswpin (pgpgin alone on 6.1, whose brd
        swap is rw_page without a bio), and pswpin after the p1 line from its vmstat_profile (the last
        sample taken before the line ran)."""
        p1 = P[g]["markers"][1] + 1          # the replayer's lines count from 1
        v = r["vmstat"]
        reads = v.get("pgpgin", 0) // 4 - (0 if side.endswith("6.1") else v.get("pswpin", 0))
        vp = r["vmstat_profile"]
        # the markers are lines of the model's trace (the measured one with the guest's root fs in it,
        # kernel.Rootfs), the profile's of the measured one
        fs = (self.kc if g == "guest" else self.kci).rootfs()
        at = [i for i, ln in enumerate(vp["lines"]) if fs.line(ln) < p1]
        sw0 = vp["counters"]["pswpin"][at[-1]] if at else 0
        return self.estimates(P, reads, v.get("pswpin", 0) - sw0, g)

    def model_estimates(self, P, R, side, g="guest", clock=""):
        full, p1 = R["%s-%s%s" % (g, side, clock)], R["%s-%s%s-p1" % (g, side, clock)]
        rd = file_pages_read(full, swap_bio=side != "mglru-6.1")
        return self.estimates(P, rd, full.vm["pswpin"] - p1.vm["pswpin"], g)

    def clock_plan(self, ctx, runs, kc, side, kw, trace, g):
        """The model's runs of the guest trace (and its p1 prefix) on the machine and the clock of each kernel
        run of `side` (--start-zones of the case's machine, --guest-clock of the run)."""
        work = os.path.join(ctx.work_rel, self.id)
        # The p1 prefix's lines: the guest trace (a copy of kc's, prepared later) up to memtier's first GET;
        # its clock is the run's up to there (`mglru run` refuses a profile that runs past the trace).
        p1_lines = marker_line(os.path.join(ROOT, kc.guest_trace(work)), MARKERS, 1)
        for n, res in sorted(kc.runs.items()):
            if side not in res:
                continue
            for suffix, src, upto in (("", trace, None), ("-p1", trace + ".p1", p1_lines)):
                gc = kernel.unpacked_result(kc, n, side, work, upto=upto)
                runs.append(Run(self.id, "%s-%s-clock%d%s" % (g, side, n, suffix), ("trace", src), costs=RAMDISK,
                                start_zones=kc.machine(work), guest_clock=gc,
                                needs="%s/%s" % (self.id, g), **kw))

    def clock_change(self, P, R, kc, b, a, k, g="guest"):
        """The model's change of estimate k from side b to a on each kernel run pair's clocks: (median change,
        median before, median after, pairs)."""
        ns = [n for n, r in sorted(kc.runs.items()) if b in r and a in r]
        bs = [self.model_estimates(P, R, b, g, "-clock%d" % n)[k] for n in ns]
        as_ = [self.model_estimates(P, R, a, g, "-clock%d" % n)[k] for n in ns]
        ch = [pct(x, y) for x, y in zip(bs, as_)]
        return statistics.median(ch), statistics.median(bs), statistics.median(as_), len(ns)

    def kernel_part_i(self, P, R, rows, lines):
        """S3-i's row on the real kernels (case mixed-nomemcg: every task in the root memcg): 6.1 → 6.12 MGLRU,
        all tasks' operations over both estimated times. Appends its line to `lines`; returns the sentence."""
        kci = self.kci
        if kci is None:
            return ("S3-i (every task in the root memcg) is not measured on the kernel yet (`python3 "
                    "repro/kernel_runs.py --only S3/mixed-nomemcg`).")
        r = [x for x in rows if x["id"] == "S3-i"][0]
        b, a = "mglru-6.1", "mglru"
        if not kci.pairs(b, a):
            have = ", ".join("%s %d" % (s, len(kci.values(s, lambda x: x))) for s in kci.sides())
            return ("S3-i (case `mixed-nomemcg`, every task in the root memcg, / 2048) has no run pair yet (runs per "
                    "side: %s): its 6.1 side is plain TCG and its guests have not finished within the timeout "
                    "(docs/REPRODUCTIONS-KERNEL.md)." % have)
        kch = kernel.kernel_change_sided(kci, b, a, lambda side, res: self.kernel_estimates(P, side, res, "guest-i")[2])
        mg, mb, ma, _ = self.clock_change(P, R, kci, b, a, 2, "guest-i")
        kernel_row(r, kch, mg, kernel.verdict_kernel(mg, kch))
        per = lambda xs: ", ".join(fmt_num(round(x)) for x in xs)
        lines.append("| S3-i | %s → %s, every task in the root memcg, all tasks' ops/s | %s | %s | %s | %s → %s | %s |" % (
            b, a, per(kch["before"]) if kch else "–", per(kch["after"]) if kch else "–", kernel.fmt_kernel(kch),
            fmt_num(round(mb)), fmt_num(round(ma)), fmt_pct(mg)))
        return ("S3-i: case `mixed-nomemcg`, the same trace with every task in the root memcg (the `memcg` statements "
                "and the tasks' `memcg=` dropped; the guest gets %d MiB, the model runs on %s), 6.1 MGLRU → 6.12 MGLRU (the "
                "model: `--kernel 6.1 --policy mglru` → `--policy mglru` on it); its metric is both workloads' "
                "operations (fio's I/Os and memcached's GETs) over the two estimated times, the model's all tasks' "
                "ops/s estimated from the counters as the kernel's must be."
                % (kci.meta["guest_memory_mib"], kci.machine_text()))

    def kernel_part(self, ctx, R, P, rows):
        kc = self.kc
        # row id -> (before side, after side, 0 = fio / 1 = memcached)
        which = {"S3-a": ("mglru-6.1", "mglru", 0), "S3-b": ("mglru-6.1", "mglru", 0),
                 "S3-c": ("mglru-6.1", "mglru", 1), "S3-d": ("mglru-6.1", "mglru", 1),
                 "S3-e": ("classic", "mglru", 0), "S3-f": ("classic", "mglru", 0),
                 "S3-g": ("classic", "mglru", 1), "S3-h": ("classic", "mglru", 1)}
        lines = []
        for r in rows:
            key = r["id"]
            if r["id"] == "S3" and r["what"].startswith("derived"):
                b, a, k = "classic", "mglru-6.1", 1
            elif key in which:
                b, a, k = which[key]
            else:
                continue
            kch = kernel.kernel_change_sided(kc, b, a, lambda side, res, k=k: self.kernel_estimates(P, side, res)[k])
            mg, mb, ma, _ = self.clock_change(P, R, kc, b, a, k)
            kernel_row(r, kch, mg, kernel.verdict_kernel(mg, kch))
            per = lambda xs: ", ".join(fmt_num(round(x)) for x in xs)
            lines.append("| %s | %s → %s, %s | %s | %s | %s | %s → %s | %s |" % (
                r["id"], b, a, ("fio IOPS", "memcached ops/s")[k], per(kch["before"]) if kch else "–",
                per(kch["after"]) if kch else "–", kernel.fmt_kernel(kch), fmt_num(round(mb)), fmt_num(round(ma)),
                fmt_pct(mg)))
        counts = lambda side, f: ", ".join(fmt_num(f(side, r[side])) for _, r in sorted(kc.runs.items()) if side in r)
        rdk = lambda side, res: res["vmstat"].get("pgpgin", 0) // 4 - (0 if side.endswith("6.1") else res["vmstat"].get("pswpin", 0))
        swk = lambda side, res: res["vmstat"].get("pswpin", 0)
        o = ["**On the real kernel** (Debian 6.12.117 classic and MGLRU, 6.1.192 MGLRU = patch1-8, the released "
             "multi-gen LRU without the memcg LRU; docs/REPRODUCTIONS-KERNEL.md): the same generator at `%s` (%d "
             "lines, its swap `%s`: brd keeps the written slots in guest RAM, and `ram=y` has the model's "
             "swap take RAM too; the guest gets %d MiB, the model runs on %s), replayed by `python3 "
             "repro/kernel_runs.py --only S3` into `validation/results-repro/S3/`, under `--icount 0`. The "
             "replayer runs the two memcgs' lines in the trace's order, so neither workload's time can be "
             "read on its own: the kernel's column is the section's estimate (above) computed from the "
             "kernel's own counters, and the model's column the same estimate from the model's run of the same "
             "trace: fio IOPS from the pages read from disk over the run (pgpgin less pswpin; pgpgin alone on "
             "6.1, whose brd swap has no bio), memcached ops/s from the swap-ins after memtier's first GET "
             "(line %d; the kernel's pswpin there from its 100 ms profile), each swap-in charged `minor_fault` + "
             "`swap_read`, the model's on each kernel run's clock (below). BW and KB/s rows move with IOPS and "
             "ops/s. %s"
             % (kc.meta["spec"], kc.meta["trace_lines"], kc.meta["swap"], kc.meta["guest_memory_mib"],
                kc.machine_text(),
                P["guest"]["markers"][1] + 1, self.kernel_part_i(P, R, rows, lines)),
             "",
             "| result | comparison | kernel before per run | kernel after per run | kernel change | model (same trace, the kernel runs' clocks, medians) | model change |",
             "|---|---|---:|---:|---:|---:|---:|"] + lines
        o += ["", "Kernel counters per run: file pages read from disk classic %s, 6.1 %s, 6.12 MGLRU %s; pswpin "
              "classic %s, 6.1 %s, 6.12 MGLRU %s. The model on the same trace: file pages read %s, %s, %s; pswpin "
              "%s, %s, %s." % (
                  counts("classic", rdk), counts("mglru-6.1", rdk), counts("mglru", rdk),
                  counts("classic", swk), counts("mglru-6.1", swk), counts("mglru", swk),
                  *[fmt_num(file_pages_read(R["guest-%s" % s], swap_bio=s != "mglru-6.1")) for s, _ in KSIDES],
                  *[fmt_num(R["guest-%s" % s].vm["pswpin"]) for s, _ in KSIDES])]
        # Per memcg, where the model and the kernels part: reclaim from memcached's memcg (its swap-ins),
        # fio's refaults and their activations (its reads from disk); the model on each kernel run's clock.
        mk = lambda side, memcg, c: counts(side, lambda sd, res: res["memcg"].get(memcg, {}).get("stat", {}).get(c, 0))
        clk = lambda side: [R[k] for k in sorted(k for k in R if k.startswith("guest-%s-clock" % side)
                                                 and not k.endswith("-p1"))]
        mm = lambda memcg, c: " / ".join(", ".join(fmt_num(x.memcg(memcg, c)) for x in clk(s)) for s, _ in KSIDES)
        never = all(x.memcg("memcached", "pgscan") == 0 for s in ("mglru-6.1", "mglru") for x in clk(s))
        o += ["", "Per memcg (memory.stat at the end; classic / 6.1 / 6.12 MGLRU, the kernel's runs and the model's on "
              "their clocks): memcached's pgscan %s, the model %s; its pgsteal %s, the model %s. fio's "
              "workingset_refault_file %s, the model %s; its workingset_activate_file %s, the model %s.%s The rows' "
              "model column is the model on each kernel run's clock (`--guest-clock`, run N against run N, median; "
              "the estimates are event counts). What the model's run must share with the guest here (its zones, "
              "its root file system: the initramfs's tmpfs that the guest swaps, its clock) and the threshold this "
              "scale sits on (fio's memcg near the 4,096 pages that make a memcg sizable at DEF_PRIORITY) are in "
              "docs/FIDELITY.md, \"The seeds' workloads at the guest's scale\"." % (
                  " / ".join(mk(s, "memcached", "pgscan") for s, _ in KSIDES), mm("memcached", "pgscan"),
                  " / ".join(mk(s, "memcached", "pgsteal") for s, _ in KSIDES), mm("memcached", "pgsteal"),
                  " / ".join(mk(s, "fio", "workingset_refault_file") for s, _ in KSIDES),
                  mm("fio", "workingset_refault_file"),
                  " / ".join(mk(s, "fio", "workingset_activate_file") for s, _ in KSIDES),
                  mm("fio", "workingset_activate_file"),
                  (" **The model's MGLRU (6.1 and 6.12) never reclaims from memcached's memcg on this trace**, where "
                   "both kernels' MGLRU scan and swap part of it in every run, so its memcached estimate has no "
                   "swap-ins under MGLRU. With kswapd as a thread in simulated time (`--kswapd thread`, own clock) "
                   "memcached's pgscan is %s." % ", ".join(fmt_num(R["guest-%s-thread" % s].memcg("memcached", "pgscan"))
                                                        for s, _ in KSIDES)) if never else "")]
        labels = (("classic", "6.12 classic"), ("mglru-6.1", "6.1 MGLRU"), ("mglru", "6.12 MGLRU"))
        for counter, what in (("pswpin", "swap-ins (pswpin: memcached's)"),
                              ("workingset_refault_file", "file refaults (fio's)")):
            o += ["", kernel.plot_against_kernel(
                ctx, self.id, "kernel-%s" % counter, "S3 at guest scale: cumulative %s, real kernels and the model" % what,
                "pages", kc, list(labels), [(lab, R["guest-%s" % side]) for side, lab in labels], counter,
                xlabel="fraction of the run (6.12: instructions; 6.1: plain TCG, host time; model: simulated time)")]
        return "\n".join(o)
