#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Zipf replay benchmark: the mglru model against libCacheSim's LRU.

One command does everything:

    python3 bench/zipf_bench.py

1. generates (or reuses) a deterministic trace in bench-out/: ACCESSES `read`
   accesses whose page numbers are zipf(ALPHA) over PAGES pages of one file
   (readahead off, so one access = one page = one cache request), rank r
   mapped to a page number through a fixed random permutation; RAM is
   MEMORY_FRACTION of the file. The same sequence is written as
     - trace v1 text           (zipf.trace),
     - zstd-compressed text    (zipf.trace.zst, if the `zstd` tool exists),
     - mglru binary trace      (zipf.mtb, via `mglru trace convert`),
     - libCacheSim oracleGeneral binary (zipf.oracleGeneral.bin: packed
       records <u32 time, u64 obj id, u32 obj size, i64 next access vtime>),
     - text prefixes of 10/20/50 % of the accesses (for the RSS check);
2. builds target/release/mglru (`cargo build --release`; --no-build skips);
3. runs, interleaved, REPEATS times each: `mglru run` on every trace form
   and libCacheSim's LRU (C-level `cache.process_trace` over the
   oracleGeneral reader, in a child Python process) with the same capacity
   in objects (memory pages x 4096 bytes, every object 4096 bytes); takes
   medians. libCacheSim is timed in two configurations: its default hash
   table (hashpower 24: 16 M buckets, 128 MiB, for a cache of 52 K objects)
   and one sized to the cache (hashpower ceil(log2(memory pages)) + 2); the
   faster of the two is the reference for the ratio and the targets;
4. runs mglru once on each prefix and records its peak RSS;
5. counts the instructions mglru executes per access (valgrind's callgrind,
   binary and text forms, both policies): on the binary and text forms of
   the first INSTR_ACCESSES accesses, less those on the first 10,000 (the
   start-up), divided by the difference in accesses (--no-instructions
   skips it; it needs valgrind);
6. times a workload generator streaming into the model (`mglru run
   --workload 'fio:...'`: zipf(ALPHA) random reads of a file of PAGES pages
   in RAM of MEMORY_FRACTION, ACCESSES I/Os), for each policy;
7. prints a table and writes bench-out/results.json.

Targets (issue 14), each against the faster libCacheSim configuration in
the same run: the binary form at least 2.0x, the text forms at least 1.3x,
the generator at least the text form's rate, at most 400 instructions per
access on the binary form; the table says pass or FAIL for each.

Throughput figures:
  mglru        page_accesses / sim.wall_seconds: the simulator's own timer,
               which covers trace decoding and simulation (not process start,
               file open or report writing). The process's whole elapsed time
               is recorded too ("end-to-end").
  libCacheSim  requests / elapsed time of `cache.process_trace(reader)`,
               which decodes the oracleGeneral records and runs the cache in
               C (no Python per request). With --python-loop the same cache
               driven by a Python loop calling `cache.get(req)` per request is
               measured once as well and reported on its own row.
Peak RSS is the child's "Maximum resident set size" as `/usr/bin/time -v`
prints it (GNU time's %M); see run_measured. The child's elapsed time
then includes the exec of GNU time (about a millisecond).

Quick run:  python3 bench/zipf_bench.py --accesses 1000000 --pages 100000
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE_SIZE = 4096
MIN_MEMORY = 16 << 20  # the smallest `memory` the model accepts
INSTALL_HINT = (
    "install the benchmark's Python dependencies with\n"
    f"    python3 -m pip install -r {ROOT / 'bench' / 'requirements.txt'}"
)
TRACE_LAYOUT = 1  # bump when the generated files change for the same parameters


def die(msg: str, code: int = 1) -> None:
    print(f"zipf_bench: error: {msg}", file=sys.stderr)
    sys.exit(code)


def log(msg: str) -> None:
    print(f"zipf_bench: {msg}", file=sys.stderr, flush=True)


def need_module(name: str) -> None:
    try:
        importlib.import_module(name)
    except ImportError as e:
        die(f"the Python package `{name}` is not installed or does not load ({e}); {INSTALL_HINT}")


def pkg_version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # noqa: BLE001 - best effort only
        return "unknown"


# --------------------------------------------------------------------------
# Running a child and measuring it
# --------------------------------------------------------------------------


def gnu_time() -> str | None:
    """/usr/bin/time if it is GNU time (it has -f and -o), else None."""
    t = shutil.which("time", path="/usr/bin:/bin") or None
    if t is None:
        return None
    try:
        r = subprocess.run([t, "--version"], capture_output=True, text=True)
    except OSError:
        return None
    return t if "GNU" in (r.stdout + r.stderr) else None


GNU_TIME = gnu_time()


def run_measured(cmd: list[str]) -> dict:
    """Runs cmd; returns returncode, elapsed seconds, peak RSS (KiB), stdout, stderr.

    Peak RSS comes from GNU time's %M (the child's ru_maxrss, measured by a
    small process, like `/usr/bin/time -v`). It is not taken from our own
    wait4(): a child spawned from this Python process starts with the
    parent's memory map (vfork), and Linux keeps that map's high-water mark
    in the child's ru_maxrss across exec, so the figure would be this
    script's peak, not the child's. Without GNU time, /proc/PID/status
    VmHWM is polled every 10 ms (a lower bound for the last 10 ms).
    """
    with tempfile.TemporaryDirectory() as td:
        err_p, out_p, rss_p = (os.path.join(td, n) for n in ("err", "out", "rss"))
        full = [GNU_TIME, "-f", "%M", "-o", rss_p] + cmd if GNU_TIME else cmd
        with open(err_p, "wb") as err, open(out_p, "wb") as out:
            t0 = time.perf_counter()
            p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            hwm = 0
            if GNU_TIME:
                p.wait()
            else:
                while p.poll() is None:
                    try:
                        for line in Path(f"/proc/{p.pid}/status").read_text().splitlines():
                            if line.startswith("VmHWM:"):
                                hwm = max(hwm, int(line.split()[1]))
                    except (OSError, ValueError):
                        pass
                    time.sleep(0.01)
            elapsed = time.perf_counter() - t0
        stderr = Path(err_p).read_text(errors="replace")
        stdout = Path(out_p).read_text(errors="replace")
        if GNU_TIME:
            try:
                hwm = int(Path(rss_p).read_text().split()[-1])
            except (OSError, ValueError, IndexError):
                hwm = 0
    return {
        "returncode": p.returncode,
        "elapsed": elapsed,
        "maxrss_kib": hwm,
        "rss_method": "GNU time %M" if GNU_TIME else "poll /proc/PID/status VmHWM",
        "stderr": stderr,
        "stdout": stdout,
    }


# --------------------------------------------------------------------------
# Trace generation
# --------------------------------------------------------------------------


def zipf_pages(args, np):
    """The access sequence: page numbers (uint32 array of length accesses)."""
    rng = np.random.default_rng(args.seed)
    n = args.pages
    weights = np.arange(1, n + 1, dtype=np.float64) ** (-args.alpha)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    # rank (0-based) -> page number; popular pages are scattered over the file
    perm = rng.permutation(n).astype(np.uint32)
    pages = np.empty(args.accesses, dtype=np.uint32)
    chunk = 1 << 20
    for lo in range(0, args.accesses, chunk):
        hi = min(lo + chunk, args.accesses)
        u = rng.random(hi - lo)
        ranks = np.searchsorted(cdf, u, side="right")
        np.minimum(ranks, n - 1, out=ranks)
        pages[lo:hi] = perm[ranks]
    return pages


def trace_header(args, mem_pages: int) -> str:
    return (
        f"# zipf benchmark trace (bench/zipf_bench.py): {args.accesses} reads, zipf({args.alpha}) over\n"
        f"# {args.pages} pages of one file, ranks mapped through a random permutation, seed {args.seed}\n"
        f"# memory = {mem_pages} pages ({args.memory_fraction:g} of the file)\n"
        f"memory {mem_pages * PAGE_SIZE}\n"
        f"file data size={args.pages * PAGE_SIZE} readahead=0\n"
        f"task t\n"
    )


def write_text(path: Path, header: str, pages, np, limit: int) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="ascii", newline="\n") as f:
        f.write(header)
        chunk = 1 << 18
        for lo in range(0, limit, chunk):
            hi = min(lo + chunk, limit)
            f.write("".join(["read t data %d\n" % p for p in pages[lo:hi].tolist()]))
    tmp.replace(path)


def write_oracle_general(path: Path, pages, np) -> None:
    n = len(pages)
    rec = np.dtype([("time", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")])
    assert rec.itemsize == 24
    # next access (virtual time = request index) of the same object, -1 if none
    order = np.argsort(pages, kind="stable")
    nxt = np.full(n, -1, dtype=np.int64)
    same = pages[order[:-1]] == pages[order[1:]]
    nxt[order[:-1][same]] = order[1:][same]
    del order, same
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "wb") as f:
        chunk = 1 << 20
        for lo in range(0, n, chunk):
            hi = min(lo + chunk, n)
            a = np.empty(hi - lo, dtype=rec)
            a["time"] = np.arange(lo, hi, dtype=np.uint64) // 1000  # 1000 requests per "second"
            a["id"] = pages[lo:hi]
            a["size"] = PAGE_SIZE
            a["next"] = nxt[lo:hi]
            a.tofile(f)
    tmp.replace(path)


def prefix_counts(args) -> list[int]:
    if args.no_prefixes:
        return []
    if args.prefixes:
        counts = sorted({int(x) for x in args.prefixes.split(",") if x.strip()})
    else:
        counts = [args.accesses * k // 100 for k in (10, 20, 50, 100)]
    bad = [c for c in counts if c <= 0 or c > args.accesses]
    if bad:
        die(f"--prefixes: every prefix must be in 1..{args.accesses} (the --accesses), found {bad}")
    return counts


def generate(args, out: Path, mglru: Path, mem_pages: int) -> dict:
    """Writes the traces unless identical ones exist; returns their paths."""
    need_module("numpy")
    import numpy as np

    params = {
        "layout": TRACE_LAYOUT,
        "accesses": args.accesses,
        "pages": args.pages,
        "alpha": args.alpha,
        "seed": args.seed,
        "memory_pages": mem_pages,
        "numpy": np.__version__,
        "prefixes": [c for c in prefix_counts(args) if c < args.accesses],
        "zstd": bool(shutil.which("zstd")) and not args.no_zstd,
    }
    files = {
        "text": out / "zipf.trace",
        "binary": out / "zipf.mtb",
        "oracle": out / "zipf.oracleGeneral.bin",
    }
    if params["zstd"]:
        files["text_zst"] = out / "zipf.trace.zst"
    prefix_files = {c: out / f"zipf.prefix-{c}.trace" for c in params["prefixes"]}
    meta_path = out / "trace-meta.json"
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]
    all_files = list(files.values()) + list(prefix_files.values())
    if not args.regen and meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
        except ValueError:
            meta = {}
        if meta.get("key") == key and all(p.exists() for p in all_files):
            log(f"reusing the traces in {out} (--regen to write them again)")
            return {"files": files, "prefix_files": prefix_files, "params": params}
    meta_path.unlink(missing_ok=True)

    t0 = time.perf_counter()
    log(f"generating {args.accesses} zipf({args.alpha}) accesses over {args.pages} pages (seed {args.seed})")
    pages = zipf_pages(args, np)
    header = trace_header(args, mem_pages)
    log(f"writing {files['text']}")
    write_text(files["text"], header, pages, np, args.accesses)
    for c, p in prefix_files.items():
        log(f"writing {p}")
        write_text(p, header, pages, np, c)
    log(f"writing {files['oracle']}")
    write_oracle_general(files["oracle"], pages, np)
    del pages
    log(f"writing {files['binary']} (mglru trace convert)")
    r = run_measured([str(mglru), "trace", "convert", str(files["text"]), str(files["binary"])])
    if r["returncode"] != 0:
        die(f"`mglru trace convert` failed ({r['returncode']}):\n{r['stderr']}")
    if "text_zst" in files:
        log(f"writing {files['text_zst']} (zstd -3)")
        r = run_measured(["zstd", "-q", "-f", "-3", "-T0", str(files["text"]), "-o", str(files["text_zst"])])
        if r["returncode"] != 0:
            die(f"zstd failed ({r['returncode']}):\n{r['stderr']}")
    meta_path.write_text(json.dumps({"key": key, "params": params}, indent=1) + "\n")
    log(f"traces written in {time.perf_counter() - t0:.1f} s")
    return {"files": files, "prefix_files": prefix_files, "params": params}


# --------------------------------------------------------------------------
# mglru
# --------------------------------------------------------------------------


def build(args) -> Path:
    binary = Path(args.mglru) if args.mglru else ROOT / "target" / "release" / "mglru"
    if args.mglru or args.no_build:
        if not binary.exists():
            die(f"{binary} does not exist (build it with `cargo build --release`, or drop --no-build)")
        return binary
    cargo = shutil.which("cargo")
    if cargo is None:
        if binary.exists():
            log("cargo not found; using the existing target/release/mglru")
            return binary
        die("cargo not found and target/release/mglru does not exist")
    log("cargo build --release")
    r = subprocess.run([cargo, "build", "--release", "--quiet"], cwd=ROOT)
    if r.returncode != 0:
        die("`cargo build --release` failed (use --no-build to run an existing binary)")
    return binary


def mglru_run(binary: Path, trace: Path | None, policy: str, json_path: Path, workload: str | None = None) -> dict:
    """`mglru run` on a trace file, or on a generator's spec (`--workload`)."""
    source = [str(trace)] if workload is None else ["--workload", workload]
    cmd = [str(binary), "run"] + source + ["--policy", policy, "--quiet", "--no-progress", "--json", str(json_path)]
    r = run_measured(cmd)
    if r["returncode"] != 0:
        return {"ok": False, "error": r["stderr"].strip(), "cmd": cmd}
    rep = json.loads(json_path.read_text())
    sim = rep["sim"]
    vm = rep["vmstat"]
    misses = vm.get("pgpgin", 0) // (PAGE_SIZE // 1024)  # pgpgin is in KiB; readahead=0: one page per miss
    acc = sim["page_accesses"]
    return {
        "ok": True,
        "cmd": cmd,
        "page_accesses": acc,
        "wall_seconds": sim["wall_seconds"],
        "accesses_per_s": acc / sim["wall_seconds"] if sim["wall_seconds"] > 0 else float("inf"),
        "process_seconds": r["elapsed"],
        "end_to_end_per_s": acc / r["elapsed"],
        "model_bytes": sim["model_bytes"],
        "model_bytes_ram": sim.get("model_bytes_ram"),
        "model_bytes_files": sim.get("model_bytes_files"),
        "simulated_pages": sim["simulated_pages"],
        "bytes_per_page": sim["model_bytes"] / sim["simulated_pages"] if sim["simulated_pages"] else None,
        "peak_rss_kib": r["maxrss_kib"],
        "misses": misses,
        "miss_ratio": misses / acc if acc else None,
        "nr_file_pages_end": vm.get("nr_file_pages"),
        "nr_free_pages_end": vm.get("nr_free_pages"),
        "dropped_accesses": sim.get("dropped_accesses", 0),
        "failed_allocations": sim.get("failed_allocations", 0),
    }


def probe_policy(binary: Path, policy: str, out: Path) -> str | None:
    """None if `--policy` works on a tiny trace, else the error message."""
    t = out / "probe.trace"
    t.write_text("memory 64M\nfile data size=1M readahead=0\ntask t\nread t data 0\n")
    r = mglru_run(binary, t, policy, out / "probe.json")
    return None if r["ok"] else r["error"]


INSTR_BASE = 10_000  # the start-up prefix whose instructions are subtracted
# Issue 14's targets: each form's accesses/s over the faster libCacheSim
# configuration's requests/s, and instructions per access on the binary form.
TARGETS = {"binary": 2.0, "text": 1.3, "text_zst": 1.3}
MAX_INSTRUCTIONS = 400


def write_text_prefix(src: Path, dst: Path, n: int) -> None:
    """The first `n` `read` lines of the text trace `src`, with its header."""
    tmp = dst.with_suffix(dst.suffix + ".tmp")
    seen = 0
    with open(src, encoding="ascii") as f, open(tmp, "w", encoding="ascii", newline="\n") as o:
        for line in f:
            if line.startswith("read "):
                if seen == n:
                    break
                seen += 1
            o.write(line)
    tmp.replace(dst)


def callgrind_instructions(cmd: list[str]) -> int:
    """Instructions `cmd` executes, counted by valgrind's callgrind."""
    full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd
    r = subprocess.run(full, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        die(f"`{' '.join(full)}` failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return int(m.group(1))


def instructions_per_access(args, mglru: Path, text: Path, out: Path, policies: list[str]) -> list[dict]:
    """Per policy and form: (instructions on the first N accesses - those on
    the first INSTR_BASE) / (N - INSTR_BASE), N = --instr-accesses."""
    n = min(args.instr_accesses, args.accesses)
    if n <= INSTR_BASE:
        die(f"--instr-accesses must be above {INSTR_BASE} (and the trace that long)")
    files = {}
    for k in (n, INSTR_BASE):
        t = out / f"zipf.instr-{k}.trace"
        b = out / f"zipf.instr-{k}.mtb"
        write_text_prefix(text, t, k)
        r = run_measured([str(mglru), "trace", "convert", str(t), str(b)])
        if r["returncode"] != 0:
            die(f"`mglru trace convert` failed ({r['returncode']}):\n{r['stderr']}")
        files[k] = {"text": t, "binary": b}
    rows = []
    for pol in policies:
        for form in ("binary", "text"):
            counts = {}
            for k in (n, INSTR_BASE):
                cmd = [str(mglru), "run", str(files[k][form]), "--policy", pol, "--quiet", "--no-progress"]
                counts[k] = callgrind_instructions(cmd)
            per = (counts[n] - counts[INSTR_BASE]) / (n - INSTR_BASE)
            rows.append({"policy": pol, "form": form, "accesses": n, "base_accesses": INSTR_BASE,
                         "instructions": counts[n], "base_instructions": counts[INSTR_BASE],
                         "per_access": per})
            log(f"instructions per access, mglru {pol} {form}: {per:.1f}")
    return rows


def generator_spec(args, mem_pages: int) -> str:
    """A fio job of the benchmark's shape: zipf(ALPHA) random 4 KiB buffered
    reads of one file of PAGES pages, ACCESSES of them, RAM as the trace's."""
    return (f"fio:--name=j --rw=randread --bs=4k --size={args.pages * PAGE_SIZE} --buffered=1 "
            f"--random_distribution=zipf:{args.alpha} --norandommap --io_size={args.accesses * PAGE_SIZE} --number_ios={args.accesses}"
            f";memory={mem_pages * PAGE_SIZE}")


# --------------------------------------------------------------------------
# libCacheSim (in a child process)
# --------------------------------------------------------------------------


def lcs_worker(argv: list[str]) -> None:
    """`zipf_bench.py --_lcs-worker TRACE CAPACITY_BYTES MODE HASHPOWER`: prints JSON."""
    trace, cap, mode, hashpower = argv[0], int(argv[1]), argv[2], int(argv[3])
    try:
        import libcachesim as lcs
    except ImportError as e:
        print(f"cannot import libcachesim: {e}", file=sys.stderr)
        sys.exit(3)
    reader = lcs.TraceReader(trace, lcs.TraceType.ORACLE_GENERAL_TRACE)
    kw = {} if hashpower < 0 else {"hashpower": hashpower}
    cache = lcs.LRU(cap, **kw)
    if mode == "c":
        t0 = time.perf_counter()
        obj_mr, byte_mr = cache.process_trace(reader)
        secs = time.perf_counter() - t0
        n = reader.n_read_req
    else:  # Python loop, one cache.get per request
        hits = 0
        n = 0
        get = cache.get
        t0 = time.perf_counter()
        for req in reader:
            n += 1
            hits += get(req)
        secs = time.perf_counter() - t0
        obj_mr = byte_mr = 1.0 - hits / n if n else 0.0
    print(json.dumps({"seconds": secs, "requests": n, "miss_ratio": obj_mr, "byte_miss_ratio": byte_mr,
                      "n_obj_end": cache.get_n_obj(), "cache_size_bytes": cache.cache_size}))


def lcs_run(oracle: Path, mem_pages: int, mode: str, hashpower: int, expect: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_lcs-worker", str(oracle),
           str(mem_pages * PAGE_SIZE), mode, str(hashpower)]
    r = run_measured(cmd)
    if r["returncode"] != 0:
        die(f"the libCacheSim run failed ({r['returncode']}):\n{r['stderr']}\n{INSTALL_HINT}")
    d = json.loads(r["stdout"].strip().splitlines()[-1])
    if d["requests"] != expect:
        # n_read_req counts what the reader returned; it must be the whole trace
        die(f"libCacheSim processed {d['requests']} requests, expected {expect}")
    d.update({
        "requests_per_s": d["requests"] / d["seconds"],
        "process_seconds": r["elapsed"],
        "peak_rss_kib": r["maxrss_kib"],
        "misses": round(d["miss_ratio"] * d["requests"]),
    })
    return d


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def machine_info() -> dict:
    cpu = "unknown"
    cpuinfo = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            k, _, v = line.partition(":")
            k = k.strip()
            if k in ("model name", "cpu family", "model", "cache size", "cpu MHz", "flags") and k not in cpuinfo:
                cpuinfo[k] = v.strip()
            if not line.strip() and cpuinfo:
                break  # the first processor is enough
    except OSError:
        pass
    cpu = cpuinfo.get("model name", cpu)
    rustc = "unknown"
    try:
        rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip() or rustc
    except OSError:
        pass
    mem_kib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "cpu_family": cpuinfo.get("cpu family"),
        "cpu_model_number": cpuinfo.get("model"),
        "cpu_cache_size": cpuinfo.get("cache size"),
        "cpu_mhz": cpuinfo.get("cpu MHz"),
        "virtualized": "hypervisor" in cpuinfo.get("flags", "").split(),
        "mem_total_kib": mem_kib,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "rustc": rustc,
        "numpy": pkg_version("numpy"),
        "libcachesim": pkg_version("libcachesim"),
        "peak_rss_method": "GNU time %M" if GNU_TIME else "poll /proc/PID/status VmHWM",
    }


def fmt_rate(x: float) -> str:
    return f"{x / 1e6:.2f} M/s"


def per_page(nbytes, pages) -> str:
    return "n/a" if not nbytes or not pages else f"{nbytes / pages:.2f}"


def fmt_mib(kib: int) -> str:
    return f"{kib / 1024:.1f} MiB"


def rate_range(xs: list[float]) -> str:
    return f"{min(xs) / 1e6:.2f}-{max(xs) / 1e6:.2f}"


def short(label: str) -> str:
    """Column name for a libCacheSim configuration."""
    return "vs LCS " + label.rsplit(", ", 1)[-1].replace("hashpower=", "hp")


def print_table(res: dict) -> None:
    rows = []
    ref = res["reference"]
    cfgs = [d for d in res["libcachesim"] if d["mode"] == "c"]
    hdr = (["run", "accesses/s (median)", "range (M/s)"] + [short(d["label"]) for d in cfgs]
           + ["target", "met", "miss ratio", "bytes/page", "B/RAM page", "B/file page", "peak RSS", "end-to-end/s"])
    for v in res["mglru"]:
        if v.get("pending"):
            rows.append([v["label"], "pending"] + [""] * (len(hdr) - 2))
            continue
        rows.append([
            v["label"],
            fmt_rate(v["median_accesses_per_s"]),
            rate_range([x["accesses_per_s"] for x in v["runs"]]),
        ] + [f"{v['median_accesses_per_s'] / d['median_requests_per_s']:.2f}x" for d in cfgs] + [
            v["target"],
            v["target_met"],
            f"{v['miss_ratio']:.4f}",
            f"{v['bytes_per_page']:.2f}",
            per_page(v["model_bytes_ram"], v["ram_pages"]),
            per_page(v["model_bytes_files"], v["file_pages"]),
            fmt_mib(v["peak_rss_kib"]),
            fmt_rate(v["median_end_to_end_per_s"]),
        ])
    for d in res["libcachesim"]:
        rows.append([
            d["label"],
            fmt_rate(d["median_requests_per_s"]),
            rate_range([x["requests_per_s"] for x in d["runs"]]),
        ] + [f"{d['median_requests_per_s'] / c['median_requests_per_s']:.2f}x" for c in cfgs] + [
            "",
            "",
            f"{d['miss_ratio']:.4f}",
            "n/a",
            "n/a",
            "n/a",
            fmt_mib(d["peak_rss_kib"]),
            fmt_rate(d["median_end_to_end_per_s"]),
        ])
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]

    def line(r):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    p = res["params"]
    print()
    print(f"zipf({p['alpha']}) x {p['accesses']} accesses over {p['pages']} pages, "
          f"memory {p['memory_pages']} pages ({p['memory_fraction']:g}); median of {p['repeats']} run(s)")
    print(line(hdr))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    print(f"targets: against the fastest libCacheSim process_trace row ({ref['label']}, "
          f"{fmt_rate(ref['median_requests_per_s'])}); the generator against the text trace of its policy")
    if p.get("generator"):
        print(f"generator: mglru run --workload '{p['generator']}'")
    print("B/RAM page: the folio table over the RAM pages; B/file page: the page-cache arrays over the file's pages")
    if res["instructions"]:
        r0 = res["instructions"][0]
        print()
        print(f"instructions per access (callgrind; first {r0['accesses']} accesses less the first "
              f"{r0['base_accesses']}):")
        for r in res["instructions"]:
            tgt = f"   target <= {r['target']}: {r['target_met']}" if "target" in r else ""
            print(f"  mglru {r['policy']:<8} {r['form']:<7} {r['per_access']:8.1f}{tgt}")
    if res["prefix_rss"]:
        print()
        print("mglru peak RSS by trace length (text trace, classic):")
        for e in res["prefix_rss"]:
            print(f"  {e['accesses']:>12} accesses  {fmt_mib(e['peak_rss_kib']):>10}  "
                  f"model_bytes {e['model_bytes']}  ({fmt_rate(e['accesses_per_s'])})")
    print()


def lcs_configs(spec: str, mem_pages: int) -> list[tuple[str, int]]:
    """(name, hashpower) from e.g. "default,auto,20"; -1 = the library default."""
    out = []
    for x in (t.strip() for t in spec.split(",")):
        if not x:
            continue
        if x == "default":
            out.append(("default", -1))
        elif x == "auto":
            # about 4-8 buckets per cached object: the table holds only the cache
            hp = max(4, math.ceil(math.log2(mem_pages)) + 2)
            out.append((f"hashpower={hp}", hp))
        else:
            try:
                hp = int(x)
            except ValueError:
                die(f"--lcs-hashpower: expected default, auto or an integer, found `{x}`")
            if not 4 <= hp <= 30:
                die(f"--lcs-hashpower: {hp} is outside 4..30")
            out.append((f"hashpower={hp}", hp))
    if not out:
        die("--lcs-hashpower: nothing to run")
    return list(dict.fromkeys(out))


def summarize_lcs(label: str, mode: str, hashpower: int, rs: list[dict]) -> dict:
    last = rs[-1]
    return {
        "label": label,
        "mode": mode,
        "hashpower": hashpower,
        "runs": rs,
        "median_requests_per_s": statistics.median(x["requests_per_s"] for x in rs),
        "median_end_to_end_per_s": statistics.median(x["requests"] / x["process_seconds"] for x in rs),
        "miss_ratio": last["miss_ratio"],
        "misses": last["misses"],
        "peak_rss_kib": max(x["peak_rss_kib"] for x in rs),
        "n_obj_end": last["n_obj_end"],
        "cache_size_bytes": last["cache_size_bytes"],
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--_lcs-worker":
        lcs_worker(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(
        description="Replay a zipf trace on the mglru model and on libCacheSim's LRU; report accesses/s.",
        epilog="Quick run: %(prog)s --accesses 1000000 --pages 100000",
    )
    ap.add_argument("--accesses", type=int, default=10_000_000, help="number of accesses (default 10,000,000)")
    ap.add_argument("--pages", type=int, default=1 << 20, help="pages in the file (default 1,048,576 = 4 GiB)")
    ap.add_argument("--alpha", type=float, default=1.2, help="zipf exponent (default 1.2)")
    ap.add_argument("--memory-fraction", type=float, default=0.05, help="RAM as a fraction of the file (default 0.05)")
    ap.add_argument("--seed", type=int, default=20241117, help="generator seed (default 20241117)")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs of each variant; the median is reported (default 3)")
    ap.add_argument("--out", default=str(ROOT / "bench-out"), help="scratch directory (default bench-out/)")
    ap.add_argument("--policies", default="classic,mglru",
                    help="mglru policies to measure; one that fails is reported as pending (default classic,mglru)")
    ap.add_argument("--mglru", help="the mglru binary to use (implies --no-build)")
    ap.add_argument("--no-build", action="store_true", help="do not run `cargo build --release`")
    ap.add_argument("--regen", action="store_true", help="write the traces again even if they exist")
    ap.add_argument("--no-zstd", action="store_true", help="do not measure a zstd-compressed text trace")
    ap.add_argument("--prefixes", help="comma-separated prefix lengths for the peak-RSS check (default 10,20,50,100 %% of --accesses)")
    ap.add_argument("--no-prefixes", action="store_true", help="skip the peak-RSS-by-trace-length check")
    ap.add_argument("--no-instructions", action="store_true",
                    help="skip counting instructions per access with valgrind's callgrind")
    ap.add_argument("--instr-accesses", type=int, default=2_000_000,
                    help="accesses of the prefix whose instructions are counted (default 2,000,000)")
    ap.add_argument("--no-generator", action="store_true", help="skip timing the fio generator streaming into the model")
    ap.add_argument("--python-loop", action="store_true",
                    help="also time libCacheSim driven by a Python loop calling get() per request (once)")
    ap.add_argument("--lcs-hashpower", default="default,auto",
                    help="libCacheSim LRU configurations to time: `default` (the library's hashpower 24), "
                         "`auto` (a table sized to the cache: ceil(log2(memory pages))+2) or integers "
                         "(default: default,auto); the fastest is the reference for the ratios and the targets")
    args = ap.parse_args()

    if args.accesses <= 0 or args.pages <= 0 or args.repeats <= 0:
        die("--accesses, --pages and --repeats must be positive")
    if args.pages > 1 << 32:
        die("--pages must be at most 2^32")
    if not 0 < args.memory_fraction <= 1:
        die("--memory-fraction must be in (0, 1]")
    need_module("numpy")
    need_module("libcachesim")
    mem_pages = max(1, round(args.pages * args.memory_fraction))
    if mem_pages * PAGE_SIZE < MIN_MEMORY:
        die(f"memory would be {mem_pages} pages, below the model's minimum of {MIN_MEMORY // PAGE_SIZE} pages "
            f"(16 MiB): raise --pages (e.g. --pages 100000) or --memory-fraction")
    configs = lcs_configs(args.lcs_hashpower, mem_pages)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    mglru = build(args)
    gen = generate(args, out, mglru, mem_pages)
    files = gen["files"]

    # warm the page cache so that no run pays for the first read from disk
    for p in list(files.values()) + list(gen["prefix_files"].values()):
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass

    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    pending = {}
    for pol in policies:
        err = probe_policy(mglru, pol, out)
        if err:
            pending[pol] = err
            log(f"policy {pol}: pending ({err.splitlines()[-1] if err else 'failed'})")

    forms = [("text", "text trace"), ("binary", "binary trace")]
    if "text_zst" in files:
        forms.insert(1, ("text_zst", "text trace, zstd"))
    if not args.no_generator:
        forms.append(("generator", "fio generator"))
    spec = generator_spec(args, mem_pages)
    variants = [(pol, form, label) for pol in policies if pol not in pending for form, label in forms]
    runs = {(pol, form): [] for pol, form, _ in variants}
    lcs_runs = {c: [] for c in configs}
    # interleaved, so that every variant sees the same machine conditions
    for rep in range(args.repeats):
        for pol, form, label in variants:
            if form == "generator":
                r = mglru_run(mglru, None, pol, out / f"run-{pol}-{form}.json", workload=spec)
            else:
                r = mglru_run(mglru, files[form], pol, out / f"run-{pol}-{form}.json")
            if not r["ok"]:
                die(f"`{' '.join(r['cmd'])}` failed:\n{r['error']}")
            if r["page_accesses"] != args.accesses:
                die(f"mglru replayed {r['page_accesses']} accesses, expected {args.accesses}")
            runs[(pol, form)].append(r)
            log(f"run {rep + 1}/{args.repeats}  mglru {pol} {label:<18}  {fmt_rate(r['accesses_per_s'])}")
        for c in configs:
            d = lcs_run(files["oracle"], mem_pages, "c", c[1], args.accesses)
            lcs_runs[c].append(d)
            log(f"run {rep + 1}/{args.repeats}  libCacheSim LRU {c[0]:<14} {fmt_rate(d['requests_per_s'])}")

    res = {
        "params": {
            "accesses": args.accesses, "pages": args.pages, "alpha": args.alpha, "seed": args.seed,
            "memory_fraction": args.memory_fraction, "memory_pages": mem_pages, "repeats": args.repeats,
            "lcs_hashpower": args.lcs_hashpower, "generator": None if args.no_generator else spec,
        },
        "command": " ".join(["python3", "bench/zipf_bench.py"] + sys.argv[1:]),
        "machine": machine_info(),
        "mglru_binary": {
            "path": str(mglru),
            "sha256": hashlib.sha256(mglru.read_bytes()).hexdigest(),
            "mtime": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(mglru.stat().st_mtime)),
        },
        "traces": {k: {"path": str(v), "bytes": v.stat().st_size} for k, v in files.items()},
        "mglru": [],
        "libcachesim": [
            summarize_lcs(f"libCacheSim LRU process_trace, {c[0]}", "c", c[1], lcs_runs[c]) for c in configs
        ],
        "prefix_rss": [],
        "instructions": [],
    }
    ref = max(res["libcachesim"], key=lambda d: d["median_requests_per_s"])
    res["reference"] = {"label": ref["label"], "median_requests_per_s": ref["median_requests_per_s"]}
    if args.python_loop:
        c = max(configs, key=lambda c: statistics.median(x["requests_per_s"] for x in lcs_runs[c]))
        log(f"libCacheSim LRU, {c[0]}, driven by a Python loop of get() (one run)")
        d = lcs_run(files["oracle"], mem_pages, "py", c[1], args.accesses)
        res["libcachesim"].append(summarize_lcs(f"libCacheSim LRU Python get() loop, {c[0]}", "py", c[1], [d]))

    for pol in policies:
        if pol in pending:
            res["mglru"].append({"label": f"mglru --policy {pol}", "policy": pol, "pending": True,
                                 "error": pending[pol]})
            continue
        text_med = statistics.median(x["accesses_per_s"] for x in runs[(pol, "text")])
        for form, label in forms:
            rs = runs[(pol, form)]
            last = rs[-1]
            med = statistics.median(x["accesses_per_s"] for x in rs)
            ratio = med / ref["median_requests_per_s"]
            if form == "generator":
                target, met = "text's rate", med >= text_med
            else:
                want = TARGETS[form]
                target, met = f"{want:.1f}x", ratio >= want
            res["mglru"].append({
                "label": f"mglru {pol}, {label}",
                "policy": pol,
                "form": form,
                "runs": rs,
                "median_accesses_per_s": med,
                "median_wall_seconds": statistics.median(x["wall_seconds"] for x in rs),
                "median_end_to_end_per_s": statistics.median(x["end_to_end_per_s"] for x in rs),
                "ratio_vs_reference": ratio,
                "ratio_vs_each_libcachesim": {d["label"]: med / d["median_requests_per_s"] for d in res["libcachesim"]},
                "target": target,
                "target_met": "pass" if met else "FAIL",
                "miss_ratio": last["miss_ratio"],
                "misses": last["misses"],
                "bytes_per_page": last["bytes_per_page"],
                "model_bytes": last["model_bytes"],
                "model_bytes_ram": last["model_bytes_ram"],
                "model_bytes_files": last["model_bytes_files"],
                "ram_pages": mem_pages,
                "file_pages": args.pages,
                "simulated_pages": last["simulated_pages"],
                "peak_rss_kib": max(x["peak_rss_kib"] for x in rs),
                "nr_file_pages_end": last["nr_file_pages_end"],
                "nr_free_pages_end": last["nr_free_pages_end"],
            })

    # peak RSS against trace length (the reader streams: it should stay flat)
    if "classic" in policies and "classic" not in pending:
        for c in prefix_counts(args):
            trace = files["text"] if c == args.accesses else gen["prefix_files"][c]
            r = mglru_run(mglru, trace, "classic", out / f"prefix-{c}.json")
            if not r["ok"]:
                die(f"`{' '.join(r['cmd'])}` failed:\n{r['error']}")
            res["prefix_rss"].append({"accesses": c, "peak_rss_kib": r["peak_rss_kib"],
                                      "model_bytes": r["model_bytes"], "accesses_per_s": r["accesses_per_s"]})

    if not args.no_instructions:
        if shutil.which("valgrind") is None:
            log("valgrind not found: instructions per access not counted (--no-instructions hides this)")
        else:
            ok = [p for p in policies if p not in pending]
            res["instructions"] = instructions_per_access(args, mglru, files["text"], out, ok)
            for row in res["instructions"]:
                if row["form"] == "binary":
                    row["target"] = MAX_INSTRUCTIONS
                    row["target_met"] = "pass" if row["per_access"] <= MAX_INSTRUCTIONS else "FAIL"

    (out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    print_table(res)
    log(f"wrote {out / 'results.json'}")
    failed = [v["label"] for v in res["mglru"] if v.get("target_met") == "FAIL"]
    failed += [f"instructions per access, {r['policy']} binary" for r in res["instructions"] if r.get("target_met") == "FAIL"]
    if failed:
        log("targets not met: " + "; ".join(failed))


if __name__ == "__main__":
    main()
