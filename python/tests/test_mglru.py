# SPDX-License-Identifier: GPL-2.0-only
"""Tests of the Python package: results are the model's counters, sweeps
are runs, errors name the option, and the README's examples work."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import mglru

ROOT = Path(__file__).resolve().parents[2]
FIO = "fio:--name=j --rw=randread --size=256M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=4s"


def test_run_summary_is_derived_from_the_counters():
    r = mglru.run(memory="512M")
    v = r.vmstat["value"]
    acc = r.report["sim"]["page_accesses"]
    assert acc > 0
    assert r.summary["refaults"] == v["workingset_refault_anon"] + v["workingset_refault_file"]
    assert r.summary["refaults_per_1k_accesses"] == pytest.approx(r.summary["refaults"] * 1000 / acc)
    # 6.12 counts swap bios in pgpgin too: every page read, readahead included.
    assert r.summary["pages_read"] == v["pgpgin"] // 4
    assert r.summary["pages_read"] == r.summary["readahead_pages"] + r.summary["misses"] + r.summary["cold_misses"]
    assert r.report["schema_version"] == 1 and r.report["policy"] == "mglru"
    # memory.stat of the memcg the built-in workload defines, in bytes.
    assert list(r.memcg.index) == ["root", "app"]
    assert r.memcg.loc["app", "peak"] <= r.memcg.loc["root", "peak"]
    assert "RAM        512M (--memory)" in r.configuration


def test_timeseries_ends_at_the_final_counters():
    r = mglru.run(workload=FIO, memory="64M", timeseries_ms=250)
    ts = r.timeseries
    assert len(ts) > 5
    assert ts["time_s"].is_monotonic_increasing
    last = ts.iloc[-1]
    for c in ["pgpgin", "workingset_refault_file", "pgscan_file"]:
        assert last[c] == r.vmstat.loc[c, "value"], c
        assert ts[c].is_monotonic_increasing, c
    assert mglru.run(workload=FIO, memory="64M", timeseries_ms=None).timeseries.empty


def test_warmup_figures_are_the_rest_of_the_run():
    r = mglru.run(workload=FIO, memory="64M", warmup="50%", timeseries_ms=100)
    s, w = r.summary, r.whole_run
    assert w["page_accesses"] == r.report["sim"]["page_accesses"]
    assert s["page_accesses"] == w["page_accesses"] // 2
    assert s["cold_misses"] < w["cold_misses"]
    # The time series' last row is the whole run; hits + misses + cold = accesses.
    last = r.timeseries.iloc[-1]
    assert last["page_accesses"] == w["page_accesses"]
    assert last["hits"] == round(w["hit_ratio"] * w["page_accesses"])
    assert last["cold_misses"] == w["cold_misses"]
    assert last["hits"] + w["misses"] + w["cold_misses"] == w["page_accesses"]
    df = mglru.sweep(workload=FIO, memory=["64M"], warmup="50%")
    assert df.loc[0, "miss_ratio"] == pytest.approx(s["miss_ratio"])
    assert df.loc[0, "whole_run_hit_ratio"] == pytest.approx(w["hit_ratio"])
    with pytest.raises(ValueError, match="--warmup 100%"):
        mglru.run(workload=FIO, warmup="100%")
    with pytest.raises(TypeError, match="warmup"):
        mglru.run(workload=FIO, warmup=5)


def test_sweep_rows_are_single_runs_and_do_not_depend_on_threads():
    grid = dict(workload=FIO, memory="32M..160M/3", policy=["classic", "mglru"])
    one = mglru.sweep(**grid, jobs=1)
    two = mglru.sweep(**grid, jobs=2)
    pd.testing.assert_frame_equal(one, two)
    assert list(one["policy"]) == ["classic"] * 3 + ["mglru"] * 3
    # Sizes are bytes, in integers (sort and plot by value); the text is beside them.
    assert list(one["memory"]) == [32 << 20, 96 << 20, 160 << 20] * 2
    assert one["memory"].dtype == "int64"
    assert list(one["memory_label"]) == ["32M", "96M", "160M"] * 2
    assert list(one.sort_values("memory")["memory_label"])[:2] == ["32M", "32M"]
    assert one.attrs["axes"] == ["policy", "memory"]
    for _, row in one.iterrows():
        r = mglru.run(workload=FIO, memory=row["memory"], policy=row["policy"], timeseries_ms=None)
        for c in ["pgpgin", "workingset_refault_file", "pgsteal_file", "oom_kill"]:
            assert row[c] == r.vmstat.loc[c, "value"], (row["policy"], row["memory"], c)
        assert row["hit_ratio"] == pytest.approx(r.summary["hit_ratio"])
    # Less memory, more refaults, for both policies.
    for p in ["classic", "mglru"]:
        ref = list(one[one["policy"] == p]["refaults"])
        assert ref[0] > ref[1] >= ref[2], (p, ref)


def test_sysctl_and_memcg_axes():
    df = mglru.sweep(sysctl={"vm.swappiness": [0, 200]}, memcg={"app.max": ["64M", "128M"]}, policy="classic")
    assert list(df.columns[:3]) == ["policy", "vm.swappiness", "app.max"]
    assert len(df) == 4
    assert list(df["vm.swappiness"]) == [0, 0, 200, 200] and list(df["app.max"]) == [64 << 20, 128 << 20] * 2
    assert list(df["app.max_label"]) == ["64M", "128M"] * 2
    assert list(df["policy"]) == ["classic"] * 4, "text axes stay text"
    assert df.iloc[0]["refaults"] > df.iloc[1]["refaults"], "a 64M limit refaults more than 128M"


def test_bad_options_name_themselves():
    with pytest.raises(ValueError, match=r"--memory 256M\.\.1G: a range is A\.\.B/N"):
        mglru.sweep(memory="256M..1G")
    with pytest.raises(ValueError, match="use mglru.sweep"):
        mglru.run(memory=["256M", "512M"])
    with pytest.raises(ValueError, match="multi-gen LRU only"):
        mglru.run(policy="classic", variant="batch-aging")
    with pytest.raises(ValueError, match="fio:--name=j --rw=read"):
        mglru.run(workload="--name=j --rw=read --size=1M")
    with pytest.raises(OSError, match="/nonexistent.trace"):
        mglru.run(trace="/nonexistent.trace")
    with pytest.raises(ValueError, match="backend='spark'"):
        mglru.sweep(memory="64M", backend="spark")


def test_generators_and_importers_are_reachable(tmp_path):
    names = mglru.workloads()
    assert {"fio", "ycsb", "ebizzy"} <= set(names["name"])
    spec = "ebizzy:seq=16,loops=1"
    text = mglru.workload_trace(spec)
    p = tmp_path / "e.trace"
    p.write_text(text)
    a = mglru.run(trace=p, timeseries_ms=None)
    b = mglru.run(workload=spec, timeseries_ms=None)
    pd.testing.assert_frame_equal(a.vmstat, b.vmstat)
    lk = tmp_path / "prog.lackey"
    lk.write_text("==1== lackey\n S 04001ff8,16\n L 04002000,8\n M 04001000,4\n")
    t = mglru.import_trace("lackey", lk)
    assert "task lackey" in t and "store lackey r0" in t
    assert mglru.default_trace().startswith("# mglru built-in workload")


def _readme():
    return (ROOT / "README.md").read_text()


def test_readme_python_example_runs(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", _readme(), re.S)
    assert blocks, "README has no python example"
    assert len(blocks[0].strip().splitlines()) <= 5
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "hit_ratio" in out and "mglru" in out


def test_readme_sweep_command_runs(tmp_path):
    # Every `mglru sweep --workload` example of the README runs as written;
    # the one that writes a CSV and plots (the Sweeps section's) gives them.
    binary = os.environ.get("MGLRU_BIN") or str(ROOT / "target" / "release" / "mglru")
    if not os.path.exists(binary):
        pytest.fail(f"no mglru binary at {binary}: build it (cargo build) or set MGLRU_BIN")
    text = _readme()
    cmds = [m.group(1).replace("\\\n", " ") for m in re.finditer(r"^    (mglru sweep --workload .*?)(?<!\\)$", text, re.M | re.S)]
    assert cmds, "README has no `mglru sweep` example"
    with_csv = 0
    for i, cmd in enumerate(cmds):
        argv = shlex.split(cmd.split("  #", 1)[0])
        argv[0] = binary
        cwd = tmp_path / str(i)
        cwd.mkdir()
        p = subprocess.run(argv + ["--no-progress"], cwd=cwd, capture_output=True, text=True)
        assert p.returncode == 0, (cmd, p.stderr)
        assert "hit %" in p.stdout, cmd
        if "--csv" not in argv:
            continue
        with_csv += 1
        csv = pd.read_csv(cwd / "sweep.csv")
        assert len(csv) >= 4 and {"policy", "memory", "hit_ratio"} <= set(csv.columns)
        for stem in ["miss_ratio", "refaults"]:
            assert (cwd / "plots" / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
            assert "<svg" in (cwd / "plots" / f"{stem}.svg").read_text()
    assert with_csv >= 1, "README has no `mglru sweep` example writing a CSV and plots"


def test_kswapd_thread_mode_is_reachable_from_run_and_sweep():
    # 16M of RAM reading a 64M file: kswapd works. As a thread it sleeps
    # short between runs and is woken early; instant never sleeps short.
    trace = ROOT / "target" / "pytest-kswapd.trace"
    trace.parent.mkdir(exist_ok=True)
    trace.write_text("memory 16M\nfile f size=64M readahead=0\ntask t\nread t f 0 12000\n")
    th = mglru.run(trace, policy="classic", kswapd="thread", timeseries_ms=None)
    ins = mglru.run(trace, policy="classic", kswapd="instant", timeseries_ms=None)
    assert th.vmstat.loc["kswapd_low_wmark_hit_quickly", "value"] > 0
    assert ins.vmstat.loc["kswapd_low_wmark_hit_quickly", "value"] == 0
    df = mglru.sweep(trace, policy="classic", kswapd=["instant", "thread"], jobs=1)
    assert list(df["kswapd"]) == ["instant", "thread"]
    assert df["pgscan_file"].tolist() == [ins.vmstat.loc["pgscan_file", "value"], th.vmstat.loc["pgscan_file", "value"]]
    with pytest.raises(ValueError, match="instant or thread"):
        mglru.run(trace, kswapd="fast")


def test_migratetypes_are_reachable_from_run_and_sweep():
    # Anonymous stores filling most of 64M: with pages grouped by mobility
    # the allocator falls back into other types' pageblocks (6 times, as
    # crates/mglru-core/tests/migratetypes.rs has it); without, never.
    trace = ROOT / "target" / "pytest-migratetypes.trace"
    trace.parent.mkdir(exist_ok=True)
    trace.write_text("memory 64M\ntask t\nanon t heap size=64M\nstore t heap 0 15835\n")
    on = mglru.run(trace, migratetypes=True, timeseries_ms=None)
    off = mglru.run(trace, timeseries_ms=None)
    assert on.report["sim"]["fallbacks"] == 6
    assert off.report["sim"]["fallbacks"] == 0
    assert "(--migratetypes)" in on.configuration and "(--migratetypes)" not in off.configuration
    df = mglru.sweep(trace, migratetypes=["off", "on"], jobs=1)
    assert list(df["migratetypes"]) == ["off", "on"]
    assert df.attrs["axes"] == ["migratetypes"]
    with pytest.raises(ValueError, match="off or on"):
        mglru.sweep(trace, migratetypes="yes")
    with pytest.raises(TypeError):
        mglru.run(trace, migratetypes="on")


def test_parallel_schedule_is_reachable_from_run_and_sweep():
    # Two tasks on two CPUs whose lines alternate: in parallel they overlap,
    # so the run is shorter in simulated time than serially, with the same
    # CPU time per task.
    trace = ROOT / "target" / "pytest-schedule.trace"
    trace.parent.mkdir(exist_ok=True)
    lines = "memory 64M\ncpus 2\nfile f size=4M\ntask a cpu=0\ntask b cpu=1\nanon b r size=4M\n"
    lines += "".join(f"read a f {i * 128} 128\nstore b r {i * 128} 128\n" for i in range(8))
    trace.write_text(lines)
    ser = mglru.run(trace, schedule="serial", timeseries_ms=None)
    par = mglru.run(trace, schedule="parallel", timeseries_ms=None)
    assert ser.report["cpu"]["schedule"] == "serial"
    assert par.report["cpu"]["schedule"] == "parallel"
    assert par.report["cpu"]["tasks"] == ser.report["cpu"]["tasks"]
    assert par.report["sim"]["simulated_ns"] < ser.report["sim"]["simulated_ns"]
    df = mglru.sweep(trace, schedule=["serial", "parallel"], jobs=1)
    assert list(df["schedule"]) == ["serial", "parallel"]
    with pytest.raises(ValueError, match="serial or parallel"):
        mglru.run(trace, schedule="together")


def test_kernel_versions_are_reachable_from_run_and_sweep():
    # Debian's 6.1 boots with the multi-gen LRU off: the same trace runs the
    # classic LRU there and MGLRU on 6.12; the report names the version, and
    # 6.1's memcg reports have no memory.swap.peak.
    trace = ROOT / "target" / "pytest-kernel.trace"
    trace.parent.mkdir(exist_ok=True)
    trace.write_text("memory 64M\nswap 32M\nmemcg app max=16M\ntask t memcg=app\nanon t heap size=24M\n"
                     "store t heap 0 6144\nload t heap 0 6144\n")
    old = mglru.run(trace, kernel="6.1", timeseries_ms=None)
    new = mglru.run(trace, timeseries_ms=None)
    assert (old.report["kernel"], old.report["policy"]) == ("6.1", "classic")
    assert (new.report["kernel"], new.report["policy"]) == ("6.12", "mglru")
    assert "swap_peak" not in old.report["memcg"]["app"] and "swap_peak" in new.report["memcg"]["app"]
    df = mglru.sweep(trace, kernel=["6.12", "7.2"], policy="mglru", jobs=1)
    assert list(df["kernel"]) == ["6.12", "7.2"]
    with pytest.raises(ValueError, match="6.1, 6.12, 7.2"):
        mglru.run(trace, kernel="5.15")
    with pytest.raises(TypeError):
        mglru.run(trace, kernel=7.2)


REPLICATED = "fio:--name=j --rw=randread --size=32M --buffered=1 --random_distribution=zipf:0.8 --time_based --runtime=5s;memory=24M"


def test_replicates_make_a_tidy_frame_and_spread_gives_intervals():
    df = mglru.sweep(workload=REPLICATED, memory=["16M", "20M"], replicates=3)
    assert len(df) == 6
    assert list(df["replicate"]) == [0, 1, 2, 0, 1, 2]
    assert list(df["seed"]) == [0, 1, 2, 0, 1, 2]
    assert list(df.index) == [0, 0, 0, 1, 1, 1]
    m = df["misses"].tolist()
    assert len(set(m[:3])) == 3, f"replicates must differ: {m}"
    # One seed reproduces its replicate bit for bit, and a lone run agrees.
    one = mglru.sweep(workload=REPLICATED, memory=["16M", "20M"], seed=1)
    cols = [c for c in one.columns if c != "replicate"]
    pd.testing.assert_frame_equal(one[cols].reset_index(drop=True),
                                  df[df["seed"] == 1][cols].reset_index(drop=True))
    assert mglru.run(workload=REPLICATED, memory="16M", seed=1).summary["misses"] == m[1]
    s = mglru.spread(df)
    assert list(s["replicates"]) == [3, 3]
    assert s.loc[0, "misses"] == pytest.approx(sum(m[:3]) / 3)
    x = df.loc[0, "miss_ratio"]
    want = mglru._native.t95(2) * x.std(ddof=1) / 3 ** 0.5
    assert s.loc[0, "miss_ratio_ci95"] == pytest.approx(want)
    assert s.loc[0, "memory"] == 16 << 20 and s.loc[0, "memory_label"] == "16M"
    with pytest.raises(ValueError, match="replicates=0"):
        mglru.sweep(workload=REPLICATED, memory="16M", replicates=0)
    with pytest.raises(ValueError, match="no replicate column"):
        mglru.spread(one.drop(columns=["replicate"]))


def test_plot_draws_error_bars():
    matplotlib = pytest.importorskip("matplotlib", reason="mglru.plot needs matplotlib (pip install '.[plot]')")
    matplotlib.use("Agg")
    df = mglru.sweep(workload=REPLICATED, memory=["16M", "20M"], policy=["classic", "mglru"], replicates=2)
    ax = mglru.plot(df)
    assert len(ax.containers) == 2  # one errorbar container per policy
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["policy=classic", "policy=mglru"]
    assert ax.get_xlabel() == "memory (MiB)"


def test_every_public_function_has_a_docstring():
    for name in mglru.__all__:
        doc = getattr(mglru, name).__doc__
        assert doc and len(doc.strip()) > 20, name


def test_bad_numbers_name_the_argument():
    # Issue 35: memory=1.5 gave "'float' object is not iterable", cost 1.9
    # became 1 and timeseries_ms=0 became 1, silently.
    with pytest.raises(TypeError, match=r"memory: expected a string like '512M' or a whole number, not 1\.5"):
        mglru.run(memory=1.5)
    with pytest.raises(TypeError, match=r"memory: .* not 1\.5"):
        mglru.sweep(memory=["64M", 1.5])
    with pytest.raises(TypeError, match=r"cost: op=1\.9: expected a whole number of nanoseconds"):
        mglru.run(cost={"op": 1.9})
    with pytest.raises(ValueError, match=r"timeseries_ms=0: the sampling interval is at least 1 ms"):
        mglru.run(timeseries_ms=0)
    with pytest.raises(ValueError, match=r"timeseries_ms=0"):
        mglru._native.run('{}', '{}', 0, False)


def test_ctrl_c_interrupts_a_long_run():
    # Issue 35: Ctrl-C waited for the native call to return (27 s). A sweep
    # of 100 configurations (half a minute or more), interrupted after
    # 0.3 s, must end in KeyboardInterrupt, not in its result; the child is
    # killed after 300 s (a hang guard, no timing assertion).
    script = (
        "import threading, _thread, mglru\n"
        "threading.Timer(0.3, _thread.interrupt_main).start()\n"
        "try:\n"
        "    mglru.sweep(memory='64M..1G/100')\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "interrupted", out.stdout + out.stderr
