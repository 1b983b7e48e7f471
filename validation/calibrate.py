#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure the ground-truth platform's operation costs for the model's cost model.

The kernel side of `mglru validate` runs in a QEMU/TCG guest whose CPU is emulated and whose
disk and swap are RAM disks (brd). Its clock runs at that platform's speed, and so do the
kernel's time-driven mechanisms (the 2 s memcg statistics flush, the flusher, min_ttl). For the
model's simulated time to advance like the guest's, the model must use the guest's costs, not the
NVMe-class defaults. This script measures them with micro-traces on the guest, each pair
differing only in one measured phase, so set-up, start-up and settle time cancel:

    cost of one operation = (wall(base + phase) - wall(base)) / operations in the phase

and writes validation/platform.json, which `mglru validate` applies to the model's runs. No
counter of the reference suite is used: the costs come from timing alone.

    python3 validation/calibrate.py [--jobs 2] [--keep-traces]

Takes about 10 minutes on 2 cores (12 guest boots). Needs validation/setup.sh done.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work", "calibration")

N = 40000          # 1-page operations in a measured phase
N32 = 2000         # 32-page reads
NLOAD4096 = 20     # loads of a 4096-page run
NSWAP = 20000      # loads that swap in


class Lcg:
    """A fixed 64-bit LCG so the traces are the same bytes everywhere."""

    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.x >> 33) % n


def shuffled(seed, n):
    """0..n-1 in a Fisher-Yates order drawn from Lcg(seed)."""
    order = list(range(n))
    r = Lcg(seed)
    for i in range(n - 1, 0, -1):
        j = r.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def head(name, extra=()):
    return [f"# calibration: {name} (validation/calibrate.py)", "memory 512M",
            "sysctl vm.page-cluster=0", *extra]


def traces():
    t = {}
    file_setup = ["memcg app", "file f size=16M readahead=0", "task t memcg=app"]
    populate = [f"read t f {p} 32" for p in range(0, 4096, 32)]
    t["file-base"] = head("file-base") + file_setup + populate
    r = Lcg(1)
    t["read-hit-1"] = t["file-base"] + [f"read t f {r.below(4096)} 1" for _ in range(N)]
    r = Lcg(2)
    t["read-hit-32"] = t["file-base"] + [f"read t f {r.below(4096 - 32)} 32" for _ in range(N32)]

    anon_setup = ["memcg app", "task t memcg=app", "anon t h size=16M", "store t h 0 4096"]
    t["anon-base"] = head("anon-base") + anon_setup
    r = Lcg(3)
    t["load-1"] = t["anon-base"] + [f"load t h {r.below(4096)} 1" for _ in range(N)]
    t["load-4096"] = t["anon-base"] + ["load t h 0 4096"] * NLOAD4096

    t["none"] = head("none") + ["memcg app", "task t memcg=app", "anon t h size=160M",
                                "file f size=256M readahead=0"]
    order = shuffled(4, N)
    t["fault"] = t["none"] + [f"store t h {p} 1" for p in order]
    t["miss"] = t["none"] + [f"read t f {p} 1" for p in order]
    t["miss-reclaim"] = (head("miss-reclaim") + ["memcg app max=16M", "task t memcg=app",
                         "anon t h size=160M", "file f size=256M readahead=0"]
                         + [f"read t f {p} 1" for p in order])

    swap_setup = ["swap 256M sync=y", "memcg app max=32M", "task t memcg=app", "anon t h size=64M",
                  *[f"store t h {p} 1" for p in range(16384)]]
    t["swap-base"] = head("swap-base") + swap_setup
    t["swap-in"] = t["swap-base"] + [f"load t h {i % 16384} 1" for i in range(NSWAP)]
    return t


def run_guest(cmd, label, prog):
    """Run run-kernel.sh's `cmd`, three tries (a TCG boot panics now and then); the failure of
    the last names `label` and the calling script `prog`."""
    for attempt in range(3):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode == 0:
            return
        print(f"{prog}: {label}: run-kernel.sh failed ({p.returncode}), attempt {attempt + 1}", file=sys.stderr)
    raise SystemExit(f"{prog}: {label}: run-kernel.sh failed three times:\n{p.stderr}")


def run(name, lines, replayer):
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, name + ".trace")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(WORK, name + ".json")
    cmd = [os.path.join(HERE, "run-kernel.sh"), path, "--mode", "mglru", "--out", out]
    if replayer:
        cmd += ["--replayer", replayer]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"calibrate: {name}: run-kernel.sh failed ({p.returncode}):\n{p.stderr}")
    with open(out) as f:
        return name, json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--replayer", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "platform.json"))
    a = ap.parse_args()
    ts = traces()
    res = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for name, r in ex.map(lambda kv: run(kv[0], kv[1], a.replayer), ts.items()):
            res[name] = r
            print(f"calibrate: {name}: {r['wall_seconds']:.3f} s", file=sys.stderr)

    w = {k: v["wall_seconds"] * 1e9 for k, v in res.items()}

    def per(phase, base, n):
        return (w[phase] - w[base]) / n

    c_hit1 = per("read-hit-1", "file-base", N)
    c_hit32 = per("read-hit-32", "file-base", N32)
    page_copy = (c_hit32 - c_hit1) / 31
    op_read = c_hit1 - page_copy
    c_load1 = per("load-1", "anon-base", N)
    c_load4096 = per("load-4096", "anon-base", NLOAD4096)
    mem_access = (c_load4096 - c_load1) / 4095
    op_load = c_load1 - mem_access
    op = (op_read + op_load) / 2
    minor_fault = per("fault", "none", N) - op
    c_miss = per("miss", "none", N)
    disk_read = c_miss - op - page_copy
    scanned = res["miss-reclaim"]["vmstat"].get("pgscan_file", 0) + res["miss-reclaim"]["vmstat"].get("pgscan_anon", 0)
    scan = (per("miss-reclaim", "none", N) - c_miss) * N / max(scanned, 1)
    sv, bv = res["swap-in"]["vmstat"], res["swap-base"]["vmstat"]
    d_scan = (sv.get("pgscan_anon", 0) + sv.get("pgscan_file", 0)) - (bv.get("pgscan_anon", 0) + bv.get("pgscan_file", 0))
    swap_read = per("swap-in", "swap-base", NSWAP) - op - minor_fault - scan * d_scan / NSWAP

    cost = {
        "op": op, "mem_access": mem_access, "page_copy": page_copy, "minor_fault": minor_fault,
        "disk_read": disk_read, "disk_write": 0, "disk_write_delay": 0, "swap_read": swap_read, "swap_write": 0, "scan": scan,
    }
    cost = {k: max(0, int(round(v))) for k, v in cost.items()}
    kernel = res["none"].get("kernel", "")
    doc = {
        "what": "operation costs of the ground-truth platform (QEMU/TCG guest, brd disk and swap), "
                "measured by validation/calibrate.py; mglru validate runs the model with them",
        "kernel": kernel,
        "date": datetime.date.today().isoformat(),
        # run-kernel.sh's guest (-smp 2): the model's machine gets as many CPUs.
        "cpus": 2,
        "cost": cost,
        "derived": {
            "op_read_ns": round(op_read), "op_load_ns": round(op_load),
            "read_hit_1_ns": round(c_hit1), "read_hit_32_ns": round(c_hit32),
            "load_1_ns": round(c_load1), "load_4096_ns": round(c_load4096),
            "miss_ns": round(c_miss), "miss_reclaim_pgscan": scanned, "swap_in_pgscan": d_scan,
        },
        "wall_seconds": {k: round(v["wall_seconds"], 6) for k, v in sorted(res.items())},
        "notes": "disk_write, disk_write_delay and swap_write are 0: brd completes writes synchronously, and their "
                 "time is part of the reclaim and swap-in costs measured here",
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=False)
        f.write("\n")
    print(json.dumps(doc["cost"], indent=2))


if __name__ == "__main__":
    main()
