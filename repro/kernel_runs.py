#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The seeds' workloads on the real kernels (issue 32; docs/REPRODUCTIONS-KERNEL.md).

    python3 repro/kernel_runs.py --list                 # the cases and what is measured already
    python3 repro/kernel_runs.py --only S2 --runs 3     # measure what is missing of a section (or SECTION/CASE)
    python3 repro/kernel_runs.py --only S2 --dry-run    # print the commands, run nothing
    python3 repro/kernel_runs.py --only S2/lru-file-readtwice --remeasure   # measure again over the old results
    python3 repro/kernel_runs.py --only S3/mixed-nomemcg --side mglru       # one side only

Each case is one trace, emitted at the guest's scale by the model's own generator
(`mglru workload SPEC --emit-trace`, into validation/work/repro-traces/, git-ignored), and a list of
sides (kernel and lru_gen mode) that the section compares. Every side is replayed with
validation/run-kernel.sh under QEMU's instruction counter (`--icount 0`), one guest at a time, run
after run, the sides of run N one after the other, into

    validation/results-repro/SECTION/CASE/runN/SIDE.json.gz
    validation/results-repro/SECTION/CASE/case.json     (the spec, the trace's lines and SHA-256, ...)

A result is kept only if the harness accepted it (it retries a boot that ended early: an oops, no
replay-end, no or partial result line) and the replayer ran every operation of the trace with
`replay_rc` 0; anything else is reported and nothing is written. Existing results are reused
unless --remeasure. Run it in the background with `nice -n 10`; it starts one QEMU at a time, each under
`flock /tmp/mglru-guest.lock` (MGLRU_GUEST_LOCK), the machine's one-guest lock.

The model side is not here: repro/reproduce.py reads these results (repro/kernel.py).
"""

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from plumbing import GIB, size_str

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The model's binary, only for its trace generators (the same default as repro/plumbing.py).
BIN = os.environ.get("MGLRU_BIN") or os.path.join(ROOT, "target", "release", "mglru")

RESULTS = os.path.join(ROOT, "validation", "results-repro")
TRACES = os.path.join(ROOT, "validation", "work", "repro-traces")
RUN_KERNEL = os.path.join(ROOT, "validation", "run-kernel.sh")
HARNESS = os.path.join(ROOT, "validation", "harness.py")
# A copy of the static replayer, so that a rebuild cannot swap it out during a long series.
REPLAYER_SRC = os.environ.get("MGLRU_REPLAYER") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
    "x86_64-unknown-linux-gnu", "release", "mglru-replay")
GUEST_EXTRA_MIB = 64     # the kernel and the initramfs' programs, beyond the trace's memory, the ramdisk and the trace
ICOUNT = "0"             # 1 ns of guest time per guest instruction
# One guest at a time on the machine, shared with whoever else runs guests there: every guest run holds
# this lock (flock(1)) for its own duration only, so another user's guest can run between two of ours.
GUEST_LOCK = os.environ.get("MGLRU_GUEST_LOCK") or "/tmp/mglru-guest.lock"


class Side:
    """One kernel and mode of a comparison. `icount`: QEMU's instruction counter shift, or None for plain
    TCG (guest time then follows the host's; only for sides whose figures are event counters)."""

    def __init__(self, name, kernel, mode, icount=ICOUNT):
        self.name, self.kernel, self.mode, self.icount = name, kernel, mode, icount
        # The harness's timeout. Plain TCG runs at the host's speed, and a loaded host slows it: S3's 6.1
        # guests took 518 and 825 s (2026-12-02), against a timeout of 900 s; a killed guest keeps nothing.
        self.timeout = 900 if icount is not None else 1500

    def accel(self):
        return "tcg" if self.icount is None else "tcg-icount" + self.icount


CLASSIC_612 = Side("classic", "6.12", "classic")
MGLRU_612 = Side("mglru", "6.12", "mglru")
MGLRU_72 = Side("mglru-7.2", "7.2", "mglru")
# Debian's 6.1.192 does not boot under -icount shift=0,sleep=off here: the console stays at SeaBIOS's
# "Booting from ROM.." (S3's first 6.1 guest, 278 MiB, killed after 9 minutes; a 4-line trace, 150 s
# timeout, 2026-12-02 21:37 UTC), while it boots under plain TCG in seconds. Its runs are therefore plain
# TCG: their event counters are the kernel's, their times are not instructions (S3 reads counters only).
MGLRU_61 = Side("mglru-6.1", "6.1", "mglru", icount=None)


class Case:
    """One trace and the sides that replay it. `swap`: a `swap` statement that replaces the generator's
    (e.g. zram with the replayer's compression ratio, so that swapped pages take almost no guest RAM,
    as swap takes none in the model)."""

    def __init__(self, section, name, spec, sides, note="", swap=None, files_first=False, cpus=None, nomemcg=False,
                 merged=None, harness_args=()):
        self.section, self.name, self.spec, self.sides, self.note = section, name, spec, sides, note
        self.swap = swap
        # merged: a function returning repro/plumbing.py build_merged()'s arguments (without `out`): the trace is
        # two generators' streams merged like the seed's script (S1-A, S1-B), not `mglru workload SPEC`; `spec`
        # is then only the case's label. Called when the trace is emitted; case.json keeps what it returned.
        self.merged = merged
        # harness_args: run-kernel.sh options for every side (e.g. --swap-loop, S1-B's swapfile).
        self.harness_args = list(harness_args)
        # nomemcg: every task in the root memcg (the `memcg` statements and the tasks' `memcg=` dropped), as
        # repro/plumbing.py's build_split writes the section's `.nomemcg` trace (S3-i).
        self.nomemcg = nomemcg
        # cpus: the trace's `cpus N` made `cpus C` and each `task ... cpu=K` pinned to cpu=K mod C, for a
        # trace written for more CPUs than the guest's (the replayer pins a worker where the trace says;
        # the model then runs the same C CPUs).
        self.cpus = cpus
        # files_first: the `task` statements of the setup moved after its `file` statements. The replayer
        # before commit b1d48ca failed a pread with EBADF on a file declared after the task that reads it
        # (ycsb's trace: the 18th read; docs/REPRODUCTIONS-KERNEL.md); S4-a was measured with it and keeps
        # it (its trace's SHA-256 is the measured one). The model reads both orders the same (declarations
        # only), and since the fix so does the replayer (7.2.13, the trace in its own order: docs).
        self.files_first = files_first

    @property
    def key(self):
        return "%s/%s" % (self.section, self.name)

    def dir(self):
        return os.path.join(RESULTS, self.section, self.name)

    def trace(self):
        return os.path.join(TRACES, self.section, self.name + ".trace")

    def result(self, run, side):
        return os.path.join(self.dir(), "run%d" % run, side.name + ".json.gz")


S1A_SCALE = 512
S1B_SCALE = 512
S4S_SPEC = ("fio:--directory=/mnt/ramdisk --filename_format=test.$jobnum.img --name=cached --numjobs=16 --size=6m "
            "--buffered=1 --ioengine=mmap --rw=randread --random_distribution=zipf:1.2 --norandommap --time_based "
            "--ramp_time=7324us --runtime=36621us --group_reporting;memory=256M,memcg_max=24M,rate_iops=1158000")


def s1a_merged(n, seq):
    """build_merged's arguments for S1-A's trace at / n (repro/seed1.py's, without `out`)."""
    import seed1
    kw = seed1.S1A().prep_for(n, seq)
    del kw["out"]
    return kw


def s1b_merged(n):
    """build_merged's arguments for S1-B's trace at / n (repro/seed1.py's, without `out`)."""
    import seed1

    class Ctx:
        work_rel = "WORK"
    kw = seed1.S1B().prep_kw(Ctx(), n)
    del kw["out"]
    return kw


# The cases, in the order of docs/REPRODUCTIONS-KERNEL.md's plan. The section's model runs at full
# scale are in repro/seed*.py; these are the same generators at the guest's scale.
S2_SCALE = 128
CASES = [
    Case("S2", c, "%s:scale=%d" % (c, S2_SCALE), [CLASSIC_612, MGLRU_612],
         "vm-scalability %s, RAM and files / %d (the section: / 8)" % (c, S2_SCALE))
    for c in ("lru-file-readtwice", "lru-file-mmap-read", "mmap-pread-seq", "mmap-xread-seq-mt")
] + [
    Case("S4-a", "ycsb-b", "ycsb:workload=b,scale=64", [MGLRU_612, MGLRU_72],
         "YCSB workloadb / 64 (the section: / 1), MGLRU on 6.12 and 7.2; files declared before the task",
         files_first=True),
    # seed 001's ebizzy (S1-C, S1-D): the section's program at / 10 (the section: / 5) with a quarter of the
    # loops and 16 pages a statement (104,654 lines, 1.65 M pages), zram holding the replayer's pages at
    # their measured lz4 ratio (docs/FIDELITY.md "zram"). Not wired into seed1.py yet.
    Case("S1-C", "ebizzy-seq16", "ebizzy:seq=16,scale=10,memory=216619K,loops=40,batch=16",
         [CLASSIC_612, Side("mglru-0x3", "6.12", "0x0003"), MGLRU_612],
         "ebizzy seq=16 / 10, 40 loops, batch 16; zram", swap="swap 209712K zram=y ratio=120.45"),
    Case("S1-D", "ebizzy-seq160", "ebizzy:seq=160,scale=10,memory=216619K,loops=40,batch=16",
         [CLASSIC_612, MGLRU_612], "ebizzy seq=160 / 10, 40 loops, batch 16; zram",
         swap="swap 209712K zram=y ratio=120.45"),
    # seed 004's kernel build (S4-t): the section's generator at / 64 (the section: / 4; 22,272 lines, 43
    # compiler tasks in a 48M memcg), zram at the replayer's lz4 ratio (the generator's ratio 3 is the
    # section's assumption for real objects; the replayer's pages compress as its own fill pattern does).
    Case("S4-t", "kbuild", "kbuild:scale=64", [MGLRU_612, MGLRU_72],
         "kernel build on tmpfs / 64 (the section: / 4), MGLRU on 6.12 and 7.2; zram; 96 CPUs folded onto the guest's 2",
         swap="swap 512M zram=y ratio=120.45", cpus=2),
    # seed 003: patch1-8 (no memcg LRU) = 6.1's MGLRU, patch1-9 = 6.12's, 5.19-rc1 = the classic LRU
    # (595,043 lines at / 1024; about 5 minutes a guest). Not wired into seed3.py yet.
    # Its swap is brd, which keeps every written slot in guest RAM: `ram=y` makes the model's run of the same
    # trace take that RAM too (without it the model kept 14x fewer of fio's reads: a trial on 6.12 classic,
    # 2026-12-02, pgpgin 1,433,140 KiB on the kernel, 180,312 in the model without ram=y, 1,462,780 with it).
    Case("S3", "mixed-memcg", "mixed-memcg:scale=1024", [CLASSIC_612, MGLRU_61, MGLRU_612],
         "memcached and fio in two memcgs under global pressure / 1024 (the section: / 32); brd swap in RAM",
         swap="swap 54M sync=y ram=y"),
    # S3-i: S3's workload with every task in the root memcg (CONFIG_MEMCG=n's closest case), 6.1 MGLRU
    # (patch1-8) against 6.12 MGLRU (patch1-9), at half S3's guest scale (/ 2048: 297,600 lines): a 6.1
    # guest is plain TCG and took 518-825 s (and once more than 900 s) for S3's / 1024 trace.
    Case("S3", "mixed-nomemcg", "mixed-memcg:scale=2048", [MGLRU_61, MGLRU_612],
         "memcached and fio with every task in the root memcg (S3-i) / 2048; brd swap in RAM",
         swap="swap 27M sync=y ram=y", nomemcg=True),
] + [
    # seed 001's mmap.sh (S1-A): memtier's load, 200 s of fio alone, the reads with fio; the section's
    # merged trace (repro/seed1.py S1A.prep_for) at / 512 (the section: / 16). The swap is brd, which keeps
    # its slots in guest RAM: `ram=y` makes the model's run take that RAM too (as S3).
    Case("S1-A", tag, "merged:S1-A.%s:scale=%d" % (tag, S1A_SCALE), [CLASSIC_612, MGLRU_612],
         "memcached and 12 fio mmap jobs%s / %d (the section: / 16); brd swap in RAM"
         % (" with MADV_SEQUENTIAL" if seq else " without MADV_SEQUENTIAL", S1A_SCALE),
         swap="swap %s sync=y ram=y" % size_str(54 * GIB // S1A_SCALE),
         merged=(lambda seq=seq: s1a_merged(S1A_SCALE, seq)))
    for tag, seq in (("seq", True), ("noseq", False))
] + [
    # seed 001's test.sh (S1-B): fio alone for 600 s of its rate, then memtier's load and reads with fio;
    # the section's merged trace (repro/seed1.py S1B.prep_kw) at / 512 (the section: / 32). The seed's
    # swap is a swapfile on ext4 on brd, not a synchronous device: run-kernel.sh --swap-loop (a loop
    # device over /dev/ram1 with direct I/O), and `sync=n ram=y` for the model.
    Case("S1-B", "mix", "merged:S1-B.mix:scale=%d" % S1B_SCALE, [CLASSIC_612, MGLRU_612],
         "a 200 GB fio mmap stream and a 40 GB memcached / %d (the section: / 32); swap on a loop device "
         "over brd (--swap-loop)" % S1B_SCALE,
         swap="swap %s sync=n ram=y" % size_str(40 * GIB // S1B_SCALE),
         merged=lambda: s1b_merged(S1B_SCALE), harness_args=["--swap-loop"]),
    # seed 004's fio mmap zipf reads (S4-s): repro/seed4.py's S4s.spec(512, 15 s, 75 s), i.e. the files,
    # memcg and RAM / 512 (the section: / 16) and the seed's 1 min ramp and 5 min run / 2048 (the
    # section's times / 4N, here / 4 more: 813,000 reads, every page of the 24,576 still read 33 times on
    # average). MB/s is a throughput row: --icount, the window after the ramp (fio's ramp is the trace's
    # reads up to 7,324 us of its rate; S4s.spec(512, 0, 15 s) is that prefix alone).
    Case("S4-s", "fio-zipf", S4S_SPEC, [MGLRU_612, MGLRU_72],
         "fio mmap randread zipf:1.2, 16 x 6 MiB files in a 24 MiB memcg / 512 (the section: / 16), "
         "times / 2048; MGLRU on 6.12 and 7.2"),
    # seed 004's aging OOM reproducer (S4-o, S4-p): the section's generator at / 1024 (the section: / 32;
    # 684,440 lines, a 48 MiB memcg, no swap), MGLRU disabled (6.12 classic), 6.12 MGLRU and 7.2 MGLRU.
    # The rounds are drops of the memcg's usage (the guest's vmstat_profile: its anon pages); the OOM is
    # oom_kill.
    Case("S4-o", "file-anon-mix", "file-anon-mix:scale=1024", [CLASSIC_612, MGLRU_612, MGLRU_72],
         "file-anon-mix / 1024 (the section: / 32) in a 48 MiB memcg without swap; classic, MGLRU 6.12 and 7.2"),
]


def find(only):
    if not only:
        return list(CASES)
    out = [c for c in CASES if only in (c.section, c.key)]
    if not out:
        sys.exit("kernel_runs: --only %s: no such section or case (cases: %s)" % (only, ", ".join(c.key for c in CASES)))
    return out


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def count_ops(path):
    """Lines and access operations (load/store/read/write) of a text trace."""
    lines = ops = 0
    with open(path) as f:
        for line in f:
            lines += 1
            w = line.split(" ", 1)[0]
            if w in ("load", "store", "read", "write"):
                ops += 1
    return lines, ops


def git_head():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], stdout=subprocess.PIPE, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def trace_setup(trace):
    p = subprocess.run([sys.executable, HARNESS, "trace-setup", trace], stdout=subprocess.PIPE, text=True, check=True)
    env = {}
    for line in p.stdout.splitlines():
        k, _, v = line.partition("=")
        env[k] = v.strip("'")
    return env


def fold_cpus(line, cpus):
    """One trace line with `cpus N` made `cpus CPUS` and a task's `cpu=K` made `cpu=K mod CPUS`."""
    w = line.split()
    if w and w[0] == "cpus":
        return "cpus %d\n" % cpus
    if w and w[0] == "task":
        w = ["cpu=%d" % (int(t[4:]) % cpus) if t.startswith("cpu=") else t for t in w]
        return " ".join(w) + "\n"
    return line


def drop_memcgs(line):
    """One trace line with every task in the root memcg: None for a `memcg` statement, a `task` statement
    without its `memcg=` (as repro/plumbing.py's build_split writes `.nomemcg`)."""
    if line.startswith("memcg "):
        return None
    if line.startswith("task "):
        return " ".join(w for w in line.split() if not w.startswith("memcg=")) + "\n"
    return line


def replace_swap(path, swap, spec):
    """The trace's one `swap` statement replaced by `swap`, in place."""
    tmp = path + ".tmp"
    n = 0
    with open(path) as src, open(tmp, "w") as dst:
        for line in src:
            if line.startswith("swap "):
                line = swap + "\n"
                n += 1
            dst.write(line)
    if n != 1:
        os.remove(tmp)
        raise RuntimeError("%s: %d `swap` statements in the trace of %s, expected 1 to replace" % (path, n, spec))
    os.replace(tmp, path)


def emit_merged(kwargs, path, bin_path=None):
    """Write the merged trace of build_merged(**kwargs) (repro/plumbing.py) to `path`, with its prefix
    files PATH.pN; returns build_merged's phase counts (the line after each phase: `marker`)."""
    import plumbing
    if bin_path:
        # build_merged's generator streams use plumbing's binary
        plumbing.BIN = bin_path
    return plumbing.build_merged(out=os.path.relpath(path, ROOT), **kwargs)


def emit(spec, swap, path, bin_path=None, files_first=False, cpus=None, nomemcg=False, merged=None):
    """Write the trace of `mglru workload SPEC` (or, with `merged`, build_merged's arguments, of the merged
    streams: emit_merged), its `swap` statement replaced by `swap` if given, with
    `files_first` the setup's `task` statements moved after its last `file` statement, with `cpus`
    its CPUs folded onto that many (fold_cpus), and with `nomemcg` every task in the root memcg
    (drop_memcgs). Returns emit_merged's phase counts, or None."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    phases = None
    if merged:
        phases = emit_merged(merged, path, bin_path)
    else:
        subprocess.run([bin_path or BIN, "workload", spec, "--emit-trace", path], check=True, stderr=subprocess.DEVNULL)
    if cpus:
        with open(path) as f:
            lines = [fold_cpus(l, cpus) for l in f]
        with open(path, "w") as f:
            f.writelines(lines)
    if nomemcg:
        with open(path) as f:
            lines = [m for m in (drop_memcgs(l) for l in f) if m is not None]
        with open(path, "w") as f:
            f.writelines(lines)
    if files_first:
        with open(path) as f:
            lines = f.readlines()
        setup_end = next((i for i, l in enumerate(lines) if l.split(" ", 1)[0] in ("load", "store", "read", "write")),
                         len(lines))
        head = lines[:setup_end]
        last_file = max((i for i, l in enumerate(head) if l.startswith("file ")), default=-1)
        tasks = [l for l in head[:last_file] if l.startswith("task ")]
        rest = [l for l in head[:last_file + 1] if not l.startswith("task ")]
        with open(path, "w") as f:
            f.writelines(rest + tasks + head[last_file + 1:] + lines[setup_end:])
    if swap:
        # a merged trace's prefixes too: the model's runs of them are the same machine's
        for t in [path] + ["%s.p%d" % (path, i) for i in range(len(phases["phases"]) - 1 if phases else 0)]:
            replace_swap(t, swap, spec)
    return phases


def prepare(case):
    """Emit the case's trace (if missing or its case.json disagrees) and write case.json."""
    tr = case.trace()
    meta_path = os.path.join(case.dir(), "case.json")
    old = None
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            old = json.load(f)
    # A case not measured yet is always emitted afresh (a trace left from an earlier definition of the
    # case would otherwise be replayed); a measured one only if its trace is missing or differs.
    merged = case.merged() if case.merged else None
    phases = old.get("merged_phases") if old else None
    if old is None or not os.path.exists(tr) or old.get("trace_sha256") != sha256(tr):
        phases = emit(case.spec, case.swap, tr, files_first=case.files_first, cpus=case.cpus, nomemcg=case.nomemcg,
                      merged=merged)
    digest = sha256(tr)
    if old and old.get("trace_sha256") not in (None, digest):
        sys.exit("kernel_runs: %s: the emitted trace's SHA-256 %s differs from the measured one's %s (case.json): "
                 "the generator changed; measure again with --remeasure or restore the generator"
                 % (case.key, digest, old["trace_sha256"]))
    lines, ops = count_ops(tr)
    env = trace_setup(tr)
    # The initramfs (and so the trace in it) stays in guest RAM too.
    mem_mib = (int(env["MEMORY_MIB"]) + (int(env["RD_SIZE_KB"]) + 1023) // 1024 + GUEST_EXTRA_MIB
               + (os.path.getsize(tr) + (1 << 20) - 1) // (1 << 20))
    if old and old.get("guest_memory_mib"):
        mem_mib = old["guest_memory_mib"]       # the runs of one case keep the guest they started with
    meta = {"section": case.section, "case": case.name, "spec": case.spec, "note": case.note, "swap": case.swap,
            "files_first": case.files_first, "cpus": case.cpus,
            **({"nomemcg": True} if case.nomemcg else {}),
            **({"merged": merged, "merged_phases": phases} if merged else {}),
            **({"harness_args": case.harness_args} if case.harness_args else {}),
            "emit": ("repro/plumbing.py build_merged(out=%r, **merged)" % os.path.relpath(tr, ROOT) if merged else
                     "mglru workload '%s' --emit-trace %s" % (case.spec, os.path.relpath(tr, ROOT))) + "%s%s" % (
                "; its swap statement replaced by `%s`" % case.swap if case.swap else "",
                "; every task in the root memcg (its `memcg` statements and the tasks' `memcg=` dropped)"
                if case.nomemcg else ""),
            "trace_lines": lines, "trace_ops": ops, "trace_sha256": digest,
            "trace_memory_mib": int(env["MEMORY_MIB"]), "guest_memory_mib": mem_mib,
            "icount_shift": int(ICOUNT),
            "sides": [{"name": s.name, "kernel": s.kernel, "mode": s.mode, "accel": s.accel()} for s in case.sides]}
    if old is None:
        meta["generated_at_commit"] = git_head()
    else:
        meta["generated_at_commit"] = old.get("generated_at_commit")
    os.makedirs(case.dir(), exist_ok=True)
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    return meta


def ensure_trace(section, name, bin_path=None):
    """The measured case's trace for the model's runs at the guest's scale: emitted again from the
    spec in case.json if missing, and refused if its SHA-256 is not the measured trace's.
    Returns the trace's path relative to ROOT, or None if the case has no case.json."""
    meta_path = os.path.join(RESULTS, section, name, "case.json")
    if not os.path.exists(meta_path):
        return None
    with open(meta_path) as f:
        meta = json.load(f)
    tr = os.path.join(TRACES, section, name + ".trace")
    if not os.path.exists(tr):
        emit(meta["spec"], meta.get("swap"), tr, bin_path, files_first=meta.get("files_first", False),
             cpus=meta.get("cpus"), nomemcg=meta.get("nomemcg", False), merged=meta.get("merged"))
    digest = sha256(tr)
    if digest != meta["trace_sha256"]:
        raise RuntimeError("%s: the trace emitted from `%s` has SHA-256 %s, the kernel's runs replayed %s "
                           "(case.json): the generator changed since; measure again (repro/kernel_runs.py "
                           "--only %s/%s --remeasure)" % (tr, meta["spec"], digest, meta["trace_sha256"],
                                                         section, name))
    return os.path.relpath(tr, ROOT)


def check_result(path, meta, side):
    """Why the result file is not acceptable, or None."""
    with open(path) as f:
        return check_result_obj(json.load(f), meta, side)


def check_result_obj(d, meta, side):
    """Why a result is not acceptable (the replayer failed, another kernel or clock, operations left
    out), or None."""
    m = d.get("meta", {})
    if m.get("replay_rc") != 0:
        return "replay_rc %r" % m.get("replay_rc")
    if m.get("kernel_series") != side.kernel:
        return "kernel_series %r, wanted %s" % (m.get("kernel_series"), side.kernel)
    if m.get("accel") != side.accel():
        return "accel %r, wanted %s" % (m.get("accel"), side.accel())
    done = d.get("operations", 0) + d.get("skipped_operations", 0)
    if d.get("skipped_operations", 0) or done < meta["trace_ops"]:
        return "operations %s (+%s skipped) of the trace's %d" % (d.get("operations"), d.get("skipped_operations"),
                                                                  meta["trace_ops"])
    return None


def run_side(case, meta, run, side, replayer, dry):
    out = case.result(run, side)
    tmp = os.path.join(ROOT, "validation", "work", "repro-tmp", case.section, case.name, "run%d" % run, side.name + ".json")
    cmd = ["flock", GUEST_LOCK, "nice", "-n", "10", RUN_KERNEL, case.trace(), "--mode", side.mode, "--kernel", side.kernel]
    if side.icount is not None:
        cmd += ["--icount", side.icount]
    cmd += meta.get("harness_args", [])
    cmd += ["--memory", "%dM" % meta["guest_memory_mib"], "--replayer", replayer, "--timeout", str(side.timeout), "--out", tmp]
    print("kernel_runs: %s run%d %s: %s" % (case.key, run, side.name, " ".join(cmd[5:])), file=sys.stderr, flush=True)
    if dry:
        return True
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    t = time.time()
    p = subprocess.run(cmd)
    dt = time.time() - t
    if p.returncode != 0 or not os.path.exists(tmp):
        print("kernel_runs: %s run%d %s: run-kernel.sh exit %d after %.0f s; nothing kept"
              % (case.key, run, side.name, p.returncode, dt), file=sys.stderr, flush=True)
        return False
    why = check_result(tmp, meta, side)
    if why:
        print("kernel_runs: %s run%d %s: refused (%s); nothing kept" % (case.key, run, side.name, why),
              file=sys.stderr, flush=True)
        return False
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(tmp, "rb") as src, gzip.GzipFile(out, "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(tmp)
    print("kernel_runs: %s run%d %s: wrote %s (%.0f s)" % (case.key, run, side.name, os.path.relpath(out, ROOT), dt),
          file=sys.stderr, flush=True)
    return True


def measured(case, runs):
    return [(r, s.name) for r in range(1, runs + 1) for s in case.sides if os.path.exists(case.result(r, s))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="a section (S2) or a case (S2/lru-file-readtwice)")
    ap.add_argument("--runs", type=int, default=3, help="runs per side (default 3)")
    ap.add_argument("--side", help="measure only this side of the cases (e.g. mglru; case.json's sides[].name)")
    ap.add_argument("--remeasure", action="store_true", help="measure again where results exist")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    ap.add_argument("--list", action="store_true", help="list the cases and their results")
    args = ap.parse_args()
    if args.runs < 1 or args.runs > 20:
        sys.exit("kernel_runs: --runs takes 1 to 20, not %d" % args.runs)
    cases = find(args.only)
    if args.side and not any(args.side == x.name for c in cases for x in c.sides):
        sys.exit("kernel_runs: --side %s: no such side in %s" % (args.side, ", ".join(c.key for c in cases)))
    if args.list:
        for c in cases:
            have = measured(c, 20)
            print("%-28s %-34s %s: %d results" % (c.key, c.spec, ", ".join("%s (%s %s)" % (s.name, s.kernel, s.mode)
                                                                            for s in c.sides), len(have)))
        return
    if not os.path.exists(BIN):
        sys.exit("kernel_runs: no model binary at %s (set MGLRU_BIN or build: cargo build --release -p mglru-cli)" % BIN)
    if not os.path.exists(REPLAYER_SRC):
        sys.exit("kernel_runs: no static replayer at %s: build it with RUSTFLAGS=\"-C target-feature=+crt-static\" "
                 "cargo build --release -p mglru-replay --target x86_64-unknown-linux-gnu (or set MGLRU_REPLAYER)"
                 % REPLAYER_SRC)
    replayer = os.path.join(ROOT, "validation", "work", "repro-replayer", "mglru-replay")
    os.makedirs(os.path.dirname(replayer), exist_ok=True)
    # Replaced only if it differs, and atomically: another series may be packing the copy into an initramfs.
    if not os.path.exists(replayer) or sha256(replayer) != sha256(REPLAYER_SRC):
        shutil.copy2(REPLAYER_SRC, replayer + ".tmp")
        os.replace(replayer + ".tmp", replayer)
    failed = 0
    for c in cases:
        meta = prepare(c)
        for r in range(1, args.runs + 1):
            for s in c.sides:
                if args.side and s.name != args.side:
                    continue
                if os.path.exists(c.result(r, s)) and not args.remeasure:
                    continue
                if not run_side(c, meta, r, s, replayer, args.dry_run):
                    failed += 1
    if failed:
        sys.exit("kernel_runs: %d runs failed (see above)" % failed)


if __name__ == "__main__":
    main()
