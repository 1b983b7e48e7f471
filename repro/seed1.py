# SPDX-License-Identifier: GPL-2.0-only
"""Seed 001's sections: S1-A, S1-B (memcached and fio mmap, merged traces) and S1-C .. S1-F (ebizzy)."""

import os
import shlex
import statistics

import kernel
import kernel_runs
from plumbing import (
    BIN_REL, EST_NOTE, GIB, MIB, MMC, Prep, RAMDISK, Run, Section, ZRAM, anon_ops_per_s, cmd_block, cmp_row,
    costs_of, fio_size, fmt_costs, fmt_num, fmt_pct, gen_curves, human, mmap_ios_per_s, na_row, pct, plot,
    rows_table, section, size_str, usage_curves, verdicts, kernel_row)


# ---- S1-A / S1-B: memcached + fio mmap (seed 001's mmap.sh and test.sh) ---------

MT_LOAD = ("-S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys --key-minimum=1 "
           "--key-maximum={keys} --key-pattern=P:P -c 1 -t 36 --ratio 1:0 --pipeline 8 -d 2000")
MT_READ = ("-S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys --key-minimum=1 "
           "--key-maximum={keys} --key-pattern=R:R -c 1 -t 36 --ratio 0:1 --pipeline 8 --randomize "
           "--distinct-client-seed")
FIO_MMAP = ("-name=mglru --numjobs={jobs} --directory=/mnt --size={size} --buffered=1 --ioengine=mmap{hint} "
            "--iodepth=128 --iodepth_batch_submit=32 --iodepth_batch_complete=32 --rw=read --time_based "
            "--ramp_time=10m --runtime=180m --group_reporting")


@section
class S1A(Section):
    id = "S1-A"
    title = "S1-A — memcached (anon) vs a streaming fio mmap read, with and without MADV_SEQUENTIAL"
    results = ("S1-A",)

    def n(self, ctx):
        return 2048 if ctx.quick else 16

    def prep_for(self, N, seq):
        keys = 50000000 // N
        mt = "memtier:%s && %s;memory=%s,swap=%s,swap_sync=y,memcg_max=max" % (
            MT_LOAD.format(keys=keys), MT_READ.format(keys=keys), size_str(128 * GIB // N), size_str(54 * GIB // N))
        fio = "fio:%s;memory=%s,memcg_max=max,rate_iops=62500" % (
            FIO_MMAP.format(jobs=12, size=fio_size(4224 * MIB // N), hint="" if seq else " --fadvise_hint=0"),
            size_str(128 * GIB // N))
        delay_ios = 200 * 12 * 62500 // N
        out = os.path.join("WORK", self.id, "%s.trace" % ("seq" if seq else "noseq"))
        return dict(out=out, header=["memory %s" % size_str(128 * GIB // N), "swap %s sync=y" % size_str(54 * GIB // N)],
                    memtier_spec=mt, fio_spec=fio,
                    phases=[("memtier", keys), ("fio", delay_ios), ("both", None)],
                    memtier_rate=1900000, fio_rate=12 * 62500)

    def plan(self, ctx):
        N = self.n(ctx)
        preps, runs = [], []
        for seq in (True, False):
            tag = "seq" if seq else "noseq"
            kw = self.prep_for(N, seq)
            kw["out"] = kw["out"].replace("WORK", ctx.work_rel)
            preps.append(Prep(self.id, tag, "merged", **kw))
            for pol in ("classic", "mglru"):
                runs.append(Run(self.id, "%s-%s" % (tag, pol), ("trace", kw["out"]), policy=pol, costs=RAMDISK,
                                ts_ms=20, needs="%s/%s" % (self.id, tag)))
                runs.append(Run(self.id, "%s-%s-p1" % (tag, pol), ("trace", kw["out"] + ".p1"), policy=pol,
                                costs=RAMDISK, needs="%s/%s" % (self.id, tag)))
        return preps, runs

    def render(self, ctx, R, P):
        N = self.n(ctx)
        cost = costs_of(RAMDISK)
        est = {}
        det = {}
        for tag in ("seq", "noseq"):
            ph = P[tag]["phases"][2]
            for pol in ("classic", "mglru"):
                full, pre = R["%s-%s" % (tag, pol)], R["%s-%s-p1" % (tag, pol)]
                v, f, mj = anon_ops_per_s(ph["memtier_ops"], ph["memtier_pages"], full, pre, "memcached", cost)
                est[(tag, pol)] = v
                det[(tag, pol)] = (mj, full.vm["pswpin"] - pre.vm["pswpin"], full.vm["pswpout"])
        rows = [
            cmp_row("S1-A", "memcached ops/s, MADV_SEQUENTIAL (rc3 → rc3+v7)", 292e3, 1967e3, pct(292e3, 1967e3),
                    est[("seq", "classic")], est[("seq", "mglru")]),
            cmp_row("S1-A", "memcached ops/s, no MADV_SEQUENTIAL (rc3 → rc3+v7)", 203e3, 436e3, pct(203e3, 436e3),
                    est[("noseq", "classic")], est[("noseq", "mglru")]),
            cmp_row("S1-A", "rc3: no → yes MADV_SEQUENTIAL", 203e3, 292e3, pct(203e3, 292e3),
                    est[("noseq", "classic")], est[("seq", "classic")]),
            cmp_row("S1-A", "rc3+v7: no → yes MADV_SEQUENTIAL", 436e3, 1967e3, pct(436e3, 1967e3),
                    est[("noseq", "mglru")], est[("seq", "mglru")]),
            na_row("S1-A", "baseline patched to skip `workingset_refault()` for VM_SEQ_READ|VM_RAND_READ",
                   None, None, "\"a lot better (x3)\"", "not run: no such variant; no absolute numbers"),
        ]
        p = P["seq"]["phases"]
        o = []
        o.append("**Seed** (S1:750-793, digest:328-368): `mmap.sh` on two 54 GiB brd ramdisks (swap on one, ext4 "
                 "on the other): memtier loads 50M keys of 2000 bytes into memcached (`-n allkeys "
                 "--key-pattern=P:P -c 1 -t 36 --ratio 1:0 --pipeline 8 -d 2000`); 12 fio jobs stream "
                 "4224 MiB files through mmap (`--ioengine=mmap --rw=read --time_based`, "
                 "`--fadvise_hint=0` disables MADV_SEQUENTIAL) in the background; after 200 s memtier reads "
                 "every key in random order (`--key-pattern=R:R --ratio 0:1`); fio is killed. The metric is "
                 "memcached's ops/sec: rc3 292k/203k (with/without MADV_SEQUENTIAL), rc3+v7 1967k/436k. "
                 "\"Somehow the baseline (rc3) swapped a lot.\" The machine's RAM is not given.")
        o.append("")
        o.append("**Model**: the two generators' traces (`memtier` and `fio`, below) merged like the script: "
                 "the load (%s SETs), then fio alone for 200 s of its rate model (%s I/Os at 12 × 62,500 I/Os/s, "
                 "the per-job rate the `mixed-memcg` generator takes from seed 003), then memtier's %s random "
                 "GETs interleaved with fio at 1.9M requests/s (the seed's best memcached rate) against "
                 "750k I/Os/s, then fio exits. Sizes divided by **%d**: %s keys (%s of slab pages), 12 × %s "
                 "files, swap %s (brd: synchronous), and RAM %s (assumed: **128G** at full size, as seed 003's "
                 "server with the same script and ramdisks; seed 001 only says \"free memory (120GB)\" for its "
                 "next test). Tasks are in memcgs `memcached` and `fio` without limits (global reclaim). "
                 "rc3 = `--policy classic`, rc3+v7 = `--policy mglru`. Ramdisk costs: %s."
                 % (fmt_num(p[0]["memtier_ops"]), fmt_num(p[1]["fio_ios"]), fmt_num(p[2]["memtier_ops"]), N,
                    fmt_num(50000000 // N), human(p[0]["memtier_pages"] * 4096), human(4224 * MIB // N),
                    human(54 * GIB // N), human(128 * GIB // N), fmt_costs(RAMDISK)))
        o.append("")
        kw = self.prep_for(N, True)
        o.append("Generators (the trace files are built by `build_merged()` in repro/reproduce.py; `p1` is the "
                 "prefix that ends where memtier's reads start):")
        o.append("")
        o.append("```sh")
        o.append("./%s workload %s --emit-trace -   # memcached (anon)" % (BIN_REL, shlex.quote(kw["memtier_spec"])))
        o.append("./%s workload %s --emit-trace -   # fio mmap (without MADV_SEQUENTIAL: --fadvise_hint=0)"
                 % (BIN_REL, shlex.quote(kw["fio_spec"])))
        o.append("```")
        o.append("")
        o.append(cmd_block(ctx, [R[k].run for k in ("seq-classic", "seq-classic-p1", "seq-mglru", "seq-mglru-p1",
                                                   "noseq-classic", "noseq-classic-p1", "noseq-mglru", "noseq-mglru-p1")]))
        o.append("")
        o.append(EST_NOTE)
        o.append("")
        o.append(rows_table(rows, "before", "after"))
        o.append("")
        o.append("Swap during memtier's reads (major faults of memcg memcached / pswpin) and pswpout of the whole run:")
        o.append("")
        o.append("| run | memcached major faults | pswpin | pswpout (whole run) |")
        o.append("|---|---:|---:|---:|")
        for tag in ("seq", "noseq"):
            for pol in ("classic", "mglru"):
                mj, si, so = det[(tag, pol)]
                o.append("| %s, %s | %s | %s | %s |" % (pol, "MADV_SEQUENTIAL" if tag == "seq" else "no MADV_SEQUENTIAL",
                                                     fmt_num(mj), fmt_num(si), fmt_num(so)))
        o.append("")
        vs = verdicts(rows)
        if "no" in vs:
            o.append("**Where it differs.** " + self.why(rows, det))
            o.append("")
        o.append(plot(ctx, self.id, "usage", "S1-A: memory use per memcg, MADV_SEQUENTIAL", "MiB",
                      usage_curves([("classic", R["seq-classic"]), ("mglru", R["seq-mglru"])], ["memcached", "fio"])))
        o.append("")
        o.append(plot(ctx, self.id, "swapins", "S1-A: cumulative swap-ins (pswpin)", "pages",
                      [("classic, MADV_SEQUENTIAL", R["seq-classic"], "pswpin"),
                       ("mglru, MADV_SEQUENTIAL", R["seq-mglru"], "pswpin"),
                       ("classic, no MADV_SEQUENTIAL", R["noseq-classic"], "pswpin", 1.0, True),
                       ("mglru, no MADV_SEQUENTIAL", R["noseq-mglru"], "pswpin", 1.0, True)]))
        o.append("")
        o.append(plot(ctx, self.id, "gens", "S1-A: generations of memcg fio (mglru, MADV_SEQUENTIAL)", "pages",
                      gen_curves(R["seq-mglru"], "fio")))
        return "\n".join(o), rows

    def why(self, rows, det):
        t = []
        for r in rows:
            if r["verdict"] == "no":
                t.append("`%s`: model %s against the seed's %s." % (r["what"], r["model_change"], r["seed_change"]))
        t.append("The model's memcached estimate follows its major faults (table above).")
        mc, mm = det[("noseq", "classic")][0], det[("noseq", "mglru")][0]
        if mm > mc:
            t.append("Without the hint MGLRU swaps memcached *more* than the classic LRU here (%s against %s "
                     "major faults): a page fio faults in through a mapping without MADV_SEQUENTIAL counts as "
                     "accessed (`lru_gen_enter_fault`, `vma_has_recency`) and enters the youngest generation, "
                     "level with memcached's hot pages, while the classic LRU starts it on the inactive file "
                     "list; this is Johannes Weiner's objection in the seed (\"trashing the workingset with a "
                     "flood of use-once mmapped pages\", S1:262-297, digest §3.1). The seed's v7 still ran "
                     "memcached 2.15× faster although \"both MGLRU and the baseline swapped a lot\" (S1:755-757): "
                     "that difference is in what each swap-in and each reclaim pass costs (rmap walks of the "
                     "baseline against page-table walks, swap-out clustering), which the cost model charges "
                     "the same for both policies." % (fmt_num(mm), fmt_num(mc)))
        t.append("The machine's RAM (assumed 128G) decides how much of the 110 GB slab fits at all, so the "
                 "size of the ratios is not expected to match, only the direction.")
        return " ".join(t)


@section
class S1B(Section):
    id = "S1-B"
    title = "S1-B — a 200 GB fio mmap stream (no MADV_SEQUENTIAL) and a 40 GB memcached in 120 GB"
    results = ("S1-B",)

    def n(self, ctx):
        return 2048 if ctx.quick else 32

    def prep_kw(self, ctx, N):
        keys = 20000000 // N
        mem, swap = size_str(120 * GIB // N), size_str(40 * GIB // N)
        mt = "memtier:%s && %s;memory=%s,swap=%s,memcg_max=max" % (
            MT_LOAD.format(keys=keys), MT_READ.format(keys=keys), mem, swap)
        fio = "fio:%s;memory=%s,memcg_max=max,rate_iops=250000" % (
            FIO_MMAP.format(jobs=1, size=fio_size(204800 * MIB // N), hint=" --fadvise_hint=0"), mem)
        return dict(out=os.path.join(ctx.work_rel, self.id, "mix.trace"),
                    header=["memory %s" % mem, "swap %s" % swap], memtier_spec=mt, fio_spec=fio,
                    phases=[("fio", 600 * 250000 // N), ("both", keys), ("both", None)],
                    memtier_rate=4500000, fio_rate=250000)

    def plan(self, ctx):
        N = self.n(ctx)
        kw = self.prep_kw(ctx, N)
        preps = [Prep(self.id, "mix", "merged", **kw)]
        runs = []
        for pol in ("classic", "mglru"):
            runs.append(Run(self.id, pol, ("trace", kw["out"]), policy=pol, costs=RAMDISK, ts_ms=20, needs=self.id + "/mix"))
            for i in (0, 1):
                runs.append(Run(self.id, "%s-p%d" % (pol, i), ("trace", kw["out"] + ".p%d" % i), policy=pol,
                                costs=RAMDISK, needs=self.id + "/mix"))
        return preps, runs

    def render(self, ctx, R, P):
        N = self.n(ctx)
        cost = costs_of(RAMDISK)
        ph = P["mix"]["phases"]
        mc, fio, sw = {}, {}, {}
        for pol in ("classic", "mglru"):
            full = R[pol]
            mc[pol] = anon_ops_per_s(ph[2]["memtier_ops"], ph[2]["memtier_pages"], full, R[pol + "-p1"], "memcached", cost)
            ios = ph[1]["fio_ios"] + ph[2]["fio_ios"]
            pages = ph[1]["fio_pages"] + ph[2]["fio_pages"]
            fio[pol] = mmap_ios_per_s(ios, pages, full, R[pol + "-p0"], "fio", cost)
            sw[pol] = (full.vm["pswpout"], full.vm["pswpin"])
        rows = [
            cmp_row("S1-B", "memcached ops/s (rc4 → rc4+v7)", 4716e3, 4307e3, pct(4716e3, 4307e3), mc["classic"][0], mc["mglru"][0]),
            cmp_row("S1-B", "fio (rc4 → rc4+v7)", 232e3, 265e3, pct(232e3, 265e3), fio["classic"][0], fio["mglru"][0]),
            cmp_row("S1-B", "pages swapped out (\"the baseline didn't swap; MGLRU did slightly\")",
                    "0", "> 0", None, sw["classic"][0], sw["mglru"][0], seed_dir="+", seed_change="from 0"),
        ]
        kw = self.prep_kw(ctx, N)
        o = []
        o.append("**Seed** (S1:1706-1755, digest:370-407): `test.sh`: one 256 GiB brd ramdisk with ext4, a 40 GiB "
                 "swapfile on it; one fio job streams a 200 GiB file through mmap without MADV_SEQUENTIAL "
                 "(`--fadvise_hint=0`) and FADV_DONTNEED; after 600 s memtier loads 20M keys of 2000 bytes "
                 "into memcached and then reads them all in random order; \"same free memory (120GB) for 40GB "
                 "memcached and 200GB fio\". rc4: memcached 4716k, fio 232k; rc4+v7: 4307k (-9%), 265k (+14%) "
                 "(units not stated; presumably ops/sec and IOPS). \"The baseline didn't swap this time "
                 "(MGLRU did slightly)\" (S1:1719).")
        o.append("")
        o.append("**Model**: the traces merged like the script: fio alone for 600 s of its rate model (%s I/Os at "
                 "250,000 I/Os/s, assumed from the seed's fio figures of 232k-265k), then the load and the "
                 "reads, each memtier request interleaved with fio at 4.5M requests/s (the seed's memcached "
                 "rate) against 250k I/Os/s; fio exits when the reads end. Sizes divided by **%d**: RAM %s "
                 "(the seed's 120 GB of free memory), a %s file, %s keys, a %s swapfile (not a synchronous "
                 "device: a file on ext4). rc4 = `--policy classic`, rc4+v7 = `--policy mglru`. memcached's "
                 "rate is measured over its reads; fio's over the load and the reads (fio's 600 s ramp ends "
                 "when memtier starts). Ramdisk costs: %s."
                 % (fmt_num(ph[0]["fio_ios"]), N, human(120 * GIB // N), human(204800 * MIB // N),
                    fmt_num(20000000 // N), human(40 * GIB // N), fmt_costs(RAMDISK)))
        o.append("")
        o.append("```sh")
        o.append("./%s workload %s --emit-trace -   # memcached" % (BIN_REL, shlex.quote(kw["memtier_spec"])))
        o.append("./%s workload %s --emit-trace -   # fio mmap" % (BIN_REL, shlex.quote(kw["fio_spec"])))
        o.append("```")
        o.append("")
        o.append(cmd_block(ctx, [R[k].run for k in ("classic", "classic-p0", "classic-p1", "mglru", "mglru-p0", "mglru-p1")]))
        o.append("")
        o.append(EST_NOTE)
        o.append("")
        o.append(rows_table(rows, "rc4", "rc4+v7"))
        o.append("")
        o.append("| run | memcached major faults (reads) | fio major faults (window) | pswpout | pswpin |")
        o.append("|---|---:|---:|---:|---:|")
        for pol in ("classic", "mglru"):
            o.append("| %s | %s | %s | %s | %s |" % (pol, fmt_num(mc[pol][2]), fmt_num(fio[pol][2]),
                                                   fmt_num(sw[pol][0]), fmt_num(sw[pol][1])))
        o.append("")
        if "no" in verdicts(rows):
            t = ["**Where it differs.**"]
            for r in rows:
                if r["verdict"] == "no":
                    t.append("`%s`: model %s against the seed's %s." % (r["what"], r["model_change"], r["seed_change"]))
            t.append("Here memcached's 40 GB fit in the 120 GB with room to spare, so in the model neither "
                     "policy takes more than a handful of major faults from it (table above: %s and %s) and "
                     "fio's stream never waits for the ramdisk in the measured window (readahead stays ahead "
                     "of it: %s and %s major faults), so both per-request estimates stay within noise. The "
                     "seed attributes MGLRU's fio gain to cheaper harvesting of accessed bits (page-table "
                     "walks instead of an rmap walk per page) and memcached's loss to MGLRU having no "
                     "heuristic for streaming mmap access (S1:1709-1717), i.e. to CPU time, which the cost "
                     "model does not charge for reclaim (docs/COST_MODEL.md). Swap: the classic LRU swapped "
                     "out %s pages and MGLRU %s; the seed saw the opposite (\"MGLRU did slightly\"), a "
                     "small effect on either side." % (fmt_num(mc["classic"][2]), fmt_num(mc["mglru"][2]),
                                                       fmt_num(fio["classic"][2]), fmt_num(fio["mglru"][2]),
                                                       fmt_num(sw["classic"][0]), fmt_num(sw["mglru"][0])))
            o.append(" ".join(t))
            o.append("")
        o.append(plot(ctx, self.id, "usage", "S1-B: memory use per memcg", "MiB",
                      usage_curves([("classic", R["classic"]), ("mglru", R["mglru"])], ["memcached", "fio"])))
        o.append("")
        o.append(plot(ctx, self.id, "swap", "S1-B: cumulative pswpout and file refaults", "pages",
                      [("classic: pswpout", R["classic"], "pswpout"), ("mglru: pswpout", R["mglru"], "pswpout"),
                       ("classic: refault_file", R["classic"], "workingset_refault_file", 1.0, True),
                       ("mglru: refault_file", R["mglru"], "workingset_refault_file", 1.0, True)]))
        return "\n".join(o), rows


# ---- S1-C .. S1-F: Barry Song's ebizzy variant ------------------------------

EBIZZY_RSS_K = 2166196   # vanilla's Max RSS in KB (digest:418)
MEM_FACTORS = (95, 100, 105)


class Ebizzy(Section):
    seq = 16
    swap = None            # full-size swap; None = the generator's 2G
    swap_sync = True
    costs = ZRAM
    configs = ()           # (name, label, policy, sysctls)
    kcase = None           # the case of repro/kernel_runs.py that replays this section's program
    ksection = None        # the section whose case it is (None: this section's own)
    # the kernel_runs side of each config
    KSIDE = {"classic": "classic", "0x3": "mglru-0x3", "0x7": "mglru", "mglru": "mglru"}
    # a row's metric on the real kernel: the replayer's guest time (instructions plus timed waits), the
    # kernel's major faults, the workers' stime plus kswapd's CPU time
    KMETRIC = {"elapsed": kernel.guest_seconds, "majflt": kernel.vmstat("pgmajfault"), "sys": kernel.sys_seconds,
               # S1-E's: ebizzy's records/s is its work over its time, so the trace's operations per guest second
               "records": kernel.ops_per_guest_s, "kswapd": kernel.vmstat("pgsteal_kswapd"),
               "direct": kernel.vmstat("pgsteal_direct"),
               "total": lambda r: sum(r["vmstat"].get(k, 0) for k in ("pgmajfault", "pgsteal_kswapd", "pgsteal_direct"))}

    def ksec(self):
        return self.ksection or self.id

    def n(self, ctx):
        return 80 if ctx.quick else 5

    def spec(self, N, f):
        mem = EBIZZY_RSS_K * 1024 * f // 100 // N
        s = "ebizzy:seq=%d,scale=%d,memory=%s" % (self.seq, N, size_str(mem))
        if self.swap is not None:
            s += ",swap=%s,swap_sync=%s" % (size_str(self.swap // N), "y" if self.swap_sync else "n")
        return s

    def plan(self, ctx):
        N = self.n(ctx)
        runs = []
        for f in MEM_FACTORS:
            for name, _, pol, sysctls in self.configs:
                runs.append(Run(self.id, "%s-m%d" % (name, f), ("workload", self.spec(N, f)), policy=pol,
                                sysctls=sysctls, costs=self.costs, ts_ms=50 if f == 100 else None))
        # The model on the trace the real kernel ran (repro/kernel_runs.py), with the memory the guest had
        # free when the workload began.
        self.kc = None
        if self.kcase and not ctx.quick:
            kc = kernel.load_case(self.ksec(), self.kcase)
            if kc is not None and kc.runs:
                self.kc = kc
                tr = kc.guest_trace(os.path.join(ctx.work_rel, self.id))   # the measured trace with the guest's root fs
                for name, _, pol, sysctls in self.configs:
                    runs.append(Run(self.id, "guest-%s" % name, ("trace", tr), policy=pol, sysctls=sysctls,
                                    costs=self.costs, start_zones=kc.machine(os.path.join(ctx.work_rel, self.id)), ts_ms=50))
                    # and with its clock following each kernel run of that side (--guest-clock, as `mglru
                    # validate` runs the reference suite): the counters without the model's own clock, which
                    # is several times faster than the guest's on this program (the notes below)
                    for n, res in sorted(kc.runs.items()):
                        if self.KSIDE[name] in res:
                            gc = kernel.unpacked_result(kc, n, self.KSIDE[name], os.path.join(ctx.work_rel, self.id))
                            runs.append(Run(self.id, "guest-%s-clock%d" % (name, n), ("trace", tr), policy=pol,
                                            sysctls=sysctls, costs=self.costs, start_zones=kc.machine(os.path.join(ctx.work_rel, self.id)),
                                            guest_clock=gc))
        return [], runs

    def kernel_fill(self, ctx, rows, R, which, device_note=""):
        """The real kernel's columns of the rows: which = [(row index, before config, after config,
        metric)]. Returns the paragraph that says what was measured, its table and a plot of the swap-ins
        of every kernel run beside the model's run of the same trace."""
        kc = getattr(self, "kc", None)
        if kc is None:
            return ("**On the real kernel**: not measured yet (`python3 repro/kernel_runs.py --only %s`; "
                    "docs/REPRODUCTIONS-KERNEL.md)." % self.ksec())
        lines = []
        for i, b, a, met in which:
            r = rows[i]
            kch = kernel.kernel_change(kc, self.KSIDE[b], self.KSIDE[a], self.KMETRIC[met])
            if met in self.COUNTERS:
                # an event counter: the model on each kernel run's clock, run N of one side against run N of
                # the other (the time rows keep the model's own clock, which --guest-clock replaces)
                bs = [self.metrics(x)[met] for x in self.clock_runs(R, b)]
                as_ = [self.metrics(x)[met] for x in self.clock_runs(R, a)]
                mg = statistics.median(pct(x, y) for x, y in zip(bs, as_))
                mb, ma = statistics.median(bs), statistics.median(as_)
                clock = " (guest's clock, median of %d)" % len(bs)
            else:
                mb, ma = self.metrics(R["guest-%s" % b])[met], self.metrics(R["guest-%s" % a])[met]
                mg = pct(mb, ma)
                clock = ""
            kernel_row(r, kch, mg, kernel.verdict_kernel(mg, kch))
            per = lambda xs: ", ".join(fmt_num(round(x, 2) if isinstance(x, float) else x) for x in xs)
            lines.append("| %s | %s | %s | %s | %s | %s → %s%s | %s |" % (
                r["what"], "%s → %s" % (b, a), per(kch["before"]) if kch else "–", per(kch["after"]) if kch else "–",
                kernel.fmt_kernel(kch), fmt_num(round(mb, 2) if isinstance(mb, float) else mb),
                fmt_num(round(ma, 2) if isinstance(ma, float) else ma), clock, fmt_pct(mg)))
        sides = ", ".join("%s = `lru_gen/enabled` %s" % (s["name"], "0" if s["mode"] == "classic" else
                                                          "0x0007" if s["mode"] == "mglru" else s["mode"])
                          for s in kc.meta["sides"])
        pswpin = lambda side: ", ".join(fmt_num(v) for v in kc.values(side, kernel.vmstat("pswpin")))
        o = ["**On the real kernel** (Debian 6.12.117; %s; docs/REPRODUCTIONS-KERNEL.md): the program at guest "
             "scale, `%s` (%s lines; %s), replayed by `python3 repro/kernel_runs.py --only %s` into "
             "`validation/results-repro/%s/`, under `--icount 0`; the guest gets %d MiB, the model runs the same "
             "trace on %s. Elapsed is the replayer's "
             "guest time (instructions plus timed waits), sys time the workers' stime plus kswapd's CPU time "
             "(guest seconds); the model's are its simulated task time and its charged system time. The "
             "replayer runs ebizzy's four threads as one task, in the trace's order. Run N of each side is "
             "paired with run N of the other. The rows of event counters (major faults, pages stolen) take the "
             "model on each kernel run's clock (`--guest-clock`: the run's time profile, as `mglru validate` runs "
             "the reference suite), run N of one side against run N of the other, median of the pairs: the "
             "model's own clock runs several times faster than the guest's on this program (docs/FIDELITY.md, "
             "\"The seeds' workloads at the guest's scale\"), and time-driven mechanisms (statistics flushes, "
             "the refault test that reads them) follow it; the time rows keep the model's own clock, where the "
             "model's reclaim costs a fraction of the guest's CPU time and so its elapsed follows the major faults "
             "alone (docs/FIDELITY.md, \"The time rows of S1-C, S1-D and S1-E\").%s"
             % (sides, kc.meta["spec"], fmt_num(kc.meta["trace_lines"]),
                "swap replaced by `%s`: zram, its pages at the replayer's lz4 ratio" % kc.meta["swap"] if kc.meta.get("swap") else "",
                self.ksec(), self.ksec(), kc.meta["guest_memory_mib"], kc.machine_text(),
                device_note),
             "",
             "| result | comparison | kernel before per run | kernel after per run | kernel change | model (same trace) | model change |",
             "|---|---|---:|---:|---:|---:|---:|"] + lines
        o += ["", "Swap-ins (pswpin) per kernel run: %s; the model on the same trace: %s." % (
            "; ".join("%s %s" % (s["name"], pswpin(s["name"])) for s in kc.meta["sides"]),
            "; ".join("%s %s" % (name, fmt_num(R["guest-%s" % name].vm["pswpin"])) for name, _, _, _ in self.configs))]
        o += ["", kernel.plot_against_kernel(
            ctx, self.id, "kernel-swapins", "%s at guest scale: cumulative swap-ins (pswpin), real 6.12 and the model"
            % self.id, "pages", kc, [(self.KSIDE[name], lab) for name, lab, _, _ in self.configs],
            [(lab, R["guest-%s" % name]) for name, lab, _, _ in self.configs], "pswpin")]
        return "\n".join(o)

    # the rows' event counters (the model's change from its runs on each kernel run's clock)
    COUNTERS = ("majflt", "kswapd", "direct", "total")

    def clock_runs(self, R, name):
        """The model's runs of the guest trace with the clock of each kernel run of that side, in run order."""
        keys = [k for k in R if k.startswith("guest-%s-clock" % name)]
        return [R[k] for k in sorted(keys, key=lambda k: int(k.rsplit("clock", 1)[1]))]

    def clock_values(self, R, name, counter):
        """A counter of the model's runs on the guest trace with the clock of each kernel run of that side."""
        return [x.vm[counter] for x in self.clock_runs(R, name)]

    def evict_note(self, R, rows):
        """Swap-outs of the model's runs on the guest trace beside the kernel's, where a row disagrees with the
        kernel: on the model's own clock and on each kernel run's, over the trace (the first tenth: the chunks'
        first touch and the first loops; each later tenth: the loops' steady state), from the kernel runs'
        vmstat_profile (trace line reached) and the model's time series (page accesses done)."""
        kc = getattr(self, "kc", None)
        if kc is None or not any(r.get("verdict_kernel") == "no" for r in rows):
            return ""
        total = kc.meta["trace_lines"]

        def kernel_split(r):
            vp = r["vmstat_profile"]
            y = vp["counters"]["pswpout"]
            at = lambda f: y[max([i for i, ln in enumerate(vp["lines"]) if ln <= f * total] or [0])] - y[0]
            return at(0.1), (at(1.0) - at(0.1)) / 9

        def model_split(res):
            ts = res.ts
            end = ts[-1]["page_accesses"]
            at = lambda f: [t for t in ts if t["page_accesses"] <= f * end][-1]["pswpout"]
            return at(0.1), (res.vm["pswpout"] - at(0.1)) / 9
        rng = lambda xs: "%s–%s" % (fmt_num(round(min(xs))), fmt_num(round(max(xs))))
        parts = []
        for name, lab, pol, _ in self.configs:
            side = self.KSIDE[name]
            ks = [kernel_split(r) for r in kc.values(side, lambda r: r)]
            ms = model_split(R["guest-%s" % name])
            parts.append("%s: kernel %s (%s in the first tenth, %s per later tenth), the model %s on its own clock "
                         "(%s and %s) and %s on the kernel runs' clocks" % (
                             lab, rng(kc.values(side, kernel.vmstat("pswpout"))), rng([k[0] for k in ks]),
                             rng([k[1] for k in ks]), fmt_num(R["guest-%s" % name].vm["pswpout"]),
                             fmt_num(round(ms[0])), fmt_num(round(ms[1])),
                             rng(self.clock_values(R, name, "pswpout"))))
        med = lambda xs: statistics.median(xs)
        base = self.configs[0][0]
        kmed = lambda name: med(kc.values(self.KSIDE[name], kernel.vmstat("pswpout")))
        ratios = ", ".join("%s %.2f× (the model %.2f× on its own clock, %.2f× on the kernel's)" % (
            lab, kmed(name) / kmed(base),
            R["guest-%s" % name].vm["pswpout"] / max(1, R["guest-%s" % base].vm["pswpout"]),
            med(self.clock_values(R, name, "pswpout")) / max(1, med(self.clock_values(R, base, "pswpout"))))
            for name, lab, _, _ in self.configs[1:])
        return ("**Model vs real kernel: swap-outs.** On the same trace and the guest's machine: %s. Against the "
                "classic LRU's (medians): %s. Nearly every page swapped out comes back (swap-ins above), so the "
                "major faults, elapsed and system time follow these. What the model's run must share with the "
                "guest for its counters to be the kernel's (its zones, its root file system, its clock) is in "
                "docs/FIDELITY.md, \"The seeds' workloads at the guest's scale\"; the time rows also carry the "
                "cost model's charges (reclaim's CPU, a swap-in's `swap_read`), which no guest run measures."
                % ("; ".join(parts), ratios))

    def oom_guard(self, R, rows):
        """Rows are void if a run was OOM-killed (ebizzy never finished)."""
        bad = sorted(k for k, r in R.items() if r.vm["oom_kill"] and k.endswith("-m100"))
        if not bad:
            return ""
        for r in rows:
            if r["verdict"] != "n.a.":
                r["verdict"] = "no"
        return ("**OOM.** The model OOM-killed ebizzy in %s, so those runs did not complete and their "
                "numbers do not measure the workload; the verdicts are *no*. " % ", ".join("`%s`" % k for k in bad))

    def metrics(self, res):
        cpu = res.json["cpu"]
        sys_ns = sum(t["stime_ns"] for t in cpu["tasks"].values()) + cpu["kswapd_ns"]
        return {"elapsed": res.sim["task_ns"] / 1e9, "majflt": res.vm["pgmajfault"],
                "sys": sys_ns / 1e9,
                "records": res.throughput, "kswapd": res.vm["pgsteal_kswapd"],
                "direct": res.vm["pgsteal_direct"],
                "total": res.vm["pgmajfault"] + res.vm["pgsteal_kswapd"] + res.vm["pgsteal_direct"]}

    def setup_text(self, ctx):
        N = self.n(ctx)
        return ("**Model**: `ebizzy:seq=%d` (docs/WORKLOADS.md 3.5: 10 chunks, 4 threads × 160 loops, the "
                "seed's chunk sequence) with chunk size, swap and RAM divided by **%d**. RAM is **assumed** "
                "to be what the program could use, not the 2.5 GB installed: the seed's Max RSS of the vanilla "
                "run, 2,166,196 KB (digest:418); the kernel, the rest of the system and (for zram and the "
                "ramdisk) the swap device's own pages take the remainder, and the model has none of them. "
                "Because the result is sensitive to that choice, the runs are repeated at 95%% and 105%% of it "
                "(table below; the verdict uses 100%%). Elapsed time is the model's simulated task time "
                "(ebizzy never sleeps), records/s its throughput estimate. Swap costs: %s."
                % (self.seq, N, fmt_costs(self.costs)))

    def sens_table(self, R, metric_names):
        o = ["| RAM (of Max RSS) | " + " | ".join("%s %s" % (lab, m) for _, lab, _, _ in self.configs for m in metric_names) + " |",
             "|---|" + "---:|" * (len(self.configs) * len(metric_names))]
        for f in MEM_FACTORS:
            cells = []
            for name, _, _, _ in self.configs:
                m = self.metrics(R["%s-m%d" % (name, f)])
                for k in metric_names:
                    cells.append(fmt_num(round(m[k], 2) if isinstance(m[k], float) else m[k]))
            o.append("| %d%% | %s |" % (f, " | ".join(cells)))
        return "\n".join(o)

    def plots(self, ctx, R):
        pairs = [(lab, R["%s-m100" % name]) for name, lab, _, _ in self.configs]
        o = [plot(ctx, self.id, "swapins", "%s: cumulative swap-ins (major faults)" % self.id, "pages",
                  [(lab, r, "pswpin") for lab, r in pairs])]
        mg = [r for (name, lab, pol, sc), (_, r) in zip(self.configs, pairs) if pol != "classic"]
        if mg:
            o.append(plot(ctx, self.id, "gens", "%s: MGLRU generation sizes (anon), %s" % (self.id, self.configs[1][1]),
                          "pages", gen_curves(mg[0], "root", "anon")))
        return "\n\n".join(o)

    def page(self, ctx, R, rows, seed, setup_extra, why, table_labels=(),
             sens_intro="Sensitivity to the assumed RAM:", sens_metrics=("elapsed", "majflt"), tail=()):
        """The section's text, the same for every ebizzy section: the seed, the model's setup, the
        commands, the comparison, the sensitivity to the assumed RAM, the OOM note, "Where it
        differs" when a verdict is no (`why()` is called after the OOM guard, which may turn
        verdicts to no), `tail` paragraphs, the plots."""
        guard = self.oom_guard(R, rows)
        o = [seed, "", self.setup_text(ctx) + setup_extra, "",
             cmd_block(ctx, [R["%s-m100" % c[0]].run for c in self.configs]), "",
             rows_table(rows, *table_labels), "", sens_intro, "", self.sens_table(R, sens_metrics), ""]
        if guard:
            o += [guard, ""]
        if "no" in verdicts(rows):
            o += ["**Where it differs.** " + why(), ""]
        o += list(tail)
        o.append(self.plots(ctx, R))
        return "\n".join(o), rows


MGLRU_0x3 = ("0x3", "MGLRU 0x3", None, ["lru_gen.enabled=0x3"])
MGLRU_0x7 = ("0x7", "MGLRU 0x7", "mglru", [])
CLASSIC = ("classic", "classic", "classic", [])


@section
class S1C(Ebizzy):
    id = "S1-C"
    title = "S1-C — ebizzy, 16-entry repeating chunk sequence, zram (Barry Song)"
    results = ("S1-C",)
    seq = 16
    configs = (CLASSIC, MGLRU_0x3, MGLRU_0x7)
    kcase = "ebizzy-seq16"

    def render(self, ctx, R, P):
        m = {name: self.metrics(R["%s-m100" % name]) for name, _, _, _ in self.configs}
        rows = [
            cmp_row("S1-C", "elapsed (s), vanilla → 0x3", 71.59, 82.46, 15.18, m["classic"]["elapsed"], m["0x3"]["elapsed"]),
            cmp_row("S1-C", "major faults, vanilla → 0x3", 9990128, 13362810, 33.76, m["classic"]["majflt"], m["0x3"]["majflt"]),
            cmp_row("S1-C", "elapsed (s), vanilla → 0x7", 71.59, 76.00, 6.16, m["classic"]["elapsed"], m["0x7"]["elapsed"]),
            cmp_row("S1-C", "major faults, vanilla → 0x7", 9990128, 12706512, 27.19, m["classic"]["majflt"], m["0x7"]["majflt"]),
            cmp_row("S1-C", "elapsed (s), 0x3 → 0x7 (\"better than 0x3, worse than vanilla\")", 82.46, 76.00,
                    pct(82.46, 76.00), m["0x3"]["elapsed"], m["0x7"]["elapsed"]),
            cmp_row("S1-C", "sys time (s), vanilla → 0x3", 229.72, 276.07, pct(229.72, 276.07), m["classic"]["sys"], m["0x3"]["sys"]),
        ]
        seed = ("**Seed** (S1:4364-4464, digest:409-426): x86, RAM limited to 2.5 GB, 2 GB zram, no disk swap; "
                "Barry Song's ebizzy variant `\\time -v ./a.out -vv -t 4 -s 209715200 -S 6000000` (10 chunks "
                "of 200 MB, 4 threads, 160 loops each: pick a chunk from the repeating sequence "
                "`{2,2,3,4,5,2,6,7,9,2,8,3,7,2,2,4}`, copy it into a fresh allocation, bsearch the copy, "
                "free it). vanilla: 1:11.59 elapsed, 9,990,128 major faults; MGLRU `enabled=0x3`: 1:22.46, "
                "13,362,810; `enabled=0x7`: 1:16.00, 12,706,512.")

        def why():
            extra = ""
            if rows[4]["verdict"] == "no":
                extra = (" 0x3 and 0x7 differ in how aging finds accessed pages: 0x7 adds the page-table walk "
                         "(0x2) and non-leaf PMD accessed bits (0x4), 0x3 relies on the rmap walk with "
                         "look-around during eviction. For one process whose pages are all found young either "
                         "way the model's choice of pages barely changes (majflt %s against %s); the seed's "
                         "difference is the CPU time of the two ways of scanning, which the model does not "
                         "charge." % (fmt_num(m["0x7"]["majflt"]), fmt_num(m["0x3"]["majflt"])))
            return ebizzy_why(rows) + extra
        ktext = self.kernel_fill(ctx, rows, R, [(0, "classic", "0x3", "elapsed"), (1, "classic", "0x3", "majflt"),
                                           (2, "classic", "0x7", "elapsed"), (3, "classic", "0x7", "majflt"),
                                           (4, "0x3", "0x7", "elapsed"), (5, "classic", "0x3", "sys")])
        return self.page(ctx, R, rows, seed,
                         " vanilla = `--policy classic`; `enabled=0x3` = `--sysctl "
                         "lru_gen.enabled=0x3` (no page-table walks for aging); `enabled=0x7` = `--policy mglru`.",
                         why, sens_intro="Sensitivity to the assumed RAM (same runs at 95% and 105%):",
                         tail=(ktext, "", self.evict_note(R, rows), ""))


def ebizzy_why(rows, device="zram"):
    t = []
    for r in rows:
        if r["verdict"] == "no":
            t.append("`%s`: model %s against the seed's %s." % (r["what"], r["model_change"], r["seed_change"]))
    t.append("In the model elapsed time is the sum of per-page costs (memory accesses, minor faults, and "
             "`swap_read` per major fault), so more major faults always mean more time.")
    if any(r["what"].startswith("sys time") and r["verdict"] == "no" for r in rows):
        t.append("System time in the model is what the cost model charges as such: minor faults (also the "
                 "fault that maps a swapped-in page), swap-ins from the synchronous device (`swap_read` each: "
                 "the driver copies or decompresses in the faulting task), and reclaim's steps by the task "
                 "and by kswapd (pages scanned, rmap walks, page-table entries, pageouts, lruvec visits: "
                 "docs/COST_MODEL.md), so the policy with more major faults has more system time; lru_lock "
                 "hold times and waits are not charged.")
    if device == "zram":
        t.append("The seed's elapsed time also contains the CPU time of zram compression at swap-out "
                 "(Barry's profile: LZ4 compression and decompression take about 40% of the cycles, "
                 "S1:6040-6084), which the cost model does not charge (a swap-in's `swap_read` stands for the "
                 "decompression), and zram's compressed pool takes RAM "
                 "as pages are swapped out, which the model does not simulate (swap takes no RAM in the "
                 "model).")
    else:
        t.append("The seed's time also contains reclaim's own CPU time, which the cost model does not charge, "
                 "and on a %s the cost of a swap-in depends on clustering and on writes competing with reads "
                 "(Yu: an LRU that \"picks a cluster of cold pages that later would be faulted in together\" "
                 "has the advantage, S1:6130-6153), which a fixed per-page `swap_read` does not capture."
                 % ("ramdisk" if device == "ramdisk" else "slow MMC card"))
    t.append("The number of major faults depends strongly on how much RAM the program really had (the "
             "sensitivity table), which the seed does not state.")
    return " ".join(t)


@section
class S1D(Ebizzy):
    id = "S1-D"
    title = "S1-D — ebizzy with Yu Zhao's 160-entry random sequence"
    results = ("S1-D",)
    seq = 160
    configs = (CLASSIC, ("mglru", "MGLRU", "mglru", []))
    kcase = "ebizzy-seq160"

    def render(self, ctx, R, P):
        m = {name: self.metrics(R["%s-m100" % name]) for name, _, _, _ in self.configs}
        rows = [
            cmp_row("S1-D", "elapsed (s), vanilla → MGLRU", 75.55, 70.23, -7.04, m["classic"]["elapsed"], m["mglru"]["elapsed"]),
            cmp_row("S1-D", "major faults, vanilla → MGLRU", 10002206, 10977244, 9.75, m["classic"]["majflt"], m["mglru"]["majflt"]),
            cmp_row("S1-D", "Yu: \"MGLRU is ~20% faster\" (Snapdragon 7c, 2.5G, 2 GB zram; elapsed)", None, None,
                    None, m["classic"]["elapsed"], m["mglru"]["elapsed"], seed_dir="-", seed_change="≈ -20% time"),
            cmp_row("S1-D", "sys time (s), vanilla → MGLRU", 248.18, 227.19, pct(248.18, 227.19), m["classic"]["sys"], m["mglru"]["sys"]),
        ]
        seed = ("**Seed** (S1:5586-5653, digest:428-440): the same machine and program with Yu Zhao's "
                "`rand[160]` sequence (same proportions, random positions; S1:5186-5206), `./mt.out -t 4 -s "
                "209715200 -S 600000 -m`. VANILLA: 1:15.55 elapsed, 10,002,206 major faults; MGLRU: 1:10.23, "
                "10,977,244 — \"mglru can be faster than vanilla even with more page faults\". Yu's own "
                "run of this sequence \"shows MGLRU is ~20% faster\" (S1:5183-5184), without raw numbers.")
        return self.page(ctx, R, rows, seed,
                         " VANILLA = `--policy classic`, MGLRU = `--policy mglru` (the seed "
                         "does not give `enabled` for this run; 0x7 is the default).",
                         lambda: ebizzy_why(rows) + " The seed's result is the combination *more* "
                         "major faults yet *less* time: it comes from cheaper reclaim CPU (Barry: less time in "
                         "spinlocks, rmap walks and `isolate_lru_pages`, S1:6040-6091), which a model that charges "
                         "reclaim the same per page scanned under both LRUs cannot show; in the model more "
                         "faults always mean more time.",
                         tail=(self.kernel_fill(ctx, rows, R, [(0, "classic", "mglru", "elapsed"),
                                                          (1, "classic", "mglru", "majflt"),
                                                          (2, "classic", "mglru", "elapsed"),
                                                          (3, "classic", "mglru", "sys")]),
                               "", self.majflt_note(R, rows), ""))

    def majflt_note(self, R, rows):
        """Where the model and the real kernel disagree on the major faults: the counters of both on the same
        trace, the model on its own clock and on each kernel run's (--guest-clock)."""
        if getattr(self, "kc", None) is None or rows[1].get("verdict_kernel") != "no":
            return ""
        kc, mc = self.kc, R["guest-classic"].vm
        k = lambda side, name: ", ".join(fmt_num(v) for v in kc.values(side, kernel.vmstat(name)))
        c = lambda name, counter: ", ".join(fmt_num(v) for v in self.clock_values(R, name, counter))
        chg = [pct(b, a) for b, a in zip(self.clock_values(R, "classic", "pgmajfault"),
                                         self.clock_values(R, "mglru", "pgmajfault"))]
        return ("**Model vs real kernel, major faults.** Classic LRU on the same trace and machine: the kernel "
                "swaps out %s pages, takes %s major faults and activates %s of its %s anon refaults; the model on "
                "its own clock (%.2f s of simulated time, the guests %s guest s) %s, %s, %s of %s; on each kernel "
                "run's clock %s, %s, %s of %s. MGLRU: the kernel %s major faults, the model %s on its own clock "
                "and %s on the kernel runs' (classic → MGLRU %s per run). The activations follow the clock (the "
                "refault test's workingset size is read as of the last statistics flush), and whether a swap-in "
                "is a refault follows the guest's root file system, which the model's machine lacks: "
                "docs/FIDELITY.md, \"The seeds' workloads at the guest's scale\"." % (
                    k("classic", "pswpout"), k("classic", "pgmajfault"), k("classic", "workingset_activate_anon"),
                    k("classic", "workingset_refault_anon"), R["guest-classic"].sim["task_ns"] / 1e9,
                    ", ".join("%.1f" % v for v in kc.values("classic", kernel.guest_seconds)),
                    fmt_num(mc["pswpout"]), fmt_num(mc["pgmajfault"]), fmt_num(mc["workingset_activate_anon"]),
                    fmt_num(mc["workingset_refault_anon"]), c("classic", "pswpout"), c("classic", "pgmajfault"),
                    c("classic", "workingset_activate_anon"), c("classic", "workingset_refault_anon"),
                    k("mglru", "pgmajfault"), fmt_num(R["guest-mglru"].vm["pgmajfault"]), c("mglru", "pgmajfault"),
                    ", ".join(fmt_pct(x) for x in chg)))


@section
class S1E(Ebizzy):
    id = "S1-E"
    title = "S1-E — Yu Zhao's rerun of the original (16-entry) program with ramdisk swap"
    results = ("S1-E",)
    seq = 16
    swap = 1536 * MIB
    swap_sync = True
    costs = [("swap_read", 5000)]
    configs = (CLASSIC, MGLRU_0x3)
    # On the real kernel: S1-C's case (the same program at the same guest scale, classic and 0x3) stands
    # for the seed's ramdisk (docs/REPRODUCTIONS-KERNEL.md): the seed's 1.5 GB brd was filled by `dd`
    # before the run, so a swap-out frees a page; the guest's brd allocates a page for every slot written,
    # so a swap-out there frees nothing, while zram at the replayer's ratio (120) frees almost the page.
    kcase = "ebizzy-seq16"
    ksection = "S1-C"
    DEVICE_NOTE = (" **The guest's swap is zram, not a ramdisk**: these are S1-C's classic and 0x3 runs (the same "
                   "program and scale). The seed's 1.5 GB brd was written by `dd` before the run, so its pages "
                   "existed and a swap-out freed RAM; the guest's brd allocates a page for each slot written "
                   "(`swap ... ram=y`), so a swap-out to it frees nothing and ebizzy cannot be relieved by swap, "
                   "while zram at the replayer's lz4 ratio (about 120) frees almost the whole page, as the "
                   "seed's filled ramdisk did. Both devices are synchronous (`SWP_SYNCHRONOUS_IO`); the "
                   "difference left is a swap-in's copy against its decompression. The model's column is the "
                   "model with this section's costs (`swap_read` 5 µs) on that trace.")

    def render(self, ctx, R, P):
        m = {name: self.metrics(R["%s-m100" % name]) for name, _, _, _ in self.configs}
        b, a = m["classic"], m["0x3"]
        rows = [
            cmp_row("S1-E", "records/s", 10, 11, 10.0, b["records"], a["records"]),
            cmp_row("S1-E", "real (s)", 59.0, 57.0, pct(59.0, 57.0), b["elapsed"], a["elapsed"]),
            cmp_row("S1-E", "majfault", 4745116, 5762213, pct(4745116, 5762213), b["majflt"], a["majflt"]),
            cmp_row("S1-E", "pgsteal_kswapd", 3056793, 2098253, pct(3056793, 2098253), b["kswapd"], a["kswapd"]),
            cmp_row("S1-E", "pgsteal_direct", 3701969, 4068193, pct(3701969, 4068193), b["direct"], a["direct"]),
            cmp_row("S1-E", "majfault + pgsteal_kswapd + pgsteal_direct", 11503878, 11928659, pct(11503878, 11928659),
                    b["total"], a["total"]),
        ]
        seed = ("**Seed** (S1:6155-6243, 6583-6593; digest:442-464): Snapdragon 7c, 2.5 GB RAM, a 1.5 GB brd "
                "ramdisk as the only swap, `lru_gen/enabled` = 0x0003, THP never; `./test_gnu_64 -t 4 -s "
                "$((200*1024*1024)) -S 6000000` (Barry's original program, 16-entry sequence). Baseline "
                "5.17-rc8: 10 records/s, 59 s real; MGLRU v9: 11 records/s, 57 s (\"found no regressions\"), "
                "with the counters below.")
        return self.page(ctx, R, rows, seed,
                         " Swap: a synchronous %s ramdisk (1.5 GB / N). Baseline = `--policy "
                         "classic`, MGLRU = `--sysctl lru_gen.enabled=0x3`." % human(self.swap // self.n(ctx)),
                         lambda: ebizzy_why(rows, "ramdisk") + " The kswapd/direct split depends on how fast "
                         "the four threads allocate relative to kswapd, i.e. on CPU timing: in the model kswapd runs "
                         "`balance_pgdat` to completion when it is woken, as if on its own idle CPU, and its work takes "
                         "no simulated time (docs/FIDELITY.md, simplification 2), so allocations do not outrun it and "
                         "direct reclaim stays at 0 here; all reclaim is counted as kswapd's, which is why the model's "
                         "pgsteal_kswapd follows its major faults. The ramdisk's own RAM (1.5 GB, "
                         "preallocated by `dd`) is not taken from the model's RAM.",
                         table_labels=("baseline", "MGLRU"), sens_metrics=("elapsed", "majflt", "kswapd", "direct"),
                         tail=(self.kernel_fill(ctx, rows, R, [(i, "classic", "0x3", met) for i, met in enumerate(
                             ("records", "elapsed", "majflt", "kswapd", "direct", "total"))], self.DEVICE_NOTE), "",
                               self.evict_note(R, [r for i, r in enumerate(rows) if i in (0, 1)]), "",
                               self.split_note(rows, R), ""))

    def split_note(self, rows, R):
        """The kswapd/direct split where the model and the real kernel disagree on it."""
        if getattr(self, "kc", None) is None:
            return ""
        kc = self.kc
        k = lambda side, name: ", ".join(fmt_num(v) for v in kc.values(side, kernel.vmstat(name)))
        g = lambda name, c: fmt_num(R["guest-%s" % name].vm[c])
        return ("**Model vs real kernel, kswapd against direct reclaim.** On the guest both LRUs reclaim mostly "
                "in direct reclaim (pgsteal_direct classic %s, 0x3 %s; pgsteal_kswapd %s and %s; allocstall_movable "
                "%s and %s); the model on the same trace reclaims %s (classic) and %s (0x3) pages in direct "
                "reclaim and %s and %s by kswapd (on the kernel runs' clocks: direct %s and %s). The model's kswapd runs `balance_pgdat` to completion at each "
                "wakeup in no simulated time (docs/FIDELITY.md, simplification 2), so an allocating task never "
                "outruns it: the split of the model is not the kernel's, whatever the policy."
                % (k("classic", "pgsteal_direct"), k("mglru-0x3", "pgsteal_direct"), k("classic", "pgsteal_kswapd"),
                   k("mglru-0x3", "pgsteal_kswapd"), k("classic", "allocstall_movable"),
                   k("mglru-0x3", "allocstall_movable"), g("classic", "pgsteal_direct"), g("0x3", "pgsteal_direct"),
                   g("classic", "pgsteal_kswapd"), g("0x3", "pgsteal_kswapd"),
                   ", ".join(fmt_num(v) for v in self.clock_values(R, "classic", "pgsteal_direct")),
                   ", ".join(fmt_num(v) for v in self.clock_values(R, "0x3", "pgsteal_direct"))))


@section
class S1F(Ebizzy):
    id = "S1-F"
    title = "S1-F — the same program swapping to a slow MMC card"
    results = ("S1-F",)
    seq = 16
    swap = 2 * GIB
    swap_sync = True
    costs = MMC
    configs = (CLASSIC, MGLRU_0x3)

    def render(self, ctx, R, P):
        m = {name: self.metrics(R["%s-m100" % name]) for name, _, _, _ in self.configs}
        rows = [
            cmp_row("S1-F", "real (s), THP=never", 872.0, 821.0, pct(872.0, 821.0), m["classic"]["elapsed"], m["0x3"]["elapsed"]),
            na_row("S1-F", "real (s), THP=madvise", 1341.0, 1315.0, fmt_pct(pct(1341.0, 1315.0)), "not modelled: no THP"),
        ]
        seed = ("**Seed** (S1:6825-6911, digest:466-473): Yu's rerun with swap on a SanDisk-Toshiba DA4064 MMC "
                "(2006). Baseline + THP=never: 872 s real; MGLRU + THP=never: 821 s (-5.8%); with "
                "THP=madvise: 1341 s vs 1315 s (-1.9%). All runs report 0 records/s.")
        return self.page(ctx, R, rows, seed,
                         " Swap: %s (2 GB / N; the seed does not give the size) with an "
                         "**assumed** MMC read cost of 200 µs per page. The device is modelled as synchronous "
                         "(`swap_sync=y`: writes complete at once), a simplification: with an asynchronous 2G/N device "
                         "(`swap_sync=n`) the model OOM-kills ebizzy in both policies within the first 60 ms of simulated "
                         "time with its swap full, and in a trial at 1/10 scale with a 4 GB/10 device the MGLRU run had "
                         "not finished after 15 minutes of CPU; both are problems of the model, not results. Baseline = `--policy classic`, MGLRU = "
                         "`--sysctl lru_gen.enabled=0x3` (as in S1-E)." % human(self.swap // self.n(ctx)),
                         lambda: ebizzy_why(rows, "mmc"), table_labels=("baseline", "MGLRU"),
                         tail=("THP is not modelled (docs/FIDELITY.md), so the THP=madvise row has no model counterpart.", ""))
