# SPDX-License-Identifier: GPL-2.0-only
"""The real kernel's side of the reproductions (issue 32): reading validation/results-repro/ (written
by repro/kernel_runs.py), the kernel's change per run and over the runs (median, range), and the
verdict "model vs real kernel".

A comparison pairs run N of the "before" side with run N of the "after" side (the sides of one run
were measured one after the other), so a case with three runs of each side gives three changes.
The kernel's direction is taken from all of them:

- all changes above +TOL %: "+"; all below -TOL %: "-" (a direction beyond the kernel's spread);
- otherwise "0": no change the runs can tell apart from their spread (they straddle zero, or all
  lie within ±TOL %).

"model vs real kernel" is *yes* when the model's change at the guest's scale has the kernel's
direction, or, where the kernel's direction is "0", when the model's change lies within the
kernel's range widened to ±TOL %; *no* otherwise; *pending* with fewer than MIN_RUNS pairs.
"""

import gzip
import json
import os
import statistics

from plumbing import ROOT, TOL, fmt_pct, pct, sign

RESULTS_REL = os.path.join("validation", "results-repro")
MIN_RUNS = 3


def results_dir(root=ROOT):
    return os.path.join(root, RESULTS_REL)


def load_json(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


class KernelCase:
    """One case of validation/results-repro/SECTION/CASE: its case.json and its runs."""

    def __init__(self, section, case, root=ROOT):
        self.section, self.case = section, case
        self.dir = os.path.join(results_dir(root), section, case)
        self.meta = load_json(os.path.join(self.dir, "case.json"))
        self.runs = {}            # run number -> {side: result}
        for d in sorted(os.listdir(self.dir)):
            if not (d.startswith("run") and d[3:].isdigit()):
                continue
            n = int(d[3:])
            for fn in sorted(os.listdir(os.path.join(self.dir, d))):
                if fn.endswith(".json.gz") or fn.endswith(".json"):
                    side = fn.split(".json")[0]
                    self.runs.setdefault(n, {})[side] = load_json(os.path.join(self.dir, d, fn))

    def sides(self):
        return [s["name"] for s in self.meta["sides"]]

    def pairs(self, before, after):
        """(run, before result, after result) for the runs that have both sides."""
        return [(n, r[before], r[after]) for n, r in sorted(self.runs.items()) if before in r and after in r]

    def values(self, side, metric):
        return [metric(r[side]) for _, r in sorted(self.runs.items()) if side in r]

    def machine_result(self):
        """(run, side) of the result whose machine the model's runs of this trace start with (--start-zones):
        the one whose free memory at the workload's start is the median's closest (the first such run, in the
        order of case.json's sides)."""
        med = self.start_free_bytes()
        best = None
        for n, r in sorted(self.runs.items()):
            for side in self.sides():
                if side in r and r[side].get("start_zones"):
                    d = abs(r[side]["start_nr_free_pages"] * 4096 - med)
                    if best is None or d < best[0]:
                        best = (d, n, side)
        return (best[1], best[2]) if best else None

    def machine(self, work_rel):
        """The model's machine for this trace: `--start-zones` of machine_result() (its zones' managed and free
        pages, watermarks and reserves, the free pages with the guest's root file system given back, which
        the model's trace writes again: guest_trace), as a path relative to ROOT."""
        if work_rel not in getattr(self, "_machines", {}):     # written once per process
            n, side = self.machine_result()
            self._machines = dict(getattr(self, "_machines", {}), **{work_rel: unpacked_result(self, n, side, work_rel)})
        return self._machines[work_rel]

    def machine_text(self):
        n, side = self.machine_result()
        fs = self.rootfs()
        return ("the guest's machine: `--start-zones` of run %d's %s (its zones' managed and free pages, watermarks "
                "and lowmem reserves when the workload began; %s free) and its root file system (a root-memcg "
                "tmpfs file of %s, meminfo_start `Shmem`, written before the workload, its trace part read 256 KiB "
                "at a time as the replayer reads its trace: repro/kernel.py `Rootfs`)"
                % (n, side, _size(self.runs[n][side]["start_nr_free_pages"] * 4096), _size(fs.pages * 4096)))

    def rootfs(self):
        """The guest's root file system of this case's trace (Rootfs), sized from machine_result()'s run."""
        if getattr(self, "_rootfs", None) is None:
            import kernel_runs
            tr = kernel_runs.ensure_trace(self.section, self.case)
            n, side = self.machine_result()
            self._rootfs = Rootfs(os.path.join(ROOT, tr), self.runs[n][side]["meminfo_start"]["Shmem"] * 1024,
                                  self.rootfs_zram_ratio())
        return self._rootfs

    def rootfs_zram_ratio(self):
        """How well the guest's root file system compresses on zram (hundredths), measured: in the results
        whose zram holds, at the end, just what the root lost of its tmpfs pages (the data swapped out of it
        is within 5 % of meminfo_start less meminfo_end `Shmem`, the workload's swap freed at its exit),
        zram_mm_stat's orig_data_size over compr_data_size; the median of those results, or None where
        no result shows it (the model then compresses the root's pages by the device's ratio)."""
        rs = []
        for _, r in sorted(self.runs.items()):
            for side in self.sides():
                res = r.get(side)
                z = res and res.get("zram_mm_stat")
                if not z or not z[1]:
                    continue
                out = (res["meminfo_start"]["Shmem"] - res["meminfo_end"]["Shmem"]) * 1024
                if out > 0 and abs(z[0] - out) <= 0.05 * out:
                    rs.append(z[0] / z[1])
        return round(statistics.median(rs) * 100) if rs else None

    def guest_trace(self, work_rel):
        """The measured trace with the guest's root file system before and in it (Rootfs), written under
        work_rel afresh; its path relative to ROOT. The model's runs at the guest's scale replay this one,
        with machine() and the clocks of unpacked_result(), whose lines follow it."""
        rel = os.path.join(work_rel, "kernel-%s-%s.rootfs.trace" % (self.section, self.case))
        if rel not in getattr(self, "_written", set()):      # once per process
            self.rootfs().write(os.path.join(ROOT, rel))
            self._written = getattr(self, "_written", set()) | {rel}
        return rel

    def start_free_bytes(self, side=None):
        """The guest's free memory when the workload began (median over the side's runs, or over every
        result), bytes: the model's memory for its run of the same trace."""
        v = [res["start_nr_free_pages"] * 4096 for _, r in sorted(self.runs.items()) for sd, res in r.items()
             if (side is None or sd == side) and res.get("start_nr_free_pages")]
        return int(statistics.median(v)) if v else None


def _size(b):
    from plumbing import size_str
    return size_str(b)


def unpacked_result(kc, run, side, work_rel, root=ROOT, upto=None):
    """The kernel result of `run`/`side` as a plain JSON file under work_rel (for the model's --guest-clock,
    which reads an uncompressed result, and --start-zones), written afresh, for the model's run of
    kc.guest_trace(): its profiles' line numbers are that trace's (Rootfs.line), and its zones' free pages
    hold the root file system the trace writes again (Rootfs.zones); returns its path relative to root.
    With `upto`, the profiles stop at that line (for a run of the trace's prefix of `upto` lines)."""
    rel = os.path.join(work_rel, "kernel-%s-%s-run%d-%s%s.json" % (kc.section, kc.case, run, side,
                                                                  "" if upto is None else "-upto%d" % upto))
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = dict(kc.runs[run][side])
    fs = kc.rootfs()
    for key in ("time_profile", "vmstat_profile"):
        if isinstance(r.get(key), dict) and "lines" in r[key]:
            lines = [fs.line(x) for x in r[key]["lines"]]
            keep = len(lines) if upto is None else sum(1 for x in lines if x <= upto)
            r[key] = {k: (v[:keep] if isinstance(v, list) else v) for k, v in r[key].items()}
            r[key]["lines"] = lines[:keep]
            if isinstance(r[key].get("counters"), dict):
                r[key]["counters"] = {c: ys[:keep] for c, ys in r[key]["counters"].items()}
            if isinstance(r[key].get("zones"), dict):
                r[key]["zones"] = {z: {c: (ys[:keep] if isinstance(ys, list) else ys) for c, ys in d.items()}
                                   for z, d in r[key]["zones"].items()}
    if r.get("start_zones"):
        r["start_zones"] = fs.zones(r["start_zones"])
    with open(path + ".tmp", "w") as f:
        json.dump(r, f)
    os.replace(path + ".tmp", path)
    return rel


class Rootfs:
    """The guest's root file system in the model's trace (docs/FIDELITY.md, "The seeds' workloads at the
    guest's scale", item 2). The harness's initramfs is the guest's root: a tmpfs charged to the root
    memcg, on the LRU and swappable, holding busybox, the replayer, modules and the trace (meminfo_start
    `Shmem`), outside the free memory the workload starts with. The model's trace gets it as a prelude
    after the setup statements: a task `guest-init` in the root memcg writes a tmpfs file of `Shmem`'s size
    (its last pages are the trace), reads the trace's first 256 KiB and flushes the root's statistics
    (`stat root`, as the guest's boot flushed them many times). Inside the trace, before each line that
    needs the next 256 KiB of the trace's bytes, `guest-init` reads those 64 pages: the replayer reads its
    trace through a 256 KiB buffer (mglru-trace reader.rs BUF_SIZE). The zones the model starts with get
    the file's pages back as free (zones()), so that after the prelude its free memory is the guest's.
    On a zram swap device the root's pages compress as the guest's did (`zram_ratio=`, measured from the
    results: KernelCase.rootfs_zram_ratio, 1.79 on S1-C), not by the trace's ratio, which is that of the
    replayer's data: the root's swapped pages take RAM (on S1-C's guests zram's pool reached 8 MB).

    Simplifications: the rest of the root (binaries, modules: about 8.9 MB) is written and then left
    alone, where the guest maps the replayer's and busybox's text; the replayer reads its trace before
    the first statement that needs the bytes, not ahead; the prelude's tasks are defined first, so a
    trace's tasks keep their default CPUs only because the prelude defines a multiple of `cpus` tasks
    (guest-init and, on a trace with N CPUs, N-1 others that exit at once)."""

    TASK = "guest-init"
    FILE = "guest-rootfs"
    READ = (256 << 10) // 4096        # pages per read of the trace: the replayer's 256 KiB buffer
    SETUP = ("memory", "swap", "cpus", "sysctl")

    def __init__(self, trace_path, shmem_bytes, zram_ratio=None):
        self.trace_path = trace_path
        self.trace_bytes = os.path.getsize(trace_path)
        self.trace_pages = -(-self.trace_bytes // 4096)
        self.pages = max(-(-shmem_bytes // 4096), self.trace_pages)
        self.base = self.pages - self.trace_pages      # the file's first page of the trace
        self.zram_ratio = zram_ratio                   # hundredths (KernelCase.rootfs_zram_ratio), or None
        self._inserted = None                          # [(old line, lines inserted before it)], ascending

    def prelude(self, cpus=1):
        t, f = self.TASK, self.FILE
        out = ["# The guest's root file system (repro/kernel.py Rootfs): a root-memcg tmpfs of %d pages, "
               "meminfo_start Shmem; its last %d pages are this trace" % (self.pages, self.trace_pages),
               "task %s" % t]
        for i in range(1, cpus):
            out += ["task %s.%d" % (t, i), "exit %s.%d" % (t, i)]
        zr = "" if self.zram_ratio is None else " zram_ratio=%d.%02d" % (self.zram_ratio // 100, self.zram_ratio % 100)
        out += ["file %s size=%dK tmpfs=y%s" % (f, self.pages * 4, zr),
                "write %s %s 0 %d" % (t, f, self.pages),
                "read %s %s %d %d" % (t, f, self.base, min(self.READ, self.trace_pages)),
                "stat root"]
        return out

    def _read(self, chunk):
        first = self.base + chunk * self.READ
        return "read %s %s %d %d" % (self.TASK, self.FILE, first, min(self.READ, self.pages - first))

    def _walk(self, sink):
        """Stream the trace with the prelude and reads to sink(bytes) (None: only count); returns the
        insertion list."""
        inserted = []
        buf = self.READ * 4096
        nchunks = -(-self.trace_bytes // buf)
        chunk, off, done, cpus = 1, 0, False, 1
        with open(self.trace_path, "rb") as f:
            for lineno, line in enumerate(f, 1):
                add = []
                if not done:
                    w = line.split(None, 1)
                    if w and w[0] == b"cpus":
                        cpus = int(line.split()[1])
                    elif w and not w[0].startswith(b"#") and w[0].decode() not in self.SETUP:
                        add += self.prelude(cpus)
                        done = True
                end = off + len(line)
                while done and chunk < nchunks and chunk * buf < end:
                    add.append(self._read(chunk))
                    chunk += 1
                if add:
                    inserted.append((lineno, len(add)))
                    if sink:
                        sink(("\n".join(add) + "\n").encode())
                if sink:
                    sink(line)
                off = end
        if not done:
            raise ValueError("%s: no statement after the setup section" % self.trace_path)
        return inserted

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as g:
            self._inserted = self._walk(g.write)
        os.replace(path + ".tmp", path)

    def line(self, old):
        """The line of the rootfs trace that holds line `old` of the measured trace (a profile's line)."""
        if self._inserted is None:
            self._inserted = self._walk(None)
        return old + sum(k for l, k in self._inserted if l <= old)

    def zones(self, zones):
        """The guest's start zones with the file's pages given back as free pages of the highest zone that
        has managed pages (where the prelude's allocations come from)."""
        zs = [dict(z) for z in zones]
        top = max(i for i, z in enumerate(zs) if z.get("managed", 0) > 0)
        zs[top]["free"] = zs[top]["free"] + self.pages
        return zs


def load_case(section, case, root=ROOT):
    """The case's results, or None where nothing of it is measured yet."""
    path = os.path.join(results_dir(root), section, case, "case.json")
    if not os.path.exists(path):
        return None
    return KernelCase(section, case, root)


def kernel_change(kc, before, after, metric):
    """The kernel's change from `before` to `after` per run pair: a dict with the per-run changes (%),
    their median, min and max, the number of pairs and the direction ('+', '-', '0'), or None without
    a pair."""
    return kernel_change_sided(kc, before, after, lambda side, r: metric(r))


def kernel_change_sided(kc, before, after, metric):
    """kernel_change with a metric of (side name, result), for metrics a kernel counts differently (6.1's
    pgpgin has no swap reads of a synchronous device)."""
    if kc is None:
        return None
    pairs = kc.pairs(before, after)
    bv = [metric(before, b) for _, b, _ in pairs]
    av = [metric(after, a) for _, _, a in pairs]
    ch = [pct(x, y) for x, y in zip(bv, av)]
    if not ch:
        return None
    lo, hi = min(ch), max(ch)
    if lo > TOL:
        d = "+"
    elif hi < -TOL:
        d = "-"
    else:
        d = "0"
    return {"changes": ch, "median": statistics.median(ch), "lo": lo, "hi": hi, "n": len(ch), "dir": d,
            "before": bv, "after": av}


def verdict_kernel(model_pct, kch):
    """'yes', 'no' or 'pending' (fewer than MIN_RUNS pairs, or no kernel run) for the model's change
    at the guest's scale against the kernel's change."""
    if kch is None or kch["n"] < MIN_RUNS or model_pct is None:
        return "pending"
    if kch["dir"] in "+-":
        return "yes" if sign(model_pct) == kch["dir"] else "no"
    lo, hi = min(kch["lo"], -TOL), max(kch["hi"], TOL)
    return "yes" if lo <= model_pct <= hi else "no"


def fmt_kernel(kch):
    """The kernel's change for a table cell: median and range of its runs."""
    if kch is None:
        return "not measured"
    if kch["n"] == 1:
        return "%s (1 run)" % fmt_pct(kch["median"])
    return "%s (%s … %s, %d runs)" % (fmt_pct(kch["median"]), fmt_pct(kch["lo"]), fmt_pct(kch["hi"]), kch["n"])


# ---- metrics of a kernel result --------------------------------------------------------------
# Under --icount 0 a guest second is 10^9 guest instructions: task_cpu_seconds and kswapd_cpu_seconds
# are instruction counts; the replayer's wall_seconds (the workload's time) is instructions plus timed
# waits (with sleep=off an idle guest's clock jumps to its next timer: a task's sleeps count).


def ops_per_guest_s(r):
    """Operations per second of guest time (instructions plus timed waits under --icount 0)."""
    return r["operations"] / r["wall_seconds"] if r.get("wall_seconds") else 0.0


def guest_seconds(r):
    return r["wall_seconds"]


def sys_seconds(r):
    """The workers' stime plus kswapd's CPU time, guest seconds."""
    return sum(t.get("stime", 0.0) for t in r.get("task_cpu_seconds", {}).values()) + (r.get("kswapd_cpu_seconds") or 0.0)


def vmstat(name):
    return lambda r: r["vmstat"].get(name, 0)


def memcg_stat(memcg, name):
    return lambda r: r["memcg"].get(memcg, {}).get("stat", {}).get(name, 0)


# ---- time series -----------------------------------------------------------------------------


def profile_series(r, counter):
    """A kernel result's `vmstat_profile` (samples every 100 ms of guest time, i.e. 10^8 instructions
    under --icount 0) of one counter, from the start of the workload, against the fraction of the
    workload's guest time: (xs, ys), or None without a profile."""
    vp = r.get("vmstat_profile")
    if not vp or counter not in vp.get("counters", {}) or not vp.get("ns"):
        return None
    ns, ys = vp["ns"], vp["counters"][counter]
    end = max(ns[-1], 1)
    return [t / end for t in ns], [y - ys[0] for y in ys]


def model_series(res, counter):
    """The model's --timeseries of one counter against the fraction of its run's simulated time."""
    rows = [r for r in res.ts if counter in r]
    if not rows:
        return [], []
    end = max(rows[-1]["time_s"], 1e-12)
    return [r["time_s"] / end for r in rows], [r[counter] - rows[0][counter] for r in rows]


def plot_against_kernel(ctx, sec, name, title, ylabel, kc, sides, model, counter,
                        xlabel="fraction of the run (guest: instructions; model: simulated time)"):
    """A plot of a counter over the run: every kernel run of each side (dashed) and the model's run of
    the same trace, each against the fraction of its own run (the guest's time is instructions, the
    model's simulated time). sides: [(side, label)]; model: [(label, Result)]. Returns markdown."""
    import svgplot
    series = []
    for side, label in sides:
        for n, r in sorted(kc.runs.items()):
            if side not in r:
                continue
            xy = profile_series(r[side], counter)
            if xy:
                series.append({"label": "kernel %s, run %d" % (label, n), "x": xy[0], "y": xy[1], "dash": True})
    for label, res in model:
        xs, ys = model_series(res, counter)
        series.append({"label": "model %s" % label, "x": xs, "y": ys, "dash": False})
    svg = svgplot.line_plot(title, xlabel, ylabel, series)
    fn = "%s-%s.svg" % (sec, name)
    with open(os.path.join(ctx.svg_dir, fn), "w") as f:
        f.write(svg)
    return "![%s](repro/%s)" % (title, fn)
