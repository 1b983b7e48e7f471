#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The model with and without grouping pages by mobility (`--migratetypes`)
against every kernel run of a trace (issue 12; docs/FIDELITY.md
simplification 3).

For each kernel run (a result folder under validation/) the model follows
that run's clock (`mglru validate --results RUN --trace NAME --json -`),
once without and once with --migratetypes, in each kswapd mode; per
policy and counter it prints in how many runs the model is within 5 % of
the kernel and its largest error, without / with.

Usage: validation/migratetypes_spread.py [--mglru PATH] [--trace NAME] [RUN...]
(default: target/release/mglru, global-swap-brd, and its twelve runs:
results, results-repeat, results-spread/run3..run12)
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = ["results", "results-repeat"] + [f"results-spread/run{i}" for i in range(3, 13)]


def rows(mglru, run, trace, kswapd, migratetypes):
    """(policy, counter) -> relative error of the model following `run`."""
    cmd = [mglru, "validate", "--suite", HERE, "--results", run, "--trace", trace,
           "--kswapd", kswapd, "--json", "-"]
    if migratetypes:
        cmd.append("--migratetypes")
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = r.stdout
    if "{" not in out:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    doc = json.loads(out[out.index("{"):])
    return {(x["policy"], x["counter"]): x["rel_err"] for x in doc["rows"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mglru", default=os.path.join(HERE, "..", "target", "release", "mglru"))
    ap.add_argument("--trace", default="global-swap-brd")
    ap.add_argument("runs", nargs="*", help="result folders under validation/ (default: the twelve global-swap-brd runs)")
    a = ap.parse_args()
    runs = a.runs or RUNS
    for kswapd in ("instant", "thread"):
        per = {False: [], True: []}
        for mt in (False, True):
            for run in runs:
                per[mt].append(rows(a.mglru, run, a.trace, kswapd, mt))
        keys = [k for k in per[False][0] if k[1] != "workingset_nodereclaim"]
        print(f"{a.trace}, kswapd {kswapd}: runs within 5 % (largest error), without / with --migratetypes, over {len(runs)} runs")
        for k in keys:
            cells = []
            for mt in (False, True):
                errs = [r[k] for r in per[mt]]
                cells.append(f"{sum(e <= 0.05 for e in errs):2} ({max(errs) * 100:5.1f}%)")
            print(f"  {k[0]:8} {k[1]:26} {cells[0]}   {cells[1]}")


if __name__ == "__main__":
    main()
