#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`mglru sweep` against the same configurations run one after another.

Writes the benchmark trace of bench/zipf_bench.py (same generator, same
defaults: 10,000,000 zipf(1.2) reads over 1,048,576 pages, seed 20241117)
unless it exists, then times, in one invocation:

  1. the single runs: `mglru run TRACE --memory M --policy P` for every
     memory size and policy, one after another;
  2. one `mglru sweep TRACE --memory A..B/N --policy classic,mglru`
     (decodes the trace once, runs the configurations on all cores).

It checks that every sweep row carries the counters of the matching single
run, and prints both times and their ratio.

    python3 crates/mglru-cli/benches/sweep_bench.py [--memory 64M..512M/8] [--jobs N]

Needs numpy (bench/requirements.txt) and target/release/mglru (built with
`cargo build --release -p mglru-cli` unless --no-build).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))
import zipf_bench  # noqa: E402  (the trace generator of the benchmark)

COUNTERS = ["pgpgin", "workingset_refault_file", "pgscan_file", "pgsteal_file", "pgmajfault"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memory", default="64M..512M/8", help="memory axis (default 64M..512M/8)")
    ap.add_argument("--policies", default="classic,mglru")
    ap.add_argument("--jobs", default="0", help="sweep threads (default 0 = one per core)")
    ap.add_argument("--out", default=str(ROOT / "bench-out"), help="where the trace is kept (default bench-out/)")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()

    import numpy as np

    gen = argparse.Namespace(accesses=10_000_000, pages=1 << 20, alpha=1.2, memory_fraction=0.05, seed=20241117)
    mem_pages = round(gen.pages * gen.memory_fraction)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trace = out / "zipf.trace"
    if not trace.exists():
        print(f"writing {trace}", file=sys.stderr)
        pages = zipf_bench.zipf_pages(gen, np)
        zipf_bench.write_text(trace, zipf_bench.trace_header(gen, mem_pages), pages, np, gen.accesses)
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "mglru-cli"], cwd=ROOT, check=True)
    mglru = str(ROOT / "target" / "release" / "mglru")

    with tempfile.TemporaryDirectory() as tmp:
        # The grid's memory values, as the sweep expands them (its CSV says).
        probe = Path(tmp) / "probe.csv"
        subprocess.run([mglru, "sweep", "--workload", "ebizzy:seq=16,loops=1", "--memory", args.memory,
                        "--csv", str(probe), "--quiet", "--no-progress"], check=True, stdout=subprocess.DEVNULL)
        sizes = [r["memory"] for r in csv.DictReader(probe.open())]
        policies = args.policies.split(",")

        t0 = time.perf_counter()
        singles = {}
        for p in policies:
            for m in sizes:
                j = Path(tmp) / f"{p}-{m}.json"
                subprocess.run([mglru, "run", str(trace), "--memory", m, "--policy", p, "--json", str(j),
                                "--quiet", "--no-progress"], check=True)
                singles[(p, m)] = json.loads(j.read_text())
        t_single = time.perf_counter() - t0

        sweep_csv = Path(tmp) / "sweep.csv"
        t0 = time.perf_counter()
        subprocess.run([mglru, "sweep", str(trace), "--memory", args.memory, "--policy", args.policies,
                        "--jobs", args.jobs, "--csv", str(sweep_csv), "--quiet", "--no-progress"], check=True)
        t_sweep = time.perf_counter() - t0

        rows = list(csv.DictReader(sweep_csv.open()))
        assert len(rows) == len(singles), (len(rows), len(singles))
        for r in rows:
            s = singles[(r["policy"], r["memory"])]
            for c in COUNTERS:
                if int(r[c]) != s["vmstat"][c]:
                    sys.exit(f"sweep row {r['policy']} {r['memory']}: {c} {r[c]} != single run's {s['vmstat'][c]}")

    n = len(singles)
    print(f"trace: {trace} ({gen.accesses} accesses); grid: --memory {args.memory} x --policy {args.policies} "
          f"= {n} configurations; {os.cpu_count()} CPUs, --jobs {args.jobs}")
    print(f"{n} single runs one after another: {t_single:7.2f} s")
    print(f"one sweep:                      {t_sweep:7.2f} s")
    print(f"sweep / single runs:            {t_sweep / t_single:7.3f}")
    print(f"counters of all {n} sweep rows equal the single runs'")


if __name__ == "__main__":
    main()
