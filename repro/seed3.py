# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003's section ("mm: multi-gen LRU: optimize multiple memcgs"): S3, memcached and fio in two memcgs."""

import os
import shlex

from plumbing import (
    BIN_REL, EST_NOTE, MIB, Prep, RAMDISK, Run, Section, anon_ops_per_s, cmd_block, cmp_row, costs_of,
    file_pages_read, fmt_costs, fmt_num, fmt_pct, kernel_differences, pct, plot, refault_curves, rows_table,
    same_shared_counters, section, usage_curves, verdicts)


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
        preps = [Prep(self.id, "mixed", "split", out=out, spec=self.spec(N), markers=["read mglru.", "load memcached"],
                      nomemcg=True)]
        runs = []
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
        o.append(plot(ctx, self.id, "usage", "S3: memory use per memcg", "MiB",
                      usage_curves([("classic", R["classic"]), ("mglru", R["mglru"])], ["memcached", "fio"])))
        o.append("")
        o.append(plot(ctx, self.id, "refaults", "S3: cumulative refaults", "pages",
                      refault_curves([("classic", R["classic"]), ("mglru", R["mglru"])], kinds=("file", "anon"))))
        return "\n".join(o), rows
