# SPDX-License-Identifier: GPL-2.0-only
"""The Ray backend of mglru.sweep(): configurations as Ray tasks.

The unit of work is the local one: a chunk of grid indices, run by the
same native sweep on one core (`threads=1`). Each task decodes the input
itself (a generator is deterministic; a trace file is shipped through
Ray's object store when the worker cannot read the driver's path), so
rows are bit for bit those of the local backend. Connect to a cluster
with `ray.init(address=...)` before calling; without a connection,
`ray.init()` starts a local one.
"""

import json
import os
import tempfile

from . import _native


def _run_chunk(source: str, grid: str, indices, trace_bytes=None) -> str:
    """The rows of the runs `indices` (replicate-major flat indices) as the native sweep's
    JSON; a trace the worker cannot read is written from `trace_bytes` to a temporary file."""
    src = json.loads(source)
    path = src.get("trace")
    if path is not None and not os.path.exists(path):
        if trace_bytes is None:
            raise FileNotFoundError(f"{path}: not on this Ray worker, and no copy was shipped")
        fd, tmp = tempfile.mkstemp(prefix="mglru-", suffix=os.path.basename(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(trace_bytes)
            src["trace"] = tmp
            return _native.sweep(json.dumps(src), grid, 1, list(indices))
        finally:
            os.unlink(tmp)
    return _native.sweep(source, grid, 1, list(indices))


def sweep_on_ray(source: str, grid: str, chunk: int = 1):
    """(rows, axes) of the grid, computed by Ray tasks of `chunk` runs each (a run is one
    configuration under one seed: with replicates the grid has configurations x seeds)."""
    try:
        import ray
    except ImportError as e:
        raise ImportError("backend='ray' needs Ray: pip install 'mglru[ray]' (or pip install ray)") from e
    if chunk < 1:
        raise ValueError(f"chunk={chunk}: at least one configuration per task")
    if not ray.is_initialized():
        ray.init()
    n = _native.grid_size(source, grid)
    path = json.loads(source).get("trace")
    shipped = None
    if path is not None:
        with open(path, "rb") as f:
            shipped = ray.put(f.read())
    task = ray.remote(num_cpus=1)(_run_chunk)
    refs = [task.remote(source, grid, list(range(i, min(i + chunk, n))), shipped) for i in range(0, n, chunk)]
    docs = [json.loads(d) for d in ray.get(refs)]
    rows = [r for d in docs for r in d["rows"]]
    axes = docs[0]["axes"] if docs else []
    return rows, axes
