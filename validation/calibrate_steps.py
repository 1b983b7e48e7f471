#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Measure what each step of reclaim costs on the ground-truth platform, relative to `scan`.

The model charges reclaim's CPU time by step (docs/COST_MODEL.md): `scan` per folio scanned,
`rmap` per mapping an rmap walk visits, `pte` per page-table entry the multi-gen LRU examines,
`pageout` per folio reclaim writes out. validation/calibrate.py measures `scan` on an idle host;
this script measures the other three with pairs of micro-traces on the 6.12 guest, each pair
differing only in one phase (as calibrate.py does), and takes each as a ratio to `scan` measured
in the same batch. The guests run with QEMU's instruction counter (run-kernel.sh --icount 0: the
guest's clock advances 1 ns per guest instruction), so a loaded host does not inflate them: the
ratios are ratios of guest instructions.

    A  miss        vs miss-reclaim    clean unmapped file folios reclaimed by memcg limit: scan
    B  mmiss       vs mmiss-reclaim   the same folios mapped (mmap + load, MADV_RANDOM): scan + rmap
    B8 mmiss8      vs mmiss8-reclaim  the same with eight tasks mapping each folio: scan + 8 rmap;
                                      rmap = (B8 - B) per folio / 7 (same reclaim context)
    C  age-base    vs age             480 lru_gen aging commands (FORCE_SCAN), each examining the
                                      16,384 entries of a heap whose folios are another memcg's: pte
    D  swapout-base vs swapout        anon folios written to swap by memcg limit reclaim:
                                      scan + rmap + pte + pageout (the brd write is synchronous,
                                      so its copy is part of `pageout` on this platform)
    E  visit-base   vs visit          200 memory.reclaim writes that find nothing (each memcg's one
                                      page is anon, no swap: 17 calls of 26 shrink_node passes
                                      each), on a leaf memcg vs on its parent with 8 leaves: the
                                      same calls visiting 9 lruvecs a pass instead of 1: lruvec

    F  swapout      vs swapout-zram   D's swap-out onto zram instead of brd: zram_write, what a page
                                      compressed into zram costs the reclaimer beyond brd's copy
                                      (run alone, `--pairs F`, with the stored scan)

For each pair, delta guest time (the replayer's `wall_seconds`) = sum over steps of delta count x
cost. Folios scanned and written come from the kernel's own counters of the two runs
(pgscan_file + pgscan_anon + pgrefill; nr_vmscan_write); the kernel has no counter of rmap walks
or PTEs examined, so those come from the model's run of the same trace (`mglru run --json`,
`cpu.reclaim_work`) scaled to the kernel's scanned folios; so does the count of lruvecs visited
(E scans no folio: its delta is lruvec visits alone). Solved in the order A, C, B/B8, D, E.
Medians over --repeats runs of each trace; --reuse counts earlier runs of unchanged traces.

    python3 validation/calibrate_steps.py [--jobs 2] [--repeats 2] [--reuse] [--pairs A,B,C,D,E] [--write]

--write stores rmap, pte, pageout and lruvec (ratio x platform.json's scan) in
validation/platform.json, with the ratios, counts and wall times under "steps". `--pairs E` runs
pair E alone and takes `scan` of the same instruction-counted kind from the stored
steps.scan_this_batch_ns (A's result of an earlier full run). Needs validation/setup.sh done and
the static replayer built (validation/README.md).
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import calibrate  # noqa: E402  (its trace helpers and guest runner)

WORK = os.path.join(HERE, "work", "calibration-steps")
N = 40000       # single-page operations in a measured phase
HEAP = 16384    # pages of the anon heap walked by each aging command
ROUNDS = 480    # aging commands
RECLAIMS = 200  # memory.reclaim writes of pair E
PAIRS = {"A": ("miss", "miss-reclaim"), "B": ("mmiss", "mmiss-reclaim"), "B8": ("mmiss8", "mmiss8-reclaim"),
         "C": ("age-base", "age"), "D": ("swapout-base", "swapout"), "E": ("visit-base", "visit"),
         "F": ("swapout", "swapout-zram")}


def traces():
    head = calibrate.head
    t = {}
    order = calibrate.shuffled(4, N)
    base = ["anon t h size=160M", "file f size=256M readahead=0"]
    t["miss"] = head("miss") + ["memcg app", "task t memcg=app", *base] + [f"read t f {p} 1" for p in order]
    t["miss-reclaim"] = (head("miss-reclaim") + ["memcg app max=16M", "task t memcg=app", *base]
                         + [f"read t f {p} 1" for p in order])
    mapped = [*base, "mmap t m file=f", "advise t m random"]
    t["mmiss"] = head("mmiss") + ["memcg app", "task t memcg=app", *mapped] + [f"load t m {p} 1" for p in order]
    t["mmiss-reclaim"] = (head("mmiss-reclaim") + ["memcg app max=16M", "task t memcg=app", *mapped]
                          + [f"load t m {p} 1" for p in order])
    # The walked mm's folios belong to another memcg: the task moves to
    # `walked` after faulting its heap in `app` (v2: the charges stay, the
    # mm joins walked's mm list), so each aging command of `walked` examines
    # the heap's PTEs but has no folio to promote, and with no folios of
    # its own `walked` moves none between generations (inc_min_seq) either.
    aging = ["memcg app", "memcg walked", "task t memcg=app", "anon t h size=64M", f"store t h 0 {HEAP}",
             "task t memcg=walked"]
    # Eight tasks map the file and load each page one after the other, so
    # each folio reclaim frees has eight mappings for try_to_unmap: against
    # the one-mapping pair B, the reclaim differs only in 7 more rmap steps
    # a folio (the reclaim context being the same fault path).
    tasks8 = [f"task t{i} memcg=app" for i in range(8)]
    mapped8 = ["file f size=256M readahead=0", *[f"mmap t{i} m file=f" for i in range(8)],
               *[f"advise t{i} m random" for i in range(8)]]
    loads8 = [f"load t{i} m {p} 1" for p in order for i in range(8)]
    t["mmiss8"] = head("mmiss8") + ["memcg app", *tasks8, *mapped8] + loads8
    t["mmiss8-reclaim"] = head("mmiss8-reclaim") + ["memcg app max=16M", *tasks8, *mapped8] + loads8
    swap = ["swap 256M sync=y"]
    t["age-base"] = head("age-base", swap) + aging
    t["age"] = head("age", swap) + aging + [f"lru_gen + walked 0 {3 + i} 60 1" for i in range(ROUNDS)]
    so = ["anon t h size=160M"]
    t["swapout-base"] = (head("swapout-base", swap) + ["memcg app", "task t memcg=app", *so]
                         + [f"store t h {p} 1" for p in order])
    t["swapout"] = (head("swapout", swap) + ["memcg app max=16M", "task t memcg=app", *so]
                    + [f"store t h {p} 1" for p in order])
    # The same swap-out onto zram (lz4, the data's ratio as anon-zipf-zram
    # measured it): the reclaim is the same, the device's write in the
    # reclaimer's context compresses the page instead of copying it.
    t["swapout-zram"] = (head("swapout-zram", ["swap 256M zram=y ratio=120.45"])
                         + ["memcg app max=16M", "task t memcg=app", *so] + [f"store t h {p} 1" for p in order])
    # Eight leaves under `app`, each holding one anon page (an empty memcg
    # is below its memory.min of 0 and skipped, not visited); no swap, so
    # no reclaim finds anything. The same writes on leaf c0 (1 lruvec a
    # pass) and on app (app and its 8 leaves: 9).
    tree = ["memcg app", *[f"memcg c{i} parent=app" for i in range(8)]]
    for i in range(8):
        tree += [f"task t{i} memcg=c{i}", f"anon t{i} h size=4K", f"store t{i} h 0 1"]
    t["visit-base"] = head("visit-base") + tree + ["reclaim c0 4K"] * RECLAIMS
    t["visit"] = head("visit") + tree + ["reclaim app 4K"] * RECLAIMS
    return t


def write_traces(ts):
    os.makedirs(WORK, exist_ok=True)
    for name, lines in ts.items():
        with open(os.path.join(WORK, name + ".trace"), "w") as f:
            f.write("\n".join(lines) + "\n")


def guest(name, rep, replayer):
    path = os.path.join(WORK, name + ".trace")
    out = os.path.join(WORK, f"{name}.{rep}.json")
    cmd = [os.path.join(HERE, "run-kernel.sh"), path, "--mode", "mglru", "--out", out, "--icount", "0"]
    if replayer:
        cmd += ["--replayer", replayer]
    calibrate.run_guest(cmd, f"{name}.{rep}", "calibrate_steps")
    with open(out) as f:
        return name, rep, json.load(f)


def model(name, mglru, platform):
    path = os.path.join(WORK, name + ".trace")
    cmd = [mglru, "run", path, "--policy", "mglru", "--json", "-"]
    for k, v in platform["cost"].items():
        cmd += ["--cost", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"calibrate_steps: mglru run {name} failed:\n{p.stderr}")
    return json.loads(p.stdout)["cpu"]["reclaim_work"]


def scanned(v):
    return v.get("pgscan_file", 0) + v.get("pgscan_anon", 0) + v.get("pgrefill", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--replayer", default=None)
    ap.add_argument("--mglru", default=os.path.join(REPO, "target", "release", "mglru"))
    ap.add_argument("--platform", default=os.path.join(HERE, "platform.json"))
    ap.add_argument("--write", action="store_true", help="store the step costs in --platform")
    ap.add_argument("--pairs", default=",".join(x for x in PAIRS if x != "F"), help="the pairs to run (default all but F: A,B,B8,C,D,E; F alone)")
    ap.add_argument("--reuse", action="store_true",
                    help="count the results of earlier runs of unchanged traces (else they are removed)")
    a = ap.parse_args()
    with open(a.platform) as f:
        platform = json.load(f)
    want = [x.strip() for x in a.pairs.split(",") if x.strip()]
    bad = [x for x in want if x not in PAIRS]
    if bad:
        raise SystemExit(f"calibrate_steps: --pairs {','.join(bad)}: no such pair (pairs: {', '.join(PAIRS)})")
    names = {n for x in want for n in PAIRS[x]}
    ts = {n: lines for n, lines in traces().items() if n in names}
    walls, vm = {}, {}
    done = {n: [] for n in ts}
    if a.reuse:
        # Earlier runs of an unchanged trace count toward --repeats.
        for n, lines in ts.items():
            path = os.path.join(WORK, n + ".trace")
            if os.path.exists(path) and open(path).read() == "\n".join(lines) + "\n":
                done[n] = sorted(int(m.group(1)) for m in (re.fullmatch(re.escape(n) + r"\.(\d+)\.json", f)
                                                           for f in os.listdir(WORK)) if m)
    else:
        for f in os.listdir(WORK) if os.path.isdir(WORK) else []:
            if f.endswith(".json") and f.split(".")[0] in ts:
                os.remove(os.path.join(WORK, f))
    write_traces(ts)
    for n, reps in done.items():
        for r in reps:
            with open(os.path.join(WORK, f"{n}.{r}.json")) as f:
                res = json.load(f)
            walls.setdefault(n, []).append(res["wall_seconds"] * 1e9)
            vm.setdefault(n, []).append(res["vmstat"])
    jobs = [(n, r) for n in ts for r in range(a.repeats) if r not in done[n]]
    jobs.sort(key=lambda j: len(ts[j[0]]))  # the short traces first
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = [ex.submit(guest, n, r, a.replayer) for n, r in jobs]
        for fu in concurrent.futures.as_completed(futs):
            n, r, res = fu.result()
            walls.setdefault(n, []).append(res["wall_seconds"] * 1e9)
            vm.setdefault(n, []).append(res["vmstat"])
            print(f"calibrate_steps: {n}.{r}: {res['wall_seconds']:.3f} s", file=sys.stderr)
    w = {n: statistics.median(v) for n, v in walls.items()}
    kscan = {n: statistics.median(scanned(x) for x in v) for n, v in vm.items()}
    kwrite = {n: statistics.median(x.get("nr_vmscan_write", 0) for x in v) for n, v in vm.items()}
    mw = {n: model(n, a.mglru, platform) for n in ts}

    def delta(phase, base):
        d = {"wall": w[phase] - w[base], "scanned": kscan[phase] - kscan[base],
             "pageout": kwrite[phase] - kwrite[base]}
        for k in ("rmap", "pte"):
            # The model's steps per folio scanned, times the kernel's folios scanned.
            per = [mw[x][k] / mw[x]["scanned"] if mw[x]["scanned"] else 0.0 for x in (phase, base)]
            d[k] = per[0] * kscan[phase] - per[1] * kscan[base] if kscan[phase] else mw[phase][k] - mw[base][k]
        return d

    out = {"date": datetime.date.today().isoformat()}
    ratio, pairs = {}, {}
    if "E" in want:
        E = {"wall": w["visit"] - w["visit-base"], "lruvecs": mw["visit"]["lruvecs"] - mw["visit-base"]["lruvecs"],
             "scanned": mw["visit"]["scanned"] - mw["visit-base"]["scanned"]}
        pairs["E"] = E
    if want == ["F"]:
        # zram_write: what a page written to zram costs the reclaimer beyond
        # the same write to brd, per page written, with `scan` of the stored
        # full run (the same guest, the same instruction count) for any
        # difference in folios scanned.
        scan = platform["steps"]["scan_this_batch_ns"]
        F = {"wall": w["swapout-zram"] - w["swapout"], "scanned": kscan["swapout-zram"] - kscan["swapout"],
             "written": kwrite["swapout-zram"], "written_brd": kwrite["swapout"]}
        zw = (F["wall"] - scan * F["scanned"]) / F["written"]
        ratio["zram_write"] = zw / scan
        out.update({"scan_ns_from_stored_steps": scan, "zram_write_ns": round(zw), "pairs": {"F": F},
                    "wall_seconds": {n: [round(x / 1e9, 6) for x in sorted(v)] for n, v in sorted(walls.items())}})
        finish(a, platform, out, ratio, key="zram_write")
        return
    if want == ["E"]:
        # scan of the stored full run: the same guest, the same instruction count.
        scan = platform["steps"]["scan_this_batch_ns"]
        lruvec = E["wall"] / E["lruvecs"]
        ratio["lruvec"] = lruvec / scan
        out.update({"scan_ns_from_stored_steps": scan, "lruvec_ns": round(lruvec), "pairs": pairs,
                    "wall_seconds": {n: [round(x / 1e9, 6) for x in sorted(v)] for n, v in sorted(walls.items())},
                    "model_reclaim_work": mw})
        finish(a, platform, out, ratio, key="lruvec")
        return
    A, B, C, D = delta("miss-reclaim", "miss"), delta("mmiss-reclaim", "mmiss"), delta("age", "age-base"), \
        delta("swapout", "swapout-base")
    B8 = delta("mmiss8-reclaim", "mmiss8")
    scan = A["wall"] / A["scanned"]
    pte = (C["wall"] - scan * C["scanned"]) / C["pte"]
    # Per folio freed, B8 differs from B by its extra mappings only.
    per_b = (B["wall"] - pte * B["pte"]) / B["scanned"]
    per_b8 = (B8["wall"] - pte * B8["pte"]) / B8["scanned"]
    rmap = (per_b8 - per_b) / (B8["rmap"] / B8["scanned"] - B["rmap"] / B["scanned"])
    pageout = (D["wall"] - scan * D["scanned"] - rmap * D["rmap"] - pte * D["pte"]) / D["pageout"]
    ratio.update({"rmap": rmap / scan, "pte": pte / scan, "pageout": pageout / scan})
    if "E" in want:
        ratio["lruvec"] = E["wall"] / E["lruvecs"] / scan
    pairs.update({"A": A, "B": B, "B8": B8, "C": C, "D": D})
    out.update({
        "scan_this_batch_ns": round(scan),
        "ratio_to_scan": {k: round(v, 4) for k, v in ratio.items()},
        "pairs": pairs,
        "unmapped_vs_mapped_reclaim_ns_per_folio": {"A": round(scan), "B": round(per_b), "B8": round(per_b8)},
        "wall_seconds": {n: [round(x / 1e9, 6) for x in sorted(v)] for n, v in sorted(walls.items())},
        "model_reclaim_work": mw,
    })
    finish(a, platform, out, ratio)


def finish(a, platform, out, ratio, key=None):
    """Print the result; with --write store the costs (ratio x the platform's scan) and the
    measurement (under steps, or under steps[key] for a single pair)."""
    print(json.dumps(out, indent=2, default=float))
    if any(v < 0 for v in ratio.values()):
        raise SystemExit("calibrate_steps: a step came out negative (too noisy a host?): not written")
    if a.write:
        base_scan = platform["cost"]["scan"]
        for k, r in ratio.items():
            platform["cost"][k] = int(round(r * base_scan))
        if key is None:
            platform["steps"] = out
        else:
            out["ratio_to_scan"] = {k: round(v, 4) for k, v in ratio.items()}
            platform["steps"][key] = out
        with open(a.platform, "w") as f:
            json.dump(platform, f, indent=2, default=float)
            f.write("\n")
        print(f"calibrate_steps: wrote {a.platform}: " + " ".join(f"{k}={platform['cost'][k]}" for k in ratio),
              file=sys.stderr)


if __name__ == "__main__":
    main()
