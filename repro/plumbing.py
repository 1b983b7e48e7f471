# SPDX-License-Identifier: GPL-2.0-only
"""The shared plumbing of repro/reproduce.py: paths and cost profiles, number formatting, one
`mglru run` (Run, Result), the trace preparations of seeds 001 and 003 (merged and split traces),
plots, the result rows and their verdicts, the 6.12 -> 7.2 split of seed 004's sections, the
per-workload throughput estimates, and the Section base class with its registry (SECTIONS, in
the order the seed modules register them). The sections are in seed0.py .. seed4.py; the document
is put together by reproduce.py."""

import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN_REL = "target/release/mglru"
# MGLRU_BIN runs a copy of the binary (so target/release can be rebuilt
# meanwhile); the document still names target/release/mglru.
BIN = os.environ.get("MGLRU_BIN") or os.path.join(ROOT, BIN_REL)

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

# Tolerance of the verdicts: a model change smaller than this (in %) is "flat".
TOL = 1.0

# Cost profiles (simulated ns; docs/COST_MODEL.md). The defaults are an NVMe disk.
RAMDISK = [("disk_read", 5000), ("disk_write", 0), ("swap_read", 5000), ("swap_write", 0)]
ZRAM = [("swap_read", 5000)]
MMC = [("swap_read", 200000)]
HDD = [("disk_read", 5000000)]
SPARSE = [("disk_read", 0)]
COST_DEFAULTS = {"mem_access": 100, "page_copy": 500, "minor_fault": 1000, "disk_read": 100000,
                 "disk_write": 10000, "swap_read": 100000, "swap_write": 10000, "scan": 50,
                 "rmap": 4, "pte": 3, "pageout": 139, "lruvec": 44}


def costs_of(profile):
    c = dict(COST_DEFAULTS)
    c.update(dict(profile))
    return c


def fmt_costs(profile):
    return ", ".join("`%s=%d`" % kv for kv in profile) if profile else "the defaults (NVMe-class disk)"


# ---------------------------------------------------------------------------
# sizes, durations, numbers


def size_str(b):
    """A size for specs: the largest exact unit (G, M, K); rounded up to 4K."""
    b = int(b)
    b = (b + 4095) // 4096 * 4096
    for unit, suf in ((GIB, "G"), (MIB, "M"), (KIB, "K")):
        if b % unit == 0:
            return "%d%s" % (b // unit, suf)
    return str(b)


def fio_size(b):
    return size_str(b).lower()


def time_str(ns):
    """A duration: the largest exact unit of s, ms, us (rounded to us)."""
    us = max(1, int(round(ns / 1000)))
    if us % 1000000 == 0:
        return "%ds" % (us // 1000000)
    if us % 1000 == 0:
        return "%dms" % (us // 1000)
    return "%dus" % us


def human(b):
    """A size for prose: 1.5 GiB, 300 MiB."""
    if b >= GIB:
        return ("%.2f" % (b / GIB)).rstrip("0").rstrip(".") + " GiB"
    return ("%.1f" % (b / MIB)).rstrip("0").rstrip(".") + " MiB"


def secs(ns):
    """A duration for prose: 0.94 s, 18.75 s."""
    return ("%.3f" % (ns / 1e9)).rstrip("0").rstrip(".") + " s"


def pct(before, after):
    if before is None or after is None:
        return None
    if before == 0:
        return 0.0 if after == 0 else math.inf
    return (after - before) / before * 100.0


def fmt_pct(p):
    if p is None:
        return "n.a."
    if p == math.inf:
        return "from 0"
    if abs(p) < 0.05:
        return "0.0%"
    return "%+.1f%%" % p


def fmt_num(v):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 1000):
        return "{:,}".format(int(v))
    a = abs(v)
    if a >= 1000:
        return "{:,.0f}".format(v)
    if a >= 100:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.3g" % v


def sign(p):
    if p is None:
        return None
    if p == math.inf:
        return "+"
    if p > TOL:
        return "+"
    if p < -TOL:
        return "-"
    return "0"


# ---------------------------------------------------------------------------
# runs


class Run:
    """One `mglru run`. `source` is ("workload", SPEC) or ("trace", REL_PATH)."""

    def __init__(self, section, name, source, policy=None, variant=None, sysctls=(), costs=(), ts_ms=None, needs=None,
                 weight=1, kernel=None, memory=None, kswapd=None, guest_clock=None, start_zones=None):
        self.section = section
        self.weight = weight      # rough run time, to start long runs first
        self.name = name
        self.key = "%s/%s" % (section, name)
        self.source = source
        self.policy = policy
        self.variant = variant
        self.kernel = kernel      # --kernel (None: the default, 6.12)
        self.memory = memory      # --memory, bytes (None: the trace's or the workload's own)
        self.kswapd = kswapd      # --kswapd (None: the default, instant)
        self.guest_clock = guest_clock  # --guest-clock RESULT.json, relative to ROOT (the clock of a kernel run)
        self.start_zones = start_zones  # --start-zones RESULT.json, relative to ROOT (a kernel run's machine)
        assert not (memory and start_zones), "--memory and --start-zones exclude each other"
        self.sysctls = list(sysctls)
        self.costs = list(costs)
        self.ts_ms = ts_ms
        self.needs = needs

    def paths(self, ctx):
        base = os.path.join(ctx.work_rel, self.section, self.name)
        return base + ".json", (base + ".csv") if self.ts_ms else None

    def argv(self, ctx, for_doc=False):
        js, csv = self.paths(ctx)
        a = ["./" + BIN_REL if for_doc else BIN, "run"]
        if self.source[0] == "workload":
            a += ["--workload", self.source[1]]
        else:
            a += [self.source[1]]
        if self.kernel:
            a += ["--kernel", self.kernel]
        if self.memory:
            a += ["--memory", size_str(self.memory)]
        if self.start_zones:
            a += ["--start-zones", self.start_zones]
        if self.policy:
            a += ["--policy", self.policy]
        if self.kswapd:
            a += ["--kswapd", self.kswapd]
        if self.guest_clock:
            a += ["--guest-clock", self.guest_clock]
        if self.variant:
            a += ["--variant", self.variant]
        for s in self.sysctls:
            a += ["--sysctl", s]
        for n, v in self.costs:
            a += ["--cost", "%s=%d" % (n, v)]
        a += ["--json", js]
        if csv:
            a += ["--timeseries", "%s:%d" % (csv, self.ts_ms)]
        a += ["--quiet", "--no-progress"]
        return a

    def doc_cmd(self, ctx):
        return " ".join(shlex.quote(x) for x in self.argv(ctx, for_doc=True))


def parse_kernel_differences(text):
    """`mglru kernels` output -> {version: [difference names]} (the versions' own lines)."""
    out = {}
    cur = None
    for line in text.splitlines():
        if line.startswith("variants"):
            break
        f = line.split()
        if line.startswith("  ") and not line.startswith("   ") and f:
            cur = f[0]
        elif cur and f and f[0] == "differences:":
            rest = line.split("differences:", 1)[1].strip()
            out[cur] = [] if rest.startswith("none") else [d.strip() for d in rest.split(",")]
    return out


_KERNELS = {}


def kernel_differences(version):
    """The behaviour differences from 6.12 of a kernel version, as the binary lists them."""
    if not _KERNELS:
        p = subprocess.run([BIN, "kernels"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
        _KERNELS.update(parse_kernel_differences(p.stdout))
    return _KERNELS[version]


def exec_run(argv, cwd):
    t = time.time()
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("mglru failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr[-2000:]))
    return time.time() - t


def read_timeseries(path):
    """The CSV of --timeseries as a list of dicts (a new header starts a block)."""
    rows = []
    header = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("time_s"):
                header = line.split(",")
                continue
            vals = line.split(",")
            rows.append({h: float(v) for h, v in zip(header, vals)})
    return rows


class Result:
    def __init__(self, run, ctx):
        js, csv = run.paths(ctx)
        with open(os.path.join(ROOT, js)) as f:
            self.json = json.load(f)
        self.ts = read_timeseries(os.path.join(ROOT, csv)) if csv else []
        self.run = run
        self.vm = self.json["vmstat"]
        self.sim = self.json["sim"]

    def memcg(self, name, field=None):
        m = self.json["memcg"].get(name)
        if m is None:
            return 0
        if field is None:
            return m
        return m["stat"].get(field, 0)

    @property
    def throughput(self):
        return self.sim["throughput_ops_per_s"]


def window(full, prefix):
    """Ops/s of the part of `full` after the trace prefix `prefix` (same op stream)."""
    ops = full.sim["access_ops"] - prefix.sim["access_ops"]
    ns = full.sim["task_ns"] - prefix.sim["task_ns"]
    return ops * 1e9 / ns if ns > 0 else 0.0


# ---------------------------------------------------------------------------
# merged traces (seed 001's memcached + fio mmap scripts)


def _stream(spec):
    """Lines of `mglru workload SPEC`, split into setup lines and the op iterator."""
    p = subprocess.Popen([BIN, "workload", spec, "--emit-trace", "/dev/stdout"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1 << 20)
    return p


SETUP = ("memcg", "file", "task", "anon", "mmap", "sysctl")
IO = ("load", "store", "read", "write")


class GenStream:
    def __init__(self, spec):
        self.proc = _stream(spec)
        self.setup = []
        self.tasks = []
        self.pending = None
        it = self.proc.stdout
        for line in it:
            if line.startswith("#") or line.startswith("memory ") or line.startswith("swap "):
                continue
            w = line.split(" ", 1)[0]
            if w in SETUP:
                self.setup.append(line)
                if w == "task":
                    self.tasks.append(line.split()[1])
                continue
            self.pending = line
            break
        self.it = it

    def next(self):
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        for line in self.it:
            if line.startswith("#"):
                continue
            return line
        return None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def pages_of(line):
    t = line.split()
    if len(t) >= 5 and t[0] in IO:
        return int(t[4])
    return 1 if t and t[0] in IO else 0


def build_merged(out, header, memtier_spec, fio_spec, phases, memtier_rate, fio_rate):
    """Write a trace that runs memtier (memcached) and fio like seed 001's scripts.

    phases: a list of ("memtier", N|None), ("fio", N), ("both", None|N): memtier ops
    alone, fio I/Os alone, or memtier ops with fio I/Os interleaved at fio_rate/memtier_rate.
    A marker (line count) is recorded after every phase; prefix files are written
    for every marker. Returns counts per phase."""
    mt = GenStream(memtier_spec)
    fi = GenStream(fio_spec)
    path = os.path.join(ROOT, out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    f = open(path, "w")
    n = [0]

    def w(line):
        f.write(line)
        n[0] += 1

    for h in header:
        w(h + "\n")
    for line in mt.setup:
        w(line)
    fio_started = [False]

    def fio_start():
        if not fio_started[0]:
            fio_started[0] = True
            for line in fi.setup:
                w(line)

    def fio_io():
        """Emit fio lines up to and including one I/O; returns its pages."""
        while True:
            line = fi.next()
            if line is None:
                return 0
            w(line)
            p = pages_of(line)
            if p:
                return p

    counts = []
    for kind, num in phases:
        c = {"memtier_ops": 0, "memtier_pages": 0, "memtier_loads": 0, "fio_ios": 0, "fio_pages": 0}
        if kind == "fio":
            fio_start()
            for _ in range(num):
                c["fio_pages"] += fio_io()
                c["fio_ios"] += 1
        else:
            if kind == "both":
                fio_start()
            while num is None or c["memtier_ops"] < num:
                line = mt.next()
                if line is None:
                    break
                w(line)
                p = pages_of(line)
                if p:
                    c["memtier_ops"] += 1
                    c["memtier_pages"] += p
                    if line.startswith("load "):
                        c["memtier_loads"] += 1
                if kind == "both":
                    target = c["memtier_ops"] * fio_rate // memtier_rate
                    while c["fio_ios"] < target:
                        c["fio_pages"] += fio_io()
                        c["fio_ios"] += 1
        c["marker"] = n[0]
        counts.append(c)
    for t in fi.tasks:
        w("exit %s\n" % t)
    f.close()
    mt.close()
    fi.close()
    # prefixes: the first `marker` lines
    for i, c in enumerate(counts[:-1]):
        with open(path) as src, open(path + ".p%d" % i, "w") as dst:
            for k, line in enumerate(src):
                if k >= c["marker"]:
                    break
                dst.write(line)
    return {"phases": counts, "lines": n[0]}


def build_split(out, spec, markers, nomemcg=False, src=None):
    """Emit SPEC's trace to `out` (or copy the trace `src`, relative to ROOT, there) and write prefixes
    ending before the first line that starts with each marker string. Counts I/O pages per task prefix
    per phase.
    With `nomemcg`, also write `out`.nomemcg: the same trace with every task in the
    root memcg (the `memcg` statements and the tasks' `memcg=` dropped), as on a
    kernel built without memcg."""
    path = os.path.join(ROOT, out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if src:
        shutil.copyfile(os.path.join(ROOT, src), path)
    else:
        subprocess.run([BIN, "workload", spec, "--emit-trace", path], check=True, stderr=subprocess.DEVNULL)
    if nomemcg:
        with open(path) as src, open(path + ".nomemcg", "w") as dst:
            for line in src:
                if line.startswith("memcg "):
                    continue
                if line.startswith("task "):
                    line = " ".join(w for w in line.split() if not w.startswith("memcg=")) + "\n"
                dst.write(line)
    found = []
    counts = [{}]
    mi = 0
    with open(path) as f:
        for k, line in enumerate(f):
            if mi < len(markers) and line.startswith(markers[mi]):
                found.append(k)
                counts.append({})
                mi += 1
            t = line.split()
            if t and t[0] in IO:
                task = t[1].split(".")[0]
                p = int(t[4]) if len(t) >= 5 else 1
                d = counts[-1]
                d.setdefault(task, [0, 0])
                d[task][0] += 1
                d[task][1] += p
    for i, m in enumerate(found):
        with open(path) as src, open(path + ".p%d" % i, "w") as dst:
            for k, line in enumerate(src):
                if k >= m:
                    break
                dst.write(line)
    return {"markers": found, "counts": counts}


PREP_FUNCS = {"merged": build_merged, "split": build_split}


def exec_prep(kind, kwargs, meta_path):
    t = time.time()
    meta = PREP_FUNCS[kind](**kwargs)
    with open(os.path.join(ROOT, meta_path), "w") as f:
        json.dump(meta, f, sort_keys=True, indent=1)
    return time.time() - t


class Prep:
    def __init__(self, section, name, kind, **kwargs):
        self.section = section
        self.name = name
        self.key = "%s/%s" % (section, name)
        self.kind = kind
        self.kwargs = kwargs

    def meta_path(self, ctx):
        return os.path.join(ctx.work_rel, self.section, self.name + ".meta.json")


# ---------------------------------------------------------------------------
# plots


def ts_series(res, col, scale=1.0):
    xs, ys = [], []
    for r in res.ts:
        v = col(r) if callable(col) else r.get(col)
        if v is None:
            continue
        xs.append(r["time_s"])
        ys.append(v * scale)
    return xs, ys


def gen_pages(memcg, g, kind=None):
    def f(r):
        a = r.get("%s:gen%d_anon" % (memcg, g))
        b = r.get("%s:gen%d_file" % (memcg, g))
        if a is None:
            return None
        if kind == "anon":
            return a
        if kind == "file":
            return b
        return a + b
    return f


def plot(ctx, sec, name, title, ylabel, curves, xlabel="simulated time (s)", tmax=None):
    """curves: list of (label, Result, column-or-fn[, scale[, dash]]). Returns markdown."""
    series = []
    for c in curves:
        label, res, col = c[0], c[1], c[2]
        scale = c[3] if len(c) > 3 else 1.0
        dash = c[4] if len(c) > 4 else False
        xs, ys = ts_series(res, col, scale)
        if tmax is not None:
            k = sum(1 for x in xs if x <= tmax)
            xs, ys = xs[:k], ys[:k]
        series.append({"label": label, "x": xs, "y": ys, "dash": dash})
    svg = svgplot.line_plot(title, xlabel, ylabel, series)
    fn = "%s-%s.svg" % (sec, name)
    with open(os.path.join(ctx.svg_dir, fn), "w") as f:
        f.write(svg)
    return "![%s](repro/%s)" % (title, fn)


# ---------------------------------------------------------------------------
# rows and verdicts


def row(rid, what, seed_before, seed_after, seed_change, model_before, model_after, model_change,
        verdict, seed_dir=None):
    # The real kernel's columns (issue 32) start empty: "pending" until a section fills them from
    # validation/results-repro/ (kernel_row), "n.a." where the model cannot run the result either.
    return {"id": rid, "what": what, "seed_before": seed_before, "seed_after": seed_after,
            "seed_change": seed_change, "model_before": model_before, "model_after": model_after,
            "model_change": model_change, "verdict": verdict,
            "kernel_change": "n.a." if verdict == "n.a." else "not measured", "model_guest_change": "–",
            "verdict_kernel": "n.a." if verdict == "n.a." else "pending"}


def kernel_row(r, kch, model_guest_pct, verdict_kernel):
    """Fill a row's real-kernel columns: the kernel's change at the guest's scale (repro/kernel.py's
    kernel_change), the model's change on the same trace, and the verdict "model vs real kernel"."""
    import kernel as _k
    r["kernel_change"] = _k.fmt_kernel(kch)
    r["model_guest_change"] = fmt_pct(model_guest_pct)
    r["verdict_kernel"] = verdict_kernel
    return r


def kernel_na(rows, why):
    """Mark rows that no kernel can referee (the change is in no kernel, or the guest cannot run it)."""
    for r in rows:
        r["kernel_change"] = why
        r["verdict_kernel"] = "n.a."
    return rows


def verdict_dir(seed_dir, model_pct):
    """seed_dir '+', '-' (the seed's direction) or '0' (the seed says no change)."""
    return "yes" if sign(model_pct) == seed_dir else "no"


def cmp_row(rid, what, sb, sa, seed_pct, mb, ma, seed_dir=None, seed_change=None, model_pct=None):
    """A before/after row; seed_dir defaults to the sign of seed_pct."""
    mp = pct(mb, ma) if model_pct is None else model_pct
    sd = seed_dir or sign(seed_pct)
    return row(rid, what, sb, sa, seed_change or fmt_pct(seed_pct), mb, ma, fmt_pct(mp), verdict_dir(sd, mp))


def na_row(rid, what, sb, sa, seed_change, why="n.a."):
    return row(rid, what, sb, sa, seed_change, None, None, why, "n.a.")


def cell(v):
    """Table cell text: a `|` would end the cell."""
    return str(v).replace("|", "\\|")


def rows_table(rows, before="before", after="after"):
    o = ["| result | metric | seed %s | seed %s | seed change | model %s | model %s | model change | "
         "real kernel's change (guest scale) | model's change (guest scale) | model vs real kernel | "
         "model vs seed |" % (before, after, before, after),
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|:---:|"]
    for r in rows:
        o.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | **%s** | **%s** |" % tuple(cell(x) for x in (
            r["id"], r["what"], fmt_num(r["seed_before"]), fmt_num(r["seed_after"]), r["seed_change"],
            fmt_num(r["model_before"]), fmt_num(r["model_after"]), r["model_change"],
            r.get("kernel_change", "not measured"), r.get("model_guest_change", "–"),
            r.get("verdict_kernel", "pending"), r["verdict"])))
    return "\n".join(o)


def cmd_block(ctx, runs):
    o = ["```sh"]
    for r in runs:
        o.append(r.doc_cmd(ctx))
    o.append("```")
    return "\n".join(o)


def verdicts(rows):
    return [r["verdict"] for r in rows]


# ---- 6.12 → 7.2: the series (the variant on 6.12) and the rest of 7.2 ----------

SPLIT_NOTE = ("Linux 7.2 merged the series: `--kernel 7.2` is 6.12 with the series' reclaim loop (the same code "
              "as `--variant reclaim-loop`) and 7.2's other differences (`mglru kernels`; docs/KERNELS.md). "
              "The 6.12 → 7.2 change splits into the series (6.12 → the variant) and the rest of 7.2 (the "
              "variant → 7.2). In 7.2 /proc/vmstat's pgscan/pgsteal also count memcg reclaim "
              "(memory.reclaim as `*_proactive`), so reclaim is compared here by the memcg's `memory.stat` "
              "counters, which count the same in every version.")


SPLIT_NOTE_SHORT = ("The series = 6.12 → `--variant reclaim-loop`, the rest of 7.2 = the variant → `--kernel 7.2` "
                    "(S4-a explains; reclaim compared by the memcg's `memory.stat` counters, which 7.2 counts as 6.12 does).")


def fmt_share(p):
    """A part's share of a change, in whole per cent ("0%", not "-0%")."""
    r = int(round(p))
    return "%d%%" % r


def split_change(b, v, k):
    """(before, variant, 7.2) -> the changes of the whole, the series and the rest: dicts with the
    absolute difference, the relative change (%) and, for the parts, their share of the whole (%,
    None when the whole is zero)."""
    total = k - b
    parts = {"total": (b, k), "series": (b, v), "rest": (v, k)}
    out = {}
    for name, (x, y) in parts.items():
        d = y - x
        out[name] = {"diff": d, "pct": pct(x, y),
                     "share": (d * 100.0 / total) if name != "total" and total != 0 else None}
    return out


def split_table(items, labels=("6.12", "6.12 + series (`--variant reclaim-loop`)", "7.2")):
    """items: (metric, 6.12 value, variant value, 7.2 value). The three runs and the three changes."""
    o = ["| metric | %s | %s | %s | 6.12 → 7.2 | of it the series (6.12 → variant) | the rest of 7.2 (variant → 7.2) |"
         % tuple(cell(x) for x in labels),
         "|---|---:|---:|---:|---:|---:|---:|"]
    for what, b, v, k in items:
        c = split_change(b, v, k)
        o.append("| %s | %s | %s | %s | %s | %s | %s |" % tuple(cell(x) for x in (
            what, fmt_num(b), fmt_num(v), fmt_num(k), fmt_pct(c["total"]["pct"]),
            fmt_pct(c["series"]["pct"]), fmt_pct(c["rest"]["pct"]))))
    return "\n".join(o)


def split_sentence(what, b, v, k):
    """One metric's 6.12 → 7.2 change in words: how much is the series, how much the rest of 7.2."""
    c = split_change(b, v, k)
    if c["total"]["diff"] == 0 and c["series"]["diff"] == 0:
        return "%s: the same in all three runs (%s)." % (what, fmt_num(b))
    if all(sign(c[x]["pct"]) == "0" for x in ("total", "series", "rest")):
        return "%s: %s, %s with the series, %s on 7.2: within ±%.0f%% (the series %s, the rest of 7.2 %s)." % (
            what, fmt_num(b), fmt_num(v), fmt_num(k), TOL, fmt_pct(c["series"]["pct"]), fmt_pct(c["rest"]["pct"]))
    t = "%s: %s → %s on 7.2 (%s); the series %s (%s → %s)" % (
        what, fmt_num(b), fmt_num(k), fmt_pct(c["total"]["pct"]), fmt_pct(c["series"]["pct"]), fmt_num(b), fmt_num(v))
    if c["series"]["share"] is not None:
        t += ", %s of the change" % fmt_share(c["series"]["share"])
    t += ", the rest of 7.2 %s (%s → %s)" % (fmt_pct(c["rest"]["pct"]), fmt_num(v), fmt_num(k))
    if c["rest"]["share"] is not None:
        t += ", %s" % fmt_share(c["rest"]["share"])
    return t + "."


# ---------------------------------------------------------------------------
# per-workload estimates and shared workload helpers (seeds 000, 001, 003, 004)


def fio_time(ns):
    return "0" if ns == 0 else time_str(ns)


def anon_ops_per_s(ops, pages, full, prefix, memcg, cost):
    """Cost-model estimate of one memcg's ops/s between `prefix` and `full`:
    resident accesses at mem_access, faults at minor_fault, major faults at swap_read."""
    f = full.memcg(memcg, "pgfault") - prefix.memcg(memcg, "pgfault")
    mj = full.memcg(memcg, "pgmajfault") - prefix.memcg(memcg, "pgmajfault")
    ns = max(0, pages - f) * cost["mem_access"] + f * cost["minor_fault"] + mj * cost["swap_read"]
    return (ops * 1e9 / ns if ns else 0.0), f, mj


def file_pages_read(res, swap_bio=True):
    """Pages read from disk for files: pgpgin (KiB) less the swap-ins, which count in pgpgin where swap
    I/O is a bio; with `swap_bio=False` (6.1 on a synchronous swap device: `rw_page`, difference
    swap-rw-page) pgpgin has no swap reads to take off."""
    return res.vm["pgpgin"] // 4 - (res.vm["pswpin"] if swap_bio else 0)


def mmap_ios_per_s(ios, pages, full, prefix, memcg, cost):
    f = full.memcg(memcg, "pgfault") - prefix.memcg(memcg, "pgfault")
    mj = full.memcg(memcg, "pgmajfault") - prefix.memcg(memcg, "pgmajfault")
    ns = max(0, pages - f) * cost["mem_access"] + f * cost["minor_fault"] + mj * cost["disk_read"]
    return (ios * 1e9 / ns if ns else 0.0), f, mj


EST_NOTE = ("Per-workload throughput is estimated from the cost model and the workload's own memcg counters "
            "over the measured phase (the difference between the full run and a run of the trace's prefix "
            "up to the phase start): for memcached, ops / (resident page accesses × `mem_access` + page "
            "faults × `minor_fault` + major faults × `swap_read`); for fio mmap, the same with `disk_read` "
            "for major faults; for buffered fio, I/Os / (pages × `page_copy` + pages read from disk × "
            "`disk_read`). Reclaim work (scanning, throttling) is not attributed to a workload. The request "
            "rates that interleave the two workloads are fixed (the model has no feedback from latency to "
            "the request rate), so the estimate measures what each request costs, not a closed loop.")


# ---------------------------------------------------------------------------
# the sections

SECTIONS = []


def section(cls):
    SECTIONS.append(cls())
    return cls


class Section:
    id = ""
    title = ""
    results = ()          # the result ids of the digest this section covers

    def plan(self, ctx):
        return [], []

    def render(self, ctx, R, P):
        raise NotImplementedError


def refault_curves(pairs, kinds=("file",)):
    """(label, Result) pairs -> cumulative refault curves."""
    out = []
    for label, res in pairs:
        for k in kinds:
            out.append(("%s: workingset_refault_%s" % (label, k) if len(kinds) > 1 else label, res,
                        "workingset_refault_%s" % k))
    return out


def gen_curves(res, memcg, kind=None, label_prefix=""):
    names = ["gen0 (youngest, max_seq)", "gen1", "gen2", "gen3 (oldest)"]
    return [("%s%s" % (label_prefix, names[g]), res, gen_pages(memcg, g, kind)) for g in range(4)]


def usage_curves(pairs, memcgs):
    out = []
    for label, res in pairs:
        for m in memcgs:
            out.append(("%s: %s" % (label, m), res, "%s:current_bytes" % m, 1.0 / MIB))
    return out


def identical_counters(a, b):
    return a.vm == b.vm


def same_shared_counters(a, b):
    """Whether two runs' /proc/vmstat agree on every counter both print (versions print different
    sets: 6.1 has no pgscan_khugepaged, for one); returns (agree, number of counters compared)."""
    keys = [k for k in a.vm if k in b.vm]
    return all(a.vm[k] == b.vm[k] for k in keys), len(keys)
