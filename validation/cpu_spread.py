#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""CPU time and memory pressure: the kernel's spread over several runs, and the model against each.

    validation/run-suite.sh --out validation/results-cpu/run1 memcg-high-two-tasks ...
    python3 validation/cpu_spread.py results-cpu/run1 results-cpu/run2 results-cpu/run3 \
        --trace memcg-high-two-tasks [--trace ...] [--json OUT]

Folders are named relative to validation/ (as `mglru validate --results` takes them) and must
hold results recorded by a replayer that measures PSI (a `psi` key). For every trace, policy
and figure of `mglru validate`'s CPU table (each task's stime, kswapd's CPU time, PSI some/full
totals of the system and each memcg, in seconds; allocstall and pgscan/pgsteal by direct reclaim
and kswapd, in pages) it prints the kernel's value in each run, their range and spread
((max - min) / mean), the model's value against each run (the model takes that run's start
zones and clock) and the model's ratio to the kernel per run; for times, also that ratio per
second of workload (each side's figure over its workload time: the guest's wall clock, the
model's own cost-model clock), since TCG's speed follows the host's load. Nothing is checked: the figures
are for setting thresholds later. Needs target/release/mglru (cargo build --release).
"""

import argparse
import json
import os
import sys

from spread import HERE, MGLRU, validate_json


def cpu_rows(results, trace):
    """The CPU table of one run: {(policy, figure): (kernel or None, model)}."""
    doc = validate_json(results, trace, "cpu_spread")
    if "cpu" not in doc:
        sys.exit(f"cpu_spread: validation/{results} has no CPU and PSI figures for {trace} "
                 f"(recorded before the replayer measured PSI, or no result for the trace)")
    return {(x["policy"], x["figure"]): (x["kernel"], x["model"]) for x in doc["cpu"]}


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="result folders under validation/, one per kernel run")
    ap.add_argument("--trace", action="append", required=True, help="a trace name (repeatable)")
    ap.add_argument("--json", help="also write the table as JSON to this file")
    args = ap.parse_args()
    if not os.access(MGLRU, os.X_OK):
        sys.exit(f"cpu_spread: no {MGLRU}: run cargo build --release -p mglru-cli first")
    for d in args.runs:
        if not os.path.isdir(os.path.join(HERE, d)):
            sys.exit(f"cpu_spread: validation/{d} is not a folder of kernel results")
    doc = []
    for trace in args.trace:
        per_run = [cpu_rows(d, trace) for d in args.runs]
        keys = list(per_run[0])
        print(f"{trace}: kernel per run | kernel range, spread | model per run | model / kernel per run"
              " | the same per second of workload (times only)")
        for pol, fig in keys:
            ks = [rows.get((pol, fig), (None, None))[0] for rows in per_run]
            ms = [rows.get((pol, fig), (None, None))[1] for rows in per_run]
            known = [k for k in ks if k is not None]
            if known:
                lo, hi = min(known), max(known)
                mean = sum(known) / len(known)
                spread = (hi - lo) / mean if mean > 0 else 0.0
                rng = f"{fmt(lo)}..{fmt(hi)} {spread * 100:5.1f}%"
            else:
                lo = hi = spread = None
                rng = "-"
            ratios = [(m / k if k else None) if k is not None and m is not None else None for k, m in zip(ks, ms)]
            # The same ratio per second of workload (guest wall clock, model's own clock): the
            # guest's speed follows the host's load, the model's costs do not.
            if fig.startswith(("stime", "psi", "kswapd_cpu")):
                walls = [rows.get((pol, "workload_time"), (None, None)) for rows in per_run]
                norm = [r * kw / mw if r is not None and kw and mw else None for r, (kw, mw) in zip(ratios, walls)]
            else:
                norm = [None] * len(ratios)
            print(f"  {pol:8} {fig:28} " + " ".join(f"{fmt(k):>9}" for k in ks) + f" | {rng:>22} | "
                  + " ".join(f"{fmt(m):>9}" for m in ms) + " | "
                  + " ".join(f"{r:9.2f}" if r is not None else f"{'-':>9}" for r in ratios)
                  + (" | " + " ".join(f"{r:9.2f}" if r is not None else f"{'-':>9}" for r in norm)
                     if any(r is not None for r in norm) else ""))
            doc.append({"trace": trace, "policy": pol, "figure": fig, "kernel": ks, "model": ms,
                        "kernel_min": lo, "kernel_max": hi, "kernel_spread": spread, "model_over_kernel": ratios,
                        "model_over_kernel_per_workload_second": norm})
        print()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
