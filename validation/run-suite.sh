#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Re-measure the kernel side of the reference suite: every trace in
# traces/ under MGLRU and under the classic LRU (or once, "self", when the
# trace sets lru_gen.enabled itself), results in results/NAME.MODE.json.
# Usage: validation/run-suite.sh [--kernel 6.12|6.1|7.2] [--out DIR] [--parallel] [--replayer P] [NAME...]
#        (default: kernel 6.12, all traces, into results/; another kernel needs --out, e.g.
#        results-6.1/ or results-7.2/, so that the 6.12 reference is not overwritten)
#   --kernel X: boot that kernel (validation/setup.sh --kernel X first); each result records it
#   --replayer P: the static replayer to use (default: run-kernel.sh's, the cargo build's), e.g. a
#              copy that a rebuild during a long suite cannot replace
#   --out DIR: write the results there instead (e.g. a repeat run for the noise measurement,
#              validation/noise.py results DIR)
#   --parallel: replay with mglru-replay --parallel (tasks side by side; the result's
#              replay_schedule makes `mglru validate` run the model with --schedule parallel)
# Needs validation/setup.sh and the static replayer (see README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/results"
kernel=6.12
out_given=0
parallel=()
replayer=()
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel)
            [ $# -ge 2 ] || { echo "run-suite: --kernel needs 6.1, 6.12 or 7.2" >&2; exit 1; }
            kernel="$2"; shift 2
            case "$kernel" in 6.1|6.12|7.2) ;; *) echo "run-suite: --kernel takes 6.1, 6.12 or 7.2, not '$kernel'" >&2; exit 1 ;; esac ;;
        --out)
            [ $# -ge 2 ] || { echo "run-suite: --out needs a directory" >&2; exit 1; }
            out=$(realpath -m "$2"); out_given=1; shift 2 ;;
        --replayer)
            [ $# -ge 2 ] || { echo "run-suite: --replayer needs a path" >&2; exit 1; }
            replayer=(--replayer "$(realpath "$2")"); shift 2 ;;
        --parallel) parallel=(--replay-arg --parallel); shift ;;
        -*) echo "run-suite: unknown option $1" >&2; exit 1 ;;
        *) break ;;
    esac
done
if [ "$kernel" != 6.12 ] && [ "$out_given" = 0 ]; then
    echo "run-suite: --kernel $kernel needs --out DIR (results/ holds the 6.12 reference)" >&2; exit 1
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
        echo "== $n ($m, guest $mem, kernel $kernel)"
        ./run-kernel.sh "$t" --kernel "$kernel" --mode "$arg" --memory "$mem" --timeout 600 \
            --replay-arg --per-file-readahead --replay-arg --settle-ms --replay-arg 2100 \
            --replay-arg --sync-stats-flush ${parallel[@]+"${parallel[@]}"} ${replayer[@]+"${replayer[@]}"} \
            --out "$out/$n.$m.json" || echo "FAILED: $n $m"
    done
done
