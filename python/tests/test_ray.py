# SPDX-License-Identifier: GPL-2.0-only
"""The Ray backend gives the local backend's rows, on a local two-CPU Ray."""

import json

import pandas as pd
import pytest

import mglru
from mglru import ray_backend

FIO = "fio:--name=j --rw=randread --size=256M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=4s"


def test_a_trace_missing_on_the_worker_is_shipped(tmp_path):
    # What a Ray task does on a machine without the driver's file (no Ray needed).
    text = mglru.workload_trace("ebizzy:seq=16,loops=1")
    grid = json.dumps({"policy": "classic,mglru"})
    here = tmp_path / "e.trace"
    here.write_text(text)
    want = mglru._native.sweep(json.dumps({"trace": str(here)}), grid, 1, [1])
    got = ray_backend._run_chunk(json.dumps({"trace": "/nowhere/e.trace"}), grid, [1], text.encode())
    assert json.loads(got)["rows"] == json.loads(want)["rows"]
    with pytest.raises(FileNotFoundError, match="/nowhere/e.trace"):
        ray_backend._run_chunk(json.dumps({"trace": "/nowhere/e.trace"}), grid, [1], None)


ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'mglru[ray]'); .ci/run installs it")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_rows_equal_local_rows(local_ray, tmp_path):
    grid = dict(memory="32M..160M/3", policy=["classic", "mglru"])
    local = mglru.sweep(workload=FIO, **grid)
    remote = mglru.sweep(workload=FIO, **grid, backend="ray")
    pd.testing.assert_frame_equal(local, remote)
    # A trace file, three configurations per task.
    p = tmp_path / "fio.trace"
    p.write_text(mglru.workload_trace(FIO))
    by_file = mglru.sweep(trace=p, **grid, backend="ray", chunk=3)
    pd.testing.assert_frame_equal(local.drop(columns=[]), by_file)
    assert by_file["refaults"].iloc[0] > 0
    # Replicates: one task per configuration and seed, the same tidy frame.
    reps = dict(memory="32M,64M", replicates=2)
    pd.testing.assert_frame_equal(mglru.sweep(workload=FIO, **reps), mglru.sweep(workload=FIO, **reps, backend="ray"))
