#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of repro/: the SVG writer, the helpers of repro/plumbing.py, and one
section of repro/reproduce.py at quick scale (not part of CI; the plots need
matplotlib: python3 -m pip install -r repro/requirements.txt).

    python3 -m unittest repro/test_reproduce.py      # from the repository root
    python3 repro/test_reproduce.py
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import svgplot  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


class SvgWriter(unittest.TestCase):
    def parse(self, text):
        return ET.fromstring(text.encode("utf-8"))

    def texts(self, root):
        return [t.text for t in root.iter(SVG + "text")]

    def test_well_formed_with_title_axes_legend_and_lines(self):
        series = [
            {"label": "classic <a&b>", "x": [0, 1, 2, 3], "y": [0, 10, 5, 2e6]},
            {"label": "mglru $x$", "x": [0.3, 1.5, 97.2], "y": [1, 2, 3], "dash": True},
        ]
        root = self.parse(svgplot.line_plot("t & \"quotes\"", "time (s)", "pages", series))
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual((root.get("width"), root.get("height")), ("645pt", "285pt"))   # 860 x 380 px
        texts = self.texts(root)
        for t in ("t & \"quotes\"", "time (s)", "pages", "classic <a&b>", "mglru $x$"):
            self.assertIn(t, texts)                   # escaped in the file, restored by the parser
        # The axes end on round ticks around the data; y starts at zero.
        for t in ("0", "100", "2M", "500k"):
            self.assertIn(t, texts)
        # One plotted line per series, the second dashed.
        styles = [p.get("style") or "" for p in root.iter(SVG + "path") if p.get("clip-path")]
        styles = [st for st in styles if "stroke: #e0e0e0" not in st]     # not the grid
        self.assertEqual(len(styles), 2)
        self.assertIn("stroke: #1f77b4", styles[0])
        self.assertIn("stroke: #d62728", styles[1])
        self.assertIn("stroke-dasharray", styles[1])
        self.assertNotIn("stroke-dasharray", styles[0])

    def test_degenerate_inputs(self):
        for series in ([], [{"label": "empty", "x": [], "y": []}],
                       [{"label": "flat", "x": [5, 5], "y": [0, 0]}]):
            self.parse(svgplot.line_plot("x", "x", "y", series))

    def test_deterministic_and_downsampled(self):
        xs = list(range(5000))
        ys = [(i * 7919) % 1000 for i in xs]
        a = svgplot.line_plot("d", "x", "y", [{"label": "s", "x": xs, "y": ys}])
        b = svgplot.line_plot("d", "x", "y", [{"label": "s", "x": xs, "y": ys}])
        self.assertEqual(a, b)
        self.assertNotIn("<dc:date>", a)
        dx, dy = svgplot.downsample(xs, ys)
        self.assertLessEqual(len(dx), 410)
        self.assertEqual((dx[0], dx[-1]), (0, 4999))
        self.assertEqual((min(dy), max(dy)), (min(ys), max(ys)))
        self.assertEqual(svgplot.downsample([1, 2], [3, 4]), ([1, 2], [3, 4]))

    def test_tick_labels(self):
        self.assertEqual([svgplot.fmt_tick(v) for v in (0, 0.25, 1500, 2e6, 3e9, -2500)],
                         ["0", "0.25", "1.5k", "2M", "3G", "-2.5k"])


class Helpers(unittest.TestCase):
    def setUp(self):
        import plumbing
        self.r = plumbing

    def test_split_change(self):
        c = self.r.split_change(100, 130, 140)
        self.assertEqual((c["total"]["diff"], c["series"]["diff"], c["rest"]["diff"]), (40, 30, 10))
        self.assertAlmostEqual(c["total"]["pct"], 40.0)
        self.assertAlmostEqual(c["rest"]["pct"], 10 / 130 * 100)
        self.assertAlmostEqual(c["series"]["share"], 75.0)
        self.assertAlmostEqual(c["rest"]["share"], 25.0)
        self.assertIsNone(c["total"]["share"])
        # no change on the whole: no shares
        c = self.r.split_change(5, 7, 5)
        self.assertIsNone(c["series"]["share"])
        self.assertIsNone(c["rest"]["share"])

    def test_split_table_and_sentence(self):
        t = self.r.split_table([("a|b", 100, 130, 140)]).splitlines()
        self.assertEqual(len(t), 3)
        self.assertTrue(t[0].startswith("| metric | 6.12 | 6.12 + series"))
        self.assertEqual(t[2], "| a\\|b | 100 | 130 | 140 | +40.0% | +30.0% | +7.7% |")
        self.assertEqual(self.r.split_sentence("x", 100, 130, 140),
                         "x: 100 → 140 on 7.2 (+40.0%); the series +30.0% (100 → 130), 75% of the change, "
                         "the rest of 7.2 +7.7% (130 → 140), 25%.")
        self.assertEqual(self.r.split_sentence("y", 3, 3, 3), "y: the same in all three runs (3).")
        self.assertEqual(self.r.fmt_share(-0.3), "0%")
        # changes within the tolerance get no shares
        self.assertEqual(self.r.split_sentence("z", 1000, 1001, 1002),
                         "z: 1,000, 1,001 with the series, 1,002 on 7.2: within ±1% (the series +0.1%, the rest of 7.2 +0.1%).")

    def test_file_pages_read(self):
        class Res:
            vm = {"pgpgin": 4000, "pswpin": 100}
        self.assertEqual(self.r.file_pages_read(Res()), 900)
        self.assertEqual(self.r.file_pages_read(Res(), swap_bio=False), 1000)

    def test_same_shared_counters(self):
        class Res:
            def __init__(self, vm):
                self.vm = vm
        a = Res({"pgpgin": 4, "pgscan_khugepaged": 0, "pswpin": 1})
        self.assertEqual(self.r.same_shared_counters(a, Res({"pgpgin": 4, "pswpin": 1})), (True, 2))
        self.assertEqual(self.r.same_shared_counters(a, Res({"pgpgin": 8, "pswpin": 1})), (False, 2))

    def test_parse_kernel_differences(self):
        text = ("kernel versions (--kernel)\n"
                "  6.1    Linux 6.1 (Debian 12's kernel): no memcg LRU\n"
                "         differences: no-memcg-lru, workingset-6.1, swap-rw-page\n"
                "  6.12   Linux 6.12 (the default)\n"
                "         differences: none (the reference)\n"
                "\nvariants (--variant, on top of the version)\n"
                "  plain, 6.12    the kernel version as released (default)\n")
        self.assertEqual(self.r.parse_kernel_differences(text),
                         {"6.1": ["no-memcg-lru", "workingset-6.1", "swap-rw-page"], "6.12": []})

    def test_run_kernel_argument(self):
        class Ctx:
            work_rel = "target/w"
        run = self.r.Run("S", "7.2", ("workload", "ycsb:scale=64"), policy="mglru", kernel="7.2")
        a = run.argv(Ctx(), for_doc=True)
        self.assertEqual(a[:6], ["./target/release/mglru", "run", "--workload", "ycsb:scale=64", "--kernel", "7.2"])
        self.assertEqual(a[6:8], ["--policy", "mglru"])
        self.assertNotIn("--kernel", self.r.Run("S", "b", ("trace", "t"), policy="mglru").argv(Ctx()))
        # --kswapd only where asked (S3's per-memcg check), right after the policy
        t = self.r.Run("S", "t", ("trace", "t"), policy="mglru", kswapd="thread").argv(Ctx())
        self.assertEqual(t[t.index("--policy"):t.index("--policy") + 4], ["--policy", "mglru", "--kswapd", "thread"])
        self.assertNotIn("--kswapd", a)


class QuickSection(unittest.TestCase):
    def test_quick_only_one_section(self):
        with tempfile.TemporaryDirectory() as out:
            p = subprocess.run([sys.executable, os.path.join(HERE, "reproduce.py"), "--quick", "--only", "S4-c",
                                "--out", out], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            with open(os.path.join(out, "REPRODUCTIONS.md")) as f:
                doc = f.read()
            self.assertIn("## S4-a..f, S4-u", doc)
            # every summary row of the section carries a computed verdict
            rows = [l for l in doc.splitlines() if l.startswith("| [S4-")]
            self.assertGreaterEqual(len(rows), 7)
            for l in rows:
                # model vs real kernel, then model vs seed
                self.assertRegex(l, r"\*\*(yes|no|pending|n\.a\.)\*\* \| \*\*(yes|no|n\.a\.)\*\* \|$")
            self.assertRegex(doc, r"\*\*\d+ comparisons\*\*")
            svgs = [f for f in os.listdir(os.path.join(out, "repro")) if f.endswith(".svg")]
            self.assertTrue(svgs)
            for fn in svgs:
                ET.parse(os.path.join(out, "repro", fn))
                self.assertIn("](repro/%s)" % fn, doc)
            self.assertTrue(re.search(r"\./target/release/mglru run --workload '?ycsb:workload=b,scale=64", doc))


class KernelReading(unittest.TestCase):
    """repro/kernel.py and repro/kernel_runs.py on the committed real-kernel results
    (validation/results-repro/, measured by repro/kernel_runs.py)."""

    def setUp(self):
        import kernel
        import kernel_runs
        self.k, self.kr = kernel, kernel_runs
        self.cases = []
        base = kernel.results_dir()
        for sec in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            for case in sorted(os.listdir(os.path.join(base, sec))):
                kc = kernel.load_case(sec, case)
                if kc is not None and kc.runs:
                    self.cases.append(kc)
        self.assertTrue(self.cases, "no measured case under %s" % base)

    def raw(self, kc, run, side):
        import gzip
        import json
        with gzip.open(os.path.join(kc.dir, "run%d" % run, side + ".json.gz"), "rt") as f:
            return json.load(f)

    def test_changes_are_the_runs_own(self):
        """The kernel's change per run pair, recomputed from the raw files, and the summary of them."""
        checked = 0
        for kc in self.cases:
            a, b = kc.sides()[0], kc.sides()[1]
            kch = self.k.kernel_change(kc, a, b, self.k.ops_per_guest_s)
            runs = sorted(n for n, r in kc.runs.items() if a in r and b in r)
            if not runs:
                self.assertIsNone(kch)
                continue
            want = []
            for n in runs:
                x, y = self.raw(kc, n, a), self.raw(kc, n, b)
                tx, ty = x["operations"] / x["wall_seconds"], y["operations"] / y["wall_seconds"]
                want.append((ty - tx) / tx * 100)
                # every kept result is complete and under its side's clock (case.json's accel)
                for r, side in ((x, a), (y, b)):
                    self.assertIsNone(self.kr.check_result_obj(r, kc.meta, side_of(kc, side)))
            self.assertEqual(kch["n"], len(runs))
            for got, w in zip(kch["changes"], want):
                self.assertAlmostEqual(got, w, places=9)
            self.assertEqual((kch["lo"], kch["hi"]), (min(want), max(want)))
            self.assertLessEqual(kch["lo"], kch["median"])
            self.assertLessEqual(kch["median"], kch["hi"])
            d = "+" if min(want) > self.k.TOL else "-" if max(want) < -self.k.TOL else "0"
            self.assertEqual(kch["dir"], d)
            checked += 1
        self.assertGreater(checked, 0)

    def test_profiles_follow_the_counters(self):
        """The kernel's vmstat_profile as plotted: time as a fraction, rising to at most the run's total."""
        seen = 0
        for kc in self.cases:
            for n, res in kc.runs.items():
                for side, r in res.items():
                    for c in ("pgscan_file", "pgsteal_kswapd", "workingset_refault_file"):
                        xs, ys = self.k.profile_series(r, c)
                        self.assertEqual(xs[-1], 1.0)
                        self.assertTrue(all(0 <= a < b for a, b in zip(xs, xs[1:])))
                        self.assertTrue(all(a <= b for a, b in zip(ys, ys[1:])), (kc.case, n, side, c))
                        self.assertLessEqual(ys[-1], r["vmstat"][c])
                        seen += 1
        self.assertGreater(seen, 0)

    def test_verdict_rule(self):
        def kch(*ch):
            return {"changes": list(ch), "median": sorted(ch)[len(ch) // 2], "lo": min(ch), "hi": max(ch),
                    "n": len(ch), "dir": "+" if min(ch) > 1 else "-" if max(ch) < -1 else "0"}
        v = self.k.verdict_kernel
        self.assertEqual(v(5.0, kch(2.0, 3.0, 9.0)), "yes")       # both up, beyond the spread
        self.assertEqual(v(-5.0, kch(2.0, 3.0, 9.0)), "no")
        self.assertEqual(v(0.5, kch(2.0, 3.0, 9.0)), "no")        # the model flat, the kernel up
        self.assertEqual(v(0.5, kch(-3.0, 0.2, 4.0)), "yes")      # the kernel's runs straddle zero
        self.assertEqual(v(3.5, kch(-3.0, 0.2, 4.0)), "yes")      # within the kernel's range
        self.assertEqual(v(6.0, kch(-3.0, 0.2, 4.0)), "no")       # outside it
        self.assertEqual(v(0.9, kch(0.1, 0.2, 0.3)), "yes")       # both within the tolerance
        self.assertEqual(v(5.0, kch(2.0, 3.0)), "pending")        # fewer than MIN_RUNS pairs
        self.assertEqual(v(5.0, None), "pending")
        self.assertEqual(self.k.fmt_kernel(kch(2.0, 3.0, 9.0)), "+3.0% (+2.0% … +9.0%, 3 runs)")
        self.assertEqual(self.k.fmt_kernel(None), "not measured")

    def test_partial_and_wrong_results_are_refused(self):
        kc = self.cases[0]
        n, res = sorted(kc.runs.items())[0]
        side, r = sorted(res.items())[0]
        sd = side_of(kc, side)
        self.assertIsNone(self.kr.check_result_obj(r, kc.meta, sd))
        import copy
        bad = copy.deepcopy(r)
        bad["operations"] = kc.meta["trace_ops"] // 2
        self.assertIn("operations", self.kr.check_result_obj(bad, kc.meta, sd))
        bad = copy.deepcopy(r)
        bad["meta"]["replay_rc"] = 5
        self.assertIn("replay_rc", self.kr.check_result_obj(bad, kc.meta, sd))
        bad = copy.deepcopy(r)
        bad["meta"]["accel"] = "tcg"
        self.assertIn("accel", self.kr.check_result_obj(bad, kc.meta, sd))
        bad = copy.deepcopy(r)
        bad["meta"]["kernel_series"] = "7.2" if sd.kernel != "7.2" else "6.12"
        self.assertIn("kernel_series", self.kr.check_result_obj(bad, kc.meta, sd))

    def test_every_sections_case_exists_with_its_sides(self):
        """A section that reads a real-kernel case (its own or another section's, as S1-E reads S1-C's) names
        a case of kernel_runs.CASES that has a side for each of its configs."""
        sys.path.insert(0, HERE)
        import plumbing
        import seed1  # noqa: F401
        cases = {c.key: c for c in self.kr.CASES}
        seen = 0
        for sec in plumbing.SECTIONS:
            if not getattr(sec, "kcase", None) or not hasattr(sec, "ksec"):
                continue
            key = "%s/%s" % (sec.ksec(), sec.kcase)
            self.assertIn(key, cases, sec.id)
            names = [s.name for s in cases[key].sides]
            for name, _, _, _ in sec.configs:
                self.assertIn(sec.KSIDE[name], names, (sec.id, name))
            seen += 1
        self.assertGreaterEqual(seen, 3)        # S1-C, S1-D, S1-E

    def test_fold_cpus_pins_tasks_onto_the_guests_cpus(self):
        f = self.kr.fold_cpus
        self.assertEqual(f("cpus 96\n", 2), "cpus 2\n")
        self.assertEqual(f("task cc3 memcg=build cpu=3\n", 2), "task cc3 memcg=build cpu=1\n")
        self.assertEqual(f("task untar\n", 2), "task untar\n")
        self.assertEqual(f("load cc3 heap 0\n", 2), "load cc3 heap 0\n")

    def test_a_plain_tcg_side_wants_plain_tcg(self):
        # 6.1 does not boot under the instruction counter: its side runs plain TCG, and a result of it
        # under icount (or a 6.12 result under plain TCG) is refused.
        import copy
        kc = self.cases[0]
        n, res = sorted(kc.runs.items())[0]
        side, r = sorted(res.items())[0]
        s61 = self.kr.MGLRU_61
        self.assertIsNone(s61.icount)
        self.assertEqual(s61.accel(), "tcg")
        ok = copy.deepcopy(r)
        ok["meta"].update(accel="tcg", kernel_series="6.1")
        self.assertIsNone(self.kr.check_result_obj(ok, kc.meta, s61))
        ok["meta"]["accel"] = "tcg-icount0"
        self.assertIn("accel", self.kr.check_result_obj(ok, kc.meta, s61))
        self.assertEqual(self.kr.MGLRU_612.accel(), "tcg-icount0")

    def test_trace_of_another_generator_is_refused(self):
        import json
        kc = self.cases[0]
        with tempfile.TemporaryDirectory() as d:
            old = (self.kr.RESULTS, self.kr.TRACES)
            try:
                self.kr.RESULTS, self.kr.TRACES = os.path.join(d, "results"), os.path.join(d, "traces")
                os.makedirs(os.path.join(self.kr.RESULTS, kc.section, kc.case))
                os.makedirs(os.path.join(self.kr.TRACES, kc.section))
                with open(os.path.join(self.kr.RESULTS, kc.section, kc.case, "case.json"), "w") as f:
                    json.dump(kc.meta, f)
                with open(os.path.join(self.kr.TRACES, kc.section, kc.case + ".trace"), "w") as f:
                    f.write("memory 64M\n")
                with self.assertRaises(RuntimeError) as e:
                    self.kr.ensure_trace(kc.section, kc.case)
                self.assertIn("SHA-256", str(e.exception))
            finally:
                self.kr.RESULTS, self.kr.TRACES = old


class KernelTraces(unittest.TestCase):
    def assert_only_swap_differs(self, a, b, swap):
        """Traces a and b are line for line the same but their `swap` statement, b's being `swap`; their lines."""
        la, lb = open(a).read().splitlines(), open(b).read().splitlines()
        self.assertEqual(len(la), len(lb))
        diff = [(x, y) for x, y in zip(la, lb) if x != y]
        self.assertEqual(len(diff), 1)
        self.assertTrue(diff[0][0].startswith("swap "))
        self.assertEqual(diff[0][1], swap)
        return la, lb

    """repro/kernel_runs.py's traces: the generator's lines, the swap statement replaced where a case says."""

    def test_swap_replaced_and_nothing_else(self):
        import kernel_runs
        import plumbing
        if not os.path.exists(plumbing.BIN):
            self.skipTest("no model binary at %s" % plumbing.BIN)
        case = [c for c in kernel_runs.CASES if c.swap][0]
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.trace"), os.path.join(d, "b.trace")
            kernel_runs.emit(case.spec, None, a)
            kernel_runs.emit(case.spec, case.swap, b)
            la, lb = self.assert_only_swap_differs(a, b, case.swap)
            # the harness reads the replaced statement: zram, so swapped pages stay out of brd
            env = kernel_runs.trace_setup(b)
            self.assertEqual(env["SWAP_ZRAM"], "y")
            lines, ops = kernel_runs.count_ops(b)
            self.assertEqual(lines, len(lb))
            self.assertEqual(ops, sum(1 for x in lb if x.split(" ", 1)[0] in ("load", "store", "read", "write")))
            self.assertGreater(ops, 0)

    def test_files_first_moves_only_the_task_statements(self):
        import kernel_runs
        import plumbing
        if not os.path.exists(plumbing.BIN):
            self.skipTest("no model binary at %s" % plumbing.BIN)
        case = [c for c in kernel_runs.CASES if c.files_first][0]
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.trace"), os.path.join(d, "b.trace")
            kernel_runs.emit(case.spec, None, a)
            kernel_runs.emit(case.spec, None, b, files_first=True)
            la, lb = open(a).read().splitlines(), open(b).read().splitlines()
            self.assertEqual(sorted(la), sorted(lb))                # the same statements
            head = [l for l in lb if not l.startswith("#")][:12]
            kinds = [l.split()[0] for l in head]
            self.assertLess(max(i for i, k in enumerate(kinds) if k == "file"),
                            min(i for i, k in enumerate(kinds) if k == "task"))
            first = next(i for i, l in enumerate(la) if l.split(" ", 1)[0] in ("load", "store", "read", "write"))
            self.assertEqual(la[first:], lb[first:])                # the operations untouched
            # and the model runs both to the same counters
            outs = []
            for t in (a, b):
                js = t + ".json"
                subprocess.run([plumbing.BIN, "run", t, "--policy", "mglru", "--json", js, "--quiet", "--no-progress"],
                               check=True)
                import json
                outs.append(json.load(open(js))["vmstat"])
            self.assertEqual(outs[0], outs[1])

    def test_nomemcg_is_the_sections_nomemcg_trace(self):
        """S3-i's case: every task in the root memcg, the same lines as the section's `.nomemcg` trace
        (plumbing.build_split) and nothing else changed."""
        import kernel_runs
        import plumbing
        if not os.path.exists(plumbing.BIN):
            self.skipTest("no model binary at %s" % plumbing.BIN)
        case = [c for c in kernel_runs.CASES if c.nomemcg][0]
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.trace"), os.path.join(d, "b.trace")
            kernel_runs.emit(case.spec, case.swap, a)
            kernel_runs.emit(case.spec, case.swap, b, nomemcg=True)
            rel = os.path.relpath(os.path.join(d, "c.trace"), plumbing.ROOT)
            plumbing.build_split(rel, case.spec, ["load memcached"], nomemcg=True, src=os.path.relpath(a, plumbing.ROOT))
            la, lb = open(a).read().splitlines(), open(b).read().splitlines()
            self.assertEqual(lb, open(os.path.join(d, "c.trace.nomemcg")).read().splitlines())
            self.assertTrue(any(l.startswith("memcg ") for l in la))
            self.assertFalse(any(l.startswith("memcg ") or "memcg=" in l for l in lb))
            dropped = sum(1 for l in la if l.startswith("memcg "))
            self.assertEqual(len(la) - dropped, len(lb))
            self.assertEqual(kernel_runs.count_ops(a)[1], kernel_runs.count_ops(b)[1])
            self.assertEqual([l for l in la if not l.startswith(("memcg ", "task "))],
                             [l for l in lb if not l.startswith("task ")])

    def test_merged_is_the_sections_merged_trace(self):
        """S1-A's and S1-B's cases: repro/seed1.py's merged trace at the case's scale (plumbing.build_merged),
        only its swap statement replaced; the phases' markers are where build_merged ended each phase."""
        import kernel_runs
        import plumbing
        import seed1
        if not os.path.exists(plumbing.BIN):
            self.skipTest("no model binary at %s" % plumbing.BIN)
        case = [c for c in kernel_runs.CASES if c.key == "S1-A/seq"][0]
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.trace"), os.path.join(d, "b.trace")
            kw = seed1.S1A().prep_for(kernel_runs.S1A_SCALE, True)
            kw["out"] = os.path.relpath(a, plumbing.ROOT)
            ref = plumbing.build_merged(**kw)
            got = kernel_runs.emit(case.spec, case.swap, b, merged=case.merged())
            self.assertEqual(got, ref)
            la, lb = self.assert_only_swap_differs(a, b, case.swap)
            self.assertEqual(got["lines"], len(lb))
            for i, ph in enumerate(got["phases"][:-1]):     # the prefixes, with the case's swap too
                self.assertEqual(open(b + ".p%d" % i).read().splitlines(), lb[:ph["marker"]])
                self.assertEqual(open(a + ".p%d" % i).read().splitlines(), la[:ph["marker"]])
        self.assertEqual([c for c in kernel_runs.CASES if c.key == "S1-B/mix"][0].harness_args, ["--swap-loop"])

    def test_s4s_spec_is_the_sections(self):
        """S4-s's case: repro/seed4.py's spec with sizes / 512 and the seed's times / 2048."""
        import kernel_runs
        import seed4
        self.assertEqual(kernel_runs.S4S_SPEC, seed4.S4s().spec(512, 60 * 10**9 // 4, 300 * 10**9 // 4))


def side_of(kc, name):
    import kernel_runs
    s = [x for x in kc.meta["sides"] if x["name"] == name][0]
    # case.json's accel: "tcg-icountN", or "tcg" for a side under plain TCG (S3's 6.1)
    accel = s.get("accel", "tcg-icount" + kernel_runs.ICOUNT)
    icount = None if accel == "tcg" else accel[len("tcg-icount"):]
    return kernel_runs.Side(s["name"], s["kernel"], s["mode"], icount=icount)


class RootfsPrelude(unittest.TestCase):
    """kernel.Rootfs: the guest's root file system written into a measured trace (hand-counted)."""

    def trace(self, d):
        # 2 setup lines and 2 more (43 bytes), then 6,000 lines of 100 bytes: body line j holds bytes
        # 43 + 100 j .. 142 + 100 j.
        path = os.path.join(d, "t.trace")
        body = "".join("store t r %d 1%s\n" % (i % 16, " " * (100 - len("store t r %d 1\n" % (i % 16)))) for i in range(6000))
        with open(path, "w") as f:
            f.write("memory 64M\ncpus 2\ntask t\nanon t r size=64K\n" + body)
        return path

    def test_prelude_reads_and_line_map(self):
        import kernel
        with tempfile.TemporaryDirectory() as d:
            path = self.trace(d)
            self.assertEqual(os.path.getsize(path), 600043)
            fs = kernel.Rootfs(path, 1000 * 4096, zram_ratio=179)
            self.assertEqual((fs.pages, fs.trace_pages, fs.base), (1000, 147, 853))
            out = os.path.join(d, "out.trace")
            fs.write(out)
            lines = open(out).read().splitlines()
            # the setup stays first; the prelude (with a second task for cpus 2) before `task t`
            self.assertEqual(lines[:2], ["memory 64M", "cpus 2"])
            self.assertEqual(lines[3:11], ["task guest-init", "task guest-init.1", "exit guest-init.1",
                                           "file guest-rootfs size=4000K tmpfs=y zram_ratio=1.79",
                                           "write guest-init guest-rootfs 0 1000",
                                           "read guest-init guest-rootfs 853 64", "stat root", "task t"])
            # 600,043 bytes: 147 pages, three 256 KiB chunks; byte 262,144 lies in body line
            # (262,144 - 43) // 100 = 2621, trace line 2626; byte 524,288 in body line 5242, line 5247
            reads = [(i, l) for i, l in enumerate(lines) if l.startswith("read guest-init")]
            self.assertEqual([l for _, l in reads], ["read guest-init guest-rootfs 853 64",
                                                     "read guest-init guest-rootfs 917 64",
                                                     "read guest-init guest-rootfs 981 19"])
            self.assertEqual(fs._inserted, [(3, 8), (2626, 1), (5247, 1)])
            self.assertEqual(lines[reads[1][0] + 1], open(path).read().splitlines()[2625])
            self.assertEqual((fs.line(2), fs.line(3), fs.line(2625), fs.line(2626), fs.line(6004)),
                             (2, 11, 2633, 2635, 6014))
            # the zones: the file's pages back as free in the highest zone with managed pages
            zs = fs.zones([{"name": "DMA", "managed": 10, "free": 5}, {"name": "DMA32", "managed": 5000, "free": 100},
                           {"name": "Normal", "managed": 0, "free": 0}])
            self.assertEqual([z["free"] for z in zs], [5, 1100, 0])
            # the model reads it (file statement, zram_ratio= and all)
            p = subprocess.run([os.path.join(ROOT, "target", "release", "mglru"), "run", out, "--json", "-",
                                "--quiet", "--no-progress"], capture_output=True, text=True)
            if p.returncode == 127 or "No such file" in p.stderr:
                self.skipTest("no target/release/mglru")
            self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    unittest.main()
