#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Kernel-side spread over several runs of some traces, and the model against each run.

    validation/run-suite.sh --out validation/results-spread/run3 lru-gen-0x0001 lru-gen-0x0003
    python3 validation/spread.py results results-repeat results-spread/run3 ... \
        --trace lru-gen-0x0001 --trace lru-gen-0x0003

Folders are named relative to validation/ (as `mglru validate --results` takes them). For every
trace, run and published counter, prints the kernel's value, the model's value when its clock
follows that run (`mglru validate --results DIR --trace NAME`), and the relative error with
`mglru validate`'s floors; then, per trace and counter, the kernel's range over the runs and
the model's smallest and largest error against them, and in how many runs it is within 5 %. Needs target/release/mglru (cargo build --release).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from noise import COUNTERS, floor_of

HERE = os.path.dirname(os.path.abspath(__file__))
MGLRU = os.path.join(HERE, "..", "target", "release", "mglru")


def validate_json(results, trace, prog="spread", kswapd=None):
    """`mglru validate --results RESULTS --trace TRACE --json`'s document (the model
    following that run); `prog` names the calling script in the error; `kswapd` the
    model's kswapd mode (None: validate's default)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cmp.json")
        mode = [] if kswapd is None else ["--kswapd", kswapd]
        r = subprocess.run([MGLRU, "validate", "--suite", HERE, "--results", results, "--trace", trace,
                            "--json", out] + mode, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"{prog}: mglru validate --results {results} --trace {trace} failed: {r.stderr.strip()}")
        with open(out) as f:
            return json.load(f)


def model_rows(results, trace, kswapd=None):
    """The model against one run: {(policy, counter): (kernel, model)}."""
    rows = validate_json(results, trace, kswapd=kswapd)["rows"]
    return {(x["policy"], x["counter"]): (x["kernel"], x["model"]) for x in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="result folders under validation/, one per kernel run")
    ap.add_argument("--trace", action="append", required=True, help="a trace name (repeatable)")
    ap.add_argument("--kswapd", choices=["instant", "thread"], help="the model's kswapd mode (default: validate's)")
    args = ap.parse_args()
    if not os.access(MGLRU, os.X_OK):
        sys.exit(f"spread: no {MGLRU}: run cargo build --release first")
    for d in args.runs:
        if not os.path.isdir(os.path.join(HERE, d)):
            sys.exit(f"spread: validation/{d} is not a folder of kernel results")
    for trace in args.trace:
        per_run = [(d, model_rows(d, trace, args.kswapd)) for d in args.runs]
        keys = [k for k in per_run[0][1] if k[1] in COUNTERS]
        print(f"{trace}: kernel / model per run (rel. error)")
        print(f"  {'policy':8} {'counter':26} " + " ".join(f"{os.path.basename(d):>22}" for d, _ in per_run))
        for pol, c in keys:
            cells = []
            for _, rows in per_run:
                k, m = rows.get((pol, c), (0, 0))
                err = abs(m - k) / max(k, floor_of(c))
                cells.append(f"{k:>7.0f}/{m:<7.0f}{100 * err:5.1f}%")
            print(f"  {pol:8} {c:26} " + " ".join(f"{x:>22}" for x in cells))
        print(f"  over {len(per_run)} runs: the kernel's range; the model's error against each run "
              f"(its clock following that run): smallest, largest, runs within 5 %")
        for pol, c in keys:
            pairs = [rows[(pol, c)] for _, rows in per_run if (pol, c) in rows]
            ks = [k for k, _ in pairs]
            errs = [abs(m - k) / max(k, floor_of(c)) for k, m in pairs]
            near = sum(1 for e in errs if e <= 0.05)
            print(f"  {pol:8} {c:26} kernel {min(ks):>6.0f}..{max(ks):<6.0f} model error "
                  f"{100 * min(errs):5.1f}% .. {100 * max(errs):5.1f}%, within 5 % in {near} of {len(errs)} runs")
        print()


if __name__ == "__main__":
    main()
