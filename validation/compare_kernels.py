#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks result folders of other kernels against the 6.12 reference, and puts counters of the
kernels side by side.

    python3 validation/compare_kernels.py [--ref results] [DIR...] [--counters a,b,...] [--json OUT]

DIR defaults to results-6.1 and results-7.2 (folders under validation/). For each result file
of DIR, the check: the file of the same name is in --ref; every top-level key and every meta key
of the reference file is in it too (the run may carry more: version-specific keys); `kernel`
names the release of the folder's kernel and meta.guest_uname agrees; the policy matches the
mode (mglru: lru_gen_enabled non-zero, 0x0007 for mode y; classic: 0x0000; self: whatever the
trace set); replay_rc is 0. Exit status 1 if any check fails. Then, per trace and mode, the
counters (default: the reclaim counters of /proc/vmstat and the first trace memcg's memory.stat)
of the reference and each DIR.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_COUNTERS = ["pgscan_file", "pgscan_anon", "pgsteal_file", "pgsteal_anon", "pgscan_kswapd",
                    "pgscan_direct", "pgsteal_direct", "pgscan_proactive", "pgrefill",
                    "workingset_refault_file", "workingset_refault_anon",
                    "workingset_activate_file", "workingset_activate_anon", "pswpin", "pswpout",
                    "pgpgin"]


def load(path):
    with open(path) as f:
        return json.load(f)


def check(name, doc, ref):
    """The problems of one result against its reference, as strings."""
    bad = []
    for k in ref:
        if k not in doc:
            bad.append(f"top-level key {k!r} missing")
    for k in ref.get("meta", {}):
        if k not in doc.get("meta", {}):
            bad.append(f"meta key {k!r} missing")
    m = doc.get("meta", {})
    release = doc.get("kernel", "").split(" ")[0]
    if m.get("guest_uname") != release:
        bad.append(f"guest_uname {m.get('guest_uname')!r} is not the kernel {release!r}")
    mode = name.rsplit(".", 2)[-2]
    en = m.get("lru_gen_enabled", "")
    if mode == "mglru" and (doc.get("policy") != "mglru" or en != "0x0007"):
        bad.append(f"mode mglru ran policy {doc.get('policy')} with lru_gen_enabled {en}")
    if mode == "classic" and (doc.get("policy") != "classic" or en != "0x0000"):
        bad.append(f"mode classic ran policy {doc.get('policy')} with lru_gen_enabled {en}")
    if m.get("replay_rc") != 0:
        bad.append(f"replay_rc {m.get('replay_rc')}")
    if not doc.get("vmstat"):
        bad.append("no vmstat counters")
    return bad


def first_memcg(doc):
    for k, v in doc.get("memcg", {}).items():
        if k != "root" and isinstance(v, dict) and v.get("stat"):
            return k, v["stat"]
    return None, {}


def main(argv):
    ref_dir, dirs, counters, json_out = "results", [], DEFAULT_COUNTERS, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--ref":
            ref_dir = argv[i + 1]; i += 2
        elif a == "--counters":
            counters = argv[i + 1].split(","); i += 2
        elif a == "--json":
            json_out = argv[i + 1]; i += 2
        elif a.startswith("-"):
            sys.stderr.write(__doc__)
            return 2
        else:
            dirs.append(a); i += 1
    dirs = dirs or ["results-6.1", "results-7.2"]
    full = lambda d: d if os.path.isabs(d) else os.path.join(HERE, d)  # noqa: E731
    ref_dir = full(ref_dir)
    failures = 0
    table = {}
    for d in dirs:
        names = sorted(f for f in os.listdir(full(d)) if f.endswith(".json"))
        retried = []
        for n in names:
            doc = load(os.path.join(full(d), n))
            rp = os.path.join(ref_dir, n)
            if not os.path.exists(rp):
                print(f"{d}/{n}: no {n} in {os.path.relpath(ref_dir, HERE)}")
                failures += 1
                continue
            ref = load(rp)
            for b in check(n, doc, ref):
                print(f"{d}/{n}: {b}")
                failures += 1
            if doc["meta"].get("attempts", 1) > 1:
                retried.append((n, doc["meta"]["attempts"],
                                [f["reason"] for f in doc["meta"].get("failed_attempts", [])]))
            key = n[:-len(".json")]
            row = table.setdefault(key, {})
            row.setdefault(os.path.basename(ref_dir.rstrip("/")), ref)
            row[d] = doc
        print(f"{d}: {len(names)} results checked; boots retried: {len(retried)}")
        for n, a, why in retried:
            print(f"    {n}: {a} attempts ({'; '.join(why)})")
    print(f"check: {failures} problem(s)")
    out = {}
    for key in sorted(table):
        row = table[key]
        cols = list(row)
        print(f"\n{key}   " + "  ".join(f"{c:>14}" for c in cols)
              + "   (memcg " + str(first_memcg(next(iter(row.values())))[0]) + ")")
        for c in counters:
            vals = [row[col]["vmstat"].get(c) for col in cols]
            mvals = [first_memcg(row[col])[1].get(c) for col in cols]
            if all(v is None for v in vals) and all(v is None for v in mvals):
                continue
            fmt = lambda v: "-" if v is None else str(v)  # noqa: E731
            print(f"  {c:28} " + "  ".join(f"{fmt(v):>14}" for v in vals)
                  + "   memcg " + " ".join(fmt(v) for v in mvals))
            out.setdefault(key, {})[c] = {col: {"vmstat": v, "memcg": mv}
                                          for col, v, mv in zip(cols, vals, mvals)}
    if json_out:
        with open(json_out, "w") as f:
            json.dump(out, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
