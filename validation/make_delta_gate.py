#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the gate of `mglru validate --delta A:B --check` (validation/delta-thresholds.json).

For each version pair it runs `mglru validate --delta A:B` and holds the model where it stands:
min_agree per policy is the number of rows whose verdict is `agree` or `agree (no change)` now,
and every OPPOSITE row now is listed in known_opposite with why the model moves the other way.
A regression gate, not the goal: each listed row is a known deviation (docs/FIDELITY.md
"Other kernels"), to be removed when the model follows the kernel there.

Every OPPOSITE row needs a why: one given with --why, else the one the file already holds for
that row (so a rerun keeps them), else the script refuses to write anything and names the rows.
A --why that names no OPPOSITE row is refused too (a typo, or the model moved).

    python3 validation/make_delta_gate.py                     # rerun both pairs, keep the whys
    python3 validation/make_delta_gate.py --pair 6.12:7.2 \\
        --why 'lru-gen-0x0003:mglru:pswpout=7.2 reclaims ...'  # TRACE:POLICY:COUNTER=TEXT
    python3 validation/make_delta_gate.py --why '6.1:6.12/anon-and-file:classic:pswpout=...'

Pairs the file holds but --pair leaves out are kept as they are. After writing, each rerun
pair is checked with `mglru validate --delta A:B --check` and the script exits with its status.
"""
import argparse
import json
import os
import re
import subprocess
import sys

DEFAULT_PAIRS = ["6.12:7.2", "6.1:6.12"]
VERDICTS = ["agree (no change)", "agree", "OPPOSITE", "model misses it", "model moves alone"]
ROW = re.compile(r"^(\S+)\s+(mglru|classic)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(" + "|".join(re.escape(v) for v in VERDICTS) + r")$")
SUMMARY = re.compile(r"^(mglru|classic): (\d+) of (\d+) changes agree;")


def die(msg):
    sys.exit(f"make_delta_gate.py: {msg}")


def delta_rows(binary, suite, pair):
    """The rows of `mglru validate --delta PAIR`: (trace, policy, counter, verdict)."""
    cmd = [binary, "validate", "--suite", suite, "--delta", pair]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        die(f"{binary}: no such program: build it (cargo build --release -p mglru-cli) or name it with --mglru PATH")
    if p.returncode != 0:
        die(f"{' '.join(cmd)} exited with {p.returncode}:\n{p.stderr.strip()}")
    rows, summary = [], {}
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), m.group(8)))
            continue
        m = SUMMARY.match(line)
        if m:
            summary[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    # The table read back must be the one the summary counts: a changed layout is an error
    # here, not a gate of wrong numbers.
    for policy in ("mglru", "classic"):
        of = [r for r in rows if r[1] == policy]
        agree = sum(1 for r in of if r[3].startswith("agree"))
        if summary.get(policy) != (agree, len(of)):
            die(f"{' '.join(cmd)}: read {agree} of {len(of)} agreeing {policy} rows, but its summary says {summary.get(policy)}: "
                "the table's layout changed; update ROW in this script")
    return rows


def parse_why(spec):
    """`[A:B/]TRACE:POLICY:COUNTER=TEXT` -> (pair or None, (trace, policy, counter), text)."""
    key, sep, text = spec.partition("=")
    pair = None
    if "/" in key:
        pair, _, key = key.partition("/")
    parts = key.split(":")
    if not sep or len(parts) != 3 or not all(parts):
        die(f"--why {spec!r}: expected [A:B/]TRACE:POLICY:COUNTER=TEXT, e.g. lru-gen-0x0003:mglru:pswpout=why it moves")
    if not text.strip():
        die(f"--why {spec!r}: the text is empty: say why the model moves the other way")
    return pair, tuple(parts), text.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mglru", default="target/release/mglru", help="the mglru binary (default: target/release/mglru)")
    ap.add_argument("--suite", default="validation", help="the validation suite (default: validation)")
    ap.add_argument("--out", help="the gate file (default: SUITE/delta-thresholds.json)")
    ap.add_argument("--pair", action="append", help=f"a version pair A:B to (re)write; repeatable (default: {', '.join(DEFAULT_PAIRS)})")
    ap.add_argument("--why", action="append", default=[], help="[A:B/]TRACE:POLICY:COUNTER=TEXT: why that OPPOSITE row is known; repeatable")
    ap.add_argument("--comment", help="the file's comment (default: the one it holds)")
    a = ap.parse_args()
    out = a.out or os.path.join(a.suite, "delta-thresholds.json")

    old = {"pairs": {}}
    if os.path.exists(out):
        try:
            with open(out) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            die(f"{out}: {e}: fix or remove it (its why texts are kept from it)")
        if not isinstance(old.get("pairs"), dict):
            die(f"{out}: no object \"pairs\": fix or remove it")
    comment = a.comment or old.get("comment")
    if not comment:
        die(f"{out} has no comment: give one with --comment TEXT (what the gate is, where the model stands)")

    whys = [parse_why(w) for w in a.why]
    used = [False] * len(whys)
    pairs = a.pair or DEFAULT_PAIRS
    new_pairs = {}
    missing = []
    for pair in pairs:
        kept = {}
        for i, k in enumerate(old["pairs"].get(pair, {}).get("known_opposite", [])):
            if not isinstance(k, dict) or not all(isinstance(k.get(f), str) for f in ("trace", "policy", "counter")):
                die(f"{out}: pairs.\"{pair}\".known_opposite[{i}] needs \"trace\", \"policy\" and \"counter\" strings: fix or remove it")
            kept[(k["trace"], k["policy"], k["counter"])] = k.get("why", "") if isinstance(k.get("why"), str) else ""
        rows = delta_rows(a.mglru, a.suite, pair)
        known = []
        for trace, policy, counter, verdict in rows:
            if verdict != "OPPOSITE":
                continue
            key = (trace, policy, counter)
            why = kept.get(key, "").strip()
            for i, (p, k, text) in enumerate(whys):
                if k == key and p in (None, pair):
                    why, used[i] = text, True
            if not why:
                missing.append(f"{pair} {trace} {policy} {counter}")
            known.append({"trace": trace, "policy": policy, "counter": counter, "why": why})
        min_agree = {p: sum(1 for r in rows if r[1] == p and r[3].startswith("agree")) for p in ("mglru", "classic")}
        new_pairs[pair] = {"min_agree": min_agree, "known_opposite": known}
        print(f"{pair}: min_agree mglru {min_agree['mglru']}, classic {min_agree['classic']}; "
              f"{len(known)} OPPOSITE: {', '.join(' '.join(k[f] for f in ('trace', 'policy', 'counter')) for k in known) or 'none'}")
    unused = [a.why[i] for i, u in enumerate(used) if not u]
    if unused:
        die("--why names no OPPOSITE row of the pairs run (" + ", ".join(pairs) + "): " + "; ".join(unused))
    if missing:
        die("no why for these OPPOSITE rows, nothing written: give each with --why TRACE:POLICY:COUNTER=TEXT\n  " + "\n  ".join(missing))
    # The pairs the file holds and this run left out stay as they are, in their order.
    merged = {p: new_pairs.get(p, g) for p, g in old["pairs"].items()}
    for p in pairs:
        merged.setdefault(p, new_pairs[p])
    with open(out, "w") as f:
        json.dump({"comment": comment, "pairs": merged}, f, indent=2)
        f.write("\n")
    print(f"wrote {out}")
    rc = 0
    for pair in pairs:
        p = subprocess.run([a.mglru, "validate", "--suite", a.suite, "--delta", pair, "--check", "--delta-thresholds", out],
                           capture_output=True, text=True)
        print(p.stderr.strip())
        rc = rc or p.returncode
    sys.exit(rc)


if __name__ == "__main__":
    main()
