# SPDX-License-Identifier: GPL-2.0-only
"""mglru: a deterministic model of Linux memory reclaim (6.12, 6.1 and 7.2), from Python.

    import mglru
    r = mglru.run(workload="fio:--name=j --rw=randread --size=256M --buffered=1", memory="128M")
    r.summary                      # hit ratio, refaults per 1,000 accesses, swap I/O, OOM kills
    df = mglru.sweep(workload=..., memory="32M..160M/5", policy=["classic", "mglru"])

Values are written as on the `mglru` command line (sizes "512M", ranges
"A..B/N", sysctls "vm.swappiness"); lists become comma-separated axes.
`sweep(..., backend="ray")` runs the configurations as Ray tasks
(mglru.ray_backend). See docs/PYTHON.md.
"""

import json
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Union

import pandas as pd

from . import _native

__version__ = _native.__version__
__all__ = [
    "Result", "run", "sweep", "spread", "plot", "workloads", "workload_trace", "import_trace",
    "default_trace",
]

Value = Union[str, int, Sequence[Union[str, int]]]


def _axis(name: str, v: Optional[Value]) -> Optional[str]:
    """One option's text: a string as is, a number as digits, a list joined by commas."""
    if v is None:
        return None
    def one(x):
        # bool is an int to Python, and a float would be cut or rejected
        # far from here: both are refused by name.
        if isinstance(x, bool) or not isinstance(x, (str, int)):
            raise TypeError(f"{name}: expected a string like '512M' or a whole number, not {x!r}")
        return str(x)
    if isinstance(v, (str, int, float, bool)) or not hasattr(v, "__iter__"):
        return one(v)
    items = list(v)
    if not items:
        raise ValueError(f"{name}: an empty list")
    return ",".join(one(x) for x in items)


def _warmup(w) -> Optional[str]:
    """`warmup=`: "30s", "20%", "2000000accesses" as on the command line, or None."""
    if w is None:
        return None
    if not isinstance(w, str):
        raise TypeError(f"warmup: expected a string like '30s', '20%' or '2000000accesses', not {w!r}")
    return w


def _source(trace, workload) -> str:
    return json.dumps({"trace": None if trace is None else str(trace), "workload": workload})


def _replicates(n) -> Optional[int]:
    """`replicates=`: a whole number of seeds per configuration, or None."""
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"replicates: expected a whole number like 5, not {n!r}")
    if n < 1:
        raise ValueError(f"replicates={n}: give at least 1 (the number of seeds each configuration runs under)")
    return n


def _grid(policy, variant, memory, swap, sysctl, memcg, seed, cost, cpus=None, kswapd=None,
          schedule=None, migratetypes=None, kernel=None, warmup=None, replicates=None) -> str:
    """The grid in the engine's terms (mglru_sweep::SweepSpec)."""
    if sysctl is not None and not isinstance(sysctl, dict):
        raise TypeError("sysctl: expected a dict like {'vm.swappiness': [0, 60, 200]}")
    if memcg is not None and not isinstance(memcg, dict):
        raise TypeError("memcg: expected a dict like {'app.max': '64M..512M/8'}")
    if cost is not None and not isinstance(cost, dict):
        raise TypeError("cost: expected a dict like {'disk_read': 100000}")
    for k, v in (cost or {}).items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"cost: {k}={v!r}: expected a whole number of nanoseconds like 100000")
    spec = {
        "policy": _axis("policy", policy),
        "variant": _axis("variant", variant),
        "kernel": _axis("kernel", kernel),
        "memory": _axis("memory", memory),
        "swap": _axis("swap", swap),
        "seed": _axis("seed", seed),
        "cpus": _axis("cpus", cpus),
        "kswapd": _axis("kswapd", kswapd),
        "migratetypes": _axis("migratetypes", migratetypes),
        "schedule": _axis("schedule", schedule),
        "sysctl": [f"{k}={_axis(k, v)}" for k, v in (sysctl or {}).items()],
        "memcg": [f"{k}={_axis(k, v)}" for k, v in (memcg or {}).items()],
        "cost": [f"{k}={v}" for k, v in (cost or {}).items()],
        "warmup": _warmup(warmup),
        "replicates": _replicates(replicates),
    }
    return json.dumps(spec)


@dataclass
class Result:
    """One run. `report` is the `mglru run --json` document (docs/CLI.md); `summary` holds the
    derived figures (after the warm-up, if one was given); `whole_run` the whole run's figures
    when there was a warm-up (else the same as `summary`); the time series has `page_accesses`,
    `hits` and `cold_misses` so any window's hit ratio is a difference of two rows."""

    report: dict
    summary: pd.Series
    vmstat: pd.DataFrame
    memcg: pd.DataFrame
    timeseries: pd.DataFrame
    oom_kills: pd.DataFrame
    configuration: str = field(repr=False)
    whole_run: Optional[pd.Series] = field(default=None, repr=False)

    def __str__(self) -> str:
        lines = ["configuration", self.configuration.rstrip(), "", "summary"]
        lines += [f"  {k:<28} {v}" for k, v in self.summary.items()]
        return "\n".join(lines)


def _result(doc: dict) -> Result:
    rep = doc["report"]
    vmstat = pd.DataFrame({"value": pd.Series(rep["vmstat"], dtype="int64")})
    vmstat.index.name = "counter"
    rows = {}
    for name, m in rep["memcg"].items():
        r = {"current": m["current"], "peak": m["peak"], "swap_current": m["swap_current"]}
        r.update({f"events.{k}": v for k, v in m["events"].items()})
        r.update(m["stat"])
        rows[name] = r
    memcg = pd.DataFrame.from_dict(rows, orient="index")
    memcg.index.name = "memcg"
    s = doc.get("series")
    if s:
        ts = pd.DataFrame([[t] + v for t, v in s["rows"]], columns=["time_s"] + list(s["columns"]))
    else:
        ts = pd.DataFrame(columns=["time_s"])
    ooms = pd.DataFrame(rep["oom_kills"], columns=["time_ns", "constraint", "victim_task", "victim_memcg", "victim_pages"])
    return Result(
        report=rep,
        summary=pd.Series(doc["figures"], dtype=object),
        vmstat=vmstat,
        memcg=memcg,
        timeseries=ts,
        oom_kills=ooms,
        configuration=doc["configuration"],
        whole_run=pd.Series(doc.get("whole_run_figures") or doc["figures"], dtype=object),
    )


def run(trace=None, workload: Optional[str] = None, policy: Optional[str] = None,
        memory: Optional[Union[str, int]] = None, swap: Optional[Union[str, int]] = None,
        sysctl: Optional[Dict[str, Union[str, int]]] = None, variant: Optional[str] = None,
        memcg: Optional[Dict[str, Union[str, int]]] = None, seed: int = 0,
        cost: Optional[Dict[str, int]] = None, timeseries_ms: Optional[int] = 100,
        check: bool = False, cpus: Optional[int] = None, kswapd: Optional[str] = None,
        schedule: Optional[str] = None, migratetypes: bool = False,
        kernel: Optional[str] = None, warmup: Optional[str] = None) -> Result:
    """Run one configuration of a trace (a path), a workload spec, or the built-in workload.

    Sizes are strings like "512M" or numbers of bytes. `timeseries_ms` samples the key
    /proc/vmstat counters every so many simulated milliseconds (None: no series).
    `kswapd` is "instant" (default) or "thread" (docs/FIDELITY.md simplification 2);
    `schedule` is "serial" (default) or "parallel" (docs/TRACE_FORMAT.md "Scheduling");
    `migratetypes=True` groups pages by mobility, with fallbacks between pageblock types and
    watermark boosting (docs/FIDELITY.md simplification 3; off by default).
    `kernel` is the version modelled: "6.1", "6.12" (default) or "7.2" (docs/KERNELS.md).
    `warmup` leaves the start of the run out of `summary`: "30s" of simulated time, "20%" of
    the page accesses or "2000000accesses" (docs/SWEEP.md "Steady state").
    `seed` seeds the model's random choices and moves a generated workload's `seed=N` to
    `seed=N+seed` (0: the spec as written; docs/SWEEP.md "Replicates"); for replicates of one
    configuration use `sweep(..., replicates=N)`.
    Raises ValueError for bad input (the message names the place), OSError for I/O.
    """
    if not isinstance(migratetypes, bool):
        raise TypeError(f"migratetypes: expected True or False, not {migratetypes!r}")
    if kernel is not None and not isinstance(kernel, str):
        raise TypeError(f"kernel: expected a version string like '7.2', not {kernel!r}")
    if timeseries_ms is not None and (isinstance(timeseries_ms, bool) or not isinstance(timeseries_ms, int)):
        raise TypeError(f"timeseries_ms: expected a whole number of simulated milliseconds or None, not {timeseries_ms!r}")
    if timeseries_ms is not None and timeseries_ms < 1:
        raise ValueError(f"timeseries_ms={timeseries_ms}: the sampling interval is at least 1 ms (None: no time series)")
    grid = _grid(policy, variant, memory, swap, sysctl, memcg, seed, cost, cpus, kswapd, schedule,
                 "on" if migratetypes else None, kernel, warmup)
    text = _native.run(_source(trace, workload), grid, timeseries_ms, check)
    r = _result(json.loads(text))
    if timeseries_ms is None:
        r.timeseries = pd.DataFrame(columns=["time_s"])
    return r


_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _number(text) -> Optional[int]:
    """An axis value as a number: a size as the engine prints it ("1G", "93620K", bytes) in
    bytes, a sysctl, seed or CPU count as itself; None for anything else ("max", "mglru", "6.12")."""
    t = str(text)
    if t.isdigit():
        return int(t)
    if len(t) > 1 and t[-1] in _UNITS and t[:-1].isdigit():
        return int(t[:-1]) * _UNITS[t[-1]]
    return None


def _numeric_axes(df: pd.DataFrame, axes: List[str]) -> pd.DataFrame:
    """Axis columns whose values are all numbers (sizes in bytes, sysctls, seeds, CPU counts)
    become integer columns, so sorting and plotting go by value; the text stays beside them as
    `AXIS_label` for display. A memcg limit axis with "max" among its values stays text."""
    for a in axes:
        if a not in df.columns:
            continue
        nums = [_number(v) for v in df[a]]
        if nums and all(n is not None for n in nums):
            df[f"{a}_label"] = df[a].astype(str)
            df[a] = pd.array(nums, dtype="int64")
    return df


def _rows_frame(rows: List[dict], axes: List[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if "replicate" in df.columns:
        df = df.sort_values(["config", "replicate"], kind="stable").set_index("config")
    elif "config" in df.columns:
        df = df.sort_values("config").set_index("config")
    df = _numeric_axes(df, list(axes))
    df.attrs["axes"] = list(axes)
    return df


def sweep(trace=None, workload: Optional[str] = None, *, policy: Optional[Value] = None,
          memory: Optional[Value] = None, swap: Optional[Value] = None,
          sysctl: Optional[Dict[str, Value]] = None, variant: Optional[Value] = None,
          memcg: Optional[Dict[str, Value]] = None, seed: Optional[Value] = None,
          cost: Optional[Dict[str, int]] = None, cpus: Optional[Value] = None,
          kswapd: Optional[Value] = None, schedule: Optional[Value] = None,
          migratetypes: Optional[Value] = None, kernel: Optional[Value] = None,
          warmup: Optional[str] = None, replicates: Optional[int] = None, jobs: int = 0,
          backend: str = "local", chunk: int = 1) -> pd.DataFrame:
    """Run a grid of configurations; one DataFrame row per configuration, in grid order.

    `replicates=N` runs every configuration under N seeds (from `seed`, default 0, on;
    `seed=[a, b, c]` names the seeds instead): the frame is then tidy, one row per
    configuration and replicate, with `replicate` (0, 1, ...) and `seed` columns, sorted by
    configuration (the index, `config`) then replicate; `spread(df)` gives each
    configuration's mean and 95 % interval. A replicate changes a generated workload's stream
    and the model's random choices (docs/SWEEP.md "Replicates").

    Each axis is a value, a list, or a range string "A..B/N" (as `mglru sweep`). Columns: the
    axes (numeric ones as integers: sizes in bytes, sysctls, seeds, CPU counts, with the text as
    `AXIS_label`, e.g. `memory` 1073741824 and `memory_label` "1G"), `policy_run`, the derived figures (hit_ratio, refaults_per_1k_accesses, ...) and key
    /proc/vmstat counters. `migratetypes` is "off", "on" or ["off", "on"] (grouping pages by
    mobility, docs/FIDELITY.md simplification 3). `kernel` is a version axis, e.g.
    ["6.12", "7.2"] (docs/KERNELS.md). `warmup` ("30s", "20%", "2000000accesses") leaves the
    start of every run out of the figures; the rows then have the whole run's as whole_run_*
    (docs/SWEEP.md "Steady state"). `backend="local"` runs on `jobs` threads
    (0 = one per core); `backend="ray"` runs `chunk` configurations per Ray task on the cluster
    `ray.init()` connected to. Results are identical either way.
    """
    source = _source(trace, workload)
    grid = _grid(policy, variant, memory, swap, sysctl, memcg, seed, cost, cpus, kswapd, schedule,
                 migratetypes, kernel, warmup, replicates)
    if backend == "local":
        doc = json.loads(_native.sweep(source, grid, jobs, None))
        return _rows_frame(doc["rows"], doc["axes"])
    if backend == "ray":
        from .ray_backend import sweep_on_ray
        rows, axes = sweep_on_ray(source, grid, chunk)
        return _rows_frame(rows, axes)
    raise ValueError(f"backend={backend!r}: expected 'local' or 'ray'")


def spread(df: pd.DataFrame, columns: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """Each configuration's replicates as one row: the mean of every figure and, as
    `NAME_ci95`, the half width of its 95 % interval (Student's t with n - 1 degrees of
    freedom: t * s / sqrt(n), as the `mglru sweep` table's mean ± interval), plus
    `replicates` (n). `df` is a `sweep(..., replicates=N)` frame; `columns` picks the figures
    (default: every numeric column but the axes, `replicate` and `seed`). The axes stay as
    columns (numeric ones with their `AXIS_label`)."""
    if "replicate" not in df.columns:
        raise ValueError("spread: the frame has no replicate column; run sweep(..., replicates=N) first")
    axes = [a for a in df.attrs.get("axes", []) if a in df.columns]
    keep = axes + [f"{a}_label" for a in axes if f"{a}_label" in df.columns]
    skip = set(keep) | {"replicate", "seed"}
    if columns is None:
        columns = [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]
    g = df.groupby(level="config", sort=True)
    n = g.size()
    out = g[keep].first() if keep else pd.DataFrame(index=n.index)
    mean = g[list(columns)].mean()
    sd = g[list(columns)].std(ddof=1)
    t = n.map(lambda k: _native.t95(int(k) - 1) if k > 1 else float("nan"))
    for c in columns:
        out[c] = mean[c]
        out[f"{c}_ci95"] = (t * sd[c] / n.pow(0.5)).where(n > 1, 0.0)
    out["replicates"] = n
    out.attrs["axes"] = list(axes)
    return out


def plot(df: pd.DataFrame, y: str = "miss_ratio", x: str = "memory", ax=None):
    """Draw `y` against `x` (default: the miss ratio against memory, in MiB), one line per
    combination of the other varying axes, with the 95 % interval as error bars when `df`
    has replicates (`sweep(..., replicates=N)` or its `spread()`). Needs matplotlib:
    `pip install '.[plot]'`. Returns the matplotlib Axes."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("mglru.plot needs matplotlib: pip install '.[plot]' (or pip install matplotlib)") from e
    if "replicate" in df.columns:
        df = spread(df, [y])
    for c in (x, y):
        if c not in df.columns:
            raise ValueError(f"plot: the frame has no column {c!r}; its columns: {', '.join(map(str, df.columns))}")
    axes = [a for a in df.attrs.get("axes", []) if a in df.columns and a != x]
    others = [a for a in axes if df[a].nunique() > 1]
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 5))
    xs = df[x] / (1 << 20) if x in ("memory", "swap") else df[x]
    groups = df.groupby(others, sort=False) if others else [((), df)]
    err = f"{y}_ci95"
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = " ".join(f"{a}={part[f'{a}_label'].iloc[0] if f'{a}_label' in part else v}" for a, v in zip(others, key)) or y
        px = xs.loc[part.index]
        ax.errorbar(px, part[y], yerr=part[err] if err in part else None, marker="o", capsize=3, label=label)
    ax.set_xlabel(f"{x} (MiB)" if x in ("memory", "swap") else x)
    ax.set_ylabel(y)
    if others:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def workloads() -> pd.DataFrame:
    """The workload generators (`mglru workload`)."""
    return pd.DataFrame(_native.workload_names(), columns=["name", "description"])


def workload_trace(spec: str) -> str:
    """The trace a generator writes (`mglru workload SPEC --emit-trace -`)."""
    return _native.workload_trace(spec)


def import_trace(format: str, path) -> str:
    """Convert fio-iolog, blkparse, strace, lackey, oracle-general or cachesim-csv input to trace v1 text."""
    return _native.import_trace(format, str(path))


def default_trace() -> str:
    """The built-in workload as trace text."""
    return _native.default_trace()
