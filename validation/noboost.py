#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Watermark boosting and kswapd's wake-ups (issue 12; validation/README.md
"Watermark boosting").

For each kernel result of traces-extra/NAME-noboost (DIR/POLICY-runN.json:
the guest with vm.watermark_boost_factor=0) and, for contrast,
results/NAME.POLICY.json (the default boost factor, 15000), print the guest's
kswapd counters beside the model's with --kswapd instant and --kswapd thread,
the model following that run's clock as `mglru validate` does.

Usage: validation/noboost.py --mglru PATH [--trace NAME --results DIR] [--json OUT]
(default: two-memcgs-global-pressure and results-noboost)
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXTRA = ["pgscan_direct", "pgscan_kswapd", "allocstall_movable", "pageoutrun",
         "kswapd_low_wmark_hit_quickly"]
SHOWN = EXTRA + ["compact_daemon_wake"]


def model_counters(mglru, suite, sub, policy, kswapd, name):
    """The model's extra counters for one result (validate's comparison)."""
    out = subprocess.run(
        [mglru, "validate", "--suite", suite, "--results", sub, "--kswapd", kswapd,
         "--trace", name, "--extra", ",".join(EXTRA)],
        check=False, capture_output=True, text=True)
    if out.returncode not in (0, 4):
        sys.exit(f"mglru validate failed ({out.returncode}): {out.stderr.strip()}")
    got = {}
    pat = re.compile(rf"^{name}\s+{policy}\s+(\S+)\s+(\d+)\s+(\d+)\s")
    for line in out.stdout.splitlines():
        m = pat.match(line)
        if m and m.group(1) in EXTRA:
            got[m.group(1)] = int(m.group(3))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mglru", required=True, help="the mglru binary")
    ap.add_argument("--json", help="also write the table as JSON")
    ap.add_argument("--trace", default="two-memcgs-global-pressure",
                    help="the reference trace whose -noboost copy was replayed")
    ap.add_argument("--results", default="results-noboost",
                    help="the folder (in validation/) of the noboost kernel results")
    a = ap.parse_args()
    name = a.trace
    runs = []
    for path in sorted(glob.glob(os.path.join(HERE, a.results, "*-run*.json"))):
        policy, run = os.path.basename(path)[:-5].split("-")
        runs.append(("noboost", run, policy, path,
                     os.path.join(HERE, "traces-extra", f"{name}-noboost.trace.gz")))
    for policy in ("mglru", "classic"):
        runs.append(("boost 15000", "results/", policy,
                     os.path.join(HERE, "results", f"{name}.{policy}.json"),
                     os.path.join(HERE, "traces", f"{name}.trace.gz")))
    if not runs:
        sys.exit(f"no results in validation/{a.results}")
    rows = []
    with tempfile.TemporaryDirectory() as suite:
        os.mkdir(os.path.join(suite, "traces"))
        for f in ("platform.json", "thresholds.json"):
            shutil.copy(os.path.join(HERE, f), suite)
        for i, (boost, run, policy, path, trace) in enumerate(runs):
            # One suite per result, named as the reference trace (its
            # thresholds entry gives the guest's memory at the start).
            sub = f"r{i}"
            os.mkdir(os.path.join(suite, sub))
            shutil.copy(trace, os.path.join(suite, "traces", f"{name}.trace.gz"))
            shutil.copy(path, os.path.join(suite, sub, f"{name}.{policy}.json"))
            kernel = json.load(open(path))["vmstat"]
            row = {"boost": boost, "run": run, "policy": policy,
                   "kernel": {k: kernel.get(k, 0) for k in SHOWN}}
            for mode in ("instant", "thread"):
                row[mode] = model_counters(a.mglru, suite, sub, policy, mode, name)
            rows.append(row)
    print("guest boost  run          policy   counter                        kernel  model instant  model thread")
    for r in rows:
        for k in SHOWN:
            inst = r["instant"].get(k, "-")
            thr = r["thread"].get(k, "-")
            print(f"{r['boost']:<12} {r['run']:<12} {r['policy']:<8} {k:<30} {r['kernel'][k]:>7} {inst:>14} {thr:>13}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
