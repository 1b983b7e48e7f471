#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where the ground-truth platform's per-operation time goes: the task's user time, its system
time, or neither (the replayer's controller has the CPU); with --two-tasks also what a line costs
when the trace hands consecutive lines to tasks pinned on different CPUs (measured, not modelled).

validation/calibrate.py measures the cost of one replayed operation (`op`) from wall times. On the
guest that time is mostly the replayer's own dispatch: the controller sends each line to the
task's worker process over a socket and waits for its answer, so the worker spends the operation
in read()/write() system calls, and part of it asleep while the controller parses the next line.
The model charged all of `op` as the task's user time; the guest's /proc/PID/stat says otherwise
(task stime is 18-76 % of the workload's time on every reference trace, utime 1-3 %).

Pairs that differ in one phase only, as calibrate.py's, with the worker's utime/stime
(`task_cpu_seconds`, from /proc/PID/stat) beside the wall time:

    anon-base / load-1          one task, N loads of resident pages: per operation, the wall
                                time and the worker's user and system time
    two-base  / two-alternate   two tasks pinned to CPU 0 and CPU 1, N loads alternating a, b
    two-base  / two-blocks      the same loads, all of a's then all of b's

load-1 gives the split of `op` (ratios of the worker's CPU times to the operation's wall time;
ratios, because TCG's speed follows the host's load while the shares move less);
two-alternate against two-blocks (--two-tasks) gives the extra wall time of a line whose task
differs from the line before's (a switch between workers on two CPUs), as a ratio to load-1's
operation.

    python3 validation/calibrate_split.py [--replayer PATH] [--repeats 5] [--two-tasks] [--out FILE] [--apply]

Writes the measured figures to FILE (default validation/work/calibration/split.json) and prints
the medians; `--apply` also writes the split into validation/platform.json (`op_split`, and the
costs `op`, `op_sys` and `op_wait`, which add up to its measured `op`, `disk_read` and
`disk_read_sys`, which add up to its measured `disk_read`, and `write_new`, what a full-page
buffered write to a page not cached costs beyond the operation and `page_copy`, from 10,000 such
writes (`none` -> `write-miss`)). No counter of the reference suite is used.
"""

import argparse
import datetime
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from calibrate import Lcg, run_guest, shuffled  # noqa: E402  (the pairs' helpers)

WORK = os.path.join(HERE, "work", "calibration")

N = 40000       # loads in the one-task phase
NW = 10000      # full-page writes (39 MiB: below the guest's background dirty threshold)
N2 = 8000       # loads in each two-task phase (they are slow: a socket round trip across CPUs)


def head(name, extra=()):
    return [f"# calibration: {name} (validation/calibrate_split.py)", "memory 512M",
            "sysctl vm.page-cluster=0", *extra]


def traces(two_tasks):
    t = {}
    one = ["memcg app", "task t memcg=app", "anon t h size=16M", "store t h 0 4096"]
    t["anon-base"] = head("anon-base") + one
    r = Lcg(3)
    t["load-1"] = t["anon-base"] + [f"load t h {r.below(4096)} 1" for _ in range(N)]
    # A read that misses the page cache (calibrate.py's "miss" pair): how much of the
    # disk read is the reader's system time (brd copies the page inside submit_bio).
    t["none"] = head("none") + ["memcg app", "task t memcg=app", "anon t h size=160M",
                                "file f size=256M readahead=0"]
    t["miss"] = t["none"] + [f"read t f {p} 1" for p in shuffled(4, N)]
    # Full-page writes to pages not cached (ext4's buffered write path), few enough to stay
    # below the background dirty threshold: the cost of a page a write adds (write_new).
    t["write-miss"] = t["none"] + [f"write t f {p} 1" for p in shuffled(6, NW)]
    if not two_tasks:
        return t
    two = ["memcg app", "task a memcg=app cpu=0", "task b memcg=app cpu=1",
           "anon a ha size=16M", "anon b hb size=16M", "store a ha 0 4096", "store b hb 0 4096"]
    t["two-base"] = head("two-base", ["cpus 2"]) + two
    r = Lcg(5)
    pages = [r.below(4096) for _ in range(N2)]
    alt = [f"load {'a' if i % 2 == 0 else 'b'} {'ha' if i % 2 == 0 else 'hb'} {p} 1" for i, p in enumerate(pages)]
    t["two-alternate"] = t["two-base"] + alt
    blocks = ([f"load a ha {p} 1" for p in pages[0::2]] + [f"load b hb {p} 1" for p in pages[1::2]])
    t["two-blocks"] = t["two-base"] + blocks
    return t


def run(name, lines, replayer, rep):
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, f"split-{name}.trace")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(WORK, f"split-{name}.{rep}.json")
    cmd = [os.path.join(HERE, "run-kernel.sh"), path, "--mode", "mglru", "--out", out, "--timeout", "900"]
    if replayer:
        cmd += ["--replayer", replayer]
    run_guest(cmd, f"{name} run {rep}", "calibrate_split")
    with open(out) as f:
        return json.load(f)


def cpu(res, task):
    c = res.get("task_cpu_seconds", {}).get(task)
    if c is None:
        sys.exit(f"calibrate_split: a result has no task_cpu_seconds for task {task}: replayer too old?")
    return c["utime"], c["stime"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replayer", default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--two-tasks", action="store_true", help="also the two-task pairs (task_switch)")
    ap.add_argument("--out", default=os.path.join(WORK, "split.json"))
    ap.add_argument("--apply", action="store_true", help="write the split into validation/platform.json")
    a = ap.parse_args()
    if a.repeats < 1:
        sys.exit("calibrate_split: --repeats must be at least 1")
    ts = traces(a.two_tasks)
    runs = []
    for rep in range(a.repeats):
        res = {}
        for name, lines in ts.items():
            res[name] = run(name, lines, a.replayer, rep)
            print(f"calibrate_split: run {rep} {name}: {res[name]['wall_seconds']:.3f} s "
                  f"{res[name].get('task_cpu_seconds')}", file=sys.stderr)
        w = {k: v["wall_seconds"] for k, v in res.items()}
        d_wall = w["load-1"] - w["anon-base"]
        (u1, s1), (u0, s0) = cpu(res["load-1"], "t"), cpu(res["anon-base"], "t")
        op_wall = d_wall / N
        user_share = (u1 - u0) / d_wall
        sys_share = (s1 - s0) / d_wall
        d_write = w["write-miss"] - w["none"]
        (uw, sw) = cpu(res["write-miss"], "t")
        d_miss = w["miss"] - w["none"]
        (um, sm), (un, sn) = cpu(res["miss"], "t"), cpu(res["none"], "t")
        one = {
            "op_wall_ns": op_wall * 1e9,
            "user_share": user_share,
            "sys_share": sys_share,
            "miss_wall_ns": d_miss / N * 1e9,
            "miss_user_share": (um - un) / d_miss,
            "miss_sys_share": (sm - sn) / d_miss,
            "write_wall_ns": d_write / NW * 1e9,
            "write_to_op": d_write / NW / op_wall,
            "write_sys_share": (sw - sn) / d_write,
            "wall_seconds": w,
            "task_cpu_seconds": {k: v.get("task_cpu_seconds") for k, v in res.items()},
        }
        if a.two_tasks:
            alt = (w["two-alternate"] - w["two-base"]) / N2
            blk = (w["two-blocks"] - w["two-base"]) / N2
            one["two_alternate_ns"] = alt * 1e9
            one["two_blocks_ns"] = blk * 1e9
            # a switch: the extra time of a line whose task differs from the line before's,
            # over a line that follows one of its own task (N2 - 1 switches against 1)
            one["switch_to_op"] = (alt - blk) * N2 / (N2 - 2) / op_wall
            one["blocks_to_op"] = blk / op_wall
        runs.append(one)
    keys = ["op_wall_ns", "user_share", "sys_share", "miss_wall_ns", "miss_user_share", "miss_sys_share",
            "write_wall_ns", "write_to_op", "write_sys_share"]
    if a.two_tasks:
        keys += ["two_alternate_ns", "two_blocks_ns", "switch_to_op", "blocks_to_op"]
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    spread = {k: [min(r[k] for r in runs), max(r[k] for r in runs)] for k in keys}
    doc = {"what": "the replayed operation's time split on the guest (validation/calibrate_split.py)",
           "repeats": a.repeats, "median": med, "range": spread, "runs": runs}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(json.dumps(med, indent=2))
    if a.apply:
        apply(os.path.join(HERE, "platform.json"), med, spread, a.repeats)


def apply(path, med, spread, repeats):
    """Split platform.json's measured costs by the shares: the operation (`op`, `op_sys`,
    `op_wait`) and the disk read (`disk_read` a wait, `disk_read_sys` the reader's system time:
    a miss line's system time is op_sys + page_copy + disk_read_sys)."""
    with open(path) as f:
        plat = json.load(f)
    c = plat["cost"]
    # The whole costs as calibrate.py measured them (an earlier split added back).
    op = c["op"] + c.get("op_sys", 0) + c.get("op_wait", 0)
    disk = c["disk_read"] + c.get("disk_read_sys", 0)
    user = round(op * med["user_share"])
    sys_ = round(op * med["sys_share"])
    miss = op + c["page_copy"] + disk
    disk_sys = min(disk, max(0, round(miss * med["miss_sys_share"]) - sys_ - c["page_copy"]))
    plat["op_split"] = {
        "what": "calibrate.py's measured operation and disk-read costs split by the replayer "
                "worker's shares of the time on the guest (/proc/PID/stat): the operation into "
                "user time (cost op), system time (op_sys) and neither (op_wait: the replayer's "
                "controller has the CPU); a page-cache miss's disk read into the reader's system "
                "time (disk_read_sys: brd copies the page inside submit_bio) and a wait (disk_read). "
                "Medians of validation/calibrate_split.py's runs",
        "user_share": round(med["user_share"], 4),
        "sys_share": round(med["sys_share"], 4),
        "miss_sys_share": round(med["miss_sys_share"], 4),
        "ranges": {k: [round(x, 4) for x in spread[k]] for k in ("user_share", "sys_share", "miss_sys_share")},
        "op_wall_ns": round(med["op_wall_ns"]),
        "repeats": repeats,
        "date": datetime.date.today().isoformat(),
    }
    # A full-page buffered write to a page not cached: what it costs beyond the operation and
    # the copy (allocating the page, adding it to the page cache, ext4's write_begin/write_end),
    # from its wall time as a multiple of the operation's in the same runs.
    write_new = max(0, round(med["write_to_op"] * op) - op - c["page_copy"])
    plat["op_split"]["write_to_op"] = round(med["write_to_op"], 4)
    plat["op_split"]["write_sys_share"] = round(med["write_sys_share"], 4)
    cost = {"op": user, "op_sys": sys_, "op_wait": op - user - sys_}
    # A line for another task than the line before's (two workers pinned to two CPUs): measured
    # with --two-tasks, as a multiple of the operation; kept from an earlier run otherwise.
    if "switch_to_op" in med:
        cost["task_switch"] = max(0, round(med["switch_to_op"] * op))
        plat["op_split"]["switch_to_op"] = round(med["switch_to_op"], 3)
    else:
        cost["task_switch"] = c.get("task_switch", 0)
    for k, v in c.items():
        if k not in cost and k not in ("disk_read", "disk_read_sys", "write_new", "task_switch"):
            cost[k] = v
        if k == "disk_read":
            cost["disk_read"] = disk - disk_sys
            cost["disk_read_sys"] = disk_sys
        if k == "page_copy":
            cost["write_new"] = write_new
    plat["cost"] = cost
    with open(path, "w") as f:
        json.dump(plat, f, indent=2)
        f.write("\n")
    print(f"calibrate_split: wrote op, op_sys, op_wait, disk_read, disk_read_sys and write_new into {path}")


if __name__ == "__main__":
    main()
