#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Kernel-side noise: two runs of the reference suite against each other.

    validation/run-suite.sh --out validation/work/repeat      # a second kernel run of every trace
    python3 validation/noise.py validation/results validation/work/repeat [--json OUT]

For every trace, policy and published counter (the COUNTERS of mglru validate), prints both
kernel values and their relative difference |a - b| / max(a, b, floor), with the floors
`mglru validate` uses (256 pages; 1024 KiB for pgpgin; 16 nodes for workingset_nodereclaim),
then the median and maximum per policy over the counters where either run reached the floor.
"""

import argparse
import json
import os
import statistics
import sys

COUNTERS = ["workingset_refault_file", "workingset_refault_anon", "pgpgin", "pswpin", "pswpout",
            "pgsteal_file", "pgsteal_anon", "pgscan_file", "pgscan_anon", "workingset_activate_file",
            "workingset_nodereclaim"]


def floor_of(c):
    return {"pgpgin": 1024.0, "workingset_nodereclaim": 16.0}.get(c, 256.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="a folder of NAME.MODE.json kernel results")
    ap.add_argument("b", help="another run of the same traces")
    ap.add_argument("--json", help="write the rows and the summary here")
    args = ap.parse_args()
    rows = []
    for fn in sorted(os.listdir(args.a)):
        if not fn.endswith(".json"):
            continue
        pb = os.path.join(args.b, fn)
        if not os.path.exists(pb):
            print(f"noise: {fn}: not in {args.b}, skipped", file=sys.stderr)
            continue
        ra, rb = (json.load(open(p)) for p in (os.path.join(args.a, fn), pb))
        trace, mode = fn[:-len(".json")].rsplit(".", 1)
        for c in COUNTERS:
            x, y = ra["vmstat"].get(c, 0), rb["vmstat"].get(c, 0)
            f = floor_of(c)
            rel = abs(x - y) / max(x, y, f)
            rows.append({"trace": trace, "mode": mode, "policy": ra["policy"], "counter": c, "a": x, "b": y,
                         "rel": rel, "counted": max(x, y) >= f})
    print(f"{'trace':<30} {'mode':<8} {'counter':<26} {'run a':>10} {'run b':>10} {'diff':>7}")
    for r in rows:
        if r["counted"]:
            print(f"{r['trace']:<30} {r['mode']:<8} {r['counter']:<26} {r['a']:>10} {r['b']:>10} {r['rel'] * 100:>6.1f}%")
    summary = {}
    for pol in ("mglru", "classic"):
        v = [r for r in rows if r["policy"] == pol and r["counted"]]
        if v:
            worst = max(v, key=lambda r: r["rel"])
            summary[pol] = {"median": statistics.median(r["rel"] for r in v), "max": worst["rel"],
                            "worst": f"{worst['trace']} {worst['counter']}", "counters": len(v)}
            print(f"{pol}: median {summary[pol]['median'] * 100:.2f}%, max {worst['rel'] * 100:.1f}% "
                  f"({summary[pol]['worst']}) over {len(v)} counters")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
