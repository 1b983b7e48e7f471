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
        pages, watermarks and reserves), as a path relative to ROOT."""
        n, side = self.machine_result()
        return unpacked_result(self, n, side, work_rel)

    def machine_text(self):
        n, side = self.machine_result()
        return ("the guest's machine: `--start-zones` of run %d's %s (its zones' managed and free pages, watermarks "
                "and lowmem reserves when the workload began; %s free)"
                % (n, side, _size(self.runs[n][side]["start_nr_free_pages"] * 4096)))

    def start_free_bytes(self, side=None):
        """The guest's free memory when the workload began (median over the side's runs, or over every
        result), bytes: the model's memory for its run of the same trace."""
        v = [res["start_nr_free_pages"] * 4096 for _, r in sorted(self.runs.items()) for sd, res in r.items()
             if (side is None or sd == side) and res.get("start_nr_free_pages")]
        return int(statistics.median(v)) if v else None


def _size(b):
    from plumbing import size_str
    return size_str(b)


def unpacked_result(kc, run, side, work_rel, root=ROOT):
    """The kernel result of `run`/`side` as a plain JSON file under work_rel (for the model's --guest-clock,
    which reads an uncompressed result), written afresh; returns its path relative to root."""
    rel = os.path.join(work_rel, "kernel-%s-%s-run%d-%s.json" % (kc.section, kc.case, run, side))
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(kc.runs[run][side], f)
    os.replace(path + ".tmp", path)
    return rel


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
