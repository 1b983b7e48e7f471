#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How long reclaim and the lru_add batches hold a lruvec's lru_lock, measured on the 6.12 guest.

The guests run the micro-traces of calibrate_steps.py (`miss-reclaim`: clean unmapped file folios
reclaimed by a 16 MiB memcg limit; `swapout`: anon folios written to brd swap) under QEMU's
instruction counter (run-kernel.sh --icount 0: a guest nanosecond is one instruction, whatever
the host's load), with the replayer's `--ftrace` timing the functions that run under the lock
(the function_graph tracer limited to them):

- `isolate_lru_folios` (classic) and `isolate_folios` (MGLRU; `scan_folios` is inlined into it):
  the isolation, called with the lock held;
- `move_folios_to_lru`: the putback, called with the lock held;
- `folio_batch_move_lru`: an lru_add batch (the lock taken and kept while the folios share a
  lruvec).

Each policy runs each trace twice: with the tracepoints `vmscan/mm_vmscan_lru_isolate` and
`mm_vmscan_lru_shrink_inactive` (whose counts give the folios of each call: `probe-*`) and
without them (`noev-*`, whose durations carry no tracepoint's cost). What comes out, in guest
instructions, and as ratios to `scan` (2,025 instructions a folio: calibrate_steps.py pair A):

- `trace_ns`: what tracing one call costs: the median `move_folios_to_lru` call of the miss runs,
  whose putback lists are all empty (every folio is reclaimed);
- `lock_isolate`: the slope of the classic isolation's duration over its folios scanned, call by
  call (least squares over both probe runs);
- `lru_lock`: the classic isolation's fixed part without tracepoints: per call, the noev runs'
  mean less `lock_isolate` times its folios, less `trace_ns`;
- `lock_isolate_gen`: MGLRU's isolation per folio scanned (the tracepoint's nr_scanned, sorted
  folios included) after each call's fixed part as the classic's with its tracepoint
  (probe-run intercept);
- `lock_putback`: the slope of the classic putback's duration over the folios put back
  (isolated less reclaimed, from the batch's two tracepoints) in the swapout probe run;
- `lock_add`: an lru_add batch's duration less `trace_ns`, per folio added (the miss runs: each
  of the trace's 40,000 reads adds one folio), both policies' mean.

    python3 validation/calibrate_lock.py --run            # 8 guest runs into validation/results-lock
    python3 validation/calibrate_lock.py [--write]        # the figures from results-lock (and into platform.json)
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import calibrate  # noqa: E402
import calibrate_steps  # noqa: E402

OUT = os.path.join(HERE, "results-lock")
SCAN_INSTR = 2025  # calibrate_steps.py pair A, instructions per folio (platform.json steps)
READS = calibrate_steps.N
FUNCS = ["isolate_lru_folios", "isolate_folios", "move_folios_to_lru", "folio_batch_move_lru"]
PROBE_FUNCS = FUNCS + ["shrink_folio_list", "evict_folios", "shrink_active_list", "try_to_shrink_lruvec",
                       "shrink_lruvec", "shrink_node", "try_to_inc_max_seq", "lru_add_drain"]
EVENTS = ["vmscan/mm_vmscan_lru_isolate", "vmscan/mm_vmscan_lru_shrink_inactive",
          "vmscan/mm_vmscan_lru_shrink_active"]
KEYS = ["lru_lock", "lock_isolate", "lock_isolate_gen", "lock_putback", "lock_add"]


def run(replayer):
    ts = calibrate_steps.traces()
    calibrate_steps.write_traces({k: ts[k] for k in ("miss-reclaim", "swapout")})
    os.makedirs(OUT, exist_ok=True)
    for kind in ("probe", "noev"):
        for t in ("miss-reclaim", "swapout"):
            for mode in ("classic", "mglru"):
                out = os.path.join(OUT, f"{kind}-{t}.{mode}.json")
                cmd = [os.path.join(HERE, "run-kernel.sh"), os.path.join(calibrate_steps.WORK, t + ".trace"),
                       "--mode", mode, "--out", out, "--icount", "0", "--replayer", replayer,
                       "--replay-arg", "--ftrace", "--replay-arg", ",".join(PROBE_FUNCS if kind == "probe" else FUNCS)]
                if kind == "probe":
                    cmd += ["--replay-arg", "--ftrace-event", "--replay-arg", ",".join(EVENTS)]
                calibrate.run_guest(cmd, f"{kind}-{t}.{mode}", "calibrate_lock")
                with open(out, "rb") as f, gzip.open(out + ".gz", "wb") as g:
                    g.write(f.read())
                os.remove(out)


def load(name):
    with gzip.open(os.path.join(OUT, name + ".json.gz"), "rt") as f:
        return json.load(f)


def records(r):
    """(cpu, kind, name, duration or None, fields) per record of the result's ftrace."""
    for rec in r["ftrace"]["records"]:
        p = rec.split()
        if p[2] == "R":
            yield p[0], "R", p[3], int(p[4]), dict(kv.split("=") for kv in p[5:])
        else:
            yield p[0], "E", p[3], None, dict(kv.split("=") for kv in p[4:])


def fit(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    a = sum((x - mx) * (y - my) for x, y in points) / sxx
    return a, my - a * mx


def calls(r, fn):
    return [(int(f.get("nr_scanned", 0)), d) for _, k, n, d, f in records(r) if k == "R" and n == fn]


def putbacks(r):
    """(folios put back, duration) per classic batch: the isolation's nr_taken less the
    shrink_inactive event's nr_reclaimed, for the one move_folios_to_lru between them."""
    state = {}
    out = []
    for cpu, k, n, d, f in records(r):
        s = state.setdefault(cpu, {"taken": None, "moves": []})
        if k == "R" and n == "isolate_lru_folios":
            s["taken"], s["moves"] = int(f.get("nr_taken", 0)), []
        elif k == "R" and n == "move_folios_to_lru":
            s["moves"].append(d)
        elif k == "E" and n == "mm_vmscan_lru_shrink_inactive":
            if s["taken"] is not None and len(s["moves"]) == 1:
                out.append((s["taken"] - int(f["nr_reclaimed"]), s["moves"][0]))
            s["taken"], s["moves"] = None, []
    return out


def analyse():
    res = {}
    trace_ns = statistics.median(d for m in ("classic", "mglru")
                                 for _, d in calls(load(f"noev-miss-reclaim.{m}"), "move_folios_to_lru"))
    res["trace_ns"] = trace_ns
    iso = [p for t in ("miss-reclaim", "swapout") for p in calls(load(f"probe-{t}.classic"), "isolate_lru_folios")]
    slope, intercept_ev = fit(iso)
    res["lock_isolate"] = slope
    res["classic_isolate_intercept_with_tracepoint"] = intercept_ev
    fixed = []
    for t in ("miss-reclaim", "swapout"):
        r = load(f"noev-{t}.classic")
        tot = r["ftrace"]["totals"]["isolate_lru_folios"]
        scanned = r["vmstat"]["pgscan_file"] + r["vmstat"]["pgscan_anon"]
        fixed.append((tot["total_ns"] - slope * scanned) / tot["calls"] - trace_ns)
    res["lru_lock_per_trace"] = fixed
    res["lru_lock"] = statistics.mean(fixed)
    gen = []
    for t in ("miss-reclaim", "swapout"):
        tot = load(f"probe-{t}.mglru")["ftrace"]["totals"]["isolate_folios"]
        gen.append((tot["total_ns"] - tot["calls"] * intercept_ev) / tot["nr_scanned"])
    res["lock_isolate_gen_per_trace"] = gen
    res["lock_isolate_gen"] = statistics.mean(gen)
    pb = putbacks(load("probe-swapout.classic"))
    res["putback_batches"] = len(pb)
    res["putback_folios"] = sum(x for x, _ in pb)
    res["lock_putback"], _ = fit(pb)
    add = []
    for m in ("classic", "mglru"):
        tot = load(f"noev-miss-reclaim.{m}")["ftrace"]["totals"]["folio_batch_move_lru"]
        add.append((tot["total_ns"] - tot["calls"] * trace_ns) / READS)
    res["lock_add_per_policy"] = add
    res["lock_add"] = statistics.mean(add)
    res["ratio_to_scan"] = {k: res[k] / SCAN_INSTR for k in KEYS}
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run the 8 guests first (needs validation/setup.sh)")
    ap.add_argument("--replayer", default="/work/target-guest/x86_64-unknown-linux-gnu/release/mglru-replay")
    ap.add_argument("--write", action="store_true", help="store the costs (ratio x scan) in platform.json")
    ap.add_argument("--platform", default=os.path.join(HERE, "platform.json"))
    a = ap.parse_args()
    if a.run:
        run(a.replayer)
    res = analyse()
    with open(a.platform) as f:
        platform = json.load(f)
    scan = platform["cost"]["scan"]
    print("guest instructions (one call's tracing: %.0f)" % res["trace_ns"])
    for k in KEYS:
        print("  %-17s %6.0f  ratio to scan %.4f  platform %6d ns  default %3d ns"
              % (k, res[k], res["ratio_to_scan"][k], round(res["ratio_to_scan"][k] * scan),
                 round(res["ratio_to_scan"][k] * 50)))
    if a.write:
        for k in KEYS:
            platform["cost"][k] = round(res["ratio_to_scan"][k] * scan)
        platform["lock"] = {"date": "2026-11-27", "instructions": {k: round(res[k], 1) for k in KEYS},
                            "ratio_to_scan": {k: round(v, 4) for k, v in res["ratio_to_scan"].items()},
                            "detail": {k: v for k, v in res.items() if k not in KEYS and k != "ratio_to_scan"}}
        with open(a.platform, "w") as f:
            json.dump(platform, f, indent=2)
            f.write("\n")
        print(f"wrote {a.platform}")


if __name__ == "__main__":
    main()
