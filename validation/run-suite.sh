#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Re-measure the kernel side of the reference suite: every trace in
# traces/ under MGLRU and under the classic LRU (or once, "self", when the
# trace sets lru_gen.enabled itself), results in results/NAME.MODE.json.
# Usage: validation/run-suite.sh [--out DIR] [--parallel] [NAME...]   (default: all traces, into results/)
#   --out DIR: write the results there instead (e.g. a repeat run for the noise measurement,
#              validation/noise.py results DIR)
#   --parallel: replay with mglru-replay --parallel (tasks side by side; the result's
#              replay_schedule makes `mglru validate` run the model with --schedule parallel)
# Needs validation/setup.sh and the static replayer (see README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/results"
if [ "${1:-}" = "--out" ]; then
    [ $# -ge 2 ] || { echo "run-suite: --out needs a directory" >&2; exit 1; }
    out=$(realpath -m "$2"); shift 2
fi
parallel=()
if [ "${1:-}" = "--parallel" ]; then
    parallel=(--replay-arg --parallel); shift
fi
cd "$here"
mkdir -p "$out"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for t in traces/*.trace.gz; do names+=("$(basename "$t" .trace.gz)"); done
fi
for n in "${names[@]}"; do
    t="traces/$n.trace.gz"
    # Guest RAM: the trace's memory plus its files and swap, which live on
    # ramdisks in guest RAM -- except for traces whose point is global
    # pressure (listed in thresholds.json), which run with the trace's memory.
    mem=$(python3 - "$t" <<'PY'
import gzip, json, re, sys
units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
def size(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    return int(m.group(1)) * units[m.group(2)]
name = sys.argv[1].split("/")[-1][:-len(".trace.gz")]
th = json.load(open("thresholds.json"))
mem, extra = 1 << 30, 0
for line in gzip.open(sys.argv[1], "rt"):
    w = line.split()
    if not w or w[0].startswith("#"):
        continue
    if w[0] == "memory": mem = size(w[1])
    elif w[0] == "swap": extra += size(w[1])
    elif w[0] == "file": extra += size(dict(x.split("=") for x in w[2:])["size"])
    elif w[0] in ("read", "write", "load", "store"): break
if name not in th.get("memory_start_free", []):
    mem += extra + (64 << 20)
print(f"{mem >> 20}M")
PY
)
    # (grep -c reads all its input: grep -q would stop early and, under pipefail, zcat's SIGPIPE
    # would make the test fail.)
    if [ "$(zcat "$t" | grep -c '^sysctl lru_gen.enabled')" -gt 0 ]; then modes=(self); else modes=(mglru classic); fi
    for m in "${modes[@]}"; do
        arg=$m; [ "$m" = self ] && arg=y
        echo "== $n ($m, guest $mem)"
        ./run-kernel.sh "$t" --mode "$arg" --memory "$mem" --timeout 600 \
            --replay-arg --per-file-readahead --replay-arg --settle-ms --replay-arg 2100 \
            --replay-arg --sync-stats-flush "${parallel[@]}" \
            --out "$out/$n.$m.json" || echo "FAILED: $n $m"
    done
done
