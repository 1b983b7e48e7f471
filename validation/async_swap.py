#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The `reclaim` of a trace on an asynchronous swap device, kernel against model.

    python3 validation/async_swap.py [--trace T] [--mglru BIN] [--json OUT] RESULT.json...

For each kernel result (run-kernel.sh, with or without --swap-loop / --swap-nullb) it prints the
swap device, the result of each `reclaim` write (0 or -11 for -EAGAIN), the guest time the write
took (the replayer's time_profile: the sample taken before the reclaim line to the one before the
next line; both lines are sampled when they are 10 ms or more apart), the pages the memcg gave
(`pgsteal` of its memory.stat from the `stat` before the reclaim to the one after) and the
counters of /proc/vmstat over the run (the workload stores its anon first, without reclaim, so
they are the reclaim's). Then the model's run of the trace (`mglru run --json -`) under both
policies with the same columns (its `reclaims` hold the pages reclaimed; its time is its clock).
Default trace: validation/traces-extra/reclaim-async-swap.trace; default model binary:
target/release/mglru.
"""

import argparse
import json
import os
import subprocess
import sys

COUNTERS = ["pswpout", "pgscan_anon", "pgsteal_anon", "pgactivate", "pgdeactivate", "pgrotated",
            "pgrefill", "nr_vmscan_immediate_reclaim"]
HERE = os.path.dirname(os.path.abspath(__file__))


def device(meta):
    if meta.get("swap_nullb"):
        return "nullb0:" + meta["swap_nullb"]
    if meta.get("swap_loop"):
        return "loop0/ram1,dio=%s" % meta.get("loop_dio")
    return "ram1(brd)"


def kernel_row(path):
    d = json.load(open(path))
    meta = d.get("meta", {})
    rows = []
    prof = d.get("time_profile") or {}
    at = dict(zip(prof.get("lines", []), prof.get("ns", [])))
    stats = d.get("stats", [])
    for r in d.get("reclaims", []):
        line = r["line"]
        before = [s for s in stats if s["line"] < line]
        after = [s for s in stats if s["line"] > line]
        stolen = None
        if before and after:
            stolen = after[0]["stat"]["pgsteal"] - before[-1]["stat"]["pgsteal"]
        later = [ln for ln in at if ln > line]
        secs = None
        if line in at and later:
            secs = (at[min(later)] - at[line]) / 1e9
        rows.append({"run": os.path.basename(path), "policy": d.get("policy"),
                     "device": device(meta), "result": r["result"], "pages": stolen,
                     "seconds": secs, **{k: d["vmstat"].get(k) for k in COUNTERS}})
    return rows


def model_rows(binary, trace):
    rows = []
    for policy in ("classic", "mglru"):
        out = subprocess.run([binary, "run", trace, "--policy", policy, "--json", "-"],
                             capture_output=True, text=True, check=True)
        d = json.loads(out.stdout)
        for r in d.get("reclaims", []):
            rows.append({"run": "model", "policy": policy, "device": "model,sync=n",
                         "result": r["result"], "pages": r.get("reclaimed_pages"),
                         "seconds": None, **{k: d["vmstat"].get(k) for k in COUNTERS}})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--trace", default=os.path.join(HERE, "traces-extra", "reclaim-async-swap.trace"))
    ap.add_argument("--mglru", default=os.path.join(HERE, "..", "target", "release", "mglru"))
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    for p in a.results:
        rows += kernel_row(p)
    if os.path.exists(a.mglru):
        rows += model_rows(a.mglru, a.trace)
    else:
        sys.stderr.write(f"async_swap: no model binary at {a.mglru}: kernel rows only\n")
    cols = ["run", "policy", "device", "result", "pages", "seconds"] + COUNTERS
    short = {"nr_vmscan_immediate_reclaim": "immediate"}
    print("\t".join(short.get(c, c) for c in cols))
    for r in rows:
        print("\t".join("-" if r[c] is None else (f"{r[c]:.2f}" if c == "seconds" else str(r[c]))
                        for c in cols))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
