#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Helpers of the real-kernel harness (run-kernel.sh, build-initramfs.sh).

    harness.py trace-setup TRACE [--swap-loop|--swap-nullb]
        Reads the setup a guest needs from a trace (text, gzip, zstd or the binary form) and prints
        shell assignments: MEMORY_BYTES, MEMORY_MIB, SWAP_BYTES, SWAP_KB, SWAP_SYNC, FILES,
        DATA_BYTES, RD_SIZE_KB, READAHEAD_KB, TRACE_WARNINGS. --swap-loop / --swap-nullb: the
        guest will swap on a loop device over /dev/ram1 or on a memory-backed null_blk
        (run-kernel.sh --swap-loop / --swap-nullb), an asynchronous device; the warnings then say
        so (an error with `zram=y`).

    harness.py boot --out RESULT.json --log-dir DIR [--timeout S] [--meta K=V ...] -- QEMU ARGS...
        Boots QEMU, streams its serial console (ttyS0) into DIR/console.log with host timestamps,
        kills it after --timeout seconds, reads the result line from DIR/result.log (the guest's
        ttyS1) or, failing that, from the console, and writes RESULT.json in the shape of
        `mglru run --json`.
"""

import datetime
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

PAGE = 4096
RESULT_TAG = "MGLRU-REPLAY-RESULT "
HARNESS_TAG = "MGLRU-HARNESS "
ANSI_RE = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|c)")

# --------------------------------------------------------------------------------------------
# Trace setup


def parse_size(tok, where):
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", tok)
    if not m:
        raise SystemExit(f"{where}: bad SIZE `{tok}`")
    mult = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
            "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40}.get(m.group(2).lower())
    if mult is None:
        raise SystemExit(f"{where}: bad size suffix in `{tok}` (B, K/KiB, M/MiB, G/GiB, T/TiB)")
    return int(m.group(1)) * mult


def open_trace(path):
    """The decompressed bytes of a trace, as one stream."""
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    if magic == b"\x28\xb5\x2f\xfd":
        p = subprocess.Popen(["zstd", "-qdc", path], stdout=subprocess.PIPE)
        return p.stdout
    return open(path, "rb")


SETUP_RE = re.compile(rb"^[ \t]*(memory|swap|file)[ \t]([^\n#]*)", re.M)


def text_statements(stream, first):
    """Yields (keyword, rest) of the memory/swap/file lines of a text trace."""
    buf = first
    while True:
        chunk = stream.read(1 << 22)
        buf += chunk
        if chunk:
            cut = buf.rfind(b"\n") + 1
            if cut == 0:
                continue
            part, buf = buf[:cut], buf[cut:]
        else:
            part, buf = buf, b""
        for m in SETUP_RE.finditer(part):
            yield m.group(1).decode(), m.group(2).decode("utf-8", "replace").strip()
        if not chunk:
            return


def binary_statements(stream, first):
    """Yields (keyword, rest) of the text records of the binary form (docs/TRACE_FORMAT.md §9)."""
    data = first[8:] + stream.read()
    i, n = 0, len(data)

    def varint():
        nonlocal i
        v, shift = 0, 0
        while True:
            if i >= n:
                raise SystemExit("binary trace: truncated varint")
            b = data[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    while i < n:
        tag = data[i]
        i += 1
        if tag & 0x80:
            if tag & 0x10:
                varint()
            else:
                varint(); varint(); varint()
            if tag & 0x0F == 0:
                varint()
        elif tag == 0x01:
            ln = varint()
            text = data[i:i + ln].decode("utf-8", "replace")
            i += ln
            m = re.match(r"[ \t]*(memory|swap|file)[ \t](.*)", text)
            if m:
                yield m.group(1), m.group(2).strip()
        elif tag == 0x02:
            varint()
        elif tag == 0x00:
            return
        else:
            raise SystemExit(f"binary trace: unknown tag {tag:#x}")


def trace_setup(path, swap_loop=None):
    # swap_loop: None (swap on brd or zram), "loop" or "nullb" (an asynchronous device)
    stream = open_trace(path)
    first = stream.read(8)
    stmts = binary_statements(stream, first) if first == b"MGLRUTB1" else text_statements(stream, first)
    memory = 1 << 30
    swap, swap_sync, swap_ram, swap_zram = 0, "n", "n", "n"
    files = []  # (name, bytes rounded to pages, readahead bytes rounded to pages): files on disk
    tmpfs = 0  # bytes of the `tmpfs=y` files, rounded to pages
    warnings = []
    for kw, rest in stmts:
        toks = rest.split()
        where = f"{path}: `{kw} {rest}`"
        if kw == "memory" and toks:
            memory = parse_size(toks[0], where)
        elif kw == "swap" and toks:
            swap = parse_size(toks[0], where)
            for t in toks[1:]:
                if t.startswith("sync="):
                    swap_sync = t[5:]
                elif t.startswith("ram="):
                    swap_ram = t[4:]
                elif t.startswith("zram="):
                    swap_zram = t[5:]
        elif kw == "file" and toks:
            opts = dict(t.split("=", 1) for t in toks[1:] if "=" in t)
            size = parse_size(opts.get("size", "0"), where)
            if opts.get("tmpfs") == "y":
                # shmem: on the guest's tmpfs mount (init.sh), not on the disk; no readahead
                tmpfs += (size + PAGE - 1) // PAGE * PAGE
                continue
            if opts.get("memfd") == "y":
                continue  # memfd_create: the kernel's internal shmem mount, not the disk
            ra = parse_size(opts.get("readahead", "128K"), where)
            files.append((toks[0], (size + PAGE - 1) // PAGE * PAGE, ra // PAGE * PAGE))
    data = sum(f[1] for f in files)
    ras = sorted({f[2] for f in files if f[2] > 0})
    if not files:
        readahead = 128 << 10
    elif not ras:
        readahead = 0
    else:
        readahead = ras[-1]
        if len(ras) > 1 or any(f[2] == 0 for f in files):
            warnings.append(
                "files differ in readahead (%s): the disk's read_ahead_kb is set to %d; the "
                "replayer must give the others their own window (readahead=0: POSIX_FADV_RANDOM)"
                % (", ".join(f"{f[0]}={f[2] >> 10}K" for f in files), readahead >> 10))
    if swap_loop and swap_zram == "y":
        raise SystemExit(f"{path}: --swap-{swap_loop} and `swap ... zram=y` exclude each other")
    if swap_loop and not swap:
        warnings.append(f"--swap-{swap_loop}, but the trace has no swap: no swap device is set up")
    # With zram=y the guest swaps to /dev/zram0, the device the trace describes.
    if swap and swap_loop:
        # loop over brd with direct I/O: asynchronous (not SWP_SYNCHRONOUS_IO), RAM-backed
        if swap_sync == "y":
            warnings.append("the trace's swap is sync=y, but --swap-%s puts it on an asynchronous "
                            "device: compare with a `swap SIZE sync=n ram=y` run of the model" % swap_loop)
        if swap_ram != "y":
            warnings.append("the trace's swap is ram=%s, but the %s device keeps every written slot in "
                            "guest RAM: compare with `swap SIZE sync=n ram=y`" % (swap_ram, swap_loop))
    elif swap and swap_zram != "y" and swap_sync != "y":
        warnings.append("the trace's swap is sync=%s, but swap on brd is a synchronous-I/O device "
                        "(SWP_SYNCHRONOUS_IO): compare with a `swap SIZE sync=y` run of the model"
                        % swap_sync)
    if swap and not swap_loop and swap_zram != "y" and swap_ram != "y":
        warnings.append("the trace's swap is ram=%s, but swap on brd keeps every written slot in guest RAM: "
                        "compare with a `swap SIZE sync=y ram=y` run of the model" % swap_ram)
    # ext4 without a journal, 4 KiB blocks, few inodes: bitmaps, group descriptors and extent
    # blocks stay well under 2 %; 16 MiB more for small files and the root directory.
    data_kb = (data * 102 // 100 >> 10) + (16 << 10)
    # brd gives both disks one size; with zram the swap is not a ramdisk.
    rd_size_kb = data_kb if swap_zram == "y" else max(data_kb, (swap + 1023) >> 10)
    mem_mib = (memory + (1 << 20) - 1) >> 20
    out = {
        "MEMORY_BYTES": memory, "MEMORY_MIB": mem_mib, "SWAP_BYTES": swap,
        "SWAP_KB": swap >> 10, "SWAP_SYNC": swap_sync, "SWAP_ZRAM": swap_zram, "FILES": len(files),
        "DATA_BYTES": data, "RD_SIZE_KB": rd_size_kb, "READAHEAD_KB": readahead >> 10,
        # the size limit of the guest's tmpfs mount: the trace's tmpfs files plus 16 MiB
        "TMPFS_KB": (tmpfs >> 10) + (16 << 10),
        "TRACE_WARNINGS": " | ".join(warnings),
    }
    for k, v in out.items():
        print(f"{k}={shq(str(v))}")


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


# --------------------------------------------------------------------------------------------
# Boot and result


def find_result(texts):
    for text in texts:
        found = None
        for line in text.splitlines():
            k = line.find(RESULT_TAG)
            if k >= 0:
                found = line[k + len(RESULT_TAG):].strip()
        if found is not None:
            return found
    return None


def harness_tags(text):
    tags = {}
    for line in text.splitlines():
        k = line.find(HARNESS_TAG)
        if k < 0:
            continue
        for m in re.finditer(r"(\w[\w.-]*)=(\S*)", line[k + len(HARNESS_TAG):]):
            tags[m.group(1)] = m.group(2)
    return tags


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return float(v)
        except (TypeError, ValueError):
            return v


# An oops or a panic: the kernel went wrong, and whatever the run printed after it (if anything)
# is not a measurement. Under TCG about 1 boot in 20 of the 7.2 kernel oopses in freshly patched
# kernel text (static keys, alternatives); the run is then retried. Matched anywhere on the
# console, the end-of-run dmesg dump included. (OOM reports and WARN()s print a call trace too,
# and are neither.)
OOPS_RE = re.compile(r"\bOops: |Kernel panic - not syncing|kernel BUG at |BUG: unable to handle|"
                     r"BUG: kernel NULL pointer dereference|general protection fault|"
                     r"invalid opcode: [0-9a-f]{4}|stack segment: [0-9a-f]{4}|double fault: [0-9a-f]{4}")
# Not failures, but worth knowing about a run: recorded in meta.kernel_warnings.
KERNEL_WARN_RE = re.compile(r"WARNING: CPU: |BUG: soft lockup|rcu: INFO: |detected stalls on CPUs|"
                            r"hung_task|blocked for more than")


def early_end(console, raw_result, res, tags, timed_out):
    """Why an attempt did not end as a complete run, as (reason, retry, lines), or None.

    retry: whether booting again can help (an oops or panic, a result line missing or cut
    short). Not retried: a timeout with a clean console, an error /init reported (a setup
    failure, the same on every boot)."""
    oops = [ln.strip() for ln in console.splitlines() if OOPS_RE.search(ln)]
    if oops:
        return ("oops or panic on the console", True, oops[:8])
    if timed_out and (HARNESS_TAG + "stage=replay-end" not in console or res is None):
        # (killed before the replayer's complete result: a timeout; killed after it, while the
        # guest dumped dmesg or powered off, the run is whole and is kept, with
        # meta.killed_after_result)
        return ("timeout", False, [])
    if "error" in tags:
        return (f"/init failed: {tags['error']}", False, [])
    if HARNESS_TAG + "stage=replay-end" not in console:
        return ("the guest stopped before the replayer ended (no stage=replay-end)", True, [])
    if raw_result is None and num(tags.get("replay_rc")) not in (0, None):
        return (f"the replayer exited with {tags.get('replay_rc')} without a result line", False,
                [ln.strip() for ln in console.splitlines() if "mglru-replay" in ln and "error" in ln][:4])
    if raw_result is None:
        return ("no result line", True, [])
    if res is None:
        return ("the result line is not complete JSON", True, [])
    missing = [k for k in ("kernel", "vmstat", "memcg") if k not in res]
    if missing or not isinstance(res.get("vmstat"), dict) or not res.get("vmstat"):
        return (f"the result lacks {', '.join(missing) or 'vmstat counters'}", True, [])
    return None


def run_qemu(qemu, console_path, timeout, verbose):
    """Boots QEMU once; returns (console lines, qemu exit code, wall seconds, stage marks,
    timed out)."""
    t0 = time.monotonic()
    marks = {}
    proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = threading.Event()

    def killer():
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, killer)
    timer.start()
    lines = []
    with open(console_path, "w", encoding="utf-8", errors="replace") as log:
        for raw in proc.stdout:
            now = time.monotonic() - t0
            line = ANSI_RE.sub("", raw.decode("utf-8", "replace").rstrip("\r\n"))
            lines.append(line)
            log.write(f"[{now:9.3f}] {line}\n")
            log.flush()
            if verbose:
                print(f"[{now:9.3f}] {line}", file=sys.stderr, flush=True)
            for tag in ("init", "replay-start", "replay-end"):
                if HARNESS_TAG + "stage=" + tag in line and tag not in marks:
                    marks[tag] = now
    rc = proc.wait()
    timer.cancel()
    return lines, rc, time.monotonic() - t0, marks, timed_out.is_set()


def boot(argv):
    out = log_dir = None
    timeout = 600.0
    attempts = 1
    meta = {}
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a == "--out":
            out = argv[i + 1]; i += 2
        elif a == "--log-dir":
            log_dir = argv[i + 1]; i += 2
        elif a == "--timeout":
            timeout = float(argv[i + 1]); i += 2
        elif a == "--attempts":
            attempts = int(argv[i + 1]); i += 2
            if not 1 <= attempts <= 9:
                raise SystemExit("harness.py boot: --attempts takes 1 to 9")
        elif a == "--meta":
            k, v = argv[i + 1].split("=", 1); meta[k] = v; i += 2
        else:
            raise SystemExit(f"harness.py boot: unknown option {a}")
    qemu = argv[i + 1:]
    if not (out and log_dir and qemu):
        raise SystemExit("usage: harness.py boot --out RESULT.json --log-dir DIR [--timeout S] "
                         "[--attempts N] [--meta K=V]... -- QEMU ARGS")
    console_path = os.path.join(log_dir, "console.log")
    result_path = os.path.join(log_dir, "result.log")
    verbose = os.environ.get("HARNESS_VERBOSE") == "1"

    failed = []  # the attempts that ended early: what was seen, for the result's meta
    for attempt in range(1, attempts + 1):
        if os.path.exists(result_path):
            os.remove(result_path)
        lines, rc, wall, marks, timed_out = run_qemu(qemu, console_path, timeout, verbose)
        console = "\n".join(lines)
        result_text = ""
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8", errors="replace") as f:
                result_text = f.read()
        tags = harness_tags(console)
        raw_result = find_result([result_text, console])
        res, json_error = None, None
        if raw_result is not None:
            try:
                res = json.loads(raw_result)
            except json.JSONDecodeError as e:
                json_error = str(e)
        bad = early_end(console, raw_result, res, tags, timed_out)
        if bad is None:
            break
        reason, retry, seen = bad
        failed.append({"attempt": attempt, "reason": reason, "qemu_exit": rc,
                       "wall_seconds": round(wall, 3), "lines": seen})
        # this attempt's logs are kept beside the last one's
        os.replace(console_path, os.path.join(log_dir, f"console.attempt{attempt}.log"))
        if os.path.exists(result_path):
            os.replace(result_path, os.path.join(log_dir, f"result.attempt{attempt}.log"))
        kept = os.path.join(log_dir, f"console.attempt{attempt}.log")
        tail = "\n".join(lines[-25:])
        if retry and attempt < attempts:
            sys.stderr.write(f"run-kernel: attempt {attempt} of {attempts} ended early ({reason}; "
                             f"log: {kept}); booting again\n"
                             + "".join(f"    {ln}\n" for ln in seen[:4]))
            continue
        if reason == "timeout":
            sys.stderr.write(f"run-kernel: TIMEOUT: QEMU killed after {timeout:.0f} s "
                             f"(log: {kept})\n--- last console lines ---\n{tail}\n")
            return 3
        what = (f"the result line is not JSON ({json_error})" if json_error
                else f"{reason}" + (f" on all {attempt} attempts" if retry else ""))
        sys.stderr.write(f"run-kernel: FAILED: {what} (qemu exit {rc}, replayer exit "
                         f"{tags.get('replay_rc', '?')}; log: {kept})\n"
                         + "".join(f"    {ln}\n" for ln in seen[:8])
                         + f"--- last console lines ---\n{tail}\n")
        return 4

    mode = meta.get("mode", "")
    enabled = tags.get("lru_gen_enabled", "")
    try:
        mglru_on = int(enabled, 16) != 0 if enabled else mode not in ("n", "0", "0x0", "0x0000")
    except ValueError:
        mglru_on = mode not in ("n", "0")
    release = meta.get("kernel_release", "?")
    guest = res.get("kernel", tags.get("uname", ""))
    if release != "?" and guest != release:
        sys.stderr.write(f"run-kernel: FAILED: the guest ran kernel {guest!r}, not the {release!r} "
                         f"of the kernel.env used (log: {console_path})\n")
        return 1
    kernel = f"{release} (package version {meta.get('kernel_package_version', '?')})"
    doc = {
        "policy": "mglru" if mglru_on else "classic",
        "kernel": kernel,
        "vmstat": res.get("vmstat", {}),
        "memcg": res.get("memcg", {}),
        "lru_gen": res.get("lru_gen", ""),
    }
    for k, v in res.items():  # anything else the replayer reports (oom_kills, ...)
        if k not in doc and k != "meta":
            doc[k] = v
    m = {
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "kernel_package": meta.get("kernel_package", ""),
        "kernel_package_version": meta.get("kernel_package_version", ""),
        "kernel_pinned": meta.get("kernel_pinned", "") == "yes",
        "guest_uname": res.get("kernel", tags.get("uname", "")),
        "mode": mode,
        "lru_gen_enabled": enabled,
        "lru_gen_enabled_after": tags.get("lru_gen_enabled_after", ""),
        "memtotal_kb": num(tags.get("memtotal_kb")),
        "memfree_kb_before_replay": num(tags.get("memfree_kb")),
        "wall_seconds": round(wall, 3),
        "boot_to_init_seconds": round(marks["init"], 3) if "init" in marks else None,
        "replay_seconds": round(marks["replay-end"] - marks["replay-start"], 3)
        if "replay-start" in marks and "replay-end" in marks else None,
        "replay_rc": num(tags.get("replay_rc")),
        "qemu": meta.get("qemu", ""),
        "accel": meta.get("accel", ""),
        "qemu_memory_mib": num(meta.get("qemu_memory_mib")),
    }
    for k, v in meta.items():
        if k not in m and k not in ("kernel_release",):
            m[k] = v if k == "kernel_series" else num(v)
    # how many boots the run took (1 unless one ended early: an oops, no or a cut result line)
    m["attempts"] = len(failed) + 1
    if timed_out:
        m["killed_after_result"] = True
    m["failed_attempts"] = failed
    warned = [ln.strip() for ln in console.splitlines() if KERNEL_WARN_RE.search(ln)]
    m["kernel_warnings"] = warned[:8]
    for k in ("mkfs", "rd_size_kb", "swap_kb", "read_ahead_kb", "page_cluster_boot", "lru_gen_enabled_boot", "zram_comp",
              "swap_device", "swap_backing", "loop_dio", "loop_rotational", "nullb_params",
              "nullb_rotational"):
        if k in tags:
            m[k] = num(tags[k])
    if isinstance(res.get("meta"), dict):
        m["replayer"] = res["meta"]
    doc["meta"] = m
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    replay_rc = num(tags.get("replay_rc"))
    if replay_rc not in (0, None):
        sys.stderr.write(f"run-kernel: FAILED: the replayer exited with {replay_rc} (the JSON "
                         f"was written anyway: {out}; log: {console_path})\n")
        return 5
    return 0


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] == "trace-setup":
        if len(sys.argv) == 4 and sys.argv[3] not in ("--swap-loop", "--swap-nullb"):
            sys.stderr.write(__doc__)
            return 2
        trace_setup(sys.argv[2], swap_loop=sys.argv[3][7:] if len(sys.argv) == 4 else None)
        return 0
    if len(sys.argv) >= 2 and sys.argv[1] == "boot":
        return boot(sys.argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
