#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Migratetype fallbacks on the guest (validation/README.md "Migratetype
fallbacks (watermark boosting's trigger)").

Prints, for each result recorded with `mglru-replay --extfrag` (default:
validation/results-extfrag/*.json), the kmem/mm_page_alloc_extfrag events
grouped by kind, by task, by time since the workload's start and by kernel
stack, the non-movable page allocations by GFP flags, and the pageblocks per
migratetype of /proc/pagetypeinfo at the start and the end.

Usage: validation/extfrag.py [--markdown] [RESULT.json ...]
(--markdown: the first table as Markdown, as in the README)
"""

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# include/linux/mmzone.h (no CONFIG_CMA in the guest's kernel).
MIGRATETYPES = ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate"]
PAGEBLOCK_ORDER = 9

# include/linux/gfp_types.h of 6.12 with the guest's config (no KASAN_HW_TAGS,
# no LOCKDEP, SLAB_OBJ_EXT=y): bit number -> flag.
GFP_BITS = ["__GFP_DMA", "__GFP_HIGHMEM", "__GFP_DMA32", "__GFP_MOVABLE",
            "__GFP_RECLAIMABLE", "__GFP_HIGH", "__GFP_IO", "__GFP_FS", "__GFP_ZERO",
            "0x200", "__GFP_DIRECT_RECLAIM", "__GFP_KSWAPD_RECLAIM", "__GFP_WRITE",
            "__GFP_NOWARN", "__GFP_RETRY_MAYFAIL", "__GFP_NOFAIL", "__GFP_NORETRY",
            "__GFP_MEMALLOC", "__GFP_COMP", "__GFP_NOMEMALLOC", "__GFP_HARDWALL",
            "__GFP_THISNODE", "__GFP_ACCOUNT", "__GFP_ZEROTAGS", "__GFP_NO_OBJ_EXT"]
BIT = {n: 1 << i for i, n in enumerate(GFP_BITS)}
RECLAIM = BIT["__GFP_DIRECT_RECLAIM"] | BIT["__GFP_KSWAPD_RECLAIM"]
KERNEL = RECLAIM | BIT["__GFP_IO"] | BIT["__GFP_FS"]
USER = KERNEL | BIT["__GFP_HARDWALL"]
# The composite names, widest first (as the kernel's show_gfp_flags tries them).
COMPOSITES = [
    ("GFP_HIGHUSER_MOVABLE", USER | BIT["__GFP_HIGHMEM"] | BIT["__GFP_MOVABLE"]),
    ("GFP_HIGHUSER", USER | BIT["__GFP_HIGHMEM"]),
    ("GFP_USER", USER),
    ("GFP_KERNEL_ACCOUNT", KERNEL | BIT["__GFP_ACCOUNT"]),
    ("GFP_KERNEL", KERNEL),
    ("GFP_NOFS", RECLAIM | BIT["__GFP_IO"]),
    ("GFP_ATOMIC", BIT["__GFP_HIGH"] | BIT["__GFP_KSWAPD_RECLAIM"]),
    ("GFP_NOIO", RECLAIM),
    ("GFP_NOWAIT", BIT["__GFP_KSWAPD_RECLAIM"]),
]

# Frames of the allocator itself, skipped to show who allocated.
ALLOCATOR = ("event_triggers_call", "trace_event_raw_event", "perf_trace", "trace_",
             "__traceiter", "rmqueue", "__rmqueue", "get_page_from_freelist",
             "__alloc_pages", "alloc_pages", "__alloc_frozen", "alloc_frozen",
             "folio_alloc", "__folio_alloc", "try_to_steal_block", "steal_suitable",
             "alloc_slab_page", "__alloc_pages_slowpath", "alloc_pages_mpol",
             "__alloc_pages_noprof", "alloc_pages_noprof", "__get_free_pages",
             "get_zeroed_page", "__rmqueue_pcplist", "rmqueue_bulk")


def gfp_name(v):
    parts = []
    for name, mask in COMPOSITES:
        if v & mask == mask:
            parts.append(name)
            v &= ~mask
            break
    for i, n in enumerate(GFP_BITS):
        if v & (1 << i):
            parts.append(n)
            v &= ~(1 << i)
    if v:
        parts.append(hex(v))
    return "|".join(parts) or "0"


def mt(n):
    return MIGRATETYPES[n] if 0 <= n < len(MIGRATETYPES) else str(n)


def func(frame):
    return frame.split("+")[0].strip()


def caller_chain(stack, n=5):
    """The first n frames outside the allocator."""
    out = [func(f) for f in stack if not func(f).startswith(ALLOCATOR)]
    return " < ".join(out[:n])


def kind(g):
    """The fallback's path in 6.12.117's __rmqueue (mm/page_alloc.c) and
    whether it called boost_watermark(): __rmqueue_claim() tries the largest
    free block of a fallback type first and boosts before trying to claim a
    block below pageblock order, if can_steal_fallback() allows (order >= 4,
    or any order for a non-movable allocation); when no block can be claimed
    __rmqueue_steal() takes a single page (no boost of its own). Pages after
    the first steal of one rmqueue_bulk() refill skip the claim."""
    if g["fallback_order"] >= PAGEBLOCK_ORDER:
        return "claim free block (no boost)"
    if g["change_ownership"]:
        return "claim < pageblock (boost)"
    if g["alloc_migratetype"] != 1:
        return "steal, claim failed (boost)"
    if g["fallback_order"] >= PAGEBLOCK_ORDER // 2:
        return "steal >= 4 (boost unless in a bulk)"
    return "steal < 4 (boost only if a block >= 4 was free)"


def table(rows, head):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)] if rows else [len(h) for h in head]
    print("  " + "  ".join(str(h).ljust(w[i]) for i, h in enumerate(head)))
    for r in rows:
        print("  " + "  ".join(str(x).rjust(w[i]) if isinstance(x, (int, float)) else str(x).ljust(w[i])
                               for i, x in enumerate(r)))


def blocks(p):
    rows = []
    for zone, z in (p or {}).get("zones", {}).items():
        free_pages = {m: sum(c << o for o, c in enumerate(v)) for m, v in z["free"].items()}
        rows.append([zone] + [f"{z['blocks'].get(m, 0)} / {free_pages.get(m, 0)}"
                              for m in MIGRATETYPES[:4]])
    return rows


def attribute(ef):
    """Each boosted wake-up against the fallback just before it: rmqueue()
    wakes kswapd right after the allocation whose claim attempt boosted the
    watermark, so the last fallback event before the wake-up is that
    allocation's (or, in a bulk refill, a later page of it)."""
    ns, groups, gi = ef["event_ns"], ef["groups"], ef["event_group"]
    order = sorted(range(len(ns)), key=lambda i: ns[i])
    times = [ns[i] for i in order]
    import bisect
    by, gaps = {}, []
    for t, gfp in zip(ef["wakeup_ns"], ef["wakeup_gfp_flags"]):
        if gfp != "none":
            continue
        k = bisect.bisect_right(times, t) - 1
        if k < 0:
            by["(no fallback before)"] = by.get("(no fallback before)", 0) + 1
            continue
        g = groups[gi[order[k]]]
        key = (f"{mt(g['alloc_migratetype'])} -> {mt(g['fallback_migratetype'])} "
               f"order {g['alloc_order']}, {kind(g)}")
        by[key] = by.get(key, 0) + 1
        gaps.append((t - times[k]) / 1000)
    if gaps:
        gaps.sort()
        print(f"  boosted wake-ups by the fallback just before (gap median {gaps[len(gaps) // 2]:.0f} us, "
              f"max {gaps[-1]:.0f} us):")
        for k, v in sorted(by.items(), key=lambda kv: -kv[1]):
            print(f"    {v:5d}  {k}")


def per_second(r, ef):
    """Per second of the workload: fallbacks by path, kswapd's wake-ups and
    the vmstat_profile's pageoutrun growth and free pages."""
    groups = ef["groups"]
    rows = {}
    def row(sec):
        return rows.setdefault(sec, {"claim": 0, "steal": 0, "boost_wake": 0, "other_wake": 0})
    for t, gi in zip(ef["event_ns"], ef["event_group"]):
        g = groups[gi]
        row(int(t // 1_000_000_000))["claim" if g["change_ownership"] else "steal"] += 1
    for t, gfp in zip(ef["wakeup_ns"], ef["wakeup_gfp_flags"]):
        row(int(t // 1_000_000_000))["boost_wake" if gfp == "none" else "other_wake"] += 1
    vp = r.get("vmstat_profile", {})
    ns, ctr = vp.get("ns", []), vp.get("counters", {})
    por, free = ctr.get("pageoutrun", []), ctr.get("nr_free_pages", [])
    last_sec = int(ns[-1] // 1_000_000_000) if ns else 0
    out = []
    for sec in range(min(list(rows) + [0]), max(list(rows) + [last_sec]) + 1):
        x = rows.get(sec, {"claim": 0, "steal": 0, "boost_wake": 0, "other_wake": 0})
        if not (x["claim"] or x["steal"] or x["boost_wake"]):
            continue
        idx = [i for i, t in enumerate(ns) if sec * 1e9 <= t < (sec + 1) * 1e9]
        grow = por[idx[-1]] - por[idx[0] - 1] if idx and idx[0] > 0 else (por[idx[-1]] - por[idx[0]] if idx else "")
        out.append([sec, x["claim"], x["steal"], x["boost_wake"], x["other_wake"], grow,
                    free[idx[-1]] if idx else ""])
    print("\n  seconds of the workload with a fallback or a boosted wake-up (vmstat_profile: pageoutrun growth,"
          " nr_free_pages at the second's last sample):")
    table(out, ["second", "claims", "steals", "kswapd woken: boost", "other", "pageoutrun +", "nr_free_pages"])


def report(path):
    r = json.load(open(path))
    ef = r.get("extfrag")
    meta = r.get("meta", {})
    name = os.path.basename(path)
    print(f"== {name}: {meta.get('trace', r.get('trace'))}, policy {r.get('policy')}, "
          f"wall {r.get('wall_seconds', 0):.1f} s from the start to the end snapshot, {meta.get('date', '')}")
    if not ef:
        print("  no extfrag record (run without --extfrag)\n")
        return
    vm = r.get("vmstat", {})
    over = sum(c["overrun"] for c in ef["per_cpu"])
    dropped = sum(c["dropped_events"] for c in ef["per_cpu"])
    h = ef.get("hist_types") or {}
    print(f"  events in the buffer {ef['events']} (per-CPU overrun {over}, dropped {dropped}); "
          f"histogram (lossless) hits {h.get('hits')} (dropped {h.get('dropped')})")
    print("  vmstat: " + ", ".join(f"{k} {vm.get(k, 0)}" for k in (
        "compact_daemon_wake", "pageoutrun", "kswapd_low_wmark_hit_quickly",
        "kswapd_high_wmark_hit_quickly", "pgscan_kswapd", "pgscan_direct", "allocstall_movable",
        "compact_stall", "pswpout")))
    print("\n  fallbacks by kind (from the buffer):")
    rows = []
    for g in sorted(ef["groups"], key=lambda g: -g["count"]):
        rows.append([f"{mt(g['alloc_migratetype'])} -> {mt(g['fallback_migratetype'])}",
                     g["alloc_order"], g["fallback_order"], g["change_ownership"], g["count"], kind(g)])
    table(rows, ["alloc -> fallback list", "order", "fallback_order", "change_ownership", "events", "path"])
    for key, names in (("hist_types", ("alloc_migratetype", "fallback_migratetype")),
                        ("hist_orders", ("alloc_order", "fallback_order"))):
        hh = ef.get(key) or {}
        if hh.get("top"):
            def name(e, k):
                return mt(e[k]) if k.endswith("migratetype") else e[k]
            print(f"  {key} (lossless): " + "; ".join(
                f"{name(e, names[0])} -> {name(e, names[1])} own={e['change_ownership']}: {e['hitcount']}"
                for e in hh["top"]))
    # Time: events per second since the workload's start (the last bins
    # include the end's settle).
    ns = ef["event_ns"]
    if ns:
        prof = r.get("time_profile", {}).get("ns", [])
        end = prof[-1] / 1e9 if prof else None
        bins = {}
        for t in ns:
            b = int(t // 1_000_000_000) if t >= 0 else -1
            bins[b] = bins.get(b, 0) + 1
        print(f"\n  events per second of the workload (last trace line at {end:.1f} s; "
              f"-1 = before the start):" if end else "\n  events per second:")
        print("  " + "  ".join(f"{b}s:{bins[b]}" for b in sorted(bins)))
        groups = ef["groups"]
        first = min(ns) / 1e9
        # Kinds over time: the first second against the rest.
        early = {}
        for t, gi in zip(ns, ef["event_group"]):
            k = kind(groups[gi])
            e = early.setdefault(k, [0, 0])
            e[0 if t < 1_000_000_000 else 1] += 1
        print("  fallbacks per tenth of the trace's lines: " + " ".join(str(x) for x in tenths(r, ns)))
        if "wakeup_ns" in ef:
            bw = [t for t, g in zip(ef["wakeup_ns"], ef["wakeup_gfp_flags"]) if g == "none"]
            ow = [t for t, g in zip(ef["wakeup_ns"], ef["wakeup_gfp_flags"]) if g != "none"]
            print("  boosted kswapd wake-ups per tenth: " + " ".join(str(x) for x in tenths(r, bw)) +
                  "; other wake-ups: " + " ".join(str(x) for x in tenths(r, ow)))
        print(f"  first event at {first:.3f} s; by path, first second / later: " +
              "; ".join(f"{k} {v[0]} / {v[1]}" for k, v in sorted(early.items())))
    wk = ef.get("hist_kswapd_wakeups") or {}
    if "kswapd_wakeups" in ef:
        boost = sum(1 for g in ef["wakeup_gfp_flags"] if g == "none")
        print(f"\n  kswapd woken (mm_vmscan_wakeup_kswapd) {ef['kswapd_wakeups']} times, "
              f"{boost} by a boosted watermark (gfp_flags none); histogram: " +
              "; ".join(f"gfp {gfp_name(e['gfp_flags']) if e['gfp_flags'] else 'none'} order {e['order']} "
                        f"zone {e['zid']}: {e['hitcount']}" for e in wk.get("top", [])))
        attribute(ef)
        per_second(r, ef)
    comms = ef.get("by_comm", {})
    if comms:
        print("\n  by task: " + ", ".join(f"{k} {v}" for k, v in sorted(comms.items(), key=lambda kv: -kv[1])))
    st = ef.get("hist_stacks") or {}
    if st.get("top"):
        merged = {}
        for e in st["top"]:
            c = caller_chain(e.get("stack", []), 8)
            merged[c] = merged.get(c, 0) + e["hitcount"]
        print(f"\n  fallbacks by kernel stack (histogram, {st['hits']} hits, {st['entries']} stacks; "
              f"the first 8 frames outside the allocator, the top 8 chains):")
        for c, n in sorted(merged.items(), key=lambda kv: -kv[1])[:8]:
            print(f"  {n:7d}  {c}")
    pa = ef.get("page_alloc_nonmovable") or {}
    if pa.get("top"):
        print(f"\n  non-movable page allocations (mm_page_alloc, migratetype != 1): {pa['hits']} "
              f"(dropped {pa['dropped']}); top 12:")
        rows = [[gfp_name(e["gfp_flags"]), e["order"], mt(e["migratetype"]), e["hitcount"]]
                for e in pa["top"][:12]]
        table(rows, ["gfp_flags", "order", "migratetype", "allocations"])
    for key in ("pagetypeinfo_start", "pagetypeinfo_end"):
        print(f"\n  {key}: pageblocks / free pages per migratetype")
        table(blocks(ef.get(key)), ["zone"] + MIGRATETYPES[:4])
    print()


def tenths(r, ns_list):
    """Events per tenth of the trace's lines (time_profile maps the guest's
    time to the line being executed), so runs at different guest speeds
    compare; events after the last line (the end's settle) go in the last."""
    import bisect
    prof = r.get("time_profile", {})
    pns, lines = prof.get("ns", []), prof.get("lines", [])
    out = [0] * 10
    if not pns:
        return out
    last = lines[-1] or 1
    for t in ns_list:
        k = bisect.bisect_right(pns, t) - 1
        line = lines[k] if k >= 0 else 0
        out[min(9, line * 10 // last)] += 1
    return out


def dma32_blocks(p):
    z = (p or {}).get("zones", {}).get("DMA32")
    if not z:
        return "?"
    return "/".join(str(z["blocks"].get(m, 0)) for m in ("Unmovable", "Movable", "Reclaimable"))


def summary(paths):
    """One row per run: fallbacks by path and by migratetypes, kswapd's
    wake-ups (boosted / all), compact_daemon_wake, pageoutrun."""
    rows = []
    for path in paths:
        r = json.load(open(path))
        ef = r.get("extfrag")
        if not ef:
            continue
        vm = r.get("vmstat", {})
        # From the histograms, which count every event (the buffer may
        # have overwritten some).
        c = {"claim<9": 0, "claim>=9": 0, "M>U": 0, "M>R": 0, "U>M": 0, "U>R": 0, "R>*": 0}
        for e in (ef.get("hist_orders") or {}).get("top", []):
            if e["change_ownership"]:
                c["claim>=9" if e["fallback_order"] >= PAGEBLOCK_ORDER else "claim<9"] += e["hitcount"]
        for e in (ef.get("hist_types") or {}).get("top", []):
            if e["change_ownership"]:
                continue
            a, f = e["alloc_migratetype"], e["fallback_migratetype"]
            k = {(1, 0): "M>U", (1, 2): "M>R", (0, 1): "U>M", (0, 2): "U>R"}.get((a, f), "R>*")
            c[k] += e["hitcount"]
        ns = ef["event_ns"]
        tens = tenths(r, ns)
        wake = ef.get("wakeup_gfp_flags")
        rows.append([os.path.basename(path)[:-5], f"{ef['buffer_size_kb']}K/{ef.get('hist_size', 2048)}",
                     f"{r.get('wall_seconds', 0):.0f}", (ef.get("hist_types") or {}).get("hits", ef["events"]),
                     c["claim<9"], c["claim>=9"], c["M>U"], c["M>R"], c["U>M"], c["U>R"], c["R>*"],
                     " ".join(str(x) for x in tens),
                     f"{sum(1 for g in wake if g == 'none')}/{len(wake)}" if wake is not None else "-",
                     vm.get("compact_daemon_wake", 0), vm.get("pageoutrun", 0),
                     r.get("start_nr_free_pages", ""),
                     f"{dma32_blocks(ef.get('pagetypeinfo_start'))} -> {dma32_blocks(ef.get('pagetypeinfo_end'))}"])
    print("fallbacks per run (claims change a pageblock's owner; steals by allocation -> free list type,"
          " M Movable, U Unmovable, R Reclaimable):")
    head = ["run", "buffer/map", "wall s", "fallbacks", "claim <9", "claim >=9", "steal M>U", "M>R", "U>M", "U>R",
                 "R>*", "per tenth of the trace's lines", "kswapd woken boost/all", "compact_daemon_wake",
                 "pageoutrun", "start free", "DMA32 pageblocks U/M/R start -> end"]
    if MARKDOWN:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            r = [r[0].replace("two-memcgs-global-pressure", "two-memcgs")] + r[1:]
            print("| " + " | ".join(f"{x:,}" if isinstance(x, int) else str(x) for x in r) + " |")
    else:
        table(rows, head)
    print()


def counters(paths):
    """kswapd's counters of the traced runs beside untraced ones (the
    control runs, results/): what tracing and the guest's speed change."""
    rows = []
    for path in paths:
        r = json.load(open(path))
        vm = r.get("vmstat", {})
        rows.append([os.path.relpath(path, HERE)[:-5], r.get("policy"), "yes" if r.get("extfrag") else "no",
                     f"{r.get('wall_seconds', 0):.0f}", r.get("start_nr_free_pages", "")] +
                    [vm.get(k, 0) for k in ("pageoutrun", "kswapd_low_wmark_hit_quickly",
                                            "compact_daemon_wake", "pgscan_direct", "allocstall_movable",
                                            "pswpout")])
    print("kswapd's counters, traced and untraced runs:")
    table(rows, ["result", "policy", "--extfrag", "wall s", "start free", "pageoutrun",
                 "low_wmark_hit_quickly", "compact_daemon_wake", "pgscan_direct", "allocstall_movable",
                 "pswpout"])
    print()


MARKDOWN = False


def main():
    global MARKDOWN
    if sys.argv[1:2] == ["--markdown"]:
        MARKDOWN = True
        del sys.argv[1]
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "results-extfrag", "*.json")))
    if not paths:
        sys.exit("no results given or in validation/results-extfrag")
    summary(paths)
    if not sys.argv[1:]:
        others = sorted(glob.glob(os.path.join(HERE, "results-extfrag", "control-no-extfrag", "*.json")))
        for name in ("two-memcgs-global-pressure", "global-swap-brd"):
            others += sorted(glob.glob(os.path.join(HERE, "results", f"{name}.*.json")))
        counters(paths + others)
    for p in paths:
        report(p)


if __name__ == "__main__":
    main()
